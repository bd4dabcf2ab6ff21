"""Blind held-out set 70 for attention-pipeline.

Seventieth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, the top of blind69.py (for the format and the docstring), and only the variant names of the
earlier blind sets (to avoid repeating a mistake in the same form).

Round 70's angle: CODE AN AI ASSISTANT WROTE, OR A STUDENT PASTED FROM ONE. Every cell is fluent and
idiomatic (docstrings, type hints, einsum, torch.nn.functional, keyword arguments, `if M is not None`), with
one confident wrong detail: queries returned already multiplied by d_k**-0.5 "as many implementations fold
the scale into the query projection", so scaled_scores divides a second time (q01); a `scale=` keyword
modelled on scaled_dot_product_attention but defaulted to sqrt(d_k) and multiplied in (q02); the causal mask
built from a tril keep-mask handed to masked_fill, whose True means "fill", so the past is blocked and the
future open (q04); the additive mask "normalised" to a 4-D (batch, head, T_q, T_k) view, which grows the
weights' rank (q05); attention dropout gated on torch.is_grad_enabled(), which is on outside no_grad (q07);
the kernel scale written `d_k ** -1 / 2` (q08); the prefix average returned with a leading batch axis "for
broadcasting" (q09); W_O sized d_model x d_model like nn.MultiheadAttention's out_proj (q12); the padding
mask applied with masked_fill(-inf), NaN when every key of a row is blocked (q13); the memory sequence
LayerNorm'd before its key/value projections "as in a pre-norm decoder" (q13). The written answers carry an
assistant's confident wrong explanation: larger score variance called "more uncertainty" (q03 a);
masked_fill believed non-differentiable (q06 d); SDPA's is_causal square rule read as when a causal mask
makes sense (q15 c); FlashAttention's linear memory read as linear cost (q16 a).

Public material found with the `search` tool, and what it showed:
- lucidrains/halonet-pytorch#4 ("masked_fill_(mask, value) fills ... where mask is True", the mask had to be
  inverted), karpathy/nanoGPT#170 (tril vs triu with `== 0`), rasbt/LLMs-from-scratch#1061 and
  lucidrains/x-transformers#160 (True = attend in SDPA, True = blocked elsewhere): the q04 keep-mask handed to
  masked_fill.
- pytorch/pytorch#103082 (SDPA's is_causal mask is a tril aligned to the top-left corner, ambiguous when
  L != S): the q15 explanation that reads SDPA's square-mask rule as the condition.
- pytorch/pytorch#131060 (SDPA gives NaN for fully masked rows), robertknight/rten#1321 and tracel-ai/burn#4697
  (NaN from fully -inf rows), the HF Space ScaledDotProductAttention with `masked_fill(mask, -np.inf)`: q13's
  -inf fill.
- pytorch/pytorch#26338 and Coderx7/SimpleNet#2 (F.dropout is active unless `training` is passed False): the
  q07 dropout gated on a flag that is on outside training.
- the SDPA-like `scale` parameter documented as "default 1/sqrt(d_k)" (scirs2-linalg, OpenVINO opset13
  ScaledDotProductAttention pseudo-code `scale = 1 / Sqrt(E)`) and diffusion-rs's doc line "softmax(QK^T*sqrt(d_k))":
  q02's scale keyword defaulted to sqrt(d_k) and multiplied.
- The remaining kinds follow the brief's list for assistant-written code: a "helpful" extra step (q01 prescaled
  queries, q05 4-D mask view, q09 batch axis, q13 pre-norm memory), a convention from another library (q12
  MultiheadAttention out_proj), an operator-precedence slip in a clean expression (q08), and answer cells with a
  fluent wrong explanation (q03, q06, q15, q16).

The correct variants read like assistant output too: einsum projections and scores with the scale as a
Python float and a softmax in a promoted dtype cast back; a mask from torch.full(...).triu(1), a kernel
smoother in the log domain with a max shift, the prefix average as the softmax of the float64 causal mask;
a typed pipeline with keyword arguments, entropy from torch.special.xlogy, exp2 for effective tokens, a
typed parameter count; answers with assistant-style comments.

Every variant was checked with a throwaway script under /tmp/w70-attention-pipeline/: each variant's
notebook built with harness.build_notebook and run top to bottom (all code cells but otter's), then every
function compared with full_marks' functions and with plain torch (torch.softmax of S + M,
F.scaled_dot_product_attention) on unbatched and batched inputs, T_q != T_k, d_k != d_v, float64, float32,
float16, with causal masks, padding masks and a fully blocked row; every written answer compared with the
right letter or integer. The correct variants agree everywhere; each wrong variant differs in its own
questions and only in those listed in "where".

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
    # einsum projections and scores, softmax in a promoted dtype and cast back
    "einsum_projection_einsum_scores_and_promoted_functional_softmax": {
        PROJ: '''import torch.nn.functional as F


def project_qkv(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor):
    """Project token rows X (..., T, d_model) to queries, keys and values."""
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...td,dk->...tk", X, W_K)
    V = torch.einsum("...td,dv->...tv", X, W_V)
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """Scaled dot-product scores of shape (..., T_q, T_k)."""
    d_k = Q.size(-1)
    scale = 1.0 / math.sqrt(d_k)
    return torch.einsum("...qd,...kd->...qk", Q, K) * scale
''',
        WEIGHTS: '''def attention_weights(S: torch.Tensor, M: torch.Tensor | None = None) -> torch.Tensor:
    """Row softmax of S (+ M). Computed in at least float32 for stability, returned in S's dtype."""
    if M is not None:
        S = S + M
    compute_dtype = torch.promote_types(S.dtype, torch.float32)
    return F.softmax(S, dim=-1, dtype=compute_dtype).to(S.dtype)
