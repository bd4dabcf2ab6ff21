"""Eighty-sixth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention(Q, K, V, d_k)` returning
`(output, weights)`; q2 `dot_product_variance`; q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one
letter each; q8 a loop over heads calling the 2-D `attention`; the lesson-trace cell defines the globals
`d_k = 4`, `Q`, `K`, `V`, `out`, `W`; the notebook has no masks and no batch axis), the student-facing question
text, `tests/heldout/harness.py`, blind85.py for the format, and only the variant NAMES of the earlier blind*.py
sets. The grader was not run on this set.

Focus of the round: LOG-SPACE, ONLINE AND BLOCKWISE FORMULATIONS. Every wrong cell is written by a student who
has read about FlashAttention or log-sum-exp tricks and computes the answer another way than the plain formula,
and slips where that formulation invites it. q1: an online softmax over key blocks whose block exponentials are
taken against the running max BEFORE it is updated (the max is updated after it was used, so a block that
raises the max is weighted against the stale one); the 1/sqrt(d_k) folded into the queries inside the key-block
loop, so it is applied once per block and compounds (block b gets d_k^-(b+1)/2); a "running max" shift taken
from `torch.cummax` per key instead of the row's final max, with no rescale of the earlier keys' exponentials.
q2: variance from running sums over sample chunks, with the scale applied to the accumulated sums after EVERY
chunk (as an online algorithm rescales what it has accumulated), so early chunks are shrunk again and again.
q4: an online entropy over chunks of the last dimension (running max m, running sum l, running sum t of s*e^(s-m))
that rescales l but not t when the max moves; a chunked logsumexp built with `Tensor.unfold`, which silently drops
the trailing logits when the chunk size does not divide the row length; entropy_table's scaled entropy from
the raw log-probabilities divided by sqrt(d) (the scale moved past the log_softmax, an invalid algebraic
rewrite, so the "probabilities" no longer sum to 1). q5: "D" from a probe that sums the variances of every running
prefix of the dot product (cumsum over coordinates) instead of taking the last one. q6: "C" from reading
logsumexp as a hard max; "B" from taking the max-shifted self score (0) for the log-weight. q7: "B" from believing
the online softmax's running max needs the keys visited in sorted order. q8: queries tiled in blocks of four rows,
each tile attending only to its own tile of keys and values (the tile offset is used for K and V too: block-
diagonal attention); head column offsets from an inclusive cumsum of the head widths (wrapped with `% d_model`),
so every head reads the next head's columns; the projections accumulated over inner tiles of four columns
counted with floor division, dropping the last d_model % 4 inner columns. Spread: q1 x3, q2 x1, q4 x3, q5 x1,
q6 x2, q7 x1, q8 x3 (q3 is a hand-graded markdown answer). The correct variants use the same formulations and
get them right: an online softmax over key blocks with the rescale and a second pass for the weights; log-space
weights `s - logsumexp(s, -1, keepdim=True)`; the scale folded into Q once with normalisation after the value
product; the cummax's last column as the row max; chunked running sums for q2 rescaled once at the end; a
chunked online entropy that rescales both accumulators (in float64, cast back); query tiles that attend to all
keys; exclusive-cumsum head offsets; the output projection accumulated per head block.

Public material used (nothing copied verbatim): Dao-AILab/flash-attention issue #2082 and PR #2174 ("update
row_max before safe overwrite for online_softmax": a row max that is wrong for one block zeroes whole heads, the
order of the max update matters); flashinfer-ai/flashinfer issue #4267 (the online-softmax running max starts
from a finite sentinel, every exp underflows, a silent zero output: the running max used before it is right);
FluxML/NNkernels.jl PR #16 (a missing bounds check at a block boundary of the online softmax gives NaNs only for
some lengths: a block that does not divide the length); PaddleJitLab/CUDATutorial issue #69 (a reader of a
FlashAttention-v1 kernel finds the running-sum update formula confusing and a wrong rewrite "matches" because a
NaN compared with fmaxf returned 0: online rescaling is easy to get subtly wrong and checks can hide it);
the guided-diffusion style QKVAttention code found by code search (`scale = 1 / math.sqrt(math.sqrt(ch))` applied
to both q and k, "more stable with f16 than dividing afterwards": folding the scale into the operands is a real
idiom, here grounding the scale-folded-into-Q variants, right and wrong).

How the variants were checked: /tmp/w86-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared with the full_marks notebook's functions: `attention` on float64, float32 and
float16, T_q != T_k, d_v != d_k, T_q == 1, T_k == 1, T_k not a multiple of the block sizes, d_k not a square,
large logits, and gradients (float64); `dot_product_variance` against d_k and 1 (scaled) for several d_k and
for reproducibility; `softmax_entropy` on 1-D, 2-D and 3-D inputs, many row lengths, wide logits and saturated
rows (float32 and float64, dtype kept); `entropy_table` on default and other dims and seeds; the letters
against C / A / D; `multi_head_attention` against the full_marks cell on T from 1 to 9, d_model 2 to 12, heads
1 to 5 (float32 and float64). The notebook has no masks and no batch axis, so those were not varied. The
correct variants agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    'q1_online_softmax_key_blocks_two_pass_weights_q8_query_tiles_all_keys': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    block = 2                                   # keys per block, as in FlashAttention's inner loop
    scale = 1.0 / math.sqrt(d_k)
    T_q = Q.shape[0]
    m = torch.full((T_q, 1), float("-inf"), dtype=Q.dtype)   # running row max
    l = torch.zeros((T_q, 1), dtype=Q.dtype)                 # running sum of exp(s - m)
    acc = torch.zeros((T_q, V.shape[1]), dtype=Q.dtype)      # running sum of exp(s - m) @ V
    for j in range(0, K.shape[0], block):
        s = Q @ K[j:j + block].T * scale
        m_new = torch.maximum(m, s.max(dim=-1, keepdim=True).values)
        alpha = torch.exp(m - m_new)            # rescale what was accumulated against the old max
        p = torch.exp(s - m_new)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ V[j:j + block]
        m = m_new
    out = acc / l
    # second pass for the weights, from the final statistics
    weights = torch.exp(Q @ K.T * scale - m) / l
    return out, weights
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    tile = 4                                    # query rows per tile; every tile sees ALL keys and values
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        rows_out = [attention(Q[i:i + tile, cols], K[:, cols], V[:, cols], d_k)[0] for i in range(0, T, tile)]
        heads.append(torch.cat(rows_out, dim=0))
    return torch.cat(heads, dim=1) @ W_O
''',
    },
    'q1_log_space_weights_q2_log_space_rescale_q4_log_softmax_entropy': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    log_weights = scores - torch.logsumexp(scores, dim=-1, keepdim=True)   # log-softmax over the keys
    weights = log_weights.exp()
    out = weights @ V
    return out, weights
''',
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    var = (q * k).sum(dim=1).var().item()
    if scaled:
        # Var(x / c) = Var(x) / c^2: in log space, log Var - 2 log sqrt(d_k) = log Var - log d_k
        var = math.exp(math.log(var) - math.log(d_k))
    return var
''',
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)       # finite even where p underflows to 0
    p = log_p.exp()
    terms = torch.where(p > 0, p * log_p, torch.zeros_like(p))   # 0 log 0 = 0, also for a -inf logit
    return -terms.sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw * math.exp(-0.5 * math.log(d))     # 1/sqrt(d), written in log space
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    },
    'q1_scale_folded_into_queries_normalised_after_value_product_q2_running_sums': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    Qs = Q * (1.0 / math.sqrt(d_k))             # scale folded into the queries, once
    scores = Qs @ K.T
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    l = e.sum(dim=-1, keepdim=True)
    out = (e @ V) / l                           # normalise after the value product (one division per row)
    weights = e / l
    return out, weights
''',
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    chunk = 2048                                # stream the pairs: running sums, one pass
    s1 = s2 = 0.0
    n = 0
    for start in range(0, n_samples, chunk):
        b = min(chunk, n_samples - start)
        q = torch.randn(b, d_k, generator=generator)
        k = torch.randn(b, d_k, generator=generator)
        dots = (q * k).sum(dim=1).double()
        s1 += dots.sum().item()
        s2 += (dots * dots).sum().item()
        n += b
    var = (s2 - s1 * s1 / n) / (n - 1)
    if scaled:
        var = var / d_k                         # rescale once, at the end
    return var
''',
    },
    'q1_cummax_last_column_as_row_max_q4_online_entropy_q8_blockwise_output_projection': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    running_max = torch.cummax(scores, dim=-1).values    # max over keys 0..j, as an online pass sees it
    row_max = running_max[:, -1:]                        # after the last key: the row max, kept 2-D
    e = torch.exp(scores - row_max)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = weights @ V
    return out, weights
''',
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # online over chunks of the last dim: H = m + log l - t / l with l = sum e^(s-m), t = sum s e^(s-m)
    x = torch.nan_to_num(logits.double(), neginf=-1e30)   # a -inf logit: finite, far below the rest, weight 0
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    l = torch.zeros(x.shape[:-1], dtype=x.dtype)
    t = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for blk in x.split(2, dim=-1):
        m_new = torch.maximum(m, blk.max(dim=-1).values)
        alpha = torch.exp(m - m_new)
        e = torch.exp(blk - m_new.unsqueeze(-1))
        l = l * alpha + e.sum(dim=-1)
        t = t * alpha + (e * blk).sum(dim=-1)
        m = m_new
    H = m + torch.log(l) - t / l                # float64: the m - t / l cancellation is harmless
    return H.to(logits.dtype)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    widths = torch.full((n_heads,), d_k)
    starts = torch.cumsum(widths, dim=0) - widths        # exclusive cumsum: 0, d_k, 2 d_k, ...
    out = X.new_zeros(X.shape[0], W_O.shape[1])
    for h in range(n_heads):
        cols = slice(int(starts[h]), int(starts[h]) + d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        out = out + out_h @ W_O[cols, :]                 # concat @ W_O, one row block of W_O per head
    return out
''',
    },
}

WRONG = {
    'q1_online_softmax_block_exponentials_taken_against_stale_running_max': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    block = 2                                   # keys per block, as in FlashAttention's inner loop
    scale = 1.0 / math.sqrt(d_k)
    scores_all = Q @ K.T * scale
    m = scores_all[:, :block].max(dim=-1, keepdim=True).values   # start the running max from block 0
    l = torch.zeros_like(m)
    acc = torch.zeros((Q.shape[0], V.shape[1]), dtype=Q.dtype)
    for j in range(0, K.shape[0], block):
        s = scores_all[:, j:j + block]
        p = torch.exp(s - m)                    # exponentials against the running max
        m_new = torch.maximum(m, s.max(dim=-1, keepdim=True).values)
        alpha = torch.exp(m - m_new)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ V[j:j + block]
        m = m_new
    out = acc / l
    weights = torch.exp(scores_all - m) / l
    return out, weights
''',
    }, {
        "mistake": "Online softmax over key blocks of 2 in which each block's exponentials exp(s - m) are taken "
                   "with the running max BEFORE it is updated with that block's max (the max is updated after "
                   "it was used). When a later block holds a larger score, its terms are too large by "
                   "exp(m_new - m_old) while the accumulators are rescaled to m_new: output and normaliser are "
                   "wrong and the weights no longer sum to 1 (the trace's first row, whose largest score is key "
                   "2, already differs); with very wide scores the stale exponentials overflow to inf/NaN. Right "
                   "only when T_k <= 2 or no later block raises the max. The q8 heads inherit it.",
        "where": ['q1', 'q8']}),

    'q1_scale_folded_into_queries_inside_key_block_loop_compounds': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    block = 2
    q = Q
    score_blocks = []
    for K_blk in K.split(block, dim=0):
        q = q / math.sqrt(d_k)                  # fold the scale into the queries (cheaper than the scores)
        score_blocks.append(q @ K_blk.T)
    scores = torch.cat(score_blocks, dim=-1)
    weights = torch.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The 1/sqrt(d_k) is folded into the queries INSIDE the loop over key blocks, rebinding q each "
                   "time, so it is applied once per block and compounds: keys 0-1 are scaled by d_k^-1/2, keys "
                   "2-3 by d_k^-1, keys 4-5 by d_k^-3/2, and so on. Later keys' scores shrink towards 0, so the "
                   "weights and output are wrong whenever T_k > 2 (d_k = 1 hides it). The q8 heads inherit it.",
        "where": ['q1', 'q8']}),

    'q1_cummax_running_max_subtracted_per_key_without_rescale': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    # shift by the running max, as the online softmax does: every exponent stays <= 0
    running_max = torch.cummax(scores, dim=-1).values
    e = torch.exp(scores - running_max)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "Each score is shifted by the running max of the keys up to it (torch.cummax along the keys) "
                   "instead of by one value per row; the online softmax later rescales the earlier terms to the "
                   "final max, this code never does. The shift differs between keys of a row, so the softmax is "
                   "distorted: every key after a new maximum is boosted relative to the earlier ones. The rows "
                   "still sum to 1 but the weights and output are wrong unless each row's maximum is at key 0. "
                   "The q8 heads inherit it.",
        "where": ['q1', 'q8']}),

    'q2_running_sums_rescaled_by_the_scale_after_every_chunk': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    chunk = 2048                                # stream the pairs: running sums, one pass
    inv = 1.0 / math.sqrt(d_k)
    s1 = s2 = 0.0
    n = 0
    for start in range(0, n_samples, chunk):
        b = min(chunk, n_samples - start)
        q = torch.randn(b, d_k, generator=generator)
        k = torch.randn(b, d_k, generator=generator)
        dots = (q * k).sum(dim=1).double()
        s1 += dots.sum().item()
        s2 += (dots * dots).sum().item()
        n += b
        if scaled:                              # rescale what was accumulated, as an online pass does
            s1 *= inv
            s2 *= inv * inv
    return (s2 - s1 * s1 / n) / (n - 1)
''',
    }, {
        "mistake": "With scaled=True the running sums are multiplied by 1/sqrt(d_k) (and 1/d_k) after EVERY chunk "
                   "of 2048 samples, not once: earlier chunks are shrunk again at each later chunk, so the sums "
                   "are dominated by the last chunk and the scaled variance comes out far below 1 (about 0.37 at "
                   "d_k = 2, 0.25 at 4, 0.2 at 16, 0.18 at 256, for n_samples = 10000). Right with scaled=False, for n_samples <= 2048, or d_k = 1.",
        "where": ['q2']}),

    'q4_online_entropy_second_accumulator_not_rescaled': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # online over chunks of the last dim: H = m + log l - t / l with l = sum e^(s-m), t = sum s e^(s-m)
    x = torch.nan_to_num(logits.double(), neginf=-1e30)   # a -inf logit: finite, far below the rest, weight 0
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    l = torch.zeros(x.shape[:-1], dtype=x.dtype)
    t = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for blk in x.split(2, dim=-1):
        m_new = torch.maximum(m, blk.max(dim=-1).values)
        alpha = torch.exp(m - m_new)
        e = torch.exp(blk - m_new.unsqueeze(-1))
        l = l * alpha + e.sum(dim=-1)
        t = t + (e * blk).sum(dim=-1)
        m = m_new
    H = m + torch.log(l) - t / l                # float64: the m - t / l cancellation is harmless
    return H.to(logits.dtype)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "Online entropy over chunks of 2 logits (H = m + log l - t / l): the running sum l is rescaled "
                   "by exp(m_old - m_new) when a later chunk raises the running max m, but the second "
                   "accumulator t (the sum of score times exp(score - m)) is not, so its earlier terms stay "
                   "against the old max and are too large. The entropy is wrong for every row of more than 2 logits whose maximum is not in the first "
                   "chunk (the table's rows of 5 scores included); rows of 1 or 2 logits are right.",
        "where": ['q4']}),

    'q4_chunked_logsumexp_by_unfold_drops_the_tail_logits': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # two passes: a chunked logsumexp (chunk by chunk, then over the chunks), then H = lse - sum p s
    chunk = min(4, logits.shape[-1])
    chunks = logits.unfold(-1, chunk, chunk)                   # (..., n_chunks, chunk)
    lse = torch.logsumexp(torch.logsumexp(chunks, dim=-1), dim=-1, keepdim=True)
    p = torch.exp(logits - lse)
    return (lse - (p * logits).sum(dim=-1, keepdim=True)).squeeze(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The logsumexp is computed over chunks of 4 logits made with Tensor.unfold(-1, 4, 4), which "
                   "silently drops the trailing logits when 4 does not divide the row length: the normaliser "
                   "misses them, the 'probabilities' sum to more than 1 and the entropy is wrong (the table's "
                   "rows of 5 scores lose their last one). Right for rows of at most 4 logits or a multiple of 4.",
        "where": ['q4']}),

    'q4_table_scaled_log_probs_from_raw_log_softmax_divided_by_root_d': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        log_p_raw = F.log_softmax(raw, dim=-1)
        log_p_scaled = log_p_raw / d ** 0.5            # reuse the raw log-probs: the scale is linear
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": -(log_p_raw.exp() * log_p_raw).sum().item(),
                        "H_scaled": -(log_p_scaled.exp() * log_p_scaled).sum().item()})
    return results
''',
    }, {
        "mistake": "entropy_table's scaled entropy reuses the raw log-probabilities divided by sqrt(d), as if "
                   "scaling the logits scaled the log-softmax; the log_softmax is not linear (its logsumexp term "
                   "does not scale), so exp of these 'log-probabilities' does not sum to 1 and H_scaled is wrong "
                   "for every d (1.593, 1.316, 1.137, 0.924 at the default dims instead of 1.491, 1.439, 1.367, "
                   "1.065). softmax_entropy and the other columns are right.",
        "where": ['q4']}),

    'q5_answer_d_probe_sums_variances_of_every_running_prefix': ({
        'q5_answer': '''
def _q5_probe():
    # the dot product is a running sum over the coordinates (like an online accumulator), so its spread is
    # built up step by step: add the variance of every partial sum along the way, then read the growth rate
    g = torch.Generator().manual_seed(0)
    logs = []
    for d in (4, 16, 64):
        q = torch.randn(20000, d, generator=g)
        k = torch.randn(20000, d, generator=g)
        running = torch.cumsum(q * k, dim=1)          # partial dot products after 1, 2, ..., d coordinates
        logs.append(math.log(running.var(dim=0).sum().item()))
    return (logs[-1] - logs[0]) / (math.log(64) - math.log(4))   # slope of log Var against log d_k


_slope = _q5_probe()
q5_answer = "A" if _slope < 0.25 else "B" if _slope < 0.75 else "C" if _slope < 1.5 else "D"
''',
    }, {
        "mistake": "The probe sums the variances of every running prefix of the dot product (the cumsum over "
                   "coordinates), not the variance of the last one, the full dot product: that sum is "
                   "1 + 2 + ... + d_k = d_k(d_k + 1)/2, whose log-log slope is about 2, so it answers \"D\" "
                   "(d_k^2) instead of \"C\" (d_k).",
        "where": ['q5']}),

    'q6_answer_c_logsumexp_read_as_a_hard_max': ({
        'q6_answer': '''
# log-space view: log of the softmax normaliser is logsumexp_j(X_i . X_j / sqrt(d_k)), and logsumexp is a
# smooth max, logsumexp ~ max_j; so the normalised weight exp(s_ij - logsumexp) is ~1 for the best-scoring
# row and ~0 for the others, and the output row is that single best row.
q6_answer = "C"
''',
    }, {
        "mistake": "Reads logsumexp as if it were the hard max: logsumexp_j s_j is only close to max_j s_j when "
                   "one score dominates by a wide margin; in general the weights exp(s_ij - logsumexp) are spread "
                   "over all rows. Answers \"C\" (the single best-scoring row) instead of \"A\" (a softmax-"
                   "weighted average of all the rows of X).",
        "where": ['q6']}),

    'q6_answer_b_max_shifted_self_score_read_as_log_weight_zero': ({
        'q6_answer': '''
# With Q = K = X the largest score in row i is the self score X_i . X_i / sqrt(d_k), so after the max shift
# used for stability the self entry is s_ii - max_j s_ij = 0: log-weight 0, weight exp(0) = 1, and the
# other weights exp(negative) are what is left over. The row keeps itself.
q6_answer = "B"
''',
    }, {
        "mistake": "Takes the max-shifted score s_ii - max_j s_ij = 0 for the log-weight, forgetting the "
                   "-log(sum_j exp(s_ij - max)) term of the log-softmax (and the self score need not even be the "
                   "largest when the rows' norms differ): the self weight is below 1 and every row gets some "
                   "weight. Answers \"B\" (X_i itself) instead of \"A\" (a softmax-weighted average of all the rows).",
        "where": ['q6']}),

    'q7_answer_b_online_softmax_read_as_needing_sorted_keys': ({
        'q7_answer': '''
# The online (FlashAttention) form walks the keys block by block keeping a running max; that running max can
# only be trusted if it never has to be revised, i.e. if the keys are visited in sorted order of their score.
q7_answer = "B"
''',
    }, {
        "mistake": "Believes the online softmax's running max needs the keys sorted; in fact the rescale by "
                   "exp(m_old - m_new) handles a max that moves, in any key order, and attention itself needs "
                   "no order at all. Answers \"B\" (only works with sorted keys) instead of \"D\" (a soft, "
                   "differentiable lookup: a softmax-weighted mix of all the values).",
        "where": ['q7']}),

    'q8_query_tiles_attend_only_their_own_key_tile': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    tile = 4                                    # rows per tile, as in FlashAttention's tiling
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        rows_out = []
        for i in range(0, T, tile):
            rows = slice(i, i + tile)
            out_blk, _ = attention(Q[rows, cols], K[rows, cols], V[rows, cols], d_k)
            rows_out.append(out_blk)
        heads.append(torch.cat(rows_out, dim=0))
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "The tokens are tiled in blocks of 4 rows and the tile's row offset is used for the keys and "
                   "values too, so each query tile attends only to the 4 keys of its own tile (block-diagonal "
                   "attention) instead of to every key: for T > 4 the outputs of every head are wrong. Right "
                   "for T <= 4.",
        "where": ['q8']}),

    'q8_head_offsets_from_inclusive_cumsum_wrapped_heads_rotated': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    widths = torch.full((n_heads,), d_k)
    starts = torch.cumsum(widths, dim=0) % d_model       # head offsets as a running sum of the widths
    heads = []
    for h in range(n_heads):
        cols = slice(int(starts[h]), int(starts[h]) + d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "The head offsets are an INCLUSIVE cumsum of the head widths (d_k, 2 d_k, ..., d_model), "
                   "where the exclusive one (0, d_k, ...) was meant; the % d_model that keeps the last one in "
                   "range wraps it to 0. So head h reads the columns of head h + 1 and the last head those of "
                   "head 0: the head outputs are concatenated in a rotated order and multiplied by the wrong "
                   "row blocks of W_O. Right only with one head.",
        "where": ['q8']}),

    'q8_projection_inner_tiles_counted_with_floor_division_drop_tail_columns': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    tile = 4                                    # inner-dimension tiles, accumulated like a tiled matmul
    n_tiles = max(1, d_model // tile)

    def project(W):
        acc = X.new_zeros(X.shape[0], W.shape[1])
        for t in range(n_tiles):
            inner = slice(t * tile, (t + 1) * tile)
            acc = acc + X[:, inner] @ W[inner, :]
        return acc

    Q, K, V = project(W_Q), project(W_K), project(W_V)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "The projections X @ W are accumulated over inner tiles of 4 columns, but the tile count is "
                   "d_model // 4 (floor division), so when 4 does not divide d_model the last d_model % 4 "
                   "columns of X (rows of W_Q, W_K, W_V) never enter Q, K and V, and the output is wrong "
                   "(for d_model = 6 or 10, say). Right when d_model is a multiple of 4 or at most 4.",
        "where": ['q8']}),
}
