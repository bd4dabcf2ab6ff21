"""Blind held-out set 68 for attention-pipeline.

Sixty-eighth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text, question statements and public checks of
attention-pipeline.ipynb (tokens are rows, leading batch dimensions allowed, d_v may differ from d_k, T_q
from T_k in cross-attention, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min), the solution
cells of full_marks.ipynb, `harness.py`, blind67.py in full (for the format and the docstring), and only the
variant names of the earlier blind sets (to avoid repeating a mistake in the same form).

Round 68's angle: A REALISTIC CLASS. The mistakes a class makes most often on these exercises, each in a
spelling the earlier sets' names do not use: einsum subscripts written for one unbatched sequence, so the
batched input crashes (q01); d_k read off the last axis of the already transposed keys, which is T_k (q02);
the causal triangle kept with torch.tril on a full finfo.min matrix, which blocks the past and opens the
future (q04); the causal mask applied after the softmax, in place with masked_fill_, without renormalising
(q07); kernel weights collected from math.exp into torch.tensor(list), which is float32 whatever the inputs
(q08); the entropy through torch.special.xlogy with the minus sign forgotten (q10); the parameter count
factored as `d_model * 2 * d_k + d_v` with the parentheses lost (q12); a functional softmax over dim=1,
the key axis only for unbatched inputs (q13). The written answers go wrong from a plausible misreading or
a faulty computation: scores normalised by their row sum instead of a softmax, which is scale invariant,
answers "nothing changes" (q03); a gradient check under the mask confirms the true-sounding option d (q06);
"independent questions" counted as distinct rows of S (q11); O's rows taken from the values' sequence
(q14); a trial that only runs when the lengths match read as "whenever T = T'" (q15); the cost of a
product counted with K's shape instead of K^T's, T * d_k * d_k, which is linear in T (q16). q05 and q09 are
reached through `where`: their public checks call scaled_scores, causal_additive_mask and self_attention,
which the q02, q04 and q07 variants break.

Public material found with the `search` tool, and what it showed:
- kyegomez/BitNet#5, BenfengXu/SSAN#31, sair-lab/LGL#8 ("einsum(): the number of subscripts in the equation
  (3) does not match the number of dimensions (2) ... and no ellipsis was given"): einsum equations written
  for one rank of input, the q01 crash on a batched X.
- phlippe/uvadlc_notebooks#72 (a reader sure `d_k` was taken from the wrong axis; "it can be determined by
  q.size()[-1] or k.size()[-1], but can't be inferred by the values"), lucidrains/vit-pytorch#65 ("self.scale
  = dim ** -0.5 ... should be dim_head"; "still making rookie mistakes"), cneuralnetwork/solving-ml-papers#1
  (scaled by the wrong width, "will work ... where all hidden dims are same"): the q02 scale read from the
  wrong axis, here the transposed keys' last axis.
- karpathy/nanoGPT#170 ("you use tril(). Shouldn't it be triu()?", answered by the `== 0` in the fill
  condition), GPT-SoVITS#965 (the diagonal offset of a causal mask): the tril/triu polarity of q04.
- "Build a Large Language Model From Scratch" ch. 3 (fliphtml5 pages 94-95: weights masked after the softmax
  must be renormalised by the row sums; the efficient way masks the scores with -inf before the softmax) and
  sachinkalsi.github.io "why do we use negative inf for masking": the q07 mask applied after the softmax.
- pytorch/pytorch#136350 ("Python float to torch.float32": torch.tensor of a list of Python floats is
  float32), #52560 and #27754 (torch.tensor of floats gives the default dtype): the q08 kernel weights.
- jubatus/jubatus#348 ("stat::entropy return negative value. We must multiply -1"), priorknowledge/loom#43
  ("Fix sign error in entropy calculation"), fastai/course22#22 (entropy formula producing negative
  values): the q10 missing minus sign.
- cplusplus/draft#1191 ("Operator precedence is hard"), hildogjr/KiCost#400 (a formula wrong "because of a
  missing parentheses"): the q12 count.
- datawhalechina/llms-from-scratch-cn#54 (softmax with dim=1 "cannot handle the batch case": for
  [batch, tokens, tokens] scores it must be dim=-1), PetrochukM/PyTorch-NLP#2, fastNLP#254 ("otherwise wrong
  in the four-dimensional case"): the q13 softmax over dim=1.
- apple/ml-cvnets#17 (MAdds of QK^T computed as L * C * C instead of N x N x C; fixed by the maintainer):
  the q16 cost formula with the wrong factor, which makes the growth linear.
- HackingGPT part 5 (git.1990666.xyz/mytechnotalent/HackingGPT-5: "comparing softmax weights to manual
  normalization"): the q03 experiment that normalises the scores by their sum instead of a softmax.
The q06, q11, q14 and q15 variants follow the brief's list (a plausible misreading, or an experiment that
measures something other than what the question asks).

The correct variants are written differently from full_marks: projections from one fused matmul split with
torch.split and scores through torch.matmul with .mT and .div; the mask from triu of a torch.full finfo.min
matrix and the weights from torch.nn.functional.softmax of S.add(M); a self-attention that reads T off the
queries and a cross-attention written inline with the softmax method; a kernel normalised through logsumexp,
the prefix average as a lower triangle times a column of float64 reciprocals, entropies from
torch.special.xlogy divided by ln 2 and torch.exp2; a count summed over the weight shapes, the lesson rank
from torch.linalg.matrix_rank, letters indexed out of "abcd".

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w68-attention-pipeline/: each variant's notebook built the way harness.py builds it and run top to
bottom (all code cells but otter's), the public checks recorded as passed or failed, then every function
compared with full_marks' and with plain torch (torch.softmax of S + M, and
F.scaled_dot_product_attention outside the notebook) on unbatched, (2,) and (2, 3) batched inputs,
T_q != T_k, d_k != d_v, T = 1, random additive masks, in float64, float32, float16 and bfloat16 (dtype and
shape compared exactly, values within each dtype's precision); the count on several sizes with and without
W_O; every written answer compared with the right letter or integer. full_marks and the five correct
variants agree everywhere (16-bit dtypes within their precision), and each wrong variant differs or fails
in its own question and only in questions listed in its `where`.

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
    # one fused matmul split back by widths; scores through torch.matmul with the .mT view, then .div
    "fused_split_projection_and_mt_div_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    widths = [W_Q.shape[-1], W_K.shape[-1], W_V.shape[-1]]
    fused = X @ torch.cat([W_Q, W_K, W_V], dim=-1)
    Q, K, V = torch.split(fused, widths, dim=-1)
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    return torch.matmul(Q, K.mT).div(math.sqrt(Q.size(-1)))
''',
    },
    # the mask as the strict upper triangle of a finfo.min matrix; weights from the functional softmax of
    # S.add(M)
    "full_min_triu_mask_and_functional_softmax_of_add": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(blocked, diagonal=1)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S.add(M)
    return torch.nn.functional.softmax(Z, dim=-1)
''',
    },
    # self-attention that reads T off the queries; cross-attention inline with the softmax method
    "query_length_self_attention_and_inline_cross": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    mask = None
    if causal:
        mask = causal_additive_mask(Q.size(-2), dtype=S.dtype, device=S.device)
    A = attention_weights(S, mask)
    return torch.matmul(A, V), A
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    S = Q.matmul(K.transpose(-1, -2)) / math.sqrt(K.size(-1))
    if M is not None:
        S = S + M
    A = S.softmax(dim=-1)
    return A.matmul(V), A
''',
    },
    # the kernel ratio through logsumexp; the prefix average as a triangle times float64 reciprocals;
    # entropies from xlogy in nats divided by ln 2, effective tokens from exp2
    "logsumexp_kernel_reciprocal_prefix_and_xlogy_bits": {
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    w = torch.exp(s - torch.logsumexp(s, dim=0))      # kappa_i / sum_j kappa_j
    return w @ V
''',
        AVG: '''def prefix_average_matrix(T):
    lower = torch.tril(torch.ones(T, T, dtype=torch.float64))
    inv_counts = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return lower * inv_counts.unsqueeze(-1)
''',
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # the count summed over the weight shapes; the lesson rank measured; letters indexed out of "abcd"
    "shape_sum_count_measured_rank_and_indexed_letters": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''',
        RANK: '''max_rank_S = min(8, 100)     # S = Q K^T factors through d_k = 8 dimensions

_K11 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q11 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q11, _K11)))
''',
        SCALE_ANS: '''ans_scale = "abcd"[1]
''',
        MASK_ANS: '''ans_mask = "abcd"[2]
''',
        SHAPES_ANS: '''ans_cross_shapes = "abcd"[1]
''',
        CAUSAL_ANS: '''ans_cross_causal = "abcd"[3]
''',
        COST_ANS: '''ans_complexity = "abcd"[2]
''',
    },
}

WRONG = {
    # --- q01: einsum subscripts written for one unbatched sequence
    "q01_einsum_subscripts_without_batch_axis_crash_on_batched_input": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.einsum("td,dk->tk", X, W_Q)
    K = torch.einsum("td,dk->tk", X, W_K)
    V = torch.einsum("td,dv->tv", X, W_V)
    return Q, K, V
''',
    }, {"mistake": "The einsum equations name two axes for X ('td'), so any X with a leading batch axis raises "
                   "'the number of subscripts in the equation does not match the number of dimensions' "
                   "('...td' or an explicit batch letter was needed); self_attention, which calls "
                   "project_qkv, crashes on batched input too.",
        "where": ["q01", "q07", "q09", "q13"]}),

    # --- q02: d_k read off the last axis of the transposed keys, which is T_k
    "q02_head_size_read_from_transposed_keys_last_axis": ({
        SCORES: '''def scaled_scores(Q, K):
    K_t = K.transpose(-2, -1)          # (..., d_k, T_k)
    d_k = K_t.shape[-1]
    return Q @ K_t / math.sqrt(d_k)
''',
    }, {"mistake": "d_k is read from the last axis of K transposed, which holds the number of keys T_k, so the "
                   "scores are divided by sqrt(T_k) instead of sqrt(d_k): right only when T_k == d_k.",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    # --- q03: the scores turned into weights by dividing by their row sum, which is scale invariant
    "q03_experiment_normalises_scores_by_row_sum_not_softmax_answers_c": ({
        SCALE_ANS: '''# experiment: one query against 8 keys at d_k = 512, with and without the 1/sqrt(d_k)
torch.manual_seed(0)
_d3 = 512
_q3 = torch.randn(_d3, dtype=torch.float64)
_K3 = torch.randn(8, _d3, dtype=torch.float64)


def _to_weights(scores):
    return scores / scores.sum(dim=-1, keepdim=True)       # weights that sum to 1


def _entropy_bits(p):
    p = p[p > 0]
    return float(-(p * torch.log2(p)).sum())


_H_scaled = _entropy_bits(_to_weights(_K3 @ _q3 / math.sqrt(_d3)))
_H_unscaled = _entropy_bits(_to_weights(_K3 @ _q3))
if math.isclose(_H_scaled, _H_unscaled, rel_tol=1e-9):
    ans_scale = "c"
elif _H_unscaled < _H_scaled:
    ans_scale = "b"
else:
    ans_scale = "a"
''',
    }, {"mistake": "The experiment turns scores into weights by dividing by their row sum instead of a softmax; "
                   "that normalisation cancels any common factor, so the entropies with and without 1/sqrt(d_k) "
                   "are equal and the student answers 'c' (nothing changes) instead of 'b'.",
        "where": ["q03"]}),

    # --- q04: the triangle of a full finfo.min matrix kept with tril: the past blocked, the future open
    "q04_full_min_matrix_kept_with_tril_blocks_past_opens_future": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    blocked = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.tril(blocked, diagonal=-1)
''',
    }, {"mistake": "torch.tril(..., diagonal=-1) keeps finfo.min strictly below the diagonal, so the mask blocks "
                   "the past keys and leaves the future (above the diagonal) open: the polarity is reversed "
                   "(torch.triu(..., diagonal=1) was meant).",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # --- q06: a gradient check confirms the true-sounding option d, which is not why it goes wrong
    "q06_blocked_score_gradient_check_confirms_option_d": ({
        MASK_ANS: '''# experiment: do the blocked scores get any gradient?
torch.manual_seed(0)
_S6 = torch.randn(5, 5, dtype=torch.float64, requires_grad=True)
_V6 = torch.randn(5, 3, dtype=torch.float64)
_A6 = attention_weights(_S6, causal_additive_mask(5, torch.float64))
(_A6 @ _V6).sum().backward()
_future6 = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
if bool((_S6.grad[_future6] == 0).all()):      # no gradient through the blocked entries
    ans_mask = "d"
else:
    ans_mask = "c"
''',
    }, {"mistake": "The student verifies that blocked scores get zero gradient (true with the mask on) and picks "
                   "'d' because the statement checks out, but the question asks why training with the mask OFF "
                   "goes wrong: position t reads token t+1, the target it is trained to predict ('c').",
        "where": ["q06"]}),

    # --- q07: the causal mask applied to the weights after the softmax, in place, no renormalisation
    "q07_future_weights_zeroed_in_place_after_softmax": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S)
    if causal:
        T = X.shape[-2]
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=X.device), diagonal=1)
        A.masked_fill_(future, 0.0)
    return A @ V, A
''',
    }, {"mistake": "The softmax runs over all keys and the future weights are zeroed afterwards (masked_fill_), "
                   "without renormalising: A is lower-triangular but its rows no longer sum to 1, and the past "
                   "weights are the unmasked ones, not a softmax over the visible keys. The mask belongs on "
                   "the scores before the softmax.",
        "where": ["q07", "q09"]}),

    # --- q08: kernel weights from math.exp gathered into torch.tensor(list), float32 by default
    "q08_kernel_weights_from_math_exp_list_in_default_float32": ({
        NW: '''def nadaraya_watson(q, K, V):
    d_k = q.shape[-1]
    kappa = torch.tensor([math.exp(float(k @ q) / math.sqrt(d_k)) for k in K])
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "torch.tensor of a list of Python floats is float32 whatever the inputs' dtype, so the kernel "
                   "weights lose float64 precision and float16 inputs come back as float32 (and math.exp "
                   "overflows where a tensor exp would give inf); the maths is right.",
        "where": ["q08"]}),

    # --- q10: entropy from xlogy with the minus sign forgotten
    "q10_xlogy_entropy_without_minus_sign": ({
        ENT: '''def row_entropy_bits(A):
    return torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "xlogy(A, A) is A log A (0 where A = 0), and its row sum is minus the entropy; the leading "
                   "minus sign is missing, so the entropies come out negative and the effective numbers of "
                   "tokens are 1 / 2^H instead of 2^H.",
        "where": ["q10"]}),

    # --- q11: "independent questions" counted as distinct rows of S
    "q11_lesson_rank_counted_as_unique_score_rows": ({
        RANK: '''max_rank_S = 8

_K11 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q11 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_S11 = scaled_scores(_Q11, _K11)
# every different question is a different row of S
rank_S_lesson = len(torch.unique(_S11, dim=0))
''',
    }, {"mistake": "The rank is taken as the number of distinct rows of S (3: three queries ask the same "
                   "question), but the row for query 5 is the average of two others, so only 2 rows are "
                   "linearly independent: rank_S_lesson should be 2.",
        "where": ["q11"]}),

    # --- q12: the factored count typed without its parentheses
    "q12_factored_count_typed_without_parentheses": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * 2 * d_k + d_v
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "d_model (2 d_k + d_v) is typed as d_model * 2 * d_k + d_v; by precedence the d_v term is no "
                   "longer multiplied by d_model, so W_V counts d_v weights instead of d_model * d_v.",
        "where": ["q12"]}),

    # --- q13: functional softmax over dim=1, the key axis only when the input is unbatched
    "q13_functional_softmax_dim_one_right_only_unbatched": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M
    A = torch.nn.functional.softmax(S, dim=1)
    return A @ V, A
''',
    }, {"mistake": "The softmax runs over dim=1, which is the key axis of an unbatched (T, T') score matrix but "
                   "the query axis of a batched (B, T, T') one (and the head or query axis in 4-D), so batched "
                   "rows do not sum to 1; dim=-1 was needed.",
        "where": ["q13"]}),

    # --- q14: O's rows taken from the values' sequence
    "q14_output_rows_taken_from_value_sequence_answers_d": ({
        SHAPES_ANS: '''# S = Q K^T: one row per query of X, one column per key of Y
_shape_S = ("T", "T'")
# O = A V: the values come from Y, so O has one row per value vector of Y
_shape_O = ("T'", "d_v")
_options14 = {"a": (("T", "T"), ("T", "d_v")), "b": (("T", "T'"), ("T", "d_v")),
              "c": (("T'", "T"), ("T'", "d_v")), "d": (("T", "T'"), ("T'", "d_v"))}
ans_cross_shapes = next(k for k, v in _options14.items() if v == (_shape_S, _shape_O))
''',
    }, {"mistake": "S is read right (T x T') but O is given one row per value vector of Y; A V has A's rows, "
                   "one per query, so O is T x d_v and the answer is 'b', not 'd'.",
        "where": ["q14"]}),

    # --- q15: a trial with the square causal mask that only runs when the lengths match
    "q15_square_mask_trial_runs_only_for_equal_lengths_answers_c": ({
        CAUSAL_ANS: '''# experiment: for which lengths can cross-attention take a causal mask?
torch.manual_seed(0)
_W15 = [torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 4, dtype=torch.float64),
        torch.randn(6, 2, dtype=torch.float64)]
_ran15 = {}
for _T15, _Tp15 in [(4, 4), (4, 6), (6, 4), (5, 5)]:
    _X15 = torch.randn(_T15, 6, dtype=torch.float64)
    _Y15 = torch.randn(_Tp15, 6, dtype=torch.float64)
    try:
        cross_attention(_X15, _Y15, *_W15, M=causal_additive_mask(_T15, torch.float64))
        _ran15[(_T15, _Tp15)] = True
    except RuntimeError:
        _ran15[(_T15, _Tp15)] = False
if all(ok == (t == tp) for (t, tp), ok in _ran15.items()):
    ans_cross_causal = "c"          # it works whenever T == T'
elif all(_ran15.values()):
    ans_cross_causal = "a"
else:
    ans_cross_causal = "d"
''',
    }, {"mistake": "The trial adds a square (T, T) causal mask to (T, T') scores, which only broadcasts when "
                   "T == T', and reads 'it runs' as 'it makes sense': answers 'c'. Whether a causal mask makes "
                   "sense depends on X and Y sharing one time axis, not on the lengths ('d').",
        "where": ["q15"]}),

    # --- q16: the cost of Q K^T counted with K's shape instead of K^T's
    "q16_cost_counted_with_key_width_twice_answers_linear": ({
        COST_ANS: '''# experiment: multiply-adds of S = Q K^T at T and 2T, d_k = 64
def _score_cost(T, d_k=64):
    Q = torch.zeros(T, d_k)
    K = torch.zeros(T, d_k)
    m, n = Q.shape           # (m x n) @ (n x p) costs m * n * p multiply-adds
    _, p = K.shape
    return m * n * p


_ratio16 = _score_cost(2048) / _score_cost(1024)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio16)]
''',
    }, {"mistake": "p is read from K's shape (d_k) instead of K^T's (T), so the cost is T * d_k * d_k, which "
                   "doubles with T, and the student answers 'a' (linear); the T x T scores cost T^2 d_k ('c').",
        "where": ["q16"]}),
}
