"""What the object types share: rows of `Node.resolve_nodes` and of a relation that must exist."""

from collections.abc import Callable, Iterable
from typing import TypeVar

from strawberry.dataloader import DataLoader

from api.ids import parse_pk
from db.table_row import TableRow

N = TypeVar("N")
R = TypeVar("R", bound=TableRow)


async def node_rows(loader: DataLoader[int, R | None], node_ids: Iterable[str]) -> list[R | None]:
    """The rows of `Node.resolve_nodes`, in one batch, None where absent."""
    return await loader.load_many([parse_pk(i) or 0 for i in node_ids])


async def nodes_of(
    make: Callable[[R], N], loader: DataLoader[int, R | None], node_ids: Iterable[str]
) -> list[N | None]:
    return [make(r) if r else None for r in await node_rows(loader, node_ids)]


def required(row: R | None, make: Callable[[R], N]) -> N:
    assert row is not None, "a foreign key pointed at nothing"
    return make(row)
