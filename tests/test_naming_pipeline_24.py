"""attention-pipeline, naming round 24 (blind20's kinds): a rank of 3 for the lesson's S is both the distinct-row
count and a count of singular values above a tolerance too small for float32 (generic, saying both);
`x - x.max(dim=...)` subtracts a (values, indices) pair (reduction_tuple_as_tensor); the softmax of weights that
are already probabilities (softmax_applied_twice)."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

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
