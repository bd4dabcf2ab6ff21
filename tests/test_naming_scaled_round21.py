"""Naming scaled-attention's mistakes, round 21 (issue 21): blind18's mis-names and misses, each as its kind,
in-process on the hidden files' own helpers. A name rests on a replay of the mistake on the same input."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r21_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _hidden("_diagnose")


# --- q1: the right output transposed, V^T A^T; q8 charges nothing for it -------------------------------------

def _transposed(Q, K, V, d_k):
    w = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return V.T @ w.T, w


def _right(Q, K, V, d_k):
    w = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    return w @ V, w


def _inputs(T_q=6, T_k=4, d_k=12, d_v=5):
    g = torch.Generator().manual_seed(3)
    return (torch.randn(T_q, d_k, generator=g, dtype=torch.float64), torch.randn(T_k, d_k, generator=g, dtype=torch.float64),
            torch.randn(T_k, d_v, generator=g, dtype=torch.float64))


def test_output_transposed_is_named():
    Q, K, V = _inputs()
    with pytest.raises(Misconception) as e:
        D.check_pair(_transposed(Q, K, V, 12), Q, K, V, 12, "output")
    assert e.value.key == "output_transposed"     # V^T A^T = (A V)^T: its own key since naming34 (not A^T V)
    assert "(5, 6)" in str(e.value)


def test_output_transposed_square_is_named_and_right_passes():
    Q, K, V = _inputs(6, 6, 12, 6)       # T_q = d_v: same shape, the values tell
    with pytest.raises(Misconception) as e:
        D.check_pair(_transposed(Q, K, V, 12), Q, K, V, 12, "output")
    assert e.value.key == "output_transposed"
    D.check_pair(_right(Q, K, V, 12), Q, K, V, 12, "output")


def test_other_output_shape_mistake_is_not_named_transposed():
    Q, K, V = _inputs(6, 6, 12, 5)
    out, w = _transposed(Q, K, V, 12)
    wrong = (out * 0.5, w)                  # transposed and halved: not the replay
    with pytest.raises(AssertionError) as e:
        D.check_pair(wrong, Q, K, V, 12, "output")
    assert getattr(e.value, "key", None) != "output_uses_weights_transposed"


def test_q8_right_cell_on_transposed_attention_charges_nothing():
    q8 = _hidden("q8")

    def mha(X, W_Q, W_K, W_V, W_O, n_heads):
        d_k = X.shape[1] // n_heads
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        heads = [_transposed(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                             V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
        return torch.cat(heads, dim=-1) @ W_O

    g = torch.Generator().manual_seed(0)
    X, Ws = q8._inputs(g, 5, 48, torch.float64)
    q8._check(_sandboxed(mha), _sandboxed(_transposed), X, Ws, 4)     # returns: q1 charges the transposed output


def _sandboxed(fn):
    """fn as the grader sees it: whatever it raises comes back as a StudentCodeError."""
    def wrapped(*args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - the sandbox turns every exception into one
            raise StudentCodeError(type(e).__name__, str(e), "") from None
    return wrapped


# --- q2: keys_are_queries only by a replay; one draw split along the samples named by its own replay ---------

def _chunked(d_k, n, g, scaled=False):
    q, k = torch.randn(n, 2 * d_k, generator=g).chunk(2, dim=0)
    dots = (q * k).sum(1)
    return float((dots / math.sqrt(d_k) if scaled else dots).var())


@pytest.mark.parametrize("scaled", [False, True])
def test_chunked_draw_is_replayed(scaled):
    q2 = _hidden("q2")
    seed = 1234
    v = _chunked(12, q2.N, torch.Generator().manual_seed(seed), scaled)
    assert q2._replayed(12, seed, scaled, v) == "draw_split_along_samples"


def test_about_two_d_k_without_a_replay_is_generic():
    q2 = _hidden("q2")
    seed = 99

    def fn(d_k, n, generator, scaled=False):
        q = torch.randn(n, 2 * d_k, generator=generator)       # 2 d_k-term dots from fresh q, k: not q . q
        k = torch.randn(n, 2 * d_k, generator=generator)
        dots = (q * k).sum(1)
        return float((dots / math.sqrt(d_k) if scaled else dots).var())

    v = fn(12, q2.N, torch.Generator().manual_seed(seed))
    assert q2._replayed(12, seed, False, v) is None
    assert q2._near(v, 24.0)


# --- q8: a buffer for the heads shaped like W_O; the head width from the tokens needs T = d_model + 1 too ------

def _mha_buffer(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros_like(W_O)
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        concat[:, c] = _right(Q[:, c], K[:, c], V[:, c], d_k)[0]
    return concat @ W_O


def _mha_width_from_tokens(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[0] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [_right(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
             for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O


@pytest.mark.parametrize("fn, key", [(_mha_buffer, "mha_buffer_like_w_o"),
                                     (_mha_width_from_tokens, "mha_head_width_from_tokens")])
def test_q8_crash_kinds_told_apart(fn, key):
    q8 = _hidden("q8")
    X, Ws = q8._inputs(torch.Generator().manual_seed(0), 5, 48, torch.float64)
    with pytest.raises(Misconception) as e:
        q8._check(_sandboxed(fn), _sandboxed(_right), X, Ws, 4)
    assert e.value.key == key


# --- q2: the dot products divided by an integer square root of d_k (isqrt(12) = 3, isqrt(24) = 4) ----------------

def _variance_by(scale):
    def dot_product_variance(d_k, n_samples, generator, scaled=False):
        q = torch.randn(n_samples, d_k, generator=generator)
        k = torch.randn(n_samples, d_k, generator=generator)
        s = (q * k).sum(dim=1)
        return (s / scale(d_k) if scaled else s).var().item()
    return dot_product_variance


def _scaled_v(fn, d_k, seed, n=4000):
    return fn(d_k, n, torch.Generator().manual_seed(seed), scaled=True)


def test_integer_sqrt_scale_is_named_from_two_d_k():
    fn = _variance_by(math.isqrt)
    with pytest.raises(Misconception) as e:
        D.raise_if_scaled_by_other(fn, _scaled_v(fn, 12, 5), 5, 12, 4000)
    assert e.value.key == "integer_sqrt_scale"
    assert "isqrt(12)^2" in str(e.value) and "by 16" in str(e.value)


@pytest.mark.parametrize("scale", [lambda d_k: 3.0, lambda d_k: round(math.sqrt(d_k)), lambda d_k: d_k // 4])
def test_other_scales_that_give_9_at_12_are_not_named_isqrt(scale):
    fn = _variance_by(scale)           # 3 at d_k = 12 as isqrt, but 3, 5 or 6 at d_k = 24 where isqrt is 4
    with pytest.raises(AssertionError) as e:
        D.raise_if_scaled_by_other(fn, _scaled_v(fn, 12, 5), 5, 12, 4000)
    assert getattr(e.value, "key", None) != "integer_sqrt_scale"
    assert "divided by 9" in str(e.value)


# --- q4: one maximum of the whole tensor subtracted (NaN rows replayed); probabilities softmaxed again --------

def _saturated():
    g = torch.Generator().manual_seed(7)
    logits = torch.randn(4, 8, generator=g)
    logits[0, 3] += 300.0
    logits[2, 6] += 250.0
    return logits


def _global_shift(logits):
    e = (logits - logits.max()).exp()
    p = e / e.sum(-1, keepdim=True)
    return -(p * torch.log(p + 1e-9)).sum(-1)


def test_global_max_shift_nan_rows_are_named():
    logits = _saturated()
    got = _global_shift(logits)
    assert torch.isnan(got[1]) and not torch.isnan(got[0])
    e = D.global_max_nan(got, logits)
    assert e is not None and e.key == "entropy_exp_overflow" and "[1, 3]" in str(e)


def test_other_nan_patterns_are_not_named_global_max():
    logits = _saturated()
    got = _global_shift(logits)
    other = got.clone()
    other[0] = float("nan")                 # a NaN where the replay has none
    assert D.global_max_nan(other, logits) is None
    wrong = got.clone()
    wrong[2] += 0.5                         # the NaN rows right, another row wrong
    assert D.global_max_nan(wrong, logits) is None
    e = torch.exp(logits)                   # no shift at all: rows 0 and 2 overflow instead
    p = e / e.sum(-1, keepdim=True)
    assert D.global_max_nan(-(p * torch.log(p + 1e-9)).sum(-1), logits) is None


def test_softmax_twice_replays_are_named_and_right_is_not():
    logits = torch.randn(6, 5, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    right = D.ref.softmax_entropy(logits)
    p = torch.softmax(logits, -1)
    q = torch.softmax(p, -1)
    for got in (-(p * torch.log_softmax(p, -1)).sum(-1), -(q * q.log()).sum(-1)):
        e = D.entropy_softmax_twice(got.float(), logits, torch.float32, right)
        assert e is not None and e.key == "softmax_applied_twice"
    assert D.entropy_softmax_twice(right.float(), logits, torch.float32, right) is None
    assert D.entropy_softmax_twice((right * 0.9).float(), logits, torch.float32, right) is None


# --- q8: the right heads' (n_heads, T, d_k) stack merged in another axis order --------------------------------

@pytest.mark.parametrize("perm,key", [((0, 2, 1), "mha_heads_interleaved"), ((2, 1, 0), "mha_heads_interleaved"),
                                      ((0, 1, 2), "mha_merge_without_transpose")])
def test_merge_axis_orders_are_replayed(perm, key):
    g = torch.Generator().manual_seed(2)
    stacked = torch.randn(3, 5, 4, generator=g, dtype=torch.float64)

    def same(a, b):
        return bool(torch.allclose(a, b))
    got = stacked.permute(perm).reshape(5, 12)
    k, said = D.merged_axis_order(got, stacked, same)
    assert k == key and "reshaped to (T, d_model)" in said
    assert D.merged_axis_order(stacked.transpose(0, 1).reshape(5, 12), stacked, same) == (None, "")
    one = torch.randn(3, 1, 4, generator=g, dtype=torch.float64)     # T = 1: no transpose is the right merge
    assert D.merged_axis_order(one.reshape(1, 12), one, same) == (None, "")
