"""The HTTP endpoints beside GraphQL (exports, job tickets): the same bearer token and the
same access rules, refusals in the same JSON shape."""

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from api.auth import bearer, load_viewer
from api.errors import error_response
from api.rules import Rule
from api.services import Services
from domain.errors import DomainError

Endpoint = Callable[[Request], Awaitable[Response]]


def guarded(services: Services, rule: Rule, endpoint: Endpoint) -> Endpoint:
    """`endpoint` for callers whose token works (else 401) and who pass `rule` (else 403);
    a DomainError it raises is a 400 in words."""

    async def checked(request: Request) -> Response:
        response = await answer(request)
        # The caller's own data, as GraphQL's answers: no cache keeps it, no browser guesses
        # its type (a CSV cell read as HTML).
        response.headers["cache-control"] = "no-store"
        response.headers["x-content-type-options"] = "nosniff"
        return response

    async def answer(request: Request) -> Response:
        viewer = await load_viewer(services, bearer(request.headers.get("authorization")))
        if viewer is None:
            return error_response("Sign in first: send 'Authorization: Bearer <token>'.", 401)
        if not rule.admits(viewer):
            return error_response(rule.message, 403)
        # For endpoints that act as the caller (an upload names its uploader).
        request.state.viewer = viewer
        try:
            return await endpoint(request)
        except DomainError as error:
            return error_response(error.message, 400)

    return checked
