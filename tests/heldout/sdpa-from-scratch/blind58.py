"""Fifty-eighth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind57.py in full (for the format), only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form), and
a glance at lesson-80's causal-mask trace. The grader was not run on this set.

This round's focus: a statement READ DIFFERENTLY, the student doing consistently what another convention
says. The output of q1 probed in the column-vector convention, O = V^T W^T, and not turned back into one row
per query; the sum "from i = 1 to d_k" typed as range(1, d_k), and the batch axis of the (2, 5, 8) example read
as heads so the scores are divided by sqrt(heads * d_k) (q2); "float16 logits in the thousands" read as "do it in
float64" with no cast back, and the exponential read as a power of ten (q3); TensorFlow's
band_part(ones, num_lower, num_upper) ported with its two band arguments the other way round (q4); inputs read
as sequence-first (T, B, d), the nn.MultiheadAttention default, and swapped to batch-first; scores kept
keys-by-queries (column convention) but masked with the untransposed (T_q, T_k) mask; the log2(e) factor of
the fused exp2 kernels folded into the scale in front of a natural-exp softmax; an additive 0/-inf mask
subtracted instead of added (q5); Q^T K of the column-vector formula put on the row-per-token Q3, and the text's
"scale divisor 2" used as d_k and rooted again (q6); the trap tried with a padding mask that pads nothing
instead of the causal mask (q7); "multiply-adds" counted as exact FLOPs, d_k multiplies plus d_k - 1 adds (q8).
The correct variants are the same readings carried out right: a softmax normalised by the L1 vector norm of its
exponentials; a mask from band_part(ones, -1, 0); an attention kept keys-by-queries with the mask transposed and
the softmax over dim -2; an attention with log2(e) folded into the scale and an exp2 softmax (half types in
float32, cast back); and q1/q2/q6/q7/q8 in the column convention transposed back, the dot product summed from
index 0, the trace computed keys-by-queries and transposed, the trap tried on the causal mask, and the exact
FLOP count turned back into multiply-adds.

Public material used (search tool):
- q1, q5, q6 (column vs row vectors): everythingmeknows.neocities.org/attention-notes.html writes attention
  for column vectors, (W_v x)^T softmax((W_q x)^T (W_k x)), a q^T k form; fleuret.org's tex notes (K = W^K X,
  "softmax_row") mix column-stacked inputs with a row softmax; the row-per-token form the notebook uses is
  the one in Fangzhou-Code/Learn_AI self_attention.py (`Query @ Key.T`) and ardbytes/llm_from_scratch
  ch3/README.md (`a = q @ k.T; c = w @ v`).
- q2: the notebook's own sum_{i=1}^{d_k}; the matrix-product pages in huggingface.co/datasets/nvidia/
  Nemotron-CC-Math-v1 write c_ij = sum_{k=1}^{n} a_ik b_kj in the same 1-based way. Heads vs batch: an excerpt
  laying out Q, K, V as [batch_size, num_heads, seq_len, d_k] with d_model the total width, and
  bangbv/AlgorithmInPython representations/embeddings/cross_attention.py (`dk = d_model  # one head`).
- q3: the notebook's float16 warning read as "use more precision"; base ten vs e: the Semantic DB "Softmax and
  Log" post in Nemotron-CC-Math-v1 (log defaults to base e, log[10] on request) and acherrera/nnfs_follow_along
  ("y=e^x where e is euler's number") show the base has to be stated; weak evidence, a calculator habit.
- q4: BinhMinhs10/transformers_onnx transformer_tf_translation/ahead_mask.py, cimat-ris/TF-PathPred
  tools/transformer/masking.py and enuguru/GenAI .../chapter_19/04_lookahead.py all build
  `1 - tf.linalg.band_part(tf.ones((size, size)), -1, 0)`; another excerpt writes
  `band_part(ones, 0, -1) - band_part(ones, 0, 0)` for the upper triangle: the two band arguments decide
  which triangle survives.
- q5 (sequence-first): pytorch/pytorch#63560 ("Why is the sequence dimension before batch size dimension for
  nn.MultiheadAttention"), jadore801120/attention-is-all-you-need-pytorch#179, karttikeya/minREV#4 (an (N, L, E)
  tensor fed to a batch_first=False module), NVIDIA/TransformerEngine#195 (`query.transpose(0, 1)` before bmm).
- q5 (log2 e): Triton fused-attention kernels and their ports (vllm-project/vllm
  vllm/attention/ops/triton_flash_attention.py; find_string hits of `qk_scale = sm_scale * 1.44269504  #
  1/log(2)`), which multiply the scale by log2(e) because they exponentiate with exp2.
- q5 (additive mask): atikul-islam-sajib/TransformerScratch src/mask.py (`torch.where(mask == 0.0,
  float("-inf"), mask)`), niujiazhen/happy-llm docs/chapter2/code/maskSelfAttention.py (`scores + mask` with a
  triu -inf matrix): the 0/-inf bias is added; the subtraction is the "take the penalty off" habit.
- q7: the TensorFlow transformer tutorial notebooks that define create_padding_mask next to
  create_look_ahead_mask, and makeesyai/makeesy-deep-learning self_attention/create_atten_mask_encoder.py vs
  NHMDenmark/HTROCR htr_tests/test.py (padding masks built both ways): a padding mask is the other mask a
  student has at hand, and with no padding it is all True.
- q8: the "Why does n x n matrix multiplication take 2n^3 operations?" pages in Nemotron-CC-Math-v1: "n
  multiplications and n - 1 additions ... n^2 (2n - 1)".

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5 and q6; a broken `stable_softmax` may cost q5 and q6, whose trace
calls it). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository: softmax
against `torch.softmax` on 1-D to 4-D inputs along every positive and negative axis in float64, float32,
float16 and bfloat16 (dtype kept), float16 logits in the thousands with -inf entries; masks against
`torch.ones(T_q, T_k).tril().bool()` for square and rectangular sizes, with and without T_k; attention against
`F.scaled_dot_product_attention` in float64 (fully masked rows set to zero) on 3-D and 4-D inputs with
T_q != T_k and d_v != d_k, d_k in {8, 16, 64}, no mask, a causal mask and a random batched mask with a fully
masked query, in all four dtypes, float16 inputs with large scores, and gradients; all on the CPU (no GPU
was used). Each variant's notebook was also run top to bottom (all code cells but otter's). The correct ones
run without an error and match full_marks' values; each wrong one differs from the right answer (or raises)
where the notebook's tests look, and only in its "where". The crashing ones: q6's Q3.T @ K3 raises in its own
cell (4x4 weights @ 3x2 V3); q3's float64 softmax and q5's untransposed mask on the rectangular example raise
in the unscored comparison cell after q5 as well as in the attention tests.

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
_BAND_PART = (
    "def _band_part(x, num_lower, num_upper):\n"
    "    \"\"\"torch port of tf.linalg.band_part: keep the entries at most num_lower below and num_upper\n"
    "    above the diagonal (a negative number keeps that whole triangle), zero the rest.\"\"\"\n"
    "    rows = torch.arange(x.shape[-2]).unsqueeze(1)\n"
    "    cols = torch.arange(x.shape[-1]).unsqueeze(0)\n"
    "    keep = torch.ones(x.shape[-2], x.shape[-1], dtype=torch.bool)\n"
    "    if num_lower >= 0:\n"
    "        keep = keep & (rows - cols <= num_lower)\n"
    "    if num_upper >= 0:\n"
    "        keep = keep & (cols - rows <= num_upper)\n"
    "    return torch.where(keep, x, torch.zeros_like(x))\n"
    "\n"
)
_TRAP_SCORES = (
    "_g = torch.Generator().manual_seed(0)\n"
    "_scores = torch.randn(4, 4, generator=_g, dtype=torch.float64)\n"
)
_TRAP_TAIL = (
    "_right = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
    "_short = F.softmax(_scores, dim=-1)          # the classmate's lines\n"
    "_short[~_mask] = 0.0\n"
    "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
)
_Q2_TAIL = (
    "raw_score_var = raw_scores.var().item()\n"
    "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
    "scale_divisor = math.sqrt(64)\n"
    "print(raw_score_var, scaled_score_var, scale_divisor)\n"
)
_Q6_TAIL = (
    "weights3 = stable_softmax(scores3, dim=-1)\n"
    "out3 = weights3 @ V3\n"
    "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
    "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
)
_SDPA_MASKED_TAIL = (
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "        has_key = mask.any(dim=-1, keepdim=True)\n"
    "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
    "    else:\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
)

CORRECT = {
    "softmax_amax_shift_exponentials_l1_normalised_by_vector_norm": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    e = (x - torch.amax(x, dim=dim, keepdim=True)).exp()\n"
            "    # every exponential is >= 0, so the L1 norm along dim is their sum\n"
            "    return e / torch.linalg.vector_norm(e, ord=1, dim=dim, keepdim=True)\n"
        ),
    },
    "mask_from_tensorflow_band_part_ported_with_lower_band_kept": {
        "causal_mask": (
            _BAND_PART +
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # tf.linalg.band_part(ones, -1, 0): the whole lower triangle, nothing above the diagonal\n"
            "    return _band_part(torch.ones(T_q, T_k), -1, 0).bool()\n"
        ),
    },
    "sdpa_keys_by_queries_layout_with_the_mask_transposed_softmax_over_dim_minus_two": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    T_q, T_k = Q.shape[-2], K.shape[-2]\n"
            "    # column convention: one column of scores per query, (..., T_k, T_q)\n"
            "    scores = torch.matmul(K, Q.transpose(-2, -1)) / math.sqrt(Q.shape[-1])\n"
            "    if mask is not None:\n"
            "        full = torch.broadcast_shapes(mask.shape, (*scores.shape[:-2], T_q, T_k))\n"
            "        mask_kq = mask.expand(full).transpose(-2, -1)        # (..., T_k, T_q) like the scores\n"
            "        scores = scores.masked_fill(~mask_kq, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-2)              # over the keys, i.e. down each column\n"
            "        alive = mask_kq.any(dim=-2, keepdim=True)             # (..., 1, T_q)\n"
            "        weights = torch.where(alive, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-2)\n"
            "    return torch.matmul(weights.transpose(-2, -1), V)\n"
        ),
    },
    "sdpa_base_two_softmax_with_log2e_folded_into_the_scale_in_float32": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    dtype = Q.dtype\n"
            "    work = torch.promote_types(dtype, torch.float32)      # half types in float32, float64 stays\n"
            "    q, k, v = Q.to(work), K.to(work), V.to(work)\n"
            "    LOG2E = 1.4426950408889634\n"
            "    s = torch.matmul(q, k.transpose(-2, -1)) * (LOG2E / math.sqrt(q.shape[-1]))\n"
            "    if mask is not None:\n"
            "        s = s.masked_fill(~mask, float(\"-inf\"))\n"
            "    m = s.amax(dim=-1, keepdim=True)\n"
            "    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))   # rows with no key: no shift\n"
            "    p = torch.exp2(s - m)                                 # 2**(x log2 e) = e**x\n"
            "    denom = p.sum(dim=-1, keepdim=True)\n"
            "    w = p / torch.where(denom > 0, denom, torch.ones_like(denom))   # empty rows stay all zero\n"
            "    return torch.matmul(w, v).to(dtype)\n"
        ),
    },
    "answers_in_column_convention_loops_from_zero_exact_flop_counts_real_causal_check": {
        "weights_shape": (
            "_Qp, _Kp, _Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "_W = _Qp @ _Kp.transpose(-2, -1)\n"
            "weights_shape = tuple(_W.shape)\n"
            "# column convention O^T = V^T W^T, then back to one row per query\n"
            "out_shape = tuple((_Vp.transpose(-2, -1) @ _W.transpose(-2, -1)).transpose(-2, -1).shape)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# q . k = sum over the d_k features (indices 0 .. d_k - 1 in Python)\n"
            "raw_scores = sum(Q[..., i].unsqueeze(-1) * K[..., i].unsqueeze(-2) for i in range(d_k))\n"
            + _Q2_TAIL
        ),
        "weights3": (
            "scores3_kq = K3 @ Q3.T / math.sqrt(4)      # column convention: column i = query i\n"
            "scores3 = scores3_kq.T\n"
            "weights3 = stable_softmax(scores3_kq, dim=0).T\n"
            "out3 = (V3.T @ weights3.T).T\n"
            "weights3_causal = stable_softmax(scores3_kq.masked_fill(~causal_mask(3).T, float(\"-inf\")), dim=0).T\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            _TRAP_SCORES +
            "_mask = causal_mask(4)\n"
            + _TRAP_TAIL
        ),
        "attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "_flops = T * T * (2 * d_head - 1)            # d_head multiplies and d_head - 1 adds per entry\n"
            "score_madds = (_flops + T * T) // 2          # one multiply-add = a multiply and an add\n"
            "cost_ratio = ((2 * T) ** 2 * d_head) // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_out_probe_in_the_column_vector_convention_left_as_values_t_times_weights_t": (
        {"weights_shape": (
            "_Qp, _Kp, _Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "_W = _Qp @ _Kp.transpose(-2, -1)\n"
            "weights_shape = tuple(_W.shape)\n"
            "out_shape = tuple((_Vp.transpose(-2, -1) @ _W.transpose(-2, -1)).shape)   # O = V^T W^T\n"
        )},
        {"mistake": "the output is written in the column-vector convention, V^T W^T, one column per query, "
                    "and never transposed back, so out_shape is (4, 128, 10) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_dot_product_summed_from_index_one_as_written_skips_feature_zero": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# q . k = sum_{i=1}^{d_k} q_i k_i\n"
            "raw_scores = sum(Q[..., i].unsqueeze(-1) * K[..., i].unsqueeze(-2) for i in range(1, d_k))\n"
            + _Q2_TAIL
        )},
        {"mistake": "the formula's sum from i = 1 to d_k is typed as range(1, d_k), which in Python runs over "
                    "indices 1..7 and leaves out feature 0, so the scores are sums of 7 products, not 8, and "
                    "both variances are wrong",
         "where": ["q2"]},
    ),
    "q2_scaled_by_root_of_batch_times_head_width_reading_the_batch_as_heads": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "n_heads = Q.shape[0]                  # (heads, T, d_k)\n"
            "d_model = n_heads * d_k\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_model)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the leading axis of the (2, 5, 8) example is read as heads and the scores are divided by "
                    "sqrt(heads * d_k) = sqrt(16) = 4 instead of sqrt(d_k) = sqrt(8), so scaled_score_var is "
                    "half what it should be",
         "where": ["q2"]},
    ),
    "q3_computed_in_float64_for_the_half_precision_warning_and_never_cast_back": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    x = x.double()        # float16 logits in the thousands: do the arithmetic in double\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "every input is converted to float64 and the result is never cast back, so float32, "
                    "float16 and bfloat16 logits get float64 weights (and weights @ V then fails on a dtype "
                    "mismatch inside the attention)",
         "where": ["q3", "q5"]},
    ),
    "q3_exponentials_taken_in_base_ten": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = 10 ** shifted\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the exponentials are powers of 10 instead of e, which is softmax(x ln 10): sharper "
                    "weights than the softmax of x",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_tensorflow_band_part_ported_with_the_lower_and_upper_bands_swapped": (
        {"causal_mask": (
            _BAND_PART +
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return _band_part(torch.ones(T_q, T_k), 0, -1).bool()\n"
        )},
        {"mistake": "band_part's arguments are (num_lower, num_upper); passing (0, -1) keeps the diagonal and "
                    "everything above it, so the mask lets each query see the current and future keys and "
                    "blocks the past",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_inputs_read_sequence_first_and_swapped_to_batch_first": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    # (T, B, d) as in nn.MultiheadAttention -> (B, T, d)\n"
            "    Q, K, V = Q.transpose(0, 1), K.transpose(0, 1), V.transpose(0, 1)\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            + _SDPA_MASKED_TAIL +
            "    return torch.matmul(weights, V).transpose(0, 1)\n"
        )},
        {"mistake": "the inputs are taken to be sequence-first (T, B, d) and axes 0 and 1 are swapped; they "
                    "are batch-first, so for 3-D inputs each token attends across the batch entries at its "
                    "position instead of across the tokens of its own sequence (4-D inputs only swap batch "
                    "and heads, which a non-2-D mask no longer lines up with)",
         "where": ["q5"]},
    ),
    "q5_keys_by_queries_scores_masked_with_the_untransposed_mask": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    # column convention: one column of scores per query, (..., T_k, T_q)\n"
            "    scores = torch.matmul(K, Q.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-2)\n"
            "        alive = mask.any(dim=-1).unsqueeze(-2)         # (..., 1, T_q)\n"
            "        weights = torch.where(alive, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-2)\n"
            "    return torch.matmul(weights.transpose(-2, -1), V)\n"
        )},
        {"mistake": "the scores are kept keys-by-queries (T_k, T_q) but the (T_q, T_k) mask is applied "
                    "without transposing it, so a square mask blocks the mirror-image entries (a causal mask "
                    "lets queries see the future) and a rectangular one does not broadcast",
         "where": ["q5"]},
    ),
    "q5_scale_premultiplied_by_log2e_as_in_the_triton_kernel_with_a_natural_exp": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scale = 1.4426950408889634 / math.sqrt(d_k)       # sm_scale * log2(e), as in the fused kernel\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            + _SDPA_MASKED_TAIL +
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scale is multiplied by log2(e) = 1.4427, as a fused kernel does before exp2, but the "
                    "softmax here uses the natural exp, so the scores are effectively divided by "
                    "sqrt(d_k) / 1.4427 and the weights come out too sharp",
         "where": ["q5"]},
    ),
    "q5_additive_mask_bias_subtracted_instead_of_added": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        bias = torch.zeros_like(scores).masked_fill(~mask, float(\"-inf\"))  # 0 keep, -inf block\n"
            "        scores = scores - bias                          # take the penalty off the scores\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the boolean mask is turned into an additive bias (0 keep, -inf block) and then "
                    "subtracted, so blocked scores become +inf and every row with a blocked key becomes NaN "
                    "(inf - inf) instead of ignoring those keys",
         "where": ["q5"]},
    ),
    "q6_transpose_put_on_the_queries_as_in_the_column_vector_formula": (
        {"weights3": (
            "scores3 = Q3.T @ K3 / math.sqrt(4)          # q^T k\n"
            + _Q6_TAIL
        )},
        {"mistake": "the score matrix is written Q^T K, as for column vectors, but Q3 and K3 hold one token "
                    "per row; Q3.T @ K3 is the (4, 4) feature-by-feature matrix, its softmax is not the "
                    "(3, 3) weights, and weights3 @ V3 raises a shape error",
         "where": ["q6"]},
    ),
    "q6_divisor_two_from_the_text_used_as_d_k_and_rooted_again": (
        {"weights3": (
            "scale = 2                                   # the scale divisor of this example\n"
            "scores3 = Q3 @ K3.T / math.sqrt(scale)\n"
            + _Q6_TAIL
        )},
        {"mistake": "the text's scale divisor 2 (= sqrt(4)) is put where d_k goes and rooted again, so the "
                    "scores are divided by sqrt(2) instead of 2 and all three answers are off",
         "where": ["q6"]},
    ),
    "q7_trap_tried_with_a_padding_mask_that_hides_no_key_answers_a": (
        {"q_trap_answer": (
            _TRAP_SCORES +
            "_mask = torch.ones(4, 4, dtype=torch.bool)   # no padded position in this sequence\n"
            + _TRAP_TAIL
        )},
        {"mistake": "the shortcut is tried with a padding mask that has no padded key (all True) instead of "
                    "the causal mask; nothing is zeroed, the two agree, and the check answers A instead of C",
         "where": ["q7"]},
    ),
    "q8_score_madds_counted_as_exact_flops_with_d_k_minus_one_additions": (
        {"attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = T * T * (2 * d_head - 1)      # d_head multiplies and d_head - 1 adds per entry\n"
            "cost_ratio = ((2 * T) ** 2 * (2 * d_head - 1)) // score_madds\n"
        )},
        {"mistake": "score_madds counts floating-point operations, d_k multiplies plus d_k - 1 additions per "
                    "entry (1024 * 1024 * 127 = 133169152), instead of multiply-adds, one per product "
                    "(1024 * 1024 * 64 = 67108864)",
         "where": ["q8"]},
    ),
}
