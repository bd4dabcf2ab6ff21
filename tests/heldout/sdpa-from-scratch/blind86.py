"""Eighty-sixth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind85.py (for the format), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: LOG-SPACE, ONLINE AND BLOCKWISE FORMULATIONS. Each wrong cell is written by a student who
has read about FlashAttention and log-sum-exp tricks and computes the answer another way than the plain
formula, with the one slip such a formulation invites: q1's output probed in query blocks whose outputs are
concatenated along the feature axis, and the weights' shape given as that of the per-query log-sum-exp a
FlashAttention kernel stores; q2's variance merged over per-sequence chunks (Chan's update) with each chunk's
variance put where its sum of squared deviations belongs; q3's online softmax whose old sum is rescaled by
exp(m_new - m_old) (wrong sign), whose running max is overwritten before the rescale uses it (factor 1), and a
two-pass softmax over a blocked view that drops the tail when the block size does not divide the length;
q4's causal mask from an exclusive cumsum (diagonal blocked) and from tiles that copy the diagonal tile's
triangle into the tiles below it; q5's FlashAttention loop that rescales the running sum but not the output
accumulator, that folds the scale into Q inside the key-block loop (applied once more per block), and that has
no guard for a running max of -inf (-inf - (-inf) = NaN when a query's first key block is all masked); q6's
causal weights normalised by the log-sum-exp of the unmasked scores; q7's check that takes the softmax of the
log of the zeroed weights (renormalising them) and so answers "A"; q8's score multiply-adds counted for the
two-pass kernel that computes Q K^T twice.
The correct variants use the same formulations and get them right: a log-space softmax whose log-partition is
taken after the max shift, an inclusive-cumsum causal mask, an online softmax over blocks with the -inf guard,
a FlashAttention-style SDPA over key blocks (sum and output both rescaled, normalised after the value
product), a two-pass blockwise SDPA (max pass, then sum and value pass), and the numeric answers worked out by
query blocks, merged chunks, log-space renormalisation and tiles.

Public material used (search tool):
- deepseek-ai/FlashMLA PR #177: a write-up gave the online-softmax rescale factor as exp(m_new - m_old)
  instead of exp(m_old - m_new): grounds the q3 wrong-sign variant.
- Dao-AILab/flash-attention issue #2342 (the FlashAttention-2 paper's O^(2) rescale written wrongly) and
  PaddleJitLab/CUDATutorial issue #69 (a FlashAttention v1 kernel's row_l rescale term questioned; a broken
  version seemed to "match" because fmaxf(nan, 0) hid the NaN): ground the q5 accumulator-not-rescaled and the
  q3 max-overwritten-before-use variants.
- tracel-ai/burn issue #4694 / PR #4697 and flashinfer-ai/flashinfer PR #4401 (-inf - (-inf) = NaN in an online
  softmax for fully masked rows and for an empty split-KV chunk, fixed by a guard on the max): ground the q5
  unguarded-max variant and the m_safe guard in the correct online variants.
- jax-ml/jax issue #27224 and pytorch/pytorch issue #159247 (FlashAttention / flex attention wrong when the
  sequence length is not a multiple of the block size): ground the q3 dropped-tail and q4 tile variants.
- Dao-AILab/flash-attention issue #1884 (a kernel shifting by the stored log-sum-exp instead of the max; "the
  math still works out"): grounds the log-space rewrites of the correct variants and the q1/q6 variants that
  reuse a stored log-sum-exp where it does not belong.
The rest (q2's merge, q4's exclusive scan, q5's per-block scale, q7's log round trip, q8's two-pass count) are
the kinds this round's brief names, each written in a form of its own.

How the variants were checked: a throwaway script under /tmp/w86-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with the full_marks notebook's (and F.scaled_dot_product_attention): softmax on
several shapes and dims, float64/float32/float16/bfloat16, -inf entries, a leading block of -inf, the max in
the last block, float16 logits in the thousands, gradients; causal_mask on square, wide, tall and empty
shapes; the attention on 3-D and 4-D inputs, T_q != T_k, d_v != d_k, no mask, 2-D causal, batched random,
fully masked rows, key-padding (broadcast) masks, (T_q, 1) masks, a mask hiding the first keys, large float16
scores and gradients. The correct variants were also run with their block constants set to 1, 2, 3 and 4.
Every correct variant agrees everywhere; every wrong one differs in its "where" questions and only there.

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

# The correct cells, shared text (each replaces the whole cell that defines its key).

_SOFTMAX_LOG_SHIFTED = '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, computed in log space after the max shift.

    log p = (x - max) - log(sum(exp(x - max))): the shift keeps every exponential in (0, 1], and the
    log-partition is taken of the shifted logits, so it is a small number (between 0 and log n) that even
    float16 holds precisely. exp(log p) then gives the weights; -inf logits give exp(-inf) = 0.
    """
    shifted = x - x.amax(dim=dim, keepdim=True)
    log_z = torch.log(torch.exp(shifted).sum(dim=dim, keepdim=True))
    return torch.exp(shifted - log_z)
