"""Seventy-third blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`;
q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the
2-D `attention`; the notebook has no masks), `tests/heldout/harness.py`, blind71.py for the format, and only
the variant NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: DEFENSIVE, VALIDATING, INPUT-NORMALISING CODE, where the checking or normalising layer
itself is wrong for a valid input the student's own example never tried. In q1: a shape assert
`Q.shape == K.shape` (rejects T_q != T_k), a layout guard that transposes K whenever K.shape[0] equals the
query width (a square K with T_k == d_k is flipped; q8 hits it when T equals the head width), a "stale d_k"
guard that replaces the given d_k by the query width, a finiteness check by `torch.stack((Q, K, V))` inside a
`try` whose `except RuntimeError` fallback divides by d_k (taken exactly when the shapes differ), an
unsqueeze(0) for batching undone by a bare `.squeeze()` (drops real size-1 axes: T_q = 1, T_k = 1, d_v = 1),
and a dtype whitelist copied from a fused half-precision kernel that leaves out float64; in q2: the scale
taken as `math.isqrt(d_k)` "exact for integers" (wrong for every non-square d_k); in q4: a 1-D row unsqueezed
and the result bare-squeezed (shape (1, T) gives a 0-d entropy), and an assert that admits only 1-D or 2-D
logits (rejects (..., T) batches); q5 'B' from a probe that measured the std "to be safe"; q6 'D' from a probe
whose inputs were normalised to a tiny norm (uniform weights); q7 'C' from a probe where d_k was filled in as
1 "as a safe default" (saturated softmax); in q8: an assert that the head width is even (copied from rotary
code; rejects odd head widths), and a batch axis added for 2-D X removed by a bare `.squeeze()` (T = 1 loses
its token axis). Spread: q1 x6, q2 x1, q4 x2, q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown
answer). The correct variants are defensive too and right everywhere: asserts that check only what the
formula needs (2-D, equal query/key width, one value row per key) with `torch.as_tensor` that keeps the dtype
and `.contiguous()`; a batch axis added by unsqueeze(0) and removed by squeeze(0) only; q2 arguments cast by
`int()` with a type check on the generator and `math.sqrt`; an entropy that flattens (..., T) to rows,
converts only integer input, uses log_softmax with a `where` guard and reshapes back to logits.shape[:-1];
multi-head attention with weight-shape asserts and a single-token shortcut `(X @ W_V) @ W_O` (one key:
every weight is exactly 1).

Public material used (nothing copied verbatim): pytorch/pytorch issue #142852 (deprecating `squeeze()` with
no dim: "the cause of many subtle bugs" when a batch or other axis has size 1); galsang/BiDAF-pytorch PR #26,
NVIDIA/tacotron2 PR #303, TRI-ML/KP2D PR #14 and NVIDIA/DeepLearningExamples PR #765 (bare `.squeeze()` drops
the batch axis at batch size 1; fixed by `.squeeze(dim)`); Dao-AILab/flash-attention issues #9 and #44
(`assert qkv.dtype == torch.float16`, later widened to bf16) and unslothai/unsloth issue #827 ("FlashAttention
only support fp16 and bf16 data type"): dtype whitelists in attention code that reject valid dtypes.

How the variants were checked: /tmp/w73-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared every function with plain torch: `attention` against a float64
`softmax(Q K^T / sqrt(d_k)) V` (itself checked against `F.scaled_dot_product_attention`) on (T_q, T_k, d_k,
d_v) including T_q != T_k, d_v != d_k, T_q = 1, T_k = 1, d_v = 1, T_k == d_k and a d_k argument different from
the query width, in float64 and float32, each call checked for changed inputs and repeated;
`dot_product_variance` at d_k in {1, 3, 5, 7, 9, 16, 64}, scaled and not, within 10%, a float, reproducible;
`softmax_entropy` against a log_softmax entropy on shapes (7,), (3, 5), (2, 3, 7), (4, 1), (1, 5), (2, 1, 7),
(2, 3, 4, 5) and saturated rows; `entropy_table` against the spec; the letters against C / A / D;
`multi_head_attention` against a head loop and `torch.nn.MultiheadAttention` (no biases, transposed weights)
in float64 and float32 with T = 1, odd and width-1 heads. The correct q1 variants were also run backward and
in float16 (dtype kept). The correct variants agree everywhere; each wrong one differs only in its "where"."""

