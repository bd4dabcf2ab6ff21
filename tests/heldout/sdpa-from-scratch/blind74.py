"""Seventy-fourth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind73.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: NUMPY HABITS. The cells are written by a student who learned array programming in NumPy
and writes torch as if it were NumPy. Each wrong variant hides one such slip: `len(x)` taken for an axis that
is not the first (q1); a variance taken `axis=0` at a time and averaged, as `np.var(x, axis=0).mean()` habits
go (q2); the shift of the softmax taken from the index half of the `(values, indices)` pair that `x.max(dim)`
returns, the shift taken from a global `x.max()` as `np.max` without an axis gives, and the denominator summed
with `axis=` and put back with `[..., None]` on the last axis whatever `dim` was (q3); a causal mask built with
`torch.where(cond, 1, 0)` as with `np.where`, an int64 tensor rather than a bool one (q4); the "row has a
visible key" flag read from `mask.max(-1)[1]` (the argmax, not the value), d_k read as the element count of
`Q[0, 0]` (NumPy's `.size` of what is a row only for 3-D inputs), and the blocked scores filled in NumPy with
`np.where` and wrapped back with `torch.from_numpy`, which cuts the autograd graph (q5); the causal trace
done with a `numpy.ma` masked array given the keep-mask (np.ma's mask marks the HIDDEN entries), a hand
softmax normalised with `sum(0)` (columns), and the scores cut with `tril` as with `np.tril`, which puts zeros
rather than -inf above the diagonal (q6); answer A because `np.exp(-np.inf) == 0` (q7); the entry count read
from `.size()` as if it were NumPy's element count `.size` (it is the shape) (q8). The correct variants are
NumPy-flavoured and right: the values taken from the max pair, `keepdims=`/`axis=` aliases used with the
keep-dimension on, `.mT`, `np.tri(..., dtype=bool)` through `torch.from_numpy`, numpy answers converted to
Python types.

Public material used (search tool):
- q3 / q5 (the (values, indices) pair of torch.max(x, dim); torch.max(x) with no dim reducing over all
  elements): the torch.max reference page (docs.pytorch.org/docs/stable/generated/torch.max.html, as stored
  in the pages corpus), and the torch5 `lab.max` manual page ("y,i=lab.max(x)" returns both).
- q6 (numpy.ma's mask marks the INVALID entries: "When an element of the mask is True, the corresponding
  element of the associated array is said to be masked (invalid)"): numpy.ma.masked_invalid reference pages
  (numpy.org devdocs) and a numpy.ma tutorial (blog.csdn.net/qq1195365047/article/details/88555611).
- q5 (a NumPy round trip cuts the autograd graph): pytorch/pytorch#44023 and #37000 ("Can't call numpy() on
  Tensor that requires grad. Use tensor.detach().numpy()"), delira-dev/delira#40 (no gradient back through a
  numpy conversion), pytorch/pytorch#6597.
- The other kinds (len(x) for an axis, np.var(x, axis=0), keepdims forgotten, np.where(cond, 1, 0),
  np.tril on scores, NumPy's .size element count) are the habits named in this round's brief.

How the variants were checked: a throwaway script under /tmp/w74-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's
formulas: the softmax on 1-D to 4-D inputs and several dims, large float16 logits, -inf entries; the attention
on 3-D and 4-D shapes, T_q != T_k, d_v != d_k, 2-D and batched masks, fully masked rows, large float16
scores, float64 / float32 / float16 / bfloat16, and gradients. The correct variants match everywhere; each
wrong one differs where its "where" says and nowhere else.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points.
"""

