"""Sixty-ninth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements, stub cells and public checks), the solution
cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written
`Q @ K.T / d_k ** 0.5` with a row-sum assert; q2: two `randn` draws from the generator, `(q * k).sum(1)`,
`.var().item()`; q4: `softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in the same cell;
q5..q7 one letter each; q8 a loop over the heads calling the 2-D `attention` on column slices),
`tests/heldout/harness.py`, blind68.py in full for the format, and only the variant NAMES of the earlier
blind*.py sets, so that their mistakes are not repeated in the same form. The grader was not run on this set.

Focus of the round: VERBOSE BEGINNER CODE. Long-hand solutions (explicit loops, running totals, hand-made
helpers, NumPy round trips, shape bookkeeping and asserts), each with one mistake buried in it. In q1: a hand
softmax whose denominator `total` is set to 0 once before the row loop and never reset (row 0 right, later rows
divided by a running sum), a full NumPy round trip through `.tolist()` that silently turns float32 inputs into
float64 results (and breaks q8's `concat @ W_O`), and an output filled column by column over `range(d_k)`
instead of `range(d_v)` (zero columns or an IndexError when d_v != d_k); in q2: dot products appended to a list
created at cell level and never cleared (each call's variance mixes in every earlier call), and the scale
division placed inside the loop that adds up the coordinates (the running sum is divided again at every step);
in q4: an entropy summed key by key with `range(T - 1)` (the last key's term missing), row totals reshaped with
`.reshape(-1, 1)` (only 2-D input works: a (1,) result for 1-D logits, a crash or a (B, B) grid for 3-D), and
a hand-written sample std `squared / n - 1` (precedence: population variance minus one, `math.sqrt` of a
negative number at the defaults); in q5: a long-hand probe whose dot accumulator is not reset between pairs
(variance of a random walk, about 2900 at d = 16, nearest option d_k^2: 'D'); in q6: a hand (i, j) loop that
scores `X[i] @ X[i]` instead of `X[i] @ X[j]` (uniform weights, the plain mean matches: 'D'); in q7: a hand
weighted sum started from the first value row instead of zeros (never matches the output, so D is rejected:
'C'); in q8: heads cut with `np.split(Q.numpy(), n_heads)` at its default axis 0 (tokens, not columns), an
output projection written as a blockwise sum over heads whose accumulator starts with head 0's term and then
adds it again, and a divisibility assert that tests `X.shape[0]` (the token count) instead of d_model. Spread:
q1 x3, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a hand-graded markdown answer with no code cell to
replace). Mix: crashes (np.split, the token-count assert, the std's math domain error, the d_v < d_k column
loop, the 3-D reshape, q8's dtype mismatch), silently wrong values (the unreset softmax total, the d_v > d_k
zero columns, the list never cleared, the scale in the loop, the missing last key, head 0 counted twice), a
wrong shape (the (1,) entropy of 1-D logits), a dtype slip (the float64 round trip), order of operations (the
scale inside the loop, `/ n - 1`), off-by-one (`range(T - 1)`), accumulators initialised wrong or not reset
(q1, q2, q5, q7, q8) and three letters from faulty long-hand probes. The five correct variants, in the same
long-hand style but right: `attention` as a loop over query rows into `torch.empty` buffers of the inputs'
dtype and device with a max-shifted hand softmax and a fresh total per row; `dot_product_variance` with
stepwise products and `np.var(..., ddof=1)` returned through `float()`; `softmax_entropy` as a loop over the
flattened rows with `log_softmax`, stacked and reshaped back to `logits.shape[:-1]`, and `entropy_table` with a
hand-written unbiased std `squared / (n - 1)`; q5's letter from the same long-hand probe with the accumulator
reset per pair (variance about 15.6: 'C'); multi-head attention writing each head into the columns of a
dtype-matched `torch.zeros` buffer, with correct shape asserts.

Public material used (nothing copied verbatim): for the accumulator not reset in a hand softmax and the
long-hand row loops: the deeplearning.ai forum thread "W2_A1 Optional Exercise: Assertion Error in Softmax" (as
kept in the nvidia/Nemotron-CC-Math-v1 copy: a hand softmax whose rows no longer sum to 1, values like 506 and
91, because the exponentials were divided by the wrong running total) and the online-softmax notes on
lists.cpunks.org ("we initialize the vector v and scalar s with 0 ... and renormalize the sums": where each
accumulator has to be initialised and reset); for the NumPy round trip that changes the dtype:
OUCMachineLearning/OUCML issue #24 ("expected scalar type Double but found Float" with `torch.mm` after
`torch.from_numpy(np.random.normal(...))`, fixed with `.to(torch.float32)`), pytorch/pytorch issues #2138,
#11951 and #15436 (float64 from NumPy meeting float32 weights in a matmul) and #27754 (`torch.tensor` of NumPy
float64 scalars and the default dtype); for `np.split`'s default axis: the NumPy reference for `numpy.vsplit`
("equivalent to split with axis=0 (default) ... always split along the first axis") and the tutorial "Numpy:
Split Along Columns" ("Use axis=1 for splitting along columns"); for `/ n - 1`: the same precedence rule as the
Python reference on binary arithmetic operators (`/` binds tighter than `-`); for the cell-level list and the
loop-variable slips: the general Python pitfalls of module-level mutable state and copied loop bodies, here in
the notebook's own setting (the statement says two calls with generators seeded alike must agree; the hidden
tests call each function many times).

How the variants were checked: each variant's notebook (full_marks.ipynb with the cell replaced, built with
harness.build_notebook) was run top to bottom, every code cell but otter's init and the `grader.check` cells,
with a throwaway script under /tmp/w69-scaled-attention/; the assignment notebook's own public test functions
were then run on the variant's functions. The functions were compared with plain torch: `attention` with a
float64 `softmax(Q K^T / sqrt(d_k)) V` (checked against `F.scaled_dot_product_attention`) on (T_q, T_k, d_k,
d_v) = (3, 3, 4, 4), (2, 5, 3, 6), (5, 2, 7, 3), (1, 4, 5, 2), (4, 1, 5, 2), (6, 6, 10, 4), (2, 3, 12, 12) in
float64 and float32 (dtype and shape too), float16 / bfloat16 at 2e-2 / 3e-2 for information;
`dot_product_variance` at d_k 1, 3, 5, 8, 16, 64, 200, scaled and not, three seeds, within 10% of d_k or 1, a
Python float, equal for two generators seeded alike; `softmax_entropy` against a float64 `log_softmax` entropy
on (7,), (3, 5), (2, 3, 7), (4, 1) in float32 and float64 and on the saturated rows [0, 0, 500, 0] and
[1000, 0, 0, 0]; `entropy_table` against the spec at its defaults and at (3, 5, 7, 50, 200) seed 1 after
reseeding the global generator; the letters against C / A / D; `multi_head_attention` against a float64 loop
over the heads (checked against `torch.nn.MultiheadAttention` without biases loaded with the transposed
weights) on (T, d_model, n_heads) = (3, 8, 2), (4, 16, 4), (5, 12, 3), (1, 6, 2), (7, 8, 1), (4, 6, 3),
(12, 12, 3), (2, 6, 6) in float64 and float32. full_marks and the five correct variants matched everywhere and
passed the public checks (the hand-softmax loop also on float16 / bfloat16). Every wrong variant differs, only
in the questions in its "where": the unreset total on every q1 shape with more than one query (two public q1
checks fail; q8 wrong except with one token); the float64 round trip on every float32 input (float64 right;
the public q1 checks and both q8 checks raise on the dtype mismatch); the d_k column loop only where
d_v != d_k (the public checks pass: trace and rectangular shapes keep right shapes, the rectangular check does
not look at values; q8 unaffected since heads have d_v = d_k); the cell-level list on every call after the
first (the public scaled check fails); the in-loop scale on every scaled call with d_k > 1; the missing last
key on every row that is not one-hot (public uniform-row and table checks fail); the (-1, 1) totals give
shape (1,) on 1-D logits and raise on (2, 3, 7) (the table, read with `.item()`, stays right); the `/ n - 1`
std raises in the table cell at the defaults; the probes give 'D', 'D' and 'C'; `np.split` raises whenever
n_heads > 1 (right with one head); head 0 twice is wrong on every shape (the public one-head check fails);
the token-count assert raises on every checked shape with T not a multiple of n_heads and is right otherwise."""

