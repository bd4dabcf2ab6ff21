"""Third blind held-out set for sdpa-from-scratch (Lesson 80), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, `measure.py` and the two earlier blind
sets, so that none of their kinds of mistake is repeated here.

The mistakes are common PyTorch slips seen in published attention homework and forum questions:
`K.view(..., d_k, T_k)` taken for a transpose, `//` typed for `/`, `torch.zeros(shape)` in default dtype
mixed into a half-precision `torch.where`, `mask.all` for `mask.any`, `unsqueeze` on the wrong axis when
building a mask from two aranges, a softmax that moves `dim` last and forgets to move it back, logits
clamped instead of shifted, the minimum subtracted instead of the maximum, per-token dot products
`(Q * K).sum(-1)` taken for the score matrix, and a few wrong numeric answers. Each wrong variant changes
one cell of an otherwise full-marks notebook and says its mistake in plain words; `where` lists the
questions that should lose points (a broken `stable_softmax` also costs q5 and q6, a broken `causal_mask`
q6). Correct variants are really correct but written differently from `full_marks.ipynb` and the earlier
sets. Every variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`)
before it was graded.

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


def _sdpa(scores: str = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
          weights: str = "weights = torch.where(has_key, weights, torch.zeros_like(weights))") -> str:
    """full_marks' SDPA with its score line or its empty-row line swapped (one change per variant)."""
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    {scores}
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        {weights}
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''


def _var(raw: str, scaled: str) -> str:
    return f'''
d_k = Q.shape[-1]
{raw}
{scaled}
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''


def _trace(scores: str = "scores3 = Q3 @ K3.T / math.sqrt(4)", out: str = "out3 = weights3 @ V3",
           causal: str = 'weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), '
                         'dim=-1)') -> str:
    return f'''
{scores}
weights3 = stable_softmax(scores3, dim=-1)
{out}
{causal}
print(weights3, out3, weights3_causal, sep="\\n")
'''


CORRECT = {
    # q1 read off torch.Size objects; q2's scaled variance from the rule Var(X / c) = Var(X) / c**2
    "shapes_from_size_analytic_variance": {
        SHAPES: '''
weights_shape = tuple(torch.Size([4, 10, 10]))
out_shape = tuple(torch.Size([4, 10]) + torch.Size([128]))
''',
        VAR: _var("raw_scores = torch.matmul(Q, K.mT)\nraw_score_var = float(raw_scores.var())",
                  "scaled_score_var = raw_score_var / d_k          # dividing by sqrt(d_k) divides Var by d_k"),
    },
    # softmax that moves `dim` last, works there, and moves it back; causal mask by in-place tril_ on a
    # fresh tensor
    "softmax_transpose_back_tril_inplace": {
        SM: '''
def stable_softmax(x, dim=-1):
    xt = x.transpose(dim, -1)
    e = torch.exp(xt - xt.amax(dim=-1, keepdim=True))
    return (e / e.sum(dim=-1, keepdim=True)).transpose(dim, -1)
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril_()
'''},
    # torch.softmax is allowed outside stable_softmax; K.mT and a power for the scale
    "sdpa_torch_softmax_mT": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = (Q @ K.mT) * Q.shape[-1] ** -0.5        # (..., T_q, T_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V                                 # (..., T_q, d_v)
'''},
    # empty rows are opened up before the softmax (so nothing is NaN) and their outputs zeroed after
    "sdpa_open_empty_rows_then_zero_output": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = torch.matmul(Q, K.transpose(-1, -2)) / math.sqrt(d_k)
    if mask is None:
        return torch.matmul(stable_softmax(scores, dim=-1), V)
    has_key = mask.any(dim=-1, keepdim=True)            # (..., T_q, 1)
    allowed = mask | ~has_key                           # an empty row sees every key for now
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.matmul(stable_softmax(scores, dim=-1), V)
    return out * has_key.to(out.dtype)                  # and then gets zeros
'''},
    # q6's causal weights by renormalising the unmasked weights over the visible keys; einsum for out3
    "trace_renormalised_causal": {TRACE: _trace(
        out="out3 = torch.einsum('qk,kd->qd', weights3, V3)",
        causal="kept = weights3 * causal_mask(3)\nweights3_causal = kept / kept.sum(dim=-1, keepdim=True)")},
    # q8 worked out with a helper function; q7 answered
    "cost_helper_function": {
        COST: '''
def _madds(T, d):
    return T * T * d          # T_q * T_k dot products of length d


attn_entries = int(math.pow(1024, 2))
score_madds = _madds(1024, 64)
cost_ratio = _madds(2048, 64) // _madds(1024, 64)
''',
        "q_trap_answer": '''
