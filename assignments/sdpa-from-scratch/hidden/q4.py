"""Question 4: causal_mask(T_q, T_k=None), lower-triangular, top-left aligned like is_causal."""
import importlib.util
from pathlib import Path

import torch
from otter.test_files import test_case

from autograder.errors import StudentCodeError
from autograder.grading.checks import (
    Misconception,
    assert_plain_tensor,
    call,
    describe,
    raise_if_other_container,
    register_misconceptions,
)
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q4"
register_misconceptions(__file__)


def _diagnose():
    """hidden/_diagnose.py, beside this file (the hidden folder is no package)."""
    path = Path(__file__).with_name("_diagnose.py")
    spec = importlib.util.spec_from_file_location(f"{__name__}_diagnose", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _diagnose()


def _check(fn, T_q, T_k, long=False, submission=None):
    what = f"causal_mask({T_q})" if T_k is None else f"causal_mask({T_q}, {T_k})"
    if long:                                  # a fixed-size buffer: right up to some size, wrong beyond
        try:
            _check(fn, T_q, T_k, submission=submission)
        except (AssertionError, StudentCodeError):
            diag.name_fixed_size_mask(fn, T_q, T_k, what)
            raise
        return
    try:
        got = call(fn, T_q, what="causal_mask") if T_k is None else call(fn, T_q, T_k, what="causal_mask")
    except StudentCodeError as e:
        if T_k is None:
            diag.name_default_not_filled(fn, T_q, f"{what} raised {e.exc_type}: {e.message}")
        diag.name_mask_not_outer(fn, f"{what} raised {e.exc_type}")
        diag.name_tril_indices_swapped(fn, T_q, T_k, f"{what} raised {e.exc_type}", crash=e.exc_type)   # round48
        diag.name_mask_assumes_more_keys(fn, T_q, T_k, e)      # round53: torch.zeros(T_q, T_k - T_q) glued on
        raise
    expected = ref.causal_mask(T_q, T_k)
    raise_if_other_container(got, expected.to(torch.float64), what)    # a list of lists, a NumPy array
    t = assert_plain_tensor(got, what)
    if tuple(t.shape) != tuple(expected.shape):
        diag.name_mask_squeezed(fn, t, expected, what)       # round64: a bare .squeeze() with T_q or T_k = 1
        diag.name_stale_mask(fn, f"{what} has shape {tuple(t.shape)}, expected {tuple(expected.shape)}")   # a cache
        diag.name_mask_from_first_call(fn, t, T_q, expected.shape[-1], what, submission)    # naming round 63
        diag.name_mask_not_outer(fn, f"{what} has shape {tuple(t.shape)}")
        diag.name_extra_leading_axes(t, expected, what, same=lambda a, b: ((a != 0) == b).all())
        if tuple(t.shape) == tuple(expected.shape)[::-1] and T_k is not None and T_q != T_k \
                and bool(((t != 0) == ref.causal_mask(T_k, T_q)).all()):
            # triu(ones(T_q, T_k)).T or tril(ones(T_k, T_q)): the causal mask of the swapped sizes
            raise Misconception("causal_sizes_swapped", f"{what} has shape {tuple(t.shape)}: it is "
                                f"causal_mask({T_k}, {T_q}), the mask of the swapped sizes: "
                                + describe("causal_sizes_swapped"))
        for n in {T_q, expected.shape[-1]}:
            if tuple(t.shape) == (n, n) and bool(((t != 0) == ref.causal_mask(n)).all()):
                raise Misconception("causal_ignores_T_k", f"{what} has shape {tuple(t.shape)}: a square mask from "
                                    f"one length; it should be ({T_q}, {expected.shape[-1]}), one row per query "
                                    "and one column per key" + diag.square_helper_words(submission))
        if tuple(t.shape) == tuple(expected.shape)[::-1] and bool(((t != 0) == expected.T).all()):
            # rows and columns swapped (arange(T_k)[:, None] against arange(T_q)): the transpose of a
            # lower-triangular mask is the upper triangle of (T_k, T_q), which a square mask names too
            raise Misconception("upper_triangular_mask", f"{what} has shape {tuple(t.shape)}: it is the right "
                                "mask transposed (one row per key), the upper triangle: it matches "
                                + describe("upper_triangular_mask"))
        diag.name_mask_size_off_by_one(t, expected, what)
        diag.name_stale_mask(fn, f"{what} has shape {tuple(t.shape)}, expected {tuple(expected.shape)}")
        raise AssertionError(f"{what} has shape {tuple(t.shape)}, expected {tuple(expected.shape)}")
    if t.dtype != torch.bool:
        form = diag.mask_as_numbers(t, expected)
        if form == "0/1":
            raise Misconception("mask_not_bool", f"{what} has the right pattern in dtype {t.dtype}: return a "
                                "torch.bool mask (True = may attend), which ~mask and masked_fill need")
        if form == "additive":
            fill = float(t[~expected][0])
            raise Misconception("mask_not_bool", f"{what} is the additive form of the right mask in dtype "
                                f"{t.dtype} (0 where a query may attend, {fill:g} where it may not): "
                                + describe("mask_not_bool"))
        raise AssertionError(f"{what} should have dtype torch.bool (True = may attend), got {t.dtype}")
    if bool((t == expected).all()):
        return
    if T_k is not None and T_k > T_q:
        # round52 (blind52): the square tril of T_q with the extra key columns T_q..T_k-1 all True (F.pad(tri,
        # (0, T_k - T_q), value=1), torch.cat with ones): every query sees every extra key. Padding with False
        # is the right mask (j <= i < T_q), so only the True padding is wrong
        if T_q == 1 and bool(t.all()):
            diag.name_single_query_all_true(fn, T_k, what)     # round66: a T_q == 1 branch, two queries right
        padded = torch.cat([ref.causal_mask(T_q), torch.ones(T_q, T_k - T_q, dtype=torch.bool)], dim=1)
        if bool((t == padded).all()):
            raise Misconception("causal_extra_keys_visible", f"{what} is the square causal mask of {T_q} with the "
                                f"{T_k - T_q} extra key columns ({T_q}..{T_k - 1}) all True: "
                                + describe("causal_extra_keys_visible"))
    if bool(t.all()) or not bool(t.any()):
        # one value everywhere: positions compared without the queries on their own axis, when causal_mask(3, 5)
        # then fails to broadcast (blind32); else tril()'s result thrown away, a mask of ones never cut (naming21),
        # when every size, square and rectangular, is all True
        said = f"{what} is {'True' if bool(t.all()) else 'False'} everywhere"
        diag.name_mask_not_outer(fn, said)
        if not bool(t.any()):
            diag.name_mask_all_false(fn, said, submission)      # round53: triu(ones == 0, diagonal=1); round74: > 1
        if bool(t.all()):
            diag.name_mask_blocks_nothing(fn, f"{said}, so no query is kept from any key", submission)
            if T_k is not None and T_q != T_k:
                diag.name_rectangular_mask_open(fn, said)      # round44: causal only where T_q == T_k
            diag.name_query_index_tiled(fn, said)      # round50: arange(T_q).repeat(T_k).view(T_q, T_k)
            raise AssertionError(f"{said}, so no query is kept from any key: the mask must be True only where key "
                                 "j <= query i")
    if bool((t == ~expected).all()):     # triu(diagonal=1): True on the blocked keys (nn.Transformer's convention)
        raise Misconception("inverted_mask", f"{what} is True on the keys a query may not see: it matches "
                            + describe("inverted_mask"))
    diag.name_tiled_triangle(t, T_q, T_k, what)     # naming round 86: every tile below the diagonal a triangle
    diag.name_mask_filled_column_major(fn, t, T_q, T_k, what)     # round72: product(keys, queries) reshaped row-major
    for key, wrong in ref.causal_mask_variants(T_q, T_k).items():
        if bool((t == wrong).all()):
            diag.name_positions_from_one(key, what, submission)      # naming round 80: arange(1, T_q + 1) vs arange(T_k)
            raise Misconception(key, f"{what} is wrong: it matches {describe(key)}")
    diag.name_inplace_on_expanded_mask(t, what, submission)    # naming round 63: expand(...).tril_()
    diag.name_not_equal_mask(t, what)                          # round47: sign(i - j).bool(), i != j
    diag.name_tril_indices_swapped(fn, T_q, T_k, f"{what} is wrong")     # round48: mask[cols, rows] = True
    diag.name_flipped_triangle(t, T_q, T_k, what)             # round44: triu().flip(0) for the lower triangle
    if T_k is not None and T_q != T_k and bool((t == diag.query_index_tiled(T_q, T_k)).all()):
        diag.name_query_index_tiled(fn, f"{what} is wrong")      # round50: its own pattern, and the probes'
    _name_sliding_window(t, expected, what)
    diag.name_numbered_grid(fn, t, what, submission)     # round76: a ratio j / i compared (blind77)
    _name_fractions(t, expected, what)
    if bool((t == diag.diagonal_only(*t.shape[-2:])).all()):
        diag.name_unsigned_offsets(fn, f"{what} is wrong")
    diag.name_stale_mask(fn, f"{what} is wrong")
    diag.name_mask_loop_returned_early(t, expected, what, submission)     # round74: a return in the row loop
    wrong_at = (t != expected).nonzero()[0].tolist()
    raise AssertionError(f"{what} is not the causal mask (True where key j <= query i): it differs in "
                         f"{int((t != expected).sum())} entries, the first at [{wrong_at[0]}, {wrong_at[1]}]")


def _name_sliding_window(t, expected, what):
    """round38 (blind37): the causal mask AND a local window, True only where 0 <= i - j <= w for one w >= 1 (w = 0,
    the diagonal alone, is no window), on a mask that the window changes: causal_sliding_window."""
    back = torch.arange(t.shape[-2])[:, None] - torch.arange(t.shape[-1])[None, :]     # i - j
    for w in range(1, int(back.max())):
        if bool((t == (expected & (back <= w))).all()):
            raise Misconception("causal_sliding_window", f"{what} is wrong: it is True only where 0 <= i - j <= {w}, "
                                f"a sliding window of {w + 1} keys: " + describe("causal_sliding_window"))


def _fraction_masks(T_q, T_k):
    """round39 (blind38): key j <= query i compared as fractions of each length: j / (T_k - 1) <= i / (T_q - 1)
    (torch.linspace(0, 1, T), in float32 or float64, or exactly) and j / T_k <= i / T_q. Equal to the right mask
    when T_q == T_k."""
    out = []
    for dt in (torch.float32, torch.float64):
        q, k = torch.arange(T_q, dtype=dt)[:, None], torch.arange(T_k, dtype=dt)[None, :]
        out.append(k / T_k <= q / T_q)
        if T_q > 1 and T_k > 1:
            out += [torch.linspace(0, 1, T_k, dtype=dt)[None, :] <= torch.linspace(0, 1, T_q, dtype=dt)[:, None],
                    k / (T_k - 1) <= q / (T_q - 1)]
    i, j = torch.arange(T_q)[:, None], torch.arange(T_k)[None, :]
    out.append(j * T_q <= i * T_k)
    if T_q > 1 and T_k > 1:
        out.append(j * (T_q - 1) <= i * (T_k - 1))
    return out


def _name_fractions(t, expected, what):
    """The student's mask is one of _fraction_masks at this (rectangular) shape, which differs from the right one:
    positions_as_fractions."""
    T_q, T_k = t.shape[-2], t.shape[-1]
    if T_q == T_k:
        return
    for m in _fraction_masks(T_q, T_k):
        if not bool((m == expected).all()) and bool((t == m).all()):
            raise Misconception("positions_as_fractions", f"{what} is wrong: it compares the positions as "
                                "fractions of each length (j / T_k against i / T_q, or linspace(0, 1, T)), not j <= i: "
                                + describe("positions_as_fractions"))


@test_case(points=1, hidden=True)
def test_square(causal_mask, rng, submission=None):
    T = int(torch.randint(5, 13, (1,), generator=rng))
    _check(causal_mask, T, None, submission=submission)
    _check(causal_mask, T, T, submission=submission)
    # longer than a small fixed buffer a student may cut the mask from (16, 64, 256: caught here); the
    # longest (nanoGPT's block_size = 1024) in test_more_keys_than_queries, where a few queries keep the
    # mask small (a 1100 x 1100 one here cost every submission ~45 ms, bench/breakdown.py)
    T = int(torch.randint(300, 340, (1,), generator=rng))
    _check(causal_mask, T, None, long=True, submission=submission)


@test_case(points=1, hidden=True)
def test_more_queries_than_keys(causal_mask, rng, submission=None):
    T_k = int(torch.randint(3, 7, (1,), generator=rng))
    T_q = T_k + int(torch.randint(2, 6, (1,), generator=rng))
    _check(causal_mask, T_q, T_k, submission=submission)
    _check(causal_mask, T_q, 1, submission=submission)        # round64: one key (a bare .squeeze() drops it)


@test_case(points=1, hidden=True)
def test_more_keys_than_queries(causal_mask, rng, submission=None):
    T_q = int(torch.randint(3, 7, (1,), generator=rng))
    T_k = T_q + int(torch.randint(2, 6, (1,), generator=rng))
    _check(causal_mask, T_q, T_k, submission=submission)
    _check(causal_mask, 1, T_k, submission=submission)        # round64: one query
    # past any fixed-size buffer (nanoGPT's block_size = 1024), with few queries: a small mask to send
    _check(causal_mask, T_q, int(torch.randint(1030, 1100, (1,), generator=rng)), long=True, submission=submission)
