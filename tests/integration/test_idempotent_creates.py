"""createWorkOrder, createCustomer and createUser with an idempotency key, through the real
HTTP API and the real database: the ledger's semantics.

A retry with the same key and input answers the original (same id, `changed: false`) and
writes nothing (no row, no event, no history, no task); the same input spelled otherwise
is still a retry; other input is DUPLICATE naming the key and writes nothing; a create
whose insert meets the first one's uncommitted key waits and answers as a retry; twenty
concurrent creates with one key make one object; a retry after the object was edited
still answers it; a user's retry with another password keeps the first.
"""

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from db import customers, people
from db.orders import NewWorkOrder, create_work_order
from domain.contacts import Contact
from domain.money import Money
from tests.support.client import Client, gid
from tests.support.database import table_snapshot
from tests.support.shop import Shop

Inputs = Callable[[Shop], dict[str, Any]]


@dataclass(frozen=True)
class Kind:
    mutation: str
    who: str
    object: str  # the payload's object field
    table: str
    inputs: Inputs  # a valid input, without the key
    # The same request spelled otherwise (what the server checks and stores is the same).
    respelled: dict[str, Any]
    # Input that differs in one thing each, by what it changes.
    others: dict[str, dict[str, Any]]

    def document(self) -> str:
        name = self.mutation[0].upper() + self.mutation[1:]
        return (
            f"mutation($i: {name}Input!) {{ {self.mutation}(input: $i) {{ "
            f"changed {self.object} {{ id }} userErrors {{ code field message }} }} }}"
        )


KINDS = {
    "work-order": Kind(
        "createWorkOrder",
        "sam",
        "workOrder",
        "work_orders",
        lambda shop: {
            "customerId": gid("Customer", shop.customer_id),
            "departmentCodes": ["print", "finishing"],
            "details": {"product": "Flyers", "quantity": 500},
            "quote": {"amount": "120.00", "currency": "EUR"},
            "dueAt": "2031-03-01T12:00:00Z",
        },
        {
            "departmentCodes": ["finishing", "print", "print"],
            "details": {"quantity": 500, "product": "Flyers"},
            "quote": {"amount": "120", "currency": "EUR"},
            "dueAt": "2031-03-01T13:00:00+01:00",
        },
        {
            "details": {"details": {"product": "Flyers", "quantity": 501}},
            "departments": {"departmentCodes": ["print"]},
            "flag": {"needsTransport": True},
            "quote": {"quote": {"amount": "120.01", "currency": "EUR"}},
            "no-quote": {"quote": None},
            "due": {"dueAt": "2031-03-02T12:00:00Z"},
            "priority": {"priority": "RUSH"},
            "number": {"orderNumber": "WO-MINE"},
        },
    ),
    "customer": Kind(
        "createCustomer",
        "sam",
        "customer",
        "customers",
        lambda shop: {"name": "Harbour Books", "phone": "+44 20 7946 0018"},
        {"name": "  Harbour Books ", "phone": " +44 20 7946 0018", "notes": ""},
        {
            "name": {"name": "Harbour Books Ltd"},
            "phone": {"phone": "+44 20 7946 0019"},
            "address": {"address": {"lines": ["12 Quay Street"]}},
        },
    ),
    "user": Kind(
        "createUser",
        "ada",
        "user",
        "users",
        lambda shop: {
            "email": "wal@shop.test",
            "name": "Wal",
            "password": "long-enough-pw",
            "departmentCodes": ["print", "finishing"],
        },
        # Another spelling of the address, the departments in another order, and another
        # password: a password is no part of what a retry repeats.
        {
            "email": "WAL@Shop.test",
            "departmentCodes": ["finishing", "print"],
            "password": "another-password",
        },
        {
            "email": {"email": "wally@shop.test"},
            "name": {"name": "Wally"},
            "admin": {"isAdmin": True},
            "departments": {"departmentCodes": ["print"]},
        },
    ),
}


async def create(api: Client, shop: Shop, kind: Kind, fields: dict[str, Any]) -> Any:
    result = await api.as_(shop.tokens[kind.who])(kind.document(), {"i": fields})
    return result[kind.mutation]


def keyed(shop: Shop, kind: Kind, key: str, **over: Any) -> dict[str, Any]:
    return {**kind.inputs(shop), "idempotencyKey": key, **over}


async def count(shop: Shop, sql: str, **params: Any) -> int:
    async with shop.engine.connect() as conn:
        return int(await conn.scalar(text(sql), params) or 0)


