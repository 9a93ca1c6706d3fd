"""Find the book's questions that a reader answers by scrolling up instead of predicting.

The rule. A question is *recall* when every call its own code makes was already made
in cells whose output the reader saw, on arguments of the same kinds: the same
function, and earlier calls of it that held between them every node kind each
argument holds (``None``, empty containers, the page's classes, kinds of functions; a
keyword argument written as a literal, its value) and each of its leaf types
(numbers and arrays, strings, int arrays) (:func:`showing`). It is recall too when its
right choice, of at least ``MIN_SHOWN_ANSWER`` characters, is a whole line of an
earlier visible output.

What the reader has seen before a question: every visible output of its page and of
the earlier chapters, and the code of every question already past (answering one
reveals what its code gives). A question's own code is the ``hide-output`` cell right
before it (:func:`questions_without_code` lists the questions without one). The code
is read, never run (:func:`cell_calls` says which calls count and :func:`kinds` what an
argument is built of); the pages are the built HTML, which is what the reader sees.

A kind cannot see everything that makes a prediction (a value changed between two
calls, an order of keys, which field a class flattens first, two rules met at once).
A question the rule flags for calls it has seen says what no earlier cell showed,
``quiz(..., new=CODE)``: the quote must stand in its own code and in no code cell
before it, values aside, and a reader's reading must call that very question a
prediction (:func:`recall_questions`, ``booktools/question_readings.py``). ``python -m
booktools.question_audit SITE_DIR`` prints each failing question with the cells that
show its calls, for the author to read.
"""

from __future__ import annotations

import argparse
import ast
import functools
import io
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from autograder.load.course import load_course
from booktools.question_readings import Reading, digest, read_folder


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
    new: str = ""  # the code of the question it says no earlier cell shows

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
                {
                    "key": values["data-key"],
                    "answer": int(values["data-answer"]),
                    "new": values.get("data-new") or "",
                    "choices": [],
                }
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
            Question(
                q["key"],
                self.chapter,
                tuple("".join(c) for c in q["choices"]),
                q["answer"],
                q["new"],
            )
            for q in found["questions"]
        ]
        self.cells.append((cell, questions))


def read_page(path: Path, chapter: str) -> list[tuple[Cell, list[Question]]]:
    """The code cells of the built page ``path``, in order, each with the questions
    its output shows."""
    parser = _PageCells(chapter)
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.cells


# ---------------------------------------------------------------- what a value is built of

# Builders of plain containers (the chapters' rules treat every mapping as a dict, apart
# from its order); a Counter, which JAX keeps as a leaf, and a namedtuple class are
# kinds of their own.
_MAPPINGS = ("dict", "list", "tuple", "collections.OrderedDict", "collections.defaultdict")
_OTHER_MAPPINGS = ("collections.Counter",)
_CLASS_MAKERS = ("collections.namedtuple", "typing.NamedTuple")
# The types of leaves; every other kind is a node of a tree, or something unknown.
LEAF_TYPES = frozenset({"number", "str", "bytes", "set", "array", "int array"})
# Array functions whose result is an int array when given only ints.
_INT_ARRAYS = (
    "jax.numpy.arange",
    "jax.numpy.array",
    "jax.numpy.asarray",
    "numpy.arange",
    "numpy.array",
)
_ARRAY_MODULES = ("jax.numpy.", "numpy.", "jax.random.")
# Transformations: a function they make is known by them, not by its name.
_TRANSFORMS = ("jax.jit", "jax.vmap", "jax.grad", "jax.value_and_grad", "jax.checkpoint")

Kinds = frozenset[str]


