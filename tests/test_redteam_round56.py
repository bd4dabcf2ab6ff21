"""Red-team round 56: students against each other in a batch (each test fails before its gap is closed).

1. Pseudo-terminals are a channel between concurrent workers. A worker's mount namespace is a copy of the
   zygote's, and `/dev/pts` in it is still the zygote's devpts instance (bwrap's `--dev /dev`): the root is
   made read-only, but device nodes stay openable on a read-only mount, and `/dev/ptmx` (0666) is on it. So a
   worker opens `/dev/ptmx`, unlocks the pty (ioctl is allowed), and a classmate's worker graded at the same
   time (the other lane of `batch -j2`: its zygote is forked from the first, inside the same bwrap) finds
   `/dev/pts/0`, opens it (every bwrap worker is uid 65534) and reads and writes it: both ways, arbitrary bytes.
   /tmp/rt56/pty/{a_send,b_recv}.ipynb, `autograder batch /tmp/rt56/pty -a sdpa-from-scratch -o OUT -j2`:
   b_recv reads "ANSWER-IS-B" from a_send, a_send reads "thanks from B" back (both 35/35). It is the kind of
   channel docs/security.md says no worker shares (SysV, POSIX queues, abstract sockets: the IPC namespace);
   a pty is in none of the namespaces a worker makes. Fallback and container refuse it (uids of their own, a
   slave of mode 600); rlimits (every worker the grader's uid, the host's devpts) does not.

2. At the rlimits level the worker can write to the instructor's terminal. Landlock there lets a worker
   write every file under `/dev` (for /dev/null), and the worker runs as the grader's own uid, so the pty
   the instructor runs `autograder grade/batch` in (owned by them, mode 620) is writable: a notebook that
   writes ESC sequences to each `/dev/pts/N` puts "Score: 35 / 35 (all tests passed)" in green on the
   instructor's screen between the grader's own lines, can erase lines, and sends OSC 52 (set the terminal's
   clipboard) where the terminal honours it, past every rule that terminal output is escaped
   (/tmp/rt56/tty/tty_write.ipynb, `AUTOGRADER_ISOLATION=rlimits autograder grade ... ` run on a pty:
   /tmp/rt56/run_in_pty.py). bwrap, fallback and container did not reach it.

3. flock on a shared read-only file: a channel between concurrent classmates at every level (below).
4. fallback: a worker reads another batch's class folder and output (classmates' notebooks, gradebook.csv).
5. fallback: a worker reads the course's .git objects: every version of the hidden tests and the reference.
6. bwrap, rlimits: one worker takes every inotify instance of the grader's uid on the machine.
7. bwrap, rlimits: one worker takes the grader's uid's whole RLIMIT_SIGPENDING (POSIX timers).
"""
from __future__ import annotations

import os
import select
import time
from pathlib import Path

import pytest

from autograder.results import Isolation
from autograder.sandbox import SandboxPolicy, Zygote, bwrap_works

from tests.conftest import FIXTURE_COURSE

LEVELS = [Isolation.bwrap, Isolation.fallback, Isolation.container, Isolation.rlimits]


def available(level: Isolation) -> bool:
    if level is Isolation.bwrap:
        return bwrap_works()
    if level in (Isolation.fallback, Isolation.container):
        return os.geteuid() == 0
    return True


@pytest.fixture(scope="module", params=LEVELS, ids=[lv.value for lv in LEVELS])
def zygote(request):
    if not available(request.param):
        pytest.skip(f"{request.param.value} isolation is not available here")
    z = Zygote(request.param, hide=[str(FIXTURE_COURSE / "assignments"), str(FIXTURE_COURSE / "reference"),
                                    str(FIXTURE_COURSE / "grading.yml")])
    z.start()
    yield z
    z.close()


POLICY = SandboxPolicy(cell_timeout_s=5, call_timeout_s=5, submission_timeout_s=60)

# A student who opens a pty and keeps its master (a global: it stays open while the worker lives)
OPEN_PTY = r'''
import os, fcntl, struct
opened = None
try:
    _master = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    fcntl.ioctl(_master, 0x40045431, struct.pack("i", 0))                 # TIOCSPTLCK: unlockpt
    opened = struct.unpack("I", fcntl.ioctl(_master, 0x80045430, b"\0\0\0\0"))[0]   # TIOCGPTN
    os.write(_master, b"psst the answer is B\n")
except OSError as e:
    opened = f"refused: {e}"
'''

