"""Blind held-out set 51 for attention-pipeline.

Fifty-first blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (its
conventions: tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked entries hold
torch.finfo(dtype).min, prefix average in float64, multiple-choice answers are one-letter strings checked
after strip().lower(), both q11 answers Python ints), full_marks.ipynb (whose cells these replace),
`harness.py`, the lesson text `lesson-08-attention-pipeline.txt` (its rank-2 lesson scores, the cross-
attention exercise), blind50.py in full (for the format) and only the module docstrings and variant names
of the earlier blind sets (counted per question: q14, q15, q03, q06 and q16 are the least touched).

Public sources used (the `search` tool, issues corpus):
- pytorch/pytorch issue #50378 ("Categorical logits argument is treated as log probabilities") and #40553
  (Categorical entropy with logits vs probs): what `logits=` means; the q03 variant hands the attention
  weights themselves to `Categorical(logits=...)`, which softmaxes them a second time, so both sets of rows
  look almost uniform and the experiment answers 'c';
- numpy/numpy issue #7930 and tracel-ai/burn issue #4109 (summing ones in float16 reaches 65504 and then
  inf): the q16 variant counts scores by summing a float16 tensor of ones, the 256 x 256 count overflows to
  inf and the growth ratio is no longer 4;
- torch/nn issue #1016 (a softmax over a one-element axis gives 1 everywhere) and
  falloutdurham/beginners-pytorch-deep-learning pull request #36 (a softmax over the wrong, size-1 axis of
  a (1, 2) output makes both values 1): the q08 variant softmaxes its (T, 1) kernel column along dim=-1.
Variants carrying a slip seen there name the source in a comment.

Round 51 leans on the questions the earlier sets touched least (q14, q15, q03, q06 and q16 twice each)
plus one variant each on q08, q09, q11 and q12 in code shapes not used before: a q14 answer wrapped in a
0-dim NumPy array, a q14 experiment whose broadcast outer product puts the keys on the first axis (S comes
out T' x T, answer 'c'), a q15 answer taken as a position with str.find (the int 3), a q15 letter parsed out
of the pasted markdown option list with split(")") ("* **d"), a q03 experiment that gives the weights to
Categorical(logits=...), a q03 letter copied with its markdown backticks, a q06 answer written as an
annotation (`ans_mask: "c"`, so the name is never bound), a q06 option loop that says `continue` where it
means `break` (it ends on 'd'), a q16 experiment that triples T but reads the ratio off a doubling table
(9 -> 'd'), a q16 score count summed in float16 (inf), a q11 lesson rank of the NumPy-style elementwise
product Q * K (rank 1), a q09 triangle made by flipping triu upside down instead of transposing it, a q12
flag compared with the string "True", and a q08 softmax over the singleton column axis (the weights are all
1 and the output is a sum, not an average).
The correct variants use other functions and idioms than full_marks: einsum projections, pre-scaled
queries with .mT, a full(min).triu(1) mask, logsumexp softmax, xlogy entropy with exp2, an L1-normalised
kernel and prefix matrix, a product-of-shapes parameter count, tolist() ranks, and letters written as a raw
string, a string slice, a set pop, an upper-case letter and an index into "abcd".
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers,
the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w51-pipeline/ before it was written down.

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
    # projections with an ellipsis einsum; scores from queries pre-scaled by the Python float and .mT
    "einsum_projection_and_prescaled_queries": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = (torch.einsum("...td,de->...te", X, W) for W in (W_Q, W_K, W_V))
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    return (Q / math.sqrt(Q.size(-1))) @ K.mT
''',
    },
    # the mask as a full tensor of finfo.min cut by triu(1); softmax as exp(Z - logsumexp(Z))
    "full_min_triu_mask_and_logsumexp_softmax": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return blocked.triu(1)          # zeros on and below the diagonal
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S + M if M is not None else S
    return torch.exp(Z - torch.logsumexp(Z, dim=-1, keepdim=True))
''',
    },
    # entropy with xlogy (xlogy(0, 0) = 0) converted to bits, 2 ** H with exp2; kernel weights and the
    # prefix matrix normalised with F.normalize(p=1)
    "xlogy_entropy_and_l1_normalised_weights": {
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        NW: '''import torch.nn.functional as F


def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return F.normalize(kappa, p=1, dim=0) @ V
''',
        AVG: '''import torch.nn.functional as F


def prefix_average_matrix(T):
    return F.normalize(torch.ones(T, T, dtype=torch.float64).tril(), p=1, dim=-1)
''',
    },
    # the parameter count as a sum of products of shapes; ranks as min over a tuple and tolist()
    "shape_products_count_and_tolist_ranks": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(math.prod(s) for s in shapes)
''',
        RANK: '''max_rank_S = min((100, 8))

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = torch.linalg.matrix_rank(scaled_scores(_Q, _K)).tolist()
''',
    },
    # letters as a raw string, a slice of string.ascii_lowercase, a set pop, an upper-case letter and an
    # index into "abcd"
    "raw_string_slice_set_pop_upper_and_index_letters": {
        SCALE_ANS: '''ans_scale = r"b"
''',
        MASK_ANS: '''import string

ans_mask = string.ascii_lowercase[2:3]
''',
        SHAPES_ANS: '''ans_cross_shapes = {"b"}.pop()
''',
        CAUSAL_ANS: '''ans_cross_causal = "D"
''',
        COST_ANS: '''ans_complexity = "abcd"[2]
''',
    },
}

WRONG = {
    "q14_letter_as_zero_dim_numpy_array": ({
        SHAPES_ANS: '''import numpy as np

ans_cross_shapes = np.array("b")          # keep every answer as an array, like the rest of my analysis
''',
    }, {"mistake": "Wraps the letter in np.array, so ans_cross_shapes is a 0-dim NumPy array of dtype <U1, "
                   "not the Python string 'b'.",
        "where": ["q14"]}),

    "q14_experiment_broadcast_outer_product_axes_swapped": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model, _d_k = 5, 3, 6, 4
_X = torch.randn(_T, _d_model, generator=_g)
_Y = torch.randn(_Tp, _d_model, generator=_g)
_W_Q = torch.randn(_d_model, _d_k, generator=_g)
_W_K = torch.randn(_d_model, _d_k, generator=_g)
_Q, _K = _X @ _W_Q, _Y @ _W_K
# every query against every key by broadcasting, no matmul needed
_S = (_Q[None, :, :] * _K[:, None, :]).sum(dim=-1) / math.sqrt(_d_k)
if _S.shape == (_T, _T):
    ans_cross_shapes = "a"
elif _S.shape == (_T, _Tp):
    ans_cross_shapes = "b"
elif _S.shape == (_Tp, _T):
    ans_cross_shapes = "c"
else:
    ans_cross_shapes = "d"
''',
    }, {"mistake": "Its broadcast outer product puts the new axis on the wrong side (Q[None] * K[:, None]), so "
                   "the experiment's S is T' x T with the keys on the rows and it answers 'c' instead of 'b' "
                   "(S is T x T', O is T x d_v).",
        "where": ["q14"]}),

    "q15_option_position_from_str_find": ({
        CAUSAL_ANS: '''_options = "abcd"
ans_cross_causal = _options.find("d")      # the shared-time-axis option
''',
    }, {"mistake": "Looks the option up with str.find, which returns its position, so ans_cross_causal is the "
                   "int 3 instead of the letter 'd'.",
        "where": ["q15"]}),

    "q15_letter_parsed_from_markdown_option_source": ({
        CAUSAL_ANS: '''_source = """* **a)** Always: every attention layer of a language model needs one.
