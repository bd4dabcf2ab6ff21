"""Naming scaled-attention's mistakes, round 22 (issue 21): blind19's three mis-names, each now generic with a
message that says what differs, in-process on the hidden files' own helpers."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from reference import scaled_attention as sa

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r22_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _hidden("_diagnose")


def _sandboxed(fn):
    """fn as the grader sees it: whatever it raises comes back as a StudentCodeError."""
    def wrapped(*args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - the sandbox turns every exception into one
            raise StudentCodeError(type(e).__name__, str(e), "") from None
    return wrapped


def _inputs(T_q=4, T_k=9, d_k=16, d_v=3, scale=3.0):
    g = torch.Generator().manual_seed(7)
    return (scale * torch.randn(T_q, d_k, generator=g), scale * torch.randn(T_k, d_k, generator=g),
            torch.randn(T_k, d_v, generator=g))


# --- q1: output V (the weights summed alone) is not keys_are_queries; Q Q^T still is ---------------------

def _value_index_reused(Q, K, V, d_k):
    w = torch.softmax(torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k), dim=-1)
    return torch.einsum("qk,qd->qd", w, V), w


def _q_q(Q, K, V, d_k):
    w = F.softmax(Q @ Q.T / math.sqrt(d_k), dim=-1)
    return w @ V, w


def test_output_equal_to_values_is_generic_saying_so():
    Q, K, V = _inputs()
    with pytest.raises(AssertionError) as e:
        D.call_pair(_sandboxed(_value_index_reused), Q, K, V, 16)
    assert not isinstance(e.value, Misconception) and "output is V itself" in str(e.value)


def test_keys_are_queries_still_named_by_its_replay():
    Q, K, V = _inputs()
    with pytest.raises(Misconception) as e:
        D.call_pair(_sandboxed(_q_q), Q, K, V, 16)
    assert e.value.key == "keys_are_queries"
    assert D._keys_are_queries_replayed(_q_q, Q[:4], K[:4], V[:4], 16, 0)
    assert not D._keys_are_queries_replayed(_value_index_reused, Q[:4], K[:4], V[:4], 16, 0)


# --- q4: one score per d is not scores_transposed; only the last d's row is not table_ignores_dims --------

def test_one_score_table_is_generic_naming_no_transposition():
    dims = (12, 48, 100)
    with pytest.raises(AssertionError) as e:
        D.raise_if_one_score_table(D.table_one_score(dims, 3), dims, 3)
    assert not isinstance(e.value, Misconception) and "ONE score" in str(e.value)
    D.raise_if_one_score_table(sa.table_as_tensor(sa.entropy_table(dims, 3)), dims, 3)   # the right table: silent


def test_last_row_only_is_generic_and_other_dims_still_named():
    dims = (12, 48, 100)
    rows = sa.entropy_table(dims, 5)
    with pytest.raises(AssertionError) as e:
        D.raise_if_other_dims(rows[-1:], dims, 5)
    assert not isinstance(e.value, Misconception) and "only the last d's row" in str(e.value)
    with pytest.raises(AssertionError) as e:
        D.raise_if_other_dims(rows[:1], dims, 5)             # a return inside the loop: the first row only
    assert not isinstance(e.value, Misconception) and "d = [48, 100] are missing" in str(e.value)
    with pytest.raises(Misconception) as e:
        D.raise_if_other_dims(sa.entropy_table((4, 16, 64, 256), 5), dims, 5)
    assert e.value.key == "table_ignores_dims"
