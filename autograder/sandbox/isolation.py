"""Which isolation this machine can give, and the recipe for it. Decided in the trusted process.

    bwrap      the zygote runs under bubblewrap (every namespace, no capabilities, read-only system)
    fallback   no usable bwrap but root with CAP_SYS_ADMIN: the zygote hides the course behind
               private mounts
    container  root without CAP_SYS_ADMIN (Docker's default capability set: Gradescope, a Kubernetes
               pod): no mounts, no namespaces; each worker becomes a uid of its own under seccomp and
               no_new_privs, and the course must be root-only (Gradescope's setup.sh makes it so)
    rlimits    not root and no usable bwrap: limits and seccomp only

Which one runs is decided by trying them, strongest first (`candidate_levels`, zygote.LevelChain): a
level whose zygote does not start is skipped with one line saying why. Who we are only says which
levels are worth trying.

At every level each worker then gives itself its own namespaces where the kernel allows
(autograder.sandbox.worker): that part is the same code everywhere."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

from autograder.sandbox.levels import Isolation

# The unprivileged user student code runs as: nobody, or the user Gradescope's setup.sh creates.
SANDBOX_UID = int(os.environ.get("AUTOGRADER_SANDBOX_UID", 65534))
SANDBOX_GID = int(os.environ.get("AUTOGRADER_SANDBOX_GID", SANDBOX_UID))
PKG_DIR = Path(__file__).resolve().parent.parent  # the whole package: the worker imports autograder.sandbox.*

# The environment of every sandboxed process, and nothing else of the grader's.
SANDBOX_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg",
               "PYTHONDONTWRITEBYTECODE": "1"}
# The zygote's own /tmp: it writes nothing there; each worker mounts a private one (policy.tmp_mb).
ZYGOTE_TMP_BYTES = 1 << 20

BWRAP_PROBLEM: list[str] = []  # why bwrap was not used, for the instructor

# `python -I` running a module of this package imported from PKG_DIR itself, not from whatever the environment
# installed: the sandbox runs the code of the grader that started it (a second checkout sharing one virtual
# environment, a frozen worktree measuring an older engine: `-m` had imported the installed copy, which bwrap
# does not bind, so such a grader fell to the fallback level), and nothing else of the folder PKG_DIR lies in
# joins the path (an editable install's folder holds the course: hidden tests, reference).
_PACKAGE_BOOTSTRAP = ("import sys, runpy, importlib.util as u; d = sys.argv.pop(1); "
                      "s = u.spec_from_file_location('autograder', d + '/__init__.py', submodule_search_locations=[d]); "
                      "m = u.module_from_spec(s); sys.modules['autograder'] = m; s.loader.exec_module(m); "
                      "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)")


def package_module_args(module: str) -> list[str]:
    """The interpreter's arguments that run `module` of this package as `python -I -m module` would, this
    package taken from PKG_DIR; the module's own arguments follow."""
    return ["-I", "-c", _PACKAGE_BOOTSTRAP, str(PKG_DIR), module]


# What a worker maps besides its data segment, which RLIMIT_AS counts and RLIMIT_DATA does not: the interpreter's and
# torch's libraries, read-only and executable (0.40 GiB measured: VmSize 595 MiB, VmData 186 MiB, in a worker at its
# first cell), thread stacks and malloc arenas' reserves, with room to spare
AS_BESIDES_DATA_MB = 1024


def hold_host_memory_limits(memory_mb: int) -> None:
    """The host's own memory rlimits raised to at least what a worker given `memory_mb` uses, for this process and all
    it starts, or a GraderError that names them. A worker sets RLIMIT_DATA to `memory_mb` and cannot raise a hard limit
    the host set lower (a login node's `ulimit -d` or `-v`, which SLURM propagates to its jobs): it ran under the lower
    one while its result said `RLIMIT_DATA 3072 MiB`, and a notebook whose cell takes 2 GB scored 19/35 there and 35/35
    elsewhere (red-team round 110). The address space holds the worker's libraries besides its data: a `ulimit -v` of
    memory_mb itself passed, and a notebook whose cell takes 2.6 GB scored 11/35 there and 35/35 elsewhere (red-team
    round 114): RLIMIT_AS must leave AS_BESIDES_DATA_MB more. Root raises them; any user raises a soft limit up to its
    hard one."""
    import resource

    from autograder.errors import GraderError
    for lim, what, flag, need_mb in ((resource.RLIMIT_DATA, "data segment", "-d", memory_mb),
                                     (resource.RLIMIT_AS, "address space", "-v", memory_mb + AS_BESIDES_DATA_MB)):
        need = need_mb << 20
        soft, hard = resource.getrlimit(lim)
        if (soft == resource.RLIM_INFINITY or soft >= need) and (hard == resource.RLIM_INFINITY or hard >= need):
            continue
        raised = (soft if soft == resource.RLIM_INFINITY or soft >= need else need,
                  hard if hard == resource.RLIM_INFINITY or hard >= need else need)
        try:
            resource.setrlimit(lim, raised)
        except (ValueError, OSError):
            limit = min(x for x in (soft, hard) if x != resource.RLIM_INFINITY) >> 20
            below = (f"below grading.yml's limits.memory_mb ({memory_mb})" if lim == resource.RLIMIT_DATA else
                     f"below the {need_mb} MiB a worker maps under grading.yml's limits.memory_mb ({memory_mb}): its "
                     f"data and, besides, its libraries")
            raise GraderError(f"this host limits a process's {what} to {limit} MiB (ulimit {flag}), {below}: workers "
                              f"would get less memory than a student's notebook is given elsewhere. Raise it (`ulimit "
                              f"{flag} unlimited`; under SLURM, `srun --propagate=NONE`) or lower limits.memory_mb") from None


