"""PRESSROOM_PGBOUNCER: refused without a direct URL for the listener; with one, the
database and the engine know the PgBouncer is there (tests/e2e/test_pgbouncer.py runs a
server through a real one); the PgBouncer configuration deploy/ ships keeps the server's
time limits."""

import pytest
from pydantic import ValidationError

from db import pgbouncer
from db.engine import behind_pgbouncer, create_engine
from pressroom.database import choose
from pressroom.settings import Settings

THROUGH = "postgresql://pressroom:pw@127.0.0.1:6432/pressroom"
DIRECT = "postgresql://pressroom:pw@127.0.0.1:5432/pressroom"


@pytest.mark.parametrize("given", [{}, {"database_url": THROUGH}, {"listen_database_url": DIRECT}])
def test_pgbouncer_needs_its_url_and_a_direct_one_for_the_listener(given: dict[str, str]) -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(pgbouncer=True, **given)  # type: ignore[arg-type]
    assert "PRESSROOM_LISTEN_DATABASE_URL" in str(refused.value)


async def test_the_engine_knows_it_is_behind_pgbouncer() -> None:
    settings = Settings(pgbouncer=True, database_url=THROUGH, listen_database_url=DIRECT)
    db = choose(settings)
    assert db.pgbouncer and db.url == THROUGH
    behind = create_engine(db.url, pgbouncer=db.pgbouncer)
    direct = create_engine(DIRECT)
    try:
        assert behind_pgbouncer(behind) and not behind_pgbouncer(direct)
    finally:
        await behind.dispose()
        await direct.dispose()


def test_the_shipped_pgbouncer_ini_runs_transaction_mode_with_the_servers_time_limits() -> None:
    config = pgbouncer.shipped()
    assert config["pgbouncer"]["pool_mode"] == "transaction"
    [line] = config["databases"].values()
    assert f"connect_query='{pgbouncer.connect_query()}'" in line
