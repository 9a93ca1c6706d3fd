"""Report: a grading run's results and every format they are written in.

Holds the report's data (per learner, exercise and test), the JSON, JUnit,
Markdown, CSV and Gradescope formats, the terminal output, what ``check``
concludes, and the nbgrader gradebook. Nothing here knows how the results were
obtained.

May import: :mod:`autograder.load`, :mod:`autograder.compare`, :mod:`autograder.safe_text`;
never workers.
"""
