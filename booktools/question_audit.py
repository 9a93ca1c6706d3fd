"""Find the book's questions that a reader answers by scrolling up instead of predicting.

A question (``booktools.quiz``) asks about its own code: the ``hide-output`` cell right
before it (:func:`questions_without_code` lists the questions without one). It is
*recall* when the page, or an earlier chapter, already shows the answer in a visible
cell:

- its right choice is a whole line of an earlier visible output (a choice of at
  least ``MIN_SHOWN_ANSWER`` characters: "2" stands somewhere by coincidence);
- or every call its code makes was shown before: the same API on the same kind of
  input, so the reader gets the answer by substituting values. Each call has a
  *shape* (see :func:`call_shapes`: the function called and the kind of each
  argument), and an earlier cell that showed its output shows each shape it has.
  The calls may be shown by different cells: a question whose parts were each
  shown is recall too.

What counts as the same kind of input follows the chapters' rules:

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

An earlier question's own cell counts as shown once the question is past: answering
it reveals its output. The audit reads the built HTML pages, which are what the
reader sees.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path


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
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    shapes = set()
    for statement in tree.body:
        if not isinstance(statement, ast.Assign):
            _bind(statement, names)  # what a loop's or a definition's body sees
        inside = {k: v for k, v in names.items() if k not in _parameters(statement)}
        for node in ast.walk(statement):
            shapes |= _shapes(node, inside)
        if isinstance(statement, ast.Assign):
            _bind(statement, names)
    return shapes


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
    that an earlier visible cell of the same page or an earlier one answers."""
    shown: list[tuple[Cell, set[str]]] = []
    for chapter, path in pages:
        names: dict[str, str] = {}
        cells = read_page(path, chapter)
        for index, (cell, questions) in enumerate(cells):
            own = cells[index - 1][0] if index else None
            for question in questions:
                found = _recall(question, own, dict(names), shown)
                if found:
                    yield found
                if own is not None and "hide-output" in own.tags:
                    # once answered, a question shows what its code gives
                    shown.append((own, call_shapes(own.code, dict(names))))
            shapes = call_shapes(cell.code, names)
            if cell.output.strip() and "hide-output" not in cell.tags and not questions:
                shown.append((cell, shapes))


def _recall(
    question: Question, own: Cell | None, names: dict[str, str], shown: list[tuple[Cell, set[str]]]
) -> Recall | None:
    right = question.right.strip()
    if len(right) >= MIN_SHOWN_ANSWER:
        lines = [
            cell
            for cell, _ in shown
            if right in (line.strip() for line in cell.output.splitlines())
        ]
        if lines:
            return Recall(question, f"its answer {right!r} stands in an output", (lines[0],))
    if own is None or "hide-output" not in own.tags:
        return None
    asked = call_shapes(own.code, names)
    showing: dict[str, Cell] = {}
    for cell, shapes in shown:
        for shape in asked:
            if any(_covers(seen, shape) for seen in shapes):
                showing[shape] = cell  # the latest: the one the reader saw last
    if asked and set(showing) == asked:
        cells = tuple(dict.fromkeys(showing[shape] for shape in sorted(asked)))
        return Recall(question, f"every call of its code ({', '.join(sorted(asked))}) ran", cells)
    return None


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
