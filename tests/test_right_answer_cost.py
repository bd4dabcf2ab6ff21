"""A right answer is never checked against the whole catalogue of replayed mistakes.

scaled-attention's q2 names mistakes that land inside the 10% band (a coordinate dropped, every vector standardised)
by replaying the student's generator through about 50 known mistakes. Those replays are 10000 x d_k draws each: a
right estimate that reached them cost 0.9 s of the grader's CPU per submission (bench/breakdown.py, scaled-attention,
12-05: 1010 ms per full-marks notebook, 257 ms once the right draw's replay is checked first). These tests make the
catalogue's replay fail loudly and show that a right estimate never reaches it, while a wrong one still does."""
from __future__ import annotations

import math

import pytest
import torch

from tests.hidden_modules import load

N = 10_000


@pytest.fixture
def diagnose():
    return load("scaled-attention", "_diagnose", "_right_answer_cost_diagnose")


def _estimate(d_k: int, seed: int, scaled: bool, drop_first: bool = False) -> float:
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(N, d_k, generator=g)
    k = torch.randn(N, d_k, generator=g)
    p = q * k
    dots = (p[:, 1:] if drop_first else p).sum(dim=1)
    return float((dots / (math.sqrt(d_k) if scaled else 1.0)).var())


def _refuse_catalogue(diagnose, monkeypatch) -> None:
    def refused(*args, **kwargs):
        raise RuntimeError("the catalogue's replay was reached")
    monkeypatch.setattr(diagnose, "variance_variants_all", refused)


@pytest.mark.parametrize("scaled", [False, True])
def test_right_estimates_skip_the_catalogue(diagnose, monkeypatch, scaled):
    _refuse_catalogue(diagnose, monkeypatch)
    for d_k in (12, 64):
        estimates = [(_estimate(d_k, seed, scaled), seed) for seed in (11, 12)]
        diagnose.raise_if_standardised_per_vector(estimates, d_k, N, scaled)
        diagnose.raise_if_coordinate_dropped(estimates, d_k, N, scaled)


def test_a_dropped_coordinate_still_reaches_it(diagnose, monkeypatch):
    """The order changed, not the check: a wrong estimate inside the band still goes to the replays (and is named)."""
    estimates = [(_estimate(12, seed, False, drop_first=True), seed) for seed in (11, 12)]
    with pytest.raises(Exception, match="dot_product_coordinate_dropped|one coordinate"):
        diagnose.raise_if_coordinate_dropped(estimates, 12, N, False)
    _refuse_catalogue(diagnose, monkeypatch)
    with pytest.raises(RuntimeError, match="catalogue"):   # no other mistake may give the same value
        diagnose.raise_if_coordinate_dropped(estimates, 12, N, False)


def test_an_estimate_from_other_draws_skips_the_catalogue(diagnose, monkeypatch):
    """An estimate inside the band from other random numbers (the generator ignored) matches no in-band replay: it
    is told elsewhere, without replaying the catalogue here (variance_ignores_generator cost 0.9 s there)."""
    _refuse_catalogue(diagnose, monkeypatch)
    for d_k in (12, 64):
        estimates = [(_estimate(d_k, seed + 1000, False), seed) for seed in (11, 12)]
        diagnose.raise_if_standardised_per_vector(estimates, d_k, N, False)
        diagnose.raise_if_coordinate_dropped(estimates, d_k, N, False)


def test_a_standardised_estimate_is_still_named(diagnose):
    def standardised(seed: int) -> float:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(N, 12, generator=g), torch.randn(N, 12, generator=g)
        z = [(x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True) for x in (q, k)]
        return float((z[0] * z[1]).sum(dim=1).var())
    with pytest.raises(Exception, match="standardised"):
        diagnose.raise_if_standardised_per_vector([(standardised(s), s) for s in (11, 12)], 12, N, False)
