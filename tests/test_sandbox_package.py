"""The sandbox runs the code of the grader that started it: a second copy of the package (another checkout sharing
one virtual environment, a frozen worktree measuring an older engine) starts workers from its own files, not from
the copy the environment installed, and still gets bubblewrap (`python -I -m` had imported the installed copy, which
bwrap does not bind: such a grader fell to the fallback level). Nothing else of the folder the package lies in joins
the worker's path."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

WHERE = "import autograder, sys\nprint(autograder.__file__)\nprint(sys.argv[1:])\nprint(sys.argv[0])\n"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "second_checkout"
    shutil.copytree(ROOT / "autograder", root / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "autograder" / "_where.py").write_text(WHERE)
    (root / "reference").mkdir()   # beside the package, as an editable install's folder holds the course
    (root / "reference" / "__init__.py").write_text("SECRET = 1\n")
    return root


def _in_copy(root: Path, code: str) -> str:
    r = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(root)!r})\n{code}"],
                       capture_output=True, text=True, timeout=120, cwd="/")
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_a_module_of_the_package_runs_from_the_graders_own_copy(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    out = _in_copy(root, "import subprocess\nfrom autograder.sandbox.isolation import package_module_args\n"
                         "r = subprocess.run([sys.executable, *package_module_args('autograder._where'), 'opts'],\n"
                         "                   capture_output=True, text=True)\n"
                         "print(r.stdout, r.stderr)\n")
    lines = out.splitlines()
    assert lines[0] == str(root / "autograder" / "__init__.py"), out
    assert lines[1] == "['opts']", out   # its arguments as `python -m` gives them
    assert lines[2].endswith("_where.py"), out
    probe = _in_copy(root, "import subprocess\nfrom autograder.sandbox.isolation import package_module_args\n"
                           "r = subprocess.run([sys.executable, *package_module_args('autograder._where')[:-1],\n"
                           "                    'reference'], capture_output=True, text=True)\n"
                           "print(r.returncode)\n")
    assert probe.strip() != "0", "the folder the package lies in joined the path: its reference was importable"


def test_a_second_copy_of_the_grader_gets_bubblewrap(tmp_path: Path) -> None:
    from autograder.sandbox.isolation import bwrap_works
    if not bwrap_works():
        pytest.skip("bubblewrap does not work on this host")
    root = _copy(tmp_path)
    out = _in_copy(root, "import autograder\nfrom autograder.sandbox.isolation import bwrap_works\n"
                         "print(autograder.__file__, bwrap_works())")
    assert out.split() == [str(root / "autograder" / "__init__.py"), "True"], out
