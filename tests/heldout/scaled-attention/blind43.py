"""Forty-third blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of the master notebook and of `full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k,
d_v != d_k, float32 and float64, outputs "of the same dtype as the inputs", q2's signature
`(d_k, n_samples, generator, scaled=False)` returning a Python float, one-letter string answers checked
with isinstance(str) and strip().upper(), the notebook cell that calls `dot_product_variance(d, 10000,
gen)` positionally, q8 by right-multiplication with a per-head loop that unpacks `out_h, _ =
attention(...)`), `harness.py`, blind42.py in full for the format, lesson 79's text in
/work/shared/lessons/ (the seed-42 trace, the Var(q.k) = d_k argument, the entropy table and its
`-(p*torch.log(p+1e-9))` helper, the soft-lookup slide), and only the module docstrings' gist and the
variant NAMES of blind.py .. blind41.py, so that their mistakes are not repeated in the same form. The
grader was not run on this set.

How it was made: the earlier names lean on q4 (~138), q1 (~132), q8 (~123) and q2 (~96) and much less on
the multiple-choice questions (q5 ~39, q6 ~34, q7 ~34), so this round puts 8 of its 14 wrong variants on
q5, q6 and q7 (3 + 2 + 3), with q1 x1, q2 x1, q4 x2, q8 x2, and on shapes the earlier names do not
show: a log-domain softmax whose logsumexp lacks keepdim (the row normalisers broadcast along the key
axis), ONE key vector broadcast against all n_samples queries in q2, the entropy reduced with
`sum(..., dtype=torch.float32)` copied from mixed-precision code (float64 in, float32 out), the table's
dict zipped from a key list and a value list written in another order, a q5 probe drawing with
torch.rand (uniform) instead of torch.randn, a q5 probe taking the variance of the TERMS q_i k_i of one
pair, a closing quote typed after a comment, an option line split on ")" without taking element 0 (a
list), a q6 check whose own "expected" formula drops the 1/sqrt(d_k) (so the right option is ruled
out), a q7 gradient probe that reads `.grad` of a non-leaf tensor (requires_grad set before a dtype
cast: None), a q7 probe with a single stored key (the output IS its value, like a table), a q7 probe
whose `.backward` is named but never called, q8 projections chained (K from Q, V from K), and W_O
transposed in place with t_() "because nn.Linear stores weights the other way round" (an in-place edit
of an input). Variants whose return value would crash the notebook's own demo cells at run time (a dict
from attention, a reordered q2 signature, a (variance, mean) pair) were tried and dropped.

Public sources: pytorch/pytorch issues 12627, 8287 and 13113 and Maghoumi/pytorch-softdtw-cuda issue 25
(`torch.randn(..., requires_grad=True).cuda()` / `.to(device)` makes a non-leaf copy whose .grad stays
None, with the "grad attribute of a Tensor that is not a leaf" warning) for the non-leaf q7 probe; the
torch.rand vs torch.randn notes in github.com/laurenesco/deep-learning (uniform on [0, 1) vs standard
normal) for the q5 uniform probe; the mixed-precision habit of forcing float32 reductions
(`softmax(..., dtype=torch.float32)`) as background for the q4 dtype slip; the master notebook's own q8
note on nn.Linear's (out, in) layout for the in-place W_O transpose. No variant copies public
code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so the q1 slip
lists q8 too; the q5/q6/q7 probes call the full-marks q1/q2 functions, which are untouched). Correct
variants are valid but written differently from full_marks (scores by torch.inner with the keys centred,
which shifts each score row by a constant the softmax ignores, returned as a namedtuple; a variance from
torch.dist to the mean with the scale applied in place; the entropy as sum p (logsumexp - z) and a table
built from a row generator with torch.random.manual_seed; heads merged and projected with W_O viewed as
(n_heads, d_k, d_model) in one einsum over torch.stack'ed heads; letters from bytes.decode, min over a
string and a negative index). Every variant was run against plain torch (`torch.softmax`,
`F.scaled_dot_product_attention`, the lesson's formula and table, `torch.nn.MultiheadAttention`) on
several shapes and both float dtypes (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''


CORRECT = {
    "attention_inner_centred_keys_namedtuple": {"attention": '''
from collections import namedtuple

AttentionResult = namedtuple("AttentionResult", ["output", "weights"])


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # centring the keys subtracts q . mean(k) from a whole score row: the softmax does not see it
    K_c = K - K.mean(dim=0, keepdim=True)
    scores = torch.inner(Q, K_c) / math.sqrt(d_k)      # inner(Q, K)[i, j] = Q[i] . K[j]
    weights = torch.softmax(scores, dim=1)
    return AttentionResult(output=torch.mm(weights, V), weights=weights)
'''},
    "variance_dist_to_mean_scaled_in_place": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.mul(q, k).sum(dim=1)
    if scaled:
        dots.mul_(d_k ** -0.5)
    centre = dots.mean().expand_as(dots)
    ss = torch.dist(dots, centre) ** 2          # sum of squared deviations
    return float(ss / (n_samples - 1))
'''},
    "entropy_lse_minus_logit_table_from_row_generator": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    lse = torch.logsumexp(logits, dim=-1, keepdim=True)
    p = torch.exp(logits - lse)
    return torch.sum(p * (lse - logits), dim=-1)   # -log p = lse - z, finite even where p underflows


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    def rows():
        for d in dims:
            torch.random.manual_seed(seed)
            q = torch.randn(1, d)
            k = torch.randn(5, d)
            raw = torch.matmul(k, q.squeeze(0))
            scaled = torch.div(raw, math.sqrt(d))
            yield dict(d=d, raw_std=torch.std(raw, correction=1).item(),
                       scaled_std=torch.std(scaled, correction=1).item(),
                       H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item())
    return list(rows())
'''},
    "mha_stacked_heads_einsum_with_w_o_viewed_per_head": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = (torch.matmul(X, W) for W in (W_Q, W_K, W_V))
    heads = torch.stack([attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                   V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)])
    # concat @ W_O = sum over heads of head_h @ (rows h*d_k .. (h+1)*d_k - 1 of W_O)
    return torch.einsum("htk,hkm->tm", heads, W_O.reshape(n_heads, d_k, d_model))
'''},
    "answers_from_bytes_min_and_negative_index": {
        "q5_answer": '''
q5_answer = b"C".decode("ascii")
''',
        "q6_answer": '''
q6_answer = min("DCBA")            # the first letter of the alphabet among the options
''',
        "q7_answer": '''
q7_answer = ["A", "B", "C", "D"][-1]
'''},
}


WRONG = {
    "q1_log_domain_softmax_logsumexp_without_keepdim": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    log_weights = scores - torch.logsumexp(scores, dim=-1)   # log-softmax, no overflow in exp
    weights = log_weights.exp()
    return weights @ V, weights
'''}, {"mistake": "The log-softmax subtracts torch.logsumexp(scores, dim=-1) WITHOUT keepdim=True: the "
                   "(T_q,) vector of row normalisers broadcasts along the last axis, so column j is shifted by "
                   "the normaliser of ROW j; with T_q == T_k the weights are wrong and their rows do not sum "
                   "to 1 (with T_q != T_k the subtraction fails), and q8's square heads are wrong too.",
       "where": ["q1", "q8"]}),

    "q2_key_drawn_once_broadcast_over_samples": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)   # one query per sample
    k = torch.randn(d_k, generator=generator)              # the key vector
    dots = (q * k).sum(1)                                   # broadcasts over the samples
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "Only ONE key vector is drawn (shape (d_k,)) and broadcast against all n_samples "
                   "queries, so the pairs are not independent: the variance measured is |k|^2 for that one "
                   "key (a chi-square draw with d_k degrees of freedom, often far from d_k), not Var(q.k) "
                   "over random pairs; scaled it is |k|^2 / d_k instead of about 1.",
       "where": ["q2"]}),

    "q4_entropy_sum_accumulated_in_float32": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    # accumulate the sum in float32, as mixed-precision code does, so half inputs cannot overflow
    return -(p * torch.log(p + 1e-9)).sum(dim=-1, dtype=torch.float32)


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
'''}, {"mistake": "The entropy sum is taken with dtype=torch.float32 (a habit from mixed-precision code), "
                   "so float64 logits give a float32 result, rounded to float32: the entropy is not of the "
                   "same dtype as the logits (float32 inputs and the table are unaffected).",
       "where": ["q4"]}),

    "q4_table_row_zipped_with_keys_out_of_order": ({"softmax_entropy": _ENTROPY + '''
_KEYS = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        values = (d,
                  raw.std().item(), softmax_entropy(raw).item(),          # the raw scores
                  scaled.std().item(), softmax_entropy(scaled).item())    # the scaled scores
        table.append(dict(zip(_KEYS, values)))
    return table
'''}, {"mistake": "Each row is built by zipping the key list (d, raw_std, scaled_std, H_raw, H_scaled) with "
                   "a value list written in another order (raw std, raw entropy, scaled std, scaled "
                   "entropy): 'scaled_std' holds the raw entropy and 'H_raw' holds the scaled std, so two "
                   "columns of the table are swapped.",
       "where": ["q4"]}),

    "q5_answer_probe_draws_uniform_rand": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 and take the closest option
_g = torch.Generator().manual_seed(0)
_q = torch.rand(10000, 16, generator=_g)
_k = torch.rand(10000, 16, generator=_g)
_measured = (_q * _k).sum(dim=1).var().item()
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe draws q and k with torch.rand (uniform on [0, 1)) instead of torch.randn "
                   "(standard normal): each term q_i k_i then has variance 1/9 - 1/16 = 7/144, Var(q.k) is "
                   "about 0.78 at d_k = 16, and the closest option is 'A' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_probe_variance_of_terms_of_one_pair": ({"q5_answer": '''
# look at one pair of d_k = 16 vectors: how spread out is q.k?
_q, _k = torch.randn(2, 16, generator=torch.Generator().manual_seed(0))
_measured = (_q * _k).var().item()
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe takes the variance of the 16 TERMS q_i k_i of one pair (each has variance 1) "
                   "instead of the variance of their SUM q.k over many pairs: it measures about 1 and "
                   "answers 'A' instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_comment_typed_inside_quotes": ({"q5_answer": '''
q5_answer = "C  # Var(q.k) = d_k: the variances of the d_k terms add up"
'''}, {"mistake": "The closing quote was typed after the comment, so the comment is part of the string: "
                   "the answer is 'C  # Var(q.k) = d_k: ...', not one of the letters A-D (the student meant "
                   "'C').",
       "where": ["q5"]}),

    "q6_answer_option_line_split_without_index": ({"q6_answer": '''
_chosen = "A) A weighted average of all the rows of X, with weights softmax_j(X_i . X_j / sqrt(d_k))"
q6_answer = _chosen.split(")", 1)       # keep the letter before the parenthesis
'''}, {"mistake": "The letter is cut from the pasted option line with split(')', 1) but element [0] is never "
                   "taken: the answer is the LIST ['A', ' A weighted average ...'], not the string 'A'.",
       "where": ["q6"]}),

    "q6_answer_check_expected_weights_without_scale": ({"q6_answer": '''
# check option A numerically on the lesson's self-attention example (Q = K = V = X)
_X = torch.randn(4, 8, generator=torch.Generator().manual_seed(7))
_out, _ = attention(_X, _X, _X, 8)
_expected_A = torch.softmax(_X @ _X.T, dim=-1) @ _X     # weighted average with softmax_j(X_i . X_j)
if torch.allclose(_out, _expected_A, atol=1e-5):
    q6_answer = "A"
elif torch.allclose(_out, _X.mean(dim=0).expand_as(_X), atol=1e-5):
    q6_answer = "D"
elif torch.allclose(_out, _X, atol=1e-5):
    q6_answer = "B"
else:
    q6_answer = "C"                 # not an average and not the token itself: the best-matching row
'''}, {"mistake": "The check's own 'expected' output for option A leaves out the 1/sqrt(d_k) inside the "
                   "softmax, so the (correct) attention output does not match it, option A is ruled out, "
                   "and the cell falls through to 'C' instead of 'A'.",
       "where": ["q6"]}),

    "q7_answer_gradient_probe_reads_non_leaf_grad": ({"q7_answer": '''
# does a gradient flow from the output back to the query, as it would not through a table lookup?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True).double()   # float64 for an accurate check
_K = torch.randn(3, 4, generator=_g, dtype=torch.float64)
_V = torch.randn(3, 4, generator=_g, dtype=torch.float64)
_out, _ = attention(_Q, _K, _V, 4)
(_out ** 2).sum().backward()
q7_answer = "D" if _Q.grad is not None and _Q.grad.abs().sum() > 0 else "C"
'''}, {"mistake": "requires_grad is set BEFORE the .double() cast, so _Q is a non-leaf copy whose .grad is "
                   "never filled (None, with PyTorch's 'not a leaf Tensor' warning): the probe sees no "
                   "gradient and answers 'C' instead of 'D'.",
       "where": ["q7"]}),

    "q7_answer_probe_with_a_single_key": ({"q7_answer": '''
# store one (key, value) pair, as in a table, and look the key up
_g = torch.Generator().manual_seed(0)
_k = torch.randn(1, 8, generator=_g)
_v = torch.randn(1, 3, generator=_g)
_out, _ = attention(_k, _k, _v, 8)              # query = the stored key
q7_answer = "A" if torch.allclose(_out, _v) else "D"    # exact value back: it behaves like the table
'''}, {"mistake": "The probe stores a SINGLE key, so the only weight is 1 and the output is that key's "
                   "value whatever the query is; it cannot tell a soft lookup from an exact one, and the "
                   "cell answers 'A' instead of 'D' (with several keys the output mixes all the values).",
       "where": ["q7"]}),

    "q7_answer_backward_method_not_called": ({"q7_answer": '''
# does a gradient flow back from the output to the query?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g)
_out, _ = attention(_Q, _K, _V, 4)
(_out ** 2).sum().backward
q7_answer = "C" if _Q.grad is None else "D"      # no gradient: a hard lookup
'''}, {"mistake": "`.backward` is written without parentheses, so the method is only looked up, never "
                   "called: no gradient is computed, _Q.grad stays None and the probe answers 'C' instead "
                   "of 'D'.",
       "where": ["q7"]}),

    "q8_projections_chained_from_previous_projection": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q = X @ W_Q
    K = Q @ W_K
    V = K @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "The projections are chained, K = Q W_K and V = K W_V, instead of all three coming "
                   "from the input (K = X W_K, V = X W_V): keys and values are projections of projections, "
                   "so every head (even with one head) is wrong.",
       "where": ["q8"]}),

    "q8_w_o_transposed_in_place_for_linear_convention": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    W_O.t_()                      # the output layer is stored (out, in), like nn.Linear
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "W_O is transposed IN PLACE (t_()) before the output projection, as if it were stored "
                   "the nn.Linear way: the result is concat @ W_O.T instead of concat @ W_O, and the "
                   "caller's W_O is left transposed (a second call flips it back and gives yet another "
                   "result).",
       "where": ["q8"]}),
}
