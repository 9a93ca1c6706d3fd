"""Where a worker's control groups are made, on cgroup v1 and v2, and what is read from them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.execute.run import Limits, NotebookRun
from autograder.isolate import cgroups, processes
from autograder.isolate.cgroups import CPU, CPUACCT, PIDS, hierarchies, usage_seconds


def _mountinfo(*mounts: tuple[str, Path, str, str]) -> str:
    """``/proc/self/mountinfo`` lines for (root, mount point, file system, options) mounts."""
    return "".join(
        f"{30 + n} 1 0:{n} {root} {point} rw,relatime - {fs} {fs} {options}\n"
        for n, (root, point, fs, options) in enumerate(mounts)
    )


def test_on_v1_each_controller_is_found_in_its_own_hierarchy_at_this_process_s_group(tmp_path):
    info = _mountinfo(
        ("/", tmp_path / "cpu,cpuacct", "cgroup", "rw,cpu,cpuacct"),
        ("/", tmp_path / "pids", "cgroup", "rw,pids"),
        ("/", tmp_path / "memory", "cgroup", "rw,memory"),
        ("/", tmp_path / "unified", "cgroup2", "rw"),
    )
    own = "4:memory:/elsewhere\n3:pids:/jobs/grader\n2:cpu,cpuacct:/\n0::/\n"
    assert hierarchies(info, own) == {
        CPU: tmp_path / "cpu,cpuacct",
        CPUACCT: tmp_path / "cpu,cpuacct",
        PIDS: tmp_path / "pids" / "jobs" / "grader",
    }


def test_on_v2_the_controllers_delegated_to_this_process_s_group_are_found(tmp_path):
    own = tmp_path / "system.slice" / "grader.service"
    own.mkdir(parents=True)
    (own / "cgroup.subtree_control").write_text("cpu memory pids\n")
    info = _mountinfo(("/", tmp_path, "cgroup2", "rw,nsdelegate"))
    found = hierarchies(info, "0::/system.slice/grader.service\n")
    assert found == {CPU: own, CPUACCT: own, PIDS: own}


def test_on_v2_without_delegated_controllers_a_group_still_counts_cpu_time(tmp_path):
    (tmp_path / "cgroup.subtree_control").write_text("\n")
    info = _mountinfo(("/", tmp_path, "cgroup2", "rw"))
    assert hierarchies(info, "0::/\n") == {CPUACCT: tmp_path}


def test_a_group_outside_the_mounted_part_of_a_hierarchy_is_not_used(tmp_path):
    info = _mountinfo(("/docker/abc", tmp_path, "cgroup", "rw,pids"))
    assert hierarchies(info, "3:pids:/docker/abc/jobs\n") == {PIDS: tmp_path / "jobs"}
    assert hierarchies(info, "3:pids:/elsewhere\n") == {}


def test_cpu_time_is_read_from_cpuacct_on_v1_and_cpu_stat_on_v2(tmp_path):
    v1, v2 = tmp_path / "v1", tmp_path / "v2"
    v1.mkdir(), v2.mkdir()
    (v1 / "cpuacct.usage").write_text("1500000000\n")
    (v2 / "cpu.stat").write_text("usage_usec 2250000\nuser_usec 2000000\nsystem_usec 250000\n")
    assert usage_seconds(v1) == 1.5
    assert usage_seconds(v2) == 2.25
    assert usage_seconds(tmp_path) is None


needs_cpu_group = pytest.mark.skipif(
    not processes.counts_every_task(), reason="no CPU cgroup of the grader's own here"
)


@needs_cpu_group
def test_a_group_counts_the_cpu_time_of_a_child_that_has_ended():
    group = cgroups.Group(cgroups.own_hierarchies())
    try:
        work = "import os\nif os.fork() == 0:\n    sum(range(10**7))\n    os._exit(0)\nos.wait()"
        subprocess.run([sys.executable, "-c", work], preexec_fn=group.enter, check=True)
        assert group.cpu_seconds() > 0.1
    finally:
        group.close()


@needs_cpu_group
def test_every_worker_s_group_gets_the_same_fixed_cpu_weight():
    caps = [processes.ProcessCap(8), processes.ProcessCap(64)]
    try:
        weights = [
            cgroups.read(cap.group.folders[CPU] / name).strip()
            for cap in caps
            for name in ("cpu.weight", "cpu.shares")
            if (cap.group.folders[CPU] / name).exists()
        ]
        assert weights in ([str(cgroups.V2_WEIGHT)] * 2, [str(cgroups.V1_SHARES)] * 2)
    finally:
        for cap in caps:
            cap.close()


JAX_THEN_FORK = """
import os, time
import jax, jax.numpy as jnp


def jit_then_fork(n):
    total = float(jax.jit(lambda x: (x @ x).sum())(jnp.ones((64, 64))))
    started = 0
    try:
        for _ in range(n):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            started += 1
    except OSError:
        pass
    return total, started
"""


@pytest.mark.skipif(not processes.available(), reason="no cap on a worker's processes here")
def test_a_worker_runs_jax_under_the_default_cap_and_no_more_tasks_than_it():
    run = NotebookRun([(1, JAX_THEN_FORK)], Limits(notebook_seconds=60, call_seconds=20))
    try:
        total, started = run.call("jit_then_fork", (500,), {})
    finally:
        run.close()
    assert total == 64 * 64 * 64
    assert 0 < started < processes.TASKS < 128
