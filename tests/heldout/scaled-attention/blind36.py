"""Thirty-sixth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `_diagnose.py`, the reference solution, `variants.py`, `measure.py`, the
naming tests, `autograder/grading/` or the other example submissions. What was read: the student-facing
text and solution cells of the master notebook (not its test cells), `full_marks.ipynb`, `harness.py`,
lesson 79's text in /work/shared/lessons/ (its entropy experiment, variance derivation and quiz slides,
whose answer key reads "A" for the variance question), the module docstring and first lines of blind35.py
for the format, and only the variant NAMES of blind.py .. blind35.py, so that their mistakes are not
repeated in the same form. The grader was not run on this set.

How it was made: the earlier sets' names lean on q4, q1, q8 and q2 (about 80-120 each) and touch q5-q7
about 15-25 times each. This set spreads 14 wrong variants over every question with a code cell (q3 is a
hand-graded markdown answer): q1 x3, q2 x2, q4 x2, q5 x2, q6 x1, q7 x1, q8 x3. The mix: small slips
inside right code (a row loop writing into a `torch.zeros` buffer made in the default float32, a
lower-case parameter with an upper-case `V` in the body that reads the notebook's global trace `V`, the
value mix taken from the unnormalised exponentials kept under another name, a Python loop that rebinds
its loop variable instead of scaling the list, a head loop that advances its column counter between the
query slice and the key slice, an output projection typed as `W_V`), whole-approach mistakes (the scaled
variance divided by d_k again, entropy rows flattened to 2-D and never reshaped back, "scaling" done by
dividing by the observed std, heads split by a permute that puts tokens last) and answers of a student who
read an experiment or the lesson wrongly (a standard deviation matched against variance options, the
lesson's quiz key copied, a Greek capital alpha pasted from rendered text, q7 chained to q6's letter).

Public sources searched (issues corpus): "torch.Tensor(numpy array) converts float64 to float32 dtype
silently" (pytorch/pytorch#27754: a float64 value silently lands in a float32 tensor) and "attention from
scratch zeros buffer dtype float64 mismatch expected scalar type Double but found Float"
(OUCMachineLearning/OUCML#24: a float64 tensor meets a float32 one in torch.mm; tinygrad/tinygrad#5100:
attention that does not return the input's dtype). The variant carrying that slip names the sources in a
comment. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so a q1 slip that
changes its output or crashes on float64 costs q8 too). Correct variants are valid but written differently
from full_marks (log-domain softmax with einsum, `torch.cov` of one stacked draw with the scaled variance
taken as var / d_k, entropy from `torch.special.entr` with the table rows built by `dict(zip(...))`, heads
cut by `torch.tensor_split` and merged by stack + flatten, q5's letter looked up from the option list).
Every variant was run against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`,
`torch.nn.MultiheadAttention`) on several shapes and both float dtypes (a throwaway script in /tmp, not in
the repository).

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
    "attention_log_domain_softmax_einsum": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    logits = torch.einsum("id,jd->ij", Q, K) * d_k ** -0.5
    log_w = logits - torch.logsumexp(logits, dim=-1, keepdim=True)   # log-softmax over the keys
    weights = log_w.exp()
    output = torch.einsum("ij,jv->iv", weights, V)
    return output, weights
'''},
    "variance_torch_cov_of_stacked_pair": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pair = torch.randn(2, n_samples, d_k, generator=generator)   # pair[0] = queries, pair[1] = keys
    dots = torch.einsum("nd,nd->n", pair[0], pair[1])
    var = torch.cov(dots)              # a 1-D input gives its unbiased variance
    if scaled:
        var = var / d_k                # Var(x / c) = Var(x) / c**2 with c = sqrt(d_k)
    return float(var)
'''},
    "entropy_special_entr_table_from_zip": {"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    probs = torch.softmax(logits, dim=-1)
    return torch.special.entr(probs).sum(-1)        # entr(p) = -p ln p, and entr(0) = 0


_KEYS = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for width in dims:
        torch.manual_seed(seed)
        query = torch.randn(1, width)
        keys = torch.randn(5, width)
        raw = (keys @ query.T).squeeze(1)
        scaled = raw / math.sqrt(width)
        values = (width, torch.std(raw).item(), torch.std(scaled).item(),
                  softmax_entropy(raw).item(), softmax_entropy(scaled).item())
        rows.append(dict(zip(_KEYS, values)))
    return rows
'''},
    "mha_tensor_split_stack_flatten": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    head_dim = X.size(-1) // n_heads
    parts = [torch.tensor_split(X @ W, n_heads, dim=1) for W in (W_Q, W_K, W_V)]
    outs = [attention(q_h, k_h, v_h, head_dim)[0] for q_h, k_h, v_h in zip(*parts)]
    merged = torch.stack(outs, dim=1).flatten(1)     # (T, n_heads, d_k) -> (T, d_model), head 0 first
    return merged @ W_O
'''},
    "q5_letter_looked_up_from_option_list": {"q5_answer": '''
options = ["1", "sqrt(d_k)", "d_k", "d_k^2"]
q5_answer = "ABCD"[options.index("d_k")]
'''},
}


WRONG = {
    # pytorch/pytorch#27754 and OUCMachineLearning/OUCML#24: a float64 value stored in / multiplied with a
    # float32 tensor; tinygrad/tinygrad#5100: attention that does not keep the input's dtype.
    "q1_row_loop_buffer_in_default_float32": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    weights = torch.zeros(Q.shape[0], K.shape[0])
    for i in range(Q.shape[0]):
        row = (K @ Q[i]) / math.sqrt(d_k)
        weights[i] = torch.softmax(row, dim=0)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The weights buffer is made with torch.zeros(T_q, T_k), which is float32 whatever the inputs "
                   "are, so float64 inputs lose precision in the weights and `weights @ V` fails with a dtype "
                   "mismatch; the buffer must take Q's dtype (dtype=Q.dtype or torch.zeros_like).",
       "where": ["q1", "q8"]}),

    "q1_lowercase_params_body_reads_global_V": ({"attention": '''
def attention(q, k, v, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = q @ k.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The parameters were renamed to lower case but the value mix still says `V`, so it silently "
                   "uses the notebook's global trace V (3 x 4) instead of the values passed in: right only on "
                   "the trace, wrong or a shape error everywhere else.",
       "where": ["q1", "q8"]}),

    "q1_output_mixed_from_unnormalised_exponentials": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    s = Q @ K.transpose(0, 1) / math.sqrt(d_k)
    e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = e @ V
    return out, weights
'''}, {"mistake": "The softmax is computed correctly into `weights`, but the values are mixed with `e`, the "
                   "shifted exponentials before dividing by the row sum, so the output rows are not weighted "
                   "averages (they are scaled by each row's normaliser).",
       "where": ["q1", "q8"]}),

    "q2_scaled_variance_divided_by_d_k_again": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()
    if scaled:
        dots = dots / math.sqrt(d_k)
    variance = dots.var().item()
    return variance / d_k if scaled else variance
'''}, {"mistake": "With scaled=True the dot products are divided by sqrt(d_k) and then the variance is divided "
                   "by d_k again, so it returns about 1/d_k instead of about 1: the scaling is applied twice.",
       "where": ["q2"]}),

    "q2_scaling_loop_rebinds_loop_variable": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1).tolist()
    if scaled:
        for x in dots:
            x /= math.sqrt(d_k)
    return torch.tensor(dots, dtype=torch.float64).var().item()
'''}, {"mistake": "The scaling loop `for x in dots: x /= sqrt(d_k)` only rebinds the loop variable; the floats "
                   "in the list are never changed, so scaled=True still returns about d_k instead of about 1.",
       "where": ["q2"]}),

    "q4_entropy_rows_flattened_shape_not_restored": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    rows = logits.reshape(-1, logits.shape[-1])           # (N, T): one distribution per row
    logp = F.log_softmax(rows, dim=1)
    return -(logp.exp() * logp).sum(dim=1)
''' + _TABLE}, {"mistake": "The logits are reshaped to (N, T) to work row by row but the result is never reshaped "
                            "back to logits.shape[:-1]: a 1-D input gives shape (1,) instead of a scalar and a "
                            "(..., T) batch comes back flattened to (N,).",
                 "where": ["q4"]}),

    "q4_table_scaled_by_observed_std": ({"softmax_entropy": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / raw.std()          # bring the scores back to unit spread
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The scaled scores are raw / raw.std() (standardised by the std measured on these 5 scores) "
                   "instead of raw / sqrt(d): scaled_std is always exactly 1 and H_scaled differs from the "
                   "lesson's table (e.g. not 1.065 at d = 256).",
       "where": ["q4"]}),

    "q5_answer_std_matched_against_variance_options": ({"q5_answer": '''
# check with the experiment: which option is closest to what d = 256 gives?
row = entropy_table(dims=(256,))[0]
options = {"A": 1, "B": 256 ** 0.5, "C": 256, "D": 256 ** 2}
q5_answer = min(options, key=lambda letter: abs(options[letter] - row["raw_std"]))
'''}, {"mistake": "Matched the measured standard deviation of the raw scores (about 22) against options that "
                   "are variances, so it picked B (sqrt(d_k)); the question asks for the variance, which is d_k "
                   "(C).",
       "where": ["q5"]}),

    "q5_answer_lesson_quiz_letter_copied": ({"q5_answer": '''
# same question as the lesson's "Check your understanding" slide, whose answer is A
q5_answer = "A"
'''}, {"mistake": "Copied the letter from the lesson's quiz, where the options are in a different order; here A "
                   "is '1, whatever d_k is', while the variance of q.k is d_k (C).",
       "where": ["q5"]}),

    # the cell holds the literal Greek character U+0391 (written in this file as an escape)
    "q6_answer_greek_capital_alpha": ({"q6_answer": '''
q6_answer = "\u0391"
'''}, {"mistake": "The answer is the Greek capital letter Alpha (U+0391, pasted from rendered text), which looks "
                   "like A but is not the Latin letter 'A'; the answer must be one of the ASCII letters A-D.",
       "where": ["q6"]}),

    "q7_answer_chained_to_q6": ({"q7_answer": '''
q7_answer = q6_answer   # same idea as q6: a weighted average of the values
'''}, {"mistake": "Set q7 to q6's letter (A); for q7, A is 'returns the value of the key that equals the query "
                   "exactly', the hash-table behaviour; the soft, differentiable lookup is D.",
       "where": ["q7"]}),

    "q8_column_counter_advanced_before_key_slice": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outputs = []
    start = 0
    for _ in range(n_heads):
        q_h = Q[:, start:start + d_k]
        start += d_k
        k_h = K[:, start:start + d_k]
        v_h = V[:, start:start + d_k]
        outputs.append(attention(q_h, k_h, v_h, d_k)[0])
    return torch.cat(outputs, dim=1) @ W_O
'''}, {"mistake": "The column counter is advanced right after the query slice, so each head's keys and values "
                   "come from the next head's columns and the last head gets empty key/value slices (a shape "
                   "error); the counter must move after all three slices.",
       "where": ["q8"]}),

    "q8_output_projection_uses_w_v": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_V
'''}, {"mistake": "The concatenated heads are multiplied by W_V instead of W_O (a copy-paste slip), so the output "
                   "projection uses the value weights.",
       "where": ["q8"]}),

    "q8_split_permute_puts_tokens_last": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split(M):                       # (T, d_model) -> (n_heads, T, d_k)
        return M.view(T, n_heads, d_k).permute(1, 2, 0)

    q, k, v = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    scores = torch.einsum("htd,hsd->hts", q, k) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    heads = torch.einsum("hts,hsd->htd", weights, v)
    return heads.permute(1, 0, 2).reshape(T, d_model) @ W_O
'''}, {"mistake": "The head split uses permute(1, 2, 0), which gives (n_heads, d_k, T) instead of "
                   "(n_heads, T, d_k): each head then attends over its feature columns with the tokens as the "
                   "feature axis, and the merge scrambles the result; it should be permute(1, 0, 2).",
       "where": ["q8"]}),
}
