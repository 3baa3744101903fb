"""A replica told PRESSROOM_PGBOUNCER=true and given no PRESSROOM_MIGRATION_DATABASE_URL
migrates at boot through PgBouncer in transaction mode (DATABASE_URL migrates): an empty
database reaches the head, and every later boot, on a server connection an earlier client
prepared statements on, finds it there."""

from pathlib import Path

from db import migrate, pgbouncer
from db.engine import create_engine
from pressroom.database import choose, prepare
from pressroom.settings import Settings
from tests.support.database import needs_pgbouncer, scratch_database

pytestmark = needs_pgbouncer

BOOTS = 3


async def test_replicas_migrate_through_pgbouncer_without_a_migration_url(
    server_url: str, tmp_path: Path
) -> None:
    async with scratch_database(server_url, "pressroom_bouncer_boot") as url:
        # One server connection: each boot's client gets the one the last one used.
        with pgbouncer.running(url, tmp_path, pool_size=1) as through:
            settings = Settings(database_url=through, pgbouncer=True, listen_database_url=url)
            db = choose(settings)
            assert db.migration_url == through
            for _ in range(BOOTS):
                await prepare(db)
        engine = create_engine(url, pool_size=1, max_overflow=0)
        try:
            async with engine.connect() as conn:
                assert await migrate.current_revision(conn) == migrate.head_revision()
        finally:
            await engine.dispose()
