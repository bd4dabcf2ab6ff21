"""Seventy-second blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`;
q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the
2-D `attention`), `tests/heldout/harness.py`, blind71.py for the format, and only the variant NAMES of the
earlier blind*.py sets. The grader was not run on this set.

Focus of the round: PYTHONIC AND FUNCTIONAL IDIOMS, written by a student who knows Python better than torch:
comprehensions, `zip`, `functools.reduce`, generators, builtins applied to tensors, lambdas, unpacking,
`torch.vmap`, `math` instead of torch. In q1: the head width read by unpacking `d, T = Q.shape` in the wrong
order (the scale becomes sqrt(T_q)), the score rows built from `zip(Q, K)` "one query per key" (zip stops at
the shorter of T_q and T_k, so rows go missing when T_q > T_k), the softmax denominator taken with the builtin
`sum` over a 2-D tensor (it adds the rows up: each column, not each row, sums to 1), and the output mixed with
`functools.reduce` started from 1 instead of 0 (every output entry is 1 too big); in q2: the dot products kept
in a generator that is read once for the mean and again, empty, for the squared deviations (variance 0), and
the scale rounded with `round(math.sqrt(d_k))` (right only for perfect squares); in q4: the entropy summed with
the builtin `sum` (reduces the first axis: right for 1-D rows, wrong for batches), and the table's statistics
stored as lambdas evaluated after the loop (late binding: every row gets the last d's numbers), and the table
written as one list comprehension with `torch.manual_seed` called once before it (only the first d is drawn
from the seed); q5 'A' (a probe at d_k = 1 where every option gives 1 and `min` returns the first), q6 'C' (a
probe on large-norm inputs, where the softmax saturates and each output is the best-matching row), q7 'C'
(`next` over the options for the first one that mentions "gradient"); in q8: `torch.vmap` over the heads
with `in_dims=0` on a (T, n_heads, d_k) view (maps the tokens: each token attends over the heads), and the
head slices made by lambdas in a comprehension that all read the loop variable's last value (every head is
the last head). Spread: q1 x4, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown
answer). The correct variants are Pythonic too and right everywhere: scores by `torch.vmap` over the queries,
weights by a comprehension of row softmaxes stacked along dim 0, dot products from `zip(..., strict=True)`,
an entropy from `log_softmax` with a table built by a helper that seeds for every d, and multi-head attention
by `zip` over `split` heads or a `vmap` over the head axis with the right `in_dims`.

Public material used (nothing copied verbatim): sreerevanth/repopilot issue #267, Casper-Guo/Armchair-Strategist
issue #127 and lightgbm-org/LightGBM PR #7276 (ruff B905: `zip()` silently truncates to the shortest iterable;
`strict=True` as the fix); python/cpython PR #20961 (zip docs: zip is lazy, lengths may differ); pytorch/pytorch
PR #40717 (vmap's `in_dims` picks which dimension of each input is mapped) and jax-ml/jax issue #705 (a vmap
with the wrong in_axes); the Python docs on late-binding closures, on generators being exhausted after one pass,
and on the builtin `sum` iterating its argument's first axis (as `tf.reduce_sum(x, 0)` pages illustrate).

How the variants were checked: /tmp/w72-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared every function with plain torch: `attention` against a float64
`softmax(Q K^T / sqrt(d_k)) V` and `F.scaled_dot_product_attention` on several (T_q, T_k, d_k, d_v), with T_q
greater and smaller than T_k and d_v != d_k, in float64, float32 and float16 (loosely), output dtype checked;
`dot_product_variance` at d_k in {3, 4, 7, 8, 12, 64}, scaled and not, within 10%, a float, reproducible with
equal seeds; `softmax_entropy` against a log_softmax entropy on 1-D, 2-D, 3-D and saturated rows; `entropy_table`
against the spec computed directly; the letters against C / A / D; `multi_head_attention` against a head loop
and `torch.nn.MultiheadAttention` (no biases, transposed weights) in float64 and float32 with several
(T, d_model, n_heads). The correct variants agree everywhere; each wrong one differs only in its "where"."""

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

_SOFTMAX_ENTROPY = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''