''',
    },
    # mask from torch.full(...).triu(1); kernel smoother in the log domain; prefix average from the mask
    "full_triu_mask_log_domain_kernel_and_softmax_of_float64_mask_prefix": {
        MASK: '''def causal_additive_mask(T: int, dtype: torch.dtype, device=None) -> torch.Tensor:
    """(T, T) additive causal mask: 0 where a key is visible, finfo(dtype).min strictly above the diagonal."""
    neg = torch.finfo(dtype).min
    return torch.full((T, T), neg, dtype=dtype, device=device).triu(diagonal=1)
''',
        NW: '''def nadaraya_watson(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """Nadaraya-Watson average of V with the exponential kernel exp(q.k / sqrt(d_k))."""
    logits = torch.mv(K, q) / math.sqrt(q.size(-1))
    kappa = torch.exp(logits - logits.max())   # the shift cancels in the ratio
    return torch.einsum("t,tv->v", kappa, V) / kappa.sum()
''',
        AVG: '''def prefix_average_matrix(T: int) -> torch.Tensor:
    """Lesson 07's averaging matrix: softmax of the causal mask with all scores 0 (float64)."""
    return torch.softmax(causal_additive_mask(T, torch.float64), dim=-1)
''',
    },
    # typed pipeline with keyword arguments, xlogy entropy, exp2, typed count
    "typed_keyword_pipeline_xlogy_entropy_and_typed_count": {
        SELF: '''def self_attention(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                   causal: bool = True):
    """Single-head self-attention. Returns (O, A)."""
    Q, K, V = project_qkv(X, W_Q=W_Q, W_K=W_K, W_V=W_V)
    S = scaled_scores(Q, K)
    mask = None
    if causal:
        mask = causal_additive_mask(S.size(-1), dtype=S.dtype, device=S.device)
    A = attention_weights(S, M=mask)
    O = torch.matmul(A, V)
    return O, A
''',
        ENT: '''def row_entropy_bits(A: torch.Tensor) -> torch.Tensor:
    """Entropy in bits of each row of A, with 0 log 0 = 0 (xlogy handles it)."""
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2.0)


def effective_tokens(A: torch.Tensor) -> torch.Tensor:
    """2 ** H per row: the effective number of attended tokens."""
    return torch.exp2(row_entropy_bits(A))
''',
        PARAMS: '''def qkv_param_count(d_model: int, d_k: int, d_v: int, with_output: bool = False) -> int:
    """Weights in W_Q, W_K (d_model x d_k each), W_V (d_model x d_v) and optionally W_O (d_v x d_model)."""
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''',
        CROSS: '''def cross_attention(X: torch.Tensor, Y: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor,
                    W_V: torch.Tensor, M: torch.Tensor | None = None):
    """Queries from X, keys and values from Y. Returns (O, A) with A of shape (..., T, T')."""
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M=M)
    return torch.einsum("...ts,...sv->...tv", A, V), A
