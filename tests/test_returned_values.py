"""A failing visible test says what the function returned, briefly; a hidden one never does.
A test statement is shown whole, however many lines it spans."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import nbformat
import pytest

from autograder.compare.failures import LearnerError
from autograder.compare.returned import MAX_SHOWN, Calls, short_repr
from autograder.compare.verdicts import cell_parts, run_test_cell
from autograder.execute.run import Limits, NotebookRun
from autograder.grade.plugin import NotebookContext
from autograder.load.course import REPO_ROOT, SOLUTIONS, TestCell, hidden_lines, load_course
from autograder.report.text import markdown_cell
from conftest import run_cli, write_variant

SOURCE = """\
assert f(1) == 2, "f(1) should be 2"
### BEGIN HIDDEN TESTS
assert f(3) == 6, "Reread Section X."
### END HIDDEN TESTS
"""
WRONG_COUNT = (
    "import jax\n\ndef count_leaves(tree, *, none_is_leaf=False):\n"
    "    return len(jax.tree.leaves(tree))"
)
SAID = 'count_leaves({"a": 1, "b": [2, None]}, none_is_leaf=True) should be 3; it returned 2'


def cell(source: str = SOURCE) -> TestCell:
    return TestCell("test_f", "f", 1.0, source, hidden_lines(source))


def verdict(function, source: str = SOURCE, after_hidden: bool = False):
    """The verdict of ``source`` on ``function``, whose calls are told as the grader tells them."""
    test = cell(source)
    calls = Calls(test.filename)

    def f(x):
        calls.started("f")
        value = function(x)
        calls.returned(lambda: short_repr(value))
        return value

    return run_test_cell(test, {"f": f}, "nb.ipynb", after_hidden, calls)


def test_a_failing_visible_assertion_says_what_the_function_returned():
    assert verdict(lambda x: x).message == "f(1) should be 2; it returned 1"


def test_a_failing_hidden_assertion_never_says_what_the_function_returned():
    result = verdict(lambda x: 2 if x == 1 else 123456)
    assert result.message == "Reread Section X." and "123456" not in result.message


def test_a_visible_failure_after_hidden_inputs_says_nothing_the_function_returned():
    assert verdict(lambda x: 7, after_hidden=True).message == "f(1) should be 2"


def test_a_value_bound_to_a_name_the_failing_assertion_reads_is_shown():
    source = 'answer = f(1)\nassert answer == 2, "f(1) should be 2"\n'
    assert verdict(lambda x: 7, source).message == "f(1) should be 2; it returned 7"


def test_a_value_returned_to_an_earlier_statement_is_not_shown_after_a_later_call():
    source = 'answer = f(1)\nother = f(2)\nassert answer == 2, "f(1) should be 2"\n'
    assert verdict(lambda x: 7, source).message == "f(1) should be 2"


def test_a_value_bound_to_a_name_the_failing_assertion_does_not_read_is_not_shown():
    source = 'answer = f(1)\nassert 1 == 2, "f(1) should be 2"\n'
    assert verdict(lambda x: 7, source).message == "f(1) should be 2"


def test_a_name_bound_among_the_hidden_tests_never_shows_its_value():
    source = (
        "### BEGIN HIDDEN TESTS\nanswer = f(3)\n### END HIDDEN TESTS\n"
        'assert answer == 2, "f(1) should be 2"\n'
    )
    assert "7" not in verdict(lambda x: 7, source).message


def test_what_the_function_returned_follows_an_authored_sentence_as_one_of_its_own():
    source = 'assert f(1) == 2, "f(1) should be 2. Reread Section X."\n'
    assert verdict(lambda x: 7, source).message.endswith("Reread Section X. It returned 7")


def test_a_section_named_in_what_the_function_returned_is_no_section_to_reread():
    result = verdict(lambda x: "Reread Leaves → The registry")
    assert "Reread Leaves" in result.message and result.reread == ""


def test_a_statement_spanning_lines_is_shown_whole_where_the_call_raised():
    source = 'assert f([1, (2, [3])]) == [1, 2, 3], (\n    "f should give [1, 2, 3]"\n)\n'

    def raising(x):
        raise LearnerError("f", {"type": "ValueError", "message": "no"})

    message = run_test_cell(cell(source), {"f": raising}, "nb.ipynb").message
    assert message.endswith(f"Called in the test: {source.strip()}")


def test_an_assertion_without_a_message_is_shown_whole():
    source = "assert f(1) == [\n    2,\n]\n"
    message = run_test_cell(cell(source), {"f": lambda x: [x]}, "nb.ipynb").message
    assert message.startswith("This check failed: assert f(1) == [\n    2,\n]")


def test_a_statement_shown_whole_leaves_out_a_hidden_line_inside_it():
    source = "assert f(\n### BEGIN HIDDEN TESTS\n    12345\n### END HIDDEN TESTS\n) == 2\n"
    message = run_test_cell(cell(source), {"f": lambda x: x}, "nb.ipynb").message
    assert message.startswith("This check failed: assert f(") and "12345" not in message


def test_a_cells_visible_prefix_ends_before_its_first_hidden_line():
    prefix, rest = cell_parts(cell())
    assert prefix == 'assert f(1) == 2, "f(1) should be 2"\n'
    assert rest == "\n" + SOURCE.split("\n", 1)[1]


def test_a_cell_whose_hidden_region_sits_inside_a_top_level_statement_runs_whole_after_it():
    source = (
        "for x in [1]:\n"
        "    assert f(x) == 2\n"
        "### BEGIN HIDDEN TESTS\n"
        "    assert f(3) == 6\n"
        "### END HIDDEN TESTS\n"
    )
    assert cell_parts(cell(source)) == ("", source)


def test_a_cell_without_hidden_lines_is_all_visible_prefix():
    source = 'assert f(1) == 2, "f(1) should be 2"\n'
    assert cell_parts(cell(source)) == (source, "")


def test_a_failure_in_the_rest_of_a_cell_is_judged_on_the_cells_own_lines():
    test, namespace = cell(), {"f": lambda x: 2 if x == 1 else 123456}
    prefix, rest = cell_parts(test)
    assert run_test_cell(test, namespace, "nb.ipynb", part=prefix).passed
    result = run_test_cell(test, namespace, "nb.ipynb", part=rest)
    assert (result.outcome, result.hidden, result.message) == ("failed", True, "Reread Section X.")


def test_a_short_repr_is_one_line_of_at_most_its_length():
    text = short_repr(["line one\nline two", "x" * 10_000, list(range(1000))])
    assert "\n" not in text and len(text) <= MAX_SHOWN


def test_a_repr_that_raises_or_exits_is_shown_as_its_types_name():
    class Raising:
        def __repr__(self):
            raise SystemExit(3)

    assert short_repr(Raising()) == "<Raising>"


def test_a_repr_that_never_ends_is_shown_as_its_types_name_within_a_second():
    class Sleeping:
        def __repr__(self):
            time.sleep(60)
            return "never"

    started = time.monotonic()
    assert short_repr(Sleeping()) == "<Sleeping>"
    assert time.monotonic() - started < 1.0


def test_check_in_a_notebook_says_what_the_function_returned(course, tmp_path):
    notebook = course.notebook("leaves")
    code = "\n".join([notebook.setup_source, textwrap.dedent(WRONG_COUNT), "check('count_leaves')"])
    env = {"PYTREES_PROGRESS": str(tmp_path / "progress.json"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT,
        env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"❌ FAIL count_leaves: {SAID}" in done.stdout


def test_check_from_the_terminal_says_what_the_function_returned(tmp_path):
    submission = write_variant(
        SOLUTIONS / "leaves" / "leaves.ipynb", tmp_path / "leaves.ipynb",
        {"count_leaves": WRONG_COUNT},
    )  # fmt: skip
    env = {"PYTREES_PROGRESS": str(tmp_path / "progress.json"), "PATH": "/usr/bin:/bin"}
    done = run_cli("check", submission, env=env)
    assert SAID in " ".join(done.stdout.split())


HANGING = """\
class Hanging(list):
    def __repr__(self):
        return str(sum(range(10**13)))  # C code: no signal stops it


