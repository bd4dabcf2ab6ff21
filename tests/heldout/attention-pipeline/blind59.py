"""Blind held-out set 59 for attention-pipeline.

Fifty-ninth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and stub cells of attention-pipeline.ipynb, the solution
cells of full_marks.ipynb (tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked
entries hold torch.finfo(dtype).min, the prefix average in float64, letters as one-letter strings, both q11
answers Python ints), `harness.py`, blind58.py in full (for the format), and only the variant names of the
earlier blind sets (to avoid repeating a mistake in the same form).

Round 59's angle: a SYMPTOM PATCHED, not the cause. Each wrong variant is code that once raised an error or
failed a check, and was changed until the message went away: a torch.stack size error silenced by slicing
W_V to d_k columns, a float16 matmul error silenced by a float32 round trip that also rounds float64
inputs, float16 exp overflow (NaN rows) patched to uniform rows, an IndexError silenced by clipping the
index (q04's key index, q09's 1-based row), the entropy's log(0) NaN patched by clamping the softmax's
weights above zero, a "does not require grad" error silenced with requires_grad_() on an output computed
under torch.no_grad(), a broadcast error silenced by .repeat tiling the kernel along the wrong axis,
negative entropies clamped at 0 instead of negated, matrix_rank's float16 refusal silenced by casting the
already-rounded scores, an unexpected-keyword error swallowed by **kwargs, a mask size error silenced by
cutting Y to T tokens, a failing allclose loosened to atol=1, and a matmul shape error silenced by
transposing the wrong operand. Public material found with the `search` tool, and what it showed:
- zai-org/VisualGLM-6B #30, bigscience-workshop/petals #432, Blealtan/RWKV-LM-LoRA #16 ("addmm_impl_cpu_"
  not implemented for 'Half', answered with model.float() / casting the weights to float32) and
  huggingface/transformers #17437 and #18057 (softmax upcast to float32 and cast back): the q02 variant
  does the score matmul in float32 and casts back, which keeps the dtype but drops float64 precision.
- pytorch/executorch #18407 and mila-iqia/blocks #727 (a naive exp / sum softmax overflows, inf/inf gives
  NaN, the fix is the max shift) and huggingface/transformers #17306 (fp16 masks turning into -inf and NaN
  rows): the q03 variant meets that NaN in a float16 experiment and replaces NaN rows by uniform rows
  instead of shifting, so the unscaled rows look flat and it answers 'a'.
- guofei9987/blind_watermark #83 ("max_idx+1 out of range ... should be restricted") and
  TolgaOk/Differentiable-Hard-Attention-Module #2 ("Index clamp bug"): out-of-range indices "fixed" by
  clamping them into range; the q04 and q09 variants clip the index that raised IndexError instead of
  fixing the loop, which writes to the wrong entry (q04 blocks the last diagonal entry, q09 shifts rows).
- j-pong/HYnet moneynet/nets/unsup/attention.py (attention scores floored at a pseudo-zero 1e-6) and
  VisionLearningGroup/DANCE utils/loss.py (log(p + 1e-5)): keeping probabilities off zero to avoid log(0);
  the q05 variant does it in the softmax itself (clamp(min=1e-6)), so blocked weights are no longer 0.
- duoke360.com and jishuzhan.net pages on "element 0 of tensors does not require grad and does not have a
  grad_fn" (caused by a cut graph: detach, no_grad, .item()): the q06 variant's experiment runs under
  torch.no_grad(), silences that error with requires_grad_() on the output, finds no gradient at the next
  token and answers 'd'.
- runebook.dev's repeat_interleave guide and the h563k study notes (Tensor.repeat tiles the whole tensor,
  repeat_interleave repeats elements): the q08 variant tiles the (T,) kernel with .repeat(d_v) and reshapes
  to (T, d_v), which lays the copies in the wrong order.
- strongio/torch-kalman #26 ("Don't swallow unwanted kwargs silently") and esheldon/fitsio #258 (**kwargs
  "causing silent bugs"): the q12 variant names the flag `output` and adds **kwargs to get past "unexpected
  keyword argument 'with_output'", so with_output=True is ignored.
- lucidrains/performer-pytorch #68 (a user pads both sequences to one length so causal cross-attention
  runs; the maintainer: cross-attention cannot be causal) and bentrevett/pytorch-seq2seq #130/#131 ("The
  size of tensor a must match the size of tensor b" from a mask of the wrong length): the q14 variant cuts
  Y to T tokens to get its T x T causal mask to fit, measures a square S and answers 'a'.
- taourl.com "mat1 and mat2 shapes cannot be multiplied" ("To fix this, either transpose mat2 or reshape"):
  the generic advice to transpose until it runs; the q16 variant transposes Q instead of K, measures a
  d_k x d_k matrix that does not grow with T and answers 'b'.
- No public source was found for the other patches; they come from the round's list: q01's stack error
  patched by slicing W_V, q10's negative entropies clamped at 0, q11's matrix_rank message ("This function
  doesn't handle types other than float and double", as torch 2.13 prints it for float16) patched by a cast
  on the output, and q15's failing allclose loosened to atol=1 (the open and causal outputs differ by 0.41).
q07 and q13 are reached through `where`: the q01, q02, q04 and q05 variants break self_attention (q07, and
q09's zero-projection test, except q02, whose zero scores stay exact), the q02 and q05 variants break
cross_attention (q13; q01 and q04 list q13 too, in case its checks compare with self_attention or use the
causal mask), and the variants that break self_attention or the prefix average may reach q10's checks.

The correct variants are the same pipeline written in other idioms: torch.matmul over a generator of the
weights with queries pre-multiplied by a reciprocal Python float, a full finfo.min matrix cut by triu(1)
with the functional softmax, a logsumexp-normalised kernel mixed by torch.mv, the prefix average as
tril(ones) times a column of reciprocals, entropies from torch.special.entr with torch.pow, self- and
cross-attention mixed by einsum, a count written as an explicit sum, and computed ranks and letters.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w59-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's;
the public checks themselves were not run), then every function compared with plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention` with is_causal and with an additive attn_mask, the
notebook's own formulas computed in float64) on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v,
in float64, float32, float16 and bfloat16, the zero-projection self-attention against the prefix average,
and every written answer compared with the right letter or integer; the correct variants agree everywhere
(float16/bfloat16 within their precision), and each wrong variant differs or fails in its own question and
only in questions listed in its `where`.

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
    # torch.matmul over a generator of the three weights; queries pre-multiplied by a reciprocal Python float
    "matmul_generator_projection_and_prescaled_query_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.matmul(X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    inv_root = 1.0 / math.sqrt(Q.shape[-1])
    return torch.matmul(Q * inv_root, K.transpose(-1, -2))
''',
    },
    # a full finfo.min matrix cut to its strict upper triangle; the functional softmax of a conditional sum
    "full_min_strict_upper_mask_and_functional_softmax_of_sum": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(blocked, diagonal=1)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return torch.nn.functional.softmax(Z, dim=-1)
''',
    },
    # kernel weights normalised through logsumexp and mixed with a matrix-vector product; the prefix average
    # as tril(ones) times a column of reciprocal row numbers
    "logsumexp_kernel_mv_and_reciprocal_column_prefix": {
        NW: '''def nadaraya_watson(q, K, V):
    log_kappa = (K @ q) / math.sqrt(q.shape[-1])
    w = torch.exp(log_kappa - torch.logsumexp(log_kappa, dim=0))    # kappa / sum(kappa)
    return torch.mv(V.transpose(0, 1), w)
''',
        AVG: '''def prefix_average_matrix(T):
    recip = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * recip[:, None]
''',
    },
    # entropies from torch.special.entr (0 log 0 = 0 built in) and torch.pow; self-attention mixed by einsum
    "special_entr_bits_pow_and_einsum_self_attention": {
        ENT: '''def row_entropy_bits(A):
    return torch.special.entr(A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = None
    if causal:
        M = causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device)
    A = attention_weights(S, M)
    return torch.einsum("...qk,...kd->...qd", A, V), A
''',
    },
    # cross-attention written with einsum; the count as an explicit sum; ranks and letters computed
    "einsum_cross_attention_sum_count_and_computed_answers": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...sd,dk->...sk", Y, W_K)
    V = torch.einsum("...sd,dv->...sv", Y, W_V)
    S = torch.einsum("...tk,...sk->...ts", Q, K) / math.sqrt(Q.shape[-1])
    A = attention_weights(S, M)
    return torch.einsum("...ts,...sv->...tv", A, V), A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = d_model * d_k + d_model * d_k + d_model * d_v
    return total + (d_v * d_model if with_output else 0)
''',
        RANK: '''max_rank_S = min(8, 100)     # rank S <= min(rank Q, rank K) <= d_k, and d_k < T

_Kl = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Ql = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(_Ql @ _Kl.mT / math.sqrt(4)).item())
''',
        COST_ANS: '''_options = {"a": 1, "b": 0, "c": 2, "d": 3}      # exponent p in cost ~ T**p
ans_complexity = [k for k, p in _options.items() if p == 2][0]
''',
    },
}

WRONG = {
    # "stack expects each tensor to be equal size" (torch.stack) met with d_v != d_k, patched by slicing W_V
    "q01_stack_size_error_patched_by_slicing_value_weights_to_d_k": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    d_k = W_Q.shape[-1]
    # torch.stack raised "stack expects each tensor to be equal size" when d_v != d_k: cut W_V to d_k columns
    W = torch.stack([W_Q, W_K, W_V[:, :d_k]])
    Q, K, V = (X.unsqueeze(-3) @ W).unbind(dim=-3)
    return Q, K, V
''',
    }, {"mistake": "Fuses the three projections with torch.stack and, when the stack failed for d_v != d_k, "
                   "slices W_V to its first d_k columns so the sizes match: with d_v > d_k the values lose "
                   "their last d_v - d_k features (V is (..., T, d_k)), and with d_v < d_k the stack still fails.",
        "where": ["q01", "q07", "q09", "q10", "q13"]}),

    # zai-org/VisualGLM-6B #30, bigscience-workshop/petals #432: "addmm_impl_cpu_" not implemented for 'Half'
    "q02_half_matmul_error_patched_with_float32_round_trip": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    # "addmm_impl_cpu_" not implemented for 'Half': multiply in float32, then hand the dtype back
    S = Q.float() @ K.float().transpose(-2, -1) / math.sqrt(d_k)
    return S.to(Q.dtype)
''',
    }, {"mistake": "Patches a float16 matmul error by computing every score in float32 and casting the result "
                   "back: the dtype comes back right, but float64 inputs are rounded to float32 first, so their "
                   "scores carry float32 errors (about 1e-7 relative) instead of full float64 precision.",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    # pytorch/executorch #18407, mila-iqia/blocks #727: exp overflow -> inf/inf = NaN in a naive softmax
    "q03_half_overflow_nan_rows_patched_to_uniform_answers_flatter": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 512
_q = torch.randn(200, _d_k, generator=_g).half()
_k = torch.randn(8, _d_k, generator=_g).half()


def _row_bits(S):
    E = torch.exp(S)
    A = E / E.sum(dim=-1, keepdim=True)
    # some rows came out NaN: fall back to uniform weights on those rows
    bad = torch.isnan(A).any(dim=-1, keepdim=True)
    A = torch.where(bad, torch.full_like(A, 1.0 / A.shape[-1]), A)
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return float(-(A * logs).sum(dim=-1).float().mean())


_H_scaled = _row_bits(_q @ _k.T / math.sqrt(_d_k))
_H_unscaled = _row_bits(_q @ _k.T)
ans_scale = "a" if _H_unscaled > _H_scaled else "b"
''',
    }, {"mistake": "Runs the experiment in float16 with an unshifted exp softmax; without the scale the scores "
                   "(std about 22) overflow exp, inf/inf gives NaN rows, and it patches those rows to uniform "
                   "weights instead of shifting by the row maximum, so the unscaled rows read as 3 bits and "
                   "it answers 'a' (flatter) instead of 'b'.",
        "where": ["q03"]}),

    # an IndexError at j = T "fixed" by clipping the key index
    "q04_index_error_patched_by_clipping_key_blocks_last_diagonal": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    for i in range(T):
        for j in range(i + 1, T + 1):
            M[i, min(j, T - 1)] = torch.finfo(dtype).min   # j = T raised IndexError: clip to the last key
    return M
''',
    }, {"mistake": "Loops keys up to T inclusive and, instead of fixing the range, clips the index that raised "
                   "IndexError to T - 1; the last row's index T lands on its own diagonal, so the last query's "
                   "own key (entry (T-1, T-1)) is blocked as well (for T = 1 the only entry is blocked).",
        "where": ["q04", "q07", "q09", "q10", "q13"]}),

    # j-pong/HYnet moneynet/nets/unsup/attention.py (weights floored at a pseudo-zero),
    # VisionLearningGroup/DANCE utils/loss.py (log(p + 1e-5)): a log(0) NaN patched upstream
    "q05_log_zero_nan_patched_by_clamping_weights_above_zero": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    # the entropy came out NaN from log(0): keep every weight strictly positive
    return torch.softmax(S, dim=-1).clamp(min=1e-6)
''',
    }, {"mistake": "Patches the entropy's log(0) NaN in the softmax instead of in the entropy: every weight is "
                   "clamped to at least 1e-6, so blocked entries are no longer exactly 0 (A is not "
                   "lower-triangular) and rows with blocked keys sum to more than 1.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # "element 0 of tensors does not require grad and does not have a grad_fn" (duoke360.com, jishuzhan.net)
    "q06_no_grad_experiment_patched_with_requires_grad_answers_no_gradient": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(0)
_X = torch.randn(5, 6, dtype=torch.float64, generator=_g, requires_grad=True)
_Wq, _Wk, _Wv = (torch.randn(6, 4, dtype=torch.float64, generator=_g) for _ in range(3))
with torch.no_grad():                       # added so the weights could be printed with .numpy()
    _Q, _K, _V = project_qkv(_X, _Wq, _Wk, _Wv)
    _O = attention_weights(scaled_scores(_Q, _K)) @ _V      # no causal mask
_O.requires_grad_(True)                     # backward said "element 0 of tensors does not require grad"
_O[1].sum().backward()                      # does position 1 read token 2, the one it must predict?
_reads_next = _X.grad is not None and bool(_X.grad[2].abs().sum() > 0)
ans_mask = "c" if _reads_next else "d"
''',
    }, {"mistake": "Tests whether position t reads token t+1 through gradients, but runs the forward pass under "
                   "torch.no_grad() and silences the backward error with requires_grad_() on the output; no "
                   "gradient reaches X, and it reads that as option 'd' (no gradient flows) instead of 'c'.",
        "where": ["q06"]}),

    # a broadcasting error "fixed" by tiling with .repeat along the wrong axis
    "q08_broadcast_error_patched_by_repeat_tiles_kernel_wrong_axis": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    # kappa * V raised "The size of tensor a (T) must match the size of tensor b (d_v)": tile kappa to V's shape
    w = kappa.repeat(V.shape[-1]).reshape(V.shape)
    return (w * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Fixes the (T,) * (T, d_v) broadcast error by tiling the kernel with .repeat(d_v).reshape(T, "
                   "d_v), which lays the copies along the rows in the wrong order: entry (i, j) gets "
                   "kappa[(i*d_v + j) % T] instead of kappa[i], so the values are mixed with shuffled weights.",
        "where": ["q08"]}),

    # an IndexError at row T "fixed" by clipping the row index
    "q09_index_error_patched_by_clipping_one_based_row": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.zeros(T, T, dtype=torch.float64)
    for t in range(1, T + 1):                  # row t, counting from 1, holds 1/t in its first t columns
        W[min(t, T - 1), :t] = 1.0 / t         # W[T] raised IndexError: clip the row to the last one
    return W
''',
    }, {"mistake": "Uses the 1-based row number t as a 0-based index and, when row T raised IndexError, clips "
                   "it to T - 1: every row is shifted down by one (row 0 stays all zero, row t holds 1/t in t "
                   "columns) and the last row is overwritten with 1/T everywhere.",
        "where": ["q09", "q10"]}),

    # a failing ">= 0" check patched with a clamp instead of the minus sign
    "q10_negative_entropy_clamped_to_zero_instead_of_negated": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return (A * logs).sum(dim=-1).clamp(min=0.0)     # entropies came out negative: clamp them at 0


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Leaves out the minus sign and, when the entropies came out negative, clamps them at 0 "
                   "instead of negating: every row's entropy becomes 0 and every effective-token count 1.",
        "where": ["q10"]}),

    # "This function doesn't handle types other than float and double" patched on the output
    "q11_half_rank_error_patched_by_casting_rounded_scores": ({
        RANK: '''_g = torch.Generator().manual_seed(0)
_Qr = torch.randn(100, 8, generator=_g).half()
_Kr = torch.randn(100, 8, generator=_g).half()
_S = _Qr @ _Kr.T / math.sqrt(8)
# matrix_rank said "doesn't handle types other than float and double": cast S before the rank
max_rank_S = int(torch.linalg.matrix_rank(_S.float()))

rank_S_lesson = 2
''',
    }, {"mistake": "Measures (a) on float16 scores and, when matrix_rank refused float16, casts the already "
                   "rounded S to float32 instead of building Q and K in float32/float64: the float16 rounding "
                   "errors count as extra singular directions, so max_rank_S comes out far above d_k = 8 "
                   "(84 with this seed) instead of 8.",
        "where": ["q11"]}),

    # strongio/torch-kalman #26, esheldon/fitsio #258: unexpected keyword arguments swallowed by **kwargs
    "q12_keyword_error_silenced_with_kwargs_ignores_with_output": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, output=False, **kwargs):
    # "got an unexpected keyword argument 'with_output'": accept any keyword
    n = d_model * (2 * d_k + d_v)
    if output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "Names the flag `output` and silences the 'unexpected keyword argument with_output' error "
                   "by adding **kwargs, so with_output=True is swallowed and W_O is never counted (the call "
                   "with the keyword returns 73728 instead of 98304 for the lesson's exercise).",
        "where": ["q12"]}),

    # a broadcast error between a T x T causal mask and T x T' scores "fixed" by truncating Y
    "q14_mask_size_error_patched_by_truncating_y_answers_square": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model, _d_k, _d_v = 3, 5, 6, 4, 2
_X = torch.randn(_T, _d_model, dtype=torch.float64, generator=_g)
_Y = torch.randn(_Tp, _d_model, dtype=torch.float64, generator=_g)
_W_Q = torch.randn(_d_model, _d_k, dtype=torch.float64, generator=_g)
_W_K = torch.randn(_d_model, _d_k, dtype=torch.float64, generator=_g)
_W_V = torch.randn(_d_model, _d_v, dtype=torch.float64, generator=_g)
_M = causal_additive_mask(_T, torch.float64)
_Y = _Y[:_T]    # "The size of tensor a (5) must match the size of tensor b (3)": keep T tokens of Y
_O, _A = cross_attention(_X, _Y, _W_Q, _W_K, _W_V, _M)
_letters = {((_T, _T), (_T, _d_v)): "a", ((_T, _Tp), (_T, _d_v)): "b",
            ((_Tp, _T), (_Tp, _d_v)): "c", ((_T, _Tp), (_Tp, _d_v)): "d"}
ans_cross_shapes = _letters[(tuple(_A.shape), tuple(_O.shape))]
''',
    }, {"mistake": "Its experiment adds a T x T causal mask to the T x T' scores, and to get past the size "
                   "error it cuts Y down to T tokens; the measured S is then T x T and it answers 'a' "
                   "instead of 'b' (S is T x T', O is T x d_v).",
        "where": ["q14"]}),

    # a failing allclose loosened until it passes
    "q15_allclose_loosened_until_mask_looks_harmless_answers_always": ({
        CAUSAL_ANS: '''_g = torch.Generator().manual_seed(2)
_X = torch.randn(4, 6, dtype=torch.float64, generator=_g)
_Y = torch.randn(4, 6, dtype=torch.float64, generator=_g)        # a finished source sentence
_Ws = [torch.randn(6, 4, dtype=torch.float64, generator=_g) / math.sqrt(6) for _ in range(3)]
_O_open, _ = cross_attention(_X, _Y, *_Ws)
_O_causal, _ = cross_attention(_X, _Y, *_Ws, M=causal_additive_mask(4, torch.float64))
# allclose failed with the default tolerance, so it was loosened until it passed
_mask_harmless = torch.allclose(_O_open, _O_causal, atol=1.0)
ans_cross_causal = "a" if _mask_harmless else "d"
''',
    }, {"mistake": "Compares cross-attention on a finished source with and without a causal mask, loosens "
                   "the failing allclose to atol=1 so the real difference passes as 'equal', concludes the "
                   "mask is harmless and answers 'a' (always) instead of 'd'.",
        "where": ["q15"]}),

    # "mat1 and mat2 shapes cannot be multiplied" "fixed" by transposing the queries instead of the keys
    "q16_shape_error_patched_by_transposing_queries_size_constant": ({
        COST_ANS: '''def _score_size(T, d_k=64):
    Q = torch.randn(T, d_k)
    K = torch.randn(T, d_k)
    S = Q.T @ K       # Q @ K raised "mat1 and mat2 shapes cannot be multiplied": transposing Q made it run
    return S.numel()


_ratio = _score_size(200) / _score_size(100)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Its doubling experiment fixes the Q @ K shape error by transposing Q instead of K, so it "
                   "measures a d_k x d_k matrix whose size does not change with T, and answers 'b' (not at "
                   "all) instead of 'c' (quadratic).",
        "where": ["q16"]}),
}
