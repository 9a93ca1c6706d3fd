"""``python -m autograder``: grade, merge, insight; check, hint, status; generate, chapter,
release, collect, gradescope-bundle, gradescope-try.

Exit codes: 0 when the command did its job (whatever the score); 1 when
``grade --fail-under`` is not met or ``check`` finds a notebook that is not yet
solved; 2 for unusable arguments or unreadable input, with a one-line reason; 4 when
an output of ``grade`` or ``merge`` could not be written (every other one was).

In a learners' release (no ``solutions/`` folder) only ``check``, ``hint`` and ``status`` exist.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.execute.run import Limits
    from autograder.load.book import BookLinks
    from autograder.load.course import Course
    from autograder.report.insight.stats import ClassInsight
    from autograder.report.model import Report, StudentResult
    from autograder.store.folder import CompileStore

EXIT_NOT_ISOLATED = 3
"""grade's exit code when it refuses to run learner code as root without bubblewrap."""
EXIT_NOT_WRITTEN = 4
"""grade's and merge's exit code when an output could not be written (the others were)."""


def main(argv: list[str] | None = None, lives_on: bool = False) -> int:
    """Run the command ``argv`` names; its exit code. ``lives_on``: this process goes on
    to the next command (the warm checker), which ``check`` prepares for."""
    arguments = sys.argv[1:] if argv is None else argv
    if command_named(arguments) == "check":
        from autograder import warm

        if warm.wanted() and (code := warm.check_warm(arguments)) is not None:
            return code
    from autograder.load.course import SOLUTIONS

    parser = _parser(instructor=SOLUTIONS.is_dir(), command=command_named(arguments))
    args = parser.parse_args(arguments)
    args.lives_on = lives_on
    try:
        return args.run(args)
    except Exception as exc:
        if not isinstance(exc, _usage_errors()):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _usage_errors() -> tuple[type[Exception], ...]:
    """The errors that mean unusable arguments or input: one line, exit code 2."""
    from autograder.author.release import ReleaseError
    from autograder.load.course import CourseError
    from autograder.load.submissions import UnusableInput

    return UnusableInput, CourseError, ReleaseError


Arguments = Callable[[argparse.ArgumentParser], None]


def _commands(instructor: bool) -> dict[str, tuple[str, Arguments]]:
    """Each command: its one-line help, and the function that adds its arguments and the
    function that runs it; the instructor's only with the course's ``solutions/``."""
    instructors: dict[str, tuple[str, Arguments]] = {
        "grade": ("grade one notebook, one learner's folder, or a class", _grade_arguments),
        "merge": ("join the JSON reports of several shards into one", _merge_arguments),
        "insight": (
            "write a class's page: what to reteach, each function's results, hints, scores",
            _insight_arguments,
        ),
        "generate": (
            "make exercises/ from solutions/ with nbgrader generate_assignment, sealing "
            "each reference solution for solution() to reveal; a notebook with answers in it "
            "is left as it is",
            _generate_arguments,
        ),
        "chapter": (
            "derive a chapter's files from book/ID.md and solutions/ID/ID.ipynb, then check "
            "the course",
            _chapter_arguments,
        ),
        "release": (
            "write the learners' repository: exercises, visible tests, check workflow",
            _release_arguments,
        ),
        "collect": (
            "clone every learner's repository of a roster and copy their notebooks",
            _collect_arguments,
        ),
        "gradescope-bundle": (
            "package the grader and the course as a Gradescope autograder zip",
            _bundle_arguments,
        ),
        "gradescope-try": (
            "grade submissions with an autograder zip on this machine, as Gradescope would: "
            "its setup.sh (no system package installed) and run_autograder, in a temporary "
            "folder",
            _try_arguments,
        ),
    }
    learners: dict[str, tuple[str, Arguments]] = {
        "check": (
            "run the visible tests of your notebooks, with feedback and hints",
            _check_arguments,
        ),
        "hint": ("show the hints of a function opened so far, and one more", _hint_arguments),
        "status": ("show your progress through the exercises", _status_arguments),
    }
    return {**instructors, **learners} if instructor else learners


