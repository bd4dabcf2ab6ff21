"""Engine, naming round 45 (after blind44): a one-edit "fix" of a small count that only puts one variable for another,
or reorders a call's arguments, is a coincidence, not the slip: the lesson's rank 2 is int(trace(Q Q^T) / 2) where a
student took trace(K K^T) / 2 (8) for the rank, and a QR of S^T, not S, whose pivots fall exactly to zero. Such a fix
of a small count is no longer said (the failure stays unnamed, which is honest); the same fix of a count that is not
small, and a constant's fix of a small one (hermitian=False), still are. Variants of my own, not blind44's cells."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from autograder.grading.repair import Edit, _names_only
from tests.heldout.harness import grade_cells

LESSON = ("import torch\n"
          "_Q = torch.tensor([[1., 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [.5, .5, 0, 0]])\n"
          "_K = torch.tensor([[2., 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]])\n"
          "max_rank_S = 8\n")


@pytest.mark.parametrize("before, after, names_only", [
    ("scaled_scores(_Q, _K)", "scaled_scores(_K, _Q)", True),
    ("_K", "_Q", True),
    ("x.max()", "x.min()", False),                 # a method's twin: not a variable
    ("hermitian=True", "hermitian=False", False),  # a constant
    ("torch.tril(m)", "torch.triu(m)", False),
    ("a / b", "a * b", False),
])
def test_names_only(before: str, after: str, names_only: bool) -> None:
    assert _names_only(Edit(line=1, before=before, after=after, source="")) is names_only


@pytest.mark.parametrize("rank_line", [
    # the sum of K's squared entries halved, 16 // 2 = 8; with _Q, int(4.5) // 2 = 2: a coincidence
    "rank_S_lesson = int((_K ** 2).sum().item()) // 2\n",
    # the sum of K * K halved and rounded: 8; with _Q, round(2.25) = 2
    "rank_S_lesson = round(float((_K * _K).sum()) / 2)\n",
])
def test_a_variable_swap_that_lands_on_a_small_count_is_not_said(grader: Grader, rank_line: str) -> None:
    outcome = grade_cells(grader, "attention-pipeline", {"max_rank_S": LESSON + rank_line}, "round45")
    assert outcome.failed and {q for q, *_ in outcome.failed} == {"q11"}, outcome.failed
    assert all(k != "one_edit_fix" for _, _, k, _ in outcome.failed), outcome.failed


def test_a_constants_fix_of_a_small_count_is_still_said(grader: Grader) -> None:
    line = "rank_S_lesson = int(torch.linalg.matrix_rank(_Q @ _K.T, hermitian=True))\n"
    outcome = grade_cells(grader, "attention-pipeline", {"max_rank_S": LESSON + line}, "round45")
    assert [k for _, _, k, _ in outcome.failed] == ["one_edit_fix"], outcome.failed
    assert "`False` in place of `True`" in outcome.failed[0][3]


# --- answers of a form the grader does not read (blind44) --------------------------------------------------------

def _choice_key(value: object, answer: str) -> tuple[str | None, str]:
    from autograder.grading.checks import Misconception, expect_choice
    try:
        expect_choice(value, "ans", answer=answer)
    except Misconception as e:
        return e.key, str(e)
    except AssertionError as e:
        return "", str(e)
    return None, ""


def test_a_dict_of_option_marks_is_told_as_such_with_the_letter_it_marks() -> None:
    key, text = _choice_key({"a": False, "b": True, "c": False, "d": False}, "b")
    assert key == "answer_as_option_marks" and "marks 'b' alone (that is the best answer)" in text
    key, text = _choice_key({"A": 0, "B": 0, "C": 1, "D": 0}, "d")
    assert key == "answer_as_option_marks" and "'c' alone (and it is not the best answer)" in text
    key, text = _choice_key({"a": True, "c": True}, "c")
    assert key == "answer_as_option_marks" and "marks 2 options ('a', 'c')" in text
    # not marks: other keys, or values that are not true/false
    assert _choice_key({"x": True}, "c")[0] != "answer_as_option_marks"
    assert _choice_key({"a": "yes", "b": "no"}, "c")[0] != "answer_as_option_marks"
    assert _choice_key("c", "c") == (None, "")


@pytest.mark.parametrize("kind", ["Fraction", "Decimal", "Rational"])
def test_an_exact_number_refused_by_the_sandbox_is_named_by_its_type(kind: str) -> None:
    from autograder.grading.checks import callable_not_called
    found = callable_not_called(f"EncodeError: a value of type {kind} cannot cross the sandbox boundary", "cost_ratio")
    assert found is not None and found.key == "number_of_another_type" and kind in str(found)
    assert callable_not_called("EncodeError: a value of type Widget cannot cross the sandbox boundary") is None


@pytest.mark.parametrize("line", [
    "from decimal import Decimal\ncost_ratio = Decimal(2048 * 2048 * 64) / Decimal(score_madds)\n",
    "import fractions\ncost_ratio = fractions.Fraction(4)\n",
])
def test_an_exact_number_answer_through_the_sandbox(grader: Grader, line: str) -> None:
    cell = "attn_entries = 1024 ** 2\nscore_madds = 1024 * 1024 * 64\n" + line
    outcome = grade_cells(grader, "sdpa-from-scratch", {"attn_entries": cell}, "round45")
    assert [(q, k) for q, _, k, _ in outcome.failed] == [("q8", "number_of_another_type")], outcome.failed


# --- after blind45: crashes and answers told by what they are -----------------------------------------------

def test_a_placeholder_left_without_its_f_is_told() -> None:
    for value in ("{_letter}", "{letter!r}", "{opts[2]}", " {choice} "):
        key, text = _choice_key(value, "c")
        assert key == "fstring_prefix_missing" and "placeholder" in text, (value, key)
    for value in ("{c}", "c", "{", "{1}", "the {best} one"):
        assert _choice_key(value, "c")[0] != "fstring_prefix_missing", value


@pytest.mark.parametrize("cell", [
    # an Enum of letters, and one whose values are the options' words
    "from enum import Enum\nclass Opt(Enum):\n    A = 'A'\n    B = 'B'\n    C = 'C'\n    D = 'D'\nq_trap_answer = Opt.C\n",
    "import enum\nclass Pick(str, enum.Enum):\n    C = 'zeroing first'\nq_trap_answer = Pick.C.name and Pick.C\n",
])
def test_an_enum_member_answer_through_the_sandbox(grader: Grader, cell: str) -> None:
    outcome = grade_cells(grader, "sdpa-from-scratch", {"q_trap_answer": cell}, "round45")
    assert [(q, k) for q, _, k, _ in outcome.failed] == [("q7", "enum_member_answer")], outcome.failed


@pytest.mark.parametrize("body", [
    "    return attention_weights(S + M.to(S.dtype), None) @ V, None\n",
    "    A = attention_weights(S.masked_fill(~M, float('-inf')))\n    return A @ V, A\n",
])
def test_an_optional_mask_used_without_a_check_is_told(grader: Grader, body: str) -> None:
    cell = ("def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n"
            "    S = scaled_scores(Q, K)\n" + body)
    outcome = grade_cells(grader, "attention-pipeline", {"cross_attention": cell}, "round45")
    keys = {k for _, _, k, _ in outcome.failed}
    assert "optional_argument_not_checked" in keys, outcome.failed
    assert all("`M` defaults to None" in m for _, _, k, m in outcome.failed if k == "optional_argument_not_checked")


def test_a_mask_checked_for_none_keeps_full_marks(grader: Grader) -> None:
    cell = ("def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n"
            "    S = scaled_scores(Q, K)\n    A = attention_weights(S, None if M is None else M.to(S.dtype))\n"
            "    return A @ V, A\n")
    outcome = grade_cells(grader, "attention-pipeline", {"cross_attention": cell}, "round45")
    assert outcome.score == outcome.max_score, outcome.failed


@pytest.mark.parametrize("cells, expected", [
    # one's answers in a list, q15 taken as the 4th item with index 4: the item before is the answer
    ({"ans_cross_causal": "_mine = ['b', 'c', 'b', 'd', 'c']\nans_cross_causal = _mine[4]\n"}, "answer_by_position"),
    ({"ans_cross_causal": "ans_cross_causal = ('a', 'b', 'b', 'd', 'a')[4]\n"}, "answer_by_position"),
])
def test_a_list_of_answers_counted_from_one(grader: Grader, cells: dict[str, str], expected: str) -> None:
    outcome = grade_cells(grader, "attention-pipeline", cells, "round45")
    assert [k for _, _, k, _ in outcome.failed] == [expected], outcome.failed
    assert "was the list counted from 1?" in outcome.failed[0][3]


def test_a_list_whose_item_before_is_not_the_answer_is_not_told_by_its_count(grader: Grader) -> None:
    outcome = grade_cells(grader, "attention-pipeline",
                          {"ans_cross_causal": "_mine = ['b', 'c', 'b', 'a', 'c']\nans_cross_causal = _mine[4]\n"},
                          "round45")
    assert outcome.failed and all(k != "answer_by_position" for _, _, k, _ in outcome.failed), outcome.failed


def test_letters_run_together_are_a_hedge() -> None:
    # ["c" "d"]: a missing comma joins two strings (blind46)
    for value in ("cd", "BD", "abc"):
        key, text = _choice_key(value, "d")
        assert key == "answer_hedged" and "run together" in text, (value, key)
    for value in ("cc", "d", "dd "):
        assert _choice_key(value, "d")[0] != "answer_hedged", value


@pytest.mark.parametrize("cell", [
    "_mine = {'q15': 'd'}\nans_cross_causal = _mine.get('Q15', '')\n",
    "ans_cross_causal = ''.join(c for c in 'xyz' if c in 'abcd')\n",
])
def test_an_empty_letter_the_code_worked_out_is_not_told_as_left_empty(grader: Grader, cell: str) -> None:
    outcome = grade_cells(grader, "attention-pipeline", {"ans_cross_causal": cell}, "round45")
    assert [k for _, _, k, _ in outcome.failed] == ["answer_computed_by_code"], outcome.failed
    assert "an empty string your code worked out" in outcome.failed[0][3]


def test_an_empty_letter_written_as_such_is_left_empty(grader: Grader) -> None:
    outcome = grade_cells(grader, "attention-pipeline", {"ans_cross_causal": "ans_cross_causal = ''\n"}, "round45")
    assert [k for _, _, k, _ in outcome.failed] == ["answer_left_empty"], outcome.failed
