"""The package's layering, as contracts that import-linter checks (see pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autograder.registry import REPO_ROOT


def test_the_import_contracts_hold():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
