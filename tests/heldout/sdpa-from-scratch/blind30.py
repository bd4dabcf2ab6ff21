"""Thirtieth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or
`measure.py`. What was read: the student-facing text and solution cells of the master notebook,
`full_marks.ipynb` (whose cells these replace), `harness.py`, the lesson texts in /work/shared/lessons
(lesson 80 in particular), and only the module docstrings and variant names of blind.py .. blind29.py
(so that their mistakes are not repeated in the same form). The grader was not run on this set.

This round leans on the questions the earlier sets touched least (q1, q7, q8 get two or one each, q5 only
two) and uses code shapes they used little: nested list comprehensions, a NumPy float64 round trip for the
hand trace, a probe on empty tensors, a "check it myself" cell that computes the q7 letter, `cumsum` and
`expm1` half-remembered in place of `sum` and `exp`, `Tensor.mT`, `torch.where` with a scalar.

Public material searched (search tool, code / issues corpora): the Odyssey issue "transpose(key) reverses
all axes" (HomericIntelligence/Odyssey#5648) and the ONNX 3-D attention transpose issue (onnx/onnx#7118),
both the slip of a full-axis transpose where only the last two axes should swap, which `K.T` does to a
3-D tensor; happy-llm's `maskSelfAttention.py` (niujiazhen/happy-llm), whose causal bias is
`torch.triu(..., diagonal=1)`: the `diagonal=1` carried over to `tril` keeps one future key; the
cneuralnetwork/solving-ml-papers issue on scaling by the wrong width (a whole-approach shape confusion);
and many public `causal_mask` helpers built from `torch.triu(ones, diagonal=1) == 0`. Three wrong variants
carry a slip seen there (named in a comment above each); the other eleven are slips plausible for
students of these lessons (misread definitions, a half-remembered API, a check run on the wrong example).

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points (a
broken `stable_softmax` may also cost q5, whose function calls it, and q6, whose cell calls it; a broken
`causal_mask` may also cost q5, whose public check calls it, and q6 when the square mask itself is wrong).
Correct variants are really correct but written differently from full_marks. Every variant was checked
against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) on several shapes and dtypes,
including the notebook's own, with a throwaway script outside the repository before it was committed.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

SDPA = "scaled_dot_product_attention"
SM = "stable_softmax"
CM = "causal_mask"
SHAPES = "weights_shape"     # the q1 cell (also defines out_shape)
VAR = "raw_score_var"        # the q2 cell
TRACE = "weights3"           # the q6 cell
TRAP = "q_trap_answer"       # the q7 cell
COST = "attn_entries"        # the q8 cell

CORRECT = {
    "softmax_reciprocal_of_row_sum": {SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`: shift by the max, exponentiate, multiply by 1 / row sum."""
    peak, _ = x.max(dim, keepdim=True)
    e = (x - peak).exp()
    return e * e.sum(dim, keepdim=True).reciprocal()
'''},

    "causal_nested_comprehension": {CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    rows = [[j <= i for j in range(T_k)] for i in range(T_q)]
    return torch.tensor(rows, dtype=torch.bool).reshape(T_q, T_k)
'''},

    "sdpa_mT_where_masked_fill_rows": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    scores = Q.matmul(K.mT) / math.sqrt(K.shape[-1])
    if mask is None:
        return stable_softmax(scores, dim=-1).matmul(V)
    scores = torch.where(mask, scores, -math.inf)
    weights = stable_softmax(scores, dim=-1)
    weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights.matmul(V)
'''},

    "trace_numpy_float64_lists": {TRACE: '''
import numpy as np

q3n, k3n, v3n = Q3.numpy(), K3.numpy(), V3.numpy()
s3 = q3n @ k3n.T / 2.0                      # sqrt(d_k) = sqrt(4) = 2


def _row_softmax(a):
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


