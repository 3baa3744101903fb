"""schema.graphql is generated from the code; this fails when the two drift apart."""

from pathlib import Path
from typing import Any

from graphql import Visitor, build_schema, parse, print_ast, visit

from graph.schema import schema

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema.graphql"


def test_schema_file_matches_the_code() -> None:
    expected = schema.as_str() + "\n"
    assert SCHEMA_FILE.read_text() == expected, "schema.graphql is stale: run scripts/export-schema"


class _Undescribed(Visitor):
    def enter(self, node: Any, *_: Any) -> Any:
        if getattr(node, "description", None) is None:
            return None
        return type(node)(**{key: getattr(node, key) for key in node.keys if key != "description"})


def _bare_sdl() -> str:
    """schema.graphql without its descriptions: each field on one line, as a client reads it."""
    document = parse(SCHEMA_FILE.read_text())
    return print_ast(visit(document, _Undescribed()))


def test_contract_names_are_present() -> None:
    sdl = _bare_sdl()
    for name in [
        "type WorkOrder implements Node",
        "type DepartmentTask implements Node",
        "type TaskTransition",
        "type Department implements Node",
        "type User implements Node",
        "type Customer implements Node",
        "type Money",
        "type UserError",
        "enum WorkOrderStatus",
        "enum TaskStatus",
        "enum TaskAction",
        "enum DepartmentKind",
        "enum UserErrorCode",
        "startTask(input: StartTaskInput!): StartTaskPayload!",
        "completeTask(input: CompleteTaskInput!): CompleteTaskPayload!",
    ]:
        assert name in sdl, name


def test_queue_keeps_its_contract_arguments() -> None:
    # Read through the SDL's own parser: descriptions spread a field's arguments over lines.
    fields = build_schema(SCHEMA_FILE.read_text()).query_type.fields  # type: ignore[union-attr]
    queue = fields["queue"]
    assert str(queue.type) == "QueueConnection!"
    arguments = {name: str(argument.type) for name, argument in queue.args.items()}
    assert arguments == {
        "department": "String!",
        "first": "Int",
        "after": "String",
        "search": "String",
        "last": "Int",
        "before": "String",
    }


def test_department_rules_name_their_kinds_in_the_sdl() -> None:
    # One directive for the Sales rule and the Accounts rule: the SDL must tell them apart.
    sdl = _bare_sdl()
    for field, kinds in [
        ("createCustomer(input: CreateCustomerInput!): CreateCustomerPayload!", "[SALES]"),
        ("balance: [Money!]!", "[ACCOUNTS]"),
        ("quote: Money", "[ACCOUNTS, SALES]"),
    ]:
        assert f"{field} @inDepartmentOfKind(kinds: {kinds})" in sdl, field
