"""Twenty-third blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons (79, 80), the student-facing text of the master notebook (its
solution cells included), `full_marks.ipynb`, `harness.py`, blind21.py's layout (to copy the format), and
only the module docstrings and variant names of blind.py .. blind22.py, so that their mistakes are not
repeated in the same form.

How it was made: round 23 asks for about half of the wrong variants in the core (scores, softmax, the
mix, multi-head reshapes) and half elsewhere, so this set has three in q1 and four in q8 (seven core),
two in q2, three in `softmax_entropy` and two in `entropy_table` (seven elsewhere). Every wrong letter
of q5-q7 is already taken by earlier sets, and q3 is graded by hand, so none is there. Each pairs a
right idea with one wrong detail: the `.values` of a max carried onto a sum in a hand-written softmax,
a shifted numerator over an unshifted denominator, a broadcast mix summed over the query axis instead of
the key axis, heads concatenated with the batched code's `dim=2`, batched heads merged with `flatten()`
(whose start_dim defaults to 0), batched keys transposed with `.T` (which reverses all three axes),
heads merged after `permute(1, 2, 0)` (head index last), a (n, 2, d_k) pair draw unbound along the last
axis, the scaled dots made with an in-place `div_` that also rescales the unscaled ones, the Bernoulli
entropy formula summed over the keys, the entropy written as p log(1/p) with the epsilon after the
reciprocal, a `bmm` batched dot that only takes 2-D logits, one row dict reused for every d, and
`results += {...}` (which extends the list with the dict's keys). Six crash (sum().values, cat dim=2,
flatten(), 3-D `.T`, unbind(-1), bmm) and eight silently return plausible wrong values (or NaN).

Public code was searched (code, issues and pages corpora); eight of the fourteen wrong variants carry a
slip seen there, named in a comment above each: `torch.cat([h(x) for h in self.heads], dim=2)` in
Karpathy-style Head/MultiHeadAttention forks in the code index, `.T` on tensors of more than 2 dims (the
deprecation warning reported in many repositories, pytorch/pytorch#64180), `a, b = t.unbind(dim=-1)`
coordinate unpacking, the Bernoulli entropy `-(p*log(p+eps) + (1-p)*log(1-p+eps))` in several
repositories, entropy as `(probs * torch.log(1/probs)).sum(-1)`, `batch_dot` helpers built on
`torch.bmm(a.unsqueeze(1), b.unsqueeze(2))`, `results += {"id": i, ...}` on a list (a Django view), and
the reused-dict-in-a-loop pitfall (ellicium's "appending Python dictionaries" post). The other six
(sum().values, shifted numerator only, mix summed over queries, flatten() default, permute(1, 2, 0),
in-place div_) are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that should lose points (full_marks' q8 calls the student's `attention` on
2-D slices, so a q1 slip costs q8 too; `entropy_table` calls `softmax_entropy`). Correct variants are
valid but unusual (scores from `torch.inner` and a log-sum-exp softmax, the variance as the
square of `torch.std(..., correction=1)` with the scale applied in place by `mul_`, the entropy as
`torch.linalg.vecdot` of p with -log p and the table's scores as a broadcast product summed over d with
its rows built by `dict(zip(...))`, and heads cut with `unfold(1, d_k, d_k)` and run batched). Every
variant was run against the full-marks cells and plain torch (`F.scaled_dot_product_attention`,
`torch.nn.MultiheadAttention`) before it was written down here (a script in /tmp, not in the repository).

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
    "inner_scores_logsumexp_softmax": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.inner(Q, K) / math.sqrt(d_k)          # inner over the last dims: Q @ K.T
    weights = (scores - torch.logsumexp(scores, dim=-1, keepdim=True)).exp()
    return weights @ V, weights
'''},
    "std_squared_in_place_scale": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots.mul_(d_k ** -0.5)
    return torch.std(dots, correction=1).square().item()   # sample variance = (sample std)^2
'''},
    "entropy_vecdot_table_dict_zip": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return torch.linalg.vecdot(p, -F.log_softmax(logits, dim=-1))


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    keys = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q * k).sum(dim=1)                         # broadcast (1, d) * (5, d): the 5 scores
        scaled = raw / math.sqrt(d)
        values = (d, raw.std().item(), scaled.std().item(),
                  softmax_entropy(raw).item(), softmax_entropy(scaled).item())
        table.append(dict(zip(keys, values)))
    return table
'''},
    "unfold_heads_batched": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    # unfold(1, d_k, d_k) cuts the columns into windows of d_k, step d_k: (T, n_heads, d_k)
    Qh, Kh, Vh = ((X @ W).unfold(1, d_k, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))
    weights = torch.softmax(Qh @ Kh.mT / math.sqrt(d_k), dim=-1)     # (n_heads, T, T)
    heads = (weights @ Vh).transpose(0, 1).reshape(T, d_model)        # head 0's columns first
    return heads @ W_O
'''},
}

WRONG = {
    "q1_row_sum_read_as_values": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / d_k ** 0.5
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    weights = e / e.sum(dim=-1, keepdim=True).values
    return weights @ V, weights
'''}, {"mistake": "the hand-written softmax divides by `e.sum(dim=-1, keepdim=True).values`: `.values` belongs "
                  "to the (values, indices) pair that max returns, while sum returns a plain tensor, whose "
                  "`.values` is a method, so the division raises a TypeError",
       "where": ["q1", "q8"]}),
    "q1_shifted_numerator_unshifted_denominator": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / d_k ** 0.5
    row_max = scores.max(dim=-1, keepdim=True).values
    weights = torch.exp(scores - row_max) / torch.exp(scores).sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''}, {"mistake": "the stable softmax subtracts the row max in the numerator only, the denominator sums the "
                  "unshifted exponentials, so each row of weights is scaled by exp(-row max) and does not sum "
                  "to 1 (and the output is scaled the same way)",
       "where": ["q1", "q8"]}),
    "q1_broadcast_mix_summed_over_queries": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)              # (T_q, T_k)
    out = (weights.unsqueeze(-1) * V.unsqueeze(0)).sum(dim=0)          # (T_q, T_k, d_v) -> mix
    return out, weights
'''}, {"mistake": "the weighted mix is built by broadcasting (T_q, T_k, 1) * (1, T_k, d_v) but summed over "
                  "dim 0, the queries, instead of dim 1, the keys: the output has shape (T_k, d_v) and row j "
                  "is value j times its total weight over all queries",
       "where": ["q1", "q8"]}),
    # seen in: Karpathy-style `MultiHeadAttention.forward` with `torch.cat([h(x) for h in self.heads],
    # dim=2)` on (B, T, head_size) heads, several forks in the code index.
    "q8_heads_cat_batched_axis_2": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=2) @ W_O          # concatenate along the feature axis
'''}, {"mistake": "the heads are concatenated with `dim=2`, the feature axis of batched (B, T, head_size) "
                  "code; here each head is (T, d_k), its feature axis is 1, and cat raises an IndexError",
       "where": ["q8"]}),
    "q8_merge_flatten_default_start_dim": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = (M.view(T, n_heads, d_k).transpose(0, 1) for M in (X @ W_Q, X @ W_K, X @ W_V))
    weights = F.softmax(Q @ K.transpose(1, 2) / math.sqrt(d_k), dim=-1)     # (n_heads, T, T)
    heads = (weights @ V).transpose(0, 1)                                  # (T, n_heads, d_k)
    return heads.flatten() @ W_O                  # merge the heads back into d_model columns
'''}, {"mistake": "the heads are merged with `flatten()`, whose start_dim defaults to 0, so the (T, n_heads, "
                  "d_k) tensor becomes one vector of T * d_model numbers instead of (T, d_model) (that needs "
                  "`flatten(1)`), and the product with W_O fails for T > 1",
       "where": ["q8"]}),
    # seen in: "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated"
    # warnings reported in many repositories (pytorch/pytorch#64180 deprecated it); `.T` reverses all axes.
    "q8_batched_keys_transposed_with_T": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).reshape(T, n_heads, d_k).permute(1, 0, 2)          # (n_heads, T, d_k)
    K = (X @ W_K).reshape(T, n_heads, d_k).permute(1, 0, 2)
    V = (X @ W_V).reshape(T, n_heads, d_k).permute(1, 0, 2)
    scores = Q @ K.T / math.sqrt(d_k)                                # Q K^T for every head
    heads = F.softmax(scores, dim=-1) @ V
    return heads.permute(1, 0, 2).reshape(T, d_model) @ W_O
'''}, {"mistake": "the batched keys (n_heads, T, d_k) are transposed with `.T`, which on a 3-D tensor reverses "
                  "all three axes to (d_k, T, n_heads) instead of swapping the last two (`.mT` or "
                  "`transpose(-2, -1)`), so the batched matmul fails (or, with matching sizes, mixes heads)",
       "where": ["q8"]}),
    "q8_merge_heads_permuted_last": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = (M.reshape(T, n_heads, d_k).transpose(0, 1) for M in (X @ W_Q, X @ W_K, X @ W_V))
    weights = torch.softmax(Q @ K.transpose(-2, -1) / d_k ** 0.5, dim=-1)
    heads = weights @ V                                             # (n_heads, T, d_k)
    concat = heads.permute(1, 2, 0).reshape(T, d_model)             # tokens first again
    return concat @ W_O
'''}, {"mistake": "the heads are merged with `permute(1, 2, 0)`, giving (T, d_k, n_heads), so the reshape "
                  "interleaves the heads column by column (column j holds feature j // n_heads of head "
                  "j % n_heads) instead of putting head 0's d_k columns first (`permute(1, 0, 2)`)",
       "where": ["q8"]}),
    # seen in: coordinate unpacking such as `x1, y1, x2, y2 = boxes.unbind(dim=-1)` and
    # `i, j, k, r = quaternion.unbind(dim=-1)` in the code index, where the pair axis is the last one.
    "q2_pair_draw_unbound_on_last_axis": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pairs = torch.randn(n_samples, 2, d_k, generator=generator)      # one (q, k) pair per sample
    q, k = pairs.unbind(dim=-1)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the (n_samples, 2, d_k) draw is unbound along the last axis (the d_k coordinates) instead "
                  "of axis 1 (the pair), so unpacking into q, k fails unless d_k == 2",
       "where": ["q2"]}),
    "q2_in_place_scale_aliases_unscaled": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    scaled_dots = dots.div_(math.sqrt(d_k))          # in place: no extra buffer
    chosen = scaled_dots if scaled else dots
    return chosen.var().item()
'''}, {"mistake": "the scaled dots are made with the in-place `div_`, which divides `dots` itself (the two "
                  "names are the same tensor), so the unscaled call also returns the variance of q.k / "
                  "sqrt(d_k), about 1 instead of d_k",
       "where": ["q2"]}),
    # seen in: the Bernoulli entropy `-(p * torch.log(p + eps) + (1 - p) * torch.log(1 - p + eps))` in
    # several repositories of the code index (entropy losses over per-bit probabilities).
    "q4_entropy_bernoulli_terms_summed": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    H = -(p * torch.log(p + 1e-9) + (1 - p) * torch.log(1 - p + 1e-9))
    return H.sum(dim=-1)
''' + _TABLE}, {"mistake": "the entropy uses the two-outcome (Bernoulli) formula for every key and sums it, "
                           "adding -(1-p) ln(1-p) terms that do not belong to the entropy of one categorical "
                           "distribution, so every value is too large (a uniform row of 5 gives about 2.50, "
                           "not ln 5)",
                "where": ["q4"]}),
    # seen in: `(probs * torch.log(1/probs)).sum(dim=-1)` entropies in the code index (guarded there by a
    # clamp); here the lesson's 1e-9 is added after the reciprocal.
    "q4_entropy_reciprocal_epsilon_too_late": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return (p * torch.log(1 / p + 1e-9)).sum(dim=-1)      # H = sum p log(1/p)
''' + _TABLE}, {"mistake": "the epsilon is added after the reciprocal, log(1/p + 1e-9): a probability that "
                           "underflowed to 0 gives 1/0 = inf, 0 * log(inf) = NaN, so a saturated row returns "
                           "NaN instead of 0",
                "where": ["q4"]}),
    # seen in: `batch_dot(a, b) = torch.bmm(a.unsqueeze(1), b.unsqueeze(2)).squeeze()` helpers in the code
    # index, which take (B, n) inputs only.
    "q4_entropy_bmm_row_dot": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    log_p = torch.log(p + 1e-9)
    # one dot product p . log p per row: (B, 1, T) @ (B, T, 1) -> (B, 1, 1)
    return -torch.bmm(p.unsqueeze(1), log_p.unsqueeze(2)).squeeze(-1).squeeze(-1)
''' + _TABLE}, {"mistake": "the per-row dot product uses `torch.bmm` on `unsqueeze(1)` / `unsqueeze(2)`, which "
                           "only works for 2-D logits: a single row (shape (T,), as in entropy_table) or a "
                           "3-D batch makes bmm fail, although the function must take any (..., T)",
                "where": ["q4"]}),
    # seen in: the "appending dictionaries in a loop" pitfall (ellicium's blog post on appending Python
    # dictionaries: one dict updated in the loop, every list entry shows the last values).
    "q4_table_one_row_dict_reused": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    row = {}
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        row["d"] = d
        row["raw_std"] = raw.std().item()
        row["scaled_std"] = scaled.std().item()
        row["H_raw"] = softmax_entropy(raw).item()
        row["H_scaled"] = softmax_entropy(scaled).item()
        results.append(row)
    return results
'''}, {"mistake": "one dict is created before the loop and updated for every d, so the list holds the same "
                  "dict len(dims) times and every entry shows the last d's values",
       "where": ["q4"]}),
    # seen in: `results += {"id": i, "error": "no such dinosaurs"}` on a list in a Django view in the code
    # index; `list += dict` extends the list with the dict's keys.
    "q4_table_list_extended_with_dict": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results += {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                    "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}
    return results
'''}, {"mistake": "`results += {...}` extends the list with the dict's keys instead of appending the dict, "
                  "so the function returns 20 strings ('d', 'raw_std', ...) instead of four dicts",
       "where": ["q4"]}),
}
