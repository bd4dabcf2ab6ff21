"""Fourth blind held-out set for attention-pipeline (Lesson 08), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, `measure.py` and the three earlier
blind sets, so that none of their kinds of mistake is repeated here.

The mistakes are slips of the kind seen in published attention homework: an einsum written for
batched (B, T, d) input only, `transpose(0, 1)` that is right only in 2-D, `finfo.max` / `finfo.tiny`
typed for `finfo.min`, the additive mask added after the softmax, a mask silently skipped unless its
shape equals the scores', the causal mask sized from the model width, a Nadaraya-Watson sum over the
value dimension, a softmax of the 0/1 lower triangle taken for the prefix average, 2 ** -H, W_O counted
with d_k, an additive mask fed to `masked_fill`, the rank of S taken as the larger of rank Q and rank K,
and "b" for the cost question. Each wrong variant changes one cell of an otherwise full-marks notebook
and says its mistake in plain words; `where` lists the questions that should lose points (functions used
by `self_attention` also cost q07 and q09, those used by `cross_attention` q13). Correct variants are
really correct but written differently from `full_marks.ipynb` and the earlier sets. Every variant was
checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`) before it was graded.

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
ENT = "row_entropy_bits"      # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"           # the q11 cell (also defines rank_S_lesson)
COUNT = "qkv_param_count"
CROSS = "cross_attention"


def _mask(fill: str) -> str:
    return f'''
def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = {fill}
    return M
'''


CORRECT = {
    # torch.matmul everywhere; the scale as a Python float power, K.mT
    "project_matmul_scores_mT": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.matmul(X, W_Q)
    K = torch.matmul(X, W_K)
    V = torch.matmul(X, W_V)
    return Q, K, V
''',
        SCORES: '''
def scaled_scores(Q, K):
    return torch.matmul(Q, K.mT) * (Q.size(-1) ** -0.5)
'''},
    # the mask as triu(ones) times finfo.min; the softmax written out with a max shift
    "mask_triu_times_min_manual_softmax": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    upper = torch.ones(T, T, dtype=dtype, device=device).triu(diagonal=1)
    return upper * torch.finfo(dtype).min
''',
        WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
'''},
    # Nadaraya-Watson as a softmax over the keys followed by a matrix-vector product
    "nw_softmax_over_keys": {NW: '''
def nadaraya_watson(q, K, V):
    alpha = torch.softmax((K @ q) / math.sqrt(K.shape[-1]), dim=0)   # (T,)
    return alpha @ V
'''},
    # prefix average by dividing each row by its 1-based index
    "prefix_divide_by_arange": {PREFIX: '''
def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1)   # (T, 1)
    return torch.ones(T, T, dtype=torch.float64).tril() / counts
'''},
    # entropy with nansum (0 * log2 0 = NaN is skipped); effective tokens with exp2
    "entropy_nansum_exp2": {ENT: '''
def row_entropy_bits(A):
    return -(A * torch.log2(A)).nansum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''},
    # the counts written term by term; q11 with min()
    "count_terms_rank_min": {
        COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    w_q = d_model * d_k
    w_k = d_model * d_k
    w_v = d_model * d_v
    w_o = d_v * d_model if with_output else 0
    return w_q + w_k + w_v + w_o
''',
        RANK: '''
max_rank_S = min(8, 100)

rank_S_lesson = 2
'''},
}

WRONG = {
    "q01_einsum_needs_batch": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return (torch.einsum("btd,de->bte", X, W_Q), torch.einsum("btd,de->bte", X, W_K),
            torch.einsum("btd,de->bte", X, W_V))
'''}, {"mistake": "the einsum subscripts fix a (B, T, d) input: a 2-D X (or a 4-D one) raises",
       "where": ["q01", "q07", "q09"]}),
    "q02_transpose_0_1": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q @ K.transpose(0, 1) / math.sqrt(d_k)
'''}, {"mistake": "K.transpose(0, 1) is K^T only for 2-D K; on (B, T, d) it swaps batch and time",
       "where": ["q02", "q07", "q09", "q13"]}),
    "q04_finfo_max": ({MASK: _mask("torch.finfo(dtype).max")},
                      {"mistake": "finfo.max (a huge positive number) typed for finfo.min above the diagonal",
                       "where": ["q04", "q07", "q09"]}),
    "q04_finfo_tiny": ({MASK: _mask("torch.finfo(dtype).tiny")},
                       {"mistake": "finfo.tiny (the smallest positive normal number) taken for 'the minimum'",
                        "where": ["q04", "q07", "q09"]}),
    "q05_mask_added_after_softmax": ({WEIGHTS: '''
def attention_weights(S, M=None):
    A = torch.softmax(S, dim=-1)
    if M is not None:
        A = A + M
    return A
'''}, {"mistake": "the additive mask is added to the probabilities after the softmax",
       "where": ["q05", "q07", "q09", "q13"]}),
    "q05_mask_needs_same_shape": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None and M.shape == S.shape:
        S = S + M
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "a mask that only broadcasts against S (e.g. (T, T) on batched scores) is silently skipped",
       "where": ["q05", "q07", "q09", "q13"]}),
    "q07_mask_size_from_model_width": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-1], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "the mask is sized from X.shape[-1] (d_model) instead of the sequence length X.shape[-2]",
       "where": ["q07", "q09"]}),
    "q08_sum_over_value_dim": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=1) / kappa.sum()
'''}, {"mistake": "sums the weighted values over their feature dim (dim=1) instead of over the keys",
       "where": ["q08"]}),
    "q09_softmax_of_lower_triangle": ({PREFIX: '''
def prefix_average_matrix(T):
    return torch.softmax(torch.tril(torch.ones(T, T, dtype=torch.float64)), dim=-1)
'''}, {"mistake": "a softmax of the 0/1 lower triangle: the zeros above the diagonal get weight e^0, not 0",
       "where": ["q09"]}),
    "q10_effective_tokens_negative_exponent": ({ENT: '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** -row_entropy_bits(A)
'''}, {"mistake": "2 ** -H instead of 2 ** H (the perplexity's exponent sign flipped)", "where": ["q10"]}),
    "q11_rank_is_max_of_ranks": ({RANK: '''
max_rank_S = 8

rank_S_lesson = 4
'''}, {"mistake": "rank S taken as the larger of rank Q (2) and rank K (4) instead of at most the smaller",
       "where": ["q11"]}),
    "q12_output_counted_with_d_k": ({COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_k * d_model
    return n
'''}, {"mistake": "W_O counted as d_k x d_model; it maps the d_v-wide head output back", "where": ["q12"]}),
    "q13_additive_mask_as_boolean": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S.masked_fill(M, float("-inf"))
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''}, {"mistake": "the additive float mask is passed to masked_fill as if it were a boolean mask",
       "where": ["q13"]}),
    "q16_answer_b": ({"ans_complexity": 'ans_complexity = "b"\n'},
                     {"mistake": "thinks the cost of S depends only on d_k, not on T", "where": ["q16"]}),
}
