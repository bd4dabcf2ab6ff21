"""Twenty-fourth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, and only the module docstrings and variant
names of blind.py .. blind23.py (so that their mistakes are not repeated in the same form). This round
writes what a class hands in when it half-remembers PyTorch: a right formula applied to the wrong tensor
or argument (values in place of keys, a stale notebook-global `d_k`, the batched `V` in the hand trace,
`masked_fill`'s two arguments swapped, `V @ weights`), an API default doing something unwanted
(`F.normalize`'s default `p=2`, a SciPy-style `dim=None` default, `var_mean`'s (var, mean) order, a
default argument that names the first parameter, an out-of-place `masked_fill` whose result is dropped),
a numeric detail (`math.isqrt` for the scale, a count written in millions) and a shape computed from a
tensor that does not exist yet when the notebook runs top to bottom. About half of the wrong variants are
in the core (softmax, mask, scores, scaling, empty rows) and half in the other questions (q1, q2, q6, q8).

Public code was searched with the code, issues and pages search: CS336 assignment-1 `softmax` forks
(`torch.max(x, dim=dim, keepdim=True)[0]`, and one with `torch.exp(x - x.max())` and a sum hard-coded to
`dim=-1`), a public `scaled_dot_product(query, key, values)` that divides by
`math.sqrt(query.size(1) * query.size(3))` (heads times head width), nanoGPT-lecture scripts
(`wei = q @ k.transpose(-2, -1)`, `wei.masked_fill(tril == 0, float('-inf'))`, and one that ends
`output = V @ wei`), public `softmax(x, dim=None)` helpers (NumPy-style, normalising over everything
when no dim is given, one with `math.e ** (x - x_max)`), d2l
`masked_softmax` forks (`sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)`), code that
normalises exponentials with `F.normalize(torch.exp(x), p=1, dim=-1)` and elsewhere with the default p=2,
code that unpacks `mean, var = torch.var_mean(...)`, issue threads on an out-of-place `masked_fill` that
does nothing (lucidrains/flamingo-pytorch #10, ParlAI #3068, espnet #1273), an explainer that counts
attention operations in millions, the
Annotated-Transformer `attention` (`scores.masked_fill(mask == 0, -1e9)`, `p_attn = dropout(p_attn)`),
WhiteFox-generated SDPA models (`qk + attn_mask`, `torch.softmax(qk, dim=1)`), causal-mask helpers
(`torch.triu(torch.ones(size, size), diagonal=1).type(torch.int) == 0`), and issue threads on fully
masked rows (pytorch #131060 `_safe_softmax`, burn #4697, allennlp #890). Seven of the fourteen wrong
variants carry a slip seen there (named in a comment above each); the other seven are slips plausible for
students of these lessons. Five wrong variants crash, the other nine return plausible but wrong values.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose public check uses it, and q6). Correct variants are really correct
but written differently (an exponential written as a power of `math.e` normalised by an L1 norm, a causal
mask from `torch.full(..., True)`, attention through `einsum` whose empty rows are opened before the
softmax and zeroed after it, variances read with `float` / `.tolist()` beside a NumPy divisor, counts from
`math.prod`). Every variant was checked against plain torch (`F.scaled_dot_product_attention`,
`torch.softmax`) before it was committed; the grader was not run on this set.

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

CORRECT = {
    # seen in: a public softmax written as `exp_x = math.e ** (x - x_max)`
    "softmax_power_of_e_l1_norm": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim`: e ** (x - max), divided by its L1 norm (every term is >= 0)."""
    shifted = x - torch.amax(x, dim, keepdim=True)
    powers = math.e ** shifted                      # same as torch.exp(shifted); e ** -inf = 0
    return powers / powers.norm(p=1, dim=dim, keepdim=True)
'''},

    # seen in: causal-mask helpers that build the mask from a full tensor of ones; here a bool fill value
    "causal_full_true_tril": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j (j <= i), top-left aligned."""
    T_k = T_q if T_k is None else T_k
    return torch.full((T_q, T_k), True).tril()      # the fill value True makes it a bool tensor
'''},

    "sdpa_einsum_open_empty_rows_first": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V; mask is boolean, True = may attend.

    Rows with no allowed key are opened (scores 0) before the softmax, so no NaN ever appears,
    and their weights are zeroed afterwards.
    """
    d_k = Q.shape[-1]
    scores = torch.einsum("...id,...jd->...ij", Q, K) / math.sqrt(d_k)
    if mask is None:
        weights = stable_softmax(scores, dim=-1)
    else:
        has_key = mask.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(mask.logical_not(), -math.inf)
        scores = scores.masked_fill(has_key.logical_not(), 0.0)
        weights = stable_softmax(scores, dim=-1) * has_key
    return torch.einsum("...ij,...jd->...id", weights, V)
'''},

    "variance_float_tolist_numpy_divisor": {VAR: '''
import numpy as np

d_k = Q.shape[-1]
raw_scores = torch.einsum("btd,bsd->bts", Q, K)
raw_score_var = float(raw_scores.var())                       # a 0-d tensor converts to a Python float
scaled_score_var = (raw_scores / np.sqrt(d_k)).var().tolist()  # .tolist() of a 0-d tensor is a float too
scale_divisor = np.sqrt(64)                                    # np.float64 is a subclass of float
print(raw_score_var, scaled_score_var, scale_divisor)
'''},

    "costs_from_math_prod": {COST: '''
attn_entries = math.prod((1024, 1024))
score_madds = math.prod((1024, 1024, 64))
cost_ratio = math.prod((2048, 2048, 64)) // score_madds
'''},
}

WRONG = {
    # --- the core: softmax, mask, scores, scaling, empty rows ---------------------------------------------

    # seen in: public code that turns exponentials into probabilities with `F.normalize(torch.exp(x), p=1,
    # dim=-1)` and, elsewhere, with `F.normalize(torch.exp(embedding))` / `F.normalize(torch.exp(emb_i),
    # dim=1)`, where the default p=2 is left in
    "q3_normalize_default_p2": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim`: shift by the max, exponentiate, normalise."""
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return F.normalize(e, dim=dim)
'''}, {"mistake": "the exponentials are normalised with F.normalize, whose default p=2 divides by their "
                  "Euclidean norm, so the weights do not sum to 1 (p=1 was needed)",
       "where": ["q3", "q5", "q6"]}),

    # seen in: public `def softmax(x, dim=None)` helpers, `np.exp(x - np.max(x, axis=dim, keepdims=True))`,
    # that normalise over every entry when no dim is given (as scipy.special.softmax does with axis=None)
    "q3_default_dim_none": ({SM: '''
