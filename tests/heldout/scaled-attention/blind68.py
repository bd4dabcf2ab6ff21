"""Sixty-eighth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements and stub cells), the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written `Q @ K.T / d_k ** 0.5`
with a row-sum assert; the trace cell defining the globals `d_k = 4`, `Q`, `K`, `V`, `out`, `W`; q2: two
`randn` draws from the generator, `(q * k).sum(1)`, `.var().item()`, then a demo cell defining `gen`; q4:
`softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in the same cell; q5..q7 one letter each;
q8 a loop over the heads calling the 2-D `attention` on column slices of the projections),
`tests/heldout/harness.py`, blind67.py in full for the format, and only the variant NAMES of the earlier
blind*.py sets, so that their mistakes are not repeated in the same form. The grader was not run on this set.

Focus of the round: A REALISTIC CLASS. The mistakes a real class makes most often, each in a spelling the
earlier sets' names do not show: in q1, the inverse root typed `* d_k ** -1/2` (Python reads it as
(d_k ** -1) / 2, a scale of 1 / (2 d_k)), the hand softmax copied from the famous 1-D NumPy recipe
`e_x / e_x.sum(axis=0)` (with its column max), which on a score matrix normalises the COLUMNS (over the
queries), the keys "transposed" by `K.reshape(K.shape[1], -1)` (right shape, scrambled entries), and the
scores cast with the legacy `.type(torch.FloatTensor)` of old tutorials, which crashes the value mix for
float64 inputs (all four carry into q8, which calls `attention`); in q2, an einsum whose output keeps the
coordinate letter, `"nd,nd->d"`, so it sums over the samples; in q4, the entropy as
`torch.special.xlogy(p, p).sum(-1)` without the minus sign, a row sum hard-coded `sum(dim=1)` from 2-D batch
code (crashes on the table's 1-D scores, wrong axis on 3-D), and an entropy accumulated key by key into a
`torch.zeros(...)` buffer in the default float32 (float64 logits come back float32); in q5, a probe that fits
the growth exponent of the STANDARD DEVIATION (0.5) against the options read as powers of d_k ('B'); in q6, a
probe on embeddings initialised like GPT-2 (std 0.02), where the softmax is nearly uniform and the plain mean
matches within the probe's 1e-3 ('D'); in q7, a "does one key take over half the weight?" probe run with only
two keys, where the largest of two weights is always at least 0.5 ('C'); in q8, heads reshaped to
`(n_heads, T, d_k)` (by `unflatten` / `movedim`) and passed in one call to the 2-D `attention`, whose `K.T`
reverses all three axes (a crash on almost every shape), heads cut by `reshape(n_heads, T, d_k)` with no transpose (rows scrambled
across heads whenever n_heads > 1), and each head scaled by `Q.shape[-1]`, the width of the unsliced
projection, instead of d_k. Spread: q1 x4, q2 x1, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a hand-graded
markdown answer with no code cell to replace). Mix: crashes (the FloatTensor cast on float64, q4's dim=1 on
1-D scores, q8's batched call), silently wrong values (the precedence scale, the column softmax, the
reshape-as-transpose, q2's einsum, the sign, q8's scrambled heads and full-width scale), wrong shapes (q4's
dim=1 on 3-D), a dtype / precision slip (q4's float32 buffer, q1's cast), order of operations (the
precedence), wrong axis (column softmax, einsum, dim=1), and three letters from faulty probes. The five
correct variants: `attention` with einsum scores times `d_k ** -0.5`, the `.softmax` method and an einsum
mix; `dot_product_variance` with `torch.normal(..., generator=)` draws, `bmm` row dots, an `rsqrt` scale and
`torch.var_mean`; `softmax_entropy` as `Categorical(logits=...).entropy()` with the table's scores as
`torch.mv`; q6's letter confirmed by recomputing option A's formula; multi-head attention with
`split(d_k, dim=-1)` heads joined by `torch.column_stack`.

Public material used (nothing copied verbatim): for the precedence of `**` with a negative exponent: the
Python reference "The power operator" (network-theory.co.uk pylang 5.4: `**` binds tighter than unary minus
on its right and than `/`), lancewakeling.net "Powers in Python" (2020) and the Stack Overflow question
"Ambiguity in basic arithmetic operations Python" (example-a.com/answer/44701308); for the column softmax:
the Stack Overflow question "How to implement the Softmax function in Python" as retold on delftstack.com
"NumPy Softmax in Python" and in the Nemotron-CC-Math copy (the accepted recipe `e_x / e_x.sum(axis=0)` is
right for 1-D scores and for columns of 2-D scores, and "differences arise with 2-D arrays"), and
splunktool.com "calculate the softmax of an array column-wise" (`return s / s.sum(0)`); for reshape used as
a transpose: the Stack Overflow question "Why does .reshape(a, b) != .reshape(b, a).T?"
(example-a.com/answer/77159139) and "python numpy memory layout" (stackoverflow 42618488: reshaping a
transpose gives "a jumble"); for the legacy FloatTensor cast and the float32 buffer: ShusenTang/
Dive-into-DL-PyTorch PR #4 ("expected ... dtype Double but got ... Float" after a default-dtype `torch.zeros`),
NVlabs/WarpConvNet PR #17 (`torch.zeros` without dtype, "got Float for the destination and Double for the
source"), chainer/chainer PR #165 (an accumulator's missing explicit dtype) and pytorch/pytorch issue #8175
("gradcheck forces float32": `torch.zeros(...)` without `dtype=input.dtype`); for the einsum output letters:
the Stack Overflow answer on "Additional information on numpy.einsum" (stackoverflow 47366812: "the summation
is over the wrong axis", the letter left out of the output is the one summed); for the entropy's sign:
pyMSA issue #9 ("your formula for entropy doesn't have the negative sign"), rlworkgroup/garage issue #628,
haebeom-lee/dropmax issue #2 and peterroelants.github.io PR #24 ("I think you lost a negative sign"); for the
2-D-only `.T` meeting batched heads: pytorch/pytorch PR #64180 (deprecating `x.T` on tensors of dimension
other than 2, which reverses every axis) and the warnings reported in datamol-io/graphium issue #295,
deepset-ai/haystack PR #9393 and ML4GW/ml4gw issue #114; for q6's small-init probe: karpathy/build-nanogpt
issue #18 (embeddings initialised with std 0.02, GPT-2 uses 0.01); for q5's and q7's probes: the notebook's
own text ("its typical size is sqrt(d_k)"; "a softmax fed very wide scores turns into a one-hot vector"),
misread as a statement about the variance and tested with too few keys.

How the variants were checked: each variant's notebook (full_marks.ipynb with the cell replaced, built the way
harness.build_notebook does) was run top to bottom, every code cell but otter's init and the `grader.check`
cells, with a throwaway script under /tmp/w68-scaled-attention/; the notebook's own public test functions (from
the assignment notebook) were then run on the variant's functions. Only the expected cells crash (the q4
dim=1 variant in the table cell; none of the others). The functions were compared with plain torch:
`attention` with a float64 `softmax(Q K^T / sqrt(d_k)) V` (itself checked against
`F.scaled_dot_product_attention`) on (T_q, T_k, d_k, d_v) = (3, 3, 4, 4), (2, 5, 3, 6), (5, 2, 7, 3),
(1, 4, 5, 2), (4, 1, 5, 2), (6, 6, 10, 4), (2, 3, 12, 12) in float64 and float32, and float16 / bfloat16 at
2e-2 / 3e-2 for information; `dot_product_variance` at d_k 1, 3, 5, 8, 16, 64, 200, scaled and not, three
seeds, within 10% of d_k or 1, a Python float, equal for two generators seeded alike; `softmax_entropy`
against a float64 `log_softmax` entropy on (7,), (3, 5), (2, 3, 7), (4, 1) in float32 and float64 (dtype and
shape too) and on the saturated rows [0, 0, 500, 0] and [-1000, 0, 0, 0] (float64 at 1e-8: full_marks' own
`+ 1e-9` guard moves a one-key row's entropy by 1e-9); `entropy_table` against the spec at its defaults and at
(3, 5, 7, 50, 200) seed 1, after reseeding the global generator elsewhere; the letters against C / A / D; and
`multi_head_attention` against a float64 loop over the heads (itself checked against
`torch.nn.MultiheadAttention` without biases loaded with the transposed weights) on (T, d_model, n_heads) =
(3, 8, 2), (4, 16, 4), (5, 12, 3), (1, 6, 2), (7, 8, 1), (4, 6, 3), (12, 12, 3), (2, 6, 6) in float64 and
float32. full_marks itself and the five correct variants matched everywhere and passed the public tests.
Every wrong variant differs, and only in the questions in its "where": the precedence scale and the reshape
on every q1 shape with more than one key (with a single key every weight is 1 whatever the scores, and
`K.reshape(d_k, 1)` is K^T), the column softmax on every q1 shape; the FloatTensor cast crashes on float64 (and
half) inputs, float32 is right; all four carry into q8 except on its one-token case (1, 6, 2), where only the
cast still shows (a crash in float64); the einsum everywhere (NaN at d_k = 1); the missing minus on every
non-one-hot row; dim=1 crashes on 1-D (and so the table) and gives shape (2, 7) for (2, 3, 7), right on 2-D;
the float32 buffer returns float32 for float64 logits; the probes give 'B', 'D' and 'C'; q8's batched call
raises on every shape checked but (4, 16, 4), where T = d_k = n_heads lets the reversed axes line up and the
values come out wrong; the head-first reshape and the full-width scale are wrong whenever n_heads > 1 and
T > 1 (right with one head, so the public one-head check passes)."""

