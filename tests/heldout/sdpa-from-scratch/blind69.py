"""Sixty-ninth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind68.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: VERBOSE BEGINNER CODE. Every cell is written the long way a beginner writes it: named
intermediates, small helpers, loops where the statement does not ask for vectorised code (the attention itself
stays vectorised, as q5 demands), Python lists, explicit shape bookkeeping and asserts. Each wrong variant
buries one slip in that code: a shape-copy loop that starts at axis 1 (q1); a squared-deviation accumulator not
reset before the scaled scores, and an entry count that leaves the key axis out (q2); an assert left from
testing on (rows, classes) matrices, and a denominator started at 1 "for the max entry" before summing every
entry (q3); a row loop `range(T_q - 1)` that leaves the last query blind, and a nested loop `j < i` that drops
the diagonal (q4); the softmax given the scaled-scores name instead of the masked one, and a debugging assert
`Q.shape == K.shape` that rejects cross-attention (q5); a hand dot-product loop over `range(n_tokens)` instead
of the feature count, and a causal row-sum accumulator not reset between queries (q6); a row-sum check that
loops over the reference weights instead of the shortcut's and so answers A (q7); a global madds counter not
reset between calls (cost ratio 5) and an entry counter started at 1 like a product (q8). The correct variants
are verbose too: a softmax that normalises dim by hand and moves the axis to the end and back, a mask from
repeated index grids with an assert, an attention split into helpers with the empty rows found from a count of
visible keys, the variances by a hand-written unbiased estimator in float64, and the trace, shapes and costs
in plain Python lists and helpers.

Public material used (search tool):
- q1 / q5 (shape bookkeeping that only covers the case tried): harvard-edge/cs249r_book#1875 (a mask reshape
  unpacked `batch, seq_len, _ = mask.shape` and reused seq_q for seq_k: "For self-attention where seq_q ==
  seq_k, this accidentally works"); patrick-kidger/equinox#38 (lucidrains on a length check: "you will only be
  allowing for self-attention, and not cross attention"); facebookresearch/fairseq#5075 (an assertion compares
  the key padding mask with the query length and "fails ... in cross-attention").
- q2 / q6 / q8 (hand loops and accumulators): the Stack Overflow / intellipaat "Matrix Multiplication in
  Python" thread (a pure-Python triple loop whose ranges were taken from the wrong matrix sizes); Stack
  Overflow 5885978 and pd4cs.org/?p=1065 (a module-level counter changed through `global` keeps its value
  between calls: "students may forget what is global ... side effects causing errors later").
- q3 (denominator plus one): markusz.dev/softermax on "Attention is Off By One" (a softmax with 1 added to the
  denominator no longer sums to 1); the 2-D-only softmax of CS231n-style (N, C) class-score code, as in the
  earlier sets' notes.
- q4 (loop bounds): the nested-loop masks of beginner tutorials, with the usual off-by-one of `range`.
- q7 (the check that looks at the wrong tensor): the lookbook.tail283e6.ts.net softmax page ("the percentages in
  any given row ... sum to 100%"), which is the property the check is meant to test on the shortcut.

How the variants were checked: a throwaway script under /tmp/w69-sdpa-from-scratch/ built each notebook with
this set's cells, ran every code cell but otter's (top to bottom, recording which cell raised), and compared
the answers and the functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas on
3-D and 4-D shapes, T_q != T_k, d_v != d_k, 2-D and broadcast masks, fully masked rows, large float16 logits,
float64 / float32 / float16 / bfloat16 and gradients. The correct variants match everywhere; each wrong one
differs where its "where" says.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a broken
`stable_softmax` may also cost q5 and q6; a broken `causal_mask` q5 and q6).
"""

_SOFTMAX_HEAD = (
    "def stable_softmax(x, dim=-1):\n"
    "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
)

_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
)

_Q6_TAIL = (
    "weights3 = stable_softmax(scores3, dim=-1)\n"
    "out3 = weights3 @ V3\n"
    "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
    "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
)

