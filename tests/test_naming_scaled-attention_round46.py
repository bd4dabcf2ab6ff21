"""Naming scaled-attention's mistakes, round 46 (blind45's kinds), through the grader on notebooks built from
full_marks with one cell replaced: an output buffer as wide as the queries (torch.zeros_like(Q), torch.empty(Q.shape),
Q.new_zeros(...)) filled with weights @ V crashes where d_v != d_k, and is output_buffer_width_of_queries when the
crash's words are those of that slip replayed on the test's own tensors and a second call with values as wide as the
queries is right; draws standardised along each vector's own coordinates (z-scored, layer_norm, or only centred:
Var(q.k) about d_k - 1) are draws_standardised_per_vector, from an exact replay of both generators' draws, inside the
10% band too; a 1-D row of logits whose entropy keeps the batch axis it was given (atleast_2d, unsqueeze(0): shape
(1,), the notebook promises shape logits.shape[:-1] = ()) is entropy_single_row_axis_kept. My own variants, not
blind45's cells; each kind has right variants of a similar shape that keep full marks."""
from __future__ import annotations

import math

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r46__diagnose")

_ATTENTION_HEAD = '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
'''

_VARIANCE_HEAD = '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
'''

_VARIANCE_TAIL = '''    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''

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

WRONG = {
    # --- output_buffer_width_of_queries: the output made (T_q, d_k) ------------------------------------------
    "buffer_empty_of_q_shape_slice_assigned": ({"attention": _ATTENTION_HEAD + '''\
    out = torch.empty(Q.shape, dtype=Q.dtype)        # one row per query
    out[:] = weights @ V
    return out, weights
'''}, "output_buffer_width_of_queries", "with values as wide as the queries"),
    "buffer_new_zeros_summed_over_keys": ({"attention": _ATTENTION_HEAD + '''\
    out = Q.new_zeros(Q.shape)
    for j in range(K.shape[0]):                      # add each key's value, weighted
        out += weights[:, j:j + 1] * V[j]
    return out, weights
'''}, "output_buffer_width_of_queries", "with values as wide as the queries"),
    "buffer_zeros_like_double_loop": ({"attention": _ATTENTION_HEAD + '''\
    out = torch.zeros_like(Q)
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            out[i] += weights[i, j] * V[j]
    return out, weights
'''}, "output_buffer_width_of_queries", "with values as wide as the queries"),
    # --- draws_standardised_per_vector: each row forced to mean 0 (and std 1) -------------------------------
    "variance_layer_norm_draws": ({"dot_product_variance": _VARIANCE_HEAD + '''\
    q = F.layer_norm(q, (d_k,))                      # unit-variance features
    k = F.layer_norm(k, (d_k,))
''' + _VARIANCE_TAIL}, "draws_standardised_per_vector", "along its own"),
    "variance_biased_zscore_rows": ({"dot_product_variance": _VARIANCE_HEAD + '''\
    q = (q - q.mean(-1, keepdim=True)) / q.std(-1, unbiased=False, keepdim=True)
    k = (k - k.mean(-1, keepdim=True)) / k.std(-1, unbiased=False, keepdim=True)
''' + _VARIANCE_TAIL}, "draws_standardised_per_vector", "along its own"),
    "variance_rows_centred": ({"dot_product_variance": _VARIANCE_HEAD + '''\
    q = q - q.mean(dim=1, keepdim=True)              # zero-mean vectors
    k = k - k.mean(dim=1, keepdim=True)
''' + _VARIANCE_TAIL}, "draws_standardised_per_vector", "along its own"),
    # --- entropy_single_row_axis_kept: one row promoted to a batch of one, never squeezed ---------------------
    "entropy_unsqueezed_single_row": ({"softmax_entropy": _ENTROPY_HEAD + '''\
    if logits.dim() == 1:
        logits = logits.unsqueeze(0)                 # work on a batch
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''' + _TABLE}, "entropy_single_row_axis_kept", "has shape (1,)"),
    "entropy_none_indexed_row": ({"softmax_entropy": _ENTROPY_HEAD + '''\
    x = logits[None] if logits.ndim == 1 else logits
    log_p = x - torch.logsumexp(x, dim=-1, keepdim=True)
    return -(log_p.exp() * log_p).sum(-1)
