"""The shop's app (src/web) is a client of schema.graphql like any other: every GraphQL
operation it sends is named, lives in one place, validates against the schema and is in
the trusted documents' manifest; and it reaches the server only through /graphql (HTTP
and the websocket)."""

import json
import re
from pathlib import Path

import pytest
from graphql import OperationDefinitionNode, build_schema, parse, validate

from api import manifest
from api.manifest import OPERATION, operations, sources
from api.manifest import WEB_DIR as WEB

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = build_schema((ROOT / "schema.graphql").read_text())

# What an operation looks like when it is not tagged: `query Name(` / `mutation Name {`.
UNTAGGED = re.compile(r"\b(?:query|mutation|subscription)\s+[A-Za-z_]\w*\s*[({]")


# A module that asks the server something (these calls) holds its own operations.
ASKS = re.compile(r"\b(request|useQuery|usePages|useList|transport\.request)\(")


def test_the_app_has_operations_in_every_screen() -> None:
    where = {path for path, _ in operations()}
    screens = {
        str(p.relative_to(WEB))
        for p in (WEB / "screens").rglob("*.js")
        if ASKS.search(p.read_text()) and "export function use" not in p.read_text()
    }
    assert len(screens) >= 9
    assert screens <= where, f"screens without operations: {screens - where}"
    assert "display/display.js" in where
    assert len(operations()) >= 30


@pytest.mark.parametrize(
    "path,text", operations(), ids=[f"{p}:{i}" for i, (p, _) in enumerate(operations())]
)
def test_each_operation_is_named_and_valid_against_the_schema(path: str, text: str) -> None:
    assert "${" not in text, f"{path}: operations are plain text, with variables for values"
    document = parse(text)
    definitions = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    assert len(definitions) == 1, f"{path}: one operation per gql`...`"
    assert definitions[0].name is not None, f"{path}: every operation is named:\n{text}"
    errors = validate(SCHEMA, document)
    assert errors == [], f"{path}: {definitions[0].name.value}: {[e.message for e in errors]}"


def test_operation_names_are_unique() -> None:
    names = [
        d.name.value
        for _, text in operations()
        for d in parse(text).definitions
        if isinstance(d, OperationDefinitionNode) and d.name is not None
    ]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


# --- The trusted documents -----------------------------------------------------------------


def test_the_trusted_documents_are_the_operations_of_today() -> None:
    texts = [text for _, text in operations()]
    stale = "is stale: run scripts/export-documents"
    assert manifest.MANIFEST_FILE.read_text() == manifest.manifest_text(texts), (
        f"documents.json {stale}"
    )
    assert manifest.IDS_FILE.read_text() == manifest.ids_text(texts), f"lib/documents.js {stale}"
    assert sorted(manifest.load().values()) == sorted(texts)