CORRECT = {
    "q1_query_row_loop_into_dtype_matched_buffers_shifted_hand_softmax": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q = Q.shape[0]
    T_k = K.shape[0]
    d_v = V.shape[1]
    scale = 1.0 / math.sqrt(d_k)
    # buffers in the inputs' own dtype and device, filled one query row at a time
    weights = torch.empty(T_q, T_k, dtype=Q.dtype, device=Q.device)
    output = torch.empty(T_q, d_v, dtype=V.dtype, device=V.device)
    for i in range(T_q):
        query = Q[i]                           # (d_k,)
        row_scores = (K @ query) * scale       # (T_k,) one score per key
        row_max = row_scores.max()
        shifted = row_scores - row_max         # for stability, does not change the softmax
        exps = torch.exp(shifted)
        total = exps.sum()                     # a fresh total for every row
        row_weights = exps / total
        weights[i] = row_weights
        output[i] = row_weights @ V            # (d_v,)
    return output, weights
'''},
    "q2_stepwise_products_numpy_var_ddof_one_python_float": {"dot_product_variance": '''
import numpy as np


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)   # one query per row
    k = torch.randn(n_samples, d_k, generator=generator)   # one key per row
    products = q * k                                       # (n_samples, d_k)
    dots = products.sum(dim=1)                             # (n_samples,)
    if scaled:
        dots = dots / math.sqrt(d_k)
    dots_np = dots.numpy().astype(np.float64)
    variance = np.var(dots_np, ddof=1)                     # unbiased, like torch.var
    return float(variance)
