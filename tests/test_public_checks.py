"""The student's side: in the generated template, `grader.check(...)` (real otter) passes every public
check once the stubs are filled (full_marks) and fails them on the untouched template.

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
from autograder.intake import transform_ipython
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
