"""Blind held-out set 32 for attention-pipeline.

Thirty-second blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`,
and without running the grader on these variants. What was read: the student-facing text and solution cells
of the master notebook, full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt` (its rank table: rank S = 2, rank Q = 2, rank K = 4, d_k = 4),
blind31.py's docstring and first lines (for the format) and only the module docstrings and variant names of
the earlier blind sets (to lean on less-touched questions and not repeat a mistake in the same form).
The multiple-choice questions (q03, q06, q14, q15, q16) already carry every wrong letter in earlier sets,
so this set spends its variants on code and number answers instead, leaning on q01, q09, q11 and q12.
Public sources searched (issues corpus): NumPy-style positional dtype in torch factory functions,
pytorch/pytorch#9186 (`torch.zeros((3, 4), torch.float32)` -> TypeError), carried into the q04 variant and
named in a comment above it.

Round 32 mix: small slips inside otherwise right code (the loop accumulator starting as an alias of the
first value row, `math.sqrt(Q.size)` without the call, keys projected from the queries instead of X,
queries projected with W_K), whole-approach mistakes (a ReLU after the projections, scores centred per row,
weights divided by the row maximum instead of the row sum, the output divided by the number of visible
tokens, a LayerNorm counted into the parameter budget, an output projection counted per Q/K/V), crashes or
wrong types from half-remembered APIs (NumPy-style positional dtype in `torch.zeros`, a NumPy round trip that
never comes back to torch, a nested Python list returned instead of a tensor) and a number answer of a
student who misread the lesson (counting the tokens that ask a question as the rank). Code shapes: loops,
comprehensions, tensordot, einsum, a small class, `masked_fill`, NumPy round trip, a dict of shapes.
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points (q09's hidden test runs `self_attention` with zero
projections, q10's public check may use the pipeline, q13 calls `scaled_scores` and `attention_weights`).
Every variant was checked against plain torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`,
the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k) with a throwaway script under /tmp before it was written down.

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
    "tensordot_comprehension_projection": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = [torch.tensordot(X, W, dims=1) for W in (W_Q, W_K, W_V)]
    return Q, K, V
''',
    },
    "class_built_masked_fill_mask": {
        MASK: '''class _Causal:
    def __init__(self, dtype, device):
        self.dtype, self.device = dtype, device

    def __call__(self, T):
        ahead = torch.ones(T, T, dtype=torch.bool, device=self.device).triu(diagonal=1)
        zeros = torch.zeros(T, T, dtype=self.dtype, device=self.device)
        return zeros.masked_fill(ahead, torch.finfo(self.dtype).min)


def causal_additive_mask(T, dtype, device=None):
    return _Causal(dtype, device)(T)
''',
    },
    "loop_kernel_smoother": {
        NW: '''def nadaraya_watson(q, K, V):
    scale = math.sqrt(q.shape[0])
    top = torch.zeros(V.shape[1], dtype=V.dtype, device=V.device)
    bottom = 0.0
    for k_i, v_i in zip(K, V):
        w = torch.exp(torch.dot(q, k_i) / scale)
        top = top + w * v_i
        bottom = bottom + w
    return top / bottom
''',
    },
    "log2_of_ones_patched_entropy_exp2": {
        ENT: '''def row_entropy_bits(A):
    safe = A.masked_fill(A == 0, 1.0)      # log2(1) = 0, so 0 log 0 counts as 0
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    "einsum_cross_attention": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...sd,dk->...sk", Y, W_K)
    V = torch.einsum("...sd,dv->...sv", Y, W_V)
    S = torch.einsum("...tk,...sk->...ts", Q, K) / math.sqrt(Q.shape[-1])
    A = attention_weights(S, M)
    return torch.einsum("...ts,...sv->...tv", A, V), A
''',
    },
    "param_count_from_shape_dict": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = {"W_Q": (d_model, d_k), "W_K": (d_model, d_k), "W_V": (d_model, d_v)}
    if with_output:
        shapes["W_O"] = (d_v, d_model)
    return sum(math.prod(s) for s in shapes.values())
''',
    },
}

WRONG = {
    "q01_relu_after_projection": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.relu(X @ W) for W in (W_Q, W_K, W_V))
''',
    }, {"mistake": "Passes Q, K and V through a ReLU after the projections: the projections are plain linear maps "
                   "Q = XW_Q, K = XW_K, V = XW_V, with no activation, so every negative entry is wrongly zeroed.",
        "where": ["q01", "q07", "q09", "q10"]}),

    "q01_keys_projected_from_queries": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = X @ W_Q
    K = Q @ W_K
    V = X @ W_V
    return Q, K, V
''',
    }, {"mistake": "Computes the keys from the queries (K = Q W_K) instead of from the input (K = X W_K); with "
                   "d_k != d_model this does not even have matching shapes, and otherwise gives wrong keys.",
        "where": ["q01", "q07", "q09", "q10"]}),

    "q02_size_method_passed_to_sqrt": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.size
    return torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
''',
    }, {"mistake": "Uses `Q.size` as if it were NumPy's attribute: in torch `size` is a method, so `math.sqrt` gets a "
                   "bound method and raises TypeError; d_k is `Q.shape[-1]` (or `Q.size(-1)`).",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    "q02_scores_centred_per_row": ({
        SCORES: '''def scaled_scores(Q, K):
    S = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    return S - S.mean(dim=-1, keepdim=True)
''',
    }, {"mistake": "Subtracts each row's mean from the scores: S is defined as QK^T / sqrt(d_k) with nothing "
                   "subtracted, so the returned score values are wrong (even if the softmax would hide the shift).",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    # NumPy lets dtype be the positional argument after the shape; torch does not (pytorch/pytorch#9186).
    "q04_dtype_passed_positionally": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros((T, T), dtype)
    rows, cols = torch.triu_indices(T, T, offset=1)
    M[rows, cols] = torch.finfo(dtype).min
    return M.to(device) if device is not None else M
''',
    }, {"mistake": "Passes the dtype positionally, NumPy style, `torch.zeros((T, T), dtype)`: torch takes only the "
                   "shape positionally (the next slot is `out`), so it raises TypeError; use `dtype=dtype`.",
        "where": ["q04", "q07", "q09", "q10"]}),

    "q05_weights_divided_by_row_max": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    E = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    return E / E.amax(dim=-1, keepdim=True)
''',
    }, {"mistake": "Normalises each exponentiated row by its maximum instead of by its sum: the largest weight "
                   "becomes 1 and the rows no longer sum to 1, so it is not a softmax.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q07_output_divided_by_visible_count": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.shape[-2]
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    if causal:
        seen = torch.arange(1, T + 1, dtype=A.dtype, device=A.device)
    else:
        seen = torch.full((T,), float(T), dtype=A.dtype, device=A.device)
    O = (A @ V) / seen[:, None]
    return O, A
''',
    }, {"mistake": "Divides each output row by the number of visible tokens, averaging twice: the softmax weights "
                   "already sum to 1, so O = A V is already the weighted average and needs no extra division.",
        "where": ["q07", "q10"]}),

    "q08_accumulator_aliases_first_value": ({
        NW: '''def nadaraya_watson(q, K, V):
    num = V[0]
    den = 0.0
    for i in range(K.shape[0]):
        w = torch.exp(K[i] @ q / math.sqrt(q.shape[-1]))
        num += w * V[i]
        den += w
    return num / den
''',
    }, {"mistake": "Starts the weighted sum at `V[0]` instead of zeros: the first value is counted once more than "
                   "its weight says, and since `V[0]` is a view the `+=` also overwrites the caller's V.",
        "where": ["q08"]}),

    "q09_returns_nested_python_list": ({
        AVG: '''def prefix_average_matrix(T):
    return [[1.0 / (t + 1) if i <= t else 0.0 for i in range(T)] for t in range(T)]
''',
    }, {"mistake": "Returns a nested Python list of the right numbers instead of a float64 torch tensor "
                   "(wrap it in `torch.tensor(..., dtype=torch.float64)`).",
        "where": ["q09"]}),

    "q10_effective_tokens_numpy_round_trip_returns_array": ({
        ENT: '''import numpy as np


def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    H = row_entropy_bits(A).detach().cpu().numpy()
    return np.power(2.0, H)
''',
    }, {"mistake": "`effective_tokens` goes through NumPy and returns a NumPy array (in float64) instead of a "
                   "torch tensor in the dtype and on the device of A; convert back with `torch.from_numpy` or "
                   "stay in torch (`2.0 ** H`).",
        "where": ["q10"]}),

    "q11_rank_counted_as_asking_tokens": ({
        RANK: '''max_rank_S = 8

# four of the five lesson tokens (was, soft, it, was) have a non-zero query, so four rows of S are non-zero
rank_S_lesson = 4
''',
    }, {"mistake": "Takes the rank of the lesson's score matrix to be the number of non-zero rows (tokens that "
                   "ask a question); those rows are linearly dependent, and the lesson's S has rank 2.",
        "where": ["q11"]}),

    "q12_layernorm_params_counted": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = d_model * d_k + d_model * d_k + d_model * d_v
    total += 2 * d_model          # LayerNorm gain and shift in front of the block
    if with_output:
        total += d_v * d_model
    return total
''',
    }, {"mistake": "Adds 2*d_model LayerNorm parameters: the question counts only the weights of W_Q, W_K, W_V "
                   "(and W_O), d_model(2d_k + d_v) [+ d_v d_model].",
        "where": ["q12"]}),

    "q12_output_projection_counted_per_qkv": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        for _ in ("Q", "K", "V"):
            n += d_v * d_model
    return n
''',
    }, {"mistake": "Counts one output projection for each of Q, K and V: there is a single W_O of d_v x d_model "
                   "applied to the attention output, so only d_v*d_model is added.",
        "where": ["q12"]}),

    "q13_queries_projected_with_w_k": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_K
    K = Y @ W_K
    V = Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Projects the queries with the key matrix (Q = X W_K) instead of W_Q, so the scores compare "
                   "keys with keys and the weights are wrong.",
        "where": ["q13"]}),
}
