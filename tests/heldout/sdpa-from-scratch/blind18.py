"""Eighteenth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, and only the module docstrings and
variant names of blind.py .. blind17.py (so that their mistakes are not repeated in the same form).
This round leans on the parts the earlier sets touched least (q1, q4, q6, q8 and the less common
corners of q3 and q5) and on slips that pair a right idea with one wrong detail (a missing comma, a
reshape for a transpose, an in-place op, a cumsum axis, a discarded result, a default argument,
any-for-all, a broadcast, a fill value, a dtype, 0 * -inf, Python's power associativity).

Public code was searched with the code search (corpus `code`): CS336 `softmax` and
`scaled_dot_product_attention` solutions, fairseq2's in-place `softmax_`, d2l `masked_softmax` /
`sequence_mask` forks, a hand-written `ScaleDotProduct` in a transformer-from-scratch repository,
public `causal_mask` helpers (miniGPT, attention-paper re-implementations, a numpy `masks.py`), and
LLMs-from-scratch / happy-llm causal-attention scripts. Seven of the fourteen wrong variants carry a
slip seen there (the source is named in a comment above each), rewritten into this notebook's
signatures: a softmax shifted by the max of the whole tensor, a softmax that exponentiates and
divides in place (`exp_` then `/=`), a mask parameter whose default is the string "none", blocked
scores filled with d2l's -1e6 and fully masked rows zeroed by multiplying, scores upcast to float32
for the softmax and never cast back, and an additive causal bias made by multiplying a triu of ones
by a large negative number (here -inf, which turns 0 * -inf into NaN). Plausible slips of students of
these lessons: a 1-tuple written without its comma, keys reshaped instead of transposed, an eye
cumsum along the wrong axis, `tril()` whose result is thrown away, `isinf().any` used to find empty
rows, empty rows zeroed by indexing with the unbroadcast mask, V = I in float32 for a float64 trace,
and `2 ** 10 ** 2`.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q6). Correct variants are really correct but written differently (the scale
as `torch.sqrt` of a tensor in Q's dtype as in a CS336 solution, a causal mask as `triu(ones, 1) == 0`
as in public miniGPT helpers, a trace with a `triu * -1e9` bias in float64 and V = I, a softmax with a
finite-max guard and a normalised axis, and shapes and costs computed from probes). Every variant was
checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) before it was
committed; the grader was not run on this set.

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
    # seen in: a CS336 scaled_dot_product_attention solution (torch.sqrt of a tensor in Q's dtype)
    "sdpa_sqrt_of_tensor_in_query_dtype": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V; the divisor is a 0-d tensor in Q's own dtype."""
    d_k = Q.size(-1)
    scores = Q @ K.mT / torch.sqrt(torch.tensor(d_k, dtype=Q.dtype))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''},
    # seen in: public miniGPT / attention-paper `causal_mask` helpers, triu(ones, diagonal=1).int() == 0
    "causal_triu_int_eq_zero": {CM: '''
def causal_mask(T_q, T_k=None):
    """True where key j is not in the future of query i."""
    T_k = T_q if T_k is None else T_k
    future = torch.triu(torch.ones(T_q, T_k), diagonal=1).type(torch.int)
    return future == 0
'''},
    # seen in: a public numpy masks.py (triu of ones times -1e9 as an additive bias); fine in float64
    "trace_triu_minus_1e9_bias_identity_values": {TRACE: '''
scores3 = Q3 @ K3.transpose(0, 1) / 2.0
eye3 = torch.eye(3, dtype=Q3.dtype)
weights3 = scaled_dot_product_attention(Q3, K3, eye3)
out3 = weights3 @ V3
future = torch.triu(torch.ones(3, 3, dtype=torch.float64), diagonal=1)
weights3_causal = stable_softmax(scores3 + future * -1e9, dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    "softmax_finite_max_guard_positive_dim": {SM: '''
def stable_softmax(x, dim=-1):
    dim = dim % x.dim()                                   # work with a non-negative axis
    m = torch.amax(x, dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    z = torch.exp(x - m)
    return z / torch.sum(z, dim=dim, keepdim=True)
'''},
    "shapes_and_costs_from_probes": {
        SHAPES: '''
q = torch.empty(4, 10, 64)
k = torch.empty(4, 10, 64)
v = torch.empty(4, 10, 128)
w = q @ k.mT
weights_shape = tuple(w.shape)
out_shape = tuple((w @ v).shape)
''',
        COST: '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = attn_entries * d_k
cost_ratio = ((2 * T) ** 2 * d_k) // score_madds
''',
    },
}

