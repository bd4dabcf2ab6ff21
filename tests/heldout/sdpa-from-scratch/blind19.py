"""Nineteenth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, and only the module docstrings and
variant names of blind.py .. blind18.py (so that their mistakes are not repeated in the same form).
This round leans on slips that pair a right idea with one wrong detail (an argument order, an index
that only works for 2-D masks, a helper's default argument, a variable reused after it was inverted,
an unsqueeze on the wrong side, a hard-coded axis, an off-by-one in an arange, a mean for a sum, a
float from math.pow, a sum over the wrong axis of a broadcast product) and on the less common corners
of q3, q4, q5, q6 and q8.

Public code was searched with the code search (corpus `code`): CS336 assignment-1 `softmax` and
`scaled_dot_product_attention` solutions, d2l `sequence_mask` / `masked_softmax` forks and d2l's
softmax from scratch, nanoGPT-lecture scripts (`tril == 0`, `wei = torch.tril(...)`), a happy-llm
`maskSelfAttention.py`, Annotated-Transformer `attention(query, key, value, mask)` forks (one of them
ESPnet-style), ParlAI-style `neginf(dtype)` helpers and LLMs-from-scratch causal-mask scripts. Seven of
the fourteen wrong variants carry a slip seen there (named in a comment above each): a CS336 signature
that takes `(K, Q, V, mask)`, a CS336 `scores[..., ~mask] = -inf` that only broadcasts 2-D masks,
d2l's `sequence_mask(..., value=0)` default left in place, nanoGPT's masked_fill condition
`tril == 0` returned as the mask, nanoGPT's `torch.tril` applied to the scores themselves, a public
`Attention.forward` that reads d_k from the keys after transposing them, and d2l's
`X_exp.sum(1, keepdim=True)` kept under a max shift. Plausible slips of students of these lessons:
`math.pow` for a count, dividing by the mean of the exponentials, Python's `not` on a mask tensor,
the mask name reused after it was inverted, the empty-row flag unsqueezed at the front, key positions
counted from 1, and a broadcast product summed over the queries.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose public check uses it, and q6). Correct variants are really correct
but written differently (ESPnet-style finite fill with every blocked weight zeroed after the softmax,
`mask != None` with an in-place `logical_not` fill and `torch.where` on the empty rows, a d2l-style
float32 `arange < valid_lens` causal mask, a happy-llm `triu(full(-inf), 1)` additive bias in the
trace, and a softmax whose max and sum are taken without keepdim and unsqueezed back). Every variant
was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) before it was
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
    # seen in: an ESPnet-style Annotated-Transformer fork (fill with the dtype's min, then zero every
    # blocked weight after the softmax); valid here because the fill already gave them weight 0
    "sdpa_dtype_min_fill_zero_blocked_weights": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is None:
        return torch.matmul(stable_softmax(scores, dim=-1), V)
    blocked = ~mask
    scores = scores.masked_fill(blocked, torch.finfo(scores.dtype).min)
    weights = stable_softmax(scores, dim=-1).masked_fill(blocked, 0.0)
    return torch.matmul(weights, V)
'''},

    "sdpa_not_equal_none_inplace_fill_where": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scale = Q.shape[-1] ** -0.5
    scores = Q @ K.mT * scale
    if mask != None:
        scores.masked_fill_(mask.logical_not(), -torch.inf)
    weights = stable_softmax(scores, dim=-1)
    if mask != None:
        weights = torch.where(mask.any(-1, keepdim=True), weights, 0.0)
    return weights @ V
'''},

    # seen in: d2l `sequence_mask` (a float32 arange compared with valid lengths)
    "causal_d2l_valid_lens": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask: query i has i + 1 valid keys, as in d2l's sequence_mask."""
    T_k = T_q if T_k is None else T_k
    valid_lens = torch.arange(1, T_q + 1)
    key_pos = torch.arange(T_k, dtype=torch.float32)
    return key_pos[None, :] < valid_lens[:, None]
'''},

    # seen in: happy-llm maskSelfAttention.py (torch.triu(torch.full((T, T), -inf), diagonal=1) added)
    "trace_triu_full_neg_inf_bias": {TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
future = torch.triu(torch.full((3, 3), float("-inf"), dtype=torch.float64), diagonal=1)
weights3_causal = stable_softmax(scores3 + future, dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},

    "softmax_reduce_then_unsqueeze": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along dim: reduce without keepdim, then put the axis back with unsqueeze."""
    top, _ = torch.max(x, dim)
    e = torch.exp(x - top.unsqueeze(dim))
    return e / e.sum(dim).unsqueeze(dim)
'''},
}

