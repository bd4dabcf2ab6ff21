"""Eighty-seventh blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the other blind sets' code. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention(Q, K, V, d_k)` returning
`(output, weights)`; q2 `dot_product_variance`; q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one
letter each; q8 a loop over heads calling the 2-D `attention`; the notebook has no masks and no batch axis), the
student-facing question text, `tests/heldout/harness.py`, blind85.py for the format only, and only the variant
NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: CODE WRITTEN FOR TRAINING, NOT ONLY FOR THE QUESTION. Each wrong cell is careful code by a
student who already trains models and makes every function ready for a training loop, and each slip is one that
habit invites. q1: the weights label-smoothed towards uniform (0.9 * softmax + 0.1 / T_k) as a regulariser; a
key-padding mask built from default lengths that counts positions from 1 and tests `>=`, so the last real key is
always masked; the score matrix built under `torch.no_grad()` to save memory, which cuts the gradient to Q and K
(values right). q2: the variance taken with the population divisor n (`unbiased=False`, as normalisation layers
do); the caller's generator rewound to its initial seed on every call "for reproducibility". q4: the table's keys
drawn at a LeCun initialisation scale (randn / sqrt(d)); logits exactly 0 masked out as zero padding; the entropy
computed under `torch.no_grad()` as a logged metric (values right, not differentiable). q5: a probe that reduces
a batch of score rows with a loss-style sum over the keys (variance d_k * T_k = d_k^2, so D). q6: a probe run at
an inference temperature of 0.05, where every row collapses onto its best match (so C). q7: a gradient probe that
clamps the returned weights in place before backward; the "modified by an inplace operation" error is read as
"no useful gradient" (so C). q8: QK layer norm on each head's queries and keys for stability; each head's output
detached to free its graph (values right, gradients only to W_O); an all-zero "sink" key and value prepended to
every head (quiet attention: the softmax denominator gains 1). Spread: q1 x3, q2 x2, q4 x3, q5 x1, q6 x1, q7 x1,
q8 x3 (q3 is a hand-graded markdown answer). The q1 variants also change q8, which calls `attention`. The correct
variants keep the same habits and stay right: a batch-aware hand softmax with a detached row max (shift
invariance keeps the gradient exact), optional key lengths and dropout that are off by default, a log_softmax
entropy, the table under `torch.no_grad()`; q2 with in-place products under `torch.no_grad()` and
`var(correction=1)`; q8 with the heads as a batch axis through a batch-aware `attention`, or a loop that
accumulates head_h @ W_O[rows of head h] into a buffer made with `X.new_zeros`; letters with a training
practitioner's reasons.

Public material used (nothing copied verbatim): TimDettmers/ConvE issue #55 (a label-smoothing line that adds
1 / size instead of eps / size: smoothing applied to probabilities in the wrong form changes every value; grounds
the smoothed weights); tloen/alpaca-lora PR #107 (an attention mask built from token lengths that gets the padded
boundary wrong, so the wrong positions are attended; grounds the off-by-one length mask); bboylyg/NAD issue #8
and lucidrains/memorizing-transformers-pytorch issue #1 (a `detach()` placed before backward, and detached
memories whose backward "won't reach the K and V transforms"; ground the no_grad scores, the no_grad entropy and
the detached heads); AggMan96/RK-Net issue #9 and idiap/fast-transformers PR #10 (attention maps and accumulators
updated in place for speed or memory make backward fail with "modified by an inplace operation"; grounds the q7
probe); Dao-AILab/flash-attention issue #616, tracel-ai/burn issue #691 and kyegomez/AttentionIsOFFByOne issue #1
(quiet softmax / softmax1, suggested as "adding a key that's all zero", which adds 1 to the denominator; grounds
the zero sink token); mosaicml/examples PR #174 (query/key LayerNorm added to attention for training stability;
grounds the QK-norm heads).

How the variants were checked: /tmp/w87-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check` cells
skipped) and compared with full_marks and with independent references: `attention` against a float64 softmax
reference in float64, float32 and float16 (T_q != T_k, d_v != d_k, T_q = 1, T_k = 1, d_k not a square, logits
30x wider), and its gradients with respect to Q, K, V (all together and one at a time); `dot_product_variance`
for d_k 1..100, n_samples 1, 2, 7, 1000, 10000, scaled and not, with fresh and already-used generators, the
generator's state after the call and two consecutive calls on one generator; `softmax_entropy` on 1-D, 2-D, 3-D,
(1, T), wide and saturated rows, an all-zero row and [0, 1, 2] (float64, float32, float16 where full_marks
itself is defined), dtype and shape kept, and its gradient; `entropy_table` with the default and other dims and
seeds; the letters against C / A / D; `multi_head_attention` against a reference reshape and
torch.nn.MultiheadAttention (no biases), heads 1 to 6, T != d_model, float32 and float64, and the gradients to
X and all four weights. The correct variants agree everywhere (the first and third are also right on 4-D
batched attention); each wrong one differs, and only in the questions of its "where"."""

