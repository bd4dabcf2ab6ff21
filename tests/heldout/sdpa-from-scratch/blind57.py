"""Fifty-seventh blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind56.py in full (for the format), and only
the variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form).
The lesson texts were not needed. The grader was not run on this set.

This round's focus: slips rather than misconceptions, the kind a tired student makes with the right idea in
mind. Code shapes: a shape helper whose third unpacking line was copied from the keys' line and still reads
`k_shape` (q1); `Q @ K.T` carried over from 2-D habit onto the batched (2, 5, 8) keys, and a raw-variance
line copied from the scaled one whose right-hand side still reads `scaled_scores` (q2); `torch.div` given the
denominator first, and exponentials "upcast" with `.float()`, which demotes float64 (q3); `T_k == T_q` typed
for `T_k = T_q`, a statement with no effect, so the default is never filled in (q4); a `scale=` keyword whose
default `1 / math.sqrt(d_k)` is evaluated once, at `def` time, from the notebook's global d_k = 8,
`K.transpose(-1, -1)` with the -2 left unchanged, and a debugging `return weights` left in the unmasked
branch (q5); the output mixed with the batched example's `V` instead of `V3`, and a causal-rows helper
whose `return` is indented into its row loop (q6); a trap check that indexes with `mask`, the loop variable
left over from the comparison cell, instead of its own `_mask`, and one that masks the scores with
`masked_fill_` (in place) before the shortcut is tried on them (q7); the sequence length doubled in place
for the ratio before `score_madds` is counted from it (q8).
The correct variants are the fixed forms of several of these: a softmax with `torch.max`'s tuple and
`torch.div(exps, sums)` in the right order; a mask from `torch.ge` of viewed positions; an attention with
`K.transpose(-1, -2)` and empty rows cleared by `masked_fill`; an attention that computes half types in
float32 via `torch.promote_types` (float64 stays float64) and casts back; and q1/q2/q6/q7/q8 from a shape
helper that unpacks the right tuple, separate raw/scaled lines, a causal-rows helper that returns after its
loop, a trap check on its own `_mask` with an out-of-place `masked_fill`, and costs counted before the
doubling.

Public material used (search tool):
- q1, q2 (copied-line slips): Eli Bendersky, "The scope of index variables in Python's for loops"
  (eli.thegreenplace.net/2015/...): the quiz whose second loop multiplies by `i` where `t` was meant, "the bug
  here is often tricky to spot"; the same one-name-left-unchanged shape is used for `k_shape`/`v_shape` and
  `scaled_scores`/`raw_scores`.
- q2: pytorch/pytorch PR #64180 ("Deprecate x.T on tensors of dimension other than 0 or 2") and the issues
  that quote its warning (datamol-io/graphium#295, tud-amr/mppi-isaac#57: "Consider `x.mT` to transpose batches
  of matrices"); 2-D attention snippets written `scores = x @ x.T / math.sqrt(2)` (niujiazhen/happy-llm
  docs/chapter2/code/maskSelfAttention.py). Seen here: on (2, 5, 8) keys `.T` gives (8, 5, 2) and the product
  raises "The size of tensor a (2) must match the size of tensor b (8) at non-singleton dimension 0".
- q3: huggingface/transformers#27341 ("should `softmax` be upcasted to `.float()`?") and #30186 ("Why cast to
  float32 in this line?"), tinygrad PR #8684 ("move softmax upcast to after subtracting max"): the
  half-precision habit of `.float()` then `.to(dtype)`, which for a float64 input is a downcast.
- q4: ruff's useless-comparison (B015, from flake8-bugbear) page: "Useless comparisons have no effect on the
  program, and are often included by mistake" (`foo == bar` as a statement).
- q5: the Python reference on function definitions, quoted in bugs.python.org/issue8762: "Default parameter
  values are evaluated when the function definition is executed ... the same 'pre-computed' value is used for
  each call"; attention code that reads `d_k` from outside the function (pranavmahabs/dnabert-enhancer
  model/transformer.py and CloudClub-uoft/Title-Generator scaled_dot_attention.py pass `d_k` in separately
  from q, k); the `key.transpose(-2, -1)` idiom of the Annotated Transformer copies listed by the search.
- q6, q7: Effective Python item 20 ("Never use for loop variables after the loop ends"; notes at
  flempriere.github.io/EffectivePython) and riptutorial's "Variable leaking in list comprehensions and for
  loops": the comparison cell's `for label, mask in ...` leaves `mask = causal_mask(6, 9)` behind; the
  codeguage.com for-loop chapter on `return` inside a `for` body ending the function on the first pass.
- q8: the same statement-order slip as q2's copied line, with the length reused after `T *= 2`.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5 and q6; a broken `stable_softmax` may cost q5 and q6, whose trace
calls it). Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository: softmax
against `torch.softmax` in float64 on 1-D to 4-D inputs along every positive and negative axis, float16
logits in the thousands with -inf entries; masks against `torch.ones(T_q, T_k).tril().bool()` for square and
rectangular sizes, with and without T_k; attention against `F.scaled_dot_product_attention` in float64 (fully
masked rows set to zero) on 3-D and 4-D inputs with T_q != T_k and d_v != d_k, d_k in {8, 16, 64}, no mask, a
causal mask and a random mask with a fully masked query, float16 inputs with large scores, and gradients;
all in float64, float32, float16 and bfloat16 on the CPU (no GPU was used). Each variant's notebook was also
run top to bottom (all code cells but otter's). The correct ones run without an error and match
full_marks' values; each wrong one differs from the right answer (or raises) where the notebook's tests look,
and only in its "where". The crashing ones raise in their own cell (q2 `.T`, q6 `V`, q7 `mask`), or on use
(q4 without T_k, which also stops the q6 cell; q5's `transpose(-1, -1)` whenever T_k != d_k); the debugging
return also breaks the unscored comparison cell after q5.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_SOFTMAX_DOC = "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
_MASK_DOC = "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
_SDPA_DOC = (
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)
_SDPA_HEAD = "def scaled_dot_product_attention(Q, K, V, mask=None):\n" + _SDPA_DOC
_TRAP_SETUP = (
    "_g = torch.Generator().manual_seed(0)\n"
    "_scores = torch.randn(4, 4, generator=_g, dtype=torch.float64)\n"
    "_mask = causal_mask(4)\n"
)
_TRACE_HEAD = (
    "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
    "weights3 = stable_softmax(scores3, dim=-1)\n"
)

CORRECT = {
    "softmax_torch_max_tuple_and_torch_div_numerator_first": {
        "stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    m, _ = torch.max(x, dim=dim, keepdim=True)          # (values, indices)\n"
            "    exps = torch.exp(torch.sub(x, m))\n"
            "    return torch.div(exps, torch.sum(exps, dim=dim, keepdim=True))   # numerator first\n"
        ),
    },
    "mask_from_torch_ge_of_viewed_positions": {
        "causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    T_k = T_q if T_k is None else T_k\n"
            "    q_pos = torch.arange(T_q).view(-1, 1)      # a column of query positions\n"
            "    k_pos = torch.arange(T_k).view(1, -1)      # a row of key positions\n"
            "    return torch.ge(q_pos, k_pos)              # i >= j\n"
        ),
    },
    "sdpa_transpose_minus_one_minus_two_empty_rows_cleared_by_masked_fill": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = K.shape[-1]\n"
            "    scores = Q @ K.transpose(-1, -2) / math.sqrt(d_k)\n"
            "    if mask is None:\n"
            "        return stable_softmax(scores, dim=-1) @ V\n"
            "    scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    no_key = ~mask.any(dim=-1, keepdim=True)      # queries that may see nothing\n"
            "    weights = weights.masked_fill(no_key, 0.0)    # their NaN rows become zeros\n"
            "    return weights @ V\n"
        ),
    },
    "sdpa_half_types_in_float32_via_promote_types_then_cast_back": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    out_dtype = Q.dtype\n"
            "    work = torch.promote_types(Q.dtype, torch.float32)   # float16/bfloat16 -> float32, float64 stays\n"
            "    q, k, v = Q.to(work), K.to(work), V.to(work)\n"
            "    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = stable_softmax(scores, dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    return torch.matmul(weights, v).to(out_dtype)\n"
        ),
    },
    "helpers_unpack_the_right_tuples_costs_counted_before_the_doubling": {
        "weights_shape": (
            "def _attention_shapes(q_shape, k_shape, v_shape):\n"
            "    B, T_q, d_k = q_shape\n"
            "    B, T_k, d_k = k_shape\n"
            "    B, T_k, d_v = v_shape          # one value per key, of width d_v\n"
            "    return (B, T_q, T_k), (B, T_q, d_v)\n"
            "\n"
            "weights_shape, out_shape = _attention_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))\n"
        ),
        "raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.mT                       # batched transpose of the last two axes\n"
            "scaled_scores = raw_scores / math.sqrt(d_k)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = scaled_scores.var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        ),
        "weights3": (
            _TRACE_HEAD +
            "out3 = weights3 @ V3\n"
            "\n"
            "def _causal_rows(scores):\n"
            "    \"\"\"Row i: softmax over keys 0..i, zeros after.\"\"\"\n"
            "    rows = torch.zeros_like(scores)\n"
            "    for i in range(scores.shape[0]):\n"
            "        rows[i, : i + 1] = stable_softmax(scores[i, : i + 1], dim=-1)\n"
            "    return rows\n"
            "\n"
            "weights3_causal = _causal_rows(scores3)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        ),
        "q_trap_answer": (
            _TRAP_SETUP +
            "_right = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
            "_short = F.softmax(_scores, dim=-1)          # the classmate's lines\n"
            "_short[~_mask] = 0.0\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
        ),
        "attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = T ** 2\n"
            "score_madds = T ** 2 * d_head\n"
            "T *= 2                                       # now the doubled length\n"
            "cost_ratio = (T ** 2 * d_head) // score_madds\n"
        ),
    },
}

WRONG = {
    "q1_value_width_unpacked_from_the_keys_shape_in_a_copied_line": (
        {"weights_shape": (
            "def _attention_shapes(q_shape, k_shape, v_shape):\n"
            "    B, T_q, d_k = q_shape\n"
            "    B, T_k, d_k = k_shape\n"
            "    B, T_k, d_v = k_shape          # one value per key, of width d_v\n"
            "    return (B, T_q, T_k), (B, T_q, d_v)\n"
            "\n"
            "weights_shape, out_shape = _attention_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))\n"
        )},
        {"mistake": "the line that unpacks the values' shape was copied from the keys' line and still reads "
                    "k_shape, so d_v is taken as 64 (the keys' width) and out_shape comes out (4, 10, 64) "
                    "instead of (4, 10, 128); weights_shape is right",
         "where": ["q1"]},
    ),
    "q2_keys_transposed_with_dot_t_on_the_batched_tensor": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.T                          # scores = q @ k.T\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "K is the batched (2, 5, 8) tensor, and .T on a 3-D tensor reverses all its axes (8, 5, 2) "
                    "instead of swapping the last two, so the product raises 'The size of tensor a (2) must "
                    "match the size of tensor b (8)' and none of the three answers is set; it needs "
                    "K.transpose(-2, -1) (or K.mT)",
         "where": ["q2"]},
    ),
    "q2_raw_variance_line_copied_from_the_scaled_one_reads_scaled_scores": (
        {"raw_score_var": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "scaled_scores = raw_scores / math.sqrt(d_k)\n"
            "raw_score_var = scaled_scores.var().item()\n"
            "scaled_score_var = scaled_scores.var().item()\n"
            "scale_divisor = math.sqrt(64)\n"
            "print(raw_score_var, scaled_score_var, scale_divisor)\n"
        )},
        {"mistake": "the raw-variance line is a copy of the scaled one with only the name on the left "
                    "changed: it still takes the variance of scaled_scores, so raw_score_var equals "
                    "scaled_score_var (about 1) instead of d_k = 8 times it; scaled_score_var and "
                    "scale_divisor are right",
         "where": ["q2"]},
    ),
    "q3_torch_div_given_the_sum_first_inverts_every_weight": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return torch.div(exps.sum(dim=dim, keepdim=True), exps)   # divide by the sum\n"
        )},
        {"mistake": "torch.div(a, b) is a / b, and the arguments are swapped: the function returns sum / "
                    "exp(x_j), the reciprocal of each weight (values of 1 and more whose slices do not sum "
                    "to 1, and inf where an entry is -inf) instead of exp(x_j) / sum",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_exponentials_upcast_with_float_demote_float64": (
        {"stable_softmax": (
            "def stable_softmax(x, dim=-1):\n"
            + _SOFTMAX_DOC +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted.float()).to(x.dtype)     # exp in float32 for float16 safety\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": ".float() is float32 whatever the input, so for a float64 input it is a downcast: the "
                    "exponentials carry float32 rounding (relative errors near 1e-7) and the float64 softmax "
                    "is only float32-accurate although it comes back float64; the upcast must keep float64 "
                    "(e.g. only upcast float16/bfloat16, or promote_types with float32)",
         "where": ["q3", "q5", "q6"]},
    ),
    "q4_default_key_length_compared_with_double_equals_not_assigned": (
        {"causal_mask": (
            "def causal_mask(T_q, T_k=None):\n"
            + _MASK_DOC +
            "    if T_k is None:\n"
            "        T_k == T_q\n"
            "    rows = torch.arange(T_q).unsqueeze(1)   # (T_q, 1)\n"
            "    cols = torch.arange(T_k).unsqueeze(0)   # (1, T_k)\n"
            "    return cols <= rows\n"
        )},
        {"mistake": "'T_k == T_q' is a comparison whose result is thrown away, not an assignment, so T_k "
                    "stays None and torch.arange(None) raises a TypeError whenever the square default is "
                    "used (causal_mask(T)); masks with T_k given are right",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_scale_default_argument_evaluated_once_from_the_global_d_k": (
        {"scaled_dot_product_attention": (
            "def scaled_dot_product_attention(Q, K, V, mask=None, scale=1 / math.sqrt(d_k)):\n"
            + _SDPA_DOC +
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a default value is evaluated once, when the def runs, and d_k there is the notebook's "
                    "global d_k = 8 from question 2, not the inputs' width: every call scales by 1/sqrt(8), "
                    "which is wrong whenever Q's last axis is not 8 (d_k must be read from Q inside the call)",
         "where": ["q5"]},
    ),
    "q5_keys_transposed_minus_one_with_minus_one_is_a_no_op": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-1, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "transpose(-1, -1) swaps the last axis with itself, so K is not transposed: Q @ K "
                    "raises a size mismatch whenever T_k != d_k, and when T_k == d_k it silently multiplies "
                    "by K instead of K^T (wrong scores, right shape); it should be transpose(-2, -1)",
         "where": ["q5"]},
    ),
    "q5_debugging_return_of_the_weights_left_in_the_unmasked_branch": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    d_k = Q.size(-1)\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        return weights                      # look at the weights\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a return left from debugging in the mask=None branch hands back the (..., T_q, T_k) "
                    "weights instead of the (..., T_q, d_v) output, so every call without a mask has the "
                    "wrong shape and values; masked calls are right",
         "where": ["q5"]},
    ),
    "q6_output_mixed_with_the_batched_v_instead_of_v3": (
        {"weights3": (
            _TRACE_HEAD +
            "out3 = weights3 @ V\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the output line uses V, the (2, 5, 8) batched example of question 2, instead of this "
                    "section's V3: the (3, 3) @ (2, 5, 8) product raises a size mismatch, so out3 and "
                    "weights3_causal are never set (weights3 is right)",
         "where": ["q6"]},
    ),
    "q6_causal_rows_helper_returns_inside_its_row_loop": (
        {"weights3": (
            _TRACE_HEAD +
            "out3 = weights3 @ V3\n"
            "\n"
            "def _causal_rows(scores):\n"
            "    \"\"\"Row i: softmax over keys 0..i, zeros after.\"\"\"\n"
            "    rows = torch.zeros_like(scores)\n"
            "    for i in range(scores.shape[0]):\n"
            "        rows[i, : i + 1] = stable_softmax(scores[i, : i + 1], dim=-1)\n"
            "        return rows\n"
            "\n"
            "weights3_causal = _causal_rows(scores3)\n"
            "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"
        )},
        {"mistake": "the return is indented into the loop, so the helper returns after filling row 0: "
                    "weights3_causal is [[1, 0, 0], [0, 0, 0], [0, 0, 0]], rows 1 and 2 left at zero "
                    "instead of their causal softmax (weights3 and out3 are right)",
         "where": ["q6"]},
    ),
    "q7_check_indexes_with_the_loop_mask_left_over_from_the_comparison_cell": (
        {"q_trap_answer": (
            _TRAP_SETUP +
            "_right = stable_softmax(_scores.masked_fill(~_mask, float(\"-inf\")), dim=-1)\n"
            "_short = F.softmax(_scores, dim=-1)          # the classmate's lines\n"
            "_short[~mask] = 0.0\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
        )},
        {"mistake": "the shortcut is applied with mask, not _mask: mask is the loop variable the comparison "
                    "cell after question 5 left behind (causal_mask(6, 9)), and indexing the 4 x 4 weights "
                    "with a 6 x 9 boolean mask raises an IndexError, so q_trap_answer is never set",
         "where": ["q7"]},
    ),
    "q7_check_masks_the_scores_in_place_before_trying_the_shortcut": (
        {"q_trap_answer": (
            _TRAP_SETUP +
            "_right = stable_softmax(_scores.masked_fill_(~_mask, float(\"-inf\")), dim=-1)\n"
            "_short = F.softmax(_scores, dim=-1)          # the classmate's lines\n"
            "_short[~_mask] = 0.0\n"
            "q_trap_answer = \"A\" if torch.allclose(_short, _right) else \"C\"\n"
        )},
        {"mistake": "masked_fill_ (with the underscore) writes -inf into _scores itself, so the classmate's "
                    "softmax is then taken of scores that are already masked, agrees with the right weights, "
                    "and the check answers A; on the raw scores the kept weights no longer sum to 1 (C)",
         "where": ["q7"]},
    ),
    "q8_length_doubled_before_score_madds_is_counted_from_it": (
        {"attn_entries": (
            "T, d_head = 1024, 64\n"
            "attn_entries = T ** 2\n"
            "_madds_before = attn_entries * d_head\n"
            "T *= 2                                       # double the length for the ratio\n"
            "cost_ratio = (T ** 2 * d_head) // _madds_before\n"
            "score_madds = T ** 2 * d_head\n"
        )},
        {"mistake": "score_madds is written after T has been doubled for the ratio, so it counts the "
                    "multiply-adds for T = 2048 (268435456) instead of T = 1024 (67108864); attn_entries "
                    "and cost_ratio are right",
         "where": ["q8"]},
    ),
}
