"""The legacy planner applies the API's own input rules (domain.validation) to what it
imports: an order number, a customer name, details or a user's name the API would refuse
excludes the order (whatever its status) or the user, with the rule's message; nothing is
shortened or cleaned up. The integration tests import such cases from a real database;
NUL characters and lone surrogates, which PostgreSQL text cannot hold, are only here."""

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import pytest

from domain.enums import DepartmentKind
from domain.legacy import OrderContext, plan_order, plan_users
from domain.legacy_records import (
    Department,
    Exclusion,
    LegacyItem,
    LegacyOrder,
    LegacyStep,
    LegacyUser,
    PlannedOrder,
    Reason,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)
DEPARTMENTS = {
    "print": Department(1, "print", DepartmentKind.PRODUCTION, True),
    "delivery": Department(2, "delivery", DepartmentKind.DELIVERY, False),
}
CTX = OrderContext(
    departments=DEPARTMENTS,
    known_operators=frozenset({1}),
    duplicate_numbers=frozenset(),
    taken_numbers=frozenset(),
    now=NOW,
)
ORDER = LegacyOrder(
    id=7,
    order_no="L7",
    customer_name="Acme",
    status="open",
    created_at=NOW,
    notes="rush",
    install=False,
    transport=False,
    repair=False,
    steps=(LegacyStep(1, "print", "pending", None, None, None),),
    items=(LegacyItem("Flyers", 10, 20),),
)
R = Reason


@dataclass(frozen=True)
class Case:
    name: str
    change: dict[str, Any]  # fields of ORDER
    reason: Reason | None  # None: imported
    says: str = ""  # in the exclusion's detail


CASES = [
    Case("number of 41 characters", {"order_no": "N" * 41}, R.BAD_ORDER_NUMBER, "1 to 40 letters"),
    Case("number of 40 characters", {"order_no": "N" * 40}, None),
    Case("number padded", {"order_no": "  L-7/a.b_c  "}, None),
    Case("number with a space", {"order_no": "L 7"}, R.BAD_ORDER_NUMBER, "An order number"),
    Case("number with a formula", {"order_no": "=1+1"}, R.BAD_ORDER_NUMBER, "beginning with"),
    Case("number with a NUL", {"order_no": "L7\x00"}, R.BAD_ORDER_NUMBER, "An order number"),
    Case("number with a newline", {"order_no": "L7\nL8"}, R.BAD_ORDER_NUMBER, "An order number"),
    Case(
        "bad number before no customer",
        {"order_no": "#7", "customer_name": None},
        R.BAD_ORDER_NUMBER,
    ),
    Case("customer with a NUL", {"customer_name": "Acme\x00 Ltd"}, R.BAD_CUSTOMER_NAME, "NUL"),
    Case(
        "customer with a lone surrogate",
        {"customer_name": "Acme \ud800"},
        R.BAD_CUSTOMER_NAME,
        "surrogate",
    ),
    Case(
        "customer of 201 characters",
        {"customer_name": "C" * 201},
        R.BAD_CUSTOMER_NAME,
        "Shorten the customer name to at most 200 characters",
    ),
    Case("customer of 200 characters, padded", {"customer_name": f"  {'C' * 200}  "}, None),
    Case(
        "bad customer before a bad line item",
        {"customer_name": "C" * 201, "items": (LegacyItem("x", -1, 5),)},
        R.BAD_CUSTOMER_NAME,
    ),
    Case("notes with a NUL", {"notes": "rush\x00"}, R.BAD_DETAILS, "NUL"),
    Case("notes with a lone surrogate", {"notes": "\udc80"}, R.BAD_DETAILS, "surrogate"),
    Case(
        "notes too big",
        {"notes": "n" * 16_400},
        R.BAD_DETAILS,
        "Shorten the job details to at most 16384 bytes. They would hold the notes",
    ),
    Case("notes too big in UTF-8", {"notes": "é" * 8_200}, R.BAD_DETAILS, "16384 bytes"),
    Case(
        "notes over the job's cap",
        {"notes": "n" * 4_001},
        R.BAD_DETAILS,
        "Shorten the notes to at most 4000 characters.",
    ),
    Case("notes under the cap", {"notes": "n" * 4_000}, None),
    Case(
        "item description with a NUL",
        {"items": (LegacyItem("Fly\x00ers", 1, 1),)},
        R.BAD_DETAILS,
        "NUL",
    ),
    Case(
        "item descriptions too big",
        {"items": (LegacyItem("d" * 9_000, 1, 1), LegacyItem("e" * 9_000, 1, 1))},
        R.BAD_DETAILS,
        "16384 bytes",
    ),
    Case(
        "a bad line item before big notes",
        {"notes": "n" * 16_400, "items": (LegacyItem("x", None, 5),)},
        R.BAD_LINE_ITEM,
    ),
]


