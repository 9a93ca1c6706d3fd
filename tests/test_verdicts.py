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


def test_a_cell_that_stops_in_its_hidden_tests_passed_its_visible_ones():
    assert verdict(lambda x: 2 if x == 1 else 0).visible_passed is True
    assert verdict(lambda x: 2 * x).visible_passed is True
    assert verdict(lambda x: x).visible_passed is False


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


def learner_error(type_name: str, message: str = "", traceback: str = ""):
    """A learner's function that raises ``type_name`` on every input, as a worker reports it."""

    def raising(x):
        info = {"type": type_name, "message": message, "traceback": traceback}
        raise LearnerError("f", info)

    return raising


def fails_hidden_with(type_name: str, message: str = "") -> str:
    """The message of a hidden test whose call raised ``type_name`` (visible tests pass)."""

    def raising(x):
        if x == 1:
            return 2
        return learner_error(type_name, message)(x)

    return verdict(raising).message


@pytest.mark.parametrize(
    "type_name", ["TypeError", "KeyError", "RecursionError", "TracerBoolConversionError"]
)
def test_a_hidden_test_names_a_known_exception_type(type_name):
    assert fails_hidden_with(type_name).startswith(f"f raised {type_name} on the input")


def test_a_hidden_test_names_any_other_exception_type_only_as_an_exception():
    message = fails_hidden_with("Leak[12345]")
    assert message.startswith("f raised an exception on the input of a hidden test.")
    assert "12345" not in message and "Leak" not in message


@pytest.mark.parametrize("hidden", [True, False])
def test_an_exception_named_like_a_watchers_shows_the_courses_text_not_its_message(hidden):
    raising = learner_error("WatcherError", "secret_input is 12345")
    message = (
        fails_hidden_with("WatcherError", "secret_input is 12345")
        if hidden
        else (verdict(raising).message)
    )
    assert "12345" not in message and "secret_input" not in message
    assert message.startswith("f: the notebook lacks something the test watches for")


WATCHED = """\
assert f(1) == 2, "f(1) should be 2"
### BEGIN HIDDEN TESTS
assert count_traces(f, [(12345,)], inside="_helper") == [1], "m"
### END HIDDEN TESTS
"""


def watcher_verdict(type_name: str, message: str, source: str = WATCHED) -> str:
    def complaining(*args, **kwargs):
        raise LearnerError("f", {"type": type_name, "message": message})

    test = TestCell("test_f", "f", 1.0, source, hidden_lines(source))
    return run_test_cell(test, {"f": lambda x: 2 * x, "count_traces": complaining}, "n").message


def test_a_watcher_names_a_helper_only_when_the_visible_test_names_it():
    hidden = watcher_verdict("HelperNotJitted", "_helper is not a jitted function")
    assert hidden == (
        "f: the jitted helper the test watches is not a jitted function: keep its "
        "@jax.jit decorator."
    )
    visible = WATCHED.replace('"f(1) should be 2"', '"see _helper"')
    shown = watcher_verdict("HelperNotJitted", "_helper is not a jitted function", visible)
    assert shown.startswith("f: _helper is not a jitted function")


def test_a_watcher_never_shows_a_name_chosen_by_the_learners_code():
    message = watcher_verdict("HelperMissing", "secret_input_12345 is not defined")
    assert "12345" not in message
    assert message.startswith("f: a helper the exercise gives is not defined")


def test_a_watcher_may_name_the_function_under_test():
    message = watcher_verdict("HelperStatic", "f keeps some arguments static")
    assert message == "f: f keeps some arguments static: keep its plain @jax.jit."


def test_a_missing_function_lists_what_the_notebook_defines_for_a_visible_test():
    def missing(x):
        raise FunctionMissing("f", ["g", "h\x1b[2K", "check"])

    assert verdict(missing).message.endswith("It defines: g.")


def test_a_missing_function_in_a_hidden_test_lists_nothing_and_names_no_learner_choice():
    def missing(x):
        if x == 1:
            return 2
        raise FunctionMissing("secret_12345", ["secret_input_12345"])

    message = verdict(missing).message
    assert "12345" not in message and "defines" not in message
    assert message.startswith("A function the tests of f call is not defined in nb.ipynb")


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


CATCHING = """\
def attempt(call):
    try:
        return True, call()
    except Exception:
        return False, None


ok, out = attempt(lambda: f(1))
assert ok and out == 2, "f(1) should be 2: reread Section X."
"""


WORKER_TROUBLES = [
    (CallTimeout(), "timeout"),
    (WorkerCrashed("the worker was killed by SIGSEGV"), "crashed"),
]
"""What the worker makes of a call that a test's own ``except Exception`` must not catch."""


@pytest.mark.parametrize(("exception", "outcome"), WORKER_TROUBLES)
def test_worker_troubles_keep_their_outcomes_in_a_test_that_catches_exceptions(exception, outcome):
    def trouble(x):
        raise exception

    catching = TestCell("test_f", "f", 1.0, CATCHING, frozenset())
    assert verdict(trouble, catching).outcome == outcome


HELPER_AMONG_THE_VISIBLE_TESTS = """\
def attempt(x):
    try:
        return True, f(x)
    except Exception:
        return False, None


assert attempt(1) == (True, 2), "f(1) should be 2"
### BEGIN HIDDEN TESTS
assert attempt(12345) == (True, 24690), "Reread Section X."
### END HIDDEN TESTS
"""


