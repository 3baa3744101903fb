"""The schema documents itself: its custom scalars say their wire form and where it is
specified, every field that declares access rules (and every root field) ends its
description with whom they admit, from the rules themselves, and graphql-schema-linter's
description rules pass over schema.graphql (scripts/lint-schema, also in ./dev check)."""

import re
import subprocess
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from graphql import GraphQLObjectType, GraphQLScalarType
from strawberry.schema.schema_converter import GraphQLCoreConverter

from domain.money import Money as DomainMoney
from graph.engine.schema import tuned_schema
from graph.permissions import ANYONE, who_may
from graph.schema import schema
from graph.types.money import Money

ROOT = Path(__file__).resolve().parents[2]
LINT = ROOT / "scripts" / "lint-schema"
SDL = ROOT / "schema.graphql"
# docs/api.md's "Decimal": optional minus, digits, at most one point, no exponent.
DECIMAL_FORM = re.compile(r"-?[0-9]+(\.[0-9]+)?")
RFC_3339_DATE_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def _scalar(name: str) -> GraphQLScalarType:
    scalar = schema._schema.type_map[name]
    assert isinstance(scalar, GraphQLScalarType)
    return scalar


def test_custom_scalars_say_where_their_form_is_specified() -> None:
    sdl = SDL.read_text()
    for name, url in [
        ("DateTime", "https://datatracker.ietf.org/doc/html/rfc3339#section-5.6"),
        ("Date", "https://datatracker.ietf.org/doc/html/rfc3339#section-5.6"),
        ("Decimal", "https://pressroom.invalid/docs/api#decimal"),
    ]:
        assert _scalar(name).specified_by_url == url, name
        assert f'scalar {name} @specifiedBy(url: "{url}")' in sdl, name
        assert "string" in (_scalar(name).description or ""), name
    api = (ROOT / "docs" / "api.md").read_text()
    assert "\n### Decimal\n" in api, "the Decimal URL's anchor is docs/api.md's Decimal section"


def test_scalars_travel_as_their_descriptions_say() -> None:
    for minor, currency, sent in [
        (198700, "EUR", "1987.00"),
        (-1500, "EUR", "-15.00"),
        (0, "EUR", "0.00"),
        (1987, "JPY", "1987"),
    ]:
        amount = Money.of_domain(DomainMoney(minor, currency)).amount
        wire = _scalar("Decimal").serialize(amount)
        assert wire == sent and DECIMAL_FORM.fullmatch(wire), (minor, currency, wire)
    instant = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)
    assert RFC_3339_DATE_TIME.fullmatch(_scalar("DateTime").serialize(instant))
    assert _scalar("Date").serialize(date(2026, 3, 14)) == "2026-03-14"


def _fields(built: GraphQLObjectType) -> list[tuple[str, str | None, str | None]]:
    """(type.field, its description, whom its declared rules admit)."""
    found = []
    for type_ in built.type_map.values():  # type: ignore[attr-defined]
        if isinstance(type_, GraphQLObjectType) and not type_.name.startswith("__"):
            for name, field in type_.fields.items():
                definition = field.extensions.get(GraphQLCoreConverter.DEFINITION_BACKREF)
                found.append((f"{type_.name}.{name}", field.description, who_may(definition)))
    return found


@pytest.mark.parametrize("built", [schema, tuned_schema()], ids=["strawberry", "engine room"])
def test_restricted_fields_end_with_whom_their_rules_admit(built: object) -> None:
    graphql_schema = built._schema  # type: ignore[attr-defined]
    fields = _fields(graphql_schema)
    restricted = [(f, d, w) for f, d, w in fields if w is not None]
    assert len(restricted) > 100
    for field, description, who in restricted:
        assert description is not None and description.endswith(who), field
        # Said once, however many schemas are built from the same fields.
        assert description.count(who) == 1, field
        # The words end a description of what the field is; they are not all of it.
        assert len(description) > len(who) + 1, field
    roots = {
        t.name
        for t in (
            graphql_schema.query_type,
            graphql_schema.mutation_type,
            graphql_schema.subscription_type,
        )
    }
    for field, description, who in fields:
        if field.split(".")[0] in roots and who is None:
            assert description is not None and description.endswith(ANYONE), field
            assert len(description) > len(ANYONE) + 1, field


def test_the_words_are_the_rules_words() -> None:
    by_field = {f: (d, w) for f, d, w in _fields(schema._schema)}
    assert by_field["Mutation.createCustomer"][1] == "Members of Sales, and admins."
    assert by_field["Customer.balance"][1] == "Members of Accounts, and admins."
    assert by_field["Mutation.createApiToken"][1] is not None
    assert by_field["Mutation.login"][0].endswith(ANYONE)  # type: ignore[union-attr]


def test_the_description_rules_pass_over_the_schema() -> None:
    done = subprocess.run([LINT], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linter_sees_a_missing_description(tmp_path: Path) -> None:
    undocumented = tmp_path / "schema.graphql"
    undocumented.write_text(
        '"""A thing."""\ntype Query {\n  """Its name."""\n  name: String\n  size: Int\n}\n'
    )
    done = subprocess.run([LINT, undocumented], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "Query.size" in done.stdout, done.stdout + done.stderr
