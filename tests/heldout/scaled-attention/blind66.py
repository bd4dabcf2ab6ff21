"""Sixty-sixth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements and stub cells), the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written `Q @ K.T / d_k ** 0.5`
with a row-sum assert; the trace cell; q2: two `randn` draws from the generator, `(q * k).sum(1)`,
`.var().item()`; q4: `softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in the same cell; q5..q7
one letter each; q8 a loop over the heads calling the 2-D `attention` on column slices of the projections),
`tests/heldout/harness.py`, blind65.py in full for the format, and only the variant NAMES of the earlier
blind*.py sets, so that their mistakes are not repeated in the same form. The grader was not run on this set.

Focus of the round: RIGHT IN THE MIDDLE, WRONG AT THE EDGES. Each wrong variant is right on the input a student
tries first (the trace's 3 x 4 tensors, float32, several heads, several tokens, the default table) and wrong on
an input the question's statement allows: in q1, a shortcut for one query that returns 1-D vectors (T_q = 1,
and with it a one-token q8), a shortcut for one key that returns the value row once instead of once per query
(T_k = 1 with T_q > 1), an input check that demands d_v == d_k (the statement says d_v may differ), and a scale
rounded to two decimals that is exact only for the demo widths d_k = 4 and 16 (d_k not a perfect square, and a
one-head q8 with d_k = 12); in q2, the scaled variance taken as the raw variance floor-divided by d_k, which is
1.0 or 0.0 depending on which side of d_k the sample variance falls; in q4, a hand softmax shifted by the row
mean instead of the row max (fine on ordinary rows, inf / inf = NaN in float32 on a saturated row such as
[0, 0, 500, 0] or a very negative one such as [-1000, 0, 0]), a special branch for 1-D logits that returns a
Python float instead of a 0-dim tensor, and a table whose scores are `q.squeeze() @ k.T`, which fails for a
width-1 row (d = 1); in q5, a squared std read off the table's five-score d = 4 row (1.54, nearest option
sqrt(d_k) = 2, 'B') and a self-dot probe at width 2 where Var(q.q) = 2 d_k happens to equal d_k^2 ('D'); in q6, a
probe on `torch.arange` tokens whose large scores make every softmax row one-hot on the best-matching row ('C');
in q7, a gradient probe on integer literals whose `requires_grad_()` error is read as 'no gradient' ('C'); and in
q8, `X.squeeze(0)` added for batches of one, which eats the token axis of a single-token input, and projections
written `torch.addmm(torch.zeros(d_model), X, W)` whose float32 zero bias refuses float64 inputs. Spread: q1 x4,
q2 x1, q4 x3, q5 x2, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown answer with no code cell to replace).
Mix: crashes (the d_v assert, the width-1 table, q8's squeeze at T = 1 and addmm in float64, q8 through q1's
one-query shortcut), wrong shapes (q1's two shortcuts), silently wrong values (the rounded scale, the floor
division), NaN from overflow (q4's mean shift), a type/dtype slip (q4's float for 1-D logits), and four written
answers drawn from probes whose edge input makes a wrong option look right. The five correct variants use other
idioms and handle the edges: ellipsis einsums with `torch.special.softmax` (one query, one key, any d_v, half
precision keeps its dtype), `K.mT` with a Python-float scale and logsumexp-normalised weights, one stacked float64
draw of both vectors from the generator with `var_mean(correction=1)`, a `where`-guarded `log_softmax` entropy
with a row helper for the table (scores as `(k @ q.T).squeeze(1)`, safe for d = 1), and multi-head attention via
`unflatten` / `unbind` over the heads, `stack(..., 1).flatten(1)` and `linalg.matmul`.

Public material used (nothing copied verbatim): for the length-1-axis shortcuts and squeezes (q1's one-query and
one-key branches, q4's `q.squeeze()`, q8's `X.squeeze(0)`): galsang/BiDAF-pytorch PR #26 ("If we grub a batch
whose size equals to 1, the `.squeeze()` would lead to the loss of the first dimension"), NVIDIA/tacotron2 PR
#303 and NVIDIA/DeepLearningExamples PR #765 (batch size 1 collapsed by squeeze), CalciferZh/SMPL PR #12
("squeeze function will squeeze out the batch dimension, causing indexing error") and pytorch/pytorch issue
#142852 (bare `squeeze()` breaks when B == 1, H == 1 or W == 1, with examples in the wild); for q1's d_v == d_k
assert: pytorch/pytorch issues #27623 and #41070 (an assertion in MultiheadAttention blocked a value width
different from embed_dim), stanford-cs336/assignment1-basics PR #35 (confusion over which axes of Q, K, V must
agree) and the code-corpus MultiHeadedAttention comment "We assume d_v always equals d_k"; for q1's rounded
scale: the notebook's own trace ("d_k = 4, scale 1/2", values printed with `.round(4)`), a scale that is exact
only on the demo widths; for q2's `//`: python/cpython issue #126872 (floor division of floats is not the
division the author expected) and mabuchilab/Instrumental PR #111 (`/` vs `//` changes); for q4's mean shift:
the shusei-e.github.io "Softmax without Overflow" page ("In the example below, K = max(x) is used, but any number
should be fine"; only the max keeps every exponent <= 0) and the overflow pages in the pages corpus (marovi.ai,
aicassindra.com: e^1000 is infinite, subtract the maximum); for q4's 1-D branch: the statement's "(..., T) gives
(...)" against the many scalar-returning `softmax` helpers with an `ndim == 1` branch in the code corpus; for
q5's probes: the lesson table printed in the notebook (stds of 5 scores) and the notebook's own self-attention
question (Q = K = X) as the source of the q = k slip; for q6's arange tokens and q7's integer literals:
pytorch/pytorch issue #14275 ("Why t.arange(0,3) create an int type Tensor?" with the requires_grad error),
issue #53466 (`torch.tensor([1], requires_grad=True)` fails: "Only Tensors of floating point and complex dtype
can require gradients") and yunjey/pytorch-tutorial PR #128; for q8's addmm: linkedin/Liger-Kernel issue #501
("torch.addmm does not support operations involving tensors of different dtypes"), the "expected scalar type
Double but found Float ... addmm" reports (skeletonNN/CFN-SR #1, hytseng0509/CrossDomainFewShot #30) and
pytorch/pytorch issue #84930 (the no-bias Linear path and the bias dtype of addmm).

How the variants were checked: each variant's notebook (full_marks.ipynb with the cell replaced, built with
harness.build_notebook) was run top to bottom, every code cell but otter's init and the `grader.check` cells,
with a throwaway script under /tmp/w66-scaled-attention/ (no cell errors in any variant), and the notebook's
public tests were run on its functions (they fail only for q1's d_v assert, `test_q1_rectangular_shapes`; q2's
floor division, `test_q2_scaled_variance`; and q4's mean shift, `test_q4_saturated_row`). Its functions were
then compared with plain torch: `attention` with a float64 `softmax(Q K^T / sqrt(d_k)) V` (itself checked against
`F.scaled_dot_product_attention`) on (T_q, T_k, d_k, d_v) = (3, 3, 4, 4), (2, 5, 3, 6), (5, 2, 7, 3), (1, 4, 5,
2), (4, 1, 5, 2), (1, 1, 3, 3), (4, 4, 6, 6), (6, 6, 10, 4), (3, 4, 1, 2), (2, 3, 12, 12) in float64 and float32
(dtype, shape, values, inputs left unchanged), in float16 / bfloat16 at 2e-2, and on non-contiguous column
slices and a transposed view; `dot_product_variance` at d_k 1, 3, 5, 8, 16, 64, 200, scaled and not, six seeds
each, within 10% of d_k or 1, a Python float, the same for two generators seeded alike; `softmax_entropy`
against a float64 `log_softmax` entropy on (7,), (3, 5), (2, 3, 7), zeros, the saturated pair of rows,
[-1000, 0, 0], [[0, 0, 200, 200]], (4, 1), (1,), (2, 1, 3, 6) * 30 and a transposed (4, 5) view, in float32 and
float64 (tensor type, dtype, shape, values at 1e-5); `entropy_table` against the spec recomputed at its
defaults, (8, 32, 100) seed 0, (3, 5, 7, 50, 200) seed 1 and (1, 2, 4) seed 3 after reseeding the global
generator to another value; the letters against C / A / D; and `multi_head_attention` against a float64 loop
over the heads (itself checked against `torch.nn.MultiheadAttention` without biases loaded with the transposed
weights) on (T, d_model, n_heads) = (3, 8, 2), (4, 16, 4), (5, 12, 3), (1, 6, 2), (7, 8, 1), (3, 4, 1), (4, 6,
3), (5, 16, 2), (1, 12, 12), (2, 6, 6), (12, 12, 3) in float64 and float32. The five correct variants matched
everywhere. Every wrong variant differs, and only in the questions in its "where": q1's one-query shortcut only
where T_q = 1 (and in q8 only where T = 1, as an IndexError from `torch.cat` of 1-D heads); q1's one-key shortcut
only where T_k = 1 < T_q (never in q8, where T_q = T_k); the d_v assert only where d_v != d_k; the rounded scale
everywhere d_k is not 4 or 16 (q8 where a head is not 4 or 16 wide); the floor division on 2..6 of 6 seeds per
width in the scaled branch; the mean shift on the saturated and very negative float32 rows only; the 1-D branch
only for 1-D logits; the squeezed query only at d = 1; q8's squeeze only at T = 1; and q8's addmm only in
float64. The probes were rerun without their edge: the d = 4 row's five scores give 1.54 ('B'), 10000 draws give
about 4.0 ('C'); the self-dot at width 2 gives 4.0 ('D'), an independent key gives 2.0 ('C'); arange tokens give
rows within 2.5e-5 of the best-matching row ('C'), randn tokens do not ('A'); float literals give a nonzero
gradient ('D')."""

