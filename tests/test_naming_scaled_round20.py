"""Naming scaled-attention's mistakes, round 20 (issue 21): blind17's remaining misses, each as its kind, in-process
on the hidden files' own helpers. A name rests on a replay of the mistake on the same input; a right answer, or a
wrong one the replay does not give, is evidence of nothing."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from autograder.grading.checks import Misconception

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r20_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _hidden("_diagnose")


# --- q4: an in-place op that overwrites p (or log p) while it is still needed ---------------------------------

def _log_in_place(logits):
    p = F.softmax(logits, dim=-1)
    log_p = p.add_(1e-9).log_()
    return -(p * log_p).sum(dim=-1)


def _clamp_log_in_place(logits):
    p = logits.softmax(-1)
    p.clamp_(min=1e-12).log_()
    return -(p * p).sum(-1)


def _exp_in_place(logits):
    log_p = F.log_softmax(logits, dim=-1)
    p = log_p.exp_()
    return -(p * log_p).sum(dim=-1)


def _right(logits):
    p = F.softmax(logits, dim=-1)
    log_p = p.clone().add_(1e-9).log_()
    return -(p * log_p).sum(-1)


def _sign(logits):
    p = F.softmax(logits, dim=-1)
    return (p * torch.log(p + 1e-9)).sum(-1)


def _log2(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log2(p + 1e-9)).sum(-1)


def _logits(saturated: bool) -> torch.Tensor:
    g = torch.Generator().manual_seed(3)
    logits = 2.0 * torch.randn(4, 8, generator=g)
    if saturated:                       # float32 probabilities that underflow to 0: the epsilon decides there
        logits[0, 3] += 300.0
        logits[2, 6] += 250.0
    return logits


@pytest.mark.parametrize("saturated", [False, True])
@pytest.mark.parametrize("fn, key", [
    (_log_in_place, "inplace_alias_overwritten"),
    (_clamp_log_in_place, "inplace_alias_overwritten"),
    (_exp_in_place, "inplace_alias_overwritten"),
    (_right, None),                     # in-place ops on a copy: nothing to name (and it is right)
    (_sign, None),                      # another mistake: not this one
    (_log2, None),
])
def test_an_entropy_with_p_and_log_p_aliased_is_named_from_its_replay(fn, key, saturated) -> None:
    logits = _logits(saturated)
    expected = D.ref.softmax_entropy(logits.double())
    named = D.entropy_alias(fn(logits.clone()), logits.double(), torch.float32, expected)
    assert (named.key if named is not None else None) == key


def test_the_alias_is_named_through_the_entropy_judge() -> None:
    logits = _logits(False)
    L64 = logits.double()
    judge = D.entropy_judge(_log_in_place, D.ref.softmax_entropy(L64), "softmax_entropy(logits)", torch.float32,
                            D.entropy_variants(L64))
    with pytest.raises(Misconception) as info:
        judge(_log_in_place(logits.clone()))
    assert info.value.key == "inplace_alias_overwritten"
    judge(_right(logits.clone()))       # a right answer passes


# --- q1: the square root taken of the scores (or the whole fraction) instead of d_k alone -----------------------

def _attention_with(score_fn):
    def attention(Q, K, V, d_k):
        w = torch.softmax(score_fn(Q @ K.T, d_k), dim=-1)
        return w @ V, w
    return attention


@pytest.mark.parametrize("score_fn, key", [
    (lambda S, d: torch.sqrt(S / d), "sqrt_of_scores"),
    (lambda S, d: S.sqrt() / d, "sqrt_of_scores"),
    (lambda S, d: (S / d) ** 0.5, "sqrt_of_scores"),
    (lambda S, d: torch.sqrt(S), "sqrt_of_scores"),
    (lambda S, d: torch.log(S / d), None),                       # NaN where a score is negative, but no root
    (lambda S, d: torch.sqrt(S.abs()) / d, None),                 # no NaN: nothing to replay
    (lambda S, d: torch.sqrt(S / d) if d != 4 else S / 2, None),  # the second input disagrees
])
def test_a_root_of_the_scores_is_named_from_its_nan_rows_and_a_second_input(score_fn, key) -> None:
    g = torch.Generator().manual_seed(5)
    Q, K, V = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((5, 12), (7, 12), (7, 10)))
    fn = _attention_with(score_fn)
    try:
        D.raise_if_sqrt_of_scores(fn, fn(Q, K, V, 12), Q, K, V, 12, "weight matrix")
    except Misconception as e:
        assert e.key == key
    else:
        assert key is None
