"""checks.charged_in_parts' `parts` (issue 21: one mistake, one charge): an input written in place by an
earlier answer that the later one calls is charged once, by the earlier answer's own test."""
from __future__ import annotations

import pytest
import torch

from autograder.grading import checks
from autograder.grading.checks import Misconception
from autograder.grading.runner import TrustedProxy


# --- charged once: an input written by an earlier answer ---------------------------------------------------

def _scale_in_place(S):
    S /= 2.0
    return S


def test_charged_in_parts_leaves_an_earlier_answers_input_write_to_that_answers_test() -> None:
    earlier = TrustedProxy(_scale_in_place, "cpu")
    later = TrustedProxy(lambda S: torch.softmax(_scale_in_place(S), -1), "cpu")
    S = torch.randn(3, 4, dtype=torch.float64)

    def check(got):
        checks.assert_matches(got, torch.softmax(S / 2.0, -1))

    def own():
        return torch.softmax(earlier(S.clone()), -1)

    student = lambda: checks.call(later, S, what="attention")   # noqa: E731 - the test's student call
    checks.charged_in_parts(student, check, own, parts=[earlier])             # the earlier answer's charge
    with pytest.raises(Misconception) as named:
        checks.charged_in_parts(student, check, own)                          # no parts: charged here
    assert named.value.key == "inplace_on_input"
    steady = TrustedProxy(lambda S: S / 2.0, "cpu")
    with pytest.raises(Misconception):                                        # the write is this answer's
        checks.charged_in_parts(student, check, lambda: torch.softmax(steady(S.clone()), -1), parts=[steady])
