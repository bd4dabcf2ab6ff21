"""Blind held-out set 33 for attention-pipeline.

Thirty-third blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`,
and without running the grader on these variants. What was read: the student-facing text and solution cells
of the master notebook, full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt` (its hand-crafted Q and K, the rank table, the parameter count 72),
blind32.py's docstring and first lines (for the format) and only the module docstrings and variant names of
the earlier blind sets (to lean on less-touched questions and not repeat a mistake in the same form).
Every wrong letter of the multiple-choice questions (q03, q06, q14, q15, q16) is already carried by an
earlier set, so this set spends its variants on code and number answers, leaning on q01, q11 and q12.
Public sources: none searched for this round (the time box went to checking the variants); no variant
carries a slip attributed to public code.

Round 33 mix: small slips inside otherwise right code (values projected with W_Q in a comprehension, the
scale taken from `Q.numel()`, the softmax denominator summed over the query axis, `cumsum` where `sum` was
meant, W_O counted twice, a `zip` that silently drops the output term because only one list got the extra
entry), whole-approach mistakes (tokens mean-centred before the projections, the output mixed with the
unmasked weights, scores taken between the raw inputs, a base-2 kernel, a binary entropy per entry), crashes
from a shape assumption (a loop over a batch axis the unbatched inputs do not have) and number answers of a
student who misread the lesson (ranks written as strings, the rank bound counted as d_k for the queries plus
d_k for the keys). Code shapes: comprehension, loops, zip over lists, manual stable softmax, stacking rows.
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points (q09's hidden test runs `self_attention` with zero
projections, q10's public check may use the pipeline, q13 calls `scaled_scores` and `attention_weights`).
Every variant was checked against plain torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`,
the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k; the lesson's five-token example) with a throwaway script under /tmp before it was written down.

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
    "hstack_weights_tensor_split_projection": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    d_k = W_Q.shape[1]
    W_all = torch.hstack([W_Q, W_K, W_V])          # (d_model, 2 d_k + d_v)
    Q, K, V = torch.tensor_split(X @ W_all, [d_k, 2 * d_k], dim=-1)
    return Q, K, V
''',
    },
    "amax_shifted_manual_softmax": {
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    Z = Z - Z.amax(dim=-1, keepdim=True)
    E = Z.exp()
    return E / E.sum(dim=-1, keepdim=True)
''',
    },
    "stacked_rows_prefix_average": {
        AVG: '''def prefix_average_matrix(T):
    rows = []
    for t in range(1, T + 1):
        row = torch.zeros(T, dtype=torch.float64)
        row[:t] = 1.0 / t
        rows.append(row)
    return torch.stack(rows)
''',
    },
    "zip_rows_cols_param_count": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    rows = [d_model, d_model, d_model]
    cols = [d_k, d_k, d_v]
    if with_output:
        rows.append(d_v)
        cols.append(d_model)
    return sum(r * c for r, c in zip(rows, cols))
''',
    },
    "bool_keep_mask_masked_fill_self_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        n = S.shape[-1]
        keep = torch.ones(n, n, dtype=torch.bool, device=S.device).tril()
        S = S.masked_fill(~keep, torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return torch.matmul(A, V), A
''',
    },
}

WRONG = {
    "q01_values_projected_with_query_weights": (
        {PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = [X @ W for W in (W_Q, W_K, W_Q)]
    return Q, K, V
'''},
        {"mistake": "V is projected with W_Q instead of W_V (copy-paste slip in the tuple of weights), so the values "
                    "are the queries and have width d_k, not d_v.",
         "where": ["q01", "q07", "q09", "q10"]},
    ),
    "q01_tokens_mean_centred_before_projection": (
        {PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Xc = X - X.mean(dim=-2, keepdim=True)      # centre the tokens first
    return Xc @ W_Q, Xc @ W_K, Xc @ W_V
'''},
        {"mistake": "Subtracts the mean token from X before projecting; the projections are plain linear maps "
                    "Q = X W_Q etc. with no centring, so every Q, K, V is off by the projected mean.",
         "where": ["q01", "q07", "q09", "q10"]},
    ),
    "q02_scale_from_numel_of_queries": (
        {SCORES: '''def scaled_scores(Q, K):
    d_k = Q.numel()
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
'''},
        {"mistake": "Takes d_k as Q.numel() (all entries of Q, T*d_k and the batch) instead of the last dimension "
                    "Q.shape[-1], so the scores are divided by the wrong square root.",
         "where": ["q02", "q07", "q09", "q10", "q13"]},
    ),
    "q05_denominator_summed_over_queries": (
        {WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    E = torch.exp(S - S.max(dim=-1, keepdim=True).values)
    return E / E.sum(dim=-2, keepdim=True)
'''},
        {"mistake": "The hand-written softmax shifts by the row maximum but normalises by sums over dim -2 (over the "
                    "queries, i.e. columns) instead of the last dim, so the rows of A do not sum to 1.",
         "where": ["q05", "q07", "q09", "q10", "q13"]},
    ),
    "q07_output_mixed_with_unmasked_weights": (
        {SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    O = attention_weights(S) @ V
    if causal:
        A = attention_weights(S, causal_additive_mask(S.shape[-1], S.dtype, S.device))
    else:
        A = attention_weights(S)
    return O, A
'''},
        {"mistake": "The output O is computed from the softmax of the unmasked scores; the mask is only applied to the "
                    "A that is returned, so with causal=True every output row still reads future tokens.",
         "where": ["q07", "q10"]},
    ),
    "q07_scores_from_raw_inputs": (
        {SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(X, X)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''},
        {"mistake": "The scores are computed between the raw input tokens (X X^T / sqrt(d_model)) instead of between "
                    "the queries and keys, so W_Q and W_K are never used.",
         "where": ["q07", "q09", "q10"]},
    ),
    "q08_kernel_in_base_two": (
        {NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp2(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''},
        {"mistake": "The kernel is 2^(q.k/sqrt(d_k)) instead of exp(q.k/sqrt(d_k)) (base 2 carried over from the "
                    "entropy in bits), which flattens the weights by a factor ln 2 in the exponent.",
         "where": ["q08"]},
    ),
    "q09_divided_by_running_count_along_row": (
        {AVG: '''def prefix_average_matrix(T):
    L = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return L / L.cumsum(dim=-1)
'''},
        {"mistake": "Divides by the running count along each row (cumsum) instead of the row total (sum), so row t "
                    "holds 1, 1/2, ..., 1/t instead of t copies of 1/t and does not sum to 1.",
         "where": ["q09"]},
    ),
    "q10_binary_entropy_per_entry": (
        {ENT: '''def row_entropy_bits(A):
    one = torch.ones_like(A)
    p_term = torch.where(A > 0, A * torch.log2(torch.where(A > 0, A, one)), torch.zeros_like(A))
    q_term = torch.where(A < 1, (1 - A) * torch.log2(torch.where(A < 1, 1 - A, one)), torch.zeros_like(A))
    return -(p_term + q_term).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''},
        {"mistake": "Uses the binary entropy -[a log a + (1-a) log(1-a)] of every entry and sums it; the row entropy "
                    "of a distribution is only -sum_i A_ti log2 A_ti (no (1-a) terms).",
         "where": ["q10"]},
    ),
    "q11_rank_answers_as_strings": (
        {RANK: '''max_rank_S = "8"

rank_S_lesson = "2"
'''},
        {"mistake": "Right numbers but written as strings like the letter answers; both answers must be integers.",
         "where": ["q11"]},
    ),
    "q11_max_rank_twice_d_k": (
        {RANK: '''max_rank_S = 8 + 8   # d_k from the queries plus d_k from the keys

rank_S_lesson = 2
'''},
        {"mistake": "Adds the query and key dimensions (16); rank(QK^T) <= min(rank Q, rank K) <= d_k, so the bound "
                    "is 8.",
         "where": ["q11"]},
    ),
    "q12_output_counted_twice": (
        {PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
        return n + d_v * d_model
    return n
'''},
        {"mistake": "With with_output=True the W_O weights (d_v*d_model) are added twice.",
         "where": ["q12"]},
    ),
    "q12_zip_truncates_output_term": (
        {PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    rows = [d_model, d_model, d_model]
    cols = [d_k, d_k, d_v]
    if with_output:
        cols.append(d_model)          # W_O is d_v x d_model
    return sum(r * c for r, c in zip(rows, cols))
'''},
        {"mistake": "Appends W_O's column count but not its row count (d_v), so zip stops at three pairs and the "
                    "output projection is silently never counted.",
         "where": ["q12"]},
    ),
    "q13_batch_loop_breaks_unbatched_inputs": (
        {CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    outs, weights = [], []
    for b in range(X.shape[0]):
        Q, K, V = X[b] @ W_Q, Y[b] @ W_K, Y[b] @ W_V
        A = attention_weights(scaled_scores(Q, K), M)
        outs.append(A @ V)
        weights.append(A)
    return torch.stack(outs), torch.stack(weights)
'''},
        {"mistake": "Loops over a batch axis that plain (T, d_model) inputs do not have: for unbatched X and Y it "
                    "indexes single tokens and crashes (or fails when T > T').",
         "where": ["q13"]},
    ),
}
