"""Blind held-out set 64 for attention-pipeline.

Sixty-fourth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text, question statements and public checks of
attention-pipeline.ipynb, the solution cells of full_marks.ipynb (tokens are rows, leading batch dimensions
allowed, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min, the prefix average in float64,
letters as one-letter strings, both q11 answers Python ints), `harness.py`, blind63.py in full (for the
format), and only the variant names of the earlier blind sets (to avoid repeating a mistake in the same form).

Round 64's angle: CODE THAT FITS THE NOTEBOOK'S OWN EXAMPLE. Each wrong variant passes (or would pass) the
worked example the student looked at, because it quietly relies on something true only of that example:
the lesson's tokens being one-hot rows, so X @ W is read as a row lookup W[X.argmax(-1)] (q01); the
instruction "so that float64 inputs keep full precision" taken as "compute S in float64", right for the
float64 example and the wrong dtype for every other (q02); the scale experiment run on Lesson 07's
zero-projection case, where every score is 0 and deleting the scale changes nothing (q03); a mask that
blocks only the next token, which is all the q04 check's entries ([0, 1] blocked, [1, 0] and [2, 2] open)
look at (q04); blocked entries found by equality with torch.finfo(torch.float64).min, the dtype of the
lesson's masks (q05); the rank of the lesson's weights with and without the mask, which drops only because
the lesson's queries repeat (q06); the kernel scale held in a one-element float64 tensor, which promotes a
float32 or float16 result to float64 (q08); the reciprocals typed from the lesson's five-row 1/t table
(q09); an einsum written with the 2-D subscripts of the lesson's A (q10); the largest rank "scaled" from the
lesson's head (rank 2 at d_k = 4, so d_k / 2) (q11); the weights counted off the lesson's own W_Q, W_K, W_V
tensors, which gives 72 whatever the arguments (q12); the q14 shapes read off the q13 Y = X check, where
T = T' makes all four options match (q14); the q15 answer drawn from that same Y = X check (q15); and the
cost measured with a sliding window sized to the lesson's "three tokens back" (q16). q07 and q13 are reached
through `where`: the q01, q02, q04 and q05 variants break self_attention (q07), whose zero-projection check
and entropies may reach q09 and q10; the q01, q02, q04 and q05 variants break or may break the q13 tests
(cross_attention calls attention_weights and scaled_scores, and the q13 public check compares it with
self_attention).

Public material found with the `search` tool, and what it showed:
- community.deeplearning.ai "Do we need matrix multiplication to get a word embedding?" and
  interactiveprimer.com's word-embeddings page ("Multiplying the embedding matrix by a one-hot vector simply
  selects row i ... nobody forms the giant one-hot vector or does the multiply - they just index row i
  directly"): the q01 variant applies that shortcut to the lesson's one-hot tokens, where it is exact, and
  keeps it for dense inputs, where it is not.
- HF-style `_expand_mask` helpers in the code corpus (Alibaba/axolotl/LED copies:
  `inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)` with the dtype passed in)
  show masks whose blocked value depends on the dtype they were built for; the q05 variant looks the blocked
  entries up with the float64 value of the lesson's masks, so float32 and float16 masks block nothing.
- pytorch.org torch.result_type and the type-promotion notes (a pytorch/pytorch PR on 0-dim tensors vs
  dimensioned tensors): a dimensioned operand's dtype wins over a same-category 0-dim one, so a shape-(1,)
  float64 scale promotes a float32 score vector; the q08 variant builds its scale as
  torch.tensor([d_k], dtype=torch.float64).
- locuslab/deq#17 and kyegomez/BitNet#5 ("einsum(): the number of subscripts in the equation (3) does not
  match the number of dimensions (4) ... and no ellipsis was given"): einsum strings written for the shape
  the author tried; the q10 variant's "ik,ik->i" fails on any batched A.
- cyrilzakka.github.io llm-playbook "Sliding-Window Attention" and cruxible.dev's lesson ("reduces the time
  complexity to O(n*w), a linear function with respect to the sequence length"): the q16 variant counts the
  scores of a window of 4 (the lesson's "it" reads "mat" three positions back), gets ratio 2 and answers 'a'.
The q02 (dtype raised to keep precision), q03 (experiment on the degenerate zero-score example), q04 (checks
that only look at three entries), q06 (rank with repeated queries), q09 (a table's literals), q11 (a ratio
from one example), q12 (the example's tensors), q14 and q15 (T = T' example) variants follow the brief's list
of example-fitting slips.

The correct variants are written differently from full_marks: einsum projections and scores; a boolean tril
kept-mask through torch.where and xlogy entropies in bits; a hand-written max-shifted softmax that upcasts
16-bit scores and casts back, and the prefix average from float64 reciprocals; a self_attention that fills
the future with torch.finfo(S.dtype).min through masked_fill, and a max-shifted Nadaraya-Watson kernel;
einsum cross-attention with functional softmax, a shape-product parameter count, and computed q11 ranks.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w64-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's;
the public checks were run as plain functions from the assignment's test cells), then every function compared
with plain torch (`torch.softmax`, `torch.nn.functional.scaled_dot_product_attention` with an additive
attn_mask, the notebook's own formulas in float64, `torch.special.entr` entropies) on unbatched, (2,) and
(2, 3) batched inputs, T_q != T_k, d_k != d_v, T up to 9, in float64, float32, float16 and bfloat16; the
zero-projection self-attention against the prefix average, the count on several argument sets, and every
written answer compared with the right letter or integer. full_marks and the correct variants agree
everywhere (16-bit dtypes within their precision), and each wrong variant differs or fails in its own
question and only in questions listed in its `where`.

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
    # einsum with an ellipsis for any leading batch dimensions, for the projections and for the scores
    "einsum_ellipsis_projection_and_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...td,dk->...tk", X, W_K)
    V = torch.einsum("...td,dv->...tv", X, W_V)
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    scale = 1.0 / math.sqrt(K.shape[-1])
    return torch.einsum("...qd,...kd->...qk", Q, K) * scale
''',
    },
    # a boolean kept-triangle turned into the additive mask with torch.where (the fill a Python float, so
    # the result keeps the requested dtype), and entropies from torch.xlogy (xlogy(0, 0) = 0) in bits
    "where_kept_triangle_mask_and_xlogy_bits": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    kept = torch.ones(T, T, dtype=torch.bool, device=device).tril()
    zero = torch.zeros(T, T, dtype=dtype, device=device)
    return torch.where(kept, zero, torch.finfo(dtype).min)
''',
        ENT: '''def row_entropy_bits(A):
    return -torch.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
    },
    # a hand-written softmax: 16-bit scores upcast to float32, the row max subtracted, cast back at the end;
    # the prefix average from float64 reciprocals of the row numbers
    "upcast_max_shifted_softmax_and_float64_reciprocal_prefix": {
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    x = S.float() if S.dtype in (torch.float16, torch.bfloat16) else S
    x = x - x.amax(dim=-1, keepdim=True)
    e = torch.exp(x)
    return (e / e.sum(dim=-1, keepdim=True)).to(S.dtype)
''',
        AVG: '''def prefix_average_matrix(T):
    recip = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * recip.unsqueeze(-1)
''',
    },
    # the future filled with the most negative finite number of S's own dtype through masked_fill (same
    # weights as adding the mask); the kernel shifted by its maximum before exp (the ratio is unchanged)
    "masked_fill_self_attention_and_shifted_kernel": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = S.shape[-1]
        future = torch.ones(T, T, dtype=torch.bool, device=S.device).triu(diagonal=1)
        S = S.masked_fill(future, torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return torch.matmul(A, V), A
''',
        NW: '''def nadaraya_watson(q, K, V):
    s = (K @ q) / math.sqrt(q.shape[-1])
    kappa = torch.exp(s - s.max())
    return V.transpose(0, 1) @ kappa / kappa.sum()
''',
    },
    # einsum cross-attention with the functional softmax; the count as a sum of shape products; both q11
    # ranks computed and turned into Python ints
    "einsum_cross_shape_product_count_and_computed_ranks": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.matmul(X, W_Q)
    K, V = torch.matmul(Y, W_K), torch.matmul(Y, W_V)
    S = torch.einsum("...td,...sd->...ts", Q, K) / math.sqrt(Q.size(-1))
    if M is not None:
        S = S + M
    A = torch.nn.functional.softmax(S, dim=-1)
    return torch.einsum("...ts,...sv->...tv", A, V), A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''',
        RANK: '''_K_l = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q_l = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

max_rank_S = min(8, 100)

rank_S_lesson = int(torch.linalg.matrix_rank(_Q_l @ _K_l.T / math.sqrt(4)))
''',
    },
}

WRONG = {
    # --- q01: the lesson's tokens are one-hot, so X @ W "is" a row lookup
    "q01_one_hot_tokens_assumed_projection_as_row_lookup_by_argmax": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # each token is a one-hot row, so X @ W just picks row argmax(x) of W: an embedding lookup
    ids = X.argmax(dim=-1)
    return W_Q[ids], W_K[ids], W_V[ids]
''',
    }, {"mistake": "Replaces X @ W by the row lookup W[X.argmax(-1)], which equals the product only for one-hot "
                   "tokens like the lesson's; for dense inputs Q, K and V are just rows of the weight "
                   "matrices (right shapes and dtype, wrong values).",
        "where": ["q01", "q07", "q09", "q10", "q13"]}),

    # --- q02: "so that float64 inputs keep full precision" read as "compute S in float64"
    "q02_scores_computed_in_float64_for_precision_never_cast_back": ({
        SCORES: '''def scaled_scores(Q, K):
    # keep full precision, as the question asks: do the product and the scale in float64
    d_k = Q.shape[-1]
    return Q.double() @ K.double().transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "Computes the scores in float64 to 'keep full precision' and never casts back, so float32 "
                   "and float16 inputs get float64 scores (right only for the float64 example); downstream "
                   "the float64 weights cannot be multiplied with float32 values.",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    # --- q03: the experiment run on Lesson 07's zero-score case
    "q03_scale_experiment_on_zero_projection_scores_answers_nothing_changes": ({
        SCALE_ANS: '''# try it on the notebook's own special case (section 7: W_Q = W_K = 0), with d_k = 512
_d_k = 512
_X3 = torch.randn(8, 16, dtype=torch.float64)
_Z3 = torch.zeros(16, _d_k, dtype=torch.float64)
_Q3, _K3 = _X3 @ _Z3, _X3 @ _Z3


def _entropies3(S):
    A = torch.softmax(S, dim=-1)
    return -(A * torch.log2(A)).sum(dim=-1)


_H_scaled = _entropies3(_Q3 @ _K3.T / math.sqrt(_d_k))
_H_unscaled = _entropies3(_Q3 @ _K3.T)
if torch.allclose(_H_scaled, _H_unscaled):
    ans_scale = "c"
elif bool((_H_unscaled < _H_scaled).all()):
    ans_scale = "b"
else:
    ans_scale = "a"
''',
    }, {"mistake": "Runs the scale experiment on the zero-projection example, where every score is 0 with or "
                   "without the 1/sqrt(d_k) factor, sees identical entropies and answers 'c' instead of 'b' "
                   "(unit-variance scores of size sqrt(512) make each row pick one key).",
        "where": ["q03"]}),

    # --- q04: only the entries the q04 check looks at are right
    "q04_only_the_next_token_blocked_with_diag_offset_one": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # the model must not see the token it predicts, t + 1: block the first diagonal above the main one
    M = torch.zeros(T, T, dtype=dtype, device=device)
    idx = torch.arange(T - 1, device=device)
    M[idx, idx + 1] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "Blocks only key t+1 for query t (the first superdiagonal) instead of every key after t; the "
                   "public check's entries ([0, 1] blocked, [1, 0] and [2, 2] open) all come out right, but "
                   "keys t+2, t+3, ... stay open and A is not lower-triangular.",
        "where": ["q04", "q05", "q07", "q09", "q10", "q13"]}),

    # --- q05: the blocked value looked up in the example's dtype
    "q05_blocked_entries_found_by_float64_finfo_min": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        # fill the blocked entries instead of adding (S + min can overflow to -inf)
        blocked = M == torch.finfo(torch.float64).min
        S = S.masked_fill(blocked, torch.finfo(S.dtype).min)
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Finds the blocked entries by comparing M with torch.finfo(torch.float64).min, the value in "
                   "the lesson's float64 masks; a float32 or float16 mask (blocked at its own dtype's min) "
                   "matches nowhere, so nothing is blocked and the future keys get weight.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # --- q06: the rank drop comes from the lesson's repeated queries
    "q06_unmasked_weights_rank_drop_from_repeated_lesson_queries_answers_b": ({
        MASK_ANS: '''# switch the mask off on the lesson's example and see what changes
_K6 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q6 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
_S6 = _Q6 @ _K6.T / 2
_M6 = torch.triu(torch.full((5, 5), torch.finfo(torch.float64).min, dtype=torch.float64), diagonal=1)
_A_on = torch.softmax(_S6 + _M6, dim=-1)
_A_off = torch.softmax(_S6, dim=-1)
if not torch.allclose(_A_off.sum(-1), torch.ones(5, dtype=torch.float64)):
    ans_mask = "a"
elif int(torch.linalg.matrix_rank(_A_off)) < int(torch.linalg.matrix_rank(_A_on)):
    ans_mask = "b"
else:
    ans_mask = "c"
''',
    }, {"mistake": "Compares the rank of the lesson's weights with and without the mask (5 against 3), a drop "
                   "that comes only from the lesson's repeated queries, and answers 'b' instead of 'c' (without "
                   "the mask position t reads token t+1, the token it is trained to predict).",
        "where": ["q06"]}),

    # --- q08: the scale as a one-element float64 tensor
    "q08_scale_as_one_element_float64_tensor_promotes_output": ({
        NW: '''def nadaraya_watson(q, K, V):
    # full precision for the scale, as Question 2 asks
    scale = torch.sqrt(torch.tensor([q.shape[-1]], dtype=torch.float64))
    kappa = torch.exp(K @ q / scale)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Holds 1/sqrt(d_k) in a shape-(1,) float64 tensor; as a dimensioned operand it promotes the "
                   "float32 or float16 scores to float64, so the estimate comes back in float64 instead of the "
                   "inputs' dtype (right only for the float64 example).",
        "where": ["q08"]}),

    # --- q09: the reciprocals typed from the lesson's five-row table
    "q09_reciprocals_typed_from_the_five_row_table": ({
        AVG: '''def prefix_average_matrix(T):
    # row t holds 1/t: the lesson's table (t = 1..5)
    recip = torch.tensor([1.0, 1 / 2, 1 / 3, 1 / 4, 1 / 5], dtype=torch.float64)[:T]
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * recip[:, None]
''',
    }, {"mistake": "Types the reciprocals 1, 1/2, ..., 1/5 from the lesson's five-row table and slices them to "
                   "T, which works for the checks' T = 3 and T = 5 but fails (size mismatch) for any T > 5.",
        "where": ["q09", "q10"]}),

    # --- q10: einsum subscripts for the lesson's 2-D A
    "q10_einsum_row_sum_written_for_two_dim_weights": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -torch.einsum("ik,ik->i", A, logs)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Sums the entropy terms with einsum('ik,ik->i'), subscripts written for the lesson's 2-D A, "
                   "so any batched (..., T_q, T_k) input raises instead of returning (..., T_q).",
        "where": ["q10"]}),

    # --- q11: the bound scaled from the lesson's head
    "q11_max_rank_scaled_from_lesson_rank_half_of_d_k": ({
        RANK: '''_K_l = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q_l = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)

rank_S_lesson = int(torch.linalg.matrix_rank(_Q_l @ _K_l.T / 2))

# the lesson's head (d_k = 4) reached rank 2, half its width; the same ratio for d_k = 8
max_rank_S = rank_S_lesson * 8 // 4
''',
    }, {"mistake": "Scales the largest rank from the lesson's example (rank 2 at d_k = 4, taken as d_k / 2) and "
                   "sets max_rank_S = 4 instead of 8 (rank S <= min(T, d_k) = 8); rank_S_lesson = 2 is right.",
        "where": ["q11"]}),

    # --- q12: the weights counted off the lesson's tensors
    "q12_count_read_off_the_lesson_weight_tensors": ({
        PARAMS: '''# the lesson's block (d_model = 6, d_k = d_v = 4)
_WQ12 = torch.zeros(6, 4, dtype=torch.float64); _WQ12[1, :2] = 2.0; _WQ12[2, 0] = 2.0; _WQ12[3, 0] = 2.0
_WK12 = torch.zeros(6, 4, dtype=torch.float64); _WK12[0, 0] = 3.0; _WK12[3, 1] = 3.0; _WK12[1, 2] = 3.0; _WK12[2, 3] = 3.0
_WV12 = torch.cat([torch.eye(4, dtype=torch.float64), torch.zeros(2, 4, dtype=torch.float64)])


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = sum(W.numel() for W in (_WQ12, _WK12, _WV12))
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "Counts W_Q, W_K and W_V as the numel of the lesson's own 6 x 4 weight tensors, so the count "
                   "is 72 whatever d_model, d_k and d_v are (right only for the lesson's block; the exercise "
                   "gets 72 + 24576 instead of 73728 + 24576).",
        "where": ["q12"]}),

    # --- q14: the shapes read off the q13 Y = X check
    "q14_shapes_read_off_the_y_equals_x_check_first_match_a": ({
        SHAPES_ANS: '''# run it on the q13 check's case (Y = X) and see which option's shapes come out
_X14 = torch.randn(5, 6, dtype=torch.float64)
_W14 = [torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 2, dtype=torch.float64)]
_O14, _A14 = cross_attention(_X14, _X14, *_W14)
_T, _Tp, _dv = _X14.shape[0], _X14.shape[0], _W14[2].shape[1]
_options14 = {"a": ((_T, _T), (_T, _dv)), "b": ((_T, _Tp), (_T, _dv)),
              "c": ((_Tp, _T), (_Tp, _dv)), "d": ((_T, _Tp), (_Tp, _dv))}
ans_cross_shapes = next(k for k, (s, o) in _options14.items()
                        if tuple(_A14.shape) == s and tuple(_O14.shape) == o)
''',
    }, {"mistake": "Reads the shapes off the q13 Y = X check, where T = T' makes all four options match, and "
                   "keeps the first match 'a' (S: T x T) instead of 'b' (S: T x T', O: T x d_v).",
        "where": ["q14"]}),

    # --- q15: the answer drawn from the same Y = X check
    "q15_causal_cross_checked_only_on_y_equals_x_answers_equal_lengths": ({
        CAUSAL_ANS: '''# with Y = X (the q13 check) cross-attention with the causal mask is causal self-attention;
# with a Y of another length the causal mask does not even fit
_X15 = torch.randn(5, 6, dtype=torch.float64)
_W15 = [torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 2, dtype=torch.float64)]
_M15 = causal_additive_mask(5, torch.float64)
_same15 = torch.allclose(cross_attention(_X15, _X15, *_W15, M=_M15)[1], self_attention(_X15, *_W15)[1])
try:
    cross_attention(_X15, torch.randn(3, 6, dtype=torch.float64), *_W15, M=_M15)
    _fits_rectangle = True
except RuntimeError:
    _fits_rectangle = False
ans_cross_causal = "c" if _same15 and not _fits_rectangle else "a"
''',
    }, {"mistake": "Decides from the q13 Y = X case (where the causal mask reproduces causal self-attention) "
                   "and from the T x T mask not fitting a T x T' score, answering 'c' (whenever T = T') "
                   "instead of 'd' (only when X and Y share one time axis).",
        "where": ["q15"]}),

    # --- q16: a window sized to the lesson's example
    "q16_cost_counted_with_lesson_sized_sliding_window_answers_linear": ({
        COST_ANS: '''def _scores_computed(T, window=4):
    # each query scores itself and the window - 1 tokens before it ("it" found "mat" three tokens back)
    return sum(min(t + 1, window) for t in range(T))


_ratio = _scores_computed(256) / _scores_computed(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Counts the scores of a sliding window of 4 keys (sized to the lesson's 'three tokens back' "
                   "example) instead of all T x T of them, finds the count doubles with T and answers 'a' "
                   "instead of 'c' (T^2 scores: doubling T quadruples the work).",
        "where": ["q16"]}),
}