def kinds(node: ast.expr, names: dict[str, Kinds]) -> Kinds:
    """What the value ``node`` is built of, at every depth: plain containers (a dict, a
    list or a tuple is a ``container``, an empty one ``empty``), ``None``, generators,
    Counters, instances of the page's classes (by how each class was made, see
    :func:`_bind`), functions (by the form of what a lambda returns: ``fn->tuple``,
    ``fn->item``, ``fn``), and the types of its leaves (:data:`LEAF_TYPES`). ``names``
    maps the names bound so far to their kinds. Another call's result is asked by that
    call: it adds nothing."""
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, (str, bytes)):
            return frozenset({type(node.value).__name__.replace("NoneType", "None")})
        return frozenset({"number"})
    if isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        items = node.values if isinstance(node, ast.Dict) else node.elts
        if not items:
            return frozenset({"set" if isinstance(node, ast.Set) else "empty"})
        container = "set" if isinstance(node, ast.Set) else "container"
        return frozenset({container}).union(*(kinds(i, names) for i in items))
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
        element = node.value if isinstance(node, ast.DictComp) else node.elt
        container = {ast.GeneratorExp: "generator", ast.SetComp: "set"}
        return frozenset({container.get(type(node), "container")}) | kinds(element, names)
    if isinstance(node, ast.Name):
        bound = names.get(node.id, {"value"})
        return frozenset(
            "fn" if k.startswith("fn ") else k
            for k in bound
            if not k.startswith(("result ", "compared ", "= "))
        )
    if isinstance(node, ast.Lambda):
        forms = {ast.Tuple: "tuple", ast.List: "list", ast.Dict: "dict", ast.Subscript: "item"}
        form = forms.get(type(node.body))
        return frozenset({f"fn->{form}" if form else "fn"})
    if isinstance(node, ast.Call):
        return _made(node, names)
    if isinstance(node, ast.Attribute):
        return frozenset(
            {"fn" if _dotted(node, names).split(".")[0] in _modules(names) else "value"}
        )
    parts = [kinds(c, names) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
    return frozenset().union(*parts) if parts else frozenset({"value"})


def _made(call: ast.Call, names: dict[str, Kinds]) -> Kinds:
    """The kinds of what ``call`` makes: a dict, an instance of a page's class, an array
    (an ``int array`` from ints), or nothing known (a result)."""
    function = _dotted(call.func, names)
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if function in _MAPPINGS:
        held = [kinds(a, names) for a in arguments]
        return frozenset({"container"}).union(*held) if held else frozenset({"empty"})
    made = _maker(function, names)
    if function in _OTHER_MAPPINGS or made.startswith("class("):
        made = made or function.rpartition(".")[2]
        return frozenset({made}).union(*(kinds(a, names) for a in arguments))
    if function.startswith(_ARRAY_MODULES) and all(_is_number(a) for a in arguments):
        ints = function.startswith(_INT_ARRAYS) and all(
            isinstance(n, ast.Constant) and type(n.value) is int
            for a in call.args
            for n in ast.walk(a)
            if isinstance(n, ast.Constant)
        )
        return frozenset({"int array" if ints else "array"})
    return frozenset()


def _is_number(node: ast.expr) -> bool:
    """A number, or a tuple or list of them, or a dtype (``np.float32``)."""
    if isinstance(node, ast.Attribute):
        return True
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return False
    return not isinstance(value, (dict, set, str)) and value is not None


def _modules(names: dict[str, Kinds]) -> set[str]:
    return {name for name, kind in names.items() if any(k.startswith("import ") for k in kind)}


def _maker(function: str, names: dict[str, Kinds]) -> str:
    """How the page made the function or class ``function`` names (``fn jax.jit``,
    ``fn load``, ``class(jax.tree_util.register_pytree_node_class)``), or ""."""
    made = [k for k in names.get(function, ()) if k.startswith(("fn", "class("))]
    return made[0] if made else ""


def _dotted(node: ast.expr, names: dict[str, Kinds]) -> str:
    """The name of a called function through the page's imports (``jax.tree.leaves``
    for ``jax.tree_util.tree_leaves``); a call's result is named by its function with
    the functions it was given: ``jax.vmap(jax.grad)``."""
    if isinstance(node, ast.Name):
        for kind in names.get(node.id, ()):
            if kind.startswith(("import ", "result ")):
                return kind.partition(" ")[2]
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value, names)
        if owner == "jax.tree_util" and node.attr.startswith("tree_"):
            return f"jax.tree.{node.attr[5:]}"
        if owner.startswith("optax.") and owner.endswith(")") and node.attr in ("init", "update"):
            # every optax transformation keeps the same contract for its state
            return f"optax.GradientTransformation.{node.attr}"
        return f"{owner}.{node.attr}"
    if isinstance(node, ast.Call):
        given = [
            _dotted(a, names)
            for a in node.args
            if isinstance(a, (ast.Call, ast.Name, ast.Attribute))
        ]
        given = ["fn" if _maker(g, names).startswith("fn ") else g for g in given]
        return f"{_dotted(node.func, names)}({', '.join(given)})"
    return "value"


