"""CSV exports (/export/work-orders.csv, /export/transitions.csv, /export/ledger.csv):
each compared row by row with what the API answers for the same records, formula-safe
text, streamed as text/csv, and only for Accounts and admins, with clear refusals."""

import csv
import io
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

from db import clock, customers
from db.engine import unit_of_work
from db.ledger import NewEntry, post_entry
from db.tasks import Actor, transition_task
from domain import ledger
from domain.contacts import Contact
from domain.enums import LedgerEntryKind, TaskAction
from domain.ledger import EntryContent
from domain.money import parse_money
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop

BASE = datetime(2026, 10, 5, 9, 0, tzinfo=UTC)
END = "2026-10-06T00:00:00Z"
NOT_A_CUSTOMER = "No customer has the id"
WINDOW = {"from": "2026-10-05T00:00:00Z", "to": END}
BOM = b"\xef\xbb\xbf"

ORDERS = """query Orders { workOrders(first: 50) { edges { node {
  orderNumber createdAt dueAt status isLate quote { amount currency }
  charged { amount currency } paid { amount currency } customer { name }
  history { action occurredAt }
  tasks { department { code } history {
    fromStatus toStatus action reason occurredAt actor { name } } } } } } }"""
LEDGER = """query Ledger($id: ID!) { node(id: $id) { ... on Customer { ledger(first: 50) {
  edges { node { postedAt kind memo amount { amount currency } balanceAfter { amount }
    workOrder { orderNumber } postedBy { name } } } } } } }"""


def at(minute: int) -> datetime:
    return BASE + timedelta(minutes=minute)


async def step(
    shop: Shop, minute: int, task: int, action: TaskAction, who: str, reason: str | None = None
) -> None:
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, at(minute))
        await transition_task(conn, task, action, Actor(shop.users[who], who == "ada"), reason)


async def post(
    shop: Shop,
    minute: int,
    order: int,
    customer: int,
    kind: LedgerEntryKind,
    amount: str,
    memo: str,
) -> None:
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, at(minute))
        content = EntryContent(
            customer_id=customer,
            work_order_id=order,
            kind=kind,
            amount=ledger.signed(kind, parse_money(Decimal(amount), "EUR", None)),
            memo=memo,
        )
        await post_entry(conn, NewEntry(content, f"exports-{minute}", shop.users["abe"]))


async def a_morning(shop: Shop) -> int:
    """Two orders: one made, delivered, charged and partly paid (due after it was done),
    one for a customer whose name is a formula, released with a reason that starts with
    '@' and late. Returns the formula customer's id."""
    async with unit_of_work(shop.engine) as conn:
        await clock.stamp_as_of(conn, at(-60))
        made = await customers.create_customer(
            conn, '=HYPERLINK("http://x")', shop.users["sam"], Contact()
        )
        tricky = made.customer
    quote = parse_money(Decimal("480.50"), "EUR", "quote")
    first = await shop.order(["print"], at=at(0), due_at=at(600), quote=quote)
    tasks = await task_ids(shop.engine, first)
    await step(shop, 10, tasks["print"], TaskAction.START, "pat")
    await step(shop, 70, tasks["print"], TaskAction.FINISH, "pat")
    await step(shop, 80, tasks["delivery"], TaskAction.START, "dan")
    await step(shop, 125, tasks["delivery"], TaskAction.FINISH, "dan")
    await post(shop, 130, first, shop.customer_id, LedgerEntryKind.CHARGE, "480.50", "Invoice")
    await post(shop, 140, first, shop.customer_id, LedgerEntryKind.PAYMENT, "200", "-deposit")
    second = await shop.order(["print"], at=at(30), due_at=at(90), customer_id=tricky.id)
    other = await task_ids(shop.engine, second)
    await step(shop, 40, other["print"], TaskAction.START, "pia")
    await step(shop, 50, other["print"], TaskAction.RELEASE, "pia", "@Pat: yours")
    return int(tricky.id)


def export_url(server: str, path: str) -> str:
    return server.replace("/graphql", f"/export/{path}")


