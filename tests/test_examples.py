"""Every assignment: the reference passes every hidden test, the template scores 0, and every sample
submission gets exactly its expected score with its misconceptions named (graded in the sandbox)."""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

from autograder.grading.runner import TrustedNamespace, run_tests
from tests.conftest import SLUGS

ROOT = Path(__file__).resolve().parent.parent


def expected_rows():
    for slug in SLUGS:
        exp = ROOT / "examples" / "submissions" / slug / "expected.yml"
        if exp.is_file():
            for name, row in (yaml.safe_load(exp.read_text()) or {}).items():
                yield pytest.param(slug, name, row, id=f"{slug}/{name}")


@pytest.mark.parametrize("slug", SLUGS)
def test_reference_passes_every_hidden_test(grader, slug):
    module = importlib.import_module("reference." + slug.replace("-", "_"))
    forbidden = grader.course.settings(slug).forbidden_apis
    reports = run_tests(grader.tests(slug), TrustedNamespace(dict(vars(module)), forbidden), seed=7)
    failed = [f"{r.question}:{r.name}: {r.message}" for r in reports if r.status != "passed"]
    assert not failed, failed
    assert sum(r.score for r in reports) == grader.max_score(slug) > 0


@pytest.mark.parametrize("slug", SLUGS)
def test_template_scores_zero(grader, slug):
    result = grader.grade(ROOT / "student_template" / f"{slug}.ipynb", slug, seed=11)
    assert result.status == "graded"
    assert result.score == 0, [t.name for t in result.tests if t.score]


@pytest.mark.parametrize("slug,name,row", list(expected_rows()))
def test_example_scores_as_expected(grader, slug, name, row):
    result = grader.grade(ROOT / "examples" / "submissions" / slug / name, slug, seed=2024)
    assert result.status == "graded"
    assert result.score == pytest.approx(row["score"]), [
        (t.name, t.score, t.message) for t in result.tests if t.status == "failed"]
    missing = set(row.get("misconceptions") or []) - set(result.misconceptions)
    assert not missing, f"feedback does not name {missing}"
    if name == "full_marks.ipynb":
        assert result.score == result.max_score
    else:
        assert result.score < result.max_score


@pytest.mark.parametrize("slug", SLUGS)
def test_every_slug_has_full_marks_and_enough_mistakes(slug):
    rows = yaml.safe_load((ROOT / "examples" / "submissions" / slug / "expected.yml").read_text())
    assert "full_marks.ipynb" in rows
    mistakes = [n for n, r in rows.items() if n != "full_marks.ipynb" and r.get("misconceptions")]
    assert len(mistakes) >= 4, "every assignment ships at least 4 wrong examples that each name a mistake"
