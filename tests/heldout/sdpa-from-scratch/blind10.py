"""Tenth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution, `variants.py`,
the naming tests or the key comments of `measure.py`. What was read: the student-facing text of
`full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of `measure.py`
and the variant names and code of the nine earlier blind sets, so that their mistakes are not repeated
in the same form.

A mixed class. Beginners: the batch folded into the query axis in the shape answer, the variance
measured on a fresh, larger sample, a 3-axis einsum, d_k read from axis 2, the softmax taken over the
queries, the hand trace normalised without exponentials, the multiply-adds counted with Question 1's
d_v. Intermediate: logits standardised as well as shifted, a square causal mask of the larger side,
a finite fill (finfo.min) that leaves empty rows uniform, the output returned transposed, the mask
cropped to a square, the causal trace that also blocks the diagonal, a written multiple-choice answer.

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


def _sdpa(scores: str = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.size(-1))",
          soft: str = "weights = stable_softmax(scores, dim=-1)",
          tail: str = "return torch.matmul(weights, V)") -> str:
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    {scores}
    if mask is not None:
        scores = scores.masked_fill(~mask.bool(), float("-inf"))
    {soft}
    if mask is not None:
        weights = weights * mask.any(dim=-1, keepdim=True)
    {tail}
'''


CORRECT = {
    # q3 through logsumexp; q4 from a triangle of ones
    "logsumexp_softmax_tril_ones": {
        SM: '''
def stable_softmax(x, dim=-1):
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k).tril() == 1
'''},
    # q5: NaN rows of fully masked queries replaced by 0 afterwards; scale from K's width
    "sdpa_nan_to_num_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = 1.0 / math.sqrt(K.shape[-1])
    scores = (Q @ K.transpose(-1, -2)) * scale
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -math.inf)
    weights = stable_softmax(scores, dim=-1).nan_to_num(0.0)
    return weights @ V
'''},
    # q2: the scaled variance derived from the raw one (Var(x / c) = Var(x) / c^2);
    # q6: causal weights by zeroing the future and renormalising (equal to a masked softmax)
    "variance_rule_renormalised_trace": {
        VAR: '''
raw_scores = torch.matmul(Q, K.transpose(1, 2))
raw_score_var = float(raw_scores.var())
scaled_score_var = raw_score_var / Q.shape[-1]
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        TRACE: '''
scores3 = (Q3 @ K3.T) / 2.0
weights3 = torch.softmax(scores3, dim=-1)
out3 = weights3 @ V3
kept = weights3 * causal_mask(3)
weights3_causal = kept / kept.sum(-1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    # q3 with an L1 normalisation of the exponentials; q4 from a bool triangle
    "l1_normalise_bool_tril": {
        SM: '''
def stable_softmax(x, dim=-1):
    m, _ = torch.max(x, dim, keepdim=True)
    return F.normalize(torch.exp(x - m), p=1, dim=dim)
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.tril(torch.ones((T_q, T_k), dtype=torch.bool))
'''},
    # q5 with an additive float bias from torch.where; q1, q7 and q8 written as expressions
    "additive_bias_sdpa_expressions": {
        SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = K.size(-1)
    s = Q.matmul(K.transpose(-2, -1)).div(math.sqrt(d_k))
    if mask is None:
        return s.softmax(-1).matmul(V)
    bias = torch.where(mask, torch.zeros((), dtype=s.dtype), torch.full((), -math.inf, dtype=s.dtype))
    w = stable_softmax(s + bias, dim=-1)
    w = torch.where(mask.any(-1, keepdim=True), w, torch.zeros((), dtype=w.dtype))
    return w.matmul(V)
''',
        SHAPES: '''
B, T, d_k, d_v = 4, 10, 64, 128
weights_shape = (B, T, T)
out_shape = (B, T, d_v)
''',
        TRAP: '''
q_trap_answer = "ABCD"[2]
''',
        COST: '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = (2 * T) ** 2 // T ** 2
'''},
}

WRONG = {
    "q1_batch_folded_into_queries": ({SHAPES: '''
weights_shape = (40, 10)    # 4 sequences of 10 queries, stacked for bmm
out_shape = (40, 128)
'''}, {"mistake": "folds the batch into the query axis (4 x 10 = 40 rows), as after a reshape for bmm, "
                  "instead of keeping the (4, 10, 10) and (4, 10, 128) shapes", "where": ["q1"]}),
    "q2_fresh_larger_sample": ({VAR: '''
# a bigger sample gives a better estimate
torch.manual_seed(0)
Qb, Kb = torch.randn(1000, 8), torch.randn(1000, 8)
raw_scores = Qb @ Kb.T
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(8)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "draws a new, larger random sample to measure the variance instead of using the "
                  "example's Q and K as asked", "where": ["q2"]}),
    "q3_logits_standardised": ({SM: '''
def stable_softmax(x, dim=-1):
    # centre and rescale the logits so that nothing can overflow
    z = (x - x.max(dim=dim, keepdim=True).values) / (x.std(dim=dim, keepdim=True) + 1e-6)
    e = torch.exp(z)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "divides the shifted logits by their standard deviation as well; only a shift leaves the "
                  "softmax unchanged, a rescaling changes its temperature", "where": ["q3", "q5", "q6"]}),
    "q4_square_of_larger_side": ({CM: '''
def causal_mask(T_q, T_k=None):
    n = T_q if T_k is None else max(T_q, T_k)
    return torch.tril(torch.ones(n, n)).bool()
'''}, {"mistake": "builds a square mask of the larger of T_q and T_k, so a rectangular request gets the "
                  "wrong shape", "where": ["q4", "q5", "q6"]}),
    "q5_finite_fill_no_empty_row_fix": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))
    if mask is not None:
        # a finite fill: no -inf, so no NaN to worry about
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''}, {"mistake": "fills blocked scores with finfo.min instead of -inf and drops the empty-row handling: a "
                  "query with no visible key gets uniform weights (the mean of V) instead of 0",
       "where": ["q5"]}),
    "q5_output_transposed": ({SDPA: _sdpa(tail="return V.transpose(-2, -1) @ weights.transpose(-2, -1)")},
                             {"mistake": "computes V^T W^T and returns it without transposing back: the "
                                         "output is (..., d_v, T_q)", "where": ["q5"]}),
    "q5_d_k_from_axis_2": ({SDPA: _sdpa(scores="scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[2])")},
                           {"mistake": "reads d_k as Q.shape[2], right only for 3-D input: for (B, H, T, d) "
                                       "tensors it is the number of queries, and 2-D input fails",
                            "where": ["q5"]}),
    "q5_einsum_three_axes": ({SDPA: _sdpa(
        scores='scores = torch.einsum("bqd,bkd->bqk", Q, K) / math.sqrt(Q.size(-1))',
        tail='return torch.einsum("bqk,bkv->bqv", weights, V)')},
        {"mistake": "writes the products as einsums with exactly three named axes, so 2-D and 4-D "
                    "(multi-head) inputs fail", "where": ["q5"]}),
    "q5_softmax_over_queries": ({SDPA: _sdpa(soft="weights = stable_softmax(scores, dim=-2)")},
                                {"mistake": "normalises over the queries (dim=-2): each key's column sums to "
                                            "1 instead of each query's row", "where": ["q5"]}),
    "q5_mask_cropped_square": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    T = Q.size(-2)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))
    if mask is not None:
        mask = mask[..., :T, :T]        # like a causal buffer cropped to the sequence
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask.any(-1, keepdim=True)
    return weights @ V
'''}, {"mistake": "crops the mask to (T_q, T_q) as nanoGPT crops its causal buffer, which breaks every "
                  "mask with T_k different from T_q", "where": ["q5"]}),
    "q6_causal_blocks_diagonal": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
future = torch.triu(torch.ones(3, 3), diagonal=0).bool()
weights3_causal = stable_softmax(scores3.masked_fill(future, float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "blocks the diagonal too (triu with diagonal=0), so a token may not see itself and query "
                  "0 has no key left (a NaN row)", "where": ["q6"]}),
    "q6_linear_normalisation": ({TRACE: '''
scores3 = Q3 @ K3.T / 2
weights3 = scores3 / scores3.sum(dim=-1, keepdim=True)
out3 = weights3 @ V3
causal_scores = scores3 * causal_mask(3)
weights3_causal = causal_scores / causal_scores.sum(dim=-1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "normalises the raw scores by their row sums, skipping the exponential: the rows sum to 1 "
                  "but the weights are not a softmax", "where": ["q6"]}),
    "q7_answer_d_written_out": ({TRAP: '''
q_trap_answer = "D (float16 underflow)"
'''}, {"mistake": "answers with the float16 explanation (D) written out in words, missing that the kept "
                  "weights no longer sum to 1", "where": ["q7"]}),
    "q8_madds_with_q1_d_v": ({COST: '''
attn_entries = 1024 * 1024
score_madds = 1024 * 1024 * 128      # d_v = 128 as in Question 1
cost_ratio = 4
'''}, {"mistake": "counts the multiply-adds of Q K^T with Question 1's d_v = 128 instead of d_k = 64",
       "where": ["q8"]}),
}
