"""Naming scaled-attention's mistakes, round 72 (blind72's Pythonic and functional idioms, blind73's defensive,
validating, input-normalising code: their generic, partly named, borderline and uncaught variants, by kind).

own_assert_rejects_float64 (q1): the student's own assert, whose line reads a dtype, failed on float64 inputs; the
same values in float32 run and are right. An assert that only asks for a floating dtype keeps full marks.

own_assert_same_shape (q1): the student's own assert, whose line reads a shape, failed with T_q != T_k; the same
values cut to as many queries as keys run and are right. An assert on the widths keeps full marks.

entropy_assert_dims (q4): the student's own assert failed on 3-D logits; as many rows as one 2-D tensor run and
give the right entropies.

generator_read_twice (q2): exactly 0.0 from two generators, and the source binds a one-pass iterator (a generator
expression, map, zip...) to a name read in two places.

closure_bound_late (q4's table, q8): every row (every head) holds the LAST iteration's right numbers, and a lambda
or inner function reads a name the loop binds; a lambda that binds it as a default keeps full marks.

keys_layout_guessed_from_shape (q1, a test gap closed: K square, T_k = d_k): the weights are softmax(Q K / sqrt(d_k))
there, and the same call on one key fewer is right.

mha_assert_head_width (q8, a test gap closed: an odd head width): the student's own assert failed with heads of
width 5; with 6 columns a head the call is right, with 7 it fails again.

zip_stops_at_shorter (q1): with T_q > T_k the results are the right ones' first T_k rows, and attention zips Q with K.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

_graded = graded_as("scaled-attention", "round72")


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''
def attention(Q, K, V, d_k):
{body}
'''}


_TAIL = '''    weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return weights @ V, weights'''

DTYPE_ASSERT = {
    "assert_dtype_in_half_and_single": _attention('''    assert Q.dtype in (torch.float16, torch.float32), "float16 or float32"
''' + _TAIL),
    "assert_no_double_in_any_input": _attention('''    for t in (Q, K, V):
        assert t.dtype != torch.float64, "double precision is not supported"
''' + _TAIL),
}
DTYPE_RIGHT = {
    "assert_floating_and_matching_dtypes": _attention('''    assert Q.is_floating_point() and Q.dtype == K.dtype, "one dtype"
''' + _TAIL),
}

SHAPE_ASSERT = {
    "assert_same_row_count": _attention('''    assert Q.shape[0] == K.shape[0], "one key per query"
''' + _TAIL),
    "assert_len_of_all_three_equal": _attention('''    assert len(Q) == len(K) == len(V), f"lengths differ: {len(Q)}, {len(K)}, {len(V)}"
''' + _TAIL),
}
SHAPE_RIGHT = {
    "assert_widths_and_key_value_count": _attention('''    assert Q.shape[-1] == K.shape[-1], "queries and keys must have one width"
    assert K.shape[0] == V.shape[0], "one value per key"
''' + _TAIL),
}


def _entropy(check: str) -> dict[str, str]:
    return {"softmax_entropy": f'''
def softmax_entropy(logits):
    {check}
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log_softmax(logits, dim=-1)).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        raw = (torch.randn(1, d) @ torch.randn(5, d).T)[0]
        scaled = raw / d ** 0.5
        rows.append({{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return rows
'''}


DIMS_ASSERT = {
    "assert_ndim_at_most_two": _entropy('assert logits.ndim <= 2, "one row or a matrix of rows"'),
    "assert_shape_length_below_three": _entropy('assert len(logits.shape) < 3, f"bad shape {tuple(logits.shape)}"'),
}
DIMS_RIGHT = {
    "assert_at_least_one_dim": _entropy('assert logits.ndim >= 1, "a row at least"'),
}


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    c = math.sqrt(d_k) if scaled else 1.0
{body}
'''}


GENERATOR_TWICE = {
    "map_over_zipped_rows": _variance('''    values = map(lambda pair: float(pair[0] @ pair[1]) / c, zip(q, k))
    mean = sum(values) / n_samples
    return sum((v - mean) ** 2 for v in values) / (n_samples - 1)'''),
    "generator_looped_then_summed": _variance('''    stream = (float(x) / c for x in (q * k).sum(dim=1))
    total = 0.0
    for x in stream:
        total += x
    mean = total / n_samples
    return float(sum((x - mean) ** 2 for x in stream) / (n_samples - 1))'''),
}
GENERATOR_RIGHT = {
    "list_read_twice": _variance('''    values = [float(x) / c for x in (q * k).sum(dim=1)]
    mean = sum(values) / n_samples
    return sum((v - mean) ** 2 for v in values) / (n_samples - 1)'''),
}


def _table(body: str) -> dict[str, str]:
    return {"entropy_table": f'''
def softmax_entropy(logits):
    return -(torch.softmax(logits, dim=-1) * torch.log_softmax(logits, dim=-1)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
{body}
'''}


TABLE_LATE = {
    "row_makers_appended_in_loop": _table('''    makers = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        s = (q @ k.T)[0]
        sc = s / d ** 0.5
        makers.append(lambda d=d: {"d": d, "raw_std": s.std().item(), "scaled_std": sc.std().item(),
                                   "H_raw": softmax_entropy(s).item(), "H_scaled": softmax_entropy(sc).item()})
    return [make() for make in makers]'''),
    "inner_def_kept_per_d": _table('''    later = {}
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T).flatten()

        def numbers():
            scaled = raw / math.sqrt(q.shape[1])
            return raw.std().item(), scaled.std().item(), softmax_entropy(raw).item(), softmax_entropy(scaled).item()
        later[d] = numbers
    rows = []
    for d, f in later.items():
        a, b, c, e = f()
        rows.append({"d": d, "raw_std": a, "scaled_std": b, "H_raw": c, "H_scaled": e})
    return rows'''),
}
TABLE_RIGHT = {
    "row_makers_bind_their_scores": _table('''    makers = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        s = (q @ k.T)[0]
        makers.append(lambda d=d, s=s: {"d": d, "raw_std": s.std().item(), "scaled_std": (s / d ** 0.5).std().item(),
                                        "H_raw": softmax_entropy(s).item(),
                                        "H_scaled": softmax_entropy(s / d ** 0.5).item()})
    return [make() for make in makers]'''),
}


def _mha(body: str) -> dict[str, str]:
    return {"multi_head_attention": f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
{body}
'''}


HEADS_LATE = {
    "inner_def_cutters_in_a_loop": _mha('''    cutters = []
    for h in range(n_heads):
        def cut(M):
            return M[:, h * d_k:(h + 1) * d_k]
        cutters.append(cut)
    return torch.cat([attention(f(Q), f(K), f(V), d_k)[0] for f in cutters], dim=-1) @ W_O'''),
    "dict_of_head_thunks": _mha('''    thunks = {h: (lambda: attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                    V[:, h * d_k:(h + 1) * d_k], d_k)[0]) for h in range(n_heads)}
    return torch.cat([thunks[h]() for h in sorted(thunks)], dim=1) @ W_O'''),
}
HEADS_RIGHT = {
    "head_thunks_bind_h": _mha('''    thunks = {h: (lambda h=h: attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                        V[:, h * d_k:(h + 1) * d_k], d_k)[0]) for h in range(n_heads)}
    return torch.cat([thunks[h]() for h in sorted(thunks)], dim=1) @ W_O'''),
}

LAYOUT_GUESSED = {
    "transpose_back_when_rows_equal_width": _attention('''    if K.shape[-2] == Q.shape[-1]:
        K = K.transpose(-2, -1)   # K came as (d_k, T_k)
''' + _TAIL),
    "branch_on_key_rows_equal_d_k": _attention('''    scores = (Q @ K if K.shape[0] == d_k else Q @ K.T) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights'''),
}
SHAPES_RIGHT = {
    "mT_every_time": _attention('''    weights = (Q @ K.mT / d_k ** 0.5).softmax(-1)
    return weights @ V, weights'''),
}

HEAD_WIDTH_ASSERT = {
    "assert_even_slice_width": _mha('''    assert (d_model // n_heads) % 2 == 0, "heads must have an even width"
    return torch.cat([attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)], 1) @ W_O'''),
    "assert_low_bit_clear": _mha('''    assert d_k & 1 == 0, f"rotary pairs need an even head width, got {d_k}"
    return torch.cat([attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)], 1) @ W_O'''),
}
HEAD_WIDTH_RIGHT = {
    "assert_divisible_only": _mha('''    assert d_model % n_heads == 0, "d_model must split into n_heads"
    return torch.cat([attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)], 1) @ W_O'''),
}

ZIP_SHORT = {
    "row_softmax_over_zip_pairs": _attention('''    rows = [torch.softmax(K @ q / math.sqrt(d_k), dim=-1) for q, _k in zip(Q, K)]
    weights = torch.stack(rows)
    return weights @ V, weights'''),
    "enumerate_zip_loop": _attention('''    out, ws = [], []
    for i, (q, k) in enumerate(zip(Q, K)):
        w = torch.softmax((K @ q) / d_k ** 0.5, dim=0)
        ws.append(w)
        out.append(w @ V)
    return torch.stack(out), torch.stack(ws)'''),
}
ZIP_RIGHT = {
    "row_softmax_over_queries_alone": _attention('''    rows = [torch.softmax(K @ q / math.sqrt(d_k), dim=-1) for q in Q]
    weights = torch.stack(rows)
    return weights @ V, weights'''),
}


@pytest.mark.parametrize("name", sorted(DTYPE_ASSERT))
def test_dtype_whitelist_assert_is_named(grader, name):
    failed = assert_named(_graded(grader, DTYPE_ASSERT[name]), "own_assert_rejects_float64", ("q1", "q8"))
    assert any("in float32 it runs and is right" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(SHAPE_ASSERT))
def test_same_shape_assert_is_named(grader, name):
    failed = assert_named(_graded(grader, SHAPE_ASSERT[name]), "own_assert_same_shape", ("q1", "q8"))
    assert any("cut to" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(DIMS_ASSERT))
def test_entropy_dims_assert_is_named(grader, name):
    failed = assert_named(_graded(grader, DIMS_ASSERT[name]), "entropy_assert_dims", "q4")
    assert {t for _q, t, _k, _m in failed} >= {"test_entropy_random_logits", "test_entropy_views"}, failed


@pytest.mark.parametrize("name", sorted(GENERATOR_TWICE))
def test_generator_read_twice_is_named(grader, name):
    failed = assert_named(_graded(grader, GENERATOR_TWICE[name]), "generator_read_twice", "q2")
    assert all("one pass only" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(TABLE_LATE))
def test_table_closures_bound_late_are_named(grader, name):
    failed = assert_named(_graded(grader, TABLE_LATE[name]), "closure_bound_late", "q4")
    assert all("last d" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(HEADS_LATE))
def test_head_closures_bound_late_are_named(grader, name):
    failed = assert_named(_graded(grader, HEADS_LATE[name]), "closure_bound_late", "q8")
    assert all("LAST head" in m for _q, _t, _k, m in failed), failed


@pytest.mark.parametrize("name", sorted(LAYOUT_GUESSED))
def test_key_layout_guessed_from_shape_is_named(grader, name):
    assert_named(_graded(grader, LAYOUT_GUESSED[name]), "keys_layout_guessed_from_shape", ("q1", "q8"),
                 also=("keys_not_transposed",))


@pytest.mark.parametrize("name", sorted(HEAD_WIDTH_ASSERT))
def test_head_width_parity_assert_is_named(grader, name):
    assert_named(_graded(grader, HEAD_WIDTH_ASSERT[name]), "mha_assert_head_width", "q8")


@pytest.mark.parametrize("name", sorted(ZIP_SHORT))
def test_zip_of_queries_and_keys_is_named(grader, name):
    failed = assert_named(_graded(grader, ZIP_SHORT[name]), "zip_stops_at_shorter", ("q1", "q8"))
    assert any("zips Q with K" in m for _q, _t, _k, m in failed), failed


RIGHT = {**DTYPE_RIGHT, **SHAPE_RIGHT, **DIMS_RIGHT, **GENERATOR_RIGHT, **TABLE_RIGHT, **HEADS_RIGHT, **SHAPES_RIGHT,
         **HEAD_WIDTH_RIGHT, **ZIP_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    assert_full_marks(_graded(grader, RIGHT[name]))


def test_a_value_loop_over_the_query_count_is_named_on_the_square_keys_case(grader) -> None:
    # the scan after this round: q1's new square-K call (T_k = d_k) had 5 queries and 6 keys, where a value loop
    # bounded by the query count leaves a value out and no diagnosis read it (test_float32_square: a bare difference);
    # with 7 queries it indexes past the last key, as in the other tests, and is named as there
    cell = _attention('''    weights = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    out = torch.zeros(Q.shape[0], V.shape[1], dtype=V.dtype)
    for i in range(Q.shape[0]):
        for j in range(len(Q)):
            out[i] = out[i] + weights[i, j] * V[j]
    return out, weights''')
    assert_named(_graded(grader, cell), "scores_square_from_query_count", "q1", also=("one_edit_fix",))
