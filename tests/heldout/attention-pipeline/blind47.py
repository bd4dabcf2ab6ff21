"""Blind held-out set 47 for attention-pipeline.

Forty-seventh blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and solution cells of the master notebook (its
conventions: tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked entries hold
torch.finfo(dtype).min, hidden tests in float64/float32/float16 with batches and d_k != d_v; its public
checks, e.g. the multiple-choice answers must be a str that is one letter after strip().lower(), both
q11 answers Python ints, the q07 batched causal check, q10's uniform-row check built on
prefix_average_matrix), full_marks.ipynb (whose cells these replace; note its cell order: the q06 answer
cell runs before self_attention is defined), `harness.py`, the lesson text
`lesson-08-attention-pipeline.txt`, blind46.py in full (for the format) and only the module docstrings
and variant names of the earlier blind sets (to lean on the less-touched questions and not repeat a
mistake an earlier name shows).

Public sources used (the `search` tool, code / issues corpora):
- hyuenmin-choi/Orca_reproduce.code, orca_onnx/qkv_gen.py: `q,k,v = self.c_attn(x).split(self.n_embd,
  dim=1)`, a fused GPT-2-style projection split on dim 1, which is the feature axis only for 2-D input
  and the token axis for batched (B, T, 3C) input; the q01 fused-split variant copies it;
- arogozhnikov/einops issue #155 and camenduru/stable-diffusion-webui issue #1 (axis order in
  reshape/permute written by hand from NumPy habits), for the q01 variant that sums a broadcast
  product over a hard-coded axis 1;
- pytorch/pytorch PR #48206 / #54157 (torch.linalg.matrix_rank returns a Long *tensor*), for the q11
  variant whose "largest rank seen" is Python's max() over rank tensors, so a tensor rather than an int.
Variants carrying a slip seen there name the source in a comment.

Round 47 leans on the questions the earlier sets touched least (q14, q15, q16, q06 and q01 twice each;
q03, q08, q09, q11) and on code shapes not used before: a q03 experiment whose second entropy line
was copy-pasted and still measures the scaled rows, a q06 letter put through numpy.char.lower (a 0-d
ndarray, not a str), a q06 answer picked by spotting the keyword "mask" in the option texts, a q14
experiment that unpacks cross_attention's (O, A) as (A, O), a q14 experiment that reads T' from the
last axis of Y (its feature width), a q15 letter taken as the first of an ascending sort of
plausibilities, a q15 letter indexed from list("a, b, c, d") (commas and spaces are items too), a q16
cost measured with len() of the score matrix (rows only), a q16 growth exponent looked up in a table
keyed by the growth ratio, a q09 reciprocal taken after tril (1/0 = inf above the diagonal), a q08
weighted mean through numpy.average (an ndarray comes back), a q01 GPT-2-style fused projection split
on dim 1, a q01 broadcast product summed over axis 1, and a q11 bound found as max() over sampled rank
tensors. Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one
mistake; `where` lists every question whose tests may lose points. Experiment cells draw from their own
torch.Generator, so they do not move the global random state. Every variant was checked against plain
torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention`, the lesson's formula and
numbers, the full-marks cells) on several shapes and dtypes (float64, float32, float16; batched;
d_k != d_v; T_q != T_k; the lesson's inputs) with a throwaway script under /tmp/w47ap/ before it was
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
    # each token as a 1-row matrix times W, then squeezed; entropy with the zeros clamped to finfo.tiny
    "unsqueezed_row_matmul_projection_and_tiny_clamped_entropy": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    rows = X.unsqueeze(-2)                      # (..., T, 1, d_model)
    return tuple((rows @ W).squeeze(-2) for W in (W_Q, W_K, W_V))
''',
        ENT: '''def row_entropy_bits(A):
    safe = A.clamp_min(torch.finfo(A.dtype).tiny)
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # the prefix average as ones.tril() times a column of reciprocals; the lesson rank from svdvals
    "reciprocal_column_prefix_and_svd_threshold_rank": {
        AVG: '''def prefix_average_matrix(T):
    inv = torch.arange(1, T + 1, dtype=torch.float64).reciprocal()[:, None]
    return torch.ones(T, T, dtype=torch.float64).tril() * inv
''',
        RANK: '''max_rank_S = min(8, 100)

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_sv = torch.linalg.svdvals(scaled_scores(_Q, _K))
rank_S_lesson = int((_sv > _sv.max() * 1e-10).sum())
''',
    },
    # cross-attention with einsum scores and a hand-written max-shifted softmax computed in at least
    # float32; the q14 letter looked up in a table of (S shape, O shape) from a run on zeros
    "einsum_manual_softmax_cross_and_shape_table_letter": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.matmul(X, W_Q)
    K, V = torch.matmul(Y, W_K), torch.matmul(Y, W_V)
    S = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    if M is not None:
        S = S + M
    work = torch.promote_types(S.dtype, torch.float32)
    E = torch.exp((S - S.amax(dim=-1, keepdim=True)).to(work))
    A = (E / E.sum(dim=-1, keepdim=True)).to(S.dtype)
    return A @ V, A
''',
        SHAPES_ANS: '''_T, _Tp, _d_model, _d_k, _d_v = 5, 3, 6, 4, 2
_O, _A = cross_attention(torch.zeros(_T, _d_model), torch.zeros(_Tp, _d_model), torch.zeros(_d_model, _d_k),
                         torch.zeros(_d_model, _d_k), torch.zeros(_d_model, _d_v))
_table = {((_T, _T), (_T, _d_v)): "a", ((_T, _Tp), (_T, _d_v)): "b",
          ((_Tp, _T), (_Tp, _d_v)): "c", ((_T, _Tp), (_Tp, _d_v)): "d"}
ans_cross_shapes = _table[(tuple(_A.shape), tuple(_O.shape))]
''',
    },
    # the mask as the transpose of a strictly lower triangle of finfo.min; the count as d_model times
    # the sum of the output widths
    "transposed_strict_lower_mask_and_summed_widths_count": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    lower = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).tril(diagonal=-1)
    return lower.transpose(0, 1).contiguous()
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    widths = [d_k, d_k, d_v] + ([d_v] if with_output else [])
    return d_model * sum(widths)
''',
    },
    # the kernel smoother through torch.softmax over the keys; upper-case, padded letters
    "softmax_kernel_weights_and_padded_upper_case_letters": {
        NW: '''def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q * q.shape[-1] ** -0.5, dim=-1)
    return w @ V
''',
        CAUSAL_ANS: '''ans_cross_causal = " D "
''',
        COST_ANS: '''ans_complexity = "C"
''',
    },
}

WRONG = {
    # Orca_reproduce.code orca_onnx/qkv_gen.py: q,k,v = self.c_attn(x).split(self.n_embd, dim=1)
    "q01_fused_projection_split_on_dim_one": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]
    W = torch.cat([W_Q, W_K, W_V], dim=1)           # one fused matrix, like GPT-2's c_attn
    Q, K, V = (X @ W).split([d_k, d_k, d_v], dim=1)
    return Q, K, V
''',
    }, {"mistake": "Splits the fused projection on dim 1, which is the feature axis only for a 2-D X; with a "
                   "leading batch dimension dim 1 is the token axis, so batched inputs fail (the split "
                   "sizes do not match T).",
        "where": ["q01", "q07", "q09", "q10"]}),

    "q01_broadcast_product_summed_over_axis_one": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    def proj(W):
        # (T, d_model, 1) * (d_model, d): sum out d_model, as with a NumPy array
        return (X.unsqueeze(-1) * W).sum(axis=1)
    return proj(W_Q), proj(W_K), proj(W_V)
''',
    }, {"mistake": "Sums the broadcast product over a hard-coded axis 1 instead of the d_model axis (-2); "
                   "right for a 2-D X, but with a batch dimension it sums over the tokens and returns "
                   "(B, d_model, d) instead of (B, T, d).",
        "where": ["q01", "q07", "q09", "q10"]}),

    "q03_experiment_copy_paste_measures_scaled_rows_twice": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k, _T = 512, 8
_Q = torch.randn(_T, _d_k, dtype=torch.float64, generator=_g)
_K = torch.randn(_T, _d_k, dtype=torch.float64, generator=_g)
_A_scaled = torch.softmax(scaled_scores(_Q, _K), dim=-1)
_A_raw = torch.softmax(_Q @ _K.transpose(-2, -1), dim=-1)


def _bits(A):
    return -(A * torch.log2(A.clamp_min(1e-300))).sum(dim=-1).mean().item()


_H_scaled = _bits(_A_scaled)
_H_raw = _bits(_A_scaled)
if _H_raw < 0.5 * _H_scaled:
    ans_scale = "b"
elif _H_raw > _H_scaled:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Copy-pastes the entropy line and measures the scaled weights twice (`_bits(_A_scaled)` "
                   "for the unscaled case too), so both entropies are equal and the experiment answers "
                   "'c' (nothing changes) instead of 'b'.",
        "where": ["q03"]}),

    "q06_letter_lowered_with_numpy_char": ({
        MASK_ANS: '''import numpy as np

ans_mask = np.char.lower("C")        # make sure it is lower case
''',
    }, {"mistake": "Lower-cases the letter with numpy.char.lower, which returns a 0-d NumPy array "
                   "(array('c', dtype='<U1')), not a Python str.",
        "where": ["q06"]}),

    "q06_option_picked_by_keyword_mask": ({
        MASK_ANS: '''_options = {
    "a": "The rows of A stop summing to 1.",
    "b": "The score matrix loses rank.",
    "c": "Position t can read token t+1, the very token it is trained to predict, so the loss falls by "
         "copying; when generating text that token does not exist yet.",
    "d": "No gradient can flow through the entries the mask would have blocked.",
}
ans_mask = next(k for k, text in _options.items() if "mask" in text)      # the question is about the mask
''',
    }, {"mistake": "Picks the option whose text contains the question's keyword 'mask', which is 'd' (no "
                   "gradient through blocked entries) instead of 'c' (position t reads the token it must "
                   "predict).",
        "where": ["q06"]}),

    "q14_experiment_unpacks_weights_and_output_swapped": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model, _d_k, _d_v = 5, 3, 6, 4, 2
_X = torch.randn(_T, _d_model, generator=_g)
_Y = torch.randn(_Tp, _d_model, generator=_g)
_W_Q, _W_K = torch.randn(_d_model, _d_k, generator=_g), torch.randn(_d_model, _d_k, generator=_g)
_W_V = torch.randn(_d_model, _d_v, generator=_g)
_A, _O = cross_attention(_X, _Y, _W_Q, _W_K, _W_V)      # weights and output
if _A.shape == (_T, _Tp):
    ans_cross_shapes = "b" if _O.shape == (_T, _d_v) else "d"
elif _A.shape == (_T, _T):
    ans_cross_shapes = "a"
else:
    ans_cross_shapes = "c"
''',
    }, {"mistake": "Unpacks cross_attention's (O, A) as (A, O), so the 'weights' it measures are the (T, d_v) "
                   "output; no shape matches and the fall-through answer is 'c' instead of 'b'.",
        "where": ["q14"]}),

    "q14_experiment_reads_t_prime_from_last_axis_of_y": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(1)
_X = torch.randn(5, 6, generator=_g)          # 5 query tokens
_Y = torch.randn(3, 6, generator=_g)          # 3 source tokens
_W = [torch.randn(6, 4, generator=_g), torch.randn(6, 4, generator=_g), torch.randn(6, 2, generator=_g)]
_O, _A = cross_attention(_X, _Y, *_W)
_T, _Tp = _X.shape[0], _Y.shape[-1]           # lengths of the two sequences
if _A.shape[-1] == _Tp and _O.shape[0] == _T:
    ans_cross_shapes = "b"
elif _A.shape[-1] == _Tp:
    ans_cross_shapes = "d"
elif _A.shape[0] == _Tp:
    ans_cross_shapes = "c"
else:
    ans_cross_shapes = "a"
''',
    }, {"mistake": "Reads T' from Y.shape[-1], which is Y's feature width d_model (6), not its number of tokens "
                   "(3), so the shape checks fail and it answers 'a' instead of 'b'.",
        "where": ["q14"]}),

    "q15_sorted_ascending_takes_least_plausible": ({
        CAUSAL_ANS: '''# how convincing each option is, 0 to 1
_plausible = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.9}
ans_cross_causal = sorted(_plausible, key=_plausible.get)[0]      # the most plausible one
''',
    }, {"mistake": "Sorts the options by plausibility in ascending order (no reverse=True) and takes the "
                   "first, the least plausible 'a' instead of 'd'.",
        "where": ["q15"]}),

    "q15_options_listed_from_comma_text": ({
        CAUSAL_ANS: '''_letters = list("a, b, c, d")
ans_cross_causal = _letters[3]            # the fourth option
''',
    }, {"mistake": "Builds the option list with list() on the text 'a, b, c, d', so commas and spaces are "
                   "items too and index 3 is 'b' instead of 'd'.",
        "where": ["q15"]}),

    "q16_cost_measured_with_len_of_scores": ({
        COST_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 64


def _cost(T):
    Q = torch.randn(T, _d_k, generator=_g)
    K = torch.randn(T, _d_k, generator=_g)
    return len(scaled_scores(Q, K))           # how many scores there are


_ratio = _cost(512) / _cost(256)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Counts the scores with len(), which gives only the number of rows (T) of the T x T "
                   "score matrix, so doubling T doubles the 'cost' and it answers 'a' instead of 'c'.",
        "where": ["q16"]}),

    "q16_growth_exponent_looked_up_in_ratio_table": ({
        COST_ANS: '''def _madds(T, d_k=64):
    return T * T * d_k


_growth = math.log2(_madds(512) / _madds(256))        # doubling T multiplies the cost by 2 ** growth
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_growth)]
''',
    }, {"mistake": "Looks the growth exponent (log2 of the ratio, 2) up in a table keyed by the ratio "
                   "itself (doubling -> 2), so it answers 'a' (linear) instead of 'c' (quadratic).",
        "where": ["q16"]}),

    "q09_reciprocal_taken_after_tril_gives_inf": ({
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1).expand(T, T)
    return 1 / counts.tril()          # 1/t on and below the diagonal
''',
    }, {"mistake": "Takes the reciprocal after tril instead of before, so the zeros above the diagonal "
                   "become 1/0 = inf instead of 0.",
        "where": ["q09", "q10"]}),

    "q08_numpy_average_with_weights_returns_ndarray": ({
        NW: '''import numpy as np


def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return np.average(V, axis=0, weights=kappa)       # the kernel-weighted mean of the values
''',
    }, {"mistake": "Takes the weighted mean with numpy.average, which turns the tensors into arrays and "
                   "returns a NumPy ndarray instead of a torch tensor.",
        "where": ["q08"]}),

    # torch.linalg.matrix_rank returns a Long tensor (pytorch/pytorch #48206); max() keeps it a tensor
    "q11_max_rank_as_max_over_sampled_tensors": ({
        RANK: '''_g = torch.Generator().manual_seed(0)
max_rank_S = max(torch.linalg.matrix_rank(torch.randn(100, 8, dtype=torch.float64, generator=_g)
                                          @ torch.randn(8, 100, dtype=torch.float64, generator=_g))
                 for _ in range(5))        # the largest rank seen

rank_S_lesson = 2
''',
    }, {"mistake": "Finds the bound as Python's max() over torch.linalg.matrix_rank results, which are "
                   "0-d tensors, so max_rank_S is tensor(8) instead of the Python int 8.",
        "where": ["q11"]}),
}
