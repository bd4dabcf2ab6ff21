"""Naming scaled-attention's mistakes by kind (issue 21, fifth round), in-process: each diagnosis in
hidden/_diagnose.py rests on a property of the answer (or a second call), so it must name forms of the
mistake it was never shown, and name nothing on a right answer or on another mistake."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception, register_misconceptions
from reference import scaled_attention as sa

HIDDEN = Path(__file__).resolve().parents[1] / "assignments" / "scaled-attention" / "hidden"
register_misconceptions(HIDDEN / "q1.py")
_spec = importlib.util.spec_from_file_location("_test_scaled_kinds_diagnose", HIDDEN / "_diagnose.py")
assert _spec is not None and _spec.loader is not None
D = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(D)


def _r(*shape, seed=0, dtype=torch.float64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _qkv(dtype=torch.float64):
    return _r(5, 12, seed=1, dtype=dtype), _r(7, 12, seed=2, dtype=dtype), _r(7, 10, seed=3, dtype=dtype)


# --- weights that are a softmax numerator ----------------------------------------------------------------

@pytest.mark.parametrize("shift", ["row_max", "global_max", "row_mean", "none"])
def test_unnormalised_weights_are_named_whatever_was_subtracted(shift):
    Q, K, V = _qkv()
    s = Q @ K.T / math.sqrt(12)
    sub = {"row_max": s.amax(-1, keepdim=True), "global_max": s.max(), "row_mean": s.mean(-1, keepdim=True),
           "none": torch.zeros(())}[shift]
    w = torch.exp(s - sub)
    found = D.row_sums_evidence((w @ V, w), Q, K, V, 12)
    assert found is not None and found[0] == "weights_not_normalised"
    assert torch.allclose(found[1][0], w @ V)


def test_one_sum_over_the_matrix_is_whole_matrix_and_right_or_constant_names_nothing():
    Q, K, V = _qkv()
    e = torch.exp(Q @ K.T / math.sqrt(12))
    w = e / e.sum()
    assert D.row_sums_evidence((w @ V, w), Q, K, V, 12)[0] == "softmax_whole_matrix"
    out, right = sa.attention(Q, K, V, 12)
    assert D.row_sums_evidence((out, right), Q, K, V, 12) is None
    # every row times one constant: a constant factor, which the generic message says
    assert D.row_sums_evidence((out * 0.5, right * 0.5), Q, K, V, 12) is None
    # weights of another mistake (no scale): their rows, normalised, are not the right weights
    w = F.softmax(Q @ K.T, dim=-1) * 3.0
    assert D.row_sums_evidence((w @ V, w), Q, K, V, 12) is None


# --- dtype ------------------------------------------------------------------------------------------------

def test_right_values_in_another_dtype_are_dtype_changed_and_wrong_values_are_not():
    x = _r(4, 6, dtype=torch.float32)
    expected = sa.softmax_entropy(x.double())
    with pytest.raises(Misconception) as e:
        D.raise_if_dtype_changed(sa.softmax_entropy(x.double()), expected, torch.float32, "H")
    assert e.value.key == "dtype_changed"
    D.raise_if_dtype_changed(sa.softmax_entropy(x).double() * 2, expected, torch.float32, "H")   # wrong: not named
    D.raise_if_dtype_changed(sa.softmax_entropy(x), expected, torch.float32, "H")                # right dtype


# --- the entropy table -------------------------------------------------------------------------------------

def test_positions_as_d_are_named_and_the_dims_are_not():
    dims = (12, 48, 100)
    for start in (0, 1):
        with pytest.raises(Misconception) as e:
            D.raise_if_index_as_d([{"d": start + i} for i in range(3)], dims)
        assert e.value.key == "loop_index_as_d"
    D.raise_if_index_as_d([{"d": d} for d in dims], dims)
    D.raise_if_index_as_d([{"d": d} for d in (0, 1, 2)], (0, 1, 2))   # dims that are the positions: no evidence
    D.raise_if_index_as_d([{"d": 7}, {"d": 8}, {"d": 9}], dims)


def test_one_key_score_table_differs_from_the_right_one():
    table = D.table_one_score((4, 16), 0)
    right = sa.table_as_tensor(sa.entropy_table((4, 16), 0))
    assert torch.isnan(table[:, :2]).all() and (table[:, 2:] == 0).all() and torch.isfinite(right).all()


# --- multi-head attention ----------------------------------------------------------------------------------

def _mha_inputs(T=5, d_model=24):
    return _r(T, d_model, seed=4), [_r(d_model, d_model, seed=10 + i) * d_model ** -0.5 for i in range(4)]


def _mha(X, Ws, n_heads, order=None, fixed=None):
    d_k = X.shape[-1] // n_heads
    Q, K, V = (X @ W for W in Ws[:3])
    heads = []
    for h in order if order is not None else range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        f = slice(fixed * d_k, (fixed + 1) * d_k) if fixed is not None else c
        heads.append(sa.attention(Q[:, c], K[:, f], V[:, c], d_k)[0])
    return torch.cat(heads, dim=-1) @ Ws[3]


def test_heads_in_another_order_are_named_and_wrong_heads_are_said():
    X, Ws = _mha_inputs()
    key, _ = D.heads_through_w_o(_mha(X, Ws, 4, order=[3, 2, 1, 0]), X, Ws, 4)
    assert key == "mha_heads_reordered"
    assert D.heads_through_w_o(_mha(X, Ws, 4), X, Ws, 4) == (None, "")       # right: nothing to say
    key, said = D.heads_through_w_o(_mha(X, Ws, 4, fixed=1), X, Ws, 4)       # keys of head 1 everywhere
    assert key is None and "head(s) [1]" in said and "[0, 2, 3]" in said


def test_a_fixed_slice_is_a_variant_for_each_role_and_head():
    X, Ws = _mha_inputs()
    variants = D.mha_slice_variants(X, *Ws, 4)
    assert torch.allclose(variants["mha_head_slice_fixed/k_2"], _mha(X, Ws, 4, fixed=2))
    right = sa.multi_head_attention(X, *Ws, 4)
    assert not any(torch.allclose(v, right) for v in variants.values())


class _Crash:
    """A stand-in for the student's proxy: the first call's error, then the function itself."""
    def __init__(self, kept):
        self.kept = kept

    def __call__(self, X, W_Q, W_K, W_V, W_O, n_heads):
        d_k = X.shape[-1] // n_heads
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        heads = [sa.attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                              V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in self.kept(n_heads)]
        cat = torch.cat(heads, dim=-1)
        if cat.shape[-1] != W_O.shape[0]:
            raise StudentCodeError("RuntimeError", f"mat1 and mat2 shapes cannot be multiplied ({cat.shape[0]}x"
                                   f"{cat.shape[1]} and {W_O.shape[0]}x{W_O.shape[1]})", "")
        return cat @ W_O


@pytest.mark.parametrize("kept", [lambda n: range(n - 1), lambda n: range(1, n)])
def test_missing_heads_are_named_from_a_second_call(kept):
    X, Ws = _mha_inputs()
    fn = _Crash(kept)
    with pytest.raises(StudentCodeError) as e:
        fn(X, *Ws, 4)
    named = D.heads_missing(fn, e.value, X, Ws, 4)
    assert named is not None and named.key == "mha_heads_missing"


def test_a_shape_crash_of_another_cause_is_not_heads_missing():
    X, Ws = _mha_inputs()

    def fn(X, W_Q, W_K, W_V, W_O, n_heads):   # fails the same way whatever W_O is: no heads dropped
        raise StudentCodeError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (5x18 and 24x24)", "")
    with pytest.raises(StudentCodeError) as e:
        fn(X, *Ws, 4)
    assert D.heads_missing(fn, e.value, X, Ws, 4) is None


# --- sixth round: the fifth blind set's kinds --------------------------------------------------------------

def _raw_entropy(eps):
    def fn(s):
        return -(s * torch.log(s + eps)).sum(dim=-1)
    return fn


@pytest.mark.parametrize("eps", [0.0, 1e-12, 1e-9, 1e-6])
def test_the_entropy_of_the_scores_is_named_from_its_probe_whatever_the_epsilon(eps):
    named = D.raw_scores_entropy(_raw_entropy(eps), nan_seen=True)
    assert named is not None and named.key == "entropy_of_raw_scores"


def test_the_entropy_of_the_scores_is_not_named_for_other_entropies():
    def clamped(s):                      # no NaN: the negative row is finite, so a NaN cannot be blamed on it
        return -(s * torch.log(s.clamp_min(1e-9))).sum(dim=-1)
    assert D.raw_scores_entropy(clamped, nan_seen=True) is None
    assert D.raw_scores_entropy(clamped, nan_seen=False).key == "entropy_of_raw_scores"
    assert D.raw_scores_entropy(sa.softmax_entropy, nan_seen=False) is None

    def saturated(s):                    # 0 * log 0: right on these scores
        p = F.softmax(s, dim=-1)
        return -(p * torch.log(p)).sum(dim=-1)
    assert D.raw_scores_entropy(saturated, nan_seen=True) is None
    assert D.raw_scores_entropy(lambda s: sa.softmax_entropy(s) * 2, nan_seen=False) is None

    def crash(s):
        raise StudentCodeError("RuntimeError", "boom", "")
    assert D.raw_scores_entropy(crash, nan_seen=True) is None


def _lesson_table(dims=(4, 16, 64), seed=0):
    return sa.table_as_tensor(sa.entropy_table(dims, seed))


@pytest.mark.parametrize("column, op, said", [(0, torch.square, "raw_std holds the square"),
                                              (1, torch.square, "scaled_std holds the square"),
                                              (0, torch.sqrt, "raw_std holds the square root")])
def test_a_std_column_squared_or_rooted_is_named_with_its_column(column, op, said):
    right = _lesson_table()
    table = right.clone()
    table[:, column] = op(table[:, column])
    with pytest.raises(Misconception) as e:
        D.raise_if_column_squared(table, right)
    assert e.value.key == "table_variance_as_std" and said in str(e.value)


def test_a_column_wrong_otherwise_or_two_wrong_ways_is_not_named():
    right = _lesson_table()
    D.raise_if_column_squared(right, right)                      # right: nothing
    table = right.clone()
    table[:, 0] *= 1.1
    D.raise_if_column_squared(table, right)                      # 10% off: not a square
    table = right.clone()
    table[:, 0] = table[:, 0] ** 2
    table[:, 2] += 0.5                                           # and an entropy wrong: not this one mistake
    D.raise_if_column_squared(table, right)


def _reseeded(rule):
    def table(dims, seed):
        rows = [sa.entropy_table((d,), rule(seed, d, i))[0] for i, d in enumerate(dims)]
        return sa.table_as_tensor(rows)
    return table


@pytest.mark.parametrize("rule, shown", [(lambda s, d, i: s + d, "d = 16: seed +16"),
                                         (lambda s, d, i: s + i + 1, "d = 16: seed +2"),
                                         (lambda s, d, i: s * d, "d = 16: seed * 16")])
def test_rows_at_other_seeds_are_named_when_a_second_seed_follows_the_rule(rule, shown):
    dims, seed = (4, 16, 64), 11
    make = _reseeded(rule)
    with pytest.raises(Misconception) as e:
        D.raise_if_reseeded(make(dims, seed), dims, seed, lambda s: make(dims, s))
    assert e.value.key == "table_reseeded_per_row" and shown in str(e.value)


def test_rows_at_other_seeds_are_not_named_without_the_second_seeds_confirmation():
    dims, seed = (4, 16, 64), 11
    fixed = _reseeded(lambda s, d, i: 11 + d)(dims, seed)       # seeded with 11 + d whatever the seed passed
    # at seed 11 it is seed + d; at the second seed it is not: no rule holds for both
    D.raise_if_reseeded(fixed, dims, seed, lambda s: fixed)
    right = _lesson_table(dims, seed)
    D.raise_if_reseeded(right, dims, seed, lambda s: _lesson_table(dims, s))        # right: nothing
    scaled = right.clone()
    scaled[:, 1] *= 2
    D.raise_if_reseeded(scaled, dims, seed, lambda s: _lesson_table(dims, s))       # not a row at any seed


def _merged(X, Ws, n_heads, merge):
    d_k = X.shape[-1] // n_heads
    Q, K, V = (X @ W for W in Ws[:3])
    heads = [sa.attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k],
                          d_k)[0] for h in range(n_heads)]
    return merge(heads) @ Ws[3]


@pytest.mark.parametrize("n_heads", [2, 3, 4])
def test_heads_interleaved_when_merged_are_named(n_heads):
    X, Ws = _mha_inputs()
    T, d_model = X.shape
    got = _merged(X, Ws, n_heads, lambda hs: torch.stack(hs, dim=-1).reshape(T, d_model))
    key, said = D.heads_through_w_o(got, X, Ws, n_heads)
    assert key == "mha_heads_interleaved" and "interleaved head by head" in said
    # another column order within the heads: named, not said to be the stack interleaving
    got = _merged(X, Ws, n_heads, lambda hs: torch.cat([h.flip(-1) for h in hs], dim=-1))
    key, said = D.heads_through_w_o(got, X, Ws, n_heads)
    assert key == "mha_heads_interleaved" and "another order" in said


def test_whole_head_blocks_reordered_stay_heads_reordered_not_interleaved():
    X, Ws = _mha_inputs()
    key, _ = D.heads_through_w_o(_merged(X, Ws, 4, lambda hs: torch.cat(hs[::-1], dim=-1)), X, Ws, 4)
    assert key == "mha_heads_reordered"


@pytest.mark.parametrize("value, said", [(3, "counted from 1 it is 'C'; counted from 0 it is 'D'"),
                                         ("1", "counted from 1 it is 'A'; counted from 0 it is 'B'"),
                                         (0, "counted from 0 it is 'A'")])
def test_a_choice_given_as_its_number_is_named(value, said):
    from autograder.grading.checks import expect_choice
    with pytest.raises(Misconception) as e:
        expect_choice(value, "q5_answer", answer="C", choices="ABCD")
    assert e.value.key == "answer_option_number" and said in str(e.value)


@pytest.mark.parametrize("value", ["C3", "x"])
def test_other_non_letters_are_not_an_option_number(value):
    from autograder.grading.checks import expect_choice
    with pytest.raises(AssertionError) as e:
        expect_choice(value, "q5_answer", answer="C", choices="ABCD")
    assert not isinstance(e.value, Misconception)


@pytest.mark.parametrize("value, kind", [(7, "a number"), (True, "a truth value"), (False, "a truth value"),
                                         (2.0, "a number"), (0.0442, "a number"),
                                         (("(T, d_k)", "(d_k, T)"), "a tuple of 2 values"), ([512, 64], "a list")])
def test_a_value_where_a_letter_is_asked_is_named_for_that_not_as_an_option_number(value, kind):
    """blind36: a scale factor, False, the shapes written out, an exponent: values, not an option's number
    (7 is no option of four; True is not counted as 1)."""
    from autograder.grading.checks import expect_choice
    with pytest.raises(Misconception) as e:
        expect_choice(value, "q5_answer", answer="C", choices="ABCD")
    assert e.value.key == "answer_value_not_letter" and kind in str(e.value)


@pytest.mark.parametrize("value", [("C",), ["c"], "C.", 3, "3"])
def test_letters_in_other_forms_keep_their_own_names(value):
    from autograder.grading.checks import expect_choice
    with pytest.raises(Misconception) as e:
        expect_choice(value, "q5_answer", answer="B", choices="ABCD")
    assert e.value.key != "answer_value_not_letter"


# --- issue 21, naming7: blind6's misses as kinds ------------------------------------------------------------

def _student(fn):
    """fn as the sandbox hands it back: a RuntimeError inside becomes StudentCodeError."""
    def proxy(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RuntimeError as e:
            raise StudentCodeError("RuntimeError", str(e), "") from None
    return proxy


def _upcast_scores(Q, K, V, d_k):
    w = torch.softmax(Q.double() @ K.double().T / math.sqrt(d_k), dim=-1)
    return w @ V, w


def _upcast_and_wrong(Q, K, V, d_k):
    w = torch.softmax(Q.double() @ K.double().T / d_k, dim=-1)
    return w @ V, w


@pytest.mark.parametrize("fn, named", [(_upcast_scores, True), (_upcast_and_wrong, False)])
def test_a_dtype_mismatch_crash_is_dtype_changed_only_when_float64_is_right(fn, named):
    Q, K, V = _qkv(torch.float32)
    with pytest.raises(StudentCodeError) as crash:
        _student(fn)(Q, K, V, 12)
    got = D.dtype_mix_crash(_student(fn), crash.value, Q, K, V, 12)
    assert (got is not None and got.key == "dtype_changed") is named
    assert D.dtype_mix_crash(_student(fn), StudentCodeError("RuntimeError", "boom", ""), Q, K, V, 12) is None


def _all_pairs(d_k, n, g, scaled=False):
    q, k = torch.randn(n, d_k, generator=g), torch.randn(n, d_k, generator=g)
    return float((q @ k.T / (math.sqrt(d_k) if scaled else 1.0)).var())


def _paired_through_diagonal(d_k, n, g, scaled=False):
    q, k = torch.randn(n, d_k, generator=g), torch.randn(n, d_k, generator=g)
    return float((q @ k.T).diagonal().var())


def test_variance_over_all_pairs_is_named_and_a_right_estimate_is_not():
    with pytest.raises(Misconception) as named:
        D.raise_if_all_pairs(_all_pairs, _all_pairs(16, 600, torch.Generator().manual_seed(5)), 16, 600, 5)
    assert named.value.key == "variance_over_all_pairs"
    D.raise_if_all_pairs(_paired_through_diagonal, _paired_through_diagonal(16, 600, torch.Generator().manual_seed(5)),
                         16, 600, 5)


def test_a_key_differing_in_case_or_punctuation_is_misspelled_and_another_key_is_not():
    for spelled in ("h_raw", "H-raw", "Hraw", "H raw"):
        with pytest.raises(Misconception) as named:
            D.raise_if_key_misspelled({"d": 4, spelled: 1.0}, ["H_raw"], 0)
        assert named.value.key == "table_key_misspelled" and repr(spelled) in str(named.value)
    D.raise_if_key_misspelled({"d": 4, "entropy_raw": 1.0}, ["H_raw"], 0)        # another word: not named
    D.raise_if_key_misspelled({"d": 4, "h_raw": 1.0, "hraw": 2.0}, ["H_raw"], 0)  # two readings: not named


def _table_with(dims, seed, c):
    rows = []
    for d in dims:
        raw = D._raw_scores_at(d, seed)
        s = raw / c(d)
        rows.append([float(raw.std()), float(s.std()), float(sa.softmax_entropy(raw)), float(sa.softmax_entropy(s))])
    return torch.tensor(rows)


@pytest.mark.parametrize("c, key", [(lambda d: math.sqrt(5), "scale_by_T"), (lambda d: 5.0, "wrong_scale_constant"),
                                    (lambda d: d ** 0.6, None), (lambda d: math.sqrt(d), "right")])
def test_the_table_scale_is_fitted_per_row(c, key):
    dims, seed = (4, 16, 64), 3
    expected = _table_with(dims, seed, math.sqrt)
    table = _table_with(dims, seed, c)
    if key == "right":
        D.raise_if_table_scale(table, expected, dims, seed)
        return
    with pytest.raises(AssertionError) as failed:
        D.raise_if_table_scale(table, expected, dims, seed)
    assert getattr(failed.value, "key", None) == key
    if key is None:
        assert "d = 16: c = 5.278" in str(failed.value)


@pytest.mark.parametrize("value, letter", [("d_k", "C"), ("$d_k$", "C"), ("sqrt(d_k)", "B"), ("\u221ad_k", "B"),
                                           ("d_k\u00b2", "D"), ("d_k ** 2", "D"), ("(D)", None), ("d.", None),
                                           ("1", None), ("C", None), ("variance", None)])
def test_an_option_written_out_maps_to_its_letter_and_a_letter_does_not(value, letter):
    assert D.option_of_text("q5_answer", value) == letter


def test_heads_summed_or_averaged_are_read_back_through_w_o():
    X = _r(5, 24, seed=4)
    Ws = [_r(24, 24, seed=10 + i) / math.sqrt(24) for i in range(4)]
    heads = torch.stack(D._mha_heads(X, *Ws[:3], 3))
    for merged in (heads.sum(0).repeat(1, 3), heads.mean(0).repeat(1, 3),
                   torch.cat([heads.sum(0), torch.zeros(5, 16, dtype=X.dtype)], dim=1)):
        assert D.heads_through_w_o(merged @ Ws[3], X, Ws, 3)[0] == "mha_heads_summed"
    assert D.heads_through_w_o(torch.cat(list(heads), dim=1) @ Ws[3], X, Ws, 3) == (None, "")
    averaged = D.averaged_map_variants(X, *Ws, 3)["mha_attention_maps_averaged/mean"]
    assert not torch.allclose(averaged, sa.multi_head_attention(X, *Ws, 3))


def _downcast_scores(Q, K, V, d_k):
    w = torch.softmax(Q.float() @ K.float().T / math.sqrt(d_k), dim=-1)
    return w @ V, w


def test_a_float32_cast_crashing_on_float64_input_is_dtype_changed():
    Q, K, V = _qkv(torch.float64)
    with pytest.raises(StudentCodeError) as crash:
        _student(_downcast_scores)(Q, K, V, 12)
    got = D.dtype_mix_crash(_student(_downcast_scores), crash.value, Q, K, V, 12)
    assert got is not None and got.key == "dtype_changed"


# --- issue 21, fifth round: blind8's misses as kinds ------------------------------------------------------

def _sandboxed(fn):
    """fn as the grader sees it: whatever it raises comes back as a StudentCodeError."""
    def wrapped(*args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - the sandbox turns every exception into one
            raise StudentCodeError(type(e).__name__, str(e), 'File "<cell>", line 4, in attention\n') from None
    return wrapped


@pytest.mark.parametrize("c", [1.0, 2.0])
def test_negated_scores_are_a_sign_not_a_constant(c):
    Q, K, V = _qkv()
    w = F.softmax(-(Q @ K.T) / (c * math.sqrt(12)), dim=-1)
    found = D.pair_evidence((w @ V, w), Q, K, V, 12)
    # the right constant negated is named; a negated other constant is neither named a sign nor a constant
    assert (found[0] if found else None) == ("scores_negated" if c == 1.0 else None)
    w = F.softmax(Q @ K.T / 5.0, dim=-1)      # a positive other constant stays wrong_scale_constant
    assert D.pair_evidence((w @ V, w), Q, K, V, 12)[0] == "wrong_scale_constant"


@pytest.mark.parametrize("k,dtype,output_rounded", [(2, torch.float64, False), (3, torch.float32, True),
                                                    (5, torch.float64, True)])
def test_rounded_weights_are_named_for_any_number_of_decimals(k, dtype, output_rounded):
    Q, K, V = _qkv(dtype)
    w = sa.attention(Q, K, V, 12)[1].round(decimals=k)
    out = (w @ V).round(decimals=k) if output_rounded else w @ V
    assert D.pair_evidence((out, w), Q, K, V, 12)[0] == "weights_rounded"
    # weights of another mistake that happen to be short decimals are not rounding: too far from the right ones
    u = torch.full_like(w, 1 / 7).round(decimals=k)
    assert D.rounded_evidence((u @ V, u), sa.attention(Q.double(), K.double(), V.double(), 12), V.double(),
                              dtype) is None


@pytest.mark.parametrize("check,named", [("total", "own_assert_total_weight"), ("tight", None), ("row", None)])
def test_own_assert_is_said_and_named_when_one_query_passes(check, named):
    Q, K, V = _qkv(torch.float32)

    def attention(Q, K, V, d_k):
        w = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
        if check == "total":
            assert abs(float(w.sum()) - 1) < 1e-5
        elif check == "tight":
            assert bool(((w.sum(-1) - 1).abs() == 0).all()) or w.dtype == torch.float64
        else:
            assert w.shape[0] < 3
        return w @ V, w
    with pytest.raises(AssertionError) as raised:
        D.call_pair(_sandboxed(attention), Q, K, V, 12)
    assert getattr(raised.value, "key", None) == named
    assert "your own assert failed (line 4 of `attention`)" in str(raised.value)
    if check == "tight":
        assert "tolerance" in str(raised.value)


@pytest.mark.parametrize("reduce", ["mean", "sum"])
def test_averaged_dot_products_are_named_by_the_same_draws(reduce):
    def variance(d_k, n, g, scaled=False):
        q, k = torch.randn(n, d_k, generator=g), torch.randn(n, d_k, generator=g)
        dots = getattr(q * k, reduce)(1) / (math.sqrt(d_k) if scaled else 1)
        return dots.var().item()
    for scaled in (False, True):
        v = variance(12, 2000, torch.Generator().manual_seed(5), scaled)
        if reduce == "mean":
            with pytest.raises(Misconception) as raised:
                D.raise_if_averaged(v, 5, 12, 2000, scaled)
            assert raised.value.key == "dot_averaged_not_summed"
        else:
            D.raise_if_averaged(v, 5, 12, 2000, scaled)


def test_misnamed_answer_variable_is_said_escaped():
    names = {"q7_choice": "D\x1b[2J", "q5": len}
    with pytest.raises(Misconception) as raised:
        D.on_missing_answer("q7_answer", names.get)
    assert raised.value.key == "answer_variable_misnamed" and "`q7_choice`" in str(raised.value)
    assert "\x1b" not in str(raised.value)
    D.on_missing_answer("q5_answer", names.get)     # a function under a near name is not an answer


def test_head_width_from_tokens_is_shown_by_a_square_input():
    def mha(X, W_Q, W_K, W_V, W_O, n_heads, width=lambda X: X.shape[0]):
        d_k = width(X) // n_heads
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        heads = [sa.attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k],
                              d_k)[0] for h in range(n_heads)]
        return torch.cat(heads, dim=-1) @ W_O
    X, Ws = _r(5, 24, seed=4), [_r(24, 24, seed=5 + i) / 24 ** 0.5 for i in range(4)]
    fn = _sandboxed(mha)
    with pytest.raises(StudentCodeError) as raised:
        fn(X, *Ws, 4)
    assert D.width_from_tokens(fn, raised.value, X, Ws, 4).key == "mha_head_width_from_tokens"
    # a crash whose square re-run is not right names nothing
    bad = _sandboxed(lambda X, *a: mha(X, *a[:5], width=lambda X: X.shape[0] + 1) if X.shape[0] != 24 else X)
    with pytest.raises(StudentCodeError) as raised:
        bad(X, *Ws, 4)
    assert D.width_from_tokens(bad, raised.value, X, Ws, 4) is None


def test_keys_and_values_swapped_in_heads_is_a_variant_only_when_it_differs():
    X, Ws = _r(5, 24, seed=4), [_r(24, 24, seed=5 + i) / 24 ** 0.5 for i in range(4)]
    got = D.role_swap_variants(X, *Ws, 4)["mha_keys_values_swapped"]
    assert not torch.allclose(got, sa.multi_head_attention(X, *Ws, 4))


# --- naming10 (issue 21, sixth round): blind9's misses as kinds --------------------------------------------

def _same(a, b):
    return torch.allclose(a.double(), b.double(), atol=1e-6)


@pytest.mark.parametrize("k", [1, 2, 4])
def test_top_k_attention_is_named_with_its_k_and_a_causal_mask_is_not(k):
    Q, K, V = _qkv()
    s = Q @ K.T / math.sqrt(12)
    kth = s.topk(k, dim=-1).values[:, -1:]
    w = torch.softmax(s.masked_fill(s < kth, float("-inf")), dim=-1)
    found = D.top_k_evidence((w @ V, w), Q, K, V, 12, _same)
    assert found is not None and found[0] == "attention_top_k" and f"k = {k} of the 7" in found[2]
    causal = torch.softmax(s.masked_fill(torch.ones(5, 7).triu(1).bool(), float("-inf")), dim=-1)
    assert D.top_k_evidence((causal @ V, causal), Q, K, V, 12, _same) is None
    right = torch.softmax(s, dim=-1)
    assert D.top_k_evidence((right @ V, right), Q, K, V, 12, _same) is None


def test_randn_shape_swapped_is_told_apart_from_a_sum_over_the_samples():
    right, wrong = sa.variance_variants(12, 500, 7, False)
    swapped = wrong["dots_summed_over_samples/shape_swapped"]
    assert abs(swapped - wrong["dots_summed_over_samples"]) > 1e-3 * swapped   # the same numbers, used otherwise
    assert D.replay_key("dots_summed_over_samples/shape_swapped/float64") == "randn_shape_swapped"
    assert D.replay_key("dots_summed_over_samples/float64") == "dots_summed_over_samples"
    assert D.replay_key("shared_sample/query_drawn_last") == "shared_sample"


def test_a_table_column_copied_is_named_and_a_swap_or_a_right_table_is_not():
    expected = torch.tensor([[1.0, 0.5, 1.2, 1.5], [4.0, 1.0, 0.3, 1.4], [8.0, 1.0, 0.01, 1.3]])
    copied = expected.clone()
    copied[:, 1] = expected[:, 0]
    with pytest.raises(Misconception) as named:
        D.raise_if_column_copied(copied, expected)
    assert named.value.key == "table_field_copied" and "scaled_std holds the values of raw_std" in str(named.value)
    swapped = expected[:, [1, 0, 2, 3]]
    D.raise_if_column_copied(swapped, expected)
    D.raise_if_column_copied(expected.clone(), expected)


def _entropy_eps_outside(logits):
    p = torch.softmax(logits, dim=-1)
    return -((p + 1e-9) * torch.log(p)).sum(dim=-1)


def _entropy_nan(logits):
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log(p)).sum(dim=-1)


def test_an_infinite_saturated_entropy_is_named_only_when_the_probe_shows_log_zero():
    logits = _r(3, 8, dtype=torch.float32)
    logits[0, 2] += 300.0
    got = _entropy_eps_outside(logits)
    assert math.isinf(float(got[0]))
    with pytest.raises(Misconception) as named:
        D.raise_if_inf_saturated(_entropy_eps_outside, got, lambda fn: False)
    assert named.value.key == "entropy_epsilon_outside_log"
    D.raise_if_inf_saturated(_entropy_eps_outside, got, lambda fn: True)      # wrong on ordinary logits: not named
    D.raise_if_inf_saturated(_entropy_nan, _entropy_nan(logits), lambda fn: False)   # NaN: another cause


def test_split_by_count_variants_are_d_k_heads_of_width_n_heads_and_none_where_the_widths_agree():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(5, 12, generator=g, dtype=torch.float64)
    Ws = [torch.randn(12, 12, generator=g, dtype=torch.float64) for _ in range(4)]
    out = D.split_by_count_variants(X, *Ws, 3)                  # d_k = 4 heads of width 3
    Q, K, V = (X @ W for W in Ws[:3])
    heads = [sa.attention(Q[:, i * 3:(i + 1) * 3], K[:, i * 3:(i + 1) * 3], V[:, i * 3:(i + 1) * 3], 4)[0]
             for i in range(4)]
    assert torch.allclose(out["mha_split_by_head_count/scale_d_k"], torch.cat(heads, dim=-1) @ Ws[3])
    X16 = torch.randn(5, 16, generator=g, dtype=torch.float64)
    assert D.split_by_count_variants(X16, *(torch.eye(16, dtype=torch.float64),) * 4, 4) == {}


def test_a_constant_head_width_is_named_from_a_second_call_and_a_width_from_tokens_is_not():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(5, 48, generator=g, dtype=torch.float64)
    Ws = [torch.randn(48, 48, generator=g, dtype=torch.float64) * 48 ** -0.5 for _ in range(4)]

    def student(width_of):
        def fn(X, W_Q, W_K, W_V, W_O, n_heads):
            w = width_of(X)
            Q, K, V = X @ W_Q, X @ W_K, X @ W_V
            heads = [sa.attention(Q[:, h * w:(h + 1) * w], K[:, h * w:(h + 1) * w], V[:, h * w:(h + 1) * w], w)[0]
                     for h in range(n_heads)]
            cat = torch.cat(heads, dim=-1)
            if cat.shape[1] != W_O.shape[0]:
                raise StudentCodeError("RuntimeError", f"mat1 and mat2 shapes cannot be multiplied ({cat.shape[0]}x"
                                       f"{cat.shape[1]} and {W_O.shape[0]}x{W_O.shape[1]})")
            return cat @ W_O
        return fn

    fixed = student(lambda X: 4)
    try:
        fixed(X, *Ws, 4)
    except StudentCodeError as e:
        named = D.constant_width(fixed, e, X, Ws, 4)
    assert named is not None and named.key == "mha_head_width_constant" and "width 4" in str(named)
    tokens = student(lambda X: X.shape[0] - 1)                    # 4 of the 5 tokens: not a constant
    try:
        tokens(X, *Ws, 4)
    except StudentCodeError as e:
        assert D.constant_width(tokens, e, X, Ws, 4) is None


# --- blind10's kinds (issue 21, seventh round) --------------------------------------------------------

def _torch_error(thunk) -> StudentCodeError:
    try:
        thunk()
    except Exception as e:  # noqa: BLE001 - torch's own message is what is tested
        return StudentCodeError(type(e).__name__, str(e))
    raise AssertionError("no error")


@pytest.mark.parametrize("factory, args", [("randn", (4, 3)), ("rand", ((4, 3),)), ("randint", (0, 5, (3,))),
                                           ("randperm", (5,))])
def test_a_generator_given_positionally_is_named_from_torchs_own_message(factory, args):
    make = getattr(torch, factory)       # the wrong call, as a student writes it: the generator last, positionally
    e = _torch_error(lambda: make(*args, torch.Generator()))
    found = D.generator_positional(e)
    assert found is not None and found.key == "generator_positional"


def test_other_type_errors_name_no_generator():
    assert D.generator_positional(_torch_error(lambda: torch.randn(4, 3.5))) is None
    assert D.generator_positional(StudentCodeError("RuntimeError", "got torch._C.Generator")) is None


def test_log1p_and_flattened_entropies_are_candidates_only_where_they_differ_from_the_entropy():
    logits = _r(3, 6, seed=4)
    v = D.entropy_variants(logits)
    p = torch.softmax(logits, -1)
    assert torch.allclose(v["entropy_log1p"], -(p * torch.log1p(p)).sum(-1))
    flat = torch.softmax(logits.flatten(), 0)
    assert torch.allclose(v["entropy_flattened"], -(flat * flat.log()).sum())
    # one row: flattening is the right answer, so no candidate
    assert "entropy_flattened" not in D.entropy_variants(_r(1, 6, seed=4))
    assert "entropy_flattened" not in D.entropy_variants(_r(6, seed=4))


def test_another_key_count_is_named_with_its_count_and_the_lessons_table_is_not():
    dims, seed = (4, 16, 64), 3
    right = D._table_with_keys(dims, seed, 5)
    D.raise_if_key_count(right, right, dims, seed)          # five keys: nothing
    with pytest.raises(Misconception) as got:
        D.raise_if_key_count(D._table_with_keys(dims, seed, 8), right, dims, seed)
    assert got.value.key == "table_key_count" and "8 keys" in str(got.value)
    D.raise_if_key_count(right * 1.5, right, dims, seed)    # some other wrong table: nothing


def test_sqrt_passed_as_d_k_divides_the_scores_by_the_fourth_root():
    X, Ws = _r(5, 24, seed=5), [_r(24, 24, seed=6 + i) * 24 ** -0.5 for i in range(4)]
    got = D.scale_passed_variants(X, *Ws, 2)["mha_d_k_passed_as_sqrt"]
    Q, K, V = (X @ W for W in Ws[:3])
    heads = [torch.softmax(Q[:, c] @ K[:, c].T / 12 ** 0.25, -1) @ V[:, c] for c in (slice(0, 12), slice(12, 24))]
    assert torch.allclose(got, torch.cat(heads, -1) @ Ws[3])
    assert D.scale_passed_variants(X, *Ws, 24) == {}        # d_k = 1: sqrt(1) = 1 is the right call


def _mha_values(full_qk: bool):
    def fn(X, W_Q, W_K, W_V, W_O, n_heads):
        d_k = X.shape[1] // n_heads
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        cols = [slice(None) if full_qk else slice(h * d_k, (h + 1) * d_k) for h in range(n_heads)]
        cat = torch.cat([sa.attention(Q[:, c], K[:, c], V, d_k)[0] for c in cols], dim=-1)
        if cat.shape[1] != W_O.shape[0]:
            raise StudentCodeError("RuntimeError", f"mat1 and mat2 shapes cannot be multiplied ({cat.shape[0]}x"
                                   f"{cat.shape[1]} and {W_O.shape[0]}x{W_O.shape[1]})")
        return cat @ W_O
    return fn


def test_values_not_split_is_named_from_a_wider_w_o_and_unsplit_heads_are_not():
    X, Ws = _r(5, 24, seed=7), [_r(24, 24, seed=8 + i) * 24 ** -0.5 for i in range(4)]
    for full_qk, key in ((False, "mha_values_not_split"), (True, None)):
        fn = _mha_values(full_qk)
        with pytest.raises(StudentCodeError) as crash:
            fn(X, *Ws, 3)
        found = D.mha_crash(fn, crash.value, X, Ws, 3)
        assert (found.key if found is not None else None) == key


def test_one_normalisation_over_the_tensor_is_a_per_row_candidate_only_with_more_than_one_row():
    logits = _r(3, 6, seed=9)
    e = torch.exp(logits)
    p = e / e.sum()
    got = D.entropy_variants(logits)["entropy_softmax_whole_tensor"]
    assert got.shape == (3,) and torch.allclose(got, -(p * p.log()).sum(-1))
    assert "entropy_softmax_whole_tensor" not in D.entropy_variants(_r(1, 6, seed=9))


def _mha_short(offset: int):
    def fn(X, W_Q, W_K, W_V, W_O, n_heads):
        d_k = X.shape[1] // n_heads
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        cs = [slice(h * d_k + offset, (h + 1) * d_k - 1 + offset) for h in range(n_heads)]
        cat = torch.cat([sa.attention(Q[:, c], K[:, c], V[:, c], d_k)[0] for c in cs], dim=-1)
        if cat.shape[1] != W_O.shape[0]:
            raise StudentCodeError("RuntimeError", f"mat1 and mat2 shapes cannot be multiplied ({cat.shape[0]}x"
                                   f"{cat.shape[1]} and {W_O.shape[0]}x{W_O.shape[1]})")
        return cat @ W_O
    return fn


@pytest.mark.parametrize("offset", [0, 1])
def test_a_head_slice_one_column_short_is_named_from_a_narrower_w_o_with_where_it_starts(offset):
    X, Ws = _r(5, 24, seed=10), [_r(24, 24, seed=11 + i) * 24 ** -0.5 for i in range(4)]
    fn = _mha_short(offset)
    with pytest.raises(StudentCodeError) as crash:
        fn(X, *Ws, 3)
    found = D.mha_crash(fn, crash.value, X, Ws, 3)
    assert found is not None and found.key == "mha_head_slice_short"
    assert ("h * d_k + 1" in str(found)) == (offset == 1)


# --- the generator not used, or re-seeded (naming12) --------------------------------------------------------

def _new_generator_inside(d_k, n, generator, scaled=False):
    g = torch.Generator().manual_seed(5)
    dots = (torch.randn(n, d_k, generator=g) * torch.randn(n, d_k, generator=g)).sum(-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()


def _global_seed_inside(d_k, n, generator, scaled=False):
    torch.manual_seed(0)
    dots = (torch.randn(n, d_k) * torch.randn(n, d_k)).sum(-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()


def _generator_reseeded(d_k, n, generator, scaled=False):
    generator.manual_seed(3)
    dots = (torch.randn(n, d_k, generator=generator) * torch.randn(n, d_k, generator=generator)).sum(-1)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()


@pytest.mark.parametrize("fn", [_new_generator_inside, _global_seed_inside, _generator_reseeded])
def test_an_unused_or_reseeded_generator_is_named_from_a_second_call(fn):
    value = fn(12, 500, torch.Generator().manual_seed(1))
    with pytest.raises(Misconception) as raised:
        D.raise_if_generator_unused(fn, 12, 500, (1, 2), value, False)
    assert raised.value.key == "ignores_generator"


def test_a_constant_formula_is_not_named_as_an_unused_generator():
    D.raise_if_generator_unused(lambda d_k, n, g, scaled=False: float(d_k), 12, 500, (1, 2), 12.0, False)


def test_heads_through_their_diagonal_blocks_of_w_o_are_a_candidate_that_differs_from_the_right_output():
    X = _r(5, 24, seed=4)
    Ws = [_r(24, 24, seed=10 + i) / math.sqrt(24) for i in range(4)]
    heads = D._mha_heads(X, *Ws[:3], 3)
    blockwise = torch.cat([o @ Ws[3][h * 8:(h + 1) * 8, h * 8:(h + 1) * 8] for h, o in enumerate(heads)], dim=1)
    got = D.output_block_variants(X, *Ws, 3)["mha_output_projection_per_head"]
    assert torch.allclose(got, blockwise)
    assert not torch.allclose(got, sa.multi_head_attention(X, *Ws, 3))


def test_a_layer_norm_and_a_division_by_the_head_count_are_named_and_another_factor_is_only_said():
    X = _r(5, 24, seed=4)
    Ws = [_r(24, 24, seed=10 + i) / math.sqrt(24) for i in range(4)]
    right = sa.multi_head_attention(X, *Ws, 3)
    for got, key in ((F.layer_norm(right, (24,)), "mha_layer_norm_added"),
                     (F.layer_norm(X + right, (24,)), "mha_layer_norm_added")):
        with pytest.raises(Misconception) as raised:
            D.raise_if_layer_norm(got, X, right)
        assert raised.value.key == key
    D.raise_if_layer_norm(right, X, right)
    with pytest.raises(Misconception) as raised:
        D.output_factor(right / 3, X, right, 3)
    assert raised.value.key == "mha_output_divided_by_heads"
    assert "0.5 times" in D.output_factor(right / 2, X, right, 3)
    assert D.output_factor(right, X, right, 3) == ""


@pytest.mark.parametrize("names", [("W_Q", "W_Q", "W_Q"), ("W_K", "W_K", "W_K"), ("W_Q", "W_V", "W_V")])
def test_a_projection_reused_for_another_role_is_a_same_projection_variant(names):
    X, Ws = _mha_inputs()
    mats = dict(zip(("W_Q", "W_K", "W_V", "W_O"), Ws))
    got = sa.multi_head_attention(X, *(mats[n] for n in names), Ws[3], 4)
    variants = {**sa.mha_variants(X, *Ws, 4), **D.mha_slice_variants(X, *Ws, 4)}
    hits = [k for k, v in variants.items() if v.shape == got.shape and torch.allclose(v, got, atol=1e-10)]
    assert hits and all(k.startswith("same_projection/") for k in hits)


def test_the_reuse_variants_differ_from_the_right_output_and_from_each_other():
    X, Ws = _mha_inputs()
    reuse = D.projection_reuse_variants(X, *Ws, 4)
    right = sa.multi_head_attention(X, *Ws, 4)
    others = {k: v for k, v in {**sa.mha_variants(X, *Ws, 4), **D.mha_slice_variants(X, *Ws, 4)}.items()
              if not k.startswith("same_projection/") and v.shape == right.shape}
    for k, v in reuse.items():
        assert not torch.allclose(v, right, atol=1e-8), k
        assert not any(torch.allclose(v, o, atol=1e-8) for o in others.values()), k


# --- naming14: blind13's kinds ------------------------------------------------------------------------------

@pytest.mark.parametrize("key,shift,total", [("softmax_shift_wrong_axis", -2, -1), ("softmax_sum_wrong_axis", -1, -2)])
def test_softmax_step_on_the_wrong_axis_is_named(key, shift, total):
    Q, K, V = _qkv()
    s = Q @ K.T / math.sqrt(12)
    e = torch.exp(s - s.amax(dim=shift, keepdim=True))
    w = e / e.sum(dim=total, keepdim=True)
    found = D.pair_evidence((w @ V, w), Q, K, V, 12)
    assert found is not None and found[0] == key


def test_right_softmax_with_global_shift_names_nothing():
    Q, K, V = _qkv()
    s = Q @ K.T / math.sqrt(12)
    w = torch.exp(s - s.max()) / torch.exp(s - s.max()).sum(-1, keepdim=True)
    assert D.pair_evidence((w @ V, w), Q, K, V, 12) is None


def test_heads_split_features_as_tokens_differs_from_right():
    X, Ws = _r(6, 8, seed=4), [_r(8, 8, seed=5 + i) for i in range(4)]
    got = D.features_as_tokens_variants(X, *Ws, 2)
    assert set(got) == {"mha_heads_features_as_tokens/d_k", "mha_heads_features_as_tokens/T"}
    assert not torch.allclose(got["mha_heads_features_as_tokens/d_k"], sa.multi_head_attention(X, *Ws, 2))


# --- sixteenth round: slices at h * n_heads (blind15's mis-name) -------------------------------------------

def _stride_fn(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[-1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    cat = torch.cat([sa.attention(Q[:, s:s + d_k], K[:, s:s + d_k], V[:, s:s + d_k], d_k)[0]
                     for s in range(0, n_heads * n_heads, n_heads)], dim=-1)
    if cat.shape[-1] != W_O.shape[0]:
        raise StudentCodeError("RuntimeError", f"mat1 and mat2 shapes cannot be multiplied ({cat.shape[0]}x"
                               f"{cat.shape[1]} and {W_O.shape[0]}x{W_O.shape[1]})", "")
    return cat @ W_O


def test_slices_at_h_times_n_heads_are_not_heads_missing():
    X, Ws = _mha_inputs(d_model=32)          # 8 heads of d_k = 4: the slices at 0, 8, 16, 24 are heads 0, 2, 4, 6
    with pytest.raises(StudentCodeError) as e:
        _stride_fn(X, *Ws, 8)
    named = D.heads_missing(_stride_fn, e.value, X, Ws, 8)
    assert named is not None and named.key == "mha_head_stride_n_heads"
    every_other = _Crash(lambda n: range(0, n, 2))   # the same heads at n_heads = 8, but not a stride slip
    with pytest.raises(StudentCodeError) as e:
        every_other(X, *Ws, 8)
    named = D.heads_missing(every_other, e.value, X, Ws, 8)
    assert named is not None and named.key == "mha_heads_missing"


def test_slices_at_h_times_n_heads_that_fit_are_a_variant_only_where_the_stride_is_not_d_k():
    X, Ws = _mha_inputs(d_model=24)
    out = D.head_stride_variants(X, *Ws, 2)["mha_head_stride_n_heads"]
    assert torch.allclose(out, _stride_fn(X, *Ws, 2))
    X, Ws = _mha_inputs(d_model=16)          # 4 heads of d_k = 4: the stride is right
    assert D.head_stride_variants(X, *Ws, 4) == {}


class _StartsTimesDk(_Crash):
    """range(0, d_model, d_k) over the starts, each multiplied by d_k again (blind31): heads past d_model empty."""
    def __init__(self):
        super().__init__(lambda n: ())

    def __call__(self, X, W_Q, W_K, W_V, W_O, n_heads):
        d_model = X.shape[-1]
        d_k = d_model // n_heads
        self.kept = lambda n: [h for h in range(0, d_model, d_k) if h * d_k < d_model]
        return super().__call__(X, W_Q, W_K, W_V, W_O, n_heads)


@pytest.mark.parametrize("n_heads, d_model", [(4, 48), (8, 32)])
def test_head_starts_multiplied_twice_are_told_from_a_call_with_d_k_one(n_heads, d_model):
    X, Ws = _mha_inputs(d_model=d_model)
    fn = _StartsTimesDk()
    with pytest.raises(StudentCodeError) as e:
        fn(X, *Ws, n_heads)
    named = D.heads_missing(fn, e.value, X, Ws, n_heads)
    assert named is not None and named.key == "mha_head_start_scaled_twice"
    # a loop that stops after head 0 keeps the same head, and is still wrong at d_k = 1: heads missing
    once = _Crash(lambda n: range(1))
    with pytest.raises(StudentCodeError) as e:
        once(X, *Ws, n_heads)
    named = D.heads_missing(once, e.value, X, Ws, n_heads)
    assert named is not None and named.key == "mha_heads_missing"
