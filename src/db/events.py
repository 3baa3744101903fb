"""The event log as a stream: positions, cursors and ordered reads.

An event's position is `(xid, id)`: the writing transaction's id, then the row
id. Readers only read below the oldest running transaction that could write an
event (events_horizon, see queries.sql), so positions are handed out in order and
an event that commits late is never skipped. A client holds either a position (the
cursor of the last event it received) or a snapshot (the `eventCursor` of a queue
page): both resume exactly.
"""

import base64
import binascii
import functools
import json
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from db.event_versions import CURRENT, NewerEventVersion, upcast
from db.queries import Q, fetch_native
from db.rows import TaskColumns
from domain.enums import EventType, TaskStatus

PAGE = 500


@dataclass(frozen=True, order=True)
class Position:
    xid: int
    id: int


START = Position(0, 0)


@dataclass(frozen=True)
class Snapshot:
    """A PostgreSQL snapshot (`xmin:xmax:xip,...`): which transactions it saw."""

    xmin: int
    xmax: int
    running: frozenset[int]

    def saw(self, xid: int) -> bool:
        return xid < self.xmin or (xid < self.xmax and xid not in self.running)

    def text(self) -> str:
        return f"{self.xmin}:{self.xmax}:{','.join(map(str, sorted(self.running)))}"

    @classmethod
    def parse(cls, value: str) -> "Snapshot":
        xmin, xmax, running = value.split(":")
        return cls(int(xmin), int(xmax), frozenset(int(x) for x in running.split(",") if x))

    def unchanged_at(self, later: "Snapshot") -> bool:
        """Whether the database reads at `later` as it read at this snapshot: `later` sees
        no transaction this one did not, as none completed above this one's xmax and every
        one this one saw running still runs. Then it read the same at every moment between
        (snapshots only ever see more). One that rolled back counts as a change: the read
        cache's miss, never a stale answer (graph/read_cache.py)."""
        return later.xmax == self.xmax and self.running <= later.running


async def snapshot_now(conn: AsyncConnection) -> Snapshot:
    """The database's snapshot as of now, of every process's transactions."""
    rows = await fetch_native(conn, "current_snapshot")
    return Snapshot.parse(rows[0][0])


@dataclass(frozen=True)
class Resume:
    """Where a subscriber resumes: after a position, and past what a snapshot saw."""

    after: Position
    snapshot: Snapshot | None = None

    def wants(self, position: Position) -> bool:
        if position <= self.after:
            return False
        return self.snapshot is None or not self.snapshot.saw(position.xid)

    def past(self, position: Position) -> "Resume":
        """Where to resume once the event at `position` was delivered. The snapshot is
        kept only while later events could still be ones it saw."""
        snapshot = self.snapshot
        if snapshot is not None and position.xid >= snapshot.xmax:
            snapshot = None
        return Resume(position, snapshot)

    def cursor(self) -> str:
        if self.snapshot is None:
            return encode_position(self.after)
        return _b64(json.dumps(["e", self.after.xid, self.after.id, self.snapshot.text()]))


@dataclass(slots=True)
class TaskSnapshot(TaskColumns):
    """A task as an event left it: what `task_event_payload` (migration 0002) writes.

    The one decoder of that payload; tests/integration/test_event_payloads.py checks the
    two agree."""

    @classmethod
    def decode(cls, payload: dict[str, Any]) -> "TaskSnapshot":
        return cls(
            id=payload["taskId"],
            work_order_id=payload["workOrderId"],
            department_id=payload["departmentId"],
            status=TaskStatus(payload["status"]),
            picked_up_by=payload["pickedUpBy"],
            available_at=_when(payload["availableAt"]),
            started_at=_when(payload["startedAt"]),
            completed_at=_when(payload["completedAt"]),
            version=payload["version"],
        )


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


@dataclass(frozen=True)
class StoredEvent:
    """An event of the log, its payload in the current version of its kind, whatever
    version it was stored in (db/event_versions.py)."""

    position: Position
    type: EventType
    version: int
    work_order_id: int | None
    department_id: int | None
    payload: dict[str, Any]
    occurred_at: datetime

    @cached_property
    def task(self) -> TaskSnapshot | None:
        """The task the event is about, as the event left it (task and gate events)."""
        return TaskSnapshot.decode(self.payload) if "taskId" in self.payload else None

    @property
    def gate_tagged(self) -> bool:
        """A timer's event on a delivery task, for deliveryGateEvents (fire_due_timers)."""
        return self.payload.get("gate") is True

    @property
    def entry_id(self) -> int:
        """The ledger entry of a LEDGER_ENTRY_POSTED event."""
        return int(self.payload["entryId"])

    @property
    def user_id(self) -> int:
        """The user of a USER_ACCESS_CHANGED event."""
        return int(self.payload["userId"])

    @property
    def deactivates(self) -> bool:
        """A USER_ACCESS_CHANGED event that deactivated its user."""
        return self.payload.get("change") == "DEACTIVATED"

    @property
    def token_id(self) -> int:
        """The token of a TOKEN_REVOKED event."""
        return int(self.payload["tokenId"])


class BadCursor(ValueError):
    pass


class CursorExpired(Exception):
    """Events after the cursor were pruned from the log (db/retention.py): what it missed
    is gone, and a new snapshot is the way back."""


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


