"""Sixty-second blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, `mutants.py`, the naming tests, `README.md`'s feedback section or `docs/`. What
was read: the assignment notebook (its text, question statements and stub cells) and the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1: a 2-D `attention` written `Q @ K.T / d_k ** 0.5`
with a row-sum assert; q2: two `randn` draws from the generator, `(q * k).sum(1)`, `.var().item()`; q4:
`softmax_entropy` with `+ 1e-9` inside the log and `entropy_table` in the same cell; q5..q7 one letter each;
q8 a loop over the heads calling the 2-D `attention` on column slices, `X @ W` projections), `tests/heldout/
harness.py`, blind61.py in full for the format, and only the variant NAMES of the earlier blind*.py sets, so
that their mistakes are not repeated in the same form. The grader was not run on this set.

Focus of the round: CODE CARRIED OVER FROM ANOTHER SOURCE'S CONVENTIONS. Each wrong variant is what a student
who learned attention elsewhere (nn.MultiheadAttention, Hugging Face's BERT code, the TensorFlow transformer
tutorial, JAX/Flax, the paper's notation, SDPA's keyword conventions) would write, and one convention does not
hold here: in q1, an all-True "every key is real" mask built the Hugging Face way (1 = attend) and applied the
nn.MultiheadAttention way (`masked_fill(mask, -inf)`, True = padding: every score -inf, NaN weights), the
inputs given a batch axis at dim 1 as in nn.MultiheadAttention's sequence-first (L, N, E) layout but then
multiplied as batch-first (every token becomes its own batch and attends only to itself; other lengths crash),
and the score matmul done in bfloat16 as on a TPU under JAX's default matmul precision, then cast back; in q2,
the paper's N(0, 1/d_k) (second parameter a VARIANCE) passed to `torch.normal`, whose second argument is the
standard deviation (the scaled variance comes out 1/d_k); in q4, `scale = 1 / sqrt(d)` defined as SDPA's /
JAX's `scale=` multiplier and then used as a divisor (the scaled scores are raw * sqrt(d)), TensorFlow's
`reduce_logsumexp(..., keepdims=True)` kept in the identity H = lse - sum(p * logits) (the row entropies
broadcast into a (B, B) matrix, a (1,) for one row), and `F.cross_entropy` called in the order of TensorFlow's
`softmax_cross_entropy_with_logits(labels, logits)` (probabilities as the input, logits as the target: wrong
values); q5 answered from a probe whose q and k come out of `nn.Linear` layers at PyTorch's default init
(coordinates of variance 1/3, so Var(q.k) = d/9, about 7 at d = 64, nearest to sqrt(64) = 8: "B"); q6 from a
probe that adds the TensorFlow tutorial's `mask * -1e9` to a Hugging Face all-ones attention_mask (every score
becomes -1e9 in float32, the weights are uniform and the output is the plain mean: "D"); q7 from an SDPA probe
given a key-padding mask in nn.MultiheadAttention's polarity (True = pad), which SDPA reads as True = attend
(only the pad key is kept, the output is exactly one value: "C"); and in q8, the head outputs appended as if
`attention` returned only the output like `F.scaled_dot_product_attention` (a list of tuples: `torch.cat`
raises), a Hugging Face extended mask `(1 - mask) * finfo.min` made from a TensorFlow-polarity "no padding"
mask of zeros (every score gets finfo.min added: uniform weights in every head), heads written into the
buffer with the out-of-place `index_copy` as if it worked in place like NumPy's `np.put` (the result is
discarded and the output is all zeros), and Flax's [length, heads, head_dim] layout kept for the values
while the weights are head-first (the batched matmul fails to broadcast, or silently mixes the wrong rows
when T == n_heads). Spread: q1 x3, q2 x1, q4 x3, q5 x1, q6 x1, q7 x1, q8 x4 (q3 is a hand-graded markdown
answer with no code cell to replace). Mix: crashes (q1 sequence-first for most T_q != T_k, q8 tuples, q8 Flax), NaN
(q1 mask), silently wrong values (q1 bfloat16, q2, q4 scale, q4 cross_entropy, q8 extended mask, q8
index_copy), a wrong shape (q4 keepdim, q1 sequence-first weights (T, 1)), precision (q1 bfloat16, q6's -1e9
in float32) and three written answers drawn from a faulty probe.

Public material used (nothing copied verbatim): pytorch/pytorch PR #170415 ("SDPA: True = Keep (Attend); MHA:
True = Ignore (Mask out) ... leads to silent bugs during migration"), PR #120668 (transformer mask definition
"opposite to that of attn_mask in scaled_dot_product_attention"), issue #21518 (MHA masks additive / -inf) and
rasbt/LLMs-from-scratch #1061 (an SDPA mask built with the MHA polarity: "it seems opposite of
nn.MultiheadAttention") for q1's mask and q7's probe; PAIR-code/interpretability
`text-dream/python/helpers/attention_mask_helper.py` and the BERT ports found in the code corpus
(`(1.0 - attention_mask) * -10000.0`, "1.0 for positions we want to attend"; another with
`(1 - mask) * torch.finfo(torch.float32).min`) against the TensorFlow transformer tutorial's
`scaled_attention_logits += (mask * -1e9)` where "1 = padding" (Stack Overflow 67154510, stats.stackexchange
541448, and cmd23333/Transformer-MusicGenerator `util/mask.py`, whose padding mask outputs 1 at the pad
positions) for q6 and q8's extended mask; pytorch/pytorch #33763 and #34793 (`key_padding_mask`: "When the value is True ... set to -inf")
and the nn.MultiheadAttention (L, N, E) docs quoted there for q1's sequence-first layout; pytorch/pytorch
#5168 ("the variance of the output feature would be 1/3 instead of 1"), #57109, #15314 and PR #19526 (nn.Linear's
`kaiming_uniform_(a=sqrt(5))` is U(-1/sqrt(in), 1/sqrt(in))) for q5's probe; tensorflow/tensorflow's
`tf.reduce_logsumexp` docs (`keep_dims=True` keeps the reduced axis) and dycforever/program
`effective_tensorflow/entropy.py` (`probs * (reduce_logsumexp(logits, dims, keep_dims=True) - logits)` summed
afterwards, where the kept axis is harmless) for q4's identity; the torch.split / numpy.split / tensor_split
documentation pages (NumPy-derived names whose arguments mean something else in torch) for the general idea
behind q8's NumPy-minded `index_copy` (no single public example was found for that one: it rests on PyTorch's
documented `op` / `op_` naming, where only the underscore form writes in place, against NumPy's in-place
`np.put` / `np.copyto`); SDPA's documented `scale` argument (a factor the scores are multiplied by, default
1/sqrt(E)) for q4's scale.
bfloat16 TPU matmuls, Flax's `...qhd,...khd->...hqk` layout, the paper's N(mu, sigma^2) notation and
TensorFlow's labels-first `softmax_cross_entropy_with_logits(labels, logits)` signature are common knowledge
of those libraries; their effect here was reproduced locally with torch 2.13.

Each wrong variant changes one cell of the otherwise full-marks notebook and has exactly one mistake; `where`
lists the questions that may lose points (q8 calls the student's `attention` once per head, so every q1
mistake lists q8; the q4 variants replace the whole q4 cell, which defines both functions, changing only one
of them; the q5..q7 probes call plain torch only). None raises in the notebook's own display cells (q1's
sequence-first variant runs on the 3 x 3 trace; q4's keepdim variant still gives `.item()`-able one-row
entropies). Correct variants are valid but written differently from full_marks (queries scaled before the
product Flax-style, a hand softmax with NumPy-style `axis=` / `keepdims=` aliases; keys drawn as columns in the
paper's layout and paired by `einsum("nd,dn->n")`; a log clamped at `finfo.min` (0 * finfo.min = 0) with a
table from `F.linear` and nanoGPT's `* (1.0 / math.sqrt(k.size(-1)))`; batched heads with a Hugging Face
extended mask made from an all-ones attention_mask, which adds zero; q5 from a correct nearest-option probe).
Every variant was checked with a throwaway script under /tmp/w62-scaled-attention/: each notebook was built
with harness.build_notebook and run top to bottom (all code cells but otter's init and `grader.check`), and
its functions were compared with plain torch (`torch.softmax` of the scaled scores, `F.scaled_dot_product_
attention` with `scale=1/sqrt(d_k)`, `nn.MultiheadAttention` without biases loaded with the same weights, a
float64 `log_softmax` entropy, the full-marks table) on shapes with T_q < T_k, T_q > T_k, T_q = 1, d_v != d_k,
d_k = 13 and a d_k argument different from the width, entropy inputs of 1 to 3 dims including saturated rows,
variances for d_k = 3, 13, 64 scaled and not (type, 10% band, reproducibility), and n_heads = 1, 2, 3, 4 with
T = 1 and T = n_heads, in float64 and float32, checking dtypes and that `attention` leaves its inputs
unchanged; the correct ones agree everywhere, and every wrong one differs, only in its `where`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""


_Q4_TABLE = '''

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

_Q4_ENTROPY = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''


CORRECT = {
    "attention_flax_prescaled_queries_numpy_style_axis_keepdims_softmax": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    Qs = Q * d_k ** -0.5                                    # scale the queries first (as Flax does)
    scores = torch.matmul(Qs, K.transpose(0, 1))
    e = torch.exp(scores - scores.amax(axis=-1, keepdims=True))   # NumPy-style keyword aliases
    weights = e / e.sum(axis=-1, keepdims=True)
    return torch.matmul(weights, V), weights
'''},
    "variance_keys_drawn_as_columns_einsum_nd_dn": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)       # queries as rows
    k = torch.randn(d_k, n_samples, generator=generator)       # keys as columns (the paper's column vectors)
    dots = torch.einsum("nd,dn->n", q, k)                      # q_n . k_n for every n
    if scaled:
        dots = dots * d_k ** -0.5
    return float(dots.var())
'''},
    "entropy_log_clamped_at_finfo_min_table_f_linear_nanogpt_scale": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    log_p = torch.log(p).clamp(min=torch.finfo(p.dtype).min)   # log 0 = -inf -> most negative finite number
    return -(p * log_p).sum(dim=-1)                            # 0 * finfo.min = 0


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = F.linear(q, k)[0]                                # q @ k.T
        scaled = raw * (1.0 / math.sqrt(k.size(-1)))           # nanoGPT's scale, k.size(-1) == d
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''},
    "mha_batched_heads_hf_extended_mask_from_all_ones": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh, Kh, Vh = [(X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V)]  # (h, T, d_k)
    attention_mask = torch.ones(T, dtype=X.dtype)              # Hugging Face: 1 = a real token, attend to it
    extended = (1.0 - attention_mask) * torch.finfo(X.dtype).min   # 0 where attended
    scores = Qh @ Kh.transpose(-2, -1) / math.sqrt(d_k) + extended
    weights = F.softmax(scores, dim=-1)
    concat = (weights @ Vh).transpose(0, 1).reshape(T, d_model)
    return concat @ W_O
'''},
    "answers_q5_from_nearest_option_probe": {
        "q5_answer": '''
# Probe: measure Var(q.k) at d = 64 and take the option whose value is nearest.
_g = torch.Generator().manual_seed(0)
_d = 64
_dots = (torch.randn(20000, _d, generator=_g) * torch.randn(20000, _d, generator=_g)).sum(-1)
_values = {"A": 1.0, "B": math.sqrt(_d), "C": float(_d), "D": float(_d) ** 2}
q5_answer = min(_values, key=lambda letter: abs(_values[letter] - _dots.var().item()))
''',
        "q6_answer": '''
q6_answer = 'A'
''',
        "q7_answer": '''
q7_answer = str("D")
'''},
}


WRONG = {
    "q1_all_true_keep_mask_filled_as_padding_mask": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    mask = torch.ones(Q.shape[0], K.shape[0], dtype=torch.bool)   # no padding here: every key is real
    scores = Q @ K.T / math.sqrt(d_k)
    scores = scores.masked_fill(mask, float("-inf"))              # apply the mask
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "A mask is built the Hugging Face / SDPA way (True = a real key, attend to it: all True "
                  "here) and applied the nn.MultiheadAttention key_padding_mask way (`masked_fill(mask, -inf)`, "
                  "True = padding); every score becomes -inf, so every weight and every output entry is NaN. "
                  "q8 calls this attention for every head.",
           "where": ["q1", "q8"]}),

    "q1_sequence_first_batch_axis_inserted_at_dim_one": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    q, k, v = Q.unsqueeze(1), K.unsqueeze(1), V.unsqueeze(1)      # (L, N=1, E), as nn.MultiheadAttention
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ v
    return out.squeeze(1), weights.squeeze(1)
'''}, {"mistake": "The inputs get a batch axis at dim 1, nn.MultiheadAttention's sequence-first (L, N, E) "
                  "layout, but the batched product is the batch-first one (matmul over the LAST two dims), so "
                  "the token axis is treated as the batch: each token is a sequence of length 1 that attends "
                  "only to itself. For T_q == T_k the output is V itself and the weights are a (T, 1) column "
                  "of ones; for T_q != T_k it raises (the batch dims do not broadcast), except when one of them "
                  "is 1, where it broadcasts to outputs of the wrong shape. q8 (T_q == T_k) silently returns "
                  "(X @ W_V) @ W_O.",
           "where": ["q1", "q8"]}),

    "q1_scores_matmul_in_bfloat16_like_jax_tpu_default_precision": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = (Q.to(torch.bfloat16) @ K.to(torch.bfloat16).T).to(Q.dtype)   # bf16 matmul, as on a TPU
    scores = scores / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "The score matmul is done in bfloat16 and cast back, the way JAX runs matmuls on a TPU at its "
                  "default precision; bfloat16 keeps only 8 bits of mantissa, so the scores are off by up to "
                  "about 1% and the weights and output miss float32 / float64 accuracy (dtype and shapes are "
                  "right). q8 calls this attention for every head.",
           "where": ["q1", "q8"]}),

    "q2_torch_normal_given_variance_of_paper_notation_as_std": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    spread = 1.0 / d_k if scaled else 1.0        # q ~ N(0, 1/d_k) folds the 1/sqrt(d_k) into q
    q = torch.normal(0.0, spread, size=(n_samples, d_k), generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    return dots.var().item()
'''}, {"mistake": "The scaling is folded into the queries by drawing q ~ N(0, 1/d_k) in the paper's notation, "
                  "where the second parameter is the VARIANCE, and passing 1/d_k to `torch.normal`, whose "
                  "second argument is the standard deviation; q's coordinates get variance 1/d_k^2, so with "
                  "scaled=True the result is about 1/d_k instead of 1 (right only for d_k = 1). The unscaled "
                  "branch is right.",
           "where": ["q2"]}),

    "q4_table_sdpa_style_scale_multiplier_used_as_divisor": ({"softmax_entropy": _Q4_ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scale = 1.0 / math.sqrt(d)                 # the scale factor, as SDPA's scale= takes it
        scaled = raw / scale
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The scale is written `scale = 1 / sqrt(d)`, the multiplier convention of SDPA's and JAX's "
                  "`scale=` keyword, and then divided by, as in the lesson's `raw / sqrt(d)`: the 'scaled' "
                  "scores are raw * sqrt(d), wider instead of narrower (scaled_std = raw_std * sqrt(d), "
                  "H_scaled near 0). raw_std and H_raw are right; softmax_entropy is the full-marks one.",
           "where": ["q4"]}),

    "q4_entropy_identity_tf_logsumexp_keepdims_broadcasts_rows": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    lse = torch.logsumexp(logits, dim=-1, keepdim=True)       # tf.reduce_logsumexp(..., keepdims=True)
    return lse - (p * logits).sum(dim=-1)                    # H = logsumexp(s) - sum_j p_j s_j
''' + _Q4_TABLE}, {"mistake": "The entropy uses the identity H = logsumexp(s) - sum_j p_j s_j with the log-sum-exp "
                  "kept 'keepdims=True' as in TensorFlow code, where it is subtracted from the logits before "
                  "the sum; here it is subtracted from the already-reduced sum, so a (..., 1) broadcasts "
                  "against (...): a batch of B rows gives a (B, B) matrix (entry [i, j] = lse_i - E_j) and one "
                  "row gives shape (1,) instead of (). The diagonal values are right; entropy_table still "
                  "works through `.item()`.",
           "where": ["q4"]}),

    "q4_entropy_cross_entropy_in_tf_labels_first_order": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    T = logits.shape[-1]
    p = F.softmax(logits, dim=-1)
    # H(p) = cross-entropy of p with itself: softmax_cross_entropy_with_logits(labels=p, logits=logits)
    H = F.cross_entropy(p.reshape(-1, T), logits.reshape(-1, T), reduction="none")
    return H.reshape(logits.shape[:-1])
''' + _Q4_TABLE}, {"mistake": "H(p) is computed as the cross-entropy of p with itself, with the arguments in the order of "
                  "TensorFlow's `softmax_cross_entropy_with_logits(labels, logits)`; `F.cross_entropy` takes "
                  "(input logits, target), so p is used as the logits and the raw logits as the target "
                  "'probabilities': the result is -sum_j s_j log softmax(p)_j, wrong values (shape and dtype "
                  "right). entropy_table is the full-marks one but shows the wrong entropies.",
           "where": ["q4"]}),

    "q5_answer_probe_through_default_initialised_linear_layers": ({"q5_answer": '''
# Probe: queries and keys as a Transformer makes them, through (untrained) linear layers; d = 64.
torch.manual_seed(0)
_d = 64
_to_q = torch.nn.Linear(_d, _d, bias=False)
_to_k = torch.nn.Linear(_d, _d, bias=False)
with torch.no_grad():
    _q = _to_q(torch.randn(20000, _d))
    _k = _to_k(torch.randn(20000, _d))
    _measured = (_q * _k).sum(-1).var().item()
_values = {"A": 1.0, "B": math.sqrt(_d), "C": float(_d), "D": float(_d) ** 2}
q5_answer = min(_values, key=lambda letter: abs(_values[letter] - _measured))
'''}, {"mistake": "The letter comes from a probe whose q and k are the outputs of nn.Linear layers at PyTorch's "
                  "default initialisation (weights U(-1/sqrt(d), 1/sqrt(d)), so each coordinate has variance "
                  "1/3, not the question's N(0, 1)); the measured Var(q.k) is about d/9, about 7 at d = 64, "
                  "nearest to the option value sqrt(64) = 8, so 'B' instead of 'C'.",
           "where": ["q5"]}),

    "q6_answer_probe_tf_minus_1e9_formula_on_hf_keep_mask": ({"q6_answer": '''
# Probe: self-attention with no projections and an attention mask that keeps every token.
torch.manual_seed(0)
_T, _d = 5, 8
_X = torch.randn(_T, _d)
_mask = torch.ones(_T, _T)                         # attention_mask: 1 = attend
_logits = _X @ _X.T / math.sqrt(_d)
_logits = _logits + _mask * -1e9                   # scaled_attention_logits += (mask * -1e9)
_out = F.softmax(_logits, dim=-1) @ _X
q6_answer = "D" if torch.allclose(_out, _X.mean(0).expand_as(_X)) else "A"
'''}, {"mistake": "The letter comes from a probe that builds a Hugging Face style mask (1 = attend, all ones) "
                  "and adds it with the TensorFlow tutorial's formula `logits += mask * -1e9` (where 1 = "
                  "padding): every logit gets -1e9, which in float32 (spacing 64 at 1e9) wipes out the real "
                  "scores, so the weights are uniform and the output is the plain mean of the rows: 'D' "
                  "instead of 'A'.",
           "where": ["q6"]}),

    "q7_answer_probe_sdpa_given_mha_polarity_padding_mask": ({"q7_answer": '''
# Probe: one query, five real keys and one padding key (True = padding, as in key_padding_mask).
torch.manual_seed(0)
_q = torch.randn(1, 1, 16)
_k = torch.randn(1, 6, 16)
_v = torch.randn(1, 6, 4)
_pad = torch.tensor([False, False, False, False, False, True])
_out = F.scaled_dot_product_attention(_q, _k, _v, attn_mask=_pad)
_one_value = any(torch.allclose(_out[0, 0], _v[0, j]) for j in range(6))
q7_answer = "C" if _one_value else "D"             # the output was exactly one key's value
'''}, {"mistake": "The letter comes from a probe that passes F.scaled_dot_product_attention a boolean padding "
                  "mask in nn.MultiheadAttention's polarity (True = ignore this key); for SDPA a True means "
                  "'take part', so only the padding key is attended, the output is exactly that key's value, "
                  "and the student concludes attention returns the best key's value only ('C') instead of 'D'.",
           "where": ["q7"]}),

    "q8_attention_pair_appended_as_if_sdpa_returned_output_only": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k))   # the head's output
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "Each head's result is appended as it comes back from `attention`, as if it returned only the "
                  "output like F.scaled_dot_product_attention; the notebook's `attention` returns the pair "
                  "(output, weights), so `heads` is a list of tuples and `torch.cat` raises a TypeError, for "
                  "any number of heads.",
           "where": ["q8"]}),

    "q8_hf_extended_mask_from_tf_polarity_zero_padding_mask": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh, Kh, Vh = [(X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V)]  # (h, T, d_k)
    padding_mask = torch.zeros(T, dtype=X.dtype)               # no padding anywhere
    extended = (1.0 - padding_mask) * torch.finfo(X.dtype).min
    scores = Qh @ Kh.transpose(-2, -1) / math.sqrt(d_k) + extended
    weights = F.softmax(scores, dim=-1)
    concat = (weights @ Vh).transpose(0, 1).reshape(T, d_model)
    return concat @ W_O
'''}, {"mistake": "The mask is made in the TensorFlow / key_padding_mask polarity (1 = padding, so all zeros for "
                  "'no padding') and turned into an additive mask with Hugging Face's extended-mask formula "
                  "`(1 - mask) * finfo.min`, which expects 1 = attend: every score gets finfo.min added, which "
                  "swallows the real scores, so every head's weights are uniform and each head outputs the "
                  "mean of its value rows (right only for T = 1).",
           "where": ["q8"]}),

    "q8_heads_written_with_out_of_place_index_copy": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros_like(Q)
    for h in range(n_heads):
        idx = torch.arange(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, idx], K[:, idx], V[:, idx], d_k)
        concat.index_copy(1, idx, out_h)                        # put head h into its columns
    return concat @ W_O
'''}, {"mistake": "Each head is written into the (T, d_model) buffer with `concat.index_copy(1, idx, out_h)`, "
                  "expected to work in place like NumPy's `np.put`; `index_copy` (no underscore) returns a new "
                  "tensor and the result is thrown away, so the buffer stays all zeros and the function returns "
                  "zeros (`index_copy_` or `concat = concat.index_copy(...)` was meant).",
           "where": ["q8"]}),

    "q8_flax_length_heads_layout_kept_for_values": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).reshape(T, n_heads, d_k)                     # [length, heads, head_dim], as in Flax
    Kh = (X @ W_K).reshape(T, n_heads, d_k)
    Vh = (X @ W_V).reshape(T, n_heads, d_k)
    scores = torch.einsum("qhd,khd->hqk", Qh, Kh) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)                         # (heads, T_q, T_k)
    out = weights @ Vh                                          # (heads, T_q, head_dim)
    return out.transpose(0, 1).reshape(T, d_model) @ W_O
'''}, {"mistake": "The heads are kept in Flax's [length, heads, head_dim] layout and the scores einsum is right "
                  "((heads, T_q, T_k)), but the values are mixed with a head-first batched matmul while still "
                  "(T, heads, head_dim): the batch dims (heads vs T) do not broadcast and it raises for most "
                  "shapes; when T == n_heads it runs and silently mixes rows of the wrong head and token.",
           "where": ["q8"]}),
}
