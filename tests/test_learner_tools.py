"""What a learner uses while working: `check`, `status`, and `check`/`hint` in a notebook."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from autograder.author.seal import readable_solution, reference_namespace
from autograder.learner import sealing
from autograder.learner.probes import label, probe_results
from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS
from conftest import run_cli, write_variant


@pytest.fixture
def progress_env(tmp_path):
    return {**os.environ, "PYTREES_PROGRESS": str(tmp_path / "progress.json")}


def test_check_on_an_untouched_notebook_exits_1_and_says_not_started_without_hints(
    released_course, progress_env
):
    notebook = released_course.notebooks[0]
    done = run_cli("check", EXERCISES / notebook.id / notebook.filename, env=progress_env)
    assert done.returncode == 1
    for function in notebook.functions:
        assert f"NOT STARTED {function.name}" in done.stdout
    assert "Hint:" not in done.stdout and "not written yet" not in done.stdout


def test_check_on_a_solved_notebook_exits_0(released_course, progress_env, tmp_path):
    notebook = released_course.notebooks[0]
    solved = tmp_path / notebook.filename
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, solved)
    done = run_cli("check", solved, env=progress_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "All visible tests pass" in done.stdout


def test_check_runs_only_the_visible_tests(released_course):
    for function in released_course.functions:
        assert all(not test.hidden_lines for test in function.tests)
        assert all("HIDDEN" not in test.source for test in function.tests)


def test_status_shows_what_check_recorded(released_course, progress_env, tmp_path):
    notebook = released_course.notebooks[0]
    solved = tmp_path / notebook.filename
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, solved)
    assert run_cli("check", solved, env=progress_env).returncode == 0
    done = run_cli("status", env=progress_env)
    assert done.returncode == 0
    passed = len(notebook.functions)
    assert f"{passed} of {len(released_course.functions)} functions pass" in done.stdout
    for chapter in released_course.notebooks:
        assert chapter.id in done.stdout


def test_status_gives_one_row_per_chapter_that_fits_80_columns(
    released_course, progress_env, tmp_path
):
    notebook = released_course.notebooks[0]
    solved = tmp_path / f"{notebook.id}-Copy1.ipynb"
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, solved)
    assert run_cli("check", solved, env=progress_env).returncode == 0
    done = run_cli("status", env={**progress_env, "COLUMNS": "80"})
    lines = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), done.stdout
    rows = [
        line for line in lines if line.split()[:1] in ([n.id] for n in released_course.notebooks)
    ]
    assert len(rows) == len(released_course.notebooks)
    assert solved.name in rows[0] and f"{len(notebook.functions)} of" in rows[0]
    assert "Exercise:" not in done.stdout
    # as whole words: the chapter stacking is named, the mapping chapter's function stack not
    words = set(re.findall(r"\w+", done.stdout))
    assert not any(f.name in words for f in released_course.functions)


def test_status_of_a_chapter_shows_its_functions_and_the_file_each_was_checked_in(
    released_course, progress_env, tmp_path
):
    notebook, other = released_course.notebooks[:2]
    solved = tmp_path / f"{notebook.id}-Copy1.ipynb"
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, solved)
    assert run_cli("check", solved, env=progress_env).returncode == 0
    done = run_cli("status", notebook.id, env={**progress_env, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"Checked in {solved}:" in lines
    for function in notebook.functions:
        assert any(line.startswith(f"  ✅ PASS  {function.name} (") for line in lines)
    assert not any(f.name in done.stdout for f in other.functions)


def test_status_of_a_mistyped_chapter_suggests_the_closest(released_course, progress_env):
    chapter = released_course.notebooks[0].id
    done = run_cli("status", chapter[:-1], env=progress_env)
    assert done.returncode == 2
    assert done.stderr.strip().endswith(f"did you mean {chapter}?")


def test_status_before_any_check_shows_nothing_done(released_course, progress_env):
    done = run_cli("status", env=progress_env)
    assert done.returncode == 0
    assert f"0 of {len(released_course.functions)} functions pass" in done.stdout


def test_check_of_a_notebook_that_is_not_an_exercise_exits_2(tmp_path, progress_env):
    stray = tmp_path / "mine.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), stray)
    done = run_cli("check", stray, env=progress_env)
    assert done.returncode == 2
    assert "mine.ipynb holds none of the course's test cells" in done.stderr


def test_check_of_a_file_that_is_not_a_notebook_exits_2_naming_it(tmp_path, progress_env):
    stray = tmp_path / "mine.ipynb"
    stray.write_text("{}")
    done = run_cli("check", stray, env=progress_env)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: the notebook file mine.ipynb is damaged (it is JSON, but not a notebook: it "
        "holds no cells): re-save or re-download it"
    )


@pytest.mark.parametrize("name", ["{id}-Copy1.ipynb", "{id} (1).ipynb", "mine.ipynb"])
def test_check_takes_the_chapter_from_the_notebook_whatever_its_name(
    released_course, progress_env, tmp_path, name
):
    notebook = released_course.notebooks[0]
    copy = tmp_path / name.format(id=notebook.id)
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, copy)
    done = run_cli("check", copy, env=progress_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert notebook.functions[0].name in done.stdout


def test_check_takes_a_chapters_name(released_course, progress_env):
    notebook = released_course.notebooks[0]
    done = run_cli("check", notebook.id, env=progress_env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"NOT STARTED {notebook.functions[0].name}" in done.stdout


def test_progress_does_not_go_back_when_another_file_fails(released_course, progress_env, tmp_path):
    notebook = released_course.notebooks[0]
    solved = tmp_path / f"{notebook.id}-Copy1.ipynb"
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, solved)
    assert run_cli("check", solved, env=progress_env).returncode == 0
    assert run_cli("check", "--all", env=progress_env).returncode == 1
    done = run_cli("status", env={**progress_env, "COLUMNS": "300"})
    passed = len(notebook.functions)
    assert f"{passed} of {len(released_course.functions)} functions pass" in done.stdout
    assert solved.name in done.stdout


def test_progress_goes_back_when_the_same_file_fails(released_course, progress_env, tmp_path):
    notebook = released_course.notebooks[0]
    mine = tmp_path / notebook.filename
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, mine)
    assert run_cli("check", mine, env=progress_env).returncode == 0
    shutil.copy(EXERCISES / notebook.id / notebook.filename, mine)
    assert run_cli("check", mine, env=progress_env).returncode == 1
    done = run_cli("status", env=progress_env)
    assert f"0 of {len(released_course.functions)} functions pass" in done.stdout


def _kernel_like_run(code: str, env: dict[str, str]) -> str:
    """Run ``code`` as a learner's kernel would: the notebook's cells, one namespace."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_in_notebook_check_is_instant_once_jax_is_imported(course, progress_env):
    notebook = course.notebooks[0]  # light functions: what is timed is check() itself
    cells = "\n".join(
        textwrap.dedent(source) for source in [notebook.setup_source, *_solution_sources(notebook)]
    )
    name = notebook.functions[0].name
    code = cells + textwrap.dedent(f"""
        import time
        started = time.perf_counter()
        check({name!r})
        print(f"SECONDS={{time.perf_counter() - started:.3f}}")
    """)
    out = _kernel_like_run(code, progress_env)
    assert f"✅ PASS {name} passes its visible tests" in out
    seconds = float(out.split("SECONDS=")[1].split()[0])
    assert seconds < 0.5


