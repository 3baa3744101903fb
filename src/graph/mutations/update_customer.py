"""updateCustomer (Sales): correct a customer's name, contact or address."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry import relay

from api.ids import require_id
from db import customers
from domain import validation
from domain.enums import CustomerCommand
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.mutations.customer_contact import ContactInput, given_parts
from graph.permissions import allowed
from graph.types.customers import CUSTOMER_RULES, Customer


@strawberry.input
class UpdateCustomerInput(ContactInput):
    customer_id: relay.GlobalID = strawberry.field(description="The customer to correct.")
    name: str | None = strawberry.field(default=None, description="The new name; null keeps it.")


@strawberry.type
class UpdateCustomerPayload:
    customer: Customer | None = None
    changed: bool = False
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(
    extensions=allowed(CUSTOMER_RULES[CustomerCommand.EDIT]),
    description="What is given replaces what the customer had (an address whole; an empty "
    "text clears a part); what is not given stays.",
)
async def update_customer(info: Info, input: UpdateCustomerInput) -> UpdateCustomerPayload:
    async def work(conn: AsyncConnection) -> UpdateCustomerPayload:
        with validation.every_problem() as check:
            customer_id = check(require_id, input.customer_id, "Customer", "customerId")
            name = check(validation.text, input.name, "name") if input.name is not None else None
            parts = check(given_parts, input)
        done = await customers.update_customer(conn, customer_id, name, parts)
        return UpdateCustomerPayload(customer=Customer.of(done.customer), changed=done.changed)

    return await mutate(info, UpdateCustomerPayload, work)
