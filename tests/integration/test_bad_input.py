"""Bad input through the real HTTP API: a specific error, and nothing written.

Every case posts one request to the running server and asserts
- the exact `userErrors[].code` and `.field` (or the top-level `extensions.code`),
- a message that names what is wrong,
- that no table changed (row counts and a digest of every row, before and after),
- that the response is no 500 and carries no stack trace.
"""

import base64
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db import customers
from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.shop import PASSWORD, Shop

MAX_BODY = 256 * 1024


def assert_clean(response: httpx.Response) -> None:
    """No 500, no stack trace, no masked unexpected error."""
    assert response.status_code < 500, (response.status_code, response.text[:500])
    assert "Traceback" not in response.text
    assert 'File "' not in response.text
    assert "INTERNAL_SERVER_ERROR" not in response.text, response.text[:500]
    assert "Unexpected error" not in response.text, response.text[:500]


async def post(
    api: Client, token: str | None, query: str, variables: dict[str, Any] | None = None
) -> dict[str, Any]:
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    # ASCII JSON, as browsers send it: a lone surrogate travels as the escape "\ud800".
    payload = json.dumps({"query": query, "variables": variables or {}}, ensure_ascii=True)
    response = await api.http.post(api.url, content=payload.encode(), headers=headers)
    assert_clean(response)
    body: dict[str, Any] = response.json()
    return body


def b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def in_days(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def cursor(key: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(key).encode()).decode()


# ---------------------------------------------------------------------------------------------
# The world every case runs in.


@dataclass
class World:
    shop: Shop
    order: int  # ACTIVE, number WO-TAKEN, print + finishing + delivery, version 1
    cancelled: int  # CANCELLED, print + delivery
    print_task: int  # of `order`, STARTED by pat
    finishing_task: int  # of `order`, PENDING and available
    delivery_task: int  # of `order`, PENDING, gate closed
    cancelled_task: int  # the print task of `cancelled`
    other_customer: int  # a second customer, with no orders

    def token(self, who: str | None) -> str | None:
        return self.shop.tokens[who] if who else None


async def _tasks(engine: AsyncEngine, order: int) -> dict[str, int]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT d.code, t.id FROM department_tasks t "
                "JOIN departments d ON d.id = t.department_id WHERE t.work_order_id = :o"
            ),
            {"o": order},
        )
        return {code: int(pk) for code, pk in rows}


@pytest.fixture
async def world(shop: Shop) -> World:
    order = await shop.order(["print", "finishing"], order_number="WO-TAKEN")
    cancelled = await shop.order(["print"])
    tasks = await _tasks(shop.engine, order)
    cancelled_tasks = await _tasks(shop.engine, cancelled)
    async with unit_of_work(shop.engine) as conn:
        await transition_task(
            conn, tasks["print"], TaskAction.START, Actor(shop.users["pat"], is_admin=False)
        )
        await cancel_work_order(conn, cancelled, shop.users["sam"], "Customer withdrew.")
    async with unit_of_work(shop.engine) as conn:
        other = await customers.create_customer(conn, "Other Ltd", shop.users["sam"])
        await shop.person(conn, "wal", ["print"])
    # The shop's one hash of PASSWORD, made once a run: a hash of its own for each of the
    # table's cases was a sixth of this module's CPU.
    await shop.password_for("wal")
    return World(
        shop=shop,
        order=order,
        cancelled=cancelled,
        print_task=tasks["print"],
        finishing_task=tasks["finishing"],
        delivery_task=tasks["delivery"],
        cancelled_task=cancelled_tasks["print"],
        other_customer=other.customer.id,
    )


# ---------------------------------------------------------------------------------------------
# Cases.

OBJECT = {
    "createWorkOrder": "workOrder { id }",
    "createCustomer": "customer { id }",
    "createUser": "user { id }",
    "createDepartment": "department { id }",
    "setUserDepartments": "user { id }",
    "updateWorkOrderQuote": "workOrder { id version }",
    "cancelWorkOrder": "workOrder { id status }",
    "startTask": "task { id } changed",
    "releaseTask": "task { id } changed",
    "completeTask": "task { id } changed",
    "reopenTask": "task { id } changed",
    "login": "token user { id }",
    "createApiToken": "secret token { id }",
    "createDisplayToken": "secret token { id }",
    "revokeToken": "token { id }",
    "postLedgerEntry": "entry { id } changed",
}


def mutation(name: str) -> str:
    input_type = name[0].upper() + name[1:] + "Input"
    return (
        f"mutation Bad($input: {input_type}!) {{ {name}(input: $input) "
        f"{{ {OBJECT[name]} userErrors {{ code field message }} }} }}"
    )


Inputs = Callable[[World], dict[str, Any]]


@dataclass(frozen=True)
class UserErr:
    code: str
    field: str | None
    says: str  # a fragment the message must contain (case-insensitive)


@dataclass(frozen=True)
class TopErr:
    code: str
    says: str


@dataclass(frozen=True)
class Case:
    who: str | None
    name: str  # mutation name, or "" for a raw query
    inputs: Inputs
    expect: UserErr | TopErr
    query: str = ""


def wo(**over: Any) -> Inputs:
    def build(w: World) -> dict[str, Any]:
        base = {
            "customerId": gid("Customer", w.shop.customer_id),
            "departmentCodes": ["print"],
            "details": {"product": "Flyers"},
        }
        return {**base, **{k: v(w) if callable(v) else v for k, v in over.items()}}

    return build


def quote(amount: str, currency: str = "EUR", **over: Any) -> Inputs:
    def build(w: World) -> dict[str, Any]:
        base = {
            "workOrderId": gid("WorkOrder", w.order),
            "quote": {"amount": amount, "currency": currency},
        }
        return {**base, **{k: v(w) if callable(v) else v for k, v in over.items()}}

    return build


def fixed(value: dict[str, Any]) -> Inputs:
    return lambda w: value


def user(**over: Any) -> Inputs:
    base = {
        "email": "new@shop.test",
        "name": "New",
        "password": "long-enough-pw",
        "departmentCodes": ["print"],
    }
    return fixed({**base, **over})


def ledger(**over: Any) -> Inputs:
    """A valid CHARGE against the world's order, but for what `over` changes."""

    def build(w: World) -> dict[str, Any]:
        base = {
            "customerId": gid("Customer", w.shop.customer_id),
            "workOrderId": gid("WorkOrder", w.order),
            "kind": "CHARGE",
            "amount": "10.00",
            "idempotencyKey": "key-1",
        }
        return {**base, **{k: v(w) if callable(v) else v for k, v in over.items()}}

    return build


def dept(**over: Any) -> Inputs:
    return fixed({"code": "binding", "name": "Binding", "kind": "PRODUCTION", **over})


