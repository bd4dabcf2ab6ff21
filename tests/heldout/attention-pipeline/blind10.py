"""Tenth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution, `variants.py`,
the naming tests or the key comments of `measure.py`. What was read: the student-facing text of
`full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of `measure.py`
and the variant names and code of the nine earlier blind sets, so that their mistakes are not repeated
in the same form.

A mixed class. Beginners: the scores multiplied by sqrt(d_k), the raw inputs used as values, the
prefix average without the diagonal, the entropy averaged instead of summed, 2 * H taken for 2 ** H,
the output count assigned with `=` instead of `+=`, three multiple-choice answers (scale invariance,
shapes of S and O, linear cost). Intermediate: a layer norm slipped in before the projections, a mask
cache keyed by T alone (wrong dtype on the next call), a hand-written softmax shifted by the column
maxima, causality by tril() of the scores, Nadaraya-Watson normalised by the largest kernel value,
the cross-attention mask transposed.

Each wrong variant changes one or two cells of an otherwise full-marks notebook and says its mistake
in words; `where` lists the questions that may lose points. Correct variants are really correct but
written differently. Every variant was checked against plain torch before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
Q03 = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
PREFIX = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
Q14 = "ans_cross_shapes"
Q16 = "ans_complexity"

CORRECT = {
    # q01 through transposes, q02 with .mT and a float power
    "transposed_projection_mT_scores": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    Xt = X.transpose(-2, -1)
    return tuple((W.transpose(0, 1) @ Xt).transpose(-2, -1) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''
def scaled_scores(Q, K):
    return (Q @ K.mT) / Q.shape[-1] ** 0.5
'''},
    # q04 from a full matrix of finfo.min cut by triu; q05 through log_softmax
    "full_triu_mask_log_softmax": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    return torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)
''',
        WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return torch.log_softmax(Z, dim=-1).exp()
'''},
    # q09 as the softmax of a masked zero matrix; q10 with nansum (0 * log 0 = nan is skipped)
    "softmax_prefix_nansum_entropy": {
        PREFIX: '''
def prefix_average_matrix(T):
    Z = torch.zeros(T, T, dtype=torch.float64)
    Z = Z.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(Z, dim=-1)
''',
        ENT: '''
def row_entropy_bits(A):
    return -(A * torch.log2(A)).nansum(dim=-1)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
'''},
    # q10 with torch.special.entr converted to bits; q08 with a 1-D softmax
    "entr_bits_softmax_kernel": {
        ENT: '''
def row_entropy_bits(A):
    return torch.special.entr(A).sum(-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        NW: '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(torch.mv(K, q) / math.sqrt(K.shape[1]), dim=0)
    return torch.mv(V.T, w)
'''},
    # q04 with torch.where and -finfo.max; q07 with the mask written inline; q11 and q12 as formulas
    "where_mask_inline_self_attention": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    i = torch.arange(T, device=device)
    blocked = i[None, :] > i[:, None]
    zero = torch.zeros((), dtype=dtype, device=device)
    low = torch.full((), -torch.finfo(dtype).max, dtype=dtype, device=device)
    return torch.where(blocked, low, zero)
''',
        SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(S.shape[-1], S.dtype, S.device) if causal else None)
    return torch.matmul(A, V), A
''',
        RANK: '''
max_rank_S = min(8, 100)

rank_S_lesson = 2
''',
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    count = d_model * d_k + d_model * d_k + d_model * d_v
    return count + (d_v * d_model if with_output else 0)
'''},
}

WRONG = {
    "q01_layer_norm_before_projection": ({PROJ: '''
import torch.nn.functional as F

def project_qkv(X, W_Q, W_K, W_V):
    X = F.layer_norm(X, X.shape[-1:])       # pre-norm, as in GPT
    return X @ W_Q, X @ W_K, X @ W_V
'''}, {"mistake": "layer-normalises X before projecting (a pre-norm transformer habit): the projections "
                  "are of a different input", "where": ["q01", "q07", "q09"]}),
    "q02_multiplies_by_sqrt": ({SCORES: '''
def scaled_scores(Q, K):
    return Q @ K.transpose(-2, -1) * math.sqrt(Q.shape[-1])
'''}, {"mistake": "multiplies the scores by sqrt(d_k) instead of dividing by it", "where": ["q02", "q07", "q13"]}),
    "q03_answer_scale_invariance": ({Q03: '''
# softmax only cares about differences, so a common factor changes nothing
ans_scale = "c"
'''}, {"mistake": "confuses a common additive shift (which softmax ignores) with a common factor (which "
                  "sharpens it)", "where": ["q03"]}),
    "q04_cache_keyed_by_T": ({MASK: '''
_masks = {}

def causal_additive_mask(T, dtype, device=None):
    if T not in _masks:                      # build each size once
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
        M = torch.zeros(T, T, dtype=dtype, device=device)
        M[future] = torch.finfo(dtype).min
        _masks[T] = M
    return _masks[T]
'''}, {"mistake": "caches the mask by T alone, so a later call with another dtype (or device) gets the first "
                  "call's tensor, with the wrong dtype and the wrong finfo.min", "where": ["q04", "q07", "q09"]}),
    "q05_shift_by_column_max": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    S = S - S.max(dim=-2, keepdim=True).values      # stability
    e = torch.exp(S)
    return e / e.sum(dim=-1, keepdim=True)
'''}, {"mistake": "subtracts the maximum over the queries (dim=-2) before a row softmax: the shift differs "
                  "from key to key, so it changes the weights", "where": ["q05", "q07", "q09", "q13"]}),
    "q07_values_are_inputs": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, _ = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ X, A
'''}, {"mistake": "mixes the raw inputs X instead of the values V = X W_V", "where": ["q07"]}),
    "q07_causal_by_tril_of_scores": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = torch.tril(S)
    A = attention_weights(S)
    return A @ V, A
'''}, {"mistake": "makes attention causal by zeroing the future scores with tril(): a score of 0 is not "
                  "blocked, so the future still gets weight and A is not lower-triangular",
       "where": ["q07", "q09"]}),
    "q08_normalised_by_max": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    kappa = kappa / kappa.max()
    return (kappa[:, None] * V).sum(dim=0)
'''}, {"mistake": "divides the kernel values by their maximum instead of their sum, so the weights do not "
                  "add up to 1", "where": ["q08"]}),
    "q09_diagonal_left_out": ({PREFIX: '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64), diagonal=-1)
    return W / W.sum(dim=-1, keepdim=True)
'''}, {"mistake": "averages only the strictly earlier tokens (tril with diagonal=-1): row t does not count "
                  "itself and row 0 is 0/0", "where": ["q09"]}),
    "q10_entropy_averaged": ({ENT: '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).mean(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''}, {"mistake": "takes the mean of -p log2 p over the keys instead of its sum", "where": ["q10"]}),
    "q10_two_times_entropy": ({ENT: '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2 * row_entropy_bits(A)
'''}, {"mistake": "computes 2 * H instead of 2 ** H for the effective number of tokens", "where": ["q10"]}),
    "q12_output_count_replaces": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n = d_v * d_model
    return n
'''}, {"mistake": "assigns the output projection's count to n instead of adding it, so with_output=True "
                  "returns W_O's weights alone", "where": ["q12"]}),
    "q13_mask_transposed": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is not None:
        M = M.transpose(-2, -1)     # keys first
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"mistake": "transposes the caller's mask, reading it as (T', T): a square mask is applied the wrong "
                  "way round and a rectangular one fails", "where": ["q13"]}),
    "q14_answer_output_from_keys": ({Q14: '''
ans_cross_shapes = "d"
'''}, {"mistake": "gives the output one row per key/value (T' x d_v) instead of one per query",
       "where": ["q14"]}),
    "q16_answer_linear": ({Q16: '''
# one pass over the sequence
ans_complexity = "a"
'''}, {"mistake": "takes the cost of Q K^T as linear in T, missing that there are T^2 scores",
       "where": ["q16"]}),
}