CORRECT = {
    "q1_validated_shapes_dtype_kept_contiguous": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # Accept lists / numpy too, but never change the dtype of a tensor we were given.
    Q, K, V = (torch.as_tensor(t) for t in (Q, K, V))
    assert Q.dim() == 2 and K.dim() == 2 and V.dim() == 2, "attention expects 2-D Q, K, V"
    assert Q.shape[1] == K.shape[1], f"queries and keys must have the same width, got {Q.shape} {K.shape}"
    assert K.shape[0] == V.shape[0], f"one value row per key, got {K.shape} {V.shape}"
    assert d_k > 0, "d_k must be positive"
    Q, K, V = Q.contiguous(), K.contiguous(), V.contiguous()
    scores = Q @ K.transpose(0, 1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''},

    "q1_batch_axis_added_and_removed_by_dim_zero_only": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # Work on a batch axis internally so the same code also takes (B, T, d) inputs.
    unbatched = Q.dim() == 2
    if unbatched:
        Q, K, V = Q.unsqueeze(0), K.unsqueeze(0), V.unsqueeze(0)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    out = torch.matmul(weights, V)
    if unbatched:                      # remove exactly the axis we added, nothing else
        out, weights = out.squeeze(0), weights.squeeze(0)
    return out, weights
'''},

    "q2_arguments_normalised_and_generator_checked": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    d_k, n_samples = int(d_k), int(n_samples)
    if d_k < 1 or n_samples < 2:
        raise ValueError("need d_k >= 1 and at least two samples for a sample variance")
    if not isinstance(generator, torch.Generator):
        raise TypeError("pass a torch.Generator so the result is reproducible")
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(dots.var().item())
'''},

    "q4_entropy_flattened_to_rows_and_reshaped_back": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logits = torch.as_tensor(logits)
    if not torch.is_floating_point(logits):
        logits = logits.to(torch.get_default_dtype())   # only integer input is converted
    lead = logits.shape[:-1]
    rows = logits.reshape(-1, logits.shape[-1])          # (N, T) whatever the leading shape
    log_p = F.log_softmax(rows, dim=-1)
    p = log_p.exp()
    H = -torch.where(p > 0, p * log_p, torch.zeros_like(p)).sum(dim=-1)
    return H.reshape(lead)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        d = int(d)
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''},

    "q8_validated_inputs_single_token_shortcut": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    assert X.dim() == 2, "X must be (T, d_model)"
    T, d_model = X.shape
    for W in (W_Q, W_K, W_V, W_O):
        assert W.shape == (d_model, d_model), f"weights must be ({d_model}, {d_model}), got {tuple(W.shape)}"
    assert n_heads >= 1 and d_model % n_heads == 0, "d_model must be divisible by n_heads"
    if T == 1:
        # One token: every head's softmax is over a single key, so its weight is exactly 1 and each
        # head returns its value slice; side by side these are X @ W_V.
        return (X @ W_V) @ W_O
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''},
}

