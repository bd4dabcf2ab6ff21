"""Seventieth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`;
q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the
2-D `attention`), `tests/heldout/harness.py`, blind69.py for the format, and only the variant NAMES of the
earlier blind*.py sets. The grader was not run on this set.

Focus of the round: CODE AN AI ASSISTANT WROTE (or a student pasted from one): fluent, typed, documented code
with `torch.einsum`, `F.softmax(..., dtype=...)`, keyword arguments and helpers, each with one confident wrong
detail. In q1: keys "put in the (d_k, T_k) layout of some tutorials" with `.reshape(d_k, -1)` instead of a
transpose (right shape, scrambled scores), a softmax upcast with `dtype=torch.float32` "for stability" and
never cast back (float64 inputs give float32 weights and the `weights @ V` product raises), a log-domain
softmax `scores - torch.logsumexp(scores, dim=-1)` without `keepdim=True` (broadcast over the wrong axis: wrong
values when T_q == T_k, a crash otherwise), and a scale read from `K.size(0)` believing K is stored (d_k, T_k)
(divides by sqrt(T_k), ignoring the given d_k); in q2: the "symmetric" scaling that multiplies both q and k by
`d_k ** -0.5` (the dot product is divided by d_k, variance 1/d_k), and k drawn with `torch.randn_like(q)`, which
takes no generator (the global RNG: not reproducible from the generator); in q4: the entropy in bits with
`torch.log2` ("information-theoretic convention"), the row sum with `keepdim=True` (shape (..., 1) instead of
(...)), and the table's stds with `correction=0` (population std); in q5..q7 answers whose comments sound
right but pick the wrong letter (q5 'B': "the spread is sqrt(d_k)" read as the variance; q6 'B': Cauchy-Schwarz
"the diagonal score wins so each token attends to itself"; q7 'C': "softmax is a smooth argmax, so it returns
the best key"); in q8: `torch.split` given NumPy-style split points `range(d_k, d_model, d_k)` as if they were
section sizes (raises), and a batched helper with an SDPA-style `scale=` multiplier that is given
`math.sqrt(d_k)` (scores multiplied by sqrt(d_k) instead of divided). Spread: q1 x4, q2 x2, q4 x3, q5 x1, q6 x1,
q7 x1, q8 x2 (q3 is a hand-graded markdown answer). The correct variants in the same assistant style: einsum
attention with a softmax computed in `torch.promote_types(dtype, float32)` and cast back; `torch.linalg.vecdot`
dot products with `torch.var(correction=1)`; a `log_softmax` entropy and a table built with a helper; and a
batched multi-head attention (view to (T, h, d_k), transpose to heads first, einsum scores, `reshape` back after
transposing) that never leaves the inputs' dtype.

Public material used (nothing copied verbatim): huggingface/transformers PR #19243 and issue #27341 (softmax
upcast with `dtype=torch.float32` and the `.to(original dtype)` that has to follow); tinygrad/tinygrad PR
#14268 ("fix bug in logsumexp keepdim=True") and hexiangnan/attentional_factorization_machine issue #19
(`keep_dims` deciding which axis a normalisation broadcasts over); labmlai/annotated_deep_learning_paper_
implementations issue #146 and FudanNLP/fastNLP issue #254 (confident attention code with the softmax or the
layout on the wrong axis); the PyTorch docs for `F.scaled_dot_product_attention` (`scale=` is the factor the
scores are multiplied by) and `torch.split` (sizes, unlike `numpy.split`'s indices).

How the variants were checked: /tmp/w70-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared every function with plain torch: `attention` against a float64
`softmax(Q K^T / sqrt(d_k)) V` and `F.scaled_dot_product_attention` on several (T_q, T_k, d_k, d_v) with
T_q != T_k and d_v != d_k in float64, float32 (and float16 loosely); `dot_product_variance` at several d_k,
scaled and not, within 10%, float, reproducible with equal seeds; `softmax_entropy` against a log_softmax
entropy on 1-D, 2-D, 3-D and saturated rows; `entropy_table` against the spec; the letters against C / A / D;
`multi_head_attention` against a head loop and `torch.nn.MultiheadAttention` (no biases, transposed weights)
in float64 and float32. The correct variants agree everywhere; each wrong one differs only in its "where"."""