@pytest.mark.parametrize("kind", KINDS.values(), ids=KINDS.keys())
async def test_a_retry_answers_the_original_and_writes_nothing(
    api: Client, shop: Shop, kind: Kind
) -> None:
    first = await create(api, shop, kind, keyed(shop, kind, "form-1"))
    assert (first["changed"], first["userErrors"]) == (True, [])
    before = await table_snapshot(shop.engine)
    for fields in (keyed(shop, kind, "form-1"), keyed(shop, kind, "form-1", **kind.respelled)):
        again = await create(api, shop, kind, fields)
        assert (again["changed"], again["userErrors"]) == (False, [])
        assert again[kind.object]["id"] == first[kind.object]["id"]
        # No row, event, history row, task, membership or timer more.
        assert await table_snapshot(shop.engine) == before
    # A new key is a new create (the user's needs another email: it is unique).
    other = {"email": "other@shop.test"} if kind.mutation == "createUser" else {}
    fresh = await create(api, shop, kind, keyed(shop, kind, "form-2", **other))
    assert (fresh["changed"], fresh["userErrors"]) == (True, [])
    assert fresh[kind.object]["id"] != first[kind.object]["id"]


@pytest.mark.parametrize(
    ("kind", "change"),
    [
        pytest.param(kind, change, id=f"{name}-{what}")
        for name, kind in KINDS.items()
        for what, change in kind.others.items()
    ],
)
async def test_the_same_key_with_other_input_is_duplicate_naming_it(
    api: Client, shop: Shop, kind: Kind, change: dict[str, Any]
) -> None:
    first = await create(api, shop, kind, keyed(shop, kind, "form-1"))
    assert first["changed"] is True
    before = await table_snapshot(shop.engine)
    again = await create(api, shop, kind, keyed(shop, kind, "form-1", **change))
    errors = again["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == [("DUPLICATE", "idempotencyKey")]
    assert "'form-1'" in errors[0]["message"]
    assert "already used for a different" in errors[0]["message"]
    assert (again[kind.object], again["changed"]) == (None, False)
    assert await table_snapshot(shop.engine) == before


async def test_keys_are_per_kind_of_object(api: Client, shop: Shop) -> None:
    """One key names one intended create of each kind: a customer and an order made with
    the same key are two creates (the ledger's keys are apart from both)."""
    customer = await create(api, shop, KINDS["customer"], keyed(shop, KINDS["customer"], "k"))
    order = await create(api, shop, KINDS["work-order"], keyed(shop, KINDS["work-order"], "k"))
    assert (customer["changed"], order["changed"]) == (True, True)


@pytest.mark.parametrize("kind", KINDS.values(), ids=KINDS.keys())
async def test_twenty_concurrent_creates_with_one_key_make_one(
    api: Client, shop: Shop, kind: Kind
) -> None:
    before = await count(shop, f"SELECT count(*) FROM {kind.table}")
    results = await asyncio.gather(
        *(create(api, shop, kind, keyed(shop, kind, "same-key")) for _ in range(20))
    )
    assert all(r["userErrors"] == [] for r in results)
    assert sorted(r["changed"] for r in results) == [False] * 19 + [True]
    assert len({r[kind.object]["id"] for r in results}) == 1
    assert await count(shop, f"SELECT count(*) FROM {kind.table}") == before + 1
    if kind.mutation == "createWorkOrder":
        made = await count(shop, "SELECT max(id) FROM work_orders")
        created = "SELECT count(*) FROM events WHERE type = :t AND work_order_id = :o"
        assert await count(shop, created, t="WORK_ORDER_CREATED", o=made) == 1
        assert await count(shop, created, t="TASK_CREATED", o=made) == 3
        tasks = "SELECT count(*) FROM department_tasks WHERE work_order_id = :o"
        assert await count(shop, tasks, o=made) == 3
    if kind.mutation == "createUser":
        made = await count(shop, "SELECT max(id) FROM users")
        members = "SELECT count(*) FROM user_departments WHERE user_id = :u"
        assert await count(shop, members, u=made) == 2


# ---------------------------------------------------------------------------------------------
# A create whose insert meets the first one's key before that one commits.


async def _hold(shop: Shop, kind: Kind, conn: Any, key: str) -> None:
    """Makes in `conn`'s open transaction what kind.inputs asks, with `key`."""
    if kind.mutation == "createWorkOrder":
        await create_work_order(
            conn,
            NewWorkOrder(
                customer_id=shop.customer_id,
                order_number=None,
                details={"product": "Flyers", "quantity": 500},
                department_codes=["print", "finishing"],
                needs_installation=False,
                needs_transport=False,
                needs_repair=False,
                quote=Money(12_000, "EUR"),
                created_by=shop.users["sam"],
                due_at=datetime(2031, 3, 1, 12, tzinfo=UTC),
                idempotency_key=key,
            ),
        )
    elif kind.mutation == "createCustomer":
        contact = Contact(phone="+44 20 7946 0018")
        await customers.create_customer(conn, "Harbour Books", shop.users["sam"], contact, key)
    else:
        await people.create_user(
            conn,
            email="wal@shop.test",
            name="Wal",
            password=None,
            is_admin=False,
            department_ids=[shop.departments["print"], shop.departments["finishing"]],
            idempotency_key=key,
        )


WAITING_ON = "SELECT count(*) FROM pg_stat_activity WHERE :holder = ANY(pg_blocking_pids(pid))"


@pytest.mark.parametrize("same", [True, False], ids=["same-input", "other-input"])
@pytest.mark.parametrize("kind", KINDS.values(), ids=KINDS.keys())
async def test_a_create_meeting_an_uncommitted_key_waits_and_answers_as_a_repeat(
    api: Client, shop: Shop, kind: Kind, same: bool
) -> None:
    """The lookup finds nothing (the first is not committed), so the insert meets the key
    on the unique index: it waits for the first, then answers as a retry would."""
    fields = kind.inputs(shop)
    if not same:
        fields.update(next(iter(kind.others.values())))
    async with shop.engine.connect() as holder:
        transaction = await holder.begin()
        holder_pid = await holder.scalar(text("SELECT pg_backend_pid()"))
        await _hold(shop, kind, holder, "held-key")
        second = asyncio.ensure_future(
            create(api, shop, kind, {**fields, "idempotencyKey": "held-key"})
        )
        deadline = time.monotonic() + 30
        while await count(shop, WAITING_ON, holder=holder_pid) != 1:
            assert time.monotonic() < deadline, "the second create never waited on the first"
            # Polls pg_stat_activity, and fails at once should the second get past the key.
            done, _ = await asyncio.wait([second], timeout=0.05)
            assert not done, (await second, "answered while the first held its key")
        await transaction.commit()
    answer = await second
    made = await count(shop, f"SELECT id FROM {kind.table} WHERE idempotency_key = 'held-key'")
    if same:
        assert (answer["changed"], answer["userErrors"]) == (False, [])
        type_name = kind.object[0].upper() + kind.object[1:]
        assert answer[kind.object]["id"] == gid(type_name, made)
    else:
        assert [e["code"] for e in answer["userErrors"]] == ["DUPLICATE"]
        assert "'held-key'" in answer["userErrors"][0]["message"]
    assert await count(shop, f"SELECT count(*) FROM {kind.table} WHERE id > :m", m=made) == 0


# ---------------------------------------------------------------------------------------------
# What a retry answers later.

UPDATE_ORDER = """mutation($i: UpdateWorkOrderInput!) { updateWorkOrder(input: $i) {
  changed userErrors { code } } }"""
ORDER = """query($id: ID!) { workOrder(id: $id) { version details } }"""
LOGIN = """mutation($i: LoginInput!) { login(input: $i) { token userErrors { code } } }"""


async def test_a_retry_after_an_edit_answers_the_order_as_it_is_now(
    api: Client, shop: Shop
) -> None:
    """The key remembers what was asked, not what the order holds: a retry that comes
    after a correction is still a retry."""
    kind = KINDS["work-order"]
    first = await create(api, shop, kind, keyed(shop, kind, "form-1"))
    order_id = first["workOrder"]["id"]
    sam = api.as_(shop.tokens["sam"])
    edited = await sam(
        UPDATE_ORDER,
        {"i": {"workOrderId": order_id, "expectedVersion": 1, "details": {"product": "Menus"}}},
    )
    assert edited["updateWorkOrder"] == {"changed": True, "userErrors": []}
    again = await create(api, shop, kind, keyed(shop, kind, "form-1"))
    assert (again["changed"], again["workOrder"]["id"]) == (False, order_id)
    now = (await sam(ORDER, {"id": order_id}))["workOrder"]
    assert (now["version"], now["details"]) == (2, {"product": "Menus"})


async def test_a_users_retry_with_another_password_keeps_the_first(api: Client, shop: Shop) -> None:
    kind = KINDS["user"]
    await create(api, shop, kind, keyed(shop, kind, "form-1"))
    again = await create(api, shop, kind, keyed(shop, kind, "form-1", password="another-one"))
    assert (again["changed"], again["userErrors"]) == (False, [])
    signed_in = await api(LOGIN, {"i": {"email": "wal@shop.test", "password": "long-enough-pw"}})
    assert signed_in["login"]["userErrors"] == [] and signed_in["login"]["token"]
    refused = await api(LOGIN, {"i": {"email": "wal@shop.test", "password": "another-one"}})
    assert refused["login"]["token"] is None
