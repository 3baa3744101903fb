"""Every problem of an input in one answer: one row per mutation, an input with two or more
bad fields, through the real HTTP API and PostgreSQL.

Each row asserts the exact set of (code, field) pairs of the answer's `userErrors` (one per
field, all at once, so that a form shows them all at its fields), and that nothing was
written (a digest of every table, before and after). Ids of the wrong type are unknown
objects (NOT_FOUND at their field), found without the database, so they answer with the
other fields' problems.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from graphql import build_schema

from graph.schema import schema
from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.shop import Shop

PAST = "1999-12-31T12:00:00Z"
NOT_AN_EMAIL = "not-an-address"
SHORT_PASSWORD = "short"
LONG = "x" * 5000
NOT_FOUND = "NOT_FOUND"
INVALID = "INVALID_INPUT"


def nobody() -> str:
    """An id of the wrong type: no object of the field's type."""
    return gid("Department", 1)


@dataclass(frozen=True)
class Row:
    who: str
    name: str  # the mutation
    input: Callable[[Shop], dict[str, Any]]
    problems: frozenset[tuple[str, str]]  # (code, field) of every userError


def row(who: str, name: str, given: dict[str, Any], *problems: tuple[str, str]) -> Row:
    return Row(who, name, lambda _: given, frozenset(problems))


def moves(name: str) -> Row:
    return row(
        "ada",
        name,
        {"taskId": nobody(), "reason": "  "},
        (NOT_FOUND, "taskId"),
        (INVALID, "reason"),
    )


TABLE = [
    Row(
        "sam",
        "createWorkOrder",
        lambda shop: {
            "customerId": nobody(),
            "orderNumber": "-no spaces allowed-",
            "departmentCodes": ["Print Shop"],
            "quote": {"amount": "-1", "currency": "EUR"},
            "dueAt": PAST,
            "idempotencyKey": LONG,
        },
        frozenset(
            {
                (NOT_FOUND, "customerId"),
                (INVALID, "orderNumber"),
                (INVALID, "departmentCodes"),
                (INVALID, "quote.amount"),
                (INVALID, "dueAt"),
                (INVALID, "idempotencyKey"),
            }
        ),
    ),
    row(
        "sam",
        "createCustomer",
        {
            "name": " ",
            "email": NOT_AN_EMAIL,
            "phone": "call me",
            "address": {"lines": ["1 High St"], "postcode": LONG, "city": LONG},
            "notes": LONG,
            "idempotencyKey": " ",
        },
        (INVALID, "name"),
        (INVALID, "email"),
        (INVALID, "phone"),
        (INVALID, "address.postcode"),
        (INVALID, "address.city"),
        (INVALID, "notes"),
        (INVALID, "idempotencyKey"),
    ),
    row(
        "sam",
        "updateCustomer",
        {
            "customerId": nobody(),
            "name": "",
            "contactName": LONG,
            "address": {"lines": ["a", "b", "c", "d", "e"], "country": LONG},
        },
        (NOT_FOUND, "customerId"),
        (INVALID, "name"),
        (INVALID, "contactName"),
        (INVALID, "address.lines"),
        (INVALID, "address.country"),
    ),
    row(
        "ada",
        "createDepartment",
        {"code": "Binding Room", "name": " ", "kind": "PRODUCTION"},
        (INVALID, "code"),
        (INVALID, "name"),
    ),
    row(
        "ada",
        "createUser",
        {
            "email": NOT_AN_EMAIL,
            "name": "",
            "password": SHORT_PASSWORD,
            "departmentCodes": ["Print!"],
            "idempotencyKey": "",
        },
        (INVALID, "email"),
        (INVALID, "name"),
        (INVALID, "password"),
        (INVALID, "departmentCodes"),
        (INVALID, "idempotencyKey"),
    ),
    row(
        "ada",
        "setUserDepartments",
        {"userId": nobody(), "departmentCodes": ["Print!"]},
        (NOT_FOUND, "userId"),
        (INVALID, "departmentCodes"),
    ),
    row(
        "ada",
        "setPassword",
        {"userId": nobody(), "password": SHORT_PASSWORD},
        (NOT_FOUND, "userId"),
        (INVALID, "password"),
    ),
    row(
        "sam",
        "changePassword",
        {"oldPassword": "nul\x00", "newPassword": SHORT_PASSWORD},
        (INVALID, "oldPassword"),
        (INVALID, "newPassword"),
    ),
    row(
        "sam",
        "login",
        {"email": NOT_AN_EMAIL, "password": " "},
        (INVALID, "email"),
        (INVALID, "password"),
    ),
    row(
        "ada",
        "createWebhook",
        {
            "url": "ftp://example.com/hooks",
            "eventKinds": [],
            "departmentCodes": ["Print!"],
            "description": LONG,
        },
        (INVALID, "url"),
        (INVALID, "eventKinds"),
        (INVALID, "departmentCodes"),
        (INVALID, "description"),
    ),
    row(
        "ada",
        "updateWebhook",
        {
            "webhookId": nobody(),
            "url": "https://user:pw@example.com/hooks",
            "eventKinds": ["TOKEN_REVOKED"],
            "departmentCodes": ["Print!"],
            "description": LONG,
        },
        (NOT_FOUND, "webhookId"),
        (INVALID, "url"),
        (INVALID, "eventKinds"),
        (INVALID, "departmentCodes"),
        (INVALID, "description"),
    ),
    row(
        "sam",
        "createApiToken",
        {"name": "", "password": "nul\x00", "expiresAt": PAST},
        (INVALID, "name"),
        (INVALID, "password"),
        (INVALID, "expiresAt"),
    ),
    row(
        "ada",
        "createDisplayToken",
        {"name": LONG, "departmentCodes": [], "expiresAt": PAST},
        (INVALID, "name"),
        (INVALID, "departmentCodes"),
        (INVALID, "expiresAt"),
    ),
    row(
        "abe",
        "postLedgerEntry",
        {
            "customerId": nobody(),
            "workOrderId": nobody(),
            "kind": "CHARGE",
            "amount": "-5",
            "memo": LONG,
            "idempotencyKey": "inbox:1",
        },
        (NOT_FOUND, "customerId"),
        (NOT_FOUND, "workOrderId"),
        (INVALID, "amount"),
        (INVALID, "memo"),
        (INVALID, "idempotencyKey"),
    ),
    row(
        "ada",
        "createPaymentInbox",
        {"name": "Card Payments", "currency": "euro"},
        (INVALID, "name"),
        (INVALID, "currency"),
    ),
    row(
        "sam",
        "updateWorkOrder",
        {"workOrderId": nobody(), "expectedVersion": 1, "customerId": nobody()},
        (NOT_FOUND, "workOrderId"),
        (NOT_FOUND, "customerId"),
    ),
    row(
        "sam",
        "updateWorkOrderQuote",
        {"workOrderId": nobody(), "quote": {"amount": "-3", "currency": "EUR"}},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "quote.amount"),
    ),
    row(
        "sam",
        "rescheduleWorkOrder",
        {"workOrderId": nobody(), "dueAt": PAST, "priority": "RUSH"},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "dueAt"),
    ),
    row(
        "sam",
        "cancelWorkOrder",
        {"workOrderId": nobody(), "reason": ""},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "reason"),
    ),
    row(
        "sam",
        "holdWorkOrder",
        {"workOrderId": nobody(), "reason": LONG},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "reason"),
    ),
    row(
        "sam",
        "addWorkOrderDepartment",
        {"workOrderId": nobody(), "departmentCode": "Design!"},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "departmentCode"),
    ),
    row(
        "sam",
        "removeWorkOrderDepartment",
        {"workOrderId": nobody(), "departmentCode": "Design!", "reason": " "},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "departmentCode"),
        (INVALID, "reason"),
    ),
    row(
        "sam",
        "createCustomerLink",
        {"workOrderId": nobody(), "expiresAt": PAST},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "expiresAt"),
    ),
    row(
        "sam",
        "approveProof",
        {"workOrderId": nobody(), "version": 1, "approverName": " "},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "approverName"),
    ),
    row(
        "sam",
        "requestProofChanges",
        {"workOrderId": nobody(), "version": 1, "comment": " ", "approverName": ""},
        (NOT_FOUND, "workOrderId"),
        (INVALID, "approverName"),
        (INVALID, "comment"),
    ),
    moves("releaseTask"),
    moves("completeTask"),
    moves("reopenTask"),
]

