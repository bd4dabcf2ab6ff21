"""Sixty-fourth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind63.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: CODE THAT FITS THE NOTEBOOK'S OWN EXAMPLE. Each wrong variant runs cleanly top to bottom and
agrees with the notebook's demo (the (2, 5, 8) running example, the 4-D comparison cell with causal_mask(6, 9),
d_k = 16 and d_v = 24, float32 there and float64 in the 3-token trace), and quietly relies on something only
that example has: a value probe made with `randn_like` of the queries because the running example has
d_v = d_k (q1); the divisor for d_k = 64 scaled up linearly from the example's sqrt(8) (q2); a softmax that
moves `dim` to the end and flattens with `.view`, which only works while the moved axis was already last
(every call in the notebook uses dim=-1) (q3); the triangle built with a nanoGPT-style leading axis and then
`.squeeze()`d, which also drops a query or key axis of length 1 (q4); the scale typed as 0.25 because the
comparison cell's heads have d_k = 16; the empty-row flag read off the mask's diagonal (true of every causal
mask the notebook builds, since each query sees itself); the flag read from `mask[0]` as if every mask were
batched; the flag reduced over axis 1 (the key axis of the demo's 2-D mask only); the output rows of fully
masked queries replaced by `zeros_like(Q)` (right only while d_v = d_k) under a guard the demo never enters;
the -inf fill made with `torch.full(scores.shape, -inf)`, float32 like both of the notebook's own dtypes that
work with it; and the score einsum spelled for the demo's 4-D (batch, heads) layout (q5); the trace scaled by
the q2 cell's `scale_divisor` (8, the divisor for d_k = 64) left in the namespace (q6); the trap "checked" on
self-attention with the same tensor as queries and keys, whose self-scores swamp the future keys so that the
shortcut matches to rounding (q7); the growth factor taken from the causal triangle counts T(T+1)/2 and
floor-divided, 3 (3.998) rather than 4 (q8). The correct variants are the general forms of the same code: the
moved axis made contiguous before flattening, the leading axis removed by indexing rather than squeeze, an
ellipsis einsum with `new_zeros`, a `.mT` version with the empty rows cleared by `masked_fill`, and the scaled
variance derived from the raw one with the trace read off the student's own attention with float64 identity
values.

Public material used (search tool):
- q3 (view): the many "view size is not compatible with input tensor's size and stride ... Use .reshape(...)
  instead" threads (sergeywong/cp-vton#30, open-mmlab/mmpretrain#104, lukemelas/PyTorch-Pretrained-ViT#26,
  aimagelab/show-control-and-tell#23), each a `.view` that worked until its input came out of a transpose.
- q4 (squeeze): "for batch_size=1, squeeze() operation also squeezes the first dimension"
  (omertov/encoder4editing#100), galsang/BiDAF-pytorch#26, NVIDIA/tacotron2#303, and allenai/allennlp#3599
  ("LinearAttention fails to give correct results when matrix length=1 ... the dim of length will be
  squeezed"); nanoGPT's `torch.tril(torch.ones(...)).view(1, 1, T, T)` buffer for the leading axes.
- q5 (4-D einsum, literal sizes): Peter-obi/protein-structure-prediction-from-scratch Part-1/MHA.py
  (`torch.einsum('bhid,bhjd->bhij', q, k)` with BATCH_SIZE, SEQ_LENGTH, HEADS hard-coded module constants and
  `head_dim = EMBED_DIM // 8`), WhiteFox inductor sfdp patterns (`q @ k.transpose(-2, -1) / math.sqrt(...)`).
- q5 (float32 fill): microsoft/onnxscript#2445 ("op.Where generates fp32 output when the whole model is set to
  fp16", fixed by casting the -inf constant like the query), huggingface/transformers#47743 ("attention mask is
  hardcoded to float32"), pytorch/pytorch#21658 (bmm "Expected object of scalar type Float but got scalar type
  Half" after a float32 softmax).
- q5 (d_v = d_k, diagonal, mask[0]): the notebook's own running example (d_k = d_v = 8) and its causal masks,
  whose diagonal is always True; the notebook's statement that d_v need not equal d_k and that a mask is any
  boolean tensor that broadcasts to (..., T_q, T_k), a 2-D one included.
- q7: the notebook's trap; self-attention with tied queries and keys (x @ x.T) in tutorial toy examples.
- q8: the causal-triangle count T(T+1)/2 that appears in KV-cache / causal FLOP notes.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a broken
`stable_softmax` may also cost q5 and q6; a broken `causal_mask` q5 and q6).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository (torch on the CPU,
no GPU used): softmax against `torch.softmax` on 1-D to 4-D inputs along every positive and negative axis in
float64, float32, float16 and bfloat16 (dtype and shape kept), non-contiguous inputs, float16 logits in the
thousands, -inf entries, and gradients; masks against `torch.ones(T_q, T_k).tril().bool()` for square and
rectangular sizes (T_q above and below T_k, and T_q or T_k equal to 1), with and without T_k; attention against
`F.scaled_dot_product_attention` (in float64, fully masked rows set to zero) on 3-D and 4-D inputs with
T_q != T_k, d_v != d_k and d_k of 4, 8, 16 and 64, with no mask, a causal mask, a 2-D random mask with a fully
masked query, a 3-D (B, T_q, T_k) random mask and a (B, 1, T_k) padding mask, in all four dtypes, float16 inputs
with large scores, and gradients of Q, K and V against the reference's; the answers of q1, q2, q6, q7 and q8
against the values from the notebook's formulas. Each variant's notebook was run top to bottom (all code cells
but otter's); none raises there, and every wrong one prints the same demo comparison as full_marks (match =
True). The correct ones pass every check; each wrong one differs from the right answer on inputs the notebook
describes, and only in its "where". Caveats: the squeezed mask differs only when T_q or T_k is 1; the axis-1
empty-row flag only with a mask that has its own query axis and a fully masked query in a 3-D or per-head 4-D
mask; the `zeros_like(Q)` row clearing only when some query is fully masked and d_v != d_k; the `.view`
softmax only when `dim` is not the last axis; the float32 fill only for float16 and bfloat16 inputs with a mask.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_SOFTMAX_HEAD = (
    "def stable_softmax(x, dim=-1):\n"
    "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
)
_MASK_HEAD = (
    "def causal_mask(T_q, T_k=None):\n"
    "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
)
_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)
_SDPA_TAIL = (
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "        has_key = mask.any(dim=-1, keepdim=True)\n"
    "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
    "    else:\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "    return torch.matmul(weights, V)\n"
)
_SDPA_SCORES = (
    "    d_k = Q.size(-1)\n"
    "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
)


def _sdpa_with_flag(flag_line: str) -> str:
    return (
        _SDPA_HEAD + _SDPA_SCORES +
        "    if mask is not None:\n"
        "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
        "        weights = stable_softmax(scores, dim=-1)\n" +
        flag_line +
        "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
        "    else:\n"
        "        weights = stable_softmax(scores, dim=-1)\n"
        "    return torch.matmul(weights, V)\n"
    )


_Q2_PRINT = "print(raw_score_var, scaled_score_var, scale_divisor)\n"

CORRECT = {
    "softmax_axis_moved_last_made_contiguous_then_flattened_to_rows": {
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    moved = x.movedim(dim, -1).contiguous()      # a copy whose last axis really is `dim`\n"
            "    rows = moved.reshape(-1, moved.shape[-1])    # one row per softmax slice\n"
            "    rows = rows - rows.max(dim=1, keepdim=True).values\n"
            "    e = torch.exp(rows)\n"
            "    out = e / e.sum(dim=1, keepdim=True)\n"
            "    return out.reshape(moved.shape).movedim(-1, dim)\n"
        ),
    },
    "causal_mask_built_with_a_leading_axis_removed_by_indexing_not_squeeze": {
        "causal_mask": (
            _MASK_HEAD +
            "    T_k = T_q if T_k is None else T_k\n"
            "    tri = torch.ones(1, T_q, T_k, dtype=torch.bool).tril()   # tril works on the last two axes\n"
            "    return tri[0]                                            # keeps a length-1 query or key axis\n"
        ),
    },
    "sdpa_ellipsis_einsum_new_zeros_for_fully_masked_queries": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    scale = 1.0 / math.sqrt(K.shape[-1])\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * scale\n"
            "    if mask is None:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    else:\n"
            "        mask = mask.to(torch.bool)\n"
            "        weights = stable_softmax(scores.masked_fill(~mask, float(\"-inf\")), dim=-1)\n"
            "        alive = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(alive, weights, weights.new_zeros(()))\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", weights, V)\n"
        ),
    },
    "sdpa_mT_scores_empty_rows_cleared_with_masked_fill_on_the_weights": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    scores = (Q @ K.mT) * Q.shape[-1] ** -0.5\n"
            "    if mask is not None:\n"
            "        blocked = ~mask\n"
            "        scores = scores.masked_fill(blocked, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores)\n"
            "        weights = weights.masked_fill(blocked.all(dim=-1, keepdim=True), 0.0)\n"
            "    else:\n"
            "        weights = stable_softmax(scores)\n"
            "    return weights @ V\n"
        ),
    },
    "scaled_variance_from_the_raw_one_trace_read_off_own_attention_with_identity_values": {
        "d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "# var(s / c) = var(s) / c^2, and c^2 = d_k\n"
            "scaled_score_var = raw_score_var / d_k\n"
            "scale_divisor = 64 ** 0.5\n" + _Q2_PRINT
        ),
        "scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(Q3.shape[-1])\n"
            "eye3 = torch.eye(3, dtype=Q3.dtype)                    # identity values read the weights back\n"
            "weights3 = scaled_dot_product_attention(Q3, K3, eye3)\n"
            "out3 = scaled_dot_product_attention(Q3, K3, V3)\n"
            "weights3_causal = scaled_dot_product_attention(Q3, K3, eye3, mask=causal_mask(3))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
}

WRONG = {
    "q1_value_probe_made_with_randn_like_of_the_queries_so_d_v_becomes_d_k": (
        {"weights_shape": (
            "Qp = torch.randn(4, 10, 64)\n"
            "Kp = torch.randn(4, 10, 64)\n"
            "Vp = torch.randn_like(Qp)          # values like the queries, as in the running example\n"
            "weights_shape = tuple((Qp @ Kp.transpose(-2, -1)).shape)\n"
            "out_shape = tuple((Qp @ Kp.transpose(-2, -1) @ Vp).shape)\n"
        )},
        {"mistake": "the value probe is made with randn_like of the queries, so it has width d_k = 64 instead of "
                    "the question's d_v = 128 (the running example has d_v = d_k): out_shape is (4, 10, 64) "
                    "instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_divisor_for_d_k_64_scaled_up_linearly_from_the_examples_root_8": (
        {"d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "# the example (d_k = 8) divides by sqrt(8); a head 64 / 8 = 8 times wider gets an 8 times larger divisor\n"
            "scale_divisor = math.sqrt(d_k) * (64 / d_k)\n" + _Q2_PRINT
        )},
        {"mistake": "the divisor for d_k = 64 is scaled up in proportion from the example's sqrt(8) "
                    "(sqrt(8) * 64 / 8 = 22.63) instead of being the square root of 64, 8.0",
         "where": ["q2"]},
    ),
    "q3_axis_moved_last_then_flattened_with_view_fails_unless_dim_was_already_last": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    moved = x.transpose(dim, -1)\n"
            "    rows = moved.view(-1, moved.shape[-1])       # one row per softmax slice\n"
            "    rows = rows - rows.max(dim=1, keepdim=True).values\n"
            "    e = torch.exp(rows)\n"
            "    out = e / e.sum(dim=1, keepdim=True)\n"
            "    return out.view(moved.shape).transpose(dim, -1)\n"
        )},
        {"mistake": "the softmax axis is swapped to the end with transpose and then flattened with .view, which "
                    "needs a contiguous tensor: it works only when dim is already the last axis (every call in "
                    "the notebook uses dim=-1) and raises 'view size is not compatible with input tensor's size "
                    "and stride' for any other dim of a tensor with more than one row (or for a non-contiguous input)",
         "where": ["q3"]},
    ),
    "q4_triangle_built_with_a_leading_axis_then_squeezed_drops_a_length_one_axis": (
        {"causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    tri = torch.tril(torch.ones(1, T_q, T_k, dtype=torch.bool))   # (1, T_q, T_k), as nanoGPT's buffer\n"
            "    return tri.squeeze()\n"
        )},
        {"mistake": "the triangle is built with a leading batch axis and returned with .squeeze(), which also "
                    "removes the query axis when T_q = 1 or the key axis when T_k = 1: causal_mask(1, 5) has "
                    "shape (5,) instead of (1, 5) and causal_mask(4, 1) shape (4,) instead of (4, 1) (which then "
                    "broadcasts against the keys instead of the queries)",
         "where": ["q4", "q5"]},
    ),
    "q5_scale_typed_as_a_quarter_from_the_comparison_cells_d_k_16": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * 0.25      # 1 / sqrt(d_k), d_k = 16\n" +
            _SDPA_TAIL
        )},
        {"mistake": "the scale is the literal 0.25 = 1/sqrt(16), right only for the comparison cell's d_k = 16; "
                    "for any other head width the scores are scaled by the wrong factor instead of 1/sqrt(d_k)",
         "where": ["q5"]},
    ),
    "q5_empty_rows_detected_from_the_mask_diagonal_as_if_every_query_saw_itself": (
        {"scaled_dot_product_attention": _sdpa_with_flag(
            "        # a query with any key can see itself (the diagonal of every causal mask is True)\n"
            "        has_key = torch.diagonal(mask, dim1=-2, dim2=-1).unsqueeze(-1)\n"
        )},
        {"mistake": "a query is taken to have a visible key when it may attend to its own position (the mask's "
                    "diagonal), true of causal masks but not of padding or other masks: a query that cannot see "
                    "itself but sees other keys gets a zero output row, and a rectangular mask with T_q > T_k "
                    "has too short a diagonal to broadcast; the flag should be mask.any(dim=-1)",
         "where": ["q5"]},
    ),
    "q5_empty_row_flag_reduced_over_axis_1_the_key_axis_of_a_2d_mask_only": (
        {"scaled_dot_product_attention": _sdpa_with_flag(
            "        has_key = mask.any(dim=1, keepdim=True)\n"
        )},
        {"mistake": "the empty-row flag is reduced over axis 1, which is the key axis only for the demo's 2-D "
                    "(T_q, T_k) mask; for a 3-D (B, T_q, T_k) or a per-head 4-D mask it reduces over queries or "
                    "heads, so a fully masked query keeps its NaN row (or a row is cleared because of another "
                    "head) instead of getting zeros; the reduction must be over the last axis",
         "where": ["q5"]},
    ),
    "q5_empty_row_flag_read_from_mask_index_0_as_if_every_mask_had_a_batch_axis": (
        {"scaled_dot_product_attention": _sdpa_with_flag(
            "        has_key = mask[0].any(dim=-1, keepdim=True)     # the mask of the first sequence\n"
        )},
        {"mistake": "the empty-row flag is computed from mask[0], as if every mask had a leading batch axis: for "
                    "a 2-D (T_q, T_k) mask mask[0] is the first query's row, so the flag only says whether query 0 "
                    "sees a key and a fully masked later query keeps its NaN row; for a batched mask the first "
                    "sequence's flags are applied to every sequence; the flag should be mask.any(dim=-1, "
                    "keepdim=True) on the whole mask",
         "where": ["q5"]},
    ),
    "q5_fully_masked_output_rows_replaced_by_zeros_like_the_queries_assumes_d_v_equals_d_k": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    out = torch.matmul(weights, V)\n"
            "    if mask is not None:\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        if not bool(has_key.all()):                # some query sees no key at all\n"
            "            out = torch.where(has_key, out, torch.zeros_like(Q))\n"
            "    return out\n"
        )},
        {"mistake": "the output rows of fully masked queries are replaced by torch.zeros_like(Q), which has the "
                    "queries' width d_k, not the output's d_v: it only works when d_v = d_k as in the running "
                    "example; with d_v != d_k and a fully masked query it raises a broadcast error (the demo has "
                    "no fully masked query, so the branch never ran there); zeros_like(out) was meant",
         "where": ["q5"]},
    ),
    "q5_blocked_scores_taken_from_a_torch_full_minus_inf_tensor_of_the_default_float32": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        minus_inf = torch.full(scores.shape, float(\"-inf\"))     # one -inf per score\n"
            "        scores = torch.where(mask, scores, minus_inf)\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the -inf fill is a tensor made with torch.full(scores.shape, -inf) without dtype (or device), "
                    "so it is float32: torch.where promotes float16 and bfloat16 scores to float32 and the final "
                    "product of float32 weights with the half-precision V raises a dtype error (float32 and "
                    "float64, the notebook's own dtypes, happen to work); the fill must follow the scores' dtype "
                    "and device (masked_fill with a Python float, or full_like)",
         "where": ["q5"]},
    ),
    "q5_scores_einsum_spelled_for_the_demos_four_d_batch_heads_layout": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.einsum(\"bhqd,bhkd->bhqk\", Q, K) / math.sqrt(d_k)\n" +
            _SDPA_TAIL
        )},
        {"mistake": "the score einsum is written for the demo's 4-D (batch, heads, T, d_k) inputs, so 3-D (and "
                    "any other rank) inputs raise an einsum error instead of working over any number of leading "
                    "axes; the subscripts should start with an ellipsis ('...qd,...kd->...qk')",
         "where": ["q5"]},
    ),
    "q6_trace_divided_by_the_q2_cells_scale_divisor_left_in_the_namespace": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / scale_divisor\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the trace's scores are divided by scale_divisor, the q2 answer for a head of width 64 (8.0), "
                    "instead of sqrt(4) = 2 for this example's d_k = 4, so the weights are too flat and the "
                    "output and the causal weights are wrong with them",
         "where": ["q6"]},
    ),
    "q7_trap_tried_on_self_attention_with_the_same_tensor_as_queries_and_keys_answers_a": (
        {"q_trap_answer": (
            "# try the classmate's shortcut on a self-attention example: the queries and keys are the same x\n"
            "_g = torch.Generator().manual_seed(7)\n"
            "_x = 3 * torch.randn(6, 64, generator=_g)\n"
            "_v = torch.randn(6, 8, generator=_g)\n"
            "_s = _x @ _x.T / math.sqrt(64)\n"
            "_w_trap = F.softmax(_s, dim=-1)\n"
            "_w_trap[~causal_mask(6)] = 0.0\n"
            "_w_ref = F.softmax(_s.masked_fill(~causal_mask(6), float(\"-inf\")), dim=-1)\n"
            "q_trap_answer = \"A\" if torch.allclose(_w_trap @ _v, _w_ref @ _v) else \"C\"\n"
        )},
        {"mistake": "the shortcut is tried on an example whose queries and keys are the same tensor, where each "
                    "query's score with itself (|x|^2 / 8, at least 55 here) swamps every other score (at most 10), so the future keys "
                    "carry no weight to rounding and both versions agree: the answer is A instead of C (zeroing "
                    "after the softmax leaves rows that no longer sum to 1)",
         "where": ["q7"]},
    ),
    "q8_growth_factor_from_causal_triangle_counts_floor_divided": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "# a causal model only needs the lower triangle: T (T + 1) / 2 dot products\n"
            "cost_ratio = (2048 * 2049 // 2 * 64) // (1024 * 1025 // 2 * 64)\n"
        )},
        {"mistake": "the growth factor is taken from the causal triangle counts T(T+1)/2 and floor-divided: "
                    "2098176 // 524800 = 3 (the true ratio of triangles is 3.998) instead of 4, the factor by "
                    "which T^2 d_k grows when T doubles",
         "where": ["q8"]},
    ),
}
