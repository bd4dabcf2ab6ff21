"""Sixty-third blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements and stub cells) and the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written `Q @ K.T / d_k ** 0.5`
with a row-sum assert; q2: two `randn` draws from the generator, `(q * k).sum(1)`, `.var().item()`; q4:
`softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in the same cell; q5..q7 one letter each;
q8 a loop over the heads calling the 2-D `attention` on column slices, `X @ W` projections), `tests/heldout/
harness.py`, blind62.py in full for the format, and only the variant NAMES of the earlier blind*.py sets, so
that their mistakes are not repeated in the same form. The grader was not run on this set.

Focus of the round: AN OPTIMISATION THAT CHANGED THE RESULT. Each wrong variant is a first version that worked,
rewritten to be faster or leaner, and broken in one place by the rewrite: in q1, the 1/sqrt(d_k) scale
memoised in a module-level variable on the first call (every later call, and q8's heads, use the trace's
d_k = 4), the scale fused into `torch.addmm(..., alpha=1/sqrt(d_k))` with the old `/ d_k ** 0.5` line left in
(scaled by d_k), a FlashAttention-style online softmax over key blocks whose rescale factor is
exp(m_new - m_old) instead of exp(m_old - m_new), and queries processed in blocks of 4 with
`range(T_q // B)` (the last partial block is never computed: those rows stay zero); in q2, the scale moved
onto the inputs in place but applied to both q and k (the scaled variance is 1/d_k); in q4, the entropy
computed in float16 and cast back (1e-3 errors; the 1e-9 epsilon flushes to zero in float16, so a saturated
row gives NaN), both table entropies taken from one batched call with the pair stacked on the LAST axis
(softmax over (raw_j, scaled_j) pairs), and the table's matmul vectorised as a broadcast product summed over
the keys axis (d sums instead of 5 dot products); q5 answered from a probe that squares the deviations in
place and then calls `.var()` instead of `.mean()` (about 8300 at d = 64, nearest to d^2: "D"); q6 from a
probe copied from nanoGPT's causal self-attention with the tril buffer still applied (token 0 sees only
itself: "B"); q7 from a probe that checks a top-1 (argmax) fast path against the full mix with atol=0.1 on
values in [0, 0.1), a check that cannot fail ("C"); and in q8, the three projection weights fused with
`torch.cat([W_Q, W_K, W_V])` (rows, as nn.MultiheadAttention's in_proj_weight is laid out, not the columns
that `X @ W` needs: a shape error), the whole forward under `torch.autocast("cpu", dtype=torch.bfloat16)`
(float32 inputs give a bfloat16 output with bfloat16 error), and the fused QKV weight cached in a
module-level variable on the first call (later calls use the first call's weights; another width or dtype
fails). Spread: q1 x4, q2 x1, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a hand-graded markdown answer with no
code cell to replace). Mix: crashes (q8 fused rows, q8 cache with another width or dtype), NaN (q4 float16
on saturated rows), silently wrong values (q1 memoised scale, q1 addmm, q1 online rescale, q2, q4 stacked
pair, q4 broadcast, q8 cached weights), zero rows (q1 blocks), dtype/precision (q4 float16, q8 autocast), a
wrong shape inside the table (q4 broadcast: `raw` has d entries), in-place changes (q2, q5's probe) and three
written answers drawn from a faulty "optimised" probe. The five correct variants are optimised rewrites that
keep the result: `torch.baddbmm` on an empty buffer with beta=0 and alpha = 1/sqrt(d_k), a blocked online
softmax with the right rescale, one stacked (2, n, d) draw unbound with `linalg.vecdot` and `var_mean` read
in its (var, mean) order, a single-pass `log_softmax` entropy with an `mv` table, and a multi-head attention
with a fused column-concatenated QKV weight and batched `baddbmm` heads.

Public material used (nothing copied verbatim): huggingface/diffusers issue #8837 ("batch_size_attention //
self.slice_size will forget to compute the last batch of attention", SlicedAttnProcessor) and PR #407/#446
(attention slicing for memory) for q1's query blocks; PaddleJitLab/CUDATutorial issue #69 (FlashAttention v1
online softmax, `__expf(row_m_prev - row_m_new) * row_l_prev`, and a NaN hidden by `fmaxf(nan, 0)` in the
check), lucidrains/flash-attention-jax #2 and Dao-AILab/flash-attention #1884 (running max / lse rescaling)
for q1's online softmax and the correct blocked variant; the nanoGPT CausalSelfAttention ports found in the
code corpus (A1ex-Chen/DL_project_log `examples/nanogpt/model_rest.py` and others: `c_attn = nn.Linear(n_embd,
3 * n_embd)` as one fused QKV projection, `register_buffer("bias", torch.tril(torch.ones(block_size,
block_size)))` built once and sliced `[:T, :T]` in `masked_fill`) for q6's probe and the fused / cached QKV
weight of q8; pytorch/pytorch issue #105682 and PR #92527 (CPU autocast policy: matmuls run in bfloat16
"with a certain precision loss") for q8's autocast; the Tenstorrent `tt_baddbmm` ports in the code corpus
(`beta * input + alpha * bmm(batch1, batch2)`) for the baddbmm/addmm alpha/beta semantics (q1's addmm and the
correct baddbmm variants); blog.rakeshraushan.org "Numerical Precision Tricks" and engineersofai.com
"Floating-Point Arithmetic" (fp16 exp overflows near 11, a probability underflowing to 0 in float16 gives
log(0) and NaN) for q4's float16 entropy.

How the variants were checked: each variant's notebook (full_marks.ipynb with the cell replaced) was run top
to bottom, every code cell but otter's init and the `grader.check` cells, with a throwaway script under
/tmp/w63-scaled-attention/; its functions were then compared with plain torch: `attention` with
`softmax(Q K^T / sqrt(d_k)) V` on five shapes (T_q != T_k, d_v != d_k, T_q = 1, d_k 3..13, not perfect
squares) in float32 and float64 (dtype, shape, values at atol 1e-5), `dot_product_variance` at d_k 1, 5, 64,
200 within 10% of d_k and 1 and repeatable with the same seed, `softmax_entropy` against a float64
`log_softmax` entropy on 1-D..3-D logits at scales 1..1e5 in float32/float64, `entropy_table` against the
spec recomputed at dims (4, 16, 64, 256) and (8, 32, 100), the letters against C / A / D, and
`multi_head_attention` against the loop over heads (itself checked against `torch.nn.MultiheadAttention`
without biases, loaded with the transposed weights) on four shapes in float32/float64. The five correct
variants matched everywhere and pass `torch.autograd.gradcheck` in float64 (the attention ones also keep
float16/bfloat16 dtypes); every wrong variant differs, only in the questions listed in its "where" (q1's
memoised scale loses q8 points only where d_model // n_heads != 4; the cached q8 weight only from the second
call on)."""

