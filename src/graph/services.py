"""What the app wires in once for the schema alone: the shared services (api/services.py),
the persisted documents, and the engine room's shortcuts."""

from dataclasses import dataclass, field
from typing import Any, Protocol

from api.cost_window import CostWindow
from api.services import Services
from db.fanout import Delivered
from graph.persisted import PersistedDocuments
from graph.read_cache import ReadCache


class DirectWrite(Protocol):
    async def wrote(self, delivered: Delivered, root: type, cursor: str) -> bool:
        """Whether the answer to `delivered` (as a `root` object at `cursor`) is now
        written to the subscriber's socket; False leaves it to the usual steps."""
        ...


class Shortcuts:
    """Where ordinary code lets the engine room (graph/engine/README.md) take a shorter
    way. These take none, as under PRESSROOM_PLAIN_EXECUTION; the engine room's are
    `graph.engine.EngineShortcuts`."""

    def direct(self, info: Any) -> DirectWrite | None:
        """For the live subscription `info` resolves: a way to write an event's answer to
        its socket past the per-event execution steps, or None."""
        return None

    def subscription_ended(self) -> None:
        """A subscription ended (a burst of them leaves garbage: the engine room paces
        the garbage collector by it)."""


@dataclass
class SchemaServices(Services):
    """The shared services, and what only the schema uses."""

    shortcuts: Shortcuts = field(default_factory=Shortcuts)
    # Persisted queries and trusted documents (graph/persisted.py).
    documents: PersistedDocuments = field(default_factory=PersistedDocuments)
    # What each token may spend on requests over HTTP (api/cost_window.py).
    cost_windows: CostWindow = field(default_factory=CostWindow)
    # Answers kept while the database is unchanged (graph/read_cache.py); None: off.
    read_cache: ReadCache | None = None