CORRECT = {
    "q1_vmap_over_query_rows_and_zip_strict_dots": {
        "attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scale = 1 / math.sqrt(d_k)
    row_scores = torch.vmap(lambda q: K @ q * scale)      # one query row -> its T_k scores
    weights = F.softmax(row_scores(Q), dim=-1)
    out = weights @ V
    return out, weights
''',
        "dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    qs, ks = (torch.randn(n_samples, d_k, generator=generator) for _ in range(2))
    divisor = math.sqrt(d_k) if scaled else 1.0
    dots = torch.stack([q @ k / divisor for q, k in zip(qs, ks, strict=True)])
    return dots.var().item()
''',
    },
    "q1_row_softmax_comprehension_stacked_on_dim0": {
        "attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    *_, T_k, width = K.shape                        # width is d_k; the scale uses the given d_k
    assert width == Q.shape[-1]
    weights = torch.stack([F.softmax(K @ q / math.sqrt(d_k), dim=-1) for q in Q], dim=0)
    out = torch.stack([sum((w * v for w, v in zip(row, V, strict=True)), torch.zeros_like(V[0]))
                       for row in weights], dim=0)
    return out, weights
''',
    },
    "q4_log_softmax_entropy_table_from_seeded_helper": {
        "softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    def row(d):
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        return {"d": d,
                **{f"{name}_std": t.std().item() for name, t in (("raw", raw), ("scaled", scaled))},
                **{f"H_{name}": softmax_entropy(t).item() for name, t in (("raw", raw), ("scaled", scaled))}}
    return [row(d) for d in dims]
''',
    },
    "q8_zip_over_split_heads_cat_of_list": {
        "multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = (X @ W for W in (W_Q, W_K, W_V))
    heads = [attention(q, k, v, d_k)[0]
             for q, k, v in zip(Q.split(d_k, dim=1), K.split(d_k, dim=1), V.split(d_k, dim=1), strict=True)]
    return torch.cat(heads, dim=1) @ W_O
''',
    },
    "q8_vmap_over_head_axis_in_dims_one": {
        "multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def one_head(q, k, v):
        weights = F.softmax(q @ k.T / math.sqrt(d_k), dim=-1)
        return weights @ v

    Q, K, V = ((X @ W).view(T, n_heads, d_k) for W in (W_Q, W_K, W_V))
    heads = torch.vmap(one_head, in_dims=1, out_dims=1)(Q, K, V)     # (T, n_heads, d_k)
    return heads.reshape(T, d_model) @ W_O
''',
    },
}

WRONG = {
    "q1_scale_from_shape_unpacked_rows_first": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    d, T = Q.shape                       # read the width off the queries themselves
    scores = Q @ K.T / math.sqrt(d)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The width is read by unpacking `d, T = Q.shape`, but Q is (T_q, d_k): `d` is the number of "
                  "queries, so the scores are divided by sqrt(T_q) instead of sqrt(d_k); the weights and output "
                  "are wrong whenever T_q != d_k (in q8 the scale is sqrt(T) for every head).",
       "where": ["q1", "q8"]}),

    "q1_score_rows_from_zip_of_queries_and_keys": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # one row of scores per query: walk the queries alongside the keys
    scores = torch.stack([K @ q / math.sqrt(d_k) for q, k in zip(Q, K)])
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The score rows are built by iterating `zip(Q, K)`, which stops at the shorter of the two: "
                  "with T_q > T_k only the first T_k queries get a row, so weights are (min(T_q, T_k), T_k) and "
                  "the output misses its last rows; results are right only when T_q <= T_k.",
       "where": ["q1"]}),

    "q1_softmax_denominator_builtin_sum_over_queries": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    exps = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    weights = exps / sum(exps)             # normalise: divide by the total
    out = weights @ V
    return out, weights
'''}, {"mistake": "The softmax denominator is the builtin `sum(exps)`, which iterates the first axis and adds "
                  "the query rows together: each column is divided by its sum over the queries (and the row "
                  "shifts differ), so the rows of the weights do not sum to 1 and output and weights are wrong.",
       "where": ["q1", "q8"]}),

    "q1_output_reduce_started_from_one": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    from functools import reduce
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    # output = sum_j w[:, j] v_j, one key at a time
    out = reduce(lambda acc, j: acc + weights[:, j:j + 1] * V[j], range(K.shape[0]), 1)
    return out, weights
'''}, {"mistake": "The output is accumulated with `functools.reduce` whose start value is 1 (a product's "
                  "identity) instead of 0 / a zero tensor: the weights are right but every output entry is "
                  "exactly 1 too big.",
       "where": ["q1", "q8"]}),

    "q2_dots_generator_read_again_for_deviations": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    qs = torch.randn(n_samples, d_k, generator=generator)
    ks = torch.randn(n_samples, d_k, generator=generator)
    divisor = math.sqrt(d_k) if scaled else 1.0
    dots = ((q @ k).item() / divisor for q, k in zip(qs, ks))
    mean = sum(dots) / n_samples
    return float(sum((x - mean) ** 2 for x in dots) / (n_samples - 1))
'''}, {"mistake": "The dot products are a generator: the first `sum` for the mean consumes it, and the "
                  "second pass over it for the squared deviations sees nothing, so the function always "
                  "returns 0.0 instead of about d_k (or 1 scaled).",
       "where": ["q2"]}),

    "q2_scale_rounded_to_whole_root": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / round(math.sqrt(d_k))
    return dots.var().item()
'''}, {"mistake": "The scale is `round(math.sqrt(d_k))`, a whole number: right for perfect squares, but for "
                  "other d_k the scaled variance is d_k / round(sqrt d_k)^2 (2 at d_k = 2, 1.5 at 6, 1.33 at 12, "
                  "0.89 at 8) instead of 1; the unscaled variance is right.",
       "where": ["q2"]}),

    "q4_entropy_builtin_sum_over_first_axis": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -sum(p * torch.log(p + 1e-9))
