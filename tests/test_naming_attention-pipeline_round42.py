"""attention-pipeline, naming round 42 (blind41's kinds): a condition on W_O's term without parentheses
(`base + with_output and d_v * d_model`: `+` binds first, so both flags return W_O's count alone) is
param_count_conditional_precedence on both q12 tests, as its `if ... else 0` twin, never param_count_output_replaces
(whose `n = ...` is right without W_O); q11's two answers each holding the other's value (max_rank_S = 2,
rank_S_lesson = 8) is rank_answers_swapped on both tests, and a single wrong answer equal to the other's value is
not told so; row_entropy_bits returning float64 for float32 weights (a float64 accumulator, or .double()) is
dtype_changed in test_entropy_causal_rows, whose float32 case keeps the same points, and effective_tokens in float64
(torch.float_power) is dtype_changed in test_effective_tokens where the entropy itself keeps float32. Each kind: two wrong variants of
my own, a correct one at full marks, and a near miss that keeps another name (or none)."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


ENT, RANK, PARAMS = "row_entropy_bits", "max_rank_S", "qkv_param_count"


_graded = graded_as("attention-pipeline", "round42")


# --- W_O's term behind a condition without parentheses ------------------------------------------------------------

HEAD = "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"


@pytest.mark.parametrize("body, tests", [
    # `and` on the whole sum, through a local: W_O alone for both flags, both tests
    ("    qkv = d_model * d_k * 2 + d_model * d_v\n    total = qkv + with_output and d_model * d_v\n    return total\n", 2),
    # `and` with the flag first: (with_output + base) is never 0 either
    ("    return with_output + 3 * d_model * d_k + d_model * (d_v - d_k) and d_v * d_model\n", 2),
    # the conditional expression, the kind's first shape: 0 without W_O, right with it
    ("    n = d_model * (2 * d_k + d_v) + d_v * d_model if with_output else 0\n    return n\n", 1),
])
def test_conditional_precedence_is_named(grader: Grader, body: str, tests: int) -> None:
    assert_named(_graded(grader, {PARAMS: HEAD + body}), "param_count_conditional_precedence", {"q12"}, tests=tests)


def test_parenthesised_and_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PARAMS: HEAD + "    return d_model * (2 * d_k + d_v) + (with_output and d_v * d_model)\n"}))


def test_output_assigned_keeps_its_own_name(grader: Grader) -> None:
    # `n = W_O` where `n +=` was meant: right without W_O, W_O alone with it: not the precedence slip
    keys = failed_keys(_graded(grader, {PARAMS: HEAD + "    n = d_model * (2 * d_k + d_v)\n    if with_output:\n"
                                                       "        n = d_v * d_model\n    return n\n"}))
    assert keys == {"param_count_output_replaces"}, keys


# --- q11's two answers swapped ------------------------------------------------------------------------------------

LESSON = '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
                        dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]],
                        dtype=torch.float64)
'''


@pytest.mark.parametrize("tail", [
    # the measured rank put in the bound, and the bound in the lesson's answer
    "rank_S_lesson = min(100, 8)\nmax_rank_S = int(torch.linalg.matrix_rank(Q_lesson @ K_lesson.T))\n",
    # tensors holding the swapped values
    "max_rank_S = torch.linalg.matrix_rank(Q_lesson @ K_lesson.T)\nrank_S_lesson = torch.tensor(8)\n",
])
def test_rank_answers_swapped_is_named(grader: Grader, tail: str) -> None:
    assert_named(_graded(grader, {RANK: LESSON + tail}), "rank_answers_swapped", {"q11"}, tests=2)


def test_rank_answers_in_place_keep_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {RANK: LESSON + "max_rank_S = min(100, 8)\n"
                                                      "rank_S_lesson = int(torch.linalg.matrix_rank(Q_lesson @ K_lesson.T))\n"}))


@pytest.mark.parametrize("tail, wrong", [
    ("max_rank_S = 2\nrank_S_lesson = 2\n", "q11:test_max_rank_S"),     # only the bound holds the other's value
    ("max_rank_S = 8\nrank_S_lesson = 8\n", "q11:test_rank_S_lesson"),  # only the lesson's rank does
    ("max_rank_S = 2\nrank_S_lesson = 5\n", None),                     # both wrong, not each other's
])
def test_one_answer_with_the_others_value_is_not_told_swapped(grader: Grader, tail: str, wrong: str | None) -> None:
    outcome = _graded(grader, {RANK: LESSON + tail})
    assert outcome.failed and all(k != "rank_answers_swapped" for *_, k, _ in outcome.failed), outcome.failed
    if wrong is not None:
        assert [f"{q}:{t}" for q, t, *_ in outcome.failed] == [wrong], outcome.failed


# --- row_entropy_bits in float64 for float32 weights --------------------------------------------------------------

TAIL = "\n\ndef effective_tokens(A):\n    return 2 ** row_entropy_bits(A)\n"


@pytest.mark.parametrize("body", [
    "    return -(torch.special.xlogy(A, A) / math.log(2)).double().sum(dim=-1)\n",
    "    P = A.to(torch.float64)\n    return -(P * torch.log2(P.clamp_min(1e-300))).sum(-1)\n",
])
def test_entropy_in_float64_is_dtype_changed(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {ENT: "def row_entropy_bits(A):\n" + body + TAIL}), "dtype_changed", {"q10"})


@pytest.mark.parametrize("body", [
    "    return torch.float_power(2.0, row_entropy_bits(A))\n",
    "    return torch.exp2(row_entropy_bits(A).to(torch.float64))\n",
])
def test_effective_tokens_in_float64_is_dtype_changed(grader: Grader, body: str) -> None:
    # the entropy keeps float32, the count does not: charged once, in test_effective_tokens
    cells = {ENT: "def row_entropy_bits(A):\n    return -torch.special.xlogy(A, A).sum(-1) / math.log(2)\n\n\n"
                  "def effective_tokens(A):\n" + body}
    assert_named(_graded(grader, cells), "dtype_changed", {"q10"}, tests=1)


def test_entropy_accumulated_in_float64_and_cast_back_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {ENT: "def row_entropy_bits(A):\n    P = A.double()\n"
                                            "    return (-(torch.special.xlogy(P, P).sum(-1)) / math.log(2)).to(A.dtype)\n" + TAIL}))


def test_entropy_in_nats_keeps_its_own_name(grader: Grader) -> None:
    # ln for log2: wrong in float64 already, named there; the float32 case adds no dtype key
    keys = failed_keys(_graded(grader, {ENT: "def row_entropy_bits(A):\n    return -torch.special.xlogy(A, A).sum(-1)\n" + TAIL}))
    assert "dtype_changed" not in keys, keys
