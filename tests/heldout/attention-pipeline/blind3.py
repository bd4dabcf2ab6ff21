"""Third blind held-out set for attention-pipeline (Lesson 08), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, `measure.py` and the two earlier blind
sets, so that none of their kinds of mistake is repeated here.

The mistakes are common slips in published attention homework: a tuple returned in the wrong order,
`K @ Q^T` for `Q @ K^T`, a fill value taken from `torch.finfo(torch.float32)` whatever the dtype, a NumPy
array returned where a tensor is asked, the additive mask subtracted, a default argument flipped, the
inputs mixed instead of the values, a (T,) weight vector broadcast against the columns of V (missing
`[:, None]`), `torch.tril` forgotten, integer floor division `//` in an averaging matrix, the lesson's
`+ 1e-9` inside a log (0 in float16), `keepdim=True` left on a reduction, an operator-precedence slip in a
parameter count, a copy-pasted weight matrix, and wrong multiple-choice and numeric answers. Each wrong
variant changes one cell of an otherwise full-marks notebook and says its mistake in plain words;
`where` lists the questions that should lose points (`self_attention` calls project_qkv, scaled_scores,
causal_additive_mask and attention_weights, and q09's hidden test calls `self_attention`;
`cross_attention` calls scaled_scores and attention_weights). Correct variants are really correct but
written differently from `full_marks.ipynb` and the earlier sets; every variant was checked against plain
torch (`torch.softmax`, `F.scaled_dot_product_attention`) before it was graded.

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
ENTROPY = "row_entropy_bits"     # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

_SELF_BODY = '''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return {ret}, A
'''

_EFFECTIVE = '''

def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''

CORRECT = {
    # projections with einsum; the scale applied in place to the fresh score tensor
    "einsum_projection_inplace_scale": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.einsum("...td,de->...te", X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''
def scaled_scores(Q, K):
    S = torch.matmul(Q, K.transpose(-2, -1))       # (..., T_q, T_k), a new tensor
    S /= math.sqrt(Q.size(-1))
    return S
'''},
    # the mask as a full matrix of finfo.min with its lower triangle (diagonal included) zeroed by triu
    "mask_full_then_triu": {MASK: '''
def causal_additive_mask(T, dtype, device=None):
    blocked = torch.finfo(dtype).min
    return torch.full((T, T), blocked, dtype=dtype, device=device).triu(diagonal=1)
'''},
    # softmax as exp(log_softmax); M added out of place with torch.add
    "log_softmax_exp": {WEIGHTS: '''
def attention_weights(S, M=None):
    logits = S if M is None else torch.add(S, M)
    return torch.log_softmax(logits, dim=-1).exp()
'''},
    # kernel weights from q @ K^T, normalised first, then one product with V
    "nw_normalised_weights_matmul": {NW: '''
def nadaraya_watson(q, K, V):
    d_k = K.shape[-1]
    kernel = torch.exp(q @ K.T / d_k ** 0.5)        # (T,)
    return (kernel / kernel.sum()) @ V              # (d_v,)
'''},
    # the prefix average by dividing a triangle by a column of counts; entropy with a clamped log
    "prefix_counts_clamped_log_entropy": {
        PREFIX: '''
def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)    # (T, 1): 1, 2, ..., T
    return torch.ones(T, T, dtype=torch.float64).tril() / counts
''',
        ENTROPY: '''
def row_entropy_bits(A):
    tiny = torch.finfo(A.dtype).tiny
    return -(A * torch.log2(A.clamp_min(tiny))).sum(dim=-1)      # A = 0 gives 0 * finite = 0
''' + '''

def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''},
    # numeric answers computed; the parameter count term by term; cross-attention through project_qkv
    "computed_rank_params_cross_via_projection": {
        RANK: '''
d_k_head, T_tokens = 8, 100
max_rank_S = min(d_k_head, T_tokens)

rank_S_lesson = 2
''',
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(a * b for a, b in shapes)
''',
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)       # keys and values from Y
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''},
}

WRONG = {
    # ---- q01 (project_qkv is also used by self_attention, q07, and through it q09)
    "q01_returns_q_v_k": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return X @ W_Q, X @ W_V, X @ W_K
'''}, {"mistake": "returns the tuple in the order (Q, V, K) instead of (Q, K, V)", "where": ["q01", "q07", "q09"]}),

    # ---- q02 (scaled_scores is also used by q07, q09, q13)
    "q02_keys_times_queries": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return K @ Q.transpose(-2, -1) / math.sqrt(d_k)
'''}, {"mistake": "multiplies in the wrong order, K @ Q^T, so the score matrix is (T_k, T_q): keys on the "
                  "rows and queries on the columns", "where": ["q02", "q07", "q09", "q13"]}),

    # ---- q03
    "q03_answer_negative": ({"ans_scale": 'ans_scale = "d"'},
                            {"mistake": "thinks the row entropies become negative without the scale",
                             "where": ["q03"]}),

    # ---- q04 (causal_additive_mask is also used by q07 and q09)
    "q04_finfo_of_float32": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(torch.float32).min       # the float32 minimum whatever the dtype
    return M
'''}, {"mistake": "fills the blocked entries with torch.finfo(torch.float32).min whatever the requested dtype: "
                  "too small for float64's minimum, and out of float16's range (it becomes -inf)",
       "where": ["q04", "q07", "q09"]}),

    "q04_returns_numpy": ({MASK: '''
import numpy as np


def causal_additive_mask(T, dtype, device=None):
    M = np.zeros((T, T))
    M[np.triu_indices(T, k=1)] = torch.finfo(dtype).min
    return M
'''}, {"mistake": "builds the mask as a NumPy array (float64) and returns it instead of a torch tensor of the "
                  "requested dtype", "where": ["q04", "q07", "q09"]}),

    # ---- q05 (attention_weights is also used by q07, q09, q13)
    "q05_subtracts_mask": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S - M                                      # "blocked entries are removed"
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "subtracts the additive mask instead of adding it, so blocked scores become hugely positive "
                  "(or inf) and take all the weight", "where": ["q05", "q07", "q09", "q13"]}),

    # ---- q06
    "q06_answer_rank": ({"ans_mask": 'ans_mask = "b"'},
                        {"mistake": "thinks switching the causal mask off makes the score matrix lose rank",
                         "where": ["q06"]}),

    # ---- q07 (q09's hidden test calls self_attention)
    "q07_causal_default_false": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=False):''' + _SELF_BODY.format(ret="A @ V")},
        {"mistake": "declares the default as causal=False instead of causal=True, so a call without the "
                    "argument is not masked", "where": ["q07", "q09"]}),

    "q07_mixes_inputs": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):''' + _SELF_BODY.format(ret="A @ X")},
        {"mistake": "mixes the raw inputs (A @ X) instead of the values (A @ V)", "where": ["q07", "q09"]}),

    # ---- q08
    "q08_kernel_broadcast_on_columns": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))          # (T,)
    return (kappa * V).sum(dim=0) / kappa.sum()                # kappa lines up with V's columns
'''}, {"mistake": "multiplies the (T,) kernel weights by V without [:, None], so they broadcast along V's "
                  "columns instead of its rows (a crash unless T == d_v, wrong values when it is)",
       "where": ["q08"]}),

    # ---- q09
    "q09_tril_forgotten": ({PREFIX: '''
def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64)[:, None]
    return torch.ones(T, T, dtype=torch.float64) / counts
'''}, {"mistake": "forgets the lower triangle: row t holds 1/t in every column instead of only the first t",
       "where": ["q09"]}),

    "q09_integer_floor_division": ({PREFIX: '''
def prefix_average_matrix(T):
    ones = torch.tril(torch.ones(T, T, dtype=torch.int64))
    counts = torch.arange(1, T + 1)[:, None]
    return (ones // counts).to(torch.float64)          # integer division: 1 // t is 0 for t > 1
'''}, {"mistake": "divides integer tensors with //, so 1 // t is 0 and only the first row keeps its weight",
       "where": ["q09"]}),

    # ---- q10
    "q10_epsilon_inside_log": ({ENTROPY: '''
def row_entropy_bits(A):
    return -(A * torch.log2(A + 1e-9)).sum(dim=-1)     # the lesson's 1e-9 guards log(0)
''' + _EFFECTIVE}, {"mistake": "guards log(0) with A + 1e-9, which rounds to 0 in float16, so masked entries "
                               "give 0 * -inf = NaN there", "where": ["q10"]}),

    "q10_entropy_keepdim": ({ENTROPY: '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1, keepdim=True)       # (..., T_q, 1)
''' + _EFFECTIVE}, {"mistake": "keeps the summed dimension (keepdim=True): the entropies have shape (..., T_q, 1) "
                               "instead of (..., T_q)", "where": ["q10"]}),

    # ---- q11
    "q11_max_rank_is_T": ({RANK: '''
max_rank_S = 100

rank_S_lesson = 2
'''}, {"mistake": "thinks the T x T score matrix can have rank up to T = 100, ignoring the d_k bound",
       "where": ["q11"]}),

    # ---- q12
    "q12_missing_parentheses": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * 2 * d_k + d_v                        # meant d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return n
'''}, {"mistake": "drops the parentheses: d_model * 2 * d_k + d_v counts W_V as d_v numbers instead of "
                  "d_model * d_v", "where": ["q12"]}),

    # ---- q13
    "q13_values_with_W_K": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_K                # copy-paste: V projected with W_K
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"mistake": "copy-paste slip: projects the values with W_K instead of W_V", "where": ["q13"]}),

    # ---- q14 to q16 (multiple choice)
    "q14_answer_transposed_shapes": ({"ans_cross_shapes": 'ans_cross_shapes = "c"'},
                                     {"mistake": "puts the keys' sequence on the rows: S is T' x T and O is T' x d_v",
                                      "where": ["q14"]}),
    "q15_answer_equal_lengths": ({"ans_cross_causal": 'ans_cross_causal = "c"'},
                                 {"mistake": "thinks a causal mask makes sense in cross-attention whenever T = T'",
                                  "where": ["q15"]}),
    "q16_answer_cubic": ({"ans_complexity": 'ans_complexity = "d"'},
                         {"mistake": "thinks computing S costs T^3, like inverting a T x T matrix",
                          "where": ["q16"]}),
}
