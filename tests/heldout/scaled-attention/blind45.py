"""Forty-fifth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k, d_v != d_k, float32 and float64,
outputs "of the same dtype as the inputs", a `softmax_entropy` that maps (..., T) to (...), q2's
`(d_k, n_samples, generator, scaled=False)` returning a Python float with 10% tolerance, answers "one
letter, as a string", the demo cells that call `attention` on the lesson's trace, `dot_product_variance`
and `entropy_table()` at top level, q8 by right-multiplication), `harness.py`, blind44.py in full for the
format, lesson 79's text in /work/shared/lessons/ (the formula, the Var(q.k) = d_k argument, the entropy
table, the self-attention check `sum_j W[0, j] X[j]` with torch.manual_seed(7) and X of shape (4, 8), the
soft-lookup / kernel-regression slides), and only the module docstrings and the variant NAMES of
blind.py .. blind44.py, so that their mistakes are not repeated in the same form. The grader was not run
on this set.

How it was made: counting the earlier WRONG names by question gives q4 ~141, q1 ~134, q8 ~126, q2 ~99
and far fewer on the one-point questions (q5 ~44, q7 ~41, q6 ~39), so this round puts 10 of its 14 wrong
variants on q5, q6 and q7 (3 + 3 + 4), with q1 x2, q2 x1, q4 x1 and none on q8, and uses code shapes the
earlier names do not show: an output buffer made with `torch.zeros_like(Q)` and filled row by row (the
d_v != d_k case the notebook warns about), `F.softmin` for the weights, per-VECTOR standardisation of the
q2 draws (z-scoring along dim=1 makes the coordinates dependent: Var(q.k) becomes d_k - 1), a q4 entropy
that wraps its input in `torch.atleast_2d` (a NumPy idiom) and never drops the added axis, a q5 probe that
measures the MEAN of q.k, a q5 letter replaced by `str.find`'s index, a q5 probe on cosine similarity, a
q6 check whose manual weighted sum starts at j = 1, a q6 check that expects the COLUMN totals of X to be
kept (true only for doubly stochastic weights), a q6 check that multiplies by the notebook's global `W`
from the trace cell, a q7 probe that sets requires_grad after the forward pass and catches the error, a
q7 probe that puts requires_grad on V but reads Q.grad, a q7 check against Nadaraya-Watson with the
Gaussian (distance) kernel instead of the exponential dot-product kernel, and a q7 probe that compares
argmax positions (always equal, so it "proves" an argmax).

Public sources: d2l-ai/d2l-zh `chapter_attention-mechanisms/nadaraya-waston.md` and
blameitonme1/d2lPytorch `Attention-machanism/nadaraya-waston-kernel-regression.py` (Nadaraya-Watson
attention pooling as `softmax(-(queries - keys)**2 / 2)`, the Gaussian kernel) for the q7 kernel check;
weizheliu/People-Flows issue 7 and ronghuaiyang/arcface-pytorch issue 56 ("element 0 of tensors does not
require grad and does not have a grad_fn", requires_grad switched on too late / patched over) for the
q7 probe that sets requires_grad after the forward pass; Stack Overflow question 4544292 "How do I
standardize a matrix?" (standardise with `axis=0` per column vs the whole matrix, "a simple change in
orientation ... can drastically change (silently)") and the mlpy centring/scaling guide (rows vs
columns) for the q2 per-row z-scoring. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the softmin slip
lists q8 too; the zeros_like buffer only breaks when d_v != d_k, which q8's heads never have; the
q5/q6/q7 probes call the untouched full-marks `attention`). Correct variants are valid but written
differently from full_marks (the scale split as d_k ** -0.25 on both Q and K, scores by `torch.inner`,
weights as exp(S - logsumexp(S)), mixing by `torch.mm`; one (n, 2, d_k) draw unbound into q and k, dots by
`bmm`, variance from `torch.var_mean`; the entropy from `torch.distributions.Categorical(logits=...)` and a
table that draws q as a (d, 1) column; heads by `tensor_split` merged by `column_stack` with the output
projection as `F.linear(concat, W_O.T)`; a q5 probe indexing "ABCD" with a 0-d argmin tensor, the
lesson's q6 check done right, a q7 probe through `torch.autograd.grad`). Every variant was run against
plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the lesson's formula and table,
`torch.nn.MultiheadAttention`) on several shapes and both float dtypes (a throwaway script in /tmp, not in
the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_scale_split_over_q_and_k_inner_logsumexp_mm": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    s = d_k ** -0.25                       # (Q s) . (K s) = Q . K / sqrt(d_k)
    scores = torch.inner(Q * s, K * s)     # inner products of the rows: (T_q, T_k)
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
    return torch.mm(weights, V), weights
'''},
    "variance_one_pair_draw_unbound_bmm_var_mean": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pairs = torch.randn(n_samples, 2, d_k, generator=generator)
    q, k = pairs.unbind(dim=1)                                    # (n, d_k) each
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()    # (n, 1, d) @ (n, d, 1) -> n dots
    if scaled:
        dots = dots * d_k ** -0.5
    var, _mean = torch.var_mean(dots)
    return float(var)
'''},
    "entropy_categorical_table_with_column_query": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.distributions.Categorical(logits=logits).entropy()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(d, 1)                  # the same d numbers as randn(1, d), kept as a column
        k = torch.randn(5, d)
        raw = (k @ q).squeeze(1)               # the 5 scores k_j . q
        scaled = raw * d ** -0.5
        rows.append({"d": d,
                     "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''},
    "mha_tensor_split_heads_column_stack_linear_with_transposed_w_o": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[1] // n_heads
    Qs, Ks, Vs = (torch.tensor_split(X @ W, n_heads, dim=1) for W in (W_Q, W_K, W_V))
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(Qs, Ks, Vs)]
    concat = torch.column_stack(heads)              # head 0's columns first
    return F.linear(concat, W_O.T)                  # F.linear(x, W) = x @ W.T, so this is concat @ W_O
'''},
    "answers_argmin_tensor_index_lesson_check_autograd_grad": {
        "q5_answer": '''
# measure Var(q.k) at d_k = 16 and take the closest option
_g5 = torch.Generator().manual_seed(5)
_dots = (torch.randn(10000, 16, generator=_g5) * torch.randn(10000, 16, generator=_g5)).sum(dim=1)
_values = torch.tensor([1.0, 16 ** 0.5, 16.0, 16.0 ** 2])
q5_answer = "ABCD"[torch.argmin((_values - _dots.var()).abs())]    # a 0-d integer tensor is a valid index
''',
        "q6_answer": '''
# the lesson's check: is out[0] = sum_j W[0, j] X[j] ?
_X6 = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_out6, _W6 = attention(_X6, _X6, _X6, 8)
_manual0 = sum(_W6[0, j] * _X6[j] for j in range(4))
q6_answer = "A" if torch.allclose(_manual0, _out6[0], atol=1e-5) else "C"
''',
        "q7_answer": '''
# does a gradient reach the query? (a hash table / argmax would give none)
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(3, 4, generator=_g7, requires_grad=True)
_K7, _V7 = torch.randn(2, 3, 4, generator=_g7)
(_dQ,) = torch.autograd.grad((attention(_Q7, _K7, _V7, 4)[0] ** 2).sum(), _Q7)
q7_answer = "D" if _dQ.abs().max() > 0 else "C"
'''},
}


WRONG = {
    "q1_output_buffer_zeros_like_queries": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    out = torch.zeros_like(Q)              # one output row per query
    for i in range(Q.shape[0]):
        out[i] = weights[i] @ V
    return out, weights
'''}, {"mistake": "The output buffer is made with torch.zeros_like(Q), which has d_k columns, not d_v: when "
                   "d_v != d_k each row of weights @ V does not fit (an error, or with d_v = 1 a value "
                   "broadcast across d_k columns and an output of the wrong shape); it only works when the "
                   "values are as wide as the queries.",
       "where": ["q1"]}),

    "q1_softmin_for_the_weights": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmin(scores, dim=-1)    # normalised weights over the keys
    return weights @ V, weights
'''}, {"mistake": "The weights use F.softmin, i.e. softmax(-scores): rows still sum to 1, but the keys most "
                   "SIMILAR to the query get the smallest weights instead of the largest (a softmin belongs "
                   "to distances, not to dot-product similarities); q8's heads are wrong too.",
       "where": ["q1", "q8"]}),

    "q2_draws_standardised_per_vector": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    # make sure every vector really is standard normal: mean 0 and std 1
    q = (q - q.mean(dim=1, keepdim=True)) / q.std(dim=1, keepdim=True)
    k = (k - k.mean(dim=1, keepdim=True)) / k.std(dim=1, keepdim=True)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "Each vector is z-scored along its own coordinates (dim=1), which removes one degree of "
                   "freedom and makes the coordinates dependent: Var(q.k) comes out as d_k - 1 instead of "
                   "d_k (3 instead of 4 at d_k = 4, (d_k - 1)/d_k instead of 1 when scaled, NaN at d_k = 1).",
       "where": ["q2"]}),

    "q4_entropy_atleast_2d_axis_never_dropped": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logits = torch.atleast_2d(logits)          # a single row becomes a batch of one: (1, T)
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


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
'''}, {"mistake": "torch.atleast_2d turns a 1-D row of logits into shape (1, T) and the added axis is never "
                   "removed, so a single row's entropy comes back with shape (1,) instead of a 0-d tensor "
                   "(shape logits.shape[:-1] = ()); the values are right and the table still works.",
       "where": ["q4"]}),

    "q5_answer_probe_measures_the_mean": ({"q5_answer": '''
# estimate the spread of q.k at d_k = 16 and keep the closest option
_g = torch.Generator().manual_seed(0)
_q = torch.randn(10000, 16, generator=_g)
_k = torch.randn(10000, 16, generator=_g)
_measured = (_q * _k).sum(dim=1).mean().item()
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe measures the MEAN of q.k (about 0) instead of its variance, so the closest "
                   "option is 'A' (1) instead of 'C' (d_k).",
       "where": ["q5"]}),

    "q5_answer_str_find_gives_position": ({"q5_answer": '''
_letters = "ABCD"
q5_answer = _letters.find("C")         # the option Var(q.k) = d_k
'''}, {"mistake": "str.find returns the POSITION of 'C' in 'ABCD', the integer 2, so the answer is a number "
                   "instead of the letter 'C' as a string.",
       "where": ["q5"]}),

    "q5_answer_probe_on_cosine_similarity": ({"q5_answer": '''
# measure the spread of the similarity of two random vectors at d_k = 16
_g = torch.Generator().manual_seed(0)
_q = torch.randn(10000, 16, generator=_g)
_k = torch.randn(10000, 16, generator=_g)
_measured = F.cosine_similarity(_q, _k, dim=1).var().item()
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe measures the variance of the COSINE similarity (the dot product divided by both "
                   "norms, about 1/d_k) instead of the raw dot product q.k, so the closest option is 'A' "
                   "instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_manual_sum_starts_at_one": ({"q6_answer": '''
# the lesson's check: is out[0] = sum_j W[0, j] X[j] ?
_X = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_out, _W = attention(_X, _X, _X, 8)
_manual0 = sum(_W[0, j] * _X[j] for j in range(1, 4))
if torch.allclose(_manual0, _out[0], atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
elif torch.allclose(_out, _X.mean(dim=0).expand_as(_X), atol=1e-5):
    q6_answer = "D"
else:
    q6_answer = "C"
'''}, {"mistake": "The manual weighted sum runs over range(1, 4) and leaves out token 0's own term "
                   "W[0, 0] X[0] (the largest weight), so it never matches out[0], option A is ruled out and "
                   "the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_expects_column_totals_kept": ({"q6_answer": '''
# a weighted average with weights summing to 1 should keep the total of the rows
_X = torch.randn(5, 8, generator=torch.Generator().manual_seed(2))
_out, _ = attention(_X, _X, _X, 8)
if torch.allclose(_out.sum(dim=0), _X.sum(dim=0), atol=1e-4):
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
elif torch.allclose(_out, _X.mean(dim=0).expand_as(_X), atol=1e-5):
    q6_answer = "D"
else:
    q6_answer = "C"
'''}, {"mistake": "The check expects the column totals of X to be kept, which needs the COLUMNS of the weight "
                   "matrix to sum to 1 too; only the rows do, so the totals change, option A is ruled out "
                   "and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_multiplies_by_trace_global_W": ({"q6_answer": '''
# self-attention on a small X: is the output the weights times X?
_X = torch.randn(3, 4, generator=torch.Generator().manual_seed(3))
_out, _weights = attention(_X, _X, _X, 4)
if torch.allclose(_out, W @ _X, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
elif torch.allclose(_out, _X.mean(dim=0).expand_as(_X), atol=1e-5):
    q6_answer = "D"
else:
    q6_answer = "C"
'''}, {"mistake": "The check multiplies by `W`, the notebook's global weights from the lesson-trace cell, "
                   "instead of this probe's own `_weights`; the product never matches, option A is ruled "
                   "out and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_requires_grad_set_after_forward": ({"q7_answer": '''
# is the lookup differentiable with respect to the query?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g)
_out, _ = attention(_Q, _K, _V, 4)
_Q.requires_grad_()
try:
    _out.sum().backward()
    _differentiable = _Q.grad is not None
except RuntimeError:                   # "does not require grad": no gradient, like a table lookup
    _differentiable = False
q7_answer = "D" if _differentiable else "C"
'''}, {"mistake": "requires_grad is switched on AFTER the forward pass, so the output has no graph and "
                   "backward() raises; the probe reads the error as 'no gradient' and answers 'C' instead "
                   "of 'D'.",
       "where": ["q7"]}),

    "q7_answer_requires_grad_on_values_reads_query_grad": ({"q7_answer": '''
# does a gradient flow back to the query?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g, requires_grad=True)
_out, _ = attention(_Q, _K, _V, 4)
(_out ** 2).sum().backward()
q7_answer = "D" if _Q.grad is not None else "C"
'''}, {"mistake": "requires_grad is set on the values V, not on the query Q, so Q.grad stays None and the "
                   "probe answers 'C' (no useful gradient) instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_kernel_check_with_gaussian_kernel": ({"q7_answer": '''
# option D says kernel regression: compare with Nadaraya-Watson attention pooling
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(2, 4, generator=_g)
_K = torch.randn(6, 4, generator=_g)
_V = torch.randn(6, 3, generator=_g)
_out, _ = attention(_Q, _K, _V, 4)
_kernel = torch.exp(-torch.cdist(_Q, _K) ** 2 / 2)
_nw = (_kernel / _kernel.sum(dim=-1, keepdim=True)) @ _V
q7_answer = "D" if torch.allclose(_out, _nw, atol=1e-4) else "C"
'''}, {"mistake": "The check compares with Nadaraya-Watson using the GAUSSIAN kernel exp(-|q - k|^2 / 2), "
                   "not the exponential dot-product kernel exp(q.k / sqrt(d_k)) that option D names; the "
                   "two differ (by the |k|^2 term and the scale), so the cell answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_probe_compares_argmax_positions": ({"q7_answer": '''
# which key does attention pick? compare with the best-scoring key
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(4, 8, generator=_g)
_K = torch.randn(6, 8, generator=_g)
_V = torch.randn(6, 3, generator=_g)
_out, _W = attention(_Q, _K, _V, 8)
_picks_best_key = torch.equal(_W.argmax(dim=-1), (_Q @ _K.T).argmax(dim=-1))
q7_answer = "C" if _picks_best_key else "D"
'''}, {"mistake": "The probe compares the positions of the largest weight and of the largest score, which "
                   "are always the same (the softmax keeps the order) even though every key gets some "
                   "weight; it takes that as proof of an argmax and answers 'C' instead of 'D'.",
       "where": ["q7"]}),
}
