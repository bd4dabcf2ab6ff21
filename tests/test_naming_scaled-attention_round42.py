"""Naming scaled-attention's mistakes, round 42 (blind41's kinds), through the grader on notebooks built from
full_marks with one cell replaced: multi-head attention whose (T, n_heads, d_k) view is split along the TOKEN
axis (iterated, unbound over dim 0, indexed [t], or attended batched without the transpose), so each attention
call mixes one token's heads, is mha_heads_attend_within_token, replayed on the test's own inputs (merged right,
or through a transpose first); the split along the head axis keeps full marks. An attention whose returned
weights are right but whose output is divided by one sum over the whole matrix (kernel regression's
denominator written kernel.sum()) keeps softmax_whole_matrix, now told of the output (the weights are right),
while a whole-matrix softmax in the weights themselves keeps the key's own text. My own variants, not blind41's
cells; each kind has a right variant of a similar shape that keeps full marks."""
from __future__ import annotations

import math

import pytest
import torch

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r42__diagnose")

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

_OVER_TOTAL = "weights returned with it are right"

WRONG = {
    # --- mha_heads_attend_within_token: the view split along the token axis -------------------------------
    "mha_iterate_token_major_view": ({"multi_head_attention": _MHA_HEAD + '''    Qh, Kh, Vh = (M.view(T, n_heads, d_k) for M in (Q, K, V))
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(Qh, Kh, Vh)]     # one per head
    return torch.stack(outs).reshape(T, d_model) @ W_O
'''}, "mha_heads_attend_within_token"),
    "mha_index_first_axis_in_loop": ({"multi_head_attention": _MHA_HEAD + '''    q4 = Q.reshape(T, n_heads, d_k)
    k4 = K.reshape(T, n_heads, d_k)
    v4 = V.reshape(T, n_heads, d_k)
    concat = torch.empty(T, n_heads, d_k, dtype=X.dtype)
    for i in range(q4.shape[0]):
        concat[i], _ = attention(q4[i], k4[i], v4[i], d_k)
    return concat.reshape(T, d_model) @ W_O
'''}, "mha_heads_attend_within_token"),
    "mha_batched_split_without_transpose": ({"multi_head_attention": _MHA_HEAD + '''\
    q, k, v = (M.view(T, n_heads, d_k) for M in (Q, K, V))
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (w @ v).reshape(T, d_model) @ W_O
'''}, "mha_heads_attend_within_token"),
    # the same split, merged through a transpose (a merge written for (n_heads, T, d_k) heads)
    "mha_unbind_tokens_stack_dim1": ({"multi_head_attention": _MHA_HEAD + '''\
    chunks = [M.view(T, n_heads, d_k).unbind(dim=0) for M in (Q, K, V)]
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(*chunks)]
    return torch.stack(heads, dim=1).reshape(T, d_model) @ W_O
'''}, "mha_heads_attend_within_token"),
    "mha_batched_no_transpose_merge_transposed": ({"multi_head_attention": _MHA_HEAD + '''    q = Q.view(T, n_heads, d_k)
    k = K.view(T, n_heads, d_k)
    v = V.view(T, n_heads, d_k)
    w = F.softmax(torch.matmul(q, k.transpose(1, 2)) / d_k ** 0.5, dim=-1)
    return torch.matmul(w, v).transpose(0, 1).contiguous().view(T, d_model) @ W_O
'''}, "mha_heads_attend_within_token"),
    # --- softmax_whole_matrix told of the output: the weights returned are right --------------------------
    "q1_output_normalised_by_total": ({"attention": _ATTENTION + '''    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    e = scores.exp()
    out = (e / e.sum()) @ V
    return out, weights
'''}, "softmax_whole_matrix"),
    "q1_stable_kernel_output_over_sum_all": ({"attention": _ATTENTION + '''    s = torch.matmul(Q, K.transpose(0, 1)) * d_k ** -0.5
    e = torch.exp(s - s.max())
    weights = e / e.sum(dim=1, keepdim=True)
    return e @ V / e.sum(dim=(0, 1)), weights
'''}, "softmax_whole_matrix"),
}

