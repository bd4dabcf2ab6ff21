"""Naming scaled-attention's mistakes, round 71 (blind71's generic, borderline and uncaught variants: memory- and
speed-conscious code, the kinds: a result added onto a buffer kept between calls, a chunked sample loop that skips
the last partial chunk, results cached by the input's shape, query-row chunks sliced one row short, a scale kept in
a mutable default argument, q and k drawn with out= into one buffer).

output_accumulated_across_calls (q1): two more calls on the same inputs return outputs whose difference is the right
output (out += w @ V or addmm into a buffer kept per shape); a fresh buffer filled the same way keeps full marks.

sample_chunks_tail_left_zero (q2): the chunk size is an int literal of dot_product_variance; an exact replay of the
full chunks only (q then k per chunk), or, drawn in another order, a second call on the full chunks' count that is
right while the estimate is that times the share of full chunks; a loop that runs its last chunk to n keeps full marks.

results_cached_by_shape (q8): q8 now calls multi_head_attention on a new X of the shape of the call before; the
answer the earlier X gives, returned for the new one, names it; a cache that compares the input with torch.equal, or
no cache, keeps full marks.

slice_end_inclusive (q8): query-row chunks sliced slice(start, stop - 1): the replay (the last row of every chunk of
the source's size 0) or, where a one-row chunk is sliced to none and the code raises, a second call on whole chunks.

dtype_changed said with what the weights went through (q1's layout cases): every weight a float16 number.

mha_scale_kept_across_calls (q1): the constant-scale replay (wrong_scale_constant) said with its cause where the
attention's mutable default argument is filled from d_k; a default dict keyed by d_k keeps full marks.

keys_are_queries said with its cause (q2): the replay k = q where the source draws twice with out= into one name.

My own variants, not the blind set's cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

_graded = graded_as("scaled-attention", "round71")


def _attention(body: str, params: str = "Q, K, V, d_k") -> dict[str, str]:
    return {"attention": f'''_KEPT = {{}}


def attention({params}):
    weights = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
{body}
'''}


ACCUMULATED = {
    "plus_equals_into_setdefault_buffer": _attention('''    shape = (Q.shape[0], V.shape[1])
    out = _KEPT.setdefault((shape, V.dtype), torch.zeros(shape, dtype=V.dtype))
    out += weights @ V
    return out, weights'''),
    "torch_addmm_with_out_into_kept_buffer": _attention('''    shape = (Q.shape[0], V.shape[-1], V.dtype)
    if shape not in _KEPT:
        _KEPT[shape] = V.new_zeros(shape[:2])
    buf = _KEPT[shape]
    torch.addmm(buf, weights, V, out=buf)
    return buf, weights'''),
}
ACCUMULATED_RIGHT = {
    "fresh_zeros_then_addmm_": _attention('''    out = V.new_zeros(Q.shape[0], V.shape[1])
    out.addmm_(weights, V)
    return out, weights'''),
    "fresh_empty_matmul_out": _attention('''    out = torch.empty(Q.shape[0], V.shape[1], dtype=V.dtype)
    torch.matmul(weights, V, out=out)
    return out, weights'''),
}

SCALE_IN_DEFAULT = {
    "default_dict_filled_once": {"attention": '''
def attention(Q, K, V, d_k, _memo={}):
    if "scale" not in _memo:
        _memo["scale"] = d_k ** -0.5
    weights = torch.softmax(Q @ K.T * _memo["scale"], dim=-1)
    return weights @ V, weights
'''},
    "default_list_call_appended": {"attention": '''
def attention(Q, K, V, d_k, *, scales=list()):
    if len(scales) == 0:
        scales.append(1 / math.sqrt(d_k))
    weights = F.softmax(torch.matmul(Q, K.transpose(0, 1)) * scales[-1], dim=1)
    return torch.matmul(weights, V), weights
'''},
}
SCALE_RIGHT = {
    "default_dict_keyed_by_d_k": {"attention": '''
def attention(Q, K, V, d_k, _memo={}):
    if d_k not in _memo:
        _memo[d_k] = 1 / math.sqrt(d_k)
    weights = torch.softmax(Q @ K.T * _memo[d_k], dim=-1)
    return weights @ V, weights
'''},
}

HALF_SOFTMAX = {
    "softmax_of_float16_scores_type_as": {"attention": '''
def attention(Q, K, V, d_k):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.softmax(scores.to(torch.float16), dim=-1).type_as(Q)
    return weights @ V, weights
'''},
    "softmax_method_on_half_scores": {"attention": '''
def attention(Q, K, V, d_k):
    weights = (torch.matmul(Q, K.T) * d_k ** -0.5).half().softmax(-1).to(V.dtype)
    return torch.matmul(weights, V), weights
'''},
}
HALF_RIGHT = {
    "softmax_upcast_to_float64": {"attention": '''
def attention(Q, K, V, d_k):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = torch.softmax(scores.double(), dim=-1).to(Q.dtype)
    return weights @ V, weights
'''},
}


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
{body}
'''}


TAIL_LEFT_ZERO = {
    "whole_chunks_by_floor_division": _variance('''    chunk = 3000
    dots = torch.zeros(n_samples)
    for i in range(n_samples // chunk):
        q = torch.randn(chunk, d_k, generator=generator)
        k = torch.randn(chunk, d_k, generator=generator)
        dots[i * chunk:(i + 1) * chunk] = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(dots.var())'''),
    "interleaved_pairs_whole_chunks_only": _variance('''    size = 2048
    out = torch.zeros(n_samples)
    done = 0
    while done + size <= n_samples:
        pair = torch.randn(size, 2, d_k, generator=generator)
        out[done:done + size] = (pair[:, 0] * pair[:, 1]).sum(1)
        done += size
    return (out / d_k ** 0.5 if scaled else out).var().item()'''),
}
TAIL_RIGHT = {
    "last_chunk_runs_to_n": _variance('''    chunk = 3000
    dots = torch.zeros(n_samples)
    for start in range(0, n_samples, chunk):
        stop = min(start + chunk, n_samples)
        q = torch.randn(stop - start, d_k, generator=generator)
        k = torch.randn(stop - start, d_k, generator=generator)
        dots[start:stop] = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(dots.var())'''),
    "interleaved_pairs_with_remainder": _variance('''    size = 2048
    parts = []
    for m in [size] * (n_samples // size) + [n_samples % size]:
        pair = torch.randn(m, 2, d_k, generator=generator)
        parts.append((pair[:, 0] * pair[:, 1]).sum(1))
    out = torch.cat(parts)
    return (out / d_k ** 0.5 if scaled else out).var().item()'''),
}

ONE_OUT_BUFFER = {
    "empty_buffer_drawn_twice": _variance('''    buf = torch.empty(n_samples, d_k)
    q = torch.randn(n_samples, d_k, generator=generator, out=buf)
    k = torch.randn(n_samples, d_k, generator=generator, out=buf)
    dots = (q * k).sum(dim=1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()'''),
    "workspace_in_a_loop": _variance('''    work = torch.zeros(n_samples, d_k)
    draws = []
    for _ in range(2):
        draws.append(torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator, out=work))
    dots = (draws[0] * draws[1]).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()'''),
}
ONE_OUT_RIGHT = {
    "two_buffers": _variance('''    qb, kb = torch.empty(n_samples, d_k), torch.empty(n_samples, d_k)
    q = torch.randn(n_samples, d_k, generator=generator, out=qb)
    k = torch.randn(n_samples, d_k, generator=generator, out=kb)
    dots = (q * k).sum(dim=1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()'''),
}


def _mha(body: str) -> dict[str, str]:
    return {"multi_head_attention": f'''_STORE = {{}}


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
{body}
'''}


CACHED_BY_SHAPE = {
    "output_memo_by_shape_and_dtype": _mha('''    key = (X.shape, X.dtype, n_heads)
    if key in _STORE:
        return _STORE[key]
    heads = [attention(X @ W_Q[:, h * d_k:(h + 1) * d_k], X @ W_K[:, h * d_k:(h + 1) * d_k],
                       X @ W_V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    _STORE[key] = torch.cat(heads, dim=-1) @ W_O
    return _STORE[key]'''),
    "projections_memo_by_shape_only": _mha('''    if tuple(X.shape) not in _STORE:
        _STORE[tuple(X.shape)] = [X @ W for W in (W_Q, W_K, W_V)]
    Q, K, V = _STORE[tuple(X.shape)]
    heads = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, c], K[:, c], V[:, c], d_k)[0])
    return torch.cat(heads, 1) @ W_O'''),
}
CACHED_RIGHT = {
    "cache_checked_with_torch_equal": _mha('''    hit = _STORE.get((tuple(X.shape), X.dtype))
    if hit is not None and torch.equal(hit[0], X) and all(torch.equal(a, b) for a, b in zip(hit[1], (W_Q, W_K, W_V))):
        Q, K, V = hit[2]
    else:
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        _STORE[(tuple(X.shape), X.dtype)] = (X.clone(), (W_Q.clone(), W_K.clone(), W_V.clone()), (Q, K, V))
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
             for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O'''),
    "no_cache": _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
             for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O'''),
}

ROWS_SHORT = {
    "stop_minus_one_chunks_of_three": _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros(T, d_model, dtype=X.dtype)
    for start in range(0, T, 3):
        stop = min(start + 3, T)
        for h in range(n_heads):
            c = slice(h * d_k, (h + 1) * d_k)
            concat[start:stop - 1, c] = attention(Q[start:stop - 1, c], K[:, c], V[:, c], d_k)[0]
    return concat @ W_O'''),
    "last_index_as_end_chunks_of_four": _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        out_h = X.new_zeros(T, d_k)
        for s in range(0, T, 4):
            last = min(s + 4, T) - 1          # the chunk's last row
            rows = slice(s, last)
            out_h[rows] = attention(Q[rows, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                    V[:, h * d_k:(h + 1) * d_k], d_k)[0]
        heads.append(out_h)
    return torch.cat(heads, dim=-1) @ W_O'''),
}
ROWS_RIGHT = {
    "stop_exclusive_chunks_of_three": _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros(T, d_model, dtype=X.dtype)
    for start in range(0, T, 3):
        stop = min(start + 3, T)
        for h in range(n_heads):
            c = slice(h * d_k, (h + 1) * d_k)
            concat[start:stop, c] = attention(Q[start:stop, c], K[:, c], V[:, c], d_k)[0]
    return concat @ W_O'''),
    "last_index_plus_one_chunks_of_four": _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        out_h = X.new_zeros(T, d_k)
        for s in range(0, T, 4):
            last = min(s + 4, T) - 1          # the chunk's last row
            rows = slice(s, last + 1)
            out_h[rows] = attention(Q[rows, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                    V[:, h * d_k:(h + 1) * d_k], d_k)[0]
        heads.append(out_h)
    return torch.cat(heads, dim=-1) @ W_O'''),
}


@pytest.mark.parametrize("name", sorted(ACCUMULATED))
def test_output_accumulated_across_calls_is_named(grader, name):
    failed = assert_named(_graded(grader, ACCUMULATED[name]), "output_accumulated_across_calls", ("q1", "q8"),
                          also=("attention_result_reused",))
    assert any(q == "q1" and "whose difference is the right output" in m for q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(SCALE_IN_DEFAULT))
def test_scale_kept_in_default_argument_is_said(grader, name):
    failed = assert_named(_graded(grader, SCALE_IN_DEFAULT[name]), "mha_scale_kept_across_calls", ("q1", "q8"))
    assert any("default argument" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(HALF_SOFTMAX))
def test_half_weights_said_on_layout_cases(grader, name):
    failed = assert_named(_graded(grader, HALF_SOFTMAX[name]), "dtype_changed", ("q1", "q8"))
    layout = [m for _q, t, _k, m in failed if t in ("test_noncontiguous_inputs", "test_broadcast_inputs")]
    assert layout and all("every weight is a float16 number" in m for m in layout), failed


@pytest.mark.parametrize("name", sorted(TAIL_LEFT_ZERO))
def test_sample_chunks_tail_left_zero_is_named(grader, name):
    failed = assert_named(_graded(grader, TAIL_LEFT_ZERO[name]), "sample_chunks_tail_left_zero", "q2")
    assert all("dots stay 0" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(ONE_OUT_BUFFER))
def test_one_out_buffer_said_with_keys_are_queries(grader, name):
    failed = assert_named(_graded(grader, ONE_OUT_BUFFER[name]), "keys_are_queries", "q2")
    assert any("with out=" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(CACHED_BY_SHAPE))
def test_results_cached_by_shape_is_named(grader, name):
    assert_named(_graded(grader, CACHED_BY_SHAPE[name]), "results_cached_by_shape", "q8")


@pytest.mark.parametrize("name", sorted(ROWS_SHORT))
def test_row_chunks_sliced_one_short_are_named(grader, name):
    assert_named(_graded(grader, ROWS_SHORT[name]), "slice_end_inclusive", "q8")


RIGHT = {**ACCUMULATED_RIGHT, **SCALE_RIGHT, **HALF_RIGHT, **TAIL_RIGHT, **ONE_OUT_RIGHT, **CACHED_RIGHT, **ROWS_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, RIGHT[name]))
