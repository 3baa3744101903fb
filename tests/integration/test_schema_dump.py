"""src/db/schema.sql is what the migrations build; this fails when the two drift apart."""

from db.schema_dump import SCHEMA_FILE, migrated_schema


async def test_the_schema_dump_is_what_the_migrations_build(server_url: str) -> None:
    built = await migrated_schema(server_url)
    assert "CREATE TABLE public.work_orders" in built
    assert SCHEMA_FILE.read_text() == built, (
        "src/db/schema.sql is stale: run scripts/export-db-schema"
    )
