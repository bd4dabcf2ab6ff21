"""The untrusted side of the boundary. Runs inside the sandbox, never in the grader's process.

A zygote (`python -I -m autograder.sandbox.worker`) imports what students may use (torch, numpy), then forks
one worker per submission on request. The zygote was exec'd fresh by the grader, so a worker inherits
no tests, reference, seeds or secrets. A class is mutually hostile, so each worker is its own sandbox,
by construction rather than by listing syscalls:

    own pid namespace     it is pid 1 of a namespace holding nothing else: the zygote and every
                          classmate cannot be named, so they cannot be signalled, traced, re-limited,
                          re-prioritised or read through /proc
    own IPC, UTS, net     no SysV object, message queue or abstract socket is shared with anyone
    own mounts            the whole tree read-only, a fresh size-capped /tmp (its scratch dir, which
                          nobody else can name) and /dev/shm; /proc shows only itself
    own user namespace    where the worker is not root (bwrap, rlimits): what gives it the right to
                          make the above, capabilities dropped afterwards
    non-dumpable          from the zygote's first instruction on, inherited through fork: no window
    seccomp               no processes, no exec, no sockets, no shared memory, no signals or
                          limits aimed at anyone else, no namespace or mount calls
    CUDA                  only where the grader asks (policy.cuda): initialised by trusted code just
                          before the filter, which would refuse what the initialisation needs

Then it runs the notebook's cells and answers requests (autograder.sandbox.messages). Only plain data crosses
back (autograder.sandbox.protocol). Everything here before `_lock_down` returns is trusted code; after it,
the process belongs to the student."""
from __future__ import annotations

import builtins
import ctypes
import errno
import gc
import io
import json
import linecache
import os
import resource
import signal
import socket
import sys
import sysconfig
import tempfile
import time
import traceback
import types
import _thread
from typing import Any

CONTROL_FD = 3
MAX_WATCHED = 64  # names whose kinds a reply carries (Worker.watched)

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 0x20
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
WORKER_UID_BASE = 1 << 24  # fallback workers' uids: 2^24 + 24 random bits, no account, no files
SYS_MOUNT_SETATTR = {"x86_64": 442, "aarch64": 442}.get(os.uname().machine)
MOUNT_ATTR_RDONLY, AT_RECURSIVE, AT_FDCWD = 0x1, 0x8000, -100


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc().mount(source.encode() if source else None, target.encode(),
                         fstype.encode() if fstype else None, flags, data.encode() if data else None),
           f"mount {target}")


def die_with_parent() -> None:
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # no orphan outlives its parent


def set_dumpable(on: bool) -> None:
    _libc().prctl(PR_SET_DUMPABLE, int(on), 0, 0, 0)


# --- the zygote's own isolation at the fallback level (root, no bwrap) ----------------------------
def fallback_isolate(hide: list[str]) -> None:
    """As root without bwrap: private network and mount namespaces, and the grader's paths covered by
    empty read-only mounts. Runs first thing in the zygote, before any thread exists."""
    _check(_libc().unshare(CLONE_NEWNS | CLONE_NEWNET), "unshare")
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    for path in hide:
        if os.path.isdir(path):
            _mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=000")
        elif os.path.exists(path):
            _mount("/dev/null", path, None, MS_BIND)


# --- the zygote's own check at the container level (root without CAP_SYS_ADMIN) ---------------------
class LevelUnavailable(Exception):
    """This isolation level cannot hold here; the message says why, in one line, for the instructor."""


MAX_CHECKED_PATHS = 20000


def _paths_under(roots: list[str]) -> list[str]:
    """Every file and folder under `roots` (as root, who can list them all), bounded."""
    found: list[str] = []
    for root in roots:
        if not os.path.lexists(root):
            continue
        found.append(root)
        if os.path.isdir(root) and not os.path.islink(root):
            for dirpath, dirnames, filenames in os.walk(root):
                found += [os.path.join(dirpath, n) for n in dirnames + filenames]
                if len(found) > MAX_CHECKED_PATHS:
                    return found
    return found


def top_of(path: str, roots: list[str]) -> str:
    """The root among `roots` that holds `path` (what the instructor should chmod)."""
    return next((r for r in roots if path == r or path.startswith(r.rstrip("/") + "/")), path)


def _reachable(path: str) -> bool:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        return True
    except OSError:
        return False


# Landlock (Linux >= 5.13, unprivileged, allowed by Docker's default seccomp profile since 23.0): the
# container level's file-system walls where no mount can be made. Syscalls 444-446 on every arch.
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LL_EXECUTE, LL_WRITE_FILE, LL_READ_FILE, LL_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
LL_ALL_V1 = (1 << 13) - 1           # execute .. make_sym: every right of ABI 1
LL_TRUNCATE = 1 << 14               # ABI 3
LL_READ = LL_EXECUTE | LL_READ_FILE | LL_READ_DIR
LL_FILE_RIGHTS = LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | LL_TRUNCATE
PR_SET_NO_NEW_PRIVS = 38
SYSTEM_READ_ONLY = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/proc", "/sys")


def import_roots(hide: list[str]) -> list[str]:
    """Where this interpreter imports from (the zygote runs with -I: no working directory, no
    PYTHONPATH): the standard library, the venv's site-packages and what its .pth files add (an
    editable install, a dependency kept elsewhere). A worker walled in by Landlock must still read
    these, or a lazy import inside torch fails. Never a folder that holds something hidden (an old
    style editable install puts the whole checkout, course included, on sys.path)."""
    def holds_hidden(root: str) -> bool:
        return any(h == root or h.startswith(root.rstrip("/") + "/") for h in hide)
    return [p for p in sys.path if p and os.path.exists(p) and not holds_hidden(os.path.realpath(p))]


PINNED_FDS: list[int] = []   # kept open through the worker's fd sweep (landlock)


DEVICES_WRITABLE = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/shm")


def _gpu_devices() -> list[str]:
    """The NVIDIA driver's device files (nvidiactl, nvidia0.., nvidia-uvm, nvidia-caps/): a CUDA worker opens them
    read-write. Listed as the host has them; none on a machine without the driver."""
    try:
        return sorted(f"/dev/{n}" for n in os.listdir("/dev") if n.startswith("nvidia"))
    except OSError:
        return []


def landlock(read_only: list[str], writable: list[str], files_writable: tuple[str, ...] = ()) -> bool:
    """Confine this process (and what it starts) to reading `read_only` and the system's directories,
    and to writing only under `writable` (and the device files, e.g. /dev/null, and the existing files
    under `files_writable`: nothing made there). Everything else on disk, the course and classmates'
    folders included, can be neither read nor written, whatever its permissions. False where the
    kernel has no Landlock (nothing is changed then)."""
    libc = _libc()

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    abi = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return False
    handled = LL_ALL_V1 | (LL_TRUNCATE if abi >= 3 else 0)
    attr = RulesetAttr(handled)
    ruleset = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        rules = [(p, LL_READ) for p in list(SYSTEM_READ_ONLY) + read_only]
        # /dev: listed, and its harmless devices read and written; never a terminal (the grader's own uid owns the
        # instructor's pty at rlimits: a worker wrote escape sequences into it, red-team round 56) nor a disk
        rules += [("/dev", LL_READ_DIR)]
        rules += [(p, LL_READ | LL_WRITE_FILE | (LL_TRUNCATE if abi >= 3 else 0))
                  for p in (*DEVICES_WRITABLE, *_gpu_devices(), *files_writable)]
        rules += [(p, handled) for p in writable]
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # not on this system
            try:
                if not os.path.isdir(path):
                    access &= LL_FILE_RIGHTS
                rule = PathBeneath(access & handled, fd)
                _check(libc.syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), ctypes.byref(rule),
                                    ctypes.c_uint32(0)), f"landlock rule for {path}")
            finally:
                if path in files_writable and path.startswith("/proc/"):
                    # A rule holds the inode it was made on; /proc makes a new inode for a path
                    # whose dentry the kernel dropped. Held open, the dentry stays.
                    PINNED_FDS.append(fd)
                else:
                    os.close(fd)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)), "landlock")
    finally:
        os.close(ruleset)
    return True


