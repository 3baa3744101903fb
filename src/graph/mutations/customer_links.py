"""createCustomerLink and revokeCustomerLink (Sales, admins): the links that show a work
order's page to its customer."""

from datetime import datetime

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from api.links import customer_url
from db import customer_links
from domain import validation
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.permissions import SALES, allowed, viewer_of
from graph.types.customer_links import CustomerLink


@strawberry.input
class CreateCustomerLinkInput:
    work_order_id: relay.GlobalID = strawberry.field(
        description="The work order whose page the link shows."
    )
    expires_at: datetime | None = strawberry.field(
        default=None,
        description="When it stops working; when omitted, PRESSROOM_CUSTOMER_LINK_DAYS (60) "
        "after the order completes.",
    )


@strawberry.type
class CreateCustomerLinkPayload:
    link: CustomerLink | None = None
    secret: str | None = strawberry.field(
        default=None, description="The link's secret, shown only this once."
    )
    url: str | None = strawberry.field(
        default=None,
        description="The page to send the customer (PRESSROOM_PUBLIC_URL/c/<secret>), shown "
        "only this once.",
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(SALES),
    description="A new link to the order's page for its customer: where the job is, its due "
    "date, its proofs to approve or send back. Nothing else of the shop is reachable with it.",
)
async def create_customer_link(
    info: Info, input: CreateCustomerLinkInput
) -> CreateCustomerLinkPayload:
    services = info.context.services

    async def work(conn: AsyncConnection) -> CreateCustomerLinkPayload:
        with validation.every_problem() as check:
            work_order_id = check(require_id, input.work_order_id, "WorkOrder", "workOrderId")
            expires_at = check(validation.future, input.expires_at, "expiresAt")
        made = await customer_links.create(
            conn,
            work_order_id,
            created_by=viewer_of(info).user_id,
            expires_at=expires_at,
            days=services.customer_link_days,
        )
        return CreateCustomerLinkPayload(
            link=CustomerLink.of(made.link),
            secret=made.secret,
            url=customer_url(services.public_url, made.secret),
        )

    return await mutate(info, CreateCustomerLinkPayload, work)


@strawberry.input
class RevokeCustomerLinkInput:
    id: relay.GlobalID = strawberry.field(description="The link to revoke.")


@strawberry.type
class RevokeCustomerLinkPayload:
    link: CustomerLink | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(SALES),
    description="The link stops working at once: its page then says so, and how to reach "
    "the shop. Revoking a revoked link is INVALID_TRANSITION.",
)
async def revoke_customer_link(
    info: Info, input: RevokeCustomerLinkInput
) -> RevokeCustomerLinkPayload:
    async def work(conn: AsyncConnection) -> RevokeCustomerLinkPayload:
        link_id = require_id(input.id, "CustomerLink", "id")
        revoked = await customer_links.revoke(
            conn, link_id, viewer_of(info).user_id, info.context.services.customer_link_days
        )
        return RevokeCustomerLinkPayload(link=CustomerLink.of(revoked))

    return await mutate(info, RevokeCustomerLinkPayload, work, transaction=False)
