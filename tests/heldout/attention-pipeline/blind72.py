"""Blind held-out set 72 for attention-pipeline.

Seventy-second blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind71.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 72's angle: PYTHONIC AND FUNCTIONAL IDIOMS. The student knows Python better than torch and writes the
exercises with comprehensions, zip, map, functools.reduce, itertools, generators, enumerate and builtins
applied to tensors. Each wrong variant has one slip of that kind in otherwise careful code: projections built
token by token with a comprehension over `X.unbind(-2)` and restacked on dim 0, which swaps the batch and time
axes of batched inputs (q01); `*batch, d_k, T_q = Q.shape`, unpacking that names the last two axes in the wrong
order, so the scale is sqrt(T_q) (q02); a mask comprehension over `enumerate(..., 1)` so the first future key
stays open (q04); a hand softmax normalised with the builtin `sum`, which adds along the first axis (q05);
`T = len(X)`, which reads the batch axis of a batched X (q07); the kernel weights kept in a generator that the
numerator consumes, so the denominator's `sum` sees nothing and is 0 (q08); prefix rows from
`itertools.accumulate(..., initial=zeros)` zipped with `range(1, T + 1)`, so each row is one step behind and
zip silently drops the last one (q09); the builtin `sum` over the entropy terms, adding down the query axis
instead of along each row (q10); `functools.reduce` with no start value, so the first shape tuple becomes the
accumulator (q12); X and Y both flattened with X's length unpacked from `*batch, T, d = X.shape`, which breaks
whenever T' != T (q13). The written answers carry such a student's wrong reasoning, each from a small Python
experiment: options picked with `enumerate(options, 1)` used as a 0-based index (q06 answers d);
`next(...)` over the options matching the output shape only, whose first hit is a (q14); the option found by a
substring search for "T = T'" (q15 answers c); multiply-adds counted with `itertools.product(range(T),
range(d_k))`, forgetting the key axis, so doubling T doubles the count (q16 answers a).

Public material found with the `search` tool, and what it showed:
- sreerevanth/repopilot#267 ("zip() over three lists without strict= silently truncates": the extra items
  "vanish" and nothing is reported), python/cpython#20961 (the zip(strict=) documentation: iterables of
  different lengths "sometimes because of a bug"), Casper-Guo/Armchair-Strategist#127 and ruff rule B905: the
  silent truncation behind q09's zip over accumulate(..., initial=...), and the "same length" assumption of q13.
- thecodeforge.io "Iterators and Iterables in Python" (iterator exhaustion: "reusing an iterator causes silent
  empty loops") and msztylko/generators-python ("once consumed, can't be reused"): q08's generator read twice.
- linuxhaxor.net/code/pytorch-sum.html and kouhan.cn on torch.sum (dim=0 sums the columns of a 2-D tensor;
  iterating a tensor walks its first axis, which is what the builtin sum does): q05 and q10.
- errorhandle.ai on reduce's initializer and reklawth/python_ws (without `initial` the first item is the
  accumulator; "be careful when selecting initial values"): q12.
- pythonguides.com/pytorch-stack and mstx.cn on torch.stack (dim defaults to 0, so the new axis goes first):
  q01's per-token rows restacked on dim 0.
- The remaining kinds follow the brief's list for Pythonic code: enumerate(..., 1) mixed with 0-based indices
  (q04, q06), len() of a batched tensor (q07), star-unpacking that names the axes in the wrong order (q02).

The correct variants are Pythonic too and right everywhere: `map` over the three weights, `*_, d_k =
Q.shape`, a nested-comprehension mask, a softmax shifted by `functools.reduce(torch.maximum, ...)` over the
last-axis slices, a Nadaraya-Watson estimate built from a list (not a generator) reused twice, rows from
`itertools.accumulate` of the identity, `itertools.starmap` for the parameter count, `map(torch.matmul, ...)`
with the sources (X, Y, Y), and `torch.vmap` over query rows done with the right in_dims.

Every variant was checked with a throwaway script under /tmp/w72-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
compared with full_marks' functions and with plain torch (torch.softmax of S + M,
F.scaled_dot_product_attention) on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v, float64,
float32, float16, causal masks, padding masks and a fully blocked row; every written answer compared with the
right letter or integer. The correct variants agree everywhere; each wrong variant differs in its own questions
and only in those listed in "where".

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
MASK_ANS = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
SHAPES_ANS = "ans_cross_shapes"
CAUSAL_ANS = "ans_cross_causal"
COST_ANS = "ans_complexity"

CORRECT = {
    # map over the weights, star-unpacked head size, comprehension mask
    "map_projection_star_unpacked_scale_and_comprehension_mask": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(map(X.matmul, (W_Q, W_K, W_V)))
''',
        SCORES: '''def scaled_scores(Q, K):
    *_, d_k = Q.shape
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.finfo(dtype).min
    rows = [[0.0 if i <= t else blocked for i in range(T)] for t in range(T)]
    return torch.tensor(rows, dtype=dtype, device=device).reshape(T, T)
''',
    },
    # reduce-shifted softmax, list-based kernel smoother, accumulated prefix rows
    "reduce_max_softmax_listed_kernel_and_accumulated_prefix": {
        WEIGHTS: '''import functools


def attention_weights(S, M=None):
    Z = S if M is None else S + M
    peak = functools.reduce(torch.maximum, Z.unbind(-1))    # row maxima, shape (..., T_q)
    e = torch.exp(Z - peak.unsqueeze(-1))
    return e / e.sum(dim=-1, keepdim=True)
''',
        NW: '''def nadaraya_watson(q, K, V):
    d_k = len(q)
    kappa = [torch.exp(torch.dot(k, q) / math.sqrt(d_k)) for k in K]   # a list: read twice below
    return sum(w * v for w, v in zip(kappa, V)) / sum(kappa)
''',
        AVG: '''import itertools


def prefix_average_matrix(T):
    if T == 0:
        return torch.zeros(0, 0, dtype=torch.float64)
    rows = itertools.accumulate(torch.eye(T, dtype=torch.float64))   # row t: ones in the first t columns
    return torch.stack([r / r.sum() for r in rows])
''',
    },
    # starmap parameter count, map(matmul) cross-attention with (X, Y, Y), unpacked self-attention
    "starmap_count_map_cross_and_unpacked_self_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    *_, T, _ = X.shape
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(T, S.dtype, S.device) if causal else None)
    return A @ V, A
''',
        PARAMS: '''import itertools
import operator


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(itertools.starmap(operator.mul, shapes))
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = map(torch.matmul, (X, Y, Y), (W_Q, W_K, W_V))
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    },
    # entropy terms reduced along the last axis, effective tokens via map-free pow; answers from dicts
    "last_axis_entropy_and_dict_answers": {
        ENT: '''def row_entropy_bits(A):
    terms = torch.where(A > 0, A * torch.log2(A), torch.zeros_like(A))
    return -terms.sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        SHAPES_ANS: '''options = {"a": ("T x T", "T x d_v"), "b": ("T x T'", "T x d_v"),
           "c": ("T' x T", "T' x d_v"), "d": ("T x T'", "T' x d_v")}
ans_cross_shapes = next(k for k, (s, o) in options.items() if (s, o) == ("T x T'", "T x d_v"))
''',
        COST_ANS: '''import itertools

def score_mults(T, d_k):
    return sum(1 for _ in itertools.product(range(T), range(T), range(d_k)))

ratio = score_mults(16, 4) / score_mults(8, 4)
ans_complexity = {2: "a", 1: "b", 4: "c", 8: "d"}[round(ratio)]
''',
    },
    # vmap over the query rows with the right in_dims
    "vmap_over_query_rows_cross_attention": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    def one_row(q, K, V, m):          # q: (d_k,), K: (T', d_k), V: (T', d_v), m: (T',)
        a = attention_weights(scaled_scores(q[None], K), m)[0]
        return a @ V, a
    T, Tk = Q.shape[-2], K.shape[-2]
    Mz = torch.zeros(T, Tk, dtype=Q.dtype, device=Q.device) if M is None else M
    batch = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], Mz.shape[:-2])
    Qb = Q.expand(*batch, *Q.shape[-2:]).reshape(-1, *Q.shape[-2:])
    Kb = K.expand(*batch, *K.shape[-2:]).reshape(-1, *K.shape[-2:])
    Vb = V.expand(*batch, *V.shape[-2:]).reshape(-1, *V.shape[-2:])
    Mb = Mz.expand(*batch, T, Tk).reshape(-1, T, Tk)
    rows = torch.vmap(torch.vmap(one_row, in_dims=(0, None, None, 0)), in_dims=(0, 0, 0, 0))
    O, A = rows(Qb, Kb, Vb, Mb)
    return O.reshape(*batch, *O.shape[-2:]), A.reshape(*batch, *A.shape[-2:])
''',
    },
}

WRONG = {
    # --- q01: token rows restacked on dim 0
    "q01_token_rows_restacked_on_dim_zero_swaps_batch_and_time": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # one token at a time, then stack the rows back together
    return tuple(torch.stack([x @ W for x in X.unbind(-2)]) for W in (W_Q, W_K, W_V))
''',
    }, {"mistake": "The per-token results are stacked on dim 0 (torch.stack's default) instead of dim -2: right for "
                   "an unbatched (T, d_model) X, but a batched X of shape (B, T, d_model) gives (T, B, d) projections, "
                   "with the batch and time axes swapped.",
        "where": ["q01", "q07", "q09"]}),

    # --- q02: shape unpacked in the wrong order
    "q02_star_unpacking_names_last_two_axes_backwards_scales_by_sqrt_t_q": ({
        SCORES: '''def scaled_scores(Q, K):
    *batch, d_k, T_q = Q.shape
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "`*batch, d_k, T_q = Q.shape` names the last two axes in the wrong order, so the 'd_k' it divides "
                   "by is really the number of queries: scores are divided by sqrt(T_q) instead of sqrt(d_k).",
        "where": ["q02", "q07", "q13"]}),

    # --- q04: enumerate from 1 in the mask comprehension
    "q04_enumerate_from_one_leaves_next_key_open": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.finfo(dtype).min
    rows = [[0.0 if i <= t else blocked for i, _ in enumerate(range(T))]
            for t, _ in enumerate(range(T), 1)]          # t: the query's position, counting from 1
    return torch.tensor(rows, dtype=dtype, device=device).reshape(T, T)
''',
    }, {"mistake": "The query index comes from enumerate(..., 1) while the key index counts from 0, so every query may "
                   "also see the next token: the first superdiagonal is 0 instead of finfo.min (only entries with "
                   "i > t + 1 are blocked) and attention can read one token ahead.",
        "where": ["q04", "q07", "q09"]}),

    # --- q05: builtin sum over a tensor
    "q05_builtin_sum_normalises_down_the_first_axis": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    return e / sum(e)
''',
    }, {"mistake": "The builtin sum iterates the first axis of the tensor, so it adds the rows (or the batch entries) "
                   "instead of summing each row: the result is normalised over queries / batch, and the rows of A do "
                   "not sum to 1.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: enumerate from 1 used as a 0-based index
    "q06_enumerate_from_one_then_zero_based_letter_lookup_answers_d": ({
        MASK_ANS: '''# Which option says the model reads the very token it must predict?
options = [
    "The rows of A stop summing to 1.",
    "The score matrix loses rank.",
    "Position t can read token t+1, so the loss falls by copying.",
    "No gradient can flow through the entries the mask would have blocked.",
]
number = next(n for n, text in enumerate(options, 1) if "t+1" in text)   # option number 3
ans_mask = "abcd"[number]
''',
    }, {"mistake": "The option is numbered with enumerate(options, 1) (3 for option c) and that number is then used "
                   "as a 0-based index into 'abcd', so the answer is 'd' instead of 'c'.",
        "where": ["q06"]}),

    # --- q07: len(X) reads the batch axis
    "q07_mask_length_from_len_of_x_reads_batch_axis": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    T = len(X)                                    # number of tokens
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(T, S.dtype, S.device) if causal else None)
    return A @ V, A
''',
    }, {"mistake": "len(X) is the size of the first axis: the number of tokens only for an unbatched X. For a batched "
                   "X it is the batch size, so the causal mask has the wrong size (a shape error, or a 1x1 mask that "
                   "blocks nothing for a batch of one).",
        "where": ["q07", "q09"]}),

    # --- q08: generator consumed twice
    "q08_kernel_generator_exhausted_before_the_denominator": ({
        NW: '''def nadaraya_watson(q, K, V):
    d_k = len(q)
    kappa = (torch.exp(torch.dot(k, q) / math.sqrt(d_k)) for k in K)
    numerator = sum(w * v for w, v in zip(kappa, V))
    return numerator / sum(kappa)
''',
    }, {"mistake": "The kernel weights are a generator: the numerator consumes it, so sum(kappa) in the denominator "
                   "adds nothing and is 0; the result is inf (or nan) instead of the weighted average.",
        "where": ["q08"]}),

    # --- q09: accumulate(initial=...) zipped with range, one row behind and last row dropped
    "q09_accumulate_with_initial_zip_drops_last_row": ({
        AVG: '''import itertools


def prefix_average_matrix(T):
    eye = torch.eye(T, dtype=torch.float64)
    running = itertools.accumulate(eye, initial=torch.zeros(T, dtype=torch.float64))
    rows = [row / t for t, row in zip(range(1, T + 1), running)]
    return torch.stack(rows).reshape(T, T)
''',
    }, {"mistake": "accumulate(..., initial=zeros) yields the zero row first, so each row is one step behind (row t "
                   "holds t-1 ones divided by t, row 1 is all 0), and zip stops silently at T, dropping the last full "
                   "row: the rows do not sum to 1.",
        "where": ["q09"]}),

    # --- q10: builtin sum down the query axis
    "q10_builtin_sum_adds_entropy_terms_down_the_query_axis": ({
        ENT: '''def row_entropy_bits(A):
    terms = torch.where(A > 0, -A * torch.log2(A), torch.zeros_like(A))
    return sum(terms)                  # add up each row's terms


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "The builtin sum iterates the first axis, so it adds the entropy terms down each column (over the "
                   "queries, or over the batch) instead of along each row: per-key totals, wrong values (and the "
                   "wrong shape unless A is square and unbatched).",
        "where": ["q10"]}),

    # --- q12: reduce without a start value
    "q12_reduce_without_initial_starts_from_a_shape_tuple": ({
        PARAMS: '''import functools


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return functools.reduce(lambda total, shape: total + shape[0] * shape[1], shapes)
''',
    }, {"mistake": "functools.reduce is called without a start value, so the first shape tuple (d_model, d_k) is the "
                   "accumulator and `tuple + int` raises TypeError: no count is returned (the start value must be 0).",
        "where": ["q12"]}),

    # --- q13: both sequences flattened with X's length
    "q13_y_flattened_with_query_length_unpacked_from_x": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    *batch, T, d = X.shape
    Xf, Yf = (Z.reshape(-1, T, d) for Z in (X, Y))        # flatten the batch dimensions
    Q, K, V = Xf @ W_Q, Yf @ W_K, Yf @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return (A @ V).reshape(*batch, T, -1), A.reshape(*batch, T, -1)
''',
    }, {"mistake": "The length unpacked from X's shape is reused to flatten Y, as if Y had T tokens too: right when "
                   "T' == T, but for T' != T the reshape fails or cuts Y into rows of the wrong length.",
        "where": ["q13"]}),

    # --- q14: next() over the options matching the output shape only
    "q14_next_over_options_matches_output_shape_only_answers_a": ({
        SHAPES_ANS: '''T, T_prime, d_model, d_k, d_v = 3, 5, 4, 2, 6
_O, _A = cross_attention(torch.randn(T, d_model, dtype=torch.float64), torch.randn(T_prime, d_model, dtype=torch.float64),
                         torch.randn(d_model, d_k, dtype=torch.float64), torch.randn(d_model, d_k, dtype=torch.float64),
                         torch.randn(d_model, d_v, dtype=torch.float64))
options = {"a": ((T, T), (T, d_v)), "b": ((T, T_prime), (T, d_v)),
           "c": ((T_prime, T), (T_prime, d_v)), "d": ((T, T_prime), (T_prime, d_v))}
ans_cross_shapes = next(k for k, (s, o) in options.items() if o == tuple(_O.shape))
''',
    }, {"mistake": "The measured shapes are matched against the options on O's shape only; the first option with "
                   "O = T x d_v is 'a' (S: T x T), so the answer is 'a' instead of 'b'.",
        "where": ["q14"]}),

    # --- q15: substring search picks c
    "q15_option_found_by_substring_search_for_equal_lengths_answers_c": ({
        CAUSAL_ANS: '''# a causal mask compares position t with position i, so both sequences need the same length
options = {
    "a": "Always: every attention layer of a language model needs one.",
    "b": "Never: a causal mask can only be built for a square score matrix.",
    "c": "Whenever T = T', whatever the two sequences are.",
    "d": "Only when positions in X and in Y lie on one shared time axis.",
}
ans_cross_causal = next(k for k, text in options.items() if "T = T'" in text)
''',
    }, {"mistake": "Chooses by searching for the equal-length condition, answer 'c': equal lengths make a square mask "
                   "buildable but say nothing about whether query t may see Y beyond time t; the answer is 'd' (a "
                   "shared time axis).",
        "where": ["q15"]}),

    # --- q16: product forgets the key axis
    "q16_product_over_tokens_and_head_dims_counts_linear_answers_a": ({
        COST_ANS: '''import itertools

def score_mults(T, d_k):
    # one multiply-add per (token, component) pair
    return sum(1 for _ in itertools.product(range(T), range(d_k)))

ratio = score_mults(16, 4) / score_mults(8, 4)
ans_complexity = {2: "a", 1: "b", 4: "c", 8: "d"}[round(ratio)]
''',
    }, {"mistake": "Counts multiply-adds over product(range(T), range(d_k)), forgetting that every query meets every "
                   "key (T x T x d_k): doubling T doubles the count and the answer is 'a' instead of 'c' (quadratic).",
        "where": ["q16"]}),
}
