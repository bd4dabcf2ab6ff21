"""Blind held-out set 31 for attention-pipeline.

Thirty-first blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`,
and without running the grader on these variants. What was read: the student-facing text and solution cells
of the master notebook (its q02 public check for the lesson's Q and K), full_marks.ipynb (whose cells these
replace), `harness.py`, the lesson text `lesson-08-attention-pipeline.txt` (hand-crafted Q, K and their ranks),
blind30.py's docstring and first lines (for the format) and only the module docstrings and variant names of
the earlier blind sets (to lean on less-touched questions and not repeat a mistake in the same form). The
multiple-choice questions q03, q06, q14, q15 and q16 already have every wrong letter in earlier sets, so
q14 appears here only as an answer derived from a badly designed experiment. Public sources searched
(issues corpus): softmax / normalisation over the wrong axis of attention weights, e.g.
PetrochukM/PyTorch-NLP#2 (`nn.Softmax(dim=0)`), Amshaker/SwiftFormer#2 (weights normalised along the
wrong dim, then patched with `F.normalize`), ok1zjf/VASNet#25 (weighted sum taken along the wrong side);
the habit carried into a variant is named in a comment above it.

Round 31 mix: small slips inside otherwise right code (einsum output letters swapped, one einsum letter
used for both token axes, a descending `arange` for the row counts, log-space kernel weights never
exponentiated, a re-normalisation over dim -2, a bias added to the output-projection count), whole-approach
mistakes (`softmin` for `softmax`, a multiplicative use of the additive mask, keys and values stacked into
one tensor), crashes of half-remembered APIs or 2-D-only code (a query loop over the first axis, a Python
entropy loop over rows, `torch.inner` for the kernel-weighted sum), and number / letter answers of a student
who misread the lesson (the lesson example's rank 2 taken as the bound; a shape question answered by an
experiment with T == T'). Code shapes: loops, comprehensions, einsum, logsumexp, NumPy round trip,
`linalg.solve`, `masked_fill`, `torch.stack`, `torch.inner`.
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points (helpers are reused by the pipeline; q09's hidden
test runs `self_attention` with zero projections, q10's public check uses the pipeline / prefix average,
q13 calls `scaled_scores` and `attention_weights`). Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the full-marks cells) on several shapes
and dtypes (float64, float32, float16; batched; d_k != d_v; T_q != T_k) before it was written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
ANS_SCALE = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
ANS_SHAPES = "ans_cross_shapes"

CORRECT = {
    "comprehension_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    big = torch.finfo(dtype).min
    rows = [[0.0 if key <= query else big for key in range(T)] for query in range(T)]
    return torch.tensor(rows, dtype=dtype, device=device)
''',
    },
    "causal_flag_times_mask": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    # multiplying by the flag turns the mask into zeros when causal is False
    M = causal_additive_mask(S.shape[-1], S.dtype, S.device) * causal
    A = attention_weights(S, M)
    return torch.matmul(A, V), A
''',
    },
    "logsumexp_kernel_weights": {
        NW: '''def nadaraya_watson(q, K, V):
    logits = torch.mv(K, q) / math.sqrt(q.numel())
    w = torch.exp(logits - torch.logsumexp(logits, dim=0))
    return (w.unsqueeze(-1) * V).sum(dim=0)
''',
    },
    "numpy_round_trip_prefix": {
        AVG: '''import numpy as np


def prefix_average_matrix(T):
    lower = np.tril(np.ones((T, T)))
    counts = np.arange(1, T + 1, dtype=np.float64)[:, None]
    return torch.from_numpy(lower / counts)
''',
    },
    "masked_fill_from_additive_mask_cross": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        # every nonzero entry of the additive mask is a blocked key
        S = S.masked_fill(M.bool(), torch.finfo(S.dtype).min)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
    },
}

WRONG = {
    "q01_einsum_output_axes_swapped": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    def proj(W):
        return torch.einsum("...td,de->...et", X, W)
    return proj(W_Q), proj(W_K), proj(W_V)
''',
    }, {"mistake": "The einsum output subscripts are written '...et' instead of '...te', so Q, K and V come "
                   "back with tokens as columns, shape (..., d_k, T), instead of one row per token.",
        "where": ["q01", "q07", "q09", "q10"]}),

    "q02_query_loop_over_first_axis": ({
        SCORES: '''def scaled_scores(Q, K):
    scale = math.sqrt(Q.shape[-1])
    rows = [K @ q / scale for q in Q]
    return torch.stack(rows)
''',
    }, {"mistake": "The loop `for q in Q` walks the first axis, which is the query axis only for 2-D input; "
                   "with batch dimensions it iterates over the batch and the products are wrong or crash. "
                   "Use Q @ K.transpose(-2, -1).",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    "q02_einsum_same_letter_for_both_token_axes": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return torch.einsum("...td,...td->...t", Q, K) / math.sqrt(d_k)
''',
    }, {"mistake": "The einsum uses the same letter for the query and the key axis, so it only computes "
                   "q_t . k_t for matching positions (a vector of length T, and a crash when T_q != T_k) "
                   "instead of the full T_q x T_k score matrix '...qd,...kd->...qk'.",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    "q05_softmin_instead_of_softmax": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.nn.functional.softmin(S, dim=-1)
''',
    }, {"mistake": "Uses softmin (softmax of -S): the largest scores get the smallest weights and the "
                   "masked (hugely negative) entries get all the weight. Attention is softmax over the keys.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # rows normalised along the wrong axis, as in PetrochukM/PyTorch-NLP#2 and Amshaker/SwiftFormer#2
    "q07_weights_renormalised_over_queries": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    A = A / A.sum(dim=-2, keepdim=True)   # make sure the weights sum to 1
    return A @ V, A
''',
    }, {"mistake": "The extra 'make sure it sums to 1' step divides by the column sums (dim=-2), so the "
                   "rows of A no longer sum to 1; the softmax already normalised each row, no extra step.",
        "where": ["q07", "q09", "q10"]}),

    "q08_log_weights_not_exponentiated": ({
        NW: '''def nadaraya_watson(q, K, V):
    logits = K @ q / math.sqrt(q.shape[-1])
    w = logits - torch.logsumexp(logits, dim=0)
    return (w[:, None] * V).sum(dim=0)
''',
    }, {"mistake": "Computes the log of the normalised kernel weights (logits - logsumexp) but never "
                   "exponentiates them, so the values are weighted by negative log-weights.",
        "where": ["q08"]}),

    "q08_torch_inner_pairs_last_axes": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return torch.inner(kappa, V) / kappa.sum()
''',
    }, {"mistake": "torch.inner contracts the LAST axis of both arguments, i.e. kappa (T) against V's d_v "
                   "axis: it crashes when T != d_v and is wrong otherwise. The weighted sum is kappa @ V.",
        "where": ["q08"]}),

    "q09_row_counts_reversed": ({
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(T, 0, -1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / counts[:, None]
''',
    }, {"mistake": "The row counts run T, T-1, ..., 1 instead of 1, 2, ..., T, so row t is divided by "
                   "T - t + 1 and the rows do not average their t visible tokens.",
        "where": ["q09", "q10"]}),

    "q10_python_loop_assumes_two_dims": ({
        ENT: '''def row_entropy_bits(A):
    H = [-sum(p * torch.log2(p) for p in row if p > 0) for row in A]
    return torch.tensor([float(h) for h in H], dtype=A.dtype, device=A.device)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "The Python loop over `row in A` only works for a 2-D A: with batch dimensions each "
                   "`row` is a matrix and `if p > 0` on a vector crashes. Compute with tensor ops over dim=-1.",
        "where": ["q10"]}),

    "q11_max_rank_from_the_lesson_example": ({
        RANK: '''max_rank_S = 2

rank_S_lesson = 2
''',
    }, {"mistake": "Takes the lesson example's rank 2 as the bound; the largest possible rank of S is "
                   "min(T, d_k) = d_k = 8 for d_k = 8, T = 100.",
        "where": ["q11"]}),

    "q12_output_bias_counted": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = d_model * d_k + d_model * d_k + d_model * d_v
    if with_output:
        total += d_v * d_model + d_model   # the output layer and its bias
    return total
''',
    }, {"mistake": "Counts a bias vector of d_model for W_O; the block has no biases, so W_O adds only "
                   "d_v * d_model weights.",
        "where": ["q12"]}),

    "q13_keys_and_values_stacked": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K, V = torch.stack([Y @ W_K, Y @ W_V]).unbind(0)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Stacks Y @ W_K and Y @ W_V into one tensor before splitting them, which needs d_k == "
                   "d_v: it crashes whenever the value width differs from the key width.",
        "where": ["q13"]}),

    "q13_mask_multiplied_into_scores": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S * M
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
    }, {"mistake": "Multiplies the scores by the additive mask instead of adding it: open keys (mask 0) "
                   "get score 0 and blocked keys get +-huge scores depending on the sign of S, so the mask "
                   "does not block anything properly.",
        "where": ["q13"]}),

    "q14_answer_from_equal_length_experiment": ({
        ANS_SHAPES: '''_X = torch.randn(4, 6)
_Y = torch.randn(4, 6)   # same length as X
_O, _A = cross_attention(_X, _Y, torch.randn(6, 3), torch.randn(6, 3), torch.randn(6, 5))
ans_cross_shapes = "a" if _A.shape == (_X.shape[0], _X.shape[0]) else "b"
''',
    }, {"mistake": "Decides the shapes by an experiment with T == T', where T x T and T x T' cannot be "
                   "told apart, and so answers (a); S is T x T' (one column per token of Y): answer (b).",
        "where": ["q14"]}),
}
