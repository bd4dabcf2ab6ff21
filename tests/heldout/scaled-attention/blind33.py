"""Thirty-third blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `_diagnose.py`, the reference solution, `variants.py`, `measure.py`, the
naming tests, `autograder/grading/` or the other example submissions. What was read: the student-facing
text and solution cells of the master notebook (not its test cells), `full_marks.ipynb`, `harness.py`,
lesson 79's text in /work/shared/lessons/ (skimmed for the formula, the trace and its `entropy` helper),
the module docstring and first lines of blind32.py for the format, and only the variant NAMES of
blind.py .. blind32.py, so that their mistakes are not repeated in the same form. The grader was not run
on this set.

How it was made: the earlier sets' names count q4 120, q1 110, q8 103, q2 77 and q5-q7 19, 15 and 13,
with every wrong letter of q5-q7 already taken. So q5-q7 get five variants in forms not yet used (an
answer left as an empty string, the first option given as the index 0, an answer left as None, the
option's text pasted instead of its letter, the letter written in parentheses), q2 gets three, q1, q4
and q8 two each. The mix: small slips inside right code (a key loop that fills rows instead of columns,
an einsum output subscript written "vq", `bmm` with the unsqueezes the wrong way round giving outer
products, a conditional expression that swallows the division, V projected with W_K, per-head weights
sliced by rows), whole-approach mistakes (normals remembered as twelve uniforms without the "- 6",
bits converted to nats the wrong way, five copies of one key instead of five keys) and answers of a
student who misread the instructions.

Public sources searched (issues corpus, "scaled dot product attention softmax wrong dim / scale"):
labmlai/annotated_deep_learning_paper_implementations#146 and nerdai/llms-from-scratch-rs#30 (softmax over
the wrong axis of an einsum score tensor; the 2-D form of it is already in earlier sets, so it is not
repeated), NVIDIA/Megatron-LM#848 (a wrong scale factor; also already covered). No variant below copies a
public slip verbatim; they are plausible slips for a student of these lessons.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so a q1 slip that
changes or breaks its output costs q8 too). Correct variants are valid but written differently from
full_marks (a logsumexp-normalised softmax with `torch.matmul` and `.mT`, a NumPy round trip with
`np.einsum` and `np.var(ddof=1)`, entropy through `torch.special.entr` with a private seeded generator
in the table, heads projected by column blocks of the weights and W_O applied as a sum of row blocks,
answers written with single quotes and comments). Every variant was run against plain torch
(`F.scaled_dot_product_attention`, `torch.softmax`, `torch.nn.MultiheadAttention`) on several shapes and
both float dtypes before it was written down here (a throwaway script in /tmp, not in the repository).

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

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''

CORRECT = {
    "attention_logsumexp_normalised_matmul_mT": {"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention; the softmax is written as exp(s - logsumexp(s))."""
    s = torch.matmul(Q, K.mT) / math.sqrt(d_k)
    weights = torch.exp(s - torch.logsumexp(s, dim=-1, keepdim=True))
    output = torch.matmul(weights, V)
    return output, weights
'''},
    "variance_numpy_round_trip_einsum_ddof": {"dot_product_variance": '''import numpy as np


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)), computed in NumPy from torch draws."""
    q = torch.randn(n_samples, d_k, generator=generator).numpy()
    k = torch.randn(n_samples, d_k, generator=generator).numpy()
    dots = np.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / np.sqrt(d_k)
    return float(np.var(dots, ddof=1))
'''},
    "entropy_special_entr_private_generator_table": {"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats: sum of entr(p) = -p ln p (entr(0) is 0) over the last dim."""
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d, drawn from a generator seeded like torch.manual_seed(seed)."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(1, d, generator=g)
        k = torch.randn(5, d, generator=g)
        raw = q.matmul(k.t()).squeeze(0)
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                         H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return rows
'''},
    "heads_from_weight_column_blocks_w_o_row_blocks_summed": {"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """Each head projects with its own column block of W_Q/W_K/W_V; concat @ W_O is the sum over heads
    of head_h @ (row block h of W_O)."""
    d_model = X.size(-1)
    d_k = d_model // n_heads
    total = None
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        head, _ = attention(X @ W_Q[:, c], X @ W_K[:, c], X @ W_V[:, c], d_k)
        part = head @ W_O[c, :]
        total = part if total is None else total + part
    return total
'''},
    "answers_single_quotes_with_comments": {
        "q5_answer": "q5_answer = 'C'  # d_k terms, each of variance 1\n",
        "q6_answer": "q6_answer = 'A'  # softmax-weighted average of all rows\n",
        "q7_answer": "q7_answer = 'D'  # soft, differentiable lookup\n",
    },
}