# A classmate graded at the same time, looking for it
FIND_PTY = r'''
import os, time
heard = []
for name in sorted(os.listdir("/dev/pts")) if os.path.isdir("/dev/pts") else []:
    if not name.isdigit():
        continue
    try:
        fd = os.open(f"/dev/pts/{name}", os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        continue
    time.sleep(0.2)
    try:
        heard.append(os.read(fd, 100).decode(errors="replace"))
    except OSError as e:
        heard.append(f"opened /dev/pts/{name} ({e.strerror})")
    os.close(fd)
'''


def test_two_workers_graded_at_once_share_no_pseudo_terminal(zygote):
    sender, receiver = zygote.spawn(POLICY), zygote.spawn(POLICY)
    try:
        out = sender.exec_cells([OPEN_PTY])
        assert out.cells[0].status == "ok", out.cells
        opened = sender.resolve("opened", "cpu")
        out = receiver.exec_cells([FIND_PTY])
        assert out.cells[0].status == "ok", out.cells
        heard = receiver.resolve("heard", "cpu")
    finally:
        sender.close()
        receiver.close()
    assert heard == [], (
        f"at {zygote.isolation.value}, a worker opened a pty (/dev/ptmx -> {opened!r}) and a classmate's "
        f"worker alive at the same time opened it: {heard!r}")


def test_a_worker_cannot_write_to_the_graders_terminal(zygote):
    """The terminal the grader runs in (here a pty of this test's own, owned by whoever runs the tests, as an
    instructor's is theirs): no worker may open it."""
    master, slave = os.openpty()
    path = os.ttyname(slave)
    session = zygote.spawn(POLICY)
    try:
        out = session.exec_cells([
            "import os\nreached = None\n"
            f"try:\n    _fd = os.open({path!r}, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)\n"
            "    os.write(_fd, b'\\x1b[1;32mScore: 35 / 35 (all tests passed)\\x1b[0m ROUND56\\r\\n')\n"
            "    os.close(_fd)\n    reached = 'written'\n"
            "except OSError as e:\n    reached = e.strerror\n"])
        assert out.cells[0].status == "ok", out.cells
        reached = session.resolve("reached", "cpu")
        got, deadline = b"", time.monotonic() + 1.0
        while time.monotonic() < deadline and b"ROUND56" not in got:
            if select.select([master], [], [], 0.1)[0]:
                got += os.read(master, 4096)
    finally:
        session.close()
        os.close(slave)
        os.close(master)
    assert b"ROUND56" not in got and reached != "written", (
        f"at {zygote.isolation.value} (landlock: {session.facts.get('landlock')}) a worker wrote escape "
        f"sequences to the grader's terminal {path}: {got!r}")


# 3. File locks on the shared read-only tree are another such channel: `flock` (and fcntl's record locks) are
#    allowed, and a lock on a file every worker can open (torch's own __init__.py, in the read-only runtime) is
#    seen by a classmate's worker alive at the same time: one bit per file, as many bits as files, polled.
#    (At bwrap: a worker holds LOCK_EX on torch/__init__.py, the classmate's LOCK_NB gets EAGAIN.)
LOCK = "import fcntl, torch\n_f = open(torch.__file__, 'rb')\nfcntl.flock(_f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
PROBE_LOCK = ("import fcntl, torch\n_g = open(torch.__file__, 'rb')\ntry:\n"
              "    fcntl.flock(_g, fcntl.LOCK_EX | fcntl.LOCK_NB)\n    seen = 'free'\n"
              "    fcntl.flock(_g, fcntl.LOCK_UN)\nexcept OSError as e:\n    seen = f'held by someone: {e.strerror}'\n")


# Not a test: a file lock stays a one-bit channel between two colluding classmates graded at the same time, a known
# limit in docs/security.md (refusing flock and fcntl's lock commands would break libraries that lock files). LOCK
# and PROBE_LOCK above are what the round tried.


