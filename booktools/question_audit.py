"""Find the book's questions that a reader answers by scrolling up instead of predicting.

A question (``booktools.quiz``) asks about its own code: the ``hide-output`` cell right
before it (:func:`questions_without_code` lists the questions without one). What the
reader has seen before a question is every visible output of its page and of the
earlier chapters, and the code of every question already past (answering one reveals
what its code gives). Two rules compare a question with that.

The book's test fails a question the page has already answered
(:func:`recall_questions`):

- its right choice, of at least ``MIN_SHOWN_ANSWER`` characters, is a whole line of an
  earlier visible output (shorter ones, "2" or "(8, 3)", stand somewhere by
  coincidence);
- or every call its code makes is a call shown before, word for word: the same
  function with the same arguments, literal values included, compared as
  :func:`ast.unparse` writes them (spacing, line breaks, comments and quote style do
  not count) and with each name the page assigned written as its value (see
  :func:`calls`). The calls may come from different cells.

The author's list of suspects (:func:`suspect_questions`, printed by
``python -m booktools.question_audit SITE_DIR``) is broader: every call of the
question's code ran before on the same kind of input, so the reader *may* get the
answer by substituting values. Each call has a *shape* (see :func:`call_shapes`: the
function called and the kind of each argument), and what counts as the same kind of
input follows the chapters' rules:

- an argument that is another call's result (``jax.tree.structure(jax.tree.map(...))``)
  only reads that result: the inner call is asked by itself, any argument shows it;
- an ``OrderedDict`` or ``defaultdict`` is a ``dict``;
- a dict that holds ``None``, an empty container or a tuple is its own kind
  (``dict[None, tuple]``): None and empty containers are nodes without leaves, and a
  file gives tuples back as lists; a shown dict that held them shows a dict of leaves;
- a function that returns an item of a container (``lambda m, x: (m(x), m)[1]``) is
  not one that computes a value (``fn->item`` against ``fn``);
- an array function on leaves (``jnp.sum(leaf)``) computes a leaf, as arithmetic
  does: it asks nothing.

A shape does not see the kinds nested deeper in a container, nor which class or
function of the page a call reaches, so a suspect may ask for a real prediction: it
is for the author to read, and fails nothing. The audit reads the built HTML pages,
which are what the reader sees.
"""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from autograder.load.course import load_course


@dataclass(frozen=True)
class Cell:
    """One code cell of a built page, as the reader sees it."""

    chapter: str
    code: str  # "" when the input is removed
    output: str  # "" when there is none or it is hidden
    tags: frozenset[str]


@dataclass(frozen=True)
class Question:
    """One multiple-choice question; ``answer`` is the index of its right choice."""

    key: str
    chapter: str
    choices: tuple[str, ...]
    answer: int

    @property
    def right(self) -> str:
        return self.choices[self.answer]


class _PageCells(HTMLParser):
    """The code cells of a MyST-NB page: each ``div.cell``'s input code, its output
    text (empty when hidden in a ``details``), its ``tag_*`` classes, and the
    questions its output holds."""

    def __init__(self, chapter: str) -> None:
        super().__init__(convert_charrefs=True)
        self.chapter = chapter
        self.cells: list[tuple[Cell, list[Question]]] = []
        self._open: list[str] = []  # the tags open inside the current cell
        self._roles: list[str] = []  # for each open tag: its role in the cell, or ""
        self._cell: dict | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "img", "input", "meta", "link", "hr"):
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if self._cell is None:
            if tag == "div" and "cell" in classes:
                tags = frozenset(c[4:] for c in classes if c.startswith("tag_"))
                self._cell = {"tags": tags, "code": [], "output": [], "questions": []}
                self._open, self._roles = ["div"], ["cell"]
            return
        role = ""
        if "cell_input" in classes:
            role = "input"
        elif "cell_output" in classes:
            role = "output"
        elif tag == "details":
            role = "hidden"
        elif tag in ("style", "script"):
            role = "skip"
        elif "pt-quiz" in classes:
            self._cell["questions"].append(
                {"key": values["data-key"], "answer": int(values["data-answer"]), "choices": []}
            )
        elif "pt-quiz-choice" in classes:
            role = "choice"
            self._cell["questions"][-1]["choices"].append([])
        elif "pt-quiz-feedback" in classes or tag == "noscript":
            role = "skip"
        self._open.append(tag)
        self._roles.append(role)

    def handle_endtag(self, tag: str) -> None:
        if self._cell is None or tag not in self._open:
            return
        while self._open.pop() != tag:
            self._roles.pop()
        self._roles.pop()
        if not self._open:
            self._close()

    def handle_data(self, data: str) -> None:
        if self._cell is None or "skip" in self._roles:
            return
        if "choice" in self._roles:
            self._cell["questions"][-1]["choices"][-1].append(data)
        elif "input" in self._roles:
            self._cell["code"].append(data)
        elif "output" in self._roles and "hidden" not in self._roles:
            self._cell["output"].append(data)

    def _close(self) -> None:
        found, self._cell = self._cell, None
        cell = Cell(self.chapter, "".join(found["code"]), "".join(found["output"]), found["tags"])
        questions = [
            Question(q["key"], self.chapter, tuple("".join(c) for c in q["choices"]), q["answer"])
            for q in found["questions"]
        ]
        self.cells.append((cell, questions))


