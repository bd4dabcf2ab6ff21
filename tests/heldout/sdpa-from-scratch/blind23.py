"""Twenty-third blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the format of blind21.py, and only the
module docstrings and variant names of blind.py .. blind22.py (so that their mistakes are not repeated in
the same form). Round 23 spreads the slips over the whole notebook, about half in the core (softmax,
causal mask, scores, scaling, masking) and half in the other questions (variances, the hand trace, the
trap question, the cost count), and favours a right idea with one wrong detail: an axis moved with `.T`,
an epsilon outside the fraction, a keyword given to the wrong function, a method not called, a square
root taken twice, a 3-axis unpack, an in-place transpose of the caller's keys, a mutable default
argument used as a cache, a positional argument read as `ddof`, a division by the reciprocal scale,
`*` for `@`, a default `diagonal`, an experiment that looks at the one query with nothing masked, and a
stale notebook global.

Public code was searched with the code, issues and pages search: Karpathy's GPT lecture `Head.forward`
(`B,T,C = x.shape`, `wei = q @ k.transpose(-2,-1) * C**-0.5`, ng-video-lecture issues #28 / #55 and PR
#6) and its registered `tril` buffer, a WhiteFox / starcoder-generated SDPA (`inv_scale_factor = 1 /
np.sqrt(query.shape[-1])`, `scaled_qk = qk.div(inv_scale_factor)`), happy-llm's additive causal bias
(`torch.triu(torch.full((4, 4), float("-inf")), diagonal=1)`), CS336 assignment-1 forks (a softmax with
`exp / (global_sum + eps)`, an einops softmax that permutes the softmax axis to the end and back, and
`out.masked_fill_(~mask, float('-inf'))` / `QK.masked_fill_(...)` done in place), and the old
`torch.var(a, 1)` documentation example (per-row variance, where NumPy users write `ddof=1`). Eight of
the fourteen wrong variants carry a pattern seen there into our functions with the slip named in a
comment above each; the other six are slips plausible for students of these lessons.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose public check uses it, and q6). Correct variants are really correct
but written differently (a softmax that swaps its axis with the last one by `permute` and back, an
einsum attention with `torch.where` and a Python `-inf`, a causal mask as the complement of a strict
upper triangle, variances with the `correction` keyword and `div`, a causal trace from an einsum and an
additive `-inf` bias). Every variant was checked against plain torch (`F.scaled_dot_product_attention`,
`torch.softmax`) before it was committed; the grader was not run on this set.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
VAR = "raw_score_var"        # the q2 cell
TRACE = "weights3"           # the q6 cell
TRAP = "q_trap_answer"       # the q7 cell
COST = "attn_entries"        # the q8 cell

CORRECT = {
    # seen in: a CS336 einops softmax fork that swaps the softmax axis with the last one, reduces over
    # the last axis, and swaps back with the same permutation (a swap is its own inverse)
    "softmax_axis_swapped_to_end_by_permute": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim`: swap that axis with the last, work on the last axis, swap back."""
    order = list(range(x.dim()))
    d = dim % x.dim()
    order[d], order[-1] = order[-1], order[d]
    y = x.permute(*order)
    e = torch.exp(y - y.amax(dim=-1, keepdim=True))
    return (e / e.sum(dim=-1, keepdim=True)).permute(*order)
