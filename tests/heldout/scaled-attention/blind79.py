"""Seventy-ninth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`; q4
`softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the 2-D
`attention`; no masks), the student-facing question text, `tests/heldout/harness.py`, blind77.py for the format,
and only the variant NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: TERSE, CLEVER ONE-LINERS, each function one expression (walrus, lambdas, einsum, chained
methods, `**-.5`, boolean arithmetic, slicing tricks), each wrong variant one slip of that style: in q1
`d_k ** -1/2` (precedence: (d_k ** -1) / 2, i.e. 1/(2 d_k)), an einsum whose output letters are swapped
(`'qd,kd->kq'`, the scores transposed; runs on square shapes), an exp / sum without keepdim (the row sums
broadcast down the columns; runs only when T_q == T_k), and a max-shift over the wrong axis (`s.amax(0)`, a
per-column shift that changes every row's softmax); in q2 the `scaled` flag used as a number in
`/ d_k ** .5 * scaled` (0 when not scaled) and a chained assignment `q = k = torch.randn(...)` (one draw used
for both, q.q); in q4 a walrus expression whose unary minus and `.sum` bind to the wrong operands, a log
guard `p + ~mask` with the mask made an int (`~1` is -2: NaN entropies), and the seed set once before a list
comprehension (a statement cannot sit in it) so every d after the first draws from an
advanced RNG; q5 `"ABCD"[~2]` (~2 is -3: "B"), q6 a one-line probe run in the saturated regime (large-norm
tokens, the softmax is one-hot, so "B"), q7 `"ABCD"[::-1][-1]` (reversed twice: "A"); in q8 the `-~h` (h + 1)
trick typed as `~-h` (h - 1: head 0 gets all but the
last d_k columns, the others empty slices) and the heads scaled with `q.shape[0]` (tokens) in an unpacked
zip. Spread: q1 x4, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown answer). The
correct variants are the same one-liners with the precedence made explicit and the axes right.

Public material used (nothing copied verbatim): the Python language reference, "Operator precedence" (`**`
binds tighter than a unary minus on its left, `*` and `/` go left to right, so `a ** -1/2` is `(a ** -1) / 2`);
Stack Overflow 8305199 "The tilde operator in Python" and effbot's operator-invert page (`~x` is -(x + 1) on
integers, so `~2` is -3), es.stackoverflow.com 315906 (`i = ~-i` decrements, `-~i` increments); pytorch/pytorch
issue #24180 (`~` on a uint8 mask gives 254/255, bitwise not logical) and issue #32094 / PR #23621 (`~` is the
logical not only on bool tensors); mwolf.dev/general/log-sum-exp-trick (a hand softmax with
`logsumexp(dim, keepdim=True)`: the keepdim is what makes it broadcast per row); PEP 572 (assignment expressions
bind loosely and need their own parentheses); the torch.einsum documentation (the output subscripts give the
output's axis order); the torch.manual_seed documentation.

How the variants were checked: /tmp/w79-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check` cells
skipped) and compared with plain torch: `attention` against `F.scaled_dot_product_attention` on T_q != T_k,
d_v != d_k and square shapes in float64 and float32 (the correct q1 variants also in float16; full_marks'
own assert rejects float16); `dot_product_variance` against d_k and 1 (scaled);
`softmax_entropy` against a log_softmax entropy on 1-D and 2-D inputs; `entropy_table` against the full_marks
cell; the letters against C / A / D; `multi_head_attention` against the full_marks loop. The correct variants
agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    'q1_walrus_softmax_negative_half_power_one_liner': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    return (w := F.softmax(Q @ K.T * d_k ** -.5, -1)) @ V, w
''',
    },

    'q1_einsum_keepdim_max_shift_walrus_softmax_q2_generator_pair': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    return (w := (e := (s := torch.einsum('qd,kd->qk', Q, K) * d_k ** -.5).sub(s.amax(-1, keepdim=True)).exp()) / e.sum(-1, keepdim=True)) @ V, w
''',
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    return (lambda q, k: ((q * k).sum(1) * d_k ** (-.5 * scaled)).var().item())(
        *(torch.randn(n_samples, d_k, generator=generator) for _ in "qk"))
''',
    },

    'q4_walrus_entropy_table_comprehension_seeded_per_row': {
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return -((p := F.softmax(logits, dim=-1)) * (p + 1e-9).log()).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [{"d": d, "raw_std": (raw := (torch.randn(1, d) @ torch.randn(5, d).T)[0]).std().item(),
             "scaled_std": (s := raw / d ** .5).std().item(),
             "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(s).item()}
            for d in dims if torch.manual_seed(seed) is not None]
''',
    },

    'q8_zip_chunked_projections_one_expression_answers_indexed': {
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    return torch.cat([attention(q, k, v, q.shape[-1])[0]
                      for q, k, v in zip(*((X @ W).chunk(n_heads, -1) for W in (W_Q, W_K, W_V)))], -1) @ W_O
''',
        'q5_answer': '''q5_answer = "ABCD"[2]''',
        'q6_answer': '''q6_answer = "ABCD"[0]''',
        'q7_answer': '''q7_answer = "ABCD"[-1]''',
    },

    'q4_log_guard_adds_bool_not_mask': {
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return -((p := F.softmax(logits, dim=-1)) * (p + ~(p > 0)).log()).sum(-1)


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
    },

}

WRONG = {
    'q1_scale_written_d_k_power_minus_one_over_two': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    return (w := F.softmax(Q @ K.T * d_k ** -1/2, -1)) @ V, w
''',
    }, {
        "mistake": '`d_k ** -1/2` parses as `(d_k ** -1) / 2`: the scores are multiplied by 1/(2 d_k) instead of '
                   '1/sqrt(d_k), so the weights are too flat and the output wrong (also in every q8 head).',
        "where": ['q1', 'q8']}),

    'q1_einsum_scores_output_letters_key_first': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    return (w := F.softmax(torch.einsum('qd,kd->kq', Q, K) / d_k ** .5, -1)) @ V, w
''',
    }, {
        "mistake": "The einsum output subscripts are written `'->kq'`, so the score matrix is transposed (T_k, T_q) "
                   'and softmax normalises over the queries: wrong weights on square inputs, a shape error when T_q '
                   "!= T_k (q8's heads are square, so they are wrong too).",
        "where": ['q1', 'q8']}),

    'q1_exp_over_sum_without_keepdim_broadcasts_down_columns': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    return (w := (e := (Q @ K.T * d_k ** -.5).exp()) / e.sum(-1)) @ V, w
''',
    }, {
        "mistake": 'The hand softmax divides by `e.sum(-1)` without keepdim: the (T_q,) row sums broadcast along the'
                   " last axis, so column j is divided by row j's sum; it runs only when T_q == T_k (or T_q == 1, where it "
                   "happens to be right) and the rows do not sum to 1 (q8's square heads are wrong too).",
        "where": ['q1', 'q8']}),

    'q1_max_shift_over_queries_axis_amax_zero': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    return (w := (e := ((s := Q @ K.T * d_k ** -.5) - s.amax(0)).exp()) / e.sum(-1, keepdim=True)) @ V, w
''',
    }, {
        "mistake": 'The stabilising max is taken with `s.amax(0)` (over the queries, one per key column) instead of '
                   "per row: a different shift per key changes every row's softmax, so weights and output are wrong "
                   '(in q8 as well).',
        "where": ['q1', 'q8']}),

    'q2_scaled_flag_multiplies_the_dots': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    return (lambda q, k: ((q * k).sum(1) / d_k ** .5 * scaled).var().item())(
        *(torch.randn(n_samples, d_k, generator=generator) for _ in "qk"))
''',
    }, {
        "mistake": 'Meant `/ d_k ** (.5 * scaled)`, written `/ d_k ** .5 * scaled`: with scaled=False the dots are '
                   'divided by sqrt(d_k) and multiplied by False (0), so the unscaled variance is 0.0 instead of '
                   'd_k.',
        "where": ['q2']}),

    'q2_chained_assignment_one_draw_for_query_and_key': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = k = torch.randn(n_samples, d_k, generator=generator)
    return ((q * k).sum(1) * d_k ** (-.5 * scaled)).var().item()
''',
    }, {
        "mistake": '`q = k = torch.randn(...)` binds both names to the same draw, so the dot is |q|^2 (chi-squared):'
                   ' the variance is about 2 d_k (2 when scaled) instead of d_k (1).',
        "where": ['q2']}),

    'q4_walrus_entropy_minus_and_sum_bind_to_wrong_operands': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return -(p := F.softmax(logits, dim=-1)) * (p + 1e-9).log().sum(-1)


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
        "mistake": 'The parentheses close around the walrus only, so the expression is `-p * (sum of log p)`: each '
                   "probability times minus the summed logs, with the logits' shape, not the entropy (the table's "
                   '.item() on a 5-vector fails too).',
        "where": ['q4']}),

    'q4_table_comprehension_seeded_once_before_it': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return -((p := F.softmax(logits, dim=-1)) * (p + 1e-9).log()).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    torch.manual_seed(seed)
    return [{"d": d, "raw_std": (raw := (torch.randn(1, d) @ torch.randn(5, d).T)[0]).std().item(),
             "scaled_std": (s := raw / d ** .5).std().item(),
             "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(s).item()}
            for d in dims]
''',
    }, {
        "mistake": 'To keep the table one comprehension the seed is set once before it instead of for each d, so '
                   'every row after the first draws q and k from an advanced RNG: the stds and entropies of those '
                   'rows differ from the specified ones.',
        "where": ['q4']}),

    'q4_log_guard_tilde_on_int_mask_gives_minus_two': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return -((p := F.softmax(logits, dim=-1)) * (p + ~(p > 0).int()).log()).sum(-1)


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
        "mistake": 'The 0 log 0 guard adds `~mask` to p, but the mask was made an int first: `~1` is -2 and `~0` is '
                   '-1 (bitwise not, not logical not), so every log is of p - 2 < 0: the entropies are NaN.',
        "where": ['q4']}),

    'q5_answer_third_letter_indexed_with_tilde_two': ({
        'q5_answer': '''q5_answer = "ABCD"[~2]   # the third option''',
    }, {
        "mistake": "`~2` is -3, not an index counting the third option: it picks 'B' (sqrt(d_k)) instead of 'C' "
                   '(d_k).',
        "where": ['q5']}),

    'q6_answer_saturated_self_attention_probe_picks_b': ({
        'q6_answer': '''
q6_answer = "AB"[torch.allclose(attention(X := 10 * torch.randn(4, 64), X, X, 64)[0], X)]
''',
    }, {
        "mistake": 'A one-line probe with large-norm tokens: X_i . X_i dwarfs X_i . X_j, the softmax saturates to '
                   "one-hot and the output equals X, so the probe answers 'B' (each token attends only to itself) "
                   "where the general answer is 'A'.",
        "where": ['q6']}),

    'q7_answer_last_letter_of_reversed_string': ({
        'q7_answer': '''q7_answer = "ABCD"[::-1][-1]   # the last option''',
    }, {
        "mistake": "Reversing the string and then taking the last character undoes itself: 'A' (an exact-match "
                   "lookup) instead of 'D'.",
        "where": ['q7']}),

    'q8_head_slice_end_tilde_minus_for_minus_tilde': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return torch.cat([attention(*(M[:, h * d_k:~-h * d_k] for M in (Q, K, V)), d_k)[0]
                      for h in range(n_heads)], 1) @ W_O
''',
    }, {
        "mistake": 'The slice end should be `-~h * d_k` ((h + 1) d_k) but is typed `~-h * d_k`, which is (h - 1) '
                   "d_k: head 0 gets columns 0 .. -d_k (all but the last head's), every later head an empty slice, "
                   'so the concatenated heads have the wrong width and the output projection fails.',
        "where": ['q8']}),

    'q8_unpacked_head_triples_scale_from_shape_zero': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    return torch.cat([attention(q, k, v, q.shape[0])[0]
                      for q, k, v in zip(*((X @ W).chunk(n_heads, -1) for W in (W_Q, W_K, W_V)))], -1) @ W_O
''',
    }, {
        "mistake": "Each head's d_k is read as `q.shape[0]`, the number of tokens T, instead of the head width "
                   '`q.shape[-1]`: the heads are scaled by 1/sqrt(T), right only when T equals d_model / n_heads.',
        "where": ['q8']}),

}
