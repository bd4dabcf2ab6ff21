"""Naming scaled-attention's mistakes, round 22b (issue 21): blind19's three raw crashes, each named only by
proof (a second call that runs and is right), in-process on the hidden files' own helpers."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from reference import scaled_attention as sa

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r22b_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _hidden("_diagnose")


def _sandboxed(fn):
    def wrapped(*args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - the sandbox turns every exception into one
            raise StudentCodeError(type(e).__name__, str(e), "") from None
    return wrapped


def _crash(fn, *args) -> StudentCodeError:
    try:
        fn(*args)
    except StudentCodeError as e:
        return e
    raise AssertionError("no crash")


def _mha_inputs(T=5, d_model=48):
    g = torch.Generator().manual_seed(2)
    return torch.randn(T, d_model, generator=g, dtype=torch.float64), \
        [torch.randn(d_model, d_model, generator=g, dtype=torch.float64) * d_model ** -0.5 for _ in range(4)]


def _attention_2d(Q, K, V, d_k):
    w = torch.softmax(Q @ K.T / d_k ** 0.5, dim=-1)
    return w @ V, w


# --- q8: a head width from a head count of its own -------------------------------------------------------

def _width_from_eight(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[1] // 8
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = [_attention_2d(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k],
                          d_k)[0] for h in range(n_heads)]
    return torch.cat(outs, 1) @ W_O


def _cols_short_by_one(X, W_Q, W_K, W_V, W_O, n_heads):
    """Heads one column short of d_k: not a width from a head count (no n_heads makes it right)."""
    d_k = X.shape[1] // n_heads - 1
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = [_attention_2d(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k],
                          d_k)[0] for h in range(n_heads)]
    return torch.cat(outs, 1) @ W_O


def test_width_from_a_fixed_head_count_is_named_by_the_replay():
    fn = _sandboxed(_width_from_eight)
    X, Ws = _mha_inputs()
    e = _crash(fn, X, *Ws, 4)
    named = D.constant_width(fn, e, X, Ws, 4)
    assert isinstance(named, Misconception) and named.key == "mha_head_width_constant"
    assert "n_heads = 8" in str(named)


def test_width_no_head_count_makes_right_is_not_named_by_the_replay():
    fn = _sandboxed(_cols_short_by_one)
    X, Ws = _mha_inputs()
    e = _crash(fn, X, *Ws, 4)
    assert D._width_from_head_count(fn, e, "", X, Ws, 4, 11) is None


# --- q8: heads as one batch into a 2-D attention -----------------------------------------------------------

def _batched_into(attention):
    def mha(X, W_Q, W_K, W_V, W_O, n_heads):
        T, d_model = X.shape
        d_k = d_model // n_heads
        q, k, v = ((X @ W).view(T, n_heads, d_k).transpose(0, 1) for W in (W_Q, W_K, W_V))
        return attention(q, k, v, d_k)[0].transpose(0, 1).reshape(T, d_model) @ W_O
    return mha


def test_batched_heads_into_2d_attention_is_fixed_axes():
    attention = _sandboxed(_attention_2d)
    fn = _sandboxed(_batched_into(_attention_2d))
    X, Ws = _mha_inputs()
    e = _crash(fn, X, *Ws, 4)
    named = D.batched_heads_crash(attention, e, X, Ws, 4)
    assert isinstance(named, Misconception) and named.key == "fixed_axes"


def test_other_crash_than_the_attentions_is_not_fixed_axes():
    attention = _sandboxed(_attention_2d)
    X, Ws = _mha_inputs()
    e = StudentCodeError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (5x24 and 48x48)", "")
    assert D.batched_heads_crash(attention, e, X, Ws, 4) is None


def test_attention_wrong_per_head_is_not_fixed_axes():
    def scaled_by_d(Q, K, V, d_k):
        w = torch.softmax(Q @ K.T / d_k, dim=-1)
        return w @ V, w
    attention = _sandboxed(scaled_by_d)
    fn = _sandboxed(_batched_into(scaled_by_d))
    X, Ws = _mha_inputs()
    assert D.batched_heads_crash(attention, _crash(fn, X, *Ws, 4), X, Ws, 4) is None


# --- q4: an entropy right on 2-D logits only ----------------------------------------------------------------

def _transpose_trick(logits):
    e = torch.exp(logits - logits.max(dim=-1, keepdim=True).values)
    p = (e.T / e.sum(dim=-1)).T
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def _transpose_trick_unnormalised(logits):
    e = torch.exp(logits)
    p = (e.T / e.sum(dim=-1)).T * 2
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def test_transpose_trick_on_3d_is_fixed_axes():
    fn = _sandboxed(_transpose_trick)
    logits = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(1))
    named = D.entropy_crash(fn, _crash(fn, logits), tuple(logits.shape))
    assert isinstance(named, Misconception) and named.key == "fixed_axes"
    assert torch.allclose(fn(logits[0]).double(), sa.softmax_entropy(logits[0].double()), atol=1e-5)


def test_transpose_trick_wrong_on_2d_too_is_not_named():
    fn = _sandboxed(_transpose_trick_unnormalised)
    logits = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(1))
    assert D.entropy_crash(fn, _crash(fn, logits), tuple(logits.shape)) is None
