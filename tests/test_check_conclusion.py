"""The last line of ``check``: whether everything passes, and what to do next."""

from __future__ import annotations

from autograder.report.checking import NotebookState, conclusion


def test_a_notebook_with_a_failing_function_sends_the_learner_to_its_feedback():
    line = conclusion([NotebookState("leaves.ipynb", passing=1, functions=3, started=2)])
    assert "read the feedback and hints above" in line


def test_a_notebook_whose_started_functions_all_pass_asks_for_the_next_function():
    line = conclusion([NotebookState("leaves.ipynb", passing=1, functions=3, started=1)])
    assert line.startswith("leaves.ipynb is not yet solved: every function you started passes")
    assert "feedback" not in line


def test_several_notebooks_say_to_read_the_feedback_when_any_has_a_failing_function():
    line = conclusion(
        [
            NotebookState("leaves.ipynb", passing=1, functions=3, started=1),
            NotebookState("mapping.ipynb", passing=0, functions=5, started=1),
        ]
    )
    assert "Read the feedback and hints above" in line
