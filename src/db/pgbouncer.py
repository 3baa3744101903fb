"""A PgBouncer in transaction mode in front of a PostgreSQL server: Debian's `pgbouncer`
as a child process on loopback, configured by the file deploy/ ships with only where it
listens, where the server is and its password file replaced. The cluster, the tests and
the benches run the server through it (docs/operations.md#through-pgbouncer)."""

import asyncio
import configparser
import os
import pwd
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url

from db.engine import SESSION_SETTINGS, create_engine

PROGRAM = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
START_SECONDS = 10
PROBE_SECONDS = 10
SHIPPED = Path(__file__).resolve().parents[2] / "deploy" / "pgbouncer.ini"


def installed() -> bool:
    return os.access(PROGRAM, os.X_OK)


def connect_query() -> str:
    """What PgBouncer runs on each new server connection: the per-session limits the
    server otherwise sends at start-up."""
    return "; ".join(f"SET {name} = {value}" for name, value in SESSION_SETTINGS.items())


async def refuses_session_settings(url: str) -> str | None:
    """PgBouncer's refusal when `url` is one and the server connects to it as to
    PostgreSQL (sending its session settings at start-up, which PgBouncer does not pass
    on); None when a connection opens, or fails for any other reason."""
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        # A server that does not answer soon is for the server's own start to report.
        async with asyncio.timeout(PROBE_SECONDS), engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as error:
        seen: BaseException | None = error
        while seen is not None:
            if found := re.search(r"unsupported startup parameter: \w+", str(seen)):
                return found.group(0)
            seen = seen.__cause__ or seen.__context__
    finally:
        await engine.dispose()
    return None


def shipped() -> configparser.ConfigParser:
    """deploy/pgbouncer.ini, read as PgBouncer reads it (`;` comments, `key = value`)."""
    config = configparser.ConfigParser(interpolation=None, comment_prefixes=(";", "#"))
    config.optionxform = str  # type: ignore[assignment,method-assign]
    config.read(SHIPPED)
    return config


@contextmanager
def running(url: str, workdir: Path, *, pool_size: int | None = None) -> Iterator[str]:
    """PgBouncer in front of `url`'s server (reached by its socket directory, as the
    embedded server is): the URL of the same database, as the same role, through it."""
    direct = make_url(url)
    # The embedded server is reached by its socket directory (`?host=`), others by address.
    host = str(direct.query.get("host") or direct.host or "127.0.0.1")
    port = free_port()
    (workdir / "userlist.txt").write_text(f'"{direct.username}" "{direct.password}"\n')
    settings = dict(shipped()["pgbouncer"])
    settings |= {
        "listen_addr": "127.0.0.1",
        "listen_port": str(port),
        "unix_socket_dir": "",
        "auth_file": str(workdir / "userlist.txt"),
    }
    if pool_size is not None:
        settings["default_pool_size"] = str(pool_size)
    lines = [f"{key} = {value}" for key, value in settings.items()]
    # Any database name, so the tests' databases need no line each.
    database = f"* = host={host} port={direct.port or 5432} connect_query='{connect_query()}'"
    (workdir / "pgbouncer.ini").write_text(
        "\n".join(["[databases]", database, "", "[pgbouncer]", *lines, ""])
    )
    # As root, PgBouncer must run as another user: the server's, whose socket directory
    # is its own (or nobody's, over TCP). Its files must be readable by that user.
    user = []
    if os.getuid() == 0:
        owner = os.stat(host).st_uid if host.startswith("/") else pwd.getpwnam("nobody").pw_uid
        user = ["-u", pwd.getpwuid(owner).pw_name]
    workdir.chmod(0o755)
    for name in ("userlist.txt", "pgbouncer.ini"):
        (workdir / name).chmod(0o644)
    process = subprocess.Popen([PROGRAM, "-q", *user, str(workdir / "pgbouncer.ini")])
    try:
        _wait_listening(port, process)
        yield direct.set(host="127.0.0.1", port=port, query={}).render_as_string(
            hide_password=False
        )
    finally:
        process.terminate()
        process.wait(timeout=START_SECONDS)


def free_port() -> int:
    """A loopback port free now (for PgBouncer here, and for the cluster's other parts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_listening(port: int, process: "subprocess.Popen[bytes]") -> None:
    """Until PgBouncer accepts connections on `port` (only its log says when)."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"pgbouncer exited ({process.returncode}) before listening")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"pgbouncer did not listen on port {port} within {START_SECONDS} s")
