"""Ninth blind held-out set for attention-pipeline (Lesson 82), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key comments of `measure.py`. What was read: the student-facing
text of `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the variant names of the eight earlier blind sets, so that their mistakes are not
repeated in the same form.

A mixed class. Beginners: the prefix average divided by T instead of by the row length, the
Nadaraya-Watson output left with a (1, d_v) shape, the entropy summed over the whole matrix, the rank
bound taken as the sum of the two ranks, shift invariance mistaken for scale invariance, the per-query
cost taken for the whole cost. Intermediate: the caller's Q divided in place, log-probabilities returned
as weights, the scores scaled a second time inside the softmax step, keys scored against queries, a
kernel with the wrong sign, a causal mask added to cross-attention whenever it is square.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in words;
`where` lists the questions that may lose points. Correct variants are really correct but written
differently. Every variant was checked against plain torch before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
ANS3 = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"      # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"           # the q11 cell (also defines rank_S_lesson)
COUNT = "qkv_param_count"
CROSS = "cross_attention"
ANS16 = "ans_complexity"

CORRECT = {
    # q01 with torch.matmul, q02 with einsum, q04 from torch.full and triu
    "matmul_einsum_full_triu": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.matmul(X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''
def scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K) * (1.0 / math.sqrt(Q.size(-1)))
''',
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    full = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(full, diagonal=1)
'''},
    # q04 as ones times -max (= finfo.min), q05 as a method chain
    "ones_times_neg_max_softmax_method": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    upper = torch.ones(T, T, dtype=dtype, device=device).triu(1)
    return upper * -torch.finfo(dtype).max
''',
        WEIGHTS: '''
def attention_weights(S, M=None):
    return (S if M is None else S + M).softmax(dim=-1)
'''},
    # q08 with a softmax of the kernel logits, q09 with a column of 1/t
    "nw_softmax_prefix_column": {
        NW: '''
def nadaraya_watson(q, K, V):
    logits = (K * q).sum(dim=-1) / q.numel() ** 0.5
    w = torch.softmax(logits, dim=0)
    return w @ V
''',
        AVG: '''
def prefix_average_matrix(T):
    t = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)
    return torch.ones(T, T, dtype=torch.float64).tril() / t
'''},
    # q10 with nan_to_num and exp2
    "entropy_nan_to_num_exp2": {ENT: '''
def row_entropy_bits(A):
    return -torch.nan_to_num(A * torch.log2(A), nan=0.0).sum(-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''},
    # q11 computed, q12 term by term, q07 and q13 written out without the helpers' names reused
    "computed_counts_explicit_self": {
        RANK: '''
max_rank_S = min(8, 100)

rank_S_lesson = 2
''',
        COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = d_model * d_k + d_model * d_k + d_model * d_v
    return total + (d_v * d_model if with_output else 0)
''',
        SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        A = attention_weights(S, causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device))
    else:
        A = attention_weights(S)
    return torch.matmul(A, V), A
''',
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.matmul(X, W_Q)
    K, V = torch.matmul(Y, W_K), torch.matmul(Y, W_V)
    A = attention_weights(scaled_scores(Q, K), M=M)
    return torch.matmul(A, V), A
'''},
}

WRONG = {
    "q02_divides_callers_q_in_place": ({SCORES: '''
def scaled_scores(Q, K):
    Q /= math.sqrt(Q.shape[-1])         # scale the smaller tensor, not the scores
    return Q @ K.transpose(-2, -1)
'''}, {"mistake": "divides the caller's Q in place to save a multiplication: the returned scores are "
                  "right, but the Q passed in is changed (and calling it twice scales twice)",
       "where": ["q02", "q07", "q09", "q13"]}),
    "q03_shift_for_scale_invariance": ({ANS3: '''
# softmax(x + c) = softmax(x), so a constant factor cannot matter either
ans_scale = "c"
'''}, {"mistake": "takes the softmax's invariance to adding a constant for an invariance to multiplying "
                  "by one, and answers that nothing changes", "where": ["q03"]}),
    "q05_returns_log_probabilities": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.log_softmax(S, dim=-1)       # numerically safer
'''}, {"mistake": "returns log_softmax (log-probabilities, all <= 0) as the attention weights, for "
                  "numerical safety, instead of the probabilities", "where": ["q05", "q07", "q09", "q13"]}),
    "q05_scores_scaled_again": ({WEIGHTS: '''
def attention_weights(S, M=None):
    S = S / math.sqrt(S.shape[-1])
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "divides the scores by a square root again inside the softmax step (here sqrt(T_k)), "
                  "though scaled_scores already scaled them", "where": ["q05", "q07", "q09", "q13"]}),
    "q07_keys_scored_against_queries": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(K, Q)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "passes K and Q to scaled_scores in the wrong order, so S is K Q^T (the transpose of the "
                  "score matrix): row t holds the scores of key t against every query",
       "where": ["q07", "q09"]}),
    "q08_output_keeps_a_row_axis": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0, keepdim=True) / kappa.sum()
'''}, {"mistake": "sums with keepdim=True, so the estimate comes back as a (1, d_v) row instead of a "
                  "(d_v,) vector", "where": ["q08"]}),
    "q08_kernel_sign_flipped": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(-(K @ q) / math.sqrt(q.shape[-1]))    # like a distance kernel
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''}, {"mistake": "puts a minus sign in the kernel as in a distance kernel exp(-d), so the most similar "
                  "keys get the least weight", "where": ["q08"]}),
    "q09_divided_by_T": ({AVG: '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / T
'''}, {"mistake": "divides every row by T instead of by the number of entries it averages (t), so only "
                  "the last row sums to 1", "where": ["q09"]}),
    "q10_entropy_of_whole_matrix": ({ENT: '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=(-2, -1))


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''}, {"mistake": "sums p log p over both the query and the key axes, giving one number per matrix "
                  "instead of one entropy per row", "where": ["q10"]}),
    "q11_rank_as_sum_of_ranks": ({RANK: '''
# rank(Q K^T) <= rank(Q) + rank(K)
max_rank_S = 8 + 8

rank_S_lesson = 2
'''}, {"mistake": "bounds the rank of a product by the sum of the factors' ranks (the rule for sums), "
                  "16, instead of their minimum, d_k = 8", "where": ["q11"]}),
    "q13_causal_whenever_square": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is None and S.shape[-1] == S.shape[-2]:
        M = causal_additive_mask(S.shape[-1], S.dtype, S.device)    # decoder: no peeking
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "adds a causal mask of its own whenever no mask is given and the score matrix is "
                  "square, though cross-attention must apply only the mask it is given",
       "where": ["q13"]}),
    "q16_cost_per_query": ({ANS16: '''
# one new query costs T * d_k multiply-adds: linear
ans_complexity = "a"
'''}, {"mistake": "counts the cost of one query against all keys (linear in T) and answers that the "
                  "whole score matrix grows linearly, missing that there are T queries", "where": ["q16"]}),
}
