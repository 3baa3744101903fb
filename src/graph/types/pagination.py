"""Keyset pagination helpers for Relay cursor connections.

Every connection pages both ways: forward with `first`/`after`, backward with
`last`/`before`. A backward page is the same keyset read in reverse order (from the
cursor towards the start), flipped back before it is shown.
"""

import base64
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypeVar

import strawberry
from graphql import GraphQLError
from strawberry import relay

from api.errors import bad_request
from db.reads import OrderKey, QueueKey
from db.rows import WorkOrderRow
from domain import validation
from domain.errors import DomainError

DEFAULT_PAGE = 20
MAX_PAGE = 100
# Ours are under 100 characters; a longer one is refused before it is decoded.
MAX_CURSOR_LENGTH = 200
MAX_SEARCH = 100
# The most ids `nodes` reads at once.
MAX_NODES = 100

T = TypeVar("T")
N = TypeVar("N", bound=relay.Node)

if TYPE_CHECKING:
    from graph.context import Info


class HasId(Protocol):
    @property
    def id(self) -> int: ...


Keyed = TypeVar("Keyed", bound=HasId)


Last = Annotated[
    int | None,
    strawberry.argument(
        description=f"Page backward: at most this many items (0 to {MAX_PAGE}, default "
        f"{DEFAULT_PAGE}) just before `before`, or at the end without it; not with `first` "
        "or `after`."
    ),
]
Before = Annotated[
    str | None,
    strawberry.argument(
        description="Page backward from this cursor (a `startCursor` of this connection): "
        "the items just before it; not with `first` or `after`."
    ),
]
# A queue's filter, the root `queue`'s and `Department.queue`'s alike.
QueueSearch = Annotated[
    str | None,
    strawberry.argument(
        description="Only tasks whose order number, customer name or any detail contains "
        "this text (any case)."
    ),
]


def page_size(first: int | None, name: str = "first") -> int:
    if first is None:
        return DEFAULT_PAGE
    if not 0 <= first <= MAX_PAGE:
        raise bad_request(f"'{name}' must be between 0 and {MAX_PAGE}, got {first}.")
    return first


@dataclass(frozen=True)
class Window:
    """What a page asks for: `limit` items from `cursor` on, read backward (towards the
    start of the list) when `backward`."""

    limit: int
    cursor: str | None
    backward: bool

    @property
    def argument(self) -> str:
        return "before" if self.backward else "after"


def window(
    first: int | None, after: str | None, last: int | None = None, before: str | None = None
) -> Window:
    """The page the Relay arguments ask for. One direction per page: the spec's mix of
    both (a slice between two cursors, `first` and `last` at once) is refused, as no
    client pages that way."""
    if (first is not None or after is not None) and (last is not None or before is not None):
        raise bad_request(
            "Page forward ('first', 'after') or backward ('last', 'before'), not both at once."
        )
    if last is not None or before is not None:
        return Window(page_size(last, "last"), before, backward=True)
    return Window(page_size(first), after, backward=False)


def encode_cursor(key: Sequence[Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode()


def _not_a_cursor(page: Window) -> GraphQLError:
    return bad_request(f"'{page.argument}' is not a cursor of this connection.")


def _decode(page: Window, arity: int) -> list[Any]:
    cursor = page.cursor or ""
    if len(cursor) > MAX_CURSOR_LENGTH:
        raise bad_request(
            f"'{page.argument}' is longer than any cursor ({MAX_CURSOR_LENGTH} characters)."
        )
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, RecursionError):
        key = None
    if not isinstance(key, list) or len(key) != arity:
        raise _not_a_cursor(page)
    return key


def _positive_int(value: Any, page: Window) -> int:
    if type(value) is not int or not 0 < value < 2**63:
        raise _not_a_cursor(page)
    return value


def decode_id_cursor(page: Window) -> int | None:
    """Cursor of a connection ordered by id: the id of the item it marks."""
    if page.cursor is None:
        return None
    return _positive_int(_decode(page, 1)[0], page)


def order_cursor_key(row: WorkOrderRow, by_due: bool) -> list[Any]:
    """A work order's place in its list: its id, and by due date its due date first."""
    if not by_due:
        return [row.id]
    return [row.due_at.isoformat() if row.due_at else None, row.id]


def decode_order_cursor(page: Window, by_due: bool) -> OrderKey | None:
    """Cursor of a list of work orders (order_cursor_key): a cursor of the other order
    is refused, not misread."""
    if page.cursor is None:
        return None
    if not by_due:
        return OrderKey(_positive_int(_decode(page, 1)[0], page))
    due, order_id = _decode(page, 2)
    return OrderKey(_positive_int(order_id, page), None if due is None else _moment(due, page))


def encode_queue_cursor(key: QueueKey) -> list[Any]:
    return [key.lane, key.rush, key.due.isoformat(), key.since.isoformat(), key.id]


def decode_queue_cursor(page: Window) -> QueueKey | None:
    """Cursor of a queue: the place (reads.QueueKey) of the task it marks."""
    if page.cursor is None:
        return None
    lane, rush, due, since, task_id = _decode(page, 5)
    if lane not in (0, 1) or type(lane) is not int or rush not in (0, 1) or type(rush) is not int:
        raise _not_a_cursor(page)
    return QueueKey(
        lane, rush, _moment(due, page), _moment(since, page), _positive_int(task_id, page)
    )


def _moment(value: Any, page: Window) -> datetime:
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise _not_a_cursor(page)
    return when


def build_edges(
    rows: Sequence[T],
    page: Window,
    key: Callable[[T], Sequence[Any]],
    node: Callable[[T], N],
) -> tuple[list[relay.Edge[N]], relay.PageInfo]:
    """`rows` holds up to limit + 1 rows in the direction read: the extra one only says
    there are more that way. The other way, there are more when the page starts from a
    cursor (the item it marks, at least), as the spec lets a server say cheaply."""
    shown = rows[: page.limit]
    if page.backward:
        shown = shown[::-1]
    more = len(rows) > page.limit
    edges = [relay.Edge(cursor=encode_cursor(key(r)), node=node(r)) for r in shown]
    info = relay.PageInfo(
        has_next_page=page.cursor is not None if page.backward else more,
        has_previous_page=more if page.backward else page.cursor is not None,
        start_cursor=edges[0].cursor if edges else None,
        end_cursor=edges[-1].cursor if edges else None,
    )
    return edges, info


async def by_id(
    info: "Info",
    page: Window,
    read: Callable[..., Awaitable[Sequence[Keyed]]],
    node: Callable[[Keyed], N],
    **filters: Any,
) -> tuple[list[relay.Edge[N]], relay.PageInfo]:
    """A page of a list kept in id order: `read(conn, limit=, after_id=, backward=,
    **filters)` reads it."""
    async with info.context.read() as conn:
        rows = await read(
            conn,
            limit=page.limit + 1,
            after_id=decode_id_cursor(page),
            backward=page.backward,
            **filters,
        )
    return build_edges(rows, page, lambda r: [r.id], node)


def search_pattern(value: str | None) -> str | None:
    """A list's `search` argument as a LIKE pattern (validation.search)."""
    try:
        return validation.search(value, MAX_SEARCH)
    except DomainError as error:
        raise bad_request(error.message) from None
