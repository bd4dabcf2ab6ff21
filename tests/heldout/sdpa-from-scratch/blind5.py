"""Fifth blind held-out set for sdpa-from-scratch (Lesson 80), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the four earlier blind sets, so that none of their kinds of mistake is repeated here.

The students vary. Beginners: an output shape that keeps one axis per key (the sum over keys
forgotten), the scale factor 1/8 given where the divisor 8 is asked, a causal mask built as the
transpose of an upper triangle (right only when square), the Annotated-Transformer habit of a mask
with a leading (1, T, T) batch axis, a hand trace divided by d_k = 4 and an output mixed with the
transposed weights. Intermediate: a negative `dim` turned positive with an off-by-one, the max
"subtracted" by dividing by exp(max) after exponentiating (float16 still overflows), a shift by the
largest |x| (a -inf entry makes the whole slice NaN), the empty-row test taken over the queries
(`any(dim=-2)`), a float32 "for stability" computation cast back (float64 loses precision), and the
1/sqrt(d_k) applied to V instead of the scores. Cost answers: the ratio written upside down and the
multiply-adds of both products counted as the scores'. Public code searched for the mask habits:
`torch.triu(torch.ones((1, size, size)), diagonal=1) == 0` (Annotated Transformer style) and
nanoGPT's `tril(...).view(1, 1, T, T)` buffer.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points (a broken `stable_softmax` also costs q5 and
q6, a broken `causal_mask` q6). q7 has no wrong variant here: every wrong letter is already in an
earlier set. Correct variants are really correct but written differently from `full_marks.ipynb`. Every
variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) before it
was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
SHAPES = "weights_shape"     # the q1 cell (also defines out_shape)
VAR = "raw_score_var"        # the q2 cell (also defines d_k, raw_scores, scaled_score_var, scale_divisor)
TRACE = "weights3"           # the q6 cell (also defines scores3, out3, weights3_causal)
TRAP = "q_trap_answer"       # the q7 cell
COST = "attn_entries"        # the q8 cell (also defines score_madds, cost_ratio)


def _q2(raw: str = "raw_score_var = raw_scores.var().item()",
        scaled: str = "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()",
        divisor: str = "scale_divisor = math.sqrt(64)") -> str:
    return f'''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
{raw}
{scaled}
{divisor}
print(raw_score_var, scaled_score_var, scale_divisor)
'''


def _sdpa(scores: str = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
          has_key: str = "has_key = mask.any(dim=-1, keepdim=True)",
          out: str = "return torch.matmul(weights, V)") -> str:
    """full_marks' SDPA with its score line, empty-row line or output line swapped."""
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    {scores}
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        {has_key}
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    {out}
'''


def _trace(scores: str = "scores3 = Q3 @ K3.T / math.sqrt(4)", out: str = "out3 = weights3 @ V3") -> str:
    return f'''
{scores}
weights3 = stable_softmax(scores3, dim=-1)
{out}
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''


def _cost(madds: str = "score_madds = 1024 * 1024 * 64", ratio: str = "cost_ratio = 4") -> str:
    return f"\nattn_entries = 1024 ** 2\n{madds}\n{ratio}\n"


