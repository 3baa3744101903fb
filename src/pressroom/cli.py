"""The `pressroom` command: its arguments, the settings every subcommand is given, and
the errors they share; each subcommand's work is in `pressroom.commands`."""

import argparse
import gc
import sys

from pydantic import ValidationError

from api.version import VERSION
from pressroom import logs
from pressroom.commands.database import (
    cmd_backup,
    cmd_db_roles,
    cmd_db_url,
    cmd_migrate,
    cmd_rebuild_flow,
    cmd_restore,
)
from pressroom.commands.legacy import cmd_import_legacy
from pressroom.commands.people import cmd_create_user
from pressroom.commands.serve import cmd_serve
from pressroom.settings import Settings


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
    # Start-up (the imports, the schema, the app) makes some 300,000 objects that live as
    # long as the process, and the cyclic collector walked them again and again as they
    # were made: a quarter of a server's start. It stays off through start-up: the server
    # turns it on once its app has started (graph/engine/__init__.py), and the other
    # commands are batches that make few cycles (the legacy import's own finding).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(argv)
    finally:
        if collecting:
            gc.enable()


def _run(argv: list[str] | None) -> int:
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
