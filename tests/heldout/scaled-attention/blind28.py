"""Twenty-eighth blind held-out set for scaled-attention, written without reading the grader's catalogue
of misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests
or the git log. What was read: the lessons (08, 79, 80), the student-facing text of the master notebook,
`full_marks.ipynb`, `harness.py`, and only the module docstrings and variant names of blind.py ..
blind27.py, so that their mistakes are not repeated in the same form.

How it was made: counting the earlier sets' names by question gives q4 109, q1 93, q8 85, q2 64 and
q5-q7 15, 11 and 10 (every wrong letter already taken in its plain form), so this set keeps q4 to two
variants and puts the weight on q1 (four), q8 (four) and q2 (three), with one multiple-choice answer.
Half of the fourteen wrong variants sit in the core (scores, scaling, softmax, multi-head reshapes) and
half in the other questions. The mix follows a real first attention class: small slips inside otherwise
right code (the class's temperature given d_k instead of sqrt(d_k), the fused-QKV reshape with its 3 and
n_heads axes in the wrong order, the scale line written after the softmax line, the scaled flag used as a
multiplier, `.item` without its call), whole-approach mistakes (cosine-similarity scores, additive tanh
scores, head outputs averaged by n_heads, draws from torch.distributions that cannot take the generator,
the collision (Renyi-2) entropy for the Shannon entropy), crashes of half-remembered numpy APIs
(`ndarray.dot` on 2-D, `transpose(1, 0, 2)`, `Generator.standard_normal`), and a q6 answer of a student
who read the lesson's trace ("token 0 leans towards token 2") as the output being that one row. Shapes
earlier sets used little: a small class with a temperature, a fused-QKV unbind, a branch-free flag,
helper functions, several statements where one would do.

Public code was searched (code, issues and pages corpora); nine of the fourteen wrong variants carry a
slip seen there, named in a comment above each: jadore801120/attention-is-all-you-need-pytorch's
`ScaledDotProductAttention(temperature=...)` and its copies, the CosineSimilarityAttention forks of
hyunwoongko/transformer, d2l's AdditiveAttention, numpy attention scripts with `np.dot(Q, K.T)`
(Furvos/self_attention, RasKrebs/llms4code_code_quality) and `.transpose(0, 2, 1, 3)`
(PTSown0222/TensorTonic-Solutions), timm/ViT's fused `qkv.reshape(B, N, 3, heads, hd)` (copies in
A1ex-Chen/DL_project_log), nn.MultiheadAttention's `average_attn_weights`, numpy's `default_rng()`
Generator methods, and torch.distributions' `sample()` without a generator (pytorch/pytorch#45115,
#175478). The other five are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that should lose points (q8 calls the student's `attention`, so a q1 slip
that changes or breaks the output costs q8 too). Correct variants are valid but unusual (scores by
`torch.inner` with the output by einsum, a small dataclass holding the inverse scale, pairs drawn as one
(n, 2, d_k) tensor and multiplied by `prod`, the table's statistics filled in by a loop over
("raw", "scaled") with the scores by broadcast, heads taken from a permuted view and merged with
`stack(..., 1).flatten(1)`). Every variant was run against the full-marks cells and plain torch
(`F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`) before it was written down here (a
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
    "inner_scores_einsum_mix": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.inner(Q, K)                 # contracts the last dims: Q @ K.T, (T_q, T_k)
    scores.mul_(1.0 / math.sqrt(d_k))          # a fresh tensor, so scaling it in place is safe
    weights = torch.nn.functional.softmax(scores, dim=1)
    output = torch.einsum("qk,kv->qv", weights, V)
    return output, weights
'''},
    "dataclass_inverse_scale": {"attention": '''
from dataclasses import dataclass


@dataclass
class _Scaler:
    d_k: int

    @property
    def inv(self):
        return self.d_k ** -0.5

    def __call__(self, scores):
        return scores * self.inv


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scaled = _Scaler(d_k)(torch.matmul(Q, K.transpose(-2, -1)))
    shifted = scaled - scaled.amax(dim=-1, keepdim=True)
    expd = shifted.exp()
    weights = expd / expd.sum(dim=-1, keepdim=True)
    return torch.matmul(weights, V), weights
'''},
    "pairs_as_one_tensor_prod": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    pairs = torch.randn(n_samples, 2, d_k, generator=generator)   # pairs[:, 0] is q, pairs[:, 1] is k
    dots = pairs.prod(dim=1).sum(dim=1)
    if scaled:
        dots = dots.div(d_k ** 0.5)
    return torch.var(dots, correction=1).item()
'''},
    "table_stats_by_tag_loop": {"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (k * q).sum(dim=1)               # q broadcast against every key row: 5 scores
        row = {"d": d}
        for tag, s in (("raw", raw), ("scaled", raw / math.sqrt(d))):
            row[tag + "_std"] = torch.std(s).item()
            row["H_" + tag] = softmax_entropy(s).item()
        table.append(row)
    return table
'''},
    "permuted_view_stack_flatten": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def heads(M):                              # (T, d_model) -> (n_heads, T, d_k)
        return M.view(T, n_heads, d_k).permute(1, 0, 2)

    outs = [attention(q, k, v, d_k)[0]
            for q, k, v in zip(heads(X @ W_Q), heads(X @ W_K), heads(X @ W_V))]
    concat = torch.stack(outs, dim=1).flatten(1)   # (T, n_heads, d_k) -> (T, d_model), head 0 first
    return concat @ W_O
'''},
}

WRONG = {
    # seen in: jadore801120/attention-is-all-you-need-pytorch and its copies, where the module is built as
    # ScaledDotProductAttention(temperature=d_k ** 0.5); here the class is given d_k itself
    "q1_temperature_class_given_d_k": ({"attention": '''
class ScaledDotProduct:
    """Softmax attention with a temperature, as in the paper's code."""

    def __init__(self, temperature):
        self.temperature = temperature

    def __call__(self, q, k, v):
        attn = torch.matmul(q / self.temperature, k.T)
        attn = F.softmax(attn, dim=-1)
        return torch.matmul(attn, v), attn


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    return ScaledDotProduct(temperature=d_k)(Q, K, V)
'''}, {"mistake": "the temperature class is built with temperature=d_k instead of d_k ** 0.5, so the queries "
                   "(and hence the scores) are divided by d_k rather than sqrt(d_k)",
       "where": ["q1", "q8"]}),

    # seen in: CosineSimilarityAttention forks of hyunwoongko/transformer (scores from normalised q and k)
    "q1_cosine_similarity_scores": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    q_hat = F.normalize(Q, dim=-1)             # similarity should not depend on the vector lengths
    k_hat = F.normalize(K, dim=-1)
    scores = q_hat @ k_hat.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "the scores are cosine similarities (queries and keys normalised to unit length first) "
                   "instead of raw dot products, so the lengths of the vectors are thrown away",
       "where": ["q1", "q8"]}),

    # seen in: d2l's AdditiveAttention (queries.unsqueeze(2) + keys.unsqueeze(1), tanh, then a sum)
    "q1_additive_tanh_scores": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    features = torch.tanh(Q.unsqueeze(1) + K.unsqueeze(0))     # (T_q, T_k, d_k)
    scores = features.sum(dim=-1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "the scores are additive (Bahdanau) scores, a sum of tanh(q + k) over the features, "
                   "instead of the dot product q . k",
       "where": ["q1", "q8"]}),

    # seen in: numpy attention scripts that write np.dot(Q, K.T) (Furvos/self_attention,
    # RasKrebs/llms4code_code_quality); the method form Q.dot is 1-D only in torch
    "q1_numpy_dot_method_on_matrices": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q.dot(K.T) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights.matmul(V)
    return out, weights
'''}, {"mistake": "numpy's a.dot(b) is used for the matrix product, but torch's Tensor.dot only takes 1-D "
                   "tensors, so every call raises a RuntimeError",
       "where": ["q1", "q8"]}),

    # seen in: timm's ViT Attention and its copies (A1ex-Chen/DL_project_log), which reshape the fused
    # projection as (B, N, 3, heads, hd); here the 3 and the head axis are put in the other order
    "q8_fused_qkv_heads_axis_before_three": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    qkv = X @ torch.cat([W_Q, W_K, W_V], dim=1)               # (T, 3 * d_model)
    qkv = qkv.reshape(T, n_heads, 3, d_k).permute(2, 1, 0, 3)  # (3, n_heads, T, d_k)
    Qh, Kh, Vh = qkv.unbind(0)
    heads = [attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the fused (T, 3 * d_model) projection is reshaped as (T, n_heads, 3, d_k) instead of "
                   "(T, 3, n_heads, d_k), so the queries, keys and values of each head are cut from the "
                   "wrong columns (mixing W_Q, W_K and W_V)",
       "where": ["q8"]}),

    # seen in: the docs of torch.nn.MultiheadAttention (average_attn_weights averages over the heads), read
    # as if the head outputs were averaged too
    "q8_concat_averaged_over_heads": ({"multi_head_attention": '''
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
    concat = torch.cat(heads, dim=1) / n_heads     # average over the heads, like average_attn_weights
    return concat @ W_O
'''}, {"mistake": "the concatenated head outputs are divided by n_heads (an average over heads that "
                   "multi-head attention does not take), so the result is n_heads times too small",
       "where": ["q8"]}),

    "q8_scale_line_after_softmax_line": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)      # (n_heads, T, d_k)
    Kh = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    Vh = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    scores = Qh @ Kh.transpose(-2, -1)
    weights = scores.softmax(dim=-1)
    scores = scores / math.sqrt(d_k)
    out = (weights @ Vh).transpose(0, 1).reshape(T, d_model)
    return out @ W_O
