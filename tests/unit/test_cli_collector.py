"""`pressroom` turns the cyclic collector off for start-up and its one-shot commands
(pressroom/cli.py); called in a process of its own (a test's, a script's), it leaves the
collector as it found it. The server turning it on again: tests/integration/test_gc_pauses.py."""

import gc
import logging
from collections.abc import Iterator

import pytest

from pressroom import logs
from pressroom.cli import main


@pytest.fixture
def process_logging() -> Iterator[None]:
    """`main` configures the process's logging as a command's: to this test's captured
    stderr, at INFO. Left so, every later test in this worker would format each line its
    servers log and fail to write it to that closed stream: put back as it was."""
    loggers = [logging.getLogger(name) for name in [None, *logs.config()["loggers"]]]
    kept = [(lg, lg.handlers[:], lg.filters[:], lg.level, lg.propagate) for lg in loggers]
    yield
    for lg, handlers, filters, level, propagate in kept:
        lg.handlers[:], lg.filters[:], lg.propagate = handlers, filters, propagate
        lg.setLevel(level)


@pytest.mark.parametrize("collecting", [True, False])
def test_a_command_leaves_the_collector_as_it_found_it(
    collecting: bool, capsys: pytest.CaptureFixture[str], process_logging: None
) -> None:
    (gc.enable if collecting else gc.disable)()
    try:
        assert main(["db-roles", "--database", "shop"]) == 0
        assert gc.isenabled() is collecting
    finally:
        gc.enable()
    assert "shop" in capsys.readouterr().out
