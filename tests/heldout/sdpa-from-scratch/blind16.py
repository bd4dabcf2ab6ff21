"""Sixteenth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the Lesson 80 text, and only the module
docstrings and variant names of blind.py .. blind15.py (so that their mistakes are not repeated in the
same form). Public student code was searched with the code search (corpus `code`): Transformer-tutorial
`scaled_dot_product` functions, d2l `masked_softmax` / `sequence_mask` ports, CS336 `softmax` and
`scaled_dot_product_attention` solutions, a public `Attention` module of a from-scratch transformer,
nanoGPT-lecture notebooks and a "masked self-attention" chapter script. Eight of the fourteen wrong
variants carry a slip seen there (the source is named in a comment above each), rewritten into this
notebook's signatures.

Slips from public code: blocked scores filled with a tiny positive number (1e-15) instead of -inf,
the softmax over a positive `dim=2` written for 3-D `bmm` (the queries axis of 4-D inputs), the key
tensor unpacked into four named axes (3-D inputs crash), `torch.sqrt` called on a Python int, a
softmax whose sum is hard-coded to the last axis, a max taken in float32 and subtracted from the
half-precision input (the result stays float32), the causal mask returned as an additive 0/-inf float
matrix, and the nanoGPT lecture's "affinities start at zero" causal weights (uniform over the past).
Plausible slips of students of these lessons: NaN rows multiplied by zero (NaN stays), the empty-row
test taken before the fill (finds every row non-empty), `mask.any()` with no axis, Q and K both
divided by sqrt(d_k) in Question 2, shapes written as strings, and the cost growth given as the
increase (3) instead of the ratio (4).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests should lose
points (a broken `stable_softmax` also costs q5 where its dtype reaches the attention; a broken
`causal_mask` also costs q6, whose cell calls it). Correct variants are really correct but written
differently (Annotated-Transformer `mask == 0` with the blocked weights zeroed after the softmax, a
shift by the negated minimum of -x, a causal mask from the cumulative sum of an identity matrix, an
einsum trace with the output as a transposed product and a -1e9 fill in float64, computed answers).
Every variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`)
before it was committed; the grader was not run on this set.

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
    # Annotated-Transformer `mask == 0` on a bool mask; NaN rows of fully masked queries removed by
    # zeroing every blocked weight after the softmax (a NaN row is blocked everywhere)
    "eq_zero_fill_then_zero_blocked_weights": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scores = Q.matmul(K.transpose(-1, -2)) * (1.0 / math.sqrt(K.shape[-1]))
    if mask is None:
        return stable_softmax(scores, dim=-1).matmul(V)
    scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = stable_softmax(scores, dim=-1).masked_fill(mask == 0, 0.0)
    return weights.matmul(V)
'''},
    # the shift written as "plus the smallest entry of -x"
    "softmax_negated_amin_shift": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along dim; adding min(-x) is the same as subtracting max(x)."""
    neg_peak = (-x).amin(dim=dim, keepdim=True)
    e = (x + neg_peak).exp()
    return e / e.sum(dim, keepdim=True)
'''},
    # causal mask from a running count down the rows of an identity matrix
    "causal_from_eye_cumsum": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask: the cumulative sum down the rows of eye is 1 exactly where j <= i."""
    T_k = T_q if T_k is None else T_k
    return torch.eye(T_q, T_k, dtype=torch.int64).cumsum(dim=0) > 0
'''},
    # einsum scores, output as (V^T W^T)^T, causal weights with a -1e9 fill (fine in float64 with
    # no empty row)
    "trace_einsum_transposed_product": {TRACE: '''
scores3 = torch.einsum("qd,kd->qk", Q3, K3) / 2.0
weights3 = stable_softmax(scores3, dim=1)
out3 = (V3.T @ weights3.T).T
weights3_causal = stable_softmax(scores3.masked_fill(causal_mask(3) == 0, -1e9), dim=1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    # every short answer computed rather than typed
    "answers_computed": {
        SHAPES: '''
weights_shape = tuple(torch.Size([4, 10]) + torch.Size([10]))
out_shape = (4, 10) + (128,)
''',
        VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.einsum("bqd,bkd->bqk", Q, K)
raw_score_var = float(raw_scores.flatten().var(correction=1))
scaled_score_var = float((raw_scores / math.sqrt(d_k)).flatten().var(correction=1))
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        TRAP: '''
q_trap_answer = chr(ord("A") + 2)
''',
        COST: '''
T, head_width = 1024, 64
attn_entries = T * T
score_madds = attn_entries * head_width
cost_ratio = (2 * T) ** 2 * head_width // score_madds
''',
    },
}

WRONG = {
    # seen in: PSRahul/Transformer_Learner util.py scaled_dot_product
    #   (`attention_logits.masked_fill_(mask == 0, 1e-15)`)
    "q5_blocked_filled_tiny_positive": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, 1e-15)   # masked keys ~ 0
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "blocked scores are set to 1e-15, a score of about 0, not -inf: exp(0) = 1, so blocked keys "
                  "still get weight and the allowed weights no longer sum to 1",
       "where": ["q5"]}),

    # seen in: PSRahul/Transformer_Learner util.py (`F.softmax(attention_logits, dim=2)` after a 3-D bmm)
    "q5_softmax_dim_2_from_3d_code": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=2)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=2)
    return torch.matmul(weights, V)
'''}, {"mistake": "the softmax runs over the fixed axis 2, which is the key axis only for 3-D inputs; for 4-D "
                  "(batch, heads, T_q, T_k) inputs it normalises over the queries instead of the keys "
                  "(use dim=-1)",
       "where": ["q5"]}),

    # seen in: a public from-scratch transformer's `Attention` module
    #   (`batch_size, head, length, tensor_dim = key.size()`, `key.transpose(2, 3)`)
    "q5_keys_unpacked_into_four_axes": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    batch_size, heads, length, d_k = K.size()
    scores = torch.matmul(Q, K.transpose(2, 3)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "K's shape is unpacked into exactly four axes (and transposed with fixed axes 2, 3), so "
                  "3-D (batch, T, d) inputs crash; the leading axes must be left as `...` "
                  "(K.size(-1), K.transpose(-2, -1))",
       "where": ["q5"]}),

    # seen in: a public `scaled_dot_product(self, Q, K, V, mask=None)` snippet
    #   (`scores = torch.matmul(Q, K.transpose(-2, -1)) / torch.sqrt(d_k)` with `d_k = Q.size(-1)`)
    "q5_torch_sqrt_of_python_int": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / torch.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "torch.sqrt is called on d_k, a Python int, which raises a TypeError on every call; "
                  "use math.sqrt(d_k)",
       "where": ["q5"]}),

    # seen in: tgadeliya/matcha components/utils.py softmax (`xs.sum(dim=-1, keepdim=True)` whatever `dim`)
    "q3_sum_hard_coded_to_last_axis": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=-1, keepdim=True)
