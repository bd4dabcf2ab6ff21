"""The vectorisation check's own cost (issue 20): the yardstick measured once per grader process and
reused, and the timed outputs' sum checked against the reference run once on the stacked inputs.
Neither may change a verdict: the stacked inputs are the very draws `run_fresh_calls` makes, a
reference that does not batch is summed call by call, and loops are still caught once the yardstick
is reused. Only counts and ratios with wide margins are asserted: the machine is shared."""
from __future__ import annotations

import pytest
import torch

from autograder.grading import checks
from autograder.grading.checks import Misconception, assert_vectorised
from autograder.grading.runner import TrustedProxy
from autograder.sandbox.calls import fresh_batch, run_fresh_batched, run_fresh_calls
from reference import sdpa_from_scratch as ref

SDPA = ref.scaled_dot_product_attention
CASES = [   # q5's TIMED_CASES
    ([((1, 256, 16), "float64")] * 3, {"mask": ref.causal_mask(256).expand(1, 256, 256).contiguous()}),
    ([((128, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4).expand(128, 4, 4).contiguous()}),
    ([((64, 2, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4).expand(64, 2, 4, 4).contiguous()}),
]


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch):
    """Each test starts as a new grader process would: no yardstick measured yet."""
    monkeypatch.setattr(checks, "_YARDSTICKS", {})


@pytest.mark.parametrize("specs", [CASES[0][0], CASES[1][0], CASES[2][0],
                                   [((3, 5, 7), "float32"), ((2, 1), "float64")],   # sizes not a multiple of 16
                                   [((1,), "float16")]])
def test_the_stacked_inputs_are_the_draws_of_the_timed_calls(specs):
    seen = []

    def record(*args):
        seen.append([a.clone() for a in args])
        return args[0].to(torch.float64)

    run_fresh_calls(record, specs, {}, seed=1234, repeat=7)
    stacked = fresh_batch(specs, 1234, 7)
    assert len(seen) == 7 and len(stacked) == len(specs)
    for i, t in enumerate(stacked):
        assert t.dtype == seen[0][i].dtype
        assert torch.equal(t, torch.stack([s[i] for s in seen]))   # bit for bit


@pytest.mark.parametrize("case", CASES)
def test_the_batched_reference_sum_is_the_call_by_call_sum(case):
    specs, kwargs = case
    for seed, n in ((1, 1), (2, 5), (3, 40)):
        one_by_one = run_fresh_calls(SDPA, specs, kwargs, seed, n)
        batched = run_fresh_batched(SDPA, specs, kwargs, seed, n)
        assert batched.shape == one_by_one.shape
        assert (batched - one_by_one).abs().max().item() < checks.BATCHED_ATOL / 1000


def _counted(fn):
    calls = [0]

    def reference(*args, **kwargs):
        calls[0] += 1
        return fn(*args, **kwargs)
    return reference, calls


def test_the_yardstick_is_measured_once_then_one_sample_per_use_replaces_the_oldest():
    reference, calls = _counted(SDPA)
    student = TrustedProxy(SDPA, "cpu")
    spent, samples = [], []
    for i in range(5):
        before = calls[0]
        assert_vectorised(student, reference, [CASES[1]], rng=torch.Generator().manual_seed(i), limit=1e9)
        spent.append(calls[0] - before)
        samples.append(list(next(iter(checks._YARDSTICKS.values())).samples))
    # first: the probe (2 batched calls, 4 one by one), a warm-up and the best of three (2 calls each);
    # then one sample of 2 calls each (the verifications vary: batched or call by call, 1 or 2 looks)
    assert spent[0] >= 6 + 2 + 2 * checks.YARDSTICK_SAMPLES + 2, spent
    assert next(iter(checks._YARDSTICKS.values())).uses == 5
    assert all(len(s) == checks.YARDSTICK_SAMPLES for s in samples)
    for older, newer in zip(samples, samples[1:]):
        assert newer[:-1] == older[1:] and 0 < newer[-1] < float("inf")   # the oldest sample goes


def test_a_reference_that_does_not_batch_is_summed_call_by_call():
    def by_first_axis(Q, K, V, mask=None):   # a leading axis changes its value: batching is wrong
        return SDPA(Q / Q.shape[0], K, V, mask)

    specs, kwargs = CASES[1]
    assert not torch.allclose(run_fresh_batched(by_first_axis, specs, kwargs, 5, 4),
                              run_fresh_calls(by_first_axis, specs, kwargs, 5, 4))
    for i in range(2):
        ratio = assert_vectorised(TrustedProxy(by_first_axis, "cpu"), by_first_axis, [CASES[1]],
                                  rng=torch.Generator().manual_seed(i), limit=1e9)
        assert ratio > 0
    assert next(iter(checks._YARDSTICKS.values())).batched is False


def _rows(Q, K, V, mask=None):
    return torch.cat([SDPA(Q[..., i:i + 1, :], K, V, mask[..., i:i + 1, :]) for i in range(Q.shape[-2])], dim=-2)


def _entries(Q, K, V, mask=None):
    return torch.stack([SDPA(Q[b], K[b], V[b], mask[b]) for b in range(Q.shape[0])])


@pytest.mark.parametrize("loop, case", [(_rows, CASES[0]), (_entries, CASES[1]), (_entries, CASES[2])])
def test_loops_are_caught_with_a_reused_yardstick(loop, case):
    assert_vectorised(TrustedProxy(SDPA, "cpu"), SDPA, [case], rng=torch.Generator().manual_seed(0))
    with pytest.raises(Misconception) as e:
        assert_vectorised(TrustedProxy(loop, "cpu"), SDPA, [case], rng=torch.Generator().manual_seed(1))
    assert e.value.key == "not_vectorised"
    assert checks._YARDSTICKS and next(iter(checks._YARDSTICKS.values())).uses == 2


def test_wrong_timed_values_are_still_refused_with_the_batched_sum():
    def off(Q, K, V, mask=None):
        out = SDPA(Q, K, V, mask)
        return out + 1e-3 * (out.abs() > 2).to(out.dtype)   # wrong on a few entries only

    for i in range(2):
        with pytest.raises(AssertionError, match="could not be verified"):
            assert_vectorised(TrustedProxy(off, "cpu"), SDPA, [CASES[1]], rng=torch.Generator().manual_seed(i),
                              limit=1e9)


def test_the_variant_that_verified_a_timing_is_tried_first_then():
    """A wrong answer that one of the known variants explains is verified by that variant; each
    variant tried costs the timed calls' count in the grader, so the one that matched is tried first
    on every later timing of the same function (one case or several sharing `verified_by`)."""
    calls: dict[str, int] = {}

    def counted(name, fn):
        def variant(*args, **kwargs):
            calls[name] = calls.get(name, 0) + 1
            return fn(*args, **kwargs)
        return variant

    def doubled(Q, K, V, mask=None):
        return 2 * SDPA(Q, K, V, mask)

    others = [counted(f"other{i}", lambda Q, K, V, mask=None, i=i: SDPA(Q, K, V, mask) + i + 1) for i in range(4)]
    variants = [*others, counted("doubled", doubled)]
    shared: list = []
    for case in CASES[1:]:
        assert_vectorised(TrustedProxy(doubled, "cpu"), SDPA, [case], rng=torch.Generator().manual_seed(3),
                          limit=1e9, variants=variants, verified_by=shared)
    # the first timing (one call, the warm-up) scans the list once; afterwards only `doubled` runs
    assert all(calls[f"other{i}"] == 1 for i in range(4)), calls
    assert calls["doubled"] > 5 and shared and shared[0] is variants[-1]


class _Inflated(TrustedProxy):
    """A vectorised function whose timed looks at the chosen positions (0 = the first time_fresh) come
    back with their CPU time inflated, as the kernel's work on a thread's behalf (page faults, memory
    reclaim on a loaded CI machine) inflates one short look."""

    def __init__(self, fn, inflate: dict[int, float]) -> None:
        super().__init__(fn, "cpu")
        self.inflate, self.looks = inflate, 0

    def time_fresh(self, specs, kwargs=None, *, seed: int, repeat: int = 10):
        spent, total = super().time_fresh(specs, kwargs, seed=seed, repeat=repeat)
        spent = spent * self.inflate.get(self.looks, 1.0) + (0.25 if self.inflate.get(self.looks) == -1 else 0.0)
        self.looks += 1
        return spent, total


@pytest.mark.parametrize("inflate", [{1: 60.0},             # the quick look, far above the limit
                                     {1: 6.0},              # the quick look, near it
                                     {0: -1}],              # the first call, as if hopeless (+0.25 s)
                         ids=["quick-look-far", "quick-look-near", "first-call-hopeless"])
def test_one_inflated_look_never_fails_a_vectorised_solution(inflate):
    """CI once failed full marks' vectorised attention (q5 at one seed of `autograder check`): a fail
    is now confirmed by a longer look, and a hopeless first call by a second call."""
    student = _Inflated(SDPA, inflate)
    ratio = assert_vectorised(student, SDPA, [CASES[1]], rng=torch.Generator().manual_seed(3))
    assert ratio < 5.0 and student.looks >= 3


def test_a_loop_inflated_once_more_is_still_a_loop():
    student = _Inflated(_entries, {1: 60.0, 0: -1})
    with pytest.raises(Misconception) as e:
        assert_vectorised(student, SDPA, [CASES[1]], rng=torch.Generator().manual_seed(4))
    assert e.value.key == "not_vectorised"
