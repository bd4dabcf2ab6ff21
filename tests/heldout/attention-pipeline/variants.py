"""Held-out submissions for attention-pipeline (Lesson 08): written before the hidden tests were
changed for issue 13. Each replaces whole cells of full_marks.ipynb (see tests/heldout/harness.py).

One mistake is charged where it is made: a wrong helper (scaled_scores, causal_additive_mask,
attention_weights, row_entropy_bits) costs its own question, not self_attention's (q07), the zero-
projection check (q09) or cross_attention's (q13), which call it. A mistake inside self_attention
itself may also cost q09's test_zero_projections, which the notebook states checks self_attention."""


def cell(name: str, src: str) -> dict:
    return {name: src}


def scores(body: str) -> dict:
    return cell("scaled_scores", "def scaled_scores(Q, K):\n" + body)


def weights(body: str) -> dict:
    return cell("attention_weights", "def attention_weights(S, M=None):\n" + body)


def mask(body: str) -> dict:
    return cell("causal_additive_mask", "def causal_additive_mask(T, dtype, device=None):\n" + body)


def self_attn(body: str) -> dict:
    return cell("self_attention", "def self_attention(X, W_Q, W_K, W_V, causal=True):\n" + body)


def cross(body: str) -> dict:
    return cell("cross_attention", "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n" + body)


def entropy(h_body: str, eff: str = "    return 2.0 ** row_entropy_bits(A)\n") -> dict:
    return cell("row_entropy_bits", "def row_entropy_bits(A):\n" + h_body + "\n\ndef effective_tokens(A):\n" + eff)


CORRECT = {
    "project_einsum": cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.einsum("...td,de->...te", X, W) for W in (W_Q, W_K, W_V))
'''),
    "scores_einsum": scores('''
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
'''),
    "scores_scale_queries_first": scores('''
    return (Q * Q.shape[-1] ** -0.5) @ K.mT
'''),
    "mask_full_triu": mask('''
    return torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)
'''),
    "mask_where_arange": mask('''
    i = torch.arange(T, device=device)
    zero = torch.zeros((), dtype=dtype, device=device)
    low = torch.full((), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(i[None, :] > i[:, None], low, zero)
'''),
    "weights_hand_softmax": weights('''
    if M is not None:
        S = S + M
    e = torch.exp(S - S.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
'''),
    "weights_logsumexp_float32": weights('''
    Z = S if M is None else S + M
    Zf = Z.float() if Z.dtype == torch.float16 else Z
    return torch.exp(Zf - torch.logsumexp(Zf, dim=-1, keepdim=True)).to(Z.dtype)
'''),
    "weights_functional_softmax": weights('''
    import torch.nn.functional as F
    return F.softmax(S if M is None else S + M, dim=-1)
'''),
    "self_attention_inline": self_attn('''
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if causal:
        T = X.shape[-2]
        S = S.masked_fill(torch.ones(T, T, dtype=torch.bool, device=X.device).triu(1), torch.finfo(S.dtype).min)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''),
    "nw_softmax": cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)
    return w @ V
'''),
    "prefix_average_divide_rows": cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / torch.arange(1, T + 1, dtype=torch.float64)[:, None]
'''),
    # Lesson 79's recipe, and what the scaled-attention notebook teaches: epsilon inside the log
    "entropy_epsilon_in_log": entropy('''
    return -(A * torch.log2(A + 1e-9)).sum(dim=-1)
'''),
    "entropy_xlogy_nats": entropy('''
    return -torch.special.xlogy(A, A).sum(-1) / math.log(2)
''', "    return torch.exp2(row_entropy_bits(A))\n"),
    "entropy_clamp": entropy('''
    return -(A * A.clamp_min(1e-12).log2()).sum(-1)
''', "    return torch.pow(2.0, row_entropy_bits(A))\n"),
    "entropy_nan_to_num": entropy('''
    return -torch.nan_to_num(A * torch.log(A)).sum(-1) / math.log(2)
'''),
    "param_count_other_form": cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * d_k * 2 + d_model * d_v + (d_v * d_model if with_output else 0)
'''),
    "cross_inline": cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if M is not None:
        S = S + M
    A = S.softmax(dim=-1)
    return A @ V, A
'''),
    # --- memory layout (added with the non-contiguous and broadcast cases) -------------------------------
    "scores_reshape_bmm": scores('''
    T_q, T_k, d_k = Q.shape[-2], K.shape[-2], Q.shape[-1]
    q, k = Q.reshape(-1, T_q, d_k), K.reshape(-1, T_k, d_k)
    return (torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)).reshape(*Q.shape[:-2], T_q, T_k)
'''),
    "scores_contiguous_then_view": scores('''
    T_q, T_k, d_k = Q.shape[-2], K.shape[-2], Q.shape[-1]
    q, k = Q.contiguous().view(-1, T_q, d_k), K.contiguous().view(-1, T_k, d_k)
    return torch.bmm(q, k.transpose(1, 2)).view(*Q.shape[:-2], T_q, T_k) / math.sqrt(d_k)
'''),
    "weights_inplace_on_a_clone": weights('''
    Z = S.clone()
    if M is not None:
        Z += M
    Z -= Z.amax(dim=-1, keepdim=True)
    Z.exp_()
    Z /= Z.sum(dim=-1, keepdim=True)
    return Z
'''),
    "weights_reshape_rows": weights('''
    T_k = S.shape[-1]
    rows = S.reshape(-1, T_k)
    if M is not None:
        rows = rows + M.expand(S.shape).reshape(-1, T_k)
    return torch.softmax(rows, dim=-1).reshape(S.shape)
'''),
    "nw_reshape_column": cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K.reshape(-1, q.shape[-1]) @ q.reshape(-1, 1) / math.sqrt(q.shape[-1]), dim=0)
    return (w * V).sum(dim=0)
'''),
    "project_flatten_reshape": cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    flat = X.reshape(-1, X.shape[-1])
    return tuple((flat @ W).reshape(*X.shape[:-1], W.shape[-1]) for W in (W_Q, W_K, W_V))
'''),
    "entropy_clamp_a_clone_in_place": entropy('''
    P = A.clone()
    P.clamp_(min=1e-300)
    return -(A * torch.log2(P)).sum(dim=-1)
'''),
    "entropy_reshape_rows": entropy('''
    rows = A.reshape(-1, A.shape[-1])
    return (-torch.special.xlogy(rows, rows).sum(-1) / math.log(2)).reshape(A.shape[:-1])
'''),
    "answers_other_forms": {"ans_scale": 'ans_scale = "B"', "ans_mask": 'ans_mask = " C\\n"',
                            "max_rank_S": '''
max_rank_S = min(100, 8)
rank_S_lesson = 2.0
'''},
}

CORRECT.update({
    # --- issue 21 -----------------------------------------------------------------------------------------
    "project_mT_form": cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple((W.mT @ X.mT).mT for W in (W_Q, W_K, W_V))
'''),
    "mask_where_typed_tensors": mask('''
    i = torch.arange(T, device=device)
    low = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(i[None, :] > i[:, None], low, torch.zeros((), dtype=dtype, device=device))
'''),
    "weights_row_max_hand_softmax": weights('''
    Z = S if M is None else S + M
    e = (Z - Z.max(dim=-1, keepdim=True).values).exp()
    return e / e.sum(-1, keepdim=True)
'''),
    "nw_via_softmax_weights": cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    return torch.softmax((K * q).sum(-1) / q.shape[-1] ** 0.5, dim=-1) @ V
'''),
})

CORRECT.update({
    # --- issue 21, after the blind set: forms the new diagnoses must leave at full marks ----------------------
    "weights_mask_defaults_to_zeros": weights('''
    if M is None:
        M = torch.zeros((), dtype=S.dtype, device=S.device)
    return torch.softmax(S + M, dim=S.dim() - 1)
'''),
    "prefix_average_div_unsqueeze": cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    lengths = torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(-1)
    return torch.ones(T, T, dtype=torch.float64).tril().div(lengths)
'''),
    "mask_triu_of_full_min": mask('''
    low = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(low, diagonal=1)
'''),
    "self_attention_size_minus_2": self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(X.size(-2), S.dtype, S.device)
    A = attention_weights(S)
    return torch.matmul(A, V), A
'''),
})

WRONG = {
    # --- issue 21: mistakes that had no name ----------------------------------------------------------------
    "project_weight_transposed": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return X @ W_Q.T, X @ W_K.T, X @ W_V.T
'''), {"key": "weight_transposed", "where": ["q01"]}),
    "project_T_on_batched": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple((W.T @ X.T).T for W in (W_Q, W_K, W_V))
'''), {"key": "batched_input_unsupported", "where": ["q01:test_project_batched_float32", "q01:test_project_views"]}),
    "scores_isqrt": (scores('''
    return Q @ K.transpose(-2, -1) / math.isqrt(Q.shape[-1])
'''), {"key": "integer_sqrt_scale", "where": ["q02"]}),
    "scores_q_q": (scores('''
    return Q @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])
'''), {"key": "keys_are_queries", "where": ["q02"]}),
    "mask_next_token_open": (mask('''
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=2)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
'''), {"key": "causal_includes_next", "where": ["q04"]}),
    "mask_where_python_scalars": (mask('''
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    return torch.where(future, torch.finfo(dtype).min, 0.0)
'''), {"key": "mask_built_in_float32", "where": ["q04"]}),
    "weights_uniform": (weights('''
    Z = torch.zeros_like(S) if M is None else torch.zeros_like(S) + M
    return torch.softmax(Z, dim=-1)
'''), {"key": "uniform_weights", "where": ["q05"]}),
    "weights_softmax_in_float32": (weights('''
    Z = S if M is None else S + M
    return torch.softmax(Z.float(), dim=-1).to(Z.dtype)
'''), {"key": "float32_precision", "where": ["q05:test_weights_float64_rectangular_mask",
                                                "q05:test_weights_noncontiguous"]}),
    "weights_global_max": (weights('''
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.max())
    return e / e.sum(dim=-1, keepdim=True)
'''), {"key": "global_max_subtraction", "where": ["q05:test_weights_large_float32", "q05:test_weights_float64_rectangular_mask"]}),
    "weights_softmax_in_place_on_S": (weights('''
    if M is not None:
        S = S + M
    S -= S.amax(dim=-1, keepdim=True)
    S.exp_()
    S /= S.sum(dim=-1, keepdim=True)
    return S
'''), {"key": "inplace_on_input", "where": ["q05:test_weights_batched_no_mask", "q05:test_weights_noncontiguous"]}),
    "self_returns_A_O": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return A, A @ V
'''), {"key": "results_reordered", "where": ["q07", "q09:test_zero_projections"]}),
    "self_A_transposed_on_V": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return A.transpose(-2, -1) @ V, A
'''), {"key": "output_uses_weights_transposed", "where": ["q07"]}),
    "self_mask_next_token_open": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.shape[-2]
    if causal:
        S = S.masked_fill(torch.ones(T, T, dtype=torch.bool).tril(1) == 0, torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return A @ V, A
'''), {"key": "causal_includes_next", "where": ["q07", "-q07:test_not_causal_float64", "q09:test_zero_projections"]}),
    "self_isqrt": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ K.transpose(-2, -1) / math.isqrt(Q.shape[-1])
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return A @ V, A
'''), {"key": "integer_sqrt_scale", "where": ["q07"]}),
    "cross_returns_A_O": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A, A @ V
'''), {"key": "results_reordered", "where": ["q13"]}),
    "nw_gaussian_half": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(-((K - q) ** 2).sum(-1) / 2)
    return (kappa[:, None] * V).sum(0) / kappa.sum()
'''), {"key": "gaussian_kernel", "where": ["q08"]}),
    "nw_gaussian_sqrt_dk": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    d2 = torch.cdist(q[None], K)[0] ** 2
    w = torch.softmax(-d2 / (2 * math.sqrt(q.shape[-1])), dim=0)
    return w @ V
'''), {"key": "gaussian_kernel", "where": ["q08"]}),
    "prefix_divide_by_t_plus_1": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    t = torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / (t[:, None] + 1)
'''), {"key": "prefix_average_off_by_one", "where": ["q09:test_prefix_average_matrix"]}),
    "prefix_divide_columns": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / torch.arange(1, T + 1, dtype=torch.float64)
'''), {"key": "prefix_average_wrong_axis", "where": ["q09:test_prefix_average_matrix"]}),
    "param_count_squares": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return (4 if with_output else 3) * d_model * d_model
'''), {"key": "param_count_squares", "where": ["q12"]}),
    "rank_lesson_is_d_k": ({"max_rank_S": "max_rank_S = 8\nrank_S_lesson = 4"},
                           {"key": "rank_above_min", "where": ["q11:test_rank_S_lesson"]}),
    # 5 is T and also matrix_rank(S, hermitian=True) on the lesson's non-symmetric S: generic (naming22)
    "rank_lesson_is_T": ({"max_rank_S": "max_rank_S = 8\nrank_S_lesson = 5"},
                         {"key": None, "where": ["q11:test_rank_S_lesson"]}),
    "ans_scale_flatter": ({"ans_scale": 'ans_scale = "a"'}, {"key": "scale_direction_reversed", "where": ["q03"]}),
    "ans_mask_normalisation": ({"ans_mask": 'ans_mask = "a"'}, {"key": "mask_breaks_normalisation", "where": ["q06"]}),
    "ans_mask_gradient": ({"ans_mask": 'ans_mask = "d"'}, {"key": "mask_blocks_gradient", "where": ["q06"]}),
    "ans_cross_shapes_swapped": ({"ans_cross_shapes": 'ans_cross_shapes = "c"'},
                                 {"key": "cross_roles_swapped", "where": ["q14"]}),
    "ans_complexity_linear": ({"ans_complexity": 'ans_complexity = "a"'}, {"key": "cost_linear_in_T", "where": ["q16"]}),
    # --- scores (q02) ---------------------------------------------------------------------------
    "scores_divide_by_dk": (scores('''
    return Q @ K.transpose(-2, -1) / Q.shape[-1]
'''), {"key": "divide_by_dk", "where": ["q02"]}),
    "scores_no_scale": (scores('''
    return Q @ K.transpose(-2, -1)
'''), {"key": "no_scale", "where": ["q02"]}),
    "scores_sqrt_T_k": (scores('''
    return Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-2])
'''), {"key": "scale_by_T", "where": ["q02"]}),
    "scores_float32_scale": (scores('''
    return Q @ K.transpose(-2, -1) / torch.sqrt(torch.tensor(Q.shape[-1]))
'''), {"key": "float32_scale", "where": ["q02"]}),
    "scores_k_q_transposed": (scores('''
    return K @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])
'''), {"key": "scores_transposed", "where": ["q02"]}),
    "scores_dot_T": (scores('''
    return Q @ K.T / math.sqrt(Q.shape[-1])
'''), {"key": "batched_input_unsupported", "where": ["q02:test_scores_batched_float32",
                                                     "q02:test_scores_noncontiguous", "q02:test_scores_broadcast"]}),
    "scores_view_on_inputs": (scores('''
    T_q, T_k, d_k = Q.shape[-2], K.shape[-2], Q.shape[-1]
    q, k = Q.view(-1, T_q, d_k), K.view(-1, T_k, d_k)
    return torch.bmm(q, k.transpose(1, 2)).view(*Q.shape[:-2], T_q, T_k) / math.sqrt(d_k)
'''), {"key": "view_on_noncontiguous", "where": ["q02:test_scores_noncontiguous", "q02:test_scores_broadcast"]}),
    "scores_scale_q_in_place": (scores('''
    Q /= math.sqrt(Q.shape[-1])
    return Q @ K.transpose(-2, -1)
'''), {"key": "inplace_on_input", "where": ["q02"]}),   # the caller's Q changes
    # --- projections (q01) ----------------------------------------------------------------------
    "project_view_flatten": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    flat = X.view(-1, X.shape[-1])
    return tuple((flat @ W).view(*X.shape[:-1], W.shape[-1]) for W in (W_Q, W_K, W_V))
'''), {"key": "view_on_noncontiguous", "where": ["q01:test_project_views"]}),
    "project_qk_swapped": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return X @ W_K, X @ W_Q, X @ W_V
'''), {"key": "qk_swapped", "where": ["q01"]}),
    # --- mask (q04) -----------------------------------------------------------------------------
    "mask_neg_1e9": (mask('''
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = -1e9
    return M
'''), {"key": "neg_1e9_float16", "where": ["q04:test_mask_value_is_dtype_min", "q04:test_mask_float16_finite"]}),
    "mask_float32_min": (mask('''
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, -3.4028234663852886e38)
'''), {"key": "mask_not_dtype_min", "where": ["q04:test_mask_value_is_dtype_min", "q04:test_mask_float16_finite"]}),
    "mask_minus_inf": (mask('''
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, float("-inf"))
'''), {"key": "infinite_mask", "where": ["q04:test_mask_value_is_dtype_min", "q04:test_mask_float16_finite"]}),
    "mask_upper_triangular": (mask('''
    past = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=-1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(past, torch.finfo(dtype).min)
'''), {"key": "upper_triangular_mask", "where": ["q04"]}),
    "mask_blocks_diagonal": (mask('''
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device))
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
'''), {"key": "mask_blocks_diagonal", "where": ["q04"]}),
    # --- weights (q05) --------------------------------------------------------------------------
    "weights_dim_minus_2": (weights('''
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=-2)
'''), {"key": "softmax_wrong_dim", "where": ["q05"]}),
    "weights_mask_sign_flipped": (weights('''
    if M is not None:
        S = S - M
    return torch.softmax(S, dim=-1)
'''), {"key": "mask_sign_flipped", "where": ["q05"]}),
    "weights_mask_ignored": (weights('''
    return torch.softmax(S, dim=-1)
'''), {"key": "mask_ignored", "where": ["q05"]}),
    "weights_zero_after_softmax": (weights('''
    A = torch.softmax(S, dim=-1)
    if M is not None:
        A = A * (M == 0)
    return A
'''), {"key": "zero_after_softmax", "where": ["q05"]}),
    "weights_no_max_subtraction": (weights('''
    if M is not None:
        S = S + M
    e = torch.exp(S)
    return e / e.sum(dim=-1, keepdim=True)
'''), {"key": "no_max_subtraction", "where": ["q05:test_weights_float16_stable", "q05:test_weights_large_float32",
                                                 "q05:test_weights_float64_rectangular_mask"]}),
    "weights_view_rows": (weights('''
    T_k = S.shape[-1]
    rows = S.view(-1, T_k)
    if M is not None:
        rows = rows + M.expand(S.shape).reshape(-1, T_k)
    return torch.softmax(rows, dim=-1).view(S.shape)
'''), {"key": "view_on_noncontiguous", "where": ["q05:test_weights_noncontiguous"]}),
    "weights_add_mask_in_place": (weights('''
    if M is not None:
        S += M
    return torch.softmax(S, dim=-1)
'''), {"key": "inplace_on_input", "where": ["q05"]}),   # the caller's S changes
    "weights_crash_on_none": (weights('''
    return torch.softmax(S + M, dim=-1)
'''), {"key": "crash_on_mask_none", "where": ["q05:test_weights_batched_no_mask"]}),
    "weights_float16_returned_float32": (weights('''
    Z = S if M is None else S + M
    return torch.softmax(Z.float(), dim=-1) if Z.dtype == torch.float16 else torch.softmax(Z, dim=-1)
'''), {"key": "dtype_changed", "where": ["q05:test_weights_float16_stable"]}),
    # --- self-attention (q07; q09's zero-projection test checks self_attention too) --------------------
    "self_ignores_causal_flag": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device))
    return A @ V, A
