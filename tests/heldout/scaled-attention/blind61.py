"""Sixty-first blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements and stub cells) and the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written `Q @ K.T / d_k ** 0.5`
with a row-sum assert; q2: two `randn` draws from the generator, `(q * k).sum(1)`, `.var().item()`; q4:
`softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in the same cell; q5..q7 one letter each;
q8 a loop over the heads calling the 2-D `attention` on column slices, `X @ W` projections), `tests/heldout/
harness.py`, blind60.py in full for the format, and only the variant NAMES of the earlier blind*.py sets, so
that their mistakes are not repeated in the same form. The grader was not run on this set.

Focus of the round: A LIBRARY'S DOCUMENTED BEHAVIOUR MISREAD. Each wrong variant is what the student meant
to write, but one PyTorch / Python call does not do what they believed: in q1, `torch.divide(...,
rounding_mode="trunc")` taken to matter only for integer tensors (it truncates float quotients too, so the
scaled scores become whole numbers) and an implicit-mode `torch.einsum("qk,kd", weights, V)` (no '->': the
output labels are sorted alphabetically, 'dq', so the output comes back transposed); in q2, `~scaled` used to
negate a Python bool (bitwise NOT: ~False == -1 and ~True == -2, both truthy, so the unscaled branch always
runs) and `torch.einsum("nd,nd", q, k)` meant as one dot per sample (implicit mode sums every repeated label:
one number, variance NaN); in q4, `terms.masked_fill(p == 0, 0.0)` whose result is thrown away (the
out-of-place `masked_fill` returns a new tensor; `masked_fill_` changes in place), a log guard clamping at
`torch.finfo(dtype).min` read as "smallest positive float" (it is the most negative finite number; `tiny` is
the smallest positive normal), and default dims `4 ** torch.arange(1, 4)` meant to reach 256 (the end is
exclusive: 4, 16, 64); q5 answered from a probe that matches a measured variance to the options with
`torch.allclose` at its default rtol=1e-05 / atol=1e-08 (nothing sampled matches, the fallback is "A"); q6
answered from an `nn.MultiheadAttention` probe fed (1, T, d) as (batch, tokens, features) while `batch_first`
defaults to False (T sequences of length 1: every token attends only to itself, "B"); q7 answered from a
one-query `F.scaled_dot_product_attention(..., is_causal=True)` probe (the causal mask is aligned top-left, so
the single query sees only key 0 and the output is exactly values[0], "C"); and in q8 a head buffer made with
`.expand` and written in place (the rows share memory: RuntimeError), a column-to-head map from
`torch.arange(n_heads).repeat(d_k)` meant as `repeat_interleave` (tiling gives strided columns h, h + n_heads,
...), heads moved to the front with `.T` on the 3-D view (reverses every dim: (d_k, n_heads, T)), and a head's
columns taken with `torch.arange(h * d_k, (h + 1) * d_k - 1)` copied from the question's inclusive range
(every head loses a column, `concat @ W_O` fails). Spread: q1 x2, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x4
(q3 is a hand-graded markdown answer with no code cell to replace). Mix: crashes (q8 expand, q8 `.T`, q8
arange, q1 einsum in q8), silently wrong values (q1 trunc, q2 tilde, q8 repeat, q5..q7), NaN (q2 einsum, q4
masked_fill and finfo.min), a wrong shape (q1 einsum), a missing row (q4 dims).

Public material used (nothing copied verbatim): pytorch/pytorch issues #103082 ("Ambiguity in causal-mask in
scaled_dot_product_attention": with L = 1 the `tril` mask is [True, False, ...]), #115111 (a single last query
with `is_causal=True` "only attends to the first input token") and #126873 (the is_causal upper-left wording),
with ml-explore/mlx #2835 / #2967 (PyTorch aligns top-left) and nanoGPT-style `F.scaled_dot_product_attention(q,
k, v, is_causal=True)` calls, for q7; pytorch/pytorch #63560 and #122959 ("I forgot to set batch_first=True"),
kyegomez/movie-gen #8 and karttikeya/minREV #4 (inputs given as (N, L, E) to a default `nn.MultiheadAttention`)
for q6; pytorch/pytorch #4664, #7509, #42726, #95989 and #957 (in-place writes into an expanded tensor: "Don't do
in-place on expanded tensors", "more than one element of the written-to tensor refers to a single memory
location") for q8's expand buffer; pytorch/pytorch PR #64180 and the warnings quoted in datamol-io/graphium #295
and deepset-ai/haystack #9393 (`x.T` on tensors of dimension other than 2 reverses their shape, deprecated; use
`x.mT`) for q8's `.T`; the runebook.dev and geekdaxue pages on `masked_fill` vs `masked_fill_` ("masked_fill
returns a copy; to change the original use masked_fill_") for q4's discarded result; pytorch/pytorch #44010,
#59526 and PR #63241 (what `finfo.min`, `tiny` and `eps` mean; `min` is "the smallest representable number,
typically -max") and pykeen/pykeen #626 (finfo-based clamps before a log) for q4's clamp; python/cpython PR
#103487 (deprecating `~` on bool: "if you have used ~ as a logical negation, your code is broken") and
DevComPsy/cpm #88 (`~options[...]` on a Python bool, always truthy) for q2's flag; the numpy/ONNX einsum
documentation pages (implicit mode: output labels are those appearing once, alphabetically sorted; repeated
labels are summed) for q1's and q2's einsums; the pytorch.org `torch.tile` page, runebook.dev's
`repeat_interleave` guide and the h563k study notes (`repeat` tiles the whole tensor, `repeat_interleave`
repeats each element) for q8's head map; Stack Overflow 35324893 and runebook.dev's `math.isclose` page
(default tolerances too tight for measured values) for the idea behind q5's default-tolerance match; the
`rounding_mode`, `arange` and `allclose` behaviours were reproduced locally with torch 2.13.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake; `where`
lists the questions that may lose points (q8 calls the student's `attention` once per head, so both q1
mistakes list q8; the q4 variants replace the whole q4 cell, which defines both functions, changing only one
of them; the q5..q7 probes call plain torch only). None raises in the notebook's own display cells (q2's
einsum variant prints nan there; q4's dims variant prints three rows). Correct variants are valid but written
differently from full_marks (`torch.matmul(Q, K.mT) * d_k ** -0.5` with max-shifted exponentials normalised by
`F.normalize(p=1, dim=-1)`; rows dotted with `torch.bmm` and the variance from `torch.var_mean(correction=1)`;
`torch.distributions.Categorical(logits=...).entropy()` with a table built from `torch.inner` and
`torch.std_mean`; heads cut with `unflatten(...).unbind(1)`, 2-D `attention` calls and `stack(...).flatten(1)`;
answers indexed out of "ABCD"). Every variant was checked with a throwaway script under
/tmp/w61-scaled-attention/: each notebook was built with harness.build_notebook and run top to bottom (all
code cells but otter's init and `grader.check`), the notebook's own public test functions were run against it,
and then its functions (with the notebook's globals in place) were compared with plain torch (`torch.softmax`
of the scaled scores, `F.scaled_dot_product_attention` with `scale=1/sqrt(d_k)`, `nn.MultiheadAttention`
without biases loaded with the same weights, a float64 `log_softmax` entropy, the full-marks table) on shapes
with T_q < T_k, T_q > T_k, T_q = 1, d_v != d_k, d_k = 13 and a d_k argument different from the width, entropy
inputs of 1 to 3 dims including T = 1 and saturated rows, tables for the default dims, (8,) and (256, 4) with
seed 3, variances for d_k = 3, 13, 16, 64 scaled and not (type, 10% band, reproducibility), and n_heads = 1,
2, 3, 4, 5 with T = 1, in float64 and float32, also checking dtypes and that `attention` leaves its inputs unchanged; the
correct ones agree everywhere, and every wrong one differs, only in its `where`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


_Q4_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d,
                     "raw_std": raw.std().item(),
                     "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(),
                     "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''

_Q4_ENTROPY = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)

'''


CORRECT = {
    "attention_mT_scores_shifted_exp_l1_normalize": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.mT) * d_k ** -0.5              # .mT swaps only the last two dims
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    weights = F.normalize(shifted.exp(), p=1, dim=-1)         # p=1: divide by the row sum (all > 0)
    return torch.matmul(weights, V), weights
'''},
    "variance_bmm_row_dots_var_mean_correction_divisor_by_flag": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()     # (n, 1, d) @ (n, d, 1) -> (n,)
    divisor = math.sqrt(d_k) if scaled else 1.0
    var, _mean = torch.var_mean(dots / divisor, correction=1)
    return float(var)
'''},
    "entropy_categorical_logits_keyword_table_inner_std_mean": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.distributions.Categorical(logits=logits).entropy()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.inner(q, k)[0]                  # (1, d) inner (5, d) -> (1, 5)
        scaled = raw * d ** -0.5
        raw_std, _ = torch.std_mean(raw)            # unbiased by default
        scaled_std, _ = torch.std_mean(scaled)
        rows.append({"d": d, "raw_std": raw_std.item(), "scaled_std": scaled_std.item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''},
    "mha_unflatten_unbind_heads_2d_calls_flatten_start_dim_one": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    per_head = [(X @ W).unflatten(-1, (n_heads, d_k)).unbind(dim=1) for W in (W_Q, W_K, W_V)]
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(*per_head)]   # n_heads x (T, d_k), head 0 first
    concat = torch.stack(outs, dim=1).flatten(start_dim=1)             # (T, n_heads, d_k) -> (T, d_model)
    return concat @ W_O
'''},
    "answers_indexed_out_of_option_string": {
        "q5_answer": '''
q5_answer = "ABCD"[2]
''',
        "q6_answer": '''
q6_answer = "ABCD"[0]
''',
        "q7_answer": '''
q7_answer = "ABCD"[-1]
'''},
}


WRONG = {
    "q1_scores_divided_with_rounding_mode_trunc": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.divide(Q @ K.T, math.sqrt(d_k), rounding_mode="trunc")   # S / sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The scale is applied with `torch.divide(..., rounding_mode=\"trunc\")`, the keyword read as "
                  "mattering only for integer tensors; for floating tensors it still rounds every quotient "
                  "towards zero, so the scaled scores become whole numbers (the trace's 0.07, 0.10, 0.33 all "
                  "become 0 and the weights turn uniform). Shapes and row sums are right, the weights and output "
                  "are not; q8 calls this attention for every head.",
           "where": ["q1", "q8"]}),

    "q1_value_mix_einsum_without_arrow_puts_d_before_q": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = torch.einsum("qk,kd", weights, V)        # sum over k: one mixed value row per query q
    return out, weights
'''}, {"mistake": "The value mix is written `torch.einsum(\"qk,kd\", weights, V)` with no '->'; in implicit mode "
                  "the output labels are the ones that appear once, in ALPHABETICAL order, so the result is "
                  "indexed 'dq': the output comes back transposed, (d_v, T_q) instead of (T_q, d_v) (its values "
                  "are right). The weights are right; q8's concatenated heads then have the wrong shape.",
           "where": ["q1", "q8"]}),

    "q2_tilde_on_python_bool_flag_always_truthy": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if ~scaled:                                    # not scaled: the raw dot products
        return dots.var().item()
    return (dots / math.sqrt(d_k)).var().item()
'''}, {"mistake": "The flag is negated with `~scaled`, as one negates a bool mask tensor; on a Python bool `~` is "
                  "the integer bitwise NOT (~False == -1, ~True == -2), both truthy, so the unscaled branch is "
                  "always taken and scaled=True returns about d_k instead of about 1.",
           "where": ["q2"]}),

    "q2_einsum_implicit_mode_sums_the_sample_index": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd", q, k)             # one dot product per sample
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The per-sample dot products are written as `torch.einsum(\"nd,nd\", q, k)` without an output "
                  "spec; in implicit mode the output keeps only the labels that appear once, so both n and d are "
                  "summed and the result is ONE number (the sum of all n dot products). Its variance has zero "
                  "degrees of freedom and is NaN for every d_k ('nd,nd->n' was meant).",
           "where": ["q2"]}),

    "q4_entropy_masked_fill_result_discarded": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    terms = p * torch.log(p)
    terms.masked_fill(p == 0, 0.0)                 # 0 * log 0 counts as 0
    return -terms.sum(dim=-1)
''' + _Q4_TABLE}, {"mistake": "The 0 * log 0 = NaN terms are meant to be zeroed with `terms.masked_fill(p == 0, 0.0)`, but "
                  "`masked_fill` (no underscore) returns a new tensor and leaves `terms` unchanged; the result "
                  "is thrown away, so a saturated row (probabilities that underflow to exactly 0) still gives "
                  "NaN instead of 0 (`masked_fill_` or `terms = terms.masked_fill(...)` was meant). Ordinary "
                  "rows are right; entropy_table is the full-marks one.",
           "where": ["q4"]}),

    "q4_entropy_log_clamped_at_finfo_min_not_tiny": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    log_p = torch.log(p.clamp(min=torch.finfo(p.dtype).min))   # keep log away from 0
    return -(p * log_p).sum(dim=-1)
''' + _Q4_TABLE}, {"mistake": "The guard against log(0) clamps the probabilities at `torch.finfo(dtype).min`, read as 'the "
                  "smallest positive float'; `finfo.min` is the most NEGATIVE finite number (-3.4e38 for float32; "
                  "the smallest positive normal number is `finfo.tiny`), so the clamp changes nothing, log(0) is "
                  "-inf and a saturated row still gives 0 * -inf = NaN. Ordinary rows are right; entropy_table "
                  "is the full-marks one.",
           "where": ["q4"]}),

    "q4_table_default_dims_from_arange_end_exclusive": ({"softmax_entropy": _Q4_ENTROPY + '''

def entropy_table(dims=tuple((4 ** torch.arange(1, 4)).tolist()), seed=0):   # 4, 16, 64, 256
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d,
                     "raw_std": raw.std().item(),
                     "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(),
                     "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "The default dims are built as the powers 4 ** torch.arange(1, 4), meant to be 4, 16, 64, 256; "
                  "`torch.arange`'s end is exclusive, so the exponents are 1, 2, 3 and the default table has "
                  "only d = 4, 16, 64: the d = 256 row (the collapsed one) is missing. Explicit dims are right; "
                  "softmax_entropy is the full-marks one.",
           "where": ["q4"]}),

    "q5_answer_allclose_default_tolerance_rejects_every_option": ({"q5_answer": '''
# Check each option against a measured variance (d = 64, 20000 pairs).
_g = torch.Generator().manual_seed(0)
_d = 64
_dots = (torch.randn(20000, _d, generator=_g) * torch.randn(20000, _d, generator=_g)).sum(dim=-1)
_measured = _dots.var().item()
_options = {"B": math.sqrt(_d), "C": float(_d), "D": float(_d) ** 2}
_matches = [letter for letter, value in _options.items()
            if torch.allclose(torch.tensor(_measured), torch.tensor(value))]
q5_answer = _matches[0] if _matches else "A"      # no d-dependent option fits: constant
'''}, {"mistake": "The letter comes from a probe that measures Var(q.k) at d = 64 (about 64) and matches it to the "
                  "options with `torch.allclose` at its default tolerances (rtol=1e-05, atol=1e-08), which no "
                  "sampled estimate can meet; no option 'matches', so the fallback 'A' (1, whatever d_k) is "
                  "chosen instead of 'C'.",
           "where": ["q5"]}),

    "q6_answer_probe_mha_batch_first_default_tokens_read_as_batch": ({"q6_answer": '''
# Probe: nn.MultiheadAttention with identity projections is plain self-attention of X with itself.
torch.manual_seed(0)
_T, _d = 6, 8
_X = torch.randn(1, _T, _d)                          # (batch, tokens, features)
_mha = torch.nn.MultiheadAttention(_d, num_heads=1, bias=False)
with torch.no_grad():
    _mha.in_proj_weight.copy_(torch.eye(_d).repeat(3, 1))
    _mha.out_proj.weight.copy_(torch.eye(_d))
_out, _ = _mha(_X, _X, _X)
q6_answer = "B" if torch.allclose(_out, _X, atol=1e-6) else "A"   # each row came back as its own token
'''}, {"mistake": "The letter comes from a probe with nn.MultiheadAttention fed a (1, T, d) tensor as (batch, "
                  "tokens, features); `batch_first` defaults to False, so the module reads it as (seq=1, "
                  "batch=T, features): every token is its own length-1 sequence and attends only to itself, the "
                  "output equals X and the student answers 'B' instead of 'A'.",
           "where": ["q6"]}),

    "q7_answer_probe_sdpa_is_causal_single_query_sees_key_zero": ({"q7_answer": '''
# Probe: one query against six keys with the fused kernel (called as in nanoGPT's forward).
torch.manual_seed(0)
_keys = torch.randn(1, 6, 16)
_values = torch.randn(1, 6, 4)
_query = torch.randn(1, 1, 16)
_out = F.scaled_dot_product_attention(_query, _keys, _values, is_causal=True)
_one_value = any(torch.allclose(_out[0, 0], _values[0, j]) for j in range(6))
q7_answer = "C" if _one_value else "D"               # the output was exactly one key's value
'''}, {"mistake": "The letter comes from a probe that calls `F.scaled_dot_product_attention(..., is_causal=True)` "
                  "with ONE query and six keys; the causal mask is aligned top-left (tril of an L x S matrix), so "
                  "the single query may see only key 0, the output is exactly values[0], and the student "
                  "concludes attention returns one key's value ('C') instead of 'D'.",
           "where": ["q7"]}),

    "q8_head_buffer_from_expand_written_in_place": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = X.new_zeros(1, d_model).expand(T, d_model)     # (T, d_model) buffer for the heads
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        concat[:, cols] = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0]
    return concat @ W_O
'''}, {"mistake": "The (T, d_model) buffer the heads are written into is made with `.expand(T, d_model)` of one zero "
                  "row, as if expand allocated T rows like repeat; expand returns a view whose rows share one "
                  "memory row, so the in-place slice assignment raises 'more than one element of the written-to "
                  "tensor refers to a single memory location' for every T > 1.",
           "where": ["q8"]}),

    "q8_head_columns_mask_from_repeat_not_repeat_interleave": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    head_of_column = torch.arange(n_heads).repeat(d_k)      # 0,..,0, 1,..,1, ... (d_k of each)
    heads = []
    for h in range(n_heads):
        cols = head_of_column == h
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''}, {"mistake": "The column-to-head map is built with `torch.arange(n_heads).repeat(d_k)`, read as 'repeat each "
                  "head id d_k times'; `Tensor.repeat` tiles the whole tensor (0, 1, 2, 0, 1, 2, ...), which is "
                  "what `repeat_interleave` does not do, so head h gets the strided columns h, h + n_heads, ... "
                  "instead of its contiguous block; right for one head, wrong values for n_heads > 1.",
           "where": ["q8"]}),

    "q8_heads_split_with_dot_T_on_three_dims": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k).T                   # (n_heads, T, d_k)
    K = (X @ W_K).view(T, n_heads, d_k).T
    V = (X @ W_V).view(T, n_heads, d_k).T
    heads, _ = attention(Q, K, V, d_k)
    concat = heads.T.reshape(T, d_model)                    # back to (T, n_heads, d_k)
    return concat @ W_O
'''}, {"mistake": "The heads are moved to the front with `.T` on the (T, n_heads, d_k) view, as if it swapped the "
                  "first two dims; on a 3-D tensor `.T` reverses all of them, giving (d_k, n_heads, T): the "
                  "'batch' is the feature index, the 'queries' are the heads and the features are the tokens. "
                  "The heads are then passed to `attention` as 3-D tensors whose axes mean the wrong things, "
                  "which the notebook's 2-D attention (itself `Q @ K.T`) cannot even multiply, so every call "
                  "fails, one head included.",
           "where": ["q8"]}),
    "q8_head_columns_arange_given_the_inclusive_end": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = torch.arange(h * d_k, (h + 1) * d_k - 1)     # columns h * d_k to (h + 1) * d_k - 1
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''}, {"mistake": "The head's columns are taken with `torch.arange(h * d_k, (h + 1) * d_k - 1)`, copying the "
                  "inclusive range 'h * d_k to (h + 1) * d_k - 1' from the question; `torch.arange`'s end is "
                  "exclusive, so every head loses its last column, the concatenation is n_heads * (d_k - 1) wide "
                  "and `concat @ W_O` fails on the shape (for any number of heads).",
           "where": ["q8"]}),
}