WRONG = {
    "q1_assert_queries_and_keys_same_shape_rejects_t_q_ne_t_k": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # Sanity checks first, so a bad call fails loudly instead of giving garbage.
    assert Q.dim() == 2 and K.dim() == 2 and V.dim() == 2, "2-D inputs only"
    assert Q.shape == K.shape, f"Q and K must match, got {tuple(Q.shape)} and {tuple(K.shape)}"
    assert K.shape[0] == V.shape[0], "one value per key"
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The shape check asserts `Q.shape == K.shape`, but queries and keys only need the same width: "
                  "any valid call with T_q != T_k (cross-attention, a single query against many keys) raises "
                  "AssertionError instead of returning the output and weights.",
       "where": ["q1"]}),

    "q1_keys_transposed_back_when_length_equals_width": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # Some code passes K already transposed, as (d_k, T_k): accept that layout too.
    if K.shape[0] == Q.shape[1]:
        K = K.T
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The layout guard takes K for an already transposed (d_k, T_k) matrix whenever K.shape[0] equals "
                  "the query width; a normal K with T_k == d_k (square) is then transposed, so the scores are "
                  "Q K instead of Q K^T and the weights and output are wrong (and other shapes with T_k == d_k "
                  "break). Multi-head attention hits it whenever T equals the head width.",
       "where": ["q1", "q8"]}),

    "q1_d_k_replaced_by_query_width_when_they_disagree": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # Guard against a stale d_k from the caller: the real width is the one of the queries.
    if d_k != Q.shape[-1]:
        d_k = Q.shape[-1]
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The 'stale d_k' guard silently replaces the d_k argument by the query width whenever they "
                  "differ, so the scale is 1/sqrt(Q.shape[-1]) instead of 1/sqrt(d_k) the caller gave: the "
                  "weights and output are wrong for every call whose d_k is not the query width.",
       "where": ["q1"]}),

    "q1_stack_check_error_falls_back_to_divide_by_d_k": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    try:
        # Refuse NaN / inf inputs in one go.
        if not torch.isfinite(torch.stack((Q, K, V))).all():
            raise ValueError("non-finite input")
        scores = Q @ K.T / math.sqrt(d_k)
    except RuntimeError:
        # Fallback path (the version from my first draft).
        scores = Q @ K.T / d_k
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The finiteness check stacks Q, K and V, which raises RuntimeError as soon as their shapes "
                  "differ (T_q != T_k or d_v != d_k); the bare `except RuntimeError` hides that and falls back "
                  "to an old formula dividing the scores by d_k instead of sqrt(d_k), so exactly those calls "
                  "get too-flat weights and a wrong output, while same-shape calls are right.",
       "where": ["q1"]}),

    "q1_batch_axis_added_then_squeezed_without_dim": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # Always work batched, so (B, T, d) inputs also work; remove the batch axis at the end.
    if Q.dim() == 2:
        Q, K, V = Q.unsqueeze(0), K.unsqueeze(0), V.unsqueeze(0)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    out = torch.matmul(weights, V)
    return out.squeeze(), weights.squeeze()
