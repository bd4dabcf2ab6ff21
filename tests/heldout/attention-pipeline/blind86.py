"""Blind held-out set 86 for attention-pipeline.

Eighty-sixth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind85.py (for the format and the docstring only), and only the variant names of the earlier
blind sets (to avoid repeating a mistake in the same form).

Round 86's angle: LOG-SPACE, ONLINE AND BLOCKWISE FORMULATIONS. Every wrong cell is written by a student who has
read about FlashAttention and log-sum-exp and computes the answer another way than the plain formula, and makes
the one slip that such a formulation invites: a split-K projection over blocks of 3 features whose block count
`d_model // 3` drops the remainder features (q01); a split-K score product over blocks of the head dimension
where each block's partial product is divided by the root of the BLOCK width instead of d_k (q02); a log-space
entropy trial using the identity H = logsumexp(s) - sum_i a_i s_i with the two terms subtracted the wrong way
round, which reads negative entropies and answers "d" (q03); a causal mask built from a cumulative sum of the
identity taken down the query axis (dim=0) instead of along the keys, which blocks the past (q04); an online
softmax over key blocks whose rescale factor is exp(m_new - m) instead of exp(m - m_new) (q05); a log-space
softmax exp(x - logsumexp(x)) without the max taken out first, so on a fully blocked row finfo.min + log(T_k)
rounds back to finfo.min and the row comes out all ones instead of uniform (q05); self-attention
over query blocks of 2 where every block takes the mask's first rows, losing the block's offset (q07); an online
Nadaraya-Watson pass whose running denominator is rescaled when the max grows but whose running numerator is
not (q08); Lesson 07's matrix as a running mean where the previous row is never rescaled by (t-1)/t (q09); an
entropy whose log-weights are re-normalised in log space over the query axis (dim=-2) before use (q10); the rank
bound worked out tile by tile, the ranks of the 13 key tiles added up, which gives 100 instead of 8 (q11); the
weights counted as a tiled kernel stores them, each matrix padded to whole 16 x 16 tiles (q12); a two-pass
cross-attention whose first pass (running max and sum) adds the mask but whose second pass forgets it (q13); and
a cross-attention that normalises once after the value product, FlashAttention's last step, and returns the
unnormalised exponentials as A (q13). Questions 6, 14 and 15 ask what a mask or a shape means, not how a number
is computed, and q16's blockwise readings (linear memory, one tile, per-chunk counts, log ratios) are all taken by
earlier sets, so this round leaves those four alone.

Public material found with the `search` tool, and what it showed:
- Dao-AILab/flash-attention issue #991 ("Error in Algorithm 1 of Flash Attention 2 paper": the rescale
  diag(exp(m_old - m_new)) printed with a stray ^-1) and PaddleJitLab/CUDATutorial issue #69 (a reader's online
  softmax whose running sum update "matched" only because fmaxf(nan, 0) hid the error): the rescale factor of an
  online softmax is easy to invert or drop (q05 sign, q08 numerator left unrescaled).
- Dao-AILab/flash-attention issue #2082 and pull #2174 ("update row_max before safe overwrite for online_softmax":
  the running max set to 0 for a masked first block and then used as the true max), and flashinfer-ai/flashinfer
  issue #4267 (a running max initialised to a finite sentinel): the running statistics of the two-pass/online
  form are where masks and maxima go wrong (q13 two-pass mask, q05).
- karpathy/nanoGPT issue #473 (a causal buffer sliced `[:T, :T]` from its top-left corner, sized for another
  length) and Dao-AILab/flash-attention pull #436 (causal masking per block when the key and query lengths
  differ, "we'll need to be quite careful about correctness"): a block's mask taken from the wrong rows (q07).
- jax-ml/jax issue #27224 ("Pallas GPU FlashAttention forward only works when sequence lengths are multiples of
  block size") and amorehead/jvp_flash_attention issue #13 (N_CTX must be divisible by BLOCK_MIN): blockwise code
  that silently assumes the block divides the length (q01 split-K remainder, q12 tile padding).
- lucidrains/memory-compressed-attention issue #2 ("The order of masking and softmax operation": the mask applied
  on the wrong side of the softmax) and tinygrad/tinygrad pull #17853 (logcumsumexp subtracting an unguarded cummax,
  -inf - -inf): a log-space or cumulative step done on the wrong quantity or axis (q13 weights, q04 cumsum axis,
  q10 log-space normaliser on the query axis), and a log-sum-exp that is exact only while its inputs are
  representable around their max (q05 fully blocked row).
- The remaining kinds (a backwards log-sum-exp identity, a per-block scale, a running mean left unrescaled, ranks
  added over tiles) follow the brief's list; no single public thread was used for them.

The correct variants use the same formulations and get them right: a two-pass online softmax over key blocks of
3 with a guarded running max (and an online Nadaraya-Watson pass with both accumulators rescaled, upcast to
float32 for half inputs); a log-space cross-attention (row max taken out first) and a log-space kernel
average with logsumexp, an xlogy entropy and a log-sum-exp entropy trial for q03; token-chunked projections, query-chunked scores, self-attention over query
blocks with the right mask rows and a two-pass cross-attention over key blocks; and a cumulative-sum mask and
prefix-average matrix with the answers worked out by counting tiles correctly.

Every variant was checked with a throwaway script under /tmp/w86-attention-pipeline/: each variant's notebook was
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function and
answer was compared with full_marks's on unbatched, 3-D and 4-D inputs, T_q != T_k, d_k != d_v != d_model (odd and
even), float64, float32 and float16, without masks, with 2-D and batched random masks, fully masked rows, large
logits and gradients, plus broadcast masks of shape (T',), (1, T') and (B, 1, 1, T'); each correct variant agrees
everywhere (the causal mask, Lesson 07's matrix and A of self-attention with zero query and key projections are
also bitwise equal), each wrong one differs only in its "where". The only inputs left out are float16 kernel
averages with large scores, where full_marks's unshifted exp itself overflows to NaN.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
PREFIX = "prefix_average_matrix"
ENTROPY = "row_entropy_bits"
RANK = "max_rank_S"
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
COMPLEXITY = "ans_complexity"


# ----------------------------------------------------------------------------------------------------------
# correct cells
# ----------------------------------------------------------------------------------------------------------

_ONLINE_WEIGHTS = '''
KEY_BLOCK = 3


def attention_weights(S, M=None):
    """Row softmax of S + M in two passes over blocks of keys (FlashAttention's statistics):
    pass 1 keeps a running max m and a running sum l, pass 2 forms exp(S - m) / l."""
    if M is not None:
        S = S + M
    work = S.float() if S.dtype in (torch.float16, torch.bfloat16) else S
    m = torch.full(work.shape[:-1] + (1,), float("-inf"), dtype=work.dtype, device=work.device)
    l = torch.zeros_like(m)
    for start in range(0, work.shape[-1], KEY_BLOCK):
        blk = work[..., start:start + KEY_BLOCK]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        # a row whose keys so far are all -inf: shift by 0 so that -inf - (-inf) never happens
        shift = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    return (torch.exp(work - shift) / l).to(S.dtype)
'''

_ONLINE_NW = '''
def nadaraya_watson(q, K, V):
    # one pass over the keys with a running max: numerator and denominator are both rescaled
    # by exp(m_old - m_new) whenever a larger score shows up
    dtype = q.dtype
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    q, K, V = q.to(work), K.to(work), V.to(work)
    logits = K @ q / math.sqrt(q.shape[-1])
    m = logits[0]
    den = torch.ones_like(m)
    num = V[0]
    for i in range(1, K.shape[0]):
        m_new = torch.maximum(m, logits[i])
        alpha = torch.exp(m - m_new)
        p = torch.exp(logits[i] - m_new)
        den = den * alpha + p
        num = num * alpha + p * V[i]
        m = m_new
    return (num / den).to(dtype)
'''

_TILE_COMPLEXITY = '''
# Count the multiply-adds of S = QK^T tile by tile (64 x 64 tiles of scores, d_k each), at T and at 2T.
def _score_work(T, d_k=64, tile=64):
    n_tiles = -(-T // tile)
    return n_tiles * n_tiles * tile * tile * d_k

_ratio = _score_work(2048) / _score_work(1024)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
'''

_LOG_CROSS = '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    logits = scaled_scores(Q, K)
    if M is not None:
        logits = logits + M
    # log space: log A = logits - logsumexp over the keys, then one exp. The row max is taken out first:
    # on a fully blocked row every logit is about finfo.min, and finfo.min + log(T') rounds back to finfo.min
    work = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    work = work - work.amax(dim=-1, keepdim=True)
    A = torch.exp(work - torch.logsumexp(work, dim=-1, keepdim=True)).to(logits.dtype)
    return A @ V, A
'''

_LOG_NW = '''
def nadaraya_watson(q, K, V):
    # kernel weights in log space: log kappa_i - logsumexp_j log kappa_j, then the weighted sum
    log_kappa = K @ q / math.sqrt(q.shape[-1])
    w = torch.exp(log_kappa - torch.logsumexp(log_kappa, dim=0))
    return w @ V
'''

_XLOGY_ENTROPY = '''
def row_entropy_bits(A):
    # xlogy(a, a) = a log a with 0 log 0 = 0, in nats; divide by ln 2 for bits
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''

_LSE_SCALE_TRIAL = '''
# Trial in log space: for one row of 8 keys, H = logsumexp(s) - sum_i a_i s_i nats (a = softmax(s)).
torch.manual_seed(0)
_d_k = 512
_q = torch.randn(_d_k, dtype=torch.float64)
_k = torch.randn(8, _d_k, dtype=torch.float64)


def _row_entropy_bits(s):
    a = torch.softmax(s, dim=-1)
    return (torch.logsumexp(s, dim=-1) - (a * s).sum()) / math.log(2)


_h_scaled = _row_entropy_bits(_k @ _q / math.sqrt(_d_k))
_h_unscaled = _row_entropy_bits(_k @ _q)
if _h_unscaled < 0:
    ans_scale = "d"
elif abs(_h_unscaled - _h_scaled) < 1e-6:
    ans_scale = "c"
elif _h_unscaled < _h_scaled:
    ans_scale = "b"
else:
    ans_scale = "a"
'''

_CHUNK_PROJ = '''
TOKEN_BLOCK = 4


def project_qkv(X, W_Q, W_K, W_V):
    # project the tokens a block of rows at a time (the last block may be shorter)
    T = X.shape[-2]
    def project(W):
        return torch.cat([X[..., s:s + TOKEN_BLOCK, :] @ W for s in range(0, T, TOKEN_BLOCK)], dim=-2)
    return project(W_Q), project(W_K), project(W_V)
'''

_CHUNK_SCORES = '''
def scaled_scores(Q, K):
    # scores one block of queries at a time, all keys each time; the scale is applied once to each entry
    d_k = Q.shape[-1]
    K_t = K.transpose(-2, -1)
    blocks = [Q[..., s:s + 4, :] @ K_t for s in range(0, Q.shape[-2], 4)]
    return torch.cat(blocks, dim=-2) / math.sqrt(d_k)
'''

_BLOCK_SELF = '''
Q_BLOCK = 2


def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    T = X.shape[-2]
    M = causal_additive_mask(T, Q.dtype, Q.device) if causal else None
    outs, rows = [], []
    for start in range(0, T, Q_BLOCK):
        q_blk = Q[..., start:start + Q_BLOCK, :]
        M_blk = None if M is None else M[start:start + Q_BLOCK]     # the mask rows of THIS block
        A_blk = attention_weights(scaled_scores(q_blk, K), M_blk)
        rows.append(A_blk)
        outs.append(A_blk @ V)
    return torch.cat(outs, dim=-2), torch.cat(rows, dim=-2)
'''

_TWO_PASS_CROSS = '''
KV_BLOCK = 3


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M
    work = S.float() if S.dtype in (torch.float16, torch.bfloat16) else S
    # pass 1: running max and running sum over blocks of keys
    m = torch.full(work.shape[:-1] + (1,), float("-inf"), dtype=work.dtype, device=work.device)
    l = torch.zeros_like(m)
    for start in range(0, work.shape[-1], KV_BLOCK):
        blk = work[..., start:start + KV_BLOCK]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        shift = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
        m = m_new
    # pass 2: the weights from the saved statistics, then the values
    shift = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    A = (torch.exp(work - shift) / l).to(S.dtype)
    return A @ V, A
'''

_TILE_RANK = '''
# Tile by tile: S = Q K^T with the 100 keys in tiles of 8 columns. Every tile Q K_tile^T factors through the
# same d_k = 8 dimensional space as the whole of S, so the tiles share one column space: the bound stays d_k.
_T, _d_k, _tile = 100, 8, 8
max_rank_S = min(_T, _d_k)

rank_S_lesson = 2
'''

_CUMSUM_MASK = '''
def causal_additive_mask(T, dtype, device=None):
    # positions from a running count: pos = 0, 1, ..., T-1; key i is in query t's future when pos_i > pos_t
    pos = torch.ones(T, dtype=torch.long, device=device).cumsum(dim=0) - 1
    future = pos[None, :] > pos[:, None]
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
'''

_CUMSUM_PREFIX = '''
def prefix_average_matrix(T):
    keep = torch.tril(torch.ones(T, T, dtype=torch.float64))
    counts = keep.cumsum(dim=-1)[:, -1:]       # inclusive running count along the row: t visible keys
    return keep / counts
'''

_TWO_PASS_NW = '''
def nadaraya_watson(q, K, V):
    # two passes: the max score first, then the shifted kernel weights and their ratio
    logits = K @ q / math.sqrt(q.shape[-1])
    kappa = torch.exp(logits - logits.max())
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''

_CUMULATIVE_PARAMS = '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # a running total over the weight shapes (no biases)
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    total = 0
    for rows, cols in shapes:
        total += rows * cols
    return total
'''

CORRECT = {
    "online_two_pass_softmax_and_online_kernel_average": {
        WEIGHTS: _ONLINE_WEIGHTS,
        NW: _ONLINE_NW,
        COMPLEXITY: _TILE_COMPLEXITY,
    },
    "log_space_cross_attention_kernel_average_and_entropy": {
        CROSS: _LOG_CROSS,
        NW: _LOG_NW,
        ENTROPY: _XLOGY_ENTROPY,
        SCALE_ANS: _LSE_SCALE_TRIAL,
    },
    "blockwise_projections_scores_self_and_cross_attention": {
        PROJ: _CHUNK_PROJ,
        SCORES: _CHUNK_SCORES,
        SELF: _BLOCK_SELF,
        CROSS: _TWO_PASS_CROSS,
        RANK: _TILE_RANK,
    },
    "cumulative_sums_for_mask_prefix_average_and_counts": {
        MASK: _CUMSUM_MASK,
        PREFIX: _CUMSUM_PREFIX,
        NW: _TWO_PASS_NW,
        PARAMS: _CUMULATIVE_PARAMS,
    },
}


# ----------------------------------------------------------------------------------------------------------
# wrong cells: one slip each
# ----------------------------------------------------------------------------------------------------------

WRONG = {
    "q01_split_k_feature_blocks_of_three_drop_remainder_features": ({
        PROJ: '''
FEATURE_BLOCK = 3


def project_qkv(X, W_Q, W_K, W_V):
    # split-K, like a tiled GEMM: accumulate X[:, block] @ W[block, :] over blocks of d_model features
    n_blocks = X.shape[-1] // FEATURE_BLOCK
    def project(W):
        out = 0
        for b in range(n_blocks):
            cols = slice(b * FEATURE_BLOCK, (b + 1) * FEATURE_BLOCK)
            out = out + X[..., :, cols] @ W[cols, :]
        return out
    return project(W_Q), project(W_K), project(W_V)
''',
    }, {"mistake": "The projections are accumulated over blocks of 3 input features, but the number of blocks is "
                   "d_model // 3, so when d_model is not a multiple of 3 the last d_model % 3 features (and the "
                   "matching rows of W_Q, W_K, W_V) are never used: Q, K and V are wrong whenever d_model % 3 != 0 "
                   "(the lesson's d_model = 6 happens to divide).",
        "where": ["q01", "q07"]}),

    "q02_split_k_partial_scores_scaled_by_root_of_block_width": ({
        SCORES: '''
HEAD_BLOCK = 4


def scaled_scores(Q, K):
    # accumulate q.k over blocks of the head dimension, each block's partial product scaled as it is added
    d_k = Q.shape[-1]
    S = 0
    for start in range(0, d_k, HEAD_BLOCK):
        Q_blk = Q[..., start:start + HEAD_BLOCK]
        K_blk = K[..., start:start + HEAD_BLOCK]
        S = S + Q_blk @ K_blk.transpose(-2, -1) / math.sqrt(Q_blk.shape[-1])
    return S
''',
    }, {"mistake": "The scores are summed over blocks of 4 head dimensions and each block's partial product is "
                   "divided by the square root of the block's width instead of sqrt(d_k). For d_k <= 4 (one block, "
                   "as in the lesson) that is right; for a larger d_k the scores come out sqrt(d_k/4) times too "
                   "big (e.g. twice too big for d_k = 16).",
        "where": ["q02", "q07", "q13"]}),

    "q03_lse_entropy_identity_subtracted_backwards_answers_d": ({
        SCALE_ANS: '''
# Trial in log space: for one row of 8 keys, H = logsumexp(s) - sum_i a_i s_i nats (a = softmax(s)).
torch.manual_seed(0)
_d_k = 512
_q = torch.randn(_d_k, dtype=torch.float64)
_k = torch.randn(8, _d_k, dtype=torch.float64)


def _row_entropy_bits(s):
    a = torch.softmax(s, dim=-1)
    return ((a * s).sum() - torch.logsumexp(s, dim=-1)) / math.log(2)


_h_scaled = _row_entropy_bits(_k @ _q / math.sqrt(_d_k))
_h_unscaled = _row_entropy_bits(_k @ _q)
if _h_unscaled < 0:
    ans_scale = "d"
elif abs(_h_unscaled - _h_scaled) < 1e-6:
    ans_scale = "c"
elif _h_unscaled < _h_scaled:
    ans_scale = "b"
else:
    ans_scale = "a"
''',
    }, {"mistake": "The trial computes the entropy with the log-sum-exp identity H = logsumexp(s) - sum a_i s_i but "
                   "subtracts the two terms the wrong way round, so every entropy comes out negative and the "
                   "answer is \"d\" (they become negative) instead of \"b\": without the 1/sqrt(d_k) factor each "
                   "row puts nearly all its weight on one key and its entropy falls toward 0.",
        "where": ["q03"]}),

    "q04_cumsum_of_identity_taken_down_the_query_axis_blocks_the_past": ({
        MASK: '''
def causal_additive_mask(T, dtype, device=None):
    # a running sum of the identity along the keys is 1 from column t on; take away the diagonal
    # and what is left marks the keys after query t
    eye = torch.eye(T, device=device)
    future = (eye.cumsum(dim=0) - eye).bool()
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "The cumulative sum of the identity is taken down the query axis (dim=0) instead of along the "
                   "keys (dim=-1), so after removing the diagonal it marks the keys BEFORE each query: the mask "
                   "blocks the past (strictly below the diagonal) and leaves the future open, the transpose of the "
                   "causal mask.",
        "where": ["q04", "q07", "q09"]}),

    "q05_online_softmax_rescale_exponent_sign_flipped": ({
        WEIGHTS: '''
KEY_BLOCK = 4


def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    # online softmax over blocks of keys: running max m and running sum l, then exp(S - m) / l
    m = S[..., :KEY_BLOCK].amax(dim=-1, keepdim=True)
    l = torch.exp(S[..., :KEY_BLOCK] - m).sum(dim=-1, keepdim=True)
    for start in range(KEY_BLOCK, S.shape[-1], KEY_BLOCK):
        blk = S[..., start:start + KEY_BLOCK]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        l = l * torch.exp(m_new - m) + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)
        m = m_new
    return torch.exp(S - m) / l
''',
    }, {"mistake": "In the online softmax the running sum is rescaled by exp(m_new - m) instead of exp(m - m_new) "
                   "when a later block of keys raises the row maximum, so the normaliser is too large (by "
                   "exp(2(m_new - m))) and those rows sum to less than 1. Rows whose maximum is in the first 4 "
                   "keys, or with at most 4 keys, are still right.",
        "where": ["q05", "q07", "q13"]}),

    "q05_log_softmax_of_fully_blocked_row_absorbed_by_finfo_min_gives_all_ones": ({
        WEIGHTS: '''
def attention_weights(S, M=None):
    logits = S if M is None else S + M
    # log-space softmax: subtract the log of the normaliser (torch.logsumexp is already stable), then one exp
    log_A = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    return torch.exp(log_A)
''',
    }, {"mistake": "The log-normaliser logsumexp(S + M) is subtracted from S + M without first taking out the row "
                   "max. On a fully blocked row every logit is about finfo(dtype).min, and finfo.min + log(T_k) "
                   "rounds back to finfo.min, so log A is 0 everywhere and the row comes out all ones (summing to "
                   "T_k) instead of uniform 1/T_k. Rows with an open key are right.",
        "where": ["q05", "q13"]}),

    "q07_query_blocks_take_the_mask_rows_from_row_zero": ({
        SELF: '''
Q_BLOCK = 2


def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    T = X.shape[-2]
    M = causal_additive_mask(T, Q.dtype, Q.device) if causal else None
    outs, rows = [], []
    for start in range(0, T, Q_BLOCK):
        q_blk = Q[..., start:start + Q_BLOCK, :]
        n = q_blk.shape[-2]
        M_blk = None if M is None else M[:n]     # the mask rows for this block
        A_blk = attention_weights(scaled_scores(q_blk, K), M_blk)
        rows.append(A_blk)
        outs.append(A_blk @ V)
    return torch.cat(outs, dim=-2), torch.cat(rows, dim=-2)
''',
    }, {"mistake": "Attention is computed over blocks of 2 queries, but every block takes the mask's first rows "
                   "M[:n] instead of M[start:start + n], losing the block's offset: queries from position 2 on "
                   "see only keys 0 and 1 (rows 0-1 of the causal mask), so A is not the causal softmax for "
                   "T > 2. With causal=False it is right.",
        "where": ["q07", "q09"]}),

    "q08_online_numerator_not_rescaled_when_max_grows": ({
        NW: '''
def nadaraya_watson(q, K, V):
    # one pass over the keys with a running max m, like FlashAttention's inner loop
    logits = K @ q / math.sqrt(q.shape[-1])
    m = logits[0]
    den = torch.ones_like(m)
    num = V[0]
    for i in range(1, K.shape[0]):
        m_new = torch.maximum(m, logits[i])
        p = torch.exp(logits[i] - m_new)
        den = den * torch.exp(m - m_new) + p
        num = num + p * V[i]
        m = m_new
    return num / den
''',
    }, {"mistake": "In the one-pass kernel average the running denominator is rescaled by exp(m_old - m_new) when "
                   "a larger score appears, but the running numerator is not, so values seen before the maximum "
                   "keep too much weight: the result is not a weighted average unless the first key has the "
                   "largest score.",
        "where": ["q08"]}),

    "q09_running_mean_previous_row_not_rescaled": ({
        PREFIX: '''
def prefix_average_matrix(T):
    # Lesson 07's matrix as a running mean, one token at a time: row t is row t-1 with the new token's 1/t
    W = torch.zeros(T, T, dtype=torch.float64)
    row = torch.zeros(T, dtype=torch.float64)
    for t in range(1, T + 1):
        row = row.clone()
        row[t - 1] = 1.0 / t
        W[t - 1] = row
    return W
''',
    }, {"mistake": "The running mean adds the new token's 1/t but never rescales the previous row by (t-1)/t, so "
                   "row t holds 1, 1/2, ..., 1/t instead of t copies of 1/t and its sum is the harmonic number "
                   "H_t, not 1 (right only for row 1).",
        "where": ["q09"]}),

    "q10_log_weights_renormalised_over_query_axis_before_entropy": ({
        ENTROPY: '''
def row_entropy_bits(A):
    # in log space: re-normalise the log-weights first (float16 rows drift from 1), then -sum a log2 a
    log_A = torch.log2(A) - torch.log2(A.sum(dim=-2, keepdim=True))
    P = torch.exp2(log_A)
    return -torch.where(P > 0, P * log_A, torch.zeros_like(P)).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "The log-weights are re-normalised with the log of A.sum(dim=-2), the column sums over the "
                   "queries, instead of the row sums, so the entropy is taken of a column-normalised matrix: "
                   "wrong for any A with more than one row (and effective_tokens with it).",
        "where": ["q10"]}),

    "q11_rank_bound_summed_over_key_tiles": ({
        RANK: '''
# Tile by tile, as a FlashAttention kernel sees it: the 100 keys come in tiles of d_k = 8 columns,
# and each tile's block of scores Q K_tile^T has rank at most d_k.
_T, _d_k, _tile = 100, 8, 8
_n_tiles = -(-_T // _tile)                 # 13 tiles, the last one partial
max_rank_S = min(_T, _n_tiles * _d_k)      # the tiles' ranks added up, capped at T

rank_S_lesson = 2
''',
    }, {"mistake": "The rank bound is worked out per key tile and the tiles' ranks are added up (13 tiles x 8, "
                   "capped at T = 100), giving 100; but every tile factors through the same d_k-dimensional "
                   "space, so rank S <= d_k = 8.",
        "where": ["q11"]}),

    "q12_weights_counted_padded_to_16_by_16_tiles": ({
        PARAMS: '''
TILE = 16


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # count the weights as a tiled kernel holds them: every matrix padded to whole TILE x TILE tiles
    def padded(n):
        return -(-n // TILE) * TILE
    n = padded(d_model) * (2 * padded(d_k) + padded(d_v))
    if with_output:
        n += padded(d_v) * padded(d_model)
    return n
''',
    }, {"mistake": "Each dimension is rounded up to a multiple of 16 before counting, as if the weights were "
                   "stored in padded 16 x 16 tiles, so the count is too large whenever d_model, d_k or d_v is not "
                   "a multiple of 16 (for the lesson's 6, 4, 4 it gives 16 * (2*16 + 16) = 768 instead of 72); "
                   "384, 64, 64 happen to be multiples, so the exercise's two counts are right.",
        "where": ["q12"]}),

    "q13_two_pass_mask_added_in_first_pass_only": ({
        CROSS: '''
KV_BLOCK = 3


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    # pass 1: running max and running sum over blocks of keys, the mask added block by block
    m = torch.full(S.shape[:-1] + (1,), float("-inf"), dtype=S.dtype, device=S.device)
    l = torch.zeros_like(m)
    for start in range(0, S.shape[-1], KV_BLOCK):
        blk = S[..., start:start + KV_BLOCK]
        if M is not None:
            blk = blk + M[..., start:start + KV_BLOCK]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        l = l * torch.exp(m - m_new) + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)
        m = m_new
    # pass 2: the weights from the saved statistics, then the values
    A = torch.exp(S - m) / l
    return A @ V, A
''',
    }, {"mistake": "The first pass adds the mask to each block before updating the running max and sum, but the "
                   "second pass forms exp(S - m) / l from the unmasked scores, so blocked keys get weight "
                   "instead of 0 and the rows no longer sum to 1 (a fully blocked row overflows). Without a mask "
                   "it is right.",
        "where": ["q13"]}),

    "q13_normalised_after_value_product_weights_returned_unnormalised": ({
        CROSS: '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M
    m = S.amax(dim=-1, keepdim=True)
    P = torch.exp(S - m)                   # the weights, before the division by the row sum
    l = P.sum(dim=-1, keepdim=True)
    O = (P @ V) / l                        # normalise once, after the value product (FlashAttention's last step)
    return O, P
''',
    }, {"mistake": "The division by the row sum is done once on the output, after the value product, which makes "
                   "O right, but the returned A is the unnormalised exp(S - max): its rows have maximum 1 and do "
                   "not sum to 1.",
        "where": ["q13"]}),
}
