"""Eighty-fourth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention(Q, K, V, d_k)` returning
`(output, weights)`; q2 `dot_product_variance`; q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one
letter each; q8 a loop over heads calling the 2-D `attention`; the notebook has no masks and no batch axis), the
student-facing question text, `tests/heldout/harness.py`, blind83.py for the format, and only the variant NAMES of
the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: RESHAPING, VIEWING AND PERMUTING, CODE WRITTEN FOR ANY RANK. Every wrong variant is careful
code that moves dimensions with view / reshape / flatten / unflatten / permute / movedim / .mT / einsum / bmm /
split / unbind / stack and has one slip of that kind that still gives the right shape (or, for one, the right
shape whenever the queries and keys are equally long). q1: a softmax meant over rows after folding the leading
dims with `flatten(0, -2)` but written `flatten(-2)` (the whole score matrix is one distribution); einsum
subscripts where the keys get their own feature letter (`'...qd,...ke->...qk'`, the two feature sums multiplied);
the row max of a hand softmax put back with `unsqueeze(-2)` instead of `unsqueeze(-1)` (each column shifted by
another row's max). q2: the flat draws viewed `(d_k, n_samples)` and summed over the last axis (the samples);
an einsum `'nd,md->n'` whose second sample letter differs (each query dotted with the sum of all keys). q4: the
class axis moved first by `reshape(T, -1)` instead of `movedim` (scrambles every input of rank >= 2); the
logsumexp put back with `unsqueeze(0)` instead of `unsqueeze(-1)` in `sum p (lse - s)`; the table's keys drawn
as `torch.randn(d, 5)` and transposed to (5, d) (other numbers than the lesson's). q5: "D" from a probe that
builds q^T k by broadcasting `q.unsqueeze(-1) * k.unsqueeze(-2)` (the outer product, summed: variance d_k^2).
q6: "B" from reasoning that X X^T's diagonal is each row's largest entry. q7: "C" from reasoning on shapes:
the output has one d_v-row per query, "so" each query gets one value row back. q8: fused QKV projection viewed
`(T, d_model, 3)` instead of `(T, 3, d_model)` (Q, K, V interleaved column by column); the value mix written
`einsum('hkq,khd->qhd')` (the head's weights read key-major, i.e. transposed); heads merged with `.mT` (swaps
the last two dims: (h, d_k, T)) where `transpose(0, 1)` was meant before the reshape to (T, d_model).
Spread: q1 x3, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a hand-graded markdown answer).
The correct variants move dimensions the same ways and are right: ellipsis einsum attention with heads split by
`view(T, h, d_k).transpose(0, 1)` and merged by `transpose(0, 1).contiguous().view(T, d_model)`; flattened-batch
`bmm` attention with `unflatten(-1, (h, d_k)).unbind(-2)` heads stacked on -2 and flattened; a `movedim(-1, 0)`
log-softmax entropy, an einsum table and a fused `view(T, 3, h, d_k).permute(1, 2, 0, 3)` QKV split; one stacked
(2, n, d_k) draw with `bmm` row dots and heads cut by `.mT.reshape(h, d_k, T).mT`; and the right letters with
a correctly broadcast probe for q5.

Public material used (found with the search tool; nothing copied verbatim): triton-lang/triton issue #11406
and PR #11409 (`tl.softmax` with `keep_dims=False`: the rank-reduced max and sum left-pad to a row, so the shift
and the division run along the wrong axis, wrong values on square tiles and a shape error otherwise: the q1
row-max and the q4 logsumexp slips) and sahandsafizadeh/qeep PR #29 (softmax sum not unsqueezed back);
aladdinpersson/Machine-Learning-Collection issue #165 (einsum attention whose value mix `"bhql,blhd->bqhd"`
does not match the matmul version: the q8 einsum mix slip); decisionintelligence/DUET issue #6 (einsum with
indices that do not mean what was intended) and rasbt/LLMs-from-scratch issue #857 (einsum projection letters
hidden by equal sizes), for the q1/q2 einsum letter slips; NVIDIA/apex issue #1131 (a fused QKV result viewed as
(..., 3, heads, head_dim) in another order, "despite the same final shape, the slicing ... seems incorrect") and
SHI-Labs/NATTEN PR #145 (a wrong `permute` of a (B, H, W, 3, heads, head_dim) qkv tensor), for the fused-QKV
view; pages on view vs transpose/permute (github.com/inmoonlight/notebooks, github.com/adlerteck/dlwpt-code-adler,
programmerah.com "difference and connection of torch view, transpose and permute": same shape, different
element order), for the q4 reshape-for-movedim and the q4 table's `randn(d, 5).mT`; "The Mechanics of Reshaping
in Multi-Head Attention" (michaelgethers.com), book-ai.org's "Reshaping and Transposing for Parallel Heads" and a
nanoGPT shape trace (lzwjava.github.io: `view(B, T, nh, hs).transpose(1, 2)`, merged back by `transpose(1, 2)
.contiguous().view(B, T, C)`), for the head split/merge of the correct variants and the q8 `.mT` merge slip.

How the variants were checked: /tmp/w84-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared: `attention` with a softmax reference and F.scaled_dot_product_attention (float64,
float32, float16, T_q != T_k, T_q == T_k, d_v != d_k, d_k not a square, T = 1); `dot_product_variance` against
d_k and 1 (scaled, 10% band) and for reproducibility; `softmax_entropy` against a log_softmax entropy on 1-D,
2-D (square and not) and 3-D inputs and saturated rows (float32 and float64), dtype kept; `entropy_table`
against the full_marks cell (defaults, other dims and seeds); the letters against C / A / D;
`multi_head_attention` against a reference loop and torch.nn.MultiheadAttention (1, 2, 4, 8 heads, T = 1 and
more, float32 and float64). The correct variants agree everywhere; each wrong one differs, and only in the
questions of its "where"."""

