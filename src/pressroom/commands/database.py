"""The database's upkeep: `migrate`, `rebuild-flow`, `db-url`, `db-roles`, `backup` and
`restore`."""

import argparse
import asyncio
import sys

from pressroom.settings import Settings


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from db import migrate
    from pressroom.database import choose, prepare

    asyncio.run(prepare(choose(settings), settings.event_retention))
    print(f"Database is at revision {migrate.head_revision()}.")
    return 0


def cmd_rebuild_flow(args: argparse.Namespace, settings: Settings) -> int:
    from db import flow
    from db.engine import create_engine
    from pressroom.database import choose, prepare

    db = choose(settings)

    async def run() -> int:
        await prepare(db)
        engine = create_engine(db.url, pool_size=1, max_overflow=0, pgbouncer=db.pgbouncer)
        try:
            return await flow.rebuild_all(engine)
        finally:
            await engine.dispose()

    print(f"Flow figures of {asyncio.run(run()):,} tasks rebuilt from history.")
    return 0


def cmd_db_url(args: argparse.Namespace, settings: Settings) -> int:
    from pressroom.database import database_url

    print(database_url(settings))
    return 0


def cmd_db_roles(args: argparse.Namespace, settings: Settings) -> int:
    from sqlalchemy.engine import make_url

    from db import roles

    database = args.database
    if database is None and settings.database_url:
        database = make_url(settings.database_url).database
    owner, server = args.owner or roles.OWNER_ROLE, args.server or roles.SERVER_ROLE
    print(roles.dba_script(database or settings.database_name, owner, server), end="")
    return 0


def cmd_backup(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from db import backup
    from pressroom.database import choose, stop_embedded

    try:
        done = backup.dump(choose(settings).admin_url, Path(args.path))
    except backup.BackupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        stop_embedded(settings)
    print(f"Backed up database {done.database} to {done.path} ({done.size:,} bytes).")
    return 0


def cmd_restore(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from db import backup
    from pressroom.database import choose, prepare, stop_embedded

    async def run() -> backup.Restored:
        restored = await backup.restore(db.admin_url, Path(args.path), force=args.force)
        # Restored tables belong to whoever restored them: the owner takes them back,
        # and the server's role gets its rights on them again.
        await prepare(db)
        return restored

    try:
        db = choose(settings)
        done = asyncio.run(run())
    except backup.BadBackupFile as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except backup.RestoreRefused as error:
        print(f"error: {error}", file=sys.stderr)
        return 3
    except backup.BackupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        stop_embedded(settings)
    print(
        f"Restored {done.path} into database {done.database}"
        + (" (its previous data replaced)" if done.replaced else "")
        + f"; it is at revision {done.revision}."
    )
    return 0
