"""Eightieth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`; q4
`softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the 2-D
`attention`; no masks), the student-facing question text, `tests/heldout/harness.py`, blind79.py for the format,
and only the variant NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: HABITS CARRIED OVER FROM ANOTHER FRAMEWORK OR LANGUAGE, each wrong variant one convention
that is right in the other framework and wrong in torch, in otherwise careful code: in q1 MATLAB's `sum(x)`
(sums down the columns) in a hand softmax, a (features, time) column layout whose weights are never turned back
at the boundary, and numpy's float32 habit (`np.float32` as the working dtype) casting the output; in q2 a JAX
PRNG key reused for both draws (a seeded generator rebuilt for q and for k: q equals k) and R's
`apply(x, 2, sum)` margin (the products summed over the samples, not over the coordinates); in q4 numpy's
`ddof=0` std in the table, R's `apply(p, 2, ...)` column sense in the entropy sum, Keras's
`reduce_sum(..., keepdims=True)` kept in the entropy, a JAX functional update (`results + [row]`, never
assigned) and `jax.random.fold_in(key, i)` turned into `seed + i`; q5 "D" (a per-term variance counted as d_k
and summed d_k times), q6 "B" (read through `tf.linalg.band_part(ones, 0, 0)`, the diagonal-only mask), q7 "C"
(the soft lookup read as `tf.gather(values, tf.argmax(scores))`); in q8 JAX's `x.at[:, cols].set(v)`
rewritten as an indexed write into a `.clone()` that is thrown away (the concat stays zeros). Spread: q1 x3,
q2 x2, q4 x5, q5 x1, q6 x1, q7 x1, q8 x1 (q3 is a hand-graded markdown answer). The correct variants are ports
that keep the other framework's idioms where they are right in torch: a column layout converted at the
boundary, an explicit `keepdim=True` softmax helper named like `tf.nn.softmax(logits, axis=-1)`, a JAX-style
single draw split into q and k, numpy's `ddof=1` written as `correction=1`, a Keras-style (T, heads, d_k)
reshape moved head-first, and a functional `torch.cat` in place of `.at[].set`.

Public material used (nothing copied verbatim): pytorch/pytorch issues #50010, #42803 and #2436 (torch.var /
torch.std default to Bessel's correction, numpy's var/std to ddof=0), helmholtz-analytics/heat issue #514 (the
same mismatch met while porting); the torch.tril documentation (diagonal argument, lower triangle on and
below the diagonal) and the GPT-2 `attention_mask` helper (`tf.matrix_band_part(tf.ones([nd, ns]), -1,
ns-nd)` done by hand with ranges); MATLAB's documentation of `sum` (operates along the first dimension whose
size is not 1) and R's `apply` MARGIN (1 rows, 2 columns); the JAX PRNG documentation (reusing a key gives the
same numbers; `fold_in` derives a new key) and the JAX "sharp bits" page on `x.at[idx].set(v)` returning a new
array; the Keras `reduce_sum`/`keepdims` and torch `keepdim` documentation.

How the variants were checked: /tmp/w80-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared with plain torch: `attention` against `F.scaled_dot_product_attention` and a
softmax formula on T_q != T_k, d_v != d_k and square shapes in float64 and float32 (the correct q1 variants
also in float16 where their own asserts allow); `dot_product_variance` against d_k and 1 (scaled) and for
reproducibility; `softmax_entropy` against a log_softmax entropy on 1-D, 2-D and 3-D inputs (shape and dtype
too); `entropy_table` against the full_marks cell; the letters against C / A / D; `multi_head_attention`
against the full_marks loop and `torch.nn.MultiheadAttention` loaded with the same weights. The correct
variants agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    'q1_column_layout_converted_at_boundary_q8_keras_reshape_head_first': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # I think in MATLAB's (features, time) layout: one token per column.
    Qc, Kc, Vc = Q.T, K.T, V.T                      # (d_k, T_q), (d_k, T_k), (d_v, T_k)
    S = Kc.T @ Qc / math.sqrt(d_k)                  # (T_k, T_q): column j holds query j's scores
    Wc = torch.softmax(S, dim=0)                    # normalise each column (over the keys)
    out_c = Vc @ Wc                                 # (d_v, T_q)
    # back to the notebook's row layout at the boundary
    return out_c.T, Wc.T
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    # Keras MultiHeadAttention keeps (T, heads, key_dim); move the heads first for the loop
    Q, K, V = [(X @ W).reshape(T, n_heads, d_k).permute(1, 0, 2) for W in (W_Q, W_K, W_V)]
    outs = [attention(Q[h], K[h], V[h], d_k)[0] for h in range(n_heads)]
    return torch.cat(outs, dim=-1) @ W_O
''',
    },

    'q1_tf_style_softmax_helper_keepdim_q4_explicit_correction_one': {
        'attention': '''
def softmax(logits, axis=-1):
    """tf.nn.softmax(logits, axis=-1), written out; keepdim=True is Keras's keepdims=True."""
    z = logits - logits.amax(dim=axis, keepdim=True)
    e = torch.exp(z)
    return e / e.sum(dim=axis, keepdim=True)


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    weights = softmax(torch.matmul(Q, K.transpose(-1, -2)) / d_k ** 0.5, axis=-1)
    return weights @ V, weights
