"""The webhook relay of one server process: it leases the webhooks no live process holds
and sends their deliveries, each webhook's in commit order, one at a time.

A round: lease the free webhooks (db/webhooks.py, FOR UPDATE SKIP LOCKED); for each, turn
the log's next events into deliveries, then send the pending ones whose time has come, in
order, until one fails (it is retried after its delay and holds back those behind it, so
that a receiver sees events in order) or dies (after the last retry: the webhook moves
on). Each attempt is written with the lease lengthened; a webhook is let go when it has
nothing to send now, or after half its lease. Rounds follow the feed as every outbox's do
(workers/outbox.py).
"""

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import aiohttp
from prometheus_client import CollectorRegistry, Counter, Gauge
from sqlalchemy.ext.asyncio import AsyncEngine
from standardwebhooks.webhooks import Webhook

from db import webhooks
from db.engine import unit_of_work
from db.events import StoredEvent
from db.feed import EventFeed
from db.webhooks import Attempt, Claimed, Pending
from domain import webhooks as rules
from domain.errors import DomainError
from domain.outbox import DeliveryStatus, after_attempt
from domain.webhooks import Policy, Verdict
from workers.outbox import OutboxLoop
from workers.webhook_targets import Reached, reachable

log = logging.getLogger("pressroom.webhooks")

# How many webhooks one process sends for at once (the least recently served first),
# events one statement turns into deliveries, and deliveries read to send at a time.
MAX_HELD = 8
FOLLOW = 1000
BATCH = 100
USER_AGENT = "Pressroom-Webhooks/1"
# While the process answers requests: the longest rest of its one lane after a delivery.
MAX_REST_SECONDS = 0.1


# Each event's body for a webhook made by the user given, as JSON text, or the exception
# that says why there is none (the schema renders them: graph/webhook_bodies.py).
Render = Callable[[list[StoredEvent], int], Awaitable[list[str | Exception]]]


