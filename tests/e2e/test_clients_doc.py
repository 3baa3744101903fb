"""docs/clients.md's operations through the tools an integrator runs, with the page's own
configuration: relay-compiler (its relay.config.json) compiles the Relay files, GraphQL
Code Generator (its codegen.yml: typescript and typescript-operations, strictScalars and
the scalar mappings) types the other operations, and `tsc` accepts the types;
graphql-inspector's `validate` checks those others against the schema. Each also
refuses a document the schema does not allow, so the check cannot pass vacuously. The
npm packages are pinned in tests/e2e/clients and installed with `npm ci` when missing."""

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from graphql import build_schema, parse, validate

from tests.clients_doc import SCHEMA, Document, documents, named, relay_config

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("clients_doc")]

TOOLS = Path(__file__).resolve().parent / "clients"
BIN = TOOLS / "node_modules" / ".bin"
INSPECTOR = Path(__file__).resolve().parents[2] / "tools" / "schema-diff"
WITHIN = 300  # seconds a tool may take; they take seconds


def installed(folder: Path) -> Path:
    """`folder` with its pinned packages installed (`npm ci`, when missing or older than
    the lock file)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("this test runs npm packages: npm is not on PATH", pytrace=False)
    marker = folder / "node_modules" / ".package-lock.json"
    lock = folder / "package-lock.json"
    if not marker.is_file() or marker.stat().st_mtime < lock.stat().st_mtime:
        done = run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], folder)
        assert done.returncode == 0, f"npm ci in {folder}:\n{done.stdout}{done.stderr}"
    return folder


@pytest.fixture(scope="module")
def tools() -> Iterator[Path]:
    yield installed(TOOLS)


@pytest.fixture(scope="module")
def inspector() -> Iterator[Path]:
    """graphql-inspector, as scripts/check-breaking installs it (tools/schema-diff)."""
    yield installed(INSPECTOR) / "node_modules" / ".bin" / "graphql-inspector"


def run(command: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=WITHIN,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )


def project(root: Path) -> Path:
    """A client project's folder: the schema, and the tools' packages where they look."""
    root.mkdir()
    shutil.copy(SCHEMA, root / "schema.graphql")
    (root / "node_modules").symlink_to(TOOLS / "node_modules")
    (root / "src").mkdir()
    return root


def relay_compile(root: Path, written: list[Document]) -> subprocess.CompletedProcess[str]:
    """relay-compiler over the Relay documents, each in the file its block names."""
    project(root)
    (root / "relay.config.json").write_text(relay_config())
    files: dict[str, list[str]] = {}
    for document in written:
        assert document.relay and document.file_name
        files.setdefault(document.file_name, []).append(f"graphql`{document.text}`;")
    for name, tags in files.items():
        (root / "src" / name).write_text("\n".join(tags) + "\n")
    return run([BIN / "relay-compiler"], root)


def codegen(root: Path, written: list[Document], config: str) -> subprocess.CompletedProcess[str]:
    """GraphQL Code Generator with `config` over the documents, one file each."""
    project(root)
    (root / "codegen.yml").write_text(config)
    for number, document in enumerate(written):
        (root / "src" / f"document{number}.graphql").write_text(document.text)
    return run([BIN / "graphql-codegen", "--config", "codegen.yml"], root)


def plain() -> list[Document]:
    return [d for d in documents() if not d.relay]


def test_relay_compiler_compiles_the_relay_example_refetching_through_node(
    tools: Path, tmp_path: Path
) -> None:
    relay = [d for d in documents() if d.relay]
    done = relay_compile(tmp_path / "app", relay)
    assert done.returncode == 0, done.stdout + done.stderr
    refetch = (
        tmp_path / "app" / "src" / "__generated__" / "DepartmentQueuePaginationQuery.graphql.ts"
    )
    text = json.loads(refetch.read_text().split('"text": ', 1)[1].split("\n", 1)[0].rstrip(","))
    assert "node(id: $id)" in text
    assert "queue(first: $count, after: $cursor, search: $search)" in text
    # What Relay sends, with the fields it adds (cursors, pageInfo, ids), is valid too.
    assert validate(build_schema(SCHEMA.read_text()), parse(text)) == []


def test_relay_compiler_refuses_a_fragment_the_schema_does_not_allow(
    tools: Path, tmp_path: Path
) -> None:
    relay = [d for d in documents() if d.relay]
    wrong = Document(relay[0].text.replace("queueLane", "queueColour"), True, relay[0].file_name)
    done = relay_compile(tmp_path / "app", [wrong, *relay[1:]])
    assert done.returncode != 0
    assert "queueColour" in done.stdout + done.stderr


def test_code_generator_types_every_operation_with_the_scalar_mappings_and_tsc_accepts_them(
    tools: Path, tmp_path: Path
) -> None:
    root = tmp_path / "app"
    done = codegen(root, plain(), named("codegen.yml"))
    assert done.returncode == 0, done.stdout + done.stderr
    generated = root / "src" / "generated"
    operations = (generated / "operations.ts").read_text()
    # Decimal is a string, as it travels: never `any` nor `unknown`.
    assert "amount: string" in operations
    assert "export type ApolloQueueQuery = " in operations
    checked = run(
        [
            BIN / "tsc",
            "--noEmit",
            "--strict",
            "--target",
            "es2022",
            "--lib",
            "es2022,dom",
            "--module",
            "esnext",
            "--moduleResolution",
            "bundler",
            generated / "schema-types.ts",
            generated / "operations.ts",
        ],
        root,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_code_generator_refuses_an_unknown_field_and_an_unmapped_scalar(
    tools: Path, tmp_path: Path
) -> None:
    wrong = Document("query Wrong { me { shoeSize } }", False, None)
    done = codegen(tmp_path / "field", [*plain(), wrong], named("codegen.yml"))
    assert done.returncode != 0
    assert 'Cannot query field "shoeSize" on type "User"' in done.stdout + done.stderr

    unmapped = named("codegen.yml").replace("        Decimal: string\n", "")
    done = codegen(tmp_path / "scalar", plain(), unmapped)
    assert done.returncode != 0
    assert "Unknown scalar type Decimal" in done.stdout + done.stderr


def inspect(inspector: Path, root: Path, written: list[Document]) -> str:
    """graphql-inspector's `validate` over the documents, one file each: its report, or
    "" when it finds nothing wrong."""
    project(root)
    for number, document in enumerate(written):
        (root / "src" / f"document{number}.graphql").write_text(document.text)
    done = run([inspector, "validate", "src/*.graphql", "schema.graphql"], root)
    return "" if done.returncode == 0 else done.stdout + done.stderr


def test_graphql_inspector_validates_every_operation_but_relays(
    inspector: Path, tmp_path: Path
) -> None:
    """Relay's documents carry Relay's own directives: relay-compiler checks those."""
    assert inspect(inspector, tmp_path / "app", plain()) == ""
    wrong = Document("query Wrong { me { shoeSize } }", False, None)
    report = inspect(inspector, tmp_path / "wrong", [*plain(), wrong])
    assert "shoeSize" in report
