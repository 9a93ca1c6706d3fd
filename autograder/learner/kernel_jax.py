"""Whether the JAX this kernel runs is the JAX installed: a kernel can keep an old one.

A kernel that imported JAX before pip replaced it (Colab imports its own JAX before
the notebook's first cell installs the course's) keeps running the old modules, the
new files on disk notwithstanding, until it restarts. The course's tests are written
for the JAX it pins, which is the one installed wherever the course's setup or a
notebook's first cell ran; graded with another, a function can pass or fail for
reasons no message explains. So ``check`` and ``solution`` refuse to run in such a
kernel (:func:`refuse_if_stale`) and say how to restart it.

The comparison is with the installed distribution, not with the course's pin: a
restart loads what is installed, so that is what a restart can fix, and it needs no
copy of the pins at run time. A kernel that has not imported JAX has nothing stale:
what it imports next is what is installed.
"""

from __future__ import annotations

import importlib.metadata
import sys

RESTART = (
    "Restart the kernel (Jupyter: Kernel > Restart; Colab: Runtime > Restart session), "
    "then run the notebook again from the top."
)


def stale_jax() -> str | None:
    """The message to show instead of checking when the ``jax`` module this kernel imported
    is another version than the installed ``jax`` distribution; None when they agree, when
    the kernel has not imported ``jax``, or when either version cannot be read (nothing
    to compare: never a refusal on a guess).

    Never imports ``jax``. Costs a dictionary look-up where ``jax`` is not imported, and
    a read of the installed distributions' metadata (under a millisecond once cached)
    where it is.
    """
    module = sys.modules.get("jax")
    loaded = getattr(module, "__version__", None)
    if not isinstance(loaded, str):
        return None
    try:
        installed = importlib.metadata.version("jax")
    except importlib.metadata.PackageNotFoundError:
        return None
    if loaded == installed:
        return None
    return (
        f"Nothing was checked: this kernel still runs JAX {loaded}, imported before JAX "
        f"{installed}, the version the course needs, was installed. {RESTART}"
    )


def refuse_if_stale() -> bool:
    """Print :func:`stale_jax`'s message and return True when there is one; else False."""
    message = stale_jax()
    if message is not None:
        print(message)
    return message is not None
