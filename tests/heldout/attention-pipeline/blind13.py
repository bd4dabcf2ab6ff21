"""Thirteenth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, the full-marks
example notebook's cells, `harness.py`, and the variant names of blind.py .. blind12.py (so that no
mistake is repeated in the same form), plus a few public student attention implementations found with a
code search (masked softmax helpers, CS336-style scaled_dot_product_attention), whose habits are carried
over here in our own code: `.T` on batched tensors, `max` without keepdim, `len(x)` for the sequence
length, `-inf` masks.

A realistic first-course class: most of the wrong variants are the slips a beginner makes most often
(batched transpose, keepdim forgotten in a hand-written softmax, a mask built from the wrong length, an
infinite mask, nats instead of bits), the rest are new kinds (inputs pre-scaled before projecting, a
cosine kernel, a prefix matrix of 1/T, the rank read from distinct queries, an inverted flag, a softmax
over the queries written inline) and two multiple-choice answers.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds one mistake, said in the
words a TA would use; `where` lists the questions whose tests it may fail. Correct variants are really
correct but written differently (torch.special.entr, torch.where masks, a hand-written stable softmax,
einsum, logsumexp, explicit loops). Every variant was checked against plain torch before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
PREFIX = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
Q06 = "ans_mask"
Q14 = "ans_cross_shapes"
Q16 = "ans_complexity"

_EFF = '''

def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''

# every question that calls attention_weights / scaled_scores through the pipeline
_PIPE = ["q05", "q07", "q09", "q10", "q13"]

CORRECT = {
    # q10 from torch.special.entr (nats) converted to bits; 2 ** H as torch.exp2
    "entr_in_bits_exp2": {ENT: '''
def row_entropy_bits(A):
    return torch.special.entr(A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''},
    # q04 from index comparisons with torch.where; q05 a hand-written softmax shifted by each row's max
    "where_mask_handwritten_stable_softmax": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    rows = torch.arange(T, device=device).view(T, 1)
    cols = torch.arange(T, device=device).view(1, T)
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(cols > rows, blocked, torch.zeros((), dtype=dtype, device=device))
''',
        WEIGHTS: '''
def attention_weights(S, M=None):
    z = S if M is None else S + M
    z = z - z.amax(dim=-1, keepdim=True)
    e = torch.exp(z)
    return e / e.sum(dim=-1, keepdim=True)
'''},
    # q02 and q07 with einsum throughout
    "einsum_scores_and_mix": {
        SCORES: '''
def scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.size(-1))
''',
        SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...td,dk->...tk", X, W_K)
    V = torch.einsum("...td,dv->...tv", X, W_V)
    S = scaled_scores(Q, K)
    mask = None
    if causal:
        mask = causal_additive_mask(S.shape[-1], S.dtype, S.device)
    A = attention_weights(S, mask)
    O = torch.einsum("...qk,...kv->...qv", A, V)
    return O, A
'''},
    # q08 through logsumexp; q09 filled row by row
    "logsumexp_kernel_loop_prefix": {
        NW: '''
def nadaraya_watson(q, K, V):
    logits = torch.mv(K, q) / math.sqrt(q.numel())
    weights = torch.exp(logits - torch.logsumexp(logits, dim=0))
    return weights @ V
''',
        PREFIX: '''
def prefix_average_matrix(T):
    P = torch.zeros(T, T, dtype=torch.float64)
    for t in range(1, T + 1):
        P[t - 1, :t] = 1.0 / t
    return P
'''},
    # q11 computed, q12 as one expression, q13 through project_qkv, answers in capitals with spaces
    "computed_rank_one_line_count_answers": {
        RANK: '''
_Kl = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Ql = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
max_rank_S = min(8, 100)
rank_S_lesson = int(torch.linalg.matrix_rank(_Ql @ _Kl.T / 2.0))
''',
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * d_k * 2 + d_model * d_v + int(bool(with_output)) * d_v * d_model
''',
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = project_qkv(X, W_Q, W_K, W_V)[0]
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return torch.matmul(A, V), A
''',
        Q14: 'ans_cross_shapes = " B "\n',
        Q16: 'ans_complexity = "C"  # T * T scores\n'},
}

WRONG = {
    # --- the commonest slips, in forms not used before
    "q02_dot_T_on_batched_keys": ({SCORES: '''
def scaled_scores(Q, K):
    scores = torch.matmul(Q, K.T)
    return scores / math.sqrt(K.shape[-1])
'''}, {"mistake": "uses K.T, which reverses every dimension of a batched tensor; swap only the last two "
                  "with K.transpose(-2, -1)", "where": ["q02", *_PIPE]}),
    "q05_row_max_without_keepdim": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    row_max = S.max(dim=-1).values
    e = torch.exp(S - row_max)
    return e / e.sum(dim=-1, keepdim=True)
'''}, {"mistake": "takes each row's max without keepdim=True, so the subtraction broadcasts it along the "
                  "columns: the shift differs inside a row and the softmax comes out wrong (or fails when "
                  "T_q != T_k)", "where": _PIPE}),
    "q07_sequence_length_from_len": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(len(X), S.dtype, S.device)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''}, {"mistake": "takes the sequence length from len(X), which is the batch size for a batched X; use "
                  "X.shape[-2]", "where": ["q07", "q09", "q13"]}),
    "q04_minus_infinity_then_triu": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    neg = torch.full((T, T), float("-inf"), dtype=dtype, device=device)
    return neg.triu(1)
'''}, {"mistake": "fills the blocked entries with -inf instead of torch.finfo(dtype).min: the mask must be "
                  "finite", "where": ["q04", *_PIPE]}),
    "q10_xlogy_in_nats": ({ENT: '''
def row_entropy_bits(A):
    return -torch.xlogy(A, A).sum(dim=-1)
''' + _EFF}, {"mistake": "torch.xlogy uses the natural log, so the entropy is in nats; divide by ln 2 (or use "
                         "log2) to get bits", "where": ["q10"]}),
    # --- new kinds
    "q01_inputs_scaled_before_projection": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    Xs = X / math.sqrt(X.shape[-1])
    return Xs @ W_Q, Xs @ W_K, Xs @ W_V
'''}, {"mistake": "divides X by sqrt(d_model) before projecting: Q, K and V are just X times each matrix, "
                  "the 1/sqrt(d_k) belongs to the scores only", "where": ["q01", "q07", "q09", "q13"]}),
    "q08_cosine_similarity_kernel": ({NW: '''
def nadaraya_watson(q, K, V):
    cos = (K @ q) / (K.norm(dim=1) * q.norm())
    kappa = torch.exp(cos / math.sqrt(q.shape[0]))
    return (kappa.unsqueeze(1) * V).sum(0) / kappa.sum()
'''}, {"mistake": "normalises the dot products into cosine similarities: the kernel is exp(q.k / sqrt(d_k)) "
                  "on the raw dot product", "where": ["q08"]}),
    "q09_one_over_T_everywhere": ({PREFIX: '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / T
'''}, {"mistake": "puts 1/T in every row instead of 1/t for row t: only the last row sums to 1",
       "where": ["q09", "q10"]}),
    "q12_output_flag_inverted": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 2 * d_model * d_k + d_model * d_v
    if not with_output:
        n += d_v * d_model
    return n
'''}, {"mistake": "adds W_O when with_output is False and leaves it out when True: the condition is "
                  "inverted", "where": ["q12"]}),
    "q13_softmax_over_queries_inline": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M
    A = S.softmax(0)
    return A @ V, A
'''}, {"mistake": "softmaxes over dim 0 (the queries, or the batch when batched) instead of the last "
                  "dimension, the keys of Y: the rows of A do not sum to 1", "where": ["q13"]}),
    "q11_rank_from_distinct_queries": ({RANK: '''
max_rank_S = 8
rank_S_lesson = 3  # three different query vectors
'''}, {"mistake": "counts the distinct query vectors (3) for the rank of S; the queries span only 2 "
                  "dimensions, so rank S = 2", "where": ["q11"]}),
    "q14_answer_output_rows_of_y": ({Q14: 'ans_cross_shapes = "D"  # O comes from the values of Y\n'},
                                    {"mistake": "answers d: O has one row per query token of X (T x d_v), "
                                                "not one per token of Y", "where": ["q14"]}),
    "q16_answer_linear_per_token": ({Q16: 'ans_complexity = "A"  # one score per token\n'},
                                    {"mistake": "answers a: there are T x T scores, so doubling T quadruples "
                                                "the work", "where": ["q16"]}),
}
