"""Twenty-fifth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, and only the module docstrings and variant
names of blind.py .. blind24.py (so that their mistakes are not repeated in the same form). This round
writes what a class hands in when it half-remembers PyTorch: a right formula applied to the wrong tensor
or argument (the queries against themselves in the hand trace, the q2 divisor reused as the scale of
every head, the two branches of `torch.where` swapped, an output einsum copied from the score einsum),
an API habit that does something unwanted (NumPy's `ddof=` and a positional dtype, an out-of-place
`div` whose result is dropped, `len` of a 2-D tensor, an einsum whose output drops the key letter), a
numeric detail (a denominator turned into a Python float, a scale written `d_k ** -0.5` and divided by,
a letter computed one position off) and a written answer of a student who misread the lesson. Seven of
the fourteen wrong variants are in the core (softmax, mask, scores, scaling, empty rows), seven in the
other questions (q1, q2, q6, q7, q8).

Public code was searched with the code, issues and pages search: CS336 assignment-1 forks, one of which
computes the output with the score einsum `torch.einsum('...ik, ...jk -> ...ij', attn_weights, v)`; a
public gradient-safe `masked_log_softmax` that "prevents rows from becoming all -inf" with
`vector.masked_fill(mask.sum(dim=dim, keepdim=True) == 0, 0.0)`; pytorch issues #2436 and #50010 on
`torch.var` versus NumPy's `ddof=` (`y.var(ddof=1)`); einsum-subscript slips in attention code
(aladdinpersson/Machine-Learning-Collection #165, alan-cooney/transformer-from-scratch #52, "Fix
attention einsum"); LLMs-from-scratch chapter-3 "simplified self-attention" scripts
(`attn_scores = inputs @ inputs.T`) and WhiteFox-generated models (`input @ input.transpose(-2, -1)`);
wxie9/CARD, whose attention divides by the reciprocal of the root (`/ self.head_dim ** -0.5`); and issue
threads on an out-of-place tensor method whose result is dropped (lucidrains/flamingo-pytorch #10
`masked_fill`). Seven of the fourteen wrong variants carry a slip seen there (named in a comment above
each); the other seven are slips plausible for students of these lessons. Four wrong variants crash
(`var(ddof=1)`, `torch.ones(shape, torch.bool)`, the copied output einsum, `float()` of a tensor with
many entries); the other ten run without an error and return wrong values.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose public check uses it, and q6). Correct variants are really correct
but written differently (a softmax from the unpacked `torch.max` pair and functional calls, a causal
mask as a strict lower triangle joined with the diagonal, attention with pre-scaled queries, `mT` and
`torch.where` against 0-dim fills, the q8 counts from one small lambda, the q7 letter indexed out of
"ABCD" beside q1 shapes read off probe tensors). Every variant was checked against plain torch
(`F.scaled_dot_product_attention`, `torch.softmax`) before it was committed; the grader was not run on
this set.

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
    "softmax_unpacked_max_functional_calls": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim`: shift by the (values, indices) pair's values, exponentiate, normalise."""
    biggest, _ = torch.max(x, dim, keepdim=True)
    powers = torch.exp(torch.sub(x, biggest))
    return torch.div(powers, torch.sum(powers, dim, keepdim=True))
'''},

    "causal_strict_lower_or_diagonal": {CM: '''
def causal_mask(T_q, T_k=None):
    """Keys strictly before the query, or the query's own position: j < i or j == i."""
    T_k = T_q if T_k is None else T_k
    before = torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=-1)
    itself = torch.eye(T_q, T_k, dtype=torch.bool)
    return before | itself
