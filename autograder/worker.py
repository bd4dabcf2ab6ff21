"""The untrusted side of the boundary. Runs inside the sandbox, never in the grader's process.

A zygote (`python -I -m autograder.worker`) imports what students may use (torch, numpy), then forks
one child per submission on request. The zygote was exec'd fresh by the grader, so a child inherits
no tests, reference, seeds or secrets. Each child locks itself down (own session, scratch dir,
rlimits, not dumpable, seccomp), runs the notebook's cells, then answers requests: resolve a name,
call a function, time calls. Only plain data crosses back (autograder.protocol).

Everything here before `_lock_down` is trusted code; after it, the process belongs to the student."""
from __future__ import annotations

import builtins
import ctypes
import errno
import io
import json
import os
import resource
import signal
import socket
import sys
import time
import traceback
import types
from typing import Any

CONTROL_FD = 3


# --- privilege drop for the fallback isolation (no bwrap): done by the zygote before any import ---
CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_REC, MS_PRIVATE, MS_RDONLY, MS_BIND, MS_NOSUID, MS_NODEV = 0x4000, 0x40000, 1, 0x1000, 2, 4
MS_REMOUNT = 0x20


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def fallback_isolate(hide: list[str], keep: list[str]) -> None:
    """As root without bwrap: private network and mount namespaces, and the grader's paths covered by
    empty read-only mounts. Runs first thing in the zygote, before any thread exists.

    `keep`: paths the worker needs (interpreter, venv, this package); those under a directory that
    gets a private tmpfs (a checkout in /tmp) are bound back into it, read-only."""
    libc = _libc()
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET), "unshare")
    _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
    for path in hide:
        if os.path.isdir(path):
            _check(libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
                              b"size=4k,mode=000"), f"hide {path}")
        elif os.path.exists(path):
            _check(libc.mount(b"/dev/null", path.encode(), None, MS_BIND, None), f"hide {path}")
    # Private, size-capped scratch: nothing the student writes lands in the host's /tmp.
    for path, size in (("/tmp", b"size=512m,mode=1777"), ("/var/tmp", b"size=1m,mode=1777"),
                       ("/dev/shm", b"size=1m,mode=1777")):
        if not os.path.isdir(path):
            continue
        under = [k for k in keep if k.startswith(path + "/")]
        held = {k: os.open(k, os.O_PATH) for k in under}  # reachable after the tmpfs covers them
        _check(libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, size), f"tmpfs {path}")
        for k, fd in held.items():
            os.makedirs(k, exist_ok=True)
            _check(libc.mount(f"/proc/self/fd/{fd}".encode(), k.encode(), None, MS_BIND | MS_REC, None),
                   f"keep {k}")
            _check(libc.mount(None, k.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, None),
                   f"read-only {k}")
            os.close(fd)


def die_with_parent() -> None:
    _libc().prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: no orphan outlives its parent


# Imported while still privileged, so that they work even where the interpreter's own tree is not
# readable by the unprivileged user (a Python under /root). Trusted library code only.
PRELOAD = ("numpy", "torch", "math", "random", "itertools", "functools", "collections", "typing",
           "json", "re", "dataclasses", "datetime", "copy", "operator", "string", "textwrap",
           "warnings", "inspect", "statistics", "fractions", "decimal", "time", "abc", "enum",
           "torch.nn", "torch.nn.functional", "pyseccomp", "ctypes.util",
           # torch.autograd.grad imports sympy lazily on first use (~0.4 s): pay it once, here,
           # not once per submission
           "mpmath", "sympy", "torch.autograd", "torch.fx.experimental.symbolic_shapes")


def drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)


