"""Eighth blind held-out set for sdpa-from-scratch (Lesson 80), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key mappings of `measure.py`. What was read: the student-facing
text of `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the names of the seven earlier blind sets' variants, so that their kinds of mistake are
not repeated in the same form.

The class is mixed. Beginners: the output shape given as the weight shape, the weights normalised by
their plain sum instead of a softmax in the hand trace, a mask comparison broadcast without unsqueeze,
the size of Q counted as the weight-matrix entries, a letter in the wrong case. Intermediate: exp2
without the log2(e) factor (a FlashAttention habit half remembered), the exponentials taken in float16,
`K.T` on a batched tensor, a mask applied as `scores * mask + (~mask) * -inf` (0 * -inf = nan),
`1 - mask` on a bool tensor, the notebook's global `d_k` used inside the function, the variance of the
softmax weights reported for the scaled scores, additions (d_k - 1) counted for multiply-adds.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points. Correct variants are really correct but
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
COST = "attn_entries"        # the q8 cell


def _sdpa(scores: str = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
          fill: str = 'scores = scores.masked_fill(mask == False, float("-inf"))',
          d_k: str = "d_k = Q.size(-1)") -> str:
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    {d_k}
    {scores}
    if mask is not None:
        {fill}
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''


CORRECT = {
    # q2: the scaled variance from the raw one (Var(x / c) = Var(x) / c^2)
    "scaled_var_from_raw_var": {VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.bmm(Q, K.permute(0, 2, 1))
raw_score_var = float(torch.var(raw_scores))
scaled_score_var = raw_score_var / d_k
scale_divisor = 8.0
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
    # q3 in base 2 with the log2(e) factor; q4 as the complement of the strict upper triangle
    "softmax_exp2_mask_not_triu": {
        SM: '''
def stable_softmax(x, dim=-1):
    m = x.max(dim=dim, keepdim=True)[0]
    p = torch.exp2((x - m) * math.log2(math.e))
    return p / p.sum(dim=dim, keepdim=True)
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    n_k = T_q if T_k is None else T_k
    return torch.triu(torch.ones(T_q, n_k), diagonal=1) == 0
'''},
    # q5: empty rows repaired with nan_to_num instead of torch.where
    "sdpa_nan_to_num_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scale = 1.0 / math.sqrt(K.shape[-1])
    scores = (Q @ K.transpose(-1, -2)) * scale
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0)
    return weights @ V
'''},
    # q6: the causal weights as softmax weights zeroed and then renormalised per row
    "trace_zero_then_renormalise": {TRACE: '''
scores3 = (Q3 @ K3.transpose(0, 1)) / 2.0
weights3 = torch.softmax(scores3, dim=1)
out3 = torch.mm(weights3, V3)
kept = weights3 * causal_mask(3)
weights3_causal = kept / kept.sum(dim=1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    # q1 and q8 written from variables; q7 unchanged
    "shapes_and_cost_from_variables": {
        SHAPES: '''
B, T_q, T_k, d_v = 4, 10, 10, 128
weights_shape = (B, T_q, T_k)
out_shape = (B, T_q, d_v)
''',
        COST: '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = ((2 * T) ** 2 * d_k) // score_madds
'''},
}

WRONG = {
    "q1_output_shape_is_weight_shape": ({SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = (4, 10, 10)
'''}, {"mistake": "gives the output the shape of the weight matrix (4, 10, 10), as if attention returned "
                  "one number per (query, key) pair, instead of (4, 10, 128) with the value width",
       "where": ["q1"]}),
    "q2_variance_of_the_weights": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = torch.softmax(raw_scores / math.sqrt(d_k), dim=-1).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "reports the variance of the softmax weights (after the scaling and the softmax) where "
                  "the variance of the scaled scores is asked", "where": ["q2"]}),
    "q3_exp2_without_log2e": ({SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=dim, keepdim=True).values
    p = torch.exp2(shifted)          # exp2 is faster, FlashAttention uses it
    return p / p.sum(dim=dim, keepdim=True)
'''}, {"mistake": "uses exp2 for the exponentials without multiplying the logits by log2(e): it computes a "
                  "base-2 softmax (a temperature of ln 2), not softmax", "where": ["q3", "q5", "q6"]}),
    "q3_exponentials_in_float16": ({SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted.half())      # half precision to save memory; shifted is <= 0 so it is safe
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "takes the exponentials in float16 to save memory: the result loses precision (about 1e-3) "
                  "and comes back as float16 whatever the input dtype", "where": ["q3", "q5", "q6"]}),
    "q4_compare_without_unsqueeze": ({CM: '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.arange(T_k) <= torch.arange(T_q)
'''}, {"mistake": "compares the key and query positions as two 1-D aranges without unsqueezing one of them: "
                  "for T_q == T_k it gives an all-True vector of length T instead of a (T, T) lower "
                  "triangle, and for T_q != T_k it raises", "where": ["q4", "q5", "q6"]}),
    "q5_dot_T_on_batched_keys": ({SDPA: _sdpa(scores="scores = Q @ K.T / math.sqrt(d_k)")},
                                 {"mistake": "transposes K with `.T`, which reverses every dimension of a "
                                             "batched tensor (B, T, d) -> (d, T, B): right only for 2-D "
                                             "inputs, wrong or an error for batched ones", "where": ["q5"]}),
    "q5_mask_by_multiplying_inf": ({SDPA: _sdpa(
        fill='scores = scores * mask + (~mask) * float("-inf")')},
        {"mistake": "applies the mask arithmetically as scores * mask + (~mask) * -inf: where the mask is "
                    "True the second term is 0 * -inf = nan, so every score becomes nan", "where": ["q5"]}),
    "q5_one_minus_bool_mask": ({SDPA: _sdpa(fill='scores = scores.masked_fill(1 - mask, float("-inf"))')},
                               {"mistake": "inverts the boolean mask with `1 - mask`, which torch refuses "
                                           "for bool tensors (it asks for `~` or logical_not): every masked "
                                           "call raises", "where": ["q5"]}),
    "q5_uses_the_notebook_d_k": ({SDPA: _sdpa(d_k="# d_k as in the cells above")},
                                 {"mistake": "does not compute d_k from Q inside the function, so it picks up "
                                             "the notebook's global d_k = 8 from Question 2: the scale is "
                                             "wrong for every other feature width", "where": ["q5"]}),
    "q6_normalised_by_plain_sum": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = scores3 / scores3.sum(dim=-1, keepdim=True)
out3 = weights3 @ V3
causal3 = scores3 * causal_mask(3)
weights3_causal = causal3 / causal3.sum(dim=-1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "turns the scores into weights by dividing by their row sum instead of taking a softmax "
                  "(no exponential), in the trace and in its causal version", "where": ["q6"]}),
    "q8_entries_as_query_size": ({COST: '''
attn_entries = 1024 * 64
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "counts the entries of Q (T x d_k = 65536) as the entries of the attention-weight matrix, "
                  "instead of T x T", "where": ["q8"]}),
    "q8_counts_additions": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 ** 2 * (64 - 1)
cost_ratio = 4
'''}, {"mistake": "counts the d_k - 1 additions of each dot product instead of its d_k multiply-adds: "
                  "score_madds T^2 (d_k - 1)", "where": ["q8"]}),
}
