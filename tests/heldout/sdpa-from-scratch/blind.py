"""Blind held-out submissions for sdpa-from-scratch (issue 21), written without reading the grader's
catalogue of misconceptions, its hidden tests or the reference solution: only the lesson, the student
template and full_marks.ipynb. Same cell-replacement format as `variants.py` (see
`tests/heldout/harness.py`), except that each wrong variant says its mistake in plain English instead of a
catalogue key:

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}

`where` lists the questions where points should be lost (a broken helper also costs the questions whose
cells call it). Mistakes are modelled on code students publish for this exercise (global rather than
per-row max in the softmax, `nn.Dropout` left in, `.T` on batched tensors, padding-mask `unsqueeze(1)`,
float32 upcasts that never cast back, ...)."""

SDPA = "scaled_dot_product_attention"

CORRECT = {
    # einsum for both products; the scale folded into Q before the product
    "einsum_prescaled_q": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = Q * (1.0 / math.sqrt(Q.shape[-1]))
    scores = torch.einsum("...qd,...kd->...qk", Q, K)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, 0.0)
    return torch.einsum("...qk,...kd->...qd", weights, V)
'''},
    # torch.where instead of masked_fill, NaN rows cleaned with nan_to_num, softmax via logsumexp
    "where_logsumexp_nan_to_num": {
        "stable_softmax": '''
def stable_softmax(x, dim=-1):
    # exp(x - logsumexp(x)) is the softmax; logsumexp subtracts the max internally
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))
''',
        SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-1, -2) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
    weights = stable_softmax(scores, dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)   # a fully masked row is 0/0: make it zeros
    return weights @ V
'''},
    # most negative finite number instead of -inf, then explicit zeroing of empty rows
    "finfo_min_fill_mul_zero_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q.matmul(K.mT) * d_k ** -0.5
    if mask is None:
        return stable_softmax(scores) @ V
    scores = scores.masked_fill(mask.logical_not(), torch.finfo(scores.dtype).min)
    weights = stable_softmax(scores)
    keep = mask.any(-1, keepdim=True).to(weights.dtype)
    return (weights * keep) @ V
'''},
    # softmax computed in float32 for half types and cast back; amax and a positive `dim` normalised
    "softmax_upcast_amax": {
        "stable_softmax": '''
def stable_softmax(x, dim=-1):
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    m = work.amax(dim=dim, keepdim=True)
    e = (work - m).exp()
    return (e / e.sum(dim=dim, keepdim=True)).to(x.dtype)
''',
        "causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.tril(torch.ones(T_q, T_k, dtype=torch.bool))
'''},
    # additive mask of -inf built from the boolean mask; reshaping leading dims to use bmm
    "additive_mask_bmm": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    *lead, T_q, d_k = Q.shape
    T_k, d_v = K.shape[-2], V.shape[-1]
    lead = torch.broadcast_shapes(tuple(lead), tuple(K.shape[:-2]), tuple(V.shape[:-2]))
    q = Q.expand(*lead, T_q, d_k).reshape(-1, T_q, d_k)
    k = K.expand(*lead, T_k, d_k).reshape(-1, T_k, d_k)
    v = V.expand(*lead, T_k, d_v).reshape(-1, T_k, d_v)
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)
    scores = scores.reshape(*lead, T_q, T_k)
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device)
        scores = scores + bias.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
    out = torch.bmm(weights.reshape(-1, T_q, T_k), v)
    return out.reshape(*lead, T_q, d_v)
'''},
    # causal mask from triu, q1/q8 answers computed, q6 via F.softmax outside the rule-bound functions
    "computed_answers": {
        "weights_shape": '''
