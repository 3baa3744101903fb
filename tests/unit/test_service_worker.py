"""The service worker as served (routes/offline.py): it keeps every file the app loads
and nothing else, and any change to one of them, or to the shop's locale, is a new
version (so the browser installs it, and its cache replaces the old one)."""

import json
import re
from pathlib import Path

from api.manifest import WEB_DIR
from routes.offline import worker_script


def head(script: bytes) -> tuple[str, list[str]]:
    text = script.decode()
    version = re.search(r'^const VERSION = "(\w+)";', text, re.M)
    files = re.search(r"^const FILES = (\[.*?\]);", text, re.M | re.S)
    assert version is not None and files is not None
    return version.group(1), json.loads(files.group(1))


def test_the_worker_keeps_the_shell_and_every_file_the_app_loads() -> None:
    _, files = head(worker_script(WEB_DIR, "en-GB"))
    assert files[0] == "/"
    for wanted in (
        "/app/main.js",
        "/app/app.css",
        "/app/lib/live.js",
        "/app/vendor/preact/preact.module.js",
        "/app/vendor/uplot/uPlot.min.css",
        "/app/display/display.js",
        "/app/manifest.webmanifest",
        "/app/icons/icon-192.png",
    ):
        assert wanted in files
    # Not the worker itself, the docs, the licences, or the server's documents manifest.
    assert not [f for f in files if f.endswith(("sw.js", ".md", ".json", "LICENSE"))]
    for url in files[1:]:
        assert (WEB_DIR / url.removeprefix("/app/")).is_file(), url


def test_a_changed_file_or_locale_is_a_new_version(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "sw.js").write_text("// the worker\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.js").write_text("export const a = 1;\n")
    (tmp_path / "README.md").write_text("not served\n")
    first, files = head(worker_script(tmp_path, "en-GB"))
    assert files == ["/", "/app/lib/a.js"]
    assert worker_script(tmp_path, "en-GB").endswith(b"// the worker\n")
    assert head(worker_script(tmp_path, "en-GB"))[0] == first

    (tmp_path / "README.md").write_text("still not served\n")
    assert head(worker_script(tmp_path, "en-GB"))[0] == first
    assert head(worker_script(tmp_path, "de-DE"))[0] != first
    (tmp_path / "lib" / "a.js").write_text("export const a = 2;\n")
    assert head(worker_script(tmp_path, "en-GB"))[0] != first