''' + _TABLE}, "entropy_single_row_axis_kept", "has shape (1,)"),
    "entropy_atleast_2d_own_softmax": ({"softmax_entropy": _ENTROPY_HEAD + '''\
    x = torch.atleast_2d(logits)
    log_p = F.log_softmax(x, dim=x.dim() - 1)
    return torch.sum(-log_p.exp() * log_p, dim=-1)
''' + _TABLE}, "entropy_single_row_axis_kept", "has shape (1,)"),
}

CORRECT = {
    "buffer_as_wide_as_values": {"attention": _ATTENTION_HEAD + '''\
    out = torch.zeros(Q.shape[0], V.shape[1], dtype=V.dtype)
    for i in range(Q.shape[0]):
        out[i] = weights[i] @ V
    return out, weights
'''},
    "buffer_new_empty_values_width": {"attention": _ATTENTION_HEAD + '''\
    out = V.new_empty((Q.shape[0], V.shape[-1]))
    out[:] = weights @ V
    return out, weights
'''},
    "variance_draws_used_as_they_are": {"dot_product_variance": _VARIANCE_HEAD + _VARIANCE_TAIL},
    "variance_normal_draws_einsum": {"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.normal(0.0, 1.0, (n_samples, d_k), generator=generator)
    k = torch.normal(0.0, 1.0, (n_samples, d_k), generator=generator)
    dots = torch.einsum("nd,nd->n", q, k) / (math.sqrt(d_k) if scaled else 1.0)
    return float(dots.var())
'''},
    "entropy_atleast_2d_squeezed_back": {"softmax_entropy": _ENTROPY_HEAD + '''\
    x = torch.atleast_2d(logits)
    log_p = F.log_softmax(x, dim=-1)
    H = -(log_p.exp() * log_p).sum(dim=-1)
    return H.squeeze(0) if logits.dim() == 1 else H
''' + _TABLE},
    "entropy_flattened_rows_reshaped": {"softmax_entropy": _ENTROPY_HEAD + '''\
    flat = logits.reshape(-1, logits.shape[-1])
    log_p = torch.log_softmax(flat, dim=-1)
    return (-(log_p.exp() * log_p).sum(dim=-1)).reshape(logits.shape[:-1])
''' + _TABLE},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round46_{name}")


_Q1_TESTS = {"test_float64_weights", "test_float64_output", "test_float32_square", "test_weight_rows_sum_to_one",
             "test_noncontiguous_inputs", "test_broadcast_inputs"}
_WHERE = {"output_buffer_width_of_queries": {"q1"}, "draws_standardised_per_vector": {"q2"},
          "entropy_single_row_axis_kept": {"q4"}}
_TESTS = {"output_buffer_width_of_queries": _Q1_TESTS,
          "draws_standardised_per_vector": {"test_unscaled_variance_is_d_k", "test_scaled_variance_is_one"},
          "entropy_single_row_axis_kept": {"test_entropy_random_logits"}}


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


# --- the checks alone ----------------------------------------------------------------------------------------

def _qkv(T_q, T_k, d_k, d_v, seed=46):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(T_q, d_k, generator=g, dtype=torch.float64), torch.randn(T_k, d_k, generator=g,
            dtype=torch.float64), torch.randn(T_k, d_v, generator=g, dtype=torch.float64))


def _crash_of(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - the crash is what is looked at
        return StudentCodeError(type(e).__name__, str(e))
    raise AssertionError("no crash")


def _weights(Q, K, d_k):
    return torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)


def _buffer_rows(Q, K, V, d_k):
    w = _weights(Q, K, d_k)
    out = torch.zeros_like(Q)
    for i in range(Q.shape[0]):
        out[i] = w[i] @ V
    return out, w


def test_buffer_crash_named_only_with_the_right_second_call():
    Q, K, V = _qkv(5, 7, 12, 10)
    m = D.output_buffer_crash(_buffer_rows, _crash_of(_buffer_rows, Q, K, V, 12), Q, K, V, 12)
    assert isinstance(m, Misconception) and m.key == "output_buffer_width_of_queries"
    assert "d_k = 12 and d_v = 10" in str(m)

    def wrong_weights(Q, K, V, d_k):   # the same crash, but wrong weights when d_v = d_k: not this slip alone
        out, w = _buffer_rows(Q, K, V, d_k)
        return out, w.T

    assert D.output_buffer_crash(wrong_weights, _crash_of(_buffer_rows, Q, K, V, 12), Q, K, V, 12) is None


