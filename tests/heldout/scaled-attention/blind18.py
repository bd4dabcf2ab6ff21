"""Eighteenth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons, the student-facing text of the master notebook, `full_marks.ipynb`,
`harness.py`, and only the module docstrings and variant names of blind.py .. blind17.py, so that their
mistakes are not repeated in the same form.

How it was made: the earlier sets' names show q2 (the variance experiment) and the q4 table as the parts
touched least outside q1 and q8, and every wrong letter of q5-q7 already taken, so three wrong variants
are in q2, five in q4 (three in `softmax_entropy`, two in `entropy_table`), three in q1 and three in q8.
Most pair a right idea with one wrong detail: a scale read from the query's width instead of the `d_k`
argument, a bare `.squeeze()` after a batched matmul, a transposed product left untransposed, a private
generator, a split along the wrong axis, an integer square root, a max over the whole tensor instead of
per row, a log-softmax of the probabilities, a softmax without its shift, sorted dims, a default seed, a
4-D transpose index used on 3-D heads, 1-based head numbers, a buffer shaped like the wrong tensor.

Public code was searched (code, issues and pages corpora) and seven slips were carried over from it:
`d_k = query.size(-1)` in the Annotated Transformer and its many copies (d2l's `d = queries.shape[-1]`
too), which ignores a `d_k` argument; `torch.bmm(a, b.unsqueeze(2)).squeeze()` with a bare squeeze
(word2vec skip-gram forks), which drops a length-1 axis that is not the batch one; Karpathy's makemore
`g = torch.Generator().manual_seed(2147483647)` made inside the function; the softmax-regression /
cs231n habit `scores -= np.max(scores)` on a whole score matrix (a global, not a per-row max); the
"double softmax" bug (pytorch/examples#721, tflearn#562, speedinghzl/Pytorch-Deeplab#2), here a
log-softmax of probabilities; d2l's softmax from scratch (`X_exp / X_exp.sum(1, keepdim=True)`, no
shift); and nanoGPT's `y.transpose(1, 2)` head merge, which is right for (B, nh, T, hs) and wrong for
(nh, T, hs). The rest are plausible for a student of these lessons (the lesson's own seed 42, the paper's
head_1 .. head_h numbering, `math.isqrt`, `sorted(dims)` for a tidy table, one `randn` chunked on the
wrong axis, a buffer made with `zeros_like(W_O)`).

Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions whose tests may lose points (q8 calls the student's `attention`, so a q1 slip
that breaks shapes costs q8 too). Correct variants are valid but unusual (tensordot scores with a
multiplied scale and `softmax(dim=1)`, q and k unbound from one `(n, d_k, 2)` draw, a log made finite
with `nan_to_num`, the table's scores kept as a `(1, 5)` row, heads from `unflatten` + `movedim` joined
with `hstack`). Every variant was checked against plain torch (the full-marks cells, `torch.softmax`,
`F.scaled_dot_product_attention`) before it was written down here.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"          # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"

_ENT_OK = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''

_TABLE_OK = '''

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


def _att(body: str) -> str:
    return ('def attention(Q, K, V, d_k):\n'
            '    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""\n' + body)


def _var(body: str) -> str:
    return ('def dot_product_variance(d_k, n_samples, generator, scaled=False):\n'
            '    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs from `generator`."""\n'
            + body)


def _ent(body: str) -> str:
    return ('def softmax_entropy(logits):\n'
            '    """Entropy in nats of softmax(logits) over the last dim."""\n' + body + _TABLE_OK)


def _table(head: str, body: str) -> str:
    return (_ENT_OK + '\n\n' + head + '\n'
            '    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""\n' + body)


def _mha(body: str) -> str:
    return ('def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n'
            '    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""\n'
            + body)


