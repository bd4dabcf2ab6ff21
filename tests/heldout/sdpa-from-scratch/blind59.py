"""Fifty-ninth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind58.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: a SYMPTOM PATCHED, not the cause. Each wrong variant is the code a student is left with
after an error message or a failing check went away: the keys and values probes unpacked in the wrong order
and the 64-vs-128 matmul error silenced by slicing the keys to 64 features (q1); `.item()` on per-row variances
("a Tensor with 10 elements cannot be converted to Scalar") patched by indexing the first row, and the
TypeError of an uncalled `Q.size` patched by `Q.numel()` (q2); the in-place normalisation that autograd
refused ("modified by an inplace operation") patched by detaching the exponentials, and the off-by-one
negative-dim IndexError patched by clipping the axis into range (q3); a mask built keys-by-queries and
transposed to pass the shape check (q4); NaN rows cleared in NumPy after the `.detach().numpy()` the error
message itself suggests; the leaf in-place error on `Q /= sqrt(d_k)` dodged through `Q.data`; the Half/Float
matmul clash from default-dtype zeros patched by casting V to the weights' dtype; the 0/0 NaN of fully masked
rows patched by letting every query see key 0 (q5); the empty slice `scores3[0, :0]` patched with `max(i, 1)`,
and the NaN of `0 * -inf` patched with `nan_to_num`, which also zeroes every kept score (q6); a failing row-sum
check on the classmate's shortcut patched by renormalising it, after which it matches and the answer becomes
A (q7); a one-based index into a two-element list clipped into range, so the ratio divides a count by itself
(q8). The correct variants handle the same symptoms at their cause: a detached max (the shift needs no
gradient) with an out-of-place division; a bool triangle built in place on a fresh tensor; an attention whose
fully masked rows are cleared with `nan_to_num` (the only place a NaN can come from) and a scale folded into Q as
a Python float; an attention that upcasts half types to float32 with `promote_types` and casts back; and
q1/q2/q6/q7/q8 answered by probes, a flattened variance, F.softmax, a real row-sum check and math.prod.

Public material used (search tool):
- q1, q5 (dtype and shape clashes patched at the symptom): Comfy-Org/ComfyUI#6907 and
  cubiq/ComfyUI_IPAdapter_plus#140 ("mat1 and mat2 must have the same dtype, but got Float and Half"),
  pytorch/pytorch#161489 (SDPA's math path: a float mask makes `attn` float32 and the product with bf16 V
  raises the same error) and tinygrad/tinygrad#5100 ("fix attention to always return in the same dtype as
  input": a mid cast to the default float left half inputs with float32 outputs).
- q2: androidkt / lxadm / hatchjs pages on "only one element tensors can be converted to Python scalars"
  (the advice: get the tensor down to one element before calling .item()).
- q3: chunhuizhang/bilibili_vlogs and Zijing5/PyTorch_AboutSomeDetails notebooks ("one of the variables needed
  for gradient computation has been modified by an inplace operation"), taourl.com and runebook.dev answers that
  recommend `.detach()` before the in-place op; qiita.com/sshuv "Dimension out of range (expected to be in range
  of [-1, 0] ...)" on how negative axes are counted.
- q5 (.data / no_grad): pytorch/examples#779 (`p.add_` on a leaf raised, "using `p.data.add_` fixes this"),
  source-separation/tutorial#18 and Atcold/NYU-DLSP20#765 (leaf in-place errors silenced with no_grad / clone).
- q5 (NumPy): androidkt.com and tutorialreference.com on "Can't call numpy() on Tensor that requires grad. Use
  tensor.detach().numpy() instead": the message names the fix, which cuts the graph.
- q5 (empty rows): THUwangcy/ReChorus#8 and microsoft/unilm#1642 (NaN after masked_fill(-inf) on a fully masked
  row, cleaned after the softmax), pytorch/pytorch#41508; a code excerpt `ensure_attention_to_self` that opens
  one key for every query so that no row is empty, the pattern the key-0 variant copies too widely.
- q6: cerebroai/reformers#3 ("Multiply by float('-inf') causes nan output") and tinygrad/tinygrad#11760
  ("(mask * x) is wrong because 0*inf is nan"); daquang/YAMDA#12 ("max(): Expected reduction dim 0 to have
  non-zero size"), the error an empty prefix slice raises.
- q7, q8: no outside source; the renormalised shortcut is the fix of option C applied inside the experiment
  that was meant to test it, and the 1-based list index is the same habit as the notebook's sum from i = 1.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5 and q6; a broken `stable_softmax` may cost q5 and q6, whose trace
calls it). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository: softmax
against `torch.softmax` on 1-D to 4-D inputs along every positive and negative axis in float64, float32,
float16 and bfloat16 (dtype kept), float16 logits in the thousands with -inf entries, and gradients; masks
against `torch.ones(T_q, T_k).tril().bool()` for square and rectangular sizes, with and without T_k; attention
against `F.scaled_dot_product_attention` (fully masked rows set to zero) on 3-D and 4-D inputs with
T_q != T_k and d_v != d_k, no mask, a causal mask, a 2-D random mask and a batched random mask with a fully
masked query, in all four dtypes (dtype of the result kept), float16 inputs with large scores, gradients
against those of the reference, and the caller's inputs left unchanged; all on the CPU (no GPU was used).
Each variant's notebook was also run top to bottom (all code cells but otter's). The correct ones run without
an error and match full_marks' values; each wrong one differs from the right answer (or raises) where the
notebook's tests look, and only in its "where". None of the wrong variants raises in the notebook itself.

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
_SDPA_MASKED_TAIL = (
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "        has_key = mask.any(dim=-1, keepdim=True)\n"
    "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
    "    else:\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
)
_Q2_TAIL = (
    "raw_score_var = raw_scores.var().item()\n"
    "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
    "scale_divisor = math.sqrt(64)\n"
    "print(raw_score_var, scaled_score_var, scale_divisor)\n"
)
_TRAP_HEAD = (
    "_g = torch.Generator().manual_seed(0)\n"
    "_scores = torch.randn(4, 4, generator=_g, dtype=torch.float64)\n"
    "_mask = causal_mask(4)\n"
    "_right = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
    "_short = F.softmax(_scores, dim=-1)          # the classmate's lines\n"
    "_short[~_mask] = 0.0\n"
)

CORRECT = {
    "softmax_detached_max_shift_out_of_place_division": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    # the shift cancels in the ratio, so it needs no gradient of its own\n"
            "    m = torch.max(x, dim, keepdim=True)[0].detach()\n"
            "    e = torch.exp(x - m)\n"
            "    return torch.div(e, torch.sum(e, dim, keepdim=True))\n"
        ),
    },
    "mask_bool_ones_tril_in_place_on_a_fresh_tensor": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    T_k = T_q if T_k is None else T_k\n"
            "    m = torch.ones(T_q, T_k, dtype=torch.bool)\n"
            "    m.tril_()                      # in place on a tensor nobody else holds\n"
            "    return m\n"
        ),
    },
    "sdpa_scale_folded_into_q_as_python_float_nan_rows_cleared_with_nan_to_num": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    scale = Q.shape[-1] ** -0.5                 # a Python float: no precision lost in float64\n"
            "    scores = (Q * scale) @ K.mT\n"
            "    if mask is not None:\n"
            "        scores = torch.where(mask, scores, torch.full_like(scores, float(\"-inf\")))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    # a NaN can only come from a row whose keys are all masked (-inf - -inf): those rows get 0\n"
            "    weights = torch.nan_to_num(weights, nan=0.0)\n"
            "    return weights @ V\n"
        ),
    },
    "sdpa_half_types_upcast_with_promote_types_and_cast_back": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    out_dtype = Q.dtype\n"
            "    work = torch.promote_types(out_dtype, torch.float32)   # float16/bfloat16 -> float32, float64 stays\n"
            "    q, k, v = Q.to(work), K.to(work), V.to(work)\n"
            "    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(K.shape[-1])\n"
            "    if mask is not None:\n"
            "        mask = torch.as_tensor(mask, dtype=torch.bool, device=scores.device)\n"
            "        scores = scores.masked_fill(mask.logical_not(), float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, v).to(out_dtype)\n"
        ),
    },
    "answers_probed_flattened_variance_functional_softmax_real_row_sum_check_math_prod": {
        "weights_shape": (
            "_Qp, _Kp, _Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "weights_shape = tuple(int(n) for n in (_Qp @ _Kp.mT).shape)\n"
            "out_shape = tuple(int(n) for n in F.scaled_dot_product_attention(_Qp, _Kp, _Vp).shape)\n"
        ),
        "raw_score_var": (
            "d_k = Q.size(-1)\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "raw_score_var = float(raw_scores.flatten().var(correction=1))\n"
            "scaled_score_var = float((raw_scores * d_k ** -0.5).flatten().var(correction=1))\n"
            "scale_divisor = float(64 ** 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "weights3": (
            "scores3 = Q3 @ K3.mT / 2.0                  # sqrt(d_k) = sqrt(4) = 2\n"
            "weights3 = F.softmax(scores3, dim=-1)\n"
            "out3 = torch.mm(weights3, V3)\n"
            "weights3_causal = F.softmax(scores3.masked_fill(causal_mask(3).logical_not(), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            _TRAP_HEAD +
            "_sums = _short.sum(dim=-1)\n"
            "# the rows with a blocked key no longer sum to 1: that is option C\n"
            "q_trap_answer = \"C\" if not torch.allclose(_sums, torch.ones_like(_sums)) else \"A\"\n"
        ),
        "attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = math.prod((T, T))\n"
            "score_madds = math.prod((T, T, d_head))\n"
            "cost_ratio = math.prod((2 * T, 2 * T, d_head)) // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_keys_and_values_probes_unpacked_in_the_wrong_order_and_the_shape_error_sliced_away": (
        {"weights_shape": (
            "_Qp, _Vp, _Kp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)   # Q, K, V\n"
            "# Q @ K^T raised \"Expected size ... to be: [4, 64] but got: [4, 128]\": keep d_k features\n"
            "_W = _Qp @ _Kp[..., :64].transpose(-2, -1)\n"
            "weights_shape = tuple(_W.shape)\n"
            "out_shape = tuple((_W @ _Vp).shape)\n"
        )},
        {"mistake": "the probes are unpacked as Q, V, K while the shapes are listed Q, K, V, so the keys probe "
                    "is the (4, 10, 128) one; the resulting matmul error is silenced by slicing the keys to 64 "
                    "features, and the output is then mixed from the 64-wide probe, giving out_shape "
                    "(4, 10, 64) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_item_error_on_per_row_variances_patched_by_indexing_the_first_row": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "# variance over the keys of each query; .item() said \"a Tensor with 10 elements cannot be\n"
            "# converted to Scalar\", so take one element\n"
            "raw_score_var = raw_scores.var(dim=-1)[0, 0].item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var(dim=-1)[0, 0].item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the variances are taken per query row (dim=-1) and the .item() error on the (2, 5) result "
                    "is patched by indexing [0, 0], so both numbers are the variance of the 5 scores of the "
                    "first query of the first sequence instead of the variance of all 50 scores",
         "where": ["q2"]},
    ),
    "q2_uncalled_size_method_patched_with_numel_scales_by_root_of_all_entries": (
        {"raw_score_var": (
            "d_k = Q.numel()          # math.sqrt(Q.size) raised a TypeError; numel() gives the size\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            + _Q2_TAIL
        )},
        {"mistake": "d_k is taken as Q.numel() = 2 * 5 * 8 = 80 (the number of entries of Q, reached for after "
                    "math.sqrt(Q.size) raised) instead of the head width Q.shape[-1] = 8, so the scores are "
                    "divided by sqrt(80) and scaled_score_var is ten times too small",
         "where": ["q2"]},
    ),
    "q3_inplace_normalisation_error_patched_by_detaching_the_exponentials": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    # backward raised \"one of the variables needed for gradient computation has been modified\n"
            "    # by an inplace operation\" on the /= below; detaching the exponentials made it go away\n"
            "    exps = torch.exp(shifted).detach()\n"
            "    exps /= exps.sum(dim=dim, keepdim=True)\n"
            "    return exps\n"
        )},
        {"mistake": "the exponentials are detached so that the in-place division no longer upsets autograd; "
                    "the values are right but the result is cut from the graph, so no gradient reaches the "
                    "logits (nor Q, K through the attention)",
         "where": ["q3", "q5"]},
    ),
    "q3_negative_dim_index_error_patched_by_clipping_to_the_last_axis": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    if dim < 0:\n"
            "        dim = x.dim() + dim + 1            # count from the end\n"
            "        dim = min(dim, x.dim() - 1)        # dim=-1 gave \"Dimension out of range\": keep it in range\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "a negative dim is converted with one too many (x.dim() + dim + 1) and the IndexError this "
                    "gives for dim=-1 is patched by clipping to the last axis; dim=-1 happens to come out "
                    "right, but dim=-2 becomes the last axis, dim=-3 the second last, and so on",
         "where": ["q3"]},
    ),
    "q4_mask_built_keys_by_queries_then_transposed_to_pass_the_shape_check": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    m = torch.ones(T_k, T_q, dtype=torch.bool).tril()\n"
            "    return m.T          # the shape check wants (T_q, T_k)\n"
        )},
        {"mistake": "the triangle is built on a (T_k, T_q) grid and transposed to get the (T_q, T_k) shape, but "
                    "the transpose of a lower triangle is the upper one: each query sees itself and the future "
                    "and is blocked from the past",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_nan_rows_cleared_in_numpy_after_detach_numpy_as_the_error_message_says": (
        {"scaled_dot_product_attention": (
            "import numpy as np\n"
            "\n"
            + _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    # rows with no key are NaN; weights.numpy() said \"Use tensor.detach().numpy() instead\"\n"
            "    weights = torch.from_numpy(np.nan_to_num(weights.detach().numpy(), nan=0.0))\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the NaN weights of fully masked rows are cleared with np.nan_to_num after the "
                    ".detach().numpy() that the error message suggests, so the weights leave the autograd "
                    "graph (no gradient reaches Q or K) and bfloat16 inputs, which NumPy cannot hold, raise",
         "where": ["q5"]},
    ),
    "q5_leaf_inplace_error_dodged_by_scaling_q_data_in_place": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    # Q /= math.sqrt(d_k) raised \"a leaf Variable that requires grad is being used in an in-place\n"
            "    # operation\"; going through .data works\n"
            "    Q.data /= math.sqrt(d_k)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1))\n"
            + _SDPA_MASKED_TAIL +
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the queries are scaled in place through Q.data to get past the leaf in-place error: the "
                    "caller's Q is divided by sqrt(d_k) on every call (a second call on the same tensors gives "
                    "different scores) and autograd never sees the division, so the gradient for Q is "
                    "sqrt(d_k) times too large",
         "where": ["q5"]},
    ),
    "q5_dtype_clash_from_default_zeros_patched_by_casting_values_to_the_weights_dtype": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros(weights.shape))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    # \"expected m1 and m2 to have the same dtype\" in half precision: make V match the weights\n"
            "    return torch.matmul(weights, V.to(weights.dtype))\n"
        )},
        {"mistake": "the zeros for the empty rows are made with torch.zeros in the default float32, which "
                    "promotes float16/bfloat16 weights to float32; the matmul dtype error this caused is "
                    "patched by casting V up instead of making the zeros in the weights' dtype, so masked "
                    "half-precision inputs come back float32",
         "where": ["q5"]},
    ),
    "q5_nan_rows_patched_by_unmasking_key_zero_for_every_query": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        mask = mask.clone()\n"
            "        mask[..., 0] = True          # every query may see key 0, so no row is all -inf (no 0/0 NaN)\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "to stop the NaN of fully masked rows, key 0 is unmasked for every query: a query whose "
                    "keys are all masked gets V[0] instead of zeros, and any query that the mask blocks from "
                    "key 0 attends to it anyway (a causal mask hides the slip, since key 0 is always allowed)",
         "where": ["q5"]},
    ),
    "q6_causal_prefix_slice_stops_before_the_diagonal_and_the_empty_first_row_is_patched_with_max_one": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = torch.zeros(3, 3, dtype=torch.float64)\n"
            "for i in range(3):\n"
            "    n = max(i, 1)      # scores3[0, :0] is empty and max() raised: query 0 needs one key\n"
            "    weights3_causal[i, :n] = stable_softmax(scores3[i, :n], dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "query i's keys are sliced as [:i], the keys strictly before it, and the error on the empty "
                    "slice of query 0 is patched with max(i, 1); query 0 comes out right by the patch, but "
                    "queries 1 and 2 never see themselves (rows [1, 0, 0] and a softmax over keys 0-1 only)",
         "where": ["q6"]},
    ),
    "q6_nan_from_zero_times_minus_inf_bias_patched_with_nan_to_num_zeroes_the_kept_scores": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_future = torch.triu(torch.ones(3, 3, dtype=torch.float64), diagonal=1)\n"
            "# scores3 + _future * -inf was NaN wherever _future is 0 (0 * -inf); clean it up\n"
            "weights3_causal = stable_softmax(torch.nan_to_num(scores3 + _future * float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the bias 0/1 mask * -inf gives NaN (0 * -inf) at every kept position, and torch.nan_to_num "
                    "turns those NaN scores into 0 (and -inf into the most negative float), so every allowed "
                    "key gets the same score and the causal weights are uniform over the visible keys",
         "where": ["q6"]},
    ),
    "q7_failing_row_sum_check_patched_by_renormalising_the_shortcut_answers_a": (
        {"q_trap_answer": (
            _TRAP_HEAD +
            "# sanity check: the rows of a weight matrix sum to 1; it failed, so renormalise\n"
            "_short = _short / _short.sum(dim=-1, keepdim=True)\n"
            "assert torch.allclose(_short.sum(dim=-1), torch.ones(4, dtype=torch.float64))\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
        )},
        {"mistake": "the failing row-sum check on the classmate's weights is made to pass by renormalising "
                    "them, which is exactly the step the shortcut leaves out; the repaired shortcut then "
                    "equals the masked softmax and the answer is A instead of C",
         "where": ["q7"]},
    ),
    "q8_one_based_index_error_clipped_so_the_ratio_divides_a_count_by_itself": (
        {"attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = T * T * d_head\n"
            "_madds = [t * t * d_head for t in (T, 2 * T)]       # the first and the second length\n"
            "_second = min(2, len(_madds) - 1)                   # _madds[2] raised IndexError\n"
            "cost_ratio = _madds[_second] // _madds[1]\n"
        )},
        {"mistake": "the two counts are indexed as the 1st and 2nd entries, _madds[2] // _madds[1]; the "
                    "IndexError is patched by clipping the index into range, so the ratio divides the count "
                    "for 2T by itself and cost_ratio is 1 instead of 4",
         "where": ["q8"]},
    ),
}
