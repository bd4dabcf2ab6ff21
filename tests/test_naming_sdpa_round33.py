"""sdpa-from-scratch, naming round 33 (after blind32): q2's variances of every query paired with the keys of every
sequence are the batch read as one sequence; query positions not on their own axis (an all-True square mask whose
rectangular call fails to broadcast) are mask_not_outer, never causal_mask_blocks_nothing, which needs every size
all True; a crash of the gradient call is re-run with gradients (a NumPy round trip is no fixed_axes); weights3
equal to the causal weights with out3 following them is the causal mask in the unmasked cell. In-process: the
hidden checks called with trusted proxies of small functions."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref

HIDDEN = Path(__file__).resolve().parents[1] / "assignments" / "sdpa-from-scratch" / "hidden"


def _load_diagnose():
    spec = importlib.util.spec_from_file_location("_test_sdpa_round33_diagnose", HIDDEN / "_diagnose.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _load_diagnose()


def _key(check, *args) -> str | None:
    try:
        check(*args)
    except Misconception as e:
        return e.key
    except AssertionError:
        return ""
    return None


def test_cross_sequence_variances_are_the_batch_as_one_sequence() -> None:
    Q, K, _ = ref._batched_example()
    for scores in (torch.inner(Q, K), torch.einsum("bqd,ckd->bqck", Q, K), Q.unsqueeze(1) @ K.transpose(-2, -1)):
        raw = float(scores.var())
        assert _key(diag.name_cross_sequence_scores, raw, "raw_score_var") == "batch_as_one_sequence"
        scaled = float((scores / math.sqrt(8)).var())
        assert _key(diag.name_cross_sequence_scores, scaled, "scaled_score_var", 8 ** 0.5) == "batch_as_one_sequence"
    assert _key(diag.name_cross_sequence_scores, ref.raw_score_var, "raw_score_var") is None


def _expanded_rows(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.arange(T_k).expand(T_q, T_k) <= torch.arange(T_q).expand(T_k, T_q)


def _tril_not_assigned(T_q, T_k=None):
    m = torch.ones(T_q, T_q if T_k is None else T_k, dtype=torch.bool)
    m.tril()
    return m


@pytest.mark.parametrize("fn, key", [(_expanded_rows, "mask_not_outer"), (_tril_not_assigned, None)])
def test_positions_not_outer(fn, key) -> None:
    assert _key(diag.name_mask_not_outer, TrustedProxy(fn, "cpu"), "causal_mask(6) is True everywhere") == key


@pytest.mark.parametrize("fn, key", [(_expanded_rows, None), (_tril_not_assigned, "causal_mask_blocks_nothing")])
def test_blocks_nothing_needs_every_size(fn, key) -> None:
    assert _key(diag.name_mask_blocks_nothing, TrustedProxy(fn, "cpu"), "causal_mask(6) is True everywhere") == key


def _attention_with(scores_of):
    """A masked attention whose scores are scores_of(Q, K): one slip in the scores, the rest right."""
    def attention(Q, K, V, mask=None):
        scores = scores_of(Q, K)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        if mask is not None:
            weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
        return weights @ V
    return attention


def _numpy_scores(Q, K):
    import numpy as np
    return torch.from_numpy(np.matmul(Q.numpy(), np.swapaxes(K.numpy(), -2, -1))) / math.sqrt(Q.shape[-1])


_scores_in_numpy = _attention_with(_numpy_scores)


def test_gradient_crash_is_rerun_with_gradients() -> None:
    g = torch.Generator().manual_seed(33)
    Q, K, V = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((2, 5, 12), (2, 7, 12), (2, 7, 10)))
    mask = torch.rand(2, 5, 7, generator=g) < 0.7
    with pytest.raises(StudentCodeError, match="requires grad"):
        diag.check_gradients(TrustedProxy(_scores_in_numpy, "cpu"), Q, K, V, mask,
                             torch.randn(2, 5, 10, generator=g, dtype=torch.float64))


@pytest.mark.parametrize("out3, key", [(ref.weights3_causal @ ref.V3, "causal_mask_in_unmasked_weights"),
                                       (ref.out3, ""), (None, "")])
def test_causal_weights_in_the_unmasked_cell(out3, key) -> None:
    scores3 = ref.Q3 @ ref.K3.T / 2.0
    # (weights3_causal left out: with out3 the right unmasked output and weights3_causal equal to weights3, a
    # causal cell that rewrote weights3 through an alias is named, inplace_on_input)
    assert _key(diag.causal_in_unmasked, ref.weights3_causal.clone(), scores3, 5e-4, out3, None) == key


_scale_floor_divided = _attention_with(lambda Q, K: (Q @ K.transpose(-2, -1)) // math.sqrt(Q.shape[-1]))


def test_gradient_only_crash_named_from_the_same_call_without_gradients() -> None:
    # no derivative for floor_divide: the same call without gradients runs, and its values are the mistake's
    g = torch.Generator().manual_seed(34)
    Q, K, V = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((2, 5, 12), (2, 7, 12), (2, 7, 10)))
    mask = torch.rand(2, 5, 7, generator=g) < 0.7
    with pytest.raises(Misconception) as caught:
        diag.check_gradients(TrustedProxy(_scale_floor_divided, "cpu"), Q, K, V, mask,
                             torch.randn(2, 5, 10, generator=g, dtype=torch.float64))
    assert caught.value.key == "floor_division_scale" and "without gradients the same call runs" in str(caught.value)
