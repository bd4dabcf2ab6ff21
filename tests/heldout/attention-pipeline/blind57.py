"""Blind held-out set 57 for attention-pipeline.

Fifty-seventh blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text, stub cells and public checks of attention-pipeline.ipynb,
the solution cells of full_marks.ipynb (tokens are rows, leading batch dimensions allowed, inputs' dtype
kept, blocked entries hold torch.finfo(dtype).min, the prefix average in float64, letters as one-letter
strings, both q11 answers Python ints), `harness.py`, blind56.py in full (for the format), and only the
variant names of the earlier blind sets (to avoid repeating a mistake in the same form).

Round 57's angle: SLIPS rather than misconceptions, the kind of thing a tired student types at 2 a.m. and
that a quick glance does not catch: a return indented one level too deep, an out-of-place result never
assigned, a line copied with one word left unchanged, a debugging return left in, a cell copied from the
previous question and only half edited, a name reused so that a later line reads the wrong thing, a range
one short, a notebook global (or a value computed for the lesson's table) read where the parameter was
meant, a sum dedented out of its loop, one letter (V for O) in an experiment. Public material found with
the `search` tool, and what it showed:
- codeguage.com "Python for loop" (section "The return keyword called from within for") and the
  softwareengineering.stackexchange question 333247 "Why does recursion return the first call in the stack"
  (answer: "you probably meant to code i = incrementI(i + 1) rather than incrementI(i + 1)"): a return
  placed inside the loop ends the function on the first pass, and a computed value that is not assigned is
  simply lost. They gave the q01 variant (the tuple of projections returned from inside the loop over the
  three weights, so it holds only Q) and the q02 variant (`S / math.sqrt(d_k)` on a line of its own, its
  result thrown away, the unscaled S returned; PAIR-code/tiny-transformers #71 "Currently we are not
  dividing the raw attention by the square root of dimension" is the same outcome in a public model).
- igmhub/picca #218 (`forest.lmax = sp.log10(args.lambda_min)`: a pasted line whose one word was not
  changed) and a public causal-mask helper (code corpus, an unnamed excerpt) that builds
  `torch.ones(len, len, dtype=dtype)` with dtype=torch.bool and then masked_fills it with float("-inf"),
  which on a bool tensor stores True: the q04 variant, which copies the `future = ... dtype=torch.bool`
  line to allocate M and leaves the bool dtype, so finfo(dtype).min is stored as True and the "additive"
  mask is a bool tensor that adds 1 to the future scores.
- nnfs_follow_along (acherrera, the softmax chapter: exp_values printed before the row normalisation) and
  practice.idlemachines.co.uk question 6 (the stable softmax: shift, exponentiate, then divide): the q05
  variant, which kept the `return E` it used to inspect the exponentials above the normalising return.
- lucidrains/denoising-diffusion-pytorch #314 (a local `scale` read where `self.scale` was meant) and
  Graylab/DL4Proteins-notebooks #12 ("Attention uses the wrong scaling dimension", C instead of the head
  size): the q08 variant, which reuses the name q for the vector of scores, so the later
  math.sqrt(q.shape[-1]) reads the number of keys; the lesson's row has 4 keys and d_k = 4, so the public
  check still passes.
- taourl.com / laganvalleydup.co.uk "Why code doesn't reach last column in matrix" (a loop bound one short
  of the end): the q09 variant whose row loop runs `range(1, T)`, so row T is left all zeros.
- jupytearth.org "Managing state" (a notebook global `frequency` read inside sketchy_sine_wave) and
  kiwidamien.github.io "Globals are bad": the q10 variant, whose effective_tokens returns 2 ** H for the
  H that the same cell computed for the lesson's table, whatever A it is given (the public lesson check
  passes because it asks about that very A), and the q16 variant, whose cost helper multiplies its
  argument by the notebook-level _T, so doubling the length only doubles one factor.
- besthub.dev "Why Python's for-loop variables leak outside the loop" (`b *= i`, the wrong loop variable
  after the loop) and flempriere.github.io Effective Python item 20 ("Never use for loop variables after
  the loop ends"): the q12 variant whose `total += n` was dedented out of the loop over the weight shapes,
  so only the last matrix is counted.
- helmholtz-analytics/heat #578 ("In reshape a wrong variable is used at one point"): the q14 experiment,
  which builds O = A V and then compares V's shape with the options (one letter, V for O), so it answers
  'd'; and the q03 experiment, which reuses the names _Q and _K for the lesson's hand-crafted 4-dimensional
  vectors (pasted in to re-check scaled_scores) after drawing the 512-dimensional ones, so it measures a
  factor of 2 instead of sqrt(512) and answers 'c'.
- Copy-a-cell-and-half-edit-it slips in notebooks (no public source was found for these exact slips;
  jupytearth.org "Managing state" describes notebook cells that overwrite an earlier cell's names): the q06
  variant copies the Question 3 cell and changes only the letter (`ans_scale =
  "c"`, so ans_mask is never set and ans_scale is overwritten), the q15 variant copies the Question 14
  cell and changes only the name (`ans_cross_causal = "b"`); the q11 variant retypes the lesson's last
  query row from the pattern of the last key row ([0, 0, 0.5, 0.5] instead of [0.5, 0.5, 0, 0]), so the
  measured rank is 3, not 2.
q07 and q13 are reached through `where`: the q01, q02, q04 and q05 variants break self_attention (q07 and
q09's zero-projection test), the q01, q02 and q05 variants break cross_attention or its public check
against self_attention (q13), and the q02, q04, q05 and q09 variants reach q10's public checks, which call
attention_weights, scaled_scores, causal_additive_mask and prefix_average_matrix.

The correct variants are the same 2 a.m. code with the slip not made: the return after the loop, the
division assigned (in place, on the fresh score tensor), a float mask built from arange with [:, None]
and [None, :], a hand-written stable softmax that normalises, a kernel average whose scores get their own
name, a row loop over range(1, T + 1), an effective_tokens that recomputes from its argument (next to a
lesson-table global it ignores), a shape loop with the sum inside it, experiments that keep their own
names and compare O, a cost helper that uses both of its lengths, and computed letters.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w57-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's),
the notebook's public checks run on it, then every function compared with plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention` with is_causal and with an additive attn_mask, the
notebook's own formulas) on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v, in float64, float32,
float16 and bfloat16, and every written answer compared with the right letter or integer; the correct
variants agree everywhere (float16/bfloat16 within their precision), and each wrong variant differs or fails
in its `where` questions and nowhere else.

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

_LESSON_QK = '''_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
'''

CORRECT = {
    # the loop over the three weights with the return after it; the division assigned (in place on the
    # fresh score tensor)
    "weight_loop_projection_and_in_place_scaled_fresh_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    out = []
    for W in (W_Q, W_K, W_V):
        out.append(X @ W)
    return tuple(out)
''',
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    S = Q @ K.transpose(-2, -1)
    S.div_(math.sqrt(d_k))          # S is a fresh tensor: dividing it in place touches no input
    return S
''',
    },
    # a float mask from two aranges ([:, None] against [None, :]); a hand-written stable softmax that
    # normalises; self_attention reads the length from the scores
    "arange_float_mask_and_normalised_stable_softmax": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    i = torch.arange(T, device=device)[:, None]      # query positions down the rows
    j = torch.arange(T, device=device)[None, :]      # key positions along the columns
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(j > i, torch.finfo(dtype).min)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    Z = Z - Z.amax(dim=-1, keepdim=True)
    E = Z.exp()
    return E / E.sum(dim=-1, keepdim=True)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    },
    # kernel scores under their own name (einsum), a row loop over range(1, T + 1)
    "named_scores_einsum_kernel_and_full_range_row_loop": {
        NW: '''def nadaraya_watson(q, K, V):
    d_k = q.shape[-1]
    scores = torch.einsum("td,d->t", K, q) / math.sqrt(d_k)
    kappa = torch.exp(scores)
    return torch.einsum("t,tv->v", kappa, V) / kappa.sum()
''',
        AVG: '''def prefix_average_matrix(T):
    W = torch.zeros(T, T, dtype=torch.float64)
    for t in range(1, T + 1):           # row t (from 1) averages the first t tokens
        W[t - 1, :t] = 1.0 / t
    return W
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K, V = Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    A = attention_weights(S, M)
    return torch.matmul(A, V), A
''',
    },
    # effective_tokens recomputes from its argument, next to the lesson-table globals it ignores;
    # entropies through xlogy / log 2; the shape loop with the sum inside it
    "xlogy_entropy_beside_lesson_globals_and_shape_loop_count": {
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))


# the lesson's table (hand-crafted Q and K, causal)
''' + _LESSON_QK + '''A_lesson = attention_weights(scaled_scores(_Q, _K), causal_additive_mask(5, torch.float64))
H = row_entropy_bits(A_lesson)
print(H, effective_tokens(A_lesson))
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    total = 0
    for rows, cols in shapes:
        n = rows * cols
        total += n
    return total
''',
    },
    # the written answers computed by experiments that keep their own names and variables
    "computed_letters_with_own_names_and_both_lengths": {
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)


def _mean_entropy_bits(S):
    A = torch.softmax(S, dim=-1)
    return float(-torch.special.xlogy(A, A).sum(dim=-1).mean() / math.log(2))


_Q512 = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K512 = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_H_raw = _mean_entropy_bits(_Q512 @ _K512.transpose(-2, -1))
_H_scaled = _mean_entropy_bits(scaled_scores(_Q512, _K512))
if _H_raw < 0:
    ans_scale = "d"
elif _H_raw < _H_scaled - 0.5:
    ans_scale = "b"
elif _H_raw > _H_scaled + 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
        MASK_ANS: '''ans_mask = "abcd"[2]          # c) position t would read token t+1
''',
        RANK: '''max_rank_S = min(8, 100)

''' + _LESSON_QK + '''rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q, _K)))
''',
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(1)
_T, _Tp, _dm, _dk, _dv = 3, 5, 6, 4, 2
_X = torch.randn(_T, _dm, dtype=torch.float64, generator=_g)
_Y = torch.randn(_Tp, _dm, dtype=torch.float64, generator=_g)
_WQ = torch.randn(_dm, _dk, dtype=torch.float64, generator=_g)
_WK = torch.randn(_dm, _dk, dtype=torch.float64, generator=_g)
_WV = torch.randn(_dm, _dv, dtype=torch.float64, generator=_g)
_Qx, _Ky, _Vy = _X @ _WQ, _Y @ _WK, _Y @ _WV
_S = scaled_scores(_Qx, _Ky)
_O = attention_weights(_S) @ _Vy
_options = {
    "a": ((_T, _T), (_T, _dv)),
    "b": ((_T, _Tp), (_T, _dv)),
    "c": ((_Tp, _T), (_Tp, _dv)),
    "d": ((_T, _Tp), (_Tp, _dv)),
}
ans_cross_shapes = [k for k, (s, o) in _options.items() if s == tuple(_S.shape) and o == tuple(_O.shape)][0]
''',
        CAUSAL_ANS: '''ans_cross_causal = "D".lower()
''',
        COST_ANS: '''_T, _d_k = 100, 64


def _score_cost(n_queries, n_keys):
    return n_queries * n_keys * _d_k          # one d_k-long dot product per score


_ratio = _score_cost(2 * _T, 2 * _T) / _score_cost(_T, _T)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    },
}

WRONG = {
    # codeguage.com "The return keyword called from within for"
    "q01_return_indented_into_the_weight_loop": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    out = []
    for W in (W_Q, W_K, W_V):
        out.append(X @ W)
        return tuple(out)
''',
    }, {"mistake": "The return statement is indented into the loop over (W_Q, W_K, W_V), so the function "
                   "returns after the first pass with the one-element tuple (Q,); unpacking it into Q, K, V "
                   "raises a ValueError (and K and V are never computed).",
        "where": ["q01", "q07", "q09", "q13"]}),

    # softwareengineering.SE 333247: the computed value is not assigned; tiny-transformers #71
    "q02_scaled_scores_computed_but_not_assigned": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    S = Q @ K.transpose(-2, -1)
    S / math.sqrt(d_k)              # scale by sqrt(d_k)
    return S
''',
    }, {"mistake": "Writes the scaling as the bare expression S / math.sqrt(d_k) on its own line, whose result "
                   "is thrown away (it is not in place), and returns the unscaled Q K^T: every score is "
                   "sqrt(d_k) times too large.",
        "where": ["q02", "q05", "q07", "q10", "q13"]}),

    # reusing names: the lesson's vectors pasted over the experiment's
    "q03_experiment_names_reused_for_lesson_vectors": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)


def _mean_entropy_bits(S):
    A = torch.softmax(S, dim=-1)
    return float(-torch.special.xlogy(A, A).sum(dim=-1).mean() / math.log(2))


_Q = torch.randn(8, 512, dtype=torch.float64, generator=_g)
_K = torch.randn(8, 512, dtype=torch.float64, generator=_g)
# re-check scaled_scores on the lesson's hand-crafted Q and K first (Question 2)
''' + _LESSON_QK + '''print(scaled_scores(_Q, _K)[1, 0])       # 1.0
_H_raw = _mean_entropy_bits(_Q @ _K.transpose(-2, -1))
_H_scaled = _mean_entropy_bits(scaled_scores(_Q, _K))
if _H_raw < 0:
    ans_scale = "d"
elif _H_raw < _H_scaled - 0.5:
    ans_scale = "b"
elif _H_raw > _H_scaled + 0.5:
    ans_scale = "a"
else:
    ans_scale = "c"
''',
    }, {"mistake": "Its experiment draws 512-dimensional _Q and _K, then pastes the lesson's hand-crafted "
                   "4-dimensional _Q and _K under the same names to re-check scaled_scores, so the entropies "
                   "are measured on d_k = 4, where deleting the scale only doubles the scores; the entropies "
                   "barely move and it answers 'c' (nothing changes) instead of 'b'.",
        "where": ["q03"]}),

    # picca #218 (pasted line, one word unchanged); masked_fill(-inf) on a bool tensor stores True
    "q04_mask_allocated_with_copied_bool_dtype": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=torch.bool, device=device)
    M[future] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "Allocates M by copying the line above it and leaves dtype=torch.bool, so "
                   "torch.finfo(dtype).min is stored as True: the mask comes back as a bool tensor (not the "
                   "requested dtype) that, added to the scores, adds 1 to the future keys instead of "
                   "blocking them.",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # nnfs softmax chapter: exponentials inspected before normalising
    "q05_debug_return_of_exponentials_left_in": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    Z = Z - Z.amax(dim=-1, keepdim=True)        # stable: shift by the row max
    E = torch.exp(Z)
    return E                                    # check the exponentials first
    return E / E.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "A `return E` left from checking the exponentials sits above the normalising return, so "
                   "it returns exp(Z - row max) without dividing by the row sums: the largest entry of every "
                   "row is 1 and the rows do not sum to 1.",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # copied the Question 3 answer cell, changed only the letter
    "q06_q03_cell_copied_name_left_as_ans_scale": ({
        MASK_ANS: '''ans_scale = "c"
''',
    }, {"mistake": "Copies the Question 3 answer cell and changes only the letter, so the cell sets "
                   "ans_scale = 'c': ans_mask is never defined (NameError) and the right answer 'b' to "
                   "Question 3 is overwritten with 'c'.",
        "where": ["q03", "q06"]}),

    # lucidrains/denoising-diffusion-pytorch #314, DL4Proteins-notebooks #12
    "q08_query_name_reused_for_scores_scales_by_key_count": ({
        NW: '''def nadaraya_watson(q, K, V):
    q = K @ q                                   # q . k_i for every key
    kappa = torch.exp(q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Reuses the name q for the vector of scores K q, so the following math.sqrt(q.shape[-1]) "
                   "reads the number of keys T instead of d_k: the kernel is exp(q.k / sqrt(T)), right only "
                   "when T == d_k (as in the lesson's row of 4 keys with d_k = 4).",
        "where": ["q08"]}),

    # "Why code doesn't reach last column in matrix": a loop bound one short
    "q09_row_loop_range_stops_before_last_row": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.zeros(T, T, dtype=torch.float64)
    for t in range(1, T):               # row t (from 1) averages the first t tokens
        W[t - 1, :t] = 1.0 / t
    return W
''',
    }, {"mistake": "The row loop runs over range(1, T), one short, so row T (the last row) is never filled "
                   "and stays all zeros instead of holding 1/T in every column.",
        "where": ["q09", "q10"]}),

    # jupytearth.org "Managing state": a notebook global read inside the function
    "q10_effective_tokens_returns_stale_lesson_entropies": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** H


# the lesson's table (hand-crafted Q and K, causal)
''' + _LESSON_QK + '''A_lesson = attention_weights(scaled_scores(_Q, _K), causal_additive_mask(5, torch.float64))
H = row_entropy_bits(A_lesson)
print(H, effective_tokens(A_lesson))
''',
    }, {"mistake": "effective_tokens returns 2 ** H for the global H that the cell computed for the lesson's "
                   "table, not the entropies of the A it is given: it is right only for the lesson's A and "
                   "returns those five numbers (shape (5,)) for any other input.",
        "where": ["q10"]}),

    # the lesson's last query row retyped from the last key row's pattern
    "q11_lesson_query_row_retyped_from_key_row": ({
        RANK: '''max_rank_S = 8

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0.5, 0.5]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(scaled_scores(_Q, _K)))
''',
    }, {"mistake": "Retypes the lesson's last query row following the pattern of the last key row, "
                   "[0, 0, 0.5, 0.5] instead of [0.5, 0.5, 0, 0]; that Q has rank 3, so rank_S_lesson "
                   "comes out 3 instead of 2.",
        "where": ["q11"]}),

    # besthub.dev "for-loop variables leak", Effective Python item 20
    "q12_sum_dedented_out_of_the_shape_loop": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    total = 0
    for rows, cols in shapes:
        n = rows * cols
    total += n
    return total
''',
    }, {"mistake": "The `total += n` line is dedented out of the loop over the weight shapes, so only the "
                   "leaked n of the last matrix is added: it returns d_model * d_v (or d_v * d_model with "
                   "W_O) instead of the sum of all the matrices.",
        "where": ["q12"]}),

    # helmholtz-analytics/heat #578: a wrong variable used at one point
    "q14_experiment_compares_value_shape_instead_of_output": ({
        SHAPES_ANS: '''_g = torch.Generator().manual_seed(1)
_T, _Tp, _dm, _dk, _dv = 3, 5, 6, 4, 2
_X = torch.randn(_T, _dm, dtype=torch.float64, generator=_g)
_Y = torch.randn(_Tp, _dm, dtype=torch.float64, generator=_g)
_WQ = torch.randn(_dm, _dk, dtype=torch.float64, generator=_g)
_WK = torch.randn(_dm, _dk, dtype=torch.float64, generator=_g)
_WV = torch.randn(_dm, _dv, dtype=torch.float64, generator=_g)
_Qx, _Ky, _Vy = _X @ _WQ, _Y @ _WK, _Y @ _WV
_S = scaled_scores(_Qx, _Ky)
_O = attention_weights(_S) @ _Vy
_options = {
    "a": ((_T, _T), (_T, _dv)),
    "b": ((_T, _Tp), (_T, _dv)),
    "c": ((_Tp, _T), (_Tp, _dv)),
    "d": ((_T, _Tp), (_Tp, _dv)),
}
ans_cross_shapes = [k for k, (s, o) in _options.items() if s == tuple(_S.shape) and o == tuple(_Vy.shape)][0]
''',
    }, {"mistake": "Its experiment computes O = A V correctly but compares the shape of V (T' x d_v) with the "
                   "options instead of O's (one name, _Vy for _O), so it answers 'd' instead of 'b'.",
        "where": ["q14"]}),

    # copied the Question 14 answer cell, changed only the name
    "q15_q14_cell_copied_letter_left_unchanged": ({
        CAUSAL_ANS: '''ans_cross_causal = "b"
''',
    }, {"mistake": "Copies the Question 14 answer cell (ans_cross_shapes = 'b') and renames the variable but "
                   "leaves its letter, answering 'b' (never: only square score matrices) instead of 'd'.",
        "where": ["q15"]}),

    # jupytearth.org "Managing state", kiwidamien "Globals are bad"
    "q16_cost_helper_reads_global_length_for_keys": ({
        COST_ANS: '''_T, _d_k = 100, 64


def _score_cost(n):
    return n * _T * _d_k          # n queries against T keys, d_k multiply-adds each


_ratio = _score_cost(2 * _T) / _score_cost(_T)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]
''',
    }, {"mistake": "Its cost helper multiplies its argument by the notebook-level _T for the number of keys, "
                   "so doubling the length doubles only the queries: the ratio comes out 2 and it answers "
                   "'a' (linear) instead of 'c' (quadratic).",
        "where": ["q16"]}),
}
