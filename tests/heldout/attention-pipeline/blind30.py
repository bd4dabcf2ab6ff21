"""Blind held-out set 30 for attention-pipeline.

Thirtieth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`,
and without running the grader on these variants. What was read: the student-facing text and solution cells
of the master notebook, full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt`, blind29.py's docstring and first lines (for the format) and only the module
docstrings and variant names of the earlier blind sets (to lean on less-touched questions and not repeat a
mistake in the same form). Public sources searched (code corpus): hand-written softmax / log-softmax helpers,
e.g. ChaosAIVision/VGG16-from-scratch-Pytorch `utils/activations.py` (`x - torch.logsumexp(x, dim=1,
keepdim=True)`) and cs336 assignment `softmax` helpers (`torch.max(x, dim=dim, keepdim=True)[0]`); the
habit carried into a variant is named in a comment above it.

Round 30 mix: small slips inside otherwise right code (a `logsumexp` without `keepdim`, a query loop whose
slice stops before the query's own key, a kernel loop starting at 1, a row mean where a row sum belongs,
entropy log terms not weighted by the probabilities), whole-approach mistakes (the query/key pair counted as
one d_model x d_model bilinear matrix, the rank of a bilinear form taken as d_k squared), crashes and
surprises of half-remembered APIs (`torch.tensordot` pairing batch axes, `torch.baddbmm` on 2-D inputs,
`torch.mv(V, kappa)`, `torch.log(2)` on a Python int, one `out=` buffer reused for two projections), and a
multiple-choice answer of a student who ticks two boxes. Code shapes: loops over tokens and keys, an `out=`
buffer, tensordot, baddbmm, mv, NumPy round trips, `nn.Linear` parameter counting, in-place `div_`.
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points (helpers are reused by the pipeline; q09's hidden
test runs `self_attention` with zero projections, q10's public check uses the pipeline / prefix average).
Every variant was checked against plain torch (`torch.softmax`, `torch.nn.functional.
scaled_dot_product_attention`, the full-marks cells) on several shapes and dtypes before it was written down.

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
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

CORRECT = {
    "numpy_triu_round_trip_mask": {
        MASK: '''import numpy as np


def causal_additive_mask(T, dtype, device=None):
    # build in float64 NumPy, then hand it to torch in the requested dtype and device
    blocked = np.triu(np.full((T, T), torch.finfo(dtype).min), k=1)
    return torch.from_numpy(blocked).to(dtype=dtype, device=device)
''',
    },
    "in_place_div_scores": {
        SCORES: '''def scaled_scores(Q, K):
    head = Q.size(-1)
    return Q.matmul(K.transpose(-2, -1)).div_(math.sqrt(head))
''',
    },
    "query_loop_over_visible_prefix": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if not causal:
        A = attention_weights(S)
        return A @ V, A
    A = torch.zeros_like(S)
    for t in range(S.shape[-2]):
        # query t sees keys 0..t, itself included
        A[..., t, : t + 1] = attention_weights(S[..., t, : t + 1])
    return A @ V, A
''',
    },
    "numpy_tril_prefix_average": {
        AVG: '''import numpy as np


def prefix_average_matrix(T):
    counts = np.arange(1, T + 1, dtype=np.float64)[:, None]
    return torch.tensor(np.tril(np.ones((T, T))) / counts)
''',
    },
    "nn_linear_numel_count": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    layers = [torch.nn.Linear(d_model, d_k, bias=False),
              torch.nn.Linear(d_model, d_k, bias=False),
              torch.nn.Linear(d_model, d_v, bias=False)]
    if with_output:
        layers.append(torch.nn.Linear(d_v, d_model, bias=False))
    return sum(p.numel() for layer in layers for p in layer.parameters())
''',
    },
}

WRONG = {
    "q01_token_loop_indexes_batch_axis": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    T = X.shape[-2]
    rows = [X[t] for t in range(T)]            # one token at a time
    Q = torch.stack([x @ W_Q for x in rows])
    K = torch.stack([x @ W_K for x in rows])
    V = torch.stack([x @ W_V for x in rows])
    return Q, K, V
''',
    }, {"mistake": "loops over tokens with `X[t]`, which indexes the first axis: right for a plain (T, d_model) "
                   "input, but for a batched (..., T, d_model) input it picks batch entries instead of tokens "
                   "(wrong shape, or an IndexError when the batch is shorter than T)",
        "where": ["q01", "q07", "q09"]}),

    "q01_shared_out_buffer_aliases_queries_and_keys": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    buf = torch.empty(0, dtype=X.dtype, device=X.device)
    Q = torch.matmul(X, W_Q, out=buf)
    K = torch.matmul(X, W_K, out=buf)          # reuses the same buffer
    V = X @ W_V
    return Q, K, V
''',
    }, {"mistake": "writes both projections into one `out=` buffer, so `Q` and `K` are the same tensor and both "
                   "hold X W_K: the queries are overwritten by the keys",
        "where": ["q01", "q07", "q09"]}),

    "q02_tensordot_pairs_batch_axes": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    S = torch.tensordot(Q, K, dims=([-1], [-1]))   # contract the feature axis
    return S / math.sqrt(d_k)
''',
    }, {"mistake": "uses `torch.tensordot` over the last axis: right for 2-D inputs, but with batch dimensions it "
                   "pairs every batch of queries with every batch of keys (shape (B, T_q, B, T_k)) instead of "
                   "a batched matmul",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    "q03_two_letters_c_and_b": ({
        ANS_SCALE: '''ans_scale = "c, b"
''',
    }, {"mistake": "ticks two answers; (c) is false because the factor is not a constant shift but a scale, and "
                   "scaling the scores does change the softmax: only (b) holds",
        "where": ["q03"]}),

    # log-softmax form seen in ChaosAIVision/VGG16-from-scratch-Pytorch utils/activations.py (there with keepdim)
    "q05_logsumexp_without_keepdim": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.exp(S - torch.logsumexp(S, dim=-1))
''',
    }, {"mistake": "subtracts `torch.logsumexp(S, dim=-1)` without `keepdim=True`, so the per-row normaliser "
                   "broadcasts along the wrong axis (each column gets another row's constant; rectangular "
                   "scores crash) and the rows no longer sum to 1",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q07_query_loop_slice_stops_before_own_key": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if not causal:
        A = attention_weights(S)
        return A @ V, A
    A = torch.zeros_like(S)
    for t in range(S.shape[-2]):
        A[..., t, :t] = attention_weights(S[..., t, :t])
    return A @ V, A
''',
    }, {"mistake": "the causal loop slices keys `:t`, which stops before the query's own position: each token "
                   "cannot attend to itself and the first row is all zeros (does not sum to 1)",
        "where": ["q07", "q09", "q10"]}),

    "q08_key_loop_starts_at_one": ({
        NW: '''def nadaraya_watson(q, K, V):
    scale = math.sqrt(q.shape[-1])
    num = torch.zeros(V.shape[-1], dtype=V.dtype, device=V.device)
    den = torch.zeros((), dtype=V.dtype, device=V.device)
    for i in range(1, K.shape[0]):
        w = torch.exp(torch.dot(q, K[i]) / scale)
        num = num + w * V[i]
        den = den + w
    return num / den
''',
    }, {"mistake": "the loop over keys starts at index 1, so the first key/value pair never enters the weighted "
                   "average (and a single key gives 0/0)",
        "where": ["q08"]}),

    "q08_mv_with_values_untransposed": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.mv(K, q) / math.sqrt(q.numel()))
    return torch.mv(V, kappa) / kappa.sum()
''',
    }, {"mistake": "mixes the values with `torch.mv(V, kappa)`; V is (T, d_v), so it needs `V.T` (or `kappa @ V`): "
                   "crashes when d_v != T and, when d_v == T, sums over the wrong axis",
        "where": ["q08"]}),

    "q09_divided_by_row_mean": ({
        AVG: '''def prefix_average_matrix(T):
    L = torch.ones(T, T, dtype=torch.float64).tril()
    return L / L.mean(dim=1, keepdim=True)
''',
    }, {"mistake": "divides each row by its mean over all T columns instead of its sum (the count t), so row t "
                   "holds T/t instead of 1/t and the rows sum to T",
        "where": ["q09", "q10"]}),

    "q10_torch_log_of_python_int": ({
        ENT: '''def row_entropy_bits(A):
    safe = torch.where(A > 0, A, torch.ones_like(A))
    log2A = torch.log(safe) / torch.log(2)     # change of base
    return -(A * log2A).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "changes base with `torch.log(2)`, but torch.log needs a tensor, not a Python int: TypeError "
                   "(use math.log(2) or torch.log2)",
        "where": ["q10"]}),

    "q10_log_terms_not_weighted_by_probabilities": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -logs.sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "sums -log2 A over the row without weighting each term by its probability A, so it is not the "
                   "entropy (a uniform row of t keys gives t log2 t instead of log2 t)",
        "where": ["q10"]}),

    "q11_max_rank_d_k_squared": ({
        RANK: '''# every one of the 8 query directions can pair with every one of the 8 key directions
max_rank_S = 8 * 8

rank_S_lesson = 2
''',
    }, {"mistake": "takes the rank bound as d_k * d_k = 64; S = QK^T factors through a d_k-dimensional space, so "
                   "its rank is at most min(T, d_k) = 8",
        "where": ["q11"]}),

    "q12_qk_counted_as_one_model_square_matrix": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # the scores only use W_Q W_K^T, one d_model x d_model bilinear matrix
    n = d_model * d_model + d_model * d_v
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "counts W_Q and W_K as their product W_Q W_K^T (d_model x d_model) instead of two "
                   "d_model x d_k matrices: the learned weights are 2 d_model d_k + d_model d_v",
        "where": ["q12"]}),

    "q13_baddbmm_on_two_dim_inputs": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    base = torch.zeros(Q.shape[-2], K.shape[-2], dtype=Q.dtype, device=Q.device) if M is None else M
    S = torch.baddbmm(base, Q, K.transpose(-2, -1), alpha=1 / math.sqrt(Q.shape[-1]))
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
    }, {"mistake": "folds mask and scaled scores into `torch.baddbmm`, which only takes 3-D batches: plain "
                   "(T, d_model) inputs crash, and deeper batch dimensions crash too",
        "where": ["q13"]}),
}