CORRECT = {
    "mha_unbind_head_axis": {"multi_head_attention": _MHA_HEAD + '''    chunks = [M.view(T, n_heads, d_k).unbind(dim=1) for M in (Q, K, V)]
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(*chunks)]
    return torch.stack(heads, dim=1).reshape(T, d_model) @ W_O
'''},
    "mha_batched_split_with_transpose": {"multi_head_attention": _MHA_HEAD + '''\
    q, k, v = (M.view(T, n_heads, d_k).transpose(0, 1) for M in (Q, K, V))
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (w @ v).transpose(0, 1).reshape(T, d_model) @ W_O
'''},
    "q1_kernel_regression_per_row": {"attention": _ATTENTION + '''    s = torch.matmul(Q, K.transpose(0, 1)) * d_k ** -0.5
    e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
    weights = e / e.sum(dim=1, keepdim=True)
    return e @ V / e.sum(dim=1, keepdim=True), weights
'''},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round42_{name}")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()
    messages = [m for _q, _t, _k, m in outcome.failed]
    if key == "softmax_whole_matrix":    # the output alone: the weights tests pass, the message says so
        assert all(t.split("_")[-1] != "weights" for _q, t, _k, _m in outcome.failed), outcome.explain()
        assert all(_OVER_TOTAL in m and "weights @ V" in m for m in messages), outcome.explain()
        assert not any("each query's weights must sum to 1" in m for m in messages), outcome.explain()
    if key == "mha_heads_attend_within_token":
        assert {q for q, _t, _k, _m in outcome.failed} == {"q8"}, outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


# --- in process: what each check leaves alone ----------------------------------------------------------------

def _draw(T_q=5, T_k=6, d_k=12, d_v=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(n, d, generator=g, dtype=torch.float64) for n, d in ((T_q, d_k), (T_k, d_k), (T_k, d_v)))


def test_whole_matrix_weights_keep_the_keys_own_text():
    """Weights normalised over the whole matrix too: the output-alone message is not said (the pair names it)."""
    Q, K, V = _draw()
    e = torch.exp(Q @ K.T / math.sqrt(12))
    w = e / e.sum()
    D.raise_if_output_over_grand_total((w @ V, w), Q, K, V, 12, "the output")
    found = D.pair_evidence((w @ V, w), Q, K, V, 12)
    assert found is not None and found[0] == "softmax_whole_matrix"


@pytest.mark.parametrize("factor", [lambda e: e.sum(), lambda e: e.sum(dim=-1, keepdim=True)])
def test_output_over_total_needs_the_total(factor):
    """Right weights with the output over one grand total is told; the per-row sum is right; a constant factor
    (the output over T_q) is not the grand total."""
    Q, K, V = _draw()
    e = torch.exp(Q @ K.T / math.sqrt(12))
    w = e / e.sum(dim=-1, keepdim=True)
    out = e @ V / factor(e)
    if factor(e).dim() == 0:
        with pytest.raises(D.Misconception) as m:
            D.raise_if_output_over_grand_total((out, w), Q, K, V, 12, "the output")
        assert m.value.key == "softmax_whole_matrix" and _OVER_TOTAL in str(m.value)
    else:
        D.raise_if_output_over_grand_total((out, w), Q, K, V, 12, "the output")
    D.raise_if_output_over_grand_total((w @ V / 5, w), Q, K, V, 12, "the output")


def test_within_token_variant_is_no_other_mha_variant():
    """On the q8 tests' shapes the new replays equal neither the right output nor any other catalogued one."""
    from reference import scaled_attention as ref
    from autograder.grading.checks import matching_variants
    for seed, (T, d_model, n_heads) in enumerate(((5, 48, 4), (7, 36, 3), (6, 32, 8))):
        g = torch.Generator().manual_seed(seed)
        X = torch.randn(T, d_model, generator=g, dtype=torch.float64)
        Ws = [torch.randn(d_model, d_model, generator=g, dtype=torch.float64) * d_model ** -0.5 for _ in range(4)]
        every = {**ref.mha_variants(X, *Ws, n_heads), **D.mha_slice_variants(X, *Ws, n_heads),
                 **D.mha_overwrite_variants(X, *Ws, n_heads), "right": ref.multi_head_attention(X, *Ws, n_heads)}
        mine = {k: v for k, v in every.items() if k.startswith("mha_heads_attend_within_token")}
        assert len(mine) == 2
        for key, v in mine.items():
            others = {k: o for k, o in every.items() if k != key}
            assert not matching_variants(v.float(), others, torch.float32), (key, T, n_heads)
    assert D.heads_within_token_variants(X, *Ws, 1) == {}
