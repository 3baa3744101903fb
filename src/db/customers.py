"""Customers: a name, a contact and an address (domain.contacts). Their balance is derived
from the ledger, never stored."""

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads
from db.idempotency import Once, made_before
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
        "receives_email": contact.receives_email,
    }


def contact_of(row: CustomerRow) -> Contact:
    address = Address(tuple(row.address_lines), row.postcode, row.city, row.country)
    return Contact(row.contact_name, row.email, row.phone, address, row.notes, row.receives_email)


@dataclass(frozen=True)
class CustomerChange:
    customer: CustomerRow
    changed: bool


async def _made_before(conn: AsyncConnection, once: Once) -> CustomerChange | None:
    made = await made_before(conn, "customer_by_key", once, "customer")
    if made is None:
        return None
    [customer] = await reads.customers(conn, [made])
    return CustomerChange(customer, changed=False)


async def create_customer(
    conn: AsyncConnection,
    name: str,
    created_by: int,
    contact: Contact | None = None,
    idempotency_key: str | None = None,
) -> CustomerChange:
    """A new customer; with a key already used for the same name and contact, that one."""
    given = contact or Contact()
    once = Once.of(idempotency_key, {"name": name, "contact": given})
    repeated = await _made_before(conn, once)
    if repeated is not None:
        return repeated
    params = {"name": name, "created_by": created_by, **_columns(given), **once.params()}
    made = (await conn.execute(Q["insert_customer"], params)).first()
    if made is not None:
        return CustomerChange(CustomerRow.of(made), changed=True)
    # A create with this key committed between our look and our insert.
    repeated = await _made_before(conn, once)
    assert repeated is not None
    return repeated


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
