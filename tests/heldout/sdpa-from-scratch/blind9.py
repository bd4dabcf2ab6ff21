"""Ninth blind held-out set for sdpa-from-scratch (Lesson 80), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key comments of `measure.py`. What was read: the student-facing
text of `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the variant names of the eight earlier blind sets, so that their mistakes are not
repeated in the same form.

A mixed class. Beginners: the two shape answers swapped, the theoretical variance d_k written where
the measured one is asked, the hand trace done with e ~ 2.7 or without the softmax denominator, the
weight-matrix size given in bytes. Intermediate: F.softmax called without `dim` (its implicit axis is 0
for 3-D input), the mask honoured only when it is 2-D, any mask replaced by `is_causal=True`, every
call made causal (a nanoGPT habit), the weights multiplied by K instead of V, a float mask from
`np.tri`, the query scored against itself in Question 2, the multiple-choice answer picked by a
dtype test.

Each wrong variant changes one or two cells of an otherwise full-marks notebook and says its mistake
in words; `where` lists the questions that may lose points. Correct variants are really correct but
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
TRAP = "q_trap_answer"       # the q7 cell
COST = "attn_entries"        # the q8 cell


def _sdpa(head: str = "", scores: str = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
          cond: str = "mask is not None", tail: str = "return torch.matmul(weights, V)") -> str:
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1){head}
    {scores}
    if {cond}:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    {tail}
'''


CORRECT = {
    # q3 with amax and a detached shift; q4 from numpy's tri with a bool dtype
    "amax_detached_shift_np_tri_bool": {
        SM: '''
def stable_softmax(x, dim=-1):
    c = x.amax(dim=dim, keepdim=True).detach()   # a constant shift: the softmax does not change
    e = (x - c).exp()
    return e / e.sum(dim, keepdim=True)
''',
        CM: '''
import numpy as np

def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.from_numpy(np.tri(T_q, T_k, dtype=bool))
'''},
    # q5: the mask turned into an additive log-mask (log 1 = 0, log 0 = -inf); empty rows set to 0
    "sdpa_additive_log_mask": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = (Q @ K.mT) * Q.shape[-1] ** -0.5
    if mask is not None:
        scores = scores + torch.log(mask.to(scores.dtype))
    w = stable_softmax(scores, dim=-1)
    w = torch.where(torch.isnan(w), torch.zeros_like(w), w)
    return w @ V
'''},
    # q5: leading axes flattened for bmm, then restored
    "sdpa_flatten_bmm": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    T_q, T_k = Q.shape[-2], K.shape[-2]
    q = Q.expand(*lead, *Q.shape[-2:]).reshape(-1, T_q, Q.shape[-1])
    k = K.expand(*lead, *K.shape[-2:]).reshape(-1, T_k, K.shape[-1])
    v = V.expand(*lead, *V.shape[-2:]).reshape(-1, T_k, V.shape[-1])
    s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
    if mask is not None:
        m = mask.expand(*lead, T_q, T_k).reshape(-1, T_q, T_k)
        s = s.masked_fill(~m, -math.inf)
        w = stable_softmax(s, dim=-1)
        w = w.masked_fill(~m.any(-1, keepdim=True), 0.0)
    else:
        w = stable_softmax(s, dim=-1)
    return torch.bmm(w, v).reshape(*lead, T_q, V.shape[-1])
'''},
    # q2 with einsum and an explicit correction=1; q6 with torch.where and F.softmax
    "einsum_variance_where_trace": {
        VAR: '''
scores_all = torch.einsum("bqd,bkd->bqk", Q, K)
raw_score_var = float(torch.var(scores_all, correction=1))
scaled_score_var = float(torch.var(scores_all / Q.shape[-1] ** 0.5, correction=1))
scale_divisor = float(64) ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        TRACE: '''
scores3 = torch.einsum("qd,kd->qk", Q3, K3) / 2
weights3 = F.softmax(scores3, dim=1)
out3 = weights3 @ V3
blocked = torch.where(causal_mask(3), scores3, torch.full_like(scores3, -math.inf))
weights3_causal = F.softmax(blocked, dim=1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    # q1 read off a real tensor, q7 stripped, q8 with powers of two
    "shapes_from_tensors_bit_shift_cost": {
        SHAPES: '''
_w = torch.empty(4, 10, 10)
weights_shape = tuple(_w.shape)
out_shape = tuple((_w @ torch.empty(4, 10, 128)).shape)
''',
        TRAP: '''
q_trap_answer = " C ".strip()
''',
        COST: '''
attn_entries = 1 << 20
score_madds = (1 << 20) * (1 << 6)
cost_ratio = 2 ** 2
'''},
}

WRONG = {
    "q1_shapes_swapped": ({SHAPES: '''
weights_shape = (4, 10, 128)
out_shape = (4, 10, 10)
'''}, {"mistake": "writes the two answers the wrong way round: the output's shape (4, 10, 128) in "
                  "weights_shape and the weights' shape (4, 10, 10) in out_shape", "where": ["q1"]}),
    "q2_theoretical_variance": ({VAR: '''
d_k = Q.shape[-1]
raw_score_var = float(d_k)        # variance of a sum of d_k unit-variance products
scaled_score_var = 1.0
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "writes the theoretical values (d_k = 8 and 1) instead of measuring the variance of the "
                  "example's scores as asked", "where": ["q2"]}),
    "q2_query_against_itself": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ Q.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "scores the queries against themselves (Q @ Q^T, a symmetric matrix whose diagonal is "
                  "|q|^2) instead of against the keys", "where": ["q2"]}),
    "q3_softmax_without_dim": ({SM: '''
def stable_softmax(x, dim=-1):
    return F.softmax(x - x.max(dim=dim, keepdim=True).values)
'''}, {"mistake": "calls F.softmax without passing `dim`: torch picks an implicit axis (0 for 1-D and 3-D "
                  "input, 1 otherwise), so the `dim` argument is ignored and batched scores are "
                  "normalised over the batch", "where": ["q3", "q5", "q6"]}),
    "q4_float_mask_from_np_tri": ({CM: '''
import numpy as np

def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.from_numpy(np.tri(T_q, T_k))
'''}, {"mistake": "returns numpy's np.tri as is: a float64 matrix of ones and zeros, not a boolean mask",
       "where": ["q4", "q5", "q6"]}),
    "q5_mask_only_when_2d": ({SDPA: _sdpa(cond="mask is not None and mask.dim() == 2")},
                             {"mistake": "applies the mask only when it is 2-D (a causal (T_q, T_k) mask); "
                                         "batched or per-head padding masks are silently ignored",
                              "where": ["q5"]}),
    "q5_any_mask_as_is_causal": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    # PyTorch builds the mask itself when is_causal is set
    return F.scaled_dot_product_attention(Q, K, V, is_causal=mask is not None)
'''}, {"mistake": "replaces whatever mask is passed by is_causal=True: a padding mask or any non-causal "
                  "mask is treated as the causal one", "where": ["q5"]}),
    "q5_weights_times_keys": ({SDPA: _sdpa(tail="return torch.matmul(weights, K)")},
                              {"mistake": "multiplies the weights by K instead of V, returning a mix of keys "
                                          "(wrong values, and a (..., T_q, d_k) shape)", "where": ["q5"]}),
    "q5_always_causal": ({SDPA: _sdpa(
        head="\n    causal = causal_mask(Q.size(-2), K.size(-2))\n"
             "    mask = causal if mask is None else mask & causal",
        cond="True")},
        {"mistake": "makes every call causal (a GPT habit): the causal mask is combined with any mask given "
                    "and applied even when mask is None", "where": ["q5"]}),
    "q6_no_denominator": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = torch.exp(scores3)
out3 = weights3 @ V3
weights3_causal = torch.exp(scores3.masked_fill(~causal_mask(3), float("-inf")))
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "takes the exponentials of the scores but never divides by their row sums, so the "
                  "weights do not add up to 1", "where": ["q6"]}),
    "q6_e_as_2_7": ({TRACE: '''
scores3 = Q3 @ K3.T / 2
e = 2.7                                   # by hand
num = e ** scores3
weights3 = num / num.sum(dim=1, keepdim=True)
out3 = weights3 @ V3
num_c = num * causal_mask(3)
weights3_causal = num_c / num_c.sum(dim=1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "does the hand trace with e rounded to 2.7, so every weight is off in the second or third "
                  "decimal", "where": ["q6"]}),
    "q7_answer_by_dtype_test": ({TRAP: '''
# it only matters in half precision, and we are in float32 here
q_trap_answer = "D" if torch.get_default_dtype() == torch.float16 else "A"
'''}, {"mistake": "believes zeroing after the softmax equals masking before it (answer A, chosen by a "
                  "dtype test), missing that the kept weights no longer sum to 1", "where": ["q7"]}),
    "q8_entries_in_bytes": ({COST: '''
attn_entries = 1024 * 1024 * 4        # float32 entries, 4 bytes each
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "gives the memory of the weight matrix in bytes (4 per float32) instead of its number of "
                  "entries", "where": ["q8"]}),
}
