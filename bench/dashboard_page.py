"""The dashboard page as the bench asks for it (bench/dashboard.py): its query in
Pressroom's schema and in PostGraphile's, what an answer holds, and keep-alive clients
that ask for it."""

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from bench.load import HTTP_ERRORS, KeepAliveClients, Tally, run_loops

PAGE_SIZE = 50


# The dashboard's query; tests/integration's cost and statement counts read it too.
DASHBOARD_PAGE = """query Page($first: Int!) {
  workOrders(first: $first) {
    edges { node {
      orderNumber status quote { amount currency }
      customer { name }
      createdBy { name }
      history { action actor { name } }
      deliveryTask { availableAt }
      tasks {
        status availableAt
        department { code name }
        pickedUpBy { name departments { code } }
        history { action actor { name } }
      }
    } }
    pageInfo { hasNextPage endCursor }
  }
}"""

# The same page in PostGraphile 4's schema (default inflection, relay connections and
# simple lists both exposed): the page itself is a connection, as Pressroom's is, and
# the relations are lists. Work orders newest first and tasks and histories by id, as
# Pressroom orders them (its production tasks then the delivery task is id order here:
# the delivery department is made last). A picker's departments come through the
# user_departments link table, by primary key where Pressroom sorts them by code (the
# same order here: codes p00.. were made in order). The delivery task is the order's task
# in the delivery department, whose id is a variable.
POSTGRAPHILE_PAGE = """query Page($first: Int!, $delivery: BigInt!) {
  allWorkOrders(first: $first, orderBy: ID_DESC) {
    edges { node {
      orderNumber status quoteMinor quoteCurrency
      customerByCustomerId { name }
      userByCreatedBy { name }
      workOrderTransitionsByWorkOrderIdList(orderBy: ID_ASC) { action userByActorId { name } }
      deliveryTask: departmentTasksByWorkOrderIdList(condition: {departmentId: $delivery}) {
        availableAt
      }
      departmentTasksByWorkOrderIdList(orderBy: ID_ASC) {
        status availableAt
        departmentByDepartmentId { code name }
        userByPickedUpBy {
          name
          userDepartmentsByUserIdList(orderBy: PRIMARY_KEY_ASC) {
            departmentByDepartmentId { code }
          }
        }
        taskTransitionsByTaskIdList(orderBy: ID_ASC) { action userByActorId { name } }
      }
    } }
    pageInfo { hasNextPage endCursor }
  }
}"""


# --- the page, and what a page holds ----------------------------------------------------


@dataclass(frozen=True)
class PageShape:
    """What one answer holds, to check both servers answer the same page."""

    orders: int
    order_numbers: str  # a digest of the order numbers, in page order
    has_next_page: bool
    quotes: int
    order_history: int
    order_history_actors: int
    delivery_tasks: int
    tasks: int
    picked_up: int
    picker_departments: int
    task_history: int
    task_history_actors: int


@dataclass(frozen=True)
class PageFields:
    """Where a server's answer holds what PageShape counts: the field names of its schema
    for the page and its relations, and whether a node's `deliveryTask` (an alias in
    both queries) holds the delivery task."""

    page: str
    quote: str
    order_history: str
    tasks: str
    picker: str
    picker_departments: str
    task_history: str
    actor: str
    delivered: Callable[[Any], bool]


PRESSROOM_FIELDS = PageFields(
    page="workOrders",
    quote="quote",
    order_history="history",
    tasks="tasks",
    picker="pickedUpBy",
    picker_departments="departments",
    task_history="history",
    actor="actor",
    delivered=lambda task: task is not None,
)
POSTGRAPHILE_FIELDS = PageFields(
    page="allWorkOrders",
    quote="quoteMinor",
    order_history="workOrderTransitionsByWorkOrderIdList",
    tasks="departmentTasksByWorkOrderIdList",
    picker="userByPickedUpBy",
    picker_departments="userDepartmentsByUserIdList",
    task_history="taskTransitionsByTaskIdList",
    actor="userByActorId",
    delivered=lambda tasks: len(tasks) == 1,
)


