"""Blind held-out set 73 for attention-pipeline.

Seventy-third blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind71.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 73's angle: DEFENSIVE, VALIDATING, INPUT-NORMALISING CODE. The student wraps every function in checks
and conversions so it "works for any input". Each wrong variant has one slip in that layer, in a case the
student's own example did not try: an assert that W_V has W_Q's shape, rejecting d_v != d_k (q01); Q and K
cast with .float() "to be safe" and the scores cast back, so float64 keeps only float32 precision (q02); the
mask clamped at max(-1e9, finfo.min) "so it cannot overflow when added", so float32/float64 blocked entries are -1e9 and not
finfo.min (q04); an additive mask normalised with .bool() and then read as a keep-mask, flipping which keys
are open (q05); the causal mask sized from X.shape[0] inside a try/except whose fallback drops the mask, so a
batched input silently gets no mask (q07); the kernel inputs converted with .float(), returning float32 for
float64 and float16 (q08); the prefix average built in torch's default float32 and converted with
torch.as_tensor(..., dtype=torch.float64) (q09); the weights converted to float32 before the entropy, so
float64 and float16 inputs get float32 entropies (q10); with_output defaulted to True "so the full layer is
counted" (q12); a shape check that compares X.shape[:-1] with Y.shape[:-1], rejecting T != T' (q13). The
written answers carry a validating student's wrong reasoning: softmax "normalises anyway" so the scale is
harmless (q03 c); a row-sum assert placed after the mask read as the mask's job (q06 a); a shape assert
written keys-first that passed on T = T' (q14 c); a mask helper taking one length read as "only square"
(q15 b).

Public material found with the `search` tool, and what it showed:
- galsang/BiDAF-pytorch#26, NVIDIA/tacotron2#303, NVIDIA/DeepLearningExamples#765 and pytorch/pytorch#142852
  (squeeze without a dim drops a batch axis of size 1): why the correct variants squeeze only the axis they
  added, and only when they added it.
- pytorch/pytorch#33763 (bool masks block where True, float masks are added), wfondrie/depthcharge#38 (a bool
  mask converted to float lets tokens see the future), huggingface/transformers#41443 (a bool mask added to
  scores as if additive), pytorch/pytorch#103963 (a mask turned into bool and back changes the result): the
  mask-conversion slip of q05.
- The remaining kinds follow the brief's list for defensive code: an assert or shape check that rejects a
  valid input (q01, q13), a .float() / as_tensor conversion that loses the dtype or precision (q02, q08, q09,
  q10), a clamp "in case" that changes the required value (q04), a try/except whose fallback hides the real
  error (q07), a default that differs from the notebook (q12).

The correct variants are defensive too and right everywhere: asserts on the contracted widths only,
as_tensor with the input's dtype and device, 2-D inputs unsqueezed and only that axis squeezed back, leading
batch axes flattened with reshape and restored, a mask cast to the scores' dtype and device (a bool mask turned
into an additive one with True = blocked), an entropy from xlogy in the input's dtype, int() on the counts.

Every variant was checked with a throwaway script under /tmp/w73-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
compared with full_marks' functions and with plain torch (torch.softmax of S + M,
F.scaled_dot_product_attention) on unbatched, batched and 4-D inputs, batch of size 1, T_q != T_k,
d_k != d_v, float64, float32, float16, causal masks, padding masks and a fully blocked row; every written
answer compared with the right letter or integer. The correct variants agree everywhere; each wrong variant
differs in its own questions and only in those listed in "where".

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
    # asserts on the contracted widths only, as_tensor keeping dtype and device
    "asserted_widths_projection_and_validated_scores": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    X = torch.as_tensor(X)
    W_Q, W_K, W_V = (torch.as_tensor(W, dtype=X.dtype, device=X.device) for W in (W_Q, W_K, W_V))
    assert X.shape[-1] == W_Q.shape[0] == W_K.shape[0] == W_V.shape[0], "d_model mismatch"
    assert W_Q.shape[1] == W_K.shape[1], "queries and keys need the same d_k"
    return X @ W_Q, X @ W_K, X @ W_V
''',
        SCORES: '''def scaled_scores(Q, K):
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"d_k differs: {Q.shape[-1]} vs {K.shape[-1]}")
    if Q.dim() < 2 or K.dim() < 2:
        raise ValueError("need (..., T, d_k) inputs")
    d_k = int(Q.shape[-1])
    S = Q @ K.transpose(-2, -1).contiguous()
    return S / math.sqrt(d_k)
''',
    },

    # validated mask arguments, mask cast to the scores' dtype and device, no squeeze surprises
    "validated_mask_and_mask_cast_to_scores_dtype": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    T = int(T)
    if T < 0:
        raise ValueError("T must be >= 0")
    if not dtype.is_floating_point:
        raise TypeError("the additive mask needs a floating dtype")
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(M, diagonal=1).contiguous()
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if S.dim() < 2:
        raise ValueError("S must be (..., T_q, T_k)")
    if M is not None:
        M = torch.as_tensor(M).to(dtype=S.dtype, device=S.device)
        S = S + M
    A = torch.softmax(S, dim=-1)
    return A
''',
    },

    # 2-D inputs unsqueezed and only that axis squeezed back; cross checks only what must match
    "unsqueeze_then_squeeze_own_axis_pipelines": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    added = X.dim() == 2
    if added:
        X = X.unsqueeze(0)          # work on (B, T, d_model)
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = A @ V
    if added:
        O, A = O.squeeze(0), A.squeeze(0)   # only the axis added above
    return O, A
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    assert X.shape[-1] == Y.shape[-1], "X and Y need the same d_model"
    assert X.dim() >= 2 and Y.dim() >= 2
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        M = M.to(dtype=S.dtype, device=S.device)
        assert M.shape[-1] == K.shape[-2], "mask needs one column per key"
    A = attention_weights(S, M)
    return A @ V, A
''',
    },

    # dtype-keeping lenses: kernel in the input dtype, xlogy entropy, float64 average, int counts
    "dtype_keeping_lenses_and_int_counts": {
        NW: '''def nadaraya_watson(q, K, V):
    q = torch.as_tensor(q).reshape(-1)
    K = torch.as_tensor(K, dtype=q.dtype, device=q.device)
    V = torch.as_tensor(V, dtype=q.dtype, device=q.device)
    assert K.shape[-1] == q.shape[0] and K.shape[0] == V.shape[0]
    kappa = torch.exp((K @ q) / math.sqrt(q.shape[0]))
    return (kappa.unsqueeze(-1) * V).sum(dim=0) / kappa.sum()
''',
        AVG: '''def prefix_average_matrix(T):
    T = int(T)
    assert T >= 0
    rows = torch.arange(1, T + 1, dtype=torch.float64)
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return torch.as_tensor(W / rows[:, None], dtype=torch.float64)
''',
        ENT: '''def row_entropy_bits(A):
    A = torch.as_tensor(A)
    if not A.dtype.is_floating_point:
        A = A.to(torch.float64)
    H = -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)
    return H


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    d_model, d_k, d_v = int(d_model), int(d_k), int(d_v)
    assert min(d_model, d_k, d_v) >= 0
    n = d_model * d_k + d_model * d_k + d_model * d_v
    if with_output:
        n += d_v * d_model
    return n
''',
    },

    # leading batch axes flattened and restored with reshape; bool masks turned into additive ones
    "flattened_batch_self_attention_and_bool_aware_mask": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    lead, (T, d_model) = X.shape[:-2], X.shape[-2:]
    Xf = X.reshape(-1, T, d_model)               # (B, T, d_model), B = 1 for unbatched input
    Q, K, V = project_qkv(Xf, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = A @ V
    return O.reshape(*lead, T, V.shape[-1]), A.reshape(*lead, T, T)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        if M.dtype == torch.bool:                # True = blocked, as in torch's attention modules
            M = torch.zeros(M.shape, dtype=S.dtype, device=S.device).masked_fill(M, torch.finfo(S.dtype).min)
        else:
            M = M.to(dtype=S.dtype, device=S.device)
        S = S + M
    return torch.softmax(S, dim=-1)
''',
    },
}

WRONG = {
    # --- q01: an assert that rejects d_v != d_k
    "q01_assert_value_matrix_same_shape_as_query_matrix": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    assert X.shape[-1] == W_Q.shape[0], "d_model mismatch"
    assert W_Q.shape == W_K.shape == W_V.shape, "projection matrices must match"
    return X @ W_Q, X @ W_K, X @ W_V
''',
    }, {"mistake": "Asserts W_Q, W_K and W_V all have one shape, so any valid input with d_v != d_k raises an "
                   "AssertionError instead of returning Q, K, V (V is (T, d_v)).",
        "where": ["q01", "q07", "q09"]}),

    # --- q02: .float() to be safe, cast back: float64 loses precision
    "q02_float_cast_to_be_safe_drops_float64_precision": ({
        SCORES: '''def scaled_scores(Q, K):
    dtype = Q.dtype
    Q, K = Q.float(), K.float()        # make sure both are floating point
    assert Q.shape[-1] == K.shape[-1]
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return S.to(dtype)
''',
    }, {"mistake": "Casts Q and K with .float() before the product and back afterwards: the dtype is right, but "
                   "float64 scores carry only float32 precision (relative error about 1e-7, far above float64's).",
        "where": ["q02", "q07", "q13"]}),

    # --- q03: softmax normalises anyway
    "q03_softmax_normalises_so_scale_harmless_answers_c": ({
        SCALE_ANS: '''# softmax renormalises every row to sum to 1 whatever the scores are, so a constant factor
# like 1/sqrt(d_k) cannot change the weights
ans_scale = "c"
''',
    }, {"mistake": "Answers 'c': softmax is invariant to adding a constant, not to multiplying by one; without "
                   "1/sqrt(d_k) the scores' spread grows like sqrt(512) and rows collapse onto one key, entropy "
                   "toward 0 (answer 'b').",
        "where": ["q03"]}),

    # --- q04: clamp "so it cannot overflow"
    "q04_mask_clamped_to_minus_1e9_against_overflow": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.finfo(dtype).min
    # keep it from overflowing to -inf when the scores are added (-1e9, or the dtype's own floor)
    return M.clamp(min=max(-1e9, torch.finfo(dtype).min))
''',
    }, {"mistake": "Clamps the mask at -1e9, so in float32 and float64 the blocked entries hold -1e9 instead of "
                   "torch.finfo(dtype).min (float16 is unchanged); the weights after softmax are still 0 there.",
        "where": ["q04"]}),

    # --- q05: additive mask normalised to bool, read as keep-mask
    "q05_additive_mask_normalised_with_bool_then_used_as_keep_mask": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        # accept any mask: turn it into a boolean one, True = key is allowed
        if M.dtype != torch.bool:
            M = M.bool()
        S = S.masked_fill(~M, torch.finfo(S.dtype).min)
    return torch.softmax(S, dim=-1)
''',
    }, {"mistake": "Converts the additive mask with .bool(), which is True at the blocked entries (finfo.min) and "
                   "False at the open ones (0), then treats True as 'allowed': every open key is blocked and every "
                   "blocked key opened (causal rows see only the future; the last row is uniform).",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: row-sum assert placed after the mask
    "q06_row_sum_assert_after_mask_answers_a": ({
        MASK_ANS: '''# my attention_weights asserts the rows sum to 1 right after adding the mask, so the mask is
# what keeps the rows normalised; without it they stop summing to 1
ans_mask = "a"
''',
    }, {"mistake": "Answers 'a': the softmax makes every row sum to 1 with or without the mask; without it position "
                   "t reads token t+1, the target it must predict (answer 'c').",
        "where": ["q06"]}),

    # --- q07: try/except fallback hides the real error
    "q07_mask_error_swallowed_by_unmasked_fallback": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    try:
        M = causal_additive_mask(X.shape[0], S.dtype, S.device) if causal else None
        A = attention_weights(S, M)
    except RuntimeError:
        # odd shapes: fall back to plain attention
        A = attention_weights(S)
    return A @ V, A
''',
    }, {"mistake": "Sizes the causal mask from X.shape[0], which is T only for unbatched input; for a batch the "
                   "broadcast error is caught by try/except and the fallback applies no mask, so batched causal "
                   "attention is silently not causal (A not lower-triangular).",
        "where": ["q07", "q09"]}),

    # --- q08: .float() on the inputs
    "q08_inputs_normalised_with_float_return_float32": ({
        NW: '''def nadaraya_watson(q, K, V):
    q, K, V = q.float(), K.float(), V.float()      # accept int or double inputs
    q = q.reshape(-1)
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    }, {"mistake": "Converts q, K, V with .float(), so the estimate comes back float32 for float64 inputs (with "
                   "float32 precision) and for float16 inputs, instead of in the input dtype.",
        "where": ["q08"]}),

    # --- q09: built in default float32, as_tensor to float64
    "q09_built_in_default_dtype_then_as_tensor_float64": ({
        AVG: '''def prefix_average_matrix(T):
    T = int(T)
    W = torch.tril(torch.ones(T, T))
    W = W / W.sum(dim=-1, keepdim=True)
    return torch.as_tensor(W, dtype=torch.float64)       # make sure it is float64
''',
    }, {"mistake": "Builds the matrix in torch's default float32 and only converts it to float64 at the end, so "
                   "entries like 1/3 or 1/7 carry float32 rounding (about 1e-8) instead of the exact float64 values.",
        "where": ["q09"]}),

    # --- q10: weights normalised to float32
    "q10_weights_converted_to_float32_before_entropy": ({
        ENT: '''def row_entropy_bits(A):
    A = torch.as_tensor(A, dtype=torch.float32)   # one dtype for the log
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Converts A to float32 first, so entropies and effective token counts come back float32 for "
                   "float64 and float16 weights (and with float32 precision for float64).",
        "where": ["q10"]}),

    # --- q12: default filled in differently from the notebook
    "q12_with_output_defaults_to_true": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=True):
    d_model, d_k, d_v = int(d_model), int(d_k), int(d_v)
    n = d_model * (2 * d_k + d_v)
    if with_output:                 # count the whole layer unless told otherwise
        n += d_v * d_model
    return n
''',
    }, {"mistake": "Defaults with_output to True instead of False, so a call without it counts W_O too "
                   "(384, 64, 64 gives 98304 instead of 73728).",
        "where": ["q12"]}),

    # --- q13: shape check rejects T != T'
    "q13_shape_check_compares_sequence_lengths_too": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    if X.shape[:-1] != Y.shape[:-1]:
        raise ValueError(f"batch shapes differ: {tuple(X.shape)} vs {tuple(Y.shape)}")
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "The batch-shape check compares X.shape[:-1] with Y.shape[:-1], which includes the sequence "
                   "lengths, so every valid call with T != T' raises ValueError.",
        "where": ["q13"]}),

    # --- q14: assert written keys-first passed on equal lengths
    "q14_keys_first_shape_assert_passed_on_equal_lengths_answers_c": ({
        SHAPES_ANS: '''# my check assert S.shape == (Y.shape[-2], X.shape[-2]) and O.shape == (Y.shape[-2], d_v)
# passed, so S is T' x T and O is T' x d_v
ans_cross_shapes = "c"
''',
    }, {"mistake": "Answers 'c' from an assert that only passed because the trial used T = T': S has one row per "
                   "query and one column per key (T x T') and O one row per query (T x d_v), answer 'b'.",
        "where": ["q14"]}),

    # --- q15: one-length mask helper read as square-only
    "q15_one_length_mask_helper_read_as_square_only_answers_b": ({
        CAUSAL_ANS: '''# causal_additive_mask(T, dtype) takes a single length and returns (T, T); a rectangular T x T'
# score matrix can never get one
ans_cross_causal = "b"
''',
    }, {"mistake": "Answers 'b' from the signature of the helper: a causal mask over a shared time axis can be "
                   "rectangular (block keys after each query's time); it makes sense only when both sequences share "
                   "that axis (answer 'd').",
        "where": ["q15"]}),
}
