"""Seventy-first blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`;
q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the
2-D `attention`), `tests/heldout/harness.py`, blind70.py for the format, and only the variant NAMES of the
earlier blind*.py sets. The grader was not run on this set.

Focus of the round: MEMORY- AND SPEED-CONSCIOUS CODE, written as if every tensor were huge: in-place
operations, preallocated and reused buffers, `out=` arguments, work in chunks, caches of things that look
constant, half precision "to halve memory". In q1: the caller's queries scaled in place with `Q.div_` (the
caller's tensor is changed), the softmax taken in float16 and cast back (weights off by ~1e-3 in float32 and
float64), the scale cached in a mutable default argument on the first call (right for the first d_k only),
queries processed in chunks of 4 with `range(0, T_q - chunk + 1, chunk)` (the last partial chunk is never
written and stays zero), and an output buffer cached by shape and filled with `addmm_` without `beta=0` (each
call adds onto the previous one, and the returned tensor is the shared buffer); in q2: the products written
chunk by chunk into a zero buffer with the last partial chunk dropped (about 18% zeros at n = 10000: the
variance shrinks), and q and k drawn with `torch.randn(..., out=buf)` into one reused buffer (q and k are
the same tensor: the "dot products" are squared norms, variance 2 d_k); in q4: the log taken in place on the
probabilities (`p.clamp_(...).log_()` makes p and log p one tensor: the entropy becomes -sum (ln p)^2), and the
table's row dict allocated once and updated in place (every row is the last d); q5 'A' (a variance probe
run with a `scaled=True` left in), q6 'B' (a saturated probe `X = 10 * eye` where each row takes itself), q7 'C'
("memory-efficient/top-1 attention keeps only the best key"); in q8: query rows processed in chunks whose slice
end is the "inclusive" `min(s + chunk, T) - 1` (the last row of each chunk is never computed), and the three
projections cached in a global keyed by the input's shape (a later call with a new X of the same shape reuses
the old projections). Spread: q1 x5, q2 x2, q4 x2, q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown
answer). The correct variants are memory-conscious too and right everywhere: a softmax done in place on the
function's own score tensor (the shift detached, the last division out of place so autograd still
works), attention over query chunks with the remainder kept into fully written `new_empty` buffers, dot
products drawn chunk by chunk into a buffer every entry of which is written, an entropy from its own
`log_softmax` tensor with the final negation in place and fresh row dicts, and multi-head attention
writing every head into a `new_empty` concat buffer.

Public material used (nothing copied verbatim): vllm-project/vllm issue #940 and pytorch/pytorch issue #24263
(`torch.empty` returns uninitialised memory; buffers must be filled before they are read); pytorch/executorch
PR #6478 (torch.empty replaced by torch.zeros for the same reason); fla-org/flash-linear-attention PR #1143
("Handle a partial last chunk": a fixed chunk size and a sequence length that is not a multiple of it);
idiap/fast-transformers PR #10 and AggMan96/RK-Net issue #9 (in-place updates in attention code that change a
tensor someone else still holds; `.clone()` as the fix); the PyTorch docs on `addmm` (`beta` scales the
tensor being added to, default 1) and on `out=` arguments.

How the variants were checked: /tmp/w71-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared every function with plain torch: `attention` against a float64
`softmax(Q K^T / sqrt(d_k)) V` and `F.scaled_dot_product_attention` on several (T_q, T_k, d_k, d_v) with
T_q != T_k and d_v != d_k in float64, float32 and float16 (loosely), each call checked for changed inputs and
repeated with the same shapes; `dot_product_variance` at several d_k and n_samples, scaled and not, within
10%, float, reproducible with equal seeds; `softmax_entropy` against a log_softmax entropy on 1-D, 2-D, 3-D
and saturated rows (and its input left unchanged); `entropy_table` against the spec; the letters against C / A
/ D; `multi_head_attention` against a head loop and `torch.nn.MultiheadAttention` (no biases, transposed
weights) in float64 and float32, twice per shape with fresh inputs; the correct variants were also run
backward with inputs that require grad. The correct variants agree everywhere;
each wrong one differs only in its "where"."""

