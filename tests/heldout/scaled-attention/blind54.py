"""Fifty-fourth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k,
d_v != d_k, "use the d_k you are given", float32 and float64 kept; q2 within 10% at n_samples = 10000, a
Python float, reproducible from the generator; `softmax_entropy` over the last dim, 0 on a saturated row;
`entropy_table(dims, seed=0)` with `(q @ k.T)[0]` and unbiased stds; q5..q7 answered by "one letter, as a
string"; a looping `multi_head_attention` with `X @ W` projections compared with `nn.MultiheadAttention`),
`tests/heldout/harness.py`, blind53.py in full for the format, lesson-79-scaled-dot-product-attention.txt
in /work/shared/lessons/ (the formula, the variance argument), and only the module docstrings and the
variant NAMES of blind.py .. blind52.py, so that their mistakes are not repeated in the same form. The
grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~152, q1 ~148, q8 ~129, q2 ~106 against q6 ~69, q5 ~73
and q7 ~73, so this round again puts 8 of its 14 wrong variants on the one-point questions (q6 x3, q7 x3,
q5 x2) and spreads the other six thinly (q1 x2, q4 x2, q2 x1, q8 x1). Code shapes the earlier names do
not show: a q1 whose log-domain softmax uses `torch.logcumsumexp` (a running sum) where `logsumexp` was
meant; a q1 that passes `dtype=torch.float32` to `F.softmax` (the mixed-precision idiom) and so breaks
float64; a q2 whose "dot" is the vector norm of the elementwise products; a q4 table that writes the scores
as `(k @ q.T)[0]` and keeps one score; a q4 entropy of elementwise sigmoid "probabilities"; a q5 probe that
averages per-coordinate variances of q_i k_i; a q5 probe whose dims were changed to a doubling while the
option factors stayed those of a quadrupling; a q6 check that divides by sqrt(d_k) after the softmax; a
q6 convexity check whose bounds are taken per token (dim 1) instead of per feature; a q6 probe run in
bfloat16 and compared at float32 tolerance; a q7 answer typed as the hex escape of lowercase 'd'; a q7
kernel-regression check with a negated exponent; a q7 probe that never recomputes the output after
changing a value; and a q8 that builds its head list with `insert(0, ...)`.

Public sources: pytorch/pytorch pull request #18334 (review of `F.softmax(attn_weights, dim=-1,
dtype=torch.float32)` in MultiheadAttention, with "dtype=torch.float32 only if attn_weights.dtype !=
torch.float64") and pull request #21658 ("Expected object of scalar type Float but got scalar type Half"
after a softmax that changed the dtype), for the q1 dtype slip; the PyTorch documentation of
`torch.logcumsumexp` (log of the CUMULATIVE sum of exponentials), for the q1 logcumsumexp slip;
datascience.stackexchange.com question 91069 ("The sum of multi-class prediction is not 1", sigmoid
outputs used where a softmax was needed), for the q4 sigmoid slip; tenstorrent/tt-metal pull request
#54289 and pytorch/pytorch pull request #162041 (bfloat16 results failing fp32-grade `allclose`
tolerances), for the q6 bfloat16 probe; the PyTorch documentation of `torch.linalg.vector_norm`,
`torch.linalg.multi_dot`, `torch.tensordot`, `torch.std_mean` and `torch.finfo`. No variant copies public
code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slips list
q8 too; the q5..q7 probes call the untouched full-marks `attention`; the q4 slips replace the whole q4
cell, which defines both functions, and only one of the two is changed, `entropy_table` calling
`softmax_entropy`). Correct variants are valid but written differently from full_marks (scores by
`torch.tensordot` over dim 1 of both, `Tensor.softmax(1)`, output by `torch.linalg.multi_dot`, no assert;
draws with a shape tuple, dots by `torch.mul` and `torch.sum`, the unbiased variance by hand, `float(...)`
instead of `.item()`; entropy with p clamped at `torch.finfo(dtype).tiny` and `.neg()`, a table with
`torch.mv` and `torch.std_mean` and `dict(...)` rows; heads by `view(T, n_heads, d_k).transpose(0, 1)` and
`unbind` in a comprehension, merged by `torch.cat(..., -1)` and `torch.matmul`; answers by `"c".upper()`,
`min("DCBA")` and `"ABCD".replace("ABC", "")`). Every variant was run against plain torch
(`torch.softmax`, `F.scaled_dot_product_attention`, `nn.MultiheadAttention` loaded with the same weights,
the lesson's formula and an entropy from `log_softmax`) on several shapes (the trace's 3x4, T_q != T_k,
d_v != d_k, d_k = 13, T_q = 1, n_heads = 1..4) and both float dtypes, checking dtypes and that inputs are
not modified, with every wrong one differing only in its `where` and every correct one agreeing
everywhere (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_tensordot_method_softmax_multi_dot": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.tensordot(Q, K, dims=([1], [1])) / math.sqrt(d_k)
    weights = scores.softmax(1)
    output = torch.linalg.multi_dot([weights, V])
    return output, weights
'''},
    "variance_mul_sum_hand_unbiased_float": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn((n_samples, d_k), generator=generator)
    k = torch.randn((n_samples, d_k), generator=generator)
    dots = torch.sum(torch.mul(q, k), dim=-1)
    if scaled:
        dots = dots * (1.0 / math.sqrt(d_k))
    centred = dots - dots.mean()
    return float((centred * centred).sum() / (n_samples - 1))
'''},
    "entropy_finfo_tiny_clamp_neg_table_std_mean": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    log_p = p.clamp_min(torch.finfo(p.dtype).tiny).log()
    return (p * log_p).sum(dim=-1).neg()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mv(k, q[0])                         # same 5 scores as (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        raw_std, _ = torch.std_mean(raw)
        scaled_std, _ = torch.std_mean(scaled)
        table.append(dict(d=d, raw_std=raw_std.item(), scaled_std=scaled_std.item(),
                          H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return table
'''},
    "mha_view_transpose_unbind_zip_matmul": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    def split(M):                                       # (T, d_model) -> (n_heads, T, d_k)
        return M.view(T, n_heads, d_k).transpose(0, 1)
    outs = [attention(q_h, k_h, v_h, d_k)[0]
            for q_h, k_h, v_h in zip(split(X @ W_Q).unbind(0), split(X @ W_K).unbind(0),
                                     split(X @ W_V).unbind(0))]
    return torch.matmul(torch.cat(outs, dim=-1), W_O)
'''},
    "answers_upper_of_lower_min_replace": {
        "q5_answer": '''
q5_answer = "c".upper()                      # Var(q.k) = d_k
''',
        "q6_answer": '''
q6_answer = min("DCBA")                      # smallest letter: "A", the softmax-weighted average
''',
        "q7_answer": '''
q7_answer = "ABCD".replace("ABC", "")        # "D": soft, differentiable lookup
'''},
}


WRONG = {
    "q1_logcumsumexp_for_logsumexp": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.exp(scores - torch.logcumsumexp(scores, dim=-1))   # log-domain softmax
    return weights @ V, weights
'''}, {"mistake": "torch.logcumsumexp (a running log-sum-exp) is used where torch.logsumexp(..., keepdim=True) "
                   "was meant: each score is normalised only by the keys up to it, so the first weight of every "
                   "row is 1 and the rows sum to more than 1; weights and output are wrong.",
       "where": ["q1", "q8"]}),

    "q1_softmax_dtype_kwarg_float32": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1, dtype=torch.float32)   # "numerically safe" softmax
    return weights @ V, weights
'''}, {"mistake": "softmax is told dtype=torch.float32, so float64 inputs get float32 weights (the dtype is not "
                   "kept) and `weights @ V` then fails on the float32/float64 mismatch; float32 inputs are fine.",
       "where": ["q1", "q8"]}),

    "q2_dot_taken_as_norm_of_products": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.linalg.vector_norm(q * k, dim=1)       # size of q.k for each pair
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The dot product is replaced by the Euclidean norm of the elementwise products, "
                   "sqrt(sum (q_i k_i)^2), which is never negative and is not q.k; its variance is nowhere "
                   "near d_k (about 1.1 at d_k = 4, tending to 2 for large d_k instead of growing like d_k).",
       "where": ["q2"]}),

    "q4_table_scores_as_k_at_q_row_zero": ({"softmax_entropy": '''
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
        raw = (k @ q.T)[0]                               # keys against the query: 5 scores
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The product is written k @ q.T, which has shape (5, 1), so [0] keeps only the first key's "
                   "score (shape (1,)) instead of the 5 scores: the std of one number is nan and the entropy of "
                   "a one-element softmax is 0 for every d.",
       "where": ["q4"]}),

    "q4_entropy_of_sigmoid_probabilities": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.sigmoid(logits)                            # logits -> probabilities
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
'''}, {"mistake": "The probabilities come from an elementwise sigmoid (the binary / multi-label habit) instead "
                   "of a softmax over the row, so they do not sum to 1 and the 'entropy' is wrong (a uniform "
                   "row of 5 zeros gives 5 * 0.5 ln 2 = 1.73, not ln 5 = 1.609).",
       "where": ["q4"]}),

    "q5_answer_probe_variance_per_coordinate_then_averaged": ({"q5_answer": '''
# measure Var(q.k) at d_k = 4 and d_k = 16 and pick the option whose growth matches
_g5 = torch.Generator().manual_seed(0)
_var5 = {}
for _d5 in (4, 16):
    _q5 = torch.randn(10000, _d5, generator=_g5)
    _k5 = torch.randn(10000, _d5, generator=_g5)
    _var5[_d5] = (_q5 * _k5).var(dim=0).mean().item()    # variance of the products q_i k_i
_growth5 = _var5[16] / _var5[4]
_options5 = {"A": 1.0, "B": 2.0, "C": 4.0, "D": 16.0}
q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _growth5))
'''}, {"mistake": "The probe takes the variance of each product q_i k_i over the samples and AVERAGES over the "
                   "coordinates instead of summing the products into q.k first; that is Var(q_i k_i) = 1 at "
                   "every d_k, the growth looks like x1 and the cell answers 'A' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_dims_doubled_but_options_for_quadrupling": ({"q5_answer": '''
# how does Var(q.k) grow when d_k is multiplied? options as growth factors when d_k goes x4:
# A: x1, B: x2 (sqrt), C: x4 (linear), D: x16 (square)
_g5 = torch.Generator().manual_seed(0)
_dims5 = (8, 16)
_v5 = []
for _d5 in _dims5:
    _q5 = torch.randn(20000, _d5, generator=_g5)
    _k5 = torch.randn(20000, _d5, generator=_g5)
    _v5.append((_q5 * _k5).sum(dim=1).var().item())
_growth5 = _v5[1] / _v5[0]
_options5 = {"A": 1.0, "B": 2.0, "C": 4.0, "D": 16.0}
q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _growth5))
'''}, {"mistake": "The probe's dimensions were changed to (8, 16), a doubling, but the option factors are still "
                   "the ones for a quadrupling (x1, x2, x4, x16); the linear growth x2 is then matched to 'B' "
                   "(sqrt) instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_check_scale_applied_after_softmax": ({"q6_answer": '''
# check option A on a small example: Q = K = V = X
_g6 = torch.Generator().manual_seed(0)
_X6 = torch.randn(5, 4, generator=_g6, dtype=torch.float64)
_out6, _ = attention(_X6, _X6, _X6, 4)
_W6 = torch.softmax(_X6 @ _X6.T, dim=-1) / math.sqrt(4)     # softmax_j(X_i . X_j / sqrt(d_k))
q6_answer = "A" if torch.allclose(_out6, _W6 @ _X6) else "D"
'''}, {"mistake": "The expected weights divide by sqrt(d_k) AFTER the softmax instead of dividing the scores "
                   "before it, so the expected rows are a wrongly sharpened and halved mix; the check fails and "
                   "the cell answers 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_convexity_check_bounds_taken_per_token": ({"q6_answer": '''
# a weighted average of the rows of X stays inside the range of those rows, coordinate by coordinate
_g6 = torch.Generator().manual_seed(0)
_X6 = torch.randn(6, 4, generator=_g6)
_out6, _ = attention(_X6, _X6, _X6, 4)
_lo6 = _X6.min(dim=1, keepdim=True).values
_hi6 = _X6.max(dim=1, keepdim=True).values
_inside6 = bool(((_out6 >= _lo6 - 1e-6) & (_out6 <= _hi6 + 1e-6)).all())
q6_answer = "A" if _inside6 else "C"
'''}, {"mistake": "The bounds for a convex combination of the ROWS must be taken per feature over the tokens "
                   "(min/max over dim 0); the probe takes them over dim 1, the range inside each token, and "
                   "compares output row i with token i's own range, which the average leaves, so the cell "
                   "answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_probe_in_bfloat16_at_default_tolerance": ({"q6_answer": '''
# check option A in bfloat16 (cheap) against the formula in float32
_g6 = torch.Generator().manual_seed(0)
_X6 = torch.randn(6, 8, generator=_g6)
_out6, _ = attention(_X6.bfloat16(), _X6.bfloat16(), _X6.bfloat16(), 8)
_expected6 = torch.softmax(_X6 @ _X6.T / math.sqrt(8), dim=-1) @ _X6
q6_answer = "A" if torch.allclose(_out6.float(), _expected6) else "D"
'''}, {"mistake": "The probe runs attention in bfloat16 (about 3 significant digits) and compares it with a "
                   "float32 result at allclose's default tolerance (rtol 1e-5); rounding alone fails the check "
                   "and the cell answers 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_hex_escape_of_lowercase_d": ({"q7_answer": '''
q7_answer = "\\x64"                 # the letter D by its code (typed from an ASCII table)
'''}, {"mistake": "0x64 is the code of the lowercase 'd' (uppercase 'D' is 0x44), so the answer is 'd', not "
                   "the capital letter 'D' that was asked for.",
       "where": ["q7"]}),

    "q7_answer_kernel_check_with_negated_exponent": ({"q7_answer": '''
# D says: attention is kernel regression with an exponential kernel. Check it on a small example.
_g7 = torch.Generator().manual_seed(0)
_q7 = torch.randn(1, 3, generator=_g7, dtype=torch.float64)
_K7 = torch.randn(5, 3, generator=_g7, dtype=torch.float64)
_V7 = torch.randn(5, 2, generator=_g7, dtype=torch.float64)
_kern7 = torch.exp(-(_q7 @ _K7.T) / math.sqrt(3))        # exponential kernel exp(-q.k / sqrt(d_k))
_nw7 = (_kern7 @ _V7) / _kern7.sum()
_out7, _ = attention(_q7, _K7, _V7, 3)
q7_answer = "D" if torch.allclose(_out7, _nw7) else "C"
'''}, {"mistake": "The exponential kernel is written exp(-q.k / sqrt(d_k)) with a minus sign (the habit of "
                   "distance kernels); attention uses exp(+q.k / sqrt(d_k)), so the Nadaraya-Watson estimate "
                   "does not match and the cell answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q8_heads_inserted_at_front_reverse_order": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.insert(0, out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Each head output is inserted at the FRONT of the list, so the heads are concatenated last "
                   "head first; the columns no longer line up with the rows of W_O and the output is wrong "
                   "whenever n_heads > 1 (head 0 must come first).",
       "where": ["q8"]}),

    "q7_answer_probe_compares_output_not_recomputed": ({"q7_answer": '''
# C says only the best key matters; D says every value contributes. Change a value that is NOT the best
# key's and see whether the output moves.
_g7 = torch.Generator().manual_seed(0)
_q7 = torch.randn(1, 3, generator=_g7)
_K7 = torch.randn(4, 3, generator=_g7)
_V7 = torch.randn(4, 2, generator=_g7)
_out7, _w7 = attention(_q7, _K7, _V7, 3)
_worst7 = int(_w7[0].argmin())
_V7b = _V7.clone()
_V7b[_worst7] += 10.0
_new7 = _out7                                    # output for the changed values
q7_answer = "C" if torch.allclose(_new7, _out7) else "D"
'''}, {"mistake": "After changing a value row the probe never calls attention again (_new7 is the old output), "
                   "so the output cannot move and the cell answers 'C' instead of 'D'.",
       "where": ["q7"]}),
}
