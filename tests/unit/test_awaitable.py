"""The per-type answer to "is this awaitable?" agrees with Strawberry's, every time."""

import asyncio
import enum
import types
from collections.abc import Generator
from datetime import UTC, datetime
from typing import Any

from strawberry.execution import optimized_is_awaitable

from graph.engine.awaitable import is_awaitable


class Kind(enum.Enum):
    A = "A"


class Node:
    pass


class Awaits:
    def __await__(self) -> Generator[None, None, None]:
        yield


@types.coroutine
def generator_coroutine() -> Generator[None, None, None]:
    yield


def plain_generator() -> Generator[int, None, None]:
    yield 1


async def native() -> None:
    pass


async def test_answers_like_strawberry_before_and_after_it_remembers() -> None:
    loop = asyncio.get_running_loop()
    coroutine = native()
    values: list[Any] = [
        None, 1, "s", [1], {"a": 1}, Kind.A, Node(), datetime.now(UTC),
        Awaits(), coroutine, loop.create_future(), generator_coroutine(), plain_generator(),
    ]  # fmt: skip
    expected = [optimized_is_awaitable(v) for v in values]
    assert expected.count(True) == 4
    for _ in range(2):
        assert [is_awaitable(v) for v in values] == expected
    # A generator's type says nothing: one is a coroutine, the next is not.
    assert is_awaitable(generator_coroutine()) and not is_awaitable(plain_generator())
    coroutine.close()
