"""Red-team round 127: the fresh-state copy that names a stale cache (repair._stale_state, _fresh_each_call).

Where a graded function keeps a module-level name and gives wrong values, the grader runs an unedited copy with that
name started afresh at every call and, where the copy answers every checked call right, tells the student
"keeps state between calls in `X`" (state_kept_between_calls). The copy must differ from the function in the state's
start alone, and be checked on the calls it speaks for; the ways it was not, and one cost, each measured with
tests.test_repair_stale_state's harness (repros in /tmp/rt127/: truth.py, more.py, cost.py, named.py):

1. A decorator. The copy dropped the decorator, so a wrapper that transposes the answer beside a harmless
   `_log.append(Q.shape)` was "mended" by the copy: all 3 failures told state_kept_between_calls in `_log`. Now a
   decorated function (or, for a helper's state, a decorated caller or helper) gets no fresh copy: nothing is said.
2. Two names kept. A call counter `_hits += 1` written above the stale `_cache[key] = ...`: both were started
   afresh and the first written, `_hits`, was named (its line and quote too). Now, with more than one, the name named
   is the one whose fresh start alone makes every checked call right (all of them where none alone does).
3. A start the notebook's own code replaces. `_scale = None`, the function's `if _scale is None: _scale = ...`, then
   `_scale = 1.0` in a later cell: no call left 1.0 there, yet the student read "what an earlier call left there is
   reused". Now a name the notebook's top level binds more than once has no known start (_kept_state's
   rebound_unknown, asked by _stale_state): no copy.
4. Cost: a module-level start of 2.8 MB (`_c = [(1, 2.0, 'x'), ...]`, 200,000 items) was literal_eval'd and
   printed whole before its 200-character limit was checked, 1.1 s of the grader's CPU on each read of the function's
   state (3.4 s with the parse; several reads a searched function). A value of more than 400 nodes (past 200
   characters printed) is no known start now, and is neither evaluated nor printed (2.35 s, the parse alone).
5. A named test's own key replaced by a probe. A cache keyed by d_k alone beside no max subtracted: six unnamed
   tests (six shapes, stale) chose the copy's calls; the named test's first call (d_k = 8, scores * 1000: nan, its
   key no_max_subtraction, and the fresh copy as nan) was left to `others`, unmended, and its second call (ordinary
   numbers, the nan kept for d_k = 8) was mended, so the test was told state_kept_between_calls and lost the key of
   the mistake the student still has after fixing the cache. Now a test is told the state only where its first call
   of that function came out right or the copy made it right too (the named branch and _told_state).

Tried and holding: a default argument reading the kept name (passes untouched), a depth counter in recursion through
the global name that changes the answer (the state: named, truly), a nested lambda naming the state (no fresh copy;
round 63's steered words), a kept name that shadows a builtin (`max = None`), a helper's wrong decorator (the one-edit
search's words, as before the change).
"""
from __future__ import annotations

import ast

import pytest
import torch
from tests.test_repair import _inputs, _Namespace, _report
from tests.test_repair_stale_state import _named, _weights

from autograder.grading import repair
from autograder.grading.pyparse import parse
from autograder.grading.repair import STATE_KEY, name_by_one_edit, same_answer

_SOFTMAX = "torch.softmax(Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5, dim=-1)"


def _told(cell: str) -> list[tuple[str | None, str]]:
    calls = [_inputs((3, 4), (5, 4), seed=s) for s in (1, 2, 3)]
    out = _named(cell, "weights", _weights, calls)
    assert any(r.status == "failed" for r in out)
    return [(r.misconception, r.message.split("\n", 1)[0]) for r in out if r.status == "failed"]


def test_a_wrong_decorator_beside_a_harmless_log_is_not_told_as_state() -> None:
    cell = ("import torch\n_log = []\n\ndef transposed(f):\n    def g(Q, K):\n        return f(Q, K).transpose(-2, -1)\n"
            f"    return g\n\n@transposed\ndef weights(Q, K):\n    _log.append(Q.shape)\n    return {_SOFTMAX}\n")
    for key, said in _told(cell):
        assert key != STATE_KEY and "keeps state between calls" not in said, said


