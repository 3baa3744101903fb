"""What the tables' definitions share: the metadata they are made on and the names it gives
their constraints and indexes, PostgreSQL's xid8 type, and the columns many tables repeat.
The metadata holds every table once db.tables is imported."""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql.base import ischema_names
from sqlalchemy.schema import SchemaItem

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = sa.MetaData(naming_convention=NAMING)


class XID8(sa.types.UserDefinedType[int]):
    """PostgreSQL's 64-bit transaction id (`pg_current_xact_id()`)."""

    cache_ok = True

    def get_col_spec(self, **kw: object) -> str:
        return "xid8"


# Lets reflection (and so the migrations-match-the-code test) recognise the column type.
ischema_names["xid8"] = XID8

# A JSON column's `info` key: it holds no number (texts, booleans, nulls), so it reads back
# from PostgreSQL's JSON of its row exactly as it was (db/table_row.py, TableRow.from_json).
TEXTS_ONLY = "texts_only"


def one_of(column: str, values: type) -> str:
    listed = ", ".join(f"'{v.value}'" for v in values)  # type: ignore[attr-defined]
    return f"{column} IN ({listed})"


def id_column() -> sa.Column[int]:
    return sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True)


def now_column(name: str) -> sa.Column[object]:
    # pressroom_now(): the transaction's time, or the moment the demo seed set (migration 0010).
    stamp = sa.text("pressroom_now()")
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=stamp)


def idempotency_columns() -> list[SchemaItem]:
    """What a create made with an idempotency key keeps: the key (unique in its table) and
    the fingerprint of what it was asked (domain.idempotency); both null without a key."""
    return [
        sa.Column("idempotency_key", sa.Text, nullable=True, unique=True),
        sa.Column("idempotency_fingerprint", sa.Text, nullable=True),
        sa.CheckConstraint(
            "(idempotency_key IS NULL) = (idempotency_fingerprint IS NULL)",
            name="idempotency_fingerprinted",
        ),
    ]
