"""Blind held-out set 54 for attention-pipeline.

Fifty-fourth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of full_marks.ipynb (tokens are rows,
leading batch dimensions allowed, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min, prefix
average in float64, multiple-choice answers are one-letter strings, both q11 answers Python ints),
`harness.py`, blind53.py in full (for the format), only the module docstrings and variant names of the
earlier blind sets (counted per question: q15, q14, q03, q06 and q16 are the least touched, then q11, q01
and q09; q05, q10 and q07 the most), and the lesson text lesson-08-attention-pipeline.txt (its scale
experiment on one row of 8 keys at d_k = 512, its rank(S) = 2 table, its exercise on key padding and
cross-attention, its complexity exercise).

Public sources used (the `search` tool, issues corpus):
- m96-chan/web-xpu-ops #77 ("a key padding mask": at batch 1 "padding can be avoided entirely by slicing
  each sequence to its true length before the dispatch") and Kyubyong/transformer #16 (key masking of
  padded keys): the q13 variant that slices the padded keys off instead of applying M.
- pytorch/pytorch #11951 and #2138 (Double/Float mismatches in matmul): the q01 variant whose NumPy-style
  preallocated `out=` buffer is made in the default dtype, so float64 and float16 inputs fail in matmul.
Variants carrying a slip seen there name the source in a comment.

Round 54 leans on q15, q14, q03, q06 and q16 (two each), then q11, q09, q13 and q01, in code shapes not used
before: a q15 letter made with chr(ord("a") + 4) (counting d as the fourth option and adding four: 'e'), a
q15 letter taken from string.ascii_uppercase ('D'), a q14 answer left as numpy.argmax of option scores (a
numpy integer 1), a q14 experiment comparing shapes with `is` (never true, falls through to 'd'), a q03
experiment whose features are "normalised" by dividing by d_k (both rows nearly flat: 'c'), a q03
experiment with a single key (every row one-hot both ways: 'c'), a q06 answer looked up in a dict under
the key "q6" while it was stored as "q06" (None), a q06 answer built from a format string missing its f
prefix (the literal text "{_choice}"), a q16 causal score count T(T+1)/2 compared with == 4 (ratio 3.98,
falls to 'a'), a q16 growth measured as a difference instead of a ratio (huge, answers 'd'), a q11 lesson
rank read from the nuclear norm (3), a q09 matrix filled through torch.tril_indices with 1/(column + 1)
instead of 1/(row + 1), a q13 padding mask applied by slicing the padded keys off (A loses columns), and
q01 projections written into torch.empty buffers of the default dtype through matmul's out=.
The correct variants use other functions and idioms than full_marks: F.linear with a transposed weight and
matmul with .transpose(-1, -2).div, a torch.where mask from two aranges with torch.special.softmax and
matmul, q09 built as the softmax of the float64 causal mask on zeros with an int() rank and a sum of
products count, a cross-attention that calls project_qkv twice with an xlogy entropy and a
softmax-weighted kernel, and letters written as "ab"[True], "abcd"[2:3], "\\u0062", "D".lower() and
"".join(["c"]).
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the full-marks cells, the lesson's
hand-built Q and K) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k) with a throwaway script under /tmp/w54-attention/ before it was written down.

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
    # projections with F.linear on the transposed weights; scores with matmul, transpose(-1, -2) and .div
    "functional_linear_projection_and_matmul_div_scores": {
        PROJ: '''import torch.nn.functional as F


def project_qkv(X, W_Q, W_K, W_V):
    return tuple(F.linear(X, W.transpose(0, 1)) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    return torch.matmul(Q, K.transpose(-1, -2)).div(math.sqrt(Q.size(-1)))
''',
    },
    # the mask from two aranges with torch.where on dtype scalars; torch.special.softmax; matmul for the mix
    "where_mask_special_softmax_and_matmul_mix": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    blocked = pos[None, :] > pos[:, None]
    low = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    zero = torch.tensor(0, dtype=dtype, device=device)
    return torch.where(blocked, low, zero)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S + M if M is not None else S
    return torch.special.softmax(Z, dim=-1)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        A = attention_weights(S, causal_additive_mask(S.size(-1), dtype=S.dtype, device=S.device))
    else:
        A = attention_weights(S)
    return torch.matmul(A, V), A
''',
    },
    # Lesson 07's matrix as the softmax of the float64 causal mask on zero scores; rank with int(); a
    # count as a sum of products
    "prefix_average_as_softmax_of_mask_and_summed_count": {
        AVG: '''def prefix_average_matrix(T):
    M = causal_additive_mask(T, torch.float64)
    return torch.softmax(torch.zeros(T, T, dtype=torch.float64) + M, dim=-1)
''',
        RANK: '''max_rank_S = min(8, 100)

_Kl = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Ql = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Ql, _Kl)))
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(a * b for a, b in shapes)
''',
    },
    # cross-attention through project_qkv twice; xlogy entropy; the kernel as softmax weights over keys
    "cross_via_two_projections_xlogy_entropy_softmax_kernel": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, _, _ = project_qkv(X, W_Q, W_K, W_V)
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.pow(2, row_entropy_bits(A))
''',
        NW: '''def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.numel()), dim=0)
    return w @ V
''',
    },
    # letters written through an index by a bool, a slice, a unicode escape, lower() and join
    "letters_by_bool_index_slice_escape_lower_join": {
        SCALE_ANS: '''ans_scale = "ab"[True]
''',
        MASK_ANS: '''ans_mask = "abcd"[2:3]
''',
        SHAPES_ANS: '''ans_cross_shapes = "\\u0062"
''',
        CAUSAL_ANS: '''ans_cross_causal = "D".lower()
''',
        COST_ANS: '''ans_complexity = "".join(["c"])
''',
    },
}

WRONG = {
    "q15_fourth_option_as_chr_offset_from_a": ({
        CAUSAL_ANS: '''ans_cross_causal = chr(ord("a") + 4)          # the fourth option
''',
    }, {"mistake": "Counts d as the fourth option and adds 4 to 'a', so chr(ord('a') + 4) gives 'e', a letter "
                   "that is not even an option, instead of 'd'.",
        "where": ["q15"]}),

    "q15_letter_taken_from_ascii_uppercase": ({
        CAUSAL_ANS: '''import string

ans_cross_causal = string.ascii_uppercase[3]
''',
    }, {"mistake": "Takes the letter from string.ascii_uppercase, so the answer is the capital 'D' instead of "
                   "the lower-case 'd' the question asks for.",
        "where": ["q15"]}),

    "q14_answer_left_as_numpy_argmax_index": ({
        SHAPES_ANS: '''import numpy as np

_plausible = np.array([0.1, 0.7, 0.05, 0.15])          # how sure I am of a, b, c, d
ans_cross_shapes = np.argmax(_plausible)
''',
    }, {"mistake": "Leaves the answer as np.argmax of its option scores, the numpy integer 1 (the position of "
                   "b), instead of the letter 'b'.",
        "where": ["q14"]}),

    "q14_experiment_compares_shapes_with_is": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _dm, _dv = 3, 5, 6, 2
_X = torch.randn(_T, _dm, dtype=torch.float64, generator=_g)
_Y = torch.randn(_Tp, _dm, dtype=torch.float64, generator=_g)
_Ws = [torch.randn(_dm, d, dtype=torch.float64, generator=_g) for d in (4, 4, _dv)]
_O, _A = cross_attention(_X, _Y, *_Ws)
_S_shape, _O_shape = tuple(_A.shape), tuple(_O.shape)
if _S_shape is (_T, _T) and _O_shape is (_T, _dv):
    ans_cross_shapes = "a"
elif _S_shape is (_T, _Tp) and _O_shape is (_T, _dv):
    ans_cross_shapes = "b"
elif _S_shape is (_Tp, _T):
    ans_cross_shapes = "c"
else:
    ans_cross_shapes = "d"
''',
    }, {"mistake": "Compares the shape tuples with `is` instead of ==: two equal tuples are different objects, "
                   "so no branch matches and it falls through to 'd' instead of 'b'.",
        "where": ["q14"]}),

    "q03_experiment_features_divided_by_d_k": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d = 512
_Q = torch.randn(8, _d, dtype=torch.float64, generator=_g) / _d          # normalise the features
_K = torch.randn(8, _d, dtype=torch.float64, generator=_g) / _d


def _mean_bits(S):
    A = torch.softmax(S, dim=-1)
    return -(A * torch.log2(A)).sum(dim=-1).mean().item()


_H_raw = _mean_bits(_Q @ _K.transpose(-2, -1))
_H_scaled = _mean_bits(scaled_scores(_Q, _K))
if _H_raw < _H_scaled - 0.5:
    ans_scale = "b"
elif _H_raw > _H_scaled + 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Its experiment divides the random features by d_k, so they are far from unit variance: every "
                   "score is about 0 with or without the scale, both rows stay flat, and it answers 'c' "
                   "instead of 'b'.",
        "where": ["q03"]}),

    "q03_experiment_with_a_single_key": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_k = torch.randn(1, 512, dtype=torch.float64, generator=_g)          # one query-key dot product


def _bits(S):
    A = torch.softmax(S, dim=-1)
    return torch.special.entr(A).sum(dim=-1).mean().item() / math.log(2)


_H_raw = _bits(_q @ _k.transpose(-2, -1))
_H_scaled = _bits(scaled_scores(_q, _k))
if _H_raw < _H_scaled - 0.5:
    ans_scale = "b"
elif _H_raw > _H_scaled + 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Runs its experiment with a single key: a softmax over one key is always 1, so both entropies "
                   "are 0, it sees no change and answers 'c' instead of 'b'.",
        "where": ["q03"]}),

    "q06_answer_looked_up_under_unpadded_question_key": ({
        MASK_ANS: '''_my_answers = {"q03": "b", "q06": "c", "q14": "b", "q15": "d", "q16": "c"}
ans_mask = _my_answers.get("q6")
''',
    }, {"mistake": "Looks its answer up under the key 'q6' while it stored it under 'q06', so dict.get returns "
                   "None instead of 'c'.",
        "where": ["q06"]}),

    "q06_format_string_missing_f_prefix": ({
        MASK_ANS: '''_choice = "c"
ans_mask = "{_choice}"
''',
    }, {"mistake": "Forgets the f prefix on the format string, so ans_mask is the literal text '{_choice}' "
                   "instead of the letter 'c'.",
        "where": ["q06"]}),

    "q16_causal_score_count_compared_exactly_with_four": ({
        COST_ANS: '''def _n_scores(T):
    return T * (T + 1) // 2          # causal: query t only scores keys 1..t


_ratio = _n_scores(200) / _n_scores(100)
if _ratio == 4:
    ans_complexity = "c"
elif _ratio == 8:
    ans_complexity = "d"
elif _ratio == 1:
    ans_complexity = "b"
else:
    ans_complexity = "a"
''',
    }, {"mistake": "Tests its growth ratio with == 4; the causal count T(T+1)/2 gives 3.98 when T doubles, "
                   "so no exact test matches and it answers 'a' (linear) instead of 'c'.",
        "where": ["q16"]}),

    "q16_growth_measured_as_difference_not_ratio": ({
        COST_ANS: '''def _cost(T, d_k=64):
    return T * T * d_k          # T^2 scores, d_k multiply-adds each


_growth = _cost(200) - _cost(100)          # how much more when T doubles
if abs(_growth - 2) < 0.5:
    ans_complexity = "a"
elif abs(_growth - 4) < 0.5:
    ans_complexity = "c"
elif _growth > 6:
    ans_complexity = "d"
else:
    ans_complexity = "b"
''',
    }, {"mistake": "Measures the growth as the difference cost(2T) - cost(T) instead of the ratio, a huge number, "
                   "so it answers 'd' (cubic) instead of 'c'.",
        "where": ["q16"]}),

    "q11_lesson_rank_from_nuclear_norm": ({
        RANK: '''max_rank_S = 8

_Kl = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Ql = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = round(torch.linalg.matrix_norm(scaled_scores(_Ql, _Kl), ord="nuc").item())
''',
    }, {"mistake": "Takes the nuclear norm (the sum of the singular values, the usual convex stand-in for rank) "
                   "as the rank: 2.09 + 1.17 rounds to 3 instead of 2.",
        "where": ["q11"]}),

    "q09_tril_indices_weights_from_column_index": ({
        AVG: '''def prefix_average_matrix(T):
    rows, cols = torch.tril_indices(T, T)
    W = torch.zeros(T, T, dtype=torch.float64)
    W[rows, cols] = 1.0 / (cols + 1).double()
    return W
''',
    }, {"mistake": "Fills the lower triangle with 1/(column + 1) instead of 1/(row + 1), so row t holds 1, 1/2, "
                   "..., 1/t and no longer sums to 1 (only the first row is right).",
        "where": ["q09"]}),

    # m96-chan/web-xpu-ops #77 (padding "avoided entirely by slicing each sequence to its true length")
    "q13_padded_keys_sliced_off_instead_of_masked": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is not None:
        n = int((M[..., 0, :] == 0).sum())          # keys left open; the padding sits at the end of Y
        K, V = K[..., :n, :], V[..., :n, :]
    A = attention_weights(scaled_scores(Q, K))
    return A @ V, A
''',
    }, {"mistake": "Applies the padding mask by slicing the blocked keys off K and V instead of adding M, so A "
                   "has only the open columns (shape (T, n) instead of (T, T')) and any mask that is not "
                   "trailing padding shared by every row is applied wrongly.",
        "where": ["q13"]}),

    # pytorch/pytorch #11951, #2138: Double/Float mismatches in matmul
    "q01_out_buffers_allocated_in_default_dtype": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    outs = []
    for W in (W_Q, W_K, W_V):
        buf = torch.empty(*X.shape[:-1], W.shape[-1], device=X.device)          # preallocate like NumPy
        torch.matmul(X, W, out=buf)
        outs.append(buf)
    return tuple(outs)
''',
    }, {"mistake": "Preallocates the out= buffers with torch.empty in the default dtype (float32), so matmul "
                   "refuses float64 and float16 inputs (and everything built on the projections fails for them).",
        "where": ["q01", "q07", "q09"]}),
}
