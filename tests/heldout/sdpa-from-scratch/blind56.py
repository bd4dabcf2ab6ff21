"""Fifty-sixth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind55.py in full (for the format), and only
the variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form).
The lesson texts were not needed. The grader was not run on this set.

This round's focus: habits carried over from elsewhere (MATLAB's 1-based axes and square `zeros(n)`, NumPy's
argument orders, `out=` and truthy `where`, Flax's tensor layout, TensorFlow's mask convention, training-loop
autocast, "coerce the input" snippets) and PyTorch semantics that surprise (views that share memory, stride-0
expanded views, implicit-mode einsum, iteration yielding 0-dim tensors, `float_power`'s float64). Code shapes:
a shape probe that permutes the keys with MATLAB's axis numbers `permute(1, 3, 2)` (q1); `statistics.variance`
fed a flattened tensor, whose items are 0-dim tensors, and a hand variance computed in place on
`raw_scores.view(-1)`, which turns the raw scores themselves into squared deviations before the scaled
variance is taken (q2); a softmax that coerces its input with `torch.as_tensor(x, dtype=torch.float32)`, and
one whose exponentials come from `torch.float_power` (always float64) (q3); a mask made by an in-place `tril_`
on `ones(1, 1).expand(T_q, T_k)`, where every entry is one memory cell and all become False, and one built
from `torch.triu_indices(T_q, 1, T_k)` in NumPy's (n, k, m) order, which selects nothing (q4); Flax's einsum
strings `...qhd,...khd->...hqk` for a (..., length, features) layout, the whole body under `torch.autocast`,
and `torch.where` given an int64 key count as its condition (q5); `torch.exp(scores3, out=scores3)` before the
causal weights reuse scores3, and the output einsum `"qk,kd"` in implicit mode, which orders the output d, q
(q6); the trap decided by reading causal_mask with TensorFlow's look-ahead convention (1 = hide), so B (q7);
the counts taken from `torch.zeros(T).numel()` as if `zeros(T)` were T x T as in MATLAB (q8).
The correct variants are the fixed forms of several of these: a softmax shifted by `x.nan_to_num().amax(...)`
with NumPy's `axis=`/`keepdims=` aliases; an attention from explicit ellipsis einsums, `torch.where` against a
Python-scalar -inf and rows cleared with `where(..., 0.0)`; a mask expanded then cloned before `tril_`; the q6
trace from explicit einsums with the exponentials zeroed and renormalised; q1/q2/q7/q8 from a 0-based
`permute(0, 2, 1)` probe, `statistics.variance` on `.tolist()` floats, an `allclose` check and
`zeros(1024, 1024).numel()`.

Public material used (search tool):
- q1: the MATLAB `permute(A, [2 1 3])` idiom with 1-based axis numbers (MATLAB/Scilab equivalence pages in
  the Nemotron-CC-Math copy); torch's own message, seen here, "Dimension out of range (expected to be in range
  of [-3, 2], but got 3)".
- q2: the PyTorch forum summary "What is in-place operation?" (discuss.pytorch.org/t/16244: "x -= ..., X.add_
  ... change the state of tensors silently") and the `Tensor.view` sharing of storage; for statistics, torch's
  iteration semantics and the message seen here "can't convert type 'Tensor' to numerator/denominator".
- q3: `torch.float_power` ("computes in double precision"); the np.asarray(x, dtype=np.float32) input
  coercion common in snippets, done with `torch.as_tensor`.
- q4: the `Tensor.expand` documentation (docs.pytorch.org torch.Tensor.expand: "More than one element of an
  expanded tensor may refer to a single memory location. As a result, in-place operations ... may result in
  incorrect behavior. If you need to write to the tensors, please clone them first") and the forum threads
  discuss.pytorch.org/t/41190 ("change one element of a tensor will influence all elements") and /t/85526;
  `numpy.triu_indices(n, k=0, m=None)` against `torch.triu_indices(row, col, offset=0)`.
- q5: Flax's `dot_product_attention_weights` (copied in amyxlu/msa-transformer-jax model.py and
  google/flaxformer dense_attention.py: query `[batch..., q_length, num_heads, qk_depth_per_head]`, einsum
  `...qhd,...khd->...hqk`); pytorch/pytorch#109099 and PR #61002 (CPU autocast's lower precision dtype is
  bfloat16), checked here: float32 and float16 matmuls under CPU autocast return bfloat16; torch's message
  "where expected condition to be a boolean tensor, but got a tensor with dtype Long" against NumPy's where,
  which accepts any truthy array.
- q6: the NumPy einsum documentation (numpy.org numpy.einsum: in implicit mode "the axes of the output are
  reordered alphabetically ... np.einsum('ji', a) takes its transpose"), which torch.einsum follows; NumPy's
  `out=` argument used to save an array (`np.exp(s, out=s)`).
- q7: the TensorFlow transformer tutorial's `create_look_ahead_mask` (`1 - tf.linalg.band_part(tf.ones((size,
  size)), -1, 0)`, 1 = masked; copies in BinhMinhs10/transformers_onnx, cimat-ris/TF-PathPred and others).
- q8: MATLAB's `zeros(n)` returning an n-by-n matrix (MATLAB/Scilab equivalence pages), against `torch.zeros(n)`
  and `np.zeros(n)`, a vector.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5 and q6; a broken `stable_softmax` may cost q5, and q6 where the trace's
dtype changes). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax` and `F.scaled_dot_product_attention` in
float64, with fully masked rows set to zero) with a throwaway script outside the repository: softmax on 1-D
to 4-D inputs along positive and negative axes, float16 logits in the thousands with -inf entries, gradients;
masks for square and rectangular sizes; attention on 3-D and 4-D inputs with T_q != T_k and d_v != d_k, no
mask, a causal mask and a random mask with a fully masked query, float16 inputs with large scores, gradients;
all in float64, float32, float16 and bfloat16 on the CPU (no GPU was lent to this task). Each variant's
notebook was also run top to bottom (all code cells but otter's). The correct ones run without an error and
match full_marks' values; each wrong one differs from the right answer (or raises) where the notebook's tests
look, and only in its "where". The crashing ones raise in their own cell (q1 permute, q2 statistics, q6's
out3 for the float32-coercing softmax), or on use (q5 int condition); the Flax-layout, autocast, int-condition
and float_power variants also raise in the unscored comparison cell after q5.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "softmax_shift_from_nan_to_num_with_numpy_keyword_aliases": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    # the shift only has to be the slice's max; nan_to_num turns -inf into the dtype's lowest\n"
            "    # finite value, which never beats a finite entry, so the max is unchanged\n"
            "    shift = x.nan_to_num().amax(axis=dim, keepdims=True)\n"
            "    exps = torch.exp(x - shift)\n"
            "    return exps / exps.sum(axis=dim, keepdims=True)\n"
        ),
    },
    "sdpa_explicit_ellipsis_einsum_where_scalar_fill_and_where_cleared_rows": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    inv_scale = 1.0 / math.sqrt(Q.shape[-1])          # a Python float\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * inv_scale\n"
            "    if mask is not None:\n"
            "        scores = torch.where(mask, scores, float(\"-inf\"))   # a Python scalar keeps the dtype\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, 0.0)\n"
            "    return torch.einsum(\"...qk,...kd->...qd\", weights, V)\n"
        ),
    },
    "mask_expanded_then_cloned_before_in_place_tril": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    full = torch.ones(1, 1, dtype=torch.bool).expand(T_q, T_k).clone()   # own memory before writing\n"
            "    return full.tril_()\n"
        ),
    },
    "trace_explicit_einsum_exponentials_zeroed_then_renormalised": {
        "weights3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) / math.sqrt(4)\n"
            "_e = torch.exp(scores3 - scores3.amax(dim=-1, keepdim=True))\n"
            "weights3 = _e / _e.sum(dim=-1, keepdim=True)\n"
            "out3 = torch.einsum(\"qk,kd->qd\", weights3, V3)\n"
            "_kept = torch.where(causal_mask(3), _e, 0.0)     # e**(-inf) = 0: drop the future keys ...\n"
            "weights3_causal = _kept / _kept.sum(dim=-1, keepdim=True)   # ... and renormalise over the rest\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "zero_based_permute_probe_statistics_on_floats_checked_letter_matrix_numel": {
        "weights_shape": (
            "_Q, _K, _V = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "_W = _Q @ _K.permute(0, 2, 1)          # axes counted from 0: swap the last two\n"
            "weights_shape = tuple(_W.shape)\n"
            "out_shape = tuple((_W @ _V).shape)\n"
        ),
        "raw_score_var": (
            "import statistics\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "_values = raw_scores.flatten().tolist()             # Python floats, not 0-dim tensors\n"
            "raw_score_var = statistics.variance(_values)         # n - 1 in the denominator, like torch's .var()\n"
            "scaled_score_var = statistics.variance([v / math.sqrt(d_k) for v in _values])\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "q_trap_answer": (
            "_g = torch.Generator().manual_seed(0)\n"
            "_scores = torch.randn(4, 4, generator=_g, dtype=torch.float64)\n"
            "_mask = causal_mask(4)\n"
            "_right = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
            "_short = F.softmax(_scores, dim=-1)\n"
            "_short[~_mask] = 0.0\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
        ),
        "attn_entries": (
            "attn_entries = torch.zeros(1024, 1024).numel()      # both sizes given: a T x T matrix\n"
            "score_madds = attn_entries * 64\n"
            "cost_ratio = torch.zeros(2048, 2048).numel() * 64 // score_madds\n"
        ),
    },
}

_SOFTMAX_DOC = "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
_MASK_DOC = "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)
_TRAP_SETUP = (
    "_g = torch.Generator().manual_seed(0)\n"
    "_scores = torch.randn(4, 4, generator=_g, dtype=torch.float64)\n"
    "_mask = causal_mask(4)\n"
)

WRONG = {
    "q1_keys_permuted_with_matlab_one_based_axis_numbers": (
        {"weights_shape": (
            "_Q, _K, _V = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "_W = _Q @ _K.permute(1, 3, 2)          # permute(K, [1 3 2]): swap the last two axes\n"
            "weights_shape = tuple(_W.shape)\n"
            "out_shape = tuple((_W @ _V).shape)\n"
        )},
        {"mistake": "the axis numbers are MATLAB's, counted from 1: permute(K, [1 3 2]) in PyTorch is "
                    "K.permute(0, 2, 1); there is no axis 3 in a 3-D tensor, so permute raises 'Dimension out "
                    "of range' and neither shape is set (they are (4, 10, 10) and (4, 10, 128))",
         "where": ["q1"]},
    ),
    "q2_statistics_variance_fed_zero_dim_tensors_instead_of_floats": (
        {"raw_score_var": (
            "import statistics\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = statistics.variance(raw_scores.flatten())       # sample variance (n - 1)\n"
            "scaled_score_var = statistics.variance((raw_scores / math.sqrt(d_k)).flatten())\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "iterating over a tensor yields 0-dim tensors, not Python numbers, and the statistics "
                    "module cannot turn a Tensor into a fraction: it raises TypeError \"can't convert type "
                    "'Tensor' to numerator/denominator\"; the values need .tolist() first (or use .var())",
         "where": ["q2"]},
    ),
    "q2_hand_variance_squares_a_view_of_the_raw_scores_in_place": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "_dev = raw_scores.view(-1)                 # flat, no copy needed\n"
            "_dev -= _dev.mean()\n"
            "_dev.pow_(2)                               # squared deviations\n"
            "raw_score_var = (_dev.sum() / (_dev.numel() - 1)).item()     # unbiased, like .var()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "view(-1) shares memory with raw_scores, so the in-place -= and pow_ turn raw_scores itself "
                    "into squared deviations; raw_score_var is right, but scaled_score_var is then the variance "
                    "of squared deviations / sqrt(d_k), not of the scaled scores (clone, or do it out of place)",
         "where": ["q2"]},
    ),
    "q3_input_coerced_to_float32_with_as_tensor": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    x = torch.as_tensor(x, dtype=torch.float32)     # accept lists/arrays too, as np.asarray(x, float32)\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "as_tensor with dtype=float32 converts every input to float32, so float64 inputs lose "
                    "precision and float64, float16 and bfloat16 inputs all come back float32 instead of in "
                    "their own dtype (and the attention's weights @ V then mixes dtypes and raises)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_exponentials_from_float_power_come_back_float64": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.float_power(math.e, shifted)        # e ** shifted, computed in double for accuracy\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "torch.float_power always computes and returns float64, so the softmax of a float32, "
                    "float16 or bfloat16 input comes back float64 instead of in the input's dtype (and the "
                    "attention's weights @ V then mixes dtypes and raises); cast back or use torch.exp",
         "where": ["q3", "q5"]},
    ),
    "q4_in_place_tril_on_an_expanded_view_clears_every_entry": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    T_k = T_q if T_k is None else T_k\n"
            "    full = torch.ones(1, 1, dtype=torch.bool).expand(T_q, T_k)   # all True, without a copy\n"
            "    return full.tril_()\n"
        )},
        {"mistake": "expand makes a view in which every entry is the same single memory cell (stride 0), so "
                    "the in-place tril_ that writes False above the diagonal writes it into that one cell and "
                    "every entry becomes False; the expanded tensor must be cloned before writing to it",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_triu_indices_called_with_numpy_argument_order": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    T_k = T_q if T_k is None else T_k\n"
            "    mask = torch.ones(T_q, T_k, dtype=torch.bool)\n"
            "    rows, cols = torch.triu_indices(T_q, 1, T_k)   # np.triu_indices(n, k=1, m): above the diagonal\n"
            "    mask[rows, cols] = False\n"
            "    return mask\n"
        )},
        {"mistake": "torch.triu_indices takes (row, col, offset), not NumPy's (n, k, m): this asks for the "
                    "entries of a T_q x 1 matrix at least T_k above the diagonal, of which there are none, so "
                    "no key is blocked and the mask is all True; it should be torch.triu_indices(T_q, T_k, 1)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_flax_layout_einsum_with_heads_before_features": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.shape[-1]\n"
            "    # as in flax.linen.dot_product_attention_weights / dot_product_attention\n"
            "    scores = torch.einsum(\"...qhd,...khd->...hqk\", Q, K) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.einsum(\"...hqk,...khd->...qhd\", weights, V)\n"
        )},
        {"mistake": "the einsum strings are Flax's, for (batch..., length, heads, features) tensors; here the "
                    "length is the second-to-last axis, so the letters q/k land on the batch (or heads) axis "
                    "and h on the tokens: queries attend over other batch entries instead of over keys (wrong "
                    "values with the right shape), and T_q != T_k or a (T_q, T_k) mask raises",
         "where": ["q5"]},
    ),
    "q5_whole_body_under_autocast_returns_bfloat16": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    with torch.autocast(device_type=Q.device.type):      # mixed precision, as in the training loop\n"
            "        d_k = Q.size(-1)\n"
            "        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "        if mask is not None:\n"
            "            scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "            weights = stable_softmax(scores, dim=-1)\n"
            "            has_key = mask.any(dim=-1, keepdim=True)\n"
            "            weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "        else:\n"
            "            weights = stable_softmax(scores, dim=-1)\n"
            "        return torch.matmul(weights, V)\n"
        )},
        {"mistake": "autocast runs the matmuls in its low-precision dtype (bfloat16 on the CPU, float16 on a "
                    "GPU), so inputs of the other dtypes (float32, and float16 on the CPU or bfloat16 on a GPU) "
                    "come back in that dtype with its rounding errors; the result must keep the inputs' dtype, "
                    "so autocast has no place inside the function",
         "where": ["q5"]},
    ),
    "q5_where_condition_is_a_key_count_not_a_bool": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        n_keys = mask.sum(dim=-1, keepdim=True)           # 0 for a query with no key: falsy\n"
            "        weights = torch.where(n_keys, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "torch.where needs a boolean condition (NumPy's where accepts any truthy array, torch's "
                    "does not): the key count is int64, so every call with a mask raises 'where expected "
                    "condition to be a boolean tensor'; use n_keys > 0 or mask.any(dim=-1, keepdim=True)",
         "where": ["q5"]},
    ),
    "q6_scores_exponentiated_in_place_with_out_then_reused_for_the_causal_weights": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "_e = torch.exp(scores3, out=scores3)         # like np.exp(s, out=s): no extra array\n"
            "weights3 = _e / _e.sum(dim=-1, keepdim=True)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "out=scores3 writes the exponentials over the scores, so the causal weights are the softmax "
                    "of exp(scores) rather than of the scores: weights3 and out3 are right, but the rows of "
                    "weights3_causal with two or more keys are wrong",
         "where": ["q6"]},
    ),
    "q6_output_einsum_in_implicit_mode_sorts_the_axes_alphabetically": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = torch.einsum(\"qk,kd\", weights3, V3)            # sum over k, keep q and d\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "without '->' einsum is in implicit mode and orders the output axes alphabetically, d "
                    "before q, so out3 comes out (2, 3), the transpose of weights3 @ V3; write \"qk,kd->qd\"",
         "where": ["q6"]},
    ),
    "q7_mask_read_with_tensorflow_look_ahead_convention_answers_b": (
        {"q_trap_answer": (
            _TRAP_SETUP +
            "# TensorFlow tutorial: look_ahead_mask = 1 - band_part(ones, -1, 0), 1 marks a key to hide\n"
            "_look_ahead = 1 - torch.tril(torch.ones(4, 4, dtype=torch.float64))\n"
            "_classmate_hides = _mask.double()              # the mask the classmate's line is built from\n"
            "q_trap_answer = \"B\" if not torch.equal(_classmate_hides, _look_ahead) else \"C\"\n"
        )},
        {"mistake": "reads causal_mask with TensorFlow's look-ahead convention (1 = hide) although here True "
                    "means 'may attend' and the shortcut zeroes ~mask, the future keys, which is right; so the "
                    "check 'finds' the mask inverted and answers B, while the real flaw is that the kept "
                    "weights no longer sum to 1 (C)",
         "where": ["q7"]},
    ),
    "q8_matlab_zeros_n_taken_as_the_square_matrix": (
        {"attn_entries": (
            "_T, _dk = 1024, 64\n"
            "attn_entries = torch.zeros(_T).numel()          # zeros(T): the T x T weight matrix\n"
            "score_madds = attn_entries * _dk\n"
            "cost_ratio = torch.zeros(2 * _T).numel() * _dk // score_madds\n"
        )},
        {"mistake": "in MATLAB zeros(n) is n x n, but torch.zeros(n) (like np.zeros(n)) is a vector of n "
                    "entries, so every count is one factor of T short: 1024 entries instead of 1048576, "
                    "65536 multiply-adds instead of 67108864, and a ratio of 2 instead of 4",
         "where": ["q8"]},
    ),
}
