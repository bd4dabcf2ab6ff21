"""attention-pipeline, naming round 52 (blind52's kinds).

q12: qkv_param_count that gives W_Q, W_K and W_V one shared width, the mean of d_k and d_v (3 * d_model * (d_k + d_v)
/ 2, a float, or made whole with // 2 or int()), is param_count_mean_width: the count matches on the test's sizes
(d_v != d_k), with W_O's d_v x d_model added or not. A count wrong in some other way keeps the generic message, which
puts the blame on W_O only where the count without W_O is right.

q16: ans_complexity worked out by a cost probe that writes T squared as T ^ 2 (Python's xor, binding after *) is
caret_is_xor, where the cell, replayed as plain arithmetic (no student code runs in the grader), gives the student's
letter as written and the right letter with ** typed for each ^. A ^ whose fix still gives a wrong letter, or a
probe the replay cannot follow, keeps the engine's message; a probe with ** keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


COUNT = "qkv_param_count"
COST = "ans_complexity"


_graded = graded_as("attention-pipeline", "round52")


def _count(body: str) -> dict[str, str]:
    return {COUNT: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n" + body}


# --- q12: one mean width for W_Q, W_K, W_V -------------------------------------------------------------------------

@pytest.mark.parametrize("body, said", [
    # the mean width as a float, W_O added with its right size
    ("    n = 3 * d_model * (d_k + d_v) / 2\n    return n + d_v * d_model if with_output else n\n", "a float"),
    # the mean width floored with //, a whole number
    ("    head = (d_k + d_v) // 2\n    total = sum(d_model * head for _ in range(3))\n"
     "    if with_output:\n        total += d_model * d_v\n    return total\n", "the mean width"),
    # statistics.mean of the two widths, made whole with int()
    ("    import statistics\n    n = int(3 * d_model * statistics.mean([d_k, d_v]))\n"
     "    return n + (d_v * d_model if with_output else 0)\n", "the mean width"),
])
def test_mean_head_width_is_named(grader: Grader, body: str, said: str) -> None:
    failed = assert_lost(_graded(grader, _count(body)))
    q12 = [(t, k, m) for q, t, k, m in failed if q == "q12"]
    assert {t for t, _, _ in q12} == {"test_count_qkv", "test_count_with_output"}, failed
    assert all(k == "param_count_mean_width" for _, k, _ in q12), failed
    assert all(said in m and "d_model * (2 * d_k + d_v)" in m for _, _, m in q12), failed
    assert all(q == "q12" for q, *_ in failed), failed


@pytest.mark.parametrize("body", [
    "    n = d_model * (2 * d_k + d_v)\n    return n + d_v * d_model if with_output else n\n",
    # widths listed and summed: the right count, W_O at its own size
    "    widths = [d_k, d_k, d_v] + ([] if not with_output else [d_v])\n    return sum(d_model * w for w in widths)\n",
    # 1.5 d_model (d_k + d_v) is right only where d_k = d_v; a mean over four matrices with W_O is right too
    "    if with_output:\n        return 4 * d_model * (d_k + d_v) // 2\n    return d_model * (2 * d_k + d_v)\n",
])
def test_right_count_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, _count(body)))


def test_wrong_count_without_w_o_is_not_blamed_on_w_o(grader: Grader) -> None:
    # a count off by one in the W_Q, W_K, W_V part: no key; W_O is not said to hold the difference
    failed = assert_lost(_graded(grader, _count("    n = d_model * (2 * d_k + d_v) + 1\n"
                                                "    return n + d_v * d_model if with_output else n\n")))
    with_o = [m for q, t, k, m in failed if q == "q12" and t == "test_count_with_output"]
    assert with_o and "if the rest is right" not in with_o[0] and "W_Q, W_K, W_V part" in with_o[0], failed
    assert all(k != "param_count_mean_width" for _, _, k, _ in failed), failed


# --- q16: T ^ 2 for T ** 2 in a cost probe --------------------------------------------------------------------------

@pytest.mark.parametrize("cell, letter", [
    # the cost of the scores as a def with d_k as an argument, the ratio picked by thresholds
    ("def cost_of_scores(T, d_k):\n    return d_k * T ^ 2\n\n\nr = cost_of_scores(512, 32) / cost_of_scores(256, 32)\n"
     "ans_complexity = 'a' if r < 3 else ('c' if r < 6 else 'd')\n", "a"),
    # the cost written inline, compared with an if / elif chain, a print beside it
    ("import math\nT1, T2, dk = 64, 128, 16\nc1 = T1 ^ 2 * dk\nc2 = T2 ^ 2 * dk\nprint(c1, c2)\n"
     "if math.isclose(c2 / c1, 4, rel_tol=0.2):\n    ans_complexity = 'c'\nelif c2 > c1 * 6:\n"
     "    ans_complexity = 'd'\nelse:\n    ans_complexity = 'b'\n", None),
    ("T1, T2, dk = 64, 128, 16\nc1 = T1 ^ 2 * dk\nc2 = T2 ^ 2 * dk\n"
     "if abs(c2 / c1 - 4) < 1:\n    ans_complexity = 'c'\nelif c2 / c1 > 6:\n    ans_complexity = 'd'\n"
     "elif abs(c2 / c1 - 2) < 1:\n    ans_complexity = 'a'\nelse:\n    ans_complexity = 'b'\n", "a"),
])
def test_caret_in_cost_probe_is_named(grader: Grader, cell: str, letter: str | None) -> None:
    failed = assert_lost(_graded(grader, {COST: cell}))
    if letter is None:   # math.isclose is not followed by the replay: the engine's message, not caret_is_xor
        assert all(k != "caret_is_xor" for *_, k, _ in failed), failed
        return
    assert [(q, t, k) for q, t, k, _ in failed] == [("q16", "test_ans_complexity", "caret_is_xor")], failed
    msg = failed[0][3]
    assert msg.startswith(f"ans_complexity is {letter!r}") and "^" in msg and "'c'" in msg and "**" in msg, failed


@pytest.mark.parametrize("cell", [
    "def cost_of_scores(T, d_k):\n    return d_k * T ** 2\n\n\nr = cost_of_scores(512, 32) / cost_of_scores(256, 32)\n"
    "ans_complexity = 'a' if r < 3 else ('c' if r < 6 else 'd')\n",
    "T1, T2, dk = 64, 128, 16\nc1 = T1 ** 2 * dk\nc2 = T2 * T2 * dk\n"
    "if abs(c2 / c1 - 4) < 1:\n    ans_complexity = 'c'\nelse:\n    ans_complexity = 'b'\n",
])
def test_cost_probe_with_power_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {COST: cell}))


def test_caret_whose_fix_is_still_wrong_is_not_named(grader: Grader) -> None:
    # ** for ^ gives a ratio of 8 here (T ^ 3), so the letter stays wrong: not said to be the ^ alone
    cell = ("T1, T2, dk = 64, 128, 16\nc1 = T1 ^ 3 * dk\nc2 = T2 ^ 3 * dk\n"
            "if abs(c2 / c1 - 4) < 1:\n    ans_complexity = 'c'\nelif c2 / c1 > 6:\n    ans_complexity = 'd'\n"
            "else:\n    ans_complexity = 'b'\n")
    failed = assert_lost(_graded(grader, {COST: cell}))
    assert all(k != "caret_is_xor" for *_, k, _ in failed), failed