CORRECT = {
    'q1_ellipsis_einsum_q8_view_transpose_contiguous_view': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # written for any number of leading dims: (..., T_q, d_k), (..., T_k, d_k), (..., T_k, d_v)
    scores = torch.einsum('...qd,...kd->...qk', Q, K) / math.sqrt(d_k)
    weights = scores.softmax(dim=-1)
    out = torch.einsum('...qk,...kv->...qv', weights, V)
    return out, weights
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    # (T, d_model) -> (T, h, d_k) -> (h, T, d_k): head h keeps columns h*d_k .. (h+1)*d_k - 1
    Qh, Kh, Vh = [(X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V)]
    out = torch.stack([attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)])   # (h, T, d_k)
    concat = out.transpose(0, 1).contiguous().view(T, d_model)                            # (T, h * d_k)
    return concat @ W_O
''',
    },

    'q1_flattened_batch_bmm_q8_unflatten_unbind_stack_flatten': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    lead = Q.shape[:-2]                                   # () for the 2-D case
    q = Q.reshape(-1, Q.shape[-2], Q.shape[-1])           # (B, T_q, d_k), B = prod(lead) or 1
    k = K.reshape(-1, K.shape[-2], K.shape[-1])
    v = V.reshape(-1, V.shape[-2], V.shape[-1])
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)   # (B, T_q, T_k)
    weights = torch.softmax(scores, dim=-1)
    out = torch.bmm(weights, v)                                 # (B, T_q, d_v)
    return out.reshape(*lead, *out.shape[-2:]), weights.reshape(*lead, *weights.shape[-2:])
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    # unflatten the last dim into (h, d_k): blocks of d_k columns, head 0 first; unbind gives one (T, d_k) per head
    Qs = (X @ W_Q).unflatten(-1, (n_heads, d_k)).unbind(-2)
    Ks = (X @ W_K).unflatten(-1, (n_heads, d_k)).unbind(-2)
    Vs = (X @ W_V).unflatten(-1, (n_heads, d_k)).unbind(-2)
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(Qs, Ks, Vs)]
    concat = torch.stack(outs, dim=-2).flatten(-2)       # (T, h, d_k) -> (T, d_model)
    return concat @ W_O
''',
    },

    'q4_movedim_log_softmax_einsum_table_q8_fused_qkv_view_permute': {
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    x = logits.movedim(-1, 0)                 # (T, ...): the distribution axis first, any rank
    logp = F.log_softmax(x, dim=0)
    return -(logp.exp() * logp).sum(dim=0)    # (...)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.einsum('od,kd->ok', q, k).squeeze(0)     # (5,)
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    qkv = X @ torch.cat([W_Q, W_K, W_V], dim=1)                        # (T, 3 * d_model): [Q | K | V]
    qkv = qkv.view(T, 3, n_heads, d_k).permute(1, 2, 0, 3)             # (3, h, T, d_k)
    Qh, Kh, Vh = qkv.unbind(0)
    outs = [attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)]
    return torch.cat(outs, dim=-1) @ W_O
