"""Seventeenth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the Lesson 80 text, and only the module
docstrings and variant names of blind.py .. blind16.py (so that their mistakes are not repeated in the
same form). This round leans on the questions the earlier sets touched least (q1, q2, q4, q6, q7, q8)
and on slips that pair a right idea with one wrong detail (a trailing comma, a slice bound, a missing
call, a parameter name, a dtype, a typo'd assignment, a view, a default argument, an in-place op,
missing parentheses).

Public student code was searched with the code search (corpus `code`): CS336 `softmax` solutions,
d2l `masked_softmax` / `sequence_mask` ports, a `MaskedSoftmax` gist port, AllenNLP-derived
`masked_softmax` copies, public `make_causal_mask` helpers, a hand-written copy of the PyTorch
reference `scaled_dot_product_attention`, and the LLMs-from-scratch `CausalAttention` class. Seven of
the fourteen wrong variants carry a slip seen there (the source is named in a comment above each),
rewritten into this notebook's signatures: a softmax parameter named `dim_i` instead of `dim`, the
causal mask viewed as (1, 1, T_q, T_k), masking by arithmetic `scores * mask + value * (1 - mask)`
with value = -inf, a `x * mask + (1 - 1 / mask)` bias built from a float32 copy of the mask, an
optional `scale` whose default is False instead of None, blocked scores kept in the softmax and
removed by renormalising with a 1e-13 guard, and an in-place `masked_fill_` on scores that are used
again. Plausible slips of students of these lessons: a trailing comma that makes a shape a 1-tuple,
a slice one axis short, `.item` without the call, a denominator accumulated in float32, `==` typed
for `=`, a two-letter hedge in the multiple choice, and a cost ratio missing its parentheses.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests should lose
points (a broken `stable_softmax` also costs q5 and q6, whose functions and cells call it; a broken
`causal_mask` also costs q6). Correct variants are really correct but written differently (a causal
mask as the transpose of an upper triangle of the transposed shape, empty rows found with
`isinf().all` and zeroed by boolean indexing as in a public `masked_softmax`, the reciprocal-mask
bias done in the scores' dtype, a nanoGPT-style trace with `** -0.5` and a cloned in-place fill, and
answers written in other forms). Every variant was checked against plain torch
(`F.scaled_dot_product_attention`, `torch.softmax`) before it was committed; the grader was not run
on this set.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
SHAPES = "weights_shape"     # the q1 cell (also defines out_shape)
VAR = "raw_score_var"        # the q2 cell
TRACE = "weights3"           # the q6 cell
TRAP = "q_trap_answer"       # the q7 cell
COST = "attn_entries"        # the q8 cell

CORRECT = {
    # upper triangle of the (T_k, T_q) ones, transposed: entry [i, j] is triu[j, i], True when i >= j,
    # and the shape comes out as (T_q, T_k) for rectangular masks too
    "causal_triu_of_transposed_shape": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where j <= i, built as the transpose of an upper triangle."""
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_k, T_q, dtype=torch.bool).triu().T
'''},
    # seen in: a public `masked_softmax` (`fully_masked = attn.isinf().all(dim=-1)`,
    #   `attn[fully_masked] = 0`): empty rows found from the filled scores, zeroed by boolean indexing
    "isinf_all_rows_zeroed_by_index": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scale = 1.0 / math.sqrt(K.shape[-1])
    scores = (Q @ K.mT) * scale
    if mask is None:
        return stable_softmax(scores) @ V
    scores = torch.where(mask, scores, float("-inf"))
    fully_masked = scores.isinf().all(dim=-1)
    weights = stable_softmax(scores)
    weights[fully_masked] = 0.0
    return weights @ V
'''},
    # the `x * mask + (1 - 1 / mask)` bias of a public MaskedSoftmax, with the mask cast to the scores'
    # own dtype: 1 / 0 = inf, so blocked scores become -inf and allowed ones are unchanged
    "reciprocal_mask_bias_in_scores_dtype": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scores = torch.matmul(Q, K.transpose(-1, -2)) / math.sqrt(Q.shape[-1])
    if mask is not None:
        m = mask.to(scores.dtype)
        scores = scores * m + (1 - 1 / m)
        weights = stable_softmax(scores, dim=-1)
        weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
    # nanoGPT-lecture style: `* head_size ** -0.5`, a tril of ones compared with 0, and the in-place
    # fill done on a clone so that the unmasked scores survive
    "trace_nanogpt_clone_fill": {TRACE: '''
scores3 = Q3 @ K3.transpose(-2, -1) * K3.shape[-1] ** -0.5
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
tril = torch.tril(torch.ones(3, 3))
weights3_causal = stable_softmax(scores3.clone().masked_fill_(tril == 0, float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    # every short answer in another form
    "answers_other_forms": {
        SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = (*weights_shape[:-1], 128)
''',
        VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.matmul(Q, K.mT)
raw_score_var = float(torch.var(raw_scores))
scaled_score_var = float(torch.var(raw_scores / d_k ** 0.5))
scale_divisor = float(64 ** 0.5)
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        TRAP: '''
q_trap_answer = "ABCD"[2]
''',
        COST: '''
attn_entries = int(math.pow(1024, 2))
score_madds = math.prod((1024, 1024, 64))
cost_ratio = round((2048 / 1024) ** 2)
''',
    },
}

