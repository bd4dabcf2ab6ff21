"""Naming scaled-attention's mistakes, round 24 (issue 21): blind20's kinds, in-process on the hidden files'
own helpers. A name rests on a replay of the mistake on the same input (or a second call that proves it)."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from autograder.errors import StudentCodeError

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r24_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _hidden("_diagnose")


def _sandboxed(fn):
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the sandbox turns every exception into one
            raise StudentCodeError(type(e).__name__, str(e), "") from None
    return wrapped


def _qkv(dtype, T_q=6, T_k=6, d_k=12, d_v=5):
    g = torch.Generator().manual_seed(3)
    return (torch.randn(T_q, d_k, generator=g, dtype=dtype), torch.randn(T_k, d_k, generator=g, dtype=dtype),
            torch.randn(T_k, d_v, generator=g, dtype=dtype))


# --- q1: the student's own assert: each row == 1 exactly, or the whole matrix's total ----------------------

@pytest.mark.parametrize("check,named", [("rows_exact", "own_assert_exact_equality"),
                                         ("total", "own_assert_total_weight"),
                                         ("rows_tolerance_and_finite", None)])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_own_assert_exact_rows_is_not_the_total(check, named, dtype):
    Q, K, V = _qkv(dtype, T_k=7)

    def attention(Q, K, V, d_k):
        w = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
        if check == "rows_exact":
            assert (w.sum(-1) == 1).all()
        elif check == "total":
            assert abs(float(w.sum()) - 1) < 1e-5
        else:   # a right check that fails only on these inputs' first query (not a float-equality slip)
            assert not bool(torch.equal(Q[0], Q_first))
        return w @ V, w
    Q_first = Q[0].clone()
    rows = [i for i in range(6) if float(F.softmax(Q @ K.T / math.sqrt(12), dim=-1)[i].sum()) != 1]
    if check == "rows_exact" and not rows:
        pytest.skip("every row happens to sum to exactly 1")
    with pytest.raises(AssertionError) as raised:
        D.call_pair(_sandboxed(attention), Q, K, V, 12)
    if dtype == torch.float32 and check == "rows_exact" and "tolerance" in str(raised.value):
        return   # the float64 copy ran: said as a tolerance tighter than float32's rounding (accurate)
    assert getattr(raised.value, "key", None) == named, str(raised.value)
    assert "your own assert failed" in str(raised.value)


# --- q2: the square root written d_k ** 1/2 ---------------------------------------------------------------

@pytest.mark.parametrize("form,named", [("after_division", "scale_precedence"), ("as_scale", "scale_precedence"),
                                        ("by_six", "wrong_scale_constant")])
def test_power_one_half_is_named_from_two_d_k(form, named):
    def variance(d_k, n, g, scaled=False):
        q, k = torch.randn(n, d_k, generator=g), torch.randn(n, d_k, generator=g)
        dots = (q * k).sum(1)
        if scaled:
            if form == "after_division":
                dots = dots / d_k ** 1/2
            elif form == "as_scale":
                dots = dots / (d_k ** 1 / 2)
            else:   # a constant 6 (= 12 / 2 at d_k = 12 only): not the precedence slip at another d_k, but the same
                dots = dots / 6   # divisor at d_k = 20 too: naming round 64's wrong_scale_constant, which is true of it
        return dots.var().item()
    v = variance(12, 2000, torch.Generator().manual_seed(5), True)
    try:
        D.raise_if_scaled_by_other(_sandboxed(variance), v, 5, 12, 2000)
    except AssertionError as e:
        assert getattr(e, "key", None) == named, str(e)
    else:
        assert named is None


# --- q4: a row reduction without keepdim in softmax_entropy ------------------------------------------------

def _lse_no_keepdim(logits):
    log_p = logits - torch.logsumexp(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


def _lse_right(logits):
    log_p = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    return -(log_p.exp() * log_p).sum(dim=-1)


@pytest.mark.parametrize("fn,named", [(_lse_no_keepdim, "keepdim_missing"), (_lse_right, None)])
def test_keepdim_missing_is_replayed_on_square_logits_and_after_a_crash(fn, named):
    logits = torch.randn(6, 6, generator=torch.Generator().manual_seed(1)) * 2
    got = fn(logits)
    found = D.entropy_keepdim_missing(got, logits, torch.float32, D.ref.softmax_entropy(logits.double()))
    assert (found.key if found is not None else None) == named
    try:
        fn(torch.randn(4, 8))
    except RuntimeError as e:
        crash = StudentCodeError("RuntimeError", str(e), "")
        found = D.entropy_crash(_sandboxed(fn), crash, (4, 8))
        assert found is not None and found.key == named
    else:
        assert named is None


# --- q4's table: values returned rounded, or one draw at the largest d sliced per d -----------------------

def test_table_rounded_or_sliced_is_replayed_and_a_right_table_is_not():
    dims, seed = (12, 48, 100), 7
    right = D.ref.table_as_tensor(D.ref.entropy_table(dims, seed))
    D.raise_if_rounded_or_sliced(right, right, dims, seed)     # nothing to name
    with pytest.raises(AssertionError) as raised:
        D.raise_if_rounded_or_sliced(right.double().round(decimals=2).float(), right, dims, seed)
    assert getattr(raised.value, "key", None) == "weights_rounded"
    with pytest.raises(AssertionError) as raised:
        D.raise_if_rounded_or_sliced(D._table_sliced_from_largest(dims, seed).float(), right, dims, seed)
    assert getattr(raised.value, "key", None) == "seed_outside_loop"
    other = D._table_sliced_from_largest(dims, seed + 1).float()    # another seed's sliced draw: not named
    D.raise_if_rounded_or_sliced(other, right, dims, seed)


# --- q4: Categorical(scores), the scores taken as probs ----------------------------------------------------

@pytest.mark.parametrize("form,named", [("positional", "entropy_of_raw_scores"), ("logits", None)])
def test_scores_as_probs_is_named_from_positive_scores(form, named):
    def softmax_entropy(logits):
        if form == "positional":
            return torch.distributions.Categorical(logits).entropy()
        return torch.distributions.Categorical(logits=logits).entropy()
    logits = torch.randn(4, 8)
    try:
        softmax_entropy(logits)
    except ValueError as e:
        found = D.entropy_crash(_sandboxed(softmax_entropy), StudentCodeError("ValueError", str(e), ""), (4, 8))
        assert found is not None and found.key == named
    else:
        assert named is None


# --- q8: a list of head outputs kept between calls (said, not named) ---------------------------------------

def test_heads_list_kept_between_calls_is_said():
    def mha(X, W_Q, W_K, W_V, W_O, n_heads, heads=[]):   # noqa: B006 - the mistake under test
        d_k = X.shape[1] // n_heads
        for h in range(n_heads):
            c = slice(h * d_k, (h + 1) * d_k)
            w = F.softmax((X @ W_Q)[:, c] @ (X @ W_K)[:, c].T / math.sqrt(d_k), dim=-1)
            heads.append(w @ (X @ W_V)[:, c])
        return torch.cat(heads, dim=1) @ W_O
    g = torch.Generator().manual_seed(0)
    Ws = [torch.randn(12, 12, generator=g, dtype=torch.float64) for _ in range(4)]
    mha(torch.randn(5, 12, generator=g, dtype=torch.float64), *Ws, 3)     # an earlier call
    X = torch.randn(7, 12, generator=g, dtype=torch.float64)
    try:
        mha(X, *Ws, 3)
    except RuntimeError as e:
        crash = StudentCodeError("RuntimeError", str(e), "")
    with pytest.raises(AssertionError) as raised:
        D._raise_if_list_from_earlier_call(_sandboxed(mha), crash, X, Ws, 3)
    assert getattr(raised.value, "key", None) is None and "kept between calls" in str(raised.value)


# --- q2: the moment formula with its terms swapped ---------------------------------------------------------

@pytest.mark.parametrize("swapped", [True, False])
def test_swapped_moments_are_minus_the_variance_of_the_same_draws(swapped):
    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(2000, 12, generator=g), torch.randn(2000, 12, generator=g)
    x = (q * k).sum(1)
    v = float(x.mean() ** 2 - (x ** 2).mean()) if swapped else -float(x.var()) * 1.5   # another negative number
    try:
        D.raise_if_averaged(v, 5, 12, 2000, False)
    except AssertionError as e:
        assert swapped and getattr(e, "key", None) == "variance_moments_swapped"
    else:
        assert not swapped


# --- q4: the log's guard as clamp(max=eps) -----------------------------------------------------------------

@pytest.mark.parametrize("guard,named", [("max", "entropy_clamp_max"), ("min", None), ("constant", None)])
def test_clamp_max_is_replayed_with_its_epsilon(guard, named):
    logits = torch.randn(6, 6, generator=torch.Generator().manual_seed(2)) * 2
    p = torch.softmax(logits, dim=-1)
    got = {"max": -(p * p.clamp(max=1e-7).log()).sum(-1), "min": -(p * p.clamp(min=1e-7).log()).sum(-1),
           "constant": torch.full((6,), 16.1)}[guard]   # -log(1.02e-7): no written eps
    found = D.entropy_clamp_max(got, logits, torch.float32, D.ref.softmax_entropy(logits.double()))
    assert (found.key if found is not None else None) == named
