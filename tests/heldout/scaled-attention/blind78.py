"""Seventy-eighth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb`, the question text of
`assignments/scaled-attention/scaled-attention.ipynb`, `tests/heldout/harness.py`, blind77.py for the format,
and only the variant NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: DEVICE-, DTYPE- AND GLOBAL-STATE-AWARE CODE, written by a student used to GPU training. In
q1: the softmax asked for `dtype=torch.float32` ("stable softmax, as with AMP") and V moved with `.to(weights)`,
which silently changes float64 to float32 (and breaks q8 in float64); the score matmul under `torch.autocast("cpu", dtype=torch.bfloat16)`
(float32 scores rounded to bfloat16, weights off); the weights sent through `.detach().cpu().numpy().round(4)` for a tidy
printout and brought back with `torch.from_numpy` (rounded weights, no gradient). In q2: the generator re-seeded
with its own `initial_seed()` before each draw "for reproducibility" (q == k, so the dots are |q|^2 with variance
2 d_k); the generator argument ignored in favour of the global RNG on a `cuda if available` device (two equally
seeded generators give different numbers); the variance returned as a 0-d tensor "to avoid a device sync" instead
of `.item()`. In q4: the entropy computed in float64 and not cast back (dtype changes); the 1e-9 guard built as a
float16 tensor, where it underflows to 0 (fully saturated rows give NaN); the table's scores computed in half
precision "as on the GPU" and cast back (stds and entropies off). q5 'B' (the std printed with `.std().item()`
taken for the variance), q6 'B' (the diagonal of half-precision weights printed rounded reads 1.0), q7 'C' (the
weights printed after `.numpy().round()` look one-hot). In q8: the result cast with `.float()` for downstream
code (float64 in, float32 out) and every head run in half precision and cast back (rounded, and sometimes tripping attention's row-sum assertion). Spread: q1 x3, q2 x3, q4 x3,
q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown answer). The correct variants are device- and
dtype-aware the right way: constants and scales made with the input's dtype and device, the caller's generator
used for every draw (on its own device), `torch.finfo` of the tensor actually checked, no global state changed
beyond the `torch.manual_seed` the spec asks for.

Public material used (nothing copied verbatim): the `torch.Tensor.to` documentation (`to(other)` returns a tensor
with the same dtype AND device as `other`); pytorch/pytorch issue #99012 ("Float32 attention mask not working with
torch.autocast('cpu')": under CPU autocast the attention inputs become bfloat16) and PR #111558 / issue #111276
(CPU autocast runs attention in bfloat16); tinygrad/tinygrad PR #12280 (softmax run in float32 vs bfloat16 gives
substantially different attention output); the PTC Mathcad "Seed for random number generation" example (re-setting
the seed inside a loop repeats the same draws each time). The other kinds (1e-9 underflowing in float16, `.item()`
vs a 0-d tensor, `.detach().cpu().numpy()` round trips losing the gradient) follow PyTorch's documented semantics.

How the variants were checked: /tmp/w78-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared: `attention` with `F.scaled_dot_product_attention` on (3,4)x(5,4)x(5,6) shapes and
T_q = 1 in float64 and float32, dtype kept (the correct one also in float16, within 1e-3); `dot_product_variance` at d_k = 4, 64, scaled and
not, within 10%, a Python float, equal for equally seeded generators; `softmax_entropy` against a log_softmax
entropy on (7,), (3, 5), (2, 3, 7) and a saturated row, dtype kept; `entropy_table` against the spec written out;
the letters against C / A / D; `multi_head_attention` against a head loop with F.scaled_dot_product_attention in
float64 and float32. The correct variants agree everywhere; each wrong one differs, and only in its "where"."""