CORRECT = {
    "attention_baddbmm_beta_zero_on_empty_alpha_scale": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[0], K.shape[0]
    # One fused kernel: beta=0 means the (uninitialised) input is ignored, alpha carries the scale.
    scores = torch.baddbmm(Q.new_empty(1, T_q, T_k), Q.unsqueeze(0), K.T.unsqueeze(0),
                           beta=0, alpha=1.0 / math.sqrt(d_k)).squeeze(0)
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''},
    "attention_online_softmax_over_key_blocks_rescaled_right": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scale = 1.0 / math.sqrt(d_k)
    block = 2                                            # FlashAttention-style pass over key blocks
    m = l = acc = None
    for s in range(0, K.shape[0], block):
        S = (Q @ K[s:s + block].T) * scale
        m_blk = S.amax(dim=-1, keepdim=True)
        if m is None:
            m = m_blk
            p = torch.exp(S - m)
            l = p.sum(dim=-1, keepdim=True)
            acc = p @ V[s:s + block]
            continue
        m_new = torch.maximum(m, m_blk)
        alpha = torch.exp(m - m_new)                     # old max -> new max: factor <= 1
        p = torch.exp(S - m_new)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ V[s:s + block]
        m = m_new
    out = acc / l
    weights = torch.exp((Q @ K.T) * scale - m) / l       # the same m and l give the full rows
    return out, weights
