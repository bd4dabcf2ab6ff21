"""Naming scaled-attention's mistakes, round 86 (blind86/87: log-space, online and blockwise formulations; their
mis-named and generic variants, said with their cause by kind).

online_softmax_exp_before_max_update (q1): the blocked softmax replayed over key blocks of a size the source writes,
each block's exp taken against the running max before that block's max updates it. softmax_shift_per_key_cummax
(q1): both results replayed as exp(s - cummax(s)) over its row sum. variance_rescaled_every_chunk (q2): the same
generator's draws replayed in chunks of a size the source writes, the running sums rescaled after every chunk.
online_softmax_rescale_wrong (q4): the online entropy replayed with the rescale left off t (or both sums).
table_scaled_log_probs_divided (q4): H_scaled replayed from log_softmax(raw) / sqrt(d). entropy_zero_logits_masked
(q4): every exact-0 logit masked out. mha_qk_layer_norm, mha_query_tiles_own_keys, mha_projection_inner_tail_dropped
(q8): replays; mha_head_offsets_inclusive_cumsum (q8): the heads rotated by one read back through W_O, and a running
sum (cumsum / accumulate) in the source (a rotation without one keeps mha_heads_reordered).

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

_graded = graded_as("scaled-attention", "round86")


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''
def attention(Q, K, V, d_k):
{body}
'''}


_WHILE_BLOCKS = '''    S = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    step = 3
    m = S[:, :step].amax(dim=1, keepdim=True)
    den = torch.zeros_like(m)
    num = torch.zeros(Q.shape[0], V.shape[1], dtype=Q.dtype)
    start = 0
    while start < S.shape[-1]:
        blk = S[:, start:start + step]
{order}
        scale = (m - new).exp()
        den = den * scale + e.sum(1, keepdim=True)
        num = num * scale + e @ V[start:start + step]
        m = new
        start += step
    return num / den, (S - m).exp() / den'''
STALE_MAX = {
    "while_blocks_of_three": _attention(_WHILE_BLOCKS.format(order='''        e = (blk - m).exp()
        new = torch.max(m, blk.amax(dim=1, keepdim=True))''')),
    "for_blocks_of_two_first_block_sets_max": _attention('''    m = None
    for j in range(0, K.shape[0], 2):
        s = Q @ K[j:j + 2].T / d_k ** 0.5
        if m is None:
            m = s.max(-1, keepdim=True).values
            l = torch.zeros_like(m)
            acc = torch.zeros(Q.shape[0], V.shape[1], dtype=Q.dtype)
        p = torch.exp(s - m)
        m_new = torch.maximum(m, s.max(-1, keepdim=True).values)
        alpha = torch.exp(m - m_new)
        l = alpha * l + p.sum(-1, keepdim=True)
        acc = alpha * acc + p @ V[j:j + 2]
        m = m_new
    return acc / l, torch.exp(Q @ K.T / d_k ** 0.5 - m) / l'''),
}
ONLINE_RIGHT = _attention(_WHILE_BLOCKS.format(order='''        new = torch.max(m, blk.amax(dim=1, keepdim=True))
        e = (blk - new).exp()'''))


@pytest.mark.parametrize("name", sorted(STALE_MAX))
def test_exp_before_max_update_is_named(grader, name):
    assert_named(_graded(grader, STALE_MAX[name]), "online_softmax_exp_before_max_update", "q1")


def test_online_softmax_max_updated_first_keeps_full_marks(grader):
    assert_full_marks(_graded(grader, ONLINE_RIGHT))


CUMMAX_SHIFT = {
    "cummax_values_index_zero": _attention('''    scores = Q @ K.T / math.sqrt(d_k)
    shift = scores.cummax(dim=-1)[0]
    e = (scores - shift).exp()
    w = e / e.sum(-1, keepdim=True)
    return w @ V, w'''),
    "running_max_filled_in_a_loop": _attention('''    scores = torch.matmul(Q, K.T) * d_k ** -0.5
    run = scores.clone()
    for j in range(1, scores.shape[-1]):
        run[:, j] = torch.maximum(run[:, j - 1], scores[:, j])
    w = torch.exp(scores - run)
    w = w / w.sum(dim=1, keepdim=True)
    return w @ V, w'''),
}
CUMMAX_RIGHT = {
    "cummax_last_column": _attention('''    scores = Q @ K.T / math.sqrt(d_k)
    e = (scores - scores.cummax(dim=-1).values[..., -1:]).exp()
    w = e / e.sum(-1, keepdim=True)
    return w @ V, w'''),
    "softmax_after_cummax_shift_of_last": _attention('''    scores = Q @ K.T / math.sqrt(d_k)
    w = torch.softmax(scores - torch.cummax(scores, 1).values[:, -1:], dim=-1)
    return w @ V, w'''),
}


@pytest.mark.parametrize("name", sorted(CUMMAX_SHIFT))
def test_shift_per_key_cummax_is_named(grader, name):
    assert_named(_graded(grader, CUMMAX_SHIFT[name]), "softmax_shift_per_key_cummax", "q1")


@pytest.mark.parametrize("name", sorted(CUMMAX_RIGHT))
def test_cummax_row_max_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, CUMMAX_RIGHT[name]))


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
{body}
'''}


RESCALED_EVERY_CHUNK = {
    "while_chunks_of_1000_divided_in_place": _variance('''    c = 1000
    tot = sq = 0.0
    done = 0
    while done < n_samples:
        b = min(c, n_samples - done)
        q = torch.randn(b, d_k, generator=generator)
        k = torch.randn(b, d_k, generator=generator)
        x = (q * k).sum(-1).double()
        tot += x.sum().item()
        sq += (x ** 2).sum().item()
        done += b
        if scaled:
            tot /= math.sqrt(d_k)
            sq /= d_k
    return (sq - tot ** 2 / n_samples) / (n_samples - 1)'''),
    "for_chunks_of_4096_factor_tuple_biased": _variance('''    f = d_k ** -0.5 if scaled else 1.0
    s1, s2 = 0.0, 0.0
    for i in range(0, n_samples, 4096):
        b = min(4096, n_samples - i)
        q = torch.randn(b, d_k, generator=generator)
        k = torch.randn(b, d_k, generator=generator)
        dots = torch.einsum("nd,nd->n", q, k).double()
        s1, s2 = (s1 + dots.sum().item()) * f, (s2 + dots.pow(2).sum().item()) * f * f
    return s2 / n_samples - (s1 / n_samples) ** 2'''),
}
CHUNKS_RIGHT = {
    "rescaled_once_at_the_end": _variance('''    c = 1000
    tot = sq = 0.0
    done = 0
    while done < n_samples:
        b = min(c, n_samples - done)
        q = torch.randn(b, d_k, generator=generator)
        k = torch.randn(b, d_k, generator=generator)
        x = (q * k).sum(-1).double()
        tot += x.sum().item()
        sq += (x ** 2).sum().item()
        done += b
    var = (sq - tot ** 2 / n_samples) / (n_samples - 1)
    return var / d_k if scaled else var'''),
    "each_chunks_dots_scaled_once": _variance('''    f = d_k ** -0.5 if scaled else 1.0
    s1, s2 = 0.0, 0.0
    for i in range(0, n_samples, 4096):
        b = min(4096, n_samples - i)
        q = torch.randn(b, d_k, generator=generator)
        k = torch.randn(b, d_k, generator=generator)
        dots = torch.einsum("nd,nd->n", q, k).double() * f
        s1, s2 = s1 + dots.sum().item(), s2 + dots.pow(2).sum().item()
    return (s2 - s1 * s1 / n_samples) / (n_samples - 1)'''),
}


@pytest.mark.parametrize("name", sorted(RESCALED_EVERY_CHUNK))
def test_sums_rescaled_every_chunk_is_named(grader, name):
    assert_named(_graded(grader, RESCALED_EVERY_CHUNK[name]), "variance_rescaled_every_chunk", "q2")


@pytest.mark.parametrize("name", sorted(CHUNKS_RIGHT))
def test_chunked_sums_rescaled_once_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, CHUNKS_RIGHT[name]))


_TABLE = """

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": %s})
    return rows
