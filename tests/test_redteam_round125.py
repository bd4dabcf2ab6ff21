"""Red-team round 125: the one-edit search and its state rule, as a student meets them and as one abuses them.

Tried (repros in /tmp/rt125/: variants.py grades sdpa-from-scratch's full_marks with its causal_mask cell replaced):
a triangle built on the first call and kept between calls, spelt five ways the state rule (repair._kept_state, round
63's issue 21) had not read. Found:

- **A fix right only because of the notebook's own state, through a helper or a spelling the rule did not read.**
  The kept triangle held in a helper's `global _TRI` (`_tri(T_q, T_k)` called by causal_mask), in a module-level
  tensor changed by its own in-place methods (`_TRI.resize_(...).copy_(...)`), in a function attribute set with
  `setattr(causal_mask, "tri", ...)`, and in `g = globals(); g["_TRI"] = ...`: each was told "one change ...
  `_TRI is not None` in place of `_TRI is None`" (or `numel() != 0`, `getattr(...) is not None`, `g.get(...) is not
  None`) on q4's three failed tests, 3 of the 35 points. Followed, each never builds the triangle from a fresh start
  (None[:T_q], an empty slice): the same points lost. Measured: variants.py, key one_edit_fix on q4 for four of
  the five (the mutable default argument alone was left unnamed: its copy gets a fresh default of its own). Now a
  helper that keeps state has no fix said (no fresh start is made for a helper's copy); an in-place method
  (trailing `_`) on a name the notebook assigns and `setattr`/`delattr` of a module-level name are state the rule
  reads, so the copy is refused and the student reads state_kept_between_calls; a function reaching module-level
  names through `globals()` or `vars()` is not searched (no fresh start can be made for what no name shows).
- **A genuine slip beside a harmless counter was told it keeps state.** causal_mask's `return j <= i + 2` (fix: `i`
  in place of `i + 2`) with `_CALLS['n'] = _CALLS.get('n', 0) + 1` on every call: with `_CALLS = {}` the student
  read the one-edit fix; with `_CALLS = dict(n=0)` or `collections.Counter()` (a start that is no literal) the
  student read state_kept_between_calls, "a change to how `_CALLS` is checked or used makes every call ... right",
  about a fix that never touches `_CALLS`. Measured: /tmp/rt125/global_empty_nb.py, q4's three tests. The fresh
  copy (_from_fresh_state) had nothing to make fresh and still put a `global` of no names in it, which is no
  Python: its define failed, and a failed define was taken for a fix that does not hold from the top. Now no
  `global` is added where nothing is fresh, and a fresh copy that cannot be made or defined checks nothing (the fix
  is neither said nor blamed on the state)."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from autograder.grading.pyparse import parse
from autograder.grading.repair import KEY, STATE_KEY, Edit, _from_fresh_state, _kept_state
from tests.heldout.harness import grade_cells

TAIL = "\nprint(causal_mask(4, 7))\n"
KEPT = {
    "helper_global": ("import torch\n\n_TRI = None\n\n\ndef _tri(T_q, T_k):\n    global _TRI\n    if _TRI is None:\n"
                      "        _TRI = torch.tril(torch.ones(T_q, T_k)).bool()\n    return _TRI\n\n\n"
                      "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
                      "    return _tri(T_q, T_k)[:T_q, :T_k].clone()\n" + TAIL),
    "in_place_tensor": ("import torch\n\n_TRI = torch.zeros(0, 0, dtype=torch.bool)\n\n\ndef causal_mask(T_q, T_k=None):\n"
                        "    T_k = T_q if T_k is None else T_k\n    if _TRI.numel() == 0:\n"
                        "        _TRI.resize_(T_q, T_k).copy_(torch.tril(torch.ones(T_q, T_k)).bool())\n"
                        "    return _TRI[:T_q, :T_k].clone()\n" + TAIL),
    "setattr": ("import torch\n\n\ndef causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
                "    if getattr(causal_mask, 'tri', None) is None:\n"
                "        setattr(causal_mask, 'tri', torch.tril(torch.ones(T_q, T_k)).bool())\n"
                "    return causal_mask.tri[:T_q, :T_k].clone()\n" + TAIL),
    "globals": ("import torch\n\n\ndef causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
                "    g = globals()\n    if g.get('_TRI') is None:\n"
                "        g['_TRI'] = torch.tril(torch.ones(T_q, T_k)).bool()\n    return g['_TRI'][:T_q, :T_k].clone()\n" + TAIL),
}


@pytest.mark.parametrize("spelling", sorted(KEPT))
def test_a_fix_that_only_steers_state_kept_out_of_the_rules_sight_is_not_said(grader: Grader, spelling: str) -> None:
    outcome = grade_cells(grader, "sdpa-from-scratch", {"causal_mask": KEPT[spelling]}, "round125")
    q4 = [f for f in outcome.failed if f[0] == "q4"]
    assert q4 and outcome.score < outcome.max_score, outcome.failed
    for _q, _t, key, message in q4:
        said = message.split("\n", 1)[0]
        # the flipped check is right only with the triangle an earlier call left: from the top it never builds it
        assert key != KEY and "is not None" not in said and "!= 0" not in said, (key, said)
        if spelling in ("in_place_tensor", "setattr"):
            assert key == STATE_KEY and "keeps state between calls" in said, (key, said)


def test_in_place_methods_and_setattr_are_state_only_on_the_notebooks_own_names() -> None:
    cells = ["import torch\nimport torch.nn.functional as F\n_buf = torch.zeros(3)\n_log = []\n",
             "def f(x, h):\n"
             "    F.relu_(h)\n"               # changes h, not the module F
             "    x.add_(1)\n"                # a parameter: the caller's own tensor
             "    _buf.copy_(x)\n"            # the notebook's tensor: kept between calls
             "    setattr(f, 'seen', True)\n"
             "    return h\n"]
    fn = parse(cells[1]).body[0]
    kept, first = _kept_state(fn, cells)
    assert kept == {"_buf": "", "f": ""}, kept
    assert first == {"_buf": 4, "f": 5}, first


COUNTED = ("import collections\nimport torch\n\n_CALLS = {start}\n\n\ndef causal_mask(T_q, T_k=None):\n"
           "    _CALLS['n'] = _CALLS.get('n', 0) + 1\n    T_k = T_q if T_k is None else T_k\n"
           "    i = torch.arange(T_q)[:, None]\n    j = torch.arange(T_k)[None, :]\n    return j <= i + 2\n")


@pytest.mark.parametrize("start", ["{}", "dict(n=0)", "collections.Counter()"])
def test_a_slip_beside_a_counter_with_no_literal_start_gets_its_edit_not_the_state(grader: Grader, start: str) -> None:
    outcome = grade_cells(grader, "sdpa-from-scratch", {"causal_mask": COUNTED.format(start=start)}, "round125")
    q4 = [f for f in outcome.failed if f[0] == "q4"]
    assert q4 and outcome.score < outcome.max_score, outcome.failed
    for _q, _t, key, message in q4:
        said = message.split("\n", 1)[0]
        assert key == KEY and "`i` in place of `i + 2`" in said and "keeps state" not in said, (key, said)


def test_a_fresh_copy_with_nothing_fresh_is_python() -> None:
    source = "def _c0(Q, K):\n    _CALLS['n'] += 1\n    return Q @ K.T\n"
    made = _from_fresh_state(Edit(line=3, before="", after="", source=source), {}, "cp")
    assert made is not None
    compile(made, "<fresh>", "exec")      # a `global` of no names is a SyntaxError
