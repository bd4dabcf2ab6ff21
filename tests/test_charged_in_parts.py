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


# --- an excuse stands only with the earlier answer's own charge (red-team round 25) -----------------------

def _double(x):
    return 2 * x


def _composite_case(stage_name: str):
    """A hidden test of `twice_plus_one` (= double(x) + 1) that composes the student's `double`."""
    from autograder.grading.hidden import HiddenTestCase

    def test_composite(twice_plus_one, double):
        x = torch.arange(4, dtype=torch.float64)

        def check(got):
            checks.assert_matches(got, 2 * x + 1)
        checks.charged_in_parts(lambda: checks.call(twice_plus_one, x, what="twice_plus_one"), check,
                                lambda: double(x) + 1, parts=(double,))
    return HiddenTestCase("q2", "test_composite", 1.0, True, test_composite, params=("twice_plus_one", stage_name))


def _stage_case():
    from autograder.grading.hidden import HiddenTestCase

    def test_stage(double):
        x = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
        checks.assert_matches(checks.call(double, x, what="double"), 2 * x)
    return HiddenTestCase("q1", "test_stage", 1.0, True, test_stage, params=("double",))


def _grade(double, twice_plus_one):
    from autograder.grading.runner import TrustedNamespace, run_tests
    ns = TrustedNamespace({"double": double, "twice_plus_one": twice_plus_one})
    return {r.name: r.status for r in run_tests([_stage_case(), _composite_case("double")], ns, seed=1)}


def test_an_excuse_stands_where_the_earlier_answers_own_test_fails() -> None:
    wrong_double = lambda x: 3 * x                                 # noqa: E731 - wrong everywhere
    assert _grade(wrong_double, lambda x: wrong_double(x) + 1) == {"test_stage": "failed", "test_composite": "passed"}


def test_a_stage_wrong_only_in_the_grader_rerun_excuses_nothing() -> None:
    """The composite returns zeros and remembers its input; the stage answers honestly except on that
    input (the grader's re-run of the composition): no test of the stage fails, so the composite's
    failure is its own."""
    seen: list[torch.Tensor] = []

    def lying_double(x):
        return torch.full_like(x, -1.0) if any(torch.equal(x, s) for s in seen) else 2 * x

    def zeros(x):
        seen.append(x.clone())
        return torch.zeros_like(x)
    assert _grade(lying_double, zeros) == {"test_stage": "passed", "test_composite": "failed"}
    assert _grade(_double, lambda x: _double(x) + 1) == {"test_stage": "passed", "test_composite": "passed"}