'''}, {"mistake": "The batch axis added with unsqueeze(0) is removed with a bare `.squeeze()`, which also removes "
                  "every real axis of size 1: a single query (T_q = 1), a single key (T_k = 1) or d_v = 1 gives "
                  "an output/weights of the wrong shape (e.g. (d_v,) instead of (1, d_v)); multi-head "
                  "attention with one token or width-1 heads then breaks.",
       "where": ["q1", "q8"]}),

    "q1_dtype_whitelist_from_flash_kernel_omits_float64": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # Dtype check as in the fused attention kernels: fail early on an unsupported dtype.
    SUPPORTED = (torch.float16, torch.bfloat16, torch.float32)
    for name, t in (("Q", Q), ("K", K), ("V", V)):
        assert t.dtype in SUPPORTED, f"{name} has unsupported dtype {t.dtype}"
    assert Q.dtype == K.dtype == V.dtype, "Q, K, V must share a dtype"
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The dtype whitelist (copied from a fused half-precision kernel's checks and widened to "
                  "float32) leaves out float64, so every float64 call raises AssertionError although the "
                  "notebook requires float64 inputs to work and keep their dtype; multi-head attention in "
                  "float64 fails the same way.",
       "where": ["q1", "q8"]}),

    "q2_scale_from_math_isqrt_floors_non_square_d_k": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    d_k, n_samples = int(d_k), int(n_samples)
    assert d_k >= 1 and n_samples >= 2
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        # Integer square root: exact for integer d_k, no float rounding.
        dots = dots / math.isqrt(d_k)
    return float(dots.var().item())
'''}, {"mistake": "The scale uses `math.isqrt(d_k)`, the integer square root rounded down, which equals sqrt(d_k) "
                  "only for perfect squares: for d_k = 2, 3, 5, 8, ... the scaled variance is d_k / isqrt(d_k)^2 "
                  "(3 for d_k = 3, 1.25 for d_k = 5) instead of about 1. The unscaled variance is right.",
       "where": ["q2"]}),

    "q4_entropy_unsqueezed_then_bare_squeezed_loses_single_row_axis": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # Always work on (rows, T): a single row becomes one row of a batch.
    if logits.dim() == 1:
        logits = logits.unsqueeze(0)
    log_p = F.log_softmax(logits, dim=-1)
    H = -(log_p.exp() * log_p).sum(dim=-1)
    return H.squeeze()


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
'''}, {"mistake": "The row axis added for 1-D input is taken off with a bare `.squeeze()`, which also removes real "
                  "leading axes of size 1: logits of shape (1, T) give a 0-d entropy instead of shape (1,), "
                  "and (2, 1, T) gives (2,) instead of (2, 1). Values are right; the shape is not logits.shape[:-1].",
       "where": ["q4"]}),

    "q4_entropy_assert_rejects_more_than_two_dims": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    assert logits.dim() in (1, 2), f"expected a row (T,) or a batch of rows (N, T), got {tuple(logits.shape)}"
    assert logits.is_floating_point(), "logits must be floating point"
    log_p = F.log_softmax(logits, dim=-1)
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
'''}, {"mistake": "The input check only admits 1-D or 2-D logits, but the function must take any (..., T): a "
                  "3-D or 4-D batch of rows (e.g. (B, T_q, T_k) attention scores) raises AssertionError instead "
                  "of giving the (B, T_q) entropies.",
       "where": ["q4"]}),

    "q5_answer_b_from_probe_that_used_std_as_the_safer_spread": ({"q5_answer": '''
# Probe: I used dots.std() rather than dots.var() (the std stays small, no overflow for big d_k):
# for d_k = 4, 16, 64 it came out about 2, 4, 8, i.e. sqrt(d_k).
q5_answer = "B"
'''}, {"mistake": "Answers B (sqrt(d_k)) from a probe that measured the standard deviation 'to be safe' instead "
                  "of the variance; the std is sqrt(d_k) but the variance asked for is d_k (C).",
       "where": ["q5"]}),

    "q6_answer_d_from_probe_with_inputs_normalised_to_tiny_norm": ({"q6_answer": '''
# Probe: to keep the softmax stable I normalised X first, X = X / (X.norm() * 1e3), then ran
# attention(X, X, X, d) and every output row came out equal to X.mean(0): the plain mean.
q6_answer = "D"
'''}, {"mistake": "Answers D (plain unweighted mean) from a probe whose inputs were normalised to a tiny norm, "
                  "so all scores are about 0 and the weights uniform; in general the i-th output is the "
                  "softmax(X_i . X_j / sqrt(d_k))-weighted average of the rows of X (A).",
       "where": ["q6"]}),

    "q7_answer_c_from_probe_called_with_filled_in_d_k_one": ({"q7_answer": '''
# Probe: attention(q, K, V, d_k=1) with q, K of width 512 (I filled in d_k=1 as the safe default)
# gave weights like [0., 1., 0., 0.]: only the best key's value comes back, an argmax.
q7_answer = "C"
'''}, {"mistake": "Answers C (an argmax with no useful gradient) from a probe run with d_k filled in as 1 for "
                  "512-wide vectors, so the unscaled scores saturate the softmax; properly scaled attention "
                  "returns a softmax-weighted mix of all values, a soft differentiable lookup (D).",
       "where": ["q7"]}),

    "q8_assert_even_head_width_rejects_odd_slices": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
    d_k = d_model // n_heads
    assert d_k % 2 == 0, f"head width must be even, got {d_k}"
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "An extra check (copied from rotary-embedding code) asserts the head width d_model // n_heads is "
                  "even; any valid call with an odd head width (d_model = 12 with 4 heads, 6 with 2 heads, "
                  "n_heads = d_model) raises AssertionError instead of returning (T, d_model).",
       "where": ["q8"]}),

    "q8_batch_axis_added_then_bare_squeeze_drops_single_token": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    # Work batched internally: (B, T, d_model); a 2-D X gets a batch axis of 1.
    if X.dim() == 2:
        X = X.unsqueeze(0)
    B, T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for b in range(B):
        heads = []
        for h in range(n_heads):
            cols = slice(h * d_k, (h + 1) * d_k)
            out_h, _ = attention(Q[b][:, cols], K[b][:, cols], V[b][:, cols], d_k)
            heads.append(out_h)
        outs.append(torch.cat(heads, dim=1) @ W_O)
    return torch.stack(outs).squeeze()
'''}, {"mistake": "The batch axis added for 2-D X is removed with a bare `.squeeze()`, which also drops the token "
                  "axis when T = 1: a single-token input returns shape (d_model,) instead of (1, d_model). "
                  "Every other shape is right.",
       "where": ["q8"]}),
}
