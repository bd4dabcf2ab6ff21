"""Thirtieth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests,
`autograder/grading/` or the other example submissions. What was read: the student-facing text and
solution cells of the master notebook (not its test cells beyond the public checks shown with it),
`full_marks.ipynb`, `harness.py`, and only the module docstrings and variant NAMES of blind.py ..
blind29.py, so that their mistakes are not repeated in the same form. The grader was not run on this set.

How it was made: the earlier sets' names count q4 111, q1 100, q8 90, q2 71 and q5-q7 15, 12 and 10, and
every wrong letter of q5-q7 is taken. So this set gives q5, q6 and q7 one variant each in forms not yet
used (a homoglyph letter, quotes typed inside the string, the otter `...` placeholder left in place),
keeps q1 to three, q2 and q4 to two each, and puts four on q8. The mix follows a real class: small slips
inside right code (the key index written as the query index in a double loop, the sample variance divided
by `d_k - 1` instead of `n_samples - 1`, the query passed in the value slot of a head), whole-approach
mistakes (values mixed with `*` instead of `@`, the min-entropy `-ln max p` remembered as "the" entropy,
one attention map shared by every head), crashes of half-remembered APIs (`K.T()` called like a method,
`torch.cat(*heads)`, heads split in numpy and never turned back into tensors) and answers of a student who
misread the instructions. Shapes earlier sets used little: a double loop into a preallocated buffer, a
manual variance formula, a numpy round trip, a helper plus list comprehension, a per-head W_O sum.

Public sources searched (pages and issues corpora): `torch.cuda.manual_seed` used alone to "seed
everything" (mrdbourke/pytorch-deep-learning#759, where CPU draws stay random because only the CUDA seed
was set; pytorch/pytorch#79496), and the otter-grader student notebooks in which every solution is
replaced by `...` (ucbds-infra/otter-grader assign docs and issues #854/#914), named in a comment above
the variants that carry them. The other variants are plausible slips for a student of these lessons.
Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that may lose points (q8 calls the student's `attention`, so a q1 slip that
changes or breaks its output costs q8 too). Correct variants are valid but written differently from
full_marks (row-centred scores with `.mT`, a shifted exponential normalised by `F.normalize(p=1)`, the
dot products as a batch of 1x1 matmuls with the variance taken in numpy, the entropy from
`torch.special.entr` and the table from a helper in a comprehension, W_O applied per head by row blocks
and summed). Every variant was run against plain torch (`F.scaled_dot_product_attention`,
`torch.nn.MultiheadAttention`, `torch.softmax`) on several shapes and both float dtypes before it was
written down here (a throwaway script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''

_TABLE = '''

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
'''

CORRECT = {
    "attention_row_centred_scores_mt": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scale = d_k ** -0.5
    logits = (Q @ K.mT) * scale
    # a softmax does not change when a row is shifted by a constant: centre each row first
    logits = logits - logits.mean(dim=-1, keepdim=True)
    attn = torch.softmax(logits, dim=-1)
    return attn @ V, attn
'''},
    "attention_shifted_exp_l1_normalize": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    s = torch.matmul(Q, K.transpose(-1, -2)).div(math.sqrt(d_k))
    s = s - s.max(dim=-1, keepdim=True).values
    w = F.normalize(s.exp(), p=1, dim=-1)   # exp >= 0, so dividing by the L1 norm is the softmax
    return torch.matmul(w, V), w
'''},
    "variance_batched_one_by_one_matmuls_numpy_var": {"dot_product_variance": '''
import numpy as np


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs."""
    queries = torch.randn(n_samples, d_k, generator=generator)
    keys = torch.randn(n_samples, d_k, generator=generator)
    dots = (queries.unsqueeze(1) @ keys.unsqueeze(2)).reshape(n_samples)   # (n, 1, 1) -> (n,)
    factor = 1.0 / math.sqrt(d_k) if scaled else 1.0
    return float(np.var(dots.numpy() * factor, ddof=1))
