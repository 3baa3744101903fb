"""`pressroom` turns the cyclic collector off for start-up and its one-shot commands
(pressroom/cli.py); called in a process of its own (a test's, a script's), it leaves the
collector as it found it. The server turning it on again: tests/integration/test_gc_pauses.py."""

import gc

import pytest

from pressroom.cli import main


@pytest.mark.parametrize("collecting", [True, False])
def test_a_command_leaves_the_collector_as_it_found_it(
    collecting: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    (gc.enable if collecting else gc.disable)()
    try:
        assert main(["db-roles", "--database", "shop"]) == 0
        assert gc.isenabled() is collecting
    finally:
        gc.enable()
    assert "shop" in capsys.readouterr().out
