"""Blind held-out set 46 for attention-pipeline.

Forty-sixth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (its
conventions: tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked entries hold
torch.finfo(dtype).min, hidden tests in float64/float32/float16 with batches and d_k != d_v; its public
checks, e.g. the multiple-choice answers must be a str that is one letter after strip().lower(),
qkv_param_count(6, 4, 4) == 72, the q07 batched causal check), full_marks.ipynb (whose cells these replace),
`harness.py`, the lesson text `lesson-08-attention-pipeline.txt`, blind45.py in full (for the format) and only
the module docstrings and variant names of the earlier blind sets (to lean on the less-touched questions
and not repeat a mistake an earlier name shows).

Public sources used (the `search` tool, code / issues corpora):
- the "Implicit dimension choice for softmax has been deprecated" threads (natanielruiz/deep-head-pose
  issue #118 "dim is 0, 1, or 2?", svishwa/crowdcount-cascaded-mtl issue #22, amdegroot/ssd.pytorch issue
  #114): `F.softmax(x)` without dim picks dim 0 for a 3-D tensor, for a q13 variant;
- Hugging Face's `_make_causal_mask` (as copied in A1ex-Chen/DL_project_log,
  GenderBias-VL/lvlm_inference/LAMM/src/ChEF/models/instruct_blip/models/blip2_models/
  modeling_opt__make_causal_mask.py: `mask.masked_fill_(mask_cond < (mask_cond + 1).view(T, 1), 0)`), for
  a q04 variant that drops the `+ 1`, and for a correct mask in the Hugging Face keep-mask idiom
  `(1 - keep) * finfo(dtype).min`;
- the nanoGPT-style "build the causal mask once" pattern (a buffer of fixed block size), for a q07 mask
  built once as a default argument.
Variants carrying a slip seen there name the source in a comment.

Round 46 leans on the questions the earlier sets touched least (q06, q14, q15 and q16 twice each; q03, q11)
and on code shapes not used before: a q15 letter turned into a str with str() of a one-element list, a
q14 experiment testing NumPy's `.size` attribute on a torch tensor (a bound method there), a q14 experiment
comparing `str(tensor.shape)` with NumPy's "(5, 3)" text, a q03 experiment whose tensors are drawn
(d_k, tokens) instead of (tokens, d_k), a q06 shortlist with a missing comma (implicit string
concatenation), a q06 answer taken from a zip of questions and answers with one answer missing (shifted),
a q16 experiment that doubles only the queries, a q16 experiment whose head size grows with T, a q13 mix
with F.softmax without dim, a q07 mask precomputed in a default argument, a q04 mask copied from Hugging
Face without the `+ 1`, a q12 `n += x if flag else n` (the else adds n again), a q11 rank cast with the tensor method
.int(), and a q15 answer looked up under the wrong-case key 'Q15' with a default of "". Each wrong variant
changes one cell of an otherwise full-marks notebook and holds exactly one mistake; `where` lists every
question whose tests may lose points. Experiment cells draw from their own torch.Generator, so they do not
move the global random state. Every variant was checked against plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers, the full-marks cells)
on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v; T_q != T_k; the lesson's
inputs) with a throwaway script under /tmp/w46ap/ before it was written down.

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
    # projections by tensordot over one axis; the mask as a triangle of -finfo.max (== finfo.min)
    "tensordot_projection_and_negated_max_triangle": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.tensordot(X, W, dims=1) for W in (W_Q, W_K, W_V))
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.full((T, T), -torch.finfo(dtype).max, dtype=dtype, device=device)
    return torch.triu(blocked, diagonal=1)
''',
    },
    # the q15 letter as a numpy.str_ (a str subclass); the lesson rank through .tolist() (a Python int)
    "numpy_str_letter_and_rank_tolist": {
        CAUSAL_ANS: '''import numpy as np

ans_cross_causal = np.array(list("abcd"))[3]
''',
        RANK: '''max_rank_S = min(8, 100)

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = torch.linalg.matrix_rank(scaled_scores(_Q, _K)).tolist()
''',
    },
    # Hugging Face keep-mask idiom (1 - keep) * finfo.min; entropy with nansum (0 * -inf = nan dropped)
    "hf_inverted_keep_mask_and_nansum_entropy": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.ones(T, T, dtype=dtype, device=device).tril()
    return (1.0 - keep) * torch.finfo(dtype).min
''',
        ENT: '''def row_entropy_bits(A):
    return -(A * torch.log2(A)).nansum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # the lower triangle as a cumulative sum of the identity; the kernel weights through logsumexp
    "eye_cumsum_prefix_and_logsumexp_kernel": {
        AVG: '''def prefix_average_matrix(T):
    L = torch.eye(T, dtype=torch.float64).cumsum(dim=0)
    return L / torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)
''',
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    w = torch.exp(s - torch.logsumexp(s, dim=0))
    return w @ V
''',
    },
    # the mix as a broadcast product summed over the keys; W_O counted by multiplying with the bool flag
    "broadcast_mix_and_flag_times_count": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device)
    A = attention_weights(S)
    O = (A.unsqueeze(-1) * V.unsqueeze(-3)).sum(dim=-2)
    return O, A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + int(with_output) * d_v * d_model
''',
    },
}

WRONG = {
    "q15_letter_from_str_of_a_list": ({
        CAUSAL_ANS: '''_chosen = [opt for opt in "abcd" if opt == "d"]
ans_cross_causal = str(_chosen)        # it has to be a string
''',
    }, {"mistake": "Turns a one-element list into a string with str(), so the answer is the text \"['d']\" "
                   "instead of the letter 'd'.",
        "where": ["q15"]}),

    "q14_numpy_size_attribute_on_torch_tensors": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model, _d_k, _d_v = 5, 3, 6, 4, 2
_X = torch.randn(_T, _d_model, generator=_g)
_Y = torch.randn(_Tp, _d_model, generator=_g)
_W = [torch.randn(_d_model, _d_k, generator=_g), torch.randn(_d_model, _d_k, generator=_g),
      torch.randn(_d_model, _d_v, generator=_g)]
_O, _A = cross_attention(_X, _Y, *_W)
# as in NumPy: .size is the number of entries
if _A.size == _T * _Tp and _O.size == _T * _d_v:
    ans_cross_shapes = "b"
elif _A.size == _T * _Tp:
    ans_cross_shapes = "d"
elif _A.size == _T * _T:
    ans_cross_shapes = "a"
else:
    ans_cross_shapes = "c"
''',
    }, {"mistake": "Checks the shapes with NumPy's `.size` attribute, which on a torch tensor is a method, so "
                   "every comparison is False and the fall-through answer is 'c' instead of 'b'.",
        "where": ["q14"]}),

    "q14_shape_text_compared_with_numpy_repr": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(1)
_T, _Tp, _d = 5, 3, 4
_Q = torch.randn(_T, _d, generator=_g)
_K = torch.randn(_Tp, _d, generator=_g)
_S = scaled_scores(_Q, _K)
print(_S.shape)
ans_cross_shapes = "b" if str(_S.shape) == "(5, 3)" else "d"
''',
    }, {"mistake": "Compares str(S.shape) with NumPy's text '(5, 3)', but a torch.Size prints as "
                   "'torch.Size([5, 3])', so the check fails and the answer is 'd' instead of 'b'.",
        "where": ["q14"]}),

    "q03_experiment_drawn_features_by_tokens": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k, _T = 512, 8
_Q = torch.randn(_d_k, _T, dtype=torch.float64, generator=_g)    # 512 components, 8 tokens
_K = torch.randn(_d_k, _T, dtype=torch.float64, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)
_bits = lambda A: -(A * torch.log2(A.clamp_min(1e-300))).sum(dim=-1).mean().item()
_H_scaled, _H_raw = _bits(_A_scaled), _bits(_A_raw)
ans_scale = "b" if _H_raw < 0.5 * _H_scaled else ("a" if _H_raw > _H_scaled else "c")
''',
    }, {"mistake": "Draws the experiment's queries and keys as (d_k, T) instead of (T, d_k), so the scores "
                   "are 512 x 512 dot products over only 8 components; the unscaled rows stay spread out "
                   "and it answers 'c' instead of 'b'.",
        "where": ["q03"]}),

    "q06_missing_comma_joins_two_letters": ({
        MASK_ANS: '''_shortlist = ["c"  # my first choice
              "d"]  # second choice
ans_mask = _shortlist[0]
''',
    }, {"mistake": "Leaves out the comma between two letters in a list, so Python joins them into the one "
                   "string 'cd' and the answer is 'cd' instead of 'c'.",
        "where": ["q06"]}),

    "q06_answers_zipped_with_one_missing": ({
        MASK_ANS: '''_questions = ["q03", "q06", "q14", "q15", "q16"]
_letters = ["c", "b", "d", "c"]          # q06, q14, q15, q16 (q03 still to do)
_mc = dict(zip(_questions, _letters))
ans_mask = _mc["q06"]
''',
    }, {"mistake": "Zips the question names with a list of answers that lacks the first one, so every answer "
                   "shifts by one place and q06 gets q14's 'b' instead of 'c'.",
        "where": ["q06"]}),

    "q16_experiment_doubles_only_the_queries": ({
        COST_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _d_k = 256, 64
_K = torch.randn(_T, _d_k, generator=_g)
_cost_T = scaled_scores(torch.randn(_T, _d_k, generator=_g), _K).numel() * _d_k
_cost_2T = scaled_scores(torch.randn(2 * _T, _d_k, generator=_g), _K).numel() * _d_k
_ratio = _cost_2T / _cost_T
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Doubles only the number of queries and keeps the same keys, so the count of scores only "
                   "doubles and it answers 'a' (linear) instead of 'c' (quadratic).",
        "where": ["q16"]}),

    "q16_experiment_head_size_grows_with_T": ({
        COST_ANS: '''def _madds(T):
    d_k = T // 4                     # a quarter of the sequence length
    return T * T * d_k


_ratio = _madds(512) / _madds(256)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Lets the head size grow with T in the cost experiment although d_k is fixed, so doubling "
                   "T multiplies the work by 8 and it answers 'd' (cubic) instead of 'c'.",
        "where": ["q16"]}),

    # "Implicit dimension choice for softmax has been deprecated" (deep-head-pose#118, ssd.pytorch#114)
    "q13_functional_softmax_without_dim": ({
        CROSS: '''import torch.nn.functional as F


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M
    A = F.softmax(S)
    return A @ V, A
''',
    }, {"mistake": "Calls F.softmax without dim; it picks dim 1 for a 2-D score matrix but dim 0 (the batch) "
                   "for batched 3-D inputs, so batched cross-attention normalises over the batch instead of "
                   "over the keys.",
        "where": ["q13"]}),

    # nanoGPT registers one causal buffer of fixed size; here it is frozen into a default argument
    "q07_mask_built_once_as_default_argument": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True, _mask=causal_additive_mask(5, torch.float64)):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, _mask if causal else None)
    return A @ V, A
''',
    }, {"mistake": "Builds the causal mask once, as a default argument, for 5 tokens in float64, so any other "
                   "sequence length fails to broadcast (and other dtypes get a float64 mask).",
        "where": ["q07", "q09", "q10"]}),

    # Hugging Face _make_causal_mask: masked_fill_(mask_cond < (mask_cond + 1).view(T, 1), 0)
    "q04_hf_causal_mask_without_plus_one": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    mask = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    cond = torch.arange(T, device=device)
    mask.masked_fill_(cond < cond.view(T, 1), 0)
    return mask
''',
    }, {"mistake": "Copies Hugging Face's causal mask but drops the `+ 1` in `cond < (cond + 1).view(T, 1)`, so "
                   "only keys strictly before the query stay open and the diagonal (the token itself) is "
                   "blocked.",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    "q12_augmented_ternary_else_adds_n_again": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    n += d_v * d_model if with_output else n
    return n
''',
    }, {"mistake": "Writes `n += d_v * d_model if with_output else n`; without the output projection the else "
                   "branch adds n to itself, so the count doubles (144 instead of 72).",
        "where": ["q12"]}),

    "q11_lesson_rank_cast_with_tensor_int_method": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = torch.linalg.matrix_rank(scaled_scores(_Q, _K)).int()     # an integer
''',
    }, {"mistake": "Casts the lesson rank with the tensor method .int(), which gives a 0-dim int32 tensor, "
                   "not a Python int.",
        "where": ["q11"]}),

    "q15_answer_looked_up_with_wrong_case_key": ({
        CAUSAL_ANS: '''_answers = {"q14": "b", "q15": "d", "q16": "c"}
ans_cross_causal = _answers.get("Q15", "")
''',
    }, {"mistake": "Looks the answer up in a dict of answers with the key 'Q15' (wrong case); .get falls back "
                   "to its default, so the answer is the empty string instead of 'd'.",
        "where": ["q15"]}),
}
