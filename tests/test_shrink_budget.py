"""Shrinking never changes an outcome and has a hard budget (issue 18, item 6): its calls run under
their own deadline (what is left of grading.yml's shrink_test_s per failed test and
shrink_submission_s per submission), a call still running then is interrupted and its worker
replaced free of charge, never counted as a runaway; a later test sees nothing of it."""
from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest
import torch

from autograder.config import Limits
from autograder.errors import WorkerTimeout
from autograder.grading.checks import Misconception
from autograder.grading.namespaces import RestartingNamespace
from autograder.sandbox.session import CallCutShort, SandboxPolicy, optional_calls, optional_deadline
from autograder.grading.shrink import (START_CALLS, START_S, AttentionInput, Failure, ShrinkBudget, current_budget,
                               with_smallest)
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parent.parent
SLUG = "sdpa-from-scratch"
FULL_MARKS = ROOT / "examples" / "submissions" / SLUG / "full_marks.ipynb"
SDPA = ref.scaled_dot_product_attention
LIMITS = Limits()


# --- the budget, without a sandbox ----------------------------------------------------------------------

def test_the_budgets_are_declared_in_grading_yml_limits():
    assert (LIMITS.shrink_test_s, LIMITS.shrink_submission_s) == (2, 10)
    policy = SandboxPolicy.from_limits(Limits(shrink_test_s=0.5, shrink_submission_s=3))
    assert (policy.shrink_test_s, policy.shrink_submission_s) == (0.5, 3)


def _slow_wrong(seconds: float, left_at_start: list[float]):
    """A wrong function taking `seconds` a call; records the time its search had left at each call."""
    def fn(Q, K, V, mask=None):
        deadline = optional_deadline()
        if deadline is not None:
            left_at_start.append(deadline - time.monotonic())
        time.sleep(seconds)
        return SDPA(Q, K, V, mask) * 2
    return fn


def _failing_input(seed: int) -> AttentionInput:
    g = torch.Generator().manual_seed(seed)
    Q, K, V = (torch.randn(s, generator=g) for s in ((3, 7, 16), (3, 9, 16), (3, 9, 10)))
    return AttentionInput(Q, K, V)


def test_each_test_gets_its_share_and_the_submission_its_total():
    # a student function taking 0.1 s a call: 0.8 s per failed test, 1.5 s for all of them
    budget = ShrinkBudget(per_test_s=0.8, per_submission_s=1.5)
    left: list[float] = []
    fn = _slow_wrong(0.1, left)
    spent = []
    with current_budget(budget):
        for seed in range(6):
            budget.new_test()
            inp = _failing_input(seed)
            first = Failure.value(SDPA(inp.Q, inp.K, inp.V), fn(inp.Q, inp.K, inp.V))
            start = time.monotonic()
            err = with_smallest(AssertionError("wrong"), fn, inp, first, reference=SDPA)
            spent.append(time.monotonic() - start)
            assert str(err).startswith("wrong")
    # a call starts only with time enough for it (in-process calls cannot be cut: they must not need to)
    assert left and min(left) >= START_S and min(left[1:]) >= START_CALLS * 0.1 - 0.01, left
    assert all(s <= 0.8 + 0.2 for s in spent), spent
    assert sum(spent) <= 1.5 + 0.3 and budget.spent_s <= 1.5 + 0.1, spent
    assert spent[0] > 0.3 and spent[-1] < 0.05 and spent[-2] < 0.05, spent   # the last tests: no search


def test_a_search_that_runs_out_says_it_could_not_shrink_further():
    left: list[float] = []
    fn = _slow_wrong(0.05, left)
    inp = _failing_input(0)
    first = Failure.value(SDPA(inp.Q, inp.K, inp.V), fn(inp.Q, inp.K, inp.V))
    with current_budget(ShrinkBudget(per_test_s=0.5, per_submission_s=10)):
        message = str(with_smallest(AssertionError("the output is wrong"), fn, inp, first, reference=SDPA))
    assert 1 <= len(left) < 10, left
    assert "(could not shrink further)" in message and "smallest input of this kind that" not in message
    with current_budget(ShrinkBudget(per_test_s=2, per_submission_s=0)):
        n = len(left)
        assert str(with_smallest(AssertionError("wrong"), fn, inp, first, reference=SDPA)) == "wrong"
        assert len(left) == n                            # no time left: no call at all, nothing added


