"""A learner's terminal commands start quickly: each imports what it runs, and no more.

Wall-clock limits would be flaky on a shared machine; what makes a command slow is what
it imports (JAX, numpy, nbformat with its schema validator, pytest: each a tenth of a
second to a second), so these tests name what each command must not load.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.load.course import REPO_ROOT

# Runs ``python -m autograder ARGS`` in this process, then writes the modules it loaded.
RUN_AND_LIST_MODULES = """
import json, runpy, sys
output, sys.argv = sys.argv[1], ["autograder", *sys.argv[2:]]
try:
    runpy.run_module("autograder", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
with open(output, "w") as listing:
    json.dump(sorted(sys.modules), listing)
"""


def modules_loaded_by(tmp_path: Path, *arguments: str) -> set[str]:
    """The modules ``python -m autograder ARGUMENTS`` has loaded when it ends."""
    listing = tmp_path / "modules.json"
    environment = {**os.environ, "PYTREES_PROGRESS": str(tmp_path / "progress.json")}
    subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_MODULES, str(listing), *arguments],
        cwd=REPO_ROOT, env=environment, capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    return set(json.loads(listing.read_text()))


def packages(modules: set[str]) -> set[str]:
    return {module.split(".")[0] for module in modules}


NEVER_FOR_A_LEARNER = {"matplotlib", "nbconvert", "nbgrader", "sqlalchemy"}
"""What the instructor's commands use (the class's page, the gradebook, generate)."""


@pytest.mark.parametrize("arguments", [["status"], ["status", "leaves"]])
def test_status_imports_neither_jax_nor_numpy_nor_nbformat_nor_pytest(tmp_path, arguments):
    loaded = packages(modules_loaded_by(tmp_path, *arguments))
    assert "autograder" in loaded, "the command did not run"
    assert loaded & {"jax", "numpy", "nbformat", "jsonschema", "pytest"} == set()
    assert loaded & NEVER_FOR_A_LEARNER == set()


def test_help_imports_none_of_the_commands(tmp_path):
    loaded = modules_loaded_by(tmp_path, "--help")
    assert "autograder.cli" in loaded, "the command did not run"
    assert packages(loaded) & {"jax", "numpy", "nbformat", "pytest", "rich"} == set()


def test_check_imports_none_of_the_instructors_tools(tmp_path):
    notebook = REPO_ROOT / "solutions" / "leaves" / "leaves.ipynb"  # answered: its tests run
    loaded = modules_loaded_by(tmp_path, "check", str(notebook))
    assert "autograder.grade.check" in loaded and "jax" in packages(loaded), "check did not run"
    assert packages(loaded) & NEVER_FOR_A_LEARNER == set()
    instructors = {"autograder.author", "autograder.report.insight", "autograder.grade.batch"}
    assert {m for m in loaded if m.startswith(tuple(instructors))} == set()


def test_the_help_names_every_command_in_its_description():
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "--help"], cwd=REPO_ROOT, capture_output=True,
        text=True, env={**os.environ, "COLUMNS": "200"}, check=True,
    )  # fmt: skip
    description, listing = done.stdout.split("positional arguments")
    commands = re.findall(r"^    ([a-z-]+)", listing, flags=re.M)
    assert {"grade", "check", "status"} <= set(commands), "the listing was not read"
    assert [command for command in commands if command not in description] == []


def test_the_help_shows_no_markup_of_the_source_docstrings():
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "--help"], cwd=REPO_ROOT, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    assert "python -m autograder" in done.stdout
    assert "``" not in done.stdout
