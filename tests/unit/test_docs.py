"""The README's copy of the transition table is rendered from the domain's table."""

from pathlib import Path

from domain.docs import transition_table

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_shows_the_transition_table_of_the_code() -> None:
    assert transition_table() in README.read_text()


def test_readme_opens_with_the_two_commands() -> None:
    lines = [line for line in README.read_text().splitlines() if line.startswith("./")]
    assert lines[:2] == [line for line in lines[:2] if line.split()[0] == "./dev"]
    assert [line.split("#")[0].strip() for line in lines[:2]] == [
        "./dev serve --demo",
        "./dev test",
    ]