def _shared_by_all(path: str) -> bool:
    """A sticky folder every user writes (/tmp, /var/tmp, /dev/shm): `grade /tmp/x.ipynb` hides it, and the advice to
    `chmod -R go-rwx` it would break every other user's programs on the host (red-team round 123)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & 0o1000) and mode & 0o002 != 0


def container_check(hide: list[str], keep: list[str]) -> None:
    """Before anything else in the zygote: the container level holds only if a worker's recipe works
    here and the course is out of its reach. A forked child does what every worker will do (become a
    fresh uid, load a seccomp filter under no_new_privs) and then tries to read every path the grader
    must keep secret. Raises LevelUnavailable with the first reason."""
    paths = _paths_under(hide)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        why = ""
        try:
            try:  # while still root: the interpreter's tree may be unreadable to others (under /root)
                import pyseccomp as sc
            except Exception as e:  # noqa: BLE001 - libseccomp missing
                raise LevelUnavailable(f"cannot load a seccomp filter ({type(e).__name__}: {e})") from None
            uid = WORKER_UID_BASE + int.from_bytes(os.urandom(3), "little")
            try:
                drop_privileges(uid, uid)
            except OSError as e:
                raise LevelUnavailable(f"cannot become an unprivileged uid ({e.strerror})") from None
            walled = landlock(keep + import_roots(hide), [])  # what every worker does next: it hides the course
            open_to_all = [p for p in paths if _reachable(p)]
            if open_to_all:
                top = top_of(open_to_all[0], hide)
                raise LevelUnavailable(
                    f"{open_to_all[0]} is readable by other users, so a student could read it"
                    + ("" if walled else " (no Landlock here to wall it off)")
                    + (f": {top} is every user's, never chmod it: move the class into a private folder (`grade` "
                       "hides a notebook's folder and the one above, so both must be private: mkdir -m 700 DIR DIR/sub)"
                       if _shared_by_all(top) else
                       f": make {top} root-only (chmod -R go-rwx), as the Gradescope setup.sh does for the course"))
            try:
                f = sc.SyscallFilter(defaction=sc.ALLOW)
                f.add_rule(sc.ERRNO(errno.EPERM), "socket")
                f.load()
            except Exception as e:  # noqa: BLE001 - libseccomp missing or the kernel refuses filters
                raise LevelUnavailable(f"cannot load a seccomp filter ({type(e).__name__}: {e})") from None
            try:
                socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
                raise LevelUnavailable("a seccomp filter loaded but did not stop socket()")
            except PermissionError:
                pass
        except LevelUnavailable as e:
            why = str(e)
        except BaseException as e:  # noqa: BLE001 - anything else is a reason too
            why = f"{type(e).__name__}: {e}"
        os.write(w, why.encode(errors="replace")[:2000])
        os._exit(3 if why else 0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        why = fh.read().decode(errors="replace")
    _pid, status = os.waitpid(pid, 0)
    if status != 0:
        raise LevelUnavailable(why or f"the check died ({status:#x})")


# The interpreter's standard library, found by a zygote whose workers become another uid (still privileged:
# sysconfig imports its data module to answer, ~1 ms kept off every other zygote's start); each such worker checks
# that it may read it (_lock_down)
STDLIB: str | None = None

# Imported while still privileged, so that they work even where the interpreter's own tree is not
# readable by the unprivileged user (a Python under /root). Trusted library code only.
PRELOAD = ("numpy", "torch", "math", "random", "itertools", "functools", "collections", "typing",
           "json", "re", "dataclasses", "datetime", "copy", "operator", "string", "textwrap",
           "warnings", "inspect", "statistics", "fractions", "decimal", "time", "abc", "enum",
           "torch.nn", "torch.nn.functional", "pyseccomp", "ctypes.util",
           # the boundary's tensor codec (autograder.sandbox.protocol imports it on first use)
           "safetensors.torch", "torch.autograd")
# torch.autograd.grad given a grad_output imports sympy on its first call (~0.4 s of CPU, a quarter of the
# zygote's start, on the path to a batch's first result). The grader's calls never need it
# (calls.vector_jacobian_product); a student's own backward(gradient) does. Where workers run as another
# uid (fallback, container: "drop"), which may not read the interpreter's tree (a Python under /root), it
# is imported here, for every worker alike, where the hidden tests take gradients (opts "gradients",
# Course.takes_gradients); elsewhere the worker imports it itself on that first call, as any module.
GRADIENT_PRELOAD = ("mpmath", "sympy", "torch.fx.experimental.symbolic_shapes")


# --- one worker's namespaces ----------------------------------------------------------------------
def _enter_namespaces(as_root: bool, own_pids: bool = True) -> list[str]:
    """unshare everything a worker needs of its own. Root (the fallback level) needs no user
    namespace; anyone else makes one, mapping its own uid and gid, to gain the right to the rest.
    `own_pids` False keeps the zygote's pid namespace (a CUDA worker under bwrap: see _lock_down).
    Returns the namespaces made; [] where the kernel refuses (the worker then runs without)."""
    libc = _libc()
    flags = (CLONE_NEWPID if own_pids else 0) | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS
    uid, gid = os.getuid(), os.getgid()
    if not as_root:
        flags |= CLONE_NEWUSER
    if libc.unshare(flags) != 0:
        return []
    if not as_root:
        # uid_map is owned by root while we are not dumpable: dumpable for these three writes only,
        # in trusted code, in a user namespace no other process shares
        set_dumpable(True)
        try:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                               ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as fh:
                    fh.write(text)
        finally:
            set_dumpable(False)
    return (["pid"] if own_pids else []) + ["ipc", "mount", "net", "uts"] + ([] if as_root else ["user"])


def _mount_setattr(path: str, attr_set: int, attr_clr: int, flags: int) -> bool:
    """mount_setattr(2) (Linux >= 5.12) on the mount at `path`; False where the kernel has none or refuses."""
    if SYS_MOUNT_SETATTR is None:
        return False

    class MountAttr(ctypes.Structure):
        _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                    ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]

    attr = MountAttr(attr_set, attr_clr, 0, 0)
    return _libc().syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), flags, ctypes.byref(attr),
                           ctypes.sizeof(attr)) == 0


def _read_only_root() -> bool:
    """Make every inherited mount read-only for this worker."""
    return _mount_setattr("/", MOUNT_ATTR_RDONLY, 0, AT_RECURSIVE)


def _writable_own_tasks() -> bool:
    """Under _read_only_root, this process's own /proc/<pid>/task made writable again, and nothing
    else of /proc: a bind of it over itself, read-write (CUDA_NEEDS_PROC). The rest stays read-only:
    a worker run by root is uid 0 to the kernel's file checks, and would otherwise write sysctls or
    a classmate's /proc/<pid>/oom_score_adj. False where it cannot be made: CUDA then fails to start
    and is reported so (`cuda_error`), and the worker still serves the CPU cases."""
    if SYS_MOUNT_SETATTR is None:
        return False
    tasks = f"/proc/{os.getpid()}/task"
    try:
        _mount(tasks, tasks, None, MS_BIND)
    except OSError:
        return False
    return _mount_setattr(tasks, 0, MOUNT_ATTR_RDONLY, 0)


def _private_tmpfs(path: str, size_mb: int, keep: list[str]) -> None:
    """A fresh tmpfs of `size_mb` over `path`, with one inode per KiB of it; the paths in `keep` below it (a
    checkout under /tmp) are bound back, read-only like everything inherited. The inode count is the bound on what
    empty files cost: they use no blocks, and each holds an inode and a name in kernel memory no process owns (the
    kernel's default allowed 3 million per mount: 488,000 empty files pinned 393 MB, and under memory pressure the
    out-of-memory killer took a grader process, and a classmate's grade with it: red-team round 68)."""
    under = [k for k in keep if k.startswith(path.rstrip("/") + "/")]
    held = {k: os.open(k, os.O_PATH) for k in under if os.path.exists(k)}
    size = max(1, size_mb)
    _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size}m,nr_inodes={size * 1024},mode=1777")
    for k, fd in held.items():
        os.makedirs(k, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", k, None, MS_BIND | MS_REC)
        os.close(fd)


def _no_ptys() -> None:
    """No pseudo-terminal: /dev/pts an empty read-only tmpfs, /dev/ptmx /dev/null. Under bwrap every worker's
    /dev/pts was the zygote's devpts (its --dev), /dev/ptmx 0666 and every worker uid 65534: one worker opened a pty
    and a classmate graded at the same time, in the other lane, read and wrote it (red-team round 56). A student's
    code has no use for a terminal."""
    if os.path.isdir("/dev/pts"):
        _mount("tmpfs", "/dev/pts", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=755")
    if os.path.exists("/dev/ptmx") and not os.path.islink("/dev/ptmx"):   # a link into /dev/pts is covered above
        _mount("/dev/null", "/dev/ptmx", None, MS_BIND)


# Signals queued for the worker's uid (POSIX timers hold one each): the kernel counts them per user, and that user is
# the grader's own where the worker runs as it (bwrap's user namespace, rlimits): 96,368 timers of one worker left the
# grader's timer_create failing (red-team round 56). A numerical process queues a handful.
SIGPENDING_LIMIT = 64


MS_MOVE = 0x2000


# What the NVIDIA driver's user-space library reads under /proc (its parameters, the GPUs it sees,
# the device numbers): system-wide facts, no process's.
CUDA_PROC = ("driver/nvidia", "devices")
# CUDA_NEEDS_PROC. The driver also names the helper threads it starts, from the thread that started
# them: glibc writes /proc/self/task/<tid>/comm. That /proc must be of the worker's own pid namespace
# (else <tid> is another number there: ENOENT) and writable (Landlock, a read-only mount: EACCES,
# EROFS); if not, cudaGetDeviceCount fails with "Error 304: OS call failed". Measured with strace on
# an H200 (bench/cuda_sandbox_probe.py, 2026-12-04): that open was the one difference between the
# workers where CUDA started (fallback) and where it did not (bwrap: the tmpfs /proc below; rlimits:
# Landlock). CudaStandIn makes the same write, so the tests see it without a GPU.


def _private_proc(outer_pid: str, cuda: bool = False) -> None:
    """/proc of this pid namespace, which holds only this worker. Where the kernel refuses a new proc
    (under bwrap the outer /proc is partly covered, so it is not "fully visible"), a small tmpfs is
    built in the private /tmp with only this process's own directory and a few system-wide files
    (and, for a CUDA worker, the driver's: CUDA_PROC), then moved over the outer /proc. Needs the
    private /tmp first."""
    try:
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        return
    except OSError:
        pass
    stage = tempfile.mkdtemp(dir="/tmp")
    _mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k,mode=755")
    os.mkdir(f"{stage}/self")
    _mount(f"/proc/{outer_pid}", f"{stage}/self", None, MS_BIND)
    for name in ("cpuinfo", "meminfo", "stat", "uptime", "loadavg", "filesystems"):
        if os.path.exists(f"/proc/{name}"):
            open(f"{stage}/{name}", "w").close()
            _mount(f"/proc/{name}", f"{stage}/{name}", None, MS_BIND)
    for name in CUDA_PROC if cuda else ():
        src = f"/proc/{name}"
        if os.path.isdir(src):
            os.makedirs(f"{stage}/{name}", exist_ok=True)
            _mount(src, f"{stage}/{name}", None, MS_BIND | MS_REC)
        elif os.path.exists(src):
            os.makedirs(os.path.dirname(f"{stage}/{name}"), exist_ok=True)
            open(f"{stage}/{name}", "w").close()
            _mount(src, f"{stage}/{name}", None, MS_BIND)
    os.symlink("self", f"{stage}/thread-self")
    _mount(stage, "/proc", None, MS_MOVE)
    os.rmdir(stage)


def drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)


def drop_capabilities() -> None:
    """Clear every capability the new user namespace gave us (capset with empty sets)."""

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    data = (Data * 2)()
    _check(_libc().capset(ctypes.byref(Header(0x20080522, 0)), data), "capset")


# --- the student's process: lock-down ------------------------------------------------------------
# seccomp denies by default. What a numerical Python process needs, and nothing that reaches outside
# it: memory, files in its own mounts, threads, time, signals to itself, its one socket. Seen in use
# (strace of every example notebook of the three assignments), plus what Python's standard library
# and torch's thread pools may call. Anything else fails with ENOSYS, so libc falls back where it
# can (clone3 -> clone, faccessat2 -> faccessat, statx -> newfstatat).
ALLOWED = (
    # memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mlock", "munlock", "mincore",
    "membarrier", "get_mempolicy", "set_mempolicy", "mbind", "msync",
    # files, inside the worker's own read-only tree and private tmpfs
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
    "pwritev2", "open", "openat", "openat2", "close", "close_range", "creat", "lseek", "stat", "fstat",
    "lstat", "newfstatat", "statx", "statfs", "fstatfs", "access", "faccessat", "faccessat2",
    "readlink", "readlinkat", "getdents64", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat",
    "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink",
    "symlinkat", "chmod", "fchmod", "fchmodat", "truncate", "ftruncate", "fallocate", "fsync",
    "fdatasync", "sync_file_range", "utimensat", "futimesat", "utime", "utimes", "flock", "fcntl",
    "dup", "dup2", "dup3", "pipe", "pipe2", "ioctl", "copy_file_range", "sendfile", "splice", "tee",
    "fadvise64", "readahead", "umask", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
    "llistxattr", "flistxattr", "select", "pselect6", "poll", "ppoll", "epoll_create",
    "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2",
    "timerfd_create", "timerfd_settime", "timerfd_gettime",
    # its one socket to the grader, already connected
    "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "getsockname", "getpeername",
    "getsockopt", "setsockopt", "shutdown",
    # threads (clone is restricted below), synchronisation, scheduling of itself
    "clone", "futex", "futex_waitv", "set_robust_list", "get_robust_list", "set_tid_address", "rseq",
    "sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler", "sched_getattr",
    "sched_get_priority_max", "sched_get_priority_min", "sched_rr_get_interval", "getpriority",
    "getcpu", "arch_prctl", "prctl", "exit", "exit_group", "wait4", "waitid", "restart_syscall",
    # time
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "times",
    "alarm", "setitimer", "getitimer", "timer_create", "timer_settime", "timer_gettime",
    "timer_getoverrun", "timer_delete",
    # signals (to itself: checked below)
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait",
    "rt_sigsuspend", "sigaltstack", "pause", "kill", "tgkill", "tkill",
    # who am I
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid",
    "getgroups", "getpgid", "getpgrp", "getsid", "capget", "uname", "sysinfo", "getrusage",
    "getrlimit", "prlimit64", "getrandom",
)


REFUSED = ("fork", "vfork", "execve", "execveat", "socket", "socketpair", "connect", "bind", "ptrace",
           "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
           "rt_sigqueueinfo", "rt_tgsigqueueinfo", "setpriority", "sched_setaffinity",
           "sched_setscheduler", "ioprio_set", "unshare", "setns", "mount", "umount2", "chroot",
           "memfd_create", "shmget", "shmat", "msgget", "semget", "mq_open", "userfaultfd", "bpf",
           "perf_event_open", "io_uring_setup", "setuid", "setgid", "keyctl", "add_key")


def _seccomp(own_pid: int) -> bool:
    """Default deny (ENOSYS). Calls that name a process may only name this one; clone may only make
    threads (the notebook's cells may use a thread pool; graded calls may not: _refuse_new_threads)."""
    try:
        import pyseccomp as sc
    except Exception:  # noqa: BLE001 - libseccomp missing: the grader records a weaker isolation
        return False
    f = sc.SyscallFilter(defaction=sc.ERRNO(errno.ENOSYS))
    # On every thread of the process, not just this one: CUDA's initialisation (below) starts helper
    # threads before the filter exists, and an unfiltered thread is a way around it.
    f.set_attr(sc.Attr.CTL_TSYNC, 1)
    conditional = {"clone", "kill", "tgkill", "tkill", "prlimit64"}
    for name in ALLOWED:
        if name in conditional:
            continue
        try:
            f.add_rule(sc.ALLOW, name)
        except Exception:  # noqa: BLE001 - syscall unknown on this architecture
            pass
    CLONE_THREAD = 0x00010000
    f.add_rule(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, CLONE_THREAD))  # threads only
    for name in ("kill", "tgkill", "tkill"):                  # signals only to itself
        f.add_rule(sc.ALLOW, name, sc.Arg(0, sc.EQ, own_pid))
    f.add_rule(sc.ALLOW, "prlimit64", sc.Arg(0, sc.EQ, 0))    # limits only of itself (0 = the caller)
    # one more filter on itself (_refuse_new_threads: SECCOMP_SET_MODE_FILTER with no flag but TSYNC and
    # TSYNC_ESRCH, as libseccomp asks); a filter can only take rights away, and the flags that would hand out a
    # listener (NEW_LISTENER) or loosen anything are not among these
    f.add_rule(sc.ALLOW, "seccomp", sc.Arg(0, sc.EQ, 1), sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF & ~(1 | 16), 0))
    # The calls a hostile notebook reaches for say "not permitted", not "not implemented".
    eperm = sc.ERRNO(errno.EPERM)
    f.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    for name in ("kill", "tgkill", "tkill"):
        f.add_rule(eperm, name, sc.Arg(0, sc.NE, own_pid))
    f.add_rule(eperm, "prlimit64", sc.Arg(0, sc.NE, 0))
    for name in REFUSED:
        try:
            f.add_rule(eperm, name)
        except Exception:  # noqa: BLE001 - syscall unknown on this architecture
            pass
    f.load()
    return True


