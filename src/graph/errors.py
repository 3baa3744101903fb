"""The schema's errors: `userErrors` for expected failures (api/errors.py has the
top-level codes), and which exceptions are masked as `INTERNAL_SERVER_ERROR`."""

import strawberry
from graphql import GraphQLError
from strawberry.relay import GlobalIDValueError

from api.errors import EXPECTED_CODES
from domain.errors import DomainError, ErrorCode
from domain.warnings import Notice, WarningCode
from graph.types import enums as _registered  # noqa: F401  (UserErrorCode)


@strawberry.type(description="An expected failure: the request changed nothing.")
class UserError:
    code: ErrorCode = strawberry.field(description="What kind of failure, to switch on.")
    message: str = strawberry.field(description="What went wrong, in words to show a person.")
    field: str | None = strawberry.field(
        default=None, description="The input field at fault, when there is one."
    )

    @classmethod
    def of(cls, error: DomainError) -> "UserError":
        return cls(code=error.code, message=error.message, field=error.field)


@strawberry.type(
    name="UserWarning",
    description="Something a person should know of what the request did: it was done.",
)
class PayloadWarning:
    code: WarningCode = strawberry.field(description="What kind of warning, to switch on.")
    message: str = strawberry.field(description="What to tell the person, in words.")

    @classmethod
    def of(cls, notices: list[Notice]) -> list["PayloadWarning"]:
        return [cls(code=n.code, message=n.message) for n in notices]


def should_mask(error: GraphQLError) -> bool:
    """Mask exceptions raised while resolving a field unless we raised them on purpose.

    Errors without a path are the request's own (syntax, validation, variables): they
    say what is wrong with the request and stay as they are.
    """
    if error.path is None:
        return False
    original = error.original_error
    if original is None or isinstance(original, GlobalIDValueError):
        return False
    extensions = original.extensions if isinstance(original, GraphQLError) else error.extensions
    return (extensions or {}).get("code") not in EXPECTED_CODES
