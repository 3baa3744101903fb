"""One row type per table (db/rows.py): each lists its table's columns in db/tables, in
order, then the extras it declares; the GraphQL layer is made of these rows only."""

import ast
import dataclasses
from pathlib import Path

import pytest

from db import rows
from db.table_row import TableRow
from db.tables import ledger, orders, outbox, people, proofs

SRC = Path(__file__).resolve().parents[2] / "src"
ROW_TYPES = sorted(
    (
        kind
        for kind in vars(rows).values()
        if isinstance(kind, type) and issubclass(kind, TableRow) and kind is not TableRow
    ),
    key=lambda kind: kind.__name__,
)


def test_every_table_the_api_reads_has_a_row_type() -> None:
    covered = {kind.table.name for kind in ROW_TYPES}
    api_tables = {
        people.departments,
        people.users,
        people.user_departments,
        people.tokens,
        orders.customers,
        orders.work_orders,
        orders.department_tasks,
        orders.task_transitions,
        orders.work_order_transitions,
        ledger.customer_ledger_entries,
        outbox.webhooks,
        outbox.webhook_deliveries,
        ledger.payment_inboxes,
        ledger.payment_inbox_requests,
        proofs.proofs,
        proofs.customer_links,
        outbox.mail_messages,
    }
    assert covered == {t.name for t in api_tables}
    assert len(ROW_TYPES) == len(covered), "one row type per table"


@pytest.mark.parametrize("kind", ROW_TYPES, ids=lambda kind: kind.__name__)
def test_a_row_type_is_its_tables_columns_then_its_extras(kind: type[TableRow]) -> None:
    names = [f.name for f in dataclasses.fields(kind)]  # type: ignore[arg-type]
    assert names == [c.name for c in kind.table.columns] + list(kind.extra)


def test_a_row_is_made_alike_from_a_mapping_and_from_json() -> None:
    stamp = "2026-01-02T03:04:05+05:45"
    made = rows.DepartmentRow.from_json(
        [{"id": 1, "code": "p", "name": "P", "kind": "PRODUCTION", "gates_delivery": True,
          "follows": [2, 3], "created_at": stamp, "needs_approved_proof": False}]
    )  # fmt: skip
    [row] = made
    assert row.created_at.tzinfo is not None and row.created_at.utcoffset().total_seconds() == 0
    assert row.follows == [2, 3]
    same = rows.DepartmentRow.of({**dataclasses.asdict(row)})
    assert dataclasses.asdict(same) == dataclasses.asdict(row)
    task = {c.name: None for c in orders.department_tasks.columns}
    picked = rows.TaskRow.pick({**task, "event_payload": {}, "lane": 0})
    assert picked.department_kind is None and picked.id is None
    # A double comes out of JSON as an int when it is whole: read back as a float.
    [read] = rows.TaskRow.from_json([{**task, "waited_seconds": 3600, "worked_seconds": 1050.5}])
    assert (read.waited_seconds, read.worked_seconds) == (3600.0, 1050.5)
    assert isinstance(read.waited_seconds, float)


def test_the_graph_layer_takes_no_sqlalchemy_rows() -> None:
    found = []
    for path in sorted((SRC / "graph").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
                found += [
                    f"{path.relative_to(SRC)}: {a.name}" for a in node.names if a.name == "Row"
                ]
    assert found == []
