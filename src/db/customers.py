"""Customers: a name, a contact and an address (domain.contacts). Their balance is derived
from the ledger, never stored."""

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db.queries import Q
from db.rows import CustomerRow
from domain.contacts import Address, Contact
from domain.errors import DomainError, ErrorCode


def _columns(contact: Contact) -> dict[str, Any]:
    return {
        "contact_name": contact.contact_name,
        "email": contact.email,
        "phone": contact.phone,
        "address_lines": list(contact.address.lines),
        "postcode": contact.address.postcode,
        "city": contact.address.city,
        "country": contact.address.country,
        "notes": contact.notes,
    }


def contact_of(row: CustomerRow) -> Contact:
    address = Address(tuple(row.address_lines), row.postcode, row.city, row.country)
    return Contact(row.contact_name, row.email, row.phone, address, row.notes)


async def create_customer(
    conn: AsyncConnection, name: str, created_by: int, contact: Contact | None = None
) -> CustomerRow:
    params = {"name": name, "created_by": created_by, **_columns(contact or Contact())}
    return CustomerRow.of((await conn.execute(Q["insert_customer"], params)).one())


@dataclass(frozen=True)
class CustomerChange:
    customer: CustomerRow
    changed: bool


async def update_customer(
    conn: AsyncConnection, customer_id: int, name: str | None, given: dict[str, Any]
) -> CustomerChange:
    """The name (None: kept) and the contact's parts `given` (checked; the rest kept),
    under the customer's row lock; the same values again change nothing."""
    found = (await conn.execute(Q["lock_customer"], {"customer_id": customer_id})).first()
    if found is None:
        raise DomainError(ErrorCode.NOT_FOUND, "No such customer.", "customerId")
    current = CustomerRow.of(found)
    before = contact_of(current)
    after = replace(before, **given)
    new_name = current.name if name is None else name
    if after == before and new_name == current.name:
        return CustomerChange(current, changed=False)
    params = {"customer_id": customer_id, "name": new_name, **_columns(after)}
    return CustomerChange(
        CustomerRow.of((await conn.execute(Q["update_customer"], params)).one()), changed=True
    )
