"""Held-out submissions for scaled-attention (Lesson 79): written before the hidden tests were
changed for issue 13. Each replaces whole cells of full_marks.ipynb (see tests/heldout/harness.py).

multi_head_attention (q8) calls the student's own `attention`, and entropy_table (q4) the student's own
softmax_entropy: a mistake in those is charged in q1 / in the softmax_entropy tests, not again there."""


def attention(body: str) -> dict:
    return {"attention": "def attention(Q, K, V, d_k):\n" + body}


def variance(body: str) -> dict:
    return {"dot_product_variance": "def dot_product_variance(d_k, n_samples, generator, scaled=False):\n" + body}


TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''

ENTROPY = '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''


def entropy(src: str) -> dict:
    """The cell defining softmax_entropy (src) and the full-marks entropy_table."""
    return {"softmax_entropy": src + TABLE}


def table(old: str, new: str) -> dict:
    assert old in TABLE, old
    return {"softmax_entropy": ENTROPY + TABLE.replace(old, new)}


def mha(body: str, batched_attention: bool = False) -> dict:
    cells = {"multi_head_attention": "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n" + body}
    if batched_attention:   # full marks' attention uses K.T, which is for 2-D inputs only
        cells.update(attention('''
    weights = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''))
    return cells


MHA_LOOP = '''
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''

CORRECT = {
    "attention_einsum": attention('''
    scores = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("qk,kd->qd", weights, V), weights
'''),
    "attention_hand_softmax": attention('''
    scores = Q @ K.transpose(-2, -1) * d_k ** -0.5
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''),
    "attention_scale_queries": attention('''
    weights = F.softmax((Q / math.sqrt(d_k)) @ K.T, dim=1)
    return torch.matmul(weights, V), weights
'''),
    # --- memory layout (added with the non-contiguous and broadcast cases) -------------------------------
    "attention_reshape_flat": attention('''
    q = Q.reshape(-1).reshape(Q.shape[0], d_k)
    weights = torch.softmax(q @ K.transpose(0, 1) / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''),
    "attention_scale_a_clone_in_place": attention('''
    q = Q.clone()
    q /= math.sqrt(d_k)
    weights = torch.softmax(q @ K.T, dim=-1)
    return weights @ V, weights
'''),
    "variance_einsum": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / d_k ** 0.5
    return float(torch.var(dots))
'''),
    "variance_one_draw_float64": variance('''
    qk = torch.randn(n_samples, 2, d_k, generator=generator, dtype=torch.float64)
    dots = (qk[:, 0] * qk[:, 1]).sum(-1) / (math.sqrt(d_k) if scaled else 1.0)
    return dots.var().item()
'''),
    "variance_population": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1) * (d_k ** -0.5 if scaled else 1)
    return dots.var(unbiased=False).item()
'''),
    "entropy_log_softmax": entropy('''
def softmax_entropy(logits):
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)
'''),
    "entropy_entr": entropy('''
def softmax_entropy(logits):
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(-1)
'''),
    "entropy_xlogy": entropy('''
def softmax_entropy(logits):
    p = logits.softmax(-1)
    return -torch.special.xlogy(p, p).sum(-1)
'''),
    "entropy_float64_cast_back": entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits.double(), dim=-1)
    return -(p * torch.log(p.clamp_min(1e-300))).sum(-1).to(logits.dtype)
'''),
    "entropy_shift_a_copy": entropy('''
def softmax_entropy(logits):
    z = logits - logits.amax(dim=-1, keepdim=True)
    z -= torch.logsumexp(z, dim=-1, keepdim=True)
    return -(z.exp() * z).sum(dim=-1)
'''),
    "entropy_reshape_rows": entropy('''
def softmax_entropy(logits):
    rows = logits.reshape(-1, logits.shape[-1])
    p = F.softmax(rows, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1).reshape(logits.shape[:-1])
'''),
    "table_torch_std": table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                             '"raw_std": float(torch.std(raw)), "scaled_std": float(torch.std(scaled))'),
    "mcq_lower_case": {"q5_answer": 'q5_answer = "c"', "q6_answer": 'q6_answer = " a"', "q7_answer": "q7_answer = 'd'"},
    "mha_batched_heads": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    def split(x):
        return x.view(T, n_heads, d_k).transpose(0, 1)
    out, _ = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), d_k)
    return out.transpose(0, 1).reshape(T, d_model) @ W_O
''', batched_attention=True),
    "mha_inline_permute": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q, k, v = ((X @ W).reshape(T, n_heads, d_k).permute(1, 0, 2) for W in (W_Q, W_K, W_V))
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (w @ v).permute(1, 0, 2).reshape(T, d_model) @ W_O
'''),
}

CORRECT.update({
    # --- issue 21 -----------------------------------------------------------------------------------------
    "attention_computed_in_float64": attention('''
    scores = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return (weights @ V.double()).to(Q.dtype), weights.to(Q.dtype)
'''),
    "attention_scale_keys_rsqrt": attention('''
    weights = (Q @ (K * torch.rsqrt(torch.tensor(float(d_k), dtype=K.dtype))).transpose(-2, -1)).softmax(-1)
    return weights @ V, weights
'''),
    "entropy_minus_sum_of_negated": entropy('''
def softmax_entropy(logits):
    log_p = torch.log_softmax(logits, dim=-1)
    return (-log_p * log_p.exp()).sum(-1)
'''),
})

WRONG: dict[str, tuple[dict[str, str], dict[str, object]]] = {
    # --- issue 21: mistakes that had no name ----------------------------------------------------------------
    "attention_isqrt": (attention('''
    weights = F.softmax(Q @ K.T / math.isqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "integer_sqrt_scale", "where": ["q1"]}),
    "attention_int_sqrt": (attention('''
    scale = int(d_k ** 0.5)
    weights = F.softmax(Q @ K.T / scale, dim=-1)
    return weights @ V, weights
'''), {"key": "integer_sqrt_scale", "where": ["q1"]}),
    "attention_q_q": (attention('''
    weights = F.softmax(Q @ Q.T / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "keys_are_queries", "where": ["q1"]}),
    "attention_weights_T_values": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return weights.T @ V, weights
'''), {"key": "output_uses_weights_transposed", "where": ["q1"]}),
    "attention_uniform": (attention('''
    weights = torch.ones(Q.shape[0], K.shape[0], dtype=Q.dtype) / K.shape[0]
    return weights @ V, weights
'''), {"key": "uniform_weights", "where": ["q1"]}),
    "attention_returns_weights_first": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return weights, weights @ V
'''), {"key": "results_reordered", "where": ["q1"]}),
    "attention_softmax_in_float32": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores.float(), dim=-1).to(Q.dtype)
    return weights @ V, weights
'''), {"key": "float32_precision", "where": ["q1:test_float64_weights", "q1:test_float64_output"]}),
    "variance_q_dot_q": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * q).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "keys_are_queries", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    "entropy_sign_dropped": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return (p * torch.log(p + 1e-9)).sum(dim=-1)
'''), {"key": "entropy_sign", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                          "q4:test_entropy_views"]}),
    # the table's stds taken of the softmax weights, not the scores: through F.softmax, and through exp / sum
    "table_stds_of_softmax": (table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                                    '"raw_std": F.softmax(raw, dim=-1).std().item(), '
                                    '"scaled_std": F.softmax(scaled, dim=-1).std().item()'),
                              {"key": "table_stds_of_weights", "where": ["q4:test_entropy_table_lesson",
                                                                         "q4:test_entropy_table_other_dims_and_seed"]}),
    "table_stds_of_exp_over_sum": (table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                                         '"raw_std": (raw.exp() / raw.exp().sum()).std().item(), '
                                         '"scaled_std": (scaled.exp() / scaled.exp().sum()).std().item()'),
                                   {"key": "table_stds_of_weights", "where": ["q4:test_entropy_table_lesson",
                                                                              "q4:test_entropy_table_other_dims_and_seed"]}),
    "table_keys_drawn_first": (table("q = torch.randn(1, d); k = torch.randn(5, d)", "k = torch.randn(5, d); q = torch.randn(1, d)"),
                               {"key": "keys_drawn_first", "where": ["q4:test_entropy_table_lesson",
                                                                     "q4:test_entropy_table_other_dims_and_seed"]}),
    # after blind27: new nn.Linear layers (random weights) for the projections, built per call and once per head
    "mha_new_linear_layers": (mha('''
    d_model = X.shape[-1]
    q_proj, k_proj, v_proj = (torch.nn.Linear(d_model, d_model, bias=False).to(X.dtype) for _ in range(3))
    Q, K, V = q_proj(X), k_proj(X), v_proj(X)
    d_k = d_model // n_heads
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
             for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O
'''), {"key": "mha_new_layers", "where": ["q8"]}),
    "mha_linear_modulelist": (mha('''
    d_model = X.shape[-1]
    projections = torch.nn.ModuleList(torch.nn.Linear(d_model, d_model) for _ in range(3)).to(dtype=X.dtype)
    Q, K, V = (p(X) for p in projections)
    d_k = d_model // n_heads
    outs = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        outs.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(outs, dim=-1) @ W_O
'''), {"key": "mha_new_layers", "where": ["q8"]}),
    # after blind27: one role left unprojected, X itself as the values, or as the keys
    "mha_values_unprojected": (mha('''
    Q, K, V = X @ W_Q, X @ W_K, X
    d_k = X.shape[-1] // n_heads
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
             for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O
'''), {"key": "mha_no_input_projections", "where": ["q8"]}),
    "mha_keys_unprojected": (mha('''
    Q, V = X @ W_Q, X @ W_V
    d_k = X.shape[-1] // n_heads
    outs = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        outs.append(attention(Q[:, c], X[:, c], V[:, c], d_k)[0])
    return torch.cat(outs, dim=-1) @ W_O
'''), {"key": "mha_no_input_projections", "where": ["q8"]}),
    "mha_head_slice_offset": (mha(MHA_LOOP.replace("slice(h * d_k, (h + 1) * d_k)", "slice(h, h + d_k)")),
                              {"key": "mha_head_slice_offset", "where": ["q8"]}),
    "q5_scaled_variance": ({"q5_answer": 'q5_answer = "A"'}, {"key": "variance_after_scaling", "where": ["q5"]}),
    "q5_d_k_squared": ({"q5_answer": 'q5_answer = "D"'}, {"key": "variance_d_k_squared", "where": ["q5"]}),
    "q6_plain_mean": ({"q6_answer": 'q6_answer = "D"'}, {"key": "uniform_weights", "where": ["q6"]}),
    "q7_sorted_keys": ({"q7_answer": 'q7_answer = "B"'}, {"key": "attention_needs_sorted_keys", "where": ["q7"]}),
    # --- memory layout (q1's non-contiguous and broadcast cases) ----------------------------------------
    "attention_view_flat": (attention('''
    q = Q.view(-1).view(Q.shape[0], d_k)
    weights = torch.softmax(q @ K.T / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "view_on_noncontiguous", "where": ["q1:test_noncontiguous_inputs", "q1:test_broadcast_inputs"]}),
    "attention_scale_q_in_place": (attention('''
    Q /= math.sqrt(d_k)
    weights = torch.softmax(Q @ K.T, dim=-1)
    return weights @ V, weights
'''), {"key": "inplace_on_input", "where": ["q1"]}),   # the caller's Q changes: every q1 case sees it
    # --- attention (q1; multi_head_attention calls it, so q8 is not charged again) ------------------
    "divide_by_dk": (attention('''
    weights = F.softmax(Q @ K.T / d_k, dim=-1)
    return weights @ V, weights
'''), {"key": "divide_by_dk", "where": ["q1"]}),
    "no_scale": (attention('''
    weights = F.softmax(Q @ K.T, dim=-1)
    return weights @ V, weights
'''), {"key": "no_scale", "where": ["q1"]}),
    "divide_by_sqrt_dv": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(V.shape[-1]), dim=-1)
    return weights @ V, weights
'''), {"key": "scale_by_d_v", "where": ["q1"]}),
    "divide_by_sqrt_Tk": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(K.shape[0]), dim=-1)
    return weights @ V, weights
'''), {"key": "scale_by_T", "where": ["q1"]}),
    "softmax_dim_0": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=0)
    return weights @ V, weights
'''), {"key": "softmax_wrong_dim", "where": ["q1"]}),
    "k_q_transposed": (attention('''
    weights = F.softmax(K @ Q.T / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "scores_transposed", "where": ["q1"]}),
    "float32_scale": (attention('''
    weights = F.softmax(Q @ K.T / torch.sqrt(torch.tensor(d_k)), dim=-1)
    return weights @ V, weights
'''), {"key": "float32_scale", "where": ["q1"]}),
    "multiply_by_sqrt_dk": (attention('''
    weights = F.softmax(Q @ K.T * math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "multiply_by_sqrt_dk", "where": ["q1"]}),
    "weights_not_normalised": (attention('''
    weights = torch.exp(Q @ K.T / math.sqrt(d_k))
    return weights @ V, weights
'''), {"key": "weights_not_normalised", "where": ["q1"]}),
    "no_softmax": (attention('''
    weights = Q @ K.T / math.sqrt(d_k)
    return weights @ V, weights
'''), {"key": "no_softmax", "where": ["q1"]}),
    # --- Var(q.k) (q2) -----------------------------------------------------------------------------
    "variance_of_products": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    prods = q * k
    if scaled:
        prods = prods / math.sqrt(d_k)
    return prods.var().item()
'''), {"key": "variance_of_products", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    "returns_std": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.std().item()
'''), {"key": "variance_returned_std", "where": ["q2:test_unscaled_variance_is_d_k"]}),
    "ignores_generator": (variance('''
    q = torch.randn(n_samples, d_k)
    k = torch.randn(n_samples, d_k)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "ignores_generator", "where": ["q2:test_draws_from_generator"]}),
    "scaled_divides_by_dk": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / d_k
    return dots.var().item()
'''), {"key": "divide_by_dk", "where": ["q2:test_scaled_variance_is_one"]}),
    "scaled_flag_ignored": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    return (q * k).sum(1).var().item()
'''), {"key": ("scaled_flag_ignored", "no_scale"), "where": ["q2:test_scaled_variance_is_one"]}),
    # --- entropy (q4; entropy_table calls softmax_entropy, so its tests are not charged again) ---------
    "entropy_shift_in_place": (entropy('''
def softmax_entropy(logits):
    logits -= logits.amax(dim=-1, keepdim=True)
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''), {"key": "inplace_on_input", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                              "q4:test_entropy_views"]}),   # the caller's logits change
    "entropy_view_rows": (entropy('''
def softmax_entropy(logits):
    rows = logits.view(-1, logits.shape[-1])
    p = F.softmax(rows, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1).view(logits.shape[:-1])
'''), {"key": "view_on_noncontiguous", "where": ["q4:test_entropy_views"]}),
    "entropy_log2": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log2(p + 1e-9)).sum(dim=-1)
'''), {"key": "entropy_log_base", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows", "q4:test_entropy_views"]}),
    "entropy_nan_saturated": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p)).sum(dim=-1)
'''), {"key": "entropy_nan_saturated", "where": ["q4:test_entropy_saturated_rows"]}),
    "entropy_wrong_dim": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=0)
    return -(p * torch.log(p + 1e-9)).sum(dim=0)
'''), {"key": "entropy_wrong_dim",   # dim=0: on a (B, T, n) input it matches the reference's dim-0 variant
                           "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows", "q4:test_entropy_views"]}),
    "table_biased_std": (table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                               '"raw_std": raw.std(unbiased=False).item(), "scaled_std": scaled.std(unbiased=False).item()'),
                         {"key": "biased_std", "where": ["q4:test_entropy_table_lesson", "q4:test_entropy_table_other_dims_and_seed"]}),
    "table_seed_outside_loop": ({"softmax_entropy": ENTROPY + TABLE.replace(
        "    for d in dims:\n        torch.manual_seed(seed)\n", "    torch.manual_seed(seed)\n    for d in dims:\n")},
        {"key": "seed_outside_loop", "where": ["q4:test_entropy_table_lesson", "q4:test_entropy_table_other_dims_and_seed"]}),
    "table_divide_by_d": (table("scaled = raw / d**0.5", "scaled = raw / d"),
                          {"key": "divide_by_dk", "where": ["q4:test_entropy_table_lesson", "q4:test_entropy_table_other_dims_and_seed"]}),
    # --- multiple choice ----------------------------------------------------------------------------------
    "q5_std_for_variance": ({"q5_answer": 'q5_answer = "B"'}, {"key": "variance_vs_std", "where": ["q5"]}),
    "q6_argmax": ({"q6_answer": 'q6_answer = "C"'}, {"key": "attention_as_argmax", "where": ["q6"]}),
    "q7_argmax": ({"q7_answer": 'q7_answer = "A"'}, {"key": "attention_as_argmax", "where": ["q7"]}),
    # --- multi-head attention (q8) ---------------------------------------------------------------------
    "mha_scale_by_d_model": (mha(MHA_LOOP.replace("V[:, cols], d_k)", "V[:, cols], d_model)")),
                             {"key": "mha_scale_by_d_model", "where": ["q8"]}),
    "mha_split_without_transpose": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q, k, v = ((X @ W).reshape(n_heads, T, d_k) for W in (W_Q, W_K, W_V))
    out, _ = attention(q, k, v, d_k)
    return out.reshape(T, d_model) @ W_O
''', batched_attention=True), {"key": "mha_split_without_transpose", "where": ["q8"]}),
    "mha_no_output_projection": (mha(MHA_LOOP.replace("torch.cat(heads, dim=1) @ W_O", "torch.cat(heads, dim=1)")),
                                 {"key": "mha_no_output_projection", "where": ["q8"]}),
    "mha_weight_transposed": (mha(MHA_LOOP.replace("X @ W_Q, X @ W_K, X @ W_V", "X @ W_Q.T, X @ W_K.T, X @ W_V.T")
                                  .replace("@ W_O", "@ W_O.T")),
                              {"key": "mha_weight_transposed", "where": ["q8"]}),
}

# --- issue 21, second round: kinds named from the output on the same input, a second call, or the error --------
CORRECT.update({
    "attention_power_half_in_parentheses": attention('''
    scores = Q.matmul(K.transpose(0, 1)) * d_k ** (-1 / 2)
    return scores.softmax(dim=-1) @ V, scores.softmax(dim=-1)
'''),
    "variance_stacked_draw": variance('''
    pairs = torch.randn(2, n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", pairs[0], pairs[1])
    return float(dots.var() / (d_k if scaled else 1))
'''),
    "entropy_categorical": entropy('''
def softmax_entropy(logits):
    return torch.distributions.Categorical(logits=logits).entropy()
'''),
    "mha_transpose_contiguous_view": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    def split(x):
        return x.view(T, n_heads, d_k).transpose(0, 1)
    out, _ = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), d_k)
    return out.transpose(0, 1).contiguous().view(T, d_model) @ W_O
''', batched_attention=True),
})

WRONG.update({
    # q1: the scale
    "attention_scale_is_half_d_k": (attention('''
    scale = d_k ** 1/2
    weights = torch.softmax(Q @ K.T / scale, dim=-1)
    return weights @ V, weights
'''), {"key": "wrong_scale_constant", "where": ["q1"]}),
    "attention_inline_precedence": (attention('''
    scores = Q.matmul(K.T) * d_k ** -1/2
    weights = scores.softmax(-1)
    return weights @ V, weights
'''), {"key": "scale_precedence", "where": ["q1"]}),
    "attention_hardcoded_sqrt_64": (attention('''
    weights = F.softmax(Q @ K.T / 8.0, dim=-1)
    return weights @ V, weights
'''), {"key": "wrong_scale_constant", "where": ["q1"]}),
    # after blind27: a constant equal to 1/sqrt(one of the sizes) on some tests' inputs (T = 4 or d_v = 4 there)
    "attention_scores_halved": (attention('''
    weights = F.softmax(Q @ K.T / 2, dim=-1)
    return weights @ V, weights
'''), {"key": "wrong_scale_constant", "where": ["q1", "q8"]}),
    "attention_scores_times_half": (attention('''
    scores = (Q @ K.transpose(-2, -1)) * 0.5
    weights = scores.softmax(dim=-1)
    return weights @ V, weights
'''), {"key": "wrong_scale_constant", "where": ["q1", "q8"]}),
    "attention_scale_on_output": (attention('''
    weights = F.softmax(Q @ K.T, dim=-1)
    return weights @ V / math.sqrt(d_k), weights
'''), {"key": "scale_after_softmax", "where": ["q1"]}),
    "attention_scale_on_weights": (attention('''
    weights = F.softmax(Q @ K.T, dim=-1) / math.sqrt(d_k)
    return weights @ V, weights
'''), {"key": "scale_after_softmax", "where": ["q1"]}),
    "attention_sqrt_of_query_count": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(len(Q)), dim=-1)
    return weights @ V, weights
'''), {"key": "scale_by_T", "where": ["q1"]}),
    "attention_torch_sqrt_of_int": (attention('''
    weights = F.softmax(Q @ K.T / torch.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "torch_sqrt_of_int", "where": ["q1"]}),
    # q1: not a softmax along each row
    "attention_flat_softmax": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.softmax(scores.flatten(), dim=0).reshape(scores.shape)
    return weights @ V, weights
'''), {"key": "softmax_whole_matrix", "where": ["q1"]}),
    "attention_log_softmax": (attention('''
    weights = F.log_softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "log_softmax_weights", "where": ["q1"]}),
    "attention_l1_normalize": (attention('''
    weights = F.normalize(Q @ K.T / math.sqrt(d_k), p=1, dim=-1)
    return weights @ V, weights
'''), {"key": "scores_normalised_without_exp", "where": ["q1"]}),
    "attention_manual_sigmoid": (attention('''
    g = 1 / (1 + torch.exp(-(Q @ K.T) / math.sqrt(d_k)))
    weights = g / g.sum(1, keepdim=True)
    return weights @ V, weights
'''), {"key": "sigmoid_weights", "where": ["q1"]}),
    "attention_sum_without_keepdim": (attention('''
    e = torch.exp(Q @ K.T / math.sqrt(d_k))
    weights = e / e.sum(dim=-1)
    return weights @ V, weights
'''), {"key": "keepdim_missing", "where": ["q1"]}),
    "attention_max_without_keepdim": (attention('''
    s = Q @ K.T / math.sqrt(d_k)
    e = torch.exp(s - s.max(dim=1).values)
    weights = e / e.sum(dim=1, keepdim=True)
    return weights @ V, weights
'''), {"key": "keepdim_missing", "where": ["q1"]}),
    # q1: the wrong things returned, or multiplied
    "attention_returns_scores": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    return F.softmax(scores, dim=-1) @ V, scores