# Every subscriber of an event asks for its cursor: made once, not once per subscriber.
# Only events in flight are asked for; each entry is two objects that every full
# collection walks (4,096 entries were 8,192 of them).
@functools.lru_cache(maxsize=256)
def encode_position(position: Position) -> str:
    return _b64(json.dumps(["e", position.xid, position.id]))


def encode_snapshot(snapshot: Snapshot) -> str:
    return _b64(json.dumps(["s", snapshot.text()]))


# A snapshot's cursor lists the transactions running when it was taken: room for about
# a thousand of them. Anything longer is not ours, and is not parsed.
MAX_CURSOR_LENGTH = 16_384
# Past these, PostgreSQL refuses the values (xid8 is unsigned, the ids are bigint).
XID8_END = 2**64
BIGINT_END = 2**63


def decode_cursor(cursor: str) -> Resume:
    if len(cursor) > MAX_CURSOR_LENGTH:
        raise BadCursor("too long for an event cursor")
    resume = None
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if value[0] == "e" and len(value) in (3, 4):
            xid, row = value[1], value[2]
            if type(xid) is int and type(row) is int:
                seen = Snapshot.parse(value[3]) if len(value) == 4 else None
                resume = Resume(Position(xid, row), seen)
        if value[0] == "s" and len(value) == 2 and isinstance(value[1], str):
            snapshot = Snapshot.parse(value[1])
            resume = Resume(Position(snapshot.xmin, 0), snapshot)
    except (ValueError, TypeError, IndexError, KeyError, binascii.Error, RecursionError):
        pass
    if resume is None or not _sane(resume):
        raise BadCursor("not an event cursor")
    return resume


def _sane(resume: Resume) -> bool:
    """Values PostgreSQL takes: a cursor that is not one is the client's mistake, said in
    words, not a database error."""
    after, seen = resume.after, resume.snapshot
    if not (0 <= after.xid < XID8_END and 0 <= after.id < BIGINT_END):
        return False
    # As pg_snapshot reads them: 0 < xmin <= xmax, the running ones from xmin up to xmax.
    return seen is None or (
        0 < seen.xmin <= seen.xmax < XID8_END
        and all(seen.xmin <= xid < seen.xmax for xid in seen.running)
    )


def from_row(row: Any) -> StoredEvent:
    """A row of `events` as the current version of its kind: an older payload upcast,
    a newer one refused (NewerEventVersion)."""
    kind = EventType(row.type)
    position = Position(int(row.xid), row.id)
    try:
        payload = upcast(kind, row.schema_version, row.payload)
    except NewerEventVersion as error:
        raise NewerEventVersion(
            f"event ({position.xid}, {position.id}): {error}; this release delivers "
            "nothing from it on"
        ) from None
    return StoredEvent(
        position=position,
        type=kind,
        version=CURRENT[kind],
        work_order_id=row.work_order_id,
        department_id=row.department_id,
        payload=payload,
        occurred_at=row.occurred_at,
    )


async def head(conn: AsyncConnection) -> Position:
    row = (await conn.execute(Q["events_head"])).first()
    return Position(int(row.xid), row.id) if row else START


@dataclass(frozen=True)
class Filter:
    department_id: int | None = None
    work_order_id: int | None = None
    types: tuple[str, ...] | None = None
    # With `types`: also the events tagged `gate` (a timer's event on a delivery task).
    gate: bool = False


async def read_page(
    conn: AsyncConnection, resume: Resume, settled: Position, where: Filter = Filter()
) -> list[StoredEvent]:
    """The next stored events after `resume` (at most PAGE), in order. `settled` is a
    position the feed has read: its transaction and every older one of this database had
    finished, so everything up to it is read whatever the horizon says now."""
    params = {
        "xid": str(resume.after.xid),
        "id": resume.after.id,
        "settled": str(settled.xid + 1),
        "limit": PAGE,
        "department_id": where.department_id,
        "work_order_id": where.work_order_id,
        "types": list(where.types) if where.types else None,
        "gate": where.gate,
    }
    # Through asyncpg itself: the feed reads a page per batch of commits.
    if resume.snapshot is None:
        rows = await fetch_native(conn, "events_after", **params)
    else:
        rows = await fetch_native(
            conn, "events_after_snapshot", snapshot=resume.snapshot.text(), **params
        )
    return _readable(rows)


async def replay_page(
    conn: AsyncConnection, resume: Resume, settled: Position, where: Filter = Filter()
) -> list[StoredEvent]:
    """As `read_page`, for a subscriber's replay: CursorExpired when events after `resume`
    have been pruned. Where the log starts is read after the page, so a prune that took
    events of the page before it was read shows there (each read sees what committed
    before it)."""
    page = await read_page(conn, resume, settled, where)
    if resume.after < await pruned_through(conn):
        raise CursorExpired
    return page


async def pruned_through(conn: AsyncConnection) -> Position:
    """The last event pruned from the log (START: none was)."""
    row = (await conn.execute(Q["events_pruned_through"])).first()
    return Position(int(row.xid), row.id) if row else START


def _readable(rows: list[Any]) -> list[StoredEvent]:
    """The rows up to the first one stored in a version newer than this release knows.
    That one is refused (NewerEventVersion) when it comes first: this release delivers
    nothing from it on, so that no reader skips it; the release that wrote it will."""
    page: list[StoredEvent] = []
    for row in rows:
        try:
            page.append(from_row(row))
        except NewerEventVersion:
            if not page:
                raise
            break
    return page


async def lag_seconds(conn: AsyncConnection) -> float:
    return float(await conn.scalar(Q["events_lag"]) or 0.0)
