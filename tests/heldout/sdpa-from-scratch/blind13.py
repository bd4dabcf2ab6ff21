"""Thirteenth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the registration lines of `measure.py`, the variant names and code of blind.py .. blind12.py (so that
their mistakes are not repeated in the same form) and a few public student snippets found with the
code search (Annotated-Transformer style `masked_fill(mask == 0, -1e9)`, d2l-style `masked_softmax`
helpers, additive masks), whose slips are carried over into this notebook's signatures in new code.

Aimed at what a first attention course really hands in: the commonest slips (scaling by 1/d_k, here
through `.mT` and a multiplied reciprocal; the Annotated Transformer's -1e9 fill, here with the
empty-row fix done right; a d2l-style masked_softmax helper that leaves fully masked rows NaN; a max
computed but never subtracted; causal weights made by multiplying the unmasked ones by the mask; the
trap answered A; a copy-paste typo that ignores T_k) beside new kinds: -inf replaced by 0 as a NaN
guard, an additive log-mask built in float32, masking done under torch.no_grad, the scale read from
T_k, a heads axis in the q1 shapes, `64 ** 1/2` as the divisor, causal trace scores left unscaled, and
T = 1024 rounded to 1000 in the cost answers.

Each wrong variant has exactly one mistake, changes one cell of an otherwise full-marks notebook and
says in "mistake" what a TA would tell the student to fix; "where" lists the questions whose tests may
lose points. Correct variants are really correct but written differently (a logsumexp softmax after
the shift, einsum with nan_to_num, F.softmax inside the attention function, an arange-comparison mask,
shapes read off real tensors). Every variant was checked against plain torch
(`F.scaled_dot_product_attention`) before it was graded.

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

_VAR_OK = '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''

_TRACE_OK = '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''

CORRECT = {
    # q3 as exp(z - logsumexp(z)) after the max shift (the shift keeps float16 precise)
    "logsumexp_after_shift": {SM: '''
def stable_softmax(x, dim=-1):
    z = x - torch.max(x, dim=dim, keepdim=True).values
    return torch.exp(z - torch.logsumexp(z, dim=dim, keepdim=True))
'''},
    # q5 with einsum for both products and nan_to_num for queries that see no key
    "einsum_nan_to_num": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    dk = Q.size(-1)
    att = torch.einsum("...id,...jd->...ij", Q, K) / math.sqrt(dk)
    if mask is not None:
        att = att.masked_fill(mask == False, float("-inf"))  # noqa: E712
    att = stable_softmax(att, dim=-1)
    att = torch.nan_to_num(att, nan=0.0)
    return torch.einsum("...ij,...jv->...iv", att, V)
'''},
    # q5 with F.softmax (allowed outside stable_softmax) and an explicit has-a-key multiplier
    "functional_softmax_in_attention": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = 1.0 / math.sqrt(Q.shape[-1])
    logits = torch.matmul(Q, K.transpose(-1, -2)) * scale
    if mask is None:
        return torch.matmul(F.softmax(logits, dim=-1), V)
    logits = logits.masked_fill(~mask, float("-inf"))
    probs = F.softmax(logits, dim=-1)
    keep = mask.any(dim=-1, keepdim=True)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.matmul(probs, V)
'''},
    # q4 from comparing position indices; q1 read off real tensors; q8 with powers of two
    "arange_mask_shapes_from_tensors": {
        CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q).view(-1, 1)
    cols = torch.arange(T_k).view(1, -1)
    return cols <= rows
''',
        SHAPES: '''
_q = torch.zeros(4, 10, 64)
_k = torch.zeros(4, 10, 64)
_v = torch.zeros(4, 10, 128)
weights_shape = tuple((_q @ _k.transpose(-2, -1)).shape)
out_shape = tuple((_q @ _k.transpose(-2, -1) @ _v).shape)
''',
        COST: '''
attn_entries = 2 ** 10 * 2 ** 10
score_madds = 2 ** 10 * 2 ** 10 * 2 ** 6
cost_ratio = 2 ** 2
'''},
    # q2 via the unbiased std squared, q7 in lower case, q6 with a where-built causal score matrix
    "std_squared_lower_c_where_trace": {
        VAR: '''
raw_scores = torch.matmul(Q, K.transpose(1, 2))
raw_score_var = float(raw_scores.std() ** 2)
scaled_score_var = float((raw_scores / Q.shape[-1] ** 0.5).std() ** 2)
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        TRAP: '''
q_trap_answer = "c"
''',
        TRACE: '''
scores3 = (Q3 @ K3.T) / 2.0
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
future = torch.ones(3, 3, dtype=torch.bool).triu(1)
weights3_causal = stable_softmax(torch.where(future, torch.tensor(float("-inf"), dtype=torch.float64), scores3), -1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
}

WRONG = {
    # --- the commonest slips, in new forms
    "q5_mT_times_reciprocal_d_k": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    inv = 1.0 / Q.shape[-1]
    scores = torch.matmul(Q, K.mT) * inv
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.matmul(weights, V)
'''}, {"mistake": "scales the scores by 1/d_k instead of 1/sqrt(d_k): multiply by 1/math.sqrt(d_k)",
       "where": ["q5"]}),
    "q5_annotated_mask_eq_zero_1e9": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = stable_softmax(scores, dim=-1)
    if mask is not None:
        p_attn = p_attn.masked_fill(mask.sum(dim=-1, keepdim=True) == 0, 0.0)
    return torch.matmul(p_attn, V)
'''}, {"mistake": "fills the blocked scores with -1e9 instead of float('-inf'): float16 cannot hold -1e9, "
                  "so masked half-precision inputs raise an overflow error", "where": ["q5"]}),
    "q5_masked_softmax_helper_nan_rows": ({SDPA: '''
def masked_softmax(scores, mask):
    if mask is None:
        return stable_softmax(scores, dim=-1)
    return stable_softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)


def scaled_dot_product_attention(Q, K, V, mask=None):
    d = Q.shape[-1]
    attn = masked_softmax(Q @ K.transpose(-2, -1) / math.sqrt(d), mask)
    return attn @ V
'''}, {"mistake": "a query whose keys are all masked gets 0/0 = NaN weights: zero those rows "
                  "(e.g. where ~mask.any(-1, keepdim=True)) after the softmax", "where": ["q5"]}),
    "q3_max_found_but_not_subtracted": ({SM: '''
def stable_softmax(x, dim=-1):
    biggest = x.max(dim=dim, keepdim=True).values
    numer = torch.exp(x)
    denom = numer.sum(dim=dim, keepdim=True)
    return numer / denom
'''}, {"mistake": "computes the max but never subtracts it before exp: use torch.exp(x - biggest), "
                  "otherwise large float16 logits overflow to inf and give NaN", "where": ["q3", "q5"]}),
    "q6_causal_by_multiplying_weights": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = weights3 * causal_mask(3)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "makes the causal weights by multiplying the unmasked weights by the mask: the rows no "
                  "longer sum to 1; mask the scores with -inf before the softmax", "where": ["q6"]}),
    "q7_answer_a_upper": ({TRAP: '''
q_trap_answer = "a".upper()
'''}, {"mistake": "answers A: zeroing weights after the softmax is not the same as -inf before it, the "
                  "remaining weights no longer sum to 1 (answer C)", "where": ["q7"]}),
    "q4_typo_t_k_always_square": ({CM: '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is not None else T_q
    return torch.tril(torch.ones((T_q, T_k), dtype=torch.bool))
'''}, {"mistake": "the line that defaults T_k sets it to T_q in both branches, so a given T_k is ignored "
                  "and the mask is always square: write T_k = T_q if T_k is None else T_k",
       "where": ["q4", "q5"]}),
    # --- new kinds
    "q3_inf_replaced_by_zero": ({SM: '''
def stable_softmax(x, dim=-1):
    x = torch.where(torch.isinf(x), torch.zeros_like(x), x)
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "replaces -inf logits by 0 to avoid NaN, so masked entries get weight exp(0 - max) "
                  "instead of exactly 0: keep -inf, exp(-inf) is already 0", "where": ["q3", "q5", "q6"]}),
    "q5_log_mask_float32_bias": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        bias = torch.log(mask.float())
        scores = scores + bias
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''}, {"mistake": "builds the additive mask as log(mask.float()), a float32 tensor: adding it promotes "
                  "float16/bfloat16 scores to float32 and the product with V fails; build it in "
                  "scores.dtype or use masked_fill", "where": ["q5"]}),
    "q5_masking_under_no_grad": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        with torch.no_grad():
            scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''}, {"mistake": "applies the mask inside torch.no_grad(), which cuts the graph: with a mask no gradient "
                  "reaches Q or K; masks need no special treatment, drop the no_grad block",
       "where": ["q5"]}),
    "q5_scale_from_key_count": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    n = K.shape[-2]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(n)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''}, {"mistake": "reads the scale from K.shape[-2], the number of keys T_k, instead of K.shape[-1] = d_k",
       "where": ["q5"]}),
    "q1_heads_axis_added": ({SHAPES: '''
n_heads = 8
weights_shape = (4, n_heads, 10, 10)
out_shape = (4, n_heads, 10, 128)
'''}, {"mistake": "adds a heads axis that the question does not have: single-head attention on (4, 10, 64) "
                  "inputs gives (4, 10, 10) weights and a (4, 10, 128) output", "where": ["q1"]}),
    "q2_divisor_power_precedence": ({VAR: _VAR_OK.replace("scale_divisor = math.sqrt(64)",
                                                          "scale_divisor = 64 ** 1/2")},
                                    {"mistake": "writes sqrt(64) as 64 ** 1/2, which Python reads as "
                                                "(64 ** 1) / 2 = 32.0; the divisor is 8.0 (64 ** 0.5)",
                                     "where": ["q2"]}),
    "q6_causal_scores_unscaled": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
raw3 = Q3 @ K3.T
weights3_causal = stable_softmax(raw3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the causal weights use the raw scores Q3 @ K3.T without dividing by sqrt(4) = 2; "
                  "mask the scaled scores", "where": ["q6"]}),
    "q8_T_rounded_to_1000": ({COST: '''
T = 1000
d_k = 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = (2 * T) ** 2 // T ** 2
'''}, {"mistake": "rounds T = 1024 to 1000 ('1k'): the counts must use T = 1024 exactly "
                  "(1048576 entries, 67108864 multiply-adds)", "where": ["q8"]}),
}
