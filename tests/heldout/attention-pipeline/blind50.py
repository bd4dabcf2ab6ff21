"""Blind held-out set 50 for attention-pipeline.

Fiftieth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (its
conventions: tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked entries hold
torch.finfo(dtype).min, prefix average in float64, multiple-choice answers are one-letter strings, both
q11 answers Python ints), full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt`, blind49.py in full (for the format) and only the module docstrings and
variant names of the earlier blind sets (to lean on the less-touched questions and not repeat a mistake an
earlier name shows).

Public sources used (the `search` tool, issues / code corpora):
- pytorch/pytorch issue #103082 ("Ambiguity in causal-mask in scaled_dot_product_attention"): the
  documented reference builds `torch.ones(L, S, dtype=torch.bool).tril()` for any L, S; the q15 variant
  builds that rectangular tril for T != T', sees it apply without error and concludes a causal mask always
  makes sense ('a');
- pytorch/tutorials issue #2250 and pytorch/pytorch issue #29546 (generate_square_subsequent_mask: a
  triangle of -inf on a float tensor, fixed up afterwards): the correct q04 variant builds the triangle of
  -inf in the requested dtype and lets `nan_to_num` turn -inf into torch.finfo(dtype).min;
- hankyul2/DomainAdaptation src/entropy.py and Bostoncake/PCS-FUDA pcs/mixmatch_utils/loss.py (entropy
  helpers of the form `-(p * log(p + eps)).sum(dim=1)`, zeros patched by adding to p): the q10 variant
  patches the zeros with `(A == 0).float()`, which promotes float16 weights to float32, and the q03 variant
  whose hand-written entropy helper leaves out the minus sign.
Variants carrying a slip seen there name the source in a comment.

Round 50 leans on the questions the earlier sets touched least (q03, q06 three times each; q15, q16 twice;
q14 once) plus one variant each on q01, q10 and q11 in code shapes not used before: a q03 experiment whose
entropy helper has no minus sign (the flatter scaled rows get the lower "entropy", answer 'a'), a q03
answer taken from a list of (letter, text) pairs (a tuple), a q03 experiment whose own scale is read from
the token axis (sqrt(8) instead of sqrt(512), both rows stay peaked, answer 'c'), q06 answers with the
option marker "c)" copied, a filter object never consumed with next(), and a hedge written as `"c" and "d"`
(the expression is "d"), a q14 experiment run through self_attention on X alone (S square, answer 'a'), a
q15 answer sliced from the options (['d']), a q15 experiment with SDPA's rectangular tril, a q16
experiment that grows d_k instead of T (answer 'b'), a q16 exponent read off one point as log(cost) /
log(T) (the d_k factor pushes 2 to 2.86, answer 'd'), q01 weights cast with .float() (float64 and float16
inputs raise a dtype mismatch), a q10 zero patch `(A == 0).float()` that turns float16 entropies into
float32, and a q11 rank counted with Python's sum over a boolean tensor (a 0-dim tensor, not an int).
Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers,
the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w50ap/ before it was written down.

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
    # projections as tensordot over one axis (jnp.tensordot habit); the mask as a triangle of -inf in the
    # requested dtype whose -inf nan_to_num replaces with finfo(dtype).min
    "tensordot_projection_and_nan_to_num_mask": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.tensordot(X, W, dims=1) for W in (W_Q, W_K, W_V))
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # pytorch/tutorials #2250: a triangle of -inf above the diagonal; here made finite for every dtype
    M = torch.triu(torch.full((T, T), float("-inf"), dtype=dtype, device=device), diagonal=1)
    return M.nan_to_num()          # -inf -> torch.finfo(dtype).min, zeros stay
''',
    },
    # softmax from torch.special on a conditional sum; the kernel average with torch.mv on the transposed
    # values
    "special_softmax_and_mv_kernel_average": {
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return torch.special.softmax(Z, dim=-1)
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = (K @ q / q.numel() ** 0.5).exp()
    return torch.mv(V.mT, kappa) / kappa.sum()
''',
    },
    # entropy with nansum (0 * log2 0 = nan is skipped) and torch.pow(2, H); the prefix average with the
    # Python float dtype (torch.float64)
    "nansum_entropy_pow_tokens_and_python_float_dtype": {
        ENT: '''def row_entropy_bits(A):
    return -torch.nansum(A * torch.log2(A), dim=-1)


def effective_tokens(A):
    return torch.pow(2, row_entropy_bits(A))
''',
        AVG: '''def prefix_average_matrix(T):
    L = torch.ones(T, T, dtype=float).tril()
    return L / torch.arange(1, T + 1, dtype=float).reshape(T, 1)
''',
    },
    # the W_O term as a bool times a product; ranks through .item() and int(min())
    "bool_times_output_term_and_item_ranks": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (d_k + d_k + d_v) + bool(with_output) * d_v * d_model
''',
        RANK: '''max_rank_S = int(min(100, 8))

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = torch.linalg.matrix_rank(scaled_scores(_Q, _K)).item()
''',
    },
    # letters as a NumPy str_ (a str subclass), a parenthesised string, an upper-case chr(), a
    # triple-quoted string and a dict lookup by name
    "numpy_str_parenthesised_upper_and_dict_letters": {
        SCALE_ANS: '''import numpy as np

ans_scale = np.array(list("abcd"))[1]
''',
        MASK_ANS: '''ans_mask = ("c")
''',
        CAUSAL_ANS: '''ans_cross_causal = chr(ord("d") - 32)
''',
        SHAPES_ANS: '''ans_cross_shapes = """b"""
''',
        COST_ANS: '''ans_complexity = dict(linear="a", constant="b", quadratic="c", cubic="d")["quadratic"]
''',
    },
}

WRONG = {
    # hankyul2/DomainAdaptation src/entropy.py style helper, retyped without its leading minus
    "q03_experiment_entropy_helper_without_minus_sign": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)


def _entropy(p, eps=1e-12):
    return (p * torch.log2(p + eps)).sum(dim=-1).mean().item()


_H_scaled = _entropy(torch.softmax(scaled_scores(_Q, _K), dim=-1))
_H_raw = _entropy(torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1))
if _H_raw > _H_scaled + 0.5:
    ans_scale = "a"          # entropy went up without the scale
elif _H_scaled > _H_raw + 0.5:
    ans_scale = "b"
else:
    ans_scale = "c"
''',
    }, {"mistake": "The experiment's entropy helper leaves out the minus sign, so every 'entropy' is <= 0 and "
                   "the peaked unscaled rows (about 0) come out above the flatter scaled rows (about -2); it "
                   "concludes the rows get flatter and answers 'a' instead of 'b'.",
        "where": ["q03"]}),

    "q03_answer_taken_as_a_letter_text_pair": ({
        SCALE_ANS: '''_options = [
    ("a", "They rise toward log2 t: the rows become flatter."),
    ("b", "They fall toward 0: each row puts nearly all of its weight on one key."),
    ("c", "Nothing changes."),
    ("d", "They become negative."),
]
ans_scale = _options[1]
''',
    }, {"mistake": "Picks the right option from a list of (letter, text) pairs but keeps the whole pair, so "
                   "ans_scale is the tuple ('b', '...') instead of the string 'b'.",
        "where": ["q03"]}),

    "q03_experiment_scale_read_from_token_axis": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(1)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_d_k = _Q.shape[0]                                   # head size
_A_scaled = torch.softmax(_Q @ _K.T / math.sqrt(_d_k), dim=-1)
_A_raw = torch.softmax(_Q @ _K.T, dim=-1)


def _bits(A):
    return -torch.where(A > 0, A * torch.log2(A), torch.zeros_like(A)).sum(dim=-1).mean().item()


if abs(_bits(_A_scaled) - _bits(_A_raw)) < 0.5:
    ans_scale = "c"
elif _bits(_A_raw) < _bits(_A_scaled):
    ans_scale = "b"
else:
    ans_scale = "a"
''',
    }, {"mistake": "In its own experiment it reads d_k from Q.shape[0] (the 8 tokens), so the 'scaled' scores "
                   "are divided by sqrt(8) instead of sqrt(512), stay far from unit variance and are as "
                   "peaked as the raw ones; it sees no change and answers 'c' instead of 'b'.",
        "where": ["q03"]}),

    "q06_option_marker_parenthesis_copied": ({
        MASK_ANS: '''ans_mask = "c)"
''',
    }, {"mistake": "Copies the option marker 'c)' from the list, parenthesis included, instead of the single "
                   "letter 'c'.",
        "where": ["q06"]}),

    "q06_filter_object_never_consumed": ({
        MASK_ANS: '''_verdict = {"a": False, "b": False, "c": True, "d": False}
ans_mask = filter(lambda letter: _verdict[letter], "abcd")
''',
    }, {"mistake": "Picks the true option with filter() and never takes its element (next() or list()[0]), "
                   "so ans_mask is a filter object, not the string 'c'.",
        "where": ["q06"]}),

    "q06_hedge_with_and_keeps_last_letter": ({
        MASK_ANS: '''ans_mask = "c" and "d"      # copying the next token, and no gradient through the blocked entries
''',
    }, {"mistake": "Hedges between two options with the expression 'c' and 'd', which Python evaluates to "
                   "the last truthy operand, so the answer is 'd' instead of 'c'.",
        "where": ["q06"]}),

    "q14_experiment_runs_self_attention_on_x_only": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model = 5, 3, 6
_X = torch.randn(_T, _d_model, generator=_g)
_Y = torch.randn(_Tp, _d_model, generator=_g)
_W_Q, _W_K, _W_V = (torch.randn(_d_model, _n, generator=_g) for _n in (4, 4, 2))
_O, _A = self_attention(_X, _W_Q, _W_K, _W_V, causal=False)     # the queries come from X
if _A.shape == (_T, _T):
    ans_cross_shapes = "a"
elif _A.shape == (_T, _Tp) and _O.shape == (_T, 2):
    ans_cross_shapes = "b"
elif _A.shape == (_Tp, _T):
    ans_cross_shapes = "c"
else:
    ans_cross_shapes = "d"
''',
    }, {"mistake": "Runs the shape experiment through self_attention on X alone, so Y never enters, S is "
                   "T x T and it answers 'a' instead of 'b' (S is T x T', O is T x d_v).",
        "where": ["q14"]}),

    "q15_options_sliced_instead_of_indexed": ({
        CAUSAL_ANS: '''_letters = ["a", "b", "c", "d"]
ans_cross_causal = _letters[-1:]          # the last option
''',
    }, {"mistake": "Takes the last option with the slice [-1:] instead of the index [-1], so the answer is "
                   "the list ['d'] instead of the string 'd'.",
        "where": ["q15"]}),

    # pytorch/pytorch #103082: SDPA's reference mask is ones(L, S).tril() for any L and S
    "q15_sdpa_rectangular_tril_read_as_always": ({
        CAUSAL_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp = 5, 3
_S = torch.randn(_T, _Tp, dtype=torch.float64, generator=_g)
_keep = torch.ones(_T, _Tp, dtype=torch.bool).tril()      # as in the SDPA docs, any L and S
_A = torch.softmax(_S.masked_fill(~_keep, torch.finfo(_S.dtype).min), dim=-1)
# the causal mask builds and applies for T != T' too, so it can always be used
ans_cross_causal = "a" if torch.allclose(_A.sum(-1), torch.ones(_T, dtype=torch.float64)) else "b"
''',
    }, {"mistake": "Builds SDPA's rectangular ones(T, T').tril() mask, sees that it applies without error "
                   "when T != T' and concludes a causal mask always makes sense ('a'), although positions "
                   "only compare on a shared time axis ('d').",
        "where": ["q15"]}),

    "q16_experiment_varies_head_size_not_length": ({
        COST_ANS: '''_g = torch.Generator().manual_seed(0)
_T = 64


def _madds(d_k):
    _Q = torch.randn(_T, d_k, generator=_g)
    _K = torch.randn(_T, d_k, generator=_g)
    return scaled_scores(_Q, _K).numel()         # one score per (query, key) pair


_ratio = _madds(128) / _madds(64)               # "double it"
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Doubles d_k instead of T in its cost experiment and counts the scores, whose number does "
                   "not change, so it answers 'b' (no growth) instead of 'c' (quadratic in T).",
        "where": ["q16"]}),

    "q16_exponent_from_one_point_log_ratio": ({
        COST_ANS: '''def _cost(T, d_k=64):
    return T * T * d_k          # T^2 scores, d_k multiply-adds each


_T = 128
_exponent = math.log(_cost(_T)) / math.log(_T)          # cost = T ** exponent
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}[round(_exponent)]
''',
    }, {"mistake": "Reads the growth exponent off a single point as log(cost) / log(T), so the constant d_k "
                   "factor adds log 64 / log 128 and the exponent 2.86 rounds to 3: it answers 'd' (cubic) "
                   "instead of 'c' (quadratic).",
        "where": ["q16"]}),

    "q01_weights_cast_with_float_method": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # make sure the weights are floating point
    return X @ W_Q.float(), X @ W_K.float(), X @ W_V.float()
''',
    }, {"mistake": "Casts the weights with .float(), which means float32, so float64 and float16 inputs meet "
                   "float32 weights and the matmul raises a dtype mismatch instead of projecting in the "
                   "inputs' dtype.",
        "where": ["q01", "q07", "q09", "q10", "q13"]}),

    # Bostoncake/PCS-FUDA pcs/mixmatch_utils/loss.py style: patch p before the log
    "q10_zero_patch_with_float_promotes_half": ({
        ENT: '''def row_entropy_bits(A):
    safe = A + (A == 0).float()          # log2(1) = 0 where A is 0
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Patches the zeros with (A == 0).float(), a float32 tensor, so float16 weights are promoted "
                   "and the entropies (and effective tokens) come back float32 instead of in A's dtype.",
        "where": ["q10"]}),

    "q11_rank_counted_with_python_sum_over_bools": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = sum(torch.linalg.svdvals(_Q @ _K.T / 2.0) > 1e-10)     # singular values that are not 0
''',
    }, {"mistake": "Counts the nonzero singular values with Python's sum over a boolean tensor, which gives the "
                   "0-dim tensor tensor(2) instead of the Python int 2.",
        "where": ["q11"]}),
}
