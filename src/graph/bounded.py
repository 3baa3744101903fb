"""A cache bounded in entries and in weight (bytes, or an estimate of them), the least
recently used let go first: for whatever the server keeps by a client's text or request."""

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Bounded(Generic[K, V]):
    def __init__(self, entries: int, size: int, weigh: Callable[[V], int]) -> None:
        self.entries = entries
        self.size = size
        self.weight = 0
        self._weigh = weigh
        self._kept: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: K) -> V | None:
        """The value of `key`, now the most recently used."""
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def peek(self, key: K) -> V | None:
        return self._kept.get(key)

    def put(self, key: K, value: V) -> bool:
        """Keep `value` (in place of what `key` held); whether `key` is new. A value
        heavier than the whole cache is not kept."""
        weight = self._weigh(value)
        if weight > self.size:
            return False
        previous = self._kept.pop(key, None)
        if previous is not None:
            self.weight -= self._weigh(previous)
        self._kept[key] = value
        self.weight += weight
        while len(self._kept) > self.entries or self.weight > self.size:
            _, gone = self._kept.popitem(last=False)
            self.weight -= self._weigh(gone)
        return previous is None
