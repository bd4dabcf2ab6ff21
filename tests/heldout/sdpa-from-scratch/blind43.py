"""Forty-third blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (as they
stand in `full_marks.ipynb`, whose cells these replace), `harness.py`, blind42.py in full (for the format),
only the module docstrings and variant names of the earlier blind sets (so that their mistakes are not
repeated in the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on
this set.

This round leans on the questions the earlier sets touched least (by count of variant names: q7, q1, q8, q4,
q2, q6): three variants for q7, two each for q1, q2, q4 and q6, one each for q3, q5 and q8, in code shapes
they did not use: shapes counted with nested `len` one level short (the value width read as the key count),
and shape tuples concatenated from slices so that the batch axis appears twice (q1); the keys of the first
sequence only, `K[0].T`, broadcast against both query batches because `.T` is a matrix habit, and a divisor
turned into a one-tuple by a trailing comma (q2); a log-sum-exp softmax that forgets the `log` (q3); a mask
left all True when `T_q != T_k` because "cross-attention is not causal", and a lower triangle made by turning
the upper one upside down with `flip(0)` (q4); empty rows opened with `mask |= dead`, an in-place OR that
edits the caller's mask (q5); a NumPy trace whose row max is subtracted without `keepdims` (column j shifted
by row j's max), and causal "weights" stored as the masked scores with the softmax forgotten (q6); the trap
checked by the cosine similarity of the two outputs (blind to a row that is only shrunk), the letter taken
from lesson 80's own quiz on the same shortcut (where the right reason is option A), and a boolean answer
(q7); a helper function given the answer's own name `score_madds` (q8). The correct variants use a
namedtuple for the shapes, `statistics.variance` on a list and `functools.reduce` for the counts; a softmax
with `torch.sub(...).exp_()` and `torch.div`, a mask from `np.fromfunction` and the letter as a `numpy.str_`;
an attention in ellipsis `einsum` that fills with `torch.finfo(dtype).min` and zeroes the empty rows with
`torch.where`; a trace with `torch.inner`, `torch.special.softmax`, an additive `-inf` bias and the letter
indexed from the end of "ABCD"; and an attention by `bmm` over a flattened batch (leading axes broadcast
first, keys reshaped with their own length, empty rows found with `torch.isneginf`).

Public material used (search tool): issues corpus: onlybooks/llm#4 (cross-attention should drop
`is_causal`, the decoder may read the whole encoder output) and meta-pytorch/torchtune#2493 ("cross-attention
in llama 3.2 vision has is_causal=False"), the belief behind the q4 variant that leaves a rectangular mask all
True. Pages corpus: shuang0420.cn "numpy - 理解 keepdims=True" (2016-06-26), on `x -= np.max(x, axis=1)`
subtracting row i's max from column i when keepdims is left out, behind the q6 NumPy-trace variant. Lesson 80
(its quiz "A. The weights no longer sum to 1") is behind the q7 lesson-letter variant. A code-corpus search
for Flax's `'...qhd,...khd->...hqk'` attention einsum (amyxlu/msa-transformer-jax `model.py`) was looked at
but not used: ported to this notebook's layout it crashes the notebook's own cross-attention check cell. The
other slips are ones plausible for students of this notebook (nested `len`, tuple slices concatenated, `.T`
used on one matrix of a batch, a trailing comma, `exp(x - sum exp x)` for `exp(x - log sum exp x)`, `flip`
for a transpose, augmented assignment on a tensor argument, a forgotten softmax, checking by direction
only, a True/False answer to a "what is wrong" question, a helper shadowing an answer variable).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5 and q6, whose code calls it; a broken `causal_mask` also costs q5 and
q6). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the
notebook's formula) on several shapes and dtypes (float64, float32, float16, bfloat16), including the
notebook's own, with a throwaway script outside the repository; each variant's notebook was also run top to
bottom (all code cells but otter's) without an error.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "namedtuple_shapes_statistics_variance_reduce_costs": {
        "weights_shape": (
            "from collections import namedtuple\n"
            "\n"
            "_AttnShape = namedtuple(\"_AttnShape\", [\"batch\", \"rows\", \"cols\"])   # still a tuple of ints\n"
            "weights_shape = _AttnShape(batch=4, rows=10, cols=10)\n"
            "out_shape = _AttnShape(batch=4, rows=10, cols=128)\n"
        ),
        "raw_score_var": (
            "import statistics\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "_flat = raw_scores.flatten().tolist()\n"
            "raw_score_var = statistics.variance(_flat)            # sample variance, divides by n - 1\n"
            "scaled_score_var = statistics.variance([s / math.sqrt(d_k) for s in _flat])\n"
            "scale_divisor = float(math.isqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "import operator\n"
            "from functools import reduce\n"
            "\n"
            "attn_entries = reduce(operator.mul, (1024, 1024))\n"
            "score_madds = reduce(operator.mul, (1024, 1024, 64))\n"
            "cost_ratio = reduce(operator.mul, (2048, 2048, 64)) // score_madds\n"
        ),
    },
    "softmax_sub_exp_inplace_div_mask_from_np_fromfunction_letter_numpy_str": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    m = torch.amax(x, dim=dim, keepdim=True)\n"
            "    e = torch.sub(x, m).exp_()          # in place on the fresh difference, never on x\n"
            "    return torch.div(e, torch.sum(e, dim=dim, keepdim=True))\n"
        ),
        "causal_mask": (
            "import numpy as np\n"
            "\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    grid = np.fromfunction(lambda i, j: j <= i, (T_q, T_k), dtype=int)\n"
            "    return torch.from_numpy(grid)\n"
        ),
        "q_trap_answer": (
            "import numpy as np\n"
            "\n"
            "q_trap_answer = np.array(list(\"ABCD\"))[2]      # numpy.str_ is a subclass of str\n"
        ),
    },
    "sdpa_ellipsis_einsum_finfo_min_fill_where_zero_rows": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scale = 1.0 / math.sqrt(Q.shape[-1])\n"
            "    scores = torch.einsum(\"...id,...jd->...ij\", Q, K) * scale\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...ij,...jd->...id\", stable_softmax(scores), V)\n"
            "    # the most negative finite number of the dtype: its exponential after the shift is 0\n"
            "    scores = scores.masked_fill(mask.logical_not(), torch.finfo(scores.dtype).min)\n"
            "    weights = stable_softmax(scores)\n"
            "    # a query with no key at all got a uniform row; it must get zeros\n"
            "    weights = torch.where(mask.any(dim=-1, keepdim=True), weights, 0.0)\n"
            "    return torch.einsum(\"...ij,...jd->...id\", weights, V)\n"
        ),
    },
    "trace_inner_special_softmax_additive_bias_letter_indexed_from_end": {
        "weights3": (
            "scores3 = torch.inner(Q3, K3) / 2.0                 # inner products of rows = Q3 @ K3.T\n"
            "weights3 = torch.special.softmax(scores3, dim=1)\n"
            "out3 = torch.mm(weights3, V3)\n"
            "_bias = torch.zeros(3, 3, dtype=torch.float64).masked_fill(~causal_mask(3), -math.inf)\n"
            "weights3_causal = torch.special.softmax(scores3 + _bias, dim=1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"ABCD\"[-2]\n"
        ),
    },
    "sdpa_bmm_over_broadcast_flattened_batch_isneginf_rows": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    T_q, d_k = Q.shape[-2:]\n"
            "    T_k, d_v = V.shape[-2:]\n"
            "    batch = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])\n"
            "    q = Q.expand(*batch, T_q, d_k).reshape(-1, T_q, d_k)\n"
            "    k = K.expand(*batch, T_k, d_k).reshape(-1, T_k, d_k)\n"
            "    v = V.expand(*batch, T_k, d_v).reshape(-1, T_k, d_v)\n"
            "    scores = torch.bmm(q, k.transpose(1, 2)).reshape(*batch, T_q, T_k) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        dead = torch.isneginf(scores).all(dim=-1, keepdim=True)\n"
            "        weights = weights.masked_fill(dead, 0.0)\n"
            "    out = torch.bmm(weights.reshape(-1, T_q, T_k), v)\n"
            "    return out.reshape(*weights.shape[:-2], T_q, d_v)\n"
        ),
    },
}

WRONG = {
    "q1_value_width_counted_with_len_one_level_short": (
        {"weights_shape": (
            "_Qp, _Kp, _Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "# batch, rows and widths counted with len\n"
            "weights_shape = (len(_Qp), len(_Qp[0]), len(_Kp[0]))\n"
            "out_shape = (len(_Qp), len(_Qp[0]), len(_Vp[0]))\n"
        )},
        {"mistake": "len(_Vp[0]) counts the rows of one value matrix (the 10 keys), not its width: the nested len "
                    "stops one level short, so out_shape comes out (4, 10, 10) instead of (4, 10, 128); the "
                    "value width d_v is len(_Vp[0][0]) (or V.shape[-1])",
         "where": ["q1"]},
    ),
    "q1_shape_slices_concatenated_with_the_batch_twice": (
        {"weights_shape": (
            "_q_shape, _k_shape, _v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
            "# one weight per query row and per key row\n"
            "weights_shape = _q_shape[:-1] + _k_shape[:-1]\n"
            "out_shape = _q_shape[:-1] + _v_shape[-1:]\n"
        )},
        {"mistake": "the query part (4, 10) and the key part (4, 10) are concatenated whole, so the batch axis "
                    "appears twice and weights_shape is (4, 10, 4, 10); the weights are (batch, T_q, T_k) = "
                    "(4, 10, 10), the batch being shared, not paired",
         "where": ["q1"]},
    ),
    "q2_keys_of_the_first_sequence_broadcast_to_both": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K[0].T            # .T is for matrices, so take the key matrix\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "K[0].T is the key matrix of the first sequence only; matmul broadcasts it against the queries "
                    "of BOTH sequences, so the second sequence is scored against the wrong keys (the shape is "
                    "still (2, 5, 5)) and both variances are wrong; K.transpose(-2, -1) keeps each sequence with "
                    "its own keys",
         "where": ["q2"]},
    ),
    "q2_divisor_made_a_tuple_by_a_trailing_comma": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64),\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the trailing comma makes scale_divisor the one-element tuple (8.0,), not the float 8.0",
         "where": ["q2"]},
    ),
    "q3_log_left_out_of_the_log_sum_exp": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.amax(dim=dim, keepdim=True)\n"
            "    # softmax(x) = exp(x - logsumexp(x)), with the max already pulled out\n"
            "    lse = shifted.exp().sum(dim=dim, keepdim=True)\n"
            "    return torch.exp(shifted - lse)\n"
        )},
        {"mistake": "the log of the sum is missing: it subtracts sum(exp) instead of log(sum(exp)), which is "
                    "exp(x - m) * exp(-S) rather than exp(x - m) / S, so the slices do not sum to 1 (a two-way "
                    "tie gives 0.135 each instead of 0.5)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_rectangular_mask_left_all_true_as_cross_attention": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None or T_k == T_q:\n"
            "        return torch.ones(T_q, T_q, dtype=torch.bool).tril()\n"
            "    # T_q != T_k means cross-attention: the queries read another sequence, so nothing is hidden\n"
            "    return torch.ones(T_q, T_k, dtype=torch.bool)\n"
        )},
        {"mistake": "when T_q != T_k the mask is returned all True (\"cross-attention is never causal\"), but the "
                    "question asks for the top-left aligned causal mask for any T_q, T_k: entry [i, j] must be "
                    "False for j > i, e.g. causal_mask(6, 9) must hide keys 1..8 from query 0",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_upper_triangle_flipped_upside_down": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # the lower triangle is the upper one turned over\n"
            "    return torch.ones(T_q, T_k, dtype=torch.bool).triu().flip(0)\n"
        )},
        {"mistake": "flipping the upper triangle upside down (flip(0), the row order reversed) is not the lower "
                    "triangle: it keeps the entries on and below the anti-diagonal (j >= T - 1 - i), so query 0 "
                    "sees only the last key, a future one, and the last query sees every key; the lower "
                    "triangle is the transpose of the upper one, or tril()",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_empty_rows_opened_in_the_callers_mask_with_or_equals": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is None:\n"
            "        return torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    dead = ~mask.any(dim=-1, keepdim=True)      # queries with no key at all\n"
            "    mask |= dead                                # let them see every key, so no 0/0 in the softmax\n"
            "    scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    out = torch.matmul(stable_softmax(scores, dim=-1), V)\n"
            "    return out.masked_fill(dead, 0.0)\n"
        )},
        {"mistake": "mask |= dead is an in-place OR: it opens the fully masked rows in the CALLER's mask tensor, "
                    "not in a copy, so after the call the caller's mask has no empty rows any more (every later "
                    "use of that mask, including a second call or a reference computed after the call, lets "
                    "those queries attend to every key instead of giving them zeros); mask = mask | dead makes "
                    "a new tensor",
         "where": ["q5"]},
    ),
    "q6_numpy_trace_row_max_subtracted_without_keepdims": (
        {"weights3": (
            "import numpy as np\n"
            "\n"
            "\n"
            "def _np_softmax(s):\n"
            "    e = np.exp(s - s.max(axis=-1))                 # shift by the row max for stability\n"
            "    return e / e.sum(axis=-1, keepdims=True)\n"
            "\n"
            "\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "_s = scores3.numpy()\n"
            "weights3 = torch.from_numpy(_np_softmax(_s))\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = torch.from_numpy(_np_softmax(np.where(np.tril(np.ones((3, 3))) > 0, _s, -np.inf)))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "s.max(axis=-1) without keepdims=True has shape (3,), which broadcasts along the columns: "
                    "column j is shifted by row j's max instead of each row by its own, and since the shift "
                    "differs inside a row it does not cancel; weights3, out3 and rows 1 and 2 of weights3_causal "
                    "are wrong",
         "where": ["q6"]},
    ),
    "q6_causal_weights_stored_before_the_softmax": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = scores3.masked_fill(~causal_mask(3), float(\"-inf\"))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "weights3_causal is the masked score matrix (0.5, -inf, -inf, ...): the softmax that turns the "
                    "masked scores into weights is never applied, so the rows hold scores and -inf instead of "
                    "weights that sum to 1 (row 0 should be 1, 0, 0)",
         "where": ["q6"]},
    ),
    "q7_trap_checked_by_cosine_similarity": (
        {"q_trap_answer": (
            "# try the classmate's shortcut on a small example\n"
            "_g = torch.Generator().manual_seed(1)\n"
            "_s = torch.randn(4, 4, generator=_g)\n"
            "_v = torch.randn(4, 3, generator=_g)\n"
            "_w = F.softmax(_s, dim=-1)\n"
            "_w[~causal_mask(4)] = 0.0\n"
            "_shortcut = _w @ _v\n"
            "_right = F.softmax(_s.masked_fill(~causal_mask(4), float(\"-inf\")), dim=-1) @ _v\n"
            "# compare where each output row points, not its length\n"
            "_same = torch.allclose(F.cosine_similarity(_shortcut, _right, dim=-1), torch.ones(4))\n"
            "q_trap_answer = \"A\" if _same else \"C\"\n"
        )},
        {"mistake": "the check compares the outputs by cosine similarity, which ignores length; the shortcut's "
                    "rows are the right rows shrunk by the removed weight (same direction, smaller norm), so the "
                    "check finds them equal and answers A; the answer is C",
         "where": ["q7"]},
    ),
    "q7_letter_taken_from_the_lessons_quiz": (
        {"q_trap_answer": (
            "# lesson 80's quiz on this shortcut: \"A. The weights no longer sum to 1\" -- same reason\n"
            "q_trap_answer = \"A\"\n"
        )},
        {"mistake": "the reason is right but the letter is lesson 80's: in the lesson's quiz \"the weights no "
                    "longer sum to 1\" is option A, while in this notebook A says nothing is wrong; the option "
                    "with that reason here is C",
         "where": ["q7"]},
    ),
    "q7_answer_given_as_a_boolean": (
        {"q_trap_answer": (
            "# is the classmate's shortcut right? no\n"
            "q_trap_answer = False\n"
        )},
        {"mistake": "the answer is the boolean False (\"the shortcut is not right\"), not the letter of an option; "
                    "the question asks for the string \"C\"",
         "where": ["q7"]},
    ),
    "q8_madds_name_reused_for_a_helper_function": (
        {"attn_entries": (
            "attn_entries = 1024 * 1024\n"
            "\n"
            "\n"
            "def score_madds(T, d_k=64):\n"
            "    \"\"\"multiply-adds of Q @ K.T for one head of length T\"\"\"\n"
            "    return T * T * d_k\n"
            "\n"
            "\n"
            "cost_ratio = score_madds(2048) // score_madds(1024)\n"
        )},
        {"mistake": "the helper function is named score_madds, so the answer score_madds is that function, not "
                    "the count 67108864 (score_madds(1024)); cost_ratio = 4 is right",
         "where": ["q8"]},
    ),
}
