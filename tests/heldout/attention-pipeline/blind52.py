"""Blind held-out set 52 for attention-pipeline.

Fifty-second blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (its
conventions: tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked entries hold
torch.finfo(dtype).min, prefix average in float64, multiple-choice answers are one-letter strings checked
after strip().lower(), both q11 answers Python ints), full_marks.ipynb (whose cells these replace),
`harness.py`, the lesson text `lesson-08-attention-pipeline.txt` (its rank-2 lesson scores, the parameter
exercise), blind51.py in full (for the format) and only the module docstrings and variant names of the
earlier blind sets (counted per question: q14, q15, q03, q06 and q16 are still the least touched, then
q11, q01 and q09).

Public sources used (the `search` tool):
- pages: "The Case of the Mystery Operator" (The Quixotic Engineer blog, as stored in the
  nvidia/Nemotron-CC-Math-v1 page) and a DaniWeb-style "Python Math Confusion" thread in the same page:
  `^` typed for a power is bitwise XOR in Python; the q16 variant writes its cost as `T ^ 2 * d_k`;
- issues: espnet/espnet #1604 ("torch unsqueeze is not inplace") and deep-learning-with-pytorch/dlwpt-code
  #36 (unsqueeze_ vs unsqueeze): the in-place/out-of-place unsqueeze confusion; the q01 variant adds the
  batch axis with `X.unsqueeze_(0)`, which edits the caller's tensor and returns batched projections for a
  2-D input.
Variants carrying a slip seen there name the source in a comment.

Round 52 leans on the questions the earlier sets touched least (q14, q15, q03, q06 and q16 twice each)
plus one variant each on q01, q08, q09 and q12, in code shapes not used before: a q14 answer assigned from
print(...) (None), a q14 experiment that puts the queries on Y and the keys and values on X (answers 'c'),
a q15 letter picked by NumPy boolean indexing (a 1-element array), a q15 letter "cleaned" with split()
(a list), a q03 experiment that unpacks its two entropies in swapped order (answers 'a'), a q03 answer
written as "option b", a q06 answer left as the template's Ellipsis, a q06 answer that is the option's
sentence instead of its letter, a q16 cost written with `^` (XOR, answers 'b'), a q16 answer given as the
exponent 2 (an int), a q01 batch axis added in place with unsqueeze_, a q08 mix with torch.mv on the
untransposed values, a q09 matrix divided by the row counts of the upper triangle, and a q12 count that
generalises 3 d_model d_k with the mean head width (a float, wrong when d_k != d_v).
The correct variants use other functions and idioms than full_marks: a generator of matmuls and swapaxes
scores with .div, a where-over-aranges mask with a hand-written amax-shifted softmax, entr entropy with
torch.pow(2.0, H) and a softmax kernel, reciprocal counts times a triangle with a one-line count and int()
ranks, an einsum self-attention and letters written as "B".lower(), " c ", chr(ord("a") + 1), "abcd"[-1]
and str("c").
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers,
the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w52-attention/ before it was written
down.

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
    # projections from a generator of matmuls; scores with swapaxes and .div by the Python float
    "matmul_generator_projection_and_swapaxes_div_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.matmul(X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    return torch.matmul(Q, K.swapaxes(-1, -2)).div(math.sqrt(K.size(-1)))
''',
    },
    # the mask by comparing two aranges inside torch.where; a hand-written softmax shifted by amax
    "where_arange_mask_and_amax_shifted_softmax": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    i = torch.arange(T, device=device)
    blocked = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    open_ = torch.tensor(0, dtype=dtype, device=device)
    return torch.where(i[None, :] > i[:, None], blocked, open_)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    E = (Z - Z.amax(dim=-1, keepdim=True)).exp()
    return E / E.sum(dim=-1, keepdim=True)
''',
    },
    # entropy with torch.special.entr converted to bits and 2 ** H with torch.pow(2.0, .); the kernel
    # average as a softmax over the keys times V
    "entr_entropy_pow_tokens_and_softmax_kernel": {
        ENT: '''def row_entropy_bits(A):
    return torch.special.entr(A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
        NW: '''def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(K.shape[-1]), dim=0)
    return w @ V
''',
    },
    # reciprocal row numbers times a triangle; a one-line count; ranks through int()
    "reciprocal_rows_prefix_one_line_count_int_ranks": {
        AVG: '''def prefix_average_matrix(T):
    r = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.ones(T, T, dtype=torch.float64).tril() * r[:, None]
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)
''',
        RANK: '''max_rank_S = min(8, 100)

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q, _K)))
''',
    },
    # self-attention written with two einsums; letters from lower(), padding, chr/ord, a negative index, str()
    "einsum_self_attention_and_computed_letters": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    if causal:
        S = S + causal_additive_mask(S.shape[-1], S.dtype, S.device)
    A = torch.softmax(S, dim=-1)
    return torch.einsum("...qk,...kv->...qv", A, V), A
''',
        SCALE_ANS: '''ans_scale = "B".lower()
''',
        MASK_ANS: '''ans_mask = " c "
''',
        SHAPES_ANS: '''ans_cross_shapes = chr(ord("a") + 1)
''',
        CAUSAL_ANS: '''ans_cross_causal = "abcd"[-1]
''',
        COST_ANS: '''ans_complexity = str("c")
''',
    },
}

WRONG = {
    "q14_answer_assigned_from_print_returns_none": ({
        SHAPES_ANS: '''ans_cross_shapes = print("b")          # show the answer as well
''',
    }, {"mistake": 'Assigns the result of print("b"), which prints the letter but returns None, so '
                   "ans_cross_shapes is None instead of the string 'b'.",
        "where": ["q14"]}),

    "q14_experiment_queries_from_y_keys_values_from_x": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model, _d_k, _d_v = 5, 3, 6, 4, 2
_X = torch.randn(_T, _d_model, generator=_g)
_Y = torch.randn(_Tp, _d_model, generator=_g)
_W_Q = torch.randn(_d_model, _d_k, generator=_g)
_W_K = torch.randn(_d_model, _d_k, generator=_g)
_W_V = torch.randn(_d_model, _d_v, generator=_g)
_Q, _K, _V = _Y @ _W_Q, _X @ _W_K, _X @ _W_V        # decoder side Y asks the source X
_S = scaled_scores(_Q, _K)
_O = torch.softmax(_S, dim=-1) @ _V
_shapes = {"a": ((_T, _T), (_T, _d_v)), "b": ((_T, _Tp), (_T, _d_v)),
           "c": ((_Tp, _T), (_Tp, _d_v)), "d": ((_T, _Tp), (_Tp, _d_v))}
ans_cross_shapes = next((k for k, v in _shapes.items() if v == (tuple(_S.shape), tuple(_O.shape))), "a")
''',
    }, {"mistake": "Its experiment takes the queries from Y and the keys and values from X (the roles of the "
                   "two sequences swapped), so S comes out T' x T and O T' x d_v and it answers 'c' instead "
                   "of 'b'.",
        "where": ["q14"]}),

    "q15_letter_picked_by_numpy_boolean_mask_stays_array": ({
        CAUSAL_ANS: '''import numpy as np

_letters = np.array(list("abcd"))
_makes_sense = np.array([False, False, False, True])     # only a shared time axis
ans_cross_causal = _letters[_makes_sense]
''',
    }, {"mistake": "Picks the letter with NumPy boolean indexing, which returns a 1-element array "
                   "(array(['d'])), not the string 'd'.",
        "where": ["q15"]}),

    "q15_whitespace_removed_with_split_gives_list": ({
        CAUSAL_ANS: '''ans_cross_causal = " d ".split()          # get rid of the spaces
''',
    }, {"mistake": "Removes the spaces with split() instead of strip(), which returns the list ['d'], not the "
                   "string 'd'.",
        "where": ["q15"]}),

    "q03_experiment_unpacks_entropies_in_swapped_order": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)


def _mean_bits(S):
    A = torch.softmax(S, dim=-1)
    return -(A * torch.log2(A.clamp_min(1e-300))).sum(dim=-1).mean().item()


_H_scaled, _H_raw = _mean_bits(_Q @ _K.transpose(-2, -1)), _mean_bits(scaled_scores(_Q, _K))
if _H_raw < _H_scaled - 0.5:
    ans_scale = "b"
elif _H_raw > _H_scaled + 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Its experiment unpacks the two entropies in the wrong order (the unscaled one into "
                   "_H_scaled), so it sees the rows get flatter without the scale and answers 'a' instead "
                   "of 'b'.",
        "where": ["q03"]}),

    "q03_answer_written_as_option_b": ({
        SCALE_ANS: '''ans_scale = "option b"
''',
    }, {"mistake": "Writes the answer as the words 'option b' instead of the single letter 'b'.",
        "where": ["q03"]}),

    "q06_answer_left_as_template_ellipsis": ({
        MASK_ANS: '''ans_mask = ...  # come back to this one
''',
    }, {"mistake": "Leaves the template's placeholder in: ans_mask is the Ellipsis object, not a letter, so "
                   "the question is unanswered.",
        "where": ["q06"]}),

    "q06_option_sentence_instead_of_letter": ({
        MASK_ANS: '''ans_mask = "Position t can read token t+1, the very token it is trained to predict"
''',
    }, {"mistake": "Pastes the text of the chosen option instead of its letter 'c'.",
        "where": ["q06"]}),

    # "The Case of the Mystery Operator" (Quixotic Engineer): ^ is XOR in Python, not a power
    "q16_cost_formula_with_caret_xor": ({
        COST_ANS: '''def _cost(T, d_k=64):
    return T ^ 2 * d_k          # T^2 scores, d_k multiply-adds each


_ratio = _cost(200) / _cost(100)
if abs(_ratio - 2) < 0.5:
    ans_complexity = "a"
elif abs(_ratio - 4) < 0.5:
    ans_complexity = "c"
elif _ratio > 6:
    ans_complexity = "d"
else:
    ans_complexity = "b"
''',
    }, {"mistake": "Writes T squared as T ^ 2, which in Python is bitwise XOR (and binds after *), so the cost "
                   "'ratio' is about 0.3 and it answers 'b' instead of 'c'.",
        "where": ["q16"]}),

    "q16_answer_given_as_exponent": ({
        COST_ANS: '''ans_complexity = 2          # the cost grows like T ** 2
''',
    }, {"mistake": "Answers with the growth exponent, the int 2, instead of the letter 'c'.",
        "where": ["q16"]}),

    # espnet/espnet #1604, dlwpt-code #36: unsqueeze vs the in-place unsqueeze_
    "q01_batch_axis_added_in_place_with_unsqueeze_": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    if X.dim() == 2:
        X.unsqueeze_(0)          # always work on a batch
    return X @ W_Q, X @ W_K, X @ W_V
''',
    }, {"mistake": "Adds a batch axis to 2-D inputs with the in-place unsqueeze_, so a (T, d_model) input "
                   "gives (1, T, d_k) projections (and the caller's X is changed to (1, T, d_model)).",
        "where": ["q01", "q07", "q09", "q13"]}),

    "q08_mix_with_mv_on_untransposed_values": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return torch.mv(V, kappa) / kappa.sum()
''',
    }, {"mistake": "Mixes the values with torch.mv(V, kappa) instead of V^T kappa (kappa @ V): it contracts "
                   "over the value features, so it fails unless d_v == T and then returns the wrong vector.",
        "where": ["q08"]}),

    "q09_divided_by_row_counts_of_upper_triangle": ({
        AVG: '''def prefix_average_matrix(T):
    L = torch.tril(torch.ones(T, T, dtype=torch.float64))
    counts = torch.triu(torch.ones(T, T, dtype=torch.float64)).sum(dim=-1, keepdim=True)
    return L / counts
''',
    }, {"mistake": "Divides each row by the row counts of the upper triangle (T, T-1, ..., 1) instead of its "
                   "own (1, 2, ..., T), so row t holds 1/(T-t+1) and only the middle row averages.",
        "where": ["q09", "q10"]}),

    "q12_three_times_mean_head_width": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    width = (d_k + d_v) / 2          # average head width, so that 3 * d_model * d_k carries over
    n = 3 * d_model * width
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "Generalises 3 d_model d_k with the mean of d_k and d_v, giving 1.5 d_model (d_k + d_v) (a "
                   "float) instead of d_model (2 d_k + d_v): wrong whenever d_k != d_v.",
        "where": ["q12"]}),
}
