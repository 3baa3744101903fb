"""`node` and `nodes`: any object that implements Node, by its id, read through its own
type (and so its type's rule)."""

from typing import Annotated

import strawberry
from graphql import GraphQLError
from strawberry import relay

from api.errors import TopLevelCode, bad_request
from api.ids import decode_id
from graph.context import Info
from graph.permissions import STAFF, allowed
from graph.types.customers import Customer
from graph.types.departments import Department
from graph.types.ledger import LedgerEntry
from graph.types.pagination import MAX_NODES
from graph.types.people import User
from graph.types.proofs import Proof
from graph.types.tasks import DepartmentTask
from graph.types.tokens import Token
from graph.types.work_orders import WorkOrder

NODE_TYPES: dict[str, type[relay.Node]] = {
    t.__name__: t
    for t in (WorkOrder, DepartmentTask, Department, User, Customer, LedgerEntry, Token, Proof)
}


def _pk(id: relay.GlobalID) -> int | None:
    """The key of an id of one of NODE_TYPES; None for any other."""
    return decode_id(id, id.type_name) if id.type_name in NODE_TYPES else None


async def _of_type(info: Info, type_name: str, pks: list[int]) -> list[relay.Node | None]:
    nodes = NODE_TYPES[type_name].resolve_nodes(info=info, node_ids=[str(pk) for pk in pks])
    # Our node types all resolve asynchronously, through the request's dataloaders.
    return list(await nodes)  # type: ignore[misc]


@strawberry.field(
    extensions=allowed(STAFF),
    description="Any object by its id (WorkOrder, DepartmentTask, Department, User, Customer, "
    "LedgerEntry, Token, ...); null for an id that names nothing, or an account or token the "
    "caller may not know of.",
)
async def node(
    info: Info,
    id: Annotated[
        relay.GlobalID,
        strawberry.argument(description="The id of any object that implements Node."),
    ],
) -> relay.Node | None:
    pk = _pk(id)
    if pk is None:
        return None
    (found,) = await _of_type(info, id.type_name, [pk])
    return found


@strawberry.field(
    extensions=allowed(STAFF),
    description=f"The objects with these ids (at most {MAX_NODES}), in their order: "
    "null in place of an id that names nothing or what the caller may not see. Read in "
    "one batch per type.",
)
async def nodes(
    info: Info,
    ids: Annotated[
        list[relay.GlobalID],
        strawberry.argument(description="The ids of any objects that implement Node."),
    ],
) -> list[relay.Node | None]:
    if len(ids) > MAX_NODES:
        raise bad_request(f"'ids' holds {len(ids)} ids; at most {MAX_NODES} at once.")
    wanted: dict[str, list[tuple[int, int]]] = {}
    for place, gid in enumerate(ids):
        pk = _pk(gid)
        if pk is not None:
            wanted.setdefault(gid.type_name, []).append((place, pk))
    found: list[relay.Node | None] = [None] * len(ids)
    for type_name, places in wanted.items():
        try:
            of_type = await _of_type(info, type_name, [pk for _, pk in places])
        except GraphQLError as error:
            # A type whose rule the caller fails (`node` says FORBIDDEN): not seen here.
            if (error.extensions or {}).get("code") != TopLevelCode.FORBIDDEN:
                raise
            continue
        for (place, _), one in zip(places, of_type, strict=True):
            found[place] = one
    return found
