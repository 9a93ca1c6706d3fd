"""A change to ``booktools/`` runs every chapter again.

The chapters' question and picture cells print markup that ``booktools``' code makes
(``quiz.py``, ``diagrams.py``), but myst-nb's execution cache keys a chapter by its
cells' code alone, and Sphinx reads again only the pages whose source changed. Without
this, a site rebuilt after ``booktools/quiz.py`` changed would keep the old markup on
every chapter whose code did not change. So the digest of ``booktools``' code is kept
in the cache folder; when it differs, the cache is emptied and every page read again.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

BOOKTOOLS = Path(__file__).resolve().parent
STAMP = "booktools.sha256"


def booktools_digest(folder: Path = BOOKTOOLS) -> str:
    """SHA-256 over the names and contents of the Python files directly in ``folder``."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def renew_if_booktools_changed(cache: Path, current: str) -> bool:
    """Empty ``cache`` unless its stamp is ``current``, then stamp it; whether it was stale.

    A folder without a stamp counts as stale; a missing folder is created, and is not."""
    stamp = cache / STAMP
    stale = cache.exists() and (
        not stamp.exists() or stamp.read_text(encoding="utf-8").strip() != current
    )
    if stale:
        shutil.rmtree(cache)
    cache.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current + "\n", encoding="utf-8")
    return stale


def read_all_after_a_booktools_change(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """``env-get-outdated``: every page, when ``booktools``' code changed since the cache."""
    cache = Path(env.mystnb_config.execution_cache_path)
    if renew_if_booktools_changed(cache, booktools_digest()):
        return sorted(env.found_docs - added - changed)
    return []
