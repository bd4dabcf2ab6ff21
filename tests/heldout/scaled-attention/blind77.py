"""Seventy-seventh blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`;
q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the
2-D `attention`; the notebook has no masks), `tests/heldout/harness.py`, blind75.py for the format, and only
the variant NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: A MATHEMATICIAN'S OR STATISTICIAN'S HABITS, formulas written as on paper. In q1: `d` in
$\\sqrt{d}$ read as the width of the vectors being mixed (the values' width, not the `d_k` argument), the sum
over queries $i = 1..T_q$ carried into `range(1, T_q)` (row 0 never written), and the softmax's denominator
written as $\\sum_i e^{s_{ij}}$ with the wrong index (normalised over the queries, dim 0); in q2: the
standard-error/variance rule "Var(X/c) = Var(X)/c^2" misapplied so the dots are divided by d_k (variance 1/d_k
when scaled), an einsum copied from index notation that keeps the coordinate index and sums over the samples
(`'ni,ni->i'`), and the "typical size" sqrt(d_k) returned (the standard deviation) where the variance is asked;
in q4: the entropy in bits (`log2`) where nats are asked, $p \\ln p$ written out with no guard (0 * ln 0 = NaN
on saturated rows), the table's stds written as
sqrt(E[x^2] - E[x]^2) (the population divisor n, not torch.std's n - 1), and the softmax
normalised over the first axis (only right for 1-D rows); q5 'B' (standard deviation taken for the variance),
q6 'B' (Cauchy-Schwarz misapplied: "X_i . X_j <= |X_i|^2, so each token attends to itself"), q7 'C' (the
zero-temperature limit of the softmax taken as its value); in q8: the projections written in the column-vector
convention $q = W x$ (`(W_Q @ X.T).T`, i.e. X @ W^T) and the heads scaled with the model width d_model (the
paper's $d$). Spread: q1 x3, q2 x3, q4 x3, q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown answer). The
correct variants read like a mathematician's code, written out but stable: an einsum `'ik,jk->ij'` with a
max-subtracted exp / sum; q2 with an einsum `'ni,ni->n'` and a hand-written unbiased variance
sum((x - mean)^2) / (n - 1); an entropy from a hand-derived log-softmax (s - max - log sum exp(s - max)) with
0 ln 0 taken as 0 and the table's stds written out with n - 1; multi-head attention with heads numbered from 1
as on paper (columns (h - 1) d_k .. h d_k) and the output projection written as the sum over heads of
head_h @ W_O's row block h.

Public material used (nothing copied verbatim): discuss.pytorch.org "Softmax implementation" (thread 118049:
exp(x) / sum(exp(x)) overflows, subtract the max) and the log-sum-exp trick notes at mwolf.dev/general/
log-sum-exp-trick (logits - logsumexp as a hand-derived log-softmax); tensorflow/probability issue #241 ("NaN
Entropy for Categorical Distribution": p = 0 gives NaN), kkirchheim/pytorch-ood issue #84 (softmax outputs 0.0,
log(0.0) gives NaN), vanheeringen-lab/gimmemotifs issue #275 (log2(pfm) * pfm NaN; the limit of p log p is 0),
scipy/scipy PR #2553 (entropy through special.xlogy) and huggingface/trl PR #7224 (torch.xlogy for 0 * -inf);
the `torch.std` / `torch.var` documentation (default unbiased, n - 1); Vaswani et al., "Attention Is All You
Need", footnote 4 (q . k has mean 0 and variance d_k) and its d_model vs per-head d_k = d_model / h.

How the variants were checked: /tmp/w77-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared every function with plain torch: `attention` against
`F.scaled_dot_product_attention` and a float64 `softmax(Q K^T / sqrt(d_k)) V` on shapes with T_q != T_k,
d_v != d_k, T_q = 1, T_k = 1 and non-square d_k, in float64 and float32 (the correct q1 variant also in
float16), dtype kept; `dot_product_variance` at several d_k, scaled and not, within 10%, a float,
reproducible; `softmax_entropy` against a log_softmax entropy on (7,), (3, 5), (2, 3, 7) and saturated rows;
`entropy_table` against the spec; the letters against C / A / D; `multi_head_attention` against a head loop and
`torch.nn.MultiheadAttention` (no biases, transposed weights) in float64 and float32 including T = 1. The
correct variants agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    "q1_index_notation_einsum_max_shifted_exp_over_sum": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # s_ij = sum_k Q_ik K_jk / sqrt(d_k)
    S = torch.einsum("ik,jk->ij", Q, K) / math.sqrt(d_k)
    # w_ij = exp(s_ij - m_i) / sum_j' exp(s_ij' - m_i), m_i = max_j s_ij (same ratio, no overflow)
    E = torch.exp(S - S.max(dim=-1, keepdim=True).values)
    W = E / E.sum(dim=-1, keepdim=True)
    # o_il = sum_j w_ij V_jl
    O = torch.einsum("ij,jl->il", W, V)
    return O, W
'''},

    "q2_einsum_dots_hand_bessel_corrected_variance": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    x = torch.einsum("ni,ni->n", q, k)          # x_n = sum_i q_ni k_ni
    if scaled:
        x = x / math.sqrt(d_k)
    n = x.numel()
    mean = x.sum() / n
    s2 = ((x - mean) ** 2).sum() / (n - 1)      # unbiased: Bessel's correction
    return float(s2.item())
'''},

    "q4_hand_derived_log_softmax_zero_log_zero_as_zero_std_written_out": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    m = logits.max(dim=-1, keepdim=True).values
    z = logits - m
    log_p = z - torch.log(torch.exp(z).sum(dim=-1, keepdim=True))   # ln p_j = s_j - LSE(s)
    p = torch.exp(log_p)
    terms = torch.where(p > 0, p * log_p, torch.zeros_like(p))      # 0 ln 0 := 0 (the limit)
    return -terms.sum(dim=-1)


def _sample_std(x):
    n = x.numel()
    mean = x.sum() / n
    return torch.sqrt(((x - mean) ** 2).sum() / (n - 1))


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": _sample_std(raw).item(), "scaled_std": _sample_std(scaled).item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''},

    "q8_heads_numbered_from_one_output_as_sum_of_row_blocks": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    # concat(head_1, ..., head_h) W_O = sum_h head_h W_O^{(h)}, W_O^{(h)} = rows (h-1) d_k .. h d_k - 1
    Y = torch.zeros_like(X)
    for h in range(1, n_heads + 1):
        cols = slice((h - 1) * d_k, h * d_k)
        head_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        Y = Y + head_h @ W_O[cols, :]
    return Y
'''},
}

WRONG = {
    "q1_scale_root_of_value_width_read_as_d": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    d = V.shape[-1]                      # the model dimension d of the formula
    scores = Q @ K.T / math.sqrt(d)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The `d` under the root is read as the width of the vectors being mixed, `V.shape[-1]` (d_v), "
                  "instead of the `d_k` passed in: the scores are divided by sqrt(d_v), so weights and output are "
                  "wrong whenever d_v != d_k (in q8 every head has d_v = d_k, so it is unaffected).",
       "where": ["q1"]}),

    "q1_query_loop_from_one_as_in_the_sum_index": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[0], K.shape[0]
    weights = torch.zeros(T_q, T_k, dtype=Q.dtype)
    for i in range(1, T_q):              # i = 1, ..., T_q
        s_i = K @ Q[i] / math.sqrt(d_k)
        weights[i] = torch.exp(s_i - s_i.max()) / torch.exp(s_i - s_i.max()).sum()
    out = weights @ V
    return out, weights
'''}, {"mistake": "The query index of the formula, i = 1..T_q, is carried into `range(1, T_q)`: row 0 of the "
                  "weights is never computed and stays all zeros (it does not sum to 1), so the first output row "
                  "is 0 (and a single query gives all zeros).",
       "where": ["q1", "q8"]}),

    "q1_softmax_denominator_summed_over_query_index": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    S = Q @ K.T / math.sqrt(d_k)
    E = torch.exp(S - S.max())
    W = E / E.sum(dim=0, keepdim=True)   # w_ij = exp(s_ij) / sum_i exp(s_ij)
    return W @ V, W
'''}, {"mistake": "The softmax denominator is written with the wrong summation index, sum over i (the queries, "
                  "dim 0) instead of over j (the keys): each column of the weights sums to 1, not each row, so the "
                  "weights and output are wrong (a single query gives all-ones weights).",
       "where": ["q1", "q8"]}),

    "q2_scaled_dots_divided_by_d_k_from_variance_rule": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / d_k                # Var(X) = d_k, so normalise by d_k
    return dots.var().item()
'''}, {"mistake": "Var(q.k) = d_k is normalised by dividing the dot products themselves by d_k (not sqrt(d_k)): "
                  "Var(X / c) = Var(X) / c^2, so the scaled variance comes out about 1/d_k instead of 1.",
       "where": ["q2"]}),

    "q2_einsum_keeps_coordinate_index_sums_samples": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("ni,ni->i", q, k)   # q . k = sum q_i k_i
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The einsum is copied from the index notation `q_i k_i` and keeps the index i: it sums over the "
                  "samples n instead of the coordinates, giving d_k sums of n_samples products whose variance is "
                  "about n_samples (n_samples / d_k scaled), not d_k (or 1).",
       "where": ["q2"]}),

    "q2_returns_typical_size_standard_deviation": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.std().item()             # sigma = sqrt(d_k), the typical size
'''}, {"mistake": "Returns the sample standard deviation (sigma, the 'typical size' sqrt(d_k)) instead of the "
                  "variance sigma^2: about sqrt(d_k) unscaled (right by chance only for d_k = 1); the scaled value "
                  "is still about 1.",
       "where": ["q2"]}),

    "q4_entropy_taken_in_bits_with_log2": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp()
    return -(p * log_p / math.log(2)).sum(dim=-1)      # H = -sum p log2 p


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The entropy is taken in bits (log base 2, the information-theory habit) where the notebook asks "
                  "for nats: every entropy is 1/ln 2 = 1.4427 times too large (uniform over 5 keys gives 2.32, not "
                  "1.61), in softmax_entropy and in the table's H values.",
       "where": ["q4"]}),

    "q4_p_ln_p_written_out_zero_times_log_zero_nan": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.exp(logits - logits.max(dim=-1, keepdim=True).values)
    p = p / p.sum(dim=-1, keepdim=True)
    return -(p * torch.log(p)).sum(dim=-1)             # H = -sum_j p_j ln p_j


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "H = -sum p ln p is written out with no guard, trusting the limit 0 ln 0 = 0: on a saturated row, "
                  "where probabilities underflow to exactly 0, the floating-point 0 * ln 0 is NaN and the entropy is "
                  "NaN instead of 0.",
       "where": ["q4"]}),

    "q4_table_stds_with_population_divisor_n": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        # sigma = sqrt(E[x^2] - E[x]^2), the standard deviation of the 5 scores
        raw_std = torch.sqrt((raw ** 2).mean() - raw.mean() ** 2)
        scaled_std = torch.sqrt((scaled ** 2).mean() - scaled.mean() ** 2)
        results.append({"d": d, "raw_std": raw_std.item(), "scaled_std": scaled_std.item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The table's stds are written as sqrt(E[x^2] - E[x]^2), the population formula dividing by n, where "
                  "the notebook asks for torch.std's default (unbiased, n - 1): every raw_std and scaled_std is "
                  "sqrt(4/5) = 0.894 times too small (19.8 vs 22.2 at d = 256).",
       "where": ["q4"]}),

    "q5_answer_b_standard_deviation_for_variance": ({"q5_answer": '''
# Var(q.k) ~ sqrt(d_k): the dot product grows like sqrt(d_k), that is why we divide by sqrt(d_k)
q5_answer = "B"
'''}, {"mistake": "Answers B (sqrt(d_k)): the typical size (standard deviation) of q.k is taken for its variance; "
                  "the variance is d_k (C).",
       "where": ["q5"]}),

    "q6_answer_b_cauchy_schwarz_self_score_largest": ({"q6_answer": '''
# Cauchy-Schwarz: X_i . X_j <= |X_i| |X_j| <= |X_i|^2, so the diagonal score is the largest
# and each token attends to itself
q6_answer = "B"
'''}, {"mistake": "Answers B (each token returns itself): Cauchy-Schwarz is misapplied as X_i . X_j <= |X_i|^2 "
                  "(that needs |X_j| <= |X_i|), and the largest score is taken for all the weight; the output is a "
                  "softmax-weighted average of all rows (A).",
       "where": ["q6"]}),

    "q7_answer_c_zero_temperature_limit_taken": ({"q7_answer": '''
# softmax(s / t) -> one-hot argmax as t -> 0, so attention picks the best-scoring key
q7_answer = "C"
'''}, {"mistake": "Answers C (an argmax with no useful gradient): the zero-temperature limit of the softmax is taken "
                  "for the softmax itself; attention returns a softmax-weighted mix of all values (D).",
       "where": ["q7"]}),

    "q8_projections_in_column_vector_convention_w_times_x": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    # q_t = W_Q x_t for every token (column vectors), stacked back as rows
    Q, K, V = (W_Q @ X.T).T, (W_K @ X.T).T, (W_V @ X.T).T
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The projections are written in the column-vector convention q = W x, `(W_Q @ X.T).T`, which is "
                  "X @ W_Q.T: the notebook's row layout needs X @ W_Q, so Q, K and V use the transposed weights and "
                  "the output is wrong (unless the weights are symmetric).",
       "where": ["q8"]}),

    "q8_each_head_given_the_paper_d_model_for_d_k": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_model)   # softmax(QK^T / sqrt(d)) V
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Each head is called with d_model (the paper's d) for its d_k: the head scores are divided by "
                  "sqrt(d_model) instead of sqrt(d_model / n_heads), too soft by a factor sqrt(n_heads); right only "
                  "with one head.",
       "where": ["q8"]}),
}
