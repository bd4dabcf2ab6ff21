"""Naming scaled-attention's mistakes, round 88 (blind88: defensive, validating code; blind89: sorts, gathers and
masked selections; their uncaught, mis-named and generic variants, said with their cause by kind).

scores_clamped_before_softmax (q1): a new call with wide scaled scores (std about 30, float64, from q1's
test_float64_weights), both results replayed as softmax(S.clamp(-c, c)) (or clamp(max=c)) for the bound c read off the
weights. softmax_sort_permutation_reapplied (q1): the softmax of the sorted scores put back with gather(-1, idx),
replayed for both sort orders. entropy_shift_by_row_min (q4): the entropy not finite in exactly the rows where
exp(logits - row min) overflows float32, and a second call on a row that overflows only under that shift.
mha_head_refolded_column_major (q8): each head's block refolded as .view(d_k, T).T, replayed. mha_heads_capped_by_tokens
(q8): with T < n_heads the layer with fewer heads (h <= T), and right on a second call with T = n_heads.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

_graded = graded_as("scaled-attention", "round88")


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''
def attention(Q, K, V, d_k):
{body}
'''}


CLAMPED = {
    "clamp_symmetric_fifteen_then_softmax": _attention('''    s = torch.clamp(Q @ K.transpose(0, 1) / math.sqrt(d_k), -15, 15)
    w = torch.softmax(s, dim=-1)
    return w @ V, w'''),
    "clip_max_only_on_raw_scores_before_scale": _attention('''    raw = (Q @ K.T).clip(max=100.0)   # exp(100) would overflow float32
    w = F.softmax(raw / d_k ** 0.5, dim=1)
    return torch.matmul(w, V), w'''),
    "minimum_with_a_cap_tensor_then_exp": _attention('''    s = Q @ K.T * d_k ** -0.5
    s = torch.minimum(s, torch.full_like(s, 30.0))
    e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
    w = e / e.sum(dim=-1, keepdim=True)
    return w @ V, w'''),
}
CLAMP_RIGHT = {
    "clamp_of_the_shifted_scores_from_below_only": _attention('''    s = Q @ K.T / math.sqrt(d_k)
    z = (s - s.amax(dim=-1, keepdim=True)).clamp(min=-1e4)
    w = z.exp() / z.exp().sum(dim=-1, keepdim=True)
    return w @ V, w'''),
    "unshifted_exp_normalised": _attention('''    e = torch.exp(Q @ K.T / math.sqrt(d_k))
    w = e / e.sum(dim=-1, keepdim=True)
    return w @ V, w'''),
}


@pytest.mark.parametrize("name", sorted(CLAMPED))
def test_scores_clamped_before_softmax_is_named(grader, name):
    assert_named(_graded(grader, CLAMPED[name]), "scores_clamped_before_softmax", ("q1", "q8"))


@pytest.mark.parametrize("name", sorted(CLAMP_RIGHT))
def test_unclamped_softmax_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, CLAMP_RIGHT[name]))


SORT_GATHER = {
    "descending_sort_gathered_back": _attention('''    s = Q @ K.T / math.sqrt(d_k)
    s_sorted, order = torch.sort(s, dim=-1, descending=True)
    p = torch.softmax(s_sorted, dim=-1)
    w = torch.gather(p, 1, order)
    return w @ V, w'''),
    "ascending_argsort_take_along_dim": _attention('''    s = Q @ K.T / math.sqrt(d_k)
    order = s.argsort(dim=-1)
    p = F.softmax(torch.take_along_dim(s, order, dim=-1), dim=-1)
    w = torch.take_along_dim(p, order, dim=-1)
    return w @ V, w'''),
}
SORT_RIGHT = {
    "descending_sort_scattered_back": _attention('''    s = Q @ K.T / math.sqrt(d_k)
    s_sorted, order = torch.sort(s, dim=-1, descending=True)
    p = torch.softmax(s_sorted, dim=-1)
    w = p.scatter(-1, order, p)
    return w @ V, w'''),
    "ascending_argsort_gathered_with_inverse": _attention('''    s = Q @ K.T / math.sqrt(d_k)
    order = s.argsort(dim=-1)
    p = F.softmax(torch.take_along_dim(s, order, dim=-1), dim=-1)
    w = p.gather(-1, order.argsort(dim=-1))
    return w @ V, w'''),
}


@pytest.mark.parametrize("name", sorted(SORT_GATHER))
def test_sort_permutation_reapplied_is_named(grader, name):
    assert_named(_graded(grader, SORT_GATHER[name]), "softmax_sort_permutation_reapplied", ("q1", "q8"))


@pytest.mark.parametrize("name", sorted(SORT_RIGHT))
def test_sort_undone_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, SORT_RIGHT[name]))


_TABLE = """

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
"""


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": f"""
def softmax_entropy(logits):
{body}
""" + _TABLE}


MIN_SHIFT = {
    "amin_shift_then_exp_over_sum": _entropy('''    z = logits - logits.amin(dim=-1, keepdim=True)   # a safe shift
    e = torch.exp(z)
    p = e / e.sum(dim=-1, keepdim=True)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)'''),
    "min_values_shift_logsumexp_by_hand": _entropy('''    lo = logits.min(dim=-1, keepdim=True).values
    logp = (logits - lo) - torch.log(torch.exp(logits - lo).sum(-1, keepdim=True))
    return -(logp.exp() * logp).sum(-1)'''),
}
MIN_SHIFT_RIGHT = {
    "descending_sort_first_is_the_max": _entropy('''    top = logits.sort(dim=-1, descending=True).values[..., :1]
    z = logits - top
    logp = z - torch.log(torch.exp(z).sum(dim=-1, keepdim=True))
    return -(torch.exp(logp) * logp).sum(dim=-1)'''),
    "ascending_sort_last_is_the_max": _entropy('''    z = logits - torch.sort(logits, dim=-1)[0][..., -1:]
    e = torch.exp(z)
    p = e / e.sum(-1, keepdim=True)
    return -(p * torch.log(p.clamp_min(1e-30))).sum(-1)'''),
}


@pytest.mark.parametrize("name", sorted(MIN_SHIFT))
def test_entropy_shift_by_row_min_is_named(grader, name):
    assert_named(_graded(grader, MIN_SHIFT[name]), "entropy_shift_by_row_min", "q4")


@pytest.mark.parametrize("name", sorted(MIN_SHIFT_RIGHT))
def test_entropy_shift_by_row_max_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, MIN_SHIFT_RIGHT[name]))


def _heads(body: str) -> dict[str, str]:
    return {"multi_head_attention": f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
{body}
'''}


REFOLDED = {
    "flatten_columns_view_d_k_by_t_transposed": _heads('''    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        q, k, v = (M[:, h * d_k:(h + 1) * d_k].flatten().view(d_k, T).T for M in (Q, K, V))
        outs.append(attention(q, k, v, d_k)[0])
    return torch.cat(outs, 1) @ W_O'''),
    "boolean_index_reshape_then_mT": _heads('''    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        keep = torch.zeros(T, d_model, dtype=torch.bool)
        keep[:, h * d_k:(h + 1) * d_k] = True
        q, k, v = (M[keep].reshape(d_k, T).mT for M in (Q, K, V))
        heads.append(attention(q, k, v, d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O'''),
}
REFOLD_RIGHT = {
    "masked_select_view_t_by_d_k": _heads('''    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    col = torch.arange(d_model)
    heads = []
    for h in range(n_heads):
        keep = (col >= h * d_k) & (col < (h + 1) * d_k)
        q, k, v = (M.masked_select(keep).view(T, d_k) for M in (Q, K, V))
        heads.append(attention(q, k, v, d_k)[0])
    return torch.cat(heads, dim=1) @ W_O'''),
    "columns_transposed_then_folded_transposed_back": _heads('''    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        q, k, v = (M[:, h * d_k:(h + 1) * d_k].T.reshape(d_k, T).T for M in (Q, K, V))
        heads.append(attention(q, k, v, d_k)[0])
    return torch.cat(heads, dim=1) @ W_O'''),
}


@pytest.mark.parametrize("name", sorted(REFOLDED))
def test_head_refolded_column_major_is_named(grader, name):
    assert_named(_graded(grader, REFOLDED[name]), "mha_head_refolded_column_major", "q8")


@pytest.mark.parametrize("name", sorted(REFOLD_RIGHT))
def test_head_refolded_row_major_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, REFOLD_RIGHT[name]))


_SLICED = '''    d_k = d_model // h
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, i * d_k:(i + 1) * d_k], K[:, i * d_k:(i + 1) * d_k], V[:, i * d_k:(i + 1) * d_k], d_k)[0]
             for i in range(h)]
    return torch.cat(heads, dim=-1) @ W_O'''
CAPPED = {
    "largest_divisor_at_most_t_by_comprehension": _heads('''    h = max(c for c in range(1, min(n_heads, T) + 1) if d_model % c == 0)
''' + _SLICED),
    "halved_while_more_heads_than_tokens": _heads('''    h = n_heads
    while h > T and h % 2 == 0:
        h //= 2
''' + _SLICED),
}
CAPPED_RIGHT = {
    "head_count_checked_never_changed": _heads('''    h = n_heads
    if d_model % h:
        raise ValueError("d_model must be divisible by n_heads")
''' + _SLICED),
    "heads_checked_against_width_not_tokens": _heads('''    h = n_heads
    while d_model % h:   # never runs: n_heads divides d_model
        h -= 1
''' + _SLICED),
}


@pytest.mark.parametrize("name", sorted(CAPPED))
def test_heads_capped_by_tokens_is_named(grader, name):
    assert_named(_graded(grader, CAPPED[name]), "mha_heads_capped_by_tokens", "q8")


@pytest.mark.parametrize("name", sorted(CAPPED_RIGHT))
def test_head_count_kept_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, CAPPED_RIGHT[name]))
