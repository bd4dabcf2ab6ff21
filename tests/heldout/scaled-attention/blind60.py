"""Sixtieth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md` or `docs/`. What was read: the
assignment notebook's questions and the solution cells of `examples/submissions/scaled-attention/full_marks.ipynb`
(q1..q8: 2-D attention with T_q != T_k and d_v != d_k and "use the d_k you are given"; q2's sample variance
within 10% at n_samples = 10000, all draws from the generator, a Python float; `softmax_entropy` over the
last dim of any `(..., T)`, 0 on a saturated row, and `entropy_table(dims, seed=0)` in the same cell; q5..q7
one letter each; a looping `multi_head_attention` with `X @ W` projections), `tests/heldout/harness.py`,
blind59.py in full for the format, and only the variant NAMES of blind.py .. blind58.py, so that their
mistakes are not repeated in the same form. The grader was not run on this set.

Focus of the round: a REWRITE THAT BROKE IT. Each wrong variant is what is left after a student took a
working cell and rewrote it for speed, memory or elegance: in q1, a "symmetric score matrix" shortcut for
square inputs (upper triangle of Q K^T mirrored, right only when Q is K), queries processed in two halves to
save memory (an odd last row is never computed and stays 0), and the output matmul written into an `out=`
buffer cached per shape and dtype (every later call of that shape overwrites the tensor an earlier caller
holds, so q8's heads all become the last head); in q2, the display loop's draws memoised per (d_k,
n_samples, seed) with the scaled branch dividing the cached dots in place (each scaled call shrinks the
cache again, and an unscaled call after a scaled one gets about 1), and the draws made in float16 to halve
memory with the variance summed by hand in float16 (the sum of squares passes 65504 and the variance is inf
for every d_k above about 6); in q4, a fast path that returns zeros for the WHOLE batch as soon as any one
row has collapsed to one-hot, the logsumexp identity H = lse(s) - sum p s with the max subtracted inside the
lse for stability but never added back (every entropy off by the row max), and in the table the scale
1/sqrt(d) hoisted out of the dims loop as if it were loop-invariant (computed for dims[0] only); q5 answered
from a vectorised probe whose column mask (keep the first d coordinates) was hoisted out of the loop and so
built for d = 4 only (every d measures variance ~4, ratio 1, "A"); q6 answered from a probe rewritten as one
wide batch (d_k = 512), where each token's own score |x|^2/sqrt(d) ~ 22.6 dwarfs the others and
allclose(out, X) passes ("B"); q7 answered from a probe rewritten with the fused
`F.scaled_dot_product_attention` and `scale=math.sqrt(d)` (the keyword is the multiplier, default
1/sqrt(E)), so the scores are 64 times too sharp and the output is the best key's value ("C"); and in q8 the
projections done in bfloat16 to save memory and cast back (errors near 1e-2), heads processed two at a time
with `range(0, n_heads - 1, 2)` (an odd last head is dropped: the concat is too narrow for W_O, and with one
head there is nothing to concatenate), and the batched rewrite's scale built once per dtype as a cached
tensor (the first call's head width is used for every later shape). Spread: q1 x3, q2 x2, q4 x3, q5 x1,
q6 x1, q7 x1, q8 x3 (q3 is a hand-graded markdown answer with no code cell to replace).

Public material used (nothing copied verbatim): tfernd/sd-fused `layers/blocks/attention/fn/chunked_attention.py`
and lucidrains/memory-efficient-attention-pytorch (Rabe and Staats, "Self-attention does not need O(n^2)
memory": queries processed in buckets, with `min(i + chunks, len)` guarding the last partial bucket) for the
q1 halves and q8 head pairs that lose the remainder; huggingface/diffusers pull requests #2643, #13701 and
#14459 and huggingface/transformers #22575 (attention scores through `torch.baddbmm` into a reused
`torch.empty` buffer to save an allocation, and the NaN garbage that leaks when the buffer is trusted) for
the cached output buffer; the PyTorch "out= notes" page (an `out=` tensor is written in place, grad-requiring
out= is unsupported) for how that buffer aliases the caller's result; facebookresearch/xformers pull
requests #66 and #660 and issue #655 (a causal mask saved once, "the idea was to not reallocate a mask all
the time", then reused for other sequence lengths) and huggingface/candle issue #3582 (a mask built from a
batch-independent buffer, wrong for batch > 1) for the values precomputed once and reused for other shapes
(q4's hoisted scale, q5's hoisted mask, q8's per-dtype scale cache); pytorch/pytorch issue #46820,
lucidrains/nystrom-attention issue #13 and pytorch/xla issue #2369 (`q *= self.scaling` and `v *= v_scale`
in-place rewrites of a tensor that something else still needs) for q2's in-place division of the cached
dots; vllm-project/vllm pull request #24500 (a rewrite to "prefer in-place add" rejected because the old
value was still needed) for the same; technolynx.com "Half-Precision Floating-Point" and errorhandle.ai
(float16's largest finite value is 65504, sums overflow to inf) for q2's float16 draws and the bfloat16
projections; the alvarodca/LLM notebook (Raschka-style self-attention without projections,
`inputs @ inputs.T`, whose score matrix IS symmetric) for the mirrored-triangle shortcut; docs.openvino.ai
"ScaledDotProductAttention" and the keras `dot_product_attention` page (scale defaults to 1/sqrt(E) and
multiplies QK^T) for q7's `scale=math.sqrt(d)`. The other behaviours were reproduced locally with torch.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake (the
rewrite that introduced it); `where` lists the questions that may lose points (q8 calls the student's
`attention`, so every q1 mistake lists q8 too; the q4 variants replace the whole q4 cell, which defines both
functions, changing only one of them; the q5..q7 probes call the untouched full-marks functions or plain
torch). None crashes in the notebook's own display cells (q2's float16 variant prints inf there). Correct
variants are valid but written differently from full_marks (queries in chunks of `torch.split` with the
remainder kept, scores through `torch.addmm(beta=0)`; one (n, 2, d_k) draw with an einsum and a
`sqrt(d_k) ** scaled` divisor; the logsumexp identity with the shift applied to BOTH terms and a table with
its scale inside the loop and `var().sqrt()`; batched heads with `baddbmm(beta=0)` into a zeros buffer and a
scale computed on every call; answers by string methods). Every variant was checked with a throwaway script
under /tmp/w60-scaled-attention/: each notebook was built with harness.build_notebook and run top to bottom
(all code cells but otter's init and `grader.check`), then its functions were called again (with the
notebook's globals in place) and compared with plain torch (`torch.softmax`, `F.scaled_dot_product_attention`
with `scale=1/sqrt(d_k)`, `nn.MultiheadAttention` without biases loaded with the same weights, a float64
`log_softmax` entropy, the lesson's table recomputed) on shapes with T_q < T_k, T_q > T_k, T_q = 1, odd and
even T_q, d_v != d_k, d_k = 13 and a d_k argument different from the width, entropy inputs of 1 to 3 dims
including T = 1, scaled-up and saturated rows mixed with ordinary ones, dims (8,), (256, 4), n_heads = 1, 2,
3, 4 with several widths in a row, in float64 and float32 (half precision only where a variant itself uses
it), checking dtypes, shapes, repeated calls and the reproducibility of q2; the correct ones agree
everywhere, and every wrong one differs, only in its `where`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


_Q4_TABLE = '''

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
'''

_Q4_ENTROPY = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''


CORRECT = {
    "attention_query_chunks_split_remainder_kept_addmm_beta_zero": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    inv_scale = 1.0 / math.sqrt(d_k)
    outs, ws = [], []
    for q_chunk in torch.split(Q, 2, dim=0):          # the last chunk may hold a single row: kept
        s = torch.addmm(q_chunk.new_zeros(q_chunk.shape[0], K.shape[0]), q_chunk, K.t(),
                        beta=0, alpha=inv_scale)
        w = torch.softmax(s, dim=-1)
        ws.append(w)
        outs.append(w @ V)
    return torch.cat(outs, dim=0), torch.cat(ws, dim=0)
'''},
    "variance_pair_axis_draw_einsum_root_power_of_flag": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pairs = torch.randn(n_samples, 2, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", pairs[:, 0], pairs[:, 1])
    dots = dots / math.sqrt(d_k) ** int(scaled)        # divisor 1 when unscaled
    return float(torch.var(dots, correction=1))
'''},
    "entropy_identity_shift_in_both_terms_table_scale_in_loop": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    shifted = logits - logits.amax(dim=-1, keepdim=True)
    log_z = torch.logsumexp(shifted, dim=-1)
    p = torch.softmax(shifted, dim=-1)
    return log_z - (p * shifted).sum(dim=-1)          # H = log Z - E_p[s], the shift cancels


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (k @ q.T).squeeze(1)
        scale = 1.0 / math.sqrt(d)
        scaled = raw * scale
        rows.append(dict(d=d, raw_std=raw.var().sqrt().item(), scaled_std=scaled.var().sqrt().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''},
    "mha_batched_baddbmm_beta_zero_scale_per_call": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split(M):                                      # (T, d_model) -> (n_heads, T, d_k)
        return M.reshape(T, n_heads, d_k).permute(1, 0, 2)

    q, k, v = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    scores = torch.baddbmm(q.new_zeros(n_heads, T, T), q, k.transpose(1, 2),
                           beta=0, alpha=1.0 / math.sqrt(d_k))
    w = torch.softmax(scores, dim=-1)
    concat = torch.bmm(w, v).permute(1, 0, 2).reshape(T, d_model)   # head 0 first
    return concat @ W_O
'''},
    "answers_by_string_methods_join_and_index": {
        "q5_answer": '''
q5_answer = "abcd"[2].upper()
''',
        "q6_answer": '''
q6_answer = "".join(["A"])
''',
        "q7_answer": '''
q7_answer = "A B C D".split()[-1]
'''},
}


WRONG = {
    "q1_square_scores_mirrored_as_if_symmetric": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if Q.shape[0] == K.shape[0]:
        # square (self-attention) scores are symmetric: keep the upper triangle and mirror it
        upper = torch.triu(Q @ K.T)
        raw = upper + upper.T - torch.diag_embed(upper.diagonal())
    else:
        raw = Q @ K.T
    weights = F.softmax(raw / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''}, {"mistake": "Rewritten to save work on square inputs: when T_q == T_k the score matrix is assumed "
                  "symmetric (as it is for Q = K) and built from the upper triangle of Q K^T mirrored "
                  "below the diagonal, so for ordinary square inputs with Q != K every score below the "
                  "diagonal is the transposed one (q_j.k_i instead of q_i.k_j) and the weights and output "
                  "are wrong; non-square inputs are right.",
           "where": ["q1", "q8"]}),

    "q1_queries_in_two_halves_odd_last_row_left_zero": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q = Q.shape[0]
    half = T_q // 2                                   # two halves of the queries: half the score memory
    out = Q.new_zeros(T_q, V.shape[1])
    weights = Q.new_zeros(T_q, K.shape[0])
    for start in (0, half):
        rows = slice(start, start + half)
        weights[rows] = F.softmax(Q[rows] @ K.T / math.sqrt(d_k), dim=-1)
        out[rows] = weights[rows] @ V
    return out, weights
'''}, {"mistake": "Rewritten to process the queries in two halves of T_q // 2 rows to save memory: with an "
                  "odd T_q the last query row is in neither half and its weights and output stay 0 (rows "
                  "no longer sum to 1), and with T_q = 1 nothing is computed at all; even T_q is right.",
           "where": ["q1", "q8"]}),

    "q1_output_matmul_into_buffer_cached_per_shape": ({"attention": '''
_out_buffers = {}


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    key = (Q.shape[0], V.shape[1], V.dtype)
    if key not in _out_buffers:                       # allocate the output once per shape, then reuse it
        _out_buffers[key] = torch.empty(Q.shape[0], V.shape[1], dtype=V.dtype)
    out = torch.matmul(weights, V, out=_out_buffers[key])
    return out, weights
'''}, {"mistake": "Rewritten to avoid allocating the output: it is written with `out=` into a module-level "
                  "buffer cached per (T_q, d_v, dtype) and that buffer is returned, so the next call with "
                  "the same shape overwrites the output an earlier caller still holds (in multi-head "
                  "attention every head's output becomes the last head's), and inputs that require grad "
                  "raise because out= does not support autograd.",
           "where": ["q1", "q8"]}),

    "q2_draws_memoised_scaled_branch_divides_cache_in_place": ({"dot_product_variance": '''
_dots_cache = {}


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    key = (d_k, n_samples, generator.initial_seed())
    if key not in _dots_cache:                        # the display loop asks twice per d: draw once
        q = torch.randn(n_samples, d_k, generator=generator)
        k = torch.randn(n_samples, d_k, generator=generator)
        _dots_cache[key] = (q * k).sum(1)
    dots = _dots_cache[key]
    if scaled:
        dots /= math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "Rewritten to reuse the draws: the dot products are memoised per (d_k, n_samples, seed) and "
                  "the scaled branch divides the cached tensor in place (`dots /= sqrt(d_k)`), so every "
                  "scaled call shrinks the cache again (a second scaled call gives about 1/d_k) and an "
                  "unscaled call after a scaled one returns about 1 instead of d_k.",
           "where": ["q2"]}),

    "q2_draws_in_float16_variance_summed_in_float16_overflows": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # float16 draws: half the memory of float32 for large n_samples
    q = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float16)
    k = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float16)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    centred = dots - dots.mean()
    return ((centred * centred).sum() / (n_samples - 1)).item()
'''}, {"mistake": "Rewritten to draw q and k in float16 to halve the memory, with the variance summed by "
                  "hand in float16: the sum of squared deviations, about (n_samples - 1) * d_k, passes "
                  "float16's largest value 65504, so the unscaled variance is inf for n_samples = 10000 and "
                  "any d_k above about 6 (the scaled one, about 1, still fits).",
           "where": ["q2"]}),

    "q4_entropy_fast_path_zeros_whole_batch_when_any_row_saturated": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # fast path: a collapsed (one-hot) softmax has entropy 0, no need for the log
    if (p.amax(dim=-1) == 1).any():
        return logits.new_zeros(logits.shape[:-1])
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''' + _Q4_TABLE}, {"mistake": "Rewritten with a fast path for collapsed softmaxes, but the test `(p.max(-1) "
                               "== 1).any()` looks at the whole batch: as soon as one row is one-hot, "
                               "zeros are returned for EVERY row, including rows with a real entropy "
                               "(a single row, as in the table, is right).",
                    "where": ["q4"]}),

    "q4_entropy_identity_max_shift_not_added_back": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # H = logsumexp(s) - sum_j p_j s_j: no log of a probability, so no 0 * log 0
    m = logits.amax(dim=-1, keepdim=True)
    lse = torch.log(torch.exp(logits - m).sum(dim=-1))          # shifted by the row max for stability
    p = F.softmax(logits, dim=-1)
    return lse - (p * logits).sum(dim=-1)
''' + _Q4_TABLE}, {"mistake": "Rewritten with the identity H = logsumexp(s) - sum p s, the log-sum-exp "
                               "computed on the max-shifted logits for stability but the max never added "
                               "back (while the expectation uses the unshifted logits), so every entropy "
                               "is off by minus the row's largest logit (right only when that max is 0).",
                    "where": ["q4"]}),

    "q4_table_scale_hoisted_out_of_dims_loop": ({"softmax_entropy": _Q4_ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    inv_root = dims[0] ** -0.5              # hoisted out of the loop: it does not need recomputing
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw * inv_root
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "Rewritten with the scale 1/sqrt(d) hoisted out of the dims loop as if loop-invariant: "
                  "it is computed once from dims[0], so every later row is scaled by the first d's root "
                  "(at d = 256 the 'scaled' scores are divided by 2, not 16) and its scaled_std and "
                  "H_scaled are wrong; a single d, or the first row, is right.",
           "where": ["q4"]}),

    "q5_answer_probe_column_mask_hoisted_built_for_first_dim": ({"q5_answer": '''
# Probe, vectorised: one draw of width 64; for each d keep the first d coordinates with a mask
_g5 = torch.Generator().manual_seed(1)
_q5 = torch.randn(20000, 64, generator=_g5)
_k5 = torch.randn(20000, 64, generator=_g5)
_dims5 = [4, 16, 64]
_mask5 = (torch.arange(64) < _dims5[0]).to(_q5.dtype)     # built once, outside the loop
_vars5 = [((_q5 * _k5 * _mask5).sum(1)).var().item() for _d in _dims5]
_ratio5 = _vars5[-1] / _vars5[0]        # d from 4 to 64: 1 (A), 4 (B: sqrt d), 16 (C: d), 256 (D: d^2)
_growth5 = {"A": 1.0, "B": 4.0, "C": 16.0, "D": 256.0}
q5_answer = min(_growth5, key=lambda o: abs(math.log(_ratio5 / _growth5[o])))
'''}, {"mistake": "The answer comes from a vectorised probe whose column mask (keep the first d of 64 "
                  "coordinates) was hoisted out of the loop over d and so built for d = 4 only: every d "
                  "measures a variance of about 4, the growth ratio is 1 and the nearest option is A "
                  "('1, whatever d_k is') instead of C (d_k).",
           "where": ["q5"]}),

    "q6_answer_probe_widened_to_one_d512_batch_self_scores_dominate": ({"q6_answer": '''
# Probe as one wide batch instead of a loop of small examples: Q = K = V = X
_X6 = torch.randn(6, 512, generator=torch.Generator().manual_seed(0))
_out6, _W6 = attention(_X6, _X6, _X6, 512)
if torch.allclose(_out6, _X6, atol=1e-4):
    q6_answer = "B"
elif torch.allclose(_out6, _X6.mean(0).expand_as(_X6), atol=1e-4):
    q6_answer = "D"
else:
    q6_answer = "A"
'''}, {"mistake": "The answer comes from a probe rewritten as one wide batch (d_k = 512): each token's own "
                  "score |x_i|^2 / sqrt(d) ~ 22.6 dwarfs its scores with the others (~ +-1), the weights are "
                  "one-hot on the diagonal to 1e-9 and allclose(out, X) passes, so the student answers B "
                  "('each token attends only to itself') instead of A (a softmax-weighted average).",
           "where": ["q6"]}),

    "q7_answer_probe_sdpa_scale_keyword_given_root_d": ({"q7_answer": '''
# Probe with the fused built-in (faster), called outside attention() as the rules allow
_g7 = torch.Generator().manual_seed(0)
_d7 = 64
_q7 = torch.randn(1, 1, _d7, generator=_g7)
_K7 = torch.randn(1, 8, _d7, generator=_g7)
_V7 = torch.randn(1, 8, 3, generator=_g7)
_out7 = F.scaled_dot_product_attention(_q7, _K7, _V7, scale=math.sqrt(_d7))   # "scaled by sqrt(d_k)"
_best7 = (_q7 @ _K7.transpose(-2, -1)).argmax(-1).item()
if torch.allclose(_out7[0, 0], _V7[0, _best7], atol=1e-4):
    q7_answer = "C"          # only the best-scoring key's value comes back: an argmax
else:
    q7_answer = "D"
'''}, {"mistake": "The answer comes from a probe rewritten with F.scaled_dot_product_attention and "
                  "scale=math.sqrt(d): `scale` multiplies Q K^T (its default is 1/sqrt(E)), so the scores "
                  "are d = 64 times too sharp, the output equals the best key's value and the student "
                  "answers C (an argmax with no useful gradient) instead of D (a softmax-weighted mix).",
           "where": ["q7"]}),

    "q8_projections_in_bfloat16_cast_back": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    # the three projections in bfloat16 (half the memory), back to the input dtype for the heads
    Xb = X.to(torch.bfloat16)
    Q = (Xb @ W_Q.to(torch.bfloat16)).to(X.dtype)
    K = (Xb @ W_K.to(torch.bfloat16)).to(X.dtype)
    V = (Xb @ W_V.to(torch.bfloat16)).to(X.dtype)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Rewritten to compute the Q, K, V projections in bfloat16 to save memory and cast them "
                  "back: bfloat16 keeps 8 bits of mantissa, so the projections and the output are off by "
                  "about 1e-2 relative, far outside float32 (let alone float64) tolerances; dtype and shape "
                  "are right.",
           "where": ["q8"]}),

    "q8_heads_in_pairs_odd_last_head_dropped": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(0, n_heads - 1, 2):               # two heads per step, batched
        cols = slice(h * d_k, (h + 2) * d_k)
        q = Q[:, cols].reshape(T, 2, d_k).transpose(0, 1)
        k = K[:, cols].reshape(T, 2, d_k).transpose(0, 1)
        v = V[:, cols].reshape(T, 2, d_k).transpose(0, 1)
        w = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k), dim=-1)
        heads.append((w @ v).transpose(0, 1).reshape(T, 2 * d_k))
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Rewritten to run the heads two at a time with range(0, n_heads - 1, 2): with an odd head "
                  "count the last head is never computed, so the concatenation is d_k columns short and "
                  "`@ W_O` raises a shape error, and with one head there is nothing to concatenate "
                  "(torch.cat of an empty list); even head counts are right.",
           "where": ["q8"]}),

    "q8_batched_scale_tensor_cached_per_dtype": ({"multi_head_attention": '''
_scale_cache = {}


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    if X.dtype not in _scale_cache:                  # build the scale tensor once per dtype
        _scale_cache[X.dtype] = torch.tensor(1.0 / math.sqrt(d_k), dtype=X.dtype)
    scale = _scale_cache[X.dtype]
    q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)
    k = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    v = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    w = torch.softmax(q @ k.transpose(1, 2) * scale, dim=-1)
    return (w @ v).transpose(0, 1).reshape(T, d_model) @ W_O
'''}, {"mistake": "Rewritten as batched heads with the scale built once per dtype and cached in a module "
                  "dict: the cache is keyed on the dtype, not the head width, so every later call of that "
                  "dtype reuses the FIRST call's 1/sqrt(d_k), and any other d_model // n_heads is scaled "
                  "wrongly (the first call, and calls with the same head width, are right).",
           "where": ["q8"]}),
}