def read_page(path: Path, chapter: str) -> list[tuple[Cell, list[Question]]]:
    """The code cells of the built page ``path``, in order, each with the questions
    its output shows."""
    parser = _PageCells(chapter)
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.cells


def call_shapes(code: str, names: dict[str, str]) -> set[str]:
    """The shape of each call of an imported function ``code`` makes, such as
    ``jax.tree.leaves(dict)`` for ``jax.tree.leaves({"b": 1})``: the function, by its
    dotted name, and each argument by its kind (:func:`_kind`), as a comparison's
    shape is its operands' kinds. A call of literals only (``jnp.ones((2, 3))``,
    ``P(None, "model")``) makes a value and asks nothing: it has no shape.

    ``names`` maps the names bound so far on the page to their kind; the
    assignments, loops, definitions and imports of ``code`` are added to it.
    """
    shapes = set()
    for statement in _statements(code):
        if not isinstance(statement, ast.Assign):
            _bind(statement, names)  # what a loop's or a definition's body sees
        inside = {k: v for k, v in names.items() if k not in _parameters(statement)}
        for node in ast.walk(statement):
            shapes |= _shapes(node, inside)
        if isinstance(statement, ast.Assign):
            _bind(statement, names)
    return shapes


def _statements(code: str) -> list[ast.stmt]:
    """The top-level statements of ``code``; none when it is not Python (a shell line)."""
    try:
        return ast.parse(code).body
    except SyntaxError:
        return []


def _shapes(node: ast.AST, names: dict[str, str]) -> set[str]:
    if isinstance(node, ast.Call) and not _makes_a_value(node):
        function = _dotted(node.func, names)
        if _on_leaves(function, node, names) or function in _MAPPINGS:
            return set()
        if function == "fn" or re.split(r"[.(]", function)[0] in _imported(names):
            return {_call(node, names)}
    elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        kind = "fn" if isinstance(node, ast.FunctionDef) else "class"
        return {
            f"{_dotted(d, names)}({kind})"
            for d in node.decorator_list
            if isinstance(d, (ast.Name, ast.Attribute))
        }
    elif isinstance(node, ast.Compare):
        kinds = [_operand(n, names) for n in (node.left, *node.comparators)]
        if all(kind.endswith((")", " value")) for kind in kinds):
            return {" ? ".join(kinds)}
    return set()


def _on_leaves(function: str, node: ast.Call, names: dict[str, str]) -> bool:
    """An array function on leaves (``jnp.sum(leaf)``, ``jnp.asarray(np.float32(0.3))``)
    computes a leaf, as arithmetic does: it asks nothing about trees."""
    arguments = (*node.args, *(k.value for k in node.keywords))
    return function.startswith(("jax.numpy.", "numpy.")) and all(
        _is_literal(a)
        or _kind(a, names) in ("number", "expr", "str", "None", "fn")
        or _kind(a, names).endswith(" value")
        for a in arguments
    )


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def _call(node: ast.Call, names: dict[str, str]) -> str:
    arguments = [_kind(a, names) for a in node.args]
    arguments += [f"{k.arg}={_kind(k.value, names)}" for k in node.keywords]
    return f"{_dotted(node.func, names)}({', '.join(arguments)})"


