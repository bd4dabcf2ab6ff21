"""attention-pipeline, naming round 50 (blind50's kinds).

q10: row_entropy_bits that mixes a float32 helper tensor into its work ((A == 0).float() added to patch the zeros,
torch.where against torch.ones(A.shape), torch.maximum with torch.full(A.shape, eps)) keeps float64 and float32
weights in their dtype, but turns float16 weights into float32 entropies. test_entropy_causal_rows now has a float16
case (same points, float16's tolerances, rows of multiples of 1/1024 with no zero weight): the right values in float32
for float16 A are dtype_changed. Right entropies computed in float16 (a where guard, xlogy, the lesson's epsilon, the
zero patch cast to A's dtype, a float64 pass cast back, Categorical) keep full marks.

q03 / q06 / q14 / q15 / q16: an answer written as letters joined by `and` / `or` ("c" and "d") is one letter, the one
Python picks (`and` its last operand, `or` its first). Where that letter is wrong, the failure keeps the key the letter
names (the option's belief, as before) and says first what Python did with the expression; a letter that is not the
value of such an expression says nothing of it."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


ENT = "row_entropy_bits"
EFFECTIVE = "\n\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"


_graded = graded_as("attention-pipeline", "round50")


def _entropy(body: str) -> dict[str, str]:
    return {ENT: "def row_entropy_bits(A):\n" + body + EFFECTIVE}


# --- q10: float16 weights promoted to float32 entropies ------------------------------------------------------------

@pytest.mark.parametrize("body", [
    # the zeros patched with a float32 0/1 tensor of the other comparison
    "    return -(A * torch.log2(A + (A <= 0).to(torch.float32))).sum(dim=-1)\n",
    # log 0 guarded by torch.where against ones made without dtype= (float32)
    "    safe = torch.where(A > 0, A, torch.ones(A.shape))\n    return -(A * torch.log2(safe)).sum(-1)\n",
    # a floor of float32 eps values (torch.full without dtype=)
    "    floor = torch.full(A.shape, 1e-30)\n    return -(A * torch.log2(torch.maximum(A, floor))).sum(dim=-1)\n",
])
def test_half_entropy_promoted_to_float32_is_dtype_changed(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, _entropy(body)))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q10", "test_entropy_causal_rows", "dtype_changed")], failed
    assert "float16" in failed[0][3] and "float32" in failed[0][3], failed


@pytest.mark.parametrize("body", [
    # the reference's where guard
    "    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))\n    return -(A * logs).sum(dim=-1)\n",
    # the zero patch in A's own dtype
    "    return -(A * torch.log2(A + (A == 0).to(A.dtype))).sum(dim=-1)\n",
    # the lesson's epsilon (rounded to 0 in float16; no zero weight in the float16 rows)
    "    return -(A * torch.log2(A + 1e-9)).sum(dim=-1)\n",
    # xlogy in nats, converted
    "    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)\n",
    # a float64 pass cast back to A's dtype
    "    P = A.double()\n    return (-(torch.special.xlogy(P, P)).sum(-1) / math.log(2)).to(A.dtype)\n",
    # 0 * -inf = NaN zeroed per term
    "    return -torch.nan_to_num(A * torch.log2(A), nan=0.0).sum(dim=-1)\n",
    # torch.distributions (its probs must sum to 1: the float16 rows do exactly)
    "    return torch.distributions.Categorical(probs=A).entropy() / math.log(2)\n",
])
def test_right_entropy_in_half_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, _entropy(body)))


def test_float32_accumulator_on_every_input_keeps_its_float64_name(grader: Grader) -> None:
    # .float() on everything is wrong for float64 already: named there (float32_precision), not as the half promotion
    failed = assert_lost(_graded(grader, _entropy("    P = A.float()\n    return -torch.special.xlogy(P, P).sum(-1) / math.log(2)\n")))
    assert {k for _, _, k, _ in failed} == {"float32_precision"}, failed


# --- multiple choice: letters joined by `and` / `or` ---------------------------------------------------------------

@pytest.mark.parametrize("cell, what, q, key, operand", [
    ('ans_mask = ("C" and "D").lower()   # the mask, and the gradient too\n', "ans_mask", "q06",
     "mask_blocks_gradient", "last"),
    ("ans_mask = 'b' or 'c'\n", "ans_mask", "q06", "mask_changes_rank", "first"),
    ('ans_cross_shapes = "b" and "c"\n', "ans_cross_shapes", "q14", "cross_roles_swapped", "last"),
    ('ans_cross_causal = "d" and "b"\n', "ans_cross_causal", "q15", "causal_needs_square", "last"),
    ('ans_complexity = "c" and "d"\n', "ans_complexity", "q16", "cost_cubic_in_T", "last"),
    ('ans_scale = "B" and "A"\n', "ans_scale", "q03", "scale_direction_reversed", "last"),
])
def test_letters_joined_by_bool_op_say_what_python_picked(grader: Grader, cell: str, what: str, q: str, key: str,
                                                          operand: str) -> None:
    failed = assert_lost(_graded(grader, {what: cell}))
    assert [(fq, k) for fq, _, k, _ in failed] == [(q, key)], failed
    assert f"returns its {operand} operand" in failed[0][3] and "one best letter" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    'ans_mask = "c"\n',
    'ans_mask = "C".lower()\n',
    'ans_mask = "c" if True else "d"\n',
])
def test_one_letter_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {"ans_mask": cell}))


@pytest.mark.parametrize("cell", [
    'ans_mask = "d"\n',                                  # one wrong letter, no expression
    'ans_mask = "c" and "d"\nans_mask = "d"\n',          # the expression overwritten: the answer is the plain "d"
    'ans_mask = "" or "d"\n',                            # one letter only among the operands: no hedge
])
def test_wrong_letter_without_a_letter_expression_says_nothing_of_it(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {"ans_mask": cell}))
    assert [k for _, _, k, _ in failed] == ["mask_blocks_gradient"], failed
    assert "operand" not in failed[0][3], failed