'''), {"key": "ignores_causal_flag", "where": ["q07:test_not_causal_float64",
                                                   "q07:test_batched_float32_and_float16"]}),
    "self_no_causal_mask": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K))
    return A @ V, A
'''), {"key": "no_causal_mask", "where": ["q07", "-q07:test_not_causal_float64", "q09:test_zero_projections"]}),
    "self_upper_triangular_inline": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.shape[-2]
    if causal:
        S = S.masked_fill(torch.ones(T, T, dtype=torch.bool).tril(-1), torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return A @ V, A
'''), {"key": "upper_triangular_mask", "where": ["q07", "-q07:test_not_causal_float64", "q09:test_zero_projections"]}),
    "self_scale_by_d_model": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ K.transpose(-2, -1) / math.sqrt(X.shape[-1])
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''), {"key": "scale_by_d_model", "where": ["q07", "-q07:test_causal_properties"]}),
    # --- lenses -----------------------------------------------------------------------------------
    "nw_unnormalised": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0)
'''), {"key": "nw_unnormalised", "where": ["q08"]}),
    "nw_no_scale": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''), {"key": "no_scale", "where": ["q08"]}),
    "prefix_divide_by_T": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / T
'''), {"key": "prefix_average_divide_by_T", "where": ["q09:test_prefix_average_matrix"]}),
    "entropy_clamp_in_place": (entropy('''
    A.clamp_(min=1e-12)
    return -(A * torch.log2(A)).sum(dim=-1)
'''), {"key": "inplace_on_input", "where": ["q10"]}),   # the caller's A changes
    "entropy_in_nats": (entropy('''
    return -(A * torch.log(A + 1e-9)).sum(dim=-1)
'''), {"key": "entropy_in_nats", "where": ["q10:test_entropy_causal_rows", "q10:test_entropy_views"]}),
    "entropy_nan_on_zeros": (entropy('''
    return -(A * torch.log2(A)).sum(dim=-1)
'''), {"key": "zero_log_zero_nan", "where": ["q10:test_entropy_causal_rows", "q10:test_entropy_views"]}),
    "entropy_sign_dropped": (entropy('''
    return (A * torch.log2(A + 1e-9)).sum(dim=-1)
'''), {"key": "entropy_sign", "where": ["q10:test_entropy_causal_rows", "q10:test_entropy_views"]}),
    "effective_tokens_exp": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''', "    return torch.exp(row_entropy_bits(A))\n"), {"key": "effective_tokens_wrong_base", "where": ["q10:test_effective_tokens"]}),
    "param_count_bias": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v) + 2 * d_k + d_v
    if with_output:
        n += d_v * d_model + d_model
    return n
'''), {"key": "param_count_bias", "where": ["q12"]}),
    "param_count_dv_as_dk": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 3 * d_model * d_k
    if with_output:
        n += d_k * d_model
    return n
'''), {"key": "param_count_dv_as_dk", "where": ["q12"]}),
    # --- cross-attention (q13) ------------------------------------------------------------------------
    "cross_causal": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    T_q, T_k = S.shape[-2], S.shape[-1]
    C = torch.zeros(T_q, T_k, dtype=S.dtype).masked_fill(torch.ones(T_q, T_k, dtype=torch.bool).triu(1), torch.finfo(S.dtype).min)
    A = attention_weights(S, C if M is None else M + C)
    return A @ V, A
'''), {"key": "causal_in_cross", "where": ["q13"]}),
    "cross_roles_swapped": (cross('''
    Q, K, V = Y @ W_Q, X @ W_K, X @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''), {"key": "cross_roles_swapped", "where": ["q13"]}),
    "cross_is_self": (cross('''
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''), {"key": "cross_is_self_attention", "where": ["q13"]}),
    "cross_mask_ignored": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K))
    return A @ V, A
'''), {"key": "mask_ignored", "where": ["q13:test_cross_padding_mask"]}),
    # --- written answers ----------------------------------------------------------------------------------
    "ans_scale_invariant": ({"ans_scale": 'ans_scale = "c"'}, {"key": "softmax_scale_invariant", "where": ["q03"]}),
    "ans_cross_causal_always": ({"ans_cross_causal": 'ans_cross_causal = "a"'},
                                {"key": "causal_in_cross", "where": ["q15"]}),
    "rank_is_T": ({"max_rank_S": "max_rank_S = 100\nrank_S_lesson = 2"},
                  {"key": "rank_bounded_by_T", "where": ["q11:test_max_rank_S"]}),
}

WRONG.update({
    # --- issue 21, after the blind set: crashes named from a second call, and mistakes found in student code
    "scores_bmm_3d_only": (scores('''
    if Q.dim() == 2:
        return Q @ K.T / math.sqrt(Q.shape[-1])
    return torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(Q.shape[-1])
'''), {"key": "batched_input_unsupported", "where": ["q02:test_scores_noncontiguous", "q02:test_scores_broadcast"]}),
    "scores_times_sqrt_dk": (scores('''
    return Q @ K.transpose(-2, -1) * math.sqrt(Q.shape[-1])
'''), {"key": "multiply_by_sqrt_dk", "where": ["q02"]}),
    "scores_power_precedence": (scores('''
    return Q @ K.transpose(-2, -1) / Q.shape[-1] ** 1/2
'''), {"key": "sqrt_precedence", "where": ["q02"]}),
    "scores_d_k_from_shape0": (scores('''
    d_k = Q.shape[0]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
'''), {"key": ("scale_by_T", "scale_wrong_axis"), "where": ["q02"]}),
    "mask_bool_future": (mask('''
    return torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
'''), {"key": "mask_not_additive", "where": ["q04"]}),
    "mask_float_open_ones": (mask('''
    return torch.ones(T, T, dtype=dtype, device=device).tril()
'''), {"key": "mask_not_additive", "where": ["q04"]}),
    "mask_ones_times_neg_inf": (mask('''
    return torch.triu(torch.ones(T, T, dtype=dtype, device=device), diagonal=1) * float("-inf")
'''), {"key": "mask_nan_from_inf", "where": ["q04"]}),
    "weights_mask_truth_value": (weights('''
    return torch.softmax(S + M if M else S, dim=-1)
'''), {"key": "tensor_truthiness", "where": ["q05"]}),
    "weights_sum_without_keepdim": (weights('''
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1)
'''), {"key": "sum_without_keepdim", "where": ["q05"]}),
    "weights_log_softmax": (weights('''
    Z = S if M is None else S + M
    return torch.log_softmax(Z, dim=-1)
'''), {"key": "log_softmax_weights", "where": ["q05"]}),
    "weights_row_min_subtracted": (weights('''
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.min(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)
'''), {"key": "softmax_subtracts_min", "where": ["q05:test_weights_float64_rectangular_mask",
                                                  "q05:test_weights_float16_stable", "q05:test_weights_noncontiguous",
                                                  "q05:test_weights_large_float32"]}),
    "weights_scores_returned": (weights('''
    return S if M is None else S + M
'''), {"key": "no_softmax", "where": ["q05"]}),
    "self_values_not_projected": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return A @ X, A
'''), {"key": "values_not_projected", "where": ["q07"]}),
    "self_mask_from_size0": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(X.size(0), S.dtype, S.device)
    A = attention_weights(S)
    return A @ V, A
'''), {"key": "batched_input_unsupported", "where": ["q07:test_batched_float32_and_float16"]}),
    "cross_keys_from_x": (cross('''
    Q, K, V = X @ W_Q, X @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''), {"key": "cross_roles_swapped", "where": ["q13"]}),
    "cross_values_not_projected": (cross('''
    Q, K = X @ W_Q, Y @ W_K
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ Y, A
'''), {"key": "values_not_projected", "where": ["q13"]}),
    "nw_times_sqrt_dk": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q * math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
'''), {"key": "multiply_by_sqrt_dk", "where": ["q08"]}),
    "nw_returns_weights": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    return kappa / kappa.sum()
'''), {"key": "nw_returns_weights", "where": ["q08"]}),
    "prefix_int_arange_float32": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]
'''), {"key": "prefix_average_float32", "where": ["q09:test_prefix_average_matrix"]}),
    "prefix_not_divided": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64))
'''), {"key": "prefix_average_not_divided", "where": ["q09:test_prefix_average_matrix"]}),
    "entropy_mean_over_keys": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).mean(dim=-1)
'''), {"key": "entropy_mean_not_sum", "where": ["q10:test_entropy_causal_rows", "q10:test_entropy_views"]}),
    "effective_tokens_squared": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''', "    return row_entropy_bits(A) ** 2\n"), {"key": "effective_tokens_power_reversed",
                                              "where": ["q10:test_effective_tokens"]}),
    "project_returns_q_v_k": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return X @ W_Q, X @ W_V, X @ W_K
'''), {"key": "results_reordered", "where": ["q01"]}),
    "project_values_from_w_k": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return X @ W_Q, X @ W_K, X @ W_K
'''), {"key": "same_projection", "where": ["q01"]}),
    "self_returns_output_only": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return A @ V
'''), {"key": "returns_one_value", "where": ["q07", "q09:test_zero_projections"]}),
    "entropy_in_float32": (entropy('''
    P = A.float()
    logs = torch.where(P > 0, torch.log2(P), torch.zeros_like(P))
    return -(P * logs).sum(dim=-1)
'''), {"key": "float32_precision", "where": ["q10:test_entropy_causal_rows", "q10:test_entropy_views"]}),
    "param_count_without_w_k": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * d_k + d_model * d_v
    if with_output:
        n += d_v * d_model
    return n
'''), {"key": "param_count_no_wk", "where": ["q12"]}),
    "param_count_output_always": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + d_v * d_model
'''), {"key": "param_count_wo_always", "where": ["q12:test_count_qkv"]}),
})


# Issue 21, generalisation round: q07 and q13 try the whole attention family (hidden/_diagnose.py
# attention_family), q07 grades float16, a tensor where a number is asked is charged as in scaled-attention
CROSS_INLINE = '''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    A = torch.softmax(S if M is None else S + M, dim=-1)
    return A @ V, A
'''
SELF_INLINE = '''
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    T = X.shape[-2]
    if causal:
        S = S.masked_fill(torch.ones(T, T, dtype=torch.bool, device=X.device).triu(1), torch.finfo(S.dtype).min)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''


def cross_inline(old: str, new: str) -> dict:
    assert old in CROSS_INLINE, old
    return cross(CROSS_INLINE.replace(old, new))


def self_inline(old: str, new: str) -> dict:
    assert old in SELF_INLINE, old
    return self_attn(SELF_INLINE.replace(old, new))


WRONG.update({
    "cross_scale_by_input_width": (cross_inline("math.sqrt(Q.shape[-1])", "math.sqrt(X.shape[-1])"),
                                   {"key": "scale_by_d_model", "where": ["q13"]}),
    "cross_mask_zeroes_after": (cross_inline("A = torch.softmax(S if M is None else S + M, dim=-1)",
                                             "A = torch.softmax(S, dim=-1)\n    A = A if M is None else A * (M == 0)"),
                                {"key": "zero_after_softmax", "where": ["q13:test_cross_padding_mask"]}),
    "cross_sigmoid_weights": (cross_inline("A = torch.softmax(S if M is None else S + M, dim=-1)",
                                           "A = torch.sigmoid(S if M is None else S + M)\n"
                                           "    A = A / A.sum(-1, keepdim=True)"),
                              {"key": "sigmoid_weights", "where": ["q13"]}),
    "cross_log_softmax": (cross_inline("torch.softmax(", "torch.log_softmax("),
                          {"key": "log_softmax_weights", "where": ["q13"]}),
    "cross_scale_by_d_v": (cross_inline("math.sqrt(Q.shape[-1])", "math.sqrt(V.shape[-1])"),
                           {"key": "scale_by_d_v", "where": ["q13"]}),
    "self_renormalised_after_softmax": (self_inline(
        "A = torch.softmax(S, dim=-1)",
        "A = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), dim=-1)\n"
        "    if causal:\n        A = A.tril()\n        A = A / A.sum(-1, keepdim=True)"),
        {"key": "renormalised_after_softmax", "where": ["q07:test_batched_float32_and_float16"]}),
    "self_mask_float32_always": (self_inline(
        "S = S.masked_fill(torch.ones(T, T, dtype=torch.bool, device=X.device).triu(1), torch.finfo(S.dtype).min)",
        "S = S + torch.zeros(T, T).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -1e9)"),
        {"key": "dtype_changed", "where": ["q07:test_batched_float32_and_float16"]}),
    "scores_d_k_from_size_1": (scores('''
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.size(1))
'''), {"key": "scale_wrong_axis", "where": ["q02:test_scores_batched_float32", "q02:test_scores_noncontiguous",
                                           "q02:test_scores_broadcast"]}),
    "rank_bound_as_tensor": ({"max_rank_S": "max_rank_S = torch.tensor(8)\nrank_S_lesson = 2"},
                             {"key": "returns_tensor_not_number", "where": ["q11:test_max_rank_S"]}),
})


# Issue 21, third round (blind3's kinds, made structurally): a wrong default named by a second call that
# passes it; one projection matrix used twice in cross- and self-attention
WRONG.update({
    "self_default_not_causal": ({"self_attention": "def self_attention(X, W_Q, W_K, W_V, causal=False):\n" + SELF_INLINE},
        {"key": "default_argument_wrong", "where": ["q07:test_causal_properties", "q09:test_zero_projections"]}),
    "self_default_none": ({"self_attention": "def self_attention(X, W_Q, W_K, W_V, causal=None):\n" + SELF_INLINE},
                          {"key": "default_argument_wrong",
                           "where": ["q07:test_causal_properties", "q09:test_zero_projections"]}),
    "cross_values_with_w_q": (cross_inline("Y @ W_V", "Y @ W_Q"), {"key": "same_projection", "where": ["q13"]}),
    "cross_keys_with_w_q": (cross_inline("Y @ W_K", "Y @ W_Q"), {"key": "same_projection", "where": ["q13"]}),
    "cross_values_with_w_k": (cross_inline("Y @ W_V", "Y @ W_K"), {"key": "same_projection", "where": ["q13"]}),
    # naming30: the same numbers as A @ K with project_qkv's right V: values_are_keys, whose message says both
    "self_values_with_w_k": (self_inline("X @ W_V", "X @ W_K"), {"key": ("same_projection", "values_are_keys"),
                                                                 "where": ["q07"]}),
})


# Issue 21, fourth round: the right values in another container (a NumPy array; a size-1 axis kept)
WRONG.update({
    "mask_numpy_array": (mask('''
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype).triu(1)
    return M.numpy()
'''), {"key": "returns_numpy_not_tensor", "where": ["q04", "q07", "q09"]}),
    "entropy_keepdim_left_on": (entropy('''
    P = A.clamp_min(torch.finfo(A.dtype).tiny)
    return -(A * torch.log2(P)).sum(-1, keepdim=True)
'''), {"key": "keepdim_left_on", "where": ["q10"]}),
    "entropy_trailing_none": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return (-(A * logs).sum(-1))[..., None]
'''), {"key": "keepdim_left_on", "where": ["q10"]}),
})

# Issue 21, fourth round: the prefix average without tril, with //; the parameter count's precedence
WRONG.update({
    "prefix_no_tril": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    return torch.ones(T, T, dtype=torch.float64) / torch.arange(1, T + 1, dtype=torch.float64).unsqueeze(1)
'''), {"key": "prefix_average_no_tril", "where": ["q09"]}),
    "prefix_floor_division": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.long))
    return (W // W.sum(dim=1, keepdim=True)).double()
'''), {"key": "prefix_average_floor_division", "where": ["q09"]}),
    "params_no_parentheses": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = d_model * 2 * d_k + d_v
    return total + d_v * d_model if with_output else total
'''), {"key": "param_count_precedence", "where": ["q12"]}),
    "params_last_term_only": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 2 * d_k + d_v * d_model
    if with_output:
        n += d_v * d_model
    return n
'''), {"key": "param_count_precedence", "where": ["q12"]}),
})

# Issue 21, fourth round: the kernel weights without [:, None] (a broadcast crash, named from d_v = T)
WRONG.update({
    "nw_weights_unsqueezed_last": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.numel()), dim=0)
    return (w * V).sum(0)
'''), {"key": "nw_weights_on_columns", "where": ["q08:test_nw_random", "q08:test_nw_is_attention_row",
                                                "q08:test_nw_views"]}),
})

# Issue 21, fifth round: kinds, not instances. Each is another way of making one kind the grader names by
# a property of the student's own output or by a second call (hidden/_diagnose.py): a blocked value that
# is not finfo.min, the mask after the softmax, an additive mask used as a boolean, code for one number
# of dims, a length read from d_model's axis, a reduction over the wrong axis, a softmax of a 0/1
# pattern, 2 ** -H
WRONG.update({
    "mask_fill_minus_100": (mask('''
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), -100.0)
'''), {"key": "mask_not_dtype_min", "where": ["q04"]}),
    "mask_full_of_max": (mask('''
    return torch.full((T, T), torch.finfo(dtype).max, dtype=dtype, device=device).triu(1)
'''), {"key": "mask_not_dtype_min", "where": ["q04"]}),
    "weights_mask_added_in_place_after": (weights('''
    A = S.softmax(dim=-1)
    if M is not None:
        A = A + M
    return A
'''), {"key": "mask_after_softmax", "where": ["q05"]}),
    "weights_masked_fill_with_additive": (weights('''
    if M is not None:
        S = S.masked_fill(M, float("-inf"))
    return torch.softmax(S, dim=-1)
'''), {"key": "additive_mask_as_boolean", "where": ["q05"]}),
    "cross_where_on_additive_mask": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if M is not None:
        S = torch.where(M, torch.full_like(S, float("-inf")), S)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''), {"key": "additive_mask_as_boolean", "where": ["q13"]}),
    "cross_mask_after_softmax": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), dim=-1)
    if M is not None:
        A = A + M
    return A @ V, A
'''), {"key": "mask_after_softmax", "where": ["q13"]}),
    "project_unpacks_three_dims": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    B, T, d = X.shape
    flat = X.reshape(B * T, d)
    return tuple((flat @ W).reshape(B, T, -1) for W in (W_Q, W_K, W_V))