def test_in_notebook_check_explains_a_failure_and_hints_unlock_one_at_a_time(
    released_course, progress_env
):
    function = released_course.notebooks[0].functions[0]
    notebook = released_course.notebooks[0]
    code = notebook.setup_source + textwrap.dedent(f"""
        def {function.name}(*args, **kwargs):
            raise NotImplementedError()
        check({function.name!r})
        hint({function.name!r})
        print("---")
        hint({function.name!r})
    """)
    out = _kernel_like_run(code, progress_env)
    first, second = out.split("---")
    assert f"❌ FAIL {function.name}: {function.name} is not written yet" in first
    assert "Hint 1/" in first and "Hint 2/" not in first
    assert "Hint 2/" in second


def test_check_shows_the_first_hint_for_a_function_that_raises(
    released_course, progress_env, tmp_path
):
    notebook = released_course.notebooks[0]
    function = notebook.functions[0]
    raising = f"def {function.name}(*args, **kwargs):\n    raise ValueError('no')\n"
    submission = write_variant(
        notebook.path, tmp_path / notebook.filename, {function.name: raising}
    )
    done = run_cli("check", submission, env=progress_env)
    assert f"{function.name} raised ValueError" in done.stdout
    assert f"Hint: {function.hints[0][:40]}" in " ".join(done.stdout.split())