CORRECT = {
    # q1: scores from tensordot over the feature axis, the scale multiplied in, softmax over dim=1 (the
    # key axis of a 2-D score matrix), values mixed with torch.mm.
    "tensordot_scores_softmax_dim1": {ATT: _att('''    scores = torch.tensordot(Q, K, dims=([1], [1])) * (1.0 / math.sqrt(d_k))
    weights = scores.softmax(dim=1)
    return torch.mm(weights, V), weights
''')},

    # q2: q and k unbound from one (n, d_k, 2) draw of the generator, dotted with einsum, the variance
    # from torch.var with an explicit correction, returned through float().
    "unbind_pairs_einsum_var": {VAR: _var('''    pairs = torch.randn(n_samples, d_k, 2, generator=generator)
    q, k = pairs.unbind(dim=-1)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots * d_k ** -0.5
    return float(torch.var(dots, correction=1))
''')},

    # q4: ln p made finite with nan_to_num (-inf becomes the most negative float, and 0 times it is 0),
    # so a saturated row gives 0 without an epsilon.
    "entropy_log_nan_to_num": {ENT: _ent('''    p = torch.softmax(logits, dim=-1)
    logp = torch.log(p).nan_to_num()
    return -(p * logp).sum(dim=-1)
''')},

    # q4: the table's scores kept as the (1, 5) row q @ k.T: std is over all five, and softmax_entropy
    # of a (1, 5) tensor is a one-element tensor, so .item() still works.
    "table_scores_kept_2d": {ENT: _table('def entropy_table(dims=(4, 16, 64, 256), seed=0):', '''    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = q @ k.T
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
''')},

    # q8: projections unflattened to (T, n_heads, d_k) and the head axis moved to the front, the heads
    # zipped together, joined with hstack.
    "unflatten_movedim_hstack": {MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads

    def heads_of(W):
        return (X @ W).unflatten(-1, (n_heads, d_k)).movedim(-2, 0)   # (n_heads, T, d_k)

    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(heads_of(W_Q), heads_of(W_K), heads_of(W_V))]
    return torch.hstack(outs) @ W_O
''')},
}


WRONG = {
    # seen in: the Annotated Transformer's `d_k = query.size(-1)` and its many copies (d2l's
    # DotProductAttention: `d = queries.shape[-1]`), where attention has no d_k argument.
    "q1_d_k_from_query_width": ({ATT: _att('''    d_k = Q.size(-1)   # width of a query
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
''')}, {"mistake": "The scale is taken from the queries' width (`d_k = Q.size(-1)`), overwriting the `d_k` "
        "argument; when the caller's d_k differs from Q's width the scores are scaled wrongly.",
        "where": ["q1"]}),

    # seen in: word2vec skip-gram forks, `torch.bmm(neg_embed, center_embed.unsqueeze(2)).squeeze()` with a
    # bare squeeze after a batched matmul.
    "q1_bmm_bare_squeeze": ({ATT: _att('''    scores = torch.bmm(Q.unsqueeze(0), K.T.unsqueeze(0)).squeeze() / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = torch.matmul(weights, V)
    return out, weights
''')}, {"mistake": "The batch axis added for `torch.bmm` is removed with a bare `.squeeze()`, which also "
        "drops a length-1 query or key axis: one query gives 1-D weights and output, and one key gives a "
        "softmax over the queries (and a failed matmul).", "where": ["q1", "q8"]}),

    "q1_output_from_transposes": ({ATT: _att('''    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = V.T @ weights.T            # (W V)^T = V^T W^T
    return out, weights
''')}, {"mistake": "The output is computed as `V.T @ weights.T`, which is (W V) transposed: shape "
        "(d_v, T_q) instead of (T_q, d_v); the final `.T` is missing.", "where": ["q1", "q8"]}),

    # seen in: Karpathy's makemore lectures, `g = torch.Generator().manual_seed(2147483647)`.
    "q2_private_generator_for_reproducibility": ({VAR: _var('''    g = torch.Generator().manual_seed(2147483647)   # reproducible
    q = torch.randn(n_samples, d_k, generator=g)
    k = torch.randn(n_samples, d_k, generator=g)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "The draws come from a new generator seeded inside the function, not from the "
        "`generator` argument: the caller's generator is never used or advanced, so every call gives "
        "the same number whatever the caller seeded.", "where": ["q2"]}),

    "q2_one_draw_chunked_along_samples": ({VAR: _var('''    qk = torch.randn(n_samples, 2 * d_k, generator=generator)
    q, k = qk.chunk(2, dim=0)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "One (n_samples, 2 d_k) draw is split with `chunk(2, dim=0)` (along the samples) instead "
        "of dim=1: q and k are n_samples/2 vectors of width 2 d_k, so the variance is about 2 d_k (about 2 "
        "scaled), and an odd n_samples gives a shape error.", "where": ["q2"]}),

    "q2_integer_square_root": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.isqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "The scaled dot products are divided by `math.isqrt(d_k)`, the integer square root: for "
        "a d_k that is not a perfect square the scale is too small (d_k = 8 divides by 2 and gives a "
        "variance near 2).", "where": ["q2"]}),

    # seen in: softmax-regression / cs231n code that shifts a whole score matrix by `np.max(scores)`.
    "q4_shift_by_global_max": ({ENT: _ent('''    shifted = logits - logits.max()     # shift for stability
    e = shifted.exp()
    p = e / e.sum(dim=-1, keepdim=True)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''')}, {"mistake": "The logits are shifted by the maximum of the whole tensor instead of each row's maximum: "
        "a row whose values lie far below the global maximum underflows to all zeros and its entropy is "
        "0/0 = NaN.", "where": ["q4"]}),

    # seen in: the "double softmax" bug reports (pytorch/examples#721, tflearn/tflearn#562,
    # speedinghzl/Pytorch-Deeplab#2): a log-softmax applied to what are already probabilities.
    "q4_log_softmax_of_probabilities": ({ENT: _ent('''    p = F.softmax(logits, dim=-1)
    return -(p * F.log_softmax(p, dim=-1)).sum(dim=-1)   # stable log
''')}, {"mistake": "ln p is computed as `F.log_softmax(p)`, a log-softmax of the probabilities rather than of "
        "the logits, so it is not ln p and the entropy is wrong (a one-hot row gets a positive entropy, not 0).",
        "where": ["q4"]}),

    # seen in: d2l's softmax from scratch, `X_exp = torch.exp(X); X_exp / X_exp.sum(1, keepdim=True)`.
    "q4_softmax_from_scratch_unshifted": ({ENT: _ent('''    e = torch.exp(logits)
    p = e / e.sum(dim=-1, keepdim=True)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''')}, {"mistake": "The softmax is written by hand without subtracting the row maximum: a row with large "
        "logits overflows exp to inf and inf/inf gives NaN, so a saturated row does not give 0.",
        "where": ["q4"]}),

    "q4_table_dims_sorted": ({ENT: _table('def entropy_table(dims=(4, 16, 64, 256), seed=0):', '''    results = []
    for d in sorted(dims):          # smallest d first, as in the lesson's table
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''')}, {"mistake": "The loop runs over `sorted(dims)`, so for dims not given in increasing order the dicts "
        "come back in the wrong order (the rows must follow the order of `dims`).", "where": ["q4"]}),

    "q4_table_default_seed_42": ({ENT: _table('def entropy_table(dims=(4, 16, 64, 256), seed=42):', '''    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''')}, {"mistake": "The default seed is 42 (the lesson's trace seed) instead of 0, so `entropy_table()` with "
        "its defaults does not reproduce the lesson's table.", "where": ["q4"]}),

    # seen in: nanoGPT's CausalSelfAttention merge `y.transpose(1, 2).contiguous().view(B, T, C)`, right for
    # (B, nh, T, hs) and copied here onto (nh, T, hs) without the batch axis.
    "q8_merge_transpose_1_2_from_4d_code": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).reshape(T, n_heads, d_k).transpose(0, 1)   # (n_heads, T, d_k)
    Kh = (X @ W_K).reshape(T, n_heads, d_k).transpose(0, 1)
    Vh = (X @ W_V).reshape(T, n_heads, d_k).transpose(0, 1)
    y = torch.stack([attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)])
    concat = y.transpose(1, 2).reshape(T, d_model)   # re-assemble all head outputs side by side
    return concat @ W_O
''')}, {"mistake": "The heads are split correctly but merged with `transpose(1, 2)` (the index from 4-D "
        "batched code): on the (n_heads, T, d_k) stack it swaps T and d_k, so the reshape to (T, d_model) "
        "scrambles tokens and features; it needed `transpose(0, 1)`.", "where": ["q8"]}),

    "q8_heads_numbered_from_one": ({MHA: _mha('''    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(1, n_heads + 1):     # head_1 ... head_h
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''')}, {"mistake": "Heads are numbered 1..n_heads but the slice is still `h * d_k` to `(h + 1) * d_k`: head 0's "
        "columns are skipped and the last slice is empty, so the concatenation is d_k columns short and "
        "the product with W_O fails.", "where": ["q8"]}),

    "q8_buffer_like_w_o": ({MHA: _mha('''    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros_like(W_O)       # room for all the heads
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        concat[:, cols], _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
    return concat @ W_O
''')}, {"mistake": "The buffer for the concatenated heads is `torch.zeros_like(W_O)`, shape (d_model, d_model) "
        "instead of (T, d_model): unless T equals d_model the head outputs do not fit (a shape error, or "
        "for T = 1 a broadcast that returns d_model copies of the row).", "where": ["q8"]}),
}
