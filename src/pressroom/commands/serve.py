"""`pressroom serve`: the checks before serving, the demo shop, uvicorn and the way out."""

import argparse
import asyncio
import gc
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

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
            # This process only watches over the workers, new interpreters that each turn
            # the collector on as their app starts: it collects from here as any would.
            gc.enable()
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
