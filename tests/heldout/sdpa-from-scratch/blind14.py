"""Fourteenth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the registration lines of `measure.py`, the variant names and code of blind.py .. blind13.py (so that
their mistakes are not repeated in the same form) and public student code found with the code search
(Annotated-Transformer `ScaledDotProductAttention` modules with `nn.Softmax(dim=-1)`, d2l
`masked_softmax` / `sequence_mask` helpers, one with the fill value typed as +1e6 instead of -1e6, and
CS336-style functions that call `scores.masked_fill(~mask, ...)` with no `None` check). Their slips are
carried over into this notebook's signatures in new code.

Aimed at what a first attention course really hands in. The commonest slips, in forms no earlier set
used: fully masked rows left NaN (here through torch.where and a -inf constant), the scores never scaled
(d_k computed, then forgotten, with einsum), the keys transposed with a 3-D-only permute, the trap
answered A by indexing a list, the biased variance by hand, the output shape given d_k, the softmax max
taken without keepdim and restored with unsqueeze(-1), and the cost ratio taken as linear. New kinds: no
`mask is None` check, the blocked scores filled with +inf (a sign typo), nan_to_num applied to the
scores instead of the weights, a causal mask made as ~triu() (which also blocks the diagonal), the hand
trace scaled with floor division, the multiply-adds counted with sqrt(d_k) and the scaled variance
divided by the q2 head width 64 instead of the example's 8.

Each wrong variant has exactly one mistake, changes one cell of an otherwise full-marks notebook and
says in "mistake" what a TA would tell the student to fix; "where" lists the questions whose tests may
lose points. Correct variants are really correct but written differently (an nn.Softmax module with
nan_to_num, an in-place masked_fill_, a batched bmm over flattened leading dimensions, a detached max,
a mask filled by explicit loops, causal weights by renormalising the lower triangle). Every variant was
checked against plain torch (`F.scaled_dot_product_attention`) before it was graded.

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
    # q5 with an nn.Softmax module (allowed outside stable_softmax) and nan_to_num for empty rows
    "softmax_module_nan_to_num": {SDPA: '''
_softmax_keys = torch.nn.Softmax(dim=-1)


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -math.inf)
    attn = _softmax_keys(scores)
    attn = torch.nan_to_num(attn, nan=0.0)
    return torch.matmul(attn, V)
'''},
    # q5 with an in-place masked_fill_ on the (non-leaf) scores and a where for empty rows
    "inplace_fill_where_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q.matmul(K.transpose(-1, -2)).div(math.sqrt(K.shape[-1]))
    if mask is not None:
        scores.masked_fill_(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        alive = mask.any(-1, keepdim=True)
        w = torch.where(alive, w, w.new_zeros(()))
    return w.matmul(V)
'''},
    # q5 as one batched bmm: leading dimensions broadcast, flattened, and restored at the end
    "bmm_over_flattened_batch": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    T_q, d_k = Q.shape[-2], Q.shape[-1]
    T_k, d_v = K.shape[-2], V.shape[-1]
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    q = Q.expand(*lead, T_q, d_k).reshape(-1, T_q, d_k)
    k = K.expand(*lead, T_k, d_k).reshape(-1, T_k, d_k)
    v = V.expand(*lead, T_k, d_v).reshape(-1, T_k, d_v)
    s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)
    if mask is not None:
        m = mask.expand(*lead, T_q, T_k).reshape(-1, T_q, T_k)
        s = s.masked_fill(~m, float("-inf"))
        p = stable_softmax(s, dim=-1)
        p = p.masked_fill(~m.any(dim=-1, keepdim=True), 0.0)
    else:
        p = stable_softmax(s, dim=-1)
    return torch.bmm(p, v).reshape(*lead, T_q, d_v)
'''},
    # q3 with a detached max (the shift cancels, so no gradient is lost) and torch.* calls;
    # q4 filled by explicit loops; q1 as torch.Size (a tuple subclass of ints)
    "detached_max_loop_mask_size": {
        SM: '''
def stable_softmax(x, dim=-1):
    shift = torch.amax(x, dim=dim, keepdim=True).detach()
    num = torch.exp(torch.sub(x, shift))
    den = torch.sum(num, dim=dim, keepdim=True)
    return torch.div(num, den)
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    n_keys = T_q if T_k is None else T_k
    allowed = torch.zeros(T_q, n_keys, dtype=torch.bool)
    for i in range(T_q):
        for j in range(n_keys):
            if j <= i:
                allowed[i, j] = True
    return allowed
''',
        SHAPES: '''
weights_shape = torch.Size([4, 10, 10])
out_shape = torch.Size([4, 10, 128])
'''},
    # q6 causal weights by renormalising the lower triangle of the unmasked weights (the softmax
    # restricted to the allowed keys); q2 with an explicit correction=1; q7 with a trailing newline;
    # q8 through pow
    "renormalised_tril_trace": {
        TRACE: '''
scores3 = torch.mm(Q3, K3.t()) * 0.5
weights3 = stable_softmax(scores3, dim=1)
out3 = torch.mm(weights3, V3)
kept = torch.tril(weights3)
weights3_causal = kept / kept.sum(dim=1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
''',
        VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.matmul(Q, K.transpose(-2, -1))
raw_score_var = torch.var(raw_scores, correction=1).item()
scaled_score_var = torch.var(raw_scores * d_k ** -0.5, correction=1).item()
scale_divisor = float(pow(64, 0.5))
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        TRAP: '''
q_trap_answer = "C\\n"
''',
        COST: '''
T, d_k = 1024, 64
attn_entries = pow(T, 2)
score_madds = pow(T, 2) * d_k
cost_ratio = pow(2 * T, 2) * d_k // score_madds
'''},
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q5_where_neg_inf_rows_left_nan": ({SDPA: '''
NEG_INF = float("-inf")


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    logits = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        logits = torch.where(mask, logits, torch.full_like(logits, NEG_INF))
    attention = stable_softmax(logits, dim=-1)
    return torch.matmul(attention, V)
'''}, {"mistake": "a query whose keys are all masked gets 0/0 = NaN weights and a NaN output row: after "
                  "the softmax set the weights of rows with no allowed key to 0 "
                  "(mask.any(-1, keepdim=True))", "where": ["q5"]}),
    "q5_d_k_computed_never_used": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = torch.einsum("...qd,...kd->...qk", Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.einsum("...qk,...kv->...qv", weights, V)
'''}, {"mistake": "d_k is read but the scores are never divided by sqrt(d_k): scale them by "
                  "1/math.sqrt(d_k) before masking", "where": ["q5"]}),
    "q5_keys_permuted_3d_only": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    K_t = K.permute(0, 2, 1)
    scores = torch.matmul(Q, K_t) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.matmul(weights, V)
'''}, {"mistake": "K.permute(0, 2, 1) only works for 3-D keys; 4-D (batch, heads, T, d) inputs fail: "
                  "swap the last two axes with K.transpose(-2, -1)", "where": ["q5"]}),
    "q7_answer_a_from_list": ({TRAP: '''
choices = ["A", "B", "C", "D"]
q_trap_answer = choices[0]  # zero after or -inf before: both give weight 0
'''}, {"mistake": "answers A: zeroing weights after the softmax leaves rows that no longer sum to 1, "
                  "unlike -inf before it; the answer is C", "where": ["q7"]}),
    "q2_biased_variance_by_hand": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
centred = raw_scores - raw_scores.mean()
raw_score_var = (centred ** 2).mean().item()
scaled = raw_scores / math.sqrt(d_k)
scaled_score_var = ((scaled - scaled.mean()) ** 2).mean().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "computes the variance by hand as the mean squared deviation (divides by n): the "
                  "question asks for torch's default unbiased .var() (divides by n - 1)",
       "where": ["q2"]}),
    "q1_out_width_from_queries": ({SHAPES: '''
Q_shape = (4, 10, 64)
K_shape = (4, 10, 64)
V_shape = (4, 10, 128)
weights_shape = (Q_shape[0], Q_shape[1], K_shape[1])
out_shape = (Q_shape[0], Q_shape[1], Q_shape[2])
'''}, {"mistake": "the output's last axis comes from V, not Q: each output row mixes values of width "
                  "d_v = 128, so out_shape is (4, 10, 128)", "where": ["q1"]}),
    "q3_max_restored_on_last_axis": ({SM: '''
def stable_softmax(x, dim=-1):
    top = x.max(dim=dim).values.unsqueeze(-1)
    e = torch.exp(x - top)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "drops the reduced axis and puts it back with unsqueeze(-1), which only restores it when "
                  "dim is the last axis: use keepdim=True (or unsqueeze(dim))", "where": ["q3"]}),
    "q8_ratio_linear_in_T": ({COST: '''
T = 1024
d_k = 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = (2 * T) // T
'''}, {"mistake": "cost_ratio compares T with 2T, but the multiply-adds grow with T^2: doubling T "
                  "multiplies them by 4", "where": ["q8"]}),
    # --- new kinds
    "q5_mask_none_not_checked": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''}, {"mistake": "always applies the mask, so the default mask=None crashes (~None is a TypeError): "
                  "wrap the masking lines in `if mask is not None:`", "where": ["q5"]}),
    "q5_blocked_filled_plus_inf": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''}, {"mistake": "fills the blocked scores with +inf instead of -inf (sign typo): the blocked keys "
                  "become the largest scores and the rows turn NaN; use float('-inf')", "where": ["q5"]}),
    "q5_nan_to_num_on_scores": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        scores = torch.nan_to_num(scores)
    weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''}, {"mistake": "applies nan_to_num to the scores, turning -inf into the most negative finite number, so "
                  "a query with no allowed key gets uniform weights (the mean of V) instead of a zero row; "
                  "zero those rows' weights after the softmax", "where": ["q5"]}),
    "q4_not_triu_blocks_diagonal": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    future = torch.ones(T_q, T_k, dtype=torch.bool).triu()
    return ~future
'''}, {"mistake": "triu() without diagonal=1 includes the diagonal, so ~triu() also blocks each query "
                  "from its own key (query 0 sees nothing), here and in the q6 trace that uses it: use "
                  "~triu(diagonal=1) or tril()",
       "where": ["q4", "q5", "q6"]}),
    "q6_trace_floor_divided": ({TRACE: '''
scores3 = (Q3 @ K3.T) // 2
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "divides the scores with // (floor division), which rounds the odd raw scores down: "
                  "use / 2 (true division by sqrt(4))", "where": ["q6"]}),
    "q8_madds_with_sqrt_d_k": ({COST: '''
T = 1024
d_k = 64
attn_entries = T * T
score_madds = T * T * int(math.sqrt(d_k))
cost_ratio = 4
'''}, {"mistake": "multiplies by sqrt(d_k) = 8, the scale divisor, instead of d_k = 64: each score is a "
                  "dot product of length 64, so Q @ K.T takes T * T * 64 multiply-adds", "where": ["q8"]}),
    "q2_scaled_by_head_width_64": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scale_divisor = math.sqrt(64)
scaled_score_var = (raw_scores / scale_divisor).var().item()
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "scales the example's scores by sqrt(64), the divisor for the d_k = 64 head, but the "
                  "example has d_k = 8: divide by math.sqrt(Q.shape[-1])", "where": ["q2"]}),
}
