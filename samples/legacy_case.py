"""How a case states one generated legacy order and what the import must make of it
(samples/legacy_data.py): the case, its payments, and the shorthands the cases use."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.legacy_records import Reason

POOL = "<pool>"  # a customer name drawn from CUSTOMERS
CUSTOMERS = [
    "ACME",  # the shop's customer: matched, not created
    " acme ",
    "Globex",
    "globex",
    "  Initech  ",
    "Northwind Print Buyers",
    "Umbrella Corp",
]
A, S, C, P = "ACTIVE", "STARTED", "COMPLETED", "PENDING"
CANCELLED = "CANCELLED"

Step = tuple[str | None, str | None, str | None]  # step text, status, operator name


@dataclass(frozen=True)
class Pay:
    amount: int | None
    reason: Reason | None = None  # None: posted
    target: str = "self"  # self | missing (no such order) | null (order_id null)
    paid: bool = True  # paid_at set


@dataclass(frozen=True)
class Case:
    """One legacy order and what the import must make of it.

    Either `reason` (excluded), or `final` with `tasks` ({role: (status, picker)}: picker
    an operator name, "system" or None for a pending task). `gate` is set exactly for live
    (active in legacy) orders: whether the delivery task is available after the import;
    `opens_gate` whether the import itself opens it (an OPEN_GATE move).
    """

    name: str
    status: str | None
    steps: tuple[Step, ...] = ()
    reason: Reason | None = None
    final: str | None = None
    tasks: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    gate: bool | None = None
    opens_gate: bool = False
    unmapped: tuple[str | None, ...] = ()  # step texts kept in details.legacySteps
    items: str = "std"
    customer: str | None = POOL
    notes: str | None = POOL  # POOL: drawn from a few short ones
    # Formatted with id (this order's), cycle and prev (the group's previous order id).
    order_no: str | None = "L{id:07d}"
    created: bool = True
    flags: bool = True  # False: install/transport/repair all null
    timestamps: bool = True  # False: steps without started_at/finished_at
    reverse_rows: bool = False  # steps written in descending id order
    payments: tuple[Pay, ...] = ()

    @property
    def live(self) -> bool:
        return self.gate is not None


def live(name: str, status: str, steps: tuple[Step, ...], tasks: dict, **kw: Any) -> Case:
    kw.setdefault("final", A)
    kw.setdefault("gate", False)
    return Case(name, status, steps, tasks=tasks, **kw)


def out(
    name: str, status: str | None, reason: Reason, steps: tuple[Step, ...] = (), **kw: Any
) -> Case:
    return Case(name, status, steps, reason=reason, **kw)


R = Reason
PRINT_PENDING: tuple[Step, ...] = (("{print}", "pending", None),)
