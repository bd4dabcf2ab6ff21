"""Eighty-seventh blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind85.py (for the format only), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: CODE WRITTEN FOR TRAINING, NOT ONLY FOR THE QUESTION. Each wrong cell is written by a
student who already trains models and makes every answer "ready for a training loop" (autograd-aware,
batch-aware, mode-aware, dtype-aware, with extras such as dropout, soft-capping, smoothing, padding masks built
from lengths), and the one slip is one that this habit invites: q1's output width taken after the output
projection back to the model width (64), and q1's weights shape with the usual 8 heads folded into the batch
axis as in a bmm-based multi-head layer (32, 10, 10); q2's example re-drawn "in float64 for the statistics"
with the same seed, which is a different draw, and q2's variances taken over a key padding mask built from
lengths with `< length - 1`, which drops the last key; q3's softmax with a label smoothing of 0.1 (the
Transformer paper's training setting) always on, and q3's memory-lean custom autograd Function whose
hand-written backward leaves the output out of the inner sum (right values, wrong gradients); q4's causal mask
built like a padding mask from prefix lengths laid along the key axis, which keeps the future instead of the
past; q5's attention dropout gated on `torch.is_grad_enabled()` instead of a training flag, q5's logits
soft-capped at 50 as in Gemma 2, and q5's row-max shift written as `(scores - max).detach()`, which cuts the
gradient to Q and K instead of only detaching the max; q6's causal keep mask built from prefix lengths with
`<=`, which lets each query see one key ahead; q7 answered from a future-leak test (which values get
gradient) that both methods pass; q8's multiply-adds counted for a training step (forward plus backward, 3x),
and q8's cost ratio taken at a fixed token budget per batch (halving the batch when T doubles gives 2).
The correct variants keep the same habits (detached max, safe in-place ops, promotion of half inputs to
float32, dropout off by default, soft-cap off by default, a correct custom backward, length masks with the
right axis and bound, float64 copies of the same example) and get every answer right.

Public material used (search tool, corpus `issues`):
- pytorch/pytorch issue #54625 (masked_fill_ in place on attention scores inside a module, wrong gradients) and
  pytorch/xla issue #2369 (fairseq's `q *= self.scaling` in place: "one of the variables needed for gradient
  computation has been modified by an inplace operation"): the autograd-aware habits; ground q3's custom
  backward, q5's detached shift and the correct variants' in-place ops that autograd allows.
- NVIDIA/DeepLearningExamples PR #765 and omertov/encoder4editing PR #100 (`squeeze()` also drops the batch axis
  when the batch is one): the batch-aware habit; ground q1's heads folded into the batch axis.
- ajhalthor/Transformer-Neural-Network issue #15 (padding mask `np.arange(length + 1, max_len)` off by one) and
  wenet-e2e/wenet issue #2012 (`>=` vs `<` in make_pad_mask from lengths): ground q2's and q6's length masks
  off by one and q4's length mask laid on the wrong axis.
- coleygroup/ms-pred issue #38 and facebookresearch/vjepa2 PR #160 (attention dropout left on at eval because
  the functional call has no training flag; the mode has to be passed by hand), meta-pytorch/torchtune PR
  #1049: ground q5's dropout gated on the grad mode.
- Soft-capping (q5), label smoothing of 0.1 (q3) and the training-step and token-budget counts (q8) are the
  practitioner's extras and reasoning this round's brief names, each written in a form of its own.

How the variants were checked: a throwaway script under /tmp/w87-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with the full_marks notebook's own (and torch.softmax / F.scaled_dot_product_attention)
on many inputs: several shapes, float64/float32/float16/bfloat16, 3-D and 4-D, T_q != T_k, d_v != d_k, 2-D,
batched and random masks, fully masked rows, large float16 logits, positive and negative `dim`, gradients to
the inputs (with random upstream gradients) and input tensors left unchanged. Every correct variant agrees
everywhere (float64 to 1e-9 relative, gradients to 1e-8); every wrong one differs in its "where" questions and only there, and
runs the notebook's own cells without error.

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong, "where" lists the
questions whose tests may lose points.
"""