CORRECT = {
    "q1_einsum_scores_inverse_root_power_softmax_method_einsum_mix": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.einsum("qd,kd->qk", Q, K) * d_k ** -0.5      # (T_q, T_k)
    weights = scores.softmax(dim=-1)                            # each row over the keys
    output = torch.einsum("qk,kv->qv", weights, V)              # (T_q, d_v)
    return output, weights
'''},
    "q2_normal_draws_bmm_row_dots_rsqrt_var_mean": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    k = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()   # (n_samples,) row-by-row dots
    if scaled:
        dots = dots * torch.rsqrt(torch.tensor(float(d_k)))
    variance, _mean = torch.var_mean(dots)
    return variance.item()
'''},
    "q4_categorical_logits_entropy_table_scores_by_mv": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.distributions.Categorical(logits=logits).entropy()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mv(k, q.squeeze(0))           # the 5 scores of (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        table.append(dict(d=d, raw_std=torch.std(raw).item(), scaled_std=torch.std(scaled).item(),
                          H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return table
'''},
    "q6_answer_confirmed_by_recomputing_option_a": {"q6_answer": '''
# Check option A numerically: self-attention with Q = K = V = X against the formula in option A.
torch.manual_seed(6)
_X6 = torch.randn(5, 8)
_out6, _ = attention(_X6, _X6, _X6, 8)
_option_a = torch.softmax(_X6 @ _X6.T / math.sqrt(8), dim=-1) @ _X6
q6_answer = "A" if torch.allclose(_out6, _option_a, atol=1e-6) else "B"
'''},
    "q8_split_heads_column_stack": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.size(-1) // n_heads
    q_heads, k_heads, v_heads = ((X @ W).split(d_k, dim=-1) for W in (W_Q, W_K, W_V))
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(q_heads, k_heads, v_heads)]
    return torch.column_stack(outs) @ W_O
'''},
}


