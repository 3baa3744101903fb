"""The ledger, both histories and the event log refuse UPDATE, DELETE and TRUNCATE.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 20:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The server's role may only read and append to these (db.roles grants it no more); the
# triggers hold against every role, the owner's too, short of dropping or disabling them.
# The ledger already refuses UPDATE and DELETE row by row (0002): it gains TRUNCATE only.
HISTORIES = ("task_transitions", "work_order_transitions", "events")
APPEND_ONLY = ("customer_ledger_entries", *HISTORIES)


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION refuse_history_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
                USING ERRCODE = 'restrict_violation';
        END
        $$
        """
    )
    for table in HISTORIES:
        # Per statement: an UPDATE or DELETE is refused even when it matches no row.
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION refuse_history_change()"
        )
    for table in APPEND_ONLY:
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION refuse_history_change()"
        )


def downgrade() -> None:
    for table in APPEND_ONLY:
        op.execute(f"DROP TRIGGER {table}_no_truncate ON {table}")
    for table in HISTORIES:
        op.execute(f"DROP TRIGGER {table}_append_only ON {table}")
    op.execute("DROP FUNCTION refuse_history_change()")
