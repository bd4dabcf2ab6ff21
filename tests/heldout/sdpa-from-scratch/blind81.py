"""Eighty-first blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind79.py (for the format), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: DEBUGGING LEFTOVERS, HALF-FINISHED EDITS AND NOTEBOOK STATE. Each wrong cell is otherwise
right code with one leftover: a probe value tensor left at the key width from a quick test (q1); a `d_k = 1`
debug override (q2; a second q2 variant, an in-place `div_` read before the variance, was dropped when this set was
committed: blind71 has the same mistake under the same name); an early
`return` of the shifted logits left from a check and a shift taken over a hard-coded last axis (q3); a mask
cache keyed on T_q alone and a bottom-right alignment experiment left live with the right line commented out
(q4); the empty-row line commented out while debugging NaNs, a half-done rename that reads the global `d_k`
of the Q2 cell, and an assert whose `logical_not_` flips the mask in place (q5); `out3` left from the unscaled
first try and a "copy" that is a slice view, so the causal experiment overwrites `weights3` (q6); a trap
answer "confirmed" by an experiment that only compared the last row (q7); a cost helper whose `return` was
left returning the entry count from a check (q8). The correct variants look just as mid-edit (dead code,
commented-out tries, prints behind a flag, harmless asserts, a function defined twice where the later one is
right, real `.clone()` copies, a cache keyed on both lengths that hands out clones).

Public material used (search tool):
- Hidden state and out-of-order cells: Wang, Kuo, Li, Zeller, "Assessing and Restoring Reproducibility of
  Jupyter Notebooks" (ASE 2020, doi 10.1145/3324884.3416585: 73% of 936 notebooks not reproducible top to
  bottom, identifier usages preceding definitions, results preceding computations); the FlowBook abstract
  (zhuanzhiai.com, "stale cells whose recorded outputs may no longer reflect the current notebook state");
  friggeri's "Tracking inconsistencies in Jupyter notebooks" (nbviewer). These ground the stale-answer (q6
  out3, q8 helper), the stale-global (q5 `d_k`) and the cached-earlier-input (q4) variants.
- The remaining kinds (in-place ops and views, asserts with side effects, commented-out right lines, early
  returns and debug overrides) are the ones this round's brief lists, each written in a form of its own.

How the variants were checked: a throwaway script under /tmp/w81-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas (several
shapes, float64/float32/float16/bfloat16, 3-D/4-D, T_q != T_k, d_v != d_k, 2-D and batched masks, fully masked
rows, gradients, caller's mask unchanged).

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

_SOFTMAX_OK = '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''

CORRECT = {
    "softmax_defined_twice_naive_first_then_shifted_with_debug_flag_off": {
        "stable_softmax": '''_DEBUG = False

# first try (overflows in float16, kept for the write-up)
def stable_softmax(x, dim=-1):
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)

# TODO delete the one above -- this one is the real one
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, max subtracted first."""
    m = x.amax(dim=dim, keepdim=True)
    # m = x.max()          # global max: works but not per slice, do not use
    shifted = x - m
    if _DEBUG:
        print("max after shift:", shifted.max().item())
    exps = shifted.exp()
    out = exps / exps.sum(dim=dim, keepdim=True)
    assert out.shape == x.shape   # sanity, leave it
    return out

