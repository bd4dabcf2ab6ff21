"""Seventy-fifth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`;
q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the
2-D `attention`; the notebook has no masks), `tests/heldout/harness.py`, blind73.py for the format, and only
the variant NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: SLIPS OF THE HAND in otherwise right code (one character or one token). In q1: the scale
computed as `d_k ** -0.5` and then divided by (a doubled inversion: multiplies the scores by sqrt(d_k)), the
key line typed `Q @ Q.T` (one letter not changed), the output mixed from `scores` instead of `weights`
(similar names), the softmax's closing paren put before the scale (so the weights, not the scores, are
divided by sqrt(d_k)), and a hand-written softmax whose row sum lost `keepdim=True` (divides by the wrong
axis's sums when T_q == T_k, a shape error otherwise); in q2: the dot product typed `(q * q)` (copy slip:
variance 2 d_k, 2 when scaled) and the root typed `d_k ** 1/2` (precedence: divides by d_k / 2); in q4:
the minus sign of the entropy dropped, `torch.manual_seed(seed)` dedented above the loop (only the first d
gets the seed) and `"scaled_std"` copied from the `raw_std` line with `raw` left in; q5 'A' (the letter of the
question below, typed into the wrong cell), q7 'C' (the line above, `q5_answer = "C"`, copied and only the
name changed); in q8: the head's keys sliced from `Q` (copy slip) and the head slice end typed `(h - 1)`
for `(h + 1)`. Spread: q1 x5, q2 x2, q4 x3, q5 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown answer). The
correct variants are ordinary student code with odd but right spellings: a `* d_k ** -0.5` scale with
`K.transpose(-1, -2)`; one name `scores` reused for the scores, the scaled scores and the weights; q2 with
both draws from one `randn(2, n, d_k)` call and a conditional divisor in parentheses; a log_softmax entropy
and a table that reuses `k` and `d ** .5`; multi-head attention by view/transpose whose loop variables
`out, W` shadow the notebook's trace globals harmlessly.

Public material used (nothing copied verbatim): stevezheng23/sequence_labeling_tf PR #81 and
stevezheng23/reading_comprehension_tf PR #284 ("fix query/key/value project matrix reuse issue": the same
projection used where another was meant), MarcoMeter/episodic-transformer-memory-ppo PR #22 (multi-head
attention fixed where inputs were split before the K/Q/V projections); Stack Overflow question 936904 ("Why
does ** bind more tightly than negation?") and the Python reference on unary operators and power precedence
(`-1 ** 2 == -1`; the same precedence makes `x ** 1/2` mean `(x ** 1) / 2`).

How the variants were checked: /tmp/w75-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared every function with plain torch: `attention` against a float64
`softmax(Q K^T / sqrt(d_k)) V` (checked against `F.scaled_dot_product_attention`) on shapes with T_q != T_k,
d_v != d_k, T_q = 1, T_k = 1 and non-square d_k, in float64 and float32 (the correct q1 variants also in
float16; full_marks' own row-sum assert rejects float16, so float16 is not asked of the others), dtype kept;
`dot_product_variance` at several d_k, scaled and not, within 10%, a float, reproducible; `softmax_entropy`
against a log_softmax entropy on (7,), (3, 5), (2, 3, 7) and saturated rows; `entropy_table` against the
spec; the letters against C / A / D; `multi_head_attention` against a head loop and
`torch.nn.MultiheadAttention` (no biases, transposed weights) in float64 and float32 including T = 1. The
correct variants agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    "q1_negative_power_scale_transpose_last_two": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.transpose(-1, -2)) * d_k ** -0.5   # ** binds first: times 1/sqrt(d_k)
    weights = scores.softmax(-1)
    out = weights @ V
    return out, weights
'''},

    "q1_one_name_reused_for_scores_and_weights": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T
    scores = scores / math.sqrt(d_k)
    scores = torch.softmax(scores, dim=-1)      # now these are the weights
    return scores @ V, scores
'''},

    "q2_pair_from_one_draw_divisor_in_parentheses": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q, k = torch.randn(2, n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1) / (math.sqrt(d_k) if scaled else 1.0)
    return dots.var().item()
'''},

    "q4_log_softmax_entropy_table_reuses_k": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        k = (q @ k.T)[0]            # k is now the raw scores
        s = k / d ** .5
        results.append({"d": d, "raw_std": k.std().item(), "scaled_std": s.std().item(),
                        "H_raw": softmax_entropy(k).item(), "H_scaled": softmax_entropy(s).item()})
    return results
'''},

    "q8_view_transpose_loop_names_shadow_trace_globals": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)   # (n_heads, T, d_k)
    K = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    V = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    outs = []
    for h in range(n_heads):
        out, W = attention(Q[h], K[h], V[h], d_k)   # same names as the trace cell's globals, local here
        outs.append(out)
    return torch.cat(outs, dim=-1) @ W_O
'''},
}

WRONG = {
    "q1_reciprocal_root_scale_then_divided_by": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scale = d_k ** -0.5
    scores = Q @ K.T / scale
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The scale is computed as the reciprocal `d_k ** -0.5` and then divided by instead of multiplied "
                  "by, so the scores are multiplied by sqrt(d_k) (a d_k times too sharp softmax); weights and "
                  "output are wrong whenever d_k != 1.",
       "where": ["q1", "q8"]}),

    "q1_scores_typed_q_at_q_transposed": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ Q.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The key letter was not changed: `Q @ Q.T` dots the queries with themselves, so the weights are "
                  "(T_q, T_q) and ignore K; wrong values when T_q == T_k and a shape error in `weights @ V` "
                  "when T_q != T_k.",
       "where": ["q1", "q8"]}),

    "q1_output_mixed_from_scores_not_weights": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = scores @ V
    return out, weights
'''}, {"mistake": "Similar names confused: the output is `scores @ V` (the scaled, un-softmaxed scores) instead of "
                  "`weights @ V`. The returned weights are right, the output is not a convex mix of the values.",
       "where": ["q1", "q8"]}),

    "q1_softmax_paren_closed_before_the_scale": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    weights = F.softmax(Q @ K.T, dim=-1) / math.sqrt(d_k)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The softmax's closing paren is put before the scale, so the division by sqrt(d_k) applies to the "
                  "weights instead of the scores: an unscaled softmax whose rows sum to 1/sqrt(d_k), and an "
                  "output shrunk by sqrt(d_k).",
       "where": ["q1", "q8"]}),

    "q1_hand_softmax_row_sum_without_keepdim": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    weights = e / e.sum(dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The row sum of the hand-written softmax lost `keepdim=True`: `e / e.sum(-1)` broadcasts the "
                  "(T_q,) sums along the last axis, so column j is divided by row j's sum (rows do not sum to 1) "
                  "when T_q == T_k, and it is a shape error when T_q != T_k.",
       "where": ["q1", "q8"]}),

    "q2_dot_typed_q_times_q": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * q).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "Copy slip `(q * q)` for `(q * k)`: it measures the variance of the squared norm |q|^2 (a "
                  "chi-square with d_k degrees of freedom), about 2 d_k unscaled and about 2 scaled, not d_k and 1.",
       "where": ["q2"]}),

    "q2_root_typed_power_one_over_two_precedence": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / (d_k ** 1/2)
    return dots.var().item()
'''}, {"mistake": "The square root typed `d_k ** 1/2`: ** binds before /, so it divides by d_k / 2 and the scaled "
                  "variance is about 4 / d_k instead of 1 (right only at d_k = 4). The unscaled value is right.",
       "where": ["q2"]}),

    "q4_entropy_minus_sign_dropped": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return (p * torch.log(p + 1e-9)).sum(dim=-1)


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
'''}, {"mistake": "The leading minus of -sum p ln p was dropped, so the entropy comes out negative (-ln T for a "
                  "uniform row); the table's H_raw and H_scaled are negated too.",
       "where": ["q4"]}),

    "q4_table_seed_dedented_above_the_loop": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    torch.manual_seed(seed)
    for d in dims:
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "`torch.manual_seed(seed)` sits one indent too far out, above the loop, so only the first d is "
                  "drawn from the fresh seed; every later row uses the continuing random stream and its stds and "
                  "entropies differ from the lesson's table. softmax_entropy is right.",
       "where": ["q4"]}),

    "q4_scaled_std_line_copied_with_raw_left_in": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": raw.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The `scaled_std` entry was copied from the `raw_std` one and `raw` was not changed to `scaled`: "
                  "it reports the raw std (sqrt(d) times too big). The entropies and raw_std are right.",
       "where": ["q4"]}),

    "q5_answer_typed_from_the_question_below": ({"q5_answer": '''
q5_answer = "A"
'''}, {"mistake": "Answers 'A' (1 whatever d_k), the letter that belongs to q6 (the cell below) typed into q5; "
                  "the variance of q.k is d_k, 'C'.",
       "where": ["q5"]}),

    "q7_answer_line_copied_from_q5_letter_kept": ({"q7_answer": '''
q7_answer = "C"
'''}, {"mistake": "The line `q5_answer = 'C'` was copied and only the name changed, so q7 answers 'C' (an argmax "
                  "with no gradient) instead of 'D' (a softmax-weighted mix of all values, a soft lookup).",
       "where": ["q7"]}),

    "q8_head_keys_sliced_from_queries": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], Q[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Copy slip in the per-head call: the keys are sliced from `Q` (`Q[:, cols]` twice), so each head "
                  "scores the queries against themselves and W_K is never used; the output differs for T > 1.",
       "where": ["q8"]}),

    "q8_head_slice_end_minus_typed_for_plus": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h - 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The head slice end is typed `(h - 1) * d_k` for `(h + 1) * d_k`: head 0 takes all but the last "
                  "d_k columns (slice(0, -d_k); none at all with one head) and every later head an empty slice, so "
                  "the concatenation never has d_model columns and `@ W_O` raises a shape error.",
       "where": ["q8"]}),
}
