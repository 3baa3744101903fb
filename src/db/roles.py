"""The database's two roles: the owner, which migrates and owns the schema, and the
server's, which reads and writes rows but may only read and append to the ledger, both
histories and the event log.

A bug or an injected statement in the server then cannot rewrite what happened: it has
no UPDATE, DELETE or TRUNCATE on those tables, and owns none, so it cannot disable their
triggers (migration 0007) either. It prunes events past the retention only through
prune_events(), which runs as the owner and keeps at least the retention the owner
recorded (migrations 0015 and 0017). The
owner grants the server's role its rights each time
it migrates (`grant_server_role`, in the migration's own transaction), so a table a later
migration adds is granted with it.
"""

import base64
import hashlib
import hmac
import logging
import secrets
from collections.abc import Mapping
from datetime import timedelta

from sqlalchemy.engine import Connection, make_url

from db import retention as retention_floor
from db.engine import create_engine
from db.queries import Q

log = logging.getLogger(__name__)

# Several processes may start at once; one at a time migrates or hands the schema over
# (the `migration_lock` statement, to the end of its transaction), the others wait.
MIGRATION_LOCK = 0x7072657373  # "press"

OWNER_ROLE = "pressroom_owner"
SERVER_ROLE = "pressroom_server"

APPEND_ONLY = frozenset(
    {"customer_ledger_entries", "task_transitions", "work_order_transitions", "events"}
)
# Written by the owner only: Alembic's version table by migrations, where the event log
# starts by prune_events() (migration 0015), the one way the server's role prunes events,
# and the retention it prunes at, at the shortest (migration 0017).
READ_ONLY = frozenset({"alembic_version", "events_pruned", "event_retention"})
_READ_WRITE = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE"})
_READ_APPEND = frozenset({"SELECT", "INSERT"})
_READ = frozenset({"SELECT"})
# nextval() on the work order numbers; identity columns need no right on their sequences.
_SEQUENCE = frozenset({"USAGE"})


def server_privileges(table: str, kind: str) -> frozenset[str]:
    """What the server's role may do to a relation of the schema (`kind` as pg_class's
    relkind)."""
    if kind == "S":
        return _SEQUENCE
    if kind in ("v", "m") or table in READ_ONLY:
        return _READ
    return _READ_APPEND if table in APPEND_ONLY else _READ_WRITE


def grant_server_role(connection: Connection, role: str) -> None:
    """Give `role` exactly its rights on every table, view and sequence of the schema,
    as the owner, in the caller's transaction. Only what differs is granted or revoked:
    a GRANT rewrites the catalog row even when it changes nothing."""
    standing = connection.execute(Q["role_standing"], {"role": role}).one_or_none()
    if standing is None:
        raise RuntimeError(f'there is no role "{role}" to grant the server\'s rights to')
    if standing.is_current:
        return
    if standing.superuser or standing.owner_rights:
        log.warning(
            "the server's role %s is a superuser or holds the owner's rights: "
            "its rights cannot be narrowed (see docs/operations.md)",
            role,
        )
        return
    for relation in connection.execute(Q["role_privileges"], {"role": role}):
        wanted = server_privileges(relation.name, relation.kind)
        held = frozenset(relation.privileges)
        target = f"{'SEQUENCE' if relation.kind == 'S' else 'TABLE'} {ident(relation.name)}"
        if wanted - held:
            connection.exec_driver_sql(
                f"GRANT {', '.join(sorted(wanted - held))} ON {target} TO {ident(role)}"
            )
        if held - wanted:
            connection.exec_driver_sql(
                f"REVOKE {', '.join(sorted(held - wanted))} ON {target} FROM {ident(role)}"
            )


def settle(connection: Connection, *, grant_to: str | None, retention: timedelta | None) -> None:
    """What the owner does at the end of every migration, in its transaction under
    MIGRATION_LOCK (concurrent GRANTs on one table fail, "tuple concurrently updated"):
    `grant_to` given the server's rights, `retention` recorded as the shortest the
    server's role may prune at (db.retention)."""
    if grant_to:
        grant_server_role(connection, grant_to)
    if retention is not None:
        retention_floor.record(connection, retention)


