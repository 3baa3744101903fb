"""startTask, finishTask, releaseTask, completeTask (admin override) and reopenTask.

All five are one move of the transition table (domain/transitions.py) through
the task's single transition function.
"""

from typing import TypeVar

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db.tasks import needs_transaction, transition_task
from domain import validation
from domain.enums import TaskAction
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import moves, viewer_of
from graph.types.tasks import DepartmentTask


@strawberry.type
class TaskMovePayload:
    task: DepartmentTask | None = None
    changed: bool = strawberry.field(
        default=False,
        description="False when nothing changed: the outcome already held (a repeated request).",
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class StartTaskPayload(TaskMovePayload):
    pass


@strawberry.type
class FinishTaskPayload(TaskMovePayload):
    pass


@strawberry.type
class ReleaseTaskPayload(TaskMovePayload):
    pass


@strawberry.type
class CompleteTaskPayload(TaskMovePayload):
    pass


@strawberry.type
class ReopenTaskPayload(TaskMovePayload):
    pass


P = TypeVar("P", bound=TaskMovePayload)


@strawberry.input
class StartTaskInput:
    task_id: relay.GlobalID = strawberry.field(description="The available PENDING task to start.")


@strawberry.input
class FinishTaskInput:
    task_id: relay.GlobalID = strawberry.field(description="The STARTED task the caller holds.")


@strawberry.input
class ReleaseTaskInput:
    task_id: relay.GlobalID = strawberry.field(
        description="The STARTED task to put back in its queue."
    )
    reason: str = strawberry.field(description="Why, in words (kept in its history).")


@strawberry.input
class CompleteTaskInput:
    task_id: relay.GlobalID = strawberry.field(
        description="The pending or started task to mark done."
    )
    reason: str = strawberry.field(
        description="Why an admin completes it, in words (kept in its history)."
    )


@strawberry.input
class ReopenTaskInput:
    task_id: relay.GlobalID = strawberry.field(description="The COMPLETED task to send back.")
    reason: str = strawberry.field(description="Why, in words (kept in its history).")


async def _move(
    info: Info,
    payload: type[P],
    action: TaskAction,
    task_gid: relay.GlobalID,
    reason: str | None = None,
) -> P:
    async def work(conn: AsyncConnection) -> P:
        with validation.every_problem() as check:
            task_id = check(require_id, task_gid, "DepartmentTask", "taskId")
            why = check(validation.reason, reason) if reason is not None else None
        viewer = viewer_of(info)
        move = await transition_task(
            conn,
            task_id,
            action,
            viewer.actor(),
            why,
            info.context.services.stale_after,
        )
        return payload(task=DepartmentTask.of(move.task), changed=move.changed)

    return await mutate(info, payload, work, transaction=needs_transaction(action))


@strawberry.mutation(
    extensions=moves(TaskAction.START),
    description="Starts an available PENDING task of one of the caller's departments.",
)
async def start_task(info: Info, input: StartTaskInput) -> StartTaskPayload:
    return await _move(info, StartTaskPayload, TaskAction.START, input.task_id)


@strawberry.mutation(
    extensions=moves(TaskAction.FINISH), description="Completes the STARTED task the caller holds."
)
async def finish_task(info: Info, input: FinishTaskInput) -> FinishTaskPayload:
    return await _move(info, FinishTaskPayload, TaskAction.FINISH, input.task_id)


@strawberry.mutation(
    extensions=moves(TaskAction.RELEASE),
    description="Puts a STARTED task back in its queue, with a reason.",
)
async def release_task(info: Info, input: ReleaseTaskInput) -> ReleaseTaskPayload:
    return await _move(info, ReleaseTaskPayload, TaskAction.RELEASE, input.task_id, input.reason)


@strawberry.mutation(
    extensions=moves(TaskAction.OVERRIDE_COMPLETE),
    description="Admin override: complete a PENDING or STARTED task, with a reason.",
)
async def complete_task(info: Info, input: CompleteTaskInput) -> CompleteTaskPayload:
    return await _move(
        info, CompleteTaskPayload, TaskAction.OVERRIDE_COMPLETE, input.task_id, input.reason
    )


@strawberry.mutation(
    extensions=moves(TaskAction.REOPEN),
    description="Sends a COMPLETED task back to PENDING, with a reason; the tasks after it wait "
    "again.",
)
async def reopen_task(info: Info, input: ReopenTaskInput) -> ReopenTaskPayload:
    return await _move(info, ReopenTaskPayload, TaskAction.REOPEN, input.task_id, input.reason)