def test_of_two_names_kept_the_stale_cache_is_named_not_a_call_counter() -> None:
    cell = ("import torch\n_hits = 0\n_cache = {}\n\ndef weights(Q, K):\n    global _hits\n    _hits += 1\n"
            f"    key = Q.shape\n    if key not in _cache:\n        _cache[key] = {_SOFTMAX}\n    return _cache[key]\n\n"
            "_demo = weights(torch.zeros(3, 4, dtype=torch.float64), torch.zeros(5, 4, dtype=torch.float64))\n")
    told = _told(cell)
    for key, said in told:
        assert key == STATE_KEY, said
        assert "in `_cache` (written on line 10 of its cell: `_cache[key] = " in said and "`_hits`" not in said, said


def test_a_start_the_notebook_rebinds_at_top_level_is_not_told_as_an_earlier_calls() -> None:
    cell = ("import torch\n_scale = None\n\ndef weights(Q, K):\n    global _scale\n    if _scale is None:\n"
            "        _scale = Q.shape[-1] ** -0.5\n    return torch.softmax(Q @ K.transpose(-2, -1) * _scale, dim=-1)\n\n"
            "_scale = 1.0\n")
    for key, said in _told(cell):
        assert key != STATE_KEY and "earlier call left there" not in said, said


def test_a_huge_literal_start_is_neither_evaluated_nor_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    value = parse("_c = [" + ",".join(["(1, 2.0, 'x')"] * 20000) + "]").body[0].value    # type: ignore[attr-defined]
    printed: list[int] = []
    real = ast.unparse
    monkeypatch.setattr(ast, "unparse", lambda node: printed.append(1) or real(node))
    assert repair._literal_start(value) == "" and not printed
    assert repair._literal_start(parse("_c = {}").body[0].value) == "{}"      # type: ignore[attr-defined]


def test_a_named_tests_first_call_the_fresh_copy_gets_wrong_keeps_its_own_key() -> None:
    cell = ("import torch\n_C = {}\n\ndef weights(Q, K):\n    key = Q.shape[-1]\n    if key not in _C:\n"
            "        e = torch.exp(Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5)\n        _C[key] = e / e.sum(-1, keepdim=True)\n"
            "    return _C[key]\n\n"
            "_demo = weights(torch.zeros(3, 4, dtype=torch.float64), torch.zeros(5, 4, dtype=torch.float64))\n")
    space = _Namespace(cell)
    plan = [(f"t{k + 1}", _inputs((tq, 4), (tk, 4), seed=k))
            for k, (tq, tk) in enumerate([(6, 7), (2, 3), (4, 4), (5, 2), (7, 1), (1, 6)])]
    plan += [("t0", tuple(x * 1000 for x in _inputs((3, 8), (5, 8), seed=20))), ("t0", _inputs((3, 8), (5, 8), seed=21))]
    right: dict[str, bool] = {}
    for test, inputs in plan:
        space.recorded.test = ("q1", test)
        answer = space.ns["weights"](*inputs)
        space.recorded.add("weights", inputs, {}, answer)
        right[test] = right.get(test, True) and same_answer(answer, _weights(*inputs))
    assert torch.isnan(space.recorded.calls[-2].answer).any()       # the overflow, the named test's own mistake
    reports = [_report("q1", t, status="passed" if ok else "failed", key="no_max_subtraction" if t == "t0" else None)
               for t, ok in right.items()]
    out = {r.name: r for r in name_by_one_edit(reports, space, {"weights": _weights}, [space.cell])}
    assert out["t1"].misconception == STATE_KEY, out["t1"].message     # the state is still said where it explains
    assert out["t0"].misconception == "no_max_subtraction", out["t0"].message