'''},

    "sdpa_prescaled_queries_where_zero_dim_fills": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with the scale folded into Q; mask is boolean, True = may attend."""
    scores = (Q * Q.shape[-1] ** -0.5) @ K.mT
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    scores = torch.where(mask, scores, scores.new_full((), float("-inf")))
    weights = stable_softmax(scores, dim=-1)
    weights = torch.where(mask.any(dim=-1, keepdim=True), weights, weights.new_zeros(()))
    return weights @ V
'''},

    "costs_from_one_lambda": {COST: '''
madds = lambda T, d=64: T * T * d          # one dot product of length d per (query, key) pair
attn_entries = madds(1024, d=1)
score_madds = madds(1024)
cost_ratio = madds(2 * 1024) // madds(1024)
'''},

    "letter_indexed_shapes_from_probes": {
        TRAP: '''
q_trap_answer = "ABCD"[2]                  # the third option
''',
        SHAPES: '''
_q, _k, _v = torch.empty(4, 10, 64), torch.empty(4, 10, 64), torch.empty(4, 10, 128)
weights_shape = tuple((_q @ _k.transpose(-2, -1)).shape)
out_shape = tuple((_q @ _k.transpose(-2, -1) @ _v).shape)
''',
    },
}

WRONG = {
    # --- q1 ---------------------------------------------------------------------------------------
    "q1_weight_columns_from_value_width": ({SHAPES: '''
weights_shape = (4, 10, 128)   # one weight for each feature of the values
out_shape = (4, 10, 128)
'''}, {"mistake": "the weight matrix has one column per key (T_k = 10), not one per value feature: "
                  "weights_shape is (4, 10, 10); only out_shape carries d_v = 128",
       "where": ["q1"]}),

    # --- q2 ---------------------------------------------------------------------------------------
    # seen in: pytorch issues #2436 / #50010 on torch.var against NumPy, where the NumPy spelling of the
    # unbiased estimator is `y.var(ddof=1)`; torch.var has no `ddof` keyword
    "q2_numpy_ddof_keyword": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var(ddof=1).item()                          # the unbiased estimator
scaled_score_var = (raw_scores / math.sqrt(d_k)).var(ddof=1).item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "`ddof=1` is NumPy's keyword; torch's var takes `correction` (or `unbiased`), so the "
                  "call raises a TypeError and neither variance is set (the plain `.var()` is already "
                  "the unbiased estimator)",
       "where": ["q2"]}),

    # seen in: einsum-subscript slips in attention code (aladdinpersson/Machine-Learning-Collection #165,
    # alan-cooney/transformer-from-scratch #52); here the key letter is left out of the output
    "q2_einsum_output_drops_key_letter": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.einsum("bqd,bkd->bq", Q, K)        # query-key dot products
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the einsum output `bq` leaves out the key index, so the products are also summed over "
                  "the keys: raw_scores is (2, 5), each entry a sum of 5 scores, not the (2, 5, 5) score "
                  "matrix, and both variances come out wrong",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: issue threads on an out-of-place tensor method whose result is dropped
    # (lucidrains/flamingo-pytorch #10, `masked_fill` without assignment); here it is the division
    "q3_division_result_dropped": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    e.div(e.sum(dim=dim, keepdim=True))     # normalise each slice
    return e
'''}, {"mistake": "Tensor.div is out of place and its result is thrown away, so the function returns the "
                  "shifted exponentials themselves (largest entry 1, slices not summing to 1); "
                  "`e = e / e.sum(...)` or `e.div_(...)` was meant",
       "where": ["q3", "q5", "q6"]}),

    "q3_denominator_as_python_float": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    total = float(e.sum(dim=dim, keepdim=True))     # the normalising constant
    return e / total
'''}, {"mistake": "the denominator is turned into one Python float: that only works when there is a "
                  "single slice (a 1-D input); with several rows float() raises 'only one element "
                  "tensors can be converted to Python scalars', and it would also cut the gradient",
       "where": ["q3", "q5", "q6"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    "q4_dtype_passed_positionally": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.ones((T_q, T_k), torch.bool).tril()
'''}, {"mistake": "the dtype is passed positionally as in np.ones(shape, bool); torch.ones takes the size "
                  "positionally and the dtype only as a keyword, so every call raises a TypeError "
                  "(dtype=torch.bool was needed)",
       "where": ["q4", "q5", "q6"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    # seen in: a CS336 assignment-1 fork that computes the output with the score einsum,
    # `torch.einsum('...ik, ...jk -> ...ij', attn_weights, v)`
    "q5_output_einsum_copied_from_scores": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.shape[-1]
    scores = torch.einsum("...ik,...jk->...ij", Q, K) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.einsum("...ik,...jk->...ij", weights, V)
'''}, {"mistake": "the output einsum reuses the score pattern, which contracts the last axis of both "
                  "operands: it pairs the keys of the weights with the feature axis of V instead of V's "
                  "key axis, so it raises a size error unless T_k == d_v, and then returns weights @ V^T "
                  "with shape (..., T_q, T_k); '...qk,...kd->...qd' was needed",
       "where": ["q5"]}),

    "q5_scale_from_q2_divisor": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scores = Q @ K.transpose(-2, -1) / scale_divisor           # the divisor from Question 2
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        no_key = ~mask.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(no_key, 0.0)
    return weights @ V
