"""The threads of a request's heavy work run below the rest of the process: a hash, a
proof's examination or a ticket's PDF waits for a core that the event loop and PostgreSQL
do not need."""

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

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
