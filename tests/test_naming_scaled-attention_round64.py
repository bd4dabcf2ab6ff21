"""Naming scaled-attention's mistakes, round 64 (blind64: code that fits the notebook's own example, the kinds).

size_fixed_from_example: attention loops over a count typed from the lesson's trace (range(3) for its three tokens)
where the count must come from the inputs: the results are those of the first 3 queries (or keys) only, and a second
call with 3 more keeps that count again; a loop over range(Q.shape[0]) keeps full marks.

scores_square_from_query_count: the scores sized (T, T) from the number of queries (a buffer and a key loop run to
Q.shape[0]): a crash with T_q != T_k that goes away, both results right, on the same values cut to as many keys as
queries; the same code sized from K.shape[0] keeps full marks.

output_reshaped_to_query_shape: the output reshaped to Q's shape (reshape(Q.shape), view_as(Q)): the crash's shape
is Q's and its size T_q * d_v, and a second call with values as wide as the queries is right; reshaped to
(Q.shape[0], V.shape[1]) it keeps full marks.

wrong_scale_constant (q2): dot_product_variance scales by one constant whatever d_k (0.5, the lesson's 1/sqrt(4)):
the unscaled variance over the scaled one is the same constant at the test's d_k and at a second d_k of 20.

entropy_first_row_only: softmax_entropy indexes [0] after the row sum (keepdim=True or not): for a batch of rows the
answer is the right answer's first entry; squeezing the kept axis instead keeps full marks.

table_rows_fixed_count: entropy_table loops range(4), the default dims' length: an IndexError for 3 dims, the source's
literal range bound 4, and called again with 4 dims it is right, with 5 the first 4 rows only; range(len(dims)) keeps
full marks (and no one-edit "3 in place of 4" is offered).

integer_sqrt_scale (q4): the table divides by the integer square root (math.isqrt(d), int(d ** 0.5)): every row's
constant is isqrt(d), exact only for the default perfect-square dims; math.sqrt(d) keeps full marks.

mha_bare_squeeze_drops_heads: the batched heads (1, n_heads, T, d_k) lose their batch axis to a bare squeeze(), which
drops the head axis too with one head: the replay of that squeeze then transpose(0, 1) matches; squeeze(0) keeps full
marks.

My own variants, not the blind set's cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
{body}
'''}


FIXED = {
    "query_loop_range_three": _attention(
        "    rows = [torch.softmax(Q[i] @ K.T / math.sqrt(d_k), dim=-1) for i in range(3)]\n"
        "    weights = torch.stack(rows)\n    return weights @ V, weights"),
    "query_slice_three": _attention(
        "    weights = F.softmax(Q[:3] @ K.transpose(0, 1) / d_k ** 0.5, dim=-1)\n    return weights @ V, weights"),
    "key_loop_range_three": _attention(
        "    scores = torch.stack([Q @ K[j] for j in range(3)], dim=-1) / math.sqrt(d_k)\n"
        "    weights = torch.softmax(scores, dim=-1)\n    return weights @ V[:3], weights"),
}
FIXED_RIGHT = {
    "query_loop_from_shape": _attention(
        "    rows = [torch.softmax(Q[i] @ K.T / math.sqrt(d_k), dim=-1) for i in range(Q.shape[0])]\n"
        "    weights = torch.stack(rows)\n    return weights @ V, weights"),
}

SQUARE = {
    "buffer_t_by_t": _attention(
        "    T = Q.shape[0]\n    scores = Q.new_zeros(T, T)\n    for i in range(T):\n        for j in range(T):\n"
        "            scores[i, j] = torch.dot(Q[i], K[j])\n"
        "    weights = F.softmax(scores / math.sqrt(d_k), dim=-1)\n    return weights @ V, weights"),
    "column_loop_to_len_q": _attention(
        "    scores = torch.zeros(len(Q), len(Q), dtype=Q.dtype)\n    for j in range(len(Q)):\n"
        "        scores[:, j] = Q @ K[j]\n    weights = torch.softmax(scores / d_k ** 0.5, -1)\n"
        "    return weights @ V, weights"),
}
SQUARE_RIGHT = {
    "column_loop_to_len_k": _attention(
        "    scores = torch.zeros(len(Q), len(K), dtype=Q.dtype)\n    for j in range(len(K)):\n"
        "        scores[:, j] = Q @ K[j]\n    weights = torch.softmax(scores / d_k ** 0.5, -1)\n"
        "    return weights @ V, weights"),
}

RESHAPED = {
    "reshape_q_shape": _attention(
        "    weights = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)\n"
        "    return torch.matmul(weights, V).reshape(Q.shape), weights"),
    "view_as_q": _attention(
        "    weights = F.softmax(Q @ K.T / d_k ** 0.5, dim=-1)\n    out = weights @ V\n"
        "    return out.view_as(Q), weights"),
    "reshape_q_sizes": _attention(
        "    weights = F.softmax(Q @ K.T / d_k ** 0.5, dim=-1)\n"
        "    return (weights @ V).reshape(Q.shape[0], Q.shape[1]), weights"),
}
RESHAPED_RIGHT = {
    "reshape_rows_by_v_width": _attention(
        "    weights = F.softmax(Q @ K.T / d_k ** 0.5, dim=-1)\n"
        "    return (weights @ V).reshape(Q.shape[0], V.shape[1]), weights"),
}


def _variance(scale: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = {scale}
    return dots.var().item()
'''}


CONSTANT = {
    "times_half": _variance("dots * 0.5"),
    "over_two": _variance("dots / 2.0"),
    "over_root_eight": _variance("dots / math.sqrt(8)"),
}
CONSTANT_RIGHT = {"power_minus_half": _variance("dots * d_k ** -0.5")}


def _entropy(ret: str) -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    p = F.softmax(logits, dim=-1)
{ret}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        results.append({{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return results
'''}


FIRST = {
    "keepdim_then_index": _entropy("    H = -(p * torch.log(p + 1e-9)).sum(dim=-1, keepdim=True)\n    return H[0]"),
    "torch_sum_keepdim_index": _entropy("    return torch.sum(-p * torch.log(p + 1e-9), -1, keepdim=True)[0]"),
}
FIRST_RIGHT = {
    "keepdim_then_squeeze": _entropy("    H = -(p * torch.log(p + 1e-9)).sum(dim=-1, keepdim=True)\n"
                                     "    return H.squeeze(-1)"),
}


def _table(loop: str, scale: str = "math.sqrt(d)") -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def _row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d); k = torch.randn(5, d)
    raw = (q @ k.T)[0]
    scaled = raw / {scale}
    return {{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
{loop}
'''}


COUNT = {
    "index_loop_four": _table("    results = []\n    for i in range(4):\n        results.append(_row(dims[i], seed))\n"
                              "    return results"),
    "comprehension_four": _table("    return [_row(dims[j], seed) for j in range(4)]"),
}
COUNT_RIGHT = {"comprehension_len_dims": _table("    return [_row(dims[j], seed) for j in range(len(dims))]")}

ISQRT = {
    "math_isqrt": _table("    return [_row(d, seed) for d in dims]", "math.isqrt(d)"),
    "int_of_power_half": _table("    return [_row(d, seed) for d in dims]", "int(d ** 0.5)"),
    "int_of_math_sqrt": _table("    return [_row(d, seed) for d in dims]", "int(math.sqrt(d))"),
}
ISQRT_RIGHT = {"power_half": _table("    return [_row(d, seed) for d in dims]", "d ** 0.5")}


def _mha(merge: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    def split(Y):
        return Y.unsqueeze(0).reshape(1, T, n_heads, d_k).permute(0, 2, 1, 3)
    q, k, v = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    w = torch.softmax(q @ k.transpose(-1, -2) / d_k ** 0.5, dim=-1)
    heads = w @ v
{merge}
    return concat @ W_O
'''}


SQUEEZE = {
    "torch_squeeze_view": _mha("    concat = torch.squeeze(heads).transpose(0, 1).contiguous().view(T, d_model)"),
    "method_squeeze_reshape": _mha("    h = heads.squeeze()\n    concat = h.transpose(0, 1).reshape(T, d_model)"),
}
SQUEEZE_RIGHT = {
    "squeeze_batch_axis": _mha("    concat = heads.squeeze(0).transpose(0, 1).reshape(T, d_model)"),
}

KINDS = {
    "size_fixed_from_example": (FIXED, {"q1", "q8"}),
    "scores_square_from_query_count": (SQUARE, {"q1"}),
    "output_reshaped_to_query_shape": (RESHAPED, {"q1"}),
    "wrong_scale_constant": (CONSTANT, {"q2"}),
    "entropy_first_row_only": (FIRST, {"q4"}),
    "table_rows_fixed_count": (COUNT, {"q4"}),
    "integer_sqrt_scale": (ISQRT, {"q4"}),
    "mha_bare_squeeze_drops_heads": (SQUEEZE, {"q8"}),
}
WRONG = [(key, name) for key, (cases, _qs) in KINDS.items() for name in sorted(cases)]


@pytest.mark.parametrize(("key", "name"), WRONG)
def test_kind_is_named(grader, key, name):
    cases, questions = KINDS[key]
    outcome = grade_cells(grader, "scaled-attention", cases[name], f"round64_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    failed = [(q, k) for q, _t, k, _m in outcome.failed]
    assert failed and all(q in questions and k == key for q, k in failed), outcome.explain()


RIGHT = {**FIXED_RIGHT, **SQUARE_RIGHT, **RESHAPED_RIGHT, **CONSTANT_RIGHT, **FIRST_RIGHT, **COUNT_RIGHT,
         **ISQRT_RIGHT, **SQUEEZE_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round64_{name}")
    assert outcome.full_marks, outcome.explain()