'''}, {"mistake": "the scale is applied on the line after the softmax, to a scores tensor that is no longer "
                   "used, so the heads run unscaled attention",
       "where": ["q8"]}),

    # seen in: numpy multi-head code that permutes axes with .transpose(0, 2, 1, 3)
    # (PTSown0222/TensorTonic-Solutions); torch's Tensor.transpose swaps exactly two dims
    "q8_numpy_transpose_axes_tuple": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split_heads(M):
        return M.reshape(T, n_heads, d_k).transpose(1, 0, 2)   # (n_heads, T, d_k)

    Qh, Kh, Vh = split_heads(X @ W_Q), split_heads(X @ W_K), split_heads(X @ W_V)
    heads = [attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "numpy's transpose(1, 0, 2) axis permutation is used on a torch tensor, whose transpose "
                   "takes exactly two dims, so every call raises a TypeError",
       "where": ["q8"]}),

    # seen in: numpy's Generator API (rng = np.random.default_rng(seed); rng.standard_normal(shape));
    # a torch.Generator has no sampling methods
    "q2_numpy_rng_method_on_torch_generator": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = generator.standard_normal((n_samples, d_k))
    k = generator.standard_normal((n_samples, d_k))
    dots = (torch.as_tensor(q) * torch.as_tensor(k)).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the draws call numpy's Generator.standard_normal on the torch.Generator, which has no "
                   "such method, so every call raises an AttributeError",
       "where": ["q2"]}),

    # seen in: pytorch/pytorch#45115 and #175478: torch.distributions' sample() takes no generator, so the
    # draws come from the global RNG
    "q2_distributions_normal_without_generator": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    normal = torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0))
    q = normal.sample((n_samples, d_k))
    k = normal.sample((n_samples, d_k))
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the vectors come from torch.distributions.Normal(0, 1).sample, which cannot take the "
                   "generator, so the draws use the global RNG and two calls with generators seeded the "
                   "same way give different numbers",
       "where": ["q2"]}),

    "q2_flag_multiplies_scale_factor": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    dots = dots * (scaled / math.sqrt(d_k))    # no branch: the flag switches the scaling on
    return dots.var().item()
'''}, {"mistake": "the scaled flag multiplies the 1/sqrt(d_k) factor, so with scaled=False the dots are "
                   "multiplied by 0 and the variance is 0 instead of about d_k",
       "where": ["q2"]}),

    "q4_entropy_collision_renyi2": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -torch.log((p * p).sum(dim=-1))     # 0 for a one-hot row, ln T for a uniform one
''' + _TABLE}, {"mistake": "the entropy is the collision (Renyi order-2) entropy -ln(sum p^2) instead of the "
                           "Shannon entropy -sum p ln p; they agree only on one-hot and uniform rows",
                "where": ["q4"]}),

    "q4_table_item_without_call": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({
            "d": d,
            "raw_std": raw.std().item(),
            "scaled_std": scaled.std().item,
            "H_raw": softmax_entropy(raw).item(),
            "H_scaled": softmax_entropy(scaled).item(),
        })
    return results
'''}, {"mistake": "the scaled_std entry is the bound method scaled.std().item (its call parentheses are "
                   "missing), not a Python number",
       "where": ["q4"]}),

    "q6_answer_row_it_leans_towards": ({"q6_answer": '''# the trace says token 0 "leans towards token 2": the output row is that token's row
q6_answer = "C"
'''}, {"mistake": "the answer reads 'leans towards token 2' in the lesson's trace as the output being the "
                   "single best-matching row (C) instead of a softmax-weighted average of all rows (A)",
       "where": ["q6"]}),
}
