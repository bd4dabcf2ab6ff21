"""Forty-eighth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (as they
stand in `full_marks.ipynb`, whose cells these replace), `harness.py`, blind47.py in full (for the format),
only the module docstrings and variant names of the earlier blind sets (so that their mistakes are not
repeated in the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on
this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1, q7,
q8, q4, q2 and q6 before q3 and q5): two variants each for q1, q3, q6 and q7, three for q8, one each for
q2, q4 and q5, in code shapes they did not use: a weights probe made with `nn.MultiheadAttention` left in
its default sequence-first layout (it reads (4, 10, 64) as (L=4, N=10, E=64) and returns (10, 4, 4)), and
`torch.broadcast_shapes` of Q and K taken as the weights' shape (q1); the scaled variance derived from the
raw one by dividing by d_k squared instead of d_k (q2); a log-sum-exp softmax whose `logsumexp` is
hard-coded to the last axis, and a running `cummax` (the online-softmax idea, without its correction)
used as the shift (q3); a mask filled from `torch.tril_indices` with the row and column index tensors
swapped (q4); a head width computed as `numel() // T` of Q, which folds the batch (and heads) into d_k
(q5); the flash/guided-diffusion trick of scaling Q and K separately, but each by the whole sqrt(d_k)
instead of its fourth root, and an einsum for out3 whose output keeps the key letter (q6); a letter
pasted with a zero-width space, and a letter written as LaTeX math `$C$` (q7); `1 << 20 * 64` (a shift
binds looser than `*`), entries counted over positions 0..T inclusive (fence post), and the ratio typed
as the string "4" (q8).
The correct variants use a `namedtuple` for the shapes, a NumPy string scalar `np.str_("C")` for the
letter and bit shifts for the counts; `torch.cov` of the flattened scores with the scaled variance taken
as raw / d_k (Var(X / c) = Var(X) / c^2), and a mask as the transpose of a `triu` built keys-by-queries;
a softmax whose max is detached (shift-invariant, so the gradient is unchanged) and a trace read off
`scaled_dot_product_attention` with identity values; an attention that fills with `torch.where(..., -inf)`
and cleans the all-blocked NaN rows with `nan_to_num`; and an attention that scales Q and K each by
d_k ** -0.25 and zeroes blocked weights after the softmax with `masked_fill`.

Public material used (search tool): issues corpus: pytorch/pytorch#122959 ("I forgot to set
batch_first=True"), kyegomez/movie-gen#8 and karttikeya/minREV#4 (nn.MultiheadAttention's batch_first
defaults to False, so batch-first tensors are read as (L, N, E)), behind the q1 MultiheadAttention probe;
code corpus: openai/guided-diffusion `guided_diffusion/unet.py` (QKVAttention: `scale = 1 /
math.sqrt(math.sqrt(ch))` applied to q and k, "more stable with f16 than dividing afterwards"), seen as an
NVIDIA adaptation of that file, behind the q6 split-scale slip (each factor taken as the full sqrt) and
the correct q5 variant that splits it properly; pytorch/pytorch#27968 (MultiheadAttention returning NaN
rows for fully padded queries) behind the nan_to_num correct variant. The other slips are ones plausible
for students of this notebook (broadcast shape mistaken for a matmul shape, "variance scales with the
square", online-softmax half-remembered, index tensors swapped, "features = numel / tokens", einsum
letters, copy-paste artefacts from a web page or LaTeX, Python precedence of `<<`, range(T + 1), a number
in quotes).

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
    "namedtuple_shapes_numpy_str_letter_bit_shift_counts": {
        "weights_shape": (
            "from collections import namedtuple\n"
            "\n"
            "Shape = namedtuple(\"Shape\", [\"batch\", \"rows\", \"cols\"])\n"
            "weights_shape = Shape(batch=4, rows=10, cols=10)     # (batch, T_q, T_k)\n"
            "out_shape = Shape(batch=4, rows=10, cols=128)        # (batch, T_q, d_v)\n"
        ),
        "q_trap_answer": (
            "import numpy as np\n"
            "\n"
            "_options = np.array(list(\"ABCD\"))\n"
            "q_trap_answer = _options[2]      # np.str_('C'), a subclass of str\n"
        ),
        "attn_entries": (
            "attn_entries = 1 << 20                 # 1024 = 2**10, squared\n"
            "score_madds = attn_entries << 6        # times d_k = 64 = 2**6\n"
            "cost_ratio = (2 * 1024) ** 2 // (1024 ** 2)\n"
        ),
    },
    "cov_of_flattened_scores_scaled_var_as_raw_over_d_k_mask_from_transposed_triu": {
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bik,bjk->bij\", Q, K)\n"
            "raw_score_var = float(torch.cov(raw_scores.flatten()))        # 1-D cov: the unbiased variance\n"
            "scaled_score_var = raw_score_var / d_k                        # Var(X / sqrt(d)) = Var(X) / d\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    keys_by_queries = torch.ones(T_k, T_q, dtype=torch.bool).triu()   # [j, i] True when i >= j\n"
            "    return keys_by_queries.T.contiguous()\n"
        ),
    },
    "softmax_with_detached_max_trace_through_sdpa_with_identity_values": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    c = x.detach().amax(dim=dim, keepdim=True)     # a constant shift: the gradient is the same\n"
            "    num = (x - c).exp()\n"
            "    den = num.sum(dim=dim, keepdim=True)\n"
            "    return num.div(den)\n"
        ),
        "weights3": (
            "_eye3 = torch.eye(3, dtype=Q3.dtype)\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = scaled_dot_product_attention(Q3, K3, _eye3)                 # identity values: out = weights\n"
            "out3 = scaled_dot_product_attention(Q3, K3, V3)\n"
            "weights3_causal = scaled_dot_product_attention(Q3, K3, _eye3, mask=causal_mask(3))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "sdpa_where_minus_inf_nan_rows_cleaned_with_nan_to_num": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = Q.matmul(K.mT) / math.sqrt(K.shape[-1])\n"
            "    if mask is not None:\n"
            "        scores = torch.where(mask, scores, -math.inf)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    weights = torch.nan_to_num(weights, nan=0.0)   # only all-blocked rows are 0/0 = NaN\n"
            "    return weights.matmul(V)\n"
        ),
    },
    "sdpa_quarter_power_scale_on_q_and_k_weights_zeroed_after_with_masked_fill": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    s = Q.shape[-1] ** -0.25                        # (q s) . (k s) = q . k / sqrt(d_k)\n"
            "    scores = (Q * s) @ (K * s).transpose(-1, -2)\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, -1) @ V\n"
            "    blocked = ~mask\n"
            "    weights = stable_softmax(scores.masked_fill(blocked, float(\"-inf\")), -1)\n"
            "    weights = weights.masked_fill(blocked, 0.0)     # all-blocked rows (NaN) become 0 too\n"
            "    return weights @ V\n"
        ),
    },
}

WRONG = {
    "q1_weights_probed_with_multihead_attention_in_its_sequence_first_default": (
        {"weights_shape": (
            "import torch.nn as nn\n"
            "\n"
            "_mha = nn.MultiheadAttention(embed_dim=64, num_heads=1, vdim=128)\n"
            "_q = torch.zeros(4, 10, 64)\n"
            "_v = torch.zeros(4, 10, 128)\n"
            "with torch.no_grad():\n"
            "    _, _w = _mha(_q, _q, _v)                 # returns (output, attention weights)\n"
            "weights_shape = tuple(_w.shape)\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "nn.MultiheadAttention defaults to batch_first=False, so it reads (4, 10, 64) as (sequence 4, "
                    "batch 10, features 64) and returns weights of shape (10, 4, 4); the weights of a batch of 4 "
                    "sequences of 10 tokens have shape (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q1_broadcast_shapes_of_queries_and_keys_taken_as_the_weights": (
        {"weights_shape": (
            "_Qs, _Ks, _Vs = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
            "weights_shape = tuple(torch.broadcast_shapes(_Qs, _Ks))      # shape of Q combined with K\n"
            "out_shape = _Qs[:2] + _Vs[2:]\n"
        )},
        {"mistake": "broadcast_shapes gives the shape of an elementwise operation between Q and K, (4, 10, 64); "
                    "the scores come from the matrix product Q @ K^T, which contracts the feature axis and pairs "
                    "every query with every key: (4, 10, 10)",
         "where": ["q1"]},
    ),
    "q2_scaled_variance_as_raw_divided_by_d_k_squared": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = raw_score_var / d_k ** 2      # a variance scales with the square of the factor\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scores are divided by sqrt(d_k), so their variance is divided by sqrt(d_k) squared = d_k "
                    "(6.60 / 8 = 0.82); dividing by d_k squared (64) gives 0.10, the variance of scores divided "
                    "by d_k",
         "where": ["q2"]},
    ),
    "q3_logsumexp_hard_coded_to_the_last_axis": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    log_z = torch.logsumexp(x, -1, keepdim=True)     # stable: logsumexp subtracts the max itself\n"
            "    return torch.exp(x - log_z)\n"
        )},
        {"mistake": "the normaliser log-sum-exp is always taken over the last axis, whatever `dim` says, so for "
                    "dim=0 (or any axis but the last) the slices along `dim` do not sum to 1; it must be "
                    "torch.logsumexp(x, dim, keepdim=True)",
         "where": ["q3"]},
    ),
    "q3_running_cummax_used_as_the_shift": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    running_max = torch.cummax(x, dim=dim).values      # online max, as in flash attention\n"
            "    e = torch.exp(x - running_max)\n"
            "    return e / e.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the shift must be the same constant for the whole slice (its max); a running max subtracts a "
                    "different amount from each entry (online softmax rescales the earlier terms when the max "
                    "grows, which is left out here), so the result is not the softmax unless the slice is "
                    "increasing",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_tril_indices_scattered_with_rows_and_columns_swapped": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows, cols = torch.tril_indices(T_q, T_k)\n"
            "    mask = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
            "    mask[cols, rows] = True\n"
            "    return mask\n"
        )},
        {"mistake": "tril_indices returns the (row, column) pairs of the lower triangle; writing them as "
                    "mask[cols, rows] puts True at (j, i) instead, the upper triangle: each query sees itself "
                    "and the future keys and not the past ones (and a taller-than-wide mask goes out of range)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_head_width_as_numel_over_token_count": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.numel() // Q.shape[-2]          # features per token\n"
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
        {"mistake": "Q.numel() // T_q counts the features of every batch entry and head together (batch x heads x "
                    "d_k), not d_k; with any leading dimension larger than 1 the scores are divided by too much "
                    "and the weights come out too flat. d_k is Q.shape[-1]",
         "where": ["q5"]},
    ),
    "q6_queries_and_keys_each_divided_by_the_whole_divisor": (
        {"weights3": (
            "_s = math.sqrt(4)\n"
            "scores3 = (Q3 / _s) @ (K3 / _s).T        # scale q and k separately (more stable in f16)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "scaling Q and K separately needs d_k ** -0.25 on each, so that the product carries "
                    "1/sqrt(d_k) once; dividing each by sqrt(d_k) = 2 divides the scores by 4 = d_k, which "
                    "flattens weights3, out3 and the causal rows 1 and 2",
         "where": ["q6"]},
    ),
    "q6_einsum_for_the_output_keeps_the_key_letter": (
        {"weights3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = torch.einsum(\"qk,kv->qk\", weights3, V3)\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the output must keep the value letter and sum over the keys (\"qk,kv->qv\"); \"->qk\" sums "
                    "over the value columns instead, so out3 is each weight times the row sum of V3, a (3, 3) "
                    "matrix instead of the (3, 2) mixture of values",
         "where": ["q6"]},
    ),
    "q7_letter_pasted_with_a_zero_width_space": (
        {"q_trap_answer": (
            "q_trap_answer = \"C\u200b\"   # copied from the course page\n"
        )},
        {"mistake": "the string pasted from the web page carries an invisible zero-width space after the letter, "
                    "so it is \"C\\u200b\" (two characters) and not the letter \"C\"",
         "where": ["q7"]},
    ),
    "q7_letter_written_as_latex_math": (
        {"q_trap_answer": (
            "q_trap_answer = \"$C$\"\n"
        )},
        {"mistake": "the answer must be the plain letter \"C\"; \"$C$\" is the letter in LaTeX math delimiters "
                    "(a markdown habit), a three-character string",
         "where": ["q7"]},
    ),
    "q8_shift_binds_looser_than_times": (
        {"attn_entries": (
            "attn_entries = 1 << 20                 # 1024 ** 2\n"
            "score_madds = 1 << 20 * 64             # entries times d_k\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "in Python `<<` binds looser than `*`, so 1 << 20 * 64 is 1 << 1280 (a 386-digit number), not "
                    "(1 << 20) * 64 = 67108864",
         "where": ["q8"]},
    ),
    "q8_entries_counted_over_positions_zero_to_T_inclusive": (
        {"attn_entries": (
            "_positions = range(0, 1024 + 1)        # positions 0 .. T\n"
            "attn_entries = len(_positions) ** 2\n"
            "score_madds = attn_entries * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "a sequence of T = 1024 tokens has positions 0 .. 1023; range(0, 1024 + 1) counts 1025 of "
                    "them, so attn_entries is 1025 ** 2 = 1050625 and score_madds 67240000 instead of "
                    "1048576 and 67108864",
         "where": ["q8"]},
    ),
    "q8_ratio_typed_as_a_string": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = \"4\"\n"
        )},
        {"mistake": "cost_ratio is asked as a Python int; \"4\" in quotes is a string, which is not equal to 4",
         "where": ["q8"]},
    ),
}
