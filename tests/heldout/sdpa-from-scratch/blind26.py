"""Twenty-sixth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, and only the module docstrings and variant
names of blind.py .. blind25.py (so that their mistakes are not repeated in the same form). This round is
a mixed class: one small slip inside otherwise right code (a helper called without its `dim`, a floor
division in an exponent, a loop that reads a column instead of a row, a trailing comma that makes a tuple,
NumPy's `.size` attribute on a torch tensor, the flattened batch folded back without its head axis), a
whole-approach mistake (the "softmax plus one" denominator, a scale computed once and cached on a small
class, a sigmoid instead of a softmax in the hand trace, the trap checked on a case too small to show it),
and crashes a half-remembered API gives (TensorFlow's `transpose_b=`, NumPy's `k=` keyword of `tril`,
NumPy's `dot` on matrices, an identity `permute` meant as a transpose, and a linter "fix" `mask is False`).
Seven of the fifteen wrong variants are in the core (softmax, mask, scores, scaling, batched reshapes),
eight in the other questions (q2, q6, q7, q8).

Public code was searched with the code, issues and pages search: TensorFlow transformer-tutorial forks
(cyobero/datascience, ClementViricel/tf2_transformers, GyanendroKh/Transliterate: `tf.matmul(q, k,
transpose_b=True)`); helloboge/Informer `models/softmax_one.py` (`exp_x / (1 + exp_x.sum(...))`);
lllldj/cs336 `toy_softmax(x)`, whose axis is fixed to -1; a NumPy self-attention capstone
(wasilzafar.com, `np.triu(np.ones((T, T), dtype=bool), k=1)`); KawsarAhmad43/Learnify
(`scores = np.dot(Q, K.T)`); heykeetae/Self-Attention-GAN #11 (`attention.permute(0,1,2)` meant as a
transpose); py4dstem/py4DSTEM #558 and PyCQA/pycodestyle #450 (E712 "fixes" that turn `mask == False` into
`mask is False`); fkonrad97/QuantFormer2, whose attention module keeps its scale on `self`. Eight of the
fifteen wrong variants carry a slip seen there (named in a comment above each); the other seven are slips
plausible for students of these lessons. Five wrong variants crash (`transpose_b=`, `mask is False`,
`tril(k=0)`, `permute(0, 1, 2)`, `torch.dot` of matrices); the other ten run and give wrong values or types.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose checks use it, and q6). Correct variants are really correct but written
differently (a softmax with a nested shift helper and a tuple `dim`, a causal mask from an expanded
`arange` and `torch.le`, attention split into small helper functions with an einsum output, the causal
trace built row by row in a loop, and paren-less shapes with bit-shift costs and an upper-cased letter).
Every variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) before
it was committed; the grader was not run on this set.

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
    "softmax_nested_shift_tuple_dim": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax along `dim`: a small inner helper shifts by the slice maximum, then normalise."""
    def shift(t):
        return t - t.amax(dim=dim, keepdim=True)

    e = shift(x).exp()
    return e.div(e.sum(dim=(dim,), keepdim=True))
'''},

    "causal_expanded_arange_le": {CM: '''
def causal_mask(T_q, T_k=None):
    """Key index j against query index i, for every pair: allowed where j <= i."""
    T_k = T_q if T_k is None else T_k
    key_index = torch.arange(T_k).expand(T_q, -1)          # (T_q, T_k), row i = 0 .. T_k-1
    query_index = torch.arange(T_q).unsqueeze(-1)           # (T_q, 1)
    return torch.le(key_index, query_index)
'''},

    "sdpa_helper_functions_einsum_output": {SDPA: '''
def _attention_scores(Q, K):
    """(..., T_q, T_k) dot products of queries with keys, divided by sqrt(d_k)."""
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(K.shape[-1])


def _blocked(scores, mask):
    """Blocked scores replaced by -inf; mask is boolean, True = may attend."""
    return torch.where(mask, scores, torch.full_like(scores, float("-inf")))


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scores = _attention_scores(Q, K)
    if mask is not None:
        scores = _blocked(scores, mask)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        sees_something = mask.any(dim=-1, keepdim=True)
        weights = weights.masked_fill(sees_something.logical_not(), 0.0)
    return torch.einsum("...qk,...kd->...qd", weights, V)
'''},

    "trace_causal_rows_in_a_loop": {TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = torch.zeros(3, 3, dtype=torch.float64)
for i in range(3):                       # query i only sees keys 0 .. i
    weights3_causal[i, : i + 1] = stable_softmax(scores3[i, : i + 1], dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},

    "parenless_shapes_shift_costs_upper_letter": {
        SHAPES: '''
weights_shape = 4, 10, 10                       # (batch, T_q, T_k)
out_shape = weights_shape[:-1] + (128,)         # (batch, T_q, d_v)
''',
        TRAP: '''