# ---------------------------------------------------------------- the calls of a cell


@dataclass(frozen=True)
class Call:
    """A call as the rule compares it: the function, and the kinds of each argument
    by position (``"0"``, ``"1"``, ...) or keyword."""

    function: str
    arguments: tuple[tuple[str, Kinds], ...]

    def __str__(self) -> str:
        shown = [
            ("" if place.isdigit() else f"{place}=")
            + ("|".join(sorted(k.removeprefix("= ") for k in held)) or "result")
            for place, held in self.arguments
        ]
        return f"{self.function}({', '.join(shown)})"

    @property
    def places(self) -> tuple[str, ...]:
        return tuple(place for place, _ in self.arguments)


def cell_calls(code: str, names: dict[str, Kinds]) -> list[Call]:
    """The calls ``code`` makes of a function imported or defined on the page (not of
    array functions on numbers, which make values, nor of classes, which make
    instances), each with the kinds of its arguments (:func:`kinds`); a comparison of
    results (``s1 == s2``) is a call of ``==``, and an attribute set outside a
    definition (``mode.name = "tanh"``) a call of ``setattr``; the arguments of a call of
    a result (``jax.vmap(f)(x, y)``) are one argument. ``names`` maps the names
    bound so far to their kinds; what ``code`` binds is added to it."""
    found = []
    statements = _statements(code)
    # a function the cell defines is read through the calls of its body
    own = {f"fn {s.name}" for s in statements if isinstance(s, ast.FunctionDef)}
    for statement in statements:
        if isinstance(statement, ast.For):
            _bind_loop(statement, names)  # what its body sees
        parameters = _parameters(statement)
        inside = {k: v for k, v in names.items() if k not in parameters}
        defines = isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for node in ast.walk(statement):
            call = _call(node, inside)
            if call is None or call.function in own:
                continue
            # a definition setting attributes (self.x = x) changes nothing yet
            if not (defines and call.function == "setattr"):
                found.append(call)
        _bind(statement, names)
    return found


def _call(node: ast.AST, names: dict[str, Kinds]) -> Call | None:
    """``node`` as a call :func:`cell_calls` counts, or None."""
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute):
        # an object changed in place
        return Call("setattr", (("0", kinds(node.targets[0].value, names)),))
    if isinstance(node, ast.Compare):
        operands = [_result(n, names) for n in (node.left, *node.comparators)]
        if all(operands):
            return Call("==", tuple((str(i), frozenset({o})) for i, o in enumerate(operands)))
        return None
    if not isinstance(node, ast.Call):
        return None
    function = _dotted(node.func, names)
    root = function.split(".")[0].split("(")[0]
    known = root in _modules(names) or _maker(root, names).startswith("fn") or "(" in function
    if not known or function in _MAPPINGS or _made(node, names) or not (node.args or node.keywords):
        return None
    if function.startswith(("jax.numpy.", "numpy.")):
        return None  # array math on leaves: it asks nothing about trees
    literals = [*node.args, *(k.value for k in node.keywords)]
    if function.startswith("optax.") and all(_is_literal(a) for a in literals):
        return None  # a transformation made from numbers asks nothing about trees
    made = _maker(function, names)
    arguments = [(str(i), kinds(a, names)) for i, a in enumerate(node.args)]
    arguments += [(k.arg or "**", _option(k.value, names)) for k in node.keywords]
    if not function.startswith("jax.tree."):
        # what a lambda returns becomes part of the tree only in a tree function
        arguments = [(p, frozenset(_plain_fn(k) for k in held)) for p, held in arguments]
    if function.endswith(")"):
        # jax.vmap(f)(...) takes f's arguments, in f's order, which differs from one
        # function to the next: they are compared together
        arguments = [("*", frozenset().union(*(held for _, held in arguments)))]
    return Call(made if made.startswith("fn ") else function, tuple(arguments))


