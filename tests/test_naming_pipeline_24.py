"""attention-pipeline, naming round 24 (blind20's kinds): a rank of 3 for the lesson's S is both the distinct-row
count and a count of singular values above a tolerance too small for float32 (generic, saying both);
`x - x.max(dim=...)` subtracts a (values, indices) pair (reduction_tuple_as_tensor); the softmax of weights that
are already probabilities (softmax_applied_twice)."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception


def _hidden(name: str) -> Any:
    path = Path(__file__).resolve().parents[1] / "assignments" / "attention-pipeline" / "hidden" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_naming24_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rank_three_is_not_named_distinct_rows_when_a_noise_count_gives_it_too() -> None:
    q11 = _hidden("q11")
    with pytest.raises(AssertionError) as generic:
        q11.test_rank_S_lesson.test_func(3)
    assert not isinstance(generic.value, Misconception)
    said = str(generic.value)
    assert "rounding noise" in said and "distinct query vectors" in said and "e-08" in said
    q11.test_rank_S_lesson.test_func(2)


def test_max_with_dim_pair_subtracted_is_named_from_the_crash_and_the_right_shift_keeps_its_point() -> None:
    q08 = _hidden("q08")
    rng = torch.Generator().manual_seed(0)

    def pair(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        s = K @ q / q.shape[-1] ** 0.5
        w = torch.exp(s - s.max(dim=0))   # type: ignore[operator]
        return w @ V / w.sum()

    def proxy(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        try:
            return pair(q, K, V)
        except TypeError as e:
            raise StudentCodeError("TypeError", str(e)) from None

    with pytest.raises(Misconception) as named:
        q08.test_nw_random.test_func(proxy, rng)
    assert named.value.key == "reduction_tuple_as_tensor" and "torch.return_types.max" in str(named.value)

    def shifted(q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        s = K @ q / q.shape[-1] ** 0.5
        w = torch.exp(s - s.max(dim=0).values)
        return w @ V / w.sum()

    q08.test_nw_random.test_func(shifted, torch.Generator().manual_seed(0))


def test_entropy_of_the_softmax_of_the_weights_is_softmax_applied_twice_with_this_questions_fix() -> None:
    q10 = _hidden("q10")

    def of_softmax(A: torch.Tensor) -> torch.Tensor:
        log_p = torch.log_softmax(A, dim=-1)
        return -(log_p.exp() * log_p).sum(-1) / math.log(2)

    with pytest.raises(Misconception) as named:
        q10.test_entropy_causal_rows.test_func(of_softmax, torch.Generator().manual_seed(0))
    assert named.value.key == "softmax_applied_twice" and "here A is already the weights" in str(named.value)

    def right(A: torch.Tensor) -> torch.Tensor:
        return -torch.special.xlogy(A, A).sum(-1) / math.log(2)

    q10.test_entropy_causal_rows.test_func(right, torch.Generator().manual_seed(0))
