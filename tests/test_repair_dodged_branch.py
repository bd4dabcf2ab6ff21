"""Issue 21, a one-edit fix must be true: an edit of an `if`'s (or a conditional expression's) test that only makes
the condition take one value on the tests' inputs steers around the branch; the branch is what is wrong, and the
student reads that, not the edited condition (autograder/grading/repair.py: _dodges).

The shortcut of the held-out notebook: scores mirrored as if symmetric whenever Q and K have as many rows, "mended"
by `-1` (or `1`) in place of `0` in `Q.shape[0]`, which is true again wherever T = d_k."""
from __future__ import annotations

from typing import Any

import pytest
import torch

from autograder.grading.repair import KEY, name_by_one_edit, same_answer
from tests.test_repair import _inputs, _Namespace, _report


def _scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    return Q @ K.T


MIRRORED = {   # the shortcut, three spellings: (the notebook's def, the `if` line the message quotes)
    "if on shapes": (
        "def scores(Q, K):\n"
        "    if Q.shape[0] == K.shape[0]:\n"
        "        S = torch.triu(Q @ K.T)\n"
        "        S = S + torch.triu(S, 1).T\n"
        "    else:\n"
        "        S = Q @ K.T\n"
        "    return S\n", "if Q.shape[0] == K.shape[0]:"),
    "conditional expression": (
        "def scores(Q, K):\n"
        "    S = Q @ K.T\n"
        "    S = torch.triu(S) + torch.triu(S, 1).T if Q.shape[0] == K.shape[0] else S\n"
        "    return S\n", "conditional expression on line 3"),
    "early return": (
        "def scores(Q, K):\n"
        "    if Q.shape[0] == K.shape[0]:\n"
        "        upper = torch.triu(Q @ K.T)\n"
        "        return upper + torch.triu(Q @ K.T, 1).T\n"
        "    return Q @ K.T\n", "if Q.shape[0] == K.shape[0]:"),
}

# the tests' inputs: one with as many queries as keys (T = 5, d_k = 4: the shortcut is wrong there), two without
CALLS = [_inputs((5, 4), (5, 4), seed=1), _inputs((3, 4), (6, 4), seed=2), _inputs((6, 4), (2, 4), seed=3)]


def _named(cell: str, name: str, reference: Any, calls: list[tuple[Any, ...]]) -> tuple[list[Any], _Namespace]:
    space = _Namespace(cell)
    reports = []
    for k, inputs in enumerate(calls):
        test = ("q1", f"t{k}")
        space.recorded.test = test
        try:
            answer = space.ns[name](*inputs)
        except Exception as e:  # noqa: BLE001 - recorded as the proxy would
            answer = e
        space.recorded.add(name, inputs, {}, answer)
        right = same_answer(answer, reference(*inputs))
        reports.append(_report(*test, status="passed" if right else "failed"))
    return name_by_one_edit(reports, space, {name: reference}, [space.cell]), space


@pytest.mark.parametrize("spelling", sorted(MIRRORED))
def test_an_edit_that_only_steers_around_the_mirrored_shortcut_names_the_branch(spelling: str) -> None:
    cell, quoted = MIRRORED[spelling]
    out, _space = _named(cell, "scores", _scores, CALLS)
    failed = [r for r in out if r.status == "failed"]
    assert [r.misconception for r in failed] == [KEY], spelling
    said = failed[0].message.split("\n", 1)[0]
    assert "is right on every call the tests made when" in said and quoted in said, said
    assert "gives the wrong answer" in said, said
    # no edited condition is offered: the trigger moved (`-1` for `0`) is no fix
    assert "in place of" not in said and "-1" not in said and "`1`" not in said, said


def test_the_branch_is_said_by_its_line() -> None:
    cell, _ = MIRRORED["early return"]
    out, _ = _named(cell, "scores", _scores, CALLS)
    said = next(r for r in out if r.status == "failed").message
    assert said.startswith("`scores` is right on every call the tests made when the `if Q.shape[0] == K.shape[0]:` "
                           "branch at line 2 is skipped: the code under it is what gives the wrong answer "
                           "(checked on all 3 inputs the tests gave it).")