def _operand(node: ast.expr, names: dict[str, str]) -> str:
    """A compared value's kind with its call's arguments: ``s1 == s2`` compares two
    ``jax.tree.structure(dict)``."""
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    calls = isinstance(node, ast.Call) and not _makes_a_value(node)
    if calls and _dotted(node.func, names) not in _MAPPINGS:
        return _call(node, names)
    return _kind(node, names)


def _shallow(kind: str) -> str:
    """``jax.tree.structure(dict)`` as an argument is a ``jax.tree.structure()``."""
    if not kind.endswith(")"):
        return kind
    depth = 0
    for index in range(len(kind) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(kind[index], 0)
        if depth == 0:
            return kind[:index] + "()"
    return kind


def _split(shape: str) -> tuple[str, list[str]]:
    """``jax.tree.map(fn, jax.vmap()())`` is ``("jax.tree.map", ["fn", "jax.vmap()()"])``."""
    callee, arguments = _shallow(shape)[:-2], shape[len(_shallow(shape)) - 1 : -1]
    parts, depth, start = [], 0, 0
    for index, char in enumerate(arguments):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(arguments[start:index].strip())
            start = index + 1
    parts.append(arguments[start:].strip())
    return callee, [part for part in parts if part]


def _covers(seen: str, asked: str) -> bool:
    """A shown shape covers an asked one of the same function and argument kinds; an
    asked argument that is another call's result (``jax.tree.structure(jax.tree.map())``)
    only reads that result: the inner call is asked by itself, any argument covers it."""
    if seen == asked:
        return True
    if not asked.endswith(")") or not seen.endswith(")") or " ? " in asked + seen:
        return False
    (callee, arguments), (shown, given) = _split(asked), _split(seen)
    return (
        callee == shown
        and len(arguments) == len(given)
        and all(_argument_covers(g, a) for a, g in zip(arguments, given, strict=True))
    )


def _argument_covers(seen: str, asked: str) -> bool:
    """An argument of the asked kind, a result of another call, or a container holding
    no kind of child that the shown one did not hold (a ``dict`` is covered by a
    ``dict[None, list]``)."""
    if _keyword(seen) != _keyword(asked):
        return False
    if asked == seen or _is_result(asked):
        return True
    (container, inner), (shown, held) = _container(asked), _container(seen)
    return container == shown and inner <= held


def _container(kind: str) -> tuple[str, set[str]]:
    """``dict[None, tuple]`` is ``("dict", {"None", "tuple"})``."""
    name, _, inner = kind.removesuffix("]").partition("[")
    return name, set(filter(None, inner.split(", ")))


def _keyword(argument: str) -> str:
    named = re.match(r"(\w+)=", argument)
    return named.group(1) if named else ""


def _is_result(argument: str) -> bool:
    return argument.endswith(")") and argument.removeprefix(_keyword(argument) + "=") != "class()"


def _parameters(statement: ast.stmt) -> set[str]:
    """The names a lambda or a function in ``statement`` takes: inside, they are theirs."""
    return {
        a.arg
        for node in ast.walk(statement)
        if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef))
        for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
    }


def _makes_a_value(call: ast.Call) -> bool:
    """A call of numbers, strings and tuples of them (``jnp.ones((2, 3))``,
    ``P(None, "model")``) makes a value to ask about; it asks nothing itself. Its
    kind is the module of its function: ``jax.numpy()``."""
    arguments = (*call.args, *(k.value for k in call.keywords))
    for argument in arguments:
        if isinstance(argument, ast.Attribute):
            continue  # a dtype, such as np.float32
        try:
            ast.literal_eval(argument)
        except ValueError:
            return False
        if any(isinstance(n, (ast.Dict, ast.List, ast.Set)) for n in ast.walk(argument)):
            return False
    return True


def _imported(names: dict[str, str]) -> set[str]:
    return {kind[7:].split(".")[0] for kind in names.values() if kind.startswith("import ")}


def _dotted(node: ast.expr, names: dict[str, str]) -> str:
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id).removeprefix("import ")
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value, names)
        if owner == "jax.tree_util" and node.attr.startswith("tree_"):
            return f"jax.tree.{node.attr[5:]}"  # jax.tree_util.tree_leaves is jax.tree.leaves
        return f"{owner}.{node.attr}"
    if isinstance(node, ast.Call) and not _makes_a_value(node):
        return _call(node, names)  # jax.tree.structure(dict).flatten_up_to, as through a name
    return _kind(node, names)


