"""Seventy-sixth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`;
q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the
2-D `attention`; the notebook has no masks), `tests/heldout/harness.py`, blind75.py for the format, and only
the variant NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: FRAMEWORK-STYLE, OBJECT-ORIENTED AND STATEFUL CODE, written by a student who learnt
attention from `nn.Module` tutorials. In q1: an `nn.Softmax(dim=0)` module (normalises over the queries), a
helper class whose scale is a class attribute set on the first call (every later call uses the first d_k), an
`nn.Dropout` left in train mode on the weights, and the scale kept in a buffer registered in bfloat16 (a
mixed-precision habit: the factor is rounded); in q2: the draws "initialised like nn.Linear" with std 1/sqrt(d_k), and a
sampler class that keeps the first generator it was given in a class attribute; in q4: an `nn.LogSoftmax(dim=0)`
module for ln p (wrong axis for batched logits) and the keys drawn as `torch.randn(d, 5)` in nn.Linear's
(out, in) thinking; q5 'A' (activations of an initialised layer have unit variance), q6 'B' (a residual-style
reading of self-attention), q7 'C' (hard top-1 retrieval as in a lookup layer); in q8: the projections
written `F.linear(X, W)` (x @ W.T where the notebook's weights are (in, out)), `nn.Linear` layers loaded with the
given weights but keeping their default random bias, and a module cache keyed only on d_model that keeps the
first call's weights. Spread: q1 x4, q2 x2, q4 x2, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a hand-graded markdown
answer). The correct variants are framework-style too: an attention module built per call with
`nn.Softmax(dim=-1)` and an `lru_cache` keyed on d_k for the scale; `F.linear` with the transposed weights
(the right layout) in q8; a dataclass of head shapes with view/transpose splitting; q2 with a dataclass config
and q4 with `nn.LogSoftmax(dim=-1)` modules.

Public material used (nothing copied verbatim): rasbt/LLMs-from-scratch issue #60 (a CausalAttention
`nn.Module` with `nn.Linear(d_in, d_out, bias=qkv_bias)`, a `register_buffer` mask sliced to the sequence
length and `nn.Dropout` on the attention weights), karpathy/nanoGPT issue #473 (a buffer built once for
block_size and sliced, state that depends on the first size), pytorch/pytorch issue #103082 (what a library
layer's convention means for other shapes), suous/cs224n issue #1 (a registered causal buffer sliced with the
wrong sizes); the PyTorch documentation of `nn.Linear` (weight stored (out_features, in_features), y = x W^T + b,
bias on by default, kaiming-uniform init with bound 1/sqrt(in_features)) and of `nn.Softmax` (implicit dim
deprecated; dim picks the axis that sums to 1), `nn.Dropout` (active until `.eval()`).

How the variants were checked: /tmp/w76-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared every function with plain torch: `attention` against
`F.scaled_dot_product_attention` and a float64 softmax(QK^T/sqrt(d_k))V on shapes with T_q != T_k, d_v != d_k,
several non-square d_k called in sequence, float64/float32 (correct ones also float16); `dot_product_variance`
within 10% at several d_k, scaled and not, a float, reproducible with fresh equally-seeded generators;
`softmax_entropy` on 1-D, 2-D and 3-D logits and saturated rows, `entropy_table` against a hand-built table;
the letters; `multi_head_attention` against `nn.MultiheadAttention` (no biases) loaded with the same weights
and against a plain loop, for several (T, d_model, n_heads) called in sequence with fresh weights. Every
correct variant agrees everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    "attention_module_per_call_softmax_dim_last_scale_cached_by_d_k": {"attention": '''
import functools
from torch import nn


@functools.lru_cache(maxsize=None)
def _inv_root(d_k):
    # keyed on d_k, so a later call with another width gets its own scale
    return 1.0 / math.sqrt(d_k)


class _ScaledDotProduct(nn.Module):
    def __init__(self, d_k):
        super().__init__()
        self.scale = _inv_root(d_k)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, Q, K, V):
        weights = self.softmax(Q @ K.transpose(-2, -1) * self.scale)
        return weights @ V, weights


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    layer = _ScaledDotProduct(d_k)   # built per call: no state outlives the call
    out, weights = layer(Q, K, V)
    return out, weights
'''},
    "mha_f_linear_with_transposed_weights_loop": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    # F.linear(x, W) computes x @ W.T, so the notebook's (in, out) weights go in transposed
    Q = F.linear(X, W_Q.T)
    K = F.linear(X, W_K.T)
    V = F.linear(X, W_V.T)
    d_k = X.shape[-1] // n_heads
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return F.linear(torch.cat(heads, dim=-1), W_O.T)
'''},
    "mha_dataclass_shapes_view_transpose_heads": {"multi_head_attention": '''
from dataclasses import dataclass


@dataclass(frozen=True)
class HeadShape:
    T: int
    d_model: int
    n_heads: int

    @property
    def d_k(self):
        return self.d_model // self.n_heads


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    s = HeadShape(X.shape[0], X.shape[1], n_heads)

    def split(Y):   # (T, d_model) -> (n_heads, T, d_k), head h = columns h*d_k..(h+1)*d_k-1
        return Y.view(s.T, s.n_heads, s.d_k).transpose(0, 1)

    Qh, Kh, Vh = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    outs = torch.stack([attention(Qh[h], Kh[h], Vh[h], s.d_k)[0] for h in range(s.n_heads)])
    concat = outs.transpose(0, 1).reshape(s.T, s.d_model)
    return concat @ W_O
'''},
    "variance_dataclass_config_entropy_log_softmax_modules": {"dot_product_variance": '''
from dataclasses import dataclass


@dataclass
class DrawConfig:
    d_k: int
    n_samples: int
    scaled: bool = False

    @property
    def divisor(self):
        return math.sqrt(self.d_k) if self.scaled else 1.0


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    cfg = DrawConfig(d_k, n_samples, scaled)
    q = torch.randn(cfg.n_samples, cfg.d_k, generator=generator)
    k = torch.randn(cfg.n_samples, cfg.d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k) / cfg.divisor
    return dots.var().item()
''', "softmax_entropy": '''
from torch import nn


class SoftmaxEntropy(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = nn.Softmax(dim=-1)
        self.log_softmax = nn.LogSoftmax(dim=-1)

    def forward(self, logits):
        return -(self.softmax(logits) * self.log_softmax(logits)).sum(dim=-1)


def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return SoftmaxEntropy()(logits)


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
'''},
}

_ATT_HEAD = '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
'''

_ENTROPY_TABLE = '''

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

WRONG = {
    "q1_softmax_module_built_with_dim_zero": ({"attention": "from torch import nn\n\n\n" + _ATT_HEAD + '''    softmax = nn.Softmax(dim=0)   # as in the tutorial's (batch, classes) layer
    weights = softmax(Q @ K.T / math.sqrt(d_k))
    return weights @ V, weights
'''}, {"mistake": "The softmax is an `nn.Softmax(dim=0)` module, so it normalises each column (over the queries) "
                  "instead of each row over the keys: the weights' rows do not sum to 1 and the output is wrong.",
       "where": ["q1", "q8"]}),
    "q1_scale_kept_in_class_attribute_from_first_call": ({"attention": '''
class _Scaler:
    scale = None   # class attribute, shared by every call

    def __call__(self, scores, d_k):
        if _Scaler.scale is None:
            _Scaler.scale = 1 / math.sqrt(d_k)
        return scores * _Scaler.scale


_scaler = _Scaler()


''' + _ATT_HEAD + '''    weights = F.softmax(_scaler(Q @ K.T, d_k), dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The scale 1/sqrt(d_k) is stored in a class attribute on the first call and never recomputed, so "
                  "every later call uses the first call's d_k (4, from the trace cell): wrong weights and output "
                  "whenever d_k differs.",
       "where": ["q1", "q8"]}),
    "q1_dropout_module_left_in_train_mode_on_weights": ({"attention": "from torch import nn\n\n_attn_dropout = nn.Dropout(p=0.1)\n\n\n" + _ATT_HEAD + '''    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    weights = _attn_dropout(weights)   # as in the tutorial's attention block
    return weights @ V, weights
'''}, {"mistake": "An `nn.Dropout(0.1)` is applied to the weights and the module is never put in eval mode, so it "
                  "zeroes random weights and scales the rest by 1/0.9: rows no longer sum to 1 and results are "
                  "random.",
       "where": ["q1", "q8"]}),
    "q1_scale_buffer_registered_in_bfloat16": ({"attention": """from torch import nn