'''), {"key": "batched_input_unsupported", "where": ["q01", "q07", "q09", "q13"]}),
    "project_bmm_only": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.bmm(X, W.expand(X.shape[0], *W.shape)) for W in (W_Q, W_K, W_V))
'''), {"key": "batched_input_unsupported", "where": ["q01", "q07", "q09", "q13"]}),
    "self_attention_T_from_size_1": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.size(1), S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''), {"key": "length_from_wrong_axis", "where": ["q07", "q09"]}),
    "nw_normalised_then_summed_over_columns": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    alpha = torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)
    return (alpha[:, None] * V).sum(dim=-1)
'''), {"key": "nw_sum_wrong_axis", "where": ["q08"]}),
    "prefix_softmax_rows_of_tril": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    return torch.ones(T, T, dtype=torch.float64).tril().softmax(dim=1)
'''), {"key": "prefix_average_softmax_of_pattern", "where": ["q09"]}),
    "effective_tokens_reciprocal": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(-1)
''', "    return 1.0 / torch.exp2(row_entropy_bits(A))\n"), {"key": "effective_tokens_exponent_negated", "where": ["q10"]}),
})

# Issue 21, fifth round: a wrong default (with_output=True), an entropy helper that writes into A (charged
# once, by row_entropy_bits' tests: effective_tokens passes parts=), weights never normalised after an exp
# with another shift than the row maximum (named from the property: each row over its own sum is right)
WRONG.update({
    "params_default_with_output_true": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=True):
    n = d_model * (2 * d_k + d_v)
    return n + d_v * d_model if with_output else n
'''), {"key": "default_argument_wrong", "where": ["q12:test_count_qkv"]}),
    "entropy_clamps_caller_A": (entropy('''
    A.clamp_(min=1e-300)
    return -(A * torch.log2(A)).sum(dim=-1)
'''), {"key": "inplace_on_input", "where": ["q10:test_entropy_causal_rows", "q10:test_entropy_views"]}),
    "weights_exp_over_key_count": (weights('''
    Z = S if M is None else S + M
    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    return e / e.shape[-1]
'''), {"key": ("weights_not_normalised", None), "where": ["q05"]}),   # rows all below 1: where every row
    # is masked, zeroing after the softmax looks the same, so those cases only say what differs
})

# Issue 21, fifth round: the right values in another dtype than the input's, named from the values
WRONG.update({
    "weights_upcast_to_float64": (weights('''
    Z = S if M is None else S + M
    return torch.softmax(Z.double(), dim=-1)
'''), {"key": "dtype_changed", "where": ["q05"]}),
    "nw_kernel_in_float32": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp((K.float() @ q.float()) / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V.float()).sum(0) / kappa.sum()
'''), {"key": ("float32_precision", "dtype_changed"), "where": ["q08"]}),
})

# Issue 21, fifth round: one number where one per row is asked (a reduction without dim=)
WRONG.update({
    "entropy_summed_over_everything": (entropy('''
    return -torch.special.xlogy(A, A).sum() / math.log(2)
'''), {"key": "reduced_every_axis", "where": ["q10:test_entropy_causal_rows", "q10:test_entropy_views"]}),
})

# Issue 21, fifth round: the mask added after the softmax inside self_attention itself
WRONG.update({
    "self_attention_mask_after_softmax": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    A = torch.softmax(scaled_scores(Q, K), dim=-1)
    if causal:
        A = A + causal_additive_mask(X.shape[-2], A.dtype, A.device)
    return A @ V, A
'''), {"key": "mask_after_softmax", "where": ["q07", "q09"]}),
})

# Issue 21, sixth round: other instances of blind5's kinds than blind5's own code
WRONG.update({
    # size-1 axes added where nothing is reduced: not keepdim_left_on
    "mask_batch_axis_added": (mask('''
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)[None]
'''), {"key": "size_one_axes_added", "where": ["q04"]}),
    "mask_hf_expand_shape": (mask('''
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)
    return M[None, None, :, :].expand(1, 1, T, T)
'''), {"key": "size_one_axes_added", "where": ["q04"]}),
    # O right, A an intermediate: the masked scores (-inf filled), or the scores before the mask
    "self_attention_returns_masked_scores": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = X.shape[-2]
        S = S.masked_fill(torch.ones(T, T, dtype=torch.bool, device=S.device).triu(1), float("-inf"))
    return torch.softmax(S, dim=-1) @ V, S
'''), {"key": "returns_scores_as_weights", "where": ["q07", "q09"]}),
    "self_attention_returns_added_scores": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(X.shape[-2], S.dtype, S.device)
    A = attention_weights(S)
    return A @ V, S
'''), {"key": "returns_scores_as_weights", "where": ["q07", "q09"]}),
    # the additive mask turned into -inf: NaN on a fully blocked row
    "weights_where_mask_negative": (weights('''
    if M is not None:
        S = torch.where(M < 0, torch.tensor(float("-inf"), dtype=S.dtype), S)
    return torch.softmax(S, dim=-1)
'''), {"key": "mask_filled_with_inf", "where": ["q05:test_weights_float64_rectangular_mask"]}),
    "weights_adds_inf_mask": (weights('''
    if M is not None:
        S = S + M.masked_fill(M != 0, float("-inf"))
    return torch.softmax(S, dim=-1)
'''), {"key": "mask_filled_with_inf", "where": ["q05:test_weights_float64_rectangular_mask"]}),
    # another "effective number": the inverse Simpson index by a norm
    "effective_tokens_inverse_norm": (entropy('''
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)
''', "    return torch.linalg.vector_norm(A, dim=-1) ** -2\n"), {"key": "effective_tokens_inverse_simpson",
                                                            "where": ["q10:test_effective_tokens"]}),
    # everything cast to float32 with .to: float64 inputs come back float32
    "project_to_float32": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    X = X.to(torch.float32)
    return tuple(X @ W.to(torch.float32) for W in (W_Q, W_K, W_V))
'''), {"key": ("float32_precision", "dtype_changed"), "where": ["q01"]}),
})

# naming7 (issue 21, third round): other instances of the kinds built from blind6's misses, and kinds
# no set had (the conditional expression that takes the whole parameter count)
WRONG.update({
    # elementwise for matrix product, written with torch.mul: a size-mismatch crash; square X and weights run
    "project_torch_mul": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return torch.mul(X, W_Q), torch.mul(X, W_K), torch.mul(X, W_V)
'''), {"key": "elementwise_product", "where": ["q01", "q07", "q09"]}),
    # one sum over each whole (T_q, T_k) matrix instead of each row
    "weights_sum_per_matrix": (weights('''
    Z = S if M is None else S + M
    E = torch.exp(Z - Z.amax(dim=(-2, -1), keepdim=True))
    return E / E.sum(dim=(-2, -1), keepdim=True)
'''), {"key": "softmax_global_sum", "where": ["q05", "q07", "q09", "q13"]}),
    # the kernel weights L2-normalised (F.normalize's default p=2) instead of divided by their sum
    "nw_l2_normalised": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.nn.functional.normalize(torch.exp(K @ q / math.sqrt(q.shape[-1])), dim=0)
    return w @ V
'''), {"key": "nw_wrong_denominator", "where": ["q08"]}),
    # each row divided by its column's count (sum over dim 0, kept as a row)
    "prefix_column_counts": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=0, keepdim=True)
'''), {"key": "prefix_average_count_wrong_axis", "where": ["q09"]}),
    # log(0) guarded with log1p: every term changes
    "entropy_log1p": (entropy('''
    return -(A * torch.log1p(A)).sum(dim=-1) / math.log(2)
'''), {"key": "entropy_log_shifted", "where": ["q10"]}),
    # W_O sized d_k x d_k
    "count_wo_dk_square": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + (d_k * d_k if with_output else 0)
'''), {"key": "param_count_wo_wrong_size", "where": ["q12"]}),
    # the conditional expression takes the whole sum: 0 without W_O
    "count_conditional_precedence": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + d_v * d_model if with_output else 0
'''), {"key": "param_count_conditional_precedence", "where": ["q12"]}),
    # the mask always float64, filled with float64's minimum (-inf once cast to float32)
    "mask_always_float64": (mask('''
    M = torch.zeros(T, T, dtype=torch.float64, device=device)
    M.masked_fill_(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), torch.finfo(torch.float64).min)
    return M
'''), {"key": "mask_dtype_ignored", "where": ["q04", "q07"]}),
    # self-attention scored against the values: runs only where d_v = d_k
    "self_scores_from_values": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ V.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if causal:
        S = S + causal_additive_mask(X.shape[-2], S.dtype, S.device)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''), {"key": "scores_from_values", "where": ["q07", "q09"]}),
    # the scores multiplied elementwise: a size-mismatch crash; square Q and K run
    "scores_elementwise": (scores('''
    return Q * K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
'''), {"key": "elementwise_product", "where": ["q02"]}),
    # cross-attention scored against the values, by hand
    "cross_scores_against_values": (cross('''
    Q, V = X @ W_Q, Y @ W_V
    S = Q @ V.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    A = attention_weights(S, M)
    return A @ V, A
'''), {"key": "scores_from_values", "where": ["q13"]}),
})

# naming8 (issue 21): other instances of blind7's kinds
WRONG.update({
    # torch.where's result dropped: the mask stays all zeros
    "mask_where_result_dropped": (mask('''
    M = torch.zeros(T, T, dtype=dtype, device=device)
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    torch.where(future, torch.finfo(dtype).min, M)
    return M
'''), {"key": "mask_blocks_nothing", "where": ["q04", "q07", "q09"]}),
    # the blocked scores filled with 0 instead of a very negative number
    "weights_blocked_filled_with_zero": (weights('''
    if M is not None:
        S = S.masked_fill(M != 0, 0.0)
    return torch.softmax(S, dim=-1)
'''), {"key": "blocked_scores_zeroed", "where": ["q05", "q07", "q09", "q13"]}),
    # F.softmax without dim: torch's legacy implicit dim
    "weights_functional_softmax_no_dim": (weights('''
    Z = S if M is None else S + M
    return torch.nn.functional.softmax(Z, _stacklevel=5)
'''), {"key": "softmax_implicit_dim", "where": ["q05", "q07", "q09", "q13"]}),
    # every head's W_Q, W_K, W_V and W_O counted
    "count_all_heads_with_output": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    h = d_model // d_k
    return h * (d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0))
'''), {"key": "param_count_times_heads", "where": ["q12"]}),
    # an einsum written for exactly 3-D inputs
    "scores_einsum_three_dims": (scores('''
    return torch.einsum("bqd,bkd->bqk", Q, K) / math.sqrt(Q.shape[-1])
'''), {"key": "batched_input_unsupported", "where": ["q02", "q07", "q09", "q13"]}),
})
WRONG.update({
    # dim=0 written out: on 3-D S the same as the implicit dim; a 2-D call tells them apart
    "weights_softmax_dim0_written": (weights('''
    Z = S if M is None else S + M
    return torch.softmax(Z, dim=0)
'''), {"key": "softmax_wrong_dim", "where": ["q05", "q07", "q09", "q13"]}),
})
# naming9 (issue 21, fifth round): other instances of the kinds built from blind8's misses
WRONG.update({
    # finfo(float64).min put into a float32 tensor (torch.full without dtype): -inf for float64, and
    # float32 whatever dtype is asked; the float32 mask itself is right
    "mask_full_without_dtype": (mask('''
    return torch.full((T, T), torch.finfo(dtype).min, device=device).triu(1)
'''), {"key": "mask_built_in_float32", "where": ["q04"]}),
    # the right letter inside a one-element list
    "mcq_letter_in_a_list": (cell("ans_scale", 'ans_scale = ["b"]\n'),
                             {"key": "answer_in_container", "where": ["q03"]}),
    # the first key and value left out of the kernel average (K[1:], V[1:]): an off-by-one at the start
    "nw_drops_the_first_key": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    kappa = torch.exp(K[1:] @ q / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V[1:]).sum(dim=0) / kappa.sum()
'''), {"key": "nw_drops_a_key", "where": ["q08"]}),
    # the number of non-zero weights per row as the effective number of tokens
    "effective_tokens_count_nonzero": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''', "    return (A != 0).sum(dim=-1).to(A.dtype)\n"), {"key": "effective_tokens_support_size", "where": ["q10"]}),
    # with_output accepted and never read
    "count_flag_never_read": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v)
'''), {"key": "param_count_wo_ignored", "where": ["q12"]}),
    # keys and values over Y then X (the other order of the concatenation)
    "cross_keys_over_y_then_x": (cross('''
    Q = X @ W_Q
    Z = torch.cat((Y, X), dim=-2)
    A = attention_weights(scaled_scores(Q, Z @ W_K), M)
    return A @ (Z @ W_V), A
'''), {"key": "cross_keys_over_both", "where": ["q13"]}),
    # the mask turned round with .T (2-D masks only), thinking its rows are keys
    "weights_mask_dot_T": (weights('''
    Z = S if M is None else S + M.T
    return torch.softmax(Z, dim=-1)
'''), {"key": "mask_transposed", "where": ["q05", "q07", "q09", "q13"]}),
})
# naming10 (issue 21, sixth round): other instances of the kinds built from blind9's misses
WRONG.update({
    # scaled a second time, by the number of queries (S.shape[-2]) rather than keys
    "weights_scaled_again_by_queries": (weights('''
    Z = S / math.sqrt(S.shape[-2])
    return torch.softmax(Z if M is None else Z + M, dim=-1)
'''), {"key": "scores_scaled_twice", "where": ["q05", "q07", "q09", "q13"]}),
    # scaled a second time after the mask is added (the blocked entries stay far below every score)
    "weights_mask_then_scaled_again": (weights('''
    Z = S if M is None else S + M
    return torch.softmax(Z / Z.size(-1) ** 0.5, dim=-1)
'''), {"key": "scores_scaled_twice", "where": ["q05", "q07", "q09", "q13"]}),
    # the scores negated before the mask is added, as for distances (-(S + M) is not here: with M at
    # finfo.min it gives what S - M gives, mask_sign_flipped, on every masked row)
    "weights_negated_then_masked": (weights('''
    Z = -S
    return torch.softmax(Z if M is None else Z + M, dim=-1)
'''), {"key": "scores_negated", "where": ["q05", "q07", "q09", "q13"]}),
    # the kernel's logits negated inside a softmax over the keys
    "nw_softmax_of_negated_logits": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(-(K @ q) / math.sqrt(K.shape[-1]), dim=0)
    return w @ V
'''), {"key": "scores_negated", "where": ["q08"]}),
    # the average entropy of the rows (one number per matrix): sum over keys, mean over queries
    "entropy_averaged_over_queries": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1).mean(dim=-1)
'''), {"key": "entropy_summed_over_queries", "where": ["q10"]}),
    # the lesson's S given rank Q + rank K = 2 + 4
    "rank_lesson_sum_of_ranks": (cell("max_rank_S", "max_rank_S = 8\n\nrank_S_lesson = 2 + 4\n"),
                                 {"key": "rank_sum_of_ranks", "where": ["q11"]}),
})
# naming11 (issue 21, seventh round): other instances of the kinds built from blind10's misses
WRONG.update({
    # state kept between calls: the last mask reused whenever the size matches, whatever dtype is asked
    "mask_reuses_last_of_same_size": (mask('''
    global _last_mask
    last = globals().get("_last_mask")
    if last is not None and last.shape[-1] == T:
        return last
    _last_mask = torch.zeros(T, T, dtype=dtype, device=device).masked_fill(
        torch.ones(T, T, dtype=torch.bool, device=device).triu(1), torch.finfo(dtype).min)
    return _last_mask
'''), {"key": "mask_cached_by_size", "where": ["q04", "q07", "q09"]}),
    # the stabilising shift taken over the queries, with amax and .exp()
    "weights_amax_over_queries": (weights('''
    Z = S if M is None else S + M
    e = (Z - Z.amax(dim=-2, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)
'''), {"key": "softmax_shift_wrong_axis", "where": ["q05", "q07", "q09", "q13"]}),
    # the effective number of tokens as the entropy doubled
    "effective_tokens_entropy_doubled": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''', "    return row_entropy_bits(A) * 2\n"), {"key": "effective_tokens_times_two", "where": ["q10"]}),
    # only the earlier tokens, the empty first row guarded by a count of at least 1
    "prefix_strictly_earlier_guarded": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    W = torch.ones(T, T, dtype=torch.float64).tril(-1)
    return W / W.sum(dim=1, keepdim=True).clamp(min=1)
'''), {"key": "prefix_average_excludes_self", "where": ["q09"]}),
    # with_output returns early with W_O's count alone
    "count_returns_wo_alone": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    if with_output:
        return d_v * d_model
    return d_model * (2 * d_k + d_v)
'''), {"key": "param_count_output_replaces", "where": ["q12"]}),
    # X standardised by hand (mean and unbiased std over the features) before projecting
    "project_standardised_input": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    Xn = (X - X.mean(dim=-1, keepdim=True)) / X.std(dim=-1, keepdim=True)
    return Xn @ W_Q, Xn @ W_K, Xn @ W_V
'''), {"key": "layer_norm_before_projection", "where": ["q01", "q07", "q09"]}),
    # the cross-attention mask turned round with .mT
    "cross_mask_mT": (cross('''
    A = attention_weights(scaled_scores(X @ W_Q, Y @ W_K), None if M is None else M.mT)
    return A @ (Y @ W_V), A
'''), {"key": "mask_transposed", "where": ["q13"]}),
    # causality by multiplying the scores by a lower-triangular matrix of ones (future scores become 0)
    "self_attention_scores_times_tril": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S * torch.ones_like(S).tril()
    A = attention_weights(S)
    return A @ V, A
'''), {"key": ("blocked_scores_zeroed", "no_causal_mask"), "where": ["q07", "q09"]}),
})

# naming12: other instances of blind11's two kinds (a product's operands swapped; a count from the wrong
# arithmetic of the widths), and slips of the same exercises no set had
WRONG.update({
    # w @ V written V @ w: a crash unless d_v = T; the square re-run (T = d_k = d_v) matches it
    "nw_values_times_weights": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.exp(K @ q / math.sqrt(q.shape[0]))
    return V @ w / w.sum()
'''), {"key": "nw_operands_swapped", "where": ["q08"]}),
    # K.T @ q for K @ q: the same scores against K's columns as q @ K, through torch.mv's message
    "nw_keys_transposed_times_query": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(torch.mv(K.T, q) / math.sqrt(len(q)), dim=0)
    return w @ V
'''), {"key": "nw_operands_swapped", "where": ["q08"]}),
    # q @ K inside torch.matmul and a softmax: the blind11 slip written another way
    "nw_matmul_query_keys": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    scores = torch.matmul(q.unsqueeze(0), K).squeeze(0) / q.shape[-1] ** 0.5
    return torch.softmax(scores, dim=-1) @ V
'''), {"key": "nw_operands_swapped", "where": ["q08"]}),
    # each matrix's two widths added instead of multiplied
    "count_widths_added": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = (d_model + d_k) + (d_model + d_k) + (d_model + d_v)
    if with_output:
        n += d_v + d_model
    return n
