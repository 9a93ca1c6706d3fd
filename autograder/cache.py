"""Where the course's tools keep what they can compute again: the user's cache folder."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The course's folder in the user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytrees-hands-on"
