"""Red-team round 117: one student's load on another's verdicts.

Hostile neighbours graded beside honest notebooks in one batch (`-j2`, `-j4` on a 2-core host), each within its own
limits: threads spinning NumPy and pure-Python loops through every cell, the vectorisation yardstick's neighbourhood
thrashed (arrays past L2), a grader process kept busy by a 440 KB cell of wrong answers (round 78's pad notebook: every
batch's grader processes share one autogroup). Repros and notes in /tmp/rt117/ (probe*.py print the vectorisation
ratios, the shrink searches and the one-edit search's clock per grade; cmp.py compares two batches' results).

Holding, compared with the same notebooks graded alone: full_marks's vectorisation ratios (1.3-2.2 against the
limit of 5 alone and beside two L2-thrashing processes, the test's verdict unchanged); no_scale's smallest failing
input (11 calls, 30 ms of the 2 s) word for word at -j2 beside a spinning notebook; a one-edit fix
(`num = x.exp() - m`, one_edit_fix named) at -j4 beside three spinning notebooks and beside two pad notebooks (the
search's clock is CPU time: 1.1 s of its 3 s, 4-6 s of its 12 s wall bound); forks are refused to a worker (seccomp),
and a worker's threads are one autogroup with it, so a thousand threads take one session's share of a CPU.

- **The submission's deadline was the one limit a neighbour's load could spend** (`limits.submission_timeout_s`, a
  wall clock). A cell's and a call's limits are extended by the worker's run-queue wait (round 68's rule), but never
  past the submission's deadline, which nothing extended. Measured with a course whose limit is 40 s
  (/tmp/rt117/course) and an honest notebook that runs four cells of its own experiment (25 million steps of
  integer arithmetic each, a fixed amount of work): alone (`batch -j1`) 35/35 in 32.9 s; graded at `-j4` beside three
  notebooks that each spin eight NumPy threads through three 10 s cells (each 35/35 itself, within its limits) it got
  0/35, "notebook errors: Cell In[25]: did not finish within 4.88 s", at 40.0 s. The deadline is now moved on, once
  reached, by the seconds the worker's threads and the grading thread spent runnable while other processes had the
  CPU (the kernel's run-queue clocks, as for a cell), by at most half the limit for the whole submission (carried
  over a worker's restart; a lane's task timeout is twice the limit). The same batch, fixed: 35/35.
  Tests: a starved cell past a 1 s submission limit finishes (the cap raised out of the way: the credit itself is
  what is measured), and a starved endless cell still stops by the limit plus its half plus a margin.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from autograder.results import Isolation
from autograder.sandbox import SandboxPolicy, Zygote, bwrap_works
from autograder.sandbox import session as session_module
from autograder.sandbox.isolation import run_queue_seconds_of

from tests.conftest import FIXTURE_COURSE

LIMIT = 1.0   # the whole submission's; a cell's own limit is far off, so only the submission's deadline can stop it
POLICY = SandboxPolicy(cell_timeout_s=30, call_timeout_s=30, submission_timeout_s=LIMIT)
CPU_BUSY = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}:\n    pass\ndone = True"

pytestmark = pytest.mark.skipif(run_queue_seconds_of(os.getpid()) is None,
                                reason="this kernel keeps no run-queue clock (/proc/<pid>/task/*/schedstat)")


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    level = Isolation.bwrap if bwrap_works() else Isolation.rlimits
    z = Zygote(level, hide=[str(FIXTURE_COURSE / "assignments"), str(FIXTURE_COURSE / "reference")])
    z.start()
    yield z
    z.close()


@pytest.fixture()
def one_cpu() -> Iterator[int]:
    """A CPU this test may pin to, with three busy processes spinning there (the neighbours), each in a session of
    its own (autogroup shares a CPU between sessions), each saying when it spins (test_starved_cells)."""
    cpu = max(os.sched_getaffinity(0))   # test_starved_cells pins to the first: run beside it, not on its CPU
    spin = f"import os, sys\nos.sched_setaffinity(0, {{{cpu}}})\nprint('spinning', flush=True)\nwhile True:\n    pass"
    hogs = [subprocess.Popen([sys.executable, "-c", spin], stdout=subprocess.PIPE, text=True, start_new_session=True)
            for _ in range(3)]
    for h in hogs:
        assert h.stdout is not None and h.stdout.readline().strip() == "spinning"
    try:
        yield cpu
    finally:
        for h in hogs:
            h.kill()
            h.wait()


def _starved_cell(zygote: Zygote, cpu: int, source: str):
    session = zygote.spawn(POLICY)
    try:
        for task in os.listdir(f"/proc/{session.pid}/task"):
            os.sched_setaffinity(int(task), {cpu})
        return session.exec_cells([source]).cells[0], getattr(session, "deadline_granted_s", 0.0)
    finally:
        session.close()


def test_a_starved_notebook_gets_the_time_its_neighbours_took(zygote: Zygote, one_cpu: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """0.3 s of the worker's own CPU, at most a quarter of a CPU: past the 1 s submission limit by the wall clock.
    Before round 117 the deadline cut it ("did not finish"); now the run-queue wait moves the deadline on. The cap is
    raised here so that a host loaded by others besides cannot make the test about the cap (the next test is)."""
    monkeypatch.setattr(session_module, "DEADLINE_WAIT_SHARE", 20.0, raising=False)
    report, granted = _starved_cell(zygote, one_cpu, CPU_BUSY.format(s=0.3))
    assert report.status == "ok", report
    assert report.duration_s > LIMIT, f"not starved ({report.duration_s} s): the test shows nothing"
    assert granted > 0, granted


def test_a_starved_endless_notebook_still_stops(zygote: Zygote, one_cpu: int) -> None:
    """What a notebook gains from waiting for a CPU is bounded: half the submission's limit, whatever it waited."""
    report, granted = _starved_cell(zygote, one_cpu, "while True:\n    pass")
    assert report.status == "timeout", report
    assert granted <= LIMIT * session_module.DEADLINE_WAIT_SHARE + 1e-9, granted
    assert report.duration_s <= LIMIT * (1 + session_module.DEADLINE_WAIT_SHARE) + 0.6, report
