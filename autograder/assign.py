"""`autograder assign`: otter assign on each master notebook -> student_template/<slug>.ipynb.

otter gives fresh random cell ids on every run; we replace them with ids derived from the slug and
the cell's position, so regenerating a template is byte-for-byte reproducible."""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.config import Course
from autograder.errors import GraderError


def _otter() -> list[str]:
    exe = Path(sys.executable).with_name("otter")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "otter"]


def build_template(course: Course, slug: str) -> nbformat.NotebookNode:
    master = course.assignment_dir(slug) / f"{slug}.ipynb"
    if not master.is_file():
        raise GraderError(f"no master notebook at {master}")
    with tempfile.TemporaryDirectory(prefix="autograder-assign-") as tmp:
        proc = subprocess.run(_otter() + ["assign", str(master), str(Path(tmp) / "dist")],
                              capture_output=True, text=True, cwd=tmp)
        student = Path(tmp) / "dist" / "student" / f"{slug}.ipynb"
        if proc.returncode != 0 or not student.is_file():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise GraderError(f"otter assign failed for {slug}: {' | '.join(tail)}")
        nb = nbformat.read(student, as_version=4)
    for i, cell in enumerate(nb.cells):
        cell["id"] = hashlib.sha256(f"{slug}:{i}:{cell.get('cell_type')}".encode()).hexdigest()[:8]
    return nb


def write_template(course: Course, slug: str) -> Path:
    nb = build_template(course, slug)
    out = course.root / "student_template" / f"{slug}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".ipynb.tmp")
    nbformat.write(nb, tmp)
    shutil.move(tmp, out)
    return out
