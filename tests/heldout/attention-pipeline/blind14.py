"""Fourteenth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
blind13.py and the variant names of blind.py .. blind12.py (so that no mistake is repeated in the same
form), and a few public student attention implementations found with a code search (Annotated-Transformer
style `scores.masked_fill(mask == 0, -1e9)`, d2l's Nadaraya-Watson with `bmm` and `unsqueeze`, hand-written
masked softmax helpers), whose habits are carried over here in our own code.

A realistic first-course class: the most frequent slips come first, in forms no earlier set used (a
boolean-style `masked_fill(M == 0, ...)` on the additive mask, a shape unpacked into two names, a mask built
with a hand loop and the wrong comparison, entropy from torch.distributions in nats, a parameter count that
assumes d_v = d_k, a 0/1 tril added as if it were an additive mask); then new kinds (Q, K, V stacked into one
tensor, softmax applied on top of the kernel weights, a prefix loop that skips the first row, the rank of K
read for the rank of S, values of the cross sequence projected with W_K, scores scaled by d_model inside
self_attention, a softmax shifted by the global maximum) and two multiple-choice answers.

Each wrong variant changes cells of an otherwise full-marks notebook and holds exactly one mistake, said in
the words a TA would use; `where` lists the questions whose tests it may fail. Correct variants are really
correct but written differently (log_softmax().exp(), nansum entropy, explicit Python loops, d2l-style
unsqueeze/matmul pooling, F.linear projections, swapaxes). Every variant was checked against plain torch
before it was graded.

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
Q03 = "ans_scale"
Q15 = "ans_cross_causal"
Q14 = "ans_cross_shapes"
Q16 = "ans_complexity"

_EFF = '''

def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''

# every question that calls attention_weights / scaled_scores through the pipeline
_PIPE = ["q05", "q07", "q09", "q10", "q13"]

CORRECT = {
    # q05 through log_softmax then exp; q10 with nansum to drop the 0 * -inf terms
    "log_softmax_exp_nansum_entropy": {
        WEIGHTS: '''
import torch.nn.functional as F


def attention_weights(S, M=None):
    logits = S if M is None else S + M
    return F.log_softmax(logits, dim=-1).exp()
''',
        ENT: '''
def row_entropy_bits(A):
    terms = A * torch.log2(A)
    return -torch.nansum(terms, dim=-1)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
'''},
    # q08 with an explicit Python loop over the keys; q09 from a broadcast arange
    "python_loop_kernel_arange_prefix": {
        NW: '''
def nadaraya_watson(q, K, V):
    d_k = q.shape[0]
    num = torch.zeros(V.shape[1], dtype=V.dtype, device=V.device)
    den = 0.0
    for i in range(K.shape[0]):
        w = math.exp(float(torch.dot(q, K[i])) / math.sqrt(d_k))
        num = num + w * V[i]
        den = den + w
    return num / den
''',
        PREFIX: '''
def prefix_average_matrix(T):
    t = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / t
'''},
    # q02 with swapaxes and a multiplied reciprocal; q04 from a full matrix cut with triu
    "swapaxes_scores_full_triu_mask": {
        SCORES: '''
def scaled_scores(Q, K):
    inv = 1.0 / math.sqrt(K.shape[-1])
    return torch.matmul(Q, K.swapaxes(-1, -2)) * inv
''',
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    big = torch.finfo(dtype).min
    return torch.full((T, T), big, dtype=dtype, device=device).triu(diagonal=1)
'''},
    # q01 through F.linear (weight is (out, in), so transpose); q08 pooled d2l-style with unsqueeze/squeeze
    "functional_linear_d2l_pooling": {
        PROJ: '''
from torch.nn import functional as F


def project_qkv(X, W_Q, W_K, W_V):
    return tuple(F.linear(X, W.transpose(0, 1)) for W in (W_Q, W_K, W_V))
''',
        NW: '''
def nadaraya_watson(q, K, V):
    scores = (K @ q) / math.sqrt(K.shape[-1])
    w = torch.softmax(scores, dim=0)
    return (w.unsqueeze(0) @ V).squeeze(0)
'''},
    # q11 computed from the student's own scaled_scores, q12 a sum of block sizes, q13 step by step,
    # answers with odd spacing and capitals
    "computed_answers_block_sizes": {
        RANK: '''
_K2 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q2 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
max_rank_S = 8  # rank <= d_k, and T = 100 > 8
rank_S_lesson = torch.linalg.matrix_rank(scaled_scores(_Q2, _K2)).item()
''',
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    blocks = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        blocks.append((d_v, d_model))
    return sum(r * c for r, c in blocks)
''',
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    queries = torch.matmul(X, W_Q)
    keys = torch.matmul(Y, W_K)
    values = torch.matmul(Y, W_V)
    scores = scaled_scores(queries, keys)
    weights = attention_weights(scores, M)
    out = torch.matmul(weights, values)
    return out, weights
''',
        Q03: 'ans_scale = "B "  # scores grow like sqrt(d_k): near one-hot rows\n',
        Q16: 'ans_complexity = " c"\n'},
}

WRONG = {
    # --- the commonest slips, in forms not used before
    "q05_masked_fill_where_mask_is_zero": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S.masked_fill(M == 0, -1e9)
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "treats the additive mask like a 0/1 keep-mask (masked_fill where M == 0): that blocks "
                  "exactly the open entries; M is already additive, just add it to S",
       "where": _PIPE}),
    "q02_shape_unpacked_into_two_names": ({SCORES: '''
def scaled_scores(Q, K):
    n_q, d_k = Q.shape
    return (Q @ K.transpose(-2, -1)) / math.sqrt(d_k)
'''}, {"mistake": "unpacks Q.shape into two names, which only works for 2-D inputs; read d_k as "
                  "Q.shape[-1] so batched inputs work", "where": ["q02", *_PIPE]}),
    "q04_loop_blocks_lower_triangle": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    for i in range(T):
        for j in range(T):
            if j < i:
                M[i, j] = torch.finfo(dtype).min
    return M
'''}, {"mistake": "the loop blocks j < i, the keys before each query; the future keys are j > i",
       "where": ["q04", *_PIPE]}),
    "q10_categorical_entropy_nats": ({ENT: '''
from torch.distributions import Categorical


def row_entropy_bits(A):
    return Categorical(probs=A).entropy()
''' + _EFF}, {"mistake": "Categorical.entropy() is in nats (natural log); divide by ln 2 to get bits",
              "where": ["q10"]}),
    "q12_three_blocks_of_d_k": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = 0
    for _ in ("Q", "K", "V"):
        total += d_model * d_k
    if with_output:
        total += d_v * d_model
    return total
'''}, {"mistake": "counts W_V as d_model x d_k: W_V is d_model x d_v, and d_v need not equal d_k",
       "where": ["q12"]}),
    "q07_zero_one_tril_added": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = S.shape[-1]
        S = S + torch.tril(torch.ones(T, T, dtype=S.dtype, device=S.device))
    A = attention_weights(S)
    return A @ V, A
'''}, {"mistake": "adds a 0/1 lower-triangular matrix to the scores: that only nudges the past up by 1 "
                  "and blocks nothing; use causal_additive_mask (0 open, finfo.min blocked)",
       "where": ["q07", "q09"]}),
    # --- new kinds
    "q01_qkv_stacked_into_one_tensor": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return torch.stack([X @ W_Q, X @ W_K, X @ W_V])
'''}, {"mistake": "stacks Q, K and V into one tensor, which fails when d_v != d_k; return the tuple "
                  "(Q, K, V)", "where": ["q01", "q07", "q09", "q13"]}),
    "q08_softmax_on_top_of_kernel": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    w = torch.softmax(kappa, dim=0)
    return w @ V
'''}, {"mistake": "exponentiates twice: kappa is already exp(score), so normalise it by its sum, do not "
                  "softmax it again", "where": ["q08"]}),
    "q09_loop_starts_at_second_row": ({PREFIX: '''
def prefix_average_matrix(T):
    P = torch.zeros(T, T, dtype=torch.float64)
    for t in range(1, T):
        P[t, : t + 1] = 1.0 / (t + 1)
    return P
'''}, {"mistake": "the loop starts at row index 1, so the first row stays all zeros; it must hold a 1 "
                  "in its first column", "where": ["q09", "q10"]}),
    "q11_rank_of_keys_alone": ({RANK: '''
_Kr = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
max_rank_S = 8
rank_S_lesson = int(torch.linalg.matrix_rank(_Kr))
'''}, {"mistake": "takes the rank of K (4) for the rank of S: rank S <= min(rank Q, rank K) and Q has "
                  "rank 2, so rank S = 2", "where": ["q11"]}),
    "q13_values_projected_with_w_k": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_K
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"mistake": "projects the values of Y with W_K instead of W_V, so O has width d_k, not d_v",
       "where": ["q13"]}),
    "q07_scores_scaled_by_d_model": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ K.transpose(-2, -1) / math.sqrt(X.shape[-1])
    M = causal_additive_mask(S.shape[-1], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "computes the scores inline divided by sqrt(d_model); the scale is 1/sqrt(d_k) (call "
                  "scaled_scores)", "where": ["q07", "q09", "q13"]}),
    "q05_shift_by_global_max": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    e = torch.exp(S - S.max())
    return e / e.sum(dim=-1, keepdim=True)
'''}, {"mistake": "subtracts the single largest score of the whole tensor, not each row's max: rows far "
                  "below it underflow to 0/0; shift by S.amax(dim=-1, keepdim=True)", "where": _PIPE}),
    "q03_answer_flatter_rows": ({Q03: 'ans_scale = "a"  # bigger scores -> more spread out\n'},
                                {"mistake": "answers a: without the scale the scores grow like sqrt(d_k) and "
                                            "the softmax saturates, so the entropies fall toward 0 (b)",
                                 "where": ["q03"]}),
    "q15_answer_equal_lengths": ({Q15: "ans_cross_causal = 'c'\n"},
                                 {"mistake": "answers c: equal lengths are not enough, the two sequences must "
                                             "share one time axis (d)", "where": ["q15"]}),
}
