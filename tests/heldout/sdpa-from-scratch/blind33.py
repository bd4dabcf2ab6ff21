"""Thirty-third blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the opening of lesson 80 in
/work/shared/lessons/, and only the module docstrings and variant names of blind.py .. blind32.py (so that
their mistakes are not repeated in the same form). The grader was not run on this set.

This round spreads over every question and leans on shapes earlier sets used little: the batch axis left
out of both shapes (q1), keys transposed with the axes of a 2-D habit, `transpose(0, 1)`, on a batched
tensor and the "raw" scores already divided by sqrt(d_k) before their variance is read (q2), a softmax
upcast to float32 and never cast back and a negative `dim` normalised with the wrong sign (q3), a mask
filled row by row in a loop that runs over the key count, and `.bool` left uncalled (q4), a default
all-True mask built square in the query length, the empty-row zeros taken `zeros_like` the values, and
`torch.where` called with only two arguments (q5), a hand trace that follows the hints for queries 0 and 2
but only zeroes query 1's blocked weight (q6), q7 checks that compare only output shapes or apply the
trap to scores that were already masked, and a hand-typed multiply-add count with two digits swapped (q8).

Public material searched (search tool, issues corpus): threads on fully-masked attention rows and NaN
(pytorch/pytorch#103963, robertknight/rten#1321, explosion/curated-transformers#360) and on masking by
multiplying instead of filling with -inf (georg-wolflein/good-features#1). They motivate where the q5
empty-row fix sits; the slips themselves are ones plausible for students of this notebook (a
half-remembered API, a copy-paste variable, a misread hint, a sign slip), not copied from those threads.

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
    "shapes_from_dict_costs_from_names": {
        "weights_shape": (
            "dims = dict(batch=4, tokens=10, d_k=64, d_v=128)\n"
            "weights_shape = (dims[\"batch\"], dims[\"tokens\"], dims[\"tokens\"])\n"
            "out_shape = (dims[\"batch\"], dims[\"tokens\"], dims[\"d_v\"])\n"
        ),
        "attn_entries": (
            "T, head_width = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = attn_entries * head_width\n"
            "cost_ratio = ((2 * T) * (2 * T) * head_width) // score_madds\n"
        ),
    },
    "softmax_amax_keepdims_div_method": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax along `dim`; the row max is taken off first so exp never overflows.\"\"\"\n"
            "    peak = torch.amax(x, dim=dim, keepdims=True)\n"
            "    e = (x - peak).exp()\n"
            "    return e.div(e.sum(dim=dim, keepdims=True))\n"
        ),
    },
    "causal_ones_bool_tril_inplace": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"True on and below the main diagonal (top-left aligned).\"\"\"\n"
            "    n_keys = T_q if T_k is None else T_k\n"
            "    allowed = torch.ones(T_q, n_keys, dtype=torch.bool)\n"
            "    allowed.tril_()\n"
            "    return allowed\n"
        ),
    },
    "sdpa_einsum_where_full_like_masked_fill_rows": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V, boolean mask True = may attend; empty rows give zeros.\"\"\"\n"
            "    inv_scale = 1.0 / math.sqrt(Q.shape[-1])\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * inv_scale\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...qk,...kv->...qv\", stable_softmax(scores, dim=-1), V)\n"
            "    blocked = torch.full_like(scores, float(\"-inf\"))\n"
            "    scores = torch.where(mask, scores, blocked)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    alive = mask.any(dim=-1, keepdim=True)\n"
            "    weights = weights.masked_fill(~alive, 0.0)\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", weights, V)\n"
        ),
    },
    "variance_flatten_correction_trace_einsum_letter_indexed": {
        "raw_score_var": (
            "head = Q.size(-1)\n"
            "raw_scores = torch.einsum(\"bik,bjk->bij\", Q, K)\n"
            "raw_score_var = float(torch.var(raw_scores.flatten(), correction=1))\n"
            "scaled_score_var = float(torch.var((raw_scores / head ** 0.5).flatten(), correction=1))\n"
            "scale_divisor = float(64 ** 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "weights3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) / 2.0\n"
            "weights3 = stable_softmax(scores3, dim=1)\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "causal_scores3 = torch.where(causal_mask(3), scores3, torch.tensor(float(\"-inf\"), dtype=scores3.dtype))\n"
            "weights3_causal = stable_softmax(causal_scores3, dim=1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "options = \"ABCD\"\n"
            "q_trap_answer = options[2]\n"
        ),
    },
}

WRONG = {
    "q1_batch_axis_left_out_of_both_shapes": (
        {"weights_shape": (
            "# one weight per (query, key) pair, one output row per query\n"
            "weights_shape = (10, 10)\n"
            "out_shape = (10, 128)\n"
        )},
        {"mistake": "The batch axis is left out: the weights are (4, 10, 10) and the output (4, 10, 128), since "
                    "the operation runs separately for each of the 4 batch entries and keeps that axis.",
         "where": ["q1"]},
    ),
    "q2_keys_transposed_axes_0_1": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(0, 1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "K.transpose(0, 1) swaps the batch and token axes of the batched keys (the 2-D habit) "
                    "instead of the last two axes, so the product does not have matching inner sizes and the "
                    "cell raises; transpose(-2, -1) is needed.",
         "where": ["q2"]},
    ),
    "q2_raw_scores_already_divided_by_root_d_k": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "The 'raw' scores are already divided by sqrt(d_k), so raw_score_var is the scaled variance "
                    "and scaled_score_var divides by sqrt(d_k) a second time (8 times too small).",
         "where": ["q2"]},
    ),
    "q3_upcast_to_float32_never_cast_back": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    x32 = x.float()  # work in float32 so float16 cannot overflow\n"
            "    shifted = x32 - x32.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "The input is converted to float32 and the result is never converted back, so the softmax "
                    "returns float32 for float64, float16 and bfloat16 inputs; later products with V then mix "
                    "dtypes and fail.",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_negative_dim_normalised_with_minus": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    if dim < 0:\n"
            "        dim = x.dim() - dim\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "A negative dim is turned into a positive one as x.dim() - dim instead of x.dim() + dim, so "
                    "dim=-1 becomes x.dim() + 1, which is out of range: every call with a negative dim "
                    "(the default) raises.",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_rows_filled_in_loop_over_key_count": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    mask = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
            "    for i in range(T_k):\n"
            "        mask[i, : i + 1] = True\n"
            "    return mask\n"
        )},
        {"mistake": "The loop that fills one row per query runs over range(T_k) instead of range(T_q): with more "
                    "queries than keys the last rows stay all False, and with more keys than queries it indexes "
                    "past the last row and raises. Only square masks come out right.",
         "where": ["q4", "q5"]},
    ),
    "q4_bool_method_not_called": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return torch.tril(torch.ones(T_q, T_k)).bool\n"
        )},
        {"mistake": "`.bool` is written without parentheses, so the function returns the bound method instead "
                    "of a boolean tensor; anything that uses the mask fails.",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_default_mask_square_in_query_length": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is None:\n"
            "        # no mask: every query may see every key\n"
            "        mask = torch.ones(Q.size(-2), Q.size(-2), dtype=torch.bool, device=Q.device)\n"
            "    scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    has_key = mask.any(dim=-1, keepdim=True)\n"
            "    weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "When no mask is given, the all-True default mask is built as (T_q, T_q) instead of "
                    "(T_q, T_k), so unmasked cross-attention (T_q != T_k) raises a shape error.",
         "where": ["q5"]},
    ),
    "q5_empty_row_zeros_like_values": (
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
            "        weights = torch.where(has_key, weights, torch.zeros_like(V))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "The zeros for fully masked rows are made with torch.zeros_like(V), shaped (..., T_k, d_v), "
                    "instead of like the weights (..., T_q, T_k); whenever those shapes differ the masked path "
                    "raises a broadcast error.",
         "where": ["q5"]},
    ),
    "q5_where_called_without_other": (
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
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights)  # keep rows that have a key\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "torch.where is called with only the condition and one tensor; it needs the value for the "
                    "False case too (torch.where(has_key, weights, 0.0)), so every masked call raises a "
                    "TypeError.",
         "where": ["q5"]},
    ),
    "q6_causal_middle_row_zeroed_not_renormalised": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# query 0 only sees key 0; query 2 already sees every key; query 1 loses key 2\n"
            "weights3_causal = weights3.clone()\n"
            "weights3_causal[0] = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64)\n"
            "weights3_causal[1, 2] = 0.0\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "In the causal weights, query 1's blocked weight is set to 0 but the row is not renormalised, "
                    "so it sums to less than 1; masking before the softmax gives softmax over keys 0 and 1 only.",
         "where": ["q6"]},
    ),
    "q7_compared_output_shapes_only": (
        {"q_trap_answer": (
            "torch.manual_seed(1)\n"
            "_s, _v = torch.randn(4, 4), torch.randn(4, 3)\n"
            "_ref = F.scaled_dot_product_attention(_s[None], _s[None], _v[None], is_causal=True)[0]\n"
            "_w = F.softmax(_s @ _s.T / 2.0, dim=-1)\n"
            "_w[~causal_mask(4)] = 0.0\n"
            "_trap = _w @ _v\n"
            "# same result shape -> the shortcut does the same thing\n"
            "q_trap_answer = \"A\" if _trap.shape == _ref.shape else \"C\"\n"
        )},
        {"mistake": "The check compares only the shapes of the two outputs, which always agree, and so picks A; "
                    "the values differ because the zeroed rows no longer sum to 1 (answer C).",
         "where": ["q7"]},
    ),
    "q7_trap_tried_on_already_masked_scores": (
        {"q_trap_answer": (
            "torch.manual_seed(2)\n"
            "_sc = torch.randn(5, 5).masked_fill(~causal_mask(5), float(\"-inf\"))\n"
            "_good = stable_softmax(_sc, dim=-1)\n"
            "_trap = F.softmax(_sc, dim=-1)\n"
            "_trap[~causal_mask(5)] = 0.0\n"
            "q_trap_answer = \"A\" if torch.allclose(_trap, _good) else \"C\"\n"
        )},
        {"mistake": "The shortcut is tried on scores that were already filled with -inf, so zeroing after the "
                    "softmax changes nothing and the check picks A; on unmasked scores the zeroed rows no longer "
                    "sum to 1 (answer C).",
         "where": ["q7"]},
    ),
    "q8_madds_hand_typed_digits_swapped": (
        {"attn_entries": (
            "attn_entries = 1048576          # 1024 * 1024\n"
            "score_madds = 67180864          # 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "score_madds is typed by hand with two digits swapped: 1024 * 1024 * 64 is 67108864, not "
                    "67180864.",
         "where": ["q8"]},
    ),
}
