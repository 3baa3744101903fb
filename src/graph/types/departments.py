"""Departments."""

from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry import relay

from db.rows import DepartmentRow
from domain.enums import DepartmentKind
from domain.routing import can_follow, followed
from domain.workflow import KindChoice, chosen_per_order, has_queue
from graph.context import Info
from graph.permissions import SEES_QUEUE, allowed
from graph.types import enums as _registered  # noqa: F401  (makes the enums GraphQL enums)
from graph.types.loading import nodes_of
from graph.types.pagination import Before, Last, QueueSearch, window

if TYPE_CHECKING:
    from graph.types.queues import QueueConnection


@strawberry.type(
    description="A part of the shop: Sales, Accounts, a production step, or delivery. Production "
    "and delivery departments have a queue of tasks."
)
class Department(relay.Node):
    id: relay.NodeID[int]
    code: str = strawberry.field(
        description="A short unique code (e.g. PRINT), used in arguments and inputs."
    )
    name: str = strawberry.field(description="The name shown to people.")
    kind: DepartmentKind = strawberry.field(description="What the department does.")
    gates_delivery: bool = strawberry.field(
        description="Whether the delivery task waits for this department's task to complete."
    )
    needs_approved_proof: bool = strawberry.field(
        description="On an order that requires a proof, its task waits until the customer "
        "approves the latest proof version (production departments only)."
    )
    _follows: strawberry.Private[list[int]]

    @strawberry.field(
        description="The departments it follows: on an order, its task waits until their "
        "tasks are completed (through departments the order lacks). The delivery "
        "department follows every department that gates delivery."
    )
    async def follows(self, info: Info) -> list["Department"]:
        departments = {d.id: d for d in await info.context.loaders.all_departments()}
        gating = [d.id for d in departments.values() if d.gates_delivery]
        ids = followed(DepartmentKind(self.kind), self._follows, gating)
        return [Department.of(departments[i]) for i in ids if i in departments]

    @strawberry.field(
        description="Whether it may follow others and be followed (setDepartmentFollows): "
        "production departments."
    )
    def can_follow(self) -> bool:
        return can_follow(DepartmentKind(self.kind))

    @strawberry.field(description="Whether its work comes as tasks in a queue.")
    def has_queue(self) -> bool:
        return has_queue(DepartmentKind(self.kind))

    @strawberry.field(
        description="Whether a new work order names it among its departments (each gets a "
        "task); the delivery department gets a task on every order without being named."
    )
    def chosen_per_order(self) -> bool:
        return chosen_per_order(DepartmentKind(self.kind))

    @strawberry.field(
        extensions=allowed(SEES_QUEUE),
        description="Its queue, as `queue` with its code reads it (the same order, "
        "arguments and access): for a pagination fragment refetched through `node`.",
    )
    async def queue(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        search: QueueSearch = None,
        last: Last = None,
        before: Before = None,
    ) -> Annotated["QueueConnection", strawberry.lazy("graph.types.queues")]:
        from graph.types.queues import read_queue

        return await read_queue(info, self.id, window(first, after, last, before), search)

    @classmethod
    def of(cls, row: DepartmentRow) -> "Department":
        return cls(
            id=row.id,
            code=row.code,
            name=row.name,
            kind=row.kind,
            gates_delivery=row.gates_delivery,
            needs_approved_proof=row.needs_approved_proof,
            _follows=row.follows,
        )

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["Department | None"]:
        return await nodes_of(cls.of, info.context.loaders.department, node_ids)


@strawberry.type(description="A kind a new department may be given now, and what goes with it.")
class DepartmentKindChoice:
    kind: DepartmentKind = strawberry.field(description="The kind a new department may be given.")
    available: bool = strawberry.field(
        description="False for DELIVERY once there is one: there is exactly one."
    )
    can_gate_delivery: bool = strawberry.field(
        description="Whether a department of this kind may hold back delivery (PRODUCTION only)."
    )
    gates_delivery_by_default: bool = strawberry.field(
        description="Whether a new department of this kind holds back delivery unless told "
        "otherwise."
    )

    @classmethod
    def of(cls, choice: KindChoice) -> "DepartmentKindChoice":
        return cls(
            kind=choice.kind,
            available=choice.available,
            can_gate_delivery=choice.can_gate_delivery,
            gates_delivery_by_default=choice.gates_delivery_by_default,
        )
