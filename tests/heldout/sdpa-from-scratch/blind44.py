"""Forty-fourth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (as they
stand in `full_marks.ipynb`, whose cells these replace), `harness.py`, blind43.py in full (for the format),
only the module docstrings and variant names of the earlier blind sets (so that their mistakes are not
repeated in the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on
this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q7, q1,
q8, q4, q2, q6): three variants for q7, two each for q1, q2, q4 and q8, one each for q3, q5 and q6, in code
shapes they did not use: a table of sizes kept in `np.zeros` (default float64, so the shape entries are
NumPy floats), and an einsum probe of the output whose result letters were copied from the weights' einsum
(q1); a hand variance that centres each row on its own mean instead of the grand mean, and a `d_k` that
holds the square root already, so the scores are divided by `sqrt(sqrt(d_k))` (q2); a softmax decorated
with `@torch.no_grad()`, an inference habit that cuts the gradients of every caller (q3); a causal mask
written as the complement of `triu(diagonal=-1)` (the sign of the tutorial's `diagonal=1` misremembered),
and a mask cut from the key-length square by its first `T_q` rows, right only while `T_q <= T_k` (q4);
inputs rebound to float32 for the computation, so that the final `.to(Q.dtype)` casts to float32 and not
back to the caller's dtype (q5); `out3` stored as a flat list of six floats (q6); the trap checked with a
`masked_fill` whose result is thrown away, the letter typed with a full-width `Ｃ` from a CJK input
method, and the letter picked from a NumPy array of options with a boolean mask, which leaves a
one-element array (q7); the multiply-adds of one dot product (64) given for the whole score matrix, and the
ratio kept as an exact `fractions.Fraction` (q8). The correct variants use an einsum probe for the shapes,
`torch.var_mean` and `numel` counts; a softmax with `torch.max(...).values` and a `nansum` denominator, a
mask from `torch.heaviside` and a letter from `sorted`; an attention that runs `torch.vmap` over a
flattened, broadcast batch; a trace with `torch.addmm(..., alpha=1/2)` and a log-sum-exp softmax; and an
attention whose softmax runs in `torch.promote_types(dtype, float32)` and is cast back.

Public material used (search tool): issues corpus: QwenLM/Qwen#933 (`attention_mask.masked_fill(...)`
used as if it were in place, so the mask was never applied) behind the q7 variant whose check never zeroes
the weights; pytorch/tutorials#2250 (`torch.triu(..., diagonal=1)` and whether the offset should be 0) and
karpathy/nanoGPT#170 (`tril` or `triu`, and which side the `== 0` puts the -inf on) behind the q4 variant
that misremembers the sign of the `triu` offset; pytorch/pytorch#103082 (top-left versus bottom-right
alignment when `L != S`) for the rectangular case the cut-square q4 variant gets wrong when `T_q > T_k`.
Code corpus: lucidrains/flash-attention-jax `flash_attention_jax/attention.py` (`k.transpose()` with no
axes, a JAX habit that crashes on batched torch keys, so not used) and an excerpt of ramsey's
`DotProductAttention` (its repository not named by the search; einsums `"bik,bjk->bij"` then
`"bik,bkj->bij"`), looked at for einsum letter slips: the q1 probe variant copies the result letters of the
first einsum of such a pair into the second. Lesson 80's quiz (in
which the right reason is option A) was read for q7, but that slip was used by blind43 and is not repeated.
The other slips are ones plausible for students of this notebook (NumPy's default float dtype, centring
per row, a square root stored in a variable named `d_k`, inference decorators, name rebinding, flattening
an answer to a list, IME full-width letters, boolean-mask selection, `Fraction` for exact ratios).

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
    "einsum_probe_shapes_var_mean_power_divisor_numel_counts": {
        "weights_shape": (
            "_Qp, _Kp, _Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "_Wp = torch.einsum(\"bqd,bkd->bqk\", _Qp, _Kp)\n"
            "weights_shape = tuple(int(n) for n in _Wp.shape)\n"
            "out_shape = tuple(int(n) for n in torch.einsum(\"bqk,bkv->bqv\", _Wp, _Vp).shape)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.matmul(Q, K.mT)\n"
            "raw_score_var = torch.var_mean(raw_scores)[0].item()          # (var, mean), unbiased\n"
            "scaled_score_var = torch.var_mean(raw_scores * d_k ** -0.5)[0].item()\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "attn_entries = torch.zeros(1024, 1024).numel()\n"
            "score_madds = attn_entries * 64\n"
            "cost_ratio = (2048 * 2048 * 64) // score_madds\n"
        ),
    },
    "softmax_max_values_nansum_mask_from_heaviside_letter_from_sorted": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    top = torch.max(x, dim, keepdim=True).values\n"
            "    e = torch.exp(torch.sub(x, top))\n"
            "    return e / torch.nansum(e, dim=dim, keepdim=True)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    gap = (torch.arange(T_q).view(-1, 1) - torch.arange(T_k).view(1, -1)).double()   # i - j\n"
            "    return torch.heaviside(gap, torch.tensor(1.0, dtype=torch.float64)).bool()      # step(0) = 1\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = sorted(\"DCBA\")[2]\n"
        ),
    },
    "sdpa_vmap_over_flattened_broadcast_batch": {
        "scaled_dot_product_attention": (
            "def _attend_one(q, k, v, m):\n"
            "    \"\"\"one (T_q, d_k), (T_k, d_k), (T_k, d_v) problem with a (T_q, T_k) bool mask\"\"\"\n"
            "    s = (q @ k.T) / math.sqrt(q.shape[-1])\n"
            "    s = s.masked_fill(m.logical_not(), float(\"-inf\"))\n"
            "    w = stable_softmax(s, dim=-1)\n"
            "    w = torch.where(m.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
            "    return w @ v\n"
            "\n"
            "\n"
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    T_q, d_k = Q.shape[-2:]\n"
            "    T_k, d_v = V.shape[-2:]\n"
            "    if mask is None:\n"
            "        mask = torch.ones(T_q, T_k, dtype=torch.bool, device=Q.device)\n"
            "    batch = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], mask.shape[:-2])\n"
            "    q = Q.expand(*batch, T_q, d_k).reshape(-1, T_q, d_k)\n"
            "    k = K.expand(*batch, T_k, d_k).reshape(-1, T_k, d_k)\n"
            "    v = V.expand(*batch, T_k, d_v).reshape(-1, T_k, d_v)\n"
            "    m = mask.expand(*batch, T_q, T_k).reshape(-1, T_q, T_k)\n"
            "    out = torch.vmap(_attend_one)(q, k, v, m)          # vectorised over the flat batch\n"
            "    return out.reshape(*batch, T_q, d_v)\n"
        ),
    },
    "trace_addmm_half_alpha_logsumexp_softmax_where_causal": {
        "weights3": (
            "_z33 = torch.zeros(3, 3, dtype=torch.float64)\n"
            "scores3 = torch.addmm(_z33, Q3, K3.T, beta=0, alpha=1 / 2)      # Q3 K3^T / sqrt(4)\n"
            "weights3 = torch.exp(scores3 - torch.logsumexp(scores3, dim=1, keepdim=True))\n"
            "out3 = torch.addmm(torch.zeros(3, 2, dtype=torch.float64), weights3, V3)\n"
            "_causal = torch.where(causal_mask(3), scores3, torch.tensor(-math.inf, dtype=torch.float64))\n"
            "weights3_causal = torch.exp(_causal - torch.logsumexp(_causal, dim=1, keepdim=True))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "sdpa_softmax_in_promoted_precision_cast_back_movedim_keys": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scale = Q.shape[-1] ** -0.5                      # a Python float: full precision\n"
            "    scores = (Q @ K.movedim(-1, -2)) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, -math.inf)\n"
            "    work = torch.promote_types(scores.dtype, torch.float32)   # half -> float32, float64 stays\n"
            "    weights = stable_softmax(scores.to(work), dim=-1).to(scores.dtype)\n"
            "    if mask is not None:\n"
            "        weights = torch.where(mask.any(-1, keepdim=True), weights, weights.new_zeros(()))\n"
            "    return weights @ V\n"
        ),
    },
}

WRONG = {
    "q1_size_table_in_np_zeros_keeps_float_entries": (
        {"weights_shape": (
            "import numpy as np\n"
            "\n"
            "# one row per tensor: batch, length, width\n"
            "_sizes = np.zeros((3, 3))\n"
            "_sizes[0] = 4, 10, 64     # Q\n"
            "_sizes[1] = 4, 10, 64     # K\n"
            "_sizes[2] = 4, 10, 128    # V\n"
            "weights_shape = (_sizes[0, 0], _sizes[0, 1], _sizes[1, 1])\n"
            "out_shape = (_sizes[0, 0], _sizes[0, 1], _sizes[2, 2])\n"
        )},
        {"mistake": "np.zeros makes a float64 table, so every entry read back is a numpy.float64 (4.0, 10.0, ...), "
                    "not a Python int: the shapes are tuples of floats although the question asks for tuples of "
                    "ints (give the array dtype=int or convert with int())",
         "where": ["q1"]},
    ),
    "q1_out_probe_einsum_letters_copied_from_the_weights": (
        {"weights_shape": (
            "_Qp, _Kp, _Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "_Wp = torch.einsum(\"bqd,bkd->bqk\", _Qp, _Kp)\n"
            "weights_shape = tuple(_Wp.shape)\n"
            "out_shape = tuple(torch.einsum(\"bqk,bkd->bqk\", _Wp, _Vp).shape)\n"
        )},
        {"mistake": "the output einsum keeps the result letters of the weights, \"->bqk\", so it sums over the value "
                    "width instead of mixing the values and out_shape comes out (4, 10, 10); the output is "
                    "\"bqk,bkd->bqd\", shape (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_hand_variance_centred_on_each_rows_mean": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "\n"
            "\n"
            "def _unbiased_var(s):\n"
            "    centred = s - s.mean(dim=-1, keepdim=True)\n"
            "    return ((centred ** 2).sum() / (s.numel() - 1)).item()\n"
            "\n"
            "\n"
            "raw_score_var = _unbiased_var(raw_scores)\n"
            "scaled_score_var = _unbiased_var(raw_scores / math.sqrt(d_k))\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "each entry is centred on the mean of its own row (mean over dim=-1), not on the mean of all "
                    "50 entries, so the spread between the row means is dropped and both variances come out too "
                    "small; the variance of all entries is centred on their single overall mean (raw_scores.var())",
         "where": ["q2"]},
    ),
    "q2_d_k_variable_holds_the_square_root_already": (
        {"raw_score_var": (
            "d_k = Q.shape[-1] ** 0.5          # the scale, sqrt(8)\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "d_k already holds sqrt(8) and is square-rooted again, so the scores are divided by 8 ** 0.25 "
                    "(about 1.68) instead of sqrt(8) and scaled_score_var is raw / 2.83 (about 2.33) instead of "
                    "raw / 8 (about 0.825)",
         "where": ["q2"]},
    ),
    "q3_softmax_decorated_with_no_grad": (
        {"stable_softmax": (
            "@torch.no_grad()\n"
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "@torch.no_grad() (an inference habit) turns autograd off inside the softmax: the values are "
                    "right but the result has no grad_fn, so no gradient flows back through the weights; in "
                    "scaled_dot_product_attention Q and K get no gradient at all and V gets one only through "
                    "the final product",
         "where": ["q3", "q5"]},
    ),
    "q4_complement_of_triu_with_the_offset_sign_flipped": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    future = torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=-1)   # the part to hide\n"
            "    return ~future\n"
        )},
        {"mistake": "the offset of triu has the wrong sign: triu(diagonal=-1) also takes the diagonal and the "
                    "band just below it, so the complement keeps only j <= i - 2; the future is "
                    "triu(diagonal=1) and the mask its complement (j <= i). Query 0 and query 1 see no key at all "
                    "and every later query loses itself and its predecessor",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_mask_cut_from_the_key_square_by_its_first_rows": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    full = torch.ones(T_k, T_k, dtype=torch.bool).tril()   # one row per key position\n"
            "    return full[:T_q]                                         # keep the rows of the queries\n"
        )},
        {"mistake": "the triangle is made on the key length and cut to its first T_q rows, which only works while "
                    "T_q <= T_k: with more queries than keys (e.g. causal_mask(6, 4)) there are only T_k rows to "
                    "cut, so the mask has shape (4, 4) instead of (6, 4) and queries 4 and 5 have no row",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_inputs_rebound_to_float32_so_the_cast_back_is_a_no_op": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    Q, K, V = Q.float(), K.float(), V.float()      # compute in float32 for stability\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V).to(Q.dtype)     # back to the input dtype\n"
        )},
        {"mistake": "Q was rebound to its float32 copy, so .to(Q.dtype) casts to float32, not to the caller's "
                    "dtype: float16 and bfloat16 inputs give a float32 output and float64 inputs are computed and "
                    "returned in float32 (precision lost); keep the input dtype in a variable before converting",
         "where": ["q5"]},
    ),
    "q6_output_stored_as_a_flat_list": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = (weights3 @ V3).flatten().tolist()          # as a list of floats\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "out3 is flattened into one list of six floats, so the (3, 2) layout (one row per query, d_v = 2 "
                    "columns) is lost; a nested list ((weights3 @ V3).tolist()) or the tensor keeps it",
         "where": ["q6"]},
    ),
    "q7_check_zeroes_with_masked_fill_not_in_place": (
        {"q_trap_answer": (
            "# try the classmate's shortcut: do the weights still sum to 1 after zeroing?\n"
            "_g = torch.Generator().manual_seed(3)\n"
            "_s = torch.randn(5, 5, generator=_g)\n"
            "_w = F.softmax(_s, dim=-1)\n"
            "_w.masked_fill(~causal_mask(5), 0.0)          # zero the future weights\n"
            "_still_one = torch.allclose(_w.sum(dim=-1), torch.ones(5))\n"
            "q_trap_answer = \"A\" if _still_one else \"C\"\n"
        )},
        {"mistake": "masked_fill returns a new tensor and its result is thrown away, so the check never zeroes "
                    "anything (masked_fill_ or _w = _w.masked_fill(...) was meant); the untouched weights still sum "
                    "to 1 and the check answers A, while the right answer is C",
         "where": ["q7"]},
    ),
    "q7_letter_typed_full_width": (
        {"q_trap_answer": (
            "q_trap_answer = \"\\uff23\"      # Ｃ, typed with the IME still in full-width mode\n"
        )},
        {"mistake": "the letter is the full-width \"Ｃ\" (U+FF23) from a CJK input method, not the ASCII \"C\": it is "
                    "a different character, strip() and upper() leave it as it is, and it matches none of "
                    "\"A\", \"B\", \"C\", \"D\"",
         "where": ["q7"]},
    ),
    "q7_letter_picked_by_a_boolean_mask_stays_an_array": (
        {"q_trap_answer": (
            "import numpy as np\n"
            "\n"
            "_options = np.array([\"A\", \"B\", \"C\", \"D\"])\n"
            "_true = np.array([False, False, True, False])      # only C is a true statement\n"
            "q_trap_answer = _options[_true]\n"
        )},
        {"mistake": "indexing with a boolean mask always returns an array, so the answer is array(['C']), a "
                    "one-element NumPy array, not the string \"C\" (take _options[_true][0] or .item())",
         "where": ["q7"]},
    ),
    "q8_madds_of_one_dot_product": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 64             # each score is one dot product of length d_k\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "64 is the multiply-adds of ONE score; computing Q @ K.T takes one such dot product per entry, "
                    "T^2 d_k = 1024 * 1024 * 64 = 67108864",
         "where": ["q8"]},
    ),
    "q8_ratio_kept_as_an_exact_fraction": (
        {"attn_entries": (
            "from fractions import Fraction\n"
            "\n"
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = Fraction(2048 * 2048 * 64, score_madds)     # exact, no float rounding\n"
        )},
        {"mistake": "cost_ratio is the Fraction 4/1, not the Python int 4 the question asks for (Fraction is not a "
                    "subclass of int); the count is right but of the wrong kind",
         "where": ["q8"]},
    ),
}
