"""Keyset pagination helpers for Relay cursor connections."""

import base64
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from strawberry import relay

from graph.errors import bad_request

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


def decode_queue_cursor(cursor: str | None) -> tuple[int, datetime, int] | None:
    """Cursor of a queue: (lane, since, id) of the last task seen."""
    if cursor is None:
        return None
    lane, since, task_id = _decode(cursor, 3)
    try:
        when = datetime.fromisoformat(since) if isinstance(since, str) else None
    except ValueError:
        when = None
    if lane not in (0, 1) or type(lane) is not int or when is None or when.tzinfo is None:
        raise bad_request("'after' is not a cursor of this connection.")
    return lane, when, _positive_int(task_id)


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
