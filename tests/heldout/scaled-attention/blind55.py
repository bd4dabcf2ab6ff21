"""Fifty-fifth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the student notebook
`assignments/scaled-attention/scaled-attention.ipynb` (question texts and stubs), the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k, d_v != d_k, "use the
d_k you are given", float32 and float64 kept; q2 within 10% at n_samples = 10000, a Python float drawn from the
generator; `softmax_entropy` over the last dim, 0 on a saturated row; `entropy_table(dims, seed=0)` with
`(q @ k.T)[0]` and unbiased stds, checked against the lesson's d = 4 and d = 256 rows; q5..q7 one letter as a
string; a looping `multi_head_attention` with `X @ W` projections), `tests/heldout/harness.py`, blind54.py in
full for the format, and only the variant NAMES of blind.py .. blind53.py, so that their mistakes are not
repeated in the same form. The grader was not run on this set.

Focus of the round: mistakes taken from public evidence of how attention / statistics code goes wrong, in
forms the earlier names do not show, spread over every auto-graded question (q1 x3, q2 x1, q4 x2, q5 x2,
q6 x2, q7 x2, q8 x2; q3 is a hand-graded markdown answer and has no code cell to replace) and mixing kinds:
a wrong shape from `torch.linalg.vecdot` (row-paired dot products instead of all query/key pairs), a dtype
crash from a preallocated default-float32 `out=` buffer, a silently wrong log-domain softmax (log-sum-exp
added instead of subtracted), a probability slip (Var of a sum of d_k iid terms taken as Var of d_k times one
term), an in-place order-of-evaluation slip (`log_p.exp_() * log_p` squares p), a precision slip (the entropy
table computed in bfloat16), wrong letters from faulty probes (numpy.polyfit's coefficient order; q^T k of
row vectors taken literally as an outer product; a row slice kept 2-D and softmaxed over dim 0; a claim
tested only through a consequence that the right answer also satisfies; an aliased "copy" of the values;
`torch.sort(dim=0)` sorting each key coordinate on its own), a crash from `Tensor.unfold` with step 1
(overlapping head windows), and silently scrambled per-head weight blocks from a `view` with no permute.

Public material used (nothing copied verbatim): the PyTorch documentation of `torch.linalg.vecdot` ("dot
product of two batches of vectors", so (3, 2) with (3, 2) gives 3 numbers, not a 3x3 matrix), for the q1
vecdot slip; pytorch/pytorch issue #76806 and the type-promotion examples quoted in mratsim/tattletale pull
request #101 (dtype rules of mixed float32 / float64 operands), with the `out=` check "Expected out tensor to
have dtype double, but got float" reproduced locally, for the q1 buffer slip; imathworks.com "Variance of a
series of IID's vs a multiple of a random variable" (Var(X+...+X) read as Var(5X) = 25 Var(X)) and
prob140.org chapter 13.2 "Sums of IID Samples", for q2; the numpy documentation of `numpy.polyfit`
("Polynomial coefficients, highest power first"), for the q5 fit; the PyTorch documentation and the
freshrimpsushi.github.io post 3487 on `torch.sort` (with dim=0 each column is sorted on its own; sorting
rows by one column needs the indices), for the q7 sort probe; the github.com/sufiyansayyed19/myTorch
notebook and androidkt.com "How to copy PyTorch tensor" ("assignment does not create a copy", clone() does),
for the q7 alias probe and the q4 in-place slip; the PyTorch documentation of `Tensor.unfold(dimension,
size, step)` (windows overlap when step < size), for the q8 unfold slip; tenstorrent/tt-metal pull request
#54289 (bfloat16 results failing fp32-grade tolerances, cited in blind54) for the bfloat16 table.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slips list
q8 too; the q5..q7 probes call the untouched full-marks `attention`; the q4 slips replace the whole q4 cell,
which defines both functions, changing only one of them, and `entropy_table` calls `softmax_entropy`).
Correct variants are valid but written differently from full_marks (scores by `torch.inner`, a 0-dim
`rsqrt` scale in the input dtype, `torch.special.softmax`, `torch.mm`; dots by `torch.linalg.vecdot`, a
multiplied inverse root and `torch.var_mean(correction=1)`; entropy by the log-sum-exp identity with an
`einsum` over `...t`, a table with broadcast products and `torch.std(correction=1)`; heads by `unflatten`
and `movedim`, merged by `torch.cat(..., -1)` and `torch.linalg.matmul`; answers by indexing, `chr(ord(...))`
and `strip`). Every variant was checked with a throwaway script under /tmp/w55-scaled-attention/: each
notebook was built with harness.build_notebook and run top to bottom (all code cells but otter's
`grader.check`), then its functions were compared with plain torch (`torch.softmax`,
`F.scaled_dot_product_attention`, `nn.MultiheadAttention` loaded with the same weights, the notebook's own
entropy formula and lesson table, Var(q.k) = d_k) on several shapes (the trace's 3x4, T_q != T_k, d_v != d_k,
d_k = 13, T_q = 1, n_heads = 1..4) in float64 and float32, checking dtypes and that inputs are not modified;
every correct one agrees everywhere and every wrong one differs where the notebook's checks look, only in
its `where`, and none crashes in the notebook's own display cells.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_inner_rsqrt_same_dtype_special_softmax_mm": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    inv_root = torch.rsqrt(torch.tensor(float(d_k), dtype=Q.dtype))   # 0-dim, same dtype as the inputs
    scores = torch.inner(Q, K) * inv_root                              # (T_q, T_k): every query . every key
    weights = torch.special.softmax(scores, dim=-1)
    output = torch.mm(weights, V)
    return output, weights
'''},
    "variance_vecdot_inverse_root_var_mean_correction": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    queries = torch.randn(n_samples, d_k, generator=generator)
    keys = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.linalg.vecdot(queries, keys)           # one dot product per pair
    factor = d_k ** -0.5 if scaled else 1.0
    var, _mean = torch.var_mean(dots * factor, correction=1)
    return float(var)
'''},
    "entropy_logsumexp_identity_einsum_table_broadcast_products": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    # H = log sum_j exp(s_j) - sum_j p_j s_j  (exact, no log of a zero probability)
    return torch.logsumexp(logits, dim=-1) - torch.einsum("...t,...t->...", p, logits)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    out = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (k * q).sum(dim=1)                        # the 5 scores q . k_j
        scaled = raw * d ** -0.5
        out.append({
            "d": d,
            "raw_std": torch.std(raw, correction=1).item(),
            "scaled_std": torch.std(scaled, correction=1).item(),
            "H_raw": softmax_entropy(raw).item(),
            "H_scaled": softmax_entropy(scaled).item(),
        })
    return out
'''},
    "mha_unflatten_movedim_loop_cat_last_linalg_matmul": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.size(-1)
    d_k = d_model // n_heads
    # (T, d_model) -> (T, n_heads, d_k) -> (n_heads, T, d_k): head h holds columns h*d_k .. (h+1)*d_k - 1
    Qh, Kh, Vh = ((X @ W).unflatten(1, (n_heads, d_k)).movedim(1, 0) for W in (W_Q, W_K, W_V))
    outs = []
    for h in range(n_heads):
        o, _ = attention(Qh[h], Kh[h], Vh[h], d_k)
        outs.append(o)
    return torch.linalg.matmul(torch.cat(outs, dim=-1), W_O)
'''},
    "answers_indexed_chr_ord_stripped": {
        "q5_answer": '''
q5_answer = "ABCD"[2]                       # C: Var(q.k) = d_k
''',
        "q6_answer": '''
q6_answer = chr(ord("A"))                   # A: softmax-weighted average of the rows of X
''',
        "q7_answer": '''
q7_answer = " D ".strip()                   # D: a soft, differentiable lookup
'''},
}


WRONG = {
    "q1_scores_by_linalg_vecdot_pair_rows_not_all_pairs": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.linalg.vecdot(Q, K) / math.sqrt(d_k)     # query . key
    weights = F.softmax(scores, dim=-1)
    output = weights @ V
    return output, weights
'''}, {"mistake": "torch.linalg.vecdot dots matching rows (query i with key i), giving one score per row, "
                   "shape (T,), instead of every query against every key (Q @ K.T, shape (T_q, T_k)); the "
                   "weights and output lose a dimension, and T_q != T_k fails to broadcast.",
       "where": ["q1", "q8"]}),

    "q1_scores_into_preallocated_default_float32_out_buffer": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.empty(Q.shape[0], K.shape[0])            # preallocated score buffer
    torch.matmul(Q, K.T, out=scores)
    scores /= math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The score buffer is made with torch.empty in the default dtype (float32) and filled with "
                   "matmul(..., out=scores); float64 inputs then fail ('Expected out tensor to have dtype "
                   "double, but got float'); the buffer should follow the inputs (dtype=Q.dtype) or not be "
                   "preallocated. float32 inputs are fine.",
       "where": ["q1", "q8"]}),

    "q1_log_domain_softmax_logsumexp_added_not_subtracted": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    log_weights = scores + torch.logsumexp(scores, dim=-1, keepdim=True)   # log-softmax
    weights = log_weights.exp()
    return weights @ V, weights
'''}, {"mistake": "In the log-domain softmax the row's log-sum-exp is ADDED to the scores instead of "
                   "subtracted (log softmax = s - logsumexp(s)); the 'weights' are exp(s) * sum exp(s), not "
                   "normalised (rows sum to (sum exp s)^2), so weights and output are wrong.",
       "where": ["q1", "q8"]}),

    "q2_sum_of_iid_terms_taken_as_d_k_times_one_term": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # the d_k terms q_i k_i are identically distributed, so q.k is d_k copies of one term
    q1 = torch.randn(n_samples, generator=generator)
    k1 = torch.randn(n_samples, generator=generator)
    dots = d_k * q1 * k1
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "q.k is a SUM of d_k independent terms, but it is computed as d_k times ONE term, "
                   "confusing Var(X_1 + ... + X_d) = d Var(X) with Var(d X) = d^2 Var(X); the raw variance "
                   "comes out near d_k^2 (about 256 at d_k = 16) and the scaled one near d_k instead of 1.",
       "where": ["q2"]}),

    "q4_entropy_exp_in_place_turns_log_probs_into_probs": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp_() * log_p).sum(dim=-1)      # exp_ in place: no extra buffer for p


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
'''}, {"mistake": "log_p.exp_() overwrites log_p with p in place before the right operand is read, so the "
                   "product is p * p and the function returns -sum p^2 instead of -sum p ln p (a uniform row "
                   "of 5 gives -0.2, not ln 5; a saturated row gives -1, not 0); the table's entropies are "
                   "wrong too.",
       "where": ["q4"]}),

    "q4_table_scores_computed_in_bfloat16": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d).bfloat16(); k = torch.randn(5, d).bfloat16()   # mixed precision, as in training
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The draws are cast to bfloat16 (about 3 significant digits) before the scores, stds and "
                   "entropies are computed, so the table no longer reproduces the float32 experiment (d = 4 "
                   "raw_std 1.234 instead of 1.240, d = 256 H_scaled 1.0625 instead of 1.065).",
       "where": ["q4"]}),

    "q5_answer_probe_polyfit_intercept_read_as_slope": ({"q5_answer": '''
# fit log Var(q.k) against log d_k: the slope is the power of d_k
import numpy as np
_g5 = torch.Generator().manual_seed(0)
_dims5 = [4, 16, 64]
_vars5 = []
for _d5 in _dims5:
    _q5 = torch.randn(20000, _d5, generator=_g5)
    _k5 = torch.randn(20000, _d5, generator=_g5)
    _vars5.append((_q5 * _k5).sum(dim=1).var().item())
_fit5 = np.polyfit(np.log(_dims5), np.log(_vars5), 1)
_power5 = _fit5[1]                                   # slope of the fitted line
_options5 = {"A": 0.0, "B": 0.5, "C": 1.0, "D": 2.0}   # Var ~ d_k ** power
q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _power5))
'''}, {"mistake": "numpy.polyfit returns the coefficients highest power first, so for a degree-1 fit [0] is "
                   "the slope and [1] the intercept; reading [1] takes the intercept (about 0, since "
                   "log Var = 1 * log d_k + 0) as the power and answers 'A' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_q_transpose_k_taken_as_outer_product": ({"q5_answer": '''
# measure Var(q^T k) directly from the formula, q and k as rows of shape (1, d_k) as in the notebook
_g5 = torch.Generator().manual_seed(0)
_var5 = {}
for _d5 in (4, 16):
    _q5 = torch.randn(4000, 1, _d5, generator=_g5)
    _k5 = torch.randn(4000, 1, _d5, generator=_g5)
    _qtk5 = _q5.transpose(1, 2) @ _k5                # q^T k
    _var5[_d5] = _qtk5.var().item()
_growth5 = _var5[16] / _var5[4]                      # d_k went x4
_options5 = {"A": 1.0, "B": 2.0, "C": 4.0, "D": 16.0}
q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _growth5))
'''}, {"mistake": "q^T k in the question is for COLUMN vectors (an inner product, a number); with row "
                   "vectors of shape (1, d_k), q.T @ k is the d_k x d_k outer product, whose entries q_i k_j "
                   "each have variance 1 at every d_k, so the growth looks like x1 and the cell answers 'A' "
                   "instead of 'C'.",
       "where": ["q5"]}),

    "q6_answer_check_row_slice_softmaxed_over_dim0": ({"q6_answer": '''
# check option A row by row on a small example: Q = K = V = X
_g6 = torch.Generator().manual_seed(0)
_X6 = torch.randn(5, 4, generator=_g6)
_out6, _ = attention(_X6, _X6, _X6, 4)
_rows6 = []
for _i6 in range(_X6.shape[0]):
    _s6 = _X6[_i6:_i6 + 1] @ _X6.T / math.sqrt(4)     # scores of token i against every token j
    _w6 = torch.softmax(_s6, dim=0)                   # softmax over j
    _rows6.append(_w6 @ _X6)
_expected6 = torch.cat(_rows6)
if torch.allclose(_out6, _expected6, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out6, _X6.mean(dim=0).expand_as(_out6), atol=1e-5):
    q6_answer = "D"
elif torch.allclose(_out6, _X6, atol=1e-5):
    q6_answer = "B"
else:
    q6_answer = "C"
'''}, {"mistake": "The slice X[i:i+1] keeps a leading axis of size 1, so the scores have shape (1, T) and "
                   "softmax over dim 0 normalises each single entry to 1 instead of normalising over j (dim "
                   "-1); the expected row becomes the plain SUM of the rows, option A seems to fail, and the "
                   "cell answers 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q6_answer_d_tested_only_through_the_mean_of_outputs": ({"q6_answer": '''
# D would make every output row the mean of X, so the output rows must average to X's mean: test D first
_g6 = torch.Generator().manual_seed(0)
_X6 = torch.randn(6, 16, generator=_g6)
_out6, _ = attention(_X6, _X6, _X6, 16)
if torch.allclose(_out6.mean(dim=0), _X6.mean(dim=0), atol=0.1):
    q6_answer = "D"
else:
    q6_answer = "A"
'''}, {"mistake": "The probe tests D only through a consequence (the average output row equals the mean of "
                   "X) that the weighted average of option A also nearly satisfies (the columns of the "
                   "weight matrix sum to about 1), instead of checking that every output row equals the "
                   "mean; the test passes and the cell answers 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_probe_changed_values_are_an_alias": ({"q7_answer": '''
# D says every value contributes: change the value of the LEAST-weighted key and see whether the output moves
_g7 = torch.Generator().manual_seed(0)
_q7 = torch.randn(1, 3, generator=_g7)
_K7 = torch.randn(4, 3, generator=_g7)
_V7 = torch.randn(4, 2, generator=_g7)
_, _w7 = attention(_q7, _K7, _V7, 3)
_worst7 = int(_w7[0].argmin())
_V7_changed = _V7                                     # copy of the values
_V7_changed[_worst7] += 10.0
_before7, _ = attention(_q7, _K7, _V7, 3)
_after7, _ = attention(_q7, _K7, _V7_changed, 3)
q7_answer = "C" if torch.allclose(_before7, _after7) else "D"
'''}, {"mistake": "`_V7_changed = _V7` does not copy the tensor (it needs .clone()), so the in-place change "
                   "also changes the original values; 'before' and 'after' are computed from the same "
                   "tensor, the output cannot move, and the cell answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_sort_probe_sorts_each_key_coordinate_separately": ({"q7_answer": '''
# B says attention only works with sorted keys: sort the keys (values follow their keys) and compare
_g7 = torch.Generator().manual_seed(0)
_q7 = torch.randn(1, 3, generator=_g7)
_K7 = torch.randn(5, 3, generator=_g7)
_V7 = torch.randn(5, 2, generator=_g7)
_out7, _ = attention(_q7, _K7, _V7, 3)
_K7_sorted, _idx7 = torch.sort(_K7, dim=0)            # keys in sorted order
_V7_sorted = _V7[_idx7[:, 0]]
_out7_sorted, _ = attention(_q7, _K7_sorted, _V7_sorted, 3)
# the order of the keys must not matter for a lookup; if it does, sorting is required
q7_answer = "D" if torch.allclose(_out7, _out7_sorted, atol=1e-6) else "B"
'''}, {"mistake": "torch.sort(K, dim=0) sorts every coordinate column on its own, which scrambles the "
                   "key vectors instead of reordering whole rows (that needs K[idx] with idx from one "
                   "column's argsort); the 'sorted' keys are different keys, the output changes, and the "
                   "cell answers 'B' instead of 'D'.",
       "where": ["q7"]}),

    "q8_heads_cut_by_unfold_with_step_one": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    # windows of d_k columns: (T, n_windows, d_k)
    Qs, Ks, Vs = Q.unfold(1, d_k, 1), K.unfold(1, d_k, 1), V.unfold(1, d_k, 1)
    heads = []
    for h in range(Qs.shape[1]):
        out_h, _ = attention(Qs[:, h], Ks[:, h], Vs[:, h], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Tensor.unfold(1, d_k, 1) takes windows with step 1, so they overlap: there are "
                   "d_model - d_k + 1 'heads' instead of n_heads (the step must be d_k); the concatenation "
                   "is wider than d_model and the product with W_O fails whenever n_heads > 1.",
       "where": ["q8"]}),

    "q8_head_weight_blocks_viewed_without_permute": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    # per-head projection matrices, (n_heads, d_model, d_k)
    Wq = W_Q.view(n_heads, d_model, d_k)
    Wk = W_K.view(n_heads, d_model, d_k)
    Wv = W_V.view(n_heads, d_model, d_k)
    heads = []
    for h in range(n_heads):
        out_h, _ = attention(X @ Wq[h], X @ Wk[h], X @ Wv[h], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "W.view(n_heads, d_model, d_k) cuts the row-major weights into consecutive chunks of "
                   "memory, not into column blocks: head h's matrix is not W[:, h*d_k:(h+1)*d_k] (that "
                   "needs view(d_model, n_heads, d_k).permute(1, 0, 2)); shapes are right but the heads use "
                   "scrambled weights whenever n_heads > 1.",
       "where": ["q8"]}),
}