# Mutations with fewer than two fields a person fills in and the server checks by their
# form alone: their one problem is the whole answer.
SINGLE = {
    "logout": "no input",
    "setDepartmentFollows": "its codes are checked by looking the departments up",
    "setDepartmentNeedsApprovedProof": "its code is checked by looking the department up",
    "deactivateUser": "an id",
    "reactivateUser": "an id",
    "resumeWorkOrder": "an id",
    "chargeWorkOrderQuote": "an id",
    "startTask": "an id",
    "finishTask": "an id",
    "revokeToken": "an id",
    "rotateWebhookSecret": "an id",
    "deleteWebhook": "an id",
    "redeliverWebhookDelivery": "an id",
    "resendMailMessage": "an id",
    "revokeCustomerLink": "an id",
    "updatePaymentInbox": "an id",
    "rotatePaymentInboxSecret": "an id",
    "deletePaymentInbox": "an id",
    "uploadProof": "an id, and a file examined apart before anything is written",
}


def document(name: str) -> str:
    input_type = name[0].upper() + name[1:] + "Input"
    return (
        f"mutation Every($input: {input_type}!) {{ {name}(input: $input) "
        "{ userErrors { code field message } } }"
    )


@pytest.mark.parametrize("case", [pytest.param(r, id=r.name) for r in TABLE])
async def test_every_problem_of_an_input_in_one_answer(api: Client, shop: Shop, case: Row) -> None:
    before = await table_snapshot(shop.engine)
    body = await api.as_(shop.tokens[case.who]).raw(
        document(case.name), {"input": case.input(shop)}
    )
    assert "errors" not in body, body
    errors = body["data"][case.name]["userErrors"]
    assert {(e["code"], e["field"]) for e in errors} == case.problems, errors
    # One entry per problem, each with words of its own.
    assert len(errors) == len(case.problems), errors
    assert all(e["message"] for e in errors), errors
    assert await table_snapshot(shop.engine) == before


def test_the_table_covers_every_mutation() -> None:
    """Every mutation has its row, or is named with why one problem is its whole answer:
    a new mutation is either."""
    mutation = build_schema(schema.as_str()).mutation_type
    assert mutation is not None
    names = set(mutation.fields)
    rows = [r.name for r in TABLE]
    assert len(rows) == len(set(rows))
    assert set(rows).isdisjoint(SINGLE)
    assert set(rows) | set(SINGLE) == names
