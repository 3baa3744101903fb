"""How many HTTP requests this process is answering now: the webhook relay sends one
delivery at a time while any are (workers/webhooks.py), so that the floor's requests
keep their pace beside a burst of webhooks."""

from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send


@dataclass
class InFlight:
    requests: int = 0


class CountRequests:
    """Counts each HTTP request from its start to its end (websockets are not requests:
    a wall display's open subscription is no work waiting)."""

    def __init__(self, app: ASGIApp, counter: InFlight) -> None:
        self.app = app
        self.counter = counter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.counter.requests += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.counter.requests -= 1