def _refuse_new_threads() -> bool:
    """A second filter on every thread, from the first graded call on: no new thread (clone refused). The
    forbidden-API guard is a torch function mode, which is per thread: a graded call that handed the forbidden call
    to a thread went unseen (red-team round 47). The notebook's cells ran before, free to use a thread pool. False
    where libseccomp is missing."""
    try:
        import pyseccomp as sc
        f = sc.SyscallFilter(defaction=sc.ALLOW)
        f.set_attr(sc.Attr.CTL_TSYNC, 1)
        for name in ("clone", "clone3", "fork", "vfork"):
            try:
                f.add_rule(sc.ERRNO(errno.EPERM), name)
            except Exception:  # noqa: BLE001 - syscall unknown on this architecture
                pass
        f.load()
        return True
    except Exception:  # noqa: BLE001 - no filter: the live-thread check still stands
        return False


# Bound while the module is imported (in the zygote, before any student code): a cell that replaces os.listdir or
# _thread.start_new_thread later cannot change what the checks below see. Both are C functions.
_LISTDIR, _START_THREAD = os.listdir, _thread.start_new_thread
# whether this worker's first filter loaded (_lock_down): then the second must too, or no graded call runs
_FILTERED = False


def _threads_sealed() -> bool:
    """Whether a new thread is now refused: tried, not taken on trust (a cell may have added a filter of its own
    that refuses the `seccomp` call, or replaced pyseccomp's functions, so that _refuse_new_threads did nothing)."""
    try:
        _START_THREAD(int, ())
    except RuntimeError:
        return True
    return False


