"""Thirty-first blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `_diagnose.py`, the reference solution, `variants.py`, `measure.py`, the
naming tests, `autograder/grading/` or the other example submissions. What was read: the student-facing
text and solution cells of the master notebook (not its test cells), `full_marks.ipynb`, `harness.py`,
the list of lesson texts in /work/shared/lessons/ (their titles only, for lack of time), the module
docstring and first lines of blind30.py for the format, and only the variant NAMES of blind.py .. blind30.py,
so that their mistakes
are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier sets' names count q4 113, q1 103, q8 94, q2 73 and q5-q7 16, 13 and 11, and
every wrong letter of q5-q7 is already taken. So this set gives q5-q7 four variants in forms not yet
used (an annotation `q5_answer: "C"` that binds nothing, the letter with an "Option" prefix, the bold
letter copied from the markdown `**A.**`, and `==` typed for `=`), keeps q2 to one (it is saturated),
and puts three on q1, three on q4 and three on q8. The mix follows a real class: small slips inside right
code (the loop over head starts multiplied by d_k a second time, a class storing W_O where W_V belongs,
products summed over the keys axis), whole-approach mistakes (`torch.exp2` taken for the exponential
in a hand-written softmax, Gini impurity remembered as "the" entropy, a Gumbel softmax sampled
instead of the softmax, one key/value head shared by every query head as in multi-query attention),
crashes of half-remembered APIs (`torch.dot` on matrices as
`np.dot` allows, `gen=` for `generator=`, an einsum written for 2-D input only) and answers of a
student who misread the instructions.

Public sources searched (issues and pages corpora): `torch.dot` given 2-D tensors in attention code
("RuntimeError: 1D tensors expected, but got 2D and 2D tensors": spro/practical-pytorch#51 and #140,
DeepVAC/TorchPod#51, where the answer is that torch.dot only takes vectors while numpy's dot takes
matrices), named in a comment above the variant that carries it; entropy helpers in tutorials
(torch.special.entr, scipy.stats.entropy) were looked at but scipy is not in the grading env, so no
variant uses it. The other variants are plausible slips for a student of these lessons.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so a q1 slip that
changes or breaks its output costs q8 too). Correct variants are valid but written differently from
full_marks (`torch.inner` with the softmax method, one draw of width 2 d_k split into q | k with only the
query scaled, entropy from `logits - logsumexp` with a per-d row helper and `dict(zip(...))`, heads
split by reshape/permute and fed to `attention` from a comprehension over `zip`, letters built with
`chr`/`str` methods). Every variant was run against plain torch (`F.scaled_dot_product_attention`,
`torch.nn.MultiheadAttention`, `torch.softmax`) on several shapes and both float dtypes before it was
written down here (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''

_TABLE = '''

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
'''

CORRECT = {
    "attention_inner_softmax_method": {"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention: torch.inner(Q, K) is Q @ K^T for 2-D inputs."""
    scale = 1.0 / math.sqrt(d_k)
    weights = torch.inner(Q, K).mul(scale).softmax(dim=-1)
    return weights @ V, weights
