"""SQLAlchemy Core tables, a module for each part of the shop. The Alembic revisions are the
schema's source; a test checks that these definitions and the migrated database agree.
`metadata` holds every table: importing this package imports each part."""

from db.tables import events, ledger, orders, outbox, people, proofs
from db.tables.columns import metadata

__all__ = ["events", "ledger", "metadata", "orders", "outbox", "people", "proofs"]
