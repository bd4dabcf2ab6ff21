"""sdpa-from-scratch, naming round 36 (after blind35): shape entries that are 0-d tensors, answers rounded to 0-2
decimals, a reduction reshaped to a (-1, 1) column in stable_softmax, lesson 80's causal row copied into the trace,
the trace's output in the column-vector convention, and (blind34) a NaN check that zeroes every query's weights."""
from __future__ import annotations

import math

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from reference import sdpa_from_scratch as ref
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round36_diagnose")


def _as_student(f):
    """A plain function called as the sandbox calls the student's: its RuntimeError becomes a StudentCodeError."""
    def call(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except (RuntimeError, IndexError) as e:
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return call


def _key(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except Misconception as named:
        return named.key
    return None


def test_zero_dim_entries_named_only_for_the_right_sizes():
    assert _key(diag.zero_dim_entries, tuple(torch.tensor([4, 10, 10])), (4, 10, 10), "w") == "returns_tensor_not_number"
    assert _key(diag.zero_dim_entries, (4, torch.tensor(10), 10), (4, 10, 10), "w") == "returns_tensor_not_number"
    assert _key(diag.zero_dim_entries, tuple(torch.tensor([4, 10, 64])), (4, 10, 10), "w") is None
    assert _key(diag.zero_dim_entries, (4, 10, 10), (4, 10, 10), "w") is None
    assert _key(diag.zero_dim_entries, tuple(torch.tensor([4.0, 10.0, 10.0])), (4, 10, 10), "w") is None


def test_rounded_pair_and_its_guard():
    r, s = 6.599140644073486, 0.8248926401138306
    assert _key(diag.name_rounded_pair, ((6.6, r), (0.82, s)), [], "v") == "rounded_answer"
    assert _key(diag.name_rounded_pair, ((r, r), (0.82, s)), [], "v") == "rounded_answer"
    assert _key(diag.name_rounded_pair, ((6.61, r), (0.82, s)), [], "v") is None          # not a rounding of r
    # another mistake's numbers round to the same pair: named only where the source shows the rounding
    assert _key(diag.name_rounded_pair, ((6.6, r), (0.8, s)), [(6.612, 0.8265)], "v") is None
    assert _key(diag.name_rounded_pair, ((r, r), (s, s)), [], "v") is None


def _column_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim).reshape(-1, 1)


def _unsqueeze_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim).unsqueeze(-1)


def test_column_reshape_named_from_second_calls():
    x = torch.randn(3, 5, 7, dtype=torch.float64)
    fn = _as_student(_column_softmax)
    with pytest.raises(StudentCodeError) as crash:
        fn(x)
    assert _key(diag.name_column_reshape, fn, crash.value, "q3") == "reduction_reshaped_to_column"
    # unsqueeze(-1) runs on 3-D inputs with dim=-1: not this key
    assert _key(diag.name_column_reshape, _as_student(_unsqueeze_softmax), crash.value, "q3") is None
    assert _key(diag.name_column_reshape, _as_student(ref.stable_softmax), crash.value, "q3") is None


def test_lesson_row_named_only_with_the_other_rows_right():
    got = ref.weights3_causal.clone()
    got[1] = torch.tensor([0.5622, 0.4378, 0.0], dtype=torch.float64)
    assert _key(diag.name_lesson_copy, got, ref.weights3_causal, "c", 5e-4) == "trace_from_lesson_example"
    got[2] = got[2].flip(0)
    assert _key(diag.name_lesson_copy, got, ref.weights3_causal, "c", 5e-4) is None
    assert _key(diag.name_lesson_copy, ref.weights3_causal.clone(), ref.weights3_causal, "c", 5e-4) is None


def test_output_transposed():
    assert _key(diag.name_output_transposed, ref.out3.T, ref.out3, "out3", 5e-4) == "output_column_convention"
    assert _key(diag.name_output_transposed, ref.out3.T.tolist(), ref.out3, "out3", 5e-4) == "output_column_convention"
    assert _key(diag.name_output_transposed, ref.out3.T * 2, ref.out3, "out3", 5e-4) is None
    assert _key(diag.name_output_transposed, ref.out3, ref.out3, "out3", 5e-4) is None


def _zeroing_sdpa(Q, K, V, mask=None):
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = torch.softmax(s, dim=-1)
    if torch.isnan(w).any():
        w = torch.zeros_like(w)
    return w @ V


def test_zeroed_everything():
    Q, K, V = (torch.randn(2, 4, 3, dtype=torch.float64) for _ in range(3))
    mask = torch.ones(4, 4, dtype=torch.bool)
    mask[2] = False
    fn = _as_student(_zeroing_sdpa)
    got = fn(Q, K, V, mask)
    assert _key(diag.name_zeroed_everything, fn, Q, K, V, mask, got, "o") == "nan_check_zeroes_every_row"
    assert _key(diag.name_zeroed_everything, fn, Q, K, V, torch.ones(4, 4, dtype=torch.bool), got, "o") is None
    assert _key(diag.name_zeroed_everything, fn, Q, K, V, mask, torch.ones_like(got), "o") is None
