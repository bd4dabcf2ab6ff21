"""Blind held-out set 27 for attention-pipeline.

Twenty-seventh blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the lessons in ../shared/lessons, the student-facing text of the master notebook (markdown,
solution cells and public checks), full_marks.ipynb (whose cells these replace), `harness.py`, blind21.py (for
the format) and only the module docstrings and variant names of blind.py .. blind26.py (to see which questions
they touch least and not to repeat a mistake in the same form), and a short search of public attention code:
Swin Transformer V2's cosine attention (`F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)`),
the Triton fused-attention tutorial's `exp2` softmax (whose scale carries a log2(e) factor), two public student
transformers that call the softmax module as a function (`nn.Softmax(scores, dim=-1)`), nanoGPT's
`CausalSelfAttention` (heads split with `view(B, T, n_head, C // n_head).transpose(1, 2)` and merged back with
`.view(B, T, C)`), torch.nn.MultiheadAttention's `average_attn_weights=True`, the WhiteFox generated SDPA models
(`(torch.rand(...) > 0.7).fill_(-1000000000.0)`, a boolean tensor filled whole), the Annotated Transformer's
`clones(nn.Linear(d_model, d_model), 4)` (projections of equal width), and a public `attention_entropy_loss` with
a `log(x, base)` helper called with `len(weights)` as the base. Their habits are carried into our functions.

The set follows a real class's mix: small slips inside otherwise right code (a loop started at 1, the merged
width taken from the model width, `=` for `+=`, `==` for `=`, the log base taken from `len(A)`, a diagonal
scaling multiplied on the wrong side), whole-approach mistakes (cosine scores, a base-2 softmax, two heads
averaged, stacked projections that assume d_v = d_k, a boolean mask filled whole), crashes of a half-remembered
API (`torch.finfo(dtype=...)`, `nn.Softmax(S, dim=-1)`) and two multiple-choice answers of a student who
misread the lesson (shift invariance tested in place of scale invariance; O given one row per token of Y).
Code shapes earlier sets used little: helper functions, a small class, einsum, loops where the notebook allows
them, a computed answer. Each wrong variant changes the cell of one question of an otherwise full-marks
notebook and holds exactly one mistake; `where` lists the questions whose tests may fail (a helper reused by
the pipeline, or passed to a later question's public check, may also fail there; q09's hidden test runs
`self_attention` with zero projections). The correct variants are really correct, in unusual styles (a
numpy-style `softmax(axis=-1)`, a mask filled column by column in a loop, einsum scores behind a helper,
self- and cross-attention from one small class, a log-sum-exp kernel with a `masked_fill` entropy). Every
variant was checked against plain torch (the full-marks cells) before it was written down.

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
CROSS = "cross_attention"

CORRECT = {
    # numpy habit: softmax with axis= (torch accepts it as an alias of dim) and a conditional expression.
    "numpy_axis_softmax_conditional_mask": {
        WEIGHTS: '''def attention_weights(S, M=None):
    logits = S if M is None else S + M
    return logits.softmax(axis=-1)
''',
    },

    # the mask filled column by column: key i is blocked for every query before it.
    "column_loop_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    blocked = torch.finfo(dtype).min
    for i in range(1, T):
        M[:i, i] = blocked          # queries 0 .. i-1 come before key i
    return M
''',
    },

    # einsum behind a helper, the scale kept as a Python float.
    "einsum_helper_scores": {
        SCORES: '''def _dot_all_pairs(A, B):
    # (..., n, d), (..., m, d) -> (..., n, m)
    return torch.einsum("...nd,...md->...nm", A, B)


def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    scale = math.sqrt(d_k)
    return _dot_all_pairs(Q, K) / scale
''',
    },

    # one small class serves self- and cross-attention.
    "one_head_class_for_self_and_cross": {
        SELF: '''class _Head:
    def __init__(self, W_Q, W_K, W_V):
        self.W_Q, self.W_K, self.W_V = W_Q, W_K, W_V

    def __call__(self, X, Y, M=None):
        Q = X @ self.W_Q
        K = Y @ self.W_K
        V = Y @ self.W_V
        A = attention_weights(scaled_scores(Q, K), M)
        return A @ V, A


def self_attention(X, W_Q, W_K, W_V, causal=True):
    T = X.shape[-2]
    M = causal_additive_mask(T, X.dtype, X.device) if causal else None
    return _Head(W_Q, W_K, W_V)(X, X, M)
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    return _Head(W_Q, W_K, W_V)(X, Y, M)
''',
    },

    # the kernel normalised in log space; the entropy with the zeros replaced by ones before the log.
    "logsumexp_kernel_masked_fill_entropy": {
        NW: '''def nadaraya_watson(q, K, V):
    log_kappa = K @ q / math.sqrt(q.shape[-1])
    weights = torch.exp(log_kappa - torch.logsumexp(log_kappa, dim=0))
    return V.mT @ weights
''',
        ENT: '''def row_entropy_bits(A):
    safe = A.masked_fill(A == 0, 1.0)          # log2(1) = 0, so 0 log 0 counts as 0
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
}

WRONG = {
    # seen in: Swin Transformer V2's cosine attention, `F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)`.
    "q02_cosine_scores_then_scaled": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    Q_hat = torch.nn.functional.normalize(Q, dim=-1)
    K_hat = torch.nn.functional.normalize(K, dim=-1)
    return Q_hat @ K_hat.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "normalises every query and key to unit length before the dot product, so the scores are "
                   "cosine similarities divided by sqrt(d_k) instead of q . k / sqrt(d_k): the lengths of q and "
                   "k, which carry how strongly a token asks and advertises, are thrown away (the lesson's "
                   "query 2 against key 1 gives 0.5, not 1)",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    # plausible for this lesson: finfo's argument is half-remembered as a dtype= keyword (it is positional, `type`).
    "q04_finfo_called_with_dtype_keyword": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.finfo(dtype=dtype).min
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, blocked)
''',
    }, {"mistake": "calls torch.finfo(dtype=dtype): finfo takes the dtype positionally (its parameter is named "
                   "type), so the call raises TypeError and no mask is ever built",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # plausible for this lesson: the row loop is started at 1 ("row 1" of the lesson), so row 0 is never filled.
    "q04_row_loop_starts_at_one": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    for t in range(1, T):
        M[t, t + 1:] = torch.finfo(dtype).min     # keys after query t are in its future
    return M
''',
    }, {"mistake": "loops over the query rows from 1 instead of 0, so the first query's row is never filled: "
                   "query 1 sees every key, the whole future included, while the other rows are right",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # seen in: WhiteFox's generated SDPA models, `(torch.rand(1, 56, 56) > 0.7).fill_(-1000000000.0)`, where
    # fill_ overwrites the whole boolean tensor instead of the True entries.
    "q04_boolean_mask_filled_whole": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, device=device), diagonal=1) > 0
    return future.fill_(torch.finfo(dtype).min).to(dtype)
''',
    }, {"mistake": "uses fill_ where masked_fill was meant: fill_ writes the value into every entry of the "
                   "boolean tensor, which stores it as True, so the mask comes back as 1 everywhere (no entry "
                   "blocked, no entry 0) instead of 0 on and below the diagonal and finfo.min above it",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # seen in: the Triton fused-attention tutorial's softmax with exp2, whose scores are first multiplied by
    # log2(e) = 1.44269504; here exp2 is kept and the log2(e) factor is left out.
    "q05_softmax_with_exp2": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    S = S - S.amax(dim=-1, keepdim=True)      # stable: the row maximum becomes 0
    P = torch.exp2(S)
    return P / P.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "exponentiates with base 2 instead of e, which is the softmax of S * ln 2: every row is "
                   "flatter than the attention weights (the lesson's row 2 gives 0.667 / 0.333, not 0.731 / "
                   "0.269); exp2 needs the scores multiplied by log2(e) first",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: two public student transformers, `attn = nn.Softmax(scores, dim=-1)` and `nn.Softmax(scores, dim=2)`.
    "q05_softmax_module_called_on_scores": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.nn.Softmax(S, dim=-1)
''',
    }, {"mistake": "passes the scores to the constructor of the nn.Softmax module, which takes only dim: the "
                   "call raises TypeError (the module must be built first, nn.Softmax(dim=-1)(S), or "
                   "torch.softmax used)",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: nanoGPT's CausalSelfAttention, `y.transpose(1, 2).contiguous().view(B, T, C)` with C = n_embd,
    # which is right there because the head outputs add up to n_embd; here they add up to d_v.
    "q07_heads_merged_back_to_model_width": ({
        SELF: '''class _CausalSelfAttention:
    def __init__(self, W_Q, W_K, W_V, n_head=1):
        self.W_Q, self.W_K, self.W_V = W_Q, W_K, W_V
        self.n_head = n_head

    def __call__(self, X, causal=True):
        *lead, T, C = X.shape
        q, k, v = project_qkv(X, self.W_Q, self.W_K, self.W_V)
        q = q.view(*lead, T, self.n_head, -1).transpose(-3, -2)
        k = k.view(*lead, T, self.n_head, -1).transpose(-3, -2)
        v = v.view(*lead, T, self.n_head, -1).transpose(-3, -2)
        S = scaled_scores(q, k)
        M = causal_additive_mask(T, S.dtype, S.device) if causal else None
        att = attention_weights(S, M)
        y = att @ v
        y = y.transpose(-3, -2).contiguous().view(*lead, T, C)   # heads side by side again
        return y, att.squeeze(-3)


def self_attention(X, W_Q, W_K, W_V, causal=True):
    return _CausalSelfAttention(W_Q, W_K, W_V)(X, causal)
''',
    }, {"mistake": "merges the head outputs back with the model width C = d_model, as nanoGPT does, but here "
                   "the outputs are d_v wide: view(..., T, d_model) raises whenever d_v != d_model (and the "
                   "output should have d_v columns anyway)",
        "where": ["q07", "q09", "q13"]}),

    # seen in: torch.nn.MultiheadAttention, whose weights are averaged over the heads by default
    # (average_attn_weights=True), and nanoGPT's head split; a single head was asked for.
    "q07_two_heads_weights_averaged": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True, n_head=2):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    *lead, T, d_k = Q.shape
    d_v = V.shape[-1]
    Qh = Q.reshape(*lead, T, n_head, d_k // n_head).transpose(-3, -2)
    Kh = K.reshape(*lead, T, n_head, d_k // n_head).transpose(-3, -2)
    Vh = V.reshape(*lead, T, n_head, d_v // n_head).transpose(-3, -2)
    S = torch.einsum("...td,...sd->...ts", Qh, Kh) / math.sqrt(d_k // n_head)
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    Ah = attention_weights(S, M)
    O = (Ah @ Vh).transpose(-3, -2).reshape(*lead, T, d_v)
    return O, Ah.mean(dim=-3)          # one A for the caller: the heads' average
''',
    }, {"mistake": "splits the projections into two heads, each with its own softmax over half of d_k (scaled "
                   "by sqrt(d_k / 2)), and returns the heads' average as A: that is multi-head attention, not "
                   "the single head of the formula, so O and A differ from softmax(QK^T / sqrt(d_k) + M) and "
                   "V (and an odd d_k or d_v cannot be split at all)",
        "where": ["q07", "q09", "q13"]}),

    # seen in: the Annotated Transformer's `clones(nn.Linear(d_model, d_model), 4)`, projections of one width,
    # here stacked into one batched matmul.
    "q01_weights_stacked_into_one_batch": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    W = torch.stack([W_Q, W_K, W_V])                 # (3, d_model, d): one batched matmul
    Q, K, V = (X.unsqueeze(-3) @ W).unbind(dim=-3)
    return Q, K, V
''',
    }, {"mistake": "stacks W_Q, W_K and W_V into one tensor, which assumes they all have the same width: "
                   "torch.stack raises whenever d_v != d_k (values need not be as wide as keys)",
        "where": ["q01", "q07", "q09", "q13"]}),

    # plausible for this lesson: the kernel sums written as a loop over the keys; the denominator is assigned,
    # not accumulated.
    "q08_loop_denominator_overwritten": ({
        NW: '''def nadaraya_watson(q, K, V):
    scale = math.sqrt(q.shape[-1])
    num = torch.zeros_like(V[0])
    den = 0.0
    for k_i, v_i in zip(K, V):
        w = torch.exp(torch.dot(q, k_i) / scale)
        num = num + w * v_i
        den = w
    return num / den
''',
    }, {"mistake": "writes den = w instead of den += w in the loop, so the weighted sum of the values is "
                   "divided by the last key's kernel weight alone rather than by the sum of all the kernel "
                   "weights: the result is not a weighted average",
        "where": ["q08"]}),

    # plausible for this lesson: the 0 log 0 patch is written with == instead of =, a comparison whose result
    # is thrown away.
    "q10_zero_logs_compared_not_assigned": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.log2(A)
    logs[A == 0] == 0              # 0 log 0 = 0
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "the line meant to set log2(0) to 0 compares instead of assigns (== for =), so the -inf logs "
                   "stay, 0 * -inf gives NaN, and every row with a masked (zero) weight has a NaN entropy",
        "where": ["q10"]}),

    # seen in: a public attention_entropy_loss, `torch.sum(weights * log(weights, len(weights)))` with a
    # `log(x, base)` helper; here the helper is called with len(A) where the base 2 was meant.
    "q10_log_helper_base_from_len": ({
        ENT: '''def _log(x, base):
    return torch.log(x) / torch.log(torch.tensor(base, dtype=x.dtype, device=x.device))


def row_entropy_bits(A):
    plogp = torch.where(A > 0, A * _log(A, len(A)), torch.zeros_like(A))
    return -plogp.sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "takes the logarithm in base len(A) (the size of A's first axis: the number of query rows, or "
                   "the batch size) instead of base 2, so the entropies are not in bits and 2 ** H is not the "
                   "effective number of tokens",
        "where": ["q10"]}),

    # plausible for this lesson: W = D^-1 L written as a matrix product, with the diagonal on the wrong side.
    "q09_diagonal_scaling_on_the_right": ({
        AVG: '''def prefix_average_matrix(T):
    L = torch.tril(torch.ones(T, T, dtype=torch.float64))
    D_inv = torch.diag(1.0 / torch.arange(1, T + 1, dtype=torch.float64))
    return L @ D_inv
''',
    }, {"mistake": "multiplies the 1/t diagonal on the right (L D^-1), which scales the columns: row t holds "
                   "1, 1/2, ..., 1/t instead of t copies of 1/t, so the rows do not sum to 1; the row scaling "
                   "is D^-1 L",
        "where": ["q09", "q10"]}),

    # plausible for this lesson: the student checks "invariance" with a shift (which softmax ignores) and
    # concludes that the scale does not matter.
    "q03_shift_checked_for_scale": ({
        "ans_scale": '''_s = torch.randn(8, dtype=torch.float64)
# dividing every score by sqrt(512) = 22.6 should not change the softmax: check it
ans_scale = "c" if torch.allclose(torch.softmax(_s, 0), torch.softmax(_s + 22.6, 0)) else "b"
''',
    }, {"mistake": "answers c (nothing changes): softmax ignores adding one constant to every score, not "
                   "multiplying them by one; without the 1/sqrt(d_k) factor the scores are about 22.6 times "
                   "larger and each row collapses onto one key (b)",
        "where": ["q03"]}),

    # plausible for this lesson: the student reads "one output per value" and gives O one row per token of Y.
    "q14_shapes_looked_up_from_values": ({
        "ans_cross_shapes": '''_S_shape = ("T", "T'")            # queries from X, keys from Y
_O_shape = ("T'", "d_v")          # one output per value vector
ans_cross_shapes = {
    (("T", "T"), ("T", "d_v")): "a",
    (("T", "T'"), ("T", "d_v")): "b",
    (("T'", "T"), ("T'", "d_v")): "c",
    (("T", "T'"), ("T'", "d_v")): "d",
}[(_S_shape, _O_shape)]
''',
    }, {"mistake": "answers d, giving O one row per token of Y (T' x d_v): O = A V has one row per query, "
                   "so it is T x d_v (b)",
        "where": ["q14"]}),
}