''',
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)
    # reduce_sum(..., keepdims=True) then squeeze, as in my Keras code
    return -(logp.exp() * logp).sum(dim=-1, keepdim=True).squeeze(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        # numpy would need ddof=1 here; torch's default is the same, made explicit
        rows.append({"d": d, "raw_std": torch.std(raw, correction=1).item(),
                     "scaled_std": torch.std(scaled, correction=1).item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
''',
    },

    'q2_jax_style_one_draw_split_into_q_and_k': {
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # like jax.random.normal(key, (2, n, d)) and unpacking: one draw, two independent halves
    qk = torch.randn(2, n_samples, d_k, generator=generator)
    q, k = qk[0], qk[1]
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return torch.var(dots, correction=1).item()
''',
    },

    'q8_functional_cat_instead_of_at_set_answers_with_reasons': {
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = X.new_zeros((X.shape[0], 0))
    for h in range(n_heads):                 # 0-based: heads 0 .. n_heads - 1
        lo, hi = h * d_k, (h + 1) * d_k      # half-open, unlike MATLAB's lo+1:hi
        out_h, _ = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_k)
        concat = torch.cat([concat, out_h], dim=1)   # functional update, result kept
    return concat @ W_O
''',
        'q5_answer': '''# Var(q_i k_i) = E[q_i^2] E[k_i^2] = 1 per term, d_k independent terms
q5_answer = "C"''',
        'q6_answer': '''# every row of X is mixed, with softmax weights over j (not a band_part(ones, 0, 0) diagonal)
q6_answer = "A"''',
        'q7_answer': '''# softmax-weighted mix of all values, not tf.gather(values, argmax): differentiable
q7_answer = "D"''',
    },
}

WRONG = {
    'q1_hand_softmax_normalised_with_matlab_column_sum': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    S = Q @ K.T / math.sqrt(d_k)
    E = torch.exp(S - S.max())          # global shift, harmless
    weights = E / E.sum(0)              # MATLAB's sum(E) sums down the columns
    return weights @ V, weights
''',
    }, {
        "mistake": "The hand softmax divides by `E.sum(0)` (MATLAB's `sum(E)` goes down the columns): each key's "
                   "column is normalised over the queries instead of each query's row over the keys, so the rows "
                   "do not sum to 1 and the weights and outputs are wrong (on every shape; q8's heads are wrong "
                   "too).",
        "where": ['q1', 'q8']}),

    'q1_column_layout_weights_returned_keys_by_queries': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # (features, time) layout, one token per column, as in my MATLAB code
    Qc, Kc, Vc = Q.T, K.T, V.T
    S = Kc.T @ Qc / math.sqrt(d_k)          # (T_k, T_q)
    Wc = torch.softmax(S, dim=0)            # each column sums to 1
    out = (Vc @ Wc).T                       # back to (T_q, d_v)
    return out, Wc
''',
    }, {
        "mistake": "Written in a (features, time) column layout and converted back only for the output: the "
                   "weights are returned as (T_k, T_q), the transpose of the asked (T_q, T_k) matrix, so its "
                   "columns, not its rows, sum to 1 (wrong shape when T_q != T_k). The output, and so q8, is right.",
        "where": ['q1']}),

    'q1_output_cast_to_float32_numpy_default': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = (weights @ V).to(torch.float32)     # np.float32 like the rest of my pipeline
    return out, weights