CORRECT = {
    # q1 read off empty probe tensors; q2 from the squared std and a float64 square root
    "shapes_from_probes_var_as_std_squared": {
        SHAPES: '''
_q = torch.empty(4, 10, 64)
_v = torch.empty(4, 10, 128)
_w = _q @ _q.mT
weights_shape = tuple(int(n) for n in _w.shape)
out_shape = tuple(int(n) for n in (_w @ _v).shape)
''',
        VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.bmm(Q, K.permute(0, 2, 1))
raw_score_var = float(raw_scores.std() ** 2)
scaled_score_var = float((raw_scores * (1.0 / math.sqrt(d_k))).std() ** 2)
scale_divisor = float(torch.tensor(64.0, dtype=torch.float64).sqrt())
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
    # softmax with an in-place exp on the fresh shifted tensor; the mask as NOT(strict upper triangle)
    "softmax_inplace_exp_not_triu": {
        SM: '''
def stable_softmax(x, dim=-1):
    e = (x - torch.amax(x, dim=dim, keepdim=True)).exp_()   # the shifted tensor is new: in place is safe
    return e.div(e.sum(dim=dim, keepdim=True))
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return ~torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=1)
'''},
    # where() with a 0-d -inf on the scores, masked_fill(0) on the weights for the empty rows
    "sdpa_where_fill_then_zero_blocked_weights": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = (Q @ K.mT) * (1.0 / math.sqrt(K.shape[-1]))
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    allowed = mask.to(torch.bool)
    scores = torch.where(allowed, scores, scores.new_full((), float("-inf")))
    weights = stable_softmax(scores, dim=-1).masked_fill(~allowed, 0.0)   # empty rows: NaN -> 0
    return weights @ V
'''},
    # half precision computed in float32 (float64 left alone by promote_types), the result cast back
    "sdpa_promote_half_to_float32": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    work = torch.promote_types(Q.dtype, torch.float32)       # float16/bfloat16 -> float32, float64 stays
    q, k, v = Q.to(work), K.to(work), V.to(work)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        empty = mask.sum(dim=-1, keepdim=True) == 0
        weights = stable_softmax(scores.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
    else:
        weights = stable_softmax(scores, dim=-1)
    return (weights @ v).to(Q.dtype)
'''},
    # the trace with einsum and an additive -inf upper triangle through F.softmax
    "trace_einsum_additive_triangle": {TRACE: '''
scores3 = torch.einsum("id,jd->ij", Q3, K3) / 4 ** 0.5
weights3 = F.softmax(scores3, dim=-1)
out3 = torch.einsum("ij,jv->iv", weights3, V3)
blocked = torch.full((3, 3), float("-inf"), dtype=torch.float64).triu(1)
weights3_causal = F.softmax(scores3 + blocked, dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    # q7 picked by index, q8 with math.pow and products of earlier answers
    "answers_indexed_and_derived": {
        TRAP: 'q_trap_answer = "ABCD"[2]\n',
        COST: '''
attn_entries = int(math.pow(2, 20))
score_madds = attn_entries * 64
cost_ratio = 2 ** 2
'''},
}

WRONG = {
    "q1_output_keeps_key_axis": ({SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = (4, 10, 10, 128)
'''}, {"mistake": "the output keeps one axis per key, (4, 10, 10, 128): each weight times its value row, "
                  "never summed over the keys", "where": ["q1"]}),
    "q2_scale_factor_for_divisor": ({VAR: _q2(divisor="scale_divisor = 1 / math.sqrt(64)")},
                                    {"mistake": "gives the scale factor 1/sqrt(64) = 0.125 that multiplies the "
                                                "scores, where the divisor sqrt(64) = 8 is asked", "where": ["q2"]}),
    "q2_scores_divided_by_d_k": ({VAR: _q2(scaled="scaled_score_var = (raw_scores / d_k).var().item()")},
                                 {"mistake": "divides the scores by d_k instead of sqrt(d_k) before taking the "
                                             "scaled variance (about 1/d_k instead of about 1)", "where": ["q2"]}),
    "q3_negative_dim_off_by_one": ({SM: '''
def stable_softmax(x, dim=-1):
    if dim < 0:
        dim += x.dim() - 1          # make the axis positive
    m = x.max(dim=dim, keepdim=True).values
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "turns a negative dim positive with x.dim() - 1 instead of x.dim(): dim=-1 on a 2-D "
                  "input becomes 0, so the softmax runs over the wrong axis (1-D inputs only are right)",
       "where": ["q3", "q5", "q6"]}),
    "q3_max_divided_out_after_exp": ({SM: '''
def stable_softmax(x, dim=-1):
    m = x.max(dim=dim, keepdim=True).values
    e = torch.exp(x) / torch.exp(m)        # same as exp(x - m) on paper
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "applies the max trick after exponentiating (exp(x) / exp(max)): equal on paper, but "
                  "exp(x) still overflows in float16 (inf / inf = NaN), which is what the shift was for",
       "where": ["q3", "q5"]}),
    "q3_shift_by_largest_magnitude": ({SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.abs().amax(dim=dim, keepdim=True)    # now every entry is <= 0
    e = torch.exp(shifted)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "shifts by the largest |x| instead of the largest x: a -inf entry makes the shift inf and "
                  "the whole slice NaN, and a large negative logit pushes every exp to 0 (0/0)",
       "where": ["q3", "q5", "q6"]}),
    "q4_leading_batch_axis": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    future = torch.triu(torch.ones(1, T_q, T_k), diagonal=1).type(torch.int)
    return future == 0
