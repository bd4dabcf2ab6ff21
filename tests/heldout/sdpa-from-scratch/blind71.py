"""Seventy-first blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind70.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: MEMORY- AND SPEED-CONSCIOUS CODE. The cells are written as if every tensor were huge:
in-place operations, preallocated buffers, views instead of copies, half precision, work in chunks, constants
cached in defaults. Each wrong variant hides one slip of that kind: an output buffer preallocated with
`torch.empty_like(Q)` as in fused-attention kernels (q1); the raw scores divided in place before their variance is
read, and a scale cached from the example head and reused for d_k = 64 (q2); a softmax that shifts and
exponentiates the caller's tensor in place, and one that does `exp_()` then `div_()` in place so that backward
fails with "modified by an inplace operation" (q3); a causal mask cut from a square of the longer length with
`narrow` at the bottom-right corner, as in a KV-cache decode (q4); a query-chunked attention whose loop drops the
last partial chunk of a `torch.empty` output, scores and softmax computed in float16 "to halve memory", a
1/sqrt(d_k) frozen in a default argument from the notebook's d_k, and the caller's mask inverted in place with
`logical_not_()` (q5); the causal weights renormalised in place on an alias of weights3, and scores3 filled in
place for the causal case before the unmasked weights are taken (q6); answer A for "in place after the softmax is
the same and cheaper" (q7); the weight matrix counted in bytes of float32 instead of entries (q8). The correct
variants are memory-conscious and right: in-place work only on fresh tensors (with out-of-place steps where
autograd needs the saved value), a mask built by `tril_()` on a fresh tensor or cached per shape and cloned on
the way out, and an attention whose in-place fills run on its own fresh scores.

Public material used (search tool):
- q4: Dao-AILab/flash-attention#517, #1778 and #402 (flash-attn 2.1 aligns the causal mask at the bottom right
  when seqlen_q != seqlen_k, "the same as Torch SDP and xformers" used to be top-left), triton-lang/triton#2033
  (the KV-longer-than-Q causal pattern).
- q3 / q5 (in-place on tensors autograd saved: "one of the variables needed for gradient computation has been
  modified by an inplace operation"; in-place on a leaf that requires grad), q1 (`o = torch.empty_like(q)` in
  fused-attention kernels assumes d_v == d_k), q5 (float16 scores and softmax, default-argument caching) are the
  habits named in this round's brief.

How the variants were checked: a throwaway script under /tmp/w71-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's
formulas on 3-D and 4-D shapes, T_q != T_k, d_v != d_k, 2-D and broadcast masks, fully masked rows, large float16
logits, float64 / float32 / float16 / bfloat16, gradients, repeated calls with the same mask, and whether the
inputs are left unchanged. The correct variants match everywhere; each wrong one differs where its "where" says
and nowhere else.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points.
"""

_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)

