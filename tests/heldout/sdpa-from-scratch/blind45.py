"""Forty-fifth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (as they
stand in `full_marks.ipynb`, whose cells these replace), `harness.py`, blind44.py in full (for the format),
only the module docstrings and variant names of the earlier blind sets (so that their mistakes are not
repeated in the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on
this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1, q7,
q8, q4, q2 before q6, q3 and q5): three variants for q7, two each for q1, q2 and q4, one each for q3, q5,
q6 and q8, in code shapes they did not use: a broadcast probe of all (query, key) products summed over the
query axis instead of the feature axis, and an output shape made by appending the value width to the
weights' shape instead of replacing its last entry (q1); scores passed through `torch.tril` before the
variance (a causal habit from the lesson), and a batch averaged into one score matrix before the variance
(q2); a softmax that "flattens to rows" with `reshape(-1, x.shape[dim])` instead of moving the axis, right
only for the last axis (q3); the complement of an old-style uint8 ByteTensor triangle taken with `~`,
which flips all eight bits (0 -> 255, 1 -> 254) so that every entry is non-zero and the mask is all True,
the query rows cut from the end of the key-length triangle as in kv-cache decoding (bottom-right, right
only when T_q == T_k), and `torch.le` called with its arguments in reading order (q4); the values read
through `.data` (q5); keys scaled in place through their `.T` view by a helper that the trace calls twice
(q6); the letter given as a member of a plain `Enum`, an f-string whose `f` prefix was forgotten, and the
letter in braces, which makes a set (q7); entries counted by summing a float16 probe, which overflows to
inf (q8). The correct variants use `torch.Size` arithmetic for the shapes, a hand variance centred on the
grand mean with the scaled one from the variance rule, `"%c" % 67` and bit shifts; a softmax from
`sub`/`amax`/`reciprocal` with a mask from `torch.le` in the right order and a parenthesised letter; an
attention with prescaled keys, an additive `-inf` bias made by `masked_fill` on `zeros_like` and empty rows
cleared with `masked_fill` of `all` blocked; a trace with einsum, `stable_softmax` and `torch.where`,
stored as nested lists; and an attention that works in float32 for 2-byte dtypes (`element_size`), clears
empty rows with `nan_to_num` and casts back to a dtype saved before the conversion.

Public material used (search tool): issues corpus: ZikangZhou/HiVT#44 (`~` is a bitwise NOT, `~True` is
-2 and `~False` -1 for Python/integer values, both non-zero) behind the q4 uint8-complement variant;
pytorch/pytorch#103082 (top-left versus bottom-right alignment, with the kv-cache case L = 1 where the
queries are the last positions) behind the q4 variant that keeps the last T_q rows; pytorch/pytorch#19697
(a transposed tensor shares storage with the original, so in-place changes through it show in both)
behind the q6 in-place key scaling; pytorch/pytorch#764 (`view`/reshape after a transpose, and the
difference between re-shaping and moving axes) and PetrochukM/PyTorch-NLP#2, FudanNLP/fastNLP#254 (softmax
taken along the wrong dimension in attention code) behind the q3 reshape variant; pytorch/pytorch#104652
(the documented reference code for `F.scaled_dot_product_attention`, with its `masked_fill` of an additive
bias) for the correct additive-bias attention. Code corpus: attention functions from
nikitakapitan/transformers `src/transformers/attention.py` and StateOfTheArt-quant/transformerquant
`transformerquant/modules/attention/single.py` (the annotated-transformer shape, `masked_fill(mask == 0,
-1e9)`) were read for the shapes of real code; the one with `bmm(...)//sqrt(dim_k)` was already used by
earlier sets (floor division) and is not repeated. Pages corpus: NumPy softmax tutorials (kouhan.cn
"Implementing Softmax Function in Python", and the numerically stable softmax pages in
nvidia/Nemotron-CC-Math-v1) for the `axis`/`keepdims` habits. The other slips are ones plausible for
students of this notebook (old uint8 masks, `.data` from old tutorials, Enum answers, a forgotten f prefix,
sets for "the true options", half-precision probes to save memory).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` also costs q5 and q6, whose tests or code may use it). Correct variants are really
correct but written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the
notebook's formula) on several shapes and dtypes (float64, float32, float16, bfloat16), including the
notebook's own, with a throwaway script outside the repository; each variant's notebook was also run top to
bottom (all code cells but otter's) without an error.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "torch_size_shapes_grand_mean_variance_rule_percent_c_letter_shift_costs": {
        "weights_shape": (
            "_lead = torch.Size([4, 10])                   # (batch, T_q)\n"
            "weights_shape = tuple(_lead + torch.Size([10]))  # ... then one column per key\n"
            "out_shape = tuple(_lead + (128,))               # ... then the value width\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "_n = raw_scores.numel()\n"
            "raw_score_var = float(((raw_scores - raw_scores.mean()) ** 2).sum() / (_n - 1))\n"
            "scaled_score_var = raw_score_var / d_k            # Var(X / c) = Var(X) / c**2, c**2 = d_k\n"
            "scale_divisor = 64 ** .5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"%c\" % 67          # chr(67) == \"C\"\n"
        ),
        "attn_entries": (
            "_T, _width = 1 << 10, 1 << 6\n"
            "attn_entries = _T * _T\n"
            "score_madds = attn_entries * _width\n"
            "cost_ratio = ((2 * _T) ** 2 * _width) // score_madds\n"
        ),
    },
    "softmax_sub_amax_reciprocal_mask_from_le_letter_in_parentheses": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    e = x.sub(x.amax(dim=dim, keepdim=True)).exp()\n"
            "    return e * torch.reciprocal(e.sum(dim=dim, keepdim=True))\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.le(torch.arange(T_k)[None, :], torch.arange(T_q)[:, None])   # j <= i\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = (\"C\")      # parentheses alone do not make a tuple\n"
        ),
    },
    "sdpa_prescaled_keys_additive_bias_from_zeros_like_rows_cleared_by_all_blocked": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scale = 1.0 / math.sqrt(Q.shape[-1])\n"
            "    scores = Q @ (K * scale).transpose(-1, -2)\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    blocked = mask.logical_not()\n"
            "    bias = torch.zeros_like(scores).masked_fill(blocked, -math.inf)\n"
            "    weights = stable_softmax(scores + bias, dim=-1)\n"
            "    weights = weights.masked_fill(blocked.all(dim=-1, keepdim=True), 0.0)   # no key at all\n"
            "    return weights @ V\n"
        ),
    },
    "trace_einsum_stable_softmax_where_causal_nested_lists": {
        "weights3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) * 0.5         # / sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=1)\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3).tolist()\n"
            "weights3_causal = stable_softmax(torch.where(causal_mask(3), scores3, -torch.inf), dim=1).tolist()\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "sdpa_float32_for_two_byte_dtypes_nan_to_num_rows_saved_dtype": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    in_dtype = Q.dtype                                   # saved before any conversion\n"
            "    work = torch.float32 if Q.element_size() < 4 else in_dtype\n"
            "    q, k, v = Q.to(work), K.to(work), V.to(work)\n"
            "    scores = (q @ k.mT) / math.sqrt(q.shape[-1])\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, -math.inf)\n"
            "    weights = torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0)   # all-blocked rows\n"
            "    return (weights @ v).to(in_dtype)\n"
        ),
    },
}

WRONG = {
    "q1_broadcast_probe_summed_over_the_query_axis": (
        {"weights_shape": (
            "_Qp = torch.zeros(4, 10, 64)\n"
            "_Kp = torch.zeros(4, 10, 64)\n"
            "_pairs = _Qp.unsqueeze(2) * _Kp.unsqueeze(1)      # (4, 10, 10, 64): every query times every key\n"
            "weights_shape = tuple(_pairs.sum(dim=1).shape)    # add up the products\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "the products of every query with every key are summed over dim=1 (the query axis) instead of "
                    "the feature axis (dim=-1), so the probe keeps the feature width and weights_shape comes out "
                    "(4, 10, 64) instead of (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_value_width_appended_to_the_weights_shape": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10)\n"
            "out_shape = weights_shape + (128,)     # the values bring their width d_v = 128\n"
        )},
        {"mistake": "tuple + appends: the value width is added after the key axis instead of replacing it, so "
                    "out_shape is (4, 10, 10, 128); the product weights @ V contracts the key axis and gives "
                    "(4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_scores_lower_triangle_kept_by_tril_before_variance": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.tril(Q @ K.transpose(-2, -1))   # causal: a token only scores keys up to itself\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the raw scores are passed through torch.tril (a causal-mask habit), so the 20 scores above the "
                    "diagonal are replaced by zeros and both variances are taken over a matrix that is partly "
                    "zeros; the question asks for the variance of all the raw scores Q @ K^T, unmasked",
         "where": ["q2"]},
    ),
    "q2_batch_averaged_into_one_score_matrix_first": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = (Q @ K.transpose(-2, -1)).mean(dim=0)     # one (5, 5) score matrix for the batch\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the two sequences' score matrices are averaged into one before the variance is taken; the "
                    "mean of two independent scores has about half their variance, so both values come out about "
                    "half too small; the variance is over all 50 entries of the (2, 5, 5) scores",
         "where": ["q2"]},
    ),
    "q3_reshape_instead_of_moving_the_axis": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    n = x.shape[dim]\n"
            "    rows = x.reshape(-1, n)                       # one row per slice along `dim`\n"
            "    shifted = rows - rows.max(dim=-1, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return (exps / exps.sum(dim=-1, keepdim=True)).reshape(x.shape)\n"
        )},
        {"mistake": "reshape(-1, x.shape[dim]) does not move `dim` to the end: it regroups the elements in memory "
                    "order, so each 'row' is a run of consecutive elements of the last axis; this is right only "
                    "for dim=-1 (or the last positive dim), and for any other dim the softmax is taken over the "
                    "wrong groups of entries (move the axis with movedim/transpose, or reduce along dim)",
         "where": ["q3"]},
    ),
    "q4_tilde_on_a_uint8_triangle_flips_every_bit": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    future = torch.triu(torch.ones(T_q, T_k, dtype=torch.uint8), diagonal=1)   # old ByteTensor mask\n"
            "    return (~future).bool()\n"
        )},
        {"mistake": "~ on a uint8 tensor is a bitwise NOT, not a logical one: 0 becomes 255 and 1 becomes 254, both "
                    "non-zero, so after .bool() every entry is True and nothing is hidden; negate after converting "
                    "to bool (~future.bool()) or compare (future == 0)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_last_rows_of_the_key_square_as_in_kv_cache_decoding": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    full = torch.ones(T_k, T_k, dtype=torch.bool).tril()   # one row per key position\n"
            "    return full[-T_q:]                                      # the queries are the newest T_q positions\n"
        )},
        {"mistake": "the query rows are cut from the END of the key-length triangle (the kv-cache picture), which "
                    "aligns the mask bottom-right: with fewer queries than keys query i sees keys up to "
                    "i + T_k - T_q, and with more queries than keys the mask has only T_k rows; the notebook "
                    "asks for top-left alignment, [i, j] True exactly when j <= i",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_torch_le_called_with_its_arguments_in_reading_order": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows = torch.arange(T_q).unsqueeze(1)   # i\n"
            "    cols = torch.arange(T_k).unsqueeze(0)   # j\n"
            "    return torch.le(rows, cols)              # \"j <= i\"\n"
        )},
        {"mistake": "torch.le(a, b) means a <= b, so torch.le(rows, cols) is i <= j: the mask keeps the diagonal "
                    "and the upper triangle (the future keys) and hides the past; j <= i is torch.le(cols, rows)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_values_read_through_data": (
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
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V.data)          # the values are just looked up\n"
        )},
        {"mistake": "V.data is V cut out of the autograd graph (an old-tutorial idiom), so the output has no "
                    "gradient with respect to V: V.grad stays None although the values are right; use V itself",
         "where": ["q5"]},
    ),
    "q6_keys_scaled_in_place_through_a_transpose_view": (
        {"weights3": (
            "def _scaled_scores(Qm, Km):\n"
            "    Kt = Km.T                          # (d_k, T)\n"
            "    Kt /= math.sqrt(Km.shape[1])       # scale the keys once instead of every score\n"
            "    return Qm @ Kt\n"
            "\n"
            "\n"
            "scores3 = _scaled_scores(Q3, K3)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(_scaled_scores(Q3, K3).masked_fill(~causal_mask(3), float(\"-inf\")),\n"
            "                                 dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "Km.T is a view of K3, so the in-place /= divides K3 itself; the second call divides the "
                    "already halved keys again, so the causal weights are computed from scores divided by 4 "
                    "instead of 2 (and K3 is left changed); scale a copy (Km.T / 2) instead",
         "where": ["q6"]},
    ),
    "q7_letter_given_as_an_enum_member": (
        {"q_trap_answer": (
            "from enum import Enum\n"
            "\n"
            "\n"
            "class Choice(Enum):\n"
            "    A = \"zeroing after the softmax is the same\"\n"
            "    B = \"the mask is the wrong way round\"\n"
            "    C = \"the remaining weights no longer sum to 1\"\n"
            "    D = \"only float16 goes wrong\"\n"
            "\n"
            "\n"
            "q_trap_answer = Choice.C\n"
        )},
        {"mistake": "the answer is the member Choice.C of a plain Enum, not the string \"C\": it is not a str, it "
                    "does not compare equal to \"C\" and its .value is the sentence; the question asks for the "
                    "letter as a string",
         "where": ["q7"]},
    ),
    "q7_f_prefix_forgotten_leaves_the_placeholder": (
        {"q_trap_answer": (
            "_holds = {\"A\": False, \"B\": False, \"C\": True, \"D\": False}   # which statements are true\n"
            "_letter = [k for k, ok in _holds.items() if ok][0]\n"
            "q_trap_answer = \"{_letter}\"          # meant f\"{_letter}\"\n"
        )},
        {"mistake": "without the f prefix the braces are not filled in: the answer is the literal text "
                    "\"{_letter}\", not \"C\" (the letter picked was right, it never reached the string)",
         "where": ["q7"]},
    ),
    "q7_letter_in_braces_is_a_set_of_options": (
        {"q_trap_answer": (
            "q_trap_answer = {\"C\"}      # the options that are true\n"
        )},
        {"mistake": "{\"C\"} is a set holding the letter, not the string \"C\" the question asks for",
         "where": ["q7"]},
    ),
    "q8_entries_counted_on_a_half_precision_probe": (
        {"attn_entries": (
            "_probe = torch.ones(1024, 1024, dtype=torch.float16)     # half the memory of float32\n"
            "attn_entries = _probe.sum().item()\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the count is a float16 sum: 1024 * 1024 = 1048576 is far above float16's largest finite "
                    "value 65504, so the sum overflows and attn_entries is inf (and a float, not an int); count "
                    "with numel() or 1024 ** 2",
         "where": ["q8"]},
    ),
}
