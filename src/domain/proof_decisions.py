"""Deciding a proof version: the customer approves it or asks for changes, through their
link or by telling Sales (who records it, named). A version is decided once, and only the
latest one while it is pending; db/proof_decisions.py writes the decision with one guarded
statement and asks `judge_decision` why when it matched nothing."""

from dataclasses import dataclass

from domain import validation
from domain.enums import EventType, ProofDecider, ProofStatus, WorkOrderStatus
from domain.errors import DomainError, ErrorCode, NotAllowed
from domain.transitions import Verdict, open_refusal

# The actor of what a customer's decision moves on the floor (Design's task reopened or
# added): people decide through their link without an account. Inactive, no password.
CUSTOMER_USER_EMAIL = "customer@pressroom.invalid"
CUSTOMER_USER_NAME = "The customer"


@dataclass(frozen=True)
class Decision:
    """A decision as asked, checked: the approver's name as they gave it, and for changes
    what to change."""

    approve: bool
    decided_by_name: str
    comment: str | None
    through: ProofDecider

    @property
    def status(self) -> ProofStatus:
        return ProofStatus.APPROVED if self.approve else ProofStatus.CHANGES_REQUESTED

    @property
    def kind(self) -> EventType:
        """Its event's type, which its history row's action is named after too."""
        return EventType.PROOF_APPROVED if self.approve else EventType.PROOF_CHANGES_REQUESTED

    def history(self, version: int) -> str:
        """Its line in the order's history: "Version 2: changes asked for by Jane Roe, to
        Sales: the logo is too small"."""
        verb = "approved" if self.approve else "changes asked for"
        way = "through their link" if self.through is ProofDecider.CUSTOMER else "to Sales"
        said = f": {self.comment}" if self.comment else ""
        return f"Version {version}: {verb} by {self.decided_by_name}, {way}{said}"


def decision(
    approve: bool, decided_by_name: str, comment: str | None, through: ProofDecider
) -> Decision:
    """Refuses an empty name, and a request for changes that does not say what (both at
    once)."""
    with validation.every_problem() as check:
        name = check(validation.text, decided_by_name, "approverName")
        said = check(_comment, approve, comment)
    return Decision(approve, name, said, through)


def _comment(approve: bool, comment: str | None) -> str | None:
    said = comment.strip() if comment is not None else ""
    if not approve and not said:
        raise validation.invalid("Say what should change.", "comment")
    return validation.text(said, "comment", max_len=validation.MAX_REASON) if said else None


@dataclass(frozen=True)
class ProofState:
    """A version as it stands, read after a decision matched nothing."""

    version: int
    status: ProofStatus
    latest_version: int
    order_status: WorkOrderStatus
    imported_closed: bool
    decided_by_name: str | None
    # The customer's link is this order's and not revoked (always, for Sales).
    way_in: bool = True


def judge_decision(asked: Decision, version: int, state: ProofState | None) -> Verdict:
    """Why a decision matched nothing: raise the refusal, or say that it already holds (a
    double click, two people at once: a quiet success) or that the write may be retried."""
    if state is None:
        raise DomainError(
            ErrorCode.NOT_FOUND, f"This work order has no proof version {version}.", "version"
        )
    if not state.way_in:
        raise NotAllowed("This customer link is revoked, or is not this work order's.")
    refusal = open_refusal(state.order_status, state.imported_closed)
    if refusal is not None:
        raise refusal
    if state.status is asked.status:
        return Verdict.ALREADY_DONE
    if state.status is ProofStatus.WITHDRAWN or state.version != state.latest_version:
        raise DomainError(
            ErrorCode.PROOF_SUPERSEDED,
            f"Version {version} was replaced by version {state.latest_version}: decide on "
            "the latest version.",
            "version",
        )
    if state.status is not ProofStatus.PENDING:
        raise DomainError(
            ErrorCode.ALREADY_DECIDED,
            f"Version {version} was already {_decided(state.status)} by "
            f"{state.decided_by_name}: a version is decided once (a new version asks again).",
            "version",
        )
    return Verdict.RETRY


def _decided(status: ProofStatus) -> str:
    return "approved" if status is ProofStatus.APPROVED else "sent back with changes asked for"
