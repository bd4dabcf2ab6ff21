"""Fifteenth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
blind14.py and the variant names of blind.py .. blind13.py (so that no mistake is repeated in the same
form), and a short code search of public student attention code (`torch.triu(torch.ones(..), 1) *
float('-inf')` masks, `-1e10 * triu(ones)` masks, `x.softmax(0)` on 2-D scores, `K.T` in batched code,
fresh `nn.Linear` layers inside a MultiHeadAttention-style function), whose habits are carried over here
rewritten in our own code.

What a first attention course hands in: the most common slips first, in forms no earlier set wrote (a
0/1 triu multiplied by -inf, `.softmax(0)` on the scores, `K.T` on batched keys, a `torch.where` with its
two branches swapped, self_attention returning only O), then newer kinds (fresh random nn.Linear layers
instead of the given matrices, a normalised NW weight vector averaged again, every prefix row divided by
T, entropy in log10, the output flag tested with `is not None`, keys of cross-attention taken from X) and
multiple-choice answers (q06, q14, q16).

Each wrong variant changes cells of an otherwise full-marks notebook and holds exactly one mistake, in
the words a TA would use; `where` lists the questions whose tests it may fail. Correct variants are really
correct but written differently (einsum everywhere, a hand-written stable softmax with an index-comparison
mask, xlogy entropy with exp2, cumsum-built prefix average, a closed-form parameter count). Every variant
was checked against plain torch before it was graded.

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
Q06 = "ans_mask"
Q14 = "ans_cross_shapes"
Q15 = "ans_cross_causal"
Q16 = "ans_complexity"

_EFF = '''

def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''

# every question that calls attention_weights / scaled_scores through the pipeline
_PIPE = ["q05", "q07", "q09", "q10", "q13"]

CORRECT = {
    # q01 and q02 with einsum over arbitrary leading dims
    "einsum_projection_and_scores": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...td,dk->...tk", X, W_K)
    V = torch.einsum("...td,dv->...tv", X, W_V)
    return Q, K, V
''',
        SCORES: '''
def scaled_scores(Q, K):
    d_k = Q.size(-1)
    return torch.einsum("...qd,...kd->...qk", Q, K) / d_k ** 0.5
'''},
    # q05 a hand-written stable softmax; q04 from comparing index grids
    "manual_stable_softmax_index_mask": {
        WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S + M if M is not None else S
    Z = Z - Z.amax(dim=-1, keepdim=True)
    E = torch.exp(Z)
    return E / E.sum(dim=-1, keepdim=True)
''',
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    i = torch.arange(T, device=device).view(T, 1)
    j = torch.arange(T, device=device).view(1, T)
    zero = torch.zeros((), dtype=dtype, device=device)
    low = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(j > i, low, zero)
'''},
    # q10 via xlogy (0 log 0 = 0) converted to bits, exp2 for the effective count; q09 from cumsum
    "xlogy_entropy_cumsum_prefix": {
        ENT: '''
def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        PREFIX: '''
def prefix_average_matrix(T):
    L = torch.eye(T, dtype=torch.float64).cumsum(dim=0)
    return L / L.sum(dim=1, keepdim=True)
'''},
    # q08 with einsum and an explicit normaliser; q13 with the keyword-style steps and mT
    "einsum_kernel_and_cross_mT": {
        NW: '''
def nadaraya_watson(q, K, V):
    s = torch.einsum("d,nd->n", q, K) / math.sqrt(q.numel())
    w = torch.exp(s - s.max())
    w = w / w.sum()
    return torch.einsum("n,nv->v", w, V)
''',
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    q, k, v = X @ W_Q, Y @ W_K, Y @ W_V
    scores = (q @ k.mT) / math.sqrt(k.shape[-1])
    A = attention_weights(scores, M=M)
    return A @ v, A
'''},
    # q12 in closed form, q07 with an explicit mask branch, q11 by hand, answers upper case / spaced
    "closed_form_count_upper_answers": {
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    return n + d_v * d_model if with_output else n
''',
        SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        A = attention_weights(S, causal_additive_mask(S.size(-1), S.dtype, S.device))
    else:
        A = attention_weights(S)
    O = A @ V
    return O, A
''',
        RANK: 'max_rank_S = min(8, 100)\nrank_S_lesson = 2  # Q has only two independent rows\n',
        Q06: 'ans_mask = "C"\n',
        Q14: "ans_cross_shapes = ' B'\n"},
}

WRONG = {
    # --- the commonest slips, in forms not used before
    "q04_triu_ones_times_minus_inf": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    upper = torch.triu(torch.ones(T, T, dtype=dtype, device=device), diagonal=1)
    return upper * float("-inf")
'''}, {"mistake": "multiplies a 0/1 upper triangle by -inf: 0 * -inf is NaN, so every open entry becomes "
                  "NaN; build the mask with torch.full(..., finfo(dtype).min).triu(1) or torch.where",
       "where": ["q04", *_PIPE]}),
    "q05_softmax_axis_zero_method": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return S.softmax(0)
'''}, {"mistake": "normalises over axis 0 (down the columns, or over the batch for 3-D input); each query's "
                  "row must sum to 1, so use dim=-1", "where": _PIPE}),
    "q02_dot_T_on_batched_keys": ({SCORES: '''
def scaled_scores(Q, K):
    return Q @ K.T / math.sqrt(Q.shape[-1])
'''}, {"mistake": "K.T reverses every axis of a batched K, not only the last two; use K.transpose(-2, -1) "
                  "(or K.mT)", "where": ["q02", *_PIPE]}),
    "q05_where_branches_swapped": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is None:
        return torch.softmax(S, dim=-1)
    masked = torch.where(M < 0, S, torch.full_like(S, -1e9))
    return torch.softmax(masked, dim=-1)
'''}, {"mistake": "the two branches of torch.where are swapped: it keeps the scores where M blocks and "
                  "blocks where M is open; simply add M to S", "where": _PIPE}),
    "q07_returns_output_only": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(S.shape[-1], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V
'''}, {"mistake": "returns only O; the function must return the pair (O, A)", "where": ["q07", "q09"]}),
    # --- newer kinds
    "q01_fresh_linear_layers": ({PROJ: '''
import torch.nn as nn


def project_qkv(X, W_Q, W_K, W_V):
    d_model = X.shape[-1]
    q_proj = nn.Linear(d_model, W_Q.shape[1], bias=False).to(X.dtype)
    k_proj = nn.Linear(d_model, W_K.shape[1], bias=False).to(X.dtype)
    v_proj = nn.Linear(d_model, W_V.shape[1], bias=False).to(X.dtype)
    return q_proj(X), k_proj(X), v_proj(X)
'''}, {"mistake": "builds new nn.Linear layers with random weights and never uses W_Q, W_K, W_V; multiply X "
                  "by the given matrices", "where": ["q01", "q07", "q09", "q13"]}),
    "q08_normalised_weights_averaged": ({NW: '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.shape[0]), dim=0)
    return (w[:, None] * V).mean(dim=0)
'''}, {"mistake": "the weights already sum to 1, so the weighted sum is the answer; .mean() divides it "
                  "again by the number of keys", "where": ["q08"]}),
    "q09_every_row_divided_by_T": ({PREFIX: '''
def prefix_average_matrix(T):
    return torch.tril(torch.full((T, T), 1.0 / T, dtype=torch.float64))
'''}, {"mistake": "divides every row by T; row t averages t + 1 tokens, so it must hold 1/(t+1)",
       "where": ["q09", "q10"]}),
    "q10_entropy_in_log10": ({ENT: '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log10(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''' + _EFF}, {"mistake": "uses log10, so the entropy is in decimal digits (bans), not bits; use log2",
              "where": ["q10"]}),
    "q12_output_flag_is_not_none": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    count = d_model * d_k * 2 + d_model * d_v
    if with_output is not None:
        count += d_v * d_model
    return count
'''}, {"mistake": "tests `with_output is not None`, which is true for False too, so W_O is always counted; "
                  "test `if with_output:`", "where": ["q12"]}),
    "q13_keys_from_x": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = X @ W_K
    V = Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"mistake": "the keys come from X; in cross-attention keys and values both come from Y (K = Y @ W_K)",
       "where": ["q13"]}),
    "q11_max_rank_is_tokens_minus_d_k": ({RANK: '''
max_rank_S = 100 - 8
rank_S_lesson = 2
'''}, {"mistake": "the rank of S = Q K^T is at most min(T, d_k) = 8, not T - d_k", "where": ["q11"]}),
    # --- written answers
    "q06_answer_rows_stop_summing_upper": ({Q06: 'ans_mask = "A"\n'},
                                           {"mistake": "answers a: rows still sum to 1 without the mask; the "
                                                       "problem is that position t sees the token it must "
                                                       "predict (c)", "where": ["q06"]}),
    "q14_answer_keys_side_output": ({Q14: "ans_cross_shapes = 'd'\n"},
                                    {"mistake": "answers d: O has one row per query, so it is T x d_v, not "
                                                "T' x d_v (b)", "where": ["q14"]}),
    "q16_answer_linear_in_T": ({Q16: "ans_complexity = 'a'\n"},
                               {"mistake": "answers a: there are T^2 scores, so doubling T quadruples the "
                                           "work (c)", "where": ["q16"]}),
}
