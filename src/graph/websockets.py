"""The websocket protocols' handlers: a subscription's document is admitted as an HTTP
request's is (graph/persisted.py: persisted queries, trusted documents) before Strawberry
runs it; a refused one is answered with an error message on its id."""

from typing import Any, cast

from graphql import GraphQLError
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import SubscribeMessage
from strawberry.subscriptions.protocols.graphql_ws.handlers import BaseGraphQLWSHandler
from strawberry.subscriptions.protocols.graphql_ws.types import StartMessage

from graph.context import Context


def _admit(context: Context, payload: dict[str, Any]) -> GraphQLError | None:
    """Puts the text the payload runs in its `query`; or the error it is refused with."""
    admitted = context.services.documents.admit(
        payload.get("query"), payload.get("extensions"), context.viewer, context.token is not None
    )
    if isinstance(admitted, GraphQLError):
        return admitted
    payload["query"] = admitted.query
    return None


class TrustedTransportWSHandler(BaseGraphQLTransportWSHandler[Context, Any]):
    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        # Strawberry's own checks (not acknowledged, an id in use) come first.
        if self.connection_acknowledged and message["id"] not in self.operations:
            error = _admit(self.context, cast(dict[str, Any], message["payload"]))
            if error is not None:
                await self.send_message(
                    {"id": message["id"], "type": "error", "payload": [error.formatted]}
                )
                return
        await super().handle_subscribe(message)


class TrustedWSHandler(BaseGraphQLWSHandler[Context, Any]):
    async def handle_start(self, message: StartMessage) -> None:
        if self.connection_acknowledged:
            error = _admit(self.context, cast(dict[str, Any], message["payload"]))
            if error is not None:
                await self.send_message(
                    {"type": "error", "id": message["id"], "payload": error.formatted}
                )
                return
        await super().handle_start(message)