def test_hints_go_on_where_a_restarted_kernel_left_them(released_course, progress_env):
    name = released_course.functions[0].name
    code = f"from autograder.learner.feedback import hint\nhint({name!r})"
    _kernel_like_run(code, progress_env)
    out = _kernel_like_run(code, progress_env)
    assert "Hint 1/" in out and "Hint 2/" in out


def test_a_hint_in_a_notebook_leaves_a_record_in_the_saved_output(
    released_course, progress_env, monkeypatch
):
    import IPython
    import IPython.display

    from autograder.learner import feedback as notebook

    shown = []
    monkeypatch.setenv("PYTREES_PROGRESS", progress_env["PYTREES_PROGRESS"])
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", lambda data, raw: shown.append(data))
    name = released_course.functions[0].name
    notebook.hint(name)
    notebook.hint(name)
    assert [data[notebook.HINT_RECORD] for data in shown] == [
        {"function": name, "opened": 1},
        {"function": name, "opened": 2},
    ]
    assert "Hint 2/" in shown[1]["text/plain"]


def test_check_with_no_name_checks_every_function_of_the_notebook(course, progress_env):
    notebook = course.notebooks[0]
    solved, *others = notebook.functions
    unsolved = "".join(
        f"def {f.name}(*args, **kwargs):\n    raise NotImplementedError()\n" for f in others
    )
    cells = [notebook.setup_source, *_solution_sources(notebook), unsolved, "check()"]
    out = _kernel_like_run("\n".join(textwrap.dedent(cell) for cell in cells), progress_env)
    lines = out.splitlines()
    assert f"✅ PASS {solved.name}" in lines
    for function in others:
        assert any(line.startswith(f"❌ FAIL {function.name}: ") for line in lines)
    assert len(lines) == len(notebook.functions) + 1
    assert lines[-1].startswith(f"1 of {len(notebook.functions)} functions of {notebook.id} pass")


def test_check_with_no_name_says_so_when_no_exercise_has_run(progress_env):
    out = _kernel_like_run("from autograder.notebook import check\ncheck()", progress_env)
    assert out.startswith("check() cannot tell which exercise this notebook is")


@pytest.mark.parametrize("helper", ["check", "hint", "solution"])
def test_a_mistyped_function_in_the_notebook_suggests_the_closest(
    released_course, progress_env, helper
):
    name = released_course.functions[0].name
    typo = name[:2] + name[3:]
    code = f"from autograder.notebook import {helper}\n{helper}({typo!r})"
    out = _kernel_like_run(code, progress_env)
    assert out.strip() == f"There is no exercise called {typo!r}: did you mean {name}?"


