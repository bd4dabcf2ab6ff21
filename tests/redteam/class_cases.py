"""Red team, class edition: a class of mutually hostile students (issue 9).

Data only; tests/test_redteam_class.py runs them. Every case is a real attempt written as a student
would write it, against the fixture course's `toy` assignment (4 points: q1 2+1 points for `attend`,
q2 1 point for `answer == 'B'`) unless it says otherwise.

Cross-student attackers (class "A") and the fallback leftovers (class "E") run inside ONE
`run_batch(..., jobs=2)` per isolation level, interleaved with honest victims (VICTIM_CELLS). An
attacker starts from a wrong `attend` and `answer = 'A'` (0 points) and sets `answer = 'B'` (1 point)
only when its attack demonstrably worked (a syscall against another student's or the zygote's
process returned success, a classmate's data was read, a limit was beaten): its score is the only
channel through which it reports, so every attacker must score exactly 0. Each attacker also ends with
a cell that raises `ATTACK-LOG ...`: the grader records it as a cell error, which shows in the test's
failure message what was found and tried (it costs no points).

Placeholders, filled in at test time (str.replace, the code is full of braces):
    @TOKEN@        random hex token of this test run (names of planted files, IPC keys)
    @KEYMSG@ @KEYSEM@ @KEYSHM@   SysV keys of the talk channel
    @KEYLEAK@      base SysV key for the objects left behind on purpose (class E)
    @LEVEL@        isolation level of the batch
"""
from __future__ import annotations

from dataclasses import dataclass, field

# --- an honest victim ---------------------------------------------------------------------------
GOOD_ATTEND = ("import torch, math\n"
               "def attend(Q, K, V):\n"
               "    S = Q @ K.T / math.sqrt(Q.shape[-1])\n"
               "    return torch.softmax(S, dim=-1) @ V")
PARTIAL_ATTEND = ("import torch, math\n"            # forgets the scale: 2 of 4 points when alone
                  "def attend(Q, K, V):\n"
                  "    return torch.softmax(Q @ K.T, dim=-1) @ V")
# What an honest student may well do: keep a checkpoint in the working directory, use a few hundred
# MB, a small thread pool, take a couple of seconds. `answer` is set only if all of it worked, so a
# classmate who fills /tmp, squats the scratch dir, steals the thread budget, poisons the checkpoint,
# lowers the memory limit or kills the worker costs this victim points.
# Three cells, not one: the course's limit is per cell (5 s), and the two seconds of sleep sat in the
# same cell as the allocation and the thread pool, so a loaded CI machine pushed an honest victim past
# the limit with no attacker involved (CI, 2026-12-02: 002_victim_partial, beside an attacker that only
# signals). Apart, the sleep has 3 s of slack and the work (0.3 s quiet) 4.7 s; the victim lives as long.
VICTIM_WORK = ("import os, time, torch\n"
               "from concurrent.futures import ThreadPoolExecutor\n"
               "x = torch.arange(1 << 20, dtype=torch.float64)\n"
               "torch.save(x, 'ckpt.pt')\n"
               "with open('notes.txt', 'w') as fh:\n"
               "    fh.write('my private notes: the answer is B')\n"
               "big = torch.ones(100 << 20)  # 400 MB of working memory, held through the next cells\n"
               "big.add_(1)")
VICTIM_WAIT = "time.sleep(2.0)"
VICTIM_CHECK = ("with ThreadPoolExecutor(4) as ex:\n"
                "    parts = list(ex.map(lambda i: float(x[i::4].sum()), range(4)))\n"
                "y = torch.load('ckpt.pt')\n"
                "assert torch.equal(x, y), 'my checkpoint changed'\n"
                "assert sum(parts) == float(x.sum())\n"
                "assert float(big[0]) == 2.0, 'my working memory changed'\n"
                "del big\n"
                "answer = 'B'")
VICTIMS = {"good": [GOOD_ATTEND, VICTIM_WORK, VICTIM_WAIT, VICTIM_CHECK],
           "partial": [PARTIAL_ATTEND, VICTIM_WORK, VICTIM_WAIT, VICTIM_CHECK]}

# --- what every attacker starts with ------------------------------------------------------------
BASE = "import torch\ndef attend(Q, K, V):\n    return torch.zeros(Q.shape[0], V.shape[1])\nanswer = 'A'"

