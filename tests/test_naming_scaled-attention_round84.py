"""Naming scaled-attention's mistakes, round 84 (blind84's code written for any rank, blind85's code that fits the
one example the student ran: their mis-named, generic and partly named variants, said with their cause by kind).

multiply_by_sqrt_dk kept only where a second call on plain random inputs (every size different) is that mistake's
too (q1): on expanded queries (each row one number repeated d_k times) a score of (sum of q) * (sum of k), the
keys given their own feature letter, is sqrt(d_k) times the dot product, a coincidence of that input.

mha_head_width_constant and mha_head_slice_short not said of a head slice n_heads wide (q8, `end = start +
n_heads`): a fixed width is right for another head count too (a third call with n_heads + 1 heads), and an end one
short is d_k - 1 wide; the slice n_heads wide is left to the one-edit search.

sqrt_as_power_of_two (q2): the scaled variance is the unscaled one of the same draws over 4 ** (log2(d_k) // 2)
at d_k = 12, and over 16 at d_k = 32 (a second call).

entropy_small_terms_dropped (q4): the entropy replayed with the terms of p at or below a cut (0.1 ... 5e-5) left out,
where some p of the input is below the cut. entropy_axis_moved_by_reshape (q4): the row entropies of
logits.reshape(T, -1) down dim 0, put back to logits.shape[:-1] (not said on a square matrix, where it is the column
entropy, entropy_wrong_dim).

mha_fused_qkv_three_axis_last (q8): the fused projection viewed (T, d_model, 3) and its last axis taken apart,
replayed.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

_graded = graded_as("scaled-attention", "round84")


def _attention(scores: str) -> dict[str, str]:
    return {"attention": f'''
def attention(Q, K, V, d_k):
    scores = {scores}
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}


SUMS_NOT_DOTS = {
    "einsum_key_letter_j": _attention("torch.einsum('...id,...je->...ij', Q, K) / d_k ** 0.5"),
    "outer_product_of_row_sums": _attention("Q.sum(-1, keepdim=True) * K.sum(-1).unsqueeze(-2) / math.sqrt(d_k)"),
}
TIMES_SQRT = _attention("Q @ K.transpose(-2, -1) * math.sqrt(d_k)")


@pytest.mark.parametrize("name", sorted(SUMS_NOT_DOTS))
def test_sums_of_q_and_k_are_not_multiply_by_sqrt_dk(grader, name):
    assert "multiply_by_sqrt_dk" not in failed_keys(_graded(grader, SUMS_NOT_DOTS[name]))


def test_scores_times_sqrt_dk_keep_their_name(grader):
    assert_named(_graded(grader, TIMES_SQRT), "multiply_by_sqrt_dk", "q1")


def _heads(piece: str) -> dict[str, str]:
    return {"multi_head_attention": f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        a = h * d_k
        outs.append(attention({piece.format(M="Q")}, {piece.format(M="K")}, {piece.format(M="V")}, d_k)[0])
    return torch.cat(outs, dim=-1) @ W_O
'''}


WIDTH_IS_HEAD_COUNT = {
    "slice_to_a_plus_n_heads": _heads("{M}[:, a:a + n_heads]"),
    "narrow_n_heads_wide": _heads("{M}.narrow(1, a, n_heads)"),
}
FIXED_WIDTH = _heads("{M}[:, h * 4:(h + 1) * 4]")
ONE_SHORT = _heads("{M}[:, a:a + d_k - 1]")


@pytest.mark.parametrize("name", sorted(WIDTH_IS_HEAD_COUNT))
def test_slice_n_heads_wide_is_not_a_constant_width(grader, name):
    keys = failed_keys(_graded(grader, WIDTH_IS_HEAD_COUNT[name]))
    assert not keys & {"mha_head_width_constant", "mha_head_slice_short"}, keys


def test_fixed_width_keeps_its_name(grader):
    assert "mha_head_width_constant" in failed_keys(_graded(grader, FIXED_WIDTH))


def test_end_one_short_keeps_its_name(grader):
    assert "mha_head_slice_short" in failed_keys(_graded(grader, ONE_SHORT))


def _variance(root: str) -> dict[str, str]:
    return {"dot_product_variance": f"""
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / ({root})
    return dots.var().item()
