"""Blind held-out set 40 for attention-pipeline.

Fortieth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (including its
public checks: the multiple-choice answers must be a str that is one letter after strip().lower(), the q11
answers Python ints, qkv_param_count(6, 4, 4) == 72), full_marks.ipynb (whose cells these replace),
`harness.py`, the lesson text `lesson-08-attention-pipeline.txt` (its rank paragraph: "A itself is
generally full rank; the budget is on the scores"), blind39.py in full (for the format) and only the module
docstrings and variant names of the earlier blind sets (to lean on less-touched questions and not repeat a
mistake an earlier name shows).

Public sources used (the `search` tool, code / issues / docs corpora):
- the TensorFlow "Transformer model for language understanding" idiom `scaled_attention_logits +=
  (mask * -1e9)`, where mask is a 0/1 "blocked" indicator, found in many public ports (e.g. the
  scaled_dot_product_attention functions returned for that query; cyobero/datascience
  tensorflow/chatbot/scaled_dot_product_attention.py even has it as `mask * 1e-9`), for an additive
  finfo.min mask multiplied by -1e9 as if it were TensorFlow's 0/1 mask (q05);
- the Flax docs of flax.linen.make_causal_mask ("will produce a causal mask of shape
  [batch..., 1, len, len]", the 1 broadcasting over heads), for a mask ported with that leading axis (q04);
- fastai/fastai issue #1389 ("Comparing a list with a torch.Size object is always False": torch.Size is a
  tuple subclass) and the torch._dynamo review note in pytorch/pytorch PR #94054 ("tuple([2]) ==
  torch.Size([2]) but tuple([2]) != list([2])"), for a shape experiment whose list comparisons never
  match (q14);
- pytorch/pytorch PR #1467 (F.normalize added with p=2 as the default), for rows "normalised" to unit
  Euclidean length instead of to sum 1 (q09);
- the Python rule that math.prod of an empty iterable is 1 (its start value), for a parameter count
  whose optional term is an empty shape tuple (q12);
- the Python rule that `x and y` returns y when x is truthy, for two letters joined with `and` (q06);
- the TensorFlow idiom tf.tensordot(X, W, axes=1), ported as torch.tensordot(..., dims=1), for a correct
  projection, and numpy string indexing (which returns numpy.str_, a str subclass), for a correct
  multiple-choice answer.
Variants carrying a slip seen there name the source in a comment.

Round 40 leans on the questions the earlier sets touched least (the multiple-choice q06 twice, q15, q03,
q14, q16, then q11, q01, q12, q09) and on code shapes not used before: two letters joined with `and`
(q06), a rank experiment on masked versus unmasked scores read as "the score matrix loses rank" (q06),
an answer given as a set (q15), an entropy experiment that looks only at the first causal row, which has
one visible key whatever the scale (q03), torch.Size compared with lists (q14), a cost experiment that
builds the d_k x d_k Gram matrix Q^T K instead of S (q16), the rank of the lesson's attention weights
instead of its scores (q11), a batch axis added for unbatched inputs and never removed (q01), an empty
shape in a math.prod sum (q12), F.normalize's default p=2 (q09), pairwise products broadcast with the
unsqueezed axes swapped, giving S transposed (q02), Flax's leading head axis on the mask (q04), the
TensorFlow `mask * -1e9` applied to an additive mask (q05), and a fused key/value projection split with
chunk(2), which assumes d_k == d_v (q13). Each wrong variant changes one cell of an otherwise full-marks
notebook and holds exactly one mistake; `where` lists every question whose tests may lose points (q07,
q09's zero-projection test and q13's self-attention check call project_qkv / scaled_scores /
causal_additive_mask / attention_weights through self_attention; q05's and q10's public checks call
scaled_scores, causal_additive_mask and attention_weights; q10's uniform-rows check calls
prefix_average_matrix). The experiment cells draw from their own torch.Generator, so they do not move the
global random state. Every variant was checked against plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers, the full-marks
cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v; T_q != T_k; the
lesson's inputs) with a throwaway script under /tmp/w40-pipeline/ before it was written down.

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
    # TensorFlow's tf.tensordot(X, W, axes=1): contract the last axis of X with the first of W
    "tensordot_dims_one_projection": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = (torch.tensordot(X, W, dims=1) for W in (W_Q, W_K, W_V))
    return Q, K, V
''',
    },
    "swapaxes_matmul_div_method_scores": {
        SCORES: '''def scaled_scores(Q, K):
    head = K.size(-1)                      # d_k, the same for queries and keys
    return torch.matmul(Q, K.swapaxes(-1, -2)).div(math.sqrt(head))
''',
    },
    "masked_fill_ones_log2_exp2_entropy": {
        ENT: '''def row_entropy_bits(A):
    # log2(1) = 0, so putting 1 where A is 0 makes those terms 0 * 0
    safe = A.masked_fill(A == 0, 1.0)
    return -(A * safe.log2()).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    "eye_cumsum_prefix_and_torch_size_count": {
        AVG: '''def prefix_average_matrix(T):
    lower = torch.eye(T, dtype=torch.float64).cumsum(dim=0)          # ones on and below the diagonal
    return lower / torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1)
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = torch.Size([d_model, 2 * d_k + d_v]).numel()      # W_Q | W_K | W_V side by side
    if with_output:
        n += torch.Size([d_v, d_model]).numel()
    return n
''',
    },
    # numpy string indexing gives numpy.str_, a subclass of str
    "numpy_str_and_padded_upper_case_letters": {
        SHAPES_ANS: '''import numpy as np

_letters = np.array(list("abcd"))
ans_cross_shapes = _letters[1]          # S is T x T', O is T x d_v
''',
        COST_ANS: '''ans_complexity = " C "      # T^2 scores of d_k multiply-adds each
''',
    },
}

WRONG = {
    "q01_batch_axis_added_and_kept": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # always work on a (B, T, d_model) batch, as in a training loop
    if X.dim() == 2:
        X = X.unsqueeze(0)
    return X @ W_Q, X @ W_K, X @ W_V
''',
    }, {"mistake": "Adds a batch axis to an unbatched (T, d_model) input and never removes it, so Q, K and V "
                   "come back (1, T, d) instead of (T, d), and everything built on them carries the extra axis.",
        "where": ["q01", "q07", "q09", "q13"]}),

    "q02_broadcast_unsqueeze_axes_swapped": ({
        SCORES: '''def scaled_scores(Q, K):
    # every query against every key by broadcasting, then sum over the features
    pairs = Q.unsqueeze(-3) * K.unsqueeze(-2)
    return pairs.sum(dim=-1) / math.sqrt(Q.shape[-1])
''',
    }, {"mistake": "Broadcasts the pairwise products with the new axes the wrong way round (Q.unsqueeze(-3) * "
                   "K.unsqueeze(-2)), so the keys index the rows: the result is S transposed, shape (T_k, T_q).",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    "q03_experiment_on_first_causal_row": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_future = torch.ones(8, 8, dtype=torch.bool).triu(1)          # causal, as in a language model
_A_scaled = torch.softmax(scaled_scores(_Q, _K).masked_fill(_future, float("-inf")), dim=-1)
_A_raw = torch.softmax((_Q @ _K.T).masked_fill(_future, float("-inf")), dim=-1)


def _bits(row):
    p = row[row > 0]
    return float(-(p * torch.log2(p)).sum())


# compare one row with and without the scale
_h_scaled, _h_raw = _bits(_A_scaled[0]), _bits(_A_raw[0])
if abs(_h_raw - _h_scaled) < 1e-9:
    ans_scale = "c"
elif _h_raw < _h_scaled:
    ans_scale = "b"
else:
    ans_scale = "a"
''',
    }, {"mistake": "Settles the question with an experiment on the first row of a causal attention matrix, "
                   "which sees a single key and has entropy 0 with or without the scale, so it answers 'c' "
                   "(nothing changes) instead of 'b' (rows collapse onto one key).",
        "where": ["q03"]}),

    # flax.linen.make_causal_mask returns [batch..., 1, len, len]
    "q04_flax_style_mask_keeps_head_axis": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # as flax.linen.make_causal_mask: [batch..., 1, len, len], the 1 broadcasts over heads
    idx = torch.arange(T, device=device)
    allowed = (idx[:, None] >= idx[None, :])[None]
    zero = torch.zeros((), dtype=dtype, device=device)
    return torch.where(allowed, zero, torch.finfo(dtype).min)
''',
    }, {"mistake": "Returns the mask with a leading singleton axis, shape (1, T, T) instead of (T, T); the "
                   "values are right, but unbatched scores plus this mask (and the attention weights built "
                   "from them) pick up the extra axis.",
        "where": ["q04", "q05", "q07", "q09", "q10", "q13"]}),

    # TensorFlow tutorial: scaled_attention_logits += (mask * -1e9), with mask = 1 where blocked
    "q05_tf_tutorial_mask_times_minus_1e9": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M * -1e9          # push the masked logits far down
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Treats the additive mask as TensorFlow's 0/1 'blocked' indicator and multiplies it by "
                   "-1e9: the blocked finfo.min entries become +inf, so every masked row of the softmax is NaN.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q06_letters_joined_with_and": ({
        MASK_ANS: '''ans_mask = "c" and "d"     # c, and d plays a part as well
''',
    }, {"mistake": "Joins two letters with `and`, which in Python evaluates to the second one, so ans_mask "
                   "is 'd' (no gradient flow) instead of 'c' (position t reads the token it must predict).",
        "where": ["q06"]}),

    "q06_rank_experiment_read_as_rank_loss": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(1)
_Q = torch.randn(6, 2, dtype=torch.float64, generator=_g)
_K = torch.randn(6, 2, dtype=torch.float64, generator=_g)
_S = scaled_scores(_Q, _K)
_future = torch.ones(6, 6, dtype=torch.bool).triu(1)
_rank_masked = int(torch.linalg.matrix_rank(_S.masked_fill(_future, -1e9)))   # the lesson's -1e9
_rank_plain = int(torch.linalg.matrix_rank(_S))
# without the mask the scores have lower rank, so switching it off costs rank
ans_mask = "b" if _rank_plain < _rank_masked else "c"
''',
    }, {"mistake": "Compares the rank of the masked and the unmasked scores, finds the unmasked ones of lower "
                   "rank (2 < 6) and answers 'b' (the score matrix loses rank); the rank of S never depended "
                   "on the mask: the problem is that position t reads the token it must predict ('c').",
        "where": ["q06"]}),

    "q09_rows_normalized_to_unit_length": ({
        AVG: '''import torch.nn.functional as F


def prefix_average_matrix(T):
    lower = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return F.normalize(lower, dim=-1)          # normalise every row
''',
    }, {"mistake": "Normalises the rows with F.normalize, whose default p=2 gives rows of unit Euclidean "
                   "length (1/sqrt(t) each) instead of rows that sum to 1 (1/t each).",
        "where": ["q09", "q10"]}),

    "q11_lesson_rank_of_attention_weights": ({
        RANK: '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

max_rank_S = 8
_A_lesson = attention_weights(scaled_scores(Q_lesson, K_lesson), causal_additive_mask(5, torch.float64))
rank_S_lesson = int(torch.linalg.matrix_rank(_A_lesson))
''',
    }, {"mistake": "Measures the rank of the lesson's causal attention weights A (lower-triangular with a "
                   "positive diagonal, so 5) instead of the rank of its score matrix S (2).",
        "where": ["q11"]}),

    "q12_empty_shape_product_is_one": ({
        PARAMS: '''import math


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v), (d_v, d_model) if with_output else ()]
    return sum(math.prod(shape) for shape in shapes)
''',
    }, {"mistake": "Leaves an empty shape () for the missing output projection, but math.prod(()) is 1, not "
                   "0, so every count without W_O is one too many (73 instead of 72).",
        "where": ["q12"]}),

    "q13_fused_kv_chunked_in_two": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K, V = (Y @ torch.cat([W_K, W_V], dim=-1)).chunk(2, dim=-1)     # one matmul for keys and values
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Splits the fused key/value projection with chunk(2), into two halves of equal width: "
                   "right only when d_k == d_v; otherwise K and V get the wrong columns (and K no longer "
                   "matches the queries' width).",
        "where": ["q13"]}),

    # torch.Size is a tuple subclass: it never equals a list (fastai/fastai issue #1389)
    "q14_torch_size_compared_with_list": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_X = torch.randn(3, 6, dtype=torch.float64, generator=_g)      # T = 3 query tokens
_Y = torch.randn(5, 6, dtype=torch.float64, generator=_g)      # T' = 5 key / value tokens
_W = [torch.randn(6, 4, dtype=torch.float64, generator=_g), torch.randn(6, 4, dtype=torch.float64, generator=_g),
      torch.randn(6, 2, dtype=torch.float64, generator=_g)]
_O, _A = cross_attention(_X, _Y, *_W)
if _A.shape == [3, 3] and _O.shape == [3, 2]:
    ans_cross_shapes = "a"
elif _A.shape == [3, 5] and _O.shape == [3, 2]:
    ans_cross_shapes = "b"
elif _A.shape == [5, 3] and _O.shape == [5, 2]:
    ans_cross_shapes = "c"
else:
    ans_cross_shapes = "d"
''',
    }, {"mistake": "Checks the shapes by comparing torch.Size with Python lists, which is always False "
                   "(torch.Size is a tuple), so every test fails and the fall-through answer 'd' is stored "
                   "instead of 'b'.",
        "where": ["q14"]}),

    "q15_answer_as_a_set": ({
        CAUSAL_ANS: '''ans_cross_causal = {"d"}     # the set of options that hold
''',
    }, {"mistake": "Gives the answer as a one-element set {'d'} instead of the string 'd'.",
        "where": ["q15"]}),

    "q16_experiment_with_gram_matrix": ({
        COST_ANS: '''_g = torch.Generator().manual_seed(0)


def _entries_of_S(T, d_k=64):
    Q = torch.randn(T, d_k, generator=_g)
    K = torch.randn(T, d_k, generator=_g)
    S = Q.T @ K                      # the scores
    return S.numel()


_ratio = _entries_of_S(200) / _entries_of_S(100)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Builds Q^T K, the d_k x d_k Gram matrix, instead of S = Q K^T in the cost experiment; "
                   "its size does not change with T, so it answers 'b' (no growth) instead of 'c' "
                   "(quadratic).",
        "where": ["q16"]}),
}
