"""Sixth blind held-out set for attention-pipeline (Lesson 81), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the master notebook's student-facing text,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of `measure.py`
and the five earlier blind sets, so that none of their kinds of mistake is repeated here.

The students vary. Beginners: the projections made with `*` (elementwise) instead of `@`, the scale
taken from the sequence length, the mask's blocked entries filled with `-finfo(dtype).min` (a huge
positive number), the scores taken against the values in cross-attention, max_rank_S answered with T, W_O counted as d_v x d_k.
Intermediate: the mask built in float64 then returned without the requested dtype, the softmax taken
with `S.exp() / S.exp().sum()` over every axis, self_attention masking with T = X.shape[0] (the batch),
the Nadaraya-Watson weights normalised with a mean over keys, the prefix average computed with cumsum on
the wrong axis, the entropy's zero entries handled with log2(A + 1) (changes every term). Every
multiple-choice letter is already used by an earlier set, so no wrong letter here.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points. Correct variants are really correct but
written differently. Every variant was checked against plain torch before it was graded.

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


def _mask(fill: str = "torch.finfo(dtype).min", dt: str = "dtype") -> str:
    return f'''
def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype={dt}, device=device)
    M[future] = {fill}
    return M
'''


CORRECT = {
    "proj_generator_scores_mT": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.matmul(X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''
def scaled_scores(Q, K):
    return torch.matmul(Q, K.mT) * (1.0 / math.sqrt(Q.size(-1)))
'''},
    "mask_where_weights_manual": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    i = torch.arange(T, device=device)
    lo = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(i[None, :] > i[:, None], lo, torch.zeros((), dtype=dtype, device=device))
''',
        WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    Z = Z - Z.amax(dim=-1, keepdim=True)
    E = Z.exp()
    return E / E.sum(dim=-1, keepdim=True)
'''},
    "nw_softmax_prefix_by_division": {
        NW: '''
def nadaraya_watson(q, K, V):
    s = (K @ q) / math.sqrt(q.shape[-1])
    w = torch.exp(s - s.max())
    return (w / w.sum()) @ V
''',
        PREFIX: '''
def prefix_average_matrix(T):
    t = torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / t[:, None]
'''},
    "entropy_xlogy_answers_computed": {
        ENT: '''
def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
        RANK: '''
max_rank_S = min(100, 8)

rank_S_lesson = 2
'''},
    "param_count_sum_of_matrices": {COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(a * b for a, b in shapes)
'''},
}

WRONG = {
    "q01_elementwise_projection": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return X * W_Q, X * W_K, X * W_V
'''}, {"mistake": "multiplies elementwise (`*`) instead of matrix-multiplying (`@`): fails or gives the "
                  "wrong numbers", "where": ["q01", "q07", "q09"]}),
    "q02_scale_from_sequence_length": ({SCORES: '''
def scaled_scores(Q, K):
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-2])
'''}, {"mistake": "scales by sqrt of the number of queries (Q.shape[-2]) instead of sqrt(d_k)",
       "where": ["q02", "q07", "q13"]}),
    "q04_positive_fill": ({MASK: _mask(fill="-torch.finfo(dtype).min")},
                          {"mistake": "negates finfo.min (already the most negative number): the future gets the "
                                      "largest positive value and dominates the softmax", "where": ["q04", "q07", "q09"]}),
    "q04_built_in_float64": ({MASK: _mask(dt="torch.float64")},
                             {"mistake": "builds the mask in float64 (filling with the requested dtype's min) and "
                                         "returns it in float64, not the requested dtype",
                              "where": ["q04", "q07"]}),
    "q05_softmax_over_all_axes": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    E = torch.exp(S - S.max())
    return E / E.sum()
'''}, {"mistake": "normalises exp(S) by the sum over the whole tensor instead of each row",
       "where": ["q05", "q07", "q09", "q13"]}),
    "q07_mask_size_from_first_axis": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[0], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "sizes the causal mask with X.shape[0]: right for a 2-D X, the batch size for a batched one",
       "where": ["q07", "q09"]}),
    "q08_weights_normalised_by_mean": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.mean()
'''}, {"mistake": "divides by the mean of the kernel weights instead of their sum: the output is T times too "
                  "large", "where": ["q08"]}),
    "q09_cumsum_on_wrong_axis": ({PREFIX: '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    counts = W.cumsum(dim=0)            # how many entries so far
    return W / counts
'''}, {"mistake": "divides by a running count along the columns (cumsum over dim 0) instead of each row's "
                  "length t: entries below the diagonal get 1/(row - col + 1)", "where": ["q09"]}),
    "q10_log_of_one_plus_a": ({ENT: '''
def row_entropy_bits(A):
    return -(A * torch.log2(A + 1)).sum(dim=-1)      # +1 so log(0) never happens


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''}, {"mistake": "guards log(0) with log2(A + 1), which changes every term (and makes the 'entropy' "
                  "negative)", "where": ["q10"]}),
    "q11_max_rank_is_T": ({RANK: '''
max_rank_S = 100

rank_S_lesson = 2
'''}, {"mistake": "answers the largest rank of S with T = 100 (S is T x T) instead of min(T, d_k) = 8",
       "where": ["q11"]}),
    "q12_output_d_v_by_d_k": ({COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_k
    return n
'''}, {"mistake": "counts W_O as d_v x d_k instead of d_v x d_model", "where": ["q12"]}),
    "q13_cross_scores_from_values": ({"cross_attention": '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, V), M)
    return A @ V, A
'''}, {"mistake": "scores the queries against the values instead of the keys", "where": ["q13"]}),
}