'''), {"key": "returns_scores_as_weights", "where": ["q1"]}),
    "attention_output_alone": (attention('''
    return F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1) @ V
'''), {"key": "returns_output_only", "where": ["q1"]}),
    "attention_weights_times_keys": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return weights @ K, weights
'''), {"key": "values_are_keys", "where": ["q1"]}),
    "attention_no_transpose": (attention('''
    weights = F.softmax(Q @ K / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "keys_not_transposed", "where": ["q1"]}),
    "attention_bmm_only": (attention('''
    scores = torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=2)
    return torch.bmm(weights, V), weights
'''), {"key": "fixed_axes", "where": ["q1"]}),
    # q2
    "variance_one_key_for_all": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(d_k, generator=generator)
    dots = q @ k
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''), {"key": "shared_sample", "where": ["q2"]}),
    "variance_uniform_draws": (variance('''
    q = torch.rand(n_samples, d_k, generator=generator)
    k = torch.rand(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "uniform_samples", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    "variance_summed_over_samples": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(0)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "dots_summed_over_samples", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    "variance_as_tensor": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1) / (math.sqrt(d_k) if scaled else 1.0)
    return torch.var(dots)
'''), {"key": "returns_tensor_not_number", "where": ["q2:test_draws_from_generator"]}),
    "variance_then_divided_by_root": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    v = (q * k).sum(1).var().item()
    return v / math.sqrt(d_k) if scaled else v
'''), {"key": "variance_scaled_by_sqrt", "where": ["q2:test_scaled_variance_is_one"]}),
    "variance_scaled_up": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots * math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "multiply_by_sqrt_dk", "where": ["q2:test_scaled_variance_is_one"]}),
    # q4: softmax_entropy
    "entropy_mean_of_everything": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return torch.mean(-p * torch.log(p + 1e-9))
'''), {"key": "entropy_one_number", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                              "q4:test_entropy_views"]}),
    "entropy_mean_along_row": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).mean(dim=-1)
'''), {"key": "entropy_mean_not_sum", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                                "q4:test_entropy_views"]}),
    "entropy_terms_only": (entropy('''
def softmax_entropy(logits):
    return -(logits.softmax(-1) * logits.log_softmax(-1))
'''), {"key": "entropy_terms_not_summed", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                                    "q4:test_entropy_views"]}),
    "entropy_keepdim_true": (entropy('''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1, keepdim=True)
'''), {"key": "entropy_keepdim", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                           "q4:test_entropy_views"]}),
    "entropy_fraction_of_max": (entropy('''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(-1) / math.log(logits.shape[-1])
'''), {"key": "entropy_normalised", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                              "q4:test_entropy_views"]}),
    "entropy_logsumexp_by_hand": (entropy('''
def softmax_entropy(logits):
    e = torch.exp(logits)
    return torch.log(e.sum(-1)) - (logits * e).sum(-1) / e.sum(-1)
'''), {"key": "entropy_exp_overflow", "where": ["q4:test_entropy_saturated_rows"]}),
    "entropy_softmax_by_hand": (entropy('''
def softmax_entropy(logits):
    e = logits.exp()
    p = e / e.sum(dim=-1, keepdim=True)
    return -(p * (p + 1e-9).log()).sum(dim=-1)
'''), {"key": "entropy_exp_overflow", "where": ["q4:test_entropy_saturated_rows"]}),
    # q4: entropy_table
    "table_zero_d_tensors": (table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                                   '"raw_std": raw.std(), "scaled_std": scaled.std()'),
                             {"key": "returns_tensor_not_number", "where": ["q4:test_entropy_table_other_dims_and_seed"]}),
    "table_keys_as_columns": (table("q = torch.randn(1, d); k = torch.randn(5, d)\n        raw = (q @ k.T)[0]",
                                    "q = torch.randn(1, d); k = torch.randn(d, 5)\n        raw = (q @ k)[0]"),
                              {"key": "keys_drawn_transposed", "where": ["q4:test_entropy_table_lesson",
                                                                         "q4:test_entropy_table_other_dims_and_seed"]}),
    "table_half_power_precedence": (table("scaled = raw / d**0.5", "scaled = raw / d**1/2"),
                                    {"key": "scale_precedence", "where": ["q4:test_entropy_table_lesson",
                                                                          "q4:test_entropy_table_other_dims_and_seed"]}),
    # q8
    "mha_interleaved_heads": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    def split(x):
        return x.view(T, d_k, n_heads).permute(2, 0, 1)
    out, _ = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), d_k)
    return out.permute(1, 0, 2).reshape(T, d_model) @ W_O
''', batched_attention=True), {"key": "mha_strided_heads", "where": ["q8"]}),
    "mha_stack_then_reshape": (mha('''
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = [attention(Q[:, i * d_k:(i + 1) * d_k], K[:, i * d_k:(i + 1) * d_k], V[:, i * d_k:(i + 1) * d_k], d_k)[0]
            for i in range(n_heads)]
    return torch.stack(outs).reshape(X.shape[0], d_model) @ W_O
'''), {"key": "mha_merge_without_transpose", "where": ["q8"]}),
    "mha_whole_width_once": (mha('''
    d_k = X.shape[1] // n_heads
    out, _ = attention(X @ W_Q, X @ W_K, X @ W_V, d_k)
    return out @ W_O
'''), {"key": "mha_single_head", "where": ["q8"]}),
    "mha_keys_from_w_q": (mha(MHA_LOOP.replace("X @ W_Q, X @ W_K, X @ W_V", "X @ W_Q, X @ W_Q, X @ W_V")),
                          {"key": "same_projection", "where": ["q8"]}),
    "mha_view_after_transpose": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    def split(x):
        return x.view(T, n_heads, d_k).transpose(0, 1)
    out, _ = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), d_k)
    return out.transpose(0, 1).view(T, d_model) @ W_O
''', batched_attention=True), {"key": "view_on_noncontiguous", "where": ["q8"]}),
})

WRONG.update({
    "attention_causal_tril": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    keep = torch.tril(torch.ones(Q.shape[0], K.shape[0]))
    weights = F.softmax(scores.masked_fill(keep == 0, float("-inf")), dim=-1)
    return weights @ V, weights
'''), {"key": "causal_mask_added", "where": ["q1"]}),
    "attention_distance_kernel": (attention('''
    dist2 = torch.cdist(Q, K) ** 2
    weights = torch.softmax(-dist2 / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "gaussian_kernel", "where": ["q1"]}),
    "attention_cosine": (attention('''
    weights = F.softmax(F.normalize(Q, dim=-1) @ F.normalize(K, dim=-1).T * 3.0, dim=-1)
    return weights @ V, weights
'''), {"key": "cosine_scores", "where": ["q1"]}),
    "attention_dropout_on": (attention('''
    weights = F.dropout(F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1), p=0.2)
    return weights @ V, weights
'''), {"key": "nondeterministic", "where": ["q1"]}),
    "variance_flag_backwards": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if not scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "scaled_flag_inverted", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    "variance_draws_transposed": (variance('''
    q = torch.randn(d_k, n_samples, generator=generator)
    k = torch.randn(d_k, n_samples, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "randn_shape_swapped", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    "table_float64_draws": (table("q = torch.randn(1, d); k = torch.randn(5, d)",
                                  "q = torch.randn(1, d, dtype=torch.float64); k = torch.randn(5, d, dtype=torch.float64)"),
                            {"key": "draws_in_float64", "where": ["q4:test_entropy_table_lesson",
                                                                  "q4:test_entropy_table_other_dims_and_seed"]}),
    "mha_output_projection_transposed": (mha(MHA_LOOP.replace("torch.cat(heads, dim=1) @ W_O", "torch.cat(heads, dim=1) @ W_O.T")),
                                         {"key": "mha_weight_transposed", "where": ["q8"]}),
    "mha_softmax_default_dim": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q, k, v = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))
    w = F.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k))
    return (w @ v).transpose(0, 1).reshape(T, d_model) @ W_O
'''), {"key": "mha_softmax_over_heads", "where": ["q8"]}),
})

# Issue 21, generalisation round: one wrong variant for each kind blind2 showed unnamed, and inline
# multi-head attentions making q1's mistakes (q8 now tries the whole attention family per head)
MHA_INLINE = '''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q, k, v = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))   # (h, T, d_k)
    s = q @ k.transpose(1, 2) / math.sqrt(d_k)
    w = torch.softmax(s, dim=-1)
    o = w @ v
    return o.transpose(0, 1).reshape(T, d_model) @ W_O
'''


def mha_inline(old: str, new: str) -> dict:
    assert old in MHA_INLINE, old
    return mha(MHA_INLINE.replace(old, new))


WRONG.update({
    "entropy_log_softmax_no_dim": (entropy('''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits)
    return -(log_p.exp() * log_p).sum(dim=-1)
'''), {"key": "softmax_implicit_dim", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_views"]}),
    "table_uniform_draws": (table("q = torch.randn(1, d); k = torch.randn(5, d)",
                                  "q = torch.rand(1, d); k = torch.rand(5, d)"),
                            {"key": "uniform_samples", "where": ["q4:test_entropy_table_lesson",
                                                                 "q4:test_entropy_table_other_dims_and_seed"]}),
    "mha_rows_for_columns": (mha(MHA_LOOP.replace("Q[:, cols], K[:, cols], V[:, cols]", "Q[cols], K[cols], V[cols]")),
                             {"key": "mha_head_rows_sliced", "where": ["q8"]}),
    "mha_true_division_slices": (mha(MHA_LOOP.replace("d_k = d_model // n_heads", "d_k = d_model / n_heads")),
                                 {"key": "mha_head_size_float", "where": ["q8"]}),
    "mha_true_division_view": (mha_inline("d_k = d_model // n_heads", "d_k = d_model / n_heads"),
                               {"key": "mha_head_size_float", "where": ["q8"]}),
    "mha_heads_on_x": (mha_inline("(X @ W).view", "X.view"),
                       {"key": "mha_no_input_projections", "where": ["q8"]}),
    "mha_inline_scale_after_softmax": (mha_inline("w = torch.softmax(s, dim=-1)",
                                                  "w = torch.softmax(s * math.sqrt(d_k), dim=-1) / math.sqrt(d_k)"),
                                       {"key": "scale_after_softmax", "where": ["q8"]}),
    "mha_inline_sigmoid": (mha_inline("w = torch.softmax(s, dim=-1)",
                                      "w = torch.sigmoid(s); w = w / w.sum(-1, keepdim=True)"),
                           {"key": "sigmoid_weights", "where": ["q8"]}),
    "mha_inline_times_sqrt": (mha_inline("s = q @ k.transpose(1, 2) / math.sqrt(d_k)",
                                         "s = q @ k.transpose(1, 2) * math.sqrt(d_k)"),
                              {"key": "multiply_by_sqrt_dk", "where": ["q8"]}),
    "mha_inline_weights_transposed": (mha_inline("o = w @ v", "o = w.transpose(1, 2) @ v"),
                                      {"key": "output_uses_weights_transposed", "where": ["q8"]}),
    "mha_inline_log_softmax": (mha_inline("w = torch.softmax(s, dim=-1)", "w = torch.log_softmax(s, dim=-1)"),
                               {"key": "log_softmax_weights", "where": ["q8"]}),
})


# Issue 21, third round: a reduction over any other axis than the last (reference.entropy_variants)
WRONG.update({
    "entropy_sum_dim0_softmax_last": (entropy('''
def softmax_entropy(logits):
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=0)
'''), {"key": "entropy_wrong_dim", "where": ["q4"]}),
})


# Issue 21, fourth round: heads stacked as rows (torch.cat's default dim=0), the input split before projecting
MHA_INPUT_SPLIT_INLINE = '''
    T, d_model = X.shape
    d_k = d_model // n_heads
    x = X.view(T, n_heads, d_k).transpose(0, 1)                                           # (h, T, d_k)
    q, k, v = (x @ torch.stack([W[i * d_k:(i + 1) * d_k, i * d_k:(i + 1) * d_k] for i in range(n_heads)])
               for W in (W_Q, W_K, W_V))                                                 # diagonal blocks
    w = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    return (w @ v).transpose(0, 1).reshape(T, d_model) @ W_O
'''
WRONG.update({
    "mha_cat_default_dim": (mha(MHA_LOOP.replace("torch.cat(heads, dim=1)", "torch.cat(heads)")),
                            {"key": "mha_heads_concatenated_as_rows", "where": ["q8"]}),
    "mha_inline_heads_flattened_as_rows": (mha_inline("o.transpose(0, 1).reshape(T, d_model) @ W_O",
                                                      "o.reshape(-1, d_k) @ W_O"),
                                           {"key": "mha_heads_concatenated_as_rows", "where": ["q8"]}),
    "mha_loop_input_slices": (mha(MHA_LOOP.replace(
        "out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)",
        "x_h = X[:, cols]\n        out_h, _ = attention(x_h @ W_Q[cols, cols], x_h @ W_K[cols, cols], "
        "x_h @ W_V[cols, cols], d_k)")),
        {"key": "mha_input_split_before_projection", "where": ["q8"]}),
    "mha_inline_input_slices": (mha(MHA_INPUT_SPLIT_INLINE),
                                {"key": "mha_input_split_before_projection", "where": ["q8"]}),
})

# Issue 21, fourth round: a `return` missing on one path (the other flag value returns the right estimate)
WRONG.update({
    "variance_scaled_branch_no_return": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
        result = dots.var().item()
    else:
        return dots.var().item()
'''), {"key": "return_missing_on_path", "where": ["q2:test_scaled_variance_is_one"]}),
    "variance_unscaled_path_no_return": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        return (dots / d_k ** 0.5).var().item()
    v = dots.var().item()
'''), {"key": "return_missing_on_path", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_draws_from_generator"]}),
})

# Issue 21, fourth round: container kinds and swapped fields in the table
TABLE_COLUMNS = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    cols = {key: [] for key in ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")}
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        for key, value in zip(cols, (d, raw.std().item(), scaled.std().item(), softmax_entropy(raw).item(),
                                     softmax_entropy(scaled).item())):
            cols[key].append(value)
    return cols
'''
WRONG.update({
    "table_stds_swapped": (table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                                 '"raw_std": scaled.std().item(), "scaled_std": raw.std().item()'),
                           {"key": "table_fields_swapped", "where": ["q4:test_entropy_table_lesson",
                                                                     "q4:test_entropy_table_other_dims_and_seed"]}),
    "table_entropies_swapped": (table('"H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()',
                                      '"H_raw": softmax_entropy(scaled).item(), "H_scaled": softmax_entropy(raw).item()'),
                                {"key": "table_fields_swapped", "where": ["q4:test_entropy_table_lesson",
                                                                          "q4:test_entropy_table_other_dims_and_seed"]}),
    "table_columns_dict": ({"softmax_entropy": ENTROPY + TABLE_COLUMNS},
                           {"key": "table_dict_of_lists", "where": ["q4:test_entropy_table_lesson",
                                                                    "q4:test_entropy_table_other_dims_and_seed"]}),
})

# Issue 21, fourth round: a row sum without keepdim after a max-subtracted exp (wrong when square, a crash
# otherwise: named from the same call cut to as many queries as keys)
WRONG.update({
    "attention_stable_sum_no_keepdim": (attention('''
    s = Q @ K.T / math.sqrt(d_k)
    e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
    weights = e / e.sum(dim=-1)
    return weights @ V, weights
'''), {"key": "keepdim_missing", "where": ["q1", "q8"]}),
    "attention_stable_both_no_keepdim": (attention('''
    s = Q @ K.transpose(-2, -1) / d_k ** 0.5
    e = (s - s.amax(-1)).exp()
    weights = e / e.sum(-1)
    return weights @ V, weights
'''), {"key": "keepdim_missing", "where": ["q1", "q8"]}),
})

# Issue 21, fifth round: kinds named from a property of the answer, each in other forms than blind4's
WRONG.update({
    # weights that, each row divided by its own sum, are the softmax: a numerator never divided
    "attention_exp_minus_global_max": (attention('''
    s = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.exp(s - s.max())
    return weights @ V, weights
'''), {"key": "weights_not_normalised", "where": ["q1", "q8"]}),
    "attention_exp_minus_row_mean": (attention('''
    s = torch.einsum("qd,kd->qk", Q, K) * d_k ** -0.5
    weights = (s - s.mean(dim=1, keepdim=True)).exp()
    return weights @ V, weights
'''), {"key": "weights_not_normalised", "where": ["q1", "q8"]}),
    # one sum over the whole matrix, the maximum subtracted first
    "attention_stable_whole_matrix": (attention('''
    s = Q @ K.T / math.sqrt(d_k)
    e = torch.exp(s - s.max())
    weights = e / e.sum()
    return weights @ V, weights
'''), {"key": "softmax_whole_matrix", "where": ["q1", "q8"]}),
    # right values in float64 for float32 input
    "attention_softmax_in_float64": (attention('''
    weights = torch.softmax((Q @ K.T).double() / math.sqrt(d_k), dim=-1)
    return weights @ V.double(), weights
'''), {"key": "dtype_changed", "where": ["q1:test_float32_square", "q1:test_weight_rows_sum_to_one",
                                        "q1:test_noncontiguous_inputs", "q1:test_broadcast_inputs"]}),
    "entropy_returned_as_float64": (entropy('''
def softmax_entropy(logits):
    log_p = torch.log_softmax(logits, dim=-1)
    return (-(log_p.exp() * log_p).sum(dim=-1)).to(torch.float64)
'''), {"key": "dtype_changed", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                        "q4:test_entropy_views"]}),
    # (k @ q.T)[0] written with matmul: one key's score where the query's five belong; (q @ k.T)[:, 0] keeps the
    # same one score, so the table cannot prove K Q^T: generic, saying one score per d (naming22)
    "table_matmul_keys_first": (table("raw = (q @ k.T)[0]", "raw = torch.matmul(k, q.t())[0, :]"),
                                {"key": None, "where": ["q4:test_entropy_table_lesson",
                                                                       "q4:test_entropy_table_other_dims_and_seed"]}),
    # enumerate's index recorded as d (the values computed with the right d)
    "table_enumerate_index_as_d": ({"softmax_entropy": ENTROPY + TABLE.replace(
        "    for d in dims:\n", "    for i, d in enumerate(dims):\n").replace('{"d": d,', '{"d": i,')},
        {"key": "loop_index_as_d", "where": ["q4:test_entropy_table_lesson", "q4:test_entropy_table_other_dims_and_seed"]}),
    # a head left out of the loop: the first one
    "mha_range_skips_head_0": (mha(MHA_LOOP.replace("for h in range(n_heads):", "for h in range(1, n_heads):")),
                               {"key": "mha_heads_missing", "where": ["q8"]}),
    # a slice that never moves with the head: the keys' first block, the values' last block
    "mha_key_slice_fixed": (mha(MHA_LOOP.replace("K[:, cols]", "K[:, :d_k]")),
                            {"key": "mha_head_slice_fixed", "where": ["q8"]}),
    "mha_value_slice_last": (mha(MHA_LOOP.replace("V[:, cols]", "V[:, -d_k:]")),
                             {"key": "mha_head_slice_fixed", "where": ["q8"]}),
    # heads put in front of the list: concatenated in reverse order
    "mha_heads_inserted_first": (mha(MHA_LOOP.replace("heads.append(out_h)", "heads.insert(0, out_h)")),
                                 {"key": "mha_heads_reordered", "where": ["q8"]}),
})

# Issue 21, sixth round: other instances of the kinds the fifth blind set showed (entropy of the raw scores,
# a statistic of the sample mean, a std column squared, rows re-seeded, an option's number, heads interleaved)
WRONG.update({
    # the scores used as probabilities, clamped so that nothing is NaN: named from the probe's non-negative row
    "entropy_of_clamped_scores": (entropy('''
def softmax_entropy(logits):
    return -(logits * torch.log(logits.clamp(min=1e-12))).sum(dim=-1)
'''), {"key": "entropy_of_raw_scores", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                                "q4:test_entropy_views"]}),
    # no epsilon at all: NaN for negative scores, and the probe's row of negative scores is NaN too
    "entropy_of_scores_no_eps": (entropy('''
def softmax_entropy(logits):
    p = logits
    return -(p * p.log()).sum(-1)
'''), {"key": "entropy_of_raw_scores", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                                "q4:test_entropy_views"]}),
    # the standard error of the mean, std / sqrt(n)
    "variance_standard_error": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1) / (math.sqrt(d_k) if scaled else 1.0)
    return (dots.std() / math.sqrt(n_samples)).item()
'''), {"key": "variance_of_the_mean", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    # var / (n - 1): divided by the count once more
    "variance_divided_by_n_minus_1": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / d_k ** 0.5
    return float(dots.var() / (n_samples - 1))
'''), {"key": "variance_of_the_mean", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    # the scaled column holds a variance
    "table_scaled_std_as_var": (table('"scaled_std": scaled.std().item()', '"scaled_std": torch.var(scaled).item()'),
                                {"key": "table_variance_as_std", "where": ["q4:test_entropy_table_lesson",
                                                                           "q4:test_entropy_table_other_dims_and_seed"]}),
    # re-seeded with seed + the row's position
    "table_seed_plus_position": ({"softmax_entropy": ENTROPY + TABLE.replace(
        "    for d in dims:\n        torch.manual_seed(seed)\n",
        "    for i, d in enumerate(dims):\n        torch.manual_seed(seed + i)\n")},
        {"key": "table_reseeded_per_row", "where": ["q4:test_entropy_table_lesson",
                                                    "q4:test_entropy_table_other_dims_and_seed"]}),
    # re-seeded with seed + d + 1
    "table_seed_plus_d_plus_1": (table("torch.manual_seed(seed)", "torch.manual_seed(seed + d + 1)"),
                                 {"key": "table_reseeded_per_row", "where": ["q4:test_entropy_table_lesson",
                                                                             "q4:test_entropy_table_other_dims_and_seed"]}),
    # the option's number: 1 for "A" (right letter, wrong form), "4" as a string for "D"
    "q6_answer_number_one": ({"q6_answer": "q6_answer = 1\n"}, {"key": "answer_option_number", "where": ["q6"]}),
    "q7_answer_digit_string": ({"q7_answer": 'q7_answer = "4"\n'}, {"key": "answer_option_number", "where": ["q7"]}),
    # heads stacked on a new last axis, then flattened: columns interleaved head by head
    "mha_stack_last_flatten": (mha(MHA_LOOP.replace("return torch.cat(heads, dim=1) @ W_O",
                                                    "return torch.stack(heads, dim=-1).flatten(1) @ W_O")),
                               {"key": "mha_heads_interleaved", "where": ["q8"]}),
    # the concatenation viewed as (T, d_k, n_heads) and transposed: another column order
    "mha_merge_view_transposed": (mha(MHA_LOOP.replace(
        "return torch.cat(heads, dim=1) @ W_O",
        "T = X.shape[0]\n    merged = torch.cat(heads, dim=1).view(T, d_k, n_heads).transpose(1, 2).reshape(T, d_model)\n"
        "    return merged @ W_O")), {"key": "mha_heads_interleaved", "where": ["q8"]}),
})

# issue 21, naming7: other instances of the kinds built from blind6's misses
WRONG.update({
    # the softmax taken in float64 "for stability", the weights never cast back: float32 V @ float64 weights raise
    "softmax_in_float64_crash": (attention('''
    weights = F.softmax((Q @ K.T / math.sqrt(d_k)).to(torch.float64), dim=-1)
    return weights @ V, weights
'''), {"key": "dtype_changed", "where": ["q1"]}),
    # the output handed back as a NumPy array (the weights stay a tensor)
    "output_as_numpy": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return (weights @ V).detach().numpy(), weights
'''), {"key": "returns_numpy_not_tensor", "where": ["q1"]}),
    # every query against every key, n^2 dependent dot products, summed in closed form without the n x n matrix
    # (sum of squares = trace(q^T q k^T k), sum = (sum q).(sum k)): the same mistake as an einsum over all
    # pairs, which cost 9 core-seconds a grade at n = 10000 and ran past the notebook's 30 s cell limit on a
    # loaded machine; variance_paired_from_the_diagonal keeps an n^2 student in the set
    "variance_all_pairs_closed_form": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float64)
    m = n_samples * n_samples
    total = q.sum(0) @ k.sum(0)
    squares = ((q.T @ q) * (k.T @ k)).sum()
    var = (squares - total**2 / m) / (m - 1)
    return (var / d_k if scaled else var).item()