CORRECT = {
    "inplace_steps_on_fresh_tensors_exp_in_place_division_out_of_place": {
        "weights_shape": (
            "# Shapes from meta tensors: no memory is allocated for the probe.\n"
            "_q = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_v = torch.empty(4, 10, 128, device=\"meta\")\n"
            "_w = _q @ _q.transpose(-2, -1)\n"
            "weights_shape = tuple(int(n) for n in _w.shape)\n"
            "out_shape = tuple(int(n) for n in (_w @ _v).shape)\n"
            "del _q, _v, _w\n"
        ),
        "d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled = raw_scores.clone()          # own copy, so dividing in place leaves raw_scores alone\n"
            "scaled.div_(math.sqrt(d_k))\n"
            "scaled_score_var = scaled.var().item()\n"
            "del scaled\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax along `dim`; the shift makes a fresh tensor, so the in-place exp touches no input.\"\"\"\n"
            "    e = x - x.amax(dim=dim, keepdim=True)   # fresh buffer\n"
            "    e.exp_()                                 # in place on our own buffer\n"
            "    return e / e.sum(dim=dim, keepdim=True)  # out of place: exp_ saved e for backward\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where key j <= query i (top-left aligned).\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return torch.ones(T_q, T_k, dtype=torch.bool).tril_()\n"
        ),
    },
    "attention_in_place_on_its_own_scores_mask_cache_cloned_trace_on_a_clone": {
        "causal_mask": (
            "_CAUSAL_CACHE = {}\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where key j <= query i; built once per shape.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    key = (T_q, T_k)\n"
            "    if key not in _CAUSAL_CACHE:\n"
            "        _CAUSAL_CACHE[key] = torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]\n"
            "    return _CAUSAL_CACHE[key].clone()   # a copy: callers may fill it in place\n"
        ),
        "scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1))   # fresh tensor, ours to overwrite\n"
            "    scores.div_(math.sqrt(d_k))\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    blocked = ~mask\n"
            "    if torch.broadcast_shapes(blocked.shape, scores.shape) == scores.shape:\n"
            "        scores.masked_fill_(blocked, float(\"-inf\"))\n"
            "    else:\n"
            "        scores = scores.masked_fill(blocked, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    del scores\n"
            "    empty = ~mask.any(dim=-1, keepdim=True)\n"
            "    weights = weights.masked_fill(empty, 0.0)\n"
            "    return torch.matmul(weights, V)\n"
        ),
        "scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_masked = scores3.clone()\n"
            "_masked.masked_fill_(~causal_mask(3), float(\"-inf\"))\n"
            "weights3_causal = stable_softmax(_masked, dim=-1)\n"
            "del _masked\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "scale_folded_into_a_scaled_copy_of_q_where_on_empty_rows": {
        "scaled_dot_product_attention": _SDPA_HEAD + (
            "    Qs = Q * (1.0 / math.sqrt(Q.size(-1)))   # a scaled copy; the caller's Q is untouched\n"
            "    scores = Qs @ K.transpose(-2, -1)\n"
            "    del Qs\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, weights.new_zeros(()))\n"
            "    return weights @ V\n"
        ),
        "attn_entries": (
            "T, d = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = T * T * d\n"
            "cost_ratio = ((2 * T) * (2 * T) * d) // score_madds\n"
            "del T, d\n"
        ),
        "q_trap_answer": (
            "# Zeroing after the softmax keeps the removed mass out of the row sum: rows shrink.\n"
            "q_trap_answer = \"C\"\n"
        ),
    },
    "softmax_every_step_out_of_place_shapes_from_buffers_sized_from_v": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax along `dim` with the max subtracted; every step out of place.\"\"\"\n"
            "    m = x.max(dim=dim, keepdim=True).values\n"
            "    num = torch.sub(x, m)           # new tensor\n"
            "    num = num.exp()                 # kept out of place: backward needs it untouched\n"
            "    den = num.sum(dim=dim, keepdim=True)\n"
            "    return num.div(den)\n"
        ),
        "weights_shape": (
            "# Preallocate the buffers a kernel would need, sized from V for the output.\n"
            "_Vp = torch.empty(4, 10, 128)\n"
            "_w_buf = torch.empty(4, 10, 10)\n"
            "_o_buf = torch.empty_like(_Vp)\n"
            "weights_shape = tuple(_w_buf.shape)\n"
            "out_shape = tuple(_o_buf.shape)\n"
            "del _Vp, _w_buf, _o_buf\n"
        ),
    },
}

