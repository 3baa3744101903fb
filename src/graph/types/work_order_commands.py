"""Who may use each work order command: its rule, which its mutation declares
(`allowed(ORDER_RULES[...])`), and, of the commands an order's state allows now, those
the caller may use (WorkOrder.allowedActions)."""

from db.reads import proof_makers_of
from domain.enums import TaskStatus, WorkOrderCommand
from domain.routing import on_order
from graph.context import Info
from graph.permissions import READS_LEDGER, SALES, UPLOADS_PROOFS, passes, viewer_of

# The rule of each work order command: its mutation declares it from here, and
# allowedActions offers only what the caller passes.
ORDER_RULES = {
    WorkOrderCommand.CANCEL: SALES,
    WorkOrderCommand.EDIT_QUOTE: SALES,
    WorkOrderCommand.RESCHEDULE: SALES,
    WorkOrderCommand.HOLD: SALES,
    WorkOrderCommand.RESUME: SALES,
    WorkOrderCommand.EDIT_DETAILS: SALES,
    WorkOrderCommand.CHANGE_DEPARTMENTS: SALES,
    WorkOrderCommand.CHARGE_QUOTE: READS_LEDGER,
    # Sales and admins upload to any order; a production member only to an order with a
    # task of a department of theirs that makes the proofs (`_makes_proofs`, as
    # uploadProof's statement decides).
    WorkOrderCommand.UPLOAD_PROOF: UPLOADS_PROOFS,
    WorkOrderCommand.DECIDE_PROOF: SALES,
    WorkOrderCommand.LINK_CUSTOMER: SALES,
}


async def offered(
    info: Info, work_order_id: int, now: list[WorkOrderCommand]
) -> list[WorkOrderCommand]:
    """Of the commands the work order's state allows `now`, those the caller may use."""
    usable = [command for command in now if passes(ORDER_RULES[command], info)]
    if WorkOrderCommand.UPLOAD_PROOF in usable and not (
        passes(SALES, info) or await _makes_proofs(info, work_order_id)
    ):
        usable.remove(WorkOrderCommand.UPLOAD_PROOF)
    return usable


async def _makes_proofs(info: Info, work_order_id: int) -> bool:
    """Whether the caller is a member of a department that makes the proofs with a task
    on this order: whom uploadProof's statement lets upload besides Sales and admins."""
    loaders = info.context.loaders
    makers = proof_makers_of(await loaders.all_departments())
    mine = viewer_of(info).member_department_ids
    return any(
        t.department_id in makers and t.department_id in mine and on_order(TaskStatus(t.status))
        for t in await loaders.tasks_of_work_order.load(work_order_id)
    )
