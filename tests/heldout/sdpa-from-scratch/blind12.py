"""Twelfth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the registration lines of `measure.py` and the variant names and code of blind.py .. blind11.py, so
that their mistakes are not repeated in the same form.

A class with a realistic spread: the commonest slips (dividing by d_k, here with swapaxes and size();
the mask the wrong way round, here through `mask == 1`; a softmax without the max shift, here in a
torch.div helper; NaN rows of fully masked queries, here after an in-place fill of a clone) written in
new forms, beside new kinds: a rectangular causal mask transposed from triu, a softmax whose default
axis is 0, an output viewed back into Q's shape, float32's minimum filled into half scores, shapes
built by concatenating Q's and K's, a variance left as a tensor, the hand trace scaled by d_v, a
lower-case letter for the trap, and multiply-adds counted as the product of the operands' sizes.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in words;
`where` lists the questions that may lose points. Correct variants are really correct but written
differently (movedim with a multiplied row mask, functional torch.sub/torch.div, a mask from ~triu,
math.prod counts, a torch.where fill with a letter picked by index). Every variant was checked against
plain torch (`F.scaled_dot_product_attention`) before it was graded.

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


def _sdpa(scores: str = "scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])",
          fill: str = 'scores = scores.masked_fill(~mask, float("-inf"))',
          soft: str = "weights = stable_softmax(scores, dim=-1)",
          fix: str = "weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)",
          tail: str = "return weights @ V") -> str:
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    {scores}
    if mask is not None:
        {fill}
    {soft}
    if mask is not None:
        {fix}
    {tail}
'''


_TRACE_OK = '''
scores3 = Q3 @ K3.T / 2
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''

CORRECT = {
    # q5 with movedim for K^T and the dead rows zeroed by multiplying with the row-has-a-key mask
    "movedim_mask_any_multiply": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = torch.matmul(Q, K.movedim(-1, -2)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -math.inf)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.nan_to_num(weights, nan=0.0) * mask.any(dim=-1, keepdim=True).to(weights.dtype)
    return torch.matmul(weights, V)
'''},
    # q3 with functional torch.sub / torch.div and amax; q4 as the complement of the strict upper triangle
    "functional_softmax_not_triu": {
        SM: '''
def stable_softmax(x, dim=-1):
    z = torch.sub(x, torch.amax(x, dim=dim, keepdim=True))
    num = torch.exp(z)
    return torch.div(num, torch.sum(num, dim=dim, keepdim=True))
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    n_k = T_q if T_k is None else T_k
    return ~torch.ones(T_q, n_k, dtype=torch.bool).triu(diagonal=1)
'''},
    # q8 with math.prod, q1 with tuple unpacking, q2 with an explicit correction=1
    "prod_counts_unpacked_shapes": {
        COST: '''
import math as _m

T, d_k = 1024, 64
attn_entries = _m.prod((T, T))
score_madds = _m.prod((T, T, d_k))
cost_ratio = _m.prod((2 * T, 2 * T, d_k)) // score_madds
''',
        SHAPES: '''
B, T, d_k, d_v = 4, 10, 64, 128
weights_shape = (B, T, T)
out_shape = (B, T, d_v)
''',
        VAR: '''
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = float(torch.var(raw_scores, correction=1))
scaled_score_var = float(torch.var(raw_scores / math.sqrt(Q.shape[-1]), correction=1))
scale_divisor = math.sqrt(64.0)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
    # q5 with torch.where and a scalar -inf, rows of all -inf found from the scores themselves
    "where_fill_isneginf_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    s = (Q @ K.transpose(-2, -1)) * (Q.shape[-1] ** -0.5)
    dead = None
    if mask is not None:
        s = torch.where(mask, s, float("-inf"))
        dead = torch.isneginf(s).all(dim=-1, keepdim=True)
    w = stable_softmax(s, dim=-1)
    if dead is not None:
        w = w.masked_fill(dead, 0.0)
    return w @ V
''', TRAP: '''
q_trap_answer = ("A", "B", "C", "D")[2]
'''},
    # q6 traced in plain Python (no torch in the arithmetic), stored as nested lists
    "plain_python_trace": {TRACE: '''
q3 = Q3.tolist()
k3 = K3.tolist()
v3 = V3.tolist()


def _row_softmax(row):
    top = max(row)
    ex = [math.exp(r - top) for r in row]
    tot = math.fsum(ex)
    return [e / tot for e in ex]


scores3 = [[math.fsum(a * b for a, b in zip(qi, kj)) / math.sqrt(len(qi)) for kj in k3] for qi in q3]
weights3 = [_row_softmax(r) for r in scores3]
out3 = [[math.fsum(w * v3[j][c] for j, w in enumerate(wr)) for c in range(len(v3[0]))] for wr in weights3]
weights3_causal = [_row_softmax(r[:i + 1]) + [0.0] * (len(r) - i - 1) for i, r in enumerate(scores3)]
print(weights3, out3, weights3_causal, sep="\\n")
'''},
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q5_swapaxes_size_over_d_k": ({SDPA: _sdpa(
        scores="scores = torch.matmul(Q, K.swapaxes(-1, -2)) / K.size(-1)")},
        {"mistake": "divides the scores by d_k (K.size(-1)) instead of sqrt(d_k)", "where": ["q5"]}),
    "q5_mask_eq_one_filled": ({SDPA: _sdpa(
        fill='scores = scores.masked_fill(mask == 1, float("-inf"))')},
        {"mistake": "fills -inf where mask == 1, i.e. where the mask says the key is allowed: the "
                    "visible keys are blocked and the hidden ones kept", "where": ["q5"]}),
    "q3_div_helper_no_shift": ({SM: '''
def _normalise(e, dim):
    return torch.div(e, torch.sum(e, dim=dim, keepdim=True))


def stable_softmax(x, dim=-1):
    return _normalise(torch.exp(x), dim)
'''}, {"mistake": "exponentiates the raw logits without subtracting the max: large (float16) logits "
                  "overflow to inf and the result is NaN", "where": ["q3", "q5"]}),
    "q5_clone_fill_no_empty_fix": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = (Q @ K.transpose(-2, -1)).clone()
    scores /= math.sqrt(Q.shape[-1])
    if mask is not None:
        scores.masked_fill_(mask.logical_not(), -math.inf)
    return stable_softmax(scores, dim=-1) @ V
'''}, {"mistake": "masks with -inf but never handles a query whose keys are all blocked: its row is "
                  "0/0 = NaN instead of zeros", "where": ["q5"]}),
    # --- new kinds
    "q4_triu_transposed_rectangular": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.triu(torch.ones(T_q, T_k, dtype=torch.bool)).T
'''}, {"mistake": "builds the upper triangle and transposes it: right for a square mask, but a "
                  "rectangular one comes back (T_k, T_q) with the wrong triangle", "where": ["q4", "q5"]}),
    "q3_default_dim_zero": ({SM: '''
def stable_softmax(x, dim=0):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "defaults dim to 0 instead of -1: called without dim it normalises over the first "
                  "axis (columns of a matrix) instead of the last", "where": ["q3"]}),
    "q5_output_viewed_as_q": ({SDPA: _sdpa(tail="return (weights @ V).contiguous().view(Q.shape)")},
                              {"mistake": "reshapes the output to Q's shape: fails (or scrambles) when "
                                          "d_v differs from d_k", "where": ["q5"]}),
    "q5_float32_min_fill": ({SDPA: _sdpa(
        fill="scores = scores.masked_fill(~mask, torch.finfo(torch.float32).min)")},
        {"mistake": "fills with float32's minimum whatever the dtype: it does not fit in float16 scores",
         "where": ["q5"]}),
    "q1_shapes_concatenated": ({SHAPES: '''
q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)
weights_shape = q_shape[:-1] + k_shape[:-1]
out_shape = weights_shape[:-1] + v_shape[-1:]
'''}, {"mistake": "glues Q's and K's leading shapes together, repeating the batch axis: "
                  "(4, 10, 4, 10) instead of (4, 10, 10)", "where": ["q1"]}),
    "q2_variances_left_as_tensors": ({VAR: '''
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var()
scaled_score_var = (raw_scores / math.sqrt(Q.shape[-1])).var()
scale_divisor = torch.tensor(64.0).sqrt()
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "stores 0-d tensors instead of Python floats (no .item() / float())", "where": ["q2"]}),
    "q6_trace_scaled_by_sqrt_d_v": ({TRACE: _TRACE_OK.replace(
        "scores3 = Q3 @ K3.T / 2", "scores3 = Q3 @ K3.T / math.sqrt(V3.shape[-1])")},
        {"mistake": "scales the hand trace by sqrt of the value width (2) instead of sqrt(d_k) = 2: "
                    "divides by sqrt(2)", "where": ["q6"]}),
    "q7_answer_b_lower": ({TRAP: '''
q_trap_answer = "b"
'''}, {"mistake": "answers b: believes the trap reverses the masking instead of leaving the rows "
                  "unnormalised", "where": ["q7"]}),
    "q8_madds_as_product_of_sizes": ({COST: '''
T, d_k = 1024, 64
attn_entries = T * T
q_size, k_size = T * d_k, T * d_k
score_madds = q_size * k_size
cost_ratio = 4
'''}, {"mistake": "counts multiply-adds as the size of Q times the size of K (T^2 d_k^2) instead of "
                  "T^2 d_k", "where": ["q8"]}),
}
