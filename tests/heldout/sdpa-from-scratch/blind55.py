"""Fifty-fifth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind54.py in full (for the format), and only
the variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form;
the first lines of blind53.py's docstring were also seen by accident, nothing of its variants). The lesson
texts were not needed. The grader was not run on this set.

This round draws every mistake from public evidence (student and tutorial code for attention, error reports
in issue trackers, question-and-answer pages), and picks forms the earlier names do not show: one or two
wrong variants for every question. Code shapes: a shape list aliased by plain assignment, so that setting
the output's last axis also changes the weights' shape, and a probe that transposes a 3-D key tensor with
`.T`, which reverses all three axes and makes the product fail (q1); `np.var` called on a torch tensor,
which NumPy hands back to `Tensor.var` with `ddof=`/`axis=` keywords that torch rejects (q2); a softmax
that swaps the masked `-inf` for `-1e9` before the shift (float16 cannot hold -1e9: `masked_fill` raises),
and one that normalises the exponentials with `F.normalize(p=1)` left on its default `dim=1` (q3); a mask
taken from `nn.Transformer.generate_square_subsequent_mask(T_q)`, which is square whatever `T_k` is, and one
whose query positions are counted from 1 so that each query also sees the next key (q4); a softmax axis
hard-coded to `dim=3` as in the 4-D (batch, heads, queries, keys) tutorial code (3-D inputs fail), and
the 3-D unpacking `B, T, C = Q.shape` (4-D inputs fail) (q5); a float `tril` matrix inverted with `~`
(only integer and bool tensors can be), and a hand trace whose softmax uses `exp2` without the log2(e)
factor that the fused kernels fold into their scale (q6); the trap decided by `isclose(...).any()`,
reached for to silence "Boolean value of Tensor with more than one value is ambiguous" (the zeroed upper
triangle matches, so A), and by `verdict is False` on a zero-dim bool tensor, which is never the singleton
False (so A) (q7); the multiply-add count taken from the m*n*p rule with the inner size d_k used twice,
T * d_k * d_k, and the same rule for the ratio (q8).
The correct variants use: a softmax normalised by `F.normalize(..., p=1, dim=dim)` (the dim passed) with the
shift from `amax`; an attention with `K.mT`, a Python-float `d_k ** -0.5`, `torch.where` against a 0-dim
`new_tensor(-inf)` in the scores' dtype and empty rows cleared with `masked_fill`; a mask from
`triu(diagonal=1).logical_not()`; the q6 trace from `tensordot` and `torch.special.softmax`/`log_softmax`;
q1/q2/q8 from empty-tensor shape probes, `torch.var_mean` and bit shifts, and q7 as `"ABCD"[2]`.

Public material used (search tool):
- q1: the Python aliasing pages ("Assigning a list to a new variable doesn't create a copy ... b = a,
  modifying b[0] = 99 also changes a", repovive.com roadmaps/python/lists/copying-lists; pythoncodecrack.com
  "Why is my list changing unexpectedly", on the Stack Overflow question "List changes unexpectedly after
  assignment"); for `.T`: pytorch/pytorch PR #64180 "Deprecate x.T on tensors of dimension other than 0 or 2"
  and the warning quoted in datamol-io/graphium#295, braindecode#446, ML4GW/ml4gw#114 ("The use of `x.T` on
  tensors of dimension other than 2 to reverse their shape is deprecated ... Consider `x.mT`"), and a public
  attention snippet doing `(q @ k.T)/np.sqrt(k.size()[1]) # is this correct?` (code corpus).
- q2: Continvvm/continuum#278 (`np.mean(D, axis=1)` on a torch tensor: "TypeError: mean() received an
  invalid combination of arguments - got (out=NoneType, dtype=NoneType, axis=int)"; fixed by using torch).
- q3: NVIDIA/apex#1052 ("value cannot be converted to type at::Half without overflow: -1e+09" from
  `scores.masked_fill(..., -1e9)`), apex#1105 (-1e10), InternLM/lmdeploy#3152; the PyTorch docs of
  `torch.nn.functional.normalize(input, p=2.0, dim=1, ...)` ("dim ... Default: 1").
- q4: the PyTorch `nn.Transformer.generate_square_subsequent_mask(sz)` helper (square float mask, 0 / -inf),
  and the copies of it in public code (huggingface spaces deepsvg/model/layers/utils.py); the off-by-one
  reading of positions from 1 is the complement of the earlier keys-from-1 variant.
- q5: the "transformer from scratch" SelfAttention class copied in many repositories
  (`energy = torch.einsum("nqhd,nkhd->nhqk", ...)`, `torch.softmax(energy / (self.embed_size ** (1 / 2)),
  dim=3)`, found ten times by exact search), and the nanoGPT lecture `Head.forward` (`B,T,C = x.shape`,
  `wei = q @ k.transpose(-2,-1) * C**-0.5`), also copied in many repositories.
- q6: the nanoGPT-lecture copies that build the triangle as a float `torch.tril(torch.ones(T, T))` and
  compare it (`tril == 0`) before masking (code corpus, e.g. diixo/build-gpt-steps step_09_math.py), where
  `~tril` is the tempting shorthand; torch's own message for it, seen here, "~ (operator.invert) is only
  implemented on integer and Boolean-type tensors"; the Triton fused-attention tutorial and its copies
  (`qk_scale *= 1.44269504  # 1/log(2)` before `tl.math.exp2`, found ten times by exact search).
- q7: the "truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
  answers (Nemotron-CC-Math copy of the Stack Overflow thread; duoke360.com/post/34208 for the PyTorch form
  "Boolean value of Tensor with more than one value is ambiguous"), where `.any()` is the first suggestion;
  PEP 8's "Worse: if greeting is True:" for identity tests against booleans.
- q8: the m*n*p multiply-add rule for an (m x n)(n x p) product, as the notebook states it for T^2 d_k.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5 and q6, whose code may use it; a broken `stable_softmax` may cost q5
and q6, which call it). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the
notebook's formula) on several shapes (softmax on 1-D to 4-D along several axes, negative and positive;
attention on 2-D to 4-D inputs, T_q != T_k, d_v != d_k, no mask, a 2-D causal mask broadcast over the batch,
full-rank random masks with a fully masked query) and dtypes (float64, float32, float16, bfloat16), float16
logits in the thousands, -inf entries and gradients included, with a throwaway script outside the repository;
each variant's notebook was also run top to bottom (all code cells but otter's). The correct ones run without
an error and match full_marks' values; each wrong one differs from the right answer (or raises) where the
notebook's tests look and leaves the other questions' values as full_marks has them. The crashing ones raise
in their own cell (q1 probe, q2 np.var, q6 `~`), and for the square-mask and `B, T, C` variants also in the
unscored comparison cell after q5, which calls `causal_mask(6, 9)` and 4-D inputs.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "softmax_l1_normalize_with_dim_passed_and_amax_shift": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
            "    exps = torch.exp(x - torch.amax(x, dim=dim, keepdim=True))\n"
            "    # every exponential is positive, so the L1 norm along `dim` is their sum (at least 1)\n"
            "    return F.normalize(exps, p=1, dim=dim)\n"
        ),
    },
    "sdpa_mT_power_scale_where_against_typed_scalar_masked_fill_rows": {
        "scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
            "\n"
            "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
            "    \"\"\"\n"
            "    scale = Q.shape[-1] ** -0.5                     # a Python float: no precision lost\n"
            "    scores = (Q @ K.mT) * scale\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    blocked = scores.new_tensor(float(\"-inf\"))      # 0-dim, in the scores' dtype and device\n"
            "    scores = torch.where(mask, scores, blocked)\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    no_key = ~mask.any(dim=-1, keepdim=True)\n"
            "    weights = weights.masked_fill(no_key, 0.0)     # 0/0 rows become rows of zeros\n"
            "    return weights @ V\n"
        ),
    },
    "mask_from_logical_not_of_strict_upper_triangle": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
            "    T_k = T_q if T_k is None else T_k\n"
            "    future = torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=1)   # j > i\n"
            "    return future.logical_not()\n"
        ),
    },
    "trace_tensordot_special_softmax_and_log_softmax": {
        "weights3": (
            "scores3 = torch.tensordot(Q3, K3, dims=([1], [1])) / 2.0      # (3, 3): query by key\n"
            "weights3 = torch.special.softmax(scores3, dim=1)\n"
            "out3 = torch.tensordot(weights3, V3, dims=1)\n"
            "_blocked = torch.where(causal_mask(3), scores3, torch.tensor(float(\"-inf\"), dtype=torch.float64))\n"
            "weights3_causal = torch.special.log_softmax(_blocked, dim=1).exp()\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
    },
    "shapes_from_probes_var_mean_shifted_counts_letter_indexed": {
        "weights_shape": (
            "_q, _k, _v = torch.empty(4, 10, 64), torch.empty(4, 10, 64), torch.empty(4, 10, 128)\n"
            "_w = _q @ _k.mT\n"
            "weights_shape = tuple(int(n) for n in _w.shape)\n"
            "out_shape = tuple(int(n) for n in (_w @ _v).shape)\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.matmul(Q, K.mT)\n"
            "raw_score_var = float(torch.var_mean(raw_scores)[0])\n"
            "scaled_score_var = float(torch.var_mean(raw_scores / math.sqrt(d_k))[0])\n"
            "scale_divisor = 64 ** 0.5\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "q_trap_answer": (
            "q_trap_answer = \"ABCD\"[2]     # zeroing after the softmax leaves rows that sum to less than 1\n"
        ),
        "attn_entries": (
            "attn_entries = 1 << 20                      # (2**10)**2\n"
            "score_madds = attn_entries << 6             # times d_k = 2**6\n"
            "cost_ratio = ((2048 ** 2) << 6) // score_madds\n"
        ),
    },
}

_SOFTMAX_DOC = "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
_MASK_DOC = "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)
_TRAP_SETUP = (
    "_g = torch.Generator().manual_seed(0)\n"
    "_scores = torch.randn(4, 4, generator=_g, dtype=torch.float64)\n"
    "_mask = causal_mask(4)\n"
    "_right = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
    "_short = F.softmax(_scores, dim=-1)\n"
    "_short[~_mask] = 0.0                      # the classmate's shortcut\n"
)

WRONG = {
    "q1_out_shape_list_aliases_the_weights_list": (
        {"weights_shape": (
            "_shape = [4, 10, 10]               # (batch, queries, keys)\n"
            "weights_shape = _shape\n"
            "out_shape = weights_shape          # same batch and queries ...\n"
            "out_shape[-1] = 128                # ... but one value vector of width d_v per query\n"
            "weights_shape, out_shape = tuple(weights_shape), tuple(out_shape)\n"
        )},
        {"mistake": "`out_shape = weights_shape` does not copy the list, both names are the same list, so "
                    "setting its last entry to 128 also changes the weights' shape: weights_shape comes out "
                    "(4, 10, 128) instead of (4, 10, 10) (copy with list(...) or write both tuples)",
         "where": ["q1"]},
    ),
    "q1_probe_transposes_3d_keys_with_dot_T": (
        {"weights_shape": (
            "_Q = torch.zeros(4, 10, 64)\n"
            "_K = torch.zeros(4, 10, 64)\n"
            "_V = torch.zeros(4, 10, 128)\n"
            "_w = _Q @ _K.T                      # Q K^T\n"
            "weights_shape = tuple(_w.shape)\n"
            "out_shape = tuple((_w @ _V).shape)\n"
        )},
        {"mistake": "on a 3-D tensor `.T` reverses all three axes, (4, 10, 64) -> (64, 10, 4), instead of "
                    "swapping the last two, so Q @ K.T does not line up and raises; batched keys are "
                    "transposed with K.transpose(-2, -1) or K.mT",
         "where": ["q1"]},
    ),
    "q2_np_var_called_on_the_torch_tensor": (
        {"raw_score_var": (
            "import numpy as np\n"
            "\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = float(np.var(raw_scores, ddof=1))          # unbiased, like torch's .var()\n"
            "scaled_score_var = float(np.var(raw_scores / math.sqrt(d_k), ddof=1))\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "np.var on a torch tensor does not convert it: NumPy calls the tensor's own .var(axis=..., "
                    "dtype=..., out=..., ddof=...), whose keywords torch does not accept, so it raises a "
                    "TypeError; use raw_scores.var() (or np.var(raw_scores.numpy(), ddof=1))",
         "where": ["q2"]},
    ),
    "q3_masked_minus_inf_swapped_for_minus_1e9_overflows_float16": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    x = x.masked_fill(torch.isneginf(x), -1e9)    # keep the max finite even if a slice is all -inf\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "-1e9 is far outside float16's range (largest finite 65504), so masked_fill raises "
                    "'value cannot be converted to type at::Half without overflow' on every float16 input; "
                    "the -inf entries need no replacing, exp(-inf - max) is already 0",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_exponentials_l1_normalised_with_f_normalize_on_its_default_dim": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    exps = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
            "    return F.normalize(exps, p=1)          # divide by the L1 norm, i.e. the sum of the exps\n"
        )},
        {"mistake": "F.normalize reduces over its own dim argument, which defaults to 1, not over `dim`: the "
                    "exponentials are divided by their sum along axis 1, so for 3-D or 4-D scores with "
                    "dim=-1 (or any dim other than 1) the slices along `dim` do not sum to 1",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_square_subsequent_mask_helper_ignores_t_k": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    bias = torch.nn.Transformer.generate_square_subsequent_mask(T_q)   # 0 on/below, -inf above\n"
            "    return bias == 0\n"
        )},
        {"mistake": "nn.Transformer.generate_square_subsequent_mask only makes square (T_q, T_q) masks, so "
                    "when T_k differs from T_q the mask has the wrong shape; the mask must be (T_q, T_k)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q4_query_positions_counted_from_one": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows = torch.arange(1, T_q + 1).unsqueeze(1)   # query positions 1..T_q\n"
            "    cols = torch.arange(T_k).unsqueeze(0)          # key positions\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "the queries are numbered from 1 but the keys from 0, so query i is allowed keys j <= i + 1 "
                    "and sees one future key; both positions must start at 0 (j <= i)",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_softmax_axis_hard_coded_to_3_from_4d_tutorial_code": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=3)    # (batch, heads, query_len, key_len): over the keys\n"
            "    if mask is not None:\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the softmax axis is hard-coded to 3, the key axis of 4-D (batch, heads, queries, keys) "
                    "scores only: 3-D inputs raise (there is no axis 3) and other ranks normalise the wrong "
                    "axis; the keys are always the last axis, dim=-1",
         "where": ["q5"]},
    ),
    "q5_queries_unpacked_as_b_t_c_three_d_only": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    B, T, C = Q.shape\n"
            "    scores = Q @ K.transpose(-2, -1) * C ** -0.5\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return weights @ V\n"
        )},
        {"mistake": "`B, T, C = Q.shape` only works for exactly three axes: 4-D inputs (batch, heads, ...) "
                    "raise 'too many values to unpack'; the leading axes are arbitrary, so take d_k as "
                    "Q.shape[-1]",
         "where": ["q5"]},
    ),
    "q6_float_tril_matrix_inverted_with_tilde": (
        {"weights3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "_tril = torch.tril(torch.ones(3, 3))              # 1 on and below the diagonal\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~_tril, float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "torch.ones gives a float triangle, and ~ is only defined for integer and bool tensors, so "
                    "~_tril raises (masked_fill needs a bool mask anyway); use ~causal_mask(3) or _tril == 0, "
                    "so weights3_causal is never computed",
         "where": ["q6"]},
    ),
    "q6_trace_softmax_in_base_two_without_the_log2e_factor": (
        {"weights3": (
            "def _softmax2(s):\n"
            "    p = torch.exp2(s - s.amax(dim=-1, keepdim=True))   # exp2, as the fused attention kernels do\n"
            "    return p / p.sum(dim=-1, keepdim=True)\n"
            "\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "weights3 = _softmax2(scores3)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = _softmax2(scores3.masked_fill(~causal_mask(3), float(\"-inf\")))\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "2**s is not e**s: normalising powers of two is the softmax of s * ln 2, which is flatter; "
                    "the kernels that use exp2 first multiply the scores by log2(e) = 1.4427, which is left out "
                    "here, so weights3, out3 and the causal rows with two or more keys are wrong",
         "where": ["q6"]},
    ),
    "q7_ambiguous_truth_value_silenced_with_any": (
        {"q_trap_answer": (
            _TRAP_SETUP +
            "# `if torch.isclose(_short, _right):` raised 'Boolean value of Tensor with more than one value\n"
            "# is ambiguous', so:\n"
            "q_trap_answer = \"A\" if torch.isclose(_short, _right).any() else \"C\"\n"
        )},
        {"mistake": ".any() is True as soon as one entry matches, and the zeroed upper triangle always "
                    "matches, so the check says A; the two ways agree only if every entry does (.all()), and "
                    "they do not: the shortened rows sum to less than 1 (C)",
         "where": ["q7"]},
    ),
    "q7_tensor_verdict_compared_with_is_false": (
        {"q_trap_answer": (
            _TRAP_SETUP +
            "_same = torch.isclose(_short, _right).all()       # tensor(False)\n"
            "q_trap_answer = \"C\" if _same is False else \"A\"\n"
        )},
        {"mistake": "`_same is False` tests identity with the bool singleton, and a zero-dim tensor is never that "
                    "object, so the test is always False and the answer is A although the check found a "
                    "difference; use `not _same` or `.item()`: the answer is C",
         "where": ["q7"]},
    ),
    "q8_madds_from_the_m_n_p_rule_with_the_inner_size_used_twice": (
        {"attn_entries": (
            "_T, _dk = 1024, 64\n"
            "\n"
            "def _madds(T):\n"
            "    # (m x n) @ (n x p) costs m * n * p multiply-adds; Q is (T x d_k), K.T is (d_k x T)\n"
            "    return T * _dk * _dk\n"
            "\n"
            "attn_entries = _T * _T\n"
            "score_madds = _madds(_T)\n"
            "cost_ratio = _madds(2 * _T) // _madds(_T)\n"
        )},
        {"mistake": "with m = T, n = d_k, p = T the rule gives T * d_k * T = T**2 d_k = 67108864; taking n twice "
                    "(T * d_k * d_k = 4194304) makes the cost linear in T, so the ratio comes out 2 instead of 4",
         "where": ["q8"]},
    ),
}
