"""uvicorn's httptools protocol, letting go of itself when it hands a connection over.

A websocket arrives as an HTTP request that asks to upgrade: uvicorn's HTTP protocol makes
the websocket's protocol, hands it the transport and is done. It is never told its
connection is lost (the websocket's protocol is), so it keeps its parser, and the parser
keeps the protocol's callbacks: a reference cycle of about 30 objects per websocket
opened, which only a full collection frees. Every protocol handed over moves to the old
generation within a pacer's collection or two, so a server whose displays reconnect, or
whose door is knocked at by websocket churn, piles them up there: 450 in 30 s of the
hostile bench, and a full collection walking them all. Dropping the parser, as uvicorn's
own `connection_lost` does, leaves the protocol to its reference count.
"""

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HandingOverHttpProtocol(HttpToolsProtocol):
    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]
