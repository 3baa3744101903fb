"""Routing: setting which departments a department follows (domain.routing says what that
means on an order)."""

from sqlalchemy.ext.asyncio import AsyncConnection

from db import reads
from db.orders import settle_work_order
from db.people import facts
from db.queries import Q
from db.rows import DepartmentRow
from domain.errors import DomainError, ErrorCode
from domain.routing import check_follows


async def set_follows(
    conn: AsyncConnection, code: str, follows_codes: list[str], actor_id: int
) -> DepartmentRow:
    """Sets what the department of `code` follows, then settles every open order by the
    new routing, in this transaction: a task that now waits for nothing enters its queue,
    one that now waits for an unfinished task leaves it if not started."""
    departments = DepartmentRow.all((await conn.execute(Q["lock_departments"])).all())
    by_code = {d.code: d for d in departments}
    if code not in by_code:
        raise DomainError(ErrorCode.NOT_FOUND, f"No department {code!r}.", "departmentCode")
    unknown = [c for c in follows_codes if c not in by_code]
    if unknown:
        raise DomainError(
            ErrorCode.NOT_FOUND, f"No department {', '.join(map(repr, unknown))}.", "followsCodes"
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
        for order in (await conn.execute(Q["routed_work_orders"])).all():
            await conn.execute(Q["lock_work_order"], {"work_order_id": order.id})
            await settle_work_order(conn, order.id, actor_id)
    return row
