"""Red-team round 88: notebooks written on a GPU machine (Colab, Kaggle, a lab's server) and graded on a CPU one.

Repros in /tmp/rt88/ (v1.py adds 31 GPU habits to the imports cell of examples/submissions/sdpa-from-scratch/
full_marks.ipynb, v2.py rewrites one cell or graded function as a GPU machine's student writes it, v3.py is the
hostile side on a copy of the course with `devices: [cpu, cuda]` and `gpu_points: true`, errs.py lists what a CPU
torch 2.13 says for each CUDA-only call). What held: the guarded habits (`device = torch.device("cuda" if
torch.cuda.is_available() else "cpu")`, cudnn flags, `torch.cuda.manual_seed_all`, `empty_cache`, `%env
CUDA_VISIBLE_DEVICES=0`, `!nvidia-smi`, `torch.cuda.amp.autocast()` as a decorator or a `with`, GradScaler) keep full
marks, and a notebook that patches `torch.cuda.is_available`, `device_count`, `Tensor.cuda`/`Tensor.to` or the
environment changes neither which tests run nor their points (the trusted process asks torch itself: Grader.devices).

- **A GPU-only call the CPU cannot make was reported as raw CUDA text, or blamed on the wrong thing.** In a graded
  function or in the cell that defines it, `.pin_memory()` ("Cannot access accelerator device when none is
  available."), `torch.cuda.Event(...)` ("Tried to instantiate dummy base class Event"), `torch.cuda.Stream()`,
  `torch.cuda.set_device(0)` ("module 'torch._C' has no attribute '_cuda_setDevice'") and
  `torch.Generator(device="cuda")` lost their points with torch's words and no name (31/35, 19/35 ...): nothing said
  the grading machine has no GPU. `torch.cuda.synchronize()` or `torch.cuda.current_stream()` ("Torch not compiled
  with CUDA enabled") was named device_hard_coded, "putting a new tensor on the GPU by name (device="cuda", .cuda())",
  which the student's line does not do. Measured by grading each (v2.py: sdpa_sync 19/35, pin_before_def 31/35,
  set_device_before 19/35, timing_cell_first 11/35, sync_before_def 31/35 named device_hard_coded). Now
  crash_words names `cuda_call_without_gpu` ("the grading machine has no GPU ...; guard it with `if
  torch.cuda.is_available():`") from torch's own words for such calls, and from the crashed line (in the graded call's
  traceback, or the "(line N)" of the cell that stopped) where the words are the shared "Torch not compiled with CUDA
  enabled"; a line that puts a tensor on the GPU stays device_hard_coded, whose text now says the grading machine has
  no GPU too. The points are unchanged: the code does not run on the CPU.
- **Torch's own assert was called the student's.** scaled-attention q1's `_diagnose.own_assert` took any AssertionError
  of the student's call for an `assert` of theirs: `torch.cuda.synchronize()` in `attention` (torch raises
  AssertionError in torch.cuda's _lazy_init) was told "your own assert failed (line 522 of `_lazy_init`): the assert
  in your code, not the grader's" (/tmp/rt88/v4.py, 19/28, one_edit_fix). It now claims the assert only where the
  traceback's innermost frame is the notebook's (a cell, not a module's .py file), so the crash is named
  cuda_call_without_gpu as above.
"""
from __future__ import annotations

