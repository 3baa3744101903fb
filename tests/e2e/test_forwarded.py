"""Client addresses through the deployed shape (scripts/cluster: HAProxy in front of three
replicas that believe only HAProxy's X-Forwarded-For): a client's own X-Forwarded-For,
whatever it names, does not choose the address the per-address limits count. HAProxy
replaces the header with the address it sees (appended to, the replicas would take the
forged one, the balancer's word after it being trusted)."""

import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pressroom import cluster as clusters

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("cluster")]

# Failed sign-ins one address may make a minute in this cluster.
FAILURES = 3
LOGIN = """mutation SignIn($i: LoginInput!) { login(input: $i) { token userErrors { code } } }"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[clusters.Cluster]:
    if absent := clusters.missing():
        pytest.skip(
            f"the cluster needs {' and '.join(absent)}: apt-get install (scripts/test does)"
        )
    settings = {"PRESSROOM_SIGNIN_FAILURES_PER_ADDRESS": f"{FAILURES}/minute"}
    # Its own cluster: the failures below use up this loopback address's allowance.
    with (
        tempfile.TemporaryDirectory(prefix="pressroom-cluster-") as workdir,
        clusters.running(Path(workdir), **settings) as running,
    ):
        yield running


async def test_a_forged_forwarded_address_is_counted_as_the_clients_own(
    cluster: clusters.Cluster,
) -> None:
    answers = []
    async with httpx.AsyncClient(base_url=cluster.url) as client:
        for n in range(FAILURES + 1):
            wrong = {"email": f"nobody{n}@shop.test", "password": "not-the-password"}
            answer = await client.post(
                "/graphql",
                json={"query": LOGIN, "variables": {"i": wrong}},
                # A new address each time, as an attacker dodging the limit would send.
                headers={"X-Forwarded-For": f"203.0.113.{n + 1}"},
            )
            answers.append(answer.status_code)
    # Each failure counted against the one address the balancer saw (loopback).
    assert answers == [200] * FAILURES + [429]
