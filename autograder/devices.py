"""How many CPU devices JAX has in every process of the course.

The chapter on trees across devices lays parameter trees out over a mesh of eight
devices, on a machine with one CPU. JAX splits the CPU into that many devices when
``jax_num_cpu_devices`` is set before its backend starts, and refuses a different
count afterwards. So every process that runs a notebook's code sets the same count
before its first JAX operation: the grader (its test cells and the setup cells it
runs), the zygote its workers fork from, the process that seals the reference
solutions, the process that fills the compile store (JAX's cache keys include the
devices), and the course's tests; the notebooks and the book's pages set it
themselves in their first cell, so a learner's kernel, the book's build and
nbgrader agree with the grader without a variable to remember.
"""

from __future__ import annotations

CPU_DEVICES = 8


def use_cpu_devices() -> None:
    """Give JAX :data:`CPU_DEVICES` CPU devices in this process.

    Must run before the process's first JAX operation; once the backend has started,
    it succeeds only if the count already is :data:`CPU_DEVICES` (JAX raises
    ``RuntimeError`` otherwise).
    """
    import jax

    jax.config.update("jax_num_cpu_devices", CPU_DEVICES)
