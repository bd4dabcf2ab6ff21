"""Fifteenth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the variant names and format of blind.py .. blind14.py (so that their mistakes are not repeated in the
same form). Written under a 15-minute limit, so no new public code search was run this round; the slips
are the ones a first attention course hands in most (taken from the kinds of code seen in earlier rounds'
searches: d2l `masked_softmax`, Annotated-Transformer attention, CS231n/CS336 homework), rewritten here.

Commonest slips in new forms: fully masked rows left NaN (mask == False filled with -torch.inf), the
scores never scaled (a broadcast multiply-and-sum dot product), scaled by d_k instead of sqrt(d_k) (with
.mT), the softmax taken over dim=1 (the heads axis of 4-D inputs), the softmax's sum taken without
keepdim. New kinds: weights multiplied by the mask after the softmax (rows no longer sum to 1), the
max's (values, indices) tuple not unpacked, an int64 mask from tril of ones, the causal trace taken from
the attention output instead of the weights, the two variances swapped, the cost ratio doubling d_k too,
the trap answered with a lowercase d.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook.
Correct variants are written differently (einsum with torch.where, Q scaled before the product with a
log-mask bias, F.softmax outside stable_softmax with an additive -inf bias, the shift read from
torch.max's (values, indices) tuple, a mask built by comparing aranges). Every variant was checked against plain torch before it
was graded.

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
    # q5 with einsum (unusual style) and torch.where for rows with no allowed key
    "einsum_where_empty_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = 1.0 / math.sqrt(Q.shape[-1])
    s = torch.einsum("...id,...jd->...ij", Q, K) * scale
    if mask is None:
        return torch.einsum("...ij,...jd->...id", stable_softmax(s, dim=-1), V)
    s = torch.where(mask, s, torch.tensor(float("-inf"), dtype=s.dtype))
    p = stable_softmax(s, dim=-1)
    has_key = mask.any(dim=-1, keepdim=True)
    p = torch.where(has_key, p, torch.zeros_like(p))
    return torch.einsum("...ij,...jd->...id", p, V)
'''},
    # q5 scaling Q before the product (same scores) and an additive log-mask bias (log 1 = 0, log 0 = -inf)
    "prescaled_queries_log_mask_bias": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    q_scaled = Q * (1.0 / math.sqrt(Q.shape[-1]))
    scores = q_scaled @ K.transpose(-2, -1)
    if mask is not None:
        scores = scores + torch.log(mask.to(scores.dtype))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        empty = ~mask.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(empty, 0.0)
    return weights @ V
'''},
    # q5 with F.softmax (allowed outside stable_softmax) and an additive -inf bias
    "functional_softmax_additive_bias": {SDPA: '''
import torch.nn.functional as F


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = (Q @ K.transpose(-2, -1)) / (Q.size(-1) ** 0.5)
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=scores.dtype).masked_fill(~mask, float("-inf"))
        scores = scores + bias
    attn = F.softmax(scores, dim=-1)
    if mask is not None:
        attn = attn * mask.any(dim=-1, keepdim=True).to(attn.dtype)
        attn = torch.nan_to_num(attn, nan=0.0)
    return attn @ V
'''},
    # q3 shift by the max read from the (values, indices) tuple; q4 from comparisons of aranges
    "tuple_max_arange_mask": {
        SM: '''
def stable_softmax(x, dim=-1):
    biggest, _ = torch.max(x, dim=dim, keepdim=True)
    z = (x - biggest).exp()
    total = z.sum(dim, keepdim=True)
    return z / total
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q).view(T_q, 1)
    cols = torch.arange(T_k).view(1, T_k)
    return cols <= rows
''',
        SHAPES: '''
B, T, d_k, d_v = 4, 10, 64, 128
weights_shape = (B, T, T)
out_shape = (B, T, d_v)
'''},
    # q6 worked with explicit masking; q2, q7, q8 written plainly
    "plain_answers_masked_trace": {
        TRACE: '''
scores3 = Q3 @ K3.T / 2.0
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
blocked = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
weights3_causal = stable_softmax(scores3.masked_fill(blocked, float("-inf")), dim=-1)
''',
        VAR: '''
raw = Q @ K.transpose(-2, -1)
raw_score_var = raw.var().item()
scaled_score_var = (raw / math.sqrt(Q.shape[-1])).var().item()
scale_divisor = 8.0
''',
        TRAP: '''
q_trap_answer = "C"
''',
        COST: '''
T = 1024
d_k = 64
attn_entries = T ** 2
score_madds = T ** 2 * d_k
cost_ratio = 4
'''},
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q5_mask_eq_false_rows_nan": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    dk = K.size(-1)
    att = (Q @ K.transpose(-2, -1)) / math.sqrt(dk)
    if mask is not None:
        att = att.masked_fill(mask == False, -torch.inf)  # noqa: E712
    att = stable_softmax(att, dim=-1)
    return att @ V
'''}, {"mistake": "queries with every key masked get NaN weights (exp(-inf)/0) and a NaN output row: after "
                  "the softmax, zero the weights of rows where mask.any(-1, keepdim=True) is False",
       "where": ["q5"]}),
    "q5_broadcast_dot_unscaled": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = (Q.unsqueeze(-2) * K.unsqueeze(-3)).sum(dim=-1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return w @ V
'''}, {"mistake": "the dot products are right but never divided by sqrt(d_k): scale the scores by "
                  "1/math.sqrt(Q.shape[-1]) before the softmax", "where": ["q5"]}),
    "q5_scaled_by_d_k_not_sqrt": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.mT / Q.shape[-1]
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return w @ V
'''}, {"mistake": "divides the scores by d_k instead of sqrt(d_k): use / math.sqrt(Q.shape[-1])",
       "where": ["q5"]}),
    "q5_softmax_dim_1": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=1)
    if mask is not None:
        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return w @ V
'''}, {"mistake": "softmax over dim=1, which is the query axis of 3-D inputs and the heads axis of 4-D "
                  "ones: normalise over the keys, dim=-1", "where": ["q5"]}),
    "q3_sum_without_keepdim": ({SM: '''
def stable_softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim)
'''}, {"mistake": "the sum drops the reduced axis, so e / sum broadcasts the totals along the wrong axis "
                  "(or fails): use e.sum(dim=dim, keepdim=True)", "where": ["q3", "q5", "q6"]}),
    "q2_variances_swapped": ({VAR: '''
raw = Q @ K.transpose(-2, -1)
scaled = raw / math.sqrt(Q.shape[-1])
scaled_score_var = raw.var().item()
raw_score_var = scaled.var().item()
scale_divisor = math.sqrt(64)
'''}, {"mistake": "the two variances are stored under each other's names: raw_score_var is the variance of "
                  "Q @ K^T before scaling (about d_k), scaled_score_var after (about 1)", "where": ["q2"]}),
    # --- new kinds
    "q5_weights_masked_after_softmax": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ V
'''}, {"mistake": "multiplies the weights by the mask after the softmax, so kept weights no longer sum to 1: "
                  "fill blocked scores with -inf before the softmax instead", "where": ["q5"]}),
    "q3_max_tuple_not_unpacked": ({SM: '''
def stable_softmax(x, dim=-1):
    m = torch.max(x, dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "torch.max(x, dim=...) returns a (values, indices) pair, so x - m fails: take "
                  "torch.max(...).values (or use amax)", "where": ["q3", "q5", "q6"]}),
    "q4_int64_tril_mask": ({CM: '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.long).tril()
'''}, {"mistake": "returns a 0/1 int64 tensor, not a boolean mask: ~mask on it is -1/-2 and masked_fill "
                  "rejects it; add dtype=torch.bool (or .bool())", "where": ["q4", "q6"]}),
    "q6_causal_weights_from_sdpa_output": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = scaled_dot_product_attention(Q3, K3, V3, causal_mask(3))
'''}, {"mistake": "weights3_causal is the (3, 2) attention output, not the (3, 3) causal weights: softmax "
                  "the causally masked scores3 instead", "where": ["q6"]}),
    "q8_ratio_doubles_d_k_too": ({COST: '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = ((2 * T) * (2 * T) * (2 * d_k)) // score_madds
'''}, {"mistake": "doubles d_k along with T: only the sequence length doubles, so the ratio is "
                  "(2T)^2 d_k / (T^2 d_k) = 4, not 8", "where": ["q8"]}),
    "q7_answer_d_lowercase": ({TRAP: '''
q_trap_answer = "d"  # masking after the softmax is fine if we renormalise later
'''}, {"mistake": "answers D: zeroing weights after the softmax leaves rows that no longer sum to 1, "
                  "while -inf before the softmax renormalises over the allowed keys; the answer is C",
       "where": ["q7"]}),
    "q1_out_shape_width_d_k": ({SHAPES: '''
batch, n_q, n_k = 4, 10, 10
d_k, d_v = 64, 128
weights_shape = (batch, n_q, n_k)
out_shape = (batch, n_q, d_k)
'''}, {"mistake": "out_shape's last axis is d_k = 64, but each output row is a mix of value rows: it is "
                  "(4, 10, 128)", "where": ["q1"]}),
}