Qs, Ks, Vs = torch.empty(4, 10, 64), torch.empty(4, 10, 64), torch.empty(4, 10, 128)
weights_shape = tuple((Qs @ Ks.transpose(-2, -1)).shape)
out_shape = tuple(((Qs @ Ks.transpose(-2, -1)) @ Vs).shape)
''',
        "causal_mask": '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return ~torch.triu(torch.ones(T_q, T_k, dtype=torch.bool), diagonal=1)
''',
        "weights3": '''
scores3 = torch.matmul(Q3, K3.transpose(0, 1)) / 2.0
weights3 = F.softmax(scores3, dim=1)
out3 = torch.matmul(weights3, V3)
weights3_causal = F.softmax(torch.where(causal_mask(3), scores3, float("-inf")), dim=1)
''',
        "attn_entries": '''
T, d_k_head = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k_head
cost_ratio = (2 * T) ** 2 * d_k_head // score_madds
'''},
    # q2 with an explicit unbiased formula; masks compared with `== 0`; a row-sum divide by sum
    "manual_variance_mask_eq0": {
        "raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
def _unbiased(t):
    t = t.flatten().double()
    return (((t - t.mean()) ** 2).sum() / (t.numel() - 1)).item()
raw_score_var = _unbiased(raw_scores)
scaled_score_var = _unbiased(raw_scores / d_k ** 0.5)
scale_divisor = float(64 ** 0.5)
''',
        SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = 1.0 / math.sqrt(Q.size(-1))
    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -math.inf)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(mask.sum(-1, keepdim=True) == 0, 0)
    return torch.matmul(weights, V)
'''},
    # loops over heads/batch entries would break the rule; instead: the softmax written on a
    # movedim'd tensor (dim handled by moving it last) and flattening of leading dims with matmul
    "softmax_movedim": {
        "stable_softmax": '''
def stable_softmax(x, dim=-1):
    moved = x.movedim(dim, -1)
    shifted = moved - moved.max(-1, keepdim=True)[0]
    e = shifted.exp()
    return (e / e.sum(-1, keepdim=True)).movedim(-1, dim)
''',
        SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = K.size(-1)
    scores = (Q @ K.swapaxes(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        allowed = mask.bool()
        scores = scores.masked_fill(~allowed, float("-inf"))
        empty = ~allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(empty, 0.0)       # empty rows: finite, zeroed after the softmax
        weights = stable_softmax(scores, dim=-1).masked_fill(empty, 0.0)
    else:
        weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''},
}

WRONG = {
    "q1_out_shape_uses_d_k": ({"weights_shape": '''
weights_shape = (4, 10, 10)
out_shape = (4, 10, 64)
'''}, {"mistake": "gives the output the width d_k of the queries instead of d_v of the values",
       "where": ["q1"]}),

    "q2_variance_scaled_by_sqrt": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = raw_score_var / math.sqrt(d_k)   # variance treated as if it scaled like the scores
scale_divisor = math.sqrt(64)
'''}, {"mistake": "divides the variance by sqrt(d_k) instead of dividing the scores (variance scales by d_k)",
       "where": ["q2"]}),

    "q2_scale_divisor_d_k": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = 64.0
'''}, {"mistake": "answers the scale divisor for d_k=64 as 64 instead of 8", "where": ["q2"]}),

    "q3_global_max": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    exps = torch.exp(x - x.max())          # one max over the whole tensor, not per slice
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "subtracts the global maximum of the whole tensor instead of each slice's maximum, so "
                  "slices far below the global max underflow to 0/0 = NaN (float16 logits in the thousands)",
       "where": ["q3", "q5"]}),

    "q3_dim_argument_ignored": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=-1, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=-1, keepdim=True)
'''}, {"mistake": "ignores the `dim` argument and always normalises over the last dimension",
       "where": ["q3"]}),

    "q3_max_without_keepdim": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=dim).values     # no keepdim: broadcasts along the wrong axis
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "takes the max without keepdim, so it broadcasts against the wrong axis (wrong values on "
                  "square inputs, a crash on non-square ones)",
       "where": ["q3", "q5", "q6"]}),

    "q3_float32_result": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    x = x.float()                           # for stability; never cast back
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "upcasts to float32 and returns float32 whatever the input dtype (float64 loses precision, "
                  "float16 comes back as float32; the float64 hand trace of q6 then fails on float32 @ float64)",
       "where": ["q3", "q5", "q6"]}),

    "q4_bottom_right_aligned": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=T_k - T_q)
'''}, {"mistake": "aligns the causal mask at the bottom-right (diagonal T_k - T_q) instead of the top-left "
                  "when T_q != T_k", "where": ["q4"]}),

    "q4_float_mask": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.tril(torch.ones(T_q, T_k))
