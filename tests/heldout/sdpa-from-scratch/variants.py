"""Held-out submissions for sdpa-from-scratch (Lesson 80): written before the hidden tests were
changed for issue 13. Each replaces whole cells of full_marks.ipynb (see tests/heldout/harness.py)."""

SDPA = "scaled_dot_product_attention"


def sdpa(body: str) -> dict:
    """A cell defining scaled_dot_product_attention with `body` (indented 4)."""
    return {SDPA: "def scaled_dot_product_attention(Q, K, V, mask=None):\n" + body}


# the full-marks body, with one line to change in the wrong variants
FULL = '''
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''


def full_with(old: str, new: str) -> dict:
    assert old in FULL, old
    return sdpa(FULL.replace(old, new))


SCALE = "/ math.sqrt(d_k)"
# q5 without its rule tests (source, run-time guard, timing): a value mistake is charged only here
Q5 = ["q5", "-q5:test_vectorised", "-q5:test_no_torch_sdpa_in_source", "-q5:test_no_torch_sdpa_at_run_time"]
FILL = 'scores.masked_fill(mask == False, float("-inf"))'
HALF = ["q5:test_float16", "q5:test_bfloat16", "q5:test_float16_large_scores"]

CORRECT = {
    # naming30: the scale as a multiplication by d_k ** -0.5 taken from the shape's last item
    "q5_scale_from_last_shape_item": full_with("scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
                                               "scores = torch.matmul(Q, K.transpose(-2, -1)) * Q.shape[len(Q.shape) - 1] ** -0.5"),
    # naming30: the output as a broadcast product summed over the keys (weights @ V written out)
    "q5_output_as_summed_broadcast": full_with("return torch.matmul(weights, V)",
                                               "return (weights.unsqueeze(-1) * V.unsqueeze(-3)).sum(dim=-2)"),
    # naming30: the default filled by `or` (T_k is never 0 here), the mask from a triangle of ones cast to bool
    "q4_default_filled_by_or": {"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_k or T_q
    return torch.ones(T_q, T_k).tril().bool()
'''},
    # naming30: the scores by einsum over the shared width, the variances through torch.var_mean's first item
    "q2_scores_by_einsum_var_mean_first": {"raw_score_var": '''
scores_b = torch.einsum("bqd,bkd->bqk", Q, K)
raw_score_var = float(torch.var_mean(scores_b)[0])
scaled_score_var = float(torch.var_mean(scores_b * Q.shape[-1] ** -0.5)[0])
scale_divisor = float(64) ** 0.5
'''},
    # naming29: a mask cache keyed by both lengths, and a scale from rsqrt of the width: right
    "q4_cache_keyed_by_both_lengths": {"causal_mask": '''
_MASKS = {}
def causal_mask(T_q, T_k=None):
    key = (T_q, T_q if T_k is None else T_k)
    if key not in _MASKS:
        _MASKS[key] = torch.ones(*key).tril().bool()
    return _MASKS[key]
'''},
    # naming29: a variance along dim 0 of the flattened scores is the variance of all of them: right
    "q2_var_of_flattened_along_dim_0": {"raw_score_var": '''
flat = (Q @ K.transpose(-2, -1)).reshape(-1)
raw_score_var = flat.var(0).item()
scaled_score_var = (flat / math.sqrt(Q.shape[-1])).var(dim=0).item()
scale_divisor = 64 ** 0.5
'''},
    # naming29: the softmax axis moved to the end with movedim and back: right for every dim
    "q3_movedim_round_trip": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    y = x.movedim(dim, -1)
    e = torch.exp(y - y.max(-1, keepdim=True)[0])
    return (e / e.sum(-1, keepdim=True)).movedim(-1, dim)
'''},
    # naming29: the softmax with positional keepdim and [0] for .values, no epsilon anywhere: right
    "q3_positional_keepdim_no_guard": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.max(dim, True)[0])
    return e / torch.sum(e, dim, True)
'''},
    # naming28: d_k read through K's own rank, K.shape[K.dim() - 1], which is its last axis: right
    "q5_d_k_as_last_axis_by_rank": full_with("d_k = Q.size(-1)", "d_k = K.shape[K.dim() - 1]"),
    # naming27: the trace's row sums applied by a diagonal matrix on the LEFT (each row divided by its own sum)
    "q6_trace_row_sums_diag_on_left": {"weights3": '''
scores3 = Q3 @ K3.T / 2
e3 = torch.exp(scores3)
weights3 = torch.diag(1 / e3.sum(dim=1)) @ e3
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''},
    # naming27: the mask applied by arithmetic that is right: log(1) = 0 where allowed, log(0) = -inf where blocked
    "q5_mask_added_as_its_log": full_with(FILL, "scores + torch.log(mask.to(scores.dtype))"),
    # naming25: the queries with no key left found by counting their allowed keys (== 0), weights zeroed by a product
    "q5_empty_rows_by_count_equal_zero": full_with(
        "has_key = mask.any(dim=-1, keepdim=True)", "has_key = mask.sum(dim=-1, keepdim=True).eq(0).logical_not()"),
    # naming25: the mask expanded to the scores' own shape before the fill (any broadcastable mask expands)
    "q5_mask_expanded_as_scores": sdpa('''
    scores = Q.matmul(K.transpose(-1, -2)) / Q.shape[-1] ** 0.5
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    full = mask.expand_as(scores)
    weights = stable_softmax(scores.masked_fill(~full, -math.inf), dim=-1)
    return weights.masked_fill(~full.any(-1, keepdim=True), 0.0) @ V
'''),
    # naming25: the softmax as exp(x - logsumexp(x)), the max added back to the log of the shifted sum
    "q3_logsumexp_max_added_back": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    log_z = m + (x - m).exp().sum(dim=dim, keepdim=True).log()
    return (x - log_z).exp()
'''},
    # naming25: the causal weights zeroed and renormalised in place, on a clone of weights3 (weights3 kept)
    "q6_causal_renormalised_on_clone": {"weights3": '''
scores3 = Q3.matmul(K3.T).div(2.0)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3.matmul(V3)
weights3_causal = weights3.clone()
weights3_causal.masked_fill_(causal_mask(3).logical_not(), 0.0)
weights3_causal.div_(weights3_causal.sum(dim=1, keepdim=True))
'''},
    # naming24: the scale as rsqrt of Q's axis 2 (d_k = 8 here), multiplied in
    "q2_scaled_by_rsqrt_of_axis_2": {"raw_score_var": '''
S = Q.matmul(K.permute(0, 2, 1))
raw_score_var = S.var().item()
scaled_score_var = S.mul(torch.rsqrt(torch.tensor(float(Q.size(2)), dtype=S.dtype))).var().item()
scale_divisor = 64 ** 0.5
'''},
    # naming24: the divisor as a NumPy float64 (a subclass of float, which the notebook's check accepts)
    "q2_divisor_numpy_float64": {"raw_score_var": '''
import numpy as np
S = Q @ K.transpose(1, 2)
raw_score_var = S.var().item()
scaled_score_var = (S / np.sqrt(Q.shape[-1])).var().item()
scale_divisor = np.sqrt(np.float64(64))
'''},
    # naming24: the exponentials times the reciprocal of their sum, no epsilon: the softmax itself
    "q3_times_reciprocal_of_sum": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = x.sub(x.amax(dim, keepdim=True)).exp()
    return e.mul(e.sum(dim, keepdim=True).reciprocal())
'''},
    # naming23: the exponentials divided by their mean, then by the length: the softmax itself
    "q3_mean_then_length": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.mean(dim=dim, keepdim=True) / x.size(dim)
'''},
    # naming23: the mask read from *args / **kwargs, None when left out
    "q5_mask_from_star_args": {SDPA: '''
def scaled_dot_product_attention(Q, K, V, *args, **kwargs):
    mask = kwargs.get("mask", args[0] if args else None)
    scores = Q @ K.mT / Q.shape[-1] ** 0.5
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    w = stable_softmax(scores.masked_fill(~mask, -math.inf), dim=-1)
    return w.masked_fill(~mask.any(-1, keepdim=True), 0) @ V
'''},
    # naming21: a causal mask by comparing cumulative sums of ones (row i allows j <= i)
    "q4_mask_from_cumsum_comparison": {"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    rows = torch.ones(T_q, 1, dtype=torch.long).cumsum(0)
    cols = torch.ones(1, T_k, dtype=torch.long).cumsum(1)
    return cols <= rows
'''},
    # naming21: the causal bias built from log(mask): log(1) = 0, log(0) = -inf, no 0 * inf anywhere
    "q6_trace_log_mask_bias": {"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3 + causal_mask(3).double().log(), dim=-1)
'''},
    # naming21: the scores as a batched sum of products, K's axes swapped by permute
    "q2_scores_by_permute_and_sum": {"raw_score_var": '''
S = (Q.unsqueeze(-2) * K.permute(0, 1, 2).unsqueeze(-3)).sum(-1)
raw_score_var = S.var(unbiased=True).item()
scaled_score_var = S.div(Q.shape[-1] ** 0.5).var().item()
scale_divisor = float(8 * 1.0)
'''},
    "einsum": sdpa('''
    d_k = Q.shape[-1]
    scores = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(mask.any(-1, keepdim=True), w, torch.zeros_like(w))
    return torch.einsum("...qk,...kd->...qd", w, V)
'''),
    "logsumexp_softmax_in_float32": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return torch.exp(xf - torch.logsumexp(xf, dim=dim, keepdim=True)).to(x.dtype)
'''},
    "amax_softmax_clamped_sum": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = (x - m).exp()
    return e / e.sum(dim=dim, keepdim=True).clamp_min(torch.finfo(e.dtype).tiny)
'''},
    "float32_compute_cast_back": sdpa('''
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v = Q.to(work), K.to(work), V.to(work)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(mask.any(-1, keepdim=True), w, torch.zeros_like(w))
    return (w @ v).to(Q.dtype)
'''),
    "float64_compute_cast_back": sdpa('''
    q, k, v = Q.double(), K.double(), V.double()
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(mask.any(-1, keepdim=True), w, torch.zeros_like(w))
    return (w @ v).to(Q.dtype)
'''),
    "finfo_min_fill": sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return w @ V
'''),
    "where_and_nan_to_num": sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
    w = torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0)
    return w @ V
'''),
    "additive_mask": sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device)
        bias = bias.masked_fill(~mask, float("-inf"))
        scores = scores + bias
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(mask.any(-1, keepdim=True), w, 0.0)
    return w @ V
'''),
    "bmm_flattened": sdpa('''
    *lead, T_q, d_k = Q.shape
    T_k, d_v = K.shape[-2], V.shape[-1]
    q = Q.reshape(-1, T_q, d_k)
    k = K.reshape(-1, T_k, d_k)
    v = V.reshape(-1, T_k, d_v)
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)
    if mask is not None:
        m = mask.expand(*lead, T_q, T_k).reshape(-1, T_q, T_k)
        scores = scores.masked_fill(~m, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(m.any(-1, keepdim=True), w, torch.zeros_like(w))
    return torch.bmm(w, v).reshape(*lead, T_q, d_v)
'''),
    "scale_queries_first": sdpa('''
    scores = (Q * Q.shape[-1] ** -0.5) @ K.mT
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -math.inf)
    w = stable_softmax(scores, -1)
    if mask is not None:
        w = w * mask.any(-1, keepdim=True).to(w.dtype).nan_to_num()
        w = torch.nan_to_num(w, nan=0.0)
    return w.matmul(V)
'''),
    "causal_tril_ones": {"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.tril(torch.ones(T_q, T_k)).bool()
'''},
    "causal_not_triu": {"causal_mask": '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return ~torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=1)
'''},
    # x - logsumexp(x) in float16 (issue 21, fifth round: judged correct, as blind's where_logsumexp_nan_to_num
    # is): the logsumexp is rounded to float16's spacing (1 near 2000), so slices of logits in the thousands
    # sum to within e^(+-1/2) of 1; q3's float16 test accepts exactly that rounding of the normaliser
    "logsumexp_in_float16": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))
'''},
    "q2_other_spelling": {"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = torch.bmm(Q, K.transpose(1, 2))
raw_score_var = float(torch.var(raw_scores))
scaled_score_var = float((raw_scores / d_k ** 0.5).var())
scale_divisor = 64 ** 0.5
'''},
    "q6_typed_four_decimals": {"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = [[0.2741, 0.2741, 0.4519], [0.2327, 0.3837, 0.3837], [0.3072, 0.1863, 0.5065]]
out3 = [[0.7259, 0.7259], [0.6163, 0.7673], [0.8137, 0.6928]]
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''},
    # --- memory layout (added with the non-contiguous and broadcast cases) -------------------------------
    "contiguous_then_view": sdpa('''
    *lead, T_q, d_k = Q.shape
    T_k, d_v = K.shape[-2], V.shape[-1]
    q = Q.contiguous().view(-1, T_q, d_k)
    k = K.contiguous().view(-1, T_k, d_k)
    v = V.contiguous().view(-1, T_k, d_v)
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)
    if mask is not None:
        m = mask.expand(*lead, T_q, T_k).contiguous().view(-1, T_q, T_k)
        scores = scores.masked_fill(~m, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(m.any(-1, keepdim=True), w, torch.zeros_like(w))
    return torch.bmm(w, v).view(*lead, T_q, d_v)
'''),
    "flatten_with_reshape_and_mT": sdpa('''
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    T_q, d_k, T_k = Q.shape[-2], Q.shape[-1], K.shape[-2]
    q = Q.expand(*lead, T_q, d_k).reshape(-1, T_q, d_k)
    k = K.expand(*lead, T_k, d_k).reshape(-1, T_k, d_k)
    v = V.expand(*lead, T_k, V.shape[-1]).reshape(-1, T_k, V.shape[-1])
    scores = (q @ k.mT) * (1.0 / math.sqrt(d_k))
    if mask is not None:
        m = mask.expand(*lead, T_q, T_k).reshape(-1, T_q, T_k)
        scores = scores.masked_fill(m.logical_not(), float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = w.masked_fill(~m.any(-1, keepdim=True), 0.0)
    return (w @ v).reshape(*lead, T_q, v.shape[-1])
'''),
    "scale_a_clone_in_place": sdpa('''
    q = Q.clone()
    q /= math.sqrt(Q.shape[-1])
    scores = q @ K.transpose(-2, -1)
    if mask is not None:
        scores.masked_fill_(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(mask.any(-1, keepdim=True), w, torch.zeros_like(w))
    return w @ V
'''),
    # naming17: torch.max's (values, indices) pair unpacked by position, and the reduced axis kept
    "softmax_max_pair_unpacked": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    top, _argmax = x.max(dim, True)
    e = (x - top).exp()
    return e / e.sum(dim, True)
'''},
    # naming17: the trace with einsum, a softmax over dim=1 of 2-D scores, and the mask by torch.where
    "q6_einsum_trace_where_mask": {"weights3": '''
scores3 = torch.einsum("qd,kd->qk", Q3, K3) / 2.0
weights3 = stable_softmax(scores3, dim=1)
out3 = torch.einsum("qk,kd->qd", weights3, V3)
blocked = torch.full_like(scores3, float("-inf"))
weights3_causal = stable_softmax(torch.where(causal_mask(3), scores3, blocked), dim=1)
'''},
    # naming19: the causal fill written into scores3 in place, but only after weights3 and out3 used it
    "q6_inplace_fill_after_unmasked": {"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
scores3[~causal_mask(3)] = float("-inf")
weights3_causal = stable_softmax(scores3, dim=-1)
'''},
    # naming19: one letter built from a joined list (no hedge left)
    "q7_letter_joined_from_list": {"q_trap_answer": 'q_trap_answer = "".join(["C"])'},
    # naming19: the asked signature kept, with extra keyword arguments accepted and ignored
    "q3_softmax_extra_kwargs_ignored": {"stable_softmax": '''
def stable_softmax(x, dim=-1, **ignored):
    m = torch.max(x, dim, keepdim=True).values
    return torch.exp(x - m) / torch.exp(x - m).sum(dim, keepdim=True)
'''},
    # naming19: the default of T_k filled by a dict lookup with None as its key
    "q4_default_by_dict_lookup": {"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = {None: T_q}.get(T_k, T_k)
    return torch.ones(T_q, T_k).tril().bool()
'''},
    # naming19: shapes unpacked from one-element containers (right: no container left around them)
    "q1_shapes_unpacked_from_one_tuples": {"weights_shape": '''
(weights_shape,) = ((4, 10, 10),)
[out_shape] = [tuple([4, 10, 128])]
'''},
    "answers_other_forms": {"q_trap_answer": 'q_trap_answer = " c "',
                            "attn_entries": '''
attn_entries = 2 ** 20
score_madds = 2 ** 20 * 64
cost_ratio = int(2048 ** 2 / 1024 ** 2)   # naming22: an int, as the notebook's format asks (4.0 is float_for_int)
'''},
    # naming18: right answers in the forms the new checks read (any rank via *lead, a mask built from an
    # additive matrix and turned into bool, shapes from a torch.Size, the ratio as a float quotient)
    "naming18_other_forms": {
        SDPA: '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    *_, d_k = K.shape
    scores = (Q @ K.mT) * d_k ** -0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.nan_to_num(0.0)
    return weights @ V
''',
        "causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    additive = torch.full((T_q, T_k), float("-inf")).triu(diagonal=1)
    return additive == 0
''',
        "weights_shape": '''
weights_shape = tuple(torch.Size([4, 10, 10]))
out_shape = tuple(int(n) for n in "4 10 128".split())
''',
        "attn_entries": '''
attn_entries = 1024 * 1024
score_madds = attn_entries * 64
cost_ratio = (2048 * 2048 * 64) // score_madds   # naming22: // keeps the int the notebook's format asks
'''},    # naming20: renormalised with a guard the dtype can hold (finfo.tiny), so empty rows are 0 / tiny = 0
    "q5_renormalised_with_dtype_tiny": sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")).nan_to_num(neginf=torch.finfo(scores.dtype).min)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
        weights = weights / weights.sum(dim=-1, keepdim=True).clamp_min(torch.finfo(weights.dtype).tiny)
    return weights @ V
'''),
    # naming20: an additive -inf bias built in the scores' dtype and device, empty rows zeroed by a product
    "q5_additive_bias_in_scores_dtype": sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    bias = torch.zeros((), dtype=scores.dtype, device=scores.device).expand(mask.shape).masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores + bias, dim=-1).nan_to_num(0.0)
    return (weights * mask.any(-1, keepdim=True)) @ V
'''),
    # naming20: the ratio with its denominator bracketed and divided step by step (right)
    "q8_ratio_divided_step_by_step": {"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = attn_entries * d_k
cost_ratio = (2 * T) * (2 * T) * d_k // T // T // d_k
'''},
    # naming22: whole counts from float arithmetic turned back into ints (right: the notebook asks for ints)
    # naming22: the mask inverted with logical_not, the empty rows zeroed by a masked_fill of the weights (right)
    "q5_logical_not_and_filled_empty_rows": sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    blocked = mask.logical_not()
    weights = stable_softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
    return weights.masked_fill(blocked.all(-1, keepdim=True), 0.0) @ V
'''),
    # naming22: out3 as a broadcast product summed over the keys (axis 1): right
    "q6_broadcast_product_summed_over_keys": {"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = (weights3[:, :, None] * V3[None, :, :]).sum(dim=1)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''},
    # naming22: divided by the mean, then by the length: the sum after all (right)
    "softmax_mean_then_length": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.mean(dim=dim, keepdim=True) / x.size(dim)
'''},
    # naming27: every score worked out by hand, right (typed as fractions)
    "q6_hand_scores_typed_right": {"weights3": '''
scores3 = torch.tensor([[1 / 2, 1 / 2, 2 / 2],
                        [1 / 2, 2 / 2, 2 / 2],
                        [2 / 2, 1 / 2, 3 / 2]], dtype=torch.float64)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''},
    "q8_ints_from_float_arithmetic": {"attn_entries": '''
attn_entries = int(math.pow(2, 20))
score_madds = round(1024 ** 2 * 64.0)
cost_ratio = 2 ** int(math.log2(2048 ** 2 / 1024 ** 2))
'''},
}

