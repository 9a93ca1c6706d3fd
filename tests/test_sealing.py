"""Sealed reference solutions: only the right answers open them."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from collections import OrderedDict
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.author.seal import (
    FEWEST_YES_NO_PROBES,
    TooFewProbes,
    readable_solution,
    sealable,
    sealed_solution,
)
from autograder.learner.sealing import SealError, canonical, fingerprint, seal, unseal
from autograder.load.course import REPO_ROOT, SOLUTIONS, GradedFunction, load_course

KEY = fingerprint("leaves/count_leaves", [3, [1, 2]])


def test_the_right_key_opens_a_seal():
    assert unseal(seal("def f():\n    return 1\n", KEY), KEY) == "def f():\n    return 1\n"


def test_another_key_does_not_open_it():
    sealed = seal("secret", KEY)
    with pytest.raises(SealError):
        unseal(sealed, fingerprint("leaves/count_leaves", [3, [2, 1]]))


def test_a_damaged_seal_is_refused():
    with pytest.raises(SealError):
        unseal("not base64 at all!", KEY)


def test_the_seal_does_not_contain_the_text():
    assert "return 42" not in seal("def f():\n    return 42\n", KEY)


def test_sealing_is_deterministic_so_regenerating_changes_nothing():
    assert seal("same text", KEY) == seal("same text", KEY)


def test_tiny_float_differences_give_the_same_key():
    assert fingerprint("f", [0.1 * 3]) == fingerprint("f", [0.3])
    assert canonical(np.float32(0.1) * 3) == canonical(np.float64(0.3))
    assert canonical(np.array([-0.0, 1.0])) == canonical(np.array([0.0, 1.0]))


def test_container_types_and_order_change_the_key():
    assert fingerprint("f", [[1, 2]]) != fingerprint("f", [(1, 2)])
    assert fingerprint("f", [OrderedDict(a=1, b=2)]) != fingerprint("f", [OrderedDict(b=2, a=1)])
    assert fingerprint("f", [{"a": 1, "b": 2}]) == fingerprint("f", [{"b": 2, "a": 1}])


def test_typed_prng_keys_are_described_by_their_implementation_and_data():
    import jax

    key = jax.random.key(1)
    assert canonical(key) == canonical(jax.random.wrap_key_data(jax.random.key_data(key)))
    assert canonical(key) != canonical(jax.random.key(2))
    assert canonical(key) != canonical(jax.random.key_data(key))


def test_the_function_label_is_part_of_the_key():
    assert fingerprint("leaves/f", [1]) != fingerprint("leaves/g", [1])


def test_making_a_key_is_slow_enough_to_make_guessing_costly():
    started = time.perf_counter()
    fingerprint("leaves/is_leaf_type", [True, False])
    assert time.perf_counter() - started > 0.05


# The course's own functions are held to this wherever their seals are made: by generate,
# and by the course's checks, which compare every chapter's seals.
@pytest.mark.parametrize(
    "probes",
    [[f"({n},)" for n in range(FEWEST_YES_NO_PROBES - 1)], [f"({n},)" for n in range(30)]],
    ids=["too few", "one answer"],
)
def test_a_yes_or_no_function_is_not_sealed_with_probes_a_guess_could_answer(probes):
    is_small = GradedFunction("is_small", "tiny", (), (), tuple(probes), source="")
    one_answer = len(probes) > FEWEST_YES_NO_PROBES
    namespace = {"is_small": lambda n: n < 100 if one_answer else n < 3}
    with pytest.raises(TooFewProbes, match="is_small answers its"):
        sealed_solution(is_small, namespace)


def test_a_yes_or_no_function_with_enough_probes_and_both_answers_is_sealed():
    probes = tuple(f"({n},)" for n in range(FEWEST_YES_NO_PROBES))
    is_small = GradedFunction("is_small", "tiny", (), (), probes, source="def is_small(n): ...")
    assert sealed_solution(is_small, {"is_small": lambda n: n < 3})


def _learner_kernel(
    notebook_id: str, replacements: dict[str, str], call: str, progress: Path
) -> str:
    """What ``call`` prints in a learner's kernel that ran the code cells of
    ``notebook_id`` but its checks and tests, with ``replacements`` (by function name)
    in place of the reference solutions."""
    notebook = load_course(SOLUTIONS).notebook(notebook_id)
    cells = []
    for cell in nbformat.read(notebook.path, as_version=4).cells:
        grading = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or grading.get("grade") or cell.source.startswith("check("):
            continue
        name = grading.get("grade_id", "")
        cells.append(replacements.get(name, readable_solution(cell.source)))
    done = subprocess.run(
        [sys.executable, "-c", "\n".join([*cells, call])],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTREES_PROGRESS": str(progress)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _misconception(notebook_id: str, misconception: str) -> dict[str, str]:
    cases = importlib.import_module(f"misconceptions.{notebook_id}").CASES
    case = next(c for c in cases if c["misconception"] == misconception)
    return {case["function"]: case["source"]}


def test_a_right_solution_opens_its_seal(tmp_path):
    out = _learner_kernel("aux_data", {}, 'solution("aux_data_demo")', tmp_path / "progress.json")
    assert "📖 The reference solution of aux_data_demo" in out
    assert "def aux_data_demo(" in out


def test_a_function_with_right_values_but_not_the_idea_stays_locked(tmp_path):
    wrong = _misconception(
        "aux_data", "x and scale are both numbers to compute with, so both are children"
    )
    out = _learner_kernel("aux_data", wrong, 'solution("aux_data_demo")', tmp_path / "p.json")
    assert "🔒" in out and "def aux_data_demo(" not in out
    assert "Reread " in out  # the first failing visible test says what is wrong


def test_a_python_loop_in_place_of_a_scan_stays_locked(tmp_path):
    wrong = _misconception("control_flow", "a Python loop over the batches is as good as a scan")
    out = _learner_kernel(
        "control_flow", wrong, 'solution("train_with_scan")', tmp_path / "progress.json"
    )
    assert "🔒" in out and "def train_with_scan(" not in out
    assert "lax.scan" in out


def test_partition_specs_are_described_by_their_entries():
    from jax.sharding import PartitionSpec as P

    assert canonical(P("data", None)) == canonical(P("data"))
    assert canonical(P("data")) != canonical(P("model"))
    assert canonical(P()) != canonical(P(("data", "model")))


def test_an_arrays_layout_over_a_mesh_changes_the_key():
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    rows = jax.device_put(np.ones((8, 2)), NamedSharding(mesh, P("data")))
    whole = jax.device_put(np.ones((8, 2)), NamedSharding(mesh, P()))
    assert canonical(rows) != canonical(whole)
    assert canonical(rows) == canonical(
        jax.device_put(np.ones((8, 2)), NamedSharding(mesh, P("data", None)))
    )


def test_a_chapter_on_eight_devices_seals_after_other_chapters_probes_ran():
    code = (
        "from autograder.author.seal import reference_namespace\n"
        "from autograder.learner.probes import probe_results\n"
        "from autograder.load.course import SOLUTIONS, load_course\n"
        "for notebook in load_course(SOLUTIONS).notebooks:\n"
        "    probe_results(notebook.functions[0], reference_namespace(notebook))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr


def test_a_function_whose_answers_a_library_call_computes_ships_no_seal(released_course):
    leaves_in_order = released_course.function("leaves_in_order")
    assert leaves_in_order.answered_by == "jax.tree.leaves"
    assert leaves_in_order.sealed == ""
    assert not sealable(GradedFunction("f", "nb", (), (), ("(1,)",), answered_by="jax.tree.leaves"))


def test_solution_says_why_a_function_answered_by_a_library_call_is_not_shipped(tmp_path):
    out = _learner_kernel("leaves", {}, 'solution("leaves_in_order")', tmp_path / "p.json")
    assert "not shipped: jax.tree.leaves computes its answers" in out
    assert "The sealed solutions" in out
    assert "def leaves_in_order(" not in out
