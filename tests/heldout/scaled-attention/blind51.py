"""Fifty-first blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k,
d_v != d_k, "use the d_k you are given", float32 and float64, "return the dtype of the inputs", q2 within
10% at n_samples = 10000, a `softmax_entropy` that gives 0 on a saturated row and keeps the dtype of its
logits, `entropy_table(dims, seed=0)` reseeded with `torch.manual_seed(seed)` for every d, q5..q7 answered
by "one letter, as a string", a looping `multi_head_attention`; the top-level cells that call `attention`
on the lesson's trace, `dot_product_variance(..., scaled=True)` and print `entropy_table()`, which no
variant here may crash), `tests/heldout/harness.py`, blind50.py in full for the format,
lesson-79-scaled-dot-product-attention.txt in /work/shared/lessons/ (the formula, the 1e-9 guard, the
quiz answers), and only the module docstrings and the variant NAMES of blind.py .. blind50.py, so that
their mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~148, q1 ~142, q8 ~126, q2 ~104 against q6 ~61, q7 ~63
and q5 ~64, so this round puts 10 of its 14 wrong variants on the one-point questions (q7 x4, q5 x3,
q6 x3), two on q1 (which q8 calls), two on q4, and leaves q2 and q8 alone (both heavily covered, and a
q2 slip must not crash the notebook's own top-level `scaled=True` loop). Code shapes the earlier names
do not show: a q1 that gets q.k from `torch.cdist` through |q - k|^2 = |q|^2 + |k|^2 - 2 q.k but drops
the 1/2 when solving for q.k; a q1 that "sparsifies" the weights (drops those under 1% and renormalises);
an `entropy_table` whose reseeding is guarded by `if seed:` (so the default seed=0 never reseeds); a
`softmax_entropy` that casts its result to `torch.get_default_dtype()`; a q5 growth exponent fitted on a
log-log scale with a natural log over a log2; a q5 growth RATIO (Var at 64 / Var at 16, about 4) matched
against the option VALUES at d_k = 16 (B = sqrt(16) = 4); a q5 letter taken with a slice to the end
(`"ABCD"[2:]` = "CD"); a q6 check that asks the OUTPUT rows (not the weights) to sum to 1; a q6 check of
the weight row sums by exact `== 1` in float32; a q6 letter written as LaTeX math `"$A$"`; a q7 letter
taken as the first character of the option's text once the labels were stripped ("I"); a q7 probe that
counts the keys "used" by a query as the weights above 0.5 (never more than one, so it looks like an
argmax); a q7 answer from `next(i for i, t in enumerate(...))`, an index (3) where a letter is asked; and a
q7 letter from `str.partition` without `[0]` (a 3-tuple).

Public sources: pytorch/pytorch, torch/functional.py (`cdist`: "compute_mode ... use matrix
multiplication approach to calculate euclidean distance", i.e. the |x|^2 + |y|^2 - 2 x.y identity) and the
many kernel-regression notebooks that turn distances into dot products, for the q1 cdist slip; the
attention-mask threads huggingface/transformers PR #17306 ("Fix -1e4 as attn mask") and
lucidrains/memory-compressed-attention issue #2 (masking and softmax order, `-float('-inf')`), which are
about weights forced to 0 after or around the softmax, for the q1 pruning slip; the PyTorch documentation
of torch.manual_seed / torch.get_default_dtype and the Python documentation of truth testing (0 is
false), str.partition, slicing and next() for q4..q7; lesson-79's own quiz (the weighted-average and
soft-lookup answers) for the probes. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slips list
q8 too; the q5/q6/q7 probes call the untouched full-marks `attention`; the two q4 slips replace the whole
q4 cell, which defines both functions, and only one of them is changed). Correct variants are valid but
written differently from full_marks (scores by `torch.addmm` with beta=0 and alpha = 1/sqrt(d_k), weights
by an L1 `F.normalize` of max-shifted exponentials, output by `torch.mm`; draws by `Tensor.normal_` with
the generator, dots by `torch.linalg.vecdot`, variance by `torch.cov`; entropy by
`torch.distributions.Categorical(logits=...).entropy()` and a table built by a helper and `torch.std_mean`;
heads by reshape/transpose to (n_heads, T, d_k), a `zip` loop, merged by `torch.stack(dim=1).reshape`;
answers by "%c" formatting, a negative index and the longest option text). Every variant was run against
plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, `nn.MultiheadAttention`, the lesson's
formula) on several shapes and both float dtypes (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_addmm_alpha_l1_normalised_shifted_exp": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[0], K.shape[0]
    scores = torch.addmm(Q.new_zeros(T_q, T_k), Q, K.t(), beta=0, alpha=1 / math.sqrt(d_k))
    e = (scores - scores.amax(dim=1, keepdim=True)).exp()       # largest entry of each row is 1
    weights = F.normalize(e, p=1, dim=1)                         # divide each row by its (positive) sum
    return torch.mm(weights, V), weights
'''},
    "variance_normal_inplace_vecdot_cov": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.empty(n_samples, d_k).normal_(generator=generator)
    k = torch.empty(n_samples, d_k).normal_(generator=generator)
    dots = torch.linalg.vecdot(q, k)                  # over the last dim: one dot per sample
    factor = d_k ** -0.5 if scaled else 1.0
    return torch.cov(dots * factor).item()            # 1-D input: the unbiased variance
'''},
    "entropy_categorical_logits_table_helper_std_mean": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.distributions.Categorical(logits=logits).entropy()


def _entropy_row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = (q @ k.T)[0]
    scaled = raw / d ** 0.5
    (raw_std, _), (scaled_std, _) = torch.std_mean(raw), torch.std_mean(scaled)
    return {"d": d, "raw_std": float(raw_std), "scaled_std": float(scaled_std),
            "H_raw": float(softmax_entropy(raw)), "H_scaled": float(softmax_entropy(scaled))}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_entropy_row(d, seed) for d in dims]
'''},
    "mha_reshape_transpose_zip_stack_dim1": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def heads_of(M):                                   # (T, d_model) -> (n_heads, T, d_k)
        return M.reshape(T, n_heads, d_k).transpose(0, 1)

    outs = [attention(q, k, v, d_k)[0]
            for q, k, v in zip(heads_of(X @ W_Q), heads_of(X @ W_K), heads_of(X @ W_V))]
    merged = torch.stack(outs, dim=1).reshape(T, d_model)     # (T, n_heads, d_k): head 0 first per row
    return merged @ W_O
'''},
    "answers_percent_c_negative_index_longest_text": {
        "q5_answer": '''
q5_answer = "%c" % 67            # character 67 is "C": Var(q.k) = d_k
''',
        "q6_answer": '''
q6_answer = "ABCD"[-4]           # the first of the four: a softmax-weighted average of the rows
''',
        "q7_answer": '''
_options7 = {
    "A": "returns the value of the key that equals the query exactly",
    "B": "only works when the keys are sorted",
    "C": "returns the value of the best-scoring key only (an argmax, no useful gradient)",
    "D": "scores the query against every key and returns a softmax-weighted mix of all the values: "
         "a soft, differentiable version of the lookup (kernel regression with an exponential kernel)",
}
q7_answer = max(_options7, key=lambda c: len(_options7[c]))     # the full description is the longest: "D"
'''},
}


WRONG = {
    "q1_scores_from_cdist_identity_missing_half": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # dot products from distances: |q - k|^2 = |q|^2 + |k|^2 - 2 q.k
    sq_q = (Q * Q).sum(dim=-1, keepdim=True)             # (T_q, 1)
    sq_k = (K * K).sum(dim=-1)                           # (T_k,)
    dots = sq_q + sq_k - torch.cdist(Q, K) ** 2          # q.k for every pair
    weights = F.softmax(dots / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''}, {"mistake": "Solving |q - k|^2 = |q|^2 + |k|^2 - 2 q.k for q.k gives (|q|^2 + |k|^2 - |q - k|^2) / 2; "
                   "the division by 2 was dropped, so every score is 2 q.k / sqrt(d_k), twice too large, and "
                   "the weights are too sharp.",
       "where": ["q1", "q8"]}),

    "q1_small_weights_pruned_and_renormalised": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    # sparse attention: weights under 1% are noise, drop them and renormalise the rest
    weights = torch.where(weights < 0.01, torch.zeros_like(weights), weights)
    weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''}, {"mistake": "The softmax weights are changed after the fact: every weight under 0.01 is set to 0 and "
                   "the rest renormalised, so whenever a row has a small weight (common with more than a "
                   "handful of keys or wide scores) the weights and the output differ from "
                   "softmax(QK^T/sqrt(d_k)) V.",
       "where": ["q1", "q8"]}),

    "q4_table_reseed_guarded_by_truthiness_of_seed": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        if seed:                                   # seed=None: leave the global generator alone
            torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "`if seed:` is false for the default seed=0 (0 is falsy), so the generator is never reseeded: "
                   "the draws continue from whatever state the global generator is in and no row of the table "
                   "matches the seeded experiment (`if seed is not None` was meant).",
       "where": ["q4"]}),

    "q4_entropy_cast_to_default_dtype": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    H = -(log_p.exp() * log_p).sum(dim=-1)
    return H.to(torch.get_default_dtype())          # keep the result a plain float tensor


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
'''}, {"mistake": "The entropy is cast to torch.get_default_dtype() (float32), so float64 logits give a float32 "
                   "result (wrong dtype, and only float32 precision) instead of keeping the dtype of the logits.",
       "where": ["q4"]}),

    "q5_answer_loglog_slope_natural_log_over_log2": ({"q5_answer": '''
# how fast does Var(q.k) grow with d_k? fit the exponent on a log-log scale between d_k = 4 and 64
_g5 = torch.Generator().manual_seed(0)


def _var5(d):
    q = torch.randn(20000, d, generator=_g5)
    k = torch.randn(20000, d, generator=_g5)
    return (q * k).sum(dim=1).var().item()


_slope5 = math.log(_var5(64) / _var5(4)) / math.log2(64 / 4)
_exponents5 = {"A": 0.0, "B": 0.5, "C": 1.0, "D": 2.0}        # 1, sqrt(d_k), d_k, d_k^2
q5_answer = min(_exponents5, key=lambda s: abs(_exponents5[s] - _slope5))
'''}, {"mistake": "The slope mixes logarithm bases: a natural log of the variance ratio over a log2 of the "
                   "dimension ratio gives ln(16)/4 = 0.69 instead of 1, and the nearest exponent is 0.5, so "
                   "the answer is 'B' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_growth_ratio_matched_to_option_values": ({"q5_answer": '''
# compare Var(q.k) at d_k = 16 and at d_k = 64 and see which option describes the growth
_g5 = torch.Generator().manual_seed(0)
_v5 = []
for _d5 in (16, 64):
    _q5 = torch.randn(10000, _d5, generator=_g5)
    _k5 = torch.randn(10000, _d5, generator=_g5)
    _v5.append((_q5 * _k5).sum(dim=1).var().item())
_growth5 = _v5[1] / _v5[0]                                    # how much bigger at 64 than at 16
_opts5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}  # the options at d_k = 16
q5_answer = min(_opts5, key=lambda s: abs(_opts5[s] - _growth5))
'''}, {"mistake": "The growth RATIO Var(64)/Var(16) (about 4, the same factor as the dimension: linear growth) "
                   "is compared with the option VALUES at d_k = 16, where sqrt(16) = 4; the answer is 'B' "
                   "instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_slice_to_end_not_index": ({"q5_answer": '''
q5_answer = "ABCD"[2:]          # the third option: Var(q.k) = d_k
'''}, {"mistake": "A slice from 2 to the end was written where the index 2 was meant: 'ABCD'[2:] is 'CD', "
                   "two letters, not the one letter 'C'.",
       "where": ["q5"]}),

    "q6_answer_check_output_rows_sum_to_one": ({"q6_answer": '''
# a weighted average has weights that sum to 1: check it on a probe
_X6 = torch.randn(5, 8, generator=torch.Generator().manual_seed(0))
_out6, _ = attention(_X6, _X6, _X6, 8)
q6_answer = "A" if torch.allclose(_out6.sum(dim=-1), torch.ones(5), atol=1e-5) else "C"
'''}, {"mistake": "The check asks the OUTPUT rows to sum to 1; it is the weights that sum to 1 (an output row "
                   "is a weighted average of the rows of X, whose entries need not sum to 1), so the check "
                   "fails and the cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_weight_row_sums_exactly_one": ({"q6_answer": '''
# option A needs every row of weights to be a distribution: check the row sums on a probe
_X6 = torch.randn(6, 8, generator=torch.Generator().manual_seed(1))
_, _W6 = attention(_X6, _X6, _X6, 8)
q6_answer = "A" if bool((_W6.sum(dim=-1) == 1).all()) else "C"
'''}, {"mistake": "The row sums are compared with 1 by exact equality; in float32 a sum of softmax weights is "
                   "1 only up to rounding (e.g. 0.99999994), so the check fails and the cell answers 'C' "
                   "instead of 'A' (torch.allclose was needed).",
       "where": ["q6"]}),

    "q6_answer_latex_dollar_signs": ({"q6_answer": '''
q6_answer = "$A$"        # weighted average with softmax_j(X_i . X_j / sqrt(d_k))
'''}, {"mistake": "The letter is written as LaTeX math, '$A$' (three characters with the dollar signs), "
                   "not the one letter 'A'.",
       "where": ["q6"]}),

    "q7_answer_first_character_of_option_text": ({"q7_answer": '''
_options7 = [
    "It returns the value of the key that equals the query exactly, like the table does",
    "It only works when the keys are sorted",
    "It returns the value of the best-scoring key only, so it is an argmax and has no useful gradient",
    "It scores the query against every key and returns a softmax-weighted mix of all the values",
]
q7_answer = _options7[3][0]          # the fourth option's letter
'''}, {"mistake": "The options were copied without their labels, so the first character of the fourth option's "
                   "text is 'I' (from 'It scores ...'), not its letter 'D'.",
       "where": ["q7"]}),

    "q7_answer_keys_used_counted_as_weights_above_half": ({"q7_answer": '''
# a hash table uses ONE key per query: count how many keys each query really uses on a random probe
_g7 = torch.Generator().manual_seed(0)
_Q7 = torch.randn(4, 8, generator=_g7)
_K7 = torch.randn(6, 8, generator=_g7)
_V7 = torch.randn(6, 3, generator=_g7)
_, _W7 = attention(_Q7, _K7, _V7, 8)
_used7 = (_W7 > 0.5).sum(dim=-1)                      # keys that carry the weight
q7_answer = "C" if bool((_used7 <= 1).all()) else "D"
'''}, {"mistake": "A key counts as 'used' only when its weight is above 0.5, and at most one weight in a row "
                   "can be; every key with a positive weight contributes, so the probe always sees at most "
                   "one key and answers 'C' (argmax lookup) instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_next_enumerate_gives_index": ({"q7_answer": '''
_texts7 = [
    "returns the value of the key that equals the query exactly",
    "only works when the keys are sorted",
    "returns the value of the best-scoring key only, an argmax with no useful gradient",
    "returns a softmax-weighted mix of all the values: a soft, differentiable version of the lookup",
]
q7_answer = next(i for i, t in enumerate(_texts7) if "differentiable" in t)
'''}, {"mistake": "next(i for i, t in enumerate(...)) gives the option's position, the int 3, where the "
                   "letter 'D' is asked ('ABCD'[i] was needed).",
       "where": ["q7"]}),

    "q7_answer_partition_without_index_gives_tuple": ({"q7_answer": '''
q7_answer = "D - the soft, differentiable lookup".partition(" ")    # keep the letter before the note
'''}, {"mistake": "str.partition returns a 3-tuple ('D', ' ', '- the soft, differentiable lookup'); without "
                   "[0] q7_answer is that tuple, not the string 'D'.",
       "where": ["q7"]}),
}