q_trap_answer = "C".strip()
'''},
}

WRONG = {
    # ---- q1
    "q1_out_shape_transposed": ({SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = (4, 128, 10)
'''}, {"mistake": "writes the output shape with its last two dimensions swapped, (batch, d_v, T) instead of "
                  "(batch, T, d_v)", "where": ["q1"]}),

    # ---- q2
    "q2_elementwise_diagonal_dots": ({VAR: _var(
        "raw_scores = (Q * K).sum(dim=-1)                # one dot product per position: query t with key t\n"
        "raw_score_var = raw_scores.var().item()",
        "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()")},
        {"mistake": "computes the scores as (Q * K).sum(-1), only the 10 dot products of query t with key t, "
                    "instead of the full (2, 5, 5) matrix Q @ K^T", "where": ["q2"]}),

    "q2_mean_of_row_variances": ({VAR: _var(
        "raw_scores = Q @ K.transpose(-2, -1)\n"
        "raw_score_var = raw_scores.var(dim=-1).mean().item()      # variance of each row, averaged",
        "scaled_score_var = (raw_scores / math.sqrt(d_k)).var(dim=-1).mean().item()")},
        {"mistake": "averages the variances of each row (var(dim=-1).mean()) instead of taking the variance of "
                    "all the entries", "where": ["q2"]}),

    # ---- q3 (stable_softmax is also called by q5's function and q6's cell)
    "q3_subtracts_min": ({SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.min(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "subtracts the minimum instead of the maximum: every shifted logit is >= 0, so float16 "
                  "overflows (inf / inf = NaN) and a -inf entry makes the whole slice NaN",
       "where": ["q3", "q5", "q6"]}),

    "q3_clamps_logits": ({SM: '''
def stable_softmax(x, dim=-1):
    exps = torch.exp(x.clamp(max=10.0))                # "exp(11) overflows float16, so cap the logits"
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "clamps the logits at 10 instead of subtracting the maximum: no overflow, but every logit "
                  "above 10 gets the same weight, so large logits give wrong values",
       "where": ["q3", "q5"]}),

    "q3_transposed_not_restored": ({SM: '''
def stable_softmax(x, dim=-1):
    x = x.transpose(dim, -1)                            # work on the last dimension
    shifted = x - x.max(dim=-1, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=-1, keepdim=True)         # ... and forget to transpose back
'''}, {"mistake": "moves `dim` to the end with transpose(dim, -1) and never moves it back, so any dim other "
                  "than the last gives a transposed (or wrongly shaped) result", "where": ["q3"]}),

    # ---- q4 (causal_mask is also used by q6's cell)
    "q4_arange_unsqueeze_swapped": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    rows = torch.arange(T_q).unsqueeze(0)   # meant (T_q, 1)
    cols = torch.arange(T_k).unsqueeze(1)   # meant (1, T_k)
    return cols <= rows
'''}, {"mistake": "unsqueezes the two aranges on the wrong axes, so the mask is (T_k, T_q) and True on and "
                  "above the diagonal (the transpose of the causal mask)", "where": ["q4", "q6"]}),

    "q4_diagonal_plus_one": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.tril(torch.ones(T_q, T_k, dtype=torch.bool), diagonal=1)
'''}, {"mistake": "off by one the other way: diagonal=1 also lets query i see key i + 1, the next token",
       "where": ["q4", "q6"]}),

    # ---- q5
    "q5_view_instead_of_transpose": ({SDPA: _sdpa(
        "scores = torch.matmul(Q, K.view(*K.shape[:-2], K.shape[-1], K.shape[-2])) / math.sqrt(d_k)")},
        {"mistake": "reshapes K to (..., d_k, T_k) with view, which reinterprets the memory instead of "
                    "transposing: the shape is right and the scores are wrong", "where": ["q5"]}),

    "q5_floor_division_scale": ({SDPA: _sdpa(
        "scores = torch.matmul(Q, K.transpose(-2, -1)) // math.sqrt(d_k)")},
        {"mistake": "divides the scores with // (floor division), so every score is rounded down to an integer",
         "where": ["q5"]}),

    "q5_all_instead_of_any": ({SDPA: _sdpa(
        weights="weights = torch.where(mask.all(dim=-1, keepdim=True), weights, torch.zeros_like(weights))")},
        {"mistake": "zeroes the rows where not ALL keys are allowed (mask.all) instead of the rows where NO key "
                    "is allowed (mask.any): with a causal mask every row but the last becomes zeros",
         "where": ["q5"]}),

    "q5_zeros_without_like": ({SDPA: _sdpa(
        weights="weights = torch.where(has_key, weights, torch.zeros(weights.shape))")},
        {"mistake": "builds the zeros for empty rows with torch.zeros(shape), float32 on the CPU: with a mask, "
                    "half-precision weights are promoted to float32 and the product with V then fails (and "
                    "GPU inputs crash)",
         "where": ["q5"]}),

    # ---- q6
    "q6_output_from_scores": ({TRACE: _trace(out="out3 = scores3 @ V3")},
                              {"mistake": "multiplies the values by the scaled scores instead of the softmax "
                                          "weights for out3", "where": ["q6"]}),

    "q6_masked_scores_zero": ({TRACE: _trace(
        causal="weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), 0.0), dim=-1)")},
        {"mistake": "masks the causal scores with 0 instead of -inf, so future keys still get weight exp(0)",
         "where": ["q6"]}),

    # ---- q7
    "q7_answer_b": ({"q_trap_answer": '''
q_trap_answer = "B"
'''}, {"mistake": "thinks the classmate's mask is the wrong way round (upper triangle) rather than that the "
                  "rows stop summing to 1", "where": ["q7"]}),

    # ---- q8
    "q8_entries_T_times_d_k": ({COST: '''
attn_entries = 1024 * 64          # "T rows of width d_k"
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "counts the entries of Q (T x d_k) instead of the T x T weight matrix", "where": ["q8"]}),

    "q8_cost_ratio_cubic": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = 8                    # "matrix multiplication is cubic"
'''}, {"mistake": "says the cost grows 8-fold when T doubles (cubic, as for a square matmul) instead of 4-fold",
       "where": ["q8"]}),
}
