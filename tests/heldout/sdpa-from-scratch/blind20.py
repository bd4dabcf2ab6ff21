"""Twentieth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the Lesson 80 text, and only the module
docstrings and variant names of blind.py .. blind19.py (so that their mistakes are not repeated in the
same form). This round leans on the questions the earlier sets touched least (q7, q1, q2, q4, q8, q6)
and on slips that pair a right idea with one wrong detail: NumPy ints where Python ints are asked for,
a scale read from the wrong axis, a divisor left as a tensor, an epsilon in a denominator, a
log-sum-exp that forgets to add the max back, `tril_indices` used as one index tensor, a 4-D-only
transpose, a mask expanded for 3-D scores only, an off-by-one in the empty-row test, a clamp that
hides the very `-inf` the empty-row test looks for, an aliased tensor renormalised in place, an
empirical check that compares the wrong statistic, and an extra term in an operation count.

Public code was searched with the code search (corpus `code`): CS336 assignment-1 `softmax` forks,
d2l `masked_softmax` / `sequence_mask` forks, nanoGPT-lecture scripts ("version 2" averaging with
`wei = torch.tril(torch.ones(T, T)); wei = wei / wei.sum(1, keepdim=True)`), Hugging Face Llama-style
attention copies (`torch.matmul(query, key.transpose(2, 3)) / math.sqrt(head_dim)`, scores clamped
with `torch.finfo(dtype).min`), a public `Attention.forward` with `scale = math.sqrt(query.size()[1])`,
a public `scaled_dot_product_attention` with `torch.sqrt(torch.tensor(d_k, dtype=torch.float32))`, a
`compute_attention_weights` solution with `mask.unsqueeze(0).expand(scores.shape[0], -1, -1)` and a
`masked_softmax` that softmaxes only the rows that keep a key by boolean indexing. Seven of the
fourteen wrong variants carry a slip seen there (named in a comment above each); the other seven are
slips plausible for students of these lessons.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose public check uses it, and q6). Correct variants are really correct
but written differently (rows softmaxed by boolean indexing into a zero tensor, an einsum score matrix
with a NumPy `float64` divisor, a mask filled through `tril_indices`, shapes read off meta tensors with
counts from `math.prod`, and the hand trace read off the notebook's own attention with V = I). Every
variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) before it
was committed; the grader was not run on this set.

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
    # seen in: a public `masked_softmax` that softmaxes only the rows that are not fully masked
    # (`attn[~fully_masked] = softmax(attn[~fully_masked])`) and leaves the others at 0
    "sdpa_live_rows_by_boolean_index": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    scores = scores.masked_fill(~mask, float("-inf"))
    live = mask.expand(scores.shape).any(dim=-1)          # (..., T_q): queries that keep a key
    weights = torch.zeros_like(scores)
    weights[live] = stable_softmax(scores[live], dim=-1)  # the other rows stay at zero
    return weights @ V
'''},

    "variance_einsum_numpy_divisor": {VAR: '''
import numpy as np

d_k = Q.shape[-1]
raw_scores = torch.einsum("bqd,bkd->bqk", Q, K)
raw_score_var = float(raw_scores.var())
scaled_score_var = float((raw_scores / np.sqrt(d_k)).var())
scale_divisor = np.sqrt(64)          # a numpy.float64, which is a float
print(raw_score_var, scaled_score_var, scale_divisor)
'''},

    "causal_from_tril_indices": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    T_k = T_q if T_k is None else T_k
    rows, cols = torch.tril_indices(T_q, T_k)      # the positions on and below the diagonal
    m = torch.zeros(T_q, T_k, dtype=torch.bool)
    m[rows, cols] = True
    return m
'''},

    "shapes_from_meta_tensors_counts_from_prod": {
        SHAPES: '''
_q = torch.empty(4, 10, 64, device="meta")
_v = torch.empty(4, 10, 128, device="meta")
_w = _q @ _q.transpose(-2, -1)
weights_shape = tuple(int(n) for n in _w.shape)
out_shape = tuple(int(n) for n in (_w @ _v).shape)
''',
        COST: '''
T, d_k = 1024, 64
attn_entries = math.prod((T, T))
score_madds = math.prod((T, T, d_k))
cost_ratio = math.prod((2 * T, 2 * T, d_k)) // score_madds
''',
    },

    "trace_read_off_attention_with_identity_values": {TRACE: '''
eye3 = torch.eye(3, dtype=torch.float64)       # with V = I the output rows are the weights
weights3 = scaled_dot_product_attention(Q3, K3, eye3)
out3 = scaled_dot_product_attention(Q3, K3, V3)
weights3_causal = scaled_dot_product_attention(Q3, K3, eye3, mask=causal_mask(3))
print(weights3, out3, weights3_causal, sep="\\n")
'''},
}

WRONG = {
    # --- q1 ---------------------------------------------------------------------------------------
    "q1_shape_entries_numpy_ints": ({SHAPES: '''
import numpy as np

q_shape = np.array([4, 10, 64])
v_shape = np.array([4, 10, 128])
weights_shape = tuple(q_shape[[0, 1, 1]])                       # (batch, T_q, T_k)
out_shape = tuple(np.concatenate([q_shape[:2], v_shape[2:]]))   # (batch, T_q, d_v)
'''}, {"mistake": "the numbers are right, but both tuples hold NumPy int64 scalars taken out of an array, "
                  "not Python ints as the question asks",
       "where": ["q1"]}),

    # --- q2 ---------------------------------------------------------------------------------------
    # seen in: a public `Attention.forward` that scales by `math.sqrt(query.size()[1])`, the width read
    # from the wrong axis of the shape
    "q2_scaled_by_root_of_axis_1": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(Q.size()[1])).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the scores are divided by the square root of Q.size()[1], the sequence length 5, "
                  "instead of the root of d_k = 8 (the last axis), so scaled_score_var is about 1.32, not 0.82",
       "where": ["q2"]}),

    # seen in: a public `scaled_dot_product_attention` that divides by
    # `torch.sqrt(torch.tensor(d_k, dtype=torch.float32))`
    "q2_scale_divisor_left_as_tensor": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = torch.sqrt(torch.tensor(64, dtype=torch.float32))
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "scale_divisor has the right value 8 but is a 0-d torch tensor, not a Python float",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: a CS336 assignment-1 `softmax` fork that returns `exp_in_features / (global_sum + 1e-6)`
    "q3_epsilon_in_denominator": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    m = torch.max(x, dim=dim, keepdim=True).values
    e = torch.exp(x - m)
    return e / (torch.sum(e, dim=dim, keepdim=True) + 1e-6)   # guard against dividing by zero
'''}, {"mistake": "an epsilon of 1e-6 is added to the denominator (which is already at least 1 after the "
                  "max shift), so the weights are shrunk by about one part in a million and no longer sum "
                  "to 1; the error shows in float64",
       "where": ["q3", "q5", "q6"]}),

    "q3_logsumexp_max_not_added_back": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax as exp(x - logsumexp(x)), the log-sum-exp computed stably."""
    m = x.amax(dim=dim, keepdim=True)
    log_z = torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
    return torch.exp(x - log_z)
