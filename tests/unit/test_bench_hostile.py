"""bench.hostile's cheap parts, no server: the attackers' payloads have the shapes the
bench says they have, every request of a kind is a document of its own, and answers are
sorted and checked as the tables say."""

import io
import ipaddress
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLSyntaxError,
    OperationDefinitionNode,
    parse,
)
from rich.console import Console

from bench import attackers
from bench.attack import SIGN_IN
from bench.fleet import delivered
from bench.floor import READ_TASKS, answered
from bench.hostile_phases import Plan, rss_figures
from bench.hostile_tables import report


def text(template: str, n: int) -> str:
    return template.replace(attackers.MARK, str(n))


def fields_of(document: DocumentNode) -> list[FieldNode]:
    """The fields of the first operation's `me` selection (or its root selections)."""
    operation = document.definitions[0]
    assert isinstance(operation, OperationDefinitionNode)
    roots = [s for s in operation.selection_set.selections if isinstance(s, FieldNode)]
    if roots[0].name.value == "me" and roots[0].selection_set is not None:
        return [s for s in roots[0].selection_set.selections if isinstance(s, FieldNode)]
    return roots


@pytest.mark.parametrize("name", list(attackers.BOMBS))
def test_each_bomb_goes_just_under_the_token_cap(name: str) -> None:
    bomb = text(attackers.BOMBS[name](), 7)
    parse(bomb, max_tokens=attackers.MAX_TOKENS)
    with pytest.raises(GraphQLSyntaxError, match=r"more than \d+ tokens"):
        parse(bomb, max_tokens=attackers.MAX_TOKENS - 100)


def test_the_repeated_fields_bomb_repeats_one_field_1990_times() -> None:
    fields = fields_of(parse(text(attackers.repeated_fields(), 1)))
    assert len(fields) == 1990
    assert {f.name.value for f in fields} == {"id"} and all(f.alias is None for f in fields)


def test_the_aliases_bomb_has_660_distinct_aliases() -> None:
    fields = fields_of(parse(text(attackers.many_aliases(), 1)))
    assert len({f.alias.value for f in fields if f.alias is not None}) == 660


def test_the_directives_bomb_puts_280_directives_on_one_field() -> None:
    fields = fields_of(parse(text(attackers.many_directives(), 1)))
    assert len(fields) == 1 and len(fields[0].directives) == 280


def test_the_operations_bomb_has_390_operations_the_first_named_o0() -> None:
    document = parse(text(attackers.many_operations(), 1))
    names = [d.name.value for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    assert len(names) == 390 and names[0] == "O0"


def names_in(query: str) -> set[str]:
    document = parse(query)
    operation = document.definitions[0]
    assert isinstance(operation, OperationDefinitionNode) and operation.name is not None
    aliases = {f.alias.value for f in fields_of(document) if f.alias is not None}
    return {operation.name.value, *aliases}


@pytest.mark.parametrize(
    ("make", "size", "aliases"),
    [(attackers.churn_refused, (4_000, 6_000), 220), (attackers.churn_accepted, (0, 200), 4)],
)
def test_churn_documents_have_names_of_their_own(
    make: Any, size: tuple[int, int], aliases: int
) -> None:
    # Not only a comment: no cache of normalised documents can answer one for another.
    first, second = text(make(), 1), text(make(), 2)
    assert size[0] <= len(first) <= size[1]
    assert len(names_in(first)) == aliases + 1
    assert not names_in(first) & names_in(second)


def test_every_request_of_a_kind_differs() -> None:
    spec = {"url": "http://127.0.0.1:1/graphql", "inbox": "bank", "victim": "v@x.test"}
    made = attackers.Attackers({**spec, "sign_in": SIGN_IN})
    for template in [made.unknown, made.wrong, made.refused, made.accepted, *made.bombs.values()]:
        assert attackers.distinct(template, 1) != attackers.distinct(template, 2)
        body = orjson.loads(attackers.distinct(template, 3))
        parse(body["query"])
    # Every kind has its request.
    assert [kind for kind, _ in made.plans()] == list(attackers.KINDS)


def test_sign_ins_send_the_sign_in_screens_document() -> None:
    body = orjson.loads(attackers.distinct(attackers.login_body(SIGN_IN, "a@b.test", "x"), 1))
    assert body["operationName"] == "SignIn"
    operation = parse(body["query"]).definitions[0]
    assert isinstance(operation, OperationDefinitionNode)
    assert operation.name is not None and operation.name.value == "SignIn"
    assert body["variables"] == {"input": {"email": "a@b.test", "password": "x"}}


def test_forged_addresses_are_many_and_private() -> None:
    addresses = {attackers.forged_address(n) for n in range(10_000)}
    assert len(addresses) == 10_000
    network = ipaddress.ip_network("10.77.0.0/16")
    assert all(ipaddress.ip_address(a) in network for a in addresses)


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (429, {"errors": [{"message": "m", "extensions": {"code": "RATE_LIMITED"}}]},
         "429 RATE_LIMITED"),
        (200, {"data": {"login": {"token": None, "userErrors": [{"code": "INVALID_INPUT"}]}}},
         "200 INVALID_INPUT"),
        (200, {"data": {"__typename": "Query"}}, "200 ok"),
        (404, {"errors": [{"message": "m", "extensions": {"code": "NOT_FOUND"}}]},
         "404 NOT_FOUND"),
        (503, "Service Unavailable", "503"),
    ],
)  # fmt: skip
def test_answers_are_sorted_by_status_and_code(status: int, body: Any, expected: str) -> None:
    content = orjson.dumps(body) if isinstance(body, dict) else body.encode()
    assert attackers.outcome(status, content)[0] == expected


