"""approveProof and requestProofChanges (Sales and admins): the customer's decision on a
proof version, given to Sales and recorded as such, with who recorded it."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import proofs, reads
from db.proof_decisions import decide
from domain import validation
from domain.enums import ProofDecider
from domain.proof_decisions import decision
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import SALES, allowed, viewer_of
from graph.types.proofs import Proof
from graph.types.work_orders import WorkOrder


@strawberry.input
class ApproveProofInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The work order whose proof the customer approved."
    )
    version: int = strawberry.field(description="The version the customer approved.")
    approver_name: str = strawberry.field(description="Who approved it, as the customer said.")


@strawberry.input
class RequestProofChangesInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The work order whose proof the customer sent back."
    )
    version: int = strawberry.field(description="The version the customer sent back.")
    comment: str = strawberry.field(description="What the customer wants changed.")
    approver_name: str = strawberry.field(description="Who asked, as the customer said.")


@strawberry.type
class DecideProofPayload:
    proof: Proof | None = strawberry.field(default=None, description="The version decided.")
    work_order: WorkOrder | None = None
    changed: bool = strawberry.field(
        default=False,
        description="False: the version already had this decision (nothing written).",
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


async def _decide(
    info: Info,
    work_order_gid: relay.GlobalID,
    version: int,
    approve: bool,
    comment: str | None,
    name: str,
) -> DecideProofPayload:
    async def work(conn: AsyncConnection) -> DecideProofPayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, work_order_gid, "WorkOrder", "workOrderId")
            # Checked again where it is written: here, with the order's id, all at once.
            check(decision, approve, name, comment, ProofDecider.SALES)
        done = await decide(
            conn,
            work_order_id=work_order_id,
            version=version,
            approve=approve,
            comment=comment,
            decided_by_name=name,
            sales_user_id=viewer_of(info).user_id,
            customer_link_id=None,
        )
        [proof] = await proofs.proofs(conn, [done.proof_id])
        [order] = await reads.work_orders(conn, [work_order_id])
        return DecideProofPayload(
            proof=Proof.of(proof), work_order=WorkOrder.of(order), changed=done.changed
        )

    return await mutate(info, DecideProofPayload, work)


@strawberry.mutation(
    extensions=allowed(SALES),
    description="Record the customer's approval of a proof version, given to Sales: only "
    "the latest version while it waits (an older one is PROOF_SUPERSEDED). The tasks that "
    "waited for it enter their queues. The same approval again changes nothing; a version "
    "sent back already is ALREADY_DECIDED.",
)
async def approve_proof(info: Info, input: ApproveProofInput) -> DecideProofPayload:
    return await _decide(info, input.work_order_id, input.version, True, None, input.approver_name)


@strawberry.mutation(
    extensions=allowed(SALES),
    description="Record the customer's request for changes to a proof version, given to "
    "Sales: the order's Design task is reopened with the comment as its reason (or added). "
    "Only the latest version while it waits; the same request again changes nothing; a "
    "version approved already is ALREADY_DECIDED.",
)
async def request_proof_changes(info: Info, input: RequestProofChangesInput) -> DecideProofPayload:
    return await _decide(
        info, input.work_order_id, input.version, False, input.comment, input.approver_name
    )