'''), {"key": "variance_over_all_pairs", "where": ["q2:test_draws_from_generator"]}),
    # the table's key typed "h_scaled"
    "table_key_h_scaled": (table('"H_scaled": softmax_entropy', '"h_scaled": softmax_entropy'),
                           {"key": "table_key_misspelled", "where": ["q4:test_entropy_table_lesson",
                                                                    "q4:test_entropy_table_other_dims_and_seed"]}),
    # the table's scores divided by the number of keys itself, 5
    "table_scaled_by_five": (table("scaled = raw / d**0.5", "scaled = raw / raw.numel()"),
                             {"key": "wrong_scale_constant", "where": ["q4:test_entropy_table_lesson",
                                                                       "q4:test_entropy_table_other_dims_and_seed"]}),
    # the table's scores divided by the square root of their own length
    "table_scaled_by_sqrt_len": (table("scaled = raw / d**0.5", "scaled = raw / len(raw) ** 0.5"),
                                 {"key": "scale_by_T", "where": ["q4:test_entropy_table_lesson",
                                                                 "q4:test_entropy_table_other_dims_and_seed"]}),
    # the formula of option B written out: the standard deviation chosen
    "q5_answer_formula_sqrt": ({"q5_answer": 'q5_answer = "sqrt(d_k)"\n'}, {"key": "variance_vs_std", "where": ["q5"]}),
    # the right option's sentence copied instead of its letter
    "q6_answer_sentence": ({"q6_answer": 'q6_answer = "A weighted average of all the rows of X"\n'},
                           {"key": "answer_option_text", "where": ["q6"]}),
    # the heads averaged into one (T, d_k) block, multiplied by W_O's first d_k rows
    "mha_heads_mean_first_rows": (mha(MHA_LOOP.replace("return torch.cat(heads, dim=1) @ W_O",
                                                       "return torch.stack(heads).mean(dim=0) @ W_O[:d_k]")),
                                  {"key": "mha_heads_summed", "where": ["q8"]}),
    # one summed attention map (every head's weights added) applied to each head's values
    "mha_maps_summed_per_head": (mha('''
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    maps = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, :d_k], d_k)[1]
            for h in range(n_heads)]
    A = sum(maps)
    return torch.cat([A @ V[:, h * d_k:(h + 1) * d_k] for h in range(n_heads)], dim=1) @ W_O
'''), {"key": "mha_attention_maps_averaged", "where": ["q8"]}),
})

CORRECT.update({
    # every q_i . k_j computed, only the paired ones (the diagonal) kept: right, and not variance_over_all_pairs
    "variance_paired_from_the_diagonal": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q @ k.T).diagonal() / (math.sqrt(d_k) if scaled else 1.0)
    return dots.var().item()
'''),
})

# --- issue 21, fourth round (naming8): other instances of the kinds built from blind7's misses ------------------
WRONG.update({
    # two letters joined by a slash: a hedge, whatever the letters
    "q5_answer_hedged_slash": ({"q5_answer": 'q5_answer = "B/C"\n'}, {"key": "answer_hedged", "where": ["q5"]}),
    # the right letter in a one-element tuple
    "q6_answer_in_a_tuple": ({"q6_answer": 'q6_answer = ("A",)\n'}, {"key": "answer_in_container", "where": ["q6"]}),
    # the variance divided by n_samples (the variance of the mean) for scaled=True: the same ratio as sqrt(n) on q.k
    "variance_scaled_divided_by_n": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    v = (q * k).sum(-1).var().item()
    return v / n_samples if scaled else v
'''), {"key": "variance_scaled_by_sample_count", "where": ["q2"]}),
    # float() instead of .item(): the same one-number reduction, another message (only one element tensors ...)
    "entropy_float_of_rows": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return float(-(p * torch.log(p + 1e-9)).sum(dim=-1))
'''), {"key": "entropy_item", "where": ["q4"]}),
    # the table's probabilities by .softmax(-1) handed to softmax_entropy, which takes logits
    "table_probabilities_to_entropy": (table(
        '"H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()',
        '"H_raw": softmax_entropy(raw.softmax(-1)).item(), "H_scaled": softmax_entropy(scaled.softmax(-1)).item()'),
        {"key": "softmax_applied_twice", "where": ["q4"]}),
    # the residual added before the output projection
    "mha_residual_before_w_o": (mha(MHA_LOOP.replace("return torch.cat(heads, dim=1) @ W_O",
                                                     "return (torch.cat(heads, dim=1) + X) @ W_O")),
                                {"key": "mha_residual_added", "where": ["q8"]}),
    # K overwritten by its head slice in the loop: head 1 scores against an empty (T, 0) K
    "mha_k_overwritten_in_loop": (mha(MHA_LOOP.replace(
        "        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)",
        "        K = K[:, cols]\n        out_h, _ = attention(Q[:, cols], K, V[:, cols], d_k)")),
        {"key": "mha_head_slice_overwrites", "where": ["q8"]}),
    # a list comprehension that keeps the second element of each pair: the weights
    "mha_heads_are_weights_comprehension": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[1]
             for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O
'''), {"key": "mha_heads_weights_concatenated", "where": ["q8"]}),
})


# issue 21, naming9: other instances of blind8's kinds (negated scores, rounding, the student's own assert on the
# total weight, dot products averaged, a misnamed answer, keys and values swapped in the heads, head width from T)
WRONG.update({
    # the minus sign in the scores line, not the softmax's argument
    "attention_scores_negated_in_place": (attention('''
    scores = -(Q @ K.T) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''), {"key": "scores_negated", "where": ["q1", "q8"]}),
    # rounding by hand to 3 decimals
    "attention_weights_rounded_by_hand": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    weights = torch.round(weights * 1000) / 1000
    return weights @ V, weights
'''), {"key": "weights_rounded", "where": ["q1", "q8"]}),
    # the weights right, the output rounded to 2 decimals for the printout
    "attention_output_rounded": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return (weights @ V).round(decimals=2), weights
'''), {"key": "weights_rounded", "where": ["q1", "q8"]}),
    # the total checked with torch.isclose
    "attention_asserts_total_isclose": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    assert torch.isclose(weights.sum(), torch.tensor(1.0, dtype=weights.dtype))
    return weights @ V, weights
'''), {"key": "own_assert_total_weight", "where": ["q1", "q8"]}),
    # the dot products by einsum, then divided by d_k "to normalise"
    "variance_einsum_divided_by_d_k": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k) / d_k
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "dot_averaged_not_summed", "where": ["q2"]}),
    "q7_answer_named_answer_q7": ({"q7_answer": 'answer_q7 = "D"\n'},
                                  {"key": "answer_variable_misnamed", "where": ["q7"]}),
    # batched heads, keys and values swapped in the call
    "mha_batched_keys_values_swapped": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q, k, v = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))
    out, _ = attention(q, v, k, d_k)
    return out.transpose(0, 1).reshape(T, d_model) @ W_O
''', batched_attention=True), {"key": "mha_keys_values_swapped", "where": ["q8"]}),
    # the head width from len(X), the number of tokens
    "mha_head_width_from_len": (mha(MHA_LOOP.replace("d_k = d_model // n_heads", "d_k = len(X) // n_heads")),
                                {"key": "mha_head_width_from_tokens", "where": ["q8"]}),
})

# naming10 (issue 21, sixth round): other instances of the kinds built from blind9's misses
WRONG.update({
    # a hard argmax: the best key's weight 1, every other 0 (top-k with k = 1)
    "attention_hard_argmax_one_hot": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.one_hot(scores.argmax(dim=-1), scores.shape[-1]).to(scores.dtype)
    return weights @ V, weights
'''), {"key": "attention_top_k", "where": ["q1", "q8"]}),
    # top-3 kept by scattering the topk indices into a boolean mask
    "attention_top3_scatter_mask": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    idx = scores.topk(min(3, scores.shape[-1]), dim=-1).indices
    keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
    weights = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
    return weights @ V, weights
'''), {"key": "attention_top_k", "where": ["q1", "q8"]}),
    # (d_k, n_samples) drawn in float64 "for precision", each row summed
    "variance_swapped_shape_float64": (variance('''
    q = torch.randn(d_k, n_samples, generator=generator, dtype=torch.float64)
    k = torch.randn(d_k, n_samples, generator=generator, dtype=torch.float64)
    dots = torch.einsum("dn,dn->d", q, k)
    return (dots / (math.sqrt(d_k) if scaled else 1.0)).var().item()
'''), {"key": "randn_shape_swapped", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    # the guard on the factor: p clamped away from 0 outside the log
    "entropy_clamp_outside_log": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    return -(p.clamp(min=1e-12) * p.log()).sum(dim=-1)
'''), {"key": "entropy_epsilon_outside_log", "where": ["q4:test_entropy_saturated_rows"]}),
    # H_scaled from the raw scores: the line above copied
    "table_h_scaled_copied": (table('"H_scaled": softmax_entropy(scaled).item()',
                                    '"H_scaled": softmax_entropy(raw).item()'),
                              {"key": "table_field_copied", "where": ["q4"]}),
    # reshape(T, d_k, n_heads): the two sizes swapped, d_k heads of width n_heads
    "mha_reshape_sizes_swapped": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q, k, v = ((X @ W).reshape(T, d_k, n_heads).transpose(0, 1) for W in (W_Q, W_K, W_V))
    out, _ = attention(q, k, v, d_k)
    return out.transpose(0, 1).reshape(T, d_model) @ W_O
''', batched_attention=True), {"key": "mha_split_by_head_count", "where": ["q8"]}),
    # chunk() given d_k (it takes the count), each head scaled by its own width
    "mha_chunk_by_head_width": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = [attention(q, k, v, q.shape[-1])[0] for q, k, v in zip(Q.chunk(d_k, 1), K.chunk(d_k, 1), V.chunk(d_k, 1))]
    return torch.cat(outs, dim=1) @ W_O
'''), {"key": "mha_split_by_head_count", "where": ["q8"]}),
    # a head width hard-coded from a small example
    "mha_head_width_hard_coded": (mha(MHA_LOOP.replace("d_k = d_model // n_heads", "d_k = 2  # head size")),
                                  {"key": "mha_head_width_constant", "where": ["q8"]}),
})


# issue 21, seventh round (naming11): other instances of blind10's kinds
WRONG.update({
    # the default flipped another way: scaled=None read as truthy-by-default "unless told otherwise"
    "variance_default_scaled_none": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=None):
    if scaled is None:
        scaled = True          # "scaled attention is the default"
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''}, {"key": "default_argument_wrong", "where": ["q2:test_unscaled_variance_is_d_k"]}),
    # the generator given to torch.rand-based Box-Muller positionally, as a shape tuple's neighbour
    "variance_generator_positional_tuple": (variance('''
    q = torch.randn((n_samples, d_k), generator)
    k = torch.randn((n_samples, d_k), generator)
    dots = (q * k).sum(dim=1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''), {"key": "generator_positional", "where": ["q2"]}),
    # log1p on the clamped probabilities, summed with keepdim dropped
    "entropy_log1p_clamped": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1).clamp(min=1e-12)
    return -torch.sum(p * p.log1p(), dim=-1)
'''), {"key": "entropy_log1p", "where": ["q4"]}),
    # one softmax over the whole tensor via reshape(-1)
    "entropy_reshape_minus_one": (entropy('''
def softmax_entropy(logits):
    log_p = torch.log_softmax(logits.reshape(-1), dim=-1)
    return -(log_p.exp() * log_p).sum()
'''), {"key": "entropy_flattened", "where": ["q4"]}),
    # three keys, as in a smaller worked example
    "table_three_keys": (table("k = torch.randn(5, d)", "k = torch.randn(3, d)"),
                         {"key": "table_key_count", "where": ["q4"]}),
    # V kept whole, the heads sliced from Q and K only (a comprehension)
    "mha_values_full_width": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V, d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O
'''), {"key": "mha_values_not_split", "where": ["q8"]}),
    # the scale computed once outside the loop and handed to attention as its d_k
    "mha_scale_passed_for_d_k": (mha(MHA_LOOP.replace(
        "out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)",
        "out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k ** 0.5)")),
        {"key": "mha_d_k_passed_as_sqrt", "where": ["q8"]}),
})


# issue 21, seventh round (naming11): kinds no set had
WRONG.update({
    # the exponentials normalised by one sum over the whole tensor (no dim), the entropy summed per row
    "entropy_normalised_over_everything": (entropy('''
def softmax_entropy(logits):
    e = torch.exp(logits - logits.max())
    p = e / e.sum()
    return -(p * torch.log(p + 1e-12)).sum(dim=-1)
'''), {"key": "entropy_softmax_whole_tensor", "where": ["q4"]}),
    # each head's slice one column short: slice(h * d_k, (h + 1) * d_k - 1), Python's end read as inclusive
    "mha_head_slice_one_short": (mha(MHA_LOOP.replace("cols = slice(h * d_k, (h + 1) * d_k)",
                                                      "cols = slice(h * d_k, (h + 1) * d_k - 1)")),
                                 {"key": "mha_head_slice_short", "where": ["q8"]}),
})


# issue 21, eighth round (naming12): the generator argument unused, in its other forms
WRONG.update({
    # a new torch.Generator made inside (its default seed), the one passed in never read
    "variance_fresh_generator": (variance('''
    g = torch.Generator()
    q = torch.randn(n_samples, d_k, generator=g)
    k = torch.randn(n_samples, d_k, generator=g)
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "ignores_generator", "where": ["q2"]}),
    # numpy's RNG with a fixed seed, float64 draws
    "variance_numpy_rng": (variance('''
    import numpy as np
    rs = np.random.default_rng(42)
    q = rs.standard_normal((n_samples, d_k))
    k = rs.standard_normal((n_samples, d_k))
    dots = (q * k).sum(axis=1)
    if scaled:
        dots = dots / np.sqrt(d_k)
    return float(dots.var(ddof=1))
'''), {"key": "ignores_generator", "where": ["q2"]}),
    # the global RNG seeded from d_k "so that each size has its own stream"
    "variance_global_seed_per_size": (variance('''
    torch.manual_seed(d_k)
    q, k = torch.randn(n_samples, d_k), torch.randn(n_samples, d_k)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / d_k ** 0.5
    return dots.var().item()
'''), {"key": "ignores_generator", "where": ["q2"]}),
    # the generator passed in re-seeded inside, then drawn from (the sandbox's copy of the generator cannot
    # show it apart from one never used; the key's text names both)
    "variance_generator_reseeded": (variance('''
    generator.manual_seed(1234)
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "ignores_generator", "where": ["q2"]}),
    # every head multiplied by the same (second) block of W_O's rows and the products added
    "mha_every_head_second_block": (mha(MHA_LOOP.replace(
        "return torch.cat(heads, dim=1) @ W_O",
        "return sum(o @ W_O[d_k:2 * d_k] for o in heads)")), {"key": "mha_heads_summed", "where": ["q8"]}),
    # a new kind: each head through only its diagonal block of W_O, the products concatenated
    "mha_output_projection_blockwise": (mha(MHA_LOOP.replace(
        "heads.append(out_h)", "heads.append(out_h @ W_O[cols, cols])").replace(
        "return torch.cat(heads, dim=1) @ W_O", "return torch.cat(heads, dim=1)")),
        {"key": "mha_output_projection_per_head", "where": ["q8"]}),
    # a new kind: the concatenated heads "averaged" by dividing by their count
    "mha_concat_divided_by_head_count": (mha(MHA_LOOP.replace(
        "return torch.cat(heads, dim=1) @ W_O", "return (torch.cat(heads, dim=1) / n_heads) @ W_O")),
        {"key": "mha_output_divided_by_heads", "where": ["q8"]}),
    # a new kind: the transformer block's residual and layer norm taken into the attention
    "mha_residual_layer_norm": (mha(MHA_LOOP.replace(
        "return torch.cat(heads, dim=1) @ W_O", "return F.layer_norm(X + torch.cat(heads, dim=1) @ W_O, (d_model,))")),
        {"key": "mha_layer_norm_added", "where": ["q8"]}),
    # the kind of blind12's q8_one_projection_for_qkv: one projection matrix reused for another role
    "mha_value_projection_from_w_q": (mha(MHA_LOOP.replace("X @ W_V", "X @ W_Q")),
                                      {"key": "same_projection", "where": ["q8"]}),
    "mha_all_from_w_k": (mha(MHA_LOOP.replace("X @ W_Q, X @ W_K, X @ W_V", "X @ W_K, X @ W_K, X @ W_K")),
                         {"key": "same_projection", "where": ["q8"]}),
})

# naming14: other instances of blind13's kinds
WRONG.update({
    # a softmax with one step along the wrong axis: the row's max subtracted, the sum taken down each column
    "softmax_rows_shifted_columns_summed": (attention('''
    S = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    e = torch.exp(S - S.max(dim=-1, keepdim=True).values)
    weights = e / e.sum(dim=0, keepdim=True)
    return weights @ V, weights
'''), {"key": "softmax_sum_wrong_axis", "where": ["q1", "q8"]}),
    # operator precedence in the variance: sum / n - 1 with the deviations summed by torch.sum
    "variance_numel_minus_one": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1) / (math.sqrt(d_k) if scaled else 1.0)
    return (torch.sum((dots - dots.mean()) ** 2) / dots.numel() - 1).item()
'''), {"key": "variance_precedence", "where": ["q2"]}),
    # heads split as (n_heads, d_k, T) and the scale read from the split's last axis (T, not d_k)
    "mha_view_permute_features_scale_from_shape": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).view(T, n_heads, d_k).permute(1, 2, 0)
    Kh = (X @ W_K).view(T, n_heads, d_k).permute(1, 2, 0)
    Vh = (X @ W_V).view(T, n_heads, d_k).permute(1, 2, 0)
    outs = [attention(Qh[h], Kh[h], Vh[h], Qh.shape[-1])[0] for h in range(n_heads)]
    return torch.stack(outs).permute(2, 0, 1).reshape(T, d_model) @ W_O
'''), {"key": "mha_heads_features_as_tokens", "where": ["q8"]}),
    # the letter in quotes inside the string
    "q6_answer_quoted_letter": ({"q6_answer": "q6_answer = \"'A'\""}, {"key": "answer_extra_characters", "where": ["q6"]}),
})

# naming15: other instances of blind14's kinds
WRONG.update({
    # the weighted value rows built with einsum and averaged over the keys: the output divided by T_k
    "attention_einsum_values_mean": (attention('''
    weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return torch.einsum("qk,kd->qkd", weights, V).mean(dim=1), weights
'''), {"key": "values_averaged_over_keys", "where": ["q1"]}),
    # the cosine similarity written by hand (the dot product over the two norms)
    "variance_cosine_by_hand": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1) / (q.norm(dim=-1) * k.norm(dim=-1))
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "dots_cosine_similarity", "where": ["q2"]}),
})

