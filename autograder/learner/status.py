"""The learner's progress as ``check`` recorded it: ``python -m autograder status`` on a
terminal, ``status()`` in a notebook (where a learner with only the learners' package,
in Colab or any Jupyter, can ask for it).

Plain ``status`` gives one row per chapter, narrow enough for 80 columns; ``status
CHAPTER`` gives that chapter's functions, grouped by the notebook file each was
last checked in. Lines are never broken inside a word: the rows are laid out to
fit, and a line that cannot fit (a long path) is left whole for the terminal.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from autograder.compare.verdicts import mark
from autograder.learner import progress
from autograder.learner.grading import under_a_grader
from autograder.load.course import Course, ExerciseNotebook, learner_course_folder, load_course
from autograder.load.names import no_such, sentence
from autograder.safe_text import clean, points

WIDTH = 100
"""Columns of a notebook's output area, where the terminal's width is not known."""


def status(chapter: str | None = None) -> None:
    """Print one row per chapter (functions passing, points, the files checked) and a
    total; with ``chapter``, that chapter's functions under the file each was last
    checked in. A chapter not in the course is named with the closest one. Prints
    nothing while a grader runs the notebook (see :func:`under_a_grader`)."""
    if under_a_grader():
        return
    course = load_course(learner_course_folder())
    # plain text on the cell's output, as check prints: no terminal codes, no widget
    out = Console(file=sys.stdout, width=WIDTH, color_system=None, force_jupyter=False)
    states, sources = progress.load(), progress.sources()
    if chapter is None:
        print_progress(out, course, states, sources, more='status("CHAPTER")')
        return
    notebook = chapter_named(course, chapter)
    if isinstance(notebook, str):
        print(sentence(notebook))
        return
    print_chapter(out, notebook, states, sources)


_SHOWN = {
    "passed": mark("passed"),
    "failing": mark("failed"),
    "not-started": mark("not-started"),
}
_GAP = "  "


def print_progress(
    out: Console,
    course: Course,
    states: dict[str, str],
    sources: dict[str, str],
    more: str = "python -m autograder status CHAPTER",
) -> None:
    """One row per chapter: functions passing, points earned, the files checked; a total;
    then ``more``, how to see one chapter's functions."""
    rows = [("Chapter", "Passing", "Points", "Checked in")]
    files = {"Chapter": ["Checked in"]}
    for notebook in course.notebooks:
        files[notebook.id] = _files(notebook, sources)
        passing = [f for f in notebook.functions if states.get(f.name) == "passed"]
        earned = sum(function.points for function in passing)
        idle = all(states.get(f.name) == "not-started" for f in notebook.functions)
        rows.append(
            (
                notebook.id,
                "not started" if idle else f"{len(passing)} of {len(notebook.functions)}",
                f"{points(earned)} / {points(notebook.points)}",
                ", ".join(files[notebook.id]) or "-",
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    room = max(out.width - sum(widths) - 3 * len(_GAP), 0)
    _say(out, "Your progress, as check recorded it")
    for chapter, passing, earned, checked in rows:
        if len(checked) > room:
            checked = f"{len(files[chapter])} files"
        cells = [chapter.ljust(widths[0]), passing.rjust(widths[1]), earned.rjust(widths[2])]
        _say(out, _GAP.join([*cells, checked]).rstrip())
    _total(out, course, states)
    _say(out, "A chapter's functions and the files they were checked in:")
    _say(out, more)


def print_chapter(
    out: Console, notebook: ExerciseNotebook, states: dict[str, str], sources: dict[str, str]
) -> None:
    """``notebook``'s functions, under the file each was last checked in, and its total."""
    _say(out, f"{notebook.title} ({notebook.id})")
    groups: dict[str, list[str]] = {}
    for function in notebook.functions:
        state = states.get(function.name)
        worth = f"{function.name} ({points(function.points)} points)"
        if state not in _SHOWN:
            groups.setdefault("Not checked yet:", []).append(worth)
            continue
        source = sources.get(function.name)
        where = f"Checked in {_shown_path(source) if source else 'a file not recorded'}:"
        groups.setdefault(where, []).append(f"{_SHOWN[state]}  {worth}")
    # the files first, in the order of their first function; what was never checked last
    for heading in sorted(groups, key=lambda heading: heading == "Not checked yet:"):
        _say(out, heading)
        for line in groups[heading]:
            _say(out, f"  {line}")
    _total(out, Course((notebook,)), states)


def chapter_named(course: Course, chapter: str) -> ExerciseNotebook | str:
    """The notebook of ``chapter``, or what to tell a learner who named no chapter."""
    try:
        return course.notebook(chapter)
    except KeyError:
        ids = [notebook.id for notebook in course.notebooks]
        return no_such("chapter", chapter, ids, f"the chapters: {', '.join(ids)}")


def _total(out: Console, course: Course, states: dict[str, str]) -> None:
    passing = [f for f in course.functions if states.get(f.name) == "passed"]
    done, total = sum(f.points for f in passing), course.points
    percent = 100.0 * done / total if total else 0.0
    _say(
        out,
        f"{len(passing)} of {len(course.functions)} functions pass their visible tests: "
        f"{points(done)} / {points(total)} points ({percent:.0f}%).",
    )


def _files(notebook: ExerciseNotebook, sources: dict[str, str]) -> list[str]:
    """The names of the files ``notebook``'s functions were checked in, in function order."""
    names = [Path(sources[f.name]).name for f in notebook.functions if f.name in sources]
    return list(dict.fromkeys(names))


def _shown_path(path: str) -> str:
    """``path`` relative to the working folder when it lies below it."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def _say(out: Console, line: str) -> None:
    """Print ``line`` as it is: no markup, and no line break the layout did not put there."""
    out.print(clean(line, limit=None), markup=False, soft_wrap=True)
