"""Red-team round 145: repair._stress_held as added at 6b573b0 (each one-edit fix run again on stressed copies of up
to two wrong calls, floating tensors x40 and x1000, beside the reference and the student's own function; an edit whose
copy answers inf/NaN where both stay finite, or raises where they answered, is dropped) attacked as a student and as
a class. Repros in /tmp/rt145/ (test_scratch.py grades sdpa-from-scratch end to end with graded_as).

- **A right fix of code that never shifts was dropped when the slip shrank the scores.** The stressed calls were
  judged factor by factor: `s = s / 30` before an unshifted `exp(s)` (the student's own function) stays finite x40
  and overflows x1000, and its right fix (leave the line out, or `s` for `s / 30`) overflows x40 already, so at x40
  the fix was "inf where the student's code and the reference are finite" and dropped: every failure was left
  unnamed (also `/ 100`; `/ 3` was told, the student's code overflowing x40 too). The commit's own rule, that a
  right fix of code that never shifts overflows where the student's function does too and is kept, held only for
  slips that grow the scores. Now a part of the answer tells only where the reference and the student's function
  both stay finite at EVERY factor the call ran at: the student's unshifted exp overflows x1000, so nothing is judged
  and the fix is told. blind86's compensating edits (a shift by a running max that moves, stable at every factor)
  are still dropped (tests/test_one_edit_stress.py).
- **A fix the clock left unstressed was told.** Out of time, `_stress_held` answered True ("not judged"), where
  `_kept_right` answers False: a copy the budget ran out before stressing (a student function slow only on large
  values, `same` spending the search's CPU on the x1000 call) was told unchecked, so a compensating edit (the shift
  dropped) could be told once the stress was cut short. Now a copy not shown to hold when the clock ran out, in the
  stressed calls' making or in its own, is not (False), as `_kept_right`.

Held (tried, no change): replies cannot carry a subclass, a sparse or meta tensor, or nest past 32 (protocol), so
`_leaves`/`_finite` on a copy's answer raise nothing (complex answers are read by isfinite; numpy arrays, sets and
strings are no leaf that tells); a copy or the student's function that sleeps or dies on the stressed call ends in
CallCutShort at the search's wall deadline inside optional_calls, like any copy (the search for that function, and
the worker, are given up: nothing is said, no score moves); a copy that mutates its stressed arguments mutates the
worker's decoded copy, never the grader's (each call gets `_copies`); the stress only drops fixes, so a student can
steer it only to silence or keep his own hint, never a classmate's. Not fixed, outside repair.py: none.
"""
from __future__ import annotations

import types

import torch

from autograder.grading import repair
from autograder.grading.grader import Grader
from tests.heldout.harness import assert_named, graded_as

SDPA = "scaled_dot_product_attention"
_sdpa = graded_as("sdpa-from-scratch", "one_edit_stress")


# --- a right fix of a slip that shrinks the scores, in code that never shifts, is told -----------------------------

def test_shrunk_scores_before_an_unshifted_exp_are_still_told(grader: Grader) -> None:
    cell = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n    s = s / 30\n    e = torch.exp(s)\n"
            "    if mask is not None:\n        e = e * mask\n"
            "    tot = e.sum(dim=-1, keepdim=True)\n"
            "    w = e / torch.where(tot == 0, torch.ones_like(tot), tot)\n    return w @ V\n")
    failed = assert_named(_sdpa(grader, {SDPA: cell}), "one_edit_fix", "q5", also=("uniform_weights",))
    told = [m for _q, _t, k, m in failed if k == "one_edit_fix"]
    assert told and all("leave out line 3 (`s = s / 30`)" in m for m in told), failed


# --- out of time, a copy is not shown to hold ------------------------------------------------------------------------

class _Clock:
    def __init__(self) -> None:
        self.spent = False

    def over(self) -> bool:
        return self.spent


class _Worker:
    """The student's worker: `same` shifts (and spends the search's budget on a large call), the fix does not."""

    def __init__(self, clock: _Clock) -> None:
        self.clock = clock

    def call_copy(self, name: str, args: tuple, kwargs: dict) -> torch.Tensor:
        (x,) = args
        if name == "same":
            if float(x.abs().max()) > 1e4:
                self.clock.spent = True         # slow only on large values: the budget is gone
            return torch.softmax(x, dim=-1)
        e = torch.exp(x)                        # the compensating edit: the shift dropped
        return e / e.sum(dim=-1, keepdim=True)


def _held(spent_before: bool) -> bool:
    clock = _Clock()
    clock.spent = spent_before
    call = types.SimpleNamespace(args=(torch.randn(3, 5, generator=torch.Generator().manual_seed(0)) * 10,), kwargs={})
    held = repair._stress_held([call], _Worker(clock), "same", clock, KeyboardInterrupt,  # type: ignore[arg-type]
                               lambda x: torch.softmax(x, dim=-1))
    return held("fix")


def test_a_fix_the_clock_left_unstressed_is_not_told() -> None:
    assert not _held(spent_before=False)    # the clock ran out on the student's own x1000 call
    assert not _held(spent_before=True)     # no stressed call made at all


def test_an_overflowing_compensating_edit_is_dropped_in_time() -> None:
    clock = _Clock()
    call = types.SimpleNamespace(args=(torch.randn(3, 5, generator=torch.Generator().manual_seed(0)),), kwargs={})

    class Patient(_Worker):
        def call_copy(self, name: str, args: tuple, kwargs: dict) -> torch.Tensor:
            (x,) = args
            return torch.softmax(x, dim=-1) if name == "same" else super().call_copy("fix", args, kwargs)
    held = repair._stress_held([call], Patient(clock), "same", clock, KeyboardInterrupt,  # type: ignore[arg-type]
                               lambda x: torch.softmax(x, dim=-1))
    assert not held("fix")
    # a copy that shifts, as the student's own function does, holds
    assert repair._stress_held([call], Patient(clock), "same", clock, KeyboardInterrupt,  # type: ignore[arg-type]
                               lambda x: torch.softmax(x, dim=-1))("same")