def _parser(instructor: bool, command: str | None = None) -> argparse.ArgumentParser:
    """The commands: all of them with the course's ``solutions/``, the learner's without.

    Only ``command``'s arguments are added: their defaults come from the modules that run
    the commands, and importing all of those for one command would cost a learner's
    ``status`` or ``check`` about a second (numpy, nbformat, pytest, JAX).
    """
    learner = "Check your exercise notebooks and see your progress."
    description = __doc__.split("\n\n")[0].replace("``", "") if instructor else learner
    parser = argparse.ArgumentParser(prog="python -m autograder", description=description)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    for name, (help_text, add_arguments) in _commands(instructor).items():
        subparser = commands.add_parser(name, help=help_text)
        if name == command:
            add_arguments(subparser)
    return parser


def command_named(arguments: list[str]) -> str | None:
    """The command the command line names: its first argument that is not an option."""
    return next((argument for argument in arguments if not argument.startswith("-")), None)


def _grade_arguments(parser: argparse.ArgumentParser) -> None:
    from autograder.grade.batch import default_cache_folder
    from autograder.learner.seeding import DEFAULT_SEED
    from autograder.store import folder as store

    parser.add_argument("path", type=Path, metavar="PATH")
    parser.add_argument(
        "--assignment", nargs="+", default=[], metavar="CHAPTER",
        help="grade only these chapters' notebooks, the class's assignment (default: the "
        "assignment folders of nbgrader's submitted/ layout, else every chapter)",
    )  # fmt: skip
    _add_outputs(parser)
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, metavar="N",
        help=f"seed of the hidden tests' generated inputs (default {DEFAULT_SEED})",
    )  # fmt: skip
    parser.add_argument(
        "--jobs", type=_positive_int, default=os.cpu_count() or 1, metavar="N",
        help="grade N notebooks at once (default: the number of cores)",
    )  # fmt: skip
    parser.add_argument(
        "--shard", type=_shard, metavar="K/N",
        help="grade only shard K of N of the class (for a CI matrix; see merge)",
    )  # fmt: skip
    parser.add_argument(
        "--cache-dir", type=Path, default=default_cache_folder(), metavar="DIR",
        help=f"where unchanged submissions' results are kept (default {default_cache_folder()})",
    )  # fmt: skip
    parser.add_argument(
        "--no-cache", action="store_true", help="grade every submission again, ignoring the cache"
    )
    parser.add_argument(
        "--compile-store", type=Path, default=store.default_folder(), metavar="DIR",
        help="where JAX operations compiled from the reference solutions are kept for the "
        f"workers to read (default {store.default_folder()})",
    )  # fmt: skip
    parser.add_argument(
        "--allow-unsandboxed", action="store_true",
        help="as root where bubblewrap cannot run, grade anyway, every result marked as not "
        "isolated (without it, grading refuses: learner code would run as root)",
    )  # fmt: skip
    _add_limits(parser)
    parser.set_defaults(run=_grade)


def _merge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", type=Path, nargs="+", metavar="REPORT")
    _add_outputs(parser)
    parser.set_defaults(run=_merge)


def _insight_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", type=Path, nargs="+", metavar="REPORT")
    parser.add_argument(
        "--html", type=Path, required=True, metavar="FILE", help="the page to write"
    )
    parser.add_argument(
        "--feedback", type=Path, metavar="DIR",
        help="the folder grade --feedback wrote: each learner's row links their file",
    )  # fmt: skip
    _add_page_options(parser)
    parser.set_defaults(run=_insight)


def _generate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="write every notebook, discarding the answers in any (left alone without it)",
    )
    parser.set_defaults(run=_generate)


def _chapter_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("chapter", metavar="ID")
    parser.add_argument(
        "--after", metavar="ID", help="the chapter it follows in _toc.yml (default: the last)"
    )
    parser.set_defaults(run=_chapter)


def _release_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT", help="a new or empty folder")
    parser.add_argument(
        "--book-url", type=_book_url, metavar="URL",
        help="the published book's address (its site's root): the notebooks and the "
        "checker's messages link its chapters and sections",
    )  # fmt: skip
    parser.add_argument(
        "--no-solutions", dest="solutions", action="store_false",
        help="ship no reference solutions: the notebooks hold no sealed solutions, and "
        "solution() says the release has none",
    )  # fmt: skip
    parser.add_argument(
        "--package-url", metavar="URL",
        help="where learners install the release's wheel from: its address (a release "
        "asset), or a folder or page linking it; each notebook then opens with a cell that "
        "installs it and the pinned libraries where they are missing",
    )  # fmt: skip
    parser.set_defaults(run=_release)