# naming17: blind15's q2_item_not_called, a function or method object returned where a value is due
WRONG.update({
    # the variance's tensor method handed back without the () that call it
    "variance_var_method_returned": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k) / (math.sqrt(d_k) if scaled else 1.0)
    return dots.var
'''), {"key": "callable_not_called", "where": ["q2"]}),
    # one field of the entropy table holds .item itself, not the number
    "table_raw_std_item_uncalled": (table('"raw_std": raw.std().item()', '"raw_std": raw.std().item'),
                                    {"key": "callable_not_called", "where": ["q4"]}),
    # the output of multi-head attention passed through .contiguous without calling it
    "mha_contiguous_uncalled": (mha(MHA_LOOP.replace(
        "return torch.cat(heads, dim=1) @ W_O", "return (torch.cat(heads, dim=1) @ W_O).contiguous")),
        {"key": "callable_not_called", "where": ["q8"]}),
})
CORRECT.update({
    # a bound method kept in a name and called later, and a partial of softmax: callables held, results returned
    "variance_bound_method_called_later": variance('''
    import functools
    draw = functools.partial(torch.randn, n_samples, d_k, generator=generator)
    q, k = draw(), draw()
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    statistic = dots.var
    return getattr(statistic(), "item")()
'''),
})

# naming17: blind13's q4_table_keyed_by_d, the table returned as a dict keyed by d (the sandbox's refusal lists
# the keys: exactly the dims passed, in order)
WRONG.update({
    # a dict comprehension over the dims, each row built by a helper
    "table_dict_comprehension_by_d": ({"softmax_entropy": ENTROPY + '''

def _row(d, seed):
    torch.manual_seed(seed)
    q, k = torch.randn(1, d), torch.randn(5, d)
    raw = (q @ k.T)[0]
    scaled = raw / math.sqrt(d)
    return {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    return {d: _row(d, seed) for d in dims}
'''}, {"key": "table_keyed_by_d", "where": ["q4"]}),
    # the rows collected in a list, then returned zipped with the dims into a dict
    "table_zipped_into_dict_by_d": (table("    return results", "    return dict(zip(dims, results))"),
                                    {"key": "table_keyed_by_d", "where": ["q4"]}),
})
CORRECT.update({
    # the rows kept keyed by d while they are built, the list asked for returned in the order of dims
    "table_built_by_d_returned_as_list": ({"softmax_entropy": ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    by_d = {}
    for d in sorted(dims, reverse=True):
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        by_d[d] = dict(d=d, raw_std=raw.std().item(), scaled_std=(raw / d ** 0.5).std().item(),
                       H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(raw / d ** 0.5).item())
    return [by_d[d] for d in dims]
'''}),
})

# naming18: blind16's q1_softmax_dim_is_d_k, a size passed where an axis index is expected
WRONG.update({
    # the softmax's dim given as the width of the queries (d_k), in the method form
    "softmax_dim_from_query_width": (attention('''
    scores = (Q @ K.T) / math.sqrt(d_k)
    weights = scores.softmax(dim=Q.size(-1))
    return weights @ V, weights
'''), {"key": "size_as_dim", "where": ["q1", "q8"]}),
    # a hand softmax whose max and sum are taken over d_k
    "hand_softmax_reduced_over_d_k": (attention('''
    scores = torch.matmul(Q, K.transpose(0, 1)) * d_k ** -0.5
    shifted = scores - scores.amax(d_k, keepdim=True)
    weights = shifted.exp() / shifted.exp().sum(d_k, keepdim=True)
    return weights @ V, weights
'''), {"key": "size_as_dim", "where": ["q1", "q8"]}),
})
CORRECT.update({
    # the axis index computed from the rank, not from a size
    "softmax_dim_from_rank": attention('''
    last_axis = Q.dim() - 1
    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=last_axis)
    return weights @ V, weights
'''),
})

# naming18: blind16's q4_mean_of_minus_log_p, the entropy's -log p terms not weighted by p
WRONG.update({
    # the mean of -log_softmax over the row (the cross-entropy against a uniform row)
    "entropy_mean_of_neg_log_softmax": (entropy('''
def softmax_entropy(logits):
    return F.log_softmax(logits, dim=-1).mul(-1).mean(dim=-1)
'''), {"key": "entropy_unweighted", "where": ["q4"]}),
    # the sum of -log p over the row, p from a hand softmax
    "entropy_sum_of_neg_log_p": (entropy('''
def softmax_entropy(logits):
    e = torch.exp(logits - logits.max(-1, keepdim=True).values)
    p = e / e.sum(-1, keepdim=True)
    return torch.sum(-torch.log(p), dim=-1)
'''), {"key": "entropy_unweighted", "where": ["q4"]}),
})
CORRECT.update({
    # H = logsumexp(x) - sum p x, no log of a probability taken
    "entropy_from_logsumexp": entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, -1)
    return torch.logsumexp(logits, -1) - (p * logits).sum(-1)
'''),
})

# naming18: blind16's q4_table_one_randn_call, q and k sliced from one randn(6, d) draw
WRONG.update({
    # one draw split into q (the first row) and k (the other five)
    "table_one_draw_split": (table("q = torch.randn(1, d); k = torch.randn(5, d)",
                                   "q, k = torch.randn(6, d).split([1, 5])"),
                             {"key": "table_one_draw", "where": ["q4"]}),
    # one draw, the keys its first five rows and q the last
    "table_one_draw_query_last": (table("q = torch.randn(1, d); k = torch.randn(5, d)",
                                        "both = torch.randn(6, d); k, q = both[:5], both[5:]"),
                                  {"key": "table_one_draw", "where": ["q4"]}),
})
CORRECT.update({
    # the same two draws from a generator of its own, seeded as the lesson's
    "table_own_generator": table("torch.manual_seed(seed)\n        q = torch.randn(1, d); k = torch.randn(5, d)",
                                 "g = torch.Generator().manual_seed(seed)\n"
                                 "        q = torch.randn(1, d, generator=g); k = torch.randn(5, d, generator=g)"),
})

# naming18: blind16's q8_row_sums_with_float32_ones, a float32 tensor made inside mixed with float64 input
WRONG.update({
    # batched heads, the softmax's row sums from a default-dtype ones column
    "mha_row_sums_by_ones_matmul": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = ((X @ W).reshape(T, n_heads, d_k).permute(1, 0, 2) for W in (W_Q, W_K, W_V))
    e = torch.exp(Q @ K.transpose(1, 2) / math.sqrt(d_k))
    w = e / (e @ torch.ones(T, 1))
    return (w @ V).permute(1, 0, 2).reshape(T, d_model) @ W_O
'''), {"key": "dtype_changed", "where": ["q8"]}),
    # the input cast to float32 before the projections
    "mha_input_cast_to_float": (mha(MHA_LOOP.replace("Q, K, V = X @ W_Q, X @ W_K, X @ W_V",
                                                     "Xf = X.float()\n    Q, K, V = Xf @ W_Q, Xf @ W_K, Xf @ W_V")),
                                {"key": "dtype_changed", "where": ["q8"]}),
})
CORRECT.update({
    # the row sums by a ones column made in the input's dtype
    "mha_row_sums_by_typed_ones": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    ones = X.new_ones((T, 1))
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        s = (X @ W_Q)[:, cols] @ (X @ W_K)[:, cols].T / math.sqrt(d_k)
        e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
        heads.append((e / (e @ ones)) @ (X @ W_V)[:, cols])
    return torch.cat(heads, dim=1) @ W_O
'''),
})

# naming18: blind16's q1_scores_divided_by_row_sum on a zero query, where the student's own assert stops the call
WRONG.update({
    # rows divided by their sum, checked by an allclose assert (a zero query gives 0 / 0)
    "row_sum_division_with_allclose_assert": (attention('''
    s = torch.mm(Q, K.t()) / d_k ** 0.5
    weights = s / s.sum(dim=1, keepdim=True)
    assert torch.allclose(weights.sum(dim=1), torch.ones(weights.shape[0], dtype=weights.dtype))
    return torch.mm(weights, V), weights
'''), {"key": "scores_normalised_without_exp", "where": ["q1", "q8"]}),
    # rows divided by their sum through a broadcast index, asserted finite (0 / 0 on a zero query is not)
    "row_sum_division_with_finite_assert": (attention('''
    scores = Q @ K.T * (1.0 / math.sqrt(d_k))
    weights = scores / torch.sum(scores, -1)[:, None]
    assert torch.isfinite(weights).all(), "NaN in the attention weights"
    return weights @ V, weights
'''), {"key": "scores_normalised_without_exp", "where": ["q1", "q8"]}),
})
CORRECT.update({
    # a softmax checked by the student's own assert, which holds for every input
    "softmax_with_own_assert": attention('''
    weights = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    assert torch.allclose(weights.sum(-1), torch.ones_like(weights.sum(-1)), atol=1e-5)
    return weights @ V, weights
'''),
})

# naming19: blind17's q1_row_max_namedtuple_subtracted: a (values, indices) pair used as a tensor
WRONG.update({
    # the row minimum's pair subtracted (a shift by the minimum, without .values)
    "row_min_pair_subtracted": (attention('''
    s = Q @ K.T / math.sqrt(d_k)
    e = (s - torch.min(s, -1, keepdim=True)).exp()
    weights = e / e.sum(-1, keepdim=True)
    return weights @ V, weights
'''), {"key": "reduction_tuple_as_tensor", "where": ["q1", "q8"]}),
    # the row maximum's pair unsqueezed as if it were the values
    "row_max_pair_unsqueezed": (attention('''
    s = torch.matmul(Q, K.transpose(0, 1)) / d_k ** 0.5
    m = s.max(1)
    e = torch.exp(s - m.unsqueeze(1))
    weights = e / e.sum(1).unsqueeze(1)
    return weights @ V, weights
'''), {"key": "reduction_tuple_as_tensor", "where": ["q1", "q8"]}),
})
CORRECT.update({
    # the (values, indices) pair unpacked by position, the indices thrown away
    "row_max_pair_indexed": attention('''
    s = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    e = torch.exp(s - torch.max(s, dim=-1, keepdim=True)[0])
    weights = e / torch.sum(e, dim=-1, keepdim=True)
    return weights @ V, weights
'''),
})

# naming19: blind17's q4_entropy_softmax_dtype_float32 (float64 logits, a float32 entropy) and
# q4_entropy_summed_over_dim_ndim (a sum over dim=logits.dim(), one past the last axis)
WRONG.update({
    # the entropy computed in float32 for speed, never cast back
    "entropy_float_for_speed": (entropy('''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits.float(), dim=-1)
    return -(log_p.exp() * log_p).sum(-1)
'''), {"key": "dtype_changed", "where": ["q4:test_entropy_random_logits"]}),
    # the probabilities kept in float32 through an explicit .to
    "entropy_probs_to_float32": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, -1).to(torch.float32)
    return torch.special.entr(p).sum(dim=-1)
'''), {"key": "dtype_changed", "where": ["q4:test_entropy_random_logits"]}),
    # the last axis taken as len(shape)
    "entropy_sum_over_len_shape": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -torch.sum(p * torch.log(p + 1e-9), dim=len(logits.shape))
'''), {"key": "entropy_wrong_dim", "where": ["q4"]}),
    # the log-softmax over dim=ndim
    "entropy_log_softmax_over_ndim": (entropy('''
def softmax_entropy(logits):
    log_p = torch.log_softmax(logits, dim=logits.ndim)
    return -(log_p.exp() * log_p).sum(-1)
'''), {"key": "entropy_wrong_dim", "where": ["q4"]}),
})
CORRECT.update({
    # the entropy as logsumexp minus the expected logit, in the input's dtype
    "entropy_logsumexp_minus_mean_logit": entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=logits.dim() - 1)
    return torch.logsumexp(logits, -1) - (p * logits).sum(-1)
'''),
})

# naming19: blind17's q1_softmax_in_half_precision: the softmax in a 16-bit dtype, cast back
WRONG.update({
    # the scores' softmax in float16 through F.softmax's dtype argument
    "softmax_dtype_argument_float16": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1, dtype=torch.float16).type_as(Q)
    return weights @ V, weights
'''), {"key": "dtype_changed", "where": ["q1", "q8"]}),
    # a stable softmax by hand in bfloat16 (to save memory), cast back
    "softmax_by_hand_in_bfloat16": (attention('''
    s = (Q @ K.transpose(0, 1) / d_k ** 0.5).to(torch.bfloat16)
    weights = torch.softmax(s, -1).to(dtype=Q.dtype)
    return torch.matmul(weights, V), weights
'''), {"key": "dtype_changed", "where": ["q1", "q8"]}),
})
CORRECT.update({
    # the softmax in float64 whatever the input, cast back to the input's dtype (more precise, not less)
    "softmax_in_float64_cast_back": attention('''
    scores = (Q.double() @ K.double().T) / math.sqrt(d_k)
    weights = scores.softmax(-1).to(Q.dtype)
    return weights @ V, weights
'''),
})

# naming19: blind17's q2_var_mean_read_in_wrong_order: the mean returned where the variance is asked
WRONG.update({
    # var_mean's pair unpacked the wrong way round, the result indexed
    "var_mean_second_taken": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k) / (math.sqrt(d_k) if scaled else 1.0)
    return torch.var_mean(dots)[1].item()
'''), {"key": "variance_mean_swapped", "where": ["q2"]}),
    # the mean returned under the name of the variance
    "mean_named_variance": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / d_k ** 0.5
    variance = dots.mean()
    return float(variance)
'''), {"key": "variance_mean_swapped", "where": ["q2"]}),
})
CORRECT.update({
    # var_mean unpacked in its own order
    "var_mean_unpacked_right": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    var, _mean = torch.var_mean((q * k).sum(1) / (math.sqrt(d_k) if scaled else 1))
    return var.item()
'''),
})

# naming20: blind17's q4_log_taken_in_place_on_p: an in-place op overwrites p (or log p) while it is still needed
WRONG.update({
    # exp_ on the log-probabilities: p and log_p one tensor holding p, the result -sum p^2
    "entropy_exp_in_place_on_log_p": (entropy('''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp_()   # reuse the buffer
    return -(p * log_p).sum(dim=-1)
'''), {"key": "inplace_alias_overwritten", "where": ["q4"]}),
    # clamp_ then log_ on the probabilities: p holds ln p, the result -sum (ln p)^2
    "entropy_clamp_log_in_place": (entropy('''
def softmax_entropy(logits):
    p = logits.softmax(-1)
    log_p = p.clamp_(min=1e-10)
    log_p.log_()
    return -torch.sum(p * log_p, -1)
'''), {"key": "inplace_alias_overwritten", "where": ["q4"]}),
})
CORRECT.update({
    # in-place ops only on a copy and on a tensor no longer needed
    "entropy_in_place_on_a_copy": entropy('''
def softmax_entropy(logits):
    p = logits.softmax(-1)
    log_p = p.clone().add_(1e-9).log_()
    return log_p.mul_(p).sum(-1).neg_()
'''),
})

