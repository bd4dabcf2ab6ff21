"""Thirty-first blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, and only the module docstrings and variant
names of blind.py .. blind30.py (so that their mistakes are not repeated in the same form). The grader was
not run on this set.

This round leans on the questions the earlier sets touched least (q7, q8, q4, q1 get two or one each; q5,
long the most covered, only two) and uses code shapes they used little: a per-batch loop for the q2
variance, a NumPy round trip for the hand trace, `logsumexp` without `keepdim`, in-place `exp_`
and `tril_` on fresh tensors, a numerical "check it myself" for the q7 letter with a loose tolerance,
a 4-D `view` of the mask carried over from multi-head code, and a `return` left inside one branch.

Public material searched (search tool, pages / issues corpora): the Stack Overflow / stackguides threads
and the NumPy softmax tutorials on `np.exp(x) / np.sum(np.exp(x), axis=...)`, where the row sums are taken
without `keepdims=True` and then broadcast along the wrong axis (the q6 NumPy variant carries that slip);
and the device-mismatch threads on attention masks (InfiniTensor/llaisys#11: a mask built on one device
while the scores live on another), the family of the q4 variant that hard-codes `device="cuda"`.
The other variants are slips plausible for students of this notebook (misread definitions, a
half-remembered API, a check run too loosely, a typo in an operator).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `causal_mask` may also cost q5, whose public check calls it, and q6, whose cell calls it).
Correct variants are really correct but written differently from full_marks. Every variant was checked
against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) on several shapes and dtypes,
including the notebook's own, with a throwaway script outside the repository before it was committed.

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
    "softmax_inplace_exp_on_shifted_copy": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim`: shift by the max (a fresh tensor), exponentiate it in place, then normalise."""
    z = x - x.amax(dim=dim, keepdim=True)
    z.exp_()
    return z / z.sum(dim=dim, keepdim=True)
'''},

    "causal_numpy_tril_bool_round_trip": {CM: '''
import numpy as np

def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True on and below the diagonal (top-left aligned)."""
    n_keys = T_q if T_k is None else T_k
    return torch.from_numpy(np.tril(np.ones((T_q, n_keys), dtype=bool)))
'''},

    "sdpa_empty_rows_opened_then_multiplied_by_flag": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V; a query with no visible key gets a zero row."""
    scale = 1.0 / math.sqrt(Q.shape[-1])
    logits = (Q @ K.mT) * scale
    if mask is None:
        return stable_softmax(logits, dim=-1) @ V
    visible = mask.any(dim=-1, keepdim=True)               # (..., T_q, 1)
    logits = logits.masked_fill(~mask, float("-inf"))
    logits = logits.masked_fill(~visible, 0.0)             # empty rows: no -inf left, no NaN
    attn = stable_softmax(logits, dim=-1) * visible        # ... and then zeroed
    return attn @ V
'''},

    "variance_numpy_ddof_one_in_float64": {VAR: '''
import numpy as np

d_k = Q.shape[-1]
raw_scores = torch.einsum("bqd,bkd->bqk", Q, K)
raw_np = raw_scores.double().numpy()
raw_score_var = float(np.var(raw_np, ddof=1))
scaled_score_var = float(np.var(raw_np / np.sqrt(d_k), ddof=1))
scale_divisor = float(np.sqrt(64))
print(raw_score_var, scaled_score_var, scale_divisor)
'''},

    "costs_from_pow_and_ratio_of_counts": {COST: '''
T, width = 1024, 64
attn_entries = pow(T, 2)
score_madds = attn_entries * width
cost_ratio = pow(2 * T, 2) * width // score_madds
'''},

    "trap_letter_from_option_dict": {TRAP: '''
options = {
    "A": "zeroing after softmax equals -inf before",
    "B": "mask the wrong way round",
    "C": "rows no longer sum to 1, outputs shrink",
    "D": "only float16 goes wrong",
}
q_trap_answer = [letter for letter, text in options.items() if "sum to 1" in text][0]
'''},
}

WRONG = {
    "q1_weights_over_all_batch_tokens": ({SHAPES: '''
