"""Fiftieth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k,
d_v != d_k, "use the d_k you are given", float32 and float64, q2 within 10% at n_samples = 10000, a
`softmax_entropy` that gives 0 on a saturated row, `entropy_table` reseeded for every d, q5..q7 answered by
"one letter, as a string", a looping `multi_head_attention`), `tests/heldout/harness.py`, blind49.py in full
for the format, lesson-79-scaled-dot-product-attention.txt in /work/shared/lessons/ (the formula, the 1e-9
guard, the q6/q7 quiz explanations), and only the module docstrings and the variant NAMES of blind.py ..
blind49.py, so that their mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~147, q1 ~141, q8 ~126, q2 ~103 against q6 ~57, q5 ~60
and q7 ~60, so this round puts 11 of its 14 wrong variants on the one-point questions (q5 x4, q6 x4,
q7 x3), one on q1 (which q8 calls), one on q2 and one on q4, and leaves q8 alone. Code shapes the earlier
names do not show: a q1 that copies the "scale the queries and the keys by d^(1/4) instead of the dot
products by sqrt(d)" trick but scales only the queries; a q2 whose dot products are written into a buffer
made by `torch.tensor([0] * n_samples)` (int64, so every dot is truncated toward 0 before the variance);
an entropy guarded by `torch.where(p >= 0, p.log(), 0)` (the condition is always true, so 0 * log 0 = NaN
comes back on a saturated row); a q5 probe that measures the spread as the mean ABSOLUTE dot product
(about 0.8 * sqrt(d_k): option B); a q5 probe that measures the variance of the attention WEIGHTS from the
notebook's `attention` instead of the raw scores (option A); a q5 probe matched with `math.isclose` at
rel_tol=1e-3, so no option matches and the fallback "A" is kept; a q5 letter pasted with a trailing
space; a q6 letter "cleaned" with `.split()` where `.strip()` was meant (a one-item list); a q6 letter
looked up with `dict.get` under a key that differs from the dict's (None); a q6 check that passes the
whole (output, weights) PAIR to `torch.allclose` inside a broad try/except, so the TypeError answers "C";
a q6 hand check that mixes the rows by an ELEMENTWISE product `weights * X` on a square probe; a q7 letter
from `chr(44)` (decimal 44 is ',', the hex code 0x44 was meant); a q7 probe calling
`torch.autograd.grad` on the non-scalar output without grad_outputs inside try/except (the RuntimeError
answers "C"); and a q7 keyword test on `text.split()` tokens, where "soft," keeps its comma.

Public sources: pbloem/former, former/modules.py (`queries = queries / (e ** (1/4))`, `keys = keys /
(e ** (1/4))`, "Instead of dividing the dot products by sqrt(e), we scale the keys and values") and a
copy of it in a memory module found through the code index that scales only the queries, for the q1
slip; pytorch/pytorch issue #3346 and issue #16586 (float values cast into integer tensors are truncated
toward zero) and the PyTorch documentation of torch.tensor (dtype inferred from the data: Python ints give
int64) for q2; the Python documentation of str.split / str.strip, dict.get, chr() (decimal code points)
and math.isclose (rel_tol) for q5..q7; PyTorch's documentation of torch.autograd.grad ("grad can be
implicitly created only for scalar outputs") for q7. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slip lists
q8 too; the q5/q6/q7 probes call the untouched full-marks `attention`; the q4 slip keeps `entropy_table` as
in full_marks, so its H values go through the changed entropy, inside q4). Correct variants are valid but
written differently from full_marks and from the earlier correct sets (scores as (K Q^T)^T scaled by
`torch.rsqrt` of a tensor in Q's dtype, weights by exp(s - logsumexp), output by an einsum; pairs cut from
one wide draw with `split`, dots by `bmm`, and the scaled variance as Var/d_k; an entropy in bits by
`log2` converted to nats by ln 2 with a `finfo.tiny` floor, and a table with a 1-D query through `mv` and
both stds from one stacked `std`; heads taken by `gather`, merged by `functools.reduce` over `cat` and
projected by `torch.linalg.multi_dot`; answers by `next(...)`, `str.partition` and `str.rpartition`). Every
variant was run against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`,
`nn.MultiheadAttention`, the lesson's formula) on several shapes and both float dtypes (a throwaway
script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_keys_by_queries_transposed_rsqrt_logsumexp_einsum": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scale = torch.rsqrt(Q.new_tensor(d_k))               # 1 / sqrt(d_k), already in Q's dtype
    scores = torch.matmul(K, Q.transpose(0, 1)).transpose(0, 1) * scale     # (T_q, T_k)
    weights = torch.exp(scores - torch.logsumexp(scores, dim=1, keepdim=True))
    output = torch.einsum("qk,kv->qv", weights, V)
    return output, weights
'''},
    "variance_split_wide_draw_bmm_variance_divided_by_d_k": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    draw = torch.randn(n_samples, 2 * d_k, generator=generator)
    q, k = draw.split(d_k, dim=1)                        # first d_k columns: q, last d_k: k
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).reshape(-1)
    var = float(dots.var())
    if scaled:
        var /= d_k                                       # Var(x / c) = Var(x) / c**2 with c = sqrt(d_k)
    return var
'''},
    "entropy_log2_times_ln2_table_mv_stacked_std": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    bits = -(p * torch.log2(p.clamp_min(torch.finfo(p.dtype).tiny))).sum(dim=-1)
    return bits * math.log(2)                            # 1 bit = ln 2 nats


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(d)                               # same numbers as torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mv(k, q)                             # (5,) = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        raw_std, scaled_std = torch.stack([raw, scaled]).std(dim=1).tolist()
        table.append(dict(d=d, raw_std=raw_std, scaled_std=scaled_std,
                          H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return table
'''},
    "mha_gather_heads_reduce_cat_multi_dot": {"multi_head_attention": '''
import functools


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        idx = (torch.arange(d_k) + h * d_k).expand(T, d_k)        # the columns of head h, on every row
        q, k, v = (M.gather(1, idx) for M in (Q, K, V))
        outs.append(attention(q, k, v, d_k)[0])
    merged = functools.reduce(lambda a, b: torch.cat((a, b), dim=1), outs)
    return torch.linalg.multi_dot([merged, W_O])
'''},
    "answers_next_partition_rpartition": {
        "q5_answer": '''
q5_answer = next(c for c in "ABCD" if c > "B")        # the first option after B: "C", Var(q.k) = d_k
''',
        "q6_answer": '''
q6_answer = "ABCD".partition("B")[0]        # what comes before B: "A", the softmax-weighted average
''',
        "q7_answer": '''
q7_answer = "ABCD".rpartition("C")[2]       # what comes after C: "D", the soft, differentiable lookup
'''},
}


WRONG = {
    "q1_quarter_power_scale_on_queries_only": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # scale before the product instead of after it (cheaper than dividing the T_q x T_k scores)
    Q = Q / d_k ** (1 / 4)
    scores = Q @ K.T
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The trick of scaling before the product needs BOTH Q and K divided by d_k^(1/4) (their "
                   "product then carries 1/sqrt(d_k)); only the queries were scaled, so the scores are "
                   "Q K^T / d_k^(1/4), too large by d_k^(1/4), and the weights are too sharp for d_k > 1.",
       "where": ["q1", "q8"]}),

    "q2_dots_buffer_from_python_int_list_truncates": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.tensor([0] * n_samples)          # one slot per sample
    raw = (q * k).sum(dim=1)
    dots[:] = raw / math.sqrt(d_k) if scaled else raw
    return dots.to(q.dtype).var().item()          # var needs a float tensor
'''}, {"mistake": "torch.tensor([0] * n_samples) is an int64 tensor (Python ints), so writing the dot products "
                   "into it truncates each one toward 0; the variance is of the truncated values, far too "
                   "small with scaled=True (about 0.5 instead of 1) and too small for small d_k.",
       "where": ["q2"]}),

    "q4_entropy_where_guard_compares_ge_zero": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    log_p = torch.where(p >= 0, torch.log(p), torch.zeros_like(p))    # log only where it is defined
    return -(p * log_p).sum(dim=-1)


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
'''}, {"mistake": "The guard's condition is p >= 0, which every probability meets, so torch.log(p) is used "
                   "everywhere: where a probability underflows to exactly 0 the term is 0 * (-inf) = NaN, and "
                   "a saturated row such as [1000, 0, -1000] gives NaN instead of 0 (p > 0 was meant).",
       "where": ["q4"]}),

    "q5_answer_probe_spread_as_mean_absolute_dot": ({"q5_answer": '''
# measure how wide q.k is at d_k = 16 and pick the nearest option
_g5 = torch.Generator().manual_seed(1)
_q5 = torch.randn(20000, 16, generator=_g5)
_k5 = torch.randn(20000, 16, generator=_g5)
_spread5 = (_q5 * _k5).sum(dim=1).abs().mean().item()       # typical size of the dot product
_opts5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _spread5))
'''}, {"mistake": "The probe measures the mean ABSOLUTE dot product (about sqrt(2/pi) * sqrt(d_k) = 3.2 at "
                   "d_k = 16), a typical size, not the variance; the nearest option is 'B' (sqrt(d_k)) instead "
                   "of 'C' (the variance is d_k).",
       "where": ["q5"]}),

    "q5_answer_probe_variance_of_attention_weights": ({"q5_answer": '''
# measure it with our own attention: random queries and keys at d_k = 16, look at what attention makes
_g5 = torch.Generator().manual_seed(0)
_Q5 = torch.randn(200, 16, generator=_g5)
_K5 = torch.randn(200, 16, generator=_g5)
_, _W5 = attention(_Q5, _K5, _K5, 16)
_var5 = _W5.var().item()
_opts5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _var5))
'''}, {"mistake": "The probe takes the variance of the attention WEIGHTS (probabilities after the scale and "
                   "the softmax, variance about 1e-5) instead of the raw dot products q.k; the nearest option "
                   "is 'A' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_isclose_rtol_too_tight_keeps_default": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 and keep the option it matches
_g5 = torch.Generator().manual_seed(0)
_q5 = torch.randn(10000, 16, generator=_g5)
_k5 = torch.randn(10000, 16, generator=_g5)
_var5 = (_q5 * _k5).sum(dim=1).var().item()
q5_answer = "A"                                    # default: no growth with d_k
for _letter5, _value5 in {"A": 1.0, "B": 4.0, "C": 16.0, "D": 256.0}.items():
    if math.isclose(_var5, _value5, rel_tol=1e-3):
        q5_answer = _letter5
'''}, {"mistake": "A sample variance from 10000 pairs is off by a few percent, so math.isclose with "
                   "rel_tol=1e-3 matches no option and the default 'A' is kept instead of 'C' (take the "
                   "NEAREST option).",
       "where": ["q5"]}),

    "q5_answer_trailing_space_pasted": ({"q5_answer": '''
q5_answer = "C "       # Var(q.k) = d_k
'''}, {"mistake": "The letter was pasted with the space after it: 'C ' is a two-character string, not the "
                   "one letter 'C'.",
       "where": ["q5"]}),

    "q6_answer_split_for_strip_leaves_list": ({"q6_answer": '''
q6_answer = " A ".split()          # tidy the spaces away
'''}, {"mistake": "str.split() (meant: str.strip()) breaks the string at whitespace and returns the LIST "
                   "['A'], not the string 'A'.",
       "where": ["q6"]}),

    "q6_answer_dict_get_key_mismatch_gives_none": ({"q6_answer": '''
_letters6 = {"weighted average": "A", "itself": "B", "best match": "C", "plain mean": "D"}
q6_answer = _letters6.get("softmax-weighted average")      # each row is a softmax-weighted average
'''}, {"mistake": "dict.get with a key that is not in the dict ('softmax-weighted average' vs 'weighted "
                   "average') returns None silently, so q6_answer is None instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_pair_not_unpacked_error_swallowed": ({"q6_answer": '''
# option A by hand: softmax(X X^T / sqrt(d)) X, compared with our attention
_X6 = torch.randn(5, 8, generator=torch.Generator().manual_seed(3))
_exp6 = torch.softmax(_X6 @ _X6.T / math.sqrt(8), dim=-1) @ _X6
try:
    _ok6 = torch.allclose(attention(_X6, _X6, _X6, 8), _exp6, atol=1e-5)
except Exception:
    _ok6 = False                   # anything odd counts as "not a weighted average"
q6_answer = "A" if _ok6 else "C"
'''}, {"mistake": "attention returns the pair (output, weights) and the check passes the whole tuple to "
                   "torch.allclose; the TypeError is swallowed by the broad except, so the check fails and "
                   "the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_mix_by_elementwise_product_on_square_probe": ({"q6_answer": '''
# option A by hand on a small square probe: weights from the scaled scores, then mix the rows
_X6 = torch.randn(4, 4, generator=torch.Generator().manual_seed(5))
_out6, _ = attention(_X6, _X6, _X6, 4)
_W6 = torch.softmax(_X6 @ _X6.T / 2.0, dim=-1)
_exp6 = _W6 * _X6                  # weights times the rows
q6_answer = "A" if torch.allclose(_out6, _exp6, atol=1e-5) else "C"
'''}, {"mistake": "The hand check mixes the rows with the ELEMENTWISE product W * X instead of the matrix "
                   "product W @ X; on the square probe the shapes still fit, the expected rows are wrong, "
                   "option A is ruled out and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_chr_of_decimal_44_not_hex": ({"q7_answer": '''
q7_answer = chr(44)        # ASCII code of D (from the table's hex column)
'''}, {"mistake": "chr takes a decimal code point: chr(44) is ',' (D is 68 = 0x44), so q7_answer is ',' "
                   "instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_autograd_grad_of_non_scalar_output_swallowed": ({"q7_answer": '''
# is the lookup differentiable? ask autograd for d out / d Q
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(3, 4, generator=_g7, requires_grad=True)
_K7 = torch.randn(5, 4, generator=_g7)
_V7 = torch.randn(5, 2, generator=_g7)
_out7, _ = attention(_Q7, _K7, _V7, 4)
q7_answer = "C"                      # unless a gradient comes back: a hard argmax lookup
try:
    (_dQ7,) = torch.autograd.grad(_out7, _Q7)
    if _dQ7.abs().sum() > 0:
        q7_answer = "D"
except RuntimeError:
    pass                             # no gradient
'''}, {"mistake": "torch.autograd.grad on the (3, 2) output without grad_outputs raises 'grad can be "
                   "implicitly created only for scalar outputs'; the except reads that as 'no gradient' and "
                   "answers 'C' instead of 'D' (out.sum(), or grad_outputs, was needed).",
       "where": ["q7"]}),

    "q7_answer_keyword_tokens_keep_trailing_comma": ({"q7_answer": '''
_options7 = {
    "A": "It returns the value of the key that equals the query exactly, like the table does",
    "B": "It only works when the keys are sorted",
    "C": "It returns the value of the best-scoring key only, so it is an argmax and has no useful gradient",
    "D": "It scores the query against every key and returns a softmax-weighted mix of all the values: a "
         "soft, differentiable version of the lookup (kernel regression with an exponential kernel)",
}
q7_answer = "C"
for _letter7, _text7 in _options7.items():
    if "soft" in _text7.split():              # the soft lookup
        q7_answer = _letter7
'''}, {"mistake": "The keyword test looks for the whole token 'soft' in text.split(), but in option D the "
                   "token is 'soft,' (with its comma) and 'softmax-weighted' is another token, so nothing "
                   "matches and the default 'C' is kept instead of 'D'.",
       "where": ["q7"]}),
}
