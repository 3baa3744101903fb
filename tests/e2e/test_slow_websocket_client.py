"""A wall display that stops reading its socket: the server keeps a bounded buffer for
it, drops it from the feed, and tells it where to resume once it reads again."""

import json
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect

from db.engine import unit_of_work
from db.fanout import department_channel
from db.feed import EventFeed
from db.tasks import Actor, transition_task
from domain.enums import TaskAction
from tests.support.client import Client
from tests.support.database import task_ids
from tests.support.servers import SUBSCRIBER_BUFFER
from tests.support.shop import Shop
from tests.support.subscriptions import cursor_now

DOCUMENT = """subscription($after: String) {
  queueEvents(department: "print", after: $after) {
    cursor task { id status workOrder { details } }
  }
}"""
# Each event carries this much, so that the sockets' buffers fill after a few hundred.
DETAILS = {"notes": "x" * 15_000}
MOST_MOVES = 2_000


async def subscribe(url: str, token: str, after: str, **options: Any) -> ClientConnection:
    # No permessage-deflate: the padding below must cost its size on the wire.
    ws = await connect(
        url, subprotocols=["graphql-transport-ws"], compression=None, ping_interval=None, **options
    )
    await ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": token}}))
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    payload = {"query": DOCUMENT, "variables": {"after": after}}
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
    return ws


async def move(shop: Shop, task: int, n: int) -> None:
    """Start and release the same task, over and over: one event per move."""
    action = TaskAction.START if n % 2 == 0 else TaskAction.RELEASE
    async with unit_of_work(shop.engine) as conn:
        await transition_task(
            conn, task, action, Actor(shop.users["pat"], False), reason="back to the queue"
        )


async def test_a_client_that_stops_reading_costs_a_bounded_buffer_and_resumes(
    api: Client, running_app: tuple[str, Any], shop: Shop
) -> None:
    server, app = running_app
    feed: EventFeed = app.state.services.feed
    channel = department_channel(shop.departments["print"])
    order = await shop.order(["print"], details=DETAILS)
    task = (await task_ids(shop.engine, order))["print"]
    token = f"Bearer {shop.tokens['pat']}"
    address = urlsplit(server)
    url = f"ws://{address.netloc}/graphql"
    after = await cursor_now(api, shop.tokens["pat"])

    # While nobody calls recv(), the client library reads no more from the socket once it
    # holds one message; then the kernel's buffers fill and the server's sends block.
    stalled = await subscribe(url, token, after, max_queue=1)
    received: list[dict[str, Any]] = []
    # The first event proves the subscription is in the feed.
    await move(shop, task, 0)
    feed.poke()
    received.append(json.loads(await stalled.recv()))
    assert feed.fanout.subscriber_count(channel) == 1

    moves = 1
    while feed.fanout.subscriber_count(channel) == 1:
        assert moves < MOST_MOVES, "the stalled subscriber was never dropped"
        await move(shop, task, moves)
        moves += 1
        await feed.catch_up()
    # It was dropped only after its buffer filled, and nothing is held for it any more.
    assert moves > SUBSCRIBER_BUFFER
    assert feed.fanout.subscriber_count(channel) == 0

    # Reading again, it gets what was buffered and in flight, then where to resume.
    while True:
        message = json.loads(await stalled.recv())
        if message["type"] != "next" or message["payload"].get("errors"):
            break
        received.append(message)
    await stalled.close()
    [error] = message["payload"]["errors"] if message["type"] == "next" else message["payload"]
    assert error["extensions"]["code"] == "SLOW_CONSUMER"
    resume = error["extensions"]["resumeAfter"]
    assert resume == received[-1]["payload"]["data"]["queueEvents"]["cursor"]
    assert len(received) < moves

    async with await subscribe(url, token, resume) as rest:
        while len(received) < moves:
            message = json.loads(await rest.recv())
            assert message["type"] == "next" and "errors" not in message["payload"]
            received.append(message)
    statuses = [m["payload"]["data"]["queueEvents"]["task"]["status"] for m in received]
    assert statuses == ["STARTED" if n % 2 == 0 else "PENDING" for n in range(moves)]
    cursors = [m["payload"]["data"]["queueEvents"]["cursor"] for m in received]
    assert len(set(cursors)) == moves
