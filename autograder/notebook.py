"""What an exercise notebook's setup cell imports: ``check``, ``hint`` and ``solution``.

A public name kept stable for the notebooks; the helpers live in
:mod:`autograder.learner.feedback`.
"""

from autograder.learner.feedback import check, hint, solution

__all__ = ["check", "hint", "solution"]
