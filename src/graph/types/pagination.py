"""Keyset pagination helpers for Relay cursor connections."""

import base64
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from strawberry import relay

from api.errors import bad_request
from db.reads import OrderKey, QueueKey
from db.rows import WorkOrderRow

DEFAULT_PAGE = 20
MAX_PAGE = 100
# Ours are under 100 characters; a longer one is refused before it is decoded.
MAX_CURSOR_LENGTH = 200

T = TypeVar("T")
N = TypeVar("N", bound=relay.Node)


def page_size(first: int | None) -> int:
    if first is None:
        return DEFAULT_PAGE
    if not 0 <= first <= MAX_PAGE:
        raise bad_request(f"'first' must be between 0 and {MAX_PAGE}, got {first}.")
    return first


def encode_cursor(key: Sequence[Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode()


def _decode(cursor: str, arity: int) -> list[Any]:
    if len(cursor) > MAX_CURSOR_LENGTH:
        raise bad_request(f"'after' is longer than any cursor ({MAX_CURSOR_LENGTH} characters).")
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, RecursionError):
        key = None
    if not isinstance(key, list) or len(key) != arity:
        raise bad_request("'after' is not a cursor of this connection.")
    return key


def _positive_int(value: Any) -> int:
    if type(value) is not int or not 0 < value < 2**63:
        raise bad_request("'after' is not a cursor of this connection.")
    return value


def decode_id_cursor(cursor: str | None) -> int | None:
    """Cursor of a connection ordered by id: the last id seen."""
    if cursor is None:
        return None
    return _positive_int(_decode(cursor, 1)[0])


def order_cursor_key(row: WorkOrderRow, by_due: bool) -> list[Any]:
    """A work order's place in its list: its id, and by due date its due date first."""
    if not by_due:
        return [row.id]
    return [row.due_at.isoformat() if row.due_at else None, row.id]


def decode_order_cursor(cursor: str | None, by_due: bool) -> OrderKey | None:
    """Cursor of a list of work orders (order_cursor_key): a cursor of the other order
    is refused, not misread."""
    if cursor is None:
        return None
    if not by_due:
        return OrderKey(_positive_int(_decode(cursor, 1)[0]))
    due, order_id = _decode(cursor, 2)
    return OrderKey(_positive_int(order_id), None if due is None else _moment(due))


def encode_queue_cursor(key: QueueKey) -> list[Any]:
    return [key.lane, key.rush, key.due.isoformat(), key.since.isoformat(), key.id]


def decode_queue_cursor(cursor: str | None) -> QueueKey | None:
    """Cursor of a queue: the place (reads.QueueKey) of the last task seen."""
    if cursor is None:
        return None
    lane, rush, due, since, task_id = _decode(cursor, 5)
    if lane not in (0, 1) or type(lane) is not int or rush not in (0, 1) or type(rush) is not int:
        raise bad_request("'after' is not a cursor of this connection.")
    return QueueKey(lane, rush, _moment(due), _moment(since), _positive_int(task_id))


def _moment(value: Any) -> datetime:
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise bad_request("'after' is not a cursor of this connection.")
    return when


def build_edges(
    rows: Sequence[T],
    limit: int,
    after: object,
    key: Callable[[T], Sequence[Any]],
    node: Callable[[T], N],
) -> tuple[list[relay.Edge[N]], relay.PageInfo]:
    """`rows` holds up to limit + 1 rows: the extra one only says there is a next page."""
    shown = rows[:limit]
    edges = [relay.Edge(cursor=encode_cursor(key(r)), node=node(r)) for r in shown]
    info = relay.PageInfo(
        has_next_page=len(rows) > limit,
        has_previous_page=after is not None,
        start_cursor=edges[0].cursor if edges else None,
        end_cursor=edges[-1].cursor if edges else None,
    )
    return edges, info
