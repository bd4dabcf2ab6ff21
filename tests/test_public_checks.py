"""The student's side: in the generated template, `grader.check(...)` (real otter) passes every public
check once the stubs are filled (full_marks) and fails them on the untouched template, and Run All on the
untouched template reaches every check (no demo cell crashes on a stub).

These run OUR OWN notebooks unsandboxed in a child process, as a student's Jupyter would."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SLUGS = ["sdpa-from-scratch", "scaled-attention", "attention-pipeline"]

RUNNER = r"""
import json, sys, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
ns = {"__name__": "__main__"}
from autograder.grading.intake import transform_ipython
for cell in nb.cells:
    if cell.cell_type != "code" or "grader.check" in cell.source:
        continue
    try:
        exec(compile(transform_ipython(cell.source), "<cell>", "exec"), ns)
    except Exception as e:
        pass
questions = list(nb.metadata["otter"]["tests"])
passed = {}
for q in questions:
    try:  # otter checks against its caller's globals: call it from inside the notebook's namespace
        exec(f"_check_result = grader.check({q!r})", ns)
        passed[q] = bool(ns["_check_result"].passed_all_public)
    except Exception as e:
        passed[q] = False
print(json.dumps(passed))
"""


def public_checks(tmp_path, slug: str, notebook) -> dict[str, bool]:
    work = tmp_path / slug
    work.mkdir()
    target = work / f"{slug}.ipynb"
    shutil.copy(notebook, target)
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(target)], cwd=work, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("slug", SLUGS)
def test_full_marks_passes_every_public_check(tmp_path, slug):
    result = public_checks(tmp_path, slug, ROOT / "examples" / "submissions" / slug / "full_marks.ipynb")
    assert result and all(result.values()), result


@pytest.mark.parametrize("slug", SLUGS)
def test_template_fails_public_checks(tmp_path, slug):
    result = public_checks(tmp_path, slug, ROOT / "student_template" / f"{slug}.ipynb")
    assert result and not all(result.values()), result


def test_a_student_print_does_not_break_public_checks(tmp_path):
    """Public checks use otter's exception format: what a student prints is not compared."""
    import nbformat
    nb = nbformat.read(ROOT / "examples" / "submissions" / "scaled-attention" / "full_marks.ipynb", as_version=4)
    src = nbformat.v4.new_code_cell("_attention = attention\n"
                                    "def attention(Q, K, V, d_k):\n"
                                    "    print('debug: scores for', tuple(Q.shape))\n"
                                    "    return _attention(Q, K, V, d_k)")
    first_check = next(i for i, c in enumerate(nb.cells) if "grader.check" in c.source)
    nb.cells.insert(first_check, src)
    noisy = tmp_path / "noisy.ipynb"
    nbformat.write(nb, noisy)
    result = public_checks(tmp_path, "scaled-attention", noisy)
    assert result and all(result.values()), result


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
