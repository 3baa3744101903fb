"""Choosing the database: DATABASE_URL when set, else the embedded server; and the roles
each piece of work connects as (docs/operations.md#database-roles)."""

from dataclasses import dataclass
from datetime import timedelta

from db import admin, embedded, migrate, pgbouncer, roles
from pressroom.settings import Settings


@dataclass(frozen=True)
class Database:
    """Where the app's database is, and as whom to reach it."""

    # The server's role: requests, the event feed, the CLI's own writes.
    url: str
    # The schema's owner: migrations (and, with DATABASE_URL, backup and restore).
    migration_url: str
    # Embedded only: the superuser, which creates the database, hands it to the owner,
    # backs it up and restores it.
    superuser_url: str | None = None
    # The role the owner grants the server's rights to when it migrates; None to grant
    # to the role of `url` when it differs from the owner's.
    server_role: str | None = None
    # `url` is a PgBouncer in transaction mode (PRESSROOM_PGBOUNCER).
    pgbouncer: bool = False

    @classmethod
    def at(cls, url: str) -> "Database":
        """One URL for everything (the tests' databases)."""
        return cls(url=url, migration_url=url)

    @property
    def migrates_through_pgbouncer(self) -> bool:
        """Without a URL of its own, the migration goes where requests do."""
        return self.pgbouncer and self.migration_url == self.url

    @property
    def admin_url(self) -> str:
        """Who backs up and restores: the superuser, else the owner."""
        return self.superuser_url or self.migration_url


def choose(settings: Settings) -> Database:
    """The database to use; starts (or joins) the embedded server when DATABASE_URL is unset."""
    if settings.database_url:
        return Database(
            url=settings.database_url,
            migration_url=settings.migration_database_url or settings.database_url,
            pgbouncer=settings.pgbouncer,
        )
    pgdata = settings.data_dir / "pgdata"
    embedded.start(pgdata)
    name = settings.database_name
    return Database(
        url=embedded.role_url(pgdata, roles.SERVER_ROLE, name),
        migration_url=embedded.role_url(pgdata, roles.OWNER_ROLE, name),
        superuser_url=embedded.role_url(pgdata, embedded.SUPERUSER, name),
        server_role=roles.SERVER_ROLE,
    )


def database_url(settings: Settings) -> str:
    """The server role's URL (the embedded server started or joined if needed)."""
    return choose(settings).url


async def prepare(db: Database, retention: timedelta | None = None) -> None:
    """Make the database ready for the server: created and handed to the owner (the
    embedded server), migrated by the owner, its rights granted to the server's role, and
    with `retention`, that recorded as the shortest the server's role may prune at."""
    if db.superuser_url:
        await admin.ensure_database(db.superuser_url, owner=roles.OWNER_ROLE)
        await roles.hand_over(db.superuser_url, roles.OWNER_ROLE)
    server_role = db.server_role
    if server_role is None and db.migration_url != db.url:
        server_role = await roles.current_role(db.url, pgbouncer=db.pgbouncer)
    await migrate.upgrade(
        db.migration_url,
        grant_to=server_role,
        retention=retention,
        pgbouncer=db.migrates_through_pgbouncer,
    )


def stop_embedded(settings: Settings) -> None:
    """Stop the embedded server if this is the last process using it."""
    if not settings.database_url:
        embedded.stop(settings.data_dir / "pgdata")


async def unannounced_pgbouncer(settings: Settings, db: Database) -> str | None:
    """Why the server cannot start when DATABASE_URL is a PgBouncer it was not told of
    (PgBouncer refuses the session settings sent at start-up); None otherwise."""
    if not settings.database_url or settings.pgbouncer:
        return None
    refused = await pgbouncer.refuses_session_settings(db.url)
    if refused is None:
        return None
    return (
        f"DATABASE_URL refused the server's session settings ({refused}): it looks like "
        "PgBouncer. Set PRESSROOM_PGBOUNCER=true, and PRESSROOM_LISTEN_DATABASE_URL to "
        "PostgreSQL itself for the event listener (docs/operations.md, Through PgBouncer)."
    )