# naming20: blind17's q1_sqrt_of_whole_fraction: the square root taken of the scores instead of d_k alone
WRONG.update({
    # the root of the raw scores, divided by d_k
    "attention_sqrt_of_scores_over_d_k": (attention('''
    scores = (Q @ K.T).sqrt() / d_k
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''), {"key": "sqrt_of_scores", "where": ["q1"]}),
    # a power of one half on the whole fraction
    "attention_half_power_of_fraction": (attention('''
    weights = F.softmax((torch.matmul(Q, K.transpose(0, 1)) / d_k) ** 0.5, dim=1)
    return torch.matmul(weights, V), weights
'''), {"key": "sqrt_of_scores", "where": ["q1"]}),
})
CORRECT.update({
    # the root of d_k taken as a tensor, the scores divided by it
    "attention_sqrt_of_d_k_tensor": attention('''
    root = torch.tensor(float(d_k), dtype=Q.dtype).sqrt()
    weights = (Q @ K.T).div(root).softmax(-1)
    return weights @ V, weights
'''),
})

# naming21: blind18's q1_output_from_transposes: the right output transposed, (d_v, T_q); q8 (right) charges nothing
WRONG.update({
    # the product written the other way round, each factor transposed
    "attention_output_as_vt_wt": (attention('''
    w = torch.softmax(torch.matmul(Q, K.transpose(0, 1)) / math.sqrt(d_k), dim=1)
    return torch.matmul(V.transpose(0, 1), w.transpose(0, 1)), w
'''), {"key": "output_uses_weights_transposed", "where": ["q1"]}),
    # an einsum whose output subscripts are swapped
    "attention_einsum_output_dq": (attention('''
    w = F.softmax(torch.einsum("qd,kd->qk", Q, K) / d_k ** 0.5, dim=-1)
    return torch.einsum("qk,kv->vq", w, V), w
'''), {"key": "output_uses_weights_transposed", "where": ["q1"]}),
})
CORRECT.update({
    # the output built as the transpose of V^T A^T, transposed back
    "attention_output_double_transpose": attention('''
    w = F.softmax(Q @ K.mT * d_k ** -0.5, dim=-1)
    return (V.mT @ w.mT).mT, w
'''),
})

# naming21: blind18's q2_one_draw_chunked_along_samples: one draw split along the samples, proven by a replay
WRONG.update({
    # split by indexing the first half and the second half of the rows
    "variance_one_draw_rows_halved": (variance('''
    both = torch.randn(n_samples, 2 * d_k, generator=generator)
    half = n_samples // 2
    q, k = both[:half], both[half:]
    d = torch.einsum("ij,ij->i", q, k)
    return (d / math.sqrt(d_k) if scaled else d).var().item()
'''), {"key": "draw_split_along_samples", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
    # torch.split with the half size along dim 0, unpacked
    "variance_one_draw_split_dim0": (variance('''
    q, k = torch.split(torch.randn(n_samples, d_k * 2, generator=generator), n_samples // 2)
    s = (q * k).sum(-1)
    if scaled:
        s = s * d_k ** -0.5
    return float(s.var())
'''), {"key": "draw_split_along_samples", "where": ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]}),
})
CORRECT.update({
    # one draw split along the features: q and k are independent (n_samples, d_k) halves
    "variance_one_draw_split_features": variance('''
    q, k = torch.randn(n_samples, 2 * d_k, generator=generator).tensor_split(2, dim=1)
    s = torch.linalg.vecdot(q, k)
    return (s / (math.sqrt(d_k) if scaled else 1.0)).var().item()
'''),
})

# naming21: blind18's q8_buffer_like_w_o: a buffer for the heads shaped like a weight matrix, (d_model, d_model)
WRONG.update({
    # torch.empty_like of a projection weight, filled head by head
    "mha_buffer_empty_like_w_q": (mha('''
    d_k = X.size(1) // n_heads
    q, k, v = X @ W_Q, X @ W_K, X @ W_V
    merged = torch.empty_like(W_Q)
    for h in range(n_heads):
        s = slice(h * d_k, h * d_k + d_k)
        merged[:, s] = attention(q[:, s], k[:, s], v[:, s], d_k)[0]
    return merged @ W_O
'''), {"key": "mha_buffer_like_w_o", "where": ["q8"]}),
    # zeros of W_O's shape, the heads written with index_copy_
    "mha_buffer_zeros_of_w_o_shape": (mha('''
    d_model = W_O.shape[0]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out = torch.zeros(W_O.shape, dtype=X.dtype)
    for h in range(n_heads):
        idx = torch.arange(h * d_k, (h + 1) * d_k)
        out.index_copy_(1, idx, attention(Q[:, idx], K[:, idx], V[:, idx], d_k)[0].expand(d_model, d_k))
    return out @ W_O
'''), {"key": "mha_buffer_like_w_o", "where": ["q8"]}),
})
CORRECT.update({
    # a buffer of the input's shape (T, d_model), made with new_zeros
    "mha_buffer_new_zeros_like_x": mha('''
    d_k = X.shape[-1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    buf = X.new_zeros(X.shape)
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        buf[:, c] = attention(Q[:, c], K[:, c], V[:, c], d_k)[0]
    return buf @ W_O
'''),
})

# naming21: blind18's q2_integer_square_root: the dot products divided by an integer square root of d_k
WRONG.update({
    # int(math.sqrt(d_k)) as the scale, on the summed products
    "variance_int_of_sqrt_scale": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    s = torch.einsum("nd,nd->n", q, k)
    if scaled:
        s = s / int(math.sqrt(d_k))
    return s.var().item()
'''), {"key": "integer_sqrt_scale", "where": ["q2:test_scaled_variance_is_one"]}),
    # floor division of the root, multiplied by its reciprocal
    "variance_floor_sqrt_scale": (variance('''
    q, k = (torch.randn(n_samples, d_k, generator=generator) for _ in range(2))
    dots = (q * k).sum(-1)
    scale = 1.0 / (d_k ** 0.5 // 1) if scaled else 1.0
    return float((dots * scale).var())
'''), {"key": "integer_sqrt_scale", "where": ["q2:test_scaled_variance_is_one"]}),
})
CORRECT.update({
    # the variance of the scaled dots as the unscaled one over d_k: Var(x / c) = Var(x) / c^2
    "variance_scaled_by_division_after": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    v = torch.var((q * k).sum(dim=1)).item()
    return v / d_k if scaled else v
'''),
})

# naming21: blind18's q4_shift_by_global_max: one maximum of the whole tensor subtracted before exp
WRONG.update({
    # torch.max with no dim, the log clamped
    "entropy_shift_by_torch_max": (entropy('''
def softmax_entropy(logits):
    z = logits - torch.max(logits)
    p = torch.exp(z) / torch.exp(z).sum(-1, keepdim=True)
    return -(p * torch.log(p.clamp(min=1e-12))).sum(-1)
'''), {"key": "entropy_exp_overflow", "where": ["q4:test_entropy_saturated_rows"]}),
    # amax over every axis, xlogy for the terms
    "entropy_shift_by_amax_all": (entropy('''
def softmax_entropy(logits):
    e = (logits - logits.amax()).exp()
    p = e / e.sum(dim=-1, keepdim=True)
    return -torch.special.xlogy(p, p).sum(dim=-1)
'''), {"key": "entropy_exp_overflow", "where": ["q4:test_entropy_saturated_rows"]}),
})
CORRECT.update({
    # each row's own maximum, the entropy as log S - sum(e z) / S
    "entropy_row_max_log_sum": entropy('''
def softmax_entropy(logits):
    z = logits - logits.max(-1, keepdim=True)[0]
    e = z.exp()
    S = e.sum(-1)
    return S.log() - (e * z).sum(-1) / S
'''),
})

# naming21: blind18's q4_log_softmax_of_probabilities: the probabilities put through a second (log-)softmax
WRONG.update({
    # log p as p minus its logsumexp: a log-softmax of the probabilities written out
    "entropy_logsumexp_of_probs": (entropy('''
def softmax_entropy(logits):
    p = logits.softmax(-1)
    return -(p * (p - torch.logsumexp(p, -1, keepdim=True))).sum(-1)
'''), {"key": "softmax_applied_twice", "where": ["q4"]}),
    # the entropy of softmax(p)
    "entropy_of_softmax_of_probs": (entropy('''
def softmax_entropy(logits):
    q = F.softmax(F.softmax(logits, dim=-1), dim=-1)
    return -(q * q.log()).sum(dim=-1)
'''), {"key": "softmax_applied_twice", "where": ["q4"]}),
})
CORRECT.update({
    # log p as the logits minus their logsumexp, the weights from it
    "entropy_logits_minus_logsumexp": entropy('''
def softmax_entropy(logits):
    log_p = logits - logits.logsumexp(-1, keepdim=True)
    return torch.einsum("...i,...i->...", log_p.exp(), -log_p)
'''),
})

# naming21: blind18's q8_merge_transpose_1_2_from_4d_code: the (n_heads, T, d_k) stack merged in another axis order
WRONG.update({
    # the stacked heads' last two axes swapped with mT before the flatten
    "mha_merge_mt_of_stack": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = torch.stack([attention(Q[:, i * d_k:(i + 1) * d_k], K[:, i * d_k:(i + 1) * d_k],
                                  V[:, i * d_k:(i + 1) * d_k], d_k)[0] for i in range(n_heads)])
    return outs.mT.contiguous().view(T, d_model) @ W_O
'''), {"key": "mha_heads_interleaved", "where": ["q8"]}),
    # permute(2, 1, 0) of the stack (d_k, T, n_heads), then reshape
    "mha_merge_permute_reversed": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = (M.reshape(T, n_heads, d_k).permute(1, 0, 2) for M in (X @ W_Q, X @ W_K, X @ W_V))
    heads = torch.stack([attention(Q[h], K[h], V[h], d_k)[0] for h in range(n_heads)])
    return heads.permute(2, 1, 0).reshape(T, d_model) @ W_O
'''), {"key": "mha_heads_interleaved", "where": ["q8"]}),
})
CORRECT.update({
    # the stack moved to (T, n_heads, d_k) with movedim, then flattened from dim 1
    "mha_merge_movedim_flatten": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = torch.stack([attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                   V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)])
    return heads.movedim(0, 1).flatten(1) @ W_O
'''),
})
WRONG.update({
    # naming22: one score per d kept by indexing the wrong axis of q @ k.T: generic (no K Q^T proven)
    # one_edit_fix: `(q @ k.T)[0]` in place of `(q @ k.T)[..., 0]` (rejudged)
    "table_scores_last_axis_index": (table("raw = (q @ k.T)[0]", "raw = (q @ k.T)[..., 0]"),
                                     {"key": (None, "one_edit_fix"), "where": ["q4:test_entropy_table_lesson",
                                                             "q4:test_entropy_table_other_dims_and_seed"]}),
    # naming22: the list rebuilt on every pass keeps only the last d's row: generic (not table_ignores_dims)
    # one_edit_fix: leave out `results = []` on the append's line (rejudged)
    "table_list_reset_each_pass": (table("        results.append(", "        results = [];results.append("),
                                   {"key": (None, "one_edit_fix"), "where": ["q4:test_entropy_table_lesson",
                                                           "q4:test_entropy_table_other_dims_and_seed"]}),
    # naming22: the weights summed alone times V (V's rows by the query): output V, a crash when T_q != T_k;
    # softmax(Q Q^T) near the identity must not name keys_are_queries
    "attention_weight_sums_times_values": (attention('''
    weights = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return weights.sum(dim=-1, keepdim=True) * V, weights
'''), {"key": None, "where": ["q1", "q8"]}),
})
CORRECT.update({
    # naming22: the table from a (1, 5) matrix squeezed, the entropies by torch.special.entr, rows as dict(...)
    "table_squeeze_and_entr": {"softmax_entropy": ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    def H(x):
        return torch.special.entr(torch.softmax(x, -1)).sum().item()
    out = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = torch.mm(q, k.t()).squeeze(0)
        scaled = raw * d ** -0.5
        out.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(), H_raw=H(raw), H_scaled=H(scaled)))
    return out
'''},
})
WRONG.update({
    # naming22b: the head width from the paper's head count (a HEADS constant), the weights' columns sliced
    "mha_width_from_heads_constant": (mha('''
    HEADS = 8
    d_k = X.shape[-1] // HEADS
    outs = [attention(X @ W_Q[:, i * d_k:(i + 1) * d_k], X @ W_K[:, i * d_k:(i + 1) * d_k],
                      X @ W_V[:, i * d_k:(i + 1) * d_k], d_k)[0] for i in range(n_heads)]
    return torch.hstack(outs) @ W_O
'''), {"key": "mha_head_width_constant", "where": ["q8"]}),
    # naming22b: split into pieces of d_model // 8 columns, the first n_heads of them used
    "mha_split_width_eighth": (mha('''
    pieces = [M.split(X.shape[1] // 8, dim=-1) for M in (X @ W_Q, X @ W_K, X @ W_V)]
    outs = [attention(pieces[0][h], pieces[1][h], pieces[2][h], pieces[0][h].shape[-1])[0] for h in range(n_heads)]
    return torch.cat(outs, -1) @ W_O
'''), {"key": "mha_head_width_constant", "where": ["q8"]}),
    # naming22b: heads stacked by view + permute and sent at once into the 2-D attention (K.T)
    "mha_permuted_heads_into_2d_attention": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    def heads(W):
        return (X @ W).view(T, n_heads, d_k).permute(1, 0, 2)
    out = attention(heads(W_Q), heads(W_K), heads(W_V), d_k)[0]
    return out.permute(1, 0, 2).reshape(T, -1) @ W_O
'''), {"key": "fixed_axes", "where": ["q8"]}),
    # naming22b: heads stacked from chunks, one call of the 2-D attention, merged by unbind
    "mha_stacked_chunks_into_2d_attention": (mha('''
    Q, K, V = (torch.stack((X @ W).chunk(n_heads, dim=1)) for W in (W_Q, W_K, W_V))
    out, _ = attention(Q, K, V, Q.shape[-1])
    return torch.cat(out.unbind(0), dim=1) @ W_O
'''), {"key": "fixed_axes", "where": ["q8"]}),
    # naming22b: the row sums lined up by reversing every axis (works for 1-D and 2-D logits only)
    "entropy_transposed_division_split": (entropy('''
def softmax_entropy(logits):
    z = logits - logits.max(-1, keepdim=True).values
    p = torch.exp(z).T / torch.exp(z).sum(-1)
    p = p.T
    return (-p * p.clamp_min(1e-12).log()).sum(-1)
'''), {"key": "fixed_axes", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_views"]}),
    # naming22b: the first and last axes swapped around the division: the same trick, the same 2-D limit
    "entropy_swap_first_last_axis": (entropy('''
def softmax_entropy(logits):
    e = torch.exp(logits - logits.amax(dim=-1, keepdim=True))
    p = (e.transpose(0, -1) / e.sum(-1)).transpose(0, -1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''), {"key": "fixed_axes", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_views"]}),
})
CORRECT.update({
    # naming22b: heads by tensor_split into n_heads sections, merged by column_stack
    "mha_tensor_split_column_stack": mha('''
    parts = [t.tensor_split(n_heads, dim=1) for t in (X @ W_Q, X @ W_K, X @ W_V)]
    heads = [attention(q, k, v, q.shape[1])[0] for q, k, v in zip(*parts)]
    return torch.column_stack(heads) @ W_O
'''),
    # naming22b: heads as one batch through a batch-safe attention, split by unflatten and swapaxes
    "mha_unflatten_batched_heads": mha('''
    q, k, v = ((X @ W).unflatten(1, (n_heads, -1)).swapaxes(0, 1) for W in (W_Q, W_K, W_V))
    out, _ = attention(q, k, v, X.shape[1] // n_heads)
    return out.swapaxes(0, 1).flatten(1) @ W_O
''', batched_attention=True),
    # naming22b: the last axis moved to the front for the division, then back: batch-safe
    "entropy_movedim_division": entropy('''
def softmax_entropy(logits):
    e = torch.exp(logits - logits.amax(dim=-1, keepdim=True))
    p = (e.movedim(-1, 0) / e.sum(-1)).movedim(0, -1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''),
})
WRONG.update({
    # naming23: the rows' probabilities averaged into one distribution, then one entropy
    "entropy_of_average_row_probs": (entropy('''
def softmax_entropy(logits):
    p_bar = torch.softmax(logits, dim=-1).sum(dim=0) / logits.shape[0]
    return -(p_bar * p_bar.clamp_min(1e-12).log()).sum(-1)
'''), {"key": "entropy_one_number", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                              "q4:test_entropy_views"]}),
    "entropy_of_mean_probs_over_rows": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1).mean(dim=-2)
    return torch.special.entr(p).sum(dim=-1)
'''), {"key": "entropy_one_number", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                              "q4:test_entropy_views"]}),
    # naming23: -sum p log p as a matrix product (the cross terms of every pair of rows)
    "entropy_matmul_log_probs": (entropy('''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    return -torch.matmul(log_p.exp(), log_p.T)
'''), {"key": "entropy_matrix_product", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                                  "q4:test_entropy_views"]}),
    "entropy_einsum_cross_rows": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    return -torch.einsum("in,jn->ij", p, torch.log(p + 1e-8))
'''), {"key": "entropy_matrix_product", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                                  "q4:test_entropy_views"]}),
})
CORRECT.update({
    # naming23: the entropy as a batched row-by-row product (p[..., None, :] @ log p[..., :, None])
    "entropy_batched_row_dot": entropy('''
def softmax_entropy(logits):
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp().unsqueeze(-2) @ log_p.unsqueeze(-1)).squeeze(-1).squeeze(-1)
'''),
})
WRONG.update({
    # naming23: H_scaled as the raw entropy divided by sqrt(d), not the entropy of the scaled scores
    "table_h_scaled_raw_entropy_over_sqrt": (table(
        '"H_scaled": softmax_entropy(scaled).item()', '"H_scaled": softmax_entropy(raw).item() / math.sqrt(d)'),
        {"key": "scale_after_softmax", "where": ["q4:test_entropy_table_lesson",
                                                 "q4:test_entropy_table_other_dims_and_seed"]}),
    "table_h_scaled_divided_tensor": (table(
        '"H_scaled": softmax_entropy(scaled).item()', '"H_scaled": (softmax_entropy(raw) / d ** 0.5).item()'),
        {"key": "scale_after_softmax", "where": ["q4:test_entropy_table_lesson",
                                                 "q4:test_entropy_table_other_dims_and_seed"]}),
})
CORRECT.update({
    # naming23: the scaled entropy from the raw scores with the scale inside the call
    "table_h_scaled_scale_inside_call": table(
        '"H_scaled": softmax_entropy(scaled).item()', '"H_scaled": float(softmax_entropy(raw * d ** -0.5))'),
})
WRONG.update({
    # naming24: the student's own row-sum assert with exact float equality (no tolerance)
    "attention_asserts_rows_equal_ones": (attention('''
    weights = torch.softmax(torch.matmul(Q, K.transpose(0, 1)) / math.sqrt(d_k), dim=1)
    assert torch.equal(weights.sum(dim=1), torch.ones(weights.shape[0], dtype=weights.dtype))
    return weights @ V, weights
'''), {"key": "own_assert_exact_equality", "where": ["q1", "q8"]}),
    "attention_asserts_each_row_exactly_one": (attention('''
    w = F.softmax(Q @ K.T * d_k ** -0.5, dim=-1)
    for row in w:
        assert row.sum().item() == 1.0, "weights must sum to 1"
    return w @ V, w
'''), {"key": "own_assert_exact_equality", "where": ["q1", "q8"]}),
})
CORRECT.update({
    # naming24: a row-sum assert with a tolerance scaled to the dtype's rounding
    "attention_asserts_rows_within_eps": attention('''
    w = F.softmax(Q @ K.T / d_k ** 0.5, dim=-1)
    eps = torch.finfo(w.dtype).eps * w.shape[-1] * 4
    assert ((w.sum(-1) - 1).abs() <= eps).all(), "rows must sum to 1"
    return w @ V, w
'''),
})
WRONG.update({
    # naming24: q2's square root written ** 1/2 (dots / d_k / 2, or a scale d_k / 2)
    "variance_divided_by_power_one_half": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    return (dots / d_k**1/2 if scaled else dots).var().item()
'''), {"key": "scale_precedence", "where": ["q2:test_scaled_variance_is_one"]}),
    "variance_scale_factor_power_one_half": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    scale = d_k ** 1/2 if scaled else 1
    return torch.var((q * k).sum(-1) / scale).item()
'''), {"key": "scale_precedence", "where": ["q2:test_scaled_variance_is_one"]}),
})
CORRECT.update({
    # naming24: the square root as a power written with parentheses, through torch.pow
    "variance_scale_pow_half_parenthesised": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1) * torch.pow(torch.tensor(float(d_k)), -(1 / 2)) ** int(scaled)
    return dots.var().item()
'''),
})
WRONG.update({
    # naming24: softmax_entropy with a row reduction that drops keepdim (broadcast along the last axis)
    "entropy_max_shift_without_keepdim": (entropy('''
def softmax_entropy(logits):
    z = logits - logits.max(dim=-1).values
    p = torch.exp(z) / torch.exp(z).sum(dim=-1, keepdim=True)
    return -(p * torch.log(p)).sum(dim=-1)
'''), {"key": "keepdim_missing", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                           "q4:test_entropy_views"]}),
    "entropy_exp_sum_without_keepdim": (entropy('''
def softmax_entropy(logits):
    e = (logits - logits.amax(-1, keepdim=True)).exp()
    p = e / torch.sum(e, -1)
    return -torch.sum(p * torch.log(p.clamp_min(1e-12)), -1)
'''), {"key": "keepdim_missing", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows",
                                           "q4:test_entropy_views"]}),
})
CORRECT.update({
    # naming24: the log-normaliser without keepdim, put back with [..., None]
    "entropy_logsumexp_indexed_none": entropy('''
def softmax_entropy(logits):
    log_p = logits - torch.logsumexp(logits, dim=-1)[..., None]
    return -(log_p.exp() * log_p).sum(dim=-1)
'''),
})
_TABLE_Q4 = ["q4:test_entropy_table_lesson", "q4:test_entropy_table_other_dims_and_seed"]
WRONG.update({
    # naming24: the table's values returned rounded (for a readable printout)
    "table_values_rounded_3": (table(
        '"H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})',
        '"H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})\n'
        '        results[-1] = {key: (v if key == "d" else float(f"{v:.3f}")) for key, v in results[-1].items()}'),
        {"key": "weights_rounded", "where": _TABLE_Q4}),
    "table_values_rounded_tensor": (table(
        '"raw_std": raw.std().item(), "scaled_std": scaled.std().item(),\n'
        '                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})',
        '"raw_std": raw.std().round(decimals=1).item(),\n'
        '                        "scaled_std": scaled.std().round(decimals=1).item(),\n'
        '                        "H_raw": softmax_entropy(raw).round(decimals=1).item(),\n'
        '                        "H_scaled": softmax_entropy(scaled).round(decimals=1).item()})'),
        {"key": "weights_rounded", "where": _TABLE_Q4}),
    # naming24: q and k drawn once at the largest d, sliced to d columns for each d
    "table_drawn_at_max_dim_sliced": ({"softmax_entropy": ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    torch.manual_seed(seed)
    D = max(dims)
    q_full, k_full = torch.randn(1, D), torch.randn(5, D)
    out = []
    for d in dims:
        raw = (q_full[:, :d] @ k_full[:, :d].T).squeeze(0)
        out.append({"d": d, "raw_std": raw.std().item(), "scaled_std": (raw / math.sqrt(d)).std().item(),
                    "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(raw / math.sqrt(d)).item()})
    return out
'''}, {"key": "seed_outside_loop", "where": _TABLE_Q4}),
    "table_narrowed_views_of_one_draw": ({"softmax_entropy": ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    g = torch.manual_seed(seed)
    q = torch.randn(1, max(dims), generator=g)
    k = torch.randn(5, max(dims), generator=g)
    rows = []
    for d in sorted(dims, key=list(dims).index):
        raw = (q.narrow(1, 0, d) * k.narrow(1, 0, d)).sum(-1)
        scaled = raw * d ** -0.5
        rows.append(dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                         H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return rows
'''}, {"key": "seed_outside_loop", "where": _TABLE_Q4}),
})
CORRECT.update({
    # naming24: each d reseeded and drawn in full, the values rounded only in a printout that is not returned
    "table_rounded_only_when_printed": table(
        '    return results',
        '    for r in results:\n'
        '        _ = " ".join(f"{v:.2f}" for v in r.values())\n'
        '    return results'),
})
_ENTROPY_Q4 = ["q4:test_entropy_random_logits", "q4:test_entropy_saturated_rows", "q4:test_entropy_views"]
WRONG.update({
    # naming24: the scores passed to Categorical as its first (probs) parameter
    "entropy_categorical_scores_positional": (entropy('''
def softmax_entropy(logits):
    from torch.distributions import Categorical
    dist = Categorical(logits.float())
    return dist.entropy().to(logits.dtype)
'''), {"key": "entropy_of_raw_scores", "where": _ENTROPY_Q4}),
    "entropy_categorical_probs_keyword_scores": (entropy('''
def softmax_entropy(logits):
    return torch.distributions.Categorical(probs=logits).entropy()
'''), {"key": "entropy_of_raw_scores", "where": _ENTROPY_Q4}),
})
CORRECT.update({
    # naming24: Categorical given the log-softmax by keyword
    "entropy_categorical_logits_keyword": entropy('''
def softmax_entropy(logits):
    return torch.distributions.Categorical(logits=F.log_softmax(logits, dim=-1)).entropy()
'''),
})
WRONG.update({
    # naming24: the head outputs kept in a list that outlives the call (said, not named: no key says it)
    "mha_heads_in_default_list": (mha('''
    d_k = X.shape[1] // n_heads
    return _mha_into(X, W_Q, W_K, W_V, W_O, n_heads, d_k)


def _mha_into(X, W_Q, W_K, W_V, W_O, n_heads, d_k, acc=[]):
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        acc.append(attention(X @ W_Q[:, s], X @ W_K[:, s], X @ W_V[:, s], d_k)[0])
    return torch.cat(acc, dim=-1) @ W_O
'''), {"key": None, "where": ["q8"]}),
    "mha_heads_in_module_list": (mha('''
    d_k = X.shape[1] // n_heads
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        HEAD_OUTPUTS.append(attention((X @ W_Q)[:, cols], (X @ W_K)[:, cols], (X @ W_V)[:, cols], d_k)[0])
    return torch.hstack(HEAD_OUTPUTS) @ W_O


HEAD_OUTPUTS = []
'''), {"key": "state_kept_between_calls", "where": ["q8"]}),     # 12-06: repair._stale_state (a fresh list each call is right)
})
_Q2_BOTH = ["q2:test_unscaled_variance_is_d_k", "q2:test_scaled_variance_is_one"]
WRONG.update({
    # naming24: the variance by the moment formula with its terms swapped, E[X]^2 - E[X^2]
    "variance_moments_swapped_by_pow": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    x = (q * k).sum(dim=1) / (math.sqrt(d_k) if scaled else 1.0)
    return float(torch.pow(x.mean(), 2) - torch.pow(x, 2).mean())
'''), {"key": "variance_moments_swapped", "where": _Q2_BOTH}),
    "variance_moments_swapped_by_sums": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    x = torch.einsum("nd,nd->n", q, k)
    if scaled:
        x = x / d_k ** 0.5
    m1, m2 = x.sum() / n_samples, (x * x).sum() / n_samples
    return (m1 * m1 - m2).item()
'''), {"key": "variance_moments_swapped", "where": _Q2_BOTH}),
})
CORRECT.update({
    # naming24: the moment formula in the right order, with Bessel's correction
    "variance_moment_formula_bessel": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    x = (q * k).sum(1) * (d_k ** -0.5 if scaled else 1.0)
    return ((x ** 2).mean() - x.mean() ** 2).item() * n_samples / (n_samples - 1)
'''),
})
WRONG.update({
    # naming24: the log's guard as clamp(max=eps), every probability cut down to eps
    "entropy_clamp_max_keyword_1e12": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    logp = torch.clamp(p, max=1e-12).log()
    return -(p * logp).sum(-1)
'''), {"key": "entropy_clamp_max", "where": _ENTROPY_Q4}),
    "entropy_clamp_max_method_eps": (entropy('''
def softmax_entropy(logits):
    eps = torch.finfo(logits.dtype).eps
    p = F.softmax(logits, -1)
    return torch.sum(-p * p.clamp_max(eps).log(), dim=-1)
'''), {"key": "entropy_clamp_max", "where": _ENTROPY_Q4}),
})
CORRECT.update({
    # naming24: the guard as clamp(min=tiny) by its method name
    "entropy_clamp_min_method_tiny": entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, -1)
    return -(p * p.clamp_min(torch.finfo(p.dtype).tiny).log()).sum(-1)
'''),
})
WRONG.update({
    # naming25: only the returned weights rounded (to 2 decimals, by hand); the output from the exact weights
    "attention_returned_weights_rounded_by_hand": (attention('''
    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    out = w @ V
    return out, torch.round(w * 100) / 100
'''), {"key": "weights_rounded", "where": ["q1"]}),
    # naming25: only the returned weights rounded, entry by entry with Python's round to 3 decimals
    "attention_returned_weights_python_round": (attention('''
    scores = torch.matmul(Q, K.transpose(-2, -1)) / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    shown = torch.tensor([[round(x, 3) for x in row] for row in weights.tolist()], dtype=weights.dtype)
    return torch.matmul(weights, V), shown
'''), {"key": "weights_rounded", "where": ["q1"]}),
})
CORRECT.update({
    # naming25: a rounded copy made for the trace, the exact weights returned; the softmax written out
    "attention_rounded_copy_for_trace_only": attention('''
    s = torch.mm(Q, K.t()).div(d_k ** 0.5)
    e = (s - s.amax(dim=1, keepdim=True)).exp()
    w = e / e.sum(dim=1, keepdim=True)
    trace = w.round(decimals=4)   # what the lesson prints
    del trace
    return torch.mm(w, V), w
'''),
})
WRONG.update({
    # naming25: the seed written in (42) instead of the `seed` argument, in every row
    "table_seed_literal_42": (table("torch.manual_seed(seed)", "torch.manual_seed(42)"),
                              {"key": "table_reseeded_per_row", "where": _TABLE_Q4}),
    # naming25: a generator of its own per row, seeded with the lesson's 0 whatever seed is passed
    "table_generator_seed_zero": (table(
        "torch.manual_seed(seed)\n        q = torch.randn(1, d); k = torch.randn(5, d)",
        "g = torch.Generator().manual_seed(0)\n        q = torch.randn(1, d, generator=g); k = torch.randn(5, d, generator=g)"),
        {"key": "table_reseeded_per_row", "where": ["q4:test_entropy_table_other_dims_and_seed"]}),
})
CORRECT.update({
    # naming25: a generator of its own per row, seeded with the seed passed
    "table_generator_per_row_seeded": table(
        "torch.manual_seed(seed)\n        q = torch.randn(1, d); k = torch.randn(5, d)",
        "g = torch.Generator()\n        g.manual_seed(seed)\n        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)"),
})
WRONG.update({
    # naming25: V cut into row blocks by torch.chunk with dim=0 written out; Q and K by column slices
    "mha_values_chunked_rows_explicit": (mha('''
    d_k = X.size(1) // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    v_parts = torch.chunk(V, n_heads, 0)
    outs = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], v_parts[h], d_k)[0]
            for h in range(n_heads)]
    return torch.cat(outs, -1) @ W_O
'''), {"key": "mha_head_rows_sliced", "where": ["q8"]}),
    # naming25: V cut by tensor_split (default dim 0, the tokens), Q and K by split along the columns
    "mha_values_tensor_split_rows": (mha('''
    d_k = X.shape[-1] // n_heads
    Qs = (X @ W_Q).split(d_k, dim=-1)
    Ks = (X @ W_K).split(d_k, dim=-1)
    Vs = (X @ W_V).tensor_split(n_heads)
    return torch.cat([attention(q, k, v, d_k)[0] for q, k, v in zip(Qs, Ks, Vs)], dim=-1) @ W_O
'''), {"key": "mha_head_rows_sliced", "where": ["q8"]}),
})
CORRECT.update({
    # naming25: every projection chunked by columns (dim=1), the heads joined by hstack
    "mha_chunk_columns_hstack": mha('''
    d_k = X.shape[1] // n_heads
    parts = [t.chunk(n_heads, dim=1) for t in (X @ W_Q, X @ W_K, X @ W_V)]
    return torch.hstack([attention(q, k, v, d_k)[0] for q, k, v in zip(*parts)]).mm(W_O)
'''),
})
WRONG.update({
    # naming27: H(p) as the soft-label cross entropy of p with itself, through the loss module: its classes
    # are dim 1, so 3-D logits get the entropy across dim 1
    "entropy_cross_entropy_loss_module": (entropy('''
def softmax_entropy(logits):
    loss = torch.nn.CrossEntropyLoss(reduction="none")
    return loss(logits, torch.softmax(logits, dim=-1))
'''), {"key": "entropy_wrong_dim", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_views"]}),
    # naming27: the same with the target written as exp(log_softmax) and the class axis passed as dim=-1 to it
    "entropy_cross_entropy_exp_target": (entropy('''
def softmax_entropy(logits):
    target = F.log_softmax(logits, dim=logits.dim() - 1).exp()
    return F.cross_entropy(input=logits, target=target, reduction="none")
'''), {"key": "entropy_wrong_dim", "where": ["q4:test_entropy_random_logits", "q4:test_entropy_views"]}),
})
CORRECT.update({
    # naming27: the soft-label cross entropy of p with itself on the rows flattened to 2-D (classes last)
    "entropy_cross_entropy_flat_rows": entropy('''
def softmax_entropy(logits):
    rows = logits.reshape(-1, logits.shape[-1])
    H = F.cross_entropy(rows, rows.softmax(dim=1), reduction="none")
    return H.reshape(logits.shape[:-1])
'''),
})
WRONG.update({
    # naming27: nanoGPT's batched split on a 2-D X, with its scale from k.size(-1) (= n_heads there)
    "mha_nanogpt_split_scale_from_k": (mha('''
    T, C = X.size()
    hs = C // n_heads
    q = (X @ W_Q).view(T, n_heads, hs).transpose(1, 2)
    k = (X @ W_K).view(T, n_heads, hs).transpose(1, 2)
    v = (X @ W_V).view(T, n_heads, hs).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    y = att.softmax(dim=-1) @ v
    return y.transpose(1, 2).reshape(T, C) @ W_O
'''), {"key": "mha_heads_features_as_tokens", "where": ["q8"]}),
    # naming27: the same split by unflatten and swapaxes, the per-head attention by einsum
    "mha_unflatten_swapaxes_features": (mha('''
    d_k = X.shape[-1] // n_heads
    Q, K, V = ((X @ W).unflatten(-1, (n_heads, d_k)).swapaxes(-1, -2) for W in (W_Q, W_K, W_V))
    w = torch.softmax(torch.einsum("bij,bkj->bik", Q, K) / d_k ** 0.5, dim=-1)
    heads = torch.einsum("bik,bkj->bij", w, V).swapaxes(-1, -2)
    return heads.flatten(-2) @ W_O
'''), {"key": "mha_heads_features_as_tokens", "where": ["q8"]}),
})
CORRECT.update({
    # naming27: nanoGPT's split with the batch axis added and taken away again (X[None] ... [0])
    "mha_nanogpt_split_with_batch_axis": mha('''
    B, T, C = X[None].shape
    hs = C // n_heads
    q, k, v = ((X[None] @ W).view(B, T, n_heads, hs).transpose(1, 2) for W in (W_Q, W_K, W_V))
    att = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(hs), dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    return (y @ W_O)[0]
'''),
})
WRONG.update({
    # naming27: einsum in implicit mode with K labelled as K^T ("ik,kj"): Q @ K, raises unless T_k == d_k
    "attention_einsum_implicit_keys_as_kt": (attention('''
    w = torch.einsum("ik,kj", Q, K).div(d_k ** 0.5).softmax(-1)
    return torch.einsum("ij,jv->iv", w, V), w
'''), {"key": "keys_not_transposed", "where": ["q1", "q8"]}),
    # naming27: tensordot contracting Q's features with K's rows (dim 0) instead of K's features
    "attention_tensordot_keys_rows": (attention('''
    scores = torch.tensordot(Q, K, dims=([1], [0])) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=1)
    return weights @ V, weights
'''), {"key": "keys_not_transposed", "where": ["q1", "q8"]}),
})
CORRECT.update({
    # naming27: tensordot contracting the features of both, the output by einsum
    "attention_tensordot_features": attention('''
    weights = torch.tensordot(Q, K, dims=([-1], [-1])).mul(d_k ** -0.5).softmax(dim=-1)
    return torch.einsum("qk,kv->qv", weights, V), weights
'''),
})

WRONG.update({
    # naming27 (engine, checks.crash_words): NumPy's keyword in the entropy's softmax
    "entropy_softmax_axis_keyword": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, axis=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''), {"key": "numpy_keyword", "where": ["q4"]}),
    # naming27 (engine): math.log on the whole tensor of probabilities
    "entropy_math_log_of_probs": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * math.log(p + 1e-9)).sum(dim=-1)
'''), {"key": "tensor_to_number", "where": ["q4"]}),
    # naming27 (engine): the scores as the keys' dot products with each query by Tensor.dot
    "attention_tensor_dot_method": (attention('''
    weights = F.softmax(Q.dot(K.T) / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "dot_of_matrices", "where": ["q1", "q8"]}),
    # naming27 (engine): torch.rsqrt of the int d_k
    "attention_rsqrt_of_int": (attention('''
    weights = F.softmax(Q @ K.T * torch.rsqrt(d_k), dim=-1)
    return weights @ V, weights
'''), {"key": "torch_function_of_number", "where": ["q1", "q8"]}),
    # naming28: the keys transposed in the paired products, k.T * q (a (d_k, n) times an (n, d_k))
    "variance_transposed_keys_times_queries": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.sum(k.T * q, dim=1)
    return float(torch.var(dots / math.sqrt(d_k) if scaled else dots))
