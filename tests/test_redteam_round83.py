"""Red-team round 83: the interpreter's hooks and the worker's own later work.

A cell can change process-wide state that outlives it: hooks (sys.addaudithook, gc.callbacks, signal handlers,
sys.meta_path, excepthooks, weakref finalizers), module tables, codecs, warning filters, and torch's and NumPy's
global settings. Each was tried against the worker's later work (the graded calls, the in-place check, the reply's
encoding, the naming replays, the feedback). Repros in /tmp/rt83/ (h.py grades full_marks.ipynb plus one cell or
line per variant; v1-v7.py are the variants).

- **torch's float32 matmul precision.** `torch.set_float32_matmul_precision("medium")` (the line PyTorch Lightning's
  warning asks for) in the imports cell of a right sdpa-from-scratch notebook: 32/35, q5's float32 tests off by up
  to 0.012 ("does not match the correct result in 667 of 672 entries"): on this CPU oneDNN then computes every
  float32 matmul in bfloat16 (0.2 off on a 512-term product), and the graded calls inherited it.
  `torch.backends.fp32_precision = "bf16"` and `torch.backends.mkldnn.matmul.fp32_precision = "bf16"` did the same.
  Fix: `calls.torch_defaults` (round 57's fresh-caller defaults) also sets torch's fp32 precision knobs to their
  values in the zygote before any cell ran, and puts the notebook's back after the call: 35/35.
- **torch's default device.** `torch.set_default_device("meta")` (or `torch.device("meta").__enter__()`) in a last
  cell of a right notebook: 11/35 sdpa, each graded function "is not answered yet" in the feedback though every one
  is: the worker rebuilt the grader's arguments on the notebook's default device (protocol._decode_tensor's
  `torch.empty`, `_rebuild_layout`'s `torch.empty_strided`, the timed calls' `torch.randn`) and the graded call
  made its own tensors there. A fresh caller's tensors are on the CPU (by the same code, a GPU grader would rebuild
  a CPU case's inputs on the GPU for a notebook's `torch.set_default_device("cuda")`: read, not measured, no GPU
  here). Fix: those three name the CPU, and torch_defaults makes the CPU the default device for the call where a
  cell moved it: 35/35.

Tried and holding (no test; numbers from the same harness, sdpa-from-scratch full marks, 35/35 unless said):
`warnings.simplefilter("error")`, `np.seterr(all="raise")`, `torch.autograd.set_detect_anomaly(True)`,
`torch.inference_mode().__enter__()` at module level, `torch.set_flush_denormal(True)`,
`torch.use_deterministic_algorithms(True)`, `torch.set_printoptions(...)`; a SIGALRM handler raising every 0.2 ms
(0/35, "the sandboxed worker stopped": the student's, and nothing of it crosses as the grader's);
`sys.addaudithook` filling the answer (no audited event between a call and its reply: 19/35, as a plain call).

Not fixed (docs/security.md, known limits): student code that runs while the forbidden-API guard is not
looking. A `gc.callbacks` entry (with `gc.set_threshold(1)`) or a SIGALRM handler that computes
F.scaled_dot_product_attention into the tensor the graded function returned, and an `__index__` handed to
`Q.narrow` that computes it (torch parses the arguments again inside the guard's handler, where the mode steps
aside), scored 33/35, 25/35 and 34/35 against 19/35 for a plain call; the static rule, which fails closed, took
its points from each.
"""
from __future__ import annotations

import nbformat
import pytest
import torch

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"
SDPA = "sdpa-from-scratch"


def _full_marks_with(tmp_path, slug, name, top="", end=()):
    """full_marks.ipynb with `top` added to the imports cell and `end` cells appended."""
    nb = nbformat.read(EXAMPLES / slug / "full_marks.ipynb", as_version=4)
    if top:
        imports = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("import math"))
        imports.source = imports.source.rstrip("\n") + "\n" + top
    for source in end:
        nb.cells.append(nbformat.v4.new_code_cell(source))
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _lost(r):
    return {f"{t.question}:{t.name}": (t.message or "")[:160]
            for t in r.tests if t.score < t.max_score and t.max_score > 0 and t.device != "cuda"}


PRECISION = {
    "matmul_precision_medium": "torch.set_float32_matmul_precision('medium')",
    "fp32_precision_bf16": "torch.backends.fp32_precision = 'bf16'",
}


@pytest.mark.parametrize("kind", sorted(PRECISION))
def test_float32_matmul_precision_of_a_cell_keeps_full_marks(tmp_path, grader, kind):
    r = grader.grade(_full_marks_with(tmp_path, SDPA, kind, top=PRECISION[kind]), SDPA, seed=83)
    assert r.score == r.max_score, (
        f"full marks plus {PRECISION[kind]} scored {r.score} / {r.max_score}: a graded call must run at the "
        f"float32 precision a fresh caller has: {_lost(r)}")


def test_torch_defaults_puts_fresh_fp32_precision_and_gives_the_notebooks_back():
    """The same, on any CPU (one without bfloat16 kernels computes the same either way): inside torch_defaults
    the knobs read as a fresh process's, after it as the notebook left them."""
    from autograder.sandbox import calls
    getter = torch._C._get_fp32_precision_getter
    knobs = (("generic", "all"), ("mkldnn", "all"), ("mkldnn", "matmul"), ("cuda", "matmul"))
    before = [getter(*k) for k in knobs]
    fresh = [torch.backends.fp32_precision, "none", "none", "none"]
    torch.set_float32_matmul_precision("medium")
    try:
        set_by_cell = [getter(*k) for k in knobs]
        assert set_by_cell != before
        with calls.torch_defaults():
            inside = [getter(*k) for k in knobs]
        after = [getter(*k) for k in knobs]
    finally:
        torch.set_float32_matmul_precision("highest")
        for (backend, op), value in zip(knobs, before):
            torch._C._set_fp32_precision_setter(backend, op, value)
    assert inside == fresh == before, f"inside a graded call: {inside}, a fresh process: {before}"
    assert after == set_by_cell, f"the notebook's own settings after the call: {after}, it set {set_by_cell}"


DEVICE = {
    "set_default_device": "torch.set_default_device('meta')",
    "device_entered": "torch.device('meta').__enter__()",
}


@pytest.mark.parametrize("kind", sorted(DEVICE))
def test_default_device_of_a_cell_keeps_full_marks(tmp_path, grader, kind):
    r = grader.grade(_full_marks_with(tmp_path, SDPA, kind, end=(DEVICE[kind],)), SDPA, seed=83)
    told = sorted({(t.message or "")[:80] for t in r.tests if "not answered" in (t.message or "")})
    assert r.score == r.max_score and not told, (
        f"full marks plus a last cell `{DEVICE[kind]}` scored {r.score} / {r.max_score}, told {told}: the grader's "
        f"arguments and the graded call's own tensors belong on the CPU, as a fresh caller's: {_lost(r)}")