'''}, {"mistake": "returns a (1, T_q, T_k) mask with a leading batch axis (Annotated Transformer habit) "
                  "instead of (T_q, T_k)", "where": ["q4", "q6"]}),
    "q4_transposed_upper_triangle": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.triu(torch.ones(T_q, T_k, dtype=torch.bool)).T
'''}, {"mistake": "builds the upper triangle and transposes it: right for a square mask, but (T_k, T_q) "
                  "and not top-left aligned when T_q != T_k", "where": ["q4"]}),
    "q5_empty_rows_found_over_queries": ({SDPA: _sdpa(has_key="has_key = mask.any(dim=-2, keepdim=True)")},
                                         {"mistake": "looks for empty rows with mask.any(dim=-2), over the "
                                                     "queries (columns) instead of the keys: a query whose keys "
                                                     "are all masked keeps its NaN row", "where": ["q5"]}),
    "q5_float32_cast_back": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    dtype = Q.dtype
    Q, K, V = Q.float(), K.float(), V.float()          # float32 for numerical stability
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return (weights @ V).to(dtype)
'''}, {"mistake": "computes everything in float32 'for stability' and casts back: the dtype is right, but "
                  "float64 inputs lose their precision (errors around 1e-7)", "where": ["q5"]}),
    "q5_scale_applied_to_values": ({SDPA: _sdpa(scores="scores = torch.matmul(Q, K.transpose(-2, -1))",
                                                out="return torch.matmul(weights, V / math.sqrt(d_k))")},
                                   {"mistake": "divides V by sqrt(d_k) instead of the scores: the softmax sees "
                                               "unscaled scores and the output is shrunk", "where": ["q5"]}),
    "q6_trace_divided_by_d_k": ({TRACE: _trace(scores="scores3 = Q3 @ K3.T / 4")},
                                {"mistake": "divides the hand-traced scores by d_k = 4 instead of sqrt(4) = 2",
                                 "where": ["q6"]}),
    "q6_output_mixed_with_transposed_weights": ({TRACE: _trace(out="out3 = weights3.T @ V3")},
                                                {"mistake": "mixes the values with weights3.T, so output row i "
                                                            "uses the weights every query gives key i",
                                                 "where": ["q6"]}),
    "q8_cost_ratio_upside_down": ({COST: _cost(ratio="cost_ratio = (1024 * 1024 * 64) / (2048 * 2048 * 64)")},
                                  {"mistake": "writes the ratio upside down (old cost / new cost = 0.25, a float) "
                                              "instead of 4", "where": ["q8"]}),
    "q8_madds_of_both_products": ({COST: _cost(madds="score_madds = 1024 * 1024 * (64 + 64)")},
                                  {"mistake": "counts the multiply-adds of Q K^T and of weights @ V together "
                                              "(T^2 (d_k + d_v)) where only Q K^T's are asked", "where": ["q8"]}),
}
