"""Thirty-seventh blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, lesson 80 in /work/shared/lessons/,
blind36.py in full (for the format), and only the module docstrings and variant names of the earlier
blind sets (so that their mistakes are not repeated in the same form). The grader was not run on this set.

This round leans on the questions earlier sets touched least (q1, q7, q8, q4) and on code shapes they used
little: a shape answered with an entry count, and a weights shape of feature-by-feature products (q1); a
hand-written unbiased variance whose n comes from `len()` of a 3-D tensor (q2); Python's builtin `sum` used
on a tensor, which reduces over the first axis (q3); a sliding-window "causal" mask copied from public code,
and a key-length square triangle cut down to the query rows (q4); the PyTorch documentation's "equivalent
implementation" ported with its `(L, S)` bias filled in place, and the scale constant built as a float16
tensor "so that half inputs stay half" (q5); hard (argmax, one-hot) attention, and `F.scaled_dot_product_attention`
given the divisor as its `scale=` keyword, which is a multiplier (q6); a letter with a trailing space and
an option index (q7); an entry count left as a float tensor, and the exponent log2(64) = 6 used in place of
the head width 64 (q8).

Public material used (search tool): the docs corpus for the PyTorch page of
`torch.nn.functional.scaled_dot_product_attention` (its "efficient implementation equivalent to the
following" builds `attn_bias = torch.zeros(L, S, ...)` and calls `attn_bias.masked_fill_(attn_mask.logical_not(),
float("-inf"))`, which cannot grow to a batched mask; the q5 docs-port variant follows it), and which says
`scale` is the factor the scores are multiplied by (the q6 scale variant); the code corpus for
zinccat/flaxattention flaxattention/masks/sliding_window.py (a causal mask ANDed with
`q_idx - kv_idx <= window_size`; the q4 sliding-window variant). The other slips are ones plausible for
students of this notebook.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5 and q6, whose code calls it; a broken `causal_mask` also costs q5).
Correct variants are really correct but written differently from full_marks. Every variant was checked
against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) on several shapes and dtypes,
including the notebook's own, with a throwaway script outside the repository.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "softmax_max_from_descending_sort_mask_from_where_scalars": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    top = x.sort(dim=dim, descending=True).values.narrow(dim, 0, 1)   # the largest logit\n"
            "    e = (x - top).exp()\n"
            "    return e.div(e.sum(dim=dim, keepdim=True))\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    future = torch.arange(T_k).view(1, T_k) > torch.arange(T_q).view(T_q, 1)\n"
            "    return torch.where(future, False, True)\n"
        ),
    },
    "sdpa_fourth_root_on_queries_and_keys_isfinite_rows": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    s = Q.shape[-1] ** -0.25          # (q s) . (k s) = q . k / sqrt(d_k)\n"
            "    scores = (Q * s) @ (K * s).transpose(-1, -2)\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    scores = scores.masked_fill(mask.logical_not(), -math.inf)\n"
            "    live = torch.isfinite(scores).any(dim=-1, keepdim=True)\n"
            "    weights = torch.where(live, stable_softmax(scores, dim=-1), scores.new_zeros(()))\n"
            "    return weights @ V\n"
        ),
    },
    "sdpa_softmax_over_transposed_scores_dim_minus_two": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    kq = K @ Q.mT / math.sqrt(Q.shape[-1])        # (..., T_k, T_q): keys down, queries across\n"
            "    if mask is not None:\n"
            "        kq = kq.masked_fill(~mask.mT, float(\"-inf\"))\n"
            "    weights = stable_softmax(kq, dim=-2).mT         # normalise over the keys, then turn back\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return weights @ V\n"
        ),
    },
    "trace_special_softmax_mm_triu_fill": {
        "weights3": (
            "scores3 = torch.mm(Q3, K3.t()) / 2.0\n"
            "weights3 = torch.special.softmax(scores3, 1)\n"
            "out3 = torch.mm(weights3, V3)\n"
            "future3 = torch.ones(3, 3, dtype=torch.bool).triu(diagonal=1)\n"
            "weights3_causal = torch.special.softmax(scores3.masked_fill(future3, -math.inf), 1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "answers_unpacked_float64_variance_stripped_letter_int_pow": {
        "weights_shape": (
            "batch_and_queries = [4, 10]\n"
            "weights_shape = (*batch_and_queries, 10)\n"
            "out_shape = (*batch_and_queries, 128)\n"
        ),
        "raw_score_var": (
            "d_k = K.shape[-1]\n"
            "raw_scores = torch.matmul(Q.double(), K.double().mT)\n"
            "raw_score_var = float(raw_scores.var())\n"
            "scaled_score_var = float((raw_scores / d_k ** 0.5).var())\n"
            "scale_divisor = float(64 ** 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"  C  \".strip()\n"
        ),
        "attn_entries": (
            "attn_entries = int(math.pow(1024, 2))\n"
            "score_madds = attn_entries * 64\n"
            "cost_ratio = int(math.pow(2 * 1024, 2) * 64) // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_shapes_given_as_entry_counts": (
        {"weights_shape": (
            "weights_shape = 4 * 10 * 10      # entries in the weight tensor\n"
            "out_shape = 4 * 10 * 128\n"
        )},
        {"mistake": "each answer is the number of entries (400 and 5120), an int, not the shape the question asks "
                    "for; write the tuples (4, 10, 10) and (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q1_weights_as_feature_by_feature_products": (
        {"weights_shape": (
            "weights_shape = (4, 64, 64)      # one weight per pair of features\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "the weights have one entry per (query, key) pair, (4, 10, 10), not one per pair of features "
                    "(4, 64, 64): that would be Q^T K, not Q K^T",
         "where": ["q1"]},
    ),
    "q2_hand_variance_n_from_len_of_batched_scores": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "\n"
            "def unbiased_var(t):\n"
            "    n = len(t)                                  # number of scores\n"
            "    return (((t - t.mean()) ** 2).sum() / (n - 1)).item()\n"
            "\n"
            "raw_score_var = unbiased_var(raw_scores)\n"
            "scaled_score_var = unbiased_var(raw_scores / math.sqrt(d_k))\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "len() of the (2, 5, 5) score tensor is its first dimension, 2, not the 50 scores, so the "
                    "squared deviations are divided by 1 instead of 49 and both variances are 49 times too large",
         "where": ["q2"]},
    ),
    "q3_python_builtin_sum": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    exps = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
            "    return exps / sum(exps)\n"
        )},
        {"mistake": "Python's builtin sum() adds the tensor's slices along the first dimension, ignoring `dim`, so "
                    "for 2-D and batched inputs the rows are not normalised along `dim` (only a 1-D input comes out "
                    "right); use exps.sum(dim=dim, keepdim=True)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_sliding_window_mask_copied": (
        # a causal mask ANDed with a local window, as in zinccat/flaxattention masks/sliding_window.py
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None, window_size=4):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    q_idx = torch.arange(T_q).unsqueeze(1)\n"
            "    kv_idx = torch.arange(T_k).unsqueeze(0)\n"
            "    causal = kv_idx <= q_idx\n"
            "    local = q_idx - kv_idx <= window_size\n"
            "    return causal & local\n"
        )},
        {"mistake": "the copied mask is a sliding window, not a causal mask: it also blocks every key more than 4 "
                    "positions back, so from query 5 on the earliest keys are hidden; causal attention keeps all "
                    "j <= i",
         "where": ["q4", "q5"]},
    ),
    "q4_key_length_triangle_cut_to_query_rows": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return torch.ones(T_k, T_k, dtype=torch.bool).tril()[:T_q]\n"
        )},
        {"mistake": "the triangle is built T_k by T_k and only its first T_q rows are kept, so when there are more "
                    "queries than keys (T_q > T_k) the mask has T_k rows instead of T_q; build it (T_q, T_k)",
         "where": ["q4", "q5"]},
    ),
    "q5_docs_bias_sized_T_q_by_T_k_filled_in_place": (
        # ported from the "equivalent implementation" on the PyTorch page of F.scaled_dot_product_attention
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    L, S = Q.size(-2), K.size(-2)\n"
            "    scale_factor = 1 / math.sqrt(Q.size(-1))\n"
            "    attn_bias = torch.zeros(L, S, dtype=Q.dtype, device=Q.device)\n"
            "    if mask is not None:\n"
            "        attn_bias.masked_fill_(mask.logical_not(), float(\"-inf\"))\n"
            "    attn_weight = Q @ K.transpose(-2, -1) * scale_factor\n"
            "    attn_weight = attn_weight + attn_bias\n"
            "    attn_weight = stable_softmax(attn_weight, dim=-1)\n"
            "    if mask is not None:\n"
            "        attn_weight = torch.where(mask.any(dim=-1, keepdim=True), attn_weight, 0.0)\n"
            "    return attn_weight @ V\n"
        )},
        {"mistake": "the bias is a single (T_q, T_k) matrix filled in place, so a batched mask (3-D or 4-D, e.g. a "
                    "padding mask per sequence) cannot be written into it and the call fails; apply the mask to "
                    "the scores themselves, which broadcast, with scores.masked_fill(~mask, -inf)",
         "where": ["q5"]},
    ),
    "q5_scale_constant_made_in_float16": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    # keep the constant in half precision so that float16 inputs stay float16\n"
            "    scale = torch.tensor(1 / math.sqrt(d_k), dtype=torch.float16, device=Q.device)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scale 1/sqrt(d_k) is stored as a float16 tensor, so it is rounded to about 3 significant "
                    "digits (0.35352 instead of 0.353553 for d_k = 8) and float32/float64 results are off by far "
                    "more than rounding noise; use the Python float 1 / math.sqrt(d_k)",
         "where": ["q5"]},
    ),
    "q6_hard_attention_one_hot_argmax": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = F.one_hot(scores3.argmax(dim=-1), num_classes=3).to(torch.float64)   # each query picks its best key\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the weights are a one-hot pick of each query's highest-scoring key (hard attention), not the "
                    "softmax of the scaled scores, so weights3 and out3 are wrong; every key gets some weight",
         "where": ["q6"]},
    ),
    "q6_sdpa_scale_keyword_given_the_divisor": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "eye3 = torch.eye(3, dtype=torch.float64)          # V = I reads the weights off the output\n"
            "weights3 = F.scaled_dot_product_attention(Q3, K3, eye3, scale=math.sqrt(4))\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = F.scaled_dot_product_attention(Q3, K3, eye3, is_causal=True, scale=math.sqrt(4))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "`scale=` of F.scaled_dot_product_attention multiplies the scores; passing sqrt(d_k) = 2 "
                    "multiplies them by 2 instead of dividing, so all three answers are wrong; pass "
                    "scale=1 / math.sqrt(4) or leave the default",
         "where": ["q6"]},
    ),
    "q7_letter_with_trailing_space": (
        {"q_trap_answer": (
            "q_trap_answer = \"C \"\n"
        )},
        {"mistake": "the answer string has a trailing space, \"C \", which is not the one-letter string \"C\"",
         "where": ["q7"]},
    ),
    "q7_option_index_instead_of_letter": (
        {"q_trap_answer": (
            "q_trap_answer = 2      # options A, B, C, D -> index 2\n"
        )},
        {"mistake": "the answer is the position of the option (the int 2), not its letter as a string; write \"C\"",
         "where": ["q7"]},
    ),
    "q8_entries_left_as_float_tensor": (
        {"attn_entries": (
            "attn_entries = torch.ones(1024, 1024).sum()      # count the entries of a T x T matrix\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "attn_entries is a float32 torch tensor (tensor(1048576.)), not the Python int the question asks "
                    "for; write 1024 ** 2",
         "where": ["q8"]},
    ),
    "q8_madds_times_log2_of_head_width": (
        {"attn_entries": (
            "attn_entries = 2 ** 20               # T = 2 ** 10\n"
            "score_madds = 2 ** 20 * 6            # d_k = 64 = 2 ** 6\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "score_madds multiplies by the exponent 6 (64 = 2 ** 6) instead of by the head width 64, giving "
                    "6,291,456 instead of 67,108,864 = 2 ** 26",
         "where": ["q8"]},
    ),
}
