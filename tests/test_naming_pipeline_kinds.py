"""Engine fixes made while naming attention-pipeline's mistakes by kind (issue 21, fifth round).

charged_in_parts' `parts` must see an earlier answer's input write through the guard a test really gets:
namespaces' guard forwards attribute reads to the worker's proxy (`__getattr__`), so a value set on the
guard would hide every later read of the proxy's own `last_changed_inputs`."""
from __future__ import annotations

from typing import Any

import pytest
import torch

from autograder.grading import checks
from autograder.grading.checks import Misconception
from autograder.grading.runner import TrustedProxy


class _Guard:
    """Like namespaces' guard of a student function: calls and attribute reads go to the proxy."""

    def __init__(self, proxy: TrustedProxy) -> None:
        self._proxy = proxy

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._proxy(*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._proxy, attr)


def _clamp_in_place(A):
    A.clamp_(min=1e-300)
    return -(A * torch.log2(A)).sum(-1)


def test_parts_see_an_input_write_through_a_forwarding_guard() -> None:
    entropy = _Guard(TrustedProxy(_clamp_in_place, "cpu"))
    tokens = _Guard(TrustedProxy(lambda A: 2.0 ** _clamp_in_place(A), "cpu"))
    A = torch.softmax(torch.randn(2, 4, 4, dtype=torch.float64), -1).tril()
    A0 = A.clone()

    def check(got):
        checks.assert_matches(got, 2.0 ** -torch.special.xlogy(A0, A0).sum(-1) / 1.0)

    student = lambda: checks.call(tokens, A.clone(), what="effective_tokens")   # noqa: E731
    own = lambda: 2.0 ** entropy(A0.clone())                                    # noqa: E731
    checks.charged_in_parts(student, check, own, parts=[entropy])    # the write is row_entropy_bits'
    checks.charged_in_parts(student, check, own, parts=[entropy])    # and stays so on a second test
    with pytest.raises(Misconception) as named:
        checks.charged_in_parts(student, check, own)                  # no parts: charged here
    assert named.value.key == "inplace_on_input"


def test_parts_do_not_excuse_a_write_of_the_answer_itself() -> None:
    steady = _Guard(TrustedProxy(lambda A: A.sum(-1), "cpu"))
    writes = _Guard(TrustedProxy(lambda A: A.mul_(2.0).sum(-1), "cpu"))
    A = torch.rand(3, 4, dtype=torch.float64)
    with pytest.raises(Misconception) as named:
        checks.charged_in_parts(lambda: checks.call(writes, A.clone(), what="f"), lambda got: None,
                                lambda: steady(A.clone()), parts=[steady])
    assert named.value.key == "inplace_on_input"