print(stable_softmax(torch.tensor([1000., 1001.], dtype=torch.float16)))
''',
    },
    "sdpa_with_commented_out_minus_1e9_try_shape_asserts_and_a_cloned_mask_check": {
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V, mask True = may attend."""
    d_k = Q.size(-1)
    assert K.size(-1) == d_k, (Q.shape, K.shape)
    assert K.size(-2) == V.size(-2), (K.shape, V.shape)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    # print("scores", scores.shape)
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    check = mask.clone()
    check.logical_not_()                      # inverting a COPY, the caller's mask is untouched
    assert check.dtype == torch.bool
    # scores = scores.masked_fill(~mask, -1e9)   # float16 overflow, see the text
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    alive = mask.any(dim=-1, keepdim=True)
    # weights = torch.nan_to_num(weights)         # also works, kept the where
    weights = torch.where(alive, weights, torch.zeros((), dtype=weights.dtype, device=weights.device))
    return weights @ V
''',
    },
    "causal_mask_cache_keyed_on_both_lengths_hands_out_clones": {
        "causal_mask": '''_mask_cache = {}

def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where key j <= query i."""
    if T_k is None:
        T_k = T_q
    key = (T_q, T_k)           # was T_q only -- broke cross-attention, fixed
    if key not in _mask_cache:
        # _mask_cache[key] = torch.tril(torch.ones(T_q, T_k)).bool()   # same thing
        _mask_cache[key] = torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]
    # print("cache size", len(_mask_cache))
    return _mask_cache[key].clone()
''',
    },
    "trace_with_a_cloned_experiment_and_q2_debug_override_restored": {
        "raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
# d_k = 1   # DEBUG: see the raw scores -- commented out again
raw_score_var = raw_scores.var().item()
scaled = raw_scores.clone()
scaled /= math.sqrt(d_k)          # in place, but on a clone
scaled_score_var = scaled.var().item()
scale_divisor = math.sqrt(64)
assert raw_score_var > scaled_score_var
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        "weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
# experiment: zero after softmax then renormalise -- should equal the masked softmax
w = weights3.clone()
w[~causal_mask(3)] = 0.0
w = w / w.sum(-1, keepdim=True)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(torch.allclose(w, weights3_causal))
print(weights3, out3, weights3_causal, sep="\\n")
''',
    },
    "answers_with_leftover_experiments_and_a_fixed_cost_helper": {
        "q_trap_answer": '''# quick experiment: zero after softmax vs -inf before, on every row this time
s = torch.randn(4, 4)
a = torch.softmax(s, -1)
a[~causal_mask(4)] = 0.0
b = torch.softmax(s.masked_fill(~causal_mask(4), float("-inf")), -1)
print(torch.allclose(a, b), a.sum(-1))   # False, rows sum < 1
q_trap_answer = "C"
''',
        "attn_entries": '''def madds(T, d):
    n = T * T * d
    # print("madds", n)
    return n            # was returning T * T while I checked the entry count

attn_entries = 1024 ** 2
score_madds = madds(1024, 64)
cost_ratio = madds(2048, 64) // madds(1024, 64)
print(attn_entries, score_madds, cost_ratio)
''',
    },
}

WRONG = {
    "q1_value_probe_left_at_the_key_width_from_a_quick_test": (
        {"weights_shape": '''Qp = torch.randn(4, 10, 64)
Kp = torch.randn(4, 10, 64)
Vp = torch.randn(4, 10, 64)    # quick test, same as K -- TODO 128
wp = torch.softmax(Qp @ Kp.transpose(-2, -1), dim=-1)
weights_shape = tuple(wp.shape)
out_shape = tuple((wp @ Vp).shape)
print(weights_shape, out_shape)
'''},
        {"mistake": "the value probe was left at width 64 (the key width) from a quick test instead of 128, so "
                    "out_shape is (4, 10, 64) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_d_k_set_to_one_for_a_look_at_raw_scores_left_in": (
        {"raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
d_k = 1   # DEBUG: look at the raw scores first, TODO remove
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "a debugging override d_k = 1 was left in before the scaled variance, so the scores are "
                    "divided by 1 and scaled_score_var equals raw_score_var (about 8 instead of about 1)",
         "where": ["q2"]},
    ),
    "q3_early_return_of_the_shifted_logits_left_from_a_check": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    shifted = x - x.max(dim=dim, keepdim=True).values
    return shifted   # check: every entry <= 0 ?  TODO remove
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''},
        {"mistake": "a `return shifted` left from checking the shift returns the max-shifted logits, never "
                    "exponentiated or normalised, instead of the softmax",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_shift_max_over_a_hard_coded_last_axis_left_from_testing": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    m = x.max(dim=-1, keepdim=True).values   # TODO use dim (tested on rows only)
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
'''},
        {"mistake": "the max is still taken over the last axis (hard-coded while testing on rows) instead of "
                    "`dim`, so for any other dim the shift differs along the slice and does not cancel: the "
                    "result is wrong (and can overflow) whenever dim is not the last axis",
         "where": ["q3"]},
    ),
    "q4_mask_cache_keyed_on_the_query_length_only": (
        {"causal_mask": '''_mask_cache = {}

def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    if T_q in _mask_cache:           # speed-up, masks are rebuilt a lot
        return _mask_cache[T_q]
    rows = torch.arange(T_q).unsqueeze(1)
    cols = torch.arange(T_k).unsqueeze(0)
    _mask_cache[T_q] = cols <= rows
    return _mask_cache[T_q]
'''},
        {"mistake": "the mask cache is keyed on T_q alone, so a later call with the same T_q and a different "
                    "T_k (or None) gets the earlier call's mask with the wrong shape",
         "where": ["q4", "q6"]},
    ),
    "q4_bottom_right_alignment_experiment_left_live": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q).unsqueeze(1)   # (T_q, 1)
    cols = torch.arange(T_k).unsqueeze(0)   # (1, T_k)
    # return cols <= rows
    return cols <= rows + (T_k - T_q)       # trying flash-attn's bottom-right alignment