WRONG = {
    # plausible: a trailing comma left after the tuple
    "q1_weights_shape_trailing_comma": ({SHAPES: '''
weights_shape = (4, 10, 10),
out_shape = (4, 10, 128)
'''}, {"mistake": "the trailing comma makes weights_shape a 1-tuple holding a tuple, ((4, 10, 10),), not the "
                  "tuple of ints (4, 10, 10)",
       "where": ["q1"]}),

    # plausible: the output shape derived from the weights' shape with a slice one axis short
    "q1_out_shape_slice_off_by_one": ({SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = weights_shape[:-2] + (128,)
'''}, {"mistake": "out_shape drops the query axis: weights_shape[:-2] keeps only the batch, giving (4, 128) "
                  "instead of (4, 10, 128) (the slice should be [:-1])",
       "where": ["q1"]}),

    # plausible: .item without the call
    "q2_item_method_not_called": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "raw_score_var is the bound method `.item`, not the float it returns (the call's "
                  "parentheses are missing)",
       "where": ["q2"]}),

    # seen in: CS336 `softmax` solutions whose parameter is named `dim_i` / `dim_idx`
    #   (`def softmax(x, dim_i)`, `Softmax.forward(self, x, dim_idx)`)
    "q3_parameter_named_dim_i": ({SM: '''
def stable_softmax(x, dim_i=-1):
    """Softmax of x along `dim_i`, with the max subtracted first so that nothing overflows."""
    largest_entry = torch.max(x, dim=dim_i, keepdim=True)[0]
    exp = torch.exp(x - largest_entry)
    return exp / torch.sum(exp, dim_i, keepdim=True)
'''}, {"mistake": "the axis parameter is named dim_i instead of dim, so every call stable_softmax(x, dim=...) "
                  "raises a TypeError (the signature is fixed), including the calls in the attention and "
                  "the hand trace",
       "where": ["q3", "q5", "q6"]}),

    # plausible: the denominator accumulated in float32 "for accuracy", result left in float32
    "q3_sum_accumulated_in_float32": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    exps = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return exps / exps.sum(dim=dim, keepdim=True, dtype=torch.float32)
'''}, {"mistake": "the sum is taken with dtype=torch.float32, which promotes half-precision results to float32 "
                  "(the dtype of x is not kept) and rounds float64 denominators to float32 precision",
       "where": ["q3", "q5"]}),

    # plausible: `==` typed for `=` when filling in the default
    "q4_T_k_compared_not_assigned": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k == T_q
    rows = torch.arange(T_q).unsqueeze(1)   # (T_q, 1)
    cols = torch.arange(T_k).unsqueeze(0)   # (1, T_k)
    return cols <= rows
'''}, {"mistake": "`T_k == T_q` compares instead of assigning, so T_k stays None and the square call "
                  "causal_mask(T) crashes in torch.arange(None)",
       "where": ["q4", "q6"]}),

    # seen in: public `make_causal_mask` helpers (`torch.tril(torch.ones(T, T, dtype=torch.bool))`
    #   returned as `m.view(1, 1, seq_len, seq_len)`, "[1, 1, T, T] to broadcast over (B, H)")
    "q4_mask_viewed_1_1_T_T": ({CM: '''
def causal_mask(T_q, T_k=None):
    """Causal mask shaped [1, 1, T_q, T_k] so that it broadcasts over (batch, heads)."""
    if T_k is None:
        T_k = T_q
    m = torch.tril(torch.ones(T_q, T_k, dtype=torch.bool))
    return m.view(1, 1, T_q, T_k)
'''}, {"mistake": "the mask gets two leading size-1 axes, shape (1, 1, T_q, T_k) instead of (T_q, T_k); masking "
                  "a 2-D score matrix with it turns the result 4-D",
       "where": ["q4", "q6"]}),

    # seen in: d2l `sequence_mask` forks that mask by arithmetic (`return X * mask + value * (1 - mask)`),
    #   here with value = -inf
    "q5_mask_arithmetic_with_inf": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores * mask + float("-inf") * (~mask)
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the mask is applied by arithmetic, scores * mask + (-inf) * (~mask): for an allowed key "
                  "the second term is -inf * 0 = NaN, so every masked call returns NaN (use masked_fill)",
       "where": ["q5"]}),

    # seen in: a public MaskedSoftmax gist port (`mask = mask.float()`, `x * mask + (1 - 1 / mask)`)
    "q5_reciprocal_mask_bias_float32": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        m = mask.float()
        scores = scores * m + (1 - 1 / m)      # 1/0 = inf -> blocked scores become -inf
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the mask is turned into float32 before it is combined with the scores, so half-precision "
                  "(float16/bfloat16) scores are promoted to float32 and the masked call no longer keeps "
                  "the inputs' dtype (the product with V fails on mixed dtypes)",
       "where": ["q5"]}),

    # seen in: a public copy of the PyTorch reference implementation
    #   (`scale: float | None = False`, `1 / math.sqrt(query.size(-1)) if scale is None else scale`)
    "q5_scale_default_false": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None, scale=False):
    """softmax(Q K^T * scale) V with an optional boolean mask (True = may attend)."""
    scale_factor = 1 / math.sqrt(Q.size(-1)) if scale is None else scale
    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale_factor
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the optional scale defaults to False instead of None, so the `is None` test never fires and "
                  "the scores are multiplied by False (0): every query gets uniform weights over its keys",
       "where": ["q5"]}),

    # seen in: AllenNLP-derived `masked_softmax` copies (non-memory-efficient branch:
    #   `softmax(vector * mask)`, `result * mask`, `result / (result.sum(dim, keepdim=True) + 1e-13)`)
    "q5_renormalised_after_softmax_eps": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        weights = stable_softmax(scores * mask, dim=-1) * mask
        weights = weights / (weights.sum(dim=-1, keepdim=True) + 1e-13)
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "blocked keys stay in the softmax with score 0 and are removed afterwards by renormalising: "
                  "when the blocked scores dominate, the allowed weights underflow (float16 large scores), and "
                  "the 1e-13 guard is 0 in float16, so a fully masked query gives 0/0 = NaN instead of zeros",
       "where": ["q5"]}),

    # seen in: LLMs-from-scratch `CausalAttention` (`attn_scores.masked_fill_(...)`, in place)
    "q6_inplace_fill_before_unmasked": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3_causal = stable_softmax(scores3.masked_fill_(~causal_mask(3), float("-inf")), dim=-1)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "masked_fill_ works in place, so the causal fill also overwrites scores3; the unmasked weights3 "
                  "(and out3) are then computed from the masked scores and equal the causal weights",
       "where": ["q6"]}),

    # plausible: hedging between two options
    "q7_two_letters_hedged": ({TRAP: '''
q_trap_answer = "C, D"
'''}, {"mistake": "two letters are given; the answer is the single letter C (D is wrong: the shrinking happens "
                  "in every dtype)",
       "where": ["q7"]}),

    # plausible: the ratio written without parentheses around the old cost
    "q8_ratio_missing_parentheses": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = 2048 * 2048 * 64 // 1024 * 1024 * 64
'''}, {"mistake": "the old cost is not in parentheses, so // divides by 1024 only and the result is then "
                  "multiplied by 1024 * 64 again: cost_ratio is a huge number instead of 4",
       "where": ["q8"]}),
}
