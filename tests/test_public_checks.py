"""The student's side: `grader.check(...)` (real otter) as a student's notebook calls it.

`autograder check` (tests/test_author_check.py, one test per assignment) already runs every public check
on full_marks.ipynb (all must pass) and on the untouched template (each question must fail one). Here:
what a student prints does not break a check, and Run All in a real Jupyter kernel on the untouched
template reaches every check (no demo cell crashes on a stub). These run OUR OWN notebooks unsandboxed
in a child process, as a student's Jupyter would."""
from __future__ import annotations

import shutil

import nbformat
import pytest

from autograder.config import find_course
from autograder.course.assign import build_template
from autograder.course.authoring import public_check_results
from tests.conftest import ROOT, SLUGS


def test_a_student_print_does_not_break_public_checks(tmp_path):
    """Public checks use otter's exception format: what a student prints is not compared."""
    slug = "scaled-attention"
    nb = nbformat.read(ROOT / "examples" / "submissions" / slug / "full_marks.ipynb", as_version=4)
    src = nbformat.v4.new_code_cell("_attention = attention\n"
                                    "def attention(Q, K, V, d_k):\n"
                                    "    print('debug: scores for', tuple(Q.shape))\n"
                                    "    return _attention(Q, K, V, d_k)")
    first_check = next(i for i, c in enumerate(nb.cells) if c.source.lstrip().startswith("grader.check("))
    nb.cells.insert(first_check, src)
    noisy = tmp_path / "noisy.ipynb"
    nbformat.write(nb, noisy)
    # the wrapper does run: the same checks fail when it returns something else (both notebooks in one
    # child process, each in a namespace of its own, as `autograder check` runs them)
    nb.cells[first_check].source = nb.cells[first_check].source.replace("return _attention(Q, K, V, d_k)",
                                                                        "return 2 * _attention(Q, K, V, d_k)")
    doubled = tmp_path / "doubled.ipynb"
    nbformat.write(nb, doubled)
    public = dict(build_template(find_course(ROOT), slug).metadata["otter"]["tests"])
    ran, ran_doubled = public_check_results([noisy, doubled], public, slug)
    assert ran["cells"] == [] and ran["checks"], ran
    assert all(check["passed"] for check in ran["checks"]), [c for c in ran["checks"] if not c["passed"]]
    assert not all(check["passed"] for check in ran_doubled["checks"] if check["question"] == "q1"), ran_doubled


@pytest.mark.parametrize("slug", SLUGS)
def test_untouched_template_runs_all_cells(tmp_path, slug):
    """Run All in a real Jupyter kernel, as a student's first try does: it stops at the first cell that
    raises. With every stub in place, no cell may raise and every `grader.check` cell must run (and fail)."""
    nbclient = pytest.importorskip("nbclient")
    import nbformat
    shutil.copy(ROOT / "student_template" / f"{slug}.ipynb", tmp_path / f"{slug}.ipynb")
    nb = nbformat.read(tmp_path / f"{slug}.ipynb", as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError:
        pass  # named below, with the cell that raised
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    raised = [f"cell {i}: {o.ename}: {o.evalue}" for i, c in code for o in c.outputs if o.output_type == "error"]
    assert not raised, raised
    checks = [(i, c) for i, c in code if "grader.check(" in c.source]
    assert checks and all(c.execution_count is not None for _, c in checks), "a check cell never ran"
    for i, c in checks:
        shown = "".join(o.get("data", {}).get("text/plain", "") for o in c.outputs)
        assert "results:" in shown, f"cell {i} printed no check results: {shown[:200]!r}"
    assert "Test case failed" in "".join(str(c.outputs) for _, c in checks)  # stubs fail their checks