'''},
        {"mistake": "the right line is commented out and the bottom-right alignment experiment is live, so for "
                    "T_q != T_k the triangle is shifted by T_k - T_q instead of aligned at the top-left "
                    "(square masks are unchanged)",
         "where": ["q4"]},
    ),
    "q5_empty_row_zeroing_commented_out_while_chasing_nans": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        print("nan rows:", torch.isnan(weights).any(dim=-1).sum())
        has_key = mask.any(dim=-1, keepdim=True)
        # weights = torch.where(has_key, weights, torch.zeros_like(weights))   # off to see the NaNs
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the line that zeroes fully masked rows was commented out to look at the NaNs and never put "
                    "back, so a query whose keys are all masked gets a NaN output row instead of zeros",
         "where": ["q5"]},
    ),
    "q5_half_renamed_d_k_reads_the_global_from_the_q2_cell": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    head_dim = Q.size(-1)          # renamed from d_k
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "d_k was renamed head_dim in its definition but not in the scale, which reads the global d_k "
                    "= 8 left by the Q2 cell: the scores are divided by sqrt(8) whatever the head width",
         "where": ["q5"]},
    ),
    "q5_sanity_assert_flips_the_mask_in_place": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        assert mask.dtype == torch.bool and mask.logical_not_().any(), "mask hides nothing?"
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the sanity assert calls mask.logical_not_(), which inverts the mask in place: the function "
                    "then attends to exactly the blocked keys (and flips the caller's mask too)",
         "where": ["q5"]},
    ),
    "q6_out3_left_from_the_unscaled_first_try": (
        {"weights3": '''weights3 = stable_softmax(Q3 @ K3.T, dim=-1)       # first try, forgot the scale
out3 = weights3 @ V3
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)         # fixed
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "out3 is still computed from the first, unscaled weights (scores not divided by 2); only "
                    "weights3 was recomputed after the fix, so out3 is stale",
         "where": ["q6"]},
    ),
    "q6_causal_weights_built_on_a_slice_view_taken_for_a_copy": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
w = weights3[:]                  # copy for the causal version
w[~causal_mask(3)] = 0.0
w /= w.sum(-1, keepdim=True)     # renormalise = same as masking before the softmax
weights3_causal = w
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "weights3[:] is a view, not a copy, so zeroing and renormalising it for the causal answer "
                    "also overwrites weights3, which ends up equal to the causal weights",
         "where": ["q6"]},
    ),
    "q7_trap_checked_on_the_last_row_only_answer_a": (
        {"q_trap_answer": '''# quick experiment: zero after softmax vs -inf before
s = torch.randn(4, 4)
a = torch.softmax(s, -1)
a[~causal_mask(4)] = 0.0
b = torch.softmax(s.masked_fill(~causal_mask(4), float("-inf")), -1)
print(torch.allclose(a[-1], b[-1]))   # True -> same thing   (was checking one row)
q_trap_answer = "A"
'''},
        {"mistake": "the experiment only compared the last row, which sees every key and so has nothing "
                    "zeroed; it agreed, and the answer was set to A instead of C",
         "where": ["q7"]},
    ),
    "q8_madds_helper_still_returns_the_entry_count_from_a_check": (
        {"attn_entries": '''def madds(T, d):
    n = T * T * d
    print("madds", n)
    return T * T        # TODO return n -- was checking the entry count

attn_entries = 1024 ** 2
score_madds = madds(1024, 64)
cost_ratio = madds(2048, 64) // madds(1024, 64)
print(attn_entries, score_madds, cost_ratio)
'''},
        {"mistake": "the cost helper was left returning T * T from a check of the entry count, so score_madds "
                    "is 1048576 instead of 1024 * 1024 * 64 = 67108864 (the ratio 4 is unaffected)",
         "where": ["q8"]},
    ),
}
