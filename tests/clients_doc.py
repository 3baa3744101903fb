"""The GraphQL written in docs/clients.md, as its code blocks hold it: ```graphql blocks,
gql`...` in JavaScript, Relay's graphql`...`, gql(\"\"\"...\"\"\") in Python and the
"query" of a curl body; for the tests that check them against schema.graphql."""

import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "clients.md"
SCHEMA = ROOT / "schema.graphql"

_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)
_FILE_NAME = re.compile(r"\A(?://|#) (\S+\.\w+)\n")
_TEMPLATE = re.compile(r"\b(gql|graphql)`(.*?)`", re.S)
_PYTHON = re.compile(r'\bgql\("""(.*?)"""\)', re.S)
_CURL_QUERY = re.compile(r"-d '(\{.*?\})'", re.S)


@dataclass(frozen=True)
class Block:
    """A code block of the page: its language, its text, and the file it names in its
    first line (`// pressroom.js`, `# codegen.yml`), if any."""

    language: str
    text: str
    file_name: str | None


@dataclass(frozen=True)
class Document:
    """One GraphQL document of the page; `relay` when written in Relay's graphql`...`
    (with Relay's directives), `file_name` that of the block holding it."""

    text: str
    relay: bool
    file_name: str | None


def blocks(page: str | None = None) -> list[Block]:
    found = []
    for language, text in _BLOCK.findall(DOC.read_text() if page is None else page):
        named = _FILE_NAME.match(text)
        found.append(Block(language, text, named[1] if named else None))
    return found


def documents(page: str | None = None) -> list[Document]:
    found = []
    for block in blocks(page):
        if block.language == "graphql":
            found.append(Document(block.text, False, None))
        elif block.language in {"js", "jsx", "ts", "tsx"}:
            for tag, text in _TEMPLATE.findall(block.text):
                found.append(Document(text, tag == "graphql", block.file_name))
        elif block.language == "python":
            found += [Document(text, False, None) for text in _PYTHON.findall(block.text)]
        elif block.language == "sh":
            for body in _CURL_QUERY.findall(block.text):
                found.append(Document(json.loads(body)["query"], False, None))
    return found


def named(file_name: str) -> str:
    """The text of the page's block that names `file_name` in its first line."""
    [block] = [b for b in blocks() if b.file_name == file_name]
    return block.text


def relay_config() -> str:
    """The page's relay.config.json (the JSON block naming `customScalarTypes`)."""
    [block] = [b for b in blocks() if b.language == "json" and "customScalarTypes" in b.text]
    return block.text
