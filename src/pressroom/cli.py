"""The `pressroom` command."""

import argparse
import asyncio
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from api.version import VERSION
from pressroom import logs
from pressroom.settings import PUBLIC_URL_NEEDED, Settings

if TYPE_CHECKING:
    from pressroom.database import Database

# How long uvicorn waits for a `--workers` process to answer its ping before replacing it.
WORKER_HEALTHCHECK_SECONDS = 60


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from api.links import customer_url
    from pressroom.app import create_app, server_options
    from pressroom.database import choose, stop_embedded, unannounced_pgbouncer

    if settings.production and not settings.metrics_token:
        print(
            "error: PRESSROOM_ENV=production needs PRESSROOM_METRICS_TOKEN: /metrics would "
            "otherwise tell anyone what the shop is doing. Set it to a long random secret "
            "for the Prometheus scraper.",
            file=sys.stderr,
        )
        return 2
    if settings.public_url is None:
        print(f"error: {PUBLIC_URL_NEEDED}", file=sys.stderr)
        return 2
    db = choose(settings)
    if unannounced := asyncio.run(unannounced_pgbouncer(settings, db)):
        print(f"error: {unannounced}", file=sys.stderr)
        return 2
    if args.demo:
        info = asyncio.run(_seed_demo(db))
        print("Demo shop " + ("seeded." if info.seeded else "already seeded."))
        print(f"The shop's app: http://{args.host}:{args.port}/")
        print(f"GraphQL endpoint: http://{args.host}:{args.port}/graphql")
        print("Sign in as any of (password 'pressroom'):")
        for email, name, _ in info.logins:
            print(f"  {email:24} {name}")
        print(
            f"Wall display: http://{args.host}:{args.port}/display/print?token=<secret> "
            "(an admin gets a secret from createDisplayToken)."
        )
        if info.customer_secret is not None:
            url = customer_url(settings.public_url, info.customer_secret)
            print(f"A customer's page, an order waiting for their approval: {url}")
    # uvicorn re-raises SIGTERM/SIGINT after its graceful shutdown; turning them into
    # an exception of our own lets the embedded PostgreSQL be stopped on the way out,
    # while uvicorn's own exits (a port already in use: 1) keep their code.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stop_on_signal)
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "access_log": settings.access_log,
        "log_config": logs.config(),
        **server_options(settings),
    }
    code = 0
    try:
        if args.workers > 1:
            # Each worker reads its settings from the environment, without these options.
            os.environ["PRESSROOM_PUBLIC_URL"] = settings.public_url
            # Each worker process builds its own app, with its own event feed. A worker that
            # has not answered uvicorn's ping in time is killed and replaced: on a busy
            # machine a new one takes longer than uvicorn's 5 s to import the app, so the
            # default kept killing them before they ever served.
            uvicorn.run(
                "pressroom.app:create_app",
                factory=True,
                workers=args.workers,
                timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
                **options,
            )
        else:
            uvicorn.run(create_app(settings, db=db), **options)
    except _Stopped:
        pass
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
        if code:
            print(f"error: the server could not start on {args.host}:{args.port}.", file=sys.stderr)
    finally:
        stop_embedded(settings)
    return code


class _Stopped(Exception):
    pass


def _stop_on_signal(signum: int, frame: object) -> None:
    raise _Stopped


async def _seed_demo(db: "Database"):  # type: ignore[no-untyped-def]
    from db.engine import create_engine
    from pressroom.database import prepare
    from pressroom.demo import seed

    await prepare(db)
    engine = create_engine(db.url, pgbouncer=db.pgbouncer)
    try:
        return await seed(engine)
    finally:
        await engine.dispose()


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from db import migrate
    from pressroom.database import choose, prepare

    asyncio.run(prepare(choose(settings), settings.event_retention))
    print(f"Database is at revision {migrate.head_revision()}.")
    return 0


