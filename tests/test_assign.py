"""`autograder assign` regenerates every committed student template byte for byte, and the templates
carry no solutions."""
from __future__ import annotations

import io

import nbformat
import pytest

from autograder.assign import build_template
from tests.conftest import ROOT

SLUGS = ["sdpa-from-scratch", "scaled-attention", "attention-pipeline"]


@pytest.mark.parametrize("slug", SLUGS)
def test_template_regenerates_byte_for_byte(course, slug):
    buf = io.StringIO()
    nbformat.write(build_template(course, slug), buf)
    committed = (ROOT / "student_template" / f"{slug}.ipynb").read_text()
    assert buf.getvalue() == committed, f"run `autograder assign {slug}` and commit the result"


@pytest.mark.parametrize("slug", SLUGS)
def test_template_has_no_solutions(slug):
    text = (ROOT / "student_template" / f"{slug}.ipynb").read_text()
    for marker in ("BEGIN SOLUTION", "# SOLUTION", "BEGIN HIDDEN", "from reference", "import reference"):
        assert marker not in text