WRONG = {
    # --- the scale ----------------------------------------------------------------------------
    "divide_by_dk": (full_with(SCALE, "/ d_k"), {"key": "divide_by_dk", "where": Q5}),
    "divide_by_sqrt_dv": (full_with(SCALE, "/ math.sqrt(V.shape[-1])"),
                          {"key": "scale_by_d_v", "where": Q5}),
    "divide_by_sqrt_Tk": (full_with(SCALE, "/ math.sqrt(K.shape[-2])"),
                          {"key": "scale_by_T", "where": Q5}),
    "divide_by_sqrt_Tq": (full_with(SCALE, "/ math.sqrt(Q.shape[-2])"),
                          {"key": "scale_by_T", "where": Q5}),
    "no_scale": (full_with(SCALE, ""), {"key": "no_scale", "where": Q5}),
    "float32_scale": (full_with(SCALE, "/ torch.sqrt(torch.tensor(float(d_k)))"),
                      {"key": "float32_scale", "where": Q5}),
    "multiply_by_sqrt_dk": (full_with(SCALE, "* math.sqrt(d_k)"),
                            {"key": "multiply_by_sqrt_dk", "where": Q5}),
    # --- scores, softmax --------------------------------------------------------------------------
    "k_q_transposed": (full_with("torch.matmul(Q, K.transpose(-2, -1))", "torch.matmul(K, Q.transpose(-2, -1))"),
                       {"key": "scores_transposed", "where": Q5}),
    "softmax_dim_minus_2": (sdpa(FULL.replace("stable_softmax(scores, dim=-1)", "stable_softmax(scores, dim=-2)")),
                            {"key": "softmax_wrong_dim", "where": Q5}),
    "softmax_ignores_dim": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=-1, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=-1, keepdim=True)
'''}, {"key": "softmax_ignores_dim", "where": ["q3:test_dim_argument"]}),
    "no_max_subtraction": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    exps = torch.exp(x)
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"key": "no_max_subtraction", "where": ["q3:test_float16_logits_in_the_thousands",
                                               "q5:test_float16_large_scores"]}),
    "builtin_softmax": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    return torch.softmax(x, dim=dim)
'''}, {"key": "builtin_softmax", "where": ["q3:test_no_builtin_softmax"]}),
    # --- the mask -----------------------------------------------------------------------------------
    "zero_after_softmax": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask, 0.0)
    return w @ V
'''), {"key": "zero_after_softmax", "where": Q5}),
    "pos_inf_fill": (full_with(FILL, 'scores.masked_fill(mask == False, float("inf"))'),
                     {"key": "pos_inf_fill", "where": Q5}),
    "neg_1e9_fill": (full_with(FILL, "scores.masked_fill(mask == False, -1e9)"),
                     {"key": "neg_1e9_float16", "where": ["q5:test_float16", "q5:test_float16_large_scores"]}),
    "float32_min_fill": (full_with(FILL, "scores.masked_fill(mask == False, -3.4028234663852886e38)"),
                         {"key": "fill_overflows_half", "where": ["q5:test_float16", "q5:test_bfloat16",
                                                                  "q5:test_float16_large_scores"]}),
    "inverted_mask": (full_with(FILL, 'scores.masked_fill(mask, float("-inf"))'),
                      {"key": "inverted_mask", "where": Q5}),
    "mask_ignored": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return stable_softmax(scores, dim=-1) @ V
'''), {"key": "mask_ignored", "where": Q5}),
    "fully_masked_nan": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return stable_softmax(scores, dim=-1) @ V
'''), {"key": "fully_masked_nan", "where": ["q5:test_fully_masked_rows", "q5:test_float16"]}),   # float16 has an empty row (naming20)
    "crash_on_mask_none": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    w = torch.where(mask.any(-1, keepdim=True), w, torch.zeros_like(w))
    return w @ V
'''), {"key": "crash_on_mask_none", "where": ["q5:test_float32_no_mask"]}),
    "upper_triangular_mask": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).triu()
'''}, {"key": "upper_triangular_mask", "where": ["q4", "q6:test_weights3_causal"]}),
    "causal_excludes_self": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(-1)
'''}, {"key": "causal_excludes_self", "where": ["q4", "q6:test_weights3_causal"]}),
    "causal_bottom_right": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=T_k - T_q)
'''}, {"key": "causal_bottom_right", "where": ["q4:test_more_queries_than_keys", "q4:test_more_keys_than_queries"]}),
    # --- dtype, rules -------------------------------------------------------------------------------------
    "half_returned_as_float32": (sdpa('''
    q, k, v = Q.float(), K.float(), V.float()
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(mask.any(-1, keepdim=True), w, torch.zeros_like(w))
    return w @ v
'''), {"key": "dtype_changed", "where": Q5}),
    "loop_over_batch_entries": (sdpa('''
    if Q.dim() > 2:
        lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
        if mask is not None:
            mask = mask.expand(*lead, Q.shape[-2], K.shape[-2])
        return torch.stack([scaled_dot_product_attention(Q[b], K[b], V[b], None if mask is None else mask[b])
                            for b in range(Q.shape[0])])
''' + FULL), {"key": "not_vectorised", "where": ["q5:test_vectorised"]}),
    "loop_over_queries": (sdpa('''
    rows = []
    for i in range(Q.shape[-2]):
        s = (Q[..., i:i + 1, :] @ K.transpose(-2, -1)) / math.sqrt(Q.shape[-1])
        m = None
        if mask is not None:
            m = mask.expand(*mask.shape[:-2], Q.shape[-2], mask.shape[-1])[..., i:i + 1, :]
            s = s.masked_fill(~m, float("-inf"))
        w = stable_softmax(s, dim=-1)
        if m is not None:
            w = torch.where(m.any(-1, keepdim=True), w, torch.zeros_like(w))
        rows.append(w @ V)
    return torch.cat(rows, dim=-2)
'''), {"key": "not_vectorised", "where": ["q5:test_vectorised"]}),
    "calls_torch_sdpa": (sdpa('''
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
'''), {"key": "forbidden_api", "where": ["q5"]}),
    # --- written answers ---------------------------------------------------------------------------------
    "out_shape_uses_dk": ({"weights_shape": "weights_shape = (4, 10, 10)\nout_shape = (4, 10, 64)"},
                          {"key": "output_width_dk", "where": ["q1:test_out_shape"]}),
    "q2_scaled_by_dk": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / d_k).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "divisor_d_k_or_sqrt_64", "where": ["q2:test_score_variances"]}),   # 8 = d_k = sqrt(64) (naming15)
    "q2_biased_variance": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var(unbiased=False).item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var(unbiased=False).item()
scale_divisor = math.sqrt(64)
'''}, {"key": "biased_variance", "where": ["q2:test_score_variances"]}),
    "q2_divisor_is_dk": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = 64.0
'''}, {"key": "divide_by_dk", "where": ["q2:test_scale_divisor"]}),
    # --- memory layout -----------------------------------------------------------------------------------
    "view_on_transposed_input": (sdpa('''
    *lead, T_q, d_k = Q.shape
    T_k, d_v = K.shape[-2], V.shape[-1]
    q, k, v = Q.view(-1, T_q, d_k), K.view(-1, T_k, d_k), V.view(-1, T_k, d_v)
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)
    if mask is not None:
        m = mask.expand(*lead, T_q, T_k).reshape(-1, T_q, T_k)
        scores = scores.masked_fill(~m, float("-inf"))
    w = stable_softmax(scores, dim=-1)
    if mask is not None:
        w = torch.where(m.any(-1, keepdim=True), w, torch.zeros_like(w))
    return torch.bmm(w, v).view(*lead, T_q, d_v)
'''), {"key": "view_on_noncontiguous", "where": ["q5:test_noncontiguous_inputs", "q5:test_broadcast_inputs"]}),
    "scale_queries_in_place": (sdpa(FULL.replace(SCALE, "").replace(
                                   "    d_k = Q.size(-1)\n", "    d_k = Q.size(-1)\n    Q.mul_(d_k ** -0.5)\n")),
                               # the caller's Q changes: every value test sees it (issue 21)
                               {"key": "inplace_on_input", "where": Q5}),
    # --- issue 21: mistakes seen in held-out code, each named from evidence --------------------------
    "integer_sqrt_scale": (full_with(SCALE, "/ math.isqrt(d_k)"), {"key": "integer_sqrt_scale", "where": Q5}),
    "returns_weights": (sdpa(FULL.replace("return torch.matmul(weights, V)", "return weights")),
                        {"key": "weights_as_output", "where": ["q5"]}),
    "returns_out_and_weights": (sdpa(FULL.replace("return torch.matmul(weights, V)",
                                                  "return torch.matmul(weights, V), weights")),
                                {"key": "returns_extra_values", "where": ["q5"]}),
    "returns_weights_and_out": (sdpa(FULL.replace("return torch.matmul(weights, V)",
                                                  "return weights, torch.matmul(weights, V)")),
                                {"key": "returns_extra_values", "where": ["q5"]}),
    "k_equals_q": (full_with("torch.matmul(Q, K.transpose(-2, -1))", "torch.matmul(Q, Q.transpose(-2, -1))"),
                   {"key": "keys_are_queries", "where": Q5}),
    "uniform_weights": (sdpa('''
    w = torch.full(Q.shape[:-1] + K.shape[-2:-1], 1.0 / K.shape[-2], dtype=Q.dtype, device=Q.device)
    return w @ V
'''), {"key": "uniform_weights", "where": Q5}),
    "uniform_weights_masked": (full_with("torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
                                         "torch.zeros_like(torch.matmul(Q, K.transpose(-2, -1)))"),
                               {"key": "uniform_weights", "where": Q5}),
    "gaussian_kernel": (full_with("torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
                                  "-(Q.pow(2).sum(-1, keepdim=True) - 2 * Q @ K.transpose(-2, -1) "
                                  "+ K.pow(2).sum(-1).unsqueeze(-2)) / math.sqrt(d_k)"),
                        {"key": "gaussian_kernel", "where": Q5}),
    "prefix_average": (sdpa('''
    T_q, T_k = Q.shape[-2], K.shape[-2]
    w = torch.tril(torch.ones(T_q, T_k, dtype=V.dtype, device=V.device))
    return (w / w.sum(-1, keepdim=True)) @ V
'''), {"key": "uniform_weights", "where": Q5}),
    "causal_tril_plus_one": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.tril(torch.ones(T_q, T_k, dtype=torch.bool), diagonal=1)
'''}, {"key": "causal_includes_next", "where": ["q4", "q6:test_weights3_causal"]}),
    "softmax_in_float32": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    x32 = x.float()
    e = torch.exp(x32 - x32.amax(dim=dim, keepdim=True))
    return (e / e.sum(dim=dim, keepdim=True)).to(x.dtype)
'''}, {"key": "float32_precision", "where": ["q3", "q5"]}),
    "global_max_subtraction": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.max())
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"key": "global_max_subtraction", "where": ["q3", "q5"]}),
    "row_min_subtraction": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.amin(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
'''}, # the hand trace's NaN rows are those of a +inf fill too, and q6 has only the values: no name there
    {"key": ("softmax_subtracts_min", None), "where": ["q3", "q5", "q6:test_weights3_causal"]}),
    "dropout_left_on": (full_with("    return torch.matmul(weights, V)",
                                  "    weights = F.dropout(weights, p=0.1)\n    return torch.matmul(weights, V)"),
                        {"key": "nondeterministic", "where": ["q5"]}),
    "softmax_in_place_on_input": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    x -= x.amax(dim=dim, keepdim=True)
    x.exp_()
    x /= x.sum(dim=dim, keepdim=True)
    return x
'''}, # the notebook's weights3 call overwrites scores3, so weights3_causal is wrong too (no name: q6 has
    # only the values); autograd needs the overwritten exp in the gradient test
    {"key": ("inplace_on_input", None), "where": ["q3", "q5:test_gradients_float64", "q6:test_weights3_causal"]}),
    "transpose_1_2": (full_with("K.transpose(-2, -1)", "K.transpose(1, 2)"), {"key": "fixed_axes", "where": ["q5"]}),
    "index_with_mask": (full_with('        scores = scores.masked_fill(mask == False, float("-inf"))\n',
                                  '        scores = scores.clone()\n        scores[~mask] = float("-inf")\n'),
                        {"key": "mask_not_broadcast", "where": ["q5"]}),
    "q7_answer_A": ({"q_trap_answer": 'q_trap_answer = "A"'},
                    {"key": "zero_after_softmax", "where": ["q7"]}),
    "q8_madds_counted_twice": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = 2 * 1024 * 1024 * 64
cost_ratio = 4
'''}, {"key": "madds_counted_twice", "where": ["q8:test_score_madds"]}),
    # --- issue 21, second round: kinds seen in the blind set and in public student code, each named
    # from what its output matches on the same input or what a second call shows --------------------
    "weights_scaled_after_softmax": (sdpa(FULL.replace(SCALE, "").replace(
        "return torch.matmul(weights, V)", "return torch.matmul(weights / math.sqrt(d_k), V)")),
        {"key": "scale_after_softmax", "where": Q5}),
    "output_scaled_instead_of_scores": (sdpa(FULL.replace(SCALE, "").replace(
        "return torch.matmul(weights, V)", "return torch.matmul(weights, V) * d_k ** -0.5")),
        {"key": "scale_after_softmax", "where": Q5}),
    "mask_multiplied_into_scores": (full_with(FILL, "scores * mask"), {"key": "mask_fills_zero", "where": Q5}),
    "mask_added_to_scores": (full_with(FILL, "scores + mask"), {"key": "mask_added", "where": Q5}),
    "power_precedence": (full_with(SCALE, "/ d_k**1/2"), {"key": "scale_precedence", "where": Q5}),
    "d_k_from_batch_axis": (full_with("d_k = Q.size(-1)", "d_k = Q.size(0)"), {"key": "scale_by_batch_dim", "where": Q5}),
    "softmax_applied_twice": (full_with("        weights = stable_softmax(scores, dim=-1)\n    return",
                                        "        weights = stable_softmax(stable_softmax(scores, dim=-1), dim=-1)\n    return"),
                              {"key": "softmax_twice", "where": Q5}),
    # naming30: the values put first (nanoGPT-lecture `V @ wei`): the crash replayed on the call's own shapes, or
    # (d_k = d_v and T_k = T_q, where Q @ K raises the same words) on one probe whose sizes all differ
    "values_first_matmul": (full_with("return torch.matmul(weights, V)", "return torch.matmul(V, weights)"),
                            {"key": "weights_transposed", "where": ["q5"]}),
    "values_first_method_transposed": (full_with("return torch.matmul(weights, V)",
                                                 "out = V.matmul(weights.mT)\n    return out"),
                                       {"key": "weights_transposed", "where": ["q5"]}),
    # naming30: d_k times a leading axis (the model width of 4-D inputs): one more lead divisor
    "scale_by_heads_times_width": (full_with("d_k = Q.size(-1)", "d_k = Q.size(-1) * (Q.size(1) if Q.dim() == 4 else 1)"),
                                   {"key": "scale_by_batch_dim", "where": Q5}),
    "scale_by_model_width_shape_product": (full_with("d_k = Q.size(-1)", "d_k = math.prod(Q.shape[1::2]) if Q.ndim > 3 "
                                                     "else Q.shape[-1]"),
                                           {"key": "scale_by_batch_dim", "where": Q5}),
    "weights_transposed_times_V": (full_with("return torch.matmul(weights, V)", "return torch.matmul(weights.transpose(-2, -1), V)"),
                                   {"key": "weights_transposed", "where": ["q5"]}),
    "returns_the_scores": (full_with("return torch.matmul(weights, V)", "return scores"),
                           {"key": "scores_as_output", "where": ["q5"]}),
    "softmax_sum_over_everything": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum()
