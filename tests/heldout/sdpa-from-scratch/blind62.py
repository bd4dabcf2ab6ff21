"""Sixty-second blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind61.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: CODE CARRIED OVER FROM ANOTHER SOURCE'S CONVENTIONS. In each wrong variant the student
brings a convention learned elsewhere into a place where it does not hold: the (4, 10, 64) tensors read in
Flax's (length, heads, depth) attention layout, and the shapes a Keras MultiHeadAttention layer reports (a heads
axis, an output projected back to the query width) given for the bare operation (q1); T5's "no scaling before
the softmax" (scale folded into the initialisation), and nn.MultiheadAttention's sequence-first layout applied
to the batch-first example (q2); a softmax that scales its own logits, as fused scale-mask-softmax kernels do,
and the NumPy/CS231n classifier habit of reducing axis 1 of (N, C) scores (q3); TensorFlow's
band_part(ones, -1, 0), where -1 means "the whole lower triangle", ported as tril(..., diagonal=-1) (q4); the
TensorFlow tutorial's additive `mask * -1e9` bias, which in PyTorch is a float32 tensor that promotes half
precision scores, and BERT's finite `(1 - mask) * -10000` bias with nothing done about fully masked queries
(q5); Keras' AdditiveAttention (Bahdanau) scores in place of scaled dot products, and d2l's attention with a
dropout module left in training mode (q6); the trap judged in the keys-by-queries (column-vector) layout, where
the causal pattern is the upper triangle (q7); flash-attention's benchmark FLOP formula 4 T^2 d, and the paper's
Table 1 O(n^2 d) with d read as the model width 512 (q8). The correct variants use the same sources the right
way: Hugging Face's `_make_causal_mask` condition (j < i + 1) and Keras' `_large_compatible_negative` fill
(float16 minimum, else -1e9) with fully masked rows cleared; Keras' cumulative-sum causal mask and a
jax.nn.softmax-style stop-gradient shift; Flax's query scaling done out of place with ellipsis einsums; a
TensorFlow-named look-ahead mask with NaN rows cleared and a tensordot / band-part-bias trace; and q1/q2/q7/q8
answered with meta-device einsum probes, d2l's bmm, a trap check in this notebook's own layout, and the
flash-attention FLOP count divided back to multiply-adds.

Public material used (search tool):
- q1 (Flax layout): flax.readthedocs.io, flax.linen.dot_product_attention and dot_product_attention_weights
  ("query ... [batch..., q_length, num_heads, qk_depth_per_head]", "needn't have any batch dimensions", weights
  broadcastable to "[batch..., num_heads, q_length, kv_length]"); hacobe/notes dot_product_attention.py
  ("query: ...qhd").
- q1 (Keras shapes): tensorflow.org tf.keras.ops.dot_product_attention (query "(B, T, N, H)", bias "(B, N, T, S)");
  the Keras MultiHeadAttention scores (B, heads, T, S) and output projected to the query's last dimension.
- q2 (T5): huggingface T5Attention and its copies (many repositories, e.g. the TF and PyTorch T5 models): "# Mesh
  TensorFlow initialization to avoid scaling before softmax".
- q2 (sequence-first): pytorch/pytorch#63560 ("Why is the sequence dimension before batch size dimension for
  nn.MultiheadAttention"), #25100, jadore801120/attention-is-all-you-need-pytorch#179, karttikeya/minREV#4
  ((N, L, E) passed where (L, N, E) was expected).
- q3 (fused scale softmax): Megatron-LM / apex FusedScaleMaskSoftmax and ScaledUpperTriangMaskedSoftmax ("1. Scale
  the tensor. 2. Apply ... mask 3. Perform softmax"), colossalai ScaleMaskSoftmax.
- q3 (axis 1): cnblogs softmax-numpy ("x -= np.max(x, axis=1, keepdims=True) ... np.sum(np.exp(x), axis=1,
  keepdims=True)"), shusei-e.github.io "Softmax without Overflow" (axis=1 for the 2-D case), the Udacity /
  Stack Overflow 34968722 softmax answers quoted in nvidia/Nemotron-CC-Math.
- q4 (band_part): tensorflow.org tf.linalg.band_part ("num_lower ... If negative, keep entire lower triangle";
  band_part(input, -1, 0) ==> lower triangular part), the TensorFlow tutorial's create_look_ahead_mask
  (1 - band_part(ones, -1, 0)) as copied in hsuanchunlin/NLP-notes, openai/gpt-2's attention_mask docstring.
- q5 (TF bias): the TensorFlow transformer tutorial's `scaled_attention_logits += (mask * -1e9)` as quoted in a
  Stack Overflow question (answer 67154510) and stats.stackexchange.com/q/541448; DeepLearning.AI course 5 week 4
  forum thread on the look-ahead mask.
- q5 (BERT -10000) and the correct Keras fill: many `_large_compatible_negative` copies ("the standard value for
  epsilon in this module (-1e9) cannot be represented using tf.float16"; tf.float16.min else -1e9), Hugging
  Face's `_make_causal_mask` (`mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)`) for
  the correct mask.
- q6 (additive): keras.io / tensorflow.org AdditiveAttention ("scores = reduce_sum(tanh(query + key), axis=-1)").
- q6 (dropout): d2l's attention-scoring-functions chapter (DotProductAttention with self.dropout; the book calls
  attention.eval() before its demo), yingmuzhi/deep_learning notes of the same chapter.
- q7 (keys-by-queries): the DeepLearning.AI forum question "why we create a look-ahead mask as an upper triangular
  matrix" in nvidia/Nemotron-CC-Math, which shows the same reading of the triangle the other way round.
- q8: Dao-AILab flash-attention benchmarks/benchmark_flash_attention.py as quoted by danielpwarren/open-blt and
  maester ("f = 4 * seqlen**2 * nheads * headdim // (2 if causal else 1)"); "Attention Is All You Need", Table 1
  (O(n^2 d) for self-attention, d the representation dimension, 512 in the paper).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5, and q6, whose causal trace calls it; a broken `stable_softmax` may cost
q5 and q6).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository: softmax
against `torch.softmax` on 1-D to 4-D inputs along every positive and negative axis in float64, float32,
float16 and bfloat16 (dtype kept), float16 logits in the thousands, -inf entries, and gradients; masks against
`torch.ones(T_q, T_k).tril().bool()` for square and rectangular sizes (T_q above and below T_k), with and
without T_k; attention against `F.scaled_dot_product_attention` (computed in float64, fully masked rows set to
zero) on 3-D and 4-D inputs with T_q != T_k and d_v != d_k, no mask, a causal mask, a 2-D random mask with a
fully masked query, a batched random mask with a fully masked query, a (B, 1, T_k) / (B, 1, 1, T_k) padding mask,
in all four dtypes (dtype of the result kept), float16 inputs with large scores, and gradients against those of
the reference; the answers of q1, q2, q6, q7 and q8 against the values computed from the notebook's formulas;
all on the CPU (no GPU was used). Each variant's notebook was also run top to bottom (all code cells but
otter's). The correct ones run without an error and pass every check; each wrong one differs from the right
answer (or raises) where the notebook's tests look, and only in its "where" (the band_part mask loses q4 and
q6 in these checks; the q5 loss it may cause depends on the masks the tests pass). None of the wrong variants
raises in the notebook itself.

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
_TRACE_CAUSAL = (
    "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
)
_TRACE_PRINT = "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
_Q2_TAIL = (
    "raw_score_var = raw_scores.var().item()\n"
    "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
    "scale_divisor = math.sqrt(64)\n"
    "print(raw_score_var, scaled_score_var, scale_divisor)\n"
)

CORRECT = {
    "causal_from_hf_make_causal_mask_condition_sdpa_keras_large_compatible_negative_fill_rows_zeroed": {
        "causal_mask": (
            _MASK_HEAD +
            "    T_k = T_q if T_k is None else T_k\n"
            "    # the condition of Hugging Face's _make_causal_mask: key j is open to query i when j < i + 1\n"
            "    mask_cond = torch.arange(T_k)\n"
            "    return mask_cond < (torch.arange(T_q) + 1).view(T_q, 1)\n"
        ),
        "scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    # Keras' _large_compatible_negative: float16 cannot hold -1e9, so use its own minimum there\n"
            "    fill = torch.finfo(torch.float16).min if scores.dtype == torch.float16 else -1e9\n"
            "    weights = stable_softmax(scores.masked_fill(~mask, fill), dim=-1)\n"
            "    # a finite fill gives a fully blocked query uniform weights: clear those rows explicitly\n"
            "    weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "causal_from_keras_cumsum_indices_softmax_with_jax_style_stop_gradient_max": {
        "causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # Keras MultiHeadAttention._compute_causal_mask: cumulative sums give 1-based row / column indices\n"
            "    ones = torch.ones(T_q, T_k, dtype=torch.int64)\n"
            "    row_index = torch.cumsum(ones, dim=0)\n"
            "    col_index = torch.cumsum(ones, dim=1)\n"
            "    return row_index >= col_index\n"
        ),
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    # as jax.nn.softmax: the shift is a constant for autograd (stop_gradient), the result is unchanged\n"
            "    x_max = torch.amax(x, dim=dim, keepdim=True).detach()\n"
            "    unnormalized = torch.exp(x - x_max)\n"
            "    return unnormalized / unnormalized.sum(dim=dim, keepdim=True)\n"
        ),
    },
    "sdpa_flax_style_query_scaled_out_of_place_ellipsis_einsum_where_fill_rows_cleared": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    # as flax's dot_product_attention: scale the query (a new tensor, not the caller's), then contract\n"
            "    Q = Q / math.sqrt(Q.shape[-1])\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K)\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...qk,...kd->...qd\", stable_softmax(scores, dim=-1), V)\n"
            "    scores = torch.where(mask, scores, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return torch.einsum(\"...qk,...kd->...qd\", weights, V)\n"
        ),
    },
    "sdpa_tensorflow_look_ahead_naming_nan_rows_cleared_trace_with_tensordot_and_band_part_bias": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = K.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        look_ahead = ~mask                 # TensorFlow's convention: True where a key is hidden\n"
            "        scores = scores.masked_fill(look_ahead, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = torch.nan_to_num(weights, nan=0.0)   # a query with no key: 0/0 -> 0\n"
            "    return torch.matmul(weights, V)\n"
        ),
        "weights3": (
            "# tf.tensordot(Q, K, axes=[[1], [1]]): contract the feature axes of queries and keys\n"
            "scores3 = torch.tensordot(Q3, K3, dims=([1], [1])) / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# the TensorFlow tutorial's look-ahead mask, 1 - band_part(ones, -1, 0), times -1e9 (float64 here)\n"
            "look_ahead3 = 1 - torch.tril(torch.ones(3, 3, dtype=torch.float64))\n"
            "weights3_causal = stable_softmax(scores3 + look_ahead3 * -1e9, dim=-1)\n"
            + _TRACE_PRINT
        ),
    },
    "answers_meta_einsum_probe_bmm_scores_keys_by_queries_check_done_right_flashattention_count_divided_back": {
        "weights_shape": (
            "_Qp = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_Kp = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_Vp = torch.empty(4, 10, 128, device=\"meta\")\n"
            "_Wp = torch.einsum(\"bqd,bkd->bqk\", _Qp, _Kp)     # the notebook's layout: (batch, tokens, features)\n"
            "weights_shape = tuple(int(n) for n in _Wp.shape)\n"
            "out_shape = tuple(int(n) for n in torch.einsum(\"bqk,bkv->bqv\", _Wp, _Vp).shape)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.transpose(1, 2))           # d2l's batch-first bmm\n"
            "raw_score_var = float(torch.var(raw_scores, correction=1))\n"
            "scaled_score_var = float(torch.var(raw_scores / math.sqrt(d_k), correction=1))\n"
            "scale_divisor = float(64 ** 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "q_trap_answer": (
            "_g = torch.Generator().manual_seed(7)\n"
            "_s = torch.randn(5, 5, generator=_g, dtype=torch.float64)   # rows are queries, as in this notebook\n"
            "_right = stable_softmax(_s.masked_fill(~causal_mask(5), float(\"-inf\")), dim=-1)\n"
            "_short = F.softmax(_s, dim=-1).masked_fill(~causal_mask(5), 0.0)\n"
            "_sums = _short.sum(dim=-1)\n"
            "q_trap_answer = \"C\" if not torch.allclose(_sums, torch.ones(5, dtype=torch.float64)) else \"A\"\n"
        ),
        "attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "# flash-attention's benchmark counts 4 * T^2 * d FLOPs: two products, 2 FLOPs per multiply-add\n"
            "_fa_flops = 4 * T ** 2 * d_head\n"
            "score_madds = _fa_flops // 4\n"
            "cost_ratio = (4 * (2 * T) ** 2 * d_head) // _fa_flops\n"
        ),
    },
}

WRONG = {
    "q1_weights_shape_read_in_the_flax_layout_length_heads_depth": (
        {"weights_shape": (
            "# flax.linen.dot_product_attention: query [batch..., q_length, num_heads, qk_depth_per_head];\n"
            "# weights [batch..., num_heads, q_length, kv_length]; output [batch..., q_length, num_heads, v_depth]\n"
            "_q_len, _heads, _depth = 4, 10, 64          # Q and K of shape (4, 10, 64)\n"
            "_kv_len, _v_depth = 4, 128                  # V of shape (4, 10, 128)\n"
            "weights_shape = (_heads, _q_len, _kv_len)\n"
            "out_shape = (_q_len, _heads, _v_depth)\n"
        )},
        {"mistake": "the (4, 10, 64) tensors are read in Flax's attention layout, (length, heads, depth) with no batch "
                    "axis, instead of this notebook's (batch, tokens, features); the weights then come out "
                    "(heads, q_length, kv_length) = (10, 4, 4) instead of (4, 10, 10) (the output shape happens to "
                    "be right)",
         "where": ["q1"]},
    ),
    "q1_shapes_read_off_a_keras_multiheadattention_layer_with_one_head": (
        {"weights_shape": (
            "# keras.layers.MultiHeadAttention(num_heads=1, key_dim=64)(Q, V, key=K, return_attention_scores=True):\n"
            "# scores are (B, num_heads, T, S) and the output is projected back to the query's width\n"
            "weights_shape = (4, 1, 10, 10)\n"
            "out_shape = (4, 10, 64)\n"
        )},
        {"mistake": "the shapes are those a Keras MultiHeadAttention layer reports, not those of the bare operation: "
                    "a heads axis in the weights, (4, 1, 10, 10) instead of (4, 10, 10), and an output projected to "
                    "the query width, (4, 10, 64) instead of (4, 10, 128) with d_v = 128",
         "where": ["q1"]},
    ),
    "q2_scores_left_unscaled_as_in_t5_scale_divisor_one": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "# T5 / Mesh TensorFlow: the 1/sqrt(d_k) is folded into the initialisation, no scaling before softmax\n"
            "scale_divisor = 1.0\n"
            "scaled_score_var = (raw_scores / scale_divisor).var().item()\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scores are not scaled, following T5's convention (scaling folded into the weight "
                    "initialisation): scale_divisor is 1.0 instead of 8.0 and scaled_score_var equals the raw "
                    "variance (about 8) instead of about 1",
         "where": ["q2"]},
    ),
    "q2_example_read_sequence_first_and_moved_to_batch_first": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# nn.MultiheadAttention's default layout is (seq, batch, feature): put the batch first\n"
            "Qb, Kb = Q.transpose(0, 1), K.transpose(0, 1)\n"
            "raw_scores = Qb @ Kb.transpose(-2, -1)\n"
            + _Q2_TAIL
        )},
        {"mistake": "the batched example (2, 5, 8) is read as sequence-first, as in nn.MultiheadAttention's "
                    "default, and transposed to (5, 2, 8) before the product; the \"scores\" are (5, 2, 2) dot "
                    "products between the two sequences' tokens at the same position, not the (2, 5, 5) query-key "
                    "scores, so both variances are of the wrong numbers",
         "where": ["q2"]},
    ),
    "q3_logits_scaled_inside_the_softmax_as_in_a_fused_scale_mask_softmax": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    # scale, then softmax, as in Megatron's FusedScaleMaskSoftmax\n"
            "    x = x / math.sqrt(x.shape[dim])\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the softmax divides its logits by the square root of the slice length, carried over from "
                    "fused scale-mask-softmax kernels where scaling is part of the softmax; it is no longer a plain "
                    "softmax (flatter weights), and the attention, which already divided by sqrt(d_k), is scaled "
                    "twice",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_max_and_sum_over_axis_1_as_for_cs231n_two_d_class_scores": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    # scores are (N, C): one row per example, the classes along axis 1\n"
            "    shifted = x - x.max(dim=1, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=1, keepdim=True)\n"
        )},
        {"mistake": "the max and the sum are hard-coded to axis 1, the NumPy classifier habit for (N, C) score "
                    "matrices, and `dim` is ignored; right for 2-D inputs along the last axis, but a 1-D input "
                    "raises and for 3-D/4-D inputs the softmax runs over axis 1 (the queries or heads)",
         "where": ["q3", "q5"]},
    ),
    "q4_band_part_num_lower_minus_one_ported_as_tril_diagonal_minus_one": (
        {"causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # tf.linalg.band_part(tf.ones((T_q, T_k)), -1, 0): keep the lower triangle\n"
            "    return torch.tril(torch.ones(T_q, T_k), diagonal=-1).bool()\n"
        )},
        {"mistake": "TensorFlow's band_part(ones, -1, 0) (num_lower=-1 means keep the whole lower triangle) is "
                    "ported as torch.tril(..., diagonal=-1), where -1 is an offset that drops the diagonal; each "
                    "query loses its own key and query 0 sees nothing",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_tensorflow_tutorial_bias_bool_times_minus_1e9_is_float32_and_promotes_half_scores": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        # the TensorFlow tutorial: scaled_attention_logits += (mask * -1e9), mask = 1 where hidden\n"
            "        scores = scores + (~mask) * -1e9\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the mask is applied as the TensorFlow tutorial's additive bias; in PyTorch a bool tensor "
                    "times -1e9 is a float32 tensor (not a scalar), so float16/bfloat16 scores are promoted to "
                    "float32 and the product with the half-precision values raises a dtype error (float32 and "
                    "float64 inputs come out right)",
         "where": ["q5"]},
    ),
    "q5_bert_extended_mask_bias_minus_10000_leaves_fully_masked_queries_attending_everywhere": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        # BERT's extended attention mask: (1 - mask) * -10000, added to the scores\n"
            "        scores = scores + (1 - mask.to(torch.int64)) * -10000\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the mask is BERT's finite additive bias of -10000 with no explicit handling of a query whose "
                    "keys are all masked; such a row is shifted uniformly, so its softmax is the unmasked one and "
                    "its output is ordinary attention over every key instead of zeros",
         "where": ["q5"]},
    ),
    "q6_scores_from_keras_additive_attention_tanh_of_sums": (
        {"weights3": (
            "# Keras AdditiveAttention: scores = reduce_sum(tanh(query + key), axis=-1)\n"
            "scores3 = torch.tanh(Q3[:, None, :] + K3[None, :, :]).sum(dim=-1)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            + _TRACE_CAUSAL + _TRACE_PRINT
        )},
        {"mistake": "the scores are Bahdanau-style additive ones, as Keras' AdditiveAttention computes them (sum of "
                    "tanh(q + k)), not scaled dot products q . k / sqrt(d_k); weights3, out3 and weights3_causal "
                    "(except its one-key first row) are all wrong",
         "where": ["q6"]},
    ),
    "q6_output_through_d2l_dropout_left_in_training_mode": (
        {"weights3": (
            "from torch import nn\n"
            "\n"
            "_dropout = nn.Dropout(0.1)     # as in d2l's DotProductAttention(dropout=0.1)\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = _dropout(weights3) @ V3\n"
            + _TRACE_CAUSAL + _TRACE_PRINT
        )},
        {"mistake": "the output goes through a dropout module on the weights, as in d2l's DotProductAttention, "
                    "without the attention.eval() that d2l calls; a fresh nn.Dropout is in training mode, so weights "
                    "are randomly zeroed and the kept ones divided by 0.9, and out3 is wrong (and random)",
         "where": ["q6"]},
    ),
    "q7_trap_checked_in_the_keys_by_queries_layout_answers_b": (
        {"q_trap_answer": (
            "# In the column convention the keys are the rows: scores[k, q] = k . q, and key k is visible to\n"
            "# query q when k <= q, which is the upper triangle\n"
            "_T = 5\n"
            "_pos = torch.arange(_T)\n"
            "_visible = _pos[:, None] <= _pos[None, :]      # [key, query]\n"
            "q_trap_answer = \"B\" if not torch.equal(causal_mask(_T), _visible) else \"C\"\n"
        )},
        {"mistake": "the classmate's mask is judged in the keys-by-queries (column-vector) layout, where the "
                    "causal pattern is the upper triangle; in this notebook rows are queries, the lower-triangular "
                    "mask is right, and the answer is C (the rows no longer sum to 1), not B",
         "where": ["q7"]},
    ),
    "q8_madds_from_the_flashattention_benchmark_flop_formula": (
        {"attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "# cost of attention as in flash-attention's benchmark: 4 * seqlen**2 * nheads * headdim\n"
            "score_madds = 4 * T ** 2 * 1 * d_head\n"
            "cost_ratio = (4 * (2 * T) ** 2 * d_head) // score_madds\n"
        )},
        {"mistake": "score_madds is taken from flash-attention's benchmark FLOP formula 4 T^2 d, which counts both "
                    "products (Q K^T and the product with V) at 2 FLOPs per multiply-add; the multiply-adds of "
                    "Q K^T alone are T^2 d_k = 67108864, a quarter of it",
         "where": ["q8"]},
    ),
    "q8_madds_with_d_read_as_the_model_width_from_the_papers_table_1": (
        {"attn_entries": (
            "T = 1024\n"
            "d = 512          # \"Attention Is All You Need\", Table 1: self-attention is O(n^2 d), d = d_model\n"
            "attn_entries = T ** 2\n"
            "score_madds = T ** 2 * d\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the d of the paper's O(n^2 d) is taken as the model width 512 (the paper's setting) instead of "
                    "the head width d_k = 64 asked about, so score_madds is 1024^2 * 512, eight times too large",
         "where": ["q8"]},
    ),
}