def _plain_fn(kind: str) -> str:
    return "fn" if kind.startswith("fn->") else kind


def _option(node: ast.expr, names: dict[str, Kinds]) -> Kinds:
    """A keyword argument written as a literal, or as a name assigned one, by its value
    (``= (None, 0)``); another by its kinds."""
    if isinstance(node, ast.Name):
        written = {k for k in names.get(node.id, ()) if k.startswith("= ")}
        return frozenset(written) or kinds(node, names)
    return frozenset({f"= {ast.unparse(node)}"}) if _is_literal(node) else kinds(node, names)


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def _result(node: ast.expr, names: dict[str, Kinds]) -> str:
    """A compared operand as the call that made it, with its arguments' kinds, or ""."""
    if isinstance(node, ast.Name):
        return next((k for k in names.get(node.id, ()) if k.startswith("compared ")), "")
    call = _call(node, names)
    return f"compared {call}" if isinstance(call, Call) else ""


def _statements(code: str) -> list[ast.stmt]:
    """The top-level statements of ``code``; none when it is not Python (a shell line)."""
    try:
        return ast.parse(code).body
    except SyntaxError:
        return []


def _parameters(statement: ast.stmt) -> set[str]:
    """The names a lambda or a function in ``statement`` takes: inside, they are theirs."""
    return {
        a.arg
        for node in ast.walk(statement)
        if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef))
        for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
    }


def _bind(statement: ast.stmt, names: dict[str, Kinds]) -> None:
    """Adds the names ``statement`` binds, with their kinds: a value's kinds; a call's
    result as ``result CALL``; a function as ``fn NAME``, or ``fn jax.jit`` when a
    transformation made it; a class as ``class(decorators, bases)``, and as
    ``class(register...)`` once registered; an import as ``import module.name``."""
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            bound = (
                _bound(statement.value, names)
                if isinstance(target, ast.Name)
                else frozenset({"value"})
            )
            unpacked = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            for node in unpacked:  # not the object whose attribute or item is set
                node = node.value if isinstance(node, ast.Starred) else node
                if isinstance(node, ast.Name):
                    names[node.id] = bound
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        made = [_dotted(d, names) for d in statement.decorator_list]
        made = [m for m in made if m.startswith(_TRANSFORMS)]
        names[statement.name] = frozenset({f"fn {made[0]}" if made else f"fn {statement.name}"})
    elif isinstance(statement, ast.ClassDef):
        made = [_dotted(d, names) for d in statement.decorator_list]
        bases = [_maker(_dotted(b, names), names) or _dotted(b, names) for b in statement.bases]
        # registration is not inherited, however the base was registered
        made += ["registered" if b.startswith("class(") and "register" in b else b for b in bases]
        names[statement.name] = frozenset({f"class({', '.join(made)})"})
    elif isinstance(statement, (ast.Import, ast.ImportFrom)):
        for alias in statement.names:
            if isinstance(statement, ast.ImportFrom):
                full = f"{statement.module}.{alias.name}"
            else:
                full = alias.name if alias.asname else alias.name.split(".")[0]
            names[alias.asname or alias.name.split(".")[0]] = frozenset({f"import {full}"})
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        function = _dotted(call.func, names)
        registered = call.args[0] if call.args else None
        if function.startswith("jax.tree_util.register_") and isinstance(registered, ast.Name):
            names[registered.id] = frozenset({f"class({function})"})
    elif isinstance(statement, ast.For):
        _bind_loop(statement, names)
    if isinstance(statement, (ast.For, ast.With, ast.Try, ast.If)):
        for item in getattr(statement, "items", []):
            if isinstance(item.optional_vars, ast.Name):
                names[item.optional_vars.id] = frozenset({"value"})
        for inner in statement.body:
            _bind(inner, names)