w3 = _row_softmax(s3)
weights3 = w3.tolist()
out3 = (w3 @ v3n).tolist()
weights3_causal = _row_softmax(np.where(np.tri(3, dtype=bool), s3, -np.inf)).tolist()
print(weights3, out3, weights3_causal, sep="\\n")
'''},

    "trap_answer_from_row_sums_check": {TRAP: '''
# try the classmate's shortcut on a small random example and look at the row sums
torch.manual_seed(1)
_s = torch.randn(4, 4)
_zeroed = F.softmax(_s, dim=-1)
_zeroed[~causal_mask(4)] = 0.0
_rows_still_sum_to_one = torch.allclose(_zeroed.sum(dim=-1), torch.ones(4))
q_trap_answer = "A" if _rows_still_sum_to_one else "C"
'''},
}

WRONG = {
    # --- q1 ---------------------------------------------------------------------------------------
    "q1_probe_transposes_queries_not_keys": ({SHAPES: '''
_Qp, _Kp = torch.empty(4, 10, 64), torch.empty(4, 10, 64)
weights_shape = tuple((_Qp.transpose(-2, -1) @ _Kp).shape)
out_shape = (4, 10, 128)
'''}, {"mistake": "the shape probe transposes the queries instead of the keys (Q^T K instead of Q K^T), so "
                  "weights_shape comes out feature-by-feature, (4, 64, 64), instead of one weight per "
                  "(query, key) pair, (4, 10, 10)",
       "where": ["q1"]}),

    "q1_out_shape_keys_t_values": ({SHAPES: '''
weights_shape = (4, 10, 10)
# the keys hand the values over: K^T V
out_shape = (4, 64, 128)
'''}, {"mistake": "out_shape is the shape of K^T V (d_k x d_v, as in linear attention) instead of the "
                  "shape of weights @ V: the output has one row per query, (4, 10, 128)",
       "where": ["q1"]}),

    # --- q2 ---------------------------------------------------------------------------------------
    # seen in: HomericIntelligence/Odyssey#5648 ("transpose(key) reverses all axes") and onnx/onnx#7118:
    # a full-axis transpose where only the last two axes should swap, as K.T does to a 3-D tensor
    "q2_dot_T_reverses_all_axes": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.T
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "K.T on the 3-D batch reverses all three axes, (2, 5, 8) -> (8, 5, 2), instead of swapping "
                  "the last two, so Q @ K.T raises a shape error and none of the q2 answers is defined; "
                  "use K.transpose(-2, -1)",
       "where": ["q2"]}),

    "q2_scores_normalised_by_their_std": ({VAR: '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
# scaling is meant to bring the variance back to about 1
scaled_score_var = (raw_scores / raw_scores.std()).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"mistake": "the scores are divided by their own standard deviation instead of by sqrt(d_k), which "
                  "forces the variance to exactly 1.0; dividing by sqrt(8) gives about 0.82",
       "where": ["q2"]}),

    # --- q3 ---------------------------------------------------------------------------------------
    "q3_cumsum_as_denominator": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.cumsum(dim=dim)
'''}, {"mistake": "the denominator is the running sum (cumsum) along dim instead of the total sum, so each "
                  "entry is divided by the sum of the entries up to it; only the last entry of each slice "
                  "is right and the slices no longer sum to 1",
       "where": ["q3", "q5", "q6"]}),

    "q3_expm1_for_exp": ({SM: '''
def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`; expm1 because it is the 'accurate' exponential."""
    shifted = x - x.amax(dim=dim, keepdim=True)
    exps = torch.expm1(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"mistake": "torch.expm1 computes e^x - 1, not e^x: after the shift the largest entry becomes 0 and "
                  "the others negative, so the 'weights' are not a softmax at all, and -inf logits get "
                  "-1 instead of 0",
       "where": ["q3", "q5", "q6"]}),

    # --- q4 ---------------------------------------------------------------------------------------
    "q4_comprehension_loops_nested_backwards": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.tensor([[j <= i for i in range(T_q)] for j in range(T_k)], dtype=torch.bool)
'''}, {"mistake": "the two loops of the comprehension are nested the wrong way round, so the outer list runs "
                  "over keys: the result is (T_k, T_q) and is the transpose of the causal mask (True on and "
                  "above the diagonal), letting queries see the future",
       "where": ["q4", "q5", "q6"]}),

    "q4_shape_built_as_keys_by_queries": ({CM: '''
def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    return torch.ones(T_k, T_q, dtype=torch.bool).tril()
'''}, {"mistake": "the ones are built with shape (T_k, T_q) instead of (T_q, T_k): right for square masks, "
                  "but for cross-attention lengths the mask has the wrong shape (and the wrong triangle)",
       "where": ["q4", "q5"]}),

    # --- q5 ---------------------------------------------------------------------------------------
    "q5_values_transposed_like_keys": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V.transpose(-2, -1))
