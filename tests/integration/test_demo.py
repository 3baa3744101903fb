"""The demo shop as `serve --demo` seeds it: routed Design → Print → Finishing, customers
you can deliver to, and histories laid out over the last thirty hours, minutes to hours
apart, in order."""

import asyncio
import itertools
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from db import migrate, reads
from db.credentials import token_hash
from db.engine import create_engine
from pressroom.demo import seed
from tests.support.database import scratch_database

LOGS = [
    ("events", "occurred_at"),
    ("task_transitions", "occurred_at"),
    ("work_order_transitions", "occurred_at"),
    ("customer_ledger_entries", "posted_at"),
    ("work_orders", "created_at"),
]


async def test_the_demo_shop_is_routed_addressed_and_its_histories_in_order(
    server_url: str,
) -> None:
    async with scratch_database(server_url, "pressroom_demo") as url:
        await asyncio.to_thread(migrate.upgrade_sync, url)
        engine = create_engine(url, pool_size=2, max_overflow=0)
        started = datetime.now(UTC)
        try:
            first, again = await seed(engine), await seed(engine)
            assert (first.seeded, again.seeded) == (True, False)
            async with engine.connect() as conn:
                waiting = (
                    await conn.execute(
                        text(
                            "SELECT w.proof_required, p.version, p.status, d.code, t.status, "
                            "t.available_at IS NOT NULL AS queued, count(l.id) AS links "
                            "FROM proofs p JOIN work_orders w ON w.id = p.work_order_id "
                            "JOIN department_tasks t ON t.work_order_id = w.id "
                            "JOIN departments d ON d.id = t.department_id "
                            "LEFT JOIN customer_links l ON l.work_order_id = w.id "
                            "WHERE d.kind = 'PRODUCTION' "
                            "GROUP BY 1, 2, 3, 4, 5, 6, d.id ORDER BY d.id"
                        )
                    )
                ).all()
                linked = await conn.scalar(
                    text("SELECT count(*) FROM customer_links WHERE secret_hash = ANY(:h)"),
                    {"h": [token_hash(i.customer_secret or "") for i in (first, again)]},
                )
                departments = {d.code: d for d in await reads.all_departments(conn)}
                follows = {
                    code: [c for c, d in departments.items() if d.id in departments[code].follows]
                    for code in ("design", "print", "finishing")
                }
                addressed = await conn.scalar(
                    text("SELECT count(*) FROM customers WHERE city IS NOT NULL")
                )
                task_moves = (
                    await conn.execute(
                        text(
                            "SELECT t.work_order_id, h.occurred_at FROM task_transitions h "
                            "JOIN department_tasks t ON t.id = h.task_id ORDER BY h.id"
                        )
                    )
                ).all()
                logs = {
                    table: list(
                        await conn.scalars(text(f"SELECT {column} FROM {table} ORDER BY id"))
                    )
                    for table, column in LOGS
                }
        finally:
            await engine.dispose()
    assert follows == {"design": [], "print": ["design"], "finishing": ["print"]}
    # One order's proof waits for its customer, Print and Finishing for the proof; each
    # start makes a new link to its page.
    assert [tuple(row) for row in waiting] == [
        (True, 1, "PENDING", "design", "COMPLETED", True, 2),
        (True, 1, "PENDING", "print", "PENDING", False, 2),
        (True, 1, "PENDING", "finishing", "PENDING", False, 2),
    ]
    assert linked == 2 and first.customer_secret != again.customer_secret
    assert addressed == 5
    # Every log, in the order it was written, is in time order, and all of it is past.
    for table, times in logs.items():
        assert times == sorted(times) and times[-1] < started, table
    events = logs["events"]
    assert events[-1] - events[0] > timedelta(hours=24)
    # Each order's task moves (a cancel's included) are minutes apart, as its steps were.
    by_order: dict[int, list[datetime]] = {}
    for order, at in task_moves:
        by_order.setdefault(order, []).append(at)
    gaps = [b - a for times in by_order.values() for a, b in itertools.pairwise(times)]
    assert len(gaps) > 10
    assert all(timedelta(minutes=5) <= gap <= timedelta(hours=1) for gap in gaps), gaps