CORRECT = {
    'q1_batch_aware_hand_softmax_detached_row_max_q4_log_softmax_entropy': {
        'attention': '''
def attention(Q, K, V, d_k, key_lengths=None, dropout_p=0.0, training=False):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1.
    Works on any leading batch axes; key_lengths (optional) masks padded keys; dropout only in training."""
    scale = 1.0 / math.sqrt(d_k)
    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale
    if key_lengths is not None:
        pad = torch.arange(K.shape[-2], device=K.device) >= key_lengths[..., None]
        scores = scores.masked_fill(pad.unsqueeze(-2), float("-inf"))
    # stable softmax: the row max only shifts the row, so it can be detached without changing the gradient
    row_max = scores.amax(dim=-1, keepdim=True).detach()
    e = torch.exp(scores - row_max)
    weights = e / e.sum(dim=-1, keepdim=True)
    if training and dropout_p > 0:
        weights = F.dropout(weights, p=dropout_p)
    out = torch.matmul(weights, V)
    return out, weights
''',
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logp = F.log_softmax(logits, dim=-1)          # finite even where p underflows to 0
    return -(logp.exp() * logp).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    with torch.no_grad():                          # a measurement, no graph needed
        for d in dims:
            torch.manual_seed(seed)
            q = torch.randn(1, d)
            k = torch.randn(5, d)
            raw = (q @ k.transpose(-2, -1))[0]
            scaled = raw / d ** 0.5
            results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    },

    'q2_in_place_products_under_no_grad': {
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    with torch.no_grad():                          # pure measurement: no autograd bookkeeping
        q = torch.randn(n_samples, d_k, generator=generator)
        k = torch.randn(n_samples, d_k, generator=generator)
        dots = q.mul_(k).sum(dim=-1)               # q is a scratch buffer, reuse its memory
        if scaled:
            dots.div_(math.sqrt(d_k))
        return dots.var(correction=1).item()       # sample variance (divide by n - 1)
''',
    },

    'q8_heads_as_a_batch_axis_through_batch_aware_attention': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v).

    Returns (output, weights): output (..., T_q, d_v), weights (..., T_q, T_k) with rows summing to 1."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape[-2], X.shape[-1]
    d_k = d_model // n_heads

    def split(M):                                  # (T, d_model) -> (n_heads, T, d_k), head h = columns h*d_k..
        return M.reshape(T, n_heads, d_k).transpose(0, 1)

    Q, K, V = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    out, _ = attention(Q, K, V, d_k)               # the heads ride along as a batch axis
    concat = out.transpose(0, 1).reshape(T, d_model)
    return concat @ W_O
''',
    },

    'letters_reasoned_from_training_q8_blockwise_output_projection': {
        'q5_answer': '''
# q.k is a sum of d_k independent products of variance 1, so the variances add up: d_k
# (that is exactly why the scores are divided by sqrt(d_k) before the softmax in training)
q5_answer = "C"
''',
        'q6_answer': '''
# no projections: every token is a softmax-weighted average of all the rows, weights from X_i . X_j / sqrt(d_k)
q6_answer = "A"
''',
        'q7_answer': '''
# soft lookup: every key gets a weight, so gradients reach every query, key and value
q7_answer = "D"
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out = X.new_zeros(X.shape[:-1] + (d_model,))   # same dtype and device as the input
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[..., cols], K[..., cols], V[..., cols], d_k)
        # concat @ W_O == sum over heads of head_h @ (the rows of W_O that head h feeds)
        out = out + out_h @ W_O[cols, :]
    return out
''',
    },
}