def _threads_alive() -> int:
    """This process's threads, as the kernel counts them (those started below Python's threading included); 0
    where they cannot be listed (a cell's own filter may refuse the listing): the caller then runs nothing."""
    try:
        return len(_LISTDIR("/proc/self/task"))
    except OSError:
        return 0


# --- CUDA, initialised before the filter -----------------------------------------------------------
# CUDA's initialisation asks the OS for things the filter refuses (measured on an H200: with `socket`
# refused, cudaGetDeviceCount fails with "Error 304: OS call failed"). So where the course grades on
# CUDA and the grader sees a GPU, trusted code initialises it in `_lock_down`: after the worker has its
# namespaces (its own network: no socket it makes reaches anyone), its private /tmp and its
# unprivileged uid, and before the filter. The context, its device files and its helper threads then
# exist; the filter (synchronised onto those threads) still refuses every new socket, so student code
# can use CUDA and cannot open a socket. A worker of a course that does not grade on CUDA, or on a
# machine without a GPU, never initialises it.
def _cuda_init_torch() -> None:
    """The context, the caching allocator, the first kernels and cuBLAS's handle (every attention
    test multiplies matrices): made here, by trusted code, so that what they ask of the OS the first
    time is asked before the filter."""
    import torch
    torch.cuda.init()
    x = torch.ones(4, 4, device="cuda")
    if float((x @ x + 1).sum().item()) != 80.0:
        raise RuntimeError("a first CUDA computation returned a wrong value")
    del x
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


