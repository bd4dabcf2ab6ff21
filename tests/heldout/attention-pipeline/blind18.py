"""Eighteenth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook and full_marks.ipynb (whose cells these
replace), Lesson 08 (for the ranks of the lesson's Q, K and S), `harness.py`, blind17.py (for the format)
and only the module docstrings and variant names of blind.py .. blind16.py (to count which questions they
touch least and not to repeat a mistake in the same form), and a short search of public attention code:
jadore801120's attention-is-all-you-need-pytorch (`nn.Softmax(dim=2)`, `torch.bmm(q, k.transpose(1, 2))`),
Stanford CS336 assignment-1 student repositories (`softmax(attn_scores, d_k)` with the head width passed
as the axis, `torch.where(mask, scores, float("-inf"))` with a Python-scalar branch), a hand-written
`masked_softmax` (`x = x - torch.max(x)`, a reduction with no dim), attention-entropy helpers that divide
by `math.log(base)` with the base taken from a tensor size or normalise by the log of the row length,
Hugging Face's BERT (`attention_mask = torch.ones(...)` built in the default dtype when no mask is given)
and Karpathy's nanoGPT `Block.forward` (`x = x + self.sa(...)`, the residual). Their habits are carried
into our functions.

The set leans on the questions earlier sets touched least (q01 projections, q09 prefix matrix, q11 ranks,
q12 parameter count, q13 cross-attention) and on slips that pair a right idea with one wrong detail: a
batched matmul that needs a batch, torch.where over two Python scalars (default dtype), the axis given as
the axis's size, a residual added inside attention, a reduction without dim, reciprocals taken in float32
before the cast to float64, an entropy normalised by the log of the row length, a precedence slip in a
conditional expression, a default mask of float32 zeros, a fixed positive softmax axis, the head width
read with len() of the first row, a fixed positive entropy axis and a rank "lost to the softmax". Each
wrong variant changes the cell of one question of an otherwise full-marks notebook and holds exactly one
mistake; `where` lists the questions whose tests may fail (a helper reused by the pipeline may also fail
the questions that call it). The correct variants are really correct, in unusual styles (a Hugging
Face-style (1 - keep) * min mask with a 0-dim open mask, torch.where around the product, compared
aranges, an einsum kernel, a generator of matmuls with an integer open mask, meta-tensor numel counts).
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
PREFIX = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"

CORRECT = {
    "hf_keep_mask_zero_dim_open_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.tril(torch.ones(T, T, dtype=dtype, device=device))
    return (1.0 - keep) * torch.finfo(dtype).min      # 1 - keep is 1 exactly where blocked
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        M = causal_additive_mask(S.shape[-1], S.dtype, S.device)
    else:
        M = torch.zeros((), dtype=S.dtype, device=S.device)   # a 0-dim mask that blocks nothing
    A = attention_weights(S, M)
    return torch.matmul(A, V), A
''',
    },
    "where_product_entropy_pow": {
        ENT: '''def row_entropy_bits(A):
    terms = torch.where(A > 0, A * torch.log2(A), 0.0)    # 0 log 0 := 0
    return -terms.sum(dim=-1)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))
''',
    },
    "compared_aranges_prefix_einsum_kernel": {
        PREFIX: '''def prefix_average_matrix(T):
    t = torch.arange(1, T + 1, dtype=torch.float64)
    visible = (t[None, :] <= t[:, None]).to(torch.float64)   # column i visible from row t when i <= t
    return visible / t[:, None]
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.einsum("td,d->t", K, q) / math.sqrt(q.numel()))
    return torch.einsum("t,tv->v", kappa, V) / kappa.sum()
''',
    },
    "matmul_generator_integer_open_mask": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.matmul(X, W) for W in (W_Q, W_K, W_V))
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    M = 0 if M is None else M          # adding 0 changes nothing
    return (S + M).softmax(dim=-1)
''',
    },
    "meta_numel_count_min_rank": {
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(torch.empty(s, device="meta").numel() for s in shapes)   # no memory is allocated
''',
        RANK: '''max_rank_S = min(8, 100)          # rank S <= min(d_k, T)

rank_S_lesson = 2                  # the lesson's queries only ask two questions
''',
    },
}

WRONG = {
    # seen in: jadore801120/attention-is-all-you-need-pytorch and d2l, `torch.bmm(...)` for every product;
    # here the weights are expanded over a batch, which an unbatched (or 4-D) X does not have.
    "q01_bmm_with_expanded_weights": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    B = X.shape[0]
    return (torch.bmm(X, W_Q.expand(B, -1, -1)),
            torch.bmm(X, W_K.expand(B, -1, -1)),
            torch.bmm(X, W_V.expand(B, -1, -1)))
''',
    }, {"mistake": "projects with torch.bmm, which needs exactly one batch dimension: an unbatched "
                   "(T, d_model) input (or one with two batch dimensions) raises an error",
        "where": ["q01", "q07", "q09"]}),

    # plausible for this lesson: the width of a head read as the length of the first row.
    "q02_d_k_from_len_of_first_row": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = len(Q[0])                    # number of features of a query
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "reads d_k as len(Q[0]), which is d_k only for an unbatched Q; with a batch dimension it "
                   "is the number of queries, so batched scores are divided by sqrt(T_q)",
        "where": ["q02", "q07", "q13"]}),

    # seen in: CS336 student code `torch.where(mask, scores, float("-inf"))` (a Python-scalar branch);
    # here both branches are Python scalars, so torch.where builds the default dtype (float32).
    "q04_where_over_two_python_scalars": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(diagonal=1)
    return torch.where(future, torch.finfo(dtype).min, 0.0)
''',
    }, {"mistake": "builds the mask with torch.where over two Python numbers, which gives a tensor in the "
                   "default dtype (float32) instead of the requested dtype: float16 masks come back float32 "
                   "and float64's minimum does not fit in float32, so a float64 mask raises an error",
        "where": ["q04", "q07", "q09"]}),

    # seen in: a CS336 student's `softmax(attn_scores, d_k)`, the size of the last axis passed as the axis.
    "q05_axis_given_as_its_size": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.softmax(S, S.shape[-1])   # softmax over the last dimension (the keys)
''',
    }, {"mistake": "passes the size of the last dimension (S.shape[-1]) as the softmax dim instead of -1, "
                   "so the call fails (dimension out of range) or normalises over the wrong axis",
        "where": ["q05", "q07", "q09", "q13"]}),

    # seen in: nanoGPT `Block.forward`, `x = x + self.sa(self.ln1(x))`; here the residual is added inside
    # the attention function itself.
    "q07_residual_added_to_output": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return X + A @ V, A                    # residual connection, as in the transformer block
''',
    }, {"mistake": "adds the residual X to the output (O = X + AV); attention alone returns AV, and when "
                   "d_v differs from d_model the sum cannot even be formed",
        "where": ["q07", "q09"]}),

    # seen in: a public hand-written masked_softmax, `x = x - torch.max(x)` (a reduction with no dim);
    # here the row normalisation forgets its dim and divides by the grand total.
    "q09_normalised_by_grand_total": ({
        PREFIX: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum()
''',
    }, {"mistake": "divides the lower triangle by the sum of the whole matrix (T(T+1)/2) instead of by each "
                   "row's sum, so no row sums to 1",
        "where": ["q09"]}),

    # plausible for this lesson: right recipe, reciprocals taken in the default float32, cast at the end.
    "q09_reciprocals_in_float32_then_cast": ({
        PREFIX: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]
    return W.to(torch.float64)
''',
    }, {"mistake": "computes the 1/t weights in float32 and only then casts to float64, so entries such as "
                   "1/3 carry float32 rounding (about 1e-8) and differ from the exact float64 values",
        "where": ["q09"]}),

    # seen in: public attention-entropy helpers that divide by `math.log(base)` with the base taken from a
    # tensor size, and a "normalized entropy" that divides by the log of the row length.
    "q10_normalised_by_log_of_keys": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1) / math.log(A.shape[-1])   # change of base


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "changes the base with log(T_k), the number of keys, instead of log(2): the result is the "
                   "entropy normalised to [0, 1], not bits (they agree only when there are 2 keys)",
        "where": ["q10"]}),

    # plausible for this lesson (the fixed positive axis of `nn.Softmax(dim=2)`, carried to the entropy).
    "q10_summed_over_axis_one": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "sums over dim=1, which is the key axis only for a 2-D A; with a batch dimension it sums "
                   "over the queries",
        "where": ["q10"]}),

    # plausible for this lesson: the softmax's sum-to-one constraint taken to cost the scores a rank.
    "q11_one_rank_lost_to_softmax": ({
        RANK: '''max_rank_S = 8 - 1                 # each softmax row sums to 1, which removes one direction

rank_S_lesson = 2
''',
    }, {"mistake": "subtracts one from d_k because the weights' rows sum to 1; the bound is on S, before the "
                   "softmax, and S can reach rank d_k = 8",
        "where": ["q11"]}),

    # plausible for this lesson: a conditional expression whose `else 0` swallows the whole sum.
    "q12_conditional_swallows_the_sum": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + d_v * d_model if with_output else 0
''',
    }, {"mistake": "writes `a + b if with_output else 0`, which Python reads as `(a + b) if with_output else "
                   "0`, so without the output projection the count is 0",
        "where": ["q12"]}),

    # seen in: Hugging Face BertModel.forward, `attention_mask = torch.ones(...)` built in the default dtype
    # when none is given; here an all-open additive mask of float32 zeros.
    "q13_default_mask_of_float32_zeros": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is None:
        M = torch.zeros(X.shape[-2], Y.shape[-2], device=X.device)   # nothing blocked
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "builds the default all-open mask in float32 (no dtype given), so float16 scores are "
                   "promoted: A comes back float32 and the product with the float16 values fails",
        "where": ["q13"]}),

    # seen in: jadore801120/attention-is-all-you-need-pytorch, `self.softmax = nn.Softmax(dim=2)`, right
    # only for 3-D (batch, T_q, T_k) scores.
    "q13_softmax_module_dim_two": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M
    A = torch.nn.Softmax(dim=2)(S)
    return A @ V, A
''',
    }, {"mistake": "normalises with nn.Softmax(dim=2), which is the key axis only for 3-D scores: unbatched "
                   "inputs raise an error and two batch dimensions normalise over the queries",
        "where": ["q13"]}),
}
