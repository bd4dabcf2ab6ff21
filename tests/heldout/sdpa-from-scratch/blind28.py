"""Twenty-eighth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the lesson list, and only the module
docstring of blind21.py and the variant names of blind.py .. blind27.py (so that their mistakes are not
repeated in the same form). This round mixes what a real first attention class hands in: small slips
inside otherwise right code (a default `dim=1` carried from 2-D softmax helpers, an einsum output written
keys-first, a per-query slice that starts at the query instead of after it, the tensor rank taken as the
head width, a helper that reads the key count from the feature axis, a `torch.tensor` re-wrap meant as a
cast), whole-approach mistakes (a residual connection added inside the attention, the variance taken as
the mean square, attention entries counted as unordered pairs, the cost of all eight heads of a
512-wide model, a check of the trap that renormalises the zeroed weights), and crashes of half-remembered
APIs (`amax(...).values`, numpy's `tri` looked up in torch, `permute` given two axes of a batched tensor).
The code shapes lean on ones the earlier sets used little: helper functions, a per-query helper in a
loop, einsum, several statements where one would do.

Public code was searched with the code and pages search: CS336 / homework `softmax(x, dim=1)` helpers,
a public spectrogram helper with `spec.amax(dim=-1, keepdim=True).values`, transformer code with
`(torch.tri(torch.ones(sz, sz)) == 1)` for a subsequent mask, an attention module with
`q @ k.permute(-1, -2)`, Hands-On-LLMs `d_k = k.dim()`, attention-is-all-you-need-pytorch forks whose
MultiHeadAttention does `q += residual` right after the attention, code that "casts" with
`scores = torch.tensor(scores, dtype=torch.float16)`, AllenNLP's `masked_softmax` (softmax, multiply by
the mask, divide by the new sum), and a blog on attention cost that counts token interactions as
handshakes, n(n-1)/2. Nine of the fourteen wrong variants carry a slip seen there (named in a comment
above each); the other five are slips plausible for students of these lessons.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points
(a broken `stable_softmax` may also cost q5 and q6, whose function and cell call it; a broken
`causal_mask` also costs q5, whose public check uses it, and q6). Correct variants are really correct
but written differently (a max shift done by a small callable class, a causal mask written as a strict
comparison with the next position, attention from einsum helpers with empty rows found from a
non-finite row maximum, the hand trace built one query at a time by a helper, answers computed from
`chr`, `math.prod` and a power). Every variant was checked against plain torch
(`F.scaled_dot_product_attention`, `torch.softmax`) before it was committed; the grader was not run on
this set.

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
    "softmax_shift_by_callable_class": {SM: '''
class _MaxShift:
    """Subtracts the maximum along one axis (softmax does not change under a constant shift)."""

    def __init__(self, dim):
        self.dim = dim

    def __call__(self, x):
        return x - x.amax(dim=self.dim, keepdim=True)


def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, computed on max-shifted logits."""
    exps = _MaxShift(dim)(x).exp()
    total = exps.sum(dim=dim, keepdim=True)
    return exps / total
'''},

    "causal_strictly_before_next_position": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask: key j is visible to query i when j comes before position i + 1."""
    T_k = T_q if T_k is None else T_k
    next_pos = torch.arange(1, T_q + 1).unsqueeze(-1)     # (T_q, 1): i + 1
    keys = torch.arange(T_k).unsqueeze(0)                # (1, T_k)
    return keys < next_pos
'''},

    "sdpa_einsum_helpers_nonfinite_row_max": {SDPA: '''
def _scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(K.shape[-1])


def _mix(weights, V):
    return torch.einsum("...qk,...kv->...qv", weights, V)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scores = _scaled_scores(Q, K)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -math.inf)
    live = torch.isfinite(scores.amax(dim=-1, keepdim=True))    # False only where every key is blocked
    safe = torch.where(live, scores, torch.zeros_like(scores))
    weights = stable_softmax(safe, dim=-1) * live
    return _mix(weights, V)
'''},

    "trace_one_query_at_a_time": {TRACE: '''
def row_weights(i, causal=False):
    """Weights of query i over the three keys; with causal=True the keys after i are blocked."""
    s = K3 @ Q3[i] / math.sqrt(Q3.shape[1])
    if causal:
        s[i + 1:] = float("-inf")
    return stable_softmax(s, dim=0)


weights3 = torch.stack([row_weights(i) for i in range(3)])
out3 = weights3 @ V3
weights3_causal = torch.stack([row_weights(i, causal=True) for i in range(3)])
print(weights3, out3, weights3_causal, sep="\\n")
'''},

    "answers_from_chr_and_prod": {
        TRAP: '''
q_trap_answer = chr(ord("A") + 2)      # the third option
''',
        COST: '''
T, d_k_head = 1024, 64
attn_entries = math.prod((T, T))
score_madds = math.prod((T, T, d_k_head))
cost_ratio = 2 ** 2
''',
    },
}

