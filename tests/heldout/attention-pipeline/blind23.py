"""Blind held-out set 23 for attention-pipeline.

Twenty-third blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook (markdown, solution cells and public checks),
full_marks.ipynb (whose cells these replace), `harness.py`, blind21.py (for the format) and only the module
docstrings and variant names of blind.py .. blind22.py (to see which questions they touch least and not to
repeat a mistake in the same form), and a short search of public attention code: PyTorch inductor's
attention patterns as collected in WhiteFox (`torch.nn.functional.dropout(qk.softmax(dim=-1), p=dropout_p)`
with the training flag left at its default, and `div.to(torch.float32)` ... `attn_weight.to(torch.float16)`),
Raschka's LLMs-from-scratch chapter 3 forks (`attn_scores_2 = torch.empty(inputs.shape[0])` filled by a loop
of `torch.dot`, and the "simple normalization" `attn_scores_2 / attn_scores_2.sum()` before softmax),
the public `standard_attention` of sd-fused (`q @ k.transpose(1, 2)` for a `(B, T, C)` layout), public
causal-mask helpers that build a block mask with `triu(..., diagonal=1)` and a keep mask with
`tril(..., diagonal=0)`, and Karpathy's GPT-lecture forks (the `-inf` `wei` softmaxed, one of them printing
`softmax(wei, 0)`). Their habits are carried into our functions.

The set spreads over the notebook: about half of the wrong variants sit in the core (scores, mask, softmax,
the pipeline) and half in the lenses, the count and a written answer. Each pairs a right idea with one wrong
detail: `torch.inner` that is only a matrix product for 2-D inputs, a keep mask taken with the block mask's
`diagonal=1`, an in-place chain run in the wrong order, a conditional expression whose `else` branch is the
bare 0, a float32 softmax cast back to a hard-coded float16, functional dropout whose `training` default is
True, keys transposed before a helper that transposes them, kernel weights normalised without the exp, a
kernel preallocated with `torch.empty` (float32), the lecture's mask softmaxed over dim 0, `torch.diagonal`
with its default dims, a count factored with true division, a transpose on fixed axes 1 and 2, and a
multiple-choice answer written out as a word. Each wrong variant changes the cell of one question of an
otherwise full-marks notebook and holds exactly one mistake; `where` lists the questions whose tests may fail
(a helper reused by the pipeline may also fail the questions that call it; q09's hidden test runs
`self_attention` with zero projections, q10's public checks call the mask and the prefix average, q13's public
check calls `self_attention`). The correct variants are really correct, in unusual styles (scores from
`torch.linalg.matmul` with `movedim(-1, -2)`, a `torch.where` mask with 0-dim tensors of the requested dtype
plus a functional softmax over `S.dim() - 1`, a `torch.linalg.vecdot` kernel, a numpy prefix average with a
`nan_to_num` entropy, and self-attention that overwrites the blocked scores with `masked_fill` on a batched
`ones_like(...).triu(1)`).
Every variant was checked against plain torch (the full-marks cells) before it was written down.

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
COMPLEXITY = "ans_complexity"

CORRECT = {
    # torch.linalg.matmul with the keys' last two axes exchanged by movedim; the scale as a Python float.
    "linalg_matmul_movedim_scores": {
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return torch.linalg.matmul(Q, K.movedim(-1, -2)) / math.sqrt(d_k)
''',
    },
    # the mask from compared positions, both branches 0-dim tensors of the requested dtype; the softmax
    # through torch.nn.functional with the last axis spelled S.dim() - 1.
    "where_mask_functional_softmax_last_axis": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    blocked = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    open_ = torch.tensor(0.0, dtype=dtype, device=device)
    return torch.where(pos[None, :] > pos[:, None], blocked, open_)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    logits = S if M is None else torch.add(S, M)
    return torch.nn.functional.softmax(logits, dim=S.dim() - 1)
''',
    },
    # the kernel from torch.linalg.vecdot (q broadcast against every row of K), values mixed as V^T kappa.
    "vecdot_kernel": {
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.linalg.vecdot(K, q) / math.sqrt(q.numel()))
    return V.mT @ kappa / kappa.sum()
''',
    },
    # the averaging matrix in numpy (float64 by default), the entropy with log2(0) = -inf turned into 0.
    "numpy_prefix_nan_to_num_entropy": {
        AVG: '''def prefix_average_matrix(T):
    import numpy as np
    W = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
    return torch.from_numpy(W)
''',
        ENT: '''def row_entropy_bits(A):
    logs = torch.log2(A).nan_to_num(neginf=0.0)     # only A == 0 gives -inf, and 0 * 0 = 0
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
    },
    # blocked scores overwritten (not shifted) with the dtype's minimum, on a mask as batched as S itself.
    "masked_fill_min_self_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        future = torch.ones_like(S, dtype=torch.bool).triu(diagonal=1)
        S = S.masked_fill(future, torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return torch.matmul(A, V), A
''',
    },
}

WRONG = {
    # plausible for this lesson: torch.inner is Q @ K^T for 2-D inputs, so the public checks pass; with a
    # batch dimension it pairs every batch with every other batch.
    "q02_torch_inner_for_the_score_matrix": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    # torch.inner sums Q[..., j] * K[..., j]: every query against every key
    return torch.inner(Q, K) / math.sqrt(d_k)
''',
    }, {"mistake": "uses torch.inner for QK^T: it contracts the last axes of ALL leading dimensions against each "
                   "other, so batched (B, T_q, d_k), (B, T_k, d_k) inputs give a (B, T_q, B, T_k) tensor instead "
                   "of (B, T_q, T_k); right only for 2-D inputs",
        "where": ["q02", "q07", "q09", "q13"]}),

    # seen in: public causal-mask helpers, a block mask `triu(ones, diagonal=1)` and a keep mask
    # `tril(ones, diagonal=0)`; here the keep recipe is given the block recipe's diagonal=1.
    "q04_keep_mask_with_the_block_diagonal": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(~keep, torch.finfo(dtype).min)
''',
    }, {"mistake": "keeps tril(..., diagonal=1) open: the first superdiagonal (key t+1 for query t) stays 0, so "
                   "every query can read the next token; only keys from t+2 on are blocked",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # plausible for this lesson: an in-place chain meant as "zero the lower triangle, fill the rest", run in
    # the order that fills everything.
    "q04_in_place_chain_fills_everything": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # keep the strict upper triangle, then put the blocked value there
    return torch.zeros(T, T, dtype=dtype, device=device).triu_(1).fill_(torch.finfo(dtype).min)
''',
    }, {"mistake": "fill_ after triu_ writes finfo.min into EVERY entry (triu_ of zeros changes nothing and "
                   "fill_ ignores the triangle), so the diagonal and the past are blocked too and every row of "
                   "A comes out uniform",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # plausible for this lesson: "add M, or add nothing" written as one conditional expression; it binds as
    # (S + M) if ... else 0, so without a mask the softmax is given the number 0.
    "q05_conditional_expression_else_zero": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    return torch.softmax(S + M if M is not None else 0, dim=-1)
''',
    }, {"mistake": "operator precedence: `S + M if M is not None else 0` means `(S + M) if ... else 0`, so with "
                   "M=None torch.softmax is called on the integer 0 and raises a TypeError; every unmasked "
                   "call (no mask, causal=False, cross-attention without M) crashes",
        "where": ["q05", "q07", "q13"]}),

    # seen in: PyTorch inductor's attention pattern (WhiteFox sfdp=7), `div.to(torch.float32)`, softmax,
    # `attn_weight.to(torch.float16)`.
    "q05_float32_softmax_cast_to_half": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    A = torch.softmax(S.to(torch.float32), dim=-1)     # stable softmax in float32
    return A.to(torch.float16)
''',
    }, {"mistake": "casts the float32 softmax back to a hard-coded float16 instead of S's dtype: float64 and "
                   "float32 scores come back as float16 weights, with only about 3 significant digits",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: PyTorch inductor's attention pattern (WhiteFox sfdp=1),
    # `torch.nn.functional.dropout(qk.softmax(dim=-1), p=dropout_p)` with `training` left at its default.
    "q07_functional_dropout_defaults_to_training": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = torch.nn.functional.dropout(attention_weights(S, M), p=0.1)    # attention dropout
    return A @ V, A
''',
    }, {"mistake": "applies torch.nn.functional.dropout to A, whose `training` argument defaults to True: "
                   "random weights are zeroed and the rest scaled by 1/0.9, so rows of A no longer sum to 1 "
                   "and O is noisy",
        "where": ["q07", "q09", "q13"]}),

    # plausible for this lesson: the formula says Q K^T, so the keys are transposed before a helper that
    # already transposes them.
    "q07_keys_transposed_before_the_helper": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K.transpose(-2, -1))          # Q K^T
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "passes K^T to scaled_scores, which transposes its second argument itself, so it computes "
                   "Q @ K (T x d_k times T x d_k): a shape error unless T == d_k, and wrong scores when it is",
        "where": ["q07", "q09", "q13"]}),

    # seen in: Raschka's LLMs-from-scratch ch. 3 forks, the "simple normalization"
    # `attn_scores_2 / attn_scores_2.sum()` of raw dot products.
    "q08_scores_normalised_without_exp": ({
        NW: '''def nadaraya_watson(q, K, V):
    w = K @ q / math.sqrt(q.shape[-1])                 # similarity of q to every key
    return (w[:, None] * V).sum(dim=0) / w.sum()
''',
    }, {"mistake": "normalises the scaled dot products themselves instead of the kernel exp(q.k / sqrt(d_k)): "
                   "the weights can be negative, the denominator can be 0, and the lesson row gives "
                   "[1, 0, 0, 0] instead of [0.870, 0.043, 0.043, 0.043]",
        "where": ["q08"]}),

    # seen in: Raschka's LLMs-from-scratch ch. 3 forks, `attn_scores_2 = torch.empty(inputs.shape[0])` then a
    # loop of `torch.dot` filling it.
    "q08_kernel_preallocated_with_empty": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.empty(K.shape[0])
    for i, k_i in enumerate(K):
        kappa[i] = torch.exp(torch.dot(q, k_i) / math.sqrt(q.shape[0]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "preallocates the kernel weights with torch.empty(T), which is float32 whatever the inputs: "
                   "float64 inputs lose precision in the weights and float16 inputs come back as float32",
        "where": ["q08"]}),

    # seen in: a GPT-lecture fork printing `softmax(wei, 0)` of the `-inf`-masked `wei`.
    "q09_lecture_mask_softmaxed_over_dim_0": ({
        AVG: '''def prefix_average_matrix(T):
    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros((T, T), dtype=torch.float64).masked_fill(tril == 0, float("-inf"))
    return torch.softmax(wei, 0)
''',
    }, {"mistake": "softmaxes the lecture's masked zeros over dim 0 (down each column) instead of along each "
                   "row: entry (t, i) becomes 1/(T - i) for t >= i, so columns sum to 1 and row t is not 1/t",
        "where": ["q09", "q10"]}),

    # plausible for this lesson: each row's sum read off the diagonal of A log2(A)^T, with torch.diagonal's
    # default dims 0 and 1, which are the last two only for a 2-D A.
    "q10_diagonal_with_default_dims": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    # entry t of diag(A logs^T) is sum_i A[t, i] log2 A[t, i]
    return -torch.diagonal(A @ logs.transpose(-2, -1))


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "torch.diagonal defaults to dim1=0, dim2=1: right for a 2-D A, but for a batched "
                   "(B, T_q, T_k) A it takes the diagonal across the batch and query axes and returns the "
                   "wrong numbers in the wrong shape",
        "where": ["q10"]}),

    # plausible for this lesson: "3 d_model d_k when d_v = d_k" generalised by factoring out d_k with a
    # true division.
    "q12_factored_with_true_division": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * d_k * (2 + d_v / d_k)        # 3 d_model d_k when d_v = d_k
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "factors d_k out with a true division, so the count is a float and, when d_k does not "
                   "divide d_v, not the exact integer (e.g. d_model=10, d_k=3, d_v=5 gives 110.00000000000001, not 110)",
        "where": ["q12"]}),

    # seen in: sd-fused's public `standard_attention`, `q @ k.transpose(1, 2)` written for (B, T, C) tensors.
    "q13_keys_transposed_on_axes_1_2": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(1, 2) / math.sqrt(Q.shape[-1])
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "transposes the keys on fixed axes 1 and 2 instead of -2 and -1: a 2-D (T', d_k) K has no "
                   "axis 2 (IndexError), and with two batch axes the wrong pair is swapped",
        "where": ["q13"]}),

    # plausible for this lesson: the right idea written out as a word instead of the option letter.
    "q16_answer_spelled_out": ({
        COMPLEXITY: '''ans_complexity = "quadratic"''',
    }, {"mistake": "answers with the word 'quadratic' instead of the letter of the option (c): not one of "
                   "a, b, c, d",
        "where": ["q16"]}),
}
