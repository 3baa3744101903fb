"""Routing: setting which departments a department follows, and whether it waits for an
approved proof (domain.routing says what that means on an order)."""

from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads
from db.orders import settle_work_order
from db.people import facts
from db.queries import Q
from db.rows import DepartmentRow
from domain.enums import DepartmentKind
from domain.errors import DomainError, ErrorCode
from domain.routing import check_follows
from domain.workflow import needs_approved_proof


async def set_follows(conn: AsyncConnection, code: str, follows_codes: list[str]) -> DepartmentRow:
    """Sets what the department of `code` follows, then settles every open order by the
    new routing, in this transaction: a task that now waits for nothing enters its queue,
    one that now waits for an unfinished task leaves it if not started."""
    departments = await _locked(conn)
    by_code = {d.code: d for d in departments}
    if code not in by_code:
        raise _unknown(code)
    unknown = [c for c in follows_codes if c not in by_code]
    if unknown:
        named = ", ".join(f"'{c}'" for c in unknown)
        raise DomainError(
            ErrorCode.NOT_FOUND, f"No department has the code {named}.", "followsCodes"
        )

    department = by_code[code]
    chosen = check_follows(
        facts(department),
        [facts(by_code[c]) for c in follows_codes],
        reads.routing_of(departments),
        {d.id: d.name for d in departments},
    )
    params = {"department_id": department.id, "follows": chosen}
    row = DepartmentRow.of((await conn.execute(Q["set_department_follows"], params)).one())
    if chosen != sorted(department.follows):
        await _settle_open_orders(conn)
    return row


async def set_needs_approved_proof(conn: AsyncConnection, code: str, needs: bool) -> DepartmentRow:
    """Sets whether the department of `code` waits for an approved proof, then settles
    every open order as set_follows does: on orders that require a proof and whose latest
    version is not approved, its pending tasks leave their queues (or enter them, when it
    no longer waits)."""
    department = next((d for d in await _locked(conn) if d.code == code), None)
    if department is None:
        raise _unknown(code)
    params = {
        "department_id": department.id,
        "needs_approved_proof": needs_approved_proof(DepartmentKind(department.kind), needs),
    }
    row = DepartmentRow.of(
        (await conn.execute(Q["set_department_needs_approved_proof"], params)).one()
    )
    if row.needs_approved_proof != department.needs_approved_proof:
        await _settle_open_orders(conn)
    return row


async def _locked(conn: AsyncConnection) -> list[DepartmentRow]:
    return DepartmentRow.all((await conn.execute(Q["lock_departments"])).all())


def _unknown(code: str) -> DomainError:
    return DomainError(
        ErrorCode.NOT_FOUND, f"No department has the code '{code}'.", "departmentCode"
    )


async def _settle_open_orders(conn: AsyncConnection) -> None:
    for order in (await conn.execute(Q["routed_work_orders"])).all():
        await conn.execute(Q["lock_work_order"], {"work_order_id": order.id})
        await settle_work_order(conn, order.id)
