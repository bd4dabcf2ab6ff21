"""Fifty-third blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k,
d_v != d_k, "use the d_k you are given", float32 and float64 kept; q2 within 10% at n_samples = 10000 and
reproducible from the generator; `softmax_entropy` giving 0 on a saturated row; `entropy_table(dims, seed=0)`
with unbiased stds; q5..q7 answered by "one letter, as a string"; a looping `multi_head_attention` with
`X @ W` projections compared with `nn.MultiheadAttention`; the trace cell that leaves a global `d_k = 4`),
`tests/heldout/harness.py`, blind52.py in full for the format, lesson-79-scaled-dot-product-attention.txt
in /work/shared/lessons/ (the formula, the variance argument, the 1e-9 guard), and only the module
docstrings and the variant NAMES of blind.py .. blind52.py, so that their mistakes are not repeated in the
same form. The grader was not run on this set.

How it was made: the earlier WRONG names count q4 ~151, q1 ~146, q8 ~128, q2 ~105 against q6 ~66, q5 ~70
and q7 ~70, so this round again puts 9 of its 14 wrong variants on the one-point questions (q5 x3, q6 x3,
q7 x3) and spreads the other five thinly (q1 x2, q2 x1, q4 x1, q8 x1). Code shapes the earlier names do
not show: a q1 that puts a ReLU on the scores before the softmax ("a negative score means no match"); a q1
that copies the straight-through estimator (hard one-hot forward, soft gradient); a q2 that gets the dots
from the polarisation identity divided by 2 instead of 4; a q4 that feeds log-probabilities to
`torch.special.entr`; a q5 probe whose growth ratio is taken small over large; a q5 probe that compares
the measured ratio with a strict `>= 4` at the expected value (3.975 with its seed); a q5 answer that is
`ord("C")`; a q6 answer written as a `def` that returns the letter; a q6 probe that calls `attention` with
the notebook's stale global `d_k`; a q6 check whose expected weights come from negative squared
distances (`torch.cdist`); a q7 answer that is a dict {letter: reason}; a q7 probe that runs
`torch.autograd.gradcheck` with a coarse eps = 0.5; a q7 letter cut from "A, B, C, D".split(",") with its
leading space; and a q8 that fuses W_Q|W_K|W_V and splits the product with `chunk(3)` on the default dim 0
(the tokens).

Public sources: keon/seq2seq issues #15 and #28 and pull request #6 (F.relu applied around attention
energies and the softmax, "relu are used after softmax here, can you give some reasons?"), for the q1
ReLU-before-softmax slip; lucidrains/vit-pytorch issue #237 (`self.to_qkv(x).chunk(3, dim = -1)`) and
wanshuiyin/ARIS-in-AI-Offer pull request #45 (fused QKV `.chunk(3, dim=-1)` and the chunk(3) trap that
"doesn't raise"), for the q8 fused projection chunked along the wrong dim; the PyTorch documentation of
`torch.special.entr` (-x ln x for x > 0, -inf for x < 0), `torch.autograd.gradcheck` (eps, atol,
raise_exception), `torch.distributions.Categorical.entropy`, `torch.linalg.vecdot`, `torch.cov`,
`Tensor.chunk` (dim=0 by default) and `torch.cdist`; the straight-through idiom `hard - soft.detach() +
soft` of Gumbel-softmax / VQ-VAE code; the Python documentation of `ord`, `str.split` and `%c`
formatting. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slips list
q8 too; the q6 and q7 probes call the untouched full-marks `attention`; the q4 slip replaces the whole q4
cell, which defines both functions, and only `softmax_entropy` is changed, which `entropy_table` calls).
Correct variants are valid but written differently from full_marks (scores by `matmul(Q, K.mT)` times
`d_k ** -0.5`, weights as exp(S - logsumexp S), output by `torch.mm`, no assert; draws by
`Tensor.normal_(generator=...)`, dots by `torch.linalg.vecdot`, variance by `torch.cov`; entropy by
`Categorical(logits=...).entropy()` and a table from a row helper in a comprehension; heads projected by
slicing the COLUMNS of each weight matrix and W_O applied block by block and summed; answers by `"%c" % 67`,
`next(iter("ABCD"))` and `"ABCD"[-1]`). Every variant was run against plain torch (`torch.softmax`,
`F.scaled_dot_product_attention`, `nn.MultiheadAttention` loaded with the same weights, the lesson's
formula and entropy) on several shapes (T_q != T_k, d_v != d_k, d_k = 13, T_q = 1) and both float dtypes,
with every wrong one differing only in its `where` and every correct one agreeing everywhere (a throwaway
script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_matmul_mT_mul_power_exp_minus_logsumexp_mm": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.mT).mul(d_k ** -0.5)
    weights = torch.exp(scores - torch.logsumexp(scores, dim=1, keepdim=True))
    return torch.mm(weights, V), weights
'''},
    "variance_linalg_vecdot_div_torch_cov": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.empty(n_samples, d_k).normal_(generator=generator)
    k = torch.empty(n_samples, d_k).normal_(generator=generator)
    dots = torch.linalg.vecdot(q, k, dim=-1)
    divisor = math.sqrt(d_k) if scaled else 1.0
    return float(torch.cov(dots.div(divisor)))          # 1-D input: unbiased variance
'''},
    "entropy_categorical_logits_table_built_by_comprehension": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.distributions.Categorical(logits=logits, validate_args=False).entropy()


def _one_row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = torch.matmul(q, k.transpose(0, 1)).squeeze(0)
    scaled = torch.div(raw, math.sqrt(d))
    return {"d": d,
            "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_one_row(d, seed) for d in dims]
'''},
    "mha_weight_column_slices_blockwise_output_projection": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = W_Q.shape[1] // n_heads
    out = None
    for h in range(n_heads):
        lo, hi = h * d_k, h * d_k + d_k
        head, _ = attention(X @ W_Q[:, lo:hi], X @ W_K[:, lo:hi], X @ W_V[:, lo:hi], d_k)
        part = head @ W_O[lo:hi, :]                      # this head's block of rows of W_O
        out = part if out is None else out + part
    return out
'''},
    "answers_percent_c_next_iter_negative_index": {
        "q5_answer": '''
q5_answer = "%c" % 67                        # code point 67 is "C": Var(q.k) = d_k
''',
        "q6_answer": '''
q6_answer = next(iter("ABCD"))               # the first option: a softmax-weighted average of the rows of X
''',
        "q7_answer": '''
q7_answer = "ABCD"[-1]                       # the last option: soft, differentiable lookup
'''},
}


WRONG = {
    "q1_negative_scores_clamped_to_zero_before_softmax": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    scores = F.relu(scores)                  # a negative score means "no match": treat it as 0
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "A ReLU is put on the scaled scores before the softmax, so every negative score becomes 0 "
                   "(weight exp(0) instead of exp(s)); keys that match badly all get the same, too large, weight "
                   "and the weights and output are wrong whenever a score is negative (almost always).",
       "where": ["q1", "q8"]}),

    "q1_straight_through_hard_one_hot_weights": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    soft = F.softmax(scores, dim=-1)
    hard = F.one_hot(soft.argmax(dim=-1), num_classes=K.shape[0]).to(soft.dtype)
    weights = hard - soft.detach() + soft    # straight-through: hard forward, soft gradient
    return weights @ V, weights
'''}, {"mistake": "The straight-through trick from Gumbel/VQ code makes the forward weights one-hot on the "
                   "best-scoring key (hard - soft.detach() + soft equals hard in value), so the output is the "
                   "single best value row instead of the softmax-weighted mix.",
       "where": ["q1", "q8"]}),

    "q2_dots_by_polarisation_identity_halved": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    # q.k from norms only: (|q + k|^2 - |q - k|^2) / 2
    dots = ((q + k).pow(2).sum(1) - (q - k).pow(2).sum(1)) / 2
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The polarisation identity is q.k = (|q+k|^2 - |q-k|^2) / 4; dividing by 2 gives 2 q.k, so the "
                   "variance comes out 4 times too large (about 4 d_k, and 4 when scaled).",
       "where": ["q2"]}),

    "q4_entropy_special_entr_fed_log_probabilities": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)               # stable, no 0 * log 0
    return torch.special.entr(log_p).sum(dim=-1)


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
'''}, {"mistake": "torch.special.entr(x) computes -x ln x of PROBABILITIES; it is given the log-probabilities, "
                   "which are negative, and entr of a negative number is -inf, so every entropy is -inf "
                   "(entr(softmax(...)) was needed).",
       "where": ["q4"]}),

    "q5_answer_probe_ratio_taken_small_over_large": ({"q5_answer": '''
# measure how Var(q^T k) grows from d_k = 4 to d_k = 16
_g5 = torch.Generator().manual_seed(0)
_v5 = []
for _d5 in (4, 16):
    _q5 = torch.randn(20000, _d5, generator=_g5)
    _k5 = torch.randn(20000, _d5, generator=_g5)
    _v5.append((_q5 * _k5).sum(dim=1).var().item())
_growth5 = _v5[0] / _v5[1]                           # x1 (A), x2 (B), x4 (C), x16 (D)
_options5 = {"A": 1.0, "B": 2.0, "C": 4.0, "D": 16.0}
q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _growth5))
'''}, {"mistake": "The growth ratio is taken the wrong way round, Var(d=4) / Var(d=16) (about 0.25) instead of "
                   "Var(d=16) / Var(d=4) (about 4), so the nearest option is 'A' (x1) instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_strict_threshold_at_expected_ratio": ({"q5_answer": '''
# if Var(q.k) grows like d_k, quadrupling d_k must multiply it by 4; like sqrt(d_k): by 2
_g5 = torch.Generator().manual_seed(1)
_var5 = {}
for _d5 in (4, 16):
    _q5 = torch.randn(10000, _d5, generator=_g5)
    _k5 = torch.randn(10000, _d5, generator=_g5)
    _var5[_d5] = torch.einsum("nd,nd->n", _q5, _k5).var().item()
q5_answer = "C" if _var5[16] / _var5[4] >= 4 else "B"
'''}, {"mistake": "The measured ratio is compared with a strict threshold AT the expected value 4; a noisy "
                   "estimate falls below 4 about half the time (here 3.975), and then the cell answers 'B' "
                   "instead of 'C' (the nearest option was needed, not '>= 4').",
       "where": ["q5"]}),

    "q5_answer_code_point_int": ({"q5_answer": '''
q5_answer = ord("C")          # the letter C (Var(q.k) = d_k)
'''}, {"mistake": "ord('C') is the integer code point 67, not the one-letter string 'C' that was asked for "
                   "(a number where a letter is expected).",
       "where": ["q5"]}),

    "q6_answer_defined_as_function": ({"q6_answer": '''
def q6_answer():
    """Self-attention with Q = K = V = X: each output row is a softmax-weighted average of the rows of X."""
    return "A"
'''}, {"mistake": "q6_answer is written as a function that returns 'A', so the variable holds a function, not "
                   "the one-letter string 'A' (it was never called).",
       "where": ["q6"]}),

    "q6_answer_probe_calls_attention_with_stale_global_d_k": ({"q6_answer": '''
# check option A on a small example: 5 tokens of width 3, Q = K = V = X
_g6 = torch.Generator().manual_seed(0)
_X6 = torch.randn(5, 3, generator=_g6)
_out6, _ = attention(_X6, _X6, _X6, d_k)
_expected6 = torch.softmax(_X6 @ _X6.T / math.sqrt(_X6.shape[1]), dim=-1) @ _X6
q6_answer = "A" if torch.allclose(_out6, _expected6, atol=1e-5) else "D"
'''}, {"mistake": "The probe calls attention with the notebook's global d_k (4, from the lesson's trace) on tokens "
                   "of width 3, so its output is scaled by 1/2 instead of 1/sqrt(3), does not match the expected "
                   "softmax-weighted average, and the cell answers 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_expected_from_negative_squared_distances": ({"q6_answer": '''
# option A says: similar tokens get large weights; similarity = small distance
_g6 = torch.Generator().manual_seed(0)
_X6 = torch.randn(6, 4, generator=_g6, dtype=torch.float64)
_out6, _ = attention(_X6, _X6, _X6, 4)
_expected6 = torch.softmax(-torch.cdist(_X6, _X6) ** 2 / 2, dim=-1) @ _X6
q6_answer = "A" if torch.allclose(_out6, _expected6) else "D"
'''}, {"mistake": "The expected output is built with weights softmax(-|X_i - X_j|^2 / sqrt(d_k)) (similarity as "
                   "negative squared distance) instead of softmax(X_i . X_j / sqrt(d_k)); those differ by the "
                   "-|X_j|^2 term, the check fails, and the cell answers 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_dict_letter_to_reason": ({"q7_answer": '''
q7_answer = {"D": "soft, differentiable lookup: a softmax-weighted mix of all the values"}
'''}, {"mistake": "q7_answer is a dict mapping the letter to a reason, not the one-letter string 'D'.",
       "where": ["q7"]}),

    "q7_answer_gradcheck_with_coarse_eps": ({"q7_answer": '''
# is attention differentiable in the query? if gradcheck passes, it is a soft lookup (D), else an argmax (C)
_g7 = torch.Generator().manual_seed(0)
_K7 = torch.randn(4, 3, generator=_g7, dtype=torch.float64)
_V7 = torch.randn(4, 2, generator=_g7, dtype=torch.float64)
_q7 = torch.randn(1, 3, generator=_g7, dtype=torch.float64, requires_grad=True)
_smooth7 = torch.autograd.gradcheck(lambda q: attention(q, _K7, _V7, 3)[0], (_q7,),
                                    eps=0.5, raise_exception=False)     # a big step, safe from rounding
q7_answer = "D" if _smooth7 else "C"
'''}, {"mistake": "gradcheck is run with eps = 0.5: the finite-difference step is far too coarse for the default "
                   "tolerances (its error grows like eps^2), so the check fails on a perfectly smooth function "
                   "and the cell answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_split_on_comma_keeps_leading_space": ({"q7_answer": '''
_letters7 = "A, B, C, D".split(",")
q7_answer = _letters7[3]                 # the fourth option
'''}, {"mistake": "Splitting 'A, B, C, D' on ',' keeps the space after each comma, so the answer is ' D' (with a "
                   "leading space), not 'D' (split(', ') or .strip() was needed).",
       "where": ["q7"]}),

    "q8_fused_qkv_chunked_along_tokens": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    W_QKV = torch.cat([W_Q, W_K, W_V], dim=1)           # one fused projection, (d_model, 3 d_model)
    Q, K, V = (X @ W_QKV).chunk(3)                      # split back into queries, keys, values
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The fused (T, 3 d_model) projection is chunked with the default dim=0, i.e. along the TOKENS, "
                   "not along the columns (chunk(3, dim=-1)); Q, K and V are then thirds of the sequence that "
                   "all come from the W_Q columns, so the output has T/3 rows and the wrong values (or the "
                   "call fails when T is not a multiple of 3).",
       "where": ["q8"]}),
}
