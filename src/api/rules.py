"""The access rules of the caller alone, said once: the schema declares them on fields and
mutations (graph/permissions.py), and the HTTP doors beside it guard their routes with the
same objects (routes/endpoints.py). Admins pass each but the session rule; row rules (whose
account, whose token) are the two functions at the end.
"""

from dataclasses import dataclass

from api.viewer import Viewer
from domain.enums import DepartmentKind, TokenKind


class Rule:
    """Whom a rule admits, what the refused are told, and `who`: whom it admits in words,
    the end of the description of every field it guards (graph/permissions.py)."""

    message: str = "Forbidden."
    who: str

    def admits(self, viewer: Viewer) -> bool:
        raise NotImplementedError


class Staff(Rule):
    """Any signed-in person; wall display tokens only read their queues."""

    message = "Wall display tokens can only read their departments' queues."
    who = "Signed-in staff (not wall display tokens)."

    def admits(self, viewer: Viewer) -> bool:
        return viewer.is_person


class Session(Rule):
    """A session: the person signed in with their password. API and display tokens act for
    their maker without it, so they cannot make tokens (one stolen would make more)."""

    message = "Only a signed-in session can do this: API and display tokens cannot make tokens."
    who = "Signed-in sessions (not API or display tokens)."

    def admits(self, viewer: Viewer) -> bool:
        return viewer.token_kind is TokenKind.SESSION


class Admins(Rule):
    message = "Only admins can do this."
    who = "Admins."

    def admits(self, viewer: Viewer) -> bool:
        return viewer.is_person and viewer.is_admin


@dataclass(frozen=True, init=False)
class InDepartmentOfKind(Rule):
    """Members of a department of one of these kinds (e.g. Sales), or admins: decided from
    the viewer alone (it carries its departments' kinds)."""

    kinds: frozenset[DepartmentKind]

    def __init__(self, *kinds: DepartmentKind) -> None:
        object.__setattr__(self, "kinds", frozenset(kinds))

    @property
    def departments(self) -> str:
        return " or ".join(sorted(kind.capitalize() for kind in self.kinds))

    @property
    def message(self) -> str:  # type: ignore[override]
        return f"Only people in {self.departments} (or admins) can do this."

    @property
    def who(self) -> str:  # type: ignore[override]
        return f"Members of {self.departments}, and admins."

    def admits(self, viewer: Viewer) -> bool:
        if not viewer.is_person:
            return False
        return viewer.is_admin or bool(viewer.member_department_kinds & self.kinds)


STAFF = Staff()
SESSION = Session()
ADMINS = Admins()
SALES = InDepartmentOfKind(DepartmentKind.SALES)
SEES_QUOTES = InDepartmentOfKind(DepartmentKind.SALES, DepartmentKind.ACCOUNTS)
READS_LEDGER = InDepartmentOfKind(DepartmentKind.ACCOUNTS)
# Which orders a production member may add proofs to, the upload's statement decides
# (db/proofs.py): those with a task of a department of theirs that makes the proofs.
UPLOADS_PROOFS = InDepartmentOfKind(DepartmentKind.SALES, DepartmentKind.PRODUCTION)


def owns_or_administers(viewer: Viewer, owner_id: int) -> bool:
    """The person's own (their account's private fields, their tokens) or an admin's.
    Others' tokens do not exist to a caller (NOT_FOUND, or null from `node`)."""
    return viewer.is_person and (viewer.is_admin or viewer.user_id == owner_id)


def sees_person(viewer: Viewer, user_id: int, their_departments: frozenset[int]) -> bool:
    """Someone's account asked for by id (`node`): admins, the person, and people who
    share a department with them. To anyone else the id names nothing, so accounts cannot
    be listed by counting ids. (People met through the floor, a task's picker or a
    history's actor, are shown wherever the task or the history is.)"""
    return (
        viewer.is_admin
        or viewer.user_id == user_id
        or bool(viewer.member_department_ids & their_departments)
    )