'''

_MASK_CUMSUM = '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.

    An inclusive running count down the query axis: row i of the cumsum of ones holds i + 1, the number
    of keys query i may look at, and key j is visible when j < i + 1.
    """
    if T_k is None:
        T_k = T_q
    visible = torch.ones(T_q, T_k, dtype=torch.long).cumsum(dim=0)    # row i: i + 1 (inclusive count)
    return torch.arange(T_k).unsqueeze(0) < visible
'''

_SDPA_ONLINE = '''KEY_BLOCK = 128   # keys and values are visited in blocks of this many, as in FlashAttention


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend), FlashAttention style.

    The keys and values are read block by block; each query keeps a running max m, a running sum l of
    exp(score - m) and a running output acc. When a new block raises the max, the old l and acc are
    rescaled by exp(m_old - m_new). The output is acc / l: normalised after the value product.
    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    scale = 1.0 / math.sqrt(Q.size(-1))
    T_k = K.size(-2)
    if mask is not None:
        mask = mask.expand(*mask.shape[:-1], T_k)     # a mask broadcast along the keys, made slicable
    m = l = acc = None
    for start in range(0, T_k, KEY_BLOCK):
        stop = start + KEY_BLOCK
        s = (Q @ K[..., start:stop, :].transpose(-2, -1)) * scale
        if mask is not None:
            s = s.masked_fill(~mask[..., start:stop], float("-inf"))
        blk_max = s.amax(dim=-1, keepdim=True)
        m_new = blk_max if m is None else torch.maximum(m, blk_max)
        # a query with no visible key so far has m_new = -inf: shift by 0 there, never by -inf
        m_safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - m_safe)
        if m is None:
            l = p.sum(dim=-1, keepdim=True)
            acc = p @ V[..., start:stop, :]
        else:
            alpha = torch.exp(m - m_safe)                 # rescale what was accumulated under the old max
            l = alpha * l + p.sum(dim=-1, keepdim=True)
            acc = alpha * acc + p @ V[..., start:stop, :]
        m = m_new
    # a fully masked query has l = 0 and acc = 0: its output row is 0
    return acc / torch.where(l == 0, torch.ones_like(l), l)
'''

_SOFTMAX_ONLINE = '''SOFTMAX_BLOCK = 128   # the slice is read in blocks of this many entries


def stable_softmax(x, dim=-1):
    """Softmax of x along `dim` with an online max (the one-pass normaliser of FlashAttention).

    A running max m and a running sum s of exp(x - m) are carried block by block; when a block raises the
    max, the sum so far is rescaled by exp(m_old - m_new). The result is exp(x - m) / s.
    """
    z = x.movedim(dim, -1)
    m = torch.full_like(z[..., :1], float("-inf"))
    s = torch.zeros_like(z[..., :1])
    for start in range(0, z.shape[-1], SOFTMAX_BLOCK):
        blk = z[..., start:start + SOFTMAX_BLOCK]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        m_safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)   # only -inf so far
        s = s * torch.exp(m - m_safe) + torch.exp(blk - m_safe).sum(dim=-1, keepdim=True)
        m = m_new
    m_safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    return (torch.exp(z - m_safe) / s).movedim(-1, dim)
'''