''',
    },

    'q2_stacked_draw_bmm_row_dots_q8_heads_from_transposed_reshape_mt': {
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q, k = torch.randn(2, n_samples, d_k, generator=generator).unbind(0)    # each (n, d_k)
    dots = torch.bmm(q.unsqueeze(-2), k.unsqueeze(-1)).flatten()             # (n, 1, d)@(n, d, 1) -> (n,)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    # rows of (X @ W).mT are the columns of X @ W: cut them in blocks of d_k rows, then turn each back
    Qh, Kh, Vh = [(X @ W).mT.reshape(n_heads, d_k, T).mT for W in (W_Q, W_K, W_V)]   # (h, T, d_k)
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(Qh, Kh, Vh)]
    return torch.cat(outs, dim=1) @ W_O
''',
    },

    'answers_with_broadcast_inner_product_probe': {
        'q5_answer': '''
# probe: q^T k for many pairs as a (1, d) @ (d, 1) product per pair, then its variance
_g = torch.Generator().manual_seed(0)
_d = 4
_q = torch.randn(200000, _d, generator=_g)
_k = torch.randn(200000, _d, generator=_g)
_qk = (_q.unsqueeze(-2) @ _k.unsqueeze(-1)).flatten()      # (n, 1, d) @ (n, d, 1) -> (n,)
_options = {"A": 1.0, "B": _d ** 0.5, "C": float(_d), "D": float(_d ** 2)}
q5_answer = min(_options, key=lambda o: abs(_options[o] - _qk.var().item()))   # about 4 -> "C"
''',
        'q6_answer': '''
# weights = softmax(X X^T / sqrt(d_k)) is (T, T), output = weights @ X: row i mixes every row of X
q6_answer = "A"
''',
        'q7_answer': '''
# every key gets a score, the softmax turns a row of scores into weights over all keys, and the output
# row is weights @ V: a soft, differentiable lookup
q7_answer = "D"
''',
    },
}

