"""Seventy-seventh blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind75.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: A MATHEMATICIAN'S OR STATISTICIAN'S HABITS. Each wrong cell writes a formula as it stands on
paper and trusts the algebra: d_v read off `V in R^{T_k x d_v}` with the formula's one-based axis number (q1);
the variance as E[x^2] - E[x]^2 (divisor n, not the unbiased n - 1), the scaled variance from the closed form
var(x / c) = var(x) / c with the square forgotten, and a statistician's pooled within-row variance in place of
the variance of all entries (q2); the log partition function approximated by its largest term (the "max" limit
of log-sum-exp) so that nothing is normalised, the log partition function summed over every entry as for a joint
distribution, and a sum over i = 1..n carried into code as a slice from index 1 (q3); j <= i rewritten as
j / i <= 1, which is false for query 0 (0 / 0 and j / 0) (q4); the scale with d_k - 1 "degrees of freedom", and a
fully masked row given the uniform limit of the softmax (q5); the causal trace normalised with the unmasked
partition function Z reused (q6); answer D because the two methods agree in exact arithmetic (q7); the weight
matrix counted as a symmetric one with T(T + 1) / 2 entries, and the multiply-adds given in big-O terms with the
d_k factor dropped (q8). The correct variants write the formulas out, but stably: max subtracted, log-sum-exp
with the max added back, the unbiased variance written as a two-pass sum over n - 1, positions compared
directly, costs from the products of the sizes.

Public material used (search tool):
- q3 / correct log-softmax: Stack Overflow 61567597 ("How is log_softmax implemented...": `np.exp(x) /
  np.exp(x).sum()` overflows to nan, and the shifted log-softmax `x - c - log(sum(exp(x - c)))`),
  mwolf.dev/general/log-sum-exp-trick and shusei-e.github.io "Softmax without Overflow" (the exp-normalise
  written from the formula).
- The other kinds (E[x^2] - E[x]^2 with divisor n against torch's unbiased default, var(x / c) = var(x) / c^2,
  pooled variance, log-sum-exp approximated by the max, 1-based sums, indicators written as ratios, degrees of
  freedom, limits of the softmax, counting entries of symmetric matrices, big-O dropping a factor) are the habits
  this round's brief lists.

How the variants were checked: a throwaway script under /tmp/w77-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's
formulas: the softmax on 1-D to 4-D inputs and positive and negative dims, large float16 logits, -inf entries;
the mask for square and rectangular sizes; the attention on 3-D and 4-D shapes, T_q != T_k, d_v != d_k, 2-D and
per-batch masks, fully masked rows, float64 / float32 / float16 / bfloat16, large float16 scores, gradients; the
answers of q1, q2, q6, q7, q8 against their formulas. The correct variants match everywhere; each wrong one
differs where its "where" says and nowhere else, and no notebook cell of any variant raises.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points.
"""

_SOFTMAX_HEAD = (
    "def stable_softmax(x, dim=-1):\n"
    "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
)

_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)

_Q2 = (
    "d_k = Q.shape[-1]\n"
    "raw_scores = Q @ K.transpose(-2, -1)\n"
    "{raw}\n"
    "{scaled}\n"
    "scale_divisor = math.sqrt(64)\n"
    "print(raw_score_var, scaled_score_var, scale_divisor)\n"
)

_SOFTMAX_LSE_OK = (
    _SOFTMAX_HEAD
    + "    # log softmax(x)_j = x_j - log sum_i exp(x_i) = (x_j - m) - log sum_i exp(x_i - m),  m = max_i x_i\n"
    "    m = x.amax(dim=dim, keepdim=True)\n"
    "    log_z = torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))\n"
    "    return torch.exp((x - m) - log_z)\n"
)

