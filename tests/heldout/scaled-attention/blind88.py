"""Eighty-eighth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the other blind sets' code. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention(Q, K, V, d_k)` returning
`(output, weights)`; q2 `dot_product_variance`; q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one
letter each; q8 a loop over heads calling the 2-D `attention`; the notebook has no masks and no batch axis), the
student-facing question text, `tests/heldout/harness.py`, blind87.py for the format only, and only the variant
NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: DEFENSIVE, VALIDATING AND EDGE-CASE-HANDLING CODE. Each wrong cell is careful code by a
student who guards every function (argument checks and normalisation, try/except fallbacks, special branches,
clean-up of results, early returns), and each slip is one that habit invites. q1: an overflow guard that
subtracts the max of each COLUMN (over the queries) instead of each row's max, which changes every row's
softmax; a row-sum sanity check against float32 `torch.ones`, whose dtype error in `torch.allclose` is caught as
"check failed", so every float64 input takes the fallback to uniform weights; the scores clamped to [-20, 20]
"against exp overflow", which flattens wide scores. q2: the `scaled` flag normalised by looking `str(scaled)`
up in {"1", "y", "yes", "on"}, where "true" is missing, so scaled=True is never applied; a generator check
`generator.device != "cpu"` that is always true (a device never equals a string), so the caller's generator is
replaced by a fresh one seeded 0 on every call. q4: probabilities clamped away from 0 and then re-normalised
with p.sum(dim=0), right for one row but wrong for every batch of rows; a "saturated row" clean-up that sets the
entropy to 0 whenever the top probability is above 0.99, not only for one-hot rows; the table's reseed skipped
when torch.initial_seed() already equals the seed, which after the first d is always the case. q5: the answer
read off the Cauchy-Schwarz worst-case bound E|q|^2 E|k|^2 = d_k^2 (D) instead of the variance d_k (C). q6: a
probe that prunes weights below 0.2 and re-normalises before comparing, so each row keeps only itself (B). q7: a
probe that "normalises" the loss with torch.as_tensor(float(out.sum())), cutting the graph; the backward error
is caught and read as "no gradient" (C). q8: each head's weights "re-normalised" over the queries (dim 0) before
mixing; n_heads lowered until there are no more heads than tokens; a single-token early return that gives X back
instead of (X @ W_V) @ W_O. Spread: q1 x3, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a hand-graded
markdown answer). The q1 variants also change q8, which calls `attention`. The correct variants keep the same
habits and stay right: input checks that accept any batch rank, a row max shift detached from the graph, an
explicit `except` that only re-raises, a re-normalisation on the key axis, an xlogy-style `torch.where` entropy
and one with the clamp only inside the log, argument normalisation with int() and an isinstance check on the
generator, a validated table that reseeds for every d, q8 as a head batch axis or as a loop accumulating
head_h @ W_O[rows of head h] into `X.new_zeros`, letters normalised with strip().upper().

Public material used (nothing copied verbatim): pytorch/pytorch issue #55356 (`torch.allclose` raises "Half did
not match Float" for tensors of different dtypes; grounds the q1 row-sum check whose dtype error is caught and
taken as a failed check); mila-iqia/blocks PR #727 and prescient-design/e3tools PR #3 (attention energies that
made exp overflow, fixed by stabilising the softmax; the worry behind clamping the scores, while the stable fix
is a per-ROW shift; grounds the clamp and the column-max shift); kkirchheim/pytorch-ood PR #85 (NaN entropy fixed
by clipping the softmax output to [1e-7, 1]: the clamp-then-fix-up pattern of the q4 renormalisation) and
castorini/DeeBERT PR #18 (an entropy computed over dim=1 instead of dim=-1; grounds the wrong reduction axis in
q4 and in the q8 re-normalisation); microsoft/unilm issue #1642 (a `torch.nan_to_num` clean-up placed on the
attention weights, questioned as a patch over a real problem; grounds the clean-up steps that move values: the
snapped entropies and the pruned probe weights); swz30/MPRNet issue #108 and weizheliu/People-Flows issue #7
("'float' object has no attribute 'backward'", "element 0 of tensors does not require grad": a loss turned
into a number loses its graph; grounds the q7 probe).

How the variants were checked: /tmp/w88-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check` cells
skipped, printed output swallowed) and compared with full_marks run the same way: `attention` in float64,
float32 and float16 on 8 shapes (T_q != T_k, d_v != d_k, T_q = 1, T_k = 1, T_q = T_k = 1), inputs scaled 1, 5
and 30 (wide scores), d_k passed equal to and different from the width, with output and weight dtypes and
shapes, plus gradients to Q, K and V through both outputs in float64; `dot_product_variance` for d_k 1, 3, 16,
64, 100, n_samples 2, 7, 1000, 10000, scaled and not, seeds 0, 1, 123, two consecutive calls on one generator
and the generator's next draw afterwards; `softmax_entropy` on 1-D, (1, T), 2-D, 3-D and width-1 inputs scaled
0 to 1000 in float64 and float32 (dtype and shape kept; the 1e-9 of full_marks allowed for), [0, 1, 2], an
all-zero row and a saturated row, and its gradient; `entropy_table` with default and other dims and seeds after
the global seed was set to 42, 0 and 7; the letters against C / A / D; `multi_head_attention` on 10 cases (T = 1
to 9, 1 to 8 heads, T < n_heads included) with weights of scale 1 and 0.2 in float32 and float64, and the
gradients to X and all four weights (full_marks itself agrees with torch.nn.MultiheadAttention without biases).
The three correct `attention` cells were also checked on 3-D and 4-D batched inputs and a broadcast K, V
against a float64 softmax reference (the notebook has no masks, so no mask inputs exist to test). The correct
variants agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    'q1_validated_inputs_detached_row_max_q2_checked_arguments': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    Q, K, V = torch.as_tensor(Q), torch.as_tensor(K), torch.as_tensor(V)
    if Q.dim() < 2 or K.dim() < 2 or V.dim() < 2:
        raise ValueError(f"attention expects (..., T, d) tensors, got {Q.dim()}, {K.dim()}, {V.dim()} dims")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("queries and keys must have the same width")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError("need exactly one value row per key")
    if d_k <= 0:
        raise ValueError("d_k must be positive")
    scores = (Q @ K.transpose(-2, -1)) / math.sqrt(d_k)
    # shift every row by its own max so exp() cannot overflow; the softmax is shift-invariant,
    # so the max can be detached without changing the gradient
    scores = scores - scores.amax(dim=-1, keepdim=True).detach()
    e = torch.exp(scores)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = weights @ V
    return out, weights
''',
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    d_k, n_samples = int(d_k), int(n_samples)
    if d_k < 1 or n_samples < 1:
        raise ValueError("d_k and n_samples must be positive")
    if not isinstance(generator, torch.Generator):
        raise TypeError("generator must be a torch.Generator")
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled is True or (not isinstance(scaled, str) and bool(scaled)):
        dots = dots / math.sqrt(d_k)
    return dots.var(correction=1).item()
''',
    },

    'q1_batch_aware_guards_q4_xlogy_entropy_validated_table': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if Q.dim() < 2 or K.dim() < 2 or V.dim() < 2:
        raise ValueError("Q, K and V need at least 2 dimensions")
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(f"shape mismatch: Q {tuple(Q.shape)}, K {tuple(K.shape)}, V {tuple(V.shape)}")
    try:
        scores = torch.matmul(Q, K.transpose(-2, -1))
    except RuntimeError as err:          # batch axes that do not broadcast: say so clearly
        raise ValueError(f"Q and K batch axes do not broadcast: {err}") from err
    scores = scores / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    out = torch.matmul(weights, V)
    return out, weights
''',
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    if not torch.is_tensor(logits):
        logits = torch.as_tensor(logits, dtype=torch.get_default_dtype())
    if logits.dim() == 0:
        raise ValueError("need at least one axis of logits")
    logp = F.log_softmax(logits, dim=-1)
    p = logp.exp()
    # xlogy-style guard: a probability that underflowed to 0 contributes exactly 0, never 0 * -inf
    terms = torch.where(p > 0, p * logp, torch.zeros_like(p))
    return -terms.sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    dims = [int(d) for d in dims]
    if any(d < 1 for d in dims):
        raise ValueError("every d must be a positive integer")
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        assert raw.shape == (5,), raw.shape
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    if X.dim() != 2:
        raise ValueError("X must be (T, d_model)")
    T, d_model = X.shape
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O)):
        if tuple(W.shape) != (d_model, d_model):
            raise ValueError(f"{name} must be ({d_model}, {d_model}), got {tuple(W.shape)}")
    if n_heads < 1 or d_model % n_heads != 0:
        raise ValueError("d_model must be divisible by n_heads")
    d_k = d_model // n_heads
    # (T, d_model) -> (n_heads, T, d_k): split the columns, then move the head axis first
    Q = (X @ W_Q).reshape(T, n_heads, d_k).transpose(0, 1).contiguous()
    K = (X @ W_K).reshape(T, n_heads, d_k).transpose(0, 1).contiguous()
    V = (X @ W_V).reshape(T, n_heads, d_k).transpose(0, 1).contiguous()
    heads, _ = attention(Q, K, V, d_k)                    # batch-aware attention above
    concat = heads.transpose(0, 1).reshape(T, d_model)    # head 0's columns first
    return concat @ W_O
''',
    },

    'q1_row_sums_checked_renormalised_on_the_key_axis_letters_normalised': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if K.shape[-1] != Q.shape[-1]:
        raise ValueError("Q and K must share their last dimension")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError("V needs one row per key")
    Q, K, V = Q.contiguous(), K.contiguous(), V.contiguous()
    scale = 1.0 / math.sqrt(float(d_k))
    scores = (Q @ K.transpose(-2, -1)) * scale
    weights = F.softmax(scores, dim=-1)
    # belt and braces: each ROW is a distribution over the keys, so re-normalise along the key axis
    weights = weights / weights.sum(dim=-1, keepdim=True)
    tol = 1e-2 if weights.dtype in (torch.float16, torch.bfloat16) else 1e-4
    if torch.isfinite(scores).all():
        assert ((weights.sum(dim=-1) - 1).abs() < tol).all(), "rows of the weights must sum to 1"
    out = weights @ V
    return out, weights
''',
        'q5_answer': '''
q5_answer = "c".strip().upper()   # Var(q.k) = sum of d_k independent unit-variance terms = d_k
assert q5_answer in {"A", "B", "C", "D"}
''',
        'q6_answer': '''
q6_answer = " a ".strip().upper()   # every row of X is mixed in, weighted by softmax of the scaled dots
assert q6_answer in {"A", "B", "C", "D"}
''',
        'q7_answer': '''
q7_answer = str("D").strip().upper()   # soft, differentiable lookup over all keys
assert len(q7_answer) == 1 and q7_answer in "ABCD"
''',
    },

    'q8_loop_into_guarded_buffer_q4_clamped_log_entropy': {
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # clamp only inside the log: p * log(max(p, tiny)) is exactly 0 where p is 0, and p itself is untouched
    tiny = torch.finfo(p.dtype).tiny
    H = -(p * torch.log(p.clamp(min=tiny))).sum(dim=-1)
    return H


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    if isinstance(dims, int):
        dims = (dims,)
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        row = {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
               "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}
        assert all(math.isfinite(v) for v in row.values()), row
        results.append(row)
    return results
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    n_heads = int(n_heads)
    T, d_model = X.shape
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out = X.new_zeros(T, d_model)               # same dtype and device as the input
    for h in range(n_heads):
        rows = slice(h * d_k, (h + 1) * d_k)
        out_h, w_h = attention(Q[:, rows], K[:, rows], V[:, rows], d_k)
        assert out_h.shape == (T, d_k) and w_h.shape == (T, T)
        # concat @ W_O == sum over heads of head_h @ (rows of W_O that belong to head h)
        out = out + out_h @ W_O[rows, :]
    return out
''',
    },
}

WRONG = {
    'q1_stability_shift_by_column_max_over_queries': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if Q.dim() != 2 or K.dim() != 2 or V.dim() != 2:
        raise ValueError("attention expects 2-D Q, K and V")
    if Q.shape[1] != K.shape[1]:
        raise ValueError("queries and keys must have the same width")
    if K.shape[0] != V.shape[0]:
        raise ValueError("need one value row per key")
    scores = Q @ K.transpose(0, 1) / math.sqrt(d_k)
    # subtract the max before exponentiating so exp() can never overflow
    scores = scores - scores.max(dim=0, keepdim=True).values
    e = torch.exp(scores)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The 'overflow guard' subtracts the maximum of each COLUMN (max over dim 0, over the queries) "
                   "instead of each row's maximum. A softmax over a row is only unchanged when the whole row is "
                   "shifted by one number; here every key j gets its own shift, so each weight is multiplied by "
                   "exp(-max_i s_ij) before normalising. The weights (and the output) are wrong for every input "
                   "with more than one query, and with a single query every score becomes 0 and the weights are "
                   "uniform. The q8 heads inherit the wrong weights.",
        "where": ['q1', 'q8']}),

    'q1_row_sum_check_dtype_error_falls_back_to_uniform_weights': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    # sanity check: every row must be a probability distribution
    try:
        rows_ok = torch.allclose(weights.sum(dim=-1), torch.ones(weights.shape[0]))
    except RuntimeError:
        rows_ok = False
    if not rows_ok:
        # the softmax broke down (overflow / NaN rows): fall back to a plain average over the keys
        weights = torch.full_like(scores, 1.0 / K.shape[0])
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The row-sum check compares the weights' row sums with `torch.ones(T_q)`, which is float32. "
                   "`torch.allclose` refuses tensors of different dtypes and raises a RuntimeError, which the "
                   "`except` turns into 'check failed', so for every float64 (or float16) input the fallback "
                   "runs and replaces the softmax weights by uniform weights 1 / T_k: the output is the plain "
                   "mean of the value rows. float32 inputs (like the notebook's trace) are right. The q8 heads "
                   "are wrong in float64 too.",
        "where": ['q1', 'q8']}),

    'q1_scores_clamped_to_plus_minus_twenty_against_exp_overflow': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("Q and K must have the same width")
    scores = (Q @ K.T) / math.sqrt(d_k)
    # exp(89) already overflows float32: keep the scores in a safe range before the softmax
    scores = scores.clamp(min=-20.0, max=20.0)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The scaled scores are clamped to [-20, 20] 'against overflow' before the softmax. F.softmax "
                   "already subtracts the row max, so nothing overflowed; the clamp instead flattens every score "
                   "beyond 20: two keys scoring 60 and 25 both become 20 and get equal weight, where the right "
                   "softmax puts almost all of it on the first. Small scores are right, but wide scores (large "
                   "inputs, or the projected q8 heads) give wrong weights and outputs, and the gradient through "
                   "the clamped scores is cut to 0.",
        "where": ['q1', 'q8']}),

    'q2_scaled_flag_normalised_from_strings_drops_true': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    d_k, n_samples = int(d_k), int(n_samples)
    if d_k < 1 or n_samples < 2:
        raise ValueError("need d_k >= 1 and at least 2 samples")
    # accept the flag however it is given: True, 1, "1", "yes", "on" ...
    scaled = str(scaled).strip().lower() in {"1", "y", "yes", "on"}
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The flag normalisation turns `scaled` into text and looks it up in {'1', 'y', 'yes', 'on'}; "
                   "str(True).lower() is 'true', which is not in the set, so `scaled=True` becomes False and the "
                   "dot products are never divided by sqrt(d_k). With scaled=True the function returns about d_k "
                   "instead of about 1 (unscaled calls are right).",
        "where": ['q2']}),

    'q2_generator_device_compared_with_string_replaced_by_seed_zero': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # make sure we got a usable CPU generator; otherwise build a reproducible one
    if not isinstance(generator, torch.Generator) or generator.device != "cpu":
        generator = torch.Generator().manual_seed(0)
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The generator check compares `generator.device` (a torch.device) with the string 'cpu'; in "
                   "this PyTorch a device never equals a plain string, so the test is always true and the "
                   "caller's generator is thrown away for a fresh one seeded with 0 on every call. The numbers "
                   "no longer come from the generator that was passed: every call draws the same samples "
                   "whatever the seed, the caller's generator is never advanced, and the result matches a "
                   "correct estimator only when the caller happened to seed with 0.",
        "where": ['q2']}),

    'q4_clamped_probabilities_renormalised_over_dim0': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # keep log() finite: no probability may be exactly 0 ...
    p = p.clamp(min=1e-12)
    # ... and after the clamp make sure they still sum to 1
    p = p / p.sum(dim=0, keepdim=True)
    return -(p * torch.log(p)).sum(dim=-1)


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
''',
    }, {
        "mistake": "After clamping the probabilities away from 0, they are 're-normalised' with p.sum(dim=0), "
                   "the FIRST axis, not the last one (the keys). For one row (a 1-D tensor, as in the table) "
                   "dim 0 is the key axis and the result is right, but for a batch of rows every column is "
                   "divided by its sum over the rows, the rows no longer sum to 1 and the entropies are wrong "
                   "(a (B, T) input gives B wrong values; shapes and dtypes are kept).",
        "where": ['q4']}),

    'q4_near_one_hot_rows_snapped_to_zero_entropy': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)
    p = logp.exp()
    H = -(p * logp).sum(dim=-1)
    # a saturated (one-hot) row has entropy exactly 0: don't let rounding leave a small positive value
    saturated = p.amax(dim=-1) > 0.99
    return torch.where(saturated, torch.zeros_like(H), H)


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
''',
    }, {
        "mistake": "The 'saturated row' clean-up sets the entropy to 0 for every row whose largest probability is "
                   "above 0.99, not only for rows that are exactly one-hot. Such rows still have a real, "
                   "positive entropy (a row [0.991, 0.003, 0.003, 0.003] has about 0.06 nats), so peaked but not "
                   "saturated rows come back as 0, and their gradient is cut to 0 as well. Rows with no "
                   "probability above 0.99 (and the notebook's table, where only d = 256 is that sharp and is "
                   "already near 0) are right.",
        "where": ['q4']}),

    'q4_table_reseed_skipped_when_initial_seed_already_matches': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    dims = [int(d) for d in dims]
    results = []
    for d in dims:
        # reseed only when the generator is not already on this seed (no needless resets)
        if torch.initial_seed() != seed:
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
        "mistake": "The guard reseeds only when torch.initial_seed() differs from `seed`. initial_seed() reports "
                   "the seed that was SET, not where the generator is now: after the first d has reseeded and "
                   "drawn, it still reports `seed`, so every later d skips the reset and draws the next numbers "
                   "of the stream. Only the first row of the table is right (and even the first is skipped if "
                   "the global seed was already `seed` before the call); the other rows have different q and k, "
                   "so their stds and entropies are wrong. softmax_entropy is right.",
        "where": ['q4']}),

    'q5_answer_d_from_cauchy_schwarz_worst_case_bound': ({
        'q5_answer': '''
# Careful version: bound the worst case instead of trusting an average.
# Cauchy-Schwarz: |q . k| <= |q| |k|, so (q . k)^2 <= |q|^2 |k|^2, and E|q|^2 = E|k|^2 = d_k.
_d = 16
_bound = _d * _d                      # E|q|^2 * E|k|^2: what (q . k)^2 can reach
_options = {"A": 1, "B": _d ** 0.5, "C": _d, "D": _d ** 2}
q5_answer = next(letter for letter, value in _options.items() if value == _bound)
''',
    }, {
        "mistake": "The answer is taken from the Cauchy-Schwarz worst case: (q.k)^2 <= |q|^2 |k|^2, whose "
                   "expectation is d_k * d_k. That is an upper bound, not the variance: E[(q.k)^2] = sum_i "
                   "E[q_i^2] E[k_i^2] = d_k because the cross terms have mean 0, so the answer is C (d_k), "
                   "not D (d_k^2).",
        "where": ['q5']}),

    'q6_answer_probe_prunes_weights_below_a_fifth_keeps_self_only': ({
        'q6_answer': '''
# Check the options numerically on a random X (Q = K = V = X), reading the weights after a clean-up.
_g = torch.Generator().manual_seed(0)
_X = torch.randn(6, 16, generator=_g, dtype=torch.float64)
_, _W = attention(_X, _X, _X, 16)
# drop negligible weights (below 0.2: noise) and re-normalise what is left
_W = torch.where(_W >= 0.2, _W, torch.zeros_like(_W))
_W = _W / _W.sum(dim=-1, keepdim=True).clamp(min=1e-12)
_out = _W @ _X
_dots = _X @ _X.T
_options = {
    "A": torch.softmax(_dots / 16 ** 0.5, dim=-1) @ _X,
    "B": _X,
    "C": _X[_dots.argmax(dim=-1)],
    "D": _X.mean(dim=0, keepdim=True).expand_as(_X),
}
q6_answer = min(_options, key=lambda letter: (_out - _options[letter]).abs().max().item())
''',
    }, {
        "mistake": "The probe 'cleans' the attention weights before using them: weights below 0.2 are zeroed and "
                   "the rest re-normalised. In self-attention the self score |X_i|^2 / sqrt(d_k) dominates, so "
                   "after pruning each row keeps only its own token and the probe's output is X_i "
                   "itself; it then picks B. The real output mixes every row of X with softmax weights (A); the "
                   "pruning changed the very thing being measured.",
        "where": ['q6']}),

    'q7_answer_probe_loss_normalised_through_float_loses_graph': ({
        'q7_answer': '''
# Is the lookup differentiable? Try a backward pass through attention, guarding every step.
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, dtype=torch.float64).requires_grad_()
_K = torch.randn(5, 4, generator=_g, dtype=torch.float64)
_V = torch.randn(5, 2, generator=_g, dtype=torch.float64)
_out, _ = attention(_Q, _K, _V, 4)
# normalise the loss into a clean 0-d float64 tensor before calling backward
_loss = torch.as_tensor(float(_out.sum()), dtype=torch.float64)
try:
    _loss.backward()
    _has_grad = _Q.grad is not None and bool(_Q.grad.abs().sum() > 0)
except RuntimeError:
    _has_grad = False
q7_answer = "D" if _has_grad else "C"
''',
    }, {
        "mistake": "The probe 'normalises' the loss with torch.as_tensor(float(out.sum())): float() takes the "
                   "number out of the graph, so the new tensor has no grad_fn, backward() raises 'element 0 of "
                   "tensors does not require grad', the except reads that as 'no gradient', and the answer is C "
                   "(an argmax with no useful gradient). Attention is a soft, differentiable lookup: D.",
        "where": ['q7']}),

    'q8_head_weights_renormalised_over_queries_before_mixing': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    if d_model % n_heads != 0:
        raise ValueError("d_model must be divisible by n_heads")
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        _, w_h = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        # re-normalise the head's weights before mixing, in case the softmax left them slightly off 1
        w_h = w_h / w_h.sum(dim=0, keepdim=True)
        heads.append(w_h @ V[:, cols])
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "Each head's weights are 're-normalised' with w.sum(dim=0), over the queries (the columns), "
                   "not over the keys. The softmax rows already summed to 1; after this every column sums to 1 "
                   "instead and the rows no longer do, so each head's output w_h @ V_h is wrong and so is the "
                   "layer's output, for every input with more than one token.",
        "where": ['q8']}),

    'q8_head_count_lowered_until_no_more_heads_than_tokens': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    if X.dim() != 2:
        raise ValueError("X must be (T, d_model)")
    T, d_model = X.shape
    n_heads = int(n_heads)
    if n_heads < 1 or d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    # more heads than tokens leaves heads with nothing to tell apart: use at most T heads,
    # still a divisor of d_model so every head has the same width
    while n_heads > T or d_model % n_heads:
        n_heads -= 1
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "A guard lowers n_heads until there are no more heads than tokens (and it still divides "
                   "d_model). The number of heads is a given of the layer, not something the sequence length "
                   "limits: with T < n_heads the layer runs fewer, wider heads with a different sqrt(d_k) "
                   "scale, so the output is wrong (e.g. T = 2 tokens with 4 heads runs 2 heads). Inputs with "
                   "T >= n_heads are right.",
        "where": ['q8']}),

    'q8_single_token_early_return_gives_the_input_back': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    if d_model % n_heads != 0:
        raise ValueError("d_model must be divisible by n_heads")
    if T == 1:
        # degenerate case: a lone token can only attend to itself, nothing to mix
        return X.clone()
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "The early return for one token gives back X itself. A lone token does attend only to itself "
                   "(weight 1), but what it takes is its VALUE, and the layer still applies the output "
                   "projection: the right result for T = 1 is (X @ W_V) @ W_O, not X. Sequences with two or "
                   "more tokens are right.",
        "where": ['q8']}),
}