class CudaStandIn:
    """What CUDA's initialisation asks of the OS, for tests on machines without a GPU: an AF_UNIX
    socket (the driver looks for an MPS server through one), a device node opened read-write and kept
    (the driver keeps /dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm), a large address-space
    reservation (unified addressing; RLIMIT_DATA does not count it) and a helper thread started before
    the filter. The thread waits until `poke()` and then tries to make sockets, so a test can check
    that the filter reaches threads born before it."""

    RESERVE = 64 << 30

    def __init__(self) -> None:
        import threading
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect("/tmp/nvidia-mps/control")
        except OSError:
            pass                                  # no MPS server: what CUDA expects most of the time
        finally:
            s.close()
        self.device_fd = os.open("/dev/null", os.O_RDWR)
        libc = _libc()
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        PROT_NONE, MAP_PRIVATE, MAP_ANONYMOUS, MAP_NORESERVE = 0, 0x02, 0x20, 0x4000
        addr = libc.mmap(None, self.RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap of the address-space reservation failed")
        self.reserved = addr
        self.result: dict[str, str] = {}
        self._poke, self.done = threading.Event(), threading.Event()
        helper = threading.Thread(target=self._helper, daemon=True, name="cuda-standin")
        helper.start()
        # The driver names its helper threads from the thread that made them: glibc writes the name to
        # /proc/self/task/<tid>/comm, which must be this process's /proc and writable. Where it is
        # not, cudaGetDeviceCount fails with "Error 304: OS call failed" (strace on an H200, bench/
        # gpu_check.sh's second run: ENOENT under a /proc of another pid namespace, EACCES under
        # Landlock, and the open's failure was the only difference from a worker where CUDA started).
        libc.pthread_setname_np.argtypes = [ctypes.c_ulong, ctypes.c_char_p]
        rc = libc.pthread_setname_np(ctypes.c_ulong(helper.ident or 0), b"cuda-standin")
        if rc != 0:
            raise OSError(rc, f"stand-in for Error 304: naming a helper thread failed ({errno.errorcode.get(rc, rc)})")

    def _helper(self) -> None:
        self._poke.wait()
        for family in ("AF_UNIX", "AF_INET", "AF_NETLINK"):
            try:
                socket.socket(getattr(socket, family), socket.SOCK_DGRAM).close()
                self.result[family] = "created"
            except OSError as e:
                self.result[family] = errno.errorcode.get(e.errno or 0, str(e.errno))
        self.done.set()

    def poke(self) -> None:
        self._poke.set()


CUDA_STANDIN: CudaStandIn | None = None


def _cuda_init_standin() -> None:
    global CUDA_STANDIN
    CUDA_STANDIN = CudaStandIn()


def _cuda_init_standin_no_userns() -> None:
    """The stand-in, failing in every worker inside a user namespace (bwrap, rlimits) and starting in
    the fallback level's (root's namespaces): the shape of the H200's first failure (2026-12-04),
    whose real cause is mended (CUDA_NEEDS_PROC), kept for the grader's move to fallback
    (Grader._level_for_cuda), tested without a GPU."""
    with open("/proc/self/uid_map") as fh:
        if fh.read().split() != ["0", "0", "4294967295"]:
            raise RuntimeError("stand-in for Error 304: OS call failed (inside a user namespace)")
    _cuda_init_standin()


CUDA_INITS = {"torch": _cuda_init_torch, "os_standin": _cuda_init_standin,
              "os_standin_no_userns": _cuda_init_standin_no_userns}


def _init_cuda(how: str) -> tuple[bool, str]:
    """(ready, why not). Trusted code, before the filter; a failure is the grader's problem to report,
    never the student's."""
    init = CUDA_INITS.get(how)
    if init is None:
        return False, f"unknown CUDA initialisation {how!r}"
    try:
        init()
    except Exception as e:  # noqa: BLE001 - reported in `ready`; the worker serves the CPU cases
        return False, f"{type(e).__name__}: {str(e).strip()}"[:400]
    return True, ""


# The heap of a fresh worker, made ready before any student code (bench/breakdown.py, 16 full-marks
# sdpa notebooks: the timing check's requests 52 -> 13 ms of worker CPU per submission, 161 -> 100 ms per
# submission in all). glibc's defaults serve a tensor above 128 KB with mmap and give a heap top above
# ~1 MB back after each free, until its frees raise both thresholds: in a fresh worker the first calls of
# a timed function on 256 x 256 scores faulted their pages in again (a thousand faults on the first call,
# 5-20 ms where the reference took 1 ms), so timed 5 ms looks came out 2-7x the reference's for a right
# answer, and the ones above 4x paid the near-limit re-measurement (half a second). The thresholds are
# set where glibc's own would end (32 MB for mmap, twice that kept): a lower mmap threshold (4 MB, tried)
# faulted a broadcast product's 16 MB in on every call, timed 5-7x a matmul. The first WARM_HEAP_BYTES
# are faulted in here, while the previous submission is graded.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
HEAP_MMAP_THRESHOLD = 32 << 20     # DEFAULT_MMAP_THRESHOLD_MAX of glibc on 64-bit
HEAP_TRIM_THRESHOLD = 64 << 20     # what glibc sets with it: twice the mmap threshold
WARM_HEAP_BYTES = 8 << 20          # 4 MB left half the faults; 16 MB cost 32 ms of lock-down for nothing more


def warm_heap() -> None:
    libc = _libc()
    libc.mallopt(M_TRIM_THRESHOLD, ctypes.c_int(HEAP_TRIM_THRESHOLD))
    libc.mallopt(M_MMAP_THRESHOLD, ctypes.c_int(HEAP_MMAP_THRESHOLD))
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    block = libc.malloc(WARM_HEAP_BYTES)
    if block:                       # under a tight RLIMIT_DATA the worker simply starts cold
        ctypes.memset(block, 0, WARM_HEAP_BYTES)
        libc.free(block)


def _lock_down(sock_fd: int, policy: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    """Make this freshly forked process a sandbox of its own. Returns the facts for `ready`."""
    as_root = os.geteuid() == 0 and bool(opts.get("drop"))
    outer_pid = os.readlink("/proc/self")
    # The container level is defined without namespaces (where it is chosen the kernel refuses them),
    # so a forced container level behaves the same on any host
    # A CUDA worker under bwrap stays in the zygote's pid namespace (CUDA_NEEDS_PROC): bwrap covers
    # parts of its /proc, so the kernel refuses a worker the new proc its own namespace would need.
    cuda = bool(policy.get("cuda"))
    own_pids = not (cuda and opts.get("level") == "bwrap")
    namespaces = _enter_namespaces(as_root, own_pids) if opts.get("level") != "container" else []
    # As root (the fallback level) each worker becomes a uid of its own, never a classmate's: what
    # the kernel counts per user (threads under RLIMIT_NPROC) is then counted per worker.
    uid = WORKER_UID_BASE + int.from_bytes(os.urandom(3), "little")
    if "pid" in namespaces:
        # The new pid namespace takes effect for our children: the worker is the next child, pid 1.
        # This process stays as its reaper and dies with it (or with the zygote).
        child = os.fork()
        if child:
            os.close(sock_fd)
            while True:
                try:
                    _pid, status = os.waitpid(child, 0)
                    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
                except ChildProcessError:
                    os._exit(0)
                except InterruptedError:
                    continue
        die_with_parent()
        outer_pid = os.readlink("/proc/self")
    os.setsid()
    if "mount" in namespaces:
        _mount("none", "/", None, MS_REC | MS_PRIVATE)
        read_only = _read_only_root()
        keep = list(opts.get("keep", []))
        _private_tmpfs("/tmp", int(policy["tmp_mb"]), keep)
        if os.path.isdir("/dev/shm"):
            _private_tmpfs("/dev/shm", int(policy["shm_mb"]), keep)
        if os.path.isdir("/var/tmp"):
            _private_tmpfs("/var/tmp", 1, keep)
        _no_ptys()
        if "pid" in namespaces:
            _private_proc(outer_pid, cuda=cuda)
        elif cuda and read_only:
            _writable_own_tasks()
        if not read_only:
            namespaces.append("(read-write root)")
        scratch = "/tmp"
    else:
        # No namespaces here: a directory nobody can name in advance, readable only by us.
        scratch = tempfile.mkdtemp(prefix="sub-", dir=opts.get("scratch_root") or None)
        if as_root:
            os.chown(scratch, uid, uid)
    os.chdir(scratch)
    # Where no mount hides the course (container, rlimits), Landlock walls it off where the kernel has it; at fallback
    # too, where the mounts hide only the course's secret paths and this class: a worker there read the course's .git
    # (every version of the hidden tests) and another batch's class folder and gradebook (red-team round 56)
    walled = (landlock(list(opts.get("keep", [])) + import_roots(list(opts.get("hide", []))), [scratch],
                       files_writable=("/proc/self/task",) if cuda else ())
              if opts.get("level") in ("container", "rlimits", "fallback") else False)
    os.environ.clear()
    # TORCHDYNAMO_DISABLE: `f = torch.compile(f)` runs f as written. Inductor cannot build its code here (no exec),
    # and a notebook that compiled its graded function lost half its points and took 267 s (red-team round 65)
    os.environ.update({"HOME": scratch, "TMPDIR": scratch, "MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin",
                       "OMP_NUM_THREADS": "1", "TORCHDYNAMO_DISABLE": "1"})
    mem = int(policy["memory_mb"]) * 1024 * 1024
    for lim, value in ((resource.RLIMIT_DATA, mem), (resource.RLIMIT_FSIZE, 64 << 20),
                       (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NOFILE, 256),
                       (resource.RLIMIT_NPROC, 512), (resource.RLIMIT_SIGPENDING, SIGPENDING_LIMIT)):
        try:
            resource.setrlimit(lim, (value, value))
        except (ValueError, OSError):
            pass
    if as_root:
        parent = os.getppid()
        drop_privileges(uid, uid)
        # A change of uid clears the parent-death signal, as it clears dumpable: without it again, a worker whose
        # grader process was killed (a stopped batch kills them mid-grade) ran on, a busy loop spinning a core for
        # good, at the container and fallback levels (red-team round 85)
        die_with_parent()
        if os.getppid() != parent:   # the parent died before the signal was set again
            os._exit(0)
    elif "user" in namespaces:
        drop_capabilities()
    # Another uid (fallback, container) may be unable to read the interpreter's own tree (a Python under /root):
    # then a module the zygote did not import (pstats, getpass: FlopCounterMode's) fails to import in student
    # code. Said in the result, for the instructor: the host's fault, not the student's.
    stdlib_readable = os.access(STDLIB, os.R_OK | os.X_OK) if as_root and STDLIB else True
    set_dumpable(False)  # a uid change resets it; classmates can never trace or read us
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    low = 3
    for fd in sorted({sock_fd, *PINNED_FDS}):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)
    import torch
    torch.set_num_threads(1)
    _keep_one_thread(torch)
    warm_heap()
    cuda_ready, cuda_error = False, ""
    if policy.get("cuda"):
        # last before the filter: its device files must survive the fd sweep above
        cuda_ready, cuda_error = _init_cuda(str(policy.get("cuda_init", "torch")))
    filtered = _seccomp(os.getpid())
    global _FILTERED
    _FILTERED = filtered
    # `scratch`: a dir on the host's disk (no private tmpfs), which the grader removes once this worker is gone
    # (session.remove_scratch); its files are capped each, not in number (red-team round 74)
    return {"seccomp": filtered, "namespaces": namespaces, "landlock": walled,
            "shared_memory": "denied" if filtered else "allowed",
            "cuda_ready": cuda_ready, "cuda_error": cuda_error, "stdlib_readable": stdlib_readable,
            "scratch": "" if "mount" in namespaces else scratch}


def _keep_one_thread(torch: Any) -> None:
    """A notebook's `torch.set_num_threads(4)` (tuning a laptop run) keeps torch at one thread. With more, torch's
    pool started threads at the next parallel op, and every graded call after it was refused as code running beside
    the graded call (a right notebook: 4/35, named forbidden_api: red-team round 65). One thread is what the timing
    tests' yardstick uses too. A value torch would refuse is still refused by torch."""
    set_threads = torch.set_num_threads

    def set_num_threads(n: Any) -> None:
        if type(n) is int and n >= 1:
            set_threads(1)
        else:
            set_threads(n)
    set_num_threads.__doc__ = set_threads.__doc__
    torch.set_num_threads = set_num_threads


def _unprinted(run: Any) -> Any:
    """`run()` with the builtin print doing nothing, for EVERY graded call: a debug `print(weights)` left in a right
    function formatted a tensor on every timed call, and that alone tipped the vectorisation timing (not_vectorised
    named on right code, red-team round 65). Every graded call, not the timed ones alone: a function that compared
    print with the one its cell saw told the timed calls apart and ran a loop everywhere else (35/35 for a loop,
    red-team round 69). Nothing a graded call prints is shown: only the cells' output is."""
    saved = builtins.print
    builtins.print = _no_print
    try:
        return run()
    finally:
        builtins.print = saved


def _no_print(*args: Any, **kwargs: Any) -> None:
    return None


def _display(*objs: Any, **kwargs: Any) -> None:
    """Jupyter's `display`, which a notebook may call without importing it (IPython puts it in every kernel's
    namespace): each object's text form, printed. A right notebook whose cell began with `display(x)` lost every
    function defined below it (NameError: red-team round 65)."""
    for obj in objs:
        print(repr(obj))


# --- the student's process: serving --------------------------------------------------------------
class CappedWriter(io.TextIOBase):
    """stdout/stderr for student code: keeps the first `limit` characters, drops the rest."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size, self.dropped = limit, 0, 0
        self.parts: list[str] = []

    def write(self, s: str) -> int:
        s = str(s)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(s[:room])
            self.size += min(len(s), room)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def take(self) -> str:
        text = "".join(self.parts)
        self.parts, self.size = [], 0
        return text


def _otter_stub() -> types.ModuleType:
    """Students' notebooks start with `import otter; grader = otter.Notebook(...)`. Public checks
    are the student's business; in grading they do nothing (the hidden tests decide).

    A package, with `otter.check.notebook` (where otter 7 defines Notebook, and `from otter.check.notebook
    import Notebook` finds it): a plain module made that import "'otter' is not a package", and in an
    imports cell it took `import torch` below it with it (6/35 for a right notebook: red-team round 100)."""
    mod = types.ModuleType("otter")
    mod.__path__ = []  # type: ignore[attr-defined]  # a package: its submodules are the ones made here

    class Notebook:
        def __init__(self, *a: Any, **k: Any) -> None:
            pass

        def __getattr__(self, name: str) -> Any:
            return lambda *a, **k: None

    mod.Notebook = Notebook  # type: ignore[attr-defined]
    check = types.ModuleType("otter.check")
    check.__path__ = []  # type: ignore[attr-defined]
    notebook = types.ModuleType("otter.check.notebook")
    notebook.Notebook = Notebook  # type: ignore[attr-defined]
    check.notebook = notebook  # type: ignore[attr-defined]
    mod.check = check  # type: ignore[attr-defined]
    return mod


class IPythonStandIn:
    """What `get_ipython()` gives a graded notebook (Colab's `get_ipython().run_line_magic('matplotlib', 'inline')`):
    every magic, shell command or anything else asked of it does nothing and returns None. It never runs code:
    a string run as code would pass the static rules that fail closed on `exec` (red-team round 53). The calls a
    Jupyter export writes for %time, %timeit and %%time (literal strings) are rewritten into their code at intake
    (intake.transform_ipython), where the static rules read it."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def _error(e: BaseException) -> dict[str, Any]:
    try:
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=8))
    except BaseException:  # noqa: BLE001 - the student's exception decides how it prints (red-team round 55)
        tb = ""
    return {"type": _kind(e), "message": _said(e, 500), "traceback": tb[-4000:]}


