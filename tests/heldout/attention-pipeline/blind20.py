"""Twentieth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook (markdown, solution cells and public checks)
and full_marks.ipynb (whose cells these replace), `harness.py`, blind19.py (for the format) and only the
module docstrings and variant names of blind.py .. blind19.py (to count which questions they touch least and
not to repeat a mistake in the same form), and a short search of public attention code: nanoGPT's fused
`c_attn(x).split(n_embd, dim=2)`, Karpathy's GPT lecture ("the mathematical trick": `wei = torch.zeros((T, T))`,
`masked_fill(tril == 0, float('-inf'))`, `softmax`, all in the default dtype, and `nn.Linear(..., bias=False)`
heads), a CS336 student's `scaled_dot_product_attention(K, Q, V, mask)` with its first two parameters in
K, Q order, a CS336 self-study `pertoken_entropy` built from `log_softmax` of logits, a public
`attention_functions` file whose `if mem_mask is None:` guards the `masked_fill`, TapNet's
`rank(A, atol=1e-13)` that counts singular values above a fixed tolerance, and nn.Transformer's
`generate_square_subsequent_mask` helper (float32, -inf, as discussed in pytorch issue 29546).
Their habits are carried into our functions.

The set leans on the code questions earlier sets touched least (q01 projections, q02 scores, q11 ranks, q12
parameter count, q13 cross-attention) and on slips that pair a right idea with one wrong detail: a fused
projection split on dim=2 (only a batched X has one), an integer square root (right for d_k = 4, 16, 64),
parameters declared as (K, Q), a None test turned round, the lecture's prefix average left in float32, row
counts broadcast over the columns, 2 ** H written as exp, probabilities fed to log_softmax as if they were
logits, a float64 tolerance used on float32 singular values, nn.Linear's default bias counted, values taken
from X in cross-attention, a mask tested for truthiness, a max shift written with max(dim=0) (which returns a
pair), and the library causal mask in its default float32. Each wrong variant changes the cell of one question
of an otherwise full-marks notebook and holds exactly one mistake; `where` lists the questions whose tests may
fail (a helper reused by the pipeline may also fail the questions that call it). The correct variants are
really correct, in unusual styles (map over the weights and a relative singular-value tolerance, the
nn.Transformer-style mask built from triu + transpose, a prefix average from a cumulative identity with a
masked-log entropy and torch.pow, a count with a bool factor next to a cross-attention in plain matmuls, and
a max-shifted kernel with a 0.0 "mask" for non-causal self-attention). Every variant was checked against plain
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
    "map_projection_relative_svd_rank": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = map(X.matmul, (W_Q, W_K, W_V))     # the same right-multiplication, three times
    return Q, K, V
''',
        RANK: '''max_rank_S = min(8, 100)     # rank S <= min(d_k, T)

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_s = torch.linalg.svdvals(_Q @ _K.mT / math.sqrt(4))
rank_S_lesson = int((_s > _s[0] * 1e-10).sum())   # singular values that are not rounding noise
''',
    },
    "transformer_helper_style_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # the nn.Transformer recipe: triu of ones, compared with 1, transposed -> True where the key is visible
    allowed = (torch.triu(torch.ones(T, T, device=device)) == 1).transpose(0, 1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(~allowed, torch.finfo(dtype).min)
''',
    },
    "eye_cumsum_prefix_masked_log_entropy": {
        AVG: '''def prefix_average_matrix(T):
    ones_below = torch.eye(T, dtype=torch.float64).cumsum(dim=0)    # row t: ones in columns 0..t
    return ones_below / ones_below.sum(dim=1, keepdim=True)
''',
        ENT: '''def row_entropy_bits(A):
    log2A = A.log2().masked_fill(A == 0, 0.0)        # 0 log 0 = 0
    return (A * log2A).sum(dim=-1).neg()


def effective_tokens(A):
    return torch.pow(2, row_entropy_bits(A))
''',
    },
    "bool_factor_count_plain_matmul_cross": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (d_k + d_k + d_v) + int(with_output) * d_v * d_model
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.matmul(X, W_Q)
    K = torch.matmul(Y, W_K)
    V = torch.matmul(Y, W_V)
    S = torch.matmul(Q, K.transpose(-1, -2)) / math.sqrt(Q.size(-1))
    A = torch.softmax(S if M is None else S + M, dim=-1)
    return torch.matmul(A, V), A
''',
    },
    "shifted_kernel_zero_mask_when_not_causal": {
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.numel())
    w = torch.exp(s - s.max())             # the shift cancels in the ratio
    return (w @ V) / w.sum()
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = S.shape[-1]
    M = causal_additive_mask(T, S.dtype, S.device) if causal else 0.0    # adding 0.0 changes nothing
    A = attention_weights(S, M)
    return A @ V, A
''',
    },
}

WRONG = {
    # seen in: nanoGPT's CausalSelfAttention, `q, k, v = self.c_attn(x).split(self.n_embd, dim=2)`, where x is
    # always (B, T, C); here the split sizes are right but the axis is written as 2.
    "q01_fused_split_on_dim_two": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    W = torch.cat([W_Q, W_K, W_V], dim=1)          # (d_model, 2 d_k + d_v): one matmul, like c_attn
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    return (X @ W).split([d_k, d_k, d_v], dim=2)
''',
    }, {"mistake": "splits the fused projection along dim=2, which is the feature axis only for a 3-D (B, T, "
                   "d_model) input: a plain (T, d_model) X has no axis 2 and 4-D inputs are split along the "
                   "tokens (dim=-1 was meant)",
        "where": ["q01", "q07", "q09"]}),

    # plausible for this lesson: the square root taken with math.isqrt, exact for the lesson's d_k = 4.
    "q02_integer_square_root": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / math.isqrt(d_k)
''',
    }, {"mistake": "divides by math.isqrt(d_k), the integer square root, which equals sqrt(d_k) only when d_k "
                   "is a perfect square (d_k = 8 is divided by 2, d_k = 3 by 1)",
        "where": ["q02", "q07", "q13"]}),

    # seen in: a CS336 student's `scaled_dot_product_attention(K, Q, V, mask)`, whose first two parameters are
    # declared in K, Q order while callers pass Q first.
    "q02_parameters_in_k_q_order": ({
        SCORES: '''def scaled_scores(K, Q):
    d_k = K.shape[-1]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "declares the parameters as (K, Q) although callers pass (Q, K), so it computes K Q^T / "
                   "sqrt(d_k), the transposed score matrix, of shape (T_k, T_q) instead of (T_q, T_k)",
        "where": ["q02", "q07", "q13"]}),

    # seen in: a public attention_functions file, `if mem_mask is None: score = score.masked_fill(mem_mask == 0,
    # -1e18)`, where `is not None` was meant.
    "q05_none_check_inverted": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is None:
        S = S + M
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "tests `if M is None` instead of `is not None`: without a mask it tries S + None and "
                   "crashes, and a given mask is never added",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: nn.Transformer.generate_square_subsequent_mask, copied into many public repos (pytorch issue 29546
    # is about it), which builds a float32 mask of -inf and 0 unless a dtype is passed.
    "q07_library_mask_in_default_dtype": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = torch.nn.Transformer.generate_square_subsequent_mask(X.shape[-2]) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "uses nn.Transformer's causal mask without passing dtype, so the mask is float32 and adding "
                   "it promotes float16 scores to float32: O and A come back in the wrong dtype for float16 "
                   "inputs",
        "where": ["q07", "q09", "q10"]}),

    # plausible for this lesson: a stable kernel shift written with s.max(dim=0), which returns a (values,
    # indices) pair rather than a number.
    "q08_max_shift_with_dim_returns_pair": ({
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    kappa = torch.exp(s - s.max(dim=0))      # shift for stability; it cancels in the ratio
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "subtracts s.max(dim=0), which returns a (values, indices) named tuple, not a tensor, so "
                   "the subtraction raises a TypeError (s.max() or s.max(dim=0).values was meant)",
        "where": ["q08"]}),

    # seen in: Karpathy's GPT lecture, version 3 of "the mathematical trick in self-attention":
    # `tril = torch.tril(torch.ones(T, T)); wei = torch.zeros((T, T)); wei = wei.masked_fill(tril == 0,
    # float('-inf')); wei = F.softmax(wei, dim=-1)`, all in the default float32.
    "q09_lecture_softmax_in_default_dtype": ({
        AVG: '''def prefix_average_matrix(T):
    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros((T, T))
    wei = wei.masked_fill(tril == 0, float("-inf"))
    return torch.softmax(wei, dim=-1)
''',
    }, {"mistake": "builds the matrix as in the lecture, in the default float32, so it is not float64 and "
                   "1/3, 1/5, ... are only float32-accurate",
        "where": ["q09"]}),

    # plausible for this lesson: dividing the ones by the row numbers without turning them into a column, so
    # the broadcast divides each column j by j + 1.
    "q09_row_counts_not_unsqueezed": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    counts = torch.arange(1, T + 1, dtype=torch.float64)     # row t holds t ones
    return W / counts
''',
    }, {"mistake": "divides by the (T,) vector of row counts, which broadcasts along the last axis and divides "
                   "column j by j + 1 instead of row t by t (counts[:, None] was meant); rows do not sum to 1",
        "where": ["q09"]}),

    # plausible for this lesson: "effective number" written with torch.exp (as for nats) on an entropy in bits.
    "q10_effective_tokens_with_exp": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return torch.exp(row_entropy_bits(A))
''',
    }, {"mistake": "computes the effective number of tokens as e^H although H is in bits; it must be 2^H "
                   "(e^H with H in bits gives e.g. 3.73 instead of 4 for a uniform row over 4 keys)",
        "where": ["q10"]}),

    # seen in: a CS336 self-study `pertoken_entropy(logits)`: `log_prob = F.log_softmax(logits, dim=-1)`,
    # `-(log_prob.exp() * log_prob).sum(-1)`; here applied to A, which already holds probabilities.
    "q10_probabilities_fed_to_log_softmax": ({
        ENT: '''def row_entropy_bits(A):
    log_p = torch.nn.functional.log_softmax(A, dim=-1)      # stable log-probabilities, no log(0)
    return -(log_p.exp() * log_p).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "treats the weights A as logits and takes log_softmax of them, so it measures the entropy of "
                   "softmax(A), not of A (masked zeros even get weight again): log2(A) itself was needed",
        "where": ["q10"]}),

    # seen in: TapNet's `rank(A, atol=1e-13)` (count singular values >= tol), a float64 tolerance; here the lesson
    # tensors are typed without a dtype (float32), where rounding leaves singular values near 1e-8.
    "q11_float64_tolerance_on_float32_svd": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]])
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]])
_s = torch.linalg.svdvals(_Q @ _K.T / 2)
rank_S_lesson = int((_s >= 1e-13).sum())     # singular values that are not zero
''',
    }, {"mistake": "counts singular values above an absolute tolerance of 1e-13 on a float32 score matrix, where "
                   "rounding leaves a singular value near 3e-8: it reports rank 3 instead of 2 (a relative, "
                   "dtype-aware tolerance such as matrix_rank's default was needed)",
        "where": ["q11"]}),

    # seen in: Karpathy's GPT lecture heads, `nn.Linear(n_embd, head_size, bias=False)`; here the layers are
    # built to count their parameters and bias=False is left out.
    "q12_linear_layers_keep_default_bias": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    make = lambda n_in, n_out: torch.nn.Linear(n_in, n_out, device="meta")   # shapes only, no memory
    layers = [make(d_model, d_k), make(d_model, d_k), make(d_model, d_v)]
    if with_output:
        layers.append(make(d_v, d_model))
    return sum(p.numel() for layer in layers for p in layer.parameters())
''',
    }, {"mistake": "counts the parameters of nn.Linear layers built with the default bias=True, so every "
                   "matrix adds a bias vector (2 d_k + d_v more, and d_model more with W_O)",
        "where": ["q12"]}),

    # plausible for this lesson: the self-attention line copied and only the keys switched to Y.
    "q13_values_from_x": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, X @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "projects the values from X instead of Y: A mixes T' value rows but gets T rows of X, so it "
                   "fails when T differs from T' and gives the wrong output when they are equal",
        "where": ["q13"]}),

    # plausible for this lesson: the optional mask tested with `if M:`, which asks a tensor for its truth value.
    "q13_mask_tested_for_truth": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M:
        S = S + M
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
    }, {"mistake": "tests the optional mask with `if M:` instead of `if M is not None:`; for a (T, T') mask "
                   "the truth value of a tensor is ambiguous and it raises, so any given mask crashes",
        "where": ["q13"]}),
}
