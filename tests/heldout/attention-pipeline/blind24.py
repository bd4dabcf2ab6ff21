"""Blind held-out set 24 for attention-pipeline.

Twenty-fourth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook (markdown, solution cells and public checks),
full_marks.ipynb (whose cells these replace), `harness.py`, blind23.py (for the format) and only the module
docstrings and variant names of blind.py .. blind23.py (to see which questions they touch least and not to
repeat a mistake in the same form), and a short search of public attention code: the many forks of the
"transformer from scratch" video code (`(query @ key.transpose(-2, -1)) // math.sqrt(d_k)`, and
`attention_scores.masked_fill(mask == 0, -1e9)` whose result is never assigned), public helpers
`def attention(q, k, v, d_k=1024, ...)` / `d_k=512` that carry the head width as a default argument,
PyTorch inductor's attention patterns collected in WhiteFox (`qk = q + mask` then `softmax(qk)`: the mask
added to the queries instead of the scores), PSRahul's Transformer_Learner (`F.softmax(attention_logits,
dim=2)` for a `(B, T, T)` layout), `torch.iinfo(x.dtype).min` fill limits in public code, and a module that
asserts `x.size[-1] == ...` (size used as if it were shape). Their habits are carried into our functions.

This round's emphasis: what a class hands in when it half-remembers PyTorch. About half of the wrong
variants sit in the core (scores, scale, mask, softmax, the pipeline) and half in the other questions (the
kernel lens, the prefix average, the entropy, the count, cross-attention, a multiple-choice answer). Each
pairs a right idea with one wrong detail: the lesson's d_k frozen into a default argument, floor division
by the scale, `torch.iinfo` asked about a float dtype, an out-of-place `S.add(M)` whose result is dropped,
the softmax axis fixed at 2, `X.size[-2]` subscripted like `X.shape`, the weights mixing the keys instead of
the values, a weighted sum reduced with the default `dim=None`, row counts written for the lesson's five
tokens, the entropy taken as a mean over keys, the count's parameters listed in d_v, d_k order, the
softmax taken over the queries (plus mask) instead of the scores, and the misread "no gradient" answer.
Each wrong variant changes the cell of one question of an otherwise full-marks notebook and holds exactly
one mistake; `where` lists the questions whose tests may fail (a helper reused by the pipeline may also fail
the questions that call it: q09's hidden test runs `self_attention` with zero projections, q10's public
checks call the mask and the prefix average, q13's public check calls `self_attention`). The correct
variants are really correct, in unusual styles (projections through `torch.inner` with the weights
transposed, a mask filled through `torch.triu_indices`, a softmax taken in float64 and cast back, an
entropy whose zeros are replaced by ones before the log, and a count summed over a list of shapes).
Every variant was checked against plain torch (the full-marks cells) before it was written down.

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
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
ANS_MASK = "ans_mask"

CORRECT = {
    # torch.inner contracts the last axes of both arguments, so X against W^T is X @ W, batch axes kept.
    "inner_with_transposed_weights": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.inner(X, W_Q.mT)
    K = torch.inner(X, W_K.mT)
    V = torch.inner(X, W_V.mT)
    return Q, K, V
''',
    },
    # the strictly-upper positions listed by triu_indices (offset 1) and filled by advanced indexing.
    "triu_indices_offset_one_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros((T, T), dtype=dtype, device=device)
    rows, cols = torch.triu_indices(T, T, offset=1, device=device)
    M[rows, cols] = torch.finfo(dtype).min
    return M
''',
    },
    # the masked scores formed in their own dtype, the softmax taken in float64 and cast back.
    "float64_softmax_cast_back": {
        WEIGHTS: '''def attention_weights(S, M=None):
    logits = S if M is None else S + M
    return torch.softmax(logits.to(torch.float64), dim=-1).to(logits.dtype)
''',
    },
    # zeros replaced by ones before the log (log2 1 = 0), out of place so the caller's A is untouched.
    "zeros_to_ones_before_log_entropy": {
        ENT: '''def row_entropy_bits(A):
    safe = A.masked_fill(A == 0, 1)
    return -(A * torch.log2(safe)).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # the count as a sum over the weight shapes, W_O appended only when asked for.
    "count_summed_over_shapes": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''',
    },
}

WRONG = {
    # seen in: public helpers `def attention(q, k, v, d_k=1024, mask=None, dropout=None)` and
    # `def attention(q, k, v, d_k=512, mask=False)`, which scale by a default instead of the inputs' width.
    "q02_d_k_default_argument_from_lesson": ({
        SCORES: '''def scaled_scores(Q, K, d_k=4):
    # d_k = 4 in the lesson
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "the scale uses a default argument d_k=4 (the lesson's head width) instead of Q.shape[-1], "
                   "so any other head width is scaled by 1/2",
        "where": ["q02", "q07", "q13"]}),

    # seen in: many forks of the "transformer from scratch" video code,
    # `attention_scores = (query @ key.transpose(-2, -1)) // math.sqrt(d_k)`.
    "q02_floor_divided_by_the_scale": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return (Q @ K.transpose(-2, -1)) // math.sqrt(d_k)
''',
    }, {"mistake": "the scores are floor-divided (//) by sqrt(d_k), so every score is rounded down to a whole "
                   "number",
        "where": ["q02", "q07", "q13"]}),

    # seen in: `torch.iinfo(x.dtype).min` as a fill limit in public code (there for integer tensors); here
    # the integer-info call is asked about a float dtype and raises.
    "q04_iinfo_for_a_float_dtype": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.iinfo(dtype).min
    return M
''',
    }, {"mistake": "the blocked value is taken from torch.iinfo(dtype), which only describes integer dtypes and "
                   "raises for float16/32/64 (torch.finfo is the float one)",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # seen in: the same video-code forks, `attention_scores.masked_fill(mask == 0, -1e9)` with the result
    # never assigned; here the out-of-place add.
    "q05_out_of_place_add_dropped": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S.add(M)
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "S.add(M) is out of place and its result is thrown away, so the mask is never applied",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: PSRahul/Transformer_Learner util.py, `F.softmax(attention_logits, dim=2)` written for a
    # (B, T, T) layout.
    "q05_softmax_axis_fixed_at_two": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.nn.functional.softmax(S, dim=2)
''',
    }, {"mistake": "the softmax axis is fixed at 2: a 2-D score matrix raises, and with two batch axes the "
                   "softmax runs over the queries instead of the keys",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: a public module asserting `x.size[-1] == self.channel_size`; size is a method, not a tuple.
    "q07_size_subscripted_like_shape": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.size[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "X.size[-2] subscripts the size method (TypeError) where X.shape[-2] or X.size(-2) was "
                   "meant, so causal self-attention raises",
        "where": ["q07", "q09", "q13"]}),

    # plausible for this lesson: right weights, the wrong tensor mixed (keys instead of values).
    "q07_weights_mix_the_keys": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ K, A
''',
    }, {"mistake": "the output mixes the keys (A @ K) instead of the values (A @ V): wrong values, and width "
                   "d_k instead of d_v",
        "where": ["q07", "q13"]}),

    # plausible for this lesson: the weighted values summed with the default dim=None.
    "q08_weighted_values_summed_over_everything": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum() / kappa.sum()
''',
    }, {"mistake": "the weighted values are summed with no dim (over keys and value components together), "
                   "so it returns one number instead of a (d_v,) vector",
        "where": ["q08"]}),

    # plausible for this lesson: the row counts written out for the lesson's five tokens.
    "q09_row_counts_for_five_tokens": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    counts = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=torch.float64)
    return W / counts[:, None]
''',
    }, {"mistake": "the row counts are the lesson's 1..5 written out instead of 1..T, so any T other than 5 "
                   "raises a shape mismatch",
        "where": ["q09", "q10"]}),

    # plausible for this lesson (attention-entropy code often ends in .mean()): the entropy as an average
    # over the keys instead of a sum.
    "q10_entropy_as_mean_over_keys": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    # entropy is the expected surprise
    return -(A * logs).mean(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "the entropy averages -A log2 A over the keys (mean) instead of summing it, so every "
                   "entropy is divided by the number of keys",
        "where": ["q10"]}),

    # plausible for this lesson: the parameters listed in d_v, d_k order, so calls by position swap them.
    "q12_parameters_in_d_v_d_k_order": ({
        PARAMS: '''def qkv_param_count(d_model, d_v, d_k, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return n
''',
    }, {"mistake": "the signature lists d_v before d_k, so a positional call counts W_Q and W_K with d_v and "
                   "W_V and W_O with d_k (only right when d_k == d_v)",
        "where": ["q12"]}),

    # seen in: WhiteFox's inductor sfdp pattern `qk = q @ k.transpose(-2, -1) / ...; qk = q + mask` then
    # `softmax(qk)`: the weights from the queries instead of the scores.
    "q13_weights_from_the_queries": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    A = attention_weights(Q, M)
    return A @ V, A
''',
    }, {"mistake": "the softmax (and mask) is applied to the queries Q instead of the scores S, so A is a "
                   "softmax over query components and A @ V fails or mixes nonsense",
        "where": ["q13"]}),

    # plausible for a student who misread the lesson: the mask is believed to block gradient flow.
    "q06_answer_no_gradient_upper_case": ({
        ANS_MASK: '''ans_mask = "D"
''',
    }, {"mistake": "answers D (no gradient flows through blocked entries) instead of c: without the mask "
                   "position t reads token t+1, the token it must predict",
        "where": ["q06"]}),
}
