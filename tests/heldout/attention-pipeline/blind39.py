"""Blind held-out set 39 for attention-pipeline.

Thirty-ninth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (including its
public format checks: the multiple-choice answers must be one letter after strip().lower(), the q11
answers Python ints), full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt`, blind38.py in full (for the format) and only the module docstrings
and variant names of the earlier blind sets (to lean on less-touched questions and not repeat a mistake
an earlier name shows).

Public sources used (the `search` tool, issues / docs / pages corpora):
- pytorch/pytorch issue #118093 ("torch.where only accepts boolean tensor as condition deviating from
  np.where", which accepts a 0/1 float condition) and #89348 / PR #50358 (the "where expected condition to
  be a boolean tensor" error), for a mask written the NumPy / JAX way with a float triangle as condition;
- pytorch/pytorch PR #64180 and the warnings quoted in deepset-ai/haystack PR #9393 and
  datamol-io/graphium issue #295 (`x.T` on a tensor with ndim != 2 reverses ALL its dimensions), for
  projections written in the column-vector convention (W^T X^T)^T;
- the PyTorch docs of torch.Tensor.element_size ("the size in bytes of an individual element") and
  torch.Tensor.nbytes (numel() * element_size()), for a memory experiment that measures element_size;
- the gretl-devel thread "plain QR does not reveal rank" (gretlml.univpm.it), which made us check a
  QR-diagonal rank on the lesson's S: it happens to give the right 2 there, so it was NOT used; a
  nats-to-bits factor torch.log(torch.tensor(2)) (a float32 ln 2) was also dropped: its 3e-9 relative
  error passes any ordinary tolerance;
- the QKVAttention idiom of the guided-diffusion U-Net lineage, `scale = 1 / math.sqrt(math.sqrt(ch))`
  applied to q and to k before `einsum("bct,bcs->bts", q * scale, k * scale)` (found in about ten public
  copies with find_string), for a correct variant that splits 1/sqrt(d_k) between the two sides;
- the NumPy rule that boolean-mask indexing returns an array (here of one element), not a scalar, and
  the numpy / torch.einsum rule that an einsum without "->" orders its output letters alphabetically.
Variants carrying a slip seen there name the source in a comment.

Round 39 leans on the questions the earlier sets touched least (the multiple-choice q06, q15, q03, q14,
q16, then q11, q01, q12, q09) and on code shapes not used before: a multiple-choice answer taken from an
autograd experiment read the wrong way (q06), from a broadcast error read as "never" (q15), from a numpy
boolean-index lookup that returns an array (q14), from a memory measure that uses element_size (q16); a
string method stored without being called (q03); a rank "measured" on an all-ones matrix (q11); a count
from len() of Linear weights (q12); the column-vector convention with .T (q01); einsum's implicit output
order (q02); a float triangle as torch.where's condition (q04); nn.Softmax2d for a row softmax (q05);
the kernel's scale multiplied in (q08); a float64 diagonal times default-dtype ones (q09); tril()
applied to the additive mask, which erases it (q07). Each wrong variant changes one cell of an otherwise
full-marks notebook and holds exactly one mistake; `where` lists every question whose tests may lose
points (q07, q09's zero-projection test and q13's self-attention check call project_qkv /
scaled_scores / causal_additive_mask / attention_weights through self_attention; q05's and q10's public
checks call scaled_scores, causal_additive_mask and attention_weights; q10's uniform-rows check calls
prefix_average_matrix). Every variant was checked against plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers, the full-marks
cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v; T_q != T_k; the
lesson's inputs) with a throwaway script under /tmp before it was written down.

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
    # openai/guided-diffusion QKVAttention: scale = 1 / sqrt(sqrt(ch)) on q and on k
    "quarter_root_scale_on_both_sides_scores": {
        SCORES: '''def scaled_scores(Q, K):
    # split 1/sqrt(d_k) as d_k^(-1/4) on each side: (Q s)(K s)^T = Q K^T / sqrt(d_k)
    s = 1.0 / math.sqrt(math.sqrt(Q.shape[-1]))
    return torch.matmul(Q * s, (K * s).transpose(-1, -2))
''',
    },
    "clamped_index_difference_where_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    ahead = (pos.view(1, T) - pos.view(T, 1)).clamp(0, 1).bool()     # key index minus query index > 0
    zero = torch.zeros((), dtype=dtype, device=device)
    return torch.where(ahead, torch.finfo(dtype).min, zero)
''',
    },
    "softmax_module_with_last_dim_and_torch_add": {
        WEIGHTS: '''def attention_weights(S, M=None):
    row_softmax = torch.nn.Softmax(dim=-1)
    return row_softmax(S if M is None else torch.add(S, M))
''',
    },
    "operator_mul_map_count": {
        PARAMS: '''import operator


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    rows = (d_model, d_model, d_model) + ((d_v,) if with_output else ())
    cols = (d_k, d_k, d_v) + ((d_model,) if with_output else ())
    return sum(map(operator.mul, rows, cols))
''',
    },
    "diag_scaled_prefix_and_lstsq_rank": {
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64)
    return torch.diag(counts.reciprocal()) @ torch.ones(T, T, dtype=torch.float64).tril()
''',
        RANK: '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

max_rank_S = min(8, 100)          # rank S <= min(d_k, T)
_S = Q_lesson @ K_lesson.T / math.sqrt(4)
rank_S_lesson = int(torch.linalg.lstsq(_S, torch.eye(5, dtype=torch.float64), driver="gelsd").rank)
''',
    },
}

WRONG = {
    # x.T on a tensor with ndim != 2 reverses every dimension: pytorch/pytorch PR #64180
    "q01_column_vector_convention_with_T": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # textbook convention: q = W_Q^T x for a column vector x, so Q = (W_Q^T X^T)^T
    Q = (W_Q.T @ X.T).T
    K = (W_K.T @ X.T).T
    V = (W_V.T @ X.T).T
    return Q, K, V
''',
    }, {"mistake": "Writes the projections in the column-vector convention with .T: right for one "
                   "(T, d_model) sequence, but .T on a batched (..., T, d_model) input reverses all its "
                   "dimensions instead of swapping the last two, so batched inputs fail.",
        "where": ["q01", "q07", "q09", "q13"]}),

    # numpy / torch einsum without '->': the output letters come out in alphabetical order
    "q02_einsum_implicit_output_sorted_alphabetically": ({
        SCORES: '''def scaled_scores(Q, K):
    # q indexes the queries, k the keys, d is summed away
    return torch.einsum("...qd,...kd", Q, K) / math.sqrt(Q.shape[-1])
''',
    }, {"mistake": "Leaves out the '->...qk' of the einsum: in implicit mode the output letters are sorted "
                   "alphabetically, so the result is laid out (..., k, q), i.e. S transposed with the keys "
                   "on the rows (shape T_k x T_q).",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    "q03_lower_method_not_called": ({
        SCALE_ANS: '''ans_scale = "B".lower   # the checker wants lower case
''',
    }, {"mistake": "Forgets the call parentheses: ans_scale is the bound method str.lower of 'B', not the "
                   "string 'b'.",
        "where": ["q03"]}),

    # np.where takes a 0/1 float condition, torch.where does not: pytorch/pytorch issue #118093
    "q04_float_triangle_as_where_condition": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.tril(torch.ones(T, T, dtype=dtype, device=device))        # 1 = may attend
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(keep, torch.zeros_like(blocked), blocked)
''',
    }, {"mistake": "Uses a float 0/1 triangle as torch.where's condition, as np.where / jnp.where allow: "
                   "torch.where needs a boolean condition and raises, so no mask is produced.",
        "where": ["q04", "q05", "q07", "q09", "q10", "q13"]}),

    "q05_softmax2d_module_for_rows": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.nn.Softmax2d()(S)      # softmax for a 2-D matrix of scores
''',
    }, {"mistake": "Takes nn.Softmax2d for 'softmax over a 2-D score matrix': it normalises over the "
                   "channel axis (dim -3), so a (T_q, T_k) matrix raises and a batched (B, T_q, T_k) one is "
                   "normalised across the batch instead of along each row.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q06_gradient_experiment_read_as_no_gradient": ({
        MASK_ANS: '''_S = torch.randn(4, 4, dtype=torch.float64, requires_grad=True)
_A = attention_weights(_S, causal_additive_mask(4, torch.float64))
(_A @ torch.randn(4, 3, dtype=torch.float64)).sum().backward()
# the blocked (future) scores get exactly zero gradient, so the mask is about gradient flow
_future = torch.ones(4, 4, dtype=torch.bool).triu(1)
ans_mask = "d" if bool((_S.grad[_future] == 0).all()) else "c"
''',
    }, {"mistake": "Runs an autograd experiment, sees that the masked scores get zero gradient WITH the "
                   "mask, and concludes the mask is about gradient flow ('d'); the problem without the mask "
                   "is that position t can read the token it must predict ('c').",
        "where": ["q06"]}),

    "q08_scale_multiplied_into_the_kernel": ({
        NW: '''def nadaraya_watson(q, K, V):
    d_k = q.shape[-1]
    kappa = torch.exp(K @ q * math.sqrt(d_k))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Multiplies the dot products by sqrt(d_k) inside the exponential instead of dividing by "
                   "it, so the kernel is far too sharp (scores d_k times too large).",
        "where": ["q08"]}),

    "q09_float64_diagonal_times_default_dtype_ones": ({
        AVG: '''def prefix_average_matrix(T):
    inv_counts = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.diag(inv_counts) @ torch.tril(torch.ones(T, T))
''',
    }, {"mistake": "Builds the 1/t diagonal in float64 but the triangle of ones in the default float32: "
                   "matmul does not promote mixed dtypes, so the product raises instead of returning the "
                   "float64 matrix.",
        "where": ["q09", "q10"]}),

    "q07_tril_applied_to_the_additive_mask": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    # keep the lower triangle of the mask: causal means lower-triangular
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device).tril() if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Applies tril() to the additive mask, which keeps its zeros on and below the diagonal "
                   "and wipes out the blocked finfo.min entries above it, so the 'causal' mask is all "
                   "zeros and every token attends to the future.",
        "where": ["q07", "q09", "q13"]}),

    "q11_max_rank_measured_on_ones": ({
        RANK: '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

# try it: a head with d_k = 8 over T = 100 tokens
_Q, _K = torch.ones(100, 8), torch.ones(100, 8)
max_rank_S = int(torch.linalg.matrix_rank(_Q @ _K.T / math.sqrt(8)))
rank_S_lesson = int(torch.linalg.matrix_rank(Q_lesson @ K_lesson.T / math.sqrt(4)))
''',
    }, {"mistake": "Finds the largest possible rank by experiment on all-ones Q and K, whose score matrix "
                   "has rank 1: one example gives a lower bound, not the maximum (8 = min(d_k, T)).",
        "where": ["q11"]}),

    "q12_len_of_linear_weights": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    layers = [torch.nn.Linear(d_model, d_k, bias=False), torch.nn.Linear(d_model, d_k, bias=False),
              torch.nn.Linear(d_model, d_v, bias=False)]
    if with_output:
        layers.append(torch.nn.Linear(d_v, d_model, bias=False))
    return sum(len(layer.weight) for layer in layers)
''',
    }, {"mistake": "Counts each weight matrix with len(), which is only its first dimension (the "
                   "out_features rows), not its number of entries: 4 + 4 + 4 = 12 instead of 72.",
        "where": ["q12"]}),

    # numpy boolean-mask indexing returns an array, not a scalar
    "q14_boolean_index_returns_array": ({
        SHAPES_ANS: '''import numpy as np

_X = torch.randn(3, 6, dtype=torch.float64)          # T = 3 query tokens
_Y = torch.randn(7, 6, dtype=torch.float64)          # T' = 7 key / value tokens
_W = torch.randn(6, 4, dtype=torch.float64)
_O, _A = cross_attention(_X, _Y, _W, _W, _W)
_options = np.array([[3, 3, 3, 4], [3, 7, 3, 4], [7, 3, 7, 4], [3, 7, 7, 4]])   # S rows, cols, O rows, cols
_letters = np.array(["a", "b", "c", "d"])
ans_cross_shapes = _letters[(_options == np.array([*_A.shape, *_O.shape])).all(axis=1)]
''',
    }, {"mistake": "Finds the right option by experiment but picks it with a numpy boolean mask, which "
                   "returns a one-element array (array(['b'])), not the string 'b'.",
        "where": ["q14"]}),

    "q15_broadcast_error_read_as_never": ({
        CAUSAL_ANS: '''_X = torch.randn(3, 6, dtype=torch.float64)
_Y = torch.randn(5, 6, dtype=torch.float64)
_W = torch.randn(6, 4, dtype=torch.float64)
try:
    cross_attention(_X, _Y, _W, _W, _W, causal_additive_mask(3, torch.float64))
    ans_cross_causal = "d"
except RuntimeError:
    ans_cross_causal = "b"      # the causal mask cannot even be added to a 3 x 5 score matrix
''',
    }, {"mistake": "Tries to add the square (T, T) causal mask to a T x T' score matrix, sees the shape "
                   "error and answers 'b' (only square matrices): a causal mask can be built for T x T' "
                   "when both sequences share a time axis, so the answer is 'd'.",
        "where": ["q15"]}),

    # torch.Tensor.element_size is bytes per element; nbytes = numel() * element_size()
    "q16_memory_from_element_size": ({
        COST_ANS: '''def _score_bytes(T, d_k=64):
    S = torch.randn(T, d_k) @ torch.randn(T, d_k).T
    return S.element_size()          # memory taken by S


_ratio = _score_bytes(200) / _score_bytes(100)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Measures the memory of S with element_size(), the bytes of ONE entry, which does not "
                   "change with T, so the experiment answers 'b' (no growth) instead of 'c' (T^2 entries, "
                   "quadratic).",
        "where": ["q16"]}),
}
