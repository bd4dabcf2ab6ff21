"""Red-team round 78: the whole run's budget.

`limits.submission_timeout_s` (300 s; grading.yml: "everything for one submission", config: "wall-clock limit for
one whole submission") was a deadline of the worker's session only: it bounded the calls into the student's code
and the cells, not what the trusted process does with the notebook. Repros in /tmp/rt78/ (measure.py grades one
notebook in-process and prints the wall time, the grader's own CPU and each test's time).

- **Hidden tests' checks ran past the submission's deadline.** Each test's own work in the grader is bounded by
  `check_cpu_s` (30 s), per test, with no bound on the sum: once the worker's time was spent, every later test still
  read the notebook's source and named its mistakes (parses of a 440 KB cell: 2-6 s a test), and the one-edit
  search ran after them. Measured: full_marks + one cell of 11,000 wrong answer assignments (`pad_sdpa.ipynb`),
  `submission_timeout_s: 8`: the grade took 20.8 s (5.5 s of the grader's CPU after the worker's deadline); at 300 s
  the same sum is up to 30 s times the number of tests (35-78), so Gradescope's limit or a batch lane's task timeout
  (720 s, then `worker_failed`, graded again by every rerun) is reached with no results.json.
  Now a test that would start more than `runner.SPENT_GRACE_S` (1 s) past the deadline is not started: it fails,
  named ("grading this submission did not finish within N s"), like a call into the worker past it; a test started
  before it stops at the deadline plus that grace (the clock looked at every 0.25 s of its CPU; then the same
  words, not "an answer far longer"); the one-edit search is skipped past the deadline. 12.6 s, the zygote's start
  included, for the 8 s limit; the scaled-attention notebook below under a 40 s limit: 70.7 s before, 41.8 s now.
- **The notebook's static reading was outside the deadline.** Reading the file and the rules run before any worker
  (`cells_too_deep`, `reaches_into_grader`) took 4.4 s for the same 440 KB of code, and the worker's clock started
  after them. The worker's deadline now starts when the notebook is read (the zygote's start and a CUDA slot's wait,
  the grader's, are not charged).
- **scaled-attention q5-q7 read the answer's bindings in quadratic time.** `_diagnose.answer_bindings` quoted each
  binding of the answer with `ast.get_source_segment`, which splits the whole cell again per call: full_marks plus
  one 440 KB cell binding q5_answer..q7_answer 15,000 times each (`pad_scaled-attention.ipynb`) made each of the
  three tests spend `check_cpu_s` (failed "over 30 s of CPU"): 78.6 s of the grader's CPU, 179.6 s for one grade.
  The cell is split once (`_source_lines`, `_segment`: the same text): 5.2 s of CPU, 11.1 s, and the three tests name
  the mistake ("q5_answer is 21, a number, not a letter").

Tried and holding: every graded function sleeping just under `call_timeout_s` (the session's deadline cuts the
calls: 25.6 s for a 20 s limit, the tests past it failed and named); cells under `cell_timeout_s` each (capped by the
same deadline); restarts (none with under 5 s left).
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from autograder.grading.hidden import HiddenTestCase
from autograder.grading.runner import run_tests
from tests.conftest import ROOT

SDPA = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb"
SPENT = "grading this submission did not finish"


class _LateNamespace:
    """A submission's namespace whose worker session's deadline is `left` seconds away (negative: past)."""

    def __init__(self, left: float) -> None:
        self.session = SimpleNamespace(deadline=time.monotonic() + left)
        self.policy = SimpleNamespace(submission_timeout_s=300.0)

    def resolve(self, name: str, device: str) -> object:
        return 1

    def alive(self) -> bool:
        return True


def test_no_check_starts_past_the_submissions_deadline() -> None:
    ran: list[str] = []
    tests = [HiddenTestCase("q1", "test_value", 1.0, True, lambda answer: ran.append("value"), params=("answer",)),
             HiddenTestCase("q2", "test_source", 1.0, True, lambda: ran.append("source"))]
    reports = run_tests(tests, _LateNamespace(-10.0), seed=0, check_cpu_s=30.0)
    assert ran == [], "a hidden test's checks ran in the grader after the submission's time was spent"
    assert [r.status for r in reports] == ["failed", "failed"]
    assert all(SPENT in r.message and "300 s" in r.message for r in reports), [r.message for r in reports]


def test_a_check_near_the_deadline_stops_at_it() -> None:
    def busy(answer: object) -> None:   # a check made slow by what the student gave it: 8 s of this process's CPU
        until = time.process_time() + 8.0
        while time.process_time() < until:
            pass

    tests = [HiddenTestCase("q1", "test_value", 1.0, True, busy, params=("answer",))]
    began = time.process_time()
    [report] = run_tests(tests, _LateNamespace(0.2), seed=0, check_cpu_s=30.0)
    spent = time.process_time() - began
    assert report.status == "failed" and SPENT in report.message, report
    assert spent < 5.0, f"the check ran {spent:.1f} s of CPU past a deadline 0.2 s away"


def test_the_notebooks_static_reading_counts_against_its_deadline(grader, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules that read the notebook in the grader (measured: 4.4 s for 440 KB of code on this host) are the
    submission's time: here made to take 2 s, the worker's deadline is still submission_timeout_s from when the
    notebook was read. Since the reading runs while the worker runs the cells (grader.read_statically, issue 20), the
    worker is left at most submission_timeout_s - 2 s once it is over."""
    import autograder.grading.grader as grader_module
    from autograder.grading.grader import Grader

    limit = 20.0
    grader.warm_up()
    _ = grader.zygote          # started: its start is the grader's, not the submission's
    real_rule = grader_module.cells_too_deep

    read_over = []

    def slow_rule(cells):      # what 440 KB of a student's code costs the static rules on a loaded host
        time.sleep(2.0)
        read_over.append(time.monotonic())
        return real_rule(cells)

    sessions = []
    real_worker = Grader._worker

    def kept_worker(self, *args, **kwargs):
        session = real_worker(self, *args, **kwargs)
        sessions.append((session, time.monotonic()))   # after its start (the grader's time, not charged)
        return session

    monkeypatch.setattr(grader_module, "cells_too_deep", slow_rule)
    monkeypatch.setattr(Grader, "_worker", kept_worker)
    monkeypatch.setattr(grader.course.config.limits, "submission_timeout_s", limit)
    result = grader.grade(SDPA, "sdpa-from-scratch", seed=1)
    assert result.status == "graded" and result.score == result.max_score
    assert sessions, "no worker was started"
    session, started = sessions[0]
    assert read_over, "the static rules never ran"
    given = session.deadline - max(started, read_over[0])
    assert given <= limit - 2.0 + 0.25, (f"the worker was given {given:.1f} s of a {limit:g} s submission_timeout_s after "
                                         "2 s of reading its notebook")


