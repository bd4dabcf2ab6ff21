"""Thirty-fourth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `_diagnose.py`, the reference solution, `variants.py`, `measure.py`, the
naming tests, `autograder/grading/` or the other example submissions. What was read: the student-facing
text and solution cells of the master notebook (not its test cells), `full_marks.ipynb`, `harness.py`,
lesson 79's text in /work/shared/lessons/ (its formula, trace, entropy helper and its three quiz slides,
whose own answer key reads "A" for all three questions), the module docstring and first lines of
blind33.py for the format, and only the variant NAMES of blind.py .. blind33.py, so that their mistakes
are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier sets' names count q4 ~120, q1 ~112, q8 ~104, q2 ~80 and q5-q7 20, 16 and 14,
with every wrong letter of q5-q7 already used. So q5-q7 get five variants in forms not used before (a
string method left uncalled, an answer decided by a notebook experiment run with the wrong flag, two
answers decided by toy probes on degenerate inputs, the letter copied from the lesson's own quiz key,
whose options are ordered differently), q1 gets three, q2 two, q4 two, q8 two. (q3 is a hand-graded
markdown answer and has no code cell to replace.) The mix: small slips inside right code (a hand-written
softmax whose denominator is built from the unscaled scores, weights kept in key-major layout and
returned untransposed, `cumsum` typed for `sum`, keys left unprojected in multi-head attention), whole-
approach mistakes (a misremembered "efficient attention" that factorises the softmax into two
softmaxes, the product of sums taken for the sum of products, probabilities left unnormalised in the
entropy, the std of the keys recorded for the std of the scores, heads flattened into one long
sequence) and answers of a student who misread the lesson or the instructions.

Public sources searched (issues corpus, "multi-head attention split heads view transpose wrong order
reshape bug"): reczoo/FuxiCTR#30 and 649453932/Chinese-Text-Classification-Pytorch#53 (heads made by
`view(batch * heads, -1, head_dim)` on a token-major tensor, so that head slices of different tokens are
mixed into one attention), jsbaan/transformer-from-scratch#6 (missing permute before the merge),
MarcoMeter/episodic-transformer-memory-ppo#22 (input split before projecting). The view/permute forms are
already in earlier sets; the q8 variant `q8_heads_flattened_into_one_long_sequence` is the related 2-D
slip of folding the head axis into the sequence axis. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so a q1 slip that
changes its output costs q8 too; one that only changes the returned weights does not). Correct variants
are valid but written differently from full_marks (tensordot scores with a max-shifted softmax and
`torch.mm`, a single stacked draw with only q scaled and a hand-computed unbiased variance, entropy by the
logsumexp identity with broadcast scores in the table, q7 picked by `max` over a dict of reasons, heads
cut from `Q.T` by a reshape and merged by a transpose). Every variant was run against plain torch
(`F.scaled_dot_product_attention`, `torch.softmax`, `torch.nn.MultiheadAttention`) on several shapes and
both float dtypes before it was written down here (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_TABLE = '''

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
'''

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''

CORRECT = {
    "attention_tensordot_max_shift_mm": {"attention": '''def attention(Q, K, V, d_k):
    """Scores by tensordot over the feature axis, a max-shifted softmax by hand, the mix by torch.mm."""
    s = torch.tensordot(Q, K, dims=([1], [1])) / math.sqrt(d_k)
    e = torch.exp(s - s.max(dim=1, keepdim=True).values)
    weights = e / e.sum(dim=1, keepdim=True)
    return torch.mm(weights, V), weights
'''},
    "variance_stacked_draw_query_scaled_by_hand": {"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """One stacked draw holds both q and k; only q is scaled (same as scaling the dot product)."""
    pairs = torch.randn(2, n_samples, d_k, generator=generator)
    q, k = pairs[0], pairs[1]
    if scaled:
        q = q / d_k ** 0.5
    dots = (q * k).sum(dim=-1)
    centred = dots - dots.mean()
    return float((centred ** 2).sum() / (n_samples - 1))
'''},
    "entropy_logsumexp_identity_broadcast_table": {"softmax_entropy": '''def softmax_entropy(logits):
    """H = logsumexp(s) - sum_j p_j s_j, which never takes log of a zero probability."""
    p = torch.softmax(logits, dim=-1)
    return torch.logsumexp(logits, dim=-1) - (p * logits).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q * k).sum(dim=-1)          # (1, d) * (5, d) -> (5, d) -> 5 scores
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=torch.std(raw, correction=1).item(),
                         scaled_std=torch.std(scaled, correction=1).item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''},
    "answers_q7_max_over_reasons": {"q7_answer": '''_why = {"A": "exact match only, like a dict",
        "B": "needs sorted keys",
        "C": "argmax of the scores, no useful gradient",
        "D": "softmax-weighted mix of all the values (soft lookup)"}
q7_answer = max(_why, key=lambda letter: "mix" in _why[letter])
'''},
    "heads_cut_from_transposed_projection_reshape": {"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """Rows of Q.T are columns of Q, so Q.T.reshape(n_heads, d_k, T) holds one head per block."""
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split(M):
        return M.T.reshape(n_heads, d_k, T).mT          # (n_heads, T, d_k)

    Qh, Kh, Vh = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    w = torch.softmax(Qh @ Kh.mT / math.sqrt(d_k), dim=-1)
    heads = w @ Vh                                      # (n_heads, T, d_k)
    return heads.transpose(0, 1).reshape(T, d_model) @ W_O
'''},
}

WRONG = {
    "q1_denominator_from_unscaled_scores": ({"attention": '''def attention(Q, K, V, d_k):
    raw = Q @ K.T
    scaled = raw / math.sqrt(d_k)
    numerator = torch.exp(scaled)
    denominator = torch.exp(raw).sum(dim=-1, keepdim=True)
    weights = numerator / denominator
    return weights @ V, weights
'''}, {"mistake": "hand-written softmax: the numerator uses the scaled scores but the denominator sums "
                   "exp of the raw, unscaled scores, so the rows of the weights do not sum to 1",
       "where": ["q1", "q8"]}),

    "q1_key_major_weights_returned_untransposed": ({"attention": '''def attention(Q, K, V, d_k):
    # one column per query: scores_kq[j, i] = k_j . q_i
    scores_kq = K @ Q.T / d_k ** 0.5
    weights_kq = torch.softmax(scores_kq, dim=0)      # normalise over the keys (rows here)
    out = weights_kq.T @ V
    return out, weights_kq
'''}, {"mistake": "works in key-major layout (keys x queries) and returns those weights without "
                   "transposing them back: the weights come out (T_k, T_q), not (T_q, T_k); the output is right",
       "where": ["q1"]}),

    "q1_efficient_attention_factorised_softmaxes": ({"attention": '''def attention(Q, K, V, d_k):
    # "efficient attention": normalise the queries over features and the keys over positions,
    # so each row of the weights still sums to 1
    s = d_k ** 0.25
    q_soft = torch.softmax(Q / s, dim=-1)
    k_soft = torch.softmax(K / s, dim=0)
    weights = q_soft @ k_soft.T
    return weights @ V, weights
'''}, {"mistake": "misremembered definition: replaces softmax(QK^T/sqrt(d_k)) by the product of two "
                   "separate softmaxes (queries over features, keys over positions), a linear-attention "
                   "approximation that is not scaled dot-product attention",
       "where": ["q1", "q8"]}),

    "q2_product_of_sums_not_sum_of_products": ({"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = q.sum(dim=1) * k.sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the dot product is computed as (sum of q) times (sum of k) instead of the sum of "
                   "q_i * k_i, so the variance is about d_k^2 (d_k when scaled) instead of d_k (1)",
       "where": ["q2"]}),

    "q2_cumsum_for_sum": ({"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.cumsum(q * k, dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "uses torch.cumsum where torch.sum was meant: the variance is taken over all the partial "
                   "sums, about (d_k + 1) / 2 instead of d_k (and not 1 when scaled)",
       "where": ["q2"]}),

    "q4_probabilities_left_unnormalised": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    p = torch.exp(logits)
    log_p = F.log_softmax(logits, dim=-1)
    return -(p * log_p).sum(dim=-1)
''' + _TABLE}, {"mistake": "the probabilities are exp(logits) without dividing by their sum (only the log "
                            "is taken from log_softmax), so the entropy is wrong and blows up for large logits",
                "where": ["q4"]}),

    "q4_table_std_of_keys_not_scores": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": k.std().item(), "scaled_std": (k / d ** 0.5).std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "records the std of the key entries (about 1, and 1/sqrt(d) scaled) instead of the std "
                   "of the 5 raw and scaled scores",
       "where": ["q4"]}),

    "q5_answer_upper_not_called": ({"q5_answer": '''q5_answer = "c".upper
'''}, {"mistake": "the method upper is not called (no parentheses), so q5_answer is a bound method, not "
                   'the letter "C"',
       "where": ["q5"]}),

    "q5_answer_decided_from_scaled_run": ({"q5_answer": '''# decide with the Part 2 experiment: is Var(q.k) about d_k = 16?
_v = dot_product_variance(16, 10000, torch.Generator().manual_seed(1), scaled=True)
q5_answer = "C" if abs(_v - 16) < 2 else "A"
'''}, {"mistake": "answers by experiment but runs it with scaled=True, measures the variance of "
                   "q.k/sqrt(d_k) (about 1) and so answers A instead of C",
       "where": ["q5"]}),

    "q6_answer_from_saturated_toy_check": ({"q6_answer": '''# try it: self-attention on a toy X
_X = 10 * torch.eye(3)
_out, _ = attention(_X, _X, _X, 3)
q6_answer = "B" if torch.allclose(_out, _X, atol=1e-3) else "A"
'''}, {"mistake": "concludes from one saturated toy input (orthogonal rows of norm 10, one-hot weights) "
                   "that each token returns itself, answering B; in general the output is the "
                   "softmax-weighted average of all rows (A)",
       "where": ["q6"]}),

    "q6_answer_from_equal_rows_toy_check": ({"q6_answer": '''_X = torch.ones(4, 3)
_out, _ = attention(_X, _X, _X, 3)
# every output row equals the plain mean of the rows of X
q6_answer = "D" if torch.allclose(_out, _X.mean(dim=0).expand_as(_X)) else "A"
'''}, {"mistake": "concludes from a degenerate toy input with all rows equal (uniform weights) that the "
                   "output is the plain mean of the rows, answering D instead of A",
       "where": ["q6"]}),

    "q7_answer_copied_from_lesson_quiz_key": ({"q7_answer": '''q7_answer = "A"  # lesson 79: "Survives elimination: A"
'''}, {"mistake": "copies the letter from the lesson's own quiz, whose options are ordered differently; "
                   "in this notebook A is the exact-match hash lookup and the answer is D",
       "where": ["q7"]}),

    "q8_keys_left_unprojected": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q = X @ W_Q
    K = X
    V = X @ W_V
    outs = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                      V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return torch.cat(outs, dim=1) @ W_O
'''}, {"mistake": "the keys are the raw input X: W_K is never applied",
       "where": ["q8"]}),

    # related to the head folding in 649453932/Chinese-Text-Classification-Pytorch#53 and
    # reczoo/FuxiCTR#30 (view(batch * heads, -1, head_dim)): here the head axis is folded into the tokens
    "q8_heads_flattened_into_one_long_sequence": ({"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    # (T, d_model) -> (T * n_heads, d_k): one row per (token, head)
    Q = (X @ W_Q).reshape(-1, d_k)
    K = (X @ W_K).reshape(-1, d_k)
    V = (X @ W_V).reshape(-1, d_k)
    out, _ = attention(Q, K, V, d_k)
    return out.reshape(T, d_model) @ W_O
'''}, {"mistake": "folds the heads into the sequence axis and runs one attention over T * n_heads rows, "
                   "so every head slice attends to the slices of all the other heads too, instead of "
                   "n_heads separate attentions",
       "where": ["q8"]}),
}
