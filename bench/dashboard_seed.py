"""The dashboard page's data in the bench database (bench/dashboard.py): work orders made
as the server makes them, and an admin's token to read them."""

import asyncpg

from bench import fixture
from bench.shop import TOKEN_TTL_SECONDS, Shop
from db import customers, people, reads
from db.engine import create_engine, unit_of_work
from db.orders import NewWorkOrder, create_work_order, update_quote
from db.tasks import Actor, transition_task
from domain.enums import DepartmentKind, TaskAction, TokenKind
from domain.money import Money


async def seed_orders(url: str, shop: Shop, count: int = 200) -> dict[str, int]:
    """`count` work orders made as the server makes them (db.orders.create_work_order),
    each for one to three production departments plus delivery, for one of 10
    customers, some quoted when made and every one quoted (again) by the admin after, so
    that each order's history has an entry with an actor (a new order's has none); about
    half of the production tasks started by a worker, a third of those finished
    (db.tasks.transition_task), so pickers and task histories are on the page. Returns
    what was made."""
    made = {"work_orders": 0, "tasks_started": 0, "tasks_finished": 0}
    engine = create_engine(url, pool_size=2, max_overflow=0)
    codes = shop.department_codes
    workers = shop.worker_ids
    try:
        async with unit_of_work(engine) as conn:
            clients = [shop.customer_id]
            for i in range(9):
                clients.append(
                    (
                        await customers.create_customer(conn, f"Customer {i}", shop.admin_id)
                    ).customer.id
                )
        for n in range(count):
            picked = list(dict.fromkeys(codes[(n + 3 * k) % len(codes)] for k in range(1 + n % 3)))
            async with unit_of_work(engine) as conn:
                created = await create_work_order(
                    conn,
                    NewWorkOrder(
                        customer_id=clients[n % len(clients)],
                        order_number=None,
                        details={"product": "Flyers A5"},
                        department_codes=picked,
                        needs_installation=False,
                        needs_transport=False,
                        needs_repair=False,
                        quote=Money(10_000 + 250 * n, "EUR") if n % 4 == 0 else None,
                        created_by=shop.admin_id if n % 2 else workers[n % len(workers)],
                    ),
                )
                await update_quote(
                    conn, created.order.id, Money(20_000 + 250 * n, "EUR"), None, shop.admin_id
                )
                tasks = await reads.tasks_of_work_orders(conn, [created.order.id])
                production = [t for t in tasks if t.department_kind == DepartmentKind.PRODUCTION]
                for i, task in enumerate(production):
                    if (n + i) % 2:
                        continue
                    actor = Actor(workers[(n + 7 * i) % len(workers)], False)
                    await transition_task(conn, task.id, TaskAction.START, actor)
                    made["tasks_started"] += 1
                    if (n + i) % 3 == 0:
                        await transition_task(conn, task.id, TaskAction.FINISH, actor)
                        made["tasks_finished"] += 1
            made["work_orders"] += 1
    finally:
        await engine.dispose()
    conn = await asyncpg.connect(fixture.dsn(url))
    try:
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    return made


async def admin_token(url: str, shop: Shop) -> str:
    """A session token of the shop's admin, who sees the whole dashboard."""
    return (await admin_tokens(url, shop, 1))[0]


async def admin_tokens(url: str, shop: Shop, count: int) -> list[str]:
    """Session tokens of `count` admins: the shop's, and more made here."""
    return await _tokens(url, shop, count, sales=False)


async def sales_tokens(url: str, shop: Shop, count: int) -> list[str]:
    """Session tokens of `count` members of a Sales department made here: people who see
    the whole dashboard, each with rights of their own (the rules for oneself)."""
    return await _tokens(url, shop, count, sales=True)


async def _tokens(url: str, shop: Shop, count: int, *, sales: bool) -> list[str]:
    engine = create_engine(url, pool_size=1, max_overflow=0)
    tokens = []
    try:
        async with unit_of_work(engine) as conn:
            people_ids = [] if sales else [shop.admin_id]
            departments = []
            if sales:
                made_sales = await people.create_department(
                    conn, "sales", "Sales", DepartmentKind.SALES, False
                )
                departments = [made_sales.id]
            for n in range(len(people_ids), count):
                made = await people.create_user(
                    conn,
                    email=f"{'sales' if sales else 'admin'}{n}@bench.example",
                    name=f"{'Sales' if sales else 'Admin'} {n}",
                    password=None,
                    is_admin=not sales,
                    department_ids=departments,
                )
                people_ids.append(made.user.id)
            for person in people_ids:
                issued = await people.issue_token(
                    conn,
                    kind=TokenKind.SESSION,
                    name="dashboard bench",
                    user_id=person,
                    ttl_seconds=TOKEN_TTL_SECONDS,
                )
                tokens.append(issued.token)
    finally:
        await engine.dispose()
    return tokens
