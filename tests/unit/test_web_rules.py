"""The screens decide no access and no move of their own: the server says what the viewer
may do (`me.access`, `allowedActions`), what is in a queue and in what order (`inQueue`,
`queueLane`, `queueRank`) and what a department kind allows (`chosenPerOrder`,
`departmentKinds`), and the app shows that. Adding a task state, a department kind or
changing who may do what is then no edit of src/web."""

import re
from pathlib import Path

import pytest

from domain.enums import TaskAction, TaskStatus

WEB = Path(__file__).resolve().parents[2] / "src" / "web"
STATUSES = "|".join(TaskStatus)
ACTIONS = "|".join(TaskAction)

# What the screens must not spell, and why.
FORBIDDEN = {
    r'\.kind\s*[!=]==\s*"(SALES|ACCOUNTS)"': "a role rule: ask me.access",
    r'kinds\.has\("(SALES|ACCOUNTS)"\)': "a role rule: ask me.access",
    rf'\bstatus:\s*"({STATUSES})"': "a task's next state guessed by the screen",
    rf'status\s*[!=]==\s*"({STATUSES})"\s*\?': "a move chosen by a status",
    r'\.kind\s*[!=]==\s*"(PRODUCTION|DELIVERY)"': "a department kind's rule: ask the server",
    r'\b(KINDS|kinds)\s*=\s*\[\s*"': "department kinds listed by the screen: departmentKinds",
    r"(availableAt|startedAt)\)?\s*-\s*Date\.parse": "the queue's order: sort by queueRank",
    r'byTime\("(availableAt|startedAt)"\)': "the queue's order: sort by queueRank",
}
# A task action by name only where the server offered it.
ACTION = re.compile(rf'"({ACTIONS})"')
OFFERED = re.compile(rf'allowedActions\.includes\("({ACTIONS})"\)')
# A task status compared only to sort tasks into lanes, never to decide membership.
STATUS_TEST = re.compile(rf'status\s*[!=]==\s*"({STATUSES})"')
LANES = re.compile(r"\.filter\(\(t\) => t\.status ===")


def violations(source: str) -> list[str]:
    found = [why for pattern, why in FORBIDDEN.items() if re.search(pattern, source)]
    for line in source.splitlines():
        if len(ACTION.findall(line)) > len(OFFERED.findall(line)):
            found.append("a task action not taken from allowedActions")
        if STATUS_TEST.search(line) and not LANES.search(line) and "order" not in line:
            found.append(f"a task status deciding something: {line.strip()}")
    return found


def sources() -> list[Path]:
    return sorted(p for p in WEB.rglob("*.js") if "vendor" not in p.parts)


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(WEB)))
def test_the_screens_spell_no_rule_of_the_server(path: Path) -> None:
    assert violations(path.read_text()) == []


@pytest.mark.parametrize(
    "sample",
    [
        'sales: admin || kinds.has("SALES"),',
        'if (d.kind === "ACCOUNTS") show();',
        'dispatch({ task: { ...task, status: "COMPLETED" } });',
        'task.status === "STARTED" ? "release" : null,',
        'if (task.status === "PENDING") return Boolean(task.availableAt);',
        'button(task, "REOPEN")',
        'const production = departments.filter((d) => d.kind === "PRODUCTION");',
        'const KINDS = ["PRODUCTION", "DELIVERY", "SALES", "ACCOUNTS"];',
        ".sort((a, b) => Date.parse(a.availableAt) - Date.parse(b.availableAt));",
    ],
)
def test_the_check_sees_each_kind_of_rule(sample: str) -> None:
    assert violations(sample)


def test_what_the_screens_may_say() -> None:
    allowed = [
        'const done = tasks.filter((t) => t.status === "COMPLETED").length;',
        '${task.allowedActions.includes("START") ? button : null}',
        'sales: access.has("SALES"),',
    ]
    assert [violations(line) for line in allowed] == [[], [], []]
