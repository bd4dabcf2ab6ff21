"""Engine, naming round 47 (after blind47): a letter picked by its position from a list in which a comma is missing
between two strings (`["A", "B" "C", "D"][2]`: Python joins "B" "C" into "BC", so the pick lands one place further)
is named list_comma_missing where the list with the comma back gives the best answer at that position; it was named
by the picked option's belief ("squaring d_k"), which the student never held. Variants of my own, not blind47's."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import grade_cells


@pytest.mark.parametrize("slug, name, cell", [
    ("scaled-attention", "q5_answer", 'q5_answer = ["A", "B" "C", "D"][2]'),
    ("scaled-attention", "q5_answer", '_letters = ("A" "B", "C", "D")\nq5_answer = _letters[2]'),
    ("attention-pipeline", "ans_complexity", 'ans_complexity = ["a", "b" "c", "d"][2]'),
    ("sdpa-from-scratch", "q_trap_answer", '_opts = [\n    "A",\n    "B"\n    "C",\n    "D",\n]\nq_trap_answer = _opts[2]'),
])
def test_a_missing_comma_in_the_list_a_letter_is_picked_from_is_named(grader: Grader, slug: str, name: str,
                                                                      cell: str) -> None:
    outcome = grade_cells(grader, slug, {name: cell}, "round47")
    assert [k for *_, k, _ in outcome.failed] == ["list_comma_missing"], outcome.failed
    assert "with a comma between them" in outcome.failed[0][3]


@pytest.mark.parametrize("slug, name, cell", [
    # the right letter with a comma missing elsewhere: nothing to name, full marks
    ("scaled-attention", "q5_answer", 'q5_answer = ["A", "B", "C", "D" "E"][2]'),
    ("attention-pipeline", "ans_complexity", 'ans_complexity = ["a" "b", "c", "d"][0][0] and "c"'),
])
def test_a_right_letter_beside_a_missing_comma_keeps_full_marks(grader: Grader, slug: str, name: str,
                                                                cell: str) -> None:
    assert grade_cells(grader, slug, {name: cell}, "round47").failed == []


def test_a_wrong_pick_that_the_comma_does_not_explain_is_not_named_by_it(grader: Grader) -> None:
    # the comma restored gives "B" at position 2, not the answer "C": the list's order is the slip, not the comma
    outcome = grade_cells(grader, "scaled-attention", {"q5_answer": 'q5_answer = ["A" "C", "B", "D"][2]'}, "round47")
    assert outcome.failed and all(k != "list_comma_missing" for *_, k, _ in outcome.failed), outcome.failed


@pytest.mark.parametrize("cell", [
    # a count the code worked out, handed in as the answer: not an option's number
    '_hits = {"A": 1, "B": 0, "C": 2, "D": 4}\nq7_answer = max(_hits.values())',
    'q7_answer = sum(1 for w in ["sum", "to", "one", "over", "keys"] if len(w) > 2)',
])
def test_a_number_the_code_worked_out_is_not_told_as_an_options_number(grader: Grader, cell: str) -> None:
    outcome = grade_cells(grader, "scaled-attention", {"q7_answer": cell}, "round47")
    assert [k for *_, k, _ in outcome.failed] == ["answer_value_not_letter"], outcome.failed
    assert "a number your code worked out" in outcome.failed[0][3]


def test_a_number_written_out_is_still_an_options_number(grader: Grader) -> None:
    outcome = grade_cells(grader, "scaled-attention", {"q7_answer": "q7_answer = 3"}, "round47")
    assert [k for *_, k, _ in outcome.failed] == ["answer_option_number"], outcome.failed


@pytest.mark.parametrize("slug, name, cell", [
    ("sdpa-from-scratch", "q_trap_answer", 'q_trap_answer = "C"  # weights no longer sum to 1\n\n# first try, from the lesson\n'
                                           'q_trap_answer = "A"\n'),
    ("scaled-attention", "q6_answer", 'q6_answer = "A"\nprint(q6_answer)\nq6_answer = "(B)"  # or this one?'),
    ("attention-pipeline", "ans_complexity", 'ans_complexity = "c"\n\nans_complexity = "a"'),
])
def test_a_later_line_that_replaces_the_best_answer_is_named(grader: Grader, slug: str, name: str, cell: str) -> None:
    outcome = grade_cells(grader, slug, {name: cell}, "round47")
    assert [k for *_, k, _ in outcome.failed] == ["answer_overwritten"], outcome.failed
    assert "the notebook sets it twice" in outcome.failed[0][3]


@pytest.mark.parametrize("cell", [
    'q_trap_answer = "A"\nq_trap_answer = "B"',             # two wrong letters: the last is the student's choice
    'q_trap_answer = "A"\nq_trap_answer = "C"',             # the best answer last: full marks
])
def test_no_overwrite_named_without_the_best_answer_before_it(grader: Grader, cell: str) -> None:
    outcome = grade_cells(grader, "sdpa-from-scratch", {"q_trap_answer": cell}, "round47")
    assert all(k != "answer_overwritten" for *_, k, _ in outcome.failed), outcome.failed


@pytest.mark.parametrize("before, after, operators_only", [
    ("2048 ** 2 // 1024", "2048 * 2 // 1024", True),
    ("a + b", "a - b", True),
    ("a + b", "a + c", False),
    ("1024", "1024 ** 2", False),
    ("x.max()", "x.min()", False),
])
def test_operators_only(before: str, after: str, operators_only: bool) -> None:
    from autograder.grading.repair import Edit, _operators_only
    assert _operators_only(Edit(line=1, before=before, after=after, source="")) is operators_only


def test_several_variables_that_each_mend_one_place_are_no_slip() -> None:
    from autograder.grading.repair import Edit, _interchangeable
    cell = "\n" * 11 + "    m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))\n"
    q, scores, w = (Edit(line=12, before="s", after=a, source="") for a in ("Q", "scores", "w"))
    assert _interchangeable([q, scores], cell) and not _interchangeable([q], cell)
    assert not _interchangeable([q, Edit(line=3, before="K", after="Q", source="")], cell)   # two places, two slips
    assert not _interchangeable([q, Edit(line=12, before="s", after="s.mT", source="")], cell)
    # a variable read for its size only: every input of that size mends it (K and V have one length)
    sized = "\n" * 11 + "    for j in range(len(s)):  # and s.shape[0]\n"
    assert not _interchangeable([q, scores], sized)
    assert not _interchangeable([q, scores], "\n" * 11 + "    n = s.shape[0] + s.size(1)\n")


def test_an_operator_fix_of_a_small_count_is_not_said(grader: Grader) -> None:
    # 2048 * 2 // 1024 is 4 by chance: the denominator left unsquared is the slip, which no operator swap shows
    cell = "attn_entries = 1024 ** 2\nscore_madds = 1024 ** 2 * 64\ncost_ratio = 4096 ** 2 // 2048\n"
    outcome = grade_cells(grader, "sdpa-from-scratch", {"attn_entries": cell}, "round47")
    assert outcome.failed and all(k != "one_edit_fix" for *_, k, _ in outcome.failed), outcome.failed


def test_a_generic_message_says_when_the_wrong_part_is_one_triangle() -> None:
    # a prefix average whose reciprocal was taken after the triangle was cut: inf exactly above the diagonal
    import torch

    from autograder.grading.checks import triangle_of, what_differs
    n = 6
    right = torch.tril(torch.ones(n, n)) / torch.arange(1, n + 1.0)[:, None]
    upper = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    said = what_differs(right.masked_fill(upper, float("inf")), right, "W_avg", torch.float32)
    assert "every one of them lies above the diagonal" in said
    wrong_diagonal = right + torch.eye(n)                    # only the diagonal off
    assert "all lie on the diagonal" in what_differs(wrong_diagonal, right, "W_avg", torch.float32)
    batch = torch.stack([upper, upper])
    assert triangle_of(batch) is not None and triangle_of(torch.stack([upper, ~upper])) is None
    assert triangle_of(upper[:, :1]) is None                 # one column: no triangle to speak of


def test_a_slip_copied_to_a_second_line_is_one_edit_made_in_both() -> None:
    # `/ n - 1` in the raw and the scaled variance: no edit of one line mends both, the same edit in each does
    import ast

    from autograder.grading.repair import _edits_of
    source = ("def variances(raw, scale):\n"
              "    n = raw.numel()\n"
              "    a = ((raw - raw.mean()) ** 2).sum() / n - 1\n"
              "    s = raw / scale\n"
              "    b = ((s - s.mean()) ** 2).sum() / n - 1\n"
              "    return a, b\n")
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    both = [e for e in _edits_of(fn, ["raw", "scale", "n", "s", "a", "b"], "_copy_", 800) if e.places == 2]
    bracketed = [e for e in both if e.after.endswith("/ (n - 1)")]
    assert bracketed, [(e.before, e.after) for e in both][:20]
    assert "((raw - raw.mean()) ** 2).sum() / (n - 1)" in bracketed[0].source
    assert "((s - s.mean()) ** 2).sum() / (n - 1)" in bracketed[0].source
    assert ast.unparse(fn) == ast.unparse(ast.parse(source).body[0])          # the def itself left as it was


def test_places_written_alike_with_their_names_crossed_get_no_shared_edit() -> None:
    import ast

    from autograder.grading.repair import _edits_of
    source = ("def f(x, y):\n"
              "    a = (x - y) / 2 - 1\n"
              "    b = (y - y) / 2 - 1\n"          # x and y of the first read as one name here: not the same change
              "    return a + b\n")
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert not [e for e in _edits_of(fn, ["x", "y", "a", "b"], "_copy_", 800) if e.places == 2 and "/ (2 - 1)" in e.after]
