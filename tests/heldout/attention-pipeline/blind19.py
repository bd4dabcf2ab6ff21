"""Nineteenth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook and full_marks.ipynb (whose cells these
replace), `harness.py`, blind18.py (for the format) and only the module docstrings and variant names of
blind.py .. blind18.py (to count which questions they touch least and not to repeat a mistake in the same
form), and a short search of public attention code: lucidrains-style multi-head attention
(`q, k, v = self.to_qkv(x).chunk(3, dim=-1)`, `self.scale = dim_head ** -0.5`), a public
`attention(q, k, v, mask)` helper that computes `att = softmax(scores)` and then returns
`torch.matmul(scores, v)`, a public `MaskedAttention.forward` that stores the masked scores under a new
name (`masked_attn_score = attn_score.masked_fill(...)`), a Stanford CS336 student's
`scaled_dot_product_attention` that casts Q, K and V `.to(torch.float32)` first, and the d2l
`masked_softmax` forks (`sequence_mask`, index-based filling). Their habits are carried into our functions.

The set leans on the questions earlier sets touched least (q01 projections, q08 kernel, q11 ranks, q12
parameter count, q13 cross-attention, q16 format) and on slips that pair a right idea with one wrong
detail: a fused projection split with chunk (right only when d_v = d_k), tensordot with the contraction
axis written as 1, a triu_indices tensor used as a single index (whole rows blocked), masked scores stored
under a new name and never used, the scores mixed instead of the weights, the kernel normalised with
F.normalize's default p=2, a `>=` guard that lets 0 * log 0 through, an entropy computed in float32, a
matrix_rank told the scores are hermitian, a `return` indented into the `if`, W_O taken as a third of the
QKV budget, a cross-attention upcast to float32 and a multiple-choice answer with its bracket. Each wrong
variant changes the cell of one question of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists the questions whose tests may fail (a helper reused by the pipeline may also fail the
questions that call it). The correct variants are really correct, in unusual styles (tensordot projections
with a `** -0.5` scale, a triu'd full mask with a functional softmax on an explicit last dim, ranks found
by experiment with a generator count, a cross-attention from swapped scores with a torch.div kernel, and
upper-case letter answers with a nan_to_num entropy and exp2). Every variant was checked against plain
torch (the full-marks cells) before it was written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
ANS_SCALE = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
ANS_COST = "ans_complexity"

CORRECT = {
    "tensordot_projection_power_scale": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # contract the last axis of X with the first axis of each weight matrix
    Q, K, V = (torch.tensordot(X, W, dims=1) for W in (W_Q, W_K, W_V))
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    scale = Q.shape[-1] ** -0.5            # a Python float, as in lucidrains' attention
    return torch.matmul(Q, K.transpose(-2, -1)) * scale
''',
    },
    "triud_full_mask_functional_softmax_last_dim": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    full = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return full.triu(1)                    # keeps the strictly-upper part, zeros on and below the diagonal
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    logits = S if M is None else S + M
    return torch.nn.functional.softmax(logits, dim=logits.dim() - 1)
''',
    },
    "experimental_rank_generator_count": {
        RANK: '''_g = torch.Generator().manual_seed(0)
max_rank_S = int(torch.linalg.matrix_rank(
    torch.randn(100, 8, generator=_g, dtype=torch.float64) @ torch.randn(8, 100, generator=_g, dtype=torch.float64)))

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = torch.linalg.matrix_rank(_Q @ _K.T / 2).item()
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(rows * cols for rows, cols in shapes)
''',
    },
    "swapped_scores_cross_div_kernel": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(K, Q).transpose(-2, -1)     # k.q = q.k, so S(K, Q) transposed is S(Q, K)
    A = attention_weights(S, M)
    return A @ V, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = (K @ q).div(math.sqrt(K.shape[-1])).exp()
    return torch.div(kappa @ V, kappa.sum())
''',
    },
    "upper_case_letters_nan_to_num_entropy": {
        ANS_SCALE: '''ans_scale = "B"''',
        ENT: '''def row_entropy_bits(A):
    plogp = A * torch.log2(A).nan_to_num(neginf=0.0)     # log2(0) = -inf becomes 0 before the product
    return -plogp.sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
}

WRONG = {
    # seen in: lucidrains-style multi-head attention, `q, k, v = self.to_qkv(x).chunk(3, dim=-1)`, where the
    # three widths are equal; here the three weight matrices are fused and chunked although d_v may differ.
    "q01_fused_weights_chunked_in_three": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    W_qkv = torch.cat([W_Q, W_K, W_V], dim=-1)      # one matmul instead of three
    return (X @ W_qkv).chunk(3, dim=-1)
''',
    }, {"mistake": "fuses the three projections and splits the result with chunk(3), which cuts it into equal "
                   "pieces: when d_v differs from d_k, Q, K and V get the wrong columns and widths",
        "where": ["q01", "q07", "q09", "q13"]}),

    # plausible for this lesson: tensordot with the contraction axis of X written as 1 (the feature axis of a
    # 2-D X), which is the token axis once there is a batch dimension.
    "q01_tensordot_over_axis_one": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # contract the feature axis of X with the input axis of each W
    Q = torch.tensordot(X, W_Q, dims=([1], [0]))
    K = torch.tensordot(X, W_K, dims=([1], [0]))
    V = torch.tensordot(X, W_V, dims=([1], [0]))
    return Q, K, V
''',
    }, {"mistake": "contracts axis 1 of X with the weights; that is the feature axis only for a 2-D X, so "
                   "batched inputs (..., T, d_model) fail (axis 1 is then the token axis)",
        "where": ["q01", "q07", "q09"]}),

    # seen in: d2l masked_softmax forks that fill masked positions by indexing (`X[~mask] = value`); here
    # torch.triu_indices' (2, N) tensor is used as ONE index, which selects whole rows.
    "q04_triu_indices_as_one_index": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    future = torch.triu_indices(T, T, offset=1, device=device)   # (row, col) pairs above the diagonal
    M[future] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "indexes the mask with the (2, N) tensor from triu_indices as a single index, which picks "
                   "whole rows (the row numbers and column numbers both read as rows) instead of the (row, col) "
                   "pairs: M[future[0], future[1]] was meant, and now past keys and the diagonal are blocked too",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # pattern seen in: a public MaskedAttention.forward that stores the masked scores under a new name,
    # `masked_attn_score = attn_score.masked_fill(...)`, next to the unmasked `attn_score`.
    "q05_masked_scores_under_new_name": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    masked_S = S
    if M is not None:
        masked_S = S + M
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "adds the mask into a new variable masked_S but takes the softmax of the unmasked S, so the "
                   "mask never has any effect (causal weights are not lower-triangular)",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: a public `attention(q, k, v, mask)` helper that computes `att = nn.Softmax(-1)(scores)` and then
    # returns `torch.matmul(scores, v)`.
    "q07_scores_mixed_instead_of_weights": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return S @ V, A
''',
    }, {"mistake": "returns S @ V, the raw scaled scores times the values, instead of A @ V: the weights are "
                   "computed but not used to mix, and future tokens leak into O",
        "where": ["q07"]}),

    # plausible for this lesson: "normalise the kernel weights" done with F.normalize, whose default is p=2
    # (unit Euclidean length), not p=1 (sum to one).
    "q08_normalize_default_p_two": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    weights = torch.nn.functional.normalize(kappa, dim=0)     # normalise the kernel weights
    return weights @ V
''',
    }, {"mistake": "normalises the kernel weights with F.normalize, whose default p=2 divides by their "
                   "Euclidean norm, so the weights do not sum to 1 (p=1, or dividing by the sum, was meant)",
        "where": ["q08"]}),

    # plausible for this lesson: the 0 log 0 guard written with >= instead of >, so zeros still reach log2.
    "q10_guard_with_greater_or_equal": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A >= 0, torch.log2(A), torch.zeros_like(A))   # probabilities are >= 0
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "guards the logarithm with A >= 0, which is true for every probability, so masked zeros "
                   "still give 0 * log2(0) = 0 * -inf = NaN in causal rows",
        "where": ["q10"]}),

    # seen in: a Stanford CS336 student's scaled_dot_product_attention that casts `q = Q.to(torch.float32)`
    # first; carried to the entropy, which is then returned in float32.
    "q10_entropy_computed_in_float32": ({
        ENT: '''def row_entropy_bits(A):
    P = A.to(torch.float32)                # work in float32 for stability
    logs = torch.where(P > 0, torch.log2(P), torch.zeros_like(P))
    return -(P * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "computes the entropy in float32 and returns it in float32 whatever the dtype of A: float64 "
                   "inputs lose precision and both float64 and float16 inputs come back in the wrong dtype",
        "where": ["q10"]}),

    # plausible for this lesson: the lesson's scores taken to be symmetric and matrix_rank told hermitian=True.
    "q11_rank_with_hermitian_true": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(_Q @ _K.T / 2, hermitian=True))   # a square score matrix
''',
    }, {"mistake": "calls matrix_rank with hermitian=True on the lesson's score matrix, which is not symmetric: "
                   "it reads only one triangle and reports rank 5 instead of 2",
        "where": ["q11"]}),

    # plausible for this lesson: the final return indented into the `if`, so without W_O nothing is returned.
    "q12_return_inside_the_if": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
        return n
''',
    }, {"mistake": "indents the return into the `if with_output:` block, so without the output projection the "
                   "function returns None",
        "where": ["q12"]}),

    # plausible for this lesson: W_O taken to be "as big as one of the three projections", a third of the total.
    "q12_output_as_a_third_of_qkv": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += n // 3                        # W_O is one more projection of the same size
    return n
''',
    }, {"mistake": "counts W_O as a third of the Q, K, V budget, which equals d_v * d_model only when d_v = d_k; "
                   "W_O is d_v x d_model",
        "where": ["q12"]}),

    # seen in: a Stanford CS336 student's scaled_dot_product_attention, `q = Q.to(torch.float32)` etc., with
    # nothing cast back.
    "q13_upcast_to_float32": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = (X @ W_Q).to(torch.float32)
    K = (Y @ W_K).to(torch.float32)
    V = (Y @ W_V).to(torch.float32)
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M.to(torch.float32)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
    }, {"mistake": "casts Q, K, V (and M) to float32 and never casts back, so O and A come back float32 for "
                   "float16 and float64 inputs (and float64 inputs lose precision)",
        "where": ["q13"]}),

    # plausible for this lesson: the multiple-choice answer copied with its bracket.
    "q16_answer_with_bracket": ({
        ANS_COST: '''ans_complexity = "c)"''',
    }, {"mistake": "answers with the option label 'c)' instead of the single letter 'c'",
        "where": ["q16"]}),
}
