"""Thirty-fourth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (its
public check cells were printed along with it, as students see them), `full_marks.ipynb` (whose cells these
replace), `harness.py`, the opening of lesson 80 in /work/shared/lessons/, blind33.py's docstring and
first lines (for the format), and only the module docstrings and variant names of the earlier blind sets
(so that their mistakes are not repeated in the same form). The grader was not run on this set.

This round leans on the questions earlier sets touched least (q1, q7, q8, q4) and on shapes used little:
a weight shape that keeps the per-feature products of the broadcast before the sum, and an output width
that concatenates d_k and d_v (q1); a variance taken across the 2-entry batch axis and averaged, and an
einsum whose output letters drop the batch axis so both sequences' scores are summed (q2); a softmax
done as a NumPy round trip and one shifted by the median instead of the max (q3); a mask built from a
flat index split with the query count as the row width, and a default key count read from the
notebook's global Q (q4); weights transposed before they meet V, and a NaN guard that zeroes every
weight when any row is NaN (q5); a hand-typed trace whose output columns are swapped (q6); a letter
written with a full stop, and a check that compares only the ratios of the kept weights, which the trap
preserves, and so picks A (q7); and a multiply-add count that squares T * d_k as a whole (q8).

Public material searched (search tool, issues corpus): threads on attention masks and dtypes in half
precision (unit8co/darts#3087, whose `torch.sqrt(torch.tensor(k.shape[-1]).to(torch.float32))` scale is
already covered by an earlier set; huggingface/transformers#47743). They led to checking that a float32
0-dim fill value in `masked_fill` does NOT raise for float16/float64 scores, so no variant relies on it.
The slips below are ones plausible for students of this notebook, not copied from those threads.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5 and q6, which call it; a broken `causal_mask` also costs q5, whose
public check calls it, and q6, whose cell calls it). Correct variants are really correct but written
differently from full_marks. Every variant was checked against plain torch (`F.scaled_dot_product_attention`,
`torch.softmax`) on several shapes and dtypes, including the notebook's own, with a throwaway script outside
the repository before it was committed.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "shapes_unpacked_statistics_variance_costs_from_shifts": {
        "weights_shape": (
            "batch, tokens, d_k_q1, d_v_q1 = 4, 10, 64, 128\n"
            "weights_shape = (batch, tokens, tokens)\n"
            "out_shape = (batch, tokens, d_v_q1)\n"
        ),
        "raw_score_var": (
            "import statistics\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "raw_score_var = float(statistics.variance(raw_scores.flatten().tolist()))\n"
            "scaled_score_var = raw_score_var / d_k   # Var(x / c) = Var(x) / c**2 and c**2 = d_k\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "T = 1 << 10\n"
            "attn_entries = T * T\n"
            "score_madds = attn_entries << 6\n"
            "cost_ratio = ((2 * T) ** 2) // (T ** 2)\n"
        ),
    },
    "softmax_sum_unsqueezed_at_dim_mask_from_neg_inf_triu": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    z = (x - x.max(dim, keepdim=True)[0]).exp()\n"
            "    return z / z.sum(dim).unsqueeze(dim)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_k or T_q\n"
            "    future = torch.full((T_q, T_k), float(\"-inf\")).triu(1)   # -inf strictly above the diagonal\n"
            "    return future == 0\n"
        ),
    },
    "sdpa_einsum_where_any_new_zeros": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scale = 1.0 / math.sqrt(Q.shape[-1])\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) * scale\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...qk,...kv->...qv\", stable_softmax(scores, dim=-1), V)\n"
            "    scores = scores.masked_fill(mask.logical_not(), -math.inf)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    live = mask.any(dim=-1, keepdim=True)\n"
            "    weights = torch.where(live, weights, weights.new_zeros(()))\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", weights, V)\n"
        ),
    },
    "trace_torch_softmax_renormalised_letter_from_dict": {
        "weights3": (
            "scores3 = torch.matmul(Q3, K3.transpose(0, 1)) / 2.0\n"
            "weights3 = torch.softmax(scores3, dim=1)\n"
            "out3 = torch.matmul(weights3, V3)\n"
            "kept = weights3 * causal_mask(3)\n"
            "weights3_causal = kept / kept.sum(dim=1, keepdim=True)   # renormalising the kept weights\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "verdicts = {\"A\": False, \"B\": False, \"C\": True, \"D\": False}\n"
            "q_trap_answer = next(letter for letter, right in verdicts.items() if right)\n"
        ),
    },
    "mask_ge_method_costs_from_pow": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.arange(T_q).unsqueeze(-1).ge(torch.arange(T_k))\n"
        ),
        "attn_entries": (
            "seq_len, head_dim = 1024, 64\n"
            "attn_entries = pow(seq_len, 2)\n"
            "score_madds = pow(seq_len, 2) * head_dim\n"
            "cost_ratio = pow(2, 2)\n"
        ),
    },
}

WRONG = {
    "q1_weights_keep_per_feature_products": (
        {"weights_shape": (
            "# every query meets every key, one product per feature, before the sum\n"
            "weights_shape = (4, 10, 10, 64)\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "weights_shape keeps the d_k axis of the elementwise products q_i * k_i: each weight is the "
                    "SUM over that axis (a dot product), so the weights are (4, 10, 10), one number per "
                    "(query, key) pair.",
         "where": ["q1"]},
    ),
    "q1_out_width_concatenates_d_k_and_d_v": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10)\n"
            "out_shape = (4, 10, 64 + 128)   # query features plus the mixed-in value features\n"
        )},
        {"mistake": "The output width is not d_k + d_v: each output row is only a weighted mix of value rows, "
                    "so its width is d_v = 128 and out_shape is (4, 10, 128); the query is not concatenated.",
         "where": ["q1"]},
    ),
    "q2_variance_across_batch_axis_averaged": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var(0).mean().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var(0).mean().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "var(0) takes the variance across the batch axis (only 2 values per entry) and then averages "
                    "those, instead of the variance of all 50 score entries together (plain .var()).",
         "where": ["q2"]},
    ),
    "q2_einsum_output_drops_batch_letter": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->qk\", Q, K)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "The einsum output 'qk' leaves out the batch letter b, so the two sequences' score matrices "
                    "are summed into one (5, 5) matrix; the scores must be (2, 5, 5) ('bqd,bkd->bqk'), and both "
                    "variances come out about twice too large.",
         "where": ["q2"]},
    ),
    "q3_numpy_round_trip": (
        {"stable_softmax": (
            "import numpy as np\n"
            "\n"
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    a = x.numpy()\n"
            "    e = np.exp(a - a.max(axis=dim, keepdims=True))\n"
            "    return torch.from_numpy(e / e.sum(axis=dim, keepdims=True))\n"
        )},
        {"mistake": "The softmax goes through NumPy: x.numpy() raises for tensors that require grad, for "
                    "bfloat16 and for GPU tensors, and even where it works the result is cut off from autograd, "
                    "so gradients cannot flow back through the attention. It has to stay in torch operations.",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_shift_by_median": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with a typical logit subtracted first.\"\"\"\n"
            "    centre = x.median(dim=dim, keepdim=True).values\n"
            "    e = torch.exp(x - centre)\n"
            "    return e / e.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "The shift is the median of the slice, not its max: logits above the median still "
                    "exponentiate to more than 1 and overflow in float16, and when more than half of a row is "
                    "-inf (masked) the median is -inf itself and -inf - (-inf) gives NaN.",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_flat_index_split_by_query_count": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    idx = torch.arange(T_q * T_k).reshape(T_q, T_k)\n"
            "    row, col = idx // T_q, idx % T_q\n"
            "    return col <= row\n"
        )},
        {"mistake": "The flat index is split into row and column with T_q as the row width, but each row has "
                    "T_k entries (row = idx // T_k, col = idx % T_k); square masks come out right, but whenever "
                    "T_q != T_k the triangle is wrong.",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_default_key_count_from_global_Q": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = K.shape[-2]   # the number of keys\n"
            "    rows = torch.arange(T_q).unsqueeze(1)\n"
            "    cols = torch.arange(T_k).unsqueeze(0)\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "When T_k is not given the key count is read from the notebook's global K (5 keys) instead "
                    "of defaulting to T_q, so causal_mask(3) is (3, 5) and not square; the default must be "
                    "T_k = T_q.",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_weights_transposed_before_values": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return torch.matmul(weights.transpose(-2, -1), V)\n"
        )},
        {"mistake": "The weights are transposed before the product with V, as K is for the scores: the output "
                    "is weights @ V with weights (..., T_q, T_k). Transposed, each output row mixes with a "
                    "column of weights (wrong values), and when T_q != T_k the shapes do not even match.",
         "where": ["q5"]},
    ),
    "q5_any_nan_zeroes_every_weight": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.shape[-1]\n"
            "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if torch.isnan(weights).any():      # a fully masked query gave 0/0\n"
            "        weights = torch.zeros_like(weights)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "The NaN check is over the whole tensor, so as soon as one query has all its keys masked "
                    "every weight of every query is set to zero and the whole output becomes zeros; only the "
                    "rows that are fully masked should be zeroed (mask.any(-1, keepdim=True) per row).",
         "where": ["q5"]},
    ),
    "q6_hand_output_columns_swapped": (
        {"weights3": (
            "# worked by hand: scores = [[.5, .5, 1], [.5, 1, 1], [1, .5, 1.5]]\n"
            "weights3 = [[0.2741, 0.2741, 0.4519],\n"
            "            [0.2327, 0.3837, 0.3837],\n"
            "            [0.3072, 0.1863, 0.5065]]\n"
            "out3 = [[0.7259, 0.7259],\n"
            "        [0.7673, 0.6163],\n"
            "        [0.6928, 0.8137]]\n"
            "weights3_causal = [[1.0, 0.0, 0.0],\n"
            "                   [0.3775, 0.6225, 0.0],\n"
            "                   [0.3072, 0.1863, 0.5065]]\n"
        )},
        {"mistake": "The two columns of out3 are swapped: column 0 of the output is w0 + w2 (V3's first column "
                    "is [1, 0, 1]) and column 1 is w1 + w2, so query 1's output is [0.6163, 0.7673] and query "
                    "2's is [0.8137, 0.6928]. The weights are right.",
         "where": ["q6"]},
    ),
    "q7_letter_with_full_stop": (
        {"q_trap_answer": (
            "q_trap_answer = \"C.\"\n"
        )},
        {"mistake": "The answer is the right option but written as 'C.' with a full stop, which is not one of "
                    "the letters \"A\", \"B\", \"C\", \"D\" that the question asks for.",
         "where": ["q7"]},
    ),
    "q7_compared_ratios_of_kept_weights": (
        {"q_trap_answer": (
            "# try the shortcut: compare the ratios between the weights each query keeps\n"
            "_s = torch.randn(5, 5)\n"
            "_trap = torch.softmax(_s, dim=-1)\n"
            "_trap[~causal_mask(5)] = 0.0\n"
            "_good = torch.softmax(_s.masked_fill(~causal_mask(5), float(\"-inf\")), dim=-1)\n"
            "_same = torch.allclose(_trap / _trap[:, :1], _good / _good[:, :1])\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        )},
        {"mistake": "The check compares only the ratios between the kept weights, which zeroing after the "
                    "softmax does preserve, and so picks A; but the kept weights no longer sum to 1, so each "
                    "output row is shrunk: the answer is C.",
         "where": ["q7"]},
    ),
    "q8_madds_square_of_T_times_d_k": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = (1024 * 64) ** 2   # the cost grows with the square\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "score_madds squares d_k along with T: the score matrix has T^2 entries, each a dot product "
                    "of length d_k, so it is 1024 * 1024 * 64 = 67,108,864, not (1024 * 64)^2.",
         "where": ["q8"]},
    ),
}