GENEROUS_CPU_LIMIT_S = 24 * 3600   # a hard CPU-time limit at least this long is graded under (hold_host_cpu_limit)


def hold_host_cpu_limit() -> None:
    """The host's CPU-time rlimit lifted, for this process and all it starts, or a GraderError that names it. SLURM
    carries the submitting shell's `ulimit -t` into its jobs (PropagateResourceLimits=ALL, the default), and no part
    of grading is bounded by CPU seconds of the host's choosing (a call is bounded by its wall-clock deadline): under
    `ulimit -t 4` a notebook whose cell computes for 6 s scored 0/35, "the sandboxed worker stopped: the worker exited",
    and 35/35 elsewhere, and a shard's long-lived grader processes were SIGKILLed once they had spent the limit
    (red-team round 116). Any user raises the soft limit to the hard one; root lifts the hard one."""
    import resource

    from autograder.errors import GraderError
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if soft == hard == resource.RLIM_INFINITY:
        return
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        return
    except (ValueError, OSError):
        pass
    # not root: the soft limit up to the hard one is all it may do. A worker is a fresh process per submission (its CPU
    # clock starts at zero) and a grader process spends a fraction of a second per submission, so a hard limit of a day
    # or more is one no class reaches: it is used, not refused (red-team round 124: 27 hours was refused, where the
    # code before round 116 graded)
    if hard != resource.RLIM_INFINITY and hard >= GENEROUS_CPU_LIMIT_S:
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
            return
        except (ValueError, OSError):
            pass
    raise GraderError(f"this host limits a process's CPU time to {hard} s (ulimit -t): a worker that computes longer "
                      f"would be killed and its student scored for it, and the grader's own processes with it. Raise "
                      f"it (`ulimit -t unlimited`; under SLURM, `sbatch --propagate=NONE` or submit from a shell "
                      f"without the limit)") from None


@lru_cache(maxsize=1)
def bwrap_executable() -> str | None:
    """bwrap's absolute path, resolved once: the probe and the launcher run the same file, whatever
    PATH the sandbox gets."""
    found = shutil.which("bwrap")
    return os.path.realpath(found) if found else None


def runtime_paths() -> list[str]:
    """What the worker needs to read: the interpreter, its environment, this package."""
    return sorted({os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), sys.prefix,
                   str(PKG_DIR)})


def bwrap_command(python: str) -> list[str]:
    """bwrap recipe from DESIGN.md: every namespace, no capabilities, read-only system, small /tmp."""
    bwrap = bwrap_executable()
    if bwrap is None:
        raise FileNotFoundError("bwrap")
    cmd = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID),
           # /tmp first: the binds below may live under /tmp (a checkout in /tmp) and must stay on top
           "--dev", "/dev", "--proc", "/proc", "--size", str(ZYGOTE_TMP_BYTES), "--tmpfs", "/tmp"]
    for top in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/nsswitch.conf",
              "/etc/passwd", "/etc/group"):
        if os.path.exists(f):
            cmd += ["--ro-bind", f, f]
    # The interpreter, its environment and our package: read-only. Nothing else of the course.
    for path in runtime_paths():
        cmd += ["--ro-bind", path, path]
    for dev in sorted(glob.glob("/dev/nvidia*")):
        cmd += ["--dev-bind", dev, dev]
    cmd += ["--clearenv"]
    for key, value in SANDBOX_ENV.items():
        cmd += ["--setenv", key, value]
    cmd += ["--chdir", "/tmp", "--", python]
    return cmd


