"""Fifth blind held-out set for attention-pipeline (Lesson 08), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the four earlier blind sets, so that none of their kinds of mistake is repeated here.

The students vary. Beginners: the scores divided by d_k, the scores returned where the weights are
asked, the prefix average built as its transpose (upper triangle, columns normalised), the kernel
weights returned instead of the weighted average, queries taken from Y and keys/values from X, W_Q
and W_K counted as one matrix, the rank of the softmax weights A given for the rank of S, and "b"
(a causal mask needs a square score matrix) for the cross-attention question. Intermediate: inputs
cast to float32 "so that matmul dtypes match", nanoGPT's `tril(...).view(1, 1, T, T)` mask buffer with
its batch and head axes, a mask built without the `device` it is given, an additive mask turned into
-inf with masked_fill (a fully blocked row becomes NaN instead of uniform), the effective number of
tokens taken as the inverse Simpson index 1 / sum A^2 (a related but different "effective number"),
and zeros patched to ones in the caller's A before the log. Public code searched for the mask habits
(nanoGPT's registered `bias` buffer, Annotated-Transformer `subsequent_mask`, HF `_make_causal_mask`).

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points (functions used by `self_attention` also cost
q07 and q09, those used by `cross_attention` q13). Correct variants are really correct but written
differently from `full_marks.ipynb`. Every variant was checked against plain torch (`torch.softmax`,
`F.scaled_dot_product_attention`) before it was graded.

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
ENT = "row_entropy_bits"      # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"           # the q11 cell (also defines rank_S_lesson)
COUNT = "qkv_param_count"
CROSS = "cross_attention"

_ENTROPY = '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
'''

CORRECT = {
    # the three products by map(); the scores by einsum over any leading dims
    "project_map_scores_einsum": {
        PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple(map(X.matmul, (W_Q, W_K, W_V)))
''',
        SCORES: '''
def scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...qk", Q, K).div(math.sqrt(K.size(-1)))
'''},
    # -finfo.max (equal to finfo.min) written by masked_fill; torch.special.softmax
    "mask_neg_max_special_softmax": {
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, -torch.finfo(dtype).max)
''',
        WEIGHTS: '''
def attention_weights(S, M=None):
    return torch.special.softmax(S if M is None else S.add(M), dim=-1)
'''},
    # kernel weights shifted by their max before exp, the ratio by einsum
    "nw_shifted_einsum": {NW: '''
def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.numel())
    w = torch.exp(s - s.max())              # the common factor cancels in the ratio
    return torch.einsum("t,tv->v", w, V) / w.sum()
'''},
    # prefix average from reciprocals of 1..T; entropy from xlogy in nats converted to bits
    "prefix_reciprocals_xlogy_bits": {
        PREFIX: '''
def prefix_average_matrix(T):
    inv = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * inv[:, None]
''',
        ENT: '''
def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''},
    # counts and ranks computed; the parameter count as a sum over the matrices
    "computed_counts": {
        RANK: '''
max_rank_S = min(8, 100)

rank_S_lesson = 2
''',
        COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(a * b for a, b in shapes)
'''},
    # cross-attention written out, d_k read from W_K; the letters normalised
    "cross_inline_answers_normalised": {
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    S = (X @ W_Q) @ (Y @ W_K).transpose(-2, -1) / math.sqrt(W_K.shape[-1])
    if M is not None:
        S = S + M
    A = torch.softmax(S, dim=-1)
    return A @ (Y @ W_V), A
''',
        "ans_scale": 'ans_scale = "B".lower()\n',
        "ans_complexity": 'ans_complexity = "abcd"[2]\n'},
}

WRONG = {
    "q01_cast_to_float32": ({PROJ: '''
def project_qkv(X, W_Q, W_K, W_V):
    X = X.float()                      # so that the matmul dtypes always match
    return X @ W_Q.float(), X @ W_K.float(), X @ W_V.float()
'''}, {"mistake": "casts everything to float32 'so that the dtypes match': float64 and float16 inputs come "
                  "back as float32", "where": ["q01", "q07", "q09"]}),
    "q02_divides_by_d_k": ({SCORES: '''
def scaled_scores(Q, K):
    return Q @ K.transpose(-2, -1) / Q.shape[-1]
'''}, {"mistake": "divides the scores by d_k instead of sqrt(d_k)", "where": ["q02", "q07", "q09", "q13"]}),
    "q04_nanogpt_buffer_shape": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    keep = torch.tril(torch.ones(T, T, device=device)).view(1, 1, T, T)
    M = torch.zeros(1, 1, T, T, dtype=dtype, device=device)
    return M.masked_fill(keep == 0, torch.finfo(dtype).min)
'''}, {"mistake": "returns nanoGPT's (1, 1, T, T) buffer shape with batch and head axes instead of (T, T), "
                  "so 2-D attention comes out 4-D", "where": ["q04", "q07", "q09"]}),
    "q04_device_ignored": ({MASK: '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype)
    M[torch.ones(T, T, dtype=torch.bool).triu(1)] = torch.finfo(dtype).min
    return M
'''}, {"mistake": "accepts `device` but never uses it: the mask is always on the CPU (S + M fails for "
                  "GPU scores)", "where": ["q04", "q07", "q09"]}),
    "q05_mask_turned_into_minus_inf": ({WEIGHTS: '''
def attention_weights(S, M=None):
    if M is not None:
        S = S.masked_fill(M != 0, float("-inf"))     # blocked keys get -inf
    return torch.softmax(S, dim=-1)
'''}, {"mistake": "turns every nonzero entry of the additive mask into -inf instead of adding M: a row whose "
                  "keys are all blocked becomes NaN instead of uniform, and a mask entry that is not 0 or "
                  "finfo.min is not added as it is", "where": ["q05", "q07", "q09", "q13"]}),
    "q07_returns_scores": ({SELF: '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, S
'''}, {"mistake": "returns the scaled scores S as the second value where the attention weights A are asked",
       "where": ["q07", "q09"]}),
    "q08_scale_from_number_of_keys": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(K.shape[0]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''}, {"mistake": "scales the kernel exponent by sqrt(T), the number of keys (K.shape[0]), instead of sqrt(d_k)",
       "where": ["q08"]}),
    "q08_returns_kernel_weights": ({NW: '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return kappa / kappa.sum()
'''}, {"mistake": "returns the normalised kernel weights (T,) instead of the weighted average of the values "
                  "(d_v,)", "where": ["q08"]}),
    "q09_transposed_matrix": ({PREFIX: '''
def prefix_average_matrix(T):
    W = torch.triu(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=0, keepdim=True)
'''}, {"mistake": "builds the transpose: column t holds 1/t in its first t rows (upper triangle, columns "
                  "normalised) instead of row t in its first t columns", "where": ["q09"]}),
    "q10_inverse_simpson": ({ENT: _ENTROPY + '''

def effective_tokens(A):
    return 1.0 / (A ** 2).sum(dim=-1)
'''}, {"mistake": "takes the effective number of tokens as the inverse Simpson index 1 / sum A^2 (from the "
                  "collision entropy) instead of 2 ** H with the Shannon entropy in bits", "where": ["q10"]}),
    "q10_patches_zeros_in_callers_A": ({ENT: '''
def row_entropy_bits(A):
    A[A == 0] = 1.0                    # log2(1) = 0, so these terms vanish
    return -(A * torch.log2(A)).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''}, {"mistake": "avoids log2(0) by writing 1 into the zero entries of the caller's A in place: the "
                  "entropies are right but the argument is changed (rows no longer sum to 1)",
       "where": ["q10"]}),
    "q11_rank_of_the_weights": ({RANK: '''
max_rank_S = 8

rank_S_lesson = 5    # torch.linalg.matrix_rank of the attention weights A: full rank
'''}, {"mistake": "gives the rank of the softmax weights A (full rank, 5) for the rank of the score matrix S",
       "where": ["q11"]}),
    "q12_q_and_k_counted_once": ({COUNT: '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (d_k + d_v)
    if with_output:
        n += d_v * d_model
    return n
'''}, {"mistake": "counts W_Q and W_K as one d_model x d_k matrix (as if queries and keys shared weights)",
       "where": ["q12"]}),
    "q13_queries_from_Y": ({CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = Y @ W_Q, X @ W_K, X @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"mistake": "takes the queries from Y and the keys and values from X (the roles of the two sequences "
                  "swapped)", "where": ["q13"]}),
    "q15_answer_b": ({"ans_cross_causal": 'ans_cross_causal = "b"\n'},
                     {"mistake": "thinks a causal mask can never be used in cross-attention because it needs a "
                                 "square score matrix", "where": ["q15"]}),
}