'''},

    "sdpa_einsum_where_python_inf": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V; mask is boolean, True = may attend."""
    scores = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    if mask is None:
        return torch.einsum("...qk,...kd->...qd", stable_softmax(scores, dim=-1), V)
    scores = torch.where(mask, scores, -math.inf)          # a Python scalar keeps the scores' dtype
    weights = stable_softmax(scores, dim=-1)
    weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.einsum("...qk,...kd->...qd", weights, V)
'''},

    "causal_complement_of_strict_upper": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask: everything except the strict upper triangle (the future keys)."""
    T_k = T_q if T_k is None else T_k
    future = torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=1)
    return ~future
'''},

    "variance_correction_keyword_div": {VAR: '''
d_k = Q.shape[-1]
raw_scores = Q.matmul(K.mT)
raw_score_var = raw_scores.var(correction=1).item()
scaled_score_var = raw_scores.div(d_k ** 0.5).var(correction=1).item()
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
'''},

    # seen in: happy-llm's masked self-attention demo, an additive bias
    # `torch.triu(torch.full((4, 4), float("-inf")), diagonal=1)` added to the scores
    "trace_einsum_additive_triu_bias": {TRACE: '''
scores3 = torch.einsum("id,jd->ij", Q3, K3) / 2.0
weights3 = stable_softmax(scores3, dim=-1)
out3 = torch.einsum("ij,jd->id", weights3, V3)
bias3 = torch.triu(torch.full((3, 3), float("-inf"), dtype=torch.float64), diagonal=1)
weights3_causal = stable_softmax(scores3 + bias3, dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
}

WRONG = {
    # --- q2 ---------------------------------------------------------------------------------------
    # seen in: the old `torch.var(a, 1)` documentation example (the variance of each row); here a NumPy
    # habit, `np.var(x, ddof=1)`, written positionally in torch, where the 1 is the dimension
    "q2_ddof_one_passed_as_dim": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var(1).item()                           # 1 = unbiased, as ddof=1
scaled_score_var = (raw_scores / math.sqrt(d_k)).var(1).item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the 1 meant as NumPy's ddof=1 is torch's `dim` argument: `.var(1)` is a (2, 5) tensor of "
                  "per-column variances and `.item()` raises, so the cell stops and no variance is stored "
                  "(torch's default `.var()` is already the unbiased one)",
       "where": ["q2"]}),

    # seen in: a WhiteFox / starcoder-generated SDPA, `inv_scale_factor = 1 / np.sqrt(query.shape[-1])`
    # followed by `qk.div(inv_scale_factor)`
    "q2_divided_by_reciprocal_scale": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
inv_scale = 1 / math.sqrt(d_k)
scaled_score_var = raw_scores.div(inv_scale).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the scores are divided by 1/sqrt(d_k), i.e. multiplied by sqrt(d_k), so the 'scaled' "
                  "variance is d_k = 8 times the raw one (about 52.8) instead of 1/8 of it (about 0.82)",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: a CS336 einops softmax fork that moves the softmax axis to the end and back; here the move
    # is done with `.T`, which reverses every axis, so only axis 0 (or a 2-D input) lands at the end
    "q3_axis_moved_to_end_with_dot_T": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim`: move that axis to the end, normalise the last axis, move it back."""
    if dim != -1 and dim != x.dim() - 1:
        return stable_softmax(x.T, dim=-1).T
    shifted = x - x.max(dim=-1, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=-1, keepdim=True)
