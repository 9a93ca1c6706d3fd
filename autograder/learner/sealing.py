"""Reference solutions that open only for a function that already gives the right answers.

The exercise notebook carries each reference solution *sealed*: encrypted with a
key made from the reference function's results on a few probe inputs (listed in
the solution cell's metadata). A learner's function that returns the same results
makes the same key and can read the solution; one that does not, cannot.

This is a lock for learners, not a vault: anyone who can compute the right
results (for example by solving the exercise another way) can open it. It is
written with the standard library only (a PBKDF2 key, SHA-256 in counter mode,
and an HMAC to tell a wrong key from a right one) so that the learner's kernel
needs no cryptography package.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from typing import Any

import numpy as np

from autograder.learner.watchers import is_key_array, spec_entries

FLOAT_DECIMALS = 5
MAX_DEPTH = 40


class SealError(ValueError):
    """A sealed text that is damaged, or that this key does not open."""


def canonical(value: Any, depth: int = 0) -> Any:
    """A JSON-ready description of ``value`` that two equal answers share.

    Floats are rounded, so tiny numerical differences between two correct
    functions do not change it; container types, dict keys, dtypes' kinds and
    shapes do.
    """
    if depth > MAX_DEPTH:
        return "…"
    deeper = depth + 1
    if isinstance(value, np.generic):
        value = value.item()  # a NumPy scalar reads as the Python number it holds
    if value is None or isinstance(value, bool | int | str):
        return [type(value).__name__, value]
    if isinstance(value, float):
        return ["float", _rounded(value)]
    if isinstance(value, complex):
        return ["complex", _rounded(value.real), _rounded(value.imag)]
    spec = _spec_entries(value)
    if spec is not None:
        return ["spec", spec]
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        layout = _layout(value)
        if layout is not None:
            return ["laid out", layout, canonical(np.asarray(value), deeper)]
        if is_key_array(value):
            import jax

            data = np.asarray(jax.random.key_data(value))
            return ["keys", str(jax.random.key_impl(value)), list(data.shape), data.tolist()]
        array = np.asarray(value)
        kind, shape = array.dtype.kind, list(array.shape)
        if kind == "f":
            return ["array", kind, shape, _round_array(array).tolist()]
        if kind == "c":
            parts = [_round_array(array.real).tolist(), _round_array(array.imag).tolist()]
            return ["array", kind, shape, parts]
        return ["array", kind, shape, array.tolist()]
    fields = getattr(type(value), "_fields", None)
    if isinstance(value, tuple) and fields is not None:
        items = [canonical(v, deeper) for v in value]
        return ["namedtuple", type(value).__name__, list(fields), items]
    if isinstance(value, list | tuple):
        return [type(value).__name__, [canonical(v, deeper) for v in value]]
    if isinstance(value, dict):
        items = [[repr(k), canonical(v, deeper)] for k, v in value.items()]
        if type(value) is dict:
            items.sort(key=lambda item: item[0])
        return [type(value).__name__, items]
    if isinstance(value, set | frozenset):
        return [type(value).__name__, sorted(repr(v) for v in value)]
    return _custom_node(value, deeper)


def _spec_entries(value: Any) -> list[Any] | None:
    """A ``PartitionSpec``'s entries, without trailing ``None``s; ``None`` for anything else."""
    import sys

    sharding = sys.modules.get("jax.sharding")
    if sharding is None or not isinstance(value, sharding.PartitionSpec):
        return None
    return [
        list(e) if isinstance(e, tuple) else repr(e) if e is not None else None
        for e in spec_entries(value)
    ]


def _layout(value: Any) -> list[Any] | None:
    """A JAX array's spec and mesh when it is laid out over a mesh, else ``None``.

    Two functions that return the same values laid out differently give different keys.
    """
    import sys

    jax = sys.modules.get("jax")
    if jax is None or not isinstance(value, jax.Array):
        return None
    sharding = value.sharding
    if not isinstance(sharding, jax.sharding.NamedSharding):
        return None
    return [
        _spec_entries(sharding.spec),
        [[str(k), int(n)] for k, n in sharding.mesh.shape.items()],
    ]


def _custom_node(value: Any, depth: int) -> Any:
    import jax.tree_util as tu

    try:
        children, aux = tu.flatten_one_level(value)
    except ValueError:
        return ["object", type(value).__name__]
    return ["node", type(value).__name__, repr(aux), [canonical(c, depth) for c in children]]


def _round_array(array: np.ndarray) -> np.ndarray:
    return np.round(array.astype(np.float64), FLOAT_DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0


def _rounded(number: float) -> Any:
    if math.isnan(number) or math.isinf(number):
        return repr(number)
    return round(number, FLOAT_DECIMALS) + 0.0


# Deliberately slow (about 0.2 s on a laptop) so that guessing the results of a
# function with few possible answers costs hours, not seconds; probes are chosen
# so that there are many (see AUTHORING.md).
KEY_ITERATIONS = 600_000


def fingerprint(label: str, results: list[Any]) -> bytes:
    """The key made from a function's ``results`` on its probes."""
    text = json.dumps([label, [canonical(r) for r in results]], sort_keys=True)
    return hashlib.pbkdf2_hmac("sha256", text.encode(), label.encode(), KEY_ITERATIONS)


def _keystream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = (
        hashlib.sha256(key + nonce + counter.to_bytes(8, "big")).digest()
        for counter in range((length + 31) // 32)
    )
    return b"".join(blocks)[:length]


def seal(text: str, key: bytes) -> str:
    """``text`` encrypted with ``key``, as ASCII. The same text and key give the same seal."""
    plain = text.encode()
    nonce = hashlib.sha256(key + plain).digest()[:16]
    cipher = bytes(a ^ b for a, b in zip(plain, _keystream(key, nonce, len(plain)), strict=True))
    tag = hmac.new(key, nonce + cipher, hashlib.sha256).digest()[:16]
    return base64.b64encode(nonce + tag + cipher).decode()


def unseal(sealed: str, key: bytes) -> str:
    """The text inside ``sealed``; raises SealError unless ``key`` is the one it was sealed with."""
    try:
        raw = base64.b64decode(sealed.encode(), validate=True)
    except (ValueError, UnicodeError):
        raise SealError("the sealed solution is damaged") from None
    nonce, tag, cipher = raw[:16], raw[16:32], raw[32:]
    expected = hmac.new(key, nonce + cipher, hashlib.sha256).digest()[:16]
    if len(raw) < 32 or not hmac.compare_digest(tag, expected):
        raise SealError("these results do not open the sealed solution")
    plain = bytes(a ^ b for a, b in zip(cipher, _keystream(key, nonce, len(cipher)), strict=True))
    return plain.decode()
