"""No learner's text costs another learner their report.

Learners whose text no UTF-8 file or XML document can hold, a lone surrogate in a cell's
error and U+FFFE in a visible test's message, and one who hands in a file whose name is
not UTF-8, are graded next to a correct victim with every output format at once and the
result cache on, in one grading process and in two. Every format is written and reads
back, every learner has their row, and the victim keeps full marks.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import nbformat
import pytest
from attack_cases import CASES, Attack, write_learners

from autograder.report.text import markdown_cell
from conftest import VICTIM, run_cli

pytestmark = pytest.mark.slow

SURROGATE = next(attack for attack in CASES if attack.name == "surrogate_in_a_cell_error")
NONCHARACTER = next(attack for attack in CASES if attack.name == "noncharacter_in_a_message")
FILE_NAME = "a_file_name"  # hands in a correct notebook, and another named with byte 0xff
NOT_UTF8 = b"notes-\xff.ipynb"
ATTACKS = {
    "a_surrogate": SURROGATE,
    "a_noncharacter": NONCHARACTER,
    FILE_NAME: Attack("correct"),
    VICTIM: Attack("correct"),
}
LEARNERS = tuple(ATTACKS)


@pytest.fixture(scope="module", params=[1, 2], ids=["jobs-1", "jobs-2"])
def graded(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    write_learners(folder, ATTACKS)
    extra = folder / FILE_NAME / NOT_UTF8.decode("utf-8", "surrogateescape")
    extra.write_text(nbformat.writes(nbformat.v4.new_notebook()))
    out = tmp_path_factory.mktemp("out")
    common = ["--assignment", "leaves", "--jobs", str(request.param)]
    common += ["--cache-dir", str(out / "cache")]
    done = run_cli(
        "grade", folder, *common,
        "--json", out / "r.json", "--junit", out / "r.xml", "--csv", out / "r.csv",
        "--markdown", out / "r.md", "--feedback", out / "feedback", "--html", out / "r.html",
        "--gradebook", f"sqlite:///{out / 'gradebook.db'}",
    )  # fmt: skip
    again = run_cli("grade", folder, *common, "--json", out / "again.json")
    return done, again, out, folder


def test_grading_ends_well_with_and_without_the_cache(graded):
    done, again, _, _ = graded
    assert done.returncode == 0, done.stderr
    assert again.returncode == 0, again.stderr


def test_every_learner_has_their_row_and_the_cache_gives_it_back(graded):
    _, _, out, _ = graded
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert sorted(s["student"] for s in report["students"]) == sorted(LEARNERS)
    assert json.loads((out / "again.json").read_text(encoding="utf-8")) == report


def test_the_victim_keeps_full_marks(graded):
    _, _, out, _ = graded
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    (victim,) = [s for s in report["students"] if s["student"] == VICTIM]
    assert victim["score"] == victim["max_score"]


def test_the_text_is_shown_with_replacement_characters_and_the_name_with_its_byte(graded):
    _, _, out, _ = graded
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    students = {s["student"]: s for s in report["students"]}
    assert any("see \ufffd" in note["message"] for note in students["a_surrogate"]["notes"])
    messages = [t["message"] for e in students["a_noncharacter"]["exercises"] for t in e["tests"]]
    assert any("see \ufffd" in message for message in messages)
    assert "notes-\\xff.ipynb" in [f["path"] for f in students[FILE_NAME]["files"]]


def test_every_format_is_written_and_reads_back(graded):
    _, _, out, _ = graded
    suites = ET.parse(out / "r.xml").getroot()
    assert sorted(suite.get("name") for suite in suites) == sorted(LEARNERS)
    rows = list(csv.DictReader((out / "r.csv").open(encoding="utf-8", newline="")))
    assert sorted(row["student_id"] for row in rows) == sorted(LEARNERS)
    summary = (out / "r.md").read_text(encoding="utf-8")
    assert all(f"| {markdown_cell(name)} |" in summary for name in LEARNERS)
    assert sorted(p.stem for p in (out / "feedback").iterdir()) == sorted(LEARNERS)
    HTMLParser().feed((out / "r.html").read_text(encoding="utf-8"))
    with sqlite3.connect(out / "gradebook.db") as gradebook:
        ids = sorted(row[0] for row in gradebook.execute("SELECT id FROM student"))
    assert ids == sorted(LEARNERS)


def test_gradescope_gets_the_learner_whose_file_name_is_not_utf8(graded, tmp_path):
    _, _, out, _ = graded
    folder = next(p for p in (out.parent).iterdir() if p.name.startswith("class"))
    done = run_cli(
        "grade", folder / FILE_NAME, "--assignment", "leaves", "--cache-dir", out / "cache",
        "--gradescope", tmp_path / "results.json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert "notes-\\xff.ipynb" in results["output"]
