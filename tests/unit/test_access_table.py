"""Every field of the schema with the access rule declared on it, as a table kept in
tests/unit/access_table.txt: a change of who may do what is a visible diff of that file.
"-" means the field has no rule of its own: whoever reached its parent reads it.

Regenerate after a deliberate change: .venv/bin/python -m tests.unit.test_access_table
"""

import sys
from pathlib import Path

from strawberry.permission import PermissionExtension
from strawberry.types.base import StrawberryObjectDefinition

from graph import permissions
from graph.schema import schema

TABLE = Path(__file__).with_name("access_table.txt")


def access_table() -> str:
    names = {
        id(rule): name
        for name, rule in vars(permissions).items()
        if isinstance(rule, permissions.BasePermission)
    }
    rows = []
    for type_name, found in sorted(schema.schema_converter.type_map.items()):
        definition = found.definition
        if not isinstance(definition, StrawberryObjectDefinition) or definition.is_input:
            continue
        for field in definition.fields:
            rules = [
                names.get(id(rule), type(rule).__name__)
                for extension in field.extensions
                if isinstance(extension, PermissionExtension)
                for rule in extension.permissions
            ]
            rows.append(f"{type_name}.{field.python_name}: {', '.join(rules) or '-'}")
    return "\n".join(rows) + "\n"


def test_every_field_has_the_rule_the_table_says() -> None:
    assert access_table() == TABLE.read_text(), (
        "who may do what changed: if that is meant, regenerate tests/unit/access_table.txt "
        "(.venv/bin/python -m tests.unit.test_access_table) and review its diff"
    )


def test_every_rule_in_the_table_is_a_named_rule() -> None:
    """A rule made in place (not one of graph/permissions.py's) would show by class name."""
    named = {n for n, r in vars(permissions).items() if isinstance(r, permissions.BasePermission)}
    used = {
        rule.strip()
        for line in access_table().splitlines()
        for rule in line.split(": ", 1)[1].split(",")
        if rule.strip() != "-"
    }
    assert used <= named


if __name__ == "__main__":
    sys.stdout.write(access_table())