def _collect_arguments(parser: argparse.ArgumentParser) -> None:
    from autograder.author.collect import DEADLINE_CAVEAT, DEFAULT_TIMEOUT, MANIFEST

    parser.add_argument(
        "roster", type=Path, metavar="ROSTER",
        help="a CSV file with the columns learner and repository (a URL or git@...; a local "
        "path or file:// only with --allow-local)",
    )  # fmt: skip
    parser.add_argument(
        "--into", type=Path, default=Path("submissions"), metavar="DIR",
        help=f"where each learner's notebooks go, as DIR/<learner>/, with DIR/{MANIFEST} "
        "recording the commits (default submissions)",
    )  # fmt: skip
    parser.add_argument(
        "--deadline", type=_deadline, metavar="DATE",
        help="collect each learner's last commit dated before DATE (ISO 8601, e.g. "
        "2026-12-01T17:00+01:00; without an offset, this machine's local time). Note: "
        f"{DEADLINE_CAVEAT}",
    )  # fmt: skip
    parser.add_argument(
        "--allow-local", action="store_true",
        help="also collect repositories named by a local path or a file:// URL (without it "
        "they are refused: a learner naming one would get any repository this machine holds)",
    )  # fmt: skip
    parser.add_argument(
        "--clone-timeout", type=_positive, default=DEFAULT_TIMEOUT, metavar="SECONDS",
        help=f"stop a clone after this long (default {DEFAULT_TIMEOUT:g})",
    )  # fmt: skip
    parser.set_defaults(run=_collect)


def _bundle_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="ZIP")
    parser.add_argument(
        "--chapter", action="append", default=[], metavar="ID",
        help="grade only this chapter's notebook; repeat for several (default: every chapter)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-unsandboxed", action="store_true",
        help="grade where bubblewrap cannot run (as root), every result marked as not "
        "isolated; without it such a container refuses to grade",
    )  # fmt: skip
    parser.set_defaults(run=_gradescope_bundle)


def _try_arguments(dry_run: argparse.ArgumentParser) -> None:
    dry_run.add_argument("bundle", type=Path, metavar="ZIP", help="the zip gradescope-bundle wrote")
    dry_run.add_argument(
        "submissions", type=Path, nargs="+", metavar="SUBMISSION",
        help="a notebook, or a folder holding what a learner uploads; each is graded on its own",
    )  # fmt: skip
    dry_run.add_argument(
        "--keep", type=Path, metavar="DIR",
        help="lay out Gradescope's folders (source, submission, results) in DIR, a new or "
        "empty folder, and keep them",
    )  # fmt: skip
    dry_run.set_defaults(run=_gradescope_try)


def _check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "notebooks", type=Path, nargs="*", metavar="NOTEBOOK",
        help="a notebook file, whatever its name (its cells say which exercise it is), or a "
        "chapter's name (aux_data: that chapter's notebook under exercises/); several may be given",
    )  # fmt: skip
    parser.add_argument(
        "--all", action="store_true",
        help="check every chapter's notebook under exercises/, whatever its name, in chapter order",
    )  # fmt: skip
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run your notebook without bubblewrap (for your own machine; grading always uses it)",
    )
    _add_limits(parser)
    parser.set_defaults(run=_check)


def _hint_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("function", metavar="FUNCTION")
    parser.set_defaults(run=_hint)


def _status_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "chapter", nargs="?", metavar="CHAPTER",
        help="show this chapter's functions and the files they were checked in",
    )  # fmt: skip
    parser.set_defaults(run=_status)


def _add_outputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the full report as JSON")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown summary")
    parser.add_argument(
        "--feedback", type=Path, metavar="DIR",
        help="write each learner's feedback, to hand back, as DIR/<learner>.md",
    )  # fmt: skip
    parser.add_argument(
        "--csv", type=Path, metavar="FILE",
        help="write a grades.csv in the columns of nbgrader export",
    )  # fmt: skip
    parser.add_argument(
        "--gradebook", metavar="URL",
        help="write the scores into an nbgrader gradebook (e.g. sqlite:///gradebook.db)",
    )  # fmt: skip
    parser.add_argument(
        "--gradescope", type=Path, metavar="FILE",
        help="write Gradescope's results.json (the report must hold exactly one learner)",
    )  # fmt: skip
    parser.add_argument(
        "--fail-under", type=float, metavar="PERCENT", help="exit 1 below this score"
    )
    parser.add_argument(
        "--html", type=Path, metavar="FILE",
        help="write the class's page: what to reteach, each function's results, hints, scores",
    )  # fmt: skip
    _add_page_options(parser, feedback_files=True)


