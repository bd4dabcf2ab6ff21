"""Fifty-first blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the master notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind50.py in full (for the format), only the
module docstrings and variant names of the earlier blind sets (so that their mistakes are not repeated in
the same form), and lesson 80 (`lesson-80-sdpa-from-scratch.txt`). The grader was not run on this set.

This round leans on the questions the earlier sets touched least (by count of wrong variant names: q1, q7,
q8, q4, q2 and q6 before q3 and q5): three variants for q1, two each for q4, q6, q7 and q8, one each for
q2, q3 and q5, in code shapes they did not use: an output probe of the broadcast-and-sum idiom summed
over the keys with `keepdim=True` left on, both shapes answered for the notebook's own running example
(batch 2, 5 tokens, width 8) instead of the question's tensors, and a weights probe built from
`Q.unsqueeze(2) @ K.unsqueeze(1).mT` that keeps a singleton query axis (q1); the q2 divisor taken with
`math.isqrt`, an int where a float is asked (q2); the softmax shift taken with `kthvalue(n - 1)`, which is
1-based and so picks the second largest entry (q3); a lower triangle made by turning `triu` half a turn
with `flip(0, 1)` (right only for squares: bottom-right aligned on rectangles), and a triangle built
(T_k, T_q) and `reshape`d, not transposed, to (T_q, T_k) (q4); an attention whose last product is done
in float16 "to save memory" and cast back (q5); causal weights read off `F.scaled_dot_product_attention`
with identity values but given a mask in the `nn.MultiheadAttention` convention (True = blocked), and
`masked_fill` given the causal mask without `~` (q6); two letters joined with `and`, which evaluates to
the second, and a letter split out of "A, B, C, D" with `split(",")`, which keeps its leading space (q7); a count typed with
thousands separators, which Python reads as a tuple, and a ratio rounded with `np.round`, which stays a
NumPy float (q8).
The correct variants use: a softmax computed in `promote_types(dtype, float32)` and cast back, with the
shift taken under `torch.no_grad()` and the normalisation by `F.normalize(p=1)`; a mask from NumPy's
`np.tri` (whose `M=None` is the square) with an attention written with `einsum` over `...`, the library
`torch.softmax` (allowed outside `stable_softmax`) and fully blocked rows zeroed by a second `masked_fill`
on the weights; q6 by `torch.inner`, an unshifted exp, `out3` from the fused kernel (allowed outside the
function) and causal weights by zeroing and renormalising (the correct form of the q7 shortcut); q1 shapes
from probes on the `meta` device, the q7 letter as a NumPy `str_` (a `str` subclass) and q8 counts by
`math.prod`; and q2 variances from `torch.std_mean` squared and `.tolist()`, with `64 ** 0.5`, plus a
causal mask cut `[:T_q, :T_k]` from the lower triangle of a larger square.

Public material used (search tool, issues corpus): rasbt/LLMs-from-scratch#1061 (a `triu(...).bool()` mask
given to `F.scaled_dot_product_attention`, whose True means "attend", the opposite of
`nn.MultiheadAttention`), pytorch/pytorch#170415 (fixes #170400) and pytorch/pytorch#120668 (notes that the
boolean mask semantics of SDPA are the inverse of MultiheadAttention / Transformer), behind the q6 variant
that hands SDPA the blocked-positions mask and the q6 `masked_fill` without `~`; pytorch/pytorch#29398 and
pytorch/pytorch#68813 (`kthvalue` returns the k-th *smallest*, 1-based, with no `largest` option), behind
the q3 `kthvalue(n - 1)` shift; pytorch/pytorch#103963 (SDPA and fully masked rows) for the fully-blocked
query row that the q6 SDPA variant produces. The other slips are ones plausible for students of this
notebook (keepdim left on, the notebook's own example sizes copied, unsqueeze probes, `isqrt` for `sqrt`,
flips for transposes, reshape for transpose, a half-precision product, Python's `and`,
`split(",")` spaces, thousands separators, `np.round` returning floats).

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
    "softmax_in_promoted_dtype_shift_under_no_grad_l1_normalised": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    work = x.to(torch.promote_types(x.dtype, torch.float32))   # half types computed in float32\n"
            "    with torch.no_grad():\n"
            "        shift = work.amax(dim=dim, keepdim=True)   # a constant: its gradient cancels anyway\n"
            "    e = torch.exp(work - shift)\n"
            "    p = F.normalize(e, p=1.0, dim=dim)             # e / sum(|e|), and e > 0\n"
            "    return p.to(x.dtype)\n"
        ),
    },
    "numpy_tri_mask_einsum_attention_library_softmax_blocked_weights_refilled": {
        "causal_mask": (
            "import numpy as np\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    return torch.from_numpy(np.tri(T_q, T_k, dtype=bool))     # np.tri: [i, j] = j <= i; M=None is square\n"
        ),
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) / math.sqrt(K.shape[-1])\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...qk,...kd->...qd\", torch.softmax(scores, dim=-1), V)\n"
            "    blocked = mask.logical_not()\n"
            "    weights = torch.softmax(scores.masked_fill(blocked, -math.inf), dim=-1)\n"
            "    weights = weights.masked_fill(blocked, 0.0)     # a fully blocked row (NaN) becomes zeros\n"
            "    return torch.einsum(\"...qk,...kd->...qd\", weights, V)\n"
        ),
    },
    "inner_scores_unshifted_exp_fused_output_causal_by_renormalised_zeroing": {
        "weights3": (
            "scores3 = torch.inner(Q3, K3) / 2.0                      # inner on matrices is Q3 @ K3.T\n"
            "_e3 = scores3.exp()                                      # small integers: no shift needed\n"
            "weights3 = _e3 / _e3.sum(dim=1, keepdim=True)\n"
            "out3 = F.scaled_dot_product_attention(Q3.unsqueeze(0), K3.unsqueeze(0), V3.unsqueeze(0))[0]\n"
            "_kept = weights3 * causal_mask(3)\n"
            "weights3_causal = _kept / _kept.sum(dim=-1, keepdim=True)   # zeroing is fine once renormalised\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "meta_device_probes_numpy_str_letter_math_prod_counts": {
        "weights_shape": (
            "_q = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_k = torch.empty(4, 10, 64, device=\"meta\")\n"
            "_v = torch.empty(4, 10, 128, device=\"meta\")\n"
            "_w = _q @ _k.mT\n"
            "weights_shape = tuple(_w.shape)\n"
            "out_shape = tuple((_w @ _v).shape)\n"
        ),
        "q_trap_answer": (
            "import numpy as np\n"
            "\n"
            "q_trap_answer = np.array(list(\"ABCD\"))[2]      # numpy.str_ is a str\n"
        ),
        "attn_entries": (
            "attn_entries = math.prod((1024, 1024))\n"
            "score_madds = math.prod((1024, 1024, 64))\n"
            "cost_ratio = math.prod((2, 2))\n"
        ),
    },
    "std_mean_squared_variances_power_root_mask_cut_from_a_larger_square": {
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "_std, _mean = torch.std_mean(raw_scores)           # unbiased, like .var()\n"
            "raw_score_var = (_std ** 2).tolist()               # tolist of a 0-d tensor is a Python float\n"
            "scaled_score_var = (raw_scores * d_k ** -0.5).var().tolist()\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    n = max(T_q, T_k)\n"
            "    return torch.ones(n, n).tril()[:T_q, :T_k].bool()     # top-left corner of the big square\n"
        ),
    },
}

WRONG = {
    "q1_out_probe_summed_over_keys_with_keepdim_left_on": (
        {"weights_shape": (
            "_w = torch.zeros(4, 10, 10)\n"
            "_v = torch.zeros(4, 10, 128)\n"
            "weights_shape = tuple(_w.shape)\n"
            "out_shape = tuple((_w.unsqueeze(-1) * _v.unsqueeze(1)).sum(dim=2, keepdim=True).shape)\n"
        )},
        {"mistake": "the broadcast-and-sum probe is summed over the keys with keepdim=True, so the summed axis "
                    "stays as a 1 and out_shape is (4, 10, 1, 128); the output has one row of width d_v per "
                    "query, (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q1_shapes_answered_for_the_notebooks_running_example": (
        {"weights_shape": (
            "weights_shape = (2, 5, 5)      # batch, queries, keys\n"
            "out_shape = (2, 5, 8)          # batch, queries, d_v\n"
        )},
        {"mistake": "these are the shapes for the notebook's running example (batch 2, 5 tokens, width 8), not "
                    "for the tensors of the question: with Q, K (4, 10, 64) and V (4, 10, 128) the weights are "
                    "(4, 10, 10) and the output (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q1_weights_probe_from_unsqueezed_matmul_keeps_a_singleton_axis": (
        {"weights_shape": (
            "_q = torch.zeros(4, 10, 64)\n"
            "_k = torch.zeros(4, 10, 64)\n"
            "weights_shape = tuple((_q.unsqueeze(2) @ _k.unsqueeze(1).transpose(-2, -1)).shape)\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "each query is made a (1, 64) row matrix by unsqueeze(2), so the product keeps that 1: "
                    "weights_shape comes out (4, 10, 1, 10) instead of one entry per (query, key) pair, "
                    "(4, 10, 10)",
         "where": ["q1"]},
    ),
    "q2_scale_divisor_from_math_isqrt_is_an_int": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.isqrt(64)        # exact square root of 64\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "math.isqrt returns the integer square root, the Python int 8; scale_divisor must be a float, "
                    "math.sqrt(64) = 8.0 (and isqrt would truncate any d_k that is not a perfect square)",
         "where": ["q2"]},
    ),
    "q3_shift_by_kthvalue_off_by_one_is_the_second_largest": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    top = x.kthvalue(x.size(dim) - 1, dim=dim, keepdim=True).values    # the largest entry\n"
            "    exps = torch.exp(x - top)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "kthvalue counts from 1 and from the smallest, so k = n - 1 is the second largest entry, not "
                    "the max: the largest shifted logit stays positive and overflows in float16 when the top two "
                    "differ by more than about 11, a slice with one finite entry shifts by -inf and gives NaN, and "
                    "a slice of length 1 fails; the max is kthvalue(n), or simply amax",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_triu_flipped_on_both_axes_is_bottom_right_on_rectangles": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    upper = torch.ones(T_q, T_k, dtype=torch.bool).triu()\n"
            "    return upper.flip(0, 1)         # half a turn: the upper triangle becomes the lower one\n"
        )},
        {"mistake": "turning the upper triangle half a turn gives the lower triangle only for a square; for "
                    "T_q != T_k it is True where j <= i + (T_k - T_q), aligned at the bottom-right (e.g. for "
                    "(6, 9) query 0 sees keys 0..3), not top-left as asked; the mask is tril, or cols <= rows",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_keys_by_queries_triangle_reshaped_not_transposed": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    lower = torch.ones(T_k, T_q, dtype=torch.bool).tril()\n"
            "    return lower.reshape(T_q, T_k)       # to the (T_q, T_k) layout\n"
        )},
        {"mistake": "the triangle is built with the axes the wrong way round, (T_k, T_q), and reshape only "
                    "re-cuts its entries in reading order into (T_q, T_k) rows: right for a square, scrambled "
                    "for T_q != T_k (for (6, 9) query 0 sees keys 0 and 6); build it (T_q, T_k) directly",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_weights_and_values_multiplied_in_float16_to_save_memory": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    out = torch.matmul(weights.half(), V.half())     # weights are in [0, 1]: half precision is enough\n"
            "    return out.to(Q.dtype)\n"
        )},
        {"mistake": "the last product is done in float16 and only cast back afterwards, so float64, float32 and "
                    "bfloat16 inputs get outputs rounded to half precision (errors around 1e-3, far above "
                    "float32's 1e-7), and values beyond 65504 would overflow; the product must stay in the "
                    "inputs' dtype",
         "where": ["q5"]},
    ),
    "q6_causal_weights_from_sdpa_given_the_multihead_attention_mask_convention": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_eye3 = torch.eye(3, dtype=torch.float64)      # identity values: the output rows are the weights\n"
            "weights3_causal = F.scaled_dot_product_attention(\n"
            "    Q3.unsqueeze(0), K3.unsqueeze(0), _eye3.unsqueeze(0), attn_mask=~causal_mask(3))[0]   # True = blocked\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "F.scaled_dot_product_attention's boolean mask means True = may attend (the inverse of "
                    "nn.MultiheadAttention's), so ~causal_mask(3) lets each query see only the future: query 0 "
                    "gets keys 1 and 2, query 1 key 2, and query 2 nothing; the mask to pass is causal_mask(3) "
                    "itself",
         "where": ["q6"]},
    ),
    "q6_causal_mask_given_to_masked_fill_without_inverting": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "masked_fill fills where its mask is True, and causal_mask is True where a query MAY attend, "
                    "so this blocks the past and the present and keeps the future: query 2 has no key left (a "
                    "row of NaN) and query 0 spreads over keys 1 and 2; the fill mask is ~causal_mask(3)",
         "where": ["q6"]},
    ),
    "q7_two_letters_joined_with_and_evaluate_to_the_second": (
        {"q_trap_answer": (
            "q_trap_answer = \"C\" and \"D\"      # C, though D is close\n"
        )},
        {"mistake": "Python's `and` returns its second operand when the first is truthy, so q_trap_answer is "
                    "\"D\", not \"C\" (and one letter is asked for in any case)",
         "where": ["q7"]},
    ),
    "q7_letter_split_from_a_comma_list_keeps_its_leading_space": (
        {"q_trap_answer": (
            "_options = \"A, B, C, D\".split(\",\")\n"
            "q_trap_answer = _options[2]        # the third option\n"
        )},
        {"mistake": "splitting \"A, B, C, D\" on \",\" keeps the space after each comma, so the answer is \" C\" "
                    "with a leading space, not the one-letter string \"C\"",
         "where": ["q7"]},
    ),
    "q8_madds_typed_with_thousands_separators_is_a_tuple": (
        {"attn_entries": (
            "attn_entries = 1024 * 1024\n"
            "score_madds = 67,108,864          # 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "commas are not thousands separators in Python: score_madds = 67,108,864 is the tuple "
                    "(67, 108, 864), not the int 67108864 (write 67_108_864 or 1024 * 1024 * 64)",
         "where": ["q8"]},
    ),
    "q8_ratio_rounded_with_np_round_stays_a_numpy_float": (
        {"attn_entries": (
            "import numpy as np\n"
            "\n"
            "attn_entries = 1024 * 1024\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = np.round((2 * 1024) ** 2 / 1024 ** 2)     # round to a whole number\n"
        )},
        {"mistake": "np.round keeps the float type, so cost_ratio is the NumPy float64 4.0, not the Python int "
                    "4 that is asked for (the built-in round() or integer arithmetic would give an int)",
         "where": ["q8"]},
    ),
}
