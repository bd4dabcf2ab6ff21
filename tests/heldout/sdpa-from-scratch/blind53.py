"""Fifty-third blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind52.py in full (for the format), and only
the module docstrings and variant names of the other earlier blind sets (so that their mistakes are not
repeated in the same form). The lesson text was not needed. The grader was not run on this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1 and
q7, then q4, q8 and q2, before q6, q3 and q5): three variants for q7, two each for q1, q2, q4, q6 and q8,
one for q5, none for q3 (its only new shape here is a correct one). Code shapes: a weights probe built
channels-first as for `nn.Conv1d` ((batch, features, tokens), so the "weights" come out feature by
feature, (4, 64, 64)), and a shape read with `.stride()` where `.shape` was meant (q1); scores from an
einsum whose feature letter differs between Q and K ("bqd,bke->bqk" sums each operand on its own: a
product of sums, not a dot product), and the divisor for d_model = 512 of the base transformer instead of
the head width 64 (q2); a cross-attention mask that glues False columns to a square triangle (only works
when T_k >= T_q; for T_k < T_q the zeros get a negative width and it raises), and `== 0` typed inside
`torch.triu(...)` instead of after it, so the comparison runs on the ones and the mask is all False (q4);
a "fast path" that skips masking when `mask.any()` is False, exactly the all-blocked case that must give
zero rows (q5); the output mixed from the keys instead of the values, and a boolean mask added to the
scores as if it were a bias (q6); the answer prefixed with "Answer: ", a check that compares the order of
the keys in each row (argsort, which zeroing after the softmax does not change, so A is picked), and the
True option picked from a dict of verdicts with `max(dict)`, which is the largest KEY, "D" (q7); the
multiply-adds read off as the `numel()` of a probe product (its entries, T*T), and a ratio rounded with
`round(x, 0)`, which returns a float (q8).
The correct variants use: a causal mask from the PyTorch `generate_square_subsequent_mask` idiom,
`(triu(ones(T_k, T_q)) == 1).transpose(0, 1)`, with a softmax whose (detached) max shift is followed by
`F.normalize(p=1)`; q6 weights from `logsumexp` and `torch.mm`, with the causal weights obtained by
renormalising the lower triangle of the unmasked weights (equal to masking before the softmax); an
attention written with ellipsis einsums, the scale multiplied in as `1 / sqrt(K.shape[-1])`, the blocked
scores filled via `logical_not()` and fully blocked rows found from the scores with `isneginf(...).all()`;
q1 shapes built from `torch.Size` arithmetic, q2 variance by `statistics.variance` (the sample variance,
as torch's default) with `float(math.isqrt(64))`, q8 counts with `math.prod`; q7 as `"ABCD"[2]` and a
causal mask from `np.tri(T_q, T_k, dtype=bool)` through `torch.from_numpy`.

Public material used (search tool): the einsum threads aladdinpersson/Machine-Learning-Collection#165
(an attention einsum whose letters do not line up gives results that differ from the matmul version) and
decisionintelligence/DUET#6 (an einsum with mismatched/repeated indices silently computes something else),
behind the q2 einsum with a different feature letter per operand; the PyTorch
`generate_square_subsequent_mask` as copied in tiketiskte/MyCode (Python_code/test2.py) and
satwik-kambham/machine-translation (translator/utils.py), `(torch.triu(torch.ones(sz, sz)) == 1)
.transpose(0, 1)`, behind the q4 slip that moves the comparison inside `triu` and behind the correct
transposed-triu mask; the Python documentation of `round` as quoted on bettersolutions.com ("The return
value is an integer if ndigits is omitted or None. Otherwise, the return value has the same type as
number"), behind the q8 `round(x, 0)` float. The other slips are ones plausible for students of this
notebook (Conv1d layouts, autocomplete picking `stride`, d_model for d_k, a cross-attention shortcut, an
"optimisation" guard, K for V, masks as biases, answer templates, argsort as a check, `max` on a dict).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` also costs q5 and q6, whose code may use it). Correct variants are really correct but
written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the
notebook's formula) on several shapes and dtypes (float64, float32, float16, bfloat16), including the
notebook's own, with a throwaway script outside the repository; each variant's notebook was also run top to
bottom (all code cells but otter's) without an error.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "transposed_triu_mask_and_detached_shift_with_l1_normalize": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    # as in nn.Transformer.generate_square_subsequent_mask: the upper triangle of the\n"
            "    # (keys, queries) grid, transposed, is the lower triangle of the (queries, keys) grid\n"
            "    return (torch.triu(torch.ones(T_k, T_q)) == 1).transpose(0, 1)\n"
        ),
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    m = x.amax(dim=dim, keepdim=True).detach()     # a constant shift: softmax does not depend on it\n"
            "    e = torch.exp(x - m)                             # in (0, 1], the largest is exactly 1\n"
            "    return F.normalize(e, p=1.0, dim=dim)            # divide by the sum of |e| = the sum of e\n"
        ),
    },
    "logsumexp_trace_and_causal_by_renormalised_lower_triangle": {
        "weights3": (
            "scores3 = torch.mm(Q3, K3.t()) / 2.0          # sqrt(d_k) = sqrt(4) = 2\n"
            "weights3 = torch.exp(scores3 - torch.logsumexp(scores3, dim=1, keepdim=True))\n"
            "out3 = torch.mm(weights3, V3)\n"
            "# masking before the softmax = keeping the allowed weights and renormalising them to sum to 1\n"
            "_kept = weights3 * causal_mask(3)\n"
            "weights3_causal = _kept / _kept.sum(dim=1, keepdim=True)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "ellipsis_einsum_attention_with_empty_rows_from_isneginf": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    scale = 1.0 / math.sqrt(K.shape[-1])                 # a Python float: exact enough for float64\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask.logical_not(), -math.inf)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        empty = torch.isneginf(scores).all(dim=-1, keepdim=True)   # every key of the query blocked\n"
            "        weights = weights.masked_fill(empty, 0.0)\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", weights, V)\n"
        ),
    },
    "size_arithmetic_statistics_variance_and_math_prod": {
        "weights_shape": (
            "_lead = torch.Size([4, 10])                        # batch, queries\n"
            "weights_shape = tuple(_lead + torch.Size([10]))    # one weight per key\n"
            "out_shape = (*_lead, 128)                          # one d_v-wide mixture per query\n"
        ),
        "raw_score_var": (
            "import statistics\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "raw_score_var = statistics.variance(raw_scores.flatten().tolist())   # sample variance, n - 1\n"
            "scaled_score_var = (raw_scores * d_k ** -0.5).var().item()\n"
            "scale_divisor = float(math.isqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "attn_entries = math.prod((1024, 1024))\n"
            "score_madds = math.prod((1024, 1024, 64))\n"
            "cost_ratio = math.prod((2048, 2048, 64)) // score_madds\n"
        ),
    },
    "letter_indexed_from_options_and_np_tri_mask": {
        "q_trap_answer": (
            "q_trap_answer = \"ABCD\"[2]        # the third option: zeroed rows no longer sum to 1\n"
        ),
        "causal_mask": (
            "import numpy as np\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.from_numpy(np.tri(T_q, T_k, dtype=bool))   # ones at and below the diagonal\n"
        ),
    },
}

WRONG = {
    "q1_weights_probe_built_channels_first_as_for_conv1d": (
        {"weights_shape": (
            "_q = torch.zeros(4, 64, 10)     # (batch, channels, length), as nn.Conv1d wants it\n"
            "_k = torch.zeros(4, 64, 10)\n"
            "weights_shape = tuple((_q @ _k.transpose(-2, -1)).shape)\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "the probe tensors are laid out (batch, features, tokens) as for Conv1d, so Q @ K^T pairs "
                    "features with features and gives (4, 64, 64); in attention the tokens are the second-to-last "
                    "axis and the weights are one per (query, key) pair, (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_weights_shape_read_with_stride_instead_of_shape": (
        {"weights_shape": (
            "_w = torch.zeros(4, 10, 64) @ torch.zeros(4, 10, 64).transpose(-2, -1)\n"
            "weights_shape = tuple(_w.stride())\n"
            "out_shape = tuple((_w @ torch.zeros(4, 10, 128)).shape)\n"
        )},
        {"mistake": "weights_shape is read with .stride() (how many entries to skip along each axis, (100, 10, 1)) "
                    "instead of .shape; the weight tensor's shape is (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q2_einsum_feature_letter_differs_between_queries_and_keys": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bke->bqk\", Q, K)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the feature axis has a different letter in Q (d) and K (e), so einsum sums each one on its "
                    "own and multiplies the sums: (sum_d q_d) * (sum_e k_e), not the dot product sum_d q_d k_d; "
                    "both variances are of the wrong numbers ('bqd,bkd->bqk')",
         "where": ["q2"]},
    ),
    "q2_scale_divisor_for_the_model_width_512": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(512)     # d_model = 512 in the base transformer, 8 heads of 64\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the divisor is taken from the model width d_model = 512 instead of the head width d_k = 64: "
                    "each head's scores are dot products of length 64, so the divisor is sqrt(64) = 8.0, not "
                    "sqrt(512) = 22.6",
         "where": ["q2"]},
    ),
    "q4_square_triangle_glued_to_false_columns_breaks_when_keys_are_fewer": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    tri = torch.ones(T_q, T_q, dtype=torch.bool).tril()\n"
            "    extra = torch.zeros(T_q, T_k - T_q, dtype=torch.bool)   # keys past the last query: nobody sees them\n"
            "    return torch.cat([tri, extra], dim=1)\n"
        )},
        {"mistake": "the mask is a T_q x T_q triangle with False columns glued on for the extra keys, which only "
                    "works when T_k >= T_q; with fewer keys than queries (e.g. (9, 6)) the extra width is "
                    "negative and it raises instead of cutting the triangle to T_k columns",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_comparison_typed_inside_triu_gives_an_all_false_mask": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # not strictly above the diagonal = on or below it\n"
            "    return torch.triu(torch.ones(T_q, T_k) == 0, diagonal=1)\n"
        )},
        {"mistake": "the `== 0` is inside the triu call, so it compares the ones with 0 (all False) and the upper "
                    "triangle of an all-False matrix is still all False: no query may see any key; the comparison "
                    "belongs after it, torch.triu(torch.ones(T_q, T_k), diagonal=1) == 0",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_masking_skipped_when_the_mask_allows_nothing": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None and mask.any():       # skip the work when the mask is empty\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a mask with no True entry at all is treated as 'no mask' and skipped, but all False means "
                    "every key is blocked for every query: the output must be all zeros, not plain unmasked "
                    "attention",
         "where": ["q5"]},
    ),
    "q6_output_mixed_from_the_keys_not_the_values": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ K3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the output mixes the keys (weights3 @ K3, shape (3, 4)) instead of the values; each query's "
                    "output is the weighted sum of the VALUES, weights3 @ V3, shape (3, 2)",
         "where": ["q6"]},
    ),
    "q6_boolean_mask_added_to_the_scores_as_a_bias": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3 + causal_mask(3), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the boolean causal mask is added to the scores, which adds 1 to the allowed scores and 0 to "
                    "the blocked ones, so the future keys keep a positive weight; blocked scores must become -inf "
                    "(masked_fill) before the softmax so that their weight is exactly 0",
         "where": ["q6"]},
    ),
    "q7_answer_written_with_an_answer_prefix": (
        {"q_trap_answer": (
            "q_trap_answer = \"Answer: C\"\n"
        )},
        {"mistake": "the value is the string 'Answer: C' instead of the single letter 'C' that is asked for",
         "where": ["q7"]},
    ),
    "q7_check_compares_the_order_of_keys_in_each_row": (
        {"q_trap_answer": (
            "_g = torch.Generator().manual_seed(0)\n"
            "_scores = torch.randn(5, 5, generator=_g)\n"
            "_mask = causal_mask(5)\n"
            "_reference = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
            "_shortcut = F.softmax(_scores, dim=-1)\n"
            "_shortcut[~_mask] = 0.0\n"
            "# same ranking of the keys in every row -> the same attention pattern\n"
            "_same = torch.equal(_shortcut.argsort(dim=-1, stable=True), _reference.argsort(dim=-1, stable=True))\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        )},
        {"mistake": "the check compares only the ORDER of the weights in each row, which zeroing after the softmax "
                    "keeps (the kept weights are the right ones times a common factor below 1), so it concludes A; "
                    "the values differ because the rows no longer sum to 1, answer C",
         "where": ["q7"]},
    ),
    "q7_true_option_taken_with_max_of_the_verdict_dict": (
        {"q_trap_answer": (
            "_verdicts = {\"A\": False, \"B\": False, \"C\": True, \"D\": False}\n"
            "q_trap_answer = max(_verdicts)     # the option marked True\n"
        )},
        {"mistake": "max() of a dict compares its KEYS, so it returns 'D' (the last letter) whatever the verdicts; "
                    "the option marked True is C (max(_verdicts, key=_verdicts.get))",
         "where": ["q7"]},
    ),
    "q8_madds_read_off_as_the_numel_of_a_probe_product": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = (torch.zeros(1024, 64) @ torch.zeros(64, 1024)).numel()\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "numel() of the product counts its entries (1024 * 1024), not the work: each entry is a dot "
                    "product of length d_k = 64, so Q @ K.T takes 1024 * 1024 * 64 = 67108864 multiply-adds",
         "where": ["q8"]},
    ),
    "q8_ratio_rounded_with_round_ndigits_zero_is_a_float": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = round((2 * 1024) ** 2 * 64 / score_madds, 0)\n"
        )},
        {"mistake": "round(x, 0) with an ndigits argument returns a float (4.0), not the Python int asked for; "
                    "round(x) or // gives the int 4",
         "where": ["q8"]},
    ),
}
