"""A learner's result with each ``Reread <Chapter> → <Section>`` followed by its address.

For what is shown as plain text (the terminal); Markdown links the sections itself
(see :meth:`autograder.load.book.BookLinks.markdown`).
"""

from __future__ import annotations

from dataclasses import replace

from autograder.load.book import BookLinks
from autograder.report.model import StudentResult


def with_book_links(student: StudentResult, links: BookLinks | None) -> StudentResult:
    """A copy of ``student`` whose tests' messages give each section's address; the same
    ``student`` when there are no ``links``."""
    if links is None:
        return student
    exercises = [
        replace(
            exercise,
            tests=[replace(test, message=links.annotate(test.message)) for test in exercise.tests],
        )
        for exercise in student.exercises
    ]
    return replace(student, exercises=exercises)