def test_buffer_crash_not_named_for_other_crashes():
    """Another crash of the same call (V transposed in the product, Q @ K untransposed), or any crash where d_v = d_k,
    is not the buffer's."""
    Q, K, V = _qkv(5, 7, 12, 10)

    def v_transposed(Q, K, V, d_k):
        w = _weights(Q, K, d_k)
        return w @ V.T, w

    assert D.output_buffer_crash(v_transposed, _crash_of(v_transposed, Q, K, V, 12), Q, K, V, 12) is None
    assert D.output_buffer_crash(v_transposed, _crash_of(lambda: Q @ K), Q, K, V, 12) is None
    Qs, Ks, Vs = _qkv(5, 7, 12, 12)
    assert D.output_buffer_crash(_buffer_rows, _crash_of(lambda: Q @ K), Qs, Ks, Vs, 12) is None


def _variance(transform):
    def fn(d_k, n, generator, scaled=False):
        q = torch.randn(n, d_k, generator=generator)
        k = torch.randn(n, d_k, generator=generator)
        q, k = transform(q), transform(k)
        dots = (q * k).sum(dim=1) / (math.sqrt(d_k) if scaled else 1.0)
        return dots.var().item()
    return fn


def _estimates(fn, d_k, scaled, seeds=(11, 12)):
    return [(fn(d_k, 10_000, torch.Generator().manual_seed(s), scaled=scaled), s) for s in seeds]


def _zscore(x):
    return (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)


@pytest.mark.parametrize("d_k", [12, 64])
@pytest.mark.parametrize("scaled", [False, True])
def test_standardised_draws_named_inside_the_band(d_k, scaled):
    estimates = _estimates(_variance(_zscore), d_k, scaled)
    with pytest.raises(Misconception) as m:
        D.raise_if_standardised_per_vector(estimates, d_k, 10_000, scaled)
    assert m.value.key == "draws_standardised_per_vector"


@pytest.mark.parametrize("d_k", [12, 64])
def test_standardised_draws_not_named_for_right_or_other_draws(d_k):
    """Right draws, a dropped coordinate (also about d_k - 1) and one z-scored estimate beside a right one are
    not named."""
    D.raise_if_standardised_per_vector(_estimates(_variance(lambda x: x), d_k, False), d_k, 10_000, False)
    dropped = _variance(lambda x: x[:, 1:])
    D.raise_if_standardised_per_vector(_estimates(dropped, d_k, False), d_k, 10_000, False)
    mixed = [_estimates(_variance(_zscore), d_k, False)[0], _estimates(_variance(lambda x: x), d_k, False)[1]]
    D.raise_if_standardised_per_vector(mixed, d_k, 10_000, False)


@pytest.mark.parametrize("d_k", [12, 64])
def test_standardised_replay_coincides_with_no_other_q2_replay(d_k):
    """On q2's d_k the standardised replays are farther than q2's replay tolerance (2e-5 relative) from the right
    draws' variance and from every other replayed mistake (the dropped coordinate, also about d_k - 1, included;
    on the same draws the two can be within 0.1%, so only an exact replay tells them apart). A coincidence on some
    seed would leave both unnamed (each check needs exactly one key), never name the wrong one."""
    for scaled in (False, True):
        right, wrong = D.variance_variants_all(d_k, 10_000, 7, scaled)
        mine = {k: v for k, v in wrong.items() if D.replay_key(k) == "draws_standardised_per_vector"}
        assert len(mine) == 8
        others = [v for k, v in wrong.items() if k not in mine]
        for v in mine.values():
            assert all(abs(v / r - 1) > 2e-5 for r in right)
            assert all(abs(v / o - 1) > 2e-5 for o in others if o == o)


def test_one_row_check():
    logits = torch.tensor([0.3, -1.2, 2.5, 0.0, 0.7, 1.9, -0.4])

    def right(x):
        return -(torch.softmax(x, -1) * torch.log_softmax(x, -1)).sum(-1)

    D.check_entropy_one_row(right, logits)
    with pytest.raises(Misconception) as m:
        D.check_entropy_one_row(lambda x: right(torch.atleast_2d(x)), logits)
    assert m.value.key == "entropy_single_row_axis_kept"
    for wrong in (lambda x: right(x) + 0.5, lambda x: right(x).reshape(1) + 0.5, lambda x: right(x).expand(2)):
        with pytest.raises(AssertionError) as e:
            D.check_entropy_one_row(wrong, logits)
        assert not isinstance(e.value, Misconception)
