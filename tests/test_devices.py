"""Every process that runs a notebook's code has the same eight CPU devices."""

from __future__ import annotations

import jax

from autograder.devices import CPU_DEVICES
from autograder.execute.run import Limits, NotebookRun


def test_the_tests_process_has_the_course_s_devices():
    assert len(jax.devices("cpu")) == CPU_DEVICES


def test_a_worker_has_the_course_s_devices_before_its_notebook_sets_them():
    limits = Limits(notebook_seconds=60, cell_seconds=30, call_seconds=30)
    run = NotebookRun([(1, "import jax\ndef devices():\n    return len(jax.devices())")], limits)
    try:
        assert run.call("devices", (), {}) == CPU_DEVICES
    finally:
        run.close()


def test_a_notebook_that_sets_the_same_count_again_runs_in_a_worker():
    source = (
        "import jax\n"
        "jax.config.update('jax_num_cpu_devices', 8)\n"
        "def mesh_size():\n"
        "    return jax.make_mesh((4, 2), ('data', 'model')).size"
    )
    limits = Limits(notebook_seconds=60, cell_seconds=30, call_seconds=30)
    run = NotebookRun([(1, source)], limits)
    try:
        assert run.call("mesh_size", (), {}) == 8
    finally:
        run.close()
