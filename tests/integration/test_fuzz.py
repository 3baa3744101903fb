"""Property-based fuzzing of the real HTTP API with hypothesis-graphql.

Every root field of `Query` and `Mutation` (read from the live Strawberry schema, so a new
field is fuzzed without touching this file) gets its own test. Each generated operation is
posted over real HTTP to the session's uvicorn server three times: anonymously, as a
worker (pat, in print) and as an admin (ada). Every response must be clean:

- status < 500, a JSON object, no stack trace,
- every error carries `extensions.code`, and none is `INTERNAL_SERVER_ERROR` (a masked
  unexpected exception);
- a refused request (a FORBIDDEN, UNAUTHENTICATED or BAD_REQUEST error on the root field
  or on the request itself) writes nothing: the digest of every table (`table_snapshot`)
  is the same before and after it. An error on a nested field (say FORBIDDEN on
  `createWorkOrder { workOrder { customer { ledger } } }` for Sales) is partial data,
  not a refusal: the mutation itself may have run and written.

Arguments are generated from the schema's input types. `ID` draws mostly from the global
ids of real rows (the shop's customer, users, departments, two active and a cancelled
work order with their tasks, two tokens of a bystander, a ledger entry), else garbage
(wrong type names, non-ASCII digits, out-of-range pks, plain text, integers), so mutations
often hit real objects; `String` mixes real department codes, currencies and real cursors
with crafted bad cursors and arbitrary text (NUL included); `Int` favours page sizes and
their bounds; `Decimal`, `JSON` and `DateTime` have strategies of their own. A custom
scalar without a strategy fails `test_every_custom_scalar_has_a_strategy`. One operation
in four (where the field has arguments) is hypothesis-graphql's NEGATIVE mode: one schema
violation. Half the operations send the root field's arguments as typed variables instead
of literals, so the scalars' `parse_value` is fuzzed as well as `parse_literal`.

Spread-heavy documents (`test_fuzz_spread_heavy_documents`): a generated operation of any
root field becomes the last of a chain of fragments, each spreading the next one to three
times, up to 60 levels deep. What its fields come to once spread is known from the
chain (the product of the spreads times the operation's own fields): over the server's
limit it must be refused naming that limit, under it answered like the operation itself.

How Hypothesis meets the async fixtures: the server, the HTTP client and the engine live
on pytest-asyncio's session event loop, and Hypothesis cannot drive an async test itself.
So each async test builds its strategy (the real ids are only known once `shop` exists),
then runs an ordinary synchronous `@given` function in a worker thread
(`asyncio.to_thread`), which leaves the event loop free; each example hands its
coroutine back to that loop with `asyncio.run_coroutine_threadsafe(...).result()`. This
keeps all of Hypothesis (generation, shrinking, the falsifying example in the report) and
needs no pytest-asyncio/Hypothesis integration. The examples of one field share one shop:
state accumulates, which is what lets later operations meet rows that earlier ones made.

Cost: snapshots are taken only when a refused request needs one; a digest known to
describe the current state (taken after the previous refused request) is reused as the
next request's "before", and forgotten after any request that was not refused (it may
have written). Settings are fixed for CI: `derandomize=True`, `database=None`,
`deadline=None` and a bounded `max_examples` per field.
"""

import asyncio
import base64
import copy
import dataclasses
import json
from typing import Any

import graphql
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, mutations, nodes, queries

from db import people
from db.cancellation import cancel_work_order
from db.engine import unit_of_work
from domain.enums import TokenKind
from graph.schema import schema as live_schema
from graph.shape import SIGNED_IN
from tests.support.client import Client, gid
from tests.support.database import Snapshot, table_snapshot, task_ids
from tests.support.shop import Shop

# The schema the server runs, not the checked-in SDL file.
SCHEMA = graphql.build_schema(live_schema.as_str())
ROOTS = {"query": SCHEMA.query_type, "mutation": SCHEMA.mutation_type}
FIELDS = [(kind, name) for kind, root in ROOTS.items() if root is not None for name in root.fields]