def hangs():
    return Hanging([1])


def pair():
    return [1, 2]
"""


@pytest.fixture
def run():
    # no restart allowed: a worker ended for its repr must not use one
    started = NotebookRun([(1, HANGING)], Limits(notebook_seconds=60, call_seconds=10, restarts=0))
    yield started
    started.close()


def test_the_worker_says_what_its_last_call_of_a_function_returned(run):
    assert run.call("pair", (), {}) == [1, 2]
    assert run.shown("pair") == "[1, 2]"


def test_a_worker_ended_for_a_repr_that_never_ends_costs_no_restart(run):
    run.call("hangs", (), {})
    assert run.shown("hangs") is None
    assert run.call("pair", (), {}) == [1, 2]


# Right in its first function, whose hidden tests then run, and wrong in the two after it.
WRONG_LATER = {
    "leaves_in_order": "def leaves_in_order(tree):\n    return [tree]",
    "is_leaf_type": "def is_leaf_type(value):\n    return False",
}


@pytest.fixture(scope="module")
def feedback(tmp_path_factory):
    """The feedback folder of a class of leaves: ada's count_leaves is wrong, bea's later
    functions are."""
    folder = tmp_path_factory.mktemp("class")
    source = SOLUTIONS / "leaves" / "leaves.ipynb"
    write_variant(source, folder / "ada" / "leaves.ipynb", {"count_leaves": WRONG_COUNT})
    write_variant(source, folder / "bea" / "leaves.ipynb", WRONG_LATER)
    written = tmp_path_factory.mktemp("feedback")
    done = run_cli(
        "grade", folder, "--assignment", "leaves", "--no-cache", "--feedback", written,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return written


def test_a_learners_feedback_file_says_what_the_function_returned(feedback):
    assert markdown_cell(SAID) in (feedback / "ada.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_later_functions_of_a_notebook_say_what_they_returned_after_its_hidden_tests_ran(
    feedback,
):
    text = (feedback / "bea.md").read_text(encoding="utf-8")
    assert "`count_leaves`: 2 / 2 (passed)" in text  # its hidden tests ran before the others'
    for said in (
        "leaves_in_order([1, (2, [3])]) should be [1, 2, 3]; it returned [[1, (2, [3])]]",
        'is_leaf_type("abc") should return True; it returned False',
    ):
        assert markdown_cell(said) in text


# count_leaves's test as a course could write it, its hidden line inside the loop of its
# visible checks: the loop's second visible call comes after the hidden one.
LOOPED_TEST = """\
for tree in ([1, (2, 3)], [4]):
    assert count_leaves(tree) == len(jax.tree.leaves(tree)), f"count_leaves({tree}) is wrong"