WRONG = {
    "q1_inverse_root_typed_power_minus_one_over_two": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.transpose(0, 1)) * d_k ** -1/2      # times 1/sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''}, {"mistake": "The scale 1/sqrt(d_k) is typed `d_k ** -1/2`, but `**` binds tighter than `/`, so Python "
                  "computes (d_k ** -1) / 2 = 1 / (2 d_k): the scores are multiplied by 1/(2 d_k) instead of "
                  "1/sqrt(d_k) (1/8 instead of 1/2 at d_k = 4), the weights are too flat and the output "
                  "follows; multi-head attention, which calls attention, inherits it.",
           "where": ["q1", "q8"]}),

    "q1_hand_softmax_from_1d_recipe_normalises_columns": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    e_x = torch.exp(scores - scores.max(axis=0).values)     # stable softmax, as in the NumPy recipe
    weights = e_x / e_x.sum(axis=0)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The softmax is the well-known 1-D NumPy recipe `e_x / e_x.sum(axis=0)` (with the max over "
                  "axis 0) applied to the 2-D score matrix: axis 0 runs over the queries, so each COLUMN "
                  "(one key, all queries) is normalised instead of each row: the weight rows do not sum to 1 "
                  "(with one query every weight is 1) and the output mixes the values with the wrong weights; "
                  "multi-head attention inherits it.",
           "where": ["q1", "q8"]}),

    "q1_keys_reshaped_to_transposed_shape": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    K_t = K.reshape(K.shape[1], -1)                # (d_k, T_k)
    scores = Q @ K_t / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "K^T is formed with `K.reshape(K.shape[1], -1)`, which has the transposed shape (d_k, T_k) "
                  "but refills it row by row from K's memory instead of swapping the axes, so the columns are "
                  "not the keys (entries of different keys are mixed) whenever T_k > 1 and d_k > 1: the "
                  "scores, weights and output are wrong while every shape is right; multi-head attention "
                  "inherits it.",
           "where": ["q1", "q8"]}),

    "q1_scores_cast_with_legacy_type_floattensor": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = (Q @ K.T).type(torch.FloatTensor) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The scores are cast with the legacy `.type(torch.FloatTensor)` of old tutorials, which "
                  "forces float32: for float32 inputs nothing changes, but for float64 inputs the weights are "
                  "float32 and `weights @ V` with float64 values raises a dtype mismatch (float vs double) "
                  "instead of returning float64 results; multi-head attention on float64 input crashes too.",
           "where": ["q1", "q8"]}),

    "q2_einsum_output_keeps_coordinate_letter_sums_over_samples": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->d", q, k)            # one dot product per pair
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The dot products are taken with `torch.einsum('nd,nd->d', q, k)`: the letter kept in the "
                  "output is the coordinate d, so einsum sums over the samples n instead: it returns d_k sums "
                  "of n_samples products (each with variance n_samples) rather than n_samples dot products, "
                  "so the 'variance' is about n_samples (n_samples / d_k scaled; NaN for d_k = 1) instead of "
                  "about d_k and about 1.",
           "where": ["q2"]}),

    "q4_entropy_xlogy_without_the_minus_sign": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    return torch.special.xlogy(p, p).sum(dim=-1)      # xlogy(0, 0) = 0, so saturated rows are safe


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
'''}, {"mistake": "The entropy is written `torch.special.xlogy(p, p).sum(-1)`, which is sum p ln p, without "
                  "the leading minus: it returns minus the entropy (-ln 5 for a uniform row over 5 keys, "
                  "-1.065 for the scaled d = 256 row of the table). Saturated rows give 0 as they should; the "
                  "table's stds are right but its entropies are negated.",
           "where": ["q4"]}),

    "q4_entropy_row_sum_hard_coded_dim1_from_batch_code": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=1)          # sum over the keys of each row


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
'''}, {"mistake": "The softmax is over the last dimension, but the entropy terms are summed with a hard-coded "
                  "`sum(dim=1)`, the key axis only for 2-D (rows, T) input: a 1-D row of logits (what the "
                  "table passes) raises 'dimension out of range', and a (2, 3, 7) batch is summed over its "
                  "middle axis, giving shape (2, 7) and wrong values instead of (2, 3). 2-D input is right.",
           "where": ["q4"]}),

    "q4_entropy_accumulated_key_by_key_into_default_float32_zeros": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp()
    H = torch.zeros(logits.shape[:-1])                # one entropy per row
    for j in range(logits.shape[-1]):
        H -= p[..., j] * log_p[..., j]
    return H


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
'''}, {"mistake": "The entropy is accumulated key by key into `torch.zeros(logits.shape[:-1])`, created "
                  "without `dtype=logits.dtype`, so the buffer is in the default float32 and the in-place "
                  "`H -= ...` silently rounds every step to float32: float64 logits give a float32 result "
                  "(only about 7 correct digits) instead of a float64 one. float32 input, shapes and the "
                  "table are right.",
           "where": ["q4"]}),

    "q5_answer_probe_growth_exponent_of_std_read_as_variance": ({"q5_answer": '''
