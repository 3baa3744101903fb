"""Proof versions: the files a customer approves before production."""

from collections.abc import Iterable
from datetime import datetime

import strawberry
from strawberry import relay

from api.links import proof_url
from db.rows import ProofRow
from domain.enums import ProofDecider, ProofStatus
from graph.context import Info
from graph.loaders import now_or_later
from graph.types import enums as _registered  # noqa: F401  (ProofStatus, ProofDecider)
from graph.types.loading import nodes_of, required
from graph.types.people import User, user_or_none


@strawberry.type(
    description="One version of an order's proof: a PDF, PNG or JPEG the customer approves "
    "(or sends back with changes) before the departments that wait for it start. A newer "
    "version withdraws an undecided one."
)
class Proof(relay.Node):
    id: relay.NodeID[int]
    version: int = strawberry.field(description='1, 2, 3... per order ("version 2").')
    file_name: str = strawberry.field(description="The name it was uploaded with.")
    media_type: str = strawberry.field(
        description="Read from its bytes: application/pdf, image/png or image/jpeg."
    )
    size_bytes: int = strawberry.field(description="The file's size in bytes.")
    uploaded_at: datetime = strawberry.field(description="When it was uploaded.")
    status: ProofStatus = strawberry.field(
        description="Whether it waits, was approved, was sent back, or was replaced."
    )
    decided_at: datetime | None = strawberry.field(
        description="When it was decided; null until then."
    )
    decided_through: ProofDecider | None = strawberry.field(
        description="CUSTOMER: through their link; SALES: Sales recorded the customer's word "
        "(decidedBy says who). Null until decided."
    )
    decided_by_name: str | None = strawberry.field(
        description="The approver's name as they gave it. Null until decided."
    )
    comment: str | None = strawberry.field(description="The changes asked for.")
    _uploaded_by: strawberry.Private[int]
    _decided_by: strawberry.Private[int | None]

    @classmethod
    def of(cls, row: ProofRow) -> "Proof":
        return cls(
            id=row.id,
            version=row.version,
            file_name=row.file_name,
            media_type=row.media_type,
            size_bytes=row.size_bytes,
            uploaded_at=row.uploaded_at,
            status=row.status,
            decided_at=row.decided_at,
            decided_through=row.decided_through,
            decided_by_name=row.decided_by_name,
            comment=row.comment,
            _uploaded_by=row.uploaded_by,
            _decided_by=row.decided_by,
        )

    @strawberry.field(description="Who uploaded it.")
    def uploaded_by(self, info: Info) -> User:
        return now_or_later(
            info.context.loaders.user.load(self._uploaded_by), lambda r: required(r, User.of)
        )

    @strawberry.field(description="The Sales person who recorded the customer's decision.")
    def decided_by(self, info: Info) -> User | None:
        return user_or_none(info, self._decided_by)

    @strawberry.field(
        description="Its preview, a PNG (a PDF's first page; an image re-encoded), absolute "
        "under PRESSROOM_PUBLIC_URL; fetched with the same bearer token."
    )
    def preview_url(self, info: Info) -> str:
        return proof_url(info.context.services.public_url, self.id, "preview")

    @strawberry.field(
        description="The file as uploaded, absolute under PRESSROOM_PUBLIC_URL; fetched with "
        "the same bearer token."
    )
    def download_url(self, info: Info) -> str:
        return proof_url(info.context.services.public_url, self.id, "file")

    @classmethod
    async def resolve_nodes(  # type: ignore[override]
        cls, *, info: Info, node_ids: Iterable[str], required: bool = False
    ) -> list["Proof | None"]:
        return await nodes_of(cls.of, info.context.loaders.proof, node_ids)
