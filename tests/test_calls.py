"""JAX calls written down as plain data, and replayed from it into the compile store."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.store import calls
from autograder.store.folder import cache_settings

# Each runs in a process of its own: recording patches JAX for the rest of the process.
# Both set the devices the course's workers and the replay have: cache keys include them.
RECORD = textwrap.dedent(
    """
    import sys
    from autograder.devices import use_cpu_devices
    use_cpu_devices()
    from autograder.store.jax_internals import record_calls
    record_calls(sys.argv[1])
    import jax, jax.numpy as jnp
    """
)
COMPILE = textwrap.dedent(
    """
    import sys
    import jax, jax.numpy as jnp
    from autograder.devices import use_cpu_devices
    from autograder.store.folder import cache_settings
    use_cpu_devices()
    for name, value in cache_settings(sys.argv[1], writable=True).items():
        jax.config.update(name, value)
    """
)
COURSE_CODE = textwrap.dedent(
    """
    x = jnp.ones((2, 3))
    def double(v):
        return v * 2
    class Doubler:
        def __call__(self, v):
            return v * 2
    jax.jit(double)(x)
    jax.lax.map(double, x)
    jnp.piecewise(x, [x > 0], [double])
    jax.jit(Doubler())(x)
    """
)


def _run(prelude: str, source: str, folder: Path) -> None:
    subprocess.run([sys.executable, "-c", prelude + source, str(folder)], check=True)


def _replay(folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "autograder.store.replay", str(folder)],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def _records(folder: Path) -> list[dict]:
    return [json.loads(line) for p in folder.glob(calls.RECORD_GLOB) for line in p.open()]


def _entries(folder: Path) -> set[str]:
    return {p.name for p in folder.glob("*-cache")}


def test_a_replayed_call_is_filed_under_the_key_the_call_itself_compiled_to(tmp_path):
    source = "x = jnp.ones((2, 3))\njnp.tanh(x); jnp.sum(x * 2.0 + 1, axis=0); jnp.stack([x, x])\n"
    recorded, direct = tmp_path / "recorded", tmp_path / "direct"
    recorded.mkdir()
    _run(RECORD, source, recorded)
    _replay(recorded)
    replayed = _entries(recorded)
    _run(COMPILE, source, direct)
    wanted = {name for name in _entries(direct) if name.startswith(("jit_tanh", "jit_multiply"))}
    assert wanted and wanted <= replayed
    assert {n.split("-")[0] for n in _entries(direct) - replayed} == set()


def test_course_code_and_calls_given_course_code_are_not_written_down(tmp_path):
    _run(RECORD, COURSE_CODE, tmp_path)
    names = {record.get("primitive") or record["jit"][1] for record in _records(tmp_path)}
    assert names.isdisjoint({"double", "Doubler", "scan", "_piecewise", "<lambda>"}), names


def test_replaying_leaves_only_compiled_operations_behind(tmp_path):
    _run(RECORD, "jnp.tanh(jnp.ones(3))\n", tmp_path)
    assert ", 0 could not be" in _replay(tmp_path)
    assert not list(tmp_path.glob(calls.RECORD_GLOB)) and _entries(tmp_path)


@pytest.mark.parametrize(
    "value",
    [
        jnp.ones((2, 3)),
        jnp.asarray(2.0),  # weakly typed
        jax.lax.broadcast(1, (4,)),  # weakly typed, not a scalar
        np.ones((3,), np.int16),
        np.int64(5),
        np.dtype("float16"),
        jnp.bfloat16,
        np.float32,
        (1, 2.5, None, "name", 1j, [True]),
        jax.lax.GatherScatterMode.FILL_OR_DROP,
        jax.lax.GatherDimensionNumbers((0,), (1,), (0,)),
    ],
    ids=repr,
)
def test_plain_data_is_written_down_and_read_back_as_the_same_kind(value):
    back = calls.decode(json.loads(json.dumps(calls.encode(value))))
    if isinstance(value, jax.Array):
        assert jax.typeof(back) == jax.typeof(value) and not back.any()
    elif isinstance(value, np.ndarray):
        assert (back.shape, back.dtype) == (value.shape, value.dtype) and not back.any()
    elif isinstance(value, type):
        assert back == np.dtype(value)
    else:
        assert back == value and type(back) is type(value)


@pytest.mark.parametrize(
    "value",
    [
        lambda x: x,
        jax.random.key(0),
        object(),
        {"a": 1},
        Path("/tmp"),
    ],
    ids=["a function", "a key array", "an object", "a dict", "a path"],
)
def test_anything_else_cannot_be_written_down(value):
    with pytest.raises(calls.NotPlain):
        calls.encode(value)


def test_a_traced_value_cannot_be_written_down():
    def encode(x):
        with pytest.raises(calls.NotPlain):
            calls.encode(x)
        return x

    jax.jit(encode)(1.0)


UNSAFE_RECORDS = {
    "a function outside JAX": {"jit": ["os", "system"], "args": ["true"], "kwargs": {}},
    "a NumPy function that writes": {"jit": ["numpy", "save"], "args": ["x", 1], "kwargs": {}},
    "a JAX function that is not jitted": {
        "jit": ["jax.config", "update"],
        "args": ["jax_enable_x64", True],
        "kwargs": {},
    },
    "a name with a local part": {"jit": ["jax.numpy", "<locals>.f"], "args": [], "kwargs": {}},
    "an enum outside JAX": {
        "jit": ["jax.numpy", "tanh"],
        "args": [{"enum": ["signal", "Signals", "SIGKILL"]}],
        "kwargs": {},
    },
    "a named tuple outside JAX": {
        "jit": ["jax.numpy", "tanh"],
        "args": [{"named": ["os", "terminal_size", [1, 2]]}],
        "kwargs": {},
    },
    "an unknown primitive": {"primitive": "os.system", "args": [], "params": {}},
    "an unknown kind of value": {
        "jit": ["jax.numpy", "tanh"],
        "args": [{"code": "1"}],
        "kwargs": {},
    },
}


@pytest.mark.parametrize("record", UNSAFE_RECORDS.values(), ids=UNSAFE_RECORDS.keys())
def test_a_record_naming_anything_but_jax_is_refused(record):
    with pytest.raises(calls.NotPlain):
        calls.replay(record, calls.jax_primitives())


def test_jax_primitives_are_found_by_name():
    primitives = calls.jax_primitives()
    assert primitives["add"] is jax.lax.add_p and primitives["tanh"] is jax.lax.tanh_p


def test_replay_settings_write_every_compile(tmp_path):
    settings = cache_settings(str(tmp_path), writable=True)
    assert settings["jax_persistent_cache_min_compile_time_secs"] == 0.0


TOOL = "numpy.f2py.__main__"  # importing it starts f2py's command-line tool
NOT_YET_IMPORTED = {
    "an enum of a module that runs a tool": (
        TOOL,
        {"jit": ["jax.numpy", "tanh"], "args": [{"enum": [TOOL, "Mode", "RUN"]}], "kwargs": {}},
    ),
    "a named tuple of a module that runs a tool": (
        TOOL,
        {"jit": ["jax.numpy", "tanh"], "args": [{"named": [TOOL, "Args", [1]]}], "kwargs": {}},
    ),
    "a function of a JAX module not imported": (
        "jax.example_libraries.optimizers",
        {"jit": ["jax.example_libraries.optimizers", "sgd"], "args": [0.1], "kwargs": {}},
    ),
}


@pytest.mark.parametrize(
    ("module", "record"), NOT_YET_IMPORTED.values(), ids=NOT_YET_IMPORTED.keys()
)
def test_a_record_naming_a_module_not_yet_imported_is_refused_without_importing_it(module, record):
    assert module not in sys.modules
    with pytest.raises(calls.NotPlain, match="not imported"):
        calls.replay(record, calls.jax_primitives())
    assert module not in sys.modules