'''), {"key": "variance_over_all_pairs", "where": ["q2"]}),
    # naming28: the same with torch.mul and k.transpose(0, 1)
    "variance_mul_by_transposed_keys": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.mul(q, k.transpose(0, 1)).sum(-1)
    if scaled:
        dots = dots * d_k ** -0.5
    return dots.var().item()
'''), {"key": "variance_over_all_pairs", "where": ["q2"]}),
})

CORRECT.update({
    # naming27: rsqrt of d_k made a tensor first, in Q's dtype
    "attention_rsqrt_of_tensor": attention('''
    weights = F.softmax(Q @ K.T * torch.rsqrt(torch.tensor(float(d_k), dtype=Q.dtype)), dim=-1)
    return weights @ V, weights
'''),
    # naming28: the paired dot products as a batch of (1, d_k) @ (d_k, 1), the variance written out
    "variance_bmm_pairs_written_out": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()
    if scaled:
        dots = dots / d_k ** 0.5
    return (((dots - dots.mean()) ** 2).sum() / (n_samples - 1)).item()
'''),
})

WRONG.update({
    # answer forms, now judged by the engine's expect_choice for every multiple-choice question
    "q7_right_letter_written_out": ({"q7_answer": 'q7_answer = "D - a soft, differentiable lookup"'},
                                    {"key": "answer_extra_characters", "where": ["q7"]}),
    "q5_letters_joined_with_and": ({"q5_answer": 'q5_answer = "C and B"'}, {"key": "answer_hedged", "where": ["q5"]}),
})

WRONG.update({
    # naming29: the scaled dots made in place (mul_) from the dots the unscaled branch returns
    "variance_scaled_in_place_with_mul": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    raw = torch.einsum("nd,nd->n", q, k)
    normed = raw.mul_(d_k ** -0.5)
    return float((normed if scaled else raw).var())
'''), {"key": "inplace_alias_overwritten", "where": ["q2"]}),
    # naming29: the same through a dict, with true_divide_
    "variance_scaled_in_place_in_dict": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    results = {"raw": (q * k).sum(-1)}
    results["scaled"] = results["raw"].true_divide_(math.sqrt(d_k))
    return results["scaled" if scaled else "raw"].var().item()
'''), {"key": "inplace_alias_overwritten", "where": ["q2"]}),
    # naming29: divided whatever the flag, out of place: the same numbers as the in-place alias, so only
    # the source tells them apart; nothing in place, nothing named (neither the alias nor an inverted flag)
    "variance_always_scaled": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    return ((q * k).sum(dim=1) / math.sqrt(d_k)).var().item()
'''), {"key": "scale_applied_unconditionally", "where": ["q2"]}),     # named since naming round 80: `scaled` unread
})

CORRECT.update({
    # naming29: div_ in place, but on a clone, so the unscaled dots keep their values
    "variance_div_in_place_on_clone": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots.clone().div_(math.sqrt(d_k))
    return dots.var().item()
'''),
})

WRONG.update({
    # naming29: the heads concatenated along axis 2 of batched (B, T, head_size) code, given positionally
    "mha_heads_cat_positional_axis_2": (mha('''
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        o, _ = attention(*(M[:, h * d_k:(h + 1) * d_k] for M in (Q, K, V)), d_k)
        outs.append(o)
    return torch.concat(outs, 2) @ W_O
'''), {"key": "fixed_axes", "where": ["q8"]}),
    # naming29: the same kind elsewhere: each head's keys transposed with transpose(1, 2), axes of batched code,
    # on 2-D (T, d_k) slices
    "mha_head_keys_transpose_1_2": (mha('''
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        q, k, v = (M[:, h * d_k:(h + 1) * d_k] for M in (Q, K, V))
        w = F.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k), dim=-1)
        heads.append(w @ v)
    return torch.cat(heads, dim=-1) @ W_O
'''), {"key": "fixed_axes", "where": ["q8"]}),
    # naming29: the heads merged into one vector (reshape(-1) merges the tokens too): said in words, no key
    "mha_heads_merged_with_reshape_minus_one": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = ((X @ W).reshape(T, n_heads, d_k).permute(1, 0, 2) for W in (W_Q, W_K, W_V))
    w = torch.softmax(Q @ K.transpose(-2, -1) / d_k ** 0.5, dim=-1)
    return (w @ V).permute(1, 0, 2).reshape(-1) @ W_O
'''), {"key": None, "where": ["q8"]}),
    # naming29: the same with the looped heads stacked, then flatten() (start_dim=0)
    "mha_heads_stacked_then_flattened": (mha('''
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, s], K[:, s], V[:, s], d_k)[0]
             for s in (slice(h * d_k, (h + 1) * d_k) for h in range(n_heads))]
    return torch.stack(heads, dim=1).flatten() @ W_O
'''), {"key": (None, "one_edit_fix"), "where": ["q8"]}),   # one_edit_fix: `.flatten(1)` (or `(-2)`) in place of `.flatten()` (rejudged)
    # naming29: a per-row dot with bmm on [:, None, :] / [:, :, None] rows: 2-D logits only
    "entropy_bmm_indexed_rows": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    logp = torch.log_softmax(logits, dim=-1)
    return -torch.bmm(p[:, None, :], logp[:, :, None])[:, 0, 0]
'''), {"key": "fixed_axes", "where": ["q4"]}),
    # naming29: the same with unsqueeze(-2) / unsqueeze(-1): 4-D on batched logits, 2-D for one row
    "entropy_bmm_negative_unsqueeze": (entropy('''
def softmax_entropy(logits):
    p = F.softmax(logits, -1)
    prod = torch.bmm(p.unsqueeze(-2), torch.log(p + 1e-12).unsqueeze(-1))
    return -prod.view(-1)
'''), {"key": "fixed_axes", "where": ["q4"]}),
})

CORRECT.update({
    # naming29: bmm on every row reshaped to (N, 1, n) and (N, n, 1): right for any (..., n)
    "entropy_bmm_on_reshaped_rows": entropy('''
def softmax_entropy(logits):
    n = logits.shape[-1]
    p = torch.softmax(logits, dim=-1)
    dots = torch.bmm(p.reshape(-1, 1, n), torch.log_softmax(logits, dim=-1).reshape(-1, n, 1))
    return -dots.reshape(logits.shape[:-1])
'''),
    # naming29: the heads stacked on a new axis 1 and merged with flatten(1): one row per token
    "mha_heads_stacked_flatten_1": mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
             for h in range(n_heads)]
    return torch.stack(heads, dim=1).flatten(1) @ W_O
'''),
})

WRONG.update({
    # naming29: the weighted mix written with einsum, keeping the key index and summing the queries away
    "attention_einsum_sums_queries": (attention('''
    weights = torch.softmax(torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k), dim=-1)
    return torch.einsum("qk,kv->kv", weights, V), weights
'''), {"key": "output_keeps_key_axis", "where": ["q1", "q8"]}),
    # naming29: the same mix accumulated in a loop over the queries: each query's weighted value rows added up
    "attention_loop_adds_query_mixes": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    out = torch.zeros_like(V)
    for i in range(weights.shape[0]):
        out = out + weights[i].unsqueeze(1) * V
    return out, weights
'''), {"key": "output_keeps_key_axis", "where": ["q1", "q8"]}),
})

CORRECT.update({
    # naming29: the broadcast mix (T_q, T_k, 1) * (1, T_k, d_v) summed over the keys, dim 1: right
    "attention_broadcast_mix_over_keys": attention('''
    weights = F.softmax(Q @ K.transpose(0, 1) / math.sqrt(d_k), dim=1)
    return (weights[:, :, None] * V[None, :, :]).sum(dim=1), weights
'''),
})

WRONG.update({
    # naming30: q and k drawn as one (2, n, d_k) tensor and split along the features (chunk(2, dim=-1) gives
    # two halves of d_k / 2, not q and k; a d_k that is odd gives unequal halves); crashes only for d_k != 2
    # through the unpacking: unbind along the last axis of a (n, d_k, 2) draw
    "variance_pair_unbound_first_axis": (variance('''
    qk = torch.randn(n_samples, d_k, 2, generator=generator)
    q, k = qk.unbind(0)
    dots = (q * k).sum(dim=-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''), {"key": "unpacked_along_wrong_axis", "where": ["q2"]}),
    "variance_pair_split_by_size_on_features": (variance('''
    qk = torch.randn(n_samples, 2 * d_k, generator=generator)
    q, k = torch.split(qk, 2, dim=1)
    dots = (q * k).sum(dim=-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''), {"key": "unpacked_along_wrong_axis", "where": ["q2"]}),
    # naming30: the binary entropy of each key's probability summed, written with xlogy and with log1p
    "entropy_binary_xlogy": (entropy('''
def softmax_entropy(logits):
    p = logits.softmax(-1)
    return -(torch.xlogy(p, p) + torch.xlogy(1 - p, 1 - p)).sum(-1)
'''), {"key": "entropy_binary_terms", "where": ["q4"]}),
    "entropy_binary_log1p": (entropy('''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp()
    return (-p * log_p - (1 - p) * torch.log1p(-p + 1e-12).clamp(min=-1e4)).sum(dim=-1)
'''), {"key": "entropy_binary_terms", "where": ["q4"]}),
    # naming30: the table's rows: one dict updated on every pass, and a list extended by each row's dict
    "table_row_dict_updated": ({"softmax_entropy": ENTROPY + TABLE.replace(
        "    results = []\n", "    results = []\n    row = {}\n").replace(
        "results.append({", "row.update({").replace(
        "softmax_entropy(scaled).item()})", "softmax_entropy(scaled).item()})\n        results.append(row)")},
        {"key": "record_reused", "where": ["q4"]}),
    "table_list_extend_row": (table("results.append({", "results.extend({"), {"key": "list_extended_with_dict",
                                                                              "where": ["q4"]}),
})

WRONG.update({
    # naming30 (engine crash words): torch.cat / torch.stack handed a generator expression
    "mha_cat_of_generator": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    cols = [slice(h * d_k, (h + 1) * d_k) for h in range(n_heads)]
    return torch.cat((attention(Q[:, c], K[:, c], V[:, c], d_k)[0] for c in cols), dim=-1) @ W_O
'''), {"key": "generator_to_cat", "where": ["q8"]}),
    "mha_stack_of_generator": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    split = lambda M: (M[:, h * d_k:(h + 1) * d_k] for h in range(n_heads))
    heads = torch.stack(attention(q, k, v, d_k)[0] for q, k, v in zip(split(X @ W_Q), split(X @ W_K), split(X @ W_V)))
    return heads.transpose(0, 1).reshape(T, d_model) @ W_O
'''), {"key": "generator_to_cat", "where": ["q8"]}),
    # naming30 (engine crash words): torch.seed(n) where torch.manual_seed(n) seeds
    "table_torch_seed": (table("torch.manual_seed(seed)", "torch.seed(seed)"), {"key": "seed_for_manual_seed",
                                                                                 "where": ["q4"]}),
    "table_torch_random_seed": (table("torch.manual_seed(seed)", "torch.random.seed(seed)"),
                                {"key": "seed_for_manual_seed", "where": ["q4"]}),
})

# naming30 (scaled-attention helper): a hand-written softmax whose denominator sums over another axis than the last
WRONG.update({
    "entropy_denominator_sum_dim_minus2": (entropy('''
def softmax_entropy(logits):
    e = (logits - logits.max(-1, keepdim=True).values).exp()
    p = e / e.sum(dim=-2, keepdim=True)
    return -(p * p.clamp_min(1e-12).log()).sum(-1)
'''), {"key": "softmax_sum_wrong_axis", "where": ["q4"]}),
    "entropy_denominator_axis0_keepdim": (entropy('''
def softmax_entropy(logits):
    m = logits.max(dim=-1, keepdim=True)[0]
    e = torch.exp(logits - m)
    p = e / torch.sum(e, axis=0, keepdim=True)
    return -torch.sum(p * torch.log(p + 1e-12), dim=-1)
'''), {"key": "softmax_sum_wrong_axis", "where": ["q4"]}),
})
CORRECT.update({
    "entropy_special_entr_of_softmax": entropy('''
def softmax_entropy(logits):
    return torch.special.entr(logits.softmax(-1)).sum(-1)     # entr(x) = -x ln x, 0 at x = 0
'''),
})

# naming30 (scaled-attention helper): the projections right, attention called with the keys first (K_h Q_h^T per
# head: qk_swapped's numbers, told apart by the source)
WRONG.update({
    "mha_batched_call_keys_first": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh, Kh, Vh = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))
    out, _ = attention(Kh, Qh, Vh, d_k)
    return out.transpose(0, 1).reshape(T, d_model) @ W_O
''', batched_attention=True), {"key": "scores_transposed", "where": ["q8"]}),
    "mha_loop_keys_first_locals": (mha('''
    d_k = X.shape[1] // n_heads
    queries, keys, values = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        q_h, k_h = queries[:, h * d_k:(h + 1) * d_k], keys[:, h * d_k:(h + 1) * d_k]
        heads.append(attention(k_h, q_h, values[:, h * d_k:(h + 1) * d_k], d_k)[0])
    return torch.cat(heads, dim=1) @ W_O
'''), {"key": "scores_transposed", "where": ["q8"]}),
})
CORRECT.update({
    "mha_attention_by_keywords_out_of_order": mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    c = [slice(h * d_k, (h + 1) * d_k) for h in range(n_heads)]
    return torch.cat([attention(K=K[:, s], V=V[:, s], d_k=d_k, Q=Q[:, s])[0] for s in c], dim=1) @ W_O
'''),
})

# naming30 (scaled-attention helper, blind24 q8_keys_viewed_as_transposed): a view straight to a per-head shape,
# no transpose, for some of Q, K, V (the keys as (n_heads, d_k, T) taken for K^T): mha_split_without_transpose
WRONG.update({
    "mha_keys_reshaped_as_kt_in_loop": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    K_t = K.reshape(n_heads, d_k, T)
    outs = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        w = torch.softmax(Q[:, c] @ K_t[h] / d_k ** 0.5, dim=-1)
        outs.append(w @ V[:, c])
    return torch.cat(outs, dim=-1) @ W_O
'''), {"key": "mha_split_without_transpose", "where": ["q8"]}),
    "mha_values_viewed_per_head": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q = (X @ W_Q).view(T, n_heads, d_k).permute(1, 0, 2)
    k = (X @ W_K).view(T, n_heads, d_k).permute(1, 0, 2)
    v = (X @ W_V).view(n_heads, T, d_k)
    a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    return (a @ v).permute(1, 0, 2).reshape(T, d_model) @ W_O
