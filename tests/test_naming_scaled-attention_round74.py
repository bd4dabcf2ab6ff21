"""Naming scaled-attention's mistakes, round 74 (blind74's NumPy habits, blind75's slips of the hand: their
borderline variants, said with their cause by kind).

reciprocal_scale_divided (q1): the weights are multiply_by_sqrt_dk's (the replay), and attention divides by a
reciprocal root (x ** -0.5, 1 / sqrt(x), rsqrt(x), or a name assigned one of these). Multiplying by that scale keeps
full marks.

output_from_scores (q1): the output is no_softmax's (the scaled scores as the weights of V) while the weights the
same call returns are right. Mixing V with the softmaxed weights keeps full marks.

float32_default_buffer (q1): the output comes back float32 (right to float32's precision) for float64 inputs, and
attention stores it into a torch.zeros/empty/ones/full buffer made without dtype=. A buffer with dtype=Q.dtype keeps
full marks.

upcast_never_cast_back (q1): the results are right in float64 for float32 inputs, and attention converts to float64
(.double(), .to(torch.float64), astype(np.float64)...) every one of Q, K, V. Cast back at the end: full marks; an
upcast of the scores (and V) alone stays dtype_changed.

keys_are_queries said of q2 (the replay k = q): its message says each pair's dot product is a vector with itself.

fixed_axes said of q8 where multi_head_attention computes the heads itself (never calls attention) and transposes
the stacked (n_heads, T, d_h) keys with .T: the message names that .T (it reverses all three axes), not "the heads go
as a batch into your attention". .mT keeps full marks.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

_graded = graded_as("scaled-attention", "round74")


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''
def attention(Q, K, V, d_k):
{body}
'''}


RECIPROCAL_DIVIDED = {
    "inverse_root_named_then_divided": _attention('''    inv_root = 1.0 / math.sqrt(d_k)
    scores = Q @ K.transpose(-2, -1) / inv_root
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights'''),
    "negative_half_power_divided_in_place": _attention('''    scores = torch.matmul(Q, K.mT)
    scores /= d_k ** -0.5
    weights = scores.softmax(dim=-1)
    return torch.matmul(weights, V), weights'''),
}
RECIPROCAL_RIGHT = {
    "negative_half_power_multiplied": _attention('''    factor = d_k ** -0.5
    weights = torch.softmax(Q @ K.mT * factor, dim=-1)
    return weights @ V, weights'''),
}

OUTPUT_FROM_SCORES = {
    "logits_mixed_probs_returned": _attention('''    logits = Q @ K.mT / math.sqrt(d_k)
    probs = logits.softmax(-1)
    return logits @ V, probs'''),
    "matmul_of_the_raw_name": _attention('''    s = torch.matmul(Q, K.transpose(-2, -1)) / d_k ** 0.5
    a = torch.softmax(s, dim=-1)
    out = torch.matmul(s, V)
    return out, a'''),
}
OUTPUT_RIGHT = {
    "probs_mixed": _attention('''    logits = Q @ K.mT / math.sqrt(d_k)
    probs = logits.softmax(-1)
    return probs @ V, probs'''),
}

FLOAT32_BUFFER = {
    "empty_rows_filled_in_a_loop": _attention('''    w = torch.softmax(Q @ K.mT / math.sqrt(d_k), dim=-1)
    out = torch.empty(Q.shape[0], V.shape[-1])
    for i in range(Q.shape[0]):
        out[i] = w[i] @ V
    return out, w'''),
    "zeros_accumulated_per_key": _attention('''    w = torch.softmax(Q @ K.mT / math.sqrt(d_k), dim=-1)
    result = torch.zeros(len(Q), V.shape[1])
    for j in range(K.shape[0]):
        result[:, :] += w[:, j:j + 1] * V[j]
    return result, w'''),
}
FLOAT32_BUFFER_RIGHT = {
    "empty_with_the_input_dtype": _attention('''    w = torch.softmax(Q @ K.mT / math.sqrt(d_k), dim=-1)
    out = torch.empty(Q.shape[0], V.shape[-1], dtype=Q.dtype)
    for i in range(Q.shape[0]):
        out[i] = w[i] @ V
    return out, w'''),
}

UPCAST = {
    "to_float64_keyword": _attention('''    Qd, Kd, Vd = (t.to(dtype=torch.float64) for t in (Q, K, V))
    w = torch.softmax(Qd @ Kd.mT / math.sqrt(d_k), dim=-1)
    return w @ Vd, w'''),
    "numpy_astype_round_trip": {"attention": '''
import numpy as np


def attention(Q, K, V, d_k):
    q, k, v = (torch.from_numpy(t.numpy().astype(np.float64)) for t in (Q, K, V))
    w = torch.softmax(q @ k.T / math.sqrt(d_k), dim=-1)
    return w @ v, w
'''},
}
SCORES_UPCAST = {   # a computed value upcast, not the inputs: dtype_changed, as before
    "scores_to_float64_values_doubled": _attention('''    weights = torch.softmax((Q @ K.mT).to(torch.float64) / math.sqrt(d_k), dim=-1)
    return weights @ V.double(), weights'''),
}
UPCAST_RIGHT = {
    "double_then_cast_back": _attention('''    w = torch.softmax(Q.double() @ K.double().mT / math.sqrt(d_k), dim=-1)
    out = w @ V.double()
    return out.to(Q.dtype), w.to(Q.dtype)'''),
}


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
{body}
'''}


DOT_WITH_ITSELF = {
    "einsum_of_q_with_q": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, q)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()'''),
    "squared_norm_of_q": _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q ** 2).sum(-1)
    if scaled:
        dots = dots / d_k ** 0.5
    return dots.var().item()'''),
}


_ATTENTION_2D = '''
def attention(Q, K, V, d_k):
    weights = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''


def _mha(body: str) -> dict[str, str]:
    return {"attention": _ATTENTION_2D, "multi_head_attention": f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_h = d_model // n_heads
{body}
'''}


INLINE_HEADS_T = {
    "view_permute_then_matmul_with_T": _mha('''    qh = (X @ W_Q).view(T, n_heads, d_h).permute(1, 0, 2)
    kh = (X @ W_K).view(T, n_heads, d_h).permute(1, 0, 2)
    vh = (X @ W_V).view(T, n_heads, d_h).permute(1, 0, 2)
    att = torch.softmax(torch.matmul(qh, kh.T) / d_h ** 0.5, dim=-1)
    return torch.matmul(att, vh).permute(1, 0, 2).reshape(T, d_model) @ W_O'''),
    "keys_T_named_first": _mha('''    heads = [M.reshape(T, n_heads, d_h).transpose(0, 1) for M in (X @ W_Q, X @ W_K, X @ W_V)]
    keys_t = heads[1].T
    w = (heads[0] @ keys_t / math.sqrt(d_h)).softmax(-1)
    return (w @ heads[2]).transpose(0, 1).reshape(T, d_model) @ W_O'''),
}
INLINE_HEADS_RIGHT = {
    "view_permute_then_matmul_with_mT": _mha('''    qh = (X @ W_Q).view(T, n_heads, d_h).permute(1, 0, 2)
    kh = (X @ W_K).view(T, n_heads, d_h).permute(1, 0, 2)
    vh = (X @ W_V).view(T, n_heads, d_h).permute(1, 0, 2)
    att = torch.softmax(torch.matmul(qh, kh.mT) / d_h ** 0.5, dim=-1)
    return torch.matmul(att, vh).permute(1, 0, 2).reshape(T, d_model) @ W_O'''),
}


@pytest.mark.parametrize("name", sorted(INLINE_HEADS_T))
def test_fixed_axes_said_of_inline_heads_T(grader, name):
    failed = assert_named(_graded(grader, INLINE_HEADS_T[name]), "fixed_axes", "q8")
    assert all("does not call attention" in m and "reverses all three axes" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(RECIPROCAL_DIVIDED))
def test_reciprocal_scale_divided_is_named(grader, name):
    failed = assert_named(_graded(grader, RECIPROCAL_DIVIDED[name]), "reciprocal_scale_divided", "q1")
    assert all("reciprocal root" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(OUTPUT_FROM_SCORES))
def test_output_from_scores_is_named(grader, name):
    failed = assert_named(_graded(grader, OUTPUT_FROM_SCORES[name]), "output_from_scores", "q1")
    assert all(m.startswith("the output") for _q, _t, _k, m in failed), failed   # the weight tests pass


@pytest.mark.parametrize("name", sorted(FLOAT32_BUFFER))
def test_float32_default_buffer_is_named(grader, name):
    failed = assert_named(_graded(grader, FLOAT32_BUFFER[name]), "float32_default_buffer", "q1")
    assert all("without dtype=" in m or "torch.zeros" in m or "torch.empty" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(UPCAST))
def test_upcast_never_cast_back_is_named(grader, name):
    failed = assert_named(_graded(grader, UPCAST[name]), "upcast_never_cast_back", "q1")
    assert all("converts to float64" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(SCORES_UPCAST))
def test_scores_upcast_stays_dtype_changed(grader, name):
    assert_named(_graded(grader, SCORES_UPCAST[name]), "dtype_changed", "q1")


@pytest.mark.parametrize("name", sorted(DOT_WITH_ITSELF))
def test_dot_with_itself_said_of_q2(grader, name):
    failed = assert_named(_graded(grader, DOT_WITH_ITSELF[name]), "keys_are_queries", "q2")
    assert all("a vector with itself" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("cells", [RECIPROCAL_RIGHT, OUTPUT_RIGHT, FLOAT32_BUFFER_RIGHT, UPCAST_RIGHT,
                                   INLINE_HEADS_RIGHT], ids=["reciprocal", "output", "buffer", "upcast", "heads"])
def test_right_neighbours_keep_full_marks(grader, cells):
    for name in sorted(cells):
        assert_full_marks(_graded(grader, cells[name]))