async def hand_over(url: str, owner: str) -> None:
    """Make `owner` the owner of the database of `url` and of everything in its public
    schema (run as a superuser). A database made by an earlier version, whose tables the
    superuser owns, is handed over on its next start; then there is nothing to do."""
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with engine.begin() as conn:
            # Concurrent boots would otherwise alter the same catalog rows at once.
            await conn.execute(Q["migration_lock"], {"key": MIGRATION_LOCK})
            current = await conn.scalar(Q["database_owner"])
            if current != owner:
                database = make_url(url).database or ""
                await conn.exec_driver_sql(
                    f"ALTER DATABASE {ident(database)} OWNER TO {ident(owner)}"
                )
            things = (await conn.execute(Q["objects_not_owned"], {"owner": owner})).all()
            for kind, name in things:
                await conn.exec_driver_sql(f"ALTER {kind} {name} OWNER TO {ident(owner)}")
    finally:
        await engine.dispose()


async def current_role(url: str, *, pgbouncer: bool = False) -> str:
    """The role a URL signs in as (a URL may leave it to the environment)."""
    engine = create_engine(url, pool_size=1, max_overflow=0, pgbouncer=pgbouncer)
    try:
        async with engine.connect() as conn:
            return str(await conn.scalar(Q["current_role"]))
    finally:
        await engine.dispose()


def login_roles_sql(passwords: Mapping[str, str], *, reset: bool) -> str:
    """SQL for a superuser: every role of `passwords` a login role with that password,
    made if missing; with `reset`, every password set again. Only SCRAM verifiers reach
    the server, never a password."""
    steps = []
    for role, password in passwords.items():
        verifier = literal(scram_verifier(password))
        steps.append(
            f"IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {literal(role)}) THEN "
            f"CREATE ROLE {ident(role)} LOGIN PASSWORD {verifier}; END IF;"
        )
        if reset:
            steps.append(f"ALTER ROLE {ident(role)} LOGIN PASSWORD {verifier};")
    body = "\n".join(steps)
    return f"DO $roles$ BEGIN\n{body}\nEND $roles$;\n"


def database_sql(database: str, owner: str, server: str) -> str:
    """SQL for a superuser, connected to `database`: `owner` owns it and creates in its
    schema, `server` may connect and use the schema, and nobody else may create there."""
    return (
        f"ALTER DATABASE {ident(database)} OWNER TO {ident(owner)};\n"
        f"GRANT CONNECT ON DATABASE {ident(database)} TO {ident(server)};\n"
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC;\n"
        f"GRANT USAGE, CREATE ON SCHEMA public TO {ident(owner)};\n"
        f"GRANT USAGE ON SCHEMA public TO {ident(server)};\n"
    )


def dba_script(database: str, owner: str, server: str) -> str:
    """What `pressroom db-roles` prints: new passwords for both roles (in the URLs to
    configure), and the SQL a DBA runs once in the database to make the roles."""
    passwords = {owner: secrets.token_urlsafe(24), server: secrets.token_urlsafe(24)}
    return (
        f"-- Pressroom's two database roles. Run this once as a superuser, connected to the\n"
        f"-- existing database {database} (psql -d {database} -f this-file.sql).\n"
        "-- Then, with HOST your server:\n"
        f"--   DATABASE_URL=postgresql://{server}:{passwords[server]}@HOST/{database}\n"
        f"--   PRESSROOM_MIGRATION_DATABASE_URL="
        f"postgresql://{owner}:{passwords[owner]}@HOST/{database}\n"
        "-- Migrating as the owner grants the server's role its rights on every table.\n"
        + login_roles_sql(passwords, reset=True)
        + database_sql(database, owner, server)
    )


def scram_verifier(password: str, iterations: int = 4096) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802, 7677), so
    that a role's password is set without sending it."""
    salt = secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    stored_key = hashlib.sha256(hmac.digest(salted, b"Client Key", "sha256")).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha256")
    return f"SCRAM-SHA-256${iterations}:{_b64(salt)}${_b64(stored_key)}:{_b64(server_key)}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