def _add_page_options(parser: argparse.ArgumentParser, feedback_files: bool = False) -> None:
    parser.add_argument(
        "--book-url", type=_book_url, metavar="URL",
        help="the published book's address (its site's root): "
        + ("feedback files and " if feedback_files else "")
        + "the class's page link the sections to reread (default for the page: the "
        "book built in _build/html)",
    )  # fmt: skip
    parser.add_argument(
        "--anonymise", action="store_true",
        help="on the class's page, show stable pseudonyms instead of the learners' names",
    )  # fmt: skip


def _shard(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    try:
        pair = int(index), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N, e.g. 2/4") from None
    if not 1 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: K must be between 1 and N")
    return pair


def _add_limits(parser: argparse.ArgumentParser) -> None:
    from autograder.execute.run import (
        CALL_FACTOR,
        CALL_FLOOR_SECONDS,
        UNMEASURED_CALL_SECONDS,
        Limits,
    )

    defaults = Limits()
    parser.add_argument(
        "--timeout", type=_positive, default=defaults.notebook_seconds, metavar="SECONDS",
        help=f"wall-clock limit to run one notebook (default {defaults.notebook_seconds:g})",
    )  # fmt: skip
    parser.add_argument(
        "--cell-timeout", type=_positive, default=defaults.cell_seconds, metavar="SECONDS",
        help=f"wall-clock limit for one cell (default {defaults.cell_seconds:g})",
    )  # fmt: skip
    parser.add_argument(
        "--call-timeout", type=_positive, default=None, metavar="SECONDS",
        help="a fixed wall-clock limit for every call of a function (default: grade gives "
        f"the larger of {CALL_FLOOR_SECONDS:g} s and {CALL_FACTOR:g} times the CPU time the "
        f"reference solution took on the same call; check gives {UNMEASURED_CALL_SECONDS:g} s)",
    )  # fmt: skip
    parser.add_argument(
        "--memory", type=_positive, default=defaults.memory_bytes / 2**20, metavar="MIB",
        help=f"address-space limit of the worker (default {defaults.memory_bytes // 2**20})",
    )  # fmt: skip
    parser.add_argument(
        "--processes", type=_positive_int, default=defaults.processes, metavar="N",
        help=f"processes and threads one worker may run (default {defaults.processes})",
    )  # fmt: skip


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0")
    return value


def _book_url(text: str) -> str:
    from autograder.load.book import book_url

    try:
        return book_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _deadline(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text).astimezone()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 date") from None


def _positive_int(text: str) -> int:
    value = _positive(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def _limits(args: argparse.Namespace) -> Limits:
    from autograder.execute.run import Limits

    return Limits(
        notebook_seconds=args.timeout,
        cell_seconds=args.cell_timeout,
        call_seconds=args.call_timeout,
        memory_bytes=int(args.memory * 2**20),
        processes=args.processes,
        sandbox=not getattr(args, "no_sandbox", False),
    )


def _grade(args: argparse.Namespace) -> int:
    from autograder.grade.batch import ResultCache, grade_all, shard
    from autograder.isolate import processes, seccomp
    from autograder.isolate.bubblewrap import BUBBLEWRAP, NOT_ISOLATED, isolation
    from autograder.load.course import SOLUTIONS, load_course
    from autograder.load.submissions import find_submissions
    from autograder.report import console
    from autograder.safe_text import clean_name
    from autograder.store import folder as store

    whole = load_course(SOLUTIONS)
    course = _assigned(whole, args)
    submissions = find_submissions(args.path, whole, [n.id for n in course.notebooks])
    if args.shard is not None:
        submissions = shard(submissions, *args.shard)
    _check_outputs(args)
    _check_learner_count(args, len(submissions))
    walls = isolation(sandbox=True)
    sandboxed = walls == BUBBLEWRAP
    if walls == NOT_ISOLATED and not args.allow_unsandboxed:
        print(
            "error: grading runs as root and bubblewrap cannot run here, so learner code would "
            "run as root with nothing around it: install bubblewrap (Debian's bubblewrap), "
            "grade as another user, or pass --allow-unsandboxed to grade with every result "
            "marked as not isolated",
            file=sys.stderr,
        )
        return EXIT_NOT_ISOLATED
    if not sandboxed:
        print(
            "note: bubblewrap is not available, so workers run as limited processes "
            "without a filesystem or network sandbox"
            + (": every result is marked as not isolated" if walls == NOT_ISOLATED else ""),
            file=sys.stderr,
        )
    elif not seccomp.available():
        print(
            "note: libseccomp cannot be loaded, so sandboxed workers may make every system call",
            file=sys.stderr,
        )
    if not processes.available():
        print(
            "note: workers' processes cannot be capped here (root without a writable "
            "pids cgroup); a fork bomb is stopped only by the time limits",
            file=sys.stderr,
        )
    limits = _limits(args)
    cache = None
    if not args.no_cache and sandboxed:
        # Without bubblewrap a worker could write into the cache folder itself.
        cache = ResultCache(args.cache_dir, course, limits, args.seed, say=_say)
    if sandboxed:
        unusable = store.keep_graders_own(args.compile_store / "grader")
        if unusable:
            _say(f"note: the grader's own compiled operations are not kept ({unusable})")
        learners = sum(1 for s in submissions if cache is None or cache.get(s) is None)
        limits = replace(limits, compile_store=_compile_store(course, args, limits, learners))
    notebooks = {clean_name(s.student): len(s.notebooks) for s in submissions}
    with console.BatchProgress(len(submissions), notebooks) as progress:
        report = grade_all(
            submissions, course, limits, args.seed, args.jobs, cache,
            on_graded=progress, on_notebook=progress.notebook_done,
        )  # fmt: skip
    return _write_outputs(args, report, course)


def _assigned(course: Course, args: argparse.Namespace) -> Course:
    """The chapters to grade: ``--assignment``'s, else nbgrader's layout's, else all."""
    from autograder.load.submissions import UnusableInput, nbgrader_assignments

    chosen = args.assignment or nbgrader_assignments(args.path, course)
    if not chosen:
        return course
    try:
        assigned = course.only(chosen)
    except KeyError as exc:
        ids = ", ".join(notebook.id for notebook in course.notebooks)
        raise UnusableInput(f"no chapter called {exc.args[0]} (the chapters: {ids})") from None
    where = "--assignment" if args.assignment else "the folders of nbgrader's submitted/"
    _say(f"note: grading {', '.join(n.id for n in assigned.notebooks)} (from {where})")
    return assigned


def _compile_store(
    course: Course, args: argparse.Namespace, limits: Limits, learners: int
) -> CompileStore | None:
    """The compile store, filled first when ``learners`` are enough to repay the filling."""
    from autograder.grade import fill_store

    fill = learners >= fill_store.WORTH_FILLING_FOR
    # Gradescope grades one learner in a fresh container, where the store is never worth
    # filling: a note on it would only open the instructor's log with the grader's jargon.
    say = _say if args.gradescope is None else (lambda line: None)
    return fill_store.prepare(course, args.compile_store, limits, args.seed, args.jobs, say, fill)


def _say(line: str) -> None:
    """A note on the console, apart from the report (standard error)."""
    print(line, file=sys.stderr)


def _merge(args: argparse.Namespace) -> int:
    from autograder.load.course import SOLUTIONS, load_course
    from autograder.report.model import read_reports

    _check_outputs(args)
    merged = read_reports(args.reports)
    _check_learner_count(args, len(merged.students))
    return _write_outputs(args, merged, load_course(SOLUTIONS))


def _insight(args: argparse.Namespace) -> int:
    # imported here, as in _write_page: Matplotlib takes a second to import, and only
    # the commands that write the class's page need it
    from autograder.report.insight.command import insight

    return insight(args.reports, args.html, args.book_url, args.feedback, args.anonymise)


def _check_outputs(args: argparse.Namespace) -> None:
    from autograder.load.submissions import UnusableInput

    for path in (args.json, args.junit, args.markdown, args.csv, args.gradescope, args.html):
        if path is not None and path.is_dir():
            raise UnusableInput(f"{path} is a folder; give a file name")
    if args.feedback is not None and args.feedback.is_file():
        raise UnusableInput(f"{args.feedback} is a file; --feedback takes a folder")


def _check_learner_count(args: argparse.Namespace, learners: int) -> None:
    """Refuse ``--gradescope`` before any work unless there is exactly one learner."""
    from autograder.load.submissions import UnusableInput

    if args.gradescope is not None and learners != 1:
        raise UnusableInput(
            f"--gradescope writes one learner's results, but there are {learners} here "
            "(Gradescope grades each submission on its own)"
        )


def _write_outputs(args: argparse.Namespace, report: Report, course: Course) -> int:
    """Write every output asked for, the JSON report first, each on its own: one that fails
    (any exception) is named on standard error and costs none of the others."""
    failed = [name for name, write in _outputs(args, report, course) if not _written(name, write)]
    if failed:
        print(f"error: not written: {', '.join(failed)}", file=sys.stderr)
        return EXIT_NOT_WRITTEN
    if args.fail_under is not None and report.percent < args.fail_under:
        print(
            f"score {report.percent:.1f}% is under --fail-under {args.fail_under:g}%",
            file=sys.stderr,
        )
        return 1
    return 0


def _outputs(
    args: argparse.Namespace, report: Report, course: Course
) -> Iterator[tuple[str, Callable[[], None]]]:
    """Each output asked for, named as the command line names it, with what writes it."""
    from autograder.load.book import book_links
    from autograder.report import console, feedback, formats
    from autograder.report.class_summary import markdown_summary
    from autograder.report.gradebook import write_gradebook
    from autograder.report.insight.stats import class_insight

    if args.json:
        yield f"--json {args.json}", lambda: formats.write_text(args.json, report.to_json())
    show = console.print_gradescope_log if args.gradescope else console.print_report
    yield "the console", lambda: show(console.console(), report)
    if args.junit:
        yield (
            f"--junit {args.junit}",
            lambda: formats.write_text(args.junit, formats.to_junit(report)),
        )
    if args.csv:
        yield f"--csv {args.csv}", lambda: formats.write_text(args.csv, formats.to_csv(report))
    if args.gradescope:
        yield (
            f"--gradescope {args.gradescope}",
            lambda: formats.write_text(args.gradescope, formats.to_gradescope(report)),
        )
    if args.feedback:
        links = functools.cache(lambda: book_links(args.book_url) if args.book_url else None)
        for student in report.students:
            path = args.feedback / feedback.feedback_filename(student.student)
            yield f"--feedback {path}", functools.partial(_write_feedback, path, student, links)
    if args.gradebook:
        yield (
            f"--gradebook {args.gradebook}",
            lambda: write_gradebook(report, course, args.gradebook),
        )
    # the class's numbers, worked out once for the page and the summary alike
    insight = functools.cache(
        lambda: class_insight(report, args.anonymise) if len(report.students) > 1 else None
    )
    if args.html:
        yield f"--html {args.html}", lambda: _write_page(args, report, insight())
    summary = functools.cache(lambda: markdown_summary(report, insight()))
    if args.markdown:
        yield f"--markdown {args.markdown}", lambda: formats.write_text(args.markdown, summary())
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        step_summary = Path(os.environ["GITHUB_STEP_SUMMARY"])
        yield "GitHub's job summary", lambda: formats.append_text(step_summary, summary())


def _written(name: str, write: Callable[[], None]) -> bool:
    """Run ``write``; when it raises, say so naming the output ``name``, and return False."""
    try:
        write()
    except OSError as exc:
        print(f"error: {name}: {exc.strerror or exc}", file=sys.stderr)
        return False
    except Exception:  # noqa: BLE001 - a bug in one writer must not cost the other outputs
        print(f"error: {name} failed:\n{traceback.format_exc()}", file=sys.stderr)
        return False
    return True


def _write_feedback(
    path: Path, student: StudentResult, links: Callable[[], BookLinks | None]
) -> None:
    from autograder.report import feedback, formats

    formats.write_text(path, feedback.to_feedback(student, links()))


def _write_page(args: argparse.Namespace, report: Report, insight: ClassInsight | None) -> None:
    from autograder.report.insight.command import write_page

    sources = [p.name for p in getattr(args, "reports", [])] or [str(args.path)]
    write_page(args.html, report, sources, args.book_url, args.feedback, args.anonymise, insight)


def _check(args: argparse.Namespace) -> int:
    from autograder.grade.check import check_notebooks
    from autograder.load.course import learner_course_folder, load_course
    from autograder.report import console

    course = load_course(learner_course_folder())
    return check_notebooks(
        args.notebooks, args.all, course, _limits(args), console.console(), args.lives_on
    )


def _hint(args: argparse.Namespace) -> int:
    from autograder.learner.feedback import hint as show_hint
    from autograder.load.course import learner_course_folder, load_course
    from autograder.load.names import no_such
    from autograder.load.submissions import UnusableInput

    course = load_course(learner_course_folder())
    try:
        course.function(args.function)
    except KeyError:
        names = [function.name for function in course.functions]
        otherwise = "python -m autograder status CHAPTER lists a chapter's functions"
        raise UnusableInput(no_such("exercise", args.function, names, otherwise)) from None
    show_hint(args.function)
    return 0


def _status(args: argparse.Namespace) -> int:
    from autograder.learner import progress
    from autograder.learner.status import chapter_named, print_chapter, print_progress
    from autograder.load.course import learner_course_folder, load_course
    from autograder.load.submissions import UnusableInput
    from autograder.report import console

    course = load_course(learner_course_folder())
    out, states, sources = console.console(), progress.load(), progress.sources()
    if args.chapter is None:
        print_progress(out, course, states, sources)
        return 0
    notebook = chapter_named(course, args.chapter)
    if isinstance(notebook, str):
        raise UnusableInput(notebook)
    print_chapter(out, notebook, states, sources)
    return 0


def _chapter(args: argparse.Namespace) -> int:
    from autograder.author.chapter import add_chapter

    written, problems = add_chapter(args.chapter, args.after)
    for line in written:
        print(f"wrote {line}")
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"{args.chapter} is complete: run ./course test")
    return 0


def _release(args: argparse.Namespace) -> int:
    from autograder.author.release import write_release

    written = write_release(args.out, args.book_url, args.solutions, _say, args.package_url)
    notebooks = sum(path.parts[0] == "exercises" for path in written)
    print(
        f"wrote {len(written)} files to {args.out}: {notebooks} exercise notebooks, the "
        "checker and its workflow; its README.md says how learners use it"
        + ("" if args.solutions else "; no reference solution is in it")
    )
    return 0


def _collect(args: argparse.Namespace) -> int:
    from autograder.author.collect import Caps, collect_class
    from autograder.load.course import SOLUTIONS, load_course

    chapters = [notebook.id for notebook in load_course(SOLUTIONS).notebooks]
    return collect_class(
        args.roster, args.into, deadline=args.deadline, timeout=args.clone_timeout,
        allow_local=args.allow_local, caps=Caps.for_course(len(chapters)),
        reserved=[*chapters, "exercises", "submitted"],
    )  # fmt: skip


def _gradescope_bundle(args: argparse.Namespace) -> int:
    from autograder.author.gradescope import write_bundle
    from autograder.safe_text import points

    notebooks = write_bundle(args.out, args.chapter, args.allow_unsandboxed)
    total = sum(notebook.points for notebook in notebooks)
    print(
        f"wrote {args.out}: grades {', '.join(n.filename for n in notebooks)}, "
        f"{points(total)} points (give the Gradescope assignment as many)"
    )
    return 0


def _gradescope_try(args: argparse.Namespace) -> int:
    from autograder.author.gradescope_try import try_bundle

    return try_bundle(args.bundle, args.submissions, args.keep)


def _generate(args: argparse.Namespace) -> int:
    from autograder.author.generate import update_exercises
    from autograder.author.seal import TooFewProbes
    from autograder.load.course import REPO_ROOT

    try:
        updated = update_exercises(force=args.force)
    except TooFewProbes as refused:
        print(f"error: {refused}", file=sys.stderr)
        return 1
    for path in updated.written:
        print(f"wrote {path.relative_to(REPO_ROOT)}")
    for path, answered in updated.left.items():
        print(
            f"left {path.relative_to(REPO_ROOT)} as it is: it has answers in it "
            f"({', '.join(answered)}); python -m autograder generate --force discards them",
            file=sys.stderr,
        )
    return 1 if updated.left else 0
