"""Eighty-fifth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention(Q, K, V, d_k)` returning
`(output, weights)`; q2 `dot_product_variance`; q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one
letter each; q8 a loop over heads calling the 2-D `attention`; the lesson-trace cell defines the globals
`d_k = 4`, `Q`, `K`, `V`, `out`, `W`; the notebook has no masks and no batch axis), the student-facing question
text, `tests/heldout/harness.py`, blind83.py for the format, and only the variant NAMES of the earlier blind*.py
sets. The grader was not run on this set.

Focus of the round: CODE THAT FITS THE EXAMPLE THE STUDENT RAN. Each wrong variant is careful code that is right
on the one example the student tried (the lesson trace: float32, 3 x 4 queries, keys and values, so T_q == T_k
and d_v == d_k; the q2 printout at d = 4, 16, 64, all powers of four; the 1-D score rows of the entropy table with
its default dims; a square q8 test with d_model = 4 and two heads, so d_k == n_heads == 2 and T == d_model) and
wrong off it. q1: the output rounded to the four decimals of the trace's corrected rows; the output viewed back
to `(T_q, d_k)` columns (d_v == d_k in the trace); a shape assert copied from the trace (`out.shape == Q.shape`)
that rejects d_v != d_k; a row-sum check with `torch.allclose` against `torch.ones(T_q)` (float32, the trace's
dtype), which raises for float64. q2: the square root taken as a power of two, `2 ** (int(log2(d_k)) // 2)`,
exact for 4, 16, 64 only. q4: entropy terms with p below 1% dropped as "negligible" (the trace's weights are all
about 0.3); a rank special case whose 2-D branch uses dim 1, wrong for 3-D logits; the table looping over the
literal default dims instead of its argument. q5: "A" read off the scaled column of the q2 printout; q6: "D" from
the near-uniform trace weights [0.30, 0.31, 0.39], "C" from the trace's "leans towards token 2"; q7: "C" from the collapsed d = 256 row of the entropy table.
q8: the head slice end written `h * d_k + n_heads` (equal when d_k == n_heads); the head split viewed with the
token count read from `X.shape[1]` (equal when T == d_model). Spread: q1 x4, q2 x1, q4 x3, q5 x1, q6 x2, q7 x1,
q8 x2 (q3 is a hand-graded markdown answer). The correct variants are written by students who also test on one
example (prints, asserts on the example's shapes) but in a way that holds everywhere: asserts that read both
lengths and d_v from the right tensors, a 0-d scale tensor made in the inputs' dtype, a hand softmax with
a keepdim row max, q2 rescaling the unscaled variance by d_k, a log_softmax entropy that keeps any leading shape,
the table drawing a 1-D query (same random numbers), a single-token shortcut and W_O applied per row block in q8.

Public material used (nothing copied verbatim): huggingface/transformers PR #48356 (cross-attention K/V viewed
with a shape taken from the query length; "every suite stayed green before because they only ever pass encoder
states as long as the query"); harvard-edge/cs249r_book PR #1875 (mask reshape assumes seq_q == seq_k, "for
self-attention this accidentally works"); idiap/fast-transformers issue #64 (top-k bounded by the query length,
works for self-attention, fails for cross-attention); jadore801120/attention-is-all-you-need-pytorch issue #153
(d_k != d_v breaks code only ever run with equal widths); lucidrains/flash-attention-jax PR #15 (qk_dim != v_dim
"doesn't seem to come up too much so maybe hasn't been tested"); xlite-dev/ffpa-attn issue #81 (output width
tied to Q's); datawhalechina/happy-llm PR #96 (d_k read from query vs key, equal only because the widths match).

How the variants were checked: /tmp/w85-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared: `attention` with a softmax reference and F.scaled_dot_product_attention (float64,
float32, float16, T_q != T_k, d_v != d_k, T_q == 1, d_k not a square); `dot_product_variance` against d_k and 1
(scaled, d_k 5, 10, 24, 48, 100) and for reproducibility; `softmax_entropy` against a log_softmax entropy on 1-D,
2-D and 3-D inputs, wide logits and saturated rows (float32 and float64, dtype kept); `entropy_table` against
the full_marks cell (default and other dims and seeds); the letters against C / A / D; `multi_head_attention`
against a reference loop and torch.nn.MultiheadAttention (T != d_model, heads 1, 2, 3, 4, float32 and float64).
The correct variants agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    'q1_shape_asserts_read_from_each_tensor_q8_view_transpose_heads': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k, d_v = Q.shape[0], K.shape[0], V.shape[1]
    scale = torch.tensor(d_k, dtype=Q.dtype).rsqrt()   # 0-d, in the inputs' dtype
    scores = (Q @ K.transpose(0, 1)) * scale
    weights = torch.softmax(scores, dim=-1)
    out = weights @ V
    # checked on the trace (3 x 3 weights, 3 x 4 output), written so that it holds for any shapes
    assert weights.shape == (T_q, T_k) and out.shape == (T_q, d_v)
    return out, weights
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    # (T, d_model) -> (T, n_heads, d_k) -> (n_heads, T, d_k): head h is columns h*d_k .. (h+1)*d_k - 1
    Qh = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)
    Kh = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    Vh = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    heads = [attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)]
    concat = torch.stack(heads, dim=0).transpose(0, 1).reshape(T, d_model)
    assert concat.shape == X.shape
    return concat @ W_O
''',
    },
    'q1_hand_softmax_keepdim_max_q2_variance_rescaled_by_d_k': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    scores = scores - scores.max(dim=-1, keepdim=True).values     # stable: one shift per row
    e = scores.exp()
    weights = e / e.sum(dim=-1, keepdim=True)
    out = torch.einsum("qk,kv->qv", weights, V)
    return out, weights
''',
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    var = torch.var((q * k).sum(dim=1)).item()
    # Var(x / c) = Var(x) / c**2, so dividing every dot by sqrt(d_k) divides the variance by d_k
    return var / d_k if scaled else var
''',
    },
    'q4_log_softmax_entropy_any_rank_table_with_1d_query': {
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)        # finite even where p underflows to 0
    return -(logp.exp() * logp).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(d)              # same numbers as randn(1, d)
        k = torch.randn(5, d)
        raw = k @ q                     # the 5 scores of the one query
        scaled = raw / math.sqrt(d)
        rows.append({"d": d, "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    # tried on the lesson's defaults: 4 rows, H_raw 0.000 at d = 256
    assert len(rows) == len(dims)
    return rows
''',
    },
    'answers_with_reasons_q8_single_token_shortcut_w_o_row_blocks': {
        'q5_answer': '''
# Var(sum of d_k independent terms of variance 1) = d_k; the printout agrees (about 4, 16, 64)
q5_answer = "C"
''',
        'q6_answer': '''
# every row of X is mixed in, weighted by a softmax of the scaled dot products with X_i
q6_answer = "A"
''',
        'q7_answer': '''
# a soft lookup: all keys are scored and the values are averaged with softmax weights
q7_answer = "D"
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    V = X @ W_V
    if T == 1:
        # one token: every head puts weight 1 on its only key, so the concat is V itself
        return V @ W_O
    Q, K = X @ W_Q, X @ W_K
    out = torch.zeros_like(X)
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        head, _ = attention(Q[:, cols], K[:, cols], V[:, cols], Q[:, cols].shape[-1])
        out = out + head @ W_O[cols, :]          # concat @ W_O, one row block of W_O per head
    return out
''',
    },
}

WRONG = {
    'q1_output_rounded_to_the_traces_four_decimals': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    # rounded like the corrected rows in the text, so the comparison with them is exact
    out = torch.round(weights @ V, decimals=4)
    return out, weights
''',
    }, {
        "mistake": "The output is rounded to 4 decimals so it prints exactly like the trace's corrected rows: "
                   "every output entry is off by up to 5e-5 (float64 and float32 alike), far beyond a "
                   "comparison tolerance; the weights are right. The q8 heads inherit the rounded outputs.",
        "where": ['q1', 'q8']}),

    'q1_output_viewed_back_with_d_k_columns': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q = Q.shape[0]
    scores = torch.bmm(Q.unsqueeze(0), K.T.unsqueeze(0)) / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = torch.bmm(weights, V.unsqueeze(0))
    return out.view(T_q, d_k), weights.view(T_q, -1)     # back to 2-D: (3, 4) in the trace
''',
    }, {
        "mistake": "After a batched bmm the output is viewed back as (T_q, d_k), the trace's shape because its "
                   "d_v equals d_k: whenever d_v != d_k the view raises (T_q * d_v elements cannot be viewed as "
                   "T_q x d_k). Right when d_v == d_k, so the q8 heads are unaffected.",
        "where": ['q1']}),

    'q1_shape_assert_output_like_queries_rejects_wider_values': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.transpose(0, 1) / math.sqrt(d_k)
    weights = scores.softmax(dim=-1)
    out = weights @ V
    assert out.shape == Q.shape, "one output row per query"   # (3, 4) == (3, 4) on the trace
    return out, weights
''',
    }, {
        "mistake": "A sanity assert written on the trace, `out.shape == Q.shape`, also demands d_v == d_k: every "
                   "call with values wider or narrower than the keys raises AssertionError although the "
                   "computation is right. The q8 heads have d_v == d_k and pass.",
        "where": ['q1']}),

    'q1_row_sum_check_allclose_to_default_float32_ones': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    assert torch.allclose(weights.sum(dim=-1), torch.ones(Q.shape[0]), atol=1e-5), "rows must sum to 1"
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The row-sum check compares with `torch.ones(T_q)`, float32 like the trace: torch.allclose "
                   "refuses mixed dtypes, so every float64 call raises 'Double did not match Float' (float32 is "
                   "right). The q8 heads call it too and fail the same way on float64 inputs.",
        "where": ['q1', 'q8']}),

    'q2_root_as_power_of_two_exact_for_the_printouts_powers_of_four': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        root = 2 ** (int(math.log2(d_k)) // 2)      # sqrt(4) = 2, sqrt(16) = 4, sqrt(64) = 8
        dots = dots / root
    return dots.var().item()
''',
    }, {
        "mistake": "sqrt(d_k) is computed as 2 ** (floor(log2 d_k) // 2), exact for the printout's 4, 16 and 64 "
                   "(powers of four) only: for other d_k the divisor is too small (d_k = 10 or 8 divide by 2, "
                   "d_k = 48 by 4), so the scaled variance is d_k / root**2 (2.5, 2, 3), not about 1. The "
                   "unscaled variance is right.",
        "where": ['q2']}),

    'q4_entropy_terms_below_one_percent_dropped_as_zero': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # tiny probabilities add (almost) nothing and log(0) is -inf: keep only the real terms
    terms = torch.where(p > 1e-2, p * torch.log(p), torch.zeros_like(p))
    return -terms.sum(dim=-1)


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
        "mistake": "Entropy terms with p <= 0.01 are dropped as negligible (the trace's weights are all about "
                   "0.3): every row with a small but non-zero probability loses -p ln p (0.046 nats for p = 0.01, "
                   "more over many keys), so the entropy is too small on peaked or long rows and in the table's "
                   "wide-score rows; flat rows and fully saturated rows are right.",
        "where": ['q4']}),

    'q4_entropy_rank_special_cased_2d_branch_uses_dim_one': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    if logits.dim() == 1:                        # one row of scores, as in the table
        p = F.softmax(logits, dim=0)
        return -(p * torch.log(p + 1e-9)).sum()
    p = F.softmax(logits, dim=1)                 # a batch of rows
    return -(p * torch.log(p + 1e-9)).sum(dim=1)


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
        "mistake": "The rank is special-cased for the two shapes tried (one row, a batch of rows) and the batch "
                   "branch uses dim 1: for 3-D or higher logits the softmax and the sum run over dim 1 instead "
                   "of the last dim, giving wrong values of the wrong shape (..., T) instead of (...). 1-D and 2-D "
                   "inputs and the table are right.",
        "where": ['q4']}),

    'q4_table_loops_over_the_printed_dims_literal_not_the_argument': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in (4, 16, 64, 256):                   # the lesson's table
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The loop runs over the literal (4, 16, 64, 256) of the lesson's table instead of the `dims` "
                   "argument: the default call is right, but any other dims give the four default rows (wrong "
                   "length, wrong d and values). The seed is honoured and softmax_entropy is right.",
        "where": ['q4']}),

    'q5_answer_a_read_off_the_printouts_scaled_column': ({
        'q5_answer': '''
# the printout: Var(q.k / sqrt(d_k)) = 1.0xx for d = 4, 16 and 64 -- the same whatever d_k is
q5_answer = "A"
''',
    }, {
        "mistake": "The answer is read off the scaled column of the q2 printout (about 1 for every d): \"A\" "
                   "instead of \"C\"; the question is about the raw q.k, whose variance is d_k (the unscaled "
                   "column, about 4, 16, 64).",
        "where": ['q5']}),

    'q6_answer_d_from_the_near_uniform_trace_weights': ({
        'q6_answer': '''
# the trace's weights are [0.30, 0.31, 0.39]: about 1/3 each, so each output row is the mean of the rows
q6_answer = "D"
''',
    }, {
        "mistake": "Generalised from the lesson trace, whose weights happen to be near uniform (about 1/3 "
                   "each): \"D\" (plain mean of the rows) instead of \"A\"; the weights are a softmax of "
                   "X_i . X_j / sqrt(d_k) and differ from row to row in general.",
        "where": ['q6']}),

    'q6_answer_c_from_the_traces_lean_towards_token_two': ({
        'q6_answer': '''
# the trace: "token 0 leans towards token 2" -- its highest score -- so the output row is that token's row
q6_answer = "C"
''',
    }, {
        "mistake": "Read the trace's \"token 0 leans (slightly) towards token 2\" as token 0 taking row 2: \"C\" "
                   "(the single best-matching row) instead of \"A\"; the output is a softmax-weighted average of "
                   "all the rows (0.30, 0.31, 0.39 in the trace).",
        "where": ['q6']}),

    'q7_answer_c_from_the_collapsed_d256_entropy_row': ({
        'q7_answer': '''
# the entropy table at d = 256: H_raw = 0.000, one key takes all the weight -- attention picks the best key
q7_answer = "C"
''',
    }, {
        "mistake": "Generalised from the collapsed unscaled d = 256 row of the entropy table (one-hot weights): "
                   "\"C\" (an argmax over keys) instead of \"D\"; with the sqrt(d_k) scaling the weights are "
                   "a soft, differentiable mix of all the values.",
        "where": ['q7']}),

    'q8_head_slice_end_offset_by_n_heads_not_d_k': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        start = h * d_k
        end = start + n_heads
        out_h, _ = attention(Q[:, start:end], K[:, start:end], V[:, start:end], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "Each head's slice ends at `h * d_k + n_heads`, right in the d_model = 4, two-head test only "
                   "because d_k == n_heads there: otherwise the heads take n_heads columns (too few or too "
                   "many, clipped at d_model), so the concat has the wrong width (matmul with W_O fails) or "
                   "mixes columns of several heads.",
        "where": ['q8']}),

    'q8_split_view_token_count_read_from_width_axis': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape[1], X.shape[1]
    d_k = d_model // n_heads

    def split(M):                                 # (T, d_model) -> (n_heads, T, d_k)
        return M.reshape(T, n_heads, d_k).permute(1, 0, 2)

    Qh, Kh, Vh = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    heads = [attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)]
    concat = torch.cat(heads, dim=1)
    return concat @ W_O
''',
    }, {
        "mistake": "The token count is read from X.shape[1] (d_model), equal to T only in the square 4 x 4 test: "
                   "for T != d_model the reshape to (T, n_heads, d_k) raises (sizes do not match), so every "
                   "non-square input fails. Right when T == d_model.",
        "where": ['q8']}),
}
