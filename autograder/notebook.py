"""What an exercise notebook's setup cell imports: ``check``, ``hint`` and ``solution``;
and ``status``, the learner's progress through every chapter.

A public name kept stable for the notebooks; the helpers live in
:mod:`autograder.learner.feedback` and :mod:`autograder.learner.status`.
"""

from autograder.learner.feedback import check, hint, solution
from autograder.learner.status import status

__all__ = ["check", "hint", "solution", "status"]
