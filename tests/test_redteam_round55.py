"""Red-team round 55 (each test fails before its gap is closed).

- The worker's in-place check (`calls._same_tensor`, run in the student's interpreter) looks its torch methods up
  when it runs: `before == after`, `|`, `.isnan()`, `.all()`, and the copy it compares with is `t.detach().clone()`.
  A cell that rebinds one of them on `torch.Tensor` (`torch.Tensor.isnan = lambda self: torch.ones(self.shape,
  dtype=torch.bool)`, or `torch.Tensor.__or__`, or `torch.Tensor.clone = lambda self, *a, **k: self`) makes every
  input look unchanged: sdpa-from-scratch's inplace_on_input.ipynb (`Q /= sqrt(d_k)`) scores 19/35 and with the
  one extra line 33/35; scaled-attention's 19/28 -> 27/28; attention-pipeline's 40/42 -> 41/42. No refused spelling
  is used (the notebook names torch only). /tmp/rt55/inplace_hidden_isnan*.ipynb, /tmp/rt55/inplace_{or,clone}.ipynb.
- The worker's own report of a student exception runs `str(e)` unguarded (`worker._cell_error`, `worker._error`),
  inside its `except BaseException`: an exception whose __str__ raises (an attribute the message names was never
  set, or __str__ calling str(self): RecursionError) escapes the handler, leaves `Worker.serve` and ends the worker.
  full_marks.ipynb with one last cell `raise ShapeError()`, whose __str__ reads an unset attribute, scores 0/35
  (every answer computed in the cells before is lost: "the worker exited"); the same cell with a plain exception
  class scores 35/35. /tmp/rt55/solo/str_raises_last_cell.ipynb vs plain_raise_last_cell.ipynb.
"""
from __future__ import annotations

import nbformat
import pytest

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"

HIDE_INPLACE = {
    "isnan": "torch.Tensor.isnan = lambda self: torch.ones(self.shape, dtype=torch.bool)\n",
    "or": "torch.Tensor.__or__ = lambda a, b: torch.ones(a.shape, dtype=torch.bool)\n",
    "clone": "torch.Tensor.clone = lambda self, *a, **k: self\n",
}


@pytest.mark.parametrize("patch", sorted(HIDE_INPLACE))
def test_rebinding_torch_methods_does_not_hide_an_inplace_write(tmp_path, grader, patch):
    honest = grader.grade(EXAMPLES / "sdpa-from-scratch" / "inplace_on_input.ipynb", "sdpa-from-scratch", seed=55)
    nb = nbformat.read(EXAMPLES / "sdpa-from-scratch" / "inplace_on_input.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import torch\n" + HIDE_INPLACE[patch]))
    path = tmp_path / f"inplace_{patch}.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=55)
    gained = sorted(f"{t.question}:{t.name}" for t, h in zip(r.tests, honest.tests) if t.score > h.score)
    assert r.score <= honest.score and not gained, (r.score, honest.score, gained)


def test_the_inplace_check_sees_a_write_after_torch_methods_are_rebound():
    # the same gap without a grader: the worker's check, in an interpreter whose torch.Tensor was patched
    import torch
    from autograder.sandbox import calls

    def scale_in_place(Q):
        Q /= 2.0
        return Q

    saved = {name: torch.Tensor.__dict__.get(name) for name in ("isnan", "__or__", "clone")}
    torch.Tensor.isnan = lambda self: torch.ones(self.shape, dtype=torch.bool)   # type: ignore[method-assign]
    try:
        changed: list[str] = []
        calls.invoke(scale_in_place, [torch.randn(3, 4)], {}, "cpu", changed=changed)
    finally:
        for name, value in saved.items():
            if value is None:
                if name in torch.Tensor.__dict__:
                    delattr(torch.Tensor, name)
            else:
                setattr(torch.Tensor, name, value)
    assert changed == ["argument 0"], changed


def _with_last_cell(code: str, tmp_path, name: str):
    nb = nbformat.read(EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(code))
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


UNPRINTABLE = {
    "attribute": ("class ShapeError(Exception):\n    def __str__(self):\n"
                  "        return f'bad shape {self.shape}'   # never set: str() raises AttributeError\n"
                  "raise ShapeError()\n"),
    "recursion": "class Loop(Exception):\n    def __str__(self):\n        return str(self)\nraise Loop()\n",
    # a SyntaxError of the student's own, whose filename answers == by raising (the worker's report compared it first)
    "syntax_filename": ("class Bad:\n    def __eq__(self, other):\n        raise RuntimeError('no')\n    __hash__ = None\n"
                        "_e = SyntaxError('x')\n_e.filename = Bad()\nraise _e\n"),
}


@pytest.mark.parametrize("kind", sorted(UNPRINTABLE))
def test_an_exception_whose_str_raises_is_a_cell_error_not_the_workers_end(tmp_path, grader, kind):
    r = grader.grade(_with_last_cell(UNPRINTABLE[kind], tmp_path, f"unprintable_{kind}.ipynb"),
                     "sdpa-from-scratch", seed=55)
    lost = [f"{t.question}:{t.name}: {(t.message or '')[:80]}" for t in r.tests if t.score < t.max_score]
    assert r.score == r.max_score, lost[:5]


def test_a_called_function_whose_exception_cannot_be_printed_fails_only_its_call():
    # the worker's error reply for a graded call: built without letting the student's __str__ end the process
    from autograder.sandbox import worker

    class Unprintable(Exception):
        def __str__(self):
            raise AttributeError("shape")

    try:
        raise Unprintable()
    except Unprintable as e:
        error = worker._error(e)
        line = worker._cell_error(e, "In[1]")
    assert error["type"] == "Unprintable" and isinstance(error["message"], str)
    assert line.startswith("Unprintable")


def test_a_syntax_error_named_after_the_cell_with_an_unprintable_message_is_a_cell_error():
    # the cell's own file name is guessable ("In[N]"): a raised SyntaxError carrying it, whose msg cannot be printed
    from autograder.sandbox import worker

    class Msg:
        def __str__(self):
            raise RuntimeError("no")

    e = SyntaxError("x")
    e.filename, e.msg = "In[3]", Msg()
    line = worker._cell_error(e, "In[3]")
    assert line.startswith("SyntaxError") and "could not be printed" in line


MODE_CELL = '''import torch
from torch.overrides import TorchFunctionMode


class _Quiet(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if getattr(func, "__name__", "") in ("__eq__", "eq", "equal"):
            return True if isinstance(out, bool) else torch.ones_like(out, dtype=torch.bool)
        return out


_Quiet().__enter__()   # never left: every later torch call of the worker passes through it
'''


def test_a_mode_left_entered_does_not_hide_an_inplace_write(tmp_path, grader):
    """A cell that enters a TorchFunctionMode of its own and never leaves it sees the worker's own torch calls after
    its cells: the in-place check's == answered True everywhere would hide the write (the check runs with torch
    functions disabled, calls._NO_TORCH_FUNCTION)."""
    honest = grader.grade(EXAMPLES / "sdpa-from-scratch" / "inplace_on_input.ipynb", "sdpa-from-scratch", seed=55)
    nb = nbformat.read(EXAMPLES / "sdpa-from-scratch" / "inplace_on_input.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(MODE_CELL))
    path = tmp_path / "inplace_mode.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=55)
    gained = sorted(f"{t.question}:{t.name}" for t, h in zip(r.tests, honest.tests) if t.score > h.score)
    assert r.score <= honest.score and not gained, (r.score, honest.score, gained)