def test_an_edited_operation_makes_the_manifest_stale(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    screen = tmp_path / "screen.js"
    screen.write_text("export const ME = gql`query Me { me { id } }`;\n")
    manifest.export(tmp_path)
    written = manifest.load(tmp_path / "documents.json")
    assert written == {manifest.document_id("query Me { me { id } }"): "query Me { me { id } }"}
    screen.write_text("export const ME = gql`query Me { me { id name } }`;\n")
    texts = [text for _, text in operations(tmp_path)]
    assert manifest.manifest_text(texts) != (tmp_path / "documents.json").read_text()
    assert manifest.ids_text(texts) != (tmp_path / "lib" / "documents.js").read_text()


def untagged_operations(source: str) -> list[str]:
    return UNTAGGED.findall(OPERATION.sub("", source))


def test_no_operation_hides_outside_gql() -> None:
    for path in sources():
        assert untagged_operations(path.read_text()) == [], path.relative_to(WEB)


def test_the_extractor_sees_an_untagged_operation() -> None:
    source = 'const Q = "query Sneaky($id: ID!) { node(id: $id) { id } }";\n'
    assert untagged_operations(source) == ["query Sneaky("]
    assert untagged_operations("const Q = gql`query Fine { me { id } }`;") == []


# --- Only through /graphql ---------------------------------------------------------------

TRANSPORT = "lib/graphql.js"
# The service worker asks nothing of its own: it passes the page's requests on as they are.
WORKER = "sw.js"
# Ways a page reaches a server. Only the transport module may use them.
NETWORK = re.compile(
    r"\bfetch\s*\(|XMLHttpRequest|new\s+WebSocket\b|\bEventSource\b|sendBeacon|"
    r"\bimport\s*\(|\bcreateClient\s*\(|\.src\s*=|location\s*\.\s*(?:href|assign|replace)\s*="
)
ABSOLUTE = re.compile(r"\b(?:https?|wss?)://", re.I)
# Every string that starts with "/" is one of these: app routes (links), the API, or the
# wall display's address (a link an admin hands out; the display itself uses /graphql).
LITERAL = re.compile(r"""["'`](/[^"'`\s]*)""")
APP_ROUTES = (
    "/queues",
    "/orders",
    "/customers",
    "/accounts",
    "/admin",
    "/signin",
    "/tickets",
    "/insights",
)


def network_uses(source: str) -> list[str]:
    return NETWORK.findall(source)


def bad_paths(relative: str, source: str) -> list[str]:
    bad = []
    for literal in LITERAL.findall(source):
        if literal == "/" or literal.startswith(APP_ROUTES):
            continue
        if literal in ("/graphql", "/export/", "/proofs/") and relative == TRANSPORT:
            continue
        if literal.startswith("/display/") and relative == "screens/admin/tokens.js":
            continue
        if (literal, relative) == ("/sw.js", "main.js"):
            continue
        bad.append(literal)
    return bad


def test_only_the_transport_module_talks_to_the_network() -> None:
    for path in sources():
        relative = str(path.relative_to(WEB))
        if path.suffix != ".js" or relative in (TRANSPORT, WORKER):
            continue
        assert network_uses(path.read_text()) == [], relative
    assert re.findall(r"fetch\((.*?)\)", (WEB / WORKER).read_text()) == ["event.request"]
    transport = (WEB / TRANSPORT).read_text()
    assert 'export const ENDPOINT = "/graphql";' in transport
    assert 'export const EXPORTS = "/export/";' in transport
    assert 'export const PROOFS = "/proofs/";' in transport
    assert 'export const TICKETS = "/tickets.pdf";' in transport
    # fetch and the websocket go to ENDPOINT (uploads too), and downloads to EXPORTS, to
    # TICKETS or to a proof's path under PROOFS; nowhere else.
    assert re.findall(r"fetch\(([^,]+),", transport) == ["ENDPOINT", "url", "ENDPOINT"]
    assert re.findall(r"fetchFile\((.+)\);", transport) == [
        "exportUrl(file, params)",
        'TICKETS + "?" + new URLSearchParams({ ids: ids.join(",") })',
        "pathname",
    ]
    assert "if (!pathname.startsWith(PROOFS)) return Promise.reject(" in transport
    assert re.findall(r"return (EXPORTS .*);", transport) == [
        'EXPORTS + encodeURIComponent(file) + "?" + new URLSearchParams(params)'
    ]
    assert re.findall(r"new URL\(([^,]+),", transport) == ["ENDPOINT", "url"]


def test_no_other_server_address_in_the_app() -> None:
    for path in sources():
        relative = str(path.relative_to(WEB))
        source = path.read_text()
        assert ABSOLUTE.findall(source) == [], f"{relative}: absolute URL"
        if path.suffix == ".js" and relative != WORKER:
            assert bad_paths(relative, source) == [], relative
    # The worker names the server's own pages only to leave them to the server.
    worker = (WEB / WORKER).read_text()
    left = re.search(r"const NOT_THE_APP = (\[.*?\]);", worker)
    assert left is not None and set(bad_paths(WORKER, worker)) <= set(json.loads(left.group(1)))


def test_pages_load_only_the_apps_own_files() -> None:
    for path in sources():
        if path.suffix != ".html":
            continue
        for url in re.findall(r'(?:src|href)="([^"]*)"', path.read_text()):
            assert url.startswith("/app/") or url in {"data:,"}, f"{path.name}: {url}"


def test_the_network_checker_sees_violations() -> None:
    source = (
        'fetch("/metrics"); const s = new WebSocket("ws://x"); import("./x.js");\n'
        'const url = "/healthz"; window.location.href = "/graphql";\n'
    )
    assert len(network_uses(source)) == 4
    assert bad_paths("screens/queues.js", source) == ["/metrics", "/healthz", "/graphql"]
    assert ABSOLUTE.findall(source) == ["ws://"]
