"""Keyset pagination helpers for Relay cursor connections."""

import base64
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from strawberry import relay

from graph.errors import bad_request

DEFAULT_PAGE = 20
MAX_PAGE = 100

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


def decode_cursor(cursor: str | None, arity: int) -> list[Any] | None:
    if cursor is None:
        return None
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except ValueError:
        key = None
    if not isinstance(key, list) or len(key) != arity:
        raise bad_request("'after' is not a cursor of this connection.")
    return key


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
