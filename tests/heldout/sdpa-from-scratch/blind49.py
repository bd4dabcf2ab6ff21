"""Forty-ninth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (as they
stand in `full_marks.ipynb`, whose cells these replace), `harness.py`, blind48.py in full (for the format),
only the module docstrings and variant names of the earlier blind sets (so that their mistakes are not
repeated in the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on
this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1, q7,
q8, q4, q2 and q6 before q3 and q5): two variants each for q1, q2, q4, q6, q7 and q8, one each for q3 and
q5, in code shapes they did not use: a weights shape read off `F.scaled_dot_product_attention`'s result
(which is the output, not the weights), and a value width written as `math.pow(2, 7)`, a float (q1);
scores made with `torch.addbmm` (which sums the batch of products) instead of `baddbmm`/`bmm`, and a
variance left as the 0-d array that `.numpy()` returns (q2); shifted logits clamped at -80 "because exp
underflows there anyway", which leaves masked weights at about 1e-35 instead of exactly 0 (q3); a query
index tiled with `repeat` where `repeat_interleave` was meant, and a diagonal "added" to `tril` with xor
(`^`), which removes it (q4); `F.softmax(..., dtype=torch.float32)` left inside the attention, which pins the
weights to float32 (q5); the divisor taken from `Q3.shape[0]` (the token axis), and a log-mask bias written
with `log1p`, which never reaches -inf (q6); `str()` of a one-element NumPy array, and the option label
copied with its parenthesis, "C)" (q7); a multiply-add count typed with a trailing decimal point (a float),
and one left as a 0-d int64 tensor (q8).
The correct variants use shapes probed with `einsum` on the `meta` device, the letter as the escape
"\\x43" and counts with underscores; `statistics.variance` (the sample variance, as torch's default) and a
mask from `np.tri`; a softmax normalised by `torch.linalg.vector_norm(ord=1)` and causal weights made by
renormalising the truncated unmasked weights (the same numbers as masking before the softmax); an attention
filled with `torch.finfo(dtype).min` whose all-blocked rows are zeroed by multiplying with `mask.any`; and
a mask as the complement of `triu(1)` with trace scores from `torch.inner` and a `log(mask)` bias.

Public material used (search tool): issues corpus: pytorch/pytorch#50010, #42803 and #2436 (torch's `var`
is unbiased by default, NumPy's is not; behind the correct `statistics.variance` variant, which is the
unbiased one, and the q2 `.numpy()` kind slip, NumPy habits carried into torch code);
hyunwoongko/transformer#10 and #40, lucidrains/memory-compressed-attention#2 and TransformerLens#319
(masked scores filled with a finite or wrongly signed value instead of -inf, and masked weights that are
not exactly 0), behind the q3 clamp slip, the q6 `log1p` bias (a mask bias that never reaches -inf) and
the correct `finfo.min` variant (finite but far enough below every score that exp gives exactly 0).
pytorch/pytorch#28508 (a mask built from `triu(...) == 1` and transposed, and how easy it is to get the
triangle of a hand-built mask wrong) behind the q4 variants. The other slips are ones plausible for
students of this notebook (the fused kernel's return value taken for the weights, `repeat` vs
`repeat_interleave`, `^` read as "or", `addbmm` vs `baddbmm`, a dtype keyword copied from the docs,
the token axis read as the feature axis, an option label copied with its punctuation, numbers typed as
floats or left as tensors).

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
    "meta_device_einsum_probe_hex_escape_letter_underscore_counts": {
        "weights_shape": (
            "_q = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_k = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_v = torch.empty(4, 10, 128, device=\"meta\")\n"
            "_w = torch.einsum(\"bqd,bkd->bqk\", _q, _k)         # no memory, only shapes\n"
            "weights_shape = tuple(int(n) for n in _w.shape)\n"
            "out_shape = tuple(int(n) for n in torch.einsum(\"bqk,bkv->bqv\", _w, _v).shape)\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"\\x43\"      # the letter C\n"
        ),
        "attn_entries": (
            "attn_entries = 1_048_576\n"
            "score_madds = attn_entries * 64\n"
            "cost_ratio = (2048 // 1024) ** 2\n"
        ),
    },
    "statistics_sample_variance_mask_from_numpy_tri": {
        "raw_score_var": (
            "import statistics\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "raw_score_var = statistics.variance(raw_scores.flatten().tolist())          # n - 1, like torch\n"
            "scaled_score_var = statistics.variance((raw_scores / math.sqrt(d_k)).flatten().tolist())\n"
            "scale_divisor = float(64 ** 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "causal_mask": (
            "import numpy as np\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return torch.from_numpy(np.tri(T_q, T_k, dtype=bool))    # ones at and below the diagonal\n"
        ),
    },
    "softmax_normalised_by_l1_norm_causal_weights_renormalised_from_truncated": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    e = torch.exp(x - torch.amax(x, dim=dim, keepdim=True))\n"
            "    return e / torch.linalg.vector_norm(e, ord=1, dim=dim, keepdim=True)   # e >= 0: the L1 norm is the sum\n"
        ),
        "weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_kept = weights3.tril()                                      # the past and present keys\n"
            "weights3_causal = _kept / _kept.sum(dim=-1, keepdim=True)     # renormalised: same as masking first\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "sdpa_filled_with_finfo_min_empty_rows_zeroed_by_multiplying_with_any": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) / math.sqrt(Q.shape[-1])\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...qk,...kv->...qv\", stable_softmax(scores, dim=-1), V)\n"
            "    lowest = torch.finfo(scores.dtype).min                 # exp(lowest - max) is exactly 0\n"
            "    weights = stable_softmax(torch.where(mask, scores, lowest), dim=-1)\n"
            "    weights = weights * mask.any(dim=-1, keepdim=True)     # all-blocked rows were uniform: now 0\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", weights, V)\n"
        ),
    },
    "mask_as_complement_of_triu_trace_with_inner_and_log_mask_bias": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    future = torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=1)   # j > i\n"
            "    return ~future\n"
        ),
        "weights3": (
            "scores3 = torch.inner(Q3, K3) / 2.0                      # inner(a, b)[i, j] = a[i] . b[j]\n"
            "weights3 = stable_softmax(scores3, dim=1)\n"
            "out3 = torch.mm(weights3, V3)\n"
            "_bias = torch.log(causal_mask(3).to(scores3.dtype))      # log 1 = 0, log 0 = -inf\n"
            "weights3_causal = F.softmax(scores3 + _bias, dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
}

WRONG = {
    "q1_weights_shape_read_off_the_fused_kernels_output": (
        {"weights_shape": (
            "_q = torch.zeros(4, 10, 64)\n"
            "_v = torch.zeros(4, 10, 128)\n"
            "_probe = F.scaled_dot_product_attention(_q, _q, _v)      # run attention on the sizes\n"
            "weights_shape = tuple(_probe.shape)\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "F.scaled_dot_product_attention returns only the output, softmax(QK^T/sqrt(d_k)) V, of shape "
                    "(4, 10, 128); the attention weights it uses internally have one entry per (query, key) "
                    "pair: (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_value_width_written_as_math_pow_is_a_float": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10)\n"
            "out_shape = (4, 10, math.pow(2, 7))      # d_v = 2^7\n"
        )},
        {"mistake": "math.pow always returns a float, so out_shape is (4, 10, 128.0); shapes are tuples of "
                    "Python ints (2 ** 7 or 128)",
         "where": ["q1"]},
    ),
    "q2_scores_made_with_addbmm_which_sums_the_batch": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.addbmm(torch.zeros(5, 5), Q, K.transpose(-2, -1))   # batched Q @ K^T\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "torch.addbmm adds up the products of all batch entries into one (5, 5) matrix (the sum of "
                    "the two sequences' score matrices), so the variances are of summed scores, about twice "
                    "too large; the batched scores (2, 5, 5) come from torch.bmm / baddbmm or Q @ K^T",
         "where": ["q2"]},
    ),
    "q2_raw_variance_left_as_the_zero_dim_array_numpy_returns": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().numpy()                     # to a plain number\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "Tensor.numpy() of a 0-d tensor is a 0-d NumPy array (float32), not a Python float; the "
                    "question asks for a float, which .item() (or float(...)) gives",
         "where": ["q2"]},
    ),
    "q3_shifted_logits_clamped_at_minus_80": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    shifted = shifted.clamp(min=-80.0)          # exp underflows below this anyway\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "clamping the shifted logits at -80 turns the -inf of masked entries (and any logit more "
                    "than 80 below the max) into -80, and exp(-80) is about 1.8e-35, not 0, in float32 and "
                    "float64: masked keys get a tiny nonzero weight instead of exactly 0",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_query_index_tiled_with_repeat_not_repeat_interleave": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows = torch.arange(T_q).repeat(T_k).view(T_q, T_k)     # [i, j] = i\n"
            "    cols = torch.arange(T_k).repeat(T_q).view(T_q, T_k)     # [i, j] = j\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "repeat tiles the whole sequence 0..T_q-1 one copy after another, so the (T_q, T_k) view of "
                    "it holds (i*T_k + j) mod T_q, which is j for a square mask, not the query index i "
                    "(that needs repeat_interleave); cols <= rows is then True everywhere and nothing is masked",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_diagonal_added_to_tril_with_xor_removes_it": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    lower = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
            "    diag = torch.eye(T_q, T_k, dtype=torch.bool)\n"
            "    return lower ^ diag                     # make sure the diagonal is in\n"
        )},
        {"mistake": "tril already keeps the diagonal, and ^ is exclusive or, not or: True ^ True is False, so the "
                    "diagonal is removed and each query can no longer see its own key (query 0 sees nothing)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_softmax_dtype_keyword_pins_the_weights_to_float32": (
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
            "    weights = F.softmax(scores, dim=-1, dtype=torch.float32)     # stable accumulation\n"
            "    if mask is not None:\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "F.softmax(..., dtype=torch.float32) returns float32 weights whatever the input dtype, and "
                    "they are never cast back: for float64, float16 or bfloat16 inputs the product with V mixes "
                    "dtypes (an error), and float64 inputs lose precision; the weights must keep the inputs' dtype",
         "where": ["q5"]},
    ),
    "q6_divisor_taken_from_the_token_axis": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(Q3.shape[0])     # sqrt(d_k)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "Q3.shape[0] is the number of tokens (3), not the head width d_k = Q3.shape[-1] = 4, so the "
                    "scores are divided by sqrt(3) instead of 2 and every weight (and out3) is a little too sharp",
         "where": ["q6"]},
    ),
    "q6_log1p_of_the_mask_used_as_the_bias": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_bias = torch.log1p(causal_mask(3).double())     # stable log of the mask: 0 -> blocked\n"
            "weights3_causal = stable_softmax(scores3 + _bias, dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "log1p(m) is log(1 + m): 0 for a blocked key and log 2 for an allowed one, so nothing is "
                    "blocked, the allowed keys are only nudged up, and the causal rows keep weight on future "
                    "keys; the bias must be log(m), which is -inf where m = 0",
         "where": ["q6"]},
    ),
    "q7_str_of_a_one_element_numpy_array_keeps_its_brackets": (
        {"q_trap_answer": (
            "import numpy as np\n"
            "\n"
            "_letters = np.array([\"A\", \"B\", \"C\", \"D\"])\n"
            "q_trap_answer = str(_letters[[2]])      # as a string\n"
        )},
        {"mistake": "indexing with the list [2] keeps a one-element array, and str() of an array is its printout "
                    "\"['C']\" (five characters), not the letter \"C\"; _letters[2] would be the letter",
         "where": ["q7"]},
    ),
    "q7_option_label_copied_with_its_parenthesis": (
        {"q_trap_answer": (
            "q_trap_answer = \"C)\"\n"
        )},
        {"mistake": "the answer must be the letter alone, \"C\"; \"C)\" carries the closing parenthesis of an "
                    "option label and is a two-character string",
         "where": ["q7"]},
    ),
    "q8_madds_typed_with_a_trailing_decimal_point": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024. * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the literal 1024. (with a decimal point) is a float, so score_madds is 67108864.0, a float; "
                    "the counts are asked as Python ints",
         "where": ["q8"]},
    ),
    "q8_madds_left_as_a_zero_dim_tensor": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = torch.tensor(1024).pow(2).mul(64)\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "score_madds is a 0-d int64 torch tensor, tensor(67108864), not a Python int; "
                    ".item() or plain integer arithmetic gives the int",
         "where": ["q8"]},
    ),
}
