"""Twenty-fourth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons (08, 79, 80), the student-facing text of the master notebook,
`full_marks.ipynb`, `harness.py`, and only the module docstrings and variant names of blind.py ..
blind23.py, so that their mistakes are not repeated in the same form.

How it was made: the earlier sets' names give q5 14, q6 9, q7 9, q2 56, q8 69, q1 79 and q4 91, and every
wrong letter of q5-q7 is already taken (each one in its "misread the lesson" form), so this set writes no
new multiple-choice variant and leans on slips of another kind: half-remembered PyTorch. Seven wrong
variants sit in the core (scores, scaling, softmax, the multi-head split and merge) and seven in the rest
(q2's return value, q4's helper and table). The round's emphasis is followed: a right formula applied to
the wrong tensor or a swapped pair of arguments (the softmax fed the unscaled product although the scaled
one was computed, the output mixed from the scores instead of the weights, queries and keys swapped in the
per-head call, the output projection multiplied from the left, the keys reshaped straight into a
"transposed" shape, `len()` of a (1, d) query as its width), a global from a later cell (the trace's `W`
returned by a case typo that only worked in a stale kernel), an API doing something unwanted
(`torch.cat` of a generator, an out-of-place `clamp` whose result is dropped, `torch.seed` for
`manual_seed`, a softmax denominator summed along axis 0), and a dtype or numeric detail (a `numpy.float32`
returned for a Python float, a root-mean-square taken for the standard deviation). Four of them crash
(the stale `W`, the left-multiplied `W_O`, `torch.cat` of a generator, `torch.seed(seed)`); the others return
plausible but wrong values silently.

Public code was searched (code and issues corpora); seven of the fourteen wrong variants carry a slip seen
there, named in a comment above each: a scale that the formula shows but the code leaves out
(huggingface/blog#2893), the softmax commented out so scores mix the values (flexflow/flexflow-train#467),
`torch.cat` given a generator (lanwuwei/SPM_toolkit#4), `clamp` called out of place with no effect
(pytorch/tutorials#30), `torch.seed` read as "sets the seed" (pytorch/pytorch#106678), a softmax whose
denominator sums along axis 0 (pluu2/MLhelper attention.py), and numpy habits in dot-product-variance demos
(`np.std(q)` notebooks, the lesson's own `.numpy()` prints). The other seven are plausible for a student of
these lessons. Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one
mistake; `where` lists the questions that should lose points (q8 calls the student's `attention`, so a q1
slip that changes or breaks the output costs q8 too). Correct variants are valid but unusual (scores by
`addmm` with `beta=0` and weights from `softmin` of the negated scores; both draws from one `randn` call
unpacked along dim 0 and the scaled case by a recursive call divided by `d_k`; the entropy guarded by
`clamp_min(finfo.tiny)` and the table from stacked (raw, scaled) pairs read with `tolist`; keys permuted
straight into their per-head transpose). Every variant was run against the full-marks cells and plain
torch (`F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`) before it was written down here (a
script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''

_TABLE = '''

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
'''

CORRECT = {
    "addmm_beta_zero_softmin_of_negated": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    # beta=0: the (uninitialised) input is ignored, alpha carries the 1/sqrt(d_k)
    scores = torch.addmm(Q.new_empty(Q.shape[0], K.shape[0]), Q, K.t(), beta=0, alpha=d_k ** -0.5)
    weights = F.softmin(-scores, dim=-1)          # softmin(-s) is softmax(s)
    return weights @ V, weights
'''},
    "one_randn_unpacked_recursive_scaled": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Var(q.k), or Var(q.k / sqrt(d_k)) = Var(q.k) / d_k, over n_samples pairs drawn from generator."""
    if scaled:
        return dot_product_variance(d_k, n_samples, generator) / d_k
    q, k = torch.randn(2, n_samples, d_k, generator=generator)   # q first, then k: one stream
    return torch.linalg.vecdot(q, k).var().item()
'''},
    "clamp_min_tiny_stacked_table_tolist": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = logits.softmax(-1)
    return -(p * p.clamp_min(torch.finfo(p.dtype).tiny).log()).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        pair = torch.stack([raw, raw / d ** 0.5])          # (2, 5): raw row, scaled row
        raw_std, scaled_std = pair.std(dim=1).tolist()
        H_raw, H_scaled = softmax_entropy(pair).tolist()
        rows.append({"d": d, "raw_std": raw_std, "scaled_std": scaled_std,
                     "H_raw": H_raw, "H_scaled": H_scaled})
    return rows
'''},
    "keys_permuted_straight_to_transposed": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)      # (H, T, d_k)
    Kt = (X @ W_K).view(T, n_heads, d_k).permute(1, 2, 0)     # (H, d_k, T): K^T of every head
    Vh = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)      # (H, T, d_k)
    weights = torch.softmax(Qh @ Kt / math.sqrt(d_k), dim=-1)  # (H, T, T)
    heads = weights @ Vh                                       # (H, T, d_k)
    return heads.transpose(0, 1).reshape(T, d_model) @ W_O
'''},
}

WRONG = {
    # seen in: huggingface/blog#2893, a code example whose scores miss the 1/sqrt(d_k) the formula above it
    # shows; here the scaled scores are even computed, but the softmax is fed the raw product.
    "q1_softmax_fed_the_unscaled_product": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(Q @ K.T, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "the scaled scores are computed but the softmax is applied to the raw product Q @ K.T, so "
                  "the weights (and the output) are those of unscaled attention",
       "where": ["q1", "q8"]}),
    # seen in: flexflow/flexflow-train#467 (the softmax commented out, so the raw scores mix the values).
    "q1_output_mixed_from_scores": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = scores @ V
    return out, weights
'''}, {"mistake": "the output multiplies the values by the scaled scores instead of by the softmax weights "
                  "(the weights returned are right, the output is an unnormalised mix)",
       "where": ["q1", "q8"]}),
    "q1_returns_stale_global_W": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    w = F.softmax(scores, dim=-1)
    out = w @ V
    return out, W
