"""Seventy-third blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind71.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: DEFENSIVE, VALIDATING, INPUT-NORMALISING CODE. The cells are written so that they "work for
any input": asserts on shapes and arguments, unsqueeze/squeeze pairs for low-rank inputs, `.clone()` of the
inputs, `try/except` fallbacks, clamps "in case", helpers with defaults filled in. Each wrong variant hides one
slip in that normalising layer, in a case the notebook's own example cells do not try: a shape helper that pads
every shape to 4-D with a heads axis and never trims it (q1); the scores clamped to +-5 "against outliers" before
the variance is taken, and the divisor read off the example tensors "instead of hard-coding" (q2); a 1-D input
unsqueezed and the result squeezed with an unconditional `squeeze(0)` that also drops a real leading axis of
size 1, and an assert that only negative dims are passed (q3); an assert that there are at least as many keys
as queries (q4); a heads axis added to 3-D inputs and `squeeze(1)` applied to every output (it removes a real
single head of 4-D inputs), a `try: bmm ... except RuntimeError:` whose 4-D fallback has no empty-row fix, the
inputs `.clone().detach()`-ed "so the caller's tensors are never touched", and a per-batch mask "given a heads
axis" with `unsqueeze(1)` whenever it is one rank short of Q, which misplaces a 2-D mask on 3-D inputs (q5); the
causal weights clamped away from zero "for a later log", and a batch axis added to the trace's scores so the
batched softmax code can be reused with dim=1, which then is the query axis (q6); answer D from a check that
renormalises the rows "to be safe" and so hides the shrink (q7); a cost helper whose defaults count the product
with V too (q8). The correct variants are defensive and right: asserts that accept every valid input, dtype-keeping
conversions, squeezes of only the axis that was added, masks broadcast with `torch.broadcast_to`.

Public material used (search tool):
- q3 / q5 (squeeze removing a batch or head axis of size 1): pytorch/pytorch#142852 ("squeeze() without an dim
  argument is the cause of many subtle bugs", B == 1), galsang/BiDAF-pytorch#26, NVIDIA/tacotron2#303,
  NVIDIA/DeepLearningExamples#765, TRI-ML/KP2D#14 (fixes for "when batch size is 1, squeeze will squeeze the axis
  of batch").
- The other kinds (over-strict asserts, clone().detach() of inputs, try/except fallbacks, clamps "in case",
  defaults in helpers) are the habits named in this round's brief.

How the variants were checked: a throwaway script under /tmp/w73-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's
formulas: the softmax on 1-D to 4-D inputs and every positive and negative dim, the attention on 3-D and
4-D shapes (batch of 1, single head), T_q != T_k, d_v != d_k, 2-D, 3-D and padding
masks, fully masked rows, large float16 logits, float64 / float32 / float16 / bfloat16, and gradients. The correct variants match everywhere; each wrong one differs where its "where" says and
nowhere else.

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

_SOFTMAX_DEFENSIVE = (
    "def stable_softmax(x, dim=-1):\n"
    "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
    "    x = torch.as_tensor(x)\n"
    "    assert x.is_floating_point(), f\"softmax needs floating logits, got {x.dtype}\"\n"
    "    assert -x.dim() <= dim < max(x.dim(), 1), f\"dim {dim} out of range for a {x.dim()}-d tensor\"\n"
    "    if x.numel() == 0:\n"
    "        return x.clone()\n"
    "    shifted = x - x.amax(dim=dim, keepdim=True)\n"
    "    exps = torch.exp(shifted)\n"
    "    out = exps / exps.sum(dim=dim, keepdim=True)\n"
    "    assert out.shape == x.shape and out.dtype == x.dtype\n"
    "    return out\n"
)

CORRECT = {
    "defensive_asserts_that_accept_every_valid_input_and_broadcast_to_mask": {
        "stable_softmax": _SOFTMAX_DEFENSIVE,
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_q = int(T_q)\n"
            "    T_k = T_q if T_k is None else int(T_k)\n"
            "    assert T_q >= 0 and T_k >= 0, \"lengths must be non-negative\"\n"
            "    rows = torch.arange(T_q).unsqueeze(1)   # (T_q, 1)\n"
            "    cols = torch.arange(T_k).unsqueeze(0)   # (1, T_k)\n"
            "    mask = cols <= rows\n"
            "    assert mask.dtype == torch.bool and mask.shape == (T_q, T_k)\n"
            "    return mask\n"
        ),
        "scaled_dot_product_attention": _SDPA_HEAD + (
            "    assert Q.dim() >= 2 and K.dim() >= 2 and V.dim() >= 2, \"need (..., T, d) tensors\"\n"
            "    assert Q.shape[-1] == K.shape[-1], f\"d_k differs: {Q.shape[-1]} vs {K.shape[-1]}\"\n"
            "    assert K.shape[-2] == V.shape[-2], f\"one value per key: {K.shape[-2]} vs {V.shape[-2]}\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    mask = torch.as_tensor(mask, device=scores.device)\n"
            "    if mask.dtype != torch.bool:\n"
            "        mask = mask != 0\n"
            "    mask = torch.broadcast_to(mask, scores.shape)\n"
            "    scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    has_key = mask.any(dim=-1, keepdim=True)\n"
            "    weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "low_rank_inputs_unsqueezed_and_only_the_added_axis_squeezed_back": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    added = x.dim() == 0\n"
            "    if added:                 # a lone number: treat it as a slice of length 1\n"
            "        x = x.unsqueeze(0)\n"
            "        dim = 0\n"
            "    dim = dim % x.dim()       # negative or positive, one form from here on\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    out = exps / exps.sum(dim=dim, keepdim=True)\n"
            "    return out.squeeze(0) if added else out\n"
        ),
        "scaled_dot_product_attention": _SDPA_HEAD + (
            "    one_seq = Q.dim() == 2 and K.dim() == 2 and V.dim() == 2\n"
            "    if one_seq:                                   # (T, d): give it a batch axis of 1\n"
            "        Q, K, V = Q.unsqueeze(0), K.unsqueeze(0), V.unsqueeze(0)\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        mask = mask.to(device=scores.device, dtype=torch.bool)\n"
            "        scores = scores.masked_fill(mask.logical_not(), float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    out = torch.matmul(weights, V).contiguous()\n"
            "    return out.squeeze(0) if one_seq else out     # only the axis we added\n"
        ),
    },
    "answers_normalised_to_python_types_with_checks": {
        "weights_shape": (
            "def _attn_shapes(q, k, v):\n"
            "    q, k, v = (tuple(int(s) for s in t) for t in (q, k, v))\n"
            "    assert q[-1] == k[-1], \"queries and keys must share d_k\"\n"
            "    assert k[-2] == v[-2], \"one value per key\"\n"
            "    return q[:-1] + (k[-2],), q[:-1] + (v[-1],)\n"
            "\n"
            "weights_shape, out_shape = _attn_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))\n"
            "assert all(isinstance(s, int) for s in weights_shape + out_shape)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "assert raw_scores.shape == (2, 5, 5)\n"
            "raw_score_var = float(raw_scores.var())\n"
            "scaled_score_var = float((raw_scores / math.sqrt(d_k)).var())\n"
            "HEAD_WIDTH = 64\n"
            "scale_divisor = float(math.sqrt(HEAD_WIDTH))\n"
            "assert math.isfinite(raw_score_var) and math.isfinite(scaled_score_var)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "scores3": (
            "Q3_, K3_, V3_ = (torch.as_tensor(t, dtype=torch.float64) for t in (Q3, K3, V3))\n"
            "scores3 = Q3_ @ K3_.T / math.sqrt(Q3_.shape[-1])\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3_\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "for w in (weights3, weights3_causal):\n"
            "    assert torch.allclose(w.sum(-1), torch.ones(3, dtype=w.dtype))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "_options = {\"A\", \"B\", \"C\", \"D\"}\n"
            "q_trap_answer = str(\" c \").strip().upper()\n"
            "assert q_trap_answer in _options\n"
        ),
        "attn_entries": (
            "def _score_madds(T, d_k):\n"
            "    assert isinstance(T, int) and isinstance(d_k, int)\n"
            "    return T * T * d_k\n"
            "\n"
            "attn_entries = int(1024 * 1024)\n"
            "score_madds = _score_madds(1024, 64)\n"
            "cost_ratio = _score_madds(2048, 64) // score_madds\n"
            "assert cost_ratio * score_madds == _score_madds(2048, 64)\n"
        ),
    },
    "contiguous_clones_a_try_that_only_reraises_and_where_on_empty_rows": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    if not isinstance(dim, int):\n"
            "        raise TypeError(f\"dim must be an int, got {type(dim).__name__}\")\n"
            "    x = x.contiguous()\n"
            "    m = x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(x - m)\n"
            "    return (exps / exps.sum(dim=dim, keepdim=True)).to(x.dtype)\n"
        ),
        "scaled_dot_product_attention": _SDPA_HEAD + (
            "    try:\n"
            "        scores = torch.matmul(Q, K.transpose(-2, -1))\n"
            "    except RuntimeError as err:\n"
            "        raise ValueError(f\"Q {tuple(Q.shape)} and K {tuple(K.shape)} do not fit\") from err\n"
            "    scores = scores / math.sqrt(Q.shape[-1])\n"
            "    if mask is not None:\n"
            "        keep = mask.clone().bool()\n"
            "        scores = scores.masked_fill(~keep, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = torch.where(keep.any(dim=-1, keepdim=True), weights, weights.new_zeros(()))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
}

WRONG = {
    "q1_shape_helper_pads_every_shape_to_4d_with_a_heads_axis_and_never_trims_it": (
        {"weights_shape": (
            "def _as_4d(shape):\n"
            "    # normalise: (T, d) -> (1, 1, T, d), (B, T, d) -> (B, 1, T, d), so one rule fits all\n"
            "    shape = tuple(int(s) for s in shape)\n"
            "    while len(shape) < 4:\n"
            "        shape = shape[:-2] + (1,) + shape[-2:] if len(shape) == 3 else (1,) + shape\n"
            "    return shape\n"
            "\n"
            "def _attn_shapes(q, k, v):\n"
            "    q, k, v = _as_4d(q), _as_4d(k), _as_4d(v)\n"
            "    assert q[-1] == k[-1] and k[-2] == v[-2]\n"
            "    return q[:-1] + (k[-2],), q[:-1] + (v[-1],)\n"
            "\n"
            "weights_shape, out_shape = _attn_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))\n"
        )},
        {"mistake": "the helper pads the 3-D shapes to 4-D with a heads axis of 1 and returns them padded, so "
                    "weights_shape is (4, 1, 10, 10) and out_shape (4, 1, 10, 128) instead of (4, 10, 10) and "
                    "(4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_scores_clamped_to_plus_minus_five_against_outliers_before_the_variance": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "# guard the statistics against a few extreme dot products\n"
            "raw_scores = raw_scores.clamp(-5.0, 5.0)\n"
            "raw_score_var = float(raw_scores.var())\n"
            "scaled_score_var = float((raw_scores / math.sqrt(d_k)).var())\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the raw scores are clamped to [-5, 5] before the variances are taken, which cuts off the "
                    "tails of scores whose standard deviation is near sqrt(8), so raw_score_var and "
                    "scaled_score_var come out too small; scale_divisor is right",
         "where": ["q2"]},
    ),
    "q2_scale_divisor_read_off_the_example_tensors_rather_than_typed_in": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "# never hard-code a width: take it from the data\n"
            "scale_divisor = math.sqrt(float(Q.shape[-1]))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "scale_divisor is taken from the example's d_k = 8 instead of the asked d_k = 64, giving "
                    "sqrt(8) = 2.83 instead of 8.0; the variances are right",
         "where": ["q2"]},
    ),
    "q3_one_d_input_unsqueezed_and_the_result_squeezed_at_zero_unconditionally": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    if x.dim() == 1:              # a single vector: make it a batch of one row\n"
            "        x = x.unsqueeze(0)\n"
            "        dim = -1\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    out = exps / exps.sum(dim=dim, keepdim=True)\n"
            "    return out.squeeze(0)         # undo the batch of one\n"
        )},
        {"mistake": "the result is squeezed at axis 0 whatever the input was, so any input whose first axis has "
                    "length 1 (a batch of one, a single row) loses that axis: the values are right but the shape "
                    "is not the input's",
         "where": ["q3", "q5"]},
    ),
    "q3_assert_that_dim_is_negative_rejects_positive_axes": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    # count axes from the end so the same call works for any number of batch axes\n"
            "    assert -x.dim() <= dim < 0, f\"pass dim counted from the end, got {dim}\"\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the assert only accepts negative dims, so a call with a positive dim (dim=0, dim=1, which the "
                    "question asks for) raises an AssertionError instead of returning the softmax",
         "where": ["q3"]},
    ),
    "q4_assert_that_there_are_at_least_as_many_keys_as_queries": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # a query past the last key would have nothing new to see\n"
            "    assert T_k >= T_q, f\"causal mask needs T_k >= T_q, got T_q={T_q}, T_k={T_k}\"\n"
            "    rows = torch.arange(T_q).unsqueeze(1)   # (T_q, 1)\n"
            "    cols = torch.arange(T_k).unsqueeze(0)   # (1, T_k)\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "the assert rejects masks with more queries than keys (T_q > T_k), which are valid top-left "
                    "aligned masks, so causal_mask(6, 4) raises instead of returning a (6, 4) mask",
         "where": ["q4", "q5"]},
    ),
    "q5_heads_axis_added_to_3d_inputs_then_squeeze_1_on_every_output": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    if Q.dim() == 3:                         # (B, T, d) -> (B, 1, T, d): one code path\n"
            "        Q, K, V = Q.unsqueeze(1), K.unsqueeze(1), V.unsqueeze(1)\n"
            "        if mask is not None and mask.dim() == 3:\n"
            "            mask = mask.unsqueeze(1)\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V).squeeze(1)   # back to the caller's rank\n"
        )},
        {"mistake": "the output is squeezed at axis 1 whether or not a heads axis was added, so 4-D inputs with a "
                    "single head (B, 1, T_q, d) come back as (B, T_q, d_v), one axis short; 3-D inputs and "
                    "several heads are right",
         "where": ["q5"]},
    ),
    "q5_bmm_path_in_a_try_whose_4d_fallback_has_no_empty_row_fix": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.size(-1)\n"
            "    try:\n"
            "        # fast path for (B, T, d)\n"
            "        scores = torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(d_k)\n"
            "        if mask is not None:\n"
            "            scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "            weights = stable_softmax(scores, dim=-1)\n"
            "            weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "        else:\n"
            "            weights = stable_softmax(scores, dim=-1)\n"
            "        return torch.bmm(weights, V)\n"
            "    except RuntimeError:\n"
            "        # other ranks: the general matmul\n"
            "        scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "        if mask is not None:\n"
            "            scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
        )},
        {"mistake": "bmm only takes 3-D tensors, so every 4-D call lands in the except branch, and that fallback "
                    "has no fix for fully masked queries: their output rows are NaN instead of zeros (4-D only; "
                    "3-D inputs are right)",
         "where": ["q5"]},
    ),
    "q5_inputs_cloned_and_detached_so_the_callers_tensors_are_never_touched": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    # work on private copies so nothing we do can change the caller's tensors\n"
            "    Q, K, V = Q.clone().detach(), K.clone().detach(), V.clone().detach()\n"
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
        )},
        {"mistake": "the inputs are copied with .clone().detach(), which cuts them off the autograd graph: the "
                    "values are right but the output does not require grad and no gradient reaches Q, K or V",
         "where": ["q5"]},
    ),
    "q5_mask_one_rank_short_of_q_given_a_heads_axis_with_unsqueeze_1": (
        {"scaled_dot_product_attention": _SDPA_HEAD + (
            "    if mask is not None and mask.dim() == Q.dim() - 1:\n"
            "        # a per-sequence (B, T_q, T_k) mask for (B, H, T_q, d) inputs: insert the heads axis\n"
            "        mask = mask.unsqueeze(1)\n"
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
        )},
        {"mistake": "any mask one rank short of Q gets unsqueeze(1); that is right for a (B, T_q, T_k) mask on "
                    "4-D inputs, but a 2-D (T_q, T_k) mask on 3-D inputs becomes (T_q, 1, T_k), which either "
                    "fails to broadcast or broadcasts to a wrong (T_q, B, ...) result",
         "where": ["q5"]},
    ),
    "q6_causal_weights_clamped_away_from_zero_for_a_later_log": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "weights3_causal = weights3_causal.clamp(min=0.01)   # no exact zeros, in case we take a log\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the causal weights are clamped to at least 0.01, so the blocked entries above the diagonal "
                    "are 0.01 instead of 0 and those rows sum to more than 1; weights3 and out3 are right",
         "where": ["q6"]},
    ),
    "q6_batch_axis_added_to_reuse_the_batched_softmax_call_with_dim_1": (
        {"scores3": (
            "# give the trace a batch axis so it runs through exactly the batched code path\n"
            "scores3 = (Q3 @ K3.T / math.sqrt(4)).unsqueeze(0)            # (1, 3, 3)\n"
            "weights3 = stable_softmax(scores3, dim=1).squeeze(0)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1).squeeze(0)\n"
            "scores3 = scores3.squeeze(0)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "after the batch axis is added, dim=1 is the query axis, so weights3 is normalised down the "
                    "columns (each key's weights sum to 1) instead of along the rows, and out3 is wrong with it; "
                    "weights3_causal is right",
         "where": ["q6"]},
    ),
    "q7_check_renormalises_the_rows_to_be_safe_and_only_float16_differs_answers_d": (
        {"q_trap_answer": (
            "_s = torch.randn(5, 5)\n"
            "_blocked = ~causal_mask(5)\n"
            "def _rows_safe(w):\n"
            "    return w / w.sum(-1, keepdim=True).clamp_min(1e-12)   # keep every row a distribution\n"
            "_ref = _rows_safe(F.softmax(_s.masked_fill(_blocked, float(\"-inf\")), dim=-1))\n"
            "_short = F.softmax(_s, dim=-1)\n"
            "_short[_blocked] = 0.0\n"
            "_short = _rows_safe(_short)\n"
            "# they agree in float32 (and float64); in float16 the rounding differs, so D\n"
            "q_trap_answer = \"A\" if torch.allclose(_ref, _short) is False else \"D\"\n"
        )},
        {"mistake": "the check renormalises both weight matrices \"to be safe\", which hides exactly the shrink of "
                    "the rows that is wrong with the shortcut, so it answers D (only float16 differs); the right "
                    "answer is C",
         "where": ["q7"]},
    ),
    "q8_cost_helper_defaults_count_the_product_with_v_too": (
        {"attn_entries": (
            "def _madds(T, d_k=64, d_v=None):\n"
            "    d_v = d_k if d_v is None else d_v     # default: values as wide as keys\n"
            "    return T * T * d_k + T * T * d_v\n"
            "\n"
            "attn_entries = 1024 ** 2\n"
            "score_madds = _madds(1024)\n"
            "cost_ratio = _madds(2048) // _madds(1024)\n"
        )},
        {"mistake": "the helper's default fills in d_v and adds the weights @ V product, so score_madds is "
                    "2 * 1024^2 * 64 = 134217728 instead of the 67108864 of Q @ K.T alone; attn_entries and "
                    "cost_ratio are right",
         "where": ["q8"]},
    ),
}
