"""Blind held-out set 22 for attention-pipeline.

Twenty-second blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook (markdown, solution cells and public checks)
and full_marks.ipynb (whose cells these replace), `harness.py`, blind21.py (for the format) and only the
module docstrings and variant names of blind.py .. blind21.py (to count which questions they touch least and
not to repeat a mistake in the same form), and a short search of public attention code: a naive SDPA helper
whose `scale: float | None = False` default makes `... if scale is None else scale` pick False, an Annotated
Transformer fork dividing by `torch.sqrt(d_k)` with `d_k = query.size(-1)` a Python int, the many look-ahead
masks written `1 - torch.tril(torch.ones(T, T))`, NumPy self-attention exercises with
`np.exp(x - np.max(x, axis=-1, keepdims=True))` and `np.dot(X, W_q)` (ported to torch), d2l's
`DotProductAttention` mixing values with `torch.bmm`, a short self-attention demo scoring with `x @ x.T`, and
CMU dlsys's homework unpacking `K, Q, V = np.split(X @ W_KQV, 3, axis=-1)`.
Lucidrains-style `-torch.finfo(dtype).max` fills and PyTorch's `.mT` reference code gave two correct styles.

The set spreads over most questions instead of the scores/softmax/mask core: the written answers (q06), the
rank count (q11), the prefix average (q09), the entropy helper (q10), the kernel smoother (q08), the
pipeline's output stage (q07), cross-attention (q13) and the projections (q01), with few in the core (two in
q02, one each in q04 and q05). Each wrong variant pairs a right idea with one wrong detail (a default
argument, a Python int given to a tensor function, a bool subtracted from 1, a reduction that returns a
(values, indices) pair, a batched-only matmul, a 1-D-only dot, an exclusive arange end, math.pow on a tensor,
rounding, counting singular values, `.T` on batches, an unpacking order). Eight crash (three of them only for
some shapes); five return plausible wrong values. Each changes the cell of one question of an otherwise
full-marks notebook; `where` lists the questions whose tests may fail (a helper reused by the pipeline may
also fail the questions that call it; q09's hidden test runs `self_attention` with zero projections). The
correct variants are really correct, in unusual styles. Every variant was checked against plain torch (the
full-marks cells) before it was written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
ANS_MASK = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

CORRECT = {
    # lucidrains-style: a boolean triu(1) and masked_fill with minus finfo.max (which is finfo.min).
    "neg_finfo_max_masked_fill": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    zeros = torch.zeros(T, T, dtype=dtype, device=device)
    return zeros.masked_fill(blocked, -torch.finfo(dtype).max)    # -max == min for IEEE floats
''',
    },
    # PyTorch's reference code: `.mT` for the batched transpose, and the width read from the keys.
    "mT_div_method_scores": {
        SCORES: '''def scaled_scores(Q, K):
    return torch.matmul(Q, K.mT).div(math.sqrt(K.size(-1)))
''',
    },
    # entropy from torch.special.entr (0 at p = 0) converted from nats, and exp2 for the effective count.
    "special_entr_over_ln2": {
        ENT: '''def row_entropy_bits(A):
    return torch.special.entr(A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # the flag used as the integer 0/1 it is.
    "bool_times_output_count": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + int(bool(with_output)) * d_v * d_model
''',
    },
    # the kernel by method chaining and the weighted sum as an einsum.
    "einsum_kernel_sum": {
        NW: '''def nadaraya_watson(q, K, V):
    kappa = (K @ q).div(math.sqrt(K.shape[-1])).exp()
    return torch.einsum("t,tv->v", kappa, V) / kappa.sum()
''',
    },
}

WRONG = {
    # seen in: CMU dlsys's self_attention homework, `K, Q, V = np.split(X @ W_KQV, 3, axis=-1)`; here the
    # K, Q, V unpacking order is kept while the weights are listed in the Q, K, V order.
    "q01_unpacked_in_k_q_v_order": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    K, Q, V = X @ W_Q, X @ W_K, X @ W_V
    return Q, K, V
''',
    }, {"mistake": "unpacks the projections in K, Q, V order next to weights listed as W_Q, W_K, W_V, so the "
                   "returned queries are X W_K and the keys X W_Q: the scores come out transposed",
        "where": ["q01", "q07"]}),

    # seen in: a public naive scaled_dot_product_attention with `scale: float | None = False` and
    # `scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale`.
    "q02_scale_default_false": ({
        SCORES: '''def scaled_scores(Q, K, scale=False):
    scale_factor = 1 / math.sqrt(Q.size(-1)) if scale is None else scale
    return Q @ K.transpose(-2, -1) * scale_factor
''',
    }, {"mistake": "the optional scale defaults to False instead of None, so the `is None` test never picks "
                   "1/sqrt(d_k) and every score is multiplied by False: S is all zeros and attention is uniform",
        "where": ["q02", "q07", "q13"]}),

    # seen in: an Annotated Transformer fork, `scores = torch.matmul(query, key.transpose(-2, -1)) /
    # torch.sqrt(d_k)` with `d_k = query.size(dim=-1)`.
    "q02_torch_sqrt_of_python_int": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.size(-1)
    return Q @ K.transpose(-2, -1) / torch.sqrt(d_k)
''',
    }, {"mistake": "calls torch.sqrt on d_k, a Python int from .size(-1): torch.sqrt only takes tensors, so it "
                   "raises a TypeError (the notebook asks for math.sqrt)",
        "where": ["q02", "q07", "q09", "q13"]}),

    # seen in: many look-ahead masks, `look_ahead_mask = 1 - torch.tril(torch.ones((seq_len, seq_len)))`
    # (float ones); here the tril is boolean, as in the full-marks cell.
    "q04_one_minus_boolean_tril": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    past = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))
    future = 1 - past
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future.bool()] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "inverts a boolean tril with `1 - past`: torch does not subtract bool tensors (it asks for "
                   "~ or logical_not), so building the mask raises",
        "where": ["q04", "q07", "q09"]}),

    # seen in: NumPy self-attention exercises, `np.exp(x - np.max(x, axis=-1, keepdims=True))`, ported to torch.
    "q05_max_with_dim_is_a_pair": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    e = torch.exp(S - S.max(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "ports NumPy's max-shifted softmax, but Tensor.max(dim=..., keepdim=True) returns a "
                   "(values, indices) pair, not a tensor, so the subtraction raises a TypeError (needs .values "
                   "or amax)",
        "where": ["q05", "q07", "q09", "q13"]}),

    # plausible for this lesson: the student hedges and keeps option d (gradients) next to the right c.
    "q06_two_letters": ({
        ANS_MASK: '''ans_mask = "c, d"
''',
    }, {"mistake": "answers two letters, c and d: d (no gradient through the blocked entries) describes the mask "
                   "being on, not a reason training without it fails; only c is right",
        "where": ["q06"]}),

    # seen in: d2l's DotProductAttention, `return torch.bmm(self.dropout(self.attention_weights), values)`.
    "q07_bmm_for_the_output": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = torch.bmm(A, V)
    return O, A
''',
    }, {"mistake": "mixes the values with torch.bmm, which only takes 3-D (batch, T, T) tensors: an unbatched "
                   "(T, d_model) sequence, or one with two leading dims, raises instead of using @",
        "where": ["q07", "q09"]}),

    # seen in: a NumPy self-attention solution, `Q = np.dot(X, W_q)`, where np.dot takes a matrix; torch.dot
    # does not.
    "q08_torch_dot_with_a_matrix": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return torch.dot(kappa, V) / kappa.sum()
''',
    }, {"mistake": "uses torch.dot for the kernel-weighted sum of the value rows as one would np.dot, but "
                   "torch.dot only takes two 1-D tensors, so (T,) against (T, d_v) raises",
        "where": ["q08"]}),

    # plausible for this lesson: arange's end is exclusive, so the row counts stop one short.
    "q09_arange_stops_one_short": ({
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T, dtype=torch.float64)[:, None]
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / counts
''',
    }, {"mistake": "torch.arange(1, T) stops at T - 1, so there are only T - 1 row counts: the division fails "
                   "to broadcast for T >= 3 (and at T = 2 it divides by 1, leaving the unnormalised triangle)",
        "where": ["q09"]}),

    # plausible for this lesson: the notebook imports math, and math.pow is used on a tensor of entropies.
    "q10_math_pow_on_entropies": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return math.pow(2, row_entropy_bits(A))
''',
    }, {"mistake": "effective_tokens uses math.pow, which needs a Python number: with more than one row it "
                   "raises (only one-element tensors convert), and with one row it returns a float, not a tensor",
        "where": ["q10"]}),

    # plausible for this lesson: a number of tokens must be a whole number, so 2**H is rounded.
    "q10_effective_tokens_rounded": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return torch.round(2.0 ** row_entropy_bits(A))
''',
    }, {"mistake": "rounds 2**H to a whole number of tokens: the effective number of tokens is a real number "
                   "(1.70 for the lesson's 'it' row, which this reports as 2)",
        "where": ["q10"]}),

    # plausible for this lesson: the rank read as the number of singular values, zero ones included.
    "q11_rank_counts_all_singular_values": ({
        RANK: '''max_rank_S = min(8, 100)

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = len(torch.linalg.svdvals(_Q @ _K.T / 2))
''',
    }, {"mistake": "takes the rank of the lesson's S as the number of singular values, which is always "
                   "min(T_q, T_k) = 5; the rank counts only the nonzero ones (2)",
        "where": ["q11"]}),

    # seen in: a short self-attention demo, `scores = x @ x.T / math.sqrt(2)`, written for one unbatched sequence.
    "q13_keys_transposed_with_T": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.T / math.sqrt(Q.shape[-1])
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "transposes the keys with .T, which reverses every axis of a batched (B, T', d_k) tensor "
                   "into (d_k, T', B): batched cross-attention raises (or mixes the wrong axes) instead of "
                   "using .transpose(-2, -1)",
        "where": ["q13"]}),
}
