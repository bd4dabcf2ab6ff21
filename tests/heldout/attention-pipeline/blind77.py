"""Blind held-out set 77 for attention-pipeline.

Seventy-seventh blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind75.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 77's angle: A MATHEMATICIAN'S OR STATISTICIAN'S HABITS. The student writes each formula as it stands on
paper and trusts the algebra over the floating point: the column-vector formula q = W^T x carried into the
row-vector layout (q01); scores "standardised" by their sample standard deviation instead of sqrt(d_k) (q02);
the differential entropy of a Gaussian, which grows with the variance, used to answer q03; a 1-based query
index compared with 0-based key indices (q04); a hand-derived log-sum-exp whose shift is never added back
(q05); the output sum o_tj = sum_i A_ti v_ij copied into an einsum string without batch axes (q07); a sum
over keys written as an index loop from 1 (q08); Bessel's n - 1 in the prefix average (q09); the effective
number of tokens taken as e^H, the perplexity of a natural-log entropy, while H is in bits (q10); the rank
bound taken as d_k - 1, as for a centred sample covariance (q11); W_O counted as a square d_model x d_model
map (q12); queries centred by their mean in the belief that softmax is shift invariant (q13); QK^T taken as a
square Gram matrix (q14); the cost of a (n x m)(m x p) product, nmp, read as cubic (q16).

Public material found with the `search` tool, and what it showed:
- stackoverflow.com/questions/61567597 ("How is log_softmax implemented ... with better numerical
  stability"), mwolf.dev/general/log-sum-exp-trick and shusei-e.github.io/deep learning/softmax_without_overflow:
  softmax written out as exp(x)/sum(exp(x)), its overflow, and the shifted log-sum-exp m + log(sum exp(x - m));
  used for the dropped shift of q05 and for the hand-written stable softmax and log-softmax of the correct
  variants (the shift kept inside, so fully blocked rows still come out uniform).
- stackoverflow.com/questions/56665350 ("Handling zero multiplied with NaN") and example-a.com/answer/49973680
  (Shannon entropy with log2 of an array containing zeros gives nan): 0 log 0, nats versus bits; used for the
  entropy of the correct variants (0 log 0 taken as 0 with torch.where, nats divided by ln 2) and the
  e^H / 2^H mix-up of q10.
- The other kinds follow the brief's list of a mathematician's habits: x^T W read literally (q01), sample
  statistics used where a fixed normalisation is meant (q02, q09, q11), index notation copied into code
  (q04, q07, q08), an identity or invariance used where it does not hold (q05, q13, q14), and big-O reading
  (q16).

The correct variants read like a mathematician's code: softmax written out as exp(Z - max)/sum, a log-softmax
by hand with the shift kept inside the logarithm, the kernel weights shifted by their maximum, 1/t built from a
1-based arange, entropy as nats over ln 2 with 0 log 0 = 0, and counts written as sums over the weight shapes.

Every variant was checked with a throwaway script under /tmp/w77-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
compared with plain torch (torch.softmax of S + M, F.scaled_dot_product_attention, the notebook's formulas)
on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v, float64, float32, float16, causal masks,
padding masks and a fully blocked row; every written answer compared with the right letter or integer. The
correct variants agree everywhere; each wrong variant differs in its own questions and only in those listed
in "where".

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
MASK_ANS = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
SHAPES_ANS = "ans_cross_shapes"
CAUSAL_ANS = "ans_cross_causal"
COST_ANS = "ans_complexity"

CORRECT = {
    # softmax written out with the row maximum subtracted; entropy as nats over ln 2 with 0 log 0 = 0
    "exp_minus_row_max_over_sum_and_nats_over_ln2_entropy": {
        WEIGHTS: '''def attention_weights(S, M=None):
    # A_ti = exp(Z_ti - m_t) / sum_j exp(Z_tj - m_t),  m_t = max_j Z_tj  (same value, no overflow)
    Z = S if M is None else S + M
    m = Z.amax(dim=-1, keepdim=True)
    E = torch.exp(Z - m)
    return E / E.sum(dim=-1, keepdim=True)
''',
        ENT: '''def row_entropy_bits(A):
    # H = -sum_i A_i ln A_i / ln 2, with the convention 0 ln 0 = 0
    safe = torch.where(A > 0, A, torch.ones_like(A))
    plogp = A * torch.log(safe)
    return -plogp.sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
    },
    # log-softmax derived by hand (shift kept inside the log); kernel shifted by its maximum
    "hand_log_softmax_shift_inside_and_max_shifted_kernel": {
        WEIGHTS: '''def attention_weights(S, M=None):
    # log A = (Z - m) - log sum exp(Z - m)
    Z = S + M if M is not None else S
    Zc = Z - Z.max(dim=-1, keepdim=True).values
    log_A = Zc - torch.log(torch.exp(Zc).sum(dim=-1, keepdim=True))
    return torch.exp(log_A)
''',
        NW: '''def nadaraya_watson(q, K, V):
    # o = sum_i kappa_i v_i / sum_i kappa_i; kappa may be rescaled by exp(-max) without changing the ratio
    u = (K @ q) / math.sqrt(K.shape[-1])
    kappa = torch.exp(u - u.max())
    return (kappa.unsqueeze(-1) * V).sum(dim=0) / kappa.sum()
''',
    },
    # index notation with ellipses, 1/t from a 1-based arange
    "ellipsis_einsum_pipeline_and_one_based_reciprocal_prefix": {
        SCORES: '''def scaled_scores(Q, K):
    d_k = K.shape[-1]
    return torch.einsum("...td,...sd->...ts", Q, K) / math.sqrt(d_k)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.shape[-2]
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = torch.einsum("...ti,...ij->...tj", A, V)      # o_tj = sum_i A_ti v_ij
    return O, A
''',
        AVG: '''def prefix_average_matrix(T):
    t = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1)   # t = 1, ..., T
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / t
''',
    },
    # answers and counts written as the formulas they come from
    "min_rank_bound_and_sum_over_weight_shapes": {
        RANK: '''# rank(S) <= min(rank Q, rank K) <= min(T, d_k), with T = 100 and d_k = 8
max_rank_S = min(100, 8)

rank_S_lesson = 2
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(r * c for r, c in shapes)
''',
        COST_ANS: '''# T^2 entries, each an inner product of length d_k: T * T * d_k, quadratic in T for fixed d_k
ans_complexity = "c"
''',
    },
}

WRONG = {
    # --- q01: the column-vector formula q = W^T x carried over
    "q01_column_vector_formula_weights_transposed": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # q = W_Q^T x for each token x
    return X @ W_Q.transpose(-2, -1), X @ W_K.transpose(-2, -1), X @ W_V.transpose(-2, -1)
''',
    }, {"mistake": "Copies the column-vector formula q = W_Q^T x into the notebook's row layout, where tokens "
                   "are rows and Q = X W_Q needs no transpose: X @ W^T is a shape error unless the weight is "
                   "square, and the wrong map when it is.",
        "where": ["q01", "q07", "q09"]}),

    # --- q02: sample standard deviation instead of sqrt(d_k)
    "q02_scores_divided_by_their_sample_std": ({
        SCORES: '''def scaled_scores(Q, K):
    # the point of the scale is unit variance: divide by the standard deviation of the scores
    S = Q @ K.transpose(-2, -1)
    return S / S.std()
''',
    }, {"mistake": "Standardises the scores by their sample standard deviation (torch.std, over the whole "
                   "tensor) instead of dividing by the fixed sqrt(d_k): the scale depends on the data, so the "
                   "scores are wrong (and 0/0 = nan when all scores are 0).",
        "where": ["q02", "q07", "q09", "q13"]}),

    # --- q03: Gaussian differential entropy
    "q03_gaussian_differential_entropy_grows_with_variance_answers_a": ({
        SCALE_ANS: '''# without the scale the scores have variance d_k instead of 1; the entropy of a Gaussian,
# 1/2 log(2 pi e sigma^2), grows with the variance, so the weights spread out
ans_scale = "a"
''',
    }, {"mistake": "Reasons with the differential entropy of the Gaussian scores, which grows with their "
                   "variance, instead of the entropy of the softmax row, which falls as the scores spread: "
                   "answers 'a' (flatter rows) instead of 'b'.",
        "where": ["q03"]}),

    # --- q04: 1-based query index against 0-based keys
    "q04_one_based_query_index_against_zero_based_keys": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # M_{t,i} blocked when i > t, t = 1..T as in the lesson
    t = torch.arange(1, T + 1, device=device).unsqueeze(-1)
    i = torch.arange(T, device=device).unsqueeze(0)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[i > t] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "Numbers queries from 1 (as in the formula) but keys from 0 (arange), so i > t blocks only "
                   "keys two or more steps ahead: every query can still see the next token (the first "
                   "superdiagonal is 0 instead of finfo.min).",
        "where": ["q04", "q07", "q09"]}),

    # --- q05: log-sum-exp shift never added back
    "q05_hand_log_sum_exp_shift_not_added_back": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    m = Z.amax(dim=-1, keepdim=True)
    lse = torch.log(torch.exp(Z - m).sum(dim=-1, keepdim=True))   # log sum exp
    return torch.exp(Z - lse)                                       # log A = Z - lse
''',
    }, {"mistake": "Derives log A = Z - logsumexp(Z) by hand and computes the log-sum-exp of the shifted "
                   "scores, log sum exp(Z - m), but never adds the shift m back: the weights are "
                   "softmax(Z) * exp(m), rows do not sum to 1 (and overflow when m is large).",
        "where": ["q05", "q07", "q13"]}),

    # --- q07: einsum from the index notation, no batch axes
    "q07_output_einsum_from_index_notation_without_batch_axes": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = torch.einsum("ti,ij->tj", A, V)      # o_tj = sum_i A_ti v_ij
    return O, A
''',
    }, {"mistake": "Copies o_tj = sum_i A_ti v_ij into an einsum string with only the two index letters, no "
                   "'...' for batch dimensions: right for one sequence, an error for batched inputs.",
        "where": ["q07", "q09"]}),

    # --- q08: sum written as a loop from 1
    "q08_sum_over_keys_loop_from_one_drops_first_key": ({
        NW: '''def nadaraya_watson(q, K, V):
    # o = sum_{i=1}^{T} kappa_i v_i / sum_{i=1}^{T} kappa_i
    T = K.shape[0]
    num = torch.zeros(V.shape[-1], dtype=V.dtype, device=V.device)
    den = torch.zeros((), dtype=V.dtype, device=V.device)
    for i in range(1, T):
        kappa = torch.exp(K[i] @ q / math.sqrt(q.shape[-1]))
        num = num + kappa * V[i]
        den = den + kappa
    return num / den
''',
    }, {"mistake": "Writes the sums over keys as a loop carrying the formula's 1-based bounds, "
                   "range(1, T): the first key (index 0) is never used, so the average is over keys 2..T "
                   "(0/0 = nan with one key).",
        "where": ["q08"]}),

    # --- q09: Bessel's correction in an average
    "q09_prefix_rows_divided_by_t_minus_one_bessel": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    n = W.sum(dim=-1, keepdim=True)
    return W / (n - 1).clamp_min(1)   # unbiased: divide by n - 1 (n = 1 left as is)
''',
    }, {"mistake": "Divides each prefix sum by n - 1 (Bessel's correction, clamped at 1 for the first row) "
                   "instead of n = t: rows from t = 2 on hold 1/(t-1) and sum to more than 1.",
        "where": ["q09"]}),

    # --- q10: perplexity e^H with H in bits
    "q10_effective_tokens_e_to_the_bits_entropy": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    # perplexity = exp(H)
    return torch.exp(row_entropy_bits(A))
''',
    }, {"mistake": "The entropy is right in bits, but the effective number of tokens is taken as the "
                   "perplexity exp(H), which needs H in nats: with H in bits it should be 2^H, so e^H is too "
                   "large whenever H > 0.",
        "where": ["q10"]}),

    # --- q11: d_k - 1 like a centred covariance
    "q11_rank_bound_d_k_minus_one_like_centred_covariance": ({
        RANK: '''# a sample covariance of d_k-dimensional vectors loses one rank to the mean: rank <= d_k - 1
max_rank_S = 8 - 1

rank_S_lesson = 2
''',
    }, {"mistake": "Takes the rank bound from a centred sample covariance (rank at most d_k - 1) although S = "
                   "QK^T/sqrt(d_k) is not centred: answers 7 instead of min(T, d_k) = 8.",
        "where": ["q11"]}),

    # --- q12: W_O counted as square
    "q12_output_projection_counted_as_square_d_model_map": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_model * d_model    # W_O maps back to the model space: an endomorphism of R^d_model
    return n
''',
    }, {"mistake": "Counts the output projection W_O as a square d_model x d_model map instead of d_v x "
                   "d_model: the count with with_output=True is wrong whenever d_v != d_model.",
        "where": ["q12"]}),

    # --- q13: queries centred, softmax shift invariance misapplied
    "q13_queries_centred_by_mean_trusting_softmax_shift_invariance": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    # centre the queries; softmax is invariant to shifts, so this only improves conditioning
    Q = Q - Q.mean(dim=-2, keepdim=True)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Centres the queries by their mean, trusting softmax's shift invariance: subtracting the "
                   "mean query changes score (t, i) by -q_mean . k_i, which differs from key to key, so it is "
                   "not a constant shift of a row and the weights and outputs change.",
        "where": ["q13"]}),

    # --- q14: QK^T as a Gram matrix
    "q14_scores_taken_as_square_gram_matrix_answers_a": ({
        SHAPES_ANS: '''# S = Q K^T is a Gram matrix of inner products, hence square and symmetric: T x T; O = A V is T x d_v
ans_cross_shapes = "a"
''',
    }, {"mistake": "Treats QK^T as a Gram matrix (square), which holds only when queries and keys come from "
                   "the same T vectors; with T queries and T' keys S is T x T': answers 'a' instead of 'b'.",
        "where": ["q14"]}),

    # --- q16: nmp read as cubic
    "q16_matmul_cost_nmp_read_as_cubic_answers_d": ({
        COST_ANS: '''# an (n x m)(m x p) product costs n m p; here n = T, m = d_k, p = T: three factors, cubic
ans_complexity = "d"
''',
    }, {"mistake": "Counts the product's cost as n*m*p = T*d_k*T and calls three factors cubic, keeping d_k "
                   "as if it grew with T although the question fixes it: answers 'd' instead of 'c' "
                   "(quadratic).",
        "where": ["q16"]}),
}
