"""Seventy-fifth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind73.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: SLIPS OF THE HAND IN OTHERWISE RIGHT CODE. Each wrong cell is the full-marks cell (or an
ordinary student spelling of it) with one mistyped token: the out line copied from the weights line with
`k_shape` not changed to `v_shape` (q1); `** 1/2` for `** 0.5`, which by precedence divides by d_k and then by 2,
and the raw scores' line typed `Q @ Q.transpose(...)` (q2); the max taken with the default `dim=-1` left in
instead of `dim=dim`, and `.indices` typed for `.values` (q3); a `return` indented into the row loop, and a
triangle of ones compared `> 1` for `> 0` (q4); the local spelled `dk` so the scale reads the notebook's global
`d_k = 8`, the empty-row test `any(dim=-2)` for `any(dim=-1)`, and a
paren closed so that the scale divides the softmax's output instead of its input (q5); the trace scaled by
`math.sqrt(3)` (the token count) for `math.sqrt(4)`, and `weights3.T @ V3` for `weights3 @ V3` (q6); the letter
picked from an options list with a one-based index (q7); a cost helper called with its two arguments swapped
(q8). The correct variants are ordinary student code with odd but right spellings: names reused in place,
redundant parentheses, `** .5` bound correctly, locals that shadow notebook globals on purpose.

Public material used (search tool):
- q2 (the keys' line typed with Q): stevezheng23/reading_comprehension_tf#284 and
  stevezheng23/sequence_labeling_tf#81 ("fix query/key/value project matrix reuse issue"), a one-name
  copy-paste slip in attention code fixed after the fact.
- The other kinds (precedence of `**` against `/`, `.indices` for `.values`, a `return` indented into a loop,
  a local spelled differently from the name used so a notebook global is read, an index typed one off, a
  paren closed early, helper arguments swapped, one-based indexing) are the slips this round's brief lists.

How the variants were checked: a throwaway script under /tmp/w75-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's
formulas: the softmax on 1-D to 4-D inputs and every positive and negative dim, large float16 logits, -inf
entries; the mask for square and rectangular sizes; the attention on 3-D and 4-D shapes, T_q != T_k,
d_v != d_k, 2-D and per-batch masks, fully masked rows, float64 / float32 / float16 / bfloat16, gradients; the
answers of q1, q2, q6, q7, q8 against their formulas. The correct variants match everywhere; each wrong one
differs where its "where" says and nowhere else, and no notebook cell of any variant raises.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points.
"""

_SOFTMAX_HEAD = (
    "def stable_softmax(x, dim=-1):\n"
    "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
)

_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)

_SDPA_TAIL_OK = (
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "        has_key = mask.any(dim=-1, keepdim=True)\n"
    "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
    "    else:\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "    return torch.matmul(weights, V)\n"
)

