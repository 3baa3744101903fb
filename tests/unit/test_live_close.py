"""Closing the sockets of a revoked token never waits on one socket that cannot take the
close (a client that stopped reading): the others close, and the caller, the watcher of
revocations, goes on at once."""

import asyncio
from typing import Any

from api.viewer import Viewer
from domain.enums import TokenKind
from graph.live import REVOKED_CLOSE_CODE, LiveConnections


class Socket:
    def __init__(self, stuck: bool) -> None:
        self.stuck = stuck
        self.closed = asyncio.Event()
        self.abandoned = False
        self.codes: list[int] = []

    async def close(self, code: int, reason: str) -> None:
        self.codes.append(code)
        if self.stuck:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.abandoned = True
                raise
        self.closed.set()


def viewer(token_id: int) -> Viewer:
    return Viewer(
        token_id=token_id,
        token_kind=TokenKind.DISPLAY,
        user_id=1,
        is_admin=False,
        member_department_ids=frozenset(),
        display_department_ids=frozenset({1}),
    )


async def test_a_socket_that_cannot_take_the_close_holds_up_nothing() -> None:
    live = LiveConnections()
    stuck, fine, other = Socket(stuck=True), Socket(stuck=False), Socket(stuck=False)
    sockets: list[Any] = [stuck, fine, other]
    for socket, token in zip(sockets, (7, 7, 8), strict=True):
        live.add(viewer(token), socket)
    async with asyncio.timeout(5):
        await live.close_token(7)
        await fine.closed.wait()
    assert stuck.codes == fine.codes == [REVOKED_CLOSE_CODE]
    assert other.codes == []
    assert live.count() == 1
    # Stopping gives up on the close still waiting rather than waiting out its timeout or
    # leaving it running.
    async with asyncio.timeout(5):
        await live.stop()
    assert stuck.abandoned
