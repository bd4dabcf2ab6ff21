"""Forty-sixth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (as they
stand in `full_marks.ipynb`, whose cells these replace), `harness.py`, blind45.py in full (for the format),
only the module docstrings and variant names of the earlier blind sets (so that their mistakes are not
repeated in the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on
this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1, q7,
q8, q4 and q2 before q6, q3 and q5): two variants each for q1, q7 and q8, one each for q2 and q4, and two
each for q3, q5 and q6, in code shapes they did not use: a shape probe that multiplies queries and keys
elementwise and sums the features (only the (query i, key i) pairs, so the key axis is lost), and an output
probe that broadcasts weights against values but never sums over the keys (q1); a hand variance whose
count n is T * T of one sequence while the sum runs over the whole batch (q2); exponentials taken with
`exp2` as in fused kernels but with the log2(e) factor divided instead of multiplied, and exponentials taken
as powers of a typed 2.718 (q3); a causal mask from `torch.heaviside` whose `values` (the value at a zero difference, i.e. the
diagonal) was given as 0 (q4); an inline softmax shifted by the global max of the whole score tensor, and an
output einsum whose value operand got its own letter for the key axis, so that both operands are summed
separately (q5); causal weights whose denominators come from `cumsum` along the keys (the prefix sum up to
column j instead of up to row i), and a trace computed in bfloat16 (q6); the letter as a bytes literal and a
triple-quoted letter that keeps its newlines (q7); the multiply-adds summed off a float probe (a float, not
an int) and the entry count from `np.square` (a NumPy int64, not a Python int) (q8).
The correct variants use meta-device probes for the shapes, `Size.numel`/`math.prod`, `"c".upper()`; a
softmax shifted by `amax` and normalised through `logsumexp` of the shifted logits, a mask as the zeros of
an additive `triu` bias, the variance with `torch.cov`; an attention with `torch.where`, `K.adjoint()`, a
`** -0.5` scale and all-blocked rows cleared with `masked_fill` of the weights; a trace with `torch.inner`,
`F.scaled_dot_product_attention` on identity values and causal weights renormalised from `tril`; and an
einsum attention with prescaled queries whose empty rows get finite zero scores and are multiplied away.

Public material used (search tool): issues corpus: aladdinpersson/Machine-Learning-Collection#165 (an
einsum attention whose output string does not match the plain matmul one: letters of the value product
not tied to the weights' key axis) and decisionintelligence/DUET#6, alan-cooney/transformer-from-scratch#52
("Fix attention einsum") behind the q5 einsum-letter variant; docs corpus: the `torch.heaviside` page
(pytorch.org/docs/stable/generated/torch.heaviside: `values` is what the step takes where the input is
exactly zero) behind the q4 variant. The other slips are ones plausible for students of this notebook
(e typed as 2.718, the base-2 exponential of fused kernels, bfloat16 "as on the GPU", bytes and triple-quoted
strings, NumPy scalars, prefix sums for causal normalisation, sums of float probes).

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
    "meta_device_probes_size_numel_math_prod_upper_letter": {
        "weights_shape": (
            "_q = torch.empty(4, 10, 64, device=\"meta\")      # shapes only, no memory\n"
            "_k = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_v = torch.empty(4, 10, 128, device=\"meta\")\n"
            "_w = _q @ _k.transpose(-2, -1)\n"
            "weights_shape = tuple(int(n) for n in _w.shape)\n"
            "out_shape = tuple(int(n) for n in (_w @ _v).shape)\n"
        ),
        "attn_entries": (
            "attn_entries = torch.Size([1024, 1024]).numel()\n"
            "score_madds = math.prod((1024, 1024, 64))\n"
            "cost_ratio = math.prod((2048, 2048, 64)) // score_madds\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"c\".upper()\n"
        ),
    },
    "softmax_amax_shift_then_logsumexp_mask_from_triu_bias_variance_with_cov": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    s = x - torch.amax(x, dim=dim, keepdim=True)          # every logit <= 0 now\n"
            "    return torch.exp(s - torch.logsumexp(s, dim=dim, keepdim=True))\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    bias = torch.triu(torch.full((T_q, T_k), float(\"-inf\")), diagonal=1)   # additive causal bias\n"
            "    return bias == 0\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "raw_score_var = torch.cov(raw_scores.flatten()).item()          # 1-D input: unbiased variance\n"
            "scaled_score_var = torch.cov(raw_scores.flatten() / d_k ** 0.5).item()\n"
            "scale_divisor = float(64 ** 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
    },
    "sdpa_where_adjoint_power_scale_weights_masked_fill_after": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = (Q @ K.adjoint()) * Q.shape[-1] ** -0.5      # adjoint = transpose of the last two axes\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    scores = torch.where(mask, scores, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    weights = weights.masked_fill(~mask, 0.0)     # all-blocked rows were NaN, every entry blocked\n"
            "    return weights @ V\n"
        ),
    },
    "trace_inner_sdpa_identity_values_tril_renormalised": {
        "weights3": (
            "scores3 = torch.inner(Q3, K3) / 2.0                  # inner: dot of every row pair\n"
            "weights3 = F.scaled_dot_product_attention(Q3, K3, torch.eye(3, dtype=torch.float64))\n"
            "out3 = F.scaled_dot_product_attention(Q3, K3, V3)\n"
            "_kept = torch.tril(weights3)\n"
            "weights3_causal = _kept / _kept.sum(dim=-1, keepdim=True)   # softmax over a subset = renormalised\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "sdpa_einsum_prescaled_queries_empty_rows_given_zero_scores": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    q = Q * (1.0 / math.sqrt(Q.shape[-1]))\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", q, K)\n"
            "    if mask is not None:\n"
            "        row_ok = mask.any(dim=-1, keepdim=True)\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        scores = scores.masked_fill(~row_ok, 0.0)       # finite, so no NaN anywhere\n"
            "        weights = stable_softmax(scores, dim=-1) * row_ok\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.einsum(\"...qk,...kd->...qd\", weights, V)\n"
        ),
    },
}

WRONG = {
    "q1_probe_rowwise_dot_products_lose_the_key_axis": (
        {"weights_shape": (
            "_Qp = torch.zeros(4, 10, 64)\n"
            "_Kp = torch.zeros(4, 10, 64)\n"
            "weights_shape = tuple((_Qp * _Kp).sum(dim=-1).shape)   # dot products of queries with keys\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "Q * K multiplies elementwise, pairing query i only with key i, so summing the features gives "
                    "one score per token, shape (4, 10); the weights need every query against every key, "
                    "Q @ K^T, shape (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_out_probe_broadcast_but_never_summed_over_keys": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10)\n"
            "_W = torch.zeros(weights_shape)\n"
            "_V = torch.zeros(4, 10, 128)\n"
            "out_shape = tuple((_W.unsqueeze(-1) * _V.unsqueeze(1)).shape)   # each weight times its value\n"
        )},
        {"mistake": "the weights are multiplied with the values by broadcasting but the key axis is never summed "
                    "away, so out_shape comes out (4, 10, 10, 128); weights @ V adds up over the keys and gives "
                    "(4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_hand_variance_count_of_one_sequence": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "T = raw_scores.shape[-1]\n"
            "n = T * T                                     # entries of the score matrix\n"
            "raw_score_var = (((raw_scores - raw_scores.mean()) ** 2).sum() / (n - 1)).item()\n"
            "_scaled = raw_scores / math.sqrt(d_k)\n"
            "scaled_score_var = (((_scaled - _scaled.mean()) ** 2).sum() / (n - 1)).item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the squared deviations are summed over all 50 scores of the batch but divided by n - 1 with "
                    "n = T * T = 25 (one sequence's count), so both variances are about twice too large; n is "
                    "raw_scores.numel() = 50",
         "where": ["q2"]},
    ),
    "q3_exp2_with_the_log2e_factor_divided_not_multiplied": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    LOG2E = math.log2(math.e)                   # exp(x) = 2 ** (x * log2(e)), as in fused kernels\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp2(shifted / LOG2E)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "exp(x) is 2 ** (x * log2(e)), but the shifted logits are divided by log2(e) instead of "
                    "multiplied, so the code computes 2 ** (x / 1.4427) = exp(0.48 x): a softmax at about twice "
                    "the temperature, with weights much flatter than the true ones",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_exponentials_as_powers_of_a_typed_e": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.pow(2.718, shifted)           # e ** x\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "e is typed as 2.718 instead of using torch.exp (or math.e): 2.718 ** x = e ** (0.99990 x), a "
                    "softmax at a slightly lower temperature, so the weights are off by about 1e-4 x relative "
                    "(visible in float64 and float32, and growing with the spread of the logits)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_heaviside_step_with_zero_at_the_diagonal": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    diff = (torch.arange(T_q).unsqueeze(1) - torch.arange(T_k).unsqueeze(0)).float()   # i - j\n"
            "    return torch.heaviside(diff, torch.tensor(0.0)).bool()      # step: 1 when i - j >= 0\n"
        )},
        {"mistake": "torch.heaviside's second argument is the value used where the input is exactly zero, i.e. on "
                    "the diagonal i == j; giving 0 there makes the mask strictly lower-triangular, so every query "
                    "is blocked from its own key (and query 0 from every key); the diagonal needs values = 1",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_inline_softmax_shifted_by_the_global_max": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "    exps = torch.exp(scores - scores.max())        # shift so nothing overflows\n"
            "    weights = exps / exps.sum(dim=-1, keepdim=True)\n"
            "    if mask is not None:\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scores are shifted by the single largest score of the whole tensor instead of each "
                    "query's own max (max over dim=-1 with keepdim); a row whose scores all lie far below the "
                    "global max underflows to all zeros and gives 0/0 = NaN (in float16 already about 17 below, "
                    "as with the large-score inputs)",
         "where": ["q5"]},
    ),
    "q5_einsum_value_axis_given_its_own_letter": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) / math.sqrt(Q.shape[-1])\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.einsum(\"...qk,...vd->...qd\", weights, V)     # v: one value per key\n"
        )},
        {"mistake": "the value operand's key axis is written with its own letter v instead of k, so einsum sums the "
                    "weights over k and the values over v separately: every output row is (sum of its weights) "
                    "times the sum of all value rows, not the weighted mixture; the key letter must be shared, "
                    "\"...qk,...kd->...qd\"",
         "where": ["q5"]},
    ),
    "q6_causal_denominator_from_cumsum_along_keys": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_e = torch.exp(scores3)\n"
            "weights3_causal = torch.tril(_e) / torch.cumsum(_e, dim=-1)   # prefix sums: only keys so far\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "cumsum along the keys gives entry [i, j] the denominator e_0 + ... + e_j (keys up to the "
                    "column), but query i must divide by e_0 + ... + e_i (keys up to its own row); only the "
                    "diagonal is right, so rows 1 and 2 no longer sum to 1 (e.g. [1, 0] -> 1 in every first column)",
         "where": ["q6"]},
    ),
    "q6_trace_computed_in_bfloat16": (
        {"weights3": (
            "_Q, _K, _V = Q3.bfloat16(), K3.bfloat16(), V3.bfloat16()     # the dtype the GPU runs in\n"
            "scores3 = _Q @ _K.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ _V\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the trace is done in bfloat16, which keeps only about 3 significant digits (8 mantissa bits), "
                    "so the weights and outputs are off in the third decimal; the question wants four correct "
                    "decimals, so the float64 tensors should be used as given",
         "where": ["q6"]},
    ),
    "q7_letter_as_a_bytes_literal": (
        {"q_trap_answer": (
            "q_trap_answer = b\"C\"\n"
        )},
        {"mistake": "b\"C\" is a bytes object, not the string \"C\" the question asks for (b\"C\" != \"C\" in "
                    "Python 3)",
         "where": ["q7"]},
    ),
    "q7_letter_in_a_triple_quoted_block_keeps_newlines": (
        {"q_trap_answer": (
            "q_trap_answer = \"\"\"\n"
            "C\n"
            "\"\"\"\n"
        )},
        {"mistake": "the triple-quoted block keeps the line breaks around the letter, so the answer is \"\\nC\\n\" "
                    "and not \"C\"",
         "where": ["q7"]},
    ),
    "q8_madds_summed_off_a_float_probe": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "_probe = torch.ones(1024, 64) @ torch.ones(64, 1024)   # each entry: 64 multiply-adds\n"
            "score_madds = _probe.sum().item()\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "summing a float32 probe gives score_madds as a Python float (67108864.0), not the int the "
                    "question asks for; count with ints (1024 * 1024 * 64)",
         "where": ["q8"]},
    ),
    "q8_entries_from_np_square_is_a_numpy_int": (
        {"attn_entries": (
            "import numpy as np\n"
            "\n"
            "attn_entries = np.square(1024)\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "np.square returns a NumPy int64 scalar, not a Python int as the question asks (the value "
                    "1048576 is right, the type is not); use 1024 ** 2 or int(...)",
         "where": ["q8"]},
    ),
}
