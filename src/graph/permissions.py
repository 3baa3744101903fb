"""The access rules as the schema declares them: `allowed(...)` on the field or mutation
itself (each mutation in its own module; tests/unit/access_table.txt lists them all),
the caller-alone rules being api/rules.py's (the HTTP doors use the same ones);
`passes` and `require` ask a rule where a resolver leaves something out rather than
refusing it (quote changes in a history, a ledger entry reached through `node`);
api/rules.py's `sees_person` and `owns_or_administers` decide which rows of people and
tokens a caller may know of. No resolver, and nothing in src/db, checks a role by hand.

A missing or invalid token is `UNAUTHENTICATED`; a valid one without the right is
`FORBIDDEN`. Admins pass every rule but the department-membership rules for
working on tasks (admins have their own override actions).
"""

from enum import StrEnum
from typing import Any

import strawberry
from graphql import GraphQLObjectType, GraphQLSchema
from strawberry.extensions.field_extension import FieldExtension
from strawberry.permission import BasePermission, PermissionExtension
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.schema_directive import Location
from strawberry.types.field import StrawberryField

from api import rules
from api.errors import forbidden, unauthenticated
from api.viewer import Viewer
from domain.enums import DepartmentKind, TaskAction
from domain.transitions import TRANSITIONS, Who
from graph.context import Info
from graph.types.enums import describe_values


def _readable_departments(viewer: Viewer) -> list[int]:
    """Departments whose queues the viewer reads: its memberships, or a display's list."""
    return sorted(
        viewer.member_department_ids if viewer.is_person else viewer.display_department_ids
    )


def viewer_of(info: Info) -> Viewer:
    """The caller; UNAUTHENTICATED when there is none."""
    viewer = info.context.viewer
    if viewer is None:
        raise unauthenticated(token_given=info.context.token is not None)
    return viewer


class Forbidden(BasePermission):
    """A rule of the schema; `who` says whom it admits, in words (see `say_who_may`)."""

    error_extensions = {"code": "FORBIDDEN"}
    who: str


class Declared(Forbidden):
    """A rule of the caller alone (api/rules.py), declared on a field or mutation. Each
    rule is a subclass of its own, since the SDL names its directive after the class."""

    def __init__(self, rule: rules.Rule) -> None:
        self.rule = rule
        self.message = rule.message
        self.who = rule.who

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return self.rule.admits(viewer_of(info))


class IsStaff(Declared):
    def __init__(self) -> None:
        super().__init__(rules.STAFF)


class SignedInWithPassword(Declared):
    def __init__(self) -> None:
        super().__init__(rules.SESSION)


class IsAdmin(Declared):
    def __init__(self) -> None:
        super().__init__(rules.ADMINS)


@strawberry.schema_directive(
    locations=[Location.FIELD_DEFINITION],
    name="inDepartmentOfKind",
    description="Members of a department of one of these kinds, and admins.",
)
class InDepartmentOfKindDirective:
    kinds: list[DepartmentKind]


class InDepartmentOfKind(Declared):
    """A department-kind rule, shown in the SDL with its kinds: the Sales rule and the
    Accounts rule read apart."""

    def __init__(self, rule: rules.InDepartmentOfKind) -> None:
        super().__init__(rule)
        self._directive = InDepartmentOfKindDirective(kinds=sorted(rule.kinds))

    @property
    def schema_directive(self) -> object:
        return self._directive


class SeesQueue(Forbidden):
    """The queue of `department` (or of the Department the field is on): its members,
    admins, and display tokens naming it."""

    message = "Only members of this department (or admins, or its wall displays) can see its queue."
    who = "Members of the department, its wall displays, and admins."

    async def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        viewer = viewer_of(info)
        if viewer.is_person and viewer.is_admin:
            return True
        code = kwargs.get("department", getattr(source, "code", None))
        departments = await info.context.loaders.department.load_many(_readable_departments(viewer))
        # An unknown code passes here so that the resolver can say so precisely.
        known = await info.context.loaders.department_codes()
        return code not in known or any(d is not None and d.code == code for d in departments)


class SeesDeliveryGate(Forbidden):
    """Gate events: admins, members of the delivery department, and its wall displays."""

    message = "Only the delivery department (or admins, or its wall displays) can see this."
    who = "Members of a delivery department, its wall displays, and admins."

    async def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        viewer = viewer_of(info)
        if viewer.is_person and viewer.is_admin:
            return True
        departments = await info.context.loaders.department.load_many(_readable_departments(viewer))
        return any(d is not None and d.kind == DepartmentKind.DELIVERY for d in departments)


@strawberry.schema_directive(
    locations=[Location.FIELD_DEFINITION],
    name="whenGiven",
    description="Callers who give the argument: members of a department of one of these "
    "kinds, and admins.",
)
class WhenGivenDirective:
    argument: str
    kinds: list[DepartmentKind]


class WhenGiven(Forbidden):
    """`rule`, asked only of callers who give the argument `argument` (its Python name): a
    filter that only some may use on a field others may read."""

    def __init__(self, argument: str, rule: rules.InDepartmentOfKind) -> None:
        self.argument = argument
        self.rule = rule
        first, *rest = argument.split("_")
        named = first + "".join(w.title() for w in rest)
        kinds = sorted(rule.kinds)
        self.message = f"Only members of {' or '.join(kinds)} (or admins) can ask for {named}."
        self.who = f"With `{named}`: {rule.who[0].lower()}{rule.who[1:]}"
        self._directive = WhenGivenDirective(argument=named, kinds=kinds)

    @property
    def schema_directive(self) -> object:
        return self._directive

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return kwargs.get(self.argument) is None or self.rule.admits(viewer_of(info))