''',
    },
    # answers with assistant-style explanations (all right)
    "assistant_commented_answers": {
        SCALE_ANS: '''# Without 1/sqrt(d_k) the scores have variance d_k = 512, so the softmax saturates:
# each row puts almost all its weight on one key and its entropy goes to 0.
ans_scale = "b"
''',
        MASK_ANS: '''# Without the mask, position t attends to token t+1, the very target it must predict.
ans_mask = "c"
''',
        RANK: '''# rank(QK^T) <= min(rank Q, rank K) <= d_k, and also <= T.
max_rank_S = min(8, 100)

# The lesson's hand-crafted queries and keys span two directions.
rank_S_lesson = 2
''',
        SHAPES_ANS: '''# One score per (query of X, key of Y): T x T'; each query gets a d_v-dimensional output.
ans_cross_shapes = "b"
''',
        CAUSAL_ANS: '''# Causality is about a shared time axis, not about equal lengths.
ans_cross_causal = "d"
''',
        COST_ANS: '''# T^2 scores, d_k multiply-adds each.
ans_complexity = "c"
''',
    },
}

WRONG = {
    # --- q01: scale folded into the query projection, then applied again by scaled_scores
    "q01_queries_returned_prescaled_by_inverse_root_d_k": ({
        PROJ: '''def project_qkv(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor):
    """Compute Q, K, V for token rows X (..., T, d_model).

    As in many efficient implementations, the 1/sqrt(d_k) scaling is folded into the queries here,
    which saves a multiply on the (T x T) score matrix.
    """
    d_k = W_Q.shape[-1]
    Q = (X @ W_Q) * d_k ** -0.5
    K = X @ W_K
    V = X @ W_V
    return Q, K, V
''',
    }, {"mistake": "The queries come back already multiplied by 1/sqrt(d_k), so Q is not X W_Q, and self_attention, "
                   "whose scaled_scores divides by sqrt(d_k) again, scores with 1/d_k: flatter rows. "
                   "project_qkv must return the plain products.",
        "where": ["q01", "q07"]}),

    # --- q02: SDPA-like scale keyword defaulted to sqrt(d_k) and multiplied in
    "q02_sdpa_style_scale_keyword_defaulted_to_root_d_k_and_multiplied": ({
        SCORES: '''def scaled_scores(Q: torch.Tensor, K: torch.Tensor, scale: float | None = None) -> torch.Tensor:
    """Scaled dot-product scores (..., T_q, T_k).

    Args:
        scale: scaling factor applied to the scores; defaults to sqrt(d_k) like
            torch.nn.functional.scaled_dot_product_attention.
    """
    if scale is None:
        scale = math.sqrt(Q.size(-1))
    return torch.matmul(Q, K.transpose(-2, -1)) * scale
''',
    }, {"mistake": "The default scale is sqrt(d_k) and it multiplies the scores (SDPA's scale is 1/sqrt(d_k)), so "
                   "S = QK^T * sqrt(d_k) instead of QK^T / sqrt(d_k): scores d_k times too large, weights too peaked "
                   "in self- and cross-attention.",
        "where": ["q02", "q07", "q13"]}),

    # --- q03: larger score variance read as more uncertainty
    "q03_larger_score_variance_called_more_uncertainty_answers_a": ({
        SCALE_ANS: '''# Removing the 1/sqrt(d_k) factor increases the variance of the scores (to d_k = 512).
# Higher variance means more uncertainty in the attention logits, so the distribution over keys
# becomes more spread out and the row entropies rise toward log2(t).
ans_scale = "a"
''',
    }, {"mistake": "Answers 'a' (rows flatter): unscaled scores with variance 512 make the softmax saturate on one "
                   "key, so the entropies fall toward 0 ('b'); larger logit spread means less uncertainty, not more.",
        "where": ["q03"]}),

    # --- q04: tril keep-mask passed to masked_fill, where True means fill
    "q04_tril_keep_mask_handed_to_masked_fill_blocks_the_past": ({
        MASK: '''def causal_additive_mask(T: int, dtype: torch.dtype, device=None) -> torch.Tensor:
    """Additive causal mask (T, T): 0 for allowed positions, finfo(dtype).min for blocked ones."""
    allowed = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))  # positions a query may see
    mask = torch.zeros(T, T, dtype=dtype, device=device)
    return mask.masked_fill(allowed, torch.finfo(dtype).min)
