"""Second blind held-out set for attention-pipeline (Lesson 08), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the student template, the master
notebook's student-facing text, `full_marks.ipynb` (whose cells these replace), `harness.py`,
`measure.py` and the first blind set `blind.py`, so that none of its kinds of mistake is repeated here.

The mistakes are modelled on code that students publish for this exercise and on common PyTorch slips:
`nn.Linear`'s `x @ W.T`, `torch.mm` that only takes 2-D, `d_k = Q.shape[1]` from 2-D code,
`torch.sqrt(torch.tensor(d_k))`, the lesson's own `-1e9` (which float16 cannot hold), `-inf`, the mask's
diagonal off by one or on the wrong side, a hand-written softmax without the max shift, `softmax(...,
dtype=torch.float32)`, `torch.tril` after the softmax (with and without renormalising), d2l's Gaussian
Nadaraya-Watson kernel, a kernel average with no denominator, 0-based row counts, entropy in nats or
with log(0), `H ** 2` for `2 ** H`, biases counted, the rank answered as T or left a tensor, a causal
mask copied into cross-attention, ... Each wrong variant changes one thing in an otherwise full-marks
notebook and says its mistake in plain words; `where` lists the questions that should lose points
(`self_attention`, q07 and q09's zero-projection check, calls project_qkv, scaled_scores,
causal_additive_mask and attention_weights; `cross_attention`, q13, calls scaled_scores and
attention_weights). Correct variants are really correct but written differently from
`full_marks.ipynb` and from `blind.py`.

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
ENTROPY = "row_entropy_bits"          # its cell also defines effective_tokens
RANK = "max_rank_S"                   # its cell also defines rank_S_lesson
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

# the lesson's hand-crafted Q and K (the ones in the Question 2 check)
_LESSON_QK = '''
Q_lesson = torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                         [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]])
K_lesson = torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0],
                         [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]])
'''


def _self(mask_line: str = "M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None",
          weights_line: str = "A = attention_weights(S, M)",
          scores_line: str = "S = scaled_scores(Q, K)") -> str:
    return f'''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    {scores_line}
    {mask_line}
    {weights_line}
    return A @ V, A
'''


def _entropy(logs: str = "torch.where(A > 0, torch.log2(A), torch.zeros_like(A))",
             eff: str = "2.0 ** row_entropy_bits(A)") -> str:
    return f'''
def row_entropy_bits(A):
    logs = {logs}
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return {eff}
'''


CORRECT = {
    # one fused projection, split into Q, K, V
    "fused_projection": {PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    QKV = X @ torch.cat([W_Q, W_K, W_V], dim=1)          # (..., T, 2 d_k + d_v)
    Q, K, V = QKV.split([d_k, d_k, d_v], dim=-1)
    return Q, K, V
'''},
    # queries scaled before the product; swapaxes
    "prescaled_queries": {SCORES: '''
def scaled_scores(Q, K):
    return torch.matmul(Q / math.sqrt(Q.size(-1)), K.swapaxes(-1, -2))
'''},
    # mask: a full matrix of the minimum, upper triangle kept; softmax through torch.nn.functional
    "full_triu_functional_softmax": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    lowest = torch.finfo(dtype).min
    return torch.full((T, T), lowest, dtype=dtype, device=device).triu(diagonal=1)
''',
        WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S if M is None else torch.add(S, M)
    return torch.nn.functional.softmax(Z, dim=Z.ndim - 1)
'''},
    # self-attention masking the scores with masked_fill (same finfo.min value) instead of adding
    "self_masked_fill": {SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)                                    # (..., T, T)
    if causal:
        T = S.shape[-1]
        future = torch.ones(T, T, dtype=torch.bool, device=S.device).triu(1)
        S = S.masked_fill(future, torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return torch.matmul(A, V), A
'''},
    # Nadaraya-Watson with the largest exponent subtracted first (the ratio is unchanged)
    "nw_shifted_exponents": {NW: '''
def nadaraya_watson(q, K, V):
    s = (K @ q) / math.sqrt(q.numel())
    w = torch.exp(s - s.max())
    return (w @ V) / w.sum()
'''},
    # the prefix average filled row by row; entropy with xlogy and a change of base
    "loop_prefix_xlogy_entropy": {
        PREFIX: '''
def prefix_average_matrix(T):
    P = torch.zeros(T, T, dtype=torch.float64)
    for t in range(T):
        P[t, : t + 1] = 1.0 / (t + 1)
    return P
''',
        ENTROPY: '''
def row_entropy_bits(A):
    return -torch.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp(math.log(2.0) * row_entropy_bits(A))
'''},
    # cross-attention through project_qkv twice; the count written term by term
    "cross_via_project_param_terms": {
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = project_qkv(X, W_Q, W_K, W_V)[0]          # queries from X
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)       # keys and values from Y
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    w_q = d_model * d_k
    w_k = d_model * d_k
    w_v = d_model * d_v
    w_o = d_v * d_model if with_output else 0
    return int(w_q + w_k + w_v + w_o)
'''},
    # the lesson rank computed from the lesson's matrices; multiple-choice answers restated
    "computed_rank_answers": {
        RANK: _LESSON_QK + '''
d_k_head, T_tokens = 8, 100
max_rank_S = min(d_k_head, T_tokens)
rank_S_lesson = int(torch.linalg.matrix_rank(Q_lesson @ K_lesson.T / 2.0))
''',
        "ans_cross_shapes": '''
ans_cross_shapes = "b"          # S: T x T', O: T x d_v
''',
        "ans_complexity": '''
ans_complexity = "c"
'''},
}

WRONG = {
    # ---- q01 (project_qkv is called by self_attention: q07, q09's check)
    "q01_linear_convention": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return X @ W_Q.T, X @ W_K.T, X @ W_V.T          # nn.Linear's x @ W.T
'''}, {"mistake": "projects with nn.Linear's convention X @ W.T instead of X @ W (crashes unless the weights "
                  "are square)", "where": ["q01", "q07", "q09"]}),

    "q01_mm_two_dims_only": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return torch.mm(X, W_Q), torch.mm(X, W_K), torch.mm(X, W_V)
'''}, {"mistake": "uses torch.mm, which only takes 2-D matrices, so batched X raises", "where": ["q01", "q07", "q09"]}),

    # ---- q02 (scaled_scores is called by self_attention and cross_attention)
    "q02_d_k_from_shape_1": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = Q.shape[1]                        # the width of a 2-D Q; the token count of a batched one
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
'''}, {"mistake": "reads d_k as Q.shape[1], which is the width only for 2-D inputs: batched inputs are "
                  "scaled by sqrt(T)", "where": ["q02", "q07", "q13"]}),

    "q02_scale_from_float32_tensor": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / torch.sqrt(torch.tensor(d_k))
'''}, {"mistake": "computes the scale with torch.sqrt(torch.tensor(d_k)), a float32 number, so float64 "
                  "scores lose precision", "where": ["q02", "q07", "q13"]}),

    # ---- q03
    "q03_answer_scale_invariant": ({"ans_scale": '''
ans_scale = "c"
'''}, {"mistake": "thinks the softmax is unchanged when every score is multiplied by one constant",
       "where": ["q03"]}),

    # ---- q04 (causal_additive_mask is called by self_attention)
    "q04_lesson_minus_1e9": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    NEG_INF = -1.0e9                        # the lesson's stand-in
    return torch.triu(torch.full((T, T), NEG_INF, dtype=dtype, device=device), diagonal=1)
'''}, {"mistake": "fills the blocked entries with the lesson's -1e9 instead of torch.finfo(dtype).min "
                  "(float16 cannot hold it: torch.full raises)", "where": ["q04", "q07", "q09"]}),

    "q04_minus_inf": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), float("-inf"))
'''}, {"mistake": "fills the blocked entries with -inf instead of the finite torch.finfo(dtype).min",
       "where": ["q04"]}),

    "q04_diagonal_blocked": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(M)                    # diagonal=0 keeps the diagonal blocked too
'''}, {"mistake": "off by one: triu with diagonal=0 also blocks each token's own key (query 0 sees nothing)",
       "where": ["q04", "q07", "q09"]}),

    "q04_blocks_the_past": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.tril(M, diagonal=-1)
'''}, {"mistake": "puts the blocked entries below the diagonal (the past) instead of above it",
       "where": ["q04", "q07", "q09"]}),

    # ---- q05 (attention_weights is called by self_attention and cross_attention)
    "q05_naive_exp_softmax": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    E = torch.exp(S)
    return E / E.sum(dim=-1, keepdim=True)
'''}, {"mistake": "a hand-written softmax without subtracting the row max: exp overflows in float16 "
                  "(scores above about 11), giving inf/inf = NaN", "where": ["q05", "q07", "q13"]}),

    "q05_always_adds_mask": ({WEIGHTS: '''
def attention_weights(S, M=None):
    return torch.softmax(S + M, dim=-1)
'''}, {"mistake": "always computes S + M, so M=None raises TypeError (self_attention with causal=False, "
                  "cross_attention without a mask)", "where": ["q05", "q07", "q13"]}),

    "q05_softmax_in_float32": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=-1, dtype=torch.float32)     # "for stability"
'''}, {"mistake": "passes dtype=torch.float32 to the softmax, so the weights come back float32 for float16 "
                  "and float64 scores (float64 precision lost)", "where": ["q05", "q07", "q09", "q13"]}),

    # ---- q06
    "q06_answer_no_gradient": ({"ans_mask": '''
ans_mask = "d"
'''}, {"mistake": "thinks the problem with no causal mask is that gradients cannot flow", "where": ["q06"]}),

    # ---- q07 (self_attention is also what q09's zero-projection check calls)
    "q07_mask_dtype_hardcoded": ({SELF: _self(
        mask_line="M = causal_additive_mask(X.shape[-2], torch.float32, S.device) if causal else None")},
        {"mistake": "builds the causal mask in float32 whatever the scores' dtype, so float16 inputs come out "
                    "float32", "where": ["q07"]}),

    "q07_skips_scaling": ({SELF: _self(scores_line="S = Q @ K.transpose(-2, -1)")},
                          {"mistake": "computes the scores inline as Q K^T and forgets the 1/sqrt(d_k)",
                           "where": ["q07"]}),

    "q07_tril_after_softmax": ({SELF: _self(
        mask_line="M = None",
        weights_line="A = attention_weights(S, M)\n    if causal:\n        A = torch.tril(A)")},
        {"mistake": "applies causality by zeroing the upper triangle of A after the softmax: rows no longer "
                    "sum to 1", "where": ["q07", "q09"]}),

    "q07_tril_then_renormalise": ({SELF: _self(
        mask_line="M = None",
        weights_line="A = attention_weights(S, M)\n    if causal:\n"
                     "        A = torch.tril(A)\n        A = A / A.sum(dim=-1, keepdim=True)")},
        {"mistake": "zeroes the future after the softmax and renormalises: equal on paper, but a large future "
                    "score underflows the visible weights to 0 first (0/0 = NaN, float16 especially), and "
                    "the zero-projection A is off by rounding", "where": ["q07", "q09"]}),

    # ---- q08
    "q08_gaussian_kernel": ({NW: '''
def nadaraya_watson(q, K, V):
    d2 = ((K - q) ** 2).sum(dim=-1)         # squared distance to each key (d2l's Gaussian kernel)
    kappa = torch.exp(-d2 / 2)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''}, {"mistake": "uses the Gaussian distance kernel exp(-|q - k|^2 / 2) instead of the exponential "
                  "dot-product kernel exp(q.k / sqrt(d_k))", "where": ["q08"]}),

    "q08_no_denominator": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0)
'''}, {"mistake": "returns the kernel-weighted sum of the values without dividing by the sum of the weights",
       "where": ["q08"]}),

    "q08_scale_from_d_v": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(V.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''}, {"mistake": "scales the kernel exponent by sqrt(d_v), the values' width, instead of sqrt(d_k)",
       "where": ["q08"]}),

    # ---- q09
    "q09_zero_based_counts": ({PREFIX: '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / torch.arange(T, dtype=torch.float64).unsqueeze(1)    # row t divided by t, from 0
'''}, {"mistake": "off by one: divides row t by its 0-based index t instead of t + 1 (row 0 is inf/NaN, the "
                  "others too large)", "where": ["q09"]}),

    "q09_divides_by_T": ({PREFIX: '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / T
'''}, {"mistake": "divides every row by T instead of by its own count of visible tokens", "where": ["q09"]}),

    # ---- q10
    "q10_entropy_in_nats": ({ENTROPY: _entropy(logs="torch.where(A > 0, torch.log(A), torch.zeros_like(A))")},
                            {"mistake": "uses the natural log (nats) instead of log2 (bits)", "where": ["q10"]}),

    "q10_log_of_zero_nan": ({ENTROPY: _entropy(logs="torch.log2(A)")},
                            {"mistake": "takes log2(A) without treating 0 log 0 as 0, so masked rows give "
                                        "0 * (-inf) = NaN", "where": ["q10"]}),

    "q10_squares_entropy": ({ENTROPY: _entropy(eff="row_entropy_bits(A) ** 2")},
                            {"mistake": "computes the effective number of tokens as H ** 2 instead of 2 ** H",
                             "where": ["q10"]}),

    # ---- q11
    "q11_rank_is_T": ({RANK: '''
max_rank_S = 100

rank_S_lesson = 5
'''}, {"mistake": "thinks the score matrix can have rank up to T (the token count) and that the lesson's "
                  "5 x 5 scores are full rank", "where": ["q11"]}),

    "q11_rank_left_a_tensor": ({RANK: _LESSON_QK + '''
max_rank_S = 8
rank_S_lesson = torch.linalg.matrix_rank(Q_lesson @ K_lesson.T)     # a 0-d tensor, not an int
'''}, {"mistake": "stores the rank as the 0-d tensor torch.linalg.matrix_rank returns instead of an int",
       "where": ["q11"]}),

    # ---- q12
    "q12_counts_biases": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = (d_model + 1) * (2 * d_k + d_v)            # weights and biases
    if with_output:
        n += (d_v + 1) * d_model
    return n
'''}, {"mistake": "adds a bias vector to every projection, though the block has none", "where": ["q12"]}),

    "q12_assumes_d_v_equals_d_k": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 3 * d_model * d_k
    if with_output:
        n += d_k * d_model
    return n
'''}, {"mistake": "uses the lesson's shortcut 3 d_model d_k, which is only right when d_v == d_k",
       "where": ["q12"]}),

    # ---- q13
    "q13_causal_mask_copied_in": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is None:
        M = causal_additive_mask(X.shape[-2], S.dtype, S.device)   # copied from self_attention
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "applies a causal mask when no M is given (copied from self_attention): wrong when T == T', "
                  "a crash when T != T'", "where": ["q13"]}),

    "q13_mask_zeroes_weights": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K))
    if M is not None:
        A = A.masked_fill(M < 0, 0.0)          # blocked keys get no weight
    return A @ V, A
'''}, {"mistake": "applies M by zeroing the blocked weights after the softmax instead of adding it to the "
                  "scores: rows no longer sum to 1", "where": ["q13"]}),

    "q13_scaled_by_d_model": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(X.shape[-1])
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "scales the scores by sqrt(d_model), the input width, instead of sqrt(d_k)", "where": ["q13"]}),

    # ---- q14, q15, q16
    "q14_answer_square_scores": ({"ans_cross_shapes": '''
ans_cross_shapes = "a"
'''}, {"mistake": "thinks the cross-attention score matrix is T x T, as in self-attention", "where": ["q14"]}),

    "q15_answer_always": ({"ans_cross_causal": '''
ans_cross_causal = "a"
'''}, {"mistake": "thinks every attention layer of a language model, cross-attention included, needs a "
                  "causal mask", "where": ["q15"]}),

    "q16_answer_linear": ({"ans_complexity": '''
ans_complexity = "a"
'''}, {"mistake": "thinks the cost of the score matrix grows linearly with T", "where": ["q16"]}),
}