_SDPA_TWO_PASS = '''KEY_BLOCK = 128   # keys and values are visited in blocks of this many


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend), in two passes.

    Pass 1 runs over the key blocks for each query's max score only. Pass 2 runs over them again with that
    max fixed: p = exp(score - max), l += sum(p), acc += p @ V. No rescaling is needed since the max does
    not move in pass 2. The output is acc / l, normalised after the value product.
    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    T_k = K.size(-2)
    if mask is not None:
        mask = mask.expand(*mask.shape[:-1], T_k)

    def block_scores(start):
        s = Q @ K[..., start:start + KEY_BLOCK, :].transpose(-2, -1) / math.sqrt(d_k)
        if mask is not None:
            s = s.masked_fill(~mask[..., start:start + KEY_BLOCK], float("-inf"))
        return s

    starts = range(0, T_k, KEY_BLOCK)
    row_max = None
    for start in starts:                                    # pass 1: the max of every query's scores
        blk_max = block_scores(start).amax(dim=-1, keepdim=True)
        row_max = blk_max if row_max is None else torch.maximum(row_max, blk_max)
    shift = torch.where(torch.isneginf(row_max), torch.zeros_like(row_max), row_max)   # fully masked rows
    l = acc = None
    for start in starts:                                    # pass 2: sums and value products
        p = torch.exp(block_scores(start) - shift)
        part_l, part_acc = p.sum(dim=-1, keepdim=True), p @ V[..., start:start + KEY_BLOCK, :]
        l = part_l if l is None else l + part_l
        acc = part_acc if acc is None else acc + part_acc
    return acc / torch.where(l == 0, torch.ones_like(l), l)     # no visible key: l = 0, acc = 0, output 0
'''

_Q1_CHUNKS = '''# Probed the way FlashAttention's outer loop runs: the queries in blocks of 5, each block attending to
# all keys, the blocks' outputs put back together along the query axis.
Qp, Kp, Vp = torch.randn(4, 10, 64), torch.randn(4, 10, 64), torch.randn(4, 10, 128)
w_blocks = [torch.softmax(Qp[:, i:i + 5] @ Kp.transpose(-2, -1) / 8, dim=-1) for i in range(0, 10, 5)]
o_blocks = [w @ Vp for w in w_blocks]
weights_shape = tuple(torch.cat(w_blocks, dim=-2).shape)
out_shape = tuple(torch.cat(o_blocks, dim=-2).shape)
print(weights_shape, out_shape)
'''

_Q2_MERGED = '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)


def merged_var(chunks):
    """Unbiased variance of every entry of `chunks`, merged chunk by chunk (Chan's parallel update).

    Each chunk gives its count n_b, mean and M2 (sum of squared deviations from its own mean); merging
    adds the M2s plus delta^2 * n_a * n_b / n for the gap between the two means.
    """
    n, mean, m2 = 0, 0.0, 0.0
    for c in chunks:
        c = c.reshape(-1).double()
        n_b, mean_b = c.numel(), c.mean().item()
        m2_b = ((c - mean_b) ** 2).sum().item()
        delta = mean_b - mean
        n_new = n + n_b
        m2 = m2 + m2_b + delta ** 2 * n * n_b / n_new
        mean = mean + delta * n_b / n_new
        n = n_new
    return m2 / (n - 1)


raw_score_var = merged_var(raw_scores)                      # one chunk per sequence of the batch
scaled_score_var = merged_var(raw_scores / math.sqrt(d_k))
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''

_Q6_LOG = '''scores3 = Q3 @ K3.T / math.sqrt(4)
log_w3 = scores3 - torch.logsumexp(scores3, dim=-1, keepdim=True)      # log-weights, rows over the keys
weights3 = log_w3.exp()
out3 = weights3 @ V3
# causal: -inf on the blocked log-weights, then each row renormalised in log space by its own logsumexp
causal_log_w3 = log_w3.masked_fill(~causal_mask(3), float("-inf"))
weights3_causal = (causal_log_w3 - torch.logsumexp(causal_log_w3, dim=-1, keepdim=True)).exp()
print(weights3, out3, weights3_causal, sep="\\n")
'''