'''), {"key": "param_count_widths_arithmetic", "where": ["q12"]}),
    # the widths multiplied, W_O added right
    "count_widths_product_sum_wo": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = d_model * d_k * d_v
    return total + d_v * d_model if with_output else total
'''), {"key": "param_count_widths_arithmetic", "where": ["q12"]}),
    # Q @ K without K's transpose: a crash unless T_k = d_k; the square re-run (Q, K both d_k x d_k) matches it
    "scores_keys_not_transposed": (scores('''
    return Q @ K / math.sqrt(Q.shape[-1])
'''), {"key": "scores_keys_not_transposed", "where": ["q02"]}),
    # the prefix average's triangle one diagonal too high: row t averages the next token too
    "prefix_tril_diagonal_one": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64), diagonal=1)
    return W / W.sum(dim=-1, keepdim=True)
'''), {"key": "causal_includes_next", "where": ["q09:test_prefix_average_matrix"]}),
})

# issue 21, ninth round: the fused projection cut at the wrong widths (blind12's q01_fused_split_at_d_model)
WRONG.update({
    # equal thirds of the fused product: 10, 10, 9 of 29 columns, 10, 10, 8 of 28
    "project_fused_chunk_thirds": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return (X @ torch.cat((W_Q, W_K, W_V), dim=-1)).chunk(3, dim=-1)
'''), {"key": "fused_projection_split", "where": ["q01", "q07", "q13"]}),
    # torch.split with the model width: too many pieces on most widths
    "project_fused_split_model_width": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    d_model = X.shape[-1]
    Q, K, V = torch.split(torch.cat([X @ W_Q, X @ W_K, X @ W_V], -1), d_model, dim=-1)
    return Q, K, V
'''), {"key": "fused_projection_split", "where": ["q01", "q07", "q13"]}),
    # tensor_split into three near-equal parts
    "project_fused_tensor_split": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    W = torch.cat([W_Q, W_K, W_V], dim=1)
    Q, K, V = torch.tensor_split(X @ W, 3, dim=-1)
    return Q, K, V
'''), {"key": "fused_projection_split", "where": ["q01", "q07", "q13"]}),
})

# issue 21, tenth round (naming14): other instances of blind13's kinds
WRONG.update({
    # the scale in the wrong place: X divided by sqrt(d_k) before projecting, Q, K, V all 1/sqrt(d_k) too small
    "project_inputs_over_sqrt_dk": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    X = X / math.sqrt(W_Q.shape[-1])
    return X @ W_Q, X @ W_K, X @ W_V
'''), {"key": "inputs_scaled_before_projection", "where": ["q01", "q07", "q09", "q13"]}),
    # a normalised similarity for the plain one: unit vectors, no scale
    "nw_normalize_then_dot": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    Kn = torch.nn.functional.normalize(K, dim=-1)
    qn = torch.nn.functional.normalize(q, dim=-1)
    w = torch.softmax(Kn @ qn, dim=0)
    return w @ V
'''), {"key": "nw_cosine_kernel", "where": ["q08"]}),
    # a boolean flag's branches swapped, as a conditional expression
    "param_count_flag_swapped_ternary": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return 2 * d_model * d_k + d_model * d_v + (0 if with_output else d_v * d_model)
'''), {"key": "param_count_flag_inverted", "where": ["q12"]}),
    # naming15: other instances of blind14's kinds (a keep-mask reading through torch.where; a row loop that
    # stops one early)
    "weights_where_keep_mask": (weights('''
    if M is not None:
        S = torch.where(M == 0, torch.full_like(S, float("-inf")), S)
    return torch.softmax(S, dim=-1)
'''), {"key": "additive_mask_as_boolean", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "prefix_average_loop_stops_early": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    P = torch.zeros(T, T, dtype=torch.float64)
    for t in range(T - 1):
        P[t, : t + 1] = 1.0 / (t + 1)
    return P
'''), {"key": "prefix_average_row_skipped", "where": ["q09", "q10"]}),
})

# naming17: other instances of blind15's kinds (the given weights unused, fixed or random; the normalised
# weights' weighted values divided by the number of keys again; a rank bound from arithmetic of T and d_k)
WRONG.update({
    "project_identity_placeholder": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    d = X.shape[-1]
    eye = lambda n: torch.eye(d, n, dtype=X.dtype, device=X.device)
    return X @ eye(W_Q.shape[-1]), X @ eye(W_K.shape[-1]), X @ eye(W_V.shape[-1])
'''), {"key": "given_weights_unused", "where": ["q01", "q07", "q09", "q13"]}),
    "project_randn_weights": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    outs = []
    for W in (W_Q, W_K, W_V):
        weight = torch.randn(W.shape, dtype=X.dtype) / W.shape[0] ** 0.5
        outs.append(torch.matmul(X, weight))
    return tuple(outs)
'''), {"key": "given_weights_unused", "where": ["q01", "q07", "q09", "q13"]}),
    "project_fixed_seed_linear": (cell("project_qkv", '''
import torch.nn as nn


def project_qkv(X, W_Q, W_K, W_V):
    torch.manual_seed(0)
    layers = [nn.Linear(W.shape[0], W.shape[1], bias=False).to(X.dtype) for W in (W_Q, W_K, W_V)]
    with torch.no_grad():
        return tuple(layer(X) for layer in layers)
'''), {"key": "given_weights_unused", "where": ["q01", "q07", "q09", "q13"]}),
    "nw_weighted_sum_over_T": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(K.shape[1]), dim=0)
    return (w @ V) / len(K)
'''), {"key": "values_averaged_over_keys", "where": ["q08"]}),
    "nw_einsum_mean": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    kappa = (K @ q / q.numel() ** 0.5).exp()
    w = kappa / kappa.sum()
    return torch.einsum("t,td->td", w, V).mean(dim=-2)
'''), {"key": "values_averaged_over_keys", "where": ["q08"]}),
    "rank_tokens_times_d_k": ({"max_rank_S": "max_rank_S = 100 * 8\nrank_S_lesson = 2"},
                              {"key": "rank_from_size_arithmetic", "where": ["q11:test_max_rank_S"]}),
    "rank_d_k_squared": ({"max_rank_S": "T, d_k = 100, 8\nmax_rank_S = d_k ** 2\nrank_S_lesson = 2"},
                         {"key": "rank_from_size_arithmetic", "where": ["q11:test_max_rank_S"]}),
    "rank_tokens_plus_d_k": ({"max_rank_S": "max_rank_S = sum([100, 8])\nrank_S_lesson = 2"},
                             {"key": "rank_from_size_arithmetic", "where": ["q11:test_max_rank_S"]}),
})

CORRECT.update({
    # nn.Linear's layout through F.linear with the transposed weights
    "project_f_linear": cell("project_qkv", '''
import torch.nn.functional as F


def project_qkv(X, W_Q, W_K, W_V):
    return tuple(F.linear(X, W.mT) for W in (W_Q, W_K, W_V))
'''),
    # averaged over the keys and multiplied back by their number: the weighted sum all the same
    "nw_mean_times_T": cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / q.shape[-1] ** 0.5, dim=0)
    return (w[:, None] * V).mean(dim=0) * K.shape[0]
'''),
    # the bound measured on a random head of the question's sizes
    "rank_measured": {"max_rank_S": '''
_g = torch.Generator().manual_seed(0)
max_rank_S = int(torch.linalg.matrix_rank(torch.randn(100, 8, generator=_g, dtype=torch.float64)
                                          @ torch.randn(8, 100, generator=_g, dtype=torch.float64)))
rank_S_lesson = 2
'''},
})

# naming18: other instances of blind16's kinds (projections returned with tokens as columns; the scale read
# from the number of dimensions; the causal mask filled on tril itself; V @ A for A @ V; the projections
# unpacked as (Q, V, K); the queries scored against themselves while project_qkv is right)
WRONG.update({
    "project_tokens_as_columns_einsum": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.einsum("...td,de->...et", X, W) for W in (W_Q, W_K, W_V))
'''), {"key": "projections_transposed", "where": ["q01"]}),
    "project_tokens_as_columns_mT": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = (X @ W for W in (W_Q, W_K, W_V))
    return Q.mT, K.mT, V.mT
'''), {"key": "projections_transposed", "where": ["q01"]}),
    "scores_scale_from_q_ndim": (scores('''
    return torch.matmul(Q, K.transpose(-2, -1)) / Q.ndim ** 0.5
'''), {"key": "scale_from_ndim", "where": ["q02"]}),
    "scores_scale_len_of_shape": (scores('''
    d_k = len(K.shape)
    return (Q / math.sqrt(d_k)) @ K.mT
'''), {"key": "scale_from_ndim", "where": ["q02"]}),
    "mask_tril_filled_where": (mask('''
    low = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return torch.where(low, torch.finfo(dtype).min, M)
'''), {"key": "upper_triangular_mask", "where": ["q04"]}),
    "mask_tril_eq_one": (mask('''
    tril = torch.tril(torch.ones(T, T, device=device))
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(tril == 1, torch.finfo(dtype).min)
'''), {"key": "upper_triangular_mask", "where": ["q04"]}),
    "self_values_times_weights_matmul": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return torch.matmul(V, A), A
'''), {"key": "nw_operands_swapped", "where": ["q07", "q09"]}),
    "self_values_times_weights_einsum": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    T = X.shape[-2]
    A = attention_weights(scaled_scores(Q, K), causal_additive_mask(T, Q.dtype, Q.device) if causal else None)
    return torch.einsum("...ij,...jk->...ik", V, A), A
'''), {"key": "nw_operands_swapped", "where": ["q07", "q09"]}),
    "self_unpacks_k_v_swapped": (self_attn('''
    Q, V, K = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ K.mT / Q.shape[-1] ** 0.5
    if causal:
        S = S + causal_additive_mask(S.shape[-1], S.dtype, S.device)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''), {"key": "scores_from_values", "where": ["q07", "q09"]}),
    "self_indexes_projections_wrong": (self_attn('''
    proj = project_qkv(X, W_Q, W_K, W_V)
    Q, K, V = proj[0], proj[2], proj[1]
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return A @ V, A
'''), {"key": "scores_from_values", "where": ["q07", "q09"]}),
    "self_scores_query_with_itself": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ Q.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if causal:
        S = S + causal_additive_mask(X.shape[-2], S.dtype, S.device)
    A = attention_weights(S)
    return A @ V, A
'''), {"key": "keys_are_queries", "where": ["q07"]}),
    "self_scores_keyword_q_twice": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q=Q, K=Q)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''), {"key": "keys_are_queries", "where": ["q07"]}),
})

CORRECT.update({
    # tokens as columns inside, transposed back before returning
    "project_columns_then_back": cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    Xc = X.mT
    return tuple((W.mT @ Xc).mT for W in (W_Q, W_K, W_V))
'''),
    # d_k read as the last entry of the shape, counted from the rank
    "scores_dk_from_rank_index": scores('''
    d_k = K.shape[K.dim() - 1]
    return Q @ K.transpose(K.ndim - 2, K.ndim - 1) / math.sqrt(d_k)
'''),
    # the causal mask from tril == 0 on an int tril
    "mask_tril_eq_zero_int": mask('''
    keep = torch.tril(torch.ones(T, T, dtype=torch.int64, device=device))
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(keep == 0, torch.finfo(dtype).min)
'''),
    # the output as (V^T A^T)^T, the weighted values all the same; the projections unpacked by index
    "self_output_double_transpose": self_attn('''
    proj = project_qkv(X, W_Q, W_K, W_V)
    Q, K, V = proj[0], proj[1], proj[2]
    A = attention_weights(scaled_scores(Q, K), causal_additive_mask(X.shape[-2], Q.dtype, Q.device) if causal else None)
    return (V.mT @ A.mT).mT, A
'''),
})

# naming19: self_attention written for exactly (B, T, d_model): named from X with a batch axis added
WRONG.update({
    "self_batch_time_width_unpacked": (self_attn('''
    batch, length, width = X.shape
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(length, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''), {"key": "batched_input_unsupported", "where": ["q07", "q09"]}),
    "self_einsum_three_axes_only": (self_attn('''
    Q = torch.einsum("btd,dk->btk", X, W_Q)
    K = torch.einsum("btd,dk->btk", X, W_K)
    V = torch.einsum("btd,dk->btk", X, W_V)
    S = torch.einsum("bqk,btk->bqt", Q, K) / math.sqrt(Q.shape[-1])
    M = causal_additive_mask(X.shape[1], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''), {"key": "batched_input_unsupported", "where": ["q07", "q09"]}),
})

CORRECT.update({
    # the leading dims read by slicing the shape; T from the end, whatever the number of batch dims
    "self_shape_sliced_from_the_end": self_attn('''
    *lead, T, _ = X.shape
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    A = attention_weights(scaled_scores(Q, K), causal_additive_mask(T, Q.dtype, Q.device) if causal else None)
    O = A @ V
    assert tuple(O.shape[:len(lead)]) == tuple(lead)
    return O, A
'''),
})

# naming19: the query-key dot products summed over the keys (dim=0), one score per feature
WRONG.update({
    "nw_scores_einsum_over_keys": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    s = torch.einsum("tk,k->k", K, q) / math.sqrt(K.shape[-1])
    w = torch.softmax(s, dim=0)
    return w @ V
'''), {"key": "nw_dot_over_keys", "where": ["q08"]}),
    "nw_scores_mul_sum_first_axis": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    prod = q.unsqueeze(0) * K
    kappa = torch.exp(prod.sum(axis=0) / q.shape[0] ** 0.5)
    return (kappa.unsqueeze(-1) * V).sum(axis=0) / kappa.sum()
'''), {"key": "nw_dot_over_keys", "where": ["q08"]}),
})

CORRECT.update({
    # the dot products as a product and a sum over the features (the last axis), kept explicit
    "nw_mul_sum_last_axis": cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    s = (K * q[None, :]).sum(dim=K.dim() - 1) * q.shape[-1] ** -0.5
    e = torch.exp(s - s.max())
    return (e[:, None] * V).sum(dim=0) / e.sum()
'''),
})

# naming19: a 0/1 pattern of numbers handed to masked_fill / torch.where, which need torch.bool
WRONG.update({
    "mask_int_tril_into_masked_fill": (mask('''
    allowed = torch.tril(torch.ones(T, T, dtype=torch.int64, device=device))
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(1 - allowed, torch.finfo(dtype).min)
'''), {"key": "fill_mask_not_bool", "where": ["q04", "q07", "q09"]}),
    "mask_float_future_into_where": (mask('''
    future = torch.ones(T, T, dtype=dtype, device=device).triu(diagonal=1)
    lowest = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(future, lowest, torch.zeros_like(lowest))
'''), {"key": "fill_mask_not_bool", "where": ["q04", "q07", "q09"]}),
})

CORRECT.update({
    # the 0/1 float pattern turned into torch.bool before masked_fill
    "mask_float_pattern_cast_to_bool": mask('''
    future = torch.ones(T, T, device=device).triu(1).to(torch.bool)
    return torch.zeros((T, T), dtype=dtype, device=device).masked_fill_(future, torch.finfo(dtype).min)
'''),
})

# naming19: X's batch axes folded into its rows for the products and never shaped back
WRONG.update({
    "project_flatten_batch_never_restored": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    rows = X.reshape(-1, X.shape[-1])
    return rows @ W_Q, rows @ W_K, rows @ W_V
'''), {"key": "batched_input_unsupported", "where": ["q01", "q07", "q09", "q13"]}),
    "project_flatten_view_mm": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    flat = X.contiguous().view(-1, W_Q.shape[0])
    return tuple(torch.mm(flat, W) for W in (W_Q, W_K, W_V))
'''), {"key": "batched_input_unsupported", "where": ["q01", "q07", "q09", "q13"]}),
})

CORRECT.update({
    # the batch folded into the rows for one 2-D product, then shaped back
    "project_flatten_then_restore": cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    lead = X.shape[:-1]
    flat = X.reshape(-1, X.shape[-1])
    return tuple((flat @ W).reshape(*lead, W.shape[-1]) for W in (W_Q, W_K, W_V))
'''),
})

# naming20: the kernel smoother computed in float64 and never cast back to the inputs' dtype
WRONG.update({
    "nw_kernel_in_double_never_cast_back": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    q64, K64, V64 = (t.to(torch.float64) for t in (q, K, V))
    w = torch.softmax(K64 @ q64 / math.sqrt(q64.numel()), dim=0)
    return w @ V64
'''), {"key": "dtype_changed", "where": ["q08"]}),
    "nw_numpy_float64_back_to_torch": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    import numpy as np
    k, v, x = K.detach().cpu().numpy().astype("float64"), V.detach().cpu().numpy().astype("float64"), q.detach().cpu().numpy().astype("float64")
    s = k @ x / math.sqrt(x.shape[0])
    e = np.exp(s - s.max())
    return torch.from_numpy((e[:, None] * v).sum(axis=0) / e.sum())
'''), {"key": "dtype_changed", "where": ["q08"]}),
})

CORRECT.update({
    # computed in float64 for safety, then cast back to the inputs' dtype and device
    "nw_double_then_cast_back": cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    s = K.double() @ q.double() * (1.0 / math.sqrt(q.shape[-1]))
    kappa = (s - s.max()).exp()
    row = (kappa @ V.double()) / kappa.sum()
    return row.to(dtype=V.dtype, device=V.device)
'''),
})

# naming20: the (T, T') mask given a leading batch axis, so an unbatched call returns O and A of shape (1, ...)
WRONG.update({
    "cross_mask_none_index_for_batch": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M[None, :, :]
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''), {"key": "size_one_axes_added", "where": ["q13"]}),
    "cross_mask_expanded_with_view": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    M3 = None if M is None else M.reshape(1, *M.shape)
    A = attention_weights(scaled_scores(Q, K), M3)
    return torch.matmul(A, V), A
'''), {"key": "size_one_axes_added", "where": ["q13"]}),
})

CORRECT.update({
    # the mask broadcast against the scores by expand_as, which adds no axis of its own
    "cross_mask_expand_as_scores": cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = torch.matmul(Q, K.transpose(-1, -2)) * Q.size(-1) ** -0.5
    if M is not None:
        S = S + M.to(S.dtype).expand_as(S)
    return torch.softmax(S, -1) @ V, torch.softmax(S, -1)
'''),
})

# naming20: the blocked scores overwritten with -1e9, a number float16 cannot hold
WRONG.update({
    "cross_where_blocked_minus_1e9": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = torch.where(M < 0, torch.full_like(S, -1e9), S)
    A = S.softmax(dim=-1)
    return A @ V, A
'''), {"key": "neg_1e9_float16", "where": ["q13"]}),
    "cross_inplace_fill_minus_1e9": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.mT / math.sqrt(K.shape[-1])
    if M is not None:
        S.masked_fill_(M.bool(), -1000000000.0)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''), {"key": "neg_1e9_float16", "where": ["q13"]}),
})

CORRECT.update({
    # the blocked scores overwritten with the scores' own dtype minimum, which every float dtype holds
    "cross_fill_blocked_with_dtype_min": cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S.masked_fill(M != 0, torch.finfo(S.dtype).min)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''),
})