WRONG = {
    # --- q1 ---------------------------------------------------------------------------------------
    "q1_helper_key_count_from_feature_axis": ({SHAPES: '''
def attn_shapes(q_shape, k_shape, v_shape):
    """(weights, output) shapes of attention on batched inputs."""
    *batch, t_q, _ = q_shape
    t_k = k_shape[-1]
    return (*batch, t_q, t_k), (*batch, t_q, v_shape[-1])


weights_shape, out_shape = attn_shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))
'''}, {"mistake": "the helper reads the number of keys from k_shape[-1], the feature width d_k = 64, "
                  "instead of k_shape[-2] = T_k = 10, so weights_shape comes out (4, 10, 64) instead of "
                  "(4, 10, 10)",
       "where": ["q1"]}),

    # --- q2 ---------------------------------------------------------------------------------------
    # seen in: Hands-On-LLMs `Attention.forward`, `d_k = k.dim()` then `dot / math.sqrt(d_k)`
    "q2_head_width_from_tensor_rank": ({VAR: '''
d_k = Q.dim()
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "d_k is taken as Q.dim(), the number of dimensions of the tensor (3), instead of its last "
                  "size (8), so the scores are divided by sqrt(3) and scaled_score_var is raw_score_var / 3 "
                  "instead of raw_score_var / 8",
       "where": ["q2"]}),

    "q2_mean_square_as_variance": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
# the entries have mean 0, so their variance is just the mean of their squares
raw_score_var = raw_scores.pow(2).mean().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).pow(2).mean().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the variance is computed as the mean of the squares, which assumes the sample mean is "
                  "exactly 0 and divides by n instead of n - 1; the question asks for torch's unbiased "
                  ".var() of the entries, which subtracts the sample mean",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    # seen in: public softmax helpers written for 2-D (batch, classes) inputs, `def softmax(x, dim=1):`
    "q3_default_dim_one": ({SM: '''
def stable_softmax(x, dim=1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    x_max = torch.max(x, dim=dim, keepdim=True).values
    exps = torch.exp(x - x_max)
    return exps / torch.sum(exps, dim=dim, keepdim=True)
'''}, {"mistake": "the default is dim=1 instead of dim=-1: called without dim on a tensor with more than "
                  "two dimensions, the softmax runs over axis 1 instead of the last axis",
       "where": ["q3"]}),

    # seen in: a public helper, `spec / (spec.amax(dim=-1, keepdim=True).values + 1e-8)`: amax returns a
    # plain tensor, not the (values, indices) pair that max(dim=...) returns
    "q3_amax_values_attribute": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    peak = x.amax(dim=dim, keepdim=True).values
    exps = torch.exp(x - peak)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "x.amax(...) returns a plain tensor, not a (values, indices) pair: its .values is the "
                  "sparse-tensor method Tensor.values, so x - peak subtracts a method and raises TypeError; "
                  "stable_softmax never returns",
       "where": ["q3", "q5", "q6"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    # seen in: transformer code with `mask = (torch.tri(torch.ones(sz, sz)) == 1).transpose(0, 1)` and
    # `(1 - torch.tri(x.shape[0])) * float("-inf")`: np.tri has no torch counterpart
    "q4_numpy_tri_looked_up_in_torch": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.tri(T_q, T_k, dtype=torch.bool)    # ones on and below the diagonal, like np.tri(N, M)
'''}, {"mistake": "torch has no tri function (that is numpy's np.tri), so causal_mask raises AttributeError; "
                  "torch.tril(torch.ones(T_q, T_k, dtype=torch.bool)) is the torch way",
       "where": ["q4", "q5", "q6"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    # seen in: an attention module with `pre_softmax = q @ k.permute(-1, -2)`: permute needs every axis
    "q5_permute_given_two_axes": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = Q @ K.permute(-1, -2) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''}, {"mistake": "K.permute(-1, -2) lists only two axes: permute needs one entry per dimension, so it "
                  "raises on the 3-D and 4-D keys; swapping the last two axes is K.transpose(-2, -1)",
       "where": ["q5"]}),

    "q5_einsum_scores_keys_first": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    scores = torch.einsum("...qd,...kd->...kq", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    return torch.einsum("...qk,...kv->...qv", weights, V)
'''}, {"mistake": "the einsum output is written '...kq', keys before queries, so the score matrix is "
                  "transposed: the softmax then normalises over queries, the mask is laid on the wrong "
                  "entries, and inputs with T_q != T_k fail to multiply with V",
       "where": ["q5"]}),

    # seen in: attention-is-all-you-need-pytorch forks, whose MultiHeadAttention does `q += residual`
    # right after the attention; here carried into the attention function itself
    "q5_residual_added_to_output": ({SDPA: '''
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
    out = torch.matmul(weights, V)
    return out + Q      # residual connection around the attention
'''}, {"mistake": "the queries are added to the output (a residual connection, which belongs to the "
                  "transformer block around attention, not to attention itself): the values are wrong, and "
                  "it cannot even add when d_v != d_k",
       "where": ["q5"]}),

    # seen in: code that casts with `scores = torch.tensor(scores, dtype=torch.float16)`
    "q5_scores_recast_with_torch_tensor": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    scores = torch.tensor(scores, dtype=Q.dtype)      # make sure the scores keep the input dtype
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "torch.tensor(scores, ...) copies the scores into a new leaf tensor that is cut off from "
                  "the graph, so no gradient reaches Q or K (only V still gets one); the values are right",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    "q6_causal_slice_starts_at_the_query": ({TRACE: '''
def row_weights(i, causal=False):
    """Weights of query i over the three keys; with causal=True the keys after i are blocked."""
    s = K3 @ Q3[i] / math.sqrt(Q3.shape[1])
    if causal:
        s[i:] = float("-inf")
    return stable_softmax(s, dim=0)


weights3 = torch.stack([row_weights(i) for i in range(3)])
out3 = weights3 @ V3
weights3_causal = torch.stack([row_weights(i, causal=True) for i in range(3)])
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the causal slice s[i:] also blocks key i itself (it should be s[i + 1:]): query 0 has no "
                  "key left and gets NaN, and queries 1 and 2 lose their own key",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    # seen in: AllenNLP's `masked_softmax`: softmax, `result * mask`, then `result / (result.sum(dim=dim,
    # keepdim=True) + 1e-13)`: the renormalisation the classmate's shortcut leaves out
    "q7_answer_a_from_renormalised_check": ({TRAP: '''
_s = torch.randn(4, 4, generator=torch.Generator().manual_seed(1))
_m = causal_mask(4)
_shortcut = F.softmax(_s, dim=-1)
_shortcut[~_m] = 0.0
_shortcut = _shortcut / (_shortcut.sum(dim=-1, keepdim=True) + 1e-13)
_proper = F.softmax(_s.masked_fill(~_m, float("-inf")), dim=-1)
q_trap_answer = "A" if torch.allclose(_shortcut, _proper) else "C"
'''}, {"mistake": "the check renormalises the zeroed weights, a step the classmate's code does not take, so "
                  "the two agree and the answer comes out A; without it each row sums to less than 1 and "
                  "the answer is C",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    # seen in: a blog on the cost of attention that counts token interactions as handshakes, n(n-1)/2
    # ("with 1,000 people: 499,500")
    "q8_entries_counted_as_handshakes": ({COST: '''
attn_entries = math.comb(1024, 2)      # one entry per pair of tokens
score_madds = attn_entries * 64
cost_ratio = 4
'''}, {"mistake": "the entries are counted as unordered pairs of distinct tokens, T(T-1)/2; the weight "
                  "matrix has one entry per (query, key) pair, self-pairs and both orders included: T*T",
       "where": ["q8"]}),

    "q8_madds_for_all_heads": ({COST: '''
n_heads = 8
d_model = n_heads * 64
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * d_model
cost_ratio = 4
'''}, {"mistake": "score_madds uses the width of a whole 8-head model (512) instead of the one head's "
                  "d_k = 64 the question asks about",
       "where": ["q8"]}),
}