'''},
    "variance_one_stacked_draw_unbound_vecdot_var_mean": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q, k = torch.randn(2, n_samples, d_k, generator=generator).unbind(0)   # one call, one buffer
    dots = torch.linalg.vecdot(q, k)
    if scaled:
        dots = dots * torch.rsqrt(torch.tensor(float(d_k), dtype=dots.dtype))
    var, _mean = torch.var_mean(dots)                    # (var, mean), in that order
    return var.item()
'''},
    "entropy_log_softmax_single_pass_table_mv": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)                # finite even where p underflows to 0
    return -(log_p.exp() * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mv(k, q[0])                          # the 5 scores without building a (1, 5)
        scaled = raw * (1.0 / math.sqrt(d))
        table.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                      "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return table
'''},
    "mha_fused_qkv_weight_cat_columns_baddbmm_heads": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    W_QKV = torch.cat([W_Q, W_K, W_V], dim=1)            # (d_model, 3 d_model): one projection matmul
    qkv = (X @ W_QKV).view(T, 3, n_heads, d_k).permute(1, 2, 0, 3)   # (3, heads, T, d_k)
    q, k, v = qkv.unbind(0)
    scores = torch.baddbmm(q.new_empty(n_heads, T, T), q, k.transpose(1, 2),
                           beta=0, alpha=d_k ** -0.5)
    heads = torch.softmax(scores, dim=-1) @ v            # (heads, T, d_k)
    return heads.transpose(0, 1).reshape(T, d_model) @ W_O
'''},
}


WRONG = {
    "q1_scale_memoised_from_first_calls_d_k": ({"attention": '''
_SCALE = None                                            # computed once, reused: saves a sqrt per call


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    global _SCALE
    if _SCALE is None:
        _SCALE = 1.0 / math.sqrt(d_k)
    weights = F.softmax((Q @ K.T) * _SCALE, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The scale 1/sqrt(d_k) is cached in a module-level variable on the first call and never "
                  "recomputed, so every later call uses the first call's d_k (4, from the lesson's trace) "
                  "instead of the d_k it is given; q8's heads, whose d_k is d_model // n_heads, are scaled "
                  "wrongly too.",
           "where": ["q1", "q8"]}),

    "q1_scale_fused_into_addmm_alpha_old_division_kept": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.addmm(Q.new_zeros(Q.shape[0], K.shape[0]), Q, K.T,
                         beta=0, alpha=1.0 / math.sqrt(d_k))   # scale fused into the matmul
    weights = F.softmax(scores / d_k ** 0.5, dim=-1)           # old line left in: scaled twice
    return weights @ V, weights
'''}, {"mistake": "The scale was fused into the score matmul (`addmm(..., alpha=1/sqrt(d_k))`) but the old "
                  "`/ d_k ** 0.5` line was kept, so the scores are divided by sqrt(d_k) twice, i.e. by d_k: "
                  "the weights are too flat (silently wrong output and weights; q8 calls it too).",
           "where": ["q1", "q8"]}),

    "q1_online_softmax_rescale_factor_inverted": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scale = 1.0 / math.sqrt(d_k)
    block = 2                                            # FlashAttention-style pass over key blocks
    m = l = acc = None
    for s in range(0, K.shape[0], block):
        S = (Q @ K[s:s + block].T) * scale
        m_blk = S.amax(dim=-1, keepdim=True)
        if m is None:
            m = m_blk
            p = torch.exp(S - m)
            l = p.sum(dim=-1, keepdim=True)
            acc = p @ V[s:s + block]
            continue
        m_new = torch.maximum(m, m_blk)
        alpha = torch.exp(m_new - m)                     # rescale of the running sums
        p = torch.exp(S - m_new)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ V[s:s + block]
        m = m_new
    out = acc / l
    weights = torch.exp((Q @ K.T) * scale - m) / l
    return out, weights
'''}, {"mistake": "In the blocked (online) softmax over key blocks, the running sum and accumulator are "
                  "rescaled by exp(m_new - m_old) instead of exp(m_old - m_new): whenever a later block raises "
                  "a row's maximum, the earlier keys are inflated instead of shrunk, so the output is wrong "
                  "and the weight rows no longer sum to 1 (q8 calls it too).",
           "where": ["q1", "q8"]}),

    "q1_query_blocks_of_four_remainder_rows_left_zero": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    B = 4                                                # queries in blocks, to bound the score memory
    T_q = Q.shape[0]
    out = Q.new_zeros(T_q, V.shape[1])
    weights = Q.new_zeros(T_q, K.shape[0])
    KT = K.T / math.sqrt(d_k)                            # transposed and scaled once for all blocks
    for i in range(T_q // B):
        rows = slice(i * B, (i + 1) * B)
        w = F.softmax(Q[rows] @ KT, dim=-1)
        weights[rows] = w
        out[rows] = w @ V
    return out, weights
'''}, {"mistake": "The queries are processed in blocks of 4 with `range(T_q // B)`, which drops the last, "
                  "partial block: when T_q is not a multiple of 4 the last rows of the output and of the "
                  "weights stay zero (and with T_q < 4, as in the trace, everything is zero).",
           "where": ["q1", "q8"]}),

    "q2_scale_folded_into_both_draws_in_place": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    if scaled:
        s = 1.0 / math.sqrt(d_k)
        q.mul_(s)                                        # scale the inputs in place, no extra temporary
        k.mul_(s)
    dots = (q * k).sum(1)
    return dots.var().item()