_Q8_BLOCKS = '''# Counted tile by tile, as a blockwise kernel would visit them: 128 x 128 tiles of the score matrix.
T, d_head, B = 1024, 64, 128
n_tiles = (T // B) * (T // B)                  # 8 query blocks times 8 key blocks
attn_entries = n_tiles * B * B
score_madds = n_tiles * B * B * d_head         # each tile: B x B dot products of length d_head
n_tiles_2T = (2 * T // B) * (2 * T // B)
cost_ratio = (n_tiles_2T * B * B * d_head) // score_madds
print(attn_entries, score_madds, cost_ratio)
'''

CORRECT = {
    "log_space_softmax_after_the_max_shift_and_an_inclusive_cumsum_causal_mask": {
        "stable_softmax": _SOFTMAX_LOG_SHIFTED,
        "causal_mask": _MASK_CUMSUM,
    },
    "flash_style_online_softmax_over_key_blocks_with_rescaled_sum_and_output": {
        "scaled_dot_product_attention": _SDPA_ONLINE,
    },
    "online_softmax_over_blocks_and_two_pass_blockwise_attention": {
        "stable_softmax": _SOFTMAX_ONLINE,
        "scaled_dot_product_attention": _SDPA_TWO_PASS,
    },
    "answers_worked_out_in_query_blocks_merged_chunks_log_space_and_tiles": {
        "weights_shape": _Q1_CHUNKS,
        "raw_score_var": _Q2_MERGED,
        "weights3": _Q6_LOG,
        "attn_entries": _Q8_BLOCKS,
    },
}