'''},
    "q4_entropy_row_loop_log_softmax_stacked_shape_restored_table_hand_unbiased_std": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    T = logits.shape[-1]
    batch_shape = logits.shape[:-1]
    rows = logits.reshape(-1, T)                 # every row of every batch, one after another
    entropies = []
    for r in range(rows.shape[0]):
        log_p = F.log_softmax(rows[r], dim=0)    # finite even for a saturated row
        p = torch.exp(log_p)
        entropies.append(-(p * log_p).sum())
    return torch.stack(entropies).reshape(batch_shape)


def sample_std(values):
    """Unbiased standard deviation of a list of Python floats (divide by n - 1)."""
    n = len(values)
    mean = sum(values) / n
    squared = 0.0
    for v in values:
        squared += (v - mean) ** 2
    variance = squared / (n - 1)
    return math.sqrt(variance)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]                # (5,)
        scaled = raw / d ** 0.5
        row = {}
        row["d"] = d
        row["raw_std"] = sample_std(raw.tolist())
        row["scaled_std"] = sample_std(scaled.tolist())
        row["H_raw"] = softmax_entropy(raw).item()
        row["H_scaled"] = softmax_entropy(scaled).item()
        results.append(row)
    return results
'''},
    "q5_answer_from_long_hand_probe_with_fresh_accumulators": {"q5_answer": '''
# Long-hand probe: variance of q.k at d = 16, compared with the four options.
probe_gen = torch.Generator().manual_seed(5)
probe_d = 16
probe_n = 4000
probe_q = torch.randn(probe_n, probe_d, generator=probe_gen)
probe_k = torch.randn(probe_n, probe_d, generator=probe_gen)
probe_dots = []
for s in range(probe_n):
    dot = 0.0                                   # reset for every pair
    for i in range(probe_d):
        dot += probe_q[s, i].item() * probe_k[s, i].item()
    probe_dots.append(dot)
probe_mean = sum(probe_dots) / probe_n
probe_var = sum((x - probe_mean) ** 2 for x in probe_dots) / (probe_n - 1)
options = {"A": 1.0, "B": probe_d ** 0.5, "C": float(probe_d), "D": float(probe_d ** 2)}
q5_answer = min(options, key=lambda letter: abs(options[letter] - probe_var))
print("measured variance", round(probe_var, 2), "->", q5_answer)
'''},
    "q8_head_loop_writes_columns_into_dtype_matched_buffer_with_asserts": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T = X.shape[0]
    d_model = X.shape[1]
    assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
    d_k = d_model // n_heads
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    concat = torch.zeros(T, d_model, dtype=V.dtype, device=V.device)
    for h in range(n_heads):
        start = h * d_k
        stop = start + d_k                    # exclusive end: columns start .. stop - 1
        Q_h = Q[:, start:stop]
        K_h = K[:, start:stop]
        V_h = V[:, start:stop]
        head_out, head_weights = attention(Q_h, K_h, V_h, d_k)
        assert head_out.shape == (T, d_k)
        concat[:, start:stop] = head_out
    result = concat @ W_O
    return result
