"""Fifty-second blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind51.py in full (for the format), and only
the variant names of the other earlier blind sets (so that their mistakes are not repeated in the same
form). The lesson text was not needed. The grader was not run on this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1 and
q7, then q8, q2, q4 and q6, before q3 and q5): three variants for q8, two each for q1, q2, q6 and q7, one
each for q3, q4 and q5, in code shapes they did not use: a weights probe built with `torch.inner` on the
3-D tensors (NumPy's `inner` idiom: it pairs every query of every batch with every key of every batch,
(4, 10, 4, 10)), and the output shape stored under the name `output_shape` (q1); the scaled scores
floor-divided with `//` by sqrt(d_k), and the divisor taken as an exact `decimal.Decimal(64).sqrt()` (q2);
a softmax that works in float32 for both half types and casts back with `.half()`, so bfloat16 comes back
float16 (q3); a square triangle over the query length padded on the right with True for the extra keys of
a cross-attention (q4); a (B, T_q, T_k) mask unsqueezed at dim 1 "for the heads axis" as in multi-head code,
which breaks 3-D inputs and re-aligns 4-D ones (q5); unmasked weights given in percent, and causal rows
built per prefix and zero-padded with `F.pad(w, (2 - i, 0))`, which pads on the left (q6); a trap check
that compares the shortcut with itself, and one that tests exact float equality of row sums (so the
correct method "fails" too and A is picked) (q7); entries read off `element_size()` (bytes per entry), the
score product costed with the n^3 rule for square matrices, and a ratio taken with `divmod`, a tuple (q8).
The correct variants use: a causal mask from `torch.eye(T_q, T_k).cumsum(0)` with a softmax computed in the
log domain (half types in float32, cast back); an attention that fills blocked scores with `torch.where`,
scales by multiplying with the reciprocal and clears fully blocked rows with `nan_to_num`, with a mask in
the `tf.sequence_mask` form (lengths 1..T_q); q2 variances by `torch.cov` of the flattened scores and the
identity Var(X / c) = Var(X) / c^2, the divisor as `float(np.sqrt(64))`, and q1 shapes as bare tuples
without parentheses; q6 by `einsum`, `F.softmax` (allowed outside `stable_softmax`) and a causal bias equal
to the log of the float mask (log 1 = 0, log 0 = -inf), with the q7 letter from `chr(ord("A") + 2)`; q8
counts by bit shifts and a mask from comparing the row and column cumsums of a grid of ones.

Public material used (search tool): the Hugging Face `_make_causal_mask` helper as copied in
A1ex-Chen/DL_project_log (GenderBias-VL/.../blip2_models/modeling_opt__make_causal_mask.py) and the
GPT-2 TF `causal_attention_mask` (dataset/framing-bias-metric/src/transformers/models/gpt2/
modeling_tf_gpt2_causal_attention_mask.py), for how real code builds square / bottom-right triangles and
pads the key axis for extra (past) keys, behind the q4 variant that pads the extra keys with True;
pytorch/pytorch#153854 ("Better padding API": F.pad's tuple is (before, after) per dimension, starting
from the last) and DingXiaoH/DiverseBranchBlock#26 (padding order mixed up), behind the q6 left-padded
prefix rows; the PyTorch docs of `Tensor.element_size` ("the size in bytes of an individual element") and
`Tensor.nbytes` (numel() * element_size()), behind the q8 `element_size()` count. The other slips are ones
plausible for students of this notebook (NumPy's `inner`, a renamed answer, `//` for `/`, `Decimal` for
"exactness", float16 and bfloat16 conflated, multi-head mask habits, percentages, a typo in a check, float
equality, the n^3 rule, `divmod`).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` or `stable_softmax` also costs q5 and q6, whose code uses them). Correct variants are
really correct but written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the
notebook's formula) on several shapes and dtypes (float64, float32, float16, bfloat16), including the
notebook's own, with a throwaway script outside the repository; each variant's notebook was also run top to
bottom (all code cells but otter's) without an error.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "eye_cumsum_mask_and_log_domain_softmax_in_float32": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # column j of eye has its 1 in row j, so the running sum down the rows is 1 from row j on\n"
            "    return torch.eye(T_q, T_k).cumsum(dim=0).bool()\n"
        ),
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    half = x.dtype in (torch.float16, torch.bfloat16)\n"
            "    work = x.float() if half else x\n"
            "    shifted = work - work.amax(dim=dim, keepdim=True)          # every entry <= 0\n"
            "    log_p = shifted - shifted.exp().sum(dim=dim, keepdim=True).log()   # log-softmax; the sum is >= 1\n"
            "    return log_p.exp().to(x.dtype)                             # -inf stays -inf, exp gives exactly 0\n"
        ),
    },
    "where_filled_scores_nan_to_num_weights_and_sequence_mask": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    scores = (Q @ K.mT) * (1.0 / math.sqrt(Q.shape[-1]))\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    scores = torch.where(mask, scores, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    weights = weights.nan_to_num(nan=0.0)     # only a query with no key left is 0/0 = NaN\n"
            "    return weights @ V\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    lengths = torch.arange(1, T_q + 1)                       # query i sees its first i + 1 keys\n"
            "    return torch.arange(T_k) < lengths.unsqueeze(-1)         # like tf.sequence_mask(lengths, T_k)\n"
        ),
    },
    "torch_cov_variance_identity_and_bare_tuples": {
        "raw_score_var": (
            "import numpy as np\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "raw_score_var = torch.cov(raw_scores.flatten()).item()     # 1-D input: the unbiased variance\n"
            "scaled_score_var = raw_score_var / d_k                      # Var(X / c) = Var(X) / c**2, c**2 = d_k\n"
            "scale_divisor = float(np.sqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "weights_shape": (
            "weights_shape = 4, 10, 10       # batch, queries, keys\n"
            "out_shape = 4, 10, 128          # batch, queries, d_v\n"
        ),
    },
    "log_float_mask_bias_einsum_output_and_chr_letter": {
        "weights3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) / 2.0\n"
            "weights3 = F.softmax(scores3, dim=1)\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "_bias3 = causal_mask(3).to(scores3.dtype).log()     # log 1 = 0 where allowed, log 0 = -inf where blocked\n"
            "weights3_causal = stable_softmax(scores3 + _bias3, dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = chr(ord(\"A\") + 2)     # the third option\n"
        ),
    },
    "bit_shift_counts_and_cumsum_grid_mask": {
        "attn_entries": (
            "attn_entries = 1 << 20                     # 1024 = 2**10, squared\n"
            "score_madds = attn_entries << 6            # times d_k = 64 = 2**6\n"
            "cost_ratio = (2 << 10) ** 2 // (1 << 10) ** 2\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    grid = torch.ones(T_q, T_k, dtype=torch.int64)\n"
            "    return grid.cumsum(0) >= grid.cumsum(1)     # row number >= column number, both counted from 1\n"
        ),
    },
}

WRONG = {
    "q1_weights_probe_with_torch_inner_pairs_every_batch_with_every_batch": (
        {"weights_shape": (
            "_q = torch.zeros(4, 10, 64)\n"
            "_k = torch.zeros(4, 10, 64)\n"
            "weights_shape = tuple(torch.inner(_q, _k).shape)     # inner = dot products over the last axis\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "torch.inner (like np.inner) does not batch: on 3-D tensors it pairs every (batch, query) with "
                    "every (batch, key), so the probe gives (4, 10, 4, 10); the weights are one number per "
                    "(query, key) pair within each batch entry, (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_out_shape_stored_under_the_name_output_shape": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10)\n"
            "output_shape = (4, 10, 128)\n"
        )},
        {"mistake": "the output shape is right but stored as `output_shape`; the question asks for `out_shape`, "
                    "which this notebook never defines",
         "where": ["q1"]},
    ),
    "q2_scaled_scores_floor_divided_by_root_d_k": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores // math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "`//` is floor division, also on float tensors: every scaled score is rounded down to a whole "
                    "number before the variance is taken, so scaled_score_var is not the variance of "
                    "scores / sqrt(d_k); the division is `/`",
         "where": ["q2"]},
    ),
    "q2_scale_divisor_as_an_exact_decimal": (
        {"raw_score_var": (
            "from decimal import Decimal\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = Decimal(64).sqrt()        # exact, no float rounding\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "scale_divisor is a decimal.Decimal('8'), not the Python float 8.0 that is asked for (and a "
                    "Decimal cannot even divide a tensor); use math.sqrt(64)",
         "where": ["q2"]},
    ),
    "q3_half_types_cast_back_with_half_so_bfloat16_comes_back_float16": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    if x.dtype in (torch.float16, torch.bfloat16):     # half types: do the work in float32\n"
            "        x32 = x.float()\n"
            "        e = torch.exp(x32 - x32.amax(dim=dim, keepdim=True))\n"
            "        return (e / e.sum(dim=dim, keepdim=True)).half()\n"
            "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
            "    return e / e.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "both half types are cast back with .half(), so a bfloat16 input comes back float16 instead of "
                    "bfloat16 (and q5's weights @ V then mixes float16 with bfloat16 values); cast back with "
                    ".to(x.dtype)",
         "where": ["q3", "q5"]},
    ),
    "q4_square_triangle_padded_with_true_for_the_extra_keys": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    tri = torch.ones(T_q, T_q).tril()\n"
            "    # cross-attention: the keys past T_q are extra memory that every query may read\n"
            "    return F.pad(tri, (0, T_k - T_q), value=1.0).bool()\n"
        )},
        {"mistake": "for T_k > T_q the extra key columns are padded with True, so every query also sees the keys "
                    "T_q..T_k-1 (for (6, 9) query 0 sees keys 0, 6, 7, 8); the mask is j <= i for every column, "
                    "so those columns are True only from row j on (all False when j >= T_q)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_three_d_mask_unsqueezed_at_dim_1_for_a_heads_axis": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        if mask.dim() == 3:                   # (B, T_q, T_k): make room for the heads axis\n"
            "            mask = mask.unsqueeze(1)\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a 3-D mask is given an extra axis at dim 1 as if the scores always had a heads axis: with 3-D "
                    "inputs the (B, 1, T_q, T_k) mask broadcasts the (B, T_q, T_k) scores to (B, B, T_q, T_k) and "
                    "the output has the wrong shape, and with 4-D inputs the mask's first axis is lined up with "
                    "the batch instead of the heads; a mask is broadcast from the right as it is",
         "where": ["q5"]},
    ),
    "q6_unmasked_weights_given_in_percent": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "_p3 = stable_softmax(scores3, dim=-1)\n"
            "weights3 = 100 * _p3                # in percent, easier to read\n"
            "out3 = _p3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "weights3 is given in percent (rows summing to 100); the attention weights are the softmax "
                    "probabilities themselves, rows summing to 1",
         "where": ["q6"]},
    ),
    "q6_causal_prefix_softmaxes_padded_on_the_left": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_rows = []\n"
            "for i in range(3):                            # query i sees keys 0..i\n"
            "    _w = stable_softmax(scores3[i, : i + 1], dim=-1)\n"
            "    _rows.append(F.pad(_w, (2 - i, 0)))       # zeros for the keys it cannot see\n"
            "weights3_causal = torch.stack(_rows)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "F.pad's pair is (before, after), so (2 - i, 0) puts the zeros on the left: each row's "
                    "weights are pushed to the last columns (query 0's weight 1 lands on key 2); the future keys "
                    "are on the right, F.pad(w, (0, 2 - i))",
         "where": ["q6"]},
    ),
    "q7_check_compares_the_shortcut_with_itself": (
        {"q_trap_answer": (
            "_g = torch.Generator().manual_seed(0)\n"
            "_scores = torch.randn(4, 4, generator=_g)\n"
            "_mask = causal_mask(4)\n"
            "_reference = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
            "_shortcut = F.softmax(_scores, dim=-1)\n"
            "_shortcut[~_mask] = 0.0\n"
            "_same = torch.allclose(_shortcut, _shortcut)     # do the two approaches agree?\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        )},
        {"mistake": "the check compares the shortcut with itself (a typo for _reference), so it always agrees and "
                    "the answer becomes A; the two approaches differ because zeroed rows no longer sum to 1, "
                    "answer C",
         "where": ["q7"]},
    ),
    "q7_row_sums_checked_with_exact_float_equality": (
        {"q_trap_answer": (
            "_g = torch.Generator().manual_seed(1)\n"
            "_scores = torch.randn(6, 6, generator=_g)\n"
            "_mask = causal_mask(6)\n"
            "_reference = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
            "_shortcut = F.softmax(_scores, dim=-1)\n"
            "_shortcut[~_mask] = 0.0\n"
            "_ref_sums_to_one = bool((_reference.sum(-1) == 1).all())\n"
            "_short_sums_to_one = bool((_shortcut.sum(-1) == 1).all())\n"
            "# C holds only if the shortcut is the one whose rows stop summing to 1\n"
            "q_trap_answer = \"C\" if _ref_sums_to_one and not _short_sums_to_one else \"A\"\n"
        )},
        {"mistake": "row sums are compared with == 1 in float32, so the correct -inf version also \"fails\" by a "
                    "rounding error and the check concludes both behave alike, answer A; compared with a "
                    "tolerance, only the shortcut's rows fall short of 1, answer C",
         "where": ["q7"]},
    ),
    "q8_entries_from_element_size_is_bytes_per_entry": (
        {"attn_entries": (
            "attn_entries = torch.zeros(1024, 1024).element_size()    # entries of the T x T matrix\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "element_size() is the size in bytes of ONE element (4 for float32), not the number of "
                    "elements; the weight matrix has 1024 * 1024 = 1048576 entries (numel())",
         "where": ["q8"]},
    ),
    "q8_madds_from_the_n_cubed_rule_for_square_matrices": (
        {"attn_entries": (
            "attn_entries = 1024 * 1024\n"
            "score_madds = 1024 ** 3          # an n x n matrix product costs n**3 multiply-adds\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the n**3 rule is for a product of two n x n matrices; Q (1024 x 64) times K^T (64 x 1024) "
                    "costs T * T * d_k = 1024 * 1024 * 64 = 67108864 multiply-adds",
         "where": ["q8"]},
    ),
    "q8_ratio_from_divmod_is_a_tuple": (
        {"attn_entries": (
            "attn_entries = 1024 * 1024\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = divmod((2 * 1024) ** 2 * 64, 1024 ** 2 * 64)     # integer ratio\n"
        )},
        {"mistake": "divmod returns the pair (quotient, remainder), so cost_ratio is the tuple (4, 0), not the "
                    "int 4 (use // or just 4)",
         "where": ["q8"]},
    ),
}