def cmd_create_user(args: argparse.Namespace, settings: Settings) -> int:
    from db import people
    from db.engine import create_engine, unit_of_work
    from domain import validation
    from domain.errors import DomainError
    from pressroom.database import choose, prepare

    # The password is read before the database is touched: a wrong one changes nothing.
    try:
        email = validation.email(args.email)
        name = validation.text(args.name, "name") if args.name else None
        password = validation.password(read_password(args.password_stdin))
    except (DomainError, NoPassword) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    db = choose(settings)

    async def run() -> str:
        await prepare(db)
        engine = create_engine(db.url, pool_size=1, max_overflow=0, pgbouncer=db.pgbouncer)
        try:
            async with unit_of_work(engine) as conn:
                departments = await people.departments_by_codes(
                    conn, validation.codes(args.department or []), "--department"
                )
                user = await people.upsert_user(
                    conn,
                    email=email,
                    name=name,
                    password=password,
                    is_admin=args.admin,
                    department_ids=[d.id for d in departments],
                )
                return f"User {user.email} ({'admin' if user.is_admin else 'worker'}) is ready."
        finally:
            await engine.dispose()

    try:
        print(asyncio.run(run()))
    except DomainError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return 2
    return 0


class NoPassword(Exception):
    pass


def read_password(from_stdin: bool) -> str:
    """One line of standard input (its line ending dropped, nothing else), or asked twice
    on the terminal without echo. Never an argument: every user of the machine can read
    a process's command line."""
    if from_stdin:
        return sys.stdin.readline().removesuffix("\n").removesuffix("\r")
    # A script without --password-stdin fails at once instead of waiting on a prompt.
    if not sys.stdin.isatty():
        raise NoPassword(
            "standard input is not a terminal to ask the password on; "
            "give it on standard input with --password-stdin."
        )
    import getpass

    try:
        password = getpass.getpass("Password: ")
        again = getpass.getpass("Password again: ")
    except EOFError:
        raise NoPassword("no password given.") from None
    if again != password:
        raise NoPassword("the two passwords differ; nothing was changed.")
    return password