### BEGIN HIDDEN TESTS
    assert count_leaves({"kept": "a hidden input"}) == 1, "Reread Leaves → The registry."
### END HIDDEN TESTS
"""
# Right until it has been given a dict, which it keeps and gives back from its next call.
GIVING_BACK = """\
KEPT = []


def count_leaves(tree, *, none_is_leaf=False):
    KEPT.append(tree)
    if isinstance(tree, dict):
        return 1
    return repr(KEPT[-2]) if len(KEPT) > 2 else 3
"""


@pytest.mark.slow
def test_a_visible_line_that_runs_after_hidden_lines_of_its_own_cell_shows_no_value(tmp_path):
    course = tmp_path / "course" / "leaves" / "leaves.ipynb"
    course.parent.mkdir(parents=True)
    nb = nbformat.read(SOLUTIONS / "leaves" / "leaves.ipynb", as_version=4)
    (cell,) = [
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_count_leaves"
    ]
    cell.source = LOOPED_TEST
    nbformat.write(nb, course)
    exercise = load_course(course.parent.parent).notebook("leaves")
    learner = write_variant(
        course, tmp_path / "ada" / "leaves.ipynb", {"count_leaves": GIVING_BACK}
    )
    context = NotebookContext(exercise, learner, Limits(notebook_seconds=60, call_seconds=10))
    try:
        context.run_visible_tests()
        verdict = context.verdict(exercise.functions[0].tests[0])
    finally:
        context.close()
    assert (verdict.outcome, verdict.message) == ("failed", "count_leaves([4]) is wrong")
