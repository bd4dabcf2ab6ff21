"""Blind held-out set 29 for attention-pipeline.

Twenty-ninth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text of the master notebook (markdown, solution cells and public checks),
full_marks.ipynb (whose cells these replace), `harness.py`, blind21.py (for the format) and only the module
docstrings and variant names of blind.py .. blind28.py (to see which questions they touch least and not to
repeat a mistake in the same form), and a short search of public attention code: a course `SDPA(Q, K, V)`
homework and several retrieval heads scoring with `torch.matmul(Q, K.t())`, SASRec-style forks building the
causal mask as `~torch.tril(torch.ones(tl, tl, dtype=torch.bool))`, Hugging Face eager attention's
`softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)`, Yu-Hsiang Huang's
attention-is-all-you-need forks (`torch.matmul(q / self.temperature, k.transpose(2, 3))`), a d2l
Nadaraya-Watson fork (`torch.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1))`), and public
helpers that clean zeros before a log with `A[A == 0] = 1` on the caller's tensor. Their habits are carried
into our functions (each is named in a comment above its variant).

Round 29 mix: small slips inside otherwise right code (a softmax `dtype=` argument with no cast back, a
denominator taken from the wrong variable, a row count taken from the untriangled ones, an operator, an
in-place clean-up of the caller's matrix), whole-approach mistakes (scores divided by their own measured
spread, queries pre-scaled and then scaled again by the helper, the scale taken from the number of keys),
crashes of half-remembered APIs (`.t()`, `~` on a float tensor, `torch.linalg.multi_dot`, `torch.bmm` on 2-D
weights), and multiple-choice answers of a student who misread the lesson, written in code shapes earlier sets
used little (a helper function, small classes, a shape list, a dict of reasons). Each wrong variant changes the
cell of one question of an otherwise full-marks notebook and holds exactly one mistake; `where` lists the
questions whose tests may fail (a helper reused by the pipeline may also fail the questions that call it;
q09's hidden test runs `self_attention` with zero projections, q10's public check uses the prefix average).
The correct variants are really correct, in unusual styles (a small pipeline class whose "no mask" is the
number 0, a softmax method with a 0 default mask, a `nan_to_num(neginf=0)` entropy with `exp2`, an L1
`normalize` prefix average, an L1-normalised kernel with a dict-of-shapes count). Every variant was checked
against plain torch (the full-marks cells) before it was written down.

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

CORRECT = {
    "pipeline_class_zero_as_no_mask": {
        SELF: '''class _Pipeline:
    """One head: project, score, mask, softmax, mix."""

    def __init__(self, causal):
        self.causal = causal

    def mask_for(self, S):
        if not self.causal:
            return 0                      # adding the number 0 is "no mask"
        return causal_additive_mask(S.shape[-1], S.dtype, S.device)

    def __call__(self, X, W_Q, W_K, W_V):
        Q, K, V = project_qkv(X, W_Q, W_K, W_V)
        S = scaled_scores(Q, K)
        A = attention_weights(S, self.mask_for(S))
        return A @ V, A


def self_attention(X, W_Q, W_K, W_V, causal=True):
    return _Pipeline(causal)(X, W_Q, W_K, W_V)
''',
    },
    "softmax_method_zero_default_mask": {
        WEIGHTS: '''def attention_weights(S, M=None):
    M = 0 if M is None else M
    return (S + M).softmax(dim=-1)
''',
    },
    "nan_to_num_neginf_entropy_exp2": {
        ENT: '''def row_entropy_bits(A):
    logs = torch.log2(A).nan_to_num(neginf=0.0)     # log2(0) = -inf becomes 0, so 0 log 0 = 0
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    "l1_normalize_lower_ones_prefix": {
        AVG: '''def prefix_average_matrix(T):
    ones = torch.ones(T, T, dtype=torch.float64).tril()
    return torch.nn.functional.normalize(ones, p=1, dim=-1)
''',
    },
    "l1_normalised_kernel_dict_of_shapes_count": {
        NW: '''def nadaraya_watson(q, K, V):
    d_k = q.shape[-1]
    kappa = torch.exp((K @ q) / math.sqrt(d_k))
    weights = torch.nn.functional.normalize(kappa, p=1, dim=0)
    return weights @ V
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = {"W_Q": (d_model, d_k), "W_K": (d_model, d_k), "W_V": (d_model, d_v)}
    if with_output:
        shapes["W_O"] = (d_v, d_model)
    return sum(math.prod(shape) for shape in shapes.values())
''',
    },
}

WRONG = {
    # seen in: a course SDPA(Q, K, V) homework and retrieval heads, `torch.matmul(Q, K.t())`
    "q02_keys_transposed_with_t_method": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    scores = torch.matmul(Q, K.t())
    return scores / math.sqrt(d_k)
''',
    }, {"mistake": "transposes the keys with `.t()`, which only accepts tensors of at most two dimensions, so "
                   "every batched input crashes (the notebook asks for `.transpose(-2, -1)`)",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    "q02_scores_divided_by_their_own_std": ({
        SCORES: '''def scaled_scores(Q, K):
    # the lesson: scaling brings the scores back to unit variance, so divide by their spread
    raw = Q @ K.transpose(-2, -1)
    return raw / raw.std()
''',
    }, {"mistake": "divides the scores by their own measured standard deviation instead of by sqrt(d_k): the "
                   "scale depends on the data (and is 0/0 = NaN when all scores are 0)",
        "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),

    # seen in: SASRec-style forks, `~torch.tril(torch.ones(tl, tl, dtype=torch.bool))`, with the bool dtype dropped
    "q04_bitwise_not_of_float_tril": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = ~torch.tril(torch.ones(T, T, device=device))
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(future, torch.finfo(dtype).min)
''',
    }, {"mistake": "negates a float lower-triangle of ones with `~`, which torch refuses for floating tensors "
                   "(the tril needs dtype=torch.bool), so building the mask crashes",
        "where": ["q04", "q05", "q07", "q09", "q10"]}),

    # seen in: Hugging Face eager attention, `softmax(..., dtype=torch.float32).to(query_states.dtype)`, without the cast back
    "q05_softmax_dtype_float32_without_cast_back": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=-1, dtype=torch.float32)    # upcast for stability
''',
    }, {"mistake": "passes dtype=torch.float32 to the softmax for stability and never casts back, so float64 "
                   "and float16 scores come back as float32 weights",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    "q05_denominator_from_unshifted_exponentials": ({
        WEIGHTS: '''def _stable_softmax(x):
    m = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - m)
    return e / torch.exp(x).sum(dim=-1, keepdim=True)


def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    return _stable_softmax(S)
''',
    }, {"mistake": "hand-written softmax shifts the numerator by the row maximum but sums the unshifted "
                   "exponentials in the denominator, so rows no longer sum to 1 (and float16 overflows)",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # seen in: Yu-Hsiang Huang's attention-is-all-you-need forks, `torch.matmul(q / self.temperature, k.transpose(2, 3))`
    "q07_queries_prescaled_then_helper_scales_again": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    temperature = math.sqrt(Q.shape[-1])
    S = scaled_scores(Q / temperature, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "divides the queries by sqrt(d_k) as a temperature and then calls scaled_scores, which "
                   "divides by sqrt(d_k) again: the scores are scaled by 1/d_k",
        "where": ["q07"]}),

    "q01_multi_dot_two_dims_only": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.linalg.multi_dot([X, W_Q])
    K = torch.linalg.multi_dot([X, W_K])
    V = torch.linalg.multi_dot([X, W_V])
    return Q, K, V
''',
    }, {"mistake": "projects with torch.linalg.multi_dot, which only takes 1-D or 2-D matrices, so any input "
                   "with a batch dimension crashes",
        "where": ["q01", "q07", "q09"]}),

    # seen in: a d2l Nadaraya-Watson fork, `torch.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1))`
    "q08_d2l_bmm_on_two_dim_weights": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    w = kappa / kappa.sum()
    return torch.bmm(w.unsqueeze(1), V.unsqueeze(-1)).reshape(-1)
''',
    }, {"mistake": "copies d2l's bmm pooling: the unsqueezed weights are (T, 1), a 2-D tensor, and torch.bmm "
                   "needs 3-D batches, so the call crashes",
        "where": ["q08"]}),

    "q09_normalised_by_the_untriangled_ones": ({
        AVG: '''def prefix_average_matrix(T):
    ones = torch.ones(T, T, dtype=torch.float64)
    lower = torch.tril(ones)
    counts = ones.sum(dim=-1, keepdim=True)
    return lower / counts
''',
    }, {"mistake": "counts the row lengths on the full matrix of ones before the tril, so every row is divided "
                   "by T instead of t and rows do not sum to 1",
        "where": ["q09", "q10"]}),

    # seen in: public element-wise log helpers and cross-entropy costs that write `A[A == 0] = 1` into their argument
    "q10_zeros_overwritten_in_callers_weights": ({
        ENT: '''def row_entropy_bits(A):
    A[A == 0] = 1          # log2(1) = 0, so blocked entries add nothing
    return -(A * torch.log2(A)).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "writes 1 into the zero entries of the caller's attention matrix in place, so A is changed "
                   "(its masked entries become 1 and its rows no longer sum to 1) after the call",
        "where": ["q10"]}),

    "q12_shape_sides_added_not_multiplied": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    total = 0
    for rows, cols in shapes:
        total += rows + cols
    return total
''',
    }, {"mistake": "adds the two sides of each weight matrix instead of multiplying them, so it counts "
                   "d_model + d_k per matrix rather than d_model * d_k",
        "where": ["q12"]}),

    "q13_class_scales_by_number_of_keys": ({
        CROSS: '''class _CrossHead:
    def __init__(self, W_Q, W_K, W_V):
        self.W_Q, self.W_K, self.W_V = W_Q, W_K, W_V

    def __call__(self, X, Y, M=None):
        Q = X @ self.W_Q
        K = Y @ self.W_K
        V = Y @ self.W_V
        n_keys = K.shape[-2]
        S = Q @ K.transpose(-2, -1) / math.sqrt(n_keys)
        A = attention_weights(S, M)
        return A @ V, A


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    return _CrossHead(W_Q, W_K, W_V)(X, Y, M)
''',
    }, {"mistake": "scales the cross-attention scores by the square root of the number of keys T' instead of "
                   "the key width d_k",
        "where": ["q13"]}),

    "q06_answer_no_gradient_with_reason": ({
        "ans_mask": '''# without the mask the blocked scores stay finite, and the mask is what lets gradients skip them
ans_mask = "d"
''',
    }, {"mistake": "answers that no gradient flows through the blocked entries; the problem is that position t "
                   "reads token t+1, the very token it must predict (c)",
        "where": ["q06"]}),

    "q15_answer_equal_lengths_from_dict": ({
        "ans_cross_causal": '''_fits = {"a": False, "b": False, "c": True, "d": False}   # T = T' makes the score matrix square
ans_cross_causal = next(letter for letter, ok in _fits.items() if ok)
''',
    }, {"mistake": "answers that a causal mask fits cross-attention whenever T = T'; it only makes sense when "
                   "both sequences share one time axis (d)",
        "where": ["q15"]}),
}