# Per field: this many operations, each posted by three callers.
MAX_EXAMPLES = 40

# Anonymous and the worker first: they are refused most often, so the digest taken after
# one refusal serves as the "before" of the next request.
CALLERS: list[tuple[str, str | None]] = [("anonymous", None), ("worker", "pat"), ("admin", "ada")]

REFUSALS = frozenset({"FORBIDDEN", "UNAUTHENTICATED", "BAD_REQUEST"})
BUILT_IN_SCALARS = frozenset({"Int", "Float", "String", "ID", "Boolean"})

# ---------------------------------------------------------------------------------------------
# Value strategies (they generate GraphQL AST value nodes).


def b64(raw: str) -> str:
    return base64.b64encode(raw.encode()).decode()


def cursor(key: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(key).encode()).decode()


TYPE_NAMES = [
    "WorkOrder",
    "DepartmentTask",
    "Customer",
    "User",
    "Department",
    "Token",
    "LedgerEntry",
    "Node",
    "workorder",
    "",
]
BAD_PKS = [
    "0",
    "-1",
    "00",
    "+1",
    " 1",
    "1.0",
    "1e3",
    "abc",
    "",
    "\u0661",  # ARABIC-INDIC DIGIT ONE
    "\u00b2",  # SUPERSCRIPT TWO
    "\uff11",  # FULLWIDTH DIGIT ONE
    str(2**63 - 1),
    str(2**63),
    "9" * 40,
]


