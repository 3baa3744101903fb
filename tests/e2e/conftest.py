"""The end-to-end tests' shared fixtures: headless Chromium (Debian's package) driven by
Playwright, tabs on it, axe-core for the accessibility audit, where screenshots go, and
Node with the npm packages of tests/e2e/node.
Helpers that are not fixtures live in tests/e2e/web/support.py."""

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, async_playwright, expect

from tests.e2e.web.support import AXE, HERE, OUTSIDE_PROXY, OpenTab, Tab, open_tab, pinned_axe

# Chromium's own headless build (Debian's chromium-headless-shell: the same Blink as the
# full browser, without its windowing and GPU process): the browser tests took half the
# CPU they took on the full browser's headless mode (100 -> 52 s for the audit and the
# office screens), and the suite's browsers had been its largest cost.
CHROMIUM = "chromium-headless-shell"
# The real JavaScript clients' scripts and their pinned npm packages.
NODE_DIR = Path(__file__).resolve().parent / "node"
# Without these, Chromium keeps trying to reach Google's services on this closed network.
# The proxy cannot exist: every request to another host (by name or by address, websockets
# too) fails in the browser itself, while loopback, which Chromium never sends through a
# proxy, reaches the test's server. Tabs record such failures (web/support.py); routing
# every request through the test to judge it cost a sixth of the browser tests' CPU.
FLAGS = [
    "--no-sandbox",
    f"--proxy-server={OUTSIDE_PROXY}",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# What a page should come to show, waited for: not a measurement (what a test calls "at
# once" it judges on the page's own clock, page.clock). Playwright's 5 s was too short in a
# slow hour on CI's 2-core machine, where the suite took 2.3 times as long as in a quiet one
# (15:21 against 6:42) and a wall display had not gone live through the cluster's balancer
# after 5 s.
expect.set_options(timeout=15_000)


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    executable = shutil.which(CHROMIUM)
    if executable is None:
        pytest.fail(f"{CHROMIUM} is not installed: run ./dev test, or apt-get install {CHROMIUM}")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=executable, headless=True, args=FLAGS
        )
        yield launched
        await launched.close()


@pytest.fixture
async def tabs(browser: Browser) -> AsyncIterator[OpenTab]:
    """Opens tabs like open_tab, and closes whatever a test left open, pass or fail, before
    the next test empties the database (a page left running would race its TRUNCATE)."""
    opened: list[Tab] = []

    async def opener(**options: Any) -> Tab:
        tab = await open_tab(browser, **options)
        opened.append(tab)
        return tab

    yield opener
    for tab in opened:
        with contextlib.suppress(Exception):
            await tab.context.close()


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's browser build, installed with npm into tests/e2e/web when missing."""
    installed = HERE / "node_modules" / "axe-core" / "package.json"

    def missing() -> bool:
        return (
            not installed.is_file() or json.loads(installed.read_text())["version"] != pinned_axe()
        )

    if missing():
        with one_installer(HERE):
            if missing():
                _npm(HERE, "ci", "the accessibility audit")
    return AXE.read_text()


def _npm(folder: Path, command: str, needed_by: str) -> None:
    """`npm <command>` in `folder`; a failure fails the test with npm's own words."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(f"{needed_by} needs npm on PATH to install {folder}", pytrace=False)
    done = subprocess.run(
        [npm, command, "--no-audit", "--no-fund"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        pytest.fail(
            f"npm {command} in {folder} exited {done.returncode}:\n{done.stdout}{done.stderr}",
            pytrace=False,
        )


@contextlib.contextmanager
def one_installer(folder: Path) -> Iterator[None]:
    """Holds `folder` against the other xdist workers' installs: on a fresh clone every
    worker finds the packages missing, and two npm runs at once in one folder fail
    (ENOTEMPTY as one removes what the other unpacks). Each one let in after the first
    looks again and finds them installed. The lock goes with the descriptor."""
    held = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield
    finally:
        os.close(held)


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where the screenshots go: $PRESSROOM_SCREENSHOTS, or a fresh temporary folder."""
    chosen = os.environ.get("PRESSROOM_SCREENSHOTS")
    # One folder per run, whichever test module asks first.
    folder = Path(chosen) if chosen else tmp_path_factory.getbasetemp() / "web-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nScreenshots of the app: {folder}")
    yield folder
    print(f"\nScreenshots of the app were written to {folder}")


def _pinned_node_packages() -> dict[str, str]:
    manifest = json.loads((NODE_DIR / "package.json").read_text())
    pinned: dict[str, str] = manifest["dependencies"]
    return pinned


def _installed_node_package(name: str) -> str | None:
    manifest = NODE_DIR / "node_modules" / name / "package.json"
    if not manifest.is_file():
        return None
    version: str = json.loads(manifest.read_text())["version"]
    return version


def _node_packages_missing() -> dict[str, str]:
    return {n: v for n, v in _pinned_node_packages().items() if _installed_node_package(n) != v}


@pytest.fixture(scope="session")
def node() -> str:
    """The `node` executable, with tests/e2e/node's pinned npm packages installed there."""
    executable = shutil.which("node")
    if executable is None:
        pytest.fail("this test runs a Node client: node is not on PATH", pytrace=False)
    if _node_packages_missing():
        with one_installer(NODE_DIR):
            if _node_packages_missing():
                _install_node_packages()
    return executable


def _install_node_packages() -> None:
    _npm(NODE_DIR, "install", f"this test (with {_pinned_node_packages()})")
    if missing := _node_packages_missing():
        pytest.fail(f"npm install in {NODE_DIR} did not install {missing}", pytrace=False)
