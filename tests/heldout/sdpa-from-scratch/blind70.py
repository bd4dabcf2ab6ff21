"""Seventieth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind69.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: CODE AN AI ASSISTANT WROTE, OR A STUDENT PASTED FROM ONE. Every cell reads like chat-assistant
output: type hints, docstrings, keyword arguments, `torch.nn.functional`, einsum, `torch.finfo`, defensive
`if mask is not None`. Each wrong variant hides one confident wrong detail in otherwise clean code: a probe
through `nn.MultiheadAttention` left at its default sequence-first layout (q1); the per-tensor factor of a scale
split over Q and K given as the divisor, and an attention dropout left on the scaled scores (q2); a
"temperature" argument that defaults to the square root of the slice length, and a `clamp_min(eps)` added "so
that a later log never sees 0" (q3); a mask in the `nn.Transformer` convention (True = blocked) and a float 0/1
mask "to multiply with" (q4); `masked_fill(mask, ...)` with the key-padding-mask meaning, a `finfo(dtype).min`
fill that is trusted to handle empty rows, a LayerNorm on the scores "for stability", and a bmm rewrite that
reshapes the keys with the query length (q5); softmax over `dim=0` read as the key axis (q6); answer A with an
explanation that sounds right (q7); a FLOP helper that counts 2 per multiply-add (q8). The correct variants are
assistant-style too: `amax`-shifted softmax with a float32 compute dtype for half types cast back, a mask from
`torch.ones(..., dtype=torch.bool).tril()`, an ellipsis-einsum attention with `torch.where` on the empty rows,
and answers computed with `torch.var(correction=1)`, einsum and `math.prod`.

Public material used (search tool):
- q4 / q5 (which way round a boolean mask is): rasbt/LLMs-from-scratch#1061 (a `torch.triu(...).bool()` mask passed
  to `F.scaled_dot_product_attention`, where True means "may attend"; "it seems opposite of nn.MultiheadAttention");
  pytorch/pytorch#120668 and #39321 (nn.Transformer / key_padding_mask: True = "not allowed to attend");
  NVIDIA/TransformerEngine#614 ("Does True mean that the position takes part in attention or that it is masked
  out?"); lucidrains/x-transformers#164 ("masking has got to be the most confusing part").
- q1 (MultiheadAttention defaults to (L, N, E) unless batch_first=True), q5 (finfo.min / -1e9 fills turn a fully
  masked row into a uniform average, as the notebook's own text says), q3 / q5 (helpful extra steps: eps clamps,
  LayerNorm, temperatures) are the generic assistant habits named in this round's brief.

How the variants were checked: a throwaway script under /tmp/w70-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's
formulas on 3-D and 4-D shapes, T_q != T_k, d_v != d_k, 2-D and broadcast masks, fully masked rows, large float16
logits, float64 / float32 / float16 / bfloat16, other softmax dims and gradients. The correct variants match
everywhere; each wrong one differs where its "where" says and nowhere else.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a broken
`stable_softmax` may also cost q5 and q6; a broken `causal_mask` q5 and q6).
"""

_SOFTMAX_SIG = (
    "def stable_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:\n"
    "    \"\"\"Numerically stable softmax along ``dim`` (max-subtraction trick).\"\"\"\n"
)

_MASK_SIG = (
    "def causal_mask(T_q: int, T_k: int | None = None) -> torch.Tensor:\n"
    "    \"\"\"Causal (look-ahead) mask aligned at the top-left corner.\"\"\"\n"
    "    if T_k is None:\n"
    "        T_k = T_q\n"
)

_SDPA_SIG = (
    "def scaled_dot_product_attention(\n"
    "    Q: torch.Tensor,\n"
    "    K: torch.Tensor,\n"
    "    V: torch.Tensor,\n"
    "    mask: torch.Tensor | None = None,\n"
    ") -> torch.Tensor:\n"
    "    \"\"\"Scaled dot-product attention: softmax(Q K^T / sqrt(d_k)) V.\n"
    "\n"
    "    Args:\n"
    "        Q: queries, shape (..., T_q, d_k).\n"
    "        K: keys, shape (..., T_k, d_k).\n"
    "        V: values, shape (..., T_k, d_v).\n"
    "        mask: optional boolean mask broadcastable to (..., T_q, T_k), True = may attend.\n"
    "\n"
    "    Returns:\n"
    "        Tensor of shape (..., T_q, d_v).\n"
    "    \"\"\"\n"
)

