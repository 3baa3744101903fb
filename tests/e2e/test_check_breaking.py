"""scripts/check-breaking, as `./dev check` runs it (graphql-inspector's diff under Node),
on schemas made from the last release's: a removed field fails it, by name, until the
changelog's Unreleased section names it and the version's major part moves; an added field
passes."""

import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from graphql import parse, print_ast
from graphql.language import ObjectTypeDefinitionNode

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
RELEASE = re.search(r"^## \[(\d+\.\d+\.\d+)\]", CHANGELOG, re.M)
assert RELEASE is not None
RELEASED_SDL = (ROOT / "docs" / f"schema-{RELEASE[1]}.graphql").read_text()
NEXT_MAJOR = f"{int(RELEASE[1].split('.')[0]) + 1}.0.0"

# The check installs its npm packages when missing: one worker, so never two `npm ci` at once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("check_breaking")]


def check(tmp_path: Path, sdl: str, *options: str) -> subprocess.CompletedProcess[str]:
    schema = tmp_path / "schema.graphql"
    schema.write_text(sdl)
    return subprocess.run(
        [ROOT / "scripts" / "check-breaking", "--schema", schema, *options],
        capture_output=True,
        text=True,
        check=False,
    )


def without_api_version(sdl: str) -> str:
    """The schema less `Query.apiVersion`, every other definition and directive kept."""
    document = parse(sdl)
    definitions = []
    for found in document.definitions:
        if isinstance(found, ObjectTypeDefinitionNode) and found.name.value == "Query":
            fields = tuple(f for f in found.fields or () if f.name.value != "apiVersion")
            assert len(fields) == len(found.fields or ()) - 1
            found = replace(found, fields=fields)
        definitions.append(found)
    return print_ast(replace(document, definitions=tuple(definitions)))


def changelog_naming(tmp_path: Path, path: str) -> str:
    changed = tmp_path / "CHANGELOG.md"
    changed.write_text(
        CHANGELOG.replace("## [Unreleased]\n", f"## [Unreleased]\n\n- Removed `{path}`.\n", 1)
    )
    return str(changed)


def test_a_removed_field_fails_by_name_until_announced_and_the_major_moves(
    tmp_path: Path,
) -> None:
    removed = without_api_version(RELEASED_SDL)

    unannounced = check(tmp_path, removed, "--version", RELEASE[1])
    assert unannounced.returncode == 1
    assert "Query.apiVersion: Field 'apiVersion' was removed" in unannounced.stderr
    assert "`Query.apiVersion` is not in CHANGELOG.md's Unreleased section" in unannounced.stderr
    assert f"a break needs {NEXT_MAJOR}" in unannounced.stderr

    named = changelog_naming(tmp_path, "Query.apiVersion")
    minor = check(tmp_path, removed, "--changelog", named, "--version", RELEASE[1])
    assert minor.returncode == 1
    assert "is not in CHANGELOG.md" not in minor.stderr
    assert f"the version is {RELEASE[1]}: a break needs {NEXT_MAJOR}" in minor.stderr

    announced = check(tmp_path, removed, "--changelog", named, "--version", NEXT_MAJOR)
    assert announced.returncode == 0, announced.stderr
    assert "Query.apiVersion" in announced.stdout


def test_an_added_field_passes(tmp_path: Path) -> None:
    added = RELEASED_SDL.replace("type Query {\n", "type Query {\n  addedLater: String\n", 1)
    assert added != RELEASED_SDL
    done = check(tmp_path, added, "--version", RELEASE[1])
    assert (done.returncode, done.stderr) == (0, "")
    assert f"nothing breaks a client of {RELEASE[1]}" in done.stdout