import json

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.crash_words import crash_words
from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
NO_GPU = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU's words for CUDA-only calls")


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _graded(tmp_path, grader, start: str, old: str, new: str):
    nb = json.loads((ROOT / "examples" / "submissions" / SLUG / "full_marks.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and _source(c).startswith(start))
    assert old in _source(cell)
    cell["source"] = _source(cell).replace(old, new, 1)
    path = tmp_path / "gpu_habit.ipynb"
    path.write_text(json.dumps(nb))
    return grader.grade(path, SLUG, seed=88)


def _lost(r, question: str) -> list:
    lost = [t for t in r.tests if t.question == question and t.score < t.max_score]
    assert lost, (question, r.score)
    return lost


def _raised(slip) -> StudentCodeError:
    try:
        slip()
    except Exception as e:  # noqa: BLE001 - the student's crash, as the sandbox reports it
        return StudentCodeError(type(e).__name__, str(e))
    raise AssertionError("the CUDA-only call ran on this machine")


@NO_GPU
@pytest.mark.parametrize("slip", [lambda: torch.ones(2).pin_memory(), lambda: torch.empty(2, pin_memory=True),
                                  lambda: torch.cuda.Event(enable_timing=True), lambda: torch.cuda.Stream(),
                                  lambda: torch.cuda.set_device(0), lambda: torch.Generator(device="cuda")],
                         ids=["pin_memory", "pin_memory_kw", "Event", "Stream", "set_device", "Generator"])
def test_a_cuda_only_call_is_named_from_its_own_words(slip):
    e = _raised(slip)
    named = crash_words(e)
    assert named is not None and named.key == "cuda_call_without_gpu", (e.message, named)
    assert "grading machine has no GPU" in str(named)
    quoted = crash_words(AssertionError(f"your code raised {e}"))
    assert quoted is not None and quoted.key == "cuda_call_without_gpu"


@NO_GPU
def test_synchronize_in_a_graded_function_is_not_called_a_tensor_put_on_the_gpu(tmp_path, grader):
    r = _graded(tmp_path, grader, "def scaled_dot_product_attention", "    return torch.matmul(weights, V)",
                "    torch.cuda.synchronize()\n    return torch.matmul(weights, V)")
    for t in _lost(r, "q5"):
        assert t.misconception == "cuda_call_without_gpu", (t.name, t.misconception, t.message[:300])
        assert "grading machine has no GPU" in t.message and "torch.cuda.is_available()" in t.message


@NO_GPU
@pytest.mark.parametrize("line", ["torch.cuda.synchronize()", "x = torch.randn(4).pin_memory()", "torch.cuda.set_device(0)",
                                  "start = torch.cuda.Event(enable_timing=True)"])
def test_a_cuda_only_call_above_a_def_names_the_missing_function(tmp_path, grader, line):
    r = _graded(tmp_path, grader, "def causal_mask", "def causal_mask", f"{line}\ndef causal_mask")
    for t in _lost(r, "q4"):
        assert t.misconception == "cuda_call_without_gpu", (t.name, t.misconception, t.message[:300])
        assert "grading machine has no GPU" in t.message


@NO_GPU
def test_a_tensor_put_on_the_gpu_by_name_stays_device_hard_coded_and_says_why(tmp_path, grader):
    r = _graded(tmp_path, grader, "def causal_mask", "rows = torch.arange(T_q).unsqueeze(1)",
                'rows = torch.arange(T_q, device="cuda").unsqueeze(1)')
    for t in _lost(r, "q4"):
        assert t.misconception == "device_hard_coded", (t.name, t.misconception, t.message[:300])
        assert "grading machine has no GPU" in t.message


def test_a_guarded_gpu_notebook_keeps_full_marks(tmp_path, grader):
    r = _graded(tmp_path, grader, "def scaled_dot_product_attention", "    return torch.matmul(weights, V)",
                "    if torch.cuda.is_available():\n        torch.cuda.synchronize()\n    return torch.matmul(weights, V)")
    assert r.status == "graded" and r.score == r.max_score, (r.score, r.message[:300])


@NO_GPU
def test_torchs_own_assert_is_not_called_the_students_assert(tmp_path, grader):
    # scaled-attention's `attention` with a GPU-only call: torch raises AssertionError inside its _lazy_init
    nb = json.loads((ROOT / "examples" / "submissions" / "scaled-attention" / "full_marks.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and "def attention(" in _source(c))
    assert "    scores = Q @ K.T" in _source(cell)
    cell["source"] = _source(cell).replace("    scores = Q @ K.T", "    torch.cuda.synchronize()\n    scores = Q @ K.T", 1)
    path = tmp_path / "gpu_habit.ipynb"
    path.write_text(json.dumps(nb))
    r = grader.grade(path, "scaled-attention", seed=88)
    lost = [t for t in r.tests if t.score < t.max_score]
    assert lost and not any("your own assert" in t.message for t in lost), [t.message[:200] for t in lost]
    assert any(t.misconception == "cuda_call_without_gpu" for t in lost), [(t.misconception, t.message[:200]) for t in lost]