'''}, {"mistake": "`.T` reverses all the axes instead of swapping `dim` with the last one: right for 2-D "
                  "inputs and for dim=0, but for a middle axis of a 3-D or 4-D tensor (dim=1, dim=-2) the "
                  "softmax is taken along the wrong axis and the slices along `dim` do not sum to 1",
       "where": ["q3"]}),

    # seen in: CS336 softmax forks with an epsilon, `exp_in_features / (global_sum + eps)`; here the
    # parentheses are dropped, so the epsilon is added to every probability
    "q3_epsilon_added_outside_fraction": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first and a small guard on the division."""
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True) + 1e-9
'''}, {"mistake": "operator precedence: the 1e-9 meant for the denominator is added to every output entry, so "
                  "blocked (-inf) entries get weight 1e-9 instead of exactly 0 and each slice sums to "
                  "1 + n * 1e-9 (in float32 and float64; float16 rounds the 1e-9 away)",
       "where": ["q3", "q5", "q6"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    "q4_dtype_given_to_tril": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.tril(torch.ones(T_q, T_k), dtype=torch.bool)
'''}, {"mistake": "the dtype keyword is passed to `torch.tril` instead of `torch.ones`; `tril` takes no dtype, "
                  "so every call raises a TypeError and no mask is ever returned",
       "where": ["q4", "q5", "q6"]}),

    # seen in: Karpathy's GPT lecture, a lower-triangular buffer registered once and reused; here a cache
    # in a mutable default argument, keyed by the number of queries only
    "q4_masks_cached_by_query_length": ({CM: '''
def causal_mask(T_q, T_k=None, _cache={}):
    """(T_q, T_k) bool mask, True where query i may see key j; built once per length and reused."""
    if T_k is None:
        T_k = T_q
    if T_q not in _cache:
        _cache[T_q] = torch.ones(T_q, T_k, dtype=torch.bool).tril()
    return _cache[T_q]
'''}, {"mistake": "the cache (a mutable default argument) is keyed by T_q alone, so after causal_mask(4) a call "
                  "causal_mask(4, 6) returns the cached (4, 4) mask (and after causal_mask(4, 6), "
                  "causal_mask(4) returns a (4, 6) one): the shape is wrong whenever T_k changes for a "
                  "query length already seen",
       "where": ["q4", "q5"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    "q5_logical_not_not_called": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "`mask.logical_not` is missing its parentheses: the bound method, not the inverted mask, is "
                  "handed to masked_fill, which raises a TypeError on every call that has a mask "
                  "(unmasked calls work)",
       "where": ["q5"]}),

    "q5_square_root_taken_twice": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = math.sqrt(Q.size(-1))                       # the scale
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the square root is taken twice (d_k already holds sqrt(d_k) and is rooted again), so the "
                  "scores are divided by d_k ** 0.25 and the weights are too sharp",
       "where": ["q5"]}),

    # seen in: Karpathy's GPT lecture, `B,T,C = x.shape` and `wei = q @ k.transpose(-2,-1) * C**-0.5`
    # inside `Head.forward`, which only ever sees (batch, time, channels) tensors
    "q5_nanogpt_B_T_C_unpack": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    B, T, C = Q.shape
    wei = Q @ K.transpose(-2, -1) * C ** -0.5          # (B, T, C) @ (B, C, T') -> (B, T, T')
    if mask is not None:
        wei = wei.masked_fill(mask == 0, float("-inf"))
        wei = stable_softmax(wei, dim=-1)
        wei = torch.where(mask.any(dim=-1, keepdim=True), wei, torch.zeros_like(wei))
    else:
        wei = stable_softmax(wei, dim=-1)
    return wei @ V
'''}, {"mistake": "`B, T, C = Q.shape` assumes exactly three axes: 3-D inputs work, but 4-D (batch, heads, "
                  "T, d_k) inputs raise 'too many values to unpack', and so would 2-D ones",
       "where": ["q5"]}),

    # seen in: CS336 forks that fill the fresh score tensor in place, `out.masked_fill_(~mask, ...)`;
    # here the in-place habit is carried to the caller's keys
    "q5_keys_transposed_in_place": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose_(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "`K.transpose_` transposes the caller's key tensor in place: the first call is right, but K "
                  "is left as (..., d_k, T_k), so a second call with the same K multiplies the wrong shape "
                  "(a crash, or silently wrong scores when T_k == d_k), and keys that require grad raise "
                  "at once (an in-place op on a leaf)",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    "q6_elementwise_star_for_matmul": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 * V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "`*` (elementwise) is used for the weighted sum of values instead of `@`: a (3, 3) and a "
                  "(3, 2) tensor do not broadcast, so the cell raises and neither out3 nor weights3_causal "
                  "is set",
       "where": ["q6"]}),

    # seen in: happy-llm's additive causal bias, `torch.triu(torch.full((4, 4), float("-inf")),
    # diagonal=1)`; here the `diagonal=1` is left at its default 0
    "q6_triu_bias_default_diagonal": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
bias3 = torch.triu(torch.full((3, 3), float("-inf"), dtype=torch.float64))
weights3_causal = stable_softmax(scores3 + bias3, dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "`torch.triu` keeps the diagonal by default, so the -inf bias also blocks each query's own "
                  "key: query 0 has no key left (a NaN row) and the other rows are normalised over the "
                  "strictly earlier keys only",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_checked_the_last_query_only": ({TRAP: '''
_s = torch.tensor([[0.5, 1.0, -0.3], [1.2, 0.1, 0.4], [0.0, 2.0, 1.0]])
_v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
_zeroed = torch.softmax(_s, dim=-1)
_zeroed[~causal_mask(3)] = 0.0
_proper = torch.softmax(_s.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
# compare the outputs of the query that sees the whole sequence
q_trap_answer = "A" if torch.allclose((_zeroed @ _v)[-1], (_proper @ _v)[-1]) else "C"
'''}, {"mistake": "the experiment compares only the last query, which may see every key and so has nothing "
                  "masked; the two recipes agree there and the answer comes out as A, while every earlier "
                  "query's weights no longer sum to 1 (the answer is C)",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    "q8_head_width_from_stale_global": ({COST: '''
T = 1024
attn_entries = T * T
score_madds = T * T * d_k        # d_k: the head width
cost_ratio = (2 * T) ** 2 // T ** 2
'''}, {"mistake": "`d_k` is the notebook global set to 8 in the q2 cell, not the 64 of this question, so "
                  "score_madds is 1024 * 1024 * 8 instead of 1024 * 1024 * 64",
       "where": ["q8"]}),
}
