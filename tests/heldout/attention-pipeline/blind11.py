"""Eleventh blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the registration lines of `measure.py` and the variant names of blind.py .. blind10.py, so that their
mistakes are not repeated in the same form.

A realistic class: the commonest slips (scores divided by d_k, here in an einsum; the causal mask that
also blocks the diagonal, here from compared aranges; the softmax over the queries, here by transposing
around a row softmax; log 0 in the entropy, here through a change of base) written in new forms, beside
new kinds: float16's minimum hard-coded into the mask, exp(M) multiplied onto the weights, a prefix
matrix of 1/T everywhere, a parameter count that multiplies the widths, the cross-attention pair
returned in the wrong order, and two multiple-choice answers.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in words;
`where` lists the questions that may lose points. Correct variants are really correct but written
differently (einsum, explicit loops, logsumexp, a clamped log). Every variant was checked against plain
torch before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
Q03 = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
PREFIX = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
Q14 = "ans_cross_shapes"

_EFF = '''

def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''

CORRECT = {
    # q01 with torch.matmul, q02 with an einsum over any leading axes
    "einsum_scores": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.matmul(X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''
def scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(K.shape[-1])
'''},
    # q04 from a full matrix of finfo.min cut by triu; q09 with explicit loops
    "full_triu_mask_loop_prefix": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    return torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(diagonal=1)
''',
        PREFIX: '''
def prefix_average_matrix(T):
    P = torch.zeros(T, T, dtype=torch.float64)
    for t in range(T):
        for j in range(t + 1):
            P[t, j] = 1.0 / (t + 1)
    return P
'''},
    # q05 through logsumexp, no torch.softmax
    "logsumexp_weights": {WEIGHTS: '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return torch.exp(Z - torch.logsumexp(Z, dim=-1, keepdim=True))
'''},
    # q10 with a log clamped at the dtype's smallest normal number
    "clamped_log2_entropy": {ENT: '''
def row_entropy_bits(A):
    safe = A.clamp_min(torch.finfo(A.dtype).tiny)
    return -(A * torch.log2(safe)).sum(dim=-1)
''' + _EFF},
    # q08 with normalised weights as a vector-matrix product; q12 as one expression; q14 derived
    "nw_vector_product_param_expression": {
        NW: '''
def nadaraya_watson(q, K, V):
    w = torch.exp(torch.mv(K, q) / math.sqrt(q.numel()))
    return (w / w.sum()) @ V
''',
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)


print(qkv_param_count(384, 64, 64), qkv_param_count(384, 64, 64, with_output=True))
''',
        Q14: '''
ans_cross_shapes = {"S": "T x T'", "O": "T x d_v"} and "b"
'''},
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q02_einsum_over_d_k": ({SCORES: '''
def scaled_scores(Q, K):
    return torch.einsum("...id,...jd->...ij", Q, K) / Q.shape[-1]
'''}, {"mistake": "divides by d_k instead of sqrt(d_k)", "where": ["q02", "q07", "q13"]}),
    "q04_arange_blocks_diagonal": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    idx = torch.arange(T, device=device)
    blocked = idx[None, :] >= idx[:, None]          # key index >= query index
    zero = torch.zeros(T, T, dtype=dtype, device=device)
    return torch.where(blocked, torch.finfo(dtype).min, zero)
'''}, {"mistake": "compares with >= so the diagonal is blocked too: a token may not attend to itself",
       "where": ["q04", "q07"]}),
    "q05_transposed_row_softmax": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.softmax(S.transpose(-2, -1), dim=-1).transpose(-2, -1)
'''}, {"mistake": "transposes before the softmax and back after it, so it normalises each key's column "
                  "over the queries instead of each query's row", "where": ["q05", "q07", "q13"]}),
    "q10_change_of_base_log_zero": ({ENT: '''
def row_entropy_bits(A):
    return -(A * (torch.log(A) / math.log(2))).sum(dim=-1)
''' + _EFF}, {"mistake": "takes log(A) of the masked zeros: 0 * -inf is NaN where 0 log 0 should count "
                         "as 0", "where": ["q10"]}),
    # --- new kinds
    "q04_float16_min_hard_coded": ({MASK: '''
NEG = -65504.0          # most negative float16, safe in every dtype


def causal_additive_mask(T, dtype, device=None):
    upper = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(upper, NEG)
'''}, {"mistake": "fills with float16's minimum whatever the dtype, instead of torch.finfo(dtype).min",
       "where": ["q04"]}),
    "q05_exp_mask_multiplied": ({WEIGHTS: '''
def attention_weights(S, M=None):
    A = torch.softmax(S, dim=-1)
    if M is not None:
        A = A * torch.exp(M)         # exp(min) = 0 blocks, exp(0) = 1 keeps
    return A
'''}, {"mistake": "applies the mask after the softmax as a factor exp(M): the blocked weights are 0 but "
                  "the rows no longer sum to 1", "where": ["q05", "q07", "q09", "q13"]}),
    "q09_one_over_T_everywhere": ({PREFIX: '''
def prefix_average_matrix(T):
    return torch.full((T, T), 1.0 / T, dtype=torch.float64).tril()
'''}, {"mistake": "puts 1/T in every kept entry instead of 1/t in row t, so only the last row sums to 1",
       "where": ["q09"]}),
    "q12_widths_multiplied": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * d_k * d_v
    if with_output:
        n += d_v * d_model
    return n


print(qkv_param_count(384, 64, 64), qkv_param_count(384, 64, 64, with_output=True))
'''}, {"mistake": "multiplies the widths together instead of adding the three matrices' sizes",
       "where": ["q12"]}),
    "q13_returns_weights_then_output": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A, A @ V
'''}, {"mistake": "returns (A, O) instead of (O, A)", "where": ["q13"]}),
    "q08_query_times_keys": ({NW: '''
def nadaraya_watson(q, K, V):
    w = torch.exp(q @ K / math.sqrt(q.shape[0]))
    return (w.unsqueeze(1) * V).sum(0) / w.sum()
'''}, {"mistake": "writes q @ K instead of K @ q (or q @ K.T): the shapes (d_k,) and (T, d_k) only "
                  "line up when T = d_k, and then it scores against K's columns", "where": ["q08"]}),
    "q03_answer_scale_invariant_upper": ({Q03: '''
ans_scale = "C".lower()
'''}, {"mistake": "answers c: believes the softmax does not change when every score is scaled (it is "
                  "invariant to shifts, not to scaling)", "where": ["q03"]}),
    "q14_answer_output_from_keys": ({Q14: '''
ans_cross_shapes = "d"
'''}, {"mistake": "answers d: thinks the output has one row per key/value token (T') instead of one per "
                  "query", "where": ["q14"]}),
}