'''), {"key": "mha_split_without_transpose", "where": ["q8"]}),
})
CORRECT.update({
    "mha_keys_permuted_straight_to_kt": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)
    k_t = (X @ W_K).view(T, n_heads, d_k).permute(1, 2, 0)      # (n_heads, d_k, T): each head's K^T
    v = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    a = torch.softmax(torch.matmul(q, k_t) / math.sqrt(d_k), dim=-1)
    return torch.matmul(a, v).transpose(0, 1).reshape(T, d_model) @ W_O
'''),
})

WRONG.update({
    # naming30 (engine): a default that names another parameter (the width read off Q): the def raises NameError
    "attention_d_k_defaults_to_q_width": ({"attention": '''def attention(Q, K, V, d_k=Q.shape[-1]):
    weights = F.softmax(Q @ K.T / d_k ** 0.5, dim=-1)
    return weights @ V, weights
'''}, {"key": "default_names_parameter", "where": ["q1", "q8"]}),
})

# naming30 (scaled-attention helper, blind24 q2_returns_numpy_float32): a NumPy scalar (not a float subclass)
# returned where a Python float is asked: returns_tensor_not_number (its text now says a NumPy scalar too)
WRONG.update({
    "variance_np_var_of_float32_dots": (variance('''
    import numpy as np
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k) / (math.sqrt(d_k) if scaled else 1.0)
    return np.var(dots.detach().numpy(), ddof=1)
'''), {"key": "returns_tensor_not_number", "where": ["q2:test_draws_from_generator"]}),
    "variance_numpy_std_squared": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    s = (q * k).sum(-1).numpy()
    if scaled:
        s = s / d_k ** 0.5
    return s.std(ddof=1) ** 2
'''), {"key": "returns_tensor_not_number", "where": ["q2:test_draws_from_generator"]}),
})
CORRECT.update({
    "variance_numpy_cast_to_float": variance('''
    import numpy as np
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1).numpy().astype(np.float64)
    return float(np.var(dots / np.sqrt(d_k) if scaled else dots, ddof=1))
'''),
})

# naming30 (scaled-attention helper, blind24 q8_output_projection_left_multiplied): W_O on the left of the
# concatenated heads, a crash replayed on the question's shapes and read on the student's line
WRONG.update({
    "mha_matmul_w_o_first": (mha(MHA_LOOP.replace("return torch.cat(heads, dim=1) @ W_O",
                                                  "return torch.matmul(W_O, torch.cat(heads, dim=-1))")),
                             {"key": "mha_output_projection_left", "where": ["q8"]}),
    "mha_batched_w_o_alias_left": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Wo = W_O
    q, k, v = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))
    y, _ = attention(q, k, v, d_k)
    merged = y.transpose(0, 1).reshape(T, d_model)
    return Wo @ merged
''', batched_attention=True), {"key": "mha_output_projection_left", "where": ["q8"]}),
})
CORRECT.update({
    "mha_output_projection_as_transposed_left": mha(MHA_LOOP.replace("return torch.cat(heads, dim=1) @ W_O",
                                                                     "return (W_O.T @ torch.cat(heads, dim=1).T).T")),
})

# naming30 (scaled-attention helper, blind22 q8_heads_kept_as_pairs / q8_w_o_blocks_cut_by_columns): crashes
# named from their own words and sizes (and, for W_O's column block, the student's own line)
WRONG.update({
    "mha_stack_of_attention_pairs": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        outs.append(attention(Q[:, s], K[:, s], V[:, s], d_k))
    return torch.cat(outs, 1) @ W_O
'''), {"key": "mha_heads_kept_as_pairs", "where": ["q8"]}),
    "mha_pairs_concatenated_by_map": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    chunks = lambda M: M.split(d_k, dim=1)
    pairs = list(map(lambda q, k, v: attention(q, k, v, d_k), chunks(Q), chunks(K), chunks(V)))
    return torch.cat(pairs, dim=1) @ W_O
'''), {"key": "mha_heads_kept_as_pairs", "where": ["q8"]}),
    "mha_w_o_column_block_summed": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    total = torch.zeros_like(X)
    for h in range(n_heads):
        lo, hi = h * d_k, (h + 1) * d_k
        o, _ = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_k)
        total += torch.matmul(o, W_O[:, lo:hi])
    return total
'''), {"key": "mha_w_o_column_blocks", "where": ["q8"]}),
    "mha_w_o_column_blocks_sum_list": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    parts = [attention(Q[:, h*d_k:(h+1)*d_k], K[:, h*d_k:(h+1)*d_k], V[:, h*d_k:(h+1)*d_k], d_k)[0] @ W_O[:, h*d_k:(h+1)*d_k]
             for h in range(n_heads)]
    return sum(parts)
'''), {"key": "mha_w_o_column_blocks", "where": ["q8"]}),
})
CORRECT.update({
    "mha_w_o_row_blocks_summed": mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    blocks = W_O.split(d_k, dim=0)      # head h's rows of W_O
    return sum(attention(*(M[:, h * d_k:(h + 1) * d_k] for M in (Q, K, V)), d_k)[0] @ blocks[h]
               for h in range(n_heads))
'''),
})

# naming30 (scaled-attention helper, blind24 q4_table_std_as_root_mean_square): the std taken as the root of
# the mean square, the sample mean never subtracted (divided by n, or by n - 1)
WRONG.update({
    "table_std_norm_over_root_n": (table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                                         '"raw_std": (torch.linalg.norm(raw) / 5 ** 0.5).item(), '
                                         '"scaled_std": scaled.square().mean().sqrt().item()'),
                                   {"key": "table_std_root_mean_square", "where": ["q4"]}),
    "table_std_mean_square_over_n_minus_1": (table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                                                   '"raw_std": math.sqrt((raw ** 2).sum().item() / (len(raw) - 1)), '
                                                   '"scaled_std": math.sqrt((scaled ** 2).sum().item() / (len(scaled) - 1))'),
                                             {"key": "table_std_root_mean_square", "where": ["q4"]}),
})
CORRECT.update({
    "table_std_as_root_of_centred_squares": table('"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
                                                  '"raw_std": (raw - raw.mean()).pow(2).sum().div(4).sqrt().item(), '
                                                  '"scaled_std": scaled.var(correction=1).sqrt().item()'),
})

# naming30 (scaled-attention helper, blind22 q4_entropy_kl_div_arguments_swapped): H = ln T - KL with the KL
# taken the wrong way round, KL(uniform || p)
WRONG.update({
    "entropy_kl_div_uniform_target": (entropy('''
def softmax_entropy(logits):
    T = logits.size(-1)
    log_p = torch.log_softmax(logits, -1)
    return math.log(T) - F.kl_div(log_p, torch.ones_like(log_p).div(T), reduction="none").sum(-1)
'''), {"key": "entropy_kl_div_arguments_swapped", "where": ["q4"]}),
    "entropy_kl_uniform_to_p_by_hand": (entropy('''
def softmax_entropy(logits):
    n = logits.shape[-1]
    log_p = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    u = torch.full_like(log_p, 1 / n)
    kl = (u * (u.log() - log_p)).sum(dim=-1)     # KL divergence to the uniform distribution
    return math.log(n) - kl
'''), {"key": "entropy_kl_div_arguments_swapped", "where": ["q4"]}),
})
CORRECT.update({
    "entropy_kl_div_log_target": entropy('''
def softmax_entropy(logits):
    T = logits.shape[-1]
    log_p = F.log_softmax(logits, dim=-1)
    log_u = torch.full_like(log_p, -math.log(T))
    return math.log(T) - F.kl_div(log_u, log_p, reduction="none", log_target=True).sum(dim=-1)
'''),
})

# naming30 (scaled-attention helper, blind22 q4_table_vector_query_still_indexed): the query drawn 1-D, the
# [0] of the 2-D code kept (one score per d); named only from the source, the numbers being those of [:, 0]
WRONG.update({
    "table_vector_query_matmul_indexed": (table("q = torch.randn(1, d); k = torch.randn(5, d)\n        raw = (q @ k.T)[0]",
                                                "q = torch.randn((d,)); k = torch.randn(5, d)\n"
                                                "        raw = torch.matmul(q, k.T)[0]"),
                                          {"key": "table_vector_query_indexed", "where": ["q4"]}),
    "table_vector_query_scores_then_row": (table("q = torch.randn(1, d); k = torch.randn(5, d)\n        raw = (q @ k.T)[0]",
                                                 "query = torch.randn(size=(d,)); k = torch.randn(5, d)\n"
                                                 "        scores = query.matmul(k.transpose(0, 1))\n"
                                                 "        raw = scores[0]"),
                                           {"key": "table_vector_query_indexed", "where": ["q4"]}),
})
CORRECT.update({
    "table_vector_query_no_index": table("q = torch.randn(1, d); k = torch.randn(5, d)\n        raw = (q @ k.T)[0]",
                                         "q = torch.randn(d); k = torch.randn(5, d)\n        raw = k @ q"),
})

# naming30 (scaled-attention helper, blind22 q4_table_entropies_stacked_on_wrong_axis): the two score rows put
# side by side as columns, (5, 2), and two entropies unpacked from the five that come back (the raising line)
WRONG.update({
    "table_entropies_column_stack": ({"softmax_entropy": ENTROPY + TABLE.replace(
                                         "        results.append(",
                                         "        h_raw, h_scaled = softmax_entropy(torch.column_stack((raw, scaled))).tolist()\n"
                                         "        results.append(").replace(
                                         '"H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()',
                                         '"H_raw": h_raw, "H_scaled": h_scaled')},
                                     {"key": "entropy_wrong_dim", "where": ["q4"]}),
    "table_entropies_stacked_last_axis": ({"softmax_entropy": ENTROPY + TABLE.replace(
                                               "        results.append(",
                                               "        (a, b) = softmax_entropy(torch.stack((raw, scaled), -1))\n"
                                               "        results.append(").replace(
                                               '"H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()',
                                               '"H_raw": a.item(), "H_scaled": b.item()')},
                                          {"key": "entropy_wrong_dim", "where": ["q4"]}),
})
CORRECT.update({
    "table_entropies_stacked_as_rows_unbound": {"softmax_entropy": ENTROPY + TABLE.replace(
        "        results.append(",
        "        h_raw, h_scaled = softmax_entropy(torch.stack([raw, scaled], dim=0)).unbind()\n"
        "        results.append(").replace(
        '"H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()',
        '"H_raw": h_raw.item(), "H_scaled": h_scaled.item()')},
})

# naming31 (scaled-attention helper, blind28 q1_additive_tanh_scores): additive (Bahdanau) scores, the sum of
# tanh(q + k) over the features, with no weights: unscaled with a hand softmax, and one query at a time scaled
WRONG.update({
    "additive_tanh_unscaled_hand_softmax": (attention('''
    S = torch.tanh(Q[:, None, :] + K[None, :, :]).sum(-1)
    e = torch.exp(S - S.max(dim=-1, keepdim=True).values)
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''), {"key": "additive_scores", "where": ["q1", "q8"]}),
    "additive_tanh_row_by_row": (attention('''
    scores = torch.stack([torch.tanh(q + K).sum(dim=1) for q in Q]) * d_k ** -0.5
    weights = scores.softmax(dim=1)
    return torch.mm(weights, V), weights
'''), {"key": "additive_scores", "where": ["q1", "q8"]}),
})
CORRECT.update({
    "tensordot_logsumexp_weights": attention('''
    scores = torch.tensordot(Q, K, dims=([1], [1])) / d_k ** 0.5
    weights = torch.exp(scores - scores.logsumexp(-1, keepdim=True))
    return weights @ V, weights
'''),
})

# naming31 (scaled-attention helper, blind28 q8_fused_qkv_heads_axis_before_three): the fused projection
# X @ [W_Q | W_K | W_V] read with the head axis before the three: mha_fused_qkv_split_order
WRONG.update({
    "mha_fused_view_heads_then_split": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    qkv = (X @ torch.cat((W_Q, W_K, W_V), dim=-1)).view(T, n_heads, 3 * d_k)
    q, k, v = qkv.split(d_k, dim=-1)                 # each (T, n_heads, d_k)
    outs = [attention(q[:, h], k[:, h], v[:, h], d_k)[0] for h in range(n_heads)]
    return torch.cat(outs, dim=-1) @ W_O
'''), {"key": "mha_fused_qkv_split_order", "where": ["q8"]}),
    "mha_fused_hstack_unbind_axis2": (mha('''
    T = X.shape[0]
    d_k = X.shape[1] // n_heads
    fused = X @ torch.hstack([W_Q, W_K, W_V])
    Qs, Ks, Vs = fused.reshape(T, n_heads, 3, d_k).unbind(2)
    heads = []
    for h in range(n_heads):
        heads.append(attention(Qs[:, h, :], Ks[:, h, :], Vs[:, h, :], d_k)[0])
    return torch.hstack(heads) @ W_O
'''), {"key": "mha_fused_qkv_split_order", "where": ["q8"]}),
})
CORRECT.update({
    "mha_fused_three_before_heads": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    qkv = (X @ torch.cat([W_Q, W_K, W_V], 1)).reshape(T, 3, n_heads, d_k).permute(1, 2, 0, 3)
    heads = [attention(qkv[0, h], qkv[1, h], qkv[2, h], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O
'''),
})

# naming31 (scaled-attention helper, blind28 q2_flag_multiplies_scale_factor): the boolean flag used as a number
# in the scale, so scaled=False multiplies the dot products by 0: scaled_flag_as_factor
WRONG.update({
    "variance_flag_times_dots": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    return ((q * k).sum(-1) * scaled / math.sqrt(d_k)).var().item()
'''), {"key": "scaled_flag_as_factor", "where": ["q2"]}),
    "variance_float_flag_scale": (variance('''
    q = torch.randn((n_samples, d_k), generator=generator)
    k = torch.randn((n_samples, d_k), generator=generator)
    scale = float(scaled) * d_k ** -0.5
    dots = torch.einsum("nd,nd->n", q, k) * scale
    return float(dots.var())
'''), {"key": "scaled_flag_as_factor", "where": ["q2"]}),
})
CORRECT.update({
    "variance_flag_as_exponent": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1) * d_k ** (-0.5 * scaled)     # False -> d_k ** 0 = 1
    return dots.var().item()
'''),
})

# naming31 (scaled-attention helper, blind28 q4_entropy_collision_renyi2): the collision (Renyi-2) entropy
# -ln(sum p^2) for -sum p ln p: entropy_collision
WRONG.update({
    "entropy_collision_squares": (entropy('''
def softmax_entropy(logits):
    p = logits.softmax(-1)
    return -torch.log(torch.sum(p ** 2, dim=-1))
'''), {"key": "entropy_collision", "where": ["q4"]}),
    "entropy_collision_logsumexp": (entropy('''
def softmax_entropy(logits):
    return -torch.logsumexp(2 * F.log_softmax(logits, dim=-1), dim=-1)
'''), {"key": "entropy_collision", "where": ["q4"]}),
})
CORRECT.update({
    "entropy_einsum_of_log_softmax": entropy('''
def softmax_entropy(logits):
    logp = F.log_softmax(logits, dim=-1)
    return -torch.einsum("...i,...i->...", logp.exp(), logp)
'''),
})

# naming32 (scaled-attention helper, blind26 q2_conditional_inside_augmented_divide): scaled_flag_as_factor is
# proven by a replay with scaled=2 (four times the scaled variance); a branch whose False path makes every dot
# the same number stays generic ("only the unscaled path makes every dot product the same number")
WRONG.update({
    "variance_flag_scales_numerator": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.sum(q * k, dim=1)
    return torch.var(dots * int(scaled) * (1.0 / d_k ** 0.5)).item()
'''), {"key": "scaled_flag_as_factor", "where": ["q2"]}),
    "variance_flag_in_mul_": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    dots.mul_(scaled / math.sqrt(d_k))
    return dots.var().item()
'''), {"key": "scaled_flag_as_factor", "where": ["q2"]}),
    "variance_unscaled_branch_divides_by_itself": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    divisor = math.sqrt(d_k) if scaled else dots
    return (dots / divisor).var().item()
'''), {"key": None, "where": ["q2"]}),
})
CORRECT.update({
    "variance_flag_picks_divisor_from_tuple": variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    return (dots / (1.0, math.sqrt(d_k))[bool(scaled)]).var().item()
'''),
})

# naming32 (scaled-attention helper, blind29 q1_scores_as_q_transpose_times_k): Q^T @ K for Q @ K^T, a crash
# named keys_not_transposed when replaying Q^T @ K on the test's own tensors (or, where T_q = T_k, on one probe
# whose sizes all differ) raises the same words and sizes
WRONG.update({
    "attention_query_transposed_matmul": (attention('''
    scores = torch.matmul(Q.T, K) * d_k ** -0.5
    weights = torch.softmax(scores, dim=1)
    return torch.matmul(weights, V), weights
'''), {"key": "keys_not_transposed", "where": ["q1", "q8"]}),
    "attention_query_permuted_mm": (attention('''
    Qt = Q.permute(1, 0)
    w = (torch.mm(Qt, K) / math.sqrt(d_k)).softmax(-1)
    return torch.mm(w, V), w
'''), {"key": "keys_not_transposed", "where": ["q1", "q8"]}),
})
CORRECT.update({
    "attention_keys_transposed_by_einsum_then_mm": attention('''
    Kt = torch.einsum("kd->dk", K)
    w = torch.mm(Q, Kt).div(math.sqrt(d_k)).softmax(dim=-1)
    return torch.mm(w, V), w
'''),
})

# naming32 (scaled-attention helper, blind29 q8_output_projection_elementwise): * for @ with a weight, a crash
# named elementwise_product (attention-pipeline's text) when x * W replayed on the question's shapes raises the
# same words and the student's line that raised multiplies a weight with *
WRONG.update({
    "mha_output_projection_mul": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
            for h in range(n_heads)]
    return torch.mul(torch.cat(outs, dim=-1), W_O)
'''), {"key": "elementwise_product", "where": ["q8"]}),
    "mha_query_projection_star": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = X * W_Q
    K, V = X @ W_K, X @ W_V
    heads = [attention(Q[:, i:i + d_k], K[:, i:i + d_k], V[:, i:i + d_k], d_k)[0] for i in range(0, d_model, d_k)]
    return torch.cat(heads, 1) @ W_O
'''), {"key": "elementwise_product", "where": ["q8"]}),
})
CORRECT.update({
    "mha_projection_as_broadcast_sum": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    proj = lambda A, W: (A[:, :, None] * W[None, :, :]).sum(dim=1)
    Q, K, V = proj(X, W_Q), proj(X, W_K), proj(X, W_V)
    heads = [attention(Q[:, i:i + d_k], K[:, i:i + d_k], V[:, i:i + d_k], d_k)[0] for i in range(0, d_model, d_k)]
    return proj(torch.cat(heads, 1), W_O)
'''),
})

# naming32 (scaled-attention helper, blind29 q8_output_projection_folded_into_values): W_O multiplied into the
# values before the heads are cut, the concatenation returned unprojected: mha_output_projection_in_values
WRONG.update({
    "mha_values_premultiplied_by_w_o": (mha('''
    d_k = X.shape[1] // n_heads
    W_VO = torch.mm(W_V, W_O)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_VO
    return torch.cat([attention(q, k, v, d_k)[0] for q, k, v in
                      zip(Q.chunk(n_heads, 1), K.chunk(n_heads, 1), V.chunk(n_heads, 1))], dim=1)
'''), {"key": "mha_output_projection_in_values", "where": ["q8"]}),
    "mha_values_projected_twice_then_heads": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)
    k = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    v = ((X @ W_V) @ W_O).view(T, n_heads, d_k).transpose(0, 1)
    out = torch.stack([attention(q[i], k[i], v[i], d_k)[0] for i in range(n_heads)])
    return out.transpose(0, 1).reshape(T, d_model)
'''), {"key": "mha_output_projection_in_values", "where": ["q8"]}),
})
CORRECT.update({
    "mha_output_projection_per_head_rows_summed": mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out = torch.zeros(T, d_model, dtype=X.dtype)
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        out = out + attention(Q[:, c], K[:, c], V[:, c], d_k)[0] @ W_O[c, :]
    return out
'''),
})

# after blind30 (q4_entropy_as_minus_log_max_prob): the min-entropy -ln(max p), the largest probability alone,
# for -sum p ln p: min_entropy (replayed on the same logits, in nats or bits)
WRONG.update({
    "entropy_min_from_top_probability": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    return -p.max(dim=-1).values.log()
'''), {"key": "min_entropy", "where": ["q4"]}),
    "entropy_min_in_bits_via_log_softmax": (entropy('''
def softmax_entropy(logits):
    return -F.log_softmax(logits, dim=-1).amax(-1) / math.log(2)
'''), {"key": "min_entropy", "where": ["q4"]}),
    # issue 21, after blind31: a softmax written by hand in another base, and a generator keyword misspelt
    "attention_hand_softmax_base_two": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    powers = torch.pow(2.0, scores - scores.max(dim=-1, keepdim=True).values)
    weights = powers / powers.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''), {"key": "exp_other_base", "where": ["q1"]}),
    "attention_hand_softmax_base_ten": (attention('''
    scores = Q @ K.T / math.sqrt(d_k)
    powers = 10 ** (scores - scores.amax(-1, keepdim=True))
    weights = powers / powers.sum(-1, keepdim=True)
    return weights @ V, weights
'''), {"key": "exp_other_base", "where": ["q1"]}),
    "variance_generator_keyword_rng": (variance('''
    q = torch.randn(n_samples, d_k, rng=generator)
    k = torch.randn(n_samples, d_k, rng=generator)
    dots = (q * k).sum(dim=1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''), {"key": "unexpected_keyword", "where": ["q2"]}),
    "entropy_gini_impurity": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    return 1.0 - (p ** 2).sum(dim=-1)
'''), {"key": "entropy_gini", "where": ["q4"]}),
    "entropy_einsum_for_two_dims_only": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    return -torch.einsum("ij,ij->i", p, torch.log_softmax(logits, dim=-1))
