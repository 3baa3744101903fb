"""createCustomer (Sales): a name, and optionally whom to call and where to deliver."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from db import customers
from domain import idempotency, validation
from domain.contacts import Contact
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.mutations.customer_contact import ContactInput, given_parts
from graph.mutations.once import changed_field, idempotency_key_field
from graph.permissions import SALES, allowed, viewer_of
from graph.types.customers import Customer


@strawberry.input
class CreateCustomerInput(ContactInput):
    name: str = strawberry.field(description="The customer's name, as shown everywhere.")
    idempotency_key: str | None = idempotency_key_field()


@strawberry.type
class CreateCustomerPayload:
    customer: Customer | None = None
    changed: bool = changed_field()
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(extensions=allowed(SALES), description="Records a customer.")
async def create_customer(info: Info, input: CreateCustomerInput) -> CreateCustomerPayload:
    async def work(conn: AsyncConnection) -> CreateCustomerPayload:
        with validation.every_problem() as check:
            name = check(validation.text, input.name, "name")
            parts = check(given_parts, input)
            key = check(idempotency.optional_key, input.idempotency_key)
        made = await customers.create_customer(
            conn, name, viewer_of(info).user_id, Contact(**parts), key
        )
        return CreateCustomerPayload(customer=Customer.of(made.customer), changed=made.changed)

    return await mutate(info, CreateCustomerPayload, work)
