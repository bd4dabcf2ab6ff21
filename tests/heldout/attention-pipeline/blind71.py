"""Blind held-out set 71 for attention-pipeline.

Seventy-first blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind70.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 71's angle: MEMORY- AND SPEED-CONSCIOUS CODE. The student writes every exercise as if the tensors were
huge: out= buffers, in-place ops, caches of things that look constant, chunks of queries or keys, half
precision "to halve memory". Each wrong variant has one slip of that kind in otherwise careful code: Q and K
written into one shared out= buffer, so Q is overwritten by K (q01); the scale 1/sqrt(d_k) cached in a mutable
default argument on the first call and reused for every later head size (q02); the mask built once in float32
and cast to the requested dtype, so float16 gets -inf and float64 gets float32's min (q04); the softmax run
over chunks of 4 query rows with the last partial chunk dropped (q05); a module-level mask cache keyed on T
alone, so a later call in another dtype gets the first call's mask and its dtype (q07); the kernel weights
exponentiated in float16 (q08); the prefix average built in float16 and cast to float64 (q09); log2 taken in
place on the very tensor that multiplies it, `P * P.log2_()` (q10); a query-chunk loop whose slice ends one
row short, leaving zero rows in the preallocated outputs (q13). The written answers carry a memory-minded
student's wrong reasoning: the score buffer's size read as its rank bound (q11 answers 100); the parameter
count reported in bytes of float32 (q12); deleting the scale thought harmless since it is "just a constant
folded into the weights" (q03 c); in-place masking believed to cut the gradient (q06 d); a keys-major score
buffer (T' x T, "contiguous along the queries") read as the shape of S and O (q14 c).

Public material found with the `search` tool, and what it showed:
- idiap/fast-transformers#10 (in-place updates in recurrent linear attention replaced because of "modified by
  an inplace operation"), microsoft/unilm#999 (`x += x_conv` replaced by `x = x.clone() + x_conv`),
  AggMan96/RK-Net#9 (attention tensor modified in place, fixed with `att = att.clone()`): the in-place habit
  behind q10's `P * P.log2_()` and the q06 belief that in-place masking blocks the gradient.
- eth-easl/mixtera#55 ("Return incomplete chunk at the end of chunking, so we won't lose any data") and
  globaldothealth/list#1586 ("Fix last chunk truncation"): the dropped last partial chunk of q05 and the
  one-short chunk slice of q13.
- The remaining kinds follow the brief's list for memory-conscious code: a shared out= buffer aliasing two
  results (q01), a cache right for the first shape or dtype and wrong for the next (q02, q07), a half-precision
  step that loses what the answer needs (q04's -inf, q08, q09).

The correct variants are memory-conscious too and right everywhere: out= into fresh buffers, in-place scaling
and an in-place stable softmax on their own copies; query chunks that cover the last partial chunk, with
preallocated outputs filled before use; a mask cache keyed on (T, dtype, device) that hands back clones; an
entropy from xlogy on a fresh tensor; exp2_ in place on a fresh entropy tensor.

Every variant was checked with a throwaway script under /tmp/w71-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
compared with full_marks' functions and with plain torch (torch.softmax of S + M,
F.scaled_dot_product_attention) on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v, float64,
float32, float16, causal masks, padding masks and a fully blocked row, with the calls repeated over several
shapes and dtypes in one namespace (for the caches); every written answer compared with the right letter or
integer. The correct variants agree everywhere; each wrong variant differs in its own questions and only in
those listed in "where".

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
    # out= into fresh buffers, in-place scale and in-place stable softmax on own copies
    "out_buffers_projection_in_place_scale_and_in_place_softmax_on_copy": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # one fresh output buffer per projection, written with out= (no temporaries)
    lead = X.shape[:-1]
    Q = torch.empty(*lead, W_Q.shape[-1], dtype=X.dtype, device=X.device)
    K = torch.empty(*lead, W_K.shape[-1], dtype=X.dtype, device=X.device)
    V = torch.empty(*lead, W_V.shape[-1], dtype=X.dtype, device=X.device)
    torch.matmul(X, W_Q, out=Q)
    torch.matmul(X, W_K, out=K)
    torch.matmul(X, W_V, out=V)
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    S = torch.matmul(Q, K.transpose(-2, -1))   # a fresh tensor: safe to scale in place
    S.div_(math.sqrt(Q.shape[-1]))
    return S
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    # work on our own copy, never on the caller's S
    W = S + M if M is not None else S.clone()
    W.sub_(W.amax(dim=-1, keepdim=True))
    W.exp_()
    W.div_(W.sum(dim=-1, keepdim=True))
    return W
''',
    },
    # query chunks that keep the last partial chunk; preallocated outputs filled before use
    "query_chunks_with_tail_and_filled_buffers": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True, chunk=3):
    # process queries a few rows at a time to bound the size of the score block
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    T = X.shape[-2]
    M = causal_additive_mask(T, Q.dtype, Q.device) if causal else None
    S_full_shape = Q.shape[:-2] + (T, T)
    A = torch.empty(S_full_shape, dtype=Q.dtype, device=Q.device)
    for start in range(0, T, chunk):          # the last chunk may be shorter: still processed
        stop = min(start + chunk, T)
        S = scaled_scores(Q[..., start:stop, :], K)
        A[..., start:stop, :] = attention_weights(S, None if M is None else M[start:stop])
    return A @ V, A
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None, chunk=2):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    T, Tk = Q.shape[-2], K.shape[-2]
    S0 = scaled_scores(Q[..., :1, :], K)          # only to learn the broadcast batch shape
    batch = S0.shape[:-2]
    if M is not None:
        batch = torch.broadcast_shapes(batch, M.shape[:-2])
    A = torch.zeros(*batch, T, Tk, dtype=Q.dtype, device=Q.device)
    for start in range(0, T, chunk):
        stop = min(start + chunk, T)
        S = scaled_scores(Q[..., start:stop, :], K)
        Mi = None
        if M is not None:
            Mi = M if M.shape[-2] == 1 else M[..., start:stop, :]
        A[..., start:stop, :] = attention_weights(S, Mi)
    return A @ V, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    s = torch.mv(K, q)
    s.div_(math.sqrt(q.shape[-1]))
    s.sub_(s.max())               # shift cancels in the ratio; in place on our own tensor
    kappa = s.exp_()
    num = torch.empty(V.shape[-1], dtype=V.dtype, device=V.device)
    torch.mv(V.transpose(0, 1), kappa, out=num)   # fills the whole buffer
    return num / kappa.sum()
''',
    },
    # mask cache keyed on everything that matters, handing back clones; xlogy entropy; exp2_ on a fresh tensor
    "mask_cache_keyed_on_length_dtype_device_clone_and_xlogy_exp2_in_place": {
        MASK: '''_MASKS = {}


def causal_additive_mask(T, dtype, device=None):
    key = (T, dtype, None if device is None else torch.device(device))
    if key not in _MASKS:
        M = torch.zeros(T, T, dtype=dtype, device=device)
        M.masked_fill_(torch.ones(T, T, dtype=torch.bool, device=device).triu_(1), torch.finfo(dtype).min)
        _MASKS[key] = M
    return _MASKS[key].clone()    # callers may write into it
''',
        ENT: '''def row_entropy_bits(A):
    H = torch.special.xlogy(A, A).sum(dim=-1)   # fresh tensor
    H.mul_(-1.0 / math.log(2.0))
    return H


def effective_tokens(A):
    return row_entropy_bits(A).exp2_()           # in place on a tensor nobody else holds
''',
        AVG: '''def prefix_average_matrix(T):
    W = torch.ones(T, T, dtype=torch.float64).tril_()
    W.div_(torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1))
    return W
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    n += d_v * d_model if with_output else 0
    return n
''',
    },
    # the answers with a memory-minded student's right reasoning
    "memory_minded_answers": {
        SCALE_ANS: '''# Unscaled scores at d_k = 512 have standard deviation ~22: the softmax saturates on one key.
ans_scale = "b"
''',
        MASK_ANS: '''# Without the mask position t reads token t+1, the token it is trained to predict.
ans_mask = "c"
''',
        RANK: '''max_rank_S = 8   # S = Q K^T / sqrt(d_k) factors through d_k = 8 dimensions, whatever T is

rank_S_lesson = 2
''',
        SHAPES_ANS: '''# S has one row per query (T) and one column per key (T'); O = A V has one row per query.
ans_cross_shapes = "b"
''',
        CAUSAL_ANS: '''ans_cross_causal = "d"
''',
        COST_ANS: '''# T^2 scores of d_k multiply-adds each (and a T^2 buffer for S)
ans_complexity = "c"
''',
    },
}

WRONG = {
    # --- q01: Q and K written into one shared out= buffer
    "q01_queries_and_keys_share_one_out_buffer": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # Q and K have the same shape, so one scratch buffer serves both (saves an allocation)
    qk_buf = torch.empty(*X.shape[:-1], W_Q.shape[-1], dtype=X.dtype, device=X.device)
    Q = torch.matmul(X, W_Q, out=qk_buf)
    K = torch.matmul(X, W_K, out=qk_buf)
    V = X @ W_V
    return Q, K, V
''',
    }, {"mistake": "Q and K are written with out= into the same buffer, so the second matmul overwrites the first: "
                   "Q comes back equal to K = X W_K (the two names alias one tensor), and self-attention scores "
                   "become K K^T.",
        "where": ["q01", "q07"]}),

    # --- q02: scale cached in a mutable default argument
    "q02_scale_cached_in_default_argument_on_first_call": ({
        SCORES: '''def scaled_scores(Q, K, _cache={}):
    # the scale is a constant: compute the square root once and keep it
    if "scale" not in _cache:
        _cache["scale"] = 1.0 / math.sqrt(Q.shape[-1])
    S = Q @ K.transpose(-2, -1)
    S.mul_(_cache["scale"])
    return S
''',
    }, {"mistake": "1/sqrt(d_k) is cached in a default argument on the first call and reused for every later call, "
                   "so after a first call with one head size, scores for any other d_k are scaled by the wrong "
                   "factor.",
        "where": ["q02", "q07", "q13"]}),

    # --- q03: scale thought foldable, answers c
    "q03_scale_thought_folded_into_weights_answers_c": ({
        SCALE_ANS: '''# 1/sqrt(d_k) is just a constant: in fast kernels it gets folded into the weights anyway,
# and softmax only cares about which score is largest, so removing it changes nothing.
ans_scale = "c"
''',
    }, {"mistake": "Answers 'c': softmax is not invariant to multiplying the scores by a constant (only to adding "
                   "one); unscaled scores with variance 512 saturate each row on one key, entropy toward 0 ('b').",
        "where": ["q03"]}),

    # --- q04: float32 mask built once and cast
    "q04_float32_mask_built_once_and_cast_to_dtype": ({
        MASK: '''_BASE = {}


def causal_additive_mask(T, dtype, device=None):
    # build the triangle once in float32 and cast: cheaper than rebuilding per dtype
    if T not in _BASE:
        base = torch.zeros(T, T, dtype=torch.float32)
        base.masked_fill_(torch.ones(T, T, dtype=torch.bool).triu(1), torch.finfo(torch.float32).min)
        _BASE[T] = base
    return _BASE[T].to(dtype=dtype, device=device, copy=True)
''',
    }, {"mistake": "The blocked value is always float32's min cast to the requested dtype: in float16 it overflows "
                   "to -inf (not -65504) and in float64 it is -3.4e38 instead of float64's min, so the mask is "
                   "right only for float32.",
        "where": ["q04"]}),

    # --- q05: last partial chunk of query rows dropped
    "q05_softmax_over_query_chunks_drops_last_partial_chunk": ({
        WEIGHTS: '''def attention_weights(S, M=None, chunk=4):
    if M is not None:
        S = S + M
    A = torch.zeros_like(S)
    n_chunks = S.shape[-2] // chunk          # number of query chunks
    for c in range(n_chunks):
        rows = slice(c * chunk, (c + 1) * chunk)
        A[..., rows, :] = torch.softmax(S[..., rows, :], dim=-1)
    return A
''',
    }, {"mistake": "The softmax is run over chunks of 4 query rows but the number of chunks is T_q // 4, so the "
                   "last partial chunk is dropped: those rows (all rows when T_q < 4) stay 0 instead of summing "
                   "to 1.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: in-place masking thought to cut the gradient
    "q06_in_place_masking_thought_to_cut_gradients_answers_d": ({
        MASK_ANS: '''# The mask is applied in place (masked_fill_), and in-place ops on the scores make autograd fail
# ("modified by an inplace operation"), so the masked entries get no gradient: that is what goes wrong.
ans_mask = "d"
''',
    }, {"mistake": "Answers 'd': the problem of training without the mask is leakage, position t reads the token "
                   "it must predict and learns to copy it ('c'); gradients are not the issue.",
        "where": ["q06"]}),

    # --- q07: mask cache keyed on T only
    "q07_mask_cache_keyed_on_length_only_keeps_first_dtype": ({
        SELF: '''_MASK_CACHE = {}


def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = None
    if causal:
        T = X.shape[-2]
        if T not in _MASK_CACHE:              # the mask only depends on the length
            _MASK_CACHE[T] = causal_additive_mask(T, S.dtype, S.device)
        M = _MASK_CACHE[T]
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "The causal mask is cached by length only, so a later call in another dtype reuses the first "
                   "call's mask: S + M is promoted to the cached dtype (float64 A for float32 inputs, or a dtype "
                   "error in A @ V for float16).",
        "where": ["q07", "q09"]}),

    # --- q08: kernel weights in half precision
    "q08_kernel_weights_exponentiated_in_half_precision": ({
        NW: '''def nadaraya_watson(q, K, V):
    # the kernel weights are only a weighting: keep them in half precision to halve their memory
    kappa = torch.exp((K @ q / math.sqrt(q.shape[-1])).half())
    kappa = kappa.to(V.dtype)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "The kernel weights are computed in float16: float32/float64 results lose all but ~3 digits, "
                   "and scores above ~11 overflow to inf, giving NaN.",
        "where": ["q08"]}),

    # --- q09: prefix average built in float16 and cast up
    "q09_prefix_weights_built_in_half_then_cast_to_float64": ({
        AVG: '''def prefix_average_matrix(T):
    # build the small triangle in half precision, then cast to the requested float64
    W = torch.ones(T, T, dtype=torch.float16).tril_()
    W.div_(W.sum(dim=-1, keepdim=True))
    return W.to(torch.float64)
''',
    }, {"mistake": "The 1/t entries are computed in float16 and only then cast to float64, so 1/3, 1/5, 1/6, ... "
                   "carry float16 rounding errors (~1e-4) instead of being exact to float64 precision.",
        "where": ["q09"]}),

    # --- q10: log2_ in place on the operand it multiplies
    "q10_log2_taken_in_place_on_the_tensor_it_multiplies": ({
        ENT: '''def row_entropy_bits(A):
    P = A.masked_fill(A == 0, 1.0)       # own copy, zeros replaced so log2 is finite (1*log 1 = 0)
    return -(P * P.log2_()).sum(dim=-1)   # log in place: no extra T x T buffer


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "P.log2_() overwrites P before the product is taken, so the sum is -sum(log2(p)^2) instead of "
                   "-sum(p log2 p): entropies (and 2**H) are wrong for every row that is not one-hot.",
        "where": ["q10"]}),

    # --- q11: buffer size read as rank bound
    "q11_rank_bound_read_off_the_score_buffer_size_100": ({
        RANK: '''# S is stored as a T x T = 100 x 100 buffer, so its rank can reach 100
max_rank_S = 100

rank_S_lesson = 2
''',
    }, {"mistake": "max_rank_S is 100 (the size of the T x T score buffer), but S = Q K^T / sqrt(d_k) factors "
                   "through d_k = 8 dimensions, so its rank is at most 8.",
        "where": ["q11"]}),

    # --- q12: parameter count in bytes
    "q12_parameter_count_reported_in_float32_bytes": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # what matters on the GPU is memory: 4 bytes per float32 weight
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return 4 * n
''',
    }, {"mistake": "Returns the size in bytes of float32 weights (4 per weight) instead of the number of weights: "
                   "every count is 4 times too large (294912 instead of 73728 for the lesson's exercise).",
        "where": ["q12"]}),

    # --- q13: query chunk slice one row short
    "q13_query_chunk_slice_one_row_short_leaves_zero_rows": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None, chunk=4):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    T = Q.shape[-2]
    A = torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype, device=Q.device)
    for start in range(0, T, chunk):          # a few query rows at a time
        stop = start + chunk - 1               # last row of the chunk
        S = scaled_scores(Q[..., start:stop, :], K)
        A[..., start:stop, :] = attention_weights(S, None if M is None else M[..., start:stop, :])
    return A @ V, A
''',
    }, {"mistake": "Each chunk is sliced start:start+chunk-1 (the end treated as inclusive), so every fourth query "
                   "row is never computed and stays 0 in A and O.",
        "where": ["q13"]}),

    # --- q14: keys-major score buffer read as the shape
    "q14_keys_major_score_buffer_layout_answers_c": ({
        SHAPES_ANS: '''# Fast kernels store the scores keys-major (K Q^T, contiguous along the queries), so S is T' x T
# and the output has one row per key: T' x d_v.
ans_cross_shapes = "c"
''',
    }, {"mistake": "Answers 'c': S = Q K^T has one row per query and one column per key (T x T'), and O = A V has "
                   "one row per query (T x d_v), answer 'b'; a kernel's memory layout does not change the shapes.",
        "where": ["q14"]}),
}
