"""How a test cell's ending becomes a verdict, and what a hidden test may reveal."""

from __future__ import annotations

import pytest

from autograder.registry import TestCell, hidden_lines
from autograder.sandbox import CallTimeout, FunctionMissing, LearnerError
from autograder.verdicts import run_test_cell

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
    assert result.outcome == "failed"
    assert "ValueError" in result.message and "12345" not in result.message


def test_an_unwritten_function_is_reported_as_not_written_yet():
    def stub(x):
        raise LearnerError("f", {"type": "NotImplementedError", "message": ""})

    assert "not written yet" in verdict(stub).message


@pytest.mark.parametrize(
    ("exception", "outcome"),
    [(CallTimeout(), "timeout"), (FunctionMissing("f", ["g"]), "missing")],
)
def test_worker_troubles_have_their_own_outcomes(exception, outcome):
    def trouble(x):
        raise exception

    assert verdict(trouble).outcome == outcome


def test_hidden_lines_cover_the_region_and_its_markers():
    assert hidden_lines(cell().source) == frozenset({2, 3, 4, 5})
