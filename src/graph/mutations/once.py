"""The idempotency key of createWorkOrder, createCustomer and createUser, and the `changed`
their payloads answer: one spelling for the three (db.idempotency does the work)."""

from typing import Any

import strawberry


def idempotency_key_field(note: str = "") -> Any:
    return strawberry.field(
        default=None,
        description="Optional, 1-200 characters: one per intended create (e.g. a UUID made "
        "when the form is submitted first). A retry with the same key and the same input "
        "answers what the first made, changed: false; the same key with other input is "
        f"DUPLICATE.{note}",
    )


def changed_field() -> Any:
    return strawberry.field(
        default=False,
        description="False when this idempotency key was already used with this input: "
        "nothing was made, the payload holds what the first request made (as it is now).",
    )
