"""attention-pipeline, naming round 72 (blind72's kinds: Pythonic and functional idioms; blind73's: defensive,
validating, input-normalising code).

q01: an assert that demands one shape of W_Q, W_K and W_V rejects d_v != d_k. The re-run with d_v = d_k runs and is
right, which named qkv_stacked ("the code stacks tensors of different widths"): MIS-NAMED, nothing is stacked.
qkv_stacked's re-run is no longer taken for the student's own AssertionError; the crash is left to one_edit_fix
(which says which line to change). Stacking code stays qkv_stacked.

q04: blocked entries of -1e9 in float32 and float64 while the float16 mask holds float16's own finfo.min (a floor
max(-1e9, finfo.min), a clamp at -1e9): named neg_1e9_float16 ("a constant float16 cannot hold"), MIS-NAMED. Now a
second call for float16 decides: right there, it is mask_not_dtype_min; a -1e9 for every dtype stays neg_1e9_float16.

q05 / q10: the builtin sum over a tensor (sum(e), sum(terms), a sum over a list of its rows) adds along dim 0:
builtin_sum_over_tensor, replayed (each row's exp(s - max) over the first axis's sum, in S's dtype for NaN; the
entropy terms summed over the batch axis). Before: generic. A builtin sum over the last axis's slices is right.

q08: kernel weights kept in a generator (a generator expression, map) read twice: the second pass sees nothing,
so the row is the right numerator / 0. generator_consumed_twice, from the row and the def's source. Before: generic.

q09: the running sum taken one token early over the right count t + 1: prefix_sum_one_behind, replayed. Before:
generic.

q12: functools.reduce with no start value over the shape tuples: TypeError. reduce_without_initial, from the crash and
the def's reduce call. Before: raw. The same reduce with 0 is right.

q07: self_attention sizes the mask from dim 0 (len(X), X.size(0)) and drops it where it does not fit (an error
caught, a size check): batched inputs get no mask. Named no_causal_mask (the effect); now length_from_wrong_axis where
a second call on one unbatched example is masked and right and the def's causal_additive_mask call reads dim 0. A mask
skipped for batches on purpose (no dim-0 read) is not blamed on the axis.

q13: Y reshaped with the query length T unpacked (or read) from X's shape: right with T' = T (a second call on Y's
first T tokens) and wrong or crashing otherwise. cross_keys_reshaped_with_query_length. Before: generic.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


PROJ = "project_qkv"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"
PARAMS = "qkv_param_count"
CROSS = "cross_attention"


_graded = graded_as("attention-pipeline", "round72")


# --- q01: an assert demanding one shape for the three projections -----------------------------------------------------

def test_assert_on_equal_widths_is_not_qkv_stacked(grader: Grader) -> None:
    cell = ("def project_qkv(X, W_Q, W_K, W_V):\n    assert W_K.shape[-1] == W_V.shape[-1], 'widths differ'\n"
            "    return X @ W_Q, X @ W_K, X @ W_V\n")
    assert_named(_graded(grader, {PROJ: cell}), "one_edit_fix", {"q01", "q07", "q09"})


def test_assert_of_stacked_weights_is_not_qkv_stacked(grader: Grader) -> None:
    cell = ("def project_qkv(X, W_Q, W_K, W_V):\n    for W in (W_K, W_V):\n"
            "        assert tuple(W.shape) == tuple(W_Q.shape)\n    return X @ W_Q, X @ W_K, X @ W_V\n")
    assert "qkv_stacked" not in failed_keys(_graded(grader, {PROJ: cell}))


# --- q04: a -1e9 floor for the wider dtypes, float16 right ------------------------------------------------------------

_Q04 = [
    "def causal_additive_mask(T, dtype, device=None):\n"
    "    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)\n"
    "    return torch.maximum(M, torch.tensor(-1e9, dtype=dtype, device=device))\n",
    "def causal_additive_mask(T, dtype, device=None):\n"
    "    floor = torch.finfo(dtype).min if dtype == torch.float16 else -1e9   # float16 cannot hold -1e9\n"
    "    M = torch.zeros(T, T, dtype=dtype, device=device)\n"
    "    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), floor)\n",
]


@pytest.mark.parametrize("cell", _Q04)
def test_minus_1e9_floor_with_float16_right_is_mask_not_dtype_min(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {MASK: cell}), "mask_not_dtype_min", "q04")
    assert any("float16's own minimum" in m for _, _, _, m in failed), failed


def test_minus_1e9_for_every_dtype_stays_neg_1e9_float16(grader: Grader) -> None:
    cell = ("def causal_additive_mask(T, dtype, device=None):\n    M = torch.zeros(T, T, dtype=dtype, device=device)\n"
            "    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), -1e9)\n")
    assert_named(_graded(grader, {MASK: cell}), "neg_1e9_float16", "q04")


# --- q05 / q10: the builtin sum over a tensor -------------------------------------------------------------------------

_Q05 = [
    "def attention_weights(S, M=None):\n    if M is not None:\n        S = S + M\n"
    "    ex = (S - S.max(dim=-1, keepdim=True).values).exp()\n    total = sum(ex)\n    return ex / total\n",
    "def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
    "    w = torch.exp(Z - torch.amax(Z, -1, keepdim=True))\n    return w / sum(w[i] for i in range(w.shape[0]))\n",
]


@pytest.mark.parametrize("cell", _Q05)
def test_builtin_sum_softmax_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {WEIGHTS: cell}), "builtin_sum_over_tensor", {"q05", "q07", "q09", "q13"})


def test_builtin_sum_over_last_axis_slices_keeps_full_marks(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
            "    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))\n    return e / sum(e.unbind(-1)).unsqueeze(-1)\n")
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


def test_a_sum_over_dim_minus_two_written_out_is_not_the_builtin_sum(grader: Grader) -> None:
    # the scan after this round: `E / E.sum(dim=-2, keepdim=True)` gives on a 2-D S the numbers `sum(E)` gives, and
    # was told "Python's builtin sum(t) does that"; a notebook that never calls the builtin sum is not told so
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
            "    w = torch.exp(Z - Z.amax(dim=-1, keepdim=True))\n    return w / w.sum(-2, keepdim=True)\n")
    keys = failed_keys(_graded(grader, {WEIGHTS: cell}))
    assert keys and "builtin_sum_over_tensor" not in keys, keys


_ENT_TAIL = "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"
_Q10 = [
    "def row_entropy_bits(A):\n    return sum(-A * torch.where(A > 0, A.log2(), torch.zeros_like(A)))\n" + _ENT_TAIL,
    "def row_entropy_bits(A):\n    rows = [-(a * torch.nan_to_num(torch.log2(a), neginf=0.0)) for a in A]\n"
    "    return sum(rows)\n" + _ENT_TAIL,
]


@pytest.mark.parametrize("cell", _Q10)
def test_builtin_sum_entropy_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {ENT: cell}), "builtin_sum_over_tensor", "q10", also=("entropy_wrong_dim",))


def test_builtin_sum_entropy_over_last_axis_keeps_full_marks(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n"
            "    return sum((-A * torch.where(A > 0, A.log2(), torch.zeros_like(A))).unbind(-1))\n" + _ENT_TAIL)
    assert_full_marks(_graded(grader, {ENT: cell}))


# --- q08: kernel weights in a generator read twice --------------------------------------------------------------------

_Q08 = [
    "def nadaraya_watson(q, K, V):\n    w = map(lambda k: torch.exp(k @ q / math.sqrt(q.shape[0])), K)\n"
    "    num = sum(wi * vi for wi, vi in zip(w, V))\n    return num / sum(w)\n",
    "def nadaraya_watson(q, K, V):\n    weights = (torch.exp(torch.dot(q, k) / q.numel() ** 0.5) for k in K)\n"
    "    out, total = 0, 0\n    for wi, vi in zip(weights, V):\n        out = out + wi * vi\n"
    "    for wi in weights:\n        total = total + wi\n    return out / total\n",
]


@pytest.mark.parametrize("cell", _Q08)
def test_generator_read_twice_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {NW: cell}), "generator_consumed_twice", "q08")


def test_kernel_weights_in_a_list_keep_full_marks(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    w = [torch.exp(k @ q / math.sqrt(q.shape[0])) for k in K]\n"
            "    num = sum(wi * vi for wi, vi in zip(w, V))\n    return num / sum(w)\n")
    assert_full_marks(_graded(grader, {NW: cell}))


# --- q09: the running sum one token behind ----------------------------------------------------------------------------

_Q09 = [
    "def prefix_average_matrix(T):\n    W = torch.zeros(T, T, dtype=torch.float64)\n    for t in range(T):\n"
    "        W[t, :t] = 1.0 / (t + 1)\n    return W\n",
    "def prefix_average_matrix(T):\n    c = torch.eye(T, dtype=torch.float64).cumsum(0).roll(1, 0)\n    c[0] = 0\n"
    "    return c / torch.arange(1, T + 1, dtype=torch.float64)[:, None]\n",
]


@pytest.mark.parametrize("cell", _Q09)
def test_running_sum_one_behind_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {AVG: cell}), "prefix_sum_one_behind", "q09")


def test_accumulate_without_initial_keeps_full_marks(grader: Grader) -> None:
    cell = ("import itertools\n\n\ndef prefix_average_matrix(T):\n"
            "    rows = itertools.accumulate(torch.eye(T, dtype=torch.float64))\n"
            "    return torch.stack([r / t for t, r in zip(range(1, T + 1), rows)])\n")
    assert_full_marks(_graded(grader, {AVG: cell}))


# --- q12: functools.reduce with no start value ------------------------------------------------------------------------

_Q12 = [
    "from functools import reduce\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
    "    mats = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]\n    if with_output:\n"
    "        mats.append((d_v, d_model))\n    return reduce(lambda acc, rc: acc + rc[0] * rc[1], mats)\n",
    "import functools\nimport math\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
    "    sizes = [(d_model, d_k)] * 2 + [(d_model, d_v)] + [(d_v, d_model)] * bool(with_output)\n"
    "    return functools.reduce(lambda n, m: n + math.prod(m), sizes)\n",
]


@pytest.mark.parametrize("cell", _Q12)
def test_reduce_without_start_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {PARAMS: cell}), "reduce_without_initial", "q12")


def test_reduce_with_start_keeps_full_marks(grader: Grader) -> None:
    cell = ("import functools\nimport math\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
            "    sizes = [(d_model, d_k)] * 2 + [(d_model, d_v)] + [(d_v, d_model)] * bool(with_output)\n"
            "    return functools.reduce(lambda n, m: n + math.prod(m), sizes, 0)\n")
    assert_full_marks(_graded(grader, {PARAMS: cell}))


# --- q13: Y reshaped with X's token length ----------------------------------------------------------------------------

_Q13 = [
    "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    T = X.size(-2)\n    lead = X.shape[:-2]\n"
    "    Xs = X.reshape(-1, T, X.shape[-1])\n    Ys = Y.reshape(-1, T, Y.shape[-1])\n"
    "    A = attention_weights(scaled_scores(Xs @ W_Q, Ys @ W_K), M)\n    O = A @ (Ys @ W_V)\n"
    "    return O.reshape(*lead, T, -1), A.reshape(*lead, T, -1)\n",
    "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    *lead, T, d = X.shape\n    flat = []\n"
    "    for Z in (X, Y):\n        flat.append(Z.reshape(-1, T, d))\n    Xf, Yf = flat\n"
    "    A = attention_weights(scaled_scores(Xf @ W_Q, Yf @ W_K), M)\n"
    "    return (A @ (Yf @ W_V)).reshape(*lead, T, -1), A.reshape(*lead, T, -1)\n",
]


@pytest.mark.parametrize("cell", _Q13)
def test_y_reshaped_with_query_length_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {CROSS: cell}), "cross_keys_reshaped_with_query_length", "q13")


def test_y_reshaped_with_its_own_length_keeps_full_marks(grader: Grader) -> None:
    cell = ("def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    *lead, T, d = X.shape\n"
            "    Xf, Yf = X.reshape(-1, T, d), Y.reshape(-1, Y.shape[-2], d)\n"
            "    A = attention_weights(scaled_scores(Xf @ W_Q, Yf @ W_K), M)\n"
            "    return (A @ (Yf @ W_V)).reshape(*lead, T, -1), A.reshape(*lead, T, -1)\n")
    assert_full_marks(_graded(grader, {CROSS: cell}))


# --- q07: the mask sized from dim 0, its error swallowed for batches --------------------------------------------------

SELF = "self_attention"
_Q07 = [
    "def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
    "    S = scaled_scores(Q, K)\n    if causal:\n        try:\n"
    "            S = S + causal_additive_mask(len(X), S.dtype, S.device)\n        except RuntimeError:\n"
    "            pass\n    A = attention_weights(S)\n    return A @ V, A\n",
    "def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
    "    S = scaled_scores(Q, K)\n    M = causal_additive_mask(X.size(0), S.dtype, S.device) if causal else None\n"
    "    if M is not None and M.shape[-1] != S.shape[-1]:\n        M = None   # sizes differ: no mask\n"
    "    A = attention_weights(S, M)\n    return A @ V, A\n",
]


@pytest.mark.parametrize("cell", _Q07)
def test_mask_from_dim0_dropped_for_batches_is_length_from_wrong_axis(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {SELF: cell}), "length_from_wrong_axis", {"q07", "q09"})
    assert any("sizes the mask from dim 0" in m for _, _, _, m in failed), failed


def test_mask_skipped_for_batches_stays_no_causal_mask(grader: Grader) -> None:
    cell = ("def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
            "    S = scaled_scores(Q, K)\n    if causal and X.dim() == 2:\n"
            "        S = S + causal_additive_mask(X.shape[-2], S.dtype, S.device)\n"
            "    A = attention_weights(S)\n    return A @ V, A\n")
    assert "length_from_wrong_axis" not in failed_keys(_graded(grader, {SELF: cell}))


def test_mask_from_the_token_axis_in_a_try_keeps_full_marks(grader: Grader) -> None:
    cell = ("def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
            "    S = scaled_scores(Q, K)\n    if causal:\n        try:\n"
            "            S = S + causal_additive_mask(X.shape[-2], S.dtype, S.device)\n        except RuntimeError:\n"
            "            pass\n    A = attention_weights(S)\n    return A @ V, A\n")
    assert_full_marks(_graded(grader, {SELF: cell}))
