"""Following the log reads a webhook's next page by the (xid, id) index, never the log
before its cursor: the relay runs it for every webhook it holds, each round, and a scan of
the whole log each time made the database the floor's bottleneck."""

import json
from typing import Any

from sqlalchemy import text

from db import webhooks
from db.queries import Q
from domain import webhooks as rules
from domain.enums import EventType
from tests.support.shop import Shop

OLD_LOG = 50_000


def rows_read(plan: dict[str, Any], relation: str) -> int:
    """The rows every scan of `relation` in the plan read (returned or filtered out), over
    all its loops."""
    own = 0
    if plan.get("Relation Name") == relation:
        own = (plan["Actual Rows"] + plan.get("Rows Removed by Filter", 0)) * plan["Actual Loops"]
    return int(own + sum(rows_read(child, relation) for child in plan.get("Plans", [])))


async def test_following_reads_the_log_after_the_cursor_only(shop: Shop) -> None:
    async with shop.engine.connect() as conn, conn.begin() as transaction:
        # A long log before the cursor (an old transaction's, rolled back with the test),
        # and its statistics: the plan a busy shop's database chooses.
        await conn.execute(
            text(
                "INSERT INTO events (xid, type, payload) SELECT CAST('3' AS xid8),"
                " 'TOKEN_REVOKED', '{}' FROM generate_series(1, :n)"
            ),
            {"n": OLD_LOG},
        )
        await conn.execute(text("ANALYZE events"))
        made = await webhooks.create(
            conn,
            webhooks.NewWebhook(
                url="http://127.0.0.1:9/in",
                description=None,
                event_kinds=[EventType.TASK_CHANGED],
                department_ids=None,
                secret=rules.new_secret(),
                created_by=shop.users["ada"],
            ),
        )
        [hook] = await webhooks.claim(conn, "test", 60, 1)
        assert hook.id == made.id
        logged = (await conn.execute(text("SELECT count(*) FROM events"))).scalar_one()
        after = (
            await conn.execute(
                text(
                    "SELECT count(*) FROM events e, webhooks w WHERE w.id = :id"
                    " AND (e.xid, e.id) > (w.cursor_xid, w.cursor_id)"
                ),
                {"id": hook.id},
            )
        ).scalar_one()
        assert logged >= OLD_LOG + after
        params = {"id": hook.id, "owner": "test", "version": hook.version, "limit": 1000}
        explained = await conn.execute(
            text("EXPLAIN (ANALYZE, FORMAT JSON) " + Q["follow_webhook"].text), params
        )
        found = explained.scalar_one()
        plan = (json.loads(found) if isinstance(found, str) else found)[0]["Plan"]
        await transaction.rollback()
    assert rows_read(plan, "events") <= after, json.dumps(plan, indent=1)
