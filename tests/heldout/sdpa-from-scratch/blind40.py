"""Fortieth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, lesson 80 in /work/shared/lessons/, blind39.py
in full (for the format), and only the module docstrings and variant names of the earlier blind sets (so
that their mistakes are not repeated in the same form). The grader was not run on this set.

This round leans on the questions earlier sets touched least (q7, q1, q8, q4, q2) and on code shapes they
used little: a "tuple comprehension" that is really a generator expression, and the weight matrix written
as one axis of (query, key) pairs (q1); scores taken as cosine similarities, and the scaled variance divided
by the q2 divisor for d_k = 64 because that variable was set first (q2); exponentials clamped away from zero
"for safety", so that masked entries keep a tiny weight (q3); a square grid from `np.meshgrid`, whose default
indexing is "xy", cropped to (T_q, T_k), and the TensorFlow tutorial's look-ahead mask (1 = blocked) ported
as it is (q4); the score product computed in float16 "for speed" and cast back (q5); a helper that returns
(weights, output) unpacked in the other order (q6); the answer typed with a colon instead of an equals sign
(a bare annotation, which binds nothing), the letter copied with its Markdown bold, and a check whose
`.all` is never called, so a bound method decides the branch (q7); the two counts swapped in one tuple
assignment, and the ratio written as the string "4:1" (q8). The correct variants use
`torch.broadcast_shapes`, a variance from `torch.linalg.vector_norm` with n - 1, `torch.amax` with
`torch.true_divide`, a mask from `np.greater_equal.outer`, in-place `div_` and `masked_fill_` on a fresh
score tensor with `Tensor.mT`, a trace through `torch.logsumexp` with a -inf upper-triangle bias, a letter
indexed from the end of "ABCD", and costs derived from named sizes.

Public material used (search tool): the TensorFlow transformer tutorial's
`create_look_ahead_mask(size) = 1 - tf.linalg.band_part(tf.ones((size, size)), -1, 0)`, found in
cimat-ris/TF-PathPred `tools/transformer/masking.py` and enuguru/GenAI
`transformers_from_scratch/building_transformer_models_with_attention_code/chapter_19/04_lookahead.py`
("Mask out future entries by marking them with a 1.0"): a mask whose 1 means blocked, the opposite of this
notebook's convention (q4); numpy/numpy#16844 ("np.meshgrid documentation - warn about the indexing='xy'
default"), pytorch/pytorch#15301 and #50276 (torch.meshgrid and np.meshgrid disagree): the source of the
q4 meshgrid variant; stackoverflow.com/questions/48323493 ("What is this odd colon behavior doing?") and
discuss.python.org/t/miss-annotation-but-no-nameerror/11629 (`a: 1` is a variable annotation that binds
nothing), behind the q7 colon variant; masked-softmax code found through the code corpus that clamps or adds
an epsilon around the exponentials to avoid zeros (e.g. the `attention_softmax` helper with
`torch.clamp(x, min=-50.0)`), behind the q3 clamp variant; Dao-AILab/flash-attention#118 and
huggingface/transformers#24261 (attention scores should be computed in full precision), behind the q5
float16 variant. The other slips are ones plausible for students of this notebook.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5 and q6, whose code calls it; a broken `causal_mask` also costs q5 and
q6). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`, the
lesson's formula) on several shapes and dtypes, including the notebook's own, with a throwaway script
outside the repository.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "shapes_from_broadcast_shapes_variance_from_vector_norm": {
        "weights_shape": (
            "# one score per (query, key) pair: broadcast a query column against a key row\n"
            "weights_shape = tuple(torch.broadcast_shapes((4, 10, 1), (4, 1, 10)))\n"
            "out_shape = (*weights_shape[:2], 128)     # one mixture of 128-wide values per query\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "\n"
            "\n"
            "def _unbiased_var(t):\n"
            "    centred = t.flatten() - t.mean()\n"
            "    return float(torch.linalg.vector_norm(centred) ** 2 / (centred.numel() - 1))\n"
            "\n"
            "\n"
            "raw_score_var = _unbiased_var(raw_scores)\n"
            "scaled_score_var = _unbiased_var(raw_scores / d_k ** 0.5)\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
    },
    "softmax_amax_true_divide_mask_from_numpy_outer": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    top = torch.amax(x, dim=dim, keepdim=True)\n"
            "    e = torch.exp(x - top)\n"
            "    return torch.true_divide(e, torch.sum(e, dim=dim, keepdim=True))\n"
        ),
        "causal_mask": (
            "import numpy as np\n"
            "\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # outer comparison: entry [i, j] is i >= j\n"
            "    return torch.from_numpy(np.greater_equal.outer(np.arange(T_q), np.arange(T_k)))\n"
        ),
    },
    "sdpa_inplace_div_and_fill_on_fresh_scores_masked_fill_rows": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = Q.matmul(K.mT).div_(math.sqrt(K.shape[-1]))   # a fresh tensor: safe to edit in place\n"
            "    if mask is not None:\n"
            "        scores.masked_fill_(mask.logical_not(), -math.inf)\n"
            "    weights = stable_softmax(scores)\n"
            "    if mask is not None:\n"
            "        no_key = ~mask.any(dim=-1, keepdim=True)             # queries that see nothing\n"
            "        weights = weights.masked_fill(no_key, 0.0)\n"
            "    return weights.matmul(V)\n"
        ),
    },
    "trace_logsumexp_with_upper_triangle_bias": {
        "weights3": (
            "scores3 = torch.einsum(\"qd,kd->qk\", Q3, K3) / 2          # sqrt(d_k) = sqrt(4) = 2\n"
            "weights3 = torch.exp(scores3 - torch.logsumexp(scores3, dim=-1, keepdim=True))\n"
            "out3 = torch.einsum(\"qk,kv->qv\", weights3, V3)\n"
            "_future = torch.full((3, 3), float(\"-inf\"), dtype=torch.float64).triu(diagonal=1)\n"
            "_causal = scores3 + _future\n"
            "weights3_causal = torch.exp(_causal - torch.logsumexp(_causal, dim=-1, keepdim=True))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "letter_from_end_of_options_costs_from_named_sizes": {
        "q_trap_answer": (
            "q_trap_answer = \"ABCD\"[-2]\n"
        ),
        "attn_entries": (
            "T, head_width = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = attn_entries * head_width\n"
            "cost_ratio = (2 * T) * (2 * T) * head_width // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_tuple_comprehension_is_a_generator": (
        {"weights_shape": (
            "_probe = torch.empty(4, 10, 64) @ torch.empty(4, 10, 64).transpose(-2, -1)\n"
            "weights_shape = (int(n) for n in _probe.shape)                # Python ints, not torch.Size\n"
            "out_shape = (int(n) for n in (_probe @ torch.empty(4, 10, 128)).shape)\n"
        )},
        {"mistake": "(int(n) for n in ...) is a generator expression, not a tuple (Python has no tuple "
                    "comprehension), so both shapes are generator objects; write tuple(int(n) for n in ...)",
         "where": ["q1"]},
    ),
    "q1_pairs_flattened_into_one_axis": (
        {"weights_shape": (
            "weights_shape = (4, 10 * 10)      # one weight per (query, key) pair: 100 pairs per sequence\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "the weight matrix keeps queries and keys as two axes, (4, 10, 10); counting the pairs into "
                    "one axis of 100 gives (4, 100), which is not its shape",
         "where": ["q1"]},
    ),
    "q2_scores_as_cosine_similarities": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# similarity of each query with each key\n"
            "raw_scores = F.normalize(Q, dim=-1) @ F.normalize(K, dim=-1).transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scores are cosine similarities (queries and keys normalised to unit length first), not "
                    "the raw dot products Q @ K^T, so both variances are far too small (about 1/d_k of the right "
                    "ones)",
         "where": ["q2"]},
    ),
    "q2_scaled_by_the_divisor_for_d_k_64": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "scale_divisor = math.sqrt(64)\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / scale_divisor).var().item()\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scaled scores are divided by scale_divisor = sqrt(64) = 8, the divisor for a head of "
                    "width 64, instead of sqrt(d_k) = sqrt(8) for this example, so scaled_score_var is 8 times "
                    "too small",
         "where": ["q2"]},
    ),
    "q3_exponentials_clamped_away_from_zero": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted).clamp(min=1e-12)     # keep every weight positive, no exact zeros\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the exponentials are clamped to at least 1e-12, so a -inf (masked) entry gets a small "
                    "positive weight instead of exactly 0 in float32, float64 and bfloat16; leave exp(-inf) = 0",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_numpy_meshgrid_default_xy_indexing": (
        {"causal_mask": (
            "import numpy as np\n"
            "\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    n = max(T_q, T_k)\n"
            "    rows, cols = np.meshgrid(np.arange(n), np.arange(n))    # query index, key index\n"
            "    return torch.from_numpy(cols <= rows)[:T_q, :T_k]\n"
        )},
        {"mistake": "np.meshgrid defaults to indexing='xy', so its first output varies along the columns and "
                    "the second along the rows: 'rows' holds the key index and 'cols' the query index, and the "
                    "mask is the upper triangle (j >= i); pass indexing='ij' (torch.meshgrid's default)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_tensorflow_look_ahead_mask_ported": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # as in the TensorFlow transformer tutorial: 1 - band_part(ones, -1, 0)\n"
            "    look_ahead = 1 - torch.ones(T_q, T_k).tril()\n"
            "    return look_ahead.bool()\n"
        )},
        {"mistake": "the TensorFlow look-ahead mask marks the future keys with 1 (1 = blocked); in this notebook "
                    "True means 'may attend', so the ported mask is True exactly on the keys that must be hidden "
                    "(j > i); return the lower triangle itself",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_scores_computed_in_float16": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    # the score matrix is the big one: compute it in half precision, then go back\n"
            "    scores = torch.matmul(Q.half(), K.half().transpose(-2, -1)).to(Q.dtype) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the scores are computed from float16 copies of Q and K and cast back, so float32 and "
                    "float64 inputs get scores (and outputs) rounded to half precision, errors of about 1e-3; "
                    "compute in the inputs' dtype",
         "where": ["q5"]},
    ),
    "q6_helper_results_unpacked_in_wrong_order": (
        {"weights3": (
            "def _attend(q, k, v, mask=None):\n"
            "    s = q @ k.T / math.sqrt(q.shape[-1])\n"
            "    if mask is not None:\n"
            "        s = s.masked_fill(~mask, float(\"-inf\"))\n"
            "    w = stable_softmax(s, dim=-1)\n"
            "    return w, w @ v\n"
            "\n"
            "\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "out3, weights3 = _attend(Q3, K3, V3)\n"
            "weights3_causal, _ = _attend(Q3, K3, V3, mask=causal_mask(3))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the helper returns (weights, output) but its result is unpacked as out3, weights3, so the "
                    "two answers are swapped: weights3 holds the (3, 2) output and out3 the (3, 3) weights",
         "where": ["q6"]},
    ),
    "q7_colon_typed_for_equals_sign": (
        {"q_trap_answer": (
            "q_trap_answer: \"C\"\n"
        )},
        {"mistake": "a colon was typed for the equals sign: `q_trap_answer: \"C\"` is a variable annotation, which "
                    "binds nothing, so q_trap_answer is never defined; write q_trap_answer = \"C\"",
         "where": ["q7"]},
    ),
    "q7_letter_copied_with_markdown_bold": (
        {"q_trap_answer": (
            "q_trap_answer = \"**C**\"\n"
        )},
        {"mistake": "the letter was copied from the Markdown source of the options with its bold markers; the "
                    "answer is the one-letter string \"C\"",
         "where": ["q7"]},
    ),
    "q7_all_method_not_called_in_check": (
        {"q_trap_answer": (
            "_g = torch.Generator().manual_seed(0)\n"
            "_s = torch.randn(4, 4, dtype=torch.float64, generator=_g)\n"
            "_shortcut = F.softmax(_s, dim=-1)\n"
            "_shortcut[~causal_mask(4)] = 0.0\n"
            "_rows_sum_to_one = torch.isclose(_shortcut.sum(dim=-1), torch.ones(4, dtype=torch.float64))\n"
            "q_trap_answer = \"A\" if _rows_sum_to_one.all else \"C\"    # rows still sum to 1: nothing wrong\n"
        )},
        {"mistake": "`.all` is not called, so the condition is a bound method, which is always truthy, and the "
                    "check answers \"A\" although the rows of the shortcut do not sum to 1; the answer is \"C\"",
         "where": ["q7"]},
    ),
    "q8_counts_swapped_in_tuple_assignment": (
        {"attn_entries": (
            "attn_entries, score_madds = 1024 * 1024 * 64, 1024 * 1024\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the two counts are swapped in the tuple assignment: attn_entries gets T^2 d_k = 67,108,864 "
                    "and score_madds gets T^2 = 1,048,576",
         "where": ["q8"]},
    ),
    "q8_ratio_written_as_4_to_1": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 ** 2 * 64\n"
            "cost_ratio = \"4:1\"\n"
        )},
        {"mistake": "the ratio is written as the string \"4:1\"; the question asks for the factor as a Python "
                    "int, 4",
         "where": ["q8"]},
    ),
}
