"""Naming scaled-attention's mistakes, round 70 (blind70's generic and borderline variants, the kinds: split points
given to torch.split as widths, the 1/sqrt(d_k) factor put on both operands).

mha_split_points_as_sizes (q8): torch.split (or Tensor.split) given the positions where the heads start or end,
d_k, 2 d_k, ... (from 0 or from d_k, up to d_model), as np.split or torch.tensor_split take them, where it takes the
widths of the pieces: named from torch's own split_with_sizes message where the sizes it got are d_k apart, from 0
or d_k, at most d_model and two or more (they then sum to more than d_model), and by a replay where they happen to
sum to d_model (3 heads: pieces d_k and 2 d_k wide, or 0, d_k and 2 d_k). Q.split(d_k, ...), a list of n_heads
widths d_k, or the points given to torch.tensor_split keep full marks.

divide_by_dk said with its cause (q2, the key unchanged): where its replay matches and dot_product_variance's source
multiplies or divides two different draws each by a factor that reads d_k (q / sqrt(d_k) and k / sqrt(d_k), at the
draw, by /=, or inline), the message says both operands are scaled and the factors multiply; the scores divided by
d_k keep the key without that clause; one operand scaled, or both by d_k ** -0.25, keep full marks.

My own variants, not the blind set's cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

_graded = graded_as("scaled-attention", "round70")


def _mha(split: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    parts = [{split} for M in (X @ W_Q, X @ W_K, X @ W_V)]
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(*parts)]
    return torch.cat(heads, dim=-1) @ W_O
'''}


SPLIT_POINTS = {
    "method_split_list_comprehension_of_starts": _mha("M.split([h * d_k for h in range(1, n_heads)], dim=-1)"),
    "torch_split_range_from_zero": _mha("torch.split(M, list(range(0, d_model, d_k)), dim=1)"),
    "torch_split_end_offsets": _mha("torch.split(M, [d_k * (h + 1) for h in range(n_heads)], -1)"),
}
SPLIT_RIGHT = {
    "split_by_width": _mha("M.split(d_k, dim=-1)"),
    "split_by_list_of_widths": _mha("torch.split(M, [d_k] * n_heads, dim=-1)"),
    "tensor_split_at_points": _mha("torch.tensor_split(M, list(range(d_k, d_model, d_k)), dim=-1)"),
}


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
{body}
'''}


SCALE_BOTH = {
    "scaled_at_the_draws": _variance('''    s = math.sqrt(d_k) if scaled else 1.0
    q = torch.randn(n_samples, d_k, generator=generator) / s
    k = torch.randn(n_samples, d_k, generator=generator) / s
    return (q * k).sum(dim=-1).var().item()'''),
    "divided_in_place": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    if scaled:
        q /= d_k ** 0.5
        k /= d_k ** 0.5
    return float(torch.var((q * k).sum(1)))'''),
    "factor_inline_on_both": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    factor = 1 / math.sqrt(d_k) if scaled else 1
    return ((q * factor) * (k * factor)).sum(-1).var().item()'''),
}
SCORES_BY_DK = {
    "dots_divided_by_d_k": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / d_k
    return dots.var().item()'''),
}
SCALE_RIGHT = {
    "query_scaled_only": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    if scaled:
        q = q / math.sqrt(d_k)
    return (q * k).sum(-1).var().item()'''),
    "both_by_fourth_root": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    if scaled:
        q, k = q * d_k ** -0.25, k * d_k ** -0.25
    return (q * k).sum(-1).var().item()'''),
}


@pytest.mark.parametrize("name", sorted(SPLIT_POINTS))
def test_split_points_as_sizes_is_named(grader, name):
    failed = assert_named(_graded(grader, SPLIT_POINTS[name]), "mha_split_points_as_sizes", "q8")
    assert any("not their widths" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(SCALE_BOTH))
def test_scale_on_both_operands_is_said(grader, name):
    failed = assert_named(_graded(grader, SCALE_BOTH[name]), "divide_by_dk", "q2")
    assert all("scales both operands" in m and "multiply in q.k" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(SCORES_BY_DK))
def test_scores_by_d_k_keep_the_plain_key(grader, name):
    failed = assert_named(_graded(grader, SCORES_BY_DK[name]), "divide_by_dk", "q2")
    assert not any("both operands" in m for _q, _t, _k, m in failed), failed


RIGHT = {**SPLIT_RIGHT, **SCALE_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, RIGHT[name]))
