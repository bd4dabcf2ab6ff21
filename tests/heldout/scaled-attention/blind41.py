"""Forty-first blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of the master notebook and of `full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k,
d_v != d_k, float32 and float64, "d_k that is not a perfect square", q2 returns a Python float, answers as
one-letter strings, q8 by right-multiplication with a per-head loop in full_marks), `harness.py`,
blind40.py in full for the format, lesson 79's text in /work/shared/lessons/ (the seed-42 trace, the
seed-7 self-attention check, the entropy experiment with its `p + 1e-9` guard, the "soft lookup / kernel
regression" slide with the Nadaraya-Watson formula sum_i K(x, x_i) y_i / sum_i K(x, x_i)), and only the
module docstrings' gist and the variant NAMES of blind.py .. blind39.py, so that their mistakes are not
repeated in the same form. The grader was not run on this set.

How it was made: the earlier names lean on q4, q1, q8 and q2 (about 90-130 each) and much less on the
multiple-choice questions (20-30 each), so this round puts half of its wrong variants on q5, q6 and q7
(2 + 2 + 3), with q1 x2, q2 x1, q4 x2, q8 x2, and on code shapes the earlier names do not show: the
Nadaraya-Watson denominator summed over the whole kernel matrix (weights right, output wrong), the scale
held as a bfloat16 constant (exact for d_k = 4, 16, 64, wrong for d_k = 3, 12), a 0-d numpy array from
`.numpy()` where a float is asked, the log guard typed 1e9 for 1e-9, a fresh generator per draw in the
table (the key's first row is then the query), a q5 probe that uses the fitted growth exponent (1) as the
option index ("B"), a q5 probe run with ten samples (seed 0 measures 6.7, nearest option "B"), a q6 check
of the weights' sums over the query axis, a q6 check that unpacks `(weights, output)` in the wrong order,
a q7 probe with torch.autograd.gradcheck on float32 tensors (fails on precision, so "C"), a q7 finite
difference whose step (scipy's approx_fprime default, sqrt of float64 eps) is below float32 resolution
(derivative 0, so "C"), a q7 hash-table probe whose query equals a key at d = 256 (one-hot weights, so
"A"), q8 heads unbound over the token axis (attention across heads inside each token), and q8's output
projection accumulated in float64 (float32 inputs get a float64 result).

Public sources: pytorch/pytorch issue 8659 and PR 8663 (gradcheck warns "this check will likely fail if
input is of single precision") and pytorch/pytorch issue 5351 ("You're running grad checks with single
precision. If you add .double() calls it will pass") for the gradcheck variant; docs.scipy.org
scipy.optimize.approx_fprime (default epsilon sqrt(np.finfo(float).eps) = 1.49e-8, a float64 step) for the
finite-difference variant; apple/axlearn PR 18 and huggingface/transformers PR 18344 (attention constants
and softmax kept in bf16 / cast in mixed precision) for the bfloat16 scale; the pytorch.org torch.var page
and the discuss.pytorch.org thread "Torch.var() and torch.std() return nan" (NumPy habits in torch
statistics) for the numpy return; PetrochukM/PyTorch-NLP issue 2 and labmlai/annotated_deep_learning_paper_
implementations issue 146 (softmax/attention taken over the wrong axis) for the q8 unbind-over-tokens and
q6 axis variants. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so q1 slips list q8
too; the q5/q6/q7 probes call the full-marks q2/q1 functions, which are untouched). Correct variants are
valid but written differently from full_marks (the kernel-regression form with a per-row denominator; keys
drawn column-major and paired by an einsum "nd,dn->n"; the entropy as a soft-label F.cross_entropy of the
distribution with itself and the table inside torch.random.fork_rng; queries pre-scaled once and every head
called with d_k = 1; letters from printf "%c", chr and a slice). Every variant was run against plain torch
(`torch.softmax`, `F.scaled_dot_product_attention`, the lesson's formula and table,
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
    "attention_kernel_regression_per_row_denominator": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    s = torch.matmul(Q, K.transpose(0, 1)) / math.sqrt(d_k)
    kernel = torch.exp(s - s.amax(dim=1, keepdim=True))   # exp kernel, shifted per row (same ratios)
    norm = kernel.sum(dim=1, keepdim=True)                 # sum_j K(q_i, k_j), one per query
    # Nadaraya-Watson: sum_j K(q_i, k_j) v_j / sum_j K(q_i, k_j)
    return (kernel @ V) / norm, kernel / norm
'''},
    "variance_keys_column_major_einsum_pairing": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    queries = torch.randn(n_samples, d_k, generator=generator)   # one query per row
    keys = torch.randn(d_k, n_samples, generator=generator)      # one key per column
    dots = torch.einsum("nd,dn->n", queries, keys)               # q_n . k_n
    factor = 1.0 / math.sqrt(d_k) if scaled else 1.0
    return (dots * factor).var().tolist()
'''},
    "entropy_soft_label_cross_entropy_table_in_fork_rng": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    T = logits.shape[-1]
    flat = logits.reshape(-1, T)                       # classes on dim 1, as cross_entropy wants
    probs = flat.softmax(dim=1)
    # H(p) = cross-entropy of p with itself
    h = F.cross_entropy(flat, probs, reduction="none")
    return h.reshape(logits.shape[:-1])


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    with torch.random.fork_rng(devices=[]):            # leave the caller's global RNG as it was
        for d in dims:
            torch.manual_seed(seed)
            q = torch.randn(1, d)
            k = torch.randn(5, d)
            raw = (k @ q.T).squeeze(1)                  # the same 5 dot products
            scaled = raw / math.sqrt(d)
            table.append(dict(d=d, raw_std=float(torch.std(raw)), scaled_std=float(torch.std(scaled)),
                              H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return table
'''},
    "mha_queries_prescaled_heads_called_with_unit_d_k": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = W_Q.shape[1] // n_heads
    Q = (X @ W_Q) * (1.0 / math.sqrt(d_k))     # the 1/sqrt(d_k) of each head, applied once here
    K = X @ W_K
    V = X @ W_V
    outs = []
    for start in range(0, n_heads * d_k, d_k):
        stop = start + d_k
        o, _ = attention(Q[:, start:stop], K[:, start:stop], V[:, start:stop], 1)   # already scaled
        outs.append(o)
    return torch.concat(outs, dim=-1) @ W_O
'''},
    "answers_printf_chr_and_slice": {
        "q5_answer": '''
q5_answer = "%c" % 67          # ASCII 67 is C
''',
        "q6_answer": '''
q6_answer = chr(0x41)
''',
        "q7_answer": '''
q7_answer = "abcd"[-1:].upper()
'''},
}


WRONG = {
    "q1_kernel_regression_output_over_grand_total": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    kernel = torch.exp(scores)
    weights = kernel / kernel.sum(dim=-1, keepdim=True)
    # kernel regression: sum_j K(q, k_j) v_j / sum_j K(q, k_j)
    out = kernel @ V / kernel.sum()
    return out, weights
'''}, {"mistake": "The output is written as Nadaraya-Watson kernel regression, but the denominator "
                   "kernel.sum() adds up the WHOLE kernel matrix instead of each query's row: the weights "
                   "are right, yet every output row is divided by the grand total (about T_q times too "
                   "small in the lesson's trace), and every q8 head output is wrong too.",
       "where": ["q1", "q8"]}),

    "q1_scale_constant_held_in_bfloat16": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scale = torch.tensor(d_k, dtype=torch.bfloat16).rsqrt()    # 1/sqrt(d_k), kept in low precision
    scores = (Q @ K.T) * scale
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The scale 1/sqrt(d_k) is computed as a bfloat16 constant (a mixed-precision habit), "
                   "which keeps only about 3 significant digits: it is exact for d_k = 4, 16 or 64 but off by "
                   "about 0.1% for d_k = 3 or 12, so the scores, weights and output are wrong beyond float "
                   "tolerance for any d_k that is not a power of 4 (the result dtype stays that of Q, which "
                   "hides it), and q8's heads inherit it.",
       "where": ["q1", "q8"]}),

    "q2_returns_zero_dim_numpy_array": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().numpy()            # a plain number, as in NumPy
'''}, {"mistake": "The variance is returned with .numpy(), which gives a 0-d numpy ARRAY (float32), not a "
                   "Python float: the value is right but the type asked for (.item()) is not.",
       "where": ["q2"]}),

    "q4_log_guard_typed_1e9": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e9)).sum(dim=-1)
''' + _TABLE}, {"mistake": "The guard inside the log is typed 1e9 instead of 1e-9 (the minus of the exponent is "
                            "missing), so log(p + 1e9) is about 20.72 for every entry and the function returns "
                            "about -20.72 for every row (ln 5 = 1.609 expected for a uniform row, 0 for a "
                            "saturated one); the table's entropies are wrong too.",
                 "where": ["q4"]}),

    "q4_table_fresh_generator_per_draw": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        # a private generator for each draw, so that nothing depends on the global RNG
        q = torch.randn(1, d, generator=torch.Generator().manual_seed(seed))
        k = torch.randn(5, d, generator=torch.Generator().manual_seed(seed))
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "Each draw gets its own generator seeded with `seed`, so the keys restart the stream the "
                   "query used: the first key row IS the query, its score is |q|^2 (about d), and the stds and "
                   "entropies differ from the lesson's table (the lesson calls torch.manual_seed once and "
                   "draws q then k from one stream).",
       "where": ["q4"]}),

    "q5_answer_growth_exponent_used_as_option_index": ({"q5_answer": '''
# measure how Var(q.k) grows with d_k: fit Var ~ d_k ** e from two widths
_g = torch.Generator().manual_seed(0)
_v4 = dot_product_variance(4, 10000, _g)
_v64 = dot_product_variance(64, 10000, _g)
_e = math.log(_v64 / _v4) / math.log(64 / 4)        # about 1
q5_answer = "ABCD"[round(_e)]                        # exponent 0, 1, 2, ... -> option A, B, C, ...
'''}, {"mistake": "The probe measures the right growth exponent (about 1) but uses it as the option index, "
                   "as if the options were d_k^0, d_k^1, d_k^2, ...; option B is sqrt(d_k) (exponent 1/2), "
                   "so index 1 gives 'B' instead of 'C' (d_k).",
       "where": ["q5"]}),

    "q5_answer_probe_with_ten_samples": ({"q5_answer": '''
# quick check with the q2 function at d_k = 16 (a few samples are enough to see the order of magnitude)
_measured = dot_product_variance(16, 10, torch.Generator().manual_seed(0))
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe estimates the variance from only 10 pairs: the estimate is very noisy (6.7 "
                   "with seed 0 instead of about 16), lands nearest to option B (sqrt(16) = 4) and the cell "
                   "answers 'B' instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_check_weight_sums_over_queries_axis": ({"q6_answer": '''
# option A says a weighted AVERAGE: check that the weights sum to 1, then try the other options
_X = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_out, _W = attention(_X, _X, _X, 8)
if torch.allclose(_W.sum(dim=0), torch.ones(4), atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
elif torch.allclose(_out, _X[(_X @ _X.T).argmax(dim=1)], atol=1e-5):
    q6_answer = "C"
else:
    q6_answer = "D"
'''}, {"mistake": "The check sums the weights over dim 0 (over the queries, a column sum) instead of over "
                   "the keys (dim -1); only each ROW sums to 1, so the option-A test fails, B and C fail too, "
                   "and the cell falls through to 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_unpacks_pair_in_wrong_order": ({"q6_answer": '''
# self-attention on 4 tokens of width 4: is each output row the softmax-weighted average of the rows of X?
_X = torch.randn(4, 4, generator=torch.Generator().manual_seed(7))
_W, _out = attention(_X, _X, _X, 4)
if torch.allclose(_W @ _X, _out, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
elif torch.allclose(_out, _X[(_X @ _X.T).argmax(dim=1)], atol=1e-5):
    q6_answer = "C"
else:
    q6_answer = "D"
'''}, {"mistake": "attention returns (output, weights) but the check unpacks it as (weights, output): it then "
                   "compares output @ X with the weights, every option test fails and the cell falls through "
                   "to 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_gradcheck_on_float32_inputs": ({"q7_answer": '''
# is the lookup differentiable? let autograd's own checker decide
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g)
_ok = torch.autograd.gradcheck(lambda q: attention(q, _K, _V, 4)[0], (_Q,), raise_exception=False)
q7_answer = "D" if _ok else "C"
'''}, {"mistake": "torch.autograd.gradcheck is run on float32 tensors; its finite differences (eps = 1e-6) "
                   "need float64, so the check fails on rounding, not because the gradient is wrong, and the "
                   "cell concludes there is no useful gradient: 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_finite_difference_step_below_float32_resolution": ({"q7_answer": '''
# numerical derivative of one output entry w.r.t. one query entry (scipy's default step)
_eps = 1.4901161193847656e-08                   # sqrt(machine epsilon)
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g)
_Qp = _Q.clone()
_Qp[0, 0] += _eps
_slope = (attention(_Qp, _K, _V, 4)[0][0, 0] - attention(_Q, _K, _V, 4)[0][0, 0]) / _eps
q7_answer = "C" if abs(_slope.item()) < 1e-6 else "D"
'''}, {"mistake": "The finite-difference step is sqrt of the FLOAT64 machine epsilon (1.5e-8), below the "
                   "float32 resolution at Q[0, 0] = 1.54 (spacing 1.2e-7): the perturbed query is bit-identical, "
                   "the slope comes out exactly 0 and the cell answers 'C' (no useful gradient) instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_probe_query_equal_to_key": ({"q7_answer": '''
# hash-table test: a query equal to a stored key should give back exactly that key's value
_g = torch.Generator().manual_seed(0)
_K = torch.randn(6, 256, generator=_g)
_V = torch.randn(6, 3, generator=_g)
_out, _ = attention(_K[2:3], _K, _V, 256)
q7_answer = "A" if torch.allclose(_out, _V[2:3]) else "D"
'''}, {"mistake": "The probe uses a query equal to a key at d = 256: its own score |k|^2/16 is about 16 while "
                   "the others are about 0, so the softmax is one-hot to float precision and the output equals "
                   "that key's value; the cell takes this saturated case for an exact lookup and answers 'A' "
                   "instead of 'D' (with ordinary queries every value contributes).",
       "where": ["q7"]}),

    "q8_unbind_over_tokens_attends_across_heads": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    split = lambda M: M.view(T, n_heads, d_k).unbind(0)      # the heads
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(split(Q), split(K), split(V))]
    return torch.stack(heads).reshape(T, d_model) @ W_O
'''}, {"mistake": "The (T, n_heads, d_k) view is unbound over dim 0, which is the TOKEN axis: each 'head' is "
                   "one token's n_heads slices, so attention mixes the heads of one token instead of the "
                   "tokens of one head (with one head every token just keeps its own value row); the shapes "
                   "all fit but the result is wrong.",
       "where": ["q8"]}),

    "q8_projection_accumulated_in_float64": ({"multi_head_attention": '''
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
    concat = torch.cat(heads, dim=1)
    return concat.double() @ W_O.double()        # accumulate the output projection in double precision
'''}, {"mistake": "The output projection is done in float64 'for accuracy' and never cast back, so float32 "
                   "inputs get a float64 result: the question asks for the dtype of the inputs (comparisons "
                   "with a float32 reference then fail on dtype).",
       "where": ["q8"]}),
}
