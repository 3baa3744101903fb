"""The threads of a request's heavy work run below the rest of the process: a hash, a
proof's examination or a ticket's PDF waits for a core that the event loop and PostgreSQL
do not need."""

import json
import math
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from api.proof_files import Examiner
from db.background import NICENESS, defer_to_the_floor
from routes.tickets import Press


def test_a_deferring_thread_runs_below_the_thread_that_made_it() -> None:
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    with ThreadPoolExecutor(1, initializer=defer_to_the_floor) as threads:
        worker = threads.submit(
            lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        ).result()
    assert worker == min(19, here + NICENESS)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == here


# Password hashes: tests/unit/test_password_workers.py, through the pool's lanes.
@pytest.mark.parametrize(
    "threads",
    [lambda: Examiner()._threads, lambda: Press()._threads],
    ids=["proof examinations", "ticket PDFs"],
)
def test_every_pool_of_heavy_work_defers_to_the_floor(
    threads: Callable[[], ThreadPoolExecutor],
) -> None:
    pool = threads()
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    worker = pool.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    assert worker.result() == min(19, here + NICENESS)
    pool.shutdown()


# Examines the PNG named on the command line twice, through the server's Examiner, and
# prints how much more memory the process holds after each than before the first (after
# a small PNG's examination has loaded Pillow's plugins and started the thread), in bytes.
EXAMINE_TWICE = """
import asyncio, gc, io, json, sys
import psutil
from PIL import Image
from api.proof_files import Examiner

async def main():
    examiner, process, held = Examiner(), psutil.Process(), []
    small = io.BytesIO()
    Image.new("RGB", (8, 8)).save(small, format="PNG")
    await examiner.examine(small, "small.png", 64 * 1024 * 1024)
    before = process.memory_info().rss
    for _ in range(2):
        with open(sys.argv[1], "rb") as file:
            await examiner.examine(file, "noise.png", 64 * 1024 * 1024)
        gc.collect()  # the future that carried the answer (and its preview) sits in a cycle
        held.append(process.memory_info().rss - before)
    print(json.dumps(held))

asyncio.run(main())
"""


def test_an_examined_image_leaves_no_memory_held(tmp_path: Path) -> None:
    """A PNG of noise of 25 MB decodes to 35 MB of pixels: once examined, the process holds
    less than half the file's size more (a fresh process: the allocator's state is the
    point). Without the pages given back it held 18 MB after the first and 48 after the
    second; with them, 7 and 9.5 (Python's own and the thread's)."""
    side = math.isqrt(25 * 1024 * 1024 // 3)
    pixels = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    path = tmp_path / "noise.png"
    with path.open("wb") as file:
        pixels.save(file, format="PNG", compress_level=0)
    del pixels
    run = subprocess.run(
        [sys.executable, "-c", EXAMINE_TWICE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)},
    )
    held = json.loads(run.stdout)
    assert [h < path.stat().st_size / 2 for h in held] == [True, True], held
