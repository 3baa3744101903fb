"""Operating the server: structured request logs with a request id, metrics whose labels
come from bounded sets and name the replica, user errors counted as such, and a token for
/metrics."""

import asyncio
import json
import logging
import os
import socket
import uuid
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from pressroom import logs
from pressroom.app import create_app
from pressroom.settings import Settings
from tests.support.client import Client, gid
from tests.support.database import task_ids
from tests.support.shop import Shop
from tests.support.subscriptions import PROTOCOLS, cursor_now, print_tasks, subscriber, take

START = """mutation StartIt($i: StartTaskInput!) { startTask(input: $i) {
  changed userErrors { code } } }"""


def metrics_url(server: str) -> str:
    return server.replace("/graphql", "/metrics")


async def test_each_request_logs_one_json_line_with_its_request_id(
    api: Client, shop: Shop, caplog: pytest.LogCaptureFixture
) -> None:
    order = await shop.order(["print"])
    await shop.order(["print"])
    headers = {"authorization": f"Bearer {shop.tokens['pat']}", "x-request-id": "trace-42"}
    task = gid("DepartmentTask", await _print_task(api, shop, order))
    with caplog.at_level(logging.INFO, logger="pressroom.request"):
        response = await api.http.post(
            api.url, json={"query": START, "variables": {"i": {"taskId": task}}}, headers=headers
        )
        other = await api.http.post(
            api.url, json={"query": START, "variables": {"i": {"taskId": task}}},
            headers={"authorization": f"Bearer {shop.tokens['pia']}"},
        )  # fmt: skip
    assert response.headers["x-request-id"] == "trace-42"
    generated = other.headers["x-request-id"]
    assert generated != "trace-42" and len(generated) == 32
    records = [r for r in caplog.records if r.name == "pressroom.request"]
    by_id = {r.request_id: r for r in records}  # type: ignore[attr-defined]
    mine, theirs = by_id["trace-42"], by_id[generated]
    assert (mine.operation, mine.field, mine.type, mine.outcome) == (  # type: ignore[attr-defined]
        "StartIt",
        "startTask",
        "mutation",
        "ok",
    )
    assert mine.user_id == shop.users["pat"]  # type: ignore[attr-defined]
    assert theirs.outcome == "user_error"  # type: ignore[attr-defined]
    assert theirs.user_errors == ["ALREADY_TAKEN"]  # type: ignore[attr-defined]
    # The formatter the server runs with turns each of them into one JSON object.
    line = logs.json_formatter().format(mine)
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["request_id"] == "trace-42"
    assert parsed["logger"] == "pressroom.request"
    assert parsed["user_errors"] == []


async def _print_task(api: Client, shop: Shop, order: int) -> int:
    return (await task_ids(shop.engine, order))["print"]


async def test_metric_labels_are_bounded_whatever_the_operation_names(
    api: Client, shop: Shop
) -> None:
    client = api.as_(shop.tokens["pat"])
    # One request first, so every series these requests can touch already exists.
    await client.raw("query Warm { me { id } }")
    before = (await api.http.get(metrics_url(api.url))).text
    # A series per name would add at least 40 KB for these 200 (a sample and its _created
    # line of some 100 bytes each), over ten times the bound below.
    names = ["Q" + uuid.uuid4().hex for _ in range(200)]
    for name in names:
        body = await client.raw(f"query {name} {{ me {{ id }} }}")
        assert body["data"]["me"] is not None
    after = (await api.http.get(metrics_url(api.url))).text
    assert len(after) - len(before) < 3000, len(after) - len(before)
    assert [name for name in names if name in after] == []
    line = next(
        x for x in after.splitlines()
        if x.startswith("pressroom_graphql_operations_total{") and 'field="me"' in x
        and 'outcome="ok"' in x
    )  # fmt: skip
    assert float(line.rsplit(" ", 1)[1]) >= 201
    assert "# TYPE pressroom_graphql_operations_total counter" in after


async def test_user_errors_are_counted_by_code(api: Client, shop: Shop) -> None:
    def count(text: str) -> float:
        for line in text.splitlines():
            if line.startswith("pressroom_graphql_user_errors_total{") and (
                'code="NOT_FOUND"' in line and 'field="startTask"' in line
            ):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    before = count((await api.http.get(metrics_url(api.url))).text)
    body = await api.as_(shop.tokens["pat"]).raw(
        START, {"i": {"taskId": gid("DepartmentTask", 999_999)}}
    )
    assert body["data"]["startTask"]["userErrors"] == [{"code": "NOT_FOUND"}]
    after = count((await api.http.get(metrics_url(api.url))).text)
    assert after == before + 1


async def test_metrics_can_require_a_token(database_url: str) -> None:
    app = create_app(Settings(metrics_token="s3cret"), url=database_url)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://pressroom") as client:
        refused: Any = await client.get("/metrics")
        wrong = await client.get("/metrics", headers={"authorization": "Bearer nope"})
        allowed = await client.get("/metrics", headers={"authorization": "Bearer s3cret"})
    assert refused.status_code == wrong.status_code == 401
    assert refused.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    assert allowed.status_code == 200
    assert "pressroom_graphql_operations_total" in allowed.text


async def test_every_sample_names_its_replica(database_url: str) -> None:
    app = create_app(Settings(replica="replica-7"), url=database_url)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://pressroom") as client:
        exposition = (await client.get("/metrics")).text
    samples = [s for f in text_string_to_metric_families(exposition) for s in f.samples]
    assert len(samples) > 20
    assert {sample.labels.get("replica") for sample in samples} == {"replica-7"}


def test_a_replica_is_named_by_its_host_and_process_unless_told() -> None:
    assert Settings().replica == f"{socket.gethostname()}-{os.getpid()}"


async def test_subscriptions_log_their_start_and_end_with_event_counts(
    api: Client, server: str, shop: Shop, caplog: pytest.LogCaptureFixture
) -> None:
    [task] = await print_tasks(shop, 1)
    after = await cursor_now(api, shop.tokens["pat"])
    variables = {"department": "print", "after": after}
    ended_now = asyncio.Event()

    class Ended(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage() == "subscription ended":
                ended_now.set()

    watcher = Ended()
    logging.getLogger("pressroom.subscriptions").addHandler(watcher)
    try:
        with caplog.at_level(logging.INFO, logger="pressroom.subscriptions"):
            async with subscriber(server, shop.tokens["pat"], PROTOCOLS[0], variables) as got:
                task_id = gid("DepartmentTask", task)
                await api.as_(shop.tokens["pat"])(START, {"i": {"taskId": task_id}})
                await take(got, 1)
            async with asyncio.timeout(10):
                await ended_now.wait()
    finally:
        logging.getLogger("pressroom.subscriptions").removeHandler(watcher)
    started = [r for r in caplog.records if r.getMessage() == "subscription started"]
    ended = [r for r in caplog.records if r.getMessage() == "subscription ended"]
    assert len(started) == 1 and started[0].user_id == shop.users["pat"]  # type: ignore[attr-defined]
    assert ended[0].events == 1 and ended[0].end == "closed"  # type: ignore[attr-defined]