def move(changed: bool, errors: list[dict[str, str]]) -> dict[str, Any]:
    return {"data": {"startTask": {"changed": changed, "userErrors": errors}}}


def test_a_legitimate_answer_is_checked() -> None:
    assert answered("startTask", move(True, [])) is None
    assert answered("startTask", move(False, [])) is not None
    assert answered("startTask", move(True, [{"code": "ALREADY_TAKEN"}])) is not None
    assert answered("startTask", {"errors": [{"message": "boom"}]}) is not None
    page = {"data": {"queue": {"edges": [{}] * READ_TASKS}}}
    assert answered("queue page", page) is None
    assert answered("queue page", {"data": {"queue": {"edges": []}}}) is not None


def test_missed_events_are_counted_per_display() -> None:
    figures = delivered(expected=[5, 5, 3], received=[5, 2, 4])
    assert figures["missing"] == 3 and figures["extra"] == 1
    assert figures["subscribers_missing"] == 1 and figures["most_missed_by_one"] == 3


def test_events_repeated_or_written_before_the_window_are_told_apart() -> None:
    figures = delivered(
        expected=[5, 5, 3], received=[7, 5, 5], repeated=[1, 0, 1], before=[1, 1, 0]
    )
    assert (figures["missing"], figures["extra"]) == (1, 1)
    assert (figures["repeated"], figures["before_window"]) == (2, 2)


def test_rss_growth_is_over_the_hostile_phase() -> None:
    samples = [
        {"t": 0, "phase": "quiet", "mb": 100.0},
        {"t": 1, "phase": "quiet", "mb": 110.0},
        {"t": 2, "phase": "hostile", "mb": 120.0},
        {"t": 3, "phase": "hostile", "mb": 400.0},
        {"t": 4, "phase": "hostile", "mb": 300.0},
        {"t": 5, "phase": "settling", "mb": 290.0},
    ]
    figures = rss_figures(samples)
    assert figures["quiet_growth_mb"] == 10.0
    assert figures["hostile_growth_mb"] == 180.0
    assert figures["hostile_peak_mb"] == 400.0 and figures["settled_mb"] == 290.0


def rendered(results: dict[str, Any]) -> str:
    out = io.StringIO()
    Console(file=out, width=200).print(report(results, Plan(phase_seconds=20, json=Path())))
    return out.getvalue()


def test_the_figures_print_whatever_failed() -> None:
    # A server that misbehaves leaves holes in the results: the tables still print.
    assert "The floor under a hostile door" in rendered({})
    failed = rendered({"quiet": {"failed": "RuntimeError('gone')"}, "hostile": {"attack": {}}})
    assert "quiet: failed: RuntimeError('gone')" in failed
    halted = {"halted": "the server's RSS passed 6000 MB", "attack": {"failed": "no result"}}
    text = rendered({"hostile": halted})
    assert "stopped early: the server's RSS passed 6000 MB" in text
    assert "the attackers failed" in text


def test_a_finished_run_prints_every_kind_of_attack() -> None:
    kinds = {
        kind.name: {"sent": 3, "skipped": 0, "outcomes": {"429 RATE_LIMITED": 3}, "seconds": [0.1]}
        for kind in attackers.KINDS
    }
    text = rendered(json.loads(json.dumps({"hostile": {"attack": {"kinds": kinds}}})))
    assert all(kind.name in text for kind in attackers.KINDS)
    assert text.count("429 RATE_LIMITED: 3") == len(attackers.KINDS)