'''}, {"key": "softmax_global_sum", "where": ["q3", "q5", "q6"]}),
    "softmax_returns_log_probabilities": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    shifted = x - x.amax(dim=dim, keepdim=True)
    return shifted - torch.log(torch.exp(shifted).sum(dim=dim, keepdim=True))
'''}, {"key": "log_softmax", "where": ["q3", "q5", "q6"]}),
    "softmax_sum_without_keepdim": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim)
'''}, {"key": "reduction_without_keepdim", "where": ["q3", "q5", "q6"]}),
    "softmax_returns_float32": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    x = x.to(torch.float32)
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
'''}, # the notebook's q6 cell then multiplies float32 weights by float64 V3 and stops: out3 and
    # weights3_causal are never defined (no name: the test cannot run)
    {"key": ("dtype_changed", None), "where": ["q3", "q5", "q6"]}),
    "causal_mask_of_ints": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.int64).tril()
'''}, {"key": ("mask_not_bool", None), "where": ["q4", "q6"]}),
    "causal_mask_from_T_k_only": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    n = T_q if T_k is None else T_k
    return torch.ones(n, n, dtype=torch.bool).tril()
'''}, {"key": "causal_ignores_T_k", "where": ["q4"]}),
    "scores_detached": (full_with("scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
                                  "scores = (torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)).detach()"),
                        {"key": "gradient_cut", "where": ["q5:test_gradients_float64"]}),
    "padding_mask_habit": (full_with("    if mask is not None:\n        scores",
                                     "    if mask is not None:\n        mask = mask.unsqueeze(1)\n        scores"),
                           {"key": "mask_unsqueezed", "where": ["q5"]}),
    "q2_variance_over_sqrt_dk": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = raw_score_var / d_k ** 0.5
scale_divisor = math.sqrt(64)
'''}, {"key": "variance_scaled_like_scores", "where": ["q2:test_score_variances"]}),
    "q8_linear_cost_and_entries_with_d_k": ({"attn_entries": '''
attn_entries = 1024 * 1024 * 64
score_madds = 1024 * 1024 * 64
cost_ratio = 2
'''}, {"key": ("entries_times_d_k", "cost_linear_in_T"), "where": ["q8:test_attn_entries", "q8:test_cost_ratio"]}),
    "torch_sqrt_of_an_int": (full_with(SCALE, "/ torch.sqrt(d_k)"), {"key": "torch_sqrt_of_int", "where": ["q5"]}),
    "keys_not_transposed": (full_with("torch.matmul(Q, K.transpose(-2, -1))", "torch.matmul(Q, K)"),
                            {"key": "keys_not_transposed", "where": ["q5"]}),
    "additive_mask_from_bool": (full_with(FILL, "scores + (1 - mask) * -1e9"),
                                {"key": "bool_mask_arithmetic", "where": ["q5"]}),
    "softmax_dim_1_of_4d_scores": (sdpa(FULL.replace("stable_softmax(scores, dim=-1)", "stable_softmax(scores, dim=1)")),
                                   # 3-D scores: dim=1 is the queries' axis (-2); 4-D: the heads'
                                   {"key": ("softmax_wrong_dim", "softmax_over_batch_axis"), "where": Q5}),
    "q2_std_for_variance": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.std().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).std().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "variance_returned_std", "where": ["q2:test_score_variances"]}),
    "q2_scaled_variance_unscaled": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = raw_scores.var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "no_scale", "where": ["q2:test_score_variances"]}),
    "q8_madds_per_score_one": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = 1024 * 1024
cost_ratio = 4
'''}, {"key": "madds_without_d_k", "where": ["q8:test_score_madds"]}),
    "causal_mask_of_blocked_keys": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.triu(torch.ones(T_q, T_k, dtype=torch.bool), diagonal=1)
'''}, {"key": "inverted_mask", "where": ["q4", "q6:test_weights3_causal"]}),
    # issue 21, fourth round: blind2/blind3 mis-names fixed by cause (own spellings of each kind)
    "d_k_from_shape_1": (full_with("d_k = Q.size(-1)", "d_k = Q.shape[1]"), {"key": "scale_by_batch_dim", "where": Q5}),
    "has_key_without_keepdim": (full_with("has_key = mask.any(dim=-1, keepdim=True)", "has_key = mask.any(-1)"),
                                # the rule tests' (2, 5, 5) call crashes too, and is named there
                                {"key": "reduction_without_keepdim", "where": ["q5"]}),
    "keys_reshaped_for_transpose": (full_with("torch.matmul(Q, K.transpose(-2, -1))",
                                              "torch.matmul(Q, K.reshape(*K.shape[:-2], K.shape[-1], K.shape[-2]))"),
                                    {"key": "view_as_transpose", "where": Q5}),
    "empty_rows_from_all": (full_with("has_key = mask.any(dim=-1, keepdim=True)",
                                      "has_key = mask.all(dim=-1, keepdim=True)"),
                            {"key": "mask_all_for_any", "where": Q5}),
    "q2_half_power_precedence": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores * d_k ** -1/2).var().item()
scale_divisor = 64 ** 1/2
'''}, {"key": "scale_precedence", "where": ["q2"]}),
    "q8_xor_cubic_and_entries_of_Q": ({"attn_entries": '''
attn_entries = 1024 * 64
score_madds = (1024 ^ 2) * 64
cost_ratio = 2 ** 3
'''}, {"key": ("entries_of_Q", "caret_is_xor", "cost_ratio_eight"), "where": ["q8"]}),
    "scale_floor_divided": (full_with(SCALE, "// d_k ** 0.5"), {"key": "floor_division_scale", "where": Q5}),
    # issue 21, fifth round: kinds named from a property of the answer (own instances, not blind4's code)
    "q1_weights_from_named_dims": ({"weights_shape": '''
B, T, d_k, d_v = 4, 10, 64, 128
weights_shape = (B, T, d_k)
out_shape = (B, T, d_v)
'''}, {"key": "shape_of_an_input", "where": ["q1:test_weights_shape"]}),
    "q1_out_shape_time_major": ({"weights_shape": "weights_shape = (4, 10, 10)\nout_shape = (10, 4, 128)"},
                                {"key": "shape_dims_swapped", "where": ["q1:test_out_shape"]}),
    "q1_out_shape_one_sequence": ({"weights_shape": "weights_shape = (4, 10, 10)\nout_shape = (10, 128)"},
                                  {"key": "batch_dim_dropped", "where": ["q1:test_out_shape"]}),
    "q2_divisor_as_factor": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = 64 ** -0.5
'''}, {"key": "reciprocal_scale", "where": ["q2:test_scale_divisor"]}),
    "q2_scaled_in_place_before_raw_var": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = torch.matmul(Q, K.mT)
raw_scores /= d_k ** 0.5
raw_score_var = raw_scores.var().item()
scaled_score_var = raw_scores.var().item()
scale_divisor = 8.0
'''}, {"key": "raw_variance_of_scaled_scores", "where": ["q2:test_score_variances"]}),
    "q2_mean_of_column_variances": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var(dim=-2).mean().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var(dim=-2).mean().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "mean_of_slice_variances", "where": ["q2:test_score_variances"]}),
    "q2_diagonal_by_einsum": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = torch.einsum("btd,btd->bt", Q, K)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "diagonal_scores_only", "where": ["q2:test_score_variances"]}),
    # the shift's max over the first axis, whatever dim is: wrong for every dim of a batched input
    "softmax_max_over_axis_0": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - torch.amax(x, dim=0, keepdim=True))
    return e / e.sum(dim, keepdim=True)
'''}, {"key": ("softmax_max_wrong_axis", None), "where": ["q3", "q5", "q6"]}),
    "softmax_movedim_not_undone": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    y = torch.movedim(x, dim, -1)
    e = torch.exp(y - y.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)
'''}, {"key": "result_axes_permuted", "where": ["q3:test_dim_argument"]}),
    "softmax_logits_capped_at_20": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(torch.clamp(x, max=20.0))
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"key": ("clamped_logits", None), "where": ["q3", "q5"]}),
    "d_k_from_size_slice": (full_with("d_k = Q.size(-1)", "d_k = K.size()[-1:]"), {"key": "size_not_int", "where": ["q5"]}),
    "q6_weights_to_one_decimal": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
weights3 = (stable_softmax(scores3, dim=-1) * 10).round() / 10
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "rounded_answer", "where": ["q6:test_weights3", "q6:test_out3"]}),
    "q6_out_from_unscaled_scores": ({"weights3": '''
scores3 = Q3 @ K3.T
weights3 = stable_softmax(scores3 / 2, dim=-1)
out3 = scores3 @ V3
weights3_causal = stable_softmax((scores3 / 2).masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "values_weighted_by_scores", "where": ["q6:test_out3"]}),
    "q8_one_row_of_weights": ({"attn_entries": "attn_entries = 1024\nscore_madds = 1024 * 1024 * 64\ncost_ratio = 4"},
                              {"key": "count_per_query", "where": ["q8:test_attn_entries"]}),
    # naming22: right counts given as floats (the notebook's format asks isinstance(value, int))
    # naming22: the mask inverted with Python's not (a tensor's truth value), in two forms
    "q5_where_on_not_mask": (full_with('scores = scores.masked_fill(mask == False, float("-inf"))',
                                       'scores = torch.where(not mask, torch.full_like(scores, float("-inf")), scores)'),
                             {"key": "tensor_truthiness", "where": ["q5"]}),
    "q5_blocked_from_not_mask": (full_with('scores = scores.masked_fill(mask == False, float("-inf"))',
                                           'blocked = not mask.bool()\n        scores.masked_fill_(blocked, float("-inf"))'),
                                 {"key": "tensor_truthiness", "where": ["q5"]}),
    # naming22: the product w[i, j] V[j] summed over the queries (axis 0), not the keys: output_keeps_key_axis
    "q6_einsum_keeps_key_index": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = torch.einsum("ij,jd->jd", weights3, V3)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "output_keeps_key_axis", "where": ["q6:test_out3"]}),
    "q6_rows_of_v_times_column_sums": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = torch.stack([weights3[:, j].sum() * V3[j] for j in range(V3.shape[0])])
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "output_keeps_key_axis", "where": ["q6:test_out3"]}),
    # naming23: the exponentials divided by their mean, two more ways (the right softmax times the length)
    "softmax_times_length_over_sum": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    p = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return p * x.shape[dim] / p.sum(dim=dim, keepdim=True)
'''}, {"key": "weights_not_normalised", "where": ["q3", "q5", "q6"]}),
    "softmax_mean_unsqueezed": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.mean(dim).unsqueeze(dim)
'''}, {"key": "weights_not_normalised", "where": ["q3", "q5", "q6"]}),
    # naming22: the exponentials divided by their mean (the right softmax times the slice's length)
    "softmax_sum_over_length": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / (e.sum(dim=dim, keepdim=True) / x.shape[dim])
'''}, {"key": ("weights_not_normalised", None), "where": ["q3", "q5", "q6"]}),
    "softmax_log_of_mean_exp": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=dim, keepdim=True).values
    return torch.exp(shifted - shifted.exp().mean(dim=dim, keepdim=True).log())
'''}, {"key": ("weights_not_normalised", None), "where": ["q3", "q5", "q6"]}),
    "q8_ratio_by_true_division": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = attn_entries * 64
cost_ratio = (2 * 1024) ** 2 / 1024 ** 2
'''}, {"key": "float_for_int", "where": ["q8:test_cost_ratio"]}),
    "q8_counts_from_float_literals": ({"attn_entries": '''
T = 1024.0
attn_entries = T * T
score_madds = attn_entries * 64
cost_ratio = 4
'''}, {"key": "float_for_int", "where": ["q8:test_attn_entries", "q8:test_score_madds"]}),
    "q8_strict_triangle_madds": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * (T - 1) // 2 * d_k
cost_ratio = 4
'''}, {"key": "distinct_pairs_counted_once", "where": ["q8:test_score_madds"]}),   # naming31: T (T - 1) / 2
    "softmax_exps_not_divided": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    return (x - x.amax(dim=dim, keepdim=True)).exp()
'''}, {"key": ("weights_not_normalised", None), "where": ["q3", "q5", "q6"]}),
    "q2_scaled_by_multiplying": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores * math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "multiply_by_sqrt_dk", "where": ["q2:test_score_variances"]}),
    "output_transposed_at_the_end": (full_with("return torch.matmul(weights, V)",
                                               "return torch.matmul(weights, V).transpose(-1, -2)"),
                                     {"key": "result_axes_permuted", "where": ["q5"]}),
    "softmax_sum_over_last_axis": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.max(dim, keepdim=True)[0])
    return e / torch.sum(e, -1, keepdim=True)
'''}, {"key": "softmax_sum_wrong_axis", "where": ["q3:test_dim_argument"]}),
    # --- naming round 6: other instances of blind5's kinds than blind5's own code ----------------------
    # the output's shape read off a broadcast product that is never summed over the keys
    "q1_out_shape_from_broadcast_product": ({"weights_shape": '''
_w = torch.empty(4, 10, 10)
_v = torch.empty(4, 10, 128)
weights_shape = tuple(_w.shape)
out_shape = tuple((_w.unsqueeze(-1) * _v.unsqueeze(1)).shape)
'''}, {"key": "output_keeps_key_axis", "where": ["q1:test_out_shape"]}),
    # the shift by each slice's largest magnitude, through torch.max of abs (q6's causal weights: NaN rows
    # the values alone cannot tell from a +inf fill, so that test names nothing)
    "softmax_shift_by_max_of_abs": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    big = torch.max(torch.abs(x), dim=dim, keepdim=True)[0]
    e = torch.exp(x - big)
    return e / torch.sum(e, dim=dim, keepdim=True)
'''}, {"key": ("softmax_shift_by_max_abs", None), "where": ["q3", "q5", "q6"]}),
    # nanoGPT's (1, 1, T, T) buffer shape returned as the mask (q6's weights come out (1, 1, 3, 3))
    "causal_mask_as_nanogpt_buffer": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.tril(torch.ones(T_q, T_k)).view(1, 1, T_q, T_k).bool()
'''}, {"key": "size_one_axes_added", "where": ["q4", "q6:test_weights3_causal"]}),
    # the lower triangle built with the sizes in the other order
    "causal_mask_sizes_in_other_order": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    return torch.tril(torch.ones(T_k, T_q, dtype=torch.bool))
'''}, {"key": "causal_sizes_swapped", "where": ["q4:test_more_queries_than_keys", "q4:test_more_keys_than_queries"]}),
    # the ratio written as old / new
    "q8_ratio_as_a_fraction": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = attn_entries * 64
cost_ratio = 1 / 4
'''}, {"key": "cost_ratio_inverted", "where": ["q8:test_cost_ratio"]}),
    # the multiply-adds of weights @ V added to those of the scores
    "q8_madds_of_scores_and_output": ({"attn_entries": '''
