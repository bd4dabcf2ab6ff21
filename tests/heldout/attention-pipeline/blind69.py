"""Blind held-out set 69 for attention-pipeline.

Sixty-ninth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and question statements of attention-pipeline.ipynb
(tokens are rows, leading batch dimensions allowed, d_v may differ from d_k, T_q from T_k in
cross-attention, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min, the prefix average is
float64), the solution cells of full_marks.ipynb, `harness.py`, blind68.py in full (for the format and the
docstring), and only the variant names of the earlier blind sets (to avoid repeating a mistake in the same
form).

Round 69's angle: VERBOSE BEGINNER CODE. Every wrong cell is written long-hand, the way a beginner writes
it (intermediate variables, little helpers, Python loops and lists where the statement allows them, shape
bookkeeping, asserts), with exactly one mistake buried in it: a helper whose results list is a mutable
default argument, so every call after the first returns the first call's projections (q01); a score buffer
allocated with torch.zeros(shape) in the default float32 and filled row by row, so float64 and float16
inputs come back float32 (q02); the mask built as a Python list of lists with `[[0.0] * T] * T`, whose rows
are one shared list, so every row blocks every key after the first (q04); the weights checked through
`.tolist()` and rebuilt with torch.tensor of the list, in the default float32 (q05); the kernel smoother's
numerator accumulator made with torch.zeros_like(q), shaped (d_k,) instead of (d_v,) (q08); the log patch
that looks for NaN, while log2(0) is -inf and 0 * -inf only becomes NaN after the product (q10); a total
accumulator started at 1, copied from the numel helper's product accumulator (q12); the cross-attention
returning its masked scores under the name it meant for the weights (q13). The written answers go wrong
through a long-hand computation with one slip: an entropy accumulator not reset between the scaled and the
unscaled trial, so the unscaled total looks larger and the rows "flatter" (q03); a row-sum loop that starts
at index 1, so the unmasked rows seem not to sum to 1 (q06); a hand row reduction whose elimination loop
stops one row short, so the lesson rank comes out 3 (q11); the output shape's row count copied from the
score matrix's columns (q14); a rectangular-mask trial that only checks rows sum to 1 and no NaN appears,
read as "always" (q15); a multiply-add counter reset inside the query loop, so only one row of scores is
counted and the cost looks linear (q16). q07 and q09 are reached through `where`: self_attention (q07) and
the hidden check that self_attention with zero projections gives the prefix average (q09) call the q01, q02,
q04 and q05 functions.

Public material found with the `search` tool, and what it showed:
- Stack Overflow 48000528 "Changing value in list of list python, why does it change whole row?" (mirrored
  at wiki.gubat.org), nicehiro.github.io "python list" note (`b = [a] * 3; b[0][0] = 1` changes every row):
  the q04 aliased rows.
- python-discord's "mutable-default-args" tag (pydis static pages), notebook.community cohpy "memory leaks"
  (`def append_to(element, target=[])` returns the grown list on the second call), benji011's TIL: the q01
  results list kept between calls.
- vanheeringen-lab/gimmemotifs#275 ("numpy.log2(self.pfm) will result in -inf, which in turn becomes NaN
  when multiplied"), huggingface/trl#7221 (`exp(logps) * logps` is NaN for zero-probability tokens,
  `0 * -inf`), google/uncertainty-baselines#810 ("BALD's isnan check is too late"): the q10 patch aimed at
  the wrong value / wrong moment.
- pytorch/pytorch#10371 (`torch.tensor(tensor.tolist()) == tensor` only "almost all the time") and #32255
  (torch.tensor of Python floats takes the default dtype): the q05 list round trip; the same default-dtype
  rule gives the q02 torch.zeros buffer.
- The other mistakes follow the brief's list for long-hand code (an accumulator initialised wrong or not
  reset: q03, q12, q16; a loop index off by one: q06, q11; a shape-bookkeeping slip: q08, q14; a wrong
  variable reused: q13; a check that cannot fail read as an answer: q15).

The correct variants are written long-hand too, differently from full_marks: projections from a loop over a
fresh list, scores with explicit shape bookkeeping, torch.matmul and .mT; the mask filled by a nested Python
loop on a fresh tensor and a hand-written max-shifted softmax with keepdim; a self-attention and a
cross-attention with every intermediate named; a kernel smoother accumulated in a loop in V's dtype, the
prefix average filled by a loop, the entropy patched after the product with torch.where; the count summed
from a list of shapes starting at 0, the lesson rank from torch.linalg.matrix_rank, letters from a dict.

Every variant was checked with a throwaway script under /tmp/w69-attention-pipeline/: each variant's
notebook built the way harness.py builds it (the cell defining the name replaced) and run top to bottom (all
code cells but otter's), then every function compared with full_marks' and with plain torch (torch.softmax of
S + M, F.scaled_dot_product_attention outside the notebook) on unbatched, (2,) and (2, 3) batched inputs,
T_q != T_k, d_k != d_v, in float64, float32 and float16 (dtype and shape compared exactly, values within each
dtype's precision), several calls in a row; the count on several sizes with and without W_O; every written
answer compared with the right letter or integer. full_marks and the five correct variants agree
everywhere, and each wrong variant differs or fails in its own question.

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
    # projections from a loop over a fresh list; scores with explicit bookkeeping, torch.matmul and .mT
    "loop_projection_and_bookkept_matmul_mt_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    weight_list = [W_Q, W_K, W_V]
    results = []
    for W in weight_list:
        d_in = W.shape[0]
        assert X.shape[-1] == d_in, "X and W do not fit"
        projected = torch.matmul(X, W)
        results.append(projected)
    Q = results[0]
    K = results[1]
    V = results[2]
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    T_q = Q.shape[-2]
    T_k = K.shape[-2]
    K_transposed = K.mT                      # (..., d_k, T_k)
    raw_scores = torch.matmul(Q, K_transposed)
    assert raw_scores.shape[-2:] == (T_q, T_k)
    scale = math.sqrt(d_k)                   # Python float
    scores = raw_scores / scale
    return scores
''',
    },
    # mask filled by a nested loop on a fresh tensor; hand-written max-shifted softmax with keepdim
    "nested_loop_mask_and_long_hand_stable_softmax": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked_value = torch.finfo(dtype).min
    M = torch.zeros(T, T, dtype=dtype, device=device)
    for row in range(T):
        for col in range(row + 1, T):        # strictly above the diagonal
            M[row, col] = blocked_value
    return M
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is None:
        masked_scores = S
    else:
        masked_scores = S + M
    row_max = masked_scores.max(dim=-1, keepdim=True).values
    shifted = masked_scores - row_max
    exponentials = torch.exp(shifted)
    row_sums = exponentials.sum(dim=-1, keepdim=True)
    weights = exponentials / row_sums
    return weights
''',
    },
    # self-attention and cross-attention with every intermediate named
    "named_intermediates_self_and_cross_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    number_of_tokens = X.shape[-2]
    scores = scaled_scores(Q, K)
    if causal:
        mask = causal_additive_mask(number_of_tokens, scores.dtype, scores.device)
    else:
        mask = None
    weights = attention_weights(scores, mask)
    output = torch.matmul(weights, V)
    return output, weights
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    queries = torch.matmul(X, W_Q)       # (..., T, d_k)
    keys = torch.matmul(Y, W_K)          # (..., T', d_k)
    values = torch.matmul(Y, W_V)        # (..., T', d_v)
    scores = scaled_scores(queries, keys)
    weights = attention_weights(scores, M)
    output = torch.matmul(weights, values)
    return output, weights
''',
    },
    # kernel smoother accumulated in a loop; prefix average filled by a loop; entropy patched after the product
    "loop_kernel_loop_prefix_and_where_after_product_entropy": {
        NW: '''def nadaraya_watson(q, K, V):
    number_of_keys = K.shape[0]
    d_k = q.shape[0]
    d_v = V.shape[1]
    numerator = torch.zeros(d_v, dtype=V.dtype, device=V.device)
    denominator = torch.zeros((), dtype=V.dtype, device=V.device)
    for i in range(number_of_keys):
        score = torch.dot(q, K[i]) / math.sqrt(d_k)
        kernel = torch.exp(score)
        numerator = numerator + kernel * V[i]
        denominator = denominator + kernel
    return numerator / denominator
''',
        AVG: '''def prefix_average_matrix(T):
    P = torch.zeros(T, T, dtype=torch.float64)
    for row in range(T):
        visible = row + 1
        for col in range(visible):
            P[row, col] = 1.0 / visible
    return P
''',
        ENT: '''def row_entropy_bits(A):
    log_terms = torch.log2(A)                       # -inf where A == 0
    products = A * log_terms                        # NaN where A == 0
    products = torch.where(A > 0, products, torch.zeros_like(products))
    entropies = -products.sum(dim=-1)
    return entropies


def effective_tokens(A):
    H = row_entropy_bits(A)
    return torch.pow(2.0, H)
''',
    },
    # count summed from a list of shapes starting at 0; rank measured; letters from a dict
    "shape_list_count_from_zero_measured_rank_and_dict_letters": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    matrix_shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        matrix_shapes.append((d_v, d_model))
    total = 0
    for rows, cols in matrix_shapes:
        total += rows * cols
    return total
''',
        RANK: '''d_k_11 = 8
T_11 = 100
max_rank_S = min(d_k_11, T_11)

K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
S_lesson = scaled_scores(Q_lesson, K_lesson)
rank_S_lesson = int(torch.linalg.matrix_rank(S_lesson).item())
''',
        SCALE_ANS: '''options_q3 = {"flatter": "a", "peaked": "b", "unchanged": "c", "negative": "d"}
ans_scale = options_q3["peaked"]
''',
        MASK_ANS: '''options_q6 = {"rows": "a", "rank": "b", "copying": "c", "gradient": "d"}
ans_mask = options_q6["copying"]
''',
        SHAPES_ANS: '''options_q14 = {("T,T", "T,dv"): "a", ("T,T'", "T,dv"): "b", ("T',T", "T',dv"): "c", ("T,T'", "T',dv"): "d"}
ans_cross_shapes = options_q14[("T,T'", "T,dv")]
''',
        CAUSAL_ANS: '''options_q15 = {"always": "a", "never": "b", "equal lengths": "c", "shared time axis": "d"}
ans_cross_causal = options_q15["shared time axis"]
''',
        COST_ANS: '''options_q16 = {1: "a", 0: "b", 2: "c", 3: "d"}      # growth exponent -> letter
ans_complexity = options_q16[2]
''',
    },
}

WRONG = {
    # --- q01: helper keeps its results in a mutable default list
    "q01_helper_results_list_is_mutable_default_returns_first_calls_projections": ({
        PROJ: '''def _project_all(X, weights, results=[]):
    for W in weights:
        d_in, d_out = W.shape
        assert X.shape[-1] == d_in
        results.append(X @ W)
    return results


def project_qkv(X, W_Q, W_K, W_V):
    outputs = _project_all(X, [W_Q, W_K, W_V])
    Q = outputs[0]
    K = outputs[1]
    V = outputs[2]
    return Q, K, V
''',
    }, {"mistake": "The helper's `results=[]` default is created once, so every call appends to the same list "
                   "and outputs[0:3] are always the first call's projections: every call after the first returns "
                   "stale Q, K, V for other inputs (new list per call, or return the three products directly).",
        "where": ["q01", "q05", "q07", "q09"]}),

    # --- q02: score buffer allocated in the default float32
    "q02_score_buffer_from_zeros_in_default_float32": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    T_q = Q.shape[-2]
    T_k = K.shape[-2]
    scale = math.sqrt(d_k)
    K_T = K.transpose(-2, -1)
    out_shape = tuple(Q.shape[:-2]) + (T_q, T_k)
    scores = torch.zeros(out_shape)                     # buffer for the results
    for t in range(T_q):
        query_row = Q[..., t:t + 1, :]                  # (..., 1, d_k)
        row_scores = query_row @ K_T                    # (..., 1, T_k)
        scores[..., t, :] = row_scores[..., 0, :] / scale
    return scores
''',
    }, {"mistake": "The buffer is made with torch.zeros(shape) without dtype=Q.dtype, so it is float32: float64 "
                   "scores are rounded to float32 and float16 inputs come back as float32, not in the inputs' dtype.",
        "where": ["q02", "q05", "q07", "q09", "q13"]}),

    # --- q03: entropy accumulator not reset between the two trials
    "q03_entropy_accumulator_not_reset_between_trials_answers_flatter": ({
        SCALE_ANS: '''# experiment: 8 keys, d_k = 512, mean row entropy with and without the 1/sqrt(d_k)
torch.manual_seed(0)
_d_k = 512
_q = torch.randn(20, _d_k, dtype=torch.float64)
_k = torch.randn(8, _d_k, dtype=torch.float64)

_total = 0.0
for _row in range(_q.shape[0]):
    _w = torch.softmax(_q[_row] @ _k.T / math.sqrt(_d_k), dim=-1)
    _total += float(-(_w * torch.log2(_w.clamp_min(1e-300))).sum())
_H_scaled = _total / _q.shape[0]

for _row in range(_q.shape[0]):
    _w = torch.softmax(_q[_row] @ _k.T, dim=-1)
    _total += float(-(_w * torch.log2(_w.clamp_min(1e-300))).sum())
_H_unscaled = _total / _q.shape[0]

if abs(_H_unscaled - _H_scaled) < 1e-6:
    ans_scale = "c"
elif _H_unscaled > _H_scaled:
    ans_scale = "a"
else:
    ans_scale = "b"
''',
    }, {"mistake": "The entropy accumulator _total is not reset to 0 before the unscaled trial, so the unscaled "
                   "mean contains the scaled trial's total too and comes out larger: the student answers 'a' "
                   "(flatter). Without the scale the rows collapse onto one key ('b').",
        "where": ["q03"]}),

    # --- q04: the mask's rows are one shared Python list
    "q04_rows_built_with_list_times_alias_one_row": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.finfo(dtype).min
    rows = [[0.0] * T] * T
    for row in range(T):
        for col in range(T):
            if col > row:
                rows[row][col] = blocked
    M = torch.tensor(rows, dtype=dtype, device=device)
    return M
''',
    }, {"mistake": "`[[0.0] * T] * T` repeats one inner list T times, so blocking row 0's future blocks it in "
                   "every row: every row ends up blocking all keys after the first (only column 0 stays 0), not "
                   "only the keys after the query (build the rows with a comprehension).",
        "where": ["q04", "q05", "q07", "q09"]}),

    # --- q05: weights rebuilt from .tolist() in the default dtype
    "q05_weights_rebuilt_from_tolist_in_default_float32": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        total_scores = S + M
    else:
        total_scores = S
    row_max = total_scores.max(dim=-1, keepdim=True).values
    exps = torch.exp(total_scores - row_max)
    sums = exps.sum(dim=-1, keepdim=True)
    weights = exps / sums
    # check every row sums to one, then hand the weights back
    weights_list = weights.tolist()
    weights = torch.tensor(weights_list)
    assert torch.allclose(weights.sum(dim=-1), torch.ones(weights.shape[:-1]), atol=1e-2)
    return weights
''',
    }, {"mistake": "The weights go through .tolist() and back with torch.tensor(list), which takes the default "
                   "float32: float64 weights lose precision and float16 ones come back as float32 (the device "
                   "is lost too); the inputs' dtype is not kept.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: row-sum loop starts at index 1
    "q06_row_sum_loop_starts_at_one_answers_rows_stop_summing": ({
        MASK_ANS: '''# experiment: do the rows still sum to 1 with the mask off?
torch.manual_seed(1)
_X6 = torch.randn(5, 6, dtype=torch.float64)
_W6 = [torch.randn(6, 4, dtype=torch.float64) for _ in range(3)]
_Q6, _K6, _V6 = project_qkv(_X6, *_W6)
_A6 = attention_weights(scaled_scores(_Q6, _K6))          # no mask
_all_one = True
for _t in range(_A6.shape[0]):
    _row_sum = 0.0
    for _i in range(1, _A6.shape[1]):
        _row_sum += float(_A6[_t, _i])
    if abs(_row_sum - 1.0) > 1e-9:
        _all_one = False
ans_mask = "c" if _all_one else "a"
''',
    }, {"mistake": "The hand-written row sum starts at index 1 and skips the first key, so no row seems to sum "
                   "to 1 and the student answers 'a'; softmax rows always sum to 1, the real problem is that "
                   "position t can read token t+1 ('c').",
        "where": ["q06"]}),

    # --- q08: numerator accumulator shaped like the query
    "q08_numerator_accumulator_shaped_like_query_not_values": ({
        NW: '''def nadaraya_watson(q, K, V):
    n_keys = K.shape[0]
    d_k = q.shape[0]
    numerator = torch.zeros_like(q)          # running weighted sum of values
    denominator = 0.0
    for i in range(n_keys):
        dot = (q * K[i]).sum()
        kernel_weight = torch.exp(dot / math.sqrt(d_k))
        numerator = numerator + kernel_weight * V[i]
        denominator = denominator + kernel_weight
    return numerator / denominator
''',
    }, {"mistake": "The numerator accumulator is torch.zeros_like(q), shape (d_k,), while it sums value rows of "
                   "shape (d_v,): it only works when d_k == d_v and fails with a broadcast error otherwise "
                   "(zeros of V.shape[1] in V's dtype).",
        "where": ["q08"]}),

    # --- q10: log patch looks for NaN, but log2(0) is -inf
    "q10_log_patch_looks_for_nan_but_log2_of_zero_is_minus_inf": ({
        ENT: '''def row_entropy_bits(A):
    log_values = torch.log2(A)
    # log of a masked 0 is not a number: replace it with 0 before multiplying
    bad = torch.isnan(log_values)
    log_values[bad] = 0.0
    terms = A * log_values
    entropy = -terms.sum(dim=-1)
    return entropy


def effective_tokens(A):
    H = row_entropy_bits(A)
    return 2.0 ** H
''',
    }, {"mistake": "torch.log2(0) is -inf, not NaN, so the isnan patch replaces nothing; 0 * -inf then gives "
                   "NaN and every row with a masked (zero) weight gets entropy NaN instead of treating 0 log 0 as 0.",
        "where": ["q10"]}),

    # --- q11: hand row reduction whose elimination loop stops one row short
    "q11_hand_row_reduction_loop_skips_last_row": ({
        RANK: '''max_rank_S = 8       # S = Q K^T goes through d_k = 8 dimensions

K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rows = scaled_scores(Q_lesson, K_lesson).tolist()
n_rows = len(rows)
n_cols = len(rows[0])
rank = 0
for col in range(n_cols):
    pivot = None
    for r in range(rank, n_rows):
        if abs(rows[r][col]) > 1e-9:
            pivot = r
            break
    if pivot is None:
        continue
    rows[rank], rows[pivot] = rows[pivot], rows[rank]
    for r in range(rank + 1, n_rows - 1):          # eliminate below the pivot
        factor = rows[r][col] / rows[rank][col]
        rows[r] = [a - factor * b for a, b in zip(rows[r], rows[rank])]
    rank += 1
rank_S_lesson = rank
''',
    }, {"mistake": "The elimination loop `range(rank + 1, n_rows - 1)` never clears the last row, so the last "
                   "score row (a mix of the others) is counted as a new pivot: rank_S_lesson comes out 3 instead "
                   "of 2 (use range(rank + 1, n_rows), or torch.linalg.matrix_rank).",
        "where": ["q11"]}),

    # --- q12: total accumulator started at 1
    "q12_total_accumulator_started_at_one_like_the_product": ({
        PARAMS: '''def _numel(shape):
    n = 1
    for size in shape:
        n *= size
    return n


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    total = 1
    for shape in shapes:
        total += _numel(shape)
    return total
''',
    }, {"mistake": "The sum's accumulator starts at 1 (copied from the product helper's `n = 1`), so every count "
                   "is one too many: 73728 + 1 for the lesson's exercise (a sum starts at 0).",
        "where": ["q12"]}),

    # --- q13: masked scores returned under the weights' place
    "q13_returns_masked_scores_instead_of_weights": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q                       # (..., T, d_k)
    K = Y @ W_K                       # (..., T', d_k)
    V = Y @ W_V                       # (..., T', d_v)
    T = Q.shape[-2]
    T_prime = K.shape[-2]
    scores = scaled_scores(Q, K)
    assert scores.shape[-2:] == (T, T_prime)
    if M is not None:
        masked_scores = scores + M
    else:
        masked_scores = scores
    weights = attention_weights(masked_scores)
    output = weights @ V
    return output, masked_scores
''',
    }, {"mistake": "The function returns masked_scores as its second value instead of weights: A is the scaled "
                   "(masked) score matrix, whose rows do not sum to 1; O is right.",
        "where": ["q13"]}),

    # --- q14: O's row count copied from the score matrix's columns
    "q14_output_shape_row_count_read_from_score_columns_answers_d": ({
        SHAPES_ANS: '''# shape bookkeeping with symbols
Q_shape = ("T", "d_k")
K_shape = ("T'", "d_k")
V_shape = ("T'", "d_v")
S_shape = (Q_shape[0], K_shape[0])          # Q K^T: rows of Q, rows of K
O_shape = (S_shape[1], V_shape[1])          # A V
_table = {(("T", "T"), ("T", "d_v")): "a", (("T", "T'"), ("T", "d_v")): "b",
          (("T'", "T"), ("T'", "d_v")): "c", (("T", "T'"), ("T'", "d_v")): "d"}
ans_cross_shapes = _table[(S_shape, O_shape)]
''',
    }, {"mistake": "O's row count is read from S_shape[1] (the keys, T') instead of S_shape[0]: A V keeps A's "
                   "rows, one per query, so O is T x d_v ('b'); the student answers 'd'.",
        "where": ["q14"]}),

    # --- q15: rectangular-mask trial that can only succeed
    "q15_rectangular_mask_trial_checks_only_rows_sum_to_one_answers_always": ({
        CAUSAL_ANS: '''# trial: build a causal mask for several (T, T') and see whether attention still works
_works = []
for _T, _Tp in [(3, 3), (3, 5), (5, 3), (4, 4)]:
    _S = torch.randn(_T, _Tp, dtype=torch.float64)
    _M = torch.triu(torch.full((_T, _Tp), torch.finfo(torch.float64).min, dtype=torch.float64), diagonal=1)
    _A = attention_weights(_S, _M)
    _ok = bool(torch.allclose(_A.sum(dim=-1), torch.ones(_T, dtype=torch.float64))) and not bool(torch.isnan(_A).any())
    _works.append(_ok)
if all(_works):
    ans_cross_causal = "a"          # works for every shape, so always use it
elif any(_works):
    ans_cross_causal = "c"
else:
    ans_cross_causal = "b"
''',
    }, {"mistake": "The trial only checks that rows sum to 1 and have no NaN, which any finite additive mask "
                   "satisfies, and reads 'it runs for every shape' as 'always needed': answers 'a'. A causal mask "
                   "makes sense only when X and Y share one time axis ('d').",
        "where": ["q15"]}),

    # --- q16: multiply-add counter reset inside the query loop
    "q16_multiply_add_counter_reset_inside_query_loop_answers_linear": ({
        COST_ANS: '''# count the multiply-adds of S = Q K^T by hand for T and 2T
def _count_mult_adds(T, d_k=16):
    for t in range(T):                # queries
        count = 0
        for i in range(T):            # keys
            for j in range(d_k):
                count += 1
    return count


_ratio = _count_mult_adds(32) / _count_mult_adds(16)
if _ratio < 1.5:
    ans_complexity = "b"
elif _ratio < 3:
    ans_complexity = "a"
elif _ratio < 6:
    ans_complexity = "c"
else:
    ans_complexity = "d"
''',
    }, {"mistake": "count = 0 sits inside the query loop, so the helper returns only the last query's T * d_k "
                   "multiply-adds; doubling T doubles it and the student answers 'a' (linear). All T^2 scores "
                   "cost T^2 d_k, which quadruples ('c').",
        "where": ["q16"]}),
}