CORRECT = {
    "q1_softmax_in_place_on_own_score_buffer": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # One (T_q, T_k) buffer, owned by this function: the steps below work in place on it.
    scores = torch.matmul(Q, K.transpose(0, 1))       # new tensor, not a view of Q or K
    scores.div_(math.sqrt(d_k))
    scores.sub_(scores.detach().amax(dim=-1, keepdim=True))   # a constant shift: no gradient needed
    scores.exp_()
    # Last step out of place: autograd keeps exp_'s result for the backward pass.
    weights = scores / scores.sum(dim=-1, keepdim=True)
    out = torch.matmul(weights, V)
    return out, weights
'''},

    "q1_query_chunks_remainder_kept_into_filled_buffers": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention, a few query rows at a time (the (T_q, T_k) scores never exist whole)."""
    T_q, T_k, d_v = Q.shape[0], K.shape[0], V.shape[1]
    chunk = 2
    scale = 1.0 / math.sqrt(d_k)
    out = Q.new_empty(T_q, d_v)          # every row is written below, so empty is safe
    weights = Q.new_empty(T_q, T_k)
    Kt = K.t()
    for start in range(0, T_q, chunk):   # the last, partial chunk is included
        stop = min(start + chunk, T_q)
        w = F.softmax(torch.matmul(Q[start:stop], Kt) * scale, dim=-1)
        weights[start:stop] = w
        out[start:stop] = w @ V
    return out, weights
'''},

    "q2_chunked_draws_into_fully_written_buffer": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    chunk = 4096                          # never hold more than chunk x d_k numbers per draw
    dots = torch.empty(n_samples)
    for start in range(0, n_samples, chunk):
        stop = min(start + chunk, n_samples)
        q = torch.randn(stop - start, d_k, generator=generator)
        k = torch.randn(stop - start, d_k, generator=generator)
        q.mul_(k)                          # q is ours: reuse it for the products
        torch.sum(q, dim=1, out=dots[start:stop])
        del q, k
    if scaled:
        dots.div_(math.sqrt(d_k))
    return dots.var().item()
'''},

    "q4_entropy_in_place_on_own_log_softmax_fresh_rows": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)     # a new tensor: logits is left alone
    p = log_p.exp()                            # 0 * finite log_p = 0 on saturated rows
    return (p * log_p).sum(dim=-1).neg_()      # negate the (...)-shaped result in place


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
        del q, k, raw, scaled
    return results
'''},

    "q8_heads_written_into_new_empty_concat_buffer": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = X.new_empty(T, d_model)      # each head fills its own columns: nothing is left unwritten
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        concat[:, cols] = out_h
        del out_h
    return concat @ W_O
'''},
}

WRONG = {
    "q1_queries_divided_in_place_changes_callers_tensor": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # Scale the (T_q, d_k) queries instead of the (T_q, T_k) scores: fewer numbers, and in place
    # so no copy of Q is made.
    Q.div_(math.sqrt(d_k))
    scores = Q @ K.T
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The queries are scaled in place with `Q.div_(sqrt(d_k))`, which changes the caller's Q: the "
                  "returned output and weights are right for this call, but the caller's tensor is now divided "
                  "by sqrt(d_k), so anything computed from Q afterwards (a reference, a second call on the same "
                  "Q) is wrong and calling twice scales the queries twice.",
       "where": ["q1"]}),

    "q1_softmax_in_float16_to_halve_memory": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    # The (T_q, T_k) weights are the biggest tensor here: keep them in half precision, then cast
    # back to the input dtype.
    weights = F.softmax(scores.half(), dim=-1).to(Q.dtype)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The softmax is computed in float16 'to halve memory' and cast back: for float32 and float64 "
                  "inputs the weights (and the output) carry float16 rounding, errors around 1e-4..1e-3, far "
                  "outside the tolerance of a float32/float64 comparison; multi-head attention inherits it.",
       "where": ["q1", "q8"]}),

    "q1_scale_cached_in_default_argument_from_first_d_k": ({"attention": '''