CORRECT = {
    "q1_scale_and_tolerance_from_input_dtype_and_device": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    assert Q.device == K.device == V.device, "Q, K, V must live on one device"
    scale = 1.0 / math.sqrt(d_k)                      # a Python float keeps the input's dtype
    scores = (Q @ K.transpose(-2, -1)) * scale
    weights = torch.softmax(scores, dim=-1)
    tol = max(1e-5, 10 * torch.finfo(weights.dtype).eps)   # finfo of the tensor being checked
    assert (weights.sum(-1) - 1).abs().max().item() < tol
    out = weights @ V
    return out, weights
'''},
    "q2_callers_generator_on_its_own_device_vecdot": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    device = generator.device                       # draw where the caller's generator lives
    q = torch.randn(n_samples, d_k, generator=generator, device=device)
    k = torch.randn(n_samples, d_k, generator=generator, device=device)
    dots = torch.linalg.vecdot(q, k)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(dots.var().cpu().item())
'''},
    "q4_log_softmax_dtype_kept_table_explicit_float32": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)           # same dtype and device as logits
    p = log_p.exp()
    return -(p * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d, dtype=torch.float32)
        k = torch.randn(5, d, dtype=torch.float32)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''},
    "q8_weights_checked_against_input_device_and_dtype": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    for W in (W_Q, W_K, W_V, W_O):
        assert W.device == X.device and W.dtype == X.dtype, "weights must match the input"
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O
'''},
}

WRONG = {
    "q1_softmax_dtype_float32_values_moved_with_to_weights": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1, dtype=torch.float32)   # stable softmax, as with AMP
    out = weights @ V.to(weights)                               # same device and dtype as the weights
    return out, weights
'''}, {"mistake": "The softmax is asked for dtype=torch.float32 and V is moved with `.to(weights)`, which changes "
                  "its dtype as well as its device: float64 inputs give float32 weights and output (and lose "
                  "precision); q8 reuses the helper, and there the float32 heads meet the float64 W_O, so a float64 call raises a dtype-mismatch error.",
       "where": ["q1", "q8"]}),

    "q1_score_matmul_under_cpu_autocast_bfloat16": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    device_type = "cuda" if Q.is_cuda else "cpu"
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):   # mixed precision for speed
        scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores.to(V.dtype), dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The score matmul runs under CPU autocast in bfloat16 and is only cast back afterwards: the "
                  "float32 scores carry bfloat16 rounding (about 3 significant digits), so float32 weights and "
                  "output are off (by ~1e-3 to 1e-2 on ordinary inputs; float64 is not autocast on CPU and stays "
                  "right); q8 calls it, so its float32 result is off too.",
       "where": ["q1", "q8"]}),

    "q1_weights_rounded_through_numpy_for_printing": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    # keep a tidy copy for printing and reuse it (back on the input's device)
    weights = torch.from_numpy(weights.detach().cpu().numpy().round(4)).to(Q.device)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The weights go through `.detach().cpu().numpy().round(4)` for a tidy printout and that rounded "
                  "copy is returned and used for the output: weights are rounded to 4 decimals (rows no longer "
                  "sum to 1 exactly, output off by up to ~1e-4) and no gradient reaches Q or K; q8 reuses it.",
       "where": ["q1", "q8"]}),

    "q2_generator_reseeded_before_each_draw_q_equals_k": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    seed = generator.initial_seed()
    generator.manual_seed(seed)                          # reproducible draws
    q = torch.randn(n_samples, d_k, generator=generator)
    generator.manual_seed(seed)                          # reproducible draws
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The generator is re-seeded with its own initial seed before each draw 'for reproducibility', "
                  "so k is an exact copy of q: the dots are |q|^2 with variance about 2 d_k (about 2 when "
                  "scaled), not d_k and 1.",
       "where": ["q2"]}),

    "q2_global_rng_on_auto_device_generator_ignored": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    q = torch.randn(n_samples, d_k, device=device)
    k = torch.randn(n_samples, d_k, device=device)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The draws are made on a `cuda if available` device from the global RNG and the `generator` "
                  "argument is never used: two calls with equally seeded generators give different numbers, and "
                  "the generator's state never advances.",
       "where": ["q2"]}),

    "q2_variance_returned_as_tensor_to_avoid_sync": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator, device=generator.device)
    k = torch.randn(n_samples, d_k, generator=generator, device=generator.device)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var()          # no .item(): keeps it on the device, no host sync
