"""Eighty-fourth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind83.py (for the format), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: RESHAPING, VIEWING AND PERMUTING, CODE WRITTEN FOR ANY RANK. Each wrong cell is careful
code that moves dimensions around and slips once while still giving the right shape (or the right shape in
the case the student tried): per-sequence probes `stack`ed on the last dim (q1); keys `reshape`d to
`(B, d_k, T)` instead of transposed, and batch and tokens flattened together before the product (q2); the max
and the sum unsqueezed at -1 instead of at `dim`, and rows flattened after `movedim` but reshaped straight
back to the input's shape instead of being moved back (q3); a flat position index divided by `T_q` instead of
`T_k`, and the row/column `unsqueeze`s swapped and hidden by a `reshape(T_q, T_k)` (q4); the output computed
in the column convention `V^T W^T` and `reshape`d instead of transposed, `d_k` read from axis 2 (right for 3-D,
the query axis for 4-D), and empty rows zeroed through `reshape(-1, T_k)` of non-contiguous weights, which
writes into a copy (q5); the hand-trace rows softmaxed one by one and `stack`ed as columns, and `einsum`
subscripts for `out3` with the query and key letters swapped (q6); a trap answer reasoned from transposed
layouts (q7); the score cost counted as every entry of the flattened `Q` times every entry of the flattened
`K` (q8). The correct variants move dimensions the same ways and get them right: a flattened `bmm` over the
broadcast leading shape with `expand(...).reshape(...)` and `view` back, a softmax that `permute`s `dim` to the
end, views rows on a `.contiguous()` copy and permutes back with the inverse permutation; ellipsis `einsum`
with `movedim` for the softmax and a mask from flat positions `// T_k`, `% T_k`; the hand trace from
`unbind`/`stack(dim=0)` and `.mT`; answers from probe shapes stacked on dim 0 and `numel` counts.

Public material used (search tool):
- "Reshaping and Transposing for Parallel Heads" (book-ai.org/books/transformer/chapter-03/section-03) and
  "The Mechanics of Reshaping in Multi-Head Attention" (michaelgethers.com, `view(B, T, h, d_k).permute(0, 2, 1,
  3)` and its stride discussion): ground the view/reshape-where-a-transpose-was-needed kinds (q2, q5) and the
  correct variants' `.contiguous()` before `view`.
- bugfix-66.com's multi-head attention exercise (values stored transposed, "each head's final matrix is the
  product of its softmax matrix and the transpose of its v submatrix"): grounds the column-convention output
  turned back with a reshape (q5) and the keys-by-queries product (q5, the copy-writing variant).
- GitHub PRs on `squeeze()`/size-1 axes and shape slips in batched code (galsang/BiDAF-pytorch#26,
  NVIDIA/tacotron2#303, pytorch/pytorch#142852 "Deprecate torch.squeeze() with unspecified dim"): the general
  kind "an axis operation written for the rank the author tried" behind the q3 unsqueeze(-1) and the q5 axis-2
  `d_k` variants.
- The rest (probes stacked on the wrong dim, flat-index divmod with the wrong length, swapped einsum letters,
  a reshape of a non-contiguous tensor silently copying before an in-place write) are kinds this round's brief
  names, each written in a form of its own.

How the variants were checked: a throwaway script under /tmp/w84-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas (several
shapes, float64/float32/float16/bfloat16, 2-D/3-D/4-D, T_q != T_k, d_v != d_k, 2-D, batched and broadcast
masks, fully masked rows, softmax over every dim, gradients). Every correct variant agrees everywhere; every
wrong one differs in its question(s) and only there.

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

CORRECT = {
    "flattened_bmm_over_the_broadcast_lead_softmax_rows_viewed_after_permute_and_contiguous": {
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax along `dim`: move `dim` last, view the rest as rows, shift by the row max, move back."""
    n = x.dim()
    dim = dim % n
    perm = [d for d in range(n) if d != dim] + [dim]
    inverse = [0] * n
    for i, p in enumerate(perm):
        inverse[p] = i
    moved = x.permute(*perm).contiguous()          # view needs contiguous memory after a permute
    rows = moved.view(-1, moved.shape[-1])
    shifted = rows - rows.amax(dim=1, keepdim=True)
    exps = shifted.exp()
    probs = (exps / exps.sum(dim=1, keepdim=True)).view(moved.shape)
    return probs.permute(*inverse)
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """Any number of leading dims: broadcast them, flatten them into one batch for bmm, unflatten at the end."""
    T_q, d_k = Q.shape[-2:]
    T_k, d_v = V.shape[-2:]
    shapes = [Q.shape[:-2], K.shape[:-2], V.shape[:-2]]
    if mask is not None:
        while mask.dim() < 2:
            mask = mask.unsqueeze(0)
        shapes.append(mask.shape[:-2])
    lead = torch.broadcast_shapes(*shapes)
    Qf = Q.expand(*lead, T_q, d_k).reshape(-1, T_q, d_k)
    Kf = K.expand(*lead, T_k, d_k).reshape(-1, T_k, d_k)
    Vf = V.expand(*lead, T_k, d_v).reshape(-1, T_k, d_v)
    scores = torch.bmm(Qf, Kf.transpose(1, 2)) / math.sqrt(d_k)
    if mask is not None:
        m = mask.expand(*lead, T_q, T_k).reshape(-1, T_q, T_k)
        scores = scores.masked_fill(~m, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = weights.masked_fill(~m.any(dim=-1, keepdim=True), 0.0)
    else:
        weights = stable_softmax(scores, dim=-1)
    out = torch.bmm(weights, Vf)
    return out.view(*lead, T_q, d_v)
''',
    },
    "ellipsis_einsum_attention_softmax_by_movedim_mask_from_flat_positions_divmod_t_k": {
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    last = x.movedim(dim, -1)
    shifted = last - last.amax(dim=-1, keepdim=True)
    exps = torch.exp(shifted)
    return (exps / exps.sum(dim=-1, keepdim=True)).movedim(-1, dim)
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    flat = torch.arange(T_q * T_k).view(T_q, T_k)   # row-major: position = i * T_k + j
    rows, cols = flat // T_k, flat % T_k
    return cols <= rows
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = 1.0 / math.sqrt(Q.shape[-1])
    scores = torch.einsum("...qd,...kd->...qk", Q, K) * scale
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        keep = mask.any(dim=-1).unsqueeze(-1)        # (..., T_q, 1): does the query see any key?
        weights = torch.where(keep, weights, torch.zeros((), dtype=weights.dtype, device=weights.device))
    return torch.einsum("...qk,...kv->...qv", weights, V)
''',
    },
    "trace_rows_unbound_and_stacked_back_on_dim_0_scores_with_mt": {
        "raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q @ K.mT                      # .mT swaps only the last two dims
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
''',
        "weights3": '''def softmax_rows(s):
    return torch.stack([stable_softmax(row, dim=0) for row in s.unbind(0)], dim=0)

scores3 = Q3 @ K3.mT / math.sqrt(4)
weights3 = softmax_rows(scores3)
out3 = torch.einsum("qk,kv->qv", weights3, V3)
weights3_causal = softmax_rows(scores3.masked_fill(~causal_mask(3), float("-inf")))
print(weights3, out3, weights3_causal, sep="\\n")
''',
    },
    "answers_from_probes_stacked_on_dim_0_and_numel_counts": {
        "weights_shape": '''Qp, Kp, Vp = torch.empty(4, 10, 64), torch.empty(4, 10, 64), torch.empty(4, 10, 128)
w = torch.stack([q @ k.T for q, k in zip(Qp.unbind(0), Kp.unbind(0))], dim=0)
o = torch.stack([wi @ v for wi, v in zip(w.unbind(0), Vp.unbind(0))], dim=0)
weights_shape = tuple(w.shape)
out_shape = tuple(o.shape)
''',
        "q_trap_answer": '''# softmax then zeroing: rows no longer sum to 1, the output rows shrink
q_trap_answer = "C"
''',
        "attn_entries": '''T, d_k = 1024, 64
attn_entries = torch.empty(T, T).numel()
score_madds = attn_entries * d_k             # one length-d_k dot product per entry
cost_ratio = torch.empty(2 * T, 2 * T).numel() * d_k // score_madds
''',
    },
}

WRONG = {
    "q1_per_sequence_probes_stacked_on_the_last_dim": (
        {"weights_shape": '''Qp, Kp, Vp = torch.empty(4, 10, 64), torch.empty(4, 10, 64), torch.empty(4, 10, 128)
w = torch.stack([q @ k.T for q, k in zip(Qp.unbind(0), Kp.unbind(0))], dim=-1)
o = torch.stack([wi @ v for wi, v in zip(w.unbind(-1), Vp.unbind(0))], dim=-1)
weights_shape = tuple(w.shape)
out_shape = tuple(o.shape)
'''},
        {"mistake": "the per-sequence probe results are stacked with dim=-1, so the batch axis lands last: "
                    "weights_shape (10, 10, 4) and out_shape (10, 128, 4) instead of (4, 10, 10) and (4, 10, 128)",
         "where": ["q1"]}),
    "q2_keys_reshaped_to_d_k_by_t_instead_of_transposed": (
        {"raw_score_var": '''d_k = Q.shape[-1]
B, T, D = K.shape
raw_scores = Q @ K.reshape(B, D, T)          # (B, d_k, T) for the product
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''},
        {"mistake": "the keys are reshaped to (2, 8, 5) instead of transposed: the shape is right but the "
                    "entries are scrambled, so the scores and both variances are those of wrong products",
         "where": ["q2"]}),
    "q2_batch_and_tokens_flattened_together_so_queries_meet_the_other_sequences_keys": (
        {"raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q.flatten(0, -2) @ K.flatten(0, -2).mT      # (10, 10): any batch size, one product
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''},
        {"mistake": "batch and token axes are flattened together before the product, so the scores are a "
                    "(10, 10) matrix that also pairs queries of one sequence with keys of the other; the "
                    "variances are taken over those 100 entries instead of the (2, 5, 5) scores",
         "where": ["q2"]}),
    "q3_max_and_sum_unsqueezed_at_minus_one_instead_of_at_dim": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    top = x.amax(dim=dim).unsqueeze(-1)
    exps = torch.exp(x - top)
    return exps / exps.sum(dim=dim).unsqueeze(-1)