@pytest.mark.parametrize(("exception", "outcome"), WORKER_TROUBLES)
def test_trouble_on_a_hidden_input_is_hidden_when_a_visible_helper_made_the_call(
    exception, outcome
):
    def trouble_on_hidden_inputs(x):
        if x != 1:
            raise exception
        return 2

    source = HELPER_AMONG_THE_VISIBLE_TESTS
    cell = TestCell("test_f", "f", 1.0, source, hidden_lines(source))
    result = verdict(trouble_on_hidden_inputs, cell)
    assert (result.outcome, result.hidden, result.visible_passed) == (outcome, True, True)


def test_a_test_that_catches_exceptions_still_catches_what_the_function_raised():
    def raising(x):
        raise LearnerError("f", {"type": "ValueError", "message": "no"})

    catching = TestCell("test_f", "f", 1.0, CATCHING, frozenset())
    result = verdict(raising, catching)
    assert result.outcome == "failed" and result.message == "f(1) should be 2: reread Section X."


def test_hidden_lines_cover_the_region_and_its_markers():
    assert hidden_lines(cell().source) == frozenset({2, 3, 4, 5})


def test_a_crash_names_the_signal_that_ended_the_worker():
    def crashing(x):
        raise WorkerCrashed("the worker was killed by SIGSEGV")

    assert "SIGSEGV" in verdict(crashing).message


def test_a_crash_on_a_hidden_input_tells_no_exit_code():
    def exiting_on_hidden_inputs(x):
        if x != 1:
            raise WorkerCrashed("the worker exited with code 27")
        return 2

    source = HELPER_AMONG_THE_VISIBLE_TESTS
    result = verdict(
        exiting_on_hidden_inputs, TestCell("test_f", "f", 1.0, source, hidden_lines(source))
    )
    assert result.outcome == "crashed" and "27" not in result.message
    assert result.message == "the worker ended while f was running."


def test_a_crash_in_a_visible_test_after_hidden_inputs_tells_no_exit_code():
    def exiting(x):
        raise WorkerCrashed("the worker exited with code 27")

    result = run_test_cell(cell(), {"f": exiting}, "nb.ipynb", after_hidden=True)
    assert result.message == "the worker ended while f was running."


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


def test_a_learner_named_exception_reaches_the_courses_tests_as_exception():
    from autograder.compare.failures import LearnerError

    error = LearnerError("f", {"type": "LEAK[{'hidden': 1}]", "message": "m"})
    assert error.type == "Exception" and "LEAK" not in str(error)
    assert error.learner_type == "LEAK[{'hidden': 1}]"


def test_a_known_exception_keeps_its_name_for_the_courses_tests():
    from autograder.compare.failures import LearnerError

    assert LearnerError("f", {"type": "TracerBoolConversionError"}).type == (
        "TracerBoolConversionError"
    )


def test_a_failed_check_rereads_the_section_its_own_message_names():
    result = verdict(lambda x: 2 if x == 1 else 0, cell(', "Reread Leaves → None is a node."'))
    assert result.kind == "failed-check"
    assert result.reread.startswith("Leaves → None is a node")


def quoting(source: str, returned: str):
    """The verdict of a one-line test ``source`` on an ``f`` that returns ``returned``."""
    test = TestCell("test_f", "f", 1.0, source, hidden_lines(source))
    return run_test_cell(test, {"f": lambda x: returned}, "nb.ipynb")


def test_a_section_named_in_the_learners_value_does_not_replace_the_messages_own():
    source = 'assert f(1) == 2, f"f(1) returned {f(1)!r}. Reread Leaves → None is a node."\n'
    result = quoting(source, "Reread Mapping → Mapping over one tree.")
    assert "Reread Mapping" in result.message
    assert result.reread.startswith("Leaves → None is a node")


def test_a_section_named_only_in_the_learners_value_is_no_section():
    result = quoting(
        'assert f(1) == 2, f"f(1) returned {f(1)!r}"\n', "Reread Leaves → The registry"
    )
    assert "Reread Leaves" in result.message and result.reread == ""


def test_an_error_the_course_explains_names_its_idea_and_section():
    raising = learner_error("TypeError", "reduce() of empty iterable with no initial value")
    result = verdict(raising)
    assert (result.outcome, result.kind) == ("error", "error")
    assert result.idea == "reduce-empty-tree"
    assert result.reread == "Mapping → Reducing a tree"


def test_an_error_the_course_does_not_explain_names_no_idea():
    result = verdict(learner_error("KeyError", "'w'"))
    assert (result.kind, result.idea, result.reread) == ("error", "", "")


def test_an_unwritten_function_is_of_the_kind_not_written():
    def stub(x):
        raise NotImplementedError

    assert verdict(learner_error("NotImplementedError")).kind == "not-written"
    assert verdict(stub).kind == "not-written"


@pytest.mark.parametrize(
    ("exception", "kind"),
    [
        (CallTimeout(), "timeout"),
        (FunctionMissing("f", ["g"]), "missing"),
        (WorkerCrashed("the worker was killed by SIGSEGV"), "crashed"),
    ],
)
def test_worker_troubles_have_their_own_kinds(exception, kind):
    def trouble(x):
        raise exception

    assert verdict(trouble).kind == kind
