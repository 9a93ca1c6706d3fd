"""nbgrader's checksum of a cell, computed without importing nbgrader.

nbgrader stores this checksum in each locked cell of a released notebook, and
the grader compares a learner's cells against it. ``nbgrader.utils`` has the
function, but importing anything from nbgrader runs its package ``__init__``,
which loads the Jupyter server extensions: about a second, paid in every
grading process. So the few lines are repeated here, and
``tests/test_checksum.py`` checks that they give nbgrader's own answer on every
cell of the course.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any


def cell_checksum(cell: Mapping[str, Any]) -> str:
    """The hex MD5 that ``nbgrader.utils.compute_checksum`` gives ``cell``.

    Raises, as nbgrader does, for a cell whose metadata lacks what the checksum
    covers (no ``grade_id``, no ``points`` in a grade cell, a source that is not
    text).
    """
    meta = cell["metadata"]["nbgrader"]
    grade = meta.get("grade", False)
    solution = meta.get("solution", False)
    locked = False if solution else (True if grade else meta.get("locked", False))
    digest = hashlib.md5()  # noqa: S324 - nbgrader's choice, not a security measure
    for part in (cell["source"], cell["cell_type"], str(grade), str(solution), str(locked)):
        digest.update(part.encode("utf-8"))
    digest.update(meta["grade_id"].encode("utf-8"))
    if grade:
        digest.update(str(float(meta["points"])).encode("utf-8"))
    return digest.hexdigest()
