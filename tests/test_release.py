"""``python -m autograder release OUT``: the learners' repository, and its check run there."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from packaging.utils import canonicalize_name
from test_requirements import imported_modules

from autograder.author import checks
from autograder.author.first_cell import first_cell
from autograder.author.release import (
    REQUIREMENTS,
    ReleaseError,
    checker_dependencies,
    learner_requirements,
    read_requirements,
    released_notebook,
    require_current,
    require_no_markers,
    write_release,
)
from autograder.load.course import (
    EXERCISES,
    REPO_ROOT,
    SOLUTIONS,
    Course,
    load_course,
    load_notebook,
)
from autograder.load.install_cell import is_install_cell
from autograder.load.learner_notebook import to_python
from autograder.load.submissions import find_submissions
from autograder.report.text import markdown_cell
from conftest import run_cli, write_variant
from misconceptions.leaves import CASES as LEAVES_CASES

# Shorter lines ("return out", "node = out") are what any code is made of, and so are
# a block's opening lines ("except Exception:", "if r.random() < 0.5:").
SIGNIFICANT = 16
REGION = re.compile(
    r"^[ \t]*### BEGIN (SOLUTION|HIDDEN TESTS)[^\n]*\n(.*?)^[ \t]*### END \1[^\n]*$", re.M | re.S
)


def _regions(source: str, kind: str) -> list[str]:
    return [body for found, body in REGION.findall(source) if found == kind]


def _public_text(notebooks: list[nbformat.NotebookNode]) -> str:
    """What the course shows learners anyway: every cell without its regions, and the hints."""
    parts = []
    for nb in notebooks:
        for cell in nb.cells:
            parts.append(REGION.sub("", cell.source))
            parts.extend(cell.metadata.get("course", {}).get("hints", []))
    return "\n".join(parts)


def _secrets(folder: Path) -> set[str]:
    """Each solution region and hidden test of ``folder``'s notebooks, whole, and each of
    their significant lines that the course does not show learners elsewhere."""
    notebooks = [nbformat.read(path, as_version=4) for path in sorted(folder.glob("*/*.ipynb"))]
    public = _public_text(notebooks)
    secrets = set()
    for nb in notebooks:
        for cell in nb.cells:
            for kind in ("SOLUTION", "HIDDEN TESTS"):
                for body in _regions(cell.source, kind):
                    lines = {line.strip() for line in body.splitlines()}
                    significant = {
                        s for s in lines if len(s) >= SIGNIFICANT and not s.endswith(":")
                    }
                    secrets |= {s for s in {body.strip(), *significant} if s not in public}
    return secrets


def _strings(value: object) -> Iterator[str]:
    """Every string in decoded JSON; a list of strings (a cell's source) also joined."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        if value and all(isinstance(item, str) for item in value):
            yield "".join(value)
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _searchable(path: Path) -> str:
    """The file as stored and, for JSON such as a notebook, its strings as written."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    try:
        return text + "\n" + "\n".join(_strings(json.loads(text)))
    except ValueError:
        return text


def _found(folder: Path, secrets: set[str]) -> list[tuple[str, str]]:
    texts = {path: _searchable(path) for path in sorted(folder.rglob("*")) if path.is_file()}
    return [
        (str(path.relative_to(folder)), secret)
        for path, text in texts.items()
        for secret in secrets
        if secret in text
    ]


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """A release as ``write_release`` makes it with no options, made once for the module's
    tests: each gets its own copy (``_released``), which it may change."""
    out = tmp_path_factory.mktemp("release") / "learners"
    write_release(out)
    return out


def _released(release: Path, tmp: Path) -> Path:
    """A copy of ``release`` in ``tmp``, as a learner's repository of its own."""
    out = tmp / "learners"
    shutil.copytree(release, out, symlinks=True)
    return out


def _run_released(
    out: Path, *args: str, timeout: float = 600, columns: int | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m autograder ARGS`` as a learner runs it: from OUT, with nothing of this repo."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("PYTHONPATH", "PYTREES_PROGRESS")
    }
    env["GITHUB_STEP_SUMMARY"] = str(out.parent / "summary.md")
    if columns is not None:
        env["COLUMNS"] = str(columns)  # rich wraps at this width
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=out,
        env=env,
        timeout=timeout,
    )


def _check_all(out: Path) -> subprocess.CompletedProcess[str]:
    where = _run_released(out, "-c", "import autograder; print(autograder.__file__)")
    assert where.stdout.strip() == str(out / "autograder" / "__init__.py"), where.stderr
    return _run_released(out, "-m", "autograder", "check", "--all")