CORRECT = {
    "training_ready_softmax_detached_max_in_place_exp_and_in_place_row_fix": {
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows.

    The max is a constant shift (softmax does not change under it), so it is kept out of the graph; the
    exponential is taken in place on the fresh shifted tensor to save one buffer in training.
    """
    m = x.amax(dim=dim, keepdim=True).detach()
    exps = (x - m).exp_()                                   # (x - m) is a new tensor: safe to overwrite
    denom = exps.sum(dim=dim, keepdim=True).clamp(min=torch.finfo(exps.dtype).tiny)   # >= 1 anyway
    return exps / denom
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1))
    scores.div_(math.sqrt(d_k))                 # in place on the matmul output: autograd does not need it
    if mask is not None:
        mask = mask.to(device=scores.device, dtype=torch.bool)
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        has_key = mask.any(dim=-1, keepdim=True)            # (..., T_q, 1), broadcasts like the mask
        weights.masked_fill_(~has_key, 0.0)                 # fully masked queries: NaN row -> zeros
    return torch.matmul(weights, V)
''',
    },
    "mixed_precision_aware_sdpa_with_dropout_off_by_default_and_length_built_causal_mask": {
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.

    Built like a padding mask from lengths: query i sees a prefix of i + 1 keys.
    """
    if T_k is None:
        T_k = T_q
    prefix_len = torch.arange(1, T_q + 1)                          # (T_q,) one length per query
    return torch.arange(T_k)[None, :] < prefix_len[:, None]        # (T_q, T_k)
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, dropout_p=0.0, training=False):
    """softmax(Q K^T / sqrt(d_k)) V, True in mask = may attend. Dropout is off unless asked for.

    Half-precision inputs are computed in float32 and cast back (as autocast keeps softmax in float32);
    float32 and float64 inputs are computed in their own dtype.
    """
    out_dtype = Q.dtype
    acc = torch.promote_types(Q.dtype, torch.float32)
    q, k, v = Q.to(acc), K.to(acc), V.to(acc)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    if training and dropout_p > 0:
        weights = F.dropout(weights, p=dropout_p, training=True)
    return (weights @ v).to(out_dtype)
''',
        "weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
# causal keep mask from prefix lengths, as for a padded batch: query i keeps keys 0..i
prefix_len = torch.arange(1, 4)
keep = torch.arange(3)[None, :] < prefix_len[:, None]
weights3_causal = stable_softmax(scores3.masked_fill(~keep, float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
''',
    },
    "custom_autograd_softmax_with_the_right_backward_and_soft_cap_off_by_default": {
        "stable_softmax": '''class _StableSoftmax(torch.autograd.Function):
    """Memory-lean softmax: saves only its output for the backward pass."""

    @staticmethod
    def forward(ctx, x, dim):
        shifted = x - x.amax(dim=dim, keepdim=True)
        exps = torch.exp(shifted)
        y = exps / exps.sum(dim=dim, keepdim=True)
        ctx.dim = dim
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_y):
        (y,) = ctx.saved_tensors
        # d softmax: y * (g - sum_j g_j y_j), the sum over the softmax axis
        grad_x = y * (grad_y - (grad_y * y).sum(dim=ctx.dim, keepdim=True))
        return grad_x, None


def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    return _StableSoftmax.apply(x, dim)
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, softcap=None):
    """softmax(Q K^T / sqrt(d_k)) V, True in mask = may attend.

    `softcap` (Gemma-2 style logit soft-capping) is only applied when a model asks for it.
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if softcap is not None:
        scores = softcap * torch.tanh(scores / softcap)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        keeps_a_key = mask.any(dim=-1, keepdim=True)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~keeps_a_key, 0.0)
    return torch.matmul(weights, V)
''',
    },
    "statistics_in_float64_and_counts_from_helpers_probed_without_grad": {
        "weights_shape": '''with torch.no_grad():                                # a shape probe, nothing to train
    _q, _k, _v = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)
    _w = _q @ _k.transpose(-2, -1)
    _o = _w @ _v
weights_shape = tuple(int(s) for s in _w.shape)
out_shape = tuple(int(s) for s in _o.shape)
''',
        "raw_score_var": '''# statistics in float64: the same example, upcast (not re-drawn)
Q64, K64 = Q.double(), K.double()
d_k = Q.shape[-1]
raw_scores = Q64 @ K64.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
# padding-aware version for later batches: both sequences are full here, so every key counts
lengths = torch.tensor([5, 5])
key_valid = torch.arange(K.shape[1])[None, :] < lengths[:, None]
assert key_valid.all()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        "q_trap_answer": '''# leak test plus the row sums: the shortcut hides the future, but its rows no longer sum to 1
torch.manual_seed(1)
_s = torch.randn(5, 5)
_keep = causal_mask(5)
_w = F.softmax(_s, dim=-1)
_w[~_keep] = 0.0
_proper = stable_softmax(_s.masked_fill(~_keep, float("-inf")), dim=-1)
rows_sum_to_one = torch.allclose(_w.sum(-1), torch.ones(5))
q_trap_answer = "A" if rows_sum_to_one and torch.allclose(_w, _proper) else "C"
''',
        "attn_entries": '''def _score_cost(T, d_k, n_heads=1, batch=1):
    """(entries of the weight matrix, multiply-adds of Q @ K^T) for the forward pass."""
    return batch * n_heads * T * T, batch * n_heads * T * T * d_k

attn_entries, score_madds = _score_cost(1024, 64)
cost_ratio = _score_cost(2048, 64)[1] // _score_cost(1024, 64)[1]
''',
    },
}

WRONG = {
    "q1_out_width_taken_after_the_output_projection_back_to_the_model_width": (
        {"weights_shape": '''# Q, K: (B, T, d_model = 64), V: (B, T, 128). In my blocks the attention output goes through
# out_proj = nn.Linear(d_v, d_model), so that the residual x + attn(x) lines up.
B, T, d_model, d_v = 4, 10, 64, 128
weights_shape = (B, T, T)
out_shape = (B, T, d_model)
'''},
        {"mistake": "out_shape is given after an output projection back to the model width 64, which the "
                    "question does not have: attention alone returns one value mixture of width d_v = 128 per "
                    "query, (4, 10, 128), not (4, 10, 64)",
         "where": ["q1"]}),
    "q1_weights_shape_with_eight_heads_folded_into_the_batch_as_in_a_bmm_layer": (
        {"weights_shape": '''B, T, d_k, d_v = 4, 10, 64, 128
n_heads = 8                           # the usual split of a 64-wide layer into heads of 8
# as in my bmm-based multi-head layer: heads folded into the batch axis, (B * n_heads, T, T)
weights_shape = (B * n_heads, T, T)
out_shape = (B, T, d_v)               # heads merged back after the product with V
'''},
        {"mistake": "the weights shape assumes a multi-head layer with 8 heads folded into the batch axis, "
                    "(32, 10, 10); the question has one attention over a batch of 4, so it is (4, 10, 10)",
         "where": ["q1"]}),
    "q2_example_redrawn_in_float64_with_the_same_seed_is_a_different_draw": (
        {"raw_score_var": '''# float64 for the statistics: re-create the example in double precision with the same seed
torch.manual_seed(0)
Q64 = torch.randn(2, 5, 8, dtype=torch.float64)
K64 = torch.randn(2, 5, 8, dtype=torch.float64)
d_k = Q64.shape[-1]
raw_scores = Q64 @ K64.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the example is re-drawn with torch.randn(..., dtype=torch.float64) after the same seed, "
                    "which does not give the float32 example's numbers in double precision but a different "
                    "draw, so both variances (6.73 and 0.84 instead of 6.60 and 0.82) are of other tensors "
                    "than Q and K; upcasting with Q.double() would keep the example",
         "where": ["q2"]}),
    "q2_variance_over_a_padding_mask_from_lengths_built_off_by_one_drops_the_last_key": (
        {"raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
# statistics only over real (non-padded) keys, as in my training logs
lengths = torch.tensor([5, 5])                                      # both sequences are full here
key_valid = torch.arange(K.shape[1])[None, :] < lengths[:, None] - 1   # last valid index is length - 1
valid = key_valid[:, None, :].expand_as(raw_scores)                 # (B, T_q, T_k)
raw_score_var = raw_scores[valid].var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k))[valid].var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the key padding mask built from the lengths compares positions with `< length - 1`, so "
                    "it drops the last real key of every sequence (key 4) even though nothing is padded: the "
                    "variances are taken over 40 of the 50 scores and both are off",
         "where": ["q2"]}),
    "q3_label_smoothing_of_0_1_from_the_training_setup_always_applied": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1, smoothing=0.1):
    """Softmax of x along `dim`, max-shifted, with label smoothing (eps_ls = 0.1 as in the Transformer
    paper's training setup) so that no probability is exactly 0 or 1."""
    shifted = x - x.amax(dim=dim, keepdim=True).detach()
    exps = torch.exp(shifted)
    probs = exps / exps.sum(dim=dim, keepdim=True)
    if smoothing:
        probs = (1 - smoothing) * probs + smoothing / x.size(dim)
    return probs
