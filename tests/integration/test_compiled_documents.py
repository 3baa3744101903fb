"""Compiled trusted documents (src/graph/engine/compiled.py) answer exactly as the stock
execution does. Each request of the table goes to a server with the engine room and to
one on plain execution (Strawberry's and graphql-core's own), each about a task of its own
in the same state, in the same order: the two answers must match (status, the headers a
client reads, the remaining cost points, the body with each side's task id put back), and
the engine room's count says whether its plan answered or the stock path did."""

import hashlib
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from api import manifest
from db.engine import unit_of_work
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from graph.engine.compiled import CompiledDocuments
from graph.engine.schema import tuned_schema
from pressroom import policies
from pressroom.settings import Settings
from tests.support.client import gid
from tests.support.database import task_ids
from tests.support.servers import metric, served
from tests.support.shop import Shop

pytestmark = pytest.mark.engine_room

TEXTS = {manifest.operation_name(t): t for t in manifest.load().values()}
GRAPHQL_RESPONSE = "application/graphql-response+json"
# What the request log counts of each operation.
COUNTED = ("pressroom_graphql_operations_total", "pressroom_graphql_user_errors_total")
# What a client reads of an answer besides its body (x-ratelimit-reset is a time).
HEADERS = (
    "content-type",
    "cache-control",
    "vary",
    "x-content-type-options",
    "x-request-id",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
)


def task_input(task: str, **more: object) -> dict[str, object]:
    return {"input": {"taskId": task, **more}}


@dataclass(frozen=True)
class Case:
    name: str
    who: str | None
    operation: str
    # Who answers on the engine room's server: its plan ("answered"), the stock path after
    # the plan's resolver raised ("handed_back"), or the stock path alone (None).
    path: str | None
    # The variables, given the task's global id.
    variables: Callable[[str], object] = task_input
    # Moves made first through src/db: (action, who).
    before: tuple[tuple[TaskAction, str], ...] = ()
    by: str = "hash"  # hash, text, or both
    operation_name: str | None = "same"
    accept: str = "application/json"
    extra: dict[str, Any] = field(default_factory=dict)
    # Added to the URL.
    query_string: str = ""
    # The task's department: print's of an order that prints, or delivery's of one that
    # only delivers (its gate open at once).
    department: str = "print"


START = ((TaskAction.START, "pat"),)
CASES = [
    Case("a start by hash", "pat", "ScanStart", "answered"),
    Case("a start by its text", "pat", "ScanStart", "answered", by="text"),
    Case("a start by hash and text", "pat", "ScanStart", "answered", by="both"),
    Case("a start with no operation name", "pat", "ScanStart", "answered", operation_name=None),
    Case(
        "a start asked in the GraphQL media type",
        "pat",
        "ScanStart",
        "answered",
        accept=GRAPHQL_RESPONSE,
    ),
    Case("a start sent again: nothing changes", "pat", "ScanStart", "answered", before=START),
    Case(
        "a start of a task another holds: a user error",
        "pia",
        "ScanStart",
        "answered",
        before=START,
    ),
    Case("a start of another department's task", "fin", "ScanStart", "handed_back"),
    Case("a finish", "pat", "ScanFinish", "answered", before=START),
    Case("the queue's start, its task in full", "pat", "StartTask", "answered"),
    Case("the queue's finish", "pat", "FinishTask", "answered", before=START),
    Case(
        "the queue's start of a delivery, its address and needs",
        "dan",
        "StartTask",
        "answered",
        department="delivery",
    ),
    Case("the queue's start of a task another holds", "pia", "StartTask", "answered", before=START),
    Case("the queue's start of another department's task", "fin", "StartTask", "handed_back"),
    Case("a finish of a task not started", "pat", "ScanFinish", "answered"),
    Case(
        "an admin's release, with a reason",
        "ada",
        "ReleaseTask",
        "answered",
        variables=lambda task: task_input(task, reason="Wrong stock"),
        before=START,
    ),
    Case(
        "a customer's id for a task",
        "pat",
        "ScanStart",
        "answered",
        variables=lambda task: task_input(gid("Customer", 1)),
    ),
    Case(
        "a release without its reason",
        "ada",
        "ReleaseTask",
        None,
        before=START,
    ),
    Case(
        "a task id that is no id",
        "pat",
        "ScanStart",
        None,
        variables=lambda task: task_input("not an id"),
    ),
    Case(
        "a variable the document does not declare",
        "pat",
        "ScanStart",
        None,
        variables=lambda task: {**task_input(task), "other": 1},
    ),
    Case(
        "a field the input does not have",
        "pat",
        "ScanStart",
        None,
        variables=lambda task: task_input(task, reason="no such field"),
    ),
    Case("another operation's name", "pat", "ScanStart", None, operation_name="ScanFinish"),
    Case(
        "an admin's move asked by a worker",
        "pat",
        "CompleteTask",
        None,
        before=START,
        variables=lambda task: task_input(task, reason="Done by hand"),
    ),
    Case("a wall display's token", "display", "ScanStart", None),
    Case("no token", None, "ScanStart", None),
    Case("the cost asked for too", "pat", "ScanStart", None, extra={"cost": True}),
    Case("a query string beside the body", "pat", "ScanStart", None, query_string="?x=1"),
]


