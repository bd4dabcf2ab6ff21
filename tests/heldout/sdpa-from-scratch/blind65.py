"""Sixty-fifth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind64.py in full (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: LEFTOVERS FROM DEBUGGING AND UNFINISHED EDITS. Each wrong variant is code that worked (or
nearly) and kept one thing from a debugging session or a half-done edit: a probe whose key count was left at a
cross-attention length of 12 while experimenting (q1); variances typed in from a run made on another random
draw, and a `torch.manual_seed(0)` copied into the q2 cell before redrawing the keys, which makes the keys equal
to the queries (q2); the first, unshifted draft of the softmax kept "to compare" below the fixed one, so that it
is the definition that wins, and a `.squeeze()` added to make a printout fit on one line (q3); an old one-based
helper for the query positions defined again after the fixed one, in the same cell, so the mask looks it up at
call time (q4); `mask = None` left in from trying the unmasked path, a debug comparison with
`F.scaled_dot_product_attention` left inside the function, the values read from the comparison cell's global
`Vc` after a rename from the demo's names (`Qc`, `Kc`, `Vc`) to the parameters that missed one use, the mask
`.squeeze()`d for printing (which drops the axes that make a padding mask broadcast), and a debug `return` left
before the empty rows are cleared (q5); the hint of q6 tried by blanking query 0's scores in place and left
before the unmasked weights are computed (q6); the options printed in a loop whose variable is the answer's
own name, so the answer ends up as the last letter, D (q7); the sequence length left at a round 1000 from a
sanity check (q8). The correct variants write the same things with the leftovers done harmlessly (the
experiment in names of its own, the inspection on a clone, the loop with its own variable, the debug print behind
a flag that is off) or in other idioms (amax and `Tensor.div`, an in-place `tril_` on a fresh tensor, an
ellipsis einsum with a `where` fill and `masked_fill` on the weights, half types promoted to float32 for the
whole computation and cast back).

Public material used (search tool):
- q1, q8 (test values left in): the notebook's own cross-attention paragraph (T_q != T_k) and its cost section;
  sanity checks with round numbers are the usual way of checking T^2 by eye.
- q2 (typed values): the out-of-order execution problem of notebooks ("Globals Are Bad", kiwidamien.github.io
  notebooks tag: globals and cell order in Jupyter lead to subtle bugs); q2 (reseed): mrdbourke/pytorch-deep-
  learning#245 ("setting it every time ... we would get every time the same tensor when calling torch.rand") and
  pytorch/pytorch#97129 (calling `torch.manual_seed(0)` before each draw makes the two tensors equal).
- q3 (two definitions), q4 (helper redefined later): Python resolves a global name when the function runs, not
  when it is defined (geeksforgeeks "Scope resolution when a function is called or defined", hendrikwulf
  sds210 "The Danger of Global Variables"); the later `def` of the same name replaces the earlier one.
- q3 / q5 (squeeze for printing): allenai/longformer#12 (a `[batch, 1, 1, seq_len]` attention mask squeezed back
  to `[batch, seq_len]`), pytorch/pytorch#97899 (BERT-style padding masks of shape (batch, 1, 1, seq_len)),
  openai/gpt-2#270 (padding masks `seq[:, tf.newaxis, tf.newaxis, :]` next to (seq_len, seq_len) look-ahead masks).
- q5 (global `Vc`, `mask = None`): the same scope pages (a function that reads a notebook global works in the
  cell it was tried in and silently changes behaviour elsewhere); the notebook's comparison cell, which binds
  `Qc`, `Kc`, `Vc` and `mask` at top level.
- q5 (F.sdpa left in): the notebook's own advice to compare with `F.scaled_dot_product_attention` outside the
  function, and its rule that the grader detects the call inside it.
- q7 (loop variable): riptutorial "Variable leaking in list comprehensions and for loops", codementor
  "Understanding Variable Overwriting in Python Loops" (a for loop rebinds an existing name and leaves it at the
  last item), besthub.dev "Why Python's for-loop variables leak outside the loop".

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a broken
`stable_softmax` may also cost q5 and q6; a broken `causal_mask` q5 and q6).
Correct variants are really correct but written differently from full_marks.
Every variant was checked against plain torch with a throwaway script outside the repository (torch 2.13 on the
CPU, no GPU used): softmax against `torch.softmax` on 1-D to 4-D inputs along every positive and negative axis in
float64, float32, float16 and bfloat16 (dtype and shape kept), inputs with length-1 axes, float16 logits in the
thousands, -inf entries, and gradients; masks against `torch.ones(T_q, T_k).tril().bool()` for square and
rectangular sizes (T_q above and below T_k, and T_q or T_k equal to 1), with and without T_k; attention against
`F.scaled_dot_product_attention` (in float64, fully masked rows set to zero) on 3-D and 4-D inputs with
T_q != T_k, d_v != d_k and d_k of 4, 8, 16 and 64, with no mask, a causal mask, a 2-D random mask with a fully
masked query, a 3-D (B, T_q, T_k) random mask and a (B, 1, T_k) padding mask, in all four dtypes, float16 inputs
with large scores, and gradients of Q, K and V against the reference's; the answers of q1, q2, q6, q7 and q8
against the values from the notebook's formulas. Each variant's notebook was run top to bottom (all code cells
but otter's) with the variant's cells put in as harness.py does; none raises there. The correct ones pass every
check; each wrong one differs from the right answer on inputs the notebook describes, and only in its "where".
Caveats: the squeezed softmax differs only for inputs with a length-1 axis (a single query, a batch of one); the
squeezed mask only for masks with a length-1 axis that is not leading (a (B, 1, T_k) or (B, 1, 1, T_k) padding
mask with B > 1); the F.sdpa leftover gives the right values and breaks only the rule against calling it; the
early return and the unshifted draft only with a fully masked query or with large (float16) scores.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_SOFTMAX_HEAD = (
    "def stable_softmax(x, dim=-1):\n"
    "    \"\"\"Softmax of x along `dim`, with the max subtracted first so that nothing overflows.\"\"\"\n"
)
_MASK_HEAD = (
    "def causal_mask(T_q, T_k=None):\n"
    "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
)
_SDPA_HEAD = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\n"
    "\n"
    "    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)\n"
    "    \"\"\"\n"
)
_SDPA_SCORES = (
    "    d_k = Q.size(-1)\n"
    "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
)
_SDPA_TAIL = (
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "        has_key = mask.any(dim=-1, keepdim=True)\n"
    "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
    "    else:\n"
    "        weights = stable_softmax(scores, dim=-1)\n"
    "    return torch.matmul(weights, V)\n"
)
_SOFTMAX_BODY = (
    "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
    "    exps = torch.exp(shifted)\n"
    "    return exps / exps.sum(dim=dim, keepdim=True)\n"
)
_Q2_PRINT = "print(raw_score_var, scaled_score_var, scale_divisor)\n"
_Q6_PRINT = "print(weights3, out3, weights3_causal, sep=\"\\n\")\n"

CORRECT = {
    "softmax_amax_shift_div_method_mask_from_tril_inplace_on_a_fresh_tensor": {
        "stable_softmax": (
            _SOFTMAX_HEAD +
            "    top = torch.amax(x, dim=dim, keepdim=True)\n"
            "    e = (x - top).exp()\n"
            "    return e.div(e.sum(dim=dim, keepdim=True))\n"
        ),
        "causal_mask": (
            _MASK_HEAD +
            "    T_k = T_q if T_k is None else T_k\n"
            "    return torch.ones(T_q, T_k, dtype=torch.bool).tril_()   # fresh tensor, so in place is safe\n"
        ),
    },
    "sdpa_ellipsis_einsum_where_fill_weights_cleared_with_masked_fill_debug_print_behind_a_flag_that_is_off": {
        "scaled_dot_product_attention": (
            "_DEBUG_SDPA = False   # set to True to print the weights while debugging\n"
            "\n"
            "\n" +
            _SDPA_HEAD +
            "    scores = torch.einsum(\"...qd,...kd->...qk\", Q, K) / math.sqrt(K.shape[-1])\n"
            "    if mask is not None:\n"
            "        keep = mask.to(torch.bool)\n"
            "        scores = torch.where(keep, scores, scores.new_full((), float(\"-inf\")))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = weights.masked_fill(~keep.any(dim=-1, keepdim=True), 0.0)\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    if _DEBUG_SDPA:\n"
            "        print(weights[..., :4, :4])\n"
            "    return torch.einsum(\"...qk,...kv->...qv\", weights, V)\n"
        ),
    },
    "sdpa_half_types_promoted_to_float32_for_the_whole_computation_and_cast_back": {
        "scaled_dot_product_attention": (
            _SDPA_HEAD +
            "    out_dtype = Q.dtype\n"
            "    work = torch.promote_types(out_dtype, torch.float32)   # float16/bfloat16 -> float32, float64 stays\n"
            "    q, k, v = Q.to(work), K.to(work), V.to(work)\n"
            "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n"
            "    if mask is None:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    else:\n"
            "        allowed = mask.bool()\n"
            "        weights = stable_softmax(scores.masked_fill(~allowed, float(\"-inf\")), dim=-1)\n"
            "        weights = torch.where(allowed.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    return (weights @ v).to(out_dtype)\n"
        ),
    },
    "experiments_kept_in_names_of_their_own_options_loop_with_its_own_variable_sanity_check_apart": {
        "weights_shape": (
            "# cross-attention experiment, in names of its own\n"
            "_Kx = torch.randn(4, 12, 64)\n"
            "print(\"with 12 keys:\", tuple((torch.randn(4, 10, 64) @ _Kx.transpose(-2, -1)).shape))\n"
            "# the question's sizes\n"
            "Qp, Kp, Vp = torch.randn(4, 10, 64), torch.randn(4, 10, 64), torch.randn(4, 10, 128)\n"
            "weights_shape = tuple((Qp @ Kp.transpose(-2, -1)).shape)\n"
            "out_shape = tuple((Qp @ Kp.transpose(-2, -1) @ Vp).shape)\n"
        ),
        "q_trap_answer": (
            "options = {\"A\": \"nothing wrong\", \"B\": \"mask upside down\", \"C\": \"rows no longer sum to 1\",\n"
            "           \"D\": \"only float16\"}\n"
            "for letter, text in options.items():\n"
            "    print(letter, text)\n"
            "q_trap_answer = \"C\"\n"
        ),
        "attn_entries": (
            "_T_check = 1000                       # sanity check with round numbers first\n"
            "assert _T_check ** 2 == 1_000_000\n"
            "T_len, d_head = 1024, 64\n"
            "attn_entries = T_len ** 2\n"
            "score_madds = T_len * T_len * d_head\n"
            "cost_ratio = (2 * T_len) ** 2 * d_head // score_madds\n"
        ),
    },
    "trace_hint_tried_on_a_clone_variances_with_torch_var_and_power": {
        "scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "_try = scores3.clone()\n"
            "_try[0, 1:] = float(\"-inf\")           # the hint: query 0 with only key 0 (on a copy)\n"
            "print(stable_softmax(_try, dim=-1)[0])\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n" +
            _Q6_PRINT
        ),
        "d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = torch.matmul(Q, K.mT)\n"
            "raw_score_var = float(torch.var(raw_scores))\n"
            "scaled_score_var = float(torch.var(raw_scores * d_k ** -0.5))\n"
            "scale_divisor = 64 ** 0.5\n" + _Q2_PRINT
        ),
    },
}

WRONG = {
    "q1_probe_keys_left_at_a_cross_attention_length_of_12_from_experimenting": (
        {"weights_shape": (
            "T_q, T_k = 10, 12      # trying cross-attention: does the key count show up in the weights?\n"
            "Qp = torch.randn(4, T_q, 64)\n"
            "Kp = torch.randn(4, T_k, 64)\n"
            "Vp = torch.randn(4, T_k, 128)\n"
            "weights_shape = tuple((Qp @ Kp.transpose(-2, -1)).shape)\n"
            "out_shape = tuple((Qp @ Kp.transpose(-2, -1) @ Vp).shape)\n"
        )},
        {"mistake": "the probe's key count was set to 12 while trying out cross-attention and never set back to "
                    "the question's 10 keys: weights_shape is (4, 10, 12) instead of (4, 10, 10) (out_shape "
                    "happens to stay right, since it does not depend on the key count)",
         "where": ["q1"]},
    ),
    "q2_variances_typed_in_from_a_run_on_another_random_draw": (
        {"d_k": (
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "# numbers copied from my printout so they don't change every time I rerun\n"
            "raw_score_var = 8.5882\n"
            "scaled_score_var = 1.0735\n"
            "scale_divisor = math.sqrt(64)\n" + _Q2_PRINT
        )},
        {"mistake": "the two variances are hand-typed numbers from an earlier run on a different random draw of Q "
                    "and K (the cell had been run before the seeding cell; 8.5882 and 1.0735 are what seed 1 "
                    "gives), not the variances of the notebook's example, 6.599 and 0.8249",
         "where": ["q2"]},
    ),
    "q2_seed_reset_before_redrawing_the_keys_makes_them_equal_to_the_queries": (
        {"d_k": (
            "torch.manual_seed(0)          # so the keys are the same every time I rerun this cell\n"
            "K = torch.randn(2, 5, 8)\n"
            "d_k = Q.shape[-1]\n"
            "raw_scores = Q @ K.transpose(-2, -1)\n"
            "raw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
            "scale_divisor = math.sqrt(64)\n" + _Q2_PRINT
        )},
        {"mistake": "the seeding line was copied into the q2 cell in front of a fresh draw of the keys; with the "
                    "generator reset to 0 the keys come out identical to the queries (Q was the first draw after "
                    "the same seed), so the scores are Q Q^T with its large positive diagonal and both variances "
                    "are far off (23.9 and 2.99 instead of 6.60 and 0.825)",
         "where": ["q2"]},
    ),
    "q3_first_unshifted_draft_kept_below_the_fixed_softmax_and_defined_last": (
        {"stable_softmax": (
            _SOFTMAX_HEAD + _SOFTMAX_BODY +
            "\n"
            "\n"
            "# first try, before the max trick (kept to compare)\n"
            "def stable_softmax(x, dim=-1):\n"
            "    exps = torch.exp(x)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True)\n"
        )},
        {"mistake": "the old draft without the max subtraction is still in the cell below the fixed version and, "
                    "being defined last, is the stable_softmax that runs: float16 (or very large) logits overflow "
                    "to inf and the slice becomes NaN",
         "where": ["q3", "q5"]},
    ),
    "q3_result_squeezed_for_a_one_line_printout_drops_length_one_axes": (
        {"stable_softmax": (
            _SOFTMAX_HEAD +
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    probs = exps / exps.sum(dim=dim, keepdim=True)\n"
            "    return probs.squeeze()          # (1, T) -> (T,) so the printout fits on one line\n"
        )},
        {"mistake": "a .squeeze() added to make a printout shorter was left on the result: every length-1 axis "
                    "of the input is dropped, so the softmax of a (1, T) row, of a single query or of a batch of "
                    "one comes back with the wrong shape (and attention on such inputs breaks or broadcasts wrong)",
         "where": ["q3", "q5"]},
    ),
    "q4_old_one_based_position_helper_redefined_below_the_mask_is_the_one_it_calls": (
        {"causal_mask": (
            "def _query_positions(T):\n"
            "    return torch.arange(T).unsqueeze(1)              # (T, 1)\n"
            "\n"
            "\n" +
            _MASK_HEAD +
            "    if T_k is None:\n"
            "        T_k = T_q\n"
            "    rows = _query_positions(T_q)\n"
            "    cols = torch.arange(T_k).unsqueeze(0)             # (1, T_k)\n"
            "    return cols <= rows\n"
            "\n"
            "\n"
            "def _query_positions(T):                              # first attempt, positions 1..T\n"
            "    return torch.arange(1, T + 1).unsqueeze(1)\n"
        )},
        {"mistake": "an older one-based version of the query-position helper is defined again below causal_mask "
                    "in the same cell; the mask looks the helper up when it runs, so it gets positions 1..T_q "
                    "against key positions 0..T_k-1 and every query may also see the next key (j <= i + 1): the "
                    "first diagonal above the main one is True",
         "where": ["q4", "q5", "q6"]},
    ),
    "q5_mask_reset_to_none_while_trying_the_unmasked_path_left_in": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    mask = None          # TEMP: get the unmasked version to match F.sdpa first\n" +
            _SDPA_TAIL
        )},
        {"mistake": "a `mask = None` put in to test the unmasked path first is still there, so the mask argument "
                    "is thrown away: masked keys get weight and fully masked queries are not zero",
         "where": ["q5"]},
    ),
    "q5_debug_comparison_with_f_scaled_dot_product_attention_left_inside_the_function": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    out = torch.matmul(weights, V)\n"
            "    # debugging: compare with PyTorch's kernel\n"
            "    ref = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)\n"
            "    # print(\"max diff\", (out - ref).abs().max().item())\n"
            "    return out\n"
        )},
        {"mistake": "the comparison with F.scaled_dot_product_attention made while debugging is still inside the "
                    "function (only its print was commented out), so the function calls the very kernel it must "
                    "not use; its own result is right",
         "where": ["q5"]},
    ),
    "q5_values_read_from_the_comparison_cells_global_vc_after_a_rename_that_missed_one_use": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, Vc)\n"
        )},
        {"mistake": "the function was first written on the comparison cell's Qc, Kc, Vc and renamed to the "
                    "parameters Q, K, V, but the last line still multiplies by the global Vc: it matches in the "
                    "comparison cell (where V is Vc) and everywhere else mixes the comparison cell's values "
                    "instead of V (a shape error or a wrong output)",
         "where": ["q5"]},
    ),
    "q5_mask_squeezed_for_a_debug_print_loses_the_axes_a_padding_mask_broadcasts_on": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        mask = mask.squeeze()        # (B, 1, 1, T_k) -> (B, T_k), easier to print\n" +
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "the mask is .squeeze()d to print it more compactly, which removes the length-1 axes a "
                    "padding mask needs to broadcast: a (B, 1, T_k) or (B, 1, 1, T_k) mask becomes (B, T_k) and "
                    "lines its batch axis up with the queries, so it raises a broadcast error or masks the wrong "
                    "queries",
         "where": ["q5"]},
    ),
    "q5_debug_return_left_before_the_fully_masked_rows_are_cleared": (
        {"scaled_dot_product_attention": (
            _SDPA_HEAD + _SDPA_SCORES +
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask == False, float(\"-inf\"))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        has_key = mask.any(dim=-1, keepdim=True)\n"
            "        if not has_key.all():\n"
            "            return torch.matmul(weights, V)      # debug: look at the NaN rows\n"
            "        weights = torch.where(has_key, weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "    return torch.matmul(weights, V)\n"
        )},
        {"mistake": "a return added to look at the NaN rows is still in front of the line that clears them: "
                    "whenever some query has every key masked the function returns early and that query's output "
                    "row is NaN instead of zeros",
         "where": ["q5"]},
    ),
    "q6_query_0_scores_blanked_in_place_to_try_the_hint_left_before_the_unmasked_weights": (
        {"scores3": (
            "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
            "scores3[0, 1:] = float(\"-inf\")      # the hint: what if query 0 only had key 0?\n"
            "weights3 = stable_softmax(scores3, dim=-1)\n"
            "out3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float(\"-inf\")), dim=-1)\n" +
            _Q6_PRINT
        )},
        {"mistake": "query 0's scores for keys 1 and 2 were set to -inf in place to try out the hint and the line "
                    "was left in, so the unmasked weights3 have row 0 = [1, 0, 0] (instead of about "
                    "[0.274, 0.274, 0.452]) and out3's row 0 is V3[0] = [1, 0] (instead of [0.726, 0.726]); the causal "
                    "weights are unaffected",
         "where": ["q6"]},
    ),
    "q7_options_printed_in_a_loop_whose_variable_is_the_answer_name_leaves_d": (
        {"q_trap_answer": (
            "q_trap_answer = \"C\"\n"
            "options = {\"A\": \"nothing wrong\", \"B\": \"mask upside down\", \"C\": \"rows no longer sum to 1\",\n"
            "           \"D\": \"only float16\"}\n"
            "for q_trap_answer, text in options.items():     # print the options next to my answer\n"
            "    print(q_trap_answer, text)\n"
        )},
        {"mistake": "the options are printed with a for loop whose variable is q_trap_answer itself; a Python "
                    "loop variable outlives the loop, so the answer is rebound to the last option, \"D\", "
                    "instead of \"C\"",
         "where": ["q7"]},
    ),
    "q8_sequence_length_left_at_a_round_1000_from_a_sanity_check": (
        {"attn_entries": (
            "T_len = 1000          # round numbers first, to check by eye: 1000^2 = 1e6\n"
            "d_head = 64\n"
            "attn_entries = T_len ** 2\n"
            "score_madds = T_len * T_len * d_head\n"
            "cost_ratio = (2 * T_len) ** 2 * d_head // score_madds\n"
        )},
        {"mistake": "the length used for a round-number sanity check, T = 1000, was never set back to the "
                    "question's 1024: attn_entries is 1,000,000 and score_madds 64,000,000 instead of 1,048,576 "
                    "and 67,108,864 (the ratio, 4, does not depend on T)",
         "where": ["q8"]},
    ),
}
