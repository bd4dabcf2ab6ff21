"""Forty-seventh blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of the master notebook `assignments/scaled-attention/scaled-attention.ipynb` and the code
cells of `full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k, d_v != d_k, float32 and float64, a
`softmax_entropy` that maps (..., T) to (...) and gives 0 on a saturated row, an `entropy_table` that
reseeds for every d, answers "one letter, as a string", a full-marks `attention` that asserts its row
sums and is only ever called on 2-D tensors, a looping `multi_head_attention`), `harness.py`, blind46.py
in full for the format, the opening slides of lesson 79 in /work/shared/lessons/, and only the module
docstrings and the variant NAMES of blind.py .. blind46.py, so that their mistakes are not repeated in the
same form. The grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~144, q1 ~138, q8 ~126, q2 ~100 against q5 ~50,
q7 ~49 and q6 ~45, so this round puts 10 of its 14 wrong variants on the one-point questions (q5 x3,
q6 x3, q7 x4), adds q2 x2, q1 x1 and q4 x1, and leaves q8 alone. Code shapes the earlier names do not
show: a tiled "online softmax" (flash-attention style) whose running denominator is rescaled when the
running max grows but whose output accumulator is not; a q2 that saves `generator.get_state()` and
restores it before drawing the keys (so k == q); a q2 that drops "outliers" beyond two standard
deviations before taking the variance; an entropy that L2-normalises the logits "for stability" before
the softmax; a q5 probe that takes the dot product as the MEAN of the products; a q5 probe that picks the
option with the smallest measured/option ratio instead of the ratio closest to 1; a q5 option list with a
missing comma ("B" "C" becomes "BC"), so index 2 is "D"; a q6 check whose expected output uses
softmax(dim=0) because the scores X X^T are symmetric; a q6 check against a freshly initialised
`torch.nn.MultiheadAttention` (random projections); a q6 check against `F.scaled_dot_product_attention`
with `scale=d_k` (the keyword is the multiplier, not the head width); a q7 probe that differentiates a
`.detach().clone().requires_grad_()` copy and reads the ORIGINAL's `.grad` (None); a q7 probe that counts
the nonzero weights with `torch.argwhere(...).shape[0]` over the whole matrix instead of per row; a q7
answer taken as `max(hits.values())` (the count, an int) instead of the letter with the most hits; and a
q7 kernel-regression check that forgets to divide by the kernel sum.

Public sources: Dao-AILab/flash-attention issue 2082 and pull requests 2083 / 2174 ("fix softmax
incorrect row_max", "update row_max before safe overwrite for online_softmax") and PaddleJitLab/
CUDATutorial issue 69 (the rescaling terms of the online-softmax update) for the q1 accumulator that is
not rescaled; pytorch/pytorch pull request 95259 ("[SDPA] Add an optional scale kwarg": `scale` is
applied as Q@K.T * scale) for the q6 check given `scale=d_k`; fchollet/keras-resources issue 53 (a
hand-written self-attention does not match a `MultiHeadAttention` layer, which has its own learned
projections) and pytorch/pytorch issue 54128 / pull request 18334 (`nn.MultiheadAttention` owns
`in_proj_weight`) for the q6 check against a fresh `nn.MultiheadAttention`; jadore801120/attention-is-
all-you-need-pytorch issue 80 as background on what the library layers add around the formula. No
variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slip
lists q8 too; the q5/q6/q7 probes call the untouched full-marks `attention`; the q4 slip keeps
`entropy_table` as in full_marks, so its table values change too, inside q4). Correct variants are valid
but written differently from full_marks and from the earlier correct sets (scores by `torch.inner`,
weights as `torch.distributions.Categorical(logits=...).probs`, the mix by `torch.mm`; draws by
`torch.normal(0, 1, size=..., generator=...)`, dots by `torch.bmm` of (n, 1, d) and (n, d, 1), the
variance from `torch.var_mean(..., correction=1)` read out by `.tolist()`; the entropy as
`torch.special.entr(p).sum(-1)` and a table seeded through `torch.random.manual_seed` with its stds
from `statistics.stdev`; heads from `.split(d_k, dim=1)` of the three projections zipped together and
merged by `torch.hstack`; q5 as the parenthesised string ("C"), q6 from a per-row loop checked with
`torch.testing.assert_close` in try/except, q7 as "\\N{LATIN CAPITAL LETTER D}"). Every variant was run
against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the lesson's formula,
`torch.distributions.Categorical`, `nn.MultiheadAttention` loaded with the same weights) on several shapes
and both float dtypes (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_inner_categorical_probs_mm": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.inner(Q, K) / math.sqrt(d_k)          # inner(Q, K)[i, j] = Q[i] . K[j]
    weights = torch.distributions.Categorical(logits=scores).probs   # softmax of each row
    return torch.mm(weights, V), weights
'''},
    "variance_torch_normal_bmm_var_mean_tolist": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    k = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()     # (n, 1, d) @ (n, d, 1) -> n dots
    scale = d_k ** -0.5 if scaled else 1.0
    var, _ = torch.var_mean(dots * scale, correction=1)
    return var.tolist()                                             # a 0-d tensor gives a float
'''},
    "entropy_special_entr_table_random_manual_seed_statistics": {"softmax_entropy": '''
import statistics


def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    return torch.special.entr(p).sum(dim=-1)     # entr(x) = -x ln x, and entr(0) = 0


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    out = []
    for d in dims:
        torch.random.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        out.append({"d": d,
                    "raw_std": statistics.stdev(raw.tolist()),        # n - 1 in the denominator
                    "scaled_std": statistics.stdev(scaled.tolist()),
                    "H_raw": softmax_entropy(raw).item(),
                    "H_scaled": softmax_entropy(scaled).item()})
    return out
'''},
    "mha_split_zip_hstack": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[-1] // n_heads
    per_head = zip(*((X @ W).split(d_k, dim=1) for W in (W_Q, W_K, W_V)))   # (q_h, k_h, v_h) per head
    heads = [attention(q_h, k_h, v_h, d_k)[0] for q_h, k_h, v_h in per_head]
    return torch.hstack(heads) @ W_O
'''},
    "answers_parenthesised_loop_check_unicode_name": {
        "q5_answer": '''
q5_answer = ("C")      # Var(q.k) = d_k  (parentheses only, not a tuple)
''',
        "q6_answer": '''
# build out[i] by hand, one row at a time, and compare
_X6 = torch.randn(4, 6, generator=torch.Generator().manual_seed(5))
_out6, _ = attention(_X6, _X6, _X6, 6)
_rows6 = []
for _i in range(_X6.shape[0]):
    _w = torch.softmax(torch.stack([_X6[_i] @ _X6[_j] for _j in range(_X6.shape[0])]) / math.sqrt(6), dim=0)
    _rows6.append((_w[:, None] * _X6).sum(dim=0))
try:
    torch.testing.assert_close(_out6, torch.stack(_rows6))
    q6_answer = "A"
except AssertionError:
    q6_answer = "C"
''',
        "q7_answer": '''
q7_answer = "\\N{LATIN CAPITAL LETTER D}"     # the soft, differentiable lookup
'''},
}


WRONG = {
    "q1_online_softmax_accumulator_not_rescaled": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    block = 2                                           # keys in tiles, flash-attention style
    m = torch.full((Q.shape[0], 1), -math.inf, dtype=scores.dtype)     # running row max
    l = torch.zeros(Q.shape[0], 1, dtype=scores.dtype)                 # running denominator
    acc = torch.zeros(Q.shape[0], V.shape[1], dtype=scores.dtype)      # running numerator @ V
    for start in range(0, K.shape[0], block):
        s = scores[:, start:start + block]
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        l = l * torch.exp(m - m_new) + p.sum(dim=-1, keepdim=True)
        acc = acc + p @ V[start:start + block]
        m = m_new
    weights = torch.exp(scores - m) / l
    return acc / l, weights
'''}, {"mistake": "In the tiled (online) softmax the running denominator is rescaled by exp(m_old - m_new) "
                   "when a later tile raises the row max, but the output accumulator is not, so the older "
                   "tiles' contributions are too large and the output is not weights @ V (the returned "
                   "weights themselves are right).",
       "where": ["q1", "q8"]}),

    "q2_generator_state_restored_before_key_draw": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    state = generator.get_state()                          # remember the stream, for reproducibility
    q = torch.randn(n_samples, d_k, generator=generator)
    generator.set_state(state)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The generator state is saved before the queries and restored before the keys, so the keys "
                   "are the very same numbers as the queries (k = q): the 'dot products' are squared norms "
                   "|q|^2 with variance 2 d_k (2 when scaled) instead of d_k (1).",
       "where": ["q2"]}),

    "q2_outliers_beyond_two_std_dropped": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    keep = (dots - dots.mean()).abs() <= 2 * dots.std()    # drop outliers for a stabler estimate
    return dots[keep].var().item()
'''}, {"mistake": "Dot products more than two standard deviations from the mean are thrown away as "
                   "'outliers' before the variance is taken; the tails are real samples, so the estimate is "
                   "about 25-35% too small (about 0.72 d_k instead of d_k at d_k = 16, 0.66 d_k at d_k = 4; "
                   "the same fraction of 1 when scaled).",
       "where": ["q2"]}),

    "q4_entropy_logits_l2_normalised_for_stability": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    z = F.normalize(logits, dim=-1)            # unit-length rows, so the softmax can never overflow
    log_p = F.log_softmax(z, dim=-1)
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
'''}, {"mistake": "The logits are L2-normalised (F.normalize) before the softmax 'for stability'; that is "
                   "not a shift, it rescales every row to length 1, so the entropy is that of a much "
                   "flatter distribution (a saturated row such as [0, 0, 500, 0] gives about 1.27, not 0, "
                   "and the table's raw and scaled entropies become the same).",
       "where": ["q4"]}),

    "q5_answer_probe_dot_as_mean_of_products": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 and take the nearest option
_g5 = torch.Generator().manual_seed(0)
_q5 = torch.randn(20000, 16, generator=_g5)
_k5 = torch.randn(20000, 16, generator=_g5)
_dots5 = (_q5 * _k5).mean(dim=-1)          # the dot product of each pair
_var5 = _dots5.var().item()
_opts5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _var5))
'''}, {"mistake": "The probe's 'dot product' is the MEAN of the coordinate products, not their sum, so it "
                   "is divided by d_k and its variance is about 1/d_k = 0.06; the nearest option is 'A' "
                   "instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_smallest_ratio_not_closest_to_one": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16; the right option is the one whose ratio measured / option is about 1
_g5 = torch.Generator().manual_seed(0)
_q5 = torch.randn(20000, 16, generator=_g5)
_k5 = torch.randn(20000, 16, generator=_g5)
_var5 = (_q5 * _k5).sum(dim=-1).var().item()
_opts5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
_ratio5 = {s: _var5 / v for s, v in _opts5.items()}
q5_answer = min(_ratio5, key=_ratio5.get)
'''}, {"mistake": "The probe measures the variance correctly (about 16) but picks the option with the "
                   "SMALLEST ratio measured/option instead of the ratio closest to 1, i.e. the largest "
                   "option: 'D' (d_k^2) instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_missing_comma_merges_options": ({"q5_answer": '''
_letters5 = ["A", "B" "C", "D"]      # the options, in order
q5_answer = _letters5[2]             # the third option: Var(q.k) = d_k
'''}, {"mistake": "A missing comma in the list of options makes Python join 'B' 'C' into 'BC', so "
                   "the list is ['A', 'BC', 'D'] and index 2 is 'D' instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_check_softmax_dim0_of_symmetric_scores": ({"q6_answer": '''
# check option A by hand: softmax(X X^T / sqrt(d)) X
_X6 = torch.randn(5, 8, generator=torch.Generator().manual_seed(4))
_out6, _ = attention(_X6, _X6, _X6, 8)
_S6 = _X6 @ _X6.T / math.sqrt(8)
_expected6 = torch.softmax(_S6, dim=0) @ _X6      # S is symmetric, so either axis will do
if torch.allclose(_out6, _expected6, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out6, _X6.mean(dim=0).expand_as(_out6), atol=1e-5):
    q6_answer = "D"
else:
    q6_answer = "C"
'''}, {"mistake": "The hand check normalises the symmetric score matrix over dim=0 (columns): the scores "
                   "are symmetric but their softmax is not, softmax(S, dim=0) is the TRANSPOSE of the row "
                   "softmax, so the expected output is W^T X, option A is ruled out and the cell answers "
                   "'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_against_fresh_nn_multihead_attention": ({"q6_answer": '''
# compare my self-attention with PyTorch's own attention layer
_X6 = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_mine6, _ = attention(_X6, _X6, _X6, 8)
_mha6 = torch.nn.MultiheadAttention(embed_dim=8, num_heads=1, bias=False)
with torch.no_grad():
    _ref6, _ = _mha6(_X6, _X6, _X6)
q6_answer = "A" if torch.allclose(_mine6, _ref6, atol=1e-5) else "C"
'''}, {"mistake": "The reference is a freshly initialised nn.MultiheadAttention, which applies its own "
                   "random query/key/value and output projections; it cannot match attention with "
                   "Q = K = V = X, so option A is ruled out and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_sdpa_scale_keyword_given_d_k": ({"q6_answer": '''
# compare with PyTorch's kernel outside any function, telling it d_k
_d6 = 8
_X6 = torch.randn(5, _d6, generator=torch.Generator().manual_seed(2))
_mine6, _ = attention(_X6, _X6, _X6, _d6)
_ref6 = F.scaled_dot_product_attention(_X6[None], _X6[None], _X6[None], scale=_d6)[0]
q6_answer = "A" if torch.allclose(_mine6, _ref6, atol=1e-5) else "C"
'''}, {"mistake": "F.scaled_dot_product_attention's scale= is the factor the scores are MULTIPLIED by "
                   "(default 1/sqrt(d_k)), not the head width; scale=d_k multiplies by 8 instead of "
                   "dividing by sqrt(8), the reference is nearly a hard argmax, the check fails and the "
                   "cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_grad_read_from_original_after_detached_copy": ({"q7_answer": '''
# does a gradient reach the query? work on a clean copy of it
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(3, 4, generator=_g7, requires_grad=True)
_K7 = torch.randn(5, 4, generator=_g7)
_V7 = torch.randn(5, 2, generator=_g7)
_Qc7 = _Q7.detach().clone().requires_grad_()
_out7, _ = attention(_Qc7, _K7, _V7, 4)
(_out7 ** 2).sum().backward()
q7_answer = "D" if _Q7.grad is not None and _Q7.grad.abs().max() > 0 else "C"
'''}, {"mistake": "The backward pass runs through the detached copy _Qc7, whose .grad is filled, but the "
                   "probe reads the ORIGINAL _Q7.grad, which stays None; the probe concludes 'no gradient' "
                   "and answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_argwhere_counts_over_whole_matrix": ({"q7_answer": '''
# does each query use every key (soft lookup) or just one (hard lookup)?
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(3, 8, generator=_g7)
_K7 = torch.randn(6, 8, generator=_g7)
_V7 = torch.randn(6, 2, generator=_g7)
_, _W7 = attention(_Q7, _K7, _V7, 8)
_used7 = torch.argwhere(_W7 > 1e-4).shape[0]         # keys with a non-negligible weight
q7_answer = "D" if _used7 == _K7.shape[0] else "C"
'''}, {"mistake": "torch.argwhere on the whole (T_q, T_k) weight matrix returns one row per nonzero ENTRY, "
                   "so shape[0] is T_q * T_k = 18, not the number of keys per query (6); the comparison "
                   "fails and the cell answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_max_of_keyword_counts_returns_count": ({"q7_answer": '''
# score the options by the key ideas of the lesson and take the best one
_opts7 = {"A": "returns the value of the key that equals the query exactly",
          "B": "only works when the keys are sorted",
          "C": "returns the value of the best-scoring key only, an argmax with no useful gradient",
          "D": "scores the query against every key and returns a softmax-weighted mix of all the values: "
               "a soft, differentiable version of the lookup"}
_hits7 = {s: sum(w in t for w in ("every key", "softmax", "soft", "differentiable")) for s, t in _opts7.items()}
q7_answer = max(_hits7.values())
'''}, {"mistake": "max(_hits7.values()) returns the highest keyword COUNT (the int 4), not the letter that "
                   "has it (max(_hits7, key=_hits7.get)), so the answer is a number instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_kernel_check_without_normalising": ({"q7_answer": '''
# D says attention is kernel regression with an exponential kernel: check that
_g7 = torch.Generator().manual_seed(1)
_Q7 = torch.randn(2, 4, generator=_g7)
_K7 = torch.randn(5, 4, generator=_g7)
_V7 = torch.randn(5, 3, generator=_g7)
_out7, _ = attention(_Q7, _K7, _V7, 4)
_kern7 = torch.exp(_Q7 @ _K7.T / math.sqrt(4))      # exponential kernel k(q, k_j)
_nw7 = _kern7 @ _V7                                 # kernel regression estimate
q7_answer = "D" if torch.allclose(_out7, _nw7, atol=1e-5) else "C"
'''}, {"mistake": "The kernel-regression estimate is sum_j k(q, k_j) v_j without dividing by "
                   "sum_j k(q, k_j) (Nadaraya-Watson normalises the kernel weights), so it never matches "
                   "attention, option D is ruled out and the cell answers 'C' instead of 'D'.",
       "where": ["q7"]}),
}
