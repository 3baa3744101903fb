"""deploy/ against itself and against what the cluster tests run: compose mounts the very
haproxy.cfg and pgbouncer.ini that scripts/cluster uses, HAProxy's default servers are
compose's replicas on the image's port, PgBouncer points at compose's PostgreSQL, the
drain fits in the grace period, the image is built from the lock file and runs as a
user of its own, the replicas believe only HAProxy's X-Forwarded-For (which it replaces,
never appends to), and only the one-shot migration holds the owner's password. (No Docker
daemon runs here: the images themselves are not built.)"""

import ipaddress
import re
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import make_url

from db import pgbouncer
from pressroom import cluster
from pressroom.database import Database
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


def test_replicas_believe_only_haproxy_which_replaces_the_forwarded_address(
    compose: dict[str, Any],
) -> None:
    network = ipaddress.ip_network(compose["networks"]["default"]["ipam"]["config"][0]["subnet"])
    haproxy = compose["services"]["haproxy"]["networks"]["default"]["ipv4_address"]
    assert ipaddress.ip_address(haproxy) in network
    for name in replicas(compose):
        assert compose["services"][name]["environment"]["FORWARDED_ALLOW_IPS"] == haproxy
    config = cluster.HAPROXY_CFG.read_text()
    # Appending (`option forwardfor`) would keep a client's own header before HAProxy's.
    assert not re.search(r"^\s*option\s+forwardfor", config, re.M)
    assert re.search(r"^\s+http-request set-header X-Forwarded-For %\[src\]$", config, re.M)
    env = cluster._replica_env(Database.at("postgresql:///x"), "postgresql:///y", {})
    assert env["FORWARDED_ALLOW_IPS"] == cluster.HAPROXY_ADDRESS


def test_only_the_one_shot_migration_holds_the_owners_password(compose: dict[str, Any]) -> None:
    holders = {
        name
        for name, service in compose["services"].items()
        if any(
            "PRESSROOM_OWNER_PASSWORD" in str(v) for v in service.get("environment", {}).values()
        )
    }
    assert holders == {"migrate"}
    assert "PRESSROOM_MIGRATION_DATABASE_URL" in compose["services"]["migrate"]["environment"]
    for name in replicas(compose):
        assert "PRESSROOM_MIGRATION_DATABASE_URL" not in compose["services"][name]["environment"]
    env = cluster._replica_env(Database.at("postgresql:///x"), "postgresql:///y", {})
    assert "PRESSROOM_MIGRATION_DATABASE_URL" not in env
