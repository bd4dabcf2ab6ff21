"""Fourth blind held-out set for sdpa-from-scratch (Lesson 80), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, `measure.py` and the three earlier
blind sets, so that none of their kinds of mistake is repeated here.

The mistakes are PyTorch slips of the kind seen in published attention homework (nanoGPT-style and
Annotated-Transformer-style code written for one layout and reused on another): `transpose(1, 2)` that
is right only on 3-D inputs, a legacy `uint8` mask, `scores[~mask] = -inf` boolean-index assignment that
cannot broadcast, `Q.shape[-1:]` (a torch.Size) where an int was meant, the scale read from V, a max
taken over the last axis whatever `dim` is, a log-softmax returned for a softmax, an in-place `div_`
that silently rescales the "raw" scores too, the q2 example's `d_k` reused for the `d_k = 64` question,
a hand trace rounded to two decimals, and cost answers that count one query or only the causal
triangle. Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake
in plain words; `where` lists the questions that should lose points (a broken `stable_softmax` also
costs q5 and q6, a broken `causal_mask` q6). Correct variants are really correct but written
differently from `full_marks.ipynb` and the earlier sets. Every variant was checked against plain torch
(`F.scaled_dot_product_attention`, `torch.softmax`) before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
SHAPES = "weights_shape"     # the q1 cell (also defines out_shape)
VAR = "raw_score_var"        # the q2 cell (also defines d_k, raw_scores, scaled_score_var, scale_divisor)
TRACE = "weights3"           # the q6 cell (also defines scores3, out3, weights3_causal)
COST = "attn_entries"        # the q8 cell (also defines score_madds, cost_ratio)


def _sdpa(scale: str = "d_k = Q.size(-1)",
          scores: str = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
          fill: str = 'scores = scores.masked_fill(mask == False, float("-inf"))') -> str:
    """full_marks' SDPA with its scale line, score line or mask line swapped (one change per variant)."""
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    {scale}
    {scores}
    if mask is not None:
        {fill}
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''


def _trace(scores: str = "scores3 = Q3 @ K3.T / math.sqrt(4)",
           weights: str = "weights3 = stable_softmax(scores3, dim=-1)",
           causal: str = 'weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), '
                         'dim=-1)') -> str:
    return f'''
{scores}
{weights}
out3 = weights3 @ V3
{causal}
print(weights3, out3, weights3_causal, sep="\\n")
'''


def _cost(entries: str = "attn_entries = 1024 ** 2", madds: str = "score_madds = 1024 * 1024 * 64") -> str:
    return f"\n{entries}\n{madds}\ncost_ratio = 4\n"