'''}, {"mistake": "The variance is returned as a 0-d tensor (no `.item()`, 'to avoid a device sync') instead of "
                  "the Python float asked for; the value itself is right.",
       "where": ["q2"]}),

    "q4_entropy_in_float64_not_cast_back": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits.to(torch.float64), dim=-1)   # accumulate in double for accuracy
    return -(log_p.exp() * log_p).sum(dim=-1)


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
'''}, {"mistake": "The entropy is computed in float64 'for accuracy' and never cast back: float32 (or float16) "
                  "logits give a float64 result instead of one in the logits' dtype (the values are right).",
       "where": ["q4"]}),

    "q4_eps_guard_built_in_float16_underflows_to_zero": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    eps = torch.tensor(1e-9, dtype=torch.float16, device=logits.device)   # small, cheap constant
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + eps)).sum(dim=-1)


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
'''}, {"mistake": "The 1e-9 guard is built as a float16 tensor, where 1e-9 underflows to exactly 0: the guard adds "
                  "nothing, so fully saturated rows (all but one probability exactly 0) give 0 * log 0 = NaN instead of 0 "
                  "(the lesson's table, whose rows are not fully saturated in float32, comes out right).",
       "where": ["q4"]}),

    "q4_table_scores_in_half_precision_cast_back": ({"softmax_entropy": '''
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
        raw = (q.half() @ k.half().T)[0].float()        # half precision, as on the GPU
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The table's scores are computed from float16 copies of q and k and cast back: the raw scores "
                  "carry half-precision rounding, so the stds and entropies in the table differ from the float32 "
                  "experiment (by ~1e-4 to 4e-3, e.g. raw_std at d = 256 off by about 0.0036) (softmax_entropy itself is right).",
       "where": ["q4"]}),

    "q5_answer_b_from_printed_std_item": ({"q5_answer": '''
# print(torch.stack([q @ k for q, k in pairs]).std().item()) gave about 8 for d_k = 64, i.e. sqrt(d_k)
q5_answer = "B"
'''}, {"mistake": "Chooses B (sqrt(d_k)): the number printed with `.std().item()` is the standard deviation, "
                  "taken for the variance; the variance is d_k (C).",
       "where": ["q5"]}),

    "q6_answer_b_from_rounded_half_precision_diagonal": ({"q6_answer": '''
# with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16): _, W = attention(X, X, X, X.shape[1])
# print(W.float().numpy().round(2))  -> the diagonal prints 1.0, so each token attends to itself
q6_answer = "B"
'''}, {"mistake": "Chooses B (each token attends only to itself), read off a half-precision weight matrix printed "
                  "rounded to 2 decimals where the diagonal shows 1.0; the output row is a softmax-weighted "
                  "average of all rows (A).",
       "where": ["q6"]}),

    "q7_answer_c_from_weights_rounded_in_numpy_printout": ({"q7_answer": '''
# W.detach().cpu().numpy().round() printed one 1 per row and 0 elsewhere: attention picks the best key
q7_answer = "C"
'''}, {"mistake": "Chooses C (an argmax over keys with no useful gradient), read off weights printed after "
                  "`.numpy().round()` which look one-hot; attention is a soft, differentiable weighted mix (D).",
       "where": ["q7"]}),

    "q8_result_cast_with_float_for_downstream": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return (torch.cat(heads, dim=1) @ W_O).float()     # downstream layers expect float
'''}, {"mistake": "The result is cast with `.float()` 'for downstream layers': float64 inputs give a float32 "
                  "result (rounded), float32 inputs are unaffected.",
       "where": ["q8"]}),

    "q8_heads_run_in_half_precision_cast_back": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols].half(), K[:, cols].half(), V[:, cols].half(), d_k)  # fp16 heads
        heads.append(out_h.to(X.dtype))
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Every head's attention runs on float16 copies of its Q, K, V and is cast back to the input's "
                  "dtype: the dtype is right but the heads carry half-precision rounding (errors around 1e-3), "
                  "so the result differs from the float32/float64 computation, and on some inputs the float16 weights "
                  "trip attention's own 1e-5 row-sum assertion, so the call raises.",
       "where": ["q8"]}),
}
