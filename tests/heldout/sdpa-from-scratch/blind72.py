"""Seventy-second blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind71.py (for the format), and only the
variant names of the other earlier blind sets (so that their mistakes are not repeated in the same form). The
grader was not run on this set.

This round's focus: PYTHONIC AND FUNCTIONAL IDIOMS. The cells are written by a student who knows Python better
than torch: unpacking, comprehensions, `zip`, `enumerate`, `itertools.product`, `functools.reduce`, generators,
builtins applied to tensors, `math` instead of torch, `torch.vmap`. Each wrong variant hides one slip of that kind:
`enumerate(..., start=1)` picking the wrong axis and a star-unpacking that names the last two axes the wrong way
round (q1); `len()` of an unflattened tensor used as the sample count (q2); the builtin `sum` over a tensor, which
reduces the first axis, and a `*lead, n = x.shape` flattening that ignores `dim` (q3); `itertools.product` with
keys and queries in the wrong order and `enumerate(start=1)` for the key index (q4); shape unpacking with the last
two axes swapped and `math.isqrt` for the root (q5); `zip` of weight rows with value rows (silently truncated to
d_v) and causal rows sliced to `[:i]` (q6); `all()` over an exhausted `zip` iterator, which is vacuously True,
giving answer A (q7); a generator of sizes consumed by the first `math.prod`, and `functools.reduce` started at 0
(q8). The correct variants are Pythonic and right: comprehensions over equal-length zips, `reduce` started at 1,
a mask from `torch.vmap` over query positions, `itertools.product` in row-major (query, key) order, and columns
taken with `zip(*rows)`.

Public material used (search tool):
- zip truncation: python/cpython#84533 and PR #20961 (PEP 618, `zip(strict=True)`: "if the iterables passed to zip
  are of different lengths, the resulting iterator will be silently truncated"), ruff rule B905 as discussed in
  Casper-Guo/Armchair-Strategist#127 and lightgbm-org/LightGBM#7276 (q6 out3, q4 kinds).
- generators/iterators consumed once, builtin `sum`/`len` iterating the first axis of a tensor, `reduce` start
  values, `enumerate(start=1)`, `math.isqrt` flooring: the idioms named in this round's brief (q2, q3, q7, q8).

How the variants were checked: a throwaway script under /tmp/w72-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's (top to bottom, in one namespace), and
compared the answers and functions with torch.softmax, F.scaled_dot_product_attention and the notebook's formulas
on 1-D to 4-D shapes, every softmax dim, T_q != T_k, d_v != d_k, 2-D and broadcast masks, fully masked rows, large
float16 logits, float64 / float32 / float16 / bfloat16, and gradients. The correct variants match everywhere; each
wrong one differs where its "where" says and nowhere else.

Each wrong variant has exactly one mistake and changes one cell of an otherwise full-marks notebook;
"mistake" says in plain words what is wrong, "where" lists the questions whose tests may lose points.
"""

_SDPA_OK = """
def scaled_dot_product_attention(Q, K, V, mask=None):
    # softmax(Q K^T / sqrt(d_k)) V, mask True = may attend
    *_, d_k = Q.shape
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    return weights @ V
"""

