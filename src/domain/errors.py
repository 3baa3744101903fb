"""Error codes of expected failures, and the one exception that carries them.

The GraphQL layer turns a `DomainError` into a `userErrors` entry; everything
else it treats as unexpected.
"""

from enum import StrEnum


class ErrorCode(StrEnum):
    ALREADY_TAKEN = "ALREADY_TAKEN"
    INVALID_TRANSITION = "INVALID_TRANSITION"
    NOT_AVAILABLE = "NOT_AVAILABLE"
    NOT_TASK_HOLDER = "NOT_TASK_HOLDER"
    WORK_ORDER_CLOSED = "WORK_ORDER_CLOSED"
    NOT_FOUND = "NOT_FOUND"
    INVALID_INPUT = "INVALID_INPUT"
    STALE_OBJECT = "STALE_OBJECT"
    DUPLICATE = "DUPLICATE"
    # The task's work order is on hold: its pending tasks cannot be started.
    ON_HOLD = "ON_HOLD"
    # A proof file that is not a PDF, PNG or JPEG, or whose name says it is something else.
    UNSUPPORTED_FILE = "UNSUPPORTED_FILE"
    # A proof file cut short or otherwise undecodable.
    DAMAGED_FILE = "DAMAGED_FILE"
    # A proof file of more bytes, or an image of more pixels, than a proof may have.
    FILE_TOO_LARGE = "FILE_TOO_LARGE"
    # The task waits for the customer's approval of the order's latest proof.
    PROOF_NOT_APPROVED = "PROOF_NOT_APPROVED"
    # The proof version was withdrawn by a newer one: only the latest can be decided.
    PROOF_SUPERSEDED = "PROOF_SUPERSEDED"
    # The proof version was already decided the other way.
    ALREADY_DECIDED = "ALREADY_DECIDED"


class DomainError(Exception):
    def __init__(self, code: ErrorCode, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class InputErrors(DomainError):
    """Every problem of one input, each at its field, so that a form shows them all at
    once; as a DomainError it reads as the first of them."""

    def __init__(self, errors: list[DomainError]) -> None:
        first = errors[0]
        super().__init__(first.code, first.message, first.field)
        self.errors = errors


def each(error: DomainError) -> list[DomainError]:
    """The problems an error stands for: one, or every one of an input's."""
    return error.errors if isinstance(error, InputErrors) else [error]


class NotAllowed(Exception):
    """The actor lacks the right to do this at all: a permission failure, not a user error."""