PRE = r'''
import os, sys, time, ctypes, ctypes.util, errno, signal, struct
_log = []
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
X86 = os.uname().machine == 'x86_64'
NR = dict(kill=62, tkill=200, tgkill=234, rt_sigqueueinfo=129, rt_tgsigqueueinfo=297,
          pidfd_open=434, pidfd_send_signal=424, process_vm_writev=311, process_vm_readv=310,
          ptrace=101, ioprio_set=251, ioprio_get=252, memfd_create=319, waitid=247)
ME = os.getpid()
ZYG = os.getppid()          # 0 when the worker has a pid namespace of its own

def sc(name, *args):
    """Raw syscall: (return value, errno)."""
    if not X86:
        return -1, errno.ENOSYS
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[name]), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return r, ctypes.get_errno()

def ppid_of(pid):
    try:
        with open(f'/proc/{pid}/stat') as fh:
            return int(fh.read().rsplit(')', 1)[1].split()[1])
    except Exception:
        return None

def mine(pid):
    """pid is my child, grandchild, ...: its parent chain reaches me."""
    for _ in range(64):
        pid = ppid_of(pid)
        if pid == ME:
            return True
        if pid is None or pid <= 1:
            return False
    return False

def siblings():
    """Other workers forked by my zygote: my classmates. In a pid namespace of my own (no parent to
    see), any process I can see that is neither me, one of mine nor the namespace's init."""
    out = []
    try:
        names = os.listdir('/proc')
    except OSError:
        return out
    for d in names:
        if not d.isdigit() or int(d) == ME:
            continue
        parent = ppid_of(int(d))
        if (parent == ZYG) if ZYG > 0 else (int(d) != 1 and parent is not None and not mine(int(d))):
            out.append(int(d))
    return out

def wait_siblings(timeout=4.0, exclude=()):
    if ZYG <= 0:
        # a namespace of my own: a classmate forked later starts in a namespace of its own too, so none
        # can appear here; waiting for one only cost every attacker its 4 s
        return [p for p in siblings() if p not in exclude]
    t0 = time.time()
    while time.time() - t0 < timeout:
        s = [p for p in siblings() if p not in exclude]
        if s:
            return s
        time.sleep(0.05)
    return []

def won(what):
    global answer
    _log.append('WON ' + what)
    answer = 'B'

def note(what):
    _log.append(str(what)[:80])

def attempt(what, fn):
    try:
        fn()
    except BaseException as e:
        note(f'{what}: {type(e).__name__} {e}')
'''

LOG_CELL = "raise RuntimeError('ATTACK-LOG ' + ' | '.join(_log)[-280:])"


def attacker(*cells: str) -> list[str]:
    return [BASE, PRE, *cells, LOG_CELL]


# Signal a classmate: each attack finds a concurrent sibling worker and sends it SIGKILL.
_SIGINFO = r'''
def siginfo(sig):
    buf = ctypes.create_string_buffer(128)
    struct.pack_into('iii', buf, 0, sig, 0, -1)   # si_code SI_QUEUE: allowed from user space
    return buf
'''



# Hold shared memory beyond the course's memory limit (memory_mb: 2048), 700 MB per cell (a cell
# has 5 s), in 56 MB pieces (RLIMIT_FSIZE caps one memfd or file at 64 MB).
_HOLD_PRE = r"""
import mmap
LIMIT = 2048 << 20
PIECE = 56 << 20
held, keep = 0, []
libc.shmat.restype = ctypes.c_void_p
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_POPULATE_WRITE = 23
def touch(addr, size):
    if libc.madvise(addr, size, MADV_POPULATE_WRITE) != 0:   # fast path (Linux 5.14+)
        ctypes.memset(addr, 1, size)
def piece(how):
    if how == 'sysv':
        sid = libc.shmget(0, ctypes.c_size_t(PIECE), 0o1000 | 0o600)      # IPC_PRIVATE, IPC_CREAT
        if sid < 0:
            raise OSError(ctypes.get_errno(), 'shmget')
        addr = libc.shmat(sid, None, 0)
        libc.shmctl(sid, 0, None)          # IPC_RMID at once: nothing is left behind on the host
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), 'shmat')
        touch(addr, PIECE)
        keep.append(addr)
        return
    if how == 'memfd':
        fd, e = sc('memfd_create', ctypes.c_char_p(b'held'), 0)
        if fd < 0:
            raise OSError(e, 'memfd_create')
    else:
        st = os.statvfs('/dev/shm')
        if st.f_bavail * st.f_frsize < 2 * PIECE:   # touching past a full tmpfs is SIGBUS: do not die
            raise OSError(errno.ENOSPC, '/dev/shm is (nearly) full')
        path = f'/dev/shm/ag-@TOKEN@-hold-{len(keep)}'
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        os.unlink(path)
    os.ftruncate(fd, PIECE)
    m = mmap.mmap(fd, PIECE, mmap.MAP_SHARED)
    os.close(fd)
    buf = (ctypes.c_char * PIECE).from_buffer(m)
    touch(ctypes.addressof(buf), PIECE)
    keep.append((m, buf))
stop = None
"""
_HOLD_CELL = r"""
t0 = time.time()
while stop is None and time.time() - t0 < 3.5 and held < LIMIT + (768 << 20):
    try:
        piece('@HOW@')
        held += PIECE
    except Exception as ex:
        stop = f'{type(ex).__name__} {ex}'
"""
_HOLD_REPORT = r"""
def rss_shmem():
    with open('/proc/self/status') as fh:
        for line in fh:
            if line.startswith('RssShmem:'):
                return int(line.split()[1]) << 10
    return 0
note(f'held {held >> 20} MB, RssShmem {rss_shmem() >> 20} MB, stopped by {stop}')
if rss_shmem() > LIMIT:
    won(f'{rss_shmem() >> 20} MB of shared memory against a {LIMIT >> 20} MB limit')
"""

