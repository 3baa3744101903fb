"""uploadProof (Sales, admins, and the departments that make an order's proofs): a new
proof version, its file sent per the GraphQL multipart request specification."""

import dataclasses
from typing import Any

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from starlette.datastructures import UploadFile
from strawberry import relay
from strawberry.file_uploads import UploadDefinition

from api.errors import rate_limited
from api.ids import require_id
from api.proof_files import Examined, ExaminersBusy, new_proof
from db.proofs import add_version
from domain.enums import WorkOrderCommand
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import allowed, viewer_of
from graph.types.proofs import Proof
from graph.types.work_order_commands import ORDER_RULES


def _file(value: Any) -> UploadFile:
    if not isinstance(value, UploadFile):
        raise ValueError(
            "Upload is a file part of a multipart request (the GraphQL multipart request "
            "specification), not a value written in the variables."
        )
    return value


# The `Upload` scalar, as the schema maps Starlette's UploadFile to it (graph/schema.py).
UPLOAD = dataclasses.replace(
    UploadDefinition,
    description="A file sent as a part of a multipart request, mapped to a variable.",
    specified_by_url="https://github.com/jaydenseric/graphql-multipart-request-spec",
    parse_value=_file,
)


@strawberry.input
class UploadProofInput:
    work_order_id: relay.GlobalID = strawberry.field(description="The work order the proof is for.")
    file: UploadFile = strawberry.field(
        description="A PDF, PNG or JPEG of at most PRESSROOM_PROOF_MAX_MB, judged by its "
        "content; its name must not say otherwise (a PNG named .pdf is refused)."
    )


@strawberry.type
class UploadProofPayload:
    proof: Proof | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(ORDER_RULES[WorkOrderCommand.UPLOAD_PROOF]),
    description="Add the order's next proof version (Sales, admins, and members of a "
    "department that makes the proofs, such as Design, with a task on the order). "
    "The version still waiting for a decision is withdrawn. Refused, with nothing stored: "
    "a file that is not a PDF, PNG or JPEG, one named as another kind, one damaged or cut "
    "short, one too large (bytes, or an image's pixels).",
)
async def upload_proof(info: Info, input: UploadProofInput) -> UploadProofPayload:
    viewer = viewer_of(info)
    services = info.context.services
    upload: UploadFile = input.file
    examined: list[Examined] = []
    work_order_id = 0

    async def examine() -> None:
        nonlocal work_order_id
        work_order_id = require_id(input.work_order_id, "WorkOrder", "workOrderId")
        try:
            found = await services.examiner.examine(
                upload.file, upload.filename, services.proof_max_bytes
            )
        except ExaminersBusy as busy:
            raise rate_limited(info.context.response, busy.retry_after) from busy
        examined.append(found)

    async def work(conn: AsyncConnection) -> UploadProofPayload:
        [found] = examined
        row = await add_version(
            conn, new_proof(found, work_order_id, viewer), upload.file, found.preview
        )
        return UploadProofPayload(proof=Proof.of(row))

    return await mutate(info, UploadProofPayload, work, before=examine)
