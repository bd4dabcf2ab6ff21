"""Blind held-out set 34 for attention-pipeline.

Thirty-fourth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`,
and without running the grader on these variants. What was read: the student-facing text and solution cells
of the master notebook, full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt` (its rank table: rank(S) = 2, rank(Q) = 2, rank(K) = 4 on five tokens),
blind33.py's docstring and first lines (for the format) and only the module docstrings and variant names of
the earlier blind sets (to lean on less-touched questions and not repeat a mistake in the same form).
Every wrong letter of the multiple-choice questions is already carried by an earlier set, so the one
multiple-choice variant here is a slip of a different kind (the right letter stored under a misspelled name).
Public sources: none searched for this round (the time box went to checking the variants); no variant
carries a slip attributed to public code.

Round 34 mix: small slips inside otherwise right code (keys handed back pre-transposed by the projection,
score columns stacked as rows in a key loop, the softmax axis taken from `len(S)` instead of the number of
dims, a broadcast mix summed over the query axis, the numerator of the kernel smoother using the unscaled
scores, `T` typed for `t` in a prefix loop, an inverted `masked_fill` condition, a renamed keyword argument,
a misspelled answer variable), whole-approach mistakes (the causal mask holding half of `finfo.min` "to avoid
overflow", a softmax shifted by the row mean instead of the row max, a residual added to the cross-attention
output, an accumulator in the default dtype), and a number answer of a student who took the lesson's 5x5
score matrix for a full-rank one. Code shapes: loops, stack, broadcasting, masked_fill, NumPy round trip,
einsum, a comprehension. Each wrong variant changes one cell of an otherwise full-marks notebook and holds
exactly one mistake; `where` lists every question whose tests may lose points (q09's hidden test runs
`self_attention` with zero projections, q10's public check may use the pipeline, q13 calls `scaled_scores`
and `attention_weights`). Every variant was checked against plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention`, the full-marks cells) on several shapes and dtypes
(float64, float32, float16; batched; d_k != d_v; T_q != T_k) with a throwaway script under /tmp before it was
written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
MASK_ANS = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

CORRECT = {
    "mT_times_reciprocal_root_scores": {
        SCORES: '''def scaled_scores(Q, K):
    inv_scale = 1.0 / math.sqrt(Q.size(-1))
    return Q.matmul(K.mT) * inv_scale
''',
    },
    "arange_compare_masked_fill_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    idx = torch.arange(T, device=device)
    after = idx.unsqueeze(1) < idx.unsqueeze(0)        # key index > query index
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(after, torch.finfo(dtype).min)
''',
    },
    "einsum_mix_self_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    mask = None
    if causal:
        mask = causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device)
    A = attention_weights(S, mask)
    O = torch.einsum("...qk,...kd->...qd", A, V)
    return O, A
''',
    },
    "row_loop_prefix_average": {
        AVG: '''def prefix_average_matrix(T):
    P = torch.zeros(T, T, dtype=torch.float64)
    for t in range(T):
        P[t, : t + 1] = 1.0 / (t + 1)
    return P
''',
    },
    "numpy_where_log2_entropy": {
        ENT: '''import numpy as np


def row_entropy_bits(A):
    a = A.detach().cpu().numpy()
    logs = np.zeros_like(a)
    np.log2(a, out=logs, where=a > 0)
    H = -(a * logs).sum(axis=-1)
    return torch.from_numpy(np.ascontiguousarray(H)).to(device=A.device, dtype=A.dtype)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    "sampled_low_rank_product_answers": {
        RANK: '''g = torch.Generator().manual_seed(0)
left = torch.randn(100, 8, dtype=torch.float64, generator=g)
right = torch.randn(8, 100, dtype=torch.float64, generator=g)
max_rank_S = int(torch.linalg.matrix_rank(left @ right))

rank_S_lesson = 2
''',
    },
}

WRONG = {
    "q01_keys_returned_pre_transposed": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = X @ W_Q
    K_T = (X @ W_K).transpose(-2, -1)     # ready for Q @ K^T
    V = X @ W_V
    return Q, K_T, V
''',
    }, {"mistake": "K is returned already transposed, (..., d_k, T) instead of (..., T, d_k), so the keys have "
                   "the wrong shape and every caller that transposes them again gets nonsense or a shape error",
        "where": ["q01", "q07", "q09", "q10"]}),

    "q02_key_columns_stacked_as_rows": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    cols = []
    for i in range(K.shape[-2]):
        k_i = K[..., i, :]                                   # (..., d_k)
        cols.append((Q * k_i.unsqueeze(-2)).sum(-1))         # (..., T_q): column i of S
    return torch.stack(cols, dim=-2) / math.sqrt(d_k)
''',
    }, {"mistake": "the per-key score columns are stacked along dim -2, so the result is S transposed "
                   "(keys on the rows, queries on the columns) instead of (..., T_q, T_k)",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    "q04_mask_holds_half_of_finfo_min": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min / 2     # halved so that scores + mask cannot overflow
    return M
''',
    }, {"mistake": "blocked entries hold finfo(dtype).min / 2 instead of finfo(dtype).min as the assignment "
                   "specifies",
        "where": ["q04"]}),

    "q05_softmax_dim_from_len": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=len(S) - 1)
''',
    }, {"mistake": "the softmax axis is taken from len(S) (the size of the first dimension) instead of the "
                   "number of dimensions, so it is not the last (key) axis: a wrong axis or an IndexError",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q05_shift_by_row_mean": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    Z = Z - Z.mean(dim=-1, keepdim=True)       # centre each row for stability
    E = torch.exp(Z)
    return E / E.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "the hand-written softmax subtracts the row mean instead of the row maximum, which is not "
                   "stable: with masked (finfo.min) entries the mean is hugely negative, exp overflows and the "
                   "rows become NaN",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q06_answer_stored_under_misspelled_name": ({
        MASK_ANS: '''ans_masks = "c"
''',
    }, {"mistake": "the right letter is stored in ans_masks, so the variable the question asks for, ans_mask, "
                   "is never defined",
        "where": ["q06"]}),

    "q07_broadcast_mix_summed_over_queries": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = (A.unsqueeze(-1) * V.unsqueeze(-3)).sum(dim=-3)     # (..., T_q, T_k, d_v) -> sum
    return O, A
''',
    }, {"mistake": "in the broadcast product A[..., q, k, None] * V[..., None, k, :] the sum runs over the query "
                   "axis (-3) instead of the key axis (-2), so O is not A @ V",
        "where": ["q07"]}),

    "q08_numerator_from_unscaled_scores": ({
        NW: '''def nadaraya_watson(q, K, V):
    scores = K @ q
    kappa = torch.exp(scores / math.sqrt(q.shape[-1]))
    numerator = (torch.exp(scores)[:, None] * V).sum(dim=0)
    return numerator / kappa.sum()
''',
    }, {"mistake": "the numerator reuses exp of the unscaled scores while the denominator uses the scaled "
                   "kernel, so the weights are not the kernel weights and do not sum to 1",
        "where": ["q08"]}),

    "q08_loop_accumulator_in_default_dtype": ({
        NW: '''def nadaraya_watson(q, K, V):
    num = torch.zeros(V.shape[-1])
    den = 0.0
    scale = math.sqrt(q.shape[-1])
    for k_i, v_i in zip(K, V):
        w = math.exp(float(k_i @ q) / scale)
        num += w * v_i
        den += w
    return num / den
''',
    }, {"mistake": "the accumulator is created with torch.zeros in the default dtype (float32), so float64 "
                   "inputs lose precision and float16/float64 inputs come back as float32",
        "where": ["q08"]}),

    "q09_loop_uses_T_instead_of_t": ({
        AVG: '''def prefix_average_matrix(T):
    P = torch.zeros(T, T, dtype=torch.float64)
    for t in range(1, T + 1):
        P[t - 1, :t] = 1.0 / T
    return P
''',
    }, {"mistake": "each row is filled with 1/T (the sequence length) instead of 1/t (the row number), so "
                   "only the last row sums to 1",
        "where": ["q09"]}),

    "q10_masked_fill_condition_inverted": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.log2(A).masked_fill(A != 0, 0.0)
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "the masked_fill condition is inverted: it zeroes the logs of the nonzero weights and keeps "
                   "log2(0) = -inf at the zeros, so unmasked rows get entropy 0 and masked rows NaN",
        "where": ["q10"]}),

    "q11_lesson_rank_taken_as_matrix_size": ({
        RANK: '''max_rank_S = 8

rank_S_lesson = 5
''',
    }, {"mistake": "the lesson's score matrix is 5 x 5 but only has rank 2 (its queries ask two questions); "
                   "5 assumes it is full rank",
        "where": ["q11"]}),

    "q12_keyword_named_output": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, output=False):
    n = d_model * (2 * d_k + d_v)
    if output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "the keyword argument is named output instead of with_output, so calling it with "
                   "with_output=True raises a TypeError",
        "where": ["q12"]}),

    "q13_query_residual_added": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return X + A @ V, A
''',
    }, {"mistake": "a residual connection X + A V is added to the output (a transformer block's job, not "
                   "attention's): O must be A V, and X (d_model wide) does not even match d_v",
        "where": ["q13"]}),
}
