"""Password hashes (argon2id) and bearer tokens (random, stored as SHA-256).

argon2id is slow on purpose (at its default `Cost`, some 150 ms of a core and 64 MiB
each; the operator sets it, never under OWASP's minimum), so it runs on a few threads of
its own with a bounded wait: a flood of sign-ins gets immediate refusals
(`HashingBusy`, answered 429 with Retry-After) instead of an ever longer queue, and work
for signed-in people (changing a password, making an API token) goes before anonymous
sign-ins waiting beside it. Anonymous sign-ins never hold every worker: with two or more,
one is kept for signed-in people, so a flood of sign-ins takes at most the cores of the
others. The workers run at a lower priority than the rest of the process (a nice value of
their own), so that a hash waits for a core the floor's requests do not need. One pool
per process: its threads share the process's cores.
"""

import asyncio
import hashlib
import secrets
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from db.background import defer_to_the_floor
from domain.enums import TokenKind

T = TypeVar("T")

_PREFIX = {TokenKind.SESSION: "prs_s_", TokenKind.API: "prs_a_", TokenKind.DISPLAY: "prs_d_"}

# The defaults of PRESSROOM_PASSWORD_WORKERS and PRESSROOM_PASSWORD_QUEUE (the anonymous
# lane's wait).
HASHING_WORKERS = 2
HASHING_QUEUE = 8
# The signed-in lane's wait: people are few and known, and an admin's integration making
# twenty users at once is no attack; this bounds only a runaway one.
SIGNED_IN_QUEUE = 64


@dataclass(frozen=True)
class Cost:
    """argon2id's cost, the same to a guesser for each password tried: the memory each
    hash fills and the passes over it. The defaults (argon2-cffi's, RFC 9106's
    low-memory choice) are PRESSROOM_PASSWORD_MEMORY_KIB's and PRESSROOM_PASSWORD_TIME_COST's."""

    memory_kib: int = 65536
    time_cost: int = 3

    def refusal(self) -> str | None:
        """Why this cost is too low to protect a leaked table, or None."""
        if self.memory_kib < FLOOR.memory_kib or self.time_cost < FLOOR.time_cost:
            return (
                f"argon2id at {self.memory_kib} KiB and {self.time_cost} passes is under "
                f"OWASP's minimum ({FLOOR.memory_kib} KiB, i.e. "
                f"{FLOOR.memory_kib // 1024} MiB, and {FLOOR.time_cost} passes)"
            )
        return None

    def hasher(self) -> PasswordHasher:
        # One thread per check (parallelism 1; the library's default is 4): the same
        # memory and passes, so the same cost to a guesser, but a worker busy checking
        # takes one core, not four threads of every core, and the workers' number bounds
        # the cores sign-ins take.
        return PasswordHasher(memory_cost=self.memory_kib, time_cost=self.time_cost, parallelism=1)


# OWASP's Password Storage Cheat Sheet's minimum for argon2id with one thread.
FLOOR = Cost(memory_kib=19456, time_cost=2)


class Lane(IntEnum):
    """Whose work it is; a freed worker takes the lowest lane waiting."""

    SIGNED_IN = 0
    ANONYMOUS = 1


class HashingBusy(Exception):
    """Every worker busy and this lane's queue full: refused now, not waited for."""

    retry_after = 1  # seconds: a queue drains in well under that


@dataclass
class HashingCounts:
    done: int = 0  # hashes made and passwords verified
    refused: int = 0  # HashingBusy


class HashingPool:
    def __init__(
        self,
        workers: int = HASHING_WORKERS,
        queue: int = HASHING_QUEUE,
        signed_in_queue: int = SIGNED_IN_QUEUE,
        cost: Cost = Cost(),
    ) -> None:
        self.workers = workers
        # A hash made with other parameters still verifies, and is remade at its next
        # sign-in (`outdated`).
        self.hasher = cost.hasher()
        self.bounds = {Lane.SIGNED_IN: max(queue, signed_in_queue), Lane.ANONYMOUS: queue}
        self.shares = {Lane.SIGNED_IN: workers, Lane.ANONYMOUS: max(1, workers - 1)}
        self.executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="argon2", initializer=defer_to_the_floor
        )
        self.busy = {lane: 0 for lane in Lane}
        self.waiting: dict[Lane, deque[asyncio.Future[None]]] = {lane: deque() for lane in Lane}
        self.counts = HashingCounts()

    @cached_property
    def dummy_hash(self) -> str:
        """Verified against when the email is unknown: made at this pool's cost, so that
        both paths take the same time. Made by the first unknown email's check (which
        takes a hash longer), not at start-up: most processes never need it."""
        return self.hasher.hash("pressroom-dummy-password")

    @property
    def running(self) -> int:
        return sum(self.busy.values())

    def queued(self) -> int:
        return sum(len(waiting) for waiting in self.waiting.values())

    def _free_for(self, lane: Lane) -> bool:
        return self.running < self.workers and self.busy[lane] < self.shares[lane]

    async def run(self, work: Callable[[], T], lane: Lane) -> T:
        if self._free_for(lane):
            self.busy[lane] += 1
        else:
            await self._wait(lane)
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(self.executor, work)
        try:
            # Shielded: a cancelled caller's thread runs on, and holds its worker until done.
            result = await asyncio.shield(job)
        finally:
            if job.done():
                self._done(lane)
            else:
                job.add_done_callback(lambda _: self._done(lane))
        self.counts.done += 1
        return result

    async def _wait(self, lane: Lane) -> None:
        waiting = self.waiting[lane]
        if len(waiting) >= self.bounds[lane]:
            self.counts.refused += 1
            raise HashingBusy
        turn = asyncio.get_running_loop().create_future()
        waiting.append(turn)
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                # Handed a worker just as it was cancelled: hand it on.
                self._done(lane)
            elif turn in waiting:
                waiting.remove(turn)
            raise

    def _done(self, lane: Lane) -> None:
        """A worker came free: to the first callers waiting, lane by lane, each within its
        lane's share."""
        self.busy[lane] -= 1
        for waiting_lane in Lane:
            waiting = self.waiting[waiting_lane]
            while waiting and self._free_for(waiting_lane):
                turn = waiting.popleft()
                if not turn.done():
                    self.busy[waiting_lane] += 1
                    turn.set_result(None)


hashing = HashingPool()


def configure_hashing(
    workers: int, queue: int, cost: Cost, signed_in_queue: int = SIGNED_IN_QUEUE
) -> None:
    """Size the process's pool and set the cost of its hashes (every process does, from
    its settings), before it is used."""
    global hashing
    hashing = HashingPool(workers, queue, signed_in_queue, cost)


async def hash_password(password: str, lane: Lane = Lane.SIGNED_IN) -> str:
    pool = hashing
    return await pool.run(lambda: pool.hasher.hash(password), lane)


async def verify_password(
    password_hash: str | None, password: str, lane: Lane = Lane.SIGNED_IN
) -> bool:
    pool = hashing

    def verify() -> bool:
        try:
            stored = password_hash or pool.dummy_hash
            return pool.hasher.verify(stored, password) and bool(password_hash)
        except (VerificationError, InvalidHashError):
            return False

    return await pool.run(verify, lane)


def outdated(password_hash: str) -> bool:
    """Made with other parameters than the ones hashes are made with now."""
    return hashing.hasher.check_needs_rehash(password_hash)


def new_token(kind: TokenKind) -> str:
    return _PREFIX[kind] + secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    # Tokens carry 256 random bits, so a fast hash is enough to make a leaked table useless.
    return hashlib.sha256(token.encode()).digest()
