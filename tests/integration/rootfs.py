"""A clean Debian root filesystem, and a container-like way to run a command in it.

The pristine root is built once with `debootstrap --variant=minbase` from Debian's packages and kept as
a tarball under the cache folder; each test unpacks its own copy. A command runs the way a container
runs it: in its own mount and pid namespaces (`unshare --mount --pid --fork --kill-child`), with the
root bind-mounted on itself (so / is a mount point), a fresh /proc, a tmpfs /dev holding the usual
device nodes, a tmpfs /tmp and a 64 MB /dev/shm (Docker's), /sys read-only, then `chroot` and `setpriv`
for the capability set. Every mount lives only in that private mount namespace: when the command ends,
or is killed for its timeout (which kills the namespace's init and with it every process inside), the
mounts are gone with it. Nothing is ever left mounted on the host, even when a test fails.
"""
from __future__ import annotations

import contextlib
import enum
import fcntl
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(os.environ.get("AUTOGRADER_INTEGRATION_CACHE", "/var/cache/autograder-integration"))
SUITE = "bookworm"  # Debian 12
PRISTINE = CACHE / f"debian-{SUITE}-minbase.tar"
RUNS = CACHE / "runs"  # one folder per test run, removed after it (and, if a run was killed, by the next)
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CAP_SYS_ADMIN = 21


class Capabilities(enum.Enum):
    """The capability set of the container's root. All but ALL also run under the part of Docker's
    default seccomp profile that matters to a sandbox (`docker_seccomp`)."""
    ALL = "all"                        # a privileged container
    DOCKER_DEFAULT = "docker-default"  # Docker's and containerd's default set: no CAP_SYS_ADMIN
    NONE = "none"                      # `--cap-drop ALL`, as a hardened Kubernetes pod asks

    def setpriv_args(self) -> list[str]:
        """What `setpriv` is told, inside the root, before the command: nothing for ALL."""
        if self is Capabilities.ALL:
            return []
        if self is Capabilities.DOCKER_DEFAULT:
            bounding = "-all," + ",".join(f"+{c}" for c in DOCKER_DEFAULT_CAPS)
        else:
            bounding = "-all"
        return ["/usr/bin/setpriv", "--bounding-set", bounding, "--inh-caps", "-all", "--"]


# moby's oci/caps/defaults.go (containerd's default spec has the same list)
DOCKER_DEFAULT_CAPS = ("chown", "dac_override", "fsetid", "fowner", "mknod", "net_raw", "setgid", "setuid",
                       "setfcap", "setpcap", "net_bind_service", "sys_chroot", "kill", "audit_write")


@dataclass(frozen=True)
class Bind:
    """A host path made visible inside the root (read-only unless `writable`)."""
    source: Path
    target: str  # absolute, inside the root
    writable: bool = False