# --- the student's process: lock-down ------------------------------------------------------------
def _seccomp(own_pid: int) -> bool:
    """No new processes, no sockets, no exec, no ptrace, no signals to anyone else."""
    try:
        import pyseccomp as sc
    except Exception:  # noqa: BLE001 - libseccomp missing: the grader records a weaker isolation
        return False
    f = sc.SyscallFilter(defaction=sc.ALLOW)
    eperm = sc.ERRNO(errno.EPERM)
    CLONE_THREAD = 0x00010000
    f.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))  # fork-like clone
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")  # glibc falls back to clone for threads
    for name in ("fork", "vfork", "execve", "execveat", "socket", "ptrace", "process_vm_readv",
                 "process_vm_writev", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
                 "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd",
                 "io_uring_setup", "personality", "kexec_load", "init_module", "finit_module",
                 "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid"):
        try:
            f.add_rule(eperm, name)
        except Exception:  # noqa: BLE001 - syscall unknown on this architecture
            pass
    f.add_rule(eperm, "kill", sc.Arg(0, sc.NE, own_pid))
    f.add_rule(eperm, "tgkill", sc.Arg(0, sc.NE, own_pid))
    f.add_rule(eperm, "tkill", sc.Arg(0, sc.NE, own_pid))  # tkill takes a tid; threads use tgkill
    f.load()
    return True


def _lock_down(sock_fd: int, policy: dict[str, Any]) -> dict[str, Any]:
    os.setsid()
    die_with_parent()
    scratch = os.path.join(policy["scratch_root"], f"sub-{os.getpid()}")
    os.makedirs(scratch, mode=0o700, exist_ok=True)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update({"HOME": scratch, "TMPDIR": scratch, "MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin",
                       "OMP_NUM_THREADS": "1"})
    mem = int(policy["memory_mb"]) * 1024 * 1024
    for lim, value in ((resource.RLIMIT_DATA, mem), (resource.RLIMIT_FSIZE, 64 << 20),
                       (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NOFILE, 256),
                       (resource.RLIMIT_NPROC, 512)):
        try:
            resource.setrlimit(lim, (value, value))
        except (ValueError, OSError):
            pass
    _libc().prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: siblings cannot ptrace or read our memory
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, sock_fd)
    os.closerange(sock_fd + 1, 1 << 16)
    import torch
    torch.set_num_threads(1)
    return {"seccomp": _seccomp(os.getpid()), "scratch": scratch}


# --- the student's process: serving --------------------------------------------------------------
class CappedWriter(io.TextIOBase):
    """stdout/stderr for student code: keeps the first `limit` characters, drops the rest."""

    def __init__(self, limit: int) -> None:
        self.limit, self.parts, self.size, self.dropped = limit, [], 0, 0

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
    are the student's business; in grading they do nothing (the hidden tests decide)."""
    mod = types.ModuleType("otter")

    class Notebook:
        def __init__(self, *a: Any, **k: Any) -> None:
            pass

        def __getattr__(self, name: str) -> Any:
            return lambda *a, **k: None

    mod.Notebook = Notebook  # type: ignore[attr-defined]
    return mod


def _error(e: BaseException) -> dict[str, Any]:
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=8))
    return {"type": type(e).__name__[:100], "message": str(e)[:500], "traceback": tb[-4000:]}


