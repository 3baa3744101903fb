"""The errors every door answers with: top-level codes in `extensions.code`, the same JSON
shape whether GraphQL ran or a request was refused before it (graph/errors.py adds the
schema's `userErrors`)."""

from enum import StrEnum

from graphql import GraphQLError
from starlette.responses import JSONResponse, Response


class TopLevelCode(StrEnum):
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    BAD_REQUEST = "BAD_REQUEST"
    # An argument names nothing there is (queue's department code): the one case a
    # client tells apart from a malformed request, to say so in words.
    NOT_FOUND = "NOT_FOUND"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    RATE_LIMITED = "RATE_LIMITED"
    # Apollo's automatic persisted queries: the hash is unknown, send it with the text.
    PERSISTED_QUERY_NOT_FOUND = "PERSISTED_QUERY_NOT_FOUND"
    # PRESSROOM_TRUSTED_DOCUMENTS: this caller may run only the manifest's documents.
    TRUSTED_DOCUMENTS_ONLY = "TRUSTED_DOCUMENTS_ONLY"
    INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR"


def top_level(code: TopLevelCode, message: str) -> GraphQLError:
    return GraphQLError(message, extensions={"code": code.value})


# One message for a token that is unknown, expired or revoked (or whose user was
# deactivated): which of them it is, is the token holder's to know, not the bearer's.
STALE_TOKEN = "This token is no longer valid: sign in again."


def unauthenticated(token_given: bool = False) -> GraphQLError:
    if token_given:
        return top_level(TopLevelCode.UNAUTHENTICATED, STALE_TOKEN)
    return top_level(
        TopLevelCode.UNAUTHENTICATED,
        "Sign in first: send 'Authorization: Bearer <token>' (get one from the login mutation).",
    )


def forbidden(message: str) -> GraphQLError:
    return top_level(TopLevelCode.FORBIDDEN, message)


def bad_request(message: str) -> GraphQLError:
    return top_level(TopLevelCode.BAD_REQUEST, message)


def not_found(message: str) -> GraphQLError:
    return top_level(TopLevelCode.NOT_FOUND, message)


EXPECTED_CODES = frozenset(c.value for c in TopLevelCode) - {"INTERNAL_SERVER_ERROR"}


def error_response(
    message: str, status_code: int, code: str = TopLevelCode.BAD_REQUEST.value
) -> JSONResponse:
    """A request refused before GraphQL ran, in the same JSON shape as every other error
    (`code`: a user error's code, where a door says which)."""
    return JSONResponse(
        {"errors": [{"message": message, "extensions": {"code": code}}]},
        status_code=status_code,
    )


UNAVAILABLE_MESSAGE = "The database is unavailable right now; try again in a few seconds."
RETRY_AFTER_SECONDS = 5


def service_unavailable() -> GraphQLError:
    return top_level(TopLevelCode.SERVICE_UNAVAILABLE, UNAVAILABLE_MESSAGE)


def unavailable_response() -> JSONResponse:
    """HTTP 503 for a request that could not reach the database at all: it never ran, so
    it has no `data`."""
    return try_again(UNAVAILABLE_MESSAGE, RETRY_AFTER_SECONDS)


BUSY_MESSAGE = (
    "The server is answering as many requests without a valid token as it takes at once; "
    "try again in a moment."
)


def busy_response(retry_after: int) -> JSONResponse:
    """HTTP 503 for an anonymous request past admission control (api/admission.py)."""
    return try_again(BUSY_MESSAGE, retry_after)


def try_again(message: str, retry_after: int) -> JSONResponse:
    """HTTP 503 with Retry-After for a request that never ran: SERVICE_UNAVAILABLE, saying why."""
    return JSONResponse(
        {
            "errors": [
                {"message": message, "extensions": {"code": TopLevelCode.SERVICE_UNAVAILABLE.value}}
            ],
        },
        status_code=503,
        headers={"Retry-After": str(retry_after)},
    )


def rate_limited(response: Response | None, retry_after: int) -> GraphQLError:
    """A sign-in's or an upload's top-level RATE_LIMITED error to raise (`over_limit`)."""
    return over_limit(
        response,
        retry_after,
        top_level(
            TopLevelCode.RATE_LIMITED, f"Too many attempts; try again in {retry_after} seconds."
        ),
    )


def over_limit(response: Response | None, retry_after: int, error: GraphQLError) -> GraphQLError:
    """`error`, with 429 and Retry-After on the response being built (None on a websocket)."""
    if response is not None:
        response.status_code = 429
        response.headers["retry-after"] = str(retry_after)
    return error