# naming21: a size (the keys' count) passed where the softmax's axis goes
WRONG.update({
    "weights_dim_from_size_call": (weights('''
    Z = S if M is None else S + M
    return torch.nn.functional.softmax(Z, dim=Z.size(dim=-1))
'''), {"key": "size_as_dim", "where": ["q05"]}),
    "weights_log_softmax_over_key_count": (weights('''
    n_keys = S.shape[S.dim() - 1]
    scores = S + M if M is not None else S
    return scores.log_softmax(n_keys).exp()
'''), {"key": "size_as_dim", "where": ["q05"]}),
})

CORRECT.update({
    # the last axis computed from the number of dims, not from a size
    "weights_dim_from_ndim": weights('''
    Z = S if M is None else torch.add(S, M)
    return torch.softmax(Z, dim=Z.ndim - 1)
'''),
})

# naming21: the softmax's axis hard-coded as 2, the keys' axis of 3-D scores only
WRONG.update({
    "cross_softmax_method_dim_two": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M
    A = S.softmax(2)
    return A @ V, A
'''), {"key": "batched_input_unsupported", "where": ["q13"]}),
    "cross_log_softmax_dim_two": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(K.shape[-1])
    S = S if M is None else S + M
    A = torch.log_softmax(S, dim=2).exp()
    return torch.matmul(A, V), A
'''), {"key": "batched_input_unsupported", "where": ["q13"]}),
})

CORRECT.update({
    # an nn.Softmax module over the last axis, which fits any number of batch dims
    "cross_softmax_module_last_axis": cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    A = torch.nn.Softmax(dim=-1)(S if M is None else S + M)
    return A @ V, A
'''),
})

# naming21: the transformer block's residual (X + attention) added inside self_attention
WRONG.update({
    "self_attention_residual_inplace": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    T = X.shape[-2]
    M = causal_additive_mask(T, X.dtype, X.device) if causal else None
    A = attention_weights(scaled_scores(Q, K), M)
    out = X.clone()
    out += A @ V
    return out, A
'''), {"key": "mha_residual_added", "where": ["q07", "q09"]}),
    "self_attention_residual_torch_add": (self_attn('''
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = torch.matmul(Q, K.mT) / math.sqrt(Q.shape[-1])
    if causal:
        S = S + causal_additive_mask(S.shape[-1], S.dtype, S.device)
    A = torch.softmax(S, dim=-1)
    return torch.add(torch.matmul(A, V), X), A
'''), {"key": "mha_residual_added", "where": ["q07", "q09"]}),
})

CORRECT.update({
    # the output built with einsum, nothing of X added back
    "self_attention_einsum_output": self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.size(-2), S.dtype, S.device) if causal else None)
    return torch.einsum("...qk,...kv->...qv", A, V), A
'''),
})

# naming21: the lower triangle divided by its grand total instead of each row's count
WRONG.update({
    "prefix_average_divided_by_count_nonzero": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W.div(W.count_nonzero())
'''), {"key": "softmax_global_sum", "where": ["q09"]}),
    "prefix_average_divided_by_triangle_number": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    w = torch.ones(T, T, dtype=torch.float64).tril_()
    return w / (T * (T + 1) / 2)
'''), {"key": "softmax_global_sum", "where": ["q09"]}),
})

# naming21: the right recipe run in float32, cast to float64 only at the end
WRONG.update({
    "prefix_average_reciprocal_float32_then_double": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    inv = 1.0 / torch.arange(1, T + 1).float()
    return (torch.tril(torch.ones(T, T)) * inv[:, None]).double()
'''), {"key": "prefix_average_float32", "where": ["q09"]}),
    "prefix_average_row_sums_float32_then_cast": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    W = torch.ones(T, T).tril()
    return (W / W.sum(dim=1, keepdim=True)).to(dtype=torch.float64)
'''), {"key": "prefix_average_float32", "where": ["q09"]}),
})

CORRECT.update({
    # the reciprocals made in float64 first, broadcast over the columns, then the upper part cut away
    "prefix_average_tril_of_expanded_reciprocals": cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    inv = torch.arange(1, T + 1, dtype=torch.float64).reciprocal()
    return torch.tril(inv[:, None].expand(T, T))
'''),
})

# naming21: the entropy divided by log(T_k), as if normalised to [0, 1]
WRONG.update({
    "entropy_nats_over_log_row_length": (entropy('''
    p = A.clamp_min(1e-300)
    return -(A * p.log()).sum(-1) / torch.log(torch.tensor(float(A.size(-1)), dtype=A.dtype))
'''), {"key": "entropy_normalised_by_log_keys", "where": ["q10"]}),
    "entropy_bits_over_ln_keys": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1) / math.log(A.shape[-1])
'''), {"key": "entropy_normalised_by_log_keys", "where": ["q10"]}),
})

CORRECT.update({
    # nats converted to bits by dividing by ln 2, a constant, whatever the row length
    "entropy_xlogy_over_ln2": entropy('''
    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2.0)
'''),
})

# naming22: matrix_rank(S, hermitian=True) on the lesson's non-symmetric S gives 5, which is T too: generic
WRONG.update({
    "rank_lesson_hermitian": ({"max_rank_S": '''max_rank_S = 8
import torch as _t
_Qd = _t.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=_t.float64)
_Kd = _t.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=_t.float64)
rank_S_lesson = _t.linalg.matrix_rank(_Qd @ _Kd.mT, hermitian=True).item()
'''}, {"key": "one_edit_fix", "where": ["q11:test_rank_S_lesson"]}),   # since blind35: `False` in place of `True`
})

# naming22: a letter with characters around it, which the notebook's format check rejects
WRONG.update({
    "ans_complexity_in_parentheses": ({"ans_complexity": 'ans_complexity = "(c)"'},
                                      {"key": "answer_extra_characters", "where": ["q16"]}),
    "ans_scale_with_full_stop": ({"ans_scale": 'ans_scale = "B."'},
                                 {"key": "answer_extra_characters", "where": ["q03"]}),
})

CORRECT.update({
    # the letter built from its position, upper case with spaces: strip().lower() makes it "d"
    "ans_cross_causal_from_position": {"ans_cross_causal": 'ans_cross_causal = " " + chr(ord("A") + 3) + " "'},
})

# naming22: qkv_param_count with no value on one path; W_O counted as a third of W_Q, W_K, W_V
WRONG.update({
    "param_count_returns_only_with_output": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    if with_output:
        return d_model * (2 * d_k + d_v) + d_v * d_model
    else:
        total = d_model * (2 * d_k + d_v)
'''), {"key": "return_missing_on_path", "where": ["q12:test_count_qkv"]}),
    "param_count_else_branch_prints": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    sizes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    count = sum(a * b for a, b in sizes)
    if with_output:
        return count
    print(count)
'''), {"key": "return_missing_on_path", "where": ["q12:test_count_qkv"]}),
    "param_count_wo_mean_of_projections": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    projections = [d_model * d_k, d_model * d_k, d_model * d_v]
    if with_output:
        projections.append(sum(projections) / len(projections))   # W_O: an average projection
    return sum(projections)
'''), {"key": "param_count_wo_wrong_size", "where": ["q12:test_count_with_output"]}),
    "param_count_wo_four_thirds": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    qkv = d_model * (2 * d_k + d_v)
    return qkv * 4 // 3 if with_output else qkv
'''), {"key": "param_count_wo_wrong_size", "where": ["q12:test_count_with_output"]}),
})

CORRECT.update({
    # every projection listed as (rows, cols), W_O kept only with the flag, counted with math.prod
    "param_count_prod_of_shapes": cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    import math
    shapes = {"W_Q": (d_model, d_k), "W_K": (d_model, d_k), "W_V": (d_model, d_v), "W_O": (d_v, d_model)}
    return sum(math.prod(s) for name, s in shapes.items() if with_output or name != "W_O")
'''),
})

# naming22: the scaled scores (unmasked) used as the weights for O, A right
WRONG.update({
    "self_attention_output_from_scores": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    O = torch.einsum("...qk,...kd->...qd", S, V)
    return O, A
'''), {"key": "no_softmax", "where": ["q07", "q09"]}),
    "self_attention_scores_matmul_values": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    scores = Q @ K.transpose(-1, -2) / Q.shape[-1] ** 0.5
    weights = attention_weights(scores, causal_additive_mask(X.size(-2), X.dtype, X.device) if causal else None)
    return torch.matmul(scores, V), weights
'''), {"key": "no_softmax", "where": ["q07", "q09"]}),
})

CORRECT.update({
    # the output as a weighted sum of value rows, written with einsum over the key axis
    "self_attention_einsum_weighted_rows": self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return torch.einsum("...ij,...jd->...id", A, V), A
'''),
})

# naming22: the (2, N) pair from triu_indices used as one index: whole rows filled, every entry blocked
WRONG.update({
    "mask_triu_indices_index_put": (mask('''
    idx = torch.triu_indices(T, T, 1, device=device)
    return torch.zeros(T, T, dtype=dtype, device=device).index_put_((idx,), torch.tensor(torch.finfo(dtype).min,
                                                                                            dtype=dtype, device=device))
'''), {"key": "mask_index_tensor_as_one_index", "where": ["q04", "q05", "q07", "q09", "q10"]}),
    "mask_triu_indices_stacked_rows": (mask('''
    M = torch.zeros((T, T), dtype=dtype, device=device)
    pairs = torch.stack(torch.triu_indices(T, T, offset=1).unbind(0))
    M[pairs.to(device)] = torch.finfo(dtype).min
    return M
'''), {"key": "mask_index_tensor_as_one_index", "where": ["q04", "q05", "q07", "q09", "q10"]}),
})

CORRECT.update({
    # the same index pair, unpacked into rows and columns
    "mask_triu_indices_unpacked": mask('''
    rows, cols = torch.triu_indices(T, T, offset=1, device=device)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[rows, cols] = torch.finfo(dtype).min
    return M
'''),
})

# naming23: the M=None path mixes float32 into float16 scores (a default mask made without dtype=)
WRONG.update({
    "cross_default_ones_keep_mask": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.mT / Q.shape[-1] ** 0.5
    keep = torch.ones(Q.shape[-2], K.shape[-2]) if M is None else (M == 0).to(S.dtype)
    S = S.masked_fill(keep == 0, torch.finfo(S.dtype).min)
    A = S.softmax(-1) * keep
    return A @ V, A
'''), {"key": "dtype_changed", "where": ["q13"]}),
    "cross_default_zeros_values_cast_up": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    mask = torch.zeros(S.shape[-2:]) if M is None else M
    A = torch.softmax(S + mask, dim=-1)
    return A @ V.to(A.dtype), A
'''), {"key": "dtype_changed", "where": ["q13"]}),
})

CORRECT.update({
    # the default all-open mask made from the scores themselves (new_zeros keeps their dtype and device)
    "cross_default_mask_new_zeros": cross('''
    Q, K, V = (torch.einsum("...td,de->...te", Z, W) for Z, W in ((X, W_Q), (Y, W_K), (Y, W_V)))
    S = scaled_scores(Q, K)
    A = attention_weights(S, S.new_zeros(S.shape[-2:]) if M is None else M)
    return A @ V, A
'''),
})

# naming24: a (values, indices) pair from max(dim=...) used as the shift of a stable kernel
WRONG.update({
    "nw_shift_by_max_pair": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    m = torch.max(s, 0)
    w = torch.exp(s - m)
    return w @ V / w.sum()
'''), {"key": "reduction_tuple_as_tensor", "where": ["q08"]}),
    "nw_exp_of_max_pair": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    scores = (K * q).sum(-1) / q.shape[-1] ** 0.5
    top = scores.max(dim=-1, keepdim=True)
    w = torch.exp(scores) / torch.exp(top)
    return (w[:, None] * V).sum(0) / w.sum()
'''), {"key": "reduction_tuple_as_tensor", "where": ["q08"]}),
})

CORRECT.update({
    # the pair unpacked: the shift is its values
    "nw_shift_by_unpacked_max": cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    s = torch.einsum("td,d->t", K, q) * q.shape[-1] ** -0.5
    m, _ = torch.max(s, dim=0, keepdim=True)
    w = (s - m).exp()
    return torch.einsum("t,tv->v", w / w.sum(), V)
'''),
})

# naming24: the weights, already probabilities, taken as logits (a softmax of them before the entropy)
WRONG.update({
    "entropy_of_softmax_of_weights": (entropy('''
    P = torch.softmax(A, dim=-1)
    return -(P * torch.log2(P)).sum(-1)
'''), {"key": "softmax_applied_twice", "where": ["q10"]}),
    "entropy_categorical_logits_nats": (entropy('''
    return torch.distributions.Categorical(logits=A).entropy()
'''), {"key": "softmax_applied_twice", "where": ["q10"]}),
})

CORRECT.update({
    # xlogy counts 0 log 0 as 0; the log2 comes from dividing by ln 2 after the sum
    "entropy_xlogy_negated_sum": entropy('''
    return torch.special.xlogy(A, A).sum(-1).neg() / math.log(2)
'''),
})

# naming25: causal=False still adds a "no mask" made in the default float32: float16 in, float32 out
WRONG.update({
    "self_open_mask_zeros_float32": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = S.shape[-1]
    open_mask = torch.zeros(T, T)                 # nothing blocked
    A = attention_weights(S, causal_additive_mask(T, S.dtype, S.device) if causal else open_mask)
    return A.to(V.dtype) @ V, A
'''), {"key": "dtype_changed", "where": ["q07:test_batched_float32_and_float16"]}),
    "self_open_mask_tensor_list": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    S = S + (causal_additive_mask(S.shape[-1], S.dtype, S.device) if causal else torch.tensor([0.0]))
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''), {"key": "dtype_changed", "where": ["q07:test_batched_float32_and_float16"]}),
})

CORRECT.update({
    # the open mask made from the scores themselves: a 0-d zero in their dtype
    "self_open_mask_new_zeros": self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    no_mask = S.new_zeros(())
    A = attention_weights(S, causal_additive_mask(S.size(-1), S.dtype, S.device) if causal else no_mask)
    return torch.einsum("...qk,...kv->...qv", A, V), A
'''),
})

# naming25: a row whose keys are all blocked zeroed after the softmax (the notebook: it stays finite, uniform)
WRONG.update({
    "weights_blocked_rows_filled_zero": (weights('''
    A = torch.softmax(S if M is None else S + M, dim=-1)
    if M is None:
        return A
    nothing_open = (M == torch.finfo(M.dtype).min).all(dim=-1, keepdim=True)
    return A.masked_fill(nothing_open, 0.0)
'''), {"key": "zero_after_softmax", "where": ["q05:test_weights_float64_rectangular_mask"]}),
    "weights_keep_mask_times_softmax": (weights('''
    if M is None:
        return torch.softmax(S, dim=-1)
    return torch.softmax(S + M, dim=-1) * (M == 0).to(S.dtype)
'''), {"key": "zero_after_softmax", "where": ["q05:test_weights_float64_rectangular_mask"]}),
})

CORRECT.update({
    # the log-softmax, exponentiated: a fully blocked row (all about finfo.min) comes out uniform
    "weights_exp_log_softmax": weights('''
    Z = S if M is None else torch.add(S, M)
    return Z.log_softmax(dim=-1).exp()
'''),
})

# naming25: the fused projection cut at the right widths along split's default axis 0 (tokens, not features)
WRONG.update({
    "project_fused_torch_split_no_dim": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    sizes = (W_Q.shape[-1], W_K.shape[-1], W_V.shape[-1])
    fused = X @ torch.cat((W_Q, W_K, W_V), dim=-1)
    return tuple(torch.split(fused, sizes))
'''), {"key": "fused_projection_split", "where": ["q01"]}),
    "project_fused_split_with_sizes": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    d_k, d_v = W_K.size(1), W_V.size(1)
    Q, K, V = torch.matmul(X, torch.hstack([W_Q, W_K, W_V])).split_with_sizes([d_k, d_k, d_v])
    return Q, K, V
'''), {"key": "fused_projection_split", "where": ["q01"]}),
})

CORRECT.update({
    # the fused projection cut along the features, the axis named by its position from the end
    "project_fused_split_last_axis": cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    widths = [W.shape[-1] for W in (W_Q, W_K, W_V)]
    return torch.split(torch.matmul(X, torch.cat([W_Q, W_K, W_V], -1)), widths, X.dim() - 1)
'''),
})

# naming25: scores written for (B, H, T, d_k) only: axes 2 and 3 named outright
WRONG.update({
    "scores_permute_four_axes": (scores('''
    return Q @ K.permute(0, 1, 3, 2) / math.sqrt(Q.shape[-1])
'''), {"key": "batched_input_unsupported", "where": ["q02"]}),
    "scores_einsum_bhtd": (scores('''
    return torch.einsum("bhqd,bhkd->bhqk", Q, K) / Q.shape[3] ** 0.5
'''), {"key": "batched_input_unsupported", "where": ["q02"]}),
})

CORRECT.update({
    # the keys' last two axes swapped by their negative positions, whatever the batch dims
    "scores_swapaxes_negative": scores('''
    return torch.matmul(Q, K.swapaxes(-1, -2)).div(math.sqrt(K.size(-1)))
'''),
})

# naming25: the full finfo.min mask returned whole, its triu(1) result dropped
WRONG.update({
    "mask_full_torch_triu_dropped": (mask('''
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    torch.triu(M, diagonal=1)
    return M
'''), {"key": "mask_blocks_nothing", "where": ["q04", "q07", "q09"]}),
    "mask_ones_scaled_tril_dropped": (mask('''
    M = torch.ones(T, T, dtype=dtype, device=device) * torch.finfo(dtype).min
    M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).tril(), 0.0)
    return M
'''), {"key": "mask_blocks_nothing", "where": ["q04", "q07", "q09"]}),
})

CORRECT.update({
    # the full mask cut in place
    "mask_full_triu_in_place": mask('''
    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)
    M.triu_(1)
    return M
'''),
})

# naming27: a hedged multiple-choice answer, the right letter next to one wrong one: the wrong one's key
WRONG.update({
    "ans_mask_hedged_d_or_c": ({"ans_mask": 'ans_mask = "D or C"'}, {"key": "mask_blocks_gradient", "where": ["q06"]}),
    "ans_mask_hedged_c_slash_a": ({"ans_mask": 'ans_mask = "c/a"'},
                                  {"key": "mask_breaks_normalisation", "where": ["q06"]}),
})

CORRECT.update({
    # the letter picked out of the options by its index
    "ans_mask_indexed_letter": {"ans_mask": 'ans_mask = "abcd"[2]'},
})

# naming27: the row counts one short (an exclusive end), so T rows meet T - 1 counts: named from T = 2
WRONG.update({
    "prefix_average_counts_from_range_list": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    counts = torch.tensor(list(range(1, T)), dtype=torch.float64).unsqueeze(-1)
    return torch.ones(T, T, dtype=torch.float64).tril() / counts
'''), {"key": "prefix_average_row_skipped", "where": ["q09"]}),
    "prefix_average_counts_zero_based_plus_one": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones((T, T), dtype=torch.float64))
    return W / (torch.arange(T - 1, dtype=torch.float64) + 1).reshape(-1, 1)