class RelayMetrics:
    """What /metrics shows of the relay, in the app's registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.attempts = Counter(
            "pressroom_webhook_attempts",
            "Webhook delivery attempts by this process, by outcome (delivered; failed: a "
            "non-2xx answer, a timeout, no connection; gone: 410).",
            ["outcome"],
            registry=registry,
        )
        self.deliveries = Counter(
            "pressroom_webhook_deliveries",
            "Webhook deliveries this process finished, by outcome (delivered, dead).",
            ["outcome"],
            registry=registry,
        )
        self.lag = Gauge(
            "pressroom_webhook_lag_seconds",
            "Per webhook (by id), how long its oldest unsent event has waited, as this "
            "process last saw it while holding the webhook.",
            ["webhook"],
            registry=registry,
        )


# A failed connection in words for the webhooks screen: the exception's own text (an
# errno, a class name) goes to the log.
_UNREACHED: tuple[tuple[type[aiohttp.ClientError], str], ...] = (
    (aiohttp.ClientSSLError, "the receiver's certificate was not accepted"),
    (aiohttp.ClientConnectorDNSError, "its host could not be found"),
    (aiohttp.ClientConnectorError, "nothing answered at its address"),
    (aiohttp.ServerDisconnectedError, "it closed the connection without an answer"),
    (aiohttp.ClientPayloadError, "its answer broke off"),
)


def unreached(failed: aiohttp.ClientError) -> str:
    why = next((w for kind, w in _UNREACHED if isinstance(failed, kind)), "the connection failed")
    return f"Could not reach the receiver: {why}"


@dataclass(frozen=True)
class Answer:
    status: int | None
    error: str | None
    duration_ms: int


class WebhookRelay(OutboxLoop[aiohttp.ClientSession]):
    name = "webhooks"

    def __init__(
        self,
        engine: AsyncEngine,
        feed: EventFeed,
        policy: Policy,
        render: Render,
        busy: Callable[[], bool],
        registry: CollectorRegistry,
    ) -> None:
        """`busy`: whether the process is answering requests now (its lanes then rest)."""
        super().__init__(feed, policy.poll_seconds)
        self.engine = engine
        self.policy = policy
        self.render = render
        self.metrics = RelayMetrics(registry)
        self._rng = random.Random()
        self.lanes = Lanes(busy)

    def session(self) -> aiohttp.ClientSession:
        # No proxy or .netrc from the environment (trust_env): a request goes where it was
        # checked to go. No cookies kept: one receiver's would not reach another.
        return aiohttp.ClientSession(
            trust_env=False, cookie_jar=aiohttp.DummyCookieJar(), auto_decompress=False
        )

    async def round(self, client: aiohttp.ClientSession) -> None:
        async with unit_of_work(self.engine) as conn:
            held = await webhooks.claim(conn, self.owner, self.policy.lease_seconds, MAX_HELD)
        await asyncio.gather(*(self._serve(client, hook) for hook in held))

    async def _serve(self, client: aiohttp.ClientSession, hook: Claimed) -> None:
        until = time.monotonic() + self.policy.lease_seconds / 2
        try:
            while time.monotonic() < until:
                async with unit_of_work(self.engine) as conn:
                    caught_up = await webhooks.follow(conn, hook, self.owner, FOLLOW) < FOLLOW
                    pending = await webhooks.next_deliveries(conn, hook.id, BATCH)
                self._lag(hook.id, pending)
                sent_all = await self._send_due(client, hook, pending, until)
                if not sent_all or (caught_up and len(pending) < BATCH):
                    return
        finally:
            async with unit_of_work(self.engine) as conn:
                await webhooks.release(conn, hook.id, self.owner)

    def _lag(self, webhook_id: int, pending: list[Pending]) -> None:
        """How long the webhook's oldest unsent event has waited, into /metrics."""
        lag = 0.0
        if pending:
            lag = (datetime.now(UTC) - pending[0].event.occurred_at).total_seconds()
        self.metrics.lag.labels(str(webhook_id)).set(max(0.0, lag))

    async def _send_due(
        self, client: aiohttp.ClientSession, hook: Claimed, pending: list[Pending], until: float
    ) -> bool:
        """Send the deliveries in order while each goes through or dies, until `until`;
        False when one is left waiting (its retry, the webhook stopped, the lease lost, the
        time up). Each outcome is written while the next delivery is sent (`Writes`)."""
        due = list(itertools.takewhile(lambda p: p.due, pending))
        missing = [p.event for p in due if p.body is None]
        async with self.lanes.one():
            fresh = iter(await self.render(missing, hook.created_by))
        writes = Writes(self, hook)
        where = Lookup(self.policy, hook.url)
        went_through = True
        for delivery in due:
            if writes.lost or time.monotonic() >= until:
                went_through = False
                break
            body = delivery.body or next(fresh)
            if isinstance(body, Exception):
                log.error("webhook %s: no body for %s: %s", hook.id, delivery.event, body)
                answer = Answer(None, f"No body: {body}", 0)
                verdict, attempt = self._attempt(delivery, None, answer)
            else:
                async with self.lanes.one():
                    answer = await self._post(client, hook, where, delivery, body)
                verdict, attempt = self._attempt(delivery, body, answer)
            writes.add(attempt, gone=verdict is Verdict.GONE)
            if verdict is Verdict.GONE or attempt.status is DeliveryStatus.PENDING:
                went_through = False
                break
        # A head that is not due yet holds back the rest: nothing more to do now.
        return await writes.done() and went_through and len(due) == len(pending)

    async def _post(
        self,
        client: aiohttp.ClientSession,
        hook: Claimed,
        where: "Lookup",
        delivery: Pending,
        body: str,
    ) -> Answer:
        """One attempt to the checked address, within the timeout (a lookup included);
        the answer's body unread."""
        began = time.monotonic()
        status: int | None = None
        try:
            async with asyncio.timeout(self.policy.timeout_seconds):
                reached = await where()
                now = datetime.now(UTC)
                msg_id = rules.message_id(delivery.event.position.id)
                headers = {
                    "host": reached.host_header(),
                    "content-type": "application/json",
                    "user-agent": USER_AGENT,
                    "webhook-id": msg_id,
                    "webhook-timestamp": str(int(now.timestamp())),
                    "webhook-signature": Webhook(hook.secret).sign(msg_id, now, body),
                }
                # TLS checks the certificate against the host's name, not the address.
                https = reached.target.scheme == "https"
                async with client.post(
                    reached.request_url(), data=body.encode(), headers=headers,
                    allow_redirects=False, server_hostname=reached.target.host if https else None,
                ) as response:  # fmt: skip
                    status, reason = response.status, response.reason or ""
            error = None
            if rules.verdict(status) is not Verdict.DELIVERED:
                error = f"The receiver answered {status} {reason}".rstrip()
        except DomainError as refused:
            error = refused.message
        except TimeoutError:
            error = f"No answer within {self.policy.timeout_seconds:g} s"
        except aiohttp.ClientError as failed:
            log.info("webhook %s: receiver not reached: %r", hook.id, failed)
            error = unreached(failed)
        except Exception:
            # Whatever it was, the attempt failed and is written so: never a head that
            # stays unsent with nothing to show for it.
            log.exception("webhook %s: sending failed", hook.id)
            error = "Could not send: the server failed; its log says why"
        return Answer(status, error, round((time.monotonic() - began) * 1000))

    def _attempt(
        self, delivery: Pending, body: str | None, answer: Answer
    ) -> tuple[Verdict, Attempt]:
        """How an attempt went, and what to write of it."""
        verdict = rules.verdict(answer.status) if body is not None else Verdict.FAILED
        # No body: trying again would make none either.
        status, retry_in = after_attempt(
            verdict is Verdict.DELIVERED,
            final=body is None or verdict is Verdict.GONE,
            schedule=self.policy.retries,
            attempts=delivery.attempts + 1,
            rng=self._rng,
        )
        self.metrics.attempts.labels(verdict.value.lower()).inc()
        if status is not DeliveryStatus.PENDING:
            self.metrics.deliveries.labels(status.value.lower()).inc()
        attempt = Attempt(
            delivery_id=delivery.delivery_id,
            status=status,
            response_status=answer.status,
            error=answer.error,
            duration_ms=answer.duration_ms,
            body=body,
            retry_in=retry_in,
        )
        return verdict, attempt

    async def write(self, hook: Claimed, attempts: list[Attempt], *, gone: bool) -> bool:
        """Write the attempts (and stop the webhook, `gone` or failing for too long);
        whether the lease was still held."""
        async with unit_of_work(self.engine) as conn:
            written = await webhooks.attempted(conn, hook, self.owner, self.policy, attempts)
            since = written.failing_too_long_since
            if written.held and gone:
                await webhooks.disable(conn, hook.id, rules.GONE)
            elif written.held and since is not None:
                days = self.policy.disable_after_days
                await webhooks.disable(conn, hook.id, rules.failing_too_long(since, days))
                log.warning("webhook %s turned off: failing since %s", hook.id, since)
        await self.wrote(len(attempts))
        return written.held


