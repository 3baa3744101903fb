"""Customer links: the secret addresses that show one work order's page to its customer."""

from datetime import UTC, datetime

import strawberry
from strawberry import relay

from db.rows import CustomerLinkRow
from domain.validation import expired
from graph.context import Info
from graph.types.people import User, user_or_none


@strawberry.type(
    description="A link that shows one work order's page to its customer (/c/<secret>): "
    "where the job is, its due date and its proofs. The secret is shown once, by "
    "createCustomerLink; only its hash is kept."
)
class CustomerLink(relay.Node):
    id: relay.NodeID[int]
    created_at: datetime = strawberry.field(description="When the link was made.")
    expires_at: datetime | None = strawberry.field(
        description="When it stops working: the expiry it was made with, else "
        "PRESSROOM_CUSTOMER_LINK_DAYS (60) after its order completed or was cancelled; null "
        "while the order is open and it has none."
    )
    revoked_at: datetime | None = strawberry.field(
        description="When it was revoked; null while it is not."
    )
    last_used_at: datetime | None = strawberry.field(
        description="When its page was last opened (to within ten minutes)."
    )
    emailed_to: str | None = strawberry.field(
        description="Made for an email to this address (then createdBy is null)."
    )
    _created_by: strawberry.Private[int | None]

    @classmethod
    def of(cls, row: CustomerLinkRow) -> "CustomerLink":
        return cls(
            id=row.id,
            created_at=row.created_at,
            expires_at=row.ends_at,
            revoked_at=row.revoked_at,
            last_used_at=row.last_used_at,
            emailed_to=row.emailed_to,
            _created_by=row.created_by,
        )

    @strawberry.field(description="Not revoked and not expired: its page opens.")
    def works(self) -> bool:
        return self.revoked_at is None and not expired(self.expires_at, datetime.now(UTC))

    @strawberry.field(description="Who made it; null for a link made for an email.")
    def created_by(self, info: Info) -> User | None:
        return user_or_none(info, self._created_by)