def _kind(e: BaseException) -> str:
    """The exception class's name, which a metaclass may compute: the student's, and it may raise."""
    try:
        name = type(e).__name__
        return name[:100] if type(name) is str else "Exception"
    except BaseException:  # noqa: BLE001 - see _said
        return "Exception"


def _said(e: BaseException, limit: int) -> str:
    """str(e) cut to `limit`, or a stand-in where the student's __str__ raises or recurses: a ShapeError whose
    __str__ read an attribute never set ended the worker from inside this handler, and every answer of the
    notebook was lost, 0/35 for a right notebook with one such raise in a cell (red-team round 55)."""
    try:
        text = str(e)
    except BaseException:  # noqa: BLE001 - the message is the student's code: any failure of it is theirs
        return f"<{_kind(e)} whose message could not be printed>"
    return text[:limit] if type(text) is str else ""


def _cell_error(e: BaseException, filename: str) -> str:
    """`NameError: name 'x' is not defined (line 3)`: the line in the cell, never the cell's name a
    second time (the grader says which cell)."""
    try:
        # the grader's own compile raised it: a str filename; a student's SyntaxError may carry any object there
        if isinstance(e, SyntaxError) and type(e.filename) is str and e.filename == filename:
            return f"{_kind(e)}: {str(e.msg)[:300]} (line {e.lineno})"
    except BaseException:  # noqa: BLE001 - a student's msg or lineno whose str() raises: told as below
        pass
    line = None
    try:
        for frame, lineno in traceback.walk_tb(e.__traceback__):
            if frame.f_code.co_filename == filename:
                line = lineno
    except BaseException:  # noqa: BLE001 - a traceback the student's code rebuilt: no line then
        line = None
    return f"{_kind(e)}: {_said(e, 300)}" + (f" (line {line})" if line else "")