def test_a_mistake_gets_one_example_per_submission_and_an_unnamed_failure_each_time():
    calls: list[float] = []
    fn = _slow_wrong(0, calls)
    messages = []
    with current_budget(ShrinkBudget()) as budget:
        for seed, exc in enumerate([Misconception("doubled", "twice the output"), AssertionError("wrong"),
                                    Misconception("doubled", "twice the output"), AssertionError("wrong")]):
            budget.new_test()
            inp = _failing_input(seed)
            first = Failure.value(SDPA(inp.Q, inp.K, inp.V), fn(inp.Q, inp.K, inp.V))
            before = len(calls)
            messages.append((str(with_smallest(exc, fn, inp, first, reference=SDPA)), len(calls) - before))
    (named, n1), (plain, n2), (named_again, n3), (plain_again, n4) = messages
    assert "smallest input" in named and n1 > 1          # the first failure of the mistake is searched
    assert named_again == "twice the output" and n3 == 0  # the same mistake again: no search
    assert "smallest input" in plain and "smallest input" in plain_again and n2 > 1 and n4 > 1


# --- a call in flight is interrupted, in a real worker ----------------------------------------------------

SLEEPER = "import time\n\ndef f(x):\n    if x < 0:\n        time.sleep(9)\n    return x * 2\n"


def test_a_call_past_the_deadline_is_interrupted_and_its_worker_replaced_free(grader):
    policy = SandboxPolicy(call_timeout_s=30)
    session = grader.zygote.spawn(policy)
    ns = RestartingNamespace(grader.zygote.spawn, policy, session)
    try:
        session.exec_cells([SLEEPER])
        f = ns.resolve("f", "cpu")
        assert f(2) == 4
        start = time.monotonic()
        with optional_calls(time.monotonic() + 0.5), pytest.raises(CallCutShort) as cut:
            f(-1)
        assert time.monotonic() - start < 0.5 + 3, "the call was not interrupted at its deadline"
        assert cut.value.lost_worker and not session.alive() and session.lost_to_optional
        # not a runaway, not a restart charged to the submission; the same proxy reaches the new worker
        assert ns.runaway_reason("f") is None and ns.halted is None
        assert f(5) == 10
        assert ns.session is not session and ns.restarts == 0 and ns.free_restarts == 1
        # past the deadline nothing starts, and the worker stays
        with optional_calls(time.monotonic() - 1), pytest.raises(CallCutShort) as late:
            f(1)
        assert not late.value.lost_worker and ns.session.alive() and not ns.session.lost_to_optional
        # outside optional work a timeout is still the student's: a runaway, as before
        ns.session.policy = dataclasses.replace(policy, call_timeout_s=1.0)
        with pytest.raises(WorkerTimeout):
            f(-1)
        assert ns.runaway_reason("f") is not None
    finally:
        ns.session.close()
        session.close()


# --- whole grades: the two measured cases -------------------------------------------------------------------

def _notebook(tmp_path: Path, name: str, body: str) -> Path:
    """full_marks.ipynb whose scaled_dot_product_attention is `body` around the correct one (`_sdpa_core`)."""
    nb = json.loads(FULL_MARKS.read_text())
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"
             and "".join(c["source"]).startswith("def scaled_dot_product_attention")]
    assert len(cells) == 1
    core = "".join(cells[0]["source"]).replace("def scaled_dot_product_attention", "def _sdpa_core", 1)
    cells[0]["source"] = core + "\n\n\nimport time\n\n\n" + body.strip("\n") + "\n"
    path = tmp_path / name
    path.write_text(json.dumps(nb))
    return path