_SDPA_TAIL = (
    "    weights = stable_softmax(scores, dim=-1)\n"
    "    if mask is not None:\n"
    "        # Queries with no visible key would be NaN (0/0); give them zero weights.\n"
    "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
    "    return weights @ V\n"
)

_Q2_TAIL = (
    "scale_divisor = math.sqrt(64)\n"
    "print(f\"{raw_score_var=:.3f} {scaled_score_var=:.3f} {scale_divisor=}\")\n"
)

_Q6_HEAD = (
    "scale = 1.0 / math.sqrt(Q3.size(-1))\n"
    "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) * scale\n"
)

CORRECT = {
    "softmax_amax_shift_computed_in_float32_for_half_types_and_cast_back": {
        "stable_softmax": (
            _SOFTMAX_SIG +
            "    compute_dtype = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype\n"
            "    x_c = x.to(compute_dtype)\n"
            "    x_max = torch.amax(x_c, dim=dim, keepdim=True)\n"
            "    exp_x = torch.exp(x_c - x_max)\n"
            "    probs = exp_x / exp_x.sum(dim=dim, keepdim=True)\n"
            "    return probs.to(x.dtype)\n"
        ),
    },
    "causal_mask_bool_ones_tril_with_type_hints": {
        "causal_mask": (
            _MASK_SIG +
            "    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=0)\n"
        ),
    },
    "sdpa_ellipsis_einsum_python_float_scale_where_on_rows_without_a_visible_key": {
        "scaled_dot_product_attention": (
            _SDPA_SIG +
            "    scale = 1.0 / math.sqrt(Q.size(-1))\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n" +
            _SDPA_TAIL
        ),
    },
    "answers_from_var_correction_one_einsum_trace_and_math_prod": {
        "d_k": (
            "d_k = Q.size(-1)\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "raw_score_var = float(torch.var(raw_scores, correction=1))\n"
            "scaled_score_var = float(torch.var(raw_scores / math.sqrt(d_k), correction=1))\n" +
            _Q2_TAIL
        ),
        "scores3": (
            _Q6_HEAD +
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "weights3_causal = stable_softmax(\n"
            "    scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1\n"
            ")\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "attn_entries": (
            "T, head_dim = 1024, 64\n"
            "attn_entries = math.prod((T, T))\n"
            "score_madds = math.prod((T, T, head_dim))\n"
            "cost_ratio = math.prod((2 * T, 2 * T, head_dim)) // score_madds\n"
            "print(attn_entries, score_madds, cost_ratio)\n"
        ),
    },
}

