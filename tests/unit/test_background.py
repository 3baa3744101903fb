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


@pytest.fixture(scope="module")
def noise(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PNG of noise of 25 MB, stored uncompressed: 35 MB of pixels decoded whole."""
    side = math.isqrt(25 * 1024 * 1024 // 3)
    pixels = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    path = tmp_path_factory.mktemp("noise") / "noise.png"
    with path.open("wb") as file:
        pixels.save(file, format="PNG", compress_level=0)
    return path


def in_a_fresh_process(script: str, path: Path) -> object:
    run = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)},
    )
    return json.loads(run.stdout)


def test_an_examined_image_leaves_no_memory_held(noise: Path) -> None:
    """A PNG of noise of 25 MB: once examined, the process holds less than half the file's
    size more (a fresh process: the allocator's state is the point). Without the pages
    given back it held 18 MB after the first and 48 after the second; with them, 7 and 9.5
    (Python's own and the thread's)."""
    held = in_a_fresh_process(EXAMINE_TWICE, noise)
    assert held == [h for h in held if h < noise.stat().st_size / 2], held


# Examines the PNG named on the command line, after a small PNG's examination has loaded
# Pillow's plugins, and prints the most memory the process held meanwhile, over what it held
# before, in bytes: the kernel's high-water mark of its resident pages (VmHWM, reset to them
# first), which no peak escapes however short, as a thread sampling them may.
EXAMINE_PEAK = """
import io, sys
import psutil
from PIL import Image
from api.proof_files import examine

small = io.BytesIO()
Image.new("RGB", (8, 8)).save(small, format="PNG")
examine(small, "small.png", 64 * 1024 * 1024)
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")
before = psutil.Process().memory_info().rss
with open(sys.argv[1], "rb") as file:
    examine(file, "noise.png", 64 * 1024 * 1024)
with open("/proc/self/status") as status:
    [peak] = [line.split()[1] for line in status if line.startswith("VmHWM:")]
print(int(peak) * 1024 - before)
"""


def test_examining_a_png_never_holds_its_pixels_at_once(noise: Path) -> None:
    """The 35 MB of pixels of a 25 MB PNG of noise, decoded a band of rows at a time, and
    its preview turned in place: the examination's peak stays under the file's size (0.73
    times it; 1.81 times decoded whole, 1.12 with its preview turned in a copy)."""
    peak = in_a_fresh_process(EXAMINE_PEAK, noise)
    assert isinstance(peak, int)
    assert peak < noise.stat().st_size, f"{peak / noise.stat().st_size:.2f} times the file"
