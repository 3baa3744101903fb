"""createDepartment (admins)."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from db import people
from domain import validation
from domain.enums import DepartmentKind
from domain.enums import DepartmentKind as Kind
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.departments import Department


@strawberry.input
class CreateDepartmentInput:
    code: str = strawberry.field(description="Lowercase slug, unique.")
    name: str = strawberry.field(description="The name shown to people.")
    kind: DepartmentKind = strawberry.field(
        description="What the department does; there is at most one DELIVERY department."
    )
    gates_delivery: bool | None = strawberry.field(
        default=None,
        description="Defaults to true for PRODUCTION (false for e.g. Design); only "
        "PRODUCTION departments can gate delivery.",
    )
    needs_approved_proof: bool = strawberry.field(
        default=False,
        description="On an order that requires a proof, its task waits for the customer's "
        "approval of the latest proof (PRODUCTION departments only, e.g. Print).",
    )


@strawberry.type
class CreateDepartmentPayload:
    department: Department | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(extensions=allowed(ADMINS), description="Makes a department.")
async def create_department(info: Info, input: CreateDepartmentInput) -> CreateDepartmentPayload:
    async def work(conn: AsyncConnection) -> CreateDepartmentPayload:
        with validation.every_problem() as check:
            code = check(validation.slug, input.code)
            name = check(validation.text, input.name, "name")
        row = await people.create_department(
            conn,
            code,
            name,
            Kind(input.kind),
            input.gates_delivery,
            input.needs_approved_proof,
        )
        return CreateDepartmentPayload(department=Department.of(row))

    return await mutate(info, CreateDepartmentPayload, work)
