"""What a token's window of cost points (src/api/cost_window.py) adds to a request.

    .venv/bin/python -m bench.cost_window      # a few seconds

Each request pays its cost from its token's window and the view reads the window for its
X-RateLimit-* headers: one `spend` and one `window` per request, over --tokens tokens in
turn. Measured beside the same work done by the `limits` library's fixed-window strategy
on its in-memory storage (`test`, `hit`, `get_window_stats`), sync and asyncio, in the
same run: microseconds per request and the ratio to ours. No database, no server.
"""

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/cost_window.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from limits import parse
from limits.aio.storage import MemoryStorage as AsyncMemoryStorage
from limits.aio.strategies import FixedWindowRateLimiter as AsyncFixedWindow
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter

from api.cost_window import CostWindow

RATE = "1000000000/minute"  # never reached: every request is paid for
COST = 61  # a queue's ids


def ours(tokens: int) -> Callable[[int], None]:
    windows = CostWindow(RATE)

    def request(n: int) -> None:
        windows.spend(n % tokens, COST)
        windows.window(n % tokens)

    return request


def limits_sync(tokens: int) -> Callable[[int], None]:
    item = parse(RATE)
    limiter = FixedWindowRateLimiter(MemoryStorage())

    def request(n: int) -> None:
        key = str(n % tokens)
        if limiter.test(item, key, cost=COST):
            limiter.hit(item, key, cost=COST)
        limiter.get_window_stats(item, key)

    return request


async def limits_async(tokens: int, requests: int) -> float:
    item = parse(RATE)
    limiter = AsyncFixedWindow(AsyncMemoryStorage())
    started = time.perf_counter()
    for n in range(requests):
        key = str(n % tokens)
        if await limiter.test(item, key, cost=COST):
            await limiter.hit(item, key, cost=COST)
        await limiter.get_window_stats(item, key)
    return time.perf_counter() - started


def timed(request: Callable[[int], None], requests: int) -> float:
    started = time.perf_counter()
    for n in range(requests):
        request(n)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--tokens", type=int, default=50)
    args = parser.parse_args()
    figures = {
        "CostWindow (ours)": timed(ours(args.tokens), args.requests),
        "limits, sync": timed(limits_sync(args.tokens), args.requests),
        "limits, asyncio": asyncio.run(limits_async(args.tokens, args.requests)),
    }
    floor = figures["CostWindow (ours)"]
    print(f"{args.requests} requests over {args.tokens} tokens")
    print(f"{'counter':<20} {'µs per request':>15} {'ratio to ours':>14}")
    for name, seconds in figures.items():
        print(f"{name:<20} {seconds / args.requests * 1e6:>15.2f} {seconds / floor:>14.1f}")


if __name__ == "__main__":
    main()
