"""``check``: run the visible tests of a learner's notebooks, as grading runs them, and say
what passes.

The notebooks to check are named by file, each known by its cells whatever it is called,
or by chapter: a chapter (and ``--all``, every chapter) means that chapter's notebook under
``exercises/``, found by its cells and picked among copies by the rule grading uses (see
:mod:`autograder.load.handed_in`). Every line that names a notebook names the file checked.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from autograder.execute.run import Limits, start_zygote
from autograder.learner import progress
from autograder.load.book import released_book_links
from autograder.load.course import EXERCISES, Course, ExerciseNotebook
from autograder.load.handed_in import NotebookFile, read_copy
from autograder.load.learner_notebook import NotebookUnreadable, read_notebook
from autograder.load.names import closest
from autograder.load.stubs import nothing_started
from autograder.load.submissions import Submission, UnusableInput, learner_notebooks
from autograder.report import checking, console, formats
from autograder.report.linked import with_book_links
from autograder.report.model import StudentResult
from autograder.store import folder as store

Target = tuple[str, Path | None, str]
"""A chapter's id, the file to check for it (None: there is none, reported missing), and
how lines name that file: as given on the command line, or by its name when found under
``exercises/``."""


def check_notebooks(
    arguments: list[Path],
    every: bool,
    course: Course,
    limits: Limits,
    out: Console,
    lives_on: bool = False,
) -> int:
    """Check the notebooks ``arguments`` name (files or chapters), or ``every`` chapter's.

    ``lives_on``: this process goes on to the learner's next check (the warm checker), so
    it starts the zygote of a notebook it checks even where nothing in it runs yet (the
    learner is about to write a function there), and after checking one notebook, the
    zygote of the chapter after it (:func:`start_next_chapters_zygote`).

    Returns the exit code: 0 when every visible test passes, 1 otherwise. Raises
    :class:`UnusableInput` for an argument that names no notebook to check.
    """
    if every and arguments:
        raise UnusableInput("give notebooks or chapters to check, or --all, not both")
    if not every and not arguments:
        raise UnusableInput("give notebooks or chapters to check, or --all for every chapter")
    if every:
        targets, files = chapters_under_exercises(course, [n.id for n in course.notebooks])
    else:
        targets, files = named_notebooks(arguments, course)
    for found in files:
        if not found.graded:
            out.print(f"not checked: {shown(EXERCISES / found.path)} ({found.why})", markup=False)
    states = []
    checked = []
    for run in _runs(targets):
        result = _check_run(run, course, limits, lives_on)
        names = {course.notebook(chapter).filename: name for chapter, _, name in run}
        states += checking.notebook_states(result, names)
        checked.append((result, names))
        if os.environ.get("GITHUB_STEP_SUMMARY"):
            summary = checking.to_markdown(result, names, released_book_links())
            formats.append_text(Path(os.environ["GITHUB_STEP_SUMMARY"]), summary)
    # several notebooks: the table first, then only what is left to do in each
    several = len(states) > 1
    if several:
        console.print_check_summary(out, states)
    for result, names in checked:
        linked = with_book_links(result, released_book_links())
        console.print_feedback(out, linked, names, failed_only=several)
    out.print(checking.conclusion(states))
    if lives_on and len(targets) == 1 and targets[0][1] is not None:
        start_next_chapters_zygote(targets[0][0], targets[0][1], course, limits)
    return 0 if all(state.solved for state in states) else 1


def start_next_chapters_zygote(chapter: str, path: Path, course: Course, limits: Limits) -> None:
    """Start the zygote that a check of the chapter after ``chapter`` would use, its
    notebook being the file ``check`` last checked it from, else the one beside ``path``
    where the course keeps it (``exercises/ID/ID.ipynb``); nothing where there is none.

    A learner checks one notebook many times, then goes on to the next: the zygote starts
    (about 1 s of bubblewrap and importing JAX) while they read the feedback and edit, so
    their first check of the next notebook costs no more than the ones after it.
    """
    ids = [notebook.id for notebook in course.notebooks]
    if ids.index(chapter) + 1 == len(ids):
        return
    after = course.notebook(ids[ids.index(chapter) + 1])
    checked = progress.sources()
    recorded = [Path(checked[f.name]) for f in after.functions if f.name in checked]
    beside = path.resolve().parent.parent / after.id / after.filename
    found = next((file for file in [*recorded, beside] if file.is_file()), None)
    if found is not None:
        start_zygote(_run_limits({after.id: found}, course, limits))


def named_notebooks(
    arguments: list[Path], course: Course
) -> tuple[list[Target], list[NotebookFile]]:
    """The notebook each argument names: a file (its cells tell the chapter) or a chapter."""
    targets: list[Target] = []
    files: list[NotebookFile] = []
    ids = [notebook.id for notebook in course.notebooks]
    for argument in arguments:
        if not argument.exists() and str(argument) in ids:
            found, listed = chapters_under_exercises(course, [str(argument)])
            if found[0][1] is None:
                raise UnusableInput(f"no notebook of the {argument} exercise under {EXERCISES}")
            targets += found
            files += listed
        else:
            targets.append((_chapter_of_file(argument, course), argument, str(argument)))
    return targets, files


def chapters_under_exercises(
    course: Course, chapters: list[str]
) -> tuple[list[Target], list[NotebookFile]]:
    """Each chapter's notebook under ``exercises/``, whatever its name, and the notebook
    files found there, those set aside with why."""
    if not EXERCISES.is_dir():
        raise UnusableInput(f"{EXERCISES} does not exist: check from your copy of the course")
    submission = learner_notebooks(EXERCISES, course, chapters)
    files = [f for f in submission.files or [] if f.chapter in chapters]
    targets = []
    for chapter in chapters:
        path = submission.notebooks.get(chapter)
        name = course.notebook(chapter).filename if path is None else path.name
        targets.append((chapter, path, name))
    return targets, files


def _chapter_of_file(path: Path, course: Course) -> str:
    """The chapter of the notebook file ``path``, told by its cells."""
    ids = [notebook.id for notebook in course.notebooks]
    if path.is_dir():
        raise UnusableInput(f"{path} is a folder: give a notebook file or a chapter")
    if not path.exists():
        if path.suffix or len(path.parts) > 1:
            raise UnusableInput(f"{path}: no such file{_file_meant(path)}")
        close = closest(str(path), ids)
        guess = f"did you mean {close}?" if close else f"the chapters: {', '.join(ids)}"
        raise UnusableInput(f"{path} is neither a notebook file nor a chapter ({guess})")
    copy = read_copy(path, str(path), course)
    if copy.detail:
        raise UnusableInput(copy.detail)
    if copy.chapter is None:
        raise UnusableInput(
            f"{path.name} holds none of the course's test cells: is it one of the exercise "
            f"notebooks ({', '.join(ids)})?"
        )
    return copy.chapter


def _file_meant(path: Path) -> str:
    """`` (did you mean FILE?)``, naming the notebook in ``path``'s folder most like it."""
    try:
        near = [entry.name for entry in path.parent.glob("*.ipynb")]
    except OSError:
        return ""
    best = closest(path.name, near)
    return f" (did you mean {path.parent / best}?)" if best else ""


