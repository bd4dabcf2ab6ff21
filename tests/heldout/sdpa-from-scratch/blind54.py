"""Fifty-fourth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind53.py in full (for the format), and only
the variant names of the other earlier blind sets (so that their mistakes are not repeated in the same
form). The lesson text was not needed. The grader was not run on this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1 and
q7, then q8, q4 and q2, before q6, q3 and q5): three variants each for q7 and q8, two each for q1 and q4,
one each for q2, q3, q5 and q6. Code shapes: shapes answered in the column-major layout of Julia's
NNlib/Flux (features first, batch last: weights (10, 10, 4), output (128, 10, 4)), and a slice typed where
an index was meant (`K.shape[1:2]`), which leaves a one-element torch.Size inside the tuple (q1); the
example rebuilt with `torch.rand` (uniform on [0, 1)) instead of `torch.randn` (q2); a "softmax" whose
exponential is replaced by the logistic sigmoid (q3); a triangle compared with `>= 0` instead of `> 0`
(every entry passes), and "the past and the diagonal" joined with `&` instead of `|` (no entry passes)
(q4); the 1/sqrt(d_k) scaling placed inside the masked branch only, so unmasked calls are unscaled (q5);
blocked scores filled with NaN, as for missing data in pandas, instead of -inf (q6); a hedged
`"A" or "C"` (evaluates to "A"), a list of options with a missing comma that glues "C" "D" into "CD", and
a check that takes a majority vote of matching entries (the zeroed upper triangle and the full last row
match, so A wins) (q7); 2**10 and 2**6 combined by multiplying the exponents, a ratio that stays a
numpy int64, and `%` typed for `//` (q8).
The correct variants use: a causal mask from `ones(...).tril_()` on a bool tensor with a softmax whose
denominator is clamped at 1 (a no-op, since after the max shift it is always >= 1); an attention whose keys
are transposed by `np.swapaxes` (which dispatches to `Tensor.swapaxes`, so it stays in torch with its
gradient), filled with `torch.where(mask, scores, -inf)` and whose NaN rows are cleared with
`masked_fill(isnan)`; the q6 trace with a -1e9 additive bias in float64 and einsum products; q1/q2/q8 from
plain ints, an einsum and `torch.var(..., correction=1)`; q7 decided by a computed check, with a softmax
written from `logsumexp` in a promoted dtype.

Public material used (search tool): the NNlib `dot_product_attention` docstring (as stored in
AtelierArith/DocStrBankExperimental.jl, NNlib/0.9/.../original.md: "query ... of size (qk_dim, q_len,
batch_size...)", output "(v_dim, q_len, batch_size...)", scores "(kv_len, q_len, nheads, batch_size...)")
and FluxML/Metalhead.jl src/layers/attention.jl (which calls it), behind the q1 Julia-layout shapes; Guido
van Rossum's python-ideas post "Implicit string literal concatenation considered harmful?" (2013-May/020557,
"a bug caused by a missing comma ... I had written foo('a' 'b')"), behind the q7 options list; the Keras
`layers.Attention` docs (tensorflow.org, rdrr.io keras layer_attention: scores (batch_size, Tq, Tv), output
(batch_size, Tq, dim)) as the row-major layout the notebook uses, against which the Julia one differs. The
other slips are ones plausible for students of this notebook (slice for index, rand for randn, sigmoid for
exp, >= for >, & for |, a line moved into a branch, pandas' NaN for missing, hedged answers, majority
votes, exponent algebra, numpy to avoid overflow, a keyboard slip).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` also costs q5 and q6, whose code may use it; a broken `stable_softmax` costs q5 and q6,
which call it). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the
notebook's formula) on several shapes and dtypes (float64, float32, float16, bfloat16), including the
notebook's own, with a throwaway script outside the repository; each variant's notebook was also run top to
bottom (all code cells but otter's) without an error.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "inplace_tril_bool_mask_and_denominator_clamped_at_one": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.ones(T_q, T_k, dtype=torch.bool).tril_()\n"
        ),
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    e = (x - torch.amax(x, dim=dim, keepdim=True)).exp()\n"
            "    # the largest term is exp(0) = 1, so the sum is at least 1: the clamp never changes it\n"
            "    return e / e.sum(dim=dim, keepdim=True).clamp(min=1.0)\n"
        ),
    },
    "numpy_swapaxes_keys_where_fill_and_nan_rows_cleared": {
        "scaled_dot_product_attention": (
            "import numpy as np\n"
            "\n"
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    Kt = np.swapaxes(K, -1, -2)          # dispatches to Tensor.swapaxes: still a torch tensor\n"
            "    scores = torch.matmul(Q, Kt) * (1.0 / math.sqrt(Q.shape[-1]))\n"
            "    if mask is not None:\n"
            "        scores = torch.where(mask, scores, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(torch.isnan(weights), 0.0)   # rows with no key: 0/0\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "trace_with_minus_1e9_bias_and_einsum_products": {
        "weights3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) / 2.0\n"
            "weights3 = stable_softmax(scores3, dim=1)\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "_bias = torch.zeros(3, 3, dtype=torch.float64).masked_fill(~causal_mask(3), -1e9)\n"
            "weights3_causal = stable_softmax(scores3 + _bias, dim=1)   # exp(-1e9) is exactly 0 in float64\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "plain_int_shapes_einsum_variance_and_counts_from_T": {
        "weights_shape": (
            "B, T, d_k, d_v = 4, 10, 64, 128\n"
            "weights_shape = (B, T, T)\n"
            "out_shape = (B, T, d_v)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "raw_score_var = float(torch.var(raw_scores.reshape(-1), correction=1))\n"
            "scaled_score_var = float((raw_scores * d_k ** -0.5).var())\n"
            "scale_divisor = float(64 ** 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = attn_entries * d_head\n"
            "cost_ratio = (2 * T) ** 2 * d_head // score_madds\n"
        ),
    },
    "computed_trap_check_and_logsumexp_softmax_in_promoted_dtype": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n"
            "    m = work.amax(dim=dim, keepdim=True)\n"
            "    shifted = work - m\n"
            "    out = torch.exp(shifted - torch.logsumexp(shifted, dim=dim, keepdim=True))\n"
            "    return out.to(x.dtype)\n"
        ),
        "q_trap_answer": (
            "_g = torch.Generator().manual_seed(1)\n"
            "_s = torch.randn(6, 6, generator=_g, dtype=torch.float64)\n"
            "_m = causal_mask(6)\n"
            "_right = stable_softmax(_s.masked_fill(~_m, float(\"-inf\")), dim=-1)\n"
            "_short = stable_softmax(_s, dim=-1)\n"
            "_short[~_m] = 0.0\n"
            "_rows_sum_to_one = torch.allclose(_short.sum(-1), torch.ones(6, dtype=torch.float64))\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else (\"C\" if not _rows_sum_to_one else \"B\")\n"
        ),
    },
}

WRONG = {
    "q1_shapes_in_the_julia_nnlib_layout_features_first_batch_last": (
        {"weights_shape": (
            "# as in NNlib.dot_product_attention: arrays are (features, length, batch)\n"
            "weights_shape = (10, 10, 4)      # (kv_len, q_len, batch)\n"
            "out_shape = (128, 10, 4)         # (v_dim, q_len, batch)\n"
        )},
        {"mistake": "the shapes are written in the column-major layout of Julia's NNlib/Flux (features first, batch "
                    "last); in this notebook's PyTorch convention the batch comes first and the features last: "
                    "weights (4, 10, 10), output (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q1_key_count_taken_with_a_slice_leaves_a_size_inside_the_tuple": (
        {"weights_shape": (
            "_q = torch.zeros(4, 10, 64)\n"
            "_k = torch.zeros(4, 10, 64)\n"
            "weights_shape = (_q.shape[0], _q.shape[1], _k.shape[1:2])   # one weight per key\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "K.shape[1:2] is a slice, a one-element torch.Size([10]), not the int 10, so weights_shape is "
                    "(4, 10, torch.Size([10])); the key count is K.shape[1]",
         "where": ["q1"]},
    ),
    "q2_example_rebuilt_with_uniform_rand_instead_of_randn": (
        {"raw_score_var": (
            "torch.manual_seed(0)\n"
            "_Qs, _Ks = torch.rand(2, 5, 8), torch.rand(2, 5, 8)   # the batched example of section 2\n"
            "d_k = _Qs.shape[-1]\n"
            "raw_scores = _Qs @ _Ks.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the example is rebuilt with torch.rand (uniform on [0, 1), mean 1/2, variance 1/12) instead of "
                    "torch.randn, so both variances are of other numbers; the question asks about the given Q and K",
         "where": ["q2"]},
    ),
    "q3_logistic_sigmoid_used_for_the_exponential": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.sigmoid(shifted)          # squashes into (0, 1): cannot overflow\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the exponential is replaced by the logistic sigmoid 1 / (1 + e^-x); normalising sigmoids is not "
                    "a softmax (the weights are flatter), the numerator must be exp(x - max)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_triangle_compared_with_ge_zero_lets_every_key_through": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return torch.tril(torch.ones(T_q, T_k)) >= 0\n"
        )},
        {"mistake": "the zeros above the diagonal also satisfy >= 0, so the mask is all True and no future key is "
                    "blocked; the triangle's ones are picked with > 0 (or == 1)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_past_and_diagonal_joined_with_and_instead_of_or": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    past = torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=-1)   # keys before the query\n"
            "    itself = torch.eye(T_q, T_k, dtype=torch.bool)                     # the query's own key\n"
            "    return past & itself\n"
        )},
        {"mistake": "a key is allowed if it is in the past OR is the query itself; joining the two with & asks for "
                    "both at once, which never happens, so the mask is all False (past | itself)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_scaling_only_in_the_masked_branch": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1))\n"
            "    if mask is not None:\n"
            "        scores = scores / math.sqrt(d_k)\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the division by sqrt(d_k) sits inside the `if mask is not None` branch, so a call without a "
                    "mask uses unscaled scores; the scaling belongs to every call, before the mask",
         "where": ["q5"]},
    ),
    "q6_blocked_scores_filled_with_nan_as_missing_data": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"nan\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the blocked scores are marked as missing with NaN, which is not 'no weight': the row max and "
                    "every exponential become NaN, so the causal weights are all NaN; blocked scores must be -inf "
                    "so that exp gives exactly 0",
         "where": ["q6"]},
    ),
    "q7_hedged_a_or_c_evaluates_to_a": (
        {"q_trap_answer": (
            "q_trap_answer = \"A\" or \"C\"     # A, or maybe C\n"
        )},
        {"mistake": "`\"A\" or \"C\"` is a Python expression that returns its first truthy operand, \"A\"; one "
                    "letter must be chosen, and the right one is C",
         "where": ["q7"]},
    ),
    "q7_options_list_missing_a_comma_glues_c_and_d": (
        {"q_trap_answer": (
            "_options = [\"A\", \"B\", \"C\"\n"
            "            \"D\"]\n"
            "q_trap_answer = _options[2]      # the third option\n"
        )},
        {"mistake": "without a comma between \"C\" and \"D\" Python joins the two literals into \"CD\", so the third "
                    "item is \"CD\" and not the letter \"C\"",
         "where": ["q7"]},
    ),
    "q7_check_by_majority_of_matching_entries": (
        {"q_trap_answer": (
            "_g = torch.Generator().manual_seed(0)\n"
            "_scores = torch.randn(5, 5, generator=_g)\n"
            "_mask = causal_mask(5)\n"
            "_reference = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
            "_shortcut = F.softmax(_scores, dim=-1)\n"
            "_shortcut[~_mask] = 0.0\n"
            "_agree = torch.isclose(_shortcut, _reference).float().mean().item()\n"
            "q_trap_answer = \"A\" if _agree > 0.5 else \"C\"     # most entries agree -> same effect\n"
        )},
        {"mistake": "the check counts matching entries: the zeroed upper triangle and the last row (which sees every "
                    "key) agree, 15 of 25 entries, so it says A; one differing row is enough to make the shortcut "
                    "wrong, and the other rows no longer sum to 1 (C)",
         "where": ["q7"]},
    ),
    "q8_powers_of_two_combined_by_multiplying_the_exponents": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 2 ** (10 * 2 * 6)     # T = 2**10, squared, times d_k = 2**6\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "multiplying powers of two ADDS the exponents: 2**20 * 2**6 = 2**26 = 67108864; multiplying "
                    "them gives 2**120",
         "where": ["q8"]},
    ),
    "q8_ratio_computed_in_numpy_stays_a_numpy_int": (
        {"attn_entries": (
            "import numpy as np\n"
            "\n"
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = np.int64(2048 ** 2 * 64) // score_madds     # int64 so that nothing overflows\n"
        )},
        {"mistake": "the ratio is a numpy.int64, not the Python int asked for (Python ints do not overflow; "
                    "(2 * 1024) ** 2 * 64 // score_madds is already the int 4)",
         "where": ["q8"]},
    ),
    "q8_percent_typed_for_floor_division_in_the_ratio": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = (2 * 1024) ** 2 * 64 % score_madds\n"
        )},
        {"mistake": "% is the remainder, not the quotient: the cost at T = 2048 is an exact multiple of the cost "
                    "at 1024, so the remainder is 0; the ratio is the floor division //, 4",
         "where": ["q8"]},
    ),
}