'''), {"key": "prefix_average_row_skipped", "where": ["q09"]}),
})

CORRECT.update({
    # the counts 1 .. T from linspace, divided in with .div
    "prefix_average_linspace_counts": cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    return torch.tril(torch.ones(T, T, dtype=torch.float64)).div(torch.linspace(1, T, T, dtype=torch.float64).view(-1, 1))
'''),
})

WRONG.update({
    # naming27 (engine, checks.crash_words): a torch function given a Python number (log of the int 2)
    "entropy_bits_by_torch_log_of_two": (entropy('''
    p = A.clamp(min=1e-30)
    return -(A * torch.log(p)).sum(dim=-1) / torch.log(2)
'''), {"key": "torch_function_of_number", "where": ["q10"]}),
    # naming27 (engine): the whole tensor of entropies through math.exp
    "effective_tokens_math_exp": (entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''', "    return math.exp(math.log(2) * row_entropy_bits(A))\n"), {"key": "tensor_to_number", "where": ["q10"]}),
    # naming27 (engine): the future positions found by negating the bool past, then used as numbers
    "mask_future_by_negating_bool": (mask('''
    past = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))
    return (-past + 1).to(dtype) * torch.finfo(dtype).min
'''), {"key": "bool_mask_arithmetic", "where": ["q04", "q07", "q09"]}),
    # naming27 (engine): the scores as one torch.dot of the query and key matrices
    "scores_torch_dot": (scores('''
    return torch.dot(Q, K.transpose(-2, -1)) / math.sqrt(Q.shape[-1])
'''), {"key": "dot_of_matrices", "where": ["q02", "q07", "q09", "q13"]}),
})

CORRECT.update({
    # naming27: the base-2 logarithm as log(p) / math.log(2), with a Python float (no torch.log of a number)
    "entropy_bits_by_math_log_two": entropy('''
    safe = torch.where(A > 0, A, torch.ones_like(A))
    return -(A * torch.log(safe)).sum(dim=-1) / math.log(2)
'''),
})

WRONG.update({
    # naming27 (engine): NumPy's keyword given to the functional softmax
    "weights_functional_softmax_axis": (weights('''
    if M is not None:
        S = S + M
    return torch.nn.functional.softmax(S, axis=-1)
'''), {"key": "numpy_keyword", "where": ["q05", "q07", "q09", "q13"]}),
    # naming27 (engine): the future found as 1 - the bool past, inside torch.where
    "mask_where_one_minus_past": (mask('''
    past = torch.ones(T, T, dtype=torch.bool, device=device).tril()
    return torch.where((1 - past).bool(), torch.finfo(dtype).min, 0.0).to(dtype)
'''), {"key": "bool_mask_arithmetic", "where": ["q04", "q07", "q09"]}),
    # answer forms, now judged by the engine's expect_choice for every multiple-choice question
    "ans_cross_shapes_hedged": ({"ans_cross_shapes": 'ans_cross_shapes = "a or b"'},
                                {"key": "answer_hedged", "where": ["q14"]}),
    "ans_complexity_in_a_tuple": ({"ans_complexity": 'ans_complexity = "c",'},
                                  {"key": "answer_in_container", "where": ["q16"]}),
})

WRONG.update({
    # naming29: a true division in the count, so a float off by rounding where d_k does not divide d_v
    "param_count_ratio_of_widths": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 3 * d_model * d_k * ((2 * d_k + d_v) / (3 * d_k))
    return n + (d_v * d_model if with_output else 0)
'''), {"key": "float_for_int", "where": ["q12"]}),
    "param_count_value_width_factored": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    per_value = 2 * d_k / d_v + 1      # W_Q and W_K as a multiple of W_V
    total = d_model * d_v * per_value
    if with_output:
        total = total + d_model * d_v
    return total
'''), {"key": "float_for_int", "where": ["q12"]}),
})

CORRECT.update({
    # naming29: a float count that is exact (whole numbers multiplied, no division) keeps full marks
    "param_count_float_but_exact": cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return float(sum(rows * cols for rows, cols in shapes))
'''),
})

WRONG.update({
    # naming29: the scores as Q @ K, K never transposed (inline) or transposed twice (K.mT into scaled_scores)
    "self_attention_inline_q_at_k": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = torch.matmul(Q, K) / K.shape[-1] ** 0.5
    if causal:
        S = S + causal_additive_mask(S.shape[-1], S.dtype, S.device)
    A = attention_weights(S)
    return A @ V, A
'''), {"key": "scores_keys_not_transposed", "where": ["q07", "q09"]}),
    "self_attention_keys_mT_into_helper": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    K_T = K.mT
    S = scaled_scores(Q, K_T)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return A @ V, A
'''), {"key": "scores_keys_not_transposed", "where": ["q07", "q09"]}),
})

CORRECT.update({
    # naming29: K transposed twice on purpose (K^T handed over as (K^T)^T) keeps full marks
    "self_attention_keys_transposed_back": self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    K_T = K.transpose(-2, -1)
    S = scaled_scores(Q, K_T.transpose(-2, -1))
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    return A @ V, A
'''),
})

WRONG.update({
    # naming29: a product that contracts only the last axes (torch.inner, tensordot): (B, T_q, B, T_k) on batches
    "scores_tensordot_last_axes": (scores('''
    return torch.tensordot(Q, K, dims=([-1], [-1])) / math.sqrt(Q.shape[-1])
'''), {"key": "batched_input_unsupported", "where": ["q02", "q07", "q09", "q13"]}),
    "scores_inner_of_scaled_queries": (scores('''
    Q = Q / math.sqrt(Q.size(-1))
    return torch.inner(Q, K)
'''), {"key": "batched_input_unsupported", "where": ["q02", "q07", "q09", "q13"]}),
    # naming29: the diagonal of A log2(A)^T with the default dims 0, 1 (the batch and query axes of a batched A)
    "entropy_diagonal_positional_offset": (entropy('''
    logs = torch.where(A > 0, A.log2(), 0.0)
    return -torch.diagonal(torch.matmul(A, logs.transpose(-2, -1)), 0)
'''), {"key": "batched_input_unsupported", "where": ["q10"]}),
    "entropy_method_diagonal": (entropy('''
    logs = torch.nan_to_num(torch.log2(A), neginf=0.0)
    return (A @ logs.mT).diagonal().neg()
'''), {"key": "batched_input_unsupported", "where": ["q10"]}),
})

CORRECT.update({
    # naming29: torch.inner used on one 2-D slice at a time, and the diagonal taken over the last two axes
    "scores_inner_per_slice": scores('''
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    q = Q.expand(*lead, *Q.shape[-2:]).reshape(-1, *Q.shape[-2:])
    k = K.expand(*lead, *K.shape[-2:]).reshape(-1, *K.shape[-2:])
    S = torch.stack([torch.inner(a, b) for a, b in zip(q, k)]).reshape(*lead, Q.shape[-2], K.shape[-2])
    return S / math.sqrt(Q.shape[-1])
'''),
    "entropy_diagonal_last_two_dims": entropy('''
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -torch.diagonal(A @ logs.mT, dim1=-2, dim2=-1)
'''),
})

WRONG.update({
    # naming29: the right weights cast to a hard-coded half-precision dtype (float16, bfloat16) whatever S's dtype
    "weights_softmax_then_half": (weights('''
    return torch.softmax(S if M is None else S + M, dim=-1).half()
'''), {"key": "dtype_changed", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "weights_float32_exp_to_bfloat16": (weights('''
    Z = (S if M is None else S + M).float()
    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    return (e / e.sum(dim=-1, keepdim=True)).to(dtype=torch.bfloat16)
'''), {"key": "dtype_changed", "where": ["q05", "q07", "q09", "q10", "q13"]}),
})

CORRECT.update({
    # naming29: the softmax computed in float64 and cast back to S's own dtype keeps full marks
    "weights_float64_softmax_cast_back": weights('''
    Z = S if M is None else S + M
    return torch.softmax(Z, -1, dtype=torch.float64).to(S.dtype)
'''),
})

WRONG.update({
    # naming29: no exp: the dot products themselves as kernel weights, normalised by their sum or not at all
    "nw_mv_scores_over_sum": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    s = torch.mv(K, q)
    w = s / s.sum()
    return w @ V
'''), {"key": "no_softmax", "where": ["q08"]}),
    "nw_scaled_scores_einsum": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = (K * q).sum(-1) / q.shape[-1] ** 0.5
    return torch.einsum("t,td->d", w, V)
'''), {"key": "no_softmax", "where": ["q08"]}),
})

CORRECT.update({
    # naming29: the kernel weights as exp(s - logsumexp(s)), already normalised, keep full marks
    "nw_exp_minus_logsumexp": cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    s = torch.mv(K, q) / math.sqrt(q.numel())
    return torch.einsum("t,td->d", torch.exp(s - torch.logsumexp(s, 0)), V)
'''),
})

WRONG.update({
    # naming29: attention dropout left in training mode (a module's default, torch.dropout with train=True)
    "self_attention_dropout_module_training": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    A = torch.nn.Dropout(p=0.2)(A)
    return A @ V, A
'''), {"key": "nondeterministic", "where": ["q07", "q09", "q13"]}),
    "self_attention_torch_dropout_train": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(S.shape[-1], S.dtype, S.device)
    A = torch.dropout(attention_weights(S), 0.1, True)
    return torch.matmul(A, V), A
'''), {"key": "nondeterministic", "where": ["q07", "q09", "q13"]}),
})

CORRECT.update({
    # naming29: F.dropout with training=False written out is the identity: full marks
    "self_attention_dropout_not_training": self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    A = torch.nn.functional.dropout(A, p=0.1, training=False)
    return A @ V, A
'''),
})

WRONG.update({
    # naming29: the right option's words for its letter (its first word, its O(.))
    "complexity_as_o_notation": ({"ans_complexity": 'ans_complexity = "O(T^2)"'},
                                 {"key": "answer_option_text", "where": ["q16"]}),
    "complexity_as_adverb": ({"ans_complexity": 'ans_complexity = "Quadratically"'},
                             {"key": "answer_option_text", "where": ["q16"]}),
})

CORRECT.update({
    # naming29: the letter in upper case keeps full marks
    "complexity_upper_case_letter": {"ans_complexity": 'ans_complexity = "C"'},
})

WRONG.update({
    # naming30: a parameter the notebook's scaled_scores lacks, whose default makes S wrong (right when it is
    # passed another plain value): a mask flag multiplied in, and an epsilon added to the divisor
    # after blind27: exp2 for exp (no log2(e) factor), cosine similarities for the scores, a mask of ones
    "weights_exp2_shifted": (weights('''
    Z = S if M is None else S + M
    E = torch.exp2(Z - Z.amax(dim=-1, keepdim=True))
    return E / E.sum(dim=-1, keepdim=True)
'''), {"key": "softmax_base_2", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "weights_pow2": (weights('''
    Z = S if M is None else S + M
    P = 2.0 ** (Z - Z.max(dim=-1, keepdim=True).values)
    return P / P.sum(-1, keepdim=True)
'''), {"key": "softmax_base_2", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "scores_cosine_scaled": (scores('''
    Qn = Q / Q.norm(dim=-1, keepdim=True)
    Kn = K / K.norm(dim=-1, keepdim=True)
    return Qn @ Kn.transpose(-2, -1) / math.sqrt(Q.shape[-1])
'''), {"key": "nw_cosine_kernel", "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
    "scores_cosine_similarity": (scores('''
    return torch.nn.functional.cosine_similarity(Q.unsqueeze(-2), K.unsqueeze(-3), dim=-1)
'''), {"key": "nw_cosine_kernel", "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
    "mask_bool_filled_with_min": (mask('''
    M = torch.ones(T, T, dtype=torch.bool, device=device)
    M.fill_(torch.finfo(dtype).min)
    return M.to(dtype)
'''), {"key": "mask_not_additive", "where": ["q04", "q05", "q07", "q09", "q10"]}),
    "mask_bool_indexed_with_min": (mask('''
    M = torch.zeros(T, T, dtype=torch.bool, device=device)
    M[torch.ones(T, T, dtype=torch.bool, device=device).triu(1)] = torch.finfo(dtype).min
    return M.to(dtype)
'''), {"key": "mask_not_additive", "where": ["q04", "q05", "q07", "q09", "q10"]}),
    # the min-entropy (the largest weight alone) for the Shannon entropy, in bits and through max's values
    "entropy_min_entropy": (entropy('''    return -torch.log2(A.max(dim=-1).values)
'''), {"key": "min_entropy", "where": ["q10", "q11"]}),
    "entropy_min_entropy_log_of_max": (entropy('''    top = A.amax(dim=-1)
    return -torch.log(top) / math.log(2)
'''), {"key": "min_entropy", "where": ["q10", "q11"]}),
    # after blind30 (q10_log_terms_not_weighted_by_probabilities): -log2 a summed or averaged over the row's
    # nonzero weights, never weighted by a: entropy_unweighted
    "entropy_unweighted_masked_mean": (entropy('''    nz = A > 0
    return -(torch.log2(A.clamp_min(1e-300)) * nz).sum(dim=-1) / nz.sum(dim=-1)
'''), {"key": "entropy_unweighted", "where": ["q10", "q11"]}),
    "entropy_unweighted_nansum_nats": (entropy('''    return -torch.nansum(torch.log(A).masked_fill(A == 0, float("nan")), dim=-1)
'''), {"key": "entropy_unweighted", "where": ["q10", "q11"]}),
    # blocked keys left with a tiny positive weight: a floor on the shifted scores, a -inf turned into a finite number
    "weights_shifted_scores_floored": (weights('''
    Z = S if M is None else S + M
    Z = (Z - Z.amax(dim=-1, keepdim=True)).clamp(min=-30.0)
    E = torch.exp(Z)
    return E / E.sum(dim=-1, keepdim=True)
'''), {"key": "blocked_weight_not_zero", "where": ["q05", "q07", "q09", "q13"]}),
    "weights_neginf_made_finite": (weights('''
    Z = S if M is None else torch.clamp(S + M, min=-25.0)
    return torch.softmax(Z, dim=-1)
'''), {"key": "blocked_weight_not_zero", "where": ["q05", "q07", "q09", "q13"]}),
    # 1/sqrt(d_k) applied after the softmax, to the weights: in attention_weights of unscaled scores, and in the
    # pipeline on the student's own (right) stages
    "self_attention_scale_after_softmax": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ K.transpose(-2, -1)
    if causal:
        S = S + causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device)
    A = torch.softmax(S, dim=-1) / math.sqrt(Q.shape[-1])
    return A @ V, A
'''), {"key": "scale_after_softmax", "where": ["q07", "q09", "q13"]}),
    "self_attention_weights_rescaled_after": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = Q @ K.mT
    M = causal_additive_mask(S.shape[-1], dtype=S.dtype, device=S.device) if causal else None
    A = attention_weights(S, M) * Q.shape[-1] ** -0.5
    return A @ V, A
'''), {"key": "scale_after_softmax", "where": ["q07", "q09", "q13"]}),
    # scores as a negative squared distance (a Nadaraya-Watson kernel carried into attention), two scalings
    "scores_negative_distance_over_root": (scores('''
    return -torch.cdist(Q, K) ** 2 / math.sqrt(Q.shape[-1])
'''), {"key": "gaussian_kernel", "where": ["q02", "q07", "q13"]}),
    "scores_negative_distance_expanded": (scores('''
    diff = Q[..., :, None, :] - K[..., None, :, :]
    return -(diff * diff).sum(dim=-1)
'''), {"key": "gaussian_kernel", "where": ["q02", "q07", "q13"]}),
    "scores_extra_mask_default_false": (cell("scaled_scores", '''def scaled_scores(Q, K, mask=False):
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return S if mask is None else S * mask
'''), {"key": "default_argument_wrong", "where": ["q02", "q07", "q13"]}),
    "scores_extra_eps_default_one": (cell("scaled_scores", '''def scaled_scores(Q, K, eps=1):
    return Q @ K.mT / (Q.size(-1) ** 0.5 + eps)
'''), {"key": "default_argument_wrong", "where": ["q02", "q07", "q13"]}),
})

CORRECT.update({
    # naming30: an extra parameter whose default is right keeps full marks
    "scores_extra_scale_default_none": cell("scaled_scores", '''def scaled_scores(Q, K, scale=None):
    scale = Q.shape[-1] ** -0.5 if scale is None else scale
    return scale * (Q @ K.transpose(-1, -2))
'''),
})

WRONG.update({
    # naming30: the keys mixed where the values are due (project_qkv right): A @ K through torch.matmul, and
    # the values projected with W_K inside self_attention itself (the same numbers: the key's text says both)
    "self_attention_matmul_keys": (self_attn('''    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(X.shape[-2], S.dtype, S.device)
    A = attention_weights(S)
    return torch.matmul(A, K), A
'''), {"key": "values_are_keys", "where": ["q07", "q09", "q13"]}),
    "self_attention_values_with_w_k": (self_attn('''    Q, K = X @ W_Q, X @ W_K
    V = X @ W_K
    M = causal_additive_mask(X.size(-2), X.dtype, X.device) if causal else None
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''), {"key": "values_are_keys", "where": ["q07", "q09", "q13"]}),
})

CORRECT.update({
    # naming30: self_attention written with einsum for the values (and its own projections) keeps full marks
    "self_attention_einsum_values": self_attn('''    Q, K, V = (torch.einsum("...td,de->...te", X, w) for w in (W_Q, W_K, W_V))
    M = causal_additive_mask(X.shape[-2], Q.dtype, X.device) if causal else None
    A = attention_weights(scaled_scores(Q, K), M)
    return torch.einsum("...qk,...kv->...qv", A, V), A
'''),
})

WRONG.update({
    # naming30 (engine crash words): torch.iinfo asked for a float dtype's limits (torch.finfo is for floats)
    "mask_iinfo_min_fill": (mask('''
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[future] = torch.iinfo(dtype).min
    return M
'''), {"key": "iinfo_for_float", "where": ["q04", "q05", "q07", "q09", "q10"]}),
    "mask_iinfo_full_triu": (mask('''
    lowest = torch.iinfo(dtype).min
    return torch.full((T, T), lowest, dtype=dtype, device=device).triu(diagonal=1)
'''), {"key": "iinfo_for_float", "where": ["q04", "q05", "q07", "q09", "q10"]}),
})