CASES: dict[str, Case] = {
    # --- createWorkOrder -----------------------------------------------------------------
    "wo-unknown-customer": Case(
        "sam",
        "createWorkOrder",
        wo(customerId=gid("Customer", 999_999)),
        UserErr("NOT_FOUND", "customerId", "no such customer"),
    ),
    "wo-customer-id-of-other-type": Case(
        "sam",
        "createWorkOrder",
        wo(customerId=lambda w: gid("User", w.shop.users["sam"])),
        UserErr("NOT_FOUND", "customerId", "No such customer."),
    ),
    "wo-customer-id-non-numeric": Case(
        "sam",
        "createWorkOrder",
        wo(customerId=b64("Customer:abc")),
        UserErr("NOT_FOUND", "customerId", "No such customer."),
    ),
    "wo-customer-id-beyond-bigint": Case(
        "sam",
        "createWorkOrder",
        wo(customerId=b64("Customer:99999999999999999999999")),
        UserErr("NOT_FOUND", "customerId", "No such customer."),
    ),
    "wo-customer-id-not-base64": Case(
        "sam", "createWorkOrder", wo(customerId="!!not-an-id"), TopErr("BAD_REQUEST", "id")
    ),
    "wo-customer-id-without-type": Case(
        "sam", "createWorkOrder", wo(customerId=b64("Customer")), TopErr("BAD_REQUEST", "id")
    ),
    "wo-unknown-department": Case(
        "sam",
        "createWorkOrder",
        wo(departmentCodes=["print", "nope"]),
        UserErr("NOT_FOUND", "departmentCodes", "nope"),
    ),
    "wo-department-code-not-a-slug": Case(
        "sam",
        "createWorkOrder",
        wo(departmentCodes=["Print"]),
        UserErr("INVALID_INPUT", "departmentCodes", "'Print'"),
    ),
    "wo-sales-department-gets-no-task": Case(
        "sam",
        "createWorkOrder",
        wo(departmentCodes=["print", "sales"]),
        UserErr("INVALID_INPUT", "departmentCodes", "not sales"),
    ),
    "wo-order-number-taken": Case(
        "sam",
        "createWorkOrder",
        wo(orderNumber="WO-TAKEN"),
        UserErr("DUPLICATE", "orderNumber", "WO-TAKEN is already taken"),
    ),
    "wo-no-production-department": Case(
        "sam",
        "createWorkOrder",
        wo(departmentCodes=[]),
        UserErr("INVALID_INPUT", "departmentCodes", "or mark the order as delivery only"),
    ),
    "wo-only-the-delivery-department": Case(
        "sam",
        "createWorkOrder",
        wo(departmentCodes=["delivery"]),
        UserErr("INVALID_INPUT", "departmentCodes", "at least one production department"),
    ),
    "wo-no-job-line": Case(
        "sam",
        "createWorkOrder",
        wo(details={"colour": "blue"}),
        UserErr("INVALID_INPUT", "details", "Say what the job is"),
    ),
    "wo-delivery-only-with-production": Case(
        "sam",
        "createWorkOrder",
        wo(deliveryOnly=True),
        UserErr("INVALID_INPUT", "deliveryOnly", "has no production departments"),
    ),
    "wo-order-number-too-long": Case(
        "sam",
        "createWorkOrder",
        wo(orderNumber="A" * 41),
        UserErr("INVALID_INPUT", "orderNumber", "1 to 40"),
    ),
    "wo-order-number-blank": Case(
        "sam",
        "createWorkOrder",
        wo(orderNumber="   "),
        UserErr("INVALID_INPUT", "orderNumber", "1 to 40"),
    ),
    "wo-details-invalid-json": Case(
        "sam",
        "createWorkOrder",
        wo(details='{"size": "A4",'),
        UserErr("INVALID_INPUT", "details", "not valid JSON"),
    ),
    "wo-details-not-an-object": Case(
        "sam",
        "createWorkOrder",
        wo(details=[1, 2, 3]),
        UserErr("INVALID_INPUT", "details", "must be a JSON object"),
    ),
    "wo-details-too-large": Case(
        "sam",
        "createWorkOrder",
        wo(details={"notes": "x" * 20_000}),
        UserErr("INVALID_INPUT", "details", "at most 16384 bytes"),
    ),
    "wo-details-with-nul": Case(
        "sam",
        "createWorkOrder",
        wo(details={"notes": "a\u0000b"}),
        UserErr("INVALID_INPUT", "details", "details"),
    ),
    "wo-quote-too-many-decimals": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "12.345", "currency": "EUR"}),
        UserErr("INVALID_INPUT", "quote.amount", "at most 2 decimal places"),
    ),
    "wo-quote-decimals-for-jpy": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "100.5", "currency": "JPY"}),
        UserErr("INVALID_INPUT", "quote.amount", "at most 0 decimal places"),
    ),
    "wo-quote-lowercase-currency": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "12.00", "currency": "eur"}),
        UserErr("INVALID_INPUT", "quote.currency", "ISO 4217"),
    ),
    "wo-quote-four-letter-currency": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "12.00", "currency": "EURO"}),
        UserErr("INVALID_INPUT", "quote.currency", "'EURO'"),
    ),
    "wo-quote-nan": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "NaN", "currency": "EUR"}),
        UserErr("INVALID_INPUT", "quote.amount", "amount"),
    ),
    "wo-quote-too-large": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "10000000000000", "currency": "EUR"}),
        UserErr("INVALID_INPUT", "quote.amount", "too large"),
    ),
    "wo-quote-not-a-number": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "twelve", "currency": "EUR"}),
        TopErr("BAD_REQUEST", "Decimal"),
    ),
    "wo-quote-with-a-comma": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "480,50", "currency": "EUR"}),
        TopErr(
            "BAD_REQUEST",
            'at .quote.amount: Value cannot represent a Decimal: "480,50". '
            "Write amounts as plain decimals: digits, with a point before the cents",
        ),
    ),
    "wo-quote-exponent-overflow": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "1E999999", "currency": "EUR"}),
        UserErr("INVALID_INPUT", "quote.amount", "too large"),
    ),
    "wo-quote-tiny-fraction": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "1E-999999", "currency": "EUR"}),
        UserErr("INVALID_INPUT", "quote.amount", "decimal places"),
    ),
    "wo-quote-negative": Case(
        "sam",
        "createWorkOrder",
        wo(quote={"amount": "-5.00", "currency": "EUR"}),
        UserErr("INVALID_INPUT", "quote.amount", "negative"),
    ),
    "wo-empty-key": Case(
        "sam",
        "createWorkOrder",
        wo(idempotencyKey=""),
        UserErr("INVALID_INPUT", "idempotencyKey", "Fill in the idempotency key."),
    ),
    "wo-overlong-key": Case(
        "sam",
        "createWorkOrder",
        wo(idempotencyKey="k" * 201),
        UserErr("INVALID_INPUT", "idempotencyKey", "at most 200 characters"),
    ),
    # --- postLedgerEntry -----------------------------------------------------------------
    "ledger-unknown-customer": Case(
        "abe",
        "postLedgerEntry",
        ledger(customerId=gid("Customer", 999_999), workOrderId=None),
        UserErr("NOT_FOUND", "customerId", "no such customer"),
    ),
    "ledger-unknown-work-order": Case(
        "abe",
        "postLedgerEntry",
        ledger(workOrderId=gid("WorkOrder", 999_999)),
        UserErr("NOT_FOUND", "workOrderId", "no such work order"),
    ),
    "ledger-work-order-of-another-customer": Case(
        "abe",
        "postLedgerEntry",
        ledger(customerId=lambda w: gid("Customer", w.other_customer)),
        UserErr("INVALID_INPUT", "workOrderId", "another customer"),
    ),
    "ledger-zero-charge": Case(
        "abe",
        "postLedgerEntry",
        ledger(amount="0.00"),
        UserErr("INVALID_INPUT", "amount", "must be positive"),
    ),
    "ledger-negative-payment": Case(
        "abe",
        "postLedgerEntry",
        ledger(kind="PAYMENT", amount="-5.00"),
        UserErr("INVALID_INPUT", "amount", "must be positive"),
    ),
    "ledger-zero-adjustment": Case(
        "abe",
        "postLedgerEntry",
        ledger(kind="ADJUSTMENT", amount="0"),
        UserErr("INVALID_INPUT", "amount", "must not be zero"),
    ),
    "ledger-too-many-decimals": Case(
        "abe",
        "postLedgerEntry",
        ledger(amount="10.001"),
        UserErr("INVALID_INPUT", "amount", "at most 2 decimal places"),
    ),
    "ledger-decimals-for-jpy": Case(
        "abe",
        "postLedgerEntry",
        ledger(amount="10.5", currency="JPY"),
        UserErr("INVALID_INPUT", "amount", "at most 0 decimal places"),
    ),
    "ledger-unknown-currency": Case(
        "abe",
        "postLedgerEntry",
        ledger(currency="ABC"),
        UserErr("INVALID_INPUT", "currency", "'ABC'"),
    ),
    "ledger-metal-is-not-money": Case(
        "abe",
        "postLedgerEntry",
        ledger(currency="XAU"),
        UserErr("INVALID_INPUT", "currency", "ISO 4217"),
    ),
    "ledger-empty-key": Case(
        "abe",
        "postLedgerEntry",
        ledger(idempotencyKey=""),
        UserErr("INVALID_INPUT", "idempotencyKey", "Fill in the idempotency key."),
    ),
    "ledger-blank-key": Case(
        "abe",
        "postLedgerEntry",
        ledger(idempotencyKey="   "),
        UserErr("INVALID_INPUT", "idempotencyKey", "Fill in the idempotency key."),
    ),
    "ledger-overlong-key": Case(
        "abe",
        "postLedgerEntry",
        ledger(idempotencyKey="k" * 201),
        UserErr("INVALID_INPUT", "idempotencyKey", "at most 200 characters"),
    ),
    "ledger-key-with-nul": Case(
        "abe",
        "postLedgerEntry",
        ledger(idempotencyKey="k\u0000"),
        UserErr("INVALID_INPUT", "idempotencyKey", "NUL"),
    ),
    "ledger-charge-on-cancelled-order": Case(
        "abe",
        "postLedgerEntry",
        ledger(workOrderId=lambda w: gid("WorkOrder", w.cancelled)),
        UserErr("WORK_ORDER_CLOSED", "workOrderId", "cancelled"),
    ),
    "ledger-memo-too-long": Case(
        "abe",
        "postLedgerEntry",
        ledger(memo="m" * 1001),
        UserErr("INVALID_INPUT", "memo", "at most 1000 characters"),
    ),
    "ledger-unknown-kind": Case(
        "abe",
        "postLedgerEntry",
        ledger(kind="GIFT"),
        TopErr("BAD_REQUEST", "LedgerEntryKind"),
    ),
    # --- createCustomer ------------------------------------------------------------------
    "customer-empty-name": Case(
        "sam",
        "createCustomer",
        fixed({"name": "   "}),
        UserErr("INVALID_INPUT", "name", "Fill in the name."),
    ),
    "customer-name-too-long": Case(
        "sam",
        "createCustomer",
        fixed({"name": "N" * 201}),
        UserErr("INVALID_INPUT", "name", "at most 200 characters"),
    ),
    "customer-name-with-nul": Case(
        "sam",
        "createCustomer",
        fixed({"name": "Ac\u0000me"}),
        UserErr("INVALID_INPUT", "name", "name"),
    ),
    "customer-blank-key": Case(
        "sam",
        "createCustomer",
        fixed({"name": "New", "idempotencyKey": "   "}),
        UserErr("INVALID_INPUT", "idempotencyKey", "Fill in the idempotency key."),
    ),
    "customer-key-with-nul": Case(
        "sam",
        "createCustomer",
        fixed({"name": "New", "idempotencyKey": "k\u0000"}),
        UserErr("INVALID_INPUT", "idempotencyKey", "NUL"),
    ),
    # --- createUser ----------------------------------------------------------------------
    "user-email-taken-other-case": Case(
        "ada",
        "createUser",
        user(email="SAM@Shop.Test"),
        UserErr("DUPLICATE", "email", "exists"),
    ),
    "user-email-taken-with-a-new-key": Case(
        "ada",
        "createUser",
        user(email="sam@shop.test", idempotencyKey="new-key"),
        UserErr("DUPLICATE", "email", "exists"),
    ),
    "user-overlong-key": Case(
        "ada",
        "createUser",
        user(idempotencyKey="k" * 201),
        UserErr("INVALID_INPUT", "idempotencyKey", "at most 200 characters"),
    ),
    "user-email-invalid": Case(
        "ada",
        "createUser",
        user(email="not-an-email"),
        UserErr("INVALID_INPUT", "email", "not an email address"),
    ),
    "user-email-too-long": Case(
        "ada",
        "createUser",
        user(email="a" * 250 + "@shop.test"),
        UserErr("INVALID_INPUT", "email", "not an email address"),
    ),
    "user-password-too-short": Case(
        "ada",
        "createUser",
        user(password="short"),
        UserErr("INVALID_INPUT", "password", "8 to 256 characters"),
    ),
    "user-password-too-long": Case(
        "ada",
        "createUser",
        user(password="p" * 257),
        UserErr("INVALID_INPUT", "password", "8 to 256 characters"),
    ),
    "user-name-too-long": Case(
        "ada",
        "createUser",
        user(name="N" * 201),
        UserErr("INVALID_INPUT", "name", "at most 200 characters"),
    ),
    "user-unknown-department": Case(
        "ada",
        "createUser",
        user(departmentCodes=["print", "nope"]),
        UserErr("NOT_FOUND", "departmentCodes", "nope"),
    ),
    # --- createDepartment ----------------------------------------------------------------
    "department-code-taken": Case(
        "ada",
        "createDepartment",
        dept(code="print"),
        UserErr("DUPLICATE", "code", "A department with the code 'print' exists already."),
    ),
    "department-second-delivery": Case(
        "ada",
        "createDepartment",
        dept(code="courier", kind="DELIVERY"),
        UserErr("DUPLICATE", "kind", "already a delivery department"),
    ),
    "department-code-not-a-slug": Case(
        "ada",
        "createDepartment",
        dept(code="Big Press"),
        UserErr("INVALID_INPUT", "code", "lowercase"),
    ),
    "department-code-with-trailing-newline": Case(
        "ada",
        "createDepartment",
        dept(code="binding\n"),
        UserErr("INVALID_INPUT", "code", "lowercase"),
    ),
    "department-code-too-long": Case(
        "ada",
        "createDepartment",
        dept(code="b" * 41),
        UserErr("INVALID_INPUT", "code", "1 to 40"),
    ),
    "department-name-empty": Case(
        "ada",
        "createDepartment",
        dept(name=""),
        UserErr("INVALID_INPUT", "name", "Fill in the name."),
    ),
    "department-sales-cannot-gate": Case(
        "ada",
        "createDepartment",
        dept(code="sales-2", kind="SALES", gatesDelivery=True),
        UserErr("INVALID_INPUT", "gatesDelivery", "Only PRODUCTION"),
    ),
    "department-unknown-kind": Case(
        "ada",
        "createDepartment",
        dept(kind="WAREHOUSE"),
        TopErr("BAD_REQUEST", "DepartmentKind"),
    ),
    # --- setUserDepartments --------------------------------------------------------------
    "membership-unknown-user": Case(
        "ada",
        "setUserDepartments",
        fixed({"userId": gid("User", 999_999), "departmentCodes": ["print"]}),
        UserErr("NOT_FOUND", "userId", "no such user"),
    ),
    "membership-id-of-other-type": Case(
        "ada",
        "setUserDepartments",
        lambda w: {"userId": gid("WorkOrder", w.order), "departmentCodes": ["print"]},
        UserErr("NOT_FOUND", "userId", "No such user."),
    ),
    "membership-unknown-department": Case(
        "ada",
        "setUserDepartments",
        lambda w: {"userId": gid("User", w.shop.users["pat"]), "departmentCodes": ["nope"]},
        UserErr("NOT_FOUND", "departmentCodes", "nope"),
    ),
    "membership-user-id-not-base64": Case(
        "ada",
        "setUserDepartments",
        fixed({"userId": "%%%", "departmentCodes": ["print"]}),
        TopErr("BAD_REQUEST", "id"),
    ),
    # --- updateWorkOrderQuote ------------------------------------------------------------
    "quote-stale-version": Case(
        "sam",
        "updateWorkOrderQuote",
        quote("10.00", expectedVersion=7),
        UserErr("STALE_OBJECT", "expectedVersion", "at version 1, not 7"),
    ),
    "quote-unknown-order": Case(
        "sam",
        "updateWorkOrderQuote",
        quote("10.00", workOrderId=gid("WorkOrder", 999_999)),
        UserErr("NOT_FOUND", "workOrderId", "no such work order"),
    ),
    "quote-cancelled-order": Case(
        "sam",
        "updateWorkOrderQuote",
        quote("10.00", workOrderId=lambda w: gid("WorkOrder", w.cancelled)),
        UserErr("WORK_ORDER_CLOSED", None, "CANCELLED"),
    ),
    "quote-too-many-decimals": Case(
        "sam",
        "updateWorkOrderQuote",
        quote("10.001", expectedVersion=1),
        UserErr("INVALID_INPUT", "quote.amount", "at most 2 decimal places"),
    ),
    "quote-bad-currency": Case(
        "sam",
        "updateWorkOrderQuote",
        quote("10.00", "€", expectedVersion=1),
        UserErr("INVALID_INPUT", "quote.currency", "ISO 4217"),
    ),
    "quote-version-beyond-int": Case(
        "sam",
        "updateWorkOrderQuote",
        quote("10.00", expectedVersion=2**40),
        TopErr("BAD_REQUEST", "32-bit"),
    ),
    "quote-order-id-not-base64": Case(
        "sam", "updateWorkOrderQuote", quote("1", workOrderId="??"), TopErr("BAD_REQUEST", "id")
    ),
    # --- cancelWorkOrder -----------------------------------------------------------------
    "cancel-empty-reason": Case(
        "sam",
        "cancelWorkOrder",
        lambda w: {"workOrderId": gid("WorkOrder", w.order), "reason": ""},
        UserErr("INVALID_INPUT", "reason", "Fill in the reason."),
    ),
    "cancel-blank-reason": Case(
        "ada",
        "cancelWorkOrder",
        lambda w: {"workOrderId": gid("WorkOrder", w.order), "reason": " \t\n "},
        UserErr("INVALID_INPUT", "reason", "Fill in the reason."),
    ),
    "cancel-reason-too-long": Case(
        "sam",
        "cancelWorkOrder",
        lambda w: {"workOrderId": gid("WorkOrder", w.order), "reason": "r" * 1001},
        UserErr("INVALID_INPUT", "reason", "at most 1000 characters"),
    ),
    "cancel-unknown-order": Case(
        "sam",
        "cancelWorkOrder",
        fixed({"workOrderId": gid("WorkOrder", 999_999), "reason": "Because."}),
        UserErr("NOT_FOUND", "workOrderId", "no such work order"),
    ),
    "cancel-already-cancelled": Case(
        "sam",
        "cancelWorkOrder",
        lambda w: {"workOrderId": gid("WorkOrder", w.cancelled), "reason": "Again."},
        UserErr("WORK_ORDER_CLOSED", None, "CANCELLED"),
    ),
    # --- startTask -----------------------------------------------------------------------
    "start-unknown-task": Case(
        "pat",
        "startTask",
        fixed({"taskId": gid("DepartmentTask", 999_999)}),
        UserErr("NOT_FOUND", "taskId", "no such task"),
    ),
    "start-id-of-other-type": Case(
        "pat",
        "startTask",
        lambda w: {"taskId": gid("WorkOrder", w.order)},
        UserErr("NOT_FOUND", "taskId", "No such department task."),
    ),
    "start-task-of-cancelled-order": Case(
        "pat",
        "startTask",
        lambda w: {"taskId": gid("DepartmentTask", w.cancelled_task)},
        UserErr("WORK_ORDER_CLOSED", None, "cancelled"),
    ),
    "start-delivery-gate-closed": Case(
        "dan",
        "startTask",
        lambda w: {"taskId": gid("DepartmentTask", w.delivery_task)},
        UserErr("NOT_AVAILABLE", None, "waits for tasks before it"),
    ),
    "start-taken-by-someone-else": Case(
        "pia",
        "startTask",
        lambda w: {"taskId": gid("DepartmentTask", w.print_task)},
        UserErr("ALREADY_TAKEN", None, "Pat"),
    ),
    "start-task-id-not-base64": Case(
        "pat", "startTask", fixed({"taskId": "@@"}), TopErr("BAD_REQUEST", "id")
    ),
    # --- releaseTask (admin) -------------------------------------------------------------
    "release-empty-reason": Case(
        "ada",
        "releaseTask",
        lambda w: {"taskId": gid("DepartmentTask", w.print_task), "reason": ""},
        UserErr("INVALID_INPUT", "reason", "Fill in the reason."),
    ),
    "release-reason-too-long": Case(
        "ada",
        "releaseTask",
        lambda w: {"taskId": gid("DepartmentTask", w.print_task), "reason": "r" * 1001},
        UserErr("INVALID_INPUT", "reason", "at most 1000 characters"),
    ),
    "release-pending-task": Case(
        "ada",
        "releaseTask",
        lambda w: {"taskId": gid("DepartmentTask", w.finishing_task), "reason": "Stuck."},
        UserErr("INVALID_TRANSITION", None, "Cannot release a task that is waiting"),
    ),
    "release-unknown-task": Case(
        "ada",
        "releaseTask",
        fixed({"taskId": gid("DepartmentTask", 999_999), "reason": "Stuck."}),
        UserErr("NOT_FOUND", "taskId", "no such task"),
    ),
    "complete-empty-reason": Case(
        "ada",
        "completeTask",
        lambda w: {"taskId": gid("DepartmentTask", w.finishing_task), "reason": ""},
        UserErr("INVALID_INPUT", "reason", "Fill in the reason."),
    ),
    "reopen-pending-task": Case(
        "ada",
        "reopenTask",
        lambda w: {"taskId": gid("DepartmentTask", w.finishing_task), "reason": "Misfolded."},
        UserErr("INVALID_TRANSITION", None, "a task that is waiting"),
    ),
    # --- login ---------------------------------------------------------------------------
    "login-wrong-password": Case(
        None,
        "login",
        fixed({"email": "wal@shop.test", "password": "wrong-password"}),
        UserErr("INVALID_INPUT", None, "Email or password is incorrect"),
    ),
    "login-unknown-email": Case(
        None,
        "login",
        fixed({"email": "nobody@shop.test", "password": PASSWORD}),
        UserErr("INVALID_INPUT", None, "Email or password is incorrect"),
    ),
    "login-user-without-password": Case(
        None,
        "login",
        fixed({"email": "sam@shop.test", "password": PASSWORD}),
        UserErr("INVALID_INPUT", None, "Email or password is incorrect"),
    ),
    "login-empty-email": Case(
        None,
        "login",
        fixed({"email": "", "password": PASSWORD}),
        UserErr("INVALID_INPUT", "email", "not an email address"),
    ),
    "login-email-too-long": Case(
        None,
        "login",
        fixed({"email": "e" * 300, "password": PASSWORD}),
        UserErr("INVALID_INPUT", "email", "not an email address"),
    ),
    "login-not-an-email": Case(
        None,
        "login",
        fixed({"email": "user:6", "password": PASSWORD}),
        UserErr("INVALID_INPUT", "email", "'user:6' is not an email address"),
    ),
    # --- tokens --------------------------------------------------------------------------
    "api-token-empty-name": Case(
        "sam",
        "createApiToken",
        fixed({"name": " ", "password": PASSWORD}),
        UserErr("INVALID_INPUT", "name", "Fill in the name."),
    ),
    "api-token-wrong-password": Case(
        "sam",
        "createApiToken",
        fixed({"name": "ERP", "password": "not-sams-password"}),
        UserErr("INVALID_INPUT", "password", "The password is incorrect"),
    ),
    "api-token-expiry-too-far": Case(
        "sam",
        "createApiToken",
        lambda w: {"name": "ERP", "password": PASSWORD, "expiresAt": in_days(400)},
        UserErr("INVALID_INPUT", "expiresAt", "at most 365 days ahead"),
    ),
    "display-token-expired-already": Case(
        "ada",
        "createDisplayToken",
        lambda w: {"name": "Wall", "departmentCodes": ["print"], "expiresAt": in_days(-1)},
        UserErr("INVALID_INPUT", "expiresAt", "Choose an expiry date in the future."),
    ),
    "display-token-no-departments": Case(
        "ada",
        "createDisplayToken",
        fixed({"name": "Wall", "departmentCodes": []}),
        UserErr("INVALID_INPUT", "departmentCodes", "at least one department"),
    ),
    "display-token-unknown-department": Case(
        "ada",
        "createDisplayToken",
        fixed({"name": "Wall", "departmentCodes": ["print", "bindery"]}),
        UserErr("NOT_FOUND", "departmentCodes", "bindery"),
    ),
    "revoke-unknown-token": Case(
        "ada",
        "revokeToken",
        fixed({"tokenId": gid("Token", 999_999)}),
        UserErr("NOT_FOUND", "tokenId", "no such token"),
    ),
    "revoke-id-of-other-type": Case(
        "ada",
        "revokeToken",
        lambda w: {"tokenId": gid("User", w.shop.users["sam"])},
        UserErr("NOT_FOUND", "tokenId", "No such token."),
    ),
    # --- reads: malformed arguments are top-level BAD_REQUEST ----------------------------
    "read-first-over-100": Case(
        "sam",
        "",
        fixed({"first": 101}),
        TopErr("BAD_REQUEST", "between 0 and 100, got 101"),
        query="query($first: Int) { workOrders(first: $first) { edges { cursor } } }",
    ),
    "read-first-negative": Case(
        "sam",
        "",
        fixed({"first": -1}),
        TopErr("BAD_REQUEST", "got -1"),
        query="query($first: Int) { workOrders(first: $first) { edges { cursor } } }",
    ),
    "read-users-first-over-100": Case(
        "ada",
        "",
        fixed({"first": 1000}),
        TopErr("BAD_REQUEST", "between 0 and 100"),
        query="query($first: Int) { users(first: $first) { edges { cursor } } }",
    ),
    "read-queue-first-over-100": Case(
        "pat",
        "",
        fixed({"first": 101}),
        TopErr("BAD_REQUEST", "between 0 and 100"),
        query='query($first: Int) { queue(department: "print", first: $first) { eventCursor } }',
    ),
    "read-cursor-garbage": Case(
        "sam",
        "",
        fixed({"after": "not a cursor!"}),
        TopErr("BAD_REQUEST", "not a cursor"),
        query="query($after: String) { workOrders(after: $after) { edges { cursor } } }",
    ),
    "read-cursor-wrong-arity": Case(
        "sam",
        "",
        fixed({"after": cursor([1, 2])}),
        TopErr("BAD_REQUEST", "not a cursor"),
        query="query($after: String) { workOrders(after: $after) { edges { cursor } } }",
    ),
    "read-customers-cursor-garbage": Case(
        "sam",
        "",
        fixed({"after": "%%%"}),
        TopErr("BAD_REQUEST", "not a cursor"),
        query="query($after: String) { customers(after: $after) { edges { cursor } } }",
    ),
    "read-queue-cursor-of-work-orders": Case(
        "pat",
        "",
        fixed({"after": cursor([5])}),
        TopErr("BAD_REQUEST", "not a cursor"),
        query='query($after: String) { queue(department: "print", after: $after) { eventCursor } }',
    ),
    "read-cursor-with-text-key": Case(
        "sam",
        "",
        fixed({"after": cursor(["x"])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query="query($after: String) { workOrders(after: $after) { edges { cursor } } }",
    ),
    "read-cursor-with-huge-key": Case(
        "sam",
        "",
        fixed({"after": cursor([10**25])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query="query($after: String) { workOrders(after: $after) { edges { cursor } } }",
    ),
    "read-cursor-with-float-key": Case(
        "sam",
        "",
        fixed({"after": cursor([1.5])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query="query($after: String) { workOrders(after: $after) { edges { cursor } } }",
    ),
    "read-cursor-with-null-key": Case(
        "sam",
        "",
        fixed({"after": cursor([None])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query="query($after: String) { workOrders(after: $after) { edges { cursor } } }",
    ),
    "read-cursor-with-negative-key": Case(
        "sam",
        "",
        fixed({"after": cursor([-3])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query="query($after: String) { workOrders(after: $after) { edges { cursor } } }",
    ),
    "read-queue-cursor-with-wrong-types": Case(
        "pat",
        "",
        fixed({"after": cursor(["a", "b", "c"])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query='query($after: String) { queue(department: "print", after: $after) { eventCursor } }',
    ),
    "read-queue-cursor-with-bad-date": Case(
        "pat",
        "",
        fixed({"after": cursor([0, "yesterday", 1])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query='query($after: String) { queue(department: "print", after: $after) { eventCursor } }',
    ),
    "read-queue-cursor-with-naive-date": Case(
        "pat",
        "",
        fixed({"after": cursor([0, "2026-01-01T00:00:00", 1])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query='query($after: String) { queue(department: "print", after: $after) { eventCursor } }',
    ),
    "read-cursor-too-long": Case(
        "sam",
        "",
        fixed({"after": cursor([1] * 100)}),
        TopErr("BAD_REQUEST", "longer than any cursor (200 characters)"),
        query="query($after: String) { workOrders(after: $after) { edges { cursor } } }",
    ),
    "read-cursor-nested-too-deeply": Case(
        "pat",
        "",
        fixed({"after": base64.urlsafe_b64encode(b"[" * 100_000).decode()}),
        TopErr("BAD_REQUEST", "longer than any cursor"),
        query='query($after: String) { queue(department: "print", after: $after) { eventCursor } }',
    ),
    "read-queue-cursor-with-unknown-lane": Case(
        "pat",
        "",
        fixed({"after": cursor([7, "2026-01-01T00:00:00+00:00", 1])}),
        TopErr("BAD_REQUEST", "not a cursor of this connection"),
        query='query($after: String) { queue(department: "print", after: $after) { eventCursor } }',
    ),
    "read-search-too-long": Case(
        "sam",
        "",
        fixed({"search": "s" * 101}),
        TopErr("BAD_REQUEST", "at most 100 characters"),
        query="query($search: String) { workOrders(search: $search) { edges { cursor } } }",
    ),
    "read-customer-filter-of-other-type": Case(
        "sam",
        "",
        lambda w: {"id": gid("User", w.shop.users["sam"])},
        TopErr("BAD_REQUEST", "not the id of a Customer"),
        query="query($id: ID!) { workOrders(customerId: $id) { edges { cursor } } }",
    ),
    "read-customer-filter-not-base64": Case(
        "sam",
        "",
        fixed({"id": "!!"}),
        TopErr("BAD_REQUEST", "id"),
        query="query($id: ID!) { workOrders(customerId: $id) { edges { cursor } } }",
    ),
    "read-queue-unknown-department": Case(
        "ada",
        "",
        fixed({"d": "bindery"}),
        TopErr("NOT_FOUND", "No department has the code 'bindery'."),
        query="query($d: String!) { queue(department: $d) { eventCursor } }",
    ),
    "read-node-not-base64": Case(
        "pat",
        "",
        fixed({"id": "!!"}),
        TopErr("BAD_REQUEST", "id"),
        query="query($id: ID!) { node(id: $id) { id } }",
    ),
    "read-work-order-not-base64": Case(
        "pat",
        "",
        fixed({"id": b64("WorkOrder")}),
        TopErr("BAD_REQUEST", "id"),
        query="query($id: ID!) { workOrder(id: $id) { id } }",
    ),
}


# A lone surrogate ("\ud800" in JSON) in any string input: INVALID_INPUT on that field.
LONE = "a\ud800b"
SURROGATES: dict[str, tuple[str | None, str, Inputs, str]] = {
    "customer-name": ("sam", "createCustomer", fixed({"name": LONE}), "name"),
    "wo-details": ("sam", "createWorkOrder", wo(details={"notes": LONE}), "details"),
    "wo-details-key": ("sam", "createWorkOrder", wo(details={LONE: 1}), "details"),
    "cancel-reason": (
        "sam",
        "cancelWorkOrder",
        lambda w: {"workOrderId": gid("WorkOrder", w.order), "reason": LONE},
        "reason",
    ),
    "release-reason": (
        "ada",
        "releaseTask",
        lambda w: {"taskId": gid("DepartmentTask", w.print_task), "reason": LONE},
        "reason",
    ),
    "login-email": (None, "login", fixed({"email": LONE, "password": PASSWORD}), "email"),
    "login-password": (
        None,
        "login",
        fixed({"email": "wal@shop.test", "password": LONE + PASSWORD}),
        "password",
    ),
    "user-name": ("ada", "createUser", user(name=LONE), "name"),
    "user-password": ("ada", "createUser", user(password=LONE * 4), "password"),
    "user-email": ("ada", "createUser", user(email=f"{LONE}@shop.test"), "email"),
    "department-name": ("ada", "createDepartment", dept(name=LONE), "name"),
    "api-token-name": (
        "sam",
        "createApiToken",
        fixed({"name": LONE, "password": PASSWORD}),
        "name",
    ),
    "ledger-memo": ("abe", "postLedgerEntry", ledger(memo=LONE), "memo"),
    "ledger-key": ("abe", "postLedgerEntry", ledger(idempotencyKey=LONE), "idempotencyKey"),
    "wo-key": ("sam", "createWorkOrder", wo(idempotencyKey=LONE), "idempotencyKey"),
    "customer-key": (
        "sam",
        "createCustomer",
        fixed({"name": "New", "idempotencyKey": LONE}),
        "idempotencyKey",
    ),
    "user-key": ("ada", "createUser", user(idempotencyKey=LONE), "idempotencyKey"),
}
for _key, (_who, _name, _inputs, _field) in SURROGATES.items():
    CASES[f"surrogate-{_key}"] = Case(
        _who, _name, _inputs, UserErr("INVALID_INPUT", _field, "lone surrogate")
    )


def _params() -> list[Any]:
    return [pytest.param(case, id=key) for key, case in CASES.items()]


@pytest.mark.parametrize("case", _params())
async def test_bad_input_gets_a_specific_error_and_writes_nothing(
    api: Client, world: World, case: Case
) -> None:
    before = await table_snapshot(world.shop.engine)
    query = case.query or mutation(case.name)
    variables = case.inputs(world) if case.query else {"input": case.inputs(world)}
    body = await post(api, world.token(case.who), query, variables)
    expect = case.expect
    if isinstance(expect, UserErr):
        assert "errors" not in body, body
        payload = body["data"][case.name]
        errors = payload["userErrors"]
        assert [(e["code"], e["field"]) for e in errors] == [(expect.code, expect.field)], errors
        assert expect.says.lower() in errors[0]["message"].lower(), errors[0]["message"]
        obj_field = OBJECT[case.name].split()[0]
        assert payload[obj_field] is None
    else:
        errors = body["errors"]
        assert [e["extensions"]["code"] for e in errors] == [expect.code], errors
        assert expect.says.lower() in errors[0]["message"].lower(), errors[0]["message"]
    assert await table_snapshot(world.shop.engine) == before


async def test_the_valid_baseline_inputs_do_write(api: Client, world: World) -> None:
    """The cases above differ from these requests only in their bad part; these succeed and
    the snapshot notices, so 'nothing written' above is a real check."""
    before = await table_snapshot(world.shop.engine)
    body = await post(api, world.token("sam"), mutation("createWorkOrder"), {"input": wo()(world)})
    assert body["data"]["createWorkOrder"]["userErrors"] == []
    body = await post(
        api,
        world.token("sam"),
        mutation("updateWorkOrderQuote"),
        {"input": quote("10.00", expectedVersion=1)(world)},
    )
    assert body["data"]["updateWorkOrderQuote"]["userErrors"] == []
    assert body["data"]["updateWorkOrderQuote"]["workOrder"]["version"] == 2
    body = await post(
        api, world.token("abe"), mutation("postLedgerEntry"), {"input": ledger()(world)}
    )
    assert body["data"]["postLedgerEntry"]["changed"] is True
    after = await table_snapshot(world.shop.engine)
    assert after["customer_ledger_entries"][0] == before["customer_ledger_entries"][0] + 1
    assert after["work_orders"][0] == before["work_orders"][0] + 1
    assert after["department_tasks"][0] == before["department_tasks"][0] + 2
    assert after["events"][0] > before["events"][0]


async def test_stale_version_after_a_concurrent_edit(api: Client, world: World) -> None:
    """Two editors load version 1; the first wins, the second gets STALE_OBJECT and its
    amount is not applied."""
    sam = world.token("sam")
    first = await post(
        api,
        sam,
        mutation("updateWorkOrderQuote"),
        {"input": quote("10.00", expectedVersion=1)(world)},
    )
    assert first["data"]["updateWorkOrderQuote"]["userErrors"] == []
    before = await table_snapshot(world.shop.engine)
    second = await post(
        api,
        sam,
        mutation("updateWorkOrderQuote"),
        {"input": quote("99.00", expectedVersion=1)(world)},
    )
    errors = second["data"]["updateWorkOrderQuote"]["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == [("STALE_OBJECT", "expectedVersion")]
    assert "version 2, not 1" in errors[0]["message"]
    assert await table_snapshot(world.shop.engine) == before
    read = await post(
        api,
        sam,
        "query($id: ID!) { workOrder(id: $id) { version quote { amount currency } } }",
        {"id": gid("WorkOrder", world.order)},
    )
    assert read["data"]["workOrder"] == {
        "version": 2,
        "quote": {"amount": "10.00", "currency": "EUR"},
    }


# ---------------------------------------------------------------------------------------------
# Malformed requests.


async def _raw_post(
    api: Client, content: bytes, token: str | None = None, **headers: str
) -> httpx.Response:
    hdrs = {"content-type": "application/json", **headers}
    if token:
        hdrs["authorization"] = f"Bearer {token}"
    return await api.http.post(api.url, content=content, headers=hdrs)


async def test_body_over_256_kib_is_413_and_writes_nothing(api: Client, world: World) -> None:
    before = await table_snapshot(world.shop.engine)
    body = json.dumps(
        {
            "query": mutation("createCustomer"),
            "variables": {"input": {"name": "Big" + "g" * MAX_BODY}},
        }
    ).encode()
    assert len(body) > MAX_BODY
    response = await _raw_post(api, body, world.token("sam"))
    assert response.status_code == 413
    assert_clean(response)
    errors = response.json()["errors"]
    assert [e["extensions"]["code"] for e in errors] == ["BAD_REQUEST"]
    assert "larger than 262144 bytes" in errors[0]["message"]
    assert await table_snapshot(world.shop.engine) == before


async def test_body_just_under_the_limit_is_parsed(api: Client, world: World) -> None:
    """The limit is on bytes, not on the name: a big but allowed body reaches validation."""
    name = "n" * (MAX_BODY - 1000)
    body = json.dumps(
        {"query": mutation("createCustomer"), "variables": {"input": {"name": name}}}
    ).encode()
    assert len(body) <= MAX_BODY
    before = await table_snapshot(world.shop.engine)
    response = await _raw_post(api, body, world.token("sam"))
    assert response.status_code == 200
    assert_clean(response)
    errors = response.json()["data"]["createCustomer"]["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == [("INVALID_INPUT", "name")]
    assert await table_snapshot(world.shop.engine) == before


async def test_chunked_body_over_256_kib_is_413(api: Client, world: World) -> None:
    before = await table_snapshot(world.shop.engine)
    payload = json.dumps(
        {"query": mutation("createCustomer"), "variables": {"input": {"name": "Chunky"}}},
    ).encode()
    padding = b" " * (MAX_BODY + 1024)

    async def chunks() -> AsyncIterator[bytes]:
        yield payload[:-1]
        yield padding
        yield payload[-1:]

    response = await api.http.post(
        api.url,
        content=chunks(),
        headers={
            "content-type": "application/json",
            "authorization": f"Bearer {world.token('sam')}",
        },
    )
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    assert await table_snapshot(world.shop.engine) == before


@pytest.mark.parametrize(
    ("query", "says"),
    [
        pytest.param("query { workOrders( }", "Syntax Error", id="syntax-error"),
        pytest.param(
            "mutation { createCustomer(input: {name: }) { customer { id } } }",
            "Syntax Error",
            id="syntax-error-in-mutation",
        ),
        pytest.param(
            "{ workOrders { edges { node { price } } } }",
            "Cannot query field 'price'",
            id="unknown-field",
        ),
        pytest.param(
            "{ " + " ".join(f"a{i}: __typename" for i in range(40)) + " }",
            "aliases",
            id="too-many-aliases",
        ),
        pytest.param(
            "{ workOrders { edges { node { "
            + "tasks { workOrder { " * 4
            + "id"
            + " } }" * 4
            + " } } } }",
            "exceeds maximum operation depth of 10",
            id="too-deep",
        ),
        pytest.param(
            "{ " + "__typename " * 2001 + "}",
            "more than 2000 tokens",
            id="too-many-tokens",
        ),
        pytest.param(
            "mutation { createCustomer { customer { id } } }",
            "createCustomer(input:)",
            id="missing-argument",
        ),
        pytest.param(
            "query($n: Int) { workOrders(first: $n) { edges { cursor } } }",
            "Int",
            id="wrong-variable-type",
        ),
    ],
)
async def test_malformed_graphql_is_bad_request(
    api: Client, world: World, query: str, says: str
) -> None:
    before = await table_snapshot(world.shop.engine)
    variables = {"n": "ten"} if "$n" in query else {}
    body = await post(api, world.token("sam"), query, variables)
    assert body.get("data") is None
    errors = body["errors"]
    assert errors, body
    assert {e["extensions"]["code"] for e in errors} == {"BAD_REQUEST"}
    assert says in errors[0]["message"]
    assert await table_snapshot(world.shop.engine) == before


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b'{"query": "{ me { id } }"', id="truncated-json"),
        pytest.param(b"[1, 2]", id="json-array"),
        pytest.param(b'{"query": 5}', id="query-not-a-string"),
        pytest.param(b'{"query": "{ me { id } }", "variables": 5}', id="variables-not-an-object"),
        pytest.param(b'{"variables": {}}', id="no-query"),
    ],
)
async def test_malformed_http_body_is_a_client_error(
    api: Client, world: World, content: bytes
) -> None:
    before = await table_snapshot(world.shop.engine)
    response = await _raw_post(api, content, world.token("sam"))
    assert response.status_code == 400
    assert_clean(response)
    assert await table_snapshot(world.shop.engine) == before


async def test_invalid_json_body_answers_with_a_bad_request_error(
    api: Client, world: World
) -> None:
    response = await _raw_post(api, b'{"query": "{ me { id } }"', world.token("sam"))
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"


async def test_invalid_utf8_body_answers_with_a_bad_request_error(
    api: Client, world: World
) -> None:
    response = await _raw_post(api, b'{"query": "{ me { id } }", "x": "\xff\xfe"}', None)
    assert_clean(response)
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert "UTF-8" in error["message"]


async def test_several_operations_need_an_operation_name(api: Client, world: World) -> None:
    document = (
        "query A { me { id } } "
        + 'mutation B { createCustomer(input: {name: "X"}) { customer { id } } }'
    )
    before = await table_snapshot(world.shop.engine)
    body = await post(api, world.token("sam"), document)
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_REQUEST"]
    assert "Must provide operation name" in body["errors"][0]["message"]
    assert await table_snapshot(world.shop.engine) == before
    named = await api.http.post(
        api.url,
        json={"query": document, "operationName": "A"},
        headers={"authorization": f"Bearer {world.token('sam')}"},
    )
    assert named.json()["data"]["me"]["id"] == gid("User", world.shop.users["sam"])


@pytest.mark.parametrize("digits", ["\u00b2", "\u0663", "\uff11", " 1", "+1", "1_0"])
async def test_global_ids_take_ascii_digits_only(api: Client, world: World, digits: str) -> None:
    """'²', Arabic-Indic or full-width digits are never a second name for an object."""
    malformed = b64(f"WorkOrder:{digits}")
    body = await post(
        api, world.token("sam"), "query($id: ID!) { node(id: $id) { id } }", {"id": malformed}
    )
    assert body.get("data", {}) in (None, {"node": None}) or body["data"]["node"] is None
    read = await post(
        api, world.token("sam"), "query($id: ID!) { workOrder(id: $id) { id } }", {"id": malformed}
    )
    assert read["data"]["workOrder"] is None
    moved = await post(
        api,
        world.token("pat"),
        mutation("startTask"),
        {"input": {"taskId": b64(f"DepartmentTask:{digits}")}},
    )
    errors = moved["data"]["startTask"]["userErrors"]
    assert [e["code"] for e in errors] == ["NOT_FOUND"]


async def test_deeply_nested_json_body_is_not_a_500(api: Client, world: World) -> None:
    depth = 50_000
    content = (
        b'{"query": "query($x: JSON) { me { id } }", "variables": {"x": '
        + b"[" * depth
        + b"]" * depth
        + b"}}"
    )
    assert len(content) < MAX_BODY
    response = await _raw_post(api, content, world.token("sam"))
    assert_clean(response)
    assert response.status_code == 400


async def test_oversized_token_is_unauthenticated_not_an_error(api: Client, world: World) -> None:
    body = await post(api, "t" * 10_000, "{ departments { code } }")
    assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAUTHENTICATED"]
