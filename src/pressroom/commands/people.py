"""`pressroom create-user`, and the password it reads from standard input or the terminal."""

import argparse
import asyncio
import sys

from pressroom.settings import Settings


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
