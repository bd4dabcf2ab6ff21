"""Fifty-sixth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the question texts and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k, d_v != d_k, "use the
d_k you are given", float32 and float64 kept; q2 within 10% at n_samples = 10000, a Python float drawn from the
generator, reproducible for equally seeded generators; `softmax_entropy` over the last dim for any `(..., T)`,
0 on a saturated row; `entropy_table(dims, seed=0)`; q5..q7 one letter as a string; a looping
`multi_head_attention` with `X @ W` projections), `tests/heldout/harness.py`, blind55.py in full for the format,
and only the variant NAMES of blind.py .. blind55.py, so that their mistakes are not repeated in the same form.
The grader was not run on this set.

Focus of the round: habits carried over from elsewhere and PyTorch semantics that surprise, spread over every
auto-graded question (q1 x4, q2 x2, q4 x2, q5 x1, q6 x2, q7 x2, q8 x1; q3 is a hand-graded markdown answer
with no code cell to replace): a Keras/TF "everything has a batch axis" habit (bmm on unsqueezed inputs, the
axis never removed: wrong shapes, and q8 breaks); a sanity check built with default-dtype `torch.ones`, which
`torch.allclose` refuses to compare with float64 ("Double did not match Float"); NumPy's implicit-mode
`einsum` ("qd,kd" with no "->" sorts the output letters, giving (T_k, T_q)); a pure-Python dot-product loop
with `.item()` whose `torch.tensor(...)` comes back in the default float32; NumPy-style broadcasting of a
single 1-D key against every query; the legacy `torch.FloatTensor(...).normal_()` constructor, which draws
from the global RNG and ignores the generator; NumPy's `np.dot` habit as `torch.dot` (1-D only); TensorFlow's
last-axis `softmax_cross_entropy_with_logits` ported as `F.cross_entropy`, whose class axis is dim 1; Python's
builtin `sum` over a 2-D tensor (adds rows, not coordinates); the implicit softmax dim of a 3-D tensor (dim 0);
a MATLAB tokens-as-columns layout; `torch.max(dim)` unpacked as (index, value); a float-to-uint8 "mask" (old
PyTorch masks) that truncates every weight to 0; NumPy's `.T` on a 3-D stack, which reverses every axis.

Public material used (nothing copied verbatim): the numpy.einsum documentation (numpy.org) and the
einsum-codegen page on docs.rs that quotes it ("in implicit mode ... the axes of the output are reordered
alphabetically"; 'ij,jh' returns the transpose), for the q1 einsum slip; GitHub issues amdegroot/ssd.pytorch
#104 and #114, natanielruiz/deep-head-pose #118 ("dim is 0, 1, or 2?" under `F.softmax(yaw)`) and
Shaoli-Huang/SnapMix #5, real code calling F.softmax with no dim, for the q6 batched probe; the youtip.online
page "PyTorch torch.dot" ("unlike NumPy's np.dot ... strictly 1D") and the rschandrastechblog post "torch.dot
does not broadcast", for the q4 dot slip; tensorflow/tensorflow issue #8414 and pull request #21933
(softmax_cross_entropy_with_logits works on the last axis, dim=-1), against PyTorch's F.cross_entropy with the
classes on dim 1, for the q4 cross-entropy port. The other behaviours were reproduced locally with torch 2.13
rather than searched: torch.allclose(float64, float32) raises "Double did not match Float"; torch.tensor of
Python floats is float32; the legacy FloatTensor(...).normal_() ignores any generator; builtin sum over a 2-D
tensor adds its rows; torch.max(x, dim) returns (values, indices); float -> uint8 truncates; .T on a (2, 3, 4)
tensor gives (4, 3, 2).

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slips list q8
too; the q5..q7 probes call the untouched full-marks `attention`; the q4 slips replace the whole q4 cell,
which defines both functions, changing only `softmax_entropy`, which `entropy_table` calls on 1-D rows, where
both q4 slips still give the right numbers). None crashes in the notebook's own display cells (the trace is
float32 and square; the q2 loop and the q4 table use 1-D rows). Correct variants are valid but written
differently from full_marks (explicit-output `einsum` and the `softmax` method; dot products by `bmm` with a
`correction=1` variance; entropy through `torch.distributions.Categorical(logits=...)` and a table with
`torch.mv`; Flax-style per-head weight views `(d_model, n_heads, d_k)` with `einsum`, merged by `stack` on
dim 1 and `flatten`; answers through dict lookups). Every variant was checked with a throwaway script under
/tmp/w56-scaled-attention/: each notebook was built with harness.build_notebook and run top to bottom (all
code cells but otter's init and `grader.check`), then its functions were compared with plain torch
(`torch.softmax`, `F.scaled_dot_product_attention`, `nn.MultiheadAttention` loaded with the same weights, the
notebook's own entropy formula and lesson table, Var(q.k) = d_k) on several shapes (the trace's 3x4, T_q !=
T_k, d_v != d_k, d_k = 13, T_q = 1, batches (..., T) of 1 to 3 dims, n_heads = 1..4) in float64 and float32,
checking dtypes, reproducibility and that inputs are not modified; every correct one agrees everywhere and
every wrong one differs (or crashes) where the notebook's checks look, only in its `where`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_explicit_einsum_outputs_softmax_method": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)   # output letters spelled out: (T_q, T_k)
    weights = scores.softmax(dim=-1)
    output = torch.einsum("qk,kv->qv", weights, V)
    return output, weights
'''},
    "variance_bmm_row_dots_var_correction_one": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()   # (n, 1, d) @ (n, d, 1) -> n dot products
    if scaled:
        dots = dots * (1.0 / math.sqrt(d_k))
    return float(torch.var(dots, dim=0, correction=1))
'''},
    "entropy_categorical_logits_keyword_table_mv": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # logits= by keyword: the first positional argument of Categorical is probs
    return torch.distributions.Categorical(logits=logits).entropy()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mv(k, q[0])                 # the 5 scores k_j . q
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d,
                         raw_std=float(raw.std(dim=0)),
                         scaled_std=float(scaled.std(dim=0)),
                         H_raw=float(softmax_entropy(raw)),
                         H_scaled=float(softmax_entropy(scaled))))
    return rows
'''},
    "mha_flax_style_weight_views_einsum_stack_flatten": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    # Flax DenseGeneral layout: kernel (d_model, n_heads, d_k); column h*d_k + j is [:, h, j]
    Qh = torch.einsum("td,dhk->htk", X, W_Q.reshape(d_model, n_heads, d_k))
    Kh = torch.einsum("td,dhk->htk", X, W_K.reshape(d_model, n_heads, d_k))
    Vh = torch.einsum("td,dhk->htk", X, W_V.reshape(d_model, n_heads, d_k))
    outs = [attention(Qh[h], Kh[h], Vh[h], d_k)[0] for h in range(n_heads)]
    concat = torch.stack(outs, dim=1).flatten(1)     # (T, n_heads, d_k) -> (T, d_model), head 0 first
    return concat @ W_O
'''},
    "answers_from_dict_lookups": {
        "q5_answer": '''
q5_answer = {"variance of q.k": "C"}["variance of q.k"]      # C: d_k
''',
        "q6_answer": '''
q6_answer = {"weighted average": "A", "itself": "B"}["weighted average"]
''',
        "q7_answer": '''
q7_answer = dict(soft_lookup="D")["soft_lookup"]            # D: softmax-weighted mix of every value
'''},
}


WRONG = {
    "q1_batch_axis_added_for_bmm_never_removed": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # batched as in Keras / d2l: (batch, T, d) with a batch of one
    scores = torch.bmm(Q.unsqueeze(0), K.T.unsqueeze(0)) / math.sqrt(d_k)   # (1, T_q, T_k)
    weights = F.softmax(scores, dim=-1)
    output = torch.bmm(weights, V.unsqueeze(0))                             # (1, T_q, d_v)
    return output, weights
'''}, {"mistake": "A batch axis of size 1 is added (unsqueeze(0)) to use bmm, Keras-style, and never taken "
                   "off again: output is (1, T_q, d_v) and weights (1, T_q, T_k) instead of 2-D tensors; the "
                   "numbers are right but the shapes are not, and multi_head_attention's concatenation and "
                   "product with W_O then fail.",
       "where": ["q1", "q8"]}),

    "q1_row_sum_check_against_default_float32_ones": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    assert torch.allclose(weights.sum(dim=-1), torch.ones(Q.shape[0])), "rows must sum to 1"
    return weights @ V, weights
'''}, {"mistake": "The sanity check compares the row sums with torch.ones(T_q), made in the default dtype "
                   "(float32); torch.allclose does not promote, so float64 inputs raise 'Double did not match "
                   "Float' and the function never returns (the ones need dtype=weights.dtype, or no check). "
                   "float32 inputs are fine.",
       "where": ["q1", "q8"]}),

    "q1_einsum_implicit_output_sorted_alphabetically": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.einsum("qd,kd", Q, K) / math.sqrt(d_k)    # sum over d: one score per (query, key)
    weights = F.softmax(scores, dim=-1)
    output = weights @ V
    return output, weights
'''}, {"mistake": "einsum in implicit mode (no '->') orders the output letters alphabetically, so 'qd,kd' "
                   "gives 'kq', the TRANSPOSED score matrix (T_k, T_q); the softmax then normalises over the "
                   "queries, and weights @ V mixes the wrong rows (square inputs: silently wrong; T_q != T_k: "
                   "a shape error). It needs 'qd,kd->qk'.",
       "where": ["q1", "q8"]}),

    "q1_scores_from_item_loop_rebuilt_in_default_float32": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # one dot product per (query, key) pair
    scores = torch.tensor([[torch.dot(q, k).item() for k in K] for q in Q]) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The scores are collected as Python floats (.item()) and rebuilt with torch.tensor, which "
                   "uses the default dtype float32 whatever the inputs were; with float64 inputs the weights "
                   "are float32 and weights @ V fails with a dtype mismatch (it needs dtype=Q.dtype, or no "
                   "round trip through Python numbers).",
       "where": ["q1", "q8"]}),

    "q2_one_key_broadcast_against_every_query": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(d_k, generator=generator)          # broadcasts against every query
    dots = q @ k
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "Only ONE key vector is drawn and broadcast against all n_samples queries, so the samples "
                   "are not independent pairs: the estimate is the conditional variance |k|^2 (a chi-square "
                   "draw with d_k degrees of freedom), not E|k|^2 = d_k; it misses d_k (and 1 when scaled) "
                   "by far more than 10% for most seeds.",
       "where": ["q2"]}),

    "q2_legacy_float_tensor_normal_ignores_generator": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.FloatTensor(n_samples, d_k).normal_()
    k = torch.FloatTensor(n_samples, d_k).normal_()
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The legacy torch.FloatTensor(...).normal_() idiom fills the tensors from the GLOBAL random "
                   "generator and never uses `generator` (it needs normal_(generator=generator) or "
                   "torch.randn(..., generator=generator)); two calls with equally seeded generators give "
                   "different numbers, and the caller's generator is never advanced.",
       "where": ["q2"]}),

    "q4_entropy_torch_dot_only_handles_one_row": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -torch.dot(p, torch.log(p + 1e-9))          # H = -p . log p


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
'''}, {"mistake": "The row sum is written as torch.dot(p, log p), as with np.dot on vectors, but torch.dot "
                   "only accepts 1-D tensors: a single row works (so the table is right), while any batch of "
                   "rows of shape (..., T) raises '1D tensors expected' instead of giving one entropy per row "
                   "(it needs (p * log p).sum(-1)).",
       "where": ["q4"]}),

    "q4_entropy_as_cross_entropy_class_axis_dim1": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # H(p) = cross-entropy of the distribution with itself (soft labels), one value per row
    return F.cross_entropy(logits, p, reduction="none")


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
'''}, {"mistake": "Ported from TensorFlow's softmax_cross_entropy_with_logits (classes on the last axis), but "
                   "F.cross_entropy takes the classes on dim 1 for inputs of 3 or more dims: for (..., T) "
                   "batches with two or more leading dims it normalises over the wrong axis and returns the "
                   "wrong shape and values (1-D and 2-D inputs happen to be right, so the table is).",
       "where": ["q4"]}),

    "q5_answer_probe_builtin_sum_adds_rows": ({"q5_answer": '''
# measure how Var(q.k) grows when d_k goes x4
_g5 = torch.Generator().manual_seed(0)
_var5 = {}
for _d5 in (64, 256):
    _q5 = torch.randn(4000, _d5, generator=_g5)
    _k5 = torch.randn(4000, _d5, generator=_g5)
    _dots5 = sum(_q5 * _k5)                         # q . k for every pair
    _var5[_d5] = _dots5.var().item()
_growth5 = _var5[256] / _var5[64]
_options5 = {"A": 1.0, "B": 2.0, "C": 4.0, "D": 16.0}   # growth of each answer when d_k goes x4
q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _growth5))
'''}, {"mistake": "Python's builtin sum iterates over the FIRST axis, so sum(q * k) on (n, d_k) tensors adds "
                   "the n sample rows and returns d_k sums over samples, not n dot products; each has "
                   "variance n whatever d_k is, the growth looks like x1 and the cell answers 'A' instead of "
                   "'C' (it needs (q * k).sum(dim=1)).",
       "where": ["q5"]}),

    "q6_answer_probe_batched_softmax_implicit_dim_zero": ({"q6_answer": '''
# check on a batch of one sequence, (batch, T, d) as in Keras: Q = K = V = X
_X6 = torch.randn(1, 5, 4, generator=torch.Generator().manual_seed(0))
_s6 = _X6 @ _X6.transpose(1, 2) / math.sqrt(4)        # (1, T, T) scores
_w6 = F.softmax(_s6)                                  # weights over the keys
_out6 = _w6 @ _X6
if torch.allclose(_w6, _w6[..., :1].expand_as(_w6)):  # every key gets the same weight: plain mean
    q6_answer = "D"
elif torch.allclose(_out6, _X6):
    q6_answer = "B"
else:
    q6_answer = "A"
'''}, {"mistake": "F.softmax without dim on a 3-D tensor picks dim 0 (the legacy implicit rule for 0-, 1- "
                   "and 3-D inputs), here the batch axis of size 1, so every weight is exactly 1; the probe "
                   "sees equal weights for every key and answers 'D' instead of 'A' (it needs dim=-1).",
       "where": ["q6"]}),

    "q6_answer_probe_tokens_as_columns_matlab_layout": ({"q6_answer": '''
# tokens as columns, as in the MATLAB course notes: X is (d, T), token j is X[:, j]
_d6, _T6 = 4, 6
_X6 = torch.randn(_d6, _T6, generator=torch.Generator().manual_seed(1))
_out6, _ = attention(_X6, _X6, _X6, _d6)                    # Q = K = V = X
_w6 = torch.softmax(_X6.T @ _X6 / math.sqrt(_d6), dim=-1)   # w[i, j] = softmax_j(x_i . x_j / sqrt(d))
_A6 = _X6 @ _w6.T                                           # column i = sum_j w[i, j] x_j
if torch.allclose(_out6, _A6, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out6, _X6.mean(dim=1, keepdim=True).expand_as(_X6), atol=1e-5):
    q6_answer = "D"
elif torch.allclose(_out6, _X6, atol=1e-5):
    q6_answer = "B"
else:
    q6_answer = "C"
'''}, {"mistake": "The probe stores tokens as COLUMNS (MATLAB layout), but attention takes one token per "
                   "ROW, so it mixes the d feature rows instead of the T tokens; the output cannot match "
                   "option A's column-wise mix, none of the checks holds, and the cell falls through to 'C' "
                   "instead of 'A' (X must be (T, d)).",
       "where": ["q6"]}),

    "q7_answer_probe_max_pair_unpacked_index_first": ({"q7_answer": '''
# C says only the best key counts: see whether the best key takes (almost) all the weight
_g7 = torch.Generator().manual_seed(3)
_q7 = torch.randn(1, 4, generator=_g7)
_K7 = torch.randn(6, 4, generator=_g7)
_V7 = torch.randn(6, 3, generator=_g7)
_, _w7 = attention(_q7, _K7, _V7, 4)
_best_key7, _best_weight7 = torch.max(_w7[0], dim=0)
q7_answer = "C" if _best_weight7 >= 0.99 else "D"
'''}, {"mistake": "torch.max(x, dim) returns (values, indices), values first; unpacking it as (index, "
                   "weight) puts the argmax INDEX (here 1 or more) in the 'weight', which passes the >= 0.99 "
                   "test, so the cell answers 'C' instead of 'D' (the largest weight is well below 1).",
       "where": ["q7"]}),

    "q7_answer_probe_weights_cast_to_uint8_mask_truncates": ({"q7_answer": '''
# D says every key contributes: count the keys that get some weight (uint8 mask, as masks used to be)
_g7 = torch.Generator().manual_seed(3)
_q7 = torch.randn(1, 4, generator=_g7)
_K7 = torch.randn(6, 4, generator=_g7)
_V7 = torch.randn(6, 3, generator=_g7)
_, _w7 = attention(_q7, _K7, _V7, 4)
_used7 = _w7[0].to(torch.uint8)                      # 1 where a key is used
q7_answer = "D" if int(_used7.sum()) == _K7.shape[0] else "C"
'''}, {"mistake": "Casting the float weights to uint8 does not make a 'weight > 0' mask: it truncates, and "
                   "every weight below 1 becomes 0, so no key seems used and the cell answers 'C' instead of "
                   "'D' (the mask is _w7 > 0, a bool tensor).",
       "where": ["q7"]}),

    "q8_heads_stack_T_reverses_every_axis": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    stacked = torch.stack(heads)                    # (n_heads, T, d_k)
    concat = stacked.T.reshape(T, d_model)          # heads side by side: (T, n_heads, d_k) -> (T, d_model)
    return concat @ W_O
'''}, {"mistake": "On a 3-D tensor .T reverses ALL the axes (as NumPy's .T does), giving (d_k, T, n_heads), "
                   "not (T, n_heads, d_k); the reshape to (T, d_model) then scrambles tokens, heads and "
                   "features (it needs stacked.transpose(0, 1) or torch.cat(heads, dim=1)). Shapes are right, "
                   "values wrong for every n_heads.",
       "where": ["q8"]}),
}
