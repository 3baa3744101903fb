"""The store in one file: `src/db/schema.sql`, what the migrations build (tables,
functions, triggers, indexes), as pg_dump prints it, for reading. The migrations stay its
only source; `scripts/export-db-schema` writes the file again, and
tests/integration/test_schema_dump.py fails when the two drift apart.
"""

import asyncio
import os
import re
import sys
from pathlib import Path

from sqlalchemy.engine import make_url

from db import admin, embedded, migrate
from db.backup import dbname, run_client

SCHEMA_FILE = Path(__file__).with_name("schema.sql")
HEADER = (
    "-- What the migrations build, dumped by pg_dump: for reading, never run.\n"
    "-- Regenerate with scripts/export-db-schema (a test fails when it drifts).\n"
)
# Lines that depend on the pg_dump version or session, not on the schema.
_NOISE = re.compile(r"^(--|SET |SELECT pg_catalog\.set_config|\\(un)?restrict )")


def schema_of(url: str) -> str:
    """The schema of `url`'s database, without owners, rights or pg_dump's own lines."""
    database = make_url(url).database
    assert database
    dumped = run_client(
        "pg_dump",
        ["--schema-only", "--no-owner", "--no-privileges", dbname(database)],
        url,
    )
    lines = [line for line in dumped.splitlines() if not _NOISE.match(line)]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return HEADER + "\n" + text + "\n"


async def migrated_schema(server_url: str) -> str:
    """The schema the migrations build, in a scratch database of `server_url`'s server."""
    url = embedded.with_database(server_url, f"pressroom_schema_{os.getpid()}")
    await admin.recreate_database(url)
    try:
        await migrate.upgrade(url)
        return await asyncio.to_thread(schema_of, url)
    finally:
        await admin.drop_database(url)


def main() -> None:
    server = os.environ.get("DATABASE_URL")
    data_dir = Path(__file__).resolve().parents[2] / ".pressroom" / "test-pgdata"
    try:
        sys.stdout.write(asyncio.run(migrated_schema(server or embedded.start(data_dir))))
    finally:
        if not server:
            embedded.stop(data_dir)


if __name__ == "__main__":
    main()