'''},
    "variance_one_wide_draw_query_scaled": {"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """One draw of width 2*d_k per sample: the first half is q, the second half k."""
    pairs = torch.randn(n_samples, 2 * d_k, generator=generator)
    q, k = pairs[:, :d_k], pairs[:, d_k:]
    if scaled:
        q = q * d_k ** -0.5          # (q / sqrt(d_k)) . k == (q . k) / sqrt(d_k)
    dots = torch.einsum("nd,nd->n", q, k)
    return float(dots.var())
'''},
    "entropy_logsumexp_row_helper_zip": {"softmax_entropy": '''def softmax_entropy(logits):
    """H(p) = -sum p log p with log p = logits - logsumexp(logits)."""
    log_p = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    return -(log_p.exp() * log_p).sum(dim=-1)


_KEYS = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")


def _row(d, seed):
    torch.manual_seed(seed)
    query = torch.randn(1, d)
    keys = torch.randn(5, d)
    s = keys @ query[0]
    s_scaled = s / math.sqrt(d)
    return dict(zip(_KEYS, (d, s.std().item(), s_scaled.std().item(),
                            softmax_entropy(s).item(), softmax_entropy(s_scaled).item())))


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d, built by _row."""
    return [_row(d, seed) for d in dims]
'''},
    "heads_permuted_comprehension_over_zip": {"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """Heads split by reshape + permute, each run through attention, merged back head-major."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split(M):
        return M.reshape(T, n_heads, d_k).permute(1, 0, 2)     # (n_heads, T, d_k)

    Qh, Kh, Vh = (split(X @ W) for W in (W_Q, W_K, W_V))
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(Qh, Kh, Vh)]
    return torch.stack(outs, dim=1).reshape(T, d_model) @ W_O