def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of the strategies, picked in proportion to its weight."""
    table = [strategy for weight, strategy in choices for _ in range(weight)]
    return st.sampled_from(table).flatmap(lambda strategy: strategy)


def id_values(real: list[str], real_pks: list[str]) -> st.SearchStrategy[graphql.ValueNode]:
    """Mostly real global ids (so resolvers run), else garbage (mostly well-formed)."""
    pks = st.sampled_from(BAD_PKS + real_pks) | st.integers(-(2**70), 2**70).map(str)
    global_ids = st.builds(lambda t, pk: b64(f"{t}:{pk}"), st.sampled_from(TYPE_NAMES), pks)
    odd = ["", "=", "V29ya09yZGVyOjE", "not base64!", b64(":"), b64("::1"), b64("WorkOrder")]
    return weighted(
        (7, st.sampled_from(real).map(nodes.String)),
        (3, global_ids.map(nodes.String)),
        (1, st.sampled_from(odd).map(nodes.String)),
        (1, st.text(max_size=30).map(nodes.String)),
        (1, st.integers(-(2**31), 2**31 - 1).map(nodes.Int)),
    )


def string_values(codes: list[str], cursors: list[str]) -> st.SearchStrategy[graphql.ValueNode]:
    """Real department codes, currencies and cursors; crafted bad values; any text."""
    plausible = [*codes, *cursors, "EUR", "USD", "JPY", "pat@shop.test", "WO-000001", "ACME"]
    crafted = [
        "PRINT",
        "nope",
        "XXX",
        "eur",
        "",
        " ",
        "%",
        "_",
        "\\",
        "'; SELECT 1; --",
        "x" * 5000,
        cursor([0]),
        cursor([-1]),
        cursor([2**63]),
        cursor([1.5]),
        cursor(["1"]),
        cursor([True]),
        cursor([]),
        cursor({}),
        cursor([None, None, None]),
        cursor([0, "2024-01-01T00:00:00+00:00", 1]),
        cursor([1, "2024-01-01T00:00:00", 1]),
        cursor([2, "x", 1]),
        cursor([0, "9999-12-31T23:59:59+14:00", 2**63 - 1]),
        cursor([0, "0001-01-01T00:00:00-23:59", 1]),
        b64("[1]"),
        "not a cursor",
    ]
    return weighted(
        (4, st.sampled_from(plausible)),
        (2, st.sampled_from(crafted)),
        (3, st.text(max_size=40)),
    ).map(nodes.String)


INT_VALUES = weighted(
    (6, st.integers(0, 100)),
    (2, st.sampled_from([-1, 101, 2**31 - 1, -(2**31)])),
    (2, st.integers(-(2**31), 2**31 - 1)),
).map(nodes.Int)

DECIMAL_VALUES = st.one_of(
    st.sampled_from(
        [
            "0",
            "-0",
            "1",
            "-1",
            "0.01",
            "0.001",
            "12.345",
            "1e3",
            "1E-7",
            "1e400",
            "NaN",
            "sNaN",
            "Infinity",
            "-Infinity",
            "9" * 40,
            "1_000",
            " 1",
            "",
            "1,5",
            "abc",
        ]
    ).map(nodes.String),
    st.decimals(allow_nan=True, allow_infinity=True).map(nodes.String),
    st.integers().map(nodes.Int),
    st.floats(allow_nan=False, allow_infinity=False).map(nodes.Float),
    st.booleans().map(nodes.Boolean),
)

DATETIME_VALUES = st.one_of(
    st.datetimes().map(lambda d: d.isoformat()),
    st.sampled_from(["", "now", "2024-13-01T00:00:00", "0000-01-01"]),
    st.text(max_size=20),
).map(nodes.String)
# Output only today (DayCount.day), listed so an argument of it one day is fuzzed too.
DATE_VALUES = st.one_of(
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(["", "today", "2024-02-30"]),
    st.text(max_size=12),
).map(nodes.String)


def json_node(value: Any) -> graphql.ValueNode:
    if value is None:
        return nodes.Null
    if isinstance(value, bool):
        return nodes.Boolean(value)
    if isinstance(value, int):
        return nodes.Int(value)
    if isinstance(value, float):
        return nodes.Float(value)
    if isinstance(value, str):
        return nodes.String(value)
    if isinstance(value, list):
        return nodes.List([json_node(v) for v in value])
    return nodes.Object(
        [
            graphql.ObjectFieldNode(name=graphql.NameNode(value=k), value=json_node(v))
            for k, v in value.items()
        ]
    )


JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
JSON_DOCS = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        # Object keys are GraphQL names in an object literal.
        | st.dictionaries(
            st.from_regex(r"[_A-Za-z][_0-9A-Za-z]{0,8}", fullmatch=True), inner, max_size=3
        )
    ),
    max_leaves=10,
)
JSON_VALUES = st.one_of(
    st.dictionaries(st.from_regex(r"[_A-Za-z][_0-9A-Za-z]{0,8}", fullmatch=True), JSON_DOCS),
    JSON_DOCS,
).map(json_node)


def scalar_strategies(world: "World") -> Any:
    return {
        "ID": id_values(world.ids, world.pks),
        "String": string_values(world.codes, world.cursors),
        "Int": INT_VALUES,
        "Decimal": DECIMAL_VALUES,
        "DateTime": DATETIME_VALUES,
        "Date": DATE_VALUES,
        "JSON": JSON_VALUES,
        # A file travels only as a multipart request's part: any value written is refused.
        "Upload": st.one_of(st.text(max_size=20).map(nodes.String), INT_VALUES),
    }


def test_every_custom_scalar_has_a_strategy() -> None:
    """A new input scalar must get a strategy here, or its fields go unfuzzed."""
    scalars = {
        name
        for name, type_ in SCHEMA.type_map.items()
        if isinstance(type_, graphql.GraphQLScalarType) and name not in BUILT_IN_SCALARS
    }
    assert scalars <= set(scalar_strategies(World([""], [""], [], []))), scalars


# ---------------------------------------------------------------------------------------------
# The world the fuzzer runs in.


@dataclasses.dataclass
class World:
    ids: list[str]  # global ids of real rows
    pks: list[str]  # their pks, for global ids of the wrong type
    codes: list[str]  # department codes
    cursors: list[str]  # real cursors of the connections


CURSORS = """{
  workOrders(first: 1) { pageInfo { endCursor } }
  queue(department: "print", first: 1) { pageInfo { endCursor } eventCursor }
  users(first: 1) { pageInfo { endCursor } }
  customers(first: 1) { pageInfo { endCursor } }
}"""
LEDGER_CURSOR = """query($c: ID!) {
  customer(id: $c) { ledger(first: 1) { pageInfo { endCursor } } }
}"""


async def build_world(api: Client, shop: Shop) -> World:
    """Real rows for the ids to hit: two active orders, a cancelled one, tokens, an entry."""
    active = await shop.order(["print", "finishing"], details={"notes": "fuzz"})
    second = await shop.order(["design", "print"])
    cancelled = await shop.order(["print"])
    async with unit_of_work(shop.engine) as conn:
        await cancel_work_order(conn, cancelled, shop.users["sam"], "Fuzz setup.")
        # A bystander's tokens, so revokeToken hits real tokens but never a caller's own.
        api_token = await people.issue_token(
            conn, kind=TokenKind.API, name="bystander", user_id=shop.users["pia"], ttl_seconds=None
        )
        display = await people.issue_token(
            conn,
            kind=TokenKind.DISPLAY,
            name="wall",
            user_id=shop.users["ada"],
            ttl_seconds=None,
            department_ids=[shop.departments["print"]],
        )
    customer = gid("Customer", shop.customer_id)
    posted = await api.as_(shop.tokens["abe"])(
        """mutation($c: ID!, $w: ID) { postLedgerEntry(input: {customerId: $c, workOrderId: $w,
        kind: CHARGE, amount: "12.50", currency: "EUR", idempotencyKey: "fuzz-1"}) {
        entry { id } userErrors { code } } }""",
        {"c": customer, "w": gid("WorkOrder", active)},
    )
    assert posted["postLedgerEntry"]["userErrors"] == [], posted
    pages = await api.as_(shop.tokens["ada"])(CURSORS)
    ledger = await api.as_(shop.tokens["abe"])(LEDGER_CURSOR, {"c": customer})
    cursors = [
        pages["workOrders"]["pageInfo"]["endCursor"],
        pages["queue"]["pageInfo"]["endCursor"],
        pages["queue"]["eventCursor"],
        pages["users"]["pageInfo"]["endCursor"],
        pages["customers"]["pageInfo"]["endCursor"],
        ledger["customer"]["ledger"]["pageInfo"]["endCursor"],
    ]
    tasks = [await task_ids(shop.engine, order) for order in (active, second, cancelled)]
    pks: dict[str, list[int]] = {
        "Customer": [shop.customer_id],
        "WorkOrder": [active, second, cancelled],
        "DepartmentTask": [pk for by_code in tasks for pk in by_code.values()],
        "User": list(shop.users.values()),
        "Department": list(shop.departments.values()),
        "Token": [int(api_token.row.id), int(display.row.id)],
    }
    ids = [gid(type_name, pk) for type_name, many in pks.items() for pk in many]
    ids.append(posted["postLedgerEntry"]["entry"]["id"])
    return World(
        ids=ids,
        pks=sorted({str(pk) for many in pks.values() for pk in many}),
        codes=sorted(shop.departments),
        cursors=[c for c in cursors if c],
    )


def _with(node: Any, **changes: Any) -> Any:
    """A copy of an AST node with some fields replaced (graphql-core 3.3's are frozen)."""
    if dataclasses.is_dataclass(node):
        return dataclasses.replace(node, **changes)
    copied = copy.copy(node)
    for key, value in changes.items():
        setattr(copied, key, value)
    return copied


def as_variables(query: str) -> tuple[str, dict[str, Any]]:
    """The same operation with the root field's arguments sent as variables (typed as the
    arguments are declared), so the scalars' `parse_value` runs, not `parse_literal`."""
    variables: dict[str, Any] = {}

    def hoist(
        field: graphql.FieldNode, root: graphql.GraphQLObjectType
    ) -> tuple[graphql.FieldNode, list[graphql.VariableDefinitionNode]]:
        declared = root.fields.get(field.name.value)
        arguments, definitions = [], []
        for argument in field.arguments or ():
            arg = declared.args.get(argument.name.value) if declared else None
            if arg is None:
                arguments.append(argument)
                continue
            name = f"v{len(variables)}"
            variables[name] = graphql.value_from_ast_untyped(argument.value)
            variable = graphql.VariableNode(name=graphql.NameNode(value=name))
            type_ = graphql.parse_type(str(arg.type))
            definitions.append(graphql.VariableDefinitionNode(variable=variable, type=type_))
            arguments.append(graphql.ArgumentNode(name=argument.name, value=variable))
        return _with(field, arguments=tuple(arguments)), definitions

    document = graphql.parse(query)
    operations = []
    for operation in document.definitions:
        root = (
            ROOTS.get(operation.operation.value)
            if isinstance(operation, graphql.OperationDefinitionNode)
            else None
        )
        if root is None:
            operations.append(operation)
            continue
        selections, definitions = [], []
        for selection in operation.selection_set.selections:
            if isinstance(selection, graphql.FieldNode):
                selection, more = hoist(selection, root)
                definitions += more
            selections.append(selection)
        selection_set = _with(operation.selection_set, selections=tuple(selections))
        operations.append(
            _with(
                operation,
                selection_set=selection_set,
                variable_definitions=tuple(definitions),
            )
        )
    return graphql.print_ast(_with(document, definitions=tuple(operations))), variables


# ---------------------------------------------------------------------------------------------
# Posting and checking.


@dataclasses.dataclass
class Fuzzer:
    api: Client
    shop: Shop
    field: str
    # A digest of the current state, while nothing may have written since it was taken.
    known: Snapshot | None = None
    examples: int = 0
    requests: int = 0
    refused: int = 0

    async def check(self, query: str, variables: dict[str, Any]) -> None:
        self.examples += 1
        for caller, who in CALLERS:
            await self.post(caller, self.shop.tokens[who] if who else None, query, variables)

    async def post(
        self, caller: str, token: str | None, query: str, variables: dict[str, Any]
    ) -> dict[str, Any]:
        before = self.known if self.known is not None else await table_snapshot(self.shop.engine)
        self.known = None
        headers = {"authorization": f"Bearer {token}"} if token else {}
        payload = {"query": query, "variables": variables}
        response = await self.api.http.post(self.api.url, json=payload, headers=headers)
        self.requests += 1
        where = f"caller={caller}\nquery={query}\nvariables={json.dumps(variables)}\n"
        body = clean(response, where)
        if not refused(body):
            return body
        self.refused += 1
        after = await table_snapshot(self.shop.engine)
        changed = sorted(t for t in after if after[t] != before.get(t))
        assert not changed, f"refused request wrote {changed}\n{where}response={response.text}"
        self.known = after
        return body


def clean(response: httpx.Response, where: str) -> dict[str, Any]:
    """No 5xx, a JSON object, no stack trace, coded errors, no masked unexpected error."""
    shown = f"{where}status={response.status_code}\nresponse={response.text[:2000]}"
    assert response.status_code < 500, shown
    assert "Traceback (most recent call last)" not in response.text, shown
    try:
        body = response.json()
    except ValueError:
        pytest.fail(f"response is not JSON\n{shown}")
    assert isinstance(body, dict), shown
    assert "data" in body or "errors" in body, shown
    for error in body.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        assert isinstance(code, str), f"error without extensions.code\n{shown}"
        assert code != "INTERNAL_SERVER_ERROR", shown
        assert error.get("message") != "Unexpected error.", shown
    return body


def refused(body: dict[str, Any]) -> bool:
    """A refusal of the request itself or of its root field (not of a nested field)."""
    return any(
        len(error.get("path") or []) <= 1 and error["extensions"]["code"] in REFUSALS
        for error in body.get("errors") or []
    )


# ---------------------------------------------------------------------------------------------
# The tests.


def operations(kind: str, field: str, scalars: Any) -> st.SearchStrategy[str]:
    """Mostly valid operations; one in four breaks the schema once (a wrong type, a missing
    required argument...), where the field has arguments to break."""
    build = queries if kind == "query" else mutations
    valid = build(SCHEMA, fields=[field], custom_scalars=scalars)
    root = ROOTS[kind]
    if root is None or not root.fields[field].args:
        return valid
    invalid = build(SCHEMA, fields=[field], custom_scalars=scalars, mode=Mode.NEGATIVE)
    strategy: st.SearchStrategy[str] = weighted((3, valid), (1, invalid))
    return strategy


@pytest.mark.parametrize(("kind", "field"), FIELDS, ids=[f"{k}.{f}" for k, f in FIELDS])
async def test_fuzz_field(kind: str, field: str, api: Client, shop: Shop) -> None:
    strategy = operations(kind, field, scalar_strategies(await build_world(api, shop)))
    fuzzer = Fuzzer(api, shop, field)
    loop = asyncio.get_running_loop()

    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=False,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(query=strategy, hoist=st.booleans())
    def run(query: str, hoist: bool) -> None:
        query, variables = as_variables(query) if hoist else (query, {})
        asyncio.run_coroutine_threadsafe(fuzzer.check(query, variables), loop).result(timeout=120)

    await asyncio.to_thread(run)
    assert fuzzer.examples > 0
    assert fuzzer.requests == fuzzer.examples * len(CALLERS)


def spread_heavy(operation: str, spreads: list[int]) -> tuple[str, int]:
    """`operation`'s selections moved into the last of a chain of fragments, fragment i
    spreading fragment i+1 `spreads[i]` times; and its fields once spread."""
    [definition] = graphql.parse(operation).definitions
    assert isinstance(definition, graphql.OperationDefinitionNode)
    root = ROOTS[definition.operation.value]
    assert root is not None
    own: list[graphql.FieldNode] = []

    class Fields(graphql.Visitor):
        def enter_field(self, node: graphql.FieldNode, *_: Any) -> None:
            own.append(node)

    graphql.visit(definition, Fields())
    body = graphql.print_ast(definition.selection_set)
    chain = [
        f"fragment F{i} on {root.name} {{ {' '.join([f'...F{i + 1}'] * n)} }}"
        for i, n in enumerate(spreads)
    ]
    chain.append(f"fragment F{len(spreads)} on {root.name} {body}")
    text = f"{definition.operation.value} {{ ...F0 }}\n" + "\n".join(chain)
    expanded = len(own)
    for n in spreads:
        expanded *= n
    return text, expanded


async def test_fuzz_spread_heavy_documents(api: Client, shop: Shop) -> None:
    scalars = scalar_strategies(await build_world(api, shop))
    fuzzer = Fuzzer(api, shop, "spread-heavy")
    loop = asyncio.get_running_loop()
    seen = {"over": 0, "under": 0}
    by_field = {
        name: (queries if kind == "query" else mutations)(
            SCHEMA, fields=[name], custom_scalars=scalars
        )
        for kind, name in FIELDS
        # One session posts them all: a logout would leave the rest anonymous, whose limits
        # are tighter.
        if name != "logout"
    }

    @settings(
        max_examples=MAX_EXAMPLES * 2,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=False,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        operation=st.sampled_from(sorted(by_field)).flatmap(lambda name: by_field[name]),
        spreads=st.lists(st.integers(1, 3), min_size=1, max_size=60),
    )
    def run(operation: str, spreads: list[int]) -> None:
        text, expanded = spread_heavy(operation, spreads)
        over = expanded > SIGNED_IN.fields
        seen["over" if over else "under"] += 1
        token = shop.tokens["ada"]
        future = asyncio.run_coroutine_threadsafe(fuzzer.post("admin", token, text, {}), loop)
        body = future.result(timeout=120)
        if over:
            assert body.get("data") is None, text
            messages = [e["message"] for e in body["errors"]]
            assert any(f"limit of {SIGNED_IN.fields:,} fields" in m for m in messages), (text, body)

    await asyncio.to_thread(run)
    # Both sides of the limit were met.
    assert seen["over"] > 0 and seen["under"] > 0, seen
