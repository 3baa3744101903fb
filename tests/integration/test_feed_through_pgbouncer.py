"""The feed's reader through PgBouncer in transaction mode while other clients share its
few server connections: PgBouncer keeps a statement's parse and its execution on one
server connection only inside a transaction, so every read must run in one."""

import asyncio
from pathlib import Path

from sqlalchemy import text

from db import pgbouncer, reads
from db.engine import create_engine, reading, unit_of_work
from db.fanout import department_channel
from db.feed import EventFeed
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.support.database import needs_pgbouncer
from tests.support.shop import Shop
from tests.support.subscriptions import print_tasks

pytestmark = needs_pgbouncer

MOVES = 30
# Clients taking PgBouncer's two server connections between the reader's statements.
CONTENDERS = 6


async def test_the_feed_reads_through_pgbouncer_while_others_share_its_connections(
    lone_shop: tuple[str, Shop], tmp_path: Path
) -> None:
    url, shop = lone_shop
    tasks = await print_tasks(shop, MOVES)
    stop = asyncio.Event()
    with pgbouncer.running(url, tmp_path, pool_size=2) as through:
        engine = create_engine(through, pool_size=CONTENDERS + 2, max_overflow=0, pgbouncer=True)

        async def contend() -> int:
            statements = 0
            while not stop.is_set():
                async with reading(engine) as conn:
                    await conn.execute(text("SELECT pg_sleep(0.001)"))
                statements += 1
            return statements

        # The listener connects to PostgreSQL itself; the reader polls rarely, so the
        # reads below are the test's own (a failed one raises here).
        feed = EventFeed(engine, url, enrich=reads.related, poll_interval=60)
        contenders = [asyncio.create_task(contend()) for _ in range(CONTENDERS)]
        try:
            await feed.start()
            got: list[int] = []
            async with feed.subscribe(department_channel(shop.departments["print"])) as live:
                for task in tasks:
                    async with unit_of_work(shop.engine) as conn:
                        actor = Actor(shop.users["pat"], False)
                        await transition_task(conn, task, TaskAction.START, actor)
                    await feed.catch_up()
                async with asyncio.timeout(10):
                    while len(got) < MOVES:
                        event = (await live.get()).message.event
                        if event.type == "TASK_CHANGED":
                            got.append(event.payload["taskId"])
        finally:
            stop.set()
            statements = await asyncio.gather(*contenders)
            await feed.stop()
            await engine.dispose()
    assert min(statements) > 0, "every contender ran while the feed read"
    assert feed.stats.read_errors == 0
    assert got == tasks
