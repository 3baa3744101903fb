"""Idempotent creates: work orders, customers and users made with an idempotency key keep
it (unique per table) and the fingerprint of what they were asked (domain.idempotency).
Refunds due after a cancellation: the view both WorkOrder.refundDue and
customers(refundDue) read.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("work_orders", "customers", "users")

# What a cancelled order's customer is owed back, per currency, while it is above zero:
# what was paid against the order (PAYMENT less REFUND, as WorkOrder.paid) less what was
# credited against it beyond what was charged (CREDIT less CHARGE, when positive): credits
# first cancel the order's charges, what they give beyond is money handed back as credit.
# Adjustments count in the balance only. Orders the old system closed are its history.
REFUNDS_DUE = """
CREATE VIEW refunds_due AS
SELECT w.id AS work_order_id, w.customer_id, s.currency,
       CAST(s.paid - greatest(s.credited_beyond, 0) AS bigint) AS due_minor
FROM work_orders w
CROSS JOIN LATERAL (
    SELECT e.currency,
           coalesce(-sum(e.amount_minor) FILTER (WHERE e.kind IN ('PAYMENT', 'REFUND')), 0)
               AS paid,
           coalesce(-sum(e.amount_minor) FILTER (WHERE e.kind IN ('CHARGE', 'CREDIT')), 0)
               AS credited_beyond
    FROM customer_ledger_entries e
    WHERE e.work_order_id = w.id
    GROUP BY e.currency
) s
WHERE w.status = 'CANCELLED' AND NOT w.imported_closed
  AND s.paid - greatest(s.credited_beyond, 0) > 0
"""


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("idempotency_key", sa.Text(), nullable=True))
        op.add_column(table, sa.Column("idempotency_fingerprint", sa.Text(), nullable=True))
        op.create_unique_constraint(op.f(f"uq_{table}_idempotency_key"), table, ["idempotency_key"])
        op.create_check_constraint(
            op.f(f"ck_{table}_idempotency_fingerprinted"),
            table,
            "(idempotency_key IS NULL) = (idempotency_fingerprint IS NULL)",
        )
    op.execute(REFUNDS_DUE)


def downgrade() -> None:
    op.execute("DROP VIEW refunds_due")
    for table in TABLES:
        op.drop_constraint(op.f(f"ck_{table}_idempotency_fingerprinted"), table, type_="check")
        op.drop_constraint(op.f(f"uq_{table}_idempotency_key"), table, type_="unique")
        op.drop_column(table, "idempotency_fingerprint")
        op.drop_column(table, "idempotency_key")