def stable_softmax(x, dim=None):
    """Softmax of x along `dim` (all entries when dim is None), with the max subtracted first."""
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "the default is dim=None instead of dim=-1, so called without dim on a matrix or batch "
                  "it normalises over every entry at once instead of along the last axis",
       "where": ["q3"]}),

    "q4_default_names_the_first_parameter": ({CM: '''
def causal_mask(T_q, T_k=T_q):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()
'''}, {"mistake": "the default T_k=T_q refers to the first parameter, which does not exist when the "
                  "default is evaluated: defining the function raises NameError, so causal_mask is never "
                  "defined",
       "where": ["q4", "q5", "q6"]}),

    # seen in: a public scaled_dot_product(query, key, values) dividing by
    # math.sqrt(query.size(1) * query.size(3)), i.e. by the model width instead of the head width
    "q5_scale_by_heads_times_head_width": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d)) V with an optional boolean mask (True = may attend)."""
    d_model = Q.size(1) * Q.size(-1) if Q.dim() == 4 else Q.size(-1)   # heads x head width
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_model)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "for 4-D inputs the scores are divided by sqrt(heads * d_k), the model width, instead "
                  "of sqrt(d_k), the width of one head",
       "where": ["q5"]}),

    # seen in: a nanoGPT-lecture script ending `output = V @ wei`
    "q5_values_times_weights": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return V @ weights
'''}, {"mistake": "the output multiplies V @ weights instead of weights @ V; with d_v != T_q the shapes "
                  "do not match and it raises, and otherwise it mixes the wrong axes",
       "where": ["q5"]}),

    "q5_masked_fill_arguments_swapped": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(float("-inf"), mask == False)
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "masked_fill is called with its two arguments swapped (value first, mask second), which "
                  "raises a TypeError whenever a mask is given",
       "where": ["q5"]}),

    "q5_integer_sqrt_scale": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.isqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the scale uses math.isqrt, the integer square root, so for a head width that is not a "
                  "perfect square (d_k = 8 gives 2, not 2.83) the scores are divided by too little",
       "where": ["q5"]}),

    # seen in: lucidrains/flamingo-pytorch #10 ("zeroing out attention not working": the out-of-place
    # masked_fill has no effect), ParlAI #3068 "Fix masked_fill no-op", espnet #1273
    "q5_empty_row_zeroing_not_assigned": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights.masked_fill(~has_key, 0.0)            # zero the rows that have no key
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the rows with no allowed key are zeroed with the out-of-place masked_fill whose result "
                  "is thrown away, so a fully masked query still returns NaN",
       "where": ["q5"]}),

    # --- the other questions: shapes, variances, the hand trace, costs -----------------------------------

    "q1_out_width_from_later_cell": ({SHAPES: '''
weights_shape = (4, 10, 10)
out_shape = weights_shape[:2] + (V.shape[-1],)     # one d_v-wide mixture per query
'''}, {"mistake": "out_shape reads the width from V, which is only created in a later cell (and is the "
                  "(2, 5, 8) example, not the question's d_v = 128): run top to bottom it raises NameError",
       "where": ["q1"]}),

    # seen in: public code that writes `mean, var = torch.var_mean(x, dim=...)` (a layer-norm sketch, a
    # `cont_norm` helper, an uncertainty estimate)
    "q2_var_mean_unpacked_backwards": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_mean, raw_var = torch.var_mean(raw_scores)
raw_score_var = raw_var.item()
scaled_mean, scaled_var = torch.var_mean(raw_scores / math.sqrt(d_k))
scaled_score_var = scaled_var.item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "torch.var_mean returns (variance, mean) but is unpacked as (mean, variance), so both "
                  "stored 'variances' are the means of the scores",
       "where": ["q2"]}),

    "q2_scores_against_values": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ V.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the raw scores are taken against the values V instead of the keys K, so both variances "
                  "are of the wrong dot products",
       "where": ["q2"]}),

    "q6_scale_from_stale_d_k": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(d_k)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the trace divides by sqrt(d_k) with the notebook's global d_k = 8 from Question 2 "
                  "instead of this example's d_k = 4",
       "where": ["q6"]}),

    "q6_output_from_batched_V": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "out3 multiplies by the batched example V of shape (2, 5, 8) instead of V3, which raises "
                  "a shape error and leaves out3 and weights3_causal undefined",
       "where": ["q6"]}),

    # seen in: public explainers that quote attention costs in millions ("a 100-token prompt will require
    # 45.6 million attention operations"), carried into an answer that asks for the count itself
    "q8_madds_in_millions": ({COST: '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64 // 10 ** 6       # about 67 million
cost_ratio = 4
'''}, {"mistake": "score_madds is given in millions (67) instead of as the count itself, 67,108,864",
       "where": ["q8"]}),
}
