"""Naming scaled-attention's mistakes, round 40 (blind39's kinds), through the grader on notebooks built from
full_marks with one cell replaced: a scale constant c that is d_k / 2 on one input is said to be d_k ** 1/2 only
when a second call at another d_k divides by that d_k / 2 too (a d_k of 64 written over the argument is 8 at
d_k = 16, and says so: a constant); float16 weights for float32 input (autocast) are dtype_changed on the row-sum
test too; an entropy written as a mean times len(logits), the FIRST axis's size
(entropy_mean_times_first_axis); a loop over the first axis whose helper sums whole slices
(entropy_slices_summed); each head's share of the output assigned where it must be added, so only the last head's
survives (mha_heads_overwritten). My own variants, not blind39's cells; each kind has a right variant of a similar
shape that keeps full marks."""
from __future__ import annotations


import pytest
import torch

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r40__diagnose")

_ATTENTION = '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
'''

_MHA_HEAD = '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
'''

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                         H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return rows
'''

_ENTROPY_HEAD = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
'''


WRONG = {
    # --- wrong_scale_constant: a fixed head width written over d_k (no d_k ** 1/2 hint at d_k = 16) -----------
    "q1_head_width_fixed_at_64": ({"attention": _ATTENTION + '''    d_head = 64                      # the paper's d_k
    w = torch.softmax(Q @ K.transpose(0, 1) / d_head ** 0.5, dim=-1)
    return w @ V, w
'''}, "wrong_scale_constant"),
    "q1_scale_constant_eight": ({"attention": _ATTENTION + '''    scale = 1 / 8.0                  # 1 / sqrt(64)
    weights = (Q @ K.T * scale).softmax(dim=-1)
    return weights @ V, weights
'''}, "wrong_scale_constant"),
    # --- dtype_changed: float16 weights for float32 input, the row-sum test included ---------------------------
    "q1_half_matmuls_cast": ({"attention": _ATTENTION + '''    scores = (Q.half() @ K.half().T) / math.sqrt(d_k)
    w = torch.softmax(scores.float(), dim=-1).to(torch.float16) if Q.dtype == torch.float32 else \\
        torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return w @ V.to(w.dtype), w
'''}, "dtype_changed"),
    "q1_weights_stored_half": ({"attention": _ATTENTION + '''    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    if w.dtype == torch.float32:
        w = w.to(torch.float16)      # halves the memory of the weight matrix
    return (w @ V.to(w.dtype)), w
'''}, "dtype_changed"),
    # --- entropy_mean_times_first_axis ------------------------------------------------------------------------
    "q4_mean_times_shape0": ({"softmax_entropy": _ENTROPY_HEAD + '''    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).mean(-1) * logits.shape[0]
''' + _TABLE}, "entropy_mean_times_first_axis"),
    "q4_mean_times_len_of_probs": ({"softmax_entropy": _ENTROPY_HEAD + '''    p = logits.softmax(-1)
    h = torch.mean(-p * torch.log(p.clamp_min(1e-30)), dim=-1)
    return h * len(p)                # mean over the row times the row length
''' + _TABLE}, "entropy_mean_times_first_axis"),
    # --- entropy_slices_summed --------------------------------------------------------------------------------
    "q4_index_loop_whole_sum": ({"softmax_entropy": _ENTROPY_HEAD + '''    def h(x):
        p = torch.softmax(x, dim=-1)
        return torch.sum(-p * torch.log(p.clamp_min(1e-30)))
    if logits.dim() == 1:
        return h(logits)
    return torch.stack([h(logits[i]) for i in range(logits.shape[0])])
''' + _TABLE}, "entropy_slices_summed"),
    "q4_unbind_loop_whole_sum": ({"softmax_entropy": _ENTROPY_HEAD + '''    if logits.dim() == 1:
        p = F.softmax(logits, dim=-1)
        return -(p * p.clamp_min(1e-30).log()).sum()
    out = []
    for block in logits.unbind(0):
        p = F.softmax(block, dim=-1)
        out.append(-(p * p.clamp_min(1e-30).log()).sum())
    return torch.stack(out)
''' + _TABLE}, "entropy_slices_summed"),
    # --- mha_heads_overwritten --------------------------------------------------------------------------------
    "mha_projection_term_assigned": ({"multi_head_attention": _MHA_HEAD + '''    result = None
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        head, _ = attention(Q[:, s], K[:, s], V[:, s], d_k)
        result = torch.matmul(head, W_O[s])
    return result
'''}, "mha_heads_overwritten"),
    "mha_concat_buffer_made_in_loop": ({"multi_head_attention": _MHA_HEAD + '''    for h in range(n_heads):
        concat = torch.zeros(T, d_model, dtype=X.dtype)
        c0 = h * d_k
        concat[:, c0:c0 + d_k] = attention(Q[:, c0:c0 + d_k], K[:, c0:c0 + d_k], V[:, c0:c0 + d_k], d_k)[0]
    return concat @ W_O
'''}, "mha_heads_overwritten"),
}

