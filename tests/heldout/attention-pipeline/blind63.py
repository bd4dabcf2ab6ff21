"""Blind held-out set 63 for attention-pipeline.

Sixty-third blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and stub cells of attention-pipeline.ipynb, the solution
cells of full_marks.ipynb (tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked
entries hold torch.finfo(dtype).min, the prefix average in float64, letters as one-letter strings, both q11
answers Python ints, the q12 count 73728 / 98304 for the lesson exercise), `harness.py`, blind62.py in full
(for the format), and only the variant names of the earlier blind sets (to avoid repeating a mistake in the
same form).

Round 63's angle: AN OPTIMISATION THAT CHANGED THE RESULT. Each wrong variant is a student's first, working
version rewritten to be faster or leaner, with the rewrite breaking it in exactly one place: a fused
[W_Q | W_K | W_V] weight cached per shape that goes stale when new weights of the same shape arrive (q01);
BLOOM-style `torch.baddbmm` with the scale passed as `beta` (which multiplies the zero input) instead of
`alpha` (q02); logsumexp replaced by the row max to "save the exp" in the q03 experiment, which makes every
peak weight exactly 1 (q03); a nanoGPT-style mask buffer built once per dtype at the first length and sliced
for longer sequences (q04); a FlashAttention-style online softmax over key blocks that forgets to rescale the
running sum when the running max grows (q05); keys and values detached "so backward skips their graph" in
the q06 leak experiment (q06); the exp kernel swapped for linear attention's elu(x) + 1 feature map (q08);
an in-place `reciprocal_()` on an integer arange (q09); the entropy sum restricted to the lower triangle
because "future keys are 0 anyway" (q10); a randomized `torch.svd_lowrank` (default q = 6) used for speed to
measure a rank (q11); sizes held as int16 tensors so a count vectorises, silently wrapping at 32767 (q12);
keys-major scores K Q^T as kept by a FlashAttention-2 style backward pass read off for the q14 shapes (q14);
nanoGPT's square cached `bias[:T, :T]` mask tried on a T x T' score matrix (q15); and the largest
FlashAttention score tile, constant in T, measured as the cost of S (q16). q07 and q13 are reached through
`where`: the q01, q02, q04 and q05 variants break or may break self_attention (q07), whose zero-projection
check and entropies may also reach q09 and q10; the q02, q04 and q05 variants break or may break
cross_attention (q13).
Public material found with the `search` tool, and what it showed:
- Tenstorrent's tt_baddbmm ports of HF BLOOM attention (`tt_baddbmm(device, input, batch1, batch2,
  beta=1.0, alpha=1.0)`: "input = mul(beta, input) ... tmp = mul(alpha, bmm(batch1, batch2)) ... add"):
  `beta` scales the added input, `alpha` the product. The q02 variant passes 1/sqrt(d_k) as beta on a zero
  input, so the product comes out unscaled; the correct variant passes alpha = 1/sqrt(d_k), beta = 0.
- Milakov & Gimelshein's online softmax as written out in Infatoshi/physics-llm-inference ch06/
  online_softmax.py (`d = d * torch.exp(m - m_new) + torch.exp(x[..., i] - m_new)`) and several FlashAttention
  explainers in the code corpus ("we can rescale previous sums when the max changes"): the q05 variant drops
  the `* exp(m - m_new)` factor; the correct variant keeps it.
- maximzubkov/LinBERT models/modules/common.py and idiap/fast-transformers-derived LinearAttention code
  (`elu_feature_map(x) = torch.nn.functional.elu(x) + 1`, "Transformers are RNNs", replacing softmax(QK^T)V
  to cut O(L^2) to O(L D)): the q08 variant uses that feature map as the Nadaraya-Watson kernel.
- pytorch.org torch.svd_lowrank docs (`torch.svd_lowrank(A, q=6, niter=2, M=None)`, "q: a slightly
  overestimated rank of A", "The input is assumed to be a low-rank matrix"): the q11 variant counts the
  singular values it returns for a rank-8 100 x 100 score matrix and gets 6.
- nanoGPT's `register_buffer("bias", torch.tril(torch.ones(block_size, block_size)))` sliced
  `[:, :, :T, :T]` (the brief's list and earlier rounds' names): the q04 variant caches per dtype without
  rebuilding for a longer T; the q15 variant applies the square slice to a T x T' score matrix.
The q03 (logsumexp approximated by the max), q06 (detach for speed), q09 (in-place ops on a fresh tensor),
q10 (skipping masked entries), q12 (narrow integer dtype for counts), q14 (transposed score layout) and q16
(tiled scores) variants follow the optimisation patterns the brief lists.

The correct variants are the same optimisations done right: baddbmm with alpha = 1/sqrt(d_k) and beta = 0
and the online softmax with the running sum rescaled (16-bit inputs upcast and cast back); a FlashAttention
exp2 kernel with log2(e) folded into the scale and the max subtracted, and the prefix average from an
in-place reciprocal of a float64 arange; the fused [W_Q | W_K | W_V] built on every call and split at
(d_k, d_k, d_v), with q16 answered by summing all score tiles; a per-dtype mask cache rebuilt when too short
and cloned, and `torch.special.entr` entropies in bits; self- and cross-attention with in-place ops only on
fresh tensors, an int64 count and the q03 answer from the true logsumexp.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w63-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's;
the public checks themselves were not run), then every function compared with plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention` with is_causal and with an additive attn_mask, the
notebook's own formulas in float64, `torch.special.xlogy` entropies) on unbatched, (2,) and (2, 3) batched
inputs, T_q != T_k, d_k != d_v (d_k both a perfect square and not), T from 1 to 9 called in increasing
order with fresh weights each call, in float64, float32, float16 and bfloat16; the zero-projection
self-attention against the prefix average, the count on several argument sets, and every written answer
compared with the right letter or integer. full_marks and the correct variants agree everywhere (16-bit dtypes
within their precision), and each wrong variant differs or fails in its own question and only in questions
listed in its `where`.

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
    # BLOOM-style fused scores: out = beta * input + alpha * (Q @ K^T) with alpha = 1/sqrt(d_k), beta = 0
    # (the empty input is then ignored); and a FlashAttention-style online softmax over key blocks with the
    # running sum rescaled whenever the running max grows
    "baddbmm_alpha_scores_and_rescaled_online_softmax": {
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    T_q, T_k = Q.shape[-2], K.shape[-2]
    batch = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    q3 = Q.expand(*batch, T_q, d_k).reshape(-1, T_q, d_k)
    k3 = K.expand(*batch, T_k, d_k).reshape(-1, T_k, d_k)
    out = torch.empty(q3.shape[0], T_q, T_k, dtype=Q.dtype, device=Q.device)
    S = torch.baddbmm(out, q3, k3.transpose(-2, -1), beta=0.0, alpha=1.0 / math.sqrt(d_k))
    return S.reshape(*batch, T_q, T_k)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    work = Z.float() if Z.dtype in (torch.float16, torch.bfloat16) else Z
    # one pass over blocks of 4 keys: running max m and running sum l
    m = torch.full(work.shape[:-1] + (1,), -math.inf, dtype=work.dtype, device=work.device)
    l = torch.zeros_like(m)
    for blk in work.split(4, dim=-1):
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        l = l * torch.exp(m - m_new) + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)
        m = m_new
    return (torch.exp(work - m) / l).to(Z.dtype)
''',
    },
    # FlashAttention's exp2 trick done right: log2(e) folded into the scale, the max subtracted first;
    # and the prefix average from an in-place reciprocal of a float64 arange
    "flash_exp2_kernel_with_log2e_and_in_place_float_reciprocal_prefix": {
        NW: '''def nadaraya_watson(q, K, V):
    qk_scale = math.log2(math.e) / math.sqrt(q.shape[-1])
    s = (K @ q) * qk_scale
    kappa = torch.exp2(s - s.max())          # exp(x) = 2 ** (x log2 e); the shift cancels in the ratio
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
        AVG: '''def prefix_average_matrix(T):
    inv = torch.arange(1, T + 1, dtype=torch.float64)
    inv.reciprocal_()
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * inv[:, None]
''',
    },
    # the three projections as one matmul on a fused weight built on every call, split at (d_k, d_k, d_v);
    # q16 answered by adding up every FlashAttention score tile
    "fused_qkv_per_call_and_summed_tile_count": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    W = torch.cat([W_Q, W_K, W_V], dim=-1)
    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]
    Q, K, V = (X @ W).split([d_k, d_k, d_v], dim=-1)
    return Q, K, V
''',
        COST_ANS: '''def _score_tiles(T, d_k=16, B_r=16, B_c=16):
    g = torch.Generator().manual_seed(T)
    Q = torch.randn(T, d_k, generator=g)
    K = torch.randn(T, d_k, generator=g)
    total = 0
    for i in range(0, T, B_r):
        for j in range(0, T, B_c):
            total += (Q[i:i + B_r] @ K[j:j + B_c].T).numel()
    return total


_ratio = _score_tiles(256) / _score_tiles(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    },
    # a mask cache keyed on dtype and device that is rebuilt when the cached one is too short and hands
    # out a clone; entropies from torch.special.entr (0 log 0 = 0) converted from nats to bits
    "rebuilt_mask_cache_and_entr_bits": {
        MASK: '''_MASK_CACHE = {}


def causal_additive_mask(T, dtype, device=None):
    key = (dtype, str(device))
    cached = _MASK_CACHE.get(key)
    if cached is None or cached.shape[-1] < T:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
        cached = torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
        _MASK_CACHE[key] = cached
    return cached[:T, :T].clone()
''',
        ENT: '''def row_entropy_bits(A):
    return torch.special.entr(A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # in-place ops only on tensors the function made itself; the count in int64 tensors; the q03 answer
    # from the peak weight with the true logsumexp
    "in_place_on_fresh_tensors_int64_count_and_logsumexp_peak": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ K.transpose(-2, -1)
    S.div_(math.sqrt(Q.shape[-1]))
    if causal:
        S.add_(causal_additive_mask(X.shape[-2], S.dtype, S.device))
    A = attention_weights(S)
    return A @ V, A
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = torch.matmul(Q, K.transpose(-2, -1))
    S.mul_(1.0 / math.sqrt(Q.shape[-1]))
    if M is not None:
        S = S + M
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    rows = torch.tensor([d_model, d_model, d_model, d_v], dtype=torch.int64)
    cols = torch.tensor([d_k, d_k, d_v, d_model], dtype=torch.int64)
    n = rows * cols
    return int(n.sum() if with_output else n[:3].sum())
''',
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 512
_q = torch.randn(_d_k, generator=_g, dtype=torch.float64)
_K = torch.randn(8, _d_k, generator=_g, dtype=torch.float64)


def _peak_weight(s):
    return float(torch.exp(s.max() - torch.logsumexp(s, dim=-1)))


_raw = _K @ _q
_peak_raw, _peak_scaled = _peak_weight(_raw), _peak_weight(_raw / math.sqrt(_d_k))
ans_scale = "b" if _peak_raw > _peak_scaled + 1e-9 else ("a" if _peak_raw < _peak_scaled - 1e-9 else "c")
''',
    },
}

WRONG = {
    # one matmul on a fused [W_Q | W_K | W_V], cached per shape so it is only concatenated once
    "q01_fused_qkv_weight_cached_per_shape_goes_stale": ({
        PROJ: '''_FUSED = {}   # fused [W_Q | W_K | W_V], built once per shape: one matmul instead of three


def project_qkv(X, W_Q, W_K, W_V):
    key = (tuple(W_Q.shape), tuple(W_V.shape), W_Q.dtype, str(W_Q.device))
    if key not in _FUSED:
        _FUSED[key] = torch.cat([W_Q, W_K, W_V], dim=-1)
    W = _FUSED[key]
    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]
    Q, K, V = (X @ W).split([d_k, d_k, d_v], dim=-1)
    return Q, K, V
''',
    }, {"mistake": "Caches the fused [W_Q | W_K | W_V] weight by shape, dtype and device only, so a later call "
                   "with different weights of the same shape projects with the first call's weights (stale "
                   "cache); Q, K and V must come from the weights passed in.",
        "where": ["q01", "q07", "q09", "q10"]}),

    # HF BLOOM: torch.baddbmm(input, batch1, batch2, beta=..., alpha=...) = beta * input + alpha * bmm
    "q02_baddbmm_scale_passed_as_beta_not_alpha": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    T_q, T_k = Q.shape[-2], K.shape[-2]
    batch = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    q3 = Q.expand(*batch, T_q, d_k).reshape(-1, T_q, d_k)
    k3 = K.expand(*batch, T_k, d_k).reshape(-1, T_k, d_k)
    out = torch.zeros(q3.shape[0], T_q, T_k, dtype=Q.dtype, device=Q.device)
    # one fused kernel instead of a matmul and a division
    S = torch.baddbmm(out, q3, k3.transpose(-2, -1), beta=1.0 / math.sqrt(d_k))
    return S.reshape(*batch, T_q, T_k)
''',
    }, {"mistake": "Uses torch.baddbmm for speed but passes 1/sqrt(d_k) as beta, which scales the (zero) input "
                   "tensor, instead of alpha, which scales the product; alpha stays 1 and the scores come out "
                   "unscaled, Q K^T instead of Q K^T / sqrt(d_k).",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    # the log-sum-exp "max approximation": logsumexp(s) ~ max(s)
    "q03_logsumexp_replaced_by_row_max_peaks_all_one_answers_nothing_changes": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 512
_q = torch.randn(_d_k, generator=_g, dtype=torch.float64)
_K = torch.randn(8, _d_k, generator=_g, dtype=torch.float64)


def _peak_weight(s):
    # log A_i = s_i - logsumexp(s); logsumexp(s) ~ max(s) saves the exp and the sum
    lse = s.max()
    return float(torch.exp(s.max() - lse))


_raw = _K @ _q
_peak_raw, _peak_scaled = _peak_weight(_raw), _peak_weight(_raw / math.sqrt(_d_k))
ans_scale = "b" if _peak_raw > _peak_scaled + 1e-9 else ("a" if _peak_raw < _peak_scaled - 1e-9 else "c")
''',
    }, {"mistake": "Measures the largest weight with logsumexp approximated by the row max, so the peak weight is "
                   "exp(0) = 1 with and without the scale; it sees no difference and answers 'c' (nothing "
                   "changes) instead of 'b' (the rows collapse onto one key).",
        "where": ["q03"]}),

    # nanoGPT's causal "bias" buffer: built once at block size and sliced per call
    "q04_mask_cached_at_first_length_sliced_for_longer_sequences": ({
        MASK: '''_MASKS = {}   # one mask per dtype and device, built once and sliced, like nanoGPT's "bias" buffer


def causal_additive_mask(T, dtype, device=None):
    key = (dtype, str(device))
    if key not in _MASKS:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
        _MASKS[key] = torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
    return _MASKS[key][:T, :T]
''',
    }, {"mistake": "Caches the mask per dtype at the length of the first call and only slices it afterwards; a "
                   "later call with a longer T gets the smaller (T0, T0) mask back instead of a (T, T) one "
                   "(the cache is never rebuilt for a longer sequence).",
        "where": ["q04", "q07", "q09", "q10", "q13"]}),

    # online softmax (Milakov & Gimelshein / FlashAttention) without the exp(m - m_new) rescale
    "q05_online_softmax_running_sum_not_rescaled": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    work = Z.float() if Z.dtype in (torch.float16, torch.bfloat16) else Z
    # one pass over blocks of 4 keys: running max m and running sum l
    m = torch.full(work.shape[:-1] + (1,), -math.inf, dtype=work.dtype, device=work.device)
    l = torch.zeros_like(m)
    for blk in work.split(4, dim=-1):
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        l = l + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)
        m = m_new
    return (torch.exp(work - m) / l).to(Z.dtype)
''',
    }, {"mistake": "Online (blocked) softmax that adds each block's exponentials to the running sum without "
                   "rescaling the earlier sum by exp(m_old - m_new) when the running max grows; the "
                   "denominator is too large and rows with more than 4 keys no longer sum to 1.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # detach to save backward work
    "q06_keys_values_detached_in_leak_experiment_answers_no_gradient": ({
        MASK_ANS: '''_g = torch.Generator().manual_seed(1)
_X = torch.randn(5, 6, generator=_g, dtype=torch.float64, requires_grad=True)
_W = [torch.randn(6, 4, generator=_g, dtype=torch.float64) for _ in range(3)]
_Q = _X @ _W[0]
# keys and values only feed the forward pass here: detach them so backward skips their graph (faster)
_K, _V = (_X @ _W[1]).detach(), (_X @ _W[2]).detach()
_O = attention_weights(scaled_scores(_Q, _K)) @ _V      # causal mask switched off
_O[2].sum().backward()
_future_grad = _X.grad[3:].abs().sum().item()
ans_mask = "c" if _future_grad > 0 else "d"
''',
    }, {"mistake": "Detaches the keys and values to speed up backward in its leak experiment, so no gradient "
                   "can reach the future tokens even without the mask; it reads that as the mask's blocked "
                   "entries passing no gradient and answers 'd' instead of 'c' (position t reads the token it "
                   "must predict).",
        "where": ["q06"]}),

    # Katharopoulos et al. linear attention: phi(x) = elu(x) + 1
    "q08_exp_kernel_replaced_by_linear_attention_elu_feature_map": ({
        NW: '''def nadaraya_watson(q, K, V):
    # linear-attention kernel phi(q) . phi(k), phi = elu + 1: positive, and no exp to overflow
    phi = lambda x: torch.nn.functional.elu(x) + 1
    kappa = phi(K / math.sqrt(q.shape[-1])) @ phi(q)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Replaces the exponential kernel exp(q.k / sqrt(d_k)) by linear attention's elu(x) + 1 "
                   "feature-map kernel phi(q).phi(k), a different kernel, so the weights and the average "
                   "differ from the softmax attention row.",
        "where": ["q08"]}),

    # in-place reciprocal to avoid a second tensor, on an integer arange
    "q09_in_place_reciprocal_on_integer_arange_crashes": ({
        AVG: '''def prefix_average_matrix(T):
    counts = torch.arange(1, T + 1)          # row lengths 1..T
    counts.reciprocal_()                     # in place: no second tensor
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * counts[:, None]
''',
    }, {"mistake": "Takes the reciprocal in place on an int64 arange; an integer tensor cannot hold 1/t, so "
                   "reciprocal_ raises instead of returning the float64 prefix-average matrix.",
        "where": ["q09"]}),

    # skip the future keys: "they are 0 anyway"
    "q10_entropy_summed_over_lower_triangle_only": ({
        ENT: '''def row_entropy_bits(A):
    # future keys are masked to exactly 0 anyway: only visit the lower triangle
    T_q, T_k = A.shape[-2], A.shape[-1]
    visible = torch.ones(T_q, T_k, dtype=torch.bool, device=A.device).tril()
    logs = torch.where(visible & (A > 0), torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Sums the entropy terms only over the lower triangle, assuming every A is causal; for "
                   "unmasked or cross-attention weights the terms of keys after position t are dropped and "
                   "the entropy (and 2^H) comes out too small.",
        "where": ["q10"]}),

    # randomized SVD for speed: torch.svd_lowrank(A, q=6, niter=2)
    "q11_max_rank_measured_with_svd_lowrank_default_q_six": ({
        RANK: '''_g = torch.Generator().manual_seed(0)
_Q = torch.randn(100, 8, generator=_g, dtype=torch.float64)
_K = torch.randn(100, 8, generator=_g, dtype=torch.float64)
_S = _Q @ _K.T / math.sqrt(8)
# randomized SVD: only the leading singular values, much faster than a full 100 x 100 SVD
_, _sv, _ = torch.svd_lowrank(_S)
max_rank_S = int((_sv > _sv.max() * 1e-10).sum())

rank_S_lesson = 2
''',
    }, {"mistake": "Measures the rank with torch.svd_lowrank, whose default q = 6 returns only 6 singular "
                   "values, so it counts 6 instead of the true bound min(T, d_k) = 8.",
        "where": ["q11"]}),

    # sizes as int16 tensors so the count vectorises over a sweep of configurations
    "q12_count_in_int16_tensors_wraps_around": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # works elementwise on tensors of sizes too (a sweep of configs at once); int16 holds any layer width
    d_model, d_k, d_v = (torch.as_tensor(x, dtype=torch.int16) for x in (d_model, d_k, d_v))
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n = n + d_v * d_model
    return int(n) if n.dim() == 0 else n
''',
    }, {"mistake": "Does the count in int16 tensors, which silently wrap past 32767: the lesson's 72 is right "
                   "but d_model = 384, d_k = d_v = 64 gives 8192 instead of 73728 (and a wrapped number with "
                   "W_O instead of 98304).",
        "where": ["q12"]}),

    # keys-major scores, one key per row, as a FlashAttention-2 style backward pass keeps S^T
    "q14_keys_major_scores_from_fast_kernel_read_as_t_prime_by_t": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(0)
_T, _Tp, _d_model, _d_k, _d_v = 3, 5, 6, 4, 2
_X = torch.randn(_T, _d_model, generator=_g)
_Y = torch.randn(_Tp, _d_model, generator=_g)
_W_Q, _W_K, _W_V = (torch.randn(_d_model, d, generator=_g) for d in (_d_k, _d_k, _d_v))
_Q, _K, _V = _X @ _W_Q, _Y @ _W_K, _Y @ _W_V
# keys-major scores K Q^T (one key per row, contiguous per key as the fast kernel keeps them)
_S = _K @ _Q.T / math.sqrt(_d_k)
_O = torch.softmax(_S, dim=0).T @ _V
_sym = {_T: "T", _Tp: "T'", _d_v: "d_v"}
_shape = lambda t: " x ".join(_sym[n] for n in t.shape)
_options = {"a": ("T x T", "T x d_v"), "b": ("T x T'", "T x d_v"),
            "c": ("T' x T", "T' x d_v"), "d": ("T x T'", "T' x d_v")}
ans_cross_shapes = next(k for k, (s, o) in _options.items() if s == _shape(_S))
''',
    }, {"mistake": "Reads the score shape off a keys-major layout K Q^T (T' x T) used for speed, and picks the "
                   "option by that shape, answering 'c' instead of 'b' (S is T x T' with one row per query, "
                   "O is T x d_v).",
        "where": ["q14"]}),

    # nanoGPT: self.bias[:, :, :T, :T] from a tril(ones(block_size, block_size)) buffer
    "q15_cached_square_mask_slice_fails_on_rectangle_answers_equal_lengths": ({
        CAUSAL_ANS: '''_block_size = 8
_bias = torch.tril(torch.ones(_block_size, _block_size))      # nanoGPT: built once, sliced per call


def _causal_cross_ok(T, T_prime):
    S = torch.zeros(T, T_prime)
    try:
        S.masked_fill(_bias[:T, :T] == 0, float("-inf"))
        return True
    except RuntimeError:
        return False


_ok_equal, _ok_diff = _causal_cross_ok(5, 5), _causal_cross_ok(4, 6)
ans_cross_causal = "c" if _ok_equal and not _ok_diff else ("a" if _ok_equal else "b")
''',
    }, {"mistake": "Tries nanoGPT's cached square mask slice bias[:T, :T] on a T x T' score matrix, sees it "
                   "work only when T == T', and answers 'c' (whenever T = T') instead of 'd' (only when X "
                   "and Y share one time axis).",
        "where": ["q15"]}),

    # FlashAttention tiling: scores are formed one (B_r x B_c) tile at a time
    "q16_largest_flash_score_tile_measured_answers_constant": ({
        COST_ANS: '''def _largest_score_tile(T, d_k=16, B_r=16, B_c=16):
    # FlashAttention-style tiling: scores are only ever formed one (B_r x B_c) tile at a time
    g = torch.Generator().manual_seed(T)
    Q = torch.randn(T, d_k, generator=g)
    K = torch.randn(T, d_k, generator=g)
    largest = 0
    for i in range(0, T, B_r):
        for j in range(0, T, B_c):
            largest = max(largest, (Q[i:i + B_r] @ K[j:j + B_c].T).numel())
    return largest


_ratio = _largest_score_tile(256) / _largest_score_tile(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Measures the size of the largest score tile of a FlashAttention-style tiled computation, "
                   "which is B_r x B_c whatever T is, and answers 'b' (does not grow) instead of 'c' (T^2 "
                   "scores: doubling T quadruples the work).",
        "where": ["q16"]}),
}