attn_entries = 1024 ** 2
score_madds = attn_entries * 64 + attn_entries * 64     # Q K^T, then weights @ V
cost_ratio = 4
'''}, {"key": "madds_counted_twice", "where": ["q8:test_score_madds"]}),
    # a negative dim turned positive one axis too early, with a conditional expression
    "softmax_negative_axis_minus_one": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    axis = dim if dim >= 0 else x.ndim + dim - 1
    e = torch.exp(x - x.amax(dim=axis, keepdim=True))
    return e / e.sum(dim=axis, keepdim=True)
'''}, {"key": ("softmax_wrong_dim", "negative_dim_off_by_one"), "where": ["q3", "q5", "q6"]}),

    # naming7 (issue 21): kinds built from blind6's misses, other instances of each
    # the mean as a sum over the slice length: the shift a -inf entry breaks (q6's value shows only the NaN rows)
    "softmax_centred_by_sum_over_n": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    z = x - x.sum(dim=dim, keepdim=True) / x.shape[dim]
    e = torch.exp(z)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"key": ("softmax_subtracts_mean", None), "where": ["q3", "q5", "q6"]}),
    # one number per query: the feature axis left out of the output shape
    "out_shape_without_d_v": ({"weights_shape": "weights_shape = (4, 10, 10)\nout_shape = (4, 10)"},
                              {"key": "shape_axis_dropped", "where": ["q1:test_out_shape"]}),
    # one weight per query: a length-T axis left out of the weights' shape
    "weights_shape_one_per_query": ({"weights_shape": "weights_shape = (4, 10)\nout_shape = (4, 10, 128)"},
                                    {"key": "shape_axis_dropped", "where": ["q1:test_weights_shape"]}),
    # the variance of the keys' entries for the raw scores'
    "q2_variance_of_the_keys": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = K.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "variance_of_an_input", "where": ["q2:test_score_variances"]}),
    # the scaled variance from the scaled queries alone
    "q2_scaled_queries_variance": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (Q / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "variance_of_an_input", "where": ["q2:test_score_variances"]}),
    # the mask built right, then handed back as nested Python lists
    "causal_mask_tolist": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.tril(torch.ones(T_q, T_k, dtype=torch.bool)).tolist()
'''}, {"key": "returns_list_not_tensor", "where": ["q4", "q5", "q6"]}),
    # a NumPy mask
    "causal_mask_numpy": ({"causal_mask": '''
import numpy as np
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return np.tril(np.ones((T_q, T_k), dtype=bool))
'''}, {"key": "returns_numpy_not_tensor", "where": ["q4", "q5", "q6"]}),
    # the batch axis squeezed away "for a single sequence"
    "sdpa_output_squeeze_0": (full_with("return torch.matmul(weights, V)", "return torch.matmul(weights, V).squeeze(0)"),
                              {"key": "size_one_axis_dropped", "where": ["q5:test_vectorised"]}),
    # the weight matrix counted as its upper triangle and diagonal, T^2 / 2
    "q8_entries_halved": ({"attn_entries": '''
attn_entries = 1024 * 1024 // 2
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"key": "count_halved_symmetric", "where": ["q8:test_attn_entries"]}),
    # naming8 (issue 21): blind7's misses built as kinds, other instances of each
    # the hand trace divided by sqrt(d_v) = sqrt(2) (V3's width), the weights of each say so
    "q6_trace_scaled_by_d_v": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(V3.shape[1])
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "scale_by_d_v", "where": ["q6"]}),
    # the hand trace divided by sqrt(T) written as a power of the number of tokens
    "q6_trace_scaled_by_len": ({"weights3": '''
scores3 = Q3 @ K3.T / len(Q3) ** 0.5
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "scale_by_T", "where": ["q6"]}),
    # nanoGPT's registered buffer of block_size = 256, sliced per call
    "causal_mask_buffer_256": ({"causal_mask": '''
_bias = torch.tril(torch.ones(256, 256)).view(1, 1, 256, 256)
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return _bias[0, 0, :T_q, :T_k].bool()
'''}, {"key": "fixed_size_mask", "where": ["q4"]}),
    # a precomputed boolean mask of 512 that is reshaped, so a longer one crashes
    "causal_mask_buffer_reshaped": ({"causal_mask": '''
MAX_LEN = 512
_MASK = torch.ones(MAX_LEN, MAX_LEN, dtype=torch.bool).tril()
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return _MASK[:T_q, :T_k].reshape(T_q, T_k)
'''}, {"key": "fixed_size_mask", "where": ["q4"]}),
    # `if mask:` through a conditional expression
    "sdpa_mask_truthiness_ternary": (full_with(FILL, f"({FILL} if mask else scores)"),
                                     {"key": "tensor_truthiness", "where": ["q5"]}),
    # `mask and ...`: the truth value of the mask taken by `and`
    "sdpa_mask_truthiness_and": (full_with("if mask is not None:", "if mask is not None and mask:"),
                                 {"key": "tensor_truthiness", "where": ["q5"]}),
    # the logits divided by the row's max (torch.max(...)[0]) instead of shifted by it
    "softmax_divides_by_torch_max": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    scaled = x / torch.max(x, dim=dim, keepdim=True)[0]
    return torch.exp(scaled) / torch.exp(scaled).sum(dim=dim, keepdim=True)
'''}, {"key": "softmax_divides_by_max", "where": ["q3", "q5", "q6"]}),
    # naming9: d_k hard-coded as the lesson's 64 (a constant, not Q.shape[-1]): the scale does not move with d_k
    "sdpa_d_k_hard_coded_64": (full_with("d_k = Q.size(-1)", "d_k = 64"), {"key": "scale_constant", "where": Q5}),
    # naming9: the two aranges compared with >= and no unsqueeze (another order of the same 1-D comparison)
    "causal_mask_aranges_ge_no_unsqueeze": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.arange(T_q) >= torch.arange(T_k)
'''}, {"key": "mask_not_outer", "where": ["q4", "q5", "q6"]}),
    # naming9: `mask - 1` on the bool mask (the other side of the same bool arithmetic)
    "sdpa_bool_mask_minus_one": (full_with(FILL, 'scores + (mask - 1) * 1e9'),
                                 {"key": "bool_mask_arithmetic", "where": ["q5"]}),
    # naming9: the trace's weights as scores over their row sum, raw (unscaled) scores
    "trace_plain_sum_unscaled": ({"weights3": '''
scores3 = Q3 @ K3.T
weights3 = scores3 / scores3.sum(dim=1, keepdim=True)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3 / 2.0 + torch.zeros(3, 3).masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"key": "weights_by_plain_sum", "where": ["q6"]}),
    # naming9: flops counted (d_k multiplies and d_k - 1 adds) instead of multiply-adds
    "cost_counts_flops": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = 1024 * 1024 * (2 * 64 - 1)
cost_ratio = 4
'''}, {"key": "madds_counts_additions", "where": ["q8"]}),
    # naming9: the mask as 0/1 floats times -inf (1 - m) * -inf: 0 * -inf = NaN wherever a key is allowed
    "sdpa_float_mask_times_inf": (full_with(FILL, 'scores * mask.to(scores.dtype) + (1 - mask.to(scores.dtype)) * float("-inf")'),
                                  {"key": "mask_times_inf", "where": ["q5"]}),
    # naming10: a causal mask put in place of the one given (the kind behind is_causal=True for any mask)
    "sdpa_mask_replaced_by_causal": (full_with("    if mask is not None:\n",
                                               "    if mask is not None:\n        mask = causal_mask(Q.size(-2), K.size(-2))\n"),
                                     {"key": "causal_mask_forced", "where": Q5}),
    # naming10: a causal mask added when no mask is given (a decoder's default), the given mask kept
    "sdpa_causal_when_no_mask": (full_with("    d_k = Q.size(-1)\n",
                                           "    d_k = Q.size(-1)\n    if mask is None:\n"
                                           "        mask = causal_mask(Q.size(-2), K.size(-2))\n"),
                                 {"key": "causal_mask_forced", "where": Q5}),
    # naming10: the weights times K, written with einsum
    "sdpa_einsum_weights_keys": (full_with("return torch.matmul(weights, V)",
                                           'return torch.einsum("...qk,...kd->...qd", weights, K)'),
                                 {"key": "weights_times_wrong_input", "where": Q5}),
    # naming10: the keys scored against themselves in Question 2
    "variance_keys_against_keys": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = K @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"key": "keys_are_queries", "where": ["q2"]}),
    # naming10: the raw variance measured, the scaled one written from theory (1)
    "variance_scaled_from_theory": ({"raw_score_var": '''
raw_score_var = (Q @ K.transpose(-2, -1)).var().item()
scaled_score_var = 1.0                     # dividing by sqrt(d_k) brings it to 1
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''}, {"key": "variance_one_theory_or_own_std", "where": ["q2"]}),   # 1 is also S / S.std() (blind30)
    # naming10: the hand trace with e ~ 3
    "trace_e_as_3": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
num = 3.0 ** scores3
weights3 = num / num.sum(dim=1, keepdim=True)
out3 = weights3 @ V3
num_c = num * causal_mask(3)
weights3_causal = num_c / num_c.sum(dim=1, keepdim=True)
print(weights3, out3, weights3_causal, sep="\\n")
'''}, {"key": "e_rounded", "where": ["q6"]}),
    # naming10: the weight matrix's memory in float64 bytes
    "cost_entries_float64_bytes": ({"attn_entries": '''
attn_entries = 1024 * 1024 * 8
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"key": "count_in_bytes", "where": ["q8"]}),
    # naming11: another question's width in the count (Question 1's d_v = 128): also 2 T^2 d_k, one key whose
    # message gives every reading
    "cost_madds_with_d_v": ({"attn_entries": '''
attn_entries = 1024 ** 2
score_madds = 1024 ** 2 * 128
cost_ratio = 4
'''}, {"key": "madds_counted_twice", "where": ["q8:test_score_madds"]}),
    # naming11: an option written out with its letter first, the letter wrong
    "q7_answer_b_written_out": ({"q_trap_answer": 'q_trap_answer = "B) mask with the upper triangle"'},
                                {"key": "upper_triangular_mask", "where": ["q7"]}),
    "q7_answer_paren_a_written_out": ({"q_trap_answer": 'q_trap_answer = "(A) zero the weights after"'},
                                      {"key": "zero_after_softmax", "where": ["q7"]}),
    # naming11: d_k read from the fixed axis 2 through size(): right on 3-D input, T_q on 4-D input
    "d_k_from_size_2": (full_with("d_k = Q.size(-1)", "d_k = Q.size(2) if Q.dim() > 2 else Q.size(-1)"),
                        {"key": "scale_by_batch_dim", "where": Q5}),
    # naming11: the mask cut to the queries' length on both axes, as a causal buffer is cropped
    "mask_cropped_to_T_q": (full_with("    if mask is not None:\n        scores",
                                      "    if mask is not None:\n        T = Q.shape[-2]\n"
                                      "        mask = mask[..., :T, :T]\n        scores"),
                            {"key": "mask_cropped_square", "where": Q5}),
    # naming11: the batch folded into the rows in a shape the question asks (B x T_q = 40), from named sizes
    "q1_out_shape_flattened_for_matmul": ({"weights_shape": '''
B, T, d_v = 4, 10, 128
weights_shape = (B, T, T)
out_shape = (B * T, d_v)
'''}, {"key": "batch_folded_into_rows", "where": ["q1:test_out_shape"]}),
    # naming11: the variances measured on other tensors (a fresh draw of another shape), the scale right
    "q2_variance_on_new_tensors": ({"raw_score_var": '''
Qn, Kn = torch.randn(3, 50, 8), torch.randn(3, 50, 8)
S = Qn @ Kn.transpose(-2, -1)
raw_score_var = S.var().item()
scaled_score_var = (S / math.sqrt(8)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "variance_of_other_scores", "where": ["q2:test_score_variances"]}),
    # naming30: the scores taken against the values (Q @ V^T, K @ V^T): the source shows V where K goes
    "q2_scores_against_values_matmul": ({"raw_score_var": '''
S = torch.matmul(Q, V.mT)
raw_score_var = S.var().item()
scaled_score_var = (S / math.sqrt(Q.size(-1))).var().item()
scale_divisor = 8.0
'''}, {"key": "variance_of_other_scores", "where": ["q2:test_score_variances"]}),
    "q2_keys_against_values": ({"raw_score_var": '''
kv = K @ V.transpose(1, 2)
raw_score_var = kv.var().item()
scaled_score_var = (kv / 8 ** 0.5).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "variance_of_other_scores", "where": ["q2:test_score_variances"]}),
    # naming30: the example redrawn in the cell with V drawn second: the same numbers as Q @ V^T, but the
    # source shows the draws, not V in the product
    "q2_example_redrawn_v_second": ({"raw_score_var": '''
torch.manual_seed(0)
Q = torch.randn(2, 5, 8)
V = torch.randn(2, 5, 8)
K = torch.randn(2, 5, 8)
S = Q @ K.transpose(-2, -1)
raw_score_var = S.var().item()
scaled_score_var = (S / math.sqrt(8)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "draw_order", "where": ["q2:test_score_variances"]}),
    # naming12: the wrong operand transposed (K^T Q, d_k x d_k), the example's own tensors
    "q2_keys_transposed_first": ({"raw_score_var": '''
raw_scores = K.transpose(1, 2) @ Q
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(8)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "weights_sized_by_features", "where": ["q2:test_score_variances"]}),
    # naming12: the same (Q^T K) written with einsum, summing over the tokens
    "q2_einsum_sums_tokens": ({"raw_score_var": '''
S = torch.einsum("btd,bte->bde", Q, K)
raw_score_var = S.var().item()
scaled_score_var = (S / 8 ** 0.5).var().item()
scale_divisor = 64 ** 0.5
'''}, {"key": "weights_sized_by_features", "where": ["q2:test_score_variances"]}),
    # after blind27: each slice shifted by its first entry, not its maximum (a narrow, and an index_select)
    "softmax_shift_by_first_narrow": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    exps = torch.exp(x - x.narrow(dim, 0, 1))
    return exps / exps.sum(dim=dim, keepdim=True)
'''}, {"key": ("softmax_shift_by_first_entry",), "where": ["q3", "q5"]}),
    "softmax_shift_by_first_index_select": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    first = torch.index_select(x, dim, torch.zeros(1, dtype=torch.long, device=x.device))
    e = (x - first).exp()
    return e / e.sum(dim, keepdim=True)
'''}, {"key": ("softmax_shift_by_first_entry",), "where": ["q3", "q5"]}),
    # naming12: an unshifted softmax in the log domain, with tensor methods
    "softmax_log_domain_methods": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    return (x - x.exp().sum(dim=dim, keepdim=True).log()).exp()
'''}, {"key": "no_max_subtraction", "where": ["q3", "q5"]}),
    # naming12: an unshifted softmax whose inf/NaN is turned into 0: float16 rows in the thousands are all 0
    "softmax_unshifted_nan_to_num": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x)
    return torch.nan_to_num(e / e.sum(dim=dim, keepdim=True))
'''}, {"key": "no_max_subtraction", "where": ["q3", "q5"]}),
    # naming12: the log-domain unshifted softmax inline in scaled_dot_product_attention
    "sdpa_inline_log_domain_softmax": (full_with("weights = stable_softmax(scores, dim=-1)\n        has_key",
                                                 "weights = torch.exp(scores - torch.log(torch.exp(scores).sum("
                                                 "-1, keepdim=True)))\n        has_key"),
                                       {"key": "no_max_subtraction", "where": Q5}),
    # naming12: the head width squared in the count of multiply-adds
    "cost_madds_width_squared": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = 1024 * 64 ** 2
cost_ratio = 4
'''}, {"key": "madds_features_squared", "where": ["q8:test_score_madds"]}),
    # naming13: the output given Q's shape by explicit sizes (blind12's .view(Q.shape) written out)
    "sdpa_output_reshaped_to_d_k": (full_with("return torch.matmul(weights, V)",
                                              "return torch.matmul(weights, V).reshape(*Q.shape[:-1], d_k)"),
                                    {"key": "shape_of_an_input", "where": ["q5"]}),
    # (the output viewed in V's shape is named so on every q5 test but test_fully_masked_rows, whose re-run with
    # as many keys as queries is not tried: it is not in this set, where every failure must be named)
    # naming13: one variance left a 0-d tensor (a float() forgotten on one line)
    "variance_one_left_as_tensor": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var()
scaled_score_var = float((raw_scores / math.sqrt(d_k)).var())
scale_divisor = math.sqrt(64)
'''}, {"key": "returns_tensor_not_number", "where": ["q2:test_score_variances"]}),
    # naming13: the batch axis written twice by hand in the output shape only
    "shapes_batch_written_twice": ({"weights_shape": '''
q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)
weights_shape = (4, 10, 10)
out_shape = (4, 10, 4, 128)
'''}, {"key": "batch_axis_repeated", "where": ["q1:test_out_shape"]}),
    # naming14 (blind13's kinds): a NaN guard in the softmax that turns -inf into 0, here with nan_to_num
    "softmax_nan_to_num_guard": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    x = torch.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"key": "softmax_inf_to_zero", "where": ["q3", "q5", "q6"]}),
    # naming14: a heads axis added to the output shape only
    "shapes_heads_axis_in_output": ({"weights_shape": '''
q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)
weights_shape = (4, 10, 10)
out_shape = (4, 2, 10, 128)
'''}, {"key": "shape_axis_added", "where": ["q1:test_out_shape"]}),
    # naming14: the multiply-adds counted at T = 1000 ("1k"), the entries right
    "cost_madds_at_T_1000": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = 1000 * 1000 * 64