# How fast does q.k spread out as d_k grows? Fit the growth exponent between two widths.
_g5 = torch.Generator().manual_seed(0)
_spread5 = {}
for _d5 in (16, 256):
    _q5 = torch.randn(20000, _d5, generator=_g5)
    _k5 = torch.randn(20000, _d5, generator=_g5)
    _spread5[_d5] = (_q5 * _k5).sum(dim=-1).std().item()
_exponent5 = math.log(_spread5[256] / _spread5[16]) / math.log(256 / 16)
_options5 = {"A": 0.0, "B": 0.5, "C": 1.0, "D": 2.0}      # 1, sqrt(d_k), d_k, d_k^2 as powers of d_k
q5_answer = min(_options5, key=lambda letter: abs(_options5[letter] - _exponent5))
'''}, {"mistake": "The probe measures the spread of q.k with `.std()` (the notebook's 'typical size is "
                  "sqrt(d_k)') and fits its growth exponent, 0.5, against the options read as powers of d_k "
                  "for the VARIANCE: the standard deviation grows like sqrt(d_k) but the variance asked for "
                  "grows like d_k, so the answer is 'B' instead of 'C'.",
           "where": ["q5"]}),

    "q6_answer_probe_on_small_init_embeddings_matches_plain_mean": ({"q6_answer": '''