def attention(Q, K, V, d_k, _scale_cache=[]):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # 1/sqrt(d_k) is a constant: compute it once and keep it between calls.
    if not _scale_cache:
        _scale_cache.append(1.0 / math.sqrt(d_k))
    scale = _scale_cache[0]
    weights = F.softmax((Q @ K.T) * scale, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The scale 1/sqrt(d_k) is cached in a mutable default argument on the first call and reused "
                  "forever: after the notebook's trace (d_k = 4) every call divides by 2 whatever d_k it is "
                  "given, so the weights and output are wrong for any other d_k, including every head in "
                  "multi-head attention whose width is not 4.",
       "where": ["q1", "q8"]}),

    "q1_query_chunks_last_partial_chunk_never_written": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention, computed 4 query rows at a time to bound the size of the scores."""
    T_q, T_k, d_v = Q.shape[0], K.shape[0], V.shape[1]
    chunk = 4
    scale = 1.0 / math.sqrt(d_k)
    out = Q.new_zeros(T_q, d_v)
    weights = Q.new_zeros(T_q, T_k)
    for start in range(0, T_q - chunk + 1, chunk):
        stop = start + chunk
        w = F.softmax(Q[start:stop] @ K.T * scale, dim=-1)
        weights[start:stop] = w
        out[start:stop] = w @ V
    return out, weights
'''}, {"mistake": "The query loop `range(0, T_q - chunk + 1, chunk)` only visits full chunks of 4: the last "
                  "T_q % 4 rows (all rows when T_q < 4) are never computed and stay zero in the preallocated "
                  "buffers, so those output rows are 0 and those weight rows sum to 0 instead of 1; multi-head "
                  "attention inherits the zero rows.",
       "where": ["q1", "q8"]}),

    "q1_output_buffer_cached_by_shape_addmm_without_beta_zero": ({"attention": '''
_OUT_BUFFERS = {}


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    # Reuse one output buffer per shape instead of allocating a new one on every call.
    key = (Q.shape[0], V.shape[1], V.dtype)
    if key not in _OUT_BUFFERS:
        _OUT_BUFFERS[key] = V.new_zeros(Q.shape[0], V.shape[1])
    out = _OUT_BUFFERS[key]
    out.addmm_(weights, V)          # write weights @ V into the buffer
    return out, weights
'''}, {"mistake": "The output goes into a buffer cached per shape with `out.addmm_(weights, V)`, whose default "
                  "`beta=1` adds onto what the buffer holds instead of overwriting it: only the first call of "
                  "each shape is right, later calls return the sum of every earlier output of that shape, and "
                  "every returned output is the same shared tensor (multi-head attention's heads all alias one "
                  "buffer holding a running sum).",
       "where": ["q1", "q8"]}),

    "q2_chunked_products_last_partial_chunk_left_zero": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    chunk = 4096
    dots = torch.zeros(n_samples)
    for start in range(0, n_samples - chunk + 1, chunk):     # full chunks
        q = torch.randn(chunk, d_k, generator=generator)
        k = torch.randn(chunk, d_k, generator=generator)
        dots[start:start + chunk] = (q * k).sum(1)
        del q, k
    if scaled:
        dots.div_(math.sqrt(d_k))
    return dots.var().item()
'''}, {"mistake": "The samples are drawn in chunks of 4096 with `range(0, n_samples - chunk + 1, chunk)`, so the "
                  "last partial chunk is never drawn and its entries stay 0 in the buffer: at n_samples = 10000 "
                  "about 18% of the 'dot products' are zeros and the variance comes out near 0.82 d_k (0.82 "
                  "scaled); with n_samples < 4096 it is 0.",
       "where": ["q2"]}),

    "q2_q_and_k_drawn_into_one_reused_out_buffer": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # One (n_samples, d_k) draw buffer, reused for q and for k instead of allocating twice.
    draw = torch.empty(n_samples, d_k)
    q = torch.randn(n_samples, d_k, generator=generator, out=draw)
    k = torch.randn(n_samples, d_k, generator=generator, out=draw)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "q and k are drawn with `out=` into the same reused buffer, so both names are that buffer and "
                  "hold the second draw: each 'dot product' is the squared norm of one vector (a chi-square with "
                  "d_k degrees of freedom), whose variance is 2 d_k unscaled and 2 scaled.",
       "where": ["q2"]}),

    "q4_log_taken_in_place_on_the_probabilities": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    log_p = p.clamp_(min=1e-12).log_()     # in place: no second (..., T) tensor
    return -(p * log_p).sum(dim=-1)


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
'''}, {"mistake": "The log is taken in place on the probabilities (`p.clamp_(...).log_()`), so `p` and `log_p` "
                  "are the same tensor holding ln p: the function returns -sum (ln p)^2, a negative number, "
                  "instead of -sum p ln p (a saturated row gives about -(27.6)^2 (T-1), not 0), and the table's "
                  "entropies are wrong with it.",
       "where": ["q4"]}),

    "q4_table_row_dict_allocated_once_and_updated": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    row = {}                                # one row object, refilled for each d
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        row.update(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                   H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item())
        results.append(row)
    return results
'''}, {"mistake": "The table's row dict is created once before the loop and updated in place for each d, so "
                  "the list holds the same dict len(dims) times: every row shows the values of the last d "
                  "(with the defaults, four copies of the d = 256 row).",
       "where": ["q4"]}),

    "q5_answer_a_from_probe_run_with_scaled_left_true": ({"q5_answer": '''
# I checked with dot_product_variance(d, 10000, gen, scaled=True) for d = 4, 16, 64 (the keyword was
# still there from the previous cell) and got about 1 every time: the variance does not depend on d_k.
q5_answer = "A"
'''}, {"mistake": "Answers A (variance 1 whatever d_k) from a probe run with scaled=True left in, which measures "
                  "Var(q.k / sqrt(d_k)); the unscaled dot product has variance d_k (C).",
       "where": ["q5"]}),

    "q6_answer_b_from_saturated_identity_probe": ({"q6_answer": '''
# Probe: X = 10 * torch.eye(4); attention(X, X, X, 4)[0] came back as X itself (to 4 decimals),
# so each token attends only to itself.
q6_answer = "B"
'''}, {"mistake": "Answers B (each output row is X_i itself) from a probe whose rows are so large and orthogonal "
                  "that the softmax saturates on the diagonal; in general the i-th row is the softmax-weighted "
                  "average of all rows of X (A).",
       "where": ["q6"]}),

    "q7_answer_c_memory_efficient_attention_keeps_best_key": ({"q7_answer": '''
# Memory-efficient attention never keeps the whole (T_q, T_k) matrix: in the end only the best-scoring
# key matters (softmax is a smooth argmax), so it works like a lookup of the best key.
q7_answer = "C"
'''}, {"mistake": "Answers C (returns only the best-scoring key's value, an argmax with no useful gradient), "
                  "confusing how memory-efficient kernels store the softmax with what it computes; attention "
                  "returns a softmax-weighted mix of all values, a differentiable soft lookup (D).",
       "where": ["q7"]}),

    "q8_query_row_chunks_end_written_as_inclusive_index": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = X.new_zeros(T, d_model)
    chunk = 2                                         # query rows per step, to bound the score size
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)          # columns h*d_k .. (h+1)*d_k - 1
        for start in range(0, T, chunk):
            rows = slice(start, min(start + chunk, T) - 1)   # rows start .. end - 1, like the columns
            out_h, _ = attention(Q[rows, cols], K[:, cols], V[:, cols], d_k)
            concat[rows, cols] = out_h
    return concat @ W_O
'''}, {"mistake": "The query-row chunks are sliced with `slice(start, min(start + chunk, T) - 1)`, writing the "
                  "spec's inclusive 'to ... - 1' into an exclusive Python slice: the last row of every chunk is "
                  "never computed and stays zero in the concat buffer, so those output rows are just 0 @ W_O.",
       "where": ["q8"]}),

    "q8_projections_cached_by_input_shape": ({"multi_head_attention": '''
_PROJ_CACHE = {}


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    # The three projections are the expensive part: compute them once per input shape and reuse.
    key = (tuple(X.shape), n_heads)
    if key not in _PROJ_CACHE:
        _PROJ_CACHE[key] = (X @ W_Q, X @ W_K, X @ W_V)
    Q, K, V = _PROJ_CACHE[key]
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Q, K and V are cached in a global keyed by the input's shape: the first call of a shape is "
                  "right, but any later call with a different X (or different weights, or another dtype) of "
                  "the same shape reuses the stale projections, so its output is computed from the old input.",
       "where": ["q8"]}),
}
