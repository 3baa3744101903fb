"""createCustomer (Sales): a name, and optionally whom to call and where to deliver."""

import strawberry
from sqlalchemy.ext.asyncio import AsyncConnection

from db import customers
from domain import validation
from domain.contacts import Contact
from graph.context import Info
from graph.errors import UserError
from graph.mutations.base import mutate
from graph.mutations.customer_contact import ContactInput, given_parts
from graph.permissions import SALES, allowed, viewer_of
from graph.types.customers import Customer


@strawberry.input
class CreateCustomerInput(ContactInput):
    name: str


@strawberry.type
class CreateCustomerPayload:
    customer: Customer | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.mutation(extensions=allowed(SALES))
async def create_customer(info: Info, input: CreateCustomerInput) -> CreateCustomerPayload:
    async def work(conn: AsyncConnection) -> CreateCustomerPayload:
        name = validation.text(input.name, "name")
        contact = Contact(**given_parts(input))
        row = await customers.create_customer(conn, name, viewer_of(info).user_id, contact)
        return CreateCustomerPayload(customer=Customer.of(row))

    return await mutate(info, CreateCustomerPayload, work)
