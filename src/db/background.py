"""Threads for a request's heavy work (a password's hash, a proof's examination, a ticket's
PDF) that defer to the rest of the process and the machine: the event loop answering the
floor, and PostgreSQL, take a core before them."""

import os
import threading

# The nice value such a thread adds to its process's.
NICENESS = 10


def defer_to_the_floor() -> None:
    """A thread pool's initializer: on Linux a nice value is a thread's own, taken from the
    thread that made it."""
    thread = threading.get_native_id()
    nice = os.getpriority(os.PRIO_PROCESS, thread)
    os.setpriority(os.PRIO_PROCESS, thread, min(19, nice + NICENESS))
