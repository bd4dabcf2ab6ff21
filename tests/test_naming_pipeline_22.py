"""attention-pipeline, naming round 22 (blind19's kinds): a multiple-choice letter with characters around it
(the notebook's format check rejects it), a `return` missing on one path of qkv_param_count, and W_O counted
as a third of W_Q, W_K, W_V."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import torch

from autograder.grading.checks import Misconception


def _hidden(name: str) -> Any:
    path = Path(__file__).resolve().parents[1] / "assignments" / "attention-pipeline" / "hidden" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_naming22_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("value", ["c)", "(c)", "C.", "'c'", "[c]"])
def test_letter_with_extra_characters_is_named_whatever_the_letter(value: str) -> None:
    q16 = _hidden("q16")
    with pytest.raises(Misconception) as named:
        q16.test_ans_complexity.test_func(value)
    assert named.value.key == "answer_extra_characters"


@pytest.mark.parametrize("value", ["c", "C", " c ", "C\n"])
def test_bare_letter_in_any_case_keeps_its_point(value: str) -> None:
    _hidden("q16").test_ans_complexity.test_func(value)


def test_return_only_with_output_is_named_from_the_other_path() -> None:
    q12 = _hidden("q12")

    def count(d_model: int, d_k: int, d_v: int, with_output: bool = False) -> int | None:
        n = d_model * (2 * d_k + d_v)
        if with_output:
            return n + d_v * d_model
        return None

    with pytest.raises(Misconception) as named:
        q12.test_count_qkv.test_func(count, torch.Generator().manual_seed(0))
    assert named.value.key == "return_missing_on_path"

    def stub(d_model: int, d_k: int, d_v: int, with_output: bool = False) -> None:
        return None

    with pytest.raises(AssertionError) as generic:   # None on both paths: nothing proves a dropped value
        q12.test_count_qkv.test_func(stub, torch.Generator().manual_seed(0))
    assert not isinstance(generic.value, Misconception)


def test_output_as_a_third_of_qkv_is_wo_wrong_size() -> None:
    q12 = _hidden("q12")

    def count(d_model: int, d_k: int, d_v: int, with_output: bool = False) -> int:
        n = d_model * (2 * d_k + d_v)
        return n + n // 3 if with_output else n

    with pytest.raises(Misconception) as named:
        q12.test_count_with_output.test_func(count, torch.Generator().manual_seed(0))
    assert named.value.key == "param_count_wo_wrong_size"
    assert "a third of the W_Q, W_K, W_V count" in str(named.value)


def test_triu_indices_as_one_index_is_named_only_when_the_one_by_one_mask_is_open() -> None:
    D = _hidden("_diagnose")

    def rows_filled(T: int, dtype: torch.dtype, device: str | None = None) -> torch.Tensor:
        M = torch.zeros(T, T, dtype=dtype)
        M[torch.triu_indices(T, T, 1)] = torch.finfo(dtype).min
        return M

    with pytest.raises(Misconception) as named:
        D.raise_if_index_tensor_as_one_index(rows_filled, rows_filled(6, torch.float32), 6)
    assert named.value.key == "mask_index_tensor_as_one_index"

    def full(T: int, dtype: torch.dtype, device: str | None = None) -> torch.Tensor:   # blocked at T = 1 too
        return torch.full((T, T), torch.finfo(dtype).min, dtype=dtype)

    D.raise_if_index_tensor_as_one_index(full, full(6, torch.float32), 6)
