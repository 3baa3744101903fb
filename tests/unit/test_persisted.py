"""The store of registered persisted queries stays within its entries and bytes, the least
recently used leaving first."""

from graph.persisted import Registered


def test_the_store_keeps_at_most_its_entries_least_recently_used_first_out() -> None:
    store = Registered(entries=3, size=1_000)
    for key in "abc":
        store.put(key, f"query {key}")
    assert store.get("a") == "query a"
    store.put("d", "query d")
    assert len(store) == 3
    assert store.get("b") is None
    assert [store.get(k) for k in "acd"] == ["query a", "query c", "query d"]


def test_the_store_keeps_at_most_its_bytes() -> None:
    store = Registered(entries=100, size=30)
    store.put("a", "x" * 10)
    store.put("b", "é" * 10)  # 20 bytes of UTF-8
    assert store.bytes == 30
    store.put("c", "y" * 5)
    assert store.get("a") is None
    assert store.bytes == 25
    store.put("big", "z" * 31)
    assert store.get("big") is None
    assert store.bytes == 25
    assert len(store) == 2


def test_registering_again_changes_nothing() -> None:
    store = Registered(entries=2, size=100)
    store.put("a", "query a")
    store.put("a", "query a")
    assert (len(store), store.bytes) == (1, len("query a"))
