"""Which part of a worker's lock-down stops CUDA from initialising (run as root on a GPU machine).

    python3 bench/cuda_sandbox_probe.py

bench/gpu_check.sh's first run on an H200 (2026-12-04): CUDA initialised in workers of the fallback level
(root, no user namespace) and failed at bwrap and rlimits ("Error 304: OS call failed") . Each variant
below is a forked child (torch imported, CUDA not initialised) that makes one piece of a worker's
lock-down with the worker's own helpers, then initialises CUDA; what it prints is one line per variant.
Where the /proc built on a tmpfs (what a worker gets when the kernel refuses it a new proc: in a user
namespace under an outer /proc with parts covered) fails and the whole of /proc works, the entries of
/proc it lacks are bisected to the ones CUDA needs."""
from __future__ import annotations

import ctypes
import glob
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.sandbox import worker as W  # noqa: E402

SAID = [""]
INIT = ("import torch; torch.cuda.init(); x = torch.ones(4, 4, device='cuda'); "
        "assert float((x @ x).sum()) == 64.0")


def _child(userns: bool, pidns: bool, proc: str, extra: tuple[str, ...], walls: str = "") -> str:
    libc = W._libc()
    flags = W.CLONE_NEWNS | (W.CLONE_NEWPID if pidns else 0) | (W.CLONE_NEWUSER if userns else 0)
    if libc.unshare(flags) != 0:
        return f"unshare failed: errno {ctypes.get_errno()}"
    if userns:
        for name, text in (("setgroups", "deny"), ("uid_map", "0 0 1"), ("gid_map", "0 0 1")):
            with open(f"/proc/self/{name}", "w") as fh:
                fh.write(text)
    if pidns:
        pid = os.fork()
        if pid:
            _, status = os.waitpid(pid, 0)
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    outer = os.readlink("/proc/self")
    W._mount("none", "/", None, W.MS_REC | W.MS_PRIVATE)
    W._private_tmpfs("/tmp", 64, [])
    said = ""
    if proc == "real":
        try:
            W._mount("proc", "/proc", "proc", W.MS_NOSUID | W.MS_NODEV | W.MS_NOEXEC)
            said = "(new proc mounted) "
        except OSError as e:
            said = f"(new proc refused: {e}) "
        SAID[0] = said
    elif proc == "tmpfs":
        os.mkdir("/tmp/outer-proc")                      # the outer /proc, for the extra entries below
        W._mount("/proc", "/tmp/outer-proc", None, W.MS_BIND | W.MS_REC)
        real_mount = W._mount

        def no_new_proc(source, target, fstype, flags, data=None):  # type: ignore[no-untyped-def]
            if fstype == "proc":
                raise OSError("forced: the tmpfs /proc")
            real_mount(source, target, fstype, flags, data)
        W._mount = no_new_proc
        W._private_proc(outer, cuda=True)
        W._mount = real_mount
        for e in extra:
            try:
                if e == "<pid>":
                    os.symlink("self", f"/proc/{os.getpid()}")
                    continue
                src, dst = f"/tmp/outer-proc/{e}", f"/proc/{e}"
                if os.path.isdir(src):
                    os.makedirs(dst, exist_ok=True)
                else:
                    open(dst, "w").close()
                W._mount(src, dst, None, W.MS_BIND | W.MS_REC)
            except OSError:
                said += f"[{e} not added] "
    SAID[0] = said
    if walls:
        # Landlock as an rlimits or container worker gets it: the system's directories, /dev, what the
        # interpreter imports from, its own /tmp. "driver" adds the NVIDIA driver's own folders.
        extra_read = [p for p in ("/usr/local/nvidia", "/usr/local/cuda", "/run/nvidia-persistenced",
                                  "/var/run/nvidia-persistenced") if os.path.exists(p)] if walls == "driver" else []
        said += f"(landlock {W.landlock(W.import_roots([]) + extra_read, ['/tmp'])}) "
        SAID[0] = said
    import torch
    torch.cuda.init()
    x = torch.ones(4, 4, device="cuda")
    assert float((x @ x).sum()) == 64.0
    return said + "ok"


