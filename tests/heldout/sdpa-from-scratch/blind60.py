"""Sixtieth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind59.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: a REWRITE THAT BROKE IT. Each wrong variant is a working version rewritten for speed,
memory or elegance, where the rewrite changed the result: the four per-sequence probes of q1 folded into one
matmul over all 40 tokens and viewed back, which keeps the out shape but gives every query 40 keys (q1); the
second "divide the scores" step fused into `torch.baddbmm` with the raw scores passed as its input and beta
left at its default 1, so the raw scores are added back (q2); the exponentials written with `out=` into the
shifted tensor to save an allocation, which autograd refuses, and the result written into an output buffer
cached by shape, so two calls of one shape share one tensor (q3); the arange/unsqueeze broadcast replaced by
materialised grids, with the query grid brought to (T_q, T_k) by `reshape` where a transpose was meant (q4);
the broadcast matmul replaced by bmm over a flattened batch, with a per-sequence mask tiled over the heads by
`repeat` instead of `repeat_interleave`, or flattened with `.view` after `expand` (which cannot merge a
stride-0 axis); the whole function decorated with `torch.inference_mode()` for speed; `~mask` cached by the
mask's shape; and the `mask.any(-1)` test for empty rows replaced by "key 0 is visible", which holds only for
causal and right-padded masks (q5); the trace's output computed in the column convention and laid back with
`.view` instead of a transpose, and its loop over keys vectorised by broadcasting with the values indexed by
the query axis (q6); the trap check cut down to the newest query's row, which no causal mask blocks (q7); the
multiply-add count read off NumPy's `einsum_path` report, a FLOP count printed to four digits (q8). The
correct variants are rewrites that did not break it: an in-place `exp_` on the fresh difference followed by an
out-of-place division; the transposed upper triangle of the (T_k, T_q) grid; bmm over a flattened broadcast
batch with `baddbmm(beta=0)` and the mask broadcast before it is reshaped; an einsum attention that upcasts
half types and computes the empty-row flags under `no_grad`; and q1/q2/q6/q7/q8 answered with meta-device
probes, `baddbmm(beta=0)`, a broadcast trace summed over the right axis, a full-matrix trap check and counts
from a helper.

Public material used (search tool):
- q5 (mask over heads): line/lighthouse#77 ("Fix 3D attn_mask head/batch layout ... repeat ->
  repeat_interleave": `.repeat(nhead, 1, 1)` tiles [M0, M1, M0, M1] where nn.MultiheadAttention wants
  batch-major [M0, M0, M1, M1], so heads use another sample's padding mask; identical at batch size 1),
  ArrowLuo/CLIP4Clip#22 (the same fix), reczoo/FuxiCTR#130 and junliu621/PPLM#6 (masks repeated to B * H),
  lsdefine/attention-is-all-you-need-keras#28/#36 (repeat_elements vs tile against the head-first reshape).
- q2 (baddbmm): huggingface/transformers#22575 (GPTBigCode's `torch.baddbmm(torch.empty(...), q, k, beta=0,
  alpha=scale)`, and a CPU fallback with zeros and beta=1), pytorch/pytorch#96086 and #194442 and
  apple/coremltools#1801 (beta=0 is what makes the input ignored), pytorch/pytorch#107221 (a user computing
  `a.baddbmm(q, k, beta=1.0, alpha=...)` as `1.0 * a + alpha * (q @ k)`: the input is added).
- q3 (out=): pytorch/pytorch#93683 and pytorch/xla#1585 ("functions with out=... arguments don't support
  automatic differentiation, but one of the arguments requires grad").
- q5 (inference_mode): pytorch/pytorch#161164, facebookresearch/dinov2#472, lucidrains/denoising-diffusion-
  pytorch#286, sgl-project/sglang-omni#1720 (an inference_mode decorator added for speed; "Inference tensors
  cannot be saved for backward", fixed by going back to no_grad or removing the decorator).
- q5 (mask cache): CanReader/FastNN#16 and NVIDIA-NeMo/Automodel#2982 (attention masks cached in a dict keyed
  by shape/geometry; what the key must include); the shape-only key here is the slip.
- q4, q6 (view vs transpose): stackoverflow.com/questions/51143206 ("Difference between tensor.permute and
  tensor.view": view reinterprets the data, permute moves it), spltech.co.uk on view() vs permute().
- q8: numpy.org einsum_path documentation and tutorialspoint's einsum_path article (the report prints a
  "Naive FLOP count" in %.3e form).
- q1, q5 (key 0), q6 (broadcast axis), q7: no outside source; they are the fold-the-batch, "padding comes
  last", loop-to-broadcast and "only the last token matters at generation" habits of the same tutorials.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5 and q6; a broken `stable_softmax` may cost q5 and q6, whose trace
calls it). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository: softmax
against `torch.softmax` on 1-D to 4-D inputs along every positive and negative axis in float64, float32,
float16 and bfloat16 (dtype kept), float16 logits in the thousands with -inf entries, two calls of one shape
held at once, and gradients; masks against `torch.ones(T_q, T_k).tril().bool()` for square and rectangular
sizes, with and without T_k; attention against `F.scaled_dot_product_attention` (fully masked rows set to zero)
on 3-D and 4-D inputs with T_q != T_k and d_v != d_k, no mask, a causal mask, a 2-D random mask, a batched
(B, H, T_q, T_k) random mask with a fully masked query, a (B, 1, T_q, T_k) mask shared by the heads and a
(B, 1, 1, T_k) padding mask, several masks of one shape in a row, in all four dtypes (dtype of the result
kept), float16 inputs with large scores, gradients against those of the reference, and the caller's inputs left
unchanged; all on the CPU (no GPU was used). Each variant's notebook was also run top to bottom (all code
cells but otter's). The correct ones run without an error and match full_marks' values; each wrong one
differs from the right answer (or raises) where the notebook's tests look, and only in its "where". None of
the wrong variants raises in the notebook itself.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_SOFTMAX_DOC = "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
_MASK_DOC = "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
_SDPA_DOC = (
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)
_SDPA_HEAD = "def scaled_dot_product_attention(Q, K, V, mask=None):\n" + _SDPA_DOC
_SDPA_BODY = (
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
)
_FLAT_HEAD = (
    _SDPA_HEAD +
    "    *lead, T_q, d_k = Q.shape\n"
    "    T_k, d_v = K.shape[-2], V.shape[-1]\n"
    "    # one bmm over a flattened batch instead of broadcasting matmuls\n"
    "    q = Q.reshape(-1, T_q, d_k)\n"
    "    k = K.reshape(-1, T_k, d_k)\n"
    "    v = V.reshape(-1, T_k, d_v)\n"
    "    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)\n"
)
_FLAT_TAIL = (
    "        scores = scores.masked_fill(~m, float(\"-inf\"))\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "        weights = torch.where(m.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
    "    else:\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "    return torch.bmm(weights, v).reshape(*lead, T_q, d_v)\n"
)
_TRACE_SCORES = (
    "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
    "weights3 = stable_softmax(scores3, dim=-1)\n"
)
_TRACE_CAUSAL = (
    "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
    "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
)

CORRECT = {
    "softmax_inplace_exp_on_the_fresh_difference_then_out_of_place_division": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    e = x - x.amax(dim=dim, keepdim=True)   # a fresh tensor nobody else holds\n"
            "    e.exp_()                                # in place on it: exp_ keeps its own output for backward\n"
            "    return e.div(e.sum(dim=dim, keepdim=True))   # out of place, so that output stays untouched\n"
        ),
    },
    "causal_mask_transposed_upper_triangle_of_the_keys_by_queries_grid": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    T_k = T_q if T_k is None else T_k\n"
            "    # on the (T_k, T_q) grid, key j / query i with i >= j is the upper triangle; transpose it back\n"
            "    return torch.ones(T_k, T_q, dtype=torch.bool).triu().T\n"
        ),
    },
    "sdpa_bmm_over_broadcast_flattened_batch_baddbmm_beta_zero_mask_broadcast_before_reshape": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    T_q, d_k = Q.shape[-2:]\n"
            "    T_k, d_v = K.shape[-2], V.shape[-1]\n"
            "    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])\n"
            "    q = Q.expand(*lead, T_q, d_k).reshape(-1, T_q, d_k)\n"
            "    k = K.expand(*lead, T_k, d_k).reshape(-1, T_k, d_k)\n"
            "    v = V.expand(*lead, T_k, d_v).reshape(-1, T_k, d_v)\n"
            "    # beta=0: the (uninitialised) input is ignored, only alpha * q k^T is kept\n"
            "    scores = torch.baddbmm(torch.empty(q.shape[0], T_q, T_k, dtype=q.dtype, device=q.device),\n"
            "                           q, k.transpose(1, 2), beta=0, alpha=1.0 / math.sqrt(d_k))\n"
            "    if mask is not None:\n"
            "        m = torch.broadcast_to(mask, (*lead, T_q, T_k)).reshape(-1, T_q, T_k)\n"
            "        scores = scores.masked_fill(~m, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = weights.masked_fill(~m.any(dim=-1, keepdim=True), 0.0)\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.bmm(weights, v).reshape(*lead, T_q, d_v)\n"
        ),
    },
    "sdpa_einsum_half_types_upcast_empty_row_flags_under_no_grad": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    out_dtype = Q.dtype\n"
            "    if out_dtype in (torch.float16, torch.bfloat16):\n"
            "        Q, K, V = Q.float(), K.float(), V.float()\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * (1.0 / math.sqrt(Q.shape[-1]))\n"
            "    if mask is not None:\n"
            "        with torch.no_grad():                 # booleans: nothing to differentiate here\n"
            "            blocked = ~mask.bool()\n"
            "            empty = blocked.all(dim=-1, keepdim=True)\n"
            "        scores = scores.masked_fill(blocked, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1).masked_fill(empty, 0.0)\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.einsum(\"...qk,...kd->...qd\", weights, V).to(out_dtype)\n"
        ),
    },
    "answers_meta_probes_baddbmm_variance_broadcast_trace_full_trap_check_cost_helper": {
        "weights_shape": (
            "_Qp = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_Kp = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_Vp = torch.empty(4, 10, 128, device=\"meta\")\n"
            "_Wp = torch.einsum(\"bqd,bkd->bqk\", _Qp, _Kp)\n"
            "weights_shape = tuple(int(n) for n in _Wp.shape)\n"
            "out_shape = tuple(int(n) for n in torch.einsum(\"bqk,bkv->bqv\", _Wp, _Vp).shape)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.transpose(1, 2))\n"
            "raw_score_var = float(raw_scores.var())\n"
            "_scaled = torch.baddbmm(torch.zeros_like(raw_scores), Q, K.transpose(1, 2), beta=0,\n"
            "                        alpha=1.0 / math.sqrt(d_k))\n"
            "scaled_score_var = float(_scaled.var())\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "weights3": (
            "scores3 = (Q3[:, None, :] * K3[None, :, :]).sum(dim=-1) / 2.0     # query i, key j, summed over d\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = (weights3[:, :, None] * V3[None, :, :]).sum(dim=1)         # sum over keys j of w[i, j] v[j]\n"
            "weights3_causal = stable_softmax(torch.where(causal_mask(3), scores3, float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "_g = torch.Generator().manual_seed(1)\n"
            "_scores = torch.randn(6, 6, generator=_g, dtype=torch.float64)\n"
            "_mask = causal_mask(6)\n"
            "_right = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
            "_short = F.softmax(_scores, dim=-1)\n"
            "_short[~_mask] = 0.0\n"
            "_lost = 1.0 - _short.sum(dim=-1)                 # the mass that was removed from each row\n"
            "# every row is the right one shrunk by exactly that mass: option C\n"
            "q_trap_answer = \"C\" if torch.allclose(_short, _right * (1.0 - _lost)[:, None]) else \"A\"\n"
        ),
        "attn_entries": (
            "def _madds(T, d):\n"
            "    return T * T * d              # T^2 dot products of length d\n"
            "\n"
            "attn_entries = 1024 * 1024\n"
            "score_madds = _madds(1024, 64)\n"
            "cost_ratio = _madds(2048, 64) // _madds(1024, 64)\n"
        ),
    },
}

WRONG = {
    "q1_probes_of_all_sequences_folded_into_one_matmul_and_viewed_back": (
        {"weights_shape": (
            "_Qp, _Kp, _Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "# one big matmul instead of a loop over the 4 sequences: fold the batch into the token axis\n"
            "_W = _Qp.reshape(-1, 64) @ _Kp.reshape(-1, 64).T       # (40, 40)\n"
            "_O = _W @ _Vp.reshape(-1, 128)                          # (40, 128)\n"
            "weights_shape = tuple(_W.view(4, 10, -1).shape)\n"
            "out_shape = tuple(_O.view(4, 10, -1).shape)\n"
        )},
        {"mistake": "the per-sequence probes are replaced by one matmul over the batch folded into the token "
                    "axis, so every query is scored against all 40 keys of the 4 sequences; viewed back, "
                    "weights_shape is (4, 10, 40) instead of (4, 10, 10) (out_shape happens to come out right)",
         "where": ["q1"]},
    ),
    "q2_scale_fused_into_baddbmm_with_the_raw_scores_as_input_and_beta_left_at_one": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "# fused: let baddbmm scale the product instead of dividing a second (2, 5, 5) tensor;\n"
            "# raw_scores is passed as the buffer to write into\n"
            "scaled_scores = torch.baddbmm(raw_scores, Q, K.transpose(-2, -1), alpha=1 / math.sqrt(d_k))\n"
            "scaled_score_var = scaled_scores.var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the division by sqrt(d_k) is fused into torch.baddbmm(raw_scores, Q, K^T, alpha=1/sqrt(d_k)) "
                    "with beta left at its default 1, so baddbmm returns raw + raw/sqrt(8) instead of "
                    "raw/sqrt(8): the first argument is added, not a buffer to write into, and "
                    "scaled_score_var is about 1.83 times the raw variance instead of an eighth of it",
         "where": ["q2"]},
    ),
    "q3_exponentials_written_with_out_into_the_shifted_tensor_break_autograd": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    torch.exp(shifted, out=shifted)          # reuse the buffer instead of allocating another tensor\n"
            "    return shifted / shifted.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the exponentials are written with out= into the shifted tensor to save an allocation; the "
                    "values are right, but out= functions do not support autograd, so as soon as the logits "
                    "require grad (and in the attention, whose gradients must reach Q, K and V) the call "
                    "raises a RuntimeError",
         "where": ["q3", "q5"]},
    ),
    "q3_result_written_into_an_output_buffer_cached_by_shape_and_reused_across_calls": (
        {"stable_softmax": (
            "_SOFTMAX_OUT = {}     # one output buffer per (shape, dtype, device), reused by every call\n"
            "\n"
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    key = (tuple(x.shape), x.dtype, x.device)\n"
            "    if key not in _SOFTMAX_OUT:\n"
            "        _SOFTMAX_OUT[key] = torch.empty_like(x)\n"
            "    return torch.div(exps, exps.sum(dim=dim, keepdim=True), out=_SOFTMAX_OUT[key])\n"
        )},
        {"mistake": "the result is written into an output buffer cached by shape, dtype and device, so every "
                    "call of the same shape returns the same tensor and overwrites what an earlier call "
                    "returned (the trace's weights3 turns into the causal weights), and out= makes the call "
                    "raise when the logits require grad",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_query_index_grid_reshaped_instead_of_transposed": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # both index grids written out in full instead of broadcasting two unsqueezed aranges\n"
            "    cols = torch.arange(T_k).expand(T_q, T_k)                      # key index of entry [i, j]\n"
            "    rows = torch.arange(T_q).expand(T_k, T_q).reshape(T_q, T_k)    # query index of entry [i, j]\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "the query-index grid is built as arange(T_q) repeated along the rows of a (T_k, T_q) grid "
                    "and brought to (T_q, T_k) with reshape where a transpose was needed, so entry [i, j] holds "
                    "(i * T_k + j) mod T_q instead of i: a square mask comes out all True and rectangular "
                    "masks are scrambled",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_per_sequence_mask_tiled_over_the_heads_with_repeat_not_repeat_interleave": (
        {"scaled_dot_product_attention": (
            _FLAT_HEAD +
            "    if mask is not None:\n"
            "        m = mask.reshape(-1, *mask.shape[-2:])\n"
            "        if m.shape[0] not in (1, scores.shape[0]):      # one mask per sequence, shared by its heads\n"
            "            m = m.repeat(scores.shape[0] // m.shape[0], 1, 1)\n"
            + _FLAT_TAIL
        )},
        {"mistake": "after folding (batch, heads) into one axis, a per-sequence mask such as (B, 1, T_q, T_k) or "
                    "a (B, 1, 1, T_k) padding mask is tiled with repeat, which lays the masks out "
                    "[M0, M1, M0, M1, ...] while the folded axis is batch-major [b0h0, b0h1, ...]; the heads of "
                    "one sequence get other sequences' masks (right only when the batch or the heads are 1)",
         "where": ["q5"]},
    ),
    "q5_expanded_mask_flattened_with_view_fails_when_shared_across_heads": (
        {"scaled_dot_product_attention": (
            _FLAT_HEAD +
            "    if mask is not None:\n"
            "        m = mask.expand(*lead, T_q, T_k).view(-1, T_q, T_k)     # no copy: a view of the expanded mask\n"
            + _FLAT_TAIL
        )},
        {"mistake": "the mask is broadcast with expand and flattened with view instead of reshape; an expanded "
                    "axis has stride 0 and cannot be merged with a real one, so a mask shared across the heads "
                    "but not the batch (e.g. (B, 1, T_q, T_k) or a (B, 1, 1, T_k) padding mask) raises "
                    "\"view size is not compatible with input tensor's size and stride\"",
         "where": ["q5"]},
    ),
    "q5_whole_function_decorated_with_inference_mode_for_speed": (
        {"scaled_dot_product_attention": (
            "@torch.inference_mode()          # no autograd bookkeeping: faster and lighter\n"
            + _SDPA_HEAD + _SDPA_BODY
        )},
        {"mistake": "the function is decorated with torch.inference_mode() to make it faster; the values are "
                    "right, but the output is an inference tensor with no graph behind it, so no gradient can "
                    "flow back to Q, K or V",
         "where": ["q5"]},
    ),
    "q5_inverted_mask_cached_by_shape_and_reused_for_a_different_mask": (
        {"scaled_dot_product_attention": (
            "_BLOCKED = {}       # ~mask per mask shape, so that a stack of layers does not recompute it\n"
            "\n"
            + _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        key = (tuple(mask.shape), mask.device)\n"
            "        if key not in _BLOCKED:\n"
            "            _BLOCKED[key] = mask.logical_not()\n"
            "        blocked = _BLOCKED[key]\n"
            "        scores = scores.masked_fill(blocked, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = ~blocked.all(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the inverted mask is cached in a module-level dict keyed only by the mask's shape and "
                    "device, so the first mask of a given shape is reused for every later mask of that shape: "
                    "a second, different mask (another padding pattern, a random mask after the causal one) "
                    "is silently ignored",
         "where": ["q5"]},
    ),
    "q5_empty_rows_detected_from_key_zero_alone_as_for_a_causal_mask": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        # cheaper than any() over all keys: a query that cannot see key 0 sees nothing\n"
            "        # (causal masks start at key 0, padding comes last)\n"
            "        has_key = mask[..., :1]\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the test for a query with no visible key is replaced by \"key 0 is masked\" (mask[..., :1]), "
                    "which holds for causal and right-padded masks only: with a general mask every query "
                    "whose key 0 is blocked but that sees other keys gets a zero output row",
         "where": ["q5"]},
    ),
    "q6_output_in_column_convention_laid_back_with_view_instead_of_transpose": (
        {"weights3": (
            _TRACE_SCORES +
            "# column form, o_i = V^T w_i for all queries at once, then back to one row per query\n"
            "out3 = (V3.T @ weights3.T).view(3, 2)\n"
            + _TRACE_CAUSAL
        )},
        {"mistake": "out3 is computed in the column convention V^T W^T (shape (2, 3)) and brought back to "
                    "(3, 2) with view, which re-reads the six numbers row by row instead of transposing, so "
                    "the entries of out3 are scrambled",
         "where": ["q6"]},
    ),
    "q6_output_loop_broadcast_with_the_values_indexed_by_the_query_axis": (
        {"weights3": (
            _TRACE_SCORES +
            "# sum_j w[i, j] * v[j] without a loop over i and j\n"
            "out3 = (weights3[:, :, None] * V3[:, None, :]).sum(dim=1)\n"
            + _TRACE_CAUSAL
        )},
        {"mistake": "the loop sum_j w[i, j] v[j] is vectorised with the values broadcast along the wrong axis "
                    "(V3[:, None, :], indexed by the query i, instead of V3[None, :, :]), so each row is "
                    "v_i times its weight sum, i.e. out3 equals V3",
         "where": ["q6"]},
    ),
    "q7_trap_checked_only_on_the_newest_querys_row_answers_a": (
        {"q_trap_answer": (
            "_g = torch.Generator().manual_seed(0)\n"
            "_scores = torch.randn(6, 6, generator=_g, dtype=torch.float64)\n"
            "_mask = causal_mask(6)\n"
            "# when generating, only the newest token's row is used: compare that row (6x cheaper)\n"
            "_right = stable_softmax(_scores[-1].masked_fill(~_mask[-1], float(\"-inf\")), dim=-1)\n"
            "_short = F.softmax(_scores[-1], dim=-1)\n"
            "_short[~_mask[-1]] = 0.0\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
        )},
        {"mistake": "the check of the classmate's shortcut is cut down to the last query's row, the one row a "
                    "causal mask never blocks; there nothing is zeroed, the two agree, and the answer is A "
                    "instead of C",
         "where": ["q7"]},
    ),
    "q8_madds_read_off_the_naive_flop_count_of_numpy_einsum_path": (
        {"attn_entries": (
            "import numpy as np\n"
            "\n"
            "T, d_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "# let NumPy count the cost of Q K^T instead of counting by hand\n"
            "_path, _report = np.einsum_path(\"qd,kd->qk\", np.empty((T, d_head)), np.empty((T, d_head)),\n"
            "                                optimize=False)\n"
            "score_madds = int(float(_report.split(\"Naive FLOP count:\")[1].split()[0]))\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "score_madds is read off the \"Naive FLOP count\" of np.einsum_path's report, which counts a "
                    "multiply and an add as two operations and prints the count to four significant digits "
                    "(1.342e+08), giving 134200000 instead of 1024 * 1024 * 64 = 67108864",
         "where": ["q8"]},
    ),
}