CORRECT = {
    "attention_ellipsis_einsum_special_softmax": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(d_k)   # works for one query or one key too
    weights = torch.special.softmax(scores, dim=-1)
    out = torch.einsum("...qk,...kv->...qv", weights, V)                  # (T_q, d_v), d_v free
    return out, weights
'''},
    "attention_mt_python_scalar_scale_logsumexp_normalised": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.mT) * d_k ** -0.5          # a Python float keeps float32 / float64 as they are
    log_w = scores - torch.logsumexp(scores, dim=-1, keepdim=True)
    weights = log_w.exp()                                 # rows sum to 1, no overflow for large scores
    return torch.matmul(weights, V), weights
'''},
    "variance_stacked_float64_pair_draw_einsum_var_mean": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pairs = torch.randn(2, n_samples, d_k, generator=generator, dtype=torch.float64)
    q, k = pairs.unbind(0)                                # each (n_samples, d_k), all from `generator`
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots * (1.0 / math.sqrt(d_k))
    var, _mean = torch.var_mean(dots, correction=1)
    return float(var)
'''},
    "entropy_where_guarded_log_softmax_table_row_helper": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp()
    terms = torch.where(p > 0, p * log_p, torch.zeros_like(p))   # 0 * log 0 counted as 0
    return -terms.sum(dim=-1)


def _entropy_row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = (k @ q.T).squeeze(1)                            # (5,) the same scores as (q @ k.T)[0]
    scaled = raw / math.sqrt(d)
    return {"d": d, "raw_std": float(torch.std(raw, correction=1)),
            "scaled_std": float(torch.std(scaled, correction=1)),
            "H_raw": float(softmax_entropy(raw)), "H_scaled": float(softmax_entropy(scaled))}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_entropy_row(d, seed) for d in dims]
'''},
    "mha_unflatten_unbind_heads_stack_flatten_linalg_matmul": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh, Kh, Vh = ((X @ W).unflatten(-1, (n_heads, d_k)) for W in (W_Q, W_K, W_V))   # (T, heads, d_k)
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(Qh.unbind(1), Kh.unbind(1), Vh.unbind(1))]
    concat = torch.stack(outs, dim=1).flatten(1)          # (T, heads, d_k) -> (T, d_model), head 0 first
    return torch.linalg.matmul(concat, W_O)
