"""The deployed shape on this machine's loopback (`scripts/cluster up|down`): a PostgreSQL
(the embedded one, under the cluster's directory, or DATABASE_URL's), Debian's PgBouncer in
transaction mode, three `pressroom serve` replicas and Debian's HAProxy in front, each
configured by the files deploy/ ships (docs/operations.md#a-cluster).

`up` runs in the foreground and stops everything on SIGTERM or Ctrl-C; `down` signals it
through its pid file. The cluster tests drive the same `Cluster` in their own process:
rolling restarts, a replica killed, PostgreSQL restarted under it.
"""

import argparse
import asyncio
import contextlib
import csv
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from db import embedded, pgbouncer
from pressroom.database import Database, choose, prepare
from pressroom.settings import PROJECT_ROOT, Settings

HAPROXY_CFG = PROJECT_ROOT / "deploy" / "haproxy.cfg"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
REPLICAS = 3
BACKEND = "replicas"
# Where HAProxy connects to the replicas from on loopback: the one forwarder they believe.
HAPROXY_ADDRESS = "127.0.0.1"
# How long a replica may take to boot, or HAProxy to see a change.
WAIT_SECONDS = 120


class ClusterError(Exception):
    """The cluster cannot run here; the message says why and what to install."""


def missing() -> list[str]:
    """The Debian packages the cluster needs that are not installed."""
    absent = [] if os.access(HAPROXY, os.X_OK) else ["haproxy"]
    return absent + ([] if pgbouncer.installed() else ["pgbouncer"])