@lru_cache(maxsize=1)
def bwrap_works() -> bool:
    """Can bwrap start our interpreter with the full recipe? Tried twice: a loaded machine is slow."""
    if bwrap_executable() is None:
        BWRAP_PROBLEM.append("bwrap is not installed")
        return False
    for _ in range(2):
        try:
            r = subprocess.run(bwrap_command(sys.executable) + package_module_args("autograder.sandbox.calls"),
                               capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            BWRAP_PROBLEM.append(f"bwrap probe failed: {e}")
            continue
        if r.returncode == 0:
            return True
        BWRAP_PROBLEM.append(r.stderr.decode(errors="replace").strip()[-300:])
    print(f"note: bubblewrap is unusable here ({BWRAP_PROBLEM[-1]}); using the fallback sandbox",
          file=sys.stderr)
    return False


def candidate_levels() -> list[Isolation]:
    """The levels worth trying here, strongest first. Root never falls to `rlimits`: its worker would
    stay root, able to read the course and write results."""
    forced = os.environ.get("AUTOGRADER_ISOLATION")
    if forced:
        return [Isolation(forced)]
    levels = [Isolation.bwrap] if bwrap_executable() is not None else []
    if os.geteuid() == 0:
        return levels + [Isolation.fallback, Isolation.container]
    return levels + [Isolation.rlimits]


def detect_isolation(prefer: str | None = None) -> Isolation:
    """bwrap where it works; else the unprivileged-uid fallback (needs root); else rlimits only.
    `prefer` (or AUTOGRADER_ISOLATION) forces a weaker level, for tests of the fallback path."""
    prefer = prefer or os.environ.get("AUTOGRADER_ISOLATION")
    if prefer:
        return Isolation(prefer)
    if bwrap_works():
        return Isolation.bwrap
    if os.geteuid() == 0:
        return Isolation.fallback
    return Isolation.rlimits


def run_queue_seconds_of(pid: int) -> float | None:
    """Seconds the threads of process `pid` have spent runnable but waiting for a CPU (the run-queue delay of
    each, /proc/<pid>/task/*/schedstat's second field; world-readable, kept by the kernel: the student cannot
    touch it), summed; None where the kernel does not keep it or the process is gone."""
    total, seen = 0, False
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as fh:
                total += int(fh.read().split()[1])
            seen = True
        except (OSError, ValueError, IndexError):
            continue     # a thread gone since the listing
    return total / 1e9 if seen else None


def cpu_seconds_of(pid: int) -> float:
    """CPU time of a whole process (all its threads), read by the parent: a clock the student cannot
    touch. The process's CPU clock (clock_getcpuclockid) has nanosecond resolution; /proc/<pid>/stat
    (10 ms ticks) is the fallback."""
    try:
        return time.clock_gettime((~pid << 3) | 2)  # CPUCLOCK_SCHED of process `pid`
    except OSError:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _open_up(name: str, dir_fd: int | None) -> None:
    """chmod 0700 the folder `name` (relative to `dir_fd`), never what a link there points to: os.chmod follows links,
    and Linux has no lchmod, so the entry is opened as a path (O_PATH | O_NOFOLLOW: a link is the link itself), checked
    to be a folder, and changed through its /proc/self/fd name, which is that very inode. OSError where it cannot."""
    import stat
    entry = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        if stat.S_ISDIR(os.fstat(entry).st_mode):
            os.chmod(f"/proc/self/fd/{entry}", 0o700)
    finally:
        os.close(entry)


def remove_tree(path: str, open_up: bool = False) -> None:
    """Remove the folder `path` and everything under it; never a link's target, never anything above it, never raises.
    Iterative and relative to one descriptor at a time: a worker nests folders as deep as it likes in its scratch dir
    (chdir, then mkdir: 3000 levels, a path past PATH_MAX), and os.walk and shutil.rmtree recurse once per level, so
    their RecursionError ended a right notebook's grade as the autograder's failure (red-team round 82). `open_up`:
    make each folder 0700 before entering it (the rlimits level's worker is the grader's uid and may have made one
    unreadable). The chmod goes through a descriptor of the entry itself, never a link's target (a writer still running
    may swap a folder for a link), so a tree whose writer may live is opened up too (the sweep's, red-team round 90)."""
    import stat
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):   # replaced by a link (or gone): nothing of ours to remove
            return
        if open_up:
            try:
                _open_up(path, None)
            except OSError:   # the open below says whether it can be read
                pass
        fd = os.open(path, flags)
    except OSError:
        return

    def scan(folder: int) -> list[str]:
        """Unlink what is not a folder; the folders' names. One pass per folder, so a wide one costs its size once."""
        folders: list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            folders.append(entry.name)
                        else:
                            os.unlink(entry.name, dir_fd=folder)
                    except OSError:
                        pass
        except OSError:
            pass
        return folders

    # the folders entered below `path`, outermost first: (name, its parent's (st_dev, st_ino), the parent's folders left)
    entered: list[tuple[str, tuple[int, int], list[str]]] = []
    try:
        pending = scan(fd)
        while True:
            if pending:
                child = pending.pop()
                try:
                    if open_up:
                        _open_up(child, fd)
                    inner = os.open(child, flags, dir_fd=fd)
                except OSError:
                    try:
                        os.rmdir(child, dir_fd=fd)
                    except OSError:
                        pass
                    continue
                here = os.fstat(fd)
                entered.append((child, (here.st_dev, here.st_ino), pending))
                os.close(fd)
                fd = inner
                pending = scan(fd)
                continue
            if not entered:
                break
            name, parent_id, pending = entered.pop()
            parent = os.open("..", flags, dir_fd=fd)
            os.close(fd)
            fd = parent
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != parent_id:   # the tree moved under us: go no further up
                return
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                pass
    except OSError:
        return
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        pass