''',
    }, {"mistake": "masked_fill writes where its condition is True, and the condition is the lower-triangular "
                   "'allowed' matrix, so the diagonal and the past get finfo.min and the future stays 0: every "
                   "query sees only later tokens (the last row is fully blocked and uniform).",
        "where": ["q04", "q07", "q09"]}),

    # --- q05: mask forced into a 4-D (batch, heads, T_q, T_k) view
    "q05_mask_viewed_as_batch_head_four_dims_grows_weight_rank": ({
        WEIGHTS: '''import torch.nn.functional as F


def attention_weights(S: torch.Tensor, M: torch.Tensor | None = None) -> torch.Tensor:
    """Row softmax of the scores, with an optional additive mask.

    The mask is reshaped to (batch, heads, T_q, T_k) so it broadcasts over batch and heads.
    """
    if M is not None:
        M = M.view(-1, 1, M.size(-2), M.size(-1))
        S = S + M
    return F.softmax(S, dim=-1)
''',
    }, {"mistake": "Viewing the mask as (B, 1, T_q, T_k) adds axes: with a (T, T) mask the weights of unbatched "
                   "or 3-D scores come back with two or one extra leading axes ((1, 1, T, T) for (T, T) scores), "
                   "and a batched (B, T, T) mask is put on a new axis instead of the batch axis.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: masked_fill believed to block gradients
    "q06_masked_fill_believed_non_differentiable_answers_d": ({
        MASK_ANS: '''# The causal mask sets future scores to a huge negative value, and masked_fill is not differentiable
# with respect to the filled positions. Without it, gradients would flow through those entries;
# with it, no gradient can reach them, which is what the question is about.
ans_mask = "d"
''',
    }, {"mistake": "Answers 'd' (no gradient through blocked entries): that is a property of the mask being on, "
                   "not a reason training without it fails. Without the mask position t reads token t+1, its own "
                   "target, so the model learns to copy, which is impossible when generating ('c').",
        "where": ["q06"]}),

    # --- q07: attention dropout gated on grad mode
    "q07_attention_dropout_gated_on_grad_mode_runs_outside_no_grad": ({
        SELF: '''import torch.nn.functional as F


def self_attention(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor, W_V: torch.Tensor,
                   causal: bool = True, dropout_p: float = 0.1):
    """Single-head self-attention with attention dropout (active only while training)."""
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.size(-2), S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    A = F.dropout(A, p=dropout_p, training=torch.is_grad_enabled())
    return A @ V, A
''',
    }, {"mistake": "Dropout is switched on by torch.is_grad_enabled(), which is True in ordinary code, so 10% of "
                   "the weights are zeroed at random and the rest multiplied by 1/0.9: rows no longer sum to 1 and "
                   "A, O change from call to call (the zero-projection prefix average too).",
        "where": ["q07", "q09"]}),

    # --- q08: d_k ** -1 / 2 precedence
    "q08_inverse_root_written_as_power_minus_one_over_two": ({
        NW: '''def nadaraya_watson(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """Nadaraya-Watson estimate at query q with the kernel exp(q . k_i / sqrt(d_k))."""
    d_k = q.size(-1)
    kappa = torch.exp(torch.mv(K, q) * d_k ** -1 / 2)   # 1 / sqrt(d_k)
    weights = kappa / kappa.sum()
    return weights @ V
''',
    }, {"mistake": "`d_k ** -1 / 2` is (1/d_k)/2, not d_k ** (-1/2): the kernel uses q.k / (2 d_k) instead of "
                   "q.k / sqrt(d_k), so its weights are too flat and the average differs.",
        "where": ["q08"]}),

    # --- q09: prefix average returned with a leading batch axis
    "q09_prefix_average_returned_with_leading_batch_axis": ({
        AVG: '''def prefix_average_matrix(T: int) -> torch.Tensor:
    """Lesson 07's causal averaging matrix, shaped (1, T, T) so it broadcasts over a batch."""
    ones = torch.ones(T, T, dtype=torch.float64).tril()
    counts = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1)
    return (ones / counts).unsqueeze(0)
