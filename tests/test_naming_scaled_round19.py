"""Naming scaled-attention's mistakes, round 19 (issue 21): blind17's misses, each as its kind, in-process on
the hidden files' own helpers. A name rests on the crash's own words or on a replay of the mistake on the same
input; a right answer is evidence of nothing."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import tuple_as_tensor

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r19_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _crash(thunk) -> StudentCodeError:
    try:
        thunk()
    except Exception as e:  # noqa: BLE001 - turned into what the sandbox hands back
        return StudentCodeError(type(e).__name__, str(e))
    raise AssertionError("no crash")


# --- reduction_tuple_as_tensor: shared with sdpa-from-scratch (autograder.grading.checks) -----------------

x: Any = torch.randn(4, 5, dtype=torch.float64)   # Any: the crashes are the point


@pytest.mark.parametrize("thunk, key", [
    (lambda: x - x.max(dim=-1, keepdim=True), "reduction_tuple_as_tensor"),
    (lambda: x - torch.min(x, -1, keepdim=True), "reduction_tuple_as_tensor"),
    (lambda: x.max(1).unsqueeze(1), "reduction_tuple_as_tensor"),              # AttributeError of the pair
    (lambda: torch.exp(x - x.sort(-1)), "reduction_tuple_as_tensor"),
    (lambda: x - (x.amax(-1, keepdim=True), 0), None),                         # a plain tuple: no name
    (lambda: x.view(7), None),
])
def test_a_values_indices_pair_used_as_a_tensor_is_named_from_the_crash(thunk, key) -> None:
    e = _crash(thunk)
    named = tuple_as_tensor(e, "said")
    assert (named.key if named is not None else None) == key
    q1 = _hidden("q1")
    named = q1.D._crash_named(e, x, x)
    assert (named.key if named is not None else None) == key