WRONG.update({
    # naming30: the softmax axis written out for one number of dims (dim=3 for (B, H, T, T), dim=2 for
    # (B, T, T)): a 2-D S raises, and the same S with batch axes added runs and is right
    "weights_softmax_dim_three": (weights('''    S = S if M is None else S + M
    return S.softmax(dim=3)
'''), {"key": ("batched_input_unsupported", "softmax_wrong_dim"), "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "weights_exp_sum_axis_two": (weights('''    if M is not None:
        S = S + M
    e = torch.exp(S - S.amax(dim=2, keepdim=True))
    return e / e.sum(dim=2, keepdim=True)
'''), {"key": ("batched_input_unsupported", "softmax_wrong_dim"), "where": ["q05", "q07", "q09", "q10", "q13"]}),
})

CORRECT.update({
    # naming30: the keys' axis counted from the front (S.dim() - 1) keeps full marks
    "weights_axis_from_ndim": weights('''    Z = S.add(M) if M is not None else S.clone()
    return torch.softmax(Z, S.dim() - 1)
'''),
})

WRONG.update({
    # naming30: the row counts written out for the lesson's T (a list of 1..5, or a fixed arange(1, 6))
    "prefix_counts_written_as_list": (cell("prefix_average_matrix", '''def prefix_average_matrix(T):
    L = torch.ones(T, T, dtype=torch.float64).tril()
    return L / torch.tensor([[1], [2], [3], [4], [5]], dtype=torch.float64)
'''), {"key": "prefix_average_counts_fixed", "where": ["q09", "q10"]}),
    "prefix_counts_fixed_arange": (cell("prefix_average_matrix", '''def prefix_average_matrix(T):
    n = torch.arange(1, 6, dtype=torch.float64).unsqueeze(-1)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) * (1.0 / n)
'''), {"key": "prefix_average_counts_fixed", "where": ["q09", "q10"]}),
})

CORRECT.update({
    # naming30: the counts read off the triangle itself (its row sums) keep full marks
    "prefix_counts_from_row_sums": cell("prefix_average_matrix", '''def prefix_average_matrix(T):
    L = torch.ones(T, T, dtype=torch.float64).tril_()
    return L.div(L.sum(1, keepdim=True))
'''),
})

WRONG.update({
    # naming30: an added size parameter whose default is the lesson's number, right at the input's own size
    # (checked before a variant's name: d_k=4 on 4-D inputs is what a scale by sqrt(Q.dim()) gives)
    "scores_extra_d_k_default_64": (cell("scaled_scores", '''def scaled_scores(Q, K, d_k=64):
    return torch.matmul(Q, K.transpose(-2, -1)) / d_k ** 0.5
'''), {"key": "default_argument_wrong", "where": ["q02", "q07", "q13"]}),
    "scores_extra_dim_default_0": (cell("scaled_scores", '''def scaled_scores(Q, K, dim=0):
    return Q @ K.mT / math.sqrt(Q.shape[dim])
'''), {"key": "default_argument_wrong", "where": ["q02", "q07", "q13"]}),
})

WRONG.update({
    # naming30: the scores floor-divided by the scale (torch.floor_divide, and // by a tensor square root)
    "scores_floor_divide_call": (scores('''    return torch.floor_divide(Q @ K.transpose(-2, -1), Q.shape[-1] ** 0.5)
'''), {"key": "floor_division_scale", "where": ["q02", "q07", "q13"]}),
    "scores_floordiv_tensor_root": (scores('''    d = torch.tensor(float(K.size(-1)), dtype=Q.dtype)
    return torch.matmul(Q, K.mT) // d.sqrt()
'''), {"key": "floor_division_scale", "where": ["q02", "q07", "q13"]}),
})

CORRECT.update({
    # naming30: true division written as torch.div with rounding_mode=None keeps full marks
    "scores_div_rounding_none": scores('''    return torch.div(Q @ K.transpose(-2, -1), math.sqrt(Q.shape[-1]), rounding_mode=None)
'''),
})

WRONG.update({
    # naming30: d_k and d_v exchanged: in the signature (a call by keyword is right), and in the formula itself
    # (W_Q, W_K counted with d_v: a call by keyword stays wrong)
    "param_count_signature_dv_first": (cell("qkv_param_count", '''def qkv_param_count(d_model, d_v, d_k, with_output=False):
    total = 0
    for width in (d_k, d_k, d_v):
        total += d_model * width
    return total + (d_model * d_v if with_output else 0)
'''), {"key": "param_count_dk_dv_swapped", "where": ["q12"]}),
    "param_count_formula_swaps_widths": (cell("qkv_param_count", '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 2 * d_model * d_v + d_model * d_k
    return n + d_k * d_model if with_output else n
'''), {"key": "param_count_dk_dv_swapped", "where": ["q12"]}),
})

CORRECT.update({
    # naming30: the widths listed per matrix and summed, keeps full marks
    "param_count_shapes_listed": cell("qkv_param_count", '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(a * b for a, b in shapes)
'''),
})

WRONG.update({
    # naming30: the softmax of the queries for the softmax of the scores (the scores computed, or never)
    "cross_softmax_of_queries": (cross('''    Q = X @ W_Q
    K, V = Y @ W_K, Y @ W_V
    scores = scaled_scores(Q, K)
    A = torch.softmax(Q if M is None else Q + M, dim=-1)
    return A @ V, A
'''), {"key": "weights_from_queries", "where": ["q13"]}),
    "cross_weights_of_projected_x": (cross('''    Q = torch.matmul(X, W_Q)
    A = attention_weights(Q, M)
    return torch.matmul(A, torch.matmul(Y, W_V)), A
'''), {"key": "weights_from_queries", "where": ["q13"]}),
})

CORRECT.update({
    # naming30: cross-attention with the scores written out inline and the stage's softmax keeps full marks
    "cross_scores_inline": cross('''    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = torch.einsum("...qd,...kd->...qk", Q, K) * Q.shape[-1] ** -0.5
    A = attention_weights(S, M)
    return A @ V, A
'''),
})

WRONG.update({
    # naming30: 2 ** H made a whole number of tokens (cut down by a cast, rounded up)
    "effective_tokens_cast_to_long": (entropy('''    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''', "    return (2.0 ** row_entropy_bits(A)).long().to(A.dtype)\n"),
        {"key": "effective_tokens_rounded", "where": ["q10"]}),
    "effective_tokens_ceil": (entropy('''    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''', "    return torch.exp2(row_entropy_bits(A)).ceil()\n"),
        {"key": "effective_tokens_rounded", "where": ["q10"]}),
})

CORRECT.update({
    # naming30: 2 ** H as exp(H ln 2) keeps full marks
    "effective_tokens_exp_ln2": entropy('''    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)
''', "    return torch.exp(row_entropy_bits(A) * math.log(2.0))\n"),
})

WRONG.update({
    # naming30 (engine): a default that names another parameter: the def itself raises NameError
    "param_count_d_v_defaults_to_d_k": (cell("qkv_param_count", '''def qkv_param_count(d_model, d_k, d_v=d_k, with_output=False):
    n = d_model * (2 * d_k + d_v)
    return n + d_v * d_model if with_output else n
'''), {"key": "default_names_parameter", "where": ["q12"]}),
})

WRONG.update({
    # naming30 (engine crash words): a power written with ^ (xor): the scale as d_k ^ -0.5
    "scores_caret_inverse_root": (cell("scaled_scores", '''def scaled_scores(Q, K):
    return Q @ K.mT * Q.shape[-1] ^ -0.5
'''), {"key": "caret_for_power", "where": ["q02", "q07", "q13"]}),
})

WRONG.update({
    # naming30 (engine crash words, after blind25): torch.finfo given the tensor, a helper called with device and
    # dtype in each other's place, a dtype given positionally after the size
    "mask_finfo_of_the_zeros": (mask('''
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), torch.finfo(M).min)
'''), {"key": "finfo_of_tensor", "where": ["q04", "q05", "q07", "q09", "q10"]}),
    "self_attention_mask_device_then_dtype": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], device=S.dtype, dtype=S.device) if causal else None
    A = attention_weights(S, M)
    return A @ V, A
'''), {"key": "dtype_for_device", "where": ["q07", "q09"]}),
    "mask_zeros_dtype_positional": (mask('''
    M = torch.zeros((T, T), dtype)
    M[torch.ones(T, T, dtype=torch.bool).triu(1)] = torch.finfo(dtype).min
    return M.to(device) if device is not None else M
'''), {"key": "dtype_passed_positionally", "where": ["q04", "q05", "q07", "q09", "q10"]}),
    "mask_full_dtype_positional": (mask('''
    lowest = torch.full((T, T), torch.finfo(dtype).min, dtype)
    return torch.triu(lowest, diagonal=1)
'''), {"key": "dtype_passed_positionally", "where": ["q04", "q05", "q07", "q09", "q10"]}),
})

WRONG.update({
    # naming30 (after blind25): the mask cast to float32 before it is added: float64's finfo.min becomes -inf, a
    # fully blocked row NaN (told from one global maximum by a second call with the blocked keys at -1e4)
    "weights_mask_to_float32": (weights('''
    if M is not None:
        S = S + M.to(torch.float32)
    return torch.softmax(S, dim=-1)
'''), {"key": "dtype_changed", "where": ["q05", "q07", "q13"]}),
    "weights_mask_float_in_where": (weights('''
    scores = S if M is None else torch.where(M < 0, M.float(), 0.0) + S
    return scores.softmax(-1)
'''), {"key": "dtype_changed", "where": ["q05", "q07", "q13"]}),
})

WRONG.update({
    # naming31 (after blind28): one matrix for all three results; never a reordering, though Q equals the right V
    "project_late_bound_closures": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    makers = []
    for W in (W_Q, W_K, W_V):
        makers.append(lambda: torch.matmul(X, W))
    return tuple(make() for make in makers)
'''), {"key": "same_projection", "where": ["q01", "q07", "q09", "q13"]}),
    "project_one_matrix_thrice": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    return (X @ W_Q,) * 3
'''), {"key": "same_projection", "where": ["q01", "q07", "q09", "q13"]}),
})

CORRECT.update({
    # naming31: closures that bind each weight early (a default argument): the right three projections
    "project_default_arg_lambdas": cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    makers = [lambda W=W: X @ W for W in (W_Q, W_K, W_V)]
    return tuple(make() for make in makers)
'''),
})

WRONG.update({
    # naming31 (after blind28): the additive mask read as a boolean and its scores overwritten with a finite constant
    # float16 cannot hold: the float16 test crashes; a float32 probe with a mild -2 in the mask shows the boolean
    "weights_bool_fill_1e5": (weights('''
    if M is not None:
        S = S.masked_fill(M.bool(), -1e5)
    return torch.softmax(S, dim=-1)
'''), {"key": "additive_mask_as_boolean", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "weights_where_full_like_fill": (weights('''
    if M is None:
        return S.softmax(-1)
    filler = torch.full_like(S, -1e8)
    return torch.where(M != 0, filler, S).softmax(-1)
'''), {"key": "additive_mask_as_boolean", "where": ["q05", "q07", "q09", "q10", "q13"]}),
})

CORRECT.update({
    # naming31: the mask added only where it is nonzero (S + 0 is S): the right weights in every dtype
    "weights_where_nonzero_added": weights('''
    Z = S if M is None else torch.where(M != 0, S + M, S)
    return torch.nn.functional.softmax(Z, dim=Z.dim() - 1)
'''),
})

WRONG.update({
    # naming31 (after blind27): the three weights stacked into one tensor: runs only when d_v = d_k
    "project_weights_stacked_einsum": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    W = torch.stack((W_Q, W_K, W_V), dim=0)
    Q, K, V = torch.einsum("...td,nde->n...te", X, W)
    return Q, K, V
'''), {"key": "qkv_stacked", "where": ["q01", "q07", "q09", "q13"]}),
    "project_weights_cat_then_chunk": (cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    W = torch.stack([W_Q, W_K, W_V], dim=-1)   # (d_model, d, 3)
    out = torch.matmul(X, W.flatten(-2)).unflatten(-1, (W_Q.shape[-1], 3))
    return out[..., 0], out[..., 1], out[..., 2]
'''), {"key": "qkv_stacked", "where": ["q01", "q07", "q09", "q13"]}),
})

CORRECT.update({
    # naming31: the weights concatenated along their widths (no equal widths needed) and split back
    "project_cat_split": cell("project_qkv", '''
def project_qkv(X, W_Q, W_K, W_V):
    sizes = [w.shape[-1] for w in (W_Q, W_K, W_V)]
    return tuple((X @ torch.cat((W_Q, W_K, W_V), dim=-1)).split(sizes, dim=-1))
'''),
})

WRONG.update({
    # naming32 (after blind29): the scale measured from the scores' own spread instead of sqrt(d_k)
    "scores_over_row_std_biased": (scores('''
    S = torch.matmul(Q, K.transpose(-1, -2))
    return S / S.std(dim=-1, keepdim=True, unbiased=False)
'''), {"key": "scores_divided_by_own_std", "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
    "scores_over_root_of_var": (scores('''
    dots = torch.einsum("...id,...jd->...ij", Q, K)
    return dots / torch.sqrt(dots.var())
'''), {"key": "scores_divided_by_own_std", "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
    # naming32 (after blind29): the numerator shifted by the row maximum, the denominator summed unshifted
    "weights_max_values_unshifted_sum": (weights('''
    Z = S if M is None else S + M
    num = torch.exp(Z - Z.max(-1, keepdim=True).values)
    return num / Z.exp().sum(-1, keepdim=True)
'''), {"key": "weights_not_normalised", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "weights_log_of_unshifted_sum": (weights('''
    Z = S + M if M is not None else S
    log_den = torch.log(torch.sum(torch.exp(Z), dim=-1, keepdim=True))
    return torch.exp(Z - Z.amax(dim=-1, keepdim=True) - log_den)
'''), {"key": "weights_not_normalised", "where": ["q05", "q07", "q09", "q10", "q13"]}),
})

CORRECT.update({
    # naming32: the constant scale built as a tensor of the scores' dtype; the softmax as exp(Z - logsumexp(Z))
    "scores_scale_as_tensor": scores('''
    S = Q @ K.mT
    return S / torch.tensor(Q.shape[-1], dtype=S.dtype, device=S.device).sqrt()
'''),
    "weights_exp_minus_logsumexp": weights('''
    Z = S if M is None else S + M
    return (Z - Z.logsumexp(-1, keepdim=True)).exp()
'''),
})

# after blind30 (q12_qk_counted_as_one_model_square_matrix): W_Q W_K^T counted as the d_model x d_model product
WRONG.update({
    "param_count_bilinear_form_square": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_model), (d_model, d_v)]      # the score form Q K^T = X (W_Q W_K^T) X^T, then W_V
    if with_output:
        shapes.append((d_v, d_model))
    return sum(a * b for a, b in shapes)
'''), {"key": "param_count_qk_product", "where": ["q12"]}),
    # issue 21, after blind31: the lesson example's rank for this head's bound; keys and values stacked to
    # project them in one product (stacking needs d_v = d_k)
    "q11_max_rank_is_the_lesson_rank": ({"max_rank_S": "max_rank_S = 2\nrank_S_lesson = 2"},
                                        {"key": "bound_from_lesson_head", "where": ["q11:test_max_rank_S"]}),
    "q13_keys_values_projected_stacked": (cross('''
    Q = X @ W_Q
    K, V = torch.stack([W_K, W_V]).unbind(0)
    K, V = Y @ K, Y @ V
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''), {"key": "qkv_stacked", "where": ["q13"]}),
    "nw_log_weights_never_exponentiated": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    logits = K @ q / math.sqrt(q.shape[-1])
    log_w = logits - torch.logsumexp(logits, dim=0)
    return (log_w[:, None] * V).sum(dim=0)
'''), {"key": "log_softmax_weights", "where": ["q08"]}),
    "prefix_counts_in_reverse": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T, dtype=torch.float64):
    counts = torch.arange(T, 0, -1, dtype=dtype)
    return torch.ones(T, T, dtype=dtype).tril() / counts.unsqueeze(1)
'''), {"key": "prefix_average_counts_reversed", "where": ["q09", "q10"]}),
    "entropy_rows_by_python_loop": (cell("row_entropy_bits", '''
def row_entropy_bits(A):
    H = []
    for row in A:
        H.append(-sum(p.item() * math.log2(p.item()) for p in row if p.item() > 0))
    return torch.tensor(H, dtype=A.dtype)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''), {"key": "batched_input_unsupported", "where": ["q10"]}),
})

# after blind31's last three: one einsum letter for queries and keys (the one-edit search now reads equations
# with an ellipsis and gives a shared letter's second axis its own letter); torch.inner for a weighted sum;
# the additive mask multiplied in, whose float32 overflow gives NaN that only a replay in float32 shows
WRONG.update({
    "q02_einsum_one_letter_for_query_and_key": (scores('''
    scale = Q.size(-1) ** -0.5
    return torch.einsum("...id,...id->...i", Q * scale, K)
'''), {"key": ("one_edit_fix", "einsum_letter_on_two_axes"), "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
    "nw_inner_for_weighted_sum": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / q.numel() ** 0.5, dim=0)
    return torch.inner(w, V)
'''), {"key": ("one_edit_fix", "inner_pairs_last_axes"), "where": ["q08"]}),
    "q13_mask_multiplied_in_float32": (cross('''
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(-1, -2) / K.shape[-1] ** 0.5
    A = torch.softmax(S if M is None else torch.mul(S, M), dim=-1)
    return A @ V, A
'''), {"key": "mask_multiplied", "where": ["q13"]}),
})

# round 33, after blind32: the right W_avg in a nested list (or a NumPy array) is named by q09; one output
# projection counted for each of Q, K, V; the rank taken as the number of tokens that ask a question (non-zero
# query rows: 4 on the lesson pipeline's S, d_k and rank K too, so rank_above_min names all three readings)
WRONG.update({
    "q09_prefix_average_tolist": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T, dtype=torch.float64):
    W = torch.ones(T, T, dtype=dtype).tril()
    return (W / W.sum(dim=1, keepdim=True)).tolist()
'''), {"key": "returns_list_not_tensor", "where": ["q09:test_prefix_average_matrix"]}),
    "q09_prefix_average_rows_appended": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T, dtype=torch.float64):
    rows = []
    for t in range(T):
        rows.append([1.0 / (t + 1)] * (t + 1) + [0.0] * (T - t - 1))
    return rows
'''), {"key": "returns_list_not_tensor", "where": ["q09:test_prefix_average_matrix"]}),
    "q09_prefix_average_numpy": (cell("prefix_average_matrix", '''
import numpy as np


def prefix_average_matrix(T, dtype=torch.float64):
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
'''), {"key": "returns_numpy_not_tensor", "where": ["q09:test_prefix_average_matrix"]}),
    "q12_output_times_three": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = d_model * (2 * d_k + d_v)
    if with_output:
        total += 3 * d_v * d_model
    return total
'''), {"key": "param_count_wo_per_projection", "where": ["q12:test_count_with_output"]}),
    "q12_output_summed_over_shapes": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    n = sum(a * b for a, b in shapes)
    if with_output:
        n += sum(d_v * d_model for _ in shapes)
    return n
