"""Blind held-out set 48 for attention-pipeline.

Forty-eighth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (its
conventions: tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked entries hold
torch.finfo(dtype).min, hidden tests in float64/float32/float16 with batches and d_k != d_v; its public
checks, e.g. the multiple-choice answers must be a str that is one letter after strip().lower(), both
q11 answers Python ints, q09's zero-projection check through self_attention, q10's uniform-row check
built on prefix_average_matrix), full_marks.ipynb (whose cells these replace; its cell order puts the q06
answer before self_attention), `harness.py`, the lesson text `lesson-08-attention-pipeline.txt`,
blind47.py in full (for the format) and only the module docstrings and variant names of the earlier
blind sets (to lean on the less-touched questions and not repeat a mistake an earlier name shows).

Public sources used (the `search` tool, issues / docs / code corpora):
- meta-pytorch/torchtune issue #2493 ("cross-attention in llama 3.2 vision has is_causal=False"): the
  reporter's first reading, that cross-attention sits in the decoder and so must be causal; the q15
  variant that looks the answer up by the block the layer lives in copies that reasoning;
- numpy/numpy issues #7478 and #11732 (numpy.polynomial.polynomial.polyfit returns the coefficients
  lowest degree first, numpy.polyfit highest first): the q16 variant fits a log-log line with the new
  API and reads coefficient [0] as the slope, the old API's habit;
- afiq-aswadi/kata-sr katas/exercises/compute_attention_entropy (template.py: "Add epsilon to avoid
  log(0)"), the usual way public code dodges 0 log 0; the q10 variant dodges it instead by indexing with
  A[A > 0], which flattens the rows;
- pytorch/pytorch PR #48206 (torch.linalg.matrix_rank returns a Long tensor), for the q11 correct
  variant that turns the rank into an int with .tolist().
Variants carrying a slip seen there name the source in a comment.

Round 48 leans on the questions the earlier sets touched least (q15, q03, q14 and q16 twice each; q06,
q11, q12, q09, q10 and q07 once) and on code shapes not used before: a q15 letter looked up by the block
the layer sits in (decoder -> causal -> 'a'), a q15 letter typed as a full-width 'ｄ' from an IME
keyboard, a q03 answer reasoned through softmax temperature with the direction reversed, a q03
experiment whose keys are the queries themselves (every row already one-hot, so nothing seems to change),
a q14 experiment reading d_v from W_V.shape[0] as if W_V were an nn.Linear weight, a q14 answer taken
with list.index (a position, an int, instead of the letter), a q06 answer written as a function, a q16
log-log fit read in the wrong coefficient order, a q16 cost helper called with its arguments swapped, a
q11 bound sliced from a shape (torch.Size([8]) instead of 8), a q12 count summed with math.fsum (a
float), a q09 matrix built from a nested list comprehension (default float32), a q10 entropy that skips
zeros with A[A > 0] (the rows flattened into one), and a q07 causal flag passed as the mask (S + True).
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain
torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and
numbers, the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched;
d_k != d_v; T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w48ap/ before it was
written down.

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
    # projections through an ellipsis einsum; scores with the matrix transpose .mT and a reciprocal root
    "ellipsis_einsum_projection_and_mT_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.einsum("...td,de->...te", X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    return (Q @ K.mT) * Q.size(-1) ** -0.5
''',
    },
    # the mask as an upper triangle of -inf turned finite by nan_to_num; the prefix average as an
    # L1-normalised lower triangle of ones
    "inf_triangle_nan_to_num_mask_and_l1_normalised_prefix": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # -inf above the diagonal, then nan_to_num maps -inf to the dtype's most negative finite number
    return torch.full((T, T), -math.inf, dtype=dtype, device=device).triu(1).nan_to_num()
''',
        AVG: '''import torch.nn.functional as F


def prefix_average_matrix(T):
    return F.normalize(torch.ones(T, T, dtype=torch.float64).tril(), p=1, dim=-1)
''',
    },
    # entropy from xlogy (0 log 0 = 0 built in) in nats turned into bits; the kernel average as V^T kappa
    "xlogy_entropy_and_transposed_kernel_average": {
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.pow(2, row_entropy_bits(A))
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.mv(K, q) / math.sqrt(q.numel()))
    return V.T @ kappa / kappa.sum()
''',
    },
    # ranks turned into ints with .tolist() (pytorch/pytorch PR #48206: matrix_rank gives a Long tensor);
    # a parenthesised letter (still a str); a letter picked from a NumPy array (numpy.str_ is a str)
    "tolist_ranks_parenthesised_and_numpy_str_letters": {
        RANK: '''_g = torch.Generator().manual_seed(0)
_low_rank = (torch.randn(100, 8, dtype=torch.float64, generator=_g)
             @ torch.randn(8, 100, dtype=torch.float64, generator=_g))
max_rank_S = torch.linalg.matrix_rank(_low_rank).tolist()

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = torch.linalg.matrix_rank(scaled_scores(_Q, _K)).tolist()
''',
        MASK_ANS: '''ans_mask = ("c")
''',
        CAUSAL_ANS: '''import numpy as np

ans_cross_causal = np.array(list("abcd"))[3]
''',
    },
    # the softmax as a tensor method on one expression; W_O counted through the boolean flag
    "method_softmax_and_flag_weighted_count": {
        WEIGHTS: '''def attention_weights(S, M=None):
    return (S if M is None else S + M).softmax(dim=-1)
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v + d_v * bool(with_output))
''',
    },
}

WRONG = {
    # meta-pytorch/torchtune issue #2493: "the cross-attention module is part of the decoder ... so it
    # should not be able to see the future"
    "q15_answer_looked_up_by_the_block_it_sits_in": ({
        CAUSAL_ANS: '''# cross-attention lives in the decoder, and decoder layers are causal
_block = "decoder"
_causal_by_block = {"encoder": "b", "decoder": "a"}
ans_cross_causal = _causal_by_block[_block]
''',
    }, {"mistake": "Reasons that cross-attention needs a causal mask because it sits in the decoder, whose "
                   "self-attention is causal, and answers 'a' (always) instead of 'd' (only when X and Y "
                   "share one time axis).",
        "where": ["q15"]}),

    "q15_full_width_letter_from_ime_keyboard": ({
        CAUSAL_ANS: '''ans_cross_causal = "ｄ"
''',
    }, {"mistake": "Types the letter with a CJK input method, so the answer is the full-width 'ｄ' (U+FF44), "
                   "which is not the ASCII letter 'd' even after strip().lower().",
        "where": ["q15"]}),

    "q03_temperature_direction_reversed": ({
        SCALE_ANS: '''# softmax(S / tau): the 1/sqrt(d_k) factor acts as a temperature
_d_k = 512
_tau_with_scale = 1.0
_tau_without_scale = math.sqrt(_d_k)       # without the factor the scores are sqrt(d_k) times larger
ans_scale = "a" if _tau_without_scale > _tau_with_scale else "b"     # a hotter softmax is flatter
''',
    }, {"mistake": "Gets the temperature direction backwards: dividing by sqrt(d_k) is the temperature "
                   "sqrt(d_k), and deleting it cools the softmax to temperature 1, so rows sharpen toward "
                   "one key; it answers 'a' (flatter) instead of 'b'.",
        "where": ["q03"]}),

    "q03_experiment_with_keys_equal_to_queries": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k, _T = 512, 8
_X = torch.randn(_T, _d_k, dtype=torch.float64, generator=_g)
_Q = _K = _X                     # self-attention: queries and keys from the same tokens


def _bits(A):
    return -torch.where(A > 0, A * torch.log2(A), torch.zeros_like(A)).sum(dim=-1).mean().item()


_H_scaled = _bits(torch.softmax(scaled_scores(_Q, _K), dim=-1))
_H_raw = _bits(torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1))
if _H_scaled - _H_raw > 0.5:
    ans_scale = "b"
elif _H_raw - _H_scaled > 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Runs the experiment with the keys equal to the queries, so each query's own key scores "
                   "about d_k (22.6 even after scaling) and both the scaled and the unscaled rows are "
                   "already one-hot; seeing no change it answers 'c' instead of 'b'.",
        "where": ["q03"]}),

    "q14_experiment_reads_d_v_from_weight_rows_like_nn_linear": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model = 5, 3, 6
_X = torch.randn(_T, _d_model, generator=_g)
_Y = torch.randn(_Tp, _d_model, generator=_g)
_W_Q, _W_K, _W_V = (torch.randn(_d_model, _n, generator=_g) for _n in (4, 4, 2))
_O, _A = cross_attention(_X, _Y, _W_Q, _W_K, _W_V)
_d_v = _W_V.shape[0]                 # out_features, as in nn.Linear(d_model, d_v).weight
if _A.shape == (_T, _Tp) and _O.shape == (_T, _d_v):
    ans_cross_shapes = "b"
elif _A.shape == (_T, _Tp):
    ans_cross_shapes = "d"
elif _A.shape == (_Tp, _T):
    ans_cross_shapes = "c"
else:
    ans_cross_shapes = "a"
''',
    }, {"mistake": "Reads d_v from W_V.shape[0] as if W_V were an nn.Linear weight (out, in); here W_V is "
                   "(d_model, d_v), so it compares O's (5, 2) with (5, 6), the output check fails and it "
                   "answers 'd' instead of 'b'.",
        "where": ["q14"]}),

    "q14_letter_position_from_list_index": ({
        SHAPES_ANS: '''_options = ["a", "b", "c", "d"]
ans_cross_shapes = _options.index("b")          # S: T x T', O: T x d_v
''',
    }, {"mistake": "Uses list.index, which returns the option's position (the int 1), not the letter 'b'.",
        "where": ["q14"]}),

    "q06_answer_written_as_a_function": ({
        MASK_ANS: '''def ans_mask():
    # position t would see token t+1, the one it is trained to predict
    return "c"
''',
    }, {"mistake": "Writes the answer as a function returning 'c', so ans_mask is a function object, not "
                   "the string 'c'.",
        "where": ["q06"]}),

    # numpy/numpy #7478, #11732: numpy.polynomial.polynomial.polyfit returns the lowest degree first
    "q16_loglog_fit_coefficients_read_lowest_degree_first": ({
        COST_ANS: '''import numpy as np
from numpy.polynomial import polynomial as P

_g = torch.Generator().manual_seed(0)
_Ts = [64, 128, 256, 512]
_sizes = [scaled_scores(torch.randn(T, 16, generator=_g), torch.randn(T, 16, generator=_g)).numel() for T in _Ts]
_slope = P.polyfit(np.log(_Ts), np.log(_sizes), 1)[0]      # like np.polyfit: slope first
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}.get(round(float(_slope)), "d")
''',
    }, {"mistake": "Fits log(size) against log(T) with numpy.polynomial's polyfit, which returns the "
                   "coefficients lowest degree first, and reads [0] (the intercept, 0) as the slope (2), "
                   "so it answers 'b' (no growth) instead of 'c' (quadratic).",
        "where": ["q16"]}),

    "q16_cost_helper_called_with_arguments_swapped": ({
        COST_ANS: '''def _madds(d_k, T):
    return T * T * d_k              # T^2 scores of d_k multiply-adds each


_ratio = _madds(512, 64) / _madds(256, 64)      # double T: 256 -> 512, d_k = 64
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Calls the cost helper _madds(d_k, T) with the arguments in (T, d_k) order, so it doubles "
                   "d_k instead of T, measures a ratio of 2 and answers 'a' (linear) instead of 'c'.",
        "where": ["q16"]}),

    "q11_max_rank_sliced_from_a_shape": ({
        RANK: '''_g = torch.Generator().manual_seed(0)
_Q_big = torch.randn(100, 8, dtype=torch.float64, generator=_g)      # T = 100 tokens, d_k = 8
max_rank_S = _Q_big.shape[1:]           # rank S <= d_k

rank_S_lesson = 2
''',
    }, {"mistake": "Slices the shape (shape[1:]) instead of indexing it (shape[1]), so max_rank_S is "
                   "torch.Size([8]), a tuple, instead of the int 8.",
        "where": ["q11"]}),

    "q12_count_summed_with_math_fsum": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))           # W_O
    return math.fsum(r * c for r, c in shapes)      # an exact sum
''',
    }, {"mistake": "Adds the matrix sizes with math.fsum, which always returns a float, so the count is "
                   "72.0 instead of the int 72.",
        "where": ["q12"]}),

    "q09_nested_list_comprehension_in_default_dtype": ({
        AVG: '''def prefix_average_matrix(T):
    return torch.tensor([[1 / (t + 1) if i <= t else 0 for i in range(T)] for t in range(T)])
''',
    }, {"mistake": "Builds the matrix with torch.tensor from a nested list of Python numbers, which gives "
                   "the default float32 instead of the required float64.",
        "where": ["q09", "q10"]}),

    "q10_zeros_skipped_by_boolean_indexing": ({
        ENT: '''def row_entropy_bits(A):
    p = A[A > 0]                          # skip the masked zeros: 0 log 0 = 0
    return -(p * torch.log2(p)).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Skips the zeros with boolean indexing A[A > 0], which flattens every row into one 1-D "
                   "tensor, so it returns one number (the entropy summed over all rows) instead of one "
                   "entropy per row.",
        "where": ["q10"]}),

    "q07_causal_flag_passed_as_the_mask": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal)         # like is_causal=True in scaled_dot_product_attention
    return A @ V, A
''',
    }, {"mistake": "Passes the causal flag itself as the additive mask, so S + True adds 1 to every score "
                   "and nothing is blocked: with causal=True A is not lower-triangular.",
        "where": ["q07", "q09"]}),
}
