"""`pressroom import-legacy`: its options checked, then the import (`pressroom.legacy_import`)
run, with one clear line for a database that cannot be reached."""

import argparse
import asyncio
import sys

from pressroom.settings import Settings


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