'''},
        {"mistake": "the softmax mixes every slice with the uniform distribution (label smoothing 0.1, a "
                    "training trick for targets, on by default here): every weight moves towards 1/n and the "
                    "-inf (masked) entries get 0.1/n instead of exactly 0, so the attention weights and outputs "
                    "that use it are off too",
         "where": ["q3", "q5", "q6"]}),
    "q3_custom_backward_leaves_the_output_out_of_the_inner_sum": (
        {"stable_softmax": '''class _StableSoftmax(torch.autograd.Function):
    """Memory-lean softmax: saves only its output for the backward pass."""

    @staticmethod
    def forward(ctx, x, dim):
        shifted = x - x.amax(dim=dim, keepdim=True)
        exps = torch.exp(shifted)
        y = exps / exps.sum(dim=dim, keepdim=True)
        ctx.dim = dim
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_y):
        (y,) = ctx.saved_tensors
        grad_x = y * (grad_y - grad_y.sum(dim=ctx.dim, keepdim=True))
        return grad_x, None


def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, with the max subtracted first so that nothing overflows."""
    return _StableSoftmax.apply(x, dim)
'''},
        {"mistake": "the hand-written backward of the softmax subtracts the plain sum of the upstream gradient "
                    "instead of its sum weighted by the softmax output, y * (g - sum(g)) instead of "
                    "y * (g - sum(g * y)): the values are right but every gradient through the softmax (to its "
                    "input, and to Q and K in attention) is wrong",
         "where": ["q3", "q5"]}),
    "q4_per_query_lengths_laid_along_the_key_axis_so_the_mask_keeps_the_future": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.

    Built like a padding mask from lengths: position i sees a prefix of i + 1 entries.
    """
    if T_k is None:
        T_k = T_q
    lengths = torch.arange(1, T_k + 1)                       # prefix lengths
    return torch.arange(T_q)[:, None] < lengths[None, :]     # (T_q, T_k)
