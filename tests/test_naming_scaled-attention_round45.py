"""Naming scaled-attention's mistakes, round 45 (blind44's kinds), through the grader on notebooks built from
full_marks with one cell replaced: an entropy whose NaN guard clamps the log instead of p (torch.log(p).clamp(min=
eps), log_softmax(...).clamp_min(eps): every log p becomes +eps, every row -eps) is entropy_clamp_log, replayed on
each q4 test's own logits and matched to the replay's own size (the whole-tensor softmax, one-hot on saturated rows
and so about 0 in every row, names an answer near 0 there only when a second call on ordinary 2-D logits matches it
too); a scaled variance divided by d_k ** 0.5 ** 2
(d_k ** 0.25, ** read right to left) is variance_power_right_associative, from the ratio of the unscaled to the
scaled variance of the same draws, at the test's d_k and at 20. My own variants, not blind44's cells; each kind has
right variants of a similar shape that keep full marks."""
from __future__ import annotations

import math

import pytest
import torch

from autograder.grading.checks import Misconception, matching_variants, randn
from reference import scaled_attention as ref
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r45__diagnose")

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''

_ENTROPY_HEAD = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
'''

_VARIANCE = '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
'''

WRONG = {
    # --- entropy_clamp_log: the guard on log p, not on p ---------------------------------------------------
    "entropy_log_softmax_clamped": ({"softmax_entropy": _ENTROPY_HEAD + '''\
    p = torch.softmax(logits, dim=-1)
    log_p = torch.log_softmax(logits, dim=-1).clamp(min=1e-12)      # no -inf in the product
    return -(p * log_p).sum(dim=-1)
''' + _TABLE}, "entropy_clamp_log", "log(p).clamp(min=1e-12)"),
    "entropy_own_softmax_torch_clamp_on_log": ({"softmax_entropy": _ENTROPY_HEAD + '''\
    e = torch.exp(logits - logits.max(dim=-1, keepdim=True).values)
    p = e / e.sum(dim=-1, keepdim=True)
    return -torch.sum(p * torch.clamp(torch.log(p), min=1e-6), dim=-1)
''' + _TABLE}, "entropy_clamp_log", "log(p).clamp(min=1e-06)"),
    "entropy_clamp_min_machine_eps_on_log": ({"softmax_entropy": _ENTROPY_HEAD + '''\
    p = F.softmax(logits, dim=-1)
    safe_log = torch.log(p).clamp_min(torch.finfo(p.dtype).eps)
    return -(p * safe_log).sum(-1)
''' + _TABLE}, "entropy_clamp_log", "-sum p * log(p).clamp"),
    # --- a real whole-tensor softmax is still named on the saturated rows, by a second call -------------------
    "entropy_whole_tensor_exp_over_sum": ({"softmax_entropy": _ENTROPY_HEAD + '''\
    e = torch.exp(logits - logits.max())
    p = e / torch.sum(e)                      # one sum for the whole batch
    return -(p * torch.log(p.clamp(min=1e-12))).sum(dim=-1)
''' + _TABLE}, "entropy_softmax_whole_tensor", "one sum over the whole tensor"),
    "entropy_whole_tensor_view_softmax": ({"softmax_entropy": _ENTROPY_HEAD + '''\
    log_p = torch.log_softmax(logits.reshape(-1), dim=0).reshape(logits.shape)
    return -(log_p.exp() * log_p).sum(dim=-1)
''' + _TABLE}, "entropy_softmax_whole_tensor", "one sum over the whole tensor"),
    # --- variance_power_right_associative: d_k ** 0.5 ** 2 is d_k ** 0.25 ---------------------------------
    "variance_times_negative_power_tower": ({"dot_product_variance": _VARIANCE + '''\
    var = dots.var()
    if scaled:
        var = var * d_k ** -0.5 ** 2          # 1 / sqrt(d_k) squared
    return var.item()
'''}, "variance_power_right_associative", "d_k ** 0.25"),
    "variance_scale_variable_power_tower": ({"dot_product_variance": _VARIANCE + '''\
    scale_sq = d_k ** 0.5 ** 2 if scaled else 1
    return float(torch.var(dots) / scale_sq)
'''}, "variance_power_right_associative", "d_k ** 0.25"),
}

