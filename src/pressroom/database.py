"""Choosing the database: DATABASE_URL when set, else the embedded server."""

from db import admin, embedded
from pressroom.settings import Settings


def database_url(settings: Settings) -> str:
    """The URL to use; starts (or joins) the embedded server when DATABASE_URL is unset."""
    if settings.database_url:
        return settings.database_url
    server = embedded.start(settings.data_dir / "pgdata")
    return embedded.with_database(server, settings.database_name)


async def prepare(settings: Settings, url: str) -> None:
    """The embedded server starts empty: create the app's database in it once."""
    if not settings.database_url:
        await admin.ensure_database(url)


def stop_embedded(settings: Settings) -> None:
    """Stop the embedded server if this is the last process using it."""
    if not settings.database_url:
        embedded.stop(settings.data_dir / "pgdata")