'''}, {"mistake": "To avoid a temporary, the 1/sqrt(d_k) scale was moved onto the inputs in place, but it is "
                  "applied to both q and k, so the dot products are divided by d_k, not sqrt(d_k): the scaled "
                  "variance comes out about 1/d_k instead of 1 (the unscaled branch is right).",
           "where": ["q2"]}),

    "q4_entropy_computed_in_float16_for_speed_cast_back": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    x = logits.to(torch.float16)                         # half precision: half the memory traffic
    p = F.softmax(x, dim=-1)
    H = -(p * torch.log(p + 1e-9)).sum(dim=-1)
    return H.to(logits.dtype)
'''
        + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The entropy is computed in float16 and cast back: the dtype is right but the values carry "
                  "half-precision error (about 1e-3 or more), and 1e-9 is below float16's smallest subnormal "
                  "(6e-8), so p + 1e-9 stays 0 where p underflows and a saturated row gives 0 * log(0) = NaN; "
                  "logits beyond 65504 become inf.",
           "where": ["q4"]}),

    "q4_table_entropies_batched_pair_stacked_on_last_axis": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        H = softmax_entropy(torch.stack([raw, scaled], dim=1))   # both entropies in one call
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": H[0].item(), "H_scaled": H[1].item()})
    return results
'''}, {"mistake": "To get both entropies from one batched call, raw and scaled are stacked on the LAST axis "
                  "(shape (5, 2)), so the softmax runs over each (raw_j, scaled_j) pair and H[0], H[1] are the "
                  "entropies of the first two pairs, not of the raw and scaled score rows (needs dim=0).",
           "where": ["q4"]}),

    "q4_table_scores_vectorised_as_product_summed_over_keys": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q * k).sum(0)                             # broadcast product instead of a matmul
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The matmul was replaced by a broadcast product `(q * k)` summed over axis 0 (the keys) "
                  "instead of axis 1 (the features): `raw` is a vector of d sums over the 5 keys, not the 5 "
                  "dot products, so every std and entropy in the table is wrong.",
           "where": ["q4"]}),

    "q5_answer_probe_squares_deviations_in_place_then_takes_var": ({"q5_answer": '''
# Probe: measure Var(q.k) at d = 64 with one buffer, in place, and take the nearest option.
_g = torch.Generator().manual_seed(0)
_d = 64
_dots = (torch.randn(20000, _d, generator=_g) * torch.randn(20000, _d, generator=_g)).sum(-1)
_dots.sub_(_dots.mean()).pow_(2)                         # squared deviations, no extra tensor
_measured = _dots.var().item()
_values = {"A": 1.0, "B": math.sqrt(_d), "C": float(_d), "D": float(_d) ** 2}
q5_answer = min(_values, key=lambda letter: abs(_values[letter] - _measured))
'''}, {"mistake": "The probe turns the dot products into squared deviations in place and then calls `.var()` "
                  "on them instead of `.mean()`: it measures the variance of (q.k)^2, about 2 d^2 or more "
                  "(roughly 9000 at d = 64), nearest to d^2 = 4096, so 'D' instead of 'C'.",
           "where": ["q5"]}),

    "q6_answer_probe_from_nanogpt_keeps_causal_tril_buffer": ({"q6_answer": '''