_SOFTMAX = (
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


def _sdpa(d_k_line="    d_k = Q.shape[-1]\n",
          fill="        scores = scores.masked_fill(~mask, float(\"-inf\"))\n",
          has_key="        has_key = mask.any(dim=-1, keepdim=True)\n"):
    return _SDPA_HEAD + (
        "    import numpy as np\n"
        + d_k_line +
        "    scores = (Q @ K.mT) / np.sqrt(d_k)   # np.sqrt of an int: a Python-float-like scalar, keeps Q's dtype\n"
        "    if mask is not None:\n"
        + fill +
        "        weights = stable_softmax(scores, dim=-1)\n"
        + has_key +
        "        weights = weights.masked_fill(~has_key, 0.0)\n"
        "    else:\n"
        "        weights = stable_softmax(scores, dim=-1)\n"
        "    return weights @ V\n"
    )


_Q6 = (
    "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
    "weights3 = stable_softmax(scores3, dim=-1)\n"
    "out3 = weights3 @ V3\n"
    "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
    "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
)

CORRECT = {
    "max_pair_unpacked_np_tri_mask_mT_keys_numpy_sqrt_scale": {
        "stable_softmax": _SOFTMAX + (
            "    top, _ = torch.max(x, dim=dim, keepdim=True)   # torch.max(x, dim) is a (values, indices) pair\n"
            "    exps = torch.exp(x - top)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        ),
        "causal_mask": (
            "import numpy as np\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # np.tri(N, M, k=0): ones where j <= i + k, asked for as bool directly\n"
            "    return torch.from_numpy(np.tri(T_q, T_k, dtype=bool))\n"
        ),
        "scaled_dot_product_attention": _sdpa(),
    },
    "axis_and_keepdims_aliases_tril_of_bool_ones_where_with_scalars": {
        "stable_softmax": _SOFTMAX + (
            "    shifted = x - x.amax(axis=dim, keepdims=True)\n"
            "    exps = shifted.exp()\n"
            "    return exps / exps.sum(axis=dim, keepdims=True)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.tril(torch.ones(T_q, T_k, dtype=torch.bool))   # np.tril's k=0 is torch's diagonal=0\n"
        ),
        "scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = Q.shape[-1]\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * (1.0 / math.sqrt(d_k))\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    scores = torch.where(mask, scores, float(\"-inf\"))   # like np.where(cond, a, b)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    any_key = mask.any(axis=-1, keepdims=True)\n"
            "    weights = torch.where(any_key, weights, 0.0)\n"
            "    return weights @ V\n"
        ),
    },
    "answers_computed_in_numpy_and_converted_to_python_types": {
        "weights_shape": (
            "import numpy as np\n"
            "_q, _k, _v = np.empty((4, 10, 64)), np.empty((4, 10, 64)), np.empty((4, 10, 128))\n"
            "_w = np.matmul(_q, np.swapaxes(_k, -1, -2))   # swap only the last two axes\n"
            "weights_shape = tuple(int(s) for s in _w.shape)\n"
            "out_shape = tuple(int(s) for s in np.matmul(_w, _v).shape)\n"
        ),
        "raw_score_var": (
            "import numpy as np\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "_s = raw_scores.numpy().astype(np.float64)\n"
            "raw_score_var = float(np.var(_s, ddof=1))          # ddof=1: torch's default unbiased .var()\n"
            "scaled_score_var = float(np.var(_s / np.sqrt(d_k), ddof=1))\n"
            "scale_divisor = float(np.sqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "weights3": (
            "import numpy as np\n"
            "_s = (Q3.numpy() @ K3.numpy().T) / np.sqrt(4)\n"
            "def _np_softmax(a):\n"
            "    e = np.exp(a - a.max(axis=-1, keepdims=True))\n"
            "    return e / e.sum(axis=-1, keepdims=True)\n"
            "scores3 = torch.from_numpy(_s)\n"
            "weights3 = torch.from_numpy(_np_softmax(_s))\n"
            "out3 = torch.from_numpy(_np_softmax(_s) @ V3.numpy())\n"
            "_c = np.where(np.tri(3, dtype=bool), _s, -np.inf)\n"
            "weights3_causal = torch.from_numpy(_np_softmax(_c))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "attn_entries": (
            "import numpy as np\n"
            "attn_entries = int(np.prod([1024, 1024]))\n"
            "score_madds = int(np.prod([1024, 1024, 64]))\n"
            "cost_ratio = int(np.prod([2048, 2048, 64]) // score_madds)\n"
        ),
    },
    "einsum_scores_values_of_max_namedtuple_new_zeros_fill": {
        "stable_softmax": _SOFTMAX + (
            "    m = x.max(dim, keepdim=True).values\n"
            "    e = torch.exp(x - m)\n"
            "    return e / torch.sum(e, dim, keepdim=True)\n"
        ),
        "scaled_dot_product_attention": _SDPA_HEAD + (
            "    d_k = K.size(-1)\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask.logical_not(), float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        seen = mask.max(dim=-1, keepdim=True).values   # the values half of the pair\n"
            "        weights = torch.where(seen, weights, weights.new_zeros(()))\n"
            "    return torch.einsum(\"...qk,...kd->...qd\", weights, V)\n"
        ),
    },
}

WRONG = {
    "q1_key_count_taken_with_len_gives_the_batch_size": (
        {"weights_shape": (
            "Qp, Kp, Vp = torch.empty(4, 10, 64), torch.empty(4, 10, 64), torch.empty(4, 10, 128)\n"
            "# one weight per (query, key): batch, number of queries, number of keys\n"
            "weights_shape = (Qp.shape[0], Qp.shape[1], len(Kp))\n"
            "out_shape = (Qp.shape[0], Qp.shape[1], Vp.shape[-1])\n"
        )},
        {"mistake": "the number of keys is taken with len(Kp), which is the size of the first (batch) axis, not "
                    "the key axis, so weights_shape is (4, 10, 4) instead of (4, 10, 10); out_shape is right",
         "where": ["q1"]},
    ),
    "q2_variance_taken_along_axis_0_then_averaged": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "# as with np.var(x, axis=0).mean(): variance over the batch axis, averaged over the rest\n"
            "raw_score_var = raw_scores.var(0).mean().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var(0).mean().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the variance is taken along axis 0 (over the 2 batch entries of each position, unbiased) and "
                    "then averaged, not over all 50 entries at once, so raw_score_var and scaled_score_var are "
                    "different numbers from the variance of all entries; scale_divisor is right",
         "where": ["q2"]},
    ),
    "q3_shift_taken_from_the_index_half_of_the_max_pair": (
        {"stable_softmax": _SOFTMAX + (
            "    shift = x.max(dim, keepdim=True)[1]    # the max along dim, as np.max(x, axis=dim, keepdims=True)\n"
            "    exps = torch.exp(x - shift)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "x.max(dim, keepdim=True)[1] is the indices half of the (values, indices) pair, so the logits "
                    "are shifted by the position of the maximum, not by its value; the softmax is unchanged for "
                    "small logits but float16 logits in the thousands (and large float16 scores) overflow to "
                    "inf and give NaN",
         "where": ["q3", "q5"]},
    ),
    "q3_shift_by_the_global_max_as_np_max_without_an_axis": (
        {"stable_softmax": _SOFTMAX + (
            "    shifted = x - x.max()     # the largest logit, so every exponent is <= 0\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "x.max() with no dim reduces over the whole tensor (like np.max without axis), so every slice "
                    "is shifted by the global maximum; a slice whose logits are far below it underflows to all "
                    "zeros and gives 0/0 = NaN (float16 logits of very different sizes, large float16 scores)",
         "where": ["q3", "q5"]},
    ),
    "q3_denominator_summed_with_axis_and_restored_with_none_on_the_last_axis": (
        {"stable_softmax": _SOFTMAX + (
            "    shifted = x - x.amax(axis=dim, keepdims=True)\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(axis=dim)[..., None]\n"
        )},
        {"mistake": "the denominator is summed over dim without keepdim and the reduced axis is put back with "
                    "[..., None] as the LAST axis, which is right only for dim=-1; for any other dim the sums "
                    "broadcast along the wrong axis (wrong values, or a shape error)",
         "where": ["q3"]},
    ),
    "q4_mask_from_where_one_zero_is_int64_not_bool": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows = torch.arange(T_q)[:, None]\n"
            "    cols = torch.arange(T_k)[None, :]\n"
            "    return torch.where(cols <= rows, 1, 0)    # as np.where(cond, 1, 0)\n"
        )},
        {"mistake": "torch.where(cond, 1, 0) gives an int64 tensor of ones and zeros, not a torch.bool mask; the "
                    "pattern is right but the dtype is wrong, and ~mask on it is a bitwise not (-2 / -1), which "
                    "masked_fill rejects in the causal trace",
         "where": ["q4", "q6"]},
    ),
    "q5_row_has_key_from_max_pair_index_one_is_the_argmax_not_the_value": (
        {"scaled_dot_product_attention": _sdpa(
            has_key="        has_key = mask.to(scores.dtype).max(-1, keepdim=True)[1] > 0   # any True in the row\n")},
        {"mistake": "the 'row has a visible key' flag is read from max(-1)[1], the index of the first True, not "
                    "the max value; every row whose first visible key is key 0 (every causal row, most padding "
                    "rows) is flagged empty and its output set to zeros",
         "where": ["q5"]},
    ),
    "q5_d_k_as_the_element_count_of_q_0_0_which_is_a_matrix_for_4d_inputs": (
        {"scaled_dot_product_attention": _sdpa(
            d_k_line="    d_k = Q[0, 0].numel()    # the size of one query vector (np: Q[0, 0].size)\n")},
        {"mistake": "d_k is the element count of Q[0, 0], which is one query vector only for 3-D inputs; for 4-D "
                    "(batch, heads, T, d) inputs it is a (T_q, d_k) matrix, so the scores are divided by "
                    "sqrt(T_q * d_k) and the weights come out too flat",
         "where": ["q5"]},
    ),
    "q5_blocked_scores_filled_in_numpy_with_np_where_and_wrapped_back_with_from_numpy": (
        {"scaled_dot_product_attention": _sdpa(
            fill=("        s = np.where(mask.cpu().numpy(), scores.detach().cpu().numpy(), -np.inf)\n"
                  "        scores = torch.from_numpy(s).to(Q.device)\n"))},
        {"mistake": "the masked scores are filled in NumPy (detach, numpy, np.where, from_numpy): the result is "
                    "cut from the autograd graph, so no gradient reaches Q and K when a mask is given, and "
                    "bfloat16 inputs cannot be converted to NumPy at all",
         "where": ["q5"]},
    ),
    "q6_causal_weights_from_a_numpy_masked_array_given_the_keep_mask": (
        {"weights3": (
            "import numpy as np\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_m = np.ma.masked_array(scores3.numpy(), mask=causal_mask(3).numpy())   # keep j <= i\n"
            "_e = np.ma.exp(_m - _m.max(axis=-1, keepdims=True))\n"
            "weights3_causal = torch.tensor((_e / _e.sum(axis=-1, keepdims=True)).filled(0.0))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "numpy.ma's mask marks the entries to HIDE, but the causal (True = may attend) mask is passed "
                    "to it, so the softmax runs over the future keys only: row 0 over keys 1-2, row 1 over key "
                    "2, row 2 all zeros; weights3 and out3 are right",
         "where": ["q6"]},
    ),
    "q6_hand_softmax_normalised_with_sum_over_axis_0": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "_e = torch.exp(scores3 - scores3.max())\n"
            "weights3 = _e / _e.sum(0)          # np-style: e / e.sum(axis=0)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the hand softmax divides by e.sum(0), the sums over the queries (columns), broadcast along "
                    "the rows, so weights3 has columns summing to 1 instead of rows and out3 is wrong with it; "
                    "weights3_causal is right",
         "where": ["q6"]},
    ),
    "q6_scores_cut_with_tril_as_with_np_tril_leaves_zeros_not_minus_inf": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(torch.tril(scores3), dim=-1)   # np.tril: keep j <= i\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "tril (like np.tril) sets the future scores to 0, not -inf, so the future keys still get "
                    "weight exp(0) in the causal softmax; rows 0 and 1 of weights3_causal are wrong (row 2 is "
                    "right), weights3 and out3 are right",
         "where": ["q6"]},
    ),
    "q7_answer_a_because_np_exp_of_minus_inf_is_zero": (
        {"q_trap_answer": (
            "# np.exp(-np.inf) == 0.0, so a score of -inf becomes a weight of exactly 0:\n"
            "# zeroing the weight afterwards lands on the same zero\n"
            "q_trap_answer = \"A\"\n"
        )},
        {"mistake": "answers A: a -inf score does give a zero weight, but it also leaves the remaining weights "
                    "renormalised to sum to 1, which zeroing after the softmax does not (the right answer is C)",
         "where": ["q7"]},
    ),
    "q8_entries_from_size_call_read_as_numpys_element_count_gives_the_shape": (
        {"attn_entries": (
            "attn_entries = torch.empty(1024, 1024).size()   # np: a.size is the number of elements\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "torch's .size() is the shape, torch.Size([1024, 1024]), not NumPy's element count, so "
                    "attn_entries is a shape instead of the int 1048576; score_madds and cost_ratio are right",
         "where": ["q8"]},
    ),
}