WRONG = {
    'q1_rows_folded_with_flatten_last_two_softmax_over_whole_matrix': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.mT / math.sqrt(d_k)                     # (..., T_q, T_k)
    # fold every leading dim into one axis of rows, softmax each row, unfold again
    rows = scores.flatten(-2)
    weights = F.softmax(rows, dim=-1).view_as(scores)
    return weights @ V, weights
''',
    }, {
        "mistake": "To fold the leading dims into one axis of rows the student wrote `scores.flatten(-2)` "
                   "(meant `flatten(0, -2)`), which flattens the last two dims: the softmax runs over all "
                   "T_q * T_k scores at once, so the whole weight matrix sums to 1 instead of each row and "
                   "the output is about T_q times too small.",
        "where": ['q1', 'q8']}),

    'q1_einsum_keys_given_their_own_feature_letter': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.einsum('...qd,...ke->...qk', Q, K) / math.sqrt(d_k)   # (..., T_q, T_k)
    weights = torch.softmax(scores, dim=-1)
    out = torch.einsum('...qk,...kv->...qv', weights, V)
    return out, weights
''',
    }, {
        "mistake": "The score einsum gives the keys their own feature letter (`'...qd,...ke->...qk'`), so d and e "
                   "are summed separately: each score is (sum of the query's coordinates) * (sum of the key's "
                   "coordinates), not the dot product, and the weights and output are wrong though of the right "
                   "shape.",
        "where": ['q1', 'q8']}),

    'q1_row_max_unsqueezed_on_the_row_axis_shifts_columns': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)       # (..., T_q, T_k)
    row_max = scores.amax(dim=-1)                            # (..., T_q)
    e = torch.exp(scores - row_max.unsqueeze(-2))           # put the reduced dim back for broadcasting
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
''',
    }, {
        "mistake": "The row maxima of the hand softmax are put back with `unsqueeze(-2)` instead of `unsqueeze(-1)`, "
                   "so they broadcast along the rows: score (i, j) is shifted by the max of row j, a different "
                   "constant per column, which changes the softmax (wrong weights and output when T_q == T_k, a "
                   "broadcasting error when T_q != T_k).",
        "where": ['q1', 'q8']}),

    'q2_flat_draws_viewed_dk_by_n_summed_over_samples': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # one flat draw each, laid out as columns like the maths (d_k, n): column j is the pair j
    q = torch.randn(n_samples * d_k, generator=generator).view(d_k, n_samples)
    k = torch.randn(n_samples * d_k, generator=generator).view(d_k, n_samples)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The draws are laid out (d_k, n_samples) with pairs as columns, but the products are summed over "
                   "the last dim, which is the sample axis: the result is d_k sums of n_samples products, whose "
                   "variance is about n_samples (or n_samples / d_k scaled), not d_k and 1.",
        "where": ['q2']}),

    'q2_einsum_second_sample_letter_differs_dots_with_key_sum': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum('nd,md->n', q, k)      # one dot product per sample
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The einsum gives the keys' sample axis another letter (`'nd,md->n'`), so m is summed away: "
                   "each query is dotted with the sum of all n_samples keys, and the variance is about "
                   "n_samples * d_k (n_samples scaled) instead of d_k and 1.",
        "where": ['q2']}),

    'q4_class_axis_moved_first_by_reshape_not_movedim': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    T = logits.shape[-1]
    x = logits.reshape(T, -1)                   # (T, rows): the distribution axis first
    logp = F.log_softmax(x, dim=0)
    H = -(logp.exp() * logp).sum(dim=0)         # (rows,)
    return H.reshape(logits.shape[:-1])


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
        "mistake": "The distribution axis is moved to the front with `reshape(T, -1)` instead of `movedim(-1, 0)`: "
                   "a reshape keeps the memory order, so for any input with more than one row the 'columns' mix "
                   "entries of different rows and the entropies are wrong (1-D inputs, and so the table, still "
                   "come out right).",
        "where": ['q4']}),

    'q4_logsumexp_unsqueezed_at_front_in_entropy_identity': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    lse = torch.logsumexp(logits, dim=-1)                 # (...)
    p = torch.exp(logits - lse.unsqueeze(-1))             # softmax, any rank
    # H = sum_j p_j (lse - s_j), since -log p_j = lse - s_j
    return (p * (lse.unsqueeze(0) - logits)).sum(dim=-1)


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
        "mistake": "In H = sum_j p_j (lse - s_j) the log-sum-exp is put back with `unsqueeze(0)` instead of "
                   "`unsqueeze(-1)`: for a batch of rows it broadcasts along the last axis (row i's terms get the "
                   "lse of row j), giving wrong entropies for square inputs and a broadcasting error otherwise; "
                   "only 1-D inputs (the table) are right.",
        "where": ['q4']}),

    'q4_table_keys_drawn_width_first_then_mt': ({
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
        q = torch.randn(1, d)
        k = torch.randn(d, 5).mT             # keys as columns (d, 5), turned into rows (5, d)
        raw = (q @ k.mT).squeeze(0)
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The keys are drawn as `torch.randn(d, 5)` and transposed with `.mT`: the shape is the asked "
                   "(5, d), but the random numbers fill it column by column, so each key gets other numbers "
                   "than `torch.randn(5, d)` gives and the table's stds and entropies differ from the lesson's.",
        "where": ['q4']}),

    'q5_answer_probe_broadcasts_outer_product_for_inner': ({
        'q5_answer': '''
# probe: q^T k for many pairs by broadcasting, then its variance, then the closest option
_g = torch.Generator().manual_seed(0)
_d = 4
_q = torch.randn(200000, _d, generator=_g)
_k = torch.randn(200000, _d, generator=_g)
_qk = (_q.unsqueeze(-1) * _k.unsqueeze(-2)).sum(dim=(-2, -1))    # (n, d, 1) * (n, 1, d) summed
_options = {"A": 1.0, "B": _d ** 0.5, "C": float(_d), "D": float(_d ** 2)}
q5_answer = min(_options, key=lambda o: abs(_options[o] - _qk.var().item()))
''',
    }, {
        "mistake": "The probe's broadcast `q.unsqueeze(-1) * k.unsqueeze(-2)` builds the (d, d) outer product q k^T "
                   "and sums all d^2 entries, i.e. (sum q)(sum k), whose variance is d_k^2 = 16: the probe picks "
                   "\"D\" instead of \"C\".",
        "where": ['q5']}),

    'q6_answer_diagonal_of_gram_matrix_taken_as_row_max': ({
        'q6_answer': '''