'''},
}


WRONG = {
    "q1_single_query_fast_path_returns_vectors_without_the_query_axis": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if Q.shape[0] == 1:                                   # one query: a vector against the keys is enough
        q = Q[0]
        scores = K @ q / math.sqrt(d_k)                   # (T_k,)
        weights = F.softmax(scores, dim=-1)
        return weights @ V, weights                       # (d_v,), (T_k,)
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "A shortcut for a single query (T_q == 1) works on the query vector `Q[0]` and returns the "
                  "output as a (d_v,) vector and the weights as a (T_k,) vector: the values are right but the "
                  "query axis is gone, so a one-query input gives outputs of shape (d_v,) and (T_k,) instead of "
                  "(1, d_v) and (1, T_k); in multi-head attention with a single token every head output is 1-D "
                  "and concatenating them along dim 1 raises an error. With two or more queries it is right.",
           "where": ["q1", "q8"]}),

    "q1_single_key_shortcut_returns_the_value_row_once": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    if K.shape[0] == 1:                                   # one key: all the weight goes to it, output is its value
        return V.clone(), torch.ones_like(Q[:, :1])
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "A shortcut for a single key (T_k == 1) returns the value row itself as the output: the "
                  "weights (all ones, shape (T_q, 1)) are right, but the output has shape (1, d_v) instead of "
                  "(T_q, d_v) whenever there are several queries, because the one value row is not repeated for "
                  "each query. With two or more keys, or one query and one key, it is right.",
           "where": ["q1"]}),

    "q1_width_assert_requires_values_as_wide_as_keys": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    assert Q.shape[-1] == K.shape[-1] == V.shape[-1] == d_k, "Q, K and V must all have width d_k"
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "An input check asserts that V has the same width as Q and K (`V.shape[-1] == d_k`), as in "
                  "code where every width is d_model: the question allows d_v != d_k, and any such input raises "
                  "an AssertionError. When d_v == d_k (the trace, every head of q8) it is right.",
           "where": ["q1"]}),

    "q1_scale_rounded_to_two_decimals_exact_for_square_widths": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scale = round(1 / math.sqrt(d_k), 2)                  # 0.5 for the trace's d_k = 4
    scores = Q @ K.T * scale
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The scale 1/sqrt(d_k) is rounded to two decimals, like the printed 'scale 1/2' of the "
                  "trace: exact for d_k = 4 and 16 (0.5, 0.25) but not for other widths (d_k = 3 gives 0.58 "
                  "instead of 0.5774, d_k = 12 gives 0.29, d_k = 64 gives 0.12), so the weights and outputs are "
                  "slightly but clearly wrong whenever d_k is not 4 or 16, including a one-head q8.",
           "where": ["q1", "q8"]}),

    "q2_scaled_variance_floor_divided_by_d_k": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    var = (q * k).sum(1).var().item()
    if scaled:
        var = var // d_k                                  # Var(x / c) = Var(x) / c**2 and c**2 = d_k
    return var
'''}, {"mistake": "The scaled variance is computed as the raw variance divided by d_k (right idea) but with "
                  "floor division `//`: the result is 1.0 only when the sample variance happens to be at least "
                  "d_k and 0.0 when it falls just below, so the scaled branch is right on some seeds and 100% "
                  "off on the others (about half of them); the unscaled branch is right.",
           "where": ["q2"]}),

    "q4_entropy_hand_softmax_centred_by_row_mean_overflows_on_saturated_rows": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    z = logits - logits.mean(dim=-1, keepdim=True)        # centre the row so exp stays small
    e = torch.exp(z)
    p = e / e.sum(dim=-1, keepdim=True)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


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
'''}, {"mistake": "The hand-written softmax shifts each row by its mean instead of its maximum: the shift "
                  "cancels, so ordinary rows are right, but a row whose largest logit is far above the mean "
                  "still overflows, e.g. [0, 0, 500, 0] in float32 gives exp(375) = inf, inf / inf = NaN and an "
                  "entropy of NaN instead of 0 (float64 has the range to survive this row).",
           "where": ["q4"]}),

    "q4_entropy_one_row_branch_returns_python_float": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    if logits.dim() == 1:                                 # a single row, as in the table: just the number
        p = F.softmax(logits, dim=0)
        return -(p * torch.log(p + 1e-9)).sum().item()
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": float(softmax_entropy(raw)), "H_scaled": float(softmax_entropy(scaled))})
    return results
'''}, {"mistake": "A special branch for one-dimensional logits (a single row, as the table passes) returns "
                  "the entropy as a Python float with `.item()` instead of a 0-dim tensor of the logits' dtype: "
                  "the table is right (it converts with float()), and 2-D and 3-D logits are right, but a "
                  "(T,) input gives a float, not the tensor of shape () the question asks for.",
           "where": ["q4"]}),

    "q4_table_query_bare_squeezed_fails_for_width_one": ({"entropy_table": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = q.squeeze() @ k.T                           # (d,) @ (d, 5): the 5 scores, no [0] needed
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The scores are computed as `q.squeeze() @ k.T` to drop the query's row axis: for d >= 2 "
                  "that is the (d,) query times the keys, the same 5 scores, but for d = 1 the bare squeeze "
                  "also removes the width axis, the query becomes a 0-dim tensor and the matmul raises an error, "
                  "so a table with a width-1 row crashes.",
           "where": ["q4"]}),

    "q5_answer_from_squared_std_of_the_tables_five_score_row_at_d_4": ({"q5_answer": '''
# the table's first row: five scores at d = 4; their std squared is the variance of q.k
_row = entropy_table()[0]
_var = _row["raw_std"] ** 2                               # about 1.54
_options = {"A": 1.0, "B": math.sqrt(_row["d"]), "C": float(_row["d"]), "D": float(_row["d"]) ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _var))
'''}, {"mistake": "The answer is read off the lesson table's d = 4 row: the std of its five scores, squared "
                  "(1.24**2 = 1.54), is taken as Var(q.k) and matched to the nearest option, sqrt(d_k) = 2, "
                  "so q5_answer is 'B'; five scores are far too few to estimate a variance, and the question's "
                  "answer is d_k ('C').",
           "where": ["q5"]}),

    "q5_answer_probe_self_dot_at_width_two_matches_d_squared": ({"q5_answer": '''
_g = torch.Generator().manual_seed(0)
_d = 2                                                    # small width so the options are easy to tell apart
_q = torch.randn(20000, _d, generator=_g)
_dots = (_q * _q).sum(1)                                  # self-attention: the query is its own key
_var = _dots.var().item()                                 # about 4
_options = {"A": 1.0, "B": _d ** 0.5, "C": float(_d), "D": float(_d) ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _var))
'''}, {"mistake": "The probe dots each vector with itself (self-attention, q = k) instead of with an "
                  "independent k: q.q = |q|^2 has variance 2 d_k, which at the probe's width d_k = 2 equals "
                  "d_k^2 = 4, so q5_answer is 'D'; for independent q and k the variance is d_k ('C').",
           "where": ["q5"]}),

    "q6_answer_probe_on_arange_tokens_every_row_collapses_onto_one_token": ({"q6_answer": '''
_X = torch.arange(12.).view(3, 4)                         # three easy-to-read tokens
_out, _W = attention(_X, _X, _X, 4)
_best = _X[(_X @ _X.T).argmax(dim=-1)]                    # for each token, the row it matches best
if torch.allclose(_out, _best, atol=1e-4):
    q6_answer = "C"
elif torch.allclose(_out, _X, atol=1e-4):
    q6_answer = "B"
elif torch.allclose(_out, _X.mean(0).expand_as(_X), atol=1e-4):
    q6_answer = "D"
else:
    q6_answer = "A"
'''}, {"mistake": "The probe uses torch.arange tokens, whose dot products are large (scaled scores up to 183, "
                  "gaps of 12 or more), so every softmax row is one-hot on the last token, which is also every "
                  "token's best match: the output equals the best-matching row to 1e-4 and the probe answers "
                  "'C'; on ordinary inputs the output is the softmax-weighted average of all rows ('A').",
           "where": ["q6"]}),

    "q7_answer_gradient_probe_on_integer_tensors_error_read_as_no_gradient": ({"q7_answer": '''
_q = torch.tensor([[1, 0, 0, 0]])                         # one query
_K = torch.tensor([[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0]])
_V = torch.tensor([[1, 0], [0, 1], [1, 1]])
try:
    _q.requires_grad_()
    _out, _ = attention(_q, _K, _V, 4)
    _out.sum().backward()
    _has_gradient = bool(_q.grad.abs().sum() > 0)
except RuntimeError:                                      # no gradient comes back
    _has_gradient = False
q7_answer = "D" if _has_gradient else "C"
'''}, {"mistake": "The differentiability probe builds its query, keys and values from integer literals, so they "
                  "are int64 tensors; `requires_grad_()` raises 'only Tensors of floating point ... can require "
                  "gradients', the except reads that as 'no gradient', and q7_answer is 'C' (an argmax with no "
                  "useful gradient); with float tensors the gradient is nonzero and the answer is 'D'.",
           "where": ["q7"]}),

    "q8_input_squeeze0_for_batch_of_one_eats_single_token_axis": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    X = X.squeeze(0)                                      # also accept a (1, T, d_model) batch from batched code
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "`X.squeeze(0)`, added so that a batch of one (1, T, d_model) also works, does nothing to a "
                  "(T, d_model) input with T >= 2 but removes the token axis of a single-token input (T = 1): X "
                  "becomes a (d_model,) vector and `X.shape[1]` raises an IndexError.",
           "where": ["q8"]}),

    "q8_projections_by_addmm_with_default_float32_zero_bias": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    zero_bias = torch.zeros(d_model)                      # no biases, as in MultiheadAttention(bias=False)
    Q = torch.addmm(zero_bias, X, W_Q)
    K = torch.addmm(zero_bias, X, W_K)
    V = torch.addmm(zero_bias, X, W_V)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The projections are written as `torch.addmm(zero_bias, X, W)` with a zero bias made by "
                  "`torch.zeros(d_model)`, which is float32 whatever X is: right for float32 inputs, but with "
                  "float64 inputs addmm refuses the mixed dtypes and raises an error.",
           "where": ["q8"]}),
}
