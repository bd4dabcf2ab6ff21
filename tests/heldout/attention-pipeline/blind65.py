"""Blind held-out set 65 for attention-pipeline.

Sixty-fifth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text, question statements and public checks of
attention-pipeline.ipynb, the solution cells of full_marks.ipynb (tokens are rows, leading batch dimensions
allowed, inputs' dtype kept, blocked entries hold torch.finfo(dtype).min, the prefix average in float64,
letters as one-letter strings, both q11 answers Python ints), `harness.py`, blind64.py in full (for the
format), and only the variant names of the earlier blind sets (to avoid repeating a mistake in the same form).

Round 65's angle: LEFTOVERS FROM DEBUGGING AND UNFINISHED EDITS. Each wrong variant is code that worked (or
nearly) before the student tried something and left one thing behind: a parameter renamed in the signature
while the body still reads the old name, bound by a demo at the top of the same cell (W_V in q01, V in q08);
the line d_k = Q.shape[-1] commented out so a trial's global d_k = 4 sets the scale (q02); a seed set inside
the experiment's sampler, which makes the keys the same draw as the queries (q03); a corrected function
written above the first attempt, so the old -1e9 version, defined last, is the one bound (q04); a trial
`M = None` left at the top of attention_weights (q05); a leak probe whose helper reads the demo input instead
of its argument, so no leak is seen (q06); the normalising line commented out while printing the triangle
(q09); a debugging `return` of the per-key terms left in the 2-D branch (q10); an experiment cut to 5 tokens
to read its printout and never set back to 100 (q11); a trial value `d_v = 64` assigned over a parameter
(q12); a Y = X trial line left below the line that builds the real Y (q14); a letter tried in the check left
below the chosen one (q15); and a default argument fixed while timing one case (q16). q07 and q13 are reached
through `where`: the q01, q02, q04 and q05 variants break or may break self_attention (q07), its
zero-projection check (q09) and the entropies built on those functions (q10), and the q13 tests
(cross_attention calls scaled_scores and attention_weights, and the q13 public check compares it with
self_attention).

Public material found with the `search` tool, and what it showed:
- jupytearth.org "Managing state" (Jupyter resources): a function defined in a notebook reads a top-level
  variable (`frequency`) that is not its parameter, so "even though the second cell has code that is
  identical ... the output is different"; kiwidamien.github.io "Globals Are Bad" on the same notebook habit.
  The q01 and q08 variants rename a parameter and keep reading the demo's global; the q02 variant reads a
  trial's global d_k; the q06 variant's probe reads the demo input.
- code corpus: Furvos/self_attention test_attention.py (a top-level `d_k = K.shape[1]` beside the attention
  code, the way a trial binds d_k globally) and Charmaineem/Hands-On-LLMs Transformer/layers.py (a `print(s)`
  left inside the attention forward, with d_k taken from k.dim()): debugging lines that stay in the function.
- sprintchase.com "torch.manual_seed" and cnblogs ghgxj "torch.manual_seed()用法详解" (seeding before each
  random call returns the same tensor every time): the q03 sampler seeds inside itself, so K == Q.
- facebookresearch/xformers#103 ("Causal mask is skipped if no att_mask is passed") and keras-team/keras#23038
  (MultiHeadAttention silently drops the causal mask on one path, "silently causes future-token leakage"):
  a mask discarded inside the attention function without any error, as in the q05 variant.
- NVIDIA/apex#1052 ("value cannot be converted to type at::Half without overflow: -1e+09"), facebookresearch/
  mmf#962 and apex#93 (`torch.Tensor([-1e15]).half()` is -inf): the lesson's -1e9 stand-in, which the q04
  variant's old definition still uses, is not representable in float16.
- rasbt/LLMs-from-scratch#1062 (a regression test "showing that future-token changes do not affect earlier
  outputs"): the leak probe the q06 variant writes, broken by reading a global instead of its argument.
The q09 (commented-out line), q10 (debug return), q11 (print-sized experiment), q12 (trial value over a
parameter), q14 (trial line left below), q15 (trial letter left below) and q16 (default fixed while timing)
variants follow the brief's list of debugging leftovers.

The correct variants are written differently from full_marks: the projections as a tuple of torch.matmul
calls and scores through .mT times a Python-float reciprocal; a mask from comparing aranges filled with
masked_fill and weights from torch.nn.functional.softmax of torch.add; a self_attention that masked_fills the
scores with torch.finfo(S.dtype).min and a Nadaraya-Watson kernel as a softmax over the keys; the prefix
average as ones-triangle over a float64 row-number column and entropies from torch.special.xlogy with exp2;
einsum cross-attention, a shape-list parameter count and computed q11 ranks.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w65-attention-pipeline/: each variant's notebook built the way harness.py builds it and run top to
bottom (all code cells but otter's; no cell raised), the public checks run as plain functions from the
assignment's test cells, then every function compared with plain torch (`torch.softmax` of S + M in float64,
the notebook's own formulas, `torch.special.entr` entropies in bits) on unbatched, (2,) and (2, 3) batched
inputs, T_q != T_k, d_k != d_v, with and without a padding mask, in float64, float32, float16 and bfloat16;
the mask compared exactly; the prefix average and the zero-projection self-attention compared with
torch.equal; the count on several argument sets; every written answer compared with the right letter or
integer. full_marks and the five correct variants agree everywhere (16-bit dtypes within their precision),
and each wrong variant differs or fails in its own question and only in questions listed in its `where`.

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
    # the three projections as one generator of torch.matmul calls turned into a tuple; the scores through
    # torch.matmul with .mT and a multiplied Python-float reciprocal of the root
    "generator_tuple_matmul_projection_and_mt_reciprocal_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.matmul(X, W) for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    inv_root = 1.0 / math.sqrt(Q.size(-1))
    return torch.matmul(Q, K.mT) * inv_root
''',
    },
    # the future found by comparing an arange row with an arange column, filled into zeros of the requested
    # dtype with masked_fill; the weights through torch.nn.functional.softmax of torch.add, over the last
    # axis counted from ndim
    "arange_compare_masked_fill_zeros_mask_and_functional_softmax_of_add": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    future = pos[None, :] > pos[:, None]
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    logits = S if M is None else torch.add(S, M)
    return torch.nn.functional.softmax(logits, dim=logits.dim() - 1)
''',
    },
    # self-attention that blocks the future with masked_fill(torch.finfo(S.dtype).min) on the scores instead
    # of adding the mask; the kernel smoother as a softmax over the keys followed by a vector-matrix product
    "masked_fill_scores_self_attention_and_softmax_weights_kernel": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = S.shape[-1]
        blocked = torch.ones(T, T, dtype=torch.bool, device=S.device).triu(1)
        S = S.masked_fill(blocked, torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return torch.matmul(A, V), A
''',
        NW: '''def nadaraya_watson(q, K, V):
    w = torch.softmax((K @ q) / math.sqrt(K.shape[-1]), dim=0)
    return w @ V
''',
    },
    # the prefix average as a float64 ones-triangle divided by a float64 column of row numbers; entropies from
    # torch.special.xlogy (xlogy(0, 0) = 0) turned into bits, 2^H with torch.exp2
    "row_number_column_prefix_and_special_xlogy_bits_exp2": {
        AVG: '''def prefix_average_matrix(T):
    rows = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1)
    return torch.ones(T, T, dtype=torch.float64).tril() / rows
''',
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # cross-attention written entirely in einsum with an ellipsis for batch dimensions; the parameter count
    # summed over a list of weight shapes; the q11 ranks computed (min of the two sizes, matrix_rank as int)
    "einsum_cross_shape_list_count_and_computed_ranks": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...sd,dk->...sk", Y, W_K)
    V = torch.einsum("...sd,dv->...sv", Y, W_V)
    S = torch.einsum("...tk,...sk->...ts", Q, K) / math.sqrt(Q.shape[-1])
    A = attention_weights(S, M)
    return torch.einsum("...ts,...sv->...tv", A, V), A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''',
        RANK: '''# (a) S = Q K^T / sqrt(d_k) factors through d_k = 8 dimensions, and it is 100 x 100
max_rank_S = min(100, 8)

# (b) the lesson's hand-crafted queries and keys (the Question 2 check)
_K11 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q11 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q11, _K11)))
''',
    },
}

WRONG = {
    # --- q01: a parameter renamed in the signature only; the body still reads the old name, bound by the demo
    "q01_value_weight_parameter_renamed_body_reads_demo_global_w_v": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_v):
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    return Q, K, V


# trying it on the lesson's five tokens "mat was soft, it was"
X = torch.eye(6, dtype=torch.float64)[[0, 1, 2, 3, 1]]
W_Q = torch.zeros(6, 4, dtype=torch.float64); W_Q[1, :2] = 2.0; W_Q[2, 0] = 2.0; W_Q[3, 0] = 2.0
W_K = torch.zeros(6, 4, dtype=torch.float64); W_K[0, 0] = 3.0; W_K[3, 1] = 3.0; W_K[1, 2] = 3.0; W_K[2, 3] = 3.0
W_V = torch.eye(6, 4, dtype=torch.float64)
Q, K, V = project_qkv(X, W_Q, W_K, W_V)
print(Q[3], K[3], V.shape)
''',
    }, {"mistake": "The value-weight parameter was renamed W_v in the signature but the body still computes "
                   "V = X @ W_V, which reads the lesson's demo matrix W_V defined at the top level of the cell; "
                   "the argument passed in is ignored, so V is wrong for any other value weights and the "
                   "product fails when d_model is not 6 or the batch has other shapes.",
        "where": ["q01", "q07", "q09", "q10", "q13"]}),

    # --- q02: the line that reads d_k from Q commented out; the trial's global d_k = 4 is used instead
    "q02_d_k_line_commented_out_scale_read_from_demo_global": ({
        SCORES: '''d_k = 4   # the lesson's head size, for a quick try of the function below
_Q_try = torch.randn(5, d_k, dtype=torch.float64)
_K_try = torch.randn(5, d_k, dtype=torch.float64)


def scaled_scores(Q, K):
    # d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)


print(scaled_scores(_Q_try, _K_try).shape)
''',
    }, {"mistake": "The line d_k = Q.shape[-1] was commented out while debugging, so the function divides by "
                   "sqrt of the global d_k = 4 left from the trial at the top of the cell: right for the "
                   "lesson's d_k = 4, wrong scale (2 instead of sqrt(d_k)) for every other head size.",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    # --- q03: a seed set inside the sampling helper makes the keys the same draw as the queries
    "q03_seed_reset_inside_sampler_makes_keys_equal_queries_answers_nothing_changes": ({
        SCALE_ANS: '''def _draw(n, d):
    torch.manual_seed(0)   # so the printout below is the same on every run
    return torch.randn(n, d, dtype=torch.float64)


def _row_entropy_bits(S):
    A = torch.softmax(S, dim=-1)
    return -torch.where(A > 0, A * torch.log2(A), torch.zeros_like(A)).sum(dim=-1)


_dk = 512
_Qe = _draw(8, _dk)
_Ke = _draw(8, _dk)
_H_scaled = _row_entropy_bits(_Qe @ _Ke.T / math.sqrt(_dk))
_H_unscaled = _row_entropy_bits(_Qe @ _Ke.T)
print(_H_scaled, _H_unscaled)
if torch.allclose(_H_scaled, _H_unscaled, atol=1e-3):
    ans_scale = "c"
elif bool((_H_unscaled < _H_scaled).all()):
    ans_scale = "b"
else:
    ans_scale = "a"
''',
    }, {"mistake": "The experiment's sampler calls torch.manual_seed(0) on every call, so the keys are the same "
                   "draw as the queries; each query then matches its own key so strongly that the rows are "
                   "one-hot with or without the 1/sqrt(d_k) factor, the entropies agree, and the answer is 'c' "
                   "instead of 'b'.",
        "where": ["q03"]}),

    # --- q04: the new definition written above the old one; the old -1e9 version, defined last, wins
    "q04_old_minus_1e9_version_left_below_the_new_definition": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min
    return M


# first attempt, with the lesson's -1e9 (kept to compare)
def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = -1e9
    return M
''',
    }, {"mistake": "The cell keeps the first attempt below the corrected function, so the old definition (blocked "
                   "entries -1e9, the lesson's stand-in) is the one bound: blocked entries are -1e9 instead of "
                   "torch.finfo(dtype).min, which is not the float32/float64 minimum and overflows to -inf in "
                   "float16.",
        "where": ["q04", "q05", "q07", "q09", "q10", "q13"]}),

    # --- q05: `M = None` left at the top of the function from trying the unmasked weights
    "q05_mask_reset_to_none_left_from_unmasked_trial": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    M = None   # first look at the weights without the mask
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "A trial line M = None was left at the top of the function, so the mask argument is always "
                   "discarded: every key stays open, causal weights are not lower-triangular and masked keys "
                   "get weight.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # --- q06: the leak probe reads the demo's global input, not its argument, so no leak is seen
    "q06_leak_probe_reads_demo_input_not_its_argument_answers_no_gradient": ({
        MASK_ANS: '''# does position t read token t+1 when the mask is off? change token 4 and watch output 3
_Xd = torch.randn(5, 6, dtype=torch.float64)
_Wq = torch.randn(6, 4, dtype=torch.float64)
_Wk = torch.randn(6, 4, dtype=torch.float64)
_Wv = torch.randn(6, 4, dtype=torch.float64)


def _unmasked_output(X_in):
    Q, K, V = project_qkv(_Xd, _Wq, _Wk, _Wv)
    return attention_weights(scaled_scores(Q, K)) @ V


_X_changed = _Xd.clone()
_X_changed[3] += 1.0
_leaks = not torch.allclose(_unmasked_output(_Xd)[2], _unmasked_output(_X_changed)[2])
print("output 3 changes:", _leaks)
# no leak seen, so it must be the gradient through the blocked entries
ans_mask = "c" if _leaks else "d"
''',
    }, {"mistake": "The leak probe's helper projects the global demo input _Xd instead of its argument X_in, so "
                   "the changed next token never reaches the computation, no leak is seen, and the answer is "
                   "'d' (no gradient through blocked entries) instead of 'c' (position t reads the token it "
                   "must predict).",
        "where": ["q06"]}),

    # --- q08: parameters renamed; the body still multiplies by the demo's global V
    "q08_values_parameter_renamed_body_reads_demo_global_v": ({
        NW: '''def nadaraya_watson(q, keys, vals):
    kappa = torch.exp(keys @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()


# the lesson's last row ("was", all five tokens visible) from the pipeline's own Q, K, V
X = torch.eye(6, dtype=torch.float64)[[0, 1, 2, 3, 1]]
W_Q = torch.zeros(6, 4, dtype=torch.float64); W_Q[1, :2] = 2.0; W_Q[2, 0] = 2.0; W_Q[3, 0] = 2.0
W_K = torch.zeros(6, 4, dtype=torch.float64); W_K[0, 0] = 3.0; W_K[3, 1] = 3.0; W_K[1, 2] = 3.0; W_K[2, 3] = 3.0
W_V = torch.eye(6, 4, dtype=torch.float64)
Q, K, V = project_qkv(X, W_Q, W_K, W_V)
print(nadaraya_watson(Q[4], K, V))
''',
    }, {"mistake": "The parameters were renamed keys, vals but the weighted sum still uses V, the lesson demo's "
                   "5-row values defined at the top level of the cell; the values passed in are ignored, so the "
                   "average is of the wrong vectors, and it fails to broadcast when the number of keys is not 5.",
        "where": ["q08"]}),

    # --- q09: the normalising line commented out while printing the triangle
    "q09_normalising_line_commented_out_returns_ones_triangle": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    # print(W)   # check the triangle first
    # W = W / W.sum(dim=-1, keepdim=True)
    return W
''',
    }, {"mistake": "The row normalisation was commented out while the triangle was being printed and never put "
                   "back, so the function returns the lower-triangular matrix of ones instead of 1/t in the "
                   "first t columns of row t.",
        "where": ["q09", "q10"]}),

    # --- q10: a debugging return of the per-key terms left in the 2-D branch
    "q10_debug_return_of_log_terms_left_in_two_dim_branch": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    if A.dim() == 2:
        return A * logs   # debugging: look at the per-key terms of the lesson's 5 x 5 A
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "A debugging return for 2-D inputs was left in: for an unbatched A the function returns the "
                   "(T_q, T_k) matrix of terms A log2 A (not summed over the keys and not negated) instead of "
                   "the (T_q,) row entropies; batched inputs are right.",
        "where": ["q10"]}),

    # --- q11: the rank experiment shrunk to five rows to read the printout, never put back to 100
    "q11_max_rank_measured_at_print_sized_length_five": ({
        RANK: '''# (a) measure it: one random head with d_k = 8
_dk = 8
_T = 5   # 100 rows were too many to read in the printout; put back to 100 later
_Qr = torch.randn(_T, _dk, dtype=torch.float64)
_Kr = torch.randn(_T, _dk, dtype=torch.float64)
print(scaled_scores(_Qr, _Kr))
max_rank_S = int(torch.linalg.matrix_rank(scaled_scores(_Qr, _Kr)))

# (b) the lesson's hand-crafted queries and keys
_K11 = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q11 = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q11, _K11)))
''',
    }, {"mistake": "The rank experiment for (a) was cut to T = 5 tokens to make the printed score matrix "
                   "readable and never set back to 100, so the measured rank is bounded by the 5 tokens and "
                   "max_rank_S is 5 instead of d_k = 8.",
        "where": ["q11"]}),

    # --- q12: a trial value assigned over a parameter inside the function
    "q12_d_v_overwritten_with_exercise_value_left_from_trial": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    d_v = 64   # the exercise's value width, while checking the numbers printed below
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "A line d_v = 64 from checking the exercise was left inside the function, overwriting the "
                   "argument: the value and output-projection terms always use a width of 64, so every count "
                   "with another d_v is wrong (the lesson's 6, 4, 4 gives 432 instead of 72).",
        "where": ["q12"]}),

    # --- q14: the Y = X trial line left below the real Y, so both lengths are 5
    "q14_self_attention_trial_line_left_below_real_y_first_match_a": ({
        SHAPES_ANS: '''_X14 = torch.randn(5, 6, dtype=torch.float64)
_Y14 = torch.randn(3, 6, dtype=torch.float64)
_Y14 = _X14   # first try: the q13 check's self-attention case
_W14 = [torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 4, dtype=torch.float64),
        torch.randn(6, 2, dtype=torch.float64)]
_O14, _A14 = cross_attention(_X14, _Y14, *_W14)
_T, _T2, _dv = _X14.shape[0], _Y14.shape[0], _W14[2].shape[1]
_options = {"a": ((_T, _T), (_T, _dv)), "b": ((_T, _T2), (_T, _dv)),
            "c": ((_T2, _T), (_T2, _dv)), "d": ((_T, _T2), (_T2, _dv))}
ans_cross_shapes = next(k for k, (s, o) in _options.items()
                        if tuple(_A14.shape) == s and tuple(_O14.shape) == o)
print(ans_cross_shapes, _A14.shape, _O14.shape)
''',
    }, {"mistake": "The trial line _Y14 = _X14 (the self-attention case) was left below the line that builds a "
                   "3-token Y, so the experiment runs with T' = T = 5; options a and b then both match and the "
                   "first match, 'a' (S square), is kept instead of 'b'.",
        "where": ["q14"]}),

    # --- q15: the letter tried in the check left below the chosen one
    "q15_trial_letter_c_left_below_the_chosen_answer": ({
        CAUSAL_ANS: '''ans_cross_causal = "d"
# the q13 check runs cross-attention with Y = X, where T = T' and the square mask fits: try that reading
ans_cross_causal = "c"
''',
    }, {"mistake": "A trial assignment of 'c' (a causal mask whenever T = T', read off the q13 check where "
                   "Y = X) was left below the chosen letter, so the cell ends with 'c' instead of 'd' (only when "
                   "both sequences share one time axis).",
        "where": ["q15"]}),

    # --- q16: a default argument fixed while timing one case, then the cost is measured by varying T_q only
    "q16_key_length_default_left_fixed_in_cost_helper_answers_linear": ({
        COST_ANS: '''def _score_macs(T_q, T_k=512, d_k=64):   # T_k fixed at 512 while timing one case
    return T_q * T_k * d_k


_ratio = _score_macs(2048) / _score_macs(1024)
_growth = round(math.log2(_ratio))
print(_ratio, _growth)
ans_complexity = {0: "b", 1: "a", 2: "c", 3: "d"}[_growth]
''',
    }, {"mistake": "The cost helper's key length was given a fixed default (T_k=512) while one case was being "
                   "timed, and it is then called with the sequence length for the queries only, so doubling T "
                   "doubles the count and the answer is 'a' (linear) instead of 'c' (quadratic).",
        "where": ["q16"]}),
}