# Q = K = X, so the scores are X @ X.T, a symmetric (T, T) Gram matrix; its diagonal X_i . X_i = |X_i|^2 is
# the largest entry of each row, so the softmax row peaks on i and each token attends to itself
q6_answer = "B"
''',
    }, {
        "mistake": "Reads X X^T's diagonal as the largest entry of each row (not true unless the rows have equal "
                   "norm, and even then the softmax is not one-hot), so answers \"B\" (each token attends only to "
                   "itself) instead of \"A\" (a softmax-weighted average of all rows).",
        "where": ['q6']}),

    'q7_answer_output_row_shape_taken_as_one_value_row': ({
        'q7_answer': '''
# output = weights @ V is (T_q, d_v): one row of width d_v per query, the same shape as a single value row,
# so each query gets back one value row, the one with the best score
q7_answer = "C"
''',
    }, {
        "mistake": "Reasons from shapes that since each output row has the width d_v of one value row, each query "
                   "returns a single value row (argmax), answering \"C\" instead of \"D\" (a softmax-weighted mix "
                   "of all the values).",
        "where": ['q7']}),

    'q8_fused_qkv_viewed_with_the_three_axis_last': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    qkv = X @ torch.cat([W_Q, W_K, W_V], dim=1)          # (T, 3 * d_model), one matmul for all three
    Q, K, V = qkv.view(T, d_model, 3).unbind(-1)          # (T, d_model) each
    outs = [attention(q, k, v, d_k)[0]
            for q, k, v in zip(Q.split(d_k, dim=-1), K.split(d_k, dim=-1), V.split(d_k, dim=-1))]
    return torch.cat(outs, dim=-1) @ W_O
''',
    }, {
        "mistake": "The fused projection [Q | K | V] of shape (T, 3 * d_model) is viewed as (T, d_model, 3) instead "
                   "of (T, 3, d_model): the 'Q' gets columns 0, 3, 6, ... of the fused result, 'K' columns 1, 4, "
                   "... and 'V' 2, 5, ..., mixing queries, keys and values, so the output is wrong.",
        "where": ['q8']}),

    'q8_value_mix_einsum_reads_weights_key_major': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).view(T, n_heads, d_k)        # (T, h, d_k): blocks of d_k columns
    Kh = (X @ W_K).view(T, n_heads, d_k)
    Vh = (X @ W_V).view(T, n_heads, d_k)
    scores = torch.einsum('qhd,khd->hqk', Qh, Kh) / math.sqrt(d_k)   # (h, T_q, T_k)
    weights = scores.softmax(dim=-1)
    out = torch.einsum('hkq,khd->qhd', weights, Vh)                  # (T, h, d_k)
    return out.reshape(T, d_model) @ W_O
''',
    }, {
        "mistake": "The value mix is written `einsum('hkq,khd->qhd', weights, V)`: the weights, laid out (h, q, k), "
                   "are read with their last two letters swapped, so each query mixes the values with a column of "
                   "the weight matrix (the transposed weights, not summing to 1) and the output is wrong.",
        "where": ['q8']}),

    'q8_heads_merged_with_mt_swapping_tokens_and_width': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh, Kh, Vh = [(X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V)]   # (h, T, d_k)
    out = torch.stack([attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)])     # (h, T, d_k)
    concat = out.mT.reshape(T, d_model)        # back to (T, h, d_k) order, then (T, d_model)
    return concat @ W_O
''',
    }, {
        "mistake": "The heads are merged with `.mT`, which swaps the last two dims ((h, T, d_k) -> (h, d_k, T)), "
                   "where `transpose(0, 1)` (heads and tokens) was meant; the reshape to (T, d_model) then "
                   "scrambles tokens and features, so the concatenation and the output are wrong for any head "
                   "count.",
        "where": ['q8']}),
}