CORRECT = {
    "log_softmax_by_hand_with_the_max_added_back_and_positions_compared_directly": {
        "stable_softmax": _SOFTMAX_LSE_OK,
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"M_ij = 1[j <= i], i = 0..T_q-1, j = 0..T_k-1.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    i = torch.arange(T_q).reshape(T_q, 1)\n"
            "    j = torch.arange(T_k).reshape(1, T_k)\n"
            "    return j <= i\n"
        ),
        "scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.shape[-1]                      # the key width, not the model width\n"
            "    S = torch.einsum(\"...id,...jd->...ij\", Q, K) / math.sqrt(d_k)\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...ij,...jd->...id\", stable_softmax(S, dim=-1), V)\n"
            "    S = S.masked_fill(~mask, float(\"-inf\"))\n"
            "    A = stable_softmax(S, dim=-1)\n"
            "    A = torch.where(mask.any(dim=-1, keepdim=True), A, torch.zeros_like(A))   # 0 * log 0 := 0 rows\n"
            "    return torch.einsum(\"...ij,...jd->...id\", A, V)\n"
        ),
    },
    "unbiased_variance_as_two_pass_sum_over_n_minus_one_and_costs_from_products": {
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "\n"
            "def sample_variance(x):\n"
            "    # s^2 = 1/(n-1) sum_i (x_i - xbar)^2, two passes (no E[x^2] - E[x]^2 cancellation)\n"
            "    x = x.double().flatten()\n"
            "    n = x.numel()\n"
            "    xbar = x.sum() / n\n"
            "    return (((x - xbar) ** 2).sum() / (n - 1)).item()\n"
            "\n"
            "raw_score_var = sample_variance(raw_scores)\n"
            "scaled_score_var = sample_variance(raw_scores / math.sqrt(d_k))\n"
            "scale_divisor = float(64) ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "T, d_k_head = 1024, 64\n"
            "attn_entries = T * T                    # T_q * T_k, every (query, key) pair, no symmetry\n"
            "score_madds = T * T * d_k_head          # sum_{i,j} d_k\n"
            "cost_ratio = (2 * T) ** 2 * d_k_head // (T * T * d_k_head)\n"
        ),
        "q_trap_answer": (
            "# zeroing after the softmax leaves row sums 1 - sum of removed weights < 1\n"
            "q_trap_answer = \"C\"\n"
        ),
    },
    "exp_normalise_with_max_shift_scale_on_queries_and_trace_written_out": {
        "stable_softmax": (
            _SOFTMAX_HEAD
            + "    c = torch.max(x, dim=dim, keepdim=True).values     # softmax(x) = softmax(x - c)\n"
            "    num = torch.exp(x - c)\n"
            "    Z = torch.sum(num, dim=dim, keepdim=True)\n"
            "    return num / Z\n"
        ),
        "scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = K.shape[-1]\n"
            "    scores = (Q * (1.0 / math.sqrt(d_k))) @ K.transpose(-2, -1)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask.logical_not(), float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(mask.logical_not().all(dim=-1, keepdim=True), 0.0)\n"
            "    return weights @ V\n"
        ),
        "scores3": (
            "d3 = Q3.shape[-1]\n"
            "scores3 = Q3 @ K3.T / math.sqrt(d3)\n"
            "E = torch.exp(scores3 - scores3.max(dim=1, keepdim=True).values)\n"
            "weights3 = E / E.sum(dim=1, keepdim=True)\n"
            "out3 = weights3 @ V3\n"
            "M = causal_mask(3)\n"
            "Sc = scores3.masked_fill(~M, float(\"-inf\"))\n"
            "Ec = torch.exp(Sc - Sc.max(dim=1, keepdim=True).values)\n"
            "weights3_causal = Ec / Ec.sum(dim=1, keepdim=True)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "shapes_from_index_notation_and_variance_with_correction_one": {
        "weights_shape": (
            "# Q in R^{B x T_q x d_k}, K in R^{B x T_k x d_k}, V in R^{B x T_k x d_v} (axes 0, 1, 2)\n"
            "B, T_q, d_k_ = 4, 10, 64\n"
            "T_k, d_v = 10, 128\n"
            "weights_shape = (B, T_q, T_k)\n"
            "out_shape = (B, T_q, d_v)\n"
        ),
        "raw_score_var": _Q2.format(
            raw="raw_score_var = float(torch.var(raw_scores, correction=1))",
            scaled="scaled_score_var = float(torch.var(raw_scores / d_k ** 0.5, correction=1))",
        ),
    },
}

