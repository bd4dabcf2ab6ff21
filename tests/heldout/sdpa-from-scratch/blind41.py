"""Forty-first blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind40.py in full (for the format), and only
the module docstrings and variant names of the earlier blind sets (so that their mistakes are not repeated
in the same form). The grader was not run on this set.

This round leans on the questions earlier sets touched least (q1, q7, q8, q2, q4, q6; one q5 variant only)
and on code shapes they used little: a probe tensor turned into a "shape" with `tuple(...)` instead of
`tuple(....shape)`, and shapes fancy-indexed out of a NumPy array of sizes (q1); pairwise products built
by broadcasting and never summed over the features, and the scale taken with `math.isqrt` (q2); the
softmax denominator detached along with the max (values right, gradients wrong), and an axis moved to the
end with `movedim(dim, -1)` and "moved back" with the same call (q3); a mask from `torch.triu_indices`
left at its default offset 0, and a helper whose rectangular branch forgets `.bool()` (q4); empty rows
looked for with `weights.sum(-1) == 0`, which NaN defeats (q5); a penalty typed `1e-9` for `-1e9`, and
causal weights left as ragged rows without their zeros (q6); the answer assigned from `print("C")`, and a
`==` typed under the template's `q_trap_answer = ...` (q7); counts typed in scientific notation (q8).
The correct variants use star-unpacked shapes with a variance from pairwise differences and `torch.bmm`,
a softmax whose denominator is an L1 `torch.linalg.vector_norm` with a mask from `torch.cartesian_prod`,
an attention that multiplies by the reciprocal root, adds a zero/-inf bias and forms the output as the
transpose of V^T W^T, a trace through `log_softmax().exp()` and `torch.linalg.multi_dot` with costs from
`math.pow` and shifts, and a mask from a flat index split with `//` and `%` with the letter written as a
named Unicode escape.

Public material used (search tool, code corpus): cyobero/datascience
`tensorflow/chatbot/scaled_dot_product_attention.py` (`logits += (mask * 1e-9)`: the TensorFlow
tutorial's `-1e9` penalty typed as `1e-9`, a tiny positive number that masks nothing), the source of the q6
penalty variant; google/CFU-Playground `models/models/layers/dot_product_attention.py` and the TensorFlow
tutorial copies found next to it (`scores += -1e9 * mask`), for the form of that penalty; the Keras
`_apply_scores` (found as Ace1928/eidosian_forge `archive_forge/src/archive_forge/func__apply_scores.py`,
65504 for float16, 1e9 otherwise), considered for a q5 variant and dropped because in PyTorch the scalar
product is computed in float32 and the mask still works; pytorch/pytorch#14904 (the `tril_indices` /
`triu_indices` docs: "If offset = 0, all elements on and below [for triu: on and above] the main diagonal
are retained"), behind the q4 `triu_indices` variant. Pages corpus: engineersofai.com "None and Implicit
Return" and python.astrotech.io "Type None" (a function with no return value, such as print or
list.sort, gives None; the template placeholder `...` is Ellipsis), behind the two q7 variants. The other
slips are ones plausible for students of this notebook.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5, whose code calls it; a broken `causal_mask` also costs q5 and q6).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`, the
notebook's formula; gradients through `torch.autograd.grad`) on several shapes and dtypes (float64,
float32, float16, bfloat16), including the notebook's own, with a throwaway script outside the
repository (lesson 80 itself was not read for this round).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "shapes_star_unpacked_variance_from_pairwise_differences_bmm": {
        "weights_shape": (
            "_q_shape, _v_shape = (4, 10, 64), (4, 10, 128)     # K has the shape of Q\n"
            "weights_shape = (*_q_shape[:-1], _v_shape[-2])     # (batch, T_q, T_k)\n"
            "out_shape = (*_q_shape[:-1], _v_shape[-1])         # (batch, T_q, d_v)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "\n"
            "\n"
            "def _sample_var(t):\n"
            "    # unbiased variance = mean of (x_i - x_j)^2 over ordered pairs i != j, halved\n"
            "    x = t.reshape(-1).double()\n"
            "    n = x.numel()\n"
            "    diffs = x[:, None] - x[None, :]\n"
            "    return float((diffs ** 2).sum() / (2 * n * (n - 1)))\n"
            "\n"
            "\n"
            "raw_score_var = _sample_var(raw_scores)\n"
            "scaled_score_var = _sample_var(raw_scores / math.sqrt(d_k))\n"
            "scale_divisor = math.pow(64, 0.5)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
    },
    "softmax_l1_vector_norm_mask_from_cartesian_prod": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    top = torch.max(x, dim, keepdim=True)[0]\n"
            "    e = (x - top).exp()\n"
            "    # every e is >= 0, so its L1 norm along `dim` is its sum\n"
            "    return e / torch.linalg.vector_norm(e, ord=1, dim=dim, keepdim=True)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    pairs = torch.cartesian_prod(torch.arange(T_q), torch.arange(T_k))   # rows (i, j), i-major\n"
            "    return (pairs[:, 1] <= pairs[:, 0]).reshape(T_q, T_k)\n"
        ),
    },
    "sdpa_reciprocal_scale_zero_bias_transposed_output_masked_fill": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    inv_root = 1.0 / math.sqrt(Q.shape[-1])\n"
            "    scores = torch.matmul(Q, K.transpose(-1, -2)).mul(inv_root)\n"
            "    if mask is not None:\n"
            "        bias = torch.zeros_like(scores).masked_fill(mask.logical_not(), float(\"-inf\"))\n"
            "        scores = scores + bias\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    # (W V)^T = V^T W^T\n"
            "    out = torch.matmul(V.transpose(-1, -2), weights.transpose(-1, -2)).transpose(-1, -2)\n"
            "    if mask is not None:\n"
            "        out = out.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)   # queries that see no key\n"
            "    return out\n"
        ),
    },
    "trace_log_softmax_exp_multi_dot_costs_from_pow_and_shifts": {
        "weights3": (
            "scores3 = torch.matmul(Q3, K3.transpose(0, 1)) * 0.5     # 1 / sqrt(4)\n"
            "weights3 = scores3.log_softmax(dim=1).exp()\n"
            "out3 = torch.linalg.multi_dot([weights3, V3])\n"
            "_blocked = torch.ones(3, 3, dtype=torch.bool).triu(diagonal=1)\n"
            "weights3_causal = scores3.masked_fill(_blocked, -math.inf).log_softmax(dim=1).exp()\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "attn_entries": (
            "attn_entries = int(math.pow(2, 20))          # 1024 x 1024\n"
            "score_madds = attn_entries << 6              # times d_k = 64 = 2**6\n"
            "cost_ratio = ((2 * 1024) ** 2 * 64) // score_madds\n"
        ),
    },
    "mask_from_flat_index_divmod_letter_as_named_escape": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    flat = torch.arange(T_q * T_k).reshape(T_q, T_k)\n"
            "    query, key = flat // T_k, flat % T_k           # row-major: index = i * T_k + j\n"
            "    return key <= query\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"\\N{LATIN CAPITAL LETTER C}\"\n"
        ),
    },
}

WRONG = {
    "q1_tuple_of_probe_tensor_not_its_shape": (
        {"weights_shape": (
            "_probe = torch.zeros(4, 10, 64) @ torch.zeros(4, 10, 64).transpose(-2, -1)\n"
            "weights_shape = tuple(_probe)\n"
            "out_shape = tuple((_probe @ torch.zeros(4, 10, 128)).shape)\n"
        )},
        {"mistake": "weights_shape is tuple(_probe), the tuple of the probe's four (10, 10) slices, not its "
                    "shape; .shape was left out (tuple(_probe.shape) is (4, 10, 10))",
         "where": ["q1"]},
    ),
    "q1_shapes_fancy_indexed_from_numpy_array": (
        {"weights_shape": (
            "import numpy as np\n"
            "\n"
            "sizes = np.array([4, 10, 64, 128])     # batch, tokens, d_k, d_v\n"
            "weights_shape = sizes[[0, 1, 1]]\n"
            "out_shape = sizes[[0, 1, 3]]\n"
        )},
        {"mistake": "the shapes are NumPy integer arrays picked out of an array of sizes, not tuples of Python "
                    "ints; comparing them with a tuple gives an array of booleans, not True or False",
         "where": ["q1"]},
    ),
    "q2_pair_products_never_summed_over_features": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# every query against every key, by broadcasting\n"
            "raw_scores = Q[:, :, None, :] * K[:, None, :, :]\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the broadcast products q_i k_i are never summed over the feature axis, so the 'scores' are "
                    "the (2, 5, 5, 8) single products, not the (2, 5, 5) dot products; their variance is about "
                    "1 instead of about d_k, and the scaled one about 1/d_k instead of about 1",
         "where": ["q2"]},
    ),
    "q2_scaled_by_integer_square_root": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.isqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "math.isqrt is the integer square root: math.isqrt(8) = 2, not sqrt(8) = 2.83, so the scores "
                    "are divided by 2 and scaled_score_var is raw_score_var / 4 instead of raw_score_var / 8",
         "where": ["q2"]},
    ),
    "q3_denominator_detached_along_with_the_max": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    # constants for the gradient: the shift and the normaliser\n"
            "    m = x.max(dim=dim, keepdim=True).values.detach()\n"
            "    exps = torch.exp(x - m)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True).detach()\n"
        )},
        {"mistake": "the denominator is detached as well as the max: detaching the max is harmless because "
                    "softmax does not depend on the shift, but the sum does depend on x, so the values are right "
                    "and the gradients are wrong (the part that flows through the normaliser is lost)",
         "where": ["q3", "q5"]},
    ),
    "q3_movedim_undone_in_the_same_direction": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    z = x.movedim(dim, -1)                       # work on the last axis\n"
            "    z = z - z.max(dim=-1, keepdim=True).values\n"
            "    e = torch.exp(z)\n"
            "    p = e / e.sum(dim=-1, keepdim=True)\n"
            "    return p.movedim(dim, -1)                    # put the axis back\n"
        )},
        {"mistake": "the axis is 'put back' with the same movedim(dim, -1) instead of movedim(-1, dim); for the "
                    "last axis (and for a 2-D tensor) that happens to be harmless, but for dim=0 of a 3-D tensor "
                    "or dim=0 or 1 of a 4-D one the axes come back permuted (a wrong shape)",
         "where": ["q3"]},
    ),
    "q4_triu_indices_without_offset_one": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    mask = torch.ones(T_q, T_k, dtype=torch.bool)\n"
            "    rows, cols = torch.triu_indices(T_q, T_k)    # the future keys\n"
            "    mask[rows, cols] = False\n"
            "    return mask\n"
        )},
        {"mistake": "torch.triu_indices with its default offset 0 includes the diagonal, so the mask also blocks "
                    "j == i (each query cannot see itself, and query 0 sees nothing); the future keys are "
                    "triu_indices(T_q, T_k, offset=1)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_rectangular_branch_left_float": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        return torch.tril(torch.ones(T_q, T_q)).bool()\n"
            "    return torch.tril(torch.ones(T_q, T_k))\n"
        )},
        {"mistake": "only the square branch converts to bool: when T_k is given the mask is a float32 tensor of "
                    "ones and zeros, not a torch.bool mask (and as attn_mask a float mask is added to the "
                    "scores instead of selecting keys)",
         "where": ["q4", "q5"]},
    ),
    "q5_empty_rows_detected_by_weight_sum_equal_zero": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    # a query that sees no key has no weight to give out\n"
            "    empty = weights.sum(dim=-1, keepdim=True) == 0\n"
            "    weights = torch.where(empty, torch.zeros_like(weights), weights)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a query whose keys are all masked gets weights 0/0 = NaN, not zeros, so their sum is NaN and "
                    "the test `== 0` never fires: those output rows stay NaN instead of zeros (look at the mask, "
                    "mask.any(-1), or test for NaN)",
         "where": ["q5"]},
    ),
    "q6_penalty_typed_as_1e_minus_9": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# as in the TensorFlow tutorial: push the blocked scores down by a huge penalty\n"
            "_blocked = (~causal_mask(3)).to(scores3.dtype)\n"
            "weights3_causal = stable_softmax(scores3 + _blocked * 1e-9, dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the penalty is typed 1e-9 (a tiny positive number) instead of -1e9, so the blocked scores "
                    "are hardly changed and weights3_causal is the unmasked weights3; the future keys keep their "
                    "weight",
         "where": ["q6"]},
    ),
    "q6_causal_rows_left_ragged_without_zeros": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# query i can only look at keys 0..i\n"
            "weights3_causal = [stable_softmax(scores3[i, :i + 1], dim=-1).tolist() for i in range(3)]\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "each query's weights cover only the keys it may see, so weights3_causal is a ragged list of "
                    "rows of lengths 1, 2, 3, not the (3, 3) matrix with zeros for the blocked keys",
         "where": ["q6"]},
    ),
    "q7_answer_assigned_from_print": (
        {"q_trap_answer": (
            "q_trap_answer = print(\"C\")\n"
        )},
        {"mistake": "print returns None: the cell shows C, but q_trap_answer is None; assign the string \"C\" "
                    "itself",
         "where": ["q7"]},
    ),
    "q7_double_equals_leaves_template_ellipsis": (
        {"q_trap_answer": (
            "q_trap_answer = ...\n"
            "q_trap_answer == \"C\"\n"
        )},
        {"mistake": "the answer line uses == (a comparison whose result is thrown away) instead of =, so "
                    "q_trap_answer is still the template's placeholder ... (Ellipsis), not \"C\"",
         "where": ["q7"]},
    ),
    "q8_counts_typed_in_scientific_notation": (
        {"attn_entries": (
            "attn_entries = 1.048576e6      # 1024^2\n"
            "score_madds = 6.7108864e7      # 1024^2 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the counts are typed in scientific notation, which makes them Python floats "
                    "(1048576.0, 67108864.0); the question asks for ints",
         "where": ["q8"]},
    ),
}
