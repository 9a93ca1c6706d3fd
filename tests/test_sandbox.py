"""The worker process: what learner code can see, and what happens when it misbehaves."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from autograder.compare.failures import CallTimeout, FunctionMissing, LearnerError, WorkerCrashed
from autograder.execute import zygote
from autograder.execute.run import Limits, NotebookRun
from autograder.isolate import bubblewrap, cgroups, processes, seccomp, zygotes
from autograder.load.course import REPO_ROOT, SOLUTIONS

FAST = Limits(notebook_seconds=30, cell_seconds=3, call_seconds=3)


@pytest.fixture
def run_cells():
    runs = []

    def start(*sources: str, limits: Limits = FAST) -> NotebookRun:
        run = NotebookRun(list(enumerate(sources, start=1)), limits)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.close()


def test_results_come_back_as_plain_data(run_cells):
    run = run_cells("import numpy as np\ndef f(x):\n    return {'y': np.asarray(x) * 2, 'n': None}")
    out = run.call("f", ([1.0, 2.0],), {})
    assert out["n"] is None and isinstance(out["y"], np.ndarray)
    assert out["y"].tolist() == [2.0, 4.0]


def test_a_learner_cell_defines_a_dataclass_as_a_kernel_would(run_cells):
    run = run_cells(
        "import dataclasses\n\n\n@dataclasses.dataclass\nclass Point:\n    x: int\n\n\n"
        "def annotation():\n    return repr(Point.__annotations__['x'])"
    )
    assert run.call("annotation", (), {}) == "<class 'int'>"


def test_the_graders_environment_does_not_reach_the_worker(run_cells, monkeypatch):
    monkeypatch.setenv("GRADER_SECRET_TOKEN", "s3cret")
    run = run_cells("import os\ndef env():\n    return dict(os.environ)")
    assert "GRADER_SECRET_TOKEN" not in run.call("env", (), {})


def test_the_worker_runs_in_its_own_scratch_directory(run_cells):
    run = run_cells("import os\ndef where():\n    return os.getcwd()")
    where = run.call("where", (), {})
    assert where != os.getcwd() and "pytrees-worker-" in where


def test_a_call_that_never_returns_times_out(run_cells):
    run = run_cells("def spin():\n    while True:\n        pass\ndef ok():\n    return 1")
    with pytest.raises(CallTimeout):
        run.call("spin", (), {})
    assert run.call("ok", (), {}) == 1


def test_a_learner_exception_carries_its_type_and_learner_frames(run_cells):
    run = run_cells("def bad(x):\n    return x['missing']")
    with pytest.raises(LearnerError) as caught:
        run.call("bad", ({},), {})
    assert caught.value.type == "KeyError"
    assert 'the cell "def bad(x):", line 2, in bad' in caught.value.traceback


def test_a_function_that_kills_the_worker_is_reported_as_a_crash(run_cells):
    run = run_cells("import os\ndef die():\n    os._exit(7)")
    with pytest.raises(WorkerCrashed, match="exited with code 7"):
        run.call("die", (), {})


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "plain"])
def test_a_crash_names_the_signal_that_killed_the_worker(run_cells, sandbox):
    run = run_cells(
        "import ctypes\ndef segfault():\n    return ctypes.string_at(0)",
        limits=replace(FAST, sandbox=sandbox),
    )
    with pytest.raises(WorkerCrashed, match="killed by SIGSEGV"):
        run.call("segfault", (), {})


def test_runaway_recursion_is_folded_to_a_few_frames(run_cells):
    run = run_cells("def down(n):\n    return down(n + 1)")
    with pytest.raises(LearnerError) as caught:
        run.call("down", (0,), {})
    assert caught.value.type == "RecursionError"
    assert caught.value.traceback.count("in down") == 3
    assert "repeats" in caught.value.traceback


def test_sys_exit_inside_a_call_is_just_an_exception(run_cells):
    run = run_cells("import sys\ndef leave():\n    sys.exit(3)")
    with pytest.raises(LearnerError) as caught:
        run.call("leave", (), {})
    assert caught.value.type == "SystemExit"


def test_a_missing_function_lists_what_is_defined(run_cells):
    run = run_cells("def other():\n    pass")
    with pytest.raises(FunctionMissing) as caught:
        run.call("wanted", (), {})
    assert "other" in caught.value.names


def test_memory_beyond_the_limit_fails_only_that_call(run_cells):
    limits = Limits(notebook_seconds=30, cell_seconds=5, call_seconds=10, memory_bytes=1024**3)
    run = run_cells(
        "def hog():\n    return len(bytearray(4 * 1024**3))\ndef ok():\n    return 2", limits=limits
    )
    with pytest.raises(LearnerError) as caught:
        run.call("hog", (), {})
    assert caught.value.type == "MemoryError"
    assert run.call("ok", (), {}) == 2


def test_a_cell_that_hangs_is_skipped_and_reported(run_cells):
    run = run_cells("x = 1", "while True:\n    pass", "def f():\n    return x")
    assert run.call("f", (), {}) == 1
    assert [p.cell for p in run.problems] == [2]
    assert "did not finish within 3 s" in run.problems[0].text


def test_magics_and_shell_commands_are_skipped(run_cells):
    run = run_cells("%matplotlib inline\n!echo hi\ndef f():\n    return 5")
    assert run.call("f", (), {}) == 5


needs_bubblewrap = pytest.mark.skipif(
    bubblewrap.bubblewrap() is None, reason="bubblewrap is not available on this machine"
)


@needs_bubblewrap
def test_the_sandboxed_worker_cannot_see_the_solutions_or_the_tests(run_cells):
    run = run_cells("import os\ndef exists(path):\n    return os.path.exists(path)")
    assert run.call("exists", (str(SOLUTIONS),), {}) is False
    assert run.call("exists", (str(REPO_ROOT / "tests"),), {}) is False
    assert run.call("exists", (str(REPO_ROOT / "autograder" / "execute" / "wire.py"),), {}) is True


@needs_bubblewrap
def test_the_sandboxed_worker_cannot_write_outside_its_scratch_directory(run_cells):
    run = run_cells(
        "def write(path):\n"
        "    try:\n"
        "        open(path, 'w').write('x')\n"
        "        return 'written'\n"
        "    except OSError as error:\n"
        "        return type(error).__name__"
    )
    assert run.call("write", (str(REPO_ROOT / "autograder" / "injected.py"),), {}) != "written"
    assert not (REPO_ROOT / "autograder" / "injected.py").exists()
    assert run.call("write", ("notes.txt",), {}) == "written"


@needs_bubblewrap
def test_the_sandboxed_worker_has_no_network(run_cells):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        run = run_cells(
            "import socket\n"
            "def connect(port):\n"
            "    try:\n"
            "        socket.create_connection(('127.0.0.1', port), timeout=2).close()\n"
            "        return 'connected'\n"
            "    except OSError as error:\n"
            "        return type(error).__name__"
        )
        assert run.call("connect", (port,), {}) != "connected"


def test_without_the_sandbox_the_worker_is_a_plain_process(run_cells):
    limits = Limits(notebook_seconds=30, cell_seconds=3, call_seconds=3, sandbox=False)
    run = run_cells("import os\ndef exists(path):\n    return os.path.exists(path)", limits=limits)
    assert run.call("exists", (str(SOLUTIONS),), {}) is True
    as_root = bubblewrap.NOT_ISOLATED if os.geteuid() == 0 else bubblewrap.PROCESS
    assert bubblewrap.isolation(sandbox=False) == as_root


needs_process_cap = pytest.mark.skipif(
    not processes.available(), reason="workers' processes cannot be capped on this machine"
)

FORK_UNTIL_REFUSED = (
    "import os, time\n"
    "def fork_all(n):\n"
    "    started = 0\n"
    "    try:\n"
    "        for _ in range(n):\n"
    "            if os.fork() == 0:\n"
    "                time.sleep(60)\n"
    "                os._exit(0)\n"
    "            started += 1\n"
    "    except OSError:\n"
    "        pass\n"
    "    return started"
)


@needs_process_cap
@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "plain"])
def test_a_worker_cannot_start_more_processes_than_its_cap(run_cells, sandbox):
    limits = Limits(notebook_seconds=30, cell_seconds=5, call_seconds=10, processes=64)
    limits = replace(limits, sandbox=sandbox)
    run = run_cells(FORK_UNTIL_REFUSED, limits=limits)
    assert run.call("fork_all", (500,), {}) < 64


@needs_process_cap
def test_processes_a_worker_left_behind_are_killed_with_it(run_cells):
    run = run_cells(
        "import os, time\n"
        "def detach():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os.setsid()\n"
        "        time.sleep(60)\n"
        "        os._exit(0)\n"
        "    return pid",
        limits=replace(FAST, sandbox=False),
    )
    pid = run.call("detach", (), {})
    run.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_worker_starts_with_jax_and_the_notebook_helpers_already_imported(run_cells):
    run = run_cells(
        "import sys\n"
        "loaded = [m in sys.modules for m in ('jax.numpy', 'autograder.learner.feedback')]\n"
        "def preloaded():\n    return loaded"
    )
    assert run.call("preloaded", (), {}) == [True, True]


def test_each_notebook_gets_a_fresh_worker_that_keeps_nothing_of_the_last(run_cells):
    first = run_cells("import numpy, os\nnumpy.LEFT_BEHIND = 1\ndef pid():\n    return os.getpid()")
    first_pid = first.call("pid", (), {})
    first.close()
    second = run_cells(
        "import numpy, os\ndef probe():\n    return [hasattr(numpy, 'LEFT_BEHIND'), os.getpid()]"
    )
    left_behind, second_pid = second.call("probe", (), {})
    assert left_behind is False and second_pid != first_pid


@needs_bubblewrap
def test_files_a_worker_left_in_tmp_are_gone_for_the_next(run_cells):
    first = run_cells("def leave():\n    open('/tmp/left.txt', 'w').write('x')\n    return True")
    assert first.call("leave", (), {}) is True
    first.close()
    second = run_cells("import os\ndef look():\n    return os.listdir('/tmp')")
    assert "left.txt" not in second.call("look", (), {})


@needs_bubblewrap
def test_a_worker_cannot_read_the_memory_of_the_process_that_forked_it(run_cells):
    run = run_cells(
        "import os\n"
        "def peek():\n"
        "    try:\n"
        "        with open(f'/proc/{os.getppid()}/mem', 'rb') as mem:\n"
        "            mem.read(1)\n"
        "        return 'read'\n"
        "    except OSError as error:\n"
        "        return type(error).__name__"
    )
    assert run.call("peek", (), {}) == "PermissionError"


def test_a_worker_that_kills_its_parent_costs_only_its_own_notebook(run_cells):
    killer = run_cells("import os, signal\ndef kill():\n    os.kill(os.getppid(), signal.SIGKILL)")
    killer.call("kill", (), {})
    killer.close()
    after = run_cells("def ok():\n    return 'fine'")
    assert after.call("ok", (), {}) == "fine"


@pytest.mark.skipif(
    os.environ.get("PYTREES_REQUIRE_SANDBOX") != "1", reason="only where CI requires the sandbox"
)
def test_the_sandbox_runs_where_ci_requires_it():
    assert bubblewrap.bubblewrap() is not None, (
        "bubblewrap cannot run here, so every sandbox test would be skipped: install it "
        "(and on Ubuntu 24.04 allow unprivileged user namespaces), as .github/workflows/ci.yml does"
    )


needs_cgroup_cap = pytest.mark.skipif(
    not processes.describe(1).startswith(f"1 tasks ({processes.CGROUP})"),
    reason="no pids cgroup of the grader's own",
)


@needs_cgroup_cap
def test_a_grader_sweeps_the_empty_groups_that_killed_graders_left():
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    cap = processes.ProcessCap(1)
    left = (
        cap.group.folders[cgroups.PIDS].parent / f"{cgroups.GROUP_PREFIX}{ended.stdout.strip()}-0"
    )
    cap.close()
    left.mkdir()
    described = subprocess.run(
        [
            sys.executable,
            "-c",
            "from autograder.isolate import processes; print(processes.describe(8))",
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=True,
    )
    assert described.stdout.startswith("8 tasks (cgroup)")
    assert not left.exists()


SEEN = "import sys\ndef seen():\n    return [m for m in ('equinox', 'optax') if m in sys.modules]"


def test_a_worker_starts_with_the_libraries_the_notebooks_import_already_imported(run_cells):
    assert run_cells(SEEN).call("seen", (), {}) == []
    preloading = replace(FAST, preload=("equinox", "optax"))
    assert run_cells(SEEN, limits=preloading).call("seen", (), {}) == ["equinox", "optax"]


def test_a_library_that_cannot_be_imported_is_left_to_the_worker_to_report(run_cells):
    preloading = replace(FAST, preload=("no_such_library",))
    run = run_cells("import no_such_library", "def f():\n    return 1", limits=preloading)
    assert run.call("f", (), {}) == 1
    assert [p.cell for p in run.problems] == [1] and "no_such_library" in run.problems[0].text


COUNT_THREADS = """
import importlib, os, sys
import jax, jax.numpy, numpy
from autograder import notebook, watchers
before = len(os.listdir("/proc/self/task"))
for module in sys.argv[1:]:
    importlib.import_module(module)
    if len(os.listdir("/proc/self/task")) != before:
        print(module)
        break
