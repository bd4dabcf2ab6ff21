"""Twenty-ninth blind held-out set for scaled-attention, written without reading the grader's catalogue
of misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests
or the git log. What was read: the lessons (08, 79, 80), the student-facing text of the master notebook,
`full_marks.ipynb`, `harness.py`, and only the module docstrings and variant names of blind.py ..
blind28.py, so that their mistakes are not repeated in the same form.

How it was made: counting the earlier sets' names by question gives q4 111, q1 97, q8 89, q2 67 and
q5-q7 15, 12 and 10, with every wrong letter of q5-q7 already taken (most of them twice, with the
misreadings behind them), so this set writes no multiple-choice variant and keeps q4 to two; the weight
goes on q2 (four), q8 (four) and q1 (four). Half of the fourteen wrong variants sit in the core (scores,
masks, softmax, multi-head merges) and half in the other questions. The mix follows a real first
attention class: small slips inside otherwise right code (a default `mask` argument sized for the
lesson's 3-token trace, the heads' softmax taken over the head axis, `generator.seed()` called to "seed"
the generator, `*` for `@` before W_O, `+` for `*` in the dot product), whole-approach mistakes (scores
as Q^T K read off the vector formula q^T k, a token barred from attending to itself, W_O folded into the
values before the split, each pair cut out of one d_k-wide draw, perplexity returned for entropy, the
table seeded through numpy), and crashes of half-remembered APIs (`nn.Softmax(scores, dim=-1)`,
`torch.tensor` of a list of head outputs, `np.var(..., ddof=1)` on a tensor). Shapes earlier sets used
little: a default argument holding a tensor, helper functions, a small class, einsum over heads, several
statements where one would do.

Public code was searched (code, issues and pages corpora); seven of the fourteen wrong variants carry a
slip seen there, named in a comment above each: nn.Softmax the module used as the function (the
`self.softmax = nn.Softmax(dim=2)` modules of jadore801120/attention-is-all-you-need-pytorch and its
copies, pytorch/pytorch#1020), the `mask_diagonal` option of public self-attention layers (Wilker Aziz's
TensorFlow `self_attention_layer`, former-style `mask_fn` copies) switched on,
`torch.tensor` on a list of tensors ("only one element tensors can be converted", duoke360, lxadm and
defstartup pages), `Generator.seed()` reseeding from the device (pytorch/pytorch#25070), numpy's
`var(ddof=...)` habits on torch data (pytorch/pytorch#2436, #8284), numpy-first seeding recipes
(mindfulai, codegenes and agentbus pages), and entropy and perplexity taught side by side (leimao's
"Entropy, Perplexity and Its Applications"). The other seven are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that should lose points (q8 calls the student's `attention`, so a q1 slip
that changes or breaks the output costs q8 too). Correct variants are valid but unusual (a small class
with an einsum score and a max-shifted softmax written out in steps, lesson 80's `mask=None` signature
with the branch unused, the dot products accumulated by a loop over the d_k coordinates and returned
through `.tolist()`, the entropy from `logsumexp` with the table's stds from `std_mean`, heads taken from
views of the weight matrices and merged by einsum). Every variant was run against the full-marks cells
and plain torch (`F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`) before it was written
down here (a script in /tmp, not in the repository).

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
'''

CORRECT = {
    "attention_class_einsum_stepwise_softmax": {"attention": '''
class _ScaledDotProduct:
    """Attention with the 1/sqrt(d_k) kept on the instance."""

    def __init__(self, d_k):
        self.inv_scale = 1.0 / math.sqrt(d_k)

    def __call__(self, Q, K, V):
        scores = torch.einsum("...qd,...kd->...qk", Q, K) * self.inv_scale
        shifted = scores - scores.amax(dim=-1, keepdim=True)
        e = torch.exp(shifted)
        total = e.sum(dim=-1, keepdim=True)
        weights = e / total
        return torch.einsum("...qk,...kv->...qv", weights, V), weights


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    return _ScaledDotProduct(d_k)(Q, K, V)
'''},
    "attention_optional_mask_unused": {"attention": '''
def attention(Q, K, V, d_k, mask=None):
    """Scaled dot-product attention (lesson 80's signature: an optional boolean mask, True = keep)."""
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''},
    "variance_coordinate_loop_tolist": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.zeros(n_samples, dtype=q.dtype)
    for i in range(d_k):                 # one coordinate at a time: q.k = sum_i q_i k_i
        dots += q[:, i] * k[:, i]
    if scaled:
        dots /= d_k ** 0.5
    return torch.var(dots).tolist()      # a 0-d tensor's tolist() is a Python float