WRONG = {
    "q1_shapes_probed_through_multiheadattention_left_sequence_first_without_batch_first": (
        {"weights_shape": (
            "# Probe the shapes with PyTorch's own attention layer (one head, kdim/vdim as in the question).\n"
            "_mha = torch.nn.MultiheadAttention(embed_dim=64, num_heads=1, kdim=64, vdim=128)\n"
            "with torch.no_grad():\n"
            "    _out, _w = _mha(torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128))\n"
            "weights_shape = tuple(_w.shape)\n"
            "out_shape = tuple(_out.shape[:-1]) + (128,)\n"
            "print(weights_shape, out_shape)\n"
        )},
        {"mistake": "the shapes are read off an nn.MultiheadAttention probe built without batch_first=True, so the "
                    "(4, 10, 64) inputs are taken as (sequence 4, batch 10): weights_shape comes out (10, 4, 4) "
                    "instead of (4, 10, 10); out_shape, rebuilt with the value width, is right",
         "where": ["q1"]},
    ),
    "q2_scale_divisor_given_as_the_per_tensor_fourth_root_when_the_scale_is_split_over_q_and_k": (
        {"d_k": (
            "d_k = Q.size(-1)\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "# Split the scaling symmetrically over queries and keys (better conditioned in low precision).\n"
            "qk_scale = d_k ** -0.25\n"
            "scaled_score_var = ((Q * qk_scale) @ (K * qk_scale).transpose(-2, -1)).var().item()\n"
            "scale_divisor = 64 ** 0.25   # each of Q and K is divided by this\n"
            "print(f\"{raw_score_var=:.3f} {scaled_score_var=:.3f} {scale_divisor=}\")\n"
        )},
        {"mistake": "the scale is split as d_k ** -0.25 on each of Q and K (which gives the right scaled variance), "
                    "but scale_divisor is set to that per-tensor factor, 64 ** 0.25 = 2.83, instead of the "
                    "divisor of the scores, sqrt(64) = 8",
         "where": ["q2"]},
    ),
    "q2_scaled_scores_passed_through_the_attention_dropout_of_a_pasted_block": (
        {"d_k": (
            "d_k = Q.size(-1)\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_scores = F.dropout(raw_scores / math.sqrt(d_k), p=0.1)   # attention dropout, as in the paper\n"
            "scaled_score_var = scaled_scores.var().item()\n" +
            _Q2_TAIL
        )},
        {"mistake": "the scaled scores go through F.dropout(p=0.1), whose training argument defaults to True, so "
                    "a tenth of the scores are zeroed and the rest multiplied by 1/0.9, and scaled_score_var "
                    "comes out larger than the variance of the scaled scores (about 0.98 instead of 0.82 with the "
                    "notebook's seed); raw_score_var and "
                    "scale_divisor are right",
         "where": ["q2"]},
    ),
    "q3_temperature_keyword_defaulting_to_the_root_of_the_slice_length": (
        {"stable_softmax": (
            "def stable_softmax(x: torch.Tensor, dim: int = -1, temperature: float | None = None) -> torch.Tensor:\n"
            "    \"\"\"Numerically stable softmax along ``dim`` with an optional temperature.\n"
            "\n"
            "    By default the temperature is sqrt(n), n the size of the softmax axis, which keeps the\n"
            "    logits at unit scale.\n"
            "    \"\"\"\n"
            "    if temperature is None:\n"
            "        temperature = math.sqrt(x.size(dim))\n"
            "    x = x / temperature\n"
            "    x_max = x.amax(dim=dim, keepdim=True)\n"
            "    exp_x = torch.exp(x - x_max)\n"
            "    return exp_x / exp_x.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "a temperature argument is added whose default is sqrt of the length of the softmax axis, so "
                    "every call divides the logits by sqrt(n) and the weights come out flatter than the "
                    "softmax (right only for slices of length 1)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_probabilities_clamped_to_a_minimum_epsilon_so_a_later_log_never_sees_zero": (
        {"stable_softmax": (
            _SOFTMAX_SIG +
            "    x_max = x.amax(dim=dim, keepdim=True)\n"
            "    exp_x = torch.exp(x - x_max)\n"
            "    probs = exp_x / exp_x.sum(dim=dim, keepdim=True)\n"
            "    # Guard against log(0) downstream (e.g. cross-entropy on the attention weights).\n"
            "    return probs.clamp_min(1e-12)\n"
        )},
        {"mistake": "the probabilities are clamped to at least 1e-12, so entries whose logit is -inf (masked "
                    "scores) get weight 1e-12 instead of exactly 0 in float32 and float64, and the slices no "
                    "longer sum exactly to 1 (in float16 the clamp underflows to 0 and changes nothing)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_mask_marks_the_future_keys_true_as_nn_transformer_generate_square_subsequent_mask_does": (
        {"causal_mask": (
            _MASK_SIG +
            "    # Boolean look-ahead mask: True marks the future positions that must be hidden.\n"
            "    return torch.triu(torch.ones(T_q, T_k, dtype=torch.bool), diagonal=1)\n"
        )},
        {"mistake": "the mask uses the nn.Transformer convention, True = blocked: it is True strictly above the "
                    "diagonal (the future keys) instead of on and below it, the exact complement of the asked "
                    "mask, so callers that follow the notebook's True = may attend let each query see only the "
                    "future",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_mask_returned_as_float_ones_and_zeros_to_multiply_with": (
        {"causal_mask": (
            _MASK_SIG +
            "    # 1.0 where query i may attend to key j (j <= i), 0.0 elsewhere.\n"
            "    return torch.tril(torch.ones(T_q, T_k))\n"
        )},
        {"mistake": "the mask has the right pattern but is returned as a float32 tensor of ones and zeros (the "
                    "default dtype of torch.ones) instead of torch.bool, so `~causal_mask(...)` raises and "
                    "masked_fill rejects it",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_masked_fill_given_the_mask_itself_as_in_key_padding_mask": (
        {"scaled_dot_product_attention": (
            _SDPA_SIG +
            "    scale = 1.0 / math.sqrt(Q.size(-1))\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask, float(\"-inf\"))\n" +
            _SDPA_TAIL
        )},
        {"mistake": "masked_fill is given the mask itself, the key_padding_mask convention where True means "
                    "blocked, so the keys a query may attend to get -inf and the blocked ones are kept; without "
                    "a mask it is right",
         "where": ["q5"]},
    ),
    "q5_scores_filled_with_finfo_min_of_their_dtype_and_empty_rows_left_to_the_softmax": (
        {"scaled_dot_product_attention": (
            _SDPA_SIG +
            "    scale = 1.0 / math.sqrt(Q.size(-1))\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    if mask is not None:\n"
            "        # Use the most negative finite value of the dtype: avoids -inf - (-inf) = NaN for\n"
            "        # fully-masked rows, so no special case is needed.\n"
            "        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "blocked scores are filled with torch.finfo(dtype).min instead of -inf and the fully masked "
                    "rows are not handled, so a query with no visible key gets uniform weights and the average "
                    "of V instead of a row of zeros; other rows are right",
         "where": ["q5"]},
    ),
    "q5_scores_layer_normalised_over_the_keys_before_the_softmax_for_stability": (
        {"scaled_dot_product_attention": (
            _SDPA_SIG +
            "    scale = 1.0 / math.sqrt(Q.size(-1))\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    # Normalise the logits over the keys for numerical stability (QK-norm style).\n"
            "    scores = F.layer_norm(scores, scores.shape[-1:])\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n" +
            _SDPA_TAIL
        )},
        {"mistake": "a layer norm over the key axis is applied to the scores before the softmax, so each query's "
                    "scores are re-centred and rescaled to unit variance and the weights differ from "
                    "softmax(QK^T/sqrt(d_k)) (right only for a single key)",
         "where": ["q5"]},
    ),
    "q5_bmm_rewrite_reshapes_the_keys_with_the_query_length": (
        {"scaled_dot_product_attention": (
            _SDPA_SIG +
            "    *batch, T_q, d_k = Q.shape\n"
            "    d_v = V.size(-1)\n"
            "    # Flatten the leading dims so that torch.bmm can be used.\n"
            "    q = Q.reshape(-1, T_q, d_k)\n"
            "    k = K.reshape(-1, T_q, d_k)\n"
            "    v = V.reshape(-1, V.size(-2), d_v)\n"
            "    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)\n"
            "    scores = scores.reshape(*batch, T_q, -1)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    out = torch.bmm(weights.reshape(-1, T_q, weights.size(-1)), v)\n"
            "    return out.reshape(*batch, T_q, d_v)\n"
        )},
        {"mistake": "the bmm rewrite reshapes K with the query length T_q instead of its own length T_k, which "
                    "only works for self-attention: with T_q != T_k the reshape or the bmm raises (or mixes "
                    "batch entries); for T_q == T_k it is right",
         "where": ["q5"]},
    ),
    "q6_softmax_over_dim_zero_read_as_the_key_axis": (
        {"scores3": (
            _Q6_HEAD +
            "# Rows of K3 are the keys, so normalise over dim 0 (the key index).\n"
            "weights3 = stable_softmax(scores3, dim=0)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=0)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the softmax of the (queries, keys) scores is taken over dim 0, the query axis, instead of "
                    "the key axis, so the columns of weights3 and weights3_causal sum to 1 instead of the rows, "
                    "and out3 is wrong with them",
         "where": ["q6"]},
    ),
    "q7_answer_a_justified_by_exp_of_minus_inf_being_zero": (
        {"q_trap_answer": (
            "# Setting a score to -inf before the softmax gives exp(-inf) = 0, i.e. a weight of exactly 0.\n"
            "# Zeroing the weight after the softmax produces that same 0, so the two are equivalent.\n"
            "q_trap_answer = \"A\"\n"
        )},
        {"mistake": "answers A, reasoning that a zero weight is a zero weight, and misses that the -inf route "
                    "also removes the blocked keys from the denominator while zeroing afterwards leaves rows "
                    "that no longer sum to 1 (the right answer is C)",
         "where": ["q7"]},
    ),
    "q8_score_madds_from_a_flop_helper_that_counts_two_per_multiply_add": (
        {"attn_entries": (
            "def matmul_flops(m: int, k: int, n: int) -> int:\n"
            "    \"\"\"FLOPs of an (m, k) @ (k, n) matrix product: one multiply and one add per term.\"\"\"\n"
            "    return 2 * m * k * n\n"
            "\n"
            "\n"
            "T, head_dim = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = matmul_flops(T, head_dim, T)\n"
            "cost_ratio = matmul_flops(2 * T, head_dim, 2 * T) // score_madds\n"
            "print(attn_entries, score_madds, cost_ratio)\n"
        )},
        {"mistake": "score_madds comes from a FLOP helper that counts a multiply and an add separately, "
                    "2 * T * d_k * T = 134217728, twice the number of multiply-adds asked for; attn_entries and "
                    "cost_ratio are right",
         "where": ["q8"]},
    ),
}