# Try self-attention on embeddings initialised like GPT-2 (std 0.02) and see which option it matches.
torch.manual_seed(0)
_X6 = torch.randn(6, 8) * 0.02
_out6, _ = attention(_X6, _X6, _X6, 8)
if torch.allclose(_out6, _X6, atol=1e-3):
    q6_answer = "B"
elif torch.allclose(_out6, _X6.mean(dim=0, keepdim=True).expand_as(_out6), atol=1e-3):
    q6_answer = "D"
else:
    q6_answer = "A"
'''}, {"mistake": "The probe feeds self-attention embeddings drawn at GPT-2's initial scale (std 0.02): the "
                  "dot products are about 1e-3, so the softmax is almost exactly uniform and the output "
                  "equals the plain mean of the rows within the probe's atol = 1e-3; the probe therefore "
                  "answers 'D' (unweighted mean), a special case of the general answer 'A' (a softmax-"
                  "weighted average).",
           "where": ["q6"]}),

    "q7_answer_probe_two_keys_max_weight_always_at_least_half": ({"q7_answer": '''
# If one key takes most (more than half) of the weight, attention just picks the best key.
torch.manual_seed(3)
_keys7 = torch.randn(2, 16)
_values7 = torch.randn(2, 4)
_query7 = torch.randn(1, 16)
_, _w7 = attention(_query7, _keys7, _values7, 16)
q7_answer = "C" if _w7.max().item() >= 0.5 else "D"
'''}, {"mistake": "The probe decides 'argmax' if the largest weight is at least one half, but it uses only "
                  "two keys, and the larger of two weights that sum to 1 is always at least 0.5, so the test "
                  "cannot fail: it answers 'C' (an argmax with no useful gradient) instead of 'D' (a soft, "
                  "differentiable weighted mix).",
           "where": ["q7"]}),

    "q8_heads_unflattened_to_a_batch_passed_to_the_2d_attention": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split_heads(M):                                   # (T, d_model) -> (n_heads, T, d_k)
        return M.unflatten(-1, (n_heads, d_k)).movedim(1, 0)

    heads, _ = attention(split_heads(X @ W_Q), split_heads(X @ W_K), split_heads(X @ W_V), d_k)
    concat = heads.movedim(0, 1).flatten(1)               # (T, d_model), head 0 first
    return concat @ W_O
'''}, {"mistake": "The heads are reshaped correctly to a batch (n_heads, T, d_k) and passed in ONE call to "
                  "the q1 `attention`, which was written for 2-D inputs: its `K.T` reverses all three axes of "
                  "a 3-D tensor (to (d_k, T, n_heads)) instead of swapping the last two, so the score matmul "
                  "fails with a shape mismatch and multi-head attention raises instead of returning (T, d_model) "
                  "(when the sizes happen to line up, e.g. T = d_k = n_heads, it runs and mixes the wrong "
                  "axes).",
           "where": ["q8"]}),

    "q8_heads_reshaped_head_first_without_transpose": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).reshape(n_heads, T, d_k)               # one (T, d_k) block per head
    Kh = (X @ W_K).reshape(n_heads, T, d_k)
    Vh = (X @ W_V).reshape(n_heads, T, d_k)
    outs = [attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)]
    return torch.cat(outs, dim=1) @ W_O
'''}, {"mistake": "The projections are cut into heads with `reshape(n_heads, T, d_k)` straight from (T, "
                  "d_model), without first reshaping to (T, n_heads, d_k) and swapping the axes: the memory "
                  "is refilled head-first, so 'head h' holds pieces of several tokens' rows and several "
                  "heads' columns instead of columns h*d_k..(h+1)*d_k - 1 of every token. Right with one head "
                  "(the public one-head check passes) or one token, wrong whenever n_heads > 1 and T > 1.",
           "where": ["q8"]}),

    "q8_head_scale_read_from_the_unsliced_projection_width": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], Q.shape[-1])
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Each head's attention is given `Q.shape[-1]` as its d_k, the width of the whole (unsliced) "
                  "projection, d_model, instead of the head width d_model // n_heads: every head's scores are "
                  "divided by sqrt(d_model) instead of sqrt(d_k), so the head weights are too flat. Right "
                  "with one head, wrong whenever n_heads > 1 (and T > 1: a single key takes all the weight "
                  "anyway).",
           "where": ["q8"]}),
}
