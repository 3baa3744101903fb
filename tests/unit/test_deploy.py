"""deploy/ against itself and against what the cluster tests run: compose mounts the very
haproxy.cfg and pgbouncer.ini that scripts/cluster uses, HAProxy's default servers are
compose's replicas on the image's port, PgBouncer points at compose's PostgreSQL, the
drain fits in the grace period, and the image is built from the lock file and runs as a
user of its own. (No Docker daemon runs here: the images themselves are not built.)"""

import re
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import make_url

from db import pgbouncer
from pressroom import cluster
from pressroom.settings import PROJECT_ROOT, Settings

DEPLOY = PROJECT_ROOT / "deploy"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return loaded


def stage(name: str) -> str:
    """The Dockerfile's lines of one stage."""
    parts = re.split(r"^FROM ", (DEPLOY / "Dockerfile").read_text(), flags=re.M)
    [found] = [part for part in parts if part.split("\n", 1)[0].endswith(f" AS {name}")]
    return found


def replicas(compose: dict[str, Any]) -> list[str]:
    return sorted(name for name in compose["services"] if name.startswith("replica"))


def test_compose_mounts_the_files_the_cluster_runs(compose: dict[str, Any]) -> None:
    files = {
        name: (DEPLOY / c["file"]).resolve()
        for name, c in compose["configs"].items()
        if "file" in c
    }
    assert files == {"haproxy-cfg": cluster.HAPROXY_CFG, "pgbouncer-ini": pgbouncer.SHIPPED}
    assert len(replicas(compose)) == cluster.REPLICAS


def test_haproxys_default_servers_are_composes_replicas_on_the_images_port(
    compose: dict[str, Any],
) -> None:
    config = cluster.HAPROXY_CFG.read_text()
    defaults = re.findall(
        r'^\s+server r\d "\$\{PRESSROOM_REPLICA_\d-([\w.]+):(\d+)\}"', config, re.M
    )
    assert sorted(host for host, _ in defaults) == replicas(compose)
    assert {port for _, port in defaults} == {"8000"}
    assert "PRESSROOM_PORT=8000" in stage("server")
    assert "option httpchk GET /readyz" in config


def test_pgbouncer_points_at_composes_postgresql_where_the_replicas_expect_it(
    compose: dict[str, Any],
) -> None:
    [database] = pgbouncer.shipped()["databases"].values()
    assert "host=postgres port=5432 dbname=pressroom" in database
    assert "postgres" in compose["services"]
    through = make_url(compose["x-server"]["environment"]["DATABASE_URL"])
    assert (through.host, through.port) == (
        "pgbouncer",
        int(pgbouncer.shipped()["pgbouncer"]["listen_port"]),
    )
    assert compose["x-server"]["environment"]["PRESSROOM_PGBOUNCER"] == "true"


def test_the_drain_fits_in_the_grace_period(compose: dict[str, Any]) -> None:
    grace = int(compose["x-server"]["stop_grace_period"].removesuffix("s"))
    assert grace > Settings().drain_seconds


def test_the_image_is_built_from_the_lock_file_and_runs_as_its_own_user() -> None:
    build, server = stage("build"), stage("server")
    assert "uv sync --frozen --no-dev" in build
    assert re.search(r"^USER pressroom$", server, re.M)
    assert "/readyz" in server.split("HEALTHCHECK", 1)[1]
    # The uv that ./dev bootstraps, so both read the lock file alike.
    [version] = re.findall(r"^UV_VERSION=(\S+)$", (PROJECT_ROOT / "dev").read_text(), re.M)
    assert f"uv=={version}" in build
