"""One learner's feedback file: what an instructor hands back, as nbgrader's feedback does.

Markdown, one file per learner: the score and what to do next, the chapters not
started in one line and the files not graded; then, per notebook started, each
function's result with every message its tests gave, the first hint where it did
not pass, and how many hints the notebook records as opened (that notebook's
functions not started in one line); then the notes on the submission. Names and
messages are escaped as in every Markdown the grader writes.
"""

from __future__ import annotations

import hashlib
import re

from autograder.compare.verdicts import MARKS
from autograder.load.book import BookLinks
from autograder.report.model import ExerciseResult, StudentResult
from autograder.report.text import markdown_cell
from autograder.safe_text import points

_UNSAFE_IN_FILENAMES = re.compile(r"[^\w.-]")


MAX_NAME = 100
"""Characters of a learner's name kept in their feedback file's name (a file system's
limit is 255 bytes)."""


def feedback_filename(student: str) -> str:
    """A file name for ``student``'s feedback: letters, digits, ``_``, ``-`` and ``.``, and
    one for each learner: a name that had to be changed or cut gets ``~`` and a digest
    of the whole name, so that ``a b``, ``a|b`` and ``a_b`` get three files."""
    name = _UNSAFE_IN_FILENAMES.sub("_", student).lstrip(".")
    if name == student and 0 < len(name.encode()) <= MAX_NAME:
        return f"{name}.md"
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{name[:MAX_NAME] or 'learner'}~{digest}.md"


def to_feedback(student: StudentResult, links: BookLinks | None = None) -> str:
    """``student``'s feedback, as Markdown; with ``links``, each section to reread is a link."""
    lines = [
        f"# Feedback for {markdown_cell(student.student)}",
        "",
        f"**{points(student.score)} / {points(student.max_score)}** points, "
        f"{student.passed} of {len(student.exercises)} functions passed every test.",
    ]
    lines += ["", f"**Next:** {markdown_cell(next_step(student))}"]
    if not_started := student.not_started_line():
        lines += ["", f"{MARKS['not-started']} {markdown_cell(not_started)}"]
    if files := student.files_summary():
        lines += ["", f"Files: {markdown_cell(files)}"]
    if damaged := markdown_cell(", ".join(student.damaged_notebooks())):
        lines += ["", f"{MARKS['corrupt']} Damaged, nothing in it ran (corrupt): {damaged}"]
    notebooks: dict[str, list[ExerciseResult]] = {}
    for exercise in student.exercises:
        notebooks.setdefault(exercise.notebook, []).append(exercise)
    for notebook, exercises in notebooks.items():
        shown = [e for e in exercises if e.started and e.status != "corrupt"]
        if not shown:
            continue  # said once above: the chapter not started, or its file not graded
        lines += ["", f"## {markdown_cell(notebook)}"]
        if waiting := ", ".join(f"`{e.name}`" for e in exercises if not e.started):
            lines += ["", f"{MARKS['not-started']} Not started: {markdown_cell(waiting)}"]
        for exercise in shown:
            lines += _exercise(exercise, links)
    if student.notes:
        lines += ["", "## Notes", ""]
        for note in student.notes:
            lines.append(f"- {markdown_cell(note.text)}")
    return "\n".join(lines) + "\n"


def _exercise(exercise: ExerciseResult, links: BookLinks | None) -> list[str]:
    """One function's part: its result, every message its tests gave, its hint."""
    mark = MARKS.get(exercise.status, "")
    score = f"{points(exercise.score)} / {points(exercise.max_score)}"
    body = []
    for test in exercise.tests:
        if test.message:
            body += _message(test.message, links)
    if exercise.hint:
        body.append(f"- Hint: {markdown_cell(exercise.hint)}")
    if exercise.hints_opened:
        body.append(f"- Hints opened, as the notebook records: {exercise.hints_opened}")
    return [
        "",
        f"### {mark} `{exercise.name}`: {score} ({exercise.status})",
        *([""] if body else []),
        *body,
    ]


def next_step(student: StudentResult) -> str:
    """What the learner should do next, in a sentence: hand in again a file that could not
    be graded, else work on the first function started that does not pass, else start the
    first chapter not started, else the first function not started."""
    unread = student.damaged_notebooks()
    if unread:
        return f"re-save or re-download {', '.join(unread)}, then hand it in again."
    failing = student.started_not_passed
    if failing:
        first = failing[0]
        return f"{first.name} in {first.notebook}: read its feedback below, then check it again."
    not_started = student.chapters_not_started()
    if not_started and student.passed:
        return f"start {not_started[0]}; everything started passes."
    if not_started:
        return f"start {not_started[0]}."
    untouched = [exercise for exercise in student.exercises if not exercise.started]
    if untouched:
        return f"start {untouched[0].name} in {untouched[0].notebook}."
    return "nothing: every function passed every test."


def _message(message: str, links: BookLinks | None) -> list[str]:
    """A test's message: its first line as a list item, the rest (a traceback) as code."""
    first, _, rest = message.strip().partition("\n")
    written = markdown_cell(first)
    lines = [f"- {links.markdown(written, markdown_cell) if links else written}"]
    if rest.strip():
        fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", rest)), default=0))
        lines += ["", f"  {fence}text", *(f"  {line}" for line in rest.splitlines()), f"  {fence}"]
    return lines
