"""Eighty-fifth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind83.py (for the format), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: CODE THAT FITS THE EXAMPLE THE STUDENT RAN. Each wrong cell is careful code that is right
on the one example the student tried (the notebook's batch of 2 with T_q = T_k = 5 and d_k = d_v = 8, a 2-D
causal mask that keeps key 0 in every row, dim=-1, unit-scale logits, the question's own numbers) and wrong
off it: q1's output width read from the keys (d_k == d_v in the example); q2's divisor taken from the
example's own d_k = 8 instead of the question's 64, and the variance taken over the first sequence only; q3's
shift always taken over the last axis (only dim=-1 was tried) and taken as the max of the whole tensor (fine
for unit logits, an underflow to 0/0 for rows far below the global max); q4's mask aligned at the bottom-right
(same as top-left when square); q5's scale read from V, hard-coded as the example's sqrt(8), the scores
round-tripped through float32 (the example's dtype), empty rows detected from key 0 only (a causal mask never
blocks it) and from `any(dim=1)` (the key axis of a 2-D mask only); q6's divisor from len(Q3), the number of
tokens; q7's answer generalised from a check whose mask kept every key; q8's d_k read from the notebook's
example Q (8) instead of the question's 64.
The correct variants are written by students who also test on one example (prints, asserts on the example's
shape) but read every size from the right tensor.

Public material used (search tool):
- phlippe/uvadlc_notebooks issue #72 and datawhalechina/happy-llm PR #96 (d_k read from q or k, "can't be
  inferred by the values"); juho-lee/set_transformer issue #18 (scale 1/sqrt(dim_V)); cneuralnetwork/
  solving-ml-papers issue #1 ("works for the particular situation where all hidden dims are same, but fail once
  you choose different dims"); jadore801120/attention-is-all-you-need-pytorch issue #153 (d_k != d_v breaks);
  lucidrains/flash-attention-jax PR #15 (qk_dim != v_dim "doesn't seem to come up too much"): ground the q1 and
  q5 width/scale variants and the q8 d_k variant.
- pytorch/pytorch PRs #131060/#133882 (_safe_softmax: fully masked rows), tracel-ai/burn PR #4697 (clamps sized
  to normal rows), robertknight/rten PR #1321, ml-explore/mlx issue #2395 (a single fully masked row in a 4x4
  mask): ground the q5 empty-row detection variants and the all-keys-kept q7 reasoning.
- The rest (global-max shift, bottom-right causal alignment as in flash-attn's convention, float32 round trip,
  len() of a 2-D tensor) are the example-fitting kinds this round's brief names, each written in a form of its
  own.

How the variants were checked: a throwaway script under /tmp/w85-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas (several
shapes, float64/float32/float16/bfloat16, 3-D/4-D, T_q != T_k, d_v != d_k, 2-D and batched masks, random
masks, fully masked rows, large float16 logits, gradients). Every correct variant agrees everywhere; every
wrong one differs in its question(s) and only there.

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

CORRECT = {
    "sdpa_sizes_named_from_their_own_tensors_shape_asserted_on_a_cross_attention_example": {
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V, True in mask = may attend."""
    T_q, d_k = Q.shape[-2], Q.shape[-1]
    T_k, d_v = K.shape[-2], V.shape[-1]
    assert K.shape[-1] == d_k and V.shape[-2] == T_k
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)          # (..., T_q, T_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        keeps_a_key = mask.any(dim=-1, keepdim=True)            # (..., T_q, 1)
        weights = weights.masked_fill(~keeps_a_key, 0.0)
    return weights @ V                                          # (..., T_q, d_v)


