"""Forty-second blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook (as they
stand in `full_marks.ipynb`, whose cells these replace), `harness.py`, blind41.py in full (for the format),
and only the module docstrings and variant names of the earlier blind sets (so that their mistakes are not
repeated in the same form). Lesson 80 was not read for this round. The grader was not run on this set.

This round leans on the questions earlier sets touched least (q7, q1, q8, q2, q6, q4: three variants for q7,
two each for q1, q2, q6, q8) and on code shapes they used little: a shape probe made with `np.dot`, which is not
batched on 3-D arrays, and one made with `torch.einsum` in implicit mode (no `->`), which sums the
repeated batch letter away (q1); scores computed in bfloat16 "to save memory", and the divisor typed as a
string (q2); the classic NumPy softmax whose denominator is summed over axis 0 whatever `dim` is (q3); a
causal mask taken from an ALiBi-style distance matrix `(i - j).clamp(min=0)` cast to bool, which drops the
diagonal (q4); a mask reshaped with `view_as(scores)` instead of broadcast (q5); a TensorFlow-tutorial
penalty `scores + mask * -1e9` fed this notebook's keep-mask, and a mask given an extra axis so the
causal weights come out 3 x 3 x 3 (q6); `"c".upper` without the call, the letter given as `ord("C")`, and the trap "checked" on a one-token
sequence where nothing is masked (q7); multiply-adds read off `FlopCounterMode` (2 FLOPs per multiply-add),
and `numel` without the call (q8). The correct variants use `np.matmul` probes, `np.var(ddof=1)` and
`var / d_k`, a softmax that swaps `dim` with the last axis by `transpose` (its own inverse) and a mask from
`eye(...).cumsum(0)`, an attention in `einsum` with `torch.where` whose fully masked rows are cleaned by
`weights.masked_fill(~mask, 0)` after the softmax, a trace done with `F.scaled_dot_product_attention`
outside the graded function (V = identity) with the letter from `chr`, and `torch.Size` / `np.tri` /
`math.prod` / underscore literals.

Public material used (search tool): code corpus: the NumPy softmax with `e_x / e_x.sum(axis=0)` in
Priyanshu-pg/Program-Synthesis-using-PG `venv/utils.py`, orris27/deeplearning-simple-implementation
`utils.py` and yas-sim/openvino-llm-minimal-code `misc.py` (behind the q3 variant); the ALiBi distance
matrix `positions.unsqueeze(0) - positions.unsqueeze(1)` in lpkphd/mosaic-gpt `mosaic/position/alibi.py`
and the `alibi_biases` helpers found next to it (behind the q4 variant). Issues corpus: pytorch/pytorch#144001
("torch.utils.flop_counter.FlopCounterMode": it counts a multiply and an add as two FLOPs, 2*M*K*N for a
matmul) and facebookresearch/fvcore#69 / #108 (FLOP vs MAC confusion), behind the q8 FlopCounterMode
variant. The other slips are ones plausible for students of this notebook (NumPy's `np.dot` on 3-D arrays,
einsum's implicit mode, the TensorFlow tutorial's `mask * -1e9` convention, a method left uncalled).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` also costs q5 and q6, whose code calls it; a broken `causal_mask` also costs q5 and
q6). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the
notebook's formula) on several shapes and dtypes (float64, float32, float16, bfloat16), including the
notebook's own, with a throwaway script outside the repository.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "numpy_matmul_probe_shapes_np_var_ddof_one_variance_over_d_k": {
        "weights_shape": (
            "import numpy as np\n"
            "\n"
            "_w = np.matmul(np.zeros((4, 10, 64)), np.zeros((4, 10, 64)).transpose(0, 2, 1))\n"
            "weights_shape = tuple(int(n) for n in _w.shape)\n"
            "out_shape = tuple(int(n) for n in np.matmul(_w, np.zeros((4, 10, 128))).shape)\n"
        ),
        "raw_score_var": (
            "import numpy as np\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.einsum(\"bqd,bkd->bqk\", Q, K)\n"
            "raw_score_var = float(np.var(raw_scores.numpy(), ddof=1))\n"
            "scaled_score_var = raw_score_var / d_k          # Var(x / c) = Var(x) / c**2, c**2 = d_k\n"
            "scale_divisor = float(np.sqrt(64))\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
    },
    "softmax_transpose_to_last_axis_and_back_mask_from_eye_cumsum": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    z = x.transpose(dim, -1)                       # swapping two axes is its own inverse\n"
            "    z = z - torch.max(z, -1, keepdim=True).values\n"
            "    e = z.exp()\n"
            "    p = e / e.sum(-1, keepdim=True)\n"
            "    return p.transpose(dim, -1)\n"
        ),
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    # running sum down the rows of the identity: [i, j] = 1 once row i has reached column j\n"
            "    return torch.eye(T_q, T_k).cumsum(dim=0) > 0\n"
        ),
    },
    "sdpa_einsum_where_nan_rows_cleared_by_masked_fill_of_blocked_weights": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) / Q.shape[-1] ** 0.5\n"
            "    if mask is None:\n"
            "        return torch.einsum(\"...qk,...kd->...qd\", stable_softmax(scores, dim=-1), V)\n"
            "    scores = torch.where(mask, scores, torch.full_like(scores, -math.inf))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    # every blocked weight is 0 anyway; a query with no key has only blocked (NaN) weights\n"
            "    weights = weights.masked_fill(~mask, 0.0)\n"
            "    return torch.einsum(\"...qk,...kd->...qd\", weights, V)\n"
        ),
    },
    "trace_with_torch_sdpa_on_identity_values_letter_from_chr": {
        "weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "_I3 = torch.eye(3, dtype=torch.float64)\n"
            "# with V = I the attention output is the weight matrix itself\n"
            "weights3 = F.scaled_dot_product_attention(Q3, K3, _I3)\n"
            "out3 = torch.linalg.matmul(weights3, V3)\n"
            "weights3_causal = F.scaled_dot_product_attention(Q3, K3, _I3, is_causal=True)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = chr(ord(\"A\") + 2)     # A, B, C: the third option\n"
        ),
    },
    "torch_size_shapes_np_tri_mask_math_prod_costs": {
        "weights_shape": (
            "weights_shape = torch.Size([4, 10, 10])     # torch.Size is a tuple of ints\n"
            "out_shape = torch.Size([4, 10, 128])\n"
        ),
        "causal_mask": (
            "import numpy as np\n"
            "\n"
            "\n"
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    return torch.from_numpy(np.tri(T_q, T_k, dtype=bool))\n"
        ),
        "attn_entries": (
            "attn_entries = 1_024 * 1_024\n"
            "score_madds = math.prod([1_024, 1_024, 64])\n"
            "cost_ratio = math.prod([2_048, 2_048, 64]) // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_probe_made_with_numpy_dot_on_3d_arrays": (
        {"weights_shape": (
            "import numpy as np\n"
            "\n"
            "_q = np.zeros((4, 10, 64))\n"
            "_w = np.dot(_q, _q.transpose(0, 2, 1))          # Q K^T\n"
            "weights_shape = tuple(int(n) for n in _w.shape)\n"
            "out_shape = (4, 10, 128)\n"
        )},
        {"mistake": "np.dot is not a batched matrix product on 3-D arrays: it pairs every batch entry of Q with "
                    "every batch entry of K, so the probe has shape (4, 10, 4, 10) and weights_shape gets four "
                    "entries instead of (4, 10, 10); np.matmul or @ keeps the batch axis",
         "where": ["q1"]},
    ),
    "q1_einsum_probe_in_implicit_mode_sums_the_batch": (
        {"weights_shape": (
            "_q, _v = torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
            "weights_shape = tuple(torch.einsum(\"bqd,bkd\", _q, _q).shape)\n"
            "out_shape = tuple(torch.einsum(\"bqk,bkv\", torch.zeros(4, 10, 10), _v).shape)\n"
        )},
        {"mistake": "the einsum probes have no '->': in implicit mode every letter that appears twice (the batch "
                    "b as well as d or k) is summed over, so the batch axis disappears and the shapes come out "
                    "as (10, 10) and (10, 128) instead of (4, 10, 10) and (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_scores_computed_in_bfloat16": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "# half-width floats are plenty for a variance, and save memory\n"
            "raw_scores = Q.bfloat16() @ K.bfloat16().transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the scores and their variance are computed in bfloat16, which keeps only about 3 significant "
                    "digits: raw_score_var comes out 6.59375 instead of 6.5991 (off in the third decimal); the "
                    "example's float32 tensors should be used as they are",
         "where": ["q2"]},
    ),
    "q2_divisor_typed_as_a_string": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = \"8.0\"      # sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "scale_divisor is the string \"8.0\", not the number 8.0: the question asks for a float",
         "where": ["q2"]},
    ),
    "q3_numpy_softmax_denominator_summed_over_axis_0": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    e_x = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
            "    return e_x / e_x.sum(dim=0, keepdim=True)       # as in the NumPy softmax: e_x / e_x.sum(axis=0)\n"
        )},
        {"mistake": "the denominator is summed over axis 0 whatever dim is (copied from the NumPy e_x / "
                    "e_x.sum(axis=0) softmax): right for 1-D inputs and for dim=0, but for a matrix with dim=-1 "
                    "each entry is divided by its column sum, so the rows do not sum to 1",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_alibi_distance_clamped_then_cast_to_bool": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    # how far back key j lies from query i (ALiBi-style distance); future keys clamp to 0\n"
            "    dist = (torch.arange(T_q)[:, None] - torch.arange(T_k)[None, :]).clamp(min=0)\n"
            "    return dist.bool()\n"
        )},
        {"mistake": "the distance i - j is 0 on the diagonal as well as for the clamped future keys, so casting it "
                    "to bool also blocks j == i: each query cannot see itself and query 0 sees no key at all "
                    "(a strictly lower-triangular mask)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_mask_reshaped_with_view_as_scores": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"\n"
            "    d_k = Q.shape[-1]\n"
            "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        mask = mask.view_as(scores)                        # make the mask the scores' shape\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "the mask is reshaped with view_as(scores) instead of being broadcast: a 2-D (T_q, T_k) mask "
                    "used with batched 3-D or 4-D inputs (or any mask with size-1 axes) does not have as many "
                    "elements as the scores, and the call fails",
         "where": ["q5"]},
    ),
    "q6_tensorflow_penalty_given_the_keep_mask": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "# as in the TensorFlow tutorial: logits += mask * -1e9\n"
            "weights3_causal = stable_softmax(scores3 + causal_mask(3).double() * -1e9, dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the TensorFlow tutorial's mask is 1 for the keys to HIDE, but causal_mask is True for the keys "
                    "a query MAY see; pushing it down by 1e9 hides the past and the present and keeps the future "
                    "keys (the weights sit in the upper triangle, and query 2 gets the unmasked weights)",
         "where": ["q6"]},
    ),
    "q6_mask_given_an_extra_axis": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_keep = causal_mask(3)[:, None]                   # one row of the mask per query\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~_keep, float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the mask gets an extra axis ([:, None] makes it (3, 1, 3)), so masked_fill broadcasts the "
                    "(3, 3) scores against it and weights3_causal is a (3, 3, 3) stack (every mask row applied "
                    "to every query), not the (3, 3) causal weights",
         "where": ["q6"]},
    ),
    "q7_upper_method_not_called": (
        {"q_trap_answer": (
            "q_trap_answer = \"c\".upper\n"
        )},
        {"mistake": "the method is not called: \"c\".upper (no parentheses) is the bound method str.upper, not "
                    "the string \"C\"",
         "where": ["q7"]},
    ),
    "q7_trap_checked_on_a_one_token_sequence": (
        {"q_trap_answer": (
            "# try the classmate's shortcut on a small example\n"
            "_s = torch.randn(1, 1)\n"
            "_v = torch.randn(1, 3)\n"
            "_w = F.softmax(_s, dim=-1)\n"
            "_w[~causal_mask(1)] = 0.0\n"
            "_right = F.softmax(_s.masked_fill(~causal_mask(1), float(\"-inf\")), dim=-1)\n"
            "q_trap_answer = \"A\" if torch.allclose(_w @ _v, _right @ _v) else \"C\"\n"
        )},
        {"mistake": "the shortcut is tried on a one-token sequence, where the causal mask hides nothing, so the two "
                    "methods agree and the cell answers A; with two or more tokens the zeroed rows no longer sum "
                    "to 1 and the answer is C",
         "where": ["q7"]},
    ),
    "q8_madds_read_off_flop_counter": (
        {"attn_entries": (
            "from torch.utils.flop_counter import FlopCounterMode\n"
            "\n"
            "attn_entries = 1024 * 1024\n"
            "with FlopCounterMode(display=False) as _counter:\n"
            "    torch.zeros(1024, 64) @ torch.zeros(64, 1024)\n"
            "score_madds = _counter.get_total_flops()\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "FlopCounterMode counts FLOPs, a multiply and an add as two, so it reports 2 * T^2 * d_k = "
                    "134217728; the number of multiply-adds is half that, T^2 * d_k = 67108864",
         "where": ["q8"]},
    ),
    "q8_numel_method_not_called": (
        {"attn_entries": (
            "attn_entries = torch.zeros(1024, 1024).numel\n"
            "score_madds = 1024 * 1024 * 64\n"
            "cost_ratio = 4\n"
        )},
        {"mistake": "numel is not called: attn_entries is the bound method Tensor.numel, not the count 1048576 "
                    "(torch.zeros(1024, 1024).numel() is)",
         "where": ["q8"]},
    ),
    "q7_letter_given_as_its_character_code": (
        {"q_trap_answer": (
            "q_trap_answer = ord(\"C\")\n"
        )},
        {"mistake": "ord(\"C\") is the character code 67, an int; the answer should be the letter \"C\" as a "
                    "string",
         "where": ["q7"]},
    ),
}