# Probe: self-attention with Q = K = V = X, adapted from nanoGPT's CausalSelfAttention forward.
torch.manual_seed(0)
_T, _d = 6, 8
_X = torch.randn(_T, _d)
_bias = torch.tril(torch.ones(16, 16))                   # the registered buffer, built once for block_size
_att = (_X @ _X.T) * (1.0 / math.sqrt(_d))
_att = _att.masked_fill(_bias[:_T, :_T] == 0, float("-inf"))
_att = F.softmax(_att, dim=-1)
_y = _att @ _X
q6_answer = "B" if torch.allclose(_y[0], _X[0]) else "A"     # does token 0 come out as itself?
'''}, {"mistake": "The letter comes from a probe copied from nanoGPT's causal self-attention with its tril "
                  "`bias` buffer still applied: token 0 may only see key 0, so its output row is exactly X_0, "
                  "and the probe concludes every token attends only to itself: 'B' instead of 'A'.",
           "where": ["q6"]}),

    "q7_answer_probe_top1_shortcut_passes_loose_tolerance": ({"q7_answer": '''
# Probe: can the weighted mix be replaced by the single best key's value (a top-1 fast path)?
torch.manual_seed(0)
_d, _T = 16, 6
_q = torch.randn(1, _d)
_K = torch.randn(_T, _d)
_V = 0.1 * torch.rand(_T, 4)                             # small values, easy to read
_w = F.softmax(_q @ _K.T / math.sqrt(_d), dim=-1)
_full = _w @ _V
_fast = _V[_w.argmax(dim=-1)]                            # hard top-1 attention, no weighted sum
q7_answer = "C" if torch.allclose(_full, _fast, atol=0.1) else "D"
'''}, {"mistake": "The letter comes from a probe that checks a top-1 (argmax) fast path against the full "
                  "weighted mix with atol=0.1 while the values lie in [0, 0.1): any mix of them is within 0.1 "
                  "of any one of them, so the check cannot fail although the weights are far from one-hot "
                  "(largest weight about 0.36), so it concludes attention returns only the "
                  "best key's value: 'C' instead of 'D'.",
           "where": ["q7"]}),

    "q8_fused_qkv_weights_concatenated_along_rows": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    W_QKV = torch.cat([W_Q, W_K, W_V])                   # fuse the three projections into one matmul
    Q, K, V = (X @ W_QKV).chunk(3, dim=1)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The three weight matrices are fused with `torch.cat([W_Q, W_K, W_V])`, which stacks them "
                  "along the rows (3 d_model, d_model) instead of the columns (d_model, 3 d_model): "
                  "`X @ W_QKV` fails with a shape mismatch.",
           "where": ["q8"]}),

    "q8_whole_forward_under_cpu_autocast_bfloat16": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    with torch.autocast("cpu", dtype=torch.bfloat16):    # mixed precision for speed
        d_model = X.shape[1]
        d_k = d_model // n_heads
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        heads = []
        for h in range(n_heads):
            cols = slice(h * d_k, (h + 1) * d_k)
            out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
            heads.append(out_h)
        return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The whole forward runs under `torch.autocast('cpu', dtype=torch.bfloat16)`: for float32 "
                  "inputs the matmuls run and return in bfloat16, so the output is bfloat16 (not the input "
                  "dtype) with only about 3 significant digits (float64 inputs are left alone by autocast).",
           "where": ["q8"]}),

    "q8_fused_qkv_weight_cached_from_first_call": ({"multi_head_attention": '''
_W_QKV = None                                            # fused projection weight, built once


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    global _W_QKV
    d_model = X.shape[1]
    d_k = d_model // n_heads
    if _W_QKV is None:
        _W_QKV = torch.cat([W_Q, W_K, W_V], dim=1)       # (d_model, 3 d_model)
    Q, K, V = (X @ _W_QKV).chunk(3, dim=1)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The fused [W_Q | W_K | W_V] weight is cached in a module-level variable on the first call "
                  "and never rebuilt: every later call projects with the FIRST call's weights whatever W_Q, "
                  "W_K, W_V it is given (only W_O is current), and a later call with another d_model or dtype "
                  "fails in the matmul.",
           "where": ["q8"]}),
}