cost_ratio = 4
'''}, {"key": "size_rounded", "where": ["q8:test_score_madds"]}),
    # naming15 (blind14's kinds): the sum's reduced axis put back with unsqueeze(-1), right only for the last dim
    "softmax_sum_unsqueezed_last": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - torch.amax(x, dim=dim, keepdim=True))
    total = torch.sum(e, dim=dim)
    return e / total.unsqueeze(-1)
'''}, {"key": "keepdim_by_unsqueeze_last", "where": ["q3:test_dim_argument"]}),
    # naming15: the scale's square root written for d_k in the multiply-adds
    "cost_madds_with_scale": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = int(attn_entries * 64 ** 0.5)
cost_ratio = 4
'''}, {"key": "madds_with_sqrt_d_k", "where": ["q8:test_score_madds"]}),
    # naming17 (blind15's kinds): a (values, indices) pair from topk used as a tensor
    "softmax_topk_pair_subtracted": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    best = torch.topk(x, 1, dim=dim)
    e = torch.exp(x - best)
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"key": "reduction_tuple_as_tensor", "where": ["q3", "q5", "q6"]}),
    # naming17: torch.max's pair without keepdim, put back with unsqueeze (an AttributeError, not a TypeError)
    "softmax_max_pair_unsqueezed": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    peak = x.max(dim=dim)
    e = (x - peak.unsqueeze(dim)).exp()
    return e / e.sum(dim=dim, keepdim=True)
'''}, {"key": "reduction_tuple_as_tensor", "where": ["q3", "q5", "q6"]}),
    # naming17: the same inside scaled_dot_product_attention's own softmax (x.sub(pair): "must be Tensor, not ...")
    "sdpa_own_softmax_max_pair": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    row_max = torch.max(scores, dim=-1, keepdim=True)
    e = torch.exp(scores.sub(row_max))
    w = e / e.sum(dim=-1, keepdim=True)
    if mask is not None:
        w = torch.where(mask.any(-1, keepdim=True), w, torch.zeros_like(w))
    return w @ V
'''), {"key": "reduction_tuple_as_tensor", "where": ["q5"]}),
    # naming17: the causal weights multiplied by V3 (the output kept where the weights are asked)
    "q6_causal_weights_times_v": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1) @ V3
'''}, {"key": "weights_as_output", "where": ["q6:test_weights3_causal"]}),
    # naming19: two letters given where one is asked
    "q7_hedged_with_or": ({"q_trap_answer": 'q_trap_answer = "C or A"'}, {"key": "answer_hedged", "where": ["q7"]}),
    "q7_hedged_with_slash": ({"q_trap_answer": 'q_trap_answer = "b/c"'}, {"key": "answer_hedged", "where": ["q7"]}),
    # naming19: a parameter of the fixed signature renamed (every call passing it by name raises TypeError)
    "q3_softmax_axis_parameter": ({"stable_softmax": '''
def stable_softmax(x, axis=-1):
    shifted = x - x.amax(dim=axis, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=axis, keepdim=True)
'''}, {"key": "parameter_renamed", "where": ["q3", "q5", "q6"]}),
    "q5_mask_parameter_named_attn_mask": ({SDPA: '''
def scaled_dot_product_attention(Q, K, V, attn_mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = torch.where(attn_mask.any(-1, keepdim=True), weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''}, {"key": "parameter_renamed", "where": ["q5"]}),
    # naming19: the None default of T_k never replaced by T_q (no assignment, or one the wrong way round)
    "q4_default_T_k_never_filled": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()
'''}, {"key": "default_none_not_replaced", "where": ["q4:test_square", "q6:test_weights3_causal"]}),
    # naming30: a default naming the first parameter, evaluated when the def runs (NameError, no causal_mask);
    # q6's cell then meets causal_mask undefined (generic: causal_mask's own cell's crash is q4's)
    "q4_default_is_first_parameter": ({"causal_mask": '''
def causal_mask(T_q, T_k=T_q):
    keys = torch.arange(T_k)
    return keys[None, :] <= torch.arange(T_q)[:, None]
'''}, {"key": ("default_names_parameter", None),
       "where": ["q4", "q6:test_weights3_causal"]}),
    "q4_annotated_default_is_first_parameter": ({"causal_mask": '''
def causal_mask(T_q: int, T_k: int = T_q) -> torch.Tensor:
    """lower triangle, queries on the rows"""
    return torch.tril(torch.ones((T_q, T_k), dtype=torch.bool))
'''}, {"key": ("default_names_parameter", None),
       "where": ["q4", "q6:test_weights3_causal"]}),
    "q4_default_assigned_backwards": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    if T_k == None:
        T_q = T_k
    keys = torch.arange(T_k)
    return keys[None, :] <= torch.arange(T_q)[:, None]
'''}, {"key": "default_none_not_replaced", "where": ["q4:test_square", "q6:test_weights3_causal"]}),
    # naming19: the right answer wrapped in one more container (a trailing comma, a list around the shape)
    "q1_out_shape_in_a_list": ({"weights_shape": '''
weights_shape = (4, 10, 10)
out_shape = [(4, 10, 128)]
'''}, {"key": "answer_in_one_more_container", "where": ["q1:test_out_shape"]}),
    "q1_size_tuple_trailing_comma": ({"weights_shape": '''
weights_shape = torch.Size([4, 10, 10]),
out_shape = (4, 10, 128)
'''}, {"key": "answer_in_one_more_container", "where": ["q1:test_weights_shape"]}),
    "q8_ratio_trailing_comma": ({"attn_entries": '''
attn_entries = 1024 ** 2
score_madds = 1024 ** 2 * 64
cost_ratio = (2048 ** 2 * 64) // score_madds,
'''}, {"key": "answer_in_one_more_container", "where": ["q8:test_cost_ratio"]}),
    # naming19: the causal fill done in place on scores3 (index assignment, masked_fill_) before weights3
    "q6_index_fill_before_unmasked": ({"weights3": '''
scores3 = torch.matmul(Q3, K3.transpose(0, 1)) / 2
scores3[~causal_mask(3)] = -math.inf
weights3_causal = stable_softmax(scores3, dim=-1)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
'''}, {"key": "inplace_on_input", "where": ["q6:test_weights3"]}),
    "q6_masked_fill_statement_before_unmasked": ({"weights3": '''
scores3 = Q3 @ K3.T * 4 ** -0.5
mask3 = causal_mask(3)
scores3.masked_fill_(mask3.logical_not(), float("-inf"))
weights3_causal = torch.softmax(scores3, dim=-1)
weights3 = stable_softmax(scores3, dim=-1)
out3 = torch.matmul(weights3, V3)
'''}, {"key": "inplace_on_input", "where": ["q6:test_weights3"]}),
    # naming17: weights3 stored after the product with V3 (out3 right from its own product)
    "q6_weights3_is_output": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
attn = stable_softmax(scores3, dim=-1)
weights3 = torch.matmul(attn, V3)
out3 = attn @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "weights_as_output", "where": ["q6:test_weights3"]}),
    # naming17, the converse: out3 left as the weights (the product with V3 forgotten)
    "q6_out3_is_weights": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = stable_softmax(scores3, dim=-1)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "weights_as_output", "where": ["q6:test_out3"]}),
    # naming18: code written for one rank (inputs of another crash): fixed_axes, proven by a second call at
    # the rank the code expects that comes out right
    "q5_four_names_reshaped_for_bmm": (sdpa('''
    b, h, t, d = Q.shape
    scores = torch.bmm(Q.reshape(b * h, t, d), K.reshape(b * h, -1, d).transpose(1, 2)) / math.sqrt(d)
    scores = scores.reshape(b, h, t, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(-1, keepdim=True), weights, torch.zeros_like(weights))
    return weights @ V
'''), {"key": "fixed_axes", "where": ["q5"]}),
    "q5_transpose_2_3": (full_with("K.transpose(-2, -1)", "K.transpose(2, 3)"), {"key": "fixed_axes", "where": ["q5"]}),
    "q5_three_names_for_any_rank": (sdpa('''
    B, T, d_k = Q.shape
    scores = Q @ K.transpose(1, 2) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(-1, keepdim=True), weights, torch.zeros_like(weights))
    return weights @ V
'''), {"key": "fixed_axes", "where": ["q5"]}),
    # naming18: the causal mask in its additive form (0 allowed, a large negative or -inf blocked)
    "causal_mask_additive_neg_1e9": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return (1 - torch.ones(T_q, T_k).tril()) * -1e9
'''}, {"key": "mask_not_bool", "where": ["q4", "q6"]}),
    "causal_mask_additive_masked_fill": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    allowed = torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]
    return torch.zeros(T_q, T_k, dtype=torch.float64).masked_fill(~allowed, float("-inf"))
'''}, {"key": "mask_not_bool", "where": ["q4", "q6"]}),
    # naming18: shapes given as the text that spells them
    "q1_shapes_times_strings": ({"weights_shape": '''
weights_shape = "4x10x10"
out_shape = "4 x 10 x 128"
'''}, {"key": "shape_as_string", "where": ["q1"]}),
    "q1_shapes_str_of_size": ({"weights_shape": '''
weights_shape = str(torch.Size([4, 10, 10]))
out_shape = str((4, 10, 128))
'''}, {"key": "shape_as_string", "where": ["q1"]}),
    # naming18: how much the cost grows by, not the factor
    "q8_ratio_as_percent_increase": ({"attn_entries": '''
attn_entries = 1024 ** 2
score_madds = 1024 ** 2 * 64
cost_ratio = round((2048 ** 2 * 64 - score_madds) / score_madds * 100)
'''}, {"key": "cost_ratio_as_increase", "where": ["q8:test_cost_ratio"]}),
    "q8_ratio_as_extra_madds": ({"attn_entries": '''
attn_entries = 1024 ** 2
score_madds = 1024 ** 2 * 64
cost_ratio = 2048 ** 2 * 64 - score_madds
'''}, {"key": "cost_ratio_as_increase", "where": ["q8:test_cost_ratio"]}),
    "q8_ratio_minus_one": ({"attn_entries": '''
attn_entries = 1024 ** 2
score_madds = 1024 ** 2 * 64
cost_ratio = 2048 ** 2 * 64 / score_madds - 1
'''}, {"key": "cost_ratio_as_increase", "where": ["q8:test_cost_ratio"]}),    # naming20: a guard in the denominator that is 0 in float16, so a fully masked query is 0 / 0 there only
    "q5_renormalised_clamp_min_guard": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e4)
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
        weights = weights / weights.sum(dim=-1, keepdim=True).clamp(min=1e-9)
    return weights @ V
'''), {"key": "fully_masked_nan", "where": ["q5:test_float16"]}),
    "q5_exp_over_sum_plus_eps": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
    e = (scores - scores.amax(dim=-1, keepdim=True)).exp()
    if mask is not None:
        e = e * mask
    return (e / (e.sum(dim=-1, keepdim=True) + 1e-10)) @ V
'''), {"key": "fully_masked_nan", "where": ["q5:test_float16"]}),
    # naming20: a float32 tensor (default dtype) mixed into half scores; float32 replays run but are wrong
    "q5_additive_mask_from_zeros_default_dtype": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    bias = torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores + bias, dim=-1)
    weights = torch.where(mask.any(-1, keepdim=True), weights, torch.zeros_like(weights))
    return weights @ V
'''), {"key": "dtype_changed", "where": HALF}),
    "q5_where_with_float32_fill_tensor": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = torch.where(mask, scores, torch.full(mask.shape, float("-inf")))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ V
'''), {"key": "dtype_changed", "where": HALF}),
    # naming20: the old cost divided out without brackets (new / a * b * c)
    "q8_ratio_over_T_squared_then_d_k": ({"attn_entries": '''
attn_entries = 1024 ** 2
score_madds = attn_entries * 64
cost_ratio = 2048 ** 2 * 64 // 1024 ** 2 * 64
'''}, {"key": "ratio_denominator_unbracketed", "where": ["q8:test_cost_ratio"]}),
    "q8_ratio_float_quotient_unbracketed": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = int(2 * T * 2 * T * d_k / d_k * T * T)
'''}, {"key": "ratio_denominator_unbracketed", "where": ["q8:test_cost_ratio"]}),
    # naming21: K viewed (not transposed) to (B, d_k, T_k) on the example's own tensors
    "q2_keys_viewed_to_dk_by_T": ({"raw_score_var": '''
B, T, d_k = K.shape
scores = torch.bmm(Q, K.view(B, d_k, T))
raw_score_var = float(scores.var())
scaled_score_var = float((scores / d_k ** 0.5).var())
scale_divisor = 64 ** 0.5
'''}, {"key": "view_as_transpose", "where": ["q2:test_score_variances"]}),
    # naming21: the causal mask applied to the trace by arithmetic with an infinity (0 * -inf = NaN)
    "q6_trace_scores_times_mask_plus_inf_term": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
m = causal_mask(3)
weights3_causal = stable_softmax(scores3 * m + (~m) * float("-inf"), dim=-1)
'''}, {"key": "mask_times_inf", "where": ["q6:test_weights3_causal"]}),
    "q6_trace_bias_from_one_minus_mask": ({"weights3": '''
scores3 = torch.matmul(Q3, K3.transpose(0, 1)) / 2
weights3 = stable_softmax(scores3, dim=1)
out3 = torch.matmul(weights3, V3)
bias = (1.0 - causal_mask(3).double()) * -math.inf
weights3_causal = stable_softmax(scores3 + bias, dim=1)
'''}, {"key": "mask_times_inf", "where": ["q6:test_weights3_causal"]}),
    # naming21: the lower triangle computed and dropped (tril is not in place): a mask of all True
    "q4_tril_not_assigned": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    m = torch.ones(T_q, T_k, dtype=torch.bool)
    torch.tril(m)
    return m
'''}, {"key": "causal_mask_blocks_nothing", "where": ["q4", "q6:test_weights3_causal"]}),
    "q4_mask_from_full_then_triu_discarded": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    m = torch.full((T_q, T_q if T_k is None else T_k), True)
    m.triu(diagonal=1).logical_not()
    return m
'''}, {"key": "causal_mask_blocks_nothing", "where": ["q4", "q6:test_weights3_causal"]}),
    "q2_keys_reshaped_with_minus_one": ({"raw_score_var": '''
d_k = Q.size(-1)
Kt = K.reshape(-1, d_k, K.size(1))
raw_score_var = torch.matmul(Q, Kt).var().item()
scaled_score_var = torch.matmul(Q / math.sqrt(d_k), Kt).var().item()
scale_divisor = float(math.isqrt(64))
'''}, {"key": "view_as_transpose", "where": ["q2:test_score_variances"]}),
    # naming23: a mask default that is not None: False passes `is not None`, and ~False is the int -1
    "q5_mask_default_false": ({SDPA: FULL.replace("\n", "\ndef scaled_dot_product_attention(Q, K, V, mask=False):\n", 1)},
                              {"key": "crash_on_mask_none", "where": ["q5"]}),
    # naming23: no default at all: a call that leaves the mask out is a TypeError
    "q5_mask_without_default": ({SDPA: "def scaled_dot_product_attention(Q, K, V, mask):\n" + FULL},
                                {"key": "crash_on_mask_none", "where": ["q5"]}),    # naming24: a small constant added to the softmax's sum: each row shrinks by its own factor s / (s + eps),
    # never float32_precision (every step is float64); the generic message says the factor per slice
    # naming24: the scores divided by the root of the sequence length T = 5 (Q's axis 1), not of d_k = 8
    "q2_scaled_by_root_of_keys_count": ({"raw_score_var": '''
S = Q @ K.transpose(-2, -1)
raw_score_var = S.var().item()
scaled_score_var = (S / K.shape[-2] ** 0.5).var().item()
scale_divisor = 8.0
'''}, {"key": "scale_by_T", "where": ["q2:test_score_variances"]}),
    "q2_scaled_by_root_of_len_queries": ({"raw_score_var": '''
S = torch.einsum("bqd,bkd->bqk", Q, K)
raw_score_var = float(S.var())
scaled_score_var = float((S * len(Q[0]) ** -0.5).var())
scale_divisor = math.sqrt(64)
'''}, {"key": "scale_by_T", "where": ["q2:test_score_variances"]}),
    # naming24: the right divisor 8 left in a 0-d tensor; the notebook's check asserts (int, float)
    "q2_divisor_as_tensor_sqrt": ({"raw_score_var": '''
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(Q.shape[-1])).var().item()
scale_divisor = torch.tensor(64.0).sqrt()
'''}, {"key": "returns_tensor_not_number", "where": ["q2:test_scale_divisor"]}),
    "q2_divisor_as_tensor_pow": ({"raw_score_var": '''
S = torch.matmul(Q, K.mT)
raw_score_var = float(S.var())
scaled_score_var = float(S.div(8 ** 0.5).var())
scale_divisor = torch.as_tensor(64, dtype=torch.float64) ** 0.5
'''}, {"key": "returns_tensor_not_number", "where": ["q2:test_scale_divisor"]}),
    # naming25: the causal cell writes into weights3 through an alias (a view, a plain assignment), after out3
    "q6_causal_view_renormalised_in_place": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = weights3.view(3, 3)
weights3_causal.masked_fill_(~causal_mask(3), 0)
weights3_causal.div_(weights3_causal.sum(dim=1, keepdim=True))
'''}, {"key": "inplace_on_input", "where": ["q6:test_weights3"]}),
    "q6_causal_alias_multiplied_in_place": ({"weights3": '''
scores3 = torch.matmul(Q3, K3.transpose(0, 1)) / math.sqrt(4)
weights3 = torch.softmax(scores3, dim=1)
out3 = torch.matmul(weights3, V3)
weights3_causal = weights3
weights3_causal *= causal_mask(3)
weights3_causal /= weights3_causal.sum(-1)[:, None]
'''}, {"key": "inplace_on_input", "where": ["q6:test_weights3"]}),
    # naming25: a log-space normaliser off by the row's max: each row is the right softmax times its own factor
    "q3_torch_logsumexp_of_shifted_logits": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    shifted = x - torch.max(x, dim=dim, keepdim=True).values
    return torch.exp(x - torch.logsumexp(shifted, dim=dim, keepdim=True))
