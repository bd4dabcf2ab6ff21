"""Sixty-sixth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind65.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: RIGHT IN THE MIDDLE, WRONG AT THE EDGES. Each wrong variant gives the right answer on the
ordinary input a student tries first (the notebook's own demo cells run and look right) and goes wrong on an
input the question's statement allows: a shape helper written against the comparison cell's 4-D (B, H, T, d)
tensors that indexes axis 2, which is the token axis only when there are two leading axes (q1); the variance
taken over the upper triangle of each score matrix as if Q K^T were symmetric, which it is only when the keys
are the queries (q2), and the square root of d_k rounded to an integer, exact only for the perfect-square head
widths 16 and 64 and not for the example's d_k = 8 (q2); a max shift applied only when a logit passes 88, the
float32 overflow point, so float16 logits between 11 and 88 overflow (q3), and a negative axis normalised with
`dim if dim > 0 else x.dim() + dim`, which sends dim = 0 out of range (q3); a single-query shortcut in the mask
that returns an all-True row as in a decoding step, wrong for the top-left causal mask with T_k > 1 (q4); a
single-query shortcut that drops the mask, a single-key fast path that returns V (ignoring the mask and
cutting Q and K out of the graph), an epsilon of 1e-9 added to the denominator that is 0 in float16, output rows
zeroed by `torch.where` after the NaN weights were already multiplied with V (right values, NaN gradients for V),
and an empty-row flag unsqueezed at axis 1, which is axis -1 only for a 2-D mask (q5); the causal rows of the
trace filled by a loop whose bound T - 1 skips the last query (q6); the shortcut checked after a LayerNorm, which
undoes the shrink of each row, so the answer is A (q7); the entries of the weight matrix counted as the True
entries of a causal mask (q8). The correct variants write the same things so that they hold at the edges (the
axis normalised only when it is below zero, empty rows opened before the softmax and cleared after, a
denominator replaced by 1 where it is 0, a helper with negative axes, a causal loop over every row).

Public material used (search tool):
- q1 (axis 2 from the 4-D layout): the notebook's comparison cell (Qc, Kc, Vc of shape (2, 4, T, d)), next to
  q1's 3-D shapes.
- q2 (symmetric scores): datascience.stackexchange.com/questions/128895 (Q Q^T is symmetric around the
  diagonal, Q K^T is not), tensorflow/tensor2tensor#1731 (the QK versus KQ order question).
- q2 (rounded root): the notebook's head widths 16 and 64 (perfect squares) beside its example's d_k = 8.
- q3 (threshold 88): Blanchard, Higham & Higham, "Accurately computing the log-sum-exp and softmax functions"
  (IMA J. Numer. Anal. 2021, via folu.me): exp overflows once x exceeds log(r_max), about 88.7 in fp32 and bf16
  but about 11.1 in fp16; the notebook itself gives 11 for float16.
- q3 (dim > 0): public from-scratch softmax exercise code (CS336-style `softmax(x, dim)` solutions; one does
  `if dim < 0: dim = x.dim() + dim` and then checks `0 <= dim < x.dim()`), where the axis is normalised by
  hand and the comparison is easy to get one off.
- q4 / q5 (single query): huggingface/transformers#37807 ("Why does is_causal = query.shape[2] > 1 and
  causal_mask is None?": one query "would translate to a full attention mask"), pytorch/pytorch#115111 (the
  top-left mask of `is_causal` with one query lets it see only the first key), huggingface/transformers#30311
  (masks dropped for q_len == 1 broke speculative decoding).
- q5 (epsilon): kornia/kornia#4021 and #3966, lightonai/pylate#239 (1e-8 and 1e-12 round to 0.0 in float16, so
  `x / (y + eps)` is 0/0 there and fine in float32 and bfloat16), openvinotoolkit/openvino#8676, sgl-project/
  sglang#31017 (an epsilon of 1e-20 in a renormalisation is 0 in float16).
- q5 (where after NaN): pytorch/pytorch#68425, #36923, #18287, #52248 (`torch.where` gives the right forward
  values but back-propagates the NaN of the branch it did not pick).
- q5 (single key, unsqueeze(1)): the notebook's own statement (T_k may differ from T_q; masks that broadcast
  to (..., T_q, T_k), 2-D ones applying to every batch entry).
- q7 (LayerNorm): the RMSNorm/LayerNorm scale-invariance demonstrations (whenwen.github.io "RMSNorm(cz) =
  RMSNorm(z)"; mlverse nn_layer_norm formula): a row scaled by s > 0 comes out of a LayerNorm nearly unchanged.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a broken
`stable_softmax` may also cost q5 and q6; a broken `causal_mask` q5 and q6).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository (CPU only, no GPU
used): softmax against `torch.softmax` on 1-D to 4-D inputs along every positive and negative axis in float64,
float32, float16 and bfloat16 (dtype and shape kept), length-1 axes, float16 logits in the thousands and around
30, -inf entries, and gradients; masks against `torch.ones(T_q, T_k).tril().bool()` for T_q, T_k in 1..7 and
with T_k left out; attention against `F.scaled_dot_product_attention` (fully masked rows set to zero, compared
in float64) on 3-D and 4-D inputs with T_q != T_k, T_q = 1, T_k = 1, d_v != d_k and d_k of 1, 8, 16 and 64,
with no mask, a causal mask, a 2-D random mask with a fully masked query, a 3-D (B, T_q, T_k) random mask, a 4-D
(B, H, T_q, T_k) one and a (B, 1, T_k) padding mask, in all four dtypes, float16 inputs with large scores
(Q, K three times unit variance, d_k = 64), and gradients of Q, K and V against the reference's (with a fully
masked query); the answers of q1, q2, q6, q7 and q8 against the values from the notebook's formulas. Each
variant's notebook was run top to bottom (all code cells but otter's) with the variant's cells put in as
harness.py does; none raises there. The correct ones pass every check; each wrong one differs from the right
answer on inputs the notebook describes, and only in its "where".
Caveats: the threshold softmax differs only for float16 logits between about 11 and 88 (q3's "thousands" are
shifted; q5's large float16 scores are not); the dim > 0 softmax only for dim = 0; the single-query mask only
for causal_mask(1, T_k) with T_k > 1; the single-query and single-key shortcuts only when T_q = 1 (resp.
T_k = 1) and the mask blocks something (the single-key one also leaves Q.grad and K.grad as None); the epsilon
only for float16 with a fully masked query (in float64 it moves the weights by about 1e-9, relatively); the
where-after-NaN only in the gradient of V with a fully masked query; the unsqueeze(1) flag only for 3-D or 4-D
masks whose query axis is longer than 1 (it crashes when T_q != T_k and silently picks the wrong flags when
T_q == T_k).

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
_SDPA_SCORES = (
    "    d_k = Q.size(-1)\n"
    "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
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
_Q2_PRINT = "print(raw_score_var, scaled_score_var, scale_divisor)\n"
_Q6_HEAD = (
    "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
    "weights3 = stable_softmax(scores3, dim=-1)\n"
    "out3 = weights3 @ V3\n"
)
_Q6_PRINT = "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"

CORRECT = {
    "softmax_negative_axis_normalised_with_less_than_zero_amax_shift": {
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    axis = dim + x.dim() if dim < 0 else dim   # -1 -> last axis; 0 and up stay as they are\n"
            "    e = torch.exp(x - x.amax(dim=axis, keepdim=True))\n"
            "    return e / e.sum(dim=axis, keepdim=True)\n"
        ),
    },
    "sdpa_empty_rows_opened_before_the_softmax_then_cleared_ellipsis_einsum_python_float_scale": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    scale = 1.0 / math.sqrt(Q.shape[-1])     # a Python float: no float32 rounding for float64 inputs\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * scale\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    keep = mask.to(torch.bool)\n"
            "    alive = keep.any(dim=-1, keepdim=True)   # does this query see at least one key?\n"
            "    keep = keep | ~alive                     # let empty rows see everything for now: no NaN anywhere\n"
            "    weights = stable_softmax(scores.masked_fill(~keep, float(\"-inf\")), dim=-1)\n"
            "    weights = weights.masked_fill(~alive, 0.0)\n"
            "    return weights @ V\n"
        ),
    },
    "sdpa_inline_softmax_infinite_row_max_set_to_zero_empty_denominator_replaced_by_one": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    top = scores.amax(dim=-1, keepdim=True)\n"
            "    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))   # all-masked row: max is -inf\n"
            "    e = torch.exp(scores - top)\n"
            "    total = e.sum(dim=-1, keepdim=True)\n"
            "    total = torch.where(total > 0, total, torch.ones_like(total))        # 0 / 1 = 0 in every dtype\n"
            "    return torch.matmul(e / total, V)\n"
        ),
    },
    "shape_helper_with_negative_axes_mask_from_greater_equal_costs_from_a_helper": {
        "weights_shape": (
            "def attn_shapes(q_shape, k_shape, v_shape):\n"
            "    \"\"\"(weights shape, output shape) for any number of leading axes.\"\"\"\n"
            "    lead, t_q, t_k, d_v = tuple(q_shape[:-2]), q_shape[-2], k_shape[-2], v_shape[-1]\n"
            "    return lead + (t_q, t_k), lead + (t_q, d_v)\n"
            "\n"
            "\n"
            "assert attn_shapes((2, 4, 6, 16), (2, 4, 9, 16), (2, 4, 9, 24)) == ((2, 4, 6, 9), (2, 4, 6, 24))\n"
            "weights_shape, out_shape = attn_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))\n"
        ),
        "causal_mask": (
            _MASK_HEAD +
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.greater_equal(torch.arange(T_q).unsqueeze(-1), torch.arange(T_k))\n"
        ),
        "attn_entries": (
            "def score_cost(T, d_k):\n"
            "    \"\"\"(entries of the T x T weight matrix, multiply-adds of Q @ K.T).\"\"\"\n"
            "    return T * T, T * T * d_k\n"
            "\n"
            "\n"
            "attn_entries, score_madds = score_cost(1024, 64)\n"
            "cost_ratio = score_cost(2048, 64)[1] // score_madds\n"
        ),
    },
    "variance_rule_scaled_from_raw_causal_rows_softmaxed_over_every_query_check_without_layer_norm": {
        "d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "raw_score_var = float(torch.var(raw_scores.flatten(), correction=1))\n"
            "scaled_score_var = raw_score_var / d_k          # Var(x / c) = Var(x) / c^2 with c^2 = d_k\n"
            "scale_divisor = float(math.sqrt(64))\n" + _Q2_PRINT
        ),
        "scores3": (
            _Q6_HEAD +
            "weights3_causal = torch.zeros_like(scores3)\n"
            "for i in range(scores3.shape[0]):               # every query, the last one included\n"
            "    weights3_causal[i, :i + 1] = stable_softmax(scores3[i, :i + 1], dim=-1)\n" + _Q6_PRINT
        ),
        "q_trap_answer": (
            "torch.manual_seed(1)\n"
            "_s, _v, _keep = torch.randn(6, 6), torch.randn(6, 4), causal_mask(6)\n"
            "_proper = F.softmax(_s.masked_fill(~_keep, float(\"-inf\")), dim=-1) @ _v\n"
            "_w = F.softmax(_s, dim=-1)\n"
            "_w[~_keep] = 0.0\n"
            "print(\"row sums after zeroing:\", _w.sum(dim=-1))\n"
            "q_trap_answer = \"A\" if torch.allclose(_w @ _v, _proper) else \"C\"\n"
        ),
    },
}

WRONG = {
    "q1_shape_helper_indexes_axis_2_as_in_the_4d_comparison_cell": (
        {"weights_shape": (
            "def attn_shapes(q_shape, k_shape, v_shape):\n"
            "    \"\"\"(weights shape, output shape); tried on the comparison cell's (B, H, T, d) tensors.\"\"\"\n"
            "    weights = tuple(q_shape[:3]) + (k_shape[2],)\n"
            "    out = tuple(q_shape[:3]) + (v_shape[-1],)\n"
            "    return weights, out\n"
            "\n"
            "\n"
            "assert attn_shapes((2, 4, 6, 16), (2, 4, 9, 16), (2, 4, 9, 24)) == ((2, 4, 6, 9), (2, 4, 6, 24))\n"
            "weights_shape, out_shape = attn_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))\n"
        )},
        {"mistake": "the shape helper counts axes from the front as for the comparison cell's 4-D (batch, heads, "
                    "T, d) tensors, where axis 2 is the token axis; with q1's 3-D shapes q_shape[:3] keeps d_k and "
                    "k_shape[2] is d_k, so weights_shape is (4, 10, 64, 64) and out_shape (4, 10, 64, 128) instead "
                    "of (4, 10, 10) and (4, 10, 128) (axes -2 and -1 work for any number of leading axes)",
         "where": ["q1"]},
    ),
    "q2_variance_of_the_upper_triangle_only_as_if_the_scores_were_symmetric": (
        {"d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "# a score matrix is symmetric (q_i . k_j = q_j . k_i), so count each pair once: upper triangle + diagonal\n"
            "_T = raw_scores.shape[-1]\n"
            "_iu = torch.triu_indices(_T, _T)\n"
            "_pairs = raw_scores[:, _iu[0], _iu[1]]\n"
            "raw_score_var = _pairs.var().item()\n"
            "scaled_score_var = (_pairs / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n" + _Q2_PRINT
        )},
        {"mistake": "the scores are taken to be symmetric, which Q K^T is only when the keys are the queries; "
                    "with the notebook's separate K the strict lower triangle holds other numbers, and the "
                    "variances of the 15 upper-triangle entries per sequence are not those of all 50 entries "
                    "asked for (about 6.92 and 0.865 instead of 6.60 and 0.825)",
         "where": ["q2"]},
    ),
    "q2_square_root_of_d_k_rounded_to_an_integer_exact_only_for_perfect_square_widths": (
        {"d_k": (
            "def root(n):\n"
            "    return float(round(n ** 0.5))     # head widths are 16, 64, ...: their roots are whole numbers\n"
            "\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / root(d_k)).var().item()\n"
            "scale_divisor = root(64)\n" + _Q2_PRINT
        )},
        {"mistake": "the square root is rounded to a whole number, which is exact for the perfect-square widths "
                    "16 and 64 but not for the example's d_k = 8: the scores are divided by 3 instead of 2.83, so "
                    "scaled_score_var is raw/9 (about 0.733) instead of raw/8 (about 0.825); scale_divisor "
                    "(8.0) and raw_score_var are right",
         "where": ["q2"]},
    ),
    "q3_max_shift_applied_only_when_a_logit_passes_the_float32_overflow_point_88": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    # exp(x) only overflows past log(max float) ~ 88.7, so only shift when a logit gets near there\n"
            "    if x.max() > 88:\n"
            "        x = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(x)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the max is subtracted only when some logit exceeds 88, the overflow point of exp in float32 "
                    "(and bfloat16); in float16 exp already overflows past about 11, so float16 logits between 11 "
                    "and 88 (such as q5's large float16 scores, around 30) give inf / inf = NaN",
         "where": ["q3", "q5"]},
    ),
    "q3_negative_axis_normalised_with_greater_than_zero_sends_dim_0_out_of_range": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    dim = dim if dim > 0 else x.dim() + dim   # turn a negative axis into its positive index\n"
            "    shifted = x - x.amax(dim=dim, keepdim=True)\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the test that keeps a non-negative axis is `dim > 0` instead of `dim >= 0`, so dim=0 is "
                    "treated as negative and becomes x.dim(), one past the last axis: the softmax raises an "
                    "IndexError for dim=0 (negative axes and positive ones from 1 work)",
         "where": ["q3"]},
    ),
    "q4_single_query_shortcut_returns_an_all_true_row_as_in_a_decoding_step": (
        {"causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    if T_q == 1:\n"
            "        # one query is the newest token: it may look at every key\n"
            "        return torch.ones(1, T_k, dtype=torch.bool)\n"
            "    rows = torch.arange(T_q).unsqueeze(1)\n"
            "    cols = torch.arange(T_k).unsqueeze(0)\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "a special case for a single query returns an all-True row, the bottom-right (decoding) "
                    "convention; with the top-left alignment the notebook asks for, query 0 sees only key 0, so "
                    "causal_mask(1, T_k) must be [True, False, ..., False] for T_k > 1",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_mask_dropped_for_a_single_query_as_in_a_decoding_step": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None and Q.size(-2) == 1:\n"
            "        mask = None    # one query = the newest token in decoding: it sees every key, nothing to mask\n" +
            _SDPA_TAIL
        )},
        {"mistake": "with a single query the mask is thrown away on the idea that one query is the newest token "
                    "of a decoding step and sees every key; a mask given with T_q = 1 (a padding mask, a top-left "
                    "causal mask with T_k > 1, a fully masked query) must still be applied",
         "where": ["q5"]},
    ),
    "q5_single_key_fast_path_returns_the_values_without_the_mask": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    if K.size(-2) == 1:\n"
            "        # one key: the softmax over a single score is 1, so every query just takes that value\n"
            "        return V.expand(*Q.shape[:-1], V.size(-1))\n" +
            _SDPA_SCORES + _SDPA_TAIL
        )},
        {"mistake": "a fast path for a single key returns the value row for every query without looking at the "
                    "mask, so a query whose only key is masked gets V instead of a row of zeros (and Q and K are "
                    "left out of the graph, so their gradients are None rather than zeros)",
         "where": ["q5"]},
    ),
    "q5_denominator_epsilon_1e_minus_9_is_zero_in_float16_so_empty_rows_are_nan": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    row_max = scores.amax(dim=-1, keepdim=True)\n"
            "    row_max = torch.where(torch.isinf(row_max), torch.zeros_like(row_max), row_max)  # all masked: -inf\n"
            "    exps = torch.exp(scores - row_max)\n"
            "    weights = exps / (exps.sum(dim=-1, keepdim=True) + 1e-9)   # all-masked row: 0 / (0 + eps) = 0\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the fully masked rows are handled by adding 1e-9 to the softmax denominator; 1e-9 is below "
                    "float16's smallest subnormal (about 6e-8) and rounds to 0, so in float16 a query with no "
                    "visible key gets 0 / 0 = NaN instead of zeros (float32, float64 and bfloat16 give 0)",
         "where": ["q5"]},
    ),
    "q5_output_rows_zeroed_with_where_after_the_nan_weights_met_v_nan_gradients": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    out = torch.matmul(stable_softmax(scores, dim=-1), V)     # a query with no key gets NaN here...\n"
            "    has_key = mask.any(dim=-1, keepdim=True)\n"
            "    return torch.where(has_key, out, torch.zeros_like(out))   # ...which is replaced by zeros\n"
        )},
        {"mistake": "the NaN weights of a fully masked query are multiplied with V before the row is replaced by "
                    "zeros with torch.where: the output is right, but the backward pass multiplies the zero "
                    "gradient by those NaN weights (NaN * 0 = NaN), so V's gradient is NaN whenever a query has "
                    "no visible key; the weights must be cleared before the product with V",
         "where": ["q5"]},
    ),
    "q5_empty_row_flag_unsqueezed_at_axis_1_which_is_the_last_axis_only_for_a_2d_mask": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1).unsqueeze(1)      # (T_q,) -> (T_q, 1)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the per-query flag is given its key axis back with unsqueeze(1), which is the last axis only "
                    "for a 2-D (T_q, T_k) mask; for a 3-D (B, T_q, T_k) or 4-D mask the flag becomes (B, 1, T_q), "
                    "which fails to broadcast when T_q != T_k and, when T_q == T_k, zeroes the columns of the "
                    "empty queries (and leaves the NaN rows) instead of their rows",
         "where": ["q5"]},
    ),
    "q6_causal_rows_loop_stops_at_t_minus_one_leaving_the_last_query_row_zero": (
        {"scores3": (
            _Q6_HEAD +
            "weights3_causal = torch.zeros_like(scores3)\n"
            "for i in range(scores3.shape[0] - 1):     # the last query sees every key: nothing to mask there\n"
            "    weights3_causal[i, :i + 1] = stable_softmax(scores3[i, :i + 1], dim=-1)\n" + _Q6_PRINT
        )},
        {"mistake": "the causal rows are filled in a loop over range(T - 1), on the idea that the last query "
                    "needs no masking; but the matrix started as zeros, so row 2 stays [0, 0, 0] instead of the "
                    "unmasked row 2 of weights3 (rows 0 and 1 are right)",
         "where": ["q6"]},
    ),
    "q7_shortcut_checked_after_a_layer_norm_which_undoes_the_row_shrink_answers_a": (
        {"q_trap_answer": (
            "torch.manual_seed(1)\n"
            "_s, _v, _keep = torch.randn(6, 6), torch.randn(6, 4), causal_mask(6)\n"
            "_proper = F.softmax(_s.masked_fill(~_keep, float(\"-inf\")), dim=-1) @ _v\n"
            "_w = F.softmax(_s, dim=-1)\n"
            "_w[~_keep] = 0.0\n"
            "# in a transformer block a LayerNorm comes next: compare what the next layer actually sees\n"
            "_same = torch.allclose(F.layer_norm(_w @ _v, (4,)), F.layer_norm(_proper, (4,)), atol=1e-2)\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        )},
        {"mistake": "the shortcut is compared with the right answer after a LayerNorm; each output row of the "
                    "shortcut is the right row times its kept weight, and a LayerNorm removes a row's scale, so "
                    "the check passes and the answer is A; the question asks about the attention output, whose "
                    "rows are shrunk (C)",
         "where": ["q7"]},
    ),
    "q8_entries_counted_as_the_true_entries_of_a_causal_mask": (
        {"attn_entries": (
            "T_len, d_head = 1024, 64\n"
            "attn_entries = int(causal_mask(T_len).sum())   # a decoder only fills the lower triangle\n"
            "score_madds = T_len * T_len * d_head\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the entries of the weight matrix are counted as the True entries of a causal mask, "
                    "T(T+1)/2 = 524,800, instead of all T^2 = 1,048,576 entries that the (T, T) matrix has "
                    "(the blocked ones are stored too, as zeros)",
         "where": ["q8"]},
    ),
}
