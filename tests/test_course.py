"""The course's own rules, checked on every exercise notebook (see AUTHORING.md)."""

from __future__ import annotations

import ast
import re

import nbformat
import pytest

from autograder.author.checks import course_problems
from autograder.load.course import (
    SOLUTIONS,
    Course,
    bound_names,
    load_course,
    load_notebook,
    toc_order,
)

COURSE = load_course(SOLUTIONS)
FUNCTIONS = [pytest.param(f, id=f.name) for f in COURSE.functions]


def _solution_cell(function):
    nb = nbformat.read(COURSE.notebook(function.notebook).path, as_version=4)
    return next(
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == function.name
    )


def test_every_chapter_has_at_least_three_graded_functions():
    for notebook in COURSE.notebooks:
        assert len(notebook.functions) >= 3, notebook.id


def test_the_aux_data_exercise_has_the_signature_function():
    function = COURSE.function("aux_data_demo")
    tree = ast.parse(_solution_cell(function).source)
    definition = next(
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "aux_data_demo"
    )
    assert [a.arg for a in definition.args.args] == ["x", "scale"]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_has_points_tests_and_hints(function):
    assert function.tests and function.points > 0
    assert len(function.hints) >= 2


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_has_a_docstring_with_examples(function):
    tree = ast.parse(_solution_cell(function).source)
    definition = next(
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == function.name
    )
    docstring = ast.get_docstring(definition) or ""
    assert docstring.count(">>>") >= 2, f"{function.name} needs at least two examples"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_has_visible_and_hidden_tests(function):
    for test in function.tests:
        assert test.hidden_lines, f"{test.grade_id} has no hidden tests"
        assert test.visible_source.strip(), f"{test.grade_id} has no visible tests"
        ast.parse(test.source)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_assertion_has_a_message(function):
    for test in function.tests:
        for node in ast.walk(ast.parse(test.source)):
            if isinstance(node, ast.Assert):
                assert node.msg is not None, f"{test.grade_id} line {node.lineno} has no message"


def test_points_are_declared_only_in_test_cells():
    for notebook in COURSE.notebooks:
        nb = nbformat.read(notebook.path, as_version=4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if not meta.get("grade"):
                assert "points" not in meta or not meta["points"], meta.get("grade_id")


def test_the_course_keeps_its_sixteen_chapters_and_their_functions():
    assert len(COURSE.notebooks) >= 16 and len(COURSE.functions) >= 63


def test_every_chapter_has_its_lesson_toc_entry_exercise_and_misconceptions():
    assert course_problems() == []


def test_the_table_of_contents_lists_the_chapters_in_the_courses_order():
    order = toc_order()
    assert [n.id for n in COURSE.notebooks] == sorted(
        (n.id for n in COURSE.notebooks), key=order.get
    )


@pytest.mark.parametrize("function", [p for p in FUNCTIONS if not p.values[0].answered_by])
def test_each_function_has_probes_to_seal_its_reference_solution(function):
    assert len(function.probes) >= 2


@pytest.mark.parametrize("function", [p for p in FUNCTIONS if p.values[0].answered_by])
def test_a_function_a_library_call_answers_has_no_probes_to_seal_it_with(function):
    assert function.probes == ()


def _solution_lines(function) -> list[str]:
    """The reference solution's lines of 20 characters or more, and what each returns or
    assigns when that is itself 20 characters or more, without whitespace."""
    lines, inside = [], False
    for line in _solution_cell(function).source.splitlines():
        marker = line.strip()
        if marker == "### END SOLUTION":
            inside = False
        if inside:
            lines.append(marker)
            lines.append(marker.removeprefix("return ").partition(" = ")[2] or "")
            lines.append(marker.removeprefix("return "))
        if marker == "### BEGIN SOLUTION":
            inside = True
    squeezed = {"".join(line.split()) for line in lines}
    return sorted(line for line in squeezed if len(line) >= 20)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_no_hint_holds_a_line_of_its_reference_solution(function):
    for number, text in enumerate(function.hints, start=1):
        hint = "".join(text.replace("`", "").split())
        held = [line for line in _solution_lines(function) if line in hint]
        assert not held, f"hint {number} of {function.name} holds its solution's line {held[0]!r}"


def _book_sections() -> dict[str, set[str]]:
    """Each chapter's title and its second-level headings, as the book spells them."""
    sections: dict[str, set[str]] = {}
    for chapter in (notebook.id for notebook in COURSE.notebooks):
        text = (SOLUTIONS.parent / "book" / f"{chapter}.md").read_text(encoding="utf-8")
        headings = [line for line in text.splitlines() if line.startswith("#")]
        title = next(h[2:].strip() for h in headings if h.startswith("# "))
        sections[title] = {h[3:].strip().replace("`", "") for h in headings if h.startswith("## ")}
    return sections


def _assertion_messages(source: str) -> list[str]:
    """The text of every assertion's message in ``source`` (its string parts, joined)."""
    return [
        "".join(
            part.value
            for part in ast.walk(node.msg)
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        )
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assert) and node.msg is not None
    ]