CORRECT = {
    "shapes_unpacked_softmax_amax_mask_comprehension_trace_with_math_comprehensions_prod_costs": {
        "weights_shape": """
q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)
*batch, T_q, d_k_q = q_shape
*_, T_k, _ = k_shape
*_, _, d_v = v_shape
weights_shape = (*batch, T_q, T_k)
out_shape = (*batch, T_q, d_v)
""",
        "d_k": """
import statistics
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
flat = raw_scores.flatten().tolist()
raw_score_var = statistics.variance(flat)
scaled_score_var = statistics.variance([s / math.sqrt(d_k) for s in flat])
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
""",
        "stable_softmax": """
def stable_softmax(x, dim=-1):
    shifted = x - x.amax(dim=dim, keepdim=True)
    exps = shifted.exp()
    return exps / exps.sum(dim=dim, keepdim=True)
""",
        "causal_mask": """
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.tensor([[j <= i for j in range(T_k)] for i in range(T_q)], dtype=torch.bool).reshape(T_q, T_k)
""",
        "scaled_dot_product_attention": _SDPA_OK,
        "scores3": """
scores3 = Q3 @ K3.T / math.sqrt(4)
rows = scores3.tolist()
def _softmax_row(row):
    top = max(row)
    exps = [math.exp(s - top) for s in row]
    total = sum(exps)
    return [e / total for e in exps]
weights3 = [_softmax_row(r) for r in rows]
out3 = [[sum(w * v for w, v in zip(wrow, vcol, strict=True)) for vcol in zip(*V3.tolist())] for wrow in weights3]
weights3_causal = [_softmax_row(r[: i + 1]) + [0.0] * (len(r) - i - 1) for i, r in enumerate(rows)]
print(weights3, out3, weights3_causal, sep="\\n")
""",
        "attn_entries": """
T, d_k_head = 1024, 64
attn_entries = math.prod((T, T))
score_madds = math.prod((T, T, d_k_head))
cost_ratio = math.prod((2 * T, 2 * T, d_k_head)) // score_madds
""",
    },
    "shapes_from_zipped_probes_reduce_softmax_vmap_mask_where_rows_reduce_costs_from_one": {
        "weights_shape": """
shapes = {"Q": (4, 10, 64), "K": (4, 10, 64), "V": (4, 10, 128)}
weights_shape = tuple([*shapes["Q"][:-1], shapes["K"][-2]])
out_shape = tuple([*shapes["Q"][:-1], shapes["V"][-1]])
""",
        "d_k": """
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
_flat = raw_scores.flatten().tolist()
_n = len(_flat)
_mean = sum(_flat) / _n
raw_score_var = sum((s - _mean) ** 2 for s in _flat) / (_n - 1)
scaled_score_var = raw_score_var / d_k
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
""",
        "stable_softmax": """
import functools
def stable_softmax(x, dim=-1):
    steps = [
        lambda t: t - t.amax(dim=dim, keepdim=True),
        torch.exp,
        lambda t: t / t.sum(dim=dim, keepdim=True),
    ]
    return functools.reduce(lambda acc, f: f(acc), steps, x)
""",
        "causal_mask": """
def causal_mask(T_q, T_k=None):
    T_k = T_k if T_k is not None else T_q
    keys = torch.arange(T_k)
    return torch.vmap(lambda i: keys <= i)(torch.arange(T_q))
""",
        "scaled_dot_product_attention": """
def scaled_dot_product_attention(Q, K, V, mask=None):
    *batch, T_q, d_k = Q.shape
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = torch.where(mask, scores, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, 0.0)
    return weights @ V
""",
        "scores3": """
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = torch.stack([
    stable_softmax(torch.where(torch.arange(3) <= i, row, float("-inf")), dim=-1)
    for i, row in enumerate(scores3)
])
print(weights3, out3, weights3_causal, sep="\\n")
""",
        "q_trap_answer": """
_s = torch.randn(4, 4, dtype=torch.float64)
_blocked = ~causal_mask(4)
_zeroed = torch.softmax(_s, dim=-1).masked_fill(_blocked, 0.0)
_masked = torch.softmax(_s.masked_fill(_blocked, float("-inf")), dim=-1)
_pairs = list(zip(_zeroed, _masked, strict=True))
_same = all(torch.allclose(a, b) for a, b in _pairs)
q_trap_answer = "A" if _same else "C"
""",
        "attn_entries": """
import functools, operator
T, d_k_head = 1024, 64
attn_entries = functools.reduce(operator.mul, (T, T), 1)
score_madds = functools.reduce(operator.mul, (T, T, d_k_head), 1)
cost_ratio = functools.reduce(operator.mul, (2 * T, 2 * T, d_k_head), 1) // score_madds
""",
    },
    "itertools_product_mask_unpacked_sdpa_and_starmap_costs": {
        "causal_mask": """
import itertools
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    flat = [j <= i for i, j in itertools.product(range(T_q), range(T_k))]
    return torch.tensor(flat, dtype=torch.bool).reshape(T_q, T_k)
""",
        "scaled_dot_product_attention": """
def scaled_dot_product_attention(Q, K, V, mask=None):
    *_, T_q, d_k = Q.shape
    *_, T_k, d_v = V.shape
    scale = 1.0 / math.sqrt(d_k)
    scores = (Q @ K.transpose(-2, -1)) * scale
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
        seen = mask.any(dim=-1, keepdim=True)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~seen, 0.0)
    return weights @ V
""",
        "attn_entries": """
import itertools, operator
T, d_k_head = 1024, 64
attn_entries, score_madds = itertools.starmap(lambda *sizes: math.prod(sizes), [(T, T), (T, T, d_k_head)])
cost_ratio = math.prod((2 * T, 2 * T, d_k_head)) // score_madds
""",
    },
    "softmax_from_unpacked_moved_axis_and_trace_with_zip_of_columns": {
        "stable_softmax": """
def stable_softmax(x, dim=-1):
    moved = x.movedim(dim, -1)
    *lead, n = moved.shape
    rows = moved.reshape(-1, n)
    exps = (rows - rows.amax(dim=1, keepdim=True)).exp()
    out = exps / exps.sum(dim=1, keepdim=True)
    return out.reshape(*lead, n).movedim(-1, dim)
""",
        "scores3": """
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
_cols = list(zip(*V3.tolist()))
out3 = [[sum(w * v for w, v in zip(row, col, strict=True)) for col in _cols] for row in weights3.tolist()]
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
""",
        "q_trap_answer": """
options = {"A": "same effect", "B": "wrong triangle", "C": "rows no longer sum to 1", "D": "float16 only"}
q_trap_answer = next(letter for letter, text in options.items() if "sum to 1" in text)
""",
    },
}