'''},
        {"mistake": "the reduced max and sum get their axis back with unsqueeze(-1) instead of unsqueeze(dim): "
                    "right for dim=-1, but for any other dim they broadcast against the wrong axis (wrong "
                    "values, or a shape error)",
         "where": ["q3"]}),
    "q3_rows_flattened_after_movedim_but_reshaped_straight_back_to_the_input_shape": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    moved = x.movedim(dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    exps = torch.exp(rows - rows.amax(dim=1, keepdim=True))
    return (exps / exps.sum(dim=1, keepdim=True)).reshape(x.shape)
'''},
        {"mistake": "after moving dim last and normalising rows, the result is reshaped to x's shape instead of "
                    "to the moved shape and moved back: right for the last dim, scrambled values for any other",
         "where": ["q3"]}),
    "q4_flat_positions_split_with_t_q_instead_of_t_k": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    flat = torch.arange(T_q * T_k).view(T_q, T_k)
    rows, cols = flat // T_q, flat % T_q
    return cols <= rows
'''},
        {"mistake": "the row-major position index i * T_k + j is split with // T_q and % T_q instead of T_k: "
                    "right for square masks, wrong entries whenever T_q != T_k",
         "where": ["q4"]}),
    "q4_row_and_column_unsqueezes_swapped_then_reshaped_to_t_q_by_t_k": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q).unsqueeze(0)
    cols = torch.arange(T_k).unsqueeze(1)
    return (cols <= rows).reshape(T_q, T_k)
'''},
        {"mistake": "query positions are put along the columns and key positions along the rows, giving a "
                    "(T_k, T_q) grid that is then reshaped to (T_q, T_k): the square mask is the upper "
                    "triangle and rectangular ones are scrambled",
         "where": ["q4", "q6"]}),
    "q5_output_as_v_t_times_w_t_reshaped_instead_of_transposed": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.mT / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, weights.new_zeros(()))
    out_t = V.mT @ weights.mT          # column convention: out^T = V^T W^T, (..., d_v, T_q)
    return out_t.reshape(*out_t.shape[:-2], out_t.shape[-1], out_t.shape[-2])