'''}, {"key": ("weights_not_normalised", "no_max_subtraction"), "where": ["q3", "q5", "q6"]}),
    "q3_numerator_left_unshifted": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    z = x - x.max(dim, keepdim=True)[0]
    return x.exp() / z.exp().sum(dim, keepdim=True)   # the denominator shifted, the numerator not
'''}, {"key": ("weights_not_normalised", "no_max_subtraction"), "where": ["q3", "q5", "q6"]}),
    # naming25: the mask reshaped for a 2-D mask with 3-D scores only: a 3-D mask, or 4-D scores, crash
    "q5_mask_repeated_per_batch_entry": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))
    if mask is not None:
        mask = mask[None].repeat(scores.size(0), 1, 1)      # one copy of the (T_q, T_k) mask per batch entry
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1).masked_fill(~mask.any(-1, keepdim=True), 0.0)
    else:
        weights = stable_softmax(scores, dim=-1)
    return weights @ V
'''), {"key": ("mask_unsqueezed", "fixed_axes"), "where": ["q5"]}),
    "q5_mask_expanded_to_batch_and_its_rows": (sdpa('''
    d_k = Q.shape[-1]
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        mask = mask.expand(scores.shape[0], mask.shape[0], mask.shape[1])
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    return torch.matmul(weights, V)
'''), {"key": ("mask_unsqueezed", "fixed_axes"), "where": ["q5"]}),
    # naming25: the empty-row test off by one: a query with a single allowed key gets zeros too
    "q5_empty_rows_below_two_keys": (full_with(
        "has_key = mask.any(dim=-1, keepdim=True)", "has_key = mask.sum(dim=-1, keepdim=True) >= 2"),
        {"key": "single_key_rows_zeroed", "where": Q5}),
    "q5_empty_rows_by_count_lt_2": (sdpa('''
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is None:
        return stable_softmax(scores, dim=-1) @ V
    weights = stable_softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    empty = mask.int().sum(-1) < 2                     # queries that see no key
    return torch.where(empty[..., None], 0.0, weights) @ V
'''), {"key": "single_key_rows_zeroed", "where": Q5}),
    # naming27: one hand-worked score wrong (its dot product or its scaling), the others right
    "q6_hand_scores_scaled_entry_twice": ({"weights3": '''
scores3 = torch.tensor([[0.5, 0.5, 1.0],
                        [0.5, 1.0, 0.5],
                        [1.0, 0.5, 1.5]], dtype=torch.float64)   # q1 . k2 = 2, halved twice
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "hand_score_slip", "where": ["q6:test_weights3", "q6:test_out3"]}),
    "q6_hand_dot_product_row0_off": ({"weights3": '''
S = torch.tensor([[1., 2., 2.],
                  [1., 2., 2.],
                  [2., 1., 3.]], dtype=torch.float64)
scores3 = S / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "hand_score_slip", "where": ["q6:test_weights3", "q6:test_out3"]}),
    # naming27: the exponentials divided by their column sums (over the queries), the max taken per row
    "q6_weights3_normalised_down_columns": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
e = torch.exp(scores3 - scores3.amax(dim=1, keepdim=True))
weights3 = e / e.sum(dim=0, keepdim=True)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "softmax_sum_wrong_axis", "where": ["q6:test_weights3", "q6:test_out3"]}),
    "q6_causal_normalised_by_column_totals": ({"weights3": '''
scores3 = torch.matmul(Q3, K3.T) / 2.0
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
kept = torch.exp(scores3) * causal_mask(3)
weights3_causal = kept / kept.sum(0)
'''}, {"key": ("softmax_wrong_dim", "softmax_sum_wrong_axis"), "where": ["q6:test_weights3_causal"]}),
    # naming27: the causal weights put through the softmax a second time
    "q6_causal_softmax_applied_again": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
weights3_causal = stable_softmax(weights3_causal.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "softmax_twice", "where": ["q6:test_weights3_causal"]}),
    "q6_causal_softmax_of_unmasked_weights": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = torch.softmax(weights3, dim=-1) * causal_mask(3)
weights3_causal = weights3_causal / weights3_causal.sum(-1, keepdim=True)
'''}, {"key": "softmax_twice", "where": ["q6:test_weights3_causal"]}),
    "q3_sum_plus_tiny_constant_add": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True).add(5e-7)
'''}, {"key": None, "where": ["q3", "q5", "q6"]}),
    "q3_reciprocal_of_sum_plus_eps": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    shifted = x - torch.max(x, dim, keepdim=True)[0]
    num = torch.exp(shifted)
    eps = 2e-6
    return num * torch.reciprocal(num.sum(dim, keepdim=True) + eps)
'''}, {"key": None, "where": ["q3", "q5", "q6"]}),
    # naming27: mask * inf through a float32 tensor: the float16 call crashes on its dtype, the float32 replay is NaN
    "q5_mask_times_inf_by_float_cast": (full_with(FILL, 'scores * mask + (~mask).float() * float("-inf")'),
                                        {"key": "mask_times_inf", "where": ["q5"]}),
    "q5_mask_times_inf_full_penalty": (full_with(FILL, 'scores.mul(mask) + torch.full(mask.shape, -math.inf) * (~mask)'),
                                       {"key": "mask_times_inf", "where": ["q5"]}),
    # naming27: the trace's row max or row sum taken without keepdim: the (3,) vector meets the columns
    "q6_trace_times_reciprocal_row_sums": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
e3 = torch.exp(scores3)
weights3 = e3 * (1 / e3.sum(dim=-1))
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "reduction_without_keepdim", "where": ["q6"]}),
    "q6_trace_shifted_sum_without_keepdim": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
e3 = torch.exp(scores3 - scores3.max(dim=1, keepdim=True).values)
weights3 = e3 / torch.sum(e3, 1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "reduction_without_keepdim", "where": ["q6"]}),
    # naming28: d_k taken from a rank (a number of axes), a constant of the input's layout, not its width;
    # the float16 large-scores test names it too now (and the timing test, whose timed values it explains)
    "q5_d_k_from_len_of_q_shape": (full_with("d_k = Q.size(-1)", "d_k = len(Q.shape)"),
                                   {"key": "scale_constant", "where": ["q5"]}),
    "q5_d_k_from_rank_of_v_plus_one": (full_with("d_k = Q.size(-1)", "d_k = V.ndim + 1"),
                                       {"key": "scale_constant", "where": ["q5"]}),
    # answer forms, now judged by the engine's expect_choice for every multiple-choice question
    "q7_right_letter_written_out_colon": ({"q_trap_answer": 'q_trap_answer = "C: the rows stop adding up to 1"'},
                                          {"key": "answer_extra_characters", "where": ["q7"]}),
    "q7_right_letter_in_a_list": ({"q_trap_answer": 'q_trap_answer = ["C"]'},
                                  {"key": "answer_in_container", "where": ["q7"]}),
    "q7_right_letter_quoted_twice": ({"q_trap_answer": "q_trap_answer = \"'C'\""},
                                     {"key": "answer_extra_characters", "where": ["q7"]}),
    # naming29: the diagonal left out of the count (each token against every OTHER token)
    "q8_entries_without_the_diagonal": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T * T - T
score_madds = T * T * d_k
cost_ratio = 4
'''}, {"key": "self_pairs_left_out", "where": ["q8:test_attn_entries"]}),
    "q8_madds_over_distinct_pairs": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T ** 2
score_madds = (T ** 2 - T) * d_k
cost_ratio = 4
'''}, {"key": "self_pairs_left_out", "where": ["q8:test_score_madds"]}),
    # naming29: a cell's product crash, replayed on the question's own shapes
    "q1_probe_bmm_without_transpose": ({"weights_shape": '''
q, k = torch.empty(4, 10, 64), torch.empty(4, 10, 64)
weights_shape = tuple(torch.bmm(q, k).shape)
out_shape = (4, 10, 128)
'''}, {"key": "keys_not_transposed", "where": ["q1"]}),   # the cell's crash leaves out_shape undefined too
    "q1_probe_dot_T_on_batched_keys": ({"weights_shape": '''
q, k, v = torch.ones(4, 10, 64), torch.ones(4, 10, 64), torch.ones(4, 10, 128)
scores = q @ k.T
weights_shape = tuple(scores.shape)
out_shape = tuple((scores @ v).shape)
'''}, {"key": "fixed_axes", "where": ["q1"]}),
    "q2_matmul_without_transpose": ({"raw_score_var": '''
d_k = Q.size(-1)
raw = torch.matmul(Q, K)
raw_score_var = raw.var().item()
scaled_score_var = (raw / d_k ** 0.5).var().item()
scale_divisor = 8.0
'''}, {"key": "keys_not_transposed", "where": ["q2"]}),   # the cell's crash leaves scale_divisor undefined too
    # naming29: a constant added to every weight (the epsilon outside the fraction), proven by replay
    "q3_guard_added_after_division": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    z = x - x.amax(dim=dim, keepdim=True)
    w = z.exp().div(z.exp().sum(dim=dim, keepdim=True))
    return w.add(1e-8)
'''}, {"key": "epsilon_added_to_weights", "where": ["q3", "q5", "q6"]}),
    "q5_weights_smoothed_before_values": (full_with("return torch.matmul(weights, V)",
                                                    "return torch.matmul(weights + 1e-7, V)"),
                                          {"key": "epsilon_added_to_weights", "where": ["q5"]}),
    # naming29: the trace's output as an elementwise product (a crash the cell stops on, replayed on the trace)
    "q6_out_as_values_times_weights": ({"weights3": '''
scores3 = Q3 @ K3.T / 2
weights3 = stable_softmax(scores3, dim=-1)
out3 = V3 * weights3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "output_keeps_key_axis", "where": ["q6"]}),
    # naming29: a variance per slice (var along one dim) then .item(): the cell's crash replayed on the scores
    "q2_var_along_last_dim_item": ({"raw_score_var": '''
scores = torch.matmul(Q, K.transpose(1, 2))
raw_score_var = scores.var(dim=-1).item()
scaled_score_var = (scores / Q.shape[-1] ** 0.5).var(dim=-1).item()
scale_divisor = 8.0
'''}, {"key": "mean_of_slice_variances", "where": ["q2"]}),   # the cell's crash leaves scale_divisor undefined too
    "q2_torch_var_positional_axis_0": ({"raw_score_var": '''
s = Q @ K.transpose(-2, -1)
raw_score_var = torch.var(s, 0).item()
scaled_score_var = torch.var(s / math.sqrt(8), 0).item()
scale_divisor = math.sqrt(64)
'''}, {"key": "mean_of_slice_variances", "where": ["q2"]}),
    # naming29: a mask cached by one length, so the result depends on an earlier call (second calls prove it)
    "q4_cache_keyed_by_keys_only": ({"causal_mask": '''
_by_keys = {}
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    if T_k not in _by_keys:
        _by_keys[T_k] = torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]
    return _by_keys[T_k]
'''}, {"key": "nondeterministic", "where": ["q4", "q5", "q6"]}),
    "q4_cache_by_setdefault": ({"causal_mask": '''
_seen = {}
def causal_mask(T_q, T_k=None):
    return _seen.setdefault(T_q, torch.ones(T_q, T_q if T_k is None else T_k, dtype=torch.bool).tril())
'''}, {"key": "nondeterministic", "where": ["q4", "q5", "q6"]}),
    # naming29: the scale's square root taken twice (d_k ** 0.25), replayed on the input and on two d_k probes;
    # test_float16_large_scores: float16 rounding keeps the replay out of tolerance; the one-edit search says the fix
    # there (its budget is CPU time: make test's load on 2 cores no longer leaves it unreached)
    "q5_sqrt_of_sqrt_scale": (full_with(SCALE, "/ math.sqrt(math.sqrt(d_k))"),
                              {"key": ("scale_root_taken_twice", "one_edit_fix"), "where": ["q5"]}),
    "q5_scale_from_rooted_width": (full_with("d_k = Q.size(-1)", "d_k = Q.size(-1) ** 0.5"),
                                   {"key": ("scale_root_taken_twice", "one_edit_fix"), "where": ["q5"]}),
    # naming29: the softmax axis "moved to the end" by reversing or swapping axis 0, not dim: replayed on the input
    "q3_axis_zero_swapped_with_last": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    if dim not in (-1, x.ndim - 1):
        return stable_softmax(x.transpose(0, -1)).transpose(0, -1)
    e = (x - x.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)
'''}, {"key": "fixed_axes", "where": ["q3:test_dim_argument"]}),
    "q3_all_axes_reversed_by_permute": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    order = list(range(x.ndim))[::-1]
    if dim % x.ndim != x.ndim - 1:
        return stable_softmax(x.permute(*order), -1).permute(*order)
    shifted = x - x.max(dim=-1, keepdim=True).values
    return shifted.exp() / shifted.exp().sum(dim=-1, keepdim=True)
'''}, {"key": "fixed_axes", "where": ["q3:test_dim_argument"]}),
    "q6_out_as_torch_mul": ({"weights3": '''
scores3 = torch.matmul(Q3, K3.transpose(0, 1)) / 2.0
weights3 = stable_softmax(scores3, dim=-1)
out3 = torch.mul(weights3, V3)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "output_keeps_key_axis", "where": ["q6"]}),
}

WRONG.update({
    # naming30 (engine crash words): masked_fill given its value before its mask, as a method and as a function
    "sdpa_masked_fill_value_first": (full_with(FILL, 'scores.masked_fill(float("-inf"), mask.logical_not())'),
                                     {"key": "masked_fill_arguments_swapped", "where": ["q5"]}),
    "sdpa_torch_masked_fill_value_first": (full_with(FILL, 'torch.masked_fill(scores, -1e9, ~mask)'),
                                           {"key": "masked_fill_arguments_swapped", "where": ["q5"]}),
    # naming30 (engine): a name the notebook makes only in a later cell, read top to bottom (NameError)
    "shapes_width_from_later_example": ({"weights_shape": "weights_shape = (4, 10, 10)\n"
                                                          "out_shape = (*weights_shape[:2], Vc.shape[-1] * 16)\n"},
                                        {"key": "name_not_yet_defined", "where": ["q1"]}),
    "variance_divisor_from_later_example": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(Qc.shape[-1])).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "name_not_yet_defined", "where": ["q2"]}),
})

WRONG.update({
    # naming30 (engine answer_in_other_unit): a count in other units, with decimals and as a whole number
    "costs_entries_in_millions_with_decimals": ({"attn_entries": '''
attn_entries = round(1024 * 1024 / 1e6, 2)      # 1.05 million
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''}, {"key": "answer_in_other_unit", "where": ["q8:test_attn_entries"]}),
    "costs_madds_in_thousands": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = 1024 * 1024 * 64 // 1000          # in thousands of multiply-adds
cost_ratio = 4
'''}, {"key": "answer_in_other_unit", "where": ["q8:test_score_madds"]}),
})

SOFTMAX_CELL = '''def stable_softmax(x, dim=-1):
    shifted = x - x.max(dim=dim, keepdim=True).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
'''

WRONG.update({
    # naming30 (engine crash words, from the mutant sweep): a reduction given keepdim but no dim
    "softmax_sum_keepdim_without_dim": ({"stable_softmax": SOFTMAX_CELL.replace("exps.sum(dim=dim, keepdim=True)",
                                                                               "exps.sum(keepdim=True)")},
                                        {"key": "reduction_dim_missing", "where": ["q3", "q5", "q6"]}),
    "softmax_torch_max_keepdim_without_dim": ({"stable_softmax": SOFTMAX_CELL.replace(
        "x.max(dim=dim, keepdim=True).values", "torch.max(x, keepdim=True).values")},
        {"key": "reduction_dim_missing", "where": ["q3", "q5", "q6"]}),
    # torch.where given a float condition (the keep flags as 0/1 numbers)
    "sdpa_where_float_has_key": (full_with("torch.where(has_key, weights", "torch.where(has_key.float(), weights"),
                                 {"key": "where_condition_not_bool", "where": ["q5", "q6"]}),
    "sdpa_where_mask_as_scores_dtype": (full_with(FILL, 'torch.where(mask.to(scores.dtype), scores, float("-inf"))'),
                                        {"key": "where_condition_not_bool", "where": ["q5", "q6"]}),
    # masked_fill given a whole tensor as its value
    "sdpa_masked_fill_zeros_tensor": (full_with("torch.where(has_key, weights, torch.zeros_like(weights))",
                                                "weights.masked_fill(~has_key, torch.zeros_like(weights))"),
                                      {"key": "masked_fill_tensor_value", "where": ["q5", "q6"]}),
    "sdpa_masked_fill_full_like": (full_with(FILL, 'scores.masked_fill(mask == False, torch.full_like(scores, float("-inf")))'),
                                   {"key": "masked_fill_tensor_value", "where": ["q5", "q6"]}),
    # math's missing functions, torch's for tensors
    "sdpa_math_rsqrt_scale": (full_with(SCALE, "* math.rsqrt(d_k)"), {"key": "math_lacks_function",
                                                                      "where": ["q5", "q6"]}),
    "softmax_math_logsumexp": ({"stable_softmax": "def stable_softmax(x, dim=-1):\n"
                                                  "    return torch.exp(x - math.logsumexp(x, dim, keepdim=True))\n"},
                                   {"key": "math_lacks_function", "where": ["q3", "q5", "q6"]}),
})

TRACE_CELL = '''scores3 = Q3 @ K3.T / 2.0
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''

