"""Naming scaled-attention's mistakes, round 33: blind32's kinds, in-process on the hidden files' own helpers.
A name rests on a replay of the mistake on the same input, or on a second call that proves it."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch

from autograder.grading.checks import Misconception
from reference import scaled_attention as sa

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"
N = 10_000


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r33_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _hidden("_diagnose")


def _pooled(d_k, n, generator, scaled=False):
    q = torch.randn(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q * k).sum(-1)
    return (torch.cat([dots, dots / math.sqrt(d_k)]) if scaled else dots).var().item()


def _halved(d_k, n, generator, scaled=False):
    """Dot products divided by sqrt(2): d_k / 2 scaled, within 1/d_k of the pooled mixture, never named so."""
    q = torch.randn(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q * k).sum(-1) / math.sqrt(2)
    return (dots / math.sqrt(d_k) if scaled else dots).var().item()


def test_both_kept_is_named_from_the_unscaled_call_and_a_halved_scale_is_not():
    v = _pooled(12, N, torch.Generator().manual_seed(5), scaled=True)
    with pytest.raises(Misconception) as named:
        D.raise_if_both_kept(_pooled, v, 5, 12, N)
    assert named.value.key == "scaled_and_unscaled_pooled"
    D.raise_if_both_kept(_halved, _halved(12, N, torch.Generator().manual_seed(5), scaled=True), 5, 12, N)


def _randn_times(c):
    def fn(d_k, n, generator, scaled=False):
        q = torch.randn(n, d_k, generator=generator) * c
        k = torch.randn(n, d_k, generator=generator) * c
        dots = (q * k).sum(-1)
        return (dots / math.sqrt(d_k) if scaled else dots).var().item()
    return fn


def test_randn_times_a_constant_is_said_not_named():
    """randn * s and dot products times s^2 give the same numbers: said as a constant factor, never the key."""
    fn = _randn_times(0.7)
    v = fn(12, N, torch.Generator().manual_seed(3))
    with pytest.raises(AssertionError) as said:
        D.raise_if_draws_not_unit_variance(fn, v, 3, 12, N, False, submission=None)
    assert not isinstance(said.value, Misconception)


def test_without_source_nothing_is_named():
    def box_muller(d_k, n, generator, scaled=False):
        def normals():
            u1 = torch.rand(n, d_k, generator=generator)
            u2 = torch.rand(n, d_k, generator=generator)
            return torch.sqrt(-torch.log(u1)) * torch.cos(2 * math.pi * u2)
        dots = (normals() * normals()).sum(1)
        return (dots / math.sqrt(d_k) if scaled else dots).var().item()
    v = box_muller(12, N, torch.Generator().manual_seed(9))
    D.raise_if_draws_not_unit_variance(box_muller, v, 9, 12, N, False, submission=None)   # no source: no name


def test_max_for_logsumexp_replay():
    z = torch.randn(3, 5, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    got = D.entropy_variants(z)["entropy_max_for_logsumexp"]
    p = torch.softmax(z, dim=-1)
    assert torch.allclose(got, -(p * (z - z.amax(-1, keepdim=True))).sum(-1))
    assert (got < sa.softmax_entropy(z)).all()
    assert float(D.entropy_variants(torch.zeros(1, 4, dtype=torch.float64))["entropy_max_for_logsumexp"][0]) == 0.0