class Worker:
    def __init__(self, sock: socket.socket, policy: dict[str, Any]) -> None:
        from autograder.sandbox import calls, protocol
        from autograder.sandbox.messages import (MAX_AHEAD, RESOLVE_THEN_BYTES,  # preloaded by the zygote,
                                                 cell_filename)                  # like protocol
        self.protocol, self.calls, self.cell_filename = protocol, calls, cell_filename
        self.max_ahead, self.resolve_then_bytes = MAX_AHEAD, RESOLVE_THEN_BYTES
        self.sock = sock
        self.policy = policy
        self.ns: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
        ipython = IPythonStandIn()
        self.ns["get_ipython"] = lambda: ipython
        self.ns["display"] = _display
        self.stash: dict[str, Any] = {}
        # names the grader has resolved: every reply to a request that ran student code tells it
        # their kinds as they are after it (Reply.kinds), so it need not ask again before each call
        self.watched: dict[str, None] = {}
        self.threads_sealed: bool | None = None     # no new thread from the first graded call on (_student_call)
        self.out = CappedWriter(int(policy["output_kb"]) * 1024)
        otter = _otter_stub()
        sys.modules.update({"otter": otter, "otter.check": otter.check, "otter.check.notebook": otter.check.notebook})

    def send(self, message: dict[str, Any]) -> None:
        self.protocol.send_frame(self.sock, message)

    def reply(self, rid: int, value: Any = None, kinds: bool = False, tag: dict[str, Any] | None = None,
              guarded: bool = False, **extra: Any) -> None:
        """`kinds`: the request ran student code, so the reply says what the watched names are now
        (computed last, after anything of the student's that encoding or an error's text ran).
        `tag`: fields every reply to this request carries, an error reply too (call_ahead's index).
        `guarded`: a graded call's result, encoded under the forbidden-API guard: encoding runs the student's code
        again (a tensor subclass's hooks, a list's __iter__), which must not call what the call itself may not
        (a subclass that computed F.scaled_dot_product_attention on `detach`, after the call: red-team round 47)."""
        forbidden = self.policy.get("forbidden", ()) if guarded else ()
        try:
            if forbidden:
                with self.calls.ForbiddenAPIGuard(forbidden):
                    encoded = self.protocol.encode_value(value)
            else:
                encoded = self.protocol.encode_value(value)
        except Exception as e:  # noqa: BLE001 - the student's value cannot be sent: an error reply
            self.fail(rid, _error(e), kinds, tag)
            return
        message = {"id": rid, "ok": True, "value": encoded, **extra, **(tag or {})}
        if kinds:
            message["kinds"] = self.kinds()
        try:
            frame = self.protocol.frame_bytes(message)
        except (ValueError, TypeError, RecursionError, OverflowError) as e:  # JSON refused what encoding let by:
            self.fail(rid, _error(e), kinds, tag)                           # an error reply, never the worker's end
            return
        self.sock.sendall(frame)

    def fail(self, rid: int, error: dict[str, Any], kinds: bool = False, tag: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"id": rid, "ok": False, "error": error, **(tag or {})}
        if kinds:
            message["kinds"] = self.kinds()
        self.send(message)

    def kind(self, name: str) -> str:
        if name not in self.ns:
            return "missing"
        value = self.ns[name]
        if value is Ellipsis:  # the template's `answer = ...`, still as given
            return "unanswered"
        return "callable" if callable(value) else "value"

    def kinds(self) -> dict[str, str]:
        return {name: self.kind(name) for name in self.watched}

    def exec_cells(self, rid: int, cells: list[str]) -> None:
        sys.stdout = sys.stderr = self.out
        for i, src in enumerate(cells):
            self.send({"event": "cell_start", "index": i})
            start = time.perf_counter()
            status, err = "ok", ""
            filename = self.cell_filename(i)
            # the cell's lines for tracebacks (as IPython keeps them): a crash then shows the line that
            # raised, which the grader reads to tell an unpacking along the wrong axis from other crashes
            linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
            try:
                exec(compile(src, filename, "exec"), self.ns)
            except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
                status, err = "error", _cell_error(e, filename)
            self.send({"event": "cell_end", "index": i, "status": status, "error": err,
                       "duration_s": round(time.perf_counter() - start, 4)})
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        self.reply(rid, None, output=self.out.take())   # no kinds: nothing is watched before the first resolve

    def _args(self, msg: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        args = self.protocol.decode_value(msg.get("args", []), from_grader=True)
        kwargs = self.protocol.decode_value(msg.get("kwargs", {"__dict__": {}}), from_grader=True)
        return list(args), dict(kwargs)

    def _student_call(self, run: Any) -> tuple[bool, Any]:
        """Run one graded call with its output captured: (True, result) or (False, error). Where the assignment
        forbids an API (and CUDA's helper threads are not expected), the first graded call refuses new threads for
        good, and none runs while a thread the cells started is still alive: the guard sees one thread only."""
        if self.policy.get("forbidden") and not self.policy.get("cuda"):
            if self.threads_sealed is None:
                _refuse_new_threads()
                self.threads_sealed = _threads_sealed() or not _FILTERED   # no filter at all: the level says so
            alive = _threads_alive()
            if not self.threads_sealed or alive != 1:
                why = ("new threads could not be stopped in this worker (a filter of the notebook's own refused it)"
                       if not self.threads_sealed else
                       f"{alive - 1} thread(s) the notebook started are still running" if alive > 1 else
                       "this worker's threads could not be counted")
                return False, {"type": "ForbiddenAPIError", "traceback": "", "message": (
                    f"{why}, and a graded call does not run beside threads the grader cannot watch: it cannot see what "
                    "they call. Let a thread pool finish within its cell (`with ThreadPoolExecutor() as ex: ...`)")}
        sys.stdout = sys.stderr = self.out
        try:
            return True, _unprinted(run)
        except BaseException as e:  # noqa: BLE001 - the student's exception, as strings
            return False, _error(e)
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__

    def handle(self, msg: dict[str, Any]) -> bool:
        rid, op = msg.get("id", 0), msg.get("op")
        if op == "exec":
            self.exec_cells(rid, msg["cells"])
        elif op == "resolve":
            then = msg.get("then")
            if type(then) is list and then:
                self.resolve_then(rid, msg["name"], then)
                return True
            name = msg["name"]
            if len(self.watched) < MAX_WATCHED and type(name) is str and len(name) <= 200:
                self.watched[name] = None
            kind = self.kind(name)
            if kind == "value":
                self.reply(rid, self.ns[name], kind="value")
            else:
                self.send({"id": rid, "ok": True, "kind": kind, "value": None})
        elif op == "call":
            fn = self.ns.get(msg["name"])
            args, kwargs = self._args(msg)
            grad_out = self.protocol.decode_value(msg["grad_output"]) if msg.get("grad_output") else None
            changed: list[str] = []
            ok, result = self._student_call(
                lambda: self.calls.invoke(fn, args, kwargs, msg.get("device", "cpu"), msg.get("grad_wrt"),
                                          grad_out, self.policy.get("forbidden", ()), changed))
            if ok:
                self.reply(rid, result[0], kinds=True, guarded=True, devices=result[1], changed=changed)
            else:
                self.fail(rid, result, kinds=True)
        elif op == "call_ahead":
            self.call_ahead(rid, msg)
        elif op == "time_fresh":
            fn = self.ns.get(msg["name"])
            kwargs = dict(self.protocol.decode_value(msg.get("kwargs", {"__dict__": {}})))
            specs = [(tuple(shape), str(dtype)) for shape, dtype in msg["specs"]]
            ok, result = self._student_call(
                lambda: self.calls.run_fresh_calls(fn, specs, kwargs, int(msg["seed"]), int(msg["repeat"]),
                                                   msg.get("device", "cpu"), self.policy.get("forbidden", ())))
            if ok:
                self.reply(rid, result, kinds=True)
            else:
                self.fail(rid, result, kinds=True)
        elif op == "exit":
            return False
        else:
            self.send({"id": rid, "ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}",
                                                         "traceback": ""}})
        return True

    def resolve_then(self, rid: int, name: Any, then: list[Any]) -> None:
        """Resolve `name`, then each name of `then` in order (messages.ResolveRequest): one reply each,
        `index` i and `more`, exactly what separate resolves one after another would answer, since
        nothing else runs between them. A later name's reply that would be larger than
        RESOLVE_THEN_BYTES is not sent: a reply marked `skipped` ends the request instead (the
        grader asks for that name on its own)."""
        names = [name] + [n for n in then[:self.max_ahead] if type(n) is str]
        for i, one in enumerate(names):
            if len(self.watched) < MAX_WATCHED and type(one) is str and len(one) <= 200:
                self.watched[one] = None
            more = i + 1 < len(names)
            tag = {"index": i, "more": more}
            kind = self.kind(one)
            if kind != "value":
                self.send({"id": rid, "ok": True, "kind": kind, "value": None, **tag})
                continue
            try:
                message = {"id": rid, "ok": True, "value": self.protocol.encode_value(self.ns[one]),
                           "kind": "value", **tag}
            except Exception as e:  # noqa: BLE001 - the student's value cannot be sent: an error reply
                self.fail(rid, _error(e), tag=tag)
                continue
            frame = self.protocol.frame_bytes(message)
            if i > 0 and len(frame) > self.resolve_then_bytes:
                self.send({"id": rid, "ok": True, "index": i, "more": False, "skipped": True})
                return
            self.sock.sendall(frame)

    def call_ahead(self, rid: int, msg: dict[str, Any]) -> None:
        """Each call of the request in order, one reply each (messages.CallAheadRequest); the next
        starts only while less than `stop_after_s` has passed. Each call is a call of its own: its
        own arguments, its own captured error, its own record of the inputs it changed."""
        calls = msg.get("calls")
        if type(calls) is not list or not 0 < len(calls) <= self.max_ahead:
            self.fail(rid, {"type": "ProtocolError", "message": "call_ahead: 1 to "
                            f"{self.max_ahead} calls", "traceback": ""}, tag={"index": 0, "more": False})
            return
        device = msg.get("device", "cpu")
        start, stop_after = time.monotonic(), float(msg.get("stop_after_s", 0.0))
        for i, one in enumerate(calls):
            fn = self.ns.get(msg["name"])   # looked up for each call, as separate calls would: one may rebind it
            args, kwargs = self._args(one)
            changed: list[str] = []
            ok, result = self._student_call(
                lambda f=fn, a=args, k=kwargs, c=changed: self.calls.invoke(  # type: ignore[misc]
                    f, a, k, device, None, None, self.policy.get("forbidden", ()), c))
            more = i + 1 < len(calls) and time.monotonic() - start < stop_after
            tag = {"index": i, "more": more}
            if ok:
                self.reply(rid, result[0], kinds=True, tag=tag, guarded=True, devices=result[1], changed=changed)
            else:
                self.fail(rid, result, kinds=True, tag=tag)
            if not more:
                return

    def serve(self) -> None:
        while True:
            try:
                msg = self.protocol.recv_frame(self.sock, max_bytes=1 << 30)
            except Exception:  # noqa: BLE001 - the grader went away
                return
            if not self.handle(msg):
                return