''',
    }, {
        "mistake": "The output is cast to float32 (numpy code's habitual `np.float32` working dtype): float64 "
                   "inputs give a float32 output, against the rule to keep the input dtype; in q8 the float32 "
                   "heads then meet float64 `W_O` (a dtype error / float32 result).",
        "where": ['q1', 'q8']}),

    'q2_jax_key_reused_for_both_draws_q_equals_k': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # like a jax PRNGKey: keep the state and derive each draw from it
    state = generator.get_state()
    q = torch.randn(n_samples, d_k, generator=generator)
    generator.set_state(state)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The generator's state is saved and restored around the draws as if it were a JAX key that "
                   "must be reused, but the same key gives the same numbers: k is identical to q, every dot "
                   "product is |q|^2 (a chi-square), and the variance is about 2 d_k (2 when scaled), not d_k / 1.",
        "where": ['q2']}),

    'q2_products_summed_over_samples_r_apply_margin_two': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(0)              # apply(q * k, 2, sum)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The products are summed with `.sum(0)` (R's `apply(x, 2, sum)`, a column sum): each of the d_k "
                   "'dot products' is a sum over the n_samples pairs, so the variance is about n_samples "
                   "(n_samples / d_k scaled) instead of d_k / 1.",
        "where": ['q2']}),

    'q4_table_std_with_numpy_ddof_zero': ({
        'softmax_entropy': '''
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
        scaled = raw / d ** 0.5
        # np.std(raw) in the lesson's numpy version
        results.append({"d": d, "raw_std": raw.std(correction=0).item(),
                        "scaled_std": scaled.std(correction=0).item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The table's stds use `correction=0`, numpy's `np.std` default (divide by n), where the question "
                   "asks for torch.std's default (n - 1): with 5 scores both stds are sqrt(4/5) of the right value "
                   "(about 19.9 instead of 22.2 at d = 256).",
        "where": ['q4']}),

    'q4_entropy_summed_over_first_axis_r_apply_margin': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    terms = -p * torch.log(p + 1e-9)
    return terms.sum(0)                 # apply(terms, 1, sum): one value per row


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
        "mistake": "The entropy terms are summed with `.sum(0)`, the first axis (R's `apply(x, 1, ...)` read as "
                   "'per row'): right for a single 1-D row, but a (rows, T) input is summed over the rows, giving "
                   "T per-column values instead of one entropy per row.",
        "where": ['q4']}),

    'q4_entropy_keepdim_kept_from_keras_reduce_sum': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # tf.reduce_sum(p * log p, axis=-1, keepdims=True)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1, keepdim=True)


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
        "mistake": "Keras's `keepdims=True` is carried over as `keepdim=True`: the entropy has shape (..., 1) "
                   "instead of (...) (a 1-D row gives shape (1,), not a scalar); the values are right and the "
                   "table still works through `.item()`.",
        "where": ['q4']}),

    'q4_table_rows_added_functionally_result_discarded': ({
        'softmax_entropy': '''
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
        row = {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
               "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}
        results + [row]                 # no mutation, like results.at[i].set(row)
    return results
''',
    }, {
        "mistake": "Each row is added with `results + [row]`, a JAX-style functional update whose new list is never "
                   "assigned back: `entropy_table` returns an empty list.",
        "where": ['q4']}),

    'q4_table_seed_folded_with_loop_index_like_jax_fold_in': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for i, d in enumerate(dims):
        torch.manual_seed(seed + i)     # jax.random.fold_in(key, i): a fresh key per row
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The seed is re-set to `seed + i` for the i-th d (JAX's `fold_in(key, i)` turned into a seed), "
                   "not to `seed` every time: every row after the first is drawn from a different seed, so its "
                   "stds and entropies differ from the lesson's table.",
        "where": ['q4']}),

    'q5_answer_d_per_term_variance_taken_as_d_k': ({
        'q5_answer': '''# each q_i k_i has variance d_k (like var over the whole vector in R), and there are d_k terms
q5_answer = "D"''',
    }, {
        "mistake": "Answers D (d_k^2): the variance of one product q_i k_i is taken to be d_k and then added up d_k "
                   "times; each term has variance 1, so the answer is C (d_k).",
        "where": ['q5']}),

    'q6_answer_b_read_as_band_part_diagonal_mask': ({
        'q6_answer': '''# Q = K = V = X: like tf.linalg.band_part(ones, 0, 0), only the diagonal is kept, token i sees itself
q6_answer = "B"''',
    }, {
        "mistake": "Answers B (each token attends only to itself), reading self-attention as a diagonal "
                   "`band_part(ones, 0, 0)` mask; nothing masks the other tokens, so the row is a softmax-weighted "
                   "average of all rows of X (A).",
        "where": ['q6']}),

    'q7_answer_c_lookup_read_as_gather_by_argmax': ({
        'q7_answer': '''# it is tf.gather(values, tf.argmax(scores, axis=-1)): the best key's value
q7_answer = "C"''',
    }, {
        "mistake": "Answers C (an argmax that returns the best key's value only), as if attention were "
                   "`tf.gather(values, tf.argmax(scores))`; the softmax mixes all values and is differentiable, "
                   "so the answer is D.",
        "where": ['q7']}),

    'q8_jax_at_set_ported_as_write_into_discarded_clone': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros_like(Q)
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        concat.clone()[:, cols] = out_h      # concat = concat.at[:, cols].set(out_h)
    return concat @ W_O
''',
    }, {
        "mistake": "JAX's `concat = concat.at[:, cols].set(out_h)` is ported as an indexed write into "
                   "`concat.clone()`, a copy that is thrown away: `concat` stays all zeros and the function returns "
                   "a zero (T, d_model) tensor.",
        "where": ['q8']}),
}