'''}, {"mistake": "the log of the normaliser is computed from the shifted logits but the max is never "
                  "added back (log_z should be m + log(sum exp(x - m))), so every weight is multiplied by "
                  "exp(max): the slices do not sum to 1 and large float16 logits overflow to inf",
       "where": ["q3", "q5", "q6"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    "q4_tril_indices_used_as_one_index": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    idx = torch.tril_indices(T_q, T_k)       # (2, n): row and column of each allowed entry
    m = torch.zeros(T_q, T_k, dtype=torch.bool)
    m[idx] = True
    return m
'''}, {"mistake": "the (2, n) tensor from tril_indices is used as a single index, which selects whole rows "
                  "(by the numbers in it) instead of (row, column) pairs, so every row is set to True and "
                  "the mask blocks nothing; it needs m[idx[0], idx[1]]",
       "where": ["q4", "q5", "q6"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    # seen in: Hugging Face Llama-style attention copies,
    # `torch.matmul(query, key.transpose(2, 3)) / math.sqrt(self.head_dim)` on (batch, heads, T, d) tensors
    "q5_keys_transposed_2_3_four_d_only": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(2, 3)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.matmul(weights, V)
'''}, {"mistake": "the keys are transposed with transpose(2, 3), which only names the last two axes of a "
                  "4-D tensor: 3-D inputs raise an index error (it should be transpose(-2, -1))",
       "where": ["q5"]}),

    # seen in: a public `compute_attention_weights` solution that does
    # `mask.unsqueeze(0).expand(scores.shape[0], -1, -1)` before `masked_fill`
    "q5_mask_expanded_for_3d_scores_only": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        mask = mask.unsqueeze(0).expand(scores.shape[0], -1, -1)   # one copy per batch entry
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''}, {"mistake": "the mask is always unsqueezed at the front and expanded to (batch, T_q, T_k), which only "
                  "fits a 2-D mask with 3-D scores: a 3-D or 4-D mask cannot be expanded that way, and with "
                  "4-D scores the batch axis of the mask is lined up against the heads axis",
       "where": ["q5"]}),

    "q5_empty_rows_counted_with_le_one": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        no_key = mask.sum(dim=-1, keepdim=True) <= 1     # queries with no key left
        weights = weights.masked_fill(no_key, 0.0)
    return weights @ V
'''}, {"mistake": "off by one in the empty-row test: rows with a single allowed key (`sum <= 1` instead of "
                  "`sum == 0`) are also zeroed, so e.g. the first query of a causal mask gets a zero output "
                  "instead of V[0]",
       "where": ["q5"]}),

    # seen in: Hugging Face Llama-style attention copies that clamp the masked scores with
    # `torch.max(attn_weights, torch.tensor(torch.finfo(attn_weights.dtype).min))`
    "q5_clamp_hides_inf_from_empty_row_test": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        scores = scores.clamp(min=torch.finfo(scores.dtype).min)   # keep the scores finite
    weights = stable_softmax(scores, dim=-1)
    no_key = torch.isinf(scores).all(dim=-1, keepdim=True)         # rows where every key was blocked
    return weights.masked_fill(no_key, 0.0) @ V