CORRECT = {
    "softmax_dim_normalised_by_hand_axis_moved_to_the_end_and_back_with_shape_assert": {
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    n_dims = x.dim()\n"
            "    if dim < 0:\n"
            "        axis = dim + n_dims          # e.g. -1 -> the last axis\n"
            "    else:\n"
            "        axis = dim\n"
            "    moved = torch.movedim(x, axis, -1)                   # the softmax axis is now the last one\n"
            "    row_max = torch.amax(moved, dim=-1, keepdim=True)     # (..., 1)\n"
            "    shifted = moved - row_max                             # every entry <= 0\n"
            "    exponentials = torch.exp(shifted)                     # in (0, 1], the max gives exactly 1\n"
            "    row_total = torch.sum(exponentials, dim=-1, keepdim=True)\n"
            "    probabilities = exponentials / row_total\n"
            "    result = torch.movedim(probabilities, -1, axis)      # put the axis back where it was\n"
            "    assert result.shape == x.shape, (result.shape, x.shape)\n"
            "    return result\n"
        ),
    },
    "causal_mask_from_repeated_index_grids_with_assert": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    query_index = torch.arange(T_q).reshape(T_q, 1).repeat(1, T_k)   # row number in every column\n"
            "    key_index = torch.arange(T_k).reshape(1, T_k).repeat(T_q, 1)     # column number in every row\n"
            "    allowed = key_index <= query_index\n"
            "    assert allowed.shape == (T_q, T_k) and allowed.dtype == torch.bool\n"
            "    return allowed\n"
        ),
    },
    "sdpa_split_into_helpers_empty_rows_from_a_count_of_visible_keys": {
        "scaled_dot_product_attention": (
            "def _attention_scores(Q, K):\n"
            "    d_k = Q.shape[-1]\n"
            "    keys_t = K.transpose(-2, -1)        # (..., d_k, T_k)\n"
            "    raw = torch.matmul(Q, keys_t)        # (..., T_q, T_k)\n"
            "    scale = 1.0 / math.sqrt(d_k)         # a Python float: no precision lost for float64\n"
            "    return raw * scale\n"
            "\n"
            "\n"
            "def _rows_with_a_visible_key(mask):\n"
            "    n_visible = mask.sum(dim=-1, keepdim=True)   # how many keys each query may see\n"
            "    return n_visible > 0\n"
            "\n"
            "\n" +
            _SDPA_HEAD +
            "    scores = _attention_scores(Q, K)\n"
            "    if mask is None:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    else:\n"
            "        blocked = torch.logical_not(mask)\n"
            "        masked_scores = scores.masked_fill(blocked, float(\"-inf\"))\n"
            "        weights = stable_softmax(masked_scores, dim=-1)\n"
            "        keep_row = _rows_with_a_visible_key(mask)\n"
            "        weights = weights.masked_fill(~keep_row, 0.0)     # fully masked queries: zeros, not NaN\n"
            "    output = torch.matmul(weights, V)\n"
            "    return output\n"
        ),
    },
    "q2_unbiased_variance_written_out_in_float64_helper": {
        "d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "\n"
            "\n"
            "def sample_variance(t):\n"
            "    values = t.detach().double().flatten()\n"
            "    n = values.numel()\n"
            "    mean = values.sum() / n\n"
            "    squared_deviations = (values - mean) ** 2\n"
            "    return (squared_deviations.sum() / (n - 1)).item()   # unbiased, like torch's default .var()\n"
            "\n"
            "\n"
            "raw_score_var = sample_variance(raw_scores)\n"
            "scaled_score_var = sample_variance(raw_scores / math.sqrt(d_k))\n"
            "scale_divisor = float(64 ** 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
    },
    "shapes_trace_answer_and_costs_in_plain_python_lists_and_helpers": {
        "weights_shape": (
            "batch, n_tokens, width_k, width_v = 4, 10, 64, 128\n"
            "weights_dims = [batch, n_tokens, n_tokens]      # one weight per (query, key) pair\n"
            "out_dims = [batch, n_tokens, width_v]           # one mixture of values per query\n"
            "weights_shape = tuple(int(n) for n in weights_dims)\n"
            "out_shape = tuple(int(n) for n in out_dims)\n"
            "print(weights_shape, out_shape)\n"
        ),
        "weights3": (
            "def dot(u, w):\n"
            "    total = 0.0\n"
            "    for a, b in zip(u, w):\n"
            "        total += a * b\n"
            "    return total\n"
            "\n"
            "\n"
            "def softmax_list(row):\n"
            "    biggest = max(row)\n"
            "    exps = [math.exp(v - biggest) for v in row]\n"
            "    total = sum(exps)\n"
            "    return [e / total for e in exps]\n"
            "\n"
            "\n"
            "q_rows, k_rows, v_rows = Q3.tolist(), K3.tolist(), V3.tolist()\n"
            "divisor = math.sqrt(len(q_rows[0]))      # sqrt(d_k) = 2\n"
            "score_rows = [[dot(q, k) / divisor for k in k_rows] for q in q_rows]\n"
            "scores3 = torch.tensor(score_rows, dtype=torch.float64)\n"
            "weights3 = [softmax_list(r) for r in score_rows]\n"
            "out3 = [[sum(weights3[i][j] * v_rows[j][c] for j in range(len(v_rows))) for c in range(len(v_rows[0]))]\n"
            "        for i in range(len(q_rows))]\n"
            "weights3_causal = []\n"
            "for i in range(len(q_rows)):\n"
            "    visible = softmax_list(score_rows[i][: i + 1])          # keys 0..i\n"
            "    weights3_causal.append(visible + [0.0] * (len(k_rows) - (i + 1)))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "options = \"ABCD\"\n"
            "q_trap_answer = options[2]      # C: the zeroed rows no longer sum to 1\n"
        ),
        "attn_entries": (
            "T8, d8 = 1024, 64\n"
            "\n"
            "\n"
            "def madds_for_scores(T, d):\n"
            "    n_pairs = T * T            # one dot product per (query, key) pair\n"
            "    per_pair = d               # d multiply-adds each\n"
            "    return n_pairs * per_pair\n"
            "\n"
            "\n"
            "attn_entries = T8 * T8\n"
            "score_madds = madds_for_scores(T8, d8)\n"
            "cost_ratio = madds_for_scores(2 * T8, d8) // madds_for_scores(T8, d8)\n"
        ),
    },
}

