"""Twenty-ninth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the lesson texts, and only the module
docstrings and variant names of blind.py .. blind28.py (so that their mistakes are not repeated in the
same form). This round mixes, as a real class does, small slips inside otherwise right code (a variable
name, an index, an argument order), whole-approach mistakes (a misremembered definition, a step added or
left out), crashes from half-remembered APIs, and written answers of a student who misread the lesson;
it leans on the questions the earlier sets touched least (q1, q7, q8) and uses code shapes they used
little (a helper function with named parameters, a small class, several statements where one would do).

Public code was searched with the code, issues and pages search: WhiteFox's generated SDPA models
(`qk = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))` followed by `qk = q + mask`: the next line reads
the wrong variable; and `scale_factor = 1.0 / (math.sqrt(query.size(-1)) * key.size(-1))`: a second
scaling on top of the first), JAX / SciPy attention code (`jaxformers`' `softmax(scores, axis=-1)`, a
public notebook's `scipy.special.softmax(scaled_scores, axis=-1)`), CS336 assignment-1 `softmax` forks
(`torch.max(x, dim=dim, keepdim=True)[0]`), a public NumPy self-attention script whose `soft_max` is a plain
`np.exp(z)` in float64 with no shift, NumPy attention tutorials (`np.ones((T, T), dtype=bool)`), and the
`nn.MultiheadAttention` documentation (sequence-first `(L, N, E)` inputs unless `batch_first=True`, weights
`(N, L, S)`). Seven of the fourteen wrong variants carry a slip seen there (named in a comment above
each); the other seven are slips plausible for students of these lessons.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5, whose function calls it; a `causal_mask` that crashes also
costs q5, whose public check calls it, and q6, whose cell calls it). Correct variants are really
correct but written differently (attention split into the static methods of a small class, a softmax
that writes the zeros of `-inf` logits explicitly, a causal mask from `torch.full` with an `or` default,
the hand trace read off the notebook's own attention with identity values, the variances from an einsum
and `float()`). Every variant was checked against plain torch (`F.scaled_dot_product_attention`,
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
TRAP = "q_trap_answer"       # the q7 cell
COST = "attn_entries"        # the q8 cell

CORRECT = {
    "sdpa_static_helper_class": {SDPA: '''
class _Attention:
    """The three steps of attention, one static method each."""

    @staticmethod
    def scores(Q, K):
        return torch.matmul(Q, K.transpose(-1, -2)) * Q.shape[-1] ** -0.5

    @staticmethod
    def block(scores, mask):
        return scores if mask is None else scores.masked_fill(mask.logical_not(), -math.inf)

    @staticmethod
    def mix(weights, V, mask):
        if mask is not None:
            weights = torch.where(mask.any(dim=-1, keepdim=True), weights, 0.0)
        return torch.matmul(weights, V)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    weights = stable_softmax(_Attention.block(_Attention.scores(Q, K), mask), dim=-1)
    return _Attention.mix(weights, V, mask)
'''},

    "softmax_isneginf_guard": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`; the zeros of -inf logits are written explicitly (exp would give them too)."""
    top = torch.amax(x, dim, keepdim=True)
    e = torch.where(torch.isneginf(x), 0.0, torch.exp(x - top))
    total = torch.sum(e, dim, keepdim=True)
    return e / total
'''},

    "causal_full_tril_or_default": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    T_k = T_k or T_q
    return torch.tril(torch.full((T_q, T_k), True))
'''},

    "trace_from_own_attention_identity_values": {TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
eye3 = torch.eye(3, dtype=Q3.dtype)          # with V = I the output rows are the weights themselves
weights3 = scaled_dot_product_attention(Q3, K3, eye3)
out3 = scaled_dot_product_attention(Q3, K3, V3)
weights3_causal = scaled_dot_product_attention(Q3, K3, eye3, mask=causal_mask(3))
print(weights3, out3, weights3_causal, sep="\\n")
'''},

    "variance_einsum_float_conversion": {VAR: '''
d_k = Q.shape[-1]
raw_scores = torch.einsum("bqd,bkd->bqk", Q, K)
raw_score_var = float(raw_scores.var())
scaled_score_var = float((raw_scores * d_k ** -0.5).var())
scale_divisor = 64 ** 0.5
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
}

