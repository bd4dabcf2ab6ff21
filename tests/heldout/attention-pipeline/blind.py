"""Blind held-out submissions for attention-pipeline (Lesson 08, issue 21), written without reading the
grader's catalogue of misconceptions, its hidden tests or the reference solution: only the lesson, the
student template and full_marks.ipynb. Same cell-replacement format as `variants.py` (see
`tests/heldout/harness.py`), except that each wrong variant says its mistake in plain English instead of a
catalogue key:

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}

`where` lists the questions where points should be lost. `self_attention` (q07, and q09's zero-projection
check) calls project_qkv, scaled_scores, causal_additive_mask and attention_weights; `cross_attention`
(q13) calls scaled_scores and attention_weights, so a broken helper also costs those questions."""

CORRECT = {
    # einsum projections and scores; the scale as a negative power
    "einsum": {
        "project_qkv": '''
def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...td,dk->...tk", X, W_K)
    V = torch.einsum("...td,dv->...tv", X, W_V)
    return (Q, K, V)
''',
        "scaled_scores": '''
def scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K) * Q.shape[-1] ** -0.5
'''},
    # the mask from torch.where on a boolean triangle; softmax by hand with a row max, in float32 for half
    "where_mask_manual_softmax": {
        "causal_additive_mask": '''
def causal_additive_mask(T, dtype, device=None):
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(future, blocked, torch.zeros((), dtype=dtype, device=device))
''',
        "attention_weights": '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    work = Z.float() if Z.dtype in (torch.float16, torch.bfloat16) else Z
    work = work - work.amax(dim=-1, keepdim=True)
    e = torch.exp(work)
    return (e / e.sum(dim=-1, keepdim=True)).to(Z.dtype)
'''},
    # self/cross attention written out in full, without calling the helpers
    "inline_pipelines": {
        "self_attention": '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(K.shape[-1])
    if causal:
        T = S.shape[-1]
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=S.device), diagonal=1)
        S = S + torch.zeros(T, T, dtype=S.dtype, device=S.device).masked_fill(future, torch.finfo(S.dtype).min)
    A = torch.softmax(S, dim=-1)
    O = torch.matmul(A, V)
    return O, A
''',
        "cross_attention": '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.matmul(X, W_Q)
    K = torch.matmul(Y, W_K)
    V = torch.matmul(Y, W_V)
    S = torch.matmul(Q, K.mT) / math.sqrt(Q.size(-1))
    if M is not None:
        S = S + M
    A = S.softmax(dim=-1)
    return A @ V, A
'''},
    # Nadaraya-Watson through a softmax of the kernel exponents (same ratio, no overflow)
    "nw_softmax": {"nadaraya_watson": '''
def nadaraya_watson(q, K, V):
    logits = (K @ q) / math.sqrt(K.shape[-1])
    w = torch.softmax(logits, dim=0)
    return w @ V
'''},
    # prefix average by dividing by the row index; entropy with entr and ln 2; exp2
    "arange_entr_exp2": {
        "prefix_average_matrix": '''
def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)     # (T, 1): row t holds 1/t
    return torch.ones(T, T, dtype=torch.float64).tril() / counts
''',
        "row_entropy_bits": '''
def row_entropy_bits(A):
    return torch.special.entr(A).sum(-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''},
    # entropy with nan_to_num on 0 * log 0; param count written per matrix
    "nan_to_num_entropy_param_sum": {
        "row_entropy_bits": '''
def row_entropy_bits(A):
    terms = torch.nan_to_num(A * torch.log2(A), nan=0.0)
    return -terms.sum(dim=-1)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
        "qkv_param_count": '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    sizes = [d_model * d_k, d_model * d_k, d_model * d_v]
    if with_output:
        sizes.append(d_v * d_model)
    return sum(sizes)
'''},
    # the mask made by index comparison; softmax via logsumexp
    "index_mask_logsumexp": {
        "causal_additive_mask": '''
def causal_additive_mask(T, dtype, device=None):
    i = torch.arange(T, device=device)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(i[None, :] > i[:, None], torch.finfo(dtype).min)
''',
        "attention_weights": '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.exp(S - torch.logsumexp(S, dim=-1, keepdim=True))
'''},
    # answers written as computed expressions
    "computed_answers": {
        "max_rank_S": '''
max_rank_S = min(8, 100)

rank_S_lesson = int(2)
''',
        "ans_scale": '''
ans_scale = "b"
'''},
}

WRONG = {
    "q01_keys_from_query_matrix": ({"project_qkv": '''
def project_qkv(X, W_Q, W_K, W_V):
    Q = X @ W_Q
    K = X @ W_Q          # copied from the line above
    V = X @ W_V
    return Q, K, V
'''}, {"mistake": "projects the keys with W_Q instead of W_K (copy-paste)", "where": ["q01", "q07"]}),

    "q02_dot_T_batched": ({"scaled_scores": '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q @ K.T / math.sqrt(d_k)
'''}, {"mistake": "uses K.T, which reverses every dimension of batched inputs instead of swapping the last "
                  "two", "where": ["q02", "q07", "q09", "q13"]}),

    "q02_integer_exponent": ({"scaled_scores": '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / d_k ** (1 // 2)     # 1 // 2 == 0, so this divides by 1
'''}, {"mistake": "writes the exponent as 1 // 2, which is 0, so the scores are not scaled at all",
       "where": ["q02", "q07", "q13"]}),

    "q03_answer_flatter": ({"ans_scale": '''
ans_scale = "a"
'''}, {"mistake": "thinks removing the scale flattens the rows (entropy rises)", "where": ["q03"]}),

    "q04_mask_in_default_dtype": ({"causal_additive_mask": '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), torch.finfo(dtype).min, device=device)   # default dtype: float32
    return torch.triu(M, diagonal=1)
'''}, {"mistake": "builds the mask in the default float32 dtype whatever `dtype` asks (float64's min becomes "
                  "-inf, float16 scores are promoted to float32)", "where": ["q04", "q07", "q09"]}),

    "q04_boolean_mask": ({"causal_additive_mask": '''
def causal_additive_mask(T, dtype, device=None):
    return torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
'''}, {"mistake": "returns a boolean 'future' mask instead of an additive float mask, so S + M adds 1 to the "
                  "blocked scores", "where": ["q04", "q07", "q09"]}),

    "q05_scores_modified_in_place": ({"attention_weights": '''
def attention_weights(S, M=None):
    if M is not None:
        S += M                      # changes the caller's score tensor
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "adds the mask to the caller's score tensor in place", "where": ["q05"]}),

    "q05_softmax_dim1": ({"attention_weights": '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=1)      # the key axis of a 2-D S, the query axis of a batched one
'''}, {"mistake": "takes the softmax over dim=1, which is the key axis only for 2-D inputs (batched inputs "
                  "get column-normalised weights)", "where": ["q05", "q07", "q09", "q13"]}),

    "q05_tensor_truthiness": ({"attention_weights": '''
def attention_weights(S, M=None):
    if M:
        S = S + M
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "tests `if M:` on a tensor, which raises for any mask with more than one entry",
       "where": ["q05", "q07", "q09", "q13"]}),

    "q07_causal_flag_ignored": ({"self_attention": '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device)
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "always applies the causal mask, ignoring causal=False", "where": ["q07"]}),

    "q07_returns_weights_first": ({"self_attention": '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A, A @ V
'''}, {"mistake": "returns (A, O) instead of (O, A)", "where": ["q07", "q09"]}),

    "q07_mask_size_from_batch_dim": ({"self_attention": '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[0], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''}, {"mistake": "sizes the causal mask from X.shape[0], the batch size for batched inputs, instead of T",
       "where": ["q07", "q09"]}),

    "q08_kernel_unscaled": ({"nadaraya_watson": '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''}, {"mistake": "leaves the 1/sqrt(d_k) out of the kernel exponent", "where": ["q08"]}),

    "q08_mean_not_ratio": ({"nadaraya_watson": '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).mean(dim=0)
'''}, {"mistake": "averages kappa-weighted values over the keys instead of dividing by the sum of the kernel "
                  "weights", "where": ["q08"]}),

    "q09_float32": ({"prefix_average_matrix": '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T))
    return W / W.sum(dim=-1, keepdim=True)
'''}, {"mistake": "returns a float32 matrix instead of float64", "where": ["q09"]}),

    "q09_divides_columns": ({"prefix_average_matrix": '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / torch.arange(1, T + 1, dtype=torch.float64)     # broadcasts along the columns
'''}, {"mistake": "divides by 1..T broadcast along the columns (column j scaled by 1/(j+1)) instead of the rows",
       "where": ["q09"]}),

    "q10_effective_tokens_base_e": ({"row_entropy_bits": '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return torch.exp(row_entropy_bits(A))
'''}, {"mistake": "exponentiates the entropy in bits with e instead of 2", "where": ["q10"]}),

    "q10_entropy_over_queries": ({"row_entropy_bits": '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-2)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''}, {"mistake": "sums over dim=-2 (the queries) instead of the keys, giving per-column numbers",
       "where": ["q10"]}),

    "q11_rank_is_d_k": ({"max_rank_S": '''
max_rank_S = 8

rank_S_lesson = 4
'''}, {"mistake": "gives the lesson's score rank as d_k = 4 instead of computing it (2)", "where": ["q11"]}),

    "q12_output_square": ({"qkv_param_count": '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_model * d_model
    return n
'''}, {"mistake": "counts W_O as d_model x d_model instead of d_v x d_model", "where": ["q12"]}),

    "q13_values_from_queries": ({"cross_attention": '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, X @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"mistake": "takes the values from X instead of Y (crashes or mixes the wrong rows when T != T')",
       "where": ["q13"]}),

    "q13_mask_ignored": ({"cross_attention": '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K))
    return A @ V, A
'''}, {"mistake": "accepts M but never applies it", "where": ["q13"]}),

    "q06_answer_rows_sum": ({"ans_mask": '''
ans_mask = "a"
'''}, {"mistake": "thinks switching the causal mask off makes rows stop summing to 1", "where": ["q06"]}),

    "q15_answer_square_only": ({"ans_cross_causal": '''
ans_cross_causal = "c"
'''}, {"mistake": "thinks a causal mask makes sense in cross-attention whenever T = T'", "where": ["q15"]}),

    "q14_answer_output_rows_from_y": ({"ans_cross_shapes": '''
ans_cross_shapes = "d"
'''}, {"mistake": "thinks the output has one row per key/value token (T') instead of per query",
       "where": ["q14"]}),
}