@pytest.mark.parametrize(
    "grader",
    [{"PYTREES_GRADING": "1"}, {"NBGRADER_EXECUTION": "autograde"}],
    ids=["this", "nbgrader"],
)
def test_check_and_hint_are_silent_while_grading(released_course, progress_env, grader):
    name = released_course.functions[0].name
    out = _kernel_like_run(
        f"from autograder.learner.feedback import check, hint\ncheck({name!r})\nhint({name!r})",
        {**progress_env, **grader},
    )
    assert out == ""
    assert not Path(progress_env["PYTREES_PROGRESS"]).exists(), "a grader's run recorded progress"


def test_status_is_silent_while_grading(progress_env):
    env = {**progress_env, "PYTREES_GRADING": "1"}
    assert _kernel_like_run("from autograder.notebook import status\nstatus()", env) == ""


def test_check_speaks_while_nbgrader_validates(released_course, progress_env):
    name = released_course.functions[0].name
    env = {**progress_env, "NBGRADER_EXECUTION": "validate"}
    out = _kernel_like_run(f"from autograder.learner.feedback import check\ncheck({name!r})", env)
    assert name in out


def _grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _solution_sources(notebook):
    nb = nbformat.read(notebook.path, as_version=4)
    return [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]


def test_a_solved_function_reveals_its_reference_solution(course, progress_env):
    notebook = course.notebooks[0]
    function = notebook.functions[0]
    code = "\n".join([notebook.setup_source, *_solution_sources(notebook)])
    out = _kernel_like_run(code + f"\nsolution({function.name!r})", progress_env)
    assert f"📖 The reference solution of {function.name}" in out
    assert "### BEGIN SOLUTION" not in out
    assert f"def {function.name}(" in out


def test_an_unsolved_function_cannot_reveal_its_reference_solution(released_course, progress_env):
    notebook = released_course.notebooks[0]
    function = notebook.functions[0]
    wrong = f"def {function.name}(*args, **kwargs):\n    return 0\n"
    code = f"{notebook.setup_source}\n{wrong}solution({function.name!r})"
    out = _kernel_like_run(code, progress_env)
    assert "🔒" in out and "def " not in out


def test_no_reference_solution_is_readable_in_the_exercise_notebooks(released_course, course):
    for notebook in released_course.notebooks:
        # Hints live in the metadata and may come close to the answer on purpose:
        # what the learner must not read is the solution code in the cells.
        cells = nbformat.read(notebook.released_path, as_version=4).cells
        text = "\n".join(cell.source for cell in cells)
        for function in course.notebook(notebook.id).functions:
            secret = [line for line in _solution_region(function.source) if len(line) > 12]
            assert secret, function.name
            assert not any(line in text for line in secret), function.name


def test_a_seal_opens_with_the_key_of_what_its_reference_answers(course, released_course):
    # One chapter, opened here by hand: every chapter's seals are compared with those its
    # references make now by the course's checks (test_course), from the author's cache.
    for notebook in course.notebooks[:1]:
        namespace = reference_namespace(notebook)
        released = {f.name: f for f in released_course.notebook(notebook.id).functions}
        for function in (f for f in notebook.functions if not f.answered_by):
            assert len(function.probes) >= 2, function.name
            key = sealing.fingerprint(label(function), probe_results(function, namespace))
            sealed = released[function.name].sealed
            assert sealing.unseal(sealed, key) == readable_solution(function.source), (
                f"{function.name}: the seal is stale; run python -m autograder generate"
            )


def test_the_course_source_holds_no_seal(course):
    assert [f.name for f in course.functions if f.sealed] == []


def _solution_region(source: str) -> list[str]:
    """The stripped lines between nbgrader's solution markers: what the learner must not see."""
    region = source.split("### BEGIN SOLUTION", 1)[1].split("### END SOLUTION", 1)[0]
    return [line.strip() for line in region.splitlines() if line.strip()]


def test_hint_from_the_terminal_opens_one_more_hint_each_time(released_course, progress_env):
    function = next(f for f in released_course.functions if len(f.hints) >= 2)
    first = run_cli("hint", function.name, env=progress_env)
    second = run_cli("hint", function.name, env=progress_env)
    assert first.returncode == second.returncode == 0
    assert f"Hint 1/{len(function.hints)}" in first.stdout and "Hint 2/" not in first.stdout
    assert f"Hint 2/{len(function.hints)}" in second.stdout