q_trap_answer = "c".upper()
''',
        COST: '''
attn_entries = (1 << 10) ** 2
score_madds = attn_entries * 64
cost_ratio = (2 << 10) ** 2 * 64 // score_madds
''',
    },
}

WRONG = {
    # --- q2 ---------------------------------------------------------------------------------------
    # seen in: heykeetae/Self-Attention-GAN #11, where `attention.permute(0,1,2)` was meant as a transpose
    # but leaves every axis where it is
    "q2_identity_permute_for_transpose": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.permute(0, 1, 2)            # keys turned to (batch, d_k, T)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "permute(0, 1, 2) keeps every axis in place, so K is not transposed: Q (2, 5, 8) @ K (2, 5, 8) "
                  "raises a size error and none of the three answers is set; permute(0, 2, 1) or "
                  "transpose(-2, -1) was meant",
       "where": ["q2"]}),

    "q2_exponent_floor_division": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = float(64 ** (1 // 2))          # the square root, as a power
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the exponent is written with floor division: 1 // 2 is 0, so 64 ** 0 gives a divisor of 1.0 "
                  "instead of sqrt(64) = 8.0 (1 / 2 was meant)",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: helloboge/Informer models/softmax_one.py, `exp_x / (1 + exp_x.sum(dim=dim, keepdim=True))`
    # (the "attention is off by one" softmax), here handed in as the softmax itself
    "q3_softmax_plus_one_denominator": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / (1 + exps.sum(dim=dim, keepdim=True))
'''}, {"mistake": "an extra 1 is added to the denominator (the 'softmax plus one' variant): after the shift "
                  "the largest exponential is 1, so each slice sums to less than 1 and no longer is a "
                  "probability distribution; the softmax divides by the sum of the exponentials only",
       "where": ["q3", "q5", "q6"]}),

    # seen in: lllldj/cs336 `toy_softmax(x)`, whose normalising sum is fixed to the last axis; here a
    # helper with that default is called without passing `dim` on
    "q3_helper_called_without_dim": ({SM: '''
def _normalise(t, dim=-1):
    """Divide t by its sum along `dim`."""
    return t / t.sum(dim=dim, keepdim=True)


def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    exps = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return _normalise(exps)
'''}, {"mistake": "the helper is called without passing `dim`, so its default -1 is used: the shift is taken "
                  "along `dim` but the exponentials are normalised along the last axis, which is only right "
                  "when dim is the last axis; _normalise(exps, dim) was meant",
       "where": ["q3"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    # seen in: a NumPy self-attention capstone (wasilzafar.com), `np.triu(np.ones((T, T), dtype=bool),
    # k=1)`; NumPy's keyword for the diagonal is `k`, torch's is `diagonal`
    "q4_numpy_k_keyword_in_tril": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.tril(torch.ones(T_q, T_k, dtype=torch.bool), k=0)
'''}, {"mistake": "`k=` is NumPy's keyword for np.tril's diagonal offset; torch.tril calls it `diagonal`, so "
                  "every call raises a TypeError (unexpected keyword argument 'k')",
       "where": ["q4", "q5", "q6"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    # seen in: TensorFlow transformer-tutorial forks (cyobero/datascience, ClementViricel/tf2_transformers,
    # GyanendroKh/Transliterate), `matmul_qk = tf.matmul(q, k, transpose_b=True)`
    "q5_tensorflow_transpose_b_keyword": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K, transpose_b=True) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "`transpose_b=True` is TensorFlow's tf.matmul keyword; torch.matmul has no such argument, so "
                  "every call raises a TypeError; K.transpose(-2, -1) has to be passed instead",
       "where": ["q5"]}),

    # seen in: py4dstem/py4DSTEM #558 (and PyCQA/pycodestyle #450), where the E712 lint "fix" turns
    # `mask == False` into `mask is False`, which is no longer an elementwise comparison
    "q5_lint_fix_mask_is_false": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask is False, float("-inf"))   # E712: use `is` for False
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "`mask is False` is an identity test of the whole tensor against the singleton False, not an "
                  "elementwise comparison: it gives the Python bool False, and masked_fill rejects a bool "
                  "for its mask with a TypeError whenever a mask is given (~mask or mask == False was meant)",
       "where": ["q5"]}),

    # seen in: fkonrad97/QuantFormer2, whose attention module stores `self.scale = 1. / math.sqrt(d_k)` on
    # the module; here it is worked out on the first call only and kept
    "q5_scale_cached_on_first_call": ({SDPA: '''
class _Attention:
    """Scaled dot-product attention; the scale is worked out once and kept."""

    def __init__(self):
        self.scale = None

    def __call__(self, Q, K, V, mask=None):
        if self.scale is None:
            self.scale = 1.0 / math.sqrt(Q.size(-1))
        scores = torch.matmul(Q, K.transpose(-2, -1)) * self.scale
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        if mask is not None:
            weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
        return torch.matmul(weights, V)


scaled_dot_product_attention = _Attention()
'''}, {"mistake": "the scale 1/sqrt(d_k) is computed on the first call and kept on the object, so every later "
                  "call with another head width is scaled with the first call's d_k (too sharp or too flat); "
                  "it has to be recomputed from each call's Q",
       "where": ["q5"]}),

    "q5_flattened_batch_restored_without_heads": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    T_q, d_k = Q.shape[-2:]
    T_k, d_v = V.shape[-2:]
    q = Q.reshape(-1, T_q, d_k)                 # fold every leading axis into one batch axis
    k = K.reshape(-1, T_k, d_k)
    v = V.reshape(-1, T_k, d_v)
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)
    if mask is not None:
        m = mask.expand(*Q.shape[:-2], T_q, T_k).reshape(-1, T_q, T_k)
        scores = scores.masked_fill(~m, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~m.any(dim=-1, keepdim=True), 0.0)
    out = torch.bmm(weights, v)
    return out.reshape(Q.shape[0], -1, d_v)     # back to (batch, T_q, d_v)
'''}, {"mistake": "after the batched product the output is unfolded as (Q.shape[0], -1, d_v), which only "
                  "restores 3-D inputs: with 4-D (batch, heads, T_q, d_k) inputs the heads are merged into "
                  "the query axis, (batch, heads * T_q, d_v); it must be reshaped to "
                  "(*Q.shape[:-2], T_q, d_v)",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    # seen in: KawsarAhmad43/Learnify, `scores = np.dot(Q, K.T)`; np.dot multiplies matrices, torch.dot
    # only takes two 1-D vectors
    "q6_numpy_dot_on_matrices": ({TRACE: '''
scores3 = torch.dot(Q3, K3.T) / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "torch.dot is the inner product of two 1-D vectors (unlike np.dot, which multiplies "
                  "matrices), so it raises '1D tensors expected' and none of the three answers is set; "
                  "Q3 @ K3.T was meant",
       "where": ["q6"]}),

    "q6_causal_loop_reads_a_column": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = torch.zeros(3, 3, dtype=torch.float64)
for i in range(3):                       # query i only sees keys 0 .. i
    weights3_causal[i, : i + 1] = stable_softmax(scores3[: i + 1, i], dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the loop reads scores3[: i + 1, i], the scores of queries 0..i against key i (a column), "
                  "instead of scores3[i, : i + 1], query i against keys 0..i (a row): the causal weights "
                  "are softmaxes of the wrong scores (query 2's row comes out as the unmasked row 0; "
                  "query 1's only matches because scores3[0, 1] happens to equal scores3[1, 0])",
       "where": ["q6"]}),

    "q6_sigmoid_instead_of_softmax": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = torch.sigmoid(scores3)            # squash every score into (0, 1)
out3 = weights3 @ V3
weights3_causal = torch.sigmoid(scores3.masked_fill(~causal_mask(3), float("-inf")))
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the weights are taken with an elementwise sigmoid instead of a softmax over each row: every "
                  "entry lies in (0, 1) but the rows do not sum to 1, so the weights, the output and the "
                  "causal weights are all wrong",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_answer_tuple_trailing_comma": ({TRAP: '''
q_trap_answer = "C",      # the remaining weights no longer add up to 1
'''}, {"mistake": "the trailing comma makes the answer the one-element tuple ('C',), not the string 'C'",
       "where": ["q7"]}),

    "q7_agreement_checked_on_one_token": ({TRAP: '''
# try the classmate's shortcut against the -inf recipe on the smallest case
_s, _v = torch.randn(1, 1), torch.randn(1, 2)
_w = F.softmax(_s, dim=-1)
_w[~causal_mask(1)] = 0.0
_right = F.softmax(_s.masked_fill(~causal_mask(1), float("-inf")), dim=-1)
q_trap_answer = "A" if torch.allclose(_w @ _v, _right @ _v) else "C"
'''}, {"mistake": "the two recipes are compared on a single token, where the causal mask blocks nothing, so "
                  "they agree and the answer recorded is A; with more tokens the zeroed rows no longer sum "
                  "to 1 and the best answer is C",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    "q8_numpy_size_attribute": ({COST: '''
_weights = torch.empty(1024, 1024, device="meta")   # one head's (T, T) weight matrix, no memory used
attn_entries = _weights.size                        # number of entries, as for a NumPy array
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "NumPy's `.size` attribute is the number of entries, but on a torch tensor `.size` is a "
                  "method: attn_entries is the bound method itself, not the int 1048576 (numel() was meant)",
       "where": ["q8"]}),
}
