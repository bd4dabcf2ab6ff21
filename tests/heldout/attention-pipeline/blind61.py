"""Blind held-out set 61 for attention-pipeline.

Sixty-first blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and stub cells of attention-pipeline.ipynb, the solution
cells of full_marks.ipynb (tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked
entries hold torch.finfo(dtype).min, the prefix average in float64, letters as one-letter strings, both q11
answers Python ints, the q12 count 73728 / 98304 for the lesson), `harness.py`, blind60.py in full (for the
format), and only the variant names of the earlier blind sets (to avoid repeating a mistake in the same form).

Round 61's angle: A LIBRARY'S DOCUMENTED BEHAVIOUR MISREAD. Each wrong variant is the code its student meant,
but one PyTorch / Python call does not do what the student believed: torch.split's list read as cut points
(it takes section sizes; torch.tensor_split takes indices) (q01); Tensor.permute given two axes like
transpose (it needs the whole ordering of all dims) (q02); torch.sort taken as descending (it sorts
ascending by default), so the "top" weight is the smallest (q03); torch.triu's diagonal=-1 read as "leave
the main diagonal out" (negative offsets reach BELOW it) (q04); torch.kthvalue(1) read as the row maximum
(it is the k-th SMALLEST), so the "stable" shift subtracts the row minimum, which is finfo.min wherever a
key is blocked (q05); torch.tril(A, diagonal=-1) read as the part above the diagonal (q06); torch.logsumexp
read as a numerically stable sum of exponentials (it returns the LOG of that sum) (q08); torch.float read as
Python's double (it is float32) (q09); torch.special.xlog1py mistaken for xlogy (it computes x*log1p(y))
(q10); the (values, indices) pair of torch.max(x, dim) read the other way round (q11); a ModuleList built
by list multiplication `[layer] * 2`, whose two entries are one module and whose parameters() yields the
shared weight once (q12); the scaled_dot_product_attention docs' "L: target sequence length" read as Y's
length (q14) and its is_causal note about square masks read as "a causal mask needs a square matrix" (q15);
and math.isclose's default rel_tol=1e-9 taken as a loose "about equal" on a measured timing ratio (q16).
Public material found with the `search` tool, and what it showed:
- pytorch/pytorch #45168, #49169 and #46328 (the tensor_split docs: "a list of ints ... split at each of the
  indices", input[:2], input[2:3], input[3:]) against #5212 / #19066 (torch.split's list is section sizes
  that must sum to the dim; "Sum of split sizes exceeds tensor dim"): the q01 variant passes the cut points
  [d_k, 2*d_k] to torch.split, which raises (d_v != d_k) or returns two pieces for three names.
- the PyTorch forums thread "Permute vs Transpose" (ptrblck: "transpose expects two dimensions, while permute
  expects an input corresponding to all dimensions"): the q02 variant calls K.permute(-1, -2), which works on
  2-D keys and raises on batched ones.
- the torch.sort docs ("sorts ... in ascending order by value ... descending=False"): the q03 variant takes
  sort(...).values[0] as each row's largest weight, finds the unscaled row's "top" weight smaller and answers
  'a' (flatter) instead of 'b'.
- pytorch/pytorch #2134 (vadimkantorov: "kthvalue returns k'th smallest element, while topk returns by
  default largest"), #29398 and #67597 (requests for largest= / descending= on kthvalue): the q05 variant
  shifts by kthvalue(1), the row minimum; with a causal mask that is finfo.min, exp overflows to inf and the
  masked rows become NaN.
- pytorch/pytorch #108108 and #103082 (is_causal is a tril(diagonal=0) keep mask, its alignment discussed for
  L != S) and #126873 ("is_causal ... description is misleading"): the q04 variant blocks with
  triu(diagonal=-1), which also blocks the diagonal and the sub-diagonal (row 0 fully blocked, uniform); the
  q06 variant measures the future part of A with tril(A, -1), finds weight there even with the mask on, and
  answers 'd'; the q15 variant reads the docs' square-mask wording as 'b' (never).
- the torch.logsumexp docs ("Returns the log of summed exponentials ... numerically stabilized") and
  mwolf.dev "log-sum-exp trick" (softmax = exp(x - logsumexp(x))): the q08 variant divides the weighted sum
  of values by logsumexp(s) instead of sum(exp(s)).
- Stack Overflow "Inconsistency in interpreting python float in pytorch" (quoted on cfs.mostlyvoid.xyz:
  "what we call float in plain Python is usually a 64-bit float ... PyTorch itself uses float32") and
  androidkt.com "How to change the PyTorch tensor type" ("torch.float32 or torch.float: 32-bit"): the q09
  variant builds the prefix average with dtype=torch.float, so it comes back float32 (1/3 inexact).
- the torch.max docs ("Returns a namedtuple (values, indices)") and sprintchase.com's torch.max tutorial: the
  q11 variant takes torch.max(ranks, dim=0)[1] as the largest sampled rank and gets the index 0.
- zalandoresearch/pytorch-vq-vae #2 ("nn.ModuleList([Residual(...)] * n) duplicates a reference to a single
  object"), yaoppeng/U-Net_v2 #10, acids-ircam/ddsp_pytorch #37 and deep-learning-with-pytorch/dlwpt-code-2e
  #6 ("n_blocks * [ResBlock(...)] creates shared reference ... sum(p.numel() for p in model.parameters()) is
  identical for n_blocks=1, 10, 100"): the q12 variant counts d_model*d_k once for W_Q and W_K.
- Stack Overflow #35324893 "Using math.isclose function with values close to 0" and runebook.dev
  math.isclose (default rel_tol=1e-9 "same within about 9 decimal digits"): the q16 variant tests a measured
  timing ratio with math.isclose(ratio, 4.0), which is never true, and falls through to 'a'.
The q10 (xlog1py for xlogy) and q14 (the docs' "target sequence length" read as Y's) variants come from the
torch.special and scaled_dot_product_attention doc pages as the brief lists them. q07 and q13 are reached
through `where`: the q01, q02, q04 and q05 variants break self_attention (q07), the q02, q04 and q05 variants
break or may break cross_attention (q13; q04 in case its checks build the mask with the student's function),
and these may reach q09's zero-projection check and q10's checks (the q09 variant lists q10 too, in
case its checks take Lesson 07's uniform rows from the student's prefix average).

The correct variants are the same pipeline written another way, with the library calls read right:
projections by torch.matmul and a mask built as zeros masked_fill_-ed through a strict triu_(1) bool
matrix; a manual softmax shifted by topk(1).values (the true row maximum), upcast to float32 for 16-bit
inputs and cast back; the kernel mixed by a row-vector matmul with squeeze(0) on the named axis and the prefix
average from numpy's np.tri (float64) divided by np.arange counts and shared with torch.from_numpy; the
entropy from log2 with nan_to_num(nan=0, neginf=0) and exp2 for the effective count; and cross-attention by
torch.nn.functional.linear with transposed weights and a parameter count from a ModuleList of distinct
meta-device Linear layers.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w61-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's;
the public checks themselves were not run), then every function compared with plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention` with is_causal and with an additive attn_mask blocking a
padded key, the notebook's own formulas in float64, `torch.special.xlogy` entropies) on unbatched, (2,) and
(2, 3) batched inputs, T_q != T_k, d_k != d_v, T from 1 to 9, in float64, float32, float16 and bfloat16,
the zero-projection self-attention against the prefix average, the count on several argument sets, and every
written answer compared with the right letter or integer; full_marks and the correct variants agree
everywhere (16-bit dtypes within their precision), and each wrong variant differs or fails in its own
question and only in questions listed in its `where`.

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
    # three plain torch.matmul projections; the mask as zeros filled in place through a strict upper bool
    # triangle (triu_(1) on a fresh ones matrix: diagonal=1 is the first diagonal ABOVE the main one)
    "matmul_projection_and_strict_triu_bool_masked_fill_mask": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return torch.matmul(X, W_Q), torch.matmul(X, W_K), torch.matmul(X, W_V)
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu_(1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill_(future, torch.finfo(dtype).min)
''',
    },
    # a hand-written softmax shifted by the true row maximum (topk's largest=True default), computed in
    # float32 for 16-bit inputs and cast back
    "topk_shifted_upcast_manual_softmax": {
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    work = Z.float() if Z.dtype in (torch.float16, torch.bfloat16) else Z
    top = work.topk(1, dim=-1).values          # (values, indices): values first, the largest by default
    e = torch.exp(work - top)
    return (e / e.sum(dim=-1, keepdim=True)).to(Z.dtype)
''',
    },
    # the kernel mix as a (1, T) @ (T, d_v) product squeezed on its named axis; the prefix average from
    # numpy (np.tri is float64, and so is the true division by the integer counts), shared by from_numpy
    "row_vector_matmul_kernel_and_numpy_tri_prefix": {
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.mv(K, q) / math.sqrt(q.shape[-1]))
    return kappa.unsqueeze(0).matmul(V).squeeze(0) / kappa.sum()
''',
        AVG: '''import numpy as np


def prefix_average_matrix(T):
    return torch.from_numpy(np.tri(T) / np.arange(1, T + 1)[:, None])
''',
    },
    # log2 of the weights with log2(0) = -inf replaced by 0 (nan_to_num's neginf), and exp2 for 2^H
    "nan_to_num_neginf_log2_entropy_and_exp2_tokens": {
        ENT: '''def row_entropy_bits(A):
    logs = torch.log2(A).nan_to_num(nan=0.0, neginf=0.0)
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # cross-attention through torch.nn.functional.linear (weight given as (out, in), so transposed); the
    # count from a ModuleList of DISTINCT Linear layers on the meta device (no memory, no init cost)
    "functional_linear_cross_and_distinct_meta_linears_count": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    lin = torch.nn.functional.linear
    Q, K, V = lin(X, W_Q.mT), lin(Y, W_K.mT), lin(Y, W_V.mT)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    layers = torch.nn.ModuleList(
        [torch.nn.Linear(n_in, n_out, bias=False, device="meta") for n_in, n_out in shapes])
    return int(sum(p.numel() for p in layers.parameters()))
''',
    },
}

WRONG = {
    # pytorch/pytorch #45168 / #49169 (tensor_split: a list of INDICES) vs #5212 / #19066 (split: SIZES)
    "q01_split_given_cut_points_like_tensor_split": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    d_k = W_Q.shape[-1]
    QKV = X @ torch.cat([W_Q, W_K, W_V], dim=-1)        # one matmul for all three
    Q, K, V = torch.split(QKV, [d_k, 2 * d_k], dim=-1)   # cut after Q and after K
    return Q, K, V
''',
    }, {"mistake": "Passes the cut points [d_k, 2*d_k] to torch.split as if it were torch.tensor_split; "
                   "torch.split takes section SIZES, so it raises when d_v != d_k (the sizes do not sum to "
                   "2*d_k + d_v) and returns two pieces for three names when d_v == d_k.",
        "where": ["q01", "q07", "q09", "q10"]}),

    # PyTorch forums "Permute vs Transpose": permute expects all dimensions, transpose two
    "q02_permute_given_two_axes_like_transpose": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q @ K.permute(-1, -2) / math.sqrt(d_k)
''',
    }, {"mistake": "Swaps the keys' last two axes with K.permute(-1, -2) as if permute took the two axes to "
                   "swap; permute needs the full ordering of every dimension, so it only works on 2-D keys "
                   "and raises on batched inputs.",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    # torch.sort docs: ascending by default (descending=False)
    "q03_sort_read_as_descending_top_weight_answers_flatter": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 512
_q = torch.randn(_d_k, generator=_g, dtype=torch.float64)
_K = torch.randn(8, _d_k, generator=_g, dtype=torch.float64)
_raw = torch.softmax(_K @ _q, dim=-1)
_scaled = torch.softmax(_K @ _q / math.sqrt(_d_k), dim=-1)
# the weight of the best key: sort the row and take its first entry
_top_raw = torch.sort(_raw).values[0]
_top_scaled = torch.sort(_scaled).values[0]
ans_scale = "b" if _top_raw > _top_scaled else "a"
''',
    }, {"mistake": "Measures how peaked a row is by torch.sort(row).values[0], believing sort is descending; "
                   "it sorts ascending, so that is the SMALLEST weight, which is smaller for the unscaled "
                   "row, and the experiment answers 'a' (flatter rows) instead of 'b'.",
        "where": ["q03"]}),

    # pytorch/pytorch #108108 / #103082: the causal keep mask is tril(diagonal=0); triu's negative offsets
    # reach below the main diagonal
    "q04_triu_diagonal_minus_one_read_as_strictly_above": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # diagonal=-1: leave the main diagonal out of the blocked part
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=-1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "Uses torch.triu(..., diagonal=-1) for the entries strictly above the diagonal; a negative "
                   "diagonal moves the triangle's edge BELOW the main diagonal, so the diagonal and the "
                   "first sub-diagonal are blocked too (strictly above is diagonal=1).",
        "where": ["q04", "q07", "q09", "q10", "q13"]}),

    # pytorch/pytorch #2134: "kthvalue returns k'th smallest element, while topk returns by default largest"
    "q05_kthvalue_one_read_as_row_max": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    row_max = S.kthvalue(1, dim=-1, keepdim=True).values   # the first (largest) value of each row
    e = torch.exp(S - row_max)
    return e / e.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "Shifts the hand-written softmax by kthvalue(1), believing it is the row maximum; kthvalue "
                   "returns the k-th SMALLEST value, so it subtracts the row minimum: exponentials overflow "
                   "(to inf, then NaN) as soon as a key is blocked with finfo.min or the scores spread "
                   "widely in 16-bit.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # tril(A, -1) is strictly BELOW the diagonal (the past), not the future
    "q06_future_weights_read_with_tril_minus_one_answers_no_gradient": ({
        MASK_ANS: '''_g6 = torch.Generator().manual_seed(0)
_S6 = torch.randn(5, 5, generator=_g6, dtype=torch.float64)
_open6 = attention_weights(_S6)
_masked6 = attention_weights(_S6, causal_additive_mask(5, torch.float64))
# weight each query puts on keys after it
_leak_open = torch.tril(_open6, diagonal=-1).sum()
_leak_masked = torch.tril(_masked6, diagonal=-1).sum()
# if the mask really stops the leak, the leak is the problem; otherwise blame the gradient
ans_mask = "c" if _leak_open > 0 and _leak_masked == 0 else "d"
''',
    }, {"mistake": "Measures the weight on future keys with torch.tril(A, diagonal=-1), which is the part "
                   "strictly BELOW the diagonal (the past); the masked weights still have weight there, the "
                   "leak looks unaffected by the mask, and it answers 'd' instead of 'c'.",
        "where": ["q06"]}),

    # torch.logsumexp docs: "Returns the log of summed exponentials"
    "q08_denominator_from_logsumexp_read_as_stable_sum": ({
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    kappa = torch.exp(s)
    return (kappa[:, None] * V).sum(dim=0) / torch.logsumexp(s, dim=0)   # stable sum of the kernels
''',
    }, {"mistake": "Takes torch.logsumexp(s) as a numerically stable sum of the kernel weights; it returns the "
                   "LOG of that sum, so the weighted values are divided by log(sum exp(s)) instead of "
                   "sum exp(s) and the result is not a weighted average.",
        "where": ["q08"]}),

    # torch.float is float32 ("torch.float32 or torch.float: 32-bit floating-point")
    "q09_dtype_torch_float_read_as_double": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float))   # float: Python's double precision
    return W / W.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "Builds the matrix with dtype=torch.float believing it is Python's 64-bit float; "
                   "torch.float is float32, so the matrix is float32 (1/3, 1/5, ... rounded to single "
                   "precision) instead of float64.",
        "where": ["q09", "q10"]}),   # q10 in case its checks feed the student's prefix average

    # torch.special.xlog1py(x, y) = x * log1p(y), not xlogy's x * log(y)
    "q10_xlog1py_mistaken_for_xlogy": ({
        ENT: '''def row_entropy_bits(A):
    # x*log(y) with 0*log(0) = 0, then nats to bits
    return -torch.special.xlog1py(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Uses torch.special.xlog1py(A, A) as the safe A*log(A); xlog1py computes A*log(1 + A), "
                   "so every term is A*log(1+A) >= 0 and the 'entropies' come out negative (and 2^H below "
                   "1) instead of -sum A log2 A.",
        "where": ["q10"]}),

    # torch.max docs: "Returns a namedtuple (values, indices)"
    "q11_max_rank_from_max_tuple_reads_indices": ({
        RANK: '''_g11 = torch.Generator().manual_seed(0)
_ranks = torch.stack([
    torch.linalg.matrix_rank(torch.randn(100, 8, generator=_g11, dtype=torch.float64)
                             @ torch.randn(8, 100, generator=_g11, dtype=torch.float64))
    for _ in range(5)])
max_rank_S = int(torch.max(_ranks, dim=0)[1])    # (index, value): the second entry is the maximum

rank_S_lesson = 2
''',
    }, {"mistake": "Samples the rank of five 100x100 score matrices with d_k = 8 and reads the largest with "
                   "torch.max(ranks, dim=0)[1], believing the pair is (index, value); it is (values, "
                   "indices), so max_rank_S gets the index 0 instead of 8.",
        "where": ["q11"]}),

    # zalandoresearch/pytorch-vq-vae #2, yaoppeng/U-Net_v2 #10: [module] * n is one module n times
    "q12_linear_list_multiplied_shares_one_module": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    layers = torch.nn.ModuleList(
        [torch.nn.Linear(d_model, d_k, bias=False, device="meta")] * 2          # W_Q and W_K
        + [torch.nn.Linear(d_model, d_v, bias=False, device="meta")])           # W_V
    if with_output:
        layers.append(torch.nn.Linear(d_v, d_model, bias=False, device="meta"))
    return sum(p.numel() for p in layers.parameters())
''',
    }, {"mistake": "Builds W_Q and W_K as `[nn.Linear(d_model, d_k)] * 2`, which puts ONE module in the list "
                   "twice; Module.parameters() yields a shared weight once, so d_model*d_k is counted once "
                   "(d_model*(d_k + d_v) instead of d_model*(2*d_k + d_v)).",
        "where": ["q12"]}),

    # the scaled_dot_product_attention docs: query (N, ..., L, E), "L: target sequence length"
    "q14_sdpa_doc_target_length_read_as_y_answers_c": ({
        SHAPES_ANS: '''# scaled_dot_product_attention's docs: output (N, ..., L, Ev), attention (L, S), with
# "L: target sequence length, S: source sequence length". The target is what the queries look at: Y.
_L, _S = "T'", "T"
_options = {"a": ("T x T", "T x d_v"), "b": ("T x T'", "T x d_v"),
            "c": ("T' x T", "T' x d_v"), "d": ("T x T'", "T' x d_v")}
ans_cross_shapes = next(k for k, (s, o) in _options.items()
                        if s == f"{_L} x {_S}" and o == f"{_L} x d_v")
''',
    }, {"mistake": "Reads the library docs' 'L: target sequence length' as the length of Y (the sequence "
                   "attended to) instead of the queries' sequence X, so S comes out T' x T and O T' x d_v: "
                   "it answers 'c' instead of 'b'.",
        "where": ["q14"]}),

    # pytorch/pytorch #108108 / #126873: is_causal's wording about square masks and alignment
    "q15_sdpa_is_causal_square_doc_read_as_never": ({
        CAUSAL_ANS: '''# The library describes is_causal as a lower-triangular mask "when the mask is a square matrix":
# a causal mask needs a square score matrix, and cross-attention's is T x T'.
ans_cross_causal = "b"
''',
    }, {"mistake": "Reads the scaled_dot_product_attention note about square causal masks as 'a causal mask "
                   "can only be built for a square score matrix' and answers 'b' (never) instead of 'd' "
                   "(only when X and Y share one time axis).",
        "where": ["q15"]}),

    # Stack Overflow #35324893, runebook.dev: math.isclose's default rel_tol is 1e-9
    "q16_timing_ratio_tested_with_math_isclose_defaults_answers_linear": ({
        COST_ANS: '''import time


def _time_scores(T, d_k=64, reps=5):
    g = torch.Generator().manual_seed(0)
    Q = torch.randn(T, d_k, generator=g)
    K = torch.randn(T, d_k, generator=g)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        Q @ K.T
        best = min(best, time.perf_counter() - t0)
    return best


_ratio = _time_scores(1024) / _time_scores(512)
ans_complexity = ("c" if math.isclose(_ratio, 4.0)       # about four times the work
                  else "d" if math.isclose(_ratio, 8.0)
                  else "b" if math.isclose(_ratio, 1.0)
                  else "a")
''',
    }, {"mistake": "Compares a measured timing ratio with math.isclose(ratio, 4.0) as if it meant 'roughly "
                   "4'; the default rel_tol is 1e-9, so no measured ratio is 'close' to 4, 8 or 1 and it "
                   "falls through to 'a' (linear) instead of 'c' (quadratic).",
        "where": ["q16"]}),
}