WRONG = {
    "q1_key_loop_fills_rows_not_columns": ({"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention, scores built one key at a time."""
    T_q, T_k = Q.shape[0], K.shape[0]
    scores = Q.new_zeros(T_q, T_k)
    for j in range(T_k):
        scores[j] = Q @ K[j] / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "in the loop over keys the scores of key j (one per query) are written into ROW j instead of "
                   "column j (scores[j] instead of scores[:, j]), so the score matrix comes out transposed for "
                   "square inputs and the assignment crashes when T_q != T_k",
       "where": ["q1", "q8"]}),
    "q1_einsum_mix_output_transposed": ({"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention with einsum."""
    scores = torch.einsum("qd,kd->qk", Q, K) / d_k ** 0.5
    weights = scores.softmax(dim=-1)
    out = torch.einsum("qk,kv->vq", weights, V)
    return out, weights
'''}, {"mistake": "the output subscripts of the value-mixing einsum are written 'vq' instead of 'qv', so the "
                   "output comes back transposed, shape (d_v, T_q) instead of (T_q, d_v)",
       "where": ["q1", "q8"]}),
    "q2_bmm_outer_product_instead_of_inner": ({"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k over n_samples pairs, the dots from a batched matmul."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.bmm(q.unsqueeze(2), k.unsqueeze(1)).flatten()
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the unsqueezes in bmm are the wrong way round ((n, d_k, 1) @ (n, 1, d_k)), which gives the "
                   "d_k x d_k outer product of each pair instead of its dot product, so the variance is that of "
                   "single products q_i k_j (about 1) rather than of the dot product (about d_k)",
       "where": ["q2"]}),
    "q2_conditional_expression_swallows_division": ({"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)), one pair at a time."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    # meant: divide by (sqrt(d_k) if scaled else 1)
    dots = torch.tensor([(q[i] @ k[i]).item() / math.sqrt(d_k) if scaled else 1
                         for i in range(n_samples)], dtype=q.dtype)
    return dots.var().item()
'''}, {"mistake": "the conditional expression binds more loosely than the division: `dot / sqrt(d_k) if scaled else 1` "
                   "makes every unscaled 'dot product' the constant 1, so the unscaled variance is 0",
       "where": ["q2"]}),
    "q2_twelve_uniforms_without_minus_six": ({"dot_product_variance": '''def _std_normal(shape, generator):
    """Approximate N(0, 1) as a sum of twelve U(0, 1) draws (central limit theorem)."""
    return torch.rand(*shape, 12, generator=generator).sum(-1)


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs."""
    q = _std_normal((n_samples, d_k), generator)
    k = _std_normal((n_samples, d_k), generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "normals are made as the sum of twelve uniforms but the '- 6' is left out, so each coordinate has "
                   "mean 6 instead of 0 and the dot products' variance is about 73 * d_k instead of d_k",
       "where": ["q2"]}),
    "q4_entropy_log2_converted_the_wrong_way": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy of softmax(logits) over the last dim, computed in bits and converted to nats."""
    p = F.softmax(logits, dim=-1)
    bits = -(p * torch.log2(p + 1e-9)).sum(dim=-1)
    return bits / math.log(2)
''' + _TABLE}, {"mistake": "the entropy is computed in bits and then divided by ln 2 to 'convert' it; going from bits "
                           "to nats needs a multiplication by ln 2, so every entropy is too large by 1 / (ln 2)^2",
                "where": ["q4"]}),
    "q4_table_one_key_repeated_five_times": ({"softmax_entropy": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(1, d).expand(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "the five keys are one random key expanded to five rows instead of five independent draws, so all "
                   "five scores are equal: both stds are (up to rounding) 0 and both entropies are ln 5",
       "where": ["q4"]}),
    "q5_answer_left_empty_string": ({"q5_answer": 'q5_answer = ""  # come back to this one\n'},
                                    {"mistake": "q5 was left unanswered: the answer is an empty string instead of a letter "
                                                "(the right one is C, d_k)", "where": ["q5"]}),
    "q6_answer_first_option_as_index_zero": ({"q6_answer": 'q6_answer = 0  # first option\n'},
                                             {"mistake": "the answer is given as the integer index 0 of the option instead of "
                                                         "the letter string \"A\"", "where": ["q6"]}),
    "q6_answer_left_as_none": ({"q6_answer": 'q6_answer = None  # TODO\n'},
                               {"mistake": "q6 was left unanswered: the variable is None instead of a letter (the right "
                                           "one is A)", "where": ["q6"]}),
    "q7_answer_option_text_instead_of_letter": ({"q7_answer": 'q7_answer = "It scores the query against every key and returns a softmax-weighted mix of all the values"\n'},
                                                {"mistake": "the text of option D is pasted instead of the letter \"D\"",
                                                 "where": ["q7"]}),
    "q7_answer_letter_in_parentheses": ({"q7_answer": 'q7_answer = "(D)"\n'},
                                        {"mistake": "the letter is written in parentheses, \"(D)\", instead of the bare "
                                                    "letter \"D\"", "where": ["q7"]}),
    "q8_values_projected_with_w_k": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_K
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the values are projected with W_K instead of W_V (a copy-paste slip), so V equals K",
       "where": ["q8"]}),
    "q8_per_head_weight_rows_not_columns": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """Each head projects X with its own slice of the weights."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    heads = []
    for h in range(n_heads):
        rows = slice(h * d_k, (h + 1) * d_k)
        Qh, Kh, Vh = X @ W_Q[rows], X @ W_K[rows], X @ W_V[rows]
        heads.append(attention(Qh, Kh, Vh, d_k)[0])
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "each head slices ROWS of the weight matrices (W_Q[h*d_k:(h+1)*d_k]) instead of their columns "
                   "(W_Q[:, h*d_k:(h+1)*d_k]), so X @ W_Q[rows] has mismatched shapes and crashes whenever "
                   "n_heads > 1", "where": ["q8"]}),
}
