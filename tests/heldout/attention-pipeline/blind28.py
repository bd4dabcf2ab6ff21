"""Blind held-out set 28 for attention-pipeline.

Twenty-eighth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook (markdown, solution cells and public checks),
full_marks.ipynb (whose cells these replace), `harness.py`, blind21.py and blind27.py (for the format) and only
the module docstrings and variant names of blind.py .. blind27.py (to see which questions they touch least and
not to repeat a mistake in the same form), and a short search of public attention code: d2l's
`AdditiveAttention` (scores squashed with `torch.tanh`), d2l's `sequence_mask` / `masked_softmax` forks
(`X[~mask] = value` written into the caller's tensor, blocked entries filled with `value=-1e6`), a public
`SigmoidScaledDotProductAttention` (wlgjs8/Transformer, `F.sigmoid(attn)` in place of the softmax), a numpy
causal mask `np.triu(np.ones((n, n)), k=1) * -1e9` (gaminghusky1/AIProjects), softmax-applied-twice bug reports
(runame/laplace-redux PR #1, MenghaoGuo/AutoDeeplab issue #18) and mask-never-passed-on reports
(facebookresearch/fairseq issue #1682, Ivsxk/RAT issue #5). Their habits are carried into our functions.

The set follows a real class's mix: small slips inside otherwise right code (a shape sliced with `[-1:]`, an
in-place `+=` on the caller's scores, the scale written outside the exp, `torch.pow`'s arguments swapped,
lambdas in a list comprehension that all capture the last weight), whole-approach mistakes (tanh-squashed
scores, a sigmoid for the softmax, d2l's -1e6 fill rebuilt from the additive mask, a second softmax, a mask
argument never passed on), crashes of a half-remembered API (numpy's `k=` keyword given to `torch.triu`,
`torch.log(A, 2)` as if it took a base) and two multiple-choice answers of a student who misread the lesson
(S taken as square in cross-attention; "no causal mask by default" read as "never"). Each wrong variant changes
the cell of one question of an otherwise full-marks notebook and holds exactly one mistake; `where` lists the
questions whose tests may fail (a helper reused by the pipeline, or passed to a later question's public check,
may also fail there; q09's hidden test runs `self_attention` with zero projections). The correct variants are
really correct, in unusual styles (a -inf mask made finite with `nan_to_num`, `causal and mask` giving
`S + False`, an L1 `normalize` of the lower triangle, an einsum entropy over a `masked_fill`ed log, a softmax
whose dim is computed from `S.dim()`). Every variant was checked against plain torch (the full-marks cells)
before it was written down.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
CROSS = "cross_attention"

CORRECT = {
    # the lecture's -inf mask, made finite afterwards: triu keeps -inf above the diagonal, nan_to_num turns
    # -inf into the most negative finite number of the tensor's own dtype.
    "minus_inf_triu_then_nan_to_num_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.full((T, T), float("-inf"), dtype=dtype, device=device).triu(1)
    return M.nan_to_num()        # -inf -> torch.finfo(dtype).min, zeros untouched
''',
    },

    # `causal and mask`: with causal=False, M is the Python False and S + False is S in its own dtype.
    "short_circuit_mask_in_self_attention": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal and causal_additive_mask(S.shape[-1], S.dtype, S.device)
    A = attention_weights(S, M)
    O = torch.matmul(A, V)
    return O, A
''',
    },

    # L1-normalise the rows of the lower triangle: each row t has t ones, so each becomes 1/t.
    "l1_normalize_lower_triangle_prefix": {
        AVG: '''def prefix_average_matrix(T):
    ones_below = torch.ones(T, T, dtype=torch.float64).tril()
    return torch.nn.functional.normalize(ones_below, p=1, dim=1)
''',
    },

    # the entropy as a per-row dot product (einsum) of A with its log, zeroed where A is 0.
    "einsum_entropy_masked_fill_log": {
        ENT: '''def row_entropy_bits(A):
    log_a = torch.log2(A).masked_fill(A == 0, 0.0)
    return -torch.einsum("...k,...k->...", A, log_a)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },

    # WhiteFox-style softmax dim computed from the number of dims, and torch.add for the mask.
    "softmax_dim_from_ndim_torch_add": {
        WEIGHTS: '''def attention_weights(S, M=None):
    logits = S if M is None else torch.add(S, M)
    return torch.nn.functional.softmax(logits, dim=logits.dim() - 1)
''',
    },
}

WRONG = {
    # plausible for this lesson: a helper made of lambdas in a list comprehension; Python closures bind the loop
    # variable late, so every lambda sees the last weight.
    "q01_lambdas_capture_last_weight": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    projections = [lambda: X @ W for W in (W_Q, W_K, W_V)]
    Q, K, V = (project() for project in projections)
    return Q, K, V
''',
    }, {"mistake": "the three projections are lambdas built in a list comprehension; each closes over the loop "
                   "variable W, which ends as W_V, so Q, K and V are all X @ W_V (queries and keys come out "
                   "with width d_v and the values of the value projection)",
        "where": ["q01", "q07", "q09", "q13"]}),

    # seen in: d2l's AdditiveAttention (`features = torch.tanh(queries + keys)`), carried into dot-product scores.
    "q02_scores_squashed_with_tanh": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    raw = Q @ K.transpose(-2, -1)
    return torch.tanh(raw) / math.sqrt(d_k)
''',
    }, {"mistake": "passes the dot products through tanh before scaling, mixing in additive attention's "
                   "squashing: scores are tanh(q . k) / sqrt(d_k), bounded by 1 / sqrt(d_k), instead of "
                   "q . k / sqrt(d_k) (the lesson's query 2 against key 1 gives tanh(2) / 2 = 0.48, not 1)",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    # plausible for this lesson: the head size read with a slice, `shape[-1:]`, which is a torch.Size, not an int.
    "q02_head_size_sliced_as_a_size": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1:]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "reads d_k as Q.shape[-1:], a one-element torch.Size rather than the int Q.shape[-1], so "
                   "math.sqrt(d_k) raises TypeError and no scores are computed",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    # seen in: gaminghusky1/AIProjects' numpy mask `np.triu(np.ones((n, n)), k=1) * -1e9`; numpy's `k=` keyword
    # is not torch.triu's (`diagonal=`).
    "q04_numpy_k_keyword_for_triu": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), k=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(future, torch.finfo(dtype).min)
''',
    }, {"mistake": "passes numpy's keyword k=1 to torch.triu, whose offset argument is called diagonal, so the "
                   "call raises TypeError and no mask is built",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # seen in: d2l's `sequence_mask` forks, which write `X[~mask] = value` into the caller's tensor.
    "q05_mask_added_in_place_to_callers_scores": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S += M           # mask the scores before the softmax
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "adds the mask in place with S += M, which overwrites the caller's score tensor with the "
                   "masked scores (and fails when M has more batch dimensions than S); the weights are right but "
                   "the input is modified",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: wlgjs8/Transformer's SigmoidScaledDotProductAttention (`F.sigmoid(attn)` where the softmax was).
    "q05_sigmoid_instead_of_softmax": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.sigmoid(S)
''',
    }, {"mistake": "squashes each score on its own with a sigmoid instead of taking the row softmax, so the "
                   "weights are not normalised over the keys: rows do not sum to 1 (blocked entries are still 0)",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: d2l's `masked_softmax`, which fills blocked positions with `value=-1e6`.
    "q05_d2l_fill_value_from_additive_mask": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is None:
        return torch.softmax(S, dim=-1)
    blocked = M != 0
    return torch.softmax(S.masked_fill(blocked, -1e6), dim=-1)
''',
    }, {"mistake": "does not add M: it turns the additive mask back into a boolean (M != 0) and fills those "
                   "scores with d2l's -1e6, which float16 cannot hold (masked_fill raises an overflow error), and "
                   "any finite nonzero entry of M is treated as fully blocked instead of being added",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: softmax-applied-twice bug reports (runame/laplace-redux PR #1, MenghaoGuo/AutoDeeplab issue #18).
    "q07_softmax_applied_again_to_weights": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    masked = attention_weights(S, M)
    A = torch.softmax(masked, dim=-1)
    return A @ V, A
''',
    }, {"mistake": "treats attention_weights' output as masked scores and applies a second softmax to it: the "
                   "weights are the softmax of probabilities, far flatter than the attention weights, and the "
                   "blocked zeros become exp(0) > 0 so a causal A is no longer lower-triangular",
        "where": ["q07", "q09", "q13"]}),

    # plausible for this lesson: the 1/sqrt(d_k) written outside the exp, where it cancels in the ratio.
    "q08_scale_divides_the_exponential": ({
        NW: '''def nadaraya_watson(q, K, V):
    d_k = q.shape[-1]
    kappa = torch.exp(K @ q) / math.sqrt(d_k)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "puts the parenthesis in the wrong place: the kernel is exp(q . k) / sqrt(d_k) instead of "
                   "exp(q . k / sqrt(d_k)); the constant cancels between numerator and denominator, so the "
                   "estimator uses the unscaled kernel (the lesson's 'it' row gives 0.993 on 'mat', not 0.870)",
        "where": ["q08"]}),

    # plausible for this lesson: torch.pow(base, exponent) called with the arguments the other way round.
    "q10_pow_arguments_swapped": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    H = row_entropy_bits(A)
    return torch.pow(H, 2)
''',
    }, {"mistake": "effective_tokens calls torch.pow(H, 2), which is H squared, instead of torch.pow(2, H) = 2 ** H "
                   "(a one-hot row gives 0 effective tokens instead of 1)",
        "where": ["q10"]}),

    # plausible for this lesson: math.log(x, base) remembered as torch.log(x, base); torch.log takes no base.
    "q10_torch_log_given_a_base": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log(A, 2), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "calls torch.log(A, 2) as if it took a base like math.log; torch.log has no base argument, so "
                   "the call raises TypeError (torch.log2 was needed)",
        "where": ["q10"]}),

    # seen in: mask-never-passed-on reports (facebookresearch/fairseq issue #1682, Ivsxk/RAT issue #5).
    "q13_mask_argument_never_passed_on": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    A = attention_weights(S)
    return A @ V, A
''',
    }, {"mistake": "accepts the padding mask M but never passes it to attention_weights, so blocked keys of Y "
                   "still receive weight whenever a mask is given",
        "where": ["q13"]}),

    # plausible for this lesson: a student who carries self-attention's square T x T scores into cross-attention.
    "q14_answer_scores_kept_square": ({
        "ans_cross_shapes": 'ans_cross_shapes = "a"\n',
    }, {"mistake": "answers a (S is T x T) although with queries from X and keys from Y the score matrix has one "
                   "column per token of Y, T x T' (answer b)",
        "where": ["q14"]}),

    # plausible for this lesson: "no causal mask by default" misread as "a causal mask is never possible".
    "q15_answer_never_from_default": ({
        "ans_cross_causal": 'ans_cross_causal = "b"\n',
    }, {"mistake": "answers b (never, a causal mask needs a square score matrix), misreading 'no causal mask by "
                   "default' as 'never'; a causal mask makes sense when X and Y share one time axis (answer d), "
                   "and it need not be square",
        "where": ["q15"]}),
}