CORRECT = {
    "entropy_log_clamped_at_log_eps": {"softmax_entropy": _ENTROPY_HEAD + '''\
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p).clamp(min=math.log(1e-9))).sum(dim=-1)     # bound log p, not p
''' + _TABLE},
    "entropy_p_clamped_inside_log": {"softmax_entropy": _ENTROPY_HEAD + '''\
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log(p.clamp(min=1e-12))).sum(dim=-1)
''' + _TABLE},
    "variance_power_tower_parenthesised": {"dot_product_variance": _VARIANCE + '''\
    var = dots.var().item()
    if scaled:
        var = var / (d_k ** 0.5) ** 2
    return var
'''},
    "variance_sqrt_squared": {"dot_product_variance": _VARIANCE + '''\
    if scaled:
        return (dots.var() / math.sqrt(d_k) ** 2).item()
    return dots.var().item()
'''},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round45_{name}")


_Q4_TESTS = {"test_entropy_random_logits", "test_entropy_saturated_rows", "test_entropy_views"}
_WHERE = {"entropy_clamp_log": {"q4"}, "entropy_softmax_whole_tensor": {"q4"}, "variance_power_right_associative": {"q2"}}
_TESTS = {"entropy_clamp_log": _Q4_TESTS, "entropy_softmax_whole_tensor": _Q4_TESTS,
          "variance_power_right_associative": {"test_scaled_variance_is_one"}}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key, said = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()
    assert {q for q, _t, _k, _m in outcome.failed} == _WHERE[key], outcome.explain()
    assert {t.split(":")[-1] for _q, t, _k, _m in outcome.failed} == _TESTS[key], outcome.explain()
    assert all(said in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


def _saturated_logits(seed=5):
    """test_entropy_saturated_rows' kind of input: (4, 8) float32, rows 0 and 2 one-hot in float32."""
    rng = torch.Generator().manual_seed(seed)
    logits = randn((4, 8), rng, torch.float32)
    logits[0, 3] += 300.0
    logits[2, 6] += 250.0
    return logits


def _q4_inputs():
    rng = torch.Generator().manual_seed(45)
    views = randn((7, 5), rng, torch.float32, scale=2.0).T
    views[1] = 0.5
    return [randn((6, 6), rng, torch.float32, scale=2.0), randn((2, 3, 5), rng, torch.float32, scale=2.0),
            _saturated_logits(), views.expand(3, 5, 7)]


def _clamped(logits, eps):
    p = torch.softmax(logits.double(), dim=-1)
    return -(p * torch.log_softmax(logits.double(), dim=-1).clamp(min=eps)).sum(dim=-1)


def test_whole_tensor_softmax_is_not_replayed_where_it_is_about_zero():
    """The +300 logit makes the whole-tensor softmax one-hot: its row entropies are all about 0, which any answer
    near 0 matches (blind44's -1e-9 was named after it); there it is left out, on ordinary logits it stays."""
    saturated = D.entropy_variants(_saturated_logits().double())
    assert "entropy_softmax_whole_tensor" not in saturated
    clamped = _clamped(_saturated_logits(), 1e-9).float()
    assert not matching_variants(clamped, saturated, torch.float32,
                                 expected=ref.softmax_entropy(_saturated_logits().double()))
    ordinary = D.entropy_variants(randn((4, 8), torch.Generator().manual_seed(1), torch.float64, scale=2.0))
    assert "entropy_softmax_whole_tensor" in ordinary


def test_whole_tensor_is_named_on_saturated_rows_only_by_a_second_call():
    """On saturated logits an answer of about 0 in every row is the whole-tensor softmax only when a second call on
    ordinary 2-D logits gives that mistake's value there; the clamped log (-eps there too) is not it."""
    logits = _saturated_logits()

    def whole(x):
        e = torch.exp(x - x.max())
        p = e / e.sum()
        return -(p * torch.log(p.clamp(min=1e-12))).sum(dim=-1)

    def clamped(x):
        p = torch.softmax(x, dim=-1)
        return -(p * torch.log(p).clamp(min=1e-9)).sum(dim=-1)

    m = D.whole_tensor_confirmed(whole, whole(logits), logits.double(), "softmax_entropy(logits)")
    assert isinstance(m, Misconception) and m.key == "entropy_softmax_whole_tensor"
    assert D.whole_tensor_confirmed(clamped, clamped(logits), logits.double(), "softmax_entropy(logits)") is None
    # ordinary logits: the replay is not about 0, the plain comparison names it (no second call needed)
    ordinary = _q4_inputs()[0]
    assert D.whole_tensor_confirmed(whole, whole(ordinary), ordinary.double(), "softmax_entropy(logits)") is None


def test_second_call_probe_tells_the_whole_tensor_softmax_apart():
    """On the second call's logits the whole-tensor replays are far from 0, from the right entropy and from every
    other entropy variant there."""
    probe = D.ENTROPY_2D_PROBE.double()
    right = ref.softmax_entropy(probe)
    replays = D._whole_tensor_replays(probe)
    others = {k: v for k, v in D.entropy_variants(probe).items() if k not in replays}
    for key, H in replays.items():
        assert not D._about_zero(H), key
        assert not matching_variants(H, {"right": right}, torch.float32), key
        assert not matching_variants(H, others, torch.float32), key


@pytest.mark.parametrize("index", range(4))
def test_clamped_log_replay_coincides_with_no_other_variant(index):
    """On q4's kinds of logits, no catalogued entropy variant is about 0 in every row (so none can stand for an
    answer of -eps), and the clamped replay is far from the right entropy."""
    logits = _q4_inputs()[index].double()
    right = ref.softmax_entropy(logits)
    for key, H in D.entropy_variants(logits).items():
        if isinstance(H, torch.Tensor) and H.is_floating_point():
            assert not D._about_zero(H), key
    assert not matching_variants(_clamped(logits, 1e-9), {"right": right}, torch.float32)


def test_clamped_log_is_named_only_for_its_own_constant():
    """-eps in every row for a guard's eps is named; 0, a constant that is no guard's, an answer that is -eps in
    some rows only, and the right entropy are not."""
    logits = _q4_inputs()[0]
    L = logits.double()
    right = ref.softmax_entropy(L)
    for eps in (1e-12, 1e-9, 1e-8, 1e-5, torch.finfo(torch.float32).eps):
        got = _clamped(logits, eps).float()
        m = D.entropy_clamp_log(got, L, right)
        assert isinstance(m, Misconception) and m.key == "entropy_clamp_log", eps
        assert f"clamp(min={eps:.3g})" in str(m)
    for got in (torch.zeros(6), torch.full((6,), -3e-9), right.float(), -right.float()):
        assert D.entropy_clamp_log(got, L, right) is None
    mixed = _clamped(logits, 1e-9).float()
    mixed[2] = -2e-9
    assert D.entropy_clamp_log(mixed, L, right) is None


def _fake_variance(ratio_of):
    """A dot_product_variance whose scaled value is the right unscaled one of the same draws over ratio_of(d_k)."""
    def fn(d_k, n, generator, scaled=False):
        q = torch.randn(n, d_k, generator=generator)
        k = torch.randn(n, d_k, generator=generator)
        var = (q * k).sum(dim=1).var().item()
        return var / ratio_of(d_k) if scaled else var
    return fn


def _scaled_by_other(ratio_of, d_k, seed=3, n=10_000):
    fn = _fake_variance(ratio_of)
    v = fn(d_k, n, torch.Generator().manual_seed(seed), scaled=True)
    try:
        D.raise_if_scaled_by_other(fn, v, seed, d_k, n)
    except AssertionError as e:
        return e
    return None


@pytest.mark.parametrize("d_k", [12, 64])
def test_power_tower_is_named_from_its_ratio_alone(d_k):
    m = _scaled_by_other(lambda d: d ** 0.25, d_k)
    assert isinstance(m, Misconception) and m.key == "variance_power_right_associative"
    assert "(d_k ** 0.5) ** 2" in str(m)
    for other in (lambda d: d ** 0.5, lambda d: d ** 0.75, lambda d: 2.0, lambda d: d / 4):
        e = _scaled_by_other(other, d_k)
        assert not (isinstance(e, Misconception) and e.key == "variance_power_right_associative")


def test_power_tower_ratio_needs_the_second_d_k():
    """A ratio of d_k ** 0.25 at the test's d_k alone (another ratio at d_k = 20) is not named."""
    m = _scaled_by_other(lambda d: d ** 0.25 if d != 20 else 3.0, 12)
    assert not (isinstance(m, Misconception) and m.key == "variance_power_right_associative")


@pytest.mark.parametrize("d_k", [12, 20, 64])
def test_power_tower_coincides_with_no_other_q2_ratio(d_k):
    """d_k ** 0.25 (and the scaled value d_k ** 0.75 it leaves) is far from every ratio and value q2 names
    otherwise on its d_k: n_samples, isqrt(d_k)^2, 4 d_k^2, d_k^2 / 4, d_k, and 1, 1/d_k, 2, sqrt(d_k), d_k^2."""
    c = d_k ** 0.25
    for other in (10_000, math.isqrt(d_k) ** 2, 4 * d_k * d_k, d_k * d_k / 4, d_k, 1.0, round(c)):
        assert abs(c / other - 1) > 0.01, other
    v = d_k ** 0.75
    for target in (1.0, 1 / d_k, 2.0, math.sqrt(d_k), float(d_k), float(d_k) ** 2, 1 / math.sqrt(d_k)):
        assert abs(v / target - 1) >= 0.10, target
