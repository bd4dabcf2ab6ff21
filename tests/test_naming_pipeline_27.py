"""attention-pipeline, naming round 27 (blind22's kinds): a hedged multiple-choice answer ("c, d") names the
wrong letter's key when the other letter is right (never full marks); row counts one short (torch.arange(1, T))
crash T rows against T - 1 counts and are named prefix_average_row_skipped from a second call with T = 2."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any, Callable

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from reference import attention_pipeline as ref


def _hidden(name: str) -> Any:
    path = Path(__file__).resolve().parents[1] / "assignments" / "attention-pipeline" / "hidden" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_naming27_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _student(fn: Callable[..., Any]) -> Callable[..., Any]:
    """As the harness runs it: an exception of the student's code comes out as StudentCodeError."""
    def proxy(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (RuntimeError, TypeError, IndexError) as e:
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return proxy


@pytest.mark.parametrize("answer, key", [
    ("c, d", "mask_blocks_gradient"), ("D or C", "mask_blocks_gradient"), ("a/c", "mask_breaks_normalisation"),
    ("a, b", None), ("b c d", None),                             # no right letter, or more than two: generic
])
def test_a_hedged_answer_names_its_wrong_letter_only_beside_the_right_one(answer: str, key: str | None) -> None:
    with pytest.raises(AssertionError) as failed:
        _hidden("q06").test_ans_mask.test_func(answer)
    assert getattr(failed.value, "key", None) == key
    assert "where one is asked" in str(failed.value)
    _hidden("q06").test_ans_mask.test_func(ref.ans_mask)          # one letter, right: passes


def _one_short(T: int) -> torch.Tensor:
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / torch.arange(1, T, dtype=torch.float64)[:, None]


def _not_divided_then_crash(T: int) -> torch.Tensor:
    # the same crash at T, but at T = 2 the right answer: not this kind
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / (torch.arange(1, T + 1, dtype=torch.float64)[:, None] if T == 2 else torch.ones(T - 1, 1))


def test_row_counts_one_short_are_named_from_t_2() -> None:
    with pytest.raises(Misconception) as named:
        _hidden("q09").test_prefix_average_matrix.test_func(_student(_one_short), torch.Generator().manual_seed(0))
    assert named.value.key == "prefix_average_row_skipped"
    assert "row counts" in str(named.value)


def test_the_crash_alone_names_nothing() -> None:
    with pytest.raises(StudentCodeError):
        _hidden("q09").test_prefix_average_matrix.test_func(_student(_not_divided_then_crash),
                                                              torch.Generator().manual_seed(0))


def _bits(A: torch.Tensor) -> torch.Tensor:
    return -(A * torch.where(A > 0, torch.log2(A), torch.zeros_like(A))).sum(dim=-1)


@pytest.mark.parametrize("rounding", [torch.round, lambda x: (x + 0.5).floor()])
def test_rounded_effective_tokens_are_named(rounding: Callable[[torch.Tensor], torch.Tensor]) -> None:
    # said unnamed in naming27; named since naming30 (effective_tokens_rounded: round, floor, ceil replayed)
    with pytest.raises(AssertionError) as failed:
        _hidden("q10").test_effective_tokens.test_func(_student(lambda A: rounding(2.0 ** _bits(A))), _bits,
                                                       torch.Generator().manual_seed(0))
    assert getattr(failed.value, "key", None) == "effective_tokens_rounded"
    assert "to a whole number" in str(failed.value)


@pytest.mark.parametrize("test", ["test_scores_float64_rectangular", "test_scores_noncontiguous"])
def test_scores_times_false_say_every_entry_is_zero_unnamed(test: str) -> None:
    def scaled_scores(Q: torch.Tensor, K: torch.Tensor, scale: Any = False) -> torch.Tensor:
        return Q @ K.transpose(-2, -1) * (1 / math.sqrt(Q.size(-1)) if scale is None else scale)
    with pytest.raises(AssertionError) as failed:
        getattr(_hidden("q02"), test).test_func(_student(scaled_scores), torch.Generator().manual_seed(0))
    assert getattr(failed.value, "key", None) is None
    assert "every entry is 0" in str(failed.value).split("\n")[0]


def test_a_right_answer_cut_short_gets_no_words() -> None:
    # half the scores zeroed: neither all zeros nor rounded, so the plain message stays
    def scaled_scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
        S = ref.scaled_scores(Q, K)
        return torch.cat([S[..., :1, :], torch.zeros_like(S[..., 1:, :])], dim=-2)
    with pytest.raises(AssertionError) as failed:
        _hidden("q02").test_scores_float64_rectangular.test_func(_student(scaled_scores), torch.Generator().manual_seed(0))
    assert "every entry" not in str(failed.value)


def test_rank_five_also_says_every_singular_value_counted() -> None:
    with pytest.raises(AssertionError) as failed:
        _hidden("q11").test_rank_S_lesson.test_func(len(torch.linalg.svdvals(torch.ones(5, 5))))
    assert getattr(failed.value, "key", None) is None
    assert "how many singular values S has at all" in str(failed.value)
