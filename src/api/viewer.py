"""Who is asking: the viewer a bearer token stands for, and each process's short memory
of them."""

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from db.tasks import Actor
from domain.enums import DepartmentKind, TokenKind
from domain.transitions import ActorFacts
from domain.validation import expired


@dataclass(frozen=True)
class Viewer:
    """The authenticated caller: a person (session or API token) or a wall display."""

    token_id: int
    token_kind: TokenKind
    user_id: int
    is_admin: bool
    member_department_ids: frozenset[int]
    display_department_ids: frozenset[int]
    expires_at: datetime | None = None
    # The kinds of the departments they belong to (Sales, Accounts, ...).
    member_department_kinds: frozenset[DepartmentKind] = frozenset()

    @property
    def is_person(self) -> bool:
        return self.token_kind is not TokenKind.DISPLAY

    @property
    def is_sales(self) -> bool:
        return DepartmentKind.SALES in self.member_department_kinds

    def actor(self) -> Actor:
        """The viewer as a task's move is written by (db/tasks.py)."""
        return Actor(self.user_id, self.is_admin, is_sales=self.is_sales)

    def facts(self, member: bool) -> ActorFacts:
        """The viewer as the transition table judges them, on a task of a department they
        are (`member`) or are not a member of."""
        return ActorFacts(self.user_id, self.is_admin, member, self.is_sales)

    @property
    def scope(self) -> tuple[object, ...]:
        """Everything of the viewer that access rules and resolvers read: viewers with the
        same scope are shown the same answers. The token's own id and expiry are left out;
        whether a token still works is checked per subscriber (graph/subscriptions.py)."""
        return (
            self.token_kind,
            self.user_id,
            self.is_admin,
            self.member_department_ids,
            self.display_department_ids,
        )

    @property
    def rights(self) -> tuple[object, ...]:
        """`scope` but for who the viewer is: viewers of the same rights are shown the same
        answers by every field but those whose rules read the person (a person's own
        account: `IsSelf`, `SelfOrAdmin`, `rules.sees_person`, `rules.owns_or_administers`),
        which graph/read_cache.py keeps per person."""
        return (
            self.token_kind,
            self.is_admin,
            self.member_department_ids,
            self.display_department_ids,
        )


class ViewerCache:
    """Who a bearer token is, kept for a few seconds per process, so a request needs no
    query for it. An entry holds only while no access change (a membership change, a
    deactivation, a revocation, made by any process) has been handed out by the feed
    since it was read: `changes` counts those (pressroom/app.py wires in the feed's count).
    This process's own mutations that change access also clear it at once."""

    def __init__(
        self,
        ttl_seconds: float = 5.0,
        size: int = 10_000,
        changes: Callable[[], int] = lambda: 0,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.size = size
        self.changes = changes
        self._viewers: dict[str, tuple[Viewer, float, int]] = {}

    def get(self, token: str) -> Viewer | None:
        found = self._viewers.get(token)
        if found is None:
            return None
        viewer, at, seen = found
        now = time.monotonic()
        ended = expired(viewer.expires_at, datetime.now(UTC))
        if now - at > self.ttl_seconds or ended or seen != self.changes():
            del self._viewers[token]
            return None
        return viewer

    def put(self, token: str, viewer: Viewer, seen: int) -> None:
        """`seen`: the count of access changes taken before `viewer` was read."""
        if len(self._viewers) >= self.size:
            self._viewers.clear()  # rare: many distinct live tokens within a few seconds
        self._viewers[token] = (viewer, time.monotonic(), seen)

    def clear(self) -> None:
        self._viewers.clear()