CORRECT = {
    "q1_scale_from_width": {"attention": _ATTENTION + '''    d_head = Q.shape[-1]
    w = torch.softmax(Q @ K.transpose(0, 1) / d_head ** 0.5, dim=-1)
    return w @ V, w
'''},
    "q1_half_matmuls_cast_back": {"attention": _ATTENTION + '''    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return (w @ V).to(Q.dtype), w.to(Q.dtype)
'''},
    "q4_mean_times_last_axis": {"softmax_entropy": _ENTROPY_HEAD + '''    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).mean(-1) * logits.shape[-1]
''' + _TABLE},
    "q4_loop_over_flattened_rows": {"softmax_entropy": _ENTROPY_HEAD + '''    def h(x):
        p = torch.softmax(x, dim=-1)
        return torch.sum(-p * torch.log(p.clamp_min(1e-30)))
    rows = logits.reshape(-1, logits.shape[-1])
    return torch.stack([h(r) for r in rows]).reshape(logits.shape[:-1]).to(logits.dtype)
''' + _TABLE},
    "mha_projection_terms_added": {"multi_head_attention": _MHA_HEAD + '''    result = torch.zeros_like(X)
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        head, _ = attention(Q[:, s], K[:, s], V[:, s], d_k)
        result = result + torch.matmul(head, W_O[s])
    return result
'''},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round40_{name}")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()
    if key == "wrong_scale_constant":      # a constant 8 is never said to be d_k ** 1/2 (16 / 2 at d_k = 16)
        assert not any("1/2" in m for _q, _t, _k, m in outcome.failed), outcome.explain()
        assert any("a constant: a second call" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


# --- in process: what each check leaves alone ----------------------------------------------------------------

def _r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _scaled_by(c_of):
    """An attention whose weights are softmax(Q K^T / c_of(d_k))."""
    def fn(Q, K, V, d_k):
        w = torch.softmax(Q @ K.T / c_of(d_k), dim=-1)
        return w @ V, w
    return fn


@pytest.mark.parametrize("c_of, said", [
    (lambda d: d / 2, "here and with d_k = 10"),          # d_k ** 1/2 at every d_k: the precedence hint
    (lambda d: 8.0, "a constant: a second call"),          # 64 ** 0.5 at every d_k: no precedence hint
    (lambda d: 8.0 if d == 16 else 2.5, None),             # d_k / 2 on one input only: nothing added
])
def test_half_d_k_hint_needs_a_second_d_k(c_of, said):
    Q, K, V = _r(6, 16), _r(6, 16, seed=1), _r(6, 10, seed=2)
    fn = _scaled_by(c_of)
    key, _, message = D.pair_evidence(fn(Q, K, V, 16), Q, K, V, 16, fn)
    assert key == "wrong_scale_constant" and "c = 8" in message
    assert ("1/2" in message) == (said is not None and "d_k = 10" in said), message
    if said is None:
        assert "a constant" not in message, message
    else:
        assert said in message, message


def test_first_axis_entropy_variants_left_out_where_they_equal_others():
    square = _r(6, 6)
    assert "entropy_mean_times_first_axis" not in D.entropy_first_axis_variants(square)   # factor 1: right
    assert "entropy_mean_times_first_axis" not in D.entropy_first_axis_variants(_r(1, 5))  # 1/T: the mean
    assert D.entropy_first_axis_variants(_r(5)) == {}                                       # one row: right
    two = D.entropy_first_axis_variants(_r(4, 8))
    assert set(two) == {"entropy_mean_times_first_axis"}          # a 2-D loop over rows is right
    assert "entropy_slices_summed" not in D.entropy_first_axis_variants(_r(3, 1, 5))         # one row a slice
    three = D.entropy_first_axis_variants(_r(2, 3, 5))
    assert tuple(three["entropy_slices_summed"].shape) == (2,)


def test_overwritten_heads_only_for_two_heads_or_more():
    X, Ws = _r(5, 12), [_r(12, 12, seed=s) / 12 ** 0.5 for s in range(1, 5)]
    assert D.mha_overwrite_variants(X, *Ws, 1) == {}
    got = D.mha_overwrite_variants(X, *Ws, 3)["mha_heads_overwritten"]
    from reference import scaled_attention as ref
    assert not torch.allclose(got, ref.multi_head_attention(X, *Ws, 3))