'''}, {"mistake": "the scores are divided by the notebook's scale_divisor, the number worked out in "
                  "Question 2 for a head of width 64 (8.0), instead of sqrt(d_k) of the inputs: right "
                  "only when d_k = 64, too flat or too sharp for every other head width",
       "where": ["q5"]}),

    # seen in: a public gradient-safe `masked_log_softmax` that opens fully masked rows with
    # `vector.masked_fill(mask.sum(dim=dim, keepdim=True) == 0, 0.0)` before the softmax
    "q5_empty_rows_opened_not_zeroed": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        all_masked = mask.sum(dim=-1, keepdim=True) == 0
        scores = scores.masked_fill(all_masked, 0.0)      # no row is all -inf any more: no NaN
    weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''}, {"mistake": "fully masked rows are opened (their scores set to 0) to avoid the NaN, but their "
                  "weights are never zeroed afterwards: the softmax spreads them evenly and such a query "
                  "gets the average of V instead of a row of zeros",
       "where": ["q5"]}),

    "q5_empty_row_where_branches_swapped": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        no_key = ~mask.any(dim=-1, keepdim=True)
        weights = torch.where(no_key, weights, torch.zeros_like(weights))   # zero the empty rows
    return weights @ V
'''}, {"mistake": "the two branches of torch.where are swapped: where(cond, a, b) takes a where cond holds, "
                  "so the NaN rows of fully masked queries are kept and every query that has a key gets "
                  "zero weights; torch.where(no_key, zeros, weights) was meant",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    # seen in: LLMs-from-scratch chapter-3 "simplified self-attention" scripts, `attn_scores =
    # inputs @ inputs.T`, and WhiteFox-generated models, `input @ input.transpose(-2, -1)`
    "q6_queries_scored_against_queries": ({TRACE: '''
scores3 = Q3 @ Q3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the scores compare the queries with themselves (Q3 Q3^T, as in the simplified "
                  "self-attention where one input plays every role) instead of with the keys K3, so all "
                  "three answers are built on the wrong score matrix",
       "where": ["q6"]}),

    # seen in: wxie9/CARD, whose attention scores are `einsum(...) / self.head_dim ** -0.5`
    "q6_divided_by_reciprocal_root": ({TRACE: '''
scores3 = Q3 @ K3.T / 4 ** -0.5        # scale 1 / sqrt(d_k)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "4 ** -0.5 is already the factor 1/sqrt(d_k); dividing by it multiplies the scores by "
                  "sqrt(d_k) = 2 instead of dividing by 2, so the weights are too sharp",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_letter_from_position_off_by_one": ({TRAP: '''
# C is the third option: count three letters on from A
q_trap_answer = chr(ord("A") + 3)
'''}, {"mistake": "counting three letters on from A gives D, not C (A is position 0, so the third option "
                  "is A + 2): the answer recorded is D, the float16-only claim",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    "q8_entries_from_len": ({COST: '''
_weights = torch.empty(1024, 1024, device="meta")   # one head's (T, T) weight matrix, no memory used
attn_entries = len(_weights)
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "len() of a 2-D tensor is the length of its first axis (1024), not its number of "
                  "entries; numel() gives T * T = 1048576",
       "where": ["q8"]}),
}