def test_every_section_a_test_sends_the_learner_to_exists():
    sections = _book_sections()
    for function in COURSE.functions:
        for test in function.tests:
            for message in _assertion_messages(test.source):
                for chapter, section in re.findall(r"Reread (.+?) → (.+?)\.(?:\s|$)", message):
                    assert section in sections.get(chapter, ()), (
                        f"{test.grade_id} sends the learner to {chapter} → {section}, "
                        "which is not a chapter title and one of its sections"
                    )


def test_every_section_an_error_points_to_exists():
    from autograder.compare.explain import POINTERS

    sections = _book_sections()
    for _, pointer in POINTERS:
        chapter, _, section = pointer.section.partition(" → ")
        assert section in sections.get(chapter, ()), f"{pointer.section} is not in the book"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_no_test_cell_rebinds_a_name_the_setup_cell_gives(function):
    """Under nbgrader every cell shares one namespace: a test cell that assigned `check`
    or `round_trip` would break the cells after it."""
    setup = _namespace_names(COURSE.notebook(function.notebook).setup_source)
    for test in function.tests:
        rebound = setup & _namespace_names(test.source)
        assert not rebound, f"{test.grade_id} rebinds {sorted(rebound)}"


def _namespace_names(source: str) -> frozenset[str]:
    """Names a cell binds in the notebook's namespace: not a function's arguments or locals."""
    names: set[str] = set()
    for statement in ast.parse(source).body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(statement.name)
        else:
            names |= bound_names(ast.unparse(statement))
    return frozenset(names)


def test_a_setup_functions_arguments_are_not_names_of_the_notebook():
    setup = "def loss(params, batch):\n    return params\n"
    assert _namespace_names(setup) == {"loss"}


def _stale_after(tmp_path, edit) -> list[str]:
    """What the course's checks say of exercises/ once ``edit`` has changed a solution notebook."""
    from autograder.author.checks import stale_exercises

    notebook = COURSE.notebooks[0]
    nb = nbformat.read(notebook.path, as_version=4)
    edit(nb)
    edited = tmp_path / notebook.id / notebook.filename
    edited.parent.mkdir()
    nbformat.write(nb, edited)
    released = load_course(SOLUTIONS.parent / "exercises").notebook(notebook.id)
    return stale_exercises(Course((released,)), Course((load_notebook(edited),)))


def test_exercises_are_stale_when_a_task_text_changes(tmp_path):
    def edit(nb):
        next(c for c in nb.cells if c.cell_type == "markdown").source += "\nOne more sentence."

    assert "out of date" in " ".join(_stale_after(tmp_path, edit))


def test_exercises_are_stale_when_a_reference_solution_changes_its_seal(tmp_path):
    def edit(nb):
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
        begin = next(line for line in cell.source.splitlines() if "### BEGIN SOLUTION" in line)
        indent = begin[: len(begin) - len(begin.lstrip())]
        cell.source = cell.source.replace(begin, f"{begin}\n{indent}_unused = None")

    assert "stale seal" in " ".join(_stale_after(tmp_path, edit))


def test_the_libraries_a_setup_cell_imports_are_known_for_the_zygote_to_preload():
    assert COURSE.notebook("libraries").library_imports == ("equinox", "optax", "flax", "flax.nnx")
    assert COURSE.notebook("leaves").library_imports == ()