async def download(
    http: httpx.AsyncClient, server: str, path: str, token: str, **params: str
) -> list[dict[str, str]]:
    response = await http.get(
        export_url(server, path), params=params, headers={"authorization": f"Bearer {token}"}
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert "attachment" in response.headers["content-disposition"]
    # Streamed: no length known up front.
    assert "content-length" not in response.headers
    # The byte order mark for people's spreadsheets, none for machines.
    keys = params.get("headers") == "keys"
    assert response.content.startswith(BOM) is not keys
    text = response.content.removeprefix(BOM).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def moment(value: str | None) -> str:
    """An API time as the export writes it: ISO 8601 to the second, in the shop's zone."""
    if not value:
        return ""
    return datetime.fromisoformat(value).astimezone(UTC).isoformat(timespec="seconds")


def amount(money: list[dict[str, Any]] | dict[str, Any] | None, currency: str = "EUR") -> str:
    if isinstance(money, list):
        money = next((m for m in money if m["currency"] == currency), None)
    if money is None:
        return "0.00"
    return f"{Decimal(money['amount']):.2f}"


async def test_work_orders_match_the_api_row_by_row(
    shop: Shop, api: Client, http: httpx.AsyncClient, server: str
) -> None:
    await a_morning(shop)
    rows = await download(
        http, server, "work-orders.csv", shop.tokens["abe"], headers="keys", **WINDOW
    )
    nodes = [e["node"] for e in (await api.as_(shop.tokens["abe"])(ORDERS))["workOrders"]["edges"]]
    expected = []
    for n in sorted(nodes, key=lambda n: n["createdAt"]):
        done = [h["occurredAt"] for h in n["history"] if h["action"] == "COMPLETE"]
        completed = moment(done[-1]) if n["status"] == "COMPLETED" else ""
        finished_late = bool(completed and n["dueAt"] and completed > moment(n["dueAt"]))
        lead = ""
        if completed:
            took = datetime.fromisoformat(done[-1]) - datetime.fromisoformat(n["createdAt"])
            lead = f"{took.total_seconds():.3f}"
        name = n["customer"]["name"]
        expected.append({
            "order": n["orderNumber"],
            "customer": "'" + name if name.startswith("=") else name,
            "created": moment(n["createdAt"]),
            "due": moment(n["dueAt"]),
            "completed": completed,
            "status": n["status"],
            "late": "yes" if n["isLate"] or finished_late else "no",
            "currency": "EUR",
            "quote": amount(n["quote"]) if n["quote"] else "",
            "charged": amount(n["charged"]),
            "paid": amount(n["paid"]),
            "other_currencies": "",
            "lead_time_seconds": lead,
        })  # fmt: skip
    assert rows == expected
    # What the rows say, by hand: the first delivered at 125 (due 600), charged and
    # partly paid; the second late (due at 90, still open) and its customer's formula
    # defused.
    assert [
        (r["status"], r["late"], r["charged"], r["paid"], r["lead_time_seconds"]) for r in rows
    ] == [
        ("COMPLETED", "no", "480.50", "200.00", "7500.000"),
        ("ACTIVE", "yes", "0.00", "0.00", ""),
    ]
    assert rows[1]["customer"] == '\'=HYPERLINK("http://x")'


async def test_transitions_match_the_api_row_by_row(
    shop: Shop, api: Client, http: httpx.AsyncClient, server: str
) -> None:
    await a_morning(shop)
    rows = await download(
        http, server, "transitions.csv", shop.tokens["ada"], headers="keys", **WINDOW
    )
    nodes = [e["node"] for e in (await api.as_(shop.tokens["ada"])(ORDERS))["workOrders"]["edges"]]
    expected = []
    for n in nodes:
        for task in n["tasks"]:
            before = n["createdAt"]  # tasks are made with their order
            for h in task["history"]:
                spent = datetime.fromisoformat(h["occurredAt"]) - datetime.fromisoformat(before)
                before = h["occurredAt"]
                reason = h["reason"] or ""
                expected.append({
                    "order": n["orderNumber"],
                    "department": task["department"]["code"],
                    "from": h["fromStatus"],
                    "to": h["toStatus"],
                    "action": h["action"],
                    "actor": h["actor"]["name"],
                    "reason": "'" + reason if reason.startswith("@") else reason,
                    "occurred_at": moment(h["occurredAt"]),
                    "seconds_in_previous_state": f"{spent.total_seconds():.3f}",
                })  # fmt: skip
    assert rows == sorted(expected, key=lambda r: r["occurred_at"])
    assert len(rows) == 6
    assert [r["seconds_in_previous_state"] for r in rows][:3] == ["600.000", "600.000", "600.000"]
    assert rows[2]["reason"] == "'@Pat: yours"


async def test_a_ledger_matches_the_api_with_its_running_balance(
    shop: Shop, api: Client, http: httpx.AsyncClient, server: str
) -> None:
    await a_morning(shop)
    customer = gid("Customer", shop.customer_id)
    rows = await download(
        http, server, "ledger.csv", shop.tokens["abe"], headers="keys", customerId=customer
    )
    body = await api.as_(shop.tokens["abe"])(LEDGER, {"id": customer})
    entries = [e["node"] for e in body["node"]["ledger"]["edges"]][::-1]  # oldest first
    assert rows == [
        {
            "posted_at": moment(e["postedAt"]),
            "kind": e["kind"],
            "memo": "'" + e["memo"] if e["memo"].startswith("-") else e["memo"],
            "order": e["workOrder"]["orderNumber"],
            "amount": amount(e["amount"]),
            "currency": e["amount"]["currency"],
            "balance": amount(e["balanceAfter"]),
            "posted_by": e["postedBy"]["name"],
        }
        for e in entries
    ]
    assert [(r["amount"], r["balance"], r["memo"]) for r in rows] == [
        ("480.50", "480.50", "Invoice"),
        ("-200.00", "280.50", "'-deposit"),
    ]


@pytest.mark.parametrize(
    ("who", "status"), [(None, 401), ("pat", 403), ("sam", 403), ("abe", 200), ("ada", 200)]
)
@pytest.mark.parametrize("path", ["work-orders.csv", "transitions.csv"])
async def test_only_accounts_and_admins_may_export(
    shop: Shop, http: httpx.AsyncClient, server: str, who: str | None, status: int, path: str
) -> None:
    headers = {"authorization": f"Bearer {shop.tokens[who]}"} if who else {}
    response = await http.get(export_url(server, path), params=WINDOW, headers=headers)
    assert response.status_code == status, response.text
    if status != 200:
        assert response.json()["errors"][0]["message"]


@pytest.mark.parametrize(
    ("path", "params", "message"),
    [
        ("work-orders.csv", {"to": END}, "Give the start of the window"),
        ("work-orders.csv", {"from": "yesterday", "to": END}, "start of the window is not a date"),
        ("transitions.csv", {"from": "2026-10-05T00:00:00", "to": END}, "start with its time zone"),
        ("transitions.csv", {"from": END, "to": "2026-10-05T00:00:00Z"}, "end of the window must"),
        ("ledger.csv", {"customerId": "nope"}, NOT_A_CUSTOMER),
        ("ledger.csv", {"customerId": gid("WorkOrder", 1)}, NOT_A_CUSTOMER),
        ("ledger.csv", {"customerId": gid("Customer", 2**40)}, NOT_A_CUSTOMER),
        ("ledger.csv", {}, NOT_A_CUSTOMER),
    ],
)  # fmt: skip
async def test_a_bad_request_is_refused_in_words(
    shop: Shop,
    http: httpx.AsyncClient,
    server: str,
    path: str,
    params: dict[str, str],
    message: str,
) -> None:
    response = await http.get(
        export_url(server, path),
        params=params,
        headers={"authorization": f"Bearer {shop.tokens['abe']}"},
    )
    assert response.status_code == 400
    assert message in response.json()["errors"][0]["message"]


async def a_customer_beyond_ascii(shop: Shop) -> int:
    """Café Ünïcode's order of Print, started, charged: its pk."""
    async with unit_of_work(shop.engine) as conn:
        made = await customers.create_customer(conn, "Café Ünïcode", shop.users["sam"], Contact())
    shop.customer_id = made.customer.id
    order = await shop.order(["print"], at=at(0))
    tasks = await task_ids(shop.engine, order)
    await step(shop, 10, tasks["print"], TaskAction.START, "pat")
    await post(shop, 20, order, shop.customer_id, LedgerEntryKind.CHARGE, "80", "=1+1")
    return int(made.customer.id)


async def fetch(http: httpx.AsyncClient, server: str, path: str, **params: str) -> httpx.Response:
    token = params.pop("token")
    return await http.get(
        export_url(server, path), params=params, headers={"authorization": f"Bearer {token}"}
    )


def lines(response: httpx.Response) -> list[list[str]]:
    """The file's rows, read as a spreadsheet reads UTF-8 with a byte order mark."""
    assert response.content.startswith(BOM)
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


async def test_people_read_words_and_their_own_letters(
    shop: Shop, http: httpx.AsyncClient, server: str
) -> None:
    await a_customer_beyond_ascii(shop)
    orders = await fetch(http, server, "work-orders.csv", token=shop.tokens["abe"], **WINDOW)
    assert "Café Ünïcode".encode() in orders.content
    header, row = lines(orders)
    assert header == [
        "Order", "Customer", "Created", "Due", "Completed", "Status", "Late", "Currency",
        "Quote", "Charged", "Paid", "Other currencies", "Lead time in seconds",
    ]  # fmt: skip
    assert (row[1], row[5], row[9]) == ("Café Ünïcode", "Active", "80.00")

    moves = await fetch(http, server, "transitions.csv", token=shop.tokens["abe"], **WINDOW)
    header, row = lines(moves)
    assert header == [
        "Order", "Department", "From", "To", "Move", "By", "Reason", "When",
        "Seconds in previous state",
    ]  # fmt: skip
    assert row[1:6] == ["Print", "Waiting", "In progress", "Start", "Pat"]


async def test_a_ledger_is_named_after_its_customer_in_ascii_and_in_utf8(
    shop: Shop, http: httpx.AsyncClient, server: str
) -> None:
    customer = gid("Customer", await a_customer_beyond_ascii(shop))
    response = await fetch(
        http, server, "ledger.csv", token=shop.tokens["abe"], customerId=customer
    )
    given = response.headers["content-disposition"]
    assert given == (
        'attachment; filename="ledger-Cafe Unicode.csv"; '
        "filename*=UTF-8''ledger-Caf%C3%A9%20%C3%9Cn%C3%AFcode.csv"
    )
    encoded = given.split("filename*=UTF-8''", 1)[1]
    assert unquote(encoded, encoding="utf-8", errors="strict") == "ledger-Café Ünïcode.csv"
    header, row = lines(response)
    assert header == [
        "Posted", "Kind", "Memo", "Order", "Amount", "Currency", "Balance", "Posted by",
    ]  # fmt: skip
    # Formula-like text is still defused; the kind in words.
    assert row[1:3] == ["Charge", "'=1+1"]


async def test_machines_keep_the_keys_without_a_byte_order_mark(
    shop: Shop, http: httpx.AsyncClient, server: str
) -> None:
    await a_customer_beyond_ascii(shop)
    response = await fetch(
        http, server, "transitions.csv", token=shop.tokens["abe"], headers="keys", **WINDOW
    )
    assert response.content.startswith(b"order,department,from,to,action,actor,")
    row = list(csv.reader(io.StringIO(response.content.decode("utf-8"))))[1]
    assert row[1:6] == ["print", "PENDING", "STARTED", "START", "Pat"]


@pytest.mark.parametrize("path", ["work-orders.csv", "transitions.csv", "ledger.csv"])
async def test_a_form_other_than_words_or_keys_is_refused(
    shop: Shop, http: httpx.AsyncClient, server: str, path: str
) -> None:
    params = {"customerId": gid("Customer", shop.customer_id), **WINDOW, "headers": "xml"}
    response = await fetch(http, server, path, token=shop.tokens["abe"], **params)
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        "Ask for the file with headers in words (headers=words, for people) or as keys "
        "(headers=keys, for scripts), not “xml”."
    )
