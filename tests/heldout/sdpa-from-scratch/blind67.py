"""Sixty-seventh blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind66.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: THE GLUE BETWEEN PARTS. In each wrong variant the pieces are written right and the mistake
is in how they are called or wired together: a shape helper declared (q, k, v) but called in the Keras
Attention order [query, value, key] (q1); scores divided in place with `div_`, so the "raw" tensor and the
scaled one are the same object and the raw variance is read after the division (q2), and the divisor for a
width-64 head read off question 1's `out_shape`, whose last entry is d_v = 128 (q2); a softmax that shifts and
exponentiates its argument in place, overwriting the caller's logits (q3; it breaks q5's autograd and q6's
causal weights, which are computed from scores3 after the unmasked softmax has overwritten it), and one whose
denominator is summed with `dtype=torch.float32` and never cast back (q3, and q5 in half precision); `mask.tril()`
called for its effect and its result dropped (q4); `scores.masked_fill(...)` with its result dropped, a mask
accepted by the attention and not forwarded to the weights helper (whose `mask=None` default then applies), an
attention-dropout parameter with the paper's 0.1 as default applied with `F.dropout` (training defaults to
True), and queries scaled with an in-place `/=` on the caller's tensor (q5); the causal weights read off the
student's own attention with identity values but with K3 and Q3 passed in swapped positions, and out3 mixed
with the causal weights computed just before it instead of weights3 (q6); the q7 shortcut tried on q6's
weights3_causal, whose blocked entries are already zero, so the check passes and the answer is A (q7); a cost
helper that returns (madds, entries) unpacked as (entries, madds) (q8). The correct variants wire the same
pieces right: the mask forwarded by keyword, an out-of-place shift with the sum in the input's dtype, the tril
result assigned back, the trace read off the student's own attention called by keyword, the shape helper called
by keyword, the in-place division done on a clone, a namedtuple unpacked by field, the shortcut tried on the
unmasked weights3.

Public material used (search tool):
- q1 (Keras order): tensorflow.org tf.keras.layers.Attention (r2.3 to r2.16): "inputs: List of the following
  tensors: query, value, key" (key optional, after value), next to PyTorch's (query, key, value) order.
- q2 / q4 / q5 (result of an out-of-place op dropped, in-place alias): the PyTorch docs of torch.tril ("Returns
  the lower triangular part ... the other elements of the result tensor out are set to 0": a new tensor) and
  the masked_fill write-ups on codegenes.net and typevar.dev / runebook.dev ("masked_fill returns a copy; use
  masked_fill_ to change the tensor itself"), which explain the silent no-op when the result is not assigned;
  the same in-place/out-of-place pairing (div_ returns self) makes raw_scores and scaled_scores one object.
- q3 / q5 (in-place on the caller's tensor): pytorch/pytorch#73249 ("Existing MHA: do in-place division on q",
  `q /= math.sqrt(E)`: albanD asks for a note that the q given must not be reused, and it was dropped as "not
  compatible with autograd"); the autograd errors "a leaf Variable that requires grad is being used in an
  in-place operation" and "one of the variables needed for gradient computation has been modified by an
  inplace operation".
- q3 (float32 accumulation not cast back): pytorch/pytorch#123911 (`torch.softmax(inp, dtype=torch.float32)
  .to(torch.float16)` in attention code, where the cast back is the step that keeps the dtype),
  huggingface/transformers#27341 (softmax upcast to float32 in generation), tinygrad/tinygrad#3005 (half sums
  accumulated in float and "cast the result back to half to match torch/jax output dtype").
- q5 (dropout): pytorch/pytorch#26338 ("Behavior of F.dropout in eval mode": the functional form ignores
  .eval(); "you need to manually specify the arg training=..."), pytorch/pytorch#11999, rixwew/pytorch-fm#21
  (`F.dropout(attn_scores, p=0.1)` without training=self.training), Coderx7/SimpleNet#2.
- q5 (parameter accepted, not forwarded): the notebook's own statement (the mask is an argument of
  scaled_dot_product_attention; a helper's keyword default is None).
- q6 (queries and keys swapped): the same positional (query, key, value) versus other orders as q1, and the
  notebook's q6 hint that query 2 already sees every key (the only row where the swap shows).
- q7 / q8 (answer from the wrong variable, wrong tuple element): the notebook's own cells (q6's weights3 and
  weights3_causal are both in scope when q7 is answered).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a broken
`stable_softmax` may also cost q5 and q6; a broken `causal_mask` q5 and q6).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository (CPU only, no GPU
used): softmax against `torch.softmax` on 1-D to 4-D inputs along every axis in float64, float32, float16 and
bfloat16 (dtype and shape kept, the input left unchanged), float16 logits in the thousands, -inf entries, and
the gradient of a leaf; masks against `torch.ones(T_q, T_k).tril().bool()` for T_q, T_k in 1..6 and with T_k
left out; attention against a float64 reference (softmax with fully masked rows set to zero) and
`F.scaled_dot_product_attention` on 3-D and 4-D inputs with T_q != T_k, T_q = 1, T_k = 1, d_v != d_k, with no
mask, a causal mask, a 2-D random mask with a fully masked query and a 4-D random mask, in all four dtypes,
the inputs left unchanged, float16 inputs with large scores, and gradients of Q, K and V against PyTorch's;
the answers of q1, q2, q6, q7 and q8 against the values from the notebook's formulas. Each variant's notebook
was run top to bottom (all code cells but otter's) with the variant's cells put in as harness.py does; none
raises there. The correct ones pass every check; each wrong one fails checks only in its "where".
Caveats: the in-place softmax returns right values (it shows in a changed input, a leaf that requires grad, q5's
backward and q6's causal weights); the float32-sum softmax is off by about 3e-8 in float64 and has the wrong
dtype only for float16 and bfloat16; the in-place query scaling returns right values on a first call without
gradients (it shows in the caller's Q, a Q that requires grad, or a reference computed after the call); the
dropout variant is random; the tril-dropped mask may cost q5 only if its tests use the student's causal_mask.

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
_SDPA_DOC = (
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)
_SDPA_HEAD = "def scaled_dot_product_attention(Q, K, V, mask=None):\n" + _SDPA_DOC
_SDPA_TAIL = (
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "        has_key = mask.any(dim=-1, keepdim=True)\n"
    "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
    "    else:\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
)
_WEIGHTS_HELPER = (
    "def attention_weights(Q, K, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) over the keys; fully masked queries get a row of zeros.\"\"\"\n"
    "    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n"
    "    if mask is None:\n"
    "        return stable_softmax(scores, dim=-1)\n"
    "    weights = stable_softmax(scores.masked_fill(~mask, float(\"-inf\")), dim=-1)\n"
    "    return torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
    "\n"
    "\n"
)
_SHAPE_HELPER = (
    "def attn_shapes(q_shape, k_shape, v_shape):\n"
    "    \"\"\"(weights shape, output shape) of attention on tensors of these shapes.\"\"\"\n"
    "    lead, t_q = tuple(q_shape[:-2]), q_shape[-2]\n"
    "    return lead + (t_q, k_shape[-2]), lead + (t_q, v_shape[-1])\n"
    "\n"
    "\n"
    "Q_shape, K_shape, V_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
)
_Q2_HEAD = "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\n"
_Q2_PRINT = "print(raw_score_var, scaled_score_var, scale_divisor)\n"
_Q6_SCORES = "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
_Q6_PRINT = "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"

CORRECT = {
    "sdpa_weights_helper_with_the_mask_forwarded_by_keyword": {
        "scaled_dot_product_attention": (
            _WEIGHTS_HELPER +
            _SDPA_HEAD +
            "    weights = attention_weights(Q, K, mask=mask)   # the caller's mask, passed on\n"
            "    return weights @ V\n"
        ),
    },
    "softmax_out_of_place_amax_shift_mask_from_tril_assigned_back": {
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    shifted = x - x.amax(dim=dim, keepdim=True)   # a new tensor: the caller's x is left alone\n"
            "    e = shifted.exp()\n"
            "    return e.div(e.sum(dim=dim, keepdim=True))   # sum kept in x's own dtype\n"
        ),
        "causal_mask": (
            _MASK_HEAD +
            "    T_k = T_q if T_k is None else T_k\n"
            "    mask = torch.ones(T_q, T_k, dtype=torch.bool)\n"
            "    mask = mask.tril()   # tril returns a new tensor: keep it\n"
            "    return mask\n"
        ),
    },
    "trace_read_off_own_attention_called_by_keyword_with_identity_values": {
        "scores3": (
            _Q6_SCORES +
            "_I3 = torch.eye(3, dtype=torch.float64)      # values = identity: the output is the weight matrix\n"
            "weights3 = scaled_dot_product_attention(Q=Q3, K=K3, V=_I3)\n"
            "out3 = scaled_dot_product_attention(Q=Q3, K=K3, V=V3)\n"
            "weights3_causal = scaled_dot_product_attention(Q=Q3, K=K3, V=_I3, mask=causal_mask(3))\n" + _Q6_PRINT
        ),
    },
    "shapes_from_keyword_called_helper_scaled_scores_from_a_clone_divided_in_place": {
        "weights_shape": (
            _SHAPE_HELPER +
            "weights_shape, out_shape = attn_shapes(q_shape=Q_shape, v_shape=V_shape, k_shape=K_shape)\n"
        ),
        "d_k": (
            _Q2_HEAD +
            "scaled_scores = raw_scores.clone().div_(math.sqrt(d_k))   # a copy: raw_scores keeps its values\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = scaled_scores.var().item()\n"
            "scale_divisor = math.sqrt(Q_shape[-1])                    # q1's head width, d_k = 64\n" + _Q2_PRINT
        ),
    },
    "cost_namedtuple_unpacked_by_field_trap_checked_on_the_unmasked_weights3": {
        "attn_entries": (
            "from collections import namedtuple\n"
            "\n"
            "Cost = namedtuple(\"Cost\", [\"madds\", \"entries\"])\n"
            "\n"
            "\n"
            "def attention_cost(T, d_k):\n"
            "    return Cost(madds=T * T * d_k, entries=T * T)\n"
            "\n"
            "\n"
            "_c = attention_cost(1024, 64)\n"
            "attn_entries, score_madds = _c.entries, _c.madds\n"
            "cost_ratio = attention_cost(2048, 64).madds // score_madds\n"
        ),
        "q_trap_answer": (
            "_w = weights3.clone()                      # the plain softmax weights of q6\n"
            "_w[~causal_mask(3)] = 0.0                  # the classmate's shortcut\n"
            "_same = torch.allclose(_w @ V3, weights3_causal @ V3)\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        ),
    },
}

WRONG = {
    "q1_shape_helper_called_in_the_keras_query_value_key_order": (
        {"weights_shape": (
            _SHAPE_HELPER +
            "weights_shape, out_shape = attn_shapes(Q_shape, V_shape, K_shape)   # query, value, key\n"
        )},
        {"mistake": "the shape helper is declared (q, k, v) but called positionally in the Keras Attention "
                    "order [query, value, key], so the value shape lands in the key slot and the key shape in "
                    "the value slot: weights_shape (4, 10, 10) comes out right only because T_k is the same, "
                    "and out_shape is (4, 10, 64) with d_k as its width instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_scores_divided_in_place_so_the_raw_variance_is_read_after_scaling": (
        {"d_k": (
            _Q2_HEAD +
            "scaled_scores = raw_scores.div_(math.sqrt(d_k))   # no need for a second (2, 5, 5) tensor\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = scaled_scores.var().item()\n"
            "scale_divisor = math.sqrt(64)\n" + _Q2_PRINT
        )},
        {"mistake": "the scores are divided in place with div_, which returns the same tensor, so raw_scores "
                    "and scaled_scores are one object and the raw variance is read after the division: "
                    "raw_score_var is the scaled variance (about 0.83) instead of the raw one (about 6.6); "
                    "scaled_score_var and scale_divisor are right",
         "where": ["q2"]},
    ),
    "q2_divisor_for_d_k_64_read_off_q1s_out_shape_whose_last_axis_is_d_v": (
        {"d_k": (
            _Q2_HEAD +
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(out_shape[-1])   # the d_k = 64 head of question 1\n" + _Q2_PRINT
        )},
        {"mistake": "the divisor for a head of width 64 is taken from question 1's variable out_shape, whose "
                    "last entry is the value width d_v = 128, not d_k = 64: scale_divisor is sqrt(128) = 11.31 "
                    "instead of 8.0 (the two variances are right)",
         "where": ["q2"]},
    ),
    "q3_shift_and_exp_done_in_place_on_the_callers_logits": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    x.sub_(x.amax(dim=dim, keepdim=True))   # in place: no extra copy of a big score tensor\n"
            "    x.exp_()\n"
            "    return x / x.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the shift and the exponential are done in place on the argument, so the caller's logits "
                    "are overwritten by their shifted exponentials: the returned weights are right, but a leaf "
                    "that requires grad raises, autograd fails in backward (amax saved the tensor that was then "
                    "modified), and a caller that reuses its scores gets wrong numbers (q6's scores3 are "
                    "exponentials by the time the causal weights are computed from them)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_denominator_summed_with_dtype_float32_promotes_the_weights": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    exps = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
            "    # accumulate the denominator in float32 so float16 sums do not lose digits\n"
            "    return exps / exps.sum(dim=dim, keepdim=True, dtype=torch.float32)\n"
        )},
        {"mistake": "the denominator is summed with dtype=torch.float32 and never cast back, so the division "
                    "promotes the result: float16 and bfloat16 logits give float32 weights (and q5's float16 "
                    "attention then multiplies float32 weights with float16 values and raises), and float64 "
                    "sums are rounded to float32",
         "where": ["q3", "q5"]},
    ),
    "q4_tril_result_not_assigned_so_the_mask_stays_all_true": (
        {"causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    mask = torch.ones(T_q, T_k, dtype=torch.bool)\n"
            "    mask.tril()   # keep j <= i\n"
            "    return mask\n"
        )},
        {"mistake": "torch.tril returns a new tensor and its result is thrown away (tril_ is the in-place "
                    "one), so the all-True tensor is returned: every query sees every key, and q6's causal "
                    "weights come out equal to the unmasked ones",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_masked_fill_result_not_assigned_so_the_scores_are_never_masked": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "scores.masked_fill(...) returns a new tensor and its result is dropped (masked_fill_ is "
                    "the in-place one), so the blocked keys keep their scores and get weight; only the fully "
                    "masked queries come out right (zeroed by the later torch.where)",
         "where": ["q5"]},
    ),
    "q5_weights_helper_called_without_forwarding_the_mask": (
        {"scaled_dot_product_attention": (
            _WEIGHTS_HELPER +
            _SDPA_HEAD +
            "    weights = attention_weights(Q, K)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "the mask is accepted by scaled_dot_product_attention but not passed on to the helper "
                    "that builds the weights, whose mask=None default then applies: every mask is ignored "
                    "(blocked keys get weight, fully masked queries get the average of V instead of zeros)",
         "where": ["q5"]},
    ),
    "q5_attention_dropout_of_the_paper_applied_with_functional_dropout_in_training_mode": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None, dropout_p=0.1):\n" + _SDPA_DOC +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n" +
            _SDPA_TAIL +
            "    weights = F.dropout(weights, dropout_p)   # attention dropout, P_drop = 0.1 as in the paper\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "an attention-dropout parameter defaulting to the paper's 0.1 is applied with F.dropout, "
                    "whose training flag defaults to True, so every call (the grader passes no dropout_p) "
                    "zeroes about a tenth of the weights at random and scales the rest by 1/0.9: the outputs "
                    "are random and do not match softmax(QK^T/sqrt(d_k))V",
         "where": ["q5"]},
    ),
    "q5_queries_scaled_in_place_change_the_callers_tensor": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    Q /= math.sqrt(d_k)   # scale the (T_q, d_k) queries once, cheaper than the (T_q, T_k) scores\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1))\n" +
            _SDPA_TAIL +
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the queries are scaled with an in-place /=, which divides the caller's own Q tensor: a "
                    "Q that requires grad raises (leaf used in an in-place operation), and a caller that uses "
                    "Q again (a second call, a reference computed after; the comparison cell's loop) works on "
                    "queries already divided by sqrt(d_k)",
         "where": ["q5"]},
    ),
    "q6_causal_weights_read_off_own_attention_with_queries_and_keys_passed_swapped": (
        {"scores3": (
            _Q6_SCORES +
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# with the identity as values, attention returns its weight matrix\n"
            "weights3_causal = scaled_dot_product_attention(K3, Q3, torch.eye(3, dtype=torch.float64), causal_mask(3))\n"
            + _Q6_PRINT
        )},
        {"mistake": "the causal weights are read off the student's own attention with identity values, but "
                    "K3 and Q3 are passed in the wrong positional order, so the scores are K3 Q3^T (the "
                    "transpose of scores3) and the causal softmax is taken over the wrong pairs: row 2 of "
                    "weights3_causal is softmax([1, 1, 1.5]) = [0.274, 0.274, 0.452] instead of [0.307, 0.186, "
                    "0.507] (rows 0 and 1 happen to match, since scores3[0, 1] = scores3[1, 0])",
         "where": ["q6"]},
    ),
    "q6_out3_mixed_with_the_causal_weights_computed_just_before_it": (
        {"scores3": (
            _Q6_SCORES +
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "out3 = weights3_causal @ V3\n" + _Q6_PRINT
        )},
        {"mistake": "out3 is computed after both weight matrices, from the wrong one: weights3_causal @ V3 "
                    "instead of the unmasked weights3 @ V3 that the question asks for (rows 0 and 1 of out3 "
                    "are wrong; weights3 and weights3_causal are right)",
         "where": ["q6"]},
    ),
    "q7_shortcut_tried_on_the_already_causal_weights3_causal_answers_a": (
        {"q_trap_answer": (
            "_w = weights3_causal.clone()\n"
            "_w[~causal_mask(3)] = 0.0                  # the classmate's shortcut\n"
            "_same = torch.allclose(_w @ V3, weights3_causal @ V3)\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        )},
        {"mistake": "the shortcut is tried on q6's weights3_causal, whose blocked entries are already 0, "
                    "instead of on the plain softmax weights3: zeroing changes nothing, the check passes and "
                    "the answer is A instead of C (zeroing after the softmax leaves rows that no longer sum "
                    "to 1)",
         "where": ["q7"]},
    ),
    "q8_cost_helper_returns_madds_first_but_is_unpacked_entries_first": (
        {"attn_entries": (
            "def attention_cost(T, d_k):\n"
            "    \"\"\"Multiply-adds of Q @ K.T and entries of the T x T weight matrix.\"\"\"\n"
            "    return T * T * d_k, T * T\n"
            "\n"
            "\n"
            "attn_entries, score_madds = attention_cost(1024, 64)\n"
            "cost_ratio = attention_cost(2048, 64)[0] // attention_cost(1024, 64)[0]\n"
        )},
        {"mistake": "the helper returns (multiply-adds, entries) but its result is unpacked as (entries, "
                    "multiply-adds), so attn_entries is 67,108,864 and score_madds 1,048,576, swapped; "
                    "cost_ratio (4) is right because it indexes the tuple",
         "where": ["q8"]},
    ),
}