'''},
}

WRONG = {
    "q1_softmax_row_total_initialised_once_before_the_row_loop": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q = Q.shape[0]
    T_k = K.shape[0]
    scale = math.sqrt(d_k)
    scores = Q @ K.T / scale                       # (T_q, T_k)
    weights = torch.zeros(T_q, T_k, dtype=scores.dtype)
    total = 0.0
    for i in range(T_q):
        row = scores[i]
        row_max = row.max()
        exps = torch.exp(row - row_max)
        for j in range(T_k):
            total = total + exps[j]                # running sum of the exponentials
        weights[i] = exps / total
    out = weights @ V
    return out, weights
'''}, {"mistake": "The hand-written softmax keeps its denominator `total` in a variable set to 0 once, before the "
                  "loop over the query rows, and never resets it: row 0 is right, but every later row is divided "
                  "by the running sum of all exponentials so far, so its weights sum to less than 1 and the "
                  "output rows shrink (right only when there is a single query); multi-head attention, which "
                  "calls it, inherits the wrong rows.",
       "where": ["q1", "q8"]}),

    "q1_numpy_round_trip_through_tolist_returns_float64": ({"attention": '''
import numpy as np


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    q_np = np.array(Q.tolist())                     # (T_q, d_k)
    k_np = np.array(K.tolist())                     # (T_k, d_k)
    v_np = np.array(V.tolist())                     # (T_k, d_v)
    scores_np = q_np @ k_np.T / np.sqrt(d_k)        # (T_q, T_k)
    row_max = scores_np.max(axis=1, keepdims=True)
    exps = np.exp(scores_np - row_max)
    weights_np = exps / exps.sum(axis=1, keepdims=True)
    out_np = weights_np @ v_np                      # (T_q, d_v)
    out = torch.from_numpy(out_np)
    weights = torch.from_numpy(weights_np)
    return out, weights
'''}, {"mistake": "The computation is done in NumPy on arrays rebuilt from `.tolist()`, and a list of Python "
                  "floats becomes a float64 array, so float32 (or half) inputs come back as float64 output and "
                  "weights: the values are right but the dtype is not the inputs' (the statement asks for the "
                  "same dtype); in multi-head attention the float64 head outputs meet the float32 W_O and the "
                  "product raises a dtype mismatch.",
       "where": ["q1", "q8"]}),

    "q1_value_columns_looped_over_d_k_not_d_v": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q = Q.shape[0]
    d_v = V.shape[1]
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = torch.zeros(T_q, d_v, dtype=V.dtype)
    for c in range(d_k):                           # one output column at a time
        out[:, c] = weights @ V[:, c]
    return out, weights
