"""Sixty-third blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind62.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: AN OPTIMISATION THAT CHANGED THE RESULT. In each wrong variant the student's first version
worked, and a rewrite meant to make it faster or leaner broke it in one place: the shapes answered for one
KV-cache decoding step, where a single new query meets the cached keys (q1); the scores divided in place with
`div_` to save a tensor, so the "raw" variance is taken after scaling (q2); a softmax that shifts, exponentiates
and divides the caller's own tensor in place, one that swaps `exp` for the cheaper `exp2` of the FlashAttention
/ Triton kernels without folding in log2(e), and one that shifts by a single global maximum to save the
per-slice reductions (q3); a causal triangle built once at the size of the first call and sliced afterwards
(nanoGPT's buffer without a maximum size), and a row `expand`ed instead of `repeat`ed and then cut with `tril_`
in place, which silently writes every row into the same memory (q4); the fused `torch.baddbmm` with the scale
passed as beta instead of alpha, the scale 1/sqrt(d_k) cached at module level from the first call, the
score/softmax work moved under `torch.no_grad()` to save the attention matrix's memory, and Q K^T computed in
float16 for speed and cast back (q5); the causal fill done in place with `masked_fill_` on the scores that the
unmasked weights are computed from afterwards (q6); the trap "checked" cheaply by comparing only the argmax of
the outputs, which the shortcut's row rescaling cannot change (q7); the weight-matrix entries counted as one
FlashAttention tile, since the fused kernel never holds the whole matrix (q8). The correct variants are the
same optimisations done right: `exp_` in place only on the fresh shifted tensor with the division out of place;
a causal mask cached per (T_q, T_k) with `functools.lru_cache` and cloned on the way out; K transposed once as a
view, the scale folded into Q and the fill done in place only on the function's own score tensor; half types
upcast for the softmax only and cast back; and the trace built once with einsum and a masked copy (not an in-place
fill) for the causal case, with q8 derived arithmetically.

Public material used (search tool):
- q1 (KV cache): saurabhiit2007/LLM-Inference-Speed docs/memory/kv_caching.md ("At decoding step t ... Only the
  current token requires new computation", softmax(Q_t K_{1:t}^T / sqrt(d_h))), a LLaMA decode-attention module
  ("single new token embedding x (batch, 1, dim) ... attends q against the full KV cache"), gziz/LLMs-from-scratch
  ch04/03_kv-cache diagrams (prefill vs cached step shapes).
- q2, q3 (in place), q6: pytorch/pytorch#957 and #4664 ("we don't recommend using in-place ops, unless you're aware
  of how the library works, and really want to squeeze out the last bits of perf"), the LLMs-from-scratch style
  `attn_scores.masked_fill_(...)  # New, _ ops are in-place` seen in a student's CausalAttention notes.
- q3 (exp2): the Triton fused-attention tutorial (openai/triton python/tutorials/06-fused-attention.py, as cited by
  geraldHoff/FlashAttention) and vllm's triton_flash_attention.py, whose kernels use exp2 with the scale
  multiplied by log2(e) = 1.44269504; a student who keeps the exp2 but drops the factor computes softmax(x ln 2).
- q3 (one max): the row-wise `torch.max(x, dim=-1, keepdim=True)` of the ref_softmax in Triton softmax tutorials,
  which the "one reduction is enough, any constant cancels" shortcut replaces by x.max().
- q4 (buffer): nanoGPT's `register_buffer("bias", torch.tril(torch.ones(block_size, block_size)))` sliced with
  `[:T, :T]` (ner9co/nanoGPT, priyangkarghosh/tllm, a block_size slicing snippet), here built lazily at the first
  call's size with no block_size bound.
- q4 (expand): pytorch/pytorch#4664 ("Bug in inplace operation after expansion"), #17185, #4718, #15358, #42726,
  #69204, torch7 distro#200 ("Using repeatTensor instead of expand fixes it, but I'd rather not have this extra
  memory cost"); the bool `tril_` on an expanded row does not raise here (torch 2.13, CPU) and leaves only column 0.
- q5 (baddbmm): the Megatron / BLOOM style `baddbmm(input, batch1, batch2, beta=..., alpha=1/norm_factor)` and the
  Tenstorrent bloom port `tt_baddbmm(..., beta=1.0, alpha=1.0)` ("out = beta * self + alpha * (batch1 @ batch2)").
- q5 (no_grad, float16): the notebook's own requirement that gradients reach Q, K and V; torch.autocast /
  `.half()` speed tips (the float16 product is a common "free speed-up" on GPUs).
- q7: the notebook's trap and the identity shortcut = (right weights) x (kept mass per row).
- q8: the FlashAttention tiling (BLOCK_M x BLOCK_N = 128 x 128 in the Triton and inductor-generated kernels found).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a broken
`stable_softmax` may also cost q5 and q6; a broken `causal_mask` q5 and q6).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository: softmax against
`torch.softmax` on 1-D to 4-D inputs along positive and negative axes in float64, float32, float16 and bfloat16
(dtype and shape kept, input left unchanged), float16 logits in the thousands, -inf entries, and gradients;
masks against `torch.ones(T_q, T_k).tril().bool()` for square and rectangular sizes (T_q above and below T_k),
with and without T_k, after the notebook had run; attention against `F.scaled_dot_product_attention` (in
float64, fully masked rows set to zero) on 3-D and 4-D inputs with T_q != T_k, d_v != d_k and d_k of 8, 16 and
64, with no mask, a causal mask, a 2-D random mask with a fully masked query and a (B, 1, T_k) padding mask, in
all four dtypes, float16 inputs with large scores, and gradients of Q, K and V against the reference's; the
answers of q1, q2, q6, q7 and q8 against the values from the notebook's formulas; all on the CPU (no GPU was
used). Each variant's notebook was run top to bottom (all code cells but otter's). None raises in the notebook.
The correct ones pass every check (their half-precision errors no larger than full_marks'); each wrong one
differs from the right answer where the notebook's tests look, and only in its "where". Caveats: the
global-max softmax differed only on float16 logits in the thousands (its q5 loss depends on the scores the
tests draw); the first-call mask buffer and the cached scale differ only once a later call is larger than, or
has another d_k than, the notebook's first call (causal_mask(6, 9), d_k = 16).

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

CORRECT = {
    "softmax_exp_in_place_on_the_fresh_shifted_buffer_division_out_of_place": {
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    # the memory tip done right: exp_ only touches the fresh tensor made by the subtraction, and the\n"
            "    # division is out of place, because exp's backward needs its own result unchanged\n"
            "    e = (x - x.amax(dim=dim, keepdim=True)).exp_()\n"
            "    return e / e.sum(dim=dim, keepdim=True)\n"
        ),
    },
    "causal_mask_lru_cached_per_shape_and_cloned_on_the_way_out": {
        "causal_mask": (
            "import functools\n"
            "\n"
            "\n"
            "@functools.lru_cache(maxsize=64)\n"
            "def _causal_mask_cached(T_q, T_k):\n"
            "    return torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
            "\n"
            "\n" +
            _MASK_HEAD +
            "    # cached per (T_q, T_k) pair; cloned so that a caller writing into it cannot spoil the cache\n"
            "    return _causal_mask_cached(T_q, T_q if T_k is None else T_k).clone()\n"
        ),
    },
    "sdpa_keys_transposed_once_scale_folded_into_queries_inplace_fill_on_fresh_scores": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    scale = 1.0 / math.sqrt(Q.size(-1))\n"
            "    k_t = K.mT                                   # transposed once, a view, no copy\n"
            "    scores = torch.matmul(Q * scale, k_t)        # (Q / sqrt(d_k)) K^T, a fresh tensor\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores), V)\n"
            "    if torch.broadcast_shapes(scores.shape, mask.shape) == scores.shape:\n"
            "        scores.masked_fill_(~mask, float(\"-inf\"))  # in place on our own tensor only\n"
            "    else:                                        # a mask with more batch axes than the scores\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores)\n"
            "    dead = ~mask.any(dim=-1, keepdim=True)\n"
            "    weights = weights.masked_fill(dead, 0.0)\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "sdpa_half_types_upcast_for_the_softmax_only_and_cast_back": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    work = torch.float32 if scores.dtype in (torch.float16, torch.bfloat16) else scores.dtype\n"
            "    scores = scores.to(work)\n"
            "    if mask is not None:\n"
            "        scores = torch.where(mask, scores, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, 0.0)\n"
            "    return torch.matmul(weights.to(V.dtype), V)\n"
        ),
    },
    "trace_scores_built_once_masked_copy_for_the_causal_case_answers_by_arithmetic": {
        "scores3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) / 2.0       # sqrt(4) = 2\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "# out of place: the unmasked scores3 stay as they are\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "attn_entries": (
            "T, d_k_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = attn_entries * d_k_head\n"
            "cost_ratio = (2 * T) ** 2 * d_k_head // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_shapes_taken_from_a_kv_cache_decoding_step_with_one_query": (
        {"weights_shape": (
            "# with a KV cache only the newest token is a query: Q is (4, 1, 64) against the 10 cached keys\n"
            "weights_shape = (4, 1, 10)\n"
            "out_shape = (4, 1, 128)\n"
        )},
        {"mistake": "the shapes are those of one KV-cache decoding step (a single new query against the 10 cached "
                    "keys) instead of the full self-attention asked about: the query axis has length 1, so the "
                    "weights are (4, 1, 10) instead of (4, 10, 10) and the output (4, 1, 128) instead of "
                    "(4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_scores_divided_in_place_so_the_raw_variance_is_taken_after_scaling": (
        {"d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "scaled_scores = raw_scores.div_(math.sqrt(d_k))   # in place: no second (2, 5, 5) tensor\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = scaled_scores.var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scores are divided in place (div_), so raw_scores itself is scaled before its variance is "
                    "taken: raw_score_var equals scaled_score_var, d_k = 8 times too small",
         "where": ["q2"]},
    ),
    "q3_shift_and_exp_done_in_place_on_the_callers_tensor": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    # no temporaries: shift and exponentiate the logits where they are\n"
            "    x.sub_(x.amax(dim=dim, keepdim=True)).exp_()\n"
            "    return x.div_(x.sum(dim=dim, keepdim=True))\n"
        )},
        {"mistake": "the shift and the exponential are done in place on the input x (sub_, exp_, div_): the caller's "
                    "logits are overwritten by the weights (and a leaf that requires grad raises), so the notebook's "
                    "scores3 are already softmaxed when the causal weights are computed from them",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_exp2_from_a_flash_attention_kernel_without_the_log2e_factor": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp2(shifted)        # exp2 is cheaper than exp on GPUs (as in the Triton kernels)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "exp is replaced by exp2 for speed, as in FlashAttention/Triton kernels, but without multiplying "
                    "the logits by log2(e) = 1.4427 first: it computes softmax(x * ln 2), a flatter distribution, "
                    "not softmax(x)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_one_global_max_instead_of_one_per_slice": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    # one reduction over the whole tensor instead of one per slice: any constant cancels anyway\n"
            "    shifted = x - x.max()\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the logits are shifted by the maximum of the whole tensor instead of each slice's own maximum: "
                    "a slice far below the global maximum underflows to all zeros and gives 0/0 = NaN (float16 "
                    "logits in the thousands, large float16 scores)",
         "where": ["q3", "q5"]},
    ),
    "q4_mask_buffer_built_once_for_the_first_shape_and_sliced_after": (
        {"causal_mask": (
            "_causal_buffer = None\n"
            "\n"
            "\n" +
            _MASK_HEAD +
            "    # nanoGPT-style: build the triangle once, then slice it on every later call\n"
            "    global _causal_buffer\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    if _causal_buffer is None:\n"
            "        _causal_buffer = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
            "    return _causal_buffer[:T_q, :T_k]\n"
        )},
        {"mistake": "the triangle is built once, at the size of the first call, and later calls only slice it (as "
                    "nanoGPT slices a block_size buffer, but without a maximum size): any later call larger than "
                    "the first in T_q or T_k gets a mask that is too small",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_row_expanded_instead_of_repeated_then_tril_in_place": (
        {"causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # expand is free (no copy), repeat allocates: use expand, then cut the triangle in place\n"
            "    mask = torch.ones(1, T_k, dtype=torch.bool).expand(T_q, T_k)\n"
            "    return mask.tril_()\n"
        )},
        {"mistake": "a single row is expanded (a zero-stride view, no copy) instead of repeated, then written in "
                    "place with tril_: every row is the same memory, so each row's zeroing hits all rows and the "
                    "mask comes out with only column 0 True (every query sees only key 0), silently, no error",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_baddbmm_with_the_scale_passed_as_beta_instead_of_alpha": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    T_q, T_k = Q.size(-2), K.size(-2)\n"
            "    shapes = [Q.shape[:-2], K.shape[:-2], V.shape[:-2]] + ([] if mask is None else [mask.shape[:-2]])\n"
            "    lead = torch.broadcast_shapes(*shapes)\n"
            "    q = Q.expand(*lead, T_q, d_k).reshape(-1, T_q, d_k)\n"
            "    k = K.expand(*lead, T_k, d_k).reshape(-1, T_k, d_k)\n"
            "    bias = torch.zeros(q.size(0), T_q, T_k, dtype=Q.dtype, device=Q.device)\n"
            "    if mask is not None:\n"
            "        m = mask.expand(*lead, T_q, T_k).reshape(-1, T_q, T_k)\n"
            "        bias = bias.masked_fill(~m, float(\"-inf\"))\n"
            "    # one fused kernel: bias + scaled product, as in Megatron's baddbmm attention\n"
            "    scores = torch.baddbmm(bias, q, k.transpose(1, 2), beta=1.0 / math.sqrt(d_k))\n"
            "    scores = scores.reshape(*lead, T_q, T_k)\n" +
            _SDPA_TAIL.replace("        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n", "")
        )},
        {"mistake": "the fused torch.baddbmm is given the scale 1/sqrt(d_k) as beta (the factor of the added bias) "
                    "instead of alpha (the factor of the product), so the scores are never scaled: softmax(Q K^T) V",
         "where": ["q5"]},
    ),
    "q5_scale_cached_at_module_level_from_the_first_call": (
        {"scaled_dot_product_attention": (
            "_inv_sqrt_dk = None\n"
            "\n"
            "\n" +
            _SDPA_HEAD +
            "    global _inv_sqrt_dk\n"
            "    if _inv_sqrt_dk is None:              # computed once, reused by every later call\n"
            "        _inv_sqrt_dk = 1.0 / math.sqrt(Q.size(-1))\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * _inv_sqrt_dk\n" +
            _SDPA_TAIL
        )},
        {"mistake": "the scale 1/sqrt(d_k) is cached in a module-level variable on the first call and reused: every "
                    "later call whose head width differs from the first one's (d_k = 16 in the notebook's comparison "
                    "cell) is scaled with the wrong d_k",
         "where": ["q5"]},
    ),
    "q5_scores_and_weights_under_no_grad_to_save_memory": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    # no autograd graph for the (T_q, T_k) matrices: they are the memory hog\n"
            "    with torch.no_grad():\n"
            "        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "        if mask is not None:\n"
            "            scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "            weights = stable_softmax(scores, dim=-1)\n"
            "            weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "        else:\n"
            "            weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scores and the softmax are computed under torch.no_grad() to save the memory of the "
                    "attention matrix: the values are right, but no gradient reaches Q or K (only V gets one)",
         "where": ["q5"]},
    ),
    "q5_scores_computed_in_float16_for_speed_then_cast_back": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    # the QK^T product in half precision is much faster; cast back afterwards\n"
            "    scores = (torch.matmul(Q.half(), K.half().transpose(-2, -1)) / math.sqrt(d_k)).to(Q.dtype)\n" +
            _SDPA_TAIL
        )},
        {"mistake": "Q K^T is computed in float16 for speed and cast back to the input dtype: float32 and float64 "
                    "results carry float16 rounding errors (about 1e-3 relative) and bfloat16 values beyond "
                    "float16's range overflow, so the result no longer matches the reference to the input's precision",
         "where": ["q5"]},
    ),
    "q6_causal_scores_filled_in_place_before_the_unmasked_weights": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "# fill in place instead of copying the 3x3 scores for the causal case\n"
            "weights3_causal = stable_softmax(scores3.masked_fill_(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the causal mask is applied with masked_fill_ in place on scores3, which is then reused for the "
                    "unmasked weights: weights3 comes out equal to the causal weights, and out3 is computed from "
                    "them",
         "where": ["q6"]},
    ),
    "q7_trap_checked_by_comparing_the_argmax_of_the_outputs_answers_a": (
        {"q_trap_answer": (
            "# cheap check: do both versions pick the same largest feature for every query?\n"
            "_s = scores3\n"
            "_w_trap = torch.exp(_s - _s.amax(-1, keepdim=True))\n"
            "_w_trap = _w_trap / _w_trap.sum(-1, keepdim=True)\n"
            "_w_trap = _w_trap.masked_fill(~causal_mask(3), 0.0)\n"
            "_w_ref = stable_softmax(_s.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "_same = torch.equal((_w_trap @ V3).argmax(-1), (_w_ref @ V3).argmax(-1))\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        )},
        {"mistake": "the shortcut is checked by comparing only the argmax of each output row, which a positive "
                    "rescaling of the row cannot change (the shortcut's rows are the right rows times the kept "
                    "weight), so the check passes and the answer is A instead of C",
         "where": ["q7"]},
    ),
    "q8_entries_counted_as_one_flash_attention_tile": (
        {"attn_entries": (
            "# FlashAttention never materialises the whole matrix: it holds one BLOCK_M x BLOCK_N tile of scores\n"
            "BLOCK_M, BLOCK_N = 128, 128\n"
            "attn_entries = BLOCK_M * BLOCK_N\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the entries are counted as one FlashAttention tile (128 x 128 = 16384 scores held at a time) "
                    "instead of the whole T x T = 1024^2 = 1048576 entries of the attention-weight matrix",
         "where": ["q8"]},
    ),
}
