"""Thirty-fifth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `_diagnose.py`, the reference solution, `variants.py`, `measure.py`, the
naming tests, `autograder/grading/` or the other example submissions. What was read: the student-facing
text and solution cells of the master notebook (not its test cells), `full_marks.ipynb`, `harness.py`,
lesson 79's text in /work/shared/lessons/ (its formula, trace, entropy experiment and quiz slides), the
module docstring and first lines of blind34.py for the format, and only the variant NAMES of blind.py ..
blind34.py, so that their mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier sets' names count q4 ~122, q1 ~115, q8 ~106, q2 ~82 and q5-q7 22, 18 and 15,
with every wrong letter of q5-q7 already used. So every question with a code cell gets two wrong variants
(q3 is a hand-graded markdown answer with no code cell to replace), the multiple-choice ones in forms not
used before: an experiment run at d_k = 1 where all four options tie, a hedge written with `and`, a helper
function assigned uncalled, a toy probe whose loose tolerance also admits the plain mean, a gradient probe
on scores saturated in float32, and an answer "assigned" from `print`. The mix: small slips inside right
code (a value loop bounded by the query count, `append` dedented out of the loop, the `scaled` flag name
reused for the scaled tensor, dims popped from the end, keys left unsliced per head, W_O's rows viewed
head-minor in an einsum merge), whole-approach mistakes (the scale subtracted instead of divided, log-
sigmoid taken for log-softmax) and answers of a student who read an experiment or the lesson wrongly.

Public sources searched (issues corpus): "multi head attention keys not split per head shape mismatch
matmul" (MarcoMeter/episodic-transformer-memory-ppo#22, d2l-ai/d2l-en#2056,
wouterkool/attention-learn-to-route#23: W_out viewed in the wrong block layout before the merge matmul),
"entropy of softmax logsigmoid instead of log_softmax" (nfmcclure/tensorflow_cookbook#109: a sigmoid
cross-entropy and a softmax cross-entropy swapped for each other). The variants carrying those slips name
the source in a comment. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so a q1 slip that
changes its output on square inputs costs q8 too). Correct variants are valid but written differently from
full_marks (key-major scores with a softmax over dim -2 transposed back, one stacked draw reduced by
`statistics.variance`, entropy from a logsumexp-shifted log-probability with the table built by a
comprehension over a row helper, q6 picked from a dict of option texts, heads taken by `unbind` of a view
with W_O applied blockwise and summed). Every variant was run against plain torch
(`F.scaled_dot_product_attention`, `torch.softmax`, `torch.nn.MultiheadAttention`) on several shapes and
both float dtypes (a throwaway script in /tmp, not in the repository).

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
    "attention_key_major_softmax_over_keys_axis": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # build the scores key-major: entry [j, i] is key j against query i
    by_key = (K @ Q.transpose(-2, -1)) * (1.0 / math.sqrt(d_k))   # (T_k, T_q)
    by_key = torch.softmax(by_key, dim=-2)                          # normalise over the keys
    weights = by_key.transpose(-2, -1)                              # (T_q, T_k)
    return torch.einsum("qk,kv->qv", weights, V), weights
'''},
    "variance_stacked_draw_statistics_module": {"dot_product_variance": '''
import statistics


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pair = torch.randn(2, n_samples, d_k, generator=generator)
    q, k = pair[0], pair[1]
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots *= d_k ** -0.5
    return statistics.variance(dots.tolist())
'''},
    "entropy_lse_shift_table_comprehension": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    return -(torch.exp(log_p) * log_p).sum(dim=-1)


def _entropy_row(d, seed):
    torch.manual_seed(seed)
    query = torch.randn(1, d)
    keys = torch.randn(5, d)
    raw = (query @ keys.T)[0]
    scaled = raw / d ** 0.5
    return {"d": d, "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_entropy_row(d, seed) for d in dims]
'''},
    "q6_answer_picked_from_option_texts": {"q6_answer": '''
_q6_options = {
    "A": "weighted average of all rows, softmax weights",
    "B": "the row itself",
    "C": "the single best-matching row",
    "D": "the unweighted mean of the rows",
}
q6_answer = next(letter for letter, text in _q6_options.items() if "weighted average" in text)
'''},
    "mha_unbind_view_blockwise_output_projection": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    q_heads = (X @ W_Q).view(T, n_heads, d_k).unbind(dim=1)
    k_heads = (X @ W_K).view(T, n_heads, d_k).unbind(dim=1)
    v_heads = (X @ W_V).view(T, n_heads, d_k).unbind(dim=1)
    result = torch.zeros_like(X)
    for h, (qh, kh, vh) in enumerate(zip(q_heads, k_heads, v_heads)):
        out_h, _ = attention(qh, kh, vh, d_k)
        result = result + out_h @ W_O[h * d_k:(h + 1) * d_k, :]   # head h meets rows h*d_k.. of W_O
    return result
'''},
}


WRONG = {
    "q1_scale_subtracted_not_divided": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T
    scores = scores - math.sqrt(d_k)      # "scale" the scores by sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "subtracts sqrt(d_k) from the scores instead of dividing by it; a softmax ignores a constant "
                  "shift, so the weights are those of unscaled attention", "where": ["q1", "q8"]}),

    "q1_value_loop_bounded_by_query_count": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[0], K.shape[0]
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = torch.zeros(T_q, V.shape[1], dtype=V.dtype)
    for i in range(T_q):
        for j in range(T_q):              # mix over the keys
            out[i] += weights[i, j] * V[j]
    return out, weights
'''}, {"mistake": "the inner loop that mixes the value rows runs over range(T_q) instead of range(T_k): with "
                  "fewer queries than keys some values are left out, with more it indexes past the last key",
       "where": ["q1"]}),

    "q2_flag_name_reused_for_scaled_dots": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    scaled = dots / math.sqrt(d_k)
    result = scaled if scaled else dots
    return result.var().item()
'''}, {"mistake": "the scaled dot products are stored in a variable named `scaled`, which overwrites the "
                  "boolean argument; `if scaled` then asks for the truth value of a 10000-element tensor and "
                  "raises a RuntimeError on every call", "where": ["q2"]}),

    "q2_append_outside_the_loop": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    dots = []
    for _ in range(n_samples):
        q = torch.randn(d_k, generator=generator)
        k = torch.randn(d_k, generator=generator)
        dot = torch.dot(q, k)
        if scaled:
            dot = dot / math.sqrt(d_k)
    dots.append(dot)
    return torch.stack(dots).var().item()
'''}, {"mistake": "`dots.append(dot)` is dedented out of the sampling loop, so only the last dot product is "
                  "kept and the variance of a single number is NaN", "where": ["q2"]}),

    # sigmoid and softmax versions of a log-probability confused, as in nfmcclure/tensorflow_cookbook#109
    "q4_entropy_logsigmoid_for_log_probs": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    log_p = F.logsigmoid(logits)          # stable log of the probabilities
    return -(p * log_p).sum(dim=-1)
''' + _TABLE}, {"mistake": "takes ln p from F.logsigmoid(logits), the log of an independent sigmoid per entry, "
                           "instead of F.log_softmax; a uniform row over 5 keys gives ln 2 instead of ln 5",
                "where": ["q4"]}),

    "q4_table_dims_popped_from_the_end": ({"softmax_entropy": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    todo = list(dims)
    results = []
    while todo:
        d = todo.pop()
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "works through the dims with list.pop(), which takes them from the end, so the rows come "
                  "back in reverse order (256 first) instead of the order of `dims`", "where": ["q4"]}),

    "q5_answer_probe_run_at_d_k_one": ({"q5_answer": '''
# check it numerically and take the option closest to what we measure
_g = torch.Generator().manual_seed(0)
_d = 1
_dots = (torch.randn(20000, _d, generator=_g) * torch.randn(20000, _d, generator=_g)).sum(-1)
_measured = _dots.var().item()
_options = {"A": 1.0, "B": _d ** 0.5, "C": float(_d), "D": float(_d) ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "decides the letter from an experiment run with d_k = 1, where 1, sqrt(d_k), d_k and d_k^2 "
                  "are all equal; the tie goes to the first option, A, instead of C (d_k)", "where": ["q5"]}),

    "q5_answer_hedged_with_and_operator": ({"q5_answer": '''
q5_answer = "C" and "D"   # it is d_k, or maybe d_k^2 -- either should be fine
'''}, {"mistake": "hedges between two letters with `and`, which evaluates to the last operand, so the answer "
                  "recorded is D (d_k^2) instead of C", "where": ["q5"]}),

    "q6_answer_helper_function_not_called": ({"q6_answer": '''
def _q6():
    # output row i = sum_j softmax_j(X_i . X_j / sqrt(d_k)) X_j
    return "A"


q6_answer = _q6
'''}, {"mistake": "assigns the helper function itself instead of calling it, so q6_answer is a function and "
                  "not the letter 'A'", "where": ["q6"]}),

    "q6_answer_probe_tolerance_admits_plain_mean": ({"q6_answer": '''
# try each option on a small example and keep the one that matches the output
torch.manual_seed(0)
_X = 0.01 * torch.randn(4, 8)
_out, _W = attention(_X, _X, _X, 8)
_candidates = {
    "A": _W @ _X,
    "B": _X,
    "C": _X[(_X @ _X.T).argmax(dim=-1)],
    "D": _X.mean(dim=0).expand_as(_X),
}
q6_answer = [L for L, c in _candidates.items() if torch.allclose(_out, c, atol=1e-3)][-1]
'''}, {"mistake": "the toy probe uses tiny vectors, so the weights are almost uniform and both A and D pass "
                  "the loose tolerance; taking the last match records D (plain mean) instead of A",
       "where": ["q6"]}),

    "q7_answer_gradient_probe_on_saturated_scores": ({"q7_answer": '''
# does a gradient flow through the weights? (if not, attention is just an argmax)
_s = torch.tensor([0.0, 0.0, 200.0], requires_grad=True)   # a clear winner
_w = torch.softmax(_s, dim=-1)
_w[2].backward()
q7_answer = "D" if _s.grad.abs().max().item() > 0 else "C"
'''}, {"mistake": "tests differentiability on scores so wide that the softmax is exactly one-hot in float32, "
                  "sees a zero gradient and answers C (argmax, no useful gradient) instead of D (a soft, "
                  "differentiable lookup)", "where": ["q7"]}),

    "q7_answer_assigned_from_print": ({"q7_answer": '''
q7_answer = print("D")
'''}, {"mistake": "assigns the result of print('D'), which is None, so no letter is recorded (the intended "
                  "answer D is only printed)", "where": ["q7"]}),

    "q8_keys_not_sliced_per_head": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K, V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "each head slices the queries and values but passes the full-width K, so Q_h @ K.T "
                  "multiplies (T, d_k) by (d_model, T) and fails whenever there is more than one head",
       "where": ["q8"]}),

    # W_out reshaped in the wrong block layout before the merge, as in wouterkool/attention-learn-to-route#23
    "q8_w_o_rows_viewed_head_minor": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = torch.stack([attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                   V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)])  # (h, T, d_k)
    W_O_heads = W_O.view(d_k, n_heads, d_model).transpose(0, 1)                                      # (h, d_k, d_model)
    return torch.einsum("htd,hdm->tm", heads, W_O_heads)
'''}, {"mistake": "cuts W_O into per-head blocks with view(d_k, n_heads, d_model), so head h meets rows h, "
                  "h + n_heads, ... of W_O instead of the contiguous rows h*d_k to (h+1)*d_k - 1 that its "
                  "columns occupy in the concatenation", "where": ["q8"]}),
}