class _ScaledScores(nn.Module):
    def __init__(self, d_k):
        super().__init__()
        # buffer made in the mixed-precision project's dtype
        self.register_buffer("scale", torch.tensor(d_k ** -0.5, dtype=torch.bfloat16))

    def forward(self, Q, K):
        return (Q @ K.transpose(-2, -1)) * self.scale


""" + _ATT_HEAD + """    weights = F.softmax(_ScaledScores(d_k)(Q, K), dim=-1)
    return weights @ V, weights
"""}, {"mistake": "The scale 1/sqrt(d_k) is kept in a buffer created as bfloat16, so it is rounded to about 3 "
                  "significant digits (exact only when sqrt(d_k) is a power of 2): for d_k such as 6, 7 or 10 the "
                  "scores are scaled by a factor off by 1e-4 to 2e-3 relative, so weights and output are off by "
                  "about 1e-5 to 5e-4 (d_k = 4, 16, 64 are exact).",
       "where": ["q1", "q8"]}),
    "q2_draws_initialised_like_nn_linear_std_inverse_root": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    std = 1 / math.sqrt(d_k)   # fan-in init, as nn.Linear does
    q = torch.randn(n_samples, d_k, generator=generator) * std
    k = torch.randn(n_samples, d_k, generator=generator) * std
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The vectors are drawn with std 1/sqrt(d_k) (a layer's fan-in initialisation) instead of standard "
                  "normals, so the variance is 1/d_k unscaled and 1/d_k^2 scaled instead of d_k and 1.",
       "where": ["q2"]}),
    "q2_sampler_class_keeps_first_generator": ({"dot_product_variance": '''
class _PairSampler:
    generator = None   # set once, reused by later calls

    def draw(self, n_samples, d_k, generator):
        if _PairSampler.generator is None:
            _PairSampler.generator = generator
        g = _PairSampler.generator
        return torch.randn(n_samples, d_k, generator=g), torch.randn(n_samples, d_k, generator=g)


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q, k = _PairSampler().draw(n_samples, d_k, generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The generator is stored in a class attribute on the first call and every later call draws from "
                  "that first generator, ignoring the one passed in: two calls with equally seeded generators "
                  "give different numbers (not reproducible).",
       "where": ["q2"]}),
    "q4_log_probabilities_from_log_softmax_module_dim_zero": ({"softmax_entropy": '''
from torch import nn


def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = nn.Softmax(dim=-1)(logits)
    log_p = nn.LogSoftmax(dim=0)(logits)
    return -(p * log_p).sum(dim=-1)
''' + _ENTROPY_TABLE}, {"mistake": "ln p comes from an `nn.LogSoftmax(dim=0)` module while p is taken over the last "
                                   "dim, so for batched (2-D or more) logits the log-probabilities are normalised "
                                   "over the wrong axis and the entropies are wrong (1-D rows are right).",
       "where": ["q4"]}),
    "q4_table_keys_drawn_in_linear_weight_layout": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(d, 5)   # keys as a (in, out) weight, so no transpose below
        raw = (q @ k)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The keys are drawn as `torch.randn(d, 5)` (a weight-matrix layout) instead of `torch.randn(5, d)`, "
                  "so the seeded draws land in other places and the table's stds and entropies differ from the "
                  "lesson's.",
       "where": ["q4"]}),
    "q5_answer_a_unit_variance_like_initialised_layer": ({"q5_answer": '''
# Layers are initialised so activations keep unit variance, and q, k have unit-variance coordinates.
q5_answer = "A"
'''}, {"mistake": "Answers A (variance 1 whatever d_k) by analogy with a layer's variance-preserving "
                  "initialisation; the variance of the unscaled dot product is d_k (C).",
       "where": ["q5"]}),
    "q6_answer_b_residual_like_token_returns_itself": ({"q6_answer": '''
# With no projections the block is like an identity/residual path: each token gets itself back.
q6_answer = "B"
'''}, {"mistake": "Answers B (each token attends only to itself), reading self-attention as a residual/identity "
                  "path; the output is a softmax-weighted average of all rows (A).",
       "where": ["q6"]}),
    "q7_answer_c_hard_top1_retrieval_layer": ({"q7_answer": '''
# Like a retrieval/lookup layer: it picks the top-scoring key and returns its value.
q7_answer = "C"
'''}, {"mistake": "Answers C (returns only the best key's value, an argmax) as a top-1 retrieval layer does; "
                  "attention returns a softmax-weighted mix of all values and is differentiable (D).",
       "where": ["q7"]}),
    "q8_projections_with_f_linear_untransposed_weights": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = F.linear(X, W_Q), F.linear(X, W_K), F.linear(X, W_V)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return F.linear(torch.cat(heads, dim=1), W_O)
'''}, {"mistake": "Every projection is `F.linear(x, W)`, which computes `x @ W.T` (nn.Linear's (out, in) layout), "
                  "while the notebook's weights are (in, out) and meant as `x @ W`: all four projections use the "
                  "transposed weights and the output is wrong.",
       "where": ["q8"]}),
    "q8_linear_layers_loaded_but_default_bias_kept": ({"multi_head_attention": '''
from torch import nn


def _linear_from(W):
    layer = nn.Linear(W.shape[0], W.shape[1]).to(W.dtype)
    with torch.no_grad():
        layer.weight.copy_(W.T)   # nn.Linear stores (out, in)
    return layer


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    q_proj, k_proj, v_proj, o_proj = (_linear_from(W) for W in (W_Q, W_K, W_V, W_O))
    Q, K, V = q_proj(X), k_proj(X), v_proj(X)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return o_proj(torch.cat(heads, dim=1)).detach()
'''}, {"mistake": "The projections are `nn.Linear` layers loaded with the given weights (transposed correctly) but "
                  "built with their default `bias=True`, so each adds its own random bias: the output is off by "
                  "random offsets.",
       "where": ["q8"]}),
    "q8_projection_module_cached_by_width_keeps_first_weights": ({"multi_head_attention": '''
_proj_cache = {}


class _Projections:
    def __init__(self, W_Q, W_K, W_V, W_O):
        self.W_Q, self.W_K, self.W_V, self.W_O = W_Q, W_K, W_V, W_O


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    if d_model not in _proj_cache:   # build the module once per width
        _proj_cache[d_model] = _Projections(W_Q, W_K, W_V, W_O)
    p = _proj_cache[d_model]
    d_k = d_model // n_heads
    Q, K, V = X @ p.W_Q, X @ p.W_K, X @ p.W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(heads, dim=1) @ p.W_O
'''}, {"mistake": "The weights are kept in a module cached by d_model on the first call, so a later call with the "
                  "same width but new weights still projects with the first call's weights: wrong output.",
       "where": ["q8"]}),
}
