"""Persisted queries and trusted documents: which document a request runs, decided before
anything parses it.

- Apollo's automatic persisted queries: a request names its document by the SHA-256 of
  its text in `extensions.persistedQuery` ({"version": 1, "sha256Hash": ...}), over GET
  (`extensions` in the query string) or POST. A known hash runs without its text; an
  unknown one is answered `PersistedQueryNotFound` (code PERSISTED_QUERY_NOT_FOUND), and
  the client sends the hash again with the text: that runs, and once it has run (parsed
  and validated) it is registered, for people and API tokens only, in a store of this
  process bounded in entries and bytes.
- Trusted documents (PRESSROOM_TRUSTED_DOCUMENTS): anonymous callers and wall displays
  run only the documents of the manifest (api/manifest.py: the app's own), named by
  hash or sent as identical text; people and API tokens send any document.

Decided at the transports (graph/view.py for HTTP, graph/websockets.py), not in
a schema extension: a hash alone has no text for Strawberry to parse, and a refused
document is never parsed.
"""

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from graphql import GraphQLError
from strawberry.types import ExecutionResult

from api.errors import TopLevelCode, bad_request, top_level, unauthenticated
from api.manifest import document_id
from api.metrics import Metrics
from api.viewer import Viewer
from graph.bounded import Bounded

# What /metrics counts (pressroom_persisted_documents): a hash that ran (known), one
# answered PERSISTED_QUERY_NOT_FOUND, a document registered, one refused under trusted
# documents.
OUTCOMES = ("known", "not_found", "registered", "untrusted")
# Registered documents kept per process, least recently used first out.
REGISTERED_DOCUMENTS = 1000
REGISTERED_BYTES = 4 * 1024 * 1024

SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")
# The message Apollo's persisted-queries link matches (besides the code).
NOT_FOUND = "PersistedQueryNotFound"
UNTRUSTED = (
    "This server runs only its trusted documents (the app's own, src/web/documents.json) "
    "for callers that are not signed in and for wall displays: send one of them, by its "
    "sha256Hash in extensions.persistedQuery or as its exact text, or a person's or an "
    "API token."
)


@dataclass(frozen=True)
class Admitted:
    """The text a request runs (None: it sent none, and named no document), and the id to
    register it under once it has run."""

    query: str | None
    register: str | None = None


class Registered(Bounded[str, str]):
    """The documents people and API tokens registered: at most `entries` of them and
    `size` bytes of text in all, the least recently used leaving first."""

    def __init__(self, entries: int = REGISTERED_DOCUMENTS, size: int = REGISTERED_BYTES) -> None:
        super().__init__(entries, size, lambda text: len(text.encode()))

    @property
    def bytes(self) -> int:
        return self.weight


