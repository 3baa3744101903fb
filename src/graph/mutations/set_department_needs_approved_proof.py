"""setDepartmentNeedsApprovedProof (admins): whether a department's tasks wait for the
customer's approval of a proof."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from db.routing import set_needs_approved_proof
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import ADMINS, allowed
from graph.types.departments import Department


@strawberry.input
class SetDepartmentNeedsApprovedProofInput:
    department_code: str = strawberry.field(description="The production department to change.")
    needs_approved_proof: bool = strawberry.field(
        description="True: on orders that require a proof, its tasks wait until the "
        "customer approves the latest version (PRODUCTION departments only)."
    )


@strawberry.type
class SetDepartmentNeedsApprovedProofPayload:
    department: Department | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ADMINS),
    description="Say whether a department's tasks wait for the customer's approval of the "
    "order's latest proof (on orders that require one). Open orders follow at once: "
    "pending tasks that now wait leave their queues; started ones keep going.",
)
async def set_department_needs_approved_proof(
    info: Info, input: SetDepartmentNeedsApprovedProofInput
) -> SetDepartmentNeedsApprovedProofPayload:
    async def work(conn: AsyncConnection) -> SetDepartmentNeedsApprovedProofPayload:
        row = await set_needs_approved_proof(
            conn, input.department_code, input.needs_approved_proof
        )
        return SetDepartmentNeedsApprovedProofPayload(department=Department.of(row))

    return await mutate(info, SetDepartmentNeedsApprovedProofPayload, work)