'''},
    "entropy_special_entr_table_helper_comprehension": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    probs = torch.softmax(logits, dim=-1)
    return torch.special.entr(probs).sum(-1)      # entr(0) is defined as 0


def _table_row(d, seed):
    torch.manual_seed(seed)
    query = torch.randn(1, d)
    keys = torch.randn(5, d)
    raw = (keys @ query.T).squeeze(1)
    scaled = raw / math.sqrt(d)
    return {"d": d,
            "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    return [_table_row(d, seed) for d in dims]
'''},
    "heads_w_o_row_blocks_summed": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = W_O.shape[0]
    hd = d_model // n_heads
    Qp, Kp, Vp = (X @ W for W in (W_Q, W_K, W_V))
    total = None
    for h in range(n_heads):
        lo, hi = h * hd, (h + 1) * hd
        head, _ = attention(Qp[:, lo:hi], Kp[:, lo:hi], Vp[:, lo:hi], hd)
        # concat @ W_O == sum over heads of head_h @ (the rows of W_O that head_h meets)
        part = head @ W_O[lo:hi, :]
        total = part if total is None else total + part
    return total
'''},
}

WRONG = {
    # ---------------------------------------------------------------- q1
    "q1_pair_loop_key_indexed_by_query": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    T_q, T_k = Q.shape[0], K.shape[0]
    scores = torch.zeros(T_q, T_k, dtype=Q.dtype)
    for i in range(T_q):
        for j in range(T_k):
            scores[i, j] = torch.dot(Q[i], K[i]) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "in the double loop the key is indexed with the query's index (K[i] instead of K[j]), so every "
                  "entry of a row is the same score q_i.k_i, every row of weights is uniform and the output "
                  "is the plain mean of the values (it also fails when T_q > T_k)",
       "where": ["q1", "q8"]}),

    "q1_values_mixed_elementwise": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    output = weights * V
    return output, weights
'''}, {"mistake": "the values are mixed with an element-wise product (weights * V) instead of the matrix "
                  "product weights @ V: it crashes when the shapes do not broadcast (T_k != d_v) and "
                  "otherwise returns a (T_q, T_k) array that is not a weighted sum of value rows",
       "where": ["q1", "q8"]}),

    "q1_transpose_attribute_called": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T() / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "`.T` is a property, not a method: `K.T()` calls the transposed tensor and crashes with "
                  "'Tensor' object is not callable",
       "where": ["q1", "q8"]}),

    # ---------------------------------------------------------------- q2
    "q2_manual_variance_divided_by_d_k_minus_one": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    mean = dots.mean()
    var = ((dots - mean) ** 2).sum() / (d_k - 1)
    return var.item()
