"""The contact parts of a customer's input, checked into domain.contacts terms: shared by
createCustomer and updateCustomer."""

from typing import Any

import strawberry

from domain import contacts, validation
from graph.types.address import AddressInput


@strawberry.input
class ContactInput:
    """The parts createCustomer and updateCustomer take besides the name (null: not
    given; an empty text clears). Their inputs extend it."""

    contact_name: str | None = strawberry.field(
        default=None,
        description="The person to speak to. Null: not given; an empty text clears it.",
    )
    email: str | None = strawberry.field(
        default=None,
        description="Where the shop's emails to the customer go. Null: not given; an empty text "
        "clears it.",
    )
    phone: str | None = strawberry.field(
        default=None,
        description="Digits and + ( ) - . / only. Null: not given; an empty text clears it.",
    )
    address: AddressInput | None = strawberry.field(
        default=None,
        description="Where to deliver, replacing any address before whole. Null: not given.",
    )
    notes: str | None = strawberry.field(
        default=None,
        description="Anything the shop should know of the customer. Null: not given; an empty "
        "text clears them.",
    )
    receives_email: bool | None = strawberry.field(
        default=None,
        description="Whether the shop emails the customer about their orders (a proof to "
        "approve, ready for pickup or out for delivery, a due date moved later). A new "
        "customer does unless told otherwise.",
    )


def given_parts(contact: ContactInput) -> dict[str, Any]:
    """The parts given, checked (every part's problem at once), by their
    domain.contacts.Contact names."""
    parts: dict[str, Any] = {}
    with validation.every_problem() as check:
        if contact.contact_name is not None:
            parts["contact_name"] = check(contacts.contact_name, contact.contact_name)
        if contact.email is not None:
            parts["email"] = check(contacts.email, contact.email)
        if contact.phone is not None:
            parts["phone"] = check(contacts.phone, contact.phone)
        if contact.address is not None:
            a = contact.address
            parts["address"] = check(contacts.address, a.lines, a.postcode, a.city, a.country)
        if contact.notes is not None:
            parts["notes"] = check(contacts.notes, contact.notes)
    if contact.receives_email is not None:
        parts["receives_email"] = contact.receives_email
    return parts