class Lanes:
    """How many of the held webhooks make or send deliveries at once: all of them while
    the process answers no HTTP request; while it does, one, resting after each delivery
    twice as long as it took. A delivery costs about the CPU of a task's move
    (bench/README.md); sent at full speed beside a busy floor, they halved its pace. The
    floor comes first: a burst of webhooks waits longer instead, and catches up once the
    requests stop."""

    def __init__(self, busy: Callable[[], bool]) -> None:
        self._busy = busy
        self._sending = 0
        self._turn = asyncio.Condition()

    def _open(self) -> bool:
        return self._sending < (1 if self._busy() else MAX_HELD)

    @contextlib.asynccontextmanager
    async def one(self) -> AsyncIterator[None]:
        # Whoever waits is woken when a lane frees: one is taken while anyone waits.
        async with self._turn:
            await self._turn.wait_for(self._open)
            self._sending += 1
        began = time.monotonic()
        try:
            yield
            if self._busy():
                # The lane rests twice as long as it worked (a little at most): it works a
                # third of the time.
                rest = 2 * (time.monotonic() - began)
                await asyncio.sleep(min(rest, MAX_REST_SECONDS))
        finally:
            async with self._turn:
                self._sending -= 1
                self._turn.notify_all()


class Lookup:
    """A webhook's address, looked up and checked at the first attempt of a batch and kept
    for the rest of it (seconds at most): a lookup per request would cost more than the
    request. Each attempt connects to the address checked, whatever a name says since."""

    def __init__(self, policy: rules.Policy, url: str) -> None:
        self.policy = policy
        self.url = url
        self._reached: Reached | None = None

    async def __call__(self) -> Reached:
        if self._reached is None:
            self._reached = await reachable(self.policy, self.url)
        return self._reached


class Writes:
    """A webhook's attempts written in order, each batch while the next delivery is sent:
    what came in while one write ran goes in the next. A process that dies has sent at
    most those again. `lost` once a write finds the lease gone."""

    def __init__(self, relay: WebhookRelay, hook: Claimed) -> None:
        self.relay = relay
        self.hook = hook
        self.lost = False
        self._queued: list[Attempt] = []
        self._gone = False
        self._task: asyncio.Task[None] | None = None

    def add(self, attempt: Attempt, *, gone: bool) -> None:
        self._queued.append(attempt)
        self._gone = self._gone or gone
        if self._task is not None and self._task.done() and self._task.exception():
            self.lost = True  # the write failed: done() raises it; send no more
        elif self._task is None or self._task.done():
            self._task = asyncio.create_task(self._flush())

    async def _flush(self) -> None:
        while self._queued and not self.lost:
            batch, self._queued = self._queued, []
            gone, self._gone = self._gone, False
            self.lost = not await self.relay.write(self.hook, batch, gone=gone)

    async def done(self) -> bool:
        """Once everything added is written: whether the lease held throughout."""
        while self._task is not None and not self._task.done():
            await self._task
        if self._task is not None:
            self._task.result()
        return not self.lost
