"""Red-team round 128: the length-one replay (autograder/grading/length_one.py) telling a failure
`length_one_handled_differently` where the length of 1 is not why the function is wrong.

1. A function whose answers change between calls (a warm-up counter, a cache, a random draw) was wrong on the test's
   call and right on the widened replay made after it: named a length-1 matter, with the counter's `if calls[0] == 1`
   quoted as the length-1 branch. Measured: a counter wrong on its first call only was named. Now the original
   input is called again after the widened one; a function right on it now was wrong by its state, and is not named.
2. A scale hard-coded as sqrt(2) (the notebook's example had d_k = 2) is wrong for d_k = 1 and d_k = 4, and right on
   d_k widened to 2: the test's first call (d_k = 1) was named a length-1 matter although its next call, with no
   length of 1 at all, was as wrong. Now a test any of whose later calls with no length of 1 was answered wrong
   is not named (the mistake shows on an ordinary input).
3. The quoted line came from the last `def` of the name even where a later `attention = _mine` replaced it: the
   student was sent to a line of code that was never graded. Now the line is quoted only where repair.left_bound
   says the def is what the tests called (the cells' errors passed from the runner); otherwise the general advice.
   Also through a whole grade of sdpa-from-scratch (a one-query `scores * 1.37` behind a decoy def with `.squeeze()`).

Spellings of my own, checked against the code as it was (each test failed there)."""
from __future__ import annotations

from typing import Any, Sequence

import pytest
import torch

from autograder.grading.length_one import KEY, name_length_one
from autograder.grading.namespaces import RecordedCall
from tests.heldout.harness import grade_cells
from tests.test_length_one import _attention, _draw
from tests.test_repair import _report


def _named(cell: str, calls_args: Sequence[tuple[Any, ...]]) -> tuple[str | None, str]:
    """(the key, the first line of the message) of test q1/t0 whose calls of the cell's `attention` are calls_args."""
    space: dict[str, Any] = {}
    exec(cell, space)      # noqa: S102 - the test's own code
    calls = []
    for args in calls_args:
        copies = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
        try:
            answer = space["attention"](*copies)
        except Exception as e:  # noqa: BLE001 - recorded as the proxy would
            answer = e
        calls.append(RecordedCall(("q1", "t0"), "attention", args, {}, answer))
    (r,) = name_length_one([_report("q1", "t0")], calls, {"attention": _attention}, ["", cell],
                           lambda fn, a, k: space[fn](*a, **k), lambda: True)
    return r.misconception, r.message.split("\n", 1)[0]


ONE_QUERY = _draw((1, 4), (5, 4), (5, 3), seed=1)

WARM_UP = ("import math, torch\n"
           "calls = [0]\n"
           "def attention(Q, K, V, mask=None):\n"
           "    calls[0] += 1\n"
           "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
           "    if calls[0] == 1:\n"
           "        s = s * 0\n"
           "    return torch.softmax(s, dim=-1) @ V\n")

HARD_CODED = ("import math, torch\n"
              "def attention(Q, K, V, mask=None):\n"
              "    s = Q @ K.transpose(-2, -1) / math.sqrt(2)\n"
              "    return torch.softmax(s, dim=-1) @ V\n")

REPLACED = ("import math, torch\n"
            "def attention(Q, K, V, mask=None):\n"
            "    x = Q.squeeze()\n"
            "    return x\n"
            "def _mine(Q, K, V, mask=None):\n"
            "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
            "    if Q.shape[-2] == 1:\n"
            "        return V.mean(0, keepdim=True)\n"
            "    return torch.softmax(s, dim=-1) @ V\n"
            "attention = _mine\n")

SHORTCUT = REPLACED.replace("attention = _mine\n", "").replace("def attention(Q, K, V, mask=None):\n    x = Q.squeeze()\n"
                                                                   "    return x\n", "").replace("_mine", "attention")


def test_a_function_wrong_by_its_state_is_not_named_a_length_of_one() -> None:
    key, said = _named(WARM_UP, [ONE_QUERY])
    assert key is None, said
    # a function that raises on one query raises again on it: still named (the re-call keeps a raise as wrong)
    raising = SHORTCUT.replace("return V.mean(0, keepdim=True)", "raise ValueError('one query')")
    key, said = _named(raising, [ONE_QUERY])
    assert key == KEY and said.startswith("`attention` raises"), said


def test_a_test_also_wrong_on_an_ordinary_input_is_not_named_a_length_of_one() -> None:
    d_one, d_four = _draw((3, 1), (5, 1), (5, 3), seed=1), _draw((3, 4), (5, 4), (5, 3), seed=2)
    key, said = _named(HARD_CODED, [d_one, d_four])
    assert key is None, said
    # the same d_k = 1 call next to a later call it answers right: a length-1 matter still (the fix keeps the naming)
    key, said = _named(SHORTCUT, [ONE_QUERY, _draw((3, 4), (5, 4), (5, 3), seed=2)])
    assert key == KEY and "`if Q.shape[-2] == 1:`" in said, said


def test_the_quoted_line_is_from_the_function_the_tests_called() -> None:
    key, said = _named(REPLACED, [ONE_QUERY])
    assert key == KEY, said                       # the called function does handle one query otherwise
    assert "squeeze()`." not in said and "x = Q.squeeze()" not in said, said
    key, said = _named(SHORTCUT, [ONE_QUERY])
    assert key == KEY and "Look at line 4 of its cell: `if Q.shape[-2] == 1:`" in said, said


# the whole grade: sdpa-from-scratch's q5 (test_fully_masked_rows) calls the function with one query; a length-1
# branch of my own spelling (one the assignment's diagnoses do not know), behind a decoy def that a later
# assignment replaces
_SDPA = ("def _sdpa_mine(Q, K, V, mask=None):\n"
         "    d_k = Q.size(-1)\n"
         "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n"
         "    if Q.size(-2) == 1:\n"
         "        scores = scores * 1.37\n"
         "    if mask is not None:\n"
         "        scores = scores.masked_fill(mask == False, float('-inf'))\n"
         "        weights = stable_softmax(scores, dim=-1)\n"
         "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
         "    else:\n"
         "        weights = stable_softmax(scores, dim=-1)\n"
         "    return torch.matmul(weights, V)\n")


@pytest.mark.sandbox
def test_a_replaced_def_is_not_quoted_in_a_whole_grade(grader: Any) -> None:
    cell = ("import math, torch\n"
            "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    out = Q.squeeze()\n"
            "    return out\n\n" + _SDPA + "\nscaled_dot_product_attention = _sdpa_mine\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"scaled_dot_product_attention": cell}, "round128")
    named = [(key, message) for (_, _, key, message) in outcome.failed if key == KEY]
    assert named, outcome.failed
    assert all("Q.squeeze()`." not in message for _, message in named), named