WRONG = {
    'q1_weights_label_smoothed_toward_uniform': ({
        'attention': '''
def attention(Q, K, V, d_k, smoothing=0.1):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    # label-smoothing style regulariser: keep a little mass on every key (rows still sum to 1)
    T_k = weights.shape[-1]
    weights = (1.0 - smoothing) * weights + smoothing / T_k
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The attention weights are 'label-smoothed' by default: 0.9 * softmax + 0.1 / T_k. The rows still "
                   "sum to 1, but every weight is pulled towards the uniform 1 / T_k, so the weights and the output "
                   "are not softmax(QK^T / sqrt(d_k)) and softmax(...) V (wrong for every input with T_k > 1). "
                   "Nothing asked for smoothing; the q8 heads inherit the smoothed weights.",
        "where": ['q1', 'q8']}),

    'q1_default_key_lengths_mask_off_by_one_hides_last_key': ({
        'attention': '''
def attention(Q, K, V, d_k, key_lengths=None):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1.
    key_lengths: number of real (non-padded) keys; defaults to all of them."""
    T_k = K.shape[-2]
    if key_lengths is None:
        key_lengths = torch.full(K.shape[:-2], T_k, device=K.device)
    # key positions counted 1..T_k; a key beyond the length is padding
    positions = torch.arange(1, T_k + 1, device=K.device)
    pad = positions >= key_lengths[..., None]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores.masked_fill(pad.unsqueeze(-2), float("-inf"))
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "A padding mask built from key lengths (default: all T_k keys real) counts positions from 1 but "
                   "tests `position >= length` instead of `>`: the last real key is always treated as padding. Its "
                   "weight is 0 and the other weights are renormalised without it, so weights and output are wrong "
                   "for every input (with a single key the whole row is masked and gives NaN). The q8 heads "
                   "inherit it.",
        "where": ['q1', 'q8']}),

    'q1_scores_built_under_no_grad_to_save_memory': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # the (T_q, T_k) score matrix is the big activation: build it without recording a graph
    with torch.no_grad():
        scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The scores QK^T / sqrt(d_k) are computed inside `torch.no_grad()` to save memory, which cuts the "
                   "graph: the values of output and weights are right, but no gradient flows back to Q or K (their "
                   ".grad stays None; if only Q or K requires grad, backward raises). Attention must stay "
                   "differentiable in the queries and keys; in q8 the gradients to W_Q, W_K (and through them X) "
                   "are lost the same way.",
        "where": ['q1', 'q8']}),

    'q2_variance_with_population_divisor_like_batch_norm': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    # batch statistics, the way BatchNorm / LayerNorm compute them (divide by n)
    return dots.var(unbiased=False).item()
''',
    }, {
        "mistake": "The variance divides by n (population variance, `unbiased=False`, as normalisation layers do) "
                   "instead of the sample variance's n - 1: every result is (n - 1) / n times the right one for the "
                   "same draws (half of it with 2 samples; 0 instead of NaN with 1 sample), not the sample "
                   "variance (divide by n - 1) the question asks for.",
        "where": ['q2']}),

    'q2_generator_rewound_to_its_initial_seed_each_call': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # rewind to the caller's seed so every call (and every rerun of the cell) is reproducible
    generator.manual_seed(generator.initial_seed())
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The function resets the caller's generator to its initial seed on every call: a generator that "
                   "was already used (or set with set_state) is rewound, so the draws are not the next numbers of "
                   "the stream the caller passed, and consecutive calls with one generator (the scaled and "
                   "unscaled runs of the demo loop) reuse the very same pairs instead of fresh ones.",
        "where": ['q2']}),

    'q4_table_keys_drawn_at_lecun_init_scale': ({
        'entropy_table': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        # keys as a key projection produces them at (LeCun) initialisation: std 1 / sqrt(d)
        k = torch.randn(5, d) / d ** 0.5
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The table draws the keys at an initialisation scale, torch.randn(5, d) / sqrt(d), instead of "
                   "plain torch.randn(5, d) as asked: every raw score is divided by sqrt(d), so raw_std, scaled_std, "
                   "H_raw and H_scaled are all off (the raw row no longer widens with d and never collapses; e.g. "
                   "at d = 256 raw_std is about 1.39, not 22.2). softmax_entropy itself is right.",
        "where": ['q4']}),

    'q4_entropy_zero_logits_treated_as_padding': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # my batches are zero-padded: a logit of exactly 0 is a padded key, keep it out of the softmax
    pad = logits == 0
    logp = F.log_softmax(logits.masked_fill(pad, float("-inf")), dim=-1)
    # padded terms (0 * -inf) and fully padded rows give NaN: count them as 0
    return -(logp.exp() * logp).nan_to_num(0.0).sum(dim=-1)


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
''',
    }, {
        "mistake": "softmax_entropy treats every logit that is exactly 0 as a padded key and masks it out of the "
                   "softmax: a row holding a 0 gets the entropy of the other entries only (logits [0, 1, 2] give "
                   "about 0.58 instead of 0.83), and an all-zero row, the uniform case that should give ln T, gives "
                   "0. Rows without an exact zero are right, so the random table is unchanged.",
        "where": ['q4']}),

    'q4_entropy_under_no_grad_as_a_logged_metric': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # a diagnostic I log every step: no graph needed
    with torch.no_grad():
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
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "softmax_entropy is computed inside `torch.no_grad()` as if it were only a logged metric: the "
                   "values are right, but the result does not require grad even when the logits do, so the "
                   "entropy cannot be differentiated (backward raises; it cannot serve as an entropy term of a "
                   "loss, and its gradient -sum_j p_j (ln p_j + H) d s_j is lost).",
        "where": ['q4']}),

    'q5_answer_d_from_probe_scores_summed_over_keys_like_a_loss': ({
        'q5_answer': '''
# probe it the way I check activations in a model: a batch of score matrices, reduced like a loss
_g = torch.Generator().manual_seed(0)
_d = 16
_Qp = torch.randn(2000, _d, _d, generator=_g)      # (batch, tokens, d_k)
_Kp = torch.randn(2000, _d, _d, generator=_g)
_scores = _Qp @ _Kp.transpose(-2, -1)
_measured = _scores.sum(dim=-1).var().item()       # reduction="sum" over the keys, as in my losses
_options = {"A": 1.0, "B": _d ** 0.5, "C": float(_d), "D": float(_d ** 2)}
q5_answer = min(_options, key=lambda L: abs(math.log(_measured / _options[L])))
print(f"measured {_measured:.1f} at d_k = {_d} -> {q5_answer}")
''',
    }, {
        "mistake": "The probe measures the variance of a row of scores summed over the keys (a loss-style "
                   "reduction over 16 keys of width 16), which is d_k * T_k = 256 = d_k^2 here, not the variance "
                   "of one dot product q.k (d_k = 16), so it picks D instead of C.",
        "where": ['q5']}),

    'q6_answer_c_from_probe_at_inference_temperature': ({
        'q6_answer': '''
# check the options on a probe run the way I decode: attention sharpened with a low temperature
_g = torch.Generator().manual_seed(1)
_X = torch.randn(6, 8, generator=_g)
_tau = 0.05                                         # the temperature I sample with at inference
_w = F.softmax(_X @ _X.T / (math.sqrt(8) * _tau), dim=-1)
_out = _w @ _X
_best_row = _X[(_X @ _X.T).argmax(dim=-1)]
q6_answer = "C" if torch.allclose(_out, _best_row, atol=1e-3) else "A"
print(q6_answer)
''',
    }, {
        "mistake": "The probe divides the scores by an extra temperature of 0.05 that the question does not have; "
                   "so sharpened, every row collapses onto its best-matching row and the student picks C, but "
                   "plain self-attention (temperature 1) gives the softmax-weighted average of all rows, A.",
        "where": ['q6']}),

    'q7_answer_c_from_gradient_probe_broken_by_in_place_clamp': ({
        'q7_answer': '''
# is there a useful gradient? probe it like a training step
_g = torch.Generator().manual_seed(0)
_Qp = torch.randn(3, 4, generator=_g).requires_grad_()
_Kp = torch.randn(3, 4, generator=_g)
_Vp = torch.randn(3, 4, generator=_g)
_outp, _Wp = attention(_Qp, _Kp, _Vp, 4)
_Wp.clamp_(min=1e-6)        # keep log(weights) finite for my attention-entropy logging, in place to save memory
try:
    _outp.sum().backward()
    _has_grad = _Qp.grad is not None and _Qp.grad.abs().sum().item() > 0
except RuntimeError:        # backward fails: nothing to differentiate through
    _has_grad = False
q7_answer = "D" if _has_grad else "C"
print(q7_answer)
''',
    }, {
        "mistake": "The gradient probe clamps the returned weights in place after the forward pass; those weights "
                   "were saved for the backward of weights @ V, so backward raises 'modified by an inplace "
                   "operation', which the student reads as 'attention has no useful gradient' and answers C. "
                   "Attention is a soft, differentiable lookup: D.",
        "where": ['q7']}),

    'q8_qk_layer_norm_per_head_for_stability': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        # QK-norm: normalise each head's queries and keys so the logits cannot blow up in training
        q_h = F.layer_norm(Q[:, cols], (d_k,))
        k_h = F.layer_norm(K[:, cols], (d_k,))
        out_h, _ = attention(q_h, k_h, V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "Each head's queries and keys are passed through a layer norm (QK-norm, a training-stability "
                   "extra) before attention: every query and key row is centred and rescaled to unit variance, so "
                   "the scores, weights and output differ from plain multi-head attention (with d_k = 1 every "
                   "score becomes 0 and the weights uniform).",
        "where": ['q8']}),

    'q8_head_outputs_detached_to_free_each_heads_graph': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h.detach())   # free this head's graph before the next head runs
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "Each head's output is detached before the concatenation to save memory: the returned values "
                   "are right, but the only gradient left is the one to W_O; X, W_Q, W_K and W_V get none (their "
                   ".grad stays None), so the layer cannot be trained through its heads.",
        "where": ['q8']}),

    'q8_zero_key_value_sink_prepended_per_head': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        # a zero "sink" token per head (quiet attention): a head with nothing to read can park its weight there
        sink = X.new_zeros(1, d_k)
        k_h = torch.cat([sink, K[:, cols]], dim=0)
        v_h = torch.cat([sink, V[:, cols]], dim=0)
        out_h, _ = attention(Q[:, cols], k_h, v_h, d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "Every head gets an extra all-zero key and value (an attention 'sink'): the zero key scores 0, "
                   "so each softmax denominator grows by exp(0) = 1 while the zero value adds nothing. The head "
                   "outputs are sum_j exp(s_j) v_j / (1 + sum_j exp(s_j)), shrunk towards 0, and the layer's output "
                   "is wrong for every input.",
        "where": ['q8']}),
}
