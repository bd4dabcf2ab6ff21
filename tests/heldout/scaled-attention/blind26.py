"""Twenty-sixth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the student-facing text of the master notebook (markdown and solution cells),
`full_marks.ipynb`, `harness.py`, the module docstrings and variant names of blind.py .. blind25.py, so
that their mistakes are not repeated in the same form, and blind25.py in full as a format example (the
lessons were not opened).

How it was made: round 26 asks for a realistic mix, as a real first attention class hands it in, half of
it in the core (scores, scale, softmax, head split and merge) and half in the other questions, with shapes
the earlier sets used little (a small class, helper functions, einsum, a loop where the notebook allows
one). Seven wrong variants are in the core: d2l's batched `keys.transpose(1, 2)` carried into the 2-D
function (a crash), TensorFlow's `matmul(q, k, transpose_b=True)` written with `torch.matmul` (a crash),
a small attention class whose `d_k=64` default (the paper's head width) is used because `attention` never
hands it the `d_k` it is given, a loop over the queries that stops one row short, a head merge helper that
reads its row count from the unmerged (heads-first) tensor (a crash whenever T != n_heads), projections
written as einsums in `nn.Linear`'s (out, in) weight layout, and an einsum head split whose score
subscripts drop the head letter, so the scores are summed over the heads. Seven are in the other
questions: a private `torch.Generator()` made once as a helper's default argument and used for the keys,
an augmented division `dots /= math.sqrt(d_k) if scaled else dots` (unscaled dots divided by themselves),
DeeBERT's entropy identity `log A - B / A` with unshifted exponentials (inf / inf on a saturated row),
`torch.mm(q, k)` without the transpose in the table (a crash unless d == 5), the table's "stds" taken of
the softmax probabilities instead of the scores, the table written as a generator function that yields
its rows (not a list), and a multiple-choice letter typed without quotes (`q6_answer = A`, a NameError).
Crashes: the two matmul variants, the merge helper, `torch.mm` and the unquoted letter; the rest return a
plausible value silently.

Public code was searched (code and issues corpora); seven of the fourteen wrong variants carry a slip seen
there, named in a comment above each: d2l's `torch.bmm(queries, keys.transpose(1, 2))` (d2l-ai/d2l-zh
attention-scoring-functions and its many forks, NeuromatchAcademy/course-content-dl W2D4), the TensorFlow
tutorial's `tf.matmul(q, k, transpose_b=True)` (soumik12345/transformer-ocr, cyobero/datascience and
copies), a hard-coded scale instead of 1/sqrt(head_dim) (BobMcDear/attorch#14), a merge that assumes the
other layout's dimensions (gazelle93/Transformer-Various-Positional-Encoding#1, hackiey/QAnet-pytorch#2),
einsum projections in the transposed weight layout (rasbt/LLMs-from-scratch#857), a fresh
`torch.Generator()` that always starts from the same fixed seed (pytorch/pytorch#25071), and the entropy
as `log(sum e^x) - sum(x e^x) / sum(e^x)` on raw exponentials (castorini/DeeBERT#17). The other seven
(the query loop's `range(T_q - 1)`, the head letter missing from the einsum, the conditional inside `/=`,
`torch.mm` without a transpose, the stds of the probabilities, `yield` for a list, the unquoted letter)
are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that should lose points (q8 calls the student's `attention`, so a q1 slip that
changes the output costs q8 too). Correct variants are valid but unusual (attention as a small class
built per call with the given `d_k`, the variance as `torch.cov` of dots whose products were pre-scaled,
the entropy from DeeBERT's identity computed on max-shifted logits, the table built from a per-d helper
with both stds and both entropies from stacked rows, and the heads run through `attention` on full-width
queries and keys masked to the head's columns). Every variant was run against the full-marks cells and
plain torch (`F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`) before it was written down
here (a script in /tmp, not in the repository).

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
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''

CORRECT = {
    "attention_class_built_per_call": {"attention": '''
class ScaledDotProduct:
    """softmax(Q K^T / sqrt(d_k)) V for one sequence."""

    def __init__(self, d_k):
        self.inv_scale = d_k ** -0.5

    def scores(self, Q, K):
        return torch.matmul(Q, K.transpose(-1, -2)).mul(self.inv_scale)

    def __call__(self, Q, K, V):
        w = torch.softmax(self.scores(Q, K), -1)
        return torch.matmul(w, V), w


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    return ScaledDotProduct(d_k)(Q, K, V)
'''},
    "variance_cov_of_prescaled_products": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    c = 1 / math.sqrt(d_k) if scaled else 1.0
    dots = (c * q * k).sum(dim=1)
    return float(torch.cov(dots))
'''},
    "entropy_shifted_exp_identity": {"softmax_entropy": '''def softmax_entropy(logits):
    """H = log A - B / A with A = sum e^z, B = sum z e^z, z = logits - max (so nothing overflows)."""
    z = logits - logits.amax(dim=-1, keepdim=True)
    e = z.exp()
    A = e.sum(dim=-1)
    B = (z * e).sum(dim=-1)
    return A.log() - B / A
''' + _TABLE},
    "table_row_helper_stacked_pairs": {"entropy_table": _ENTROPY + '''

def _table_row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = torch.mv(k, q[0])
    both = torch.stack([raw, raw * d ** -0.5])
    stds = both.std(dim=1)
    ents = softmax_entropy(both)
    return {"d": d, "raw_std": stds[0].item(), "scaled_std": stds[1].item(),
            "H_raw": ents[0].item(), "H_scaled": ents[1].item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        table.append(_table_row(d, seed))
    return table
'''},
    "heads_through_column_masks": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros_like(V)
    for h in range(n_heads):
        mask = torch.zeros(d_model, dtype=X.dtype)
        mask[h * d_k:(h + 1) * d_k] = 1
        # zeroed columns add nothing to a dot product, so these are head h's scores
        _, w = attention(Q * mask, K * mask, V, d_k)
        concat = concat + w @ (V * mask)
    return concat @ W_O
'''},
}

WRONG = {
    # seen in: d2l-ai/d2l-zh attention-scoring-functions (DotProductAttention:
    # `torch.bmm(queries, keys.transpose(1, 2))`) and its forks, NeuromatchAcademy/course-content-dl W2D4
    "q1_d2l_batched_key_transpose_on_2d": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.matmul(Q, K.transpose(1, 2)) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''}, {"mistake": "the keys are transposed with `K.transpose(1, 2)`, copied from d2l's batched (batch, T, d) "
                  "code; our K is 2-D, so dimension 2 does not exist and it raises an IndexError",
       "where": ["q1", "q8"]}),
    # seen in: the TensorFlow transformer tutorial's `tf.matmul(q, k, transpose_b=True)`
    # (soumik12345/transformer-ocr src/blocks.py, cyobero/datascience and copies)
    "q1_tensorflow_transpose_b_keyword": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    matmul_qk = torch.matmul(Q, K, transpose_b=True)
    scaled_logits = matmul_qk / math.sqrt(d_k)
    weights = F.softmax(scaled_logits, dim=-1)
    return torch.matmul(weights, V), weights
'''}, {"mistake": "the scores are written TensorFlow-style, `torch.matmul(Q, K, transpose_b=True)`; "
                  "torch.matmul has no transpose_b argument, so it raises a TypeError (K must be transposed "
                  "by hand)", "where": ["q1", "q8"]}),
    # related slip seen in: BobMcDear/attorch#14 (a hard-coded softmax scale instead of 1/sqrt(head_dim))
    "q1_class_default_d_k_never_passed": ({"attention": '''
class ScaledDotProduct:
    """softmax(Q K^T / sqrt(d_k)) V; d_k = 64 as in the paper."""

    def __init__(self, d_k=64):
        self.scale = 1.0 / math.sqrt(d_k)

    def __call__(self, Q, K, V):
        weights = F.softmax(Q @ K.transpose(-2, -1) * self.scale, dim=-1)
        return weights @ V, weights


_sdpa = ScaledDotProduct()


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    return _sdpa(Q, K, V)
'''}, {"mistake": "the attention object is built once with its default d_k=64 and `attention` never passes the "
                  "d_k it is given, so every call is scaled by 1/8 instead of 1/sqrt(d_k)",
       "where": ["q1", "q8"]}),
    "q1_query_loop_stops_one_short": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    T_q = Q.shape[0]
    weights = Q.new_zeros(T_q, K.shape[0])
    for i in range(T_q - 1):
        weights[i] = F.softmax(K @ Q[i] / math.sqrt(d_k), dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "the loop over the queries runs `range(T_q - 1)`, so the last query's row of weights is "
                  "never filled: it stays all zeros (it sums to 0) and its output row is 0",
       "where": ["q1", "q8"]}),
    # related slip seen in: gazelle93/Transformer-Various-Positional-Encoding#1 and hackiey/QAnet-pytorch#2
    # (a head merge that reshapes with the dimensions of the other layout)
    "q8_merge_helper_rows_from_unmerged_shape": ({"multi_head_attention": '''
def split_heads(x, n_heads):
    T, d_model = x.shape
    return x.reshape(T, n_heads, d_model // n_heads).transpose(0, 1)   # (n_heads, T, d_k)


def merge_heads(x):
    return x.transpose(0, 1).reshape(x.shape[0], -1)                    # (T, d_model)


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[1] // n_heads
    Qh, Kh, Vh = (split_heads(X @ W, n_heads) for W in (W_Q, W_K, W_V))
    heads = torch.stack([attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)])
    return merge_heads(heads) @ W_O
'''}, {"mistake": "merge_heads reshapes to `x.shape[0]` rows, but x is still (n_heads, T, d_k), so that is "
                  "n_heads, not T: the result is (n_heads, T * d_k) and `@ W_O` raises whenever T != n_heads",
       "where": ["q8"]}),
    # seen in: rasbt/LLMs-from-scratch#857 (einsum projections "bnd,di->bni" against a weight stored the
    # other way round); here the (out, in) layout of nn.Linear is assumed, which is x @ W.T
    "q8_einsum_projections_linear_layout": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q = torch.einsum("ti,oi->to", X, W_Q)
    K = torch.einsum("ti,oi->to", X, W_K)
    V = torch.einsum("ti,oi->to", X, W_V)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.einsum("ti,oi->to", torch.cat(heads, dim=1), W_O)
'''}, {"mistake": "every projection is an einsum 'ti,oi->to', nn.Linear's (out, in) layout, which computes "
                  "X @ W.T; the weights here are applied as X @ W, so Q, K, V and the output are all wrong",
       "where": ["q8"]}),
    "q8_einsum_scores_summed_over_heads": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k)
    K = (X @ W_K).view(T, n_heads, d_k)
    V = (X @ W_V).view(T, n_heads, d_k)
    scores = torch.einsum("thd,shd->ts", Q, K) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    heads = torch.einsum("ts,shd->thd", weights, V)
    return heads.reshape(T, d_model) @ W_O
'''}, {"mistake": "the score einsum 'thd,shd->ts' drops the head letter from the output, so the scores are "
                  "summed over the heads: every head shares one full-width attention pattern (scaled by the "
                  "head's sqrt(d_k)) instead of having its own", "where": ["q8"]}),
    # related: pytorch/pytorch#25071 (every fresh torch.Generator() starts from the same fixed seed); here
    # one is made once, as a helper's default argument, and the keys are drawn from it
    "q2_keys_from_default_argument_generator": ({"dot_product_variance": '''
def normal_matrix(rows, cols, gen=torch.Generator()):
    return torch.randn(rows, cols, generator=gen)


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = normal_matrix(n_samples, d_k, generator)
    k = normal_matrix(n_samples, d_k)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the keys are drawn with the helper's default `gen=torch.Generator()`, one generator made "
                  "when the helper was defined and shared by every call, not the `generator` passed in: two "
                  "calls with identically seeded generators give different numbers", "where": ["q2"]}),
    "q2_conditional_inside_augmented_divide": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    dots /= math.sqrt(d_k) if scaled else dots
    return dots.var().item()
'''}, {"mistake": "`dots /= math.sqrt(d_k) if scaled else dots` divides by the whole conditional, so without "
                  "scaling the dots are divided by themselves: all ones, variance 0 instead of about d_k",
       "where": ["q2"]}),
    # seen in: castorini/DeeBERT#17 (entropy as torch.log(A) - B / A with A = sum exp(x),
    # B = sum x exp(x), on raw exponentials)
    "q4_entropy_identity_unshifted_exponentials": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits): log(sum e^x) - sum(x e^x) / sum(e^x)."""
    exp_x = torch.exp(logits)
    A = torch.sum(exp_x, dim=-1)
    B = torch.sum(logits * exp_x, dim=-1)
    return torch.log(A) - B / A
