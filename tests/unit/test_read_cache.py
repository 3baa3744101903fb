"""The read cache's parts without a database (graph/read_cache.py): when two snapshots say
the database is unchanged, which documents it may keep answers for, that the fields it
trusts exist and none of their resolvers asks the time, and its bound in bytes. Against a
real server and database: tests/integration/test_read_cache.py."""

import inspect

import pytest
from graphql import parse

from db.events import Snapshot
from graph.keeping import Keeping
from graph.permissions import IsSelf, SelfOrAdmin
from graph.read_cache import (
    CLOCK_ARGUMENTS,
    NAMES_THE_PERSON,
    READS_DATABASE_ALONE,
    Kept,
    ReadCache,
    keeping,
)
from graph.schema import schema
from graph.types.people import User

# (earlier, later, unchanged): PostgreSQL's `xmin:xmax:xip,...`.
SNAPSHOTS = [
    ("10:12:10,11", "10:12:10,11", True),  # nothing completed
    ("10:12:", "12:12:", True),  # xmin moved up past nothing new: the same transactions
    ("10:12:10,11", "10:12:10,11,", True),
    ("10:12:10,11", "11:12:11", False),  # 10 completed (committed or not: either counts)
    ("10:12:10,11", "10:13:10,11,12", False),  # 12 completed: xmax moved
    ("10:12:", "10:14:12,13", False),  # 12 and 13 began; xmax moved as one completed
    ("10:12:10", "10:12:10,11", True),  # 11 running now, above the old xmax: not seen
]


@pytest.mark.parametrize(("earlier", "later", "unchanged"), SNAPSHOTS)
def test_a_snapshot_is_unchanged_while_no_transaction_completes(
    earlier: str, later: str, unchanged: bool
) -> None:
    assert Snapshot.parse(earlier).unchanged_at(Snapshot.parse(later)) is unchanged


DASHBOARD = """query Page($first: Int!) {
  workOrders(first: $first) { edges { node { orderNumber status quote { amount currency }
    customer { name } createdBy { name } history { action actor { name } }
    deliveryTask { availableAt }
    tasks { status availableAt department { code name } pickedUpBy { name departments { code } }
      history { action actor { name } } } } }
    pageInfo { hasNextPage endCursor } } }"""

NEVER, BY_RIGHTS, BY_PERSON = Keeping.NEVER, Keeping.BY_RIGHTS, Keeping.BY_PERSON
# (document, whether its answers may be kept, and for whom)
DOCUMENTS = [
    (DASHBOARD, BY_RIGHTS),
    ("{ me { name departments { code } } }", BY_PERSON),
    ("{ workOrder(id: 1) { status } viewer: me { name } }", BY_PERSON),
    ("{ workOrder(id: 1) { createdBy { name email } } }", BY_PERSON),  # private to the person
    ('{ node(id: "x") { id } }', BY_PERSON),  # an account by id: oneself, or a department's
    ('{ workOrders(search: "acme") { edges { node { id __typename } } } }', BY_RIGHTS),
    (
        "query($id: ID!) { node(id: $id) { id ... on WorkOrder { status tasks { status } } } }",
        BY_PERSON,
    ),
    ("fragment F on DepartmentTask { status } { workOrder(id: 1) { tasks { ...F } } }", BY_RIGHTS),
    ("{ workOrders { edges { node { isLate } } } }", NEVER),  # the clock
    ("{ workOrders(late: true) { edges { node { id } } } }", NEVER),  # the clock, as a filter
    ("{ me { name } workOrder(id: 1) { tasks { inQueue } } }", NEVER),
    ("{ workOrder(id: 1) { tasks { allowedActions } } }", NEVER),
    ("fragment F on DepartmentTask { queueRank } { workOrder(id: 1) { tasks { ...F } } }", NEVER),
    ("{ myTokens { expired } }", NEVER),
    ("{ me { access } }", NEVER),  # only for oneself: not kept at all
    ('{ flowSummary(from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z") { tasks } }', NEVER),
    ("{ __schema { queryType { name } } }", NEVER),
    ('{ queue(department: "PRINT") { totalCount } }', NEVER),
]


