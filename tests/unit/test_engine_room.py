"""The engine room's door: everything it picks, and, when plain, the frameworks' own."""

from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from db.engine import create_engine, through_driver
from graph.engine import EngineRoom, EngineShortcuts
from graph.engine.http import HandingOverHttpProtocol
from graph.engine.runner import ExtensionsRunner
from graph.engine.sharing import SharingExecutor
from graph.engine.view import TransportWSHandler, TunedGraphQL
from graph.engine.websocket import LeanWebSocketProtocol
from graph.live import LiveConnections
from graph.services import SchemaServices, Shortcuts
from graph.view import PressroomGraphQL

URL = "postgresql://nobody@127.0.0.1:1/none"


def _view(room: EngineRoom) -> PressroomGraphQL:
    services = SchemaServices(create_engine(URL), 60, shortcuts=room.shortcuts())
    return room.view(
        services, live=LiveConnections(), keep_alive_seconds=15, connection_init_timeout_seconds=10
    )


def test_the_engine_room_runs_its_own_pieces() -> None:
    room = EngineRoom()
    assert room.schema.execution_context_class is SharingExecutor
    assert room.server_options() == {
        "http": HandingOverHttpProtocol,
        "ws": LeanWebSocketProtocol,
    }
    assert type(room.shortcuts()) is EngineShortcuts
    view = _view(room)
    assert type(view) is TunedGraphQL
    assert view.graphql_transport_ws_handler_class is TransportWSHandler
    runner = room.schema.create_extensions_runner(None, [])  # type: ignore[arg-type]
    assert isinstance(runner, ExtensionsRunner)


def test_plain_runs_the_frameworks_own() -> None:
    room = EngineRoom(plain=True)
    assert room.schema.execution_context_class is StrawberryGraphQLCoreExecutionContext
    assert room.server_options() == {"ws": "websockets-sansio"}
    assert issubclass(LeanWebSocketProtocol, WebSocketsSansIOProtocol)
    assert issubclass(HandingOverHttpProtocol, HttpToolsProtocol)
    assert type(room.shortcuts()) is Shortcuts
    view = _view(room)
    assert type(view) is PressroomGraphQL
    assert "encode_json" not in vars(PressroomGraphQL)
    runner = room.schema.create_extensions_runner(None, [])  # type: ignore[arg-type]
    assert not isinstance(runner, ExtensionsRunner)


def test_an_engine_not_through_the_driver_says_so_to_its_connections() -> None:
    assert through_driver(create_engine(URL))
    plain = create_engine(URL, through_driver=False)
    assert not through_driver(plain)
    assert not through_driver(plain.execution_options(isolation_level="AUTOCOMMIT"))