def _kind(node: ast.expr, names: dict[str, str]) -> str:
    """A number is ``number``, a string ``str``, a display its container (``dict``,
    ``list``, ...), a lambda or a function ``fn``, a class defined on the page
    ``class``, a call its function's dotted name with ``()``, a name its value's kind."""
    if isinstance(node, ast.Constant):
        if node.value is None:
            return "None"
        return "str" if isinstance(node.value, str) else "number"
    if isinstance(node, ast.UnaryOp):
        return _kind(node.operand, names)
    if isinstance(node, ast.Call):
        function = _dotted(node.func, names)
        if function == "class":
            return "class()"
        if function in _MAPPINGS:
            return _holding("dict", [*node.args, *(k.value for k in node.keywords)], names)
        if _makes_a_value(node):  # jnp.ones(3) and jnp.zeros((2, 3)) are both a jax.numpy value
            module, _, name = function.rpartition(".")
            return f"{module or name} value"
        return f"{function}()"
    if isinstance(node, ast.Name):
        kind = names.get(node.id, "number")  # unbound: a variable
        return "fn" if kind.startswith("import ") else _shallow(kind)
    if isinstance(node, ast.Attribute):
        dotted = _dotted(node, names)
        return "fn" if re.split(r"[.(]", dotted)[0] in _imported(names) else dotted
    if isinstance(node, ast.Dict):
        return _holding("dict", node.values, names)
    if isinstance(node, ast.Lambda):
        return _returning(node.body, names)
    displays = {
        ast.Dict: "dict", ast.DictComp: "dict", ast.List: "list", ast.ListComp: "list",
        ast.Tuple: "tuple", ast.Set: "set", ast.SetComp: "set", ast.GeneratorExp: "gen",
        ast.Lambda: "fn",
    }  # fmt: skip
    return displays.get(type(node), "expr")


# The chapters' rules treat every mapping as a dict, apart from its order.
_MAPPINGS = ("dict", "collections.OrderedDict", "collections.defaultdict")


def _holding(container: str, items: Sequence[ast.expr], names: dict[str, str]) -> str:
    """A dict whose values include ``None`` (or an empty container) or a tuple names
    them: ``dict[None, tuple]``; a dict of leaves, lists or dicts is a ``dict``."""
    kinds = {_value_kind(item, names) for item in items}
    inner = sorted(kind for kind in kinds if kind in ("None", "tuple"))
    return f"{container}[{', '.join(inner)}]" if inner else container


def _value_kind(item: ast.expr, names: dict[str, str]) -> str:
    """An empty container, like ``None``, is a node without leaves."""
    if isinstance(item, (ast.Tuple, ast.List, ast.Dict)) and not (
        item.keys if isinstance(item, ast.Dict) else item.elts
    ):
        return "None"
    return _kind(item, names).split("[")[0]


def _returning(body: ast.expr, names: dict[str, str]) -> str:
    """A lambda that returns an item of a container (``(m(x), m)[1]``) is an ``fn->item``;
    one that computes a value is an ``fn``."""
    return "fn->item" if isinstance(body, ast.Subscript) else "fn"


def _bind(statement: ast.stmt, names: dict[str, str]) -> None:
    if isinstance(statement, ast.Assign):
        value = statement.value
        for target in statement.targets:
            if isinstance(target, ast.Name):
                # s = jax.tree.structure names the function itself
                aliased = isinstance(value, (ast.Name, ast.Attribute))
                names[target.id] = _dotted(value, names) if aliased else _operand(value, names)
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        names[statement.name] = "fn"
    elif isinstance(statement, ast.ClassDef):
        names[statement.name] = "class"
    elif isinstance(statement, (ast.Import, ast.ImportFrom)):
        for alias in statement.names:
            if isinstance(statement, ast.ImportFrom):
                names[alias.asname or alias.name] = f"import {statement.module}.{alias.name}"
            else:
                name = alias.asname or alias.name.split(".")[0]
                names[name] = f"import {alias.name if alias.asname else name}"
    elif isinstance(statement, ast.For) and isinstance(statement.target, ast.Name):
        items = statement.iter
        first = items.elts[0] if isinstance(items, (ast.Tuple, ast.List)) and items.elts else None
        names[statement.target.id] = _kind(first, names) if first else "number"
    elif isinstance(statement, ast.With):
        for item in statement.items:
            if isinstance(item.optional_vars, ast.Name):
                names[item.optional_vars.id] = _kind(item.context_expr, names)


