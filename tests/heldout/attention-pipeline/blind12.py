"""Twelfth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the registration lines of `measure.py` and the variant names and code of blind.py .. blind11.py, so
that their mistakes are not repeated in the same form.

A realistic class: the commonest slips (scores divided by d_k, here as a reciprocal factor on K.mT; the
causal mask that also blocks the diagonal, here a full matrix cut by triu(0); the softmax over the
queries, here with dim=-2; log 0 in the entropy, here with Tensor.log2()) written in new forms, beside
new kinds: a fused projection split at d_model, the prefix matrix normalised by its column sums, an
unscaled functional softmax kernel, an output projection counted as d_model x d_model, the cross output
mixed with the transposed weights, the rank bounded by the token count, and three multiple-choice
answers.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in words;
`where` lists the questions that may lose points. Correct variants are really correct but written
differently (broadcast products, explicit loops, functional softmax, torch.where around log2, a loop
over the projection shapes). Every variant was checked against plain torch before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
Q03 = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
Q06 = "ans_mask"
NW = "nadaraya_watson"
PREFIX = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
Q14 = "ans_cross_shapes"
Q15 = "ans_cross_causal"
Q16 = "ans_complexity"

_EFF = '''

def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''

_PRINT = '''

print(qkv_param_count(384, 64, 64), qkv_param_count(384, 64, 64, with_output=True))
'''

CORRECT = {
    # q02 from broadcast products summed over d_k; q01 with einsum per matrix
    "broadcast_scores_einsum_projection": {
        SCORES: '''
def scaled_scores(Q, K):
    return (Q.unsqueeze(-2) * K.unsqueeze(-3)).sum(dim=-1) * K.shape[-1] ** -0.5
''',
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...td,dk->...tk", X, W_K)
    V = torch.einsum("...td,dv->...tv", X, W_V)
    return Q, K, V
'''},
    # q04 filled by explicit loops; q09 as tril divided by the row numbers as a column
    "loop_mask_row_number_prefix": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    lowest = torch.finfo(dtype).min
    for i in range(T):
        for j in range(i + 1, T):
            M[i, j] = lowest
    return M
''',
        PREFIX: '''
def prefix_average_matrix(T):
    L = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return L / torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)
'''},
    # q05 through torch.nn.functional.softmax; q08 with a shifted exp kernel
    "functional_softmax_shifted_kernel": {
        WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return torch.nn.functional.softmax(Z, dim=-1)
''',
        NW: '''
def nadaraya_watson(q, K, V):
    s = (K @ q) / math.sqrt(K.shape[-1])
    w = torch.exp(s - s.max())
    return (w[:, None] * V).sum(dim=0) / w.sum()
'''},
    # q10 with torch.where around log2 so that 0 log 0 counts as 0
    "where_log2_entropy": {ENT: '''
def row_entropy_bits(A):
    terms = torch.where(A > 0, A * torch.log2(A), torch.zeros_like(A))
    return -terms.sum(dim=-1)
''' + _EFF},
    # q12 by a loop over the matrices' shapes; q13 via project_qkv twice; answers normalised
    "param_loop_cross_via_project_answers": {
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    total = 0
    for rows, cols in shapes:
        total += rows * cols
    return total
''' + _PRINT,
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, _, _ = project_qkv(X, W_Q, W_K, W_V)
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
        Q06: 'ans_mask = " C ".strip().lower()\n',
        Q16: 'ans_complexity = "abcd"[2]\n'},
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q02_reciprocal_d_k_factor": ({SCORES: '''
def scaled_scores(Q, K):
    d_k = K.shape[-1]
    return (Q @ K.mT) * (1.0 / d_k)
'''}, {"mistake": "multiplies by 1/d_k instead of 1/sqrt(d_k)", "where": ["q02", "q07", "q13"]}),
    "q04_full_triu_diagonal_zero": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    return torch.triu(torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device), diagonal=0)
'''}, {"mistake": "cuts with triu(diagonal=0), which keeps the diagonal in the blocked part: a token "
                  "may not attend to itself", "where": ["q04", "q07"]}),
    "q05_softmax_dim_minus_two": ({WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S + M if M is not None else S
    return Z.softmax(dim=-2)
'''}, {"mistake": "normalises over dim -2, the queries: each key's column sums to 1 instead of each "
                  "query's row", "where": ["q05", "q07", "q13"]}),
    "q10_log2_method_of_zero": ({ENT: '''
def row_entropy_bits(A):
    return (A * A.log2()).sum(dim=-1).neg()
''' + _EFF}, {"mistake": "takes log2 of the masked zeros: 0 * -inf is NaN where 0 log 0 should count as 0",
              "where": ["q10"]}),
    # --- new kinds and other ordinary slips
    "q01_fused_split_at_d_model": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    W = torch.cat([W_Q, W_K, W_V], dim=1)
    width = W_Q.shape[0]
    Q, K, V = (X @ W).split(width, dim=-1)
    return Q, K, V
'''}, {"mistake": "splits the fused projection into pieces of width d_model (W_Q.shape[0]) instead of "
                  "d_k, d_k, d_v: wrong or failing whenever d_model differs from the head widths",
       "where": ["q01", "q07", "q13"]}),
    "q09_normalised_by_column_sums": ({PREFIX: '''
def prefix_average_matrix(T):
    P = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return P / P.sum(dim=0, keepdim=True)
'''}, {"mistake": "divides by the column sums instead of the row sums: the columns sum to 1 and the "
                  "rows do not", "where": ["q09"]}),
    "q08_unscaled_functional_kernel": ({NW: '''
def nadaraya_watson(q, K, V):
    return torch.softmax(K @ q, dim=0) @ V
'''}, {"mistake": "forgets the 1/sqrt(d_k) in the kernel: exp(k.q) instead of exp(k.q / sqrt(d_k))",
       "where": ["q08"]}),
    "q12_output_square_d_model": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    count = d_model * d_k + d_model * d_k + d_model * d_v
    if with_output:
        count += d_model * d_model
    return count
''' + _PRINT}, {"mistake": "counts the output projection as d_model x d_model instead of d_v x d_model",
                "where": ["q12"]}),
    "q13_output_from_transposed_weights": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    O = A.transpose(-2, -1) @ V
    return O, A
'''}, {"mistake": "mixes the values with A^T instead of A: only works when T = T' and then mixes "
                  "along the wrong axis", "where": ["q13"]}),
    "q11_rank_min_of_tokens": ({RANK: '''
T_tokens, head_dim = 100, 8
max_rank_S = min(T_tokens, T_tokens)
rank_S_lesson = 2
'''}, {"mistake": "bounds the rank of S = Q K^T by the number of tokens (100) instead of d_k (8)",
       "where": ["q11"]}),
    "q06_answer_rows_stop_summing": ({Q06: 'ans_mask = "a"\n'},
                                     {"mistake": "answers a: thinks removing the causal mask breaks the "
                                                 "normalisation of the rows", "where": ["q06"]}),
    "q15_answer_equal_lengths_upper": ({Q15: 'ans_cross_causal = "C"\n'},
                                       {"mistake": "answers C: thinks a causal mask makes sense whenever the "
                                                   "two sequences have equal length", "where": ["q15"]}),
    "q16_answer_cubic": ({Q16: 'ans_complexity = "d"  # like matrix inversion\n'},
                         {"mistake": "answers d: believes computing QK^T grows cubically in T",
                          "where": ["q16"]}),
}