"""
_PLAIN_ENTROPY = '''    logp = F.log_softmax(logits, dim=-1)
    return -torch.where(logp.exp() > 0, logp.exp() * logp, torch.zeros_like(logp)).sum(-1)'''


def _entropy(body: str, h_scaled: str = "softmax_entropy(scaled).item()", before: str = "") -> dict[str, str]:
    return {"softmax_entropy": f"""
def softmax_entropy(logits):
{body}
""" + (_TABLE % h_scaled).replace("        rows.append(", before + "        rows.append(")}


_ONLINE = '''    x = logits.double()
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    l = torch.zeros(x.shape[:-1], dtype=x.dtype)
    t = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for blk in x.split({b}, dim=-1):
        m_new = torch.maximum(m, blk.amax(dim=-1))
        a = torch.exp(m - m_new)
        e = torch.exp(blk - m_new[..., None])
        l = {l} + e.sum(dim=-1)
        t = {t} + torch.where(e > 0, e * blk, torch.zeros_like(e)).sum(dim=-1)
        m = m_new
    return (m + l.log() - t / l).to(logits.dtype)'''
ONLINE_ENTROPY_WRONG = {
    "t_not_rescaled_chunks_of_three": _entropy(_ONLINE.format(b=3, l="l * a", t="t")),
    "neither_sum_rescaled_chunks_of_two": _entropy(_ONLINE.format(b=2, l="l", t="t")),
}
ONLINE_ENTROPY_RIGHT = _entropy(_ONLINE.format(b=3, l="l * a", t="t * a"))


@pytest.mark.parametrize("name", sorted(ONLINE_ENTROPY_WRONG))
def test_online_entropy_rescale_wrong_is_named(grader, name):
    assert_named(_graded(grader, ONLINE_ENTROPY_WRONG[name]), "online_softmax_rescale_wrong", "q4")


def test_online_entropy_both_sums_rescaled_keeps_full_marks(grader):
    assert_full_marks(_graded(grader, ONLINE_ENTROPY_RIGHT))


LOG_PROBS_DIVIDED = {
    "log_softmax_times_inverse_root": _entropy(_PLAIN_ENTROPY, "-(ls.exp() * ls).sum().item()",
                                               "        ls = torch.log_softmax(raw, 0) * d ** -0.5\n"),
    "softmax_to_the_power_inverse_root": _entropy(_PLAIN_ENTROPY, "-(ps * ps.log()).sum().item()",
                                                  "        ps = torch.softmax(raw, -1) ** (1 / math.sqrt(d))\n"),
}
LOG_PROBS_RIGHT = {
    "log_softmax_of_scaled_scores": _entropy(_PLAIN_ENTROPY, "-(ls.exp() * ls).sum().item()",
                                             "        ls = torch.log_softmax(raw * d ** -0.5, 0)\n"),
    "softmax_of_scaled_scores": _entropy(_PLAIN_ENTROPY, "-(ps * ps.log()).sum().item()",
                                         "        ps = torch.softmax(raw / math.sqrt(d), -1)\n"),
}


@pytest.mark.parametrize("name", sorted(LOG_PROBS_DIVIDED))
def test_scaled_log_probs_divided_is_named(grader, name):
    assert_named(_graded(grader, LOG_PROBS_DIVIDED[name]), "table_scaled_log_probs_divided", "q4")


@pytest.mark.parametrize("name", sorted(LOG_PROBS_RIGHT))
def test_scaled_log_probs_right_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, LOG_PROBS_RIGHT[name]))


ZERO_AS_PADDING = {
    "masked_fill_equal_zero": _entropy('''    p = torch.softmax(logits.masked_fill(logits == 0, float("-inf")), dim=-1)
    return -torch.where(p > 0, p * p.log(), torch.zeros_like(p)).sum(-1).nan_to_num(0.0)'''),
    "where_kept_then_logsumexp": _entropy('''    keep = logits != 0
    z = torch.where(keep, logits, torch.full_like(logits, -math.inf))
    logp = z - torch.logsumexp(z, -1, keepdim=True)
    return -(logp.exp() * logp).nan_to_num(0.0).sum(-1)'''),
}
ZERO_RIGHT = {
    "minus_inf_masked": _entropy('''    p = torch.softmax(logits.masked_fill(logits == float("-inf"), float("-inf")), dim=-1)
    return -torch.where(p > 0, p * p.log(), torch.zeros_like(p)).sum(-1)'''),
    "keep_mask_of_finite": _entropy('''    keep = torch.isfinite(logits)
    e = torch.exp(logits - logits.amax(-1, keepdim=True)) * keep
    p = e / e.sum(-1, keepdim=True)
    return -torch.where(p > 0, p * torch.log(p), torch.zeros_like(p)).sum(-1)'''),
}


@pytest.mark.parametrize("name", sorted(ZERO_AS_PADDING))
def test_zero_logits_masked_is_named(grader, name):
    assert_named(_graded(grader, ZERO_AS_PADDING[name]), "entropy_zero_logits_masked", "q4")


@pytest.mark.parametrize("name", sorted(ZERO_RIGHT))
def test_only_minus_inf_masked_keeps_full_marks(grader, name):
    assert_full_marks(_graded(grader, ZERO_RIGHT[name]))


def _heads(body: str) -> dict[str, str]:
    return {"multi_head_attention": f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
{body}
'''}


_SPLIT = '''    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(Q.split(d_k, -1), K.split(d_k, -1), V.split(d_k, -1))]
    return torch.cat(heads, dim=-1) @ W_O'''
QK_NORM = {
    "layer_norm_per_head_split": _heads('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(F.layer_norm(q, q.shape[-1:]), F.layer_norm(k, k.shape[-1:]), v, d_k)[0]
             for q, k, v in zip(Q.split(d_k, -1), K.split(d_k, -1), V.split(d_k, -1))]
    return torch.cat(heads, dim=-1) @ W_O'''),
    "layer_norm_over_the_projection": _heads('''    Q = torch.nn.functional.layer_norm(X @ W_Q, (d_model,))
    K = torch.nn.functional.layer_norm(X @ W_K, [d_model])
    V = X @ W_V
''' + _SPLIT),
}
PLAIN_SPLIT = _heads('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
''' + _SPLIT)


@pytest.mark.parametrize("name", sorted(QK_NORM))
def test_qk_layer_norm_is_named(grader, name):
    assert_named(_graded(grader, QK_NORM[name]), "mha_qk_layer_norm", "q8")


def test_plain_split_keeps_full_marks(grader):
    assert_full_marks(_graded(grader, PLAIN_SPLIT))


_TILES = '''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
{tiles}
    return torch.cat(outs, dim=-1) @ W_O'''
OWN_TILE = {
    "tiles_of_two_sliced_alike": _heads(_TILES.format(tiles='''        tiles = []
        for i in range(0, T, 2):
            tiles.append(attention(Q[i:i + 2, c], K[i:i + 2, c], V[i:i + 2, c], d_k)[0])
        outs.append(torch.cat(tiles))''')),
    "tiles_of_three_split_zipped": _heads(_TILES.format(tiles='''        parts = zip(Q[:, c].split(3), K[:, c].split(3), V[:, c].split(3))
        outs.append(torch.cat([attention(q, k, v, d_k)[0] for q, k, v in parts], dim=0))''')),
}
ALL_KEYS_TILES = _heads(_TILES.format(tiles='''        parts = [attention(q, K[:, c], V[:, c], d_k)[0] for q in Q[:, c].split(3)]
        outs.append(torch.cat(parts, dim=0))'''))


@pytest.mark.parametrize("name", sorted(OWN_TILE))
def test_query_tiles_own_keys_is_named(grader, name):
    assert_named(_graded(grader, OWN_TILE[name]), "mha_query_tiles_own_keys", "q8")


def test_query_tiles_with_all_keys_keep_full_marks(grader):
    assert_full_marks(_graded(grader, ALL_KEYS_TILES))


TAIL_DROPPED = {
    "sum_of_pairs_floor_count": _heads('''    def proj(W):
        return sum(X[:, i:i + 2] @ W[i:i + 2] for i in range(0, d_model // 2 * 2, 2))
    Q, K, V = proj(W_Q), proj(W_K), proj(W_V)
''' + _SPLIT),
    "einsum_over_whole_tiles_of_four": _heads('''    kept = d_model // 4 * 4
    Q, K, V = (torch.einsum("td,de->te", X[:, :kept], W[:kept]) for W in (W_Q, W_K, W_V))
''' + _SPLIT),
}
TAIL_RIGHT = _heads('''    def proj(W):
        return sum(X[:, i:i + 4] @ W[i:i + 4] for i in range(0, -(-d_model // 4) * 4, 4))
    Q, K, V = proj(W_Q), proj(W_K), proj(W_V)
''' + _SPLIT)


@pytest.mark.parametrize("name", sorted(TAIL_DROPPED))
def test_projection_tail_dropped_is_named(grader, name):
    assert_named(_graded(grader, TAIL_DROPPED[name]), "mha_projection_inner_tail_dropped", "q8")


def test_ceiling_tile_count_keeps_full_marks(grader):
    assert_full_marks(_graded(grader, TAIL_RIGHT))


_OFFSETS = '''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
{starts}
    heads = [attention(Q[:, s:s + d_k], K[:, s:s + d_k], V[:, s:s + d_k], d_k)[0] for s in starts]
    return torch.cat(heads, dim=-1) @ W_O'''
INCLUSIVE_CUMSUM = {
    "itertools_accumulate_wrapped": _heads(_OFFSETS.format(starts='''    import itertools
    starts = [s % d_model for s in itertools.accumulate([d_k] * n_heads)]''')),
    "tensor_cumsum_remainder": _heads(_OFFSETS.format(starts='''    widths = torch.full((n_heads,), d_k)
    starts = widths.cumsum(0).remainder(d_model).tolist()''')),
}
EXCLUSIVE_CUMSUM = {
    "cumsum_minus_widths": _heads(_OFFSETS.format(starts='''    w = torch.full((n_heads,), d_k)
    starts = (torch.cumsum(w, 0) - w).tolist()''')),
    "accumulate_with_initial_zero": _heads(_OFFSETS.format(starts='''    import itertools
    starts = list(itertools.accumulate([d_k] * (n_heads - 1), initial=0))''')),
}
ROTATED_NO_RUNNING_SUM = _heads('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(Q.split(d_k, -1), K.split(d_k, -1), V.split(d_k, -1))]
    return torch.cat(heads[1:] + heads[:1], dim=-1) @ W_O''')


@pytest.mark.parametrize("name", sorted(INCLUSIVE_CUMSUM))
def test_head_offsets_inclusive_cumsum_is_named(grader, name):
    assert_named(_graded(grader, INCLUSIVE_CUMSUM[name]), "mha_head_offsets_inclusive_cumsum", "q8")


@pytest.mark.parametrize("name", sorted(EXCLUSIVE_CUMSUM))
def test_exclusive_offsets_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, EXCLUSIVE_CUMSUM[name]))


def test_rotated_concatenation_keeps_heads_reordered(grader):
    keys = failed_keys(_graded(grader, ROTATED_NO_RUNNING_SUM))
    assert "mha_heads_reordered" in keys and "mha_head_offsets_inclusive_cumsum" not in keys, keys