def _bind_loop(loop: ast.For, names: dict[str, Kinds]) -> None:
    """A loop's names hold what the items of what it walks hold."""
    items = kinds(loop.iter, names) - {"container"}
    for node in ast.walk(loop.target):
        if isinstance(node, ast.Name):
            names[node.id] = items or frozenset({"value"})


def _bound(value: ast.expr, names: dict[str, Kinds]) -> Kinds:
    """The kinds a name assigned ``value`` gets: an alias of an imported function, a
    namedtuple class, a transformed function (with its static arguments named), a
    call's result (its function, and for comparisons its arguments' kinds), or the
    value's own kinds."""
    dotted = _dotted(value, names) if isinstance(value, (ast.Name, ast.Attribute)) else ""
    if dotted.split(".")[0] in _modules(names):
        return frozenset({f"import {dotted}"})  # s = jax.tree.structure
    if isinstance(value, ast.Call) and not _made(value, names):
        function = _dotted(value.func, names)
        if function in _CLASS_MAKERS:
            return frozenset({f"class({function})"})
        if function in _TRANSFORMS:
            options = sorted(k.arg for k in value.keywords if k.arg and k.arg.startswith("static"))
            return frozenset({f"fn {', '.join([function, *options])}"})
        call = _call(value, names)
        if call is None:
            return frozenset({"value"})
        return frozenset({f"result {call.function}()", f"compared {call}"})
    written = {f"= {ast.unparse(value)}"} if _is_literal(value) else set()
    return (kinds(value, names) | written) or frozenset({"value"})


# ---------------------------------------------------------------- the rule


# A right choice shorter than this stands in some output by coincidence ("2", "(4,)").
MIN_SHOWN_ANSWER = 8


@dataclass(frozen=True)
class Recall:
    """A question the page answers before it is asked, why, and the cells that show it."""

    question: Question
    reason: str
    cells: tuple[Cell, ...]

    def __str__(self) -> str:
        shown = "; ".join(f"{c.chapter}: {_first_line(c.code)}" for c in self.cells)
        return f"{self.question.key}: {self.reason}, shown by {shown}"


def _first_line(code: str) -> str:
    return next((line.strip() for line in code.splitlines() if line.strip()), "")


def recall_questions(
    pages: Sequence[tuple[str, Path]], readings: dict[str, list[Reading]] | None = None
) -> Iterator[Recall]:
    """The questions of the built ``pages`` (``(chapter, path)`` in the book's order)
    that the rule of this module calls recall. The book's test fails them.

    A question whose every call ran before still asks for a prediction when it
    combines them in a way no cell showed; it says so with ``quiz(..., new=CODE)``,
    quoting that code. The quote must stand in its own code and in no code cell before
    it, values and the names a cell binds aside (:func:`_tokens`): other values alone
    make nothing new. A quote that does not is reported, whatever the rule says. As a
    token search cannot tell whether the quote is what the answer turns on, a flagged
    question passes only with a reading (``readings``, by default those of
    ``booktools/question_labels/``) that calls that very question a prediction."""
    readings = read_folder() if readings is None else readings
    for each in _asked(pages):
        question, asked, shown = each.question, each.calls, each.shown
        found = _answer_shown(question, shown)
        if found is None and question.new:
            found = _quote_refused(question, each.own, each.read)
        cells = [showing(call, shown) for call in asked]
        if found is None and asked and all(cells):
            shown_by = tuple(dict.fromkeys(cell for found in cells for cell in found))
            calls = ", ".join(dict.fromkeys(map(str, asked)))
            found = Recall(question, f"every call of its code ran before ({calls})", shown_by)
            if question.new:
                found = _unread(question, each.own, readings.get(question.key, []), shown_by)
        if found is not None:
            yield found


