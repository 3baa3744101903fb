"""The registry of event versions is whole, and an older payload is upcast one step at a
time to the current version; a newer one is refused in words."""

from typing import Any

import pytest

from db.event_versions import CURRENT, UPCASTERS, NewerEventVersion, upcast
from domain.enums import EventType


def test_every_kind_has_a_version_and_every_step_to_it_an_upcaster() -> None:
    assert set(CURRENT) == set(EventType)
    assert all(version >= 1 for version in CURRENT.values())
    steps = {(kind, v) for kind, last in CURRENT.items() for v in range(1, last)}
    # No step missing, and none from a version that is not older than the current one.
    assert set(UPCASTERS) == steps


def _renamed(old: str, new: str) -> Any:
    def step(payload: dict[str, Any]) -> dict[str, Any]:
        moved = {k: v for k, v in payload.items() if k != old}
        moved[new] = payload[old]
        return moved

    return step


@pytest.fixture
def three_versions(monkeypatch: pytest.MonkeyPatch) -> EventType:
    """TOKEN_REVOKED at version 3: `tokenId` became `token` in 2, then `revoked` in 3."""
    kind = EventType.TOKEN_REVOKED
    monkeypatch.setitem(CURRENT, kind, 3)
    monkeypatch.setitem(UPCASTERS, (kind, 1), _renamed("tokenId", "token"))
    monkeypatch.setitem(UPCASTERS, (kind, 2), _renamed("token", "revoked"))
    return kind


def test_an_older_payload_takes_every_step_in_order(three_versions: EventType) -> None:
    assert upcast(three_versions, 1, {"tokenId": 7, "userId": 1}) == {"userId": 1, "revoked": 7}
    assert upcast(three_versions, 2, {"token": 7, "userId": 1}) == {"userId": 1, "revoked": 7}


def test_a_current_payload_is_handed_on_as_it_is(three_versions: EventType) -> None:
    payload = {"revoked": 7, "userId": 1}
    assert upcast(three_versions, 3, payload) is payload


def test_a_payload_newer_than_this_release_is_refused(three_versions: EventType) -> None:
    with pytest.raises(NewerEventVersion) as refused:
        upcast(three_versions, 4, {"whatever": 1})
    assert str(refused.value) == (
        "a TOKEN_REVOKED event is stored in version 4, but this release reads TOKEN_REVOKED "
        "up to version 3: a newer release wrote it"
    )
