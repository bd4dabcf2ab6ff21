"""An answer still left as the template's `...` reads "not answered yet", not an encoding error."""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from tests.conftest import FIXTURE_SUBS


def test_an_ellipsis_answer_is_not_answered_yet(tmp_path: Path, toy_grader) -> None:
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    nb = new_notebook(cells=list(good.cells) + [new_code_cell("answer = ...")])
    path = tmp_path / "unfinished.ipynb"
    nbformat.write(nb, path)
    result = toy_grader.grade(path, "toy", seed=1)
    q2 = [t for t in result.tests if t.question == "q2"]
    assert q2 and all(t.status == "failed" for t in q2)
    assert all("`answer` is not answered yet" in t.message for t in q2), [t.message for t in q2]
    assert not any("EncodeError" in t.message for t in result.tests)
    assert any(t.status == "passed" for t in result.tests if t.question != "q2")


def test_the_trusted_namespace_says_the_same() -> None:
    import pytest

    from autograder.errors import NotAnswered
    from autograder.grading.runner import TrustedNamespace
    with pytest.raises(NotAnswered, match="not answered yet"):
        TrustedNamespace({"answer": ...}).resolve("answer", "cpu")


def test_a_parameter_with_a_default_is_optional_and_the_others_required() -> None:
    """A hidden test may take a name it only consults (q6's weights3_causal looks at causal_mask to say
    which answer is wrong): a notebook without it, or with it unanswered, still earns the test's points."""
    import inspect

    from autograder.grading.hidden import HiddenTestCase
    from autograder.grading.runner import TrustedNamespace, run_tests

    seen: list[object] = []

    def test_answer(answer, helper=None):
        seen.append(helper)
        assert answer == 42

    case = HiddenTestCase(question="q1", name="test_answer", points=1, hidden=True, func=test_answer,
                          params=tuple(inspect.signature(test_answer).parameters), optional=("helper",))
    for values in ({"answer": 42}, {"answer": 42, "helper": ...}, {"answer": 42, "helper": 7}):
        [report] = run_tests([case], TrustedNamespace(values), seed=0)
        assert report.status == "passed", (values, report.message)
    assert seen == [None, None, 7]
    [report] = run_tests([case], TrustedNamespace({"helper": 7}), seed=0)     # the required one is missing
    assert report.status == "failed" and "`answer` is not defined" in report.message


def test_the_loader_reads_defaults_as_optional(tmp_path: Path) -> None:
    from autograder.grading.hidden import load_test_file
    (tmp_path / "assignments" / "a" / "hidden").mkdir(parents=True)
    path = tmp_path / "assignments" / "a" / "hidden" / "q1.py"
    path.write_text("from otter.test_files import test_case\nname = 'q1'\n\n"
                    "@test_case(points=1)\ndef test_x(f, g=None, rng=None):\n    pass\n")
    [case] = load_test_file(path, tmp_path)
    assert case.params == ("f", "g", "rng") and case.optional == ("g", "rng")
