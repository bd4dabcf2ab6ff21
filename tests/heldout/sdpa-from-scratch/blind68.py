"""Sixty-eighth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind67.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: A REALISTIC CLASS. The mistakes are the common kinds a class makes on these exercises,
each written in a spelling the earlier names do not use: a value probe built by one generator with the query
shape, so d_v silently becomes d_k (q1); the divisor read off torch.rsqrt, which is the multiplier 1/8 (q2);
the softmax's max reduced without keepdim and put back with `[..., None]`, right only for the last axis, and a
result cast with the legacy `.type(torch.FloatTensor)`, which forces CPU float32 (q3); the causal comparison
written `k_pos >= q_pos`, which keeps the future, and query positions offset by T_k - T_q, the bottom-right
alignment of flash-attention (q4); scores multiplied by sqrt(d_k), an einsum that reads K as if already
transposed, keys transposed with `swapaxes(1, 2)` from 3-D code, and the mask applied by multiplying the
weights after the softmax (q5); the causal weights taken as `torch.tril(weights3)` with no renormalisation, and
blocked scores set to 0 by multiplying with the bool mask (q6); the q7 check run with `allclose(..., rtol=1)`
meant as 1 % (q7); the entries counted as the True entries of a causal mask (q8). The correct variants do the
same jobs another way: a softmax that works in float32 for the half types and casts back, a mask from
`torch.tril` of bool ones with the costs from named sizes, an ellipsis einsum attention with the scale folded
into the queries and fully masked rows cleared with masked_fill, the scaled variance from the variance rule and
the trace read off `F.scaled_dot_product_attention` with identity values, and shapes from named sizes with the
q7 check done by `torch.testing.assert_close` in a try.

Public material used (search tool):
- q1 (sizes that are equal hide the bug): rasbt/LLMs-from-scratch#857 (einsum weights written against the
  wrong layout, "hidden at first because ... d_in == d_out == embed_dim"; it shows once the sizes differ).
- q2 (multiplier taken for the divisor): esceptico/perceiver-io#9 (`self.scale = self.qk_head_dim ** -0.5` used
  as a divisor: "should be multiplied instead of the divide"), rasbt/LLMs-from-scratch#856
  (`attn_scores / keys.shape[-1] ** -0.5`), wxie9/CARD#3 (`/ self.head_dim ** -0.5` in its attention).
- q3 (reduced axis put back in the wrong place): the codewithsundeep.com answer on a GitHub softmax written as
  `m = x.max(1)[:, np.newaxis]` for 2-D input only, and the shuang0420.cn post on numpy keepdims ("x -=
  np.max(x, axis=1) ... only makes sense for a square matrix"); (legacy tensor type) the lshriver/scribing
  table (torch.FloatTensor is the CPU float32 type, torch.cuda.FloatTensor the GPU one) and openillumi.com on
  "Expected object of type torch.cuda.FloatTensor but found type torch.FloatTensor".
- q4 (polarity): InseeFrLab/torchTextClassifiers#92 ("the attention mask was inverted when passed to
  F.scaled_dot_product_attention"); (bottom-right alignment) Dao-AILab/flash-attention#517 (turboderp: flash-attn
  used to keep the top-left alignment "the same as Torch SDP and xformers", now keeps the bottom-right),
  Dao-AILab/flash-attention#1778 (tridao: "we define the causal mask to be aligned to the bottom right"),
  triton-lang/triton#2033.
- q5 (scale): esceptico/perceiver-io#9, cneuralnetwork/solving-ml-papers#1 ("Wrong scaling of attention
  scores"), delzac/cntkx#10 (sqrt not applied); (einsum against the wrong layout) rasbt/LLMs-from-scratch#857,
  aladdinpersson/Machine-Learning-Collection#165 (einsum attention disagreeing with the matmul version),
  alan-cooney/transformer-from-scratch#52 ("Fix attention einsum"); (3-D transpose on 4-D input)
  d2l-ai/d2l-en#1886 (d2l's DotProductAttention swaps the keys with `keys.transpose(1,2)` for (batch, T, d)
  tensors); (mask after the softmax) stats.stackexchange.com question 619612 (Softmax(QK^T) * LTMask: "rows in
  the self-attention to not add up to 1") and huggingface/transformers#542 ("The mask can't be applied after the
  softmax, because then the resulting values will not sum to 1").
- q6 (zeroed, not renormalised): Build a Large Language Model From Scratch (fliphtml5 page 94):
  `attn_weights*mask_simple` zeroes the future and renormalising is a separate third step; (zero instead of
  -inf) huggingface/transformers#542 ("an input of 0 can still yield quite a large softmax weight (since
  e^0 = 1)").
- q7 (relative tolerance is a fraction): the torch.allclose docs (|input - other| <= atol + rtol * |other|).
- q8 (counting only the unmasked entries): Dao-AILab/flash-attention#594 (causal FLOPs divided by 2, "we only
  need to compute approximately half the entries"), NVIDIA/cudnn-frontend#347 (non-masked entries counted with
  `torch.tril(...).sum()`), AI-Hypercomputer/maxtext#1972.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a broken
`stable_softmax` may also cost q5 and q6; a broken `causal_mask` q5 and q6).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository (CPU only, no GPU
used): softmax against `torch.softmax` on 1-D to 4-D inputs (including a square one) along every axis in
float64, float32, float16 and bfloat16 (dtype and shape kept, the input left unchanged), float16 logits in the
thousands, -inf entries, and the gradient; masks against `torch.ones(T_q, T_k).tril().bool()` for T_q, T_k in
1..6 and with T_k left out; attention against a float64 reference (softmax with fully masked rows set to zero)
and `F.scaled_dot_product_attention` on 3-D and 4-D inputs with T_q != T_k, T_q = 1, T_k = 1, d_v != d_k,
T_k = d_k, with no mask, a causal mask, a 2-D random mask with a fully masked query and a batched random mask,
in all four dtypes, float16 inputs with large scores, and gradients of Q, K and V against PyTorch's; the
answers of q1, q2, q6, q7 and q8 against the values from the notebook's formulas. Each variant's notebook was
run top to bottom (all code cells but otter's) with the variant's cells put in as harness.py does. The correct
ones pass every check and raise nowhere; each wrong one fails checks only in its "where".
Caveats: the `[..., None]` softmax is right for dim=-1, so it shows only in q3's tests on other axes (a raise
when the sizes do not broadcast, wrong values on a square slice); the `.type(torch.FloatTensor)` softmax also
makes the q6 cell raise at out3 (float32 weights @ float64 V3) and the q5 comparison cell is unaffected
(float32); the einsum and swapaxes attentions make the notebook's own comparison cell raise (4-D, T_k = 9 !=
d_k = 16); swapaxes is right on 3-D input; the bottom-right mask is right on square masks, so it can cost q5
only if q5's tests build rectangular masks with the student's causal_mask.

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
_Q2_HEAD = "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\n"
_Q2_PRINT = "print(raw_score_var, scaled_score_var, scale_divisor)\n"
_Q6_SCORES = "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
_Q6_PRINT = "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
_Q6_RIGHT_WEIGHTS = "weights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"

CORRECT = {
    "softmax_half_types_computed_in_float32_with_torch_sub_and_div_then_cast_back": {
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    # float16 / bfloat16: do the arithmetic in float32, hand back the input's dtype\n"
            "    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n"
            "    peak = torch.amax(work, dim=dim, keepdim=True)\n"
            "    e = torch.exp(torch.sub(work, peak))\n"
            "    p = torch.div(e, torch.sum(e, dim=dim, keepdim=True))\n"
            "    return p.to(x.dtype)\n"
        ),
    },
    "mask_from_bool_ones_tril_costs_from_named_sizes": {
        "causal_mask": (
            _MASK_HEAD +
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.tril(torch.ones((T_q, T_k), dtype=torch.bool), diagonal=0)\n"
        ),
        "attn_entries": (
            "T, head = 1024, 64\n"
            "attn_entries = T * T                      # one weight per (query, key) pair\n"
            "score_madds = attn_entries * head         # each weight is a length-64 dot product\n"
            "cost_ratio = ((2 * T) ** 2 * head) // score_madds\n"
        ),
    },
    "sdpa_ellipsis_einsum_scale_folded_into_queries_where_fill_empty_rows_masked_fill": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    inv_root = 1.0 / math.sqrt(Q.shape[-1])              # a Python float: no precision lost\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q * inv_root, K)\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...qk,...kv->...qv\", stable_softmax(scores, dim=-1), V)\n"
            "    scores = torch.where(mask, scores, torch.full_like(scores, float(\"-inf\")))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    no_key = torch.logical_not(mask.any(dim=-1, keepdim=True))   # queries that see nothing\n"
            "    weights = weights.masked_fill(no_key, 0.0)\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", weights, V)\n"
        ),
    },
    "variance_rule_for_the_scaled_scores_trace_through_torch_sdpa_with_identity_values": {
        "d_k": (
            _Q2_HEAD +
            "raw_score_var = float(torch.var(raw_scores))\n"
            "scaled_score_var = raw_score_var / d_k      # Var(X / c) = Var(X) / c**2 with c = sqrt(d_k)\n"
            "scale_divisor = float(64 ** 0.5)\n" + _Q2_PRINT
        ),
        "scores3": (
            _Q6_SCORES +
            "_eye = torch.eye(3, dtype=torch.float64)   # identity values: the output is the weight matrix\n"
            "weights3 = F.scaled_dot_product_attention(Q3, K3, _eye)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = F.scaled_dot_product_attention(Q3, K3, _eye, is_causal=True)\n" + _Q6_PRINT
        ),
    },
    "shapes_from_named_sizes_trap_checked_with_assert_close_in_a_try": {
        "weights_shape": (
            "B, T_q, T_k, d_k, d_v = 4, 10, 10, 64, 128\n"
            "weights_shape = (B, T_q, T_k)\n"
            "out_shape = (B, T_q, d_v)\n"
        ),
        "q_trap_answer": (
            "_short = weights3.clone()\n"
            "_short[~causal_mask(3)] = 0.0                 # the classmate's shortcut on the plain weights\n"
            "try:\n"
            "    torch.testing.assert_close(_short @ V3, weights3_causal @ V3)\n"
            "    _same = True\n"
            "except AssertionError:\n"
            "    _same = False                              # rows no longer sum to 1\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        ),
    },
}

WRONG = {
    "q1_three_probes_drawn_from_one_generator_so_the_values_get_the_query_width": (
        {"weights_shape": (
            "_Qp, _Kp, _Vp = (torch.zeros(4, 10, 64) for _ in range(3))   # probes for Q, K and V\n"
            "_w = _Qp @ _Kp.transpose(-2, -1)\n"
            "weights_shape = tuple(_w.shape)\n"
            "out_shape = tuple((_w @ _Vp).shape)\n"
        )},
        {"mistake": "the three probe tensors are made by one generator with the query shape (4, 10, 64), so the "
                    "value probe has width d_k = 64 instead of d_v = 128: weights_shape (4, 10, 10) is right, "
                    "out_shape comes out (4, 10, 64) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_scale_divisor_from_torch_rsqrt_is_the_multiplier_one_eighth": (
        {"d_k": (
            _Q2_HEAD +
            "raw_score_var = raw_scores.var().item()\n"
            "scale = torch.rsqrt(torch.tensor(float(d_k)))        # 1 / sqrt(d_k)\n"
            "scaled_score_var = (raw_scores * scale).var().item()\n"
            "scale_divisor = torch.rsqrt(torch.tensor(64.0)).item()\n" + _Q2_PRINT
        )},
        {"mistake": "scale_divisor is taken from torch.rsqrt, which gives the multiplier 1/sqrt(64) = 0.125, not "
                    "the number the scores are divided by (8.0); the two variances are right",
         "where": ["q2"]},
    ),
    "q3_max_reduced_without_keepdim_and_put_back_with_ellipsis_none_on_the_last_axis": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    m = x.max(dim=dim).values[..., None]        # row max as a column, like x.max(1)[:, np.newaxis]\n"
            "    e = torch.exp(x - m)\n"
            "    return e / e.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the max is reduced without keepdim and its axis is put back with [..., None], that is always "
                    "as the last axis, so for any dim other than the last the shift is not constant along the "
                    "softmax slice: the results are wrong when the sizes happen to broadcast (a square matrix "
                    "along dim 0) and it raises a broadcasting error otherwise; dim=-1 is right",
         "where": ["q3"]},
    ),
    "q3_result_cast_with_type_torch_floattensor_forces_cpu_float32": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return (exps / exps.sum(dim=dim, keepdim=True)).type(torch.FloatTensor)\n"
        )},
        {"mistake": "the result is cast with .type(torch.FloatTensor), the legacy CPU float32 tensor type, so the "
                    "dtype (and the device of a GPU input) is not kept: float64, float16 and bfloat16 logits give "
                    "float32 weights on the CPU; q5's attention then multiplies float32 weights with float64 / "
                    "half values (raises), and q6's out3 = weights3 @ V3 raises for the float64 V3",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_key_index_ge_query_index_keeps_the_future_and_the_diagonal": (
        {"causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    q_pos = torch.arange(T_q)[:, None]\n"
            "    k_pos = torch.arange(T_k)[None, :]\n"
            "    return k_pos >= q_pos\n"
        )},
        {"mistake": "the comparison is the wrong way round: key index >= query index keeps the diagonal and the "
                    "future (the upper triangle) and blocks the past, so query 0 sees every key and the last "
                    "query only itself",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_query_positions_shifted_by_t_k_minus_t_q_bottom_right_as_in_flash_attention": (
        {"causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    offset = T_k - T_q                       # queries are the last T_q positions\n"
            "    rows = torch.arange(T_q).unsqueeze(1) + offset\n"
            "    cols = torch.arange(T_k).unsqueeze(0)\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "the queries are placed at the last T_q key positions (offset T_k - T_q), which aligns the "
                    "triangle at the bottom right as flash-attention does, not at the top left as the notebook "
                    "asks: square masks are right, but with T_k > T_q every query sees T_k - T_q extra keys and "
                    "with T_k < T_q the first queries see nothing",
         "where": ["q4", "q5"]},
    ),
    "q5_scores_multiplied_by_root_d_k_instead_of_divided": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * math.sqrt(d_k)   # scaled by sqrt(d_k)\n" +
            _SDPA_TAIL
        )},
        {"mistake": "the scores are multiplied by sqrt(d_k) instead of divided by it, so they are d_k times too "
                    "large (their variance is d_k**2 times the scaled one): the weights are far too peaked, nearly "
                    "one-hot, and do not match softmax(QK^T/sqrt(d_k))",
         "where": ["q5"]},
    ),
    "q5_einsum_reads_the_keys_as_if_already_transposed": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.einsum(\"...qd,...dk->...qk\", Q, K) / math.sqrt(d_k)   # Q K^T\n" +
            _SDPA_TAIL
        )},
        {"mistake": "the einsum subscripts read K as if it were already K^T, (..., d_k, T_k): the contraction "
                    "runs over K's token axis, so it raises whenever T_k != d_k and gives wrong scores (Q K "
                    "instead of Q K^T) when T_k == d_k",
         "where": ["q5"]},
    ),
    "q5_keys_swapaxes_1_2_from_batch_first_3d_code_breaks_on_heads": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    # (batch, T_k, d_k) -> (batch, d_k, T_k), as in numpy's swapaxes\n"
            "    scores = torch.matmul(Q, K.swapaxes(1, 2)) / math.sqrt(d_k)\n" +
            _SDPA_TAIL
        )},
        {"mistake": "the keys are transposed with swapaxes(1, 2), which swaps the last two axes only for 3-D "
                    "input: on 4-D (batch, heads, T_k, d_k) keys it swaps heads and tokens instead, so the "
                    "product raises (or, when the sizes happen to line up, multiplies the wrong axes); 3-D "
                    "inputs are right",
         "where": ["q5"]},
    ),
    "q5_softmax_weights_multiplied_by_the_bool_mask_after_the_softmax": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = weights * mask                 # blocked keys get weight 0\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the mask is applied after the softmax by multiplying the weights with it: the blocked "
                    "weights become 0 but the remaining ones are not renormalised, so each partly masked row "
                    "sums to less than 1 and its output is shrunk (fully masked queries come out as zeros)",
         "where": ["q5"]},
    ),
    "q6_causal_weights_as_tril_of_the_unmasked_weights": (
        {"scores3": (
            _Q6_SCORES + _Q6_RIGHT_WEIGHTS +
            "weights3_causal = torch.tril(weights3)       # keep j <= i\n" + _Q6_PRINT
        )},
        {"mistake": "the causal weights are the lower triangle of the unmasked weights: the future weights are "
                    "zeroed after the softmax and not renormalised, so rows 0 and 1 of weights3_causal sum to "
                    "0.274 and 0.616 instead of 1 (row 0 should be [1, 0, 0]); weights3 and out3 are right",
         "where": ["q6"]},
    ),
    "q6_causal_scores_multiplied_by_the_bool_mask_so_the_blocked_scores_are_zero": (
        {"scores3": (
            _Q6_SCORES + _Q6_RIGHT_WEIGHTS +
            "weights3_causal = stable_softmax(scores3 * causal_mask(3), dim=-1)   # future scores removed\n"
            + _Q6_PRINT
        )},
        {"mistake": "the blocked scores are set to 0 by multiplying with the bool mask instead of being replaced "
                    "by -inf, and e^0 = 1 still gives the future keys weight: row 0 of weights3_causal is "
                    "softmax([0.5, 0, 0]) instead of [1, 0, 0], row 1 softmax([0.5, 1, 0]); row 2 is right",
         "where": ["q6"]},
    ),
    "q7_allclose_rtol_given_as_one_meaning_one_percent_accepts_the_shrunk_rows": (
        {"q_trap_answer": (
            "_w = weights3.clone()\n"
            "_w[~causal_mask(3)] = 0.0                      # the classmate's shortcut\n"
            "_same = torch.allclose(_w @ V3, weights3_causal @ V3, rtol=1)   # agree to within 1 %\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        )},
        {"mistake": "the shortcut is checked with torch.allclose(..., rtol=1) meant as 1 %, but rtol is a "
                    "fraction, so any difference up to 100 % of the right value passes: query 0's output shrunk "
                    "from [1, 0] to [0.27, 0] is accepted, and the answer is A instead of C (the zeroed rows "
                    "no longer sum to 1)",
         "where": ["q7"]},
    ),
    "q8_entries_counted_as_the_true_entries_of_the_causal_mask": (
        {"attn_entries": (
            "attn_entries = int(causal_mask(1024).sum())   # the entries a query can actually use\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the entries of the attention-weight matrix are counted as the True entries of a causal "
                    "mask, T(T+1)/2 = 524,800, instead of all T^2 = 1,048,576 (the question has no mask; the "
                    "matrix has one entry per (query, key) pair); score_madds and cost_ratio are right",
         "where": ["q8"]},
    ),
}
