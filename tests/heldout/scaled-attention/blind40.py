"""Fortieth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `full_marks.ipynb` (the student-facing text of q1..q8: 2-D inputs, T_q != T_k, d_v != d_k,
float32 and float64, answers as one-letter strings, q8 by right-multiplication), `harness.py`, blind39.py in
full for the format, lesson 79's text in /work/shared/lessons/ (the seed-42 trace, the seed-7 self-attention
check, the entropy experiment and its `-(p*torch.log(p+1e-9))` helper, the soft lookup / kernel regression
slide), and only the module docstrings' gist and the variant NAMES of blind.py .. blind38.py, so that their
mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier names lean on q4 (about 130), q1 (about 120), q8 (about 115) and q2 (about 90);
q5, q6 and q7 have 20-30 each. This round spreads evenly, two per question, so it leans on the
multiple-choice questions (six of fourteen) and on code shapes the earlier names do not show: q1 x2, q2 x2,
q4 x2, q5 x2, q6 x2, q7 x2, q8 x2. The mix: scores floor-divided by the scale (`//`, as in the
`d_model // n_heads` line of q8), a second softmax applied to the probabilities "to normalise the rows"
(rows still sum to 1, but flattened towards uniform), the scale written `d_k ** -1/2` (precedence: 1/(2 d_k)),
the scaled flag compared with the string "True" (never true for the bool), a `return` indented into the
table loop (one row), an einsum whose second operand has its own index letter (a product of two sums, not
a sum of products), a q5 probe that measures at d_k = 16 but builds its options from the notebook's global
d_k = 4 (so 16 matches "D"), a q5 probe that stores numpy's argmin (np.int64(2)) instead of the letter,
a q6 check made with torch.equal (bit-exact, so a correct attention "fails" and the cell falls back to "C"),
a q6 check whose hand softmax is normalised over the whole matrix (scipy.special.softmax's default
axis=None, so the check fails and the cell falls back to "D"), a q7 probe that reads `requires_grad` of
outputs made from plain tensors (False, so "C"), a q7 probe that backpropagates `weights.sum()` (rows sum
to 1, so the gradient is 0 and the cell concludes "no useful gradient", "C"), a pre-LN layer_norm on X in
q8 (the GPT-2 / nanoGPT block habit `x + attn(ln_1(x))`, without the residual), and `torch.tensor_split`
given the head WIDTH d_k where it expects the number of sections (d_k heads of width n_heads).

Public sources: docs.scipy.org scipy.special.softmax ("Default is None and softmax will be computed over
the entire array x") for the second q6 variant; discuss.mxnet.io "Derivative of Softmax" (t/2614: the
gradient of all softmax outputs summed is 0, "the gradients from each individual output cancel each
other out") and stats.stackexchange 325843 ("why does deriving the softmax for a single vector come to 0")
for the second q7 variant; pytorch.org torch.tensor_split (an int is the NUMBER of sections, unlike
torch.split's chunk SIZE) for the second q8 variant; nanoGPT-style blocks as copied in
TarunSharma11/CustomLLM modules/block.py (`x = x + self.attn(self.ln_1(x))`) for the first q8 variant.
No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake; `where`
lists the questions that may lose points (q8 calls the student's `attention`, so q1 slips list q8 too).
Correct variants are valid but written differently from full_marks (einsum scores with the softmax taken
in float64 and cast back to the input dtype; dot products as cosine similarity times the two norms; the
entropy in bits converted to nats with a clamp at finfo.tiny and a table built by a row helper and
dict(zip()); heads cut with index_select and merged with index_copy_ into an empty_like buffer; the three
letters from string.ascii_uppercase, str.format and str.join). Every variant was run against plain torch
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
    "attention_einsum_softmax_in_float64_cast_back": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    # the softmax in double precision, then back to the dtype we were given
    weights = torch.softmax(scores.double(), dim=-1).to(scores.dtype)
    output = torch.einsum("qk,kv->qv", weights, V)
    return output, weights
'''},
    "variance_cosine_similarity_times_norms": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    # q . k = cos(q, k) |q| |k|
    dots = F.cosine_similarity(q, k, dim=1) * q.norm(dim=1) * k.norm(dim=1)
    if scaled:
        dots = dots * (1.0 / math.sqrt(d_k))
    return float(torch.var(dots))
'''},
    "entropy_bits_to_nats_tiny_clamp_row_helper_table": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    safe = p.clamp_min(torch.finfo(p.dtype).tiny)          # 0 * log2(tiny) = 0 for an underflowed p
    bits = -(p * torch.log2(safe)).sum(dim=-1)
    return bits * math.log(2.0)                             # 1 bit = ln 2 nats


_KEYS = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")


def _table_row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = (q @ k.T).flatten()
    scaled = raw / math.sqrt(d)
    return (d, torch.std(raw).item(), torch.std(scaled).item(),
            softmax_entropy(raw).item(), softmax_entropy(scaled).item())


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [dict(zip(_KEYS, _table_row(d, seed))) for d in dims]
'''},
    "mha_index_select_heads_index_copy_merge": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.size(1) // n_heads
    Q, K, V = (torch.matmul(X, W) for W in (W_Q, W_K, W_V))
    merged = torch.empty_like(Q)
    for h in range(n_heads):
        idx = torch.arange(h * d_k, (h + 1) * d_k)
        head, _ = attention(Q.index_select(1, idx), K.index_select(1, idx), V.index_select(1, idx), d_k)
        merged.index_copy_(1, idx, head)          # the head's columns go back where they came from
    return merged @ W_O
'''},
    "answers_ascii_uppercase_format_join": {
        "q5_answer": '''
import string

q5_answer = string.ascii_uppercase[2]      # A, B, C: the third option
''',
        "q6_answer": '''
q6_answer = "{}".format("A")
''',
        "q7_answer": '''
q7_answer = "".join(["D"])
'''},
}


WRONG = {
    "q1_scores_floor_divided_by_scale": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T // math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The scores are divided by sqrt(d_k) with floor division `//` instead of `/`, so every "
                   "scaled score is rounded DOWN to a whole number (0.07 becomes 0, -0.3 becomes -1) before "
                   "the softmax: the weights and the output are wrong (in the lesson's trace row 0 becomes "
                   "uniform), and every q8 head too.",
       "where": ["q1", "q8"]}),

    "q1_second_softmax_to_normalise_rows": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    probs = F.softmax(scores, dim=-1)
    weights = probs.softmax(dim=-1)          # normalise each row so that it sums to 1
    out = weights @ V
    return out, weights
'''}, {"mistake": "A second softmax is applied to the probabilities to 'normalise the rows'. The rows still "
                   "sum to 1, but softmax of numbers in [0, 1] is nearly uniform, so the weights are "
                   "softmax(softmax(scores)) instead of softmax(scores): far too flat, and the output and "
                   "every q8 head are wrong.",
       "where": ["q1", "q8"]}),

    "q2_scale_written_d_k_power_minus_one_half": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots * d_k ** -1/2            # times 1 / sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The scale is written d_k ** -1/2, which Python reads as (d_k ** -1) / 2 = 1/(2 d_k), not "
                   "d_k ** (-1/2): with scaled=True the dots are multiplied by 1/(2 d_k) and the variance is "
                   "about 1/(4 d_k) instead of 1 (the unscaled variance is right).",
       "where": ["q2"]}),

    "q2_scaled_flag_compared_with_string": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled == "True":
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The flag is compared with the STRING 'True' (as for a command-line option), and the bool "
                   "True is not equal to 'True', so the dots are never divided by sqrt(d_k): with scaled=True "
                   "the function still returns about d_k instead of about 1.",
       "where": ["q2"]}),

    "q4_table_return_indented_into_loop": ({"softmax_entropy": _ENTROPY + '''
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
'''}, {"mistake": "The `return results` is indented inside the for loop, so the function returns after the "
                   "first d: the table has one row (d = 4) instead of one row per entry of dims.",
       "where": ["q4"]}),

    "q4_entropy_einsum_second_operand_own_index": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    log_p = F.log_softmax(logits, dim=-1)
    return -torch.einsum("...t,...s->...", p, log_p)       # - sum_t p_t log p_t
''' + _TABLE}, {"mistake": "The einsum gives the two operands different last-axis letters (t and s), so it "
                            "computes (sum_t p_t)(sum_s log p_s) = sum_s log p_s, a product of two sums, not "
                            "the sum of the products p_t log p_t: a uniform row over 5 keys gives 5 ln 5 = "
                            "8.05 instead of ln 5 = 1.61, and a saturated row gives a huge number or inf "
                            "instead of 0.",
                 "where": ["q4"]}),

    "q5_answer_probe_options_from_notebook_d_k": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 with the q2 function and pick the option it is closest to
_measured = dot_product_variance(16, 10000, torch.Generator().manual_seed(0))
_options = {"A": 1.0, "B": d_k ** 0.5, "C": float(d_k), "D": float(d_k) ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe measures the variance at d_k = 16 but evaluates the options with the notebook's "
                   "global d_k, which is still 4 from the lesson's trace: the measured 16 is then closest to "
                   "option D (d_k^2 = 16) and the cell answers 'D' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_numpy_argmin_index_not_letter": ({"q5_answer": '''
import numpy as np

# measure Var(q.k) at d_k = 16 and find the nearest option (A, B, C, D at d_k = 16)
_measured = dot_product_variance(16, 10000, torch.Generator().manual_seed(0))
_values = np.array([1.0, 16 ** 0.5, 16.0, 16.0 ** 2])
q5_answer = np.argmin(np.abs(_values - _measured))
'''}, {"mistake": "The probe finds the right option but stores numpy's argmin, the index np.int64(2), instead "
                   "of turning it into the letter 'C': a numpy integer where a one-letter string is asked.",
       "where": ["q5"]}),

    "q6_answer_check_with_bit_exact_torch_equal": ({"q6_answer": '''
# the lesson's check: is every output row the softmax(X_i . X_j / sqrt(d_k))-weighted sum of the rows of X?
_X = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_out, _ = attention(_X, _X, _X, 8)
_S = _X @ _X.T / math.sqrt(8)
_P = torch.exp(_S) / torch.exp(_S).sum(dim=1, keepdim=True)        # softmax_j, by its formula
q6_answer = "A" if torch.equal(_P @ _X, _out) else "C"
'''}, {"mistake": "The check compares the hand-made weighted sums with attention's output using "
                   "torch.equal, which demands bit-identical floats; the softmax written by its formula and "
                   "F.softmax round differently in the last bits (about 2e-7), so the check fails and "
                   "the cell falls back to 'C' instead of 'A' (torch.allclose was needed).",
       "where": ["q6"]}),

    "q6_answer_check_softmax_over_whole_matrix": ({"q6_answer": '''
def _softmax(x):
    # like scipy.special.softmax(x)
    e = torch.exp(x - x.max())
    return e / e.sum()


# test the options on the lesson's seed-7 example, one by one
_X = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_out, _ = attention(_X, _X, _X, 8)
if torch.allclose(_out, _softmax(_X @ _X.T / math.sqrt(8)) @ _X, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
elif torch.allclose(_out, _X[(_X @ _X.T).argmax(dim=1)], atol=1e-5):
    q6_answer = "C"
else:
    q6_answer = "D"
'''}, {"mistake": "The hand softmax copies scipy.special.softmax's default (axis=None) and normalises over the "
                   "WHOLE score matrix instead of each row, so the option-A check fails (and B and C fail "
                   "too) and the cell falls through to 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_probe_reads_requires_grad_flag": ({"q7_answer": '''
# is attention differentiable? check whether its weights carry a gradient
_g = torch.Generator().manual_seed(0)
_Q, _K, _V = (torch.randn(3, 4, generator=_g) for _ in range(3))
_out, _w = attention(_Q, _K, _V, 4)
q7_answer = "D" if _w.requires_grad else "C"
'''}, {"mistake": "The probe reads the requires_grad FLAG of weights computed from plain tensors: it is False "
                   "because no input asked for gradients, not because the softmax is non-differentiable, so "
                   "the cell answers 'C' (argmax, no gradient) instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_gradient_probe_through_weights_sum": ({"q7_answer": '''
# does the lookup pass a gradient back to the queries?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g)
_, _w = attention(_Q, _K, _V, 4)
_w.sum().backward()
q7_answer = "C" if _Q.grad.abs().max() < 1e-6 else "D"
'''}, {"mistake": "The probe backpropagates the SUM of the weights, but every row of a softmax sums to 1 "
                   "whatever the scores are, so that gradient is 0 (the per-weight gradients cancel); the "
                   "cell concludes there is no useful gradient and answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    # nanoGPT-style blocks, e.g. TarunSharma11/CustomLLM modules/block.py: x = x + self.attn(self.ln_1(x))
    "q8_pre_layer_norm_on_input": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    X = F.layer_norm(X, X.shape[-1:])        # pre-LN, as in GPT-2 blocks
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "X is layer-normalised before the projections (the pre-LN habit of a GPT-2 transformer "
                   "block), which the question does not ask for: every token is re-centred and rescaled to "
                   "unit variance, so Q, K, V and the result differ from multi-head attention on X.",
       "where": ["q8"]}),

    # pytorch.org torch.tensor_split: an int is the number of sections (torch.split's int is the size)
    "q8_tensor_split_given_head_width": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    parts = [torch.tensor_split(M, d_k, dim=1) for M in (Q, K, V)]     # blocks of d_k columns
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(*parts)]
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "torch.tensor_split's int is the NUMBER of sections, not their width: given d_k it cuts the "
                   "columns into d_k heads of n_heads columns each (still scaled by sqrt(d_k)), so the result "
                   "is wrong whenever d_k != n_heads (e.g. d_model = 8 with 2 heads gives 4 heads of width 2).",
       "where": ["q8"]}),
}