# A right choice shorter than this stands in some output by coincidence ("2", "(4,)").
MIN_SHOWN_ANSWER = 8


@dataclass(frozen=True)
class Recall:
    """A question the page answers before it is asked, and the cells that show it."""

    question: Question
    reason: str
    cells: tuple[Cell, ...]

    def __str__(self) -> str:
        shown = "; ".join(f"{c.chapter}: {_first_line(c.code)}" for c in self.cells)
        return f"{self.question.key}: {self.reason}, shown by {shown}"


def _first_line(code: str) -> str:
    return next((line.strip() for line in code.splitlines() if line.strip()), "")


def recall_questions(pages: Sequence[tuple[str, Path]]) -> Iterator[Recall]:
    """The questions of the built ``pages`` (``(chapter, path)`` in the book's order)
    that the page, or an earlier chapter, answers before they are asked: the right
    choice stands in an earlier output (:func:`_answer_shown`), or the question's code
    repeats calls shown before (:func:`_code_repeated`). The book's test fails them."""
    for question, own, shown in _asked(pages):
        found = _answer_shown(question, shown) or _code_repeated(question, own, shown)
        if found:
            yield found


def suspect_questions(pages: Sequence[tuple[str, Path]]) -> Iterator[Recall]:
    """The questions of ``pages`` whose every call an earlier cell showed on the same
    kind of input (:func:`call_shapes`): the reader may get the answer by substituting
    values. A list for the author to read, not a verdict: a shape does not see the
    kinds nested deeper in a container, nor which class or function of the page is
    called, so some suspects ask for a real prediction."""
    for question, own, shown in _asked(pages):
        found = _same_shapes(question, own, shown)
        if found:
            yield found


@dataclass(frozen=True)
class _Shown:
    """A cell whose output the reader has seen, with the shapes and calls of its code."""

    cell: Cell
    shapes: set[str]
    calls: set[str]


@dataclass(frozen=True)
class _Own:
    """A question's own code cell, with the names the page bound before it."""

    cell: Cell
    names: dict[str, str]
    values: dict[str, str]


def _asked(
    pages: Sequence[tuple[str, Path]],
) -> Iterator[tuple[Question, _Own | None, list[_Shown]]]:
    """Each question of ``pages``, its own code cell (the one right before it, if
    hidden), and the cells shown before it: the visible outputs of the same page and
    the earlier ones, and the code of the questions already past (answering one
    reveals what its code gives)."""
    shown: list[_Shown] = []
    for chapter, path in pages:
        names: dict[str, str] = {}
        values: dict[str, str] = {}
        cells = read_page(path, chapter)
        for index, (cell, questions) in enumerate(cells):
            before = cells[index - 1][0] if index else None
            own = None
            if before is not None and "hide-output" in before.tags:
                own = _Own(before, dict(names), dict(values))
            for question in questions:
                yield question, own, list(shown)
                if own is not None:
                    shown.append(_shown(own.cell, dict(own.names), dict(own.values)))
            # every cell binds its names for the cells after it
            seen = _shown(cell, names, values)
            if cell.output.strip() and "hide-output" not in cell.tags and not questions:
                shown.append(seen)


def _shown(cell: Cell, names: dict[str, str], values: dict[str, str]) -> _Shown:
    return _Shown(cell, call_shapes(cell.code, names), calls(cell.code, values))


def calls(code: str, values: dict[str, str]) -> set[str]:
    """Every call ``code`` makes, nested ones included, as source text normalised by
    :func:`ast.unparse` (spacing, line breaks, comments and quotes do not count), with
    each name the page assigned at top level written as the value it was given: the
    same function with the same arguments, literal values included.
    ``spec = (None, {"x": 0})`` then ``jax.tree.leaves(spec)`` is the call
    ``jax.tree.leaves((None, {'x': 0}))``.

    ``values`` maps the names assigned so far to their values' source; the
    top-level ``name = value`` assignments of ``code`` are added to it."""
    found = set()
    for statement in _statements(code):
        written = _Substitute(values, _parameters(statement)).visit(statement)
        found |= {ast.unparse(n) for n in ast.walk(written) if isinstance(n, ast.Call)}
        simple = isinstance(statement, ast.Assign) and all(
            isinstance(target, ast.Name) for target in statement.targets
        )
        if simple:
            for target in statement.targets:
                values[target.id] = ast.unparse(written.value)
        else:  # a loop, an unpacking, a definition, an import: no value of its own
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    values.pop(node.id, None)
            for name in _defined(statement):
                values.pop(name, None)
    return found


