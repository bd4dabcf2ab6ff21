"""Blind held-out set 35 for attention-pipeline.

Thirty-fifth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`,
and without running the grader on these variants. What was read: the student-facing text and solution cells
of the master notebook, full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt` (its rank print-out, its 3 * d_model * d_k count, its -1e9 mask trick),
blind34.py's docstring and first lines (for the format) and only the module docstrings and variant names of
the earlier blind sets (to lean on less-touched questions and not repeat a mistake in the same form).

Public sources searched (the `search` tool, issues / code / pages corpora): GitHub issues on hand-written
causal attention, public from-scratch scaled-dot-product-attention code, and pages on the "softmax off by
one". Three variants carry a slip seen there and name it in a comment: the zero-score sentinel mask
(duoan/TorchCode issue #17), the additive mask holding 1 instead of 0 on open entries (tinygrad PR #2425),
and the "softmax one" denominator (Evan Miller, "Attention Is Off By One", evanmiller.org, 2023).

Round 35 mix: small slips inside otherwise right code (a flatten-and-reshape projection reshaped back with
W.shape[0], the mask's open entries holding 1, a default mask built T x T in cross-attention, a NumPy round
trip whose np.sqrt scalar promotes float16/float32 scores to float64 under NumPy 2), whole-approach mistakes
(softmax with an extra 1 in the denominator, a causal mask that marks every zero score as blocked, a prefix
matrix rounded to the lesson's four decimals, nats converted to bits with log10(2), parameter shapes
collected in a Python set so equal shapes collapse), a number answer from "rank = number of axes", and
multiple-choice letters not shown by any earlier variant name (q03 a, q06 b, q14 c, q16 d). Code shapes:
flatten/reshape, NumPy round trip, in-place boolean indexing, a set comprehension-style sum, broadcasting
products, torch.mv, torch.special.entr. Each wrong variant changes one cell of an otherwise full-marks
notebook and holds exactly one mistake; `where` lists every question whose tests may lose points (q07, q09's
zero-projection test and q13's self-attention check call project_qkv / scaled_scores / attention_weights
through self_attention, q10's public check and q13 call scaled_scores and attention_weights). Every variant was
checked against plain torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the
full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k; the notebook's lesson inputs) with a throwaway script under /tmp before it was written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
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
SHAPES_ANS = "ans_cross_shapes"
COST_ANS = "ans_complexity"

CORRECT = {
    "flatten_matmul_reshape_back_projection": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    lead = X.shape[:-1]
    rows = X.reshape(-1, X.shape[-1])              # every token of every batch as one row
    out = []
    for W in (W_Q, W_K, W_V):
        out.append((rows @ W).reshape(*lead, W.shape[-1]))
    return tuple(out)
''',
    },
    "broadcast_product_mean_times_root_scores": {
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    # (..., T_q, 1, d_k) * (..., 1, T_k, d_k): the d_k products of every query-key pair
    prods = Q.unsqueeze(-2) * K.unsqueeze(-3)
    # sum / sqrt(d_k) == mean * sqrt(d_k)
    return prods.mean(dim=-1) * math.sqrt(d_k)
''',
    },
    "upcast_max_shift_softmax_weights": {
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else torch.add(S, M)
    work = Z.to(torch.promote_types(Z.dtype, torch.float32))
    work = work - work.amax(dim=-1, keepdim=True)
    e = work.exp()
    return (e / e.sum(dim=-1, keepdim=True)).to(S.dtype)
''',
    },
    "mv_kernel_smoother": {
        NW: '''def nadaraya_watson(q, K, V):
    d_k = K.shape[-1]
    w = torch.exp(torch.mv(K, q) * (1.0 / math.sqrt(d_k)))   # one kernel weight per key
    return torch.mv(V.transpose(0, 1), w) / w.sum()
''',
    },
    "int_arange_divisor_prefix_average": {
        AVG: '''def prefix_average_matrix(T):
    lower = torch.tril(torch.ones(T, T, dtype=torch.float64))
    counts = torch.arange(1, T + 1).unsqueeze(1)          # int64 column 1, 2, ..., T
    return lower / counts
''',
    },
    "entr_times_log2_e_exp2_entropy": {
        ENT: '''def row_entropy_bits(A):
    # entr(p) = -p ln p with entr(0) = 0; 1 / ln 2 = log2(e)
    return torch.special.entr(A).sum(dim=-1) * math.log2(math.e)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
}

WRONG = {
    "q01_reshaped_back_with_d_model_width": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    lead = X.shape[:-1]
    rows = X.reshape(-1, X.shape[-1])
    Q = (rows @ W_Q).reshape(*lead, W_Q.shape[0])
    K = (rows @ W_K).reshape(*lead, W_K.shape[0])
    V = (rows @ W_V).reshape(*lead, W_V.shape[0])
    return Q, K, V
''',
    }, {"mistake": "After flattening the tokens and projecting, the results are reshaped back with W.shape[0] "
                   "(d_model) as the last size instead of W.shape[1] (d_k / d_v); whenever the projection "
                   "changes the width the reshape fails.",
        "where": ["q01", "q07", "q09", "q13"]}),

    "q02_numpy_round_trip_promotes_to_float64": ({
        SCORES: '''import numpy as np


def scaled_scores(Q, K):
    q, k = Q.numpy(), K.numpy()
    d_k = q.shape[-1]
    S = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    return torch.from_numpy(S)
''',
    }, {"mistake": "The scores are computed through NumPy and divided by np.sqrt(d_k), a float64 NumPy scalar; "
                   "under NumPy 2 that promotes float16/float32 scores to float64, so S no longer has the "
                   "input dtype (and the later A @ V mixes float64 weights with float32 values).",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    "q03_answer_rows_flatter": ({
        SCALE_ANS: '''ans_scale = "a"   # without the 1/sqrt(d_k) damping the scores spread, so the rows get flatter
''',
    }, {"mistake": "Picks (a): thinks removing the 1/sqrt(d_k) factor flattens the rows; the unscaled scores "
                   "have variance d_k, so the softmax snaps to one key and the entropy falls toward 0 (b).",
        "where": ["q03"]}),

    # tinygrad PR #2425: its causal attn_mask held 1 (not 0) on the open entries
    "q04_open_entries_hold_one": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    M = torch.ones(T, T, dtype=dtype, device=device)
    return M.masked_fill(future, torch.finfo(dtype).min)
''',
    }, {"mistake": "The open entries of the additive mask hold 1 instead of 0 (started from torch.ones); the "
                   "blocked entries are right and the softmax hides the constant shift, but the mask itself "
                   "is not 0 on and below the diagonal.",
        "where": ["q04", "q05", "q07"]}),

    # Evan Miller, "Attention Is Off By One" (2023): softmax_1(x)_i = exp(x_i) / (1 + sum_j exp(x_j))
    "q05_off_by_one_softmax_extra_one_in_denominator": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    m = S.amax(dim=-1, keepdim=True).clamp(min=0)
    e = torch.exp(S - m)
    # "softmax one": an extra exp(0) = 1 in the denominator lets a row attend to nothing
    return e / (torch.exp(-m) + e.sum(dim=-1, keepdim=True))
''',
    }, {"mistake": "Uses the 'softmax one' variant: the denominator gets an extra 1 (exp(0)), so the rows of "
                   "A sum to less than 1 instead of being probability distributions.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q06_answer_mask_costs_rank": ({
        MASK_ANS: '''ans_mask = "b"
''',
    }, {"mistake": "Picks (b): the mask acts after the scores and has nothing to do with their rank; without "
                   "it position t reads token t+1, the very token it must predict (c).",
        "where": ["q06"]}),

    # duoan/TorchCode issue #17: scores multiplied by a 0/1 mask, then every zero score set to -inf
    "q07_zero_scores_treated_as_blocked": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S * torch.tril(torch.ones_like(S))
        S[S == 0] = torch.finfo(S.dtype).min
    A = attention_weights(S)
    return A @ V, A
''',
    }, {"mistake": "The causal mask is made by zeroing the future scores and then blocking every score equal "
                   "to 0, so visible keys whose score is exactly 0 are blocked too (the lesson's 'it' row; with "
                   "zero projections every key is blocked and each row comes out uniform over all T keys).",
        "where": ["q07", "q09"]}),

    "q09_rounded_to_four_decimals": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    W = W / W.sum(dim=-1, keepdim=True)
    return torch.round(W, decimals=4)      # like the lesson's table
''',
    }, {"mistake": "Rounds the averaging matrix to four decimals like the printed table, so 1/3, 1/6, 1/7 ... "
                   "are no longer exact and the rows do not sum to exactly 1.",
        "where": ["q09", "q10"]}),

    "q10_nats_divided_by_log10_of_two": ({
        ENT: '''def row_entropy_bits(A):
    nats = -torch.xlogy(A, A).sum(dim=-1)
    return nats / math.log10(2)            # change of base to bits


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Converts the entropy from nats to bits by dividing by log10(2) instead of ln(2), mixing two "
                   "change-of-base rules, so every entropy is about 2.3 times too large.",
        "where": ["q10"]}),

    "q11_tensor_rank_taken_as_number_of_axes": ({
        RANK: '''max_rank_S = 2     # S is a T x T matrix: a rank-2 tensor whatever T and d_k are

rank_S_lesson = 2
''',
    }, {"mistake": "Reads 'rank' as the number of tensor axes (S is 2-D) instead of the matrix rank, so the "
                   "largest rank of S for d_k = 8 is given as 2 instead of 8.",
        "where": ["q11"]}),

    "q12_shapes_collected_in_a_set": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = {(d_model, d_k), (d_model, d_k), (d_model, d_v)}
    if with_output:
        shapes.add((d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''',
    }, {"mistake": "Collects the weight shapes in a Python set, so equal shapes collapse into one: W_Q and W_K "
                   "(and W_V when d_v = d_k) are counted once (24 instead of 72 for the lesson's block).",
        "where": ["q12"]}),

    "q13_default_mask_built_square": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is None:
        T = X.shape[-2]
        M = torch.zeros(T, T, dtype=Q.dtype, device=Q.device)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "The default 'no mask' is built T x T from X's length, as in self-attention; the scores are "
                   "T x T', so whenever Y has a different length the addition fails.",
        "where": ["q13"]}),

    "q14_answer_rows_indexed_by_keys": ({
        SHAPES_ANS: '''ans_cross_shapes = "c"
''',
    }, {"mistake": "Picks (c): puts Y's tokens on the rows; the scores have one row per query of X and one "
                   "column per token of Y (T x T'), and O has one row per query (T x d_v), answer (b).",
        "where": ["q14"]}),

    "q16_answer_cubic_like_inversion": ({
        COST_ANS: '''ans_complexity = "d"
''',
    }, {"mistake": "Picks (d): computing S is a product, not an inversion; it has T^2 scores of d_k "
                   "multiply-adds each, so the cost grows quadratically (c).",
        "where": ["q16"]}),
}