WRONG = {
    # --- q1 ---------------------------------------------------------------------------------------
    # seen in: the nn.MultiheadAttention documentation, whose inputs are sequence-first (L, N, E) unless
    # batch_first=True and whose weights come out (N, L, S)
    "q1_sequence_first_layout_weights": ({SHAPES: '''
# (4, 10, 64) read as (sequence, batch, features): 4 tokens in each of 10 sequences
weights_shape = (10, 4, 4)
out_shape = (4, 10, 128)
'''}, {"mistake": "the first axis is read as the sequence (the sequence-first layout of nn.MultiheadAttention), "
                  "so the weights come out as 10 sequences of 4 x 4; in this notebook the layout is "
                  "(batch, tokens, features) and the weights are (4, 10, 10)",
       "where": ["q1"]}),

    # --- q2 ---------------------------------------------------------------------------------------
    "q2_scaled_variance_reads_raw_name": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
scaled_scores = raw_scores / math.sqrt(d_k)
raw_score_var = raw_scores.var().item()
scaled_score_var = raw_scores.var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the scaled scores are computed into their own variable, but the line copied from the one "
                  "above still takes the variance of raw_scores, so scaled_score_var repeats the raw "
                  "variance (about 6.60) instead of the scaled one (about 0.82)",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: CS336 assignment-1 `softmax` forks, `torch.max(x, dim=dim, keepdim=True)[0]`, the [0] that
    # picks the values out of max's (values, indices) pair, carried over to amax, which returns a tensor
    "q3_amax_result_indexed_with_zero": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    m = x.amax(dim=dim, keepdim=True)[0]
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"mistake": "amax already returns the maxima, so the [0] (kept from torch.max's (values, indices) "
                  "pair) takes the first slice of them: every row is shifted by the first row's (or first "
                  "batch entry's) maxima, not its own. The result is the same in exact arithmetic, but a "
                  "row whose logits are far above the first row's overflows in float16, and a first row "
                  "that is fully masked (-inf) turns every other row into NaN",
       "where": ["q3", "q5"]}),

    # seen in: a public NumPy self-attention script whose soft_max is a plain np.exp(z) (float64, no shift)
    "q3_float64_exponentials_without_shift": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, the exponentials taken in float64 so that float16 logits cannot overflow."""
    e = torch.exp(x.double())
    return (e / e.sum(dim=dim, keepdim=True)).to(x.dtype)
'''}, {"mistake": "the max-subtraction step is replaced by an upcast to float64, which only moves the "
                  "overflow: exp passes the largest float64 at about 709, so logits near 1000 (or scores "
                  "of 1600 in the float16 attention check) give inf / inf = NaN",
       "where": ["q3", "q5"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    "q4_triangle_padded_with_false": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask: a square lower triangle, the rest padded as blocked."""
    if T_k is None:
        T_k = T_q
    n = min(T_q, T_k)
    tri = torch.ones(n, n, dtype=torch.bool).tril()
    return F.pad(tri, (0, T_k - n, 0, T_q - n), value=False)