WRONG = {
    "q1_out_probe_built_from_query_blocks_concatenated_along_the_feature_axis": ({
        "weights_shape": '''# Probed the way FlashAttention's outer loop runs: the queries in blocks of 5, each block attending to
# all keys, the blocks' outputs put back together.
Qp, Kp, Vp = torch.randn(4, 10, 64), torch.randn(4, 10, 64), torch.randn(4, 10, 128)
w_blocks = [torch.softmax(Qp[:, i:i + 5] @ Kp.transpose(-2, -1) / 8, dim=-1) for i in range(0, 10, 5)]
o_blocks = [w @ Vp for w in w_blocks]
weights_shape = tuple(torch.cat(w_blocks, dim=-2).shape)
out_shape = tuple(torch.cat(o_blocks, dim=-1).shape)
print(weights_shape, out_shape)
''',
    }, {"mistake": "the output is probed in query blocks of 5, but the blocks' outputs are concatenated along the "
                   "last (feature) axis instead of the query axis, so out_shape comes out as (4, 5, 256) instead "
                   "of (4, 10, 128); weights_shape, concatenated along the query axis, is right",
        "where": ["q1"]}),

    "q1_weights_shape_given_as_the_per_query_logsumexp_that_flash_attention_stores": ({
        "weights_shape": '''# A memory-efficient kernel never stores the weights: for each query it keeps the log-sum-exp of its
# scores and rebuilds the weights as exp(score - lse) when needed. So the weights take this much room:
Qp, Kp, Vp = torch.randn(4, 10, 64), torch.randn(4, 10, 64), torch.randn(4, 10, 128)
lse = torch.logsumexp(Qp @ Kp.transpose(-2, -1) / 8, dim=-1, keepdim=True)
weights_shape = tuple(lse.shape)
out_shape = tuple((torch.exp(Qp @ Kp.transpose(-2, -1) / 8 - lse) @ Vp).shape)
print(weights_shape, out_shape)
''',
    }, {"mistake": "weights_shape is the shape of the per-query log-sum-exp statistic that FlashAttention keeps, "
                   "(4, 10, 1), not the shape of the attention-weight matrix, (4, 10, 10): the question asks for "
                   "one weight per (query, key) pair; out_shape is right",
        "where": ["q1"]}),

    "q2_chunk_variances_merged_as_if_they_were_sums_of_squared_deviations": ({
        "raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)


def merged_var(chunks):
    """Unbiased variance of every entry of `chunks`, merged chunk by chunk (Chan's parallel update).

    Each chunk gives its count n_b, mean and M2; merging adds the M2s plus delta^2 * n_a * n_b / n for the
    gap between the two means.
    """
    n, mean, m2 = 0, 0.0, 0.0
    for c in chunks:
        c = c.reshape(-1).double()
        n_b, mean_b = c.numel(), c.mean().item()
        m2_b = c.var().item()
        delta = mean_b - mean
        n_new = n + n_b
        m2 = m2 + m2_b + delta ** 2 * n * n_b / n_new
        mean = mean + delta * n_b / n_new
        n = n_new
    return m2 / (n - 1)


raw_score_var = merged_var(raw_scores)                      # one chunk per sequence of the batch
scaled_score_var = merged_var(raw_scores / math.sqrt(d_k))
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
''',
    }, {"mistake": "each chunk's M2 in the merge must be its sum of squared deviations, but it is filled with the "
                   "chunk's variance (that sum divided by 24), so the merged variances come out far too small "
                   "(about 0.35 instead of 6.6 for the raw scores); scale_divisor is right",
        "where": ["q2"]}),

    "q3_online_sum_rescaled_by_exp_of_new_max_minus_old_max_the_wrong_sign": ({
        "stable_softmax": '''SOFTMAX_BLOCK = 4   # small blocks, so that the notebook's 5-key rows already take two of them


def stable_softmax(x, dim=-1):
    """Softmax of x along `dim` with an online max (the one-pass normaliser of FlashAttention).

    The first block sets the max m and the sum s of exp(x - m); every later block can raise the max, and
    the sum so far is then rescaled to the new max. The result is exp(x - m) / s.
    """
    z = x.movedim(dim, -1)
    first = z[..., :SOFTMAX_BLOCK]
    m = first.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)      # a first block of only -inf
    s = torch.exp(first - m).sum(dim=-1, keepdim=True)
    for start in range(SOFTMAX_BLOCK, z.shape[-1], SOFTMAX_BLOCK):
        blk = z[..., start:start + SOFTMAX_BLOCK]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        s = s * torch.exp(m_new - m) + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)
        m = m_new
    return (torch.exp(z - m) / s).movedim(-1, dim)
''',
    }, {"mistake": "when a later block raises the running max, the sum accumulated so far is multiplied by "
                   "exp(m_new - m_old) instead of exp(m_old - m_new): the rescale has the wrong sign, so the "
                   "denominator is too large and the slices sum to less than 1 (or overflow) whenever the max "
                   "is not in the first block of 4; slices of at most 4 entries are right",
        "where": ["q3", "q5"]}),

    "q3_running_max_overwritten_before_the_old_sum_is_rescaled": ({
        "stable_softmax": '''SOFTMAX_BLOCK = 4   # small blocks, so that the notebook's 5-key rows already take two of them


def stable_softmax(x, dim=-1):
    """Softmax of x along `dim` with an online max (the one-pass normaliser of FlashAttention).

    A running max m and a running sum s of exp(x - m) are carried block by block; when a block raises the
    max, the sum so far is rescaled by exp(m_old - m_new). The result is exp(x - m) / s.
    """
    z = x.movedim(dim, -1)
    m = torch.full_like(z[..., :1], float("-inf"))
    s = torch.zeros_like(z[..., :1])
    for start in range(0, z.shape[-1], SOFTMAX_BLOCK):
        blk = z[..., start:start + SOFTMAX_BLOCK]
        m = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        m_safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)   # only -inf so far
        s = s * torch.exp(m - m_safe) + torch.exp(blk - m_safe).sum(dim=-1, keepdim=True)
    m_safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    return (torch.exp(z - m_safe) / s).movedim(-1, dim)
''',
    }, {"mistake": "the running max is updated before it is used in the rescale factor, so exp(m_old - m_new) "
                   "is computed as exp(m_new - m_new) = 1 and the old sum is never rescaled when a later block "
                   "raises the max: the denominator is too large and the slices sum to less than 1 whenever "
                   "the max is not in the first block of 4; slices of at most 4 entries are right",
        "where": ["q3", "q5"]}),

    "q3_blocked_view_of_the_slice_drops_the_tail_when_the_block_size_does_not_divide_its_length": ({
        "stable_softmax": '''SOFTMAX_BLOCK = 4   # the slice is reduced in blocks of this many entries, as a blockwise kernel does


