"""Forty-seventh blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (as they
stand in `full_marks.ipynb`, whose cells these replace), `harness.py`, blind46.py in full (for the format),
only the module docstrings and variant names of the earlier blind sets (so that their mistakes are not
repeated in the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on
this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1, q7,
q8, q4 and q2 before q6, q3 and q5): two variants each for q1, q2, q4 and q7, one for q8, two each for q3
and q5 and one for q6, in code shapes they did not use: a shape probe made with `torch.tensordot`, which
contracts the feature axis but keeps both batch axes (4, 10, 4, 10), and a shape assembled from slices
where the key count is read from the keys' batch slot (q1); a hand variance whose `/ n - 1` lacks its
parentheses (the biased variance minus one), and a scale divisor taken as the measured standard deviation
of the example's scores instead of sqrt(64) (q2); a denominator passed through `log1p` (log of 1 + sum),
and a hand log-sum-exp whose log and exp were "cancelled" so the shifted logits are simply summed (q3); a
causal mask as the sign of i - j cast to bool (-1 is True as well, 0 on the diagonal is False), and
`torch.meshgrid(..., indexing="ij")` unpacked as (cols, rows) (q4); an empty-row guard that counts a row
with one allowed key as empty (`> 1` for `> 0`, which zeroes query 0 under a causal mask), and scores
re-wrapped in `torch.tensor(...)`, which copies them out of the autograd graph (q5); `F.softmin` picked
for the trace (q6); a first guess "A" left below the answer line so it overwrites "C", and a check of the
trap by the mean of the signed differences (negative, so "< 1e-6" says they agree) (q7); the cost ratio
with an unsquared denominator, 2048 ** 2 // 1024 (q8).
The correct variants use a `torch.cdist` shape probe, `string.ascii_uppercase[2]` and builtin `pow`; a
softmax through `torch.sub`/`torch.div` with the max from `torch.max(..., dim, True)[0]`, a mask padded or
cropped from a square `tril` with `F.pad`, and the variance via `torch.var(..., correction=1)` of the
flattened scores; an attention with its own inline softmax whose max is clamped to `finfo.min` and whose
denominator is clamped to `finfo.tiny` (all-blocked rows come out 0 without NaN); a trace through
`F.softmin` of the negated scores with `mv` per value column; and an attention that fills blocked scores
with `finfo.min` and multiplies the weights by the mask (so all-blocked rows, which come out uniform, are
zeroed).

Public material used (search tool): issues corpus: RasaHQ/rasa_core#800 (probabilities "normalised" with
`np.linalg.norm`'s default instead of the sum: the kind of normaliser slip behind the q3 log1p and
log/exp variants, a denominator that is not the plain sum of exponentials);
pytorch/pytorch#15301 ("torch.meshgrid behaves differently with numpy.meshgrid": torch's ij order against
NumPy's xy order, the x/y-versus-i/j unpacking confusion) and numpy/numpy#16844 (users bitten by which
meshgrid output is which), behind the meshgrid unpacking variant in q4. The other slips are ones
plausible for students of this notebook (NumPy's `tensordot` habit, Python precedence of `/` and `-`,
"log and exp cancel", `sign` read as a boolean test, `> 1` for "at least one",
`torch.tensor(t)` used to "make sure it is a tensor", autocompleted `softmin`, stale lines left in an answer cell,
means of signed differences, half-squared ratios).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` or `stable_softmax` also costs q5 and q6, whose code uses them). Correct variants are
really correct but written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the
notebook's formula) on several shapes and dtypes (float64, float32, float16, bfloat16), including the
notebook's own, with a throwaway script outside the repository; each variant's notebook was also run top to
bottom (all code cells but otter's) without an error.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "cdist_probe_shapes_ascii_uppercase_letter_builtin_pow_costs": {
        "weights_shape": (
            "_q = torch.zeros(4, 10, 64)\n"
            "_k = torch.zeros(4, 10, 64)\n"
            "_v = torch.zeros(4, 10, 128)\n"
            "_w = torch.cdist(_q, _k)                  # one number per (query, key) pair, batched\n"
            "weights_shape = tuple(_w.shape)\n"
            "out_shape = tuple(torch.bmm(_w, _v).shape)\n"
        ),
        "q_trap_answer": (
            "import string\n"
            "\n"
            "q_trap_answer = string.ascii_uppercase[2]      # A, B, C\n"
        ),
        "attn_entries": (
            "attn_entries = pow(1024, 2)\n"
            "score_madds = pow(1024, 2) * 64\n"
            "cost_ratio = pow(2048 // 1024, 2)\n"
        ),
    },
    "softmax_torch_sub_div_mask_padded_from_square_tril_var_correction_one": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    m = torch.max(x, dim, True)[0]\n"
            "    e = torch.exp(torch.sub(x, m))\n"
            "    return torch.div(e, torch.sum(e, dim, keepdim=True))\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    square = torch.tril(torch.ones(T_q, T_q))\n"
            "    return F.pad(square, (0, T_k - T_q)).bool()     # extra key columns are 0, a negative pad crops\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.matmul(Q, K.mT)\n"
            "raw_score_var = torch.var(raw_scores.reshape(-1), correction=1).item()\n"
            "scaled_score_var = torch.var((raw_scores / math.sqrt(d_k)).reshape(-1), correction=1).item()\n"
            "scale_divisor = float(math.sqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
    },
    "sdpa_inline_softmax_max_clamped_to_finfo_min_denominator_to_tiny": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scale = 1.0 / math.sqrt(Q.shape[-1])\n"
            "    scores = torch.matmul(Q, K.transpose(-1, -2)) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask.logical_not(), float(\"-inf\"))\n"
            "    info = torch.finfo(scores.dtype)\n"
            "    m = scores.amax(dim=-1, keepdim=True).clamp_min(info.min)   # an all-blocked row has max -inf\n"
            "    e = torch.exp(scores - m)                                   # blocked entries: exactly 0\n"
            "    denom = e.sum(dim=-1, keepdim=True).clamp_min(info.tiny)     # 0 only for all-blocked rows\n"
            "    return torch.matmul(e / denom, V)\n"
        ),
    },
    "trace_softmin_of_negated_scores_mv_per_value_column": {
        "weights3": (
            "scores3 = torch.mm(Q3, K3.t()) / 2.0\n"
            "weights3 = F.softmin(-scores3, dim=1)                  # softmin(-s) = softmax(s)\n"
            "out3 = torch.stack([weights3.mv(V3[:, c]) for c in range(V3.shape[1])], dim=1)\n"
            "weights3_causal = F.softmin(torch.where(causal_mask(3), -scores3, math.inf), dim=1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "sdpa_finfo_min_fill_weights_multiplied_by_mask": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.shape[-1]\n"
            "    scores = (Q @ K.swapaxes(-1, -2)).mul(d_k ** -0.5)\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)   # finite, never NaN\n"
            "    weights = stable_softmax(scores, dim=-1) * mask     # blocked weights (and all-blocked rows) -> 0\n"
            "    return weights @ V\n"
        ),
    },
}

WRONG = {
    "q1_tensordot_probe_keeps_both_batch_axes": (
        {"weights_shape": (
            "_Qp = torch.zeros(4, 10, 64)\n"
            "_Kp = torch.zeros(4, 10, 64)\n"
            "weights_shape = tuple(torch.tensordot(_Qp, _Kp, dims=([2], [2])).shape)   # dot over the features\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "torch.tensordot contracts the feature axis but is not batched: every query of every "
                    "sequence meets every key of every sequence, so the probe has shape (4, 10, 4, 10); the "
                    "weights of batched attention (Q @ K^T) have shape (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_key_count_read_from_the_batch_slot_of_the_keys": (
        {"weights_shape": (
            "_Qs = torch.Size([4, 10, 64])\n"
            "_Ks = torch.Size([4, 10, 64])\n"
            "_Vs = torch.Size([4, 10, 128])\n"
            "weights_shape = tuple(_Qs[:-1] + _Ks[:1])        # (batch, T_q) + (T_k,)\n"
            "out_shape = tuple(_Qs[:-1] + _Vs[-1:])\n"
        )},
        {"mistake": "the key count T_k is the second entry of K's shape, but _Ks[:1] takes the first one (the "
                    "batch size 4), so weights_shape is (4, 10, 4) instead of (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q2_hand_variance_divides_by_n_then_subtracts_one": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "n = raw_scores.numel()\n"
            "raw_score_var = (((raw_scores - raw_scores.mean()) ** 2).sum() / n - 1).item()\n"
            "_scaled = raw_scores / math.sqrt(d_k)\n"
            "scaled_score_var = (((_scaled - _scaled.mean()) ** 2).sum() / n - 1).item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the unbiased variance divides by (n - 1), but without parentheses `/ n - 1` divides by n and "
                    "then subtracts 1, so both variances are the biased ones minus one (about 5.47 and -0.19, "
                    "a negative variance)",
         "where": ["q2"]},
    ),
    "q2_scale_divisor_from_the_measured_score_std": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(raw_score_var)     # divide by the typical size of a score\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the divisor for a head with d_k = 64 is sqrt(64) = 8.0, a constant fixed by the head width; "
                    "the measured standard deviation of this small example's scores (sqrt(6.6) = 2.57, for "
                    "d_k = 8) is neither the formula nor the right head width",
         "where": ["q2"]},
    ),
    "q3_log1p_adds_one_to_the_denominator": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    log_denom = torch.log1p(torch.exp(shifted).sum(dim=dim, keepdim=True))   # log1p: more accurate log\n"
            "    return torch.exp(shifted - log_denom)\n"
        )},
        {"mistake": "log1p(s) is log(1 + s), not log(s): the denominator becomes 1 + sum of the exponentials, so "
                    "the weights are exp / (1 + sum) and every slice sums to less than 1 (at most 1/2 for the "
                    "max entry, 1/(1 + 1/n) in total for equal logits)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_log_and_exp_cancelled_across_the_sum": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    log_denom = shifted.sum(dim=dim, keepdim=True)        # log(sum(exp(s))): log and exp cancel\n"
            "    return torch.exp(shifted - log_denom)\n"
        )},
        {"mistake": "log and exp do not cancel through a sum: log(sum_j exp(s_j)) is the log-sum-exp, not "
                    "sum_j s_j; dividing by exp(sum of the shifted logits) (a product of the exponentials) "
                    "gives weights that do not sum to 1 (and are inf or NaN when a logit is -inf)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_sign_of_the_offset_cast_to_bool_keeps_both_sides": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    offset = torch.arange(T_q).unsqueeze(1) - torch.arange(T_k).unsqueeze(0)   # i - j\n"
            "    return torch.sign(offset).bool()             # sign is positive when key j comes before i\n"
        )},
        {"mistake": "casting sign(i - j) to bool makes both +1 and -1 True and only 0 False, so the mask lets every "
                    "query see every future key and blocks its own key on the diagonal; the causal test is "
                    "i - j >= 0 (j <= i)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_meshgrid_outputs_unpacked_in_the_wrong_order": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    cols, rows = torch.meshgrid(torch.arange(T_q), torch.arange(T_k), indexing=\"ij\")   # x, y\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "with indexing=\"ij\" meshgrid returns (row index i, column index j) in that order; unpacking "
                    "them as (cols, rows) swaps the two, so the test cols <= rows is really i <= j: the upper "
                    "triangle (each query sees itself and the future) instead of the lower one",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_rows_with_a_single_key_count_as_empty": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.sum(dim=-1, keepdim=True) > 1          # rows that can see some key\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a row can attend when at least one key is allowed (count > 0, or mask.any); `> 1` also "
                    "treats rows with exactly one allowed key as empty and zeroes them, e.g. query 0 under a "
                    "causal mask, whose output should be V's first row",
         "where": ["q5"]},
    ),
    "q5_scores_rewrapped_with_torch_tensor_leave_the_graph": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.tensor(torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k))   # make it a tensor\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "torch.tensor(t) copies a tensor's data into a new leaf tensor that is cut from the autograd "
                    "graph (like t.clone().detach()), so no gradient flows back to Q and K (only V still gets "
                    "one); the scores must stay the result of the tensor operations",
         "where": ["q5"]},
    ),
    "q6_softmin_picked_for_softmax": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = F.softmin(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = F.softmin(scores3.masked_fill(~causal_mask(3), float(\"inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "F.softmin is the softmax of the negated scores, so the largest score gets the smallest "
                    "weight: every row of the weights (and of out3, and the causal rows 1 and 2) puts its mass on "
                    "the least similar key; attention needs softmax(scores)",
         "where": ["q6"]},
    ),
    "q7_stale_first_guess_assigned_after_the_answer": (
        {"q_trap_answer": (
            "q_trap_answer = \"C\"   # the kept weights no longer sum to 1\n"
            "\n"
            "# first guess, before the lesson:\n"
            "q_trap_answer = \"A\"\n"
        )},
        {"mistake": "the old first guess is left below the answer and runs last, so q_trap_answer is \"A\" (the "
                    "claim that zeroing after the softmax is the same as -inf before it), not \"C\"",
         "where": ["q7"]},
    ),
    "q7_trap_check_by_mean_of_signed_differences": (
        {"q_trap_answer": (
            "torch.manual_seed(1)\n"
            "_s = torch.randn(6, 6)\n"
            "_m = causal_mask(6)\n"
            "_after = F.softmax(_s, dim=-1)\n"
            "_after[~_m] = 0.0\n"
            "_before = F.softmax(_s.masked_fill(~_m, float(\"-inf\")), dim=-1)\n"
            "q_trap_answer = \"A\" if (_after - _before).mean() < 1e-6 else \"C\"   # same weights?\n"
        )},
        {"mistake": "the check averages signed differences: the zeroed-after weights are all smaller than the "
                    "renormalised ones, so the mean difference is negative and \"< 1e-6\" reports agreement; "
                    "compare absolute differences (torch.allclose) and the answer is C, not A",
         "where": ["q7"]},
    ),
    "q8_ratio_denominator_left_unsquared": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 ** 2 * 64\n"
            "cost_ratio = 2048 ** 2 // 1024                # (2T)^2 / T^2\n"
        )},
        {"mistake": "the ratio (2T)^2 / T^2 needs T squared in the denominator too; 2048 ** 2 // 1024 divides "
                    "by T once and gives 4096 instead of 4",
         "where": ["q8"]},
    ),
}