WRONG = {
    "q1_out_shape_from_enumerate_started_at_one_takes_the_query_width": (
        {"weights_shape": """
q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)
weights_shape = (*q_shape[:-1], k_shape[-2])
# keep the query's axes, except the last one, which comes from V
out_shape = tuple(v if i == len(v_shape) - 1 else q
                  for i, (q, v) in enumerate(zip(q_shape, v_shape), start=1))
"""},
        {"mistake": "out_shape is built with enumerate(..., start=1), so the index that should pick V's last axis "
                    "(len - 1 = 2) lands on the middle axis; the last axis stays the query width: (4, 10, 64) "
                    "instead of (4, 10, 128); weights_shape is right",
         "where": ["q1"]},
    ),
    "q1_star_unpacking_names_the_last_two_axes_width_then_length": (
        {"weights_shape": """
q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)
*batch, d_k_q, T_q = q_shape
*_, d_k_k, T_k = k_shape
*_, T_v, d_v = v_shape
weights_shape = (*batch, T_q, T_k)
out_shape = (*batch, T_q, d_v)
"""},
        {"mistake": "the star-unpacking of the query and key shapes names the last two axes (d_k, T) instead of "
                    "(T, d_k), so T_q and T_k are 64: weights_shape is (4, 64, 64) instead of (4, 10, 10) and "
                    "out_shape (4, 64, 128) instead of (4, 10, 128)",
         "where": ["q1"]},
    ),
    "q2_unbiased_divisor_from_len_of_the_unflattened_scores": (
        {"d_k": """
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
def sample_var(t):
    flat = t.flatten().tolist()
    mean = sum(flat) / len(flat)
    return sum((s - mean) ** 2 for s in flat) / (len(t) - 1)
raw_score_var = sample_var(raw_scores)
scaled_score_var = sample_var(raw_scores / math.sqrt(d_k))
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
"""},
        {"mistake": "the unbiased divisor is len(t) - 1 on the unflattened (2, 5, 5) scores, and len() of a tensor is "
                    "its first axis (2), so both variances are divided by 1 instead of 49: 49 times too large; "
                    "scale_divisor is right",
         "where": ["q2"]},
    ),
    "q3_builtin_sum_of_the_exponentials_reduces_the_first_axis": (
        {"stable_softmax": """
def stable_softmax(x, dim=-1):
    exps = (x - x.amax(dim=dim, keepdim=True)).exp()
    return exps / sum(exps)
"""},
        {"mistake": "the denominator is Python's builtin sum(exps), which iterates over and adds up the first axis of "
                    "the tensor, not the slices along dim: right for a 1-D input, but for 2-D and larger inputs the "
                    "weights no longer sum to 1 along dim; the attention and the traced weights reuse it",
         "where": ["q3", "q5", "q6"]},
    ),
    "q3_star_unpacked_last_axis_normalised_whatever_dim_is": (
        {"stable_softmax": """
def stable_softmax(x, dim=-1):
    *lead, n = x.shape
    rows = x.reshape(-1, n)
    exps = (rows - rows.amax(dim=1, keepdim=True)).exp()
    return (exps / exps.sum(dim=1, keepdim=True)).reshape(x.shape)
"""},
        {"mistake": "the input is flattened to rows of its last axis with *lead, n = x.shape, so the softmax always "
                    "runs over the last axis and dim is ignored: right for dim=-1 (and the attention, which uses it), "
                    "wrong for any other dim",
         "where": ["q3"]},
    ),
    "q4_product_over_keys_then_queries_fills_the_grid_transposed": (
        {"causal_mask": """
import itertools
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    flat = [j <= i for j, i in itertools.product(range(T_k), range(T_q))]
    return torch.tensor(flat, dtype=torch.bool).reshape(T_q, T_k)
"""},
        {"mistake": "itertools.product runs over keys in the outer loop and queries in the inner one, but the flat "
                    "list is reshaped row-major to (T_q, T_k), so the grid is filled in the wrong order: a square "
                    "mask comes out upper-triangular (the transpose) and a rectangular one scrambled; the traced "
                    "causal weights use it",
         "where": ["q4", "q6"]},
    ),
    "q4_key_index_from_enumerate_started_at_one_makes_the_mask_strict": (
        {"causal_mask": """
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    # token positions counted from 1
    return torch.tensor([[j <= i for j, _ in enumerate(range(T_k), start=1)] for i in range(T_q)],
                        dtype=torch.bool).reshape(T_q, T_k)
"""},
        {"mistake": "the key index comes from enumerate(..., start=1) while the query index starts at 0, so every key "
                    "is shifted by one: the mask is strictly lower-triangular (diagonal blocked, query 0 sees "
                    "nothing); the traced causal weights use it",
         "where": ["q4", "q6"]},
    ),
    "q5_shape_unpacked_with_the_last_two_axes_swapped_scales_by_sqrt_t_q": (
        {"scaled_dot_product_attention": """
def scaled_dot_product_attention(Q, K, V, mask=None):
    *batch, d_k, T_q = Q.shape
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    return weights @ V
"""},
        {"mistake": "the query shape is unpacked as *batch, d_k, T_q = Q.shape, so the variable called d_k holds the "
                    "number of queries and the scores are divided by sqrt(T_q) instead of sqrt(d_k): right only when "
                    "T_q equals d_k",
         "where": ["q5"]},
    ),
    "q5_scale_from_math_isqrt_floors_the_root": (
        {"scaled_dot_product_attention": """
def scaled_dot_product_attention(Q, K, V, mask=None):
    *_, d_k = Q.shape
    scores = Q @ K.transpose(-2, -1) / math.isqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    return weights @ V
"""},
        {"mistake": "the scale uses math.isqrt(d_k), the integer square root, which floors: right when d_k is a "
                    "perfect square (16, 64), but d_k = 8 divides by 2 instead of 2.83 and d_k = 32 by 5 instead "
                    "of 5.66, so the weights are too sharp",
         "where": ["q5"]},
    ),
    "q6_out3_zips_weight_rows_with_value_rows_not_columns": (
        {"scores3": """
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = [[sum(w * v for w, v in zip(wrow, vrow)) for vrow in V3.tolist()] for wrow in weights3.tolist()]
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
"""},
        {"mistake": "out3 pairs each weight row with the ROWS of V3 instead of its columns; zip silently stops at the "
                    "value row's length 2, so each entry is w0*v0 + w1*v1 of one value row and out3 is (3, 3) with "
                    "wrong numbers instead of (3, 2); weights3 and weights3_causal are right",
         "where": ["q6"]},
    ),
    "q6_causal_rows_sliced_up_to_i_leave_out_the_diagonal": (
        {"scores3": """
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
def _softmax_row(row):
    top = max(row, default=0.0)
    exps = [math.exp(s - top) for s in row]
    total = sum(exps)
    return [e / total for e in exps]
# query i keeps keys 0..i, the rest padded with zeros
weights3_causal = [_softmax_row(r[:i]) + [0.0] * (len(r) - i) for i, r in enumerate(scores3.tolist())]
print(weights3, out3, weights3_causal, sep="\\n")
"""},
        {"mistake": "the visible keys of query i are sliced as row[:i], which stops before i, so the diagonal is left "
                    "out: query 0 gets all zeros and query 1 puts all its weight on key 0; weights3 and out3 are "
                    "right",
         "where": ["q6"]},
    ),
    "q7_agreement_checked_with_all_over_an_exhausted_zip_answers_a": (
        {"q_trap_answer": """
_s = torch.randn(4, 4, dtype=torch.float64)
_blocked = ~causal_mask(4)
_zeroed = torch.softmax(_s, dim=-1).masked_fill(_blocked, 0.0)
_masked = torch.softmax(_s.masked_fill(_blocked, float("-inf")), dim=-1)
_pairs = zip(_zeroed, _masked)
print("rows compared:", sum(1 for _ in _pairs))
_same = all(torch.allclose(a, b) for a, b in _pairs)
q_trap_answer = "A" if _same else "C"
"""},
        {"mistake": "the rows are compared through a zip iterator that was already used up counting them, so all() "
                    "sees no pairs and is vacuously True; the student concludes that zeroing after the softmax is "
                    "the same as masking before it and answers A instead of C",
         "where": ["q7"]},
    ),
    "q8_generator_of_sizes_consumed_by_the_first_prod": (
        {"attn_entries": """
T, d_k_head = 1024, 64
sizes = (T for _ in range(2))          # query and key axes
attn_entries = math.prod(sizes)
score_madds = math.prod(sizes) * d_k_head
cost_ratio = (2 * T) ** 2 * d_k_head // (T ** 2 * d_k_head)
"""},
        {"mistake": "the sizes are a generator, which the first math.prod exhausts; the second math.prod gets an "
                    "empty iterable and returns 1, so score_madds is 64 instead of 67108864; attn_entries and "
                    "cost_ratio are right",
         "where": ["q8"]},
    ),
    "q8_score_madds_from_reduce_with_start_value_zero": (
        {"attn_entries": """
import functools, operator
T, d_k_head = 1024, 64
attn_entries = T * T
score_madds = functools.reduce(operator.mul, (T, T, d_k_head), 0)
cost_ratio = (2 * T) ** 2 // T ** 2
"""},
        {"mistake": "score_madds is a product taken with functools.reduce(operator.mul, ..., 0): the start value of a "
                    "product must be 1, and starting at 0 makes it 0 instead of 67108864; attn_entries and "
                    "cost_ratio are right",
         "where": ["q8"]},
    ),
}