def stable_softmax(x, dim=-1):
    """Two-pass softmax of x along `dim` over a blocked view of the slice.

    Pass 1 takes the max of the block maxima, pass 2 the sum of exp(x - max) block by block; then
    exp(x - max) / sum. The shift keeps every exponential in (0, 1].
    """
    z = x.movedim(dim, -1)
    n = z.shape[-1]
    B = min(SOFTMAX_BLOCK, n)                                              # short slices: one block
    blocks = z[..., : (n // B) * B].reshape(*z.shape[:-1], n // B, B)      # (..., n_blocks, B)
    m = blocks.amax(dim=-1).amax(dim=-1, keepdim=True)                     # pass 1: max of block maxima
    s = torch.exp(blocks - m.unsqueeze(-1)).sum(dim=-1).sum(dim=-1, keepdim=True)   # pass 2: the sum
    return (torch.exp(z - m) / s).movedim(-1, dim)
''',
    }, {"mistake": "the blocked view keeps only n // 4 whole blocks, so when the block size 4 does not divide the "
                   "slice's length the last n % 4 entries are left out of both the max and the sum: the slice "
                   "then sums to more than 1 (and can overflow when the max is in the tail); slices whose length "
                   "is at most 4 or a multiple of 4 are right",
        "where": ["q3", "q5"]}),

    "q4_exclusive_cumsum_counts_only_the_keys_before_each_query": ({
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j.

    A running count down the query axis, as a prefix scan: row i of the exclusive cumsum of ones holds i,
    the number of positions before query i, and key j is visible when j < that count.
    """
    if T_k is None:
        T_k = T_q
    visible = torch.ones(T_q, T_k, dtype=torch.long).cumsum(dim=0) - 1   # exclusive scan: row i holds i
    return torch.arange(T_k).unsqueeze(0) < visible
''',
    }, {"mistake": "the running count is exclusive (row i holds i) where it must be inclusive (i + 1), so key j "
                   "is kept only when j < i: the diagonal is blocked, query 0 sees no key at all, and in q6 its "
                   "causal weights are NaN",
        "where": ["q4", "q6"]}),

    "q4_diagonal_tiles_triangle_copied_into_the_tiles_below_the_diagonal_too": ({
        "causal_mask": '''MASK_TILE = 4   # the mask is laid out in 4 x 4 tiles, as a blockwise causal kernel visits it


def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i, built tile by tile.

    Tiles to the right of the diagonal stay False (a causal kernel skips them); the others get the
    lower triangle of a tile.
    """
    if T_k is None:
        T_k = T_q
    tri = torch.ones(MASK_TILE, MASK_TILE, dtype=torch.bool).tril()
    mask = torch.zeros(T_q, T_k, dtype=torch.bool)
    for r0 in range(0, T_q, MASK_TILE):
        for c0 in range(0, min(r0 + MASK_TILE, T_k), MASK_TILE):
            h, w = min(MASK_TILE, T_q - r0), min(MASK_TILE, T_k - c0)
            mask[r0:r0 + h, c0:c0 + w] = tri[:h, :w]
    return mask
''',
    }, {"mistake": "every tile at or left of the diagonal gets the tile's lower triangle, but only the tiles ON "
                   "the diagonal need it: tiles wholly below the diagonal must be all True. With 4 x 4 tiles, "
                   "query 4 cannot see keys 1-3, query 5 cannot see keys 2-3, and so on; masks of at most 4 "
                   "rows and columns are right",
        "where": ["q4"]}),

    "q5_online_softmax_rescales_the_running_sum_but_not_the_output_accumulator": ({
        "scaled_dot_product_attention": '''KEY_BLOCK = 4   # small blocks, so that the notebook's 5- and 9-key examples go through the loop


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend), FlashAttention style.

    The keys and values are read block by block; each query keeps a running max m, a running sum l of
    exp(score - m) and a running output acc. The output is acc / l: normalised after the value product.
    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    scale = 1.0 / math.sqrt(Q.size(-1))
    T_k = K.size(-2)
    if mask is not None:
        mask = mask.expand(*mask.shape[:-1], T_k)
    m = l = acc = None
    for start in range(0, T_k, KEY_BLOCK):
        stop = start + KEY_BLOCK
        s = (Q @ K[..., start:stop, :].transpose(-2, -1)) * scale
        if mask is not None:
            s = s.masked_fill(~mask[..., start:stop], float("-inf"))
        blk_max = s.amax(dim=-1, keepdim=True)
        m_new = blk_max if m is None else torch.maximum(m, blk_max)
        m_safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - m_safe)
        if m is None:
            l = p.sum(dim=-1, keepdim=True)
            acc = p @ V[..., start:stop, :]
        else:
            alpha = torch.exp(m - m_safe)
            l = alpha * l + p.sum(dim=-1, keepdim=True)
            acc = acc + p @ V[..., start:stop, :]
        m = m_new
    return acc / torch.where(l == 0, torch.ones_like(l), l)
''',
    }, {"mistake": "when a later key block raises a query's running max, the running sum l is rescaled by "
                   "exp(m_old - m_new) but the running output acc is not, so the earlier blocks' values keep "
                   "too much weight and the output is wrong for every query whose max is not in its first "
                   "visible block of 4 keys (T_k <= 4 is right)",
        "where": ["q5"]}),

    "q5_scale_folded_into_the_queries_inside_the_key_block_loop_compounds_per_block": ({
        "scaled_dot_product_attention": '''KEY_BLOCK = 4   # small blocks, so that the notebook's 5- and 9-key examples go through the loop


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend), FlashAttention style.

    The scale is folded into Q (one multiply of T_q x d_k numbers instead of T_q x T_k). The keys and
    values are read block by block with a running max m, sum l and output acc, rescaled when m grows.
    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    scale = 1.0 / math.sqrt(Q.size(-1))
    T_k = K.size(-2)
    if mask is not None:
        mask = mask.expand(*mask.shape[:-1], T_k)
    m = l = acc = None
    for start in range(0, T_k, KEY_BLOCK):
        stop = start + KEY_BLOCK
        Q = Q * scale
        s = Q @ K[..., start:stop, :].transpose(-2, -1)
        if mask is not None:
            s = s.masked_fill(~mask[..., start:stop], float("-inf"))
        blk_max = s.amax(dim=-1, keepdim=True)
        m_new = blk_max if m is None else torch.maximum(m, blk_max)
        m_safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - m_safe)
        if m is None:
            l = p.sum(dim=-1, keepdim=True)
            acc = p @ V[..., start:stop, :]
        else:
            alpha = torch.exp(m - m_safe)
            l = alpha * l + p.sum(dim=-1, keepdim=True)
            acc = alpha * acc + p @ V[..., start:stop, :]
        m = m_new
    return acc / torch.where(l == 0, torch.ones_like(l), l)
''',
    }, {"mistake": "the 1/sqrt(d_k) scale is folded into Q inside the loop over key blocks, so it is applied "
                   "again for every block: keys 0-3 are scored with 1/sqrt(d_k), keys 4-7 with 1/d_k, keys 8-11 "
                   "with 1/d_k^1.5 and so on, and the later keys' weights are wrong (T_k <= 4 is right)",
        "where": ["q5"]}),

    "q5_online_max_without_a_guard_for_rows_whose_first_key_block_is_all_masked": ({
        "scaled_dot_product_attention": '''KEY_BLOCK = 4   # small blocks, so that the notebook's 5- and 9-key examples go through the loop


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend), FlashAttention style.

    The keys and values are read block by block; each query keeps a running max m, a running sum l of
    exp(score - m) and a running output acc, both rescaled by exp(m_old - m_new) when the max grows.
    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    scale = 1.0 / math.sqrt(Q.size(-1))
    T_k = K.size(-2)
    if mask is not None:
        mask = mask.expand(*mask.shape[:-1], T_k)
    m = l = acc = None
    for start in range(0, T_k, KEY_BLOCK):
        stop = start + KEY_BLOCK
        s = (Q @ K[..., start:stop, :].transpose(-2, -1)) * scale
        if mask is not None:
            s = s.masked_fill(~mask[..., start:stop], float("-inf"))
        blk_max = s.amax(dim=-1, keepdim=True)
        m_new = blk_max if m is None else torch.maximum(m, blk_max)
        p = torch.exp(s - m_new)
        if m is None:
            l = p.sum(dim=-1, keepdim=True)
            acc = p @ V[..., start:stop, :]
        else:
            alpha = torch.exp(m - m_new)
            l = alpha * l + p.sum(dim=-1, keepdim=True)
            acc = alpha * acc + p @ V[..., start:stop, :]
        m = m_new
    out = acc / l
    if mask is not None:                      # a query with no visible key at all: output row of zeros
        has_key = mask.any(dim=-1, keepdim=True)
        out = torch.where(has_key, out, torch.zeros_like(out))
    return out
''',
    }, {"mistake": "a query whose keys in the first block are all masked has running max -inf, and exp(s - m) "
                   "then computes -inf - (-inf) = NaN; the NaN stays in l and acc through the later rescales, so "
                   "that query's output is NaN even when later keys are visible (for example a padding or "
                   "random mask that hides keys 0-3). Only fully masked rows are patched at the end",
        "where": ["q5"]}),

    "q6_causal_weights_normalised_by_the_logsumexp_of_the_unmasked_scores": ({
        "weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
log_z3 = torch.logsumexp(scores3, dim=-1, keepdim=True)       # each query's log-partition, computed once
weights3 = torch.exp(scores3 - log_z3)
out3 = weights3 @ V3
weights3_causal = torch.exp((scores3 - log_z3).masked_fill(~causal_mask(3), float("-inf")))
print(weights3, out3, weights3_causal, sep="\\n")
''',
    }, {"mistake": "the causal weights reuse the log-partition of the unmasked scores, so the blocked keys are "
                   "still counted in each row's denominator: rows 0 and 1 of weights3_causal sum to less than 1 "
                   "(row 0 is about 0.27 instead of 1); only row 2, which sees every key, is right. weights3 "
                   "and out3 are right",
        "where": ["q6"]}),

    "q7_answer_a_from_a_check_that_takes_the_softmax_of_the_log_of_the_zeroed_weights": ({
        "q_trap_answer": '''# Tried it: zero the blocked weights after the softmax, then compare in log space, where a weight of 0
# is a log-weight of -inf, with the weights of the -inf scores.
T = 5
scores_t = torch.randn(T, T, dtype=torch.float64)
blocked = ~causal_mask(T)
weights_t = stable_softmax(scores_t, dim=-1)
weights_t[blocked] = 0.0
shortcut = stable_softmax(torch.log(weights_t), dim=-1)
proper = stable_softmax(scores_t.masked_fill(blocked, float("-inf")), dim=-1)
q_trap_answer = "A" if torch.allclose(shortcut, proper) else "C"
''',
    }, {"mistake": "the check passes the zeroed weights through log and a second softmax before comparing, and "
                   "that softmax renormalises each row, which is exactly what the shortcut leaves out; so the "
                   "two agree and the answer comes out \"A\" instead of \"C\" (the zeroed rows sum to less than 1 "
                   "and shrink the output)",
        "where": ["q7"]}),

    "q8_score_madds_counted_for_the_two_pass_softmax_that_computes_q_k_twice": ({
        "attn_entries": '''# Counted for the memory-efficient two-pass version: pass 1 computes the scores for each query's
# log-sum-exp, pass 2 recomputes them to form exp(score - lse) and multiply by V.
T, d_head = 1024, 64
attn_entries = T * T
score_madds = 2 * T * T * d_head               # Q @ K.T done once per pass
cost_ratio = (2 * (2 * T) * (2 * T) * d_head) // score_madds
print(attn_entries, score_madds, cost_ratio)
''',
    }, {"mistake": "score_madds counts Q @ K.T twice, as the two-pass (recomputing) kernel does, giving "
                   "134217728 instead of the 1024 * 1024 * 64 = 67108864 multiply-adds of computing it once, "
                   "as asked; attn_entries and cost_ratio are right",
        "where": ["q8"]}),
}
