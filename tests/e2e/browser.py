"""Headless Chromium (Debian's package) driven by Playwright, for end-to-end page tests."""

import shutil
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, async_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Without these, Chromium keeps trying to reach Google's services on this closed network.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    if not shutil.which("chromium"):
        pytest.fail("chromium is not installed: run .ci/run, or apt-get install chromium")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        yield launched
        await launched.close()