''' + _ENTROPY_TABLE}, {"mistake": "The entropy is added up with the builtin `sum`, which iterates the FIRST axis: "
                  "for a 1-D row it gives the right number (so the table is right), but for a (..., T) batch it "
                  "sums over the rows and returns shape (T,) or logits.shape[1:] instead of one entropy per row.",
       "where": ["q4"]}),

    "q4_table_stats_lambdas_bound_late": ({"softmax_entropy": _SOFTMAX_ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    stats = {"raw_std": lambda: raw.std().item(), "scaled_std": lambda: scaled.std().item(),
             "H_raw": lambda: softmax_entropy(raw).item(), "H_scaled": lambda: softmax_entropy(scaled).item()}
    pending = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        pending.append(d)
    return [{"d": d, **{name: f() for name, f in stats.items()}} for d in pending]
'''}, {"mistake": "The statistics are lambdas that read `raw` and `scaled` when they are finally called, after "
                  "the loop (late binding): every row has the right d but the stds and entropies of the LAST d.",
       "where": ["q4"]}),

    "q4_table_comprehension_seeded_once_before": ({"softmax_entropy": _SOFTMAX_ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    torch.manual_seed(seed)
    draws = [(d, (torch.randn(1, d) @ torch.randn(5, d).T)[0]) for d in dims]
    return [{"d": d, "raw_std": raw.std().item(), "scaled_std": (raw / d ** 0.5).std().item(),
             "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(raw / d ** 0.5).item()}
            for d, raw in draws]
'''}, {"mistake": "The table is one list comprehension with `torch.manual_seed(seed)` called once before it (a "
                  "comprehension cannot hold the statement), so only the first d is drawn from the seed; every "
                  "later d continues the random stream and its stds and entropies differ from the lesson's.",
       "where": ["q4"]}),

    "q5_answer_probe_at_d_k_one_every_option_ties": ({"q5_answer": '''
_gen = torch.Generator().manual_seed(0)
_measured = dot_product_variance(1, 10000, _gen)
_options = {"A": lambda d: 1, "B": math.sqrt, "C": lambda d: d, "D": lambda d: d ** 2}
q5_answer = min(_options, key=lambda o: abs(_options[o](1) - _measured))   # the formula closest to the data
'''}, {"mistake": "The answer is chosen by a probe at d_k = 1, where all four formulas give 1: `min` over the "
                  "tie returns the first key, 'A' (variance 1 whatever d_k), instead of 'C' (d_k).",
       "where": ["q5"]}),

    "q6_answer_probe_on_large_inputs_matches_best_row": ({"q6_answer": '''
_gen = torch.Generator().manual_seed(0)
_X = 10 * torch.randn(5, 3, generator=_gen, dtype=torch.float64)
_out, _ = attention(_X, _X, _X, 3)
_best = [max(_X, key=lambda r: float(r @ x)) for x in _X]
q6_answer = "C" if all(torch.allclose(o, b, atol=1e-3) for o, b in zip(_out, _best)) else "A"
'''}, {"mistake": "The answer comes from a probe with large-norm rows, where the scaled scores are so wide that "
                  "the softmax saturates and each output is (numerically) the best-matching row: the student "
                  "answers 'C' (the argmax row) instead of 'A' (a softmax-weighted average of all rows).",
       "where": ["q6"]}),

    "q7_answer_first_option_mentioning_gradient": ({"q7_answer": '''
_options = {
    "A": "returns the value of the key that equals the query exactly",
    "B": "only works when the keys are sorted",
    "C": "returns the value of the best-scoring key only, an argmax with no useful gradient",
    "D": "a softmax-weighted mix of all the values: a soft, differentiable lookup",
}
q7_answer = next(letter for letter, text in _options.items() if "gradient" in text)   # the lesson is about gradients
'''}, {"mistake": "The letter is picked with `next` over the options for the first one whose text mentions "
                  "'gradient'; that is C (the argmax, 'no useful gradient'), not D (the soft, differentiable "
                  "lookup, which says 'differentiable').",
       "where": ["q7"]}),

    "q8_vmap_in_dims_zero_maps_tokens_not_heads": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def one_head(q, k, v):
        weights = F.softmax(q @ k.T / math.sqrt(d_k), dim=-1)
        return weights @ v

    Q, K, V = ((X @ W).view(T, n_heads, d_k) for W in (W_Q, W_K, W_V))
    heads = torch.vmap(one_head)(Q, K, V)                    # default in_dims=0
    return heads.reshape(T, d_model) @ W_O
'''}, {"mistake": "`torch.vmap` is called with the default `in_dims=0` on (T, n_heads, d_k) views, so it maps "
                  "over the TOKENS: each token attends over its own n_heads head slices instead of each head "
                  "attending over the T tokens; shapes fit and the output is wrong.",
       "where": ["q8"]}),

    "q8_head_slice_lambdas_bound_to_last_head": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    cut = [lambda M: M[:, h * d_k:(h + 1) * d_k] for h in range(n_heads)]
    heads = [attention(c(Q), c(K), c(V), d_k)[0] for c in cut]
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The head slicers are lambdas made in a comprehension; they read `h` when called, after the "
                  "comprehension ended, so every one cuts the LAST head's columns: the concat is n_heads copies "
                  "of the last head (right only with one head).",
       "where": ["q8"]}),
}