@dataclass
class Replica:
    name: str
    port: int
    log: Path
    process: "subprocess.Popen[bytes] | None" = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Cluster:
    """A running cluster: its address, its database and its parts, for tests to act on."""

    workdir: Path
    db: Database
    # The server role's URL through PgBouncer (what the replicas use).
    through: str
    port: int
    replicas: list[Replica]
    env: dict[str, str]
    admin_socket: Path
    data_dir: Path | None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- replicas ---------------------------------------------------------------------------

    def start(self, replica: Replica) -> None:
        """Start `replica` and wait until it answers /readyz and HAProxy sends it traffic."""
        env = self.env | {"PRESSROOM_REPLICA": replica.name}
        with replica.log.open("ab") as log:
            replica.process = subprocess.Popen(
                [sys.executable, "-m", "pressroom.cli", "serve", "--port", str(replica.port)],
                cwd=PROJECT_ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        until(lambda: self._ready(replica), f"{replica.name} ready")
        self.admin(f"set server {BACKEND}/{replica.name} state ready")
        until(lambda: self.status()[replica.name] == "UP", f"{replica.name} UP in HAProxy")

    def stop(self, replica: Replica, sig: int = signal.SIGTERM) -> int:
        """Stop `replica` with `sig` (SIGTERM: drained first in HAProxy, so no new
        connection goes there while it finishes); its exit code."""
        assert replica.process is not None, f"{replica.name} is not running"
        if sig == signal.SIGTERM:
            self.admin(f"set server {BACKEND}/{replica.name} state drain")
        replica.process.send_signal(sig)
        code = replica.process.wait(timeout=WAIT_SECONDS)
        replica.process = None
        return code

    def restart(self, replica: Replica, sig: int = signal.SIGTERM) -> int:
        code = self.stop(replica, sig)
        self.start(replica)
        return code

    def roll(self) -> list[int]:
        """A rolling restart: each replica drained, stopped and back in rotation before
        the next; their exit codes."""
        return [self.restart(replica) for replica in self.replicas]

    def restart_database(self) -> None:
        """Restart the embedded PostgreSQL under the running cluster."""
        assert self.data_dir is not None, "only the cluster's own PostgreSQL is restarted"
        embedded.restart(self.data_dir)

    # --- HAProxy ----------------------------------------------------------------------------

    def admin(self, command: str) -> str:
        """A command on HAProxy's admin socket, and its answer."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(self.admin_socket))
            s.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def status(self) -> dict[str, str]:
        """Each replica's state as HAProxy sees it (UP, DOWN, DRAIN, MAINT...)."""
        rows = csv.DictReader(io.StringIO(self.admin("show stat").lstrip("# ")))
        return {row["svname"]: row["status"] for row in rows if row["pxname"] == BACKEND}

    # --- waiting ----------------------------------------------------------------------------

    def _ready(self, replica: Replica) -> bool:
        assert replica.process is not None
        if (code := replica.process.poll()) is not None:
            raise ClusterError(
                f"{replica.name} exited ({code}); the end of {replica.log}:\n{tail(replica.log)}"
            )
        try:
            with urllib.request.urlopen(f"{replica.url}/readyz", timeout=5) as answer:
                return bool(answer.status == 200)
        except (urllib.error.URLError, OSError):
            return False


def tail(log: Path, lines: int = 40) -> str:
    """The last lines of a part's log, for an error that says why it stopped."""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def until(condition: Callable[[], bool], what: str) -> None:
    """Until `condition()` holds (a part's state, seen from outside), or fail."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise ClusterError(f"waited {WAIT_SECONDS} s for {what}")
        time.sleep(0.1)


@contextmanager
def running(workdir: Path, database_url: str | None = None, **settings: str) -> Iterator[Cluster]:
    """The cluster under `workdir`, on `database_url` (the schema owner's) or on an embedded
    PostgreSQL of its own; `settings` go to every replica's environment
    (e.g. PRESSROOM_DRAIN_SECONDS="5")."""
    if absent := missing():
        raise ClusterError(
            f"the cluster needs Debian's {' and '.join(absent)}: apt-get install {' '.join(absent)}"
        )
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    data_dir = None if database_url else workdir / "pgdata"
    with ExitStack() as stack:
        if database_url:
            db = Database.at(database_url)
        else:
            db = choose(Settings(data_dir=workdir, database_url=None))
            stack.callback(embedded.stop, workdir / "pgdata")
        # Migrated once, before any replica (each would otherwise race to do it).
        asyncio.run(prepare(db))
        bouncer = workdir / "pgbouncer"
        bouncer.mkdir(exist_ok=True)
        through = stack.enter_context(pgbouncer.running(db.url, bouncer))
        replicas = [
            Replica(f"r{n}", pgbouncer.free_port(), workdir / f"r{n}.log")
            for n in range(1, REPLICAS + 1)
        ]
        cluster = Cluster(
            workdir=workdir,
            db=db,
            through=through,
            port=pgbouncer.free_port(),
            replicas=replicas,
            env=_replica_env(db, through, settings),
            admin_socket=workdir / "haproxy.sock",
            data_dir=data_dir,
        )
        stack.callback(_stop_replicas, cluster)
        _start_haproxy(cluster, stack)
        for replica in replicas:
            cluster.start(replica)
        yield cluster


def _replica_env(db: Database, through: str, settings: dict[str, str]) -> dict[str, str]:
    """As compose's replicas: no owner's password (the cluster migrated before them, and
    each boot migration finds the head through PgBouncer), and only HAProxy's word on a
    client's address."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("PRESSROOM_")}
    return inherited | {
        "DATABASE_URL": through,
        "PRESSROOM_PGBOUNCER": "true",
        "PRESSROOM_LISTEN_DATABASE_URL": db.url,
        "FORWARDED_ALLOW_IPS": HAPROXY_ADDRESS,
        **settings,
    }


def _start_haproxy(cluster: Cluster, stack: ExitStack) -> None:
    env = os.environ | {
        "PRESSROOM_BIND": f"127.0.0.1:{cluster.port}",
        "HAPROXY_ADMIN_SOCKET": str(cluster.admin_socket),
        **{
            f"PRESSROOM_REPLICA_{n}": f"127.0.0.1:{replica.port}"
            for n, replica in enumerate(cluster.replicas, 1)
        },
    }
    log: IO[bytes] = stack.enter_context((cluster.workdir / "haproxy.log").open("ab"))
    # -db: in the foreground, a child of this process.
    process = subprocess.Popen(
        [HAPROXY, "-db", "-f", str(HAPROXY_CFG)], env=env, stdout=log, stderr=subprocess.STDOUT
    )

    def stop() -> None:
        process.terminate()
        process.wait(timeout=WAIT_SECONDS)

    stack.callback(stop)

    def listening() -> bool:
        if process.poll() is not None:
            log = cluster.workdir / "haproxy.log"
            raise ClusterError(f"haproxy exited; the end of {log}:\n{tail(log)}")
        return cluster.admin_socket.exists()

    until(listening, "HAProxy's admin socket")
    # Down until each replica has started and passed its check.
    for replica in cluster.replicas:
        cluster.admin(f"set server {BACKEND}/{replica.name} state maint")


def _stop_replicas(cluster: Cluster) -> None:
    for replica in cluster.replicas:
        if replica.process is not None:
            replica.process.send_signal(signal.SIGTERM)
    for replica in cluster.replicas:
        if replica.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                replica.process.wait(timeout=WAIT_SECONDS)
            replica.process.kill()


# --- the command ------------------------------------------------------------------------------

PID_FILE = "cluster.pid"


class _Stopped(Exception):
    pass


def _stop(signum: int, frame: object) -> None:
    raise _Stopped


def up(workdir: Path) -> int:
    """Run the cluster until SIGTERM or Ctrl-C (also while it is starting: what has
    started is stopped again)."""
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        with running(workdir, os.environ.get("DATABASE_URL")) as cluster:
            (cluster.workdir / PID_FILE).write_text(str(os.getpid()))
            print(f"Pressroom through HAProxy: {cluster.url}/", flush=True)
            for replica in cluster.replicas:
                print(f"  replica {replica.name}: {replica.url} (log {replica.log})")
            print(f"  PgBouncer: {cluster.through.split('@')[-1]}")
            print(f"  HAProxy admin socket: {cluster.admin_socket}")
            print("Stop with Ctrl-C or `scripts/cluster down`.", flush=True)
            while True:
                signal.pause()
    except _Stopped:
        print("Cluster stopped.")
        return 0
    except ClusterError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        (workdir.resolve() / PID_FILE).unlink(missing_ok=True)


def down(workdir: Path) -> int:
    """Stop the cluster `up` runs under `workdir`."""
    pid_file = workdir.resolve() / PID_FILE
    try:
        pid = int(pid_file.read_text())
        os.kill(pid, signal.SIGTERM)
    except (FileNotFoundError, ProcessLookupError, ValueError):
        print(f"No cluster is running under {workdir}.", file=sys.stderr)
        return 1
    deadline = time.monotonic() + WAIT_SECONDS
    while pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    print("Cluster stopped." if not pid_file.exists() else "The cluster is still stopping.")
    return 0 if not pid_file.exists() else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/cluster", description="Pressroom's deployed shape on this machine's loopback."
    )
    parser.add_argument("action", choices=["up", "down"])
    parser.add_argument(
        "--dir",
        type=Path,
        default=Settings().data_dir / "cluster",
        help="where the cluster keeps its PostgreSQL, configuration and logs "
        "(default: .pressroom/cluster)",
    )
    args = parser.parse_args(argv)
    return up(args.dir) if args.action == "up" else down(args.dir)


if __name__ == "__main__":
    sys.exit(main())