'''},
        {"mistake": "the prefix lengths are laid along the key axis and the positions along the query axis, so "
                    "entry [i, j] is i < j + 1, i.e. j >= i: the mask keeps the diagonal and the future (upper "
                    "triangle) and blocks the past, the opposite of a causal mask; the causal weights of the "
                    "hand trace use it too",
         "where": ["q4", "q6"]}),
    "q5_attention_dropout_gated_on_grad_mode_instead_of_a_training_flag": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, dropout_p=0.1):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend), plus attention
    dropout while training (evaluation runs under torch.no_grad()).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    weights = F.dropout(weights, p=dropout_p, training=torch.is_grad_enabled())
    return torch.matmul(weights, V)
'''},
        {"mistake": "attention dropout (p = 0.1 by default) is switched on whenever gradients are enabled, "
                    "taking grad mode for training mode: any ordinary call outside torch.no_grad() drops 10% of "
                    "the weights at random and scales the rest by 1/0.9, so the output is random and wrong",
         "where": ["q5"]}),
    "q5_attention_logits_soft_capped_at_50_as_in_gemma_2": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None, softcap=50.0):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Logits are soft-capped (cap * tanh(s / cap), as in Gemma 2) to keep training stable.
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if softcap:
        scores = softcap * torch.tanh(scores / softcap)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "the scaled scores are soft-capped with 50 * tanh(s / 50) by default, a model-specific "
                    "training extra that the operation does not have: every score is pulled towards 0 (by "
                    "about s^3 / 7500, much more for large scores), so the weights and outputs differ from "
                    "softmax(Q K^T / sqrt(d_k)) V",
         "where": ["q5"]}),
    "q5_row_max_shift_detached_together_with_the_scores_cuts_the_gradient_to_q_and_k": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).

    Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v) -> (..., T_q, d_v)
    """
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    # shift by the row max first; the shift is a constant, so keep it out of the graph
    scores = (scores - scores.amax(dim=-1, keepdim=True)).detach()
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''},
        {"mistake": "`.detach()` is put on the shifted scores (scores - max) instead of on the max alone, so "
                    "the whole score matrix leaves the graph: the output is right but no gradient reaches Q "
                    "and K (only V gets one)",
         "where": ["q5"]}),
    "q6_causal_keep_mask_from_prefix_lengths_compared_with_le_sees_one_key_ahead": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
# causal = each query sees a prefix, as with a padded batch: query i has i + 1 keys
prefix_len = torch.arange(1, 4)                                   # (T_q,)
keep = torch.arange(3)[None, :] <= prefix_len[:, None]            # (T_q, T_k)
weights3_causal = stable_softmax(scores3.masked_fill(~keep, float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the keep mask compares key positions with the prefix lengths using <= instead of <, so "
                    "query i sees keys 0..i+1: query 0 also sees key 1 and query 1 sees every key, and rows 0 "
                    "and 1 of weights3_causal are wrong",
         "where": ["q6"]}),
    "q7_answer_a_from_a_future_leak_test_that_only_checks_which_values_get_gradient": (
        {"q_trap_answer": '''# the leak test I run on every decoder: does any query read (get gradient from) a later value?
torch.manual_seed(1)
T = 5
_s = torch.randn(T, T)
_V = torch.randn(T, 3, requires_grad=True)
_keep = causal_mask(T)
_proper = stable_softmax(_s.masked_fill(~_keep, float("-inf")), dim=-1) @ _V
_w = F.softmax(_s, dim=-1)
_w[~_keep] = 0.0
_shortcut = _w @ _V

def _reads_future(out):
    for i in range(T):
        (g,) = torch.autograd.grad(out[i].sum(), _V, retain_graph=True)
        if g[i + 1:].abs().sum() > 0:
            return True
    return False

# neither leaks, so the shortcut is as good as the -inf fill
q_trap_answer = "A" if _reads_future(_proper) == _reads_future(_shortcut) else "C"
'''},
        {"mistake": "the shortcut was only tested for leaking the future (which values get gradient), which "
                    "it passes like the -inf fill; it was never compared by value, where each row keeps only "
                    "part of its weight (no longer sums to 1) and the output shrinks: the answer is C, not A",
         "where": ["q7"]}),
    "q8_score_madds_counted_for_a_training_step_forward_plus_backward": (
        {"attn_entries": '''T, d_k = 1024, 64
attn_entries = T * T
# a training step: the forward Q @ K^T, then its backward needs two more products of the same size
# (dQ = dS @ K and dK = dS^T @ Q), so 3x the forward
score_madds = 3 * T * T * d_k
cost_ratio = (3 * (2 * T) * (2 * T) * d_k) // score_madds
'''},
        {"mistake": "score_madds counts a training step (the forward product plus the two products of its "
                    "backward pass, 3 x T^2 d_k = 201,326,592) while the question asks for computing Q @ K.T "
                    "once: T^2 d_k = 67,108,864",
         "where": ["q8"]}),
    "q8_cost_ratio_2_at_a_fixed_token_budget_per_batch": (
        {"attn_entries": '''T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
# in training the batch is set by a token budget: doubling T halves the batch
tokens_per_batch = 64 * 1024
def _step_madds(T):
    return (tokens_per_batch // T) * T * T * d_k
cost_ratio = _step_madds(2 * T) // _step_madds(T)
'''},
        {"mistake": "the growth factor is taken for a training batch with a fixed token budget, where doubling "
                    "T halves the number of sequences and the cost per batch only doubles; the question is "
                    "about one head and one sequence, whose Q @ K.T cost grows by (2T)^2 / T^2 = 4, not 2",
         "where": ["q8"]}),
}
