"""The media type /graphql answers in, chosen by the request's Accept header (GraphQL over
HTTP, "Body" and "Legacy watershed"; RFC 9110 section 12.5.1 for the weights).

- `application/graphql-response+json` when the client names it with the highest weight:
  its status codes say what happened (400 for a request that never ran, 200 once it ran).
- `application/json` (the legacy type, every answer of a well-formed request 200) when
  the client names that instead, or accepts anything (`*/*`, `application/*`), or sends no
  Accept at all: what clients written before the new type expect, and what the
  specification's audit (npm graphql-http) asks of `*/*` and of a missing header.
- None when the header allows neither: the view answers 406 Not Acceptable.
"""

from collections.abc import Sequence
from typing import NamedTuple

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
OFFERED = (GRAPHQL_RESPONSE, JSON)


class MediaRange(NamedTuple):
    kind: str  # "application", or "*"
    subtype: str  # "json", or "*"
    weight: float


def answer_type(accept: str) -> str | None:
    """The media type to answer in, for an Accept header ('' when none was sent)."""
    ranges = [r for r in map(_media_range, accept.split(",")) if r is not None]
    if not ranges:
        return JSON
    best: tuple[float, bool, bool] = (0.0, False, False)
    chosen = None
    for offered in OFFERED:
        weight, named = _weight(offered, ranges)
        # Named, the specification's own type wins a tie; reached by a wildcard, the legacy one.
        rank = (weight, named, named == (offered == GRAPHQL_RESPONSE))
        if weight > 0 and rank > best:
            best, chosen = rank, offered
    return chosen


def accepts(accept: str, offered: str) -> bool:
    """Whether an Accept header ('' when none was sent) allows `offered` at all."""
    ranges = [r for r in map(_media_range, accept.split(",")) if r is not None]
    return not ranges or _weight(offered, ranges)[0] > 0


def _media_range(text: str) -> MediaRange | None:
    """One element of an Accept header; None for an empty or malformed one."""
    kind_subtype, *params = (part.strip() for part in text.split(";"))
    kind, slash, subtype = kind_subtype.lower().partition("/")
    if not slash or not kind or not subtype:
        return None
    weight = 1.0
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                weight = min(max(float(value.strip()), 0.0), 1.0)
            except ValueError:
                return None
    return MediaRange(kind, subtype, weight)


def _weight(offered: str, ranges: Sequence[MediaRange]) -> tuple[float, bool]:
    """The weight of the most specific range that matches `offered`, and whether that
    range names it exactly."""
    kind, _, subtype = offered.partition("/")
    found: tuple[int, float] = (-1, 0.0)
    for r in ranges:
        if (r.kind, r.subtype) == (kind, subtype):
            specificity = 2
        elif (r.kind, r.subtype) == (kind, "*"):
            specificity = 1
        elif (r.kind, r.subtype) == ("*", "*"):
            specificity = 0
        else:
            continue
        if specificity > found[0]:
            found = (specificity, r.weight)
    return found[1], found[0] == 2
