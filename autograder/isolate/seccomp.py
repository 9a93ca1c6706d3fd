"""The system calls a sandboxed worker is refused: a seccomp filter for bubblewrap's ``--seccomp``.

A notebook never needs to make namespaces, mount, trace another process, use the
kernel's keyrings, BPF, io_uring or performance counters, or load kernel
modules; each is attack surface on the kernel that every learner shares. SysV
IPC and POSIX message queues are refused too: they live in the sandbox's IPC
namespace, not in a file, so a worker could leave one there for the next worker
of the same sandbox (see :mod:`autograder.execute.zygote`).

Sockets are made for ``AF_UNIX`` only, which stays inside the sandbox (it is what
Python's own ``socketpair`` uses; a worker's channel to the grader is a pair of
pipes). Every other family is refused with "address family not supported": a
network namespace walls off the internet families but not all of them (``AF_VSOCK``
reaches the hypervisor of a virtual machine from any namespace), and a TCP
connection's TIME_WAIT outlives the worker that made it, in the sandbox's tables.

Everything else is allowed: the filter is a deny list, because numpy, XLA and the
libraries' threads make a long, version-dependent list of calls.

The filter is compiled by libseccomp (Debian's ``libseccomp2``, through the
``pyseccomp`` binding), which knows each architecture's call numbers.
"""

from __future__ import annotations

import errno
import functools
import os
import socket
import tempfile

REFUSED = (
    # namespaces and mounts
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsmount",
    "fsconfig", "move_mount", "open_tree", "mount_setattr",
    # other processes' memory
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # kernel attack surface a notebook never needs
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "open_by_handle_at",
    "name_to_handle_at", "lookup_dcookie", "fanotify_init", "syslog", "vhangup", "acct",
    "quotactl", "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "ioprio_set",
    # state that outlives a worker in the sandbox's IPC namespace
    "shmget", "msgget", "semget", "mq_open",
)  # fmt: skip

CLONE_NEW_FLAGS = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
)


@functools.cache
def _compiled() -> bytes | None:
    """The filter as BPF, or None where libseccomp cannot be loaded (not Linux, or missing)."""
    try:
        import pyseccomp as seccomp
    except Exception:  # noqa: BLE001 - not installed, or libseccomp missing (RuntimeError)
        return None
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in REFUSED:
        try:
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError, OSError):  # a call this architecture lacks
            continue
    for flag in CLONE_NEW_FLAGS:  # clone's flags are its first argument on x86-64 and arm64
        refused = seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag)
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", refused)
    for call in ("socket", "socketpair"):  # the family is the first argument
        other_family = seccomp.Arg(0, seccomp.NE, socket.AF_UNIX)
        rules.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), call, other_family)
    # clone3 passes its flags in memory, where a filter cannot read them: "not implemented"
    # makes the C library fall back to clone, which the rules above see.
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def available() -> bool:
    """Whether workers get the filter here."""
    return _compiled() is not None


def filter_fd() -> int | None:
    """A new file descriptor to read the compiled filter from (bubblewrap reads and closes it).

    None where libseccomp cannot be loaded.
    """
    program = _compiled()
    if program is None:
        return None
    read_end, write_end = os.pipe()
    # a filter is a few hundred bytes, far below a pipe's buffer, so this cannot block
    os.write(write_end, program)
    os.close(write_end)
    return read_end