# tried on a made-up example on purpose not square: 2 queries, 3 keys, d_k = 4, d_v = 5
_q = torch.arange(8.0).reshape(1, 2, 4) / 8
_k = torch.arange(12.0).reshape(1, 3, 4).flip(-1) / 12
_v = torch.arange(15.0).reshape(1, 3, 5)
_o = scaled_dot_product_attention(_q, _k, _v, mask=torch.tensor([[True, False, False], [False, False, False]]))
assert _o.shape == (1, 2, 5) and torch.all(_o[0, 1] == 0)
print(_o)
''',
    },
    "softmax_amax_over_the_given_dim_checked_on_dim_zero_and_mask_from_ones_tril": {
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax along dim, max-shifted; -inf entries get exactly 0 when the slice has a finite entry."""
    m = torch.amax(x, dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / torch.sum(e, dim=dim, keepdim=True)


_x = torch.tensor([[1.0, 2.0, 0.5, -1.0], [3.0, -2.0, 0.0, 1.5], [0.2, 0.1, -0.3, 2.5]])
assert torch.allclose(stable_softmax(_x, dim=0), torch.exp(_x) / torch.exp(_x).sum(0, keepdim=True))
assert torch.allclose(stable_softmax(_x, dim=1), torch.exp(_x) / torch.exp(_x).sum(1, keepdim=True))
print(stable_softmax(torch.tensor([1000.0, 999.0, float("-inf")], dtype=torch.float16)))
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool, True where key j <= query i (top-left aligned)."""
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()


print(causal_mask(2, 4))
print(causal_mask(4, 2))
''',
    },
    "answers_from_named_sizes_with_asserts_on_the_example": {
        "weights_shape": '''B, T_q, T_k, d_k, d_v = 4, 10, 10, 64, 128
weights_shape = (B, T_q, T_k)
out_shape = (B, T_q, d_v)
assert (torch.empty(B, T_q, d_k) @ torch.empty(B, T_k, d_k).transpose(-2, -1)).shape == weights_shape
''',
        "raw_score_var": '''d_k = K.shape[-1]
raw_scores = torch.matmul(Q, K.transpose(-2, -1))
assert raw_scores.shape == (2, 5, 5)
raw_score_var = float(raw_scores.var())
scaled_score_var = float((raw_scores / d_k ** 0.5).var())
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        "attn_entries": '''T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = (2 * T) ** 2 * d_k // score_madds
print(attn_entries, score_madds, cost_ratio)
''',
    },
    "sdpa_where_on_broadcast_mask_empty_rows_by_all_blocked": {
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """Attention over the last two axes; any number of leading axes."""
    scale = 1.0 / math.sqrt(K.size(-1))
    scores = torch.matmul(Q, K.transpose(-1, -2)) * scale
    if mask is None:
        return torch.matmul(stable_softmax(scores, dim=-1), V)
    mask = torch.broadcast_to(mask, scores.shape)
    scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
    weights = stable_softmax(scores, dim=-1)
    blocked_everywhere = (~mask).all(dim=-1, keepdim=True)
    weights = torch.where(blocked_everywhere, torch.zeros_like(weights), weights)
    return torch.matmul(weights, V)


print(scaled_dot_product_attention(Q, K, V, causal_mask(5)).shape)
''',
    },
    "trace_divisor_from_the_key_width_and_answer_c_checked_on_the_example": {
        "weights3": '''d_k3 = K3.shape[-1]
scores3 = Q3 @ K3.T / math.sqrt(d_k3)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
assert torch.allclose(weights3_causal.sum(-1), torch.ones(3, dtype=torch.float64))
print(weights3, out3, weights3_causal, sep="\\n")
''',
        "q_trap_answer": '''_w = stable_softmax(scores3, dim=-1)
_w[~causal_mask(3)] = 0.0
print(_w.sum(-1))          # rows 0 and 1 no longer sum to 1
q_trap_answer = "C"
''',
    },
}

