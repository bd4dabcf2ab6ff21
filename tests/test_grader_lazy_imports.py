"""What a grader process imports while it grades wrong answers: never sympy.

torch imports sympy (over a second of CPU here) the first time some of its functions run: torch.broadcast_shapes
(through torch._refs and symbolic shapes), torch.autograd.grad given a grad_output. A diagnosis that calls one
of them makes the first wrong grade of every grader process that much slower (issue 20). checks.broadcast_shape
and checks.vector_jacobian_product give the same answers without it."""
from __future__ import annotations

import ast
import random
import subprocess
import sys

import torch

from autograder.grading.checks import broadcast_shape
from tests.conftest import ROOT

# torch functions that import sympy on first use, and what to call instead
SYMPY_ON_FIRST_USE = {"broadcast_shapes": "checks.broadcast_shape"}


def _trusted_sources() -> list:
    return sorted([*ROOT.glob("assignments/*/hidden/*.py"), *(ROOT / "autograder" / "grading").glob("*.py"),
                   *(ROOT / "reference").glob("*.py")])


def test_no_grader_code_calls_a_torch_function_that_imports_sympy():
    found = []
    for path in _trusted_sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in SYMPY_ON_FIRST_USE:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.attr} "
                             f"(use {SYMPY_ON_FIRST_USE[node.attr]})")
    assert not found, found


def test_broadcast_shape_is_torch_s_answer():
    rng = random.Random(0)
    for _ in range(2000):
        shapes = [tuple(rng.choice((1, 1, 2, 3)) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 3))]
        try:
            theirs: object = tuple(torch.broadcast_shapes(*shapes))
        except RuntimeError:
            theirs = "raises"
        try:
            ours: object = broadcast_shape(*shapes)
        except RuntimeError:
            ours = "raises"
        assert ours == theirs, shapes
    assert broadcast_shape(torch.Size([2, 1, 4]), (3, 1)) == (2, 3, 4)


def test_wrong_answers_are_diagnosed_without_importing_sympy():
    """Wrong sdpa answers whose diagnosis works out broadcast shapes (d_k from a leading axis, a crash replayed,
    a mask never applied), graded in one grader process: sympy never loaded. The control: torch's own call does
    load it in the same process, so the check means something."""
    code = """
import sys
from pathlib import Path
from autograder.config import find_course
from autograder.grading.grader import Grader
slug = 'sdpa-from-scratch'
with Grader(find_course(Path('.').resolve())) as grader:
    for name in ('scale_by_T', 'mask_ignored', 'view_on_noncontiguous', 'crash_on_mask_none'):
        result = grader.grade(Path('examples/submissions') / slug / (name + '.ipynb'), slug, seed=1)
        assert result.status == 'graded' and result.score < result.max_score, (name, result.status)
        assert 'sympy' not in sys.modules, name
import torch
torch.broadcast_shapes((2, 1), (3,))
assert 'sympy' in sys.modules
print('ok')
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]
