"""Correcting a work order: what changed in its details, flags and customer, part by
part, as its DETAILS_CHANGED history row keeps it and the timeline reads it ("Quantity:
500 -> 1000"); and as the row's two texts ("quantity: 500; transport: no" before,
"quantity: 1000; transport: yes" after)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.jobs import detail_label, detail_value

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


@dataclass(frozen=True)
class Change:
    """One part of an order a correction changed: a detail's key, or the word of another
    part (a flag's, "customer", "proof required"); its value before and after in words,
    None on the side where it is absent."""

    key: str
    detail: bool
    before: str | None
    after: str | None

    @property
    def label(self) -> str:
        """As the order's detail lines name it ("Paper type"); another part capitalised."""
        return detail_label(self.key) if self.detail else self.key.capitalize()

    def stored(self) -> dict[str, Any]:
        return {"key": self.key, "detail": self.detail, "before": self.before, "after": self.after}

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> "Change":
        return cls(stored["key"], stored["detail"], stored["before"], stored["after"])


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def changes(before: OrderText, after: OrderText) -> list[Change]:
    """Each part that changed, details by key, then the flags, the customer, the proof
    requirement; empty when nothing changed."""
    found = [
        Change(
            key,
            True,
            detail_value(before.details[key]) if key in before.details else None,
            detail_value(after.details[key]) if key in after.details else None,
        )
        for key in sorted(before.details.keys() | after.details.keys())
        if key not in before.details
        or key not in after.details
        or before.details[key] != after.details[key]
    ]
    found += [
        Change(word, False, _yes_no(before.flags[flag]), _yes_no(after.flags[flag]))
        for flag, word in FLAGS.items()
        if before.flags[flag] != after.flags[flag]
    ]
    if before.customer != after.customer:
        found.append(Change("customer", False, before.customer, after.customer))
    if before.proof_required != after.proof_required:
        found.append(
            Change(
                "proof required",
                False,
                _yes_no(before.proof_required),
                _yes_no(after.proof_required),
            )
        )
    return found


def texts(found: Sequence[Change]) -> tuple[str, str]:
    """The changed parts before and after as the history row's two texts ("quantity: 500;
    transport: no")."""
    return (
        "; ".join(f"{c.key}: {ABSENT if c.before is None else c.before}" for c in found),
        "; ".join(f"{c.key}: {ABSENT if c.after is None else c.after}" for c in found),
    )