WRONG = {
    "q1_out_shape_from_an_output_buffer_preallocated_with_empty_like_q": (
        {"weights_shape": (
            "# Preallocate like a fused kernel does: scores (T_q, T_k), output buffer like the queries.\n"
            "_Qp = torch.empty(4, 10, 64)\n"
            "_Kp = torch.empty(4, 10, 64)\n"
            "_w_buf = torch.empty(*_Qp.shape[:-1], _Kp.shape[-2])\n"
            "_o_buf = torch.empty_like(_Qp)\n"
            "weights_shape = tuple(_w_buf.shape)\n"
            "out_shape = tuple(_o_buf.shape)\n"
            "del _Qp, _Kp, _w_buf, _o_buf\n"
        )},
        {"mistake": "the output buffer is preallocated with torch.empty_like(Q), as fused attention kernels do when "
                    "d_v == d_k, so out_shape is (4, 10, 64) instead of (4, 10, 128); weights_shape is right",
         "where": ["q1"]},
    ),
    "q2_raw_scores_divided_in_place_before_their_variance_is_read": (
        {"d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "scaled_scores = raw_scores.div_(math.sqrt(d_k))   # no extra (2, 5, 5) copy\n"
            "scaled_score_var = scaled_scores.var().item()\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scores are divided by sqrt(d_k) in place (div_) to save a copy, and raw_score_var is read "
                    "afterwards from the same tensor, so it equals the scaled variance (about 8 times too small); "
                    "scaled_score_var and scale_divisor are right",
         "where": ["q2"]},
    ),
    "q2_scale_divisor_reused_from_the_scale_cached_for_the_example_head": (
        {"d_k": (
            "d_k = Q.shape[-1]\n"
            "_SCALE = math.sqrt(d_k)      # computed once, reused below\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / _SCALE).var().item()\n"
            "scale_divisor = _SCALE\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scale sqrt(d_k) is computed once for the example's d_k = 8 and cached, and scale_divisor "
                    "is that cached value, sqrt(8) = 2.83, instead of sqrt(64) = 8 for the head asked about",
         "where": ["q2"]},
    ),
    "q3_sub_and_exp_in_place_overwrite_the_input_scores_reused_by_q6": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax along `dim`, without allocating a shifted copy of x.\"\"\"\n"
            "    x.sub_(x.max(dim=dim, keepdim=True).values)\n"
            "    x.exp_()\n"
            "    return x / x.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the max is subtracted and the exponential taken in place on the caller's tensor (sub_, exp_), "
                    "so the returned weights are right but the input logits are overwritten with the "
                    "exponentials (and a leaf that requires grad raises); in q6 scores3 is ruined before the "
                    "causal weights are taken from it",
         "where": ["q3", "q6"]},
    ),
    "q3_exp_then_division_both_in_place_breaks_backward": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax along `dim`: one buffer for the shift, exp and normalisation.\"\"\"\n"
            "    out = x - x.max(dim=dim, keepdim=True).values\n"
            "    out.exp_()\n"
            "    out.div_(out.sum(dim=dim, keepdim=True))\n"
            "    return out\n"
        )},
        {"mistake": "exp_ and then div_ are both done in place on one buffer: the values are right, but exp_ "
                    "saved its result for backward and div_ overwrites it, so any backward pass raises 'one of "
                    "the variables needed for gradient computation has been modified by an inplace operation'",
         "where": ["q3", "q5"]},
    ),
    "q4_square_mask_of_the_longer_length_narrowed_at_the_bottom_right": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask: one square triangle, cut down with views (no copy).\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    n = max(T_q, T_k)\n"
            "    full = torch.ones(n, n, dtype=torch.bool).tril_()\n"
            "    # the newest queries sit at the end, as in a KV cache\n"
            "    return full.narrow(0, n - T_q, T_q).narrow(1, n - T_k, T_k)\n"
        )},
        {"mistake": "the triangle of the longer length is cut with narrow from its last rows and columns, which "
                    "aligns the mask at the bottom right (the KV-cache / flash-attn convention): right when "
                    "T_q == T_k, but with T_q < T_k every query sees T_k - T_q extra keys, and with T_q > T_k "
                    "the first queries see none",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_query_chunks_loop_drops_the_last_partial_chunk_of_an_empty_buffer": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    T_q = Q.size(-2)\n"
            "    CHUNK = 4   # queries per block: the (chunk, T_k) scores never exceed a small buffer\n"
            "    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])\n"
            "    out = torch.empty(*lead, T_q, V.size(-1), dtype=V.dtype, device=V.device)\n"
            "    for start in range(0, T_q // CHUNK * CHUNK, CHUNK):\n"
            "        q = Q[..., start:start + CHUNK, :]\n"
            "        scores = torch.matmul(q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "        if mask is not None:\n"
            "            m = mask[..., start:start + CHUNK, :] if mask.size(-2) > 1 else mask\n"
            "            scores = scores.masked_fill(~m, float(\"-inf\"))\n"
            "            weights = stable_softmax(scores, dim=-1)\n"
            "            weights = torch.where(m.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "        else:\n"
            "            weights = stable_softmax(scores, dim=-1)\n"
            "        out[..., start:start + CHUNK, :] = torch.matmul(weights, V)\n"
            "    return out\n"
        )},
        {"mistake": "the queries are processed in blocks of 4 into a torch.empty output, but the loop stops at "
                    "T_q // 4 * 4, so when T_q is not a multiple of 4 the last partial block is never computed "
                    "and those output rows are whatever the uninitialised buffer held",
         "where": ["q5"]},
    ),
    "q5_scores_and_softmax_in_float16_to_halve_memory": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    # the (T_q, T_k) scores are the big tensor: keep them in half precision\n"
            "    scores = torch.matmul(Q.half(), K.half().transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights.to(V.dtype), V)\n"
        )},
        {"mistake": "the scores and the softmax are computed in float16 'to halve memory' whatever the input "
                    "dtype, and only the weights are cast back: float32/float64 results are off by about 1e-3 "
                    "(float16 rounding) and large scores lose their precision",
         "where": ["q5"]},
    ),
    "q5_scale_frozen_in_a_default_argument_from_the_notebooks_d_k": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None, _inv_scale=1.0 / math.sqrt(d_k)):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    The constant 1/sqrt(d_k) is computed once, at definition time, not on every call.\n"
            "    \"\"\"\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * _inv_scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "1/sqrt(d_k) is cached in a default argument, evaluated once from the notebook's global "
                    "d_k = 8, so every call scales by 1/sqrt(8) whatever the head width of Q: right only "
                    "when d_k is 8",
         "where": ["q5"]},
    ),
    "q5_callers_mask_inverted_in_place_with_logical_not": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        blocked = mask.logical_not_()      # flip in place: no second (T_q, T_k) mask\n"
            "        scores = scores.masked_fill(blocked, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the mask is inverted in place with logical_not_() to avoid a copy, so the first call's output "
                    "is right but the caller's mask is left inverted: a second call (or a reference computed "
                    "afterwards) with the same mask sees the opposite mask",
         "where": ["q5"]},
    ),
    "q6_causal_weights_renormalised_in_place_on_an_alias_of_weights3": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# causal: zero the future and renormalise, reusing the weights we already have\n"
            "weights3_causal = weights3\n"
            "weights3_causal.masked_fill_(~causal_mask(3), 0.0)\n"
            "weights3_causal /= weights3_causal.sum(dim=-1, keepdim=True)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "weights3_causal is the same tensor as weights3 (an alias, not a copy), and zeroing and "
                    "renormalising it in place also turns weights3 into the causal weights; weights3_causal and "
                    "out3 (computed before) are right, weights3 is wrong",
         "where": ["q6"]},
    ),
    "q6_scores3_filled_in_place_for_the_causal_case_before_the_unmasked_weights": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "scores3.masked_fill_(~causal_mask(3), float(\"-inf\"))   # fill in place, no copy\n"
            "weights3_causal = stable_softmax(scores3, dim=-1)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the causal fill is done in place on scores3 before the unmasked weights are taken from it, so "
                    "weights3 is the causal weights too and out3 the causal output; weights3_causal is right",
         "where": ["q6"]},
    ),
    "q7_answer_a_zeroing_in_place_after_the_softmax_taken_as_equivalent_and_cheaper": (
        {"q_trap_answer": (
            "# e^-inf is 0, so a blocked key ends with weight 0 either way; zeroing in place after the\n"
            "# softmax just skips the -inf copy of the scores.\n"
            "q_trap_answer = \"A\"\n"
        )},
        {"mistake": "answers A: zeroing after the softmax is taken as the same as a -inf fill before it (only "
                    "cheaper), missing that the kept weights then no longer sum to 1; the right answer is C",
         "where": ["q7"]},
    ),
    "q8_attn_entries_counted_in_bytes_of_float32": (
        {"attn_entries": (
            "T, d_k_head = 1024, 64\n"
            "BYTES = torch.finfo(torch.float32).bits // 8\n"
            "attn_entries = T * T * BYTES   # what the weight matrix occupies\n"
            "score_madds = T * T * d_k_head\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "attn_entries is given as the memory of the float32 weight matrix, T * T * 4 bytes = "
                    "4194304, instead of the number of entries T * T = 1048576; score_madds and cost_ratio "
                    "are right",
         "where": ["q8"]},
    ),
}
