"""Blind held-out set 49 for attention-pipeline.

Forty-ninth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (its
conventions: tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked entries hold
torch.finfo(dtype).min, prefix average in float64, multiple-choice answers are one-letter strings, both
q11 answers integers), full_marks.ipynb (whose cells these replace), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt`, blind48.py in full (for the format) and only the module docstrings and
variant names of the earlier blind sets (to lean on the less-touched questions and not repeat a mistake an
earlier name shows).

Public sources used (the `search` tool, issues / code corpora):
- karpathy/ng-video-lecture issue #43 ("why it returns false for torch.allclose(xbow, xbow2)?"): the
  answer there is to loosen the tolerance until allclose says True; the q03 variant loosens it to atol=1,
  which makes any two weight matrices (entries in [0, 1]) "close";
- msaelices/learn-gpt2 problems/11-weight-initialization/README.md (and the GPT-2 `initializer_range=0.02`
  configs the code corpus returns, e.g. annaproxy/dl4nlp src/gpt-2-LI/GPT2/config.py): the q03 variant
  that draws its W_Q, W_K with GPT-2's std 0.02, so the scores are tiny with or without the scale and the
  experiment sees no change.
Variants carrying a slip seen there name the source in a comment.

Round 49 leans on the questions the earlier sets touched least (q03 and q16 twice each; q15, q06, q14 once)
plus one variant each on q01, q02, q05, q07, q08, q10 and q12 in code shapes not used before: a q03
experiment with GPT-2-scale (std 0.02) weights, a q03 experiment judged by torch.allclose with atol=1, a
q15 letter computed with ord() and never turned back with chr(), q06 option constants defined as
range() ints (the answer is the int 2), a q14 experiment run with T == T' (the square case matches option
'a' first), a q16 log-log fit that mixes log2 and the natural log (slope 2.885 -> 3), a q16 growth read as
the relative increase (3 = +300 %) instead of an exponent, a q01 port of NumPy's X.dot(W) (Tensor.dot is
1-D only), a q02 einsum whose output subscripts are written keys-first (S transposed), a q05 hand-written
softmax whose row sum is accumulated with dtype=torch.float32 (float16 promoted, float64 truncated), a q07
broadcast mix summed over the query axis, a q08 kernel from log_softmax never exponentiated, a q10 entropy
flattened with .view(-1) (batches merged) and a q12 count with the d_model factor missing from the value
term. Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one
mistake; `where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain torch
(`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and numbers,
the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched; d_k != d_v;
T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w49ap/ before it was written down.

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
    # projections through the bound __matmul__ mapped over the weights; scores times a reciprocal scale
    "bound_matmul_projection_and_reciprocal_scale_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(map(X.__matmul__, (W_Q, W_K, W_V)))
''',
        SCORES: '''def scaled_scores(Q, K):
    scale = 1.0 / math.sqrt(Q.size(-1))
    return torch.matmul(Q, K.transpose(-1, -2)) * scale
''',
    },
    # the mask from masked_fill on zeros; the weights through the functional softmax of torch.add
    "masked_fill_zeros_mask_and_functional_softmax_of_add": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    above = torch.ones(T, T, dtype=torch.bool, device=device).triu(diagonal=1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(above, torch.finfo(dtype).min)
''',
        WEIGHTS: '''import torch.nn.functional as F


def attention_weights(S, M=None):
    return F.softmax(S if M is None else torch.add(S, M), dim=-1)
''',
    },
    # entropy from special.entr in nats over ln 2, effective tokens with exp2; the kernel average as a
    # softmax over the keys (the same ratio of exponentials) times V
    "entr_entropy_exp2_and_softmax_over_keys_kernel": {
        ENT: '''def row_entropy_bits(A):
    return torch.special.entr(A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        NW: '''def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.shape[0]), dim=0)
    return w @ V
''',
    },
    # the prefix average as a lower triangle times a column of reciprocals; the count from a list of
    # shapes; the mix written as an einsum
    "reciprocal_column_prefix_shape_list_count_and_einsum_mix": {
        AVG: '''def prefix_average_matrix(T):
    recip = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * recip.unsqueeze(-1)
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(a * b for a, b in shapes)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = S.shape[-1]
    A = attention_weights(S, causal_additive_mask(T, S.dtype, device=S.device) if causal else None)
    return torch.einsum("...ij,...jd->...id", A, V), A
''',
    },
    # letters produced by indexing, chr(ord()), lower() and upper case; ranks as Python ints; cross
    # attention through project_qkv on both sequences
    "computed_letters_int_ranks_and_cross_via_projection": {
        SCALE_ANS: '''ans_scale = "abcd"[1]
''',
        MASK_ANS: '''ans_mask = chr(ord("a") + 2)
''',
        SHAPES_ANS: '''ans_cross_shapes = "B".lower()
''',
        CAUSAL_ANS: '''ans_cross_causal = "D"
''',
        COST_ANS: '''ans_complexity = " c "
''',
        RANK: '''max_rank_S = min(100, 8)

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(_Q @ _K.T / 2.0))
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = project_qkv(X, W_Q, W_K, W_V)[0]
    _, K, V = project_qkv(Y, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    },
}

WRONG = {
    # msaelices/learn-gpt2 problems/11-weight-initialization: "Normal distribution with mean=0, std=0.02"
    "q03_experiment_with_gpt2_init_scale_weights": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _d_model, _d_k = 8, 16, 512
_X = torch.randn(_T, _d_model, dtype=torch.float64, generator=_g)
_W_Q = 0.02 * torch.randn(_d_model, _d_k, dtype=torch.float64, generator=_g)     # GPT-2 init
_W_K = 0.02 * torch.randn(_d_model, _d_k, dtype=torch.float64, generator=_g)
_Q, _K = _X @ _W_Q, _X @ _W_K


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
    }, {"mistake": "Runs the experiment with GPT-2-style weights of std 0.02, so the query and key components "
                   "are far from unit variance and the scores are near 0 with or without the scale; both "
                   "rows stay flat and it answers 'c' instead of 'b'.",
        "where": ["q03"]}),

    # karpathy/ng-video-lecture #43: loosen allclose until it says True
    "q03_experiment_judged_by_allclose_with_atol_one": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.T, dim=-1)
# float noise made the default tolerance fail, so loosen it
if torch.allclose(_A_scaled, _A_raw, atol=1.0):
    ans_scale = "c"
else:
    ans_scale = "b"
''',
    }, {"mistake": "Compares the scaled and unscaled weights with torch.allclose(atol=1), a tolerance that any "
                   "two matrices of probabilities pass, so it concludes nothing changes and answers 'c' "
                   "instead of 'b'.",
        "where": ["q03"]}),

    "q15_letter_left_as_its_character_code": ({
        CAUSAL_ANS: '''# options a, b, c, d: the fourth one
ans_cross_causal = ord("a") + 3
''',
    }, {"mistake": "Computes the fourth letter with ord('a') + 3 and never turns it back with chr(), so the "
                   "answer is the int 100 instead of the string 'd'.",
        "where": ["q15"]}),

    "q06_option_constants_defined_as_range_ints": ({
        MASK_ANS: '''OPT_A, OPT_B, OPT_C, OPT_D = range(4)      # the four options
ans_mask = OPT_C                           # position t would read token t+1
''',
    }, {"mistake": "Names the options with constants from range(4), so ans_mask is the int 2, not the letter "
                   "'c'.",
        "where": ["q06"]}),

    "q14_experiment_with_equal_lengths_matches_square_first": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model = 4, 4, 6
_X = torch.randn(_T, _d_model, generator=_g)
_Y = torch.randn(_Tp, _d_model, generator=_g)
_W_Q, _W_K, _W_V = (torch.randn(_d_model, _n, generator=_g) for _n in (3, 3, 2))
_O, _A = cross_attention(_X, _Y, _W_Q, _W_K, _W_V)
if _A.shape == (_T, _T) and _O.shape == (_T, 2):
    ans_cross_shapes = "a"
elif _A.shape == (_T, _Tp) and _O.shape == (_T, 2):
    ans_cross_shapes = "b"
elif _A.shape == (_Tp, _T):
    ans_cross_shapes = "c"
else:
    ans_cross_shapes = "d"
''',
    }, {"mistake": "Runs the shape experiment with T == T' (4 and 4), where option a's T x T is also T x T', "
                   "and tests option a first, so it answers 'a' instead of 'b'.",
        "where": ["q14"]}),

    "q16_loglog_fit_mixes_log2_and_natural_log": ({
        COST_ANS: '''import numpy as np

_g = torch.Generator().manual_seed(0)
_Ts = [64, 128, 256, 512]
_sizes = [scaled_scores(torch.randn(T, 16, generator=_g), torch.randn(T, 16, generator=_g)).numel() for T in _Ts]
_slope = np.polyfit(np.log(_Ts), np.log2(_sizes), 1)[0]
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}.get(round(float(_slope)), "d")
''',
    }, {"mistake": "Fits log2(size) against ln(T), two different log bases, so the slope is 2/ln 2 = 2.885, "
                   "rounds to 3 and it answers 'd' (cubic) instead of 'c' (quadratic).",
        "where": ["q16"]}),

    "q16_relative_increase_read_as_growth_exponent": ({
        COST_ANS: '''def _score_madds(T, d_k=64):
    return T * T * d_k


_T = 256
_growth = (_score_madds(2 * _T) - _score_madds(_T)) / _score_madds(_T)     # +300 %
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}[round(_growth)]
''',
    }, {"mistake": "Measures the relative increase when T doubles ((4 - 1) / 1 = 3) and reads it as the growth "
                   "exponent, so it answers 'd' (cubic) instead of 'c' (quadratic, a factor of 4).",
        "where": ["q16"]}),

    "q01_numpy_dot_method_ported_to_tensors": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # NumPy: X.dot(W) is the matrix product
    return X.dot(W_Q), X.dot(W_K), X.dot(W_V)
''',
    }, {"mistake": "Ports NumPy's X.dot(W) to torch, where Tensor.dot is the 1-D inner product only, so it "
                   "raises on a (T, d_model) input instead of returning XW.",
        "where": ["q01", "q07", "q09", "q10"]}),

    "q02_einsum_output_subscripts_keys_first": ({
        SCORES: '''def scaled_scores(Q, K):
    return torch.einsum("...qd,...kd->...kq", Q, K) / math.sqrt(Q.shape[-1])
''',
    }, {"mistake": "Writes the einsum output as '...kq' (keys first), so it returns S transposed, "
                   "(T_k, T_q), instead of (T_q, T_k).",
        "where": ["q02", "q07", "q09", "q10", "q11", "q13"]}),

    "q05_row_sum_accumulated_in_float32": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    e = torch.exp(S - S.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True, dtype=torch.float32)     # accumulate safely
''',
    }, {"mistake": "Accumulates the row sum with dtype=torch.float32, so float16 weights come back as "
                   "float32 and float64 weights are divided by a sum rounded to float32 (rows off by ~1e-8), "
                   "instead of keeping the input's dtype and precision.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q07_broadcast_mix_summed_over_query_axis": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = (A.unsqueeze(-1) * V.unsqueeze(-3)).sum(dim=-3)     # sum_i A[t, i] v_i
    return O, A
''',
    }, {"mistake": "Writes the mix as a broadcast product A[..., t, i, None] * V[..., None, i, :] but sums "
                   "over the query axis (-3) instead of the key axis (-2), so O's row i is the column sum of "
                   "A times v_i, not the weighted average for query t.",
        "where": ["q07", "q09", "q10"]}),

    "q08_log_softmax_weights_never_exponentiated": ({
        NW: '''def nadaraya_watson(q, K, V):
    logw = torch.log_softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)     # stable normalisation
    return logw @ V
''',
    }, {"mistake": "Normalises the kernel with log_softmax for stability and forgets to exponentiate, so it "
                   "averages the values with log-weights (all <= 0) instead of the weights.",
        "where": ["q08"]}),

    "q10_entropy_flattened_with_view_minus_one": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1).view(-1)          # one entropy per row


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Flattens the result with .view(-1), so a batched (B, T_q, T_k) input gives B*T_q "
                   "entropies in one row instead of shape (B, T_q).",
        "where": ["q10"]}),

    "q12_value_term_missing_d_model_factor": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * 2 * d_k + d_v          # W_Q, W_K, W_V
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "Drops the parentheses of d_model * (2 d_k + d_v), so W_V adds only d_v instead of "
                   "d_model * d_v (52 instead of 72 in the lesson).",
        "where": ["q12"]}),
}
