"""PostGraphile 4, the server the dashboard page is measured beside (bench/dashboard.py):
the version bench/postgraphile pins, installed with npm once, run as a subprocess."""

import argparse
import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx

from bench.output import log
from bench.servers import ServerSubprocess

POSTGRAPHILE_PACKAGE = Path(__file__).with_name("postgraphile")
POSTGRAPHILE_CACHE = Path.home() / ".cache" / "pressroom-bench" / "postgraphile"


def add_cache_argument(parser: argparse.ArgumentParser) -> None:
    """`--postgraphile-cache`, for the benches that run PostGraphile beside Pressroom."""
    parser.add_argument(
        "--postgraphile-cache",
        type=Path,
        default=POSTGRAPHILE_CACHE,
        help=f"where npm installs PostGraphile ({POSTGRAPHILE_CACHE})",
    )


POSTGRAPHILE_OPTIONS = (
    "--disable-graphiql",
    # As recommended for production: logging every query costs CPU per page.
    "--disable-query-log",
    "--simple-collections",
    "both",
    "--no-setof-functions-contain-nulls",
)


def pinned_postgraphile() -> str:
    """The PostGraphile version bench/postgraphile/package.json pins."""
    manifest = json.loads((POSTGRAPHILE_PACKAGE / "package.json").read_text())
    version: str = manifest["dependencies"]["postgraphile"]
    return version


def installed_postgraphile(cache: Path) -> str | None:
    """The PostGraphile version installed in `cache`, if the install is complete and from
    the lock file the repository holds now."""
    try:
        version: str = json.loads(
            (cache / "node_modules" / "postgraphile" / "package.json").read_text()
        )["version"]
        ours = (POSTGRAPHILE_PACKAGE / "package-lock.json").read_bytes()
        theirs = (cache / "package-lock.json").read_bytes()
    except (OSError, ValueError, KeyError):
        return None
    return version if ours == theirs else None


def install_postgraphile(cache: Path) -> tuple[Path | None, str]:
    """PostGraphile's CLI script, installed with npm into `cache` unless it is there
    already; or None and why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return None, f"{'node' if node is None else 'npm'} is not on PATH"
    version = pinned_postgraphile()
    cli = cache / "node_modules" / "postgraphile" / "cli.js"
    if installed_postgraphile(cache) == version and cli.exists():
        return cli, f"postgraphile {version} already installed in {cache}"
    log(f"installing postgraphile {version} with npm into {cache}")
    try:
        cache.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(POSTGRAPHILE_PACKAGE / name, cache / name)
        done = subprocess.run(
            [npm, "ci", "--prefix", str(cache), "--no-audit", "--no-fund", "--loglevel=error"],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=cache,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"the install failed: {error}"
    if done.returncode != 0:
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        return None, f"npm ci failed (exit {done.returncode}): {tail}"
    if installed_postgraphile(cache) != version or not cli.exists():
        return None, f"npm ci ran, but postgraphile {version} is not in {cache}"
    return cli, f"postgraphile {version} installed in {cache}"


class PostGraphileProcess(ServerSubprocess):
    """`postgraphile` (node)."""

    def __init__(self, cli: Path, dsn: str) -> None:
        super().__init__("postgraphile")
        self.cli = cli
        self.dsn = dsn

    def command(self) -> tuple[list[str], dict[str, str], Path]:
        node = shutil.which("node") or "node"
        command = [
            node,
            str(self.cli),
            "--connection",
            self.dsn,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            *POSTGRAPHILE_OPTIONS,
        ]
        return command, {**os.environ, "NODE_ENV": "production"}, self.cli.parent

    async def probe(self, client: httpx.AsyncClient) -> httpx.Response:
        return await client.post(self.http_url, json={"query": "{ __typename }"})

    def failure(self, what: str) -> RuntimeError:
        # With its log's tail: the log is removed when it stops.
        return RuntimeError(f"postgraphile {what}: {self.tail(5, ' | ')}")