''',
    }, {"mistake": "The matrix has the right values but comes back with shape (1, T, T) instead of (T, T).",
        "where": ["q09"]}),

    # --- q12: W_O sized like nn.MultiheadAttention's out_proj
    "q12_output_projection_sized_like_multihead_out_proj_square": ({
        PARAMS: '''def qkv_param_count(d_model: int, d_k: int, d_v: int, with_output: bool = False) -> int:
    """Number of weights in W_Q, W_K, W_V (no biases) and optionally the output projection.

    The output projection maps back to the model width, like nn.MultiheadAttention's out_proj
    (embed_dim x embed_dim).
    """
    n = d_model * d_k + d_model * d_k + d_model * d_v
    if with_output:
        n += d_model * d_model
    return n
''',
    }, {"mistake": "W_O is counted as d_model x d_model (MultiheadAttention's out_proj, whose input is all heads "
                   "concatenated) instead of d_v x d_model for this one head: 384*384 instead of 64*384 with W_O.",
        "where": ["q12"]}),

    # --- q13: padding mask applied with -inf via masked_fill
    "q13_padding_mask_filled_with_minus_inf_nan_when_all_keys_blocked": ({
        CROSS: '''def cross_attention(X: torch.Tensor, Y: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor,
                    W_V: torch.Tensor, M: torch.Tensor | None = None):
    """Cross-attention: queries from X, keys/values from Y. Returns (O, A)."""
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        # blocked positions (non-zero mask entries) get -inf so they receive exactly zero weight
        S = S.masked_fill(M != 0, float("-inf"))
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
    }, {"mistake": "Blocked keys are filled with -inf instead of adding the finite mask: a query row whose keys are "
                   "all blocked becomes softmax of all -inf, NaN, where the finite mask gives a uniform row.",
        "where": ["q13"]}),

    # --- q13: memory LayerNorm'd before projecting keys and values
    "q13_memory_layer_normed_before_key_value_projection": ({
        CROSS: '''import torch.nn.functional as F


def cross_attention(X: torch.Tensor, Y: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor,
                    W_V: torch.Tensor, M: torch.Tensor | None = None):
    """Cross-attention of a decoder sequence X over an encoder memory Y. Returns (O, A)."""
    # Normalise the encoder memory first (pre-norm), as in standard Transformer decoders.
    Y = F.layer_norm(Y, Y.shape[-1:])
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Y is layer-normalised before the key and value projections, so K = LN(Y) W_K and "
                   "V = LN(Y) W_V instead of Y W_K and Y W_V: different weights and outputs.",
        "where": ["q13"]}),

    # --- q15: SDPA's is_causal square rule read as the answer
    "q15_sdpa_is_causal_square_rule_read_as_the_condition_answers_c": ({
        CAUSAL_ANS: '''# torch.nn.functional.scaled_dot_product_attention's is_causal=True builds a lower-triangular mask,
# which lines up query i with key i exactly when the two lengths are equal. So a causal mask makes
# sense in cross-attention whenever T == T'.
ans_cross_causal = "c"
''',
    }, {"mistake": "Answers 'c' (whenever T = T'): equal lengths say nothing about time; a causal mask is "
                   "meaningful only when X and Y share one time axis ('d').",
        "where": ["q15"]}),

    # --- q16: FlashAttention's linear memory read as linear cost
    "q16_flash_attention_linear_memory_read_as_linear_cost_answers_a": ({
        COST_ANS: '''# Modern kernels such as FlashAttention never materialise the T x T score matrix and use memory
# linear in T, so computing the scores scales linearly with the sequence length.
ans_complexity = "a"
''',
    }, {"mistake": "Answers 'a' (linear): FlashAttention makes the memory linear, but all T^2 scores are still "
                   "computed with d_k multiply-adds each, so the work quadruples when T doubles ('c').",
        "where": ["q16"]}),
}