def _unread(
    question: Question, own: Cell | None, readings: list[Reading], shown_by: tuple[Cell, ...]
) -> Recall | None:
    """Why a flagged question with a new quote still fails, or None: no reading calls
    this very question (its :func:`digest`) a prediction, or one calls it recall."""
    seen = digest(own.code if own else "", question.choices, question.answer)
    labels = {reading.label for reading in readings if reading.digest == seen}
    if labels == {"prediction"}:
        return None
    if "recall" in labels:
        return Recall(
            question, "its calls ran before, and a reader's reading calls it recall", shown_by
        )
    earlier = [reading.digest for reading in readings if reading.digest]
    changed = f", and the readings of it ({', '.join(earlier)}) read it before it changed"
    return Recall(
        question,
        f"its calls ran before; its quote is new, but no reading calls this question "
        f"({seen}) a prediction{changed * bool(earlier)}: have someone who did not write "
        f"it read it (AUTHORING.md, Pictures and questions in a lesson)",
        shown_by,
    )


def _quote_refused(question: Question, own: Cell | None, read: list[Cell]) -> Recall | None:
    """Why the code ``question.new`` quotes is not new, or None when it is: it is not
    in ``own``, the question's code, or it is in a cell of ``read``."""
    if own is None:
        return Recall(question, f"it says {question.new!r} is new, but it has no code", ())
    quote = f" {_tokens(question.new, _binds(own.code))} "
    if quote not in _cell_tokens(own.code):
        return Recall(question, f"it says {question.new!r} is new, but its code has none", ())
    for cell in read:
        if quote in _cell_tokens(cell.code):
            return Recall(question, f"it says {question.new!r} is new, but it was shown", (cell,))
    return None


@functools.cache  # every quote is compared with every earlier cell: each is read once
def _cell_tokens(code: str) -> str:
    """A cell's :func:`_tokens`, names it binds aside, spaced at both ends for search."""
    return f" {_tokens(code, _binds(code))} "