class Worker:
    def __init__(self, sock: socket.socket, policy: dict[str, Any]) -> None:
        from autograder import protocol, calls
        self.protocol, self.calls = protocol, calls
        self.sock = sock
        self.policy = policy
        self.ns: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
        self.stash: dict[str, Any] = {}
        self.out = CappedWriter(int(policy["output_kb"]) * 1024)
        sys.modules["otter"] = _otter_stub()

    def send(self, message: dict[str, Any]) -> None:
        self.protocol.send_frame(self.sock, message)

    def reply(self, rid: int, value: Any = None, **extra: Any) -> None:
        try:
            encoded = self.protocol.encode_value(value)
        except Exception as e:  # noqa: BLE001 - the student's value cannot be sent: an error reply
            self.send({"id": rid, "ok": False, "error": _error(e)})
            return
        self.send({"id": rid, "ok": True, "value": encoded, **extra})

    def exec_cells(self, rid: int, cells: list[str]) -> None:
        sys.stdout = sys.stderr = self.out
        for i, src in enumerate(cells):
            self.send({"event": "cell_start", "index": i})
            start = time.perf_counter()
            status, err = "ok", ""
            try:
                exec(compile(src, f"<cell {i}>", "exec"), self.ns)
            except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
                status, err = "error", f"{type(e).__name__}: {str(e)[:300]}"
            self.send({"event": "cell_end", "index": i, "status": status, "error": err,
                       "duration_s": round(time.perf_counter() - start, 4)})
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        self.reply(rid, None, output=self.out.take())

    def _args(self, msg: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        args = self.protocol.decode_value(msg.get("args", []), allow_generator=True)
        kwargs = self.protocol.decode_value(msg.get("kwargs", {"__dict__": {}}), allow_generator=True)
        return list(args), dict(kwargs)

    def _student_call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], device: str,
                      grad_wrt: Any, grad_out: Any) -> tuple[bool, Any]:
        """Run one graded call with its output captured: (True, (value, devices)) or (False, error)."""
        sys.stdout = sys.stderr = self.out
        try:
            return True, self.calls.invoke(fn, args, kwargs, device, grad_wrt, grad_out,
                                           self.policy.get("forbidden", ()))
        except BaseException as e:  # noqa: BLE001 - the student's exception, as strings
            return False, _error(e)
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__

    def handle(self, msg: dict[str, Any]) -> bool:
        rid, op = msg.get("id", 0), msg.get("op")
        if op == "exec":
            self.exec_cells(rid, msg["cells"])
        elif op == "resolve":
            name = msg["name"]
            if name not in self.ns:
                self.send({"id": rid, "ok": True, "kind": "missing", "value": None})
            elif callable(self.ns[name]):
                self.send({"id": rid, "ok": True, "kind": "callable", "value": None})
            else:
                self.reply(rid, self.ns[name], kind="value")
        elif op in ("call", "stash"):
            fn = self.ns.get(msg["name"])
            args, kwargs = self._args(msg)
            if op == "stash":
                self.stash[msg["key"]] = (fn, args, kwargs)
                self.send({"id": rid, "ok": True, "value": None})
                return True
            grad_out = self.protocol.decode_value(msg["grad_output"]) if msg.get("grad_output") else None
            ok, result = self._student_call(fn, args, kwargs, msg.get("device", "cpu"),
                                            msg.get("grad_wrt"), grad_out)
            if ok:
                self.reply(rid, result[0], devices=result[1])
            else:
                self.send({"id": rid, "ok": False, "error": result})
        elif op == "time_call":
            fn, args, kwargs = self.stash[msg["key"]]
            for _ in range(int(msg["repeat"])):
                ok, result = self._student_call(fn, args, kwargs, msg.get("device", "cpu"), None, None)
                if not ok:
                    self.send({"id": rid, "ok": False, "error": result})
                    return True
            self.send({"id": rid, "ok": True, "value": None})
        elif op == "output":
            self.send({"id": rid, "ok": True, "value": self.out.take()})
        elif op == "exit":
            return False
        else:
            self.send({"id": rid, "ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}"}})
        return True

    def serve(self) -> None:
        while True:
            try:
                msg = self.protocol.recv_frame(self.sock, max_bytes=1 << 30)
            except Exception:  # noqa: BLE001 - the grader went away
                return
            if not self.handle(msg):
                return


def child_main(sock_fd: int, policy: dict[str, Any]) -> None:
    try:
        facts = _lock_down(sock_fd, policy)
        sock = socket.socket(fileno=sock_fd)
        from autograder import protocol
        protocol.send_frame(sock, {"event": "ready", **facts})
        Worker(sock, policy).serve()
    finally:
        os._exit(0)


def zygote_main() -> None:
    """Serve spawn requests on the control socket (fd 3, SOCK_SEQPACKET): one fd per request."""
    opts = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    die_with_parent()
    if opts.get("drop"):
        fallback_isolate(opts.get("hide", []), opts.get("keep", []))
    # What students may use, imported once. No torch op runs here: a multi-threaded op before fork
    # deadlocks the children in libgomp.
    import importlib
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    from autograder import calls, protocol  # noqa: F401
    if opts.get("drop"):
        drop_privileges(opts.get("uid", 65534), opts.get("gid", 65534))
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    control = socket.socket(fileno=int(opts.get("fd", CONTROL_FD)))
    control.send(json.dumps({"event": "zygote_ready", "pid": os.getpid(), "uid": os.getuid()}).encode())
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 1)
        except OSError:
            return
        if not data:
            return
        request = json.loads(data)
        if request.get("op") != "spawn" or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            control.close()
            child_main(fds[0], request["policy"])
        os.close(fds[0])
        control.send(json.dumps({"event": "spawned", "pid": pid, "token": request.get("token")}).encode())


if __name__ == "__main__":
    zygote_main()
