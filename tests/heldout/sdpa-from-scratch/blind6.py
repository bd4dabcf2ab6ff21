"""Sixth blind held-out set for sdpa-from-scratch (Lesson 80), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the master notebook's student-facing text,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of `measure.py`
and the five earlier blind sets, so that none of their kinds of mistake is repeated here.

The students vary. Beginners: an output shape pooled over the queries (one vector per sequence, as in
Nadaraya-Watson with one query), the variance of the queries taken for the variance of the scores, a
causal mask returned as a Python list of lists, `K.T` on a batched tensor (reverses every axis), the
hand trace computed as K Q^T (rows are keys). Intermediate: the softmax "centred" by the mean instead of
the max (large spreads still overflow), the sum's lost axis restored with `unsqueeze(0)` (right only when
square, by accident), a boolean mask added to the scores as if it were additive (HF's attention_mask
habit), the scale taken from d_v, `.squeeze()` on the output (size-1 batch or query axes vanish). Cost
answers: the entries of Q counted as the entries of the score matrix, and the multiply-adds halved
because "QK^T is symmetric". q7 has no wrong variant: every wrong letter is in an earlier set. Public
code searched: HF-style `scores = scores + attention_mask`, `K.T` in homework attention code.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points. Correct variants are really correct but
written differently. Every variant was checked against plain torch (`F.scaled_dot_product_attention`,
`torch.softmax`) before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
SHAPES = "weights_shape"     # the q1 cell (also defines out_shape)
VAR = "raw_score_var"        # the q2 cell
TRACE = "weights3"           # the q6 cell
COST = "attn_entries"        # the q8 cell


def _q2(raw: str = "raw_score_var = raw_scores.var().item()",
        scaled: str = "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()") -> str:
    return f'''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
{raw}
{scaled}
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''


def _sdpa(scores: str = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
          fill: str = 'scores = scores.masked_fill(mask == False, float("-inf"))',
          out: str = "return torch.matmul(weights, V)") -> str:
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    {scores}
    if mask is not None:
        {fill}
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    {out}
'''


def _cost(entries: str = "attn_entries = 1024 ** 2", madds: str = "score_madds = 1024 * 1024 * 64") -> str:
    return f"\n{entries}\n{madds}\ncost_ratio = 4\n"


CORRECT = {
    # q1 from the rule "(batch, T_q, T_k)" spelled out; q2's scaled variance as raw / d_k (exact identity)
    "shapes_spelled_out_var_divided_by_d_k": {
        SHAPES: '''
batch, T, d_k_, d_v_ = 4, 10, 64, 128
weights_shape = (batch, T, T)
out_shape = (batch, T, d_v_)
''',
        VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.einsum("bqd,bkd->bqk", Q, K)
raw_score_var = raw_scores.var().item()
scaled_score_var = raw_score_var / d_k          # Var(X / c) = Var(X) / c^2
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
    # softmax through logsumexp; the causal mask cut from a square one
    "softmax_logsumexp_mask_cut_from_square": {
        SM: '''
def stable_softmax(x, dim=-1):
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    n = max(T_q, T_k)
    return torch.tril(torch.ones(n, n, dtype=torch.bool))[:T_q, :T_k]
'''},
    # empty rows: the NaNs of an all -inf row turned into zeros by nan_to_num
    "sdpa_nan_to_num_empty_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = 1.0 / math.sqrt(Q.shape[-1])
    scores = torch.matmul(Q, K.transpose(-1, -2)) * scale
    if mask is not None:
        scores = scores.masked_fill(torch.logical_not(mask), float("-inf"))
    weights = torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0)
    return weights @ V
'''},
    # empty rows found from the weights themselves: a NaN row's sum is not > 0
    "sdpa_empty_rows_from_weight_sums": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = Q.matmul(K.swapaxes(-2, -1)).div(math.sqrt(d_k))
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
    weights = stable_softmax(scores, dim=-1)
    ok = weights.sum(dim=-1, keepdim=True) > 0        # False for NaN rows (NaN > 0 is False)
    weights = torch.where(ok, weights, torch.zeros((), dtype=weights.dtype, device=weights.device))
    return weights.matmul(V)
'''},
    # the causal trace: the unmasked weights cut to the lower triangle and renormalised (equal to masking)
    "trace_tril_renormalised": {TRACE: '''
scores3 = (Q3 @ K3.transpose(0, 1)) / 2.0
e3 = torch.exp(scores3 - scores3.max(dim=1, keepdim=True).values)
weights3 = e3 / e3.sum(dim=1, keepdim=True)
out3 = torch.mm(weights3, V3)
lower = torch.tril(weights3)
weights3_causal = lower / lower.sum(dim=1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    # q8 derived: T^2 entries, each a d_k-long dot product; doubling T gives 2^2
    "cost_derived_from_T": {COST: '''
T, dk = 1024, 64
attn_entries = T * T
score_madds = attn_entries * dk
cost_ratio = ((2 * T) ** 2 * dk) // score_madds
'''},
}

WRONG = {
    "q1_output_pooled_over_queries": ({SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = (4, 128)
'''}, {"mistake": "thinks attention returns one d_v vector per sequence (pooled over the queries, as in "
                  "Nadaraya-Watson with a single query): out_shape (4, 128) instead of (4, 10, 128)",
       "where": ["q1"]}),
    "q2_variance_of_the_queries": ({VAR: _q2(raw="raw_score_var = Q.var().item()")},
                                   {"mistake": "takes the variance of the query entries (about 1) for the "
                                               "variance of the raw scores (about d_k)", "where": ["q2"]}),
    "q3_centred_by_mean": ({SM: '''
def stable_softmax(x, dim=-1):
    centred = x - x.mean(dim=dim, keepdim=True)     # centre the logits so exp stays small
    e = torch.exp(centred)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "subtracts the mean instead of the max: a large spread of logits still overflows exp "
                  "(inf / inf = NaN), and a -inf entry makes the mean -inf and the slice NaN",
       "where": ["q3", "q5", "q6"]}),
    "q3_sum_axis_restored_at_front": ({SM: '''
def stable_softmax(x, dim=-1):
    m = x.max(dim=dim, keepdim=True).values
    e = torch.exp(x - m)
    total = e.sum(dim=dim).unsqueeze(0)          # put the summed axis back
    return e / total
'''}, {"mistake": "restores the summed axis with unsqueeze(0) instead of at `dim`: each row is divided by "
                  "another row's sum (or it fails to broadcast); keepdim=True was needed",
       "where": ["q3", "q5", "q6"]}),
    "q4_list_of_lists": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return [[j <= i for j in range(T_k)] for i in range(T_q)]
'''}, {"mistake": "returns the mask as a Python list of lists of bools, not a torch.bool tensor "
                  "(`~mask` and masked_fill fail on it)", "where": ["q4", "q5", "q6"]}),
    "q5_dot_T_on_batched_keys": ({SDPA: _sdpa(scores="scores = Q @ K.T / math.sqrt(d_k)")},
                                 {"mistake": "uses K.T, which reverses every axis of a batched tensor "
                                             "(B, T_k, d_k) -> (d_k, T_k, B), instead of transposing the last "
                                             "two; right only for 2-D inputs", "where": ["q5"]}),
    "q5_bool_mask_added_to_scores": ({SDPA: _sdpa(fill="scores = scores + mask")},
                                     {"mistake": "adds the boolean mask to the scores as if it were an additive "
                                                 "mask (True -> +1, False -> +0): blocked keys keep their weight",
                                      "where": ["q5"]}),
    "q5_scale_from_d_v": ({SDPA: _sdpa(scores="scores = torch.matmul(Q, K.transpose(-2, -1)) "
                                               "/ math.sqrt(V.size(-1))")},
                          {"mistake": "divides by sqrt(d_v), the width of the values, instead of sqrt(d_k): "
                                      "right only when d_v == d_k", "where": ["q5"]}),
    "q5_output_squeezed": ({SDPA: _sdpa(out="return torch.matmul(weights, V).squeeze()")},
                           {"mistake": "squeezes the output to tidy it: a batch, head or query axis of size 1 "
                                       "disappears, so the shape is wrong", "where": ["q5"]}),
    "q6_scores_keys_by_queries": ({TRACE: '''
scores3 = K3 @ Q3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "computes the scores as K Q^T (row i = key i) instead of Q K^T, so each row of the weights "
                  "is normalised over the queries of one key", "where": ["q6"]}),
    "q8_entries_of_Q": ({COST: _cost(entries="attn_entries = 1024 * 64")},
                        {"mistake": "counts the entries of Q (T x d_k) as the entries of the score matrix, "
                                    "which is T x T", "where": ["q8"]}),
    "q8_madds_halved_for_symmetry": ({COST: _cost(madds="score_madds = 1024 * 1024 * 64 // 2")},
                                     {"mistake": "halves the multiply-adds because QK^T is 'symmetric': it is "
                                                 "only when Q = K, so all T^2 dot products are needed",
                                      "where": ["q8"]}),
}
