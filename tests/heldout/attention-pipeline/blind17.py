"""Seventeenth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook and full_marks.ipynb, Lesson 08 (for the
hand-crafted Q and K and their ranks), `harness.py`, the module docstrings of blind.py .. blind16.py (and the
name constants of blind16.py, for the format) and
only the variant names of those sets (to count which questions they touch least and not to repeat a mistake
in the same form), and a short search of public attention code: Karpathy's nanoGPT lecture and its
follow-alongs (`B, T, C = x.shape` in `Head.forward`, `wei.masked_fill(tril == 0, ...)` and nanoGPT issue
#170 "I missed the == 0"), the diffusion-model `QKVAttention` (`scale = 1 / math.sqrt(math.sqrt(ch))`
applied to both q and k), the Annotated Transformer's `scores.masked_fill(mask == 0, -1e9)`, d2l's
`sequence_mask` (`X[~mask] = value`, written into the caller's tensor), the Annotated Transformer's
`mask.unsqueeze(1)` and `.view(nbatches * ...)`/`logits.view(B*T, C)` flattening, and entropy code that
clamps probabilities with `1e-12`. Their habits are carried into our functions.

The set leans on the questions earlier sets touched least (q01 projections, q11 ranks, q12 parameter count,
q09 prefix matrix, q13 cross-attention) and on slips that pair a right idea with one wrong detail: a batch
flattened and never restored, the lesson's -1e9 filled into float16 scores, the 1/sqrt(d_k) put on both
sides, a float tril handed to masked_fill, a stable softmax shifted in place, a float16 epsilon that
underflows, a rank taken after the mask, a flipped default argument, a mask unsqueezed for a batch that is
not there, the scale taken from the value width. Each wrong variant changes the cells of one question of an
otherwise full-marks notebook and holds exactly one mistake; `where` lists the questions whose tests may
fail (a helper reused by the pipeline may also fail the questions that call it). The correct variants are
really correct, in unusual styles (ellipsis einsum scores, a `full(...).triu` mask, a masked_fill shift
inside the log, a tril of reciprocal row numbers, a fused key/value projection split by sizes, letters
picked by indexing). Every variant was checked against plain torch before it was written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
PREFIX = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

CORRECT = {
    "ellipsis_einsum_scores_full_triu_mask": {
        SCORES: '''def scaled_scores(Q, K):
    # "...qd,...kd" contracts the feature axis and keeps any batch dimensions
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(K.size(-1))
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return blocked.triu(diagonal=1)
''',
    },
    "masked_fill_shift_entropy_exp2": {
        ENT: '''def row_entropy_bits(A):
    safe = A.masked_fill(A == 0, 1.0)          # log2(1) = 0, so 0 log 0 counts as 0
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    "tril_of_reciprocal_row_numbers": {
        PREFIX: '''def prefix_average_matrix(T):
    inv_t = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(inv_t[:, None].expand(T, T))
''',
    },
    "fused_key_value_split_by_sizes_cross": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    d_k, d_v = W_K.shape[-1], W_V.shape[-1]
    K, V = (Y @ torch.cat([W_K, W_V], dim=-1)).split([d_k, d_v], dim=-1)
    S = scaled_scores(X @ W_Q, K)
    A = attention_weights(S, M)
    return torch.matmul(A, V), A
''',
    },
    "letters_by_index_param_conditional": {
        "ans_scale": 'ans_scale = "abcd"[1]\n',
        "ans_cross_shapes": 'ans_cross_shapes = "abcd"[1]\n',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    widths = [d_k, d_k, d_v] + ([d_v] if with_output else [])
    return sum(d_model * w for w in widths)
''',
    },
}

WRONG = {
    # seen in: the Annotated Transformer / nanoGPT habit of flattening (B, T, C) to (B*T, C) with
    # `.view(-1, C)`; here the rows are never put back into their batch.
    "q01_batch_flattened_into_rows": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    rows = X.reshape(-1, X.shape[-1])      # every token one row of a 2-D matrix
    return rows @ W_Q, rows @ W_K, rows @ W_V
''',
    }, {"mistake": "flattens the batch dimensions into one long list of tokens and never reshapes Q, K, V "
                   "back, so batched inputs come out (B*T, d) and later mix tokens across sequences",
        "where": ["q01", "q07", "q09"]}),

    # seen in: the diffusion-model QKVAttention, `scale = 1 / math.sqrt(math.sqrt(ch))` applied to q and
    # k; here the student keeps the idea of scaling both sides but uses the full 1/sqrt(d_k) on each.
    "q02_both_sides_scaled_by_sqrt": ({
        SCORES: '''def scaled_scores(Q, K):
    scale = 1 / math.sqrt(Q.shape[-1])
    return (Q * scale) @ (K * scale).transpose(-2, -1)
''',
    }, {"mistake": "scales both Q and K by 1/sqrt(d_k), so the scores are divided by d_k instead of sqrt(d_k)",
        "where": ["q02", "q07", "q13"]}),

    # seen in: nanoGPT `wei.masked_fill(tril == 0, float('-inf'))` and issue #170 ("I missed the == 0");
    # here the float triu of ones is handed to masked_fill directly as if it were a boolean mask.
    "q04_float_triu_as_fill_mask": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(future, torch.finfo(dtype).min)
''',
    }, {"mistake": "passes a float tensor of ones and zeros as the mask of masked_fill, which needs a boolean "
                   "mask (future == 1 or dtype=torch.bool), so building the mask raises an error",
        "where": ["q04", "q07", "q09"]}),

    # seen in: d2l `sequence_mask`, `X[~mask] = value`, which writes into the caller's tensor; here the
    # max shift of a hand-written stable softmax is done in place on the caller's scores.
    "q05_max_shift_done_in_place": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    S -= S.amax(dim=-1, keepdim=True)      # stable softmax: shift each row by its max
    E = torch.exp(S)
    return E / E.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "shifts the scores by their row maximum in place; when no mask is given S is still the "
                   "caller's tensor, so the function overwrites its input",
        "where": ["q05"]}),

    # seen in: nanoGPT lecture `Head.forward`, `B, T, C = x.shape`, which assumes a batch dimension.
    "q07_unpacks_batch_time_channels": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    B, T, C = X.shape
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "unpacks X.shape into exactly three names (B, T, C), so an unbatched (T, d_model) input, "
                   "or one with more than one batch dimension, raises an error",
        "where": ["q07", "q09"]}),

    # plausible for this lesson: the dot product as an elementwise product and a sum, over the wrong axis.
    "q08_dot_product_summed_over_keys": ({
        NW: '''def nadaraya_watson(q, K, V):
    scores = (K * q).sum(dim=0) / math.sqrt(q.shape[-1])
    kappa = torch.exp(scores)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "computes the query-key dot products as (K * q).sum(dim=0), summing over the keys instead "
                   "of over the d_k features, so there is one 'weight' per feature and not one per key",
        "where": ["q08"]}),

    # plausible for this lesson: the mask's triu(..., diagonal=1) carried over to the tril.
    "q09_tril_with_diagonal_one": ({
        PREFIX: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64), diagonal=1)
    return W / W.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "uses torch.tril(..., diagonal=1), which keeps one entry above the diagonal, so row t "
                   "averages the first t+1 tokens (it reads the next token)",
        "where": ["q09"]}),

    # seen in: entropy code that clamps probabilities with `p.clamp(min=1e-12)` before the log; the
    # constant is below float16's smallest subnormal, so it rounds to 0 there.
    "q10_clamp_epsilon_underflows_in_half": ({
        ENT: '''def row_entropy_bits(A):
    return -(A * torch.log2(A.clamp(min=1e-12))).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "guards the log with clamp(min=1e-12), which is 0 in float16, so masked zeros still give "
                   "0 * log2(0) = NaN for float16 weights",
        "where": ["q10"]}),

    # plausible for this lesson: the rank measured on the masked scores that the softmax sees.
    "q11_rank_of_masked_scores": ({
        RANK: '''max_rank_S = 8

_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]],
                  dtype=torch.float64)
_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
                  dtype=torch.float64)
_M = torch.triu(torch.full((5, 5), -1e9, dtype=torch.float64), diagonal=1)   # the lesson's mask
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q, _K) + _M))
''',
    }, {"mistake": "measures the rank of the masked scores S + M instead of S; the mask makes the matrix "
                   "triangular and full rank (5), while S itself has rank 2",
        "where": ["q11"]}),

    # plausible for this lesson: the default of the keyword argument flipped.
    "q12_output_default_true": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=True):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "gives with_output a default of True, so a call without the flag also counts W_O",
        "where": ["q12"]}),

    # seen in: the Annotated Transformer, `mask = mask.unsqueeze(1)  # same mask for all heads`; here the
    # mask is unsqueezed for a batch that an unbatched call does not have.
    "q13_mask_unsqueezed_for_batch": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is not None:
        M = M.unsqueeze(0)                 # same mask for every sequence of the batch
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "unsqueezes the mask to add a batch axis, so with an unbatched X and Y (or a mask that "
                   "already has the batch) O and A gain an extra leading dimension",
        "where": ["q13"]}),

    # plausible for this lesson: the head width read off the value side.
    "q13_scaled_by_value_width": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(V.shape[-1])
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "divides the cross-attention scores by sqrt(d_v), the value width, instead of sqrt(d_k)",
        "where": ["q13"]}),

    # seen in: the Annotated Transformer, `scores.masked_fill(mask == 0, -1e9)`; here the additive mask is
    # read as "blocked where nonzero" (right) and filled with the lesson's -1e9 (not a float16 number).
    "q13_blocked_keys_filled_with_minus_1e9": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S.masked_fill(M != 0, -1e9)    # blocked keys get the lesson's -1e9
    A = attention_weights(S)
    return A @ V, A
''',
    }, {"mistake": "fills the blocked keys with the lesson's -1e9 instead of using the mask's own "
                   "finfo(dtype).min; -1e9 cannot be stored in float16, so a float16 call with a mask fails",
        "where": ["q13"]}),

    # plausible for this lesson: the kernel computed in float64 "so exp cannot overflow", never cast back.
    "q08_kernel_upcast_to_float64": ({
        NW: '''def nadaraya_watson(q, K, V):
    s = (K.double() @ q.double()) / math.sqrt(q.shape[-1])   # float64 so exp cannot overflow
    kappa = torch.exp(s)
    return (kappa[:, None] * V.double()).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "computes the kernel smoother in float64 and returns float64 whatever the input dtype",
        "where": ["q08"]}),
}