def cmd_import_legacy(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from rich.console import Console

    from db.engine import holds_password
    from domain.errors import DomainError
    from domain.money import currency_code, exponent
    from pressroom.database import choose, prepare
    from pressroom.legacy_import import import_legacy, summary_table, write_report

    try:
        currency = currency_code(args.currency or settings.currency)
    except DomainError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return 2
    if exponent(currency) != 2:
        print(f"error: legacy amounts are cents; {currency} has no cents.", file=sys.stderr)
        return 2
    if holds_password(args.source_url):
        print(
            "warning: --source-url holds a password, which other users of this machine can "
            "read in the command line; give it in PGPASSWORD or a password file (PGPASSFILE, "
            "~/.pgpass) instead.",
            file=sys.stderr,
        )
    db = choose(settings)

    # Ours first, so that a failure to connect names the database that failed.
    try:
        asyncio.run(prepare(db))
    except Exception as error:
        return _unreachable("the database", error)
    try:
        summary = asyncio.run(
            import_legacy(
                args.source_url,
                db.url,
                currency=currency,
                dry_run=args.dry_run,
                progress=sys.stderr.isatty(),
            )
        )
    except Exception as error:
        return _unreachable("the legacy database", error)
    Console().print(summary_table(summary, args.dry_run))
    if args.report:
        write_report(Path(args.report), summary.exclusions)
        print(f"Exclusion report ({len(summary.exclusions)} rows): {args.report}")
    return 0


def _unreachable(name: str, error: Exception) -> int:
    """Exit code 2 and one line for a database that cannot be reached or refuses to let us
    in; anything else is a bug and raised."""
    from db.engine import sign_in_refused, unavailable

    if not (unavailable(error) or sign_in_refused(error)):
        raise error
    # The driver's own message, without SQLAlchemy's wrapping around it.
    print(f"error: cannot reach {name}: {getattr(error, 'orig', None) or error}", file=sys.stderr)
    return 2


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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pressroom", description="Run the print shop's floor.")
    p.add_argument("--version", action="version", version=f"pressroom {VERSION}")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="migrate the database, then serve the API")
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    serve.add_argument("--demo", action="store_true", help="seed a demo shop once")
    serve.add_argument(
        "--workers", type=int, default=1, help="server processes, each with its own feed (1)"
    )
    serve.set_defaults(func=cmd_serve)
    sub.add_parser("migrate", help="upgrade the database to the latest revision").set_defaults(
        func=cmd_migrate
    )
    # No abbreviations: `--password` must not pass for --password-stdin.
    user = sub.add_parser(
        "create-user",
        help="create or update a user (e.g. the first admin); the password is asked for",
        allow_abbrev=False,
    )
    user.add_argument("--email", required=True)
    user.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from one line of standard input instead of asking for it",
    )
    user.add_argument("--name")
    user.add_argument("--admin", action="store_true", help="grant admin (never revoked here)")
    user.add_argument("--department", action="append", metavar="CODE")
    user.set_defaults(func=cmd_create_user)
    legacy = sub.add_parser(
        "import-legacy",
        help="import the old system's users, orders and payments (safe to run again)",
    )
    legacy.add_argument(
        "--source-url",
        required=True,
        help="database holding schema `legacy`; its password from PGPASSWORD or a password "
        "file (PGPASSFILE, ~/.pgpass), not the URL",
    )
    legacy.add_argument("--dry-run", action="store_true", help="plan and report; write nothing")
    legacy.add_argument("--report", metavar="PATH", help="write the exclusions as CSV")
    legacy.add_argument(
        "--currency", help="currency of the legacy amounts (default: PRESSROOM_CURRENCY)"
    )
    legacy.set_defaults(func=cmd_import_legacy)
    sub.add_parser(
        "rebuild-flow", help="derive every task's flow figures from history again"
    ).set_defaults(func=cmd_rebuild_flow)
    sub.add_parser(
        "db-url", help="print the database URL the server uses (its role's)"
    ).set_defaults(func=cmd_db_url)
    db_roles = sub.add_parser(
        "db-roles", help="print the SQL that makes the owner's and the server's roles"
    )
    db_roles.add_argument(
        "--database", help="default: DATABASE_URL's database, else PRESSROOM_DATABASE_NAME"
    )
    db_roles.add_argument("--owner", help="the owner's role (pressroom_owner)")
    db_roles.add_argument("--server", help="the server's role (pressroom_server)")
    db_roles.set_defaults(func=cmd_db_roles)
    backup = sub.add_parser("backup", help="write the database to a file (pg_dump custom format)")
    backup.add_argument("path", metavar="PATH")
    backup.set_defaults(func=cmd_backup)
    restore = sub.add_parser(
        "restore", help="replace the database with a backup, then migrate it to the latest revision"
    )
    restore.add_argument("path", metavar="PATH")
    restore.add_argument("--force", action="store_true", help="replace a database that holds data")
    restore.set_defaults(func=cmd_restore)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # serve's options win over the environment (and the links in development follow them).
    given = {k: v for k in ("host", "port") if (v := getattr(args, k, None)) is not None}
    try:
        settings = Settings(**given)
    except ValidationError as error:
        print(f"error: {_refusals(error)}", file=sys.stderr)
        return 2
    # Before anything is hashed: `create-user`, the demo's people, the server's sign-ins.
    settings.configure_hashing()
    if args.command == "serve":
        args.host, args.port = settings.host, settings.port
    logs.configure()
    from db.embedded import EmbeddedError

    try:
        result: int = args.func(args, settings)
    except EmbeddedError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return result


def _refusals(error: ValidationError) -> str:
    """What is wrong with the settings, without the values given: they may hold secrets."""
    return "; ".join(
        f"{'.'.join(map(str, e['loc']))}: {e['msg']}" if e["loc"] else e["msg"]
        for e in error.errors(include_input=False, include_url=False)
    )


if __name__ == "__main__":
    sys.exit(main())
