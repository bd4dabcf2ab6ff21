"""Seventh blind held-out set for attention-pipeline (Lesson 08), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key mappings of `measure.py`. What was read: the master notebook's
student-facing text, `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines
of `measure.py` and the names of the six earlier blind sets' variants, so that their kinds of mistake
are not repeated in the same form.

The class is mixed. Beginners: V projected with W_K (a copy-paste slip), `permute(0, 2, 1)` for the key
transpose (3-D only), the mask's `masked_fill` result thrown away, `nn.Softmax()` without a dim, the
prefix average divided by T in every row, the entropy without its minus sign, the rank of S taken to be
T, the parameter budget multiplied by the number of heads. Intermediate: the blocked scores multiplied
by 0 instead of pushed to the most negative number, the `causal` flag read the wrong way round, the
kernel's 1/sqrt(d_k) put outside the exponential (where it cancels in the ratio), the two sequences'
roles swapped in cross-attention (queries from Y, keys and values from X). All the wrong letters of the
multiple-choice questions are in earlier sets, so the answers here are numeric (q11, q12).

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points. Correct variants are really correct but
written differently. Every variant was checked against plain torch (`torch.softmax`, the notebook's own
full-marks functions) before it was graded.

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
ENT = "row_entropy_bits"       # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"            # the q11 cell (also defines rank_S_lesson)
COUNT = "qkv_param_count"
CROSS = "cross_attention"


def _self(cond: str = "if causal else None") -> str:
    return f'''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) {cond}
    A = attention_weights(S, M)
    return A @ V, A
'''


def _nw(kappa: str = "kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))") -> str:
    return f'''
def nadaraya_watson(q, K, V):
    {kappa}
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''


CORRECT = {
    # projections unpacked one by one; the queries pre-scaled before the product
    "proj_unpacked_prescaled_queries": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.matmul(X, W_Q)
    K = torch.matmul(X, W_K)
    V = torch.matmul(X, W_V)
    return (Q, K, V)
''',
        SCORES: '''
def scaled_scores(Q, K):
    return (Q / math.sqrt(K.shape[-1])) @ K.transpose(-1, -2)
'''},
    # the mask as the upper triangle of a full -max matrix; a hand softmax with the row max shift
    "mask_full_triu_manual_softmax": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    lowest = -torch.finfo(dtype).max          # the same number as finfo(dtype).min
    return torch.full((T, T), lowest, dtype=dtype, device=device).triu(diagonal=1)
''',
        WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
'''},
    # the kernel smoother as a softmax over the keys; the prefix matrix divided by its row numbers
    "nw_softmax_prefix_row_numbers": {
        NW: '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(K.shape[1]), dim=0)
    return w @ V
''',
        PREFIX: '''
def prefix_average_matrix(T):
    rows = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / rows
'''},
    # entropy by xlogy in nats converted to bits; answers from min() and a sum of the three matrices
    "entropy_xlogy_counts_summed": {
        ENT: '''
def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        RANK: '''
max_rank_S = min(8, 100)

rank_S_lesson = int(2)
''',
        COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(a * b for a, b in shapes)
'''},
    # cross-attention through project_qkv-free products and torch.softmax directly
    "cross_direct_softmax": {CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if M is not None:
        S = S + M
    A = torch.softmax(S, dim=-1)
    return torch.matmul(A, V), A
'''},
}

WRONG = {
    "q01_values_from_key_matrix": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return X @ W_Q, X @ W_K, X @ W_K
'''}, {"mistake": "copy-paste slip: V is projected with W_K instead of W_V (wrong values; fails outright "
                  "when d_v != d_k)", "where": ["q01", "q07", "q09"]}),
    "q02_permute_three_dims": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return torch.matmul(Q, K.permute(0, 2, 1)) / math.sqrt(d_k)
'''}, {"mistake": "transposes K with permute(0, 2, 1), which only fits 3-D tensors: 2-D and 4-D inputs "
                  "raise (or, for 4-D, would need every axis named)", "where": ["q02", "q07", "q09", "q13"]}),
    "q04_masked_fill_result_dropped": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M.masked_fill(future, torch.finfo(dtype).min)
    return M
'''}, {"mistake": "calls the out-of-place masked_fill and drops its result: the mask stays all zeros, so "
                  "nothing is blocked (masked_fill_ or M = M.masked_fill(...) was meant)",
       "where": ["q04", "q07", "q09"]}),
    "q05_blocked_scores_multiplied_by_zero": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S * (M == 0)          # knock out the blocked scores
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "multiplies the blocked scores by 0 instead of adding the very negative mask: a score "
                  "of 0 still gets weight exp(0), so future keys are not hidden",
       "where": ["q05", "q07", "q09", "q13"]}),
    "q05_softmax_module_without_dim": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.nn.Softmax()(S)
'''}, {"mistake": "uses nn.Softmax() without dim: the legacy implicit dim is 1 for 2-D and 0 for 3-D "
                  "inputs, so batched scores are normalised over the batch, not over the keys",
       "where": ["q05", "q07", "q09", "q13"]}),
    "q07_causal_flag_inverted": ({SELF: _self(cond="if not causal else None")},
                                 {"mistake": "reads the causal flag the wrong way round: the mask is built "
                                             "when causal=False and left out when causal=True",
                                  "where": ["q07", "q09"]}),
    "q08_scale_outside_exp": ({NW: _nw(kappa="kappa = torch.exp(K @ q) / math.sqrt(q.shape[-1])")},
                              {"mistake": "divides the kernel values by sqrt(d_k) instead of the exponent: "
                                          "the factor cancels in the ratio, so the kernel is unscaled",
                               "where": ["q08"]}),
    "q09_every_row_divided_by_T": ({PREFIX: '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / T
'''}, {"mistake": "divides every row by T instead of by its own row number t: only the last row is an "
                  "average, earlier rows sum to t / T", "where": ["q09"]}),
    "q10_entropy_sign_dropped": ({ENT: '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return (A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''}, {"mistake": "drops the minus sign of the entropy: the values are <= 0 and 2^H is at most 1",
       "where": ["q10"]}),
    "q11_rank_bounded_by_tokens": ({RANK: '''
max_rank_S = 100

rank_S_lesson = 2
'''}, {"mistake": "takes the largest rank of S to be T = 100 (it is T x T) and forgets that it is a product "
                  "through d_k = 8 dimensions", "where": ["q11"]}),
    "q12_budget_times_heads": ({COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n_heads = d_model // d_k
    n = n_heads * d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return n
'''}, {"mistake": "multiplies the budget of one head by the number of heads d_model // d_k, though the "
                  "question counts one head's W_Q, W_K, W_V", "where": ["q12"]}),
    "q13_sequences_swapped": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = Y @ W_Q, X @ W_K, X @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"mistake": "swaps the roles of the two sequences: queries from Y and keys and values from X, so A "
                  "is T' x T and O has one row per token of Y", "where": ["q13"]}),
}
