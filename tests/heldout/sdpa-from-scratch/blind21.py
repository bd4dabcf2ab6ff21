"""Twenty-first blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the Lesson 80 text, and only the module
docstrings and variant names of blind.py .. blind20.py (so that their mistakes are not repeated in the
same form). This round leans on the questions the earlier sets touched least (q1, q2, q6, q7, q8) and on
slips that pair a right idea with one wrong detail: a feature axis kept in a shape, a 2-D demo's
flatten-and-transpose applied to batched tensors, `len` taken as the head width, `[0]` indexing carried
over from `torch.max` to `torch.sum`, an inverted default-argument ternary, a d2l-style flatten that
reshapes an unbroadcast mask, a float `ones_like` default mask, a float32 upcast that demotes float64,
a mask applied to the weights instead of the scores, one hand-computed dot product off by one, a
column-wise normaliser, an empirical check that looks only at the blocked entries, and an operation
count that adds the score matrix to the weight matrix.

Public code was searched with the code, issues and pages search: d2l `masked_softmax` forks
(`sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)`), CS336 assignment-1 `softmax` forks
(`torch.max(x, dim=dim, keepdim=True)[0]`), a public scaling demo (`q@k.transpose(1, 0) / np.sqrt(32)` on
2-D q, k), nanoGPT-lecture scripts (`wei = q @ k.transpose(-2, -1)`, `wei = wei.masked_fill(tril == 0,
float('-inf'))`, `wei = F.softmax(wei, dim=-1)`: one name for scores and weights; and the bag-of-words
`wei / wei.sum(1, keepdim=True)`), a public `softmax_tril` / `masked_softmax`
(`torch.tril(torch.exp(x - x_max))`, `torch.exp(x - x_max) * mask.float()`), scGPT issues #53 / #199
(`~` applied to a mask that is not boolean: "~ (operator.invert) is only implemented on integer and
Boolean-type tensors"), nanoGPT / LLMs-from-scratch attention that crops a square causal buffer
(`self.bias[:, :, :T, :T]`, `mask.bool()[:num_tokens, :num_tokens]`), and notes on attention cost that
count "the attention score matrix and attention weight matrix" together. Seven of the thirteen wrong
variants carry a slip seen there (named in a comment above each); the other six are slips plausible
for students of these lessons.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose public check uses it, and q6). Correct variants are really correct
but written differently (a causal mask cropped from a larger square triangle, attention computed keys
by queries and transposed back, a softmax whose denominator is clamped by a harmless guard, causal
trace weights from exponentials multiplied by the mask, shapes sliced from one another with a `bmm` /
`permute` variance). Every variant was checked against plain torch (`F.scaled_dot_product_attention`,
`torch.softmax`) before it was committed; the grader was not run on this set.

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
    # seen in: nanoGPT / LLMs-from-scratch attention that crops a square causal buffer,
    # `self.bias[:, :, :T, :T]`; top-left cropping of a big enough square triangle is exactly j <= i
    "causal_cropped_from_square_triangle": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask cut from the top-left corner of a square lower triangle."""
    if T_k is None:
        T_k = T_q
    n = max(T_q, T_k)
    return torch.tril(torch.ones(n, n, dtype=torch.bool))[:T_q, :T_k]