# Active, completed and cancelled orders alike: the API shows history orders too.
@pytest.mark.parametrize("status", ["open", "done", "cancelled"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_imported_values_follow_the_api_rules(case: Case, status: str) -> None:
    order = replace(ORDER, status=status, **case.change)

    plan = plan_order(order, CTX)

    if case.reason is None:
        assert isinstance(plan, PlannedOrder), plan
        assert plan.order_number == (order.order_no or "").strip()
        assert plan.customer_name == (order.customer_name or "").strip()
        assert plan.details.get("notes") == order.notes
        return
    assert isinstance(plan, Exclusion), plan
    assert (plan.reason, plan.legacy_id) == (case.reason, order.id)
    assert plan.order_number == (order.order_no or "").strip()
    assert case.says in plan.detail


def test_big_unmapped_steps_exclude_a_history_order() -> None:
    """A finished order keeps the steps that name no department in its details, so they
    count; an active order with such a step is excluded for the step itself."""
    step = LegacyStep(2, "laminate " * 2_000, "done", None, None, None)
    steps = (*ORDER.steps, step)

    done = plan_order(replace(ORDER, status="done", steps=steps), CTX)
    active = plan_order(replace(ORDER, status="open", steps=steps), CTX)

    assert isinstance(done, Exclusion) and done.reason is R.BAD_DETAILS
    assert isinstance(active, Exclusion) and active.reason is R.UNKNOWN_STEP


def test_big_details_come_before_the_steps_of_an_active_order() -> None:
    order = replace(ORDER, notes="n" * 16_400, steps=())
    plan = plan_order(order, CTX)
    assert isinstance(plan, Exclusion) and plan.reason is R.BAD_DETAILS


@dataclass(frozen=True)
class UserCase:
    name: str
    user: LegacyUser
    named: str | None  # the Pressroom user's name; None: excluded as BAD_NAME
    says: str = ""


def user(name: str | None, email: str = "kim@legacy.test") -> LegacyUser:
    return LegacyUser(id=3, email=email, name=name, department="print", is_admin=False)


USER_CASES = [
    UserCase("a name", user("  Kim Lee "), "Kim Lee"),
    UserCase("a name of 200 characters", user("K" * 200), "K" * 200),
    UserCase("a name of 201 characters", user("K" * 201), None, "at most 200 characters"),
    UserCase("a name with a NUL", user("Kim\x00"), None, "NUL"),
    UserCase("a name with a lone surrogate", user("Kim \udfff"), None, "surrogate"),
    UserCase("no name: the email's local part", user(None), "kim"),
    UserCase("a blank name: the email's local part", user("  "), "kim"),
    UserCase(
        "no name and a local part of 201 characters",
        user(None, f"{'k' * 201}@legacy.test"),
        None,
        "at most 200 characters",
    ),
]


@pytest.mark.parametrize("case", USER_CASES, ids=[c.name for c in USER_CASES])
def test_imported_user_names_follow_the_api_rules(case: UserCase) -> None:
    plan = plan_users([case.user], DEPARTMENTS)

    if case.named is not None:
        assert [u.name for u in plan.users] == [case.named]
        assert plan.excluded == [] and plan.email_of == {3: case.user.email}
        return
    assert plan.users == [] and plan.email_of == {}  # so no step names them as an operator
    [excluded] = plan.excluded
    assert (excluded.reason, excluded.legacy_id, excluded.order_number) == (R.BAD_NAME, 3, None)
    assert case.says in excluded.detail


def test_a_bad_name_excludes_one_legacy_user_not_the_person() -> None:
    """Two legacy users with one email are one person; the one with a bad name is reported
    and the other still comes over."""
    good = LegacyUser(4, "Kim@Legacy.test", "Kim", None, False, ("admin",))
    plan = plan_users([good, replace(user("K" * 201), id=5)], DEPARTMENTS)

    assert [(u.name, u.is_admin, u.legacy_ids) for u in plan.users] == [("Kim", True, (4,))]
    assert [(x.reason, x.legacy_id) for x in plan.excluded] == [(R.BAD_NAME, 5)]
