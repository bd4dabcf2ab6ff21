"""Thirty-eighth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, lesson 80 in /work/shared/lessons/, blind37.py
in full (for the format), and only the module docstrings and variant names of the earlier blind sets (so
that their mistakes are not repeated in the same form). The grader was not run on this set.

This round leans on the questions earlier sets touched least (q7, q1, q8, q4, q2) and on code shapes they
used little: a shape written in braces, which makes a set, and a batch axis written None as Keras prints it
(q1); queries and keys standardised with `F.layer_norm` first "so that the mean-0, variance-1 premise of the
text holds" (q2); a max shift clamped at zero, because "exp never overflows on a non-positive input" (q3);
positions compared as fractions of their sequence length with `torch.linspace`, and offsets computed in
`uint8`, where a negative difference wraps round to a large positive one (q4); `~mask.all(...)`, where `~`
applies after the method call, used for "rows with no key", and a scale constant made a NumPy float32 scalar
as in NumPy/TensorFlow code (q5); answers stored as formatted strings, and output rows renormalised as if
they were weights (q6); the right letter wrapped in a list, and a letter picked by a check whose branches
are the wrong way round (q7); a count returned as the NumPy scalar that `np.prod` gives, and an entry count
given as the matrix's shape (q8).

Public material used (search tool): the pages corpus for the discuss.pytorch.org thread "Softmax
implementation" (https://discuss.pytorch.org/t/softmax-implementation/118049: "exp(x) never overflows on a
non-positive tensor x"), the reasoning that the q3 clamped-shift variant stops half-way through, since a
shift that never raises the logits lets them all underflow; the code corpus for the many hand-written NumPy
and JAX attention functions (for example the copy of Flax's `dot_product_attention_weights` in
amyxlu/msa-transformer-jax model.py, which build the scale as `jnp.sqrt(depth).astype(dtype)`), the style
the q5 NumPy float32 scale follows. The other slips are ones plausible for students of this notebook.

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
    "torch_size_shapes_flat_correction_var_numpy_str_letter_shift_costs": {
        "weights_shape": (
            "weights_shape = torch.Size([4, 10, 10])     # torch.Size is a tuple of ints\n"
            "out_shape = torch.Size([4, 10]) + torch.Size([128])\n"
        ),
        "raw_score_var": (
            "d_k = K.size(-1)\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "raw_score_var = float(raw_scores.flatten().var(correction=1))\n"
            "scaled_score_var = float(raw_scores.mul(d_k ** -0.5).flatten().var(correction=1))\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "q_trap_answer": (
            "import numpy as np\n"
            "q_trap_answer = np.str_(\"C\")     # a str subclass\n"
        ),
        "attn_entries": (
            "attn_entries = 1 << 20                  # T = 2 ** 10, T * T = 2 ** 20\n"
            "score_madds = attn_entries << 6         # times d_k = 2 ** 6\n"
            "cost_ratio = ((2 * 1024) ** 2 * 64) // score_madds\n"
        ),
    },
    "softmax_max_from_cummax_reciprocal_mask_from_le": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    running = torch.cummax(x, dim=dim).values\n"
            "    top = running.narrow(dim, x.size(dim) - 1, 1)     # the running max at the end is the max\n"
            "    e = torch.exp(x - top)\n"
            "    return e * torch.reciprocal(e.sum(dim=dim, keepdim=True))\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.le(torch.arange(T_k), torch.arange(T_q).reshape(T_q, 1))\n"
        ),
    },
    "sdpa_prescaled_where_fill_isnan_masked_fill": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scale = 1.0 / math.sqrt(Q.shape[-1])\n"
            "    scores = torch.matmul(Q * scale, K.swapaxes(-1, -2))\n"
            "    if mask is not None:\n"
            "        scores = torch.where(mask, scores, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    weights = weights.masked_fill(weights.isnan(), 0.0)    # rows with no key: 0/0 -> 0\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "sdpa_additive_bias_output_rows_zeroed": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = Q @ K.transpose(-1, -2) / math.sqrt(K.shape[-1])\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores) @ V\n"
            "    bias = torch.zeros_like(scores).masked_fill(mask.logical_not(), float(\"-inf\"))\n"
            "    out = stable_softmax(scores + bias) @ V\n"
            "    no_key = mask.logical_not().all(dim=-1, keepdim=True)       # (..., T_q, 1)\n"
            "    return out.masked_fill(no_key, 0.0)\n"
        ),
    },
    "trace_inner_softmax_module_log_mask": {
        "weights3": (
            "scores3 = torch.inner(Q3, K3) / 4 ** 0.5          # inner contracts the last axes: Q3 K3^T\n"
            "weights3 = torch.nn.Softmax(dim=1)(scores3)\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "weights3_causal = torch.nn.Softmax(dim=1)(scores3 + causal_mask(3).log())   # log 1 = 0, log 0 = -inf\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
}

WRONG = {
    "q1_shape_in_braces_is_a_set": (
        {"weights_shape": (
            "weights_shape = {4, 10, 10}\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "weights_shape is written in braces, which makes the set {4, 10}: the repeated 10 is dropped "
                    "and the order is lost; a shape is the tuple (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_batch_axis_written_as_keras_none": (
        {"weights_shape": (
            "weights_shape = (None, 10, 10)     # batch size left open, as Keras prints it\n"
            "out_shape = (None, 10, 128)\n"
        )},
        {"mistake": "the batch axis is written None, as Keras's model summary shows it, instead of the batch size 4 "
                    "of this example; both shapes must be tuples of ints, (4, 10, 10) and (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_queries_and_keys_standardised_first": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# the text assumes entries with mean 0 and variance 1, so make sure of it first\n"
            "Qn = F.layer_norm(Q, (d_k,))\n"
            "Kn = F.layer_norm(K, (d_k,))\n"
            "raw_scores = Qn @ Kn.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scores are computed from layer-normalised copies of Q and K, not from the Q and K of the "
                    "example, so both variances describe other tensors; use Q @ K.transpose(-2, -1) as given",
         "where": ["q2"]},
    ),
    "q3_max_shift_clamped_at_zero": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    # exp never overflows on non-positive numbers, so only shift when the max is positive\n"
            "    shift = x.max(dim=dim, keepdim=True).values.clamp(min=0)\n"
            "    exps = torch.exp(x - shift)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the shift is clamped at 0, so a slice whose logits are all very negative is not raised and "
                    "every exponential underflows to 0, giving 0/0 = NaN (float16 logits in the thousands, or a "
                    "masked row whose only live score is around -20 in half precision); subtract the max itself",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_positions_as_fractions_of_length": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    q_pos = torch.linspace(0, 1, T_q).unsqueeze(1)   # relative position of each query\n"
            "    k_pos = torch.linspace(0, 1, T_k).unsqueeze(0)\n"
            "    return k_pos <= q_pos\n"
        )},
        {"mistake": "positions are compared as fractions of each sequence's length, so when T_q != T_k the "
                    "triangle is stretched (the last query sees every key) instead of keeping j <= i with top-left "
                    "alignment; compare the integer positions torch.arange(T_k) <= torch.arange(T_q)[:, None]",
         "where": ["q4", "q5"]},
    ),
    "q4_offsets_in_uint8_wrap_around": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows = torch.arange(T_q, dtype=torch.uint8).unsqueeze(1)   # small ints are enough\n"
            "    cols = torch.arange(T_k, dtype=torch.uint8).unsqueeze(0)\n"
            "    return (cols - rows) <= 0                                    # key not after the query\n"
        )},
        {"mistake": "the positions are uint8, so cols - rows cannot be negative: it wraps round to a large "
                    "positive number and only the diagonal (difference exactly 0) stays True; every earlier key is "
                    "hidden. Use a signed dtype or compare cols <= rows directly",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_tilde_applied_after_all": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    no_key = ~mask.all(dim=-1, keepdim=True)       # rows where every key is blocked\n"
            "    weights = weights.masked_fill(no_key, 0.0)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "~mask.all(...) is ~(mask.all(...)) because the method call binds first: it is True for every "
                    "row with at least one blocked key, so partly masked rows (all but the last row of a causal "
                    "mask) are zeroed too; the rows with no key are (~mask).all(...), or ~mask.any(...)",
         "where": ["q5"]},
    ),
    "q5_scale_as_numpy_float32_scalar": (
        {"scaled_dot_product_attention": (
            "import numpy as np\n"
            "\n"
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.shape[-1]\n"
            "    scale = np.float32(1.0 / np.sqrt(d_k))\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scale 1/sqrt(d_k) is made a NumPy float32 scalar, so it is rounded to float32 (0.35355338 "
                    "instead of 0.3535533906 for d_k = 8) and float64 results are off by about 1e-8 relative, far "
                    "more than float64 rounding; keep it a Python float, 1 / math.sqrt(d_k)",
         "where": ["q5"]},
    ),
    "q6_answers_stored_as_formatted_strings": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "w = stable_softmax(scores3, dim=-1)\n"
            "o = w @ V3\n"
            "wc = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "# four decimals are enough\n"
            "weights3 = [[f\"{v:.4f}\" for v in row] for row in w.tolist()]\n"
            "out3 = [[f\"{v:.4f}\" for v in row] for row in o.tolist()]\n"
            "weights3_causal = [[f\"{v:.4f}\" for v in row] for row in wc.tolist()]\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the answers are nested lists of strings such as '0.2119', not floats: formatting to four "
                    "decimals is for printing; store the tensors (or lists of floats)",
         "where": ["q6"]},
    ),
    "q6_output_rows_renormalised": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "out3 = out3 / out3.sum(dim=-1, keepdim=True)      # rows should sum to 1\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "out3 is divided by its row sums as if it were a row of weights; it is a weighted average of "
                    "the value rows and its rows need not sum to 1, so out3 is wrong (weights3 @ V3 as it is)",
         "where": ["q6"]},
    ),
    "q7_letter_wrapped_in_a_list": (
        {"q_trap_answer": (
            "q_trap_answer = [\"C\"]\n"
        )},
        {"mistake": "the answer is a list holding the letter, not the one-letter string \"C\" the question asks "
                    "for",
         "where": ["q7"]},
    ),
    "q7_row_sum_check_with_branches_swapped": (
        {"q_trap_answer": (
            "_s = torch.randn(4, 4, dtype=torch.float64)\n"
            "_w = torch.softmax(_s, dim=-1)\n"
            "_w[~causal_mask(4)] = 0.0\n"
            "_rows_sum_to_one = torch.allclose(_w.sum(dim=-1), torch.ones(4, dtype=torch.float64))\n"
            "# if the rows no longer sum to one, nothing changed that matters\n"
            "q_trap_answer = \"A\" if not _rows_sum_to_one else \"C\"\n"
        )},
        {"mistake": "the check is right (the zeroed rows no longer sum to 1) but the branches are the wrong way "
                    "round, so it answers \"A\"; the answer is \"C\"",
         "where": ["q7"]},
    ),
    "q8_madds_from_np_prod_numpy_int64": (
        {"attn_entries": (
            "import numpy as np\n"
            "attn_entries = 1024 * 1024\n"
            "score_madds = np.prod([1024, 1024, 64])\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "score_madds is the NumPy scalar numpy.int64 that np.prod returns, not the Python int the "
                    "question asks for; use math.prod or 1024 * 1024 * 64",
         "where": ["q8"]},
    ),
    "q8_entries_given_as_matrix_shape": (
        {"attn_entries": (
            "attn_entries = (1024, 1024)          # T x T\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "attn_entries is the shape of the weight matrix, the tuple (1024, 1024), not its number of "
                    "entries 1024 * 1024 = 1,048,576",
         "where": ["q8"]},
    ),
}
