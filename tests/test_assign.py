"""`autograder assign` regenerates every committed student template byte for byte, and the templates
carry no solutions."""
from __future__ import annotations

import io

import nbformat
import pytest

from autograder.course.assign import build_template
from tests.conftest import ROOT, SLUGS



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


@pytest.mark.parametrize("slug", SLUGS)
def test_template_opens_with_what_to_install(slug):
    """Before the otter init cell: the otter-grader and torch versions pyproject.toml pins, and one pip line."""
    import re

    from autograder.course.assign import pinned_versions
    text = (ROOT / "pyproject.toml").read_text()
    otter = re.search(r'"otter-grader==([^"]+)"', text).group(1)
    torch = re.search(r'"torch==([^"]+)"', text).group(1)
    assert pinned_versions() == {"otter-grader": otter, "torch": torch}
    nb = nbformat.read(ROOT / "student_template" / f"{slug}.ipynb", as_version=4)
    first, init = nb.cells[0], nb.cells[1]
    assert first.cell_type == "markdown" and "otter.Notebook(" in init.source
    assert f"pip install otter-grader=={otter} torch=={torch}\n" in first.source
    assert f"otter-grader {otter}" in first.source and f"torch {torch}" in first.source
