"""Blind held-out set 21 for attention-pipeline.

Twenty-first blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook (markdown, solution cells and public checks)
and full_marks.ipynb (whose cells these replace), `harness.py`, blind20.py (for the format) and only the
module docstrings and variant names of blind.py .. blind20.py (to count which questions they touch least and
not to repeat a mistake in the same form), and a short search of public attention code: nanoGPT's fused
`c_attn(x).split(n_embd, dim=2)`, the d2l `sequence_mask` / `masked_softmax` forks
(`torch.arange(maxlen)[None, :] < valid_len[:, None]`, `X[~mask] = value`), a d2l-style Nadaraya-Watson fork
whose kernel is built with `.type(torch.float32)`, a public NMT `masked_softmax` that multiplies the softmax by
a `row_mask` so that queries with no valid key get all-zero rows, a public `ScaledDotProductAttention` that
applies `scores.masked_fill(mask == 0, -1e9)`, Yu-Hsiang Huang's attention-is-all-you-need
`torch.matmul(q / self.temperature, k.transpose(2, 3))`, a course homework solution (and a small
`params_calculator.py`) counting every projection of an attention block as d_model x d_model, Karpathy's GPT
lecture (`wei.masked_fill(tril == 0, float('-inf'))`) and Raschka's LLMs-from-scratch `CausalAttention`
(mask the raw scores in place with -inf, then divide by `keys.shape[-1] ** 0.5`). Their habits are carried
into our functions.

The set leans on the code questions earlier sets touched least (q01 projections, q02 scores, q09 prefix
average, q12 parameter count) and on slips that pair a right idea with one wrong detail: a fused split with
the default axis, a square root taken twice, d2l's valid lengths counted from zero, a kernel cast to float32,
integer counts divided with true division, a keep-mask test applied to an additive mask, a `triu` whose result
is thrown away, a "no mask" placeholder `torch.zeros(1)` that promotes float16 to float32, a row sum without
keepdim, and a nats-to-bits factor used upside down. Each wrong variant changes the cell of one question of an
otherwise full-marks notebook and holds exactly one mistake; `where` lists the questions whose tests may fail
(a helper reused by the pipeline may also fail the questions that call it; q09's hidden test runs
`self_attention` with zero projections). The correct variants are really correct, in unusual styles (the
lecture's tril + -inf mask inside self_attention, an ellipsis einsum projection with the prefix average taken
as the softmax of the causal mask, cross-attention from reversed scores transposed back and project_qkv reused
for Y, Raschka's mask-then-scale order with a matrix-vector kernel, expanded reciprocals with a sum-of-widths
count). Every variant was checked against plain torch (the full-marks cells) before it was written down.

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
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

CORRECT = {
    # Karpathy's GPT lecture: a boolean tril, masked_fill with -inf where it is 0, then the softmax.
    "lecture_tril_minus_inf_self_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    wei = scaled_scores(Q, K)
    if causal:
        T = X.shape[-2]
        tril = torch.tril(torch.ones(T, T, dtype=torch.bool, device=wei.device))
        wei = wei.masked_fill(tril == 0, float("-inf"))    # the diagonal is always open, so no row is all -inf
    A = torch.softmax(wei, dim=-1)
    return A @ V, A
''',
    },
    "ellipsis_einsum_projection_softmax_of_mask_prefix": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    proj = lambda W: torch.einsum("...i,ij->...j", X, W)    # row vector times matrix, every token
    return proj(W_Q), proj(W_K), proj(W_V)
''',
        AVG: '''def prefix_average_matrix(T):
    # the lens itself: zero scores plus the causal mask, softmaxed row by row
    return torch.softmax(causal_additive_mask(T, torch.float64), dim=-1)
''',
    },
    "reversed_scores_transposed_cross": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = project_qkv(X, W_Q, W_K, W_V)[0]
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)       # keys and values from the other sequence
    S = scaled_scores(K, Q).transpose(-2, -1)      # (T', T) transposed back to one row per query
    A = attention_weights(S, M)
    return A @ V, A
''',
    },
    # Raschka's CausalAttention: mask the raw scores in place with -inf, then divide by sqrt(d_k).
    "mask_then_scale_matvec_kernel": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    scores = Q @ K.transpose(-2, -1)
    if causal:
        T = scores.shape[-1]
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=scores.device), diagonal=1)
        scores.masked_fill_(future, -torch.inf)
    A = torch.softmax(scores / K.shape[-1] ** 0.5, dim=-1)
    return A @ V, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = (K @ q / math.sqrt(q.shape[-1])).exp()
    return kappa @ V / kappa.sum()
''',
    },
    "expanded_reciprocals_sum_of_widths": {
        AVG: '''def prefix_average_matrix(T):
    inv = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return inv[:, None].expand(T, T).tril()        # row t: 1/t in its first t columns
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    widths = [d_k, d_k, d_v] + ([d_v] if with_output else [])     # W_O is (d_v, d_model): same count
    return sum(d_model * w for w in widths)
''',
    },
}

WRONG = {
    # seen in: nanoGPT's fused `self.c_attn(x).split(self.n_embd, dim=2)`; here the split sizes are right but
    # the axis is left to split()'s default.
    "q01_fused_split_default_axis": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    W = torch.cat([W_Q, W_K, W_V], dim=1)          # one matmul for all three, like c_attn
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    Q, K, V = (X @ W).split([d_k, d_k, d_v])
    return Q, K, V
''',
    }, {"mistake": "splits the fused (..., T, 2 d_k + d_v) projection without dim=-1, so split() cuts along "
                   "its default axis 0 (tokens or batch) instead of the features: it raises unless that axis "
                   "happens to have 2 d_k + d_v entries, and is wrong when it does",
        "where": ["q01", "q07", "q09"]}),

    # plausible for this lesson: `scale` already holds sqrt(d_k), and the student takes its square root again.
    "q02_square_root_taken_twice": ({
        SCORES: '''def scaled_scores(Q, K):
    scale = math.sqrt(Q.shape[-1])
    return Q @ K.transpose(-2, -1) / math.sqrt(scale)
''',
    }, {"mistake": "divides by sqrt(sqrt(d_k)) = d_k ** 0.25 instead of sqrt(d_k): the variable already "
                   "holds the square root and it is rooted again (the lesson's d_k = 4 gives 1.41, not 2)",
        "where": ["q02", "q07", "q13"]}),

    # seen in: Yu-Hsiang Huang's attention-is-all-you-need ScaledDotProductAttention,
    # `torch.matmul(q / self.temperature, k.transpose(2, 3))`, written for (batch, head, T, d_k) tensors only.
    "q02_keys_transposed_on_axes_2_3": ({
        SCORES: '''def scaled_scores(Q, K):
    temperature = math.sqrt(Q.shape[-1])
    return torch.matmul(Q / temperature, K.transpose(2, 3))
''',
    }, {"mistake": "swaps K's axes 2 and 3, which are its last two axes only for 4-D inputs: a (T, d_k) or "
                   "(B, T, d_k) key tensor has no axis 3 and raises, so only 4-D batches work (-2, -1 was meant)",
        "where": ["q02", "q07", "q09", "q13"]}),

    # seen in: d2l's sequence_mask (`torch.arange(maxlen)[None, :] < valid_len[:, None]`, `X[~mask] = value`),
    # with the per-row valid lengths taken as arange(T) instead of arange(1, T + 1).
    "q04_sequence_mask_lengths_from_zero": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    valid_len = torch.arange(T, device=device)                  # how many keys row t may see
    keep = torch.arange(T, device=device)[None, :] < valid_len[:, None]
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[~keep] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "gives query t (counting from 0) t visible keys instead of t + 1: the valid lengths are "
                   "arange(T) rather than arange(1, T + 1), so the diagonal is blocked too and the first row "
                   "is blocked entirely (it then comes out uniform over all keys)",
        "where": ["q04", "q07", "q09"]}),

    # plausible for this lesson: the mask is built full of finfo.min and cut with triu, but triu is not in place.
    "q04_triu_result_not_assigned": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    M.triu(diagonal=1)                  # keep the blocked entries above the diagonal only
    return M
''',
    }, {"mistake": "calls M.triu(diagonal=1) without assigning its result (triu is not in place; triu_ is), so "
                   "the returned mask is finfo.min everywhere, the diagonal and the past included",
        "where": ["q04", "q07", "q09"]}),

    # seen in: a public NMT `masked_softmax` that multiplies the softmax by a row_mask (`X * row_mask`) so that
    # a query with no valid key gets an all-zero row.
    "q05_fully_blocked_rows_zeroed": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is None:
        return torch.softmax(S, dim=-1)
    A = torch.softmax(S + M, dim=-1)
    has_open_key = (M > torch.finfo(M.dtype).min).any(dim=-1, keepdim=True)
    return A * has_open_key             # a query that may see nothing attends to nothing
''',
    }, {"mistake": "zeroes the rows whose keys are all blocked, so those rows sum to 0 instead of 1; the "
                   "notebook's convention is that such a row stays finite and comes out uniform",
        "where": ["q05", "q13"]}),

    # plausible for this lesson: a hand-written stable softmax whose row sums lose their axis.
    "q05_row_sum_without_keepdim": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    E = torch.exp(S - S.amax(dim=-1, keepdim=True))
    return E / E.sum(dim=-1)
''',
    }, {"mistake": "divides by E.sum(dim=-1) without keepdim, so the (..., T_q) row sums broadcast along the "
                   "key axis: entry (t, i) is divided by row i's sum (wrong for square S, a shape error "
                   "otherwise); the max shift is right",
        "where": ["q05", "q07", "q09", "q13"]}),

    # plausible for this lesson: "no mask" written as adding a zero tensor, created in the default dtype.
    "q07_zero_placeholder_mask_in_float32": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.shape[-2]
    M = causal_additive_mask(T, S.dtype, S.device) if causal else torch.zeros(1)    # no mask: add 0
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "with causal=False it still adds a placeholder mask torch.zeros(1), a 1-D float32 tensor: "
                   "float16 scores are promoted to float32, so A and O come back in float32 instead of the "
                   "input dtype (no mask should be applied at all, or a 0-d / Python zero)",
        "where": ["q07"]}),

    # seen in: a d2l-style Nadaraya-Watson fork, `k = kernel(dists).type(torch.float32)`.
    "q08_kernel_cast_to_float32": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1])).type(torch.float32)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "casts the kernel weights to float32: float64 inputs lose precision in the weights and "
                   "float16 inputs come back as float32 instead of the input dtype",
        "where": ["q08"]}),

    # plausible for this lesson: the 0/1 pattern built as integers, then averaged with true division.
    "q09_integer_counts_true_division": ({
        AVG: '''def prefix_average_matrix(T):
    ones = torch.tril(torch.ones(T, T, dtype=torch.int64))        # which tokens row t averages
    return ones / ones.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "builds the 0/1 pattern as int64 and divides with `/`, which returns the default float32, "
                   "not the float64 matrix asked for (1/3, 1/7, ... lose precision)",
        "where": ["q09"]}),

    # plausible for this lesson: xlogy gives nats; the conversion factor log2(e) is divided instead of multiplied.
    "q10_nats_to_bits_factor_inverted": ({
        ENT: '''def row_entropy_bits(A):
    H_nats = -torch.xlogy(A, A).sum(dim=-1)       # xlogy(0, 0) = 0
    return H_nats / math.log2(math.e)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "converts nats to bits by dividing by log2(e) instead of multiplying by it (or dividing "
                   "by ln 2): the entropies come out ln(2)^2 = 0.48 times the right bits, and the effective "
                   "token counts with them",
        "where": ["q10"]}),

    # seen in: a course homework solution and a small params_calculator.py that count each of W_Q, W_K, W_V and
    # W_O as d_model x d_model (`4 * d_model * d_model`), the multi-head layout with every head concatenated.
    "q12_projections_counted_square": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 3 * d_model * d_model           # W_Q, W_K, W_V
    if with_output:
        n += d_model * d_model          # W_O
    return n
''',
    }, {"mistake": "counts every weight matrix as d_model x d_model (the all-heads multi-head layout) instead "
                   "of d_model x d_k for W_Q and W_K, d_model x d_v for W_V and d_v x d_model for W_O",
        "where": ["q12"]}),

    # plausible for this lesson: the two widths mixed up, W_K counted with d_v.
    "q12_key_width_taken_from_values": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (d_k + 2 * d_v)       # W_Q, then W_K and W_V
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "counts W_K as d_model x d_v, as if keys had the values' width: keys must match the "
                   "queries' d_k, so the count is d_model (2 d_k + d_v), not d_model (d_k + 2 d_v)",
        "where": ["q12"]}),

    # seen in: a public ScaledDotProductAttention, `scores = scores.masked_fill(mask == 0, -1e9)`, whose mask is
    # a keep-mask of ones; here it is given our additive mask (0 = open).
    "q13_additive_mask_used_as_keep_mask": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S.masked_fill(M == 0, torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return A @ V, A
''',
    }, {"mistake": "treats the additive mask as a keep-mask (masked_fill where M == 0): the open keys (M = 0) "
                   "are blocked and the blocked ones keep their raw scores, so a given mask is inverted",
        "where": ["q13"]}),
}