'''},
    "entropy_logsumexp_table_std_mean": {"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_z = torch.logsumexp(logits, dim=-1, keepdim=True)
    log_p = logits - log_z
    p = torch.exp(log_p)
    return -(p * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.matmul(k, q.squeeze(0))          # the same 5 scores as (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        raw_std, _ = torch.std_mean(raw)
        scaled_std, _ = torch.std_mean(scaled)
        row = dict(d=d, raw_std=raw_std.item(), scaled_std=scaled_std.item())
        row["H_raw"] = softmax_entropy(raw).item()
        row["H_scaled"] = softmax_entropy(scaled).item()
        table.append(row)
    return table
'''},
    "heads_from_weight_views_einsum": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = W_Q.shape[0]
    d_k = d_model // n_heads

    def per_head(W):                     # column block h of X @ W is X @ W[:, h*d_k:(h+1)*d_k]
        return torch.einsum("tm,mhd->htd", X, W.view(d_model, n_heads, d_k))

    heads = torch.stack([attention(q, k, v, d_k)[0]
                         for q, k, v in zip(per_head(W_Q), per_head(W_K), per_head(W_V))])
    return torch.einsum("htd,hdm->tm", heads, W_O.view(n_heads, d_k, d_model))   # = concat @ W_O
'''},
}

WRONG = {
    # core (masks): lesson 80's optional mask, with the default built once, at definition time, for the
    # lesson's 3-token trace.
    "q1_default_mask_sized_for_trace": ({"attention": '''