WRONG.update({
    # naming30: the trace scaled by a fixed sqrt(8) (Question 2's d_k), written as a number or read off the stale Q
    "trace_scale_eight_as_number": ({"weights3": TRACE_CELL.replace("/ 2.0", "/ 8 ** 0.5")},
                                    {"key": "scale_constant", "where": ["q6"]}),
    "trace_scale_from_batched_Q": ({"weights3": TRACE_CELL.replace("Q3 @ K3.T / 2.0",
                                                                   "torch.matmul(Q3, K3.t()) * Q.shape[-1] ** -0.5")},
                                   {"key": "scale_constant", "where": ["q6"]}),
    # naming30: the trace's output from a tensor of Question 2's batched example (2, 5, 8): a crash in out3's cell
    "trace_out_from_batched_K": ({"weights3": TRACE_CELL.replace("out3 = weights3 @ V3", "out3 = weights3 @ K")},
                                 {"key": "trace_uses_batched_example", "where": ["q6"]}),
    "trace_out_matmul_batched_V": ({"weights3": TRACE_CELL.replace("out3 = weights3 @ V3",
                                                                   "out3 = torch.matmul(weights3, V)")},
                                   {"key": "trace_uses_batched_example", "where": ["q6"]}),
})
CORRECT.update({
    # naming30: the trace's scale from its own width through rsqrt, the output as a broadcast sum over the keys
    "trace_rsqrt_width_broadcast_sum": {"weights3": TRACE_CELL.replace(
        "Q3 @ K3.T / 2.0", "Q3 @ K3.T * torch.rsqrt(torch.tensor(float(Q3.size(1))))").replace(
        "out3 = weights3 @ V3", "out3 = (weights3.unsqueeze(-1) * V3.unsqueeze(0)).sum(1)")},
})

VAR_CELL = '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''

WRONG.update({
    # naming30: torch.var_mean's second result (the mean) taken for the variance, by index or by name
    "variance_var_mean_second_result": ({"raw_score_var": VAR_CELL.replace(
        "raw_scores.var().item()", "torch.var_mean(raw_scores)[1].item()").replace(
        "(raw_scores / math.sqrt(d_k)).var().item()", "torch.var_mean(raw_scores / math.sqrt(d_k))[1].item()")},
        {"key": "variance_mean_swapped", "where": ["q2"]}),
    "variance_var_mean_stats_last": ({"raw_score_var": VAR_CELL.replace(
        "raw_score_var = raw_scores.var().item()",
        "stats = torch.var_mean(raw_scores, dim=(0, 1, 2))\nraw_score_var = float(stats[-1])")},
        {"key": "variance_mean_swapped", "where": ["q2"]}),
    # naming30: exponentials divided by their L2 norm (no row sum): the float16 tests name it too
    "softmax_divided_by_l2_norm": ({"stable_softmax": SOFTMAX_CELL.replace(
        "exps / exps.sum(dim=dim, keepdim=True)", "exps / exps.norm(dim=dim, keepdim=True)")},
        {"key": "weights_not_normalised", "where": ["q3", "q5", "q6"]}),
    "softmax_vector_norm_ord2": ({"stable_softmax": SOFTMAX_CELL.replace(
        "exps / exps.sum(dim=dim, keepdim=True)",
        "exps / torch.linalg.vector_norm(exps, ord=2, dim=dim, keepdim=True)")},
        {"key": "weights_not_normalised", "where": ["q3", "q5", "q6"]}),
})
CORRECT.update({
    # naming30: var_mean unpacked in its own order through map(float, ...); a softmax divided by its L1 norm
    "variance_var_mean_map_float": {"raw_score_var": VAR_CELL.replace(
        "raw_score_var = raw_scores.var().item()", "raw_score_var, _ = map(float, torch.var_mean(raw_scores))")},
    "softmax_vector_norm_ord1": {"stable_softmax": SOFTMAX_CELL.replace(
        "exps / exps.sum(dim=dim, keepdim=True)",
        "exps / torch.linalg.vector_norm(exps, ord=1, dim=dim, keepdim=True)")},
})

WRONG.update({
    # naming30 (engine crash words): a power written with ^ (xor, binding after /): torch's own NotImplementedError,
    # a crash, not a stub
    "sdpa_caret_square_root": (full_with(SCALE, "/ d_k ^ 0.5"), {"key": "caret_for_power", "where": ["q5", "q6"]}),
})

WRONG.update({
    # naming30 (engine crash words, after blind25): numpy never imported; torch.finfo of a tensor; a dtype where the
    # device goes; NumPy's ddof= on a torch variance
    "sdpa_np_sqrt_not_imported": (full_with(SCALE, "/ np.sqrt(d_k)"), {"key": "module_not_imported",
                                                                      "where": ["q5", "q6"]}),
    "softmax_np_exp_not_imported": ({"stable_softmax": SOFTMAX_CELL.replace("torch.exp(shifted)", "np.exp(shifted)")},
                                    {"key": "module_not_imported", "where": ["q3", "q5", "q6"]}),
    "sdpa_finfo_of_scores": (full_with('float("-inf")', "torch.finfo(scores).min"),
                             {"key": "finfo_of_tensor", "where": ["q5", "q6"]}),
    "causal_ones_device_bool": ({"causal_mask": '''def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, device=torch.bool).tril()
'''}, {"key": "dtype_for_device", "where": ["q4", "q5", "q6"]}),
    "variance_std_ddof_squared": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.std(ddof=1).item() ** 2
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "numpy_keyword", "where": ["q2"]}),
})

WRONG.update({
    # naming31: the unordered pairs of two different tokens, T (T - 1) / 2 (each pair once, no token with itself)
    "q8_entries_pairs_of_distinct_tokens": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T * (T - 1) // 2
score_madds = T * T * d_k
cost_ratio = 4
'''}, {"key": "distinct_pairs_counted_once", "where": ["q8:test_attn_entries"]}),
    "q8_madds_over_perm_halved": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T ** 2
score_madds = math.perm(T, 2) // 2 * d_k
cost_ratio = 4
'''}, {"key": "distinct_pairs_counted_once", "where": ["q8:test_score_madds"]}),
    # naming31: the multiply-adds with the width of all heads (d_model = 512, or 8 heads' costs added)
    "q8_madds_eight_heads_added": ({"attn_entries": '''
attn_entries = 1024 * 1024
score_madds = sum(1024 * 1024 * 64 for _head in range(8))
cost_ratio = 4
'''}, {"key": "madds_all_heads_width", "where": ["q8:test_score_madds"]}),
    "q8_madds_with_model_width": ({"attn_entries": '''
d_model, n_heads = 512, 8
T = 1024
attn_entries = T * T
score_madds = T ** 2 * d_model
cost_ratio = 4
'''}, {"key": "madds_all_heads_width", "where": ["q8:test_score_madds"]}),
    # naming31: d_k taken as the number of dimensions of the scores or of Q (3), not the last size (8)
    "variance_scale_by_scores_ndim": ({"raw_score_var": VAR_CELL.replace(
        "(raw_scores / math.sqrt(d_k))", "(raw_scores / math.sqrt(raw_scores.ndim))")},
        {"key": "scale_from_ndim", "where": ["q2"]}),
    "variance_scale_by_len_of_shape": ({"raw_score_var": VAR_CELL.replace("d_k = Q.shape[-1]", "d_k = len(Q.shape)")},
                                       {"key": "scale_from_ndim", "where": ["q2"]}),
    # naming31: the variance as a mean of squares (no mean subtracted), / n or / (n - 1)
    "variance_mean_of_squares": ({"raw_score_var": VAR_CELL.replace(
        "raw_scores.var().item()", "(raw_scores ** 2).mean().item()").replace(
        "(raw_scores / math.sqrt(d_k)).var().item()", "((raw_scores / math.sqrt(d_k)) ** 2).mean().item()")},
        {"key": "variance_as_mean_square", "where": ["q2"]}),
    "variance_sum_of_squares_n_minus_1": ({"raw_score_var": VAR_CELL.replace(
        "raw_score_var = raw_scores.var().item()",
        "raw_score_var = float(raw_scores.square().sum() / (raw_scores.numel() - 1))")},
        {"key": "variance_as_mean_square", "where": ["q2"]}),
})
CORRECT.update({
    # naming31: T^2 as twice the distinct pairs plus the diagonal, d_k as a shift; the variance of centred scores
    # summed by hand with d_k read through Q.dim()
    "q8_pairs_both_orders_plus_diagonal": {"attn_entries": '''
attn_entries = 2 * math.comb(1024, 2) + 1024
score_madds = attn_entries << 6
cost_ratio = (2 * 1024) ** 2 // 1024 ** 2
'''},
    "variance_centred_sum_last_size_by_dim": {"raw_score_var": '''
d_k = Q.size()[Q.dim() - 1]
raw_scores = Q @ K.transpose(-2, -1)
c = raw_scores - raw_scores.mean()
raw_score_var = float(c.pow(2).sum() / (c.numel() - 1))
scaled_score_var = float((c / math.sqrt(d_k)).pow(2).sum() / (c.numel() - 1))
scale_divisor = math.sqrt(64)
'''},
})

WRONG.update({
    # naming32: the scores divided by their own measured spread instead of sqrt(d_k): over the whole tensor
    # (unbiased), and per (batch, head) matrix through the biased variance's root
    "q5_scores_over_global_std": (full_with("scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
                                            "scores = torch.matmul(Q, K.transpose(-2, -1))\n"
                                            "    scores = scores / scores.std()"),
                                  {"key": "scores_divided_by_own_std", "where": Q5}),
    "q5_scores_over_matrix_biased_spread": (full_with(
        "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
        "raw = Q @ K.mT\n    scores = raw / raw.var(dim=(-2, -1), keepdim=True, unbiased=False).sqrt()"),
        {"key": "scores_divided_by_own_std", "where": Q5}),
})
CORRECT.update({
    # naming32: sqrt(d_k) measured as the length of a vector of d_k ones (math.hypot): the constant, not a spread
    "q5_scale_as_hypot_of_ones": full_with("scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
                                           "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.hypot(*[1.0] * d_k)"),
})

WRONG.update({
    # naming32: no max shift, the exponentials taken in float64 (which only moves the overflow past 709): in the
    # log domain, and with the NaN of inf / inf turned into 0
    "q3_float64_log_domain_without_shift": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    x64 = x.to(torch.float64)
    log_z = torch.log(torch.exp(x64).sum(dim=dim, keepdim=True))
    return torch.exp(x64 - log_z).to(x.dtype)
'''}, {"key": "no_max_subtraction", "where": ["q3:test_float16_logits_in_the_thousands"]}),
    "q3_float64_unshifted_nan_zeroed": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = x.double().exp()
    p = torch.nan_to_num(e / e.sum(dim, keepdim=True), nan=0.0)
    return p.type(x.dtype)
'''}, {"key": "no_max_subtraction", "where": ["q3:test_float16_logits_in_the_thousands"]}),
})
CORRECT.update({
    # naming32: the shift by the max taken in float64, written with torch.max's values and an in-place exp
    "q3_float64_shift_inplace_exp": {"stable_softmax": '''
def stable_softmax(x, dim=-1):
    y = x.double()
    top = torch.max(y, dim, keepdim=True).values
    y = (y - torch.where(top.isfinite(), top, torch.zeros_like(top))).exp_()
    total = y.sum(dim, keepdim=True)
    return (y / torch.where(total > 0, total, torch.ones_like(total))).to(x.dtype)
'''},
})

WRONG.update({
    # naming32: the inputs read sequence-first (tokens, batch, features), as nn.MultiheadAttention without
    # batch_first: the weights' shape from the swapped leading sizes, and from a product of axis-swapped inputs
    "q1_weights_from_time_major_sizes": ({"weights_shape": '''
L, N, E = 4, 10, 64              # (sequence, batch, embedding)
weights_shape = (N, L, L)
out_shape = (4, 10, 128)
'''}, {"key": "sequence_first_layout", "where": ["q1:test_weights_shape"]}),
    "q1_weights_from_batch_first_transposed_product": ({"weights_shape": '''
_q = torch.zeros(4, 10, 64).transpose(0, 1)      # to batch-first, reading axis 0 as the tokens
weights_shape = tuple((_q @ _q.transpose(1, 2)).shape)
out_shape = (4, 10, 128)
'''}, {"key": "sequence_first_layout", "where": ["q1:test_weights_shape"]}),
})
CORRECT.update({
    # naming32: the shapes built from a dict of named sizes and torch.Size's own concatenation
    "q1_shapes_from_named_sizes": {"weights_shape": '''
_sizes = {"batch": 4, "tokens": 10, "d_v": 128}
weights_shape = tuple(torch.Size([_sizes["batch"]]) + torch.Size([_sizes["tokens"]] * 2))
out_shape = (_sizes["batch"], _sizes["tokens"], _sizes["d_v"])
'''},
})

# after blind30 (q1_out_shape_keys_t_values): the output sized as a product over the tokens, X^T V (d_k x d_v)
WRONG.update({
    "q1_out_shape_from_queries_t_values": ({"weights_shape": '''
_Q, _V = torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)
weights_shape = (4, 10, 10)
out_shape = tuple((_Q.transpose(1, 2) @ _V).shape)
'''}, {"key": "output_as_features_product", "where": ["q1"]}),
    # issue 21, after blind31: d_k added where it multiplies (T * T ^ d_k gives the same number: the source tells)
    "q8_madds_d_k_added": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T ** 2
score_madds = T ** 2 + d_k
cost_ratio = 4
'''}, {"key": "madds_d_k_added", "where": ["q8"]}),
    # issue 21, after blind31: the mask one row and column short (positions counted from 1) or long, and a mask
    # reshaped with leading 1s where the mask has its own batch axis
    "q4_positions_from_one": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    rows, cols = torch.arange(1, T_q), torch.arange(1, T_k)
    return cols[None, :] <= rows[:, None]
'''}, {"key": "mask_size_off_by_one", "where": ["q4", "q5", "q6"]}),
    "q4_positions_one_past_the_end": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.tril(torch.ones(T_q + 1, T_k + 1, dtype=torch.bool))
'''}, {"key": "mask_size_off_by_one", "where": ["q4", "q5", "q6"]}),
    "mask_reshaped_with_leading_ones": (full_with("    if mask is not None:\n",
                                                  "    if mask is not None:\n        mask = mask.reshape(1, 1, "
                                                  "Q.shape[-2], K.shape[-2])\n"),
                                        # every q5 test crashes on the view, the rule tests too
                                        {"key": ("view_leading_ones", "size_one_axes_added"), "where": ["q5"]}),
    # the output computed on both paths, returned only on the masked one
    "return_only_when_masked": (sdpa('''
    d_k = Q.size(-1)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.nan_to_num(stable_softmax(scores, dim=-1))
        return weights @ V
    weights = stable_softmax(scores, dim=-1)
    out = weights @ V
'''), {"key": "return_missing_on_path", "where": [*Q5, "q6"]}),
    # the batch's tokens flattened into one sequence before the scores
    "q1_weights_for_the_batch_as_one_sequence": ({"weights_shape": '''
_Q, _V = torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)
tokens = _Q.reshape(-1, 64)
weights_shape = tuple((tokens @ tokens.T).shape)
out_shape = (4, 10, 128)
'''}, {"key": "batch_as_one_sequence", "where": ["q1"]}),
    # T * 2 for T ** 2 in both counts (2 T d_k alone also reads as twice one query's multiply-adds)
    "q8_madds_square_as_times_two": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T * 2
score_madds = T * 2 * d_k
cost_ratio = 4
'''}, {"key": "square_as_times_two", "where": ["q8"]}),
})

# after blind32 (q3_shift_subtracted_backwards, q3_max_subtracted_outside_exp): the shift the wrong way round is
# the softmax of -x, told from subtracting the minimum by tame logits; a call's parenthesis closed too early is
# one edit, found even where an overflow test names the missing shift
WRONG.update({
    "q3_exp_of_max_minus_x": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    top = torch.max(x, dim=dim, keepdim=True).values
    z = torch.exp(top - x)
    return z / torch.sum(z, dim=dim, keepdim=True)
'''}, {"key": ("softmax_of_negated", "one_edit_fix"), "where": ["q3", "q5", "q6"]}),
    "q3_negated_shift_in_log_domain": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    shifted = -(x - x.amax(dim, keepdim=True))
    return torch.exp(shifted - torch.logsumexp(shifted, dim, keepdim=True))
'''}, {"key": ("softmax_of_negated", "one_edit_fix"), "where": ["q3", "q5", "q6"]}),
    "q3_max_subtracted_after_exp": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    num = x.exp() - m
    return num / num.sum(dim=dim, keepdim=True)