@pytest.mark.parametrize(("document", "kept"), DOCUMENTS)
def test_answers_are_kept_for_documents_of_database_fields_alone(
    document: str, kept: Keeping
) -> None:
    assert keeping(schema._schema, None, parse(document)) is kept


# What a rule that reads who asks, not only their rights, says (api/rules.py).
PERSON_WORDS = ("sees_person", "owns_or_administers", "viewer.user_id")


def test_every_kept_field_whose_rules_read_the_person_is_kept_per_person() -> None:
    """Answers are kept per viewer's rights (`Viewer.rights`) unless the document asks for
    a field of NAMES_THE_PERSON: every kept field whose permission or resolver reads who
    asks is one, and so are `node` and `nodes`, which reach `User.resolve_nodes`."""
    converter = schema.config.name_converter
    reads_person = set()
    for type_name, fields in READS_DATABASE_ALONE.items():
        definition = schema.get_type_by_name(type_name)
        for field in getattr(definition, "fields", ()):
            name = converter.get_graphql_name(field)
            if name not in fields:
                continue
            permissions = [p for e in field.extensions for p in getattr(e, "permissions", ())]
            resolver = field.base_resolver
            source = inspect.getsource(resolver.wrapped_func) if resolver is not None else ""
            if any(isinstance(p, IsSelf | SelfOrAdmin) for p in permissions) or any(
                word in source for word in PERSON_WORDS
            ):
                reads_person.add((type_name, name))
    assert reads_person == {("User", "email"), ("User", "isAdmin")}
    assert reads_person <= NAMES_THE_PERSON
    assert "sees_person" in inspect.getsource(User.resolve_nodes)
    assert {("Query", "node"), ("Query", "nodes"), ("Query", "me")} <= NAMES_THE_PERSON


def test_every_trusted_field_exists() -> None:
    types = schema._schema.type_map
    for type_name, fields in READS_DATABASE_ALONE.items():
        assert type_name in types, type_name
        assert fields <= set(types[type_name].fields), type_name  # type: ignore[attr-defined]
    for (type_name, field), arguments in CLOCK_ARGUMENTS.items():
        assert field in READS_DATABASE_ALONE[type_name]
        assert arguments <= set(types[type_name].fields[field].args)  # type: ignore[attr-defined]


# What a resolver that reads the clock says: the Python clock, the checks built on it.
CLOCK_WORDS = ("now(", "_available(", "is_late(", "expired(", "due_notices(", "ageing")


def test_no_trusted_field_asks_the_time() -> None:
    """Its resolver's code, and the code of the methods of its own type that it calls,
    never name the clock: a field that did would be kept past the moment it changes."""
    converter = schema.config.name_converter
    checked = 0
    for type_name, fields in READS_DATABASE_ALONE.items():
        definition = schema.get_type_by_name(type_name)
        if definition is None or not hasattr(definition, "fields"):
            continue
        for field in definition.fields:
            if converter.get_graphql_name(field) not in fields or field.base_resolver is None:
                continue
            source = inspect.getsource(field.base_resolver.wrapped_func)
            assert not [w for w in CLOCK_WORDS if w in source], f"{type_name}.{field.name}"
            checked += 1
    assert checked >= 20


def test_the_cache_lets_the_least_recently_used_go_beyond_its_bytes() -> None:
    cache = ReadCache(size=1000)
    snapshot = Snapshot.parse("1:2:")
    for n in range(3):
        cache.put(("q", None, str(n).encode(), ()), Kept(snapshot, b"x", 400))
    assert len(cache) == 2 and cache.weight == 800
    assert cache.get(("q", None, b"0", ())) is None
    assert cache.get(("q", None, b"1", ())) is not None
    cache.put(("q", None, b"3", ()), Kept(snapshot, b"x", 400))
    assert cache.get(("q", None, b"2", ())) is None  # 1 was used since
    assert cache.get(("q", None, b"1", ())) is not None
    assert not cache.put(("q", None, b"4", ()), Kept(snapshot, b"x", 1001))
