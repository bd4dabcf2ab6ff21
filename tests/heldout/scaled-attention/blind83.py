"""Eighty-third blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention(Q, K, V, d_k)` returning
`(output, weights)`; q2 `dot_product_variance`; q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one
letter each; q8 a loop over heads calling the 2-D `attention`; the lesson-trace cell defines the globals
`d_k = 4`, `Q`, `K`, `V`, `out`, `W`; the notebook has no masks and no batch axis), the student-facing question
text, `tests/heldout/harness.py`, blind81.py for the format, and only the variant NAMES of the earlier blind*.py
sets. The grader was not run on this set.

Focus of the round: FOLLOWING A TEXTBOOK, A VIDEO OR A COURSE'S OWN CONVENTIONS. Each wrong variant is careful
code with one convention carried over from the source the student learnt attention from, right there and wrong
here. q1: the decoder `tril` mask of Karpathy's "Let's build GPT" head kept in the general function (future keys
get weight 0); the Illustrated Transformer's "divide by 8" (sqrt of its d_k = 64) hard-coded; the softmax over
dim 0 of a Luong/Bahdanau seq2seq tutorial whose encoder outputs are laid out (src_len, ...), so the weights are
normalised over the queries. q2: draws with `torch.rand` as in d2l's masked_softmax examples (uniform [0, 1),
not standard normal); the video's `* head_size**-0.5` copied without the minus (multiplied by sqrt(d_k)).
q4: entropy in bits (log2) as in an information-theory textbook; makemore's `counts = logits.exp(); probs =
counts / counts.sum(...)` softmax without a max shift (inf/inf = NaN on saturated rows); the table draws the
keys before the query, in the video's `k = ...; q = ...` order. q5: "B" from the Illustrated Transformer's
"divide by 8 = sqrt(64)" read as the variance; q6: "D" from the video's bag-of-words `xbow` averaging; q7: "A"
from d2l's database-lookup introduction of queries, keys and values. q8: Karpathy's `wei = q @ k.transpose(-2,
-1) * C**-0.5` with C the embedding width from `B, T, C = x.shape`, not the head size; the Annotated
Transformer's `p_attn = dropout(p_attn)` with an `nn.Dropout(0.1)` module left in training mode; per-head
weights taken as the Illustrated Transformer's "stack of h matrices" by reshaping W to (h, d_model, d_k), which
takes row blocks, not the head's columns. Spread: q1 x3, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a
hand-graded markdown answer). The correct variants read like the sources too: an Annotated-Transformer
`attention` with `transpose(-2, -1)` and `p_attn` (no dropout) plus its view/transpose head split, a d2l
`masked_softmax` adapted to an optional boolean keep-mask (-inf, not -1e6) and unused without a mask, nanoGPT's
`k.size(-1)` head size for the scale with per-head column projections, the video's (B, T, C) draws with B = 1 in
the table (same random numbers), and answers that cite the paper's footnote and d2l's kernel regression.

Public material used (nothing copied verbatim): d2l.ai "Attention Scoring Functions" `masked_softmax(X,
valid_lens)` with `d2l.sequence_mask(..., value=-1e6)` and `torch.rand(2, 2, 4)` examples (as reproduced in
github.com/MurmanskY/d2l_codes and blog.csdn.net/weixin_45023325/article/details/139125122); d2l's "Queries,
Keys, and Values" database analogy; karpathy/ng-video-lecture issue #55 (the Head's `wei = q @ k.transpose(-2,
-1) * C**-0.5` with C the embedding width instead of head_size, and `masked_fill(self.tril[:T, :T] == 0,
float('-inf'))`) and issue #46 (the `**-0.5` read as a multiplication by the root); aladdinpersson/
Machine-Learning-Collection PR #159 (scale by embed_size instead of head_dim); Jay Alammar's "The Illustrated
Transformer" (d_k = 64, "divide the scores by 8", eight W^Q_i matrices, concat times W^O); "The Annotated
Transformer" (`scores.masked_fill(mask == 0, -1e9)`, `p_attn = scores.softmax(dim=-1)`, `if dropout is not None:
p_attn = dropout(p_attn)`, `view(nbatches, -1, h, d_k).transpose(1, 2)`); the PyTorch seq2seq translation
tutorial's attention decoder (Luong/Bahdanau) for the source-major layout.

How the variants were checked: /tmp/w83-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared: `attention` with a softmax reference and F.scaled_dot_product_attention (float64,
float32, float16, T_q != T_k, d_v != d_k, d_k 64 and not, several calls); `dot_product_variance` against d_k
and 1 (scaled) and for reproducibility; `softmax_entropy` against a log_softmax entropy on 1-D, 2-D and 3-D
inputs and saturated rows (float32 and float64); `entropy_table` against the full_marks cell (default and
other dims and seeds); the letters against C / A / D; `multi_head_attention` against a reference loop and
torch.nn.MultiheadAttention (several head counts, one head included, repeated calls). The correct variants
agree everywhere; each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    'q1_annotated_transformer_attention_p_attn_q8_view_transpose_heads': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # as in The Annotated Transformer, minus the mask and the dropout (this notebook has neither)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    p_attn = scores.softmax(dim=-1)
    return torch.matmul(p_attn, V), p_attn
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    assert d_model % n_heads == 0
    d_k = d_model // n_heads
    # the book: query.view(nbatches, -1, h, d_k).transpose(1, 2); here there is no batch axis
    query, key, value = [(X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V)]
    x = torch.stack([attention(query[i], key[i], value[i], d_k)[0] for i in range(n_heads)])   # (h, T, d_k)
    x = x.transpose(0, 1).contiguous().view(T, n_heads * d_k)
    return x @ W_O
''',
    },

    'q1_d2l_masked_softmax_adapted_to_boolean_keep_mask': {
        'attention': '''
def masked_softmax(X, mask=None):
    """d2l's masked_softmax, but with a boolean keep-mask (True = may attend) instead of valid_lens,
    and -inf instead of -1e6 so masked keys get exactly 0 in every dtype."""
    if mask is None:
        return F.softmax(X, dim=-1)
    return F.softmax(X.masked_fill(~mask, float("-inf")), dim=-1)


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # queries (no. of queries, d), keys (no. of key-value pairs, d): no batch axis here, so no bmm
    scores = Q @ K.transpose(0, 1) / math.sqrt(d_k)
    attention_weights = masked_softmax(scores)
    return attention_weights @ V, attention_weights
''',
    },

    'q8_nanogpt_head_size_from_k_size_per_head_column_projections': {
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, C = X.shape
    head_size = C // n_heads
    outs = []
    for h in range(n_heads):
        cols = slice(h * head_size, (h + 1) * head_size)
        # like the video's Head: its own key/query/value projection of the full x, to head_size columns
        k = X @ W_K[:, cols]
        q = X @ W_Q[:, cols]
        v = X @ W_V[:, cols]
        out_h, _ = attention(q, k, v, k.size(-1))     # scale by the HEAD size (nanoGPT: math.sqrt(k.size(-1)))
        outs.append(out_h)
    out = torch.cat(outs, dim=-1)                     # (T, n_heads * head_size) = (T, C)
    return out @ W_O
''',
    },

    'q4_video_batch_time_channel_draws_log_softmax_entropy': {
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)     # numerically stable, no 0 * log 0
    return -(logp.exp() * logp).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        B = 1
        q = torch.randn(B, 1, d)              # (B, T, head_size) as in the video, one query...
        k = torch.randn(B, 5, d)              # ...then five keys: same numbers as randn(1, d), randn(5, d)
        raw = (q @ k.transpose(-2, -1))[0, 0]
        scaled = raw * d ** -0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    },

    'answers_from_paper_footnote_and_d2l_kernel_regression_q2_power_minus_half': {
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # the paper's footnote 4: components independent, mean 0, variance 1
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    wei = (q * k).sum(-1)
    if scaled:
        wei = wei * d_k ** -0.5          # the video's head_size**-0.5: times ONE OVER the root
    return wei.var().item()
''',
        'q5_answer': '''
q5_answer = "C"   # Vaswani et al., footnote 4: q.k has mean 0 and variance d_k
''',
        'q6_answer': '''
q6_answer = "A"   # the video's xbow is the plain mean; attention replaces it by data-dependent softmax weights
''',
        'q7_answer': '''
q7_answer = "D"   # d2l: attention pooling = Nadaraya-Watson kernel regression, a soft version of the lookup
''',
    },
}

WRONG = {
    'q1_video_decoder_tril_mask_kept_in_general_attention': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[0], K.shape[0]
    tril = torch.tril(torch.ones(T_q, T_k, device=Q.device))   # the video's tril buffer
    wei = Q @ K.transpose(-2, -1) * d_k ** -0.5
    wei = wei.masked_fill(tril == 0, float("-inf"))             # tokens from the future cannot talk
    wei = F.softmax(wei, dim=-1)
    out = wei @ V
    return out, wei
''',
    }, {
        "mistake": "The decoder mask of the video's Head (`masked_fill(tril == 0, float('-inf'))`) is kept in a "
                   "general attention with no mask: query i only sees keys 0..i, so every row but the last gets "
                   "wrong weights (the first row is one-hot on key 0) and a wrong output (also in every q8 head).",
        "where": ['q1', 'q8']}),

    'q1_illustrated_transformer_divides_by_eight': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T
    scores = scores / 8      # divide by the square root of the key dimension (sqrt(64) = 8)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
''',
    }, {
        "mistake": "The Illustrated Transformer's constant 8 (sqrt of its d_k = 64) is hard-coded instead of "
                   "sqrt(d_k): the scores are scaled by 1/8 whatever d_k is (1/8 instead of 1/2 for the trace's "
                   "d_k = 4), so the weights are too flat for d_k < 64 and too sharp for d_k > 64; wrong weights "
                   "and output, also in every q8 head.",
        "where": ['q1', 'q8']}),

    'q1_luong_tutorial_softmax_over_dim0_encoder_steps': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.t()) / math.sqrt(d_k)
    # normalise over the source positions, dim 0 as in the seq2seq tutorial (encoder outputs come first)
    attn_weights = F.softmax(scores, dim=0)
    context = torch.matmul(attn_weights, V)
    return context, attn_weights
''',
    }, {
        "mistake": "The softmax is taken over dim 0, the source-position axis of a seq2seq tutorial's "
                   "(src_len, ...) layout, which here is the queries axis: each column sums to 1 instead of each "
                   "row, so the weights and the output are wrong (also in every q8 head).",
        "where": ['q1', 'q8']}),

    'q2_uniform_torch_rand_draws_like_d2l_examples': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    queries = torch.rand(n_samples, d_k, generator=generator)   # random queries and keys, as in the book
    keys = torch.rand(n_samples, d_k, generator=generator)
    dots = (queries * keys).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The vectors are drawn with `torch.rand` (uniform on [0, 1), as in the book's masked_softmax "
                   "examples) instead of standard normals: Var(q_i k_i) = 1/9 - 1/16 = 7/144, so the variance is "
                   "about 0.049 d_k unscaled and 0.049 scaled instead of d_k and 1.",
        "where": ['q2']}),

    'q2_video_scale_power_copied_without_minus': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    wei = (q * k).sum(dim=1)
    if scaled:
        wei = wei * d_k ** 0.5      # the video: wei = q @ k.T * head_size**0.5
    return wei.var().item()
''',
    }, {
        "mistake": "The video's `* head_size**-0.5` is copied without the minus sign, so the scaled dot products "
                   "are multiplied by sqrt(d_k) instead of divided: the scaled variance is about d_k^2 instead of "
                   "1 (the unscaled one is right).",
        "where": ['q2']}),

    'q4_entropy_in_bits_like_information_theory_textbook': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log2(p + 1e-9)).sum(dim=-1)     # H(p) = -sum p log p (Shannon, log base 2)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The entropy uses log base 2, the information-theory textbook's bits, instead of the natural "
                   "log the question asks for: every entropy is 1/ln 2 = 1.4427 times too large (a uniform row "
                   "over 5 keys gives 2.32 instead of 1.609), in softmax_entropy and the table's H columns.",
        "where": ['q4']}),

    'q4_makemore_counts_softmax_without_max_shift': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    counts = logits.exp()                                  # as in makemore: logits -> counts -> probs
    probs = counts / counts.sum(-1, keepdim=True)
    return -(probs * torch.log(probs + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The softmax is written as makemore's `counts = logits.exp(); probs = counts / counts.sum()` "
                   "with no max shift: a large logit overflows exp to inf and inf/inf gives NaN, so saturated "
                   "rows (large logits, the case the question singles out) give NaN instead of 0; the default "
                   "table is unaffected.",
        "where": ['q4']}),

    'q4_entropy_table_keys_drawn_before_query_video_order': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        k = torch.randn(5, d)      # k = torch.randn(B, T, head_size)
        q = torch.randn(1, d)      # q = torch.randn(B, T, head_size)
        raw = (q @ k.transpose(-2, -1))[0]
        scaled = raw * d ** -0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The table draws the keys before the query, in the video's `k = ...; q = ...` order, not "
                   "`q` then `k` as the question fixes: after the seed the numbers land in different tensors, so "
                   "every std and entropy in the table differs from the lesson's (softmax_entropy is right).",
        "where": ['q4']}),

    'q5_answer_b_typical_size_from_divide_by_eight': ({
        'q5_answer': '''
# The Illustrated Transformer divides by 8 = sqrt(64) "to have more stable gradients", so the dot product's
# spread must be sqrt(d_k)
q5_answer = "B"
''',
    }, {
        "mistake": "The divide-by-sqrt(d_k) of the Illustrated Transformer is read as the variance being "
                   "sqrt(d_k): \"B\" instead of \"C\" (sqrt(d_k) is the standard deviation; the variance is d_k).",
        "where": ['q5']}),

    'q6_answer_d_from_video_xbow_bag_of_words_average': ({
        'q6_answer': '''
# In the video, self-attention starts as xbow: each token takes the average of the tokens (wei = ones / T,
# then wei @ x). With no learned projections nothing makes the weights differ, so the plain mean.
q6_answer = "D"
''',
    }, {
        "mistake": "The video's first version of self-attention (the uniform `xbow` average) is taken for the "
                   "no-projection case: \"D\" (plain mean of the rows) instead of \"A\" (softmax weights from "
                   "X_i . X_j / sqrt(d_k), which differ from row to row even without projections).",
        "where": ['q6']}),

    'q7_answer_a_from_d2l_database_lookup_analogy': ({
        'q7_answer': '''
# d2l introduces attention with a database of (key, value) pairs: the query is looked up among the keys and
# the matching value comes back, like a dict
q7_answer = "A"
''',
    }, {
        "mistake": "The book's database analogy is taken literally: \"A\" (returns the value of the exactly "
                   "matching key) instead of \"D\" (a softmax-weighted mix of all values, a soft, differentiable "
                   "lookup).",
        "where": ['q7']}),

    'q8_nanogpt_head_scale_c_from_x_shape_embedding_width': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, C = X.shape
    head_size = C // n_heads
    outs = []
    for h in range(n_heads):
        cols = slice(h * head_size, (h + 1) * head_size)
        k = X @ W_K[:, cols]
        q = X @ W_Q[:, cols]
        v = X @ W_V[:, cols]
        wei = q @ k.transpose(-2, -1) * C ** -0.5          # (T, hs) @ (hs, T) -> (T, T)
        wei = F.softmax(wei, dim=-1)
        outs.append(wei @ v)
    return torch.cat(outs, dim=-1) @ W_O
''',
    }, {
        "mistake": "Each head is written as the video's Head with `wei = q @ k.transpose(-2, -1) * C**-0.5`, C "
                   "being the embedding width from `T, C = X.shape`, not the head size: every head's scores "
                   "are divided by sqrt(d_model) instead of sqrt(d_model / n_heads), too flat weights and a wrong "
                   "output whenever n_heads > 1.",
        "where": ['q8']}),

    'q8_annotated_p_attn_dropout_module_left_in_train_mode': ({
        'multi_head_attention': '''
dropout = torch.nn.Dropout(p=0.1)     # the Annotated Transformer's default


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        _, p_attn = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        if dropout is not None:
            p_attn = dropout(p_attn)
        heads.append(torch.matmul(p_attn, V[:, cols]))
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "The Annotated Transformer's `p_attn = dropout(p_attn)` is kept with an `nn.Dropout(0.1)` "
                   "module that is in training mode: about 10% of the attention weights are zeroed and the rest "
                   "scaled by 1/0.9 at random, so the output is wrong and differs from call to call.",
        "where": ['q8']}),

    'q8_illustrated_per_head_weights_reshaped_as_stack_of_h_matrices': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    # the Illustrated Transformer: each head has its own W^Q_i, W^K_i, W^V_i of shape (d_model, d_k)
    WQ_i = W_Q.reshape(n_heads, d_model, d_k)
    WK_i = W_K.reshape(n_heads, d_model, d_k)
    WV_i = W_V.reshape(n_heads, d_model, d_k)
    Z = []
    for i in range(n_heads):
        z_i, _ = attention(X @ WQ_i[i], X @ WK_i[i], X @ WV_i[i], d_k)
        Z.append(z_i)
    return torch.cat(Z, dim=1) @ W_O      # concat the Z_i, multiply by W^O
''',
    }, {
        "mistake": "The per-head weight matrices of the Illustrated Transformer's figure are made by reshaping "
                   "each (d_model, d_model) W to (n_heads, d_model, d_k): in row-major order that cuts blocks of "
                   "rows re-folded into d_k columns, not the head's columns h*d_k..(h+1)*d_k-1, so every head "
                   "projects with the wrong weights and the output is wrong whenever n_heads > 1.",
        "where": ['q8']}),
}