class PersistedDocuments:
    """The manifest (id -> document), whether only its documents run for anonymous
    callers and displays (`trusted`), and the documents registered since start-up."""

    def __init__(
        self,
        manifest: Mapping[str, str] | None = None,
        *,
        trusted: bool = False,
        registered: Registered | None = None,
    ) -> None:
        self.manifest = dict(manifest or {})
        self.trusted = trusted
        self.registered = registered if registered is not None else Registered()
        self.counts: Counter[str] = Counter()
        self._manifest_texts = frozenset(self.manifest.values())

    def expose(self, metrics: Metrics) -> None:
        """What /metrics shows of the persisted documents."""
        metrics.outcomes(
            "pressroom_persisted_documents",
            "Persisted documents since start, by outcome: known (a hash that ran without its "
            "text), not_found, registered, untrusted (refused under trusted documents).",
            self.counts,
            OUTCOMES,
        )
        metrics.function(
            "pressroom_registered_documents",
            "Documents registered by persisted queries that this process keeps.",
            lambda: len(self.registered),
        )
        metrics.function(
            "pressroom_registered_document_bytes",
            "The bytes of text of those documents.",
            lambda: self.registered.bytes,
        )

    def admit(
        self, query: str | None, extensions: object, viewer: Viewer | None, token_given: bool
    ) -> Admitted | GraphQLError:
        """The document a request runs, or the error it is answered with instead."""
        signed_in = viewer is not None and viewer.is_person
        limited = self.trusted and not signed_in
        persisted = extensions.get("persistedQuery") if isinstance(extensions, dict) else None
        if persisted is None:
            if limited and query and query not in self._manifest_texts:
                return self._untrusted(viewer, token_given)
            return Admitted(query)
        key = _sha256_hash(persisted)
        if isinstance(key, GraphQLError):
            return key
        if not query:
            text = self.manifest.get(key)
            if text is None:
                if limited:
                    return self._untrusted(viewer, token_given)
                text = self.registered.get(key)
            if text is None:
                self.counts["not_found"] += 1
                return top_level(TopLevelCode.PERSISTED_QUERY_NOT_FOUND, NOT_FOUND)
            self.counts["known"] += 1
            return Admitted(text)
        if document_id(query) != key:
            return bad_request(
                "extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent "
                "with it: hash the document's exact text (UTF-8), as sent."
            )
        if key in self.manifest:
            return Admitted(query)
        if limited:
            return self._untrusted(viewer, token_given)
        return Admitted(query, register=key if signed_in else None)

    def trusted_text(self, query: object, extensions: object) -> str | None:
        """The manifest's document a request names, by its exact text or by its hash (sent
        with that text or without one), when its extensions say nothing else; None
        otherwise. Counts nothing: `admit` counts what runs."""
        if extensions is None:
            return query if isinstance(query, str) and query in self._manifest_texts else None
        if not isinstance(extensions, dict) or extensions.keys() != {"persistedQuery"}:
            return None
        key = _sha256_hash(extensions["persistedQuery"])
        text = None if isinstance(key, GraphQLError) else self.manifest.get(key)
        return text if query is None or query == text else None

    def ran(self, admitted: Admitted, result: object) -> None:
        """Registers what `admitted` names to register once `result` shows that its
        document ran: a document refused by parsing, validation or the server's limits
        (no data, no error at a path) is never kept."""
        if admitted.register is None or admitted.query is None:
            return
        ran = isinstance(result, ExecutionResult) and (
            result.data is not None or any(e.path is not None for e in result.errors or ())
        )
        if ran and self.registered.put(admitted.register, admitted.query):
            self.counts["registered"] += 1

    def _untrusted(self, viewer: Viewer | None, token_given: bool) -> GraphQLError:
        self.counts["untrusted"] += 1
        # A token that no longer works: the caller meant to be signed in, and is told so.
        if token_given and viewer is None:
            return unauthenticated(token_given=True)
        return top_level(TopLevelCode.TRUSTED_DOCUMENTS_ONLY, UNTRUSTED)


def _sha256_hash(persisted: object) -> str | GraphQLError:
    """The document id `extensions.persistedQuery` names, lowercase."""
    if not isinstance(persisted, dict) or persisted.get("version") != 1:
        return bad_request(
            'extensions.persistedQuery must be {"version": 1, "sha256Hash": "<64 hex digits>"}.'
        )
    key = persisted.get("sha256Hash")
    if not isinstance(key, str) or not SHA256_HEX.fullmatch(key):
        return bad_request(
            "extensions.persistedQuery.sha256Hash must be the SHA-256 of the document's text, "
            "64 hexadecimal digits."
        )
    return key.lower()


# --- Websockets ---------------------------------------------------------------------------
# A subscribe (graphql-transport-ws) or start (graphql-ws) message's payload carries the
# same `query` and `extensions` as an HTTP request, admitted alike. Clients of both send
# the text (the graphql-ws client requires one), with its hash or without; nothing is
# registered over a websocket, where the text comes once per subscription anyway.