def page_shape(body: dict[str, Any], f: PageFields) -> PageShape:
    page = body["data"][f.page]
    nodes = [edge["node"] for edge in page["edges"]]
    tasks = [task for node in nodes for task in node[f.tasks]]
    order_history = [h for node in nodes for h in node[f.order_history]]
    task_history = [h for task in tasks for h in task[f.task_history]]
    pickers = [task[f.picker] for task in tasks if task[f.picker]]
    return PageShape(
        orders=len(nodes),
        order_numbers=digest(node["orderNumber"] for node in nodes),
        has_next_page=page["pageInfo"]["hasNextPage"],
        quotes=sum(node[f.quote] is not None for node in nodes),
        order_history=len(order_history),
        order_history_actors=sum(h[f.actor] is not None for h in order_history),
        delivery_tasks=sum(f.delivered(node["deliveryTask"]) for node in nodes),
        tasks=len(tasks),
        picked_up=len(pickers),
        picker_departments=sum(len(p[f.picker_departments]) for p in pickers),
        task_history=len(task_history),
        task_history_actors=sum(h[f.actor] is not None for h in task_history),
    )


def digest(values: Any) -> str:
    return hashlib.sha256("\n".join(values).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Target:
    """A server answering the page: where, the request as bytes, and how to read it."""

    name: str
    url: str
    body: bytes
    headers: dict[str, str]
    fields: PageFields
    pid: int | None  # its process, for CPU accounting


def target(
    name: str,
    url: str,
    query: str,
    variables: dict[str, Any],
    fields: PageFields,
    pid: int | None,
    token: str | None = None,
) -> Target:
    # Encoded once: the bench must not spend its CPU (the machine's) on the requests.
    body = json.dumps({"query": query, "variables": variables, "operationName": "Page"}).encode()
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return Target(name, url, body, headers, fields, pid)


def check_page(target: Target, body: dict[str, Any]) -> PageShape:
    """The page's shape, once sure it is a full page with nested data."""
    if body.get("errors"):
        raise RuntimeError(f"{target.name}: the page failed: {str(body['errors'])[:500]}")
    shape = page_shape(body, target.fields)
    empty = [name for name, value in shape.__dict__.items() if not value and name != "quotes"]
    if shape.orders != PAGE_SIZE or empty:
        raise RuntimeError(
            f"{target.name}: expected {PAGE_SIZE} work orders with nested data, got {shape}"
        )
    return shape


# --- clients ----------------------------------------------------------------------------


@dataclass
class PageRun(Tally):
    pages: int = 0
    last_body: bytes = b""

    @property
    def rate(self) -> float:
        return self.per_second(self.pages)

    def add(self, other: Self) -> None:
        super().add(other)
        self.pages += other.pages


class PageClients(KeepAliveClients):
    """Keep-alive clients asking one server for the page."""

    def __init__(self, target: Target, clients: int) -> None:
        super().__init__(clients, timeout=60)
        self.target = target

    async def one(self, client: int = 0) -> dict[str, Any]:
        """One page, parsed."""
        t = self.target
        _, content = await self.post(client, t.url, t.body, t.headers)
        body: dict[str, Any] = json.loads(content)
        return body

    async def run(self, seconds: float, pages: int | None = None) -> PageRun:
        """Pages as fast as they come, until `seconds` have passed (or `pages` are done).
        Answers are checked by their bytes (status 200, no "errors" key); the last one is
        parsed and checked in full afterwards."""
        run = PageRun()

        async def page(index: int, deadline: float) -> bool:
            if pages is not None and run.pages >= pages:
                return False
            await self.ask(run, index, self.target.headers)
            return True

        await run_loops(self.clients, seconds, run, page, slack=120)
        return self.checked(run)

    async def ask(self, run: PageRun, index: int, headers: dict[str, str]) -> None:
        """One page on `index`'s connection, with `headers`, into `run`: checked by its
        bytes (status 200, no "errors" key)."""
        t = self.target
        t0 = time.perf_counter()
        try:
            status, content = await self.post(index, t.url, t.body, headers)
        except HTTP_ERRORS as error:
            run.error(f"{t.name}: {error!r}")
            return
        if status != 200 or b'"errors"' in content:
            run.error(f"{t.name}: HTTP {status}: {content[:500]!r}")
            return
        run.latencies.append(time.perf_counter() - t0)
        run.pages += 1
        run.last_body = content

    def checked(self, run: PageRun) -> PageRun:
        """`run`, its last page parsed and checked in full."""
        if run.last_body:
            check_page(self.target, json.loads(run.last_body))
        return run