# 4. At the fallback level a worker reads every world-readable file on the host but the few the grader hides:
#    the course's secret paths and this batch's class folder and output. Nothing walls off the rest (Landlock
#    is applied at container and rlimits only), so last week's class folder and last week's output beside
#    them (made by `mkdir` and the grader under the usual umask 022: 0755 / 0644) are open to this week's
#    students: classmates' notebooks, gradebook.csv (names, ids, e-mails, scores), roster.json, results and
#    feedback. /srv/rt56/hw2_subs/mallory.ipynb graded with
#    `AUTOGRADER_ISOLATION=fallback autograder batch /srv/rt56/hw2_subs -a sdpa-from-scratch -o /srv/rt56/hw2_out`
#    lists /srv/rt56/hw1_out and reads /srv/rt56/hw1_subs/alice.ipynb and hw1_out/gradebook.csv (35/35 for it
#    and for bob beside it). bwrap (not mounted) and container (Landlock: "Permission denied") refuse the same
#    reads. The grader moves itself to fallback on its own (as root, bwrap's CUDA worker failing: the H200).
def test_fallback_workers_cannot_read_another_batchs_class_folder():
    from tests.conftest import ROOT
    if os.geteuid() != 0:
        pytest.skip("the fallback level needs root")
    base = ROOT.parent
    if not os.access(base, os.W_OK) or (os.stat(base).st_mode & 0o005) != 0o005:
        pytest.skip(f"{base} is not a world-readable folder this test may write in")
    import shutil
    import tempfile
    earlier = Path(tempfile.mkdtemp(prefix=".round56-hw1-", dir=base))
    this_class, this_out = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    try:
        os.chmod(earlier, 0o755)                                   # what `mkdir` makes under umask 022
        (earlier / "subs").mkdir(mode=0o755)
        (earlier / "subs" / "alice.ipynb").write_text('{"cells": [], "secret": "alice-hw1-answers"}')
        os.chmod(earlier / "subs" / "alice.ipynb", 0o644)
        z = Zygote(Isolation.fallback, hide=[str(FIXTURE_COURSE / "assignments"), str(FIXTURE_COURSE / "reference"),
                                             str(FIXTURE_COURSE / "grading.yml"), str(this_class), str(this_out)])
        z.start()
        try:
            session = z.spawn(POLICY)
            out = session.exec_cells([f"got = None\ntry:\n    got = open({str(earlier / 'subs' / 'alice.ipynb')!r}).read()\n"
                                      "except OSError as e:\n    got = e.strerror\n"])
            assert out.cells[0].status == "ok", out.cells
            got = session.resolve("got", "cpu")
            session.close()
        finally:
            z.close()
    finally:
        for folder in (earlier, this_class, this_out):
            shutil.rmtree(folder, ignore_errors=True)
    assert "alice-hw1-answers" not in str(got), (
        f"a fallback worker read another batch's submission {earlier}/subs/alice.ipynb: {got!r}")


# 5. The same gap reaches the grader's own secrets: at fallback the zygote covers five paths of the course
#    (assignments/, reference/, grading.yml, tests/, examples/) and nothing else of its folder, and the course is
#    a git checkout: `.git/objects` (0755/0444) holds every version of the hidden tests and the reference. A
#    notebook that walks the loose objects and zlib-decompresses them found 107 blobs with `@test_case(points=`
#    in this checkout (/tmp/rt56/git/gitread.ipynb, `AUTOGRADER_ISOLATION=fallback`, 35/35); it also lists the
#    demo batch's output `out/` (journal, results, feedback) and `.mypy_cache`. bwrap does not mount them,
#    container's Landlock refuses them (container without Landlock would read them too: its self-check tries
#    only the five paths). Packed objects are as readable, one parser further.
def test_fallback_workers_cannot_read_the_courses_git_history(course):
    from autograder.sandbox.zygote import launch_plan
    if os.geteuid() != 0:
        pytest.skip("the fallback level needs root")
    objects = course.root / ".git" / "objects"
    if not objects.is_dir():
        pytest.skip("the course is not a git checkout here")
    z = Zygote(Isolation.fallback, hide=launch_plan(course, (), ["sdpa-from-scratch"])["hide"])
    z.start()
    try:
        session = z.spawn(POLICY)
        out = session.exec_cells([
            "import os, zlib\nseen, hidden_tests = 0, []\n"
            f"root = {str(objects)!r}\n"
            "try:\n    names = os.listdir(root)\nexcept OSError as e:\n    names = []\n    seen = e.strerror\n"
            "for d in names:\n    if len(d) != 2:\n        continue\n"
            "    for f in os.listdir(os.path.join(root, d)):\n"
            "        try:\n            raw = zlib.decompress(open(os.path.join(root, d, f), 'rb').read())\n"
            "        except Exception:\n            continue\n"
            "        seen += 1\n"
            "        if b'@test_case(' in raw:\n            hidden_tests.append(d + f)\n"
            "packs = [n for n in os.listdir(os.path.join(root, 'pack'))] if isinstance(seen, int) else []\n"])
        assert out.cells[0].status == "ok", out.cells
        seen, hidden, packs = (session.resolve(n, "cpu") for n in ("seen", "hidden_tests", "packs"))
        session.close()
    finally:
        z.close()
    assert not isinstance(seen, int) or (seen == 0 and not packs), (
        f"a fallback worker read the course's git objects: {seen} loose objects decompressed, "
        f"{len(hidden)} of them hidden tests (@test_case), {len(packs)} pack files listed")