def attention(Q, K, V, d_k, mask=torch.ones(3, 3, dtype=torch.bool)):
    """Scaled dot-product attention; `mask` (True = keep) as in lesson 80."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "the default mask is an all-True 3 x 3 tensor made once when the function is defined (sized "
                  "for the lesson's 3-token trace), so any call whose scores are not 3 x 3 (T_q != 3 or "
                  "T_k != 3) fails to broadcast in masked_fill; a default of None is what lets the "
                  "function work for every shape",
       "where": ["q1", "q8"]}),
    # seen in: the `self.softmax = nn.Softmax(dim=2)` modules of jadore801120/attention-is-all-you-need-pytorch
    # and its copies, and the module/function confusion of pytorch/pytorch#1020: the module class is called
    # like F.softmax, with the tensor as its first argument.
    "q1_softmax_module_given_the_scores": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.nn.Softmax(scores, dim=-1)
    output = weights @ V
    return output, weights
'''}, {"mistake": "torch.nn.Softmax is a module class whose constructor takes only `dim`; calling it with the "
                  "scores (nn.Softmax(scores, dim=-1)) raises TypeError (got multiple values for argument "
                  "'dim') instead of applying the softmax (F.softmax(scores, dim=-1) or "
                  "nn.Softmax(dim=-1)(scores))",
       "where": ["q1", "q8"]}),
    # core (scores): the vector formula q^T k carried over to row-stacked matrices as Q^T K.
    "q1_scores_as_q_transpose_times_k": ({"attention": '''
def _scores(Q, K, d_k):
    """q^T k for every pair, scaled."""
    return Q.transpose(-2, -1) @ K / math.sqrt(d_k)


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    weights = F.softmax(_scores(Q, K, d_k), dim=-1)
    return weights @ V, weights
'''}, {"mistake": "the scores are computed as Q^T K (the vector formula q^T k copied onto matrices whose rows "
                  "are the vectors), a (d_k, d_k) matrix of feature-by-feature sums over tokens instead of "
                  "the (T_q, T_k) matrix Q K^T of query-key dot products; the weights have the wrong shape "
                  "and weights @ V fails unless d_k == T_k",
       "where": ["q1", "q8"]}),
    # seen in: the `mask_diagonal` option of public self-attention layers (Wilker Aziz's TensorFlow
    # `self_attention_layer(..., mask_diagonal=False, mask_value=float('-inf'))`, the
    # `mask_fn(x, mask_diagonal=...)` of former-style SelfAttention copies), here always on.
    "q1_own_position_masked_out": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    T_q, T_k = scores.shape[-2], scores.shape[-1]
    self_pos = torch.eye(T_q, T_k, dtype=torch.bool)
    scores = scores.masked_fill(self_pos, float("-inf"))   # a token should look at the others
    weights = F.softmax(scores, dim=-1)
    output = weights @ V
    return output, weights
'''}, {"mistake": "a diagonal mask sets score (i, i) to -inf so that query i never attends to key i; plain "
                  "scaled dot-product attention has no mask, and each query's weights must include its own "
                  "position",
       "where": ["q1", "q8"]}),
    # core (softmax axis in a batched head computation).
    "q8_softmax_over_the_head_axis": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k)
    K = (X @ W_K).view(T, n_heads, d_k)
    V = (X @ W_V).view(T, n_heads, d_k)
    scores = torch.einsum("qhd,khd->hqk", Q, K) / math.sqrt(d_k)   # (n_heads, T, T)
    weights = torch.softmax(scores, dim=0)
    heads = torch.einsum("hqk,khd->qhd", weights, V)              # (T, n_heads, d_k)
    return heads.reshape(T, d_model) @ W_O
'''}, {"mistake": "with the scores stacked as (n_heads, T, T) the softmax is taken over dim 0, the head axis, "
                  "so for each (query, key) the weights sum to 1 across heads instead of each query's "
                  "weights summing to 1 across keys (dim=-1)",
       "where": ["q8"]}),
    # seen in: the "only one element tensors can be converted to Python scalars" pages (duoke360, lxadm,
    # defstartup): torch.tensor() called on a list of tensors.
    "q8_head_outputs_merged_by_torch_tensor": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        outs.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    heads = torch.tensor(outs)                        # (n_heads, T, d_k)
    concat = heads.permute(1, 0, 2).reshape(T, d_model)
    return concat @ W_O
'''}, {"mistake": "the list of head outputs is turned into one tensor with torch.tensor(outs), which cannot "
                  "build a tensor from a list of multi-element tensors (ValueError: only one element tensors "
                  "can be converted to Python scalars); torch.stack or torch.cat is needed",
       "where": ["q8"]}),
    # core (multi-head): W_O moved in front of the attention, as if it could be merged with W_V.
    "q8_output_projection_folded_into_values": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V @ W_O               # attention is linear in V, so project the values once up front
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(heads, dim=1)
'''}, {"mistake": "W_O is multiplied into the values before they are cut into heads and not applied to the "
                  "concatenation; head h then mixes columns of X W_V W_O instead of X W_V, which equals "
                  "concat(heads) @ W_O only with one head, so with several heads the result is wrong",
       "where": ["q8"]}),
    # core (output projection): `*` where `@` was meant.
    "q8_output_projection_elementwise": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(q, k, v, d_k)[0]
             for q, k, v in zip(Q.split(d_k, dim=1), K.split(d_k, dim=1), V.split(d_k, dim=1))]
    concat = torch.cat(heads, dim=1)
    out = concat * W_O
    return out
'''}, {"mistake": "the output projection is an elementwise product, concat * W_O, instead of the matrix "
                  "product concat @ W_O; it fails to broadcast when T != d_model and gives wrong values "
                  "when T == d_model",
       "where": ["q8"]}),
    # seen in: pytorch/pytorch#25070 ("torch.Generator.seed allows specifying the seed value"): g.seed()
    # reseeds the generator from std::random_device, unlike the seed(seed) of other random libraries.
    "q2_generator_seed_method_called": ({"dot_product_variance": '''
def _pairs(n_samples, d_k, generator):
    generator.seed()                              # seed the generator before drawing
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    return q, k


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q, k = _pairs(n_samples, d_k, generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "generator.seed() does not use the caller's seed: it reseeds the generator from a "
                  "non-deterministic source, so two calls with generators seeded the same way draw different "
                  "numbers and give different variances (the draws no longer follow the given generator's "
                  "state)",
       "where": ["q2"]}),
    # other (q2): "pairs (q, k), each a vector of d_k" read as one d_k-wide draw cut in two.
    "q2_pair_cut_from_one_d_k_draw": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    pairs = torch.randn(n_samples, d_k, generator=generator)   # one row per (q, k) pair
    q, k = pairs.chunk(2, dim=-1)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "each pair is cut out of a single d_k-wide draw, so q and k have only d_k/2 coordinates "
                  "each: the variance comes out near d_k/2 (1/2 when scaled) instead of d_k (1), and for an "
                  "odd d_k the halves differ in length and q * k fails",
       "where": ["q2"]}),
    # seen in: pytorch/pytorch#2436 and #8284, where users check torch's var against numpy's and its ddof;
    # here numpy's np.var(..., ddof=1) is called on the torch tensor itself.
    "q2_numpy_var_with_ddof_on_tensor": ({"dot_product_variance": '''
import numpy as np


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(np.var(dots, ddof=1))
'''}, {"mistake": "np.var is called on a torch tensor; numpy hands the call on to the tensor's own var method "
                  "with numpy's keywords (ddof, axis, dtype, out), which torch does not accept, so it raises "
                  "TypeError instead of returning the sample variance (dots.var().item())",
       "where": ["q2"]}),
    # other (q2): `+` typed for `*` in the dot product.
    "q2_coordinates_added_not_multiplied": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    terms = q + k
    dots = terms.sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the coordinates are added (q + k) instead of multiplied before the sum, so each 'dot "
                  "product' is the sum of 2 d_k independent normals: its variance is 2 d_k (2 when scaled) "
                  "instead of d_k (1)",
       "where": ["q2"]}),
    # seen in: leimao's "Entropy, Perplexity and Its Applications" and the many notes that teach entropy
    # and perplexity together; the perplexity exp(H) is returned for the entropy H.
    "q4_entropy_returned_as_perplexity": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    H = -(log_p.exp() * log_p).sum(dim=-1)
    return torch.exp(H)                   # effective number of keys attended to
''' + _TABLE}, {"mistake": "the function returns exp(H), the perplexity (the effective number of keys), "
                           "instead of the entropy H itself: a uniform row over 5 keys gives 5 instead of "
                           "ln 5 and a one-hot row gives 1 instead of 0",
                "where": ["q4"]}),
    # seen in: the seed-everything recipes (mindfulai, codegenes and agentbus pages) that list
    # np.random.seed(seed) beside torch.manual_seed(seed); here only the numpy one is kept.
    "q4_table_seeded_through_numpy": ({"softmax_entropy": _ENTROPY + '''
import numpy as np


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        np.random.seed(seed)              # same seed for every d
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "the seed is given to numpy (np.random.seed) instead of torch (torch.manual_seed), which "
                  "leaves torch's random state untouched: torch.randn keeps drawing from wherever the global "
                  "generator happens to be, so the draws are not the lesson's and change from call to call",
       "where": ["q4"]}),
}