WRONG = {
    "q1_out_width_read_from_the_keys_since_the_example_has_d_v_equal_d_k": (
        {"weights_shape": '''Qs, Ks, Vs = (4, 10, 64), (4, 10, 64), (4, 10, 128)
weights_shape = (Qs[0], Qs[1], Ks[1])
out_shape = (Qs[0], Qs[1], Ks[2])     # in the notebook's example the output had the width of the keys
'''},
        {"mistake": "the output width is read from K (d_k = 64) instead of V (d_v = 128), which only agree in the "
                    "notebook's example where d_k == d_v: out_shape is (4, 10, 64)",
         "where": ["q1"]}),
    "q2_scale_divisor_computed_from_the_examples_own_d_k_of_8": (
        {"raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(d_k)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "scale_divisor reuses the example's d_k (8), giving sqrt(8) = 2.83 instead of sqrt(64) = 8.0 "
                    "for the d_k = 64 head the question asks about",
         "where": ["q2"]}),
    "q2_variances_of_the_first_sequence_of_the_batch_only": (
        {"raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q[0] @ K[0].T            # (5, 5): tried it on one sequence first
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the variances are taken over the first sequence's (5, 5) scores only instead of all (2, 5, 5) "
                    "entries of the batch, so both raw_score_var and scaled_score_var are off",
         "where": ["q2"]}),
    "q3_shift_max_taken_over_the_last_axis_whatever_dim": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    shifted = x - x.max(dim=-1, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''},
        {"mistake": "the max is always taken over the last axis while the sum runs over `dim`: right for dim=-1 "
                    "(the only one tried), wrong values (a different shift in each slice) for any other dim",
         "where": ["q3"]}),
    "q3_shift_by_the_max_of_the_whole_tensor": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, shifted by the largest logit so that nothing overflows."""
    exps = torch.exp(x - x.max())
    return exps / exps.sum(dim=dim, keepdim=True)
'''},
        {"mistake": "the shift is the max of the whole tensor, not of each slice: fine for unit-scale logits, but "
                    "a slice far below the global max (large or float16 logits) underflows to all zeros and gives "
                    "0/0 = NaN, and a tensor whose max is -inf gives NaN everywhere",
         "where": ["q3", "q5"]}),
    "q4_causal_aligned_bottom_right_by_the_key_surplus": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j."""
    if T_k is None:
        T_k = T_q
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=T_k - T_q)
'''},
        {"mistake": "the diagonal is offset by T_k - T_q, which aligns the mask at the bottom-right; it is the "
                    "same as top-left only when the mask is square (the example tried), wrong whenever T_q != T_k",
         "where": ["q4"]}),
    "q5_scale_from_the_width_of_the_values": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d)) V with an optional boolean mask (True = may attend)."""
    d = V.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the scores are divided by sqrt(d_v), the width of V, instead of sqrt(d_k): the same in the "
                    "example (d_k = d_v = 8), wrong weights whenever d_v != d_k",
         "where": ["q5"]}),
    "q5_scale_hard_coded_as_the_examples_root_eight": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scores = torch.matmul(Q, K.transpose(-2, -1)) / 2.8284271247461903   # sqrt(d_k), printed above
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the divisor is the number sqrt(8) copied from the example (d_k = 8) instead of sqrt(d_k) of "
                    "the inputs, so every other head width gets the wrong scale",
         "where": ["q5"]}),
    "q5_scores_round_tripped_through_float32": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = (torch.matmul(Q.float(), K.float().transpose(-2, -1)) / math.sqrt(d_k)).to(Q.dtype)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the scores are computed in float32 (the example's dtype) and cast back, so float64 inputs lose "
                    "their precision: results off by ~1e-7 instead of ~1e-15",
         "where": ["q5"]}),
    "q5_empty_rows_detected_from_key_zero_only": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask[..., :1]           # a query that cannot see key 0 sees nothing
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "a query is taken to have no visible key when key 0 is blocked, which holds for causal and "
                    "right-padding masks but not in general: rows that block key 0 but keep others are zeroed",
         "where": ["q5"]}),
    "q5_empty_row_check_any_over_axis_one": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the 'any key visible' check reduces axis 1, the key axis only of a 2-D (T_q, T_k) mask: with a "
                    "batched mask it reduces the query axis, so fully masked rows stay NaN (and wrong rows can be "
                    "zeroed)",
         "where": ["q5"]}),
    "q6_divisor_from_len_of_q3_counts_the_tokens": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(len(Q3))
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "len(Q3) is the number of tokens (3), not the width d_k = 4, so the scores are divided by "
                    "sqrt(3) instead of 2 and all three answers are off",
         "where": ["q6"]}),
    "q7_answers_a_after_trying_a_mask_that_kept_every_key": (
        {"q_trap_answer": '''# tried both ways on the example with my padding mask (no padding in it): identical outputs
q_trap_answer = "A"
'''},
        {"mistake": "answers A, generalising from a check whose mask kept every key (nothing to zero); with a real "
                    "causal mask the zeroed rows no longer sum to 1 (C)",
         "where": ["q7"]}),
    "q8_d_k_read_from_the_notebooks_example_queries": (
        {"attn_entries": '''T = 1024
d_k = Q.shape[-1]
attn_entries = T ** 2
score_madds = T ** 2 * d_k
cost_ratio = 4
'''},
        {"mistake": "d_k is read from the notebook's example Q (8) instead of the question's 64, so score_madds is "
                    "1024^2 * 8 instead of 1024^2 * 64",
         "where": ["q8"]}),
}