''' + _TABLE}, {"mistake": "the entropy identity log A - B/A is computed on raw exponentials: a large logit "
                           "(500) overflows exp to inf, so a saturated row gives inf - inf/inf = NaN instead "
                           "of 0 (the logits must be shifted by their max first)", "where": ["q4"]}),
    "q4_table_mm_without_transpose": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mm(q, k)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "the scores are `torch.mm(q, k)` with k not transposed: (1, d) times (5, d) raises a shape "
                  "error for every d in the table (it would need k.T)", "where": ["q4"]}),
    "q4_table_stds_of_probabilities": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        p_raw, p_scaled = F.softmax(raw, dim=-1), F.softmax(scaled, dim=-1)
        results.append({"d": d, "raw_std": p_raw.std().item(), "scaled_std": p_scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "raw_std and scaled_std are the stds of the softmax probabilities, not of the 5 scores "
                  "before the softmax (about 0.1-0.4 instead of 1.24 and 0.62 at d = 4)", "where": ["q4"]}),
    "q4_table_yields_rows": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        yield {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
               "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}
'''}, {"mistake": "entropy_table yields its rows, so calling it returns a generator object, not the list of "
                  "dicts asked for (no len, no indexing, and it can be read only once)", "where": ["q4"]}),
    "q6_letter_without_quotes": ({"q6_answer": '''q6_answer = A
'''}, {"mistake": "the answer is typed as the bare name A instead of the string 'A': the cell raises a "
                  "NameError and q6_answer is never defined", "where": ["q6"]}),
}