'''},
    "answers_built_with_chr_and_upper": {
        "q5_answer": 'q5_answer = chr(ord("A") + 2)   # third option: d_k\n',
        "q6_answer": 'q6_answer = "a".upper()\n',
        "q7_answer": 'q7_answer = chr(68)   # "D"\n',
    },
}

WRONG = {
    # torch.dot only takes 1-D tensors (numpy's dot takes matrices): the same slip is reported in
    # spro/practical-pytorch#51 and #140 and DeepVAC/TorchPod#51 ("1D tensors expected, but got 2D").
    "q1_torch_dot_on_matrices": ({"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.dot(Q, K.T) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "Uses torch.dot for the score matrix as if it were np.dot; torch.dot only takes two "
                   "1-D vectors, so the call raises on the 2-D Q and K^T instead of giving Q @ K^T.",
       "where": ["q1", "q8"]}),
    "q1_gumbel_softmax_weights": ({"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.gumbel_softmax(scores, tau=1.0, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "Normalises the scores with F.gumbel_softmax instead of F.softmax: it adds random "
                   "Gumbel noise to every score before the softmax, so the rows still sum to 1 but the "
                   "weights are a random sample, not softmax(QK^T/sqrt(d_k)), and change from call to call.",
       "where": ["q1", "q8"]}),
    "q1_exp2_in_hand_softmax": ({"attention": '''def attention(Q, K, V, d_k):
    """Scaled dot-product attention with a hand-written, max-shifted softmax."""
    scores = Q @ K.T / math.sqrt(d_k)
    e = torch.exp2(scores - scores.amax(dim=-1, keepdim=True))
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''}, {"mistake": "Writes the softmax by hand with torch.exp2, which is 2**x, not e**x; the rows still sum "
                   "to 1 but the weights are softmax(scores * ln 2), flatter than the real softmax.",
       "where": ["q1", "q8"]}),
    "q2_generator_keyword_typed_gen": ({"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs."""
    q = torch.randn(n_samples, d_k, gen=generator)
    k = torch.randn(n_samples, d_k, gen=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "Passes the generator as gen=generator; torch.randn has no 'gen' keyword (it is "
                   "generator=), so every call raises a TypeError and no variance is returned.",
       "where": ["q2"]}),
    "q4_entropy_as_gini_impurity": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy of softmax(logits) over the last dim."""
    p = torch.softmax(logits, dim=-1)
    return 1 - (p * p).sum(dim=-1)
''' + _TABLE}, {"mistake": "Returns the Gini impurity 1 - sum p_j^2 (from decision trees) instead of the "
                           "entropy -sum p_j ln p_j; it is 0 for a one-hot row but 0.8, not ln 5 = 1.609, "
                           "for a uniform row over 5 keys, so the entropies and the table's H columns are wrong.",
                "where": ["q4"]}),
    "q4_entropy_einsum_fixed_to_2d": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits), one value per row."""
    p = F.softmax(logits, dim=-1)
    return -torch.einsum("rt,rt->r", p, torch.log(p + 1e-9))
''' + _TABLE}, {"mistake": "Writes the row-wise sum as einsum('rt,rt->r'), which only accepts 2-D input: "
                           "a single row of 5 scores (as entropy_table passes) or a batch of shape (B, T_q, T) "
                           "makes einsum raise, instead of reducing over the last dim of any shape.",
                "where": ["q4"]}),
    "q4_table_products_summed_over_keys": ({"entropy_table": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q * k).sum(dim=0)          # q . k for each key
        scaled = raw / d ** 0.5
        table.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                      "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return table
'''}, {"mistake": "Sums the broadcast products q * k over dim 0 (the 5 keys) instead of dim 1 (the d "
                   "coordinates), so 'raw' holds d column sums rather than the 5 dot products q . k_j, and "
                   "every std and entropy in the table is computed from the wrong numbers.",
       "where": ["q4"]}),
    "q5_answer_annotation_colon": ({"q5_answer": 'q5_answer: "C"\n'},
                                   {"mistake": "Types a colon instead of '=': `q5_answer: \"C\"` is only a "
                                               "type annotation and binds nothing, so q5_answer is never defined.",
                                    "where": ["q5"]}),
    "q5_answer_option_prefix": ({"q5_answer": 'q5_answer = "Option C"\n'},
                                {"mistake": "Sets the answer to the words 'Option C' instead of the single "
                                            "letter \"C\" the question asks for.",
                                 "where": ["q5"]}),
    "q6_answer_markdown_bold_copied": ({"q6_answer": 'q6_answer = "**A.**"\n'},
                                       {"mistake": "Copies the option label from the markdown with its bold "
                                                   "stars and period, '**A.**', instead of the one letter \"A\".",
                                        "where": ["q6"]}),
    "q7_answer_compared_not_assigned": ({"q7_answer": 'q7_answer == "D"\n'},
                                        {"mistake": "Writes '==' instead of '=': the line compares an undefined "
                                                    "name with \"D\" (a NameError) and never assigns q7_answer.",
                                         "where": ["q7"]}),
    "q8_range_step_start_multiplied_again": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for start in range(0, d_model, d_k):
        cols = slice(start * d_k, (start + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Loops over the column starts range(0, d_model, d_k) but then multiplies the start by "
                   "d_k again as if it were the head index, so every head after the first slices columns past "
                   "the end (empty heads) and the concatenation is too narrow for W_O.",
       "where": ["q8"]}),
    "q8_values_projected_with_w_o": ({"multi_head_attention": '''class _MultiHead:
    def __init__(self, W_Q, W_K, W_V, W_O, n_heads):
        self.W_Q, self.W_K, self.W_V, self.W_O = W_Q, W_K, W_V, W_O
        self.n_heads = n_heads

    def __call__(self, X):
        d_k = X.shape[1] // self.n_heads
        Q, K, V = X @ self.W_Q, X @ self.W_K, X @ self.W_O
        outs = []
        for h in range(self.n_heads):
            lo, hi = h * d_k, (h + 1) * d_k
            outs.append(attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_k)[0])
        return torch.cat(outs, dim=1) @ self.W_O


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    return _MultiHead(W_Q, W_K, W_V, W_O, n_heads)(X)
'''}, {"mistake": "Projects the values with the output matrix (V = X @ W_O) instead of W_V, a slip in the "
                   "attribute name; W_V is never used, so every head mixes the wrong value vectors.",
       "where": ["q8"]}),
    "q8_one_key_value_head_shared": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    K0, V0 = K[:, :d_k], V[:, :d_k]        # one key/value head, shared by the query heads
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K0, V0, d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Builds multi-query attention instead of multi-head: each head has its own query slice "
                   "but all heads share the first key and value slice, so heads 1..n-1 never see their own "
                   "columns of K and V.",
       "where": ["q8"]}),
}
