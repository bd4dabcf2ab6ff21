"""Thirty-second blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, and only the module docstrings and variant
names of blind.py .. blind31.py (so that their mistakes are not repeated in the same form). The grader was
not run on this set.

This round spreads over every question and leans on shapes earlier sets used little: a true division
that turns a shape entry into a float (q1), `torch.inner` taken for "the inner product of every query
with every key" (q2), the deprecated `.T` on a batched tensor (q2), a subtraction written the wrong way
round and a max subtracted outside the `exp` (q3), a negative-dim normalisation applied to every dim
(q3), two `arange`s expanded along the same axis and a square triangle sliced to the key count (q4),
a NumPy round trip for the scores, a softmax over the flattened score matrix and a mask parameter named
after PyTorch's `attn_mask` (q5), `is_causal=True` left on when reading off the unmasked weights (q6),
a q7 check that only compares which weights are non-zero, and 1024 rounded to 1000 (q8).

Public material searched (search tool, issues corpus): threads on batched attention matmuls where keys are
transposed with the wrong axes (leaderj1001/BottleneckTransformers#14, keon/seq2seq#16); the q2 `.T`
variant carries the slip PyTorch's own deprecation warning describes ("The use of `x.T` on tensors of
dimension other than 2 to reverse their shape is deprecated"). The other variants are slips plausible for
students of this notebook (misread definitions, a half-remembered API, a copy-paste slip, a check run on
the wrong property).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5 and q6, which call it; a broken `causal_mask` also costs q5, whose
public check calls it, and q6, whose cell calls it). Correct variants are really correct but written
differently from full_marks. Every variant was checked against plain torch (`F.scaled_dot_product_attention`,
`torch.softmax`) on several shapes and dtypes, including the notebook's own, with a throwaway script outside
the repository before it was committed.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "shapes_built_from_pieces_costs_from_shifts": {
        "weights_shape": (
            "n_batch, n_tokens, d_model = 4, 10, 64\n"
            "d_values = 128\n"
            "weights_shape = (n_batch,) + (n_tokens,) * 2\n"
            "out_shape = (n_batch, n_tokens, d_values)\n"
        ),
        "attn_entries": (
            "T, dk = 1024, 64\n"
            "attn_entries = T << 10\n"
            "score_madds = attn_entries * dk\n"
            "cost_ratio = (2 * T) ** 2 // T ** 2\n"
        ),
    },
    "softmax_functional_calls_sub_div": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    top = torch.amax(x, dim, keepdim=True)\n"
            "    num = torch.exp(torch.sub(x, top))\n"
            "    den = torch.sum(num, dim, keepdim=True)\n"
            "    return torch.div(num, den)\n"
        ),
    },
    "causal_expanded_positions_compared": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    key_pos = torch.arange(T_k).expand(T_q, T_k)\n"
            "    query_pos = torch.arange(T_q).unsqueeze(-1).expand(T_q, T_k)\n"
            "    return key_pos <= query_pos\n"
        ),
    },
    "sdpa_einsum_isnan_tensor_where": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scale = 1.0 / math.sqrt(K.shape[-1])\n"
            "    scores = torch.einsum('...qd,...kd->...qk', Q, K) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask.logical_not(), -math.inf)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    weights = weights.where(~torch.isnan(weights), 0.0)   # all-masked rows: 0/0 -> 0\n"
            "    return torch.einsum('...qk,...kd->...qd', weights, V)\n"
        ),
    },
    "variance_bmm_trace_row_by_row": {
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "raw_score_var = float(raw_scores.var())\n"
            "scaled_score_var = float((raw_scores * d_k ** -0.5).var())\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "rows = []\n"
            "for i in range(3):\n"
            "    seen = stable_softmax(scores3[i, : i + 1], dim=-1)      # only keys 0..i\n"
            "    rows.append(torch.cat([seen, scores3.new_zeros(2 - i)]))\n"
            "weights3_causal = torch.stack(rows)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
}

WRONG = {
    "q1_out_width_true_division_float": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10)\n"
            "# the output has one value-width per query: d_v = 128 = 2 * d_k\n"
            "out_shape = (4, 10, 2 * 64 / 1)\n"
        )},
        {"mistake": "out_shape's last entry is computed with true division `/`, so it is the float 128.0 "
                    "instead of the int 128; the shapes must be tuples of Python ints.",
         "where": ["q1"]},
    ),
    "q2_torch_inner_pairs_across_batch": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.inner(Q, K)   # inner product of every query with every key\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "torch.inner on 3-D tensors pairs every query with every key of EVERY sequence "
                    "(shape (2, 5, 2, 5)), so the variances include cross-sequence dot products; the scores "
                    "are Q @ K.transpose(-2, -1), within each sequence.",
         "where": ["q2"]},
    ),
    # PyTorch's own deprecation warning: "The use of `x.T` on tensors of dimension other than 2 to reverse
    # their shape is deprecated" -- `.T` reverses ALL axes of a batched tensor.
    "q2_dot_T_reverses_all_axes_of_batched_keys": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.T\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "K.T on the 3-D keys reverses all three axes (shape (8, 5, 2)) instead of swapping the "
                    "last two, so Q @ K.T fails with a size mismatch; use K.transpose(-2, -1) (or K.mT).",
         "where": ["q2"]},
    ),
    "q3_shift_subtracted_backwards": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    biggest = x.amax(dim=dim, keepdim=True)\n"
            "    e = torch.exp(biggest - x)\n"
            "    return e / e.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the shift is written max - x instead of x - max, so it exponentiates the negated logits: "
                    "the largest logit gets the smallest weight (and the exponentials can overflow).",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_max_subtracted_outside_exp": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    m = x.max(dim=dim, keepdim=True).values\n"
            "    e = torch.exp(x) - m\n"
            "    return e / e.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "a misplaced parenthesis subtracts the max from exp(x) instead of exponentiating x - max: "
                    "the values are no longer a softmax, and exp(x) still overflows in float16.",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_negative_dim_normalised_unconditionally": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    dim = x.dim() + dim          # turn a negative dim into a positive one\n"
            "    shifted = x - x.amax(dim=dim, keepdim=True)\n"
            "    exps = shifted.exp()\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "x.dim() is added to dim even when dim is already non-negative, so dim=0 on a 2-D "
                    "tensor becomes dim=2 and raises an IndexError (a positive dim is out of range); only "
                    "negative dims should be shifted.",
         "where": ["q3"]},
    ),
    "q4_positions_expanded_along_the_same_axis": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    key_pos = torch.arange(T_k).expand(T_q, T_k)\n"
            "    query_pos = torch.arange(T_q).expand(T_k, T_q)\n"
            "    return key_pos <= query_pos\n"
        )},
        {"mistake": "the query positions are expanded along the rows like the key positions instead of "
                    "down the columns, so a square mask compares j <= j and is all True (no causal "
                    "masking), and a rectangular one fails to broadcast.",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_square_of_query_length_sliced_to_keys": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    square = torch.ones(T_q, T_q, dtype=torch.bool).tril()\n"
            "    if T_k is None:\n"
            "        return square\n"
            "    return square[:, :T_k]\n"
        )},
        {"mistake": "the triangle is built T_q x T_q and then sliced to T_k columns; slicing cannot add "
                    "columns, so with more keys than queries the mask has shape (T_q, T_q) instead of "
                    "(T_q, T_k).",
         "where": ["q4", "q5"]},
    ),
    "q5_scores_computed_in_numpy": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    import numpy as np\n"
            "    d_k = Q.shape[-1]\n"
            "    q, k = Q.cpu().numpy(), K.cpu().numpy()\n"
            "    scores = torch.from_numpy(np.matmul(q, np.swapaxes(k, -2, -1))).to(Q.device) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "the scores take a NumPy round trip: that cuts the autograd graph (Q and K get no "
                    "gradient; .numpy() raises on tensors that require grad) and NumPy has no bfloat16, "
                    "so bfloat16 inputs crash.",
         "where": ["q5"]},
    ),
    "q5_softmax_over_flattened_score_matrix": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    flat = scores.flatten(start_dim=-2)                   # (..., T_q * T_k)\n"
            "    weights = stable_softmax(flat, dim=-1).view_as(scores)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "the softmax is taken over the whole flattened T_q x T_k score matrix, so all queries "
                    "share one distribution; it must run over the keys of each query (dim=-1 of the "
                    "(..., T_q, T_k) scores) so that every query's weights sum to 1.",
         "where": ["q5"]},
    ),
    "q5_mask_parameter_named_attn_mask": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, attn_mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.shape[-1]\n"
            "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "    if attn_mask is not None:\n"
            "        scores = scores.masked_fill(~attn_mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if attn_mask is not None:\n"
            "        weights = weights.masked_fill(~attn_mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "the mask parameter is renamed attn_mask (PyTorch's name) instead of the fixed "
                    "signature's mask, so every call with mask=... raises a TypeError.",
         "where": ["q5"]},
    ),
    "q6_unmasked_weights_read_with_is_causal": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "eye3 = torch.eye(3, dtype=torch.float64)\n"
            "# with V = I the output rows are the attention weights\n"
            "weights3 = F.scaled_dot_product_attention(Q3, K3, eye3, is_causal=True)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = F.scaled_dot_product_attention(Q3, K3, eye3, is_causal=True)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "is_causal=True was copied into the call that reads off the UNMASKED weights, so "
                    "weights3 (and out3, computed from it) are the causal weights instead of the plain "
                    "softmax(Q K^T / 2) weights.",
         "where": ["q6"]},
    ),
    "q7_compared_which_weights_are_nonzero": (
        {"q_trap_answer": (
            "_s = torch.randn(4, 4)\n"
            "_m = causal_mask(4)\n"
            "_proper = stable_softmax(_s.masked_fill(~_m, float('-inf')))\n"
            "_trap = stable_softmax(_s).masked_fill(~_m, 0.0)\n"
            "# both keep exactly the allowed keys, so the shortcut must be fine\n"
            "q_trap_answer = \"A\" if torch.equal(_proper > 0, _trap > 0) else \"C\"\n"
        )},
        {"mistake": "the check only compares WHICH weights are non-zero, not their values; the zeroed "
                    "weights keep the right pattern but no longer sum to 1, so the answer is C, not A.",
         "where": ["q7"]},
    ),
    "q8_1024_rounded_to_1000": (
        {"attn_entries": (
            "attn_entries = 1000 * 1000        # T = 1K, so a million entries\n"
            "score_madds = attn_entries * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "T = 1024 is treated as 1000, so attn_entries and score_madds are the rounded 10**6 and "
                    "64 * 10**6 instead of 1024 * 1024 and 1024 * 1024 * 64.",
         "where": ["q8"]},
    ),
}