'''}, {"mistake": "The output is filled one column at a time in a loop over `range(d_k)` instead of "
                  "`range(d_v)`: when d_v = d_k (the lesson's trace) it is right, but when d_v > d_k the last "
                  "d_v - d_k output columns stay 0, and when d_v < d_k indexing V's columns raises an "
                  "IndexError.",
       "where": ["q1"]}),

    "q2_dots_collected_in_cell_level_list_never_cleared": ({"dot_product_variance": '''
all_dots = []      # every dot product computed so far


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    for s in range(n_samples):
        dot = (q[s] * k[s]).sum().item()
        if scaled:
            dot = dot / math.sqrt(d_k)
        all_dots.append(dot)
    values = torch.tensor(all_dots, dtype=torch.float64)
    return values.var().item()
'''}, {"mistake": "The dot products are appended to a list created once at cell level and never cleared, so "
                  "each call's variance is taken over the dots of every earlier call too: the first call is "
                  "right, later calls mix in other widths and the unscaled dots (a scaled call after an "
                  "unscaled one gives about (d_k + 1) / 2, not 1), and two calls with generators seeded alike "
                  "no longer give the same number.",
       "where": ["q2"]}),

    "q2_scale_divided_inside_the_coordinate_loop": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    scale = math.sqrt(d_k)
    dots = torch.zeros(n_samples, dtype=q.dtype)
    for i in range(d_k):                       # add one coordinate's products at a time
        dots = dots + q[:, i] * k[:, i]
        if scaled:
            dots = dots / scale
    return dots.var().item()
'''}, {"mistake": "With scaled=True the division by sqrt(d_k) sits inside the loop that adds up the coordinates, "
                  "so the running sum is divided again after every coordinate (the first coordinate's product "
                  "d_k times, the last once) instead of dividing the finished dot product once: the scaled "
                  "variance is far below 1 for every d_k > 1 (the unscaled branch is right).",
       "where": ["q2"]}),

    "q4_entropy_key_loop_stops_before_the_last_key": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    p = torch.exp(log_p)
    T = logits.shape[-1]
    H = torch.zeros(logits.shape[:-1], dtype=logits.dtype)
    for j in range(T - 1):                     # add -p_j log p_j key by key
        H = H - p[..., j] * log_p[..., j]
    return H


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
'''}, {"mistake": "The entropy is summed key by key with `for j in range(T - 1)`, which stops one key short: the "
                  "last key's term -p log p is never added, so every row whose last probability is neither 0 "
                  "nor 1 gets too small an entropy (a uniform row over 5 keys gives 4/5 ln 5, not ln 5), and "
                  "the table's entropies are too small as well.",
       "where": ["q4"]}),

    "q4_entropy_denominator_reshaped_to_a_column_handles_only_2d": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    row_max = logits.max(dim=-1, keepdim=True).values
    shifted = logits - row_max                       # (rows, T)
    exps = torch.exp(shifted)
    denom = exps.sum(dim=-1).reshape(-1, 1)          # (rows, 1), one total per row
    p = exps / denom
    log_p = shifted - torch.log(denom)
    H = -(p * log_p).sum(dim=-1)                     # (rows,)
    return H


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
'''}, {"mistake": "The row totals are reshaped with `.reshape(-1, 1)`, shape bookkeeping that only fits a 2-D "
                  "(rows, T) input: for 1-D logits the total becomes (1, 1) and broadcasting turns the result "
                  "into shape (1,) instead of a 0-d tensor, and for 3-D logits (B, R, T) the (B*R, 1) totals "
                  "do not broadcast against (B, R, T) and it raises (with R = 1 they broadcast into a (B, B, T) "
                  "grid, the wrong shape).",
       "where": ["q4"]}),

    "q4_table_hand_std_divides_by_len_minus_one_without_parentheses": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def sample_std(values):
    """Unbiased standard deviation of a list of Python floats (divide by n - 1)."""
    n = len(values)
    mean = sum(values) / n
    squared = 0.0
    for v in values:
        squared += (v - mean) ** 2
    variance = squared / n - 1
    return math.sqrt(variance)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        row = {}
        row["d"] = d
        row["raw_std"] = sample_std(raw.tolist())
        row["scaled_std"] = sample_std(scaled.tolist())
        row["H_raw"] = softmax_entropy(raw).item()
        row["H_scaled"] = softmax_entropy(scaled).item()
        results.append(row)
    return results
