"""Blind held-out set 26 for attention-pipeline.

Twenty-sixth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the lessons, the student-facing text of the master notebook (markdown, solution cells and public
checks) and full_marks.ipynb (whose cells these replace), `harness.py`, blind21.py (for the format) and only the
module docstrings and variant names of blind.py .. blind25.py (to count which questions they touch least and not
to repeat a mistake in the same form), and a short search of public attention code: the d2l Nadaraya-Watson
section and its forks (a Gaussian kernel `softmax(-(x_repeat - x_train)**2 / 2)` and queries tiled with
`queries.repeat_interleave(n).reshape((-1, n))`), the "Common Mistakes" page of an LLM-from-first-principles
course (`Q @ K.transpose(0, 2, 1)`, NumPy's transpose written for torch), Hugging Face BERT's
`get_extended_attention_mask` and its copies (`(1.0 - attention_mask) * -10000.0`), a public
`attention_softmax` that clamps the max-shifted scores at -50 "to avoid exp underflow", the CMU 11-785 homework
`Softmax` class (`N = Z.shape[0] * Z.shape[1]`, `C = Z.shape[2]`, a 3-D-only reshape), a public
MultiHeadAttention whose `attention` is `(q @ k.transpose(-2, -1)).softmax(dim=-1) / math.sqrt(q.shape[-1])`, and
an attention-head entropy helper (`plogp = p * torch.log(p); plogp[p == 0] = 0`). Their habits are carried into
our functions.

Round 26 mix: about a third small slips inside otherwise right code (a sum over the wrong axis of a broadcast
product, a row minimum where the maximum was meant, a tuple sliced one short, `repeat_interleave` where
`repeat` was meant), about a third whole-approach mistakes (scores as negative squared distances, the
1/sqrt(d_k) applied to the weights after the softmax, min-entropy instead of Shannon entropy, a clamp step added
to the softmax, a fixed -10000 mask constant, a softmax that assumes 3-D input), and crashes of half-remembered
APIs (NumPy's three-axis transpose, a dtype given to `torch.tril`, the removed `torch.matrix_rank`, a dict of
shapes iterated without `.values()`). Half the wrong variants sit in the core (scores, mask, softmax, pipeline)
and half in the questions earlier sets touched least (q01, q08, q09, q10, q11, q12, q13); the multiple-choice
answers were left out, every wrong letter of every one of them being already used by earlier sets. Each wrong
variant changes the cell of one question of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists the questions whose tests may fail (a helper reused elsewhere may also fail the questions that call
it: q09's hidden test runs `self_attention` with zero projections, q13's public check compares with non-causal
`self_attention`, q10's public check uses `prefix_average_matrix`). The correct variants are really correct, in
unusual styles (a small callable class for the projections with a bool-times-count W_O term, a mask filled then
cut with `triu_` in place with the prefix average from a cumulative sum of the identity, scores through
`movedim` with the entropy from `nansum`, a helper-style pipeline with an einsum mix and an einsum kernel
average, a `triu_indices` mask with the head-entropy patch in bits). Every variant was checked against plain
torch (the full-marks cells) before it was written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

CORRECT = {
    "callable_projector_class_bool_times_count": {
        PROJ: '''class Projector:
    """Holds the three maps; calling it on X applies each to every token row."""

    def __init__(self, *weights):
        self.weights = weights

    def __call__(self, X):
        return tuple(torch.matmul(X, W) for W in self.weights)


def project_qkv(X, W_Q, W_K, W_V):
    return Projector(W_Q, W_K, W_V)(X)
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    qkv = d_model * (2 * d_k + d_v)
    return qkv + int(with_output) * d_v * d_model     # W_O: (d_v, d_model), only when asked for
''',
    },
    "filled_then_triu_in_place_mask_eye_cumsum_prefix": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.empty(T, T, dtype=dtype, device=device)
    M.fill_(torch.finfo(dtype).min)      # block everything ...
    M.triu_(diagonal=1)                  # ... then zero the diagonal and the past, in place
    return M
''',
        AVG: '''def prefix_average_matrix(T):
    ones_below = torch.eye(T, dtype=torch.float64).cumsum(dim=0)    # row t: ones in columns 0..t
    counts = ones_below.sum(dim=1, keepdim=True)
    return ones_below / counts
''',
    },
    "movedim_scores_nansum_entropy": {
        SCORES: '''def scaled_scores(Q, K):
    K_t = K.movedim(-1, -2)              # (..., d_k, T_k)
    return torch.matmul(Q, K_t) / math.sqrt(K.size(-1))
''',
        ENT: '''def row_entropy_bits(A):
    # 0 * log2(0) is nan; nansum leaves those terms out, which is the 0 log 0 = 0 convention
    return -(A * torch.log2(A)).nansum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    "helper_style_pipeline_einsum_mix_einsum_kernel": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    mask = None
    if causal:
        mask = causal_additive_mask(S.size(-1), dtype=S.dtype, device=S.device)
    A = attention_weights(S, M=mask)
    O = torch.einsum("...qk,...kd->...qd", A, V)
    return O, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    d_k = q.shape[0]
    kappa = torch.exp(torch.einsum("td,d->t", K, q) / math.sqrt(d_k))
    return torch.einsum("t,tv->v", kappa, V) / kappa.sum()
''',
    },
    # the head-entropy helper `plogp = p * torch.log(p); plogp[p == 0] = 0`, here with log2 for bits.
    "triu_indices_mask_head_entropy_patch": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    rows, cols = torch.triu_indices(T, T, offset=1, device=device)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[rows, cols] = torch.finfo(dtype).min
    return M
''',
        ENT: '''def row_entropy_bits(A):
    plogp = A * torch.log2(A)            # a fresh tensor: patching it leaves A alone
    plogp[A == 0] = 0
    return -plogp.sum(dim=-1)


def effective_tokens(A):
    H = row_entropy_bits(A)
    return torch.pow(2.0, H)
''',
    },
}

WRONG = {
    # plausible for this lesson: the projection written as a broadcast product and a sum, summed over the
    # output axis instead of the input features.
    "q01_broadcast_product_summed_over_output_axis": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    def project(W):
        # (..., T, d_model, 1) * (d_model, d_out): every feature times every column, then add up
        return (X.unsqueeze(-1) * W).sum(dim=-1)
    return project(W_Q), project(W_K), project(W_V)
''',
    }, {"mistake": "sums the broadcast product X[..., :, None] * W over its last axis (the d_out columns of W) "
                   "instead of the d_model axis that the matrix product contracts: the result has d_model "
                   "columns, each feature of X times its row sum of W, not X @ W",
        "where": ["q01", "q07", "q09", "q13"]}),

    # seen in: the d2l Nadaraya-Watson section and its forks, whose Gaussian kernel scores a query against the
    # keys as `-(x_repeat - x_train)**2 / 2`; here carried into the dot-product scores.
    "q02_scores_as_negative_squared_distance": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    diff = Q.unsqueeze(-2) - K.unsqueeze(-3)          # (..., T_q, T_k, d_k): query minus key
    return -(diff ** 2).sum(dim=-1) / math.sqrt(d_k)
''',
    }, {"mistake": "scores query t against key i by minus their squared distance (the Gaussian kernel of "
                   "kernel regression) instead of the dot product q_t . k_i, so the scores are not QK^T / "
                   "sqrt(d_k) (a key's own length now counts against it)",
        "where": ["q02", "q07", "q13"]}),

    # seen in: the "Common Mistakes" page of an LLM-from-first-principles course, `Q @ K.transpose(0, 2, 1)`,
    # NumPy's transpose(axes) written for a torch tensor.
    "q02_numpy_style_transpose_with_three_axes": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    K_T = K.transpose(0, 2, 1)           # [batch, d_k, seq]
    return Q @ K_T / math.sqrt(d_k)
''',
    }, {"mistake": "calls K.transpose(0, 2, 1) with NumPy's axes-permutation signature; torch's transpose "
                   "swaps exactly two dimensions, so every call raises TypeError (transpose(-2, -1) was meant)",
        "where": ["q02", "q07", "q09", "q13"]}),

    # seen in: Hugging Face BERT's get_extended_attention_mask and its many copies,
    # `(1.0 - attention_mask) * -10000.0`.
    "q04_bert_keep_mask_times_minus_10000": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    allowed = torch.tril(torch.ones(T, T, dtype=dtype, device=device))     # 1 = may attend
    return (1.0 - allowed) * -10000.0
''',
    }, {"mistake": "fills the blocked entries with the fixed constant -10000 (BERT's extended attention mask) "
                   "instead of torch.finfo(dtype).min; the zeros and the triangle are right",
        "where": ["q04"]}),

    # plausible for this lesson: the stability shift done with the row minimum instead of the row maximum.
    "q05_shift_by_row_minimum": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    shifted = S - S.min(dim=-1, keepdim=True).values     # shift each row before exp
    E = torch.exp(shifted)
    return E / E.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "subtracts each row's minimum instead of its maximum before exp, so every exponent is >= 0: "
                   "with a mask the minimum is finfo.min and the open entries overflow to inf (rows of NaN), "
                   "and float16 scores spread by more than about 11 overflow even without one",
        "where": ["q05", "q07", "q09", "q13"]}),

    # seen in: a public attention_softmax, `x = x - x.max(...)`, then `x = torch.clamp(x, min=-50.0)` "to avoid
    # exp underflow", then exp and the row sum.
    "q05_shifted_scores_clamped_at_minus_50": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    S = S - S.max(dim=-1, keepdim=True).values
    S = torch.clamp(S, min=-50.0)        # keep exp away from underflow
    E = torch.exp(S)
    return E / E.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "clamps the shifted scores at -50 before exp, so blocked keys (and any key more than 50 "
                   "below the row's best) get weight e^-50 ~ 2e-22 instead of exactly 0 in float32 and float64: "
                   "causal weights are no longer exactly lower-triangular and masked keys leak",
        "where": ["q05", "q07", "q09", "q13"]}),

    # seen in: the CMU 11-785 homework Softmax class, `self.N = Z.shape[0] * Z.shape[1]`, `self.C = Z.shape[2]`,
    # `Z = Z.reshape(self.N, self.C)`, written for (batch, queries, keys) only.
    "q05_rows_flattened_as_three_dims": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    shape = S.shape
    N, C = S.shape[0] * S.shape[1], S.shape[2]      # (batch * queries) rows, keys columns
    Z = S.reshape(N, C)
    Z = Z - Z.max(dim=1, keepdim=True).values
    E = torch.exp(Z)
    return (E / E.sum(dim=1, keepdim=True)).reshape(shape)
''',
    }, {"mistake": "flattens the scores as if they were always (batch, T_q, T_k): a 2-D score matrix has no "
                   "axis 2 and raises IndexError, and a 4-D one is cut into rows of length T_q instead of T_k "
                   "(it raises or softmaxes the wrong entries); only 3-D input works",
        "where": ["q05", "q07", "q09", "q13"]}),

    # seen in: a public MultiHeadAttention whose attention is
    # `(q @ k.transpose(-2, -1)).softmax(dim=-1) / math.sqrt(q.shape[-1])`.
    "q07_scale_applied_to_the_weights_after_softmax": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ K.transpose(-2, -1)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M) / math.sqrt(Q.shape[-1])
    return A @ V, A
''',
    }, {"mistake": "divides by sqrt(d_k) after the softmax instead of before it: the softmax sees the unscaled "
                   "scores (too peaked) and every row of A then sums to 1 / sqrt(d_k) instead of 1",
        "where": ["q07", "q09", "q13"]}),

    # seen in: the d2l Nadaraya-Watson section and its forks, `queries.repeat_interleave(n).reshape((-1, n))`,
    # used here to tile a query vector (which needs repeat / expand, not repeat_interleave).
    "q08_query_tiled_with_repeat_interleave": ({
        NW: '''def nadaraya_watson(q, K, V):
    T, d_k = K.shape
    q_rows = q.repeat_interleave(T).reshape(T, d_k)       # one copy of q per key
    kappa = torch.exp((q_rows * K).sum(dim=-1) / math.sqrt(d_k))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "tiles the query with repeat_interleave, which repeats each component T times in a row "
                   "(q0, q0, ..., q1, q1, ...), so after the reshape the rows are not copies of q and the "
                   "kernel weights are not exp(q . k_i / sqrt(d_k)); q.repeat(T, 1) or q.expand(T, -1) was meant",
        "where": ["q08"]}),

    # plausible for a student who half-remembers the API: the dtype given to tril instead of to ones.
    "q09_dtype_passed_to_tril": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T), dtype=torch.float64)
    return W / W.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "passes dtype=torch.float64 to torch.tril, which takes no dtype argument, so every call "
                   "raises TypeError (the dtype belongs to torch.ones)",
        "where": ["q09", "q10"]}),

    # plausible for this lesson: the lesson's two anchor rows (one-hot: 0 bits, uniform over t: log2 t bits) both
    # match -log2 of the largest weight, and the student takes that for the entropy.
    "q10_min_entropy_from_the_largest_weight": ({
        ENT: '''def row_entropy_bits(A):
    # a hard lookup has a weight of 1 (0 bits); a uniform row over t keys has 1/t (log2 t bits)
    return -torch.log2(A.amax(dim=-1))


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "computes the min-entropy -log2(max_i A_ti) instead of the Shannon entropy "
                   "-sum_i A_ti log2 A_ti; the two agree on one-hot and uniform rows but the min-entropy is "
                   "smaller on every other row (the lesson's row 2 gives 0.45 bits, not 0.84)",
        "where": ["q10"]}),

    # plausible for a student who half-remembers the API: torch.matrix_rank, deprecated in 1.9 and since removed.
    "q11_removed_torch_matrix_rank": ({
        RANK: '''max_rank_S = 8

K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.matrix_rank(scaled_scores(Q_lesson, K_lesson)))
''',
    }, {"mistake": "calls torch.matrix_rank, which was deprecated in PyTorch 1.9 and has been removed (it "
                   "raises RuntimeError pointing to torch.linalg.matrix_rank), so the cell stops before "
                   "rank_S_lesson is set",
        "where": ["q11"]}),

    # plausible for this lesson: the shapes kept in a dict, iterated without .values().
    "q12_dict_of_shapes_iterated_without_values": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = {"W_Q": (d_model, d_k), "W_K": (d_model, d_k), "W_V": (d_model, d_v)}
    if with_output:
        shapes["W_O"] = (d_v, d_model)
    return sum(rows * cols for rows, cols in shapes)
''',
    }, {"mistake": "iterates the dict itself, which yields its keys ('W_Q', ...), and unpacks each 3-letter "
                   "name into (rows, cols), so every call raises ValueError; shapes.values() was meant",
        "where": ["q12"]}),

    # plausible for this lesson: project_qkv reused for Y, with the (Q, K, V) tuple sliced [:2] instead of [1:].
    "q13_projection_tuple_sliced_one_short": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = project_qkv(X, W_Q, W_K, W_V)[0]
    K, V = project_qkv(Y, W_Q, W_K, W_V)[:2]      # keys and values come from Y
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "slices the (Q, K, V) tuple of Y's projections with [:2] instead of [1:], so the keys are "
                   "Y W_Q and the values Y W_K: the scores use the wrong map and O has d_k columns, not d_v",
        "where": ["q13"]}),
}
