"""`autograder assign`: otter assign on each master notebook -> student_template/<slug>.ipynb.

The template opens with a note saying what to install, with the otter-grader and torch versions pinned
in pyproject.toml (read at build time: one place to change them). otter gives fresh random cell ids on
every run; we replace them with ids derived from the slug and the cell's position, so regenerating a
template is byte-for-byte reproducible."""
from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.config import Course
from autograder.course.atomic import write_atomic
from autograder.errors import GraderError


def _otter() -> list[str]:
    exe = Path(sys.executable).with_name("otter")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "otter"]


PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
STUDENT_PACKAGES = ("otter-grader", "torch")  # what the template imports besides the standard library


def pinned_versions(pyproject: Path = PYPROJECT) -> dict[str, str]:
    """{"otter-grader": "7.0.0", "torch": "2.13.0"}: the `==` pins of the grader's own dependencies, from
    pyproject.toml (or, for an installed copy without it, from the installed package's metadata)."""
    if pyproject.is_file():
        try:
            import tomllib
            deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
        except ModuleNotFoundError:  # Python 3.10: the dependency strings, read plainly
            block = pyproject.read_text().split("dependencies = [", 1)[-1].split("]", 1)[0]
            deps = re.findall(r'"([^"]+)"', block)
    else:
        from importlib.metadata import requires
        deps = requires("attention-autograder") or []
    pins = {}
    for dep in deps:
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s;,]+)\s*", dep)
        if m and m.group(1).lower() in STUDENT_PACKAGES:
            pins[m.group(1).lower()] = m.group(2)
    missing = [name for name in STUDENT_PACKAGES if name not in pins]
    if missing:
        raise GraderError(f"pyproject.toml pins no version of {', '.join(missing)} (want `name==X.Y.Z`)")
    return pins


def install_note(pins: dict[str, str]) -> str:
    """The template's first cell: what a student installs before running anything."""
    line = " ".join(f"{name}=={pins[name]}" for name in STUDENT_PACKAGES)
    return (
        f"**Before you start: install what this notebook needs.** It uses otter-grader {pins['otter-grader']} "
        f"(for the `grader.check(...)` cells) and torch {pins['torch']}, the versions the grader uses. "
        "Run this once, in a terminal:\n"
        "\n"
        "```\n"
        f"pip install {line}\n"
        "```\n"
        "\n"
        f"or in a notebook cell (Colab, or Jupyter) as `%pip install {line}`, then restart the kernel. "
        "A GPU is not needed. On Linux without a GPU, plain pip fetches torch's multi-GB CUDA build; "
        "the small CPU build comes from PyTorch's CPU index: "
        f"`pip install torch=={pins['torch']} --index-url https://download.pytorch.org/whl/cpu`, then the line above.")


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
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(install_note(pinned_versions())))
    for i, cell in enumerate(nb.cells):
        cell["id"] = hashlib.sha256(f"{slug}:{i}:{cell.get('cell_type')}".encode()).hexdigest()[:8]
    return nb


def write_template(course: Course, slug: str) -> Path:
    nb = build_template(course, slug)
    out = course.root / "student_template" / f"{slug}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    # a temporary file of this run's own, renamed over: the fixed `<slug>.ipynb.tmp` two runs at once shared (two CI
    # jobs, a test run beside the instructor's) made one move a file the other had moved away, a traceback
    # (FileNotFoundError) 16 times in 600 (red-team round 112). The bytes nbformat.write gives.
    text = nbformat.writes(nb)
    write_atomic(out, text if text.endswith("\n") else text + "\n")
    return out
