"""Run a command as Docker's default container runs it (Gradescope, a Kubernetes pod, most CI): root,
but without CAP_SYS_ADMIN, and under the part of Docker's default seccomp profile that matters to a
sandbox: no unshare, setns, mount or umount, clone only without namespace flags, clone3 answered
ENOSYS (glibc then uses clone). So bwrap cannot make namespaces (as in Docker), private mounts fail,
and setuid, seccomp, rlimits and file permissions still work.

    python tests/docker_default.py [--no-landlock] -- COMMAND ARGS...

--no-landlock also answers Landlock's syscalls with ENOSYS, as Docker before 23.0 or a kernel without
Landlock does.

The filter is loaded without no_new_privs (as Docker does: it has CAP_SYS_ADMIN while it loads), then
`setpriv` drops CAP_SYS_ADMIN from the bounding, inheritable and ambient sets, so the command and
everything it starts never have it."""
from __future__ import annotations

import errno
import os
import sys

CLONE_NAMESPACES = (0x00020000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
                    | 0x02000000)  # NS, UTS, IPC, USER, PID, NET, CGROUP


def docker_default_filter(landlock: bool = True) -> None:
    import pyseccomp as sc
    f = sc.SyscallFilter(defaction=sc.ALLOW)
    f.set_attr(sc.Attr.CTL_NNP, 0)
    for name in ("unshare", "setns", "mount", "umount2", "pivot_root", "mount_setattr", "open_tree",
                 "move_mount", "fsopen", "fsmount"):
        try:
            f.add_rule(sc.ERRNO(errno.EPERM), name)
        except Exception:  # noqa: BLE001 - not on this architecture
            pass
    f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_NAMESPACES, CLONE_NAMESPACES))
    for bit in (0x00020000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x02000000):
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, bit, bit))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    if not landlock:
        for name in ("landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"):
            f.add_rule(sc.ERRNO(errno.ENOSYS), name)
    f.load()


def command(argv: list[str], landlock: bool = True) -> list[str]:
    """The command line that runs `argv` as a default-capability container would."""
    return [sys.executable, os.path.abspath(__file__), *([] if landlock else ["--no-landlock"]), "--", *argv]


if __name__ == "__main__":
    args = sys.argv[1:]
    with_landlock = "--no-landlock" not in args[:1]
    if not with_landlock:
        args = args[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.exit("usage: docker_default.py -- COMMAND ...")
    docker_default_filter(with_landlock)
    os.execvp("setpriv", ["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin",
                          "--ambient-caps", "-sys_admin", "--", *args])