def variant(userns: bool, pidns: bool, proc: str, extra: tuple[str, ...] = (), walls: str = "") -> str:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = _child(userns, pidns, proc, extra, walls)
        except BaseException as e:  # noqa: BLE001 - the line says it
            out = f"{SAID[0]}{type(e).__name__}: {str(e)[-160:]}"
        os.write(w, out.encode()[:2000])
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        out = fh.read().decode(errors="replace")
    os.waitpid(pid, 0)
    return out or "(no word: the child died)"


def works(extra: tuple[str, ...], pidns: bool = True) -> bool:
    return variant(False, pidns, "tmpfs", extra).endswith("ok")


def bisect(entries: list[str]) -> list[str]:
    """A small subset of `entries` that, added to the tmpfs /proc, lets CUDA start (delta debugging)."""
    if len(entries) <= 1:
        return entries
    half = len(entries) // 2
    a, b = entries[:half], entries[half:]
    if works(tuple(a)):
        return bisect(a)
    if works(tuple(b)):
        return bisect(b)
    # both halves needed: minimise each against the other
    return bisect_with(a, tuple(b)) + bisect_with(b, tuple(a))


def bisect_with(entries: list[str], kept: tuple[str, ...]) -> list[str]:
    if len(entries) <= 1:
        return entries
    half = len(entries) // 2
    a, b = entries[:half], entries[half:]
    if works(kept + tuple(a)):
        return bisect_with(a, kept)
    if works(kept + tuple(b)):
        return bisect_with(b, kept)
    return bisect_with(a, kept + tuple(b)) + bisect_with(b, kept + tuple(a))


def main() -> None:
    import torch  # noqa: F401 - imported once, before the forks (CUDA not initialised)
    print("devices:", subprocess.run("ls -ln /dev/nvidia* 2>&1 | head -12", shell=True, capture_output=True,
                                     text=True).stdout.strip())
    params = Path("/proc/driver/nvidia/params")
    if params.exists():
        print("params:", " ".join(ln for ln in params.read_text().splitlines()
                                  if "DeviceFile" in ln or "Modify" in ln))
    print("proc mounts over /proc:", subprocess.run("grep ' /proc/' /proc/self/mountinfo | wc -l", shell=True,
                                                    capture_output=True, text=True).stdout.strip())
    rows = [("nothing (baseline)", False, False, "keep"),
            ("user namespace only", True, False, "keep"),
            ("user + pid namespaces, outer /proc kept", True, True, "keep"),
            ("user + pid namespaces, new proc", True, True, "real"),
            ("pid namespace (root), new proc", False, True, "real"),
            ("pid namespace (root), tmpfs /proc as a worker builds it", False, True, "tmpfs"),
            ("user + pid namespaces, tmpfs /proc", True, True, "tmpfs")]
    for name, userns, pidns, proc in rows:
        print(f"{name:<58} {variant(userns, pidns, proc)}", flush=True)
    for name, userns, walls in (("landlock only (as rlimits/container workers)", False, "plain"),
                                ("landlock + the driver's folders", False, "driver"),
                                ("user namespace + landlock", True, "plain")):
        print(f"{name:<58} {variant(userns, False, 'keep', walls=walls)}", flush=True)
    if not works(()):
        entries = sorted(os.path.basename(p) for p in glob.glob("/proc/*")
                         if not os.path.basename(p).isdigit()
                         and os.path.basename(p) not in ("self", "thread-self", *W.CUDA_PROC)
                         and os.path.basename(p) not in ("kcore", "kmsg", "sysrq-trigger"))
        print(f"tmpfs /proc plus its own pid as a link to self: {variant(False, True, 'tmpfs', ('<pid>',))}")
        everything = tuple(entries) + ("<pid>",)
        print(f"tmpfs /proc plus every system-wide entry ({len(entries)}) and the pid link: "
              f"{variant(False, True, 'tmpfs', everything)}", flush=True)
        if works(everything):
            print("CUDA needs, of those:", bisect(list(everything)), flush=True)
    sys_parts = [a for d in ("/sys/devices", "/sys/bus", "/sys/class", "/sys/module", "/sys/dev")
                 if os.path.isdir(d) for a in ("--ro-bind", d, d)]
    driver = [a for d in ("/proc/driver/nvidia",) if os.path.isdir(d) for a in ("--ro-bind", d, d)]
    for label, extra in (("bwrap recipe", []), ("bwrap recipe + /sys", ["--ro-bind", "/sys", "/sys"]),
                         ("bwrap recipe + /sys/{devices,bus,class,module,dev}", sys_parts),
                         ("bwrap recipe + the outer /proc/driver/nvidia", driver)):
        from autograder.sandbox.isolation import bwrap_command, bwrap_executable
        if bwrap_executable() is None:
            break
        cmd = bwrap_command(sys.executable)
        cmd = cmd[:-2] + extra + cmd[-2:] + ["-I", "-c", INIT]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        print(f"{label:<58} {'ok' if r.returncode == 0 else r.stderr.strip().splitlines()[-1][-160:]}", flush=True)
    traces()