WRONG = {
    "q1_d_v_read_off_with_the_formulas_one_based_axis_number": (
        {"weights_shape": (
            "q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
            "# V in R^{T_k x d_v} per batch entry: d_v is the 2nd dimension of V\n"
            "weights_shape = (q_shape[0], q_shape[1], k_shape[1])\n"
            "out_shape = (q_shape[0], q_shape[1], v_shape[2 - 1])\n"
        )},
        {"mistake": "d_v is read off as 'the 2nd dimension of V' with the formula's one-based count carried into "
                    "Python indexing, v_shape[1], which is T_k = 10: out_shape is (4, 10, 10) instead of "
                    "(4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_variance_as_mean_of_squares_minus_squared_mean_divides_by_n": (
        {"raw_score_var": _Q2.format(
            raw="raw_score_var = ((raw_scores ** 2).mean() - raw_scores.mean() ** 2).item()   # E[x^2] - E[x]^2",
            scaled="scaled_score_var = (((raw_scores / math.sqrt(d_k)) ** 2).mean()\n"
                   "                    - (raw_scores / math.sqrt(d_k)).mean() ** 2).item()",
        )},
        {"mistake": "both variances are written as E[x^2] - E[x]^2, the population variance with divisor n = 50, "
                    "not torch's default unbiased .var() with n - 1 = 49 that the question asks for, so both "
                    "are 49/50 of the expected values",
         "where": ["q2"]},
    ),
    "q2_scaled_variance_from_closed_form_divided_by_sqrt_d_k_not_d_k": (
        {"raw_score_var": _Q2.format(
            raw="raw_score_var = raw_scores.var().item()",
            scaled="scaled_score_var = raw_score_var / math.sqrt(d_k)    # var(x / c) = var(x) / c",
        )},
        {"mistake": "the scaled variance is taken from the rule var(x / c) = var(x) / c with the square "
                    "forgotten, so it is the raw variance divided by sqrt(8) instead of by 8",
         "where": ["q2"]},
    ),
    "q2_variance_pooled_as_the_mean_of_the_per_query_row_variances": (
        {"raw_score_var": _Q2.format(
            raw="raw_score_var = raw_scores.var(dim=-1).mean().item()          # pooled within-row variance",
            scaled="scaled_score_var = (raw_scores / math.sqrt(d_k)).var(dim=-1).mean().item()",
        )},
        {"mistake": "each query row's unbiased variance is taken and the ten are averaged (a pooled within-group "
                    "variance), which leaves out the spread between the rows' means and uses n - 1 = 4 per row, "
                    "instead of the variance of all 50 entries",
         "where": ["q2"]},
    ),
    "q3_log_partition_approximated_by_the_max_alone_leaves_slices_unnormalised": (
        {"stable_softmax": (
            _SOFTMAX_HEAD
            + "    # log Z = log sum_i exp(x_i) ~= max_i x_i  (the largest term dominates)\n"
            "    log_z = x.amax(dim=dim, keepdim=True)\n"
            "    return torch.exp(x - log_z)\n"
        )},
        {"mistake": "the log partition function log sum exp(x) is replaced by its largest term max(x), so the "
                    "result is exp(x - max): the largest entry gets 1 and the slices do not sum to 1",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_log_partition_summed_over_every_entry_as_for_a_joint_distribution": (
        {"stable_softmax": (
            _SOFTMAX_HEAD
            + "    m = x.amax(dim=dim, keepdim=True)\n"
            "    log_z = torch.log(torch.exp(x - m).sum())     # Z = sum over all outcomes\n"
            "    return torch.exp((x - m) - log_z)\n"
        )},
        {"mistake": "the normaliser sum exp(x - m) is taken over every entry of the tensor, not along dim, so for "
                    "more than one slice each slice sums to less than 1 (and the slices' shifts differ)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_denominator_sum_from_index_one_skips_the_first_term": (
        {"stable_softmax": (
            _SOFTMAX_HEAD
            + "    n = x.size(dim)\n"
            "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
            "    Z = e.narrow(dim, 1, n - 1).sum(dim=dim, keepdim=True)   # sum_{i=1}^{n} e^{x_i}\n"
            "    return e / Z\n"
        )},
        {"mistake": "the denominator sum_{i=1}^{n} is carried into code as the slice from index 1, so the first "
                    "entry of each slice is left out of Z: slices sum to more than 1 (inf or nan when the first "
                    "entry is the only nonzero one)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_j_le_i_rewritten_as_ratio_j_over_i_le_one_fails_at_query_zero": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j / i <= 1.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    i = torch.arange(T_q, dtype=torch.float64).unsqueeze(1)\n"
            "    j = torch.arange(T_k, dtype=torch.float64).unsqueeze(0)\n"
            "    return j / i <= 1\n"
        )},
        {"mistake": "j <= i is rewritten as j / i <= 1, which only holds for i > 0: for query 0, 0 / 0 is nan and "
                    "j / 0 is inf, so row 0 is all False and query 0 may not even see key 0",
         "where": ["q4", "q6"]},
    ),
    "q5_scale_uses_d_k_minus_one_degrees_of_freedom": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.size(-1)\n"
            "    # unbiased: the score's variance estimate has d_k - 1 degrees of freedom\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k - 1)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scores are divided by sqrt(d_k - 1) (a statistician's n - 1) instead of sqrt(d_k), so "
                    "they are too large and every weight is off",
         "where": ["q5"]},
    ),
    "q5_fully_masked_row_given_the_uniform_limit_of_the_softmax": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        # all logits equal (-> -inf together): the limit of the softmax is uniform, 1 / T_k\n"
            "        weights = torch.where(has_key, weights, torch.full_like(weights, 1.0 / scores.size(-1)))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a query whose keys are all masked gets the uniform weights 1 / T_k (the limit of the softmax "
                    "of equal logits), so its output row is the mean of V instead of zeros",
         "where": ["q5"]},
    ),
    "q6_causal_weights_normalised_with_the_unmasked_partition_function": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "E3 = torch.exp(scores3 - scores3.max(dim=-1, keepdim=True).values)\n"
            "Z3 = E3.sum(dim=-1, keepdim=True)\n"
            "weights3 = E3 / Z3\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = E3 * causal_mask(3) / Z3          # same Z, masked numerator\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the causal weights reuse the unmasked partition function Z (the sum over all three keys) with "
                    "the masked numerator, so rows 0 and 1 of weights3_causal sum to less than 1",
         "where": ["q6"]},
    ),
    "q7_answer_d_since_the_two_agree_in_exact_arithmetic": (
        {"q_trap_answer": (
            "# exp(-inf) = 0 exactly, so in exact arithmetic the -inf fill and the zeroing give the same weights;\n"
            "# any difference can only come from rounding, which matters in half precision\n"
            "q_trap_answer = \"D\"\n"
        )},
        {"mistake": "answers D, trusting that zeroing after the softmax equals the -inf fill in exact arithmetic "
                    "and only rounding differs; in fact the kept weights are not renormalised (C)",
         "where": ["q7"]},
    ),
    "q8_attn_entries_counted_as_the_independent_entries_of_a_symmetric_matrix": (
        {"attn_entries": (
            "T = 1024\n"
            "attn_entries = T * (T + 1) // 2      # a T x T (symmetric) matrix has T(T+1)/2 entries\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the weight matrix is counted as a symmetric matrix, T(T + 1) / 2 = 524800 entries, but Q K^T "
                    "is not symmetric and the weights have all T^2 = 1048576 entries",
         "where": ["q8"]},
    ),
    "q8_score_madds_in_big_o_terms_with_d_k_dropped_as_a_constant": (
        {"attn_entries": (
            "T = 1024\n"
            "attn_entries = T ** 2\n"
            "score_madds = T ** 2                 # O(T^2 d_k) = O(T^2) for fixed d_k\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the multiply-adds are given in big-O terms with the fixed d_k dropped as a constant, "
                    "T^2 = 1048576 instead of T^2 d_k = 67108864",
         "where": ["q8"]},
    ),
}
