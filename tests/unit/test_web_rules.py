"""The screens decide no access and no move of their own: the server says what the viewer
may do (`me.access`, `allowedActions`), what is in a queue and in what order (`inQueue`,
`queueLane`, `queueRank`), what a department kind allows (`chosenPerOrder`,
`departmentKinds`), whether a token has expired (`expired`) and what went wrong (an
error's code), and the app shows that. Adding a task state, a department kind or changing
who may do what is then no edit of src/web.

A line that compares a status, combines access rules, decides an offer on one object by an
access rule, or compares a department's code or kind is one of those rules copied, unless
ALLOWED lists it as presentation only (which words, label or class to show), with the
reason."""

import re
from pathlib import Path

import pytest

from domain.enums import DepartmentKind, TaskAction, TaskStatus, WorkOrderStatus

WEB = Path(__file__).resolve().parents[2] / "src" / "web"
STATUSES = "|".join({*TaskStatus, *WorkOrderStatus})
ACTIONS = "|".join(TaskAction)
KINDS = "|".join(DepartmentKind)

# What the screens must not spell anywhere, and why.
FORBIDDEN = {
    r'kinds\.has\("(SALES|ACCOUNTS)"\)': "a role rule: ask me.access",
    rf'\bstatus:\s*"({STATUSES})"': "a task's next state guessed by the screen",
    r'\b(KINDS|kinds)\s*=\s*\[\s*"': "department kinds listed by the screen: departmentKinds",
    r"(availableAt|startedAt)\)?\s*-\s*Date\.parse": "the queue's order: sort by queueRank",
    r'byTime\("(availableAt|startedAt)"\)': "the queue's order: sort by queueRank",
}
# What a line must not do unless ALLOWED names it, and why.
COMPARES = {
    rf'(\.status\s*[!=]==\s*["\']|[!=]==\s*"({STATUSES})")': "a status compared: the server's "
    "allowedActions, inQueue",
    r"\broles\.\w+\s*(\|\||&&\s*!)\s*roles\.": "access rules combined by the screen: the "
    "server's allowedActions",
    r"\broles\.\w+\s*&&\s*(order|task|customer|token)\.": "an offer on one object decided by "
    "an access rule and its state: its allowedActions",
    rf'\.kind\s*[!=]==\s*"({KINDS})"': "a department kind's rule: ask the server",
    r'\b(d|department|dept)\.code\s*[!=]==\s*["\']': "a department's code deciding something",
    r"expiresAt\b.*\bDate\.now\(\)": "an expiry by the browser's clock: the server's `expired`",
    r"\.test\((error\.)?message\)": "a server message matched as text: match its code",
}

# Presentation only: (file under src/web, text the line contains, why it offers nothing).
ALLOWED = [
    (
        "screens/workorder.js",
        'const cancelled = order.status === "CANCELLED";',
        "the gate panel's words and class and the tasks' Cancelled badge; what is offered "
        "comes from allowedActions, whether a task is queued from inQueue",
    ),
    (
        "screens/accounts.js",
        'node.status !== "ACTIVE"',
        "an order's status in words beside its number in a picker",
    ),
    (
        "lib/format.js",
        'if (!order.dueAt || order.status === "CANCELLED") return "";',
        "which words a due date reads (dueText): a cancelled order's, none",
    ),
    (
        "lib/format.js",
        'if (order.status === "COMPLETED") {',
        "which words a due date reads (dueText): a completed order's, how it ended, by the "
        "server's completedAt",
    ),
    (
        "main.js",
        "if (roles.accounts && !roles.sales && !roles.admin)",
        "which page a person lands on; every page is offered in the navigation by its own rule",
    ),
]

# A task action by name only where the server offered it.
ACTION = re.compile(rf'"({ACTIONS})"')
OFFERED = re.compile(rf'allowedActions\.includes\("({ACTIONS})"\)')


def allowed(path: str, line: str) -> bool:
    return any(path == where and text in line for where, text, _ in ALLOWED)


def violations(source: str, path: str = "") -> list[str]:
    found = [why for pattern, why in FORBIDDEN.items() if re.search(pattern, source)]
    for line in source.splitlines():
        if len(ACTION.findall(line)) > len(OFFERED.findall(line)):
            found.append("a task action not taken from allowedActions")
        for pattern, why in COMPARES.items():
            if re.search(pattern, line) and not allowed(path, line):
                found.append(f"{why}: {line.strip()}")
    return found


def sources() -> list[Path]:
    return sorted(p for p in WEB.rglob("*.js") if "vendor" not in p.parts)


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(WEB)))
def test_the_screens_spell_no_rule_of_the_server(path: Path) -> None:
    assert violations(path.read_text(), str(path.relative_to(WEB))) == []


def test_each_allowed_line_is_still_there() -> None:
    """An allowance outlives no line: each names one that exists, in its file."""
    for where, text, _ in ALLOWED:
        assert (WEB / where).read_text().count(text) == 1, (where, text)


@pytest.mark.parametrize(
    "sample",
    [
        'sales: admin || kinds.has("SALES"),',
        'if (d.kind === "ACCOUNTS") show();',
        'dispatch({ task: { ...task, status: "COMPLETED" } });',
        'task.status === "STARTED" ? "release" : null,',
        'if (task.status === "PENDING") return Boolean(task.availableAt);',
        'const cancelled = order.status === "CANCELLED";',
        'if (cancelled && status !== "COMPLETED") return "Not queued";',
        "${roles.sales || roles.admin ? editButton : null}",
        "${roles.accounts && order.quote ? chargeButton : null}",
        'button(task, "REOPEN")',
        'const production = departments.filter((d) => d.kind === "PRODUCTION");',
        'if (task.department.code === "print") offerReprint();',
        'const KINDS = ["PRODUCTION", "DELIVERY", "SALES", "ACCOUNTS"];',
        ".sort((a, b) => Date.parse(a.availableAt) - Date.parse(b.availableAt));",
        "if (t.expiresAt && Date.parse(t.expiresAt) < Date.now()) return 'Expired';",
        'if (kind === "bad-request" && /unknown department/i.test(message)) {',
    ],
)
def test_the_check_sees_each_kind_of_rule(sample: str) -> None:
    assert violations(sample)


def test_what_the_screens_may_say() -> None:
    allowed = [
        '${task.allowedActions.includes("START") ? button : null}',
        'sales: access.has("SALES"),',
        '${roles.sales ? html`<${Link} href="/insights">Insights<//>` : null}',
        'if (error.code === "NOT_FOUND") return "unknown";',
        'if (task.priority === "RUSH") li.className += " rush";',
    ]
    assert [violations(line) for line in allowed] == [[]] * len(allowed)
