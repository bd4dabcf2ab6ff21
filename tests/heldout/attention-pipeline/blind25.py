"""Blind held-out set 25 for attention-pipeline.

Twenty-fifth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook (markdown, solution cells and public checks),
full_marks.ipynb (whose cells these replace), lesson 08, `harness.py`, blind21.py (for the format) and only
the module docstrings and variant names of blind.py .. blind24.py (so that no mistake repeats an earlier
set's form), and a short search of public attention code: the d2l `sequence_mask` / `masked_softmax` forks,
a public `DotProductAttention` that softmaxes `score.view(-1, input_size)` with `input_size = query.size(1)`,
a scaled-dot-product-attention fork whose output step reuses the score einsum
`'...ik, ...jk -> ...ij'` for the weights and the values, the PyTorch transformer tutorial's
`generate_square_subsequent_mask` (`mask.float().masked_fill(...)`), torch attention notebooks that scale by
`np.sqrt(d_k)`, and entropy helpers (`torch.log(p + eps)`, `torch.mean`). Their habits are carried into our
functions.

Round-25 emphasis: about half of the wrong variants sit in the core (scores, scaling, mask, softmax, the
pipeline) and half in the other questions (kernel smoother, prefix average, entropy, parameter count,
cross-attention, a multiple-choice answer); they pair a right idea with one wrong detail: a right formula
fed the wrong argument (a helper called with its dtype and device swapped, project_qkv called with W_K
first, torch.finfo given the tensor, a matrix-vector product with its operands swapped), an API default
(tril's diagonal, float_power's double result, .view's row length), a dtype detail (a mask made
`.float()`), a copy-pasted einsum, numpy used without its import, the lens's output taken instead of its
weights, a function that returns both totals. Three always crash, two crash unless two sizes agree, and
the rest silently return a plausible wrong value. Each wrong variant changes the cell of one question of an
otherwise full-marks notebook and holds exactly one mistake; `where` lists the questions that should lose
points (a helper reused by the pipeline may also fail the questions that call it; q09's hidden test runs
`self_attention` with zero projections). The correct variants are really correct, in unusual styles.
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
ANS_COST = "ans_complexity"

CORRECT = {
    # projections done in the "tokens as columns" space and transposed back; scores divided in place on the
    # fresh product (never on the caller's tensors).
    "column_space_projection_inplace_divide": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Xt = X.transpose(-2, -1)                        # (..., d_model, T)
    return tuple((W.transpose(-2, -1) @ Xt).transpose(-2, -1) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    S = torch.matmul(Q, K.transpose(-1, -2))        # a new tensor, so dividing in place is safe
    return S.div_(math.sqrt(Q.size(-1)))
''',
    },
    # the mask as a full block of finfo.min with the lower triangle cleared by triu.
    "full_min_triu_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(blocked, diagonal=1)          # 0 on and below the diagonal
''',
    },
    # the Question 9 lens taken literally: zero projections through the student's own pipeline.
    "prefix_from_zero_projection_pipeline": {
        AVG: '''def prefix_average_matrix(T):
    X = torch.zeros(T, 1, dtype=torch.float64)
    W0 = torch.zeros(1, 1, dtype=torch.float64)
    _, A = self_attention(X, W0, W0, W0, causal=True)
    return A
''',
    },
    # entropy with where on the products and a Python scalar branch; effective tokens with exp2.
    "where_products_exp2": {
        ENT: '''def row_entropy_bits(A):
    plogp = torch.where(A > 0, A * torch.log2(A), 0.0)     # the scalar branch keeps A's dtype
    return -plogp.sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # a prescaled query, the weighted sum as values transposed times the kernel.
    "prescaled_query_transposed_values_kernel": {
        NW: '''def nadaraya_watson(q, K, V):
    kappa = (K @ (q / math.sqrt(q.numel()))).exp()
    return V.transpose(0, 1) @ kappa / kappa.sum()
''',
    },
}

WRONG = {
    # seen in: torch attention notebooks that write `torch.matmul(q, k.transpose(-2, -1)) / np.sqrt(d_k)`
    # (and numpy-first tutorials); this notebook never imports numpy.
    "q02_np_sqrt_without_numpy_import": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / np.sqrt(d_k)
''',
    }, {"mistake": "scales with np.sqrt but numpy is never imported in the notebook (only math and torch), so "
                   "every call raises NameError; math.sqrt(d_k) is the Python-float scale the question asks for",
        "where": ["q02", "q07", "q09", "q13"]}),

    # plausible for this lesson: the open entries kept with tril, and tril's diagonal=1 taken to mean
    # "strictly below/at" -- it keeps the first superdiagonal too.
    "q04_tril_diagonal_one_leaks_next_token": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[~keep] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "keeps tril(..., diagonal=1), which also keeps the first superdiagonal: query t can see key "
                   "t+1 (the next token), and only keys from t+2 on are blocked; the open part must be "
                   "tril with diagonal=0",
        "where": ["q04", "q07", "q09"]}),

    # plausible for a numpy user: finfo called on the tensor instead of its dtype.
    "q04_finfo_of_the_tensor": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(M).min
    return M
''',
    }, {"mistake": "calls torch.finfo on the mask tensor M instead of on its dtype; torch.finfo only accepts a "
                   "floating dtype, so every call raises TypeError",
        "where": ["q04", "q07", "q09"]}),

    # seen in: a public DotProductAttention, `F.softmax(score.view(-1, input_size), dim=1).view(batch, -1,
    # input_size)` with `input_size = query.size(1)`, right only when there are as many queries as keys.
    "q05_rows_viewed_with_query_count": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    T_q = S.shape[-2]
    return torch.softmax(S.reshape(-1, T_q), dim=1).reshape(S.shape)
''',
    }, {"mistake": "flattens the scores into rows of length T_q (the number of queries) before the softmax: "
                   "the rows must have length T_k (the number of keys); with T_q != T_k each softmax runs over "
                   "pieces of different rows and the rows of A no longer sum to 1",
        "where": ["q05", "q13"]}),

    # seen in: the PyTorch transformer tutorial's generate_square_subsequent_mask (`mask.float()...`),
    # carried over to the additive mask: `.float()` makes it float32 whatever the scores' dtype.
    "q05_mask_made_float_before_adding": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M.float()
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "converts the mask with .float() before adding it: float16 scores are promoted to float32, "
                   "so A comes back in float32 instead of the input dtype (and A @ V then fails against "
                   "float16 values in the pipeline); a float64 mask's finfo.min overflows to -inf in float32, "
                   "so a fully blocked row becomes NaN instead of uniform",
        "where": ["q05", "q07", "q13"]}),

    # seen in: a public scaled_dot_product_attention fork whose output step reuses the score einsum,
    # `torch.einsum('...ik, ...jk -> ...ij', attn_weights, v)`.
    "q07_score_einsum_reused_for_the_mix": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = torch.einsum("...ik,...jk->...ij", A, V)
    return O, A
''',
    }, {"mistake": "mixes the values with the score einsum '...ik,...jk->...ij', i.e. A @ V^T: it contracts "
                   "A's key axis with V's feature axis, which raises unless T == d_v and is wrong even then; "
                   "the output is '...ik,...kj->...ij' (A @ V)",
        "where": ["q07", "q09"]}),

    # plausible for this lesson: the mask helper called positionally with device and dtype swapped.
    "q07_mask_called_with_device_before_dtype": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.device, S.dtype) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "calls causal_additive_mask(T, device, dtype) but the signature is (T, dtype, device): "
                   "torch.finfo / torch.zeros get a device where a dtype belongs and the causal pipeline raises",
        "where": ["q07", "q09"]}),

    # seen in: d2l's Nadaraya-Watson pooling writes `torch.matmul(attention_weights, y_train)` with scalar
    # values; with vector values the operands are put the other way round.
    "q08_values_matrix_times_kernel": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return torch.mv(V, kappa) / kappa.sum()
''',
    }, {"mistake": "computes torch.mv(V, kappa) (V times the kernel vector), which contracts V's value axis "
                   "with the keys: it raises unless d_v == T and is wrong even then; the weighted sum over "
                   "keys is kappa @ V (V^T kappa)",
        "where": ["q08"]}),

    # plausible for this lesson: the Question 9 lens built right, but the first element of the pair taken.
    "q09_lens_built_but_output_taken": ({
        AVG: '''def prefix_average_matrix(T):
    X = torch.zeros(T, 1, dtype=torch.float64)
    W0 = torch.zeros(1, 1, dtype=torch.float64)
    return self_attention(X, W0, W0, W0)[0]
''',
    }, {"mistake": "runs the zero-projection lens but returns self_attention(...)[0], the output O (a T x 1 "
                   "column of zeros), instead of [1], the weights A that are the prefix-average matrix",
        "where": ["q09"]}),

    # plausible for a student who half-remembers the API: float_power for 2 ** H.
    "q10_float_power_returns_double": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return torch.float_power(2, row_entropy_bits(A))
''',
    }, {"mistake": "uses torch.float_power for 2**H, which always computes and returns float64: the effective "
                   "token counts of float32 or float16 weights come back in float64, not the input dtype",
        "where": ["q10"]}),

    # plausible for this lesson: project_qkv reused for Y with the weights passed in the wrong order.
    "q13_project_called_with_w_k_first": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    _, K, V = project_qkv(Y, W_K, W_Q, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "calls project_qkv(Y, W_K, W_Q, W_V) and keeps the second output as K, which is Y @ W_Q: "
                   "the keys are projected with the query matrix instead of W_K",
        "where": ["q13"]}),

    # plausible for a student who misread the lesson: the parameter count "does not depend on T" taken as the
    # cost of the scores.
    "q16_answer_confuses_cost_with_parameter_count": ({
        ANS_COST: '''ans_complexity = "b"
''',
    }, {"mistake": "answers b (the cost depends only on d_k): that is the parameter count, which does not "
                   "depend on T; computing S takes T^2 dot products of length d_k, so the cost is quadratic (c)",
        "where": ["q16"]}),

    # plausible for a misread instruction ("with and without W_O"): the function returns both totals.
    "q12_returns_both_totals_as_a_pair": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        return n, n + d_v * d_model     # without and with W_O
    return n
''',
    }, {"mistake": "with with_output=True returns the pair (without W_O, with W_O) instead of the single "
                   "total including W_O's d_v x d_model weights",
        "where": ["q12"]}),
}