def _runs(targets: list[Target]) -> list[list[Target]]:
    """``targets`` in runs that hold each chapter once (one run grades one file a chapter)."""
    runs: list[list[Target]] = []
    for target in targets:
        run = next((r for r in runs if all(other[0] != target[0] for other in r)), None)
        if run is None:
            runs.append(run := [])
        run.append(target)
    return runs


def _check_run(
    run: list[Target], course: Course, limits: Limits, lives_on: bool = False
) -> StudentResult:
    """Grade one run's notebooks with the visible tests and record the progress."""
    notebooks = {chapter: path for chapter, path, _ in run}
    limits = _run_limits(notebooks, course, limits)
    started = any(_runs_code(path, course.notebook(chapter)) for chapter, path in notebooks.items())
    if started or (lives_on and any(path is not None for path in notebooks.values())):
        # The worker's zygote (bubblewrap, then importing JAX) starts before this process
        # imports pytest and JAX, so both run at once on two cores (0.1 s of CPU sooner);
        # grading would start the same zygote only once its pytest session runs.
        start_zygote(limits)
    from autograder.grade.submission import grade_submission

    # a learner's copy of the course has no reference solutions to time
    result = grade_submission(
        Submission("your notebooks", notebooks), course, limits, timed_reference=False
    )
    for notebook_id, path in notebooks.items():
        if path is not None:
            filename = course.notebook(notebook_id).filename
            passed = {
                e.name: e.status == "passed" if e.started else None
                for e in result.exercises
                if e.notebook == filename
            }
            progress.record(passed, str(path.resolve()))
    return result


def _run_limits(notebooks: dict[str, Path | None], course: Course, limits: Limits) -> Limits:
    """``limits`` for a check of ``notebooks``: what their zygote preloads, and their own
    compile store."""
    # Worth it for one learner's check (0.35 s of 2 for the libraries notebook), not for a
    # class: every grading process's zygotes would import them, most for no worker of theirs.
    preload = tuple(dict.fromkeys(m for n in notebooks for m in course.notebook(n).library_imports))
    # the learner's own code, on their own machine: what it compiles is kept for their next check
    own = store.learners_own([path for path in notebooks.values() if path is not None])
    return replace(limits, preload=preload, compile_store=own)


def _runs_code(path: Path | None, exercise: ExerciseNotebook) -> bool:
    """Whether grading the notebook at ``path`` runs its code: it is readable and has a
    function started."""
    if path is None:
        return False
    try:
        return not nothing_started(read_notebook(path), exercise)
    except NotebookUnreadable:
        return False


def shown(path: Path) -> str:
    """``path`` relative to the working folder when it lies below it, as given otherwise."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
