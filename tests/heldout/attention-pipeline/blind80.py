"""Blind held-out set 80 for attention-pipeline.

Eightieth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind79.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 80's angle: HABITS CARRIED OVER FROM ANOTHER FRAMEWORK OR LANGUAGE. Each wrong variant is careful
torch code with one convention that is right in JAX, TensorFlow/Keras, MATLAB, R or Julia and wrong here:
MATLAB's `cat` of the three projections into one array (q01); JAX's `jnp.sqrt(d_k)` ported as a torch
square root of an integer tensor, which is computed in float32 (q02); a JAX habit that the library applies
the default 1/sqrt(d) scale anyway (q03); a hand-ported `tf.linalg.band_part(ones, 0, -1)` read as "strictly
above", although band_part keeps the diagonal (q04); the Keras `Softmax` layer's keep-mask formula
`x + (1 - mask) * -1e9` applied to an additive mask (q05); Keras's "masked timesteps get no gradient" (q06);
a Julia (features, time) output layout (q07); JAX's functional update (`x.at[].set`) turned into an
out-of-place `div` whose result is never used (q08); R's `apply(x, 1, f)`, which returns the per-row results
as columns (q09); Keras's `categorical_crossentropy(from_logits=False)` ported to `F.cross_entropy`, which
takes logits and a class axis of 1 (q10); Keras's `key` argument that defaults to `value` (q13); R's
`crossprod(K, Q)` layout for the score matrix (q14); Flax's `make_causal_mask(x)`, built from one sequence
(q15); MATLAB's "one matrix-vector call per query" cost model (q16).

Public material found with the `search` tool, and what it showed:
- github.com/tensorflow/tensorflow/issues/45854 and /issues/49237 (Keras MultiHeadAttention masking: a boolean
  `attention_mask` of shape [B, T, S] with 1 = attend, against the tutorial's (batch, 1, 1, seq_len)
  additive look-ahead/padding masks), github.com/keras-team/keras/pull/20511 (the Keras mask always cast to
  bool), github.com/pytorch/pytorch/pull/33763 (torch's key_padding_mask where 1 = blocked, the opposite
  polarity) and github.com/lucidrains/performer-pytorch/issues/89 (a user unsure whether mask 1 means keep or
  pad): the mask-polarity confusions behind q05 and q13 and the band_part port of q04.
- pytorch.org/docs/stable/generated/torch.var.html, runebook.dev's copy of it, and tutorialexample.com's page
  on `unbiased` (torch.var's Bessel correction and keepdim, against NumPy's ddof=0): defaults that differ
  between array libraries of the same name, the pattern of q02 (float32 default of torch tensors built from
  Python ints, as in JAX) and q10 (Keras's from_logits=False against torch's logits-only cross_entropy).
- The remaining kinds (MATLAB `cat`, R `apply` returning columns, R `crossprod`, Flax `make_causal_mask`,
  JAX functional updates, Julia column-major output) follow the brief's list of framework habits.

The correct variants read like ports too, with the idiom kept where it is right in torch: a band_part helper
built right (num_lower=-1, num_upper=0 keeps the lower triangle) and a softmax with explicit `dim=-1`; MATLAB's
`W' * x'` column convention converted back at the boundary; R's recycling made explicit with `[:, None]` and a
MATLAB-style `nansum` entropy; Keras's query/value/key naming with the key projected by W_K; answers chosen by a
1-based option number converted to 0-based.

Every variant was checked with a throwaway script under /tmp/w80-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
and answer compared with those of the unmodified full_marks.ipynb and with torch.softmax /
torch.nn.functional.scaled_dot_product_attention on unbatched, batched and 4-D inputs, T_q != T_k,
d_k != d_v, float64, float32 and float16, with and without masks.

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
    # a hand-ported tf.linalg.band_part, used the right way round; tf.nn.softmax(axis=-1) -> dim=-1
    "band_part_helper_mask_and_explicit_last_dim_softmax": {
        MASK: '''def band_part(x, num_lower, num_upper):
    # tf.linalg.band_part: keep entries with (i - j) <= num_lower and (j - i) <= num_upper; -1 = unbounded
    i = torch.arange(x.shape[-2], device=x.device)[:, None]
    j = torch.arange(x.shape[-1], device=x.device)[None, :]
    keep = torch.ones(x.shape[-2], x.shape[-1], dtype=torch.bool, device=x.device)
    if num_lower >= 0:
        keep = keep & (i - j <= num_lower)
    if num_upper >= 0:
        keep = keep & (j - i <= num_upper)
    return torch.where(keep, x, torch.zeros_like(x))


def causal_additive_mask(T, dtype, device=None):
    visible = band_part(torch.ones(T, T, device=device), -1, 0).bool()   # lower triangle, diagonal included
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(~visible, torch.finfo(dtype).min)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    logits = S if M is None else S + M
    return torch.softmax(logits, dim=-1)   # tf.nn.softmax(logits, axis=-1)
''',
    },
    # MATLAB's column convention (W' * x') converted back to rows at the boundary
    "matlab_column_convention_converted_at_the_boundary": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # MATLAB: Q = W_Q' * X' (features by time); torch rows are tokens, so transpose back at the end
    return tuple((W.mT @ X.mT).mT for W in (W_Q, W_K, W_V))
''',
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    Kc = K.mT                          # keys stored as columns, (..., d_k, T_k)
    return (Q @ Kc) / math.sqrt(d_k)   # (..., T_q, T_k): queries on rows
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.shape[-2]                    # time is the second-to-last axis in torch, not axis 1 as in Keras
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
''',
    },
    # R's recycling made explicit; MATLAB's nansum for 0 log 0
    "r_recycling_made_explicit_and_matlab_nansum_entropy": {
        AVG: '''def prefix_average_matrix(T):
    L = torch.tril(torch.ones(T, T, dtype=torch.float64))
    counts = torch.arange(1, T + 1, dtype=torch.float64)   # R's 1:T
    return L / counts[:, None]     # R recycles a vector down the rows; torch needs the column made explicit
''',
        ENT: '''def row_entropy_bits(A):
    # MATLAB: -nansum(A .* log2(A), 2); 0 * log2(0) is NaN and is skipped like 0 log 0 = 0
    return -torch.nansum(A * torch.log2(A), dim=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    w = kappa / kappa.sum()        # the normalised weights are assigned, not left as a discarded copy
    return w @ V
''',
    },
    # Keras naming (query, value, key) with the key projected by W_K; answers from 1-based option numbers
    "keras_named_cross_attention_and_one_based_option_answers": {
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    query, value, key = X, Y, Y          # Keras: key defaults to value, and both come from Y
    Q, K, V = query @ W_Q, key @ W_K, value @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
        SHAPES_ANS: '''options = "abcd"
ans_cross_shapes = options[2 - 1]     # option 2 (MATLAB numbering) is b: S is T x T', O is T x d_v
''',
        COST_ANS: '''ans_complexity = "abcd"[3 - 1]        # option 3 (1-based) is c: T^2 scores
''',
        RANK: '''max_rank_S = min(8, 100)             # rank(S) <= min(rank Q, rank K) <= d_k

rank_S_lesson = 2
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]     # Keras Dense kernels, use_bias=False
    if with_output:
        shapes.append((d_v, d_model))
    return sum(r * c for r, c in shapes)
''',
    },
}

WRONG = {
    # --- q01
    "q01_matlab_cat_stacks_qkv_into_one_array": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # MATLAB habit: QKV = cat(3, X*W_Q, X*W_K, X*W_V), one array for the three projections
    return torch.stack([X @ W_Q, X @ W_K, X @ W_V])
''',
    }, {"mistake": "Returns torch.stack of the three projections, like MATLAB's cat(3, ...), instead of the tuple "
                   "(Q, K, V): the result is one tensor, and stacking fails when d_v != d_k.",
        "where": ["q01", "q07", "q09"]}),

    # --- q02
    "q02_jax_sqrt_of_int_tensor_scale_in_float32": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    scale = torch.sqrt(torch.tensor(d_k))    # jnp.sqrt(d_k)
    return Q @ K.transpose(-2, -1) / scale
''',
    }, {"mistake": "Ports jnp.sqrt(d_k) as torch.sqrt(torch.tensor(d_k)): the square root of an integer tensor is "
                   "computed in float32, so float64 scores are divided by a rounded sqrt(d_k) and lose precision "
                   "(off by about 1e-8 relative when d_k is not a perfect square).",
        "where": ["q02", "q07", "q09", "q13"]}),

    # --- q03
    "q03_jax_default_scale_assumed_still_applied_answers_c": ({
        SCALE_ANS: '''# jax.nn.dot_product_attention(scale=None) uses 1/sqrt(d) anyway, so deleting my factor
# changes nothing: the scores are scaled by the library before the softmax.
ans_scale = "c"
''',
    }, {"mistake": "Answers c (nothing changes), reasoning that a library applies the default 1/sqrt(d) scale as "
                   "jax.nn.dot_product_attention does; without the factor the scores grow like sqrt(d_k) and the "
                   "rows become nearly one-hot (b).",
        "where": ["q03"]}),

    # --- q04
    "q04_band_part_zero_minus_one_keeps_the_diagonal_in_the_future_block": ({
        MASK: '''def band_part(x, num_lower, num_upper):
    # tf.linalg.band_part, ported by hand
    i = torch.arange(x.shape[-2], device=x.device)[:, None]
    j = torch.arange(x.shape[-1], device=x.device)[None, :]
    keep = torch.ones(x.shape[-2], x.shape[-1], dtype=torch.bool, device=x.device)
    if num_lower >= 0:
        keep = keep & (i - j <= num_lower)
    if num_upper >= 0:
        keep = keep & (j - i <= num_upper)
    return torch.where(keep, x, torch.zeros_like(x))


def causal_additive_mask(T, dtype, device=None):
    future = band_part(torch.ones(T, T, device=device), 0, -1).bool()   # "the part above the diagonal"
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(future, torch.finfo(dtype).min)
''',
    }, {"mistake": "Takes the future block as band_part(ones, 0, -1), which keeps the diagonal as well as the "
                   "upper triangle, so each query's own key is blocked too (the first row is fully blocked and "
                   "becomes uniform).",
        "where": ["q04", "q07", "q09"]}),

    # --- q05
    "q05_keras_softmax_layer_keep_mask_formula_on_additive_mask": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    # keras.layers.Softmax()(inputs, mask): adder = (1.0 - mask) * -1e9; inputs += adder
    if M is not None:
        S = S + (1.0 - M) * -1e9
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Applies the Keras Softmax layer's keep-mask formula (1 - M) * -1e9 to the additive mask: open "
                   "entries all get -1e9, which swamps the scores (float64 loses about 1e-7 of them, float32 loses "
                   "them entirely and returns uniform rows, float16 overflows to -inf and gives NaN), while "
                   "blocked entries get (1 - finfo.min) * -1e9 = -inf; with an all-zero mask every score shifts "
                   "by -1e9 too.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06
    "q06_keras_masking_layer_skips_timesteps_read_as_no_gradient_answers_d": ({
        MASK_ANS: '''# In Keras a Masking layer makes the masked timesteps skipped, so they get no gradient;
# without the mask those entries would receive gradient they should not.
ans_mask = "d"
''',
    }, {"mistake": "Answers d, carrying over Keras's idea that masked timesteps are skipped and get no gradient; the "
                   "problem is that position t can read token t+1, the token it is trained to predict (c).",
        "where": ["q06"]}),

    # --- q07
    "q07_output_returned_in_julia_features_by_time_layout": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = V.mT @ A.mT          # Julia/column-major: O = V' * A', one column per token
    return O, A
''',
    }, {"mistake": "Returns the output in Julia's (features, time) layout, V^T A^T of shape (..., d_v, T), "
                   "instead of A V of shape (..., T, d_v).",
        "where": ["q07", "q09"]}),

    # --- q08
    "q08_jax_style_functional_normalisation_never_assigned": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    w = kappa.clone()
    w.div(kappa.sum())       # like w = w.at[:].divide(total) in JAX, but the new array is not kept
    return (w[:, None] * V).sum(dim=0)
''',
    }, {"mistake": "Normalises the kernel weights with an out-of-place w.div(...) (a JAX-style functional update) "
                   "whose result is never assigned, so the output is the unnormalised kernel-weighted sum, "
                   "sum(kappa) times too large.",
        "where": ["q08"]}),

    # --- q09
    "q09_rows_stacked_as_columns_like_r_apply": ({
        AVG: '''def prefix_average_matrix(T):
    L = torch.tril(torch.ones(T, T, dtype=torch.float64))
    rows = [r / r.sum() for r in L]          # apply(L, 1, function(r) r / sum(r))
    return torch.stack(rows, dim=1)          # R's apply returns one column per row
''',
    }, {"mistake": "Stacks the per-row results as columns, as R's apply(x, 1, f) returns them, so the matrix comes "
                   "out transposed: upper-triangular, with 1/t down column t instead of along row t.",
        "where": ["q09"]}),

    # --- q10
    "q10_keras_crossentropy_from_probabilities_ported_to_torch_cross_entropy": ({
        ENT: '''def row_entropy_bits(A):
    # Keras: categorical_crossentropy(A, A) is the entropy of A (from_logits=False); in nats -> bits
    H = torch.nn.functional.cross_entropy(A, A, reduction="none")
    return H / math.log(2)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Ports Keras's categorical_crossentropy(A, A) (probabilities, from_logits=False) to "
                   "F.cross_entropy, which treats A as logits (log_softmax(A) instead of log A) and takes the class "
                   "axis as dim 1, so the entropies are wrong (and wrongly shaped for batched weights).",
        "where": ["q10"]}),

    # --- q13
    "q13_keras_key_defaults_to_value_keys_projected_with_w_v": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    query, value = X @ W_Q, Y @ W_V
    key = value                      # keras MultiHeadAttention: key defaults to value
    A = attention_weights(scaled_scores(query, key), M)
    return A @ value, A
''',
    }, {"mistake": "Uses the projected values as keys, as Keras MultiHeadAttention's key argument defaults to value, "
                   "so the keys are Y W_V instead of Y W_K (wrong scores, and a shape error when d_v != d_k).",
        "where": ["q13"]}),

    # --- q14
    "q14_r_crossprod_keys_by_queries_answers_c": ({
        SHAPES_ANS: '''# In R: S <- crossprod(K, Q) / sqrt(d_k), i.e. t(K) %*% Q with tokens as columns,
# so S is T' x T and the output follows the keys' sequence.
ans_cross_shapes = "c"
''',
    }, {"mistake": "Answers c, reading the score matrix as R's crossprod(K, Q) with keys on the rows (T' x T); "
                   "queries index the rows, so S is T x T' and O is T x d_v (b).",
        "where": ["q14"]}),

    # --- q15
    "q15_flax_make_causal_mask_of_one_sequence_read_as_equal_lengths": ({
        CAUSAL_ANS: '''# flax.linen.make_causal_mask(x) builds the mask from one sequence's length,
# so it fits cross-attention exactly when the two sequences have the same length.
ans_cross_causal = "c"
''',
    }, {"mistake": "Answers c (whenever T = T'), because Flax's make_causal_mask(x) is built from one sequence's "
                   "length; equal lengths do not put the two sequences on one time axis, which is the condition (d).",
        "where": ["q15"]}),

    # --- q16
    "q16_matlab_one_matvec_call_per_query_answers_linear": ({
        COST_ANS: '''# As in MATLAB: for t = 1:T, s(t,:) = K * q(:,t); end  -- one matrix-vector call per query,
# so doubling T doubles the number of calls.
ans_complexity = "a"
''',
    }, {"mistake": "Answers a (linear), counting one matrix-vector call per query as a unit of cost; each call "
                   "itself grows with T (T keys), so the work is T^2 d_k and grows quadratically (c).",
        "where": ["q16"]}),
}
