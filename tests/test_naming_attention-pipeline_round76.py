"""attention-pipeline, naming round 76 (blind76's kinds: framework-style, object-oriented and stateful code; blind77's:
a mathematician's habits).

q01: projections through nn.Linear modules that keep their default bias (bias=True), the weights copied in: each of
Q, K, V is X @ W plus one random constant row. Before: generic ("Q does not match"). Now projection_bias_added, by
the replay (the result minus X @ W is one row, the same on every token, not 0) and a read of the notebook's
nn.Linear calls (one without bias=False). The same modules with bias=False, or with the bias zeroed, keep full marks.

q05: an nn.Dropout (or F.dropout) left in training mode on the weights: generic in the measured run, and
weights_not_normalised when nothing happened to be dropped (rows summing to 1/(1 - p): MIS-NAMED). Now
nondeterministic on every q05 failure, by two more calls on the same S and M that differ. Dropout in eval mode (or
training=False) keeps full marks.

q08: the query given a leading axis of size 1 (q.unsqueeze(0), q[None], q.reshape(1, -1)) and never squeezed back:
keepdim_left_on, MIS-NAMED (no reduced axis is kept). Now size_one_axes_added, by a bounded read of the def (its
first parameter given a leading size-1 axis, no squeeze anywhere). A sum with keepdim=True over the keys keeps
keepdim_left_on; the same unsqueeze squeezed back keeps full marks.

q05: log A = Z - logsumexp(Z) by hand with the log-sum-exp of the max-shifted scores and the shift never added back
(each row the softmax times e^m): weights_not_normalised before (borderline: "without dividing" is not what the
code does). Now logsumexp_shift_dropped, by the replay (on the overflowing float16 / float32 cases, the same
function replayed in float64).

q09: each prefix sum divided by t - 1 (Bessel's n - 1, clamped at 1): one_edit_fix before (borderline: why unsaid).
Now prefix_average_bessel, by the replay.

q13: the queries centred on their mean, trusting the softmax's shift invariance: one_edit_fix before (borderline:
why unsaid). Now queries_centred, by the replay (O and A together). Centring the keys instead IS a constant shift
of each row and keeps full marks.

q01 / q07: an einsum string without '...' ('td,dk->tk', 'ij,jd->id') on batched inputs: batched_input_unsupported
before and now (borderline: the hints named no einsum); now the message says it is the einsum string and how to
write it with '...', where torch's own einsum error says no ellipsis was given. With '...' it keeps full marks.

q11: max_rank_S one less than a size (d_k - 1, as a sample covariance's n - 1): rank_from_size_arithmetic before and
now (borderline: the minus one unexplained); now the message adds that one less is a centred matrix's bound and S
subtracts no mean. Other arithmetic (T * d_k) keeps its words.
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

PROJ = "project_qkv"
WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
CROSS = "cross_attention"

_graded = graded_as("attention-pipeline", "round76")


# --- q01: nn.Linear's default bias -----------------------------------------------------------------------------

def _linear_cell(make: str, use: str) -> str:
    return ("import torch.nn as tnn\nimport torch.nn.functional as Fn\n\n\ndef project_qkv(X, W_Q, W_K, W_V):\n"
            "    res = []\n    for W in [W_Q, W_K, W_V]:\n"
            f"        layer = {make}\n        {use}\n    return res[0], res[1], res[2]\n")


def test_linear_default_bias_parameter_weight_is_named(grader: Grader) -> None:
    cell = _linear_cell("tnn.Linear(in_features=W.shape[-2], out_features=W.shape[-1]).to(X.dtype)",
                        "layer.weight = tnn.Parameter(W.mT.contiguous())\n        res.append(layer(X))")
    assert_named(_graded(grader, {PROJ: cell}), "projection_bias_added", "q01", tests=3)


def test_functional_linear_with_module_bias_is_named(grader: Grader) -> None:
    cell = _linear_cell("torch.nn.Linear(W.shape[0], W.shape[1], True, dtype=X.dtype)",
                        "res.append(Fn.linear(X, W.transpose(0, 1), layer.bias))")
    assert_named(_graded(grader, {PROJ: cell}), "projection_bias_added", "q01", tests=3)


def test_linear_without_bias_keeps_full_marks(grader: Grader) -> None:
    cell = _linear_cell("tnn.Linear(W.shape[-2], W.shape[-1], bias=False, dtype=X.dtype)",
                        "layer.weight = tnn.Parameter(W.mT.contiguous())\n        res.append(layer(X))")
    assert_full_marks(_graded(grader, {PROJ: cell}))


def test_linear_with_zeroed_bias_keeps_full_marks(grader: Grader) -> None:
    cell = _linear_cell("torch.nn.Linear(W.shape[0], W.shape[1], dtype=X.dtype)",
                        "tnn.init.zeros_(layer.bias)\n        res.append(Fn.linear(X, W.transpose(0, 1), layer.bias))")
    assert_full_marks(_graded(grader, {PROJ: cell}))


# --- q05: dropout left in training mode ------------------------------------------------------------------------

_ATTN_MODULE = '''import torch.nn as tnn


class _WeightsBlock(tnn.Module):
    def __init__(self, p):
        super().__init__()
        self.drop = tnn.Dropout(p)

    def forward(self, S, M=None):
        return self.drop(torch.softmax(S if M is None else S + M, dim=-1))


_block = _WeightsBlock(0.15){eval}


def attention_weights(S, M=None):
    return _block(S, M)
'''


def test_dropout_module_in_train_mode_is_named(grader: Grader) -> None:
    out = _graded(grader, {WEIGHTS: _ATTN_MODULE.format(eval="")})
    failed = assert_named(out, "nondeterministic", ("q05", "q07", "q09", "q13"))
    assert any(q == "q05" for q, _, _, _ in failed)
    assert all("call .eval()" in msg for _, _, _, msg in failed)   # the module's own switch said


def test_functional_dropout_default_training_is_named(grader: Grader) -> None:
    cell = ("import torch.nn.functional as Fn\n\n\ndef attention_weights(S, M=None):\n"
            "    Z = S + M if M is not None else S\n    return Fn.dropout(Z.softmax(dim=-1), p=0.2)\n")
    out = _graded(grader, {WEIGHTS: cell})
    failed = assert_named(out, "nondeterministic", ("q05", "q07", "q09", "q13"))
    assert not any("call .eval()" in msg for _, _, _, msg in failed)   # no nn.Dropout module here


def test_dropout_module_in_eval_mode_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {WEIGHTS: _ATTN_MODULE.format(eval=".eval()")}))


def test_functional_dropout_not_training_keeps_full_marks(grader: Grader) -> None:
    cell = ("import torch.nn.functional as Fn\n\n\ndef attention_weights(S, M=None):\n"
            "    Z = S + M if M is not None else S\n    return Fn.dropout(Z.softmax(dim=-1), p=0.2, training=False)\n")
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


# --- q08: the query's batch axis never removed -----------------------------------------------------------------

def test_query_indexed_with_none_is_named_size_one_axes(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    q = q[None, :]\n"
            "    w = torch.softmax(q @ K.T / math.sqrt(K.shape[-1]), dim=-1)\n    return w @ V\n")
    assert_named(_graded(grader, {NW: cell}), "size_one_axes_added", "q08")


def test_query_reshaped_to_a_row_is_named_size_one_axes(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    q = q.reshape(1, -1)   # a row vector, as on paper\n"
            "    kappa = torch.exp(q @ K.mT / math.sqrt(K.shape[-1]))\n"
            "    return (kappa / kappa.sum(dim=-1, keepdim=True)) @ V\n")
    assert_named(_graded(grader, {NW: cell}), "size_one_axes_added", "q08")


def test_sum_over_keys_with_keepdim_keeps_keepdim_left_on(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))\n"
            "    return (kappa[:, None] * V).sum(dim=0, keepdim=True) / kappa.sum()\n")
    keys = failed_keys(_graded(grader, {NW: cell}))
    assert "keepdim_left_on" in keys and "size_one_axes_added" not in keys


def test_query_unsqueezed_then_squeezed_keeps_full_marks(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    q = q.unsqueeze(0)\n"
            "    w = torch.softmax(q @ K.T / math.sqrt(K.shape[-1]), dim=-1)\n    return (w @ V).squeeze(0)\n")
    assert_full_marks(_graded(grader, {NW: cell}))


# --- q05: the log-sum-exp shift never added back ---------------------------------------------------------------

def test_hand_logsumexp_of_shifted_scores_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
            "    top = Z.max(dim=-1, keepdim=True).values\n"
            "    log_norm = (Z - top).exp().sum(-1, keepdim=True).log()\n    return (Z - log_norm).exp()\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "logsumexp_shift_dropped", ("q05", "q07", "q13"))


def test_torch_logsumexp_of_shifted_scores_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S + (0 if M is None else M)\n"
            "    c = Z.amax(-1, keepdim=True)\n    return torch.exp(Z - torch.logsumexp(Z - c, dim=-1, keepdim=True))\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "logsumexp_shift_dropped", ("q05", "q07", "q13"))


def test_hand_logsumexp_with_shift_added_back_keeps_full_marks(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
            "    top = Z.max(dim=-1, keepdim=True).values\n"
            "    log_norm = top + (Z - top).exp().sum(-1, keepdim=True).log()\n    return (Z - log_norm).exp()\n")
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


# --- q09: Bessel's n - 1 for a mean --------------------------------------------------------------------------

def test_prefix_counts_minus_one_clamped_is_named(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    counts = torch.arange(1, T + 1, dtype=torch.float64)[:, None]\n"
            "    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / torch.clamp(counts - 1, min=1)\n")
    assert_named(_graded(grader, {AVG: cell}), "prefix_average_bessel", "q09", tests=1)


def test_prefix_loop_dividing_by_t_is_named(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    W = torch.zeros(T, T, dtype=torch.float64)\n"
            "    for t in range(T):   # t + 1 entries, unbiased: divide by t\n"
            "        W[t, : t + 1] = 1.0 / max(t, 1)\n    return W\n")
    assert_named(_graded(grader, {AVG: cell}), "prefix_average_bessel", "q09", tests=1)


def test_prefix_counts_keep_full_marks(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    counts = torch.arange(1, T + 1, dtype=torch.float64)[:, None]\n"
            "    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / counts\n")
    assert_full_marks(_graded(grader, {AVG: cell}))


# --- q13: the queries centred ---------------------------------------------------------------------------------

def _cross(line: str) -> str:
    return ("def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n"
            f"    {line}\n    A = attention_weights(scaled_scores(Q, K), M)\n    return A @ V, A\n")


def test_queries_centred_in_place_is_named(grader: Grader) -> None:
    out = _graded(grader, {CROSS: _cross("Q -= Q.mean(-2, keepdim=True)   # zero-mean queries")})
    assert_named(out, "queries_centred", "q13")


def test_tokens_centred_before_the_query_projection_is_named(grader: Grader) -> None:
    out = _graded(grader, {CROSS: _cross("Q = (X - X.mean(dim=-2, keepdim=True)) @ W_Q")})
    assert_named(out, "queries_centred", "q13")


def test_keys_centred_keeps_full_marks(grader: Grader) -> None:
    # q . mean(k) is one constant per row of scores: the softmax ignores it
    assert_full_marks(_graded(grader, {CROSS: _cross("K = K - K.mean(dim=-2, keepdim=True)")}))


# --- q01 / q07: an einsum string without '...' on batched inputs (batched_input_unsupported, its cause said) ------

SELF = "self_attention"
_EINSUM_CAUSE = "here it is the einsum string"


def test_projection_einsum_without_ellipsis_says_the_string(grader: Grader) -> None:
    cell = ("def project_qkv(X, W_Q, W_K, W_V):\n"
            "    return tuple(torch.einsum('td,dk->tk', X, W) for W in (W_Q, W_K, W_V))\n")
    failed = assert_named(_graded(grader, {PROJ: cell}), "batched_input_unsupported", ("q01", "q07", "q09", "q13"))
    assert any(_EINSUM_CAUSE in msg for q, _, _, msg in failed if q == "q01")


def test_output_einsum_without_ellipsis_says_the_string(grader: Grader) -> None:
    cell = ("def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
            "    S = scaled_scores(Q, K)\n    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None\n"
            "    A = attention_weights(S, M)\n    return torch.einsum('ij,jd->id', A, V), A\n")
    failed = assert_named(_graded(grader, {SELF: cell}), "batched_input_unsupported", ("q07", "q09"))
    assert all(_EINSUM_CAUSE in msg for _, _, _, msg in failed)


def test_output_einsum_with_ellipsis_keeps_full_marks(grader: Grader) -> None:
    cell = ("def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
            "    S = scaled_scores(Q, K)\n    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None\n"
            "    A = attention_weights(S, M)\n    return torch.einsum('...ij,...jd->...id', A, V), A\n")
    assert_full_marks(_graded(grader, {SELF: cell}))


# --- q11: a rank bound one less than d_k, as for a centred matrix (rank_from_size_arithmetic, the minus one said) ----

RANK = "max_rank_S"   # the q11 cell (also defines rank_S_lesson)
_CENTRED = "no rank is lost"


def test_rank_bound_d_k_minus_one_says_nothing_is_centred(grader: Grader) -> None:
    cell = "max_rank_S = 8 - 1   # n - 1, as for a sample covariance\nrank_S_lesson = 2\n"
    failed = assert_named(_graded(grader, {RANK: cell}), "rank_from_size_arithmetic", "q11", tests=1)
    assert _CENTRED in failed[0][3]


def test_rank_bound_min_minus_one_says_nothing_is_centred(grader: Grader) -> None:
    cell = "max_rank_S = min(100, 8) - 1\nrank_S_lesson = 2\n"
    failed = assert_named(_graded(grader, {RANK: cell}), "rank_from_size_arithmetic", "q11", tests=1)
    assert _CENTRED in failed[0][3]


def test_rank_bound_product_keeps_its_words(grader: Grader) -> None:
    cell = "max_rank_S = 100 * 8\nrank_S_lesson = 2\n"
    failed = assert_named(_graded(grader, {RANK: cell}), "rank_from_size_arithmetic", "q11", tests=1)
    assert _CENTRED not in failed[0][3]


def test_rank_bound_min_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {RANK: "max_rank_S = min(100, 8)\nrank_S_lesson = 2\n"}))