def _defined(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in statement.names}
    return set()


class _Substitute(ast.NodeTransformer):
    """Writes each name read as the value it was assigned, but not a lambda's or a
    function's parameter of the same name."""

    def __init__(self, values: dict[str, str], parameters: set[str]) -> None:
        self.values = {k: v for k, v in values.items() if k not in parameters}

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return ast.parse(self.values[node.id], mode="eval").body
        return node


def _answer_shown(question: Question, shown: list[_Shown]) -> Recall | None:
    """Its right choice, of at least ``MIN_SHOWN_ANSWER`` characters, is a whole line of
    an earlier visible output."""
    right = question.right.strip()
    if len(right) < MIN_SHOWN_ANSWER:
        return None
    for entry in shown:
        if right in (line.strip() for line in entry.cell.output.splitlines()):
            return Recall(question, f"its answer {right!r} stands in an output", (entry.cell,))
    return None


def _code_repeated(question: Question, own: _Own | None, shown: list[_Shown]) -> Recall | None:
    """Every call of its code (:func:`calls`) is a call an earlier shown cell made, word
    for word: its code repeats what the reader saw run, perhaps split over cells."""
    if own is None:
        return None
    asked = calls(own.cell.code, dict(own.values))
    showing = {call: entry.cell for entry in shown for call in asked & entry.calls}
    if not asked or set(showing) != asked:
        return None
    cells = tuple(dict.fromkeys(showing[call] for call in sorted(asked)))
    return Recall(question, f"its code repeats {', '.join(sorted(asked))}", cells)


def _same_shapes(question: Question, own: _Own | None, shown: list[_Shown]) -> Recall | None:
    if own is None:
        return None
    asked = call_shapes(own.cell.code, dict(own.names))
    showing: dict[str, Cell] = {}
    for entry in shown:
        for shape in asked:
            if any(_covers(seen, shape) for seen in entry.shapes):
                showing[shape] = entry.cell  # the latest: the one the reader saw last
    if not asked or set(showing) != asked:
        return None
    cells = tuple(dict.fromkeys(showing[shape] for shape in sorted(asked)))
    return Recall(question, f"every call of its code ({', '.join(sorted(asked))}) ran", cells)


def questions_without_code(pages: Sequence[tuple[str, Path]]) -> Iterator[Question]:
    """The questions of ``pages`` whose cell right before is not a ``hide-output`` code
    cell: they have no code of their own for the reader to run in their head, and none
    for the audit to compare with what the page showed."""
    for chapter, path in pages:
        cells = read_page(path, chapter)
        for index, (_, questions) in enumerate(cells):
            own = cells[index - 1][0] if index else None
            if own is None or "hide-output" not in own.tags or not own.code.strip():
                yield from questions


def audit_report(pages: Sequence[tuple[str, Path]]) -> tuple[str, bool]:
    """The text ``python -m booktools.question_audit`` prints for ``pages``: each
    suspect question with the earlier cells it matched, then each question the book's
    test fails; and whether there is any of the latter."""
    suspects = [f"  {found}\n" for found in suspect_questions(pages)]
    recalled = [f"  {found}\n" for found in recall_questions(pages)]
    text = (
        f"{len(suspects)} suspect questions (same API on the same kind of input):\n"
        + "".join(suspects)
        + f"{len(recalled)} questions the page answers before they are asked:\n"
        + "".join(recalled)
    )
    return text, bool(recalled)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m booktools.question_audit SITE_DIR``: the audit of the book built into
    ``SITE_DIR`` (``_build/html``), chapters in the course's order. Exits 1 when the
    book's test would fail; suspects alone are for the author to read."""
    parser = argparse.ArgumentParser(prog="python -m booktools.question_audit")
    parser.add_argument("site", type=Path, help="the built book, such as _build/html")
    site = parser.parse_args(argv).site
    pages = [(n.id, site / "book" / f"{n.id}.html") for n in load_course().notebooks]
    text, failed = audit_report(pages)
    print(text, end="")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