'''}, {"mistake": "returns a float 0/1 mask instead of a torch.bool mask (so `~mask` in the q6 cell fails)",
       "where": ["q4", "q6"]}),

    "q4_t_k_ignored": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    return torch.tril(torch.ones(T_q, T_q, dtype=torch.bool))
'''}, {"mistake": "ignores T_k and always returns a square (T_q, T_q) mask", "where": ["q4"]}),

    "q5_returns_output_and_weights": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''}, {"mistake": "returns the tuple (output, weights) instead of the output tensor", "where": ["q5"]}),

    "q5_dot_T_on_batched_keys": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.T) / math.sqrt(d_k)    # .T reverses every dim of a 3-D/4-D tensor
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "transposes K with `.T`, which reverses all dimensions of batched inputs instead of the "
                  "last two", "where": ["q5"]}),

    "q5_dropout_left_on": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    weights = F.dropout(weights, p=0.1)     # F.dropout defaults to training=True
    return torch.matmul(weights, V)
'''}, {"mistake": "applies attention dropout with F.dropout, which is active by default (training=True), so "
                  "outputs are random and rescaled", "where": ["q5"]}),

    "q5_padding_mask_unsqueeze": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        mask = mask.unsqueeze(1)            # "add the head dimension", as for a (B, T_k) padding mask
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "always unsqueezes the mask at dim 1 (padding-mask habit), so a (T_q, T_k) or "
                  "(..., T_q, T_k) mask broadcasts wrongly or crashes", "where": ["q5"]}),

    "q5_flips_callers_mask": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        blocked = mask.logical_not_()       # in place: the caller's mask is now inverted
        scores = scores.masked_fill(blocked, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = (~blocked).any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "inverts the caller's mask in place (logical_not_) to get the blocked positions; the "
                  "output is right but the argument is modified", "where": ["q5"]}),

    "q5_detached_weights": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    attn_map = weights.detach()             # kept for plotting, then used by mistake
    return torch.matmul(attn_map, V)
'''}, {"mistake": "multiplies V by detached weights, so no gradient reaches Q or K", "where": ["q5"]}),

    "q5_bmm_3d_only": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.bmm(weights, V)
'''}, {"mistake": "uses torch.bmm and transpose(1, 2), which only work for 3-D inputs (4-D inputs crash)",
       "where": ["q5"]}),

    "q5_float32_output": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = Q.float(), K.float(), V.float()   # "to be safe in half precision"
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
'''}, {"mistake": "converts all inputs to float32 and returns float32 (wrong dtype for float16/bfloat16/"
                  "float64, float64 precision lost)", "where": ["q5"]}),

    "q5_mask_polarity": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))     # True read as "blocked"
        weights = stable_softmax(scores, dim=-1)
        has_key = (~mask).any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "reads True in the mask as 'blocked' instead of 'may attend'", "where": ["q5"]}),

    "q5_scale_after_softmax": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1))
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    weights = weights / math.sqrt(d_k)
    return torch.matmul(weights, V)
'''}, {"mistake": "divides the weights by sqrt(d_k) after the softmax instead of the scores before it",
       "where": ["q5"]}),

    "q6_zeroed_after_softmax": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = weights3.clone()
weights3_causal[~causal_mask(3)] = 0.0
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "builds the causal weights by zeroing the future weights after the softmax (rows no "
                  "longer sum to 1)", "where": ["q6"]}),

    "q6_unscaled_hand_trace": ({"weights3": '''
scores3 = Q3 @ K3.T
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"mistake": "forgets to divide the hand-traced scores by sqrt(4) = 2", "where": ["q6"]}),

    "q7_answer_a": ({"q_trap_answer": '''
q_trap_answer = "A"
'''}, {"mistake": "believes zeroing weights after the softmax equals masking before it", "where": ["q7"]}),

    "q8_cost_ratio_linear": ({"attn_entries": '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = 2
'''}, {"mistake": "says the cost doubles (linear) when T doubles instead of quadrupling", "where": ["q8"]}),

    "q8_entries_times_d_k": ({"attn_entries": '''
attn_entries = 1024 * 1024 * 64
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "counts d_k numbers per attention-weight entry (T^2 d_k instead of T^2)", "where": ["q8"]}),
}