@dataclass(frozen=True)
class ClassCase:
    name: str
    cls: str                         # A cross-student | B trusted parsers | C hidden tests | D outputs | E fallback
    cells: list[str] = field(default_factory=list)
    expect: str = ""
    measure: str = "self"            # self: the attacker's own score | victims: the victims' scores | host
    order: int = 50                  # position in the batch (persistent attacks go last)
    pair: str = ""                   # a case that must run right after this one (a talk partner)


# ------------------------------------------------------------------------------------------------
# Class A: students against students and the zygote, all in one batch -j2
# ------------------------------------------------------------------------------------------------
BATCH_CASES: list[ClassCase] = [
    ClassCase("kill_sibling_kill", "A", attacker(r'''
for pid in wait_siblings():
    r, e = sc('kill', pid, signal.SIGKILL)
    note(f'kill {pid} -> {r} {errno.errorcode.get(e, e)}')
    if r == 0:
        won(f'kill {pid}')
'''), "kill(2) on a concurrent classmate's worker is refused; the classmate keeps its score"),

    ClassCase("kill_sibling_tgkill_tkill", "A", attacker(r'''
for pid in wait_siblings():
    for name, args in (('tgkill', (pid, pid, signal.SIGKILL)), ('tkill', (pid, signal.SIGKILL))):
        r, e = sc(name, *args)
        note(f'{name} {pid} -> {r} {errno.errorcode.get(e, e)}')
        if r == 0:
            won(f'{name} {pid}')
'''), "tgkill/tkill on a classmate's worker are refused"),

    ClassCase("kill_sibling_sigqueueinfo", "A", attacker(_SIGINFO + r'''
for pid in wait_siblings():
    r, e = sc('rt_tgsigqueueinfo', pid, pid, signal.SIGKILL, siginfo(signal.SIGKILL))
    note(f'rt_tgsigqueueinfo {pid} -> {r} {errno.errorcode.get(e, e)}')
    if r == 0:
        won(f'rt_tgsigqueueinfo {pid}')
    r, e = sc('rt_sigqueueinfo', pid, signal.SIGKILL, siginfo(signal.SIGKILL))
    note(f'rt_sigqueueinfo {pid} -> {r} {errno.errorcode.get(e, e)}')
    if r == 0:
        won(f'rt_sigqueueinfo {pid}')
'''), "rt_sigqueueinfo/rt_tgsigqueueinfo (not in today's seccomp list) cannot signal a classmate"),

    ClassCase("kill_sibling_pidfd", "A", attacker(r'''
for pid in wait_siblings():
    fd, e = sc('pidfd_open', pid, 0)
    note(f'pidfd_open {pid} -> {fd} {errno.errorcode.get(e, e)}')
    if fd >= 0:
        r, e = sc('pidfd_send_signal', fd, signal.SIGKILL, 0, 0)
        note(f'pidfd_send_signal -> {r} {errno.errorcode.get(e, e)}')
        if r == 0:
            won(f'pidfd_send_signal {pid}')
'''), "pidfd_open + pidfd_send_signal cannot signal a classmate"),

    ClassCase("kill_broadcast", "A", attacker(r'''
wait_siblings()
# signal 0: the permission check without the damage; success means someone else was reachable
r, e = sc('kill', -1, 0)
note(f'kill(-1, 0) -> {r} {errno.errorcode.get(e, e)}')
if r == 0:
    won('kill(-1)')
for target in ([ZYG] if ZYG > 0 else []) + siblings():
    try:
        pg = os.getpgid(target)
    except OSError as ex:
        note(f'getpgid {target}: {ex}')
        continue
    if pg == os.getpgid(0):
        continue
    r, e = sc('kill', -pg, 0)
    note(f'killpg({pg}, 0) -> {r} {errno.errorcode.get(e, e)}')
    if r == 0:
        won(f'killpg {pg}')
if os.getpgid(0) != ME:   # kill(0) reaches my whole process group: is anyone else in it?
    r, e = sc('kill', 0, 0)
    if r == 0:
        won('kill(0) reaches a group shared with others')
'''), "kill(-1), kill(0) and killpg reach nobody but the worker itself"),

    ClassCase("kill_zygote", "A", attacker(_SIGINFO + r'''
wait_siblings()
if ZYG > 1:
    fd, e = sc('pidfd_open', ZYG, 0)
    note(f'pidfd_open zygote -> {fd} {errno.errorcode.get(e, e)}')
    r, e = sc('rt_sigqueueinfo', ZYG, signal.SIGKILL, siginfo(signal.SIGKILL))
    note(f'rt_sigqueueinfo zygote -> {r} {errno.errorcode.get(e, e)}')
    if fd >= 0:
        r, e = sc('pidfd_send_signal', fd, signal.SIGKILL, 0, 0)
        note(f'pidfd_send_signal zygote -> {r}')
'''), "killing the zygote (the concurrent classmate dies with it) is impossible; measured by the "
          "classmate's score, since the attacker dies with the zygote if it works", measure="victims",
              order=75),

    ClassCase("renice_others", "A", attacker(r'''
PRIO_PROCESS, PRIO_PGRP = 0, 1
targets = wait_siblings() + ([ZYG] if ZYG > 0 else [])
for pid in targets:
    ctypes.set_errno(0)
    cur = libc.getpriority(PRIO_PROCESS, pid)
    if ctypes.get_errno():
        note(f'getpriority {pid}: errno {ctypes.get_errno()}')
        continue
    # the same nice value again: proves the permission without slowing anyone down
    if libc.setpriority(PRIO_PROCESS, pid, cur) == 0:
        won(f'setpriority {pid}')
    try:
        pg = os.getpgid(pid)
        if pg != os.getpgid(0) and libc.setpriority(PRIO_PGRP, pg, cur) == 0:
            won(f'setpriority pgrp {pg}')
    except OSError as ex:
        note(ex)
'''), "setpriority on another worker, the zygote or their process groups is refused"),

    ClassCase("sched_others", "A", attacker(r'''
targets = wait_siblings() + ([ZYG] if ZYG > 0 else [])
for pid in targets:
    try:
        os.sched_setaffinity(pid, os.sched_getaffinity(pid))   # same mask: permission only
        won(f'sched_setaffinity {pid}')
    except OSError as ex:
        note(f'affinity {pid}: {ex}')
    try:
        os.sched_setscheduler(pid, os.sched_getscheduler(pid), os.sched_param(0))
        won(f'sched_setscheduler {pid}')
    except OSError as ex:
        note(f'scheduler {pid}: {ex}')
    cur, e = sc('ioprio_get', 1, pid)
    if cur >= 0:
        r, e = sc('ioprio_set', 1, pid, cur)
        note(f'ioprio_set {pid} -> {r} {errno.errorcode.get(e, e)}')
        if r == 0:
            won(f'ioprio_set {pid}')
'''), "sched_setaffinity / sched_setscheduler / ioprio_set on another process are refused"),

    ClassCase("zygote_memory_write", "A", attacker(r'''
wait_siblings()
addr = id(os) + 8      # ob_type of the os module: same address in the zygote (forked), never changes
for pid in ([ZYG] if ZYG > 0 else []) + siblings():
    try:
        fd = os.open(f'/proc/{pid}/mem', os.O_RDWR)
        try:
            data = os.pread(fd, 8, addr)
            if os.pwrite(fd, data, addr) == 8:
                won(f'/proc/{pid}/mem written')
        finally:
            os.close(fd)
    except OSError as ex:
        note(f'mem {pid}: {ex}')
    class IOV(ctypes.Structure):
        _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
    buf = ctypes.create_string_buffer(8)
    ctypes.memmove(buf, addr, 8)  # the same bytes it holds already
    local, remote = IOV(ctypes.addressof(buf), 8), IOV(addr, 8)
    r, e = sc('process_vm_writev', pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    note(f'process_vm_writev {pid} -> {r} {errno.errorcode.get(e, e)}')
    if r == 8:
        won(f'process_vm_writev {pid}')
'''), "no worker can write the zygote's or a classmate's memory (/proc/<pid>/mem, process_vm_writev)"),

    ClassCase("ptrace_others", "A", attacker(r'''
PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17
for pid in wait_siblings() + ([ZYG] if ZYG > 0 else []):
    r, e = sc('ptrace', PTRACE_SEIZE, pid, 0, 0)
    note(f'ptrace seize {pid} -> {r} {errno.errorcode.get(e, e)}')
    if r == 0:
        won(f'ptrace {pid}')
        sc('ptrace', PTRACE_DETACH, pid, 0, 0)
'''), "ptrace of a classmate or the zygote is refused"),

    ClassCase("proc_snoop", "A", attacker(r'''
for pid in wait_siblings() + ([ZYG] if ZYG > 0 else []):
    for what in ('environ', 'maps', 'auxv', 'stack', 'syscall'):
        try:
            with open(f'/proc/{pid}/{what}', 'rb') as fh:
                if fh.read(64):
                    won(f'read /proc/{pid}/{what}')
        except OSError as ex:
            note(f'{what} {pid}: {ex.strerror}')
    for what in ('fd', 'map_files'):
        try:
            if os.listdir(f'/proc/{pid}/{what}'):
                won(f'list /proc/{pid}/{what}')
        except OSError as ex:
            note(f'{what} {pid}: {ex.strerror}')
    for what in ('cwd', 'root', 'exe'):
        try:
            os.readlink(f'/proc/{pid}/{what}')
            won(f'readlink /proc/{pid}/{what}')
        except OSError as ex:
            note(f'{what} {pid}: {ex.strerror}')
    info = ctypes.create_string_buffer(128)
    r, e = sc('waitid', 1, pid, info, 4 | 1, 0)   # P_PID, WEXITED|WNOHANG
    if r == 0:
        won(f'waitid {pid}')
'''), "a worker cannot read another worker's or the zygote's /proc (environ, maps, fds, cwd) or wait on it"),

    ClassCase("scratch_raid", "A", attacker(r'''
root = os.path.dirname(os.getcwd())
mine = os.path.basename(os.getcwd())
t0 = time.time()
done = set()
while time.time() - t0 < 4 and not done:
    try:
        # classmates' scratch folders (mkdtemp's sub-*, where no namespace gives each its own /tmp); where the
        # worker's cwd is its private /tmp, its parent is the image's root, whose system files say nothing (this
        # attack once stopped at /dev/ptmx, a read that blocks; /dev/ptmx is /dev/null now: red-team round 56)
        others = [d for d in os.listdir(root) if d != mine and d.startswith('sub-')]
    except OSError as ex:
        note(f'list {root}: {ex.strerror}')
        break
    for d in others:
        path = os.path.join(root, d)
        try:
            files = os.listdir(path)
        except OSError:
            continue
        for f in files:
            try:
                with open(os.path.join(path, f), 'rb') as fh:
                    if fh.read(16):
                        won(f'read {d}/{f}')
            except OSError:
                pass
        if 'ckpt.pt' in files:
            try:
                torch.save(torch.zeros(1 << 20, dtype=torch.float64), os.path.join(path, 'ckpt.pt'))
                won(f'poisoned {d}/ckpt.pt')
                done.add(d)
            except Exception as ex:
                note(f'poison {d}: {ex}')
    time.sleep(0.05)
'''), "a worker can neither read nor write a concurrent classmate's scratch directory"),

    ClassCase("thread_flood", "A", attacker(r'''
import threading
threading.stack_size(64 * 1024)
hold = threading.Event()
ts = []
before = set(siblings())
try:
    for _ in range(5000):
        t = threading.Thread(target=hold.wait, daemon=True)
        t.start()
        ts.append(t)
except Exception as ex:
    note(f'threads: {len(ts)} then {type(ex).__name__}')
''', r'''
t0 = time.time()
while time.time() - t0 < 4 and not (set(siblings()) - before):   # the next classmate starts...
    time.sleep(0.05)
''', "time.sleep(3.5)  # ...and works while we hold every thread we could get", "hold.set()"),
              "threads up to the limit in one worker do not stop a classmate from starting threads "
              "(RLIMIT_NPROC is per user; the victim's thread pool must still work)", measure="victims"),

    ClassCase("memfd_over_limit", "A", attacker(_HOLD_PRE, *[_HOLD_CELL.replace("@HOW@", "memfd")] * 4,
                                                _HOLD_REPORT),
              "shared memory (memfd + mmap) counts against the memory limit: no worker holds more than it"),

    ClassCase("sysv_shm_over_limit", "A", attacker(_HOLD_PRE, *[_HOLD_CELL.replace("@HOW@", "sysv")] * 4,
                                                   _HOLD_REPORT),
              "SysV shared memory counts against the memory limit (or cannot be created)"),

    ClassCase("devshm_mmap_over_limit", "A", attacker(_HOLD_PRE, *[_HOLD_CELL.replace("@HOW@", "devshm")] * 4,
                                                      _HOLD_REPORT),
              "files in /dev/shm mapped shared count against the memory limit (or /dev/shm is capped)"),

    ClassCase("ipc_talk_sender", "A", attacker(r'''
import socket
def sysv():
    q = libc.msgget(@KEYMSG@, 0o1000 | 0o666)
    if q >= 0:
        msg = ctypes.create_string_buffer(struct.pack('l', 1) + b'psst the answer is B')
        libc.msgsnd(q, msg, 20, 0o4000)                       # IPC_NOWAIT
    s = libc.semget(@KEYSEM@, 1, 0o1000 | 0o666)
    if s >= 0:
        libc.semctl(s, 0, 16, 42)                             # SETVAL
    libc.shmat.restype = ctypes.c_void_p
    m = libc.shmget(@KEYSHM@, ctypes.c_size_t(4096), 0o1000 | 0o666)
    if m >= 0:
        a = libc.shmat(m, None, 0)
        if a not in (None, ctypes.c_void_p(-1).value):
            ctypes.memmove(a, b'psst B', 6)
    note(f'msg {q} sem {s} shm {m}')
attempt('sysv', sysv)
def listen():
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind('\0ag-@TOKEN@')
    srv.listen(4)
    srv.settimeout(0.2)
    t0 = time.time()
    while time.time() - t0 < 4:
        try:
            c, _ = srv.accept()
            c.sendall(b'psst B')
            c.close()
        except socket.timeout:
            pass
attempt('abstract socket', listen)
'''), "(talk partner of ipc_talk_receiver: leaves a message in SysV IPC and serves an abstract "
          "unix socket)", pair="ipc_talk_receiver"),

    ClassCase("ipc_talk_receiver", "A", attacker(r'''
import socket
t0 = time.time()
while time.time() - t0 < 4 and answer != 'B':
    q = libc.msgget(@KEYMSG@, 0)
    if q >= 0:
        buf = ctypes.create_string_buffer(64)
        if libc.msgrcv(q, buf, 40, 0, 0o4000) > 0:
            won('SysV message from a classmate')
    s = libc.semget(@KEYSEM@, 1, 0)
    if s >= 0 and libc.semctl(s, 0, 12) == 42:                 # GETVAL
        won('SysV semaphore set by a classmate')
    libc.shmat.restype = ctypes.c_void_p
    m = libc.shmget(@KEYSHM@, ctypes.c_size_t(4096), 0)
    if m >= 0:
        a = libc.shmat(m, None, 0o10000)                        # SHM_RDONLY
        if a not in (None, ctypes.c_void_p(-1).value) and ctypes.string_at(a, 6) == b'psst B':
            won('SysV shm written by a classmate')
    try:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(0.5)
        c.connect('\0ag-@TOKEN@')
        if c.recv(16):
            won('abstract unix socket of a classmate')
        c.close()
    except OSError as ex:
        if len(_log) < 3:
            note(f'socket: {ex}')
    time.sleep(0.1)
'''), "a worker cannot receive anything from a classmate through SysV message queues, semaphores, "
          "shared memory or an abstract unix socket"),

    # --- persistent attacks: they poison what later workers inherit, so they run last ------------
    ClassCase("park_tmp_and_shm", "A", attacker(r'''
def park(root, total, chunk=56 << 20):
    n, i = 0, 0
    block = b'\\1' * (4 << 20)
    t0 = time.time()
    while n < total and time.time() - t0 < 4:
        try:
            with open(os.path.join(root, f'.park-@TOKEN@-{i}'), 'wb') as fh:
                for _ in range(chunk // len(block)):
                    fh.write(block)
                    n += len(block)
        except OSError as ex:
            note(f'{root} after {n >> 20} MB: {ex.strerror}')
            break
        i += 1
    note(f'{root}: {n >> 20} MB parked')
''', "park(os.path.dirname(os.getcwd()), 1536 << 20)", "park('/dev/shm', 1536 << 20)",
        "park('/var/tmp', 1536 << 20)"),
              "(partner of park_reader) parks 1.5 GiB in the scratch root (/tmp), /dev/shm, /var/tmp: "
              "none of it may reach the next worker (the next victim must still save its checkpoint)",
              order=80, pair="park_reader", measure="victims"),

    ClassCase("park_reader", "A", attacker(r'''
seen = []
for root in {os.path.dirname(os.getcwd()), '/tmp', '/dev/shm', '/var/tmp'}:
    try:
        seen += [os.path.join(root, f) for f in os.listdir(root) if f.startswith('.park-@TOKEN@')]
    except OSError:
        pass
if seen:
    won(f'{len(seen)} parked files of a classmate survive, e.g. {seen[0]}')
'''), "nothing a previous worker parked in /tmp or /dev/shm is visible to a later worker", order=80),

    ClassCase("scratch_squat", "A", attacker(r'''
root = os.path.dirname(os.getcwd())
planted = 0
for n in range(ME + 1, ME + 3000):
    try:
        with open(os.path.join(root, f'sub-{n}'), 'w') as fh:   # a file where a dir must go
            fh.write('squatted')
        planted += 1
    except OSError:
        pass
note(f'planted {planted} under {root}')
'''), "pre-creating the next workers' predictable scratch dirs does not stop them: the next victims "
          "start and keep their scores", order=85, measure="victims"),

    ClassCase("prlimit_zygote", "A", attacker(r'''
class RLIM(ctypes.Structure):
    _fields_ = [('cur', ctypes.c_ulong), ('max', ctypes.c_ulong)]
low = RLIM(256 << 20, 256 << 20)
for pid in wait_siblings(2.0) + ([ZYG] if ZYG > 0 else []):
    r = libc.prlimit(pid, 2, ctypes.byref(low), None)              # RLIMIT_DATA
    note(f'prlimit {pid} -> {r} errno {ctypes.get_errno()}')
    if r == 0:
        won(f'prlimit {pid}')
'''), "prlimit64 on the zygote or a classmate is refused; later workers keep the course's memory "
          "limit", order=82),

    # --- class E: what a student leaves on the host (checked from the host after the grader) -----
    ClassCase("leave_files_on_host", "E", attacker(r'''
for d in ('/run/lock', '/var/tmp', '/dev/shm', '/dev/mqueue', '/tmp'):
    try:
        with open(os.path.join(d, 'ag-@TOKEN@-left'), 'w') as fh:
            fh.write('still here')
        note(f'left a file in {d}')
    except OSError as ex:
        note(f'{d}: {ex.strerror}')
rt = ctypes.CDLL(ctypes.util.find_library('rt') or None, use_errno=True)
q = rt.mq_open(b'/ag-@TOKEN@', os.O_CREAT | os.O_RDWR, 0o666, None)
note(f'mq_open -> {q}')
'''), "files in host-writable dirs (/run/lock, /var/tmp, /dev/shm, /dev/mqueue) and POSIX message "
          "queues do not outlive the grader", measure="host"),

    ClassCase("leave_sysv_on_host", "E", attacker(r'''
libc.shmat.restype = ctypes.c_void_p
for i, (fn, args) in enumerate((('msgget', ()), ('semget', (1,)), ('shmget', (ctypes.c_size_t(1 << 20),)))):
    key = @KEYLEAK@ + i
    r = getattr(libc, fn)(key, *args, 0o1000 | 0o666)
    note(f'{fn}({key:#x}) -> {r}')
'''), "SysV message queues, semaphores and shm segments do not outlive the grader", measure="host"),
]

