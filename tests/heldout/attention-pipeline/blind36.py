"""Blind held-out set 36 for attention-pipeline.

Thirty-sixth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook,
full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text `lesson-08-attention-pipeline.txt`
(its rlab code: `2 ^ H_A(t)` for 2^H, `W_avg = cumsum(eye(T), 1) ./ repmat((1:T)', 1, T)`, the
Nadaraya-Watson loop `t = 4; for i = 1:t`), blind35.py's docstring and first lines (for the format) and only
the module docstrings and variant names of the earlier blind sets (to lean on less-touched questions and not
repeat a mistake an earlier name shows).

Public sources searched (the `search` tool, code / issues corpora): public TensorFlow scaled-dot-product
attention code (the `tf.matmul(q, k, transpose_b=True)` idiom, e.g. soumik12345/transformer-ocr
src/blocks.py and the TensorFlow transformer tutorial copies), pytorch/pytorch PR #4256 and issue #10742
(NumPy's `np.finfo` used next to torch tensors before `torch.finfo` existed), and numpy/numpy PR #21912
(`@=` on torch tensors, checked here: it works out of place, so no variant uses it). Variants carrying a
slip seen there or in the lesson's rlab code name the source in a comment.

Round 36 mix: crashes from half-remembered APIs (TensorFlow's transpose_b keyword given to torch.matmul,
np.finfo given a torch dtype, torch.inner without transposing the weights, MATLAB's `^` for a power, MATLAB's
repmat ported as .repeat on a vector), small slips inside otherwise right code (a loop bounded by len(q)
instead of len(K), a trailing comma that turns the count into a tuple), whole-approach mistakes (softmax as
exp(s) divided by logsumexp(s), Y truncated to X's length in cross-attention), and written / number answers of
a student who read the variable name instead of the question (the scale factor for ans_scale, the two shapes
for ans_cross_shapes, a yes/no for ans_cross_causal, the exponent 2 for ans_complexity, a NumPy integer for
the lesson rank). Code shapes: einsum in a generator, triu_indices, a Python loop over queries, nan_to_num,
a list of shapes, a NumPy round trip. Each wrong variant changes one cell of an otherwise full-marks notebook
and holds exactly one mistake; `where` lists every question whose tests may lose points (q07, q09's
zero-projection test and q13's self-attention check call project_qkv / scaled_scores / attention_weights
through self_attention; q05's and q10's public checks call scaled_scores, causal_additive_mask and
attention_weights; q10's uniform-rows check calls prefix_average_matrix). Every variant was checked against
plain torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the full-marks cells) on
several shapes and dtypes (float64, float32, float16; batched; d_k != d_v; T_q != T_k; the notebook's lesson
inputs) with a throwaway script under /tmp before it was written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
MASK_ANS = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
SHAPES_ANS = "ans_cross_shapes"
CAUSAL_ANS = "ans_cross_causal"
COST_ANS = "ans_complexity"

CORRECT = {
    "einsum_generator_projection": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # one einsum per weight matrix; "..." carries any batch dimensions through
    Q, K, V = (torch.einsum("...td,de->...te", X, W) for W in (W_Q, W_K, W_V))
    return Q, K, V
''',
    },
    "triu_indices_negated_max_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    rows, cols = torch.triu_indices(T, T, offset=1, device=device)   # strictly above the diagonal
    M[rows, cols] = -torch.finfo(dtype).max                          # == finfo(dtype).min
    return M
''',
    },
    "query_loop_prefix_softmax_self_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if not causal:
        A = attention_weights(S)
    else:
        A = torch.zeros_like(S)
        for t in range(S.shape[-1]):
            # query t sees keys 0..t only: softmax over that prefix, zeros after it
            A[..., t, : t + 1] = attention_weights(S[..., t, : t + 1])
    return A @ V, A
''',
    },
    "nan_to_num_entropy_exp2_tokens": {
        ENT: '''def row_entropy_bits(A):
    plogp = torch.nan_to_num(A * torch.log2(A), nan=0.0)   # 0 * log2(0) = 0 * -inf = nan -> 0
    return -plogp.sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    "lesson_rank_computed_with_torch": {
        RANK: '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

max_rank_S = min(8, 100)   # rank S <= min(rank Q, rank K) <= d_k, and d_k < T
rank_S_lesson = int(torch.linalg.matrix_rank(Q_lesson @ K_lesson.T / math.sqrt(4)))
''',
    },
    "shape_list_param_count": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]   # W_Q, W_K, W_V
    if with_output:
        shapes.append((d_v, d_model))                          # W_O
    return sum(rows * cols for rows, cols in shapes)
''',
    },
}

WRONG = {
    "q01_inner_with_untransposed_weights": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # torch.inner: dot product of every token with every row of the weight matrix
    Q = torch.inner(X, W_Q)
    K = torch.inner(X, W_K)
    V = torch.inner(X, W_V)
    return Q, K, V
''',
    }, {"mistake": "torch.inner contracts the LAST axis of both arguments, so it needs W transposed "
                   "(torch.inner(X, W.T) == X @ W); with W (d_model, d_k) it pairs d_model against d_k and "
                   "crashes whenever the projection changes the width (and would compute X @ W.T if they agreed).",
        "where": ["q01", "q07", "q09", "q13"]}),

    # TensorFlow idiom: tf.matmul(q, k, transpose_b=True) (e.g. soumik12345/transformer-ocr src/blocks.py)
    "q02_tensorflow_transpose_b_keyword": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return torch.matmul(Q, K, transpose_b=True) / math.sqrt(d_k)
''',
    }, {"mistake": "Uses TensorFlow's tf.matmul(q, k, transpose_b=True); torch.matmul has no transpose_b "
                   "argument (TypeError), the keys must be transposed explicitly with K.transpose(-2, -1).",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    "q03_scale_factor_instead_of_letter": ({
        SCALE_ANS: '''ans_scale = 1 / math.sqrt(512)   # the factor that gets deleted
''',
    }, {"mistake": "Sets ans_scale to the number 1/sqrt(512) (the scale factor) instead of choosing a letter; "
                   "the question asks what happens to the row entropies without it: they fall toward 0 (b).",
        "where": ["q03"]}),

    # np.finfo next to torch code: pytorch/pytorch PR #4256 / issue #10742 (before torch.finfo existed)
    "q04_numpy_finfo_on_torch_dtype": ({
        MASK: '''import numpy as np


def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    blocked = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    return M.masked_fill(blocked, np.finfo(dtype).min)
''',
    }, {"mistake": "Asks NumPy's np.finfo for the most negative value, but np.finfo does not understand a "
                   "torch dtype (ValueError: data type not inexact); torch.finfo(dtype).min is needed.",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    "q05_exponentials_divided_by_logsumexp": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    # softmax(s) = exp(s) / sum exp(s), and logsumexp gives the normaliser stably
    return torch.exp(S) / torch.logsumexp(S, dim=-1, keepdim=True)
''',
    }, {"mistake": "Divides exp(S) by logsumexp(S), the LOG of the normaliser, instead of by its exponential "
                   "(softmax = exp(S - logsumexp(S))): rows do not sum to 1, and exp(S) is unshifted so float16 "
                   "overflows.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # the lesson's rlab loop "t = 4; for i = 1:t" (there t was both the row and the number of keys)
    "q08_key_loop_bounded_by_query_length": ({
        NW: '''def nadaraya_watson(q, K, V):
    d_k = q.shape[0]
    num = torch.zeros(V.shape[-1], dtype=V.dtype, device=V.device)
    den = 0.0
    for i in range(len(q)):
        kappa = torch.exp(K[i] @ q / math.sqrt(d_k))
        num = num + kappa * V[i]
        den = den + kappa
    return num / den
''',
    }, {"mistake": "The loop over keys runs range(len(q)), i.e. d_k times, instead of over the T keys "
                   "(len(K)): with more keys than d_k the later keys are dropped, with fewer it indexes past "
                   "the end (correct only when T happens to equal d_k, as in the public check).",
        "where": ["q08"]}),

    # the lesson's rlab  W_avg = cumsum(eye(T), 1) ./ repmat((1:T)', 1, T)  ported without the column (')
    "q09_repmat_ported_as_repeat_on_a_vector": ({
        AVG: '''def prefix_average_matrix(T):
    ones_below = torch.cumsum(torch.eye(T, dtype=torch.float64), dim=0)
    counts = torch.arange(1, T + 1, dtype=torch.float64).repeat(1, T)
    return ones_below / counts
''',
    }, {"mistake": "Ports repmat((1:T)', 1, T) as arange(1, T+1).repeat(1, T) on a 1-D vector: that makes a "
                   "(1, T*T) row, not a (T, T) matrix of row counts, so the division fails to broadcast for "
                   "T > 1 (the counts needed are arange(1, T+1)[:, None]).",
        "where": ["q09", "q10"]}),

    # the lesson prints 2^H with rlab's "2 ^ H_A(t)"; in Python ^ is bitwise xor
    "q10_caret_for_power_in_effective_tokens": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2 ^ row_entropy_bits(A)
''',
    }, {"mistake": "Writes 2^H as `2 ^ H` (the lesson's rlab notation); in Python ^ is bitwise xor, which "
                   "is not defined for floating tensors and raises; the power is 2 ** H.",
        "where": ["q10"]}),

    "q11_lesson_rank_left_as_numpy_integer": ({
        RANK: '''import numpy as np

Q_np = np.array([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]])
K_np = np.array([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]])

max_rank_S = 8
rank_S_lesson = np.linalg.matrix_rank(Q_np @ K_np.T / 2)
''',
    }, {"mistake": "The lesson rank is computed with np.linalg.matrix_rank and left as a numpy.int64, which "
                   "is not a Python int (the value 2 is right; it needs int(...)).",
        "where": ["q11"]}),

    "q12_trailing_comma_makes_a_tuple": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * d_k + d_model * d_k + d_model * d_v,
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "A stray trailing comma turns the count into a one-element tuple: without W_O it returns "
                   "(72,) instead of 72, and with W_O adding an int to the tuple raises TypeError.",
        "where": ["q12"]}),

    "q13_keys_truncated_to_query_length": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    T = X.shape[-2]
    Y = Y[..., :T, :]            # line the keys up with the queries
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Cuts Y down to X's length before projecting, as if keys had to line up with queries; "
                   "when Y is longer than X its later tokens are never attended to (A is T x T instead of "
                   "T x T', and a T x T' mask no longer fits).",
        "where": ["q13"]}),

    "q14_shapes_written_instead_of_letter": ({
        SHAPES_ANS: '''ans_cross_shapes = ("T x T'", "T x d_v")
''',
    }, {"mistake": "Writes the two shapes themselves (right ones) instead of the letter of the option; the "
                   "answer must be the letter b.",
        "where": ["q14"]}),

    "q15_boolean_instead_of_letter": ({
        CAUSAL_ANS: '''ans_cross_causal = False   # a decoder reading the source sentence may read all of it
''',
    }, {"mistake": "Answers the multiple-choice question with a yes/no boolean instead of a letter; the "
                   "answer is d (only when X and Y share one time axis).",
        "where": ["q15"]}),

    "q16_exponent_instead_of_letter": ({
        COST_ANS: '''ans_complexity = 2   # the cost grows like T ** 2
''',
    }, {"mistake": "Gives the exponent of T (the integer 2) instead of the letter of the option; the answer "
                   "is c (quadratic).",
        "where": ["q16"]}),
}
