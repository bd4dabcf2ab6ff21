"""Forty-second blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the markdown and
solution cells of the master notebook and of `full_marks.ipynb` (q1..q8: 2-D inputs, T_q != T_k,
d_v != d_k, float32 and float64, "d_k that is not a perfect square", q2 returns a Python float, answers as
one-letter strings checked with isinstance(str) and strip().upper(), the notebook-level trace cell that
sets a global d_k = 4, q8 by right-multiplication with a per-head loop that unpacks `out_h, _ =
attention(...)`), `harness.py`, blind41.py in full for the format, lesson 79's text in
/work/shared/lessons/ (the seed-42 trace, the Var(q.k) = d_k argument, the entropy table), and only the
module docstrings' gist and the variant NAMES of blind.py .. blind40.py, so that their mistakes are not
repeated in the same form. The grader was not run on this set.

How it was made: the earlier names lean on q4, q1, q8 and q2 (about 95-135 each) and much less on the
multiple-choice questions (about 30-37 each), so this round puts 9 of its 14 wrong variants on q5, q6 and
q7 (3 each), with q1 x3, q2 x1, q4 x1, q8 x1, and on shapes the earlier names do not show: a softmax over
the QUERIES followed by a per-row renormalisation copied from slot attention (the rows still sum to 1, so
the row-sum check passes), a broadcast value mix (T_q, T_k, 1) * (T_k, d_v) summed over the LAST axis
(the value features) instead of the keys, the scale typed d_k ** (1 // 2) (an exponent of 0), the dot products rebuilt as cosine
similarity times the norms of the whole sample matrices (norm without dim), the table's dims deduplicated
through a set (iteration order 16, 256, 64, 4), answers of the wrong kind (bytes from .encode, a
(letter, value) pair from min over dict.items(), a 0-d numpy array from np.char.upper), a variance probe
with one sample (NaN, so every distance is NaN and min returns the first option), a self-attention probe
with one token (the output IS the token, so "B"), a key-order probe that shuffles the keys but not their
values (so "B"), a gradient probe run under torch.no_grad() (backward raises, so "C"), a "longest option"
heuristic applied to the dict's keys (all of length 1, so "A"), and a one-head shortcut in q8 that skips
the projections.

Public sources: lucidrains/slot-attention slot_attention/slot_attention.py (`attn = dots.softmax(dim=1) +
self.eps; attn = attn / attn.sum(dim=-1, keepdim=True)`: softmax over the slot/query axis, then a
renormalisation over the inputs) for the q1 slot-attention variant; georg-wolflein/good-features PR 1 and
pytorch/pytorch PR 131060 (masks and fully masked rows: what a softmax row must sum over) as background for
the axis slips; lucidrains/slot-attention issue 9 (scale multiplied vs divided, a one-character exponent
slip) for the `1 // 2` exponent; the torch.var warning "degrees of freedom is <= 0" (one sample gives NaN)
for the q5 probe. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so q1 slips list q8
too; the q5/q6/q7 probes call the full-marks q1/q2 functions, which are untouched). Correct variants are
valid but written differently from full_marks (a key loop that accumulates outer products; statistics.
variance on a Python list with the scaled variance divided by d_k afterwards; the entropy as minus
F.kl_div against an all-ones "distribution" and the table by a row helper with d ** -0.5; a fused QKV
projection chunked into heads and zipped; letters written as \\u, \\x and \\N{...} escapes). Every variant
was run against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, the lesson's formula and
table, `torch.nn.MultiheadAttention`) on several shapes and both float dtypes (a throwaway script in /tmp,
not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''


CORRECT = {
    "attention_key_loop_accumulates_outer_products": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.mT) * d_k ** -0.5
    weights = scores.softmax(dim=-1)
    output = V.new_zeros((Q.shape[0], V.shape[1]))
    for j in range(K.shape[0]):                 # add each key's value, weighted per query
        output += weights[:, j, None] * V[j]
    return output, weights
'''},
    "variance_statistics_module_scaled_by_d_k_afterwards": {"dot_product_variance": '''
import statistics


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k).tolist()
    var = statistics.variance(dots)             # unbiased, a Python float
    # Var(x / c) = Var(x) / c**2, and c**2 = d_k
    return var / d_k if scaled else var
'''},
    "entropy_minus_kl_div_to_ones_table_row_helper": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    # kl_div(input=log q, target=p) = p * (log p - log q); with log q = 0 it is p log p (0 where p = 0)
    return -F.kl_div(torch.zeros_like(p), p, reduction="none").sum(dim=-1)


def _entropy_row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = torch.mv(k, q[0])                     # the 5 scores q . k_j
    scaled = raw * d ** -0.5
    return {"d": d, "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_entropy_row(d, seed) for d in dims]
'''},
    "mha_fused_qkv_chunked_heads_zipped": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    QKV = X @ torch.hstack((W_Q, W_K, W_V))      # (T, 3 * d_model), one product
    Q, K, V = QKV.chunk(3, dim=-1)
    per_head = zip(Q.chunk(n_heads, dim=-1), K.chunk(n_heads, dim=-1), V.chunk(n_heads, dim=-1))
    outs = [attention(q, k, v, d_k)[0] for q, k, v in per_head]
    return torch.cat(outs, dim=-1) @ W_O
'''},
    "answers_as_escape_sequences": {
        "q5_answer": '''
q5_answer = "\\u0043"
''',
        "q6_answer": '''
q6_answer = "\\x41"
''',
        "q7_answer": '''
q7_answer = "\\N{LATIN CAPITAL LETTER D}"
'''},
}


WRONG = {
    "q1_slot_attention_softmax_over_queries_then_rows_renormalised": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    attn = scores.softmax(dim=0) + 1e-8                   # as in slot attention
    weights = attn / attn.sum(dim=-1, keepdim=True)       # make each row sum to 1
    return weights @ V, weights
'''}, {"mistake": "The softmax is taken over dim 0, the QUERIES (copied from slot attention, where the slots "
                   "compete for each input), and the rows are then renormalised to sum to 1: the row-sum check "
                   "passes but the weights are not softmax over the keys (with one query every weight becomes "
                   "uniform), so weights and output are wrong, and q8's heads with them.",
       "where": ["q1", "q8"]}),

    "q1_broadcast_mix_summed_over_value_features": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    # weighted sum of the value rows: (T_q, T_k, 1) * (T_k, d_v) -> (T_q, T_k, d_v), then sum
    output = (weights.unsqueeze(-1) * V).sum(dim=-1)
    return output, weights
'''}, {"mistake": "The weighted sum of the values is done by broadcasting, but the sum runs over the LAST "
                   "axis (the d_v features of each value) instead of axis 1 (the keys): the output has shape "
                   "(T_q, T_k) and holds each weight times the sum of one value row, not a mix of the value "
                   "rows (the weights are right); q8's heads are wrong too.",
       "where": ["q1", "q8"]}),

    "q1_scale_exponent_floor_divided_to_zero": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / d_k ** (1 // 2)        # divide by the square root of d_k
    weights = F.softmax(scores, dim=-1)
    output = weights @ V
    return output, weights
'''}, {"mistake": "The square root is written d_k ** (1 // 2), but 1 // 2 is integer division and equals 0, "
                   "so the divisor is d_k ** 0 = 1: the scores are never scaled (softmax of QK^T), the weights "
                   "are too sharp and the output is wrong for every d_k > 1, in q8's heads too.",
       "where": ["q1", "q8"]}),

    "q2_cosine_times_whole_matrix_norms": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    # q . k = |q| |k| cos(angle)
    dots = F.cosine_similarity(q, k, dim=1) * q.norm() * k.norm()
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The dot products are rebuilt as cosine similarity times the norms, but q.norm() and "
                   "k.norm() without dim are the norms of the WHOLE (n_samples, d_k) matrices (about "
                   "sqrt(n_samples * d_k) each), not of each row: every dot product comes out about n_samples "
                   "times too large and the variance is about n_samples**2 * d_k instead of d_k (or 1).",
       "where": ["q2"]}),

    "q4_table_dims_deduplicated_through_set": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in set(dims):                      # each width once, even if dims repeats one
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The dims are looped through set(dims), which does not keep their order (for the default "
                   "(4, 16, 64, 256) a set iterates 16, 256, 64, 4): the rows are right but come back in the "
                   "wrong order, so the table is not 'one dict per d in the order of dims'.",
       "where": ["q4"]}),

    "q5_answer_encoded_to_bytes": ({"q5_answer": '''
# typed as ASCII bytes, so that no look-alike Unicode letter can sneak in
q5_answer = "C".encode("ascii")
'''}, {"mistake": "The letter is encoded to bytes (b'C'), which is not a str: the answer has the right "
                   "letter but the wrong type, and a comparison with the string 'C' is False.",
       "where": ["q5"]}),

    "q5_answer_probe_with_one_sample_nan": ({"q5_answer": '''
# quick check with the q2 function at d_k = 16: one pair per call is enough for a first look
_measured = dot_product_variance(16, 1, torch.Generator().manual_seed(0))
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe estimates a variance from ONE sample: the unbiased variance of one number is "
                   "NaN, every distance to the options is NaN, no comparison is true and min() returns the "
                   "first option, 'A', instead of 'C'.",
       "where": ["q5"]}),

    "q5_answer_min_over_items_keeps_pair": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 and take the option closest to it
_measured = dot_product_variance(16, 10000, torch.Generator().manual_seed(0))
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = min(_options.items(), key=lambda kv: abs(kv[1] - _measured))
'''}, {"mistake": "min() runs over dict.items(), so it returns the whole (letter, value) pair ('C', 16.0), a "
                   "tuple, not the letter: the right option is found but the answer is of the wrong kind.",
       "where": ["q5"]}),

    "q6_answer_numpy_char_upper_gives_0d_array": ({"q6_answer": '''
import numpy as np

q6_answer = np.char.upper("a")      # make sure it is a capital letter
'''}, {"mistake": "np.char.upper returns a 0-d numpy ARRAY (array('A', dtype='<U1')), not a Python str: the "
                   "letter is right but the answer is not a string.",
       "where": ["q6"]}),

    "q6_answer_probe_with_one_token": ({"q6_answer": '''
# try the options on the smallest self-attention example: one token
_X = torch.randn(1, 8, generator=torch.Generator().manual_seed(7))
_out, _W = attention(_X, _X, _X, 8)
if torch.allclose(_out, _X):
    q6_answer = "B"                  # the token comes back unchanged: it attends only to itself
elif torch.allclose(_out, _X.mean(dim=0, keepdim=True)):
    q6_answer = "D"
else:
    q6_answer = "A"
'''}, {"mistake": "The probe uses a sequence of ONE token, where the only weight is 1 and the output equals "
                   "the token itself, so it cannot tell the options apart; testing option B first, the cell "
                   "answers 'B' instead of 'A' (with several tokens each output is a weighted average of all "
                   "rows).",
       "where": ["q6"]}),

    "q7_answer_order_probe_shuffles_keys_not_values": ({"q7_answer": '''
# does the result depend on the order in which the keys are stored?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(2, 8, generator=_g)
_K = torch.randn(5, 8, generator=_g)
_V = torch.randn(5, 3, generator=_g)
_perm = torch.tensor([4, 2, 0, 3, 1])
_before = attention(_Q, _K, _V, 8)[0]
_after = attention(_Q, _K[_perm], _V, 8)[0]         # the same keys, stored in another order
q7_answer = "B" if not torch.allclose(_before, _after) else "D"
'''}, {"mistake": "The order probe shuffles the keys but not their values, which breaks the key-value "
                   "pairing; the output changes, so the cell concludes that the order of the keys matters "
                   "('B') instead of 'D' (shuffling keys and values together leaves the output unchanged).",
       "where": ["q7"]}),

    "q7_answer_gradient_probe_under_no_grad": ({"q7_answer": '''
# does a gradient flow back from the output to the query?
_g = torch.Generator().manual_seed(0)
_Q = torch.randn(3, 4, generator=_g, requires_grad=True)
_K = torch.randn(3, 4, generator=_g)
_V = torch.randn(3, 4, generator=_g)
with torch.no_grad():                               # as in an evaluation loop
    _out, _ = attention(_Q, _K, _V, 4)
try:
    (_out ** 2).sum().backward()
    q7_answer = "D" if _Q.grad.abs().sum() > 0 else "C"
except RuntimeError:
    q7_answer = "C"                                  # no gradient: a hard lookup
'''}, {"mistake": "The gradient probe runs attention inside torch.no_grad(), so no graph is recorded and "
                   "backward() raises; the cell reads that as 'no useful gradient' and answers 'C' instead "
                   "of 'D'.",
       "where": ["q7"]}),

    "q7_answer_longest_option_by_len_of_keys": ({"q7_answer": '''
_options = {
    "A": "returns the value of the key that equals the query exactly, like the table does",
    "B": "only works when the keys are sorted",
    "C": "returns the value of the best-scoring key only: an argmax with no useful gradient",
    "D": "scores the query against every key and returns a softmax-weighted mix of all the values",
}
# the most complete statement is the right one: take the longest option
q7_answer = max(_options, key=len)
'''}, {"mistake": "max() over a dict iterates its KEYS, so key=len measures the one-letter keys (all of "
                   "length 1) and returns the first, 'A', instead of the letter of the longest text ('D').",
       "where": ["q7"]}),

    "q8_one_head_shortcut_skips_projections": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    if n_heads == 1:                                  # one head is plain self-attention
        return attention(X, X, X, d_model)[0] @ W_O
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "A shortcut for n_heads == 1 runs attention on X itself and skips the Q, K, V "
                   "projections: with one head the result is attention(X, X, X) @ W_O instead of "
                   "attention(X W_Q, X W_K, X W_V) @ W_O (several heads are right).",
       "where": ["q8"]}),
}
