"""Sixty-first blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind60.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: A LIBRARY'S DOCUMENTED BEHAVIOUR MISREAD. In each wrong variant the code is what the
student meant, but a PyTorch, NumPy or Python call does not do what they believed: `torch.inner` on 3-D
tensors pairs every query with the keys of every sequence ((4, 10, 4, 10)), and `F.cosine_similarity` reduces
its default dim=1, the token axis, not the features (q1); `torch.einsum` without "->" sums every repeated
letter, the batch included, and orders the output alphabetically (q2); `torch.kthvalue(x, 1)` is the
smallest value, not the top one; `torch.where` against a one-element float32 `torch.zeros(1)` promotes
float16/bfloat16 to float32 (a 1-D tensor, unlike a Python scalar or a 0-dim tensor, takes part in type
promotion); `x.T` reverses every axis of a 3-D or 4-D tensor (deprecated), it does not bring one axis to
the end and back (q3); `torch.linspace(0, T, T)` includes its end point, so the positions are i * T / (T - 1),
not i (q4); `mask.sum(-1)` over a bool mask is an int64 count, not a 0/1 flag; `F.softmax` without `dim` falls back to the
legacy implicit axis (0 for 3-D, 1 for 4-D inputs), not the last one (q5); `Tensor.numpy()` shares memory with
the tensor, so masking the NumPy copy in place masks the scores too; `triu`'s `diagonal=-1` keeps the first
sub-diagonal as well, it does not mean "above the diagonal"; `F.normalize` has p=2 by default, so it divides by
the Euclidean norm, not the sum (q6); `Tensor.detach()` shares storage, so the "copy" masked in place masks the
scores the shortcut is then tried on (q7); `torch.combinations` gives unordered pairs without repeats, as
itertools.combinations, not every (query, key) pair (q8). The correct variants use the same calls the right
way: a shift by the first entry of a descending sort; positions from `linspace(0, T - 1, T)`; `torch.where`
with a Python-float fill, `d_k ** -0.5` as a multiplier and the "any key" flag as the max of a bool row; empty
rows from a count of visible keys compared with zero; and q1/q2/q6/q7/q8 answered with meta-device probes,
`np.var(ddof=1)`, a real NumPy copy (`np.array`), a `clone()` in the trap check and `torch.cartesian_prod`.

Public material used (search tool):
- q5 (softmax without dim): pytorch/pytorch#84524 ("F.softmax / softmin / log_softmax have implicit dim support
  deprecated"), amdegroot/ssd.pytorch#104 and #114, svishwa/crowdcount-cascaded-mtl#22 ("how do I know whether
  dim should be taken 0 or 1"), natanielruiz/deep-head-pose#118 ("Implicit dimension choice for softmax has been
  deprecated" on F.softmax(yaw)).
- q3 (kthvalue): pytorch/pytorch#2134 (vadimkantorov: "kthvalue returns k'th smallest element, while topk returns
  by default largest elements"), #29398 and #67597 (requests for largest=/descending= because the defaults differ).
- q3 (where promotion): pytorch/pytorch#49090 and #70923 (type promotion in torch.where), csarofeen/pytorch#2378
  (where promoting float16/bfloat16 to float32 in a fuser).
- q1 (inner): pytorch/pytorch#46716 ("Implemented torch.inner similar to numpy.inner": out shape is
  self.shape[:-1] + other.shape[:-1]), #18027 (users wanting a batched dot product, which inner is not).
- q1 (cosine_similarity): facebookresearch/WMReward#11 (F.cosine_similarity(z, h, dim=1) on [B, N, D] tensors
  reduced the token axis; "most of our methods use only 2D tensors where dim=1 and dim=-1 have the same
  effect"), facebookresearch/DPR#232.
- q2 (einsum implicit mode): the NumPy einsum documentation ("In implicit mode ... the axes of the output are
  reordered alphabetically"; "whenever a label is repeated it is summed"), as quoted in a tutorial at
  git.fb1.uni-bremen.de/davrot/pytutorial and docs.scipy.org's numpy 1.6 einsum page.
- q4 (linspace): pytorch.org/docs torch.linspace ("evenly spaced from start to end, inclusive").
- q6 (numpy shares memory): syntaxfix.com's "pytorch tensor to numpy array" answer (na = a.numpy(); na[0][0] = 10
  changes a), github.com/rsunderscore/learning ("The NumPy array and the Torch tensor share memory"),
  mlverse/torchbook_materials#1.
- q7 (detach shares storage): pytorch/pytorch#35990 ("In Python, Tensor.detach() does not copy the tensor
  storage. In-place value changes update the original tensor"), PaddlePaddle/Paddle#27921 (detach().clone()
  for a real copy).
- q8 (combinations): pytorch.org/docs torch.combinations ("similar to python's itertools.combinations when
  with_replacement is set to False") against torch.cartesian_prod ("similar to python's itertools.product").
- q5 (sum of a bool mask): paddlepaddle.org.cn's paddle.sum page and codemia.io's "Count number of True values"
  (summing booleans gives an integer count, int64); torch.max's documentation for the values/indices namedtuple
  used in a correct variant.
- q3 (x.T): PyTorch's own deprecation warning ("The use of `x.T` on tensors of dimension other than 2 to reverse
  their shape is deprecated ... Consider `x.mT` to transpose batches of matrices"), printed by the torch 2.13
  install used here.
- q6 (triu diagonal, F.normalize p): no outside source beyond the functions' own signatures (`diagonal=0`,
  `p=2.0` defaults); they are the "negative offset means the other side" and "normalize means sum to 1" readings.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5; a broken `stable_softmax` may cost q5 and q6, whose trace calls it).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository: softmax
against `torch.softmax` on 1-D to 4-D inputs along every positive and negative axis in float64, float32,
float16 and bfloat16 (dtype kept), float16 logits in the thousands with -inf entries, and gradients; masks
against `torch.ones(T_q, T_k).tril().bool()` for square and rectangular sizes (T_q above and below T_k), with
and without T_k; attention against `F.scaled_dot_product_attention` (fully masked rows set to zero) on 3-D and
4-D inputs with T_q != T_k and d_v != d_k, no mask, a causal mask, a 2-D random mask, a batched (B, H, T_q, T_k)
random mask with a fully masked query, a (B, 1, 1, T_k) padding mask, in all four dtypes (dtype of the result
kept), float16 inputs with large scores, and gradients against those of the reference; all on the CPU (no GPU
was used). Each variant's notebook was also run top to bottom (all code cells but otter's). The correct ones
run without an error and match full_marks' values; each wrong one differs from the right answer (or raises)
where the notebook's tests look, and only in its "where". None of the wrong variants raises in the notebook
itself.

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
_TRACE_SCORES = "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
_TRACE_PRINT = "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"

CORRECT = {
    "softmax_shift_by_the_first_entry_of_a_descending_sort_narrowed_on_dim": {
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    # sort is ascending unless told otherwise: descending=True puts the largest logit first\n"
            "    top = torch.sort(x, dim=dim, descending=True).values.narrow(dim, 0, 1)\n"
            "    exps = torch.exp(x - top)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        ),
    },
    "causal_mask_positions_from_linspace_ending_at_t_minus_one": {
        "causal_mask": (
            _MASK_HEAD +
            "    T_k = T_q if T_k is None else T_k\n"
            "    # linspace includes its end point: T values from 0 to T - 1 are exactly 0, 1, ..., T - 1\n"
            "    rows = torch.linspace(0, T_q - 1, steps=T_q)\n"
            "    cols = torch.linspace(0, T_k - 1, steps=T_k)\n"
            "    return cols[None, :] <= rows[:, None]\n"
        ),
    },
    "sdpa_where_python_float_fill_inverse_root_multiplier_any_key_as_max_of_bool_row": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    scale = Q.size(-1) ** -0.5                     # a Python float: keeps the inputs' dtype\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    scores = torch.where(mask, scores, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    has_key = mask.max(dim=-1, keepdim=True).values   # (values, indices): the max of a bool row is any()\n"
            "    weights = torch.where(has_key, weights, 0.0)\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "sdpa_empty_rows_from_a_count_of_visible_keys_compared_with_zero": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = K.shape[-1]\n"
            "    scores = (Q @ K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))    # returns the filled copy\n"
            "        visible = mask.sum(dim=-1, keepdim=True)              # int64: how many keys each query sees\n"
            "        weights = stable_softmax(scores, dim=-1).masked_fill(visible == 0, 0.0)\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return weights @ V\n"
        ),
    },
    "answers_meta_probes_numpy_ddof_one_numpy_copy_trace_clone_check_cartesian_count": {
        "weights_shape": (
            "_Qp = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_Kp = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_Vp = torch.empty(4, 10, 128, device=\"meta\")\n"
            "_Wp = torch.matmul(_Qp, _Kp.mT)          # mT: the last two axes only, whatever the batch\n"
            "weights_shape = tuple(_Wp.shape)\n"
            "out_shape = tuple(torch.matmul(_Wp, _Vp).shape)\n"
        ),
        "raw_score_var": (
            "import numpy as np\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.mT\n"
            "# numpy's var defaults to ddof=0; ddof=1 is torch's default (unbiased) estimator\n"
            "raw_score_var = float(np.var(raw_scores.numpy(), ddof=1))\n"
            "scaled_score_var = float(np.var((raw_scores / math.sqrt(d_k)).numpy(), ddof=1))\n"
            "scale_divisor = float(np.sqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "weights3": (
            "import numpy as np\n"
            "\n"
            + _TRACE_SCORES +
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_s = np.array(scores3)                      # np.array copies; scores3.numpy() would share memory\n"
            "_s[np.triu_indices(3, k=1)] = -np.inf\n"
            "weights3_causal = stable_softmax(torch.from_numpy(_s), dim=-1)\n"
            + _TRACE_PRINT
        ),
        "q_trap_answer": (
            "_g = torch.Generator().manual_seed(3)\n"
            "_scores = torch.randn(5, 5, generator=_g, dtype=torch.float64)\n"
            "_m = causal_mask(5)\n"
            "_masked = _scores.clone()                  # a real copy: detach() would share the storage\n"
            "_masked[~_m] = float(\"-inf\")\n"
            "_right = stable_softmax(_masked, dim=-1)\n"
            "_short = F.softmax(_scores, dim=-1)\n"
            "_short[~_m] = 0.0\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
        ),
        "attn_entries": (
            "_pairs = torch.cartesian_prod(torch.arange(1024), torch.arange(1024))   # every ordered (query, key)\n"
            "attn_entries = _pairs.shape[0]\n"
            "score_madds = attn_entries * 64\n"
            "cost_ratio = (2048 * 2048 * 64) // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_weights_probed_with_torch_inner_which_pairs_every_query_with_every_sequences_keys": (
        {"weights_shape": (
            "_Qp, _Kp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64)\n"
            "# torch.inner: the dot product over the last dimension, i.e. q . k for the queries and keys\n"
            "_Wp = torch.inner(_Qp, _Kp)\n"
            "weights_shape = tuple(_Wp.shape)\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "the weights' shape is probed with torch.inner, read as a batched dot product over the feature "
                    "axis; torch.inner (like numpy.inner) pairs every row of one tensor with every row of the other, "
                    "so the probe is (4, 10, 4, 10), queries against the keys of all four sequences, and "
                    "weights_shape is given as (4, 10, 4, 10) instead of (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_weights_probed_with_cosine_similarity_which_reduces_its_default_dim_1_the_token_axis": (
        {"weights_shape": (
            "_Qp, _Kp = torch.randn(4, 10, 64), torch.randn(4, 10, 64)\n"
            "# a weight says how similar a query is to a key: probe the shape with the library's similarity\n"
            "_Wp = F.cosine_similarity(_Qp, _Kp)\n"
            "weights_shape = tuple(_Wp.shape)\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "the weights' shape is probed with F.cosine_similarity(Q, K), whose default dim=1 is the token "
                    "axis of a (batch, tokens, features) tensor, not the features, and which compares the two "
                    "tensors position by position instead of every query with every key; weights_shape comes out "
                    "(4, 64) instead of (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q2_scores_from_einsum_without_an_arrow_sum_over_the_repeated_batch_letter": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# Q K^T for each sequence: the feature letter d is repeated, so it is summed away\n"
            "raw_scores = torch.einsum(\"bqd,bkd\", Q, K)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scores are computed with torch.einsum(\"bqd,bkd\", Q, K) without \"->\"; in implicit mode "
                    "every letter that appears twice is summed, the batch letter b as well as d, and the output "
                    "axes are sorted alphabetically, so raw_scores is one (5, 5) keys-by-queries matrix summed over "
                    "the two sequences and both variances are those of the wrong numbers (about twice as large)",
         "where": ["q2"]},
    ),
    "q3_shift_by_kthvalue_1_which_is_the_smallest_logit_not_the_largest": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    top = torch.kthvalue(x, 1, dim=dim, keepdim=True).values    # the first value along dim\n"
            "    exps = torch.exp(x - top)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the shift is taken with torch.kthvalue(x, 1, dim), read as the top value; kthvalue returns the "
                    "k-th SMALLEST value, so the minimum is subtracted: the exponentials overflow for float16 logits "
                    "in the thousands (inf / inf = NaN), and with a -inf entry the shift is -inf and every entry "
                    "becomes NaN",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_minus_inf_exponentials_zeroed_by_where_against_a_float32_zeros_1_which_promotes_half_types": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    exps = torch.where(torch.isneginf(x), torch.zeros(1), exps)   # a -inf logit gets exactly 0\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the exponentials of -inf logits are set to zero with torch.where(..., torch.zeros(1), exps); "
                    "torch.zeros(1) is a one-element float32 tensor (not a scalar), it takes part in type "
                    "promotion, and float16/bfloat16 inputs come back as float32 (and the attention then multiplies "
                    "float32 weights with half-precision values, which raises); on a GPU it is also a CPU tensor",
         "where": ["q3", "q5"]},
    ),
    "q3_axis_moved_to_the_end_with_dot_t_which_reverses_every_axis_of_a_3d_tensor": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    if x.dim() > 1 and dim % x.dim() != x.dim() - 1:\n"
            "        # another axis: transpose it to the end, take the softmax there, transpose back\n"
            "        return stable_softmax(x.T, dim=-1).T\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "a softmax along an axis other than the last is taken on x.T, read as \"bring the axis to the end "
                    "and back\"; .T reverses ALL the axes (deprecated beyond 2-D), so it is right for 2-D inputs and "
                    "for axis 0, but along a middle axis of a 3-D or 4-D tensor the softmax runs over axis 0 instead",
         "where": ["q3"]},
    ),
    "q4_positions_from_linspace_whose_end_point_is_included": (
        {"causal_mask": (
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows = torch.linspace(0, T_q, T_q).unsqueeze(1)   # query positions 0 .. T_q, like arange(T_q)\n"
            "    cols = torch.linspace(0, T_k, T_k).unsqueeze(0)   # key positions\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "the positions are built with torch.linspace(0, T, T) as if it were arange(T); linspace includes "
                    "its end point, so position i is i * T / (T - 1) and queries and keys are put on different scales "
                    "when T_q != T_k; square masks come out right, but when T_q > T_k every query i >= 1 loses its "
                    "own diagonal key (i * T_k / (T_k - 1) > i * T_q / (T_q - 1)), and when T_q < T_k, in long "
                    "enough sequences, late queries see a key ahead of them",
         "where": ["q4", "q5"]},
    ),
    "q5_sum_of_the_bool_mask_is_a_key_count_not_a_flag_and_scales_each_row_by_it": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)   # finite: no NaN rows\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = weights * mask.sum(dim=-1, keepdim=True)   # 0 for a query that sees no key, else 1\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the weights are multiplied by mask.sum(-1, keepdim=True) as a 0/1 \"has a key\" flag; the sum of "
                    "a bool tensor is an int64 count of the visible keys, so an empty row is zeroed but every other "
                    "row is multiplied by its number of visible keys (query i of a causal mask by i + 1)",
         "where": ["q5"]},
    ),
    "q5_f_softmax_called_without_dim_falls_back_to_the_legacy_implicit_axis": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = F.softmax(scores)          # softmax over the keys, as usual\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = F.softmax(scores)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the weights are computed with F.softmax(scores) without dim, believing it defaults to the last "
                    "axis; the deprecated implicit choice is dim 0 for a 3-D tensor and dim 1 for a 4-D one, so the "
                    "softmax runs over the batch (or the heads) instead of the keys, and a key blocked in every "
                    "batch entry gets NaN",
         "where": ["q5"]},
    ),
    "q6_scores_masked_through_their_numpy_view_which_shares_memory": (
        {"weights3": (
            "import numpy as np\n"
            "\n"
            + _TRACE_SCORES +
            "_s = scores3.numpy()                        # a NumPy copy to mask by hand\n"
            "_s[np.triu_indices(3, k=1)] = -np.inf\n"
            "weights3_causal = stable_softmax(torch.from_numpy(_s), dim=-1)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            + _TRACE_PRINT
        )},
        {"mistake": "the causal scores are made by masking scores3.numpy() in place, read as a copy; Tensor.numpy() "
                    "shares memory with the tensor, so scores3 itself is masked and weights3 and out3, computed "
                    "from it afterwards, are the causal ones",
         "where": ["q6"]},
    ),
    "q6_triu_bias_with_diagonal_minus_1_also_blocks_the_diagonal_and_below": (
        {"weights3": (
            _TRACE_SCORES +
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# -inf strictly above the diagonal, 0 elsewhere\n"
            "bias3 = torch.triu(torch.full((3, 3), float(\"-inf\"), dtype=torch.float64), diagonal=-1)\n"
            "weights3_causal = stable_softmax(scores3 + bias3, dim=-1)\n"
            + _TRACE_PRINT
        )},
        {"mistake": "the causal bias is torch.triu(full(-inf), diagonal=-1), with the offset's sign read the wrong "
                    "way; diagonal=-1 keeps the first sub-diagonal too (strictly above needs diagonal=1), so only "
                    "entry [2, 0] is left open: rows 0 and 1 are all -inf (NaN) and row 2 sees key 0 alone",
         "where": ["q6"]},
    ),
    "q6_rows_normalised_with_f_normalize_whose_default_p_is_2": (
        {"weights3": (
            _TRACE_SCORES +
            "# softmax by hand: shift, exponentiate, then normalise each row with F.normalize\n"
            "_e = torch.exp(scores3 - scores3.amax(dim=-1, keepdim=True))\n"
            "weights3 = F.normalize(_e, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_ec = torch.exp(scores3 - scores3.amax(dim=-1, keepdim=True)).masked_fill(~causal_mask(3), 0.0)\n"
            "weights3_causal = F.normalize(_ec, dim=-1)\n"
            + _TRACE_PRINT
        )},
        {"mistake": "the exponentials are normalised with F.normalize(e, dim=-1), read as \"divide by the row sum\"; "
                    "its default p=2 divides by the Euclidean norm, so the rows of weights3 and weights3_causal have "
                    "unit length instead of summing to 1 (only query 0 of the causal weights, with one key, is right)",
         "where": ["q6"]},
    ),
    "q7_scores_copied_with_detach_share_storage_so_the_shortcut_sees_masked_scores_answers_a": (
        {"q_trap_answer": (
            "_g = torch.Generator().manual_seed(3)\n"
            "_scores = torch.randn(5, 5, generator=_g, dtype=torch.float64)\n"
            "_m = causal_mask(5)\n"
            "_masked = _scores.detach()                 # a separate copy of the scores to mask\n"
            "_masked[~_m] = float(\"-inf\")\n"
            "_right = stable_softmax(_masked, dim=-1)\n"
            "_short = F.softmax(_scores, dim=-1)        # the classmate's shortcut on the raw scores\n"
            "_short[~_m] = 0.0\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
        )},
        {"mistake": "the check copies the scores with detach() before masking them; detach() shares the storage, so "
                    "the raw scores are masked too, the shortcut is tried on already-masked scores, agrees with the "
                    "right weights, and the answer is A instead of C",
         "where": ["q7"]},
    ),
    "q8_pairs_counted_with_torch_combinations_which_drops_order_and_self_pairs": (
        {"attn_entries": (
            "T, d_head = 1024, 64\n"
            "_pairs = torch.combinations(torch.arange(T), r=2)     # every (query, key) pair\n"
            "attn_entries = len(_pairs)\n"
            "score_madds = T * T * d_head\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the (query, key) pairs are listed with torch.combinations, which (like itertools.combinations) "
                    "gives unordered pairs without repeats, so attn_entries is T (T - 1) / 2 = 523776 instead of "
                    "T^2 = 1048576: the pairs (j, i) and the self pairs (i, i) are left out",
         "where": ["q8"]},
    ),
}
