"""The package's layering, as contracts that import-linter checks (see pyproject.toml).

The first test checks the package as it is; the others plant one bad import in a
copy of the package and check that the contracts catch it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.load.course import PACKAGE_DIR, REPO_ROOT

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the ``autograder`` package found in ``root``."""
    environment = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(root / "pyproject.toml")],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
    )


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """A copy of the package and its contracts, to plant imports in."""
    shutil.copytree(PACKAGE_DIR, tmp_path / "autograder", ignore=shutil.ignore_patterns("course"))
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def plant(root: Path, module: str, line: str) -> None:
    path = root / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


def test_the_import_contracts_hold():
    done = lint_imports(REPO_ROOT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


NO_CYCLES = "No import cycles, between the stages or between the modules of one"
LEARNER = "The learner's helpers (setup cells, check, hint, solution) import no grading machinery"
REPORT = "The report and its formats do not depend on workers"
PLANTED = {
    "a cycle between two modules of one stage": (
        [("autograder.report.model", "import autograder.report.formats")],
        NO_CYCLES,
    ),
    "a cycle between two stages": (
        [
            ("autograder.load.course", "import autograder.report.model"),
            ("autograder.report.model", "import autograder.load.course"),
        ],
        NO_CYCLES,
    ),
    "the learner's helpers importing a worker": (
        [("autograder.learner.feedback", "import autograder.execute.run")],
        LEARNER,
    ),
    "a setup cell's module importing grading": (
        [("autograder.watchers", "import autograder.grade.batch")],
        LEARNER,
    ),
    "a report format importing the wire": (
        [("autograder.report.formats", "import autograder.execute.wire")],
        REPORT,
    ),
}


@pytest.mark.parametrize("planted", PLANTED, ids=list(PLANTED))
def test_a_planted_import_breaks_its_contract(package_copy, planted):
    imports, contract = PLANTED[planted]
    for module, line in imports:
        plant(package_copy, module, line)
    done = lint_imports(package_copy)
    assert done.returncode == 1
    assert f"{contract} BROKEN" in " ".join(done.stdout.split())
