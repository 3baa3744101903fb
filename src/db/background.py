"""Threads for a request's heavy work (a password's hash, a proof's examination, a ticket's
PDF) that defer to the rest of the process and the machine: the event loop answering the
floor, and PostgreSQL, take a core before them."""

import ctypes
import os
import threading
from collections.abc import Callable

# The nice value such a thread adds to its process's.
NICENESS = 10


def defer_to_the_floor() -> None:
    """A thread pool's initializer: on Linux a nice value is a thread's own, taken from the
    thread that made it."""
    thread = threading.get_native_id()
    nice = os.getpriority(os.PRIO_PROCESS, thread)
    os.setpriority(os.PRIO_PROCESS, thread, min(19, nice + NICENESS))


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return None
    return trim


_TRIM = _malloc_trim()


def give_back_memory() -> None:
    """Hands the pages freed by work that held tens of MB at once (a decoded image) back to
    the system. glibc raises its threshold for mapping a buffer of its own after such a
    buffer is freed, so the next ones come from heaps it keeps: examining a 25 MB PNG a
    second time peaked at 2.13 times the file's size instead of 1.86, and the first left
    26 MB held between them. A no-op where the C library has no malloc_trim."""
    if _TRIM is not None:
        _TRIM(0)