def _nonnegative(x: torch.Tensor) -> int:
    return sum(1 for v in x.tolist() if v >= 0)


def test_a_condition_slip_whose_body_some_calls_need_keeps_its_edit() -> None:
    # `v > 0` where `v >= 0` is meant: the body runs for some entries and not others, so no constant stands in for
    # the condition, and the edited comparison is the fix
    cell = ("def nonnegative(x):\n"
            "    c = 0\n"
            "    for v in x.tolist():\n"
            "        if v > 0:\n"
            "            c += 1\n"
            "    return c\n")
    calls = [(torch.tensor([0.0, -1.0, 2.0, 0.0]),), (torch.tensor([3.0, -2.0, 0.0]),), (torch.tensor([1.0, -1.0]),)]
    out, _ = _named(cell, "nonnegative", _nonnegative, calls)
    failed = [r for r in out if r.status == "failed"]
    assert failed and all(r.misconception == KEY for r in failed)
    said = failed[0].message.split("\n", 1)[0]
    assert "`v >= 0` in place of `v > 0`" in said and "is skipped" not in said, said


def _clipped(x: torch.Tensor, cap: float) -> torch.Tensor:
    return x.clamp(max=cap) if cap >= 0 else x


def test_a_condition_slip_with_an_else_keeps_its_edit() -> None:
    # `cap > 0` where `cap >= 0` is meant, on calls with caps below, at and above 0: either path is needed somewhere
    cell = ("def clipped(x, cap):\n"
            "    if cap > 0:\n"
            "        out = x.clamp(max=cap)\n"
            "    else:\n"
            "        out = x\n"
            "    return out\n")
    x = torch.tensor([-2.0, -0.5, 0.5, 3.0, 1.5], dtype=torch.float64)     # a shape per call: each is checked
    out, _ = _named(cell, "clipped", _clipped, [(x[:3].clone(), 0.0), (x[:4].clone(), 1.0), (x.clone(), -1.0)])
    failed = [r for r in out if r.status == "failed"]
    assert [r.misconception for r in failed] == [KEY]
    said = failed[0].message.split("\n", 1)[0]
    assert "`cap >= 0` in place of `cap > 0`" in said and "is skipped" not in said, said


HELD_OUT = '''
def attention(Q, K, V, d_k):
    if Q.shape[0] == K.shape[0]:
        # square (self-attention) scores are symmetric: keep the upper triangle and mirror it
        upper = torch.triu(Q @ K.T)
        raw = upper + upper.T - torch.diag_embed(upper.diagonal())
    else:
        raw = Q @ K.T
    weights = torch.softmax(raw / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''


def _attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, d_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    weights = torch.softmax(Q @ K.T / d_k ** 0.5, dim=-1)
    return weights @ V, weights


def test_the_held_out_shortcut_is_told_as_its_branch_not_as_a_moved_trigger() -> None:
    # issue 21's notebook (blind60's q1, its docstring left out): T = 5, d_k = 4 square and wrong, two inputs not
    calls = [(*_inputs((5, 4), (5, 4), (5, 3), seed=4), 4), (*_inputs((3, 4), (6, 4), (6, 3), seed=5), 4),
             (*_inputs((6, 4), (2, 4), (2, 3), seed=6), 4)]
    out, _ = _named(HELD_OUT, "attention", _attention, calls)
    failed = [r for r in out if r.status == "failed"]
    assert [r.misconception for r in failed] == [KEY]
    said = failed[0].message.split("\n", 1)[0]
    assert said.startswith("`attention` is right on every call the tests made when the `if Q.shape[0] == "
                           "K.shape[0]:` branch at line 3 is skipped: the code under it is what gives the wrong"), said