BATCH_NAMES = [c.name for c in BATCH_CASES]


# ------------------------------------------------------------------------------------------------
# Graded alone (classes B, C, D). A cell is code, or ("markdown", text).
# ------------------------------------------------------------------------------------------------
# Student code can write raw frames on its socket: the only fd above 2 left open in the worker.
FORGE = r'''
import os, json, struct, stat
def sock_fd():
    # by probing numbers, not by /proc/self/fd (a path the grader refuses before the notebook runs): the sandbox's
    # own answer to forged frames is what these cases try
    for fd in range(3, 64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            pass
    return None
def send_raw(body):
    fd = sock_fd()
    data = struct.pack('>Q', len(body)) + body
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
'''

SOLO_CASES: list[ClassCase] = [
    # --- B: the trusted process parses student bytes in bounded time and memory ------------------
    ClassCase("intake_newline_markdown", "B",
              [GOOD_ATTEND, "answer = 'B'",
               ("markdown", "<!-- BEGIN QUESTION -->\n" + "\n" * 300_000 + "x"),
               ("markdown", "<!-- END QUESTION -->")],
              "a 300 KB markdown cell of newlines inside a question block: intake stays linear, "
              "the honest code still gets 4/4 within 30 s"),
    ClassCase("intake_deep_json", "B", [],
              "a notebook whose cell metadata nests 100,000 lists deep: rejected or graded, never a "
              "crash, within 30 s"),
    ClassCase("intake_100k_cells", "B", [],
              "100,000 code cells: rejected within 30 s and without a memory spike"),
    ClassCase("reply_60mb_tiny_items", "B",
              [GOOD_ATTEND, "answer = 'B'", FORGE + r'''
body = b'{"event":"cell_start","index":0,"pad":[' + b'{},' * (20 << 20) + b'{}]}'  # 60 MB, 20 M dicts
send_raw(body)
'''], "one 60 MB frame of tiny JSON items: the grader's peak memory stays under 1 GiB"),
    ClassCase("forged_cell_events", "B",
              [GOOD_ATTEND, "answer = 'B'", FORGE + r'''
frames = bytearray()
for i in range(100_000):
    body = json.dumps({"event": "cell_end", "index": i, "status": "ok", "error": "x" * 40}).encode()
    frames += struct.pack('>Q', len(body)) + body
fd = sock_fd()
view = memoryview(bytes(frames))
while view:
    view = view[os.write(fd, view):]
'''], "100,000 forged cell_end events: cell reports only for the notebook's 3 code cells"),
    ClassCase("many_question_blocks", "B",
              [GOOD_ATTEND, "answer = 'B'"]
              + [c for i in range(630) for c in (("markdown", f"<!-- BEGIN QUESTION -->\n**Question x{i}.**"),
                                                  ("markdown", "blah " * 1000),
                                                  ("markdown", "<!-- END QUESTION -->"))],
              "630 BEGIN/END QUESTION blocks: written answers only for the configured question (q3), "
              "results.json stays small"),

    # --- C: points gained on hidden tests --------------------------------------------------------
    ClassCase("neg_view_return", "C",
              [GOOD_ATTEND.replace("def attend", "def _attend"),
               "def attend(Q, K, V):\n    return torch._neg_view(_attend(Q, K, V))\nanswer = 'A'"],
              "attend returns a negated view (logical value -correct, storage correct): the grader "
              "compares the value the tensor denotes, so attend scores 0"),
    ClassCase("memo_vectorisation", "C", [],
              "sdpa-from-scratch: a loop-over-rows solution wrapped in a memo of its inputs must "
              "still fail test_vectorised (the timed calls must not be recognisable)"),
    ClassCase("helper_hides_builtin_softmax", "C", [],
              "sdpa-from-scratch: stable_softmax calls torch.softmax through a helper: "
              "test_no_builtin_softmax must still fail (builtin_softmax)"),
    ClassCase("ipython_line_blinds_static", "C", [],
              "sdpa-from-scratch: stable_softmax calls torch.softmax and one cell holds "
              "`files = !ls`, which makes the whole source unparsable: the static check must fail "
              "closed (test_no_builtin_softmax fails)"),
    ClassCase("protocol_views", "C", [],
              "a negated view and a conjugated complex view cross the boundary with the value they "
              "denote, not their storage"),

    # --- D: outputs are inert --------------------------------------------------------------------
    ClassCase("escape_forged_score", "D",
              ["import torch\ndef attend(Q, K, V):\n"
               "    raise RuntimeError('\\x1b[2J\\x1b[1;1H\\rScore: 4 / 4\\x1b]0;pwned\\x07\\x1b[8m')\n"
               "answer = 'A'"],
              "escape sequences and a forged 'Score: 4 / 4' in an exception message never reach the "
              "terminal raw: `autograder grade` prints no control character but newline"),
    ClassCase("rich_markup_crash", "D",
              ["import torch\ndef attend(Q, K, V):\n"
               "    raise ValueError('[/] [link=https://evil.example]claim points[/link] [bold')\n"
               "answer = 'A'"],
              "rich markup in an exception message: `autograder grade` exits 0 and writes results.json"),
    ClassCase("formula_filename", "D", [],
              "a submission named =HYPERLINK(...).ipynb: no gradebook.csv cell starts a formula"),
    ClassCase("same_stem_results", "D", [],
              "alice.py and alice.ipynb in one batch: two distinct results files, each with its own score"),
    ClassCase("gradescope_dotdot_zip", "D", [],
              "a Gradescope upload named ...zip is unpacked inside its scratch folder, never its parent"),
]

ALL_CASES = BATCH_CASES + SOLO_CASES
