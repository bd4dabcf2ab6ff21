"""Fifty-seventh blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the question texts and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k, d_v != d_k, "use the
d_k you are given", float32 and float64 kept; q2 within 10% at n_samples = 10000, a Python float drawn from the
generator, reproducible for equally seeded generators; `softmax_entropy` over the last dim for any `(..., T)`,
0 on a saturated row; `entropy_table(dims, seed=0)`; q5..q7 one letter as a string; a looping
`multi_head_attention` with `X @ W` projections; the notebook's own globals: the trace cell's `Q`, `K`, `V`,
`d_k`, `out`, `W` and the q2 display loop's `gen` and `d`), `tests/heldout/harness.py`, blind56.py in full for
the format, and only the variant NAMES of blind.py .. blind56.py, so that their mistakes are not repeated in
the same form. The grader was not run on this set.

Focus of the round: SLIPS, the mistakes of a tired student who knows the formula, spread over every
auto-graded question (q1 x3, q2 x2, q4 x4, q5 x1, q6 x1, q7 x1, q8 x2; q3 is a hand-graded markdown answer
with no code cell to replace): a helper that reads the notebook's global `K` (the trace's keys) instead of
its own parameter `k`, right on the trace and wrong or crashing everywhere else; `math.pow(0.5, d_k)` for
`math.pow(d_k, 0.5)` (arguments swapped); a `return` indented into a per-query loop, so only the first query
comes back; the scale in q2 written with `d`, the display loop's variable, which matches `d_k` while that
loop runs and stays 64 afterwards; the variance stored in a variable BEFORE the `if scaled:` branch, so the
scaled dots never reach the return (a stale value); the results list moved to cell level, so every call of
`entropy_table` appends to the rows of the calls before it; a `break` left from debugging the first row of
the table; `view(-1, 5)` with the lesson's 5 keys hard-coded; `torch.where(cond, x, y)` with its two
branches swapped; the q5 probe calling `dot_product_variance(10000, 16, g)` with `d_k` and `n_samples` in each
other's places; the q6 probe passing the trace's global `V` as the values; the q7 probe counting the keys
with the index that `enumerate` leaves behind (the last index, one less than the count); in q8 the weights
unpacked into a local named `attention`, which makes the function's own name local (UnboundLocalError), and
`heads.append` dedented out of the loop so only the last head is kept.

Public material used (nothing copied verbatim): a public Korean-commented `MultiHeadAttention` tutorial file
(found by exact-string search for ", attention = attention(") whose `forward` does
`out, attention = attention(q, k, v, mask = mask)` where `self.attention` was meant, next to a half-renamed
`self.n_head` / `self.n_heads` and a `concat` with no return: the shadowing slip of q8; the pages
code.saghul.net "Name binding and UnboundLocalError in Python" (a later assignment makes the name local for
the whole function) and the Python FAQ answers quoted on syntaxfix.com; jupytearth.org "Managing state"
(`sketchy_sine_wave` reading the global `frequency`: a function that uses a notebook global changes with
it), for the q1 global-`K` helper and the q2 global `d`; riptutorial.com "Variable leaking in list
comprehensions and for loops", besthub.dev "Why Python's for-loop variables leak" (a second loop that uses
the first loop's `i`), and sqlpey.com "Why Python loop variables persist" (the last `enumerate` index
reported as the number of items processed, which is only right with start=1), for the q7 count; the pages
notes.lesleylai.info "mutable default arguments in Python" and quickinsights.io "default values and bad
side effects" (a list created once keeps what every call appended), for the q4 rows list; gptteams.ai's
answer "You use return in the first iteration of your loop", for the q1 return; pytorch/pytorch issue #5073
(`attention.view(-1, self.seq_len)` with a fixed sequence length fails on another length) for the q4
`view(-1, 5)`; srush/Tensor-Puzzles issue #28 (the `where(q, a, b)` puzzle written with the branches the
wrong way round for some inputs) and huggingface/trl pull requests #7252 / #7263 (`exp(logps) * logps` is NaN
at a zero probability, guarded per entry) for the swapped `torch.where` guard; kenrinzero.github.io
"ai-code-audit-taxonomy: swapped args" and labex.io "Can keyword arguments prevent argument order bugs?"
(same-type positional arguments swapped run silently) for `math.pow` and the q5 probe call. The other
behaviours were reproduced locally with torch rather than searched.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slips list q8
too; the q4 slips replace the whole q4 cell, which defines both functions, changing only one of them, and
`entropy_table` calls `softmax_entropy`, so both count as q4; the q5 probe calls the untouched full-marks
`dot_product_variance`, the q6 and q7 probes the untouched `attention`). None crashes in the notebook's own
display cells (the trace, the q2 loop and the q4 table all run), except that the q8 slips crash on the q8
check alone. Correct variants are valid but written differently from full_marks (`torch.mm` with the
softmax taken in the promoted dtype `promote_types(dtype, float32)` and cast back; an interleaved
`(n, 2, d_k)` draw with the variance accumulated in float64 and returned as a float; entropy from
`log_softmax` with a `torch.where` guard and a table of `dict(zip(...))` rows; per-head column blocks of the
weight matrices with a blockwise output projection summed over heads; answers built by `.upper()`, indexing
and `.strip()`). Every variant was checked with a throwaway script under /tmp/w57-scaled-attention/: each
notebook was built with harness.build_notebook and run top to bottom (all code cells but otter's init and
`grader.check`), then its functions were called again afterwards (as a grader would, with the notebook's
globals in place) and compared with plain torch (`torch.softmax`, `F.scaled_dot_product_attention`,
`nn.MultiheadAttention` loaded with the same weights, the notebook's entropy formula and lesson table,
Var(q.k) = d_k) on several shapes (the trace's 3x4, T_q != T_k, d_v != d_k, d_k = 13, T_q = 1, batches
(..., T) of 1 to 3 dims, T = 5 and 7, n_heads = 1..4) in float64 and float32, checking dtypes,
reproducibility and that inputs are not modified; every correct one agrees everywhere and every wrong one
differs (or crashes) where the notebook's checks look, only in its `where`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_mm_softmax_in_promoted_dtype_cast_back": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.mm(Q, K.t()) / math.sqrt(d_k)
    # softmax in at least float32 (half inputs), never below the input's own precision (float64 stays)
    work = torch.promote_types(scores.dtype, torch.float32)
    weights = torch.softmax(scores.to(work), dim=1).to(Q.dtype)
    return torch.mm(weights, V), weights
'''},
    "variance_interleaved_pair_draw_float64_accumulation": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pairs = torch.randn(n_samples, 2, d_k, generator=generator)   # pair i is (q_i, k_i)
    dots = (pairs[:, 0, :] * pairs[:, 1, :]).sum(dim=-1).double()
    if scaled:
        dots = dots / d_k ** 0.5
    centred = dots - dots.mean()
    return float((centred * centred).sum() / (n_samples - 1))
'''},
    "entropy_log_softmax_where_guard_zip_rows": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp()
    terms = torch.where(p > 0, p * log_p, torch.zeros_like(p))   # 0 log 0 counted as 0
    return -terms.sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    keys = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.matmul(k, q.squeeze(0))          # the same 5 scores as (q @ k.T)[0]
        scaled = raw * d ** -0.5
        values = (d, torch.std(raw).item(), torch.std(scaled).item(),
                  softmax_entropy(raw).item(), softmax_entropy(scaled).item())
        rows.append(dict(zip(keys, values)))
    return rows
'''},
    "mha_per_head_weight_column_blocks_blockwise_output_sum": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = W_Q.shape[0]
    d_k = d_model // n_heads
    result = None
    for h in range(n_heads):
        lo, hi = h * d_k, (h + 1) * d_k
        # head h only needs columns lo:hi of each projection, i.e. X @ W[:, lo:hi]
        out_h, _ = attention(X @ W_Q[:, lo:hi], X @ W_K[:, lo:hi], X @ W_V[:, lo:hi], d_k)
        # concat(heads) @ W_O == sum over heads of head_h @ (rows lo:hi of W_O)
        part = out_h @ W_O[lo:hi, :]
        result = part if result is None else result + part
    return result
'''},
    "answers_built_by_upper_index_strip": {
        "q5_answer": '''
q5_answer = "c".upper()
''',
        "q6_answer": '''
q6_answer = "ABCD"[0]
''',
        "q7_answer": '''
q7_answer = " D ".strip()
'''},
}


WRONG = {
    "q1_scores_helper_reads_notebook_global_keys": ({"attention": '''
def _scores(q, k, d_k):
    """Scaled scores for 2-D q (T_q, d_k) and k (T_k, d_k): (T_q, T_k)."""
    return q @ K.T / math.sqrt(d_k)


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = _scores(Q, K, d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The helper _scores uses K, the notebook's global (the trace's float32 (3, 4) keys), instead "
                   "of its own parameter k; it is right on the trace, where the global is the argument, and "
                   "otherwise the weights are built from the wrong keys: a wrong (T_q, 3) weight matrix, a "
                   "shape error against V, or a dtype error for float64 inputs (it needs q @ k.T).",
       "where": ["q1", "q8"]}),

    "q1_scale_math_pow_arguments_swapped": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.pow(0.5, d_k)        # divide by sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "math.pow takes (base, exponent); math.pow(0.5, d_k) is 0.5 ** d_k, not d_k ** 0.5, so the "
                   "scores are MULTIPLIED by 2 ** d_k (16 at d_k = 4) instead of divided by sqrt(d_k): the "
                   "weights come out far too sharp (it needs math.pow(d_k, 0.5)).",
       "where": ["q1", "q8"]}),

    "q1_return_indented_into_query_loop": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    outs, rows = [], []
    for i in range(Q.shape[0]):
        s = (K @ Q[i]) / math.sqrt(d_k)          # query i against every key: (T_k,)
        w = F.softmax(s, dim=-1)
        rows.append(w)
        outs.append(w @ V)
        return torch.stack(outs), torch.stack(rows)
'''}, {"mistake": "The return is indented into the loop over the queries, so the function returns after the "
                   "first query: output (1, d_v) and weights (1, T_k) instead of (T_q, d_v) and (T_q, T_k) "
                   "(the first row is right; the return belongs after the loop).",
       "where": ["q1", "q8"]}),

    "q2_scale_reads_display_loops_global_d": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d)
    return dots.var().item()
'''}, {"mistake": "The scale is written with d, the loop variable of the display cell below, instead of the "
                   "parameter d_k: while that loop runs d equals d_k and the printed table looks right, but "
                   "afterwards d stays 64 (or is undefined), so the scaled variance is d_k / 64, not 1 (it "
                   "needs math.sqrt(d_k)).",
       "where": ["q2"]}),

    "q2_variance_stored_before_the_scaling_branch": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    var = dots.var().item()
    if scaled:
        dots = dots / math.sqrt(d_k)
    return var
'''}, {"mistake": "The variance is computed and stored BEFORE the `if scaled:` branch, and that stale value is "
                   "returned: the scaled dots are computed but never used, so scaled=True still gives about "
                   "d_k instead of 1 (the variance must be taken after the scaling).",
       "where": ["q2"]}),

    "q4_table_rows_list_created_once_at_cell_level": ({"entropy_table": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


results = []


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The rows list is created once at cell level instead of inside the function, so every call "
                   "appends to the rows of all earlier calls: the first call is right, every later one "
                   "returns the old rows first and too many rows (8, 12, ... for the default dims).",
       "where": ["q4"]}),

    "q4_table_debug_break_left_after_first_row": ({"entropy_table": '''
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
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
        break   # check the first row first
    return results
'''}, {"mistake": "A `break` left in the loop from debugging the first row stops it after the first d: the "
                   "table has one row (the first, which is right) instead of one per entry of dims.",
       "where": ["q4"]}),

    "q4_entropy_rows_viewed_with_lessons_five_keys": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    terms = -(p * torch.log(p + 1e-9))
    return terms.view(-1, 5).sum(dim=-1)        # one entropy per row of keys


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
'''}, {"mistake": "The row length is hard-coded as the lesson's 5 keys in view(-1, 5) instead of taken from "
                   "the input: the table (5 keys) is right, but a 1-D row comes back with shape (1,) not (), "
                   "a (..., 5) batch is flattened to one axis, and any other T gives a view error or sums "
                   "across rows (it needs .sum(dim=-1) on the terms as they are).",
       "where": ["q4"]}),

    "q4_entropy_where_branches_swapped": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # 0 * log 0 is NaN: keep p log p where p > 0, put 0 where p underflowed to 0
    plogp = torch.where(p > 0, torch.zeros_like(p), p * torch.log(p))
    return -plogp.sum(dim=-1)


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
'''}, {"mistake": "torch.where(cond, x, y) takes the value for True first; the two branches are swapped, so "
                   "every positive probability contributes 0 and only the underflowed ones contribute "
                   "0 * log 0 = NaN: the entropy is 0 for every ordinary row and NaN for a saturated one "
                   "(it needs torch.where(p > 0, p * torch.log(p), 0)).",
       "where": ["q4"]}),

    "q5_answer_probe_variance_called_with_d_k_and_n_samples_swapped": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 with my q2 function and take the closest option
_g5 = torch.Generator().manual_seed(0)
_v5 = dot_product_variance(10000, 16, _g5)            # d_k = 16, 10000 pairs
_options5 = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options5, key=lambda s: abs(_options5[s] - _v5))
'''}, {"mistake": "dot_product_variance takes (d_k, n_samples, ...); the call passes 10000 and 16 the other "
                   "way round, so it measures 16 pairs of 10000-dimensional vectors, a variance near 10000, "
                   "and the closest option is d_k^2 ('D') instead of d_k ('C').",
       "where": ["q5"]}),

    "q6_answer_probe_values_from_trace_global_v": ({"q6_answer": '''
# self-attention on the trace's three tokens, Q = K = V = X, then see which option the output matches
_X6 = Q.clone()                                        # (3, 4) tokens from the trace cell
_out6, _w6 = attention(_X6, _X6, V, 4)
_cands6 = {
    "A": _w6 @ _X6,                                    # softmax-weighted average of the rows
    "B": _X6,                                          # each token itself
    "C": _X6[_w6.argmax(dim=-1)],                      # the best-matching row only
    "D": _X6.mean(dim=0, keepdim=True).expand_as(_X6), # the plain mean of the rows
}
q6_answer = min(_cands6, key=lambda s: (_cands6[s] - _out6).abs().max().item())
'''}, {"mistake": "The probe passes V, the trace's global hand-made values, where X was meant (Q = K = V = X), "
                   "so the output mixes the trace's value rows instead of the tokens and matches none of the "
                   "options; the closest by max error is the plain mean (1.33 against 2.42 for the "
                   "weighted average), so the cell answers 'D' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_probe_counts_keys_with_leaked_enumerate_index": ({"q7_answer": '''
# one query, two keys: does the output take from every key (soft) or from the best one only (hard)?
_g7 = torch.Generator().manual_seed(0)
_q7 = torch.randn(1, 8, generator=_g7)
_K7 = torch.randn(2, 8, generator=_g7)
_V7 = torch.randn(2, 3, generator=_g7)
_, _w7 = attention(_q7, _K7, _V7, 8)
for _n_used7, _wj7 in enumerate(_w7[0]):              # count the keys with a share of the weight
    if _wj7 <= 0:
        break
q7_answer = "D" if _n_used7 > 1 else "C"              # more than one key used: a soft mix
'''}, {"mistake": "The number of keys used is read from the enumerate index left after the loop, which is the "
                   "LAST index (1 for two keys), one less than the count: both keys have positive weight, "
                   "but the probe sees 'one key' and answers 'C' (argmax lookup) instead of 'D' "
                   "(enumerate(..., start=1) or a real count).",
       "where": ["q7"]}),

    "q8_weights_unpacked_into_name_attention": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, attention = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The head's weights are unpacked into a variable named attention, which makes `attention` "
                   "a local name for the whole function, so the call attention(...) on the same line raises "
                   "UnboundLocalError on every call (the weights need another name, or _).",
       "where": ["q8"]}),

    "q8_heads_append_dedented_after_loop": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
    heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "heads.append(out_h) is dedented out of the loop, so only the last head's output (left in "
                   "out_h) is kept: with more than one head the concatenation is (T, d_k) and the product "
                   "with W_O fails (it is right only for n_heads = 1).",
       "where": ["q8"]}),
}