weights_shape = (4 * 10, 4 * 10)
out_shape = (4, 10, 128)
'''}, {"mistake": "Treats the whole batch as one long sequence: the weights are (40, 40), every token scored "
                  "against every token of every sequence, instead of one (10, 10) matrix per batch entry, "
                  "(4, 10, 10).",
       "where": ["q1"]}),

    "q2_mean_of_per_sequence_variances": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = sum(raw_scores[b].var().item() for b in range(raw_scores.shape[0])) / raw_scores.shape[0]
scaled_score_var = sum((raw_scores[b] / math.sqrt(d_k)).var().item()
                       for b in range(raw_scores.shape[0])) / raw_scores.shape[0]
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "Averages the variance of each sequence's (5, 5) score block instead of taking the variance "
                  "of all 50 entries together; each block is centred on its own mean, so the number differs.",
       "where": ["q2"]}),

    "q3_logsumexp_without_keepdim": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim` as exp(x - logsumexp(x)); logsumexp is computed stably by torch."""
    return torch.exp(x - torch.logsumexp(x, dim=dim))
'''}, {"mistake": "Calls torch.logsumexp without keepdim=True, so the normaliser loses the reduced axis and "
                  "broadcasts against the wrong axis of x (a wrong result, or a shape error when the sizes "
                  "differ).",
       "where": ["q3", "q5", "q6"]}),

    "q3_sum_unsqueezed_on_last_axis": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim` with the max subtracted first."""
    peak = x.max(dim=dim, keepdim=True).values
    e = torch.exp(x - peak)
    total = e.sum(dim=dim)
    return e / total.unsqueeze(-1)
'''}, {"mistake": "Puts the reduced axis of the row sums back with unsqueeze(-1) (always the last axis) "
                  "instead of keepdim=True; it only works for dim=-1, and for any other dim it divides by "
                  "sums broadcast along the wrong axis or fails with a shape error.",
       "where": ["q3"]}),

    "q4_positions_stop_one_short": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q - 1).unsqueeze(1)
    cols = torch.arange(T_k - 1).unsqueeze(0)
    return cols <= rows
'''}, {"mistake": "Uses arange(T - 1) as if it listed positions 0..T-1 (it stops at T-2), so the mask has one "
                  "row and one column too few: shape (T_q - 1, T_k - 1) instead of (T_q, T_k).",
       "where": ["q4", "q5", "q6"]}),

    # device mismatch family: InfiniTensor/llaisys#11 (a mask built on a different device from the scores)
    "q4_mask_built_on_cuda": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.ones(T_q, T_k, dtype=torch.bool, device="cuda").tril()
'''}, {"mistake": 'Hard-codes device="cuda" (copied from a GPU notebook): on a machine without a GPU it '
                  "raises, and on one with a GPU the mask lands on a different device from CPU scores.",
       "where": ["q4", "q5", "q6"]}),

    "q5_return_only_in_masked_branch": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
        return torch.matmul(weights, V)
    weights = stable_softmax(scores, dim=-1)
'''}, {"mistake": "The return statement sits inside the masked branch only: without a mask the function "
                  "computes the weights and falls off the end, returning None.",
       "where": ["q5"]}),

    "q5_mask_viewed_as_four_d": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        T_q, T_k = scores.shape[-2:]
        mask = mask.view(1, 1, T_q, T_k)                  # (batch, heads, T_q, T_k)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "Reshapes every mask to (1, 1, T_q, T_k) as in multi-head code: with 3-D inputs the "
                  "scores broadcast up to 4-D and the output gets an extra axis, and a mask with a batch "
                  "axis of its own cannot be viewed that way at all.",
       "where": ["q5"]}),

    "q6_scale_subtracted_not_divided": ({TRACE: '''
scores3 = Q3 @ K3.T - math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "Subtracts sqrt(d_k) = 2 from the scores instead of dividing by it; a constant shift "
                  "leaves the softmax unchanged, so these are the weights of the unscaled scores.",
       "where": ["q6"]}),

    # np.exp(x) / np.sum(np.exp(x), axis=1) without keepdims: Stack Overflow q. 34968722 and the
    # stackguides / NumPy softmax-tutorial threads on the axis of the row sums
    "q6_numpy_row_sums_without_keepdims": ({TRACE: '''
import numpy as np

s = (Q3.numpy() @ K3.numpy().T) / np.sqrt(4)
e = np.exp(s - s.max(axis=1, keepdims=True))
weights3 = torch.from_numpy(e / e.sum(axis=1))
out3 = weights3 @ V3
s_causal = np.where(causal_mask(3).numpy(), s, -np.inf)
e_causal = np.exp(s_causal - s_causal.max(axis=1, keepdims=True))
weights3_causal = torch.from_numpy(e_causal / e_causal.sum(axis=1))
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "Takes the NumPy row sums without keepdims=True: the (3,) vector of sums broadcasts along "
                  "the columns, so entry [i, j] is divided by row j's sum instead of row i's and the rows "
                  "no longer sum to 1.",
       "where": ["q6"]}),

    "q7_checked_with_loose_tolerance": ({TRAP: '''
torch.manual_seed(1)
s = torch.randn(4, 4)
v = torch.randn(4, 3)
blocked = ~causal_mask(4)
proper = stable_softmax(s.masked_fill(blocked, float("-inf")), dim=-1) @ v
shortcut_w = torch.softmax(s, dim=-1)
shortcut_w[blocked] = 0.0
shortcut = shortcut_w @ v
q_trap_answer = "A" if torch.allclose(proper, shortcut, atol=1.0) else "C"
'''}, {"mistake": "Compares the two approaches with atol=1.0, far too loose to see the shrunken rows, "
                  "concludes they agree and answers A; the right answer is C.",
       "where": ["q7"]}),

    "q7_option_text_not_letter": ({TRAP: '''
q_trap_answer = "After zeroing, a row's remaining weights no longer add up to 1"
'''}, {"mistake": "Copies the text of option C instead of giving its letter; the answer must be the single "
                  'letter "C".',
       "where": ["q7"]}),

    "q8_square_typed_as_times_two": ({COST: '''
attn_entries = 1024 * 2
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "Writes T squared as 1024 * 2 (twice T) instead of 1024 ** 2, so the number of weight "
                  "entries is 2048 instead of 1048576.",
       "where": ["q8"]}),

    "q8_madds_plus_d_k": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 ** 2 + 64
cost_ratio = 4
'''}, {"mistake": "Adds d_k to the T^2 dot products instead of multiplying: each of the T^2 scores costs "
                  "d_k multiply-adds, so the count is T^2 * d_k = 67108864.",
       "where": ["q8"]}),
}
