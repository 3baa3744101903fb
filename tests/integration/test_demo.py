"""The demo shop as `serve --demo` seeds it: routed Design → Print → Finishing, customers
you can deliver to, and histories that read in the order they happened."""

import asyncio

from sqlalchemy import text

from db import migrate, reads
from db.engine import create_engine
from pressroom.demo import seed
from tests.support import scratch_database


async def test_the_demo_shop_is_routed_addressed_and_its_histories_in_order(
    server_url: str,
) -> None:
    async with scratch_database(server_url, "pressroom_demo") as url:
        await asyncio.to_thread(migrate.upgrade_sync, url)
        engine = create_engine(url, pool_size=2, max_overflow=0)
        try:
            assert (await seed(engine)).seeded is True
            assert (await seed(engine)).seeded is False
            async with engine.connect() as conn:
                departments = {d.code: d for d in await reads.all_departments(conn)}
                follows = {
                    code: [c for c, d in departments.items() if d.id in departments[code].follows]
                    for code in ("design", "print", "finishing")
                }
                addressed = await conn.scalar(
                    text("SELECT count(*) FROM customers WHERE city IS NOT NULL")
                )
                # Every order's moves (its tasks' and its own) in id order are in time
                # order, and not all at one instant.
                stamps = (
                    await conn.execute(
                        text(
                            "SELECT t.work_order_id, h.occurred_at FROM task_transitions h "
                            "JOIN department_tasks t ON t.id = h.task_id ORDER BY h.id"
                        )
                    )
                ).all()
        finally:
            await engine.dispose()
    assert follows == {"design": [], "print": ["design"], "finishing": ["print"]}
    assert addressed == 5
    by_order: dict[int, list] = {}
    for order, at in stamps:
        by_order.setdefault(order, []).append(at)
    moved = [times for times in by_order.values() if len(times) > 1]
    assert moved
    for times in moved:
        assert times == sorted(times) and len(set(times)) == len(times), times
