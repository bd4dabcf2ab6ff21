"""Eightieth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind79.py (for the format), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: HABITS CARRIED OVER FROM ANOTHER FRAMEWORK OR LANGUAGE. Each wrong cell is careful code
with one convention that is right elsewhere and wrong here: a (features, time) output layout from MATLAB
(q1); `jnp.var`'s population default (ddof=0) kept in torch (q2); `tf.reduce_sum` without an axis reducing
everything (q3); the TensorFlow tutorial's look-ahead mask (1 = blocked) and MATLAB's 1-based row numbers
next to 0-based columns (q4); Keras/nn.MultiheadAttention mask polarity (True = pad), scores kept as
keys-by-queries (column convention) with the softmax left on the last axis, the scale built as a float32
tensor (NumPy/JAX float32 default), JAX's `x.at[i].set(v)` rewritten as an update on a discarded clone, and
Keras's `Softmax(axis=1)` (q5); R's `apply(x, 1, f)` returning the per-row results as columns, and MATLAB's
`tril(S)` used to "mask" the scores (q6); `jax.nn.softmax(..., where=mask)` habits behind answer "A" (q7);
MATLAB's `for i = 1:T` ported as `range(1, T)` (q8). The correct variants read like ports too: a
band_part helper built right, an explicit jnp.where-style fill with the dtype's minimum, Keras padding
polarity converted once at the boundary, keys stored as columns and used as such, MATLAB 1-based ranges
shifted consistently, R's `var` (n - 1) which is torch's default.

Public material used (search tool):
- q4 / q7 (look-ahead mask, 1 = blocked, via `1 - tf.linalg.band_part(ones, -1, 0)`): the TensorFlow
  transformer tutorial's `create_look_ahead_mask` as reproduced in github.com/PanXiebit/transformer-tf2.0
  and ai.stackexchange.com/questions/23889 ("purpose of decoder mask"), and the DeepLearning.AI course Q&A
  "Course 5 Week 4: Transformer Look-ahead Mask" (students confused by the upper-triangle-of-ones mask).
- q5 (mask polarity): pytorch/pytorch PRs 170404 / 170415 (issue 170400: nn.MultiheadAttention uses True =
  ignore, SDPA True = attend, "a common gotcha" when migrating), huggingface/transformers PR 38094 (an
  inverted causal mask in Llama4's SDPA path), rasbt/LLMs-from-scratch PR 1062 (SDPA boolean mask inverted).
- q5 (empty rows): pytorch/pytorch issue 103749 ("SDPA produces NaN with padding mask", 0/0 on a fully
  masked row).
- `(batch, 1, 1, T)` padding masks and band_part (correct variants): the same TF tutorial ports, and
  gpt-2's src/model.py `attention_mask` (docstring comparing with tf.matrix_band_part).
- The other kinds (jnp.var ddof=0, tf.reduce_sum default axis, jax `.at[].set`, R apply, MATLAB 1:T and
  tril) are the ones this round's brief lists.

How the variants were checked: a throwaway script under /tmp/w80-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas (several
shapes, float64/float32/float16, 3-D/4-D, T_q != T_k, d_v != d_k, 2-D and broadcast masks, fully masked rows).

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
)

# a careful port: explicit keepdim=True, masked_fill with -inf, empty rows zeroed by reassignment
_SDPA = (
    _SDPA_HEAD
    + "    d_k = Q.shape[-1]\n"
    "    scores = {scores}\n"
    "    if mask is not None:\n"
    "        scores = {fill}\n"
    "    weights = {softmax}\n"
    "    if mask is not None:\n"
    "        {rows}\n"
    "    return {out}\n"
)
_SDPA_OK = dict(
    scores="torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
    fill="scores.masked_fill(~mask, float('-inf'))",
    softmax="stable_softmax(scores, dim=-1)",
    rows="weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)",
    out="torch.matmul(weights, V)",
)


def _sdpa(**kw):
    return _SDPA.format(**{**_SDPA_OK, **kw})


_Q2 = (
    "d_k = Q.shape[-1]\n"
    "raw_scores = Q @ K.transpose(-2, -1)\n"
    "raw_score_var = {raw}\n"
    "scaled_score_var = {scaled}\n"
    "scale_divisor = {div}\n"
    "print(raw_score_var, scaled_score_var, scale_divisor)\n"
)
_Q2_OK = dict(raw="float(torch.var(raw_scores.flatten(), correction=1))",
              scaled="float(torch.var((raw_scores / math.sqrt(d_k)).flatten(), correction=1))",
              div="float(64) ** 0.5")

_Q6 = (
    "scores3 = {scores}\n"
    "weights3 = {weights}\n"
    "out3 = weights3 @ V3\n"
    "weights3_causal = {causal}\n"
    "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
)
_Q6_OK = dict(scores="Q3 @ K3.T / math.sqrt(4)",
              weights="stable_softmax(scores3, dim=-1)",
              causal="stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)")

_Q8 = "attn_entries = {e}\nscore_madds = {m}\ncost_ratio = {r}\n"
_Q8_OK = dict(e="sum(1 for i in range(1, 1024 + 1) for j in range(1, 1024 + 1))",
              m="attn_entries * 64", r="(2 * 1024) ** 2 * 64 // score_madds")

_SOFTMAX_OK = (
    "def stable_softmax(x, dim=-1):\n"
    "    \"\"\"Port of tf.nn.softmax(logits, axis=dim): reduce along the one axis, keepdim=True.\"\"\"\n"
    "    shifted = x - torch.amax(x, dim=dim, keepdim=True)\n"
    "    e = torch.exp(shifted)\n"
    "    return e / torch.sum(e, dim=dim, keepdim=True)\n"
)

_BAND_PART_OK = (
    "def causal_mask(T_q, T_k=None):\n"
    "    \"\"\"tf.linalg.band_part(ones, -1, 0) ported: keep i - j in [0, inf), True = may attend.\"\"\"\n"
    "    T_k = T_q if T_k is None else T_k\n"
    "    def band_part(n_rows, n_cols, num_lower, num_upper):\n"
    "        m = torch.arange(n_rows).reshape(-1, 1)\n"
    "        n = torch.arange(n_cols).reshape(1, -1)\n"
    "        lower_ok = (m - n <= num_lower) if num_lower >= 0 else torch.ones((), dtype=torch.bool)\n"
    "        upper_ok = (n - m <= num_upper) if num_upper >= 0 else torch.ones((), dtype=torch.bool)\n"
    "        return lower_ok & upper_ok\n"
    "    return band_part(T_q, T_k, -1, 0)\n"
)

_CAUSAL_MATLAB_OK = (
    "def causal_mask(T_q, T_k=None):\n"
    "    \"\"\"MATLAB: (1:Tk) <= (1:Tq)'. Both ranges shifted to 1-based, so the comparison is unchanged.\"\"\"\n"
    "    if T_k is None:\n"
    "        T_k = T_q\n"
    "    i = torch.arange(1, T_q + 1).reshape(T_q, 1)\n"
    "    j = torch.arange(1, T_k + 1).reshape(1, T_k)\n"
    "    return j <= i\n"
)

CORRECT = {
    "band_part_helper_causal_jnp_where_dtype_min_fill_rows_zeroed": {
        "stable_softmax": _SOFTMAX_OK,
        "causal_mask": _BAND_PART_OK,
        "scaled_dot_product_attention": _sdpa(
            fill="torch.where(mask, scores, torch.finfo(scores.dtype).min)",
        ),
    },
    "keras_padding_polarity_converted_once_keys_stored_as_columns": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.shape[-1]\n"
            "    K_cols = K.transpose(-2, -1)          # (..., d_k, T_k): keys as columns, as in MATLAB\n"
            "    scores = torch.matmul(Q, K_cols) / math.sqrt(d_k)\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    is_pad = torch.logical_not(mask)     # Keras / nn.MultiheadAttention: True = ignore\n"
            "    scores = scores.masked_fill(is_pad, float('-inf'))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    all_pad = is_pad.all(dim=-1, keepdim=True)\n"
            "    weights = weights.masked_fill(all_pad, 0.0)\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "answers_ported_from_r_var_and_matlab_one_based_counts": {
        "weights_shape": (
            "batch, T, d_k_, d_v_ = 4, 10, 64, 128\n"
            "weights_shape = tuple(int(s) for s in (batch, T, T))\n"
            "out_shape = tuple(int(s) for s in (batch, T, d_v_))\n"
        ),
        "d_k": _Q2.format(**_Q2_OK),
        "q_trap_answer": "q_trap_answer = str(\"C\")\n",
        "attn_entries": _Q8.format(**_Q8_OK),
    },
    "matlab_one_based_mask_and_q6_rows_stacked_as_rows": {
        "causal_mask": _CAUSAL_MATLAB_OK,
        "scores3": _Q6.format(**{**_Q6_OK, "weights": "torch.stack([stable_softmax(r, dim=0) for r in scores3], dim=0)"}),
    },
    "jax_at_set_ported_as_reassigned_where_and_softmax_on_moved_axis": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"jax.nn.softmax(x, axis=dim): move the axis last, normalise, move it back.\"\"\"\n"
            "    y = torch.movedim(x, dim, -1)\n"
            "    y = torch.exp(y - y.max(dim=-1, keepdim=True).values)\n"
            "    y = y / y.sum(dim=-1, keepdim=True)\n"
            "    return torch.movedim(y, -1, dim)\n"
        ),
        "scaled_dot_product_attention": _sdpa(
            rows="weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))  # x = x.at[...].set(0)",
        ),
    },
}

WRONG = {
    "q1_out_shape_in_features_by_time_layout_from_matlab_columns": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10)\n"
            "# MATLAB habit: one column per token, so the output is (batch, d_v, T)\n"
            "out_shape = (4, 128, 10)\n"
        )},
        {"mistake": "out_shape is written in the (features, time) layout of MATLAB code, one column per token: "
                    "(4, 128, 10) instead of (batch, T_q, d_v) = (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_variances_with_jnp_var_population_default_ddof_zero": (
        {"d_k": _Q2.format(raw="float(torch.var(raw_scores, correction=0))   # jnp.var(x): ddof=0",
                           scaled="float(torch.var(raw_scores / math.sqrt(d_k), correction=0))",
                           div=_Q2_OK["div"])},
        {"mistake": "both variances use the population estimator (divide by n, ddof=0, jnp.var's and np.var's "
                    "default) instead of torch's default unbiased .var() (n - 1), so both come out smaller by "
                    "the factor 49/50",
         "where": ["q2"]},
    ),
    "q3_denominator_summed_over_all_axes_like_tf_reduce_sum_default": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    shifted = x - torch.amax(x, dim=dim, keepdim=True)\n"
            "    e = torch.exp(shifted)\n"
            "    return e / torch.sum(e)   # tf.reduce_sum(e): no axis\n"
        )},
        {"mistake": "the denominator is the sum of the exponentials over the whole tensor (tf.reduce_sum "
                    "without an axis) instead of along `dim`, so each slice sums to 1 / (number of slices), not 1; "
                    "attention and the q6 weights reuse it",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_tf_look_ahead_mask_where_true_marks_the_future": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"create_look_ahead_mask: 1 - band_part(ones, -1, 0).\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    lower = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
            "    return ~lower\n"
        )},
        {"mistake": "ports the TensorFlow tutorial's look-ahead mask, whose 1s mark the blocked (future) keys: "
                    "True strictly above the diagonal, the complement of the mask asked for (True = may attend); "
                    "the q6 causal weights use it",
         "where": ["q4", "q6"]},
    ),
    "q4_query_numbers_from_one_like_matlab_key_numbers_from_zero": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    i = torch.arange(1, T_q + 1).unsqueeze(1)   # queries 1:T_q as in MATLAB\n"
            "    j = torch.arange(T_k).unsqueeze(0)\n"
            "    return j <= i\n"
        )},
        {"mistake": "the query positions are numbered 1..T_q (MATLAB's 1:T) while the key positions start at 0, "
                    "so each query also sees the next key: True for j <= i + 1, one diagonal too many; the q6 "
                    "causal weights use it",
         "where": ["q4", "q6"]},
    ),
    "q5_mask_read_as_keras_padding_mask_true_means_ignore": (
        {"scaled_dot_product_attention": _sdpa(
            fill="scores.masked_fill(mask, float('-inf'))   # key_padding_mask: True = pad",
            rows="weights = weights.masked_fill(mask.all(dim=-1, keepdim=True), 0.0)",
        )},
        {"mistake": "the boolean mask is read with the nn.MultiheadAttention / Keras padding polarity (True = "
                    "ignore): the keys that may be attended are blocked and the blocked ones are attended",
         "where": ["q5"]},
    ),
    "q5_scores_kept_keys_by_queries_softmax_still_on_the_last_axis": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD
            + "    d_k = Q.shape[-1]\n"
            "    # column convention (W @ x): scores_t[..., j, i] = k_j . q_i, keys by queries\n"
            "    scores_t = torch.matmul(K, Q.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores_t = scores_t.masked_fill(~mask.transpose(-2, -1), float('-inf'))\n"
            "    weights_t = stable_softmax(scores_t, dim=-1)\n"
            "    weights = weights_t.transpose(-2, -1)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scores are kept keys by queries (K @ Q^T, the column convention, mask transposed to "
                    "match) but the softmax is left on the last axis, which in that layout is the query axis: "
                    "each key's weights over the queries sum to 1 instead of each query's weights over the keys",
         "where": ["q5"]},
    ),
    "q5_scale_built_as_a_float32_tensor_like_numpy_float32_default": (
        {"scaled_dot_product_attention": _sdpa(
            scores="torch.matmul(Q, K.transpose(-2, -1)) * torch.tensor(d_k, dtype=torch.float32).rsqrt().item()",
        )},
        {"mistake": "the scale 1/sqrt(d_k) is computed as a float32 tensor (np.float32 / jnp default dtype) and "
                    "then used as a number, so float64 inputs are scaled by a constant rounded to float32 "
                    "precision (relative error about 1e-8 when d_k is not a power of 4, e.g. d_k = 8 or 24)",
         "where": ["q5"]},
    ),
    "q5_jax_at_set_rewritten_as_an_update_on_a_discarded_clone": (
        {"scaled_dot_product_attention": _sdpa(
            rows="weights.clone()[~mask.any(dim=-1).expand(weights.shape[:-1])] = 0.0   # weights.at[rows].set(0)",
        )},
        {"mistake": "JAX's functional update weights = weights.at[rows].set(0) is rewritten as an index "
                    "assignment on weights.clone() whose result is thrown away, so fully masked queries keep "
                    "the NaN weights of 0/0 and get NaN output rows instead of zeros",
         "where": ["q5"]},
    ),
    "q5_softmax_on_axis_one_as_in_keras_softmax_layer": (
        {"scaled_dot_product_attention": _sdpa(
            softmax="stable_softmax(scores, dim=1)   # layers.Softmax(axis=1)",
        )},
        {"mistake": "the softmax is taken along axis 1 (copied from a Keras Softmax(axis=1) on (batch, T_q, T_k) "
                    "scores) instead of the last (key) axis: on 3-D inputs it normalises over the queries, on 4-D "
                    "inputs over the heads",
         "where": ["q5"]},
    ),
    "q6_rows_softmaxed_then_stacked_as_columns_like_r_apply": (
        {"scores3": _Q6.format(**{**_Q6_OK,
                                  "weights": "torch.stack([stable_softmax(r, dim=0) for r in scores3], dim=1)  # apply(S, 1, softmax)"})},
        {"mistake": "each row of scores3 is softmaxed but the results are stacked as columns (what R's "
                    "apply(S, 1, f) returns), so weights3 is the transpose of the right weights and out3 is wrong "
                    "too; the causal weights are right",
         "where": ["q6"]},
    ),
    "q6_causal_scores_zeroed_with_tril_like_matlab_before_the_softmax": (
        {"scores3": _Q6.format(**{**_Q6_OK, "causal": "stable_softmax(torch.tril(scores3), dim=-1)   # tril(S)"})},
        {"mistake": "the causal scores are made with tril(scores3), which sets the future scores to 0 rather "
                    "than -inf, so future keys still get weight exp(0) in weights3_causal",
         "where": ["q6"]},
    ),
    "q7_answer_a_from_jax_softmax_where_argument": (
        {"q_trap_answer": (
            "# jax.nn.softmax(scores, where=mask) excludes the masked entries and they come out as 0,\n"
            "# so zeroing them after the softmax is the same thing\n"
            "q_trap_answer = \"A\"\n"
        )},
        {"mistake": "answers A (zeroing after the softmax is the same as masking before), reasoning from "
                    "jax.nn.softmax's `where` argument, which renormalises; plain zeroing leaves rows summing "
                    "to less than 1 (answer C)",
         "where": ["q7"]},
    ),
    "q8_entries_counted_over_range_one_to_t_ported_from_matlab_one_colon_t": (
        {"attn_entries": _Q8.format(e="sum(1 for i in range(1, 1024) for j in range(1, 1024))   # for i = 1:T",
                                    m="attn_entries * 64", r="4")},
        {"mistake": "MATLAB's inclusive loop `for i = 1:T` is ported as range(1, T), which stops at T - 1, so the "
                    "pairs counted are 1023 ** 2 = 1046529 and score_madds = 1023 ** 2 * 64 (the ratio, typed as 4, "
                    "is right)",
         "where": ["q8"]},
    ),
}
