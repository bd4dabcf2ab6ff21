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