class IsSelf(Forbidden):
    message = "Only the user themselves can see this."
    who = "The user themselves."

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        viewer = viewer_of(info)
        return viewer.is_person and viewer.user_id == source.id


class SelfOrAdmin(Forbidden):
    message = "Only admins and the user themselves can see this."
    who = "The user themselves, and admins."

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return rules.owns_or_administers(viewer_of(info), source.id)


def passes(rule: BasePermission, info: Info) -> bool:
    """Whether the caller passes `rule`, for a resolver that leaves out (rather than
    refuses) what the rule guards: the one way to ask a rule outside `allowed`. A caller
    without a valid token passes none."""
    return info.context.viewer is not None and bool(rule.has_permission(None, info))


def require(rule: BasePermission, info: Info) -> None:
    """UNAUTHENTICATED without a valid token, FORBIDDEN unless the caller passes `rule`
    (for reads reached through `node`)."""
    viewer_of(info)
    if not passes(rule, info):
        raise forbidden(rule.message or "")


def allowed(*rules: Forbidden) -> list[FieldExtension]:
    """`extensions=allowed(STAFF)`: the caller must pass every rule listed."""
    return [PermissionExtension(list(rules))]


# What a root field declaring no rule ends with: it answers callers with or without a token.
ANYONE = "Anyone, with or without a token."


def who_may(field: StrawberryField) -> str | None:
    """Whom the rules `field` declares admit, in words; None when it declares none."""
    words = [
        rule.who
        for extension in field.extensions
        if isinstance(extension, PermissionExtension)
        for rule in extension.permissions
        if isinstance(rule, Forbidden)
    ]
    return " ".join(words) or None


def say_who_may(schema: GraphQLSchema) -> None:
    """Ends the description of every field that declares rules, and of every root field,
    with whom they admit: introspection then tells it (the SDL's directives do not), from
    the rules themselves, so the words cannot drift from what is enforced."""
    roots = {schema.query_type, schema.mutation_type, schema.subscription_type}
    for type_ in schema.type_map.values():
        if not isinstance(type_, GraphQLObjectType) or type_.name.startswith("__"):
            continue
        for field in type_.fields.values():
            definition = field.extensions.get(GraphQLCoreConverter.DEFINITION_BACKREF)
            words = who_may(definition) if isinstance(definition, StrawberryField) else None
            if words is None and type_ in roots:
                words = ANYONE
            if words is not None:
                field.description = " ".join(filter(None, [field.description, words]))


STAFF = IsStaff()
SESSION = SignedInWithPassword()
ADMINS = IsAdmin()
SALES = InDepartmentOfKind(rules.SALES)
SEES_QUOTES = InDepartmentOfKind(rules.SEES_QUOTES)
READS_LEDGER = InDepartmentOfKind(rules.READS_LEDGER)
UPLOADS_PROOFS = InDepartmentOfKind(rules.UPLOADS_PROOFS)
# customers(refundDue:) tells who is owed money: the ledger's readers only.
READS_LEDGER_TO_FILTER_REFUNDS = WhenGiven("refund_due", rules.READS_LEDGER)
SEES_QUEUE = SeesQueue()
SEES_DELIVERY_GATE = SeesDeliveryGate()
SELF_OR_ADMIN = SelfOrAdmin()
SELF = IsSelf()


# Who may move a task, from the transition table: the declared rule is what the caller alone
# decides; whose department and who started it, the guarded statement checks per task.
MOVERS: dict[Who, Forbidden] = {
    Who.DEPARTMENT_MEMBER: STAFF,
    Who.TASK_HOLDER: STAFF,
    Who.ADMIN: ADMINS,
    Who.SALES: SALES,
}


def moves(action: TaskAction) -> list[FieldExtension]:
    """`extensions=moves(TaskAction.START)`: the rule the transition table gives the move."""
    return allowed(MOVERS[TRANSITIONS[action].who])


@strawberry.enum(
    description="An access rule, by name: `User.access` lists those the caller passes."
)
class AccessRule(StrEnum):
    """The rules above that screens ask about, by name (`User.access`)."""

    STAFF = "STAFF"
    ADMINS = "ADMINS"
    SALES = "SALES"
    SEES_QUOTES = "SEES_QUOTES"
    READS_LEDGER = "READS_LEDGER"


RULES_BY_NAME: dict[AccessRule, Forbidden] = {
    AccessRule.STAFF: STAFF,
    AccessRule.ADMINS: ADMINS,
    AccessRule.SALES: SALES,
    AccessRule.SEES_QUOTES: SEES_QUOTES,
    AccessRule.READS_LEDGER: READS_LEDGER,
}


def rules_passed(info: Info) -> list[AccessRule]:
    """The named rules the caller passes, each asked as a field would ask it."""
    return [name for name, rule in RULES_BY_NAME.items() if passes(rule, info)]


describe_values(
    AccessRule,
    {
        name: f"Passed by: {rule.who[0].lower()}{rule.who[1:]}"
        for name, rule in RULES_BY_NAME.items()
    },
)
