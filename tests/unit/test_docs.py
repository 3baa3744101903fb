"""The README and docs/ stand alone, every link among them leads somewhere, the README is
short and the guides under 150 KiB, their copies of the transition table are the domain's
own, and every setting, error code, command, root field and legacy exclusion reason is
documented."""

import re
from pathlib import Path

from graphql import build_schema

from api.errors import TopLevelCode
from domain.docs import transition_table
from domain.errors import ErrorCode
from domain.legacy import Reason
from graph.subscriptions import CURSOR_EXPIRED, SLOW_CONSUMER
from pressroom.cli import parser
from pressroom.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def test_readme_and_the_guide_show_the_transition_table_of_the_code() -> None:
    assert transition_table() in README.read_text()
    assert transition_table() in (ROOT / "docs" / "state-machine.md").read_text()


def test_nothing_points_outside_the_repository() -> None:
    for path in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        assert "../shared" not in path.read_text(), path
        assert "DESIGN.md" not in path.read_text(), path


def test_readme_opens_with_the_two_commands() -> None:
    lines = [line for line in README.read_text().splitlines() if line.startswith("./")]
    assert lines[:2] == [line for line in lines[:2] if line.split()[0] == "./dev"]
    assert [line.split("#")[0].strip() for line in lines[:2]] == [
        "./dev serve --demo",
        "./dev test",
    ]


GUIDES = [
    README,
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "tests" / "README.md",
    ROOT / "bench" / "README.md",
    ROOT / "src" / "web" / "README.md",
]


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    headings = re.findall(r"(?m)^#+ (.*)$", re.sub(r"(?s)```.*?```", "", path.read_text()))
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def broken_links(path: Path) -> list[str]:
    text = re.sub(r"(?s)```.*?```", "", path.read_text())
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists() or (anchor and dest.suffix == ".md" and anchor not in _anchors(dest)):
            broken.append(target)
    return broken


def test_every_link_of_the_guides_leads_somewhere() -> None:
    assert {str(p.relative_to(ROOT)): broken_links(p) for p in GUIDES} == {
        str(p.relative_to(ROOT)): [] for p in GUIDES
    }


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n[here](#page) [gone](#nowhere) [none](missing.md)\n")
    assert broken_links(page) == ["#nowhere", "missing.md"]


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len(README.read_bytes()) <= 12_000


def test_the_guides_stay_under_150_kib() -> None:
    # The prose only: docs/schema-*.graphql are the releases' schemas, kept for the check of
    # breaking changes.
    assert sum(len(p.read_bytes()) for p in (ROOT / "docs").glob("*.md")) <= 150 * 1024


def test_every_setting_error_code_and_command_is_documented() -> None:
    operations = (ROOT / "docs" / "operations.md").read_text()
    api = (ROOT / "docs" / "api.md").read_text()
    settings = {f"PRESSROOM_{name.upper()}" for name in Settings.model_fields}
    codes = {*ErrorCode, *TopLevelCode, SLOW_CONSUMER, CURSOR_EXPIRED}
    listed = re.findall(r"\{([\w,-]+)\}", parser().format_help())[0]
    assert {s for s in settings if f"`{s}`" not in operations} == set()
    assert {c for c in codes if f"`{c}`" not in api} == set()
    schema = build_schema((ROOT / "schema.graphql").read_text())
    roots = [schema.query_type, schema.mutation_type, schema.subscription_type]
    fields = {f for root in roots if root for f in root.fields}
    guides = api + (ROOT / "docs" / "webhooks.md").read_text()
    assert {f for f in fields if f"`{f}" not in guides} == set()
    assert {c for c in listed.split(",") if f"`{c}" not in operations} == set()
    assert {r for r in Reason if f"`{r}`" not in operations} == set()