'''}, {"mistake": "everything outside the square triangle is padded as blocked; that is right for the extra "
                  "key columns when T_k > T_q, but when T_q > T_k the extra query rows i >= T_k may see "
                  "every key (j <= i for all j) and must be all True, not all False",
       "where": ["q4"]}),

    # seen in: NumPy attention tutorials that build masks with `np.ones((T, T), dtype=bool)`; torch takes
    # no dtype strings
    "q4_dtype_given_as_string": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.ones(T_q, T_k, dtype="bool").tril()
'''}, {"mistake": "torch.ones takes a torch.dtype, not NumPy's dtype string: dtype='bool' raises "
                  "TypeError (use dtype=torch.bool)",
       "where": ["q4", "q5", "q6"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    # seen in: WhiteFox's generated SDPA models, `qk = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))`
    # then `qk = q + mask`: the next line starts again from the wrong variable
    "q5_masked_path_fills_unscaled_product": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.shape[-1]
    qk = Q @ K.transpose(-2, -1)
    scores = qk / math.sqrt(d_k)
    if mask is not None:
        scores = qk.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        no_key = ~mask.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(no_key, 0.0)
    return weights @ V
'''}, {"mistake": "with a mask the blocked scores are filled into the unscaled product qk instead of the "
                  "scaled scores, so every masked call drops the 1/sqrt(d_k) scale (unmasked calls are right)",
       "where": ["q5"]}),

    # seen in: JAX / SciPy attention code, `softmax(scores, axis=-1)` (jaxformers, a public notebook's
    # scipy.special.softmax); the notebook's own stable_softmax takes `dim`
    "q5_softmax_called_with_axis_keyword": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, axis=-1)
    if mask is not None:
        no_key = ~mask.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(no_key, 0.0)
    return weights @ V
'''}, {"mistake": "stable_softmax is called with NumPy / JAX's keyword axis=-1, but its parameter is named "
                  "dim, so every call raises TypeError (unexpected keyword argument 'axis')",
       "where": ["q5"]}),

    "q5_head_width_from_shape_call": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.shape(-1)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        no_key = ~mask.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(no_key, 0.0)
    return weights @ V
'''}, {"mistake": "Q.shape is a torch.Size (a tuple), indexed with [-1]; calling it like the method "
                  "Q.size(-1) raises TypeError ('torch.Size' object is not callable) on every call",
       "where": ["q5"]}),

    "q5_scores_divided_by_their_own_std": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    scores = Q @ K.transpose(-2, -1)
    scores = scores / scores.std(dim=-1, keepdim=True)     # brings each query's scores to variance 1
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        no_key = ~mask.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(no_key, 0.0)
    return weights @ V
'''}, {"mistake": "the lesson's argument (dividing by sqrt(d_k) brings the variance back to about 1) is "
                  "turned into dividing each query's scores by their own measured standard deviation; "
                  "attention divides by the fixed constant sqrt(d_k), and the measured one changes every "
                  "weight (and is NaN for a single key)",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    "q6_transpose_method_not_called": ({TRACE: '''
scores3 = Q3 @ K3.t / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "K3.t is the transpose method itself, not its result (K3.t() or K3.T): the product "
                  "raises TypeError and none of the three answers is set",
       "where": ["q6"]}),

    # seen in: WhiteFox's generated SDPA models, `scale_factor = 1.0 / (math.sqrt(query.size(-1)) *
    # key.size(-1))`, a second scaling on top of the first
    "q6_scores_scaled_again_in_softmax": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3 / math.sqrt(4), dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")) / math.sqrt(4), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "scores3 is already divided by sqrt(4); dividing again inside the softmax call scales the "
                  "scores by 1/4 instead of 1/2, so the weights (and the output) come out too flat",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_check_reference_also_zeroed": ({TRAP: '''
_gen = torch.Generator().manual_seed(0)
_s = torch.randn(4, 4, generator=_gen)
_m = causal_mask(4)
_shortcut = F.softmax(_s, dim=-1)
_shortcut[~_m] = 0.0
_proper = F.softmax(_s, dim=-1).masked_fill(~_m, 0.0)     # "mask the weights" with masked_fill
q_trap_answer = "A" if torch.allclose(_shortcut, _proper) else "C"
'''}, {"mistake": "the check's reference is the same shortcut spelled with masked_fill (still applied after "
                  "the softmax), so it agrees with itself and answers A; masking the scores with -inf "
                  "before the softmax renormalises the allowed weights, and the answer is C",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    "q8_helper_arguments_swapped": ({COST: '''
def attention_cost(d_k, T):
    """(entries of the T x T weight matrix, multiply-adds of Q @ K.T) for one head."""
    return T * T, T * T * d_k


attn_entries, score_madds = attention_cost(1024, 64)
cost_ratio = attention_cost(2 * 1024, 64)[1] // score_madds
'''}, {"mistake": "the helper takes (d_k, T) but is called as (T, d_k): T = 64 and d_k = 1024, so the "
                  "entries are 4096, the multiply-adds 4194304, and 'doubling T' doubles d_k (ratio 2)",
       "where": ["q8"]}),
}