@pytest.fixture(scope="module")
def untouched(release, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A fresh release, and its check of the exercises as released."""
    out = _released(release, tmp_path_factory.mktemp("untouched"))
    return out, _check_all(out)


def test_release_ships_the_exercise_notebooks_as_they_are_but_for_the_books_link(
    release, tmp_path, released_course
):
    out = _released(release, tmp_path)
    shipped = sorted(p.relative_to(out) for p in (out / "exercises").rglob("*") if p.is_file())
    expected = [n.path.relative_to(REPO_ROOT) for n in released_course.notebooks]
    assert shipped == sorted(expected)
    for notebook in released_course.notebooks:
        original = notebook.path.read_text(encoding="utf-8")
        [title] = re.findall(rf"\[([^\]\[\n\"]+)\]\(\.\./\.\./book/{notebook.id}\.md\)", original)
        unlinked = original.replace(
            f"[{title}](../../book/{notebook.id}.md)", f"*{title}* (in your course's book)"
        )
        assert (out / notebook.path.relative_to(REPO_ROOT)).read_text(encoding="utf-8") == unlinked


BOOK_URL = "https://course.example.org/pytrees"


def _texts(out: Path) -> dict[Path, str]:
    """The notebooks and Markdown files of a release, by path."""
    return {
        path: path.read_text(encoding="utf-8")
        for path in sorted(out.rglob("*"))
        if path.suffix in (".ipynb", ".md")
    }


def test_release_with_a_book_url_links_each_chapter_in_the_published_book(
    tmp_path, released_course
):
    out = tmp_path / "learners"
    write_release(out, BOOK_URL + "/")
    texts = _texts(out)
    assert not [path for path, text in texts.items() if "../../book/" in text]
    for notebook in released_course.notebooks:
        for copy in (out / "exercises", out / "autograder" / "course"):
            text = texts[copy / notebook.id / notebook.filename]
            assert f"]({BOOK_URL}/book/{notebook.id}.html)" in text
    assert f"The course's book is at <{BOOK_URL}/>" in texts[out / "README.md"]
    links = json.loads((out / "autograder" / "course" / "book.json").read_text())
    assert links["sections"]["Leaves → Flattening order"] == (
        f"{BOOK_URL}/book/leaves.html#flattening-order"
    )


def test_release_without_a_book_url_leaves_no_dead_link_to_the_book(release, tmp_path):
    out = _released(release, tmp_path)
    texts = _texts(out)
    assert not [path for path, text in texts.items() if "../../book/" in text]
    leaves = texts[out / "exercises" / "leaves" / "leaves.ipynb"]
    assert "Practise what the chapter *Leaves* (in your course's book) teaches" in leaves
    assert not (out / "autograder" / "course" / "book.json").exists()


PACKAGE_URL = "https://github.com/someone/course/releases/download/v1/course-1-py3-none-any.whl"


def test_release_with_a_package_url_opens_each_notebook_with_the_install_cell(
    tmp_path, released_course
):
    out = tmp_path / "learners"
    write_release(out, package_url=PACKAGE_URL)
    pins = (out / "requirements.txt").read_text(encoding="utf-8")
    for notebook in released_course.notebooks:
        copies = [out / "exercises", out / "autograder" / "course"]
        texts = {(copy / notebook.id / notebook.filename).read_text() for copy in copies}
        [text] = texts
        nb = nbformat.reads(text, as_version=4)
        assert nb.cells[0] == first_cell(PACKAGE_URL, pins)
        assert is_install_cell(nb.cells[0].source)
        original = nbformat.read(notebook.path, as_version=4)
        assert [cell.source for cell in nb.cells[2:]] == [
            cell.source for cell in original.cells[1:]
        ]


def test_the_install_cell_pins_the_releases_requirements_and_installs_the_wheel_it_names(
    tmp_path,
):
    out = tmp_path / "learners"
    write_release(out, package_url=PACKAGE_URL)
    source = (
        nbformat.read(out / "exercises" / "leaves" / "leaves.ipynb", as_version=4).cells[0].source
    )
    pins = [line for line in (out / "requirements.txt").read_text().splitlines() if "==" in line]
    assert f"{PACKAGE_URL!r}" in source and f"{pins!r}" in source


def test_release_refuses_a_link_to_the_book_it_cannot_rewrite():
    with pytest.raises(ReleaseError, match="links to ../../book/ in a way release cannot"):
        released_notebook(Path("x.ipynb"), "see [the index](../../book/)", BOOK_URL)


def test_released_check_links_the_section_to_reread(tmp_path):
    out = tmp_path / "learners"
    write_release(out, BOOK_URL)
    notebook = out / "exercises" / "leaves" / "leaves.ipynb"
    case = next(
        c
        for c in LEAVES_CASES
        if c["function"] == "is_leaf_type" and c["teaches"] == "Reread Leaves → None is a node"
    )
    write_variant(notebook, notebook, {"is_leaf_type": case["source"]})
    done = _run_released(
        out, "-m", "autograder", "check", "exercises/leaves/leaves.ipynb", columns=400
    )
    assert done.returncode == 1, done.stdout + done.stderr
    address = f"{BOOK_URL}/book/leaves.html#none-is-a-node"
    assert f"Reread Leaves → None is a node ({address})." in done.stdout
    summary = (out.parent / "summary.md").read_text(encoding="utf-8")
    assert f"Reread [Leaves → None is a node]({address})." in summary


def test_release_holds_no_solution_region_and_no_hidden_test(release, tmp_path):
    secrets = _secrets(SOLUTIONS)
    # The search itself must work: it finds them in the course's own notebooks.
    assert len(secrets) > 100 and _found(SOLUTIONS, secrets)
    out = _released(release, tmp_path)
    assert not (out / "solutions").exists()
    assert _found(out, secrets) == []


def test_release_refuses_a_folder_that_is_not_empty(tmp_path):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    done = run_cli("release", out)
    assert done.returncode == 2
    assert (
        done.stderr.strip() == f"error: {out} exists and is not empty; give a new or empty folder"
    )
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_release_refuses_a_notebook_that_still_holds_a_solution_region():
    path = SOLUTIONS / "leaves" / "leaves.ipynb"
    with pytest.raises(ReleaseError, match="### BEGIN SOLUTION"):
        require_no_markers(path, path.read_text(encoding="utf-8"))


def _older_hint(nb: nbformat.NotebookNode) -> None:
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    cell.metadata["course"]["hints"] = ["an older hint"]


def test_release_refuses_exercises_out_of_date_with_solutions(course, released_course, tmp_path):
    require_current(released_course, course)
    stale = _with_first_notebook(released_course, tmp_path, _older_hint)
    with pytest.raises(ReleaseError, match=f"exercises/{stale.notebooks[0].id} is out of date"):
        require_current(stale, course)


def _with_first_notebook(released: Course, tmp_path: Path, edit) -> Course:
    """``released`` with its first notebook replaced by a copy that ``edit`` changed."""
    first = released.notebooks[0]
    nb = nbformat.read(first.path, as_version=4)
    edit(nb)
    path = tmp_path / first.id / first.filename
    path.parent.mkdir()
    nbformat.write(nb, path)
    return Course((load_notebook(path), *released.notebooks[1:]))


def _answer(nb: nbformat.NotebookNode) -> None:
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    cell.source = cell.source.replace("raise NotImplementedError()", "return 0")


def test_release_tells_a_notebook_with_answers_what_to_do_about_them(
    course, released_course, tmp_path
):
    answered = _with_first_notebook(released_course, tmp_path, _answer)
    first = answered.notebooks[0]
    with pytest.raises(ReleaseError) as refused:
        require_current(answered, course)
    assert (
        f"exercises/{first.id}/{first.filename} has answers in it ({first.functions[0].name}): "
        "release from a clean clone, or run python -m autograder generate --force to discard them"
    ) in str(refused.value).splitlines()[1]
    assert "out of date" not in str(refused.value)


def test_release_names_a_stale_notebook_without_running_any_reference_solution(
    course, released_course, tmp_path, monkeypatch
):
    def refused(*_):
        raise AssertionError("ran the reference solutions")

    monkeypatch.setattr(checks, "stale_seals", refused)
    stale = _with_first_notebook(released_course, tmp_path, _older_hint)
    with pytest.raises(ReleaseError, match=f"exercises/{stale.notebooks[0].id} is out of date"):
        require_current(stale, course)


def test_release_says_each_chapter_whose_seals_it_checks_by_running_its_solutions(
    course, released_course, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    leaves = Course((released_course.notebook("leaves"),))
    said = []
    require_current(leaves, Course((course.notebook("leaves"),)), said.append)
    assert said == ["checking the seals of exercises/leaves: running its reference solutions"]
    said.clear()
    require_current(leaves, Course((course.notebook("leaves"),)), said.append)
    assert said == []


def _released_notebooks() -> dict[Path, str]:
    """The exercise notebooks a release ships, by their path in it."""
    return {
        n.path.relative_to(REPO_ROOT): n.path.read_text(encoding="utf-8")
        for n in load_course(EXERCISES).notebooks
    }


def _requirement_names(requirements: str) -> set[str]:
    return {line.split("==")[0] for line in requirements.splitlines() if "==" in line}


def test_release_pins_the_learners_requirements_as_the_course_does():
    course_lines = set(read_requirements(REQUIREMENTS).splitlines())
    pinned = learner_requirements("\n".join(course_lines), _released_notebooks()).splitlines()
    assert set(pinned[1:]) <= course_lines
    assert _requirement_names("\n".join(pinned)) >= {"jax", "jaxlib", "nbformat", "jupyterlab"}
    with pytest.raises(ReleaseError, match="depends on jax, which requirements.txt does not pin"):
        learner_requirements("numpy==2.4.6\n", {})


def test_the_learners_requirements_provide_every_module_a_released_notebook_imports():
    notebooks = _released_notebooks()
    requirements = learner_requirements(read_requirements(REQUIREMENTS), notebooks)
    names = _requirement_names(requirements)
    providers = importlib.metadata.packages_distributions()
    for path, text in notebooks.items():
        for cell in nbformat.reads(text, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for module in imported_modules(to_python(cell.source)) - {"autograder"}:
                provided = {canonicalize_name(d) for d in providers.get(module, ())}
                assert provided & names, f"{path} imports {module}, which {names} lacks"


def test_a_notebook_importing_a_module_the_course_does_not_pin_is_refused_naming_both():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import scipy.linalg")])
    path = Path("exercises", "extra", "extra.ipynb")
    with pytest.raises(ReleaseError, match=r"exercises/extra/extra.ipynb imports scipy, and req"):
        learner_requirements(read_requirements(REQUIREMENTS), {path: nbformat.writes(nb)})


def test_the_learners_requirements_bring_no_nbgrader_instructor_tools():
    course = read_requirements(REQUIREMENTS)
    assert "nbgrader" not in _requirement_names(learner_requirements(course, _released_notebooks()))


def test_reading_requirements_follows_their_includes(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "grading.txt").write_text("jax==0.10.2\n-r more.txt\n")
    (tmp_path / "tools" / "more.txt").write_text("numpy==2.4.6\n")
    course = tmp_path / "requirements.txt"
    course.write_text("# pins\n-r tools/grading.txt  # the grader's\nruff==0.17.6\n")
    assert read_requirements(course) == "# pins\njax==0.10.2\nnumpy==2.4.6\nruff==0.17.6\n"
    course.write_text("--requirement=absent.txt\n")
    with pytest.raises(ReleaseError, match="includes absent.txt"):
        read_requirements(course)


def test_released_check_reports_untouched_exercises_as_not_started(untouched, released_course):
    out, done = untouched
    assert done.returncode == 1, done.stdout + done.stderr
    for notebook in released_course.notebooks:
        assert re.search(rf"{notebook.filename}\s.*not started", done.stdout)
    first = released_course.notebooks[0].filename
    assert f"Not started: {first}, " in done.stdout
    assert "not yet solved" not in done.stdout and "not written yet" not in done.stdout


def test_released_check_writes_its_table_to_the_job_summary(untouched, released_course):
    out, _ = untouched
    summary = (out.parent / "summary.md").read_text(encoding="utf-8")
    assert f"**0 of {len(released_course.notebooks)}** notebook(s) solved" in summary
    for notebook in released_course.notebooks:
        name = markdown_cell(notebook.filename)
        assert f"| {name} | 0 / {len(notebook.functions)} | ⏸️ not started |" in summary


def test_released_status_lists_the_chapters_in_reading_order(untouched, released_course):
    out, _ = untouched
    done = _run_released(out, "-m", "autograder", "status")
    assert done.returncode == 0, done.stderr
    # released_course is in the book's order, which is not the alphabetical one.
    ids = [n.id for n in released_course.notebooks]
    assert ids != sorted(ids)
    rows = [
        line.split()[0]
        for line in done.stdout.splitlines()
        if line.split()[:1] in [[i] for i in ids]
    ]
    assert rows == ids


def test_released_cli_offers_only_check_hint_and_status(untouched):
    out, _ = untouched
    done = _run_released(out, "-m", "autograder", "grade", "exercises")
    assert done.returncode == 2
    assert "invalid choice: 'grade' (choose from 'check', 'hint', 'status')" in done.stderr


def test_released_check_passes_with_the_solution_notebooks_copied_in(release, tmp_path, course):
    out = _released(release, tmp_path)
    for notebook in course.notebooks:
        shutil.copy(notebook.path, out / "exercises" / notebook.id / notebook.filename)
    done = _check_all(out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"All visible tests pass, in all {len(course.notebooks)} notebooks." in done.stdout
    assert "not yet solved" not in done.stdout


def test_released_check_ignores_an_edited_test_cell(release, tmp_path):
    out = _released(release, tmp_path)
    notebook = out / "exercises" / "leaves" / "leaves.ipynb"
    write_variant(notebook, notebook, {"test_count_leaves": "pass"})
    done = _run_released(out, "-m", "autograder", "check", "exercises/leaves/leaves.ipynb")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "NOT STARTED count_leaves" in done.stdout
    assert "the locked cell test_count_leaves was changed" in " ".join(done.stdout.split())


def test_grading_a_class_of_learners_repositories_takes_their_exercises(release, tmp_path, course):
    for student in ("alice", "bob"):
        shutil.copytree(release, tmp_path / "class" / student, symlinks=True)
    submissions = find_submissions(tmp_path / "class", course)
    assert [s.student for s in submissions] == ["alice", "bob"]
    for submission in submissions:
        expected = {
            n.id: tmp_path / "class" / submission.student / "exercises" / n.id / n.filename
            for n in course.notebooks
        }
        assert submission.notebooks == expected
        assert submission.notes == []


def test_grading_one_learners_repository_takes_its_exercises(release, tmp_path, course):
    out = _released(release, tmp_path)
    [submission] = find_submissions(out, course)
    assert submission.notebooks == {
        n.id: out / "exercises" / n.id / n.filename for n in course.notebooks
    }
    assert submission.notes == []


def test_release_without_solutions_ships_no_seal_and_solution_says_the_release_holds_none(
    tmp_path, released_course
):
    out = tmp_path / "learners"
    done = run_cli("release", out, "--no-solutions")
    assert done.returncode == 0, done.stderr
    released = [
        load_notebook(out / n.path.relative_to(REPO_ROOT)) for n in released_course.notebooks
    ]
    functions = [function for notebook in released for function in notebook.functions]
    assert [f.name for f in functions if f.sealed] == []
    assert all(f.withheld for f in functions)
    said = _run_released(
        out, "-c", "from autograder.notebook import solution\nsolution('count_leaves')"
    )
    assert said.returncode == 0, said.stderr
    assert "this course's release holds no reference solutions" in said.stdout


def test_release_ships_the_seals_unless_told_not_to(release, tmp_path, released_course):
    out = _released(release, tmp_path)
    notebook = released_course.notebook("leaves")
    shipped = load_notebook(out / notebook.path.relative_to(REPO_ROOT))
    assert [f.sealed for f in shipped.functions] == [f.sealed for f in notebook.functions]
    assert any(f.sealed for f in shipped.functions)


def _setup_commands(readme: str) -> str:
    """The shell commands of the "Set up" section of a release's README."""
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    [commands] = re.findall(r"```bash\n(.*?)```", section, re.S)
    return commands


@pytest.mark.slow
def test_a_release_installed_as_its_readme_says_gives_the_reference_solutions_full_marks(
    release, tmp_path, course
):
    """Measured on 2 cores shared with other jobs (load average 13 to 20): 551 s."""
    out = _released(release, tmp_path)
    for notebook in course.notebooks:
        shutil.copy(notebook.path, out / "exercises" / notebook.id / notebook.filename)
    venv = str(REPO_ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if venv not in p)
    script = _setup_commands((out / "README.md").read_text(encoding="utf-8"))
    # The README's remedy for a slow machine: the test suite loads every core, and the
    # release measures no reference time to scale a call's limit by (10 s without one).
    script += "python -m autograder check --all --call-timeout 120\n"
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True, text=True, cwd=out, env=env, timeout=1800,
    )  # fmt: skip
    results = [line for line in done.stdout.splitlines() if re.match(r"\S+ [A-Z]+ \w+ \(", line)]
    assert done.returncode == 0, "\n".join(results) + done.stderr[-3000:]
    assert f"All visible tests pass, in all {len(course.notebooks)} notebooks." in done.stdout
    assert "ERROR" not in done.stdout


def test_the_checker_depends_on_the_binding_that_proves_a_sandbox_clean():
    # without the seccomp filter no worker's sandbox is proven clean, and each check
    # starts a new zygote where the warm checker would keep one
    assert "pyseccomp" in checker_dependencies()


@pytest.mark.parametrize("relative", ["dist", "../release/dist", "./wheels/course.whl"])
def test_release_refuses_a_relative_package_path_which_pip_would_not_find_from_a_notebook(
    tmp_path, relative
):
    with pytest.raises(ReleaseError, match="is a relative path; give an address"):
        write_release(tmp_path / "out", package_url=relative)
