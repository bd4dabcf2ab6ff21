"""Thirty-ninth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests, `README.md` or `docs/`. What was read: the student-facing
markdown of the master notebook (only to confirm it matches full_marks apart from the points), the markdown
and solution cells of `full_marks.ipynb`, `harness.py`, blind38.py in full for the format, lesson 79's text in
/work/shared/lessons/ (the seed-42 trace, the seed-7 self-attention check, the entropy experiment, the soft
lookup / kernel-regression slide, the d_k = 64 of the paper), and only the module docstrings' gist and the
variant NAMES of blind.py .. blind37.py, so that their mistakes are not repeated in the same form. The
grader was not run on this set.

How it was made: the earlier names lean on q1, q4, q8 and q2; q5, q6 and q7 have the fewest. This round
leans on the multiple-choice questions and on code shapes the earlier names do not show: q1 x2, q2 x1,
q4 x2, q5 x2, q6 x2, q7 x3, q8 x2. The mix: the matmuls wrapped in a CPU `torch.autocast` block copied from
mixed-precision training code (float32 inputs come back as float16, rounded; float64 is left alone), d_k
overwritten with the paper's 64 inside the function, the n_samples dot products taken as the diagonal of
q.T @ k (the NumPy "diag of a product" idiom on the wrong side, so it contracts over the samples), an
entropy taken as a mean and rescaled by len(logits) (the first axis, not T: right only for 1-D rows), a
batch handled by a Python loop over the first axis only (3-D input sums whole slices), a q5 probe that
picks the option FARTHEST from the measured variance (max for min), the measured number itself submitted
for q5, a set literal {"A"} for q6, the lesson's seed-7 check run with the token count as d_k (so the check
fails and the cell falls back to C), a q7 gradient probe that expects every gradient to be positive
(off-diagonal softmax derivatives are -p_i p_j < 0, so it concludes "hard lookup"), q7's answer assigned
inside a helper function (a local name, never global), a (letter, reason) tuple for q7, the blockwise form
of the output projection with `=` where `+=` is needed (only the last head survives), and the Annotated
Transformer's batched view `view(nbatches, -1, h, d_k).transpose(1, 2)` applied to an unbatched (T, d_model)
X, so each token becomes its own batch of length 1 and attends only to itself.

Public sources: pytorch/pytorch#99012 and #111276 (under torch.autocast("cpu") the query inside attention
becomes a low-precision dtype) for the q1 autocast variant; the Q&A threads on "numpy dot product of ith row
with ith column" / "row-wise dot product of two matrices" (stackoverflow 26168363, as collected in the
nvidia/Nemotron-CC-Math-v1 pages: A.dot(B).diagonal() vs np.einsum('ij,ij->i')) for q2; onenoughtone.com
"softmax Jacobian matrix" and discuss.pytorch.org "Trying to understand the gradient for softmax" (J_ij =
-s_i s_j off the diagonal) for the q7 gradient probe; matthew-brett.github.io "global_scope" and
bsc-iitm python-textbook lesson 4.3 (a name assigned in a function is local: NameError outside) for the q7
helper function; harvardnlp's Annotated Transformer as copied in Neerabhy/Text_summarization
Multi_Head_Attention.py (`nbatches = query.size(0)`; `.view(nbatches, -1, h, d_k).transpose(1, 2)`) for
the second q8 variant; math-gpt.org's exercise that writes Concat(H_1..H_H) W_O as a SUM over heads of
per-head blocks for the first q8 variant. No variant copies public code verbatim.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake; `where`
lists the questions that may lose points (q8 calls the student's `attention`, so q1 slips list q8 too).
Correct variants are valid but written differently from full_marks (a softmax written as the reciprocal of
sums of pairwise exp differences; dot products through F.bilinear with an identity kernel and a hand-made
unbiased variance; entropy as -log prod_j p_j ** p_j with a stacked (raw, scaled) table; heads by
torch.hsplit and itertools.starmap merged with torch.concat; the three letters written as a parenthesised
string, an annotated assignment and "ABCD"[-1]). Every variant was run against plain torch
(`torch.softmax`, `F.scaled_dot_product_attention`, the lesson's formula and table,
`torch.nn.MultiheadAttention`) on several shapes and both float dtypes (a throwaway script in /tmp, not in
the repository).

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


CORRECT = {
    "attention_softmax_as_reciprocal_of_pairwise_exp_gaps": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = torch.matmul(Q, K.transpose(0, 1)) * (1.0 / math.sqrt(d_k))      # (T_q, T_k)
    # softmax_j(s) = 1 / sum_l exp(s_l - s_j): every exponent of the largest score is <= 0
    gaps = scores.unsqueeze(-2) - scores.unsqueeze(-1)                       # [i, j, l] = s_il - s_ij
    weights = torch.exp(gaps).sum(dim=-1).reciprocal()                       # (T_q, T_k)
    return torch.matmul(weights, V), weights
'''},
    "variance_bilinear_identity_kernel_hand_unbiased": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    identity = torch.eye(d_k).unsqueeze(0)               # (1, d_k, d_k): q^T I k = q . k
    dots = F.bilinear(q, k, identity).squeeze(1)         # (n_samples,)
    if scaled:
        dots = dots * d_k ** -0.5
    centred = dots - dots.mean()
    return float(centred.square().sum() / (dots.numel() - 1))
'''},
    "entropy_minus_log_prod_p_pow_p_stacked_table": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = torch.softmax(logits, dim=-1)
    # prod_j p_j ** p_j = exp(-H), and 0 ** 0 == 1, so a saturated row gives -log(1) = 0
    return -torch.log(torch.prod(torch.pow(p, p), dim=-1))


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        pair = torch.cat([q @ k.T, (q @ k.T) / math.sqrt(d)])    # (2, 5): the raw and the scaled scores
        stds = torch.std(pair, dim=1)
        ents = softmax_entropy(pair)
        rows.append({"d": d, "raw_std": stds[0].item(), "scaled_std": stds[1].item(),
                     "H_raw": ents[0].item(), "H_scaled": ents[1].item()})
    return rows
'''},
    "mha_hsplit_starmap_concat": {"multi_head_attention": '''
from itertools import starmap


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    width = X.shape[-1] // n_heads
    # hsplit with an int cuts the columns into n_heads equal blocks, head 0 first
    parts = [torch.hsplit(X @ W, n_heads) for W in (W_Q, W_K, W_V)]
    heads = starmap(lambda q, k, v: attention(q, k, v, width)[0], zip(*parts))
    return torch.concat(list(heads), dim=-1).mm(W_O)
'''},
    "answers_parenthesised_annotated_negative_index": {
        "q5_answer": '''
q5_answer = ("C")          # parentheses only group: this is the string "C", not a tuple
''',
        "q6_answer": '''
q6_answer: str = "A"
''',
        "q7_answer": '''
q7_answer = "ABCD"[-1]     # the last option: the soft, differentiable lookup
'''},
}


WRONG = {
    # pytorch/pytorch#99012, #111276: inside torch.autocast("cpu") attention runs in a low-precision dtype
    "q1_matmuls_inside_cpu_autocast_float16": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # mixed precision makes the matmuls faster (from my training-loop template)
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        scores = Q @ K.T / math.sqrt(d_k)
        weights = F.softmax(scores, dim=-1)
        out = weights @ V
    return out, weights
'''}, {"mistake": "The matmuls run inside torch.autocast(device_type='cpu', dtype=torch.float16), which casts "
                   "float32 inputs down: the output and the weights come back as float16 (not the input dtype) "
                   "and rounded to about 3 significant digits. float64 inputs are not autocast and come out "
                   "right; the q8 heads then fail to multiply with the float32 W_O.",
       "where": ["q1", "q8"]}),

    "q1_d_k_overwritten_with_papers_64": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    d_k = 64                         # d_k = d_v = d_model / h = 64 in "Attention Is All You Need"
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The d_k argument is overwritten with the paper's value 64, so the scores are always divided "
                   "by 8 instead of sqrt(d_k) (by 8 instead of 2 in the lesson's d_k = 4 trace): the weights are "
                   "too flat whenever d_k is not 64, and every q8 head is scaled by 8 too.",
       "where": ["q1", "q8"]}),

    # the "numpy dot product of ith row with ith column" / "row-wise dot product" Q&A threads
    "q2_dots_from_diagonal_of_transposed_product": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.diagonal(q.T @ k)           # the i-th row of q.T times the i-th column of k
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "diag(q.T @ k) contracts over the SAMPLES, not the coordinates: it gives d_k numbers, each "
                   "the sum over all n_samples of q_i * k_i, whose variance is about n_samples (10000) instead "
                   "of d_k; the dot products are the diagonal of q @ k.T (or (q * k).sum(1)).",
       "where": ["q2"]}),

    "q4_entropy_mean_rescaled_by_len_of_first_axis": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    terms = -p * torch.log(p + 1e-9)
    return terms.mean(dim=-1) * len(logits)          # mean over the T keys, times T
''' + _TABLE}, {"mistake": "The sum over keys is written as a mean times len(logits), but len() is the size of "
                            "the FIRST axis, not the number of keys T: right for a 1-D row (the table), but a "
                            "(B, T) batch is scaled by B / T (a (3, 5) batch gives 3/5 of each entropy).",
                 "where": ["q4"]}),

    "q4_entropy_loop_over_first_axis_sums_whole_slices": ({"softmax_entropy": '''def _row_entropy(row):
    p = F.softmax(row, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum()


def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    if logits.dim() == 1:
        return _row_entropy(logits)
    return torch.stack([_row_entropy(row) for row in logits])      # one entropy per row of the batch
''' + _TABLE}, {"mistake": "The batch is handled by looping over the first axis only and the helper sums "
                            "everything it gets: right for 1-D and 2-D input, but for (A, B, T) each 'row' is a "
                            "(B, T) slice whose B entropies are added into one, so the result has shape (A,) "
                            "instead of (A, B).",
                 "where": ["q4"]}),

    "q5_answer_probe_picks_farthest_option": ({"q5_answer": '''
# measure Var(q.k) at d_k = 16 with the q2 function and pick the option it matches
_measured = dot_product_variance(16, 10000, torch.Generator().manual_seed(0))
_options = {"A": 1.0, "B": 16 ** 0.5, "C": 16.0, "D": 16.0 ** 2}
q5_answer = max(_options, key=lambda letter: abs(_options[letter] - _measured))
'''}, {"mistake": "The probe measures about 16 but chooses with max() over the distance |option - measured|, "
                   "i.e. the option FARTHEST from the measurement, 'D' (d_k^2 = 256), instead of the closest, "
                   "'C' (that needs min).",
       "where": ["q5"]}),

    "q5_answer_measured_variance_number": ({"q5_answer": '''
# Var(q.k) measured at d_k = 16 with my q2 function: it comes out at d_k
q5_answer = round(dot_product_variance(16, 10000, torch.Generator().manual_seed(0)), 1)
'''}, {"mistake": "The answer is the measured variance itself (a float close to 16.0) instead of the letter "
                   "'C' of the option it matches: a number where a one-letter string is asked.",
       "where": ["q5"]}),

    "q6_answer_set_literal": ({"q6_answer": '''
q6_answer = {"A"}          # the set of correct options
'''}, {"mistake": "The answer is written as a set {'A'} (braces, as for a multi-select set of options) "
                   "instead of the string 'A'.",
       "where": ["q6"]}),

    "q6_answer_lesson_check_run_with_token_count_as_d_k": ({"q6_answer": '''
# the lesson's check: is output row 0 the softmax(X_0 . X_j / sqrt(d_k))-weighted sum of the rows of X?
_g = torch.Generator().manual_seed(7)
_X = torch.randn(4, 8, generator=_g)                  # 4 tokens, d = 8
_out, _ = attention(_X, _X, _X, _X.shape[0])
_w0 = torch.softmax(_X[0] @ _X.T / math.sqrt(8), dim=0)
q6_answer = "A" if torch.allclose(_w0 @ _X, _out[0], atol=1e-5) else "C"
'''}, {"mistake": "The check calls attention with d_k = X.shape[0] (4 tokens) instead of X.shape[1] (width "
                   "8), so the output is scaled by 1/2 while the hand-made weights use 1/sqrt(8); the "
                   "comparison fails and the cell falls back to 'C' (the single best row) instead of 'A'.",
       "where": ["q6"]}),

    # onenoughtone "softmax Jacobian", discuss.pytorch.org: d p_i / d s_j = -p_i p_j < 0 for i != j
    "q7_answer_gradient_probe_expects_all_positive": ({"q7_answer": '''
# does every key's score get a say in the output? (a hard lookup / argmax would give zero gradients)
_s = torch.tensor([1.0, 2.0, 0.5, -1.0], requires_grad=True)
torch.softmax(_s, dim=0)[1].backward()
q7_answer = "D" if bool((_s.grad > 0).all()) else "C"
'''}, {"mistake": "The probe requires every gradient to be POSITIVE, but the softmax derivative off the "
                   "diagonal is -p_i p_j < 0 (raising another key's score lowers this weight); the gradients "
                   "are all non-zero (a soft lookup), yet the test fails and the cell answers 'C' instead of "
                   "'D'.",
       "where": ["q7"]}),

    # matthew-brett.github.io global_scope, bsc-iitm python-textbook 4.3: names assigned in a def are local
    "q7_answer_assigned_inside_helper_function": ({"q7_answer": '''
def answer_q7():
    """q7: attention scores every key and mixes all the values -- a soft, differentiable lookup."""
    q7_answer = "D"
    return q7_answer


answer_q7()
'''}, {"mistake": "q7_answer is assigned inside a function, so it is a local name that disappears when the "
                   "function returns (and the returned 'D' is thrown away): the notebook never defines a "
                   "global q7_answer.",
       "where": ["q7"]}),

    "q7_answer_tuple_of_letter_and_reason": ({"q7_answer": '''
q7_answer = ("D", "soft, differentiable lookup: kernel regression with an exponential kernel")
'''}, {"mistake": "The answer is a (letter, reason) tuple instead of the one-letter string 'D'.",
       "where": ["q7"]}),

    # math-gpt.org: Concat(H_1..H_H) W_O written as a SUM over heads of per-head blocks of W_O
    "q8_blockwise_output_projection_assigned_not_accumulated": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    # concat(heads) @ W_O == sum over h of head_h @ (rows h*d_k .. (h+1)*d_k - 1 of W_O)
    out = torch.zeros_like(X)
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        out = out_h @ W_O[cols, :]
    return out
'''}, {"mistake": "The blockwise form of the output projection needs the per-head terms ADDED (out += ...), "
                   "but each head's term is assigned with =, so only the last head's contribution is returned: "
                   "right with one head, wrong as soon as n_heads > 1.",
       "where": ["q8"]}),

    # harvardnlp annotated-transformer, as in Neerabhy/Text_summarization Multi_Head_Attention.py
    "q8_annotated_transformer_batch_view_on_unbatched_input": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    nbatches = X.size(0)
    d_k = X.size(-1) // n_heads
    query, key, value = [(X @ W).view(nbatches, -1, n_heads, d_k).transpose(1, 2)
                         for W in (W_Q, W_K, W_V)]
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    p_attn = scores.softmax(dim=-1)
    x = torch.matmul(p_attn, value)
    x = x.transpose(1, 2).contiguous().view(nbatches, -1, n_heads * d_k)
    return x.squeeze(1) @ W_O
'''}, {"mistake": "The Annotated Transformer's view(nbatches, -1, h, d_k).transpose(1, 2) expects a batch "
                   "axis; on the unbatched (T, d_model) X, nbatches is T, so every token becomes its own "
                   "batch with a sequence of length 1 and attends only to itself (weights all 1): the result "
                   "is X @ W_V @ W_O with no mixing between tokens.",
       "where": ["q8"]}),
}
