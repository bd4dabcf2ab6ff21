"""Naming scaled-attention's mistakes, round 61 (blind61's two generic and two raw variants, the kinds: a library's
documented behaviour misread).

scores_division_rounded (was generic): the scores divided with rounding_mode='trunc' or 'floor', read as mattering
only for integer tensors: named where both results of the same call are the replay's (softmax of the scaled scores
rounded towards zero or down) and attention's source divides with rounding_mode; a plain torch.divide
(rounding_mode=None) keeps full marks, and scores made whole numbers by .long() or by // (one_edit_fix, blind40 and
blind20) are not given the key.

dots_einsum_implicit_summed (was generic: the NaN of a one-number variance, dots_summed_over_samples left unnamed on
purpose): dot_product_variance is NaN and its source has an einsum with no '->' whose every label appears twice
('nd,nd'): implicit mode sums n as well as d; 'nd,nd->n' keeps full marks, torch.dot of the flattened draws (the same
NaN) is not given the key.

mha_buffer_expanded (was raw): torch's "more than one element of the written-to tensor refers to a single memory
location" where multi_head_attention writes into a name it bound to an .expand / .expand_as; the buffer allocated
(new_zeros(T, d_model), or the expand cloned) keeps full marks.

mha_heads_dot_T (was raw): the heads moved to the front with .T on a (T, n_heads, d_k) view (reverses all three axes):
named by the crash of a 2-D attention (K.T) on those 3-D heads with the .T in the source, or by replay where a
batched attention runs on them; .transpose(0, 1) keeps full marks.

Borderline texts (the keys unchanged, words from the source): scaled_flag_ignored says `not scaled` where the flag is
negated with ~ (a Python bool's bitwise NOT); entropy_nan_saturated says why the guard did not hold where its result
is thrown away (terms.masked_fill(...) as a statement) or the clamp is at torch.finfo(...).min.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _attention(scores: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = {scores}
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}


ROUNDED = {
    "div_floor": _attention('torch.div(Q @ K.T, math.sqrt(d_k), rounding_mode="floor")'),
    "method_div_trunc": _attention("(Q @ K.transpose(0, 1)).div(d_k ** 0.5, rounding_mode='trunc')"),
    "div_mm_floor": _attention("torch.div(torch.mm(Q, K.t()), d_k ** 0.5, rounding_mode='floor')"),
}
ROUNDED_RIGHT = {
    "divide_plain": _attention("torch.divide(Q @ K.T, math.sqrt(d_k))"),
    "div_rounding_none": _attention("torch.div(Q @ K.T, math.sqrt(d_k), rounding_mode=None)"),
}


def _variance(dots: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    a = torch.randn(n_samples, d_k, generator=generator)
    b = torch.randn(n_samples, d_k, generator=generator)
    dots = {dots}
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}


EINSUM = {
    "ij_ij": _variance("torch.einsum('ij,ij', a, b)"),
    "spaced_labels": _variance('torch.einsum("bk, bk", a, b)'),
}
EINSUM_RIGHT = {
    "explicit_arrow": _variance('torch.einsum("nd,nd->n", a, b)'),
    "explicit_spaced": _variance("torch.einsum('ij, ij -> i', a, b)"),
}


def _mha(body: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
{body}
'''}


_LOOP = ("    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n{alloc}\n    for h in range(n_heads):\n"
         "        c = slice(h * d_k, (h + 1) * d_k)\n        out[:, c] = attention(Q[:, c], K[:, c], V[:, c], d_k)[0]\n"
         "    return out @ W_O")

EXPANDED = {
    "zeros_row_expanded": _mha(_LOOP.format(alloc="    out = torch.zeros(d_model, dtype=X.dtype).expand(T, -1)")),
    "expand_as_input": _mha(_LOOP.format(alloc="    out = torch.zeros_like(X[:1]).expand_as(X)")),
}
EXPANDED_RIGHT = {
    "new_zeros": _mha(_LOOP.format(alloc="    out = X.new_zeros(T, d_model)")),
    "expand_cloned": _mha(_LOOP.format(alloc="    out = X.new_zeros(1, d_model).expand(T, d_model).clone()")),
}

_BATCHED = ("    w = torch.softmax(Qh @ Kh.transpose(-2, -1) / math.sqrt(d_k), dim=-1)\n"
            "    heads = w @ Vh\n")

DOT_T = {
    "names_bound_then_T": _mha(
        "    q = (X @ W_Q).reshape(T, n_heads, d_k)\n    k = (X @ W_K).reshape(T, n_heads, d_k)\n"
        "    v = (X @ W_V).reshape(T, n_heads, d_k)\n    heads, _ = attention(q.T, k.T, v.T, d_k)\n"
        "    return heads.T.reshape(T, d_model) @ W_O"),
    "batched_inline_replayed": _mha(
        "    Qh, Kh, Vh = ((X @ W).view((T, n_heads, d_k)).T for W in (W_Q, W_K, W_V))\n" + _BATCHED
        + "    return heads.T.reshape(T, d_model) @ W_O"),
}
DOT_T_RIGHT = {
    "transpose_0_1": _mha(
        "    Qh, Kh, Vh = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))\n" + _BATCHED
        + "    return heads.transpose(0, 1).reshape(T, d_model) @ W_O"),
}


def _failed(outcome, question):
    return [(k, m) for q, _t, k, m in outcome.failed if q == question]


@pytest.mark.parametrize("name", sorted(ROUNDED))
def test_rounded_division_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", ROUNDED[name], f"round61_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = _failed(outcome, "q1")
    assert len(q1) >= 4 and all(k == "scores_division_rounded" for k, _m in q1), outcome.explain()
    assert all(k in (None, "scores_division_rounded") for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("Q @ K.T / math.sqrt(d_k)" in m and "rounding" in m for _k, m in q1), outcome.explain()


def test_scores_made_long_are_not_the_rounded_division(grader):
    # whole numbers by a cast, no division that rounds: the same numbers, not this key
    cells = _attention("(Q @ K.T / math.sqrt(d_k)).long().to(Q.dtype)")
    outcome = grade_cells(grader, "scaled-attention", cells, "round61_scores_long")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "scores_division_rounded" for _q, _t, k, _m in outcome.failed), outcome.explain()


def test_floor_division_operator_is_left_to_the_one_edit_search(grader):
    # `//` (floor division of float tensors) gives the floor replay's numbers: one_edit_fix (/ for //) names it
    outcome = grade_cells(grader, "scaled-attention", _attention("torch.matmul(Q, K.T) // math.sqrt(d_k)"),
                          "round61_floor_division_operator")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "scores_division_rounded" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(EINSUM))
def test_implicit_einsum_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", EINSUM[name], f"round61_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q2", "dots_einsum_implicit_summed")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("->" in m and "NaN" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


def test_dot_of_flattened_draws_is_not_the_implicit_einsum(grader):
    outcome = grade_cells(grader, "scaled-attention", _variance("torch.dot(a.flatten(), b.flatten())"),
                          "round61_dot_flattened")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "dots_einsum_implicit_summed" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(EXPANDED))
def test_expanded_buffer_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", EXPANDED[name], f"round61_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q8", "mha_buffer_expanded")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("new_zeros(T, d_model)" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(DOT_T))
def test_dot_t_on_three_axes_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", DOT_T[name], f"round61_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q8", "mha_heads_dot_T")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("transpose(0, 1)" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


TILDE = {
    "if_tilde": {"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    a = torch.randn(n_samples, d_k, generator=generator)
    b = torch.randn(n_samples, d_k, generator=generator)
    dots = (a * b).sum(-1)
    if ~scaled:
        return dots.var().item()
    return (dots / math.sqrt(d_k)).var().item()
'''},
    "named_tilde": {"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q, k = torch.randn(n_samples, d_k, generator=generator), torch.randn(n_samples, d_k, generator=generator)
    raw = ~scaled
    dots = (q * k).sum(dim=1) if raw else (q * k).sum(dim=1) / d_k ** 0.5
    return float(dots.var())
'''},
}


@pytest.mark.parametrize("name", sorted(TILDE))
def test_tilde_flag_said(grader, name):
    outcome = grade_cells(grader, "scaled-attention", TILDE[name], f"round61_{name}")
    assert outcome.failed and all(k == "scaled_flag_ignored" for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("`not scaled`" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    p = torch.softmax(logits, dim=-1)
{body}
'''}


GUARD = {
    "masked_fill_discarded": (_entropy("    terms = p * torch.log(p)\n    terms.masked_fill(p == 0, 0.0)\n"
                                       "    return -terms.sum(dim=-1)"), "masked_fill_"),
    "nan_to_num_discarded": (_entropy("    t = p * p.log()\n    t.nan_to_num(nan=0.0)\n    return -t.sum(-1)"),
                             "nan_to_num_"),
    "clamp_at_finfo_min": (_entropy("    return -(p * torch.log(p.clamp(min=torch.finfo(p.dtype).min))).sum(-1)"),
                           "finfo(dtype).tiny"),
    "clamp_min_finfo_min": (_entropy("    return -(p * p.clamp_min(torch.finfo(logits.dtype).min).log()).sum(dim=-1)"),
                            "finfo(dtype).tiny"),
}


@pytest.mark.parametrize("name", sorted(GUARD))
def test_nan_guard_said(grader, name):
    cells, said = GUARD[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round61_{name}")
    nan = [m for q, t, k, m in outcome.failed if k == "entropy_nan_saturated"]
    assert nan and all(said in m for m in nan), outcome.explain()


RIGHT = {**ROUNDED_RIGHT, **EINSUM_RIGHT, **EXPANDED_RIGHT, **DOT_T_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round61_{name}")
    assert outcome.full_marks, outcome.explain()