@pytest.mark.parametrize("sealed", [True, False], ids=["sealed", "not-shipped"])
def test_the_last_hint_names_solution_only_where_a_reference_solution_ships(
    released_course, progress_env, sealed
):
    function = next(f for f in released_course.functions if bool(f.sealed) == sealed and f.hints)
    for _ in function.hints:
        done = run_cli("hint", function.name, env=progress_env)
    assert "That was the last hint" in done.stdout
    assert ("solution(" in done.stdout) == sealed


def test_hint_of_an_unknown_function_exits_2_naming_it(progress_env):
    done = run_cli("hint", "no_such_function", env=progress_env)
    assert done.returncode == 2 and "no_such_function" in done.stderr


def test_hint_of_a_mistyped_function_suggests_the_closest_not_every_name(
    released_course, progress_env
):
    name = released_course.functions[0].name
    typo = name[:2] + name[3:]
    done = run_cli("hint", typo, env=progress_env)
    assert done.returncode == 2
    assert (
        done.stderr.strip() == f"error: there is no exercise called {typo!r}: did you mean {name}?"
    )


def test_check_says_pass_and_fail_in_words_beside_the_marks(
    released_course, progress_env, tmp_path
):
    notebook = released_course.notebooks[0]
    solved, *others = notebook.functions
    reference = nbformat.read(SOLUTIONS / notebook.id / notebook.filename, as_version=4)
    answer = next(c.source for c in reference.cells if _grade_id(c) == solved.name)
    wrong = {f.name: f"def {f.name}(*args, **kwargs):\n    return None" for f in others}
    copy = write_variant(
        notebook.path, tmp_path / notebook.filename, {solved.name: answer, **wrong}
    )
    done = run_cli("check", copy, env=progress_env)
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"✅ PASS {solved.name} (") for line in lines), done.stdout
    for function in others:
        assert any(line.startswith(f"❌ FAIL {function.name} (") for line in lines)


def _checked_entries(env: dict[str, str]) -> dict[str, set[str]]:
    """Each of the learner's own compile caches, with the compiled entries it holds."""
    root = Path(env["XDG_CACHE_HOME"]) / "pytrees-hands-on" / "checked"
    return {f.name: {p.name for p in f.glob("*/*-cache")} for f in root.iterdir()}


@pytest.mark.parametrize("sandbox", ["bubblewrap", "--no-sandbox"])
def test_a_second_check_of_a_notebook_loads_what_the_first_compiled(tmp_path, sandbox):
    from autograder.isolate import bubblewrap

    if sandbox == "bubblewrap" and bubblewrap.bubblewrap() is None:
        pytest.skip("bubblewrap is not installed")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env["PYTREES_PROGRESS"] = str(tmp_path / "progress.json")
    notebook = shutil.copy(SOLUTIONS / "mapping" / "mapping.ipynb", tmp_path / "mine.ipynb")
    words = ["check", notebook] + ([sandbox] if sandbox.startswith("--") else [])
    assert run_cli(*words, env=env).returncode == 0
    ((folder, first),) = _checked_entries(env).items()
    assert first, "the first check kept nothing it compiled"
    assert run_cli(*words, env=env).returncode == 0
    assert _checked_entries(env) == {folder: first}  # the second compiled nothing new


def test_checks_of_different_files_keep_separate_caches(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env["PYTREES_PROGRESS"] = str(tmp_path / "progress.json")
    for name in ("mine.ipynb", "someone_elses.ipynb"):
        shutil.copy(SOLUTIONS / "leaves" / "leaves.ipynb", tmp_path / name)
        assert run_cli("check", tmp_path / name, env=env).returncode == 0
    assert len(_checked_entries(env)) == 2