'''}, {"mistake": "returns `W` (capital, the name the trace cell gives the weights) instead of its local `w`: "
                  "it only worked in a kernel where the trace had already run; in a fresh run `W` is never "
                  "defined, so every call raises NameError",
       "where": ["q1", "q8"]}),
    "q8_queries_and_keys_swapped_in_call": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(K[:, cols], Q[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the keys are passed where attention expects the queries and the queries where it expects "
                  "the keys, so every head scores K_h Q_h^T and normalises over the queries of each key",
       "where": ["q8"]}),
    "q8_output_projection_left_multiplied": ({"multi_head_attention": '''
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
    concat = torch.cat(heads, dim=1)
    return W_O @ concat                      # W^O applied to the concatenated heads
'''}, {"mistake": "the output projection multiplies from the left (W_O @ concat) instead of concat @ W_O: a "
                  "shape error whenever T != d_model, and a wrong mix of tokens when they are equal",
       "where": ["q8"]}),
    "q8_keys_viewed_as_transposed": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Qh = Q.view(T, n_heads, d_k).transpose(0, 1)     # (H, T, d_k)
    Kt = K.view(n_heads, d_k, T)                     # (H, d_k, T), ready to multiply
    Vh = V.view(T, n_heads, d_k).transpose(0, 1)     # (H, T, d_k)
    weights = F.softmax(Qh @ Kt / math.sqrt(d_k), dim=-1)
    heads = weights @ Vh
    return heads.transpose(0, 1).reshape(T, d_model) @ W_O
'''}, {"mistake": "the keys are reshaped straight into the shape (n_heads, d_k, T) as if that were each head's "
                  "K^T; a view only reinterprets the memory, so the 'keys' are a scramble of the projected "
                  "entries (the queries and values are split correctly)",
       "where": ["q8"]}),
    # seen in: lanwuwei/SPM_toolkit#4 ("cat(): argument 'tensors' must be tuple of Tensors, not generator").
    "q8_cat_of_generator_expression": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    cols = [slice(h * d_k, (h + 1) * d_k) for h in range(n_heads)]
    concat = torch.cat((attention(Q[:, c], K[:, c], V[:, c], d_k)[0] for c in cols), dim=1)
    return concat @ W_O
'''}, {"mistake": "torch.cat is given a generator expression; it needs a list or tuple of tensors, so the call "
                  "raises TypeError",
       "where": ["q8"]}),
    # seen in: numpy habits in public dot-product-variance demos (`np.std(q)` notebooks) and the lesson's own
    # `.numpy()` prints; numpy's var on a float32 array returns numpy.float32, not a Python float.
    "q2_returns_numpy_float32": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.numpy().var(ddof=1)
'''}, {"mistake": "returns numpy's variance of the float32 array, a numpy.float32 scalar, instead of a Python "
                  "float (.item())",
       "where": ["q2"]}),
    # seen in: pluu2/MLhelper attention.py, `softmaxT` dividing by `np.sum(np.exp(...), axis=0)`.
    "q4_entropy_softmax_denominator_axis0": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    e = torch.exp(logits - logits.amax(dim=-1, keepdim=True))
    p = e / e.sum(0)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''' + _TABLE}, {"mistake": "the hand-written softmax divides by sums taken along dim 0 (down the rows) instead of "
                           "along the last dim, so for 2-D and larger inputs the rows are not distributions "
                           "(1-D rows, as in the table, happen to come out right)",
                "where": ["q4"]}),
    # seen in: pytorch/tutorials#30, `param.grad.data.clamp(-1, 1)` that "has no effect" (clamp is not in place).
    "q4_entropy_clamp_result_dropped": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    p.clamp(min=1e-12)                      # keep log away from 0
    return -(p * p.log()).sum(dim=-1)
''' + _TABLE}, {"mistake": "the guard against log(0) is an out-of-place clamp whose result is thrown away, so a "
                           "saturated row still computes 0 * log 0 and gives NaN",
                "where": ["q4"]}),
    # seen in: pytorch/pytorch#106678 (torch.seed "sets the seed" yet takes no argument); the numpy habit
    # np.random.seed(seed) carried over.
    "q4_table_torch_seed_for_manual_seed": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "torch.seed(seed) is called for torch.manual_seed(seed); torch.seed takes no argument (it "
                  "reseeds at random), so the call raises TypeError",
       "where": ["q4"]}),
    "q4_table_std_as_root_mean_square": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        # the scores have mean 0, so their spread is the root of their mean square
        rows.append({"d": d, "raw_std": raw.pow(2).mean().sqrt().item(),
                     "scaled_std": scaled.pow(2).mean().sqrt().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "the stds are computed as the root mean square of the 5 scores, which neither subtracts "
                  "their sample mean nor divides by n - 1, so they differ from torch.std",
       "where": ["q4"]}),
    "q4_table_scale_from_len_of_query": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(len(q))        # divide by sqrt of the query's width
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "the scale is sqrt(len(q)), but q has shape (1, d) so len(q) is 1: the 'scaled' scores are "
                  "the raw ones, and the scaled std and entropy repeat the raw values",
       "where": ["q4"]}),
}