'''), {"key": "einsum_fixed_axes", "where": ["q4"]}),
})

# after blind31 (q8_values_projected_with_w_o): a class keeps the matrices on self and reads one attribute for
# another; the one-edit search now swaps a class's self attributes, the unread one first
WRONG.update({
    "mha_module_queries_from_w_k": ({"multi_head_attention": '''class Heads:
    def __init__(self, W_Q, W_K, W_V, W_O, n_heads):
        self.W_Q = W_Q
        self.W_K = W_K
        self.W_V = W_V
        self.W_O = W_O
        self.n_heads = n_heads

    def forward(self, X):
        T, d_model = X.shape
        d_k = d_model // self.n_heads
        Q, K, V = X @ self.W_K, X @ self.W_K, X @ self.W_V
        heads = [attention(Q[:, i * d_k:(i + 1) * d_k], K[:, i * d_k:(i + 1) * d_k], V[:, i * d_k:(i + 1) * d_k], d_k)[0]
                 for i in range(self.n_heads)]
        return torch.cat(heads, dim=-1) @ self.W_O


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    return Heads(W_Q, W_K, W_V, W_O, n_heads).forward(X)
'''}, {"key": ("one_edit_fix", "same_projection"), "where": ["q8"]}),
    "mha_module_output_through_w_v": ({"multi_head_attention": '''class MHA:
    def __init__(self, n_heads, **weights):
        self.n_heads = n_heads
        for name, W in weights.items():
            setattr(self, name, W)
        self.W_O = weights["W_O"]
        self.W_V = weights["W_V"]

    def __call__(self, X):
        d_k = X.shape[-1] // self.n_heads
        Q, K, V = X @ self.W_Q, X @ self.W_K, X @ self.W_V
        outs = []
        for h in range(self.n_heads):
            cut = slice(h * d_k, (h + 1) * d_k)
            outs.append(attention(Q[:, cut], K[:, cut], V[:, cut], d_k)[0])
        return torch.cat(outs, dim=1) @ self.W_V


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    return MHA(n_heads, W_Q=W_Q, W_K=W_K, W_V=W_V, W_O=W_O)(X)
'''}, {"key": "one_edit_fix", "where": ["q8"]}),
})

# naming33 (after blind32): normals made by hand with the wrong variance (Box-Muller without -2, erfinv without
# sqrt(2), Irwin-Hall of 6 uniforms): draws_not_unit_variance; both dot products kept when scaled:
# scaled_and_unscaled_pooled; the row max for logsumexp: entropy_max_for_logsumexp; dropout left on in q8:
# nondeterministic, told by a second call on the same inputs
WRONG.update({
    "variance_box_muller_sine_no_two": (variance('''
    u = torch.rand(n_samples, 2, 2, d_k, generator=generator)
    z = torch.sqrt(-torch.log(1 - u[:, 0])) * torch.sin(2 * math.pi * u[:, 1])
    dots = (z[:, 0] * z[:, 1]).sum(-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''), {"key": "draws_not_unit_variance", "where": ["q2"]}),
    "variance_erfinv_without_sqrt_two": (variance('''
    def normal(shape):
        u = torch.rand(*shape, generator=generator, dtype=torch.float64)
        return torch.erfinv(2 * u - 1).float()
    q = normal((n_samples, d_k))
    k = normal((n_samples, d_k))
    s = (q * k).sum(dim=1)
    if scaled:
        s = s / d_k ** 0.5
    return float(s.var())
'''), {"key": "draws_not_unit_variance", "where": ["q2"]}),
    "variance_irwin_hall_six_uniforms": (variance('''
    def approx_normal():
        return torch.rand(6, n_samples, d_k, generator=generator).sum(0) - 3.0
    q = approx_normal()
    k = approx_normal()
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''), {"key": "draws_not_unit_variance", "where": ["q2"]}),
    "variance_scaled_concatenated_with_unscaled": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots = torch.cat([dots, dots / math.sqrt(d_k)])
    return dots.var().item()
'''), {"key": "scaled_and_unscaled_pooled", "where": ["q2"]}),
    "variance_loop_appends_unscaled_then_scaled": (variance('''
    samples = []
    for i in range(n_samples):
        q = torch.randn(d_k, generator=generator)
        k = torch.randn(d_k, generator=generator)
        x = (q * k).sum().item()
        samples.append(x)
        if scaled:
            samples.append(x / math.sqrt(d_k))
    return torch.tensor(samples).var().item()
'''), {"key": "scaled_and_unscaled_pooled", "where": ["q2"]}),
    "entropy_log_p_shifted_by_max_only": (entropy('''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    log_p = logits - logits.max(dim=-1, keepdim=True).values
    return -(p * log_p).sum(dim=-1)
'''), {"key": "entropy_max_for_logsumexp", "where": ["q4"]}),
    "entropy_hand_softmax_max_as_lse": (entropy('''
def softmax_entropy(logits):
    m = torch.amax(logits, dim=-1, keepdim=True)
    e = torch.exp(logits - m)
    p = e / e.sum(dim=-1, keepdim=True)
    lse = m.squeeze(-1)    # log sum exp ~ max
    return lse - torch.sum(p * logits, dim=-1)
'''), {"key": "entropy_max_for_logsumexp", "where": ["q4"]}),
    "mha_dropout_module_before_w_o": (mha('''
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
             for h in range(n_heads)]
    drop = torch.nn.Dropout(p=0.1)
    return drop(torch.cat(heads, dim=-1)) @ W_O
'''), {"key": "nondeterministic", "where": ["q8"]}),
    "mha_dropout_on_attention_weights": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)
    K = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    V = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    A = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    A = F.dropout(A, p=0.1)
    out = (A @ V).transpose(0, 1).reshape(T, d_model)
    return out @ W_O
'''), {"key": "nondeterministic", "where": ["q8"]}),
})

# after blind32 (q5_answer_third_option_zero_indexed, q8_heads_list_plus_equals_tensor): a letter picked by its
# position in a string is searched by value edits and a neighbouring index replaces the choice's reason; a
# position three away keeps it (the letter meant). A list extended by a tensor's rows: the crash's line first
WRONG.update({
    "q6_answer_picked_by_position_from_one": ({"q6_answer": 'options = "ABCD"\nq6_answer = "ABCD"[1]   # the first\n'},
                                              {"key": "one_edit_fix", "where": ["q6"]}),
    "q7_answer_picked_by_position_meant": ({"q7_answer": 'q7_answer = "ABCD"[0]\n'},
                                           {"key": "attention_as_argmax", "where": ["q7"]}),
    "mha_head_rows_added_to_list": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    merged = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        merged += attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0]
    return torch.cat(merged, dim=-1) @ W_O
'''), {"key": "one_edit_fix", "where": ["q8"]}),
})

# naming34 (blind33): the output transposed, (A V)^T, has its own key (output_uses_weights_transposed is A^T V);
# draws of mean 6 (twelve uniforms without the "- 6"); a table of five equal scores; the unscaled dots one constant
WRONG.update({
    # the two earlier (A V)^T variants: now output_transposed
    "attention_output_as_vt_wt": (attention('''
    w = torch.softmax(torch.matmul(Q, K.transpose(0, 1)) / math.sqrt(d_k), dim=1)
    return torch.matmul(V.transpose(0, 1), w.transpose(0, 1)), w
'''), {"key": "output_transposed", "where": ["q1"]}),
    "attention_einsum_output_dq": (attention('''
    w = F.softmax(torch.einsum("qd,kd->qk", Q, K) / d_k ** 0.5, dim=-1)
    return torch.einsum("qk,kv->vq", w, V), w
'''), {"key": "output_transposed", "where": ["q1"]}),
    # a .T left on the right result
    "attention_output_dot_T_at_return": (attention('''
    weights = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    out = weights @ V
    return out.T, weights
'''), {"key": "output_transposed", "where": ["q1"]}),
    # each value column mixed by the weights, the columns stacked as rows
    "attention_output_columns_stacked": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    cols = [weights @ V[:, j] for j in range(V.shape[1])]
    return torch.stack(cols), weights
'''), {"key": "output_transposed", "where": ["q1"]}),
    # twelve uniforms summed in a loop, the 6 never subtracted
    "variance_twelve_uniforms_loop_uncentred": (variance('''
    def normal(shape):
        total = torch.zeros(shape)
        for _ in range(12):
            total = total + torch.rand(shape, generator=generator)
        return total
    q, k = normal((n_samples, d_k)), normal((n_samples, d_k))
    dots = (q * k).sum(-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''), {"key": "draws_not_centred", "where": ["q2"]}),
    # six uniforms summed and never centred (mean 3, variance 1/2)
    "variance_six_uniforms_uncentred": (variance('''
    q = torch.stack([torch.rand(n_samples, d_k, generator=generator) for _ in range(6)]).sum(0)
    k = torch.stack([torch.rand(n_samples, d_k, generator=generator) for _ in range(6)]).sum(0)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / d_k ** 0.5
    return dots.var().item()
'''), {"key": "draws_not_centred", "where": ["q2"]}),
    # one key repeated five times with .repeat
    "table_one_key_repeated": (table("q = torch.randn(1, d); k = torch.randn(5, d)",
                                     "q = torch.randn(1, d); k = torch.randn(1, d).repeat(5, 1)"),
                               {"key": "table_scores_all_equal", "where": ["q4"]}),
    # one key listed five times
    "table_one_key_catted_five_times": (table("q = torch.randn(1, d); k = torch.randn(5, d)",
                                              "q = torch.randn(1, d); k0 = torch.randn(1, d); k = torch.cat([k0] * 5)"),
                                        {"key": "table_scores_all_equal", "where": ["q4"]}),
    # the unscaled branch divides each dot by itself (was keyless)
    "variance_unscaled_branch_divides_by_itself": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    divisor = math.sqrt(d_k) if scaled else dots
    return (dots / divisor).var().item()
'''), {"key": "unscaled_variance_zero", "where": ["q2"]}),
    # the conditional swallows the division, vectorised
    "variance_where_swallows_division": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1) / math.sqrt(d_k) if scaled else torch.ones(n_samples)
    return dots.var().item()
'''), {"key": "unscaled_variance_zero", "where": ["q2"]}),
    # a loop over the pairs whose conditional swallows the division: every unscaled value 0.0
    "variance_unscaled_loop_conditional_zero": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    vals = []
    for i in range(n_samples):
        vals.append(float(q[i] @ k[i]) / math.sqrt(d_k) if scaled else 0.0)
    return torch.tensor(vals).var().item()
'''), {"key": "unscaled_variance_zero", "where": ["q2"]}),
})

# naming35 (blind34): the weights returned transposed while the output is right; "efficient" (linear) attention,
# two softmaxes in place of one; the entropy weighted by exp(logits) never normalised; the table's stds of the
# drawn entries instead of the scores; the heads folded into the sequence axis, one attention over all of them
WRONG.update({
    "q1_weights_returned_with_dot_T": (attention('''
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return weights @ V, weights.T
'''), {"key": "weights_returned_transposed", "where": ["q1"]}),
    "q1_einsum_key_major_weights": (attention('''
    s = torch.einsum("kd,qd->kq", K, Q) / math.sqrt(d_k)
    w = s.softmax(dim=0)
    return torch.einsum("kq,kv->qv", w, V), w
'''), {"key": "weights_returned_transposed", "where": ["q1"]}),
    "q1_linear_attention_unscaled": (attention('''
    weights = torch.softmax(Q, dim=-1) @ torch.softmax(K, dim=0).T
    return weights @ V, weights
'''), {"key": "linear_attention", "where": ["q1", "q8"]}),
    "q1_linear_attention_associative_order": (attention('''
    q = F.softmax(Q / math.sqrt(d_k), dim=1)
    k = F.softmax(K, dim=0)
    context = k.T @ V          # (d_k, d_v): linear in T
    return q @ context, q @ k.T
'''), {"key": "linear_attention", "where": ["q1", "q8"]}),
    "q4_entropy_exp_without_sum_shifted": (entropy('''
def softmax_entropy(logits):
    e = torch.exp(logits - logits.max(dim=-1, keepdim=True).values)
    return -(e * F.log_softmax(logits, dim=-1)).sum(dim=-1)
'''), {"key": "entropy_probs_unnormalised", "where": ["q4"]}),
    "q4_entropy_exp_log_of_exp": (entropy('''
def softmax_entropy(logits):
    p = logits.exp()
    return -(p * torch.log_softmax(logits, -1)).sum(-1)
'''), {"key": "entropy_probs_unnormalised", "where": ["q4"]}),
    "q4_entropy_log_of_exp_probs": (entropy('''
def softmax_entropy(logits):
    p = torch.exp(logits)
    return -(p * torch.log(p)).sum(dim=-1)
'''), {"key": "entropy_probs_unnormalised", "where": ["q4"]}),
    "q4_table_std_of_keys_divided_after": (table(
        '"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
        '"raw_std": k.std().item(), "scaled_std": k.std().item() / d ** 0.5'),
        {"key": "table_stds_of_keys", "where": ["q4"]}),
    "q4_table_std_of_query": (table(
        '"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
        '"raw_std": q.std().item(), "scaled_std": (q / d**0.5).std().item()'),
        {"key": "table_stds_of_keys", "where": ["q4"]}),
    "q4_table_biased_std_of_keys": (table(
        '"raw_std": raw.std().item(), "scaled_std": scaled.std().item()',
        '"raw_std": torch.std(k, unbiased=False).item(), "scaled_std": torch.std(k / d**0.5, unbiased=False).item()'),
        {"key": "table_stds_of_keys", "where": ["q4"]}),
    "q8_head_slices_stacked_as_rows": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qs = torch.cat((X @ W_Q).split(d_k, dim=1), dim=0)      # (n_heads * T, d_k)
    Ks = torch.cat((X @ W_K).split(d_k, dim=1), dim=0)
    Vs = torch.cat((X @ W_V).split(d_k, dim=1), dim=0)
    out = attention(Qs, Ks, Vs, d_k)[0]
    return torch.cat(out.split(T, dim=0), dim=1) @ W_O
'''), {"key": "mha_heads_as_sequence", "where": ["q8"]}),
    "q8_heads_unflattened_into_tokens": (mha('''
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = ((X @ W).unflatten(1, (n_heads, d_k)).flatten(0, 1) for W in (W_Q, W_K, W_V))
    out, _ = attention(Q, K, V, d_k)
    return out.view(T, d_model) @ W_O
'''), {"key": "mha_heads_as_sequence", "where": ["q8"]}),
})

# after blind33: the engine's mechanisms in forms of my own (a conditional expression's precedence; one block of
# every weight's rows for its columns in one statement; an answer left empty)
WRONG.update({
    "q2_scale_conditional_swallows_the_dots": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1) / math.sqrt(d_k) if scaled else 0
    return torch.as_tensor(dots).var().item() if scaled else ((q * k).sum(1) * 0 + dots).var().item()
'''}, {"key": ("one_edit_fix", "unscaled_variance_zero"), "where": ["q2"]}),
    "q8_head_weights_sliced_by_rows_in_one_line": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        b = slice(h * d_k, (h + 1) * d_k)
        q, k, v = X @ W_Q[b], X @ W_K[b], X @ W_V[b]
        outs.append(attention(q, k, v, d_k)[0])
    return torch.cat(outs, dim=1) @ W_O
'''}, {"key": "one_edit_fix", "where": ["q8"]}),
    "q5_answer_left_as_none": ({"q5_answer": "q5_answer = None\n"}, {"key": "answer_left_empty", "where": ["q5"]}),
    "q5_answer_blank_string": ({"q5_answer": "q5_answer = ''  # not sure yet\n"},
                               {"key": "answer_left_empty", "where": ["q5"]}),
})

# round 36 (blind35, blind34): rows in reverse order of dims (not hard-coded dims); a multiple-choice letter
# computed by a probe at d_k = 1, where the four options tie; (sum q)(sum k) for the dot product; the letter of
# lesson 79's own quiz (options in another order) with the cell citing the lesson
WRONG.update({
    "q4_table_loop_over_reversed_dims": (table("    for d in dims:", "    for d in reversed(dims):"),
                                         {"key": "table_rows_reversed", "where": _TABLE_Q4}),
    "q4_table_rows_inserted_at_front": (table("        results.append({", "        results.insert(0, {"),
                                        {"key": "table_rows_reversed", "where": _TABLE_Q4}),
    "q4_table_dims_sorted_descending": (table("    for d in dims:", "    for d in sorted(dims, reverse=True):"),
                                        {"key": "table_rows_reversed", "where": _TABLE_Q4}),
    "q5_answer_probe_with_column_vectors": ({"q5_answer": '''
_g = torch.Generator().manual_seed(1)
q = torch.randn(50000, 1, generator=_g)
k = torch.randn(50000, 1, generator=_g)
v = (q * k).sum(dim=1).var().item()
d_k = q.shape[1]
cands = {"A": 1, "B": math.sqrt(d_k), "C": d_k, "D": d_k ** 2}
q5_answer = sorted(cands, key=lambda c: abs(cands[c] - v))[0]
'''}, {"key": "probe_at_degenerate_size", "where": ["q5"]}),
    "q5_answer_probe_loop_of_dots_at_dk_one": ({"q5_answer": '''
d_k = 1
samples = [float(torch.dot(torch.randn(d_k), torch.randn(d_k))) for _ in range(5000)]
var = torch.tensor(samples).var().item()
table = [("A", 1.0), ("B", d_k ** 0.5), ("C", d_k), ("D", d_k ** 2)]
q5_answer = min(table, key=lambda t: abs(t[1] - var))[0]
'''}, {"key": "probe_at_degenerate_size", "where": ["q5"]}),
    "q5_answer_probe_ties_to_last_option": ({"q5_answer": '''
_dk = 1.0
_x = torch.randn(20000, int(_dk)) * torch.randn(20000, int(_dk))
_var = _x.sum(-1).var().item()
_opts = {"D": _dk ** 2, "C": _dk, "B": _dk ** 0.5, "A": 1.0}
q5_answer = min(_opts, key=lambda o: abs(_opts[o] - _var))
'''}, {"key": "probe_at_degenerate_size", "where": ["q5"]}),
    "q2_einsum_outer_indices_sum_both": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("ni,nj->n", q, k)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()
'''), {"key": "dots_product_of_sums", "where": ["q2"]}),
    "q2_sum_of_q_times_sum_of_k": (variance('''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    s = math.sqrt(d_k) if scaled else 1.0
    dots = torch.sum(q, dim=-1) * torch.sum(k, dim=-1) / s
    return torch.var(dots).item()
'''), {"key": "dots_product_of_sums", "where": ["q2"]}),
    "q7_answer_from_check_your_understanding_slide": ({"q7_answer": '''
q7_answer = "a"   # from the "Check your understanding" slide at the end of the deck
'''}, {"key": "answer_lesson_quiz_letter", "where": ["q7"]}),
    "q5_answer_from_lesson_quiz": ({"q5_answer": '''
# same question as the quiz in lesson 79, and its answer there was A
q5_answer = "A"
'''}, {"key": "answer_lesson_quiz_letter", "where": ["q5"]}),
})

# naming37 (blind36's kinds): an answer copied from another question's variable; a body reading the notebook's
# global V where the parameter is renamed; entropies of reshape(-1, T) never reshaped back; table scores divided
# by their own std; a head loop's column counter advanced before the key/value slices
WRONG.update({
    "q6_answer_set_to_q5_answer": ({"q6_answer": '''
q6_answer = q5_answer   # same letter as the variance question
'''}, {"key": "answer_copied_from_other_question", "where": ["q6"]}),
    "q7_answer_annotated_copy_of_q5": ({"q7_answer": '''
q7_answer: str = q5_answer
'''}, {"key": "answer_copied_from_other_question", "where": ["q7"]}),
    "attention_long_param_names_body_matmul_global_V": ({"attention": '''
def attention(query, key, value, d_k):
    scores = torch.matmul(query, key.transpose(0, 1)) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''}, {"key": "reads_global_not_parameter", "where": ["q1", "q8"]}),
    "attention_values_param_renamed_body_says_V": ({"attention": '''
def attention(Q, K, values, d_k):
    w = F.softmax(Q @ K.T / d_k ** 0.5, dim=1)
    mixed = w @ V
    return mixed, w
'''}, {"key": "reads_global_not_parameter", "where": ["q1", "q8"]}),
    "entropy_rows_flattened_then_returned_flat": (entropy('''
def softmax_entropy(logits):
    T = logits.shape[-1]
    z = logits.reshape(-1, T)
    p = torch.softmax(z, dim=1)
    return -(p * torch.log(p + 1e-12)).sum(dim=1)
'''), {"key": "entropy_shape_not_restored", "where": ["q4"]}),
    "entropy_result_flattened_on_return": (entropy('''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    H = -(log_p.exp() * log_p).sum(dim=-1)
    return H.flatten()
'''), {"key": "entropy_shape_not_restored", "where": ["q4"]}),
    "table_scores_standardised": (table("scaled = raw / d**0.5", "scaled = (raw - raw.mean()) / raw.std()"),
                                  {"key": "table_scaled_by_observed_std", "where": ["q4"]}),
    "table_scores_over_measured_sigma": (table("scaled = raw / d**0.5", "sigma = torch.std(raw)\n        scaled = raw / sigma"),
                                         {"key": "table_scaled_by_observed_std", "where": ["q4"]}),
    "mha_counter_moved_before_values_only": (mha('''
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads, pos = [], 0
    for _ in range(n_heads):
        qh, kh = Q[:, pos:pos + d_k], K[:, pos:pos + d_k]
        pos += d_k
        vh = V[:, pos:pos + d_k]
        heads.append(attention(qh, kh, vh, d_k)[0])
    return torch.cat(heads, dim=1) @ W_O
'''), {"key": "mha_kv_slice_next_head", "where": ["q8"]}),
    "mha_keys_values_sliced_at_next_head_index": (mha('''
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        nxt = slice((h + 1) * d_k, (h + 2) * d_k)
        heads.append(attention(Q[:, h * d_k:(h + 1) * d_k], K[:, nxt], V[:, nxt], d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''), {"key": "mha_kv_slice_next_head", "where": ["q8"]}),
})