'''},
        {"mistake": "the output is computed transposed, (..., d_v, T_q), and turned into (..., T_q, d_v) with "
                    "reshape instead of a transpose: right shape, scrambled values",
         "where": ["q5"]}),
    "q5_d_k_read_from_axis_2_which_is_the_query_axis_of_4d_inputs": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[2]                   # (batch, tokens, d_k)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    else:
        weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''},
        {"mistake": "d_k is read from axis 2, which is the feature axis only for 3-D inputs; for 4-D (batch, "
                    "heads, T_q, d_k) inputs it is T_q, so the scores are divided by sqrt(T_q) (and 2-D inputs raise "
                    "an IndexError)",
         "where": ["q5"]}),
    "q5_empty_rows_zeroed_through_a_reshape_of_transposed_weights_that_writes_a_copy": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores_kq = K @ Q.mT / math.sqrt(d_k)           # keys-by-queries layout, (..., T_k, T_q)
    if mask is not None:
        scores_kq = scores_kq.masked_fill(~mask.mT, float("-inf"))
    scores = scores_kq.mT                            # back to (..., T_q, T_k)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        T_k = weights.shape[-1]
        empty = ~mask.expand(weights.shape).reshape(-1, T_k).any(dim=-1)
        weights.reshape(-1, T_k)[empty] = 0.0         # zero the rows that see no key
    return weights @ V
'''},
        {"mistake": "the weights are non-contiguous (scores built keys-by-queries and turned back with .mT), "
                    "so weights.reshape(-1, T_k) is a copy and zeroing the fully masked rows in it never "
                    "reaches the weights: with batched inputs those rows stay NaN instead of zeros",
         "where": ["q5"]}),
    "q6_rows_softmaxed_one_by_one_and_stacked_as_columns": (
        {"weights3": '''def softmax_rows(s):
    return torch.stack([stable_softmax(row, dim=0) for row in s.unbind(0)], dim=1)

scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = softmax_rows(scores3)
out3 = weights3 @ V3
weights3_causal = softmax_rows(scores3.masked_fill(~causal_mask(3), float("-inf")))
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "each query's softmaxed row is stacked with dim=1, so the weight matrices are transposed "
                    "(columns sum to 1) and out3 is computed from the transposed weights",
         "where": ["q6"]}),
    "q6_out3_einsum_with_the_query_and_key_letters_swapped": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = torch.einsum("qk,qv->kv", weights3, V3)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "out3 is written as einsum('qk,qv->kv'), which sums over queries and gives weights3.T @ V3 "
                    "(same (3, 2) shape) instead of weights3 @ V3",
         "where": ["q6"]}),
    "q7_answers_b_reading_the_mask_in_a_keys_by_queries_layout": (
        {"q_trap_answer": '''# scores = Q @ K.T: after the transpose the keys index the rows, so the lower triangle
# is "keys before queries" and causal attention should keep the upper one
q_trap_answer = "B"
'''},
        {"mistake": "answers B, reading the (T_q, T_k) weights as keys-by-queries, when the mask is the right "
                    "way round and the problem is that the kept weights are not renormalised (C)",
         "where": ["q7"]}),
    "q8_score_madds_as_every_entry_of_flattened_q_times_every_entry_of_flattened_k": (
        {"attn_entries": '''T, d_k = 1024, 64
attn_entries = T * T
def madds(T, d_k):
    return (T * d_k) * (T * d_k)       # each entry of Q.flatten() meets each entry of K.flatten()
score_madds = madds(T, d_k)
cost_ratio = madds(2 * T, d_k) // madds(T, d_k)
'''},
        {"mistake": "score_madds counts every entry of the flattened Q against every entry of the flattened K, "
                    "(T d_k)^2 = 2^32, instead of T^2 d_k: the d_k features are only paired index by index",
         "where": ["q8"]}),
}
