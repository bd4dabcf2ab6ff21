"""Blind held-out set 87 for attention-pipeline.

Eighty-seventh blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind85.py (for the format and the docstring only), and only the variant names of the earlier
blind sets (to avoid repeating a mistake in the same form).

Round 87's angle: CODE WRITTEN FOR TRAINING, NOT ONLY FOR THE QUESTION. Each wrong cell comes from a student who
already trains models and makes every function "ready for a training loop" (autograd-, batch-, mode- and
dtype-aware, with extras), and the one slip is one that habit invites: an init guard that re-draws all-zero
weights in place, which also rewrites the caller's tensors and destroys Lesson 07's W_Q = W_K = 0 case (q01);
queries pre-scaled inside `torch.no_grad()` to save graph memory, which cuts the gradient to Q (q02); the
entropy trial logged like a training metric, on the batch-averaged attention map, which is near-uniform
whether or not the scale is kept, so it answers "nothing changes" (q03); blocked entries given BERT's
fp16-safe -1e4 instead of finfo(dtype).min (q04); label-style smoothing of the weights, which moves every row
and opens masked keys (q05); the value mix run in float16 and cast back, as matmuls run under CUDA autocast,
which rounds O to half precision for float32 and float64 inputs (q07); the kernel normaliser detached as "just a constant", which gives wrong gradients
for q and K (q08); the prefix matrix returned with a leading batch axis of one for broadcasting (q09); a cached
triangle divided in place by the row counts, so a second call for the same length returns 1/t^2 rows (q09);
row entropies averaged over the batch like a logged curve (q10); the rank budget counted with one extra
"bias direction" as if the projections were nn.Linear with biases (q11); W_O counted as tied to W_V (like tied
embeddings), so with_output adds nothing (q12); the cross-attention mask clamped to float16's range for
autocast safety, so a fully blocked row is no longer uniform (q13); the score cost counted per training step
under a fixed token budget per batch, which grows linearly (q16). Questions 6, 14 and 15 carry no variant:
their practitioner readings (gradient through masked entries, sequence-first layouts, causal flags shared by
every layer, KV caches, FlashAttention memory) are all taken by earlier sets.

Public material found with the `search` tool, and what it showed:
- karpathy/nanoGPT pull #240 ("don't dropout in eval mode": functional dropout applied at evaluation, "calling
  functional directly considered dangerous"), NVIDIA/Megatron-LM pull #411 (a FlashSelfAttention whose
  dropout_p was left at 0 "forever" after one eval pass) and huggingface/pytorch-image-models pull #1978: mode
  and state that a training-ready function leaves behind. They grounded the kind (a default or a state that
  changes the answer) behind the label smoothing left on (q05) and the cache whose buffer a call mutates (q09).
- jadore801120/attention-is-all-you-need-pytorch issue #16 ("masking on tensor.data?": `attn.data.masked_fill_`
  hides the op from autograd) and lucidrains/flamingo-pytorch issue #10 (masked_fill vs masked_fill_: an
  in-place/out-of-place slip in attention masking): gradient cuts and in-place ops written for memory (q02
  no_grad pre-scale, q08 detached normaliser, q01 in-place re-initialisation, q09 in-place division).
- ajhalthor/Transformer-Neural-Network issue #15 (padding-mask indices off by one with `np.arange(len + 1, max)`)
  and georg-wolflein/good-features pull #1 (a multiplicative mask that leaves masked keys with weight, unnoticed
  because training used batch size 1): masks and batch axes written for the training batch (q09 batch axis,
  q10 batch mean, q13 clamped mask).
- joshyZhou/AST issue #17 (attention entropy computed as `attention + 1e-8` before the log "to avoid NaNs"):
  numerical guards and logged metrics that change the quantity measured (q10, q03, q13 clamp).
- The counting slips (a bias direction in the rank, tied W_O, a token budget per batch) follow the brief's
  "reasons as a practitioner would"; no single public thread was used for them.

The correct variants keep the same habits and are right everywhere: W.to(X) casts, in-place division of a fresh
score tensor, softmax computed in promote_types(dtype, float32) after the mask is added in the input dtype and
cast back, dropout / smoothing / temperature keywords that default to off, a causal mask built from per-query
lengths starting at 1, a max-shifted kernel with a detached shift, a cached prefix matrix returned as a clone,
xlogy entropies, parameter counts from bias-free nn.Linear modules on the meta device, and answer cells computed
from trials sized like the questions (d_k = 512 per-row entropies, T = 100 rank trial, per-sequence score counts).

Every variant was checked with a throwaway script under /tmp/w87-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's) in one namespace, then
every function and answer compared with full_marks.ipynb's on unbatched, 3-D and 4-D inputs, T_q != T_k,
d_k != d_v != d_model, float64, float32 and float16, 2-D and batched random masks, fully masked rows, large
logits, zero projections, repeated calls, and gradients (float64) of every differentiable function; each wrong
variant differs only in the questions of its "where", and every correct variant agrees everywhere.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
MASK_ANS = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
SHAPES_ANS = "ans_cross_shapes"
CAUSAL_ANS = "ans_cross_causal"
COST_ANS = "ans_complexity"

CORRECT = {
    # mixed-precision habits done right: casts that keep float64, in-place ops only on fresh tensors
    "mixed_precision_aware_softmax_and_xlogy_entropy": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # weights follow the activations' dtype and device, as in an autocast region
    return X @ W_Q.to(X), X @ W_K.to(X), X @ W_V.to(X)''',
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    S = Q @ K.transpose(-2, -1)
    return S.div_(math.sqrt(d_k))   # S is a fresh tensor: dividing it in place saves one T_q x T_k buffer''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M                   # added in the input dtype, as the mask was designed for
    acc = torch.promote_types(S.dtype, torch.float32)   # float16 -> float32, float64 stays float64
    return torch.softmax(S.to(acc), dim=-1).to(S.dtype)''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True, dropout_p=0.0, training=False):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    A_mix = torch.nn.functional.dropout(A, p=dropout_p, training=training) if dropout_p > 0 else A
    return A_mix @ V, A''',
        ENT: '''def row_entropy_bits(A):
    # xlogy(0, 0) == 0, so masked entries need no special case
    return -torch.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))''',
    },
    # masks from lengths (right way round), a stabilised kernel, a cache that hands out copies
    "length_built_mask_shifted_kernel_and_cloned_cache": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # query t (0-based) may see t + 1 keys: the same code builds padding masks from lengths
    visible = torch.arange(1, T + 1, device=device)
    blocked = torch.arange(T, device=device)[None, :] >= visible[:, None]
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(blocked, torch.finfo(dtype).min)''',
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    s = s - s.max().detach()        # the shift cancels in the ratio, so it needs no gradient
    kappa = torch.exp(s)
    return (kappa.unsqueeze(-1) * V).sum(dim=-2) / kappa.sum(dim=-1)''',
        AVG: '''_PREFIX_CACHE = {}


def prefix_average_matrix(T):
    if T not in _PREFIX_CACHE:
        W = torch.tril(torch.ones(T, T, dtype=torch.float64))
        _PREFIX_CACHE[T] = W / W.sum(dim=-1, keepdim=True)
    return _PREFIX_CACHE[T].clone()  # callers may modify their copy in place''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K, V = Y @ W_K, Y @ W_V         # the "memory" side; recomputed every call, gradients kept
    S = scaled_scores(Q, K)
    A = attention_weights(S, None if M is None else M.to(S))
    return A @ V, A''',
    },
    # training-style keywords that default to off, and answers computed from trials sized like the questions
    "keyword_extras_default_off_and_measured_answers": {
        WEIGHTS: '''def attention_weights(S, M=None, temperature=1.0, smoothing=0.0):
    if M is not None:
        S = S + M
    A = torch.softmax(S / temperature if temperature != 1.0 else S, dim=-1)
    if smoothing > 0:
        A = (1.0 - smoothing) * A + smoothing / A.shape[-1]
    return A''',
        SCALE_ANS: '''# trial at the question's size: d_k = 512, 8 keys, per-row entropies averaged over many rows
_g = torch.Generator().manual_seed(0)
_q = torch.randn(256, 512, dtype=torch.float64, generator=_g)
_k = torch.randn(8, 512, dtype=torch.float64, generator=_g)


def _mean_row_entropy_bits(S):
    A = torch.softmax(S, dim=-1)
    return float((-torch.xlogy(A, A).sum(dim=-1) / math.log(2.0)).mean())


_H_scaled = _mean_row_entropy_bits(_q @ _k.T / math.sqrt(512))
_H_unscaled = _mean_row_entropy_bits(_q @ _k.T)
ans_scale = "b" if _H_unscaled < 0.1 * _H_scaled else ("c" if abs(_H_unscaled - _H_scaled) < 0.1 else "a")''',
        RANK: '''# trial at the question's size, in float64 so the tolerance is tight
_g = torch.Generator().manual_seed(1)
_Q = torch.randn(100, 8, dtype=torch.float64, generator=_g)
_K = torch.randn(100, 8, dtype=torch.float64, generator=_g)
max_rank_S = int(torch.linalg.matrix_rank(_Q @ _K.T / math.sqrt(8)))

rank_S_lesson = 2''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    # bias-free layers on the meta device: shapes only, no memory
    layers = [torch.nn.Linear(d_model, d_k, bias=False, device="meta"),
              torch.nn.Linear(d_model, d_k, bias=False, device="meta"),
              torch.nn.Linear(d_model, d_v, bias=False, device="meta")]
    if with_output:
        layers.append(torch.nn.Linear(d_v, d_model, bias=False, device="meta"))
    return sum(p.numel() for layer in layers for p in layer.parameters())''',
        COST_ANS: '''# multiply-adds of Q K^T for ONE sequence (what the question fixes: d_k, growing T)
def _score_macs(T, d_k=64):
    return T * T * d_k


_ratio = _score_macs(1024) / _score_macs(512)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]''',
    },
    # autograd-careful: fused projection split by widths, hand-written stable softmax, keepdim then squeeze(-1)
    "fused_projection_stable_softmax_and_padding_ready_pipeline": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]
    QKV = X @ torch.cat([W_Q, W_K, W_V], dim=-1)       # one matmul, like a fused qkv layer
    Q, K, V = QKV.split([d_k, d_k, d_v], dim=-1)
    return Q, K, V''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    acc = torch.promote_types(S.dtype, torch.float32)
    Z = S.to(acc)
    Z = Z - Z.amax(dim=-1, keepdim=True).detach()      # stable; the shift cancels
    E = Z.exp()
    return (E / E.sum(dim=-1, keepdim=True)).to(S.dtype)''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True, lengths=None):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.shape[-2]
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    if lengths is not None:          # optional key padding for a training batch
        pad = torch.arange(T, device=S.device) >= lengths.to(S.device)[..., None, None]
        pad_M = torch.zeros_like(S).masked_fill(pad, torch.finfo(S.dtype).min)
        M = pad_M if M is None else torch.maximum(M + pad_M, torch.full_like(pad_M, torch.finfo(S.dtype).min))
    A = attention_weights(S, M)
    return A @ V, A''',
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    H = -(A * logs).sum(dim=-1, keepdim=True)
    return H.squeeze(-1)             # only the reduced axis: batch or query axes of size one stay


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A''',
    },
}

WRONG = {
    "q01_all_zero_weights_redrawn_in_place_by_an_init_guard": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # guard against weights that were never initialised: an all-zero W makes every token look the same
    for W in (W_Q, W_K, W_V):
        if W.numel() > 0 and not bool(W.detach().any()):
            with torch.no_grad():
                W.normal_(0.0, 0.02)
    return X @ W_Q, X @ W_K, X @ W_V''',
    }, {"mistake": "An 'init guard' re-draws any all-zero projection matrix in place with N(0, 0.02) values. Zero "
                   "weights are a legitimate input (Lesson 07's W_Q = W_K = 0 case), so the projections come out "
                   "non-zero, the caller's weight tensors are overwritten, and self-attention with zero query and "
                   "key projections no longer gives the prefix-average matrix.",
        "where": ["q01", "q07", "q09"]}),

    "q02_queries_prescaled_under_no_grad_cut_their_gradient": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    # fold 1/sqrt(d_k) into the queries without recording it, so the graph keeps no extra copy of Q
    with torch.no_grad():
        Q_scaled = Q * (1.0 / math.sqrt(d_k))
    return Q_scaled @ K.transpose(-2, -1)''',
    }, {"mistake": "The 1/sqrt(d_k) scaling of Q is done inside torch.no_grad() to save memory, which detaches the "
                   "scaled queries from the graph: the scores have the right values but no gradient flows back to Q "
                   "(or to X and W_Q through it), so attention built on these scores cannot learn its queries.",
        "where": ["q02", "q07", "q13"]}),

    "q03_entropy_of_the_batch_averaged_weights_answers_nothing_changes": ({
        SCALE_ANS: '''# trial at the question's size: d_k = 512, 8 keys, many query rows; entropy logged like a training
# metric, on the attention map averaged over the batch of rows
torch.manual_seed(0)
n_rows, n_keys, dk_trial = 256, 8, 512
q_trial = torch.randn(n_rows, dk_trial, dtype=torch.float64)
k_trial = torch.randn(n_keys, dk_trial, dtype=torch.float64)


def batch_entropy_bits(S):
    A_mean = torch.softmax(S, dim=-1).mean(dim=0)
    return float(-(A_mean * torch.log2(A_mean)).sum())


H_scaled = batch_entropy_bits(q_trial @ k_trial.T / math.sqrt(dk_trial))
H_unscaled = batch_entropy_bits(q_trial @ k_trial.T)
if abs(H_unscaled - H_scaled) < 0.1:
    ans_scale = "c"
elif H_unscaled < H_scaled:
    ans_scale = "b"
else:
    ans_scale = "a"''',
    }, {"mistake": "The trial measures the entropy of the attention map averaged over a batch of query rows (as a "
                   "training dashboard logs it) instead of each row's entropy. The average of many one-hot rows on "
                   "different keys is as flat as the average of scaled rows, so both come out near 3 bits and the "
                   "answer is c; per row, deleting the scale drives the entropy toward 0 (b).",
        "where": ["q03"]}),

    "q04_blocked_entries_hold_bert_style_minus_ten_thousand": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # -1e4 rather than -inf: representable in float16 too (the value BERT-style extended masks use),
    # and exp(-1e4) is already exactly 0 after the softmax
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, -1e4)''',
    }, {"mistake": "Blocked entries hold -10000 (the fp16-safe constant of BERT-style masks) instead of "
                   "torch.finfo(dtype).min, so the mask has the wrong values in every dtype; scores larger than "
                   "about 1e4 in magnitude would also leak through it.",
        "where": ["q04", "q07"]}),

    "q05_weights_label_smoothed_by_default": ({
        WEIGHTS: '''def attention_weights(S, M=None, smoothing=0.1):
    if M is not None:
        S = S + M
    A = torch.softmax(S, dim=-1)
    # label-style smoothing: every key keeps a little weight (regularises like label smoothing)
    if smoothing:
        A = (1.0 - smoothing) * A + smoothing / A.shape[-1]
    return A''',
    }, {"mistake": "The weights are label-smoothed by default (0.9 * softmax + 0.1 / T_k). Rows still sum to 1, "
                   "but every weight moves and masked keys get 0.1 / T_k instead of exactly 0, so causal weights "
                   "are no longer lower-triangular and everything built on these weights changes.",
        "where": ["q05", "q07", "q09", "q13"]}),

    "q07_values_mixed_in_float16_like_cuda_autocast_then_cast_back": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    # the weighted sum runs in float16, as matmuls do under CUDA autocast, then back to the input dtype
    O = (A.half() @ V.half()).to(V.dtype)
    return O, A''',
    }, {"mistake": "The output A @ V is computed in float16 and cast back to the input dtype, as matmuls run under "
                   "CUDA autocast. For float32 and float64 inputs this rounds O to float16 precision (relative errors "
                   "around 1e-3), so the output is not the float32/float64 result even though its dtype says so.",
        "where": ["q07"]}),

    "q08_kernel_normaliser_detached_as_a_constant": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    # the denominator is only a normalising constant: keep it out of the graph
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum().detach()''',
    }, {"mistake": "The kernel sum in the denominator is detached. The values are right, but the gradient with "
                   "respect to q and K misses the denominator's term (it is the gradient of an unnormalised "
                   "weighted sum), so the estimator is not differentiated correctly.",
        "where": ["q08"]}),

    "q09_leading_batch_axis_of_one_kept_for_broadcasting": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    # returned as (1, T, T) so it broadcasts straight over a batch of sequences
    return (W / W.sum(dim=-1, keepdim=True)).unsqueeze(0)''',
    }, {"mistake": "The matrix is returned with an extra leading batch axis, shape (1, T, T) instead of (T, T). "
                   "The numbers are right, but it is not the T x T matrix asked for (indexing rows, comparing shapes "
                   "or using it as a 2-D matrix all change).",
        "where": ["q09"]}),

    "q09_cached_triangle_divided_in_place_on_every_call": ({
        AVG: '''_TRIANGLES = {}


def prefix_average_matrix(T):
    # reuse one T x T buffer per length instead of allocating a new one every call
    if T not in _TRIANGLES:
        _TRIANGLES[T] = torch.tril(torch.ones(T, T, dtype=torch.float64))
    W = _TRIANGLES[T]
    counts = torch.arange(1, T + 1, dtype=torch.float64)[:, None]
    return W.div_(counts)''',
    }, {"mistake": "A cached triangle is divided by the row counts in place, so the cache itself is changed: the "
                   "first call for a length returns the right matrix, the second returns rows of 1/t^2, the third "
                   "1/t^3, and every matrix handed out earlier changes with it.",
        "where": ["q09"]}),

    "q10_entropy_averaged_over_the_batch_like_a_logged_metric": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    H = -(A * logs).sum(dim=-1)
    # one number per query position, averaged over the batch (the curve we log while training)
    if H.dim() > 1:
        H = H.mean(dim=tuple(range(H.dim() - 1)))
    return H


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)''',
    }, {"mistake": "For batched weights the row entropies are averaged over the batch (and head) axes, so the result "
                   "has shape (T_q,) instead of (..., T_q) and holds batch means, not each row's entropy; effective "
                   "tokens inherit the same averaging. Unbatched input is right.",
        "where": ["q10"]}),

    "q11_bias_direction_counted_as_one_more_rank": ({
        RANK: '''# a projection layer is affine (nn.Linear keeps a bias), and the bias adds one more direction
# on top of the d_k learned ones
dk_head, n_tokens = 8, 100
max_rank_S = min(n_tokens, dk_head + 1)

rank_S_lesson = 2''',
    }, {"mistake": "The rank bound adds one for a bias direction, as if the projections were nn.Linear layers with "
                   "biases. Here there are no biases, and even with them Q and K would still have only d_k columns: "
                   "rank S <= d_k = 8, not 9.",
        "where": ["q11"]}),

    "q12_output_projection_counted_as_tied_to_value_weights": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False, tie_output=True):
    n = d_model * (2 * d_k + d_v)
    # W_O tied to W_V^T (like tied input/output embeddings): it shares W_V's storage
    if with_output and not tie_output:
        n += d_v * d_model
    return n''',
    }, {"mistake": "W_O is treated as tied to W_V (as with tied embeddings) by default, so with_output=True adds "
                   "no weights: the count with the output projection equals the count without it (110592 instead "
                   "of 135168 for the lesson's sizes). Nothing in the block ties W_O to W_V.",
        "where": ["q12"]}),

    "q13_mask_clamped_to_float16_range_for_autocast": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is not None:
        # keep the additive mask finite if this ever runs under float16 autocast
        M = M.clamp(min=torch.finfo(torch.float16).min)
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A''',
    }, {"mistake": "The mask is clamped to float16's -65504. In float32 and float64 a blocked score is then only "
                   "65504 below the others instead of being swamped by finfo(dtype).min, so a row whose keys are all "
                   "blocked comes out as the softmax of its scores instead of uniform.",
        "where": ["q13"]}),

    "q16_cost_counted_per_step_under_a_fixed_token_budget_answers_linear": ({
        COST_ANS: '''# cost of the score matmul for one training step; batches are sized by a token budget
# (B * T = 8192 tokens per batch), as in the training configs
def score_macs_per_step(T, d_k=64, tokens_per_batch=8192):
    B = tokens_per_batch // T
    return B * T * T * d_k


ratio = score_macs_per_step(1024) / score_macs_per_step(512)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(ratio)]''',
    }, {"mistake": "The cost is counted per training step with a fixed token budget, so doubling T halves the batch "
                   "and the total only doubles: answer a. The question fixes one sequence: T^2 scores of d_k "
                   "multiply-adds each, so doubling T quadruples the work (c).",
        "where": ["q16"]}),
}