"""


def test_preloading_the_courses_libraries_starts_no_thread_before_the_zygote_forks():
    from autograder.isolate.zygotes import worker_environment
    from autograder.load.course import load_course

    modules = sorted({m for n in load_course(SOLUTIONS).notebooks for m in n.library_imports})
    done = subprocess.run(
        [sys.executable, "-c", COUNT_THREADS, *modules],
        env=worker_environment(Path("/tmp")),
        capture_output=True,
        text=True,
        check=True,
    )
    assert modules and done.stdout == "", f"importing {done.stdout.strip()} started a thread"


WRITE = (
    "import os\n"
    "def write(folder):\n"
    "    try:\n"
    "        with open(os.path.join(folder, 'zz_written'), 'w') as out:\n"
    "            out.write('x')\n"
    "        return 'written'\n"
    "    except OSError as error:\n"
    "        return type(error).__name__\n"
    "def import_path():\n"
    "    import sys\n"
    "    return [p for p in sys.path if os.path.isdir(p)]"
)


@needs_bubblewrap
def test_no_folder_on_the_workers_import_path_is_writable(run_cells):
    run = run_cells(WRITE)
    path = run.call("import_path", (), {})
    assert path and all(run.call("write", (folder,), {}) != "written" for folder in path)


@needs_bubblewrap
@pytest.mark.parametrize("folder", ["/", "/dev", "/root", "/var", str(REPO_ROOT)])
def test_the_sandbox_is_read_only_outside_tmp_and_dev_shm(run_cells, folder):
    assert run_cells(WRITE).call("write", (folder,), {}) != "written"


@needs_bubblewrap
@pytest.mark.parametrize("folder", [".", "/tmp", "/dev/shm"])
def test_a_worker_writes_in_its_scratch_tmp_and_dev_shm(run_cells, folder):
    assert run_cells(WRITE).call("write", (folder,), {}) == "written"


@needs_bubblewrap
def test_the_hosts_kernel_settings_cannot_be_opened_for_writing(run_cells):
    run = run_cells(WRITE.replace("os.path.join(folder, 'zz_written')", "folder"))
    assert run.call("write", ("/proc/sys/kernel/core_pattern",), {}) in {
        "PermissionError",
        "OSError",
    }


@needs_bubblewrap
@pytest.mark.skipif(os.geteuid() != 0, reason="only a grader running as root changes user")
def test_a_grader_running_as_root_runs_workers_as_an_unprivileged_user(run_cells):
    run = run_cells(
        "import os\ndef who():\n    return [os.getuid(), os.geteuid(), os.getgid(), os.getgroups()]"
    )
    uid = bubblewrap.SANDBOX_UID
    assert run.call("who", (), {}) == [uid, uid, bubblewrap.SANDBOX_GID, []]


@needs_bubblewrap
def test_a_worker_has_no_capabilities(run_cells):
    run = run_cells(
        "def caps():\n"
        "    lines = open('/proc/self/status').read().splitlines()\n"
        "    return {l.split(':')[0]: int(l.split()[1], 16) for l in lines if l.startswith('Cap')}"
    )
    assert set(run.call("caps", (), {}).values()) == {0}


LIBC_CALL = (
    "import ctypes, ctypes.util\n"
    "libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)\n"
    "def call(name, *args):\n"
    "    result = getattr(libc, name)(*args)\n"
    "    return [result, ctypes.get_errno()]"
)
CLONE_NEWUSER, CLONE_NEWNS, IPC_CREAT = 0x10000000, 0x00020000, 0o1000


@needs_bubblewrap
@pytest.mark.skipif(not seccomp.available(), reason="libseccomp cannot be loaded here")
@pytest.mark.parametrize(
    "call",
    [
        ("unshare", CLONE_NEWUSER),
        ("unshare", CLONE_NEWNS),
        ("shmget", 0, 4096, IPC_CREAT | 0o600),
        ("msgget", 0, IPC_CREAT | 0o600),
    ],
    ids=["user-namespace", "mount-namespace", "sysv-shared-memory", "sysv-message-queue"],
)
def test_a_worker_is_refused_what_a_notebook_never_needs(run_cells, call):
    assert run_cells(LIBC_CALL).call("call", call, {}) == [-1, errno.EPERM]


@needs_bubblewrap
def test_files_in_memory_count_against_the_workers_memory(run_cells):
    memory = 1024**3
    limits = replace(FAST, memory_bytes=memory)
    run = run_cells(
        "import resource\n"
        "def fill(folder, mib):\n"
        "    try:\n"
        "        with open(folder + '/big', 'wb') as out:\n"
        "            for _ in range(mib):\n"
        "                out.write(b'x' * 2**20)\n"
        "        return 'written'\n"
        "    except OSError as error:\n"
        "        return error.strerror\n"
        "def address_space():\n"
        "    return resource.getrlimit(resource.RLIMIT_AS)[0]",
        limits=limits,
    )
    size = bubblewrap.tmpfs_bytes(memory)
    assert run.call("fill", ("/dev/shm", size // 2**20 + 1), {}) == "No space left on device"
    assert run.call("fill", ("/tmp", size // 2**20 + 1), {}) == "No space left on device"
    assert run.call("address_space", (), {}) == memory - 2 * size


@needs_bubblewrap
def test_what_a_worker_left_in_memory_and_locked_folders_is_gone_for_the_next(run_cells):
    first = run_cells(
        "import os\n"
        "def leave():\n"
        "    for folder in ('/tmp', '/dev/shm'):\n"
        "        os.makedirs(folder + '/locked/inside')\n"
        "        os.chmod(folder + '/locked', 0)\n"
        "        open(folder + '/left', 'wb').write(b'x' * 2**20)\n"
        "    return os.getppid()"
    )
    zygote = first.call("leave", (), {})
    first.close()
    second = run_cells(
        "import os\n"
        "def look():\n"
        "    return [os.listdir('/dev/shm'), os.getppid(), [n for n in os.listdir('/tmp')"
        " if not n.startswith('pytrees-worker-')]]"
    )
    left_in_shm, same_zygote, left_in_tmp = second.call("look", (), {})
    # a clone under /tmp has the way to Python and the grader there, bound from the host
    on_the_way = {
        Path(path).relative_to("/tmp").parts[0]
        for path in bubblewrap.bound_paths()
        if path.startswith("/tmp/")
    }
    assert (left_in_shm, set(left_in_tmp)) == ([], on_the_way)
    assert same_zygote == zygote  # proven clean, so the zygote was kept


def test_a_grader_removes_the_scratch_folders_that_killed_graders_left(monkeypatch):
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    left = Path(tempfile.gettempdir(), f"{zygotes.SCRATCH_PREFIX}{ended.stdout.strip()}-x1")
    (left / "pytrees-worker-0").mkdir(parents=True)
    (left / "pytrees-worker-0" / "learner-file.py").write_text("x = 1")
    own = Path(tempfile.mkdtemp(prefix=zygotes._scratch_prefix()))
    monkeypatch.setattr(zygotes, "_swept", False)
    try:
        zygotes._sweep_once()
        assert not left.exists() and own.exists()
    finally:
        shutil.rmtree(own, ignore_errors=True)


def test_emptying_a_writable_folder_keeps_only_the_way_to_what_is_bound_there(tmp_path):
    from autograder.execute.zygote import _emptied

    bound = tmp_path / "clone" / ".venv"
    bound.mkdir(parents=True)
    (bound / "kept.py").write_text("")
    (tmp_path / "clone" / "planted.py").write_text("")
    (tmp_path / "locked" / "inside").mkdir(parents=True)
    (tmp_path / "locked").chmod(0)
    (tmp_path / "left.txt").write_text("")
    assert _emptied(str(tmp_path), (str(bound),))
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "clone",
        "clone/.venv",
        "clone/.venv/kept.py",
    ]


@needs_bubblewrap
def test_what_a_worker_changed_of_its_zygote_does_not_reach_the_next_worker(run_cells):
    first = run_cells(
        "import os, resource\n"
        "def change_the_zygote():\n"
        "    resource.prlimit(1, resource.RLIMIT_NOFILE, (64, 64))\n"
        "    os.setpriority(os.PRIO_PROCESS, 1, 19)\n"
        "    return resource.prlimit(1, resource.RLIMIT_NOFILE)"
    )
    assert list(first.call("change_the_zygote", (), {})) == [64, 64]
    first.close()
    second = run_cells(
        "import os, resource\n"
        "def inherited():\n"
        "    limit = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "    return [limit, os.getpriority(os.PRIO_PROCESS, 0)]"
    )
    limit, priority = second.call("inherited", (), {})
    assert list(limit) != [64, 64] and priority != 19


MAKE_SOCKET = (
    "import socket\n"
    "def make(family, kind, pair=False):\n"
    "    try:\n"
    "        made = socket.socketpair(family, kind) if pair else [socket.socket(family, kind)]\n"
    "    except OSError as error:\n"
    "        return error.errno\n"
    "    for end in made:\n"
    "        end.close()\n"
    "    return 'made'"
)
AF_VSOCK = 40


@needs_bubblewrap
@pytest.mark.skipif(not seccomp.available(), reason="libseccomp cannot be loaded here")
@pytest.mark.parametrize(
    ("family", "kind"),
    [
        (socket.AF_INET, socket.SOCK_STREAM),
        (socket.AF_INET6, socket.SOCK_DGRAM),
        (AF_VSOCK, socket.SOCK_STREAM),
        (socket.AF_NETLINK, socket.SOCK_RAW),
        (socket.AF_PACKET, socket.SOCK_RAW),
    ],
    ids=["inet", "inet6", "vsock", "netlink", "packet"],
)
def test_a_worker_can_make_no_socket_but_a_unix_one(run_cells, family, kind):
    run = run_cells(MAKE_SOCKET)
    assert run.call("make", (int(family), int(kind)), {}) == errno.EAFNOSUPPORT
    assert run.call("make", (int(family), int(kind), True), {}) == errno.EAFNOSUPPORT


@needs_bubblewrap
def test_a_worker_makes_unix_sockets_and_pairs(run_cells):
    run = run_cells(MAKE_SOCKET)
    assert run.call("make", (int(socket.AF_UNIX), int(socket.SOCK_STREAM)), {}) == "made"
    assert run.call("make", (int(socket.AF_UNIX), int(socket.SOCK_DGRAM), True), {}) == "made"


SANDBOX_OF = (
    "import os, threading\n"
    "def sandbox(threads=0):\n"
    "    for _ in range(threads):\n"
    "        started = threading.Thread(target=int)\n"
    "        started.start()\n"
    "        started.join()\n"
    "    return [os.readlink('/proc/self/ns/pid'), os.getpid()]\n"
    "def leave():\n"
    "    os._exit(3)\n"
    "def spin():\n"
    "    while True:\n"
    "        pass\n"
    "def exit_after_returning():\n"
    "    threading.Timer(0.2, os._exit, (3,)).start()\n"
    "    return 'returned'"
)
MOVED_PIDS = 300


@needs_bubblewrap
@pytest.mark.parametrize(
    "ending",
    ["leave", "spin", "exit_after_returning"],
    ids=["exits-in-a-call", "times-out", "exits-between-calls"],
)
def test_a_worker_that_ends_abnormally_is_restarted_in_a_new_sandbox(run_cells, ending):
    run = run_cells(SANDBOX_OF)
    namespace, _ = run.call("sandbox", (MOVED_PIDS,), {})
    with contextlib.suppress(CallTimeout, WorkerCrashed):
        run.call(ending, (), {})
        time.sleep(1.0)  # the worker that returned ends meanwhile
    restarted, pid = run.call("sandbox", (), {})
    # a new pid namespace: nothing of the pids the last worker moved
    assert restarted != namespace and pid < MOVED_PIDS


@needs_bubblewrap
def test_a_learner_after_a_worker_that_ended_abnormally_gets_a_new_sandbox(run_cells):
    first = run_cells(SANDBOX_OF)
    namespace, _ = first.call("sandbox", (MOVED_PIDS,), {})
    with pytest.raises(WorkerCrashed):
        first.call("leave", (), {})
    first.close()
    following, pid = run_cells(SANDBOX_OF).call("sandbox", (), {})
    assert following != namespace and pid < MOVED_PIDS


@needs_bubblewrap
def test_a_learner_after_a_finished_worker_is_forked_by_the_same_zygote(run_cells):
    first = run_cells(SANDBOX_OF)
    namespace, _ = first.call("sandbox", (), {})
    first.close()
    assert run_cells(SANDBOX_OF).call("sandbox", (), {})[0] == namespace


SOCKETS_LEFT = (
    "import socket\n"
    "def leave_a_socket():\n"
    "    # each end sent over the pair itself: the sockets outlive every process\n"
    "    ends = socket.socketpair()\n"
    "    socket.send_fds(ends[0], [b'x'], [end.fileno() for end in ends])\n"
    "    return sockets()\n"
    "def sockets():\n"
    "    return len(open('/proc/net/unix').read().splitlines()) - 1"
)


@needs_bubblewrap
def test_a_socket_a_worker_left_in_the_kernel_is_not_in_the_next_workers_sandbox(run_cells):
    # The kernel collects such a cycle of sockets in flight when it gets to it: the next
    # worker is in a new sandbox, unless the sockets were gone when the zygote proved its
    # own; either way the next learner finds none of them.
    first = run_cells(SOCKETS_LEFT)
    assert first.call("leave_a_socket", (), {}) == 2
    first.close()
    assert run_cells(SOCKETS_LEFT).call("sockets", (), {}) == 0


@pytest.mark.parametrize("table", zygote.SOCKET_TABLES)
def test_a_socket_left_in_any_table_of_the_sandboxs_network_fails_its_proof(tmp_path, table):
    for name in zygote.SOCKET_TABLES:
        (tmp_path / name).write_text("  sl  local_address rem_address   st\n")
    assert zygote.no_sockets_left(str(tmp_path))
    with (tmp_path / table).open("a") as listed:
        listed.write("   0: 0100007F:2710 0100007F:1F90 06 00000000:00000000\n")
    assert not zygote.no_sockets_left(str(tmp_path))


ERRORS_ON_EVERY_RUN = (
    "import os\nraise RuntimeError('LEAK-' + os.urandom(4).hex())",
    "raise type('LEAK_NAMED', (Exception,), {})()",
    "import os\ndef crash():\n    os._exit(3)\ndef ok():\n    return 1",
)


def test_a_cells_error_after_hidden_tests_reaches_the_notes_by_its_type_only(run_cells):
    run = run_cells(*ERRORS_ON_EVERY_RUN)
    run.start_test("the hidden test", hidden=True)
    assert run.call("ok", (), {}) == 1  # the first run: before any hidden input
    with pytest.raises(WorkerCrashed):
        run.call("crash", (), {})
    assert run.call("ok", (), {}) == 1  # the restart runs the cells again
    notes = [(p.cell, p.text) for p in run.problems]
    assert [cell for cell, text in notes if "LEAK" in text] == [1, 2]  # the first run's
    assert (1, "raised RuntimeError (its message is not shown once hidden tests have run)") in notes
    assert (2, "raised an exception (its message is not shown once hidden tests have run)") in notes
