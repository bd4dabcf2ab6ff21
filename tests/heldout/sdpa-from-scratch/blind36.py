"""Thirty-sixth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, lesson 80 in /work/shared/lessons/,
blind35.py's docstring and first lines (for the format), and only the module docstrings and variant names
of the earlier blind sets (so that their mistakes are not repeated in the same form). The grader was not
run on this set.

This round leans on the questions earlier sets touched least (q1, q7, q8) and on code shapes they used
little: a probe tensor's `.size` left uncalled, and shapes kept as 1-D tensors (q1); pairwise distances from
`torch.cdist` taken for dot-product scores, and the head width read off the batch axis (q2); a softmax whose
exponential was left out, and one rounded to the four decimals of the worked example (q3); a diagonal offset
for rectangular masks with the wrong sign (q4); queries pre-scaled while the old division of the scores was
kept, and `torch.mm` on batched inputs (q5); a nanoGPT-style float `tril` of ones handed to
`F.scaled_dot_product_attention` as `attn_mask`, where a float mask is *added* to the scores (q6); a letter
typed in parentheses and one typed without quotes (q7); the cost at the doubled length given for the ratio,
and a counting loop that starts at 1 (q8).

Public material searched (search tool): the issues corpus for float vs boolean attention masks
(timeseriesAI/tsai#171, "when the attn_mask tensor is not boolean, the scores are not masked";
pytorch/pytorch#103963, where `attn_mask.to(torch.bool).to(torch.float)` gives a different result from the
boolean mask), which the q6 float-mask variant follows; the code corpus for hand-written attention
(Charmaineem/Hands-On-LLMs Transformer/layers.py uses `d_k = k.dim()`, already covered by earlier names;
an einsum module scaling by `np.sqrt(self.d_k)`, which one correct variant copies, since a NumPy scalar
keeps the tensor's dtype). The other slips are ones plausible for students of this notebook.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5 and q6, whose code calls it; a broken `causal_mask` also costs q5).
Correct variants are really correct but written differently from full_marks. Every variant was checked
against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) on several shapes and dtypes,
including the notebook's own, with a throwaway script outside the repository before it was committed.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "torch_size_shapes_statistics_variance_counting_loop": {
        "weights_shape": (
            "# torch.Size is a tuple of Python ints\n"
            "weights_shape = torch.Size((4, 10, 10))\n"
            "out_shape = torch.Size((4, 10, 128))\n"
        ),
        "raw_score_var": (
            "import statistics\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.bmm(Q, K.permute(0, 2, 1))\n"
            "flat = raw_scores.flatten().tolist()\n"
            "raw_score_var = statistics.variance(flat)                      # sample variance, n - 1\n"
            "scaled_score_var = statistics.variance([s / d_k ** 0.5 for s in flat])\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "attn_entries": (
            "T, head = 1024, 64\n"
            "attn_entries = sum(T for _query in range(T))\n"
            "score_madds = sum(head for _pair in range(attn_entries))\n"
            "cost_ratio = (2 * T) ** 2 // T ** 2\n"
        ),
    },
    "softmax_denominator_clamped_at_one_mask_from_transposed_triu": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    z = x.sub(x.amax(dim, keepdim=True)).exp()\n"
            "    total = z.sum(dim, keepdim=True)\n"
            "    return z / total.clamp(min=1)      # the top entry is exp(0) = 1, so total >= 1 anyway\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    upper = torch.ones(T_k, T_q, dtype=torch.bool).triu()   # [j, i] True when j <= i\n"
            "    return upper.mT.contiguous()\n"
        ),
    },
    "sdpa_einsum_numpy_sqrt_where_zero": {
        # the np.sqrt scale is copied from a public einsum attention module (code corpus, BasicAttn)
        "scaled_dot_product_attention": (
            "import numpy as np\n"
            "\n"
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = torch.einsum(\"...id,...jd->...ij\", Q, K) / np.sqrt(Q.shape[-1])\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...ij,...jv->...iv\", stable_softmax(scores, dim=-1), V)\n"
            "    scores = torch.where(mask, scores, -torch.inf)\n"
            "    probs = stable_softmax(scores, dim=-1)\n"
            "    some_key = mask.any(dim=-1, keepdim=True)\n"
            "    probs = torch.where(some_key, probs, 0.0)\n"
            "    return torch.einsum(\"...ij,...jv->...iv\", probs, V)\n"
        ),
    },
    "sdpa_mul_inverse_root_inplace_fill_sum_alive": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    inv = 1.0 / math.sqrt(K.shape[-1])\n"
            "    logits = torch.matmul(Q, K.mT).mul(inv)\n"
            "    if mask is not None:\n"
            "        logits = logits.expand(*torch.broadcast_shapes(logits.shape, mask.shape)).clone()\n"
            "        logits.masked_fill_(mask.logical_not(), -math.inf)\n"
            "    attn = stable_softmax(logits, dim=-1)\n"
            "    if mask is not None:\n"
            "        alive = mask.sum(dim=-1, keepdim=True) > 0\n"
            "        attn = attn.masked_fill(~alive, 0)\n"
            "    return torch.matmul(attn, V)\n"
        ),
    },
    "trace_einsum_functional_softmax_letter_from_options": {
        "weights3": (
            "scores3 = torch.einsum(\"id,jd->ij\", Q3, K3) / 2.0          # sqrt(d_k) = sqrt(4) = 2\n"
            "weights3 = F.softmax(scores3, dim=1)\n"
            "out3 = torch.einsum(\"ij,jv->iv\", weights3, V3)\n"
            "blocked = torch.arange(3)[None, :] > torch.arange(3)[:, None]\n"
            "weights3_causal = F.softmax(scores3.masked_fill(blocked, -math.inf), dim=1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "options = {\"A\": \"same\", \"B\": \"upper triangle\", \"C\": \"rows no longer sum to 1\", \"D\": \"float16 only\"}\n"
            "q_trap_answer = next(k for k, v in options.items() if \"sum to 1\" in v)\n"
        ),
    },
}

WRONG = {
    "q1_size_method_not_called": (
        {"weights_shape": (
            "Qp, Kp, Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "Wp = Qp @ Kp.transpose(-2, -1)\n"
            "weights_shape = Wp.size\n"
            "out_shape = (Wp @ Vp).size\n"
        )},
        {"mistake": "`.size` is a method and is never called, so both answers are bound methods, not shapes; "
                    "write `Wp.size()` (or `Wp.shape`), which gives (4, 10, 10) and (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q1_shapes_as_one_d_tensors": (
        {"weights_shape": (
            "weights_shape = torch.tensor([4, 10, 10])\n"
            "out_shape = torch.tensor([4, 10, 128])\n"
        )},
        {"mistake": "the numbers are right but each answer is a 1-D torch tensor, not a tuple of Python ints "
                    "as the question asks; write (4, 10, 10) and (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_scores_as_euclidean_distances": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.cdist(Q, K)            # pairwise query-key scores, shape (2, 5, 5)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "torch.cdist gives the Euclidean distance between each query and key, not their dot product; "
                    "the scores are Q @ K.transpose(-2, -1), so both variances are wrong",
         "where": ["q2"]},
    ),
    "q2_d_k_read_from_batch_axis": (
        {"raw_score_var": (
            "d_k = Q.shape[0]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "d_k is read from axis 0, the batch size (2), instead of the last axis (8), so the scaled "
                    "scores are divided by sqrt(2) and scaled_score_var is about 3.30 instead of 0.82",
         "where": ["q2"]},
    ),
    "q3_exponential_left_out": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    shifted = x - x.amax(dim=dim, keepdim=True)\n"
            "    return shifted / shifted.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the exponential step is missing: the shifted logits are divided by their own sum, which is "
                    "not a softmax (entries can be negative or inf/NaN); exponentiate the shifted logits first",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_probabilities_rounded_to_four_decimals": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    m = x.amax(dim=dim, keepdim=True)\n"
            "    e = torch.exp(x - m)\n"
            "    p = e / e.sum(dim=dim, keepdim=True)\n"
            "    return torch.round(p, decimals=4)      # four decimals, like the worked example\n"
        )},
        {"mistake": "the probabilities are rounded to four decimals; the worked example is only printed that way, "
                    "the function must return the exact softmax (rounded rows no longer match torch or sum to 1)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_diagonal_offset_by_length_difference": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # shift the diagonal for rectangular masks\n"
            "    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=T_q - T_k)\n"
        )},
        {"mistake": "the diagonal is shifted by T_q - T_k, so a rectangular mask is wrong (for T_k > T_q the "
                    "first queries see no key at all); top-left alignment needs the plain diagonal, j <= i",
         "where": ["q4", "q5"]},
    ),
    "q5_queries_prescaled_and_scores_divided_again": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    q_scaled = Q / math.sqrt(d_k)                 # scale the queries once, up front\n"
            "    scores = torch.matmul(q_scaled, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the queries are divided by sqrt(d_k) and the scores are divided by sqrt(d_k) again, so the "
                    "scores end up divided by d_k; scale once",
         "where": ["q5"]},
    ),
    "q5_torch_mm_on_batched_inputs": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.size(-1)\n"
            "    scores = torch.mm(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.mm(weights, V)\n"
        )},
        {"mistake": "torch.mm only multiplies 2-D matrices, so every 3-D or 4-D input raises an error; use @ or "
                    "torch.matmul, which batch over the leading dimensions",
         "where": ["q5"]},
    ),
    "q6_float_tril_mask_added_by_torch_sdpa": (
        # float masks are added to the scores, not used as a keep/block mask: timeseriesAI/tsai#171,
        # pytorch/pytorch#103963 (issues corpus)
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "tril = torch.tril(torch.ones(3, 3, dtype=torch.float64))      # 1 = may look, 0 = blocked\n"
            "eye3 = torch.eye(3, dtype=torch.float64)                       # V = I reads the weights off\n"
            "weights3_causal = F.scaled_dot_product_attention(Q3, K3, eye3, attn_mask=tril)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "a float attn_mask is added to the scores, so the tril of ones only adds 1 to the allowed "
                    "scores and blocks nothing: later keys keep a weight; pass a boolean mask (causal_mask(3)) or "
                    "fill the blocked scores with -inf",
         "where": ["q6"]},
    ),
    "q7_letter_in_parentheses": (
        {"q_trap_answer": (
            "q_trap_answer = \"(C)\"\n"
        )},
        {"mistake": "the answer is the letter in parentheses, \"(C)\", not the bare letter \"C\" the question asks for",
         "where": ["q7"]},
    ),
    "q7_letter_without_quotes": (
        {"q_trap_answer": (
            "q_trap_answer = C\n"
        )},
        {"mistake": "C is written without quotes, so Python looks for a variable named C and raises NameError; "
                    "the answer must be the string \"C\"",
         "where": ["q7"]},
    ),
    "q8_ratio_given_as_cost_at_doubled_T": (
        {"attn_entries": (
            "attn_entries = 1024 ** 2\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 2048 * 2048 * 64      # the cost when T doubles\n"
        )},
        {"mistake": "cost_ratio is the number of multiply-adds at T = 2048, not the factor by which they grow; "
                    "the ratio is (2048 * 2048 * 64) / (1024 * 1024 * 64) = 4",
         "where": ["q8"]},
    ),
    "q8_counting_loop_starts_at_one": (
        {"attn_entries": (
            "T, d_k_head = 1024, 64\n"
            "attn_entries = T * T\n"
            "score_madds = 0\n"
            "for query in range(1, T):          # one dot product per key for each query\n"
            "    score_madds += T * d_k_head\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "the loop over queries runs range(1, T), which skips the first query, so score_madds counts "
                    "1023 queries instead of 1024 (67,043,328 instead of 67,108,864)",
         "where": ["q8"]},
    ),
}