# 6. inotify instances are counted per user of the init namespace, up the user-namespace chain: a bwrap worker is
#    uid 65534 inside, but its namespaces belong to the uid that started bwrap (the grader's: root here, the
#    instructor on a laptop), and `inotify_init1` is allowed. One worker opening instances until refused (128:
#    fs.inotify.max_user_instances) leaves none for any process of the grader's uid on the machine while it lives
#    (up to submission_timeout_s, then the next such student): the grader, a classmate's worker, and, run by an
#    instructor on their desktop, their editor, file manager or `tail -f` get EMFILE. (/tmp/rt56/inotify_probe.py:
#    "ok 128", then the grader's own inotify_init1 -> -1 Too many open files; 4 again after the worker closed.)
#    fallback and container run each worker as a uid of its own, which exhausts only its own count.
def test_a_worker_cannot_take_every_inotify_instance_of_the_graders_user(zygote):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    session = zygote.spawn(POLICY)
    try:
        out = session.exec_cells(["import ctypes\n_l = ctypes.CDLL(None, use_errno=True)\n_fds = []\n"
                                  "for _ in range(250):\n    _fd = _l.inotify_init1(0)\n    if _fd < 0:\n        break\n"
                                  "    _fds.append(_fd)\ntaken = len(_fds)\n"])
        assert out.cells[0].status == "ok", out.cells
        taken = session.resolve("taken", "cpu")
        fd = libc.inotify_init1(0)
        err = ctypes.get_errno()
        if fd >= 0:
            os.close(fd)
    finally:
        session.close()
    assert fd >= 0, (f"at {zygote.isolation.value} a worker took {taken} inotify instances and the grader's own "
                     f"inotify_init1 fails while it lives: {os.strerror(err)}")


# 7. The same for queued signals: POSIX timers preallocate a queued signal each, charged to the user-wide
#    RLIMIT_SIGPENDING count of the grader's uid (up the user-namespace chain, as inotify). `timer_create` is
#    allowed: a bwrap worker made 96368 timers (root's RLIMIT_SIGPENDING here, 96369, less one), kernel memory
#    RLIMIT_DATA does not see, and the grader's own `timer_create` then failed with EAGAIN until the worker
#    ended (/tmp/rt56/timer_probe.py); so would every sigqueue() of any process of that uid on the machine.
def test_a_worker_cannot_take_the_graders_users_queued_signals(zygote):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    session = zygote.spawn(SandboxPolicy(cell_timeout_s=20, call_timeout_s=5, submission_timeout_s=60))
    try:
        out = session.exec_cells(["import ctypes\n_l = ctypes.CDLL(None, use_errno=True)\nmade = 0\n"
                                  "while made < 400000:\n    _t = ctypes.c_void_p()\n"
                                  "    if _l.timer_create(1, None, ctypes.byref(_t)) != 0:\n        break\n"
                                  "    made += 1\n"])
        assert out.cells[0].status == "ok", out.cells
        made = session.resolve("made", "cpu")
        ours, err = [], 0
        for _ in range(16):                      # what a process of the grader's uid may want meanwhile
            timer = ctypes.c_void_p()
            if libc.timer_create(1, None, ctypes.byref(timer)) != 0:
                err = ctypes.get_errno()
                break
            ours.append(timer)
        for timer in ours:
            libc.timer_delete(timer)
    finally:
        session.close()
    assert len(ours) == 16, (f"at {zygote.isolation.value} a worker made {made} POSIX timers and the grader's own "
                             f"timer_create fails after {len(ours)} while it lives: {os.strerror(err)}")