@pytest.fixture(scope="module")
async def servers(database_url: str) -> AsyncIterator[dict[str, str]]:
    """A server with the engine room, and one on plain execution: their URLs."""
    async with (
        served(database_url, Settings(plain_execution=False)) as (compiled, _),
        served(database_url, Settings(plain_execution=True)) as (plain, _),
    ):
        yield {"compiled": compiled, "plain": plain}


async def task_in_state(shop: Shop, case: Case) -> tuple[str, str]:
    """The case's task of a new order, moved as the case says first: its global id, and
    its order's."""
    order = await shop.order(["print"] if case.department == "print" else [])
    task = (await task_ids(shop.engine, order))[case.department]
    for action, who in case.before:
        async with unit_of_work(shop.engine) as conn:
            await transition_task(conn, task, action, Actor(shop.users[who], False))
    return gid("DepartmentTask", task), gid("WorkOrder", order)


def body_of(case: Case, task: str) -> dict[str, Any]:
    text = TEXTS[case.operation]
    body: dict[str, Any] = {"variables": case.variables(task)}
    if case.by in ("text", "both"):
        body["query"] = text
    extensions = dict(case.extra)
    if case.by in ("hash", "both"):
        digest = hashlib.sha256(text.encode()).hexdigest()
        extensions["persistedQuery"] = {"version": 1, "sha256Hash": digest}
    if extensions:
        body["extensions"] = extensions
    if case.operation_name is not None:
        body["operationName"] = (
            case.operation if case.operation_name == "same" else case.operation_name
        )
    return body


# When the asker's cost window resets: each server's window started at its own first
# request, so the two may be a second apart.
RESET_AT = re.compile(r'"resetAt":"([^"]+)"')


# What differs between the two sides' own tasks: their order's number, and the digits of
# when they moved (the format kept), in their times and their queue rank.
ORDER_NUMBER = re.compile(r'"orderNumber":"[^"]*"')
MOVED = re.compile(r'"(?:availableAt|startedAt|waitingSince|queueRank)":"[^"]*"')


def answer_of(response: httpx.Response, task: str, order: str) -> tuple[str, list[datetime]]:
    """The body with the case's task and order, the window's reset times and the times the
    task moved written alike, and those reset times."""
    text = response.text.replace(task, "<task>").replace(order, "<order>")
    resets = [datetime.fromisoformat(found) for found in RESET_AT.findall(text)]
    text = ORDER_NUMBER.sub('"orderNumber":"<number>"', text)
    text = MOVED.sub(lambda found: re.sub(r"\d", "9", found.group()), text)
    return RESET_AT.sub('"resetAt":"<reset>"', text), resets


async def operations(http: httpx.AsyncClient, url: str) -> Counter[tuple[str, ...]]:
    """The operations and userErrors a server has counted, by their labels."""
    response = await http.get(url.removesuffix("/graphql") + "/metrics")
    counted: Counter[tuple[str, ...]] = Counter()
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            if sample.name in COUNTED:
                labels = {k: v for k, v in sample.labels.items() if k != "replica"}
                counted[(sample.name, *sorted(labels.items()))] += sample.value  # type: ignore[arg-type]
    return counted


async def outcomes(http: httpx.AsyncClient, url: str) -> dict[str, float]:
    """The engine room's count of compiled documents by outcome."""
    response = await http.get(url.removesuffix("/graphql") + "/metrics")
    return {
        outcome: metric(response.text, "pressroom_compiled_documents", outcome=outcome) or 0.0
        for outcome in ("answered", "handed_back")
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_a_compiled_document_answers_as_the_stock_execution(
    servers: dict[str, str], shop: Shop, http: httpx.AsyncClient, case: Case
) -> None:
    tokens = {**shop.tokens, "display": await shop.display(["print"])}
    before = await outcomes(http, servers["compiled"])
    seen: dict[str, tuple[int, dict[str, str | None], str, Counter[tuple[str, ...]]]] = {}
    resets: dict[str, list[datetime]] = {}
    for side, url in servers.items():
        counted = await operations(http, url)
        task, order = await task_in_state(shop, case)
        headers = {"accept": case.accept, "x-request-id": f"compiled-{case.operation}"}
        if case.who is not None:
            headers["authorization"] = f"Bearer {tokens[case.who]}"
        response = await http.post(
            url + case.query_string, json=body_of(case, task), headers=headers
        )
        answer, resets[side] = answer_of(response, task, order)
        seen[side] = (
            response.status_code,
            {name: response.headers.get(name) for name in HEADERS},
            answer,
            await operations(http, url) - counted,
        )
    print(case.name, seen["compiled"])
    assert seen["compiled"] == seen["plain"]
    for compiled, plain in zip(resets["compiled"], resets["plain"], strict=True):
        assert abs((compiled - plain).total_seconds()) <= 2
    after = await outcomes(http, servers["compiled"])
    assert {k: after[k] - before[k] for k in after} == {
        k: 1.0 if k == case.path else 0.0 for k in after
    }


def test_the_app_s_task_moves_are_compiled_and_nothing_else() -> None:
    """Which of the manifest's documents have a plan: the moves (the scan station's, the
    queue's and the admin's), their payloads' fields read by attribute or by resolvers
    given the request's context alone."""
    documents = policies.documents(Settings())
    compiled = CompiledDocuments(tuned_schema()._schema, documents)
    names = sorted(move.operation for move in compiled.moves.values())
    assert names == [
        "CompleteTask",
        "FinishTask",
        "ReleaseStale",
        "ReleaseTask",
        "ReopenTask",
        "ScanFinish",
        "ScanStart",
        "StartTask",
    ]