WRONG = {
    "q1_axis_copy_loop_starts_at_one_so_the_batch_axis_is_lost": (
        {"weights_shape": (
            "Q_shape = (4, 10, 64)\n"
            "K_shape = (4, 10, 64)\n"
            "V_shape = (4, 10, 128)\n"
            "weights_dims = []\n"
            "for axis in range(1, len(Q_shape) - 1):   # copy the axes of Q, leaving out its feature axis\n"
            "    weights_dims.append(Q_shape[axis])\n"
            "weights_dims.append(K_shape[-2])            # one column per key\n"
            "out_dims = weights_dims[:-1] + [V_shape[-1]]\n"
            "weights_shape = tuple(weights_dims)\n"
            "out_shape = tuple(out_dims)\n"
            "print(weights_shape, out_shape)\n"
        )},
        {"mistake": "the loop that copies the leading axes of Q starts at index 1 instead of 0, so the batch axis "
                    "is never copied: weights_shape is (10, 10) and out_shape (10, 128) instead of (4, 10, 10) "
                    "and (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_squared_deviation_accumulator_not_reset_before_the_scaled_scores": (
        {"d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "flat_raw = raw_scores.flatten().tolist()\n"
            "n = len(flat_raw)\n"
            "mean_raw = sum(flat_raw) / n\n"
            "total = 0.0\n"
            "for s in flat_raw:\n"
            "    total += (s - mean_raw) ** 2\n"
            "raw_score_var = total / (n - 1)\n"
            "\n"
            "flat_scaled = (raw_scores / math.sqrt(d_k)).flatten().tolist()\n"
            "mean_scaled = sum(flat_scaled) / n\n"
            "for s in flat_scaled:\n"
            "    total += (s - mean_scaled) ** 2\n"
            "scaled_score_var = total / (n - 1)\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the running sum of squared deviations is not set back to 0 before the scaled scores are "
                    "added, so scaled_score_var is the raw variance plus the scaled one (9/8 of the raw "
                    "variance, about 9, instead of about 1); raw_score_var and scale_divisor are right",
         "where": ["q2"]},
    ),
    "q2_entry_count_by_hand_leaves_the_key_axis_out": (
        {"d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "\n"
            "\n"
            "def variance_by_hand(scores):\n"
            "    n_batch, n_queries, n_keys = scores.shape\n"
            "    n_entries = n_batch * n_queries            # number of scores in the tensor\n"
            "    mean = scores.sum() / n_entries\n"
            "    squared_deviations = (scores - mean) ** 2\n"
            "    return (squared_deviations.sum() / (n_entries - 1)).item()\n"
            "\n"
            "\n"
            "raw_score_var = variance_by_hand(raw_scores)\n"
            "scaled_score_var = variance_by_hand(raw_scores / math.sqrt(d_k))\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the hand-written variance counts the entries as batch * queries and leaves the key axis "
                    "out (10 instead of 50), so both the mean and the divisor are wrong and both variances come "
                    "out several times too large; scale_divisor is right",
         "where": ["q2"]},
    ),
    "q3_assert_left_from_testing_on_two_d_class_scores_rejects_other_ranks": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    assert x.dim() == 2, \"expected a (rows, classes) matrix\"\n"
            "    row_max = x.max(dim=dim, keepdim=True).values\n"
            "    shifted = x - row_max\n"
            "    exps = torch.exp(shifted)\n"
            "    total = exps.sum(dim=dim, keepdim=True)\n"
            "    return exps / total\n"
        )},
        {"mistake": "an assert left from testing on 2-D (rows, classes) score matrices makes the softmax raise "
                    "an AssertionError on any input that is not 2-D (1-D, 3-D and 4-D logits, and so the 3-D and "
                    "4-D scores inside the attention); on 2-D input it is right",
         "where": ["q3", "q5"]},
    ),
    "q3_denominator_started_at_one_for_the_max_entry_then_summed_over_every_entry": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    row_max = x.max(dim=dim, keepdim=True).values\n"
            "    shifted = x - row_max\n"
            "    exps = torch.exp(shifted)\n"
            "    # the max entry contributes exp(0) = 1, so start the total from that\n"
            "    denominator = torch.ones_like(row_max)\n"
            "    denominator = denominator + exps.sum(dim=dim, keepdim=True)\n"
            "    return exps / denominator\n"
        )},
        {"mistake": "the denominator is started at 1 for the max entry and then the sum over all entries, the "
                    "max included, is added, so the max entry is counted twice: every slice sums to less than 1 "
                    "(a softmax with 1 added to its denominator)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_row_loop_range_t_q_minus_one_leaves_the_last_query_with_no_key": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    mask = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
            "    for i in range(T_q - 1):\n"
            "        mask[i, : i + 1] = True        # query i sees keys 0..i\n"
            "    return mask\n"
        )},
        {"mistake": "the loop over query rows runs over range(T_q - 1), so the last row is never filled in and "
                    "the last query may see no key at all (its whole row is False); the other rows are right",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_nested_loop_keeps_keys_strictly_before_the_query_and_drops_the_diagonal": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows = []\n"
            "    for i in range(T_q):\n"
            "        row = []\n"
            "        for j in range(T_k):\n"
            "            row.append(j < i)          # key j comes before query i\n"
            "        rows.append(row)\n"
            "    return torch.tensor(rows, dtype=torch.bool).reshape(T_q, T_k)\n"
        )},
        {"mistake": "the nested loop tests j < i instead of j <= i, so the diagonal is blocked: each query may "
                    "not see its own key and query 0 sees nothing (a strictly lower-triangular mask)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_softmax_given_the_scaled_scores_name_instead_of_the_masked_scores": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    K_t = K.transpose(-2, -1)                     # (..., d_k, T_k)\n"
            "    raw_scores = torch.matmul(Q, K_t)              # (..., T_q, T_k)\n"
            "    scaled_scores = raw_scores / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        masked_scores = scaled_scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scaled_scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scaled_scores, dim=-1)\n"
            "    output = torch.matmul(weights, V)\n"
            "    return output\n"
        )},
        {"mistake": "the masked scores are computed into masked_scores but the softmax is given scaled_scores, "
                    "so the mask is never applied: blocked keys keep their weight (only fully masked queries "
                    "still get zero rows, from the separate has_key step); without a mask it is right",
         "where": ["q5"]},
    ),
    "q5_debug_assert_that_queries_and_keys_have_the_same_shape_rejects_cross_attention": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    assert Q.shape == K.shape, \"queries and keys must have the same shape\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a sanity assert requires Q and K to have the same shape, which only holds for "
                    "self-attention: any call with T_q != T_k (cross-attention, which the statement allows) "
                    "raises an AssertionError; with T_q == T_k it is right",
         "where": ["q5"]},
    ),
    "q6_hand_dot_product_loop_runs_over_the_token_count_not_the_feature_count": (
        {"weights3": (
            "n_tokens, n_features = Q3.shape      # 3 tokens, 4 features\n"
            "scores3 = torch.zeros(n_tokens, n_tokens, dtype=torch.float64)\n"
            "for i in range(n_tokens):\n"
            "    for j in range(n_tokens):\n"
            "        acc = 0.0\n"
            "        for f in range(n_tokens):\n"
            "            acc += Q3[i, f].item() * K3[j, f].item()\n"
            "        scores3[i, j] = acc / math.sqrt(4)\n" + _Q6_TAIL
        )},
        {"mistake": "the innermost loop of the hand-written dot products runs over range(n_tokens) = 3 instead of "
                    "the 4 features, so the last feature is left out of every score (the scores of queries 1 "
                    "and 2 against key 0 lose 1) and weights3, out3 and weights3_causal are all off",
         "where": ["q6"]},
    ),
    "q6_causal_row_sum_accumulator_not_reset_between_queries": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "causal_rows = []\n"
            "running_total = 0.0\n"
            "for i in range(3):\n"
            "    exps = [math.exp(scores3[i, j].item()) for j in range(i + 1)]   # keys 0..i only\n"
            "    for e in exps:\n"
            "        running_total += e\n"
            "    row = [e / running_total for e in exps] + [0.0] * (2 - i)\n"
            "    causal_rows.append(row)\n"
            "weights3_causal = torch.tensor(causal_rows, dtype=torch.float64)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the sum of exponentials for the causal rows is kept in one running total that is never set "
                    "back to 0 for the next query, so row 0 is right but rows 1 and 2 are divided by the sums of "
                    "the earlier rows too and no longer add up to 1; weights3 and out3 are right",
         "where": ["q6"]},
    ),
    "q7_row_sum_check_loops_over_the_reference_weights_not_the_shortcut_answers_a": (
        {"q_trap_answer": (
            "torch.manual_seed(1)\n"
            "T = 4\n"
            "scores_try = torch.randn(T, T)\n"
            "reference = F.softmax(scores_try.masked_fill(~causal_mask(T), float(\"-inf\")), dim=-1)\n"
            "shortcut = F.softmax(scores_try, dim=-1)\n"
            "shortcut[~causal_mask(T)] = 0.0\n"
            "rows_ok = 0\n"
            "for i in range(T):\n"
            "    row_total = reference[i].sum().item()\n"
            "    if abs(row_total - 1.0) < 1e-6:\n"
            "        rows_ok += 1\n"
            "print(rows_ok, \"of\", T, \"rows still sum to 1\")\n"
            "q_trap_answer = \"A\" if rows_ok == T else \"C\"\n"
        )},
        {"mistake": "the loop meant to check that the shortcut's rows still sum to 1 sums the rows of the "
                    "reference weights instead, which always sum to 1, so every row passes and the answer is "
                    "set to A instead of C",
         "where": ["q7"]},
    ),
    "q8_madds_counter_is_a_global_not_reset_between_calls_ratio_five": (
        {"attn_entries": (
            "T8 = 1024\n"
            "d_k8 = 64\n"
            "attn_entries = T8 * T8\n"
            "total_madds = 0\n"
            "\n"
            "\n"
            "def count_score_madds(T, d):\n"
            "    global total_madds\n"
            "    for query in range(T):\n"
            "        total_madds += T * d          # one dot product of length d per key\n"
            "    return total_madds\n"
            "\n"
            "\n"
            "score_madds = count_score_madds(T8, d_k8)\n"
            "cost_ratio = count_score_madds(2 * T8, d_k8) // score_madds\n"
            "print(attn_entries, score_madds, cost_ratio)\n"
        )},
        {"mistake": "the multiply-add counter is a module-level global that is not set back to 0 between calls, "
                    "so the count for 2T also holds the count for T and cost_ratio comes out (1 + 4) = 5 "
                    "instead of 4; attn_entries and score_madds are right",
         "where": ["q8"]},
    ),
    "q8_entry_counter_started_at_one_like_a_product_accumulator": (
        {"attn_entries": (
            "T8 = 1024\n"
            "d_k8 = 64\n"
            "attn_entries = 1\n"
            "for query in range(T8):\n"
            "    for key in range(T8):\n"
            "        attn_entries += 1              # one weight per (query, key) pair\n"
            "score_madds = T8 * T8 * d_k8\n"
            "cost_ratio = (2 * T8) ** 2 // T8 ** 2\n"
            "print(attn_entries, score_madds, cost_ratio)\n"
        )},
        {"mistake": "the counter of attention-weight entries is started at 1 (as a product would be) instead of "
                    "0, so attn_entries is 1048577, one more than 1024 ** 2; score_madds and cost_ratio are "
                    "right",
         "where": ["q8"]},
    ),
}
