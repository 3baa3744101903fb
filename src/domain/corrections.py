"""Correcting a work order: what changed in its details, flags and customer, said as its
DETAILS_CHANGED history row says it ("quantity: 500; transport: no" before, "quantity:
1000; transport: yes" after): only the parts that changed, in words."""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The flags as their history text names them.
FLAGS = {
    "needs_installation": "installation",
    "needs_transport": "transport",
    "needs_repair": "repair",
}
ABSENT = "(none)"


def needs_in_words(flags: Mapping[str, bool]) -> list[str]:
    """What an order needs on delivery, as a delivery card says it: "Installation"..."""
    return [word.capitalize() for flag, word in FLAGS.items() if flags[flag]]


@dataclass(frozen=True)
class OrderText:
    """What of an order a correction may change."""

    details: Mapping[str, Any]
    flags: Mapping[str, bool]  # by FLAGS' keys
    customer: str  # the customer's name
    # Whether its departments that need an approved proof wait for one.
    proof_required: bool = False


def _value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def changes(before: OrderText, after: OrderText) -> tuple[str, str] | None:
    """The changed parts before and after, as text; None when nothing changed."""
    old, new = [], []
    for key in sorted(before.details.keys() | after.details.keys()):
        was, now = before.details.get(key), after.details.get(key)
        if was != now or (key in before.details) != (key in after.details):
            old.append(f"{key}: {_value(was) if key in before.details else ABSENT}")
            new.append(f"{key}: {_value(now) if key in after.details else ABSENT}")
    for flag, word in FLAGS.items():
        if before.flags[flag] != after.flags[flag]:
            old.append(f"{word}: {'yes' if before.flags[flag] else 'no'}")
            new.append(f"{word}: {'yes' if after.flags[flag] else 'no'}")
    if before.customer != after.customer:
        old.append(f"customer: {before.customer}")
        new.append(f"customer: {after.customer}")
    if before.proof_required != after.proof_required:
        old.append(f"proof required: {'yes' if before.proof_required else 'no'}")
        new.append(f"proof required: {'yes' if after.proof_required else 'no'}")
    if not old:
        return None
    return "; ".join(old), "; ".join(new)
