"""Headless Chromium for the tests that drive a page in a real browser (Debian's package).

Playwright is given the machine's own browser; it never downloads one.
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
# Debian's package first; Chrome where that is what the machine has (GitHub's runners).
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str:
    """The browser's executable: ``$CHROMIUM``, else the first of :data:`BROWSER_NAMES` found.

    Fails the test, saying how to install one, where there is none."""
    found = [os.environ.get("CHROMIUM")] + [shutil.which(name) for name in BROWSER_NAMES]
    path = next((candidate for candidate in found if candidate), None)
    if path is None:
        pytest.fail("the browser tests need Chromium: apt-get install chromium, or set CHROMIUM")
    return path
