"""Second blind held-out set for sdpa-from-scratch (Lesson 80), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the student template, the master
notebook's student-facing text, `full_marks.ipynb` (whose cells these replace), `harness.py`,
`measure.py` and the first blind set `blind.py`, so that none of its kinds of mistake is repeated here.

The mistakes are modelled on code that students publish for this exercise (the Annotated Transformer's
`masked_fill(mask == 0, -1e9)`, `torch.sqrt(torch.tensor(d_k))`, `d_k = Q.size(1)` from 3-D-only code,
boolean-index assignment `scores[~mask] = ...`, a `masked_fill` whose result is thrown away, `[1]` of
`max(dim)` (the indices) taken for the values, numpy's biased `var`, MATLAB's `^` that Python reads as
xor, FLOPs counted instead of multiply-adds, ...). Each wrong variant changes one thing in an otherwise
full-marks notebook and says its mistake in plain words; `where` lists the questions that should lose
points (a broken `stable_softmax` also costs q5, whose function calls it, and q6, whose cell does; a
broken `causal_mask` costs q6's causal weights). Correct variants are really correct but written
differently from `full_marks.ipynb` and from `blind.py`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
VAR = "raw_score_var"        # the q2 cell (also defines d_k, raw_scores, scaled_score_var, scale_divisor)
TRACE = "weights3"           # the q6 cell (also defines scores3, out3, weights3_causal)
COST = "attn_entries"        # the q8 cell (also defines score_madds, cost_ratio)


def _sdpa(scores: str, fill: str, weights: str = "", ret: str = "return torch.matmul(weights, V)") -> str:
    """A full-marks-shaped SDPA with one of its lines swapped (keeps the wrong variants one-change)."""
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    {scores}
    if mask is not None:
        {fill}
        weights = stable_softmax(scores, dim=-1)
        {weights or "weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))"}
    else:
        weights = stable_softmax(scores, dim=-1)
    {ret}
'''


_SCORES = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)"
_FILL = 'scores = scores.masked_fill(~mask, float("-inf"))'

CORRECT = {
    # max taken with torch.max's (values, indices) pair and detached (the shift cancels, so no gradient
    # is lost); sums with torch.sum
    "softmax_detached_max": {SM: '''
def stable_softmax(x, dim=-1):
    m, _ = torch.max(x, dim=dim, keepdim=True)
    z = torch.exp(x - m.detach())
    return z / torch.sum(z, dim=dim, keepdim=True)
'''},
    # log-domain softmax: exp(shifted - log(sum(exp(shifted))))
    "softmax_log_domain": {SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.amax(dim=dim, keepdim=True)
    log_norm = torch.log(torch.exp(shifted).sum(dim=dim, keepdim=True))
    return torch.exp(shifted - log_norm)
'''},
    # causal mask from a float triangle compared with 0; numpy's tri for nothing else
    "causal_tril_gt_zero": {CM: '''
def causal_mask(T_q, T_k=None):
    cols = T_q if T_k is None else T_k
    return torch.tril(torch.ones(T_q, cols)) > 0
'''},
    "causal_numpy_tri": {CM: '''
import numpy as np


def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.from_numpy(np.tri(T_q, T_k, dtype=bool))
'''},
    # in-place scale and fill on the fresh score tensor (never on an input); empty rows zeroed afterwards
    "sdpa_inplace_on_fresh_scores": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = torch.matmul(Q, K.transpose(-2, -1)).mul_(1.0 / math.sqrt(d_k))
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    scores.masked_fill_(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''},
    # the scale applied to the transposed keys; torch.where with Python scalars
    "sdpa_scaled_keys_where_scalars": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Kt = K.transpose(-2, -1) / math.sqrt(K.shape[-1])      # (..., d_k, T_k)
    scores = Q @ Kt                                         # (..., T_q, T_k)
    if mask is not None:
        scores = torch.where(mask, scores, -math.inf)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, 0.0)
    return weights @ V
'''},
    # the mask expanded to the scores' shape first; empty rows found with a sum
    "sdpa_expanded_mask_sum_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.mT / Q.shape[-1] ** 0.5
    if mask is None:
        return stable_softmax(scores) @ V
    mask = mask.expand_as(scores)
    scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    empty = mask.sum(dim=-1, keepdim=True) == 0
    weights = stable_softmax(scores).masked_fill(empty, 0)
    return weights @ V
'''},
    # every answer computed rather than typed; q6 with an explicit exp formula and an additive -inf mask
    "computed_answers_additive_trace": {
        "weights_shape": '''
B, T, d_k_ex, d_v_ex = 4, 10, 64, 128
weights_shape = (B, T, T)
out_shape = (B, T, d_v_ex)
''',
        VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = float(torch.var(raw_scores, correction=1))
scaled_score_var = float(torch.var(raw_scores / math.sqrt(d_k), correction=1))
scale_divisor = float(math.sqrt(64))
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        TRACE: '''
scores3 = torch.matmul(Q3, K3.T) / math.sqrt(Q3.shape[-1])
e3 = torch.exp(scores3 - scores3.max(dim=1, keepdim=True).values)
weights3 = e3 / e3.sum(dim=1, keepdim=True)
out3 = weights3 @ V3
future = torch.triu(torch.full((3, 3), float("-inf"), dtype=torch.float64), diagonal=1)
ec = torch.exp(scores3 + future - (scores3 + future).max(dim=1, keepdim=True).values)
weights3_causal = ec / ec.sum(dim=1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
''',
        COST: '''
T, d_head = 1024, 64
attn_entries = T ** 2
score_madds = T ** 2 * d_head
cost_ratio = ((2 * T) ** 2 * d_head) // score_madds
'''},
    # q6 worked by hand and typed in as nested lists (six decimals); q7 answered
    "hand_typed_trace": {
        TRACE: '''
scores3 = [[0.5, 0.5, 1.0], [0.5, 1.0, 1.0], [1.0, 0.5, 1.5]]
weights3 = [[0.274069, 0.274069, 0.451863],
            [0.232697, 0.383652, 0.383652],
            [0.307196, 0.186324, 0.506480]]
out3 = [[0.725931, 0.725931],
        [0.616348, 0.767303],
        [0.813676, 0.692804]]
weights3_causal = [[1.0, 0.0, 0.0],
                   [0.377541, 0.622459, 0.0],
                   [0.307196, 0.186324, 0.506480]]
print(weights3, out3, weights3_causal, sep="\\n")
''',
        "q_trap_answer": '''
q_trap_answer = "C"   # zeroing after the softmax leaves rows that no longer sum to 1
'''},
}

WRONG = {
    # ---- q1
    "q1_batch_dim_dropped": ({"weights_shape": '''
weights_shape = (10, 10)
out_shape = (10, 128)
'''}, {"mistake": "drops the batch dimension: gives the shapes of one sequence, (10, 10) and (10, 128)",
       "where": ["q1"]}),

    # ---- q2
    "q2_numpy_biased_var": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = float(raw_scores.numpy().var())            # numpy's var divides by n, not n - 1
scaled_score_var = float((raw_scores / math.sqrt(d_k)).numpy().var())
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "computes the variances with numpy's .var(), the biased estimator (ddof=0), instead of "
                  "torch's default unbiased one", "where": ["q2"]}),

    "q2_power_precedence": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / d_k ** 1/2).var().item()   # (d_k ** 1) / 2
scale_divisor = 64 ** 1/2
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "writes the square root as `** 1/2`, which Python reads as (x ** 1) / 2: the scores are "
                  "divided by d_k/2 = 4 and the divisor for d_k = 64 comes out 32", "where": ["q2"]}),

    # ---- q3 (stable_softmax is also called by q5's function and q6's cell)
    "q3_no_max_shift": ({SM: '''
def stable_softmax(x, dim=-1):
    exps = torch.exp(x)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "no max subtraction at all: exp overflows to inf in float16 (inf/inf = NaN) for large logits",
       "where": ["q3", "q5"]}),

    "q3_subtracts_argmax_index": ({SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=dim, keepdim=True)[1]      # [1] is the argmax index, not the max value
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "subtracts max(...)[1], the position of the maximum, instead of [0]/.values, the maximum "
                  "itself: the values are right on small logits but nothing stops exp overflowing",
       "where": ["q3", "q5"]}),

    "q3_global_sum": ({SM: '''
def stable_softmax(x, dim=-1):
    exps = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return exps / torch.sum(exps)                       # np.sum habit: one total for the whole tensor
'''}, {"mistake": "divides by the sum over the whole tensor instead of the sum along `dim`, so only 1-D "
                  "inputs come out normalised", "where": ["q3", "q5", "q6"]}),

    "q3_shifts_input_in_place": ({SM: '''
def stable_softmax(x, dim=-1):
    x -= x.max(dim=dim, keepdim=True).values            # modifies the caller's tensor
    exps = torch.exp(x)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "subtracts the max from the argument in place (x -= ...), so the caller's logits are "
                  "changed (and a leaf tensor that requires grad raises)", "where": ["q3"]}),

    # ---- q4 (causal_mask is also used by q6's cell)
    "q4_strict_lower_triangle": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.tril(torch.ones(T_q, T_k, dtype=torch.bool), diagonal=-1)
'''}, {"mistake": "off by one: diagonal=-1 also hides each query's own key (j < i instead of j <= i), so "
                  "query 0 sees nothing", "where": ["q4", "q6"]}),

    "q4_returns_future_mask": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    # the keys a query must NOT see (nn.Transformer's subsequent mask)
    return torch.triu(torch.ones(T_q, T_k, dtype=torch.bool), diagonal=1)
'''}, {"mistake": "returns the blocked (future) positions, True above the diagonal, instead of the allowed "
                  "ones", "where": ["q4", "q6"]}),

    # ---- q5
    "q5_fill_minus_1e9": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "fills blocked scores with -1e9 (Annotated Transformer style) and does nothing for empty "
                  "rows: float16 raises on the overflow, and a fully masked query gets the mean of V, not "
                  "zeros", "where": ["q5"]}),

    "q5_fully_masked_rows_nan": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "fills with -inf but never handles a query whose keys are all masked: its row is 0/0 = NaN "
                  "instead of zeros", "where": ["q5"]}),

    "q5_scale_from_float32_tensor": ({SDPA: _sdpa(
        "scores = torch.matmul(Q, K.transpose(-2, -1)) / torch.sqrt(torch.tensor(d_k))", _FILL)},
        {"mistake": "computes the scale as torch.sqrt(torch.tensor(d_k)), a float32 number, so float64 "
                    "results lose precision (d_k not a perfect square)", "where": ["q5"]}),

    "q5_d_k_from_dim_1": ({SDPA: _sdpa(_SCORES, _FILL).replace("d_k = Q.size(-1)", "d_k = Q.size(1)")},
                          {"mistake": "reads d_k as Q.size(1), the width only for 2-D inputs: batched inputs "
                                      "are scaled by T_q or by the number of heads",
                           "where": ["q5"]}),

    "q5_masked_fill_result_discarded": ({SDPA: _sdpa(
        _SCORES, 'scores.masked_fill(~mask, float("-inf"))          # not in place: result thrown away')},
        {"mistake": "calls scores.masked_fill(...) without assigning the result, so no score is masked "
                    "(empty rows still come out as zeros)", "where": ["q5"]}),

    "q5_mask_multiplies_scores": ({SDPA: _sdpa(_SCORES, "scores = scores * mask")},
                                  {"mistake": "multiplies the scores by the mask, so blocked scores become 0 "
                                              "(still get weight) instead of -inf", "where": ["q5"]}),

    "q5_any_without_keepdim": ({SDPA: _sdpa(
        _SCORES, _FILL,
        "weights = torch.where(mask.any(dim=-1), weights, torch.zeros_like(weights))   # (..., T_q)")},
        {"mistake": "finds the empty rows with mask.any(dim=-1) without keepdim, so the (..., T_q) result "
                    "broadcasts along the keys: NaN rows survive or a crash when T_q != T_k",
         "where": ["q5"]}),

    "q5_boolean_index_assignment": ({SDPA: _sdpa(_SCORES, 'scores[~mask] = float("-inf")')},
                                    {"mistake": "masks with boolean indexing scores[~mask] = -inf, which needs "
                                                "the mask to have the scores' full shape: a (T_q, T_k) mask on "
                                                "batched scores raises", "where": ["q5"]}),

    "q5_loop_over_queries": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    rows = []
    for i in range(Q.shape[-2]):                       # one query at a time
        s = (Q[..., i:i + 1, :] @ K.transpose(-2, -1)) / math.sqrt(d_k)   # (..., 1, T_k)
        if mask is not None:
            m = mask[..., i:i + 1, :] if mask.shape[-2] > 1 else mask   # a (..., 1, T_k) mask serves every query
            s = s.masked_fill(~m, float("-inf"))
            w = stable_softmax(s, dim=-1)
            w = torch.where(m.any(dim=-1, keepdim=True), w, torch.zeros_like(w))
        else:
            w = stable_softmax(s, dim=-1)
        rows.append(w @ V)
    return torch.cat(rows, dim=-2)
'''}, {"mistake": "loops over the queries in Python (right values, but not vectorised: far slower than a "
                  "batched version)", "where": ["q5"]}),

    # ---- q6
    "q6_softmax_over_queries": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=0)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=0)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "normalises the hand-traced weights down the columns (dim=0, over queries) instead of "
                  "along each row", "where": ["q6"]}),

    "q6_two_decimals": ({TRACE: '''
scores3 = [[0.5, 0.5, 1.0], [0.5, 1.0, 1.0], [1.0, 0.5, 1.5]]
weights3 = [[0.27, 0.27, 0.45], [0.23, 0.38, 0.38], [0.31, 0.19, 0.51]]
out3 = [[0.73, 0.73], [0.62, 0.77], [0.81, 0.69]]
weights3_causal = [[1.0, 0.0, 0.0], [0.38, 0.62, 0.0], [0.31, 0.19, 0.51]]
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "types the hand trace rounded to two decimals (errors up to 5e-3) where four are asked",
       "where": ["q6"]}),

    "q6_causal_keeps_upper_triangle": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
keep = torch.triu(torch.ones(3, 3)).bool()             # "query i sees keys i..2"
weights3_causal = stable_softmax(scores3.masked_fill(~keep, float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "keeps the upper triangle for the causal weights (each query sees itself and the future) "
                  "instead of the lower one", "where": ["q6"]}),

    # ---- q7
    "q7_answer_d": ({"q_trap_answer": '''
q_trap_answer = "D"
'''}, {"mistake": "thinks zeroing after the softmax only goes wrong in float16", "where": ["q7"]}),

    # ---- q8
    "q8_caret_is_xor": ({COST: '''
attn_entries = 1024 ^ 2
score_madds = 1024 ^ 2 * 64
cost_ratio = 4
'''}, {"mistake": "writes powers with MATLAB's ^, which Python reads as bitwise xor (1024 ^ 2 == 1026)",
       "where": ["q8"]}),

    "q8_counts_flops": ({COST: '''
attn_entries = 1024 * 1024
score_madds = 2 * 1024 * 1024 * 64          # a multiply and an add per term
cost_ratio = 4
'''}, {"mistake": "counts FLOPs (2 per multiply-add) instead of multiply-adds, doubling score_madds",
       "where": ["q8"]}),
}