"""}


POWER_OF_TWO_ROOT = {
    "bit_length_shift": _variance("1 << ((d_k.bit_length() - 1) // 2)"),
    "floor_of_half_log2": _variance("2 ** math.floor(math.log2(d_k) / 2)"),
}
ROOT_RIGHT = {
    "exact_power_of_two": _variance("2 ** (math.log2(d_k) / 2)"),
    "math_sqrt": _variance("math.sqrt(d_k)"),
}


@pytest.mark.parametrize("name", sorted(POWER_OF_TWO_ROOT))
def test_root_as_power_of_two_is_named(grader, name):
    failed = assert_named(_graded(grader, POWER_OF_TWO_ROOT[name]), "sqrt_as_power_of_two", "q2")
    assert any("for d_k = 32 by 16" in msg for *_, msg in failed)


@pytest.mark.parametrize("name", sorted(ROOT_RIGHT))
def test_root_right_neighbours_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, ROOT_RIGHT[name]))


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


SMALL_TERMS_DROPPED = {
    "masked_fill_below_five_percent": _entropy('''    p = logits.softmax(dim=-1)
    terms = (p * p.log()).masked_fill(p < 0.05, 0.0)
    return -terms.sum(dim=-1)'''),
    "where_above_one_percent_log_softmax": _entropy('''    logp = F.log_softmax(logits, dim=-1)
    p = logp.exp()
    return -torch.where(p >= 1e-2, p * logp, torch.zeros_like(p)).sum(-1)'''),
}
ENTROPY_RIGHT = {
    "zero_only_where_p_is_zero": _entropy('''    p = logits.softmax(dim=-1)
    return -torch.where(p > 0, p * torch.log(p), torch.zeros_like(p)).sum(dim=-1)'''),
    "movedim_then_dim_zero": _entropy('''    x = logits.movedim(-1, 0)
    logp = F.log_softmax(x, dim=0)
    return -(logp.exp() * logp).sum(dim=0)'''),
    "reshape_rows_last_then_back": _entropy('''    T = logits.shape[-1]
    x = logits.reshape(-1, T)
    logp = x.log_softmax(dim=1)
    return -(logp.exp() * logp).sum(dim=1).reshape(logits.shape[:-1])'''),
}
AXIS_BY_RESHAPE = {
    "contiguous_view_classes_first": _entropy('''    x = logits.contiguous().view(logits.shape[-1], -1)
    lp = x.log_softmax(0)
    return -(lp.exp() * lp).sum(0).view(logits.shape[:-1])'''),
    "flatten_then_reshape_softmax_dim0": _entropy('''    T = logits.size(-1)
    x = logits.flatten().reshape(T, -1)
    logp = F.log_softmax(x, dim=0)
    return -(logp.exp() * logp).sum(dim=0).reshape(logits.shape[:-1])'''),
}


@pytest.mark.parametrize("name", sorted(SMALL_TERMS_DROPPED))
def test_small_entropy_terms_dropped_is_named(grader, name):
    assert_named(_graded(grader, SMALL_TERMS_DROPPED[name]), "entropy_small_terms_dropped", "q4")


@pytest.mark.parametrize("name", sorted(ENTROPY_RIGHT))
def test_entropy_right_neighbours_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, ENTROPY_RIGHT[name]))


@pytest.mark.parametrize("name", sorted(AXIS_BY_RESHAPE))
def test_class_axis_moved_by_reshape_is_named(grader, name):
    assert_named(_graded(grader, AXIS_BY_RESHAPE[name]), "entropy_axis_moved_by_reshape", "q4",
                 also=("entropy_wrong_dim",))


def _fused(split: str) -> dict[str, str]:
    return {"multi_head_attention": f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    qkv = X @ torch.cat([W_Q, W_K, W_V], dim=-1)
{split}
    heads = [attention(q, k, v, d_k)[0]
             for q, k, v in zip(Q.split(d_k, dim=-1), K.split(d_k, dim=-1), V.split(d_k, dim=-1))]
    return torch.cat(heads, dim=-1) @ W_O
'''}


THREE_AXIS_LAST = {
    "reshape_minus_one_three_indexed": _fused('''    parts = qkv.reshape(T, -1, 3)
    Q, K, V = parts[..., 0], parts[..., 1], parts[..., 2]'''),
    "unflatten_d_model_three_unbind": _fused('''    Q, K, V = qkv.unflatten(-1, (d_model, 3)).unbind(2)'''),
}
FUSED_RIGHT = {
    "unflatten_three_d_model": _fused('''    Q, K, V = qkv.unflatten(-1, (3, d_model)).unbind(1)'''),
    "chunk_three": _fused('''    Q, K, V = qkv.chunk(3, dim=-1)'''),
}


@pytest.mark.parametrize("name", sorted(THREE_AXIS_LAST))
def test_fused_qkv_three_axis_last_is_named(grader, name):
    assert_named(_graded(grader, THREE_AXIS_LAST[name]), "mha_fused_qkv_three_axis_last", "q8")


@pytest.mark.parametrize("name", sorted(FUSED_RIGHT))
def test_fused_qkv_right_neighbours_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, FUSED_RIGHT[name]))