'''}, {"mistake": "The table's standard deviation is computed by hand as `squared / n - 1`, meaning to divide "
                  "by n - 1, but `/` binds tighter than `-`, so it takes the population variance and subtracts "
                  "1: the stds are wrong, and whenever that variance is below 1 (the scaled scores at the "
                  "defaults) `math.sqrt` of a negative number raises a math domain error.",
       "where": ["q4"]}),

    "q5_answer_probe_dot_accumulator_not_reset_between_pairs": ({"q5_answer": '''
# Long-hand probe: variance of q.k at d = 16, compared with the four options.
probe_gen = torch.Generator().manual_seed(5)
probe_d = 16
probe_n = 2000
probe_q = torch.randn(probe_n, probe_d, generator=probe_gen)
probe_k = torch.randn(probe_n, probe_d, generator=probe_gen)
probe_dots = []
dot = 0.0
for s in range(probe_n):
    for i in range(probe_d):
        dot += probe_q[s, i].item() * probe_k[s, i].item()
    probe_dots.append(dot)
probe_mean = sum(probe_dots) / probe_n
probe_var = sum((x - probe_mean) ** 2 for x in probe_dots) / (probe_n - 1)
options = {"A": 1.0, "B": probe_d ** 0.5, "C": float(probe_d), "D": float(probe_d ** 2)}
q5_answer = min(options, key=lambda letter: abs(options[letter] - probe_var))
print("measured variance", round(probe_var, 2), "->", q5_answer)
'''}, {"mistake": "The answer comes from a long-hand probe whose dot-product accumulator `dot = 0.0` is set once "
                  "before the loop over the pairs instead of inside it, so each 'dot product' is the running "
                  "total over all earlier pairs (a random walk); the variance of those totals is in the "
                  "thousands, the nearest option is d_k^2, and the answer is 'D' instead of 'C' (d_k).",
       "where": ["q5"]}),

    "q6_answer_hand_loop_scores_dot_the_row_with_itself": ({"q6_answer": '''
# Long-hand check of self-attention with Q = K = V = X, compared with the options.
g6 = torch.Generator().manual_seed(6)
X6 = torch.randn(4, 8, generator=g6)
n_tokens, width = X6.shape
manual = torch.zeros(n_tokens, width)
for i in range(n_tokens):
    row_scores = []
    for j in range(n_tokens):
        row_scores.append((X6[i] @ X6[i]).item() / math.sqrt(width))
    row_weights = torch.softmax(torch.tensor(row_scores), dim=0)
    for j in range(n_tokens):
        manual[i] = manual[i] + row_weights[j] * X6[j]
plain_mean = X6.mean(dim=0).expand(n_tokens, width)
if torch.allclose(manual, plain_mean, atol=1e-6):
    q6_answer = "D"
elif torch.allclose(manual, X6, atol=1e-6):
    q6_answer = "B"
else:
    q6_answer = "A"
print("manual check ->", q6_answer)
'''}, {"mistake": "The answer comes from a hand loop over (i, j) whose score line reuses the wrong loop "
                  "variable, `X[i] @ X[i]` instead of `X[i] @ X[j]`: every score in a row is the same, the "
                  "softmax is uniform and the 'attention' output is the plain mean of the rows, so the check "
                  "picks 'D' instead of 'A' (a softmax-weighted average).",
       "where": ["q6"]}),

    "q7_answer_hand_mix_accumulator_started_from_the_first_value_row": ({"q7_answer": '''
