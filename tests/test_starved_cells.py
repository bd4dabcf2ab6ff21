"""A cell's time limit counts the worker's own time: time it spent runnable while other processes had the CPU (a
loaded CI machine, a classmate's busy loop beside it in a batch) extends the wait, by at most the limit again
(session._await_reply, from the kernel's run-queue clock of the worker's threads). test_redteam_class saw an honest
victim's 0.3 s cell pass its 5 s limit on a loaded 2-core machine (2026-12-02 and 2026-12-04).

Starvation is made, not hoped for: the worker's threads and three busy processes are pinned to one CPU, so the
worker gets at most a quarter of it. The busy processes say when they spin: under `make test` a Python's start
took long enough that a cell of 0.25 s had 60% of the CPU and did not reach its limit (2026-12-04)."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from autograder.results import Isolation
from autograder.sandbox import SandboxPolicy, Zygote, bwrap_works
from autograder.sandbox.isolation import run_queue_seconds_of

from tests.conftest import FIXTURE_COURSE

LIMIT = 1.0
POLICY = SandboxPolicy(cell_timeout_s=LIMIT, call_timeout_s=LIMIT, submission_timeout_s=60)
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
    """A CPU this test may pin to, with three busy processes spinning there for the test's length."""
    cpu = min(os.sched_getaffinity(0))
    spin = f"import os, sys\nos.sched_setaffinity(0, {{{cpu}}})\nprint('spinning', flush=True)\nwhile True:\n    pass"
    # each in a session of its own: with autogroup scheduling, a CPU is shared between sessions (the worker has its
    # own), so hogs in one session would take half of it however many they are
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


def _pin(pid: int, cpu: int) -> None:
    for task in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(task), {cpu})


def _cell(zygote: Zygote, cpu: int, source: str):
    session = zygote.spawn(POLICY)
    try:
        _pin(session.pid, cpu)
        return session.exec_cells([source]).cells[0]
    finally:
        session.close()


def test_a_starved_cell_gets_the_time_others_took(zygote: Zygote, one_cpu: int) -> None:
    """0.3 s of the worker's own CPU on at most a quarter of a CPU: 1.2 s of wall clock or more, past the 1 s limit
    (and within twice it while the worker has a sixth or more)."""
    report = _cell(zygote, one_cpu, CPU_BUSY.format(s=0.3))
    assert report.status == "ok", report
    assert report.duration_s > LIMIT, f"not starved ({report.duration_s} s): the test shows nothing"


def test_a_cell_that_never_ends_stops_by_twice_its_limit(zygote: Zygote, one_cpu: int) -> None:
    report = _cell(zygote, one_cpu, "while True:\n    pass")
    assert report.status == "timeout" and f"within {LIMIT:g} s" in (report.error or "")
    assert report.duration_s <= 2 * LIMIT + 0.5, report


def test_a_sleeping_cell_is_not_waiting_for_a_cpu(zygote: Zygote, one_cpu: int) -> None:
    """Sleep is the cell's own time: it stops at its limit, starved neighbours or not."""
    report = _cell(zygote, one_cpu, "import time\ntime.sleep(30)")
    assert report.status == "timeout"
    assert report.duration_s < LIMIT + 0.4, report


def test_a_cell_alone_stops_at_its_limit(zygote: Zygote) -> None:
    session = zygote.spawn(POLICY)
    try:
        report = session.exec_cells(["while True:\n    pass"]).cells[0]
    finally:
        session.close()
    assert report.status == "timeout" and report.duration_s <= 2 * LIMIT + 0.5, report


def test_a_cell_that_starves_itself_gains_at_most_one_more_limit(zygote: Zygote) -> None:
    """A hostile cell makes its own run-queue wait: threads whose NumPy work releases the GIL, all on one CPU with
    the cell's endless loop. The wait it makes extends the limit (the cell runs past it) but never by more than the
    limit again (docs/security.md: what a student can gain)."""
    session = zygote.spawn(POLICY)
    try:
        _pin(session.pid, min(os.sched_getaffinity(0)))
        report = session.exec_cells([
            "import threading, numpy as np\n"
            "def churn():\n    a = np.ones((200, 200))\n    while True:\n        a @ a\n"
            "for _ in range(3):\n    threading.Thread(target=churn, daemon=True).start()\n"
            "while True:\n    pass"]).cells[0]
    finally:
        session.close()
    assert report.status == "timeout", report
    assert LIMIT + 0.3 < report.duration_s <= 2 * LIMIT + 0.5, report
