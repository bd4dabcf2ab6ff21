"""Eighth blind held-out set for attention-pipeline (Lesson 08), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key mappings of `measure.py`. What was read: the student-facing
text of `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the names of the seven earlier blind sets' variants, so that their kinds of mistake are
not repeated in the same form.

The class is mixed. Beginners: the lesson's d_k given for another head's rank bound, a stray comma that
makes a letter answer a tuple, a uniform 1/T in every row of the prefix average, the number of keys with non-zero
weight counted as the effective number of tokens, the d_k bound given for the lesson's actual rank, an
increment `n + ...` whose result is thrown away, the weights transposed before mixing the values.
Intermediate: finfo(dtype).min times a float32 ones matrix (overflows to -inf and loses the dtype for
float64), the additive mask transposed before adding it, the softmax upcast to float64 and not cast back,
the current token dropped from the kernel smoother (off by one), cross-attention over the concatenation
of both sequences.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points. Correct variants are really correct but
written differently. Every variant was checked against plain torch (`torch.softmax`,
`F.scaled_dot_product_attention`) before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

MASK = "causal_additive_mask"
AW = "attention_weights"
SA = "self_attention"
NW = "nadaraya_watson"
PA = "prefix_average_matrix"
ENT = "row_entropy_bits"      # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"           # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"


def _sa(mix: str = "return A @ V, A") -> str:
    return f'''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    {mix}
'''


CORRECT = {
    # q04 as min times (1 - tril) in the asked dtype; q05 as exp of log_softmax
    "mask_min_times_upper_log_softmax": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    lower = torch.tril(torch.ones(T, T, dtype=dtype, device=device))
    return torch.finfo(dtype).min * (1 - lower)
''',
        AW: '''
def attention_weights(S, M=None):
    logits = S if M is None else S + M
    return torch.log_softmax(logits, dim=-1).exp()
'''},
    # q08 with a softmax over the keys; q09 as a row scaling of the lower triangle
    "kernel_softmax_prefix_row_scaling": {
        NW: '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / q.shape[-1] ** 0.5, dim=0)
    return w @ V
''',
        PA: '''
def prefix_average_matrix(T):
    inv = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return inv[:, None] * torch.ones(T, T, dtype=torch.float64).tril()
'''},
    # q10 with nan_to_num for 0 log 0
    "entropy_nan_to_num": {ENT: '''
def row_entropy_bits(A):
    return torch.nan_to_num(-A * torch.log2(A), nan=0.0).sum(-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''},
    # q13 through project_qkv on each sequence; q11 from min()
    "cross_via_project_qkv_rank_min": {
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = project_qkv(X, W_Q, W_K, W_V)[0]
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, M)
    return torch.matmul(A, V), A
''',
        RANK: '''
d_k, T = 8, 100
max_rank_S = min(d_k, T)
rank_S_lesson = 2
'''},
    # q07 returning through a named tuple of two; q12 as one expression
    "self_attention_einsum_params_expression": {
        SA: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    T = Q.shape[-2]
    M = causal_additive_mask(T, Q.dtype, Q.device) if causal else None
    A = attention_weights(scaled_scores(Q, K), M)
    O = torch.einsum("...ti,...id->...td", A, V)
    return O, A
''',
        PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)
'''},
}

WRONG = {
    "q11_new_head_rank_from_lesson_d_k": ({RANK: '''
max_rank_S = 4

rank_S_lesson = 2
'''}, {"mistake": "answers (a) with the lesson's d_k = 4 instead of the d_k = 8 of the head in the question: "
                  "the bound is min(d_k, T) = 8", "where": ["q11"]}),
    "q15_trailing_comma_tuple": ({"ans_cross_causal": 'ans_cross_causal = "d",\n'},
                                 {"mistake": "ends the line with a comma, so ans_cross_causal is the tuple "
                                             "(\"d\",) instead of the string \"d\"", "where": ["q15"]}),
    "q04_min_times_float32_ones": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    return torch.finfo(dtype).min * torch.ones(T, T, device=device).triu(diagonal=1)
'''}, {"mistake": "multiplies finfo(dtype).min by a ones matrix made in the default float32: the mask is "
                  "float32 whatever dtype is asked, and for float64 the product overflows to -inf",
       "where": ["q04"]}),
    "q05_mask_transposed": ({AW: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M.transpose(-2, -1)     # rows are keys in M, so turn it round
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "transposes the mask before adding it: a causal mask then blocks the past instead of "
                  "the future", "where": ["q05", "q07", "q09", "q13"]}),
    "q05_upcast_not_cast_back": ({AW: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.softmax(S.double(), dim=-1)     # float64 for stability
'''}, {"mistake": "computes the softmax in float64 for stability and returns it in float64: the weights "
                  "no longer have the dtype of the scores (float32 in, float64 out)",
       "where": ["q05", "q07", "q13"]}),
    "q07_weights_transposed_in_mix": ({SA: _sa(mix="return A.transpose(-2, -1) @ V, A")},
                                      {"mistake": "mixes the values with the transposed weights, A^T V: "
                                                  "column sums instead of row distributions, and token t "
                                                  "gathers from the tokens that attend to it",
                                       "where": ["q07", "q09"]}),
    "q08_drops_the_last_key": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K[:-1] @ q / math.sqrt(q.shape[-1]))    # only the keys strictly before
    return (kappa[:, None] * V[:-1]).sum(dim=0) / kappa.sum()
'''}, {"mistake": "drops the last key and value (thinking the current token must not be used): the average "
                  "is over T - 1 keys instead of all the given ones, and nan for a single key",
       "where": ["q08"]}),
    "q09_uniform_one_over_T": ({PA: '''
def prefix_average_matrix(T):
    return torch.tril(torch.full((T, T), 1.0 / T, dtype=torch.float64))
'''}, {"mistake": "puts 1/T in every visible entry instead of 1/t in row t: only the last row is an "
                  "average, earlier rows sum to less than 1", "where": ["q09"]}),
    "q10_effective_tokens_as_support_size": ({ENT: '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return (A > 0).sum(dim=-1).to(A.dtype)
'''}, {"mistake": "counts the keys with non-zero weight as the effective number of tokens instead of 2^H: "
                  "a row with almost all its weight on one key still counts every key",
       "where": ["q10"]}),
    "q11_lesson_rank_is_d_k": ({RANK: '''
max_rank_S = 8

rank_S_lesson = 4
'''}, {"mistake": "gives the lesson's d_k = 4 (the upper bound on the rank) for the rank of the lesson's "
                  "score matrix instead of its actual rank", "where": ["q11"]}),
    "q12_increment_discarded": ({PARAMS: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n + d_v * d_model
    return n
'''}, {"mistake": "writes `n + d_v * d_model` instead of `n += ...`: the sum is computed and thrown away, "
                  "so W_O is never counted", "where": ["q12"]}),
    "q13_keys_over_both_sequences": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    XY = torch.cat([X, Y], dim=-2)      # the queries may look at both sequences
    Q, K, V = X @ W_Q, XY @ W_K, XY @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"mistake": "lets the queries attend over the concatenation of X and Y instead of Y alone: the "
                  "weights have T + T' columns and part of the output comes from X itself",
       "where": ["q13"]}),
}
