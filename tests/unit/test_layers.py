"""The layer arrows of the README's Layout section, enforced on the import statements themselves."""

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
OURS = {"domain", "db", "api", "graph", "routes", "workers", "pressroom"}
ALLOWED = {
    "domain": {"domain"},
    "db": {"db", "domain"},
    # What every door shares: services, who is asking, the access rules, errors, ids.
    "api": {"api", "db", "domain"},
    # The GraphQL schema; a webhook's URL is checked by the relay's own check.
    "graph": {"graph", "api", "workers", "db", "domain"},
    # The HTTP doors beside GraphQL.
    "routes": {"routes", "api", "db", "domain"},
    # What runs in the background.
    "workers": {"workers", "db", "domain"},
    "pressroom": {"pressroom", "api", "graph", "routes", "workers", "db", "domain"},
}
FRAMEWORKS = {"strawberry", "starlette", "sqlalchemy", "asyncpg", "uvicorn", "alembic", "graphql"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    files = sorted((SRC / layer).rglob("*.py"))
    assert files
    for path in files:
        ours = imported_roots(path) & OURS
        assert ours <= ALLOWED[layer], f"{path.relative_to(SRC)} imports {ours - ALLOWED[layer]}"


def test_domain_imports_no_framework_or_io() -> None:
    for path in sorted((SRC / "domain").rglob("*.py")):
        bad = imported_roots(path) & (FRAMEWORKS | {"os", "socket", "asyncio", "argon2"})
        assert not bad, f"{path.relative_to(SRC)} imports {bad}"


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from graph.schema import schema\nimport sqlalchemy as sa\n")
    assert imported_roots(bad) == {"graph", "sqlalchemy"}


# Only src/db talks SQL: no statement text, no engine or connection handling elsewhere.
DATABASE_CALLS = {
    "execute",
    "scalar",
    "connect",
    "begin",
    "execution_options",
    "create_async_engine",
}


def _sockets(tree: ast.AST) -> set[str]:
    """Names bound to `socket.socket(...)`: their connect() is a socket's, not a database's
    (the cluster talks to HAProxy's admin socket)."""
    names = set()
    for node in ast.walk(tree):
        pairs: list[tuple[ast.expr | None, ast.expr]] = []
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            pairs.append((node.targets[0], node.value))
        elif isinstance(node, ast.withitem):
            pairs.append((node.optional_vars, node.context_expr))
        for target, value in pairs:
            if (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Call)
                and ast.unparse(value.func) == "socket.socket"
            ):
                names.add(target.id)
    return names


def database_access(path: Path) -> list[str]:
    found = []
    tree = ast.parse(path.read_text())
    sockets = _sockets(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("sqlalchemy")
        ):
            found += [
                f"imports {a.name}" for a in node.names if a.name in {"text", "create_engine"}
            ]
        elif isinstance(node, ast.Attribute) and node.attr == "text":
            if isinstance(node.value, ast.Name) and node.value.id in {"sa", "sqlalchemy"}:
                found.append("sqlalchemy.text")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            on_socket = isinstance(func, ast.Attribute) and ast.unparse(func.value) in sockets
            if name in DATABASE_CALLS and not on_socket:
                found.append(f"calls {name}()")
    return found


@pytest.mark.parametrize("layer", ["api", "graph", "routes", "workers", "pressroom"])
def test_only_db_runs_sql_or_handles_connections(layer: str) -> None:
    for path in sorted((SRC / layer).rglob("*.py")):
        assert database_access(path) == [], f"{path.relative_to(SRC)}"


def test_the_sql_checker_sees_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from sqlalchemy import text\n"
        "import sqlalchemy as sa\n"
        "async def f(engine):\n"
        "    with socket.socket(socket.AF_UNIX) as s:\n"
        "        s.connect('/run/haproxy.sock')\n"
        "    async with engine.connect() as conn:\n"
        "        await conn.execute(sa.text('SELECT 1'))\n"
    )
    assert sorted(database_access(bad)) == [
        "calls connect()",
        "calls execute()",
        "imports text",
        "sqlalchemy.text",
    ]


# The engine room (src/graph/engine/README.md) is reached through one door: the wiring
# asks EngineRoom for what to run. Ordinary resolvers, types and extensions never import
# it (they take its shortcuts through Services.shortcuts), and it imports nothing the
# frameworks' own behaviour would not need.
ENGINE = SRC / "graph" / "engine"
ENGINE_DOORS = {SRC / "pressroom" / "app.py"}


def imports_the_engine_room(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        if any(n == "graph.engine" or n.startswith("graph.engine.") for n in names):
            return True
    return False


def test_only_the_wiring_imports_the_engine_room() -> None:
    importers = {
        path
        for layer in ("api", "graph", "routes", "workers", "pressroom")
        for path in (SRC / layer).rglob("*.py")
        if ENGINE not in path.parents and imports_the_engine_room(path)
    }
    assert importers == ENGINE_DOORS


def test_the_engine_checker_sees_an_import(tmp_path: Path) -> None:
    found = []
    for text in (
        "from graph.engine.sharing import Direct\n",
        "from graph import engine\n",
        "import graph.engine.executor\n",
        "from graph.schema import schema\n",
    ):
        bad = tmp_path / "bad.py"
        bad.write_text(text)
        found.append(imports_the_engine_room(bad))
    assert found == [True, True, True, False]


BENCH = SRC.parent / "bench"


def test_the_benchmarks_import_nothing_from_the_tests() -> None:
    for path in sorted(BENCH.rglob("*.py")):
        assert "tests" not in imported_roots(path), path.relative_to(SRC.parent)


TESTS = SRC.parent / "tests"


def imported_test_modules(path: Path) -> list[str]:
    """The test modules (tests/**/test_*.py) that `path` imports."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        found += [
            n for n in names if n.startswith("tests.") and n.split(".")[-1].startswith("test_")
        ]
    return found


def test_no_test_module_imports_another() -> None:
    """What tests share lives in tests/support (or tests/e2e/web/support.py): a test module
    that imports another runs that module's imports and fixtures again, and ties them."""
    assert {
        str(path.relative_to(TESTS)): imported_test_modules(path)
        for path in sorted(TESTS.rglob("test_*.py"))
        if imported_test_modules(path)
    } == {}


def test_the_test_import_checker_sees_one(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text("from tests.integration.test_tickets import read\nimport tests.support.shop\n")
    assert imported_test_modules(bad) == ["tests.integration.test_tickets"]


def product_writes(path: Path) -> list[str]:
    """Statements in `path`'s string constants that write a product table themselves."""
    from db import tables

    names = "|".join(sorted(tables.metadata.tables))
    write = re.compile(rf"\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+({names})\b", re.I)
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [m.group(0) for m in write.finditer(node.value)]
    return found


def test_the_benchmarks_write_product_tables_only_through_src_db() -> None:
    for path in sorted(BENCH.rglob("*.py")):
        assert product_writes(path) == [], path.relative_to(SRC.parent)


def test_the_write_checker_sees_a_write(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text('SQL = """\n  insert into work_orders (x) VALUES (1)"""\nOK = "UPDATE stats"\n')
    assert product_writes(bad) == ["insert into work_orders"]