'''), {"key": "param_count_wo_per_projection", "where": ["q12:test_count_with_output"]}),
    "q12_output_per_projection_width": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = 0
    for width in (d_k, d_k, d_v):
        n += d_model * width
        if with_output:
            n += width * d_model       # each projection mapped back to d_model
    return n
'''), {"key": "param_count_wo_per_projection", "where": ["q12:test_count_with_output"]}),
    "q11_rank_nonzero_query_rows_counted": ({"max_rank_S": '''
max_rank_S = 8

_X = torch.eye(6, dtype=torch.float64)[[0, 1, 2, 3, 1]]
_W_Q = torch.zeros(6, 4, dtype=torch.float64)
_W_Q[1], _W_Q[2], _W_Q[3] = torch.tensor([2., 2, 0, 0]), torch.tensor([2., 0, 0, 0]), torch.tensor([2., 0, 0, 0])
rank_S_lesson = int(((_X @ _W_Q).abs().sum(dim=1) > 0).sum())   # the tokens that ask a question
'''}, {"key": "rank_above_min", "where": ["q11:test_rank_S_lesson"]}),
    # every query of the Question 2 Q is non-zero: 5, T too (generic, as matrix_rank(S, hermitian=True))
    "q11_rank_nonzero_rows_of_lesson_s": ({"max_rank_S": '''
max_rank_S = 8

_Q = torch.tensor([[1., 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [.5, .5, 0, 0]])
_K = torch.tensor([[2., 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]])
rank_S_lesson = int((_Q @ _K.T != 0).any(dim=1).sum().item())
'''}, {"key": None, "where": ["q11:test_rank_S_lesson"]}),
})

# after blind32 (q02_size_method_passed_to_sqrt): a tensor method given where math wants a number
WRONG.update({
    "q02_scale_from_size_method": (scores('''
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.size)
'''), {"key": "method_not_called", "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
    "q02_scale_from_numel_method": (scores('''
    d_k = Q.numel / Q[..., 0].numel()
    return (Q @ K.mT) * d_k ** -0.5
'''), {"key": "method_not_called", "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
})

# after blind33 (round 34): O mixed with other weights than the A returned (the unmasked softmax); scores between
# the raw inputs (W_Q, W_K unused); a loop over a batch axis the unbatched inputs lack, the (T, T') mask shared;
# a running count along the row (1/(j+1) at column j); a zip over lists of unequal length that drops W_O's pair
WRONG.update({
    "q07_output_before_renormalised_tril": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    P = torch.softmax(scaled_scores(Q, K), dim=-1)
    O = P @ V                                   # mixed before the future is cut
    if causal:
        P = P.tril()
        P = P / P.sum(dim=-1, keepdim=True)
    return O, P
'''), {"key": "output_from_unmasked_weights", "where": ["q07", "-q07:test_not_causal_float64", "q09", "q10"]}),
    "q07_output_from_exp_before_tril": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    E = torch.exp(S - S.amax(dim=-1, keepdim=True))
    O = (E @ V) / E.sum(dim=-1, keepdim=True)       # normalised after mixing
    if causal:
        E = E.tril()
    return O, E / E.sum(dim=-1, keepdim=True)
'''), {"key": "output_from_unmasked_weights", "where": ["q07", "-q07:test_not_causal_float64", "q09", "q10"]}),
    "q07_output_rows_from_full_softmax": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    full = attention_weights(S)
    A = attention_weights(S, causal_additive_mask(S.shape[-1], S.dtype, S.device)) if causal else full
    O = torch.einsum("...qk,...kd->...qd", full, V)
    return O, A
'''), {"key": "output_from_unmasked_weights", "where": ["q07", "-q07:test_not_causal_float64", "q09", "q10"]}),
    "q07_scores_inputs_over_sqrt_dk": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = X @ X.transpose(-2, -1) / math.sqrt(W_Q.shape[-1])
    if causal:
        T = X.shape[-2]
        S = S.masked_fill(torch.ones(T, T, dtype=torch.bool, device=S.device).triu(1), float("-inf"))
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''), {"key": "scores_from_inputs", "where": ["q07", "q09", "q10"]}),
    "q07_scores_inputs_einsum": (self_attn('''
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = torch.einsum("...id,...jd->...ij", X, X) / X.shape[-1] ** 0.5
    if causal:
        S = S + causal_additive_mask(X.shape[-2], S.dtype, S.device)
    A = attention_weights(S)
    return A @ V, A
'''), {"key": "scores_from_inputs", "where": ["q07", "q09", "q10"]}),
    "q13_scores_between_x_and_y": (cross('''
    V = Y @ W_V
    A = attention_weights(scaled_scores(X, Y), M)
    return A @ V, A
'''), {"key": "scores_from_inputs", "where": ["q13"]}),
    "q13_zip_over_batch_entries": (cross('''
    pairs = [(x @ W_Q, y @ W_K, y @ W_V) for x, y in zip(X, Y)]
    A = torch.stack([attention_weights(scaled_scores(q, k), M) for q, k, _ in pairs])
    O = torch.stack([a @ v for a, (_, _, v) in zip(A, pairs)])
    return O, A
'''), {"key": "batched_input_unsupported", "where": ["q13"]}),
    "q13_batch_size_from_shape_zero": (cross('''
    B = X.shape[0]
    A = torch.stack([attention_weights(scaled_scores(X[b] @ W_Q, Y[b] @ W_K), M) for b in range(B)])
    V = torch.stack([Y[b] @ W_V for b in range(B)])
    return A @ V, A
'''), {"key": "batched_input_unsupported", "where": ["q13"]}),
    "q09_running_count_cumsum_dim1": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    L = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return L / torch.cumsum(L, dim=1)
'''), {"key": "prefix_average_wrong_axis", "where": ["q09:test_prefix_average_matrix"]}),
    "q09_running_count_loop": (cell("prefix_average_matrix", '''
def prefix_average_matrix(T):
    W = torch.zeros(T, T, dtype=torch.float64)
    for t in range(T):
        seen = 0
        for j in range(t + 1):
            seen += 1
            W[t, j] = 1.0 / seen
    return W
'''), {"key": "prefix_average_wrong_axis", "where": ["q09:test_prefix_average_matrix"]}),
    "q12_zip_inputs_outputs_unequal": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    ins = [d_model, d_model, d_model]
    outs = [d_k, d_k, d_v]
    if with_output:
        outs.append(d_model)
    return sum(i * o for i, o in zip(ins, outs))
'''), {"key": "param_count_wo_ignored", "where": ["q12:test_count_with_output"]}),
    "q12_zip_names_with_shapes": (cell("qkv_param_count", '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    names = ["W_Q", "W_K", "W_V"]
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return sum(a * b for _, (a, b) in zip(names, shapes))
'''), {"key": "param_count_wo_ignored", "where": ["q12:test_count_with_output"]}),
})

# round 35 (blind34's misses as kinds): a softmax dim read from len(S) / S.size(0) (the first axis's size, not the
# number of axes); a hand-written softmax shifted by the row mean; Nadaraya-Watson with the scale on one side only
WRONG.update({
    "q05_r35_dim_from_size0_minus_one": (weights('''
    Z = S if M is None else S + M
    return torch.nn.functional.softmax(Z, dim=Z.size(0) - 1)
'''), {"key": "size_as_dim", "where": ["q05"]}),
    "q05_r35_log_softmax_dim_len": (weights('''
    last = len(S)                  # the last axis
    scores = S + M if M is not None else S
    return scores.log_softmax(dim=last).exp()
'''), {"key": "size_as_dim", "where": ["q05"]}),
    "q05_r35_mean_over_sum_shift": (weights('''
    Z = S if M is None else S + M
    E = (Z - Z.sum(-1, keepdim=True) / Z.shape[-1]).exp()
    return E / E.sum(-1, keepdim=True)
'''), {"key": "softmax_subtracts_mean", "where": ["q05"]}),
    "q05_r35_centred_exp": (weights('''
    scores = S + M if M is not None else S
    centred = scores - torch.mean(scores, dim=-1, keepdim=True)
    num = torch.exp(centred)
    return num / torch.sum(num, dim=-1, keepdim=True)
'''), {"key": "softmax_subtracts_mean", "where": ["q05"]}),
    "q08_r35_denominator_unscaled": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    raw = K @ q
    kappa = torch.exp(raw / math.sqrt(q.shape[-1]))
    return (kappa[:, None] * V).sum(dim=0) / torch.exp(raw).sum()
'''), {"key": "nw_kernel_mismatch", "where": ["q08"]}),
    "q08_r35_numerator_raw_loop": (cell("nadaraya_watson", '''
def nadaraya_watson(q, K, V):
    num = torch.zeros_like(V[0])
    den = torch.zeros((), dtype=V.dtype)
    for k_i, v_i in zip(K, V):
        s = k_i @ q
        num = num + torch.exp(s) * v_i
        den = den + torch.exp(s / q.shape[-1] ** 0.5)
    return num / den
'''), {"key": "nw_kernel_mismatch", "where": ["q08"]}),
})

# after blind33 and blind34: the engine's mechanisms in forms of my own (a def's parameter renamed; the number of
# entries or axes for d_k; exp2 for exp; a term too many; a number in quotes; torch.where without its False value)
WRONG.update({
    "q12_flag_renamed_include_output": ({"qkv_param_count": '''
def qkv_param_count(d_model, d_k, d_v, include_output=False):
    n = d_model * (2 * d_k + d_v)
    if include_output:
        n += d_v * d_model
    return n
'''}, {"key": "parameter_renamed", "where": ["q12"]}),
    "q12_sizes_renamed_and_flag_positional": ({"qkv_param_count": '''
def qkv_param_count(d_model, d_k, d_v, out=False):
    return d_model * (2 * d_k + d_v) + (d_v * d_model if out else 0)
'''}, {"key": "parameter_renamed", "where": ["q12"]}),
    "q02_d_k_from_number_of_axes": ({"scaled_scores": '''
def scaled_scores(Q, K):
    d_k = Q.dim()
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
'''}, {"key": ("one_edit_fix", "scale_from_ndim"), "where": ["q02", "q07", "q09", "q10", "q13"]}),
    "q02_d_k_from_key_entries": ({"scaled_scores": '''
def scaled_scores(Q, K):
    return Q @ K.transpose(-2, -1) / K.numel() ** 0.5
'''}, {"key": "one_edit_fix", "where": ["q02", "q07", "q09", "q10", "q13"]}),
    "q08_kernel_exp2_of_scaled_scores": ({"nadaraya_watson": '''
def nadaraya_watson(q, K, V):
    s = (K @ q) / q.shape[-1] ** 0.5
    w = s.exp2()
    return (w.unsqueeze(-1) * V).sum(0) / w.sum()
'''}, {"key": ("one_edit_fix", "softmax_base_2"), "where": ["q08"]}),
    "q10_entropy_with_an_extra_complement_term": ({"row_entropy_bits": '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    rest = torch.where(A < 1, torch.log2(1 - A), torch.zeros_like(A))
    return -(A * logs + (1 - A) * rest).sum(dim=-1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''}, {"key": "one_edit_fix", "where": ["q10"]}),
    "q11_ranks_in_quotes": ({"max_rank_S": 'max_rank_S = "8"\n\nrank_S_lesson = "2"\n'},
                            {"key": "number_as_string", "where": ["q11"]}),
    "q11_rank_formatted_as_text": ({"max_rank_S": 'max_rank_S = 8\n\nrank_S_lesson = str(2)\n'},
                                   {"key": "number_as_string", "where": ["q11"]}),
    "q04_future_where_without_false_value": ({"causal_additive_mask": '''
def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return torch.where(future, M + torch.finfo(dtype).min)
'''}, {"key": "where_missing_value", "where": ["q04", "q07", "q09", "q10", "q13"]}),
})

# round 36 (blind35): two variants of each kind named in that round
WRONG.update({
    # the right scores in float64: a NumPy float64 scalar, or a 1-element float64 tensor, promotes
    "q02_numpy_scores_times_float64_scalar": ({"scaled_scores": '''
import numpy as np


def scaled_scores(Q, K):
    scale = 1.0 / np.sqrt(np.float64(K.shape[-1]))
    S = np.matmul(Q.numpy(), np.swapaxes(K.numpy(), -1, -2)) * scale
    return torch.from_numpy(S)
'''}, {"key": "dtype_changed", "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
    "q02_scale_as_float64_vector": ({"scaled_scores": '''
def scaled_scores(Q, K):
    d_k = torch.tensor([K.shape[-1]], dtype=torch.float64)
    return Q @ K.transpose(-2, -1) / torch.sqrt(d_k)
'''}, {"key": "dtype_changed", "where": ["q02", "q05", "q07", "q09", "q10", "q13"]}),
    # an extra term in the softmax's denominator: rows sum to S / (S + 1)
    "q05_extra_one_after_the_shift": ({"attention_weights": '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    w = torch.exp(S - S.amax(dim=-1, keepdim=True))
    return w / (1.0 + w.sum(dim=-1, keepdim=True))
'''}, {"key": "softmax_extra_denominator_term", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "q05_zero_logit_appended": ({"attention_weights": '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    zero = torch.zeros_like(S[..., :1])
    return torch.softmax(torch.cat([S, zero], dim=-1), dim=-1)[..., :-1]
'''}, {"key": "softmax_extra_denominator_term", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    # the causal mask chosen by the scores' value: every score equal to 0 blocked
    "q07_tril_then_zero_scores_filled": ({"self_attention": '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = torch.tril(S)
        S = S.masked_fill(S == 0, torch.finfo(S.dtype).min)
    A = attention_weights(S)
    return A @ V, A
'''}, {"key": "mask_by_score_value", "where": ["q07", "q09"]}),
    "q07_kept_where_masked_score_nonzero": ({"self_attention": '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        keep = (S * torch.tril(torch.ones_like(S))) != 0
        S = torch.where(keep, S, torch.full_like(S, torch.finfo(S.dtype).min))
    A = attention_weights(S)
    return A @ V, A
'''}, {"key": "mask_by_score_value", "where": ["q07", "q09"]}),
    # 2: S's number of axes, and the lesson's S's rank (one number, both readings)
    "q11_max_rank_as_len_of_shape": ({"max_rank_S": 'max_rank_S = len((100, 100))\n\nrank_S_lesson = 2\n'},
                                     {"key": "rank_as_axes_or_lesson_rank", "where": ["q11:test_max_rank_S"]}),
    "q11_max_rank_as_ndim": ({"max_rank_S": 'max_rank_S = torch.zeros(100, 100).ndim\n\nrank_S_lesson = 2\n'},
                             {"key": "rank_as_axes_or_lesson_rank", "where": ["q11:test_max_rank_S"]}),
    "q11_max_rank_is_the_lesson_rank": ({"max_rank_S": "max_rank_S = 2\nrank_S_lesson = 2"},
                                        {"key": "rank_as_axes_or_lesson_rank", "where": ["q11:test_max_rank_S"]}),
    # equal shapes (or widths) collapsed by a set or a dict
    "q12_sizes_in_a_dict_keyed_by_shape": ({"qkv_param_count": '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    sizes = {}
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    for shape in shapes:
        sizes[shape] = shape[0] * shape[1]
    return sum(sizes.values())
'''}, {"key": "count_from_set_of_shapes", "where": ["q12"]}),
    "q12_widths_in_a_set": ({"qkv_param_count": '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    widths = set([d_k, d_k, d_v])
    total = d_model * sum(widths)
    if with_output:
        total += d_v * d_model
    return total
'''}, {"key": "count_from_set_of_shapes", "where": ["q12"]}),
    # the default mask sized T x T from X's length
    "q13_default_mask_like_query_scores": ({"cross_attention": '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is None:
        M = torch.zeros_like(Q @ Q.transpose(-2, -1))
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
'''}, {"key": "default_mask_square", "where": ["q13"]}),
    "q13_default_mask_len_x": ({"cross_attention": '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is None:
        M = torch.zeros(len(X), len(X), dtype=S.dtype, device=S.device)
    S = S + M
    A = attention_weights(S)
    return A @ V, A
'''}, {"key": "default_mask_square", "where": ["q13"]}),
    # the open entries of the mask hold a nonzero value (the words say what they hold)
    "q04_open_entries_ones_then_indexed": ({"causal_additive_mask": '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.ones(T, T, dtype=dtype, device=device)
    M[torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)] = torch.finfo(dtype).min
    return M
'''}, {"key": "one_edit_fix", "where": ["q04", "q05", "q07"]}),
    "q04_open_entries_ones_chained": ({"causal_additive_mask": '''
def causal_additive_mask(T, dtype, device=None):
    blocked = torch.ones(T, T, dtype=torch.bool, device=device).triu(diagonal=1)
    return torch.ones_like(blocked, dtype=dtype).masked_fill(blocked, torch.finfo(dtype).min)
'''}, {"key": "one_edit_fix", "where": ["q04", "q05", "q07"]}),
})
WRONG.update({
    # round37 (blind36): a number the options' own text shows, given where the letter is asked
    "q16_exponent_from_log2": (cell("ans_complexity", '''import math
ans_complexity = int(math.log2(4))   # doubling T quadruples the cost: it grows like T ** 2
'''), {"key": "answer_value_not_letter", "where": ["q16"]}),
    "q16_exponent_assigned_from_name": (cell("ans_complexity", '''exponent = 2   # S has T * T entries
ans_complexity = exponent
'''), {"key": "answer_value_not_letter", "where": ["q16"]}),
    "q03_entropy_limit_zero": (cell("ans_scale", '''ans_scale = 0   # without the scale the entropies fall toward 0
'''), {"key": "answer_value_not_letter", "where": ["q03"]}),
    # round37 (blind36): exp(S) divided by something other than its row sum; float16 / large float32 overflow too
    "q05_exp_over_logsumexp_methods": ({"attention_weights": '''
def attention_weights(S, M=None):
    Z = S if M is None else S + M
    return Z.exp() / Z.logsumexp(dim=-1, keepdim=True)
'''}, {"key": "weights_not_normalised", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    "q05_exp_over_logsumexp_of_masked_fill": ({"attention_weights": '''
def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    lse = torch.logsumexp(S, -1).unsqueeze(-1)
    weights = torch.exp(S)
    return weights / lse
'''}, {"key": "weights_not_normalised", "where": ["q05", "q07", "q09", "q10", "q13"]}),
    # round37 (blind36): MATLAB's repmat((1:T)', 1, T) ported as repeat / tile on the 1-D counts
    "q09_counts_repeat_flat": ({"prefix_average_matrix": '''
def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    counts = torch.arange(1, T + 1, dtype=torch.float64).repeat(T)
    return W / counts
'''}, {"key": "prefix_average_counts_repeated_flat", "where": ["q09", "q10"]}),
    "q09_counts_tiled_flat": ({"prefix_average_matrix": '''
def prefix_average_matrix(T):
    lower = torch.ones(T, T, dtype=torch.float64).tril()
    return lower / torch.tile(torch.arange(1.0, T + 1.0, dtype=torch.float64), (T,))
'''}, {"key": "prefix_average_counts_repeated_flat", "where": ["q09", "q10"]}),
})
