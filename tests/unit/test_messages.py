"""Every message the API can give a person, as a table kept in tests/unit/messages_table.txt:
each `userErrors` message, each FORBIDDEN, NOT_FOUND and UNAUTHENTICATED message and each
delivery's outcome a screen shows, read from the source where it is made. A placeholder
reads `{what fills it}`. A change of words is a visible diff of that file, and every row
must read as words a person acts on: no field name, no enum name, no Python error text,
no "None" (docs/decisions.md, "Messages"). A message is written in the call that raises
it (not returned by a helper), so that this table finds it.

Regenerate after a deliberate change: .venv/bin/python -m tests.unit.test_messages
"""

import ast
import re
import sys
from enum import StrEnum
from pathlib import Path

from api import rules
from domain import enums

TABLE = Path(__file__).with_name("messages_table.txt")
SRC = Path(__file__).parents[2] / "src"

# The calls whose argument at this position is a message a person reads.
MESSAGE_ARGUMENT = {
    "DomainError": 1,
    "invalid": 0,
    "_refuse": 1,
    "NotAllowed": 0,
    "forbidden": 0,
    "not_found": 0,
    "top_level": 1,
    "Notice": 1,
}
# Top-level codes whose words address the program that built the request (a GraphQL
# argument, a persisted query's hash), not a person.
FOR_PROGRAMS = {"BAD_REQUEST", "PERSISTED_QUERY_NOT_FOUND", "TRUSTED_DOCUMENTS_ONLY"}
# Names a delivery's outcome (a webhook's or an email's) is written to, for its screen.
OUTCOMES = {"error", "why"}
# Placeholders that put a field's name, an exception's text or a Python repr into words.
_LEAKS = re.compile(
    r"\{(?:[\w.]*\bfield|[\w.]*FIELD|error|exc|exc\.msg|exc\.args[^}]*|failed)\}|![rsa]\}"
)
_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")
_SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_ENUM_NAMES = frozenset(
    member.value
    for kind in vars(enums).values()
    if isinstance(kind, type) and issubclass(kind, StrEnum) and kind is not StrEnum
    for member in kind
    if member.value.isupper() and len(member.value) > 2
) - {"API"}  # a word, as in "API tokens"


def _render(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                conversion = f"!{chr(value.conversion)}" if value.conversion > 0 else ""
                parts.append("{" + ast.unparse(value.value) + conversion + "}")
            else:
                parts.append(str(ast.literal_eval(value)))
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _render(node.left), _render(node.right)
        return None if left is None or right is None else left + right
    return None


def _made_in(tree: ast.Module) -> list[str]:
    # A message kept in a module's constant, raised by its name.
    constants = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            at = MESSAGE_ARGUMENT.get(name)
            code = node.args[0] if node.args else None
            if isinstance(code, ast.Attribute) and code.attr in FOR_PROGRAMS:
                continue
            given = [k.value for k in node.keywords if k.arg == "message"]
            if at is not None and len(node.args) > at:
                given.append(node.args[at])
            given = [constants.get(g.id, g) if isinstance(g, ast.Name) else g for g in given]
            found += [m for m in map(_render, given) if m is not None]
        elif isinstance(node, ast.Assign):
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if names & OUTCOMES or "message" in names:
                text = _render(node.value)
                if text is not None:
                    found.append(text)
    return found


def messages_table() -> str:
    rows = set()
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        if where.startswith(("workers/", "api/", "domain/", "db/", "graph/", "routes/")):
            rows |= {f"{where}: {m}" for m in _made_in(ast.parse(path.read_text()))}
    # A rule's words made from its departments' kinds: as the refused read them.
    rows |= {
        f"api/rules.py: {rule.message}"
        for rule in vars(rules).values()
        if isinstance(rule, rules.Rule)
    }
    return "\n".join(sorted(rows)) + "\n"


def faults(message: str) -> list[str]:
    """What keeps a message from being words a person acts on."""
    found = [f"leaks {leak}" for leak in _LEAKS.findall(message)]
    words = _PLACEHOLDER.sub("", message)
    if not re.match(r"[A-Z0-9\"'{]", message):
        found.append("does not begin as a sentence (a field's name?)")
    found += [f"field name {w}" for w in _CAMEL.findall(words) + _SNAKE.findall(words)]
    found += [f"enum name {w}" for w in re.findall(r"\b[A-Z_]{3,}\b", words) if w in _ENUM_NAMES]
    if re.search(r"\bNone\b|Errno|Traceback|Exception", words):
        found.append("Python text")
    return found


def test_every_message_is_in_the_table() -> None:
    assert messages_table() == TABLE.read_text(), (
        "a message changed: if that is meant, regenerate tests/unit/messages_table.txt "
        "(.venv/bin/python -m tests.unit.test_messages) and review its diff"
    )


def test_every_message_reads_as_words_a_person_acts_on() -> None:
    wrong = {
        row: found
        for row in messages_table().splitlines()
        if (found := faults(row.split(": ", 1)[1]))
    }
    assert wrong == {}


def test_the_check_finds_each_kind_of_fault() -> None:
    assert faults("dueAt must be in 2000 or later.")
    assert faults("{field} must not be empty.")
    assert faults("Only members of SALES (or admins) can do this.")
    assert faults("The host cannot be found ({error}).")
    assert faults("Not a date: {given!r}.")
    assert faults("The order has no customer_id.")
    assert faults("Could not reach it: None")
    assert faults("Choose a due date from 2000 on.") == []


if __name__ == "__main__":
    TABLE.write_text(messages_table())
    sys.exit(0)
