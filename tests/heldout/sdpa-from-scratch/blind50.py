"""Fiftieth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the master notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind49.py in full (for the format), only the
module docstrings and variant names of the earlier blind sets (so that their mistakes are not repeated in
the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1, q7,
q8, q4, q2 and q6 before q3 and q5): two variants each for q1, q2, q4, q6, q7 and q8, one each for q3 and
q5, in code shapes they did not use: an output shape built from the wrong end of the weights shape
(`[-2:]` for `[:-1]`), and weights given the trailing singleton axis of the broadcast-and-sum idiom (q1);
only the scaled variance taken with `correction=0`, and d_k read as `len(Q[-1])` (the last batch entry's
token count, a NumPy `x[-1]` habit) (q2); a denominator detached "like the max", which leaves the forward
values right and the gradients wrong (q3); a lower triangle made by mirroring `triu` left-right with `fliplr` instead of
transposing it, and a mask made from the bias matrix `triu(-inf, 1)` whose `isinf` is the future (q4);
the softmax axis written `len(scores) - 1` (the batch size, not the rank) (q5); the divisor taken from
`K3.numel()`, and causal weights from boolean-indexed scores, which flattens the kept entries into one
softmax (q6); a dict of verdicts per option, and the options tuple sliced `[2:]` instead of indexed (q7);
2**6 typed as `2 * 6`, and a ratio made a tuple by a trailing comma (q8).
The correct variants use shapes as `torch.Size` and a `collections.namedtuple` (both tuple subclasses of
Python ints), the letter in redundant parentheses and counts by bit shifts; `torch.cov` of the flattened
scores (unbiased, like `.var()`), the scaled variance as raw / d_k (variance scales by the square) and a
NumPy float64 divisor (a float subclass); a softmax that moves the axis to the end and back, with a mask
from `triu` of the (T_k, T_q) square transposed; an attention with the scale folded into the queries, `mT`,
`torch.where` fills and all-blocked rows zeroed by `torch.where`; and weights from `exp(log_softmax)`,
causal weights through an additive `triu(-inf, 1)` bias, and the output by `einsum`.

Public material used (search tool, issues corpus): FudanNLP/fastNLP#254 (a softmax dim that is right for
3-D scores and wrong for 4-D), PetrochukM/PyTorch-NLP#2, labmlai/annotated_deep_learning_paper_implementations#282
and jadore801120/attention-is-all-you-need-pytorch#52 (attention softmax taken over the wrong axis), behind the
q5 `len(scores) - 1` slip; karpathy/nanoGPT#170 (tril or triu, and which side is filled),
pytorch/examples#649 and pytorch/pytorch#34908 (a look-ahead mask that comes out flipped) and
hkproj/pytorch-transformer#24 (a causal mask made by inverting a `triu` mask), behind the q4 `fliplr`
slip, the q4 `isinf` of the bias (the future, not the allowed keys) and the correct `triu` / bias variants.
The other slips are ones plausible for students of this notebook (slices from the wrong end, a broadcast
idiom's singleton axis, NumPy indexing habits, a detach copied from the max to the sum, boolean indexing that flattens,
exponents typed as products, trailing commas, answers of the wrong kind).

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
    "torch_size_and_namedtuple_shapes_parenthesised_letter_shifted_counts": {
        "weights_shape": (
            "from collections import namedtuple\n"
            "\n"
            "_Shape = namedtuple(\"_Shape\", \"batch rows cols\")\n"
            "weights_shape = torch.Size([4, 10, 10])          # torch.Size is a tuple of ints\n"
            "out_shape = _Shape(batch=4, rows=10, cols=128)    # so is a namedtuple\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = (\"C\")      # parentheses alone do not make a tuple\n"
        ),
        "attn_entries": (
            "attn_entries = 1 << 20               # 1024 * 1024\n"
            "score_madds = attn_entries << 6      # times d_k = 64\n"
            "cost_ratio = (2 * 1024) ** 2 // 1024 ** 2\n"
        ),
    },
    "cov_of_flattened_scores_scaled_variance_by_the_square_numpy_divisor": {
        "raw_score_var": (
            "import numpy as np\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "raw_score_var = torch.cov(raw_scores.flatten()).item()      # unbiased, as .var()\n"
            "scaled_score_var = raw_score_var / d_k                       # Var(x / c) = Var(x) / c^2, c^2 = d_k\n"
            "scale_divisor = np.sqrt(64.0)                                # numpy float64 is a float\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
    },
    "softmax_on_axis_moved_to_the_end_mask_from_transposed_key_square_triu": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    z = x.movedim(dim, -1)\n"
            "    z = z - z.max(dim=-1, keepdim=True).values\n"
            "    e = z.exp()\n"
            "    p = e / e.sum(dim=-1, keepdim=True)\n"
            "    return p.movedim(-1, dim)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    upper = torch.ones(T_k, T_q, dtype=torch.bool).triu()    # [j, i] True when i >= j\n"
            "    return upper.T                                           # [i, j] True when j <= i\n"
        ),
    },
    "sdpa_scale_folded_into_queries_where_fills_where_zeroes_empty_rows": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scale = 1.0 / math.sqrt(Q.size(-1))\n"
            "    scores = torch.matmul(Q * scale, K.mT)\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    scores = torch.where(mask, scores, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    has_key = mask.any(dim=-1, keepdim=True)\n"
            "    weights = torch.where(has_key, weights, 0.0)\n"
            "    return torch.matmul(weights, V)\n"
        ),
    },
    "exp_of_log_softmax_additive_triu_bias_einsum_output": {
        "weights3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) / math.sqrt(Q3.shape[-1])\n"
            "weights3 = torch.exp(F.log_softmax(scores3, dim=-1))\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "_bias = torch.full((3, 3), float(\"-inf\"), dtype=torch.float64).triu(1)   # -inf above the diagonal\n"
            "weights3_causal = torch.exp(F.log_softmax(scores3 + _bias, dim=-1))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
}

WRONG = {
    "q1_out_shape_built_from_the_wrong_end_of_the_weights_shape": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10)\n"
            "out_shape = weights_shape[-2:] + (128,)      # the weights' leading axes, then d_v\n"
        )},
        {"mistake": "weights_shape[-2:] keeps the last two axes (10, 10), not all but the last; out_shape becomes "
                    "(10, 10, 128) and loses the batch: it should be weights_shape[:-1] + (128,) = (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q1_weights_shape_given_the_broadcast_singleton_axis": (
        {"weights_shape": (
            "weights_shape = (4, 10, 10, 1)     # weights.unsqueeze(-1) * V.unsqueeze(1), summed over keys\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "the attention-weight matrix has one entry per (query, key) pair, (4, 10, 10); the trailing 1 "
                    "is only the axis added to broadcast the weights against V in a multiply-and-sum, not part "
                    "of the weights",
         "where": ["q1"]},
    ),
    "q2_scaled_variance_taken_with_correction_zero": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = torch.var(raw_scores / math.sqrt(d_k), correction=0).item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "correction=0 is the biased (population) variance, dividing by n = 50 instead of n - 1 = 49, "
                    "so scaled_score_var is about 0.808 instead of 0.8249; the question asks for torch's default "
                    "unbiased .var() for both",
         "where": ["q2"]},
    ),
    "q2_d_k_read_as_the_length_of_the_last_batch_entry": (
        {"raw_score_var": (
            "d_k = len(Q[-1])                  # size of the last axis\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "Q[-1] is the last sequence of the batch, shape (5, 8), and its len is the 5 tokens, not the "
                    "head width d_k = 8 (Q.shape[-1]); the scores are divided by sqrt(5), so scaled_score_var is "
                    "about 1.32 instead of 0.8249",
         "where": ["q2"]},
    ),
    "q3_denominator_detached_so_gradients_skip_the_normalisation": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
            "    total = e.sum(dim=dim, keepdim=True).detach()     # a constant per slice, like the max\n"
            "    return e / total\n"
        )},
        {"mistake": "the sum is not a constant like the shift: detaching it cuts its gradient, so backward treats "
                    "the softmax as exp(x - m) / const and the gradients to the logits (and through attention to "
                    "Q and K) are wrong, although the forward values are right; only the max may be detached",
         "where": ["q3", "q5"]},
    ),
    "q4_triu_mirrored_left_right_with_fliplr_instead_of_transposed": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    upper = torch.ones(T_q, T_k, dtype=torch.bool).triu()\n"
            "    return torch.fliplr(upper)                # turn the upper triangle into the lower one\n"
        )},
        {"mistake": "fliplr mirrors the columns, so the triangle is reflected about the vertical middle, not the "
                    "diagonal: query 0 sees every key and the last query sees only the first key (True where "
                    "j <= T_k - 1 - i); the lower triangle is tril, or triu transposed",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_isinf_of_the_triu_bias_is_the_future": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    bias = torch.full((T_q, T_k), float(\"-inf\")).triu(1)   # the usual additive causal bias\n"
            "    return torch.isinf(bias)\n"
        )},
        {"mistake": "the -inf entries of the bias are the blocked keys (j > i), so isinf(bias) is True for the "
                    "future and False on and below the diagonal: the convention is reversed (True must mean "
                    "'may attend'); the mask is bias == 0, or ~isinf(bias)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_softmax_axis_from_len_of_scores_not_its_rank": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.shape[-1]\n"
            "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    last = len(scores) - 1                     # the last axis (the keys)\n"
            "    weights = stable_softmax(scores, dim=last)\n"
            "    if mask is not None:\n"
            "        no_key = ~mask.any(dim=-1, keepdim=True)\n"
            "        weights = weights.masked_fill(no_key, 0.0)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "len(scores) is the size of the first axis (the batch), not the number of axes; for a batch "
                    "of 2 the softmax runs over axis 1, the queries, so each key's weights sum to 1 instead of "
                    "each query's (and other batch sizes pick other axes or fail); the keys are dim=-1 "
                    "(scores.dim() - 1)",
         "where": ["q5"]},
    ),
    "q6_divisor_taken_from_the_number_of_key_entries": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(K3.numel())     # sqrt of the key size\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "K3.numel() counts every entry of K3 (3 keys x 4 features = 12), so the scores are divided by "
                    "sqrt(12) instead of sqrt(d_k) = sqrt(4) = 2: all three answers come out too flat",
         "where": ["q6"]},
    ),
    "q6_causal_scores_picked_by_boolean_index_share_one_softmax": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3[causal_mask(3)], dim=-1)     # only the allowed scores\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "indexing with a boolean mask flattens the 6 allowed scores into one 1-D tensor, so one softmax "
                    "runs over all of them together: weights3_causal has shape (6,) and sums to 1 in total, not "
                    "per query; the blocked scores must be set to -inf in place in the (3, 3) matrix",
         "where": ["q6"]},
    ),
    "q7_answer_given_as_a_dict_of_verdicts": (
        {"q_trap_answer": (
            "q_trap_answer = {\"A\": False, \"B\": False, \"C\": True, \"D\": False}\n"
        )},
        {"mistake": "the answer is a dict marking each option true or false, not the letter: q_trap_answer must "
                    "be the string \"C\"",
         "where": ["q7"]},
    ),
    "q7_options_tuple_sliced_instead_of_indexed": (
        {"q_trap_answer": (
            "_options = (\"A\", \"B\", \"C\", \"D\")\n"
            "q_trap_answer = _options[2:]        # option C\n"
        )},
        {"mistake": "the slice [2:] is a tuple ('C', 'D'), two options and not a string; _options[2] is the letter "
                    "\"C\"",
         "where": ["q7"]},
    ),
    "q8_two_to_the_sixth_typed_as_two_times_six": (
        {"attn_entries": (
            "attn_entries = 2 ** 20\n"
            "score_madds = 2 ** 20 * 2 * 6       # T^2 * d_k, with d_k = 2^6\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "2 * 6 is 12, not 2 ** 6 = 64, so score_madds is 12582912 instead of 1024 * 1024 * 64 = "
                    "67108864",
         "where": ["q8"]},
    ),
    "q8_cost_ratio_made_a_tuple_by_a_trailing_comma": (
        {"attn_entries": (
            "attn_entries = 1024 * 1024\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4,\n"
        )},
        {"mistake": "the trailing comma makes cost_ratio the tuple (4,), not the Python int 4",
         "where": ["q8"]},
    ),
}
