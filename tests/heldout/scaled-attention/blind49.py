"""Forty-ninth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (the student text: q1..q8, 2-D
inputs, T_q != T_k, d_v != d_k, "use the d_k you are given", float32 and float64, a `softmax_entropy`
that gives 0 on a saturated row, `entropy_table` reseeded for every d, q5..q7 answered by "one letter, as
a string", a looping `multi_head_attention`), `tests/heldout/harness.py`, blind48.py in full for the
format, the opening slides of lesson 79 in /work/shared/lessons/, and only the module docstrings and the
variant NAMES of blind.py .. blind48.py, so that their mistakes are not repeated in the same form. The
grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~146, q1 ~140, q8 ~126, q2 ~103 against q6 ~52,
q7 ~56 and q5 ~57, so this round puts 12 of its 14 wrong variants on the one-point questions (q6 x5,
q7 x4, q5 x3), adds one to q1 (which q8 calls) and one to q4, and leaves q2 and q8 alone. Code shapes the
earlier names do not show: a q1 built on `torch.addmm` with the 1/sqrt(d_k) passed as `beta` (which scales
the added input) instead of `alpha` (which scales the product); an entropy whose "tiny constant" inside the
log is 1e-4; a q5 letter taken from `string.ascii_letters` (which starts with the lower case); a q5 probe
that unpacks its pair from a feature-major draw `torch.randn(2, d, n)` and so sums over the samples; a q5
probe drawn with `torch.randint(-1, 2, ...)` (values -1, 0, 1: variance 2/3, not 1); a q6 answer cleaned
with `"Answer: A".lstrip("Answer: ")` (a character set, so the letter A goes too); a q6 hand check whose
scores are the feature Gram matrix X^T X on a square probe; a q6 check by the maximum RELATIVE error,
which blows up on output entries near 0; a q6 option search with `enumerate(..., start=1)` indexing
"ABCD"; a q6 check through `torch.testing.assert_close` of a float32 output against a float64 reference
(the dtype mismatch raises AssertionError, caught as "not A"); a q7 probe that asks EVERY entry of the
Jacobian d out / d Q to be non-zero (output row i never depends on query row j != i); a q7 probe that
reads differentiability off `weights.argmax(-1).requires_grad`; a q7 answer by elimination that is a set
`set("ABCD") - set("ABC")`; and a q7 answer read from the option markdown with `re.search(...).group(0)`
(the whole match "**D.", not the letter).

Public sources: PEP 616 (peps.python.org/pep-0616, "users ... are surprised that the parameter for lstrip
is interpreted as a set of characters, not a substring") and the page opeebeast.com/?p=62 (lstrip("w.")
turns "world.com" into "orld.com") for the q6 lstrip slip; bugs.python.org msg338695 on the same
confusion; PyTorch's documentation of torch.addmm (out = beta * input + alpha * (mat1 @ mat2)) and of
torch.testing.assert_close (check_dtype=True by default) for the q1 and q6 dtype shapes; Python's
`string` module documentation (ascii_letters is ascii_lowercase + ascii_uppercase) for q5. No variant copies
public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slip
lists q8 too; the q5/q6/q7 probes call the untouched full-marks `attention`; the q4 slip keeps
`entropy_table` as in full_marks, so its H values change too, inside q4). Correct variants are valid but
written differently from full_marks and from the earlier correct sets (scores by `torch.addmm` with beta=0
and alpha=1/sqrt(d_k), a softmax shifted by the GLOBAL max of the scores (a constant per row, so the
weights do not change) and an output by `torch.tensordot`; pairs drawn as one `torch.randn(n, 2, d)`
reduced with `.prod(1).sum(-1)` and a variance by `torch.var(..., correction=1)`; an entropy by
`torch.nansum` of p log p (0 * -inf = NaN is dropped) and a table whose stds come from `torch.var(...)
.sqrt()`; heads cut by `unflatten` + `movedim`, merged by `stack` + `flatten` and projected by an einsum; answers written as
"\\x43", "\\N{LATIN CAPITAL LETTER A}" and a `str.removeprefix`). Every variant was run against plain torch
(`torch.softmax`, `F.scaled_dot_product_attention`, `nn.MultiheadAttention`, the lesson's formula) on
several shapes and both float dtypes (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_addmm_alpha_global_max_shift_tensordot": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    empty = Q.new_zeros(Q.shape[0], K.shape[0])
    scores = torch.addmm(empty, Q, K.transpose(0, 1), beta=0, alpha=1 / math.sqrt(d_k))
    e = torch.exp(scores - scores.max())          # one constant for the whole matrix: each row's softmax is unchanged
    weights = e / e.sum(dim=1, keepdim=True)
    output = torch.tensordot(weights, V, dims=([1], [0]))
    return output, weights
'''},
    "variance_pairs_in_one_draw_prod_torch_var_correction": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pairs = torch.randn(n_samples, 2, d_k, generator=generator)     # pairs[:, 0] = q, pairs[:, 1] = k
    dots = pairs.prod(dim=1).sum(dim=-1)
    scale = math.sqrt(d_k) if scaled else 1.0
    return torch.var(dots / scale, correction=1).item()
'''},
    "entropy_nansum_table_var_sqrt": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, -1)
    return -torch.nansum(p * p.log(), dim=-1)     # 0 * log 0 = NaN only where p == 0, and nansum skips it


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.matmul(q, k.transpose(0, 1)).squeeze(0)
        scaled = raw * d ** -0.5
        rows.append({"d": d,
                     "raw_std": torch.var(raw).sqrt().item(),
                     "scaled_std": torch.var(scaled).sqrt().item(),
                     "H_raw": softmax_entropy(raw).item(),
                     "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''},
    "mha_unflatten_movedim_einsum_heads": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def heads(W):                                   # (T, d_model) -> (n_heads, T, d_k), head h = columns h*d_k..
        return (X @ W).unflatten(1, (n_heads, d_k)).movedim(1, 0)

    Q, K, V = heads(W_Q), heads(W_K), heads(W_V)
    outs = [attention(Q[h], K[h], V[h], d_k)[0] for h in range(n_heads)]
    merged = torch.stack(outs).movedim(0, 1).flatten(1)     # (T, n_heads, d_k) -> (T, d_model), head 0 first
    return torch.einsum("td,de->te", merged, W_O)
'''},
    "answers_hex_escape_named_escape_removeprefix": {
        "q5_answer": '''
q5_answer = "\\x43"        # the character 0x43, i.e. "C": Var(q.k) = d_k
''',
        "q6_answer": '''
q6_answer = "\\N{LATIN CAPITAL LETTER A}"     # a softmax-weighted average of all the rows
''',
        "q7_answer": '''
q7_answer = "Answer: D".removeprefix("Answer: ")     # soft, differentiable lookup
'''},
}


WRONG = {
    "q1_addmm_scale_given_as_beta": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    zeros = torch.zeros(Q.shape[0], K.shape[0], dtype=Q.dtype)
    scores = torch.addmm(zeros, Q, K.T, beta=1 / math.sqrt(d_k))    # fused matmul + scale
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "In torch.addmm(input, A, B, beta=, alpha=) beta multiplies the added input (here zeros) "
                   "and alpha multiplies the product A @ B; the 1/sqrt(d_k) was given as beta, so the scores "
                   "are the unscaled Q K^T and the weights are softmax(Q K^T), too sharp for d_k > 1.",
       "where": ["q1", "q8"]}),

    "q4_entropy_log_guard_1e_4": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-4)).sum(dim=-1)     # float32 cannot resolve 1e-9, so a bigger guard


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
'''}, {"mistake": "The constant added inside the log is 1e-4, not a tiny one: every term becomes "
                   "p ln(p + 1e-4), so the entropy is too small by about T * 1e-4 (1.6089 instead of 1.6094 "
                   "on a uniform row of 5, and -1e-4 instead of 0 on a saturated row).",
       "where": ["q4"]}),

    "q5_answer_ascii_letters_starts_lowercase": ({"q5_answer": '''
import string

q5_answer = string.ascii_letters[2]      # options A, B, C, D: the third one
'''}, {"mistake": "string.ascii_letters is 'abc...xyzABC...XYZ' (lower case first), so index 2 is 'c', not "
                   "the capital letter 'C' the question asks for (ascii_uppercase[2]).",
       "where": ["q5"]}),

    "q5_answer_probe_pair_unpacked_from_feature_major_draw": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16: one draw holding both vectors, then pick the nearest option
_g5 = torch.Generator().manual_seed(0)
_q5, _k5 = torch.randn(2, 16, 5000, generator=_g5)       # (pair, feature, sample)
_dots5 = (_q5 * _k5).sum(dim=-1)
_opts5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _dots5.var().item()))
'''}, {"mistake": "The draw is laid out (pair, feature, sample), so after unpacking each of _q5, _k5 is "
                   "(16, 5000) and .sum(dim=-1) adds over the 5000 SAMPLES, not the 16 features: 16 sums "
                   "with variance about 5000, and the nearest option is 'D' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_draws_randint_minus_one_to_one": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 with random zero-mean vectors and pick the nearest option
_g5 = torch.Generator().manual_seed(0)
_q5 = torch.randint(-1, 2, (20000, 16), generator=_g5).float()
_k5 = torch.randint(-1, 2, (20000, 16), generator=_g5).float()
_var5 = (_q5 * _k5).sum(dim=-1).var().item()
_opts5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _var5))
'''}, {"mistake": "The probe draws coordinates from {-1, 0, 1} with torch.randint instead of N(0, 1): each "
                   "coordinate has variance 2/3, each product 4/9, so Var(q.k) is about 7.1 at d_k = 16 and "
                   "the nearest option is 'B' (4) instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_lstrip_prefix_eats_letter": ({"q6_answer": '''
q6_answer = "Answer: A".lstrip("Answer: ")     # keep just the letter
'''}, {"mistake": "str.lstrip takes a SET of characters, not a prefix: 'A' is in 'Answer: ', so the letter "
                   "is stripped too and q6_answer is the empty string '' instead of 'A' "
                   "(removeprefix('Answer: ') was meant).",
       "where": ["q6"]}),

    "q6_answer_check_scores_from_feature_gram_xtx": ({"q6_answer": '''
# option A by hand on a square probe: weights softmax(X^T X / sqrt(d)), then mix the rows
_X6 = torch.randn(5, 5, generator=torch.Generator().manual_seed(2))
_out6, _ = attention(_X6, _X6, _X6, 5)
_exp6 = torch.softmax(_X6.T @ _X6 / math.sqrt(5), dim=-1) @ _X6
q6_answer = "A" if torch.allclose(_out6, _exp6, atol=1e-5) else "C"
'''}, {"mistake": "The hand check builds the scores as X^T X (dot products between FEATURE columns) instead "
                   "of X X^T (between token rows); on the square probe the shapes still fit, the expected "
                   "rows are wrong, option A is ruled out and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_relative_error_over_near_zero_entries": ({"q6_answer": '''
# option A by hand, accepted when the largest relative error is tiny
_X6 = torch.randn(8, 16, generator=torch.Generator().manual_seed(7))
_out6, _ = attention(_X6, _X6, _X6, 16)
_S6 = _X6 @ _X6.T / 4.0
_exp6 = torch.exp(_S6) / torch.exp(_S6).sum(dim=-1, keepdim=True) @ _X6
q6_answer = "A" if ((_out6 - _exp6) / _exp6).abs().max() < 1e-6 else "C"
'''}, {"mistake": "The check divides by the expected entries: where an output entry is close to 0 (a "
                   "weighted mix of positive and negative values) float32 rounding alone gives a relative "
                   "error far above 1e-6, so option A is rejected and the cell answers 'C' instead of 'A' "
                   "(an absolute tolerance, or allclose, was needed).",
       "where": ["q6"]}),

    "q6_answer_enumerate_start_one_indexes_letters": ({"q6_answer": '''
_options6 = ["a weighted average of all the rows of X, with softmax weights",
             "X_i itself, since each token attends only to itself",
             "the single row X_j whose dot product with X_i is largest",
             "the plain (unweighted) mean of the rows of X"]
for _n6, _text6 in enumerate(_options6, start=1):      # options are numbered from 1
    if "weighted average" in _text6:
        q6_answer = "ABCD"[_n6]
'''}, {"mistake": "enumerate(..., start=1) numbers the options 1..4 but the number is then used as a "
                   "0-based index into 'ABCD', so the first option gives 'B' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_assert_close_dtype_mismatch": ({"q6_answer": '''
# option A by hand, reference in float64 for accuracy; assert_close raises if they differ
_X6 = torch.randn(5, 8, generator=torch.Generator().manual_seed(4))
_out6, _ = attention(_X6, _X6, _X6, 8)
_Xd6 = _X6.double()
_exp6 = torch.softmax(_Xd6 @ _Xd6.T / math.sqrt(8), dim=-1) @ _Xd6
try:
    torch.testing.assert_close(_out6, _exp6)
    q6_answer = "A"
except AssertionError:
    q6_answer = "C"
'''}, {"mistake": "torch.testing.assert_close checks the dtype by default (check_dtype=True): a float32 "
                   "output against a float64 reference raises AssertionError whatever the values, so the "
                   "check always falls through to 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_jacobian_probe_requires_every_entry_nonzero": ({"q7_answer": '''
# a soft lookup: every output number should depend on the query
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(3, 4, generator=_g7)
_K7 = torch.randn(5, 4, generator=_g7)
_V7 = torch.randn(5, 2, generator=_g7)
_J7 = torch.autograd.functional.jacobian(lambda q: attention(q, _K7, _V7, 4)[0], _Q7)   # (3, 2, 3, 4)
q7_answer = "D" if bool((_J7 != 0).all()) else "C"
'''}, {"mistake": "The probe asks EVERY entry of d output / d Q to be non-zero, but output row i depends "
                   "only on query row i, so the cross entries are exactly 0; the test fails and the cell "
                   "answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_differentiability_read_off_argmax_of_weights": ({"q7_answer": '''
# is the lookup differentiable? look at which key each query picks
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(3, 4, generator=_g7, requires_grad=True)
_K7 = torch.randn(5, 4, generator=_g7)
_V7 = torch.randn(5, 2, generator=_g7)
_, _W7 = attention(_Q7, _K7, _V7, 4)
_pick7 = _W7.argmax(dim=-1)
q7_answer = "D" if _pick7.requires_grad else "C"
'''}, {"mistake": "The probe tests differentiability on weights.argmax(-1), an integer index that never "
                   "carries a gradient, instead of on the weights or the output; requires_grad is False and "
                   "the cell answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_options_eliminated_by_set_difference": ({"q7_answer": '''
# rule out the wrong ones: A (exact match), B (sorted keys), C (argmax)
q7_answer = set("ABCD") - set("ABC")
'''}, {"mistake": "Elimination by set difference leaves the SET {'D'}, not the string 'D' (it needs "
                   "set(...).pop() or a plain 'D').",
       "where": ["q7"]}),

    "q7_answer_regex_group_zero_keeps_markup": ({"q7_answer": '''
import re

_md7 = ("- **D.** It scores the query against every key and returns a softmax-weighted mix of all the "
        "values: a soft, differentiable version of the lookup")
q7_answer = re.search(r"\\*\\*([A-D])\\.", _md7).group(0)
'''}, {"mistake": "match.group(0) is the whole match '**D.' (with the bold markers and the dot), not the "
                   "captured letter group(1) = 'D'.",
       "where": ["q7"]}),
}