'''}, {"mistake": "the max is taken along `dim` but the denominator always sums over the last axis, so for "
                  "any dim other than -1 the slices along dim do not sum to 1",
       "where": ["q3"]}),

    # seen in: a public CS336 `softmax` (`x32 = x.to(torch.float32)`, max of x32, then `x - x_max`)
    "q3_float32_max_subtracted_from_input": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`; the max is found in float32 to be safe in half precision."""
    x_max = x.float().amax(dim=dim, keepdim=True)
    exps = torch.exp(x - x_max)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "the max is computed in float32 and subtracted from the original x, which promotes the "
                  "whole result to float32: float16/bfloat16 logits give float32 weights (the dtype of x "
                  "is not kept), and the attention then multiplies float32 weights by half-precision V",
       "where": ["q3", "q5"]}),

    # seen in: niujiazhen/happy-llm docs/chapter2/code/maskSelfAttention.py
    #   (`mask = torch.triu(torch.full((4, 4), float("-inf")), diagonal=1)`, added to the scores)
    "q4_additive_zero_minus_inf_matrix": ({CM: '''
def causal_mask(T_q, T_k=None):
    """Causal mask to add to the scores: 0 where query i may see key j, -inf above the diagonal."""
    if T_k is None:
        T_k = T_q
    return torch.triu(torch.full((T_q, T_k), float("-inf")), diagonal=1)
'''}, {"mistake": "returns an additive float mask (0 allowed, -inf blocked) instead of the boolean mask "
                  "the notebook defines (True where j <= i); `~causal_mask(...)` and masked_fill no "
                  "longer work with it",
       "where": ["q4", "q6"]}),

    # seen in: nanoGPT-lecture notebooks (ner9co/nanoGPT toy.py and others:
    #   `wei = torch.zeros((T, T)); wei = wei.masked_fill(tril == 0, float("-inf"))`)
    "q6_causal_from_zero_affinities": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
wei = torch.zeros(3, 3, dtype=torch.float64)
weights3_causal = stable_softmax(wei.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the causal weights are made from zeros instead of the scores (the lecture's averaging "
                  "demo), so each query spreads its weight evenly over the visible keys; query 2 should "
                  "get the same weights as without the mask",
       "where": ["q6"]}),

    # plausible: "multiply by 0 to clear the empty rows", but NaN * 0 is NaN
    "q5_nan_rows_multiplied_by_zero": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = weights * mask.any(dim=-1, keepdim=True)   # rows with no key -> 0
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "fully masked rows are NaN after the softmax and multiplying them by 0 leaves them NaN "
                  "(NaN * 0 = NaN); they must be replaced (torch.where / masked_fill), not multiplied",
       "where": ["q5"]}),

    # plausible: the empty-row test written one line too early
    "q5_empty_rows_found_before_fill": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        has_key = torch.isfinite(scores).any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the rows with a visible key are found from the scores before the mask is applied, when "
                  "every score is still finite, so no row counts as empty and fully masked queries stay "
                  "NaN instead of getting zeros",
       "where": ["q5"]}),

    # plausible: any() without an axis
    "q5_any_over_whole_mask": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any()
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "mask.any() with no dim asks whether any query can see any key at all, a single bool; a "
                  "fully masked query in a mask that allows something elsewhere stays NaN (use "
                  "any(dim=-1, keepdim=True), one answer per query)",
       "where": ["q5"]}),

    # plausible: "scaling" both inputs by sqrt(d_k) in Question 2
    "q2_queries_and_keys_both_scaled": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = ((Q / math.sqrt(d_k)) @ (K / math.sqrt(d_k)).transpose(-2, -1)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "both Q and K are divided by sqrt(d_k), so the scores are divided by d_k and the "
                  "'scaled' variance is about 1/d_k instead of about 1",
       "where": ["q2"]}),

    # plausible: shapes written as the text print() shows
    "q1_shapes_as_strings": ({SHAPES: '''
weights_shape = "(4, 10, 10)"
out_shape = "(4, 10, 128)"
'''}, {"mistake": "the shapes are strings, not tuples of Python ints", "where": ["q1"]}),

    # plausible: "the factor it grows by" read as the increase
    "q8_increase_instead_of_ratio": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = (2048 * 2048 * 64 - score_madds) // score_madds
'''}, {"mistake": "cost_ratio is the increase relative to the old cost (3), not the factor new / old (4)",
       "where": ["q8"]}),
}