WRONG = {
    # seen in: a public CS336 scaled_dot_product_attention declared as (K, Q, V, mask)
    "q5_keys_first_in_signature": ({SDPA: '''
def scaled_dot_product_attention(K, Q, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the parameters are declared in the order (K, Q, V): called positionally as (Q, K, V), the "
                  "queries play the keys and the scores come out as K Q^T, transposed (and of the wrong shape "
                  "when T_q != T_k), so every output is mixed with the wrong weights",
       "where": ["q5"]}),

    # seen in: a public CS336 solution, qk_scaled[..., ~mask] = -math.inf
    "q5_ellipsis_index_fill_2d_masks_only": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores[..., ~mask] = float("-inf")
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "blocked scores are set by boolean indexing scores[..., ~mask], which does not broadcast: it "
                  "works for a 2-D (T_q, T_k) mask but raises an IndexError for a mask with a leading axis "
                  "of size 1 (e.g. (B, 1, T_k) padding or (1, T_q, T_k)) that only broadcasts to the scores",
       "where": ["q5"]}),

    # seen in: d2l sequence_mask(X, valid_len, value=0), whose default fill is 0 unless value=-1e6 is passed
    "q5_fill_helper_default_zero": ({SDPA: '''
def fill_blocked(scores, keep, value=0):
    """Put `value` where keep is False (the d2l sequence_mask idea)."""
    return scores.masked_fill(~keep, value)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = fill_blocked(scores, mask)
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the fill helper is called without a value, so its default 0 is used: blocked scores become 0 "
                  "instead of -inf and the blocked keys still get weight exp(0 - max) > 0 in the softmax",
       "where": ["q5"]}),

    # seen in: nanoGPT lecture scripts, wei.masked_fill(tril == 0, float('-inf'))
    "q4_returns_nanogpt_fill_condition": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask for causal attention."""
    if T_k is None:
        T_k = T_q
    tril = torch.tril(torch.ones(T_q, T_k))
    return tril == 0
'''}, {"mistake": "returns tril == 0, the condition nanoGPT passes to masked_fill (True = blocked): True above "
                  "the diagonal and False on and below it, the opposite of 'True = may attend'",
       "where": ["q4", "q5", "q6"]}),

    # seen in: nanoGPT lecture scripts (wei = torch.tril(...)), here applied to the scores themselves
    "q6_causal_by_tril_of_scores": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.tril(), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the causal scores are made with scores3.tril(), which sets the future scores to 0, not -inf: "
                  "the softmax still gives the future keys weight exp(0 - max) > 0",
       "where": ["q6"]}),

    # seen in: a public Attention.forward, key = key.transpose(-2, -1); d_h = key.size(-1)
    "q5_d_k_read_after_transposing_keys": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    K_t = K.transpose(-2, -1)                 # (..., d_k, T_k)
    d_k = K_t.size(-1)
    scores = torch.matmul(Q, K_t) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "d_k is read as the last size of the already transposed keys, which is T_k: the scores are "
                  "divided by sqrt(T_k) instead of sqrt(d_k)",
       "where": ["q5"]}),

    # seen in: d2l's softmax from scratch, X_exp.sum(1, keepdim=True), kept under a max shift
    "q3_sum_over_axis_one": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(1, keepdim=True)
'''}, {"mistake": "the max is taken along dim but the normalising sum is hard-coded to axis 1 (from d2l's 2-D "
                  "softmax): 1-D inputs raise an IndexError and for 3-D or 4-D inputs, or dim=0, the slices "
                  "along dim do not sum to 1",
       "where": ["q3", "q5", "q6"]}),

    "q8_math_pow_gives_floats": ({COST: '''
attn_entries = math.pow(1024, 2)
score_madds = attn_entries * 64
cost_ratio = 4
'''}, {"mistake": "math.pow always returns a float, so attn_entries is 1048576.0 and score_madds 67108864.0, "
                  "floats where Python ints are asked for",
       "where": ["q8"]}),

    "q3_divided_by_mean": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.mean(dim=dim, keepdim=True)
'''}, {"mistake": "the exponentials are divided by their mean instead of their sum, so each slice sums to its "
                  "length n instead of 1 (every weight is n times too large)",
       "where": ["q3", "q5", "q6"]}),

    "q5_python_not_on_mask": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(not mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the mask is negated with Python's `not` instead of `~`: `not` asks for the truth value of a "
                  "whole tensor and raises a RuntimeError whenever a mask with more than one entry is given",
       "where": ["q5"]}),

    "q5_mask_name_reused_after_inverting": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        mask = ~mask                          # True = blocked, as masked_fill wants it
        scores = scores.masked_fill(mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "mask is overwritten with its inverse before the empty-row check, so `mask.any(-1)` now finds "
                  "rows with at least one BLOCKED key: queries that may see every key get a row of zeros and "
                  "fully masked queries keep their NaN row",
       "where": ["q5"]}),

    "q5_empty_row_flag_unsqueezed_at_front": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1).unsqueeze(0)   # put the reduced axis back
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the per-query flag from mask.any(-1) is unsqueezed at the front (shape (1, T_q)) instead of "
                  "the end ((T_q, 1)): it lines up with the key axis, so it fails to broadcast when T_q != T_k "
                  "and otherwise zeroes columns instead of the fully masked rows",
       "where": ["q5"]}),

    "q4_key_positions_counted_from_one": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q).unsqueeze(1)        # (T_q, 1)
    cols = torch.arange(1, T_k + 1).unsqueeze(0) # (1, T_k), keys numbered from 1
    return cols <= rows
'''}, {"mistake": "key positions run from 1 while query positions run from 0, so the test cols <= rows is j < i: "
                  "the diagonal is blocked (no query sees itself) and query 0 sees no key at all",
       "where": ["q4", "q5", "q6"]}),

    "q6_broadcast_product_summed_over_queries": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = (weights3.unsqueeze(-1) * V3.unsqueeze(0)).sum(dim=0)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "out3 is built as a broadcast product w[i, j] * V[j] but summed over dim 0 (the queries) "
                  "instead of dim 1 (the keys), so row j of out3 is V[j] times the total weight key j receives, "
                  "not the mixture for query j",
       "where": ["q6"]}),
}