# Wrong only in float16; `SLEEP` is replaced by a sleep on the smaller inputs only the shrinker tries
# (the float16 tests use 10 and 128 queries), or by nothing.
WRONG_IN_FLOAT16 = '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    out = _sdpa_core(Q, K, V, mask)
    if Q.dtype == torch.float16:
        SLEEP
        out = out * 0.5
    return out
'''
SMALL_INPUT_SLEEP = "if Q.shape[-2] < 10:\n            time.sleep(60)"

# Wrong everywhere (the scores are not scaled); `SLEEP`: 9 s on every call on a batch of one short
# sequence, which is where each failed test's search starts (its first move halves the batch)
NOT_SCALED = '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    SLEEP
    return _sdpa_core(Q * math.sqrt(Q.shape[-1]), K, V, mask)
'''
SHRINK_CALL_SLEEP = "if Q.dim() >= 3 and Q.shape[0] == 1 and Q.shape[-2] < 100:\n        time.sleep(9)"


def _grade_pair(grader, tmp_path: Path, template: str, sleep: str):
    plain = grader.grade(_notebook(tmp_path, "plain.ipynb", template.replace("SLEEP", "pass")), SLUG, seed=31)
    sleepy = grader.grade(_notebook(tmp_path, "sleepy.ipynb", template.replace("SLEEP", sleep)), SLUG, seed=31)
    assert plain.status == sleepy.status == "graded"
    return plain, sleepy


def _outcomes(result):
    return {(t.question, t.name, t.device): (t.status, t.score, t.misconception) for t in result.tests}


def _assert_same_outcome_and_bounded(plain, sleepy):
    assert sleepy.score == plain.score < plain.max_score
    assert _outcomes(sleepy) == _outcomes(plain), [
        (t.name, t.message[:300]) for t in sleepy.tests if t.status == "failed"]
    assert not any("did not finish within" in t.message for t in sleepy.tests)
    # each failed test searched for at most shrink_test_s more; the restart of the one worker lost is
    # paid by the test after it (slack for a busy machine: the bound, not a tight timing)
    slack = 15.0
    took = {(t.question, t.name, t.device): t.duration_s for t in plain.tests}
    for t in sleepy.tests:
        assert t.duration_s <= took[(t.question, t.name, t.device)] + LIMITS.shrink_test_s + slack, \
            (t.name, t.duration_s)
    extra = sleepy.execution_time_s - plain.execution_time_s
    assert extra <= LIMITS.shrink_submission_s + slack, (plain.execution_time_s, sleepy.execution_time_s)


def test_sleeping_only_on_the_smaller_inputs_changes_nothing(grader, tmp_path):
    """Measured before: a shrink call ran into the 30 s call timeout, the function was marked a
    runaway and five later tests failed (28 against 33)."""
    plain, sleepy = _grade_pair(grader, tmp_path, WRONG_IN_FLOAT16, SMALL_INPUT_SLEEP)
    failed = {t.name for t in plain.tests if t.status == "failed" and t.max_score > 0}
    assert failed == {"test_float16", "test_float16_large_scores"}, failed
    _assert_same_outcome_and_bounded(plain, sleepy)
    report = next(t for t in sleepy.tests if t.name == "test_float16")
    assert "(could not shrink further)" in report.message, report.message


def test_sleeping_on_every_shrink_call_costs_at_most_the_budget(grader, tmp_path):
    """Measured before: 9 s per failed test (each paid once), a grade of 92 s instead of 2 s."""
    plain, sleepy = _grade_pair(grader, tmp_path, NOT_SCALED, SHRINK_CALL_SLEEP)
    failed = [t for t in plain.tests if t.status == "failed" and t.max_score > 0]
    assert len(failed) >= 8
    _assert_same_outcome_and_bounded(plain, sleepy)