# A worker at each level, spawned by a real zygote, with CUDA: the same code path the grader takes.
SPAWN = """
import sys
from autograder.results import Isolation
from autograder.sandbox import SandboxPolicy, Zygote
z = Zygote(Isolation(sys.argv[1])); z.start()
s = z.spawn(SandboxPolicy(cuda=True)); print(sys.argv[1], s.facts); s.close(); z.close()
"""
TELLING = ("nvidia", "/sys/", "/dev/", "/proc/driver", "ioctl(", "mmap(", "EPERM", "EACCES", "EOPNOTSUPP",
           "ENOSYS", "EROFS", "ENODEV", "ENXIO", "ENOMEM", "EBADF")


def telling(lines: list[str]) -> list[str]:
    """The failed calls worth a look, without their pid, each once, in order."""
    seen: dict[str, int] = {}
    for ln in lines:
        call = ln.split(None, 1)[1] if ln[:1].isdigit() and " " in ln else ln
        if call.startswith(("+++", "---")) or "TCGETS" in call or not any(t in call for t in TELLING):
            continue
        call = re.sub(r"0x[0-9a-f]+", "0x.", call)
        seen[call] = seen.get(call, 0) + 1
    return [f"{n}x {call}" for call, n in seen.items()]


def traces() -> None:
    """With STRACE set (a strace binary; the GPU image has none, gpu_check.sh carries Debian's): the
    failed system calls of a CUDA start under bwrap's recipe and in a worker of each level, all kept
    under $OUT, those that are neither a missing file nor a routine refusal printed."""
    strace = os.environ.get("STRACE")
    if not strace:
        return
    out = Path(os.environ.get("OUT") or "/tmp")
    from autograder.sandbox.isolation import bwrap_command, bwrap_executable
    runs = {level: [sys.executable, "-c", SPAWN, level] for level in ("fallback", "rlimits", "bwrap")}
    if bwrap_executable() is not None:
        runs["bwrap-recipe"] = bwrap_command(sys.executable) + ["-I", "-c", INIT]
    for name, cmd in runs.items():
        trace = out / f"strace-{name}.txt"
        r = subprocess.run([strace, "-f", "-Z", "-s", "96", "-o", str(trace), *cmd], capture_output=True,
                           text=True, timeout=120, cwd=ROOT)
        lines = trace.read_text(errors="replace").splitlines() if trace.exists() else []
        odd = telling(lines)
        print(f"strace {name}: rc {r.returncode}, {len(lines)} failed calls, {len(odd)} shown; "
              f"{(r.stdout.strip().splitlines() or [''])[-1][-200:]} {(r.stderr.strip().splitlines() or [''])[-1][-200:]}")
        for ln in odd[:60]:
            print("   ", ln[:220])


if __name__ == "__main__":
    main()
