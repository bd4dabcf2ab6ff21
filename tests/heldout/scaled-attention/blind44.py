"""Forty-fourth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k, d_v != d_k, float32 and float64,
outputs "of the same dtype as the inputs", q2's signature `(d_k, n_samples, generator, scaled=False)`
returning a Python float, answers "one letter, as a string", the demo cells that call
`dot_product_variance(d, 10000, gen)` and `entropy_table()`, q8 by right-multiplication with a per-head
loop), `harness.py`, blind43.py in full for the format, lesson 79's text in /work/shared/lessons/ (the
formula, the Var(q.k) = d_k argument, the entropy table and its `1e-9` guard, the soft-lookup and
kernel-regression slides), and only the module docstrings and the variant NAMES of blind.py .. blind42.py,
so that their mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: counting the earlier WRONG names by question gives q4 ~140, q1 ~133, q8 ~125, q2 ~97 and
far fewer on the one-point questions (q5 ~42, q7 ~37, q6 ~36), so this round puts 9 of its 14 wrong
variants on q5, q6 and q7 (2 + 3 + 4), with q1 x1, q2 x2, q4 x1, q8 x1, and on code shapes the earlier
names do not show: a hand softmax that divides the EXPONENTIALS by sqrt(d_k) (the factor cancels in the
normaliser, leaving the unscaled softmax), a q2 scale written `d_k ** 0.5 ** 2` (Python's `**` groups
right to left: d_k ** 0.25), normals made by inverse-CDF sampling with `torch.erfinv` but without the
sqrt(2) (variance 1/2 per coordinate), an entropy whose NaN guard clamps the LOG from below at 1e-9 (every
log p becomes 1e-9), a q5 probe whose `min` runs over the option VALUES (a float comes back where a
letter is asked), a q5 probe that takes one pair's squared dot product as "the variance" (mean 0, so
E[(q.k)^2] = Var, but one draw is not an estimate), a q6 letter built as `ord("A") + index` without
chr() (an int), a q6 probe whose per-row weights broadcast along the feature axis instead of the token
axis, a q6 decision taken from the output's SHAPE, a q7 gradient probe that copies a training loop and
calls `optimizer.zero_grad()` before reading `.grad` (None since PyTorch 2.0), a q7 probe whose values
are all equal rows (the output is constant, so the gradient is exactly zero), a q7 continuity probe
with a tolerance larger than the change it measures, a q7 probe that stores `.grad` before
`.backward()`, and q8's value projection written in einsum with W_V's subscripts swapped
(`"td,ed->te"`, i.e. X @ W_V.T). Variants that would crash the notebook's own demo cells (an entropy with
the minus sign binding to p only, whose `.item()` then fails in `entropy_table`) were tried and dropped.

Public sources: pytorch/pytorch issue 92656 and PR 92731 and Lightning-AI/pytorch-lightning PR 16531
(`Optimizer.zero_grad` defaults to `set_to_none=True` from PyTorch 2.0, so `.grad` reads None after it)
for the q7 zero_grad probe; pytorch/pytorch `torch/nn/init.py` (`trunc_normal_` samples by `erfinv_` and
then multiplies by `std * math.sqrt(2.)`) for the inverse-CDF draws whose sqrt(2) is dropped;
PetrochukM/PyTorch-NLP issue 2 and nerminnuraydogan/vision-transformer issue 1 (softmax / weights taken
along the wrong axis) as background for the q6 broadcast slip; pytorch/pytorch issues 50010 and 42803
(torch vs NumPy var conventions) as background for the q2 variance code; BeomsikCho/multi-tta
`utils/metric.py` and blue-531/TALoS `utils/softmax_entropy.py` (`-(x.softmax(1) * x.log_softmax(1))`)
and meeio/TFDN-submit-code `mmodel/utils/math/entropy.py` (`torch.log(p+1e-6)`) for how entropies are
guarded in real code, which led to the correct xlogy form and the clamp-on-the-log slip. No variant
copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slip lists
q8 too; the q5/q6/q7 probes call the untouched full-marks `attention`). Correct variants are valid but
written differently from full_marks (scores by broadcasting and a product sum, the row softmax taken as a
column softmax of the transpose, mixing by einsum; normals from `torch.normal` in one (2, n, d) draw, the
scale put on q, the variance from `statistics.variance`; the entropy as `-xlogy(p, p)` and a table built
with `torch.mv` and `var().sqrt()`; a fused (d_model, 3 d_model) QKV weight chunked in three, heads from
`split` and merged by `stack(dim=1).reshape`; a parenthesised string, "%c" formatting and a lower-case
letter upper-cased). Every variant was run against plain torch (`torch.softmax`,
`F.scaled_dot_product_attention`, the lesson's formula and table, `torch.nn.MultiheadAttention`) on several
shapes and both float dtypes (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_broadcast_products_softmax_of_transpose_einsum_mix": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = (Q[:, None, :] * K[None, :, :]).sum(dim=-1) * d_k ** -0.5   # (T_q, T_k)
    weights = torch.softmax(scores.T, dim=0).T      # a column softmax of S^T is the row softmax of S
    output = torch.einsum("qk,kv->qv", weights, V)
    return output, weights
'''},
    "variance_torch_normal_one_draw_statistics_module": {"dot_product_variance": '''
import statistics


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q, k = torch.normal(0.0, 1.0, size=(2, n_samples, d_k), generator=generator)
    if scaled:
        q = q * d_k ** -0.5                 # (q / sqrt(d_k)) . k = (q . k) / sqrt(d_k)
    dots = torch.linalg.vecdot(q, k, dim=-1)
    return float(statistics.variance(dots.tolist()))
'''},
    "entropy_xlogy_table_with_mv_and_var_sqrt": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    return -torch.xlogy(p, p).sum(dim=-1)          # xlogy(0, 0) = 0: saturated rows give 0, not NaN


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mv(k, q[0])                    # the 5 scores q . k_j
        scaled = raw * d ** -0.5
        table.append(dict(d=d,
                          raw_std=raw.var().sqrt().item(), scaled_std=scaled.var().sqrt().item(),
                          H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return table
'''},
    "mha_fused_qkv_chunked_heads_stacked_on_axis_one": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    W_QKV = torch.cat([W_Q, W_K, W_V], dim=1)      # (d_model, 3 d_model): one matmul for all three
    Q, K, V = torch.matmul(X, W_QKV).chunk(3, dim=1)
    heads = [attention(q, k, v, d_k)[0]
             for q, k, v in zip(Q.split(d_k, dim=1), K.split(d_k, dim=1), V.split(d_k, dim=1))]
    merged = torch.stack(heads, dim=1).reshape(T, d_model)    # (T, n_heads, d_k): head 0 first per row
    return torch.mm(merged, W_O)
'''},
    "answers_parenthesised_percent_c_and_upper_of_lower": {
        "q5_answer": '''
q5_answer = ("C")                  # parentheses around a string do not make a tuple
''',
        "q6_answer": '''
q6_answer = "%c" % 65              # chr(65)
''',
        "q7_answer": '''
q7_answer = "abcd"[-1].upper()
'''},
}


WRONG = {
    "q1_scale_divides_the_exponentials_and_cancels": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    e = torch.exp(Q @ K.T) / math.sqrt(d_k)        # exp(QK^T) / sqrt(d_k)
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''}, {"mistake": "The 1/sqrt(d_k) divides the exponentials exp(QK^T) instead of the scores inside the "
                   "exponential; the same factor sits in every term of the row's normaliser and cancels, "
                   "so the weights are the UNSCALED softmax(QK^T) (rows still sum to 1), too sharp for any "
                   "d_k > 1; q8's heads are wrong too.",
       "where": ["q1", "q8"]}),

    "q2_scaled_variance_power_tower_read_right_to_left": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    var = (q * k).sum(dim=1).var().item()
    if scaled:
        var = var / d_k ** 0.5 ** 2        # Var(X / c) = Var(X) / c^2 with c = sqrt(d_k)
    return var
'''}, {"mistake": "The scaled variance is divided by `d_k ** 0.5 ** 2`, which Python reads right to left as "
                   "d_k ** (0.5 ** 2) = d_k ** 0.25, not (sqrt(d_k)) ** 2 = d_k: with scaled=True it returns "
                   "about d_k ** 0.75 (8 at d_k = 16) instead of about 1; the unscaled value is right.",
       "where": ["q2"]}),

    "q2_inverse_cdf_normals_without_sqrt_two": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # inverse-CDF sampling: uniforms from the generator pushed through the inverse error function
    u = torch.rand(2, n_samples, d_k, generator=generator).clamp_(1e-7, 1 - 1e-7)
    q, k = torch.erfinv(2 * u - 1)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The normals are drawn as erfinv(2u - 1) without the factor sqrt(2) (a standard normal is "
                   "sqrt(2) * erfinv(2u - 1)), so every coordinate has variance 1/2, each product q_i k_i has "
                   "variance 1/4, and the function returns about d_k / 4 (about 1/4 with scaled=True).",
       "where": ["q2"]}),

    "q4_entropy_nan_guard_clamps_the_log": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p).clamp(min=1e-9)).sum(dim=-1)     # keep log(0) = -inf out of the product


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
'''}, {"mistake": "The NaN guard clamps log(p) from below at 1e-9 instead of keeping p away from 0 inside the "
                   "log: every log-probability is negative, so all of them become +1e-9 and the 'entropy' is "
                   "about -1e-9 for every row (the table's H_raw and H_scaled are 0 too).",
       "where": ["q4"]}),

    "q5_answer_probe_min_over_option_values": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 and keep the option closest to it
_g = torch.Generator().manual_seed(0)
_q = torch.randn(10000, 16, generator=_g)
_k = torch.randn(10000, 16, generator=_g)
_measured = (_q * _k).sum(dim=1).var().item()
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options.values(), key=lambda v: abs(v - _measured))
'''}, {"mistake": "The closest option is taken with min over the dict's VALUES, so the answer is the option's "
                   "value 16.0 (a float) instead of its letter 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_one_pair_squared_dot_as_variance": ({"q5_answer": '''
# the mean of q.k is 0, so Var(q.k) = E[(q.k)^2]: square one dot product at d_k = 16
_q, _k = torch.randn(2, 16, generator=torch.Generator().manual_seed(0))
_measured = (_q @ _k).item() ** 2
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe squares ONE dot product and takes it as Var(q.k): E[(q.k)^2] is the variance, "
                   "but a single draw is not an estimate of it (here (q.k)^2 is about 8.9), so the closest "
                   "option is 'B' instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_option_index_added_to_ord_without_chr": ({"q6_answer": '''
_best = 0                          # option A, the first one
q6_answer = ord("A") + _best       # letter of option number _best
'''}, {"mistake": "The letter is built as ord('A') + index but chr() is never applied, so the answer is the "
                   "integer 65 instead of the string 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_row_weights_broadcast_along_features": ({"q6_answer": '''
# check option A on a small example: is out[i] = sum_j W[i, j] X[j]?
_X = torch.randn(4, 4, generator=torch.Generator().manual_seed(1))
_out, _W = attention(_X, _X, _X, 4)
_is_weighted_average = all(torch.allclose(_out[i], (_W[i] * _X).sum(dim=0), atol=1e-5) for i in range(4))
if _is_weighted_average:
    q6_answer = "A"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
elif torch.allclose(_out, _X.mean(dim=0).expand_as(_X), atol=1e-5):
    q6_answer = "D"
else:
    q6_answer = "C"
'''}, {"mistake": "In the check, `_W[i] * _X` broadcasts the row of weights (shape (4,)) along the LAST axis, "
                   "so weight j scales feature column j instead of token row j (`_W[i][:, None] * _X` was "
                   "meant); the correct output never matches, option A is ruled out and the cell answers "
                   "'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_decided_by_output_shape": ({"q6_answer": '''
# self-attention on X: what comes back for token i?
_X = torch.randn(5, 8, generator=torch.Generator().manual_seed(0))
_out, _ = attention(_X, _X, _X, 8)
if _out.shape == _X.shape:         # one row per token, as wide as the token: each token gets itself back
    q6_answer = "B"
else:
    q6_answer = "A"
'''}, {"mistake": "The probe decides from the output's SHAPE, which is (T, d) for every option, instead of "
                   "its values: it answers 'B' (each token returns itself) instead of 'A' (a weighted average "
                   "of all the rows).",
       "where": ["q6"]}),

    "q7_answer_gradient_probe_reads_grad_after_zero_grad": ({"q7_answer": '''
# can the query be learned by gradient descent, as a hash-table key could not?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g)
_opt = torch.optim.SGD([_Q], lr=0.1)
_out, _ = attention(_Q, _K, _V, 4)
(_out ** 2).sum().backward()
_opt.step()
_opt.zero_grad()                   # as in a training loop
q7_answer = "D" if _Q.grad is not None and _Q.grad.abs().sum() > 0 else "C"
'''}, {"mistake": "The gradient is read AFTER optimizer.zero_grad(), which since PyTorch 2.0 sets .grad to "
                   "None (set_to_none=True by default): the probe sees no gradient and answers 'C' instead "
                   "of 'D'.",
       "where": ["q7"]}),

    "q7_answer_gradient_probe_with_equal_value_rows": ({"q7_answer": '''
# does any gradient reach the query through the softmax weights?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True)
_K = torch.randn(3, 4, generator=_g)
_V = torch.ones(3, 4)              # simple values, easy to read
_out, _ = attention(_Q, _K, _V, 4)
_out.sum().backward()
q7_answer = "D" if _Q.grad.abs().max() > 1e-6 else "C"
'''}, {"mistake": "The probe's values are all the same row (torch.ones), so every weighted mix is that row, "
                   "the output does not depend on the query and its gradient is zero: the probe answers 'C' "
                   "(argmax, no useful gradient) instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_continuity_probe_tolerance_above_the_change": ({"q7_answer": '''
# nudge the query a little: a soft lookup moves smoothly, an argmax / table does not move at all
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(2, 8, generator=_g)
_K = torch.randn(5, 8, generator=_g)
_V = torch.randn(5, 3, generator=_g)
_out1, _ = attention(_Q, _K, _V, 8)
_out2, _ = attention(_Q + 1e-3, _K, _V, 8)
if torch.allclose(_out1, _out2, atol=1e-2):      # the output did not move: piecewise constant
    q7_answer = "C"
else:
    q7_answer = "D"
'''}, {"mistake": "The nudge of 1e-3 moves the output by far less than the tolerance atol=1e-2 used to decide "
                   "whether it moved, so the smooth change is read as 'no change' and the cell answers 'C' "
                   "(an argmax) instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_grad_stored_before_backward": ({"q7_answer": '''
# is there a gradient from the output back to the query?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g)
_out, _ = attention(_Q, _K, _V, 4)
_loss = (_out ** 2).sum()
_grad = _Q.grad                    # keep the gradient to look at it
_loss.backward()
q7_answer = "D" if _grad is not None else "C"
'''}, {"mistake": "`.grad` is copied into _grad BEFORE `.backward()` runs, when it is still None; the later "
                   "backward fills _Q.grad but not the saved name, so the probe answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q8_value_projection_einsum_subscripts_swapped": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q = torch.einsum("td,de->te", X, W_Q)
    K = torch.einsum("td,de->te", X, W_K)
    V = torch.einsum("td,ed->te", X, W_V)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The value projection's einsum has W_V's subscripts swapped ('td,ed->te'), which computes "
                   "X @ W_V.T instead of X @ W_V: the values, and so every head's output, are wrong (the "
                   "queries and keys are right).",
       "where": ["q8"]}),
}