* **b)** Never: a causal mask can only be built for a square score matrix.
* **c)** Whenever $T = T'$, whatever the two sequences are.
* **d)** Only when positions in $X$ and in $Y$ lie on one shared time axis and query $t$ must not see $Y$"""
ans_cross_causal = next(line.split(")")[0] for line in _source.splitlines() if "shared time axis" in line)
''',
    }, {"mistake": "Parses the letter out of the pasted markdown option list with split(')')[0], which keeps "
                   "the bullet and the bold markers: the answer is '* **d', not 'd'.",
        "where": ["q15"]}),

    # pytorch/pytorch #50378: Categorical's logits= takes unnormalised log-probabilities, not probabilities
    "q03_experiment_categorical_with_weights_as_logits": ({
        SCALE_ANS: '''from torch.distributions import Categorical

_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)


def _bits(A):
    return (Categorical(logits=A).entropy() / math.log(2)).mean().item()


if abs(_bits(_A_raw) - _bits(_A_scaled)) < 0.5:
    ans_scale = "c"
elif _bits(_A_raw) < _bits(_A_scaled):
    ans_scale = "b"
else:
    ans_scale = "a"
''',
    }, {"mistake": "Its experiment hands the attention weights to Categorical(logits=...), which softmaxes them "
                   "again; weights in [0, 1] give nearly uniform rows either way (about 2.8 vs 3 bits), so it "
                   "sees no change and answers 'c' instead of 'b'.",
        "where": ["q03"]}),

    "q03_letter_copied_with_markdown_backticks": ({
        SCALE_ANS: '''ans_scale = "`b`"
''',
    }, {"mistake": "Copies the letter with the markdown inline-code backticks around it, so the answer is "
                   "'`b`', not 'b'.",
        "where": ["q03"]}),

    "q06_annotation_colon_instead_of_assignment": ({
        MASK_ANS: '''ans_mask: "c"
''',
    }, {"mistake": "Writes a colon instead of '=', which is a bare annotation: 'c' becomes the annotation and "
                   "the name ans_mask is never bound, so there is no answer.",
        "where": ["q06"]}),

    "q06_option_loop_continue_instead_of_break": ({
        MASK_ANS: '''_true = {"a": False, "b": False, "c": True, "d": False}
for ans_mask in "abcd":
    if _true[ans_mask]:
        continue          # found it, stop looking
''',
    }, {"mistake": "Stops its search over the options with continue instead of break, so the loop runs on and "
                   "ans_mask is left at the last letter 'd' instead of 'c'.",
        "where": ["q06"]}),

    "q16_experiment_triples_length_with_doubling_table": ({
        COST_ANS: '''def _score_madds(T, d_k=64):
    _Q = torch.zeros(T, d_k)
    _K = torch.zeros(T, d_k)
    return scaled_scores(_Q, _K).numel() * d_k        # T * T scores, d_k multiply-adds each


_ratio = _score_madds(192) / _score_madds(64)          # grow the sequence
ans_complexity = {1.0: "b", 2.0: "a", 4.0: "c"}.get(_ratio, "d")     # anything bigger: cubic
''',
    }, {"mistake": "Triples T (64 -> 192) but reads the cost ratio off a table made for doubling (1, 2, 4), so "
                   "the quadratic ratio 9 falls to the default and it answers 'd' instead of 'c'.",
        "where": ["q16"]}),

    # numpy/numpy #7930, tracel-ai/burn #4109: a float16 sum of ones overflows past 65504
    "q16_score_count_summed_in_half_overflows": ({
        COST_ANS: '''def _n_scores(T):
    return torch.ones(T, T, dtype=torch.float16).sum().item()     # half precision to save memory


_r = _n_scores(256) / _n_scores(128)
if _r == 1:
    ans_complexity = "b"
elif _r == 2:
    ans_complexity = "a"
elif _r == 4:
    ans_complexity = "c"
else:
    ans_complexity = "d"
''',
    }, {"mistake": "Counts the scores by summing a float16 tensor of ones; 256 * 256 = 65536 is past float16's "
                   "65504, the count is inf, the ratio is inf and it answers 'd' instead of 'c'.",
        "where": ["q16"]}),

    "q11_lesson_scores_with_elementwise_star": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(_Q * _K / math.sqrt(4)))      # scores, NumPy style
''',
    }, {"mistake": "Builds the lesson's scores with the elementwise product Q * K (a NumPy-style '*' for a "
                   "matrix product) instead of Q @ K^T, so the rank is 1 instead of 2.",
        "where": ["q11"]}),

    "q09_triangle_flipped_instead_of_transposed": ({
        AVG: '''def prefix_average_matrix(T):
    L = torch.triu(torch.ones(T, T, dtype=torch.float64)).flip(0)      # the lower triangle from the upper one
    return L / L.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "Turns the upper triangle upside down with flip(0) instead of transposing it, so row t puts "
                   "its 1/t on the last t columns instead of the first t.",
        "where": ["q09", "q10"]}),

    "q12_output_flag_compared_with_string_true": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output == "True":          # the flag as it comes from the command line
        n += d_v * d_model
    return n
''',
    }, {"mistake": "Compares the flag with the string 'True', which the bool True never equals, so W_O's "
                   "d_v * d_model weights are never added.",
        "where": ["q12"]}),

    # torch/nn #1016, falloutdurham/beginners-pytorch-deep-learning #36: a softmax over a size-1 axis is all 1
    "q08_softmax_over_singleton_column_axis": ({
        NW: '''def nadaraya_watson(q, K, V):
    scores = (K @ q / math.sqrt(q.shape[-1]))[:, None]     # (T, 1) column, to broadcast against V
    weights = torch.softmax(scores, dim=-1)                 # normalised kernel weights
    return (weights * V).sum(dim=0)
''',
    }, {"mistake": "Softmaxes the (T, 1) column of scores along its last axis, which has one element, so every "
                   "weight is 1 and the result is the plain sum of the values instead of the kernel-weighted "
                   "average.",
        "where": ["q08"]}),
}