CORRECT = {
    "names_reused_in_place_softmax_ones_tril_mask_and_shadowing_locals": {
        "stable_softmax": (
            _SOFTMAX_HEAD
            + "    x = x - x.amax(dim, keepdim=True)\n"
            "    x = x.exp()\n"
            "    return x / (x.sum(dim, True))\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    mask = torch.ones(T_q, T_k, dtype=torch.bool)\n"
            "    mask = mask.tril()\n"
            "    return mask\n"
        ),
        "scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = K.shape[-1]                 # same as the queries' width\n"
            "    scores = (Q @ (K.transpose(-1, -2))) / (math.sqrt(d_k))\n"
            "    if mask is not None:\n"
            "        mask = mask.to(torch.bool)\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)\n"
            "    out = weights @ V\n"
            "    return out\n"
        ),
    },
    "power_half_bound_right_and_answers_from_named_shapes": {
        "weights_shape": (
            "q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
            "weights_shape = q_shape[:-1] + k_shape[-2:-1]\n"
            "out_shape = q_shape[:-1] + v_shape[-1:]\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / d_k ** .5).var().item()\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "scores3": (
            "scores3 = (Q3 @ K3.T) / 4 ** 0.5\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3, 3), float(\"-inf\")), dim=1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "attn_entries": (
            "T, d_k_head = 1024, 64\n"
            "attn_entries = T ** 2\n"
            "score_madds = (T ** 2) * d_k_head\n"
            "cost_ratio = ((2 * T) ** 2 * d_k_head) // (T ** 2 * d_k_head)\n"
        ),
    },
    "where_fill_with_python_inf_and_a_madds_helper_called_in_order": {
        "stable_softmax": (
            _SOFTMAX_HEAD
            + "    m = torch.max(x, dim, keepdim=True)[0]\n"
            "    e = torch.exp(x - m)\n"
            "    return e / torch.sum(e, dim=dim, keepdim=True)\n"
        ),
        "scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    scale = 1.0 / math.sqrt(Q.size(-1))\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    scores = torch.where(mask, scores, torch.full_like(scores, float(\"-inf\")))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V)\n"
        ),
        "attn_entries": (
            "def madds(T, d):\n"
            "    return T * T * d\n"
            "\n"
            "attn_entries = 1024 * 1024\n"
            "score_madds = madds(1024, 64)\n"
            "cost_ratio = madds(2048, 64) // madds(1024, 64)\n"
        ),
        "q_trap_answer": (
            "options = [\"A\", \"B\", \"C\", \"D\"]\n"
            "q_trap_answer = options[2]      # C: the rows no longer sum to 1\n"
        ),
    },
    "mask_from_ge_of_explicit_columns_and_mT_keys": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    i = torch.arange(T_q)[:, None]\n"
            "    j = torch.arange(T_k)[None, :]\n"
            "    return i >= j\n"
        ),
        "scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.size(-1)\n"
            "    scores = Q @ K.mT / math.sqrt(d_k)\n"
            + _SDPA_TAIL_OK
        ),
    },
}