'''}, {"mistake": "the values are transposed like the keys before the last product: weights (T_q, T_k) @ "
                  "V^T (d_v, T_k) only works when d_v happens to equal T_k, and then mixes the wrong "
                  "numbers; the output is weights @ V",
       "where": ["q5"]}),

    "q5_bool_mask_negated_with_minus": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        blocked = -mask
        scores = scores.masked_fill(blocked, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''}, {"mistake": "the boolean mask is negated with unary minus instead of ~ (or logical_not): torch refuses "
                  "'-' on bool tensors, so every call with a mask raises",
       "where": ["q5"]}),

    # --- q6 ---------------------------------------------------------------------------------------
    # seen in: niujiazhen/happy-llm docs/chapter2/code/maskSelfAttention.py, whose causal bias is
    # torch.triu(..., diagonal=1); the diagonal=1 carried over to tril keeps one future key
    "q6_causal_tril_diagonal_one": ({TRACE: '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
allowed3 = torch.tril(torch.ones(3, 3), diagonal=1).bool()
weights3_causal = stable_softmax(scores3.masked_fill(~allowed3, float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"mistake": "the causal mask for the trace is built with tril(..., diagonal=1), which also keeps the key "
                  "just after each query (diagonal=1 is the offset for triu's blocked part, not for tril), "
                  "so weights3_causal lets queries 0 and 1 see one future token",
       "where": ["q6"]}),

    # --- q7 ---------------------------------------------------------------------------------------
    "q7_checked_on_diagonal_dominant_scores": ({TRAP: '''
# check the classmate's shortcut myself: each token attends to itself
torch.manual_seed(0)
_T = 4
_scores = 20.0 * torch.eye(_T)
_V = torch.randn(_T, 2)
_zeroed = F.softmax(_scores, dim=-1)
_zeroed[~causal_mask(_T)] = 0.0
_proper = F.softmax(_scores.masked_fill(~causal_mask(_T), float("-inf")), dim=-1)
q_trap_answer = "A" if torch.allclose(_zeroed @ _V, _proper @ _V) else "C"
'''}, {"mistake": "the check is run on scores where every query puts almost all its weight on itself, so the "
                  "future weights that get zeroed are tiny and the two outputs agree to rounding; in general "
                  "the zeroed rows no longer sum to 1 (answer C), and the cell answers A",
       "where": ["q7"]}),

    # --- q8 ---------------------------------------------------------------------------------------
    "q8_score_madds_only_lower_triangle": ({COST: '''
attn_entries = 1024 ** 2
# a causal model only needs the scores on and below the diagonal
score_madds = 1024 * 1025 // 2 * 64
cost_ratio = 4
'''}, {"mistake": "the multiply-adds count only the causal lower triangle, T (T + 1) / 2 * d_k, while "
                  "computing Q @ K.T computes every one of the T^2 scores: 1024 * 1024 * 64",
       "where": ["q8"]}),

    "q8_entries_for_batch_of_four": ({COST: '''
batch = 4   # as in question 1
attn_entries = batch * 1024 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"mistake": "the entries are counted for a batch of 4 sequences carried over from question 1; the "
                  "question asks about one head and one sequence, 1024 ** 2 entries",
       "where": ["q8"]}),
}
