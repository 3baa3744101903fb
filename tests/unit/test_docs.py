"""The README and docs/ stand alone, and their copies of the transition table are the
domain's own."""

from pathlib import Path

from domain.docs import transition_table

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
