"""Seventh blind held-out set for sdpa-from-scratch (Lesson 80), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key mappings of `measure.py`. What was read: the master notebook's
student-facing text, `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines
of `measure.py` and the names of the six earlier blind sets' variants, so that their kinds of mistake
are not repeated in the same form.

The class is mixed. Beginners: the weight matrix sized by the feature width (d_k x d_k), the standard
deviation reported for a variance, the variance of the first sequence only, the hand trace scaled by the
number of tokens, the unmasked output computed from the causal weights, the cost of QK^T confused with
the cost of a projection (T d_k^2), `if mask:` on a tensor. Intermediate: logits divided by their max
instead of shifted by it, a shifted numerator over an unshifted denominator, a nanoGPT-style causal mask
cut from a fixed `block_size` buffer, the caller's Q rescaled in place, `d_k ** 1/2` (precedence).
Public code searched (`search`, corpus code): fixed-size `tril(ones(block_size, block_size))` buffers
sliced to `[:T, :T]`, nanoGPT style.

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


def _q2(raw: str = "raw_score_var = raw_scores.var().item()",
        scaled: str = "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()") -> str:
    return f'''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
{raw}
{scaled}
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''


def _sdpa(scores: str = "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
          cond: str = "if mask is not None:") -> str:
    return f'''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    {scores}
    {cond}
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''


def _trace(scores: str = "scores3 = Q3 @ K3.T / math.sqrt(4)", out: str = "out3 = weights3 @ V3") -> str:
    return f'''
{scores}
weights3 = stable_softmax(scores3, dim=-1)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
{out}
print(weights3, out3, weights3_causal, sep="\\n")
'''


CORRECT = {
    # q1 read off a probe tensor's size; q2's variance by the textbook formula with n - 1
    "shapes_from_size_manual_unbiased_var": {
        SHAPES: '''
_probe = torch.empty(4, 10, 64) @ torch.empty(4, 10, 64).transpose(1, 2)
weights_shape = tuple(int(n) for n in _probe.shape)
out_shape = (weights_shape[0], weights_shape[1], 128)
''',
        VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.matmul(Q, K.mT)
flat = raw_scores.flatten()
raw_score_var = float(((flat - flat.mean()) ** 2).sum() / (flat.numel() - 1))
s = flat / d_k ** 0.5
scaled_score_var = float(((s - s.mean()) ** 2).sum() / (s.numel() - 1))
scale_divisor = float(64) ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
    # softmax with amax and an out-of-place exp; the causal mask as a tril of a bool ones matrix
    "softmax_amax_mask_tril_bool": {
        SM: '''
def stable_softmax(x, dim=-1):
    z = (x - torch.amax(x, dim=dim, keepdim=True)).exp()
    return z / z.sum(dim, keepdim=True)
''',
        CM: '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()
'''},
    # .mT, a multiplied scale, ~mask, and torch.where against a scalar for empty rows
    "sdpa_mT_times_rsqrt": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q.matmul(K.mT) * Q.shape[-1] ** -0.5
    if mask is None:
        return stable_softmax(scores, dim=-1).matmul(V)
    scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    w = torch.where(mask.any(dim=-1, keepdim=True), w, 0.0)
    return w.matmul(V)
'''},
    # the trace with an additive -inf upper triangle instead of masked_fill
    "trace_additive_upper_triangle": {TRACE: '''
scores3 = torch.einsum("id,jd->ij", Q3, K3) / 2
weights3 = stable_softmax(scores3, dim=1)
out3 = torch.einsum("ij,jv->iv", weights3, V3)
future = torch.full((3, 3), float("-inf"), dtype=torch.float64).triu(diagonal=1)
weights3_causal = stable_softmax(scores3 + future, dim=1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
    # q8 with powers of two and the ratio from the formula
    "cost_shifts": {COST: '''
attn_entries = 1 << 20
score_madds = (1 << 20) * (1 << 6)
cost_ratio = (2048 * 2048 * 64) // score_madds
'''},
}

WRONG = {
    "q1_weights_sized_by_features": ({SHAPES: '''
weights_shape = (4, 64, 64)
out_shape = (4, 10, 128)
'''}, {"mistake": "sizes the weight matrix by the feature width (d_k x d_k, like a covariance / projection "
                  "matrix) instead of (T_q x T_k): weights_shape (4, 64, 64) instead of (4, 10, 10)",
       "where": ["q1"]}),
    "q2_std_for_variance": ({VAR: _q2(raw="raw_score_var = raw_scores.std().item()",
                                      scaled="scaled_score_var = (raw_scores / math.sqrt(d_k)).std().item()")},
                            {"mistake": "reports the standard deviation (about sqrt(d_k)) where the variance "
                                        "is asked, for both the raw and the scaled scores", "where": ["q2"]}),
    "q2_first_sequence_only": ({VAR: _q2(raw="raw_score_var = raw_scores[0].var().item()",
                                         scaled="scaled_score_var = (raw_scores[0] / math.sqrt(d_k)).var().item()")},
                               {"mistake": "takes the variance over the first sequence of the batch only "
                                           "(raw_scores[0]) instead of over all the entries", "where": ["q2"]}),
    "q3_divides_by_max": ({SM: '''
def stable_softmax(x, dim=-1):
    m = x.max(dim=dim, keepdim=True).values
    e = torch.exp(x / m)                 # normalise the logits by the largest so they stay <= 1
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "divides the logits by their max instead of subtracting it: that changes the softmax "
                  "(a rescaled temperature, sign flips for negative maxima, 0/0 for a zero max)",
       "where": ["q3", "q5", "q6"]}),
    "q3_unshifted_denominator": ({SM: '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=dim, keepdim=True).values
    return torch.exp(shifted) / torch.exp(x).sum(dim=dim, keepdim=True)
'''}, {"mistake": "shifts the numerator but sums the exponentials of the unshifted logits: rows no longer "
                  "sum to 1 (off by a factor e^max) and the denominator still overflows",
       "where": ["q3", "q5", "q6"]}),
    "q4_fixed_block_size_buffer": ({CM: '''
block_size = 16
_tril = torch.tril(torch.ones(block_size, block_size))


def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return _tril[:T_q, :T_k] == 1
'''}, {"mistake": "cuts the mask from a fixed block_size x block_size lower triangle (nanoGPT style, "
                  "block_size = 16): any sequence longer than 16 gets a mask of the wrong shape",
       "where": ["q4", "q5", "q6"]}),
    "q5_if_mask_truthiness": ({SDPA: _sdpa(cond="if mask:")},
                              {"mistake": "tests `if mask:` instead of `if mask is not None:`: a mask tensor "
                                          "of more than one entry raises 'Boolean value of Tensor ... is "
                                          "ambiguous'", "where": ["q5"]}),
    "q5_scales_callers_q_in_place": ({SDPA: _sdpa(
        scores="Q /= math.sqrt(d_k)\n    scores = torch.matmul(Q, K.transpose(-2, -1))")},
        {"mistake": "divides the caller's Q in place (`Q /= ...`) to save memory: the output is right "
                    "once, but the caller's tensor is changed (and a second call scales it again; a leaf "
                    "that requires grad raises)", "where": ["q5"]}),
    "q5_power_precedence_in_scale": ({SDPA: _sdpa(
        scores="scores = torch.matmul(Q, K.transpose(-2, -1)) / d_k ** 1/2")},
        {"mistake": "writes sqrt(d_k) as `d_k ** 1/2`, which is (d_k ** 1) / 2 = d_k / 2: the scores are "
                    "divided by d_k and then by 2, i.e. scaled by 1 / (2 d_k) instead of 1 / sqrt(d_k)",
         "where": ["q5"]}),
    "q6_trace_scaled_by_token_count": ({TRACE: _trace(scores="scores3 = Q3 @ K3.T / math.sqrt(3)")},
                                       {"mistake": "scales the hand trace by sqrt(T) = sqrt(3) (the number of "
                                                   "tokens) instead of sqrt(d_k) = 2", "where": ["q6"]}),
    "q6_output_from_causal_weights": ({TRACE: _trace(out="out3 = weights3_causal @ V3")},
                                      {"mistake": "computes out3 (the unmasked output) from the causal weights "
                                                  "instead of weights3", "where": ["q6"]}),
    "q8_projection_cost": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 * 64 * 64
cost_ratio = 2
'''}, {"mistake": "counts T * d_k^2 multiply-adds for QK^T (the cost of a d_k x d_k projection of T "
                  "tokens) and so a linear growth in T, instead of T^2 * d_k and a factor 4",
       "where": ["q8"]}),
}