'''}, {"mistake": "the hand-written sample variance divides the sum of squared deviations by d_k - 1 "
                  "instead of n_samples - 1 (the number of dot products), so the result is about "
                  "n_samples / d_k times too big (and a division by zero for d_k = 1)",
       "where": ["q2"]}),

    "q2_draws_from_notebook_global_gen": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=gen)
    k = torch.randn(n_samples, d_k, generator=gen)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the draws use `gen`, the notebook's global generator from the demo cell, instead of the "
                  "`generator` argument: the caller's generator is ignored, so two calls with generators "
                  "seeded alike give different numbers (and a fresh kernel without the demo cell crashes)",
       "where": ["q2"]}),

    # ---------------------------------------------------------------- q4
    "q4_entropy_as_minus_log_max_prob": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -log_p.max(dim=-1).values
''' + _TABLE}, {"mistake": "returns -ln(max_j p_j) (the min-entropy) instead of the Shannon entropy "
                           "-sum_j p_j ln p_j: it agrees only on uniform and one-hot rows, and the table's "
                           "entropies come out wrong",
                "where": ["q4"]}),

    # torch.cuda.manual_seed used for seeding, as in mrdbourke/pytorch-deep-learning#759 (CPU draws stay
    # random because only the CUDA generator was seeded)
    "q4_table_cuda_manual_seed_only": ({"softmax_entropy": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.cuda.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "the table is seeded with torch.cuda.manual_seed, which seeds only the GPU generator; "
                  "torch.randn on the CPU keeps drawing from the unseeded global state, so the numbers are "
                  "not the lesson's and change from call to call (torch.manual_seed seeds every device)",
       "where": ["q4"]}),

    # ---------------------------------------------------------------- q5 - q7
    "q5_answer_cyrillic_letter": ({"q5_answer": '''q5_answer = "\\u0421"  # typed with a Cyrillic keyboard layout: looks like C
'''}, {"mistake": "the answer is the Cyrillic letter U+0421 (typed on a Russian keyboard layout), which looks "
                  "like the Latin C but is a different character, so it is none of A, B, C, D",
       "where": ["q5"]}),

    "q6_answer_quotes_inside_string": ({"q6_answer": '''q6_answer = '"A"'
'''}, {"mistake": "the quotes of the instruction were typed inside the string: the answer is the three "
                  "characters '\"A\"' (quote marks included), not the letter A",
       "where": ["q6"]}),

    # otter-assign student notebooks replace each solution by `...` (ucbds-infra/otter-grader docs,
    # issues #854 and #914); here the placeholder was never filled in
    "q7_answer_placeholder_ellipsis_left": ({"q7_answer": '''q7_answer = ...
'''}, {"mistake": "the answer cell still holds the notebook's placeholder `...` (Ellipsis): no letter was "
                  "chosen",
       "where": ["q7"]}),

    # ---------------------------------------------------------------- q8
    "q8_one_attention_map_shared_by_heads": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    _, weights = attention(Q, K, V, d_k)          # one (T, T) map from the full-width queries and keys
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(weights @ V[:, cols])
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the attention weights are computed once from the full-width Q and K and shared by every "
                  "head; only the values are split. Each head must compute its own weights from its own "
                  "slice of Q and K",
       "where": ["q8"]}),

    "q8_head_query_passed_as_value": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        q = Q[:, h * d_k:(h + 1) * d_k]
        k = K[:, h * d_k:(h + 1) * d_k]
        v = V[:, h * d_k:(h + 1) * d_k]
        o, _ = attention(q, k, q, d_k)
        outs.append(o)
    return torch.cat(outs, dim=1) @ W_O
'''}, {"mistake": "each head's slice of the queries is passed where its values go (attention(q, k, q, ...) "
                  "instead of attention(q, k, v, ...)), so the heads mix query rows, not value rows",
       "where": ["q8"]}),

    "q8_cat_given_unpacked_heads": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return torch.cat(*heads, dim=1) @ W_O
'''}, {"mistake": "torch.cat takes ONE sequence of tensors: `torch.cat(*heads, dim=1)` unpacks the list into "
                  "separate arguments and crashes (it should be torch.cat(heads, dim=1))",
       "where": ["q8"]}),

    "q8_heads_split_in_numpy_not_converted_back": ({"multi_head_attention": '''
import numpy as np


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[1] // n_heads
    q_heads = np.split((X @ W_Q).numpy(), n_heads, axis=1)
    k_heads = np.split((X @ W_K).numpy(), n_heads, axis=1)
    v_heads = np.split((X @ W_V).numpy(), n_heads, axis=1)
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(q_heads, k_heads, v_heads)]
    return torch.cat(outs, dim=1) @ W_O
'''}, {"mistake": "the heads are cut with np.split on .numpy() copies and passed to attention as numpy "
                  "arrays, never turned back into tensors (torch.from_numpy): the torch softmax inside "
                  "attention rejects a numpy array and the function crashes",
       "where": ["q8"]}),
}