WRONG = {
    "q1_out_line_copied_from_the_weights_line_keeps_k_shape_for_v_shape": (
        {"weights_shape": (
            "q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
            "weights_shape = q_shape[:-1] + (k_shape[-2],)\n"
            "out_shape = q_shape[:-1] + (k_shape[-1],)\n"
        )},
        {"mistake": "the out_shape line was copied from the weights line and k_shape was not changed to v_shape, "
                    "so the output width is d_k = 64: out_shape is (4, 10, 64) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_half_power_typed_as_star_star_one_slash_two": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / d_k ** 1/2).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the square root is typed `d_k ** 1/2`, which Python reads as (d_k ** 1) / 2, so the scores "
                    "are divided by 8 and then by 2 (by 16, not by sqrt(8)) and scaled_score_var is the raw "
                    "variance / 256 instead of / 8",
         "where": ["q2"]},
    ),
    "q2_raw_scores_line_typed_q_at_q_not_q_at_k": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ Q.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the raw scores are typed Q @ Q.transpose(-2, -1) (Q for K), so both variances are those of "
                    "the queries' Gram matrix, whose diagonal holds the squared norms, not those of Q K^T",
         "where": ["q2"]},
    ),
    "q3_max_call_keeps_dim_minus_one_instead_of_dim": (
        {"stable_softmax": (
            _SOFTMAX_HEAD
            + "    shifted = x - x.max(dim=-1, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the max is taken with dim=-1 typed in place of dim=dim, so for any other dim the shift "
                    "is not constant along the softmax axis and the weights are wrong (right only for the last "
                    "axis, which is why the attention cells still work)",
         "where": ["q3"]},
    ),
    "q3_shift_by_max_indices_typed_for_values": (
        {"stable_softmax": (
            _SOFTMAX_HEAD
            + "    shifted = x - x.max(dim=dim, keepdim=True).indices\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "`.indices` is typed for `.values`, so the logits are shifted by the position of the "
                    "max, not by the max: the result is right for small logits but float16 logits in the "
                    "thousands overflow to inf and give NaN (also in the attention's float16 large-score case)",
         "where": ["q3", "q5"]},
    ),
    "q4_return_indented_into_the_row_loop": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    mask = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
            "    for i in range(T_q):\n"
            "        mask[i, :i + 1] = True\n"
            "        return mask\n"
        )},
        {"mistake": "the `return mask` is indented one level too far, into the row loop, so the function returns "
                    "after filling row 0: only query 0 sees key 0 and every other row is all False (the right "
                    "shape, wrong content); the causal trace of q6 then has fully blocked rows 1 and 2",
         "where": ["q4", "q6"]},
    ),
    "q4_tril_of_ones_compared_greater_than_one_not_zero": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return torch.ones(T_q, T_k).tril() > 1\n"
        )},
        {"mistake": "the float triangle of ones is turned into booleans with `> 1` typed for `> 0`, so no entry "
                    "passes and the mask is all False (every key blocked) instead of the lower triangle; the "
                    "causal trace of q6 then has only fully blocked rows",
         "where": ["q4", "q6"]},
    ),
    "q5_local_spelled_dk_so_the_scale_reads_the_notebook_global_d_k": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    dk = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            + _SDPA_TAIL_OK
        )},
        {"mistake": "the width is stored as `dk` but the scale is typed with `d_k`, which silently reads the "
                    "notebook global d_k = 8 from question 2, so every score is divided by sqrt(8) whatever the "
                    "real d_k (right only when d_k happens to be 8)",
         "where": ["q5"]},
    ),
    "q5_empty_row_test_any_over_dim_minus_two": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-2, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the test for queries with no visible key reduces over dim=-2 (the queries) instead of "
                    "dim=-1 (the keys), so it flags keys no query sees; a fully masked query row keeps its "
                    "0/0 = NaN weights and gets a NaN output row instead of zeros",
         "where": ["q5"]},
    ),
    "q5_paren_closed_so_the_scale_divides_the_softmax_output": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1))\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the paren of stable_softmax( is closed before `/ math.sqrt(d_k)`, so the scores go in "
                    "unscaled and the weights come out divided by sqrt(d_k): the rows sum to 1/sqrt(d_k) and "
                    "the softmax is too sharp",
         "where": ["q5"]},
    ),
    "q6_trace_scale_typed_with_the_token_count_three": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(3)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the scale is typed math.sqrt(3) (T = 3 tokens) for math.sqrt(4) (d_k = 4), so the scores "
                    "are divided by 1.73 instead of 2 and weights3, out3 and weights3_causal are all too sharp",
         "where": ["q6"]},
    ),
    "q6_out3_typed_with_the_transposed_weights": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3.T @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "`.T` is carried over from the K3.T of the line above onto weights3, so out3 mixes the "
                    "values with the columns of the weights (which do not sum to 1) instead of their rows; "
                    "weights3 and weights3_causal are right",
         "where": ["q6"]},
    ),
    "q7_letter_picked_from_options_with_one_based_index": (
        {"q_trap_answer": (
            "options = [\"A\", \"B\", \"C\", \"D\"]\n"
            "q_trap_answer = options[3]      # the third option: the rows no longer sum to 1\n"
        )},
        {"mistake": "the student means the third option (C, the rows no longer sum to 1) but indexes the list "
                    "one-based with options[3], which is \"D\"",
         "where": ["q7"]},
    ),
    "q8_madds_helper_called_with_t_and_d_k_swapped_for_the_ratio": (
        {"attn_entries": (
            "def madds(T, d):\n"
            "    return T * T * d\n"
            "\n"
            "attn_entries = 1024 * 1024\n"
            "score_madds = madds(1024, 64)\n"
            "cost_ratio = madds(64, 2048) // madds(64, 1024)\n"
        )},
        {"mistake": "the helper is called as madds(64, 2048) // madds(64, 1024) with T and d_k swapped, so the "
                    "doubled length is the linear factor and cost_ratio is 2 instead of 4; attn_entries and "
                    "score_madds are right",
         "where": ["q8"]},
    ),
}
