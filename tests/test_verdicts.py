"""How a test cell's ending becomes a verdict, and what a hidden test may reveal."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from autograder.compare.failures import CallTimeout, FunctionMissing, LearnerError, WorkerCrashed
from autograder.compare.verdicts import run_test_cell
from autograder.grade.plugin import trusted_namespace
from autograder.load.course import TestCell, hidden_lines

SOURCE = """\
assert f(1) == 2, "f(1) should be 2"
### BEGIN HIDDEN TESTS
secret_input = 12345
assert f(secret_input) == 24690{message}
### END HIDDEN TESTS
"""


def cell(message: str = ', "Reread Section X."') -> TestCell:
    source = SOURCE.format(message=message)
    return TestCell("test_f", "f", 1.0, source, hidden_lines(source))


def verdict(function, test: TestCell | None = None):
    return run_test_cell(test or cell(), {"f": function}, "nb.ipynb")


def test_a_correct_function_passes():
    assert verdict(lambda x: 2 * x).outcome == "passed"


def test_a_visible_failure_shows_its_message():
    result = verdict(lambda x: x)
    assert result.outcome == "failed" and result.message == "f(1) should be 2"


def test_a_hidden_failure_shows_only_the_authored_message():
    result = verdict(lambda x: 2 if x == 1 else 0)
    assert result.message == "Reread Section X."


def test_a_visible_failure_tells_nothing_about_the_hidden_tests():
    assert verdict(lambda x: x).hidden is False


def test_a_pass_or_a_hidden_failure_tells_something_about_the_hidden_tests():
    assert verdict(lambda x: 2 * x).hidden is True
    assert verdict(lambda x: 2 if x == 1 else 0).hidden is True


def test_a_hidden_failure_without_a_message_reveals_neither_code_nor_input():
    result = verdict(lambda x: 2 if x == 1 else 0, cell(message=""))
    assert result.message == "A hidden test of f failed."
    assert "12345" not in result.message and "secret_input" not in result.message


def test_a_learner_error_on_a_hidden_input_does_not_echo_the_error_text():
    def raising(x):
        if x == 1:
            return 2
        raise LearnerError("f", {"type": "ValueError", "message": "bad value 12345"})

    result = verdict(raising)
    assert result.outcome == "error"
    assert "ValueError" in result.message and "12345" not in result.message


def test_a_learner_error_on_a_visible_input_shows_the_learners_own_traceback():
    def raising(x):
        raise LearnerError(
            "f",
            {
                "type": "KeyError",
                "message": "'w'",
                "traceback": "  cell 3, line 2, in f\n    return tree['w']\n",
            },
        )

    result = verdict(raising)
    assert result.outcome == "error"
    assert "KeyError: 'w'" in result.message and "return tree['w']" in result.message


def test_a_learner_error_on_a_visible_input_names_the_call_that_was_made():
    def raising(x):
        raise LearnerError("f", {"type": "KeyError", "message": "'w'"})

    result = verdict(raising)
    assert result.message.endswith('Called in the test: assert f(1) == 2, "f(1) should be 2"')


def test_an_error_in_the_learners_kernel_names_the_call_that_was_made():
    def raising(x):
        raise KeyError("w")

    result = verdict(raising)
    assert result.message.endswith('Called in the test: assert f(1) == 2, "f(1) should be 2"')


def test_running_out_of_memory_has_its_own_outcome():
    def hoarding(x):
        raise LearnerError("f", {"type": "MemoryError", "message": ""})

    result = verdict(hoarding)
    assert result.outcome == "memory" and "memory" in result.message


def test_an_unwritten_function_is_reported_as_not_written_yet():
    def stub(x):
        raise LearnerError("f", {"type": "NotImplementedError", "message": ""})

    result = verdict(stub)
    assert result.outcome == "failed" and "not written yet" in result.message


@pytest.mark.parametrize(
    ("exception", "outcome"),
    [
        (CallTimeout(), "timeout"),
        (FunctionMissing("f", ["g"]), "missing"),
        (WorkerCrashed("the worker was killed by SIGSEGV"), "crashed"),
    ],
)
def test_worker_troubles_have_their_own_outcomes(exception, outcome):
    def trouble(x):
        raise exception

    assert verdict(trouble).outcome == outcome


def test_hidden_lines_cover_the_region_and_its_markers():
    assert hidden_lines(cell().source) == frozenset({2, 3, 4, 5})


def test_a_crash_names_the_signal_that_ended_the_worker():
    def crashing(x):
        raise WorkerCrashed("the worker was killed by SIGSEGV")

    assert "SIGSEGV" in verdict(crashing).message


def test_every_outcome_has_one_mark_and_one_terminal_style():
    from autograder.compare.verdicts import MARKS, OUTCOMES
    from autograder.report.console import _STYLE

    assert set(MARKS) == set(OUTCOMES)
    assert set(_STYLE) == set(OUTCOMES)


def test_a_functions_status_is_its_worst_outcome():
    from autograder.report.model import ExerciseResult, TestResult

    tests = [TestResult("a", "failed", 0.0, 1.0), TestResult("b", "crashed", 0.0, 1.0)]
    assert ExerciseResult("nb.ipynb", "f", 2.0, tests).status == "crashed"
    assert ExerciseResult("nb.ipynb", "f", 2.0, []).status == "missing"


DATACLASS = "import dataclasses\n\n\n@dataclasses.dataclass\nclass Point:\n    x: int\n"


def test_a_test_cell_defines_a_dataclass_as_a_kernel_would():
    source = DATACLASS + "assert Point(1).x == 1, 'Point(1).x should be 1'\n"
    test = TestCell("test_f", "f", 1.0, source, hidden_lines(source))
    assert run_test_cell(test, {"__name__": "__grader__"}, "nb.ipynb").passed


def test_a_setup_cell_defines_a_dataclass_as_a_kernel_would():
    exercise = SimpleNamespace(path="setup-with-a-dataclass", id="nb", setup_source=DATACLASS)
    assert trusted_namespace(exercise)["Point"](2).x == 2
