"""Thirty-fifth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (its
public check cells were printed along with it, as students see them), `full_marks.ipynb` (whose cells these
replace), `harness.py`, lesson 80 in /work/shared/lessons/ (its opening half), blind34.py's docstring and
first lines (for the format), and only the module docstrings and variant names of the earlier blind sets
(so that their mistakes are not repeated in the same form). The grader was not run on this set.

This round spreads over every question and leans on code shapes earlier sets used little: shape entries
read off a tensor of sizes (0-d tensors, not ints) and a tuple concatenated with a list slice (q1);
variances rounded to one decimal, and a broadcast product summed over the key axis instead of the feature
axis (q2); row sums reshaped into a NumPy-style column (q3); a diagonal added with a square `torch.eye`
(q4); `torch.tensordot`, which contracts across the batch too, a mask cast to the input dtype before `~`,
and a mask transposed "because K was" (q5); a causal row copied from lesson 80, whose 3-token example
uses other numbers, and an output written in the column-vector convention (q6); a letter typed with its
quote marks and one typed on a Cyrillic keyboard (q7); and a shift by 64 where a shift by 6 was meant (q8).

Public material searched (search tool): the code corpus for hand-written SDPA with masks
(ashtonjur/MachineTranslator ScaledDot.py, Fabbboy/setis sdpa.py, jadore801120/attention-is-all-you-need
style modules: `mask == 0` with -1e9, a float32 `torch.sqrt(torch.tensor(d_k))`, `k.transpose(2, 3)` and
`nn.Softmax(dim=2)` -- all already covered by earlier sets' names, so not repeated) and for tensordot in
attention (nothing usable); the issues corpus for hand-written softmax bugs (twitter-archive/torch-autograd#166,
a global max in log-sum-exp, already covered). The slips below are ones plausible for students of this
notebook, not copied from those sources.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5, whose function calls it; a broken `causal_mask` also costs q5,
whose public check calls it). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) on several
shapes and dtypes, including the notebook's own, with a throwaway script outside the repository before it
was committed.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "shapes_from_size_sums_variance_by_hand_costs_by_counting": {
        "weights_shape": (
            "n_batch, n_tokens, width_qk, width_v = 4, 10, 64, 128\n"
            "weights_shape = tuple(torch.Size((n_batch, n_tokens)) + (n_tokens,))\n"
            "out_shape = tuple(torch.Size((n_batch, n_tokens)) + (width_v,))\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "\n"
            "def unbiased_var(t):\n"
            "    n = t.numel()\n"
            "    centred = t - t.mean()\n"
            "    return float((centred * centred).sum() / (n - 1))\n"
            "\n"
            "raw_score_var = unbiased_var(raw_scores)\n"
            "scaled_score_var = unbiased_var(raw_scores / d_k ** 0.5)\n"
            "scale_divisor = float(math.isqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "def score_cost(T, d_k=64):\n"
            "    \"\"\"(entries, multiply-adds) of Q @ K.T for one head.\"\"\"\n"
            "    entries = sum(1 for _ in range(T)) * T\n"
            "    return entries, entries * d_k\n"
            "\n"
            "attn_entries, score_madds = score_cost(1024)\n"
            "cost_ratio = score_cost(2048)[1] // score_cost(1024)[1]\n"
        ),
    },
    "softmax_helper_reciprocal_mask_strict_lower_or_eye": {
        "stable_softmax": (
            "def _peak(x, dim):\n"
            "    return torch.amax(x, dim, True)\n"
            "\n"
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    w = torch.sub(x, _peak(x, dim)).exp()\n"
            "    return w * torch.reciprocal(torch.sum(w, dim, keepdim=True))\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    earlier = torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=-1)\n"
            "    return earlier | torch.eye(T_q, T_k, dtype=torch.bool)   # strictly earlier keys, plus its own\n"
        ),
    },
    "sdpa_prescaled_queries_sum_alive_where_method": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    inv_root = 1.0 / math.sqrt(Q.shape[-1])\n"
            "    scores = (Q * inv_root) @ K.mT\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    scores = scores.masked_fill(mask.logical_not(), -math.inf)\n"
            "    alive = mask.sum(dim=-1, keepdim=True) > 0          # (..., T_q, 1) queries with a visible key\n"
            "    weights = stable_softmax(scores, dim=-1).where(alive, scores.new_zeros(()))\n"
            "    return weights @ V\n"
        ),
    },
    "trace_through_own_sdpa_letter_by_index_costs_from_pow": {
        "weights3": (
            "eye3 = torch.eye(3, dtype=torch.float64)\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = scaled_dot_product_attention(Q3, K3, eye3)            # V = I reads the weights off\n"
            "out3 = scaled_dot_product_attention(Q3, K3, V3)\n"
            "weights3_causal = scaled_dot_product_attention(Q3, K3, eye3, mask=causal_mask(3))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "options = \"ABCD\"\n"
            "q_trap_answer = options[2]   # C: the kept weights no longer sum to 1\n"
        ),
        "attn_entries": (
            "T, d_k_head = 1024, 64\n"
            "attn_entries = pow(T, 2)\n"
            "score_madds = pow(T, 2) * d_k_head\n"
            "cost_ratio = pow(2 * T, 2) * d_k_head // score_madds\n"
        ),
    },
    "sdpa_einsum_isfinite_rows_numpy_free_trace_lists": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    logits = torch.einsum(\"...qd,...kd->...qk\", Q, K) / math.sqrt(K.shape[-1])\n"
            "    if mask is not None:\n"
            "        logits = torch.where(mask, logits, float(\"-inf\"))\n"
            "    probs = stable_softmax(logits, dim=-1)\n"
            "    if mask is not None:\n"
            "        seen = torch.isfinite(logits).any(dim=-1, keepdim=True)\n"
            "        probs = torch.where(seen, probs, torch.zeros_like(probs))\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", probs, V)\n"
        ),
        "weights3": (
            "scores3 = [[sum(a * b for a, b in zip(q, k)) / 2.0 for k in K3.tolist()] for q in Q3.tolist()]\n"
            "\n"
            "def row_softmax(row, visible):\n"
            "    es = [math.exp(s - max(row[:visible])) if j < visible else 0.0 for j, s in enumerate(row)]\n"
            "    return [e / sum(es) for e in es]\n"
            "\n"
            "weights3 = [row_softmax(r, 3) for r in scores3]\n"
            "out3 = [[sum(w * v[c] for w, v in zip(wr, V3.tolist())) for c in range(2)] for wr in weights3]\n"
            "weights3_causal = [row_softmax(r, i + 1) for i, r in enumerate(scores3)]\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
}

WRONG = {
    "q1_shape_entries_zero_dim_tensors": (
        {"weights_shape": (
            "# the sizes kept in one tensor, so the entries come out as 0-d tensors\n"
            "dims_qk = torch.tensor([4, 10, 64])\n"
            "dims_v = torch.tensor([4, 10, 128])\n"
            "weights_shape = (dims_qk[0], dims_qk[1], dims_qk[1])\n"
            "out_shape = (dims_qk[0], dims_qk[1], dims_v[2])\n"
        )},
        {"mistake": "the shapes are tuples of 0-d torch tensors (indexed out of torch.tensor([4, 10, 64])), "
                    "not of Python ints as the question asks; call int() or .item() on each entry",
         "where": ["q1"]},
    ),
    "q1_tuple_plus_list_slice": (
        {"weights_shape": (
            "qk_shape = (4, 10, 64)\n"
            "v_shape = [4, 10, 128]\n"
            "weights_shape = qk_shape[:-1] + qk_shape[1:2]      # (batch, T_q) + (T_k,)\n"
            "out_shape = qk_shape[:-1] + v_shape[-1:]           # (batch, T_q) + (d_v,)\n"
        )},
        {"mistake": "V's shape was written as a list, so `qk_shape[:-1] + v_shape[-1:]` adds a tuple and a "
                    "list and raises TypeError: out_shape is never set (the idea is right; both must be tuples)",
         "where": ["q1"]},
    ),
    "q2_variances_rounded_to_one_decimal": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = round(raw_scores.var().item(), 1)                        # about 6.6\n"
            "scaled_score_var = round((raw_scores / math.sqrt(d_k)).var().item(), 1)  # about 0.8, near 1\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the variances are rounded to one decimal (6.6 and 0.8) before being stored; the question "
                    "wants the values themselves (6.5991 and 0.8249), and the rounding throws away the "
                    "precision the check needs",
         "where": ["q2"]},
    ),
    "q2_broadcast_products_summed_over_keys": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# every query against every key, feature by feature: (2, 5, 1, 8) * (2, 1, 5, 8) -> (2, 5, 5, 8)\n"
            "pair_products = Q.unsqueeze(2) * K.unsqueeze(1)\n"
            "raw_scores = pair_products.sum(dim=-2)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the broadcast products are summed over dim -2 (the keys) instead of dim -1 (the d_k "
                    "features), so raw_scores is a (2, 5, 8) tensor of per-feature sums, not the (2, 5, 5) "
                    "dot products, and both variances are of the wrong numbers",
         "where": ["q2"]},
    ),
    "q3_sum_reshaped_to_column": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    top = x.amax(dim=dim, keepdim=True)\n"
            "    e = torch.exp(x - top)\n"
            "    totals = e.sum(dim=dim).reshape(-1, 1)    # row sums as a column, to divide each row\n"
            "    return e / totals\n"
        )},
        {"mistake": "the sums are reshaped into a (-1, 1) column instead of kept with keepdim=True: that only "
                    "lines up for a 2-D input softmaxed along its last axis; a 1-D input comes back with an "
                    "extra axis, dim=0 and 3-D/4-D inputs fail to broadcast",
         "where": ["q3", "q5"]},
    ),
    "q4_diagonal_from_square_eye": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    earlier = torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=-1)   # keys strictly before i\n"
            "    return earlier | torch.eye(T_q, dtype=torch.bool)                    # plus key i itself\n"
        )},
        {"mistake": "the diagonal is added with a square torch.eye(T_q), which only matches the (T_q, T_k) "
                    "triangle when T_q == T_k; for cross-attention shapes such as causal_mask(4, 6) the OR "
                    "does not broadcast and raises (torch.eye(T_q, T_k) was needed)",
         "where": ["q4", "q5"]},
    ),
    "q5_tensordot_contracts_across_batch": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.tensordot(Q, K, dims=([-1], [-1])) / math.sqrt(d_k)   # contract the d_k axes\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "torch.tensordot contracts only the d_k axes and takes an outer product over every other "
                    "axis, so batched inputs give scores of shape (B, T_q, B, T_k) pairing each query with the "
                    "keys of every batch entry; it only works for 2-D inputs, and with a batch the product "
                    "with V fails. A batched matmul (Q @ K.transpose(-2, -1)) is needed",
         "where": ["q5"]},
    ),
    "q5_mask_cast_to_input_dtype_before_inverting": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        mask = mask.to(scores.dtype)                      # same dtype as the scores\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the boolean mask is converted to the scores' float dtype first, and `~` (bitwise not) "
                    "is not defined for float tensors, so every call with a mask raises; the mask must stay "
                    "boolean for ~ and masked_fill",
         "where": ["q5"]},
    ),
    "q5_mask_transposed_with_keys": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        mask = mask.transpose(-2, -1)                     # K was transposed, so is its mask\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the mask is transposed before use, as if it followed K; but it is already laid out like "
                    "the scores (T_q, T_k), so a causal mask turns into its upper triangle (queries see the "
                    "future), padding masks block the wrong entries, and non-square masks fail to broadcast",
         "where": ["q5"]},
    ),
    "q6_causal_row_copied_from_lesson": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# lesson 80: q0 sees only k0; q1 attends to k0 (0.5622) and k1 (0.4378); q2 is unaffected\n"
            "weights3_causal = torch.tensor([[1.0, 0.0, 0.0],\n"
            "                                [0.5622, 0.4378, 0.0],\n"
            "                                weights3[2].tolist()], dtype=torch.float64)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the causal weights of query 1 are copied from the lesson's worked example (0.5622, "
                    "0.4378), which used other tensors; for this notebook's Q3 and K3 the scores of query 1 "
                    "are 0.5 and 1.0, so its causal weights are about (0.3775, 0.6225)",
         "where": ["q6"]},
    ),
    "q6_output_in_column_vector_convention": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = V3.T @ weights3.T        # each output as a column: o_i = V^T w_i\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "out3 is computed as V3.T @ weights3.T, the column-vector form, which gives the (2, 3) "
                    "transpose of the answer; the notebook's convention is one row per query, weights3 @ V3 "
                    "of shape (3, 2)",
         "where": ["q6"]},
    ),
    "q7_letter_wrapped_in_quote_marks": (
        {"q_trap_answer": (
            "q_trap_answer = '\"C\"'   # as a string, \"C\"\n"
        )},
        {"mistake": "the answer string contains the quote marks themselves ('\"C\"', three characters), "
                    "so it is not one of the letters A-D; it should be just \"C\"",
         "where": ["q7"]},
    ),
    "q7_cyrillic_c_lookalike": (
        {"q_trap_answer": (
            "q_trap_answer = \"\u0421\"\n"
        )},
        {"mistake": "the letter was typed on a Cyrillic keyboard layout: the answer is U+0421 (Cyrillic Es), "
                    "which looks like C but is not the Latin letter C, so it matches none of A-D",
         "where": ["q7"]},
    ),
    "q8_shift_by_64_for_times_64": (
        {"attn_entries": (
            "attn_entries = 1 << 20                 # 1024 * 1024 = 2**20\n"
            "score_madds = attn_entries << 64       # times d_k = 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "`x << 64` multiplies by 2**64, not by 64: to scale by d_k = 64 = 2**6 the shift is << 6 "
                    "(or just * 64), so score_madds is about 1.8e25 instead of 67,108,864",
         "where": ["q8"]},
    ),
}