# Long-hand check: is the attention output the weighted mix of ALL the values?
g7 = torch.Generator().manual_seed(7)
query7 = torch.randn(1, 4, generator=g7)
keys7 = torch.randn(6, 4, generator=g7)
values7 = torch.randn(6, 3, generator=g7)
out7, w7 = attention(query7, keys7, values7, 4)
mix = values7[0].clone()                     # start the sum from the first value row
for j in range(values7.shape[0]):
    mix = mix + w7[0, j] * values7[j]
mix_of_all_values = torch.allclose(out7[0], mix, atol=1e-5)
if mix_of_all_values:
    q7_answer = "D"
else:
    q7_answer = "C"                          # not a mix of everything, so it must be the best key's value
print("mix of all values?", mix_of_all_values, "->", q7_answer)
'''}, {"mistake": "The answer comes from a long-hand check whose weighted-sum accumulator starts from the first "
                  "value row (`mix = V[0]`) instead of zeros, so the hand mix is off by V[0], never matches "
                  "attention's output, and option D (a softmax-weighted mix of all the values) is rejected in "
                  "favour of 'C' (the best-scoring key's value only).",
       "where": ["q7"]}),

    "q8_heads_cut_with_numpy_split_default_axis_zero": ({"multi_head_attention": '''
import numpy as np


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    Q_parts = np.split(Q.detach().numpy(), n_heads)      # one block per head
    K_parts = np.split(K.detach().numpy(), n_heads)
    V_parts = np.split(V.detach().numpy(), n_heads)
    heads = []
    for h in range(n_heads):
        Q_h = torch.from_numpy(Q_parts[h])
        K_h = torch.from_numpy(K_parts[h])
        V_h = torch.from_numpy(V_parts[h])
        out_h, _ = attention(Q_h, K_h, V_h, d_k)
        heads.append(out_h)
    concat = torch.cat(heads, dim=1)
    return concat @ W_O
'''}, {"mistake": "The heads are cut with `np.split(Q.numpy(), n_heads)`, whose default axis is 0, so it cuts "
                  "the tokens (rows) into n_heads groups instead of the columns into head slices: with one head "
                  "it is right, with more it raises (T not divisible by n_heads, or the (T/n_heads, "
                  "n_heads*d_model) concatenation cannot be multiplied by W_O).",
       "where": ["q8"]}),

    "q8_blockwise_output_sum_started_from_head_zero_then_adds_it_again": ({"multi_head_attention": '''
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
    # concat @ W_O is the sum over heads of head_h @ (rows h*d_k .. (h+1)*d_k - 1 of W_O)
    result = heads[0] @ W_O[0:d_k, :]
    for h in range(n_heads):
        rows = W_O[h * d_k:(h + 1) * d_k, :]
        result = result + heads[h] @ rows
    return result
'''}, {"mistake": "The output projection is written as a sum over heads of head_h times its block of W_O's rows, "
                  "but the accumulator is initialised with head 0's term and the loop then starts at h = 0 "
                  "again, so head 0's contribution is counted twice (with one head the result is exactly twice "
                  "the right one).",
       "where": ["q8"]}),

    "q8_divisibility_assert_checks_token_count": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T = X.shape[0]
    d_model = X.shape[1]
    assert X.shape[0] % n_heads == 0, "d_model must be divisible by n_heads"
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        start = h * d_k
        stop = start + d_k
        out_h, _ = attention(Q[:, start:stop], K[:, start:stop], V[:, start:stop], d_k)
        heads.append(out_h)
    concat = torch.cat(heads, dim=1)
    return concat @ W_O
'''}, {"mistake": "The sanity assert meant to check that d_model is divisible by n_heads tests `X.shape[0]`, the "
                  "number of tokens T, so it raises AssertionError on every input whose T is not a multiple of "
                  "n_heads (e.g. 5 tokens with 3 heads), although such inputs are valid; when T happens to be "
                  "a multiple the result is right.",
       "where": ["q8"]}),
}
