"""The grader's level for a CUDA course (Grader._level_for_cuda), without a GPU.

Measured on an H200 (2026-12-04, bench/gpu_check.sh): CUDA initialised in fallback workers and failed in
bwrap's ("Error 304: OS call failed"), so a class graded there had every CUDA case not run. That cause
is mended (worker.CUDA_NEEDS_PROC; "os_standin" makes the same request and now starts at bwrap); the
move stays for the next. The stand-in "os_standin_no_userns" fails inside any user namespace and works
at the fallback level: the grader, as root, with bwrap chosen by itself, moves to fallback and says so;
a level asked for is kept; a stand-in that works at bwrap keeps bwrap; a course or machine without CUDA
starts no probe."""
from __future__ import annotations

import os

import pytest

from autograder.results import Isolation
from autograder.sandbox.gpu import CudaSlots
from autograder.sandbox.isolation import bwrap_works
from autograder.sandbox.session import SandboxPolicy
from tests.test_cuda_policy import cuda_course

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or os.environ.get("AUTOGRADER_ISOLATION") is not None,
                                reason="moving from bwrap to fallback needs root and a level left to choose")


@pytest.fixture
def make_grader(monkeypatch, tmp_path):
    import torch

    import autograder.grading.grader as grading
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the stand-in is not what its workers run")
    if not bwrap_works():
        pytest.skip("bwrap is not usable here")
    made = []

    def make(cuda_init: str, gpu: bool = True, isolation: Isolation | None = None) -> "grading.Grader":
        monkeypatch.setattr(grading, "cuda_available", lambda: gpu)
        grader = grading.Grader(cuda_course(), isolation=isolation)
        grader.cuda_init = cuda_init  # type: ignore[assignment]
        grader._cuda_slots = CudaSlots(2, tmp_path / f"slots{len(made)}")   # not shared with anything else
        made.append(grader)
        return grader
    yield make
    for grader in made:
        grader.close()


def test_cuda_failing_in_bwrap_workers_moves_the_grader_to_fallback_and_says_so(make_grader, capsys):
    grader = make_grader("os_standin_no_userns")
    assert grader.zygote.isolation is Isolation.fallback and grader.isolation is Isolation.fallback
    err = capsys.readouterr().err
    assert err.count("note: sandbox level bwrap left for fallback") == 1 and "Error 304" in err
    session = grader.zygote.spawn(SandboxPolicy(cuda=True, cuda_init="os_standin_no_userns"))
    try:
        assert session.facts["cuda_ready"] and "user" not in session.facts["namespaces"]
    finally:
        session.close(wait=True)
    assert grader.policy("toy").cuda_init == "os_standin_no_userns"


def test_cuda_that_initialises_in_bwrap_keeps_bwrap(make_grader, capsys):
    grader = make_grader("os_standin")
    assert grader.zygote.isolation is Isolation.bwrap
    assert "left for fallback" not in capsys.readouterr().err


def test_a_level_asked_for_is_kept_even_where_cuda_fails_in_it(make_grader, capsys):
    grader = make_grader("os_standin_no_userns", isolation=Isolation.bwrap)
    assert grader.zygote.isolation is Isolation.bwrap
    assert "left for fallback" not in capsys.readouterr().err


def test_without_a_gpu_no_cuda_worker_is_started(make_grader, monkeypatch):
    grader = make_grader("os_standin_no_userns", gpu=False)
    started = []
    monkeypatch.setattr(type(grader), "_cuda_starts", lambda self, z: started.append(z) or (False, "x"))
    assert grader.zygote.isolation is Isolation.bwrap and not started
