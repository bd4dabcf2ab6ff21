"""Blind held-out set 62 for attention-pipeline.

Sixty-second blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader (`autograder grade`, `tests.heldout.measure`) on these
variants. What was read: the student-facing text and stub cells of attention-pipeline.ipynb, the solution
cells of full_marks.ipynb (tokens are rows, leading batch dimensions allowed, inputs' dtype kept, blocked
entries hold torch.finfo(dtype).min, the prefix average in float64, letters as one-letter strings, both q11
answers Python ints, the q12 count 73728 / 98304 for the lesson), `harness.py`, blind61.py in full (for the
format), and only the variant names of the earlier blind sets (to avoid repeating a mistake in the same form).

Round 62's angle: CODE CARRIED OVER FROM ANOTHER SOURCE'S CONVENTIONS. Each wrong variant is what a student
writes who learned attention from another library, paper or tutorial and brings its convention here, where it
does not hold: Flax's head-last [..., length, heads, head_dim] projections (q01); keys stored as columns,
numpy/CS231n style, so `Q @ K` without a transpose (q02); nn.MultiheadAttention's sequence-first
(length, batch, features) layout in an experiment, with the softmax run over "the sequence axis, which comes
first" (q03) or the score count read off a sequence-first product (q16); the TensorFlow tutorial's
look-ahead mask, where 1 marks a MASKED key, returned as the additive mask (q04); Flax's boolean keep mask
(`where(mask, scores, finfo.min)`, True = attend) applied to the additive mask (q05); Hugging Face's
attention_mask (1 = attend) added as if it were additive (q06); a "stable" log-domain weighted sum taken over
log(V) (q08); d2l.ai's masked_softmax with 0-based valid_lens (q09); Keras MultiHeadAttention's 4-D
(batch, heads, T_q, T_k) scores, whose key axis is 3 (q10); the paper's base model (d_model = 512, h = 8,
d_k = 64) read into q11's "8"; the paper's W_O in R^{h d_v x d_model} with h = d_model / d_k heads (q12);
Flux/NNlib's column-major score layout (kv_len, q_len) (q14); and Keras' causal mask built for any
query/value lengths (q15).
Public material found with the `search` tool, and what it showed:
- flax.readthedocs.io flax.linen.dot_product_attention / DenseGeneral / MultiHeadDotProductAttention ("query
  ... [batch..., q_length, num_heads, qk_depth_per_head]", DenseGeneral "features: int or tuple"; masks "are
  masked out if their corresponding mask value is False"), and diffusers' attention_flax.py
  (`query / jnp.sqrt(k_features)`, einsum "...qhd,...khd->...qhk"): the q01 variant keeps a head axis of 1
  in Q, K, V; the q05 variant treats the additive mask as Flax's boolean keep mask; the prescaled-queries
  correct variant follows the diffusers code.
- PanXiebit/transformer-tf2.0 and ai.stackexchange #23889 (`create_look_ahead_mask`: `1 -
  tf.linalg.band_part(tf.ones((size, size)), -1, 0)`, "it outputs a 1 at those locations", later multiplied
  by -1e9), the DeepLearning.AI forum thread "Transformer Look-ahead Mask" (a student puzzled that 1 marks the
  future): the q04 variant returns that 0/1 matrix as the additive mask.
- mikuh/bert-tf2-keras layers/masked_softmax.py ("attention_mask is 1.0 for positions we want to attend and
  0.0 for masked positions", adder = (1 - mask) * -10000): the q06 variant adds a Hugging Face/BERT keep mask
  (tril of ones) in place of the additive mask in its leak experiment, sees the future weight survive, and
  answers 'd'.
- d2l.ai's masked_softmax / sequence_mask as copied in lms2004/OnnxFlow test/test_op/test.py and
  quan-0811/neural_machine_translation_en_fr utils.py (`arange(maxlen)[None, :] < valid_len[:, None]`,
  value=-1e6): the q09 variant builds the prefix average this way with valid_lens = arange(T) (0-based) — row
  0 has no valid key and comes out uniform over all T keys, row t averages t keys instead of t + 1; the
  correct variant with valid_lens = arange(1, T + 1) gives exactly the right matrix.
- pytorch/pytorch #63560 ("Why is the sequence dimension before batch size dimension for
  nn.MultiheadAttention"), #122959 (shape mismatch, "forgot to set batch_first=True"), karttikeya/minREV #4
  and aipixel/AEMatter #3 ((N, L, E) tensors fed where (L, N, E) was expected, batch read as sequence): the
  q03 variant builds its scale experiment sequence-first and runs the softmax over axis 0 (the single query),
  every weight is 1, both entropies are 0 and it answers 'c'; the q16 variant counts the scores of
  sequence-first (T, 1, d_k) queries and keys, whose product is (T, 1, 1), and answers 'a'.
- Keras MultiHeadAttention docs (rdocumentation layer_multi_head_attention: "attention_scores: multi-head
  attention coefficients over attention axes", (B, heads, T, S)) and the Keras Attention docs: the q10
  variant sums the entropy over axis 3; Keras' `_compute_causal_mask(query, value)` in keras-team/keras
  multi_head_attention.py ("a lower triangular matrix of shape [T, S]" from band_part of ones((1, T, S)))
  behind the q15 variant, which sees a causal mask built for any two lengths and answers 'a'.
- fluxml.ai Flux.MultiHeadAttention docs (query (q_in_dim, q_len, batch), "bias ... broadcastable to size
  (kv_len, q_len, nheads, batch_size)"): the q14 variant answers 'c' with the column-major score layout
  kv_len x q_len in mind.
- tensorflow.org / rdrr.io Keras Attention docs (`scores = tf$matmul(query, key, transpose_b=TRUE)`, value
  (batch, Tv, dim)) and hacobe/notes dot_product_attention.py ("Q K^T: [n_q, d] [d, n_kv]"): the q02 variant
  is the student whose keys are already (d_k, T_k) columns.
The q08 (log-domain weighted sum), q11 (the paper's d_k = d_model / h = 512 / 8 = 64 with h = 8 read into
"8") and q12 (the paper's W_O of size h d_v x d_model, h = d_model / d_k) variants come from the
"Attention Is All You Need" notation and the log-sum-exp trick as the brief lists them. q07 and q13 are
reached through `where`: the q01, q02, q04 and q05 variants break self_attention (q07); the q02, q04 and q05
variants break or may break cross_attention (q13; q04 in case its checks build the mask with the student's
function), and these may reach q09's zero-projection check and q10's checks.

The correct variants are the same pipeline written in the other sources' conventions, read right: the
projections in the paper's column convention with .mT on both sides, and a mask from a TF-style keep triangle
inverted into a masked_fill condition; Flax's prescaled queries (q / sqrt(d_k)) before the product; d2l's
masked_softmax with 1-based valid_lens for the prefix average and xlogy entropies in nats converted to bits;
a JAX-style stable softmax (shift by the row max, upcast to float32 for 16-bit inputs, cast back); and
cross-attention by einsum "...td,dk->...tk" with a parameter count from math.prod over the weight shapes.

Each wrong variant changes one cell of an otherwise full-marks notebook and holds exactly one mistake;
`where` lists every question whose tests may lose points. Every variant was checked with a throwaway script
under /tmp/w62-attention-pipeline/: each variant's notebook run top to bottom (all code cells but otter's;
the public checks themselves were not run), then every function compared with plain torch (`torch.softmax`,
`torch.nn.functional.scaled_dot_product_attention` with is_causal and with an additive attn_mask blocking a
padded key, the notebook's own formulas in float64, `torch.special.xlogy` entropies) on unbatched, (2,) and
(2, 3) batched inputs, T_q != T_k, d_k != d_v, T from 1 to 9, in float64, float32, float16 and bfloat16,
the zero-projection self-attention against the prefix average, the count on several argument sets, and every
written answer compared with the right letter or integer; full_marks and the correct variants agree
everywhere (16-bit dtypes within their precision), and each wrong variant differs or fails in its own
question and only in questions listed in its `where`.

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
    # the paper's column convention (Q^T = W_Q^T X^T) with .mT on both sides, so batched inputs keep their
    # leading axes; the mask from a TF-style keep triangle (band_part(ones, -1, 0)) inverted into the
    # masked_fill condition
    "column_convention_mt_projection_and_inverted_keep_triangle_mask": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Xt = X.mT                                   # (..., d_model, T): tokens as columns
    return (W_Q.mT @ Xt).mT, (W_K.mT @ Xt).mT, (W_V.mT @ Xt).mT
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    keep = torch.ones(T, T, dtype=torch.bool, device=device).tril()     # True = may attend
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(~keep, torch.finfo(dtype).min)
''',
    },
    # Flax / diffusers style: the queries are divided by sqrt(d_k) BEFORE the product (same scores)
    "flax_prescaled_queries_scores": {
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return (Q / math.sqrt(d_k)) @ K.transpose(-2, -1)
''',
    },
    # d2l.ai's masked_softmax with 1-based valid lengths (row t sees t keys) in float64, and the entropy
    # from xlogy in nats converted to bits
    "d2l_valid_lens_prefix_and_xlogy_bits_entropy": {
        AVG: '''def prefix_average_matrix(T):
    X = torch.zeros(T, T, dtype=torch.float64)
    valid_lens = torch.arange(1, T + 1)
    keep = torch.arange(T)[None, :] < valid_lens[:, None]
    X[~keep] = -1e6                             # exp(-1e6) is exactly 0 in float64
    return torch.softmax(X, dim=-1)
''',
        ENT: '''def row_entropy_bits(A):
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # jax.nn.softmax written out: shift by the row max, computed in float32 for 16-bit inputs, cast back
    "jax_style_max_shifted_upcast_softmax": {
        WEIGHTS: '''def attention_weights(S, M=None):
    Z = S if M is None else S + M
    work = Z.float() if Z.dtype in (torch.float16, torch.bfloat16) else Z
    unnormalized = torch.exp(work - work.amax(dim=-1, keepdim=True))
    return (unnormalized / unnormalized.sum(dim=-1, keepdim=True)).to(Z.dtype)
''',
    },
    # cross-attention through einsum with an ellipsis for the batch axes, and the count as math.prod
    # over the weight shapes
    "einsum_cross_and_math_prod_shape_count": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.einsum("...td,dk->...tk", X, W_Q)
    K = torch.einsum("...sd,dk->...sk", Y, W_K)
    V = torch.einsum("...sd,dv->...sv", Y, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return torch.einsum("...ts,...sv->...tv", A, V), A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(math.prod(s) for s in shapes)
''',
    },
}

WRONG = {
    # flax.linen.dot_product_attention: query [batch..., q_length, num_heads, qk_depth_per_head]
    "q01_flax_head_axis_kept_in_projections": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # DenseGeneral(features=(num_heads, head_dim)) layout: [..., length, heads, head_dim], one head
    Q = (X @ W_Q).unsqueeze(-2)
    K = (X @ W_K).unsqueeze(-2)
    V = (X @ W_V).unsqueeze(-2)
    return Q, K, V
''',
    }, {"mistake": "Returns Flax-style head-last projections with a head axis of size 1, (..., T, 1, d) "
                   "instead of (..., T, d); the extra axis is not asked for, and the scores computed from "
                   "them come out (..., T, 1, 1), so self-attention breaks.",
        "where": ["q01", "q07", "q09", "q10"]}),

    # Keras Attention docs: scores = matmul(query, key, transpose_b=True); keys here are ROWS
    "q02_keys_assumed_stored_as_columns_no_transpose": ({
        SCORES: '''def scaled_scores(Q, K):
    # keys kept as columns (d_k, T_k), numpy/CS231n style, so Q @ K is already the score matrix
    d_k = Q.shape[-1]
    return Q @ K / math.sqrt(d_k)
''',
    }, {"mistake": "Multiplies Q @ K without transposing the keys, as if K were stored as (d_k, T_k) columns; "
                   "K is (T_k, d_k) rows, so it raises unless T_k == d_k and then gives Q K instead of "
                   "Q K^T.",
        "where": ["q02", "q07", "q09", "q10", "q13"]}),

    # pytorch/pytorch #63560 / #122959: nn.MultiheadAttention is (L, N, E), sequence first
    "q03_sequence_first_experiment_softmax_over_query_axis_answers_nothing_changes": ({
        SCALE_ANS: '''_g = torch.Generator().manual_seed(0)
_d_k = 512
# nn.MultiheadAttention layout: (length, batch, features), the sequence axis first
_q = torch.randn(1, 1, _d_k, generator=_g, dtype=torch.float64)   # L = 1 query
_K = torch.randn(8, 1, _d_k, generator=_g, dtype=torch.float64)   # S = 8 keys
_raw = torch.einsum("lne,sne->lsn", _q, _K)                        # (L, S, N)
_scaled = _raw / math.sqrt(_d_k)


def _entropy_bits(S):
    A = torch.softmax(S, dim=0)                  # over the sequence axis, which comes first
    return float(-(torch.special.xlogy(A, A) / math.log(2)).sum(dim=1).mean())


_h_raw, _h_scaled = _entropy_bits(_raw), _entropy_bits(_scaled)
ans_scale = "b" if _h_raw < _h_scaled - 1e-9 else ("a" if _h_raw > _h_scaled + 1e-9 else "c")
''',
    }, {"mistake": "Runs the scale experiment in nn.MultiheadAttention's sequence-first layout and takes the "
                   "softmax over axis 0, which here is the single query, not the 8 keys; every weight is 1, "
                   "both entropies are 0, and it answers 'c' (nothing changes) instead of 'b'.",
        "where": ["q03"]}),

    # TF tutorial create_look_ahead_mask: 1 - band_part(ones, -1, 0), 1 marks a masked (future) key
    "q04_tf_look_ahead_ones_returned_as_additive_mask": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # 1 - band_part(ones, -1, 0): 1 where the key is in the future
    ones = torch.ones(T, T, dtype=dtype, device=device)
    return 1 - torch.tril(ones)
''',
    }, {"mistake": "Returns the TensorFlow tutorial's look-ahead mask, 1 above the diagonal and 0 elsewhere "
                   "(1 = masked), as the ADDITIVE mask; adding 1 to a score blocks nothing, so the future "
                   "keys keep their weight (the entries should be torch.finfo(dtype).min).",
        "where": ["q04", "q07", "q09", "q10", "q13"]}),

    # flax docs: "Attention weights are masked out if their corresponding mask value is False"
    "q05_flax_keep_mask_where_applied_to_additive_mask": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        # jnp.where(mask, attn_weights, big_neg), big_neg = finfo(dtype).min
        S = torch.where(M.bool(), S, torch.finfo(S.dtype).min)
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Applies the additive mask as Flax's boolean keep mask, where(M, S, finfo.min); M is 0 "
                   "on the open keys (False) and nonzero on the blocked ones (True), so the open keys are "
                   "blocked and the future keys kept (a row with no future key comes out uniform).",
        "where": ["q05", "q07", "q09", "q10", "q13"]}),

    # mikuh/bert-tf2-keras masked_softmax: "attention_mask is 1.0 for positions we want to attend"
    "q06_hf_keep_mask_added_in_leak_experiment_answers_no_gradient": ({
        MASK_ANS: '''_g6 = torch.Generator().manual_seed(0)
_S6 = torch.randn(6, 6, generator=_g6, dtype=torch.float64)
# Hugging Face convention: attention_mask is 1 for the tokens to attend to, 0 for the others
_keep6 = torch.tril(torch.ones(6, 6, dtype=torch.float64))
_open6 = attention_weights(_S6)
_masked6 = attention_weights(_S6, _keep6)
_leak_open = torch.triu(_open6, diagonal=1).sum()
_leak_masked = torch.triu(_masked6, diagonal=1).sum()
# if the mask stops the weight on future tokens, the leak is what goes wrong; otherwise blame the gradient
ans_mask = "c" if _leak_masked < 1e-12 < _leak_open else "d"
''',
    }, {"mistake": "Tests the leak with a Hugging Face keep mask (1 = attend) passed where an additive mask "
                   "goes; adding 0/1 blocks nothing, the 'masked' weights still reach future tokens, and it "
                   "answers 'd' (no gradient) instead of 'c'.",
        "where": ["q06"]}),

    # the log-sum-exp trick carried to the numerator: log of the values
    "q08_log_domain_weighted_sum_takes_log_of_values": ({
        NW: '''def nadaraya_watson(q, K, V):
    # everything in log space (log-sum-exp) so that no exponential overflows
    s = K @ q / math.sqrt(q.shape[-1])
    log_num = torch.logsumexp(s[:, None] + torch.log(V), dim=0)
    return torch.exp(log_num - torch.logsumexp(s, dim=0))
''',
    }, {"mistake": "Computes the weighted average in log space, logsumexp(s + log V) - logsumexp(s); log V is "
                   "NaN for negative values (and the exp cannot give a negative result), so it is right "
                   "only for non-negative values.",
        "where": ["q08"]}),

    # d2l.ai masked_softmax / sequence_mask: arange(maxlen)[None, :] < valid_len[:, None], value=-1e6
    "q09_d2l_masked_softmax_valid_lens_from_zero": ({
        AVG: '''def prefix_average_matrix(T):
    # d2l's masked_softmax on zero scores: keep the first valid_len keys of each row
    X = torch.zeros(T, T, dtype=torch.float64)
    valid_lens = torch.arange(T)
    keep = torch.arange(T)[None, :] < valid_lens[:, None]
    X[~keep] = -1e6
    return torch.softmax(X, dim=-1)
''',
    }, {"mistake": "Builds the prefix average with d2l's masked_softmax and 0-based valid lengths "
                   "arange(T); row t keeps t keys instead of t + 1, so row 0 has none and comes out uniform "
                   "1/T over every key, and each later row averages one key too few.",
        "where": ["q09", "q10"]}),   # q10 in case its checks feed the student's prefix average

    # Keras MultiHeadAttention: attention_scores (B, num_heads, T, S), the keys on axis 3
    "q10_entropy_summed_over_keras_scores_axis_three": ({
        ENT: '''def row_entropy_bits(A):
    # attention scores are (batch, heads, T_q, T_k): the keys are axis 3
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=3)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Sums the entropy over axis 3, the key axis of Keras' 4-D (batch, heads, T_q, T_k) "
                   "scores; the key axis is the LAST one, so it raises on 2-D and 3-D weights (and sums "
                   "over the wrong axis on 5-D ones).",
        "where": ["q10"]}),

    # "Attention Is All You Need": d_model = 512, h = 8, d_k = d_v = d_model / h = 64
    "q11_eight_read_as_paper_heads_rank_from_d_model_over_h": ({
        RANK: '''# the paper's base model: d_model = 512 split over h = 8 heads, d_k = d_model / h
_d_model, _h = 512, 8
_d_k = _d_model // _h
max_rank_S = min(100, _d_k)

rank_S_lesson = 2
''',
    }, {"mistake": "Reads the head's 8 as the paper's h = 8 heads and takes d_k = 512 / 8 = 64 from the "
                   "paper's base model, so max_rank_S is min(100, 64) = 64 instead of d_k = 8.",
        "where": ["q11"]}),

    # the paper: W^O in R^{h d_v x d_model}
    "q12_output_projection_sized_for_all_paper_heads": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output:
        # W_O is (h * d_v) x d_model, with h = d_model / d_k heads
        h = d_model // d_k
        n += h * d_v * d_model
    return n
''',
    }, {"mistake": "Sizes W_O as the paper's (h d_v) x d_model with h = d_model / d_k heads, so the output "
                   "term is counted h times (147456 for the lesson instead of 24576); the block has one head "
                   "and W_O is d_v x d_model.",
        "where": ["q12"]}),

    # Flux.MultiHeadAttention docs: scores (kv_len, q_len, nheads, batch_size), column-major
    "q14_flux_column_major_scores_kv_by_q_answers_c": ({
        SHAPES_ANS: '''# Flux / NNlib: the attention scores are (kv_len, q_len, ...), keys first, so S is T' x T
ans_cross_shapes = "c"
''',
    }, {"mistake": "Carries over Flux/NNlib's column-major layout, where the scores are kv_len x q_len, and "
                   "picks 'c' (S: T' x T, O: T' x d_v); with tokens as rows S is T x T' and O is T x d_v "
                   "('b').",
        "where": ["q14"]}),

    # keras multi_head_attention.py _compute_causal_mask(query, value): band_part(ones((1, T, S)), -1, 0)
    "q15_keras_causal_mask_for_any_lengths_read_as_always": ({
        CAUSAL_ANS: '''# Keras MultiHeadAttention(use_causal_mask=True) builds the causal mask from the query and value
# lengths, ones((T, S)).tril(), so it applies to cross-attention with any two lengths
_T15, _S15 = 3, 5
_causal15 = torch.ones(_T15, _S15, dtype=torch.bool).tril()
ans_cross_causal = "a" if _causal15.shape == (_T15, _S15) else "c"
''',
    }, {"mistake": "Takes the fact that Keras can build a lower-triangular mask for any query and value "
                   "lengths as a reason to mask every attention layer and answers 'a' (always) instead of "
                   "'d' (only when X and Y share one time axis).",
        "where": ["q15"]}),

    # pytorch/pytorch #63560: nn.MultiheadAttention's (L, N, E) with batch_first=False
    "q16_sequence_first_score_count_answers_linear": ({
        COST_ANS: '''def _score_count(T, d_k=16, batch=1):
    # (length, batch, features), as nn.MultiheadAttention takes them
    g = torch.Generator().manual_seed(T)
    Q = torch.randn(T, batch, d_k, generator=g)
    K = torch.randn(T, batch, d_k, generator=g)
    return (Q @ K.transpose(-2, -1)).numel()


_ratio = _score_count(256) / _score_count(128)
ans_complexity = {2: "a", 4: "c", 8: "d"}.get(round(_ratio), "b")
''',
    }, {"mistake": "Counts the scores of sequence-first (T, 1, d_k) queries and keys with the batch-first "
                   "product Q @ K^T, which treats T as the batch and gives (T, 1, 1); the count doubles with "
                   "T and it answers 'a' (linear) instead of 'c' (quadratic).",
        "where": ["q16"]}),
}