CORRECT = {
    "q1_einsum_softmax_in_promoted_dtype_cast_back": {"attention": '''
def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, d_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention.

    Args:
        Q: queries, shape (T_q, d_k).
        K: keys, shape (T_k, d_k).
        V: values, shape (T_k, d_v).
        d_k: key width used for the 1/sqrt(d_k) scale.

    Returns:
        (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1.
    """
    scale = 1.0 / math.sqrt(d_k)
    scores = torch.einsum("qd,kd->qk", Q, K) * scale
    # Compute the softmax in at least float32 for numerical stability, then cast back.
    compute_dtype = torch.promote_types(scores.dtype, torch.float32)
    weights = F.softmax(scores, dim=-1, dtype=compute_dtype).to(scores.dtype)
    output = torch.einsum("qk,kv->qv", weights, V)
    return output, weights
'''},
    "q2_linalg_vecdot_var_correction_one": {"dot_product_variance": '''
def dot_product_variance(d_k: int, n_samples: int, generator: torch.Generator, scaled: bool = False) -> float:
    """Sample variance of q.k (or q.k / sqrt(d_k) if ``scaled``) over ``n_samples`` i.i.d. pairs.

    All randomness comes from ``generator`` so results are reproducible.
    """
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.linalg.vecdot(q, k, dim=-1)  # (n_samples,)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return torch.var(dots, correction=1).item()
'''},
    "q4_log_softmax_entropy_table_row_helper": {"softmax_entropy": '''
def softmax_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of softmax(logits) over the last dimension; returns shape logits.shape[:-1].

    Uses log_softmax so saturated rows give 0 instead of NaN (0 * -inf is avoided).
    """
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp()
    return -(p * log_p).sum(dim=-1)


def _entropy_row(d: int, seed: int) -> dict:
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = (q @ k.T)[0]
    scaled = raw / math.sqrt(d)
    return {
        "d": d,
        "raw_std": torch.std(raw).item(),
        "scaled_std": torch.std(scaled).item(),
        "H_raw": softmax_entropy(raw).item(),
        "H_scaled": softmax_entropy(scaled).item(),
    }


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d in ``dims``: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_entropy_row(d, seed) for d in dims]
'''},
    "q8_batched_heads_view_transpose_einsum_reshape": {"multi_head_attention": '''
def multi_head_attention(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                         W_O: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Multi-head attention with right-multiplied weights. X (T, d_model) -> (T, d_model)."""
    T, d_model = X.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    d_k = d_model // n_heads

    def split_heads(x: torch.Tensor) -> torch.Tensor:
        # (T, d_model) -> (n_heads, T, d_k)
        return x.view(T, n_heads, d_k).transpose(0, 1)

    Q, K, V = (split_heads(X @ W) for W in (W_Q, W_K, W_V))
    scores = torch.einsum("htd,hsd->hts", Q, K) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    heads = torch.einsum("hts,hsd->htd", weights, V)          # (n_heads, T, d_k)
    concat = heads.transpose(0, 1).reshape(T, d_model)        # head 0 first
    return concat @ W_O
'''},
    "q5_answer_with_derivation_comment": {"q5_answer": '''
# Var(q.k) = sum_i Var(q_i k_i) = sum_i E[q_i^2] E[k_i^2] = d_k (independent, zero-mean terms)
q5_answer = "C"
'''},
}

