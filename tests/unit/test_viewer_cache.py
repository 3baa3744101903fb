"""The process's viewer cache: an entry holds only while no access change has been handed
out by the feed since the viewer was read."""

from api.viewer import Viewer, ViewerCache
from domain.enums import TokenKind

PAT = Viewer(
    token_id=1,
    token_kind=TokenKind.SESSION,
    user_id=2,
    is_admin=False,
    member_department_ids=frozenset({3}),
    display_department_ids=frozenset(),
)


class Changes:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> int:
        return self.count


def test_an_entry_holds_until_the_next_access_change() -> None:
    changes = Changes()
    cache = ViewerCache(changes=changes)
    cache.put("t", PAT, changes())
    assert cache.get("t") is PAT
    changes.count += 1
    assert cache.get("t") is None
    cache.put("t", PAT, changes())
    assert cache.get("t") is PAT


def test_a_change_handed_out_while_the_viewer_was_read_makes_it_stale_at_once() -> None:
    changes = Changes()
    cache = ViewerCache(changes=changes)
    seen = changes()  # taken before the read
    changes.count += 1  # handed out meanwhile
    cache.put("t", PAT, seen)
    assert cache.get("t") is None