'''}, {"key": ("one_edit_fix", "no_max_subtraction"), "where": ["q3", "q5", "q6"]}),
})

# after blind32 (round 33): every query paired with the keys of every sequence (torch.inner) is the batch read
# as one sequence, replayed on the example's own Q and K; query positions not on their own axis (expanded along
# the rows like the keys) are told from a tril() never assigned by the rectangular call; a NumPy round trip's
# gradient crash is not re-run without gradients; the causal mask in the unmasked weights' own cell
WRONG.update({
    "q2_scores_by_einsum_over_both_batches": ({"raw_score_var": VAR_CELL.replace(
        "Q @ K.transpose(-2, -1)", "torch.einsum('bqd,ckd->bqck', Q, K)")},
        {"key": "batch_as_one_sequence", "where": ["q2"]}),
    "q2_scores_of_the_flattened_batch": ({"raw_score_var": VAR_CELL.replace(
        "Q @ K.transpose(-2, -1)", "Q.reshape(-1, Q.shape[-1]) @ K.reshape(-1, K.shape[-1]).T")},
        {"key": "batch_as_one_sequence", "where": ["q2"]}),
    "q2_scores_by_tensordot": ({"raw_score_var": VAR_CELL.replace(
        "Q @ K.transpose(-2, -1)", "torch.tensordot(Q, K, dims=([2], [2]))")},
        {"key": "batch_as_one_sequence", "where": ["q2"]}),
    "q4_positions_repeated_along_the_rows": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    keys = torch.arange(T_k).repeat(T_q, 1)
    queries = torch.arange(T_q).repeat(T_k, 1)
    return queries >= keys
'''}, {"key": "mask_not_outer", "where": ["q4", "q5", "q6"]}),
    "q4_both_positions_as_rows": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = T_q
    i = torch.arange(T_q).unsqueeze(0)
    j = torch.arange(T_k).unsqueeze(0)
    return j <= i
'''}, {"key": "mask_not_outer", "where": ["q4", "q5", "q6"]}),
    "q4_positions_expanded_comparison_negated": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_k or T_q
    key_pos = torch.arange(T_k).expand(T_q, -1)
    query_pos = torch.arange(T_q).expand(T_k, -1)
    return ~(key_pos > query_pos)
'''}, {"key": "mask_not_outer", "where": ["q4", "q5", "q6"]}),
    "q5_scores_through_numpy_matmul": (full_with(
        "scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)",
        "import numpy as np\n    scores = torch.tensor(np.matmul(Q.numpy(), np.swapaxes(K.numpy(), -1, -2))) "
        "/ math.sqrt(d_k)"), {"key": ("numpy_round_trip", "gradient_cut"), "where": ["q5"]}),
    "q5_output_through_numpy": (full_with(
        "return torch.matmul(weights, V)",
        "return torch.from_numpy(weights.cpu().numpy() @ V.cpu().numpy())"),
        {"key": ("numpy_round_trip", "gradient_cut"), "where": ["q5"]}),
    "q6_causal_fill_in_the_unmasked_cell": ({"weights3": TRACE_CELL.replace(
        "weights3 = stable_softmax(scores3, dim=-1)",
        "weights3 = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)")},
        {"key": "causal_mask_in_unmasked_weights", "where": ["q6"]}),
    "q6_unmasked_weights_with_triu_bias": ({"weights3": TRACE_CELL.replace(
        "weights3 = stable_softmax(scores3, dim=-1)",
        "weights3 = torch.softmax(scores3 + torch.full((3, 3), float('-inf')).triu(1), dim=-1)")},
        {"key": "causal_mask_in_unmasked_weights", "where": ["q6"]}),
})

# after blind32 (q1_out_width_true_division_float): a shape holding a whole float is float_for_int (engine)
WRONG.update({
    "q1_out_shape_halved_with_true_division": ({"weights_shape": '''
B, T, d_v = 4, 10, 256
weights_shape = (B, T, T)
out_shape = (B, T, d_v / 2)
'''}, {"key": "float_for_int", "where": ["q1"]}),
    "q1_weights_shape_from_float_sizes": ({"weights_shape": '''
sizes = {"B": 4.0, "T": 10.0}
weights_shape = (int(sizes["B"]), sizes["T"], sizes["T"])
out_shape = (4, 10, 128)
'''}, {"key": "float_for_int", "where": ["q1"]}),
})

# after blind33: the engine's new mechanisms, each kind in forms of my own (one-edit fixes agreeing on one place;
# torch.where missing its third value; a typed count with a slip; a number in quotes; an answer left empty)
_Q2_CELL = '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''
_COUNTS = '''
attn_entries = 1024 ** 2
score_madds = 1024 * 1024 * 64
cost_ratio = 4
'''
WRONG.update({
    "q3_negative_dim_made_positive_by_subtracting_from_ndim": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    d = dim
    if d < 0:
        d = x.ndim - d
    shifted = x - x.amax(dim=d, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=d, keepdim=True)
'''}, {"key": ("one_edit_fix", None), "where": ["q3", "q5", "q6"]}),   # None: q6's trace cell stopped in it (its error)
    "q5_masked_scores_where_without_fill_value": (full_with(
        'scores = scores.masked_fill(mask == False, float("-inf"))', "scores = torch.where(mask, scores)"),
        {"key": "where_missing_value", "where": ["q5"]}),
    "q5_empty_rows_tensor_where_without_other": (full_with(
        "weights = torch.where(has_key, weights, torch.zeros_like(weights))", "weights = weights.where(has_key)"),
        {"key": "where_missing_value", "where": ["q5"]}),
    "q8_entries_typed_with_two_digits_swapped": ({"attn_entries": _COUNTS.replace("1024 ** 2", "1048756")},
                                                 {"key": "number_typo", "where": ["q8"]}),
    "q8_madds_typed_with_a_digit_repeated": ({"attn_entries": _COUNTS.replace("1024 * 1024 * 64", "671088864")},
                                             {"key": "number_typo", "where": ["q8"]}),
    "q8_madds_typed_with_a_digit_left_out": ({"attn_entries": _COUNTS.replace("1024 * 1024 * 64", "6710864")},
                                             {"key": "number_typo", "where": ["q8"]}),
    "q2_scale_divisor_in_quotes": ({"scale_divisor": _Q2_CELL.replace("scale_divisor = math.sqrt(64)",
                                                                      'scale_divisor = "8.0"')},
                                   {"key": "number_as_string", "where": ["q2"]}),
    "q2_scale_divisor_formatted_as_text": ({"scale_divisor": _Q2_CELL.replace(
        "scale_divisor = math.sqrt(64)", 'scale_divisor = f"{math.sqrt(64):.1f}"')},
        {"key": "number_as_string", "where": ["q2"]}),
    "q7_trap_answer_left_as_none": ({"q_trap_answer": "q_trap_answer = None  # come back to this\n"},
                                    {"key": "answer_left_empty", "where": ["q7"]}),
    "q7_trap_answer_blank": ({"q_trap_answer": 'q_trap_answer = "  "\n'},
                             {"key": "answer_left_empty", "where": ["q7"]}),
})

# round35 (blind34): a softmax shifted by each slice's median (looked like one global max on the float32 probe);
# written differently: a kthvalue median and nanmedian. None: q5 bfloat16 and q6's trace cell are told what differs
WRONG.update({
    "q3_shift_by_kth_smallest_middle": ({"stable_softmax": '''def stable_softmax(x, dim=-1):
    k = (x.shape[dim] + 1) // 2
    centre = x.kthvalue(k, dim=dim, keepdim=True).values
    z = torch.exp(x - centre)
    return z / z.sum(dim=dim, keepdim=True)
'''}, {"key": ("softmax_subtracts_median", None), "where": ["q3", "q5", "q6"]}),
    "q3_shift_by_nanmedian": ({"stable_softmax": '''def stable_softmax(x, dim=-1):
    mid = torch.nanmedian(x, dim=dim, keepdim=True)[0]
    num = (x - mid).exp()
    den = num.sum(dim, keepdim=True)
    return num / den
'''}, {"key": ("softmax_subtracts_median", None), "where": ["q3", "q5", "q6"]}),
})

# after blind34: one name put for another in every place of one statement; a size read off a global of the notebook
# where the def's parameter is meant (the engine's edits)
WRONG.update({
    "q4_flat_positions_divided_by_query_count": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    flat = torch.arange(T_q * T_k).view(T_q, T_k)
    i, j = torch.div(flat, T_q, rounding_mode="floor"), torch.remainder(flat, T_q)
    return j <= i
'''}, {"key": "one_edit_fix", "where": ["q4", "q5", "q6"]}),
    "q4_default_key_count_from_global_queries": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    if T_k is None:
        T_k = Q.shape[-2]
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()
'''}, {"key": ("one_edit_fix", None), "where": ["q4", "q5", "q6"]}),
    "q4_default_key_count_from_global_scores": ({"causal_mask": '''
def causal_mask(T_q, T_k=None):
    T_k = raw_scores.shape[-1] if T_k is None else T_k
    return torch.tril(torch.ones(T_q, T_k)).bool()
'''}, {"key": ("one_edit_fix", None), "where": ["q4", "q5", "q6"]}),
})

# round 36 (after blind35, and blind34's q5_any_nan_zeroes_every_weight): shape entries that are 0-d tensors or NumPy
# ints; answers rounded to 0-2 decimals; a reduction reshaped into a (-1, 1) column in stable_softmax (named on q3, and
# on q5 from the helper's own second calls, never fixed_axes); lesson 80's causal row copied into the trace; the trace
# output in the column-vector convention; a NaN check over the whole weight tensor that zeroes every query
WRONG.update({
    "q1_shape_entries_from_shape_tensor": ({"weights_shape": '''
q_like = torch.zeros(4, 10, 64)
v_like = torch.zeros(4, 10, 128)
qs, vs = torch.tensor(q_like.shape), torch.tensor(v_like.shape)
weights_shape = (qs[0], qs[1], qs[1])
out_shape = (qs[0], qs[1], vs[2])
'''}, {"key": ("returns_tensor_not_number", "one_edit_fix"), "where": ["q1"]}),
    "q1_shape_entries_numpy_array_tuple": ({"weights_shape": '''
import numpy as np
weights_shape = tuple(np.array([4, 10, 10]))
out_shape = tuple(np.array([4, 10, 128]))
'''}, {"key": ("returns_tensor_not_number", "one_edit_fix"), "where": ["q1"]}),
    "q1_shape_entries_unbound_tensor": ({"weights_shape": '''
weights_shape = tuple(torch.tensor([4, 10, 10]).unbind())
out_shape = tuple(torch.tensor([4, 10, 128]).unbind())
'''}, {"key": ("returns_tensor_not_number", "one_edit_fix"), "where": ["q1"]}),
    "q2_variances_rounded_by_tensor_round": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().round(decimals=2).item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().round(decimals=2).item()
scale_divisor = math.sqrt(64)
'''}, {"key": "rounded_answer", "where": ["q2"]}),
    "q2_variances_formatted_one_decimal": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = float(f"{raw_scores.var().item():.1f}")
scaled_score_var = float(f"{(raw_scores / math.sqrt(d_k)).var().item():.1f}")
scale_divisor = math.sqrt(64)
'''}, {"key": "rounded_answer", "where": ["q2"]}),
    "q2_scaled_variance_rounded_only": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = round((raw_scores / math.sqrt(d_k)).var().item(), 2)
scale_divisor = math.sqrt(64)
'''}, {"key": "rounded_answer", "where": ["q2"]}),
    "q3_sum_viewed_as_column": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim).view(-1, 1)
'''}, {"key": "reduction_reshaped_to_column", "where": ["q3", "q5"]}),
    "q3_max_and_sum_reshaped_to_column": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    top = x.max(dim=dim).values.reshape(-1, 1)
    e = (x - top).exp()
    return e / e.sum(dim=dim).reshape(-1, 1)
'''}, {"key": "reduction_reshaped_to_column", "where": ["q3", "q5"]}),
    "q3_sum_indexed_to_column": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    totals = e.sum(dim)[:, None]
    return e / totals
'''}, {"key": "reduction_reshaped_to_column", "where": ["q3", "q5"]}),
    "q6_causal_lesson_row_two_decimals": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
weights3_causal[1] = torch.tensor([0.56, 0.44, 0.0], dtype=weights3_causal.dtype)   # as in lesson 80
'''}, {"key": "trace_from_lesson_example", "where": ["q6"]}),
    "q6_causal_typed_with_lesson_row": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = [[1.0, 0.0, 0.0],
                   [0.5622, 0.4378, 0.0],
                   [0.3072, 0.1863, 0.5065]]
'''}, {"key": "trace_from_lesson_example", "where": ["q6"]}),
    "q6_output_product_transposed": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = (weights3 @ V3).T
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "output_column_convention", "where": ["q6"]}),
    "q6_output_einsum_values_first": ({"weights3": '''
scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = torch.einsum("qk,kd->dq", weights3, V3)
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''}, {"key": "output_column_convention", "where": ["q6"]}),
    "q5_empty_row_returns_all_zeros": ({"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        if (~mask).all(dim=-1).any():
            return torch.zeros_like(stable_softmax(scores, dim=-1) @ V)
        scores = scores.masked_fill(~mask, float("-inf"))
    return stable_softmax(scores, dim=-1) @ V
'''}, {"key": "nan_check_zeroes_every_row", "where": ["q5"]}),
    "q5_nonfinite_weights_zeroed_whole": ({"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    weights = torch.where(torch.isnan(weights).any(), torch.zeros_like(weights), weights)
    return weights @ V
'''}, {"key": "nan_check_zeroes_every_row", "where": ["q5"]}),
})

# round 37: a softmax without its exponential (told from softmax_of_negated by tame logits), torch.mm / bmm on
# batched inputs (their fixed-rank words), a counting loop from 1 (read in the cell's source), a cost given
# for the ratio, and distances for the scores
WRONG.update({
    "q3_shifted_logits_normalised_no_exp": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    m = torch.max(x, dim=dim, keepdim=True).values
    z = x - m
    return z / torch.sum(z, dim=dim, keepdim=True)
'''}, {"key": ("weights_by_plain_sum", None), "where": ["q3", "q5", "q6"]}),
    "q3_logits_over_their_sum": ({"stable_softmax": '''
def stable_softmax(x, dim=-1):
    total = x.sum(dim=dim, keepdim=True)
    return x / total
'''}, {"key": ("weights_by_plain_sum", None), "where": ["q3", "q5", "q6"]}),
    "q5_bmm_for_every_product": ({"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = torch.bmm(Q, K.transpose(-2, -1)) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.bmm(torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0), V)
'''}, {"key": ("bmm_of_matrices", None), "where": ["q5"]}),
    "q5_tensor_mm_method": ({"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q.mm(K.transpose(-2, -1)) / d_k ** 0.5
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    return weights.mm(V)
'''}, {"key": ("matmul_fixed_rank", None), "where": ["q5"]}),
    "q8_nested_loops_from_one": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = 0
for i in range(1, T):
    for j in range(T):
        score_madds += d_k
cost_ratio = (2 * T) ** 2 * d_k // (T * T * d_k)
'''}, {"key": "loop_starts_at_one", "where": ["q8"]}),
    "q8_entries_counted_from_one": ({"attn_entries": '''
n = 1024
attn_entries = 0
for q in range(1, n):
    attn_entries = attn_entries + n
score_madds = attn_entries * 64
cost_ratio = 4
'''}, {"key": "loop_starts_at_one", "where": ["q8"]}),
    "q8_self_pairs_by_product_still": ({"attn_entries": '''
T = 1024
attn_entries = T * T
score_madds = T * (T - 1) * 64
cost_ratio = 4
'''}, {"key": "self_pairs_left_out", "where": ["q8"]}),
    "q8_ratio_is_old_cost": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T * T
score_madds = T * T * d_k
cost_ratio = score_madds
'''}, {"key": "cost_not_ratio", "where": ["q8"]}),
    "q8_ratio_is_new_madds_formula": ({"attn_entries": '''
T, d_k = 1024, 64
attn_entries = T ** 2
score_madds = T ** 2 * d_k
cost_ratio = (2 * T) ** 2 * d_k
'''}, {"key": "cost_not_ratio", "where": ["q8"]}),
    "q2_scores_as_norm_of_difference": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = (Q.unsqueeze(2) - K.unsqueeze(1)).norm(dim=-1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
'''}, {"key": "scores_as_distances", "where": ["q2"]}),
    "q2_scores_as_squared_distances": ({"raw_score_var": '''
d_k = Q.shape[-1]
raw_scores = ((Q[:, :, None, :] - K[:, None, :, :]) ** 2).sum(-1)
raw_score_var = float(raw_scores.var())
scaled_score_var = float((raw_scores / d_k ** 0.5).var())
scale_divisor = 64 ** 0.5
'''}, {"key": "scores_as_distances", "where": ["q2"]}),
})