def _binds(code: str) -> frozenset[str]:
    """The names ``code`` binds itself (variables, functions, classes, parameters),
    imports aside: renaming them changes nothing; a name bound elsewhere is another
    object."""
    bound = set()
    for node in (n for statement in _statements(code) for n in ast.walk(statement)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return frozenset(bound)


def _tokens(code: str, own: frozenset[str]) -> str:
    """``code`` as its Python tokens with single spaces between, each number written as
    its type (0, 0.0), each string '' and each of the ``own`` names (those the code
    binds itself) _: two pieces of code with the same tokens but for their values and
    the names they chose say the same thing. Code that does not tokenize is compared
    as written."""
    try:
        found = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return " ".join(code.split())
    words, before = [], ""
    for token in found:
        word = token.string
        if token.type == tokenize.NUMBER:
            word = _number(word)
        elif token.type == tokenize.STRING:
            word = "''"
        elif token.type == tokenize.NAME and word in own and before != ".":
            word = "_"
        if token.type not in _LAYOUT:
            words.append(word)
            before = token.string
    return " ".join(words)


def _number(written: str) -> str:
    """A number literal as its type: to JAX an int and a float are not the same value."""
    kind = type(ast.literal_eval(written))
    return {int: "0", float: "0.0", complex: "0j"}[kind]


_LAYOUT = (
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
)


def _answer_shown(question: Question, shown: list[tuple[Cell, list[Call]]]) -> Recall | None:
    """Its right choice, of at least ``MIN_SHOWN_ANSWER`` characters, is a whole line of
    an earlier visible output."""
    right = question.right.strip()
    if len(right) < MIN_SHOWN_ANSWER:
        return None
    for cell, _ in shown:
        if right in (line.strip() for line in cell.output.splitlines()):
            return Recall(question, f"its answer {right!r} stands in an output", (cell,))
    return None


def showing(call: Call, shown: list[tuple[Cell, list[Call]]]) -> tuple[Cell, ...]:
    """The cells of ``shown`` that show ``call``, or (): earlier calls of the same
    function, with the same arguments by position and keyword, held between them each
    node kind and each leaf type each argument holds (a question whose parts are each
    shown counts as shown). The cells named are the last call that held them all, or
    else, for each kind, the last call that held it. A number and an array are one leaf
    type here: what a tree function does with a leaf does not depend on which it is."""
    same = [
        (cell, e)
        for cell, calls in shown
        for e in calls
        if (e.function, e.places) == (call.function, call.places)
    ]
    wanted = [(place, _leaf_kinds(held)) for place, held in call.arguments]
    whole = [
        cell
        for cell, e in same
        if all(kinds <= _leaf_kinds(dict(e.arguments)[place]) for place, kinds in wanted)
    ]
    if whole:
        return (whole[-1],)
    cells = []
    for place, kinds in wanted:
        for kind in sorted(kinds):
            holding = [cell for cell, e in same if kind in _leaf_kinds(dict(e.arguments)[place])]
            if not holding:
                return ()
            cells.append(holding[-1])
    return tuple(dict.fromkeys(cells))


def _leaf_kinds(held: Kinds) -> set[str]:
    return {"array" if kind == "number" else kind for kind in held}


@dataclass
class _Asked:
    """A question, its own code cell (the one right before it, if hidden; None without
    one) and that cell's calls, the cells shown before it with their calls (the
    visible outputs of its page and the earlier ones, and the code of the questions
    already past: answering one reveals what its code gives), and every earlier cell
    whose code the reader saw."""

    question: Question
    own: Cell | None
    calls: list[Call]
    shown: list[tuple[Cell, list[Call]]]
    read: list[Cell]


def _asked(pages: Sequence[tuple[str, Path]]) -> Iterator[_Asked]:
    """Each question of ``pages``, in order, with what came before it (:class:`_Asked`)."""
    shown: list[tuple[Cell, list[Call]]] = []
    read: list[Cell] = []
    before: tuple[Cell, list[Call]] | None = None
    for chapter, path in pages:
        names: dict[str, Kinds] = {}
        for cell, questions in read_page(path, chapter):
            own = before if before is not None and "hide-output" in before[0].tags else None
            for question in questions:
                yield _Asked(
                    question,
                    own[0] if own else None,
                    own[1] if own else [],
                    list(shown),
                    read[:-1] if own else list(read),
                )
                if own is not None:
                    shown.append(own)
            before = (cell, cell_calls(cell.code, names))
            if cell.code.strip():
                read.append(cell)
            if cell.output.strip() and "hide-output" not in cell.tags and not questions:
                shown.append(before)
        before = None


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
    question the book's test fails, with the earlier cells that show its answer; and
    whether there is any."""
    recalled = [f"  {found}\n" for found in recall_questions(pages)]
    text = f"{len(recalled)} questions the book's test fails:\n"
    return text + "".join(recalled), bool(recalled)


def digests(pages: Sequence[tuple[str, Path]]) -> str:
    """A line ``KEY DIGEST`` for each question of ``pages``: what a reading records
    beside its label (``booktools/question_readings.py``)."""
    lines = []
    for each in _asked(pages):
        code = each.own.code if each.own else ""
        lines.append(
            f"{each.question.key} {digest(code, each.question.choices, each.question.answer)}\n"
        )
    return "".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m booktools.question_audit SITE_DIR``: the audit of the book built into
    ``SITE_DIR`` (``_build/html``), chapters in the course's order. Exits 1 when the
    book's test would fail. With ``--digests``, each question's digest instead."""
    parser = argparse.ArgumentParser(prog="python -m booktools.question_audit")
    parser.add_argument("site", type=Path, help="the built book, such as _build/html")
    parser.add_argument("--digests", action="store_true", help="print KEY DIGEST lines")
    arguments = parser.parse_args(argv)
    site = arguments.site
    pages = [(n.id, site / "book" / f"{n.id}.html") for n in load_course().notebooks]
    if arguments.digests:
        print(digests(pages), end="")
        return 0
    text, failed = audit_report(pages)
    print(text, end="")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
