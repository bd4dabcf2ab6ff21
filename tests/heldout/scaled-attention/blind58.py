"""Fifty-eighth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the question texts and
solution cells of `examples/submissions/scaled-attention/full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k, d_v != d_k, "use the
d_k you are given", float32 and float64 kept; q2 within 10% at n_samples = 10000, a Python float drawn from the
generator, reproducible; `softmax_entropy` in nats over the last dim for any `(..., T)`, 0 on a saturated
row; `entropy_table(dims, seed=0)` with the unbiased `torch.std`; q5..q7 one letter as a string; a looping
`multi_head_attention` with `X @ W` projections and head h on columns h*d_k .. (h+1)*d_k - 1),
`tests/heldout/harness.py`, blind57.py in full for the format, and only the variant NAMES of blind.py ..
blind57.py, so that their mistakes are not repeated in the same form. The grader was not run on this set.

Focus of the round: a statement READ DIFFERENTLY, each mistake the consistent result of another convention
or another reading of the text, spread over every auto-graded question (q1 x3, q2 x2, q4 x3, q5 x1, q6 x1,
q7 x1, q8 x3; q3 is a hand-graded markdown answer with no code cell to replace): an ADDITIVE mask (0 =
attend, nn.Transformer's float convention) pushed through the boolean `masked_fill(mask == 0, -1e9)` idiom
(0 = blocked), which blocks every key and gives uniform weights; the softmax's shift invariance read as
"any centring is harmless", applied to the queries (a shift per key, not per row); "T_q and T_k need not be
equal" read as a padded batch, with a padding mask on the keys past the last query (right on square
inputs); the "divide by n - 1" of the unbiased estimator carried over to the scale (sqrt(d_k - 1)); "d_k to
the power 1/2" typed as `d_k ** 1 / 2` (d_k / 2; right only at the display loop's d_k = 4); "sharpness"
computed as the divergence from the uniform row, ln T - H, instead of the entropy; the table's entropies
converted to bits; the dims walked with 1-based positions over a 0-based tuple (first row lost); q5 with
standard deviations added instead of variances ('D'); q6 with "no learned projections" read as "no
weighting" ('D', the plain mean); q7 decided from the collapsed UNSCALED row of the student's own q4 table
('C', argmax); in q8 the up-front query scaling of nn.MultiheadAttention copied with the model width
(d_model ** -0.5 with d_k = 1 passed on), X read as a batch of one-token sequences ((N, E) layout, each
token attends only to itself), and "run attention on each slice" read as slicing the OUTPUT of one
full-width attention.

Public material used (nothing copied verbatim): rasbt/LLMs-from-scratch issue #1061 (an SDPA `attn_mask`
built with the wrong polarity; the maintainer: "it seems opposite of nn.MultiheadAttention"), pytorch/pytorch
pull requests #120668 and #170415 (notes that boolean masks mean "blocked" in nn.Transformer /
nn.MultiheadAttention and "take part" in SDPA, while a float mask is ADDED to the scores: "the
inconsistency leads to silent bugs during migration"), pytorch/pytorch issue #109072 (the documented SDPA
reference fills `-inf` from a boolean mask but adds a float one) and the page sachinkalsi.github.io "Why do
we use negative inf for masking" (`masked_fill(mask == 0, ...)` with a 1 = keep tril mask), for the q1
additive-vs-boolean mask; templeton.host "Sequence masking (causal and padding masks)" (padding masks mark
key positions and are broadcast over all queries) for the q1 padding reading; renenyffenegger.ch
"Machine learning: math" and shusei-e.github.io "Softmax without overflow" (softmax(a + x) = softmax(a): any
constant may be subtracted, stated for one vector) for the q1 centring; standarddeviationcalculator.app
"Why standard deviations do not add" and jrigol.com "Adding variances or standard deviations?" (the common
beginner mistake of adding SDs of independent terms) for q5; kexue-tl.pages.dev "A quick derivation of
entropy-invariant softmax" (attention entropy written as log n minus a sharpness term) and emergentmind.com
"Attention distribution entropy" (log base "commonly e or 2") for the q4 KL and bits readings; the
torch.nn.MultiheadAttention convention of scaling the projected queries once by head_dim ** -0.5 (as in
Dhamu785/Vision-Transformers 01_ViT/MHA.py, `self.scale = self.head_dim ** -0.5`) and ise-uiuc/WhiteFox's
generated attention models that scale by sqrt(num_heads) or by `(num_heads // d) ** -0.25` (scales taken
from the wrong width) for the q8 pre-scaled queries. The other behaviours were reproduced locally with
torch rather than searched.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 mistakes
that change square self-attention list q8 too, while the padding one, inactive when T_q = T_k, lists q1
only; the q4 variants replace the whole q4 cell, which defines both functions, changing only one of them,
and `entropy_table` calls `softmax_entropy`; the q7 cell calls the untouched full-marks `entropy_table`).
None crashes in the notebook's own display cells (the trace, the q2 loop and the q4 table all run).
Correct variants are valid but written differently from full_marks (keys centred over tokens, a shift per
query row that the row softmax ignores, with `torch.matmul` and a multiplied reciprocal scale; `torch.bmm`
row dots scaled by `d_k ** -0.5` with `torch.var(correction=1)` as a float; entropy from `log_softmax` with
`nansum`, a table through `torch.mv` and `torch.std_mean` with `dict(...)` rows; queries pre-scaled by the
head width's `d_k ** -0.5` with `attention(..., 1)`, heads in a list comprehension; answers by `chr`,
`.upper()` and indexing). Every variant was checked with a throwaway script under /tmp/w58-scaled-attention/:
each notebook was built with harness.build_notebook and run top to bottom (all code cells but otter's init
and `grader.check`), then its functions were called again (with the notebook's globals in place) and
compared with plain torch (`torch.softmax`, `F.scaled_dot_product_attention` with `scale=1/sqrt(d_k)`,
`nn.MultiheadAttention` without biases loaded with the same weights, a float64 `log_softmax` entropy, the
lesson's table recomputed) on shapes with T_q < T_k, T_q > T_k, T_q = 1, d_v != d_k, d_k = 13 and a d_k
argument different from the width, entropy inputs of 1 to 4 dims including T = 1 and saturated rows, dims
(8,), (256, 4) and seeds 0, 1, 3, n_heads = 1, 2, 3, 4, 6 and T = 1, in float64 and float32 (half precision
is not used by the questions: full_marks itself asserts there), checking dtypes, shapes, reproducibility
of q2 at d_k = 1, 2, 4, 13, 64, 256 and that inputs are not modified; the correct ones agree everywhere
(float32 errors of the same order as full_marks'), and every wrong one differs only in its `where`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


CORRECT = {
    "attention_keys_centred_over_tokens_matmul_rsqrt_scale": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # subtracting the mean key adds q . mean(k) to every score of a query row: a shift per row,
    # which the row softmax ignores, and the scores stay smaller
    K_c = K - K.mean(dim=0, keepdim=True)
    scores = torch.matmul(Q, K_c.transpose(0, 1)) * (1.0 / math.sqrt(d_k))
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''},
    "variance_bmm_row_dots_multiplied_by_inverse_root": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).reshape(n_samples)   # one q_i . k_i per pair
    if scaled:
        dots = dots * d_k ** -0.5
    return float(torch.var(dots, correction=1))
'''},
    "entropy_log_softmax_nansum_table_mv_std_mean": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    # 0 * log 0 can only be NaN where a log-probability is -inf; nansum drops those terms (they are 0)
    return -(log_p.exp() * log_p).nansum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = torch.mv(k, q[0])                        # the 5 scores q . k_j
        scaled = raw / math.sqrt(d)
        raw_std, _ = torch.std_mean(raw)
        scaled_std, _ = torch.std_mean(scaled)
        rows.append(dict(d=d, raw_std=raw_std.item(), scaled_std=scaled_std.item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''},
    "heads_queries_prescaled_by_head_width_attention_unit_scale": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    # as torch.nn.MultiheadAttention does: scale the queries once by head_dim ** -0.5,
    # then attention must not scale again, so it is given d_k = 1
    Q = (X @ W_Q) * d_k ** -0.5
    K = X @ W_K
    V = X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], 1)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O
'''},
    "answers_by_chr_upper_and_indexing": {
        "q5_answer": '''
q5_answer = chr(ord("A") + 2)
''',
        "q6_answer": '''
q6_answer = "a".upper()
''',
        "q7_answer": '''
q7_answer = "ABCD"[3]
'''},
}


WRONG = {
    "q1_additive_zero_mask_filled_where_equal_zero": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    # additive mask, as nn.Transformer takes it: 0 where a query may attend, -inf where it may not;
    # nothing is blocked here
    mask = torch.zeros(Q.shape[0], K.shape[0], dtype=scores.dtype)
    scores = scores.masked_fill(mask == 0, -1e9)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The mask is built in the additive convention (0 = attend) but applied in the boolean "
                   "0-means-blocked convention of masked_fill(mask == 0, -1e9): every entry of an all-zero "
                   "additive mask is 0, so every score becomes -1e9 and the weights are uniform, 1/T_k in "
                   "every row (rows still sum to 1); the output is the plain mean of the value rows (an "
                   "additive mask is added, scores + mask, or the fill uses a boolean keep mask).",
       "where": ["q1", "q8"]}),

    "q1_queries_centred_over_tokens_for_shift_invariance": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # softmax does not change when a constant is added to its input, so centre the queries
    # first to keep the scores small
    Q_c = Q - Q.mean(dim=0, keepdim=True)
    scores = Q_c @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The shift invariance of the softmax is read as 'any centring is harmless', but removing "
                   "the mean query changes score (i, j) by mean(q) . k_j, which differs from key to key "
                   "within a row: the weights change (with one query they become uniform). Only a "
                   "constant per ROW cancels (centring the keys over tokens would be harmless).",
       "where": ["q1", "q8"]}),

    "q1_keys_beyond_query_length_masked_as_padding": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[0], K.shape[0]
    scores = Q @ K.T / d_k ** 0.5
    if T_k > T_q:
        # the sequences have different lengths: keys past the last query are padding
        scores[:, T_q:] = float("-inf")
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "'T_q and T_k need not be equal' is read as a padded batch, and a padding mask blocks "
                   "every key whose index is past the last query: when T_k > T_q those keys get weight 0 "
                   "and the rest are renormalised, so the weights and output are wrong (right only when "
                   "T_k <= T_q, e.g. on the square trace and in self-attention). Cross-attention has no "
                   "padding here; every key takes part.",
       "where": ["q1"]}),

    "q2_scale_with_bessel_d_k_minus_one": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        # unbiased, as for the std: divide by n - 1
        dots = dots / math.sqrt(d_k - 1)
    return dots.var().item()
'''}, {"mistake": "The 'divide by n - 1' of the unbiased estimator is carried over to the scale: the scaled "
                   "dots are divided by sqrt(d_k - 1) instead of sqrt(d_k), so the scaled variance is "
                   "d_k / (d_k - 1) instead of 1 (1.33 at d_k = 4, 2 at d_k = 2, inf/NaN at d_k = 1); "
                   "the unscaled variance is right.",
       "where": ["q2"]}),

    "q2_scale_parenthesised_d_k_pow_1_over_2": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / (d_k ** 1 / 2)                   # sqrt(d_k) = d_k^(1/2)
    return dots.var().item()
'''}, {"mistake": "d_k ** 1 / 2 is (d_k ** 1) / 2 = d_k / 2, not d_k ** (1 / 2): the scaled dots are "
                   "divided by d_k / 2, so the scaled variance is 4 / d_k instead of 1 (right only at "
                   "d_k = 4, the first row of the display loop; 0.25 at 16, 0.06 at 64).",
       "where": ["q2"]}),

    "q4_entropy_reported_as_kl_from_uniform": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # sharpness of each row: how far it is from the uniform distribution over the T keys
    log_p = F.log_softmax(logits, dim=-1)
    T = logits.shape[-1]
    return (log_p.exp() * log_p).sum(dim=-1) + math.log(T)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The 'sharpness' measure is computed as the divergence from the uniform row, "
                   "KL(p || uniform) = ln T - H(p), instead of the entropy H(p) = -sum p ln p asked for: "
                   "a uniform row gives 0 instead of ln T and a saturated row gives ln T instead of 0 "
                   "(the table's H_raw and H_scaled, through it, are ln 5 - H).",
       "where": ["q4"]}),

    "q4_table_entropies_converted_to_bits": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        # entropies in the table in bits, as information is usually counted
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item() / math.log(2),
                        "H_scaled": softmax_entropy(scaled).item() / math.log(2)})
    return results
'''}, {"mistake": "softmax_entropy is right (nats), but the table converts its entropies to bits (divides "
                   "by ln 2), while the question wants the values of softmax_entropy: every nonzero "
                   "H_raw / H_scaled is 1.44 times too large (1.537 instead of 1.065 at d = 256).",
       "where": ["q4"]}),

    "q4_table_dims_walked_one_based_skips_first": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for i in range(1, len(dims)):                      # the i-th dimension, i = 1, 2, ...
        d = dims[i]
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The dimensions are walked with 1-based positions, range(1, len(dims)), indexing the "
                   "0-based tuple: the first d is skipped, so the table has len(dims) - 1 rows (16, 64, "
                   "256 for the defaults) and is empty for a single d (it needs `for d in dims`).",
       "where": ["q4"]}),

    "q5_answer_standard_deviations_added_not_variances": ({"q5_answer": '''
# each term q_i k_i has standard deviation 1 and there are d_k independent terms, so the
# standard deviation of the sum is d_k and its variance d_k ** 2
q5_answer = "D"
'''}, {"mistake": "The standard deviations of the d_k independent terms are added (sd = d_k) instead of "
                   "their variances (Var = d_k): the answer is d_k^2 ('D') instead of d_k ('C').",
       "where": ["q5"]}),

    "q6_answer_no_learned_projections_read_as_uniform_weights": ({"q6_answer": '''
# with no learned projections nothing learned decides the weights, so every token gets the
# same share and the output is the plain mean of the rows
q6_answer = "D"
'''}, {"mistake": "'No learned projections' is read as 'no weighting': the softmax weights still come "
                   "from the dot products X_i . X_j / sqrt(d_k), so the output is the softmax-weighted "
                   "average ('A'), not the plain mean ('D').",
       "where": ["q6"]}),

    "q7_answer_from_collapsed_unscaled_row_of_the_table": ({"q7_answer": '''
# the q4 table: at d = 256 the unscaled row has entropy 0, a one-hot softmax, so attention
# ends up taking the best-scoring key only
_rows7 = entropy_table()
q7_answer = "C" if _rows7[-1]["H_raw"] < 1e-3 else "D"
'''}, {"mistake": "The collapsed UNSCALED row of the entropy table (d = 256, H = 0) is read as what "
                   "scaled dot-product attention does; the scaled rows keep entropy near ln 5 and "
                   "attention returns a softmax-weighted mix of all values ('D'), not an argmax ('C').",
       "where": ["q7"]}),

    "q8_queries_prescaled_by_model_width_like_mha": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    # nn.MultiheadAttention scales the projected queries once, up front; attention then gets d_k = 1
    Q, K, V = (X @ W_Q) * d_model ** -0.5, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], 1)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The up-front query scaling of nn.MultiheadAttention is copied with the model width: "
                   "the queries are multiplied by d_model ** -0.5 instead of the head width's "
                   "d_k ** -0.5, so each head's scores are divided by sqrt(d_model) instead of sqrt(d_k) "
                   "(too flat; right only for n_heads = 1).",
       "where": ["q8"]}),

    "q8_tokens_read_as_batch_each_attends_only_itself": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    rows = []
    for t in range(X.shape[0]):                        # X as (batch, d_model): one sequence per row
        heads = []
        for h in range(n_heads):
            cols = slice(h * d_k, (h + 1) * d_k)
            out_h, _ = attention(Q[t:t + 1, cols], K[t:t + 1, cols], V[t:t + 1, cols], d_k)
            heads.append(out_h)
        rows.append(torch.cat(heads, dim=1))
    return torch.cat(rows, dim=0) @ W_O
'''}, {"mistake": "X (T, d_model) is read as a batch of T one-token sequences (the (N, E) layout), so "
                   "every token attends only to its own key: each softmax over one key is 1 and the "
                   "result is X @ W_V @ W_O, with no mixing across tokens (right only for T = 1).",
       "where": ["q8"]}),

    "q8_full_width_attention_output_sliced_per_head": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_all, _ = attention(Q, K, V, d_k)           # attention with the slice's scale
        heads.append(out_all[:, cols])                 # head h's columns of the output
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "'Run attention on each slice' is read as slicing the OUTPUT: every head runs one "
                   "attention over the full d_model-wide Q and K (scaled by sqrt of the slice's d_k) and "
                   "keeps its d_k columns of that output, so all heads share one set of weights built "
                   "from every column (right only for n_heads = 1); Q, K and V must be sliced before the "
                   "call.",
       "where": ["q8"]}),
}