'''}, {"mistake": "the empty rows are looked for as rows of -inf scores, but the clamp has already turned "
                  "every -inf into the dtype's most negative finite number, so no row is ever found: a "
                  "fully masked query gets equal weights and the average of V instead of zeros",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    # seen in: nanoGPT-lecture scripts, "version 2":
    # `wei = torch.tril(torch.ones(T, T)); wei = wei / wei.sum(1, keepdim=True)`
    "q6_causal_weights_uniform_average": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = torch.tril(torch.ones(3, 3, dtype=torch.float64))
weights3_causal = weights3_causal / weights3_causal.sum(1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the causal weights are the plain running average (1, 1/2, 1/3 on and below the diagonal) "
                  "of the bag-of-words trick: the scores are ignored, only the triangle is kept",
       "where": ["q6"]}),

    "q6_causal_weights_alias_unmasked": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = weights3                                  # start from the unmasked weights
weights3_causal[~causal_mask(3)] = 0.0                      # drop the future keys ...
weights3_causal /= weights3_causal.sum(-1, keepdim=True)    # ... and renormalise each row
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "weights3_causal is the same tensor as weights3 (no clone), so zeroing and renormalising "
                  "it in place also turns weights3 into the causal weights; weights3 is wrong (out3, computed "
                  "before, and weights3_causal are right)",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_answer_from_argmax_comparison": ({TRAP: '''
_s = torch.tensor([[1.0, 2.0, 0.5], [0.3, 0.1, 2.0], [1.5, 0.2, 0.4]])
_m = causal_mask(3)
_zeroed = F.softmax(_s, dim=-1) * _m
_masked = F.softmax(_s.masked_fill(~_m, float("-inf")), dim=-1)
# every query picks the same key either way, so the shortcut does no harm
q_trap_answer = "A" if torch.equal(_zeroed.argmax(-1), _masked.argmax(-1)) else "C"
'''}, {"mistake": "the two approaches are compared by their argmax, which zeroing after the softmax never "
                  "changes, so the check answers A; the weights themselves differ (the zeroed rows no longer "
                  "sum to 1) and the answer is C",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    "q8_madds_include_scale_multiplies": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64 + 1024 * 1024   # the dot products, plus one multiply by 1/sqrt(d_k) per score
cost_ratio = 4
'''}, {"mistake": "score_madds adds one multiplication per score for the 1/sqrt(d_k) scale; the question "
                  "counts only the T * T * d_k multiply-adds of Q @ K.T",
       "where": ["q8"]}),
}
