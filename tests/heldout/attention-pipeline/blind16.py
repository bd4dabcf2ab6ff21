"""Sixteenth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook and full_marks.ipynb, `harness.py`, the
docstring, constants and first two correct variants of blind15.py (for the format) and only the variant names
of blind.py .. blind15.py (so that no mistake is repeated in the same form), and a short code search of
public attention code: d2l / Neuromatch `DotProductAttention` (`torch.bmm(queries, keys.transpose(1, 2))`),
a Hands-On-LLMs layer scaling by `math.sqrt(k.dim())`, Karpathy's nanoGPT lecture and its follow-alongs
(`wei.masked_fill(tril == 0, ...)`, `wei / wei.sum(1, keepdim=True)`, `xbow3 = wei @ x`, `out = V @ wei`),
numpy self-attention written with tokens as columns (`q = Wq @ x`), and a toy script calling
`attention(q, q, q)`. Their habits are carried over here, rewritten in our functions.

What a first attention course hands in: most wrong variants are a slip seen in that public code (marked
"seen in:" above each), the rest are slips plausible for a student of Lesson 08 (`d_k ** 1/2` precedence,
a mask built in float32 and cast afterwards, a softmax whose denominator ignores the mask, the Nadaraya-
Watson kernel divided by d_k, entropy from `torch.special.entr` left in nats).

Each wrong variant changes the cells of one question of an otherwise full-marks notebook and holds exactly
one mistake, in the words a TA would use; `where` lists the questions whose tests it may fail (a helper
reused by the pipeline may also fail the questions that call it). Correct variants are really correct but
written differently (a `-finfo.max` triu mask with `.mT` scores, entropy with a boolean shift inside the
log, a ratio-of-means kernel smoother with Karpathy's softmax-of-zeros prefix average, an einsum pipeline
with keyword calls, a functional softmax with a closed-form parameter count). Every variant was checked
against plain torch before it was written down.

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

# questions whose tests run the pipeline through scaled_scores / attention_weights
_PIPE = ["q05", "q07", "q09", "q10", "q13"]
# questions whose tests run self_attention (and so project_qkv and causal_additive_mask)
_SELF = ["q07", "q09", "q10"]

CORRECT = {
    # q04 filled with -finfo.max (the same number as finfo.min) and cut with triu; q02 with .mT and .div
    "neg_max_triu_mask_mT_scores": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    big = torch.finfo(dtype).max
    return torch.full((T, T), -big, dtype=dtype, device=device).triu(diagonal=1)
''',
        SCORES: '''
def scaled_scores(Q, K):
    return Q.matmul(K.mT).div(math.sqrt(Q.size(-1)))
'''},
    # q10: adding 1 where A is 0 makes log2 give 0 there, so 0 log 0 counts as 0; 2^H with exp2
    "bool_shift_log_entropy_exp2": {ENT: '''
def row_entropy_bits(A):
    safe = A + (A == 0)
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''},
    # q08 as a ratio of means (the 1/T cancels); q09 as nanoGPT's softmax of a masked zero matrix
    "ratio_of_means_kernel_softmax_of_zeros_prefix": {
        NW: '''
def nadaraya_watson(q, K, V):
    d_k = q.shape[0]
    kappa = (K @ q / math.sqrt(d_k)).exp()
    return (kappa.unsqueeze(-1) * V).mean(dim=0) / kappa.mean()
''',
        PREFIX: '''
def prefix_average_matrix(T):
    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros(T, T, dtype=torch.float64).masked_fill(tril == 0, float("-inf"))
    return torch.softmax(wei, dim=-1)
'''},
    # q07 with keyword calls and an einsum mix; q13 reusing project_qkv for both sequences
    "keyword_pipeline_einsum_mix_cross_via_projection": {
        SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q=W_Q, W_K=W_K, W_V=W_V)
    S = scaled_scores(Q=Q, K=K)
    M = None
    if causal:
        M = causal_additive_mask(T=S.shape[-1], dtype=S.dtype, device=S.device)
    A = attention_weights(S, M=M)
    O = torch.einsum("...qk,...kv->...qv", A, V)
    return O, A
''',
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = project_qkv(X, W_Q, W_K, W_V)[0]
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''},
    # q05 through torch.nn.functional with dim counted from the front; q12 as one closed form
    "functional_softmax_closed_form_count": {
        WEIGHTS: '''
import torch.nn.functional as F


def attention_weights(S, M=None):
    logits = S if M is None else S.add(M)
    return F.softmax(logits, dim=logits.ndim - 1)
''',
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v + (d_v if with_output else 0))
'''},
}

WRONG = {
    # seen in: numpy self-attention written with tokens as columns ("x is the inputs (D, N)",
    # `q = Wq @ x`); here the student transposes everything to get that convention
    "q01_tokens_as_columns": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    Xc = X.transpose(-2, -1)
    Q = W_Q.transpose(-2, -1) @ Xc
    K = W_K.transpose(-2, -1) @ Xc
    V = W_V.transpose(-2, -1) @ Xc
    return Q, K, V
'''}, {"mistake": "Q, K and V come out with tokens as columns, (d_k, T) instead of (T, d_k): the projections "
                  "are transposed, against the notebook's tokens-are-rows convention",
       "where": ["q01", *_SELF]}),

    # seen in: d2l / Neuromatch DotProductAttention, `torch.bmm(queries, keys.transpose(1, 2))`
    "q02_bmm_with_transpose_1_2": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(d_k)
'''}, {"mistake": "torch.bmm with K.transpose(1, 2) only works for exactly one batch dimension: 2-D (T, d_k) "
                  "inputs and inputs with several leading dimensions fail",
       "where": ["q02", *_PIPE]}),

    # seen in: Hands-On-LLMs Transformer/layers.py, `d_k = k.dim()` then `/ math.sqrt(d_k)`
    "q02_scale_from_number_of_dims": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = K.dim()
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
'''}, {"mistake": "divides by the square root of K.dim(), the number of tensor dimensions (2 or 3), instead of "
                  "sqrt(d_k), the size of the last dimension",
       "where": ["q02", *_PIPE]}),

    # plausible: `** 1/2` binds as (d_k ** 1) / 2; the lesson's d_k = 4 hides it (sqrt(4) = 4/2)
    "q02_power_one_half_precedence": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / d_k ** 1/2
'''}, {"mistake": "operator precedence: `d_k ** 1/2` is (d_k ** 1) / 2 = d_k / 2, so the scores are divided "
                  "by d_k/2 instead of sqrt(d_k) (the two agree only at d_k = 4)",
       "where": ["q02", *_PIPE]}),

    # seen in: nanoGPT lecture `wei.masked_fill(tril == 0, float('-inf'))`, here with the `== 0` dropped
    "q04_masked_fill_on_tril_itself": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    tril = torch.tril(torch.ones(T, T, device=device))
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(tril.bool(), torch.finfo(dtype).min)
'''}, {"mistake": "fills the lower triangle (diagonal and past) with finfo.min and leaves the future at 0: the "
                  "`tril == 0` condition was replaced by tril itself, so the mask is inverted",
       "where": ["q04", *_SELF]}),

    # plausible: the fill value is made in torch's default float32 and only then cast to dtype
    "q04_full_in_float32_then_cast": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), torch.finfo(dtype).min, device=device)
    return torch.triu(M, diagonal=1).to(dtype)
'''}, {"mistake": "the mask is filled in torch's default float32 and only cast to dtype afterwards: "
                  "finfo(float64).min does not fit in float32, so a float64 mask cannot be built (torch refuses "
                  "the fill value)",
       "where": ["q04", *_SELF]}),

    # plausible: a hand-written stable softmax whose denominator is summed over the unmasked scores
    "q05_denominator_without_mask": ({WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    shift = Z.amax(dim=-1, keepdim=True)
    num = torch.exp(Z - shift)
    den = torch.exp(S - shift).sum(dim=-1, keepdim=True)
    return num / den
'''}, {"mistake": "the numerator uses S + M but the denominator sums exp over S without the mask, so with a "
                  "mask the rows no longer sum to 1",
       "where": _PIPE}),

    # seen in: a nanoGPT-lecture follow-along `output = V @ wei`, and a tokens-as-columns numpy version
    # `return v @ att`
    "q07_values_times_weights": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return V @ A, A
'''}, {"mistake": "the output multiplies in the wrong order, V @ A instead of A @ V (fails unless d_v equals T, "
                  "and is not the weighted average of values even then)",
       "where": _SELF}),

    # plausible: unpacking the projections in the wrong order
    "q07_unpacks_q_v_k": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, V, K = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "unpacks project_qkv's result as (Q, V, K): the keys are really the values and the values the "
                  "keys",
       "where": _SELF}),

    # seen in: a toy script calling `attention(q, q, q)` for self-attention
    "q07_queries_scored_against_queries": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, Q)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "scores are Q against Q (\"self\" taken as the query with itself); the keys K are never used",
       "where": _SELF}),

    # plausible: the kernel divided by d_k rather than sqrt(d_k)
    "q08_kernel_divided_by_d_k": ({NW: '''
def nadaraya_watson(q, K, V):
    d_k = q.shape[-1]
    kappa = torch.exp(K @ q / d_k)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''}, {"mistake": "the kernel exponent is q.k / d_k instead of q.k / sqrt(d_k)",
       "where": ["q08"]}),

    # seen in: nanoGPT lecture `wei = wei / wei.sum(1, keepdim=True)`, with keepdim dropped
    "q09_row_sums_without_keepdim": ({PREFIX: '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(1)
'''}, {"mistake": "W.sum(1) without keepdim has shape (T,) and broadcasts along the columns, so column i is "
                  "divided by row i's count instead of each row by its own count",
       "where": ["q09"]}),

    # plausible: torch.special.entr gives -p ln p, summed without converting to bits
    "q10_entr_left_in_nats": ({ENT: '''
def row_entropy_bits(A):
    return torch.special.entr(A).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''}, {"mistake": "torch.special.entr uses the natural log, so the entropy is in nats, not bits (missing the "
                  "division by ln 2); effective_tokens inherits the error",
       "where": ["q10"]}),

    # seen in: Karpathy's nanoGPT lecture `xbow3 = wei @ x` (the weights mix the raw inputs)
    "q13_mixes_raw_y": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K = X @ W_Q, Y @ W_K
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ Y, A
'''}, {"mistake": "the output mixes the raw rows of Y instead of the values Y @ W_V (W_V is never used)",
       "where": ["q13"]}),
}