'''},

    "sdpa_keys_by_queries_transposed_back": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V, computed as (K Q^T)^T; mask is boolean, True = may attend."""
    d_k = Q.shape[-1]
    scores_t = K @ Q.transpose(-2, -1) / math.sqrt(d_k)          # (..., T_k, T_q): one column per query
    if mask is not None:
        keep_t = mask.transpose(-2, -1) if mask.dim() > 1 else mask.unsqueeze(-1)
        scores_t = scores_t.masked_fill(~keep_t, float("-inf"))
    weights = stable_softmax(scores_t, dim=-2).transpose(-2, -1)  # normalised over keys, then (..., T_q, T_k)
    if mask is not None:
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    return weights @ V
'''},

    "softmax_denominator_clamped_to_tiny": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`; the clamp is only a guard (after the shift the sum is at least 1)."""
    exps = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return exps / exps.sum(dim=dim, keepdim=True).clamp_min(torch.finfo(x.dtype).tiny)
'''},

    # seen in: a public `masked_softmax`, `x_exp = torch.exp(x - x_max) * mask.float()` then divided by
    # its sum (here without the epsilon, and on a trace whose scores are small)
    "trace_causal_exp_times_mask": {TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
e3 = torch.exp(scores3 - scores3.amax(dim=-1, keepdim=True)) * causal_mask(3)
weights3_causal = e3 / e3.sum(dim=-1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''},

    "shapes_sliced_variance_bmm_permute": {
        SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = weights_shape[:-1] + (128,)      # same queries, one d_v-wide mixture each
''',
        VAR: '''
d_k = K.size(-1)
raw_scores = torch.bmm(Q, K.permute(0, 2, 1))
raw_score_var = float(torch.var(raw_scores, correction=1))
scaled_score_var = float(torch.var(raw_scores / d_k ** 0.5, correction=1))
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
''',
    },
}

WRONG = {
    # --- q1 ---------------------------------------------------------------------------------------
    "q1_weights_keep_feature_axis": ({SHAPES: '''
weights_shape = (4, 10, 10, 64)   # one product q_i * k_i for every (query, key, feature)
out_shape = (4, 10, 128)
'''}, {"mistake": "the weights keep a feature axis of length d_k: each (query, key) pair gets one number, "
                  "the dot product summed over the 64 features, so the shape is (4, 10, 10)",
       "where": ["q1"]}),

    # --- q2 ---------------------------------------------------------------------------------------
    # seen in: a public scaling demo on 2-D tensors, `q@k.transpose(1, 0) / (np.sqrt(32))`, here made to
    # fit by flattening the batch into the rows
    "q2_scores_flattened_across_batch": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q.reshape(-1, d_k) @ K.reshape(-1, d_k).transpose(1, 0)   # (10, 10): all queries x all keys
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the batch is flattened into the rows before the product, so the (10, 10) score matrix "
                  "also pairs queries of one sequence with keys of the other; the variances are taken "
                  "over 100 scores instead of the 2 x 5 x 5 batched ones and come out different",
       "where": ["q2"]}),

    "q2_d_k_from_len": ({VAR: '''
d_k = len(Q)                      # the length of the query vectors
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "len(Q) is the size of the first axis (the batch, 2), not the head width d_k = 8, so the "
                  "scores are divided by sqrt(2) and scaled_score_var is half the raw variance instead "
                  "of an eighth",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: CS336 assignment-1 `softmax` forks, `torch.max(x, dim=dim, keepdim=True)[0]` (the [0]
    # picks the values out of the (values, indices) pair); here the habit is carried over to the sum
    "q3_sum_indexed_like_max_tuple": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    m = torch.max(x, dim=dim, keepdim=True)[0]
    exps = torch.exp(x - m)
    return exps / torch.sum(exps, dim=dim, keepdim=True)[0]
'''}, {"mistake": "torch.sum returns a tensor, not a (values, indices) pair, so the [0] picks the first "
                  "slice along axis 0: every row is divided by the first row's sum, and only the first "
                  "row (or a softmax along axis 0, or a 1-D input) sums to 1",
       "where": ["q3", "q5", "q6"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    "q4_default_ternary_inverted": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    T_k = T_q if T_k else T_k                 # square when no T_k is given
    rows = torch.arange(T_q).unsqueeze(1)     # (T_q, 1)
    cols = torch.arange(T_k).unsqueeze(0)     # (1, T_k)
    return cols <= rows
'''}, {"mistake": "the conditional expression is the wrong way round: a given T_k is replaced by T_q (so "
                  "every mask is square), and a missing T_k stays None, so causal_mask(T) raises a "
                  "TypeError in torch.arange",
       "where": ["q4", "q5", "q6"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    # seen in: d2l `masked_softmax` forks, which flatten the scores to rows with
    # `X.reshape(-1, shape[-1])` before masking them
    "q5_mask_flattened_with_scores_d2l": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        shape = scores.shape
        flat = scores.reshape(-1, shape[-1])                       # one row per query
        flat = flat.masked_fill(~mask.reshape(-1, shape[-1]), float("-inf"))
        scores = flat.reshape(shape)
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the mask is flattened to rows as it is, without first being broadcast to the scores' "
                  "shape: only a mask with the full (..., T_q, T_k) shape lines up, and a 2-D causal "
                  "mask or a padding mask with size-1 axes used on batched inputs raises a shape error",
       "where": ["q5"]}),

    # seen in: scGPT issues #53 / #199, `~` applied to a mask that is not boolean raises "~ (operator.invert)
    # is only implemented on integer and Boolean-type tensors"
    "q5_default_mask_float_ones": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is None:
        mask = torch.ones_like(scores)          # nothing is blocked
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    has_key = mask.any(dim=-1, keepdim=True)
    weights = torch.where(has_key, weights, torch.zeros_like(weights))
    return torch.matmul(weights, V)
'''}, {"mistake": "the all-allowed default mask is built with ones_like(scores), which has the scores' "
                  "float dtype, not bool: `~mask` raises a TypeError, so every call without a mask "
                  "crashes (ones_like(scores, dtype=torch.bool) was needed)",
       "where": ["q5"]}),

    "q5_float_upcast_demotes_float64": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    # work in float32 so that half-precision scores cannot overflow, then cast back
    scores = torch.matmul(Q.float(), K.float().transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V.float()).to(Q.dtype)
'''}, {"mistake": ".float() converts to float32 whatever the input is, so float64 inputs are demoted and "
                  "the result, though cast back to float64, carries only float32 precision (errors near "
                  "1e-7); the upcast should promote, e.g. to torch.promote_types(Q.dtype, torch.float32)",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    # seen in: nanoGPT-lecture scripts that use one name for the scores and the weights,
    # `wei = wei.masked_fill(tril == 0, float('-inf'))` then `wei = F.softmax(wei, dim=-1)`
    "q6_causal_softmax_of_weights": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(weights3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the causal mask and the second softmax are applied to the unmasked weights instead of "
                  "the scores, so the causal rows are a softmax of probabilities (only query 0, with a "
                  "single key, comes out right)",
       "where": ["q6"]}),

    "q6_hand_scores_one_entry_off": ({TRACE: '''
# Q3 K3^T worked out by hand, then divided by sqrt(d_k) = 2
scores3 = torch.tensor([[1., 1., 2.],
                        [1., 2., 2.],
                        [1., 1., 3.]], dtype=torch.float64) / 2
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "one hand-computed dot product is wrong: query 2 . key 0 = 1*1 + 1*0 + 0*0 + 1*1 = 2, "
                  "not 1, so the last row of weights3, out3 and weights3_causal is wrong",
       "where": ["q6"]}),

    # seen in: a public `softmax_tril`, `torch.tril(torch.exp(x - x_max))` divided by its sum, and the
    # nanoGPT bag-of-words `wei / wei.sum(1, keepdim=True)`; here the sum runs down the columns
    "q6_causal_exp_tril_normalised_over_columns": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
e3 = torch.tril(torch.exp(scores3 - scores3.max(dim=-1, keepdim=True)[0]))
weights3_causal = e3 / e3.sum(0, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the masked exponentials are normalised by their column sums (axis 0, over the queries) "
                  "instead of their row sums, so the causal rows do not sum to 1 (the columns do)",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_checked_only_blocked_entries": ({TRAP: '''
_s = torch.tensor([[0.5, 1.0, -0.3, 2.0],
                   [1.2, 0.1, 0.7, -1.0],
                   [0.0, 2.2, 0.4, 0.9],
                   [-0.6, 0.3, 1.5, 0.2]])
_m = causal_mask(4)
_shortcut = F.softmax(_s, dim=-1)
_shortcut[~_m] = 0.0
_proper = F.softmax(_s.masked_fill(~_m, float("-inf")), dim=-1)
# the future keys get weight 0 either way, so the shortcut does what the mask is for
q_trap_answer = "A" if torch.equal(_shortcut[~_m], _proper[~_m]) else "C"
'''}, {"mistake": "the check compares only the blocked entries, which are 0 in both versions, and so "
                  "answers A; the allowed entries differ (the zeroed rows no longer sum to 1) and the "
                  "answer is C",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    # seen in: notes on attention cost that say "the attention score matrix and attention weight matrix
    # require O(n^2) memory", read here as two matrices to count
    "q8_entries_counts_scores_and_weights": ({COST: '''
attn_entries = 2 * 1024 ** 2      # the score matrix and the weight matrix, both T x T
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "attn_entries counts the score matrix and the weight matrix together; the question asks "
                  "for the entries of the attention-weight matrix alone, T * T = 1048576",
       "where": ["q8"]}),
}
