"""After blind51 (the engine): a result computed in float16 and cast back is float16_precision (every entry a float16
number, right only to float16's precision), never a one-edit fix that keeps the wrong dtype (the search's answers
must have the reference's dtype); and a one-edit fix of a small count that keeps one operand alone (`_Q` for
`_Q * _K`: the lesson's rank 2 as Q's own rank) is a coincidence, not said. Own variants, near misses, right code."""
from __future__ import annotations

from typing import Any

import pytest
import torch

from autograder.grading.checks import Misconception, assert_matches
from autograder.grading.grader import Grader
from autograder.grading.repair import Edit, _operand_kept, same_answer
from tests.heldout.harness import grade_cells


def test_float16_rounded_result_is_named() -> None:
    want = torch.rand(6, 7, dtype=torch.float32)
    got = want.half().float()
    with pytest.raises(Misconception) as e:
        assert_matches(got, want, what="out")
    assert e.value.key == "float16_precision"


@pytest.mark.parametrize("got", [
    lambda w: w + 1e-3,                                           # off by a constant: not float16 numbers
    lambda w: (w * 1.001).half().float() * 1.0001,                # no longer float16 numbers
    lambda w: torch.round(w * 4),                                 # whole numbers are float16 numbers too
])
def test_other_wrong_results_are_not_float16(got: Any) -> None:
    want = torch.rand(6, 7, dtype=torch.float32) + 1.0
    with pytest.raises(AssertionError) as e:
        assert_matches(got(want), want, what="out")
    assert getattr(e.value, "key", None) != "float16_precision"


def test_the_one_edit_search_asks_the_references_dtype() -> None:
    want = torch.rand(3, 4, dtype=torch.float32)
    assert same_answer(want.clone(), want)
    assert not same_answer(want.half(), want)
    assert not same_answer(want.double(), want)


@pytest.mark.parametrize(("before", "after", "kept"), [
    ("_Q * _K", "_Q", True), ("_Q @ _K.T", "_Q", True), ("_K * _Q", "_Q", True), ("2 * x", "x", False),
    ("scaled_scores(_Q, _K) + _M", "scaled_scores(_Q, _K)", False), ("torch.linalg.matrix_rank(S)", "S", False),
    ("a + b", "a + c", False), ("(2 * T) ** 2 // T", "(2 * T) ** 2", False),
])
def test_operand_kept(before: str, after: str, kept: bool) -> None:
    assert _operand_kept(Edit(line=1, before=before, after=after, source="")) is kept


SDPA_HEAD = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n    d_k = Q.size(-1)\n"
             "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
             "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n"
             "    weights = stable_softmax(scores, dim=-1)\n"
             "    if mask is not None:\n"
             "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n")


@pytest.mark.parametrize("tail", [
    "    return (weights.to(torch.float16) @ V.to(torch.float16)).to(V.dtype)\n",
    "    out = weights @ V\n    return out.half().to(Q.dtype)\n",
])
def test_half_precision_attention_is_named(grader: Grader, tail: str) -> None:
    outcome = grade_cells(grader, "sdpa-from-scratch", {"scaled_dot_product_attention": SDPA_HEAD + tail}, "half")
    keys = [k for _, _, k, _ in outcome.failed]
    assert keys and "float16_precision" in keys and "one_edit_fix" not in keys, outcome.failed


def test_attention_in_the_inputs_dtype_keeps_full_marks(grader: Grader) -> None:
    outcome = grade_cells(grader, "sdpa-from-scratch",
                          {"scaled_dot_product_attention": SDPA_HEAD + "    return (weights @ V).to(Q.dtype)\n"}, "half")
    assert outcome.score == outcome.max_score and not outcome.failed, outcome.failed


def test_a_rank_from_an_elementwise_product_is_not_told_as_one_operand(grader: Grader) -> None:
    cell = ('max_rank_S = 8\n\n_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]],'
            ' dtype=torch.float64)\n_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], '
            '[0.5, 0.5, 0, 0]], dtype=torch.float64)\nrank_S_lesson = int(torch.linalg.matrix_rank(_K * _Q))\n')
    outcome = grade_cells(grader, "attention-pipeline", {"rank_S_lesson": cell}, "rank")
    assert outcome.failed and all(k != "one_edit_fix" for _, _, k, _ in outcome.failed), outcome.failed
