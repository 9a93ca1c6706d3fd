"""What one learner's worker leaves behind never reaches another learner's worker.

A class is graded with learners who leave traces everywhere a worker might write
(a JAX plugin on the import path, files, locked folders, memory held in files, a
process listening on a socket), a correct victim after them, and learners after
them who look for any trace and fail if they find one. Graded with one grading
process, and with two, where each process grades a learner who leaves traces first.
"""

from __future__ import annotations

import json

import pytest
from attack_cases import CASES, NOTEBOOK, Attack, build

from autograder.isolate import bubblewrap
from conftest import VICTIM, run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bubblewrap.bubblewrap() is None, reason="the walls are bubblewrap's"),
]

LEAVER = next(attack for attack in CASES if attack.name == "leave_traces")
LOOKER = next(attack for attack in CASES if attack.name == "zz_look_for_traces")
LEAVERS = ("a_leaves_traces", "a_leaves_traces_too")
LOOKERS = ("c_looks_for_traces", "c_looks_for_traces_too")


@pytest.fixture(scope="module", params=[1, 2], ids=["jobs-1", "jobs-2"])
def graded(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    for name, attack in [*((n, LEAVER) for n in LEAVERS), *((n, LOOKER) for n in LOOKERS)]:
        (folder / name).mkdir()
        (folder / name / NOTEBOOK).write_bytes(build(attack))
    (folder / VICTIM).mkdir()
    (folder / VICTIM / NOTEBOOK).write_bytes(build(Attack("correct")))
    report = tmp_path_factory.mktemp("report") / "r.json"
    done = run_cli(
        "grade",
        folder,
        "--json",
        report,
        "--assignment",
        "leaves",
        "--no-cache",
        "--jobs",
        str(request.param),
    )
    assert done.returncode == 0, done.stderr
    return {s["student"]: s for s in json.loads(report.read_text())["students"]}


def test_the_victim_after_them_keeps_full_marks(graded):
    assert graded[VICTIM]["score"] == graded[VICTIM]["max_score"]


@pytest.mark.parametrize("looker", LOOKERS)
def test_a_later_learner_finds_nothing_they_left(graded, looker):
    exercises = {e["name"]: e for e in graded[looker]["exercises"]}
    assert exercises["count_leaves"]["status"] == "passed", exercises["count_leaves"]["message"]
    assert graded[looker]["score"] == graded[looker]["max_score"]


@pytest.mark.parametrize("leaver", LEAVERS)
def test_those_who_leave_traces_earn_what_their_functions_earn(graded, leaver):
    statuses = {e["name"]: e["status"] for e in graded[leaver]["exercises"]}
    assert statuses == {
        "count_leaves": "failed",
        "leaves_in_order": "passed",
        "is_leaf_type": "passed",
    }