def child_main(sock_fd: int, policy: dict[str, Any], opts: dict[str, Any]) -> None:
    try:
        forked = time.monotonic()
        facts = _lock_down(sock_fd, policy, opts)
        # for bench/breakdown.py: when the lock-down began and ended, and the CPU it cost (trusted
        # code wrote these, before any student code exists)
        facts["stamps"] = {"forked": forked, "locked": time.monotonic(), "cpu": time.process_time()}
        sock = socket.socket(fileno=sock_fd)
        from autograder.sandbox import protocol
        # The grader reads this frame's sender credentials (SO_PASSCRED): the kernel, not we, tells
        # it our pid as the grader sees it.
        protocol.send_frame(sock, {"event": "ready", **facts})
        Worker(sock, policy).serve()
    finally:
        os._exit(0)


def zygote_main() -> None:
    """Serve spawn requests on the control socket (fd 3, SOCK_SEQPACKET): one fd per request."""
    set_dumpable(False)  # first: nobody of our uid may trace or read the zygote, nor its children
    started = time.monotonic()  # for bench/breakdown.py: one clock for every process of the machine
    opts = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    die_with_parent()
    try:
        if opts.get("level") == "container":
            container_check(opts.get("hide", []), list(opts.get("keep", [])))
        elif opts.get("drop"):
            try:
                fallback_isolate(opts.get("hide", []))
            except OSError as e:
                raise LevelUnavailable(f"cannot make private mounts ({e.strerror}): no CAP_SYS_ADMIN?") from None
    except LevelUnavailable as e:
        # one line the grader reads back (its stderr), then gone before any student code exists
        sys.stderr.write(f"level unavailable: {e}\n")
        sys.stderr.flush()
        os._exit(3)
    if opts.get("drop"):
        global STDLIB
        STDLIB = sysconfig.get_paths()["stdlib"]
    # What students may use, imported once. No torch op runs here: a multi-threaded op before fork
    # deadlocks the children in libgomp.
    import importlib
    # sympy only where a worker could not import it itself (another uid: see GRADIENT_PRELOAD)
    gradients = opts.get("gradients", True) and opts.get("drop")
    for name in PRELOAD + (GRADIENT_PRELOAD if gradients else ()):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    from autograder.sandbox import calls, messages, protocol  # noqa: F401
    # every object made so far (torch's modules among them) out of the collector's reach before the forks, as
    # Python's gc docs advise for fork servers: a worker's full collection then walks only what its own cells made,
    # and writes no GC header of the zygote's pages (each write copies a page)
    gc.freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    control = socket.socket(fileno=int(opts.get("fd", CONTROL_FD)))
    control.send(json.dumps({"event": "zygote_ready", "uid": os.getuid(), "started": started,
                             "imported": time.monotonic()}).encode())
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 1)
        except OSError:
            return
        if not data:
            return
        try:
            request = json.loads(data)
        except ValueError:
            request = {}
        if not isinstance(request, dict) or request.get("op") not in ("spawn", "zygote") or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            continue
        if request["op"] == "zygote":
            # A sibling zygote for another grader process of the same batch: a copy of this one,
            # which has never run student code, serving its own control socket (one `import torch`
            # for both). It stays in this sandbox and dies with this zygote; its workers lock
            # themselves down as every worker does.
            control.send(json.dumps({"event": "spawned", "token": request.get("token")}).encode())
            if os.fork() == 0:
                control.close()
                die_with_parent()
                control = socket.socket(fileno=fds[0])
                control.send(json.dumps({"event": "zygote_ready", "uid": os.getuid(), "started": started,
                                         "imported": time.monotonic()}).encode())
            else:
                os.close(fds[0])
            continue
        # Answered before the fork, which copies this whole process (tens of milliseconds): the
        # grader goes on meanwhile, and learns the worker's start from the worker itself (`ready`)
        control.send(json.dumps({"event": "spawned", "token": request.get("token")}).encode())
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            control.close()
            die_with_parent()
            child_main(fds[0], request["policy"], opts)
        os.close(fds[0])


if __name__ == "__main__":
    zygote_main()
