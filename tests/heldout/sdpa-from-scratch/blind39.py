"""Thirty-ninth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, lesson 80 in /work/shared/lessons/, blind38.py
in full (for the format), and only the module docstrings and variant names of the earlier blind sets (so
that their mistakes are not repeated in the same form). The grader was not run on this set.

This round leans on the questions earlier sets touched least (q7, q1, q8, q2, q4) and on code shapes they
used little: shapes written as a dict of named axes, and shapes read off a probe through
`nn.MultiheadAttention`, whose output projection maps back to `embed_dim` (q1); a variance computed with
`statistics.pvariance`, and one left as the NumPy float32 scalar that `np.var` returns (q2); exponentials
written into the caller's tensor with `torch.exp(..., out=x)` (q3); a lower triangle of a numbered grid
cast with `.bool()`, which drops the cell numbered 0, and `nn.Transformer.generate_square_subsequent_mask`
(an additive 0 / -inf mask) cast with `.bool()`, which turns it inside out (q4); an empty-row flag made a
float32 tensor with `.float()`, which promotes half-precision weights (q5); per-row prefix softmaxes stacked
with `pad_sequence`, whose default is `batch_first=False` (q6); an agreement check reduced with `.any()`
instead of `.all()`, and the answer given as a one-hot vector over the options (q7); a cost ratio given as
the growth exponent, counts copied from a printout with thousands separators, and 2^20 typed as `2e20`
(q8). The correct variants use `statistics.variance`, `math.comb`, a probe through `matmul` with `.mT`,
positional `max(dim, True)[0]`, `generate_square_subsequent_mask(...) == 0`, an einsum with a `** -0.5`
scale and `Tensor.where`, `pad_sequence(batch_first=True)` in the trace, and a mask from a cumulative sum
of ones.

Public material used (search tool, issues corpus): pytorch/pytorch#54128 ("Dimension Configuration
regarding MultiheadAttention": the output of `nn.MultiheadAttention` has the query's `embed_dim`, not
`vdim`), the source of the q1 probe variant; pytorch/pytorch#50010 and #2436 (torch's `.var()` applies
Bessel's correction, NumPy's and the population variance do not), behind the q2 `statistics.pvariance`
variant and the q2 NumPy variant that passes `ddof=1` but keeps NumPy's float32 scalar; pytorch/pytorch#93683
and #68966 ("functions with out=... arguments don't support automatic differentiation"), behind the q3
`out=x` variant, which also overwrites the caller's scores; pytorch/pytorch#50276 and numpy/numpy#16844
(defaults of `meshgrid` that differ between libraries), which led to looking for other silent defaults,
here `pad_sequence`'s `batch_first=False` (q6). `nn.Transformer.generate_square_subsequent_mask` returning a
float mask with 0 on and below the diagonal and -inf above it was checked on torch 2.13 (q4). The other
slips are ones plausible for students of this notebook.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5 and q6, whose code calls it; a broken `causal_mask` also costs q5 and
q6). Correct variants are really correct but written differently from full_marks. Every variant was checked
against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`, the lesson's formula) on several
shapes and dtypes, including the notebook's own, with a throwaway script outside the repository.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "matmul_probe_shapes_statistics_variance_comb_counts_indexed_letter": {
        "weights_shape": (
            "_probe = torch.empty(4, 10, 64).matmul(torch.empty(4, 10, 64).mT)   # only its shape is used\n"
            "weights_shape = tuple(_probe.shape)\n"
            "out_shape = (*weights_shape[:-1], 128)\n"
        ),
        "raw_score_var": (
            "import statistics\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = statistics.variance(raw_scores.flatten().tolist())     # sample variance, n - 1\n"
            "scaled_score_var = statistics.variance((raw_scores / math.sqrt(d_k)).flatten().tolist())\n"
            "scale_divisor = float(math.isqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"ABCD\"[2]\n"
        ),
        "attn_entries": (
            "attn_entries = math.comb(1024, 2) * 2 + 1024   # ordered pairs of distinct tokens, plus self-pairs\n"
            "score_madds = attn_entries * 64\n"
            "cost_ratio = (2 * 1024) ** 2 // 1024 ** 2\n"
        ),
    },
    "softmax_positional_keepdim_mask_from_subsequent_mask_eq_zero": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    top = x.max(dim, True)[0]\n"
            "    e = (x - top).exp()\n"
            "    return e / e.sum(dim, True)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    n = max(T_q, T_k)\n"
            "    # additive mask: 0 where a key is visible, -inf where it is in the future\n"
            "    additive = torch.nn.Transformer.generate_square_subsequent_mask(n)\n"
            "    return additive[:T_q, :T_k] == 0\n"
        ),
    },
    "sdpa_einsum_power_scale_where_method_sum_of_mask": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * Q.shape[-1] ** -0.5\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask.logical_not(), -torch.inf)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        keep = mask.sum(dim=-1, keepdim=True).bool()      # at least one visible key\n"
            "        weights = weights.where(keep, weights.new_zeros(()))\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", weights, V)\n"
        ),
    },
    "trace_exp_ratio_einsum_prefix_softmax_padded_batch_first": {
        "weights3": (
            "from torch.nn.utils.rnn import pad_sequence\n"
            "\n"
            "scores3 = torch.mm(Q3, K3.t()) / 2.0\n"
            "e3 = torch.exp(scores3)                       # the scores are small: no overflow here\n"
            "weights3 = e3 / e3.sum(dim=1, keepdim=True)\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "# query i sees keys 0..i: softmax over that prefix, rows padded with zeros on the right\n"
            "prefix_rows = [torch.softmax(scores3[i, : i + 1], dim=0) for i in range(3)]\n"
            "weights3_causal = pad_sequence(prefix_rows, batch_first=True)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "mask_from_cumsum_of_ones_letter_upper": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    key_number = torch.ones(T_q, T_k).cumsum(dim=1)              # 1, 2, ..., T_k along each row\n"
            "    return key_number <= torch.arange(1, T_q + 1).unsqueeze(1)   # key j is number j + 1\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"abcd\"[2].upper()\n"
        ),
    },
}

WRONG = {
    "q1_shapes_as_dicts_of_named_axes": (
        {"weights_shape": (
            "weights_shape = {\"batch\": 4, \"queries\": 10, \"keys\": 10}\n"
            "out_shape = {\"batch\": 4, \"queries\": 10, \"d_v\": 128}\n"
        )},
        {"mistake": "the shapes are written as dicts of named axes (as in einops or named tensors); the question "
                    "asks for tuples of ints, (4, 10, 10) and (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q1_out_shape_probed_through_multihead_attention": (
        {"weights_shape": (
            "_mha = torch.nn.MultiheadAttention(embed_dim=64, num_heads=1, kdim=64, vdim=128, batch_first=True)\n"
            "_out, _w = _mha(torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128))\n"
            "weights_shape = tuple(_w.shape)\n"
            "out_shape = tuple(_out.shape)\n"
        )},
        {"mistake": "out_shape is read off nn.MultiheadAttention, whose output projection maps back to embed_dim "
                    "= 64, so it gives (4, 10, 64); plain attention returns weights @ V, whose width is V's, "
                    "(4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_population_variance_from_statistics": (
        {"raw_score_var": (
            "import statistics\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = statistics.pvariance(raw_scores.flatten().tolist())\n"
            "scaled_score_var = statistics.pvariance((raw_scores / math.sqrt(d_k)).flatten().tolist())\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "statistics.pvariance is the population (biased) variance, dividing by n = 50 instead of "
                    "n - 1 = 49, so both variances are 2% too small; the question asks for torch's default "
                    ".var(), the unbiased estimator (statistics.variance)",
         "where": ["q2"]},
    ),
    "q2_variances_left_as_numpy_float32": (
        {"raw_score_var": (
            "import numpy as np\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = np.var(raw_scores.numpy(), ddof=1)       # ddof=1: same estimator as torch's .var()\n"
            "scaled_score_var = np.var((raw_scores / math.sqrt(d_k)).numpy(), ddof=1)\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the variances are the numpy.float32 scalars that np.var returns on a float32 array, not the "
                    "Python floats the question asks for; wrap them in float() (or use .var().item())",
         "where": ["q2"]},
    ),
    "q3_exponentials_written_into_the_input": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    m = x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(x - m, out=x)        # reuse x's memory instead of allocating a new tensor\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "torch.exp(..., out=x) writes the exponentials into the caller's tensor: the logits passed in "
                    "are overwritten (q6 then masks the overwritten scores3), and when x requires grad the out= "
                    "call raises, so no gradient reaches Q, K, V; compute exps in a new tensor",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_tril_of_numbered_grid_cast_to_bool": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    grid = torch.arange(T_q * T_k).reshape(T_q, T_k)    # number every (query, key) cell\n"
            "    return torch.tril(grid).bool()                     # keep the lower triangle\n"
        )},
        {"mistake": ".bool() tests for non-zero, and the grid's cell [0, 0] is numbered 0, so query 0 may not "
                    "see key 0 and has no key at all; build the triangle from ones (or compare positions j <= i)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_subsequent_mask_cast_to_bool_is_inverted": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    n = max(T_q, T_k)\n"
            "    square = torch.nn.Transformer.generate_square_subsequent_mask(n)\n"
            "    return square[:T_q, :T_k].bool()\n"
        )},
        {"mistake": "generate_square_subsequent_mask is an additive float mask, 0 where a key is visible and -inf "
                    "above the diagonal; .bool() makes -inf True and 0 False, so the mask is True exactly on the "
                    "future keys (j > i), the opposite of the convention; compare it with == 0",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_empty_row_flag_made_float32": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    has_key = mask.any(dim=-1, keepdim=True).float()    # 1.0 for rows with a key, 0.0 otherwise\n"
            "    return torch.matmul(weights * has_key, V)\n"
        )},
        {"mistake": "the empty-row flag is made a float32 tensor with .float(), so for float16 and bfloat16 inputs "
                    "weights * has_key is promoted to float32 and no longer matches V's dtype (the product "
                    "fails, or the output is not in the inputs' dtype); keep the flag bool or cast it to "
                    "weights.dtype",
         "where": ["q5"]},
    ),
    "q6_prefix_softmaxes_padded_sequence_first": (
        {"weights3": (
            "from torch.nn.utils.rnn import pad_sequence\n"
            "\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# query i only sees keys 0..i: softmax over that prefix, then pad the rows to length 3\n"
            "rows = [stable_softmax(scores3[i, : i + 1], dim=-1) for i in range(3)]\n"
            "weights3_causal = pad_sequence(rows)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "pad_sequence stacks the padded rows along dim 1 by default (batch_first=False), so "
                    "weights3_causal is the transpose of the causal weights: an upper triangle whose columns, not "
                    "rows, sum to 1; pass batch_first=True",
         "where": ["q6"]},
    ),
    "q7_agreement_checked_with_any": (
        {"q_trap_answer": (
            "_g = torch.Generator().manual_seed(1)\n"
            "_s = torch.randn(5, 5, dtype=torch.float64, generator=_g)\n"
            "_proper = stable_softmax(_s.masked_fill(~causal_mask(5), float(\"-inf\")), dim=-1)\n"
            "_shortcut = F.softmax(_s, dim=-1)\n"
            "_shortcut[~causal_mask(5)] = 0.0\n"
            "_agree = bool(torch.isclose(_shortcut, _proper).any())\n"
            "q_trap_answer = \"A\" if _agree else \"C\"\n"
        )},
        {"mistake": "the agreement check is reduced with .any() instead of .all(): the zeroed entries (and the last "
                    "row, which sees every key) agree, so it concludes \"A\"; the kept weights of the other rows "
                    "differ, and the answer is \"C\"",
         "where": ["q7"]},
    ),
    "q7_answer_as_one_hot_vector": (
        {"q_trap_answer": (
            "q_trap_answer = [0, 0, 1, 0]     # one-hot over the options A, B, C, D\n"
        )},
        {"mistake": "the answer is a one-hot list over the options, not the letter \"C\" as a string that the "
                    "question asks for",
         "where": ["q7"]},
    ),
    "q8_ratio_given_as_growth_exponent": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 2          # the cost is quadratic in T: O(T^2)\n"
        )},
        {"mistake": "cost_ratio is the exponent of T in T^2 d_k, not the factor by which the cost grows when T "
                    "doubles, which is 2 ** 2 = 4",
         "where": ["q8"]},
    ),
    "q8_counts_copied_from_formatted_printout": (
        {"attn_entries": (
            "attn_entries = \"1,048,576\"        # as printed by f\"{1024 ** 2:,}\"\n"
            "score_madds = \"67,108,864\"\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the counts are strings copied from a printout with thousands separators, not Python ints; "
                    "write 1024 ** 2 and 1024 * 1024 * 64",
         "where": ["q8"]},
    ),
    "q8_two_to_the_twenty_typed_as_2e20": (
        {"attn_entries": (
            "attn_entries = int(2e20)            # 2^20 entries\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "2e20 is 2 x 10^20 in Python, not 2^20: attn_entries is 200,000,000,000,000,000,000 instead of "
                    "2 ** 20 = 1,048,576",
         "where": ["q8"]},
    ),
}
