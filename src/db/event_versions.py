"""The schema versions of the event log's payloads, and how an older one is read as the
current one. The rule for changing a payload is in docs/realtime.md ("Events that
change shape").

Every event kind has a version, `CURRENT[kind]`; each row of `events` stores the version
its payload was written in (`schema_version`). When a kind's payload changes shape (a
field renamed or removed, or its meaning changed), its version goes up by one and
`UPCASTERS` gains the step from the previous one: `(kind, version)` maps to a pure
function from a payload of that version to one of the next. Readers (`events.from_row`:
the feed, replays, webhooks) apply the steps to older rows, one after another, so every
payload they hand on is of the current version; the rows themselves are never rewritten.
Upcasters never read the database: an old row must mean, forever, what its payload says.

Every writer is SQL (`src/db/queries.sql`), and every kind is at version 1, which is the
column's default: no statement names `schema_version`
(tests/integration/test_event_versions.py holds the two to each other).
"""

from collections.abc import Callable
from typing import Any

from domain.enums import EventType

Payload = dict[str, Any]
Upcaster = Callable[[Payload], Payload]

CURRENT: dict[EventType, int] = {
    EventType.TASK_CREATED: 1,
    EventType.TASK_CHANGED: 1,
    EventType.TASK_WITHDRAWN: 1,
    EventType.TASK_REQUEUED: 1,
    EventType.TASK_GATE_OPENED: 1,
    EventType.TASK_GATE_CLOSED: 1,
    EventType.DELIVERY_GATE_OPENED: 1,
    EventType.DELIVERY_GATE_CLOSED: 1,
    EventType.WORK_ORDER_CREATED: 1,
    EventType.WORK_ORDER_CHANGED: 1,
    EventType.WORK_ORDER_DUE_SOON: 1,
    EventType.WORK_ORDER_LATE: 1,
    EventType.TASK_STALE: 1,
    EventType.TOKEN_REVOKED: 1,
    EventType.LEDGER_ENTRY_POSTED: 1,
    EventType.USER_ACCESS_CHANGED: 1,
    EventType.WEBHOOK_DISABLED: 1,
    EventType.PROOF_UPLOADED: 1,
    EventType.PROOF_APPROVED: 1,
    EventType.PROOF_CHANGES_REQUESTED: 1,
}

# (kind, version) -> the payload of version + 1. None yet: no kind has changed shape.
UPCASTERS: dict[tuple[EventType, int], Upcaster] = {}


class NewerEventVersion(RuntimeError):
    """An event stored in a version this release does not know: a newer release wrote it.
    Nothing from it on is delivered by this process (events.read_page)."""


def upcast(kind: EventType, version: int, payload: Payload) -> Payload:
    """`payload`, stored in `version`, as the current version of `kind`."""
    current = CURRENT[kind]
    if version > current:
        raise NewerEventVersion(
            f"a {kind.value} event is stored in version {version}, but this release reads "
            f"{kind.value} up to version {current}: a newer release wrote it"
        )
    while version < current:
        payload = UPCASTERS[kind, version](payload)
        version += 1
    return payload
