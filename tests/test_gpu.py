"""GPU checks (`make test-gpu`): the hidden suites on CUDA with the reference and the examples.
They skip cleanly where there is no CUDA device; CI never has one."""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import torch

from autograder.runner import TrustedNamespace, run_tests

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")]

ROOT = Path(__file__).resolve().parent.parent
SLUGS = ["sdpa-from-scratch", "scaled-attention", "attention-pipeline"]


@pytest.mark.parametrize("slug", SLUGS)
def test_reference_passes_on_cuda(grader, slug):
    module = importlib.import_module("reference." + slug.replace("-", "_"))
    reports = run_tests(grader.tests(slug), TrustedNamespace(dict(vars(module)),
                                                             grader.course.settings(slug).forbidden_apis),
                        seed=3, devices=["cpu", "cuda"], gpu_points=True)
    cuda = [r for r in reports if r.device == "cuda"]
    assert cuda, "no hidden test takes a device"
    failed = [f"{r.question}:{r.name}: {r.message}" for r in cuda if r.status != "passed"]
    assert not failed, failed


@pytest.mark.parametrize("slug", SLUGS)
def test_full_marks_passes_its_cuda_cases_in_the_sandbox(grader, slug):
    assert "cuda" in grader.devices
    result = grader.grade(ROOT / "examples" / "submissions" / slug / "full_marks.ipynb", slug, seed=3)
    cuda = [t for t in result.tests if t.device == "cuda"]
    print(f"{slug}: {sum(t.status == 'passed' for t in cuda)}/{len(cuda)} CUDA cases passed")
    assert cuda and all(t.status == "passed" for t in cuda), [(t.name, t.message) for t in cuda
                                                                if t.status != "passed"]