def skip_reason() -> str | None:
    """Why the root cannot be built or entered here, or None when it can."""
    if os.geteuid() != 0:
        return "needs root (debootstrap, chroot and mount namespaces)"
    for tool in ("unshare", "chroot", "tar"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if shutil.which("debootstrap") is None and shutil.which("apt-get") is None:
        return "debootstrap is not installed and there is no apt-get to install it"
    return None


def _apt_install(package: str) -> None:
    # another engineer's apt may hold the lock: wait for it rather than fail
    lock = ["-o", "DPkg::Lock::Timeout=600"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    done = subprocess.run(["apt-get", *lock, "install", "-y", "-qq", package], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        subprocess.run(["apt-get", *lock, "update", "-qq"], env=env, check=True, capture_output=True)
        subprocess.run(["apt-get", *lock, "install", "-y", "-qq", package], env=env, check=True, capture_output=True)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def pristine_root() -> Path:
    """The cached tarball of a fresh `debootstrap --variant=minbase` Debian 12, built on first use
    (about 25 s). Concurrent callers wait for one build; a failed build leaves no tarball."""
    with _locked(CACHE / ".build.lock"):
        if PRISTINE.is_file():
            return PRISTINE
        if shutil.which("debootstrap") is None:
            _apt_install("debootstrap")
        build = Path(tempfile.mkdtemp(prefix="debootstrap-", dir=CACHE))
        try:
            done = subprocess.run(["debootstrap", "--variant=minbase", SUITE, str(build / "root")],
                                  capture_output=True, text=True, timeout=1200)
            if done.returncode != 0:
                raise RuntimeError(f"debootstrap failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
            partial = build / "root.tar"
            subprocess.run(["tar", "--numeric-owner", "-cf", str(partial), "-C", str(build / "root"), "."], check=True)
            os.replace(partial, PRISTINE)
        finally:
            _remove_tree(build)
        return PRISTINE


def _mounts_under(path: Path) -> list[str]:
    """Mount points at or under `path` in this (the host's) mount namespace."""
    prefix = str(path.resolve())
    found = []
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            point = line.split()[4].replace("\\040", " ")
            if point == prefix or point.startswith(prefix + "/"):
                found.append(point)
    return found


def _remove_tree(path: Path) -> None:
    """rm -rf that refuses to walk into anything mounted below `path` (a bind of the host's /dev or
    of a wheel folder would otherwise be emptied)."""
    if not path.exists():
        return
    mounted = _mounts_under(path)
    if mounted:
        raise RuntimeError(f"refusing to delete {path}: still mounted there: {mounted}")
    subprocess.run(["rm", "-rf", "--one-file-system", str(path)], check=True)


def _sweep_dead_runs() -> None:
    """Remove the run folders of test processes that no longer exist (a run killed mid-way)."""
    if not RUNS.is_dir():
        return
    for entry in RUNS.iterdir():
        m = re.fullmatch(r"pid(\d+)-.*", entry.name)
        if m and not Path(f"/proc/{m.group(1)}").exists():
            with contextlib.suppress(RuntimeError, subprocess.CalledProcessError):
                _remove_tree(entry)


@contextlib.contextmanager
def fresh_root() -> Iterator[Path]:
    """A private copy of the pristine root, deleted afterwards."""
    tarball = pristine_root()
    RUNS.mkdir(parents=True, exist_ok=True)
    _sweep_dead_runs()
    run = Path(tempfile.mkdtemp(prefix=f"pid{os.getpid()}-", dir=RUNS))
    root = run / "root"
    root.mkdir()
    try:
        subprocess.run(["tar", "--numeric-owner", "-xpf", str(tarball), "-C", str(root)], check=True)
        # the host's resolver: the root reaches the same package registries the host does
        shutil.copyfile("/etc/resolv.conf", root / "etc" / "resolv.conf")
        yield root
    finally:
        _remove_tree(run)


_ENTER = r"""
set -eu
R=$1; shift
mount --make-rprivate /
mount --bind "$R" "$R"
mount -t proc -o nosuid,nodev,noexec proc "$R/proc"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$R/sys"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$R/tmp"
mount -t tmpfs -o mode=755,nosuid,size=65536k tmpfs "$R/dev"
for d in null zero full random urandom tty; do
  touch "$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"
done
mkdir "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$R/dev/pts"
ln -s pts/ptmx "$R/dev/ptmx"
mount -t tmpfs -o mode=1777,nosuid,nodev,noexec,size=65536k shm "$R/dev/shm"
ln -s /proc/self/fd "$R/dev/fd"
ln -s /proc/self/fd/0 "$R/dev/stdin"; ln -s /proc/self/fd/1 "$R/dev/stdout"; ln -s /proc/self/fd/2 "$R/dev/stderr"
__BINDS__
# not exec: this shell stays the namespace's pid 1 (it reaps orphans), the command is its child
__SECCOMP__ chroot "$R" "$@"
"""


def _bind_lines(root: Path, binds: Sequence[Bind]) -> str:
    lines = []
    for b in binds:
        if not b.target.startswith("/") or ".." in b.target.split("/"):
            raise ValueError(f"a bind target is an absolute path inside the root: {b.target!r}")
        target = root / b.target.lstrip("/")
        if b.source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
        q_src, q_dst = shlex.quote(str(b.source)), shlex.quote(str(target))
        lines.append(f"mount --bind {q_src} {q_dst}")
        if not b.writable:
            lines.append(f"mount -o remount,bind,ro {q_dst}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Ran:
    """One command run in the root."""
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_in_root(root: Path, argv: Sequence[str], *, caps: Capabilities, env: Mapping[str, str] | None = None,
                binds: Sequence[Bind] = (), cwd: str = "/", timeout: float = 900) -> Ran:
    """Run `argv` as root inside `root`, container-like, with the capability set `caps` and exactly
    the environment `env` (plus PATH). Raises subprocess.TimeoutExpired after `timeout` seconds, by
    then with every process of the container killed."""
    if shutil.which("unshare") is None:
        raise RuntimeError("unshare is not installed")
    environment = {"PATH": PATH, **(env or {})}
    inner = [*caps.setpriv_args(), "/usr/bin/env", "-i", *(f"{k}={v}" for k, v in environment.items()),
             "/bin/sh", "-c", 'cd "$0" && exec "$@"', cwd, *argv]
    seccomp = "" if caps is Capabilities.ALL else shlex.join([sys.executable, os.path.abspath(__file__), "--seccomp-exec"])
    script = _ENTER.replace("__BINDS__", _bind_lines(root, binds)).replace("__SECCOMP__", seccomp)
    command = ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--propagation", "private",
               "/bin/sh", "-c", script, "enter-root", str(root.resolve()), *inner]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return Ran(done.returncode, done.stdout, done.stderr, time.perf_counter() - start)


def effective_capabilities(root: Path, caps: Capabilities) -> int:
    """CapEff of a process started in the root with `caps` (a bit mask, bit n = capability n)."""
    ran = run_in_root(root, ["/bin/grep", "^CapEff:", "/proc/self/status"], caps=caps, timeout=60)
    if ran.returncode != 0:
        raise RuntimeError(f"could not read CapEff in the root: {ran.stderr}")
    return int(ran.stdout.split()[1], 16)


def disk_usage_bytes(path: Path) -> int:
    """`du -sx` of a folder, in bytes (this file system only: nothing mounted is counted)."""
    out = subprocess.run(["du", "-sx", "--block-size=1", str(path)], check=True, capture_output=True, text=True)
    return int(out.stdout.split()[0])


# clone/unshare flags for new namespaces: NS, UTS, IPC, USER, PID, NET, CGROUP
_CLONE_NEW = (0x00020000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x02000000)


def docker_seccomp() -> None:
    """Load the part of Docker's default seccomp profile that matters to a sandbox: without
    CAP_SYS_ADMIN it refuses unshare, setns, the mount family and clone with namespace flags (so no
    user namespace either, whatever the kernel allows), and answers clone3 with ENOSYS. Loaded without
    no_new_privs, as runc does (it still holds CAP_SYS_ADMIN then)."""
    import errno

    import pyseccomp as sc
    f = sc.SyscallFilter(defaction=sc.ALLOW)
    f.set_attr(sc.Attr.CTL_NNP, 0)
    for name in ("unshare", "setns", "mount", "umount2", "pivot_root", "mount_setattr", "open_tree",
                 "move_mount", "fsopen", "fsmount"):
        with contextlib.suppress(Exception):  # a call this architecture lacks
            f.add_rule(sc.ERRNO(errno.EPERM), name)
    for bit in _CLONE_NEW:
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, bit, bit))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    f.load()


if __name__ == "__main__":
    # python rootfs.py --seccomp-exec COMMAND...: the last step before a container's chroot
    if sys.argv[1:2] != ["--seccomp-exec"] or len(sys.argv) < 3:
        sys.exit("usage: rootfs.py --seccomp-exec COMMAND ARGS...")
    docker_seccomp()
    os.execvp(sys.argv[2], sys.argv[2:])