WRONG = {
    "q1_keys_reshaped_to_column_layout_not_transposed": ({"attention": '''
def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, d_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention (Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)).

    Returns (output, weights) with weights of shape (T_q, T_k)."""
    # Put the keys in the (d_k, T_k) "column" layout so the scores are a plain matmul.
    K_cols = K.reshape(d_k, -1)
    scores = torch.matmul(Q, K_cols) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    output = torch.matmul(weights, V)
    return output, weights
'''}, {"mistake": "The keys are put in a (d_k, T_k) layout with `K.reshape(d_k, -1)` instead of a transpose: the "
                  "shape is right but the numbers are re-read in memory order, so each 'column' mixes coordinates "
                  "of different keys and the scores, weights and output are wrong (right only when T_k = 1 or "
                  "d_k = 1); multi-head attention, which calls it, inherits the wrong heads.",
       "where": ["q1", "q8"]}),

    "q1_softmax_upcast_to_float32_never_cast_back": ({"attention": '''
def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, d_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention (Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)).

    Returns (output, weights) with weights of shape (T_q, T_k)."""
    scores = torch.einsum("id,jd->ij", Q, K) / math.sqrt(d_k)
    # Softmax in float32 for numerical stability (as in many transformer codebases).
    weights = F.softmax(scores, dim=-1, dtype=torch.float32)
    output = weights @ V
    return output, weights
'''}, {"mistake": "The softmax is computed with `dtype=torch.float32` 'for stability' and never cast back to the "
                  "inputs' dtype: float32 inputs are fine, but float64 inputs give float32 weights, and "
                  "`weights @ V` with a float64 V raises a dtype mismatch (float16 inputs likewise); multi-head "
                  "attention in float64 raises the same way.",
       "where": ["q1", "q8"]}),

    "q1_logsumexp_without_keepdim_broadcasts_over_columns": ({"attention": '''
def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, d_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention computed in the log domain for numerical stability.

    Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v) -> (output (T_q, d_v), weights (T_q, T_k))."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    log_weights = scores - torch.logsumexp(scores, dim=-1)
    weights = log_weights.exp()
    return weights @ V, weights
'''}, {"mistake": "The log-domain softmax subtracts `torch.logsumexp(scores, dim=-1)` without `keepdim=True`: the "
                  "(T_q,) row normalisers broadcast along the last axis, so column j is shifted by row j's "
                  "normaliser; with T_q = T_k the rows do not sum to 1 (wrong weights and output), and with "
                  "T_q != T_k (unless T_q = 1) it raises a size mismatch; in multi-head attention (square per "
                  "head) every head is wrong unless there is a single token.",
       "where": ["q1", "q8"]}),

    "q1_scale_from_key_count_assuming_column_layout": ({"attention": '''
def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, d_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention (Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v))."""
    # Infer the key dimension from K itself so the function cannot be called inconsistently.
    key_dim = K.size(0)
    scores = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(key_dim)
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The scale is read from `K.size(0)`, as if K were stored (d_k, T_k), instead of using the given "
                  "d_k: it divides by sqrt(T_k), so the weights and output are wrong whenever T_k != d_k (the "
                  "lesson's trace has T_k = 3, d_k = 4); multi-head attention, whose heads have T rows and d_k "
                  "columns, is wrong unless T equals the head width or T = 1.",
       "where": ["q1", "q8"]}),

    "q2_rsqrt_scale_applied_to_both_q_and_k": ({"dot_product_variance": '''
def dot_product_variance(d_k: int, n_samples: int, generator: torch.Generator, scaled: bool = False) -> float:
    """Sample variance of q.k (or of the scaled product) over ``n_samples`` i.i.d. Gaussian pairs."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    if scaled:
        # Symmetric scaling: apply the 1/sqrt(d_k) factor to both operands.
        inv_sqrt = d_k ** -0.5
        q, k = q * inv_sqrt, k * inv_sqrt
    dots = torch.einsum("nd,nd->n", q, k)
    return dots.var().item()
'''}, {"mistake": "With scaled=True both q and k are multiplied by 1/sqrt(d_k), so the dot product is divided by "
                  "d_k, not sqrt(d_k): the scaled variance is about 1/d_k instead of 1 (right only for d_k = 1); "
                  "the unscaled variance is right.",
       "where": ["q2"]}),

    "q2_keys_from_randn_like_bypass_generator": ({"dot_product_variance": '''
def dot_product_variance(d_k: int, n_samples: int, generator: torch.Generator, scaled: bool = False) -> float:
    """Sample variance of q.k (or q.k / sqrt(d_k)) over ``n_samples`` i.i.d. Gaussian pairs."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn_like(q)  # same shape, dtype and device as q
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(dots.var())
'''}, {"mistake": "The keys are drawn with `torch.randn_like(q)`, which does not take the generator, so they come "
                  "from the global RNG: the variance is still about d_k (or 1), but two calls with generators "
                  "seeded alike give different numbers (not reproducible from `generator`).",
       "where": ["q2"]}),

    "q4_entropy_in_bits_with_log2": ({"softmax_entropy": '''
def softmax_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Shannon entropy of softmax(logits) over the last dimension (one value per row)."""
    p = F.softmax(logits, dim=-1)
    # Information-theoretic convention: entropy measured in bits; eps avoids log(0).
    return -(p * torch.log2(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "The entropy uses `torch.log2` (bits) instead of the natural log asked for (nats): every "
                  "entropy is 1/ln 2 = 1.44 times too large (a uniform row over 5 keys gives 2.32, not 1.609), "
                  "and the table's H_raw / H_scaled inherit it.",
       "where": ["q4"]}),

    "q4_entropy_sum_keepdim_true": ({"softmax_entropy": '''
def softmax_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of softmax(logits) along the last dimension."""
    log_p = F.log_softmax(logits, dim=-1)
    # keepdim=True keeps the result broadcastable against the input.
    return -(log_p.exp() * log_p).sum(dim=-1, keepdim=True)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "The row sum keeps the reduced axis with `keepdim=True`, so `softmax_entropy` returns shape "
                  "(..., 1) instead of (...) (a 1-D row gives shape (1,), a (3, 5) batch gives (3, 1)); the values "
                  "are right and the table (read with `.item()`) is right.",
       "where": ["q4"]}),

    "q4_table_std_population_correction_zero": ({"softmax_entropy": '''
def softmax_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of softmax(logits) along the last dimension."""
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append({
            "d": d,
            # population std of the 5 scores (they are all the scores we have)
            "raw_std": torch.std(raw, correction=0).item(),
            "scaled_std": torch.std(scaled, correction=0).item(),
            "H_raw": softmax_entropy(raw).item(),
            "H_scaled": softmax_entropy(scaled).item(),
        })
    return rows
'''}, {"mistake": "The table's stds use `correction=0` (population std, divide by n) instead of torch.std's "
                  "default unbiased estimator the statement asks for: raw_std and scaled_std are sqrt(4/5) = 0.894 "
                  "times the expected values (about 19.9 instead of 22.2 at d = 256); the entropies are right.",
       "where": ["q4"]}),

    "q5_answer_spread_sqrt_dk_read_as_variance": ({"q5_answer": '''
# Each term q_i * k_i has unit variance, and the typical size of q.k grows like sqrt(d_k),
# so Var(q^T k) = sqrt(d_k).
q5_answer = "B"
'''}, {"mistake": "Picks 'B' (sqrt(d_k)): the typical size (standard deviation) of q.k is sqrt(d_k), but the "
                  "question asks for the variance, which is d_k ('C').",
       "where": ["q5"]}),

    "q6_answer_cauchy_schwarz_self_attention_is_identity": ({"q6_answer": '''
# With Q = K = X, the score X_i . X_i = |X_i|^2 is the largest in row i (Cauchy-Schwarz),
# so after the softmax each token attends only to itself and the output row is X_i.
q6_answer = "B"
'''}, {"mistake": "Picks 'B' (each token attends only to itself): X_i . X_i is not always the largest score "
                  "(another row with a larger norm can beat it) and, even when it is, the softmax spreads weight "
                  "over every row; the output is the softmax-weighted average of all rows ('A').",
       "where": ["q6"]}),

    "q7_answer_softmax_as_smooth_argmax_returns_best_key": ({"q7_answer": '''
# Softmax is a smooth approximation of argmax: the best-matching key dominates,
# so attention effectively returns that key's value (like a lookup that picks the best match).
q7_answer = "C"
'''}, {"mistake": "Picks 'C' (returns only the best key's value, an argmax with no useful gradient): the softmax "
                  "gives every key a nonzero weight and the output is a differentiable weighted mix of all the "
                  "values ('D').",
       "where": ["q7"]}),

    "q8_torch_split_given_numpy_style_split_points": ({"multi_head_attention": '''
def multi_head_attention(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                         W_O: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Multi-head attention with right-multiplied weights. X (T, d_model) -> (T, d_model)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    # Column boundaries between heads: d_k, 2*d_k, ...
    boundaries = list(range(d_k, d_model, d_k))
    q_heads = torch.split(Q, boundaries, dim=-1)
    k_heads = torch.split(K, boundaries, dim=-1)
    v_heads = torch.split(V, boundaries, dim=-1)
    outputs = [attention(q, k, v, d_k)[0] for q, k, v in zip(q_heads, k_heads, v_heads)]
    return torch.cat(outputs, dim=-1) @ W_O
'''}, {"mistake": "`torch.split` is given NumPy-style split points `range(d_k, d_model, d_k)` as if they were "
                  "indices, but torch.split takes section sizes: the sizes d_k, 2 d_k, ... do not add up to d_model, "
                  "so it raises for every number of heads (with one head the empty list also raises).",
       "where": ["q8"]}),

    "q8_sdpa_style_scale_keyword_given_sqrt_dk": ({"multi_head_attention": '''
def _scaled_dot_product(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, scale: float) -> torch.Tensor:
    """Batched attention core (same convention as F.scaled_dot_product_attention's ``scale``)."""
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def multi_head_attention(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                         W_O: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Multi-head attention with right-multiplied weights. X (T, d_model) -> (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    q, k, v = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))
    heads = _scaled_dot_product(q, k, v, scale=math.sqrt(d_k))
    return heads.transpose(0, 1).reshape(T, d_model) @ W_O
'''}, {"mistake": "The helper multiplies the scores by `scale` (the F.scaled_dot_product_attention convention) but "
                  "is called with `scale=math.sqrt(d_k)` instead of `1 / math.sqrt(d_k)`: the scores are "
                  "multiplied by sqrt(d_k) instead of divided, so the softmax is far too sharp and the output is "
                  "wrong (right only when d_k = 1 or there is a single token).",
       "where": ["q8"]}),
}