def test_answer_bindings_read_once_per_cell() -> None:
    """scaled-attention q5-q7 read each binding of the answer with ast.get_source_segment, which splits the whole
    cell into lines again on every call: a cell binding q5_answer 15,000 times (440 KB) made each of the three tests
    run into check_cpu_s (78.6 s of the grader's CPU, 179.6 s of one grade; 11.1 s now). 3000 bindings took 29 s of
    CPU here (6000: 115.8 s), now milliseconds. The sources it returns are still ast.get_source_segment's."""
    import ast

    from tests.hidden_modules import load

    diagnose = load("scaled-attention", "_diagnose", "_diagnose_rt78")
    lines = [f"q5_answer = {i % 97} * 3 // {i % 5 + 1} + len('{'ab' * (i % 7)}')" for i in range(3000)]
    cell = "\n".join(lines) + '\nq5_answer = ("é" +\r\n  "D")  # ü\rq5_answer += "x"\n'
    began = time.process_time()
    sources, nodes, _literals, _tree = diagnose.answer_bindings(["import torch", cell], "q5_answer")
    spent = time.process_time() - began
    assert sources[-3:] == [ast.get_source_segment(cell, n).strip() for n in nodes[-3:]] == [
        lines[-1], 'q5_answer = ("é" +\r\n  "D")', 'q5_answer += "x"']
    assert len(sources) == 3002
    assert spent < 3.0, f"reading 3000 bindings of one cell took {spent:.1f} s of CPU"
