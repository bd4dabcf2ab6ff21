"""Blind held-out set 88 for attention-pipeline.

Eighty-eighth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind87.py (for the format and the docstring only), the lesson text in ../shared/lessons/ (for the
lesson's Q and K), and only the variant names of the earlier blind sets (to avoid repeating a mistake in the
same form).

Round 88's angle: DEFENSIVE, VALIDATING AND EDGE-CASE-HANDLING CODE. Each wrong cell comes from a careful student
who guards every function against bad input and odd cases (argument normalisation at the top, special branches,
fallbacks, clean-up of the result, early returns), and the one slip is one that habit invites: the input
"accepted as list or tensor" by re-wrapping it with torch.tensor, which copies and detaches it, so no gradient
reaches X (q01); keys "already laid out as (d_k, T_k)" detected by `K.shape[-2] == d_k`, which is also true of
ordinary keys whenever T_k == d_k, so those are not transposed (q02); the entropy trial standardises each score
row "so nothing overflows", which removes the very scale the question deletes and answers "nothing changes"
(q03); half-precision dtypes promoted to float32 "because they cannot hold a safe block value", so the mask comes
back in the wrong dtype (q04); the mask normalised to "finfo.min wherever negative, 0 elsewhere", which turns a
soft additive mask into a hard one (q05); weights below 1e-6 snapped to exact zeros "to make the triangle exact",
which cuts real small weights so rows no longer sum to 1 (q07); the sequence length read from axis 1 in the
"batched" branch, which is the head axis of a 4-D input (q07); a (1, d_k) row made "if needed" before
`d_k = len(q)`, which then reads 1 and leaves the kernel unscaled (q08); a one-token shortcut that returns
`torch.ones(1, 1)` in the default float32 (q09); a batched branch that sums the entropy terms over axis 2, the
query axis of a 4-D input (q10); a tiny ridge 1e-6 * I added before `matrix_rank` "for stability", which makes
every score matrix full rank (q11); W_O skipped "when d_v already equals d_model" (q12); a mask skipped with
`M.all()` as "keeps every key", which is true of any additive mask with no zero entry (q13); the cost trial
counting the padded case (every batch padded to a 512-token maximum), so the count does not grow (q16).
Questions 6, 14 and 15 carry no variant: their guard-style readings (gradients through blocked entries, shape
probes patched by truncating or padding Y, square-only or error-driven causal answers) are all taken by earlier
sets.

Public material found with the `search` tool, and what it showed:
- huggingface/transformers pull #41443 (a bool attention_mask simply added to the scores: "correct for float
  masks that already contain -inf values, but produces completely wrong logits" for bool) and QwenAudio/CosyVoice
  issue #628 (a float 0/1 mask routed down the additive `attn_bias += attn_mask` branch, so masking silently
  fails): mask handling that decides a mask's meaning from its dtype or values. They grounded q05 (negative entries
  rebuilt as hard blocks) and q13 (`M.all()` read as "keeps everything").
- Comfy-Org/ComfyUI pull #13471 (review: a `not torch.is_floating_point(mask)` guard skips the conversion when a
  0/1 mask has already been cast to float, so padding stays attendable): a guard whose condition is true or
  false more often than meant, as in q02 (layout detected from one matching size) and q12 (W_O skipped when
  d_v == d_model).
- tracel-ai/burn pull #4697 (fully masked rows fixed with two clamps, a max floor of -1e4 and a sum floor of
  1e-6, "normal rows are unaffected") and iree-org/iree pull #24178 (the denominator clamped with max(sum, 1);
  a reviewer answers "This is wrong"): clean-ups and clamps added for safety that may move real values. They
  grounded q07's snap of small weights to zero and q03's standardised trial.
- pytorch/pytorch pull #31996 (MultiheadAttention's attn_mask handled by `if attn_mask.dim() == 2: unsqueeze(0)
  / elif attn_mask.dim() == 3:` branches, each fixing what the axes are taken to mean): special branches on the
  number of dimensions, as in q07 (length from axis 1), q08 (unsqueeze before len) and q10 (sum over axis 2).
- The dtype promotion (q04), the one-token shortcut (q09), the ridge before the rank (q11), torch.tensor
  re-wrapping (q01) and the padded cost count (q16) follow the brief's list of habits (a dtype forced, an early
  return with a placeholder, a normalisation that changes ordinary input, counting the padded case); no single
  public thread was used for them.

The correct variants keep the same habits and are right everywhere: `is_tensor` guards that leave tensors
untouched, shape checks that raise, 2-D branches that compute the same thing, an unbatched round trip whose flag
is decided before the unsqueeze, masks built from index comparisons or `full(...).triu(1)`, a max-shifted or
logsumexp-normalised kernel, entropies with `where`/`xlogy` zero handling, validated integer arguments, and
answer cells computed from trials or from validated letters.

Every variant was checked with a throwaway script under /tmp/w88-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's) in one namespace, then
every function and answer compared with full_marks.ipynb's on unbatched, 3-D and 4-D inputs, T_q != T_k,
T_k == d_k, d_k != d_v != d_model, float64, float32 and float16, 2-D and batched random masks (soft and 0/min),
fully masked rows, large logits, one-token sequences, zero projections, and float64 gradients of every
differentiable function; each wrong variant differs only in the questions of its "where", and every correct
variant agrees everywhere.

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
    # argument checks that raise instead of patching, and type guards that leave tensors untouched
    "validated_arguments_and_index_built_mask": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    if not torch.is_tensor(X):          # lists / arrays only: a tensor passes through untouched
        X = torch.as_tensor(X, dtype=W_Q.dtype, device=W_Q.device)
    d_model = X.shape[-1]
    if not (W_Q.shape[0] == W_K.shape[0] == W_V.shape[0] == d_model):
        raise ValueError("X and the weight matrices disagree on d_model")
    if W_Q.shape[-1] != W_K.shape[-1]:
        raise ValueError("queries and keys need the same width d_k")
    return X @ W_Q, X @ W_K, X @ W_V''',
        SCORES: '''def scaled_scores(Q, K):
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"d_k differs: {Q.shape[-1]} vs {K.shape[-1]}")
    d_k = Q.shape[-1]
    if Q.dim() == 2 and K.dim() == 2:   # one sequence: the plain matrix transpose
        S = Q @ K.T
    else:                               # any batch axes: swap only the last two
        S = Q @ K.transpose(-2, -1)
    return S / math.sqrt(d_k)''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    T = int(T)
    if T < 0:
        raise ValueError("T must be non-negative")
    if not dtype.is_floating_point:
        raise TypeError("an additive mask needs a floating dtype")
    pos = torch.arange(T, device=device)
    future = pos[None, :] > pos[:, None]          # key index after query index
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        if not torch.is_tensor(M):      # a nested list: same dtype and device as the scores
            M = torch.as_tensor(M, dtype=S.dtype, device=S.device)
        S = S + M
    return torch.softmax(S, dim=-1)''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    for name, value in (("d_model", d_model), ("d_k", d_k), ("d_v", d_v)):
        if value < 0 or int(value) != value:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    n = d_model * (2 * d_k + d_v)
    if with_output:
        n += d_v * d_model
    return n''',
    },
    # batch round trips with the flag taken first, a shifted kernel and NaN-free entropies
    "unbatched_round_trip_and_guarded_lenses": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    unbatched = X.dim() == 2            # decided before any reshaping
    if unbatched:
        X = X.unsqueeze(0)
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = A @ V
    if unbatched:
        O, A = O.squeeze(0), A.squeeze(0)
    return O, A''',
        NW: '''def nadaraya_watson(q, K, V):
    if q.dim() != 1 or K.dim() != 2 or V.dim() != 2:
        raise ValueError("expected q (d_k,), K (T, d_k), V (T, d_v)")
    if K.shape[0] != V.shape[0] or K.shape[1] != q.shape[0]:
        raise ValueError("q, K and V disagree on their sizes")
    s = K @ q / math.sqrt(q.shape[-1])
    kappa = torch.exp(s - s.max())      # the shift cancels in the ratio and exp cannot overflow
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()''',
        AVG: '''def prefix_average_matrix(T):
    T = int(T)
    if T < 0:
        raise ValueError("T must be non-negative")
    counts = torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / counts[:, None]''',
        ENT: '''def row_entropy_bits(A):
    # 0 log 0 = 0: the log is taken only of positive entries (a NaN entry still propagates)
    safe = torch.where(A > 0, A, torch.ones_like(A))
    logs = torch.where(A > 0, torch.log2(safe), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return torch.pow(2.0, row_entropy_bits(A))''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    if X.shape[-1] != Y.shape[-1]:
        raise ValueError("X and Y must share d_model")
    Q = X @ W_Q
    K, V = Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    A = attention_weights(S) if M is None else attention_weights(S, M)
    return A @ V, A''',
    },
    # answers validated before they are stored, and computed where a computation is possible
    "validated_letters_and_computed_numbers": {
        SCALE_ANS: '''_letter = " B ".strip().lower()     # without the scale, scores have std sqrt(512): rows snap to one key
assert _letter in ("a", "b", "c", "d")
ans_scale = _letter''',
        MASK_ANS: '''_letter = "c"
assert _letter in ("a", "b", "c", "d")
ans_mask = _letter''',
        RANK: '''# rank S <= min(rank Q, rank K) <= d_k, whatever T is; checked on a random trial without any jitter
_g = torch.Generator().manual_seed(3)
_Qr = torch.randn(100, 8, dtype=torch.float64, generator=_g)
_Kr = torch.randn(100, 8, dtype=torch.float64, generator=_g)
max_rank_S = int(torch.linalg.matrix_rank(_Qr @ _Kr.T / math.sqrt(8)))

_K_lesson = torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0],
                          [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]], dtype=torch.float64)
_Q_lesson = torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                          [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]], dtype=torch.float64)
rank_S_lesson = int(torch.linalg.matrix_rank(_Q_lesson @ _K_lesson.T / math.sqrt(4)))''',
        SHAPES_ANS: '''_letter = "b"     # S: one row per query of X, one column per token of Y; O: T x d_v
assert _letter in ("a", "b", "c", "d")
ans_cross_shapes = _letter''',
        CAUSAL_ANS: '''_letter = "d"
assert _letter in ("a", "b", "c", "d")
ans_cross_causal = _letter''',
        COST_ANS: '''# multiply-adds of Q K^T for one unpadded sequence of length T
def _score_macs(T, d_k=64):
    return T * T * d_k


_ratio = _score_macs(1024) / _score_macs(512)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]''',
    },
    # library routes with their edge cases covered: full().triu(1), logsumexp weights, xlogy entropies
    "library_routes_with_checked_edges": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    T = max(int(T), 0)
    return torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)''',
        NW: '''def nadaraya_watson(q, K, V):
    q = q.reshape(-1)                   # a (1, d_k) query is accepted too
    s = K @ q / math.sqrt(q.numel())
    w = torch.exp(s - torch.logsumexp(s, dim=0))   # normalised kernel weights, never overflowing
    return w @ V''',
        ENT: '''def row_entropy_bits(A):
    # xlogy(0, 0) == 0, so blocked entries need no special case
    return -torch.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    if X.dim() < 2:
        raise ValueError("X must be (..., T, d_model)")
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.size(-2)                      # the token axis, whatever the batch axes are
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None and not torch.is_tensor(M):
        M = torch.as_tensor(M, dtype=S.dtype, device=S.device)
    A = attention_weights(S, M)
    return A @ V, A''',
    },
}

WRONG = {
    "q01_input_rewrapped_with_torch_tensor_detaches_it": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # accept a nested list or a numpy array as well as a tensor, in the weights' dtype and device
    X = torch.tensor(X, dtype=W_Q.dtype, device=W_Q.device)
    if not (W_Q.shape[0] == W_K.shape[0] == W_V.shape[0] == X.shape[-1]):
        raise ValueError("X and the weight matrices disagree on d_model")
    return X @ W_Q, X @ W_K, X @ W_V''',
    }, {"mistake": "X is re-wrapped with torch.tensor(X, ...) to accept lists as well as tensors. torch.tensor of a "
                   "tensor makes a detached copy, so Q, K and V have the right values but no gradient flows back "
                   "to X (nor to whatever produced X); self-attention built on it cannot train the layers below.",
        "where": ["q01", "q07", "q09"]}),

    "q02_keys_taken_as_pre_transposed_whenever_t_k_equals_d_k": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    # keys may come already laid out as (d_k, T_k), as some libraries store them: transpose only if needed
    if K.shape[-2] == d_k:
        K_t = K
    else:
        K_t = K.transpose(-2, -1)
    return Q @ K_t / math.sqrt(d_k)''',
    }, {"mistake": "The layout guard treats K as already transposed when K.shape[-2] == d_k. Ordinary (T_k, d_k) "
                   "keys satisfy that whenever T_k happens to equal d_k, and then S is Q @ K instead of Q @ K^T: "
                   "each score pairs query t with column i of K rather than with key i, so the scores (and the "
                   "attention built on them) are wrong for those lengths.",
        "where": ["q02", "q07", "q13"]}),

    "q03_trial_rows_standardised_against_overflow_answers_nothing_changes": ({
        SCALE_ANS: '''# trial at the question's size: d_k = 512, 8 keys, many query rows; each score row is standardised
# first so that the unscaled scores cannot overflow the softmax
_g = torch.Generator().manual_seed(0)
_q = torch.randn(400, 512, dtype=torch.float64, generator=_g)
_k = torch.randn(8, 512, dtype=torch.float64, generator=_g)


def _safe_mean_row_entropy_bits(S):
    S = (S - S.mean(dim=-1, keepdim=True)) / S.std(dim=-1, keepdim=True).clamp_min(1e-12)
    A = torch.softmax(S, dim=-1)
    return float((-torch.xlogy(A, A).sum(dim=-1) / math.log(2.0)).mean())


_H_scaled = _safe_mean_row_entropy_bits(_q @ _k.T / math.sqrt(512))
_H_unscaled = _safe_mean_row_entropy_bits(_q @ _k.T)
ans_scale = "c" if abs(_H_unscaled - _H_scaled) < 0.05 else ("b" if _H_unscaled < _H_scaled else "a")''',
    }, {"mistake": "The trial standardises every score row before the softmax as an overflow guard. That divides out "
                   "exactly the factor the question removes, so both entropies come out equal and the answer is c "
                   "(nothing changes). Without 1/sqrt(d_k) the scores have standard deviation about sqrt(512) = 23 "
                   "and each row puts almost all its weight on one key: the entropies fall toward 0 (b).",
        "where": ["q03"]}),

    "q04_half_precision_dtypes_promoted_to_float32_for_a_safe_fill": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    T = int(T)
    if T < 0:
        raise ValueError("T must be non-negative")
    # 16-bit floats cannot hold a safe stand-in for minus infinity: build those masks in float32
    if torch.finfo(dtype).bits < 32:
        dtype = torch.float32
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)''',
    }, {"mistake": "For float16 and bfloat16 the mask is built in float32 instead of the requested dtype, holding "
                   "float32's minimum. The function must return the dtype it is asked for with finfo(dtype).min; "
                   "added to half-precision scores the float32 mask promotes the weights to float32, and the "
                   "value mix in self_attention then fails on mixed dtypes.",
        "where": ["q04", "q07", "q09"]}),

    "q05_mask_rebuilt_as_finfo_min_wherever_negative": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        M = torch.as_tensor(M, device=S.device)
        # normalise the mask: every blocked entry gets this dtype's own block value, open entries exactly 0
        blocked = M < 0
        M = torch.zeros(blocked.shape, dtype=S.dtype, device=S.device).masked_fill(blocked, torch.finfo(S.dtype).min)
        S = S + M
    return torch.softmax(S, dim=-1)''',
    }, {"mistake": "The mask is 'normalised' to finfo.min wherever it is negative and 0 elsewhere, so it is no longer "
                   "added as given: a soft additive mask (a bias such as -1.5 or +0.7) becomes a hard block or "
                   "nothing, and the weights of any mask that is not purely 0 / very negative come out wrong.",
        "where": ["q05", "q13"]}),

    "q07_weights_below_one_in_a_million_snapped_to_zero": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    # blocked keys can leave tiny leftovers instead of exact zeros: snap them so A is exactly triangular
    A = A.masked_fill(A < 1e-6, 0.0)
    return A @ V, A''',
    }, {"mistake": "A clean-up sets every weight below 1e-6 to 0 to 'make the triangle exact'. Masked weights are "
                   "already exactly 0, so the clean-up only removes real small weights of visible keys: with peaked "
                   "scores the rows no longer sum to 1 and O loses their share of the values.",
        "where": ["q07"]}),

    "q07_length_from_axis_one_in_the_batched_branch_reads_heads_of_4d_input": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    # one sequence (T, d_model) or a batch of sequences (B, T, d_model)
    T = X.shape[0] if X.dim() == 2 else X.shape[1]
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A''',
    }, {"mistake": "The sequence length is read from axis 1 whenever X is not 2-D. That is right for (B, T, d_model) "
                   "but for a 4-D input (B, H, T, d_model) axis 1 is the head axis: the causal mask is H x H, "
                   "which fails to broadcast against the T x T scores, or with one head is a 1 x 1 zero that leaves "
                   "the attention unmasked. T is X.shape[-2] for any batch rank.",
        "where": ["q07", "q09"]}),

    "q08_query_unsqueezed_before_d_k_equals_len_scales_by_one": ({
        NW: '''def nadaraya_watson(q, K, V):
    if q.dim() == 1:
        q = q.unsqueeze(0)              # work with a (1, d_k) row so the matmul below is always 2-D
    d_k = len(q)
    scores = (q @ K.transpose(-2, -1)).squeeze(0) / math.sqrt(d_k)
    kappa = torch.exp(scores - scores.max())   # shift: the ratio is unchanged and exp cannot overflow
    return (kappa.unsqueeze(-1) * V).sum(dim=0) / kappa.sum()''',
    }, {"mistake": "The query is reshaped to a (1, d_k) row 'if needed' before d_k is read with len(q), which is now "
                   "1, so the kernel is exp(q.k) instead of exp(q.k / sqrt(d_k)): the weights are too peaked and "
                   "the average leans toward the best-matching keys.",
        "where": ["q08"]}),

    "q09_one_token_shortcut_returns_default_float32_ones": ({
        AVG: '''def prefix_average_matrix(T):
    T = int(T)
    if T <= 0:
        return torch.zeros(0, 0, dtype=torch.float64)
    if T == 1:
        return torch.ones(1, 1)         # one token: it averages only itself
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=-1, keepdim=True)''',
    }, {"mistake": "The early return for a single token builds torch.ones(1, 1) without a dtype, so for T = 1 the "
                   "matrix comes back in the default float32 instead of float64 (right value, wrong dtype).",
        "where": ["q09"]}),

    "q10_batched_branch_sums_entropy_terms_over_axis_two": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    terms = A * logs
    if terms.dim() == 2:                # one (T_q, T_k) matrix
        return -terms.sum(dim=1)
    return -terms.sum(dim=2)            # a batch (B, T_q, T_k)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)''',
    }, {"mistake": "The batched branch sums over axis 2, which is the key axis only for 3-D input. For (B, H, T_q, "
                   "T_k) weights it sums over the query axis, returning (B, H, T_k) column sums of -A log2 A "
                   "instead of one entropy per row; effective_tokens inherits the error. Sum over dim=-1.",
        "where": ["q10"]}),

    "q11_ridge_added_before_matrix_rank_makes_every_score_matrix_full_rank": ({
        RANK: '''def _stable_rank(S):
    # a tiny ridge keeps the decomposition away from an exactly singular matrix, as for a covariance matrix
    S = torch.nan_to_num(S.to(torch.float64))
    return int(torch.linalg.matrix_rank(S + 1e-6 * torch.eye(S.shape[-1], dtype=S.dtype)))


_g = torch.Generator().manual_seed(0)
_Q = torch.randn(100, 8, dtype=torch.float64, generator=_g)
_K = torch.randn(100, 8, dtype=torch.float64, generator=_g)
max_rank_S = _stable_rank(_Q @ _K.T / math.sqrt(8))

_K_lesson = torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0],
                          [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]], dtype=torch.float64)
_Q_lesson = torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                          [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]], dtype=torch.float64)
rank_S_lesson = _stable_rank(_Q_lesson @ _K_lesson.T / 2.0)''',
    }, {"mistake": "Both ranks are measured after adding 1e-6 * I 'for numerical stability'. The ridge is far above "
                   "matrix_rank's tolerance, so it lifts every zero singular value and the matrices come out full "
                   "rank: 100 instead of d_k = 8, and 5 instead of 2 for the lesson's scores.",
        "where": ["q11"]}),

    "q12_output_projection_skipped_when_d_v_equals_d_model": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    d_model, d_k, d_v = int(d_model), int(d_k), int(d_v)
    if min(d_model, d_k, d_v) < 0:
        raise ValueError("sizes must be non-negative")
    n = d_model * (2 * d_k + d_v)
    # W_O only brings the outputs back to d_model: when d_v is already d_model there is nothing to project
    if with_output and d_v != d_model:
        n += d_v * d_model
    return n''',
    }, {"mistake": "With with_output true, W_O is left out whenever d_v == d_model, on the reasoning that no "
                   "projection is needed. The question asks for the weights of W_O (d_v x d_model) whenever it is "
                   "included, so the count is d_model^2 short in that case.",
        "where": ["q12"]}),

    "q13_mask_skipped_when_every_entry_is_nonzero": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is None or M.all():
        A = attention_weights(S)        # no mask, or a mask that keeps every key: plain softmax
    else:
        A = attention_weights(S, M)
    return A @ V, A''',
    }, {"mistake": "The shortcut reads M.all() as 'the mask keeps every key', a keep-mask habit. For an additive "
                   "mask, all() is true when no entry is 0, e.g. a soft bias mask or a mask that blocks every key, "
                   "and then the mask is ignored: the weights are the plain softmax of the scores.",
        "where": ["q13"]}),

    "q16_trial_counts_padded_batches_answers_not_at_all": ({
        COST_ANS: '''# score entries actually computed: a data loader pads every batch to the model's maximum length, so
# count the padded case
_MAX_LEN = 512


def _score_macs(T, d_k=64, max_len=_MAX_LEN):
    T_padded = max(T, max_len)
    return T_padded * T_padded * d_k


_ratio = _score_macs(200) / _score_macs(100)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]''',
    }, {"mistake": "The trial counts the padded case: both lengths are padded to 512 tokens, so the count does not "
                   "change and the answer is b. The question is about the T^2 scores of one sequence of length T, "
                   "which quadruple when T doubles (c).",
        "where": ["q16"]}),
}
