"""Proof versions of a work order: their rows, and their bytes kept in parts (proof_chunks),
written and read a part at a time so that no file is ever whole in memory."""

import asyncio
import enum
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db import reads
from db.engine import reading
from db.orders import lock_open_order, settle_work_order
from db.queries import Q
from db.rows import ProofRow
from domain.errors import NotAllowed

# What one proof_chunks row holds: few rows per file, little memory per step.
CHUNK_BYTES = 1024 * 1024
# Parts are written no faster than one each CHUNK_SECONDS (25 MiB/s, a 25 MB file in
# about a second). PostgreSQL has one write-ahead log, and a commit waits until all that
# was written to it before is on disk: with 25 MB proofs uploaded back to back, the
# floor's startTask p99 was 22-29x its own without them at full speed, 13-14x at 50 MiB/s
# and 1.35x at 25 MiB/s (bench.customer).
CHUNK_SECONDS = 0.04
NOT_ALLOWED = (
    "Only Sales, admins and members of a department that makes the proofs (such as Design) "
    "with a task on this order can upload its proofs."
)


class Part(enum.StrEnum):
    FILE = "FILE"  # the bytes as uploaded
    PREVIEW = "PREVIEW"  # a PNG: a PDF's first page, or the image re-encoded


@dataclass(frozen=True)
class NewProof:
    work_order_id: int
    file_name: str
    media_type: str
    size_bytes: int
    sha256: bytes
    width: int | None
    height: int | None
    uploaded_by: int
    # Sales and admins add proofs to any order; others only to orders with a task of a
    # department of theirs that makes the proofs (the statement add_proof_version decides).
    any_order: bool


async def proofs(conn: AsyncConnection, ids: Sequence[int]) -> list[ProofRow]:
    return ProofRow.all(await conn.execute(Q["proofs_by_id"], {"ids": list(ids)}))


async def proofs_of_work_orders(conn: AsyncConnection, ids: Sequence[int]) -> list[ProofRow]:
    """Each order's versions, newest first."""
    return ProofRow.all(await conn.execute(Q["proofs_of_work_orders"], {"ids": list(ids)}))


async def add_version(
    conn: AsyncConnection, new: NewProof, file: BinaryIO, preview: bytes
) -> ProofRow:
    """The order's next proof version with its bytes (read from `file` a part at a time) and
    preview; the version waiting for a decision is withdrawn. Then the order is settled: the
    departments waiting for an approved proof wait for this one. Needs a transaction."""
    await lock_open_order(conn, new.work_order_id)
    makers = [] if new.any_order else reads.proof_makers_of(await reads.all_departments(conn))
    added = (
        await conn.execute(
            Q["add_proof_version"],
            {
                "work_order_id": new.work_order_id,
                "file_name": new.file_name,
                "media_type": new.media_type,
                "size_bytes": new.size_bytes,
                "sha256": new.sha256,
                "width": new.width,
                "height": new.height,
                "uploaded_by": new.uploaded_by,
                "any_order": new.any_order,
                "maker_ids": makers,
            },
        )
    ).first()
    if added is None:
        raise NotAllowed(NOT_ALLOWED)
    row = ProofRow.pick(added)
    file.seek(0)
    seq = 0
    while data := await asyncio.to_thread(file.read, CHUNK_BYTES):
        await _add_chunk(conn, row.id, Part.FILE, seq, data)
        seq += 1
    for seq, start in enumerate(range(0, len(preview), CHUNK_BYTES)):
        await _add_chunk(conn, row.id, Part.PREVIEW, seq, preview[start : start + CHUNK_BYTES])
    await settle_work_order(conn, new.work_order_id)
    return row


async def _add_chunk(
    conn: AsyncConnection, proof_id: int, part: Part, seq: int, data: bytes
) -> None:
    began = time.monotonic()
    params = {"proof_id": proof_id, "part": part.value, "seq": seq, "data": data}
    await conn.execute(Q["add_proof_chunk"], params)
    await asyncio.sleep(CHUNK_SECONDS - (time.monotonic() - began))


async def stream(engine: AsyncEngine, proof_id: int, part: Part) -> AsyncIterator[bytes]:
    """A proof's file or preview, a part at a time, each read on a pooled connection of its
    own: a slow reader holds no connection while it takes what it was sent. A version's bytes
    never change once committed, so the parts read apart are one file."""
    seq = 0
    while True:
        async with reading(engine) as conn:
            found = (
                await conn.execute(
                    Q["proof_chunk"], {"proof_id": proof_id, "part": part.value, "seq": seq}
                )
            ).first()
        if found is None:
            return
        yield found.data
        seq += 1