CORRECT = {
    # q1 built by tuple concatenation; q2 with einsum, flatten and an explicit correction=1
    "shapes_concat_einsum_variance": {
        SHAPES: '''
batch, T = 4, 10
weights_shape = (batch,) + (T, T)
out_shape = (batch, T) + (128,)
''',
        VAR: '''
d_k = int(Q.shape[-1])
raw_scores = torch.einsum("bqd,bkd->bqk", Q, K)
raw_score_var = raw_scores.flatten().var(correction=1).item()
scaled_score_var = torch.var(raw_scores * d_k ** -0.5).item()
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
    # softmax normalised with F.normalize(p=1) after an amax shift; the causal mask by tril on bool ones
    "softmax_l1_normalize_tril_ones": {
        SM: '''
def stable_softmax(x, dim=-1):
    """Shift by the max, exponentiate, then divide by the L1 norm (every exp is positive)."""
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return F.normalize(e, p=1, dim=dim)
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    return torch.ones(T_q, T_q if T_k is None else T_k, dtype=torch.bool).tril()
'''},
    # einsum over any leading dims; empty rows zeroed by where() with a scalar zero
    "sdpa_einsum_where_scalar": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = 1.0 / math.sqrt(Q.shape[-1])
    scores = torch.einsum("...qd,...kd->...qk", Q, K) * scale
    if mask is None:
        return torch.einsum("...qk,...kv->...qv", stable_softmax(scores, dim=-1), V)
    scores = scores.masked_fill(torch.logical_not(mask), float("-inf"))
    weights = torch.where(mask.any(dim=-1, keepdim=True), stable_softmax(scores, dim=-1), 0.0)
    return torch.einsum("...qk,...kv->...qv", weights, V)
'''},
    # the NaNs of fully blocked rows turned into zeros with nan_to_num; torch.softmax inside
    "sdpa_nan_to_num": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = Q.matmul(K.transpose(-1, -2)).div(math.sqrt(d_k))
    if mask is not None:
        scores = scores.masked_fill(~mask.bool(), -math.inf)
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights.matmul(V)
'''},
    # q6 done with plain torch.softmax and a where() on the causal mask
    "trace_torch_softmax_where": {TRACE: _trace(
        scores="scores3 = torch.mm(Q3, K3.t()) / 2.0",
        weights="weights3 = torch.softmax(scores3, dim=1)",
        causal='weights3_causal = torch.softmax(torch.where(causal_mask(3), scores3, '
               'torch.tensor(float("-inf"), dtype=torch.float64)), dim=1)')},
    # q8 from powers of two and a ratio of two cost expressions
    "cost_powers_of_two": {COST: '''
T, d_k = 2 ** 10, 2 ** 6
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = ((2 * T) * (2 * T) * d_k) // score_madds
'''},
}

WRONG = {
    "q1_weights_shape_is_query_shape": ({SHAPES: '''
weights_shape = (4, 10, 64)
out_shape = (4, 10, 128)
'''}, {"mistake": "the attention weights are given the shape of Q (..., T, d_k) instead of (..., T_q, T_k)",
       "where": ["q1"]}),
    "q2_scale_divisor_from_example_d_k": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(d_k)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "scale_divisor reuses the example's d_k = 8 (sqrt 8) instead of the asked d_k = 64 (8.0)",
       "where": ["q2"]}),
    "q2_inplace_div_rescales_raw": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
scaled = raw_scores.div_(math.sqrt(d_k))
raw_score_var = raw_scores.var().item()
scaled_score_var = scaled.var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "div_ divides raw_scores in place, so raw_score_var is the scaled variance as well",
       "where": ["q2"]}),
    "q3_max_over_last_axis_only": ({SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=-1, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "the max is always taken over the last axis while the sum uses `dim`: for dim != -1 each "
                  "entry gets a different shift and the result is not a softmax",
       "where": ["q3", "q5", "q6"]}),
    "q3_returns_log_probs": ({SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=dim, keepdim=True).values
    return shifted - torch.log(torch.exp(shifted).sum(dim=dim, keepdim=True))
'''}, {"mistake": "returns log-softmax (log-probabilities, as F.log_softmax / a cross-entropy loss wants) "
                  "instead of the probabilities", "where": ["q3", "q5", "q6"]}),
    "q4_uint8_mask": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.tril(torch.ones(T_q, T_k, dtype=torch.uint8))
'''}, {"mistake": "a legacy ByteTensor (uint8) mask instead of a bool one; ~mask on it is 254/255, not a "
                  "logical not", "where": ["q4", "q6"]}),
    "q5_transpose_1_2": ({SDPA: _sdpa(scores="scores = torch.matmul(Q, K.transpose(1, 2)) / math.sqrt(d_k)")},
                         {"mistake": "K.transpose(1, 2) swaps the last two axes only for 3-D inputs; on 4-D "
                                     "(B, H, T, d) it swaps heads and time", "where": ["q5"]}),
    "q5_boolean_index_assignment": ({SDPA: _sdpa(fill='scores[~mask] = float("-inf")')},
                                    {"mistake": "scores[~mask] = -inf needs a mask of exactly the scores' shape; "
                                                "a mask that only broadcasts (a (T_q, T_k) causal mask on "
                                                "batched scores, a (B, 1, T_k) padding mask) fails",
                                     "where": ["q5"]}),
    "q5_scale_from_V": ({SDPA: _sdpa(scale="d_k = V.size(-1)")},
                        {"mistake": "the scale is read from V's last dim (d_v), wrong whenever d_v != d_k",
                         "where": ["q5"]}),
    "q5_shape_slice_not_index": ({SDPA: _sdpa(scale="d_k = Q.shape[-1:]")},
                                 {"mistake": "Q.shape[-1:] is a torch.Size, not an int: math.sqrt raises",
                                  "where": ["q5"]}),
    "q6_rounded_to_two_decimals": ({TRACE: _trace(
        weights="weights3 = torch.round(stable_softmax(scores3, dim=-1), decimals=2)",
        causal='weights3_causal = torch.round(stable_softmax(scores3.masked_fill(~causal_mask(3), '
               'float("-inf")), dim=-1), decimals=2)')},
        {"mistake": "the hand-traced weights are rounded to two decimals (the question asks for four)",
         "where": ["q6"]}),
    "q8_score_madds_per_query": ({COST: _cost(madds="score_madds = 1024 * 64")},
                                 {"mistake": "counts the multiply-adds of one query's scores (T * d_k), not of "
                                             "all T queries", "where": ["q8"]}),
    "q8_entries_causal_triangle": ({COST: _cost(entries="attn_entries = 1024 * 1025 // 2")},
                                   {"mistake": "counts only the causal lower triangle (T (T + 1) / 2) as the "
                                               "entries of the weight matrix", "where": ["q8"]}),
}