WRONG = {
    "q1_one_tuple_missing_comma": ({SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = weights_shape[:-1] + (128)
'''}, {"mistake": "(128) is just the int 128, not a 1-tuple (128,), so tuple + int raises a TypeError and "
                  "out_shape is never set",
       "where": ["q1"]}),

    "q2_keys_reshaped_not_transposed": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.reshape(2, 8, 5)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "K is reshaped to (2, 8, 5) instead of transposed: the shape is right but the entries are "
                  "regrouped, so the 'scores' are not query-key dot products and both variances are wrong",
       "where": ["q2"]}),

    # seen in: a CS336 softmax solution, torch.exp(x - x.max()) (the max of the whole tensor)
    "q3_shift_by_max_of_whole_tensor": ({SM: '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.max())
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "the shift is the max of the whole tensor, not of each slice along dim: a slice whose "
                  "logits sit far below the global max underflows to all zeros and gives 0/0 = NaN "
                  "(e.g. float16 rows around 0 next to rows around 1000)",
       "where": ["q3", "q5", "q6"]}),

    # seen in: fairseq2's in-place softmax_ (x.exp_() followed by x /= x.sum(...))
    "q3_exp_and_divide_in_place": ({SM: '''
def stable_softmax(x, dim=-1):
    e = (x - x.amax(dim=dim, keepdim=True)).exp_()
    e /= e.sum(dim=dim, keepdim=True)
    return e
'''}, {"mistake": "exp_ then /= works in place on the tensor that exp saved for its backward pass: the values "
                  "are right but backpropagating through it raises 'modified by an inplace operation', so "
                  "no gradient reaches Q, K or V",
       "where": ["q3", "q5", "q6"]}),

    "q4_eye_cumsum_along_keys": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.eye(T_q, T_k).cumsum(dim=1).bool()
'''}, {"mistake": "the running sum of the identity runs along the keys (dim=1), which fills each row from the "
                  "diagonal to the right: the mask is the upper triangle (j >= i), letting queries see the "
                  "future and hiding the past; the cumsum must run down the queries (dim=0)",
       "where": ["q4", "q6"]}),

    "q4_tril_result_discarded": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    mask = torch.ones(T_q, T_k, dtype=torch.bool)
    mask.tril()
    return mask
'''}, {"mistake": "tril() returns a new tensor and does not change mask (tril_ is the in-place one); the "
                  "result is thrown away and the function returns a mask of all True, so nothing is blocked",
       "where": ["q4", "q6"]}),

    # seen in: a from-scratch ScaleDotProduct whose mask parameter defaults to the string "none"
    "q5_mask_default_string_none": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask="none"):
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        no_key = ~mask.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(no_key, 0.0)
    return weights @ V
'''}, {"mistake": "the default for mask is the string 'none', not None: a call without a mask passes the "
                  "`is not None` test and crashes on ~'none'; explicit mask=None still works",
       "where": ["q5"]}),

    "q5_isinf_any_zeroes_partly_masked_rows": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    empty = torch.isinf(scores).any(dim=-1, keepdim=True)    # rows with no key left
    weights = weights.masked_fill(empty, 0.0)
    return weights @ V
'''}, {"mistake": "empty rows are found with isinf(scores).any instead of .all: every query with at least one "
                  "blocked key (every causal row but the last, every padded row) gets an output of zeros, "
                  "not only the queries whose keys are all blocked",
       "where": ["q5"]}),

    "q5_empty_rows_indexed_with_unbroadcast_mask": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    weights[~mask.any(dim=-1)] = 0.0       # fully masked queries
    return weights @ V
'''}, {"mistake": "the fully masked rows are zeroed by boolean indexing with ~mask.any(-1), which has the "
                  "mask's own shape, not the scores' leading shape: a 2-D (T_q, T_k) mask used on batched "
                  "(or 4-D) inputs raises an IndexError, although broadcasting masks are allowed",
       "where": ["q5"]}),

    # seen in: d2l masked_softmax forks (sequence_mask value=-1e6, then rows multiplied by valid_len > 0)
    "q5_fill_minus_1e6_rows_zeroed_by_product": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e6)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask.any(dim=-1, keepdim=True)
    return weights @ V
'''}, {"mistake": "blocked scores are filled with the finite -1e6 instead of -inf: float16 cannot hold -1e6, "
                  "so masked_fill raises an overflow error for every masked float16 call (the zeroing of "
                  "empty rows by the product is fine)",
       "where": ["q5"]}),

    # adapted from: a CS336 scaled_dot_product_attention that upcasts to float32 before the softmax
    "q5_scores_upcast_weights_not_cast_back": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.transpose(-2, -1)).float() / math.sqrt(d_k)    # softmax in float32 for safety
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''}, {"mistake": "the scores are upcast with .float() but the weights are never cast back to V's dtype: "
                  "float32 weights @ float16, bfloat16 or float64 V raises a dtype mismatch (and float64 "
                  "scores are even downcast first); only float32 inputs work",
       "where": ["q5"]}),

    # seen in: a public numpy masks.py (np.triu(ones, k=1) * -1e9) and happy-llm's triu(-inf) bias;
    # here the large negative number is -inf, so 0 * -inf = NaN below the diagonal
    "q6_triu_ones_times_minus_inf_bias": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
bias = torch.triu(torch.ones(3, 3, dtype=torch.float64), diagonal=1) * float("-inf")
weights3_causal = stable_softmax(scores3 + bias, dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the additive causal bias multiplies a triu of ones by -inf, but 0 * -inf is NaN, not 0: "
                  "every allowed score becomes NaN and weights3_causal is all NaN",
       "where": ["q6"]}),

    "q6_identity_values_in_float32": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = scaled_dot_product_attention(Q3, K3, torch.eye(3), mask=causal_mask(3))
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "reading the causal weights off attention with V = I is right, but torch.eye(3) is float32 "
                  "while Q3, K3 are float64: the final matmul raises a dtype mismatch and weights3_causal is "
                  "never set",
       "where": ["q6"]}),

    "q8_power_right_associative": ({COST: '''
attn_entries = 2 ** 10 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "** is right-associative: 2 ** 10 ** 2 is 2 ** 100, not (2 ** 10) ** 2 = 1024 ** 2, so "
                  "attn_entries is astronomically large",
       "where": ["q8"]}),
}
