"""Fifty-second blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k,
d_v != d_k, "use the d_k you are given", float32 and float64, "return the dtype of the inputs", q2 within
10% at n_samples = 10000 and reproducible from the generator, a `softmax_entropy` that gives 0 on a
saturated row, `entropy_table(dims, seed=0)` with unbiased stds, q5..q7 answered by "one letter, as a
string", a looping `multi_head_attention` with `X @ W` projections; the top-level cells that call
`attention` on the lesson's trace, `dot_product_variance(..., scaled=True)` and print `entropy_table()`,
which no variant here may crash), `tests/heldout/harness.py`, blind51.py in full for the format,
lesson-79-scaled-dot-product-attention.txt in /work/shared/lessons/ (the formula, the variance argument,
the 1e-9 guard, the quiz answers), and only the module docstrings and the variant NAMES of blind.py ..
blind51.py, so that their mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~150, q1 ~144, q8 ~126, q2 ~104 against q6 ~64, q5 ~67
and q7 ~67, so this round puts 8 of its 14 wrong variants on the one-point questions (q5 x3, q7 x3,
q6 x2) and spreads the other six thinly (q1 x2, q8 x2, q2 x1, q4 x1). Code shapes the earlier names do
not show: a q1 that copies DANet's channel-attention "stabiliser" (row max minus energy) in front of the
softmax, which turns the weights round; a q1 that unit-normalises the value rows with `F.normalize`
before mixing them; a q2 that ports the `rand() * 2 - 1` idiom onto `randn` (coordinates of mean -1 and
variance 4); an `entropy_table` whose scaled std is the raw std divided by d (the variance rule applied to
a std, and by d instead of sqrt(d)); q8 heads cut with `Tensor.narrow` given an END where it takes a
LENGTH, and heads cut by `unflatten(1, (d_k, n_heads))` (head index minor); a q5 answer that is an
`enum.Enum` member; a q5 probe that multiplies the coordinate SUMS of q and k (variance d_k^2, answer D);
a q5 conditional on the string literal "scaled" (always true); a q6 answer from a confidence dict sorted
ascending and read at [0]; a q6 probe that recovers the mixing weights with `torch.linalg.lstsq` on an
underdetermined system (more tokens than features: the min-norm solution, with negative entries, not the
softmax weights); a q7 "last letter" computed as chr(ord("A") + number of options) = "E"; a q7 keyword
search that iterates the CHARACTERS of a keyword string (the first option already contains an "s"); and
a q7 keyword test that is case-sensitive ("soft" not in "Soft, ...").

Public sources: Tramac/awesome-semantic-segmentation-pytorch issue #68 and Andy-zhujunwen/danet-pytorch
issue #6 (DANet's `torch.max(attention, dim=-1, keepdim=True)[0].expand_as(attention) - attention` before
the softmax, "This line may reverse the weight"), for the q1 max-minus-energy slip;
PetrochukM/PyTorch-NLP issue #2 (softmax over the wrong dimension of attention scores) as the reminder
of how quietly a transformed score matrix still gives rows that sum to 1; lucidrains/memory-compressed-
attention issue #2 (sign slips around the softmax); the PyTorch documentation of `Tensor.narrow`
(dim, start, LENGTH), `Tensor.unflatten`, `F.normalize`, `torch.linalg.lstsq` (minimum-norm solution
for underdetermined systems) and `torch.special.entr`; the Python documentation of `enum`, `sorted`,
truth testing of non-empty strings, iteration over a str, and `chr`/`ord`; NumPy's `rand() * 2 - 1`
idiom for uniform draws in [-1, 1). No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slips list
q8 too; the q6 probe calls the untouched full-marks `attention`; the q4 slip replaces the whole q4 cell,
which defines both functions, and only `entropy_table` is changed). Correct variants are valid but written
differently from full_marks (scores by `torch.inner` and a dtype-matched `torch.rsqrt`, weights as
exp(log_softmax), output by `torch.einsum`; the pair drawn as one (2, n, d_k) tensor and unbound, dots by
einsum, variance by hand with n - 1; entropy by `torch.special.entr` and a table from a row helper with
`dict(zip(...))`; heads by `torch.tensor_split` and `zip`, merged by `torch.hstack`, projected out with
`torch.linalg.multi_dot`; answers from `string.ascii_uppercase`, `str.upper` and `chr(ord("A") + 3)`).
Every variant was run against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`,
`nn.MultiheadAttention`, the lesson's formula) on several shapes and both float dtypes (a throwaway
script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_inner_rsqrt_exp_log_softmax_einsum": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    inv_scale = torch.rsqrt(torch.tensor(float(d_k), dtype=Q.dtype))
    scores = torch.inner(Q, K) * inv_scale                # inner over the last dims: (T_q, T_k)
    weights = F.log_softmax(scores, dim=1).exp()
    output = torch.einsum("qk,kv->qv", weights, V)
    return output, weights
'''},
    "variance_pair_tensor_unbind_einsum_manual_unbiased": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q, k = torch.randn(2, n_samples, d_k, generator=generator).unbind(0)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots * (1.0 / math.sqrt(d_k))
    centred = dots - dots.mean()
    return float((centred ** 2).sum() / (n_samples - 1))
'''},
    "entropy_special_entr_table_row_helper_dict_zip": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(dim=-1)      # entr(0) = 0


_KEYS4 = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")


def _row4(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = torch.mv(k, q[0])                              # the 5 scores q . k_j
    scaled = raw / math.sqrt(d)
    values = (raw.std(), scaled.std(), softmax_entropy(raw), softmax_entropy(scaled))
    return dict(zip(_KEYS4, (d, *(v.item() for v in values))))


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return list(map(lambda d: _row4(d, seed), dims))
'''},
    "mha_tensor_split_zip_hstack_multi_dot": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.size(-1) // n_heads
    parts = [torch.tensor_split(X @ W, n_heads, dim=1) for W in (W_Q, W_K, W_V)]
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(*parts)]
    return torch.linalg.multi_dot([torch.hstack(heads), W_O])
'''},
    "answers_ascii_uppercase_upper_chr_offset": {
        "q5_answer": '''
import string

q5_answer = string.ascii_uppercase[2]      # A, B, C: Var(q.k) = d_k
''',
        "q6_answer": '''
q6_answer = "a".upper()                      # softmax-weighted average of the rows of X
''',
        "q7_answer": '''
q7_answer = chr(ord("A") + 3)                # A + 3 = D: the soft, differentiable lookup
'''},
}


WRONG = {
    "q1_danet_row_max_minus_energy_before_softmax": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    # keep the exponent small, as in DANet: row max minus energy before the softmax
    energy = scores.max(dim=-1, keepdim=True)[0].expand_as(scores) - scores
    weights = F.softmax(energy, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The scores are replaced by (row max - score) before the softmax, copied from DANet's "
                   "'stabiliser'; that is softmax(-S/sqrt(d_k)), so the weights are turned round (the best "
                   "matching key gets the smallest weight) instead of subtracting the max FROM the scores.",
       "where": ["q1", "q8"]}),

    "q1_value_rows_unit_normalised_before_mix": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    V_unit = F.normalize(V, dim=-1)          # unit-length value rows so no token dominates the mix
    return weights @ V_unit, weights
'''}, {"mistake": "The value rows are scaled to unit length (F.normalize) before they are mixed, so the output "
                   "is W times the normalised values, not W V; the weights are right but the output is wrong "
                   "whenever a value row does not already have norm 1.",
       "where": ["q1", "q8"]}),

    "q2_randn_rescaled_with_uniform_two_x_minus_one_idiom": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator) * 2 - 1     # spread over [-1, 1], as with rand
    k = torch.randn(n_samples, d_k, generator=generator) * 2 - 1
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The `rand() * 2 - 1` idiom for uniform draws on [-1, 1) was applied to standard normals: "
                   "the coordinates get mean -1 and variance 4, not N(0, 1), so each product q_i k_i has "
                   "variance 24 and the result is about 24 d_k (24 when scaled) instead of d_k (1).",
       "where": ["q2"]}),

    "q4_table_scaled_std_as_raw_std_divided_by_d": ({"softmax_entropy": '''
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
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        raw_std = raw.std().item()
        results.append({"d": d, "raw_std": raw_std, "scaled_std": raw_std / d,   # scaling divides the spread by d
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "scaled_std is worked out as raw_std / d instead of being measured on the scaled scores: "
                   "dividing the scores by sqrt(d) divides their std by sqrt(d) (their VARIANCE by d), so every "
                   "scaled_std is sqrt(d) times too small (e.g. 0.087 instead of 1.39 at d = 256).",
       "where": ["q4"]}),

    "q5_answer_enum_member_not_string": ({"q5_answer": '''
import enum


class _Growth5(enum.Enum):
    A = "1"
    B = "sqrt(d_k)"
    C = "d_k"
    D = "d_k^2"


q5_answer = _Growth5.C
'''}, {"mistake": "q5_answer is an enum member (_Growth5.C, whose str is '_Growth5.C'), not the one-letter "
                   "string 'C' (`.name` was needed).",
       "where": ["q5"]}),

    "q5_answer_probe_product_of_coordinate_sums": ({"q5_answer": '''
# measure how Var(q^T k) grows between d_k = 4 and d_k = 16
_g5 = torch.Generator().manual_seed(0)
_var5 = {}
for _d5 in (4, 16):
    _q5 = torch.randn(20000, _d5, generator=_g5)
    _k5 = torch.randn(20000, _d5, generator=_g5)
    _var5[_d5] = (_q5.sum(dim=1) * _k5.sum(dim=1)).var().item()
_ratio5 = _var5[16] / _var5[4]                     # x1 (A), x2 (B), x4 (C), x16 (D)
_growth5 = {"A": 1.0, "B": 2.0, "C": 4.0, "D": 16.0}
q5_answer = min(_growth5, key=lambda s: abs(math.log(_growth5[s] / _ratio5)))
'''}, {"mistake": "The probe multiplies the SUMS of the coordinates, (sum_i q_i)(sum_i k_i), instead of summing "
                   "the products q_i k_i; that product of two N(0, d_k) variables has variance d_k^2, so the "
                   "ratio is about 16 and the answer is 'D' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_condition_on_string_literal": ({"q5_answer": '''
# Var(q.k) is 1 once the scores are scaled, d_k otherwise (no scaling in this question)
q5_answer = "A" if "scaled" else "C"
'''}, {"mistake": "The condition is the string literal 'scaled' instead of a False flag; a non-empty string is "
                   "always true, so the answer is 'A' (the scaled case) instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_confidence_sorted_ascending_first_taken": ({"q6_answer": '''
_confidence6 = {"A": 0.85, "B": 0.05, "C": 0.08, "D": 0.02}
q6_answer = sorted(_confidence6, key=_confidence6.get)[0]       # the option I am most sure of
'''}, {"mistake": "sorted() orders ascending, so [0] is the option with the LOWEST confidence ('D'), not the "
                   "highest ('A'); reverse=True or [-1] was needed.",
       "where": ["q6"]}),

    "q6_answer_lstsq_weights_of_underdetermined_probe": ({"q6_answer": '''
# recover each output row's mixing weights from the tokens (out_i = w_i @ X) and check they are a distribution
_g6 = torch.Generator().manual_seed(0)
_X6 = torch.randn(6, 4, generator=_g6, dtype=torch.float64)
_out6, _ = attention(_X6, _X6, _X6, 4)
_w6 = torch.linalg.lstsq(_X6.T, _out6.T).solution.T          # (6 outputs, 6 tokens)
_is_average6 = bool((_w6 >= -1e-6).all()) and torch.allclose(_w6.sum(dim=-1), torch.ones(6, dtype=torch.float64))
q6_answer = "A" if _is_average6 else "C"
'''}, {"mistake": "With more tokens (6) than features (4) the weights cannot be recovered from the output: "
                   "lstsq returns the minimum-norm solution, which has negative entries and rows that do not "
                   "sum to 1, so the check fails and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_last_letter_as_a_plus_option_count": ({"q7_answer": '''
_n_options7 = 4
q7_answer = chr(ord("A") + _n_options7)        # the last of the four options
'''}, {"mistake": "Off by one: the last of four options is 'A' + 3; chr(ord('A') + 4) is 'E', which is not an "
                   "option at all.",
       "where": ["q7"]}),

    "q7_answer_keyword_search_iterates_characters": ({"q7_answer": '''
_options7 = {
    "A": "It returns the value of the key that equals the query exactly, like the table does",
    "B": "It only works when the keys are sorted",
    "C": "It returns the value of the best-scoring key only, so it is an argmax and has no useful gradient",
    "D": "It scores the query against every key and returns a softmax-weighted mix of all the values",
}
_keywords7 = "softmax-weighted differentiable"
q7_answer = next(c for c, text in _options7.items() if any(w in text for w in _keywords7))
'''}, {"mistake": "Iterating the keyword string gives single CHARACTERS, not words (`.split()` was needed); "
                   "option A already contains an 's', so the first match is 'A' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_case_sensitive_keyword_test": ({"q7_answer": '''
_note7 = "Soft, differentiable version of the lookup: every value is mixed in by its weight"
q7_answer = "D" if "soft" in _note7 else "C"
'''}, {"mistake": "The substring test is case-sensitive: 'soft' is not in 'Soft, ...', so the cell answers 'C' "
                   "instead of 'D' (.lower() was needed).",
       "where": ["q7"]}),

    "q8_head_columns_by_narrow_given_end_not_length": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        start, end = h * d_k, (h + 1) * d_k
        out_h, _ = attention(Q.narrow(1, start, end), K.narrow(1, start, end), V.narrow(1, start, end), d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Tensor.narrow takes (dim, start, LENGTH); the end index (h + 1) * d_k was passed as the "
                   "length, so every head after the first is too wide and runs past d_model (only one head "
                   "works).",
       "where": ["q8"]}),

    "q8_heads_unflattened_with_head_axis_minor": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = (M.unflatten(1, (d_k, n_heads)) for M in (X @ W_Q, X @ W_K, X @ W_V))   # (T, d_k, n_heads)
    heads = [attention(Q[:, :, h], K[:, :, h], V[:, :, h], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "unflatten(1, (d_k, n_heads)) makes the head index the fast one, so head h gets the strided "
                   "columns h, h + n_heads, h + 2 n_heads, ... instead of the block h*d_k .. (h+1)*d_k - 1; "
                   "(n_heads, d_k) was the order needed.",
       "where": ["q8"]}),
}
