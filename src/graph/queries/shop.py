"""How the shop is set up: the API's version, its departments in route order, and the
kinds a new department may be given."""

import strawberry

from api.version import VERSION
from domain.workflow import kind_choices
from graph.context import Info
from graph.permissions import ADMINS, STAFF, allowed
from graph.types.departments import Department, DepartmentKindChoice


@strawberry.field(
    description="The API's version (semantic versioning, as on the server's GET /version): "
    "its major part moves with every breaking change, which the changelog names."
)
def api_version() -> str:
    return VERSION


@strawberry.field(
    extensions=allowed(STAFF),
    description="Every department in route order: production ones after those they "
    "follow (ties by name), then delivery, then Sales and Accounts.",
)
async def departments(info: Info) -> list[Department]:
    return [Department.of(r) for r in await info.context.loaders.all_departments()]


@strawberry.field(
    extensions=allowed(ADMINS),
    description="The kinds a new department may be given now (createDepartment), with "
    "whether each may gate delivery and does by default.",
)
async def department_kinds(info: Info) -> list[DepartmentKindChoice]:
    existing = [d.kind for d in await info.context.loaders.all_departments()]
    return [DepartmentKindChoice.of(c) for c in kind_choices(existing)]
