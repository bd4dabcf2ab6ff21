"""Red-team round 65: honest students whose right notebook loses points to the sandbox or the grader's runtime.

Each test is full_marks.ipynb plus one line or cell a real class writes, and must keep full marks (repros in
/tmp/rt65/, report of round 65):

- **`torch.set_num_threads(n)` with n > 1, anywhere in the notebook.** The worker runs torch on one thread, and
  from the first graded call of an assignment with forbidden_apis it refuses new threads (round 47's seal) and runs
  no graded call while more than one thread is alive (worker._student_call, _threads_alive counts /proc/self/task).
  torch's own intra-op pool is counted as the notebook's: set in the imports cell (its threads start in the next
  cell's matmul), every graded call is refused and named `forbidden_api` ("3 thread(s) the notebook started are
  still running"): 11 / 35 sdpa, 3 / 28 scaled-attention. Set in the last cell (nothing uses it), the first graded
  op's pool start is refused under the seal and the worker dies: 4 / 35, q6-q8's plain values lost too.
- **`torch.load(..., weights_only=True)` of the student's own checkpoint** fails both static rules closed
  (source_checks.DYNAMIC_DOTTED has "torch.load"): 33 / 35, although weights_only unpickles no code.
- **`torch.jit.trace` of the graded function in a demo cell** (its result bound to another name and printed) fails
  both static rules closed (DYNAMIC_DOTTED "torch.jit"): 33 / 35; the graded name is never rebound. Not changed: the
  dynamic uses fail the rules closed notebook-wide, not by reach (docs/security.md, known limits); no test here.
- **`torch.compile` of the graded function.** Inductor needs a C++ compiler in a subprocess, which the seccomp
  filter refuses: every q5 call raises "InductorError: PermissionError: [Errno 1] Operation not permitted" or runs
  past its deadline, the worker is ended and q6-q8 are lost with it; the grade takes the whole submission_timeout_s
  (300 s against 1 s for full marks): 12 / 35.
- **A ThreadPoolExecutor over heads inside the graded multi_head_attention** (the `with` form the worker's own
  message recommends for cells): "RuntimeError: can't start new thread", raw, q8 lost (23 / 28).
- **`display(...)` without an import.** Jupyter makes `display` a builtin; the worker's namespace has a
  `get_ipython` stand-in but no `display`, so a cell that shows something before its defs stops at line 1 with
  NameError and its graded functions are never defined: 21 / 28 scaled-attention.
- **`%%writefile helpers.py` then `from helpers import ...`** (a helper module written from the notebook): intake
  drops the cell (transform_ipython: "dropped cell magic"), the import fails, every graded function using the
  helper raises NameError: 11 / 35 sdpa-from-scratch. Not changed: the static rules would have to read the
  written module as notebook source (docs/security.md, known limits); no test here.
"""
from __future__ import annotations

import nbformat
import pytest

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"


def _full_marks_with(tmp_path, slug, name, top="", end=(), replace=None):
    """full_marks.ipynb with `top` added to the imports cell, `end` cells appended, and `replace` = (first line,
    function of the source) applied to the code cell starting with that line."""
    nb = nbformat.read(EXAMPLES / slug / "full_marks.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    if top:
        imports = next(c for c in code if c.source.startswith("import math"))
        imports.source = imports.source.rstrip("\n") + "\n" + top
    if replace is not None:
        first, fn = replace
        cell = next(c for c in code if c.source.startswith(first))
        cell.source = fn(cell.source)
    for source in end:
        nb.cells.append(nbformat.v4.new_code_cell(source))
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _lost(r):
    return {f"{t.question}:{t.name}": (t.misconception, (t.message or "")[:160])
            for t in r.tests if t.score < t.max_score and t.max_score > 0 and t.device != "cuda"}


THREADS = {
    # its pool's threads start in the next cell's matmul: every graded call refused, named forbidden_api
    "imports_cell_sdpa": ("sdpa-from-scratch", "torch.set_num_threads(4)", ()),
    "imports_cell_scaled": ("scaled-attention", "torch.set_num_threads(4)", ()),
    # nothing uses it before the graded calls: the pool starts under the seal and the worker dies
    "last_cell": ("sdpa-from-scratch", "", ("torch.set_num_threads(2)\nprint(torch.get_num_threads())",)),
}


@pytest.mark.parametrize("kind", sorted(THREADS))
def test_set_num_threads_keeps_full_marks(tmp_path, grader, kind):
    slug, top, end = THREADS[kind]
    r = grader.grade(_full_marks_with(tmp_path, slug, kind, top=top, end=end), slug, seed=65)
    named = sorted({t.misconception for t in r.tests if t.misconception})
    assert r.score == r.max_score and not named, (
        f"full marks plus torch.set_num_threads ({kind}) scored {r.score} / {r.max_score}, misconceptions "
        f"{named}: torch's own thread pool is not a thread the notebook started: {_lost(r)}")


def test_loading_a_checkpoint_weights_only_keeps_the_rule_points(tmp_path, grader):
    path = _full_marks_with(tmp_path, "sdpa-from-scratch", "torch_load", end=(
        "torch.save({'Q': Q}, 'ckpt.pt')\nprint(torch.load('ckpt.pt', weights_only=True)['Q'].shape)",))
    r = grader.grade(path, "sdpa-from-scratch", seed=65)
    assert r.score == r.max_score, (
        f"full marks plus torch.load(..., weights_only=True) of the notebook's own checkpoint scored "
        f"{r.score} / {r.max_score}: weights_only loads no code: {_lost(r)}")


def test_torch_compile_of_the_graded_function_keeps_full_marks(tmp_path, course):
    from autograder.config import Course
    from autograder.grading.grader import Grader
    # a shorter budget than grading.yml's 300 s, so that today's failure costs this test ~20 s, not 5 minutes;
    # full marks grade in ~1 s
    limits = course.config.limits.model_copy(update={"submission_timeout_s": 15})
    short = Course(course.root, course.config.model_copy(update={"limits": limits}))
    path = _full_marks_with(tmp_path, "sdpa-from-scratch", "compiled", replace=(
        "def scaled_dot_product_attention",
        lambda s: s + "\n\nscaled_dot_product_attention = torch.compile(scaled_dot_product_attention)\n"))
    with Grader(short) as g:
        r = g.grade(path, "sdpa-from-scratch", seed=65)
    assert r.score == r.max_score, (
        f"full marks with `f = torch.compile(f)` scored {r.score} / {r.max_score}: the worker cannot start "
        f"Inductor's compiler; a compiled function should run as its Python code does: {_lost(r)}")


def test_a_thread_pool_over_heads_in_the_graded_function_is_told_in_words(tmp_path, grader):
    """Kept refused (the forbidden-API guard is a torch function mode, per thread: round 47's seal), but told: the
    raw "RuntimeError: can't start new thread" is named graded_call_starts_thread, and only q8 loses points."""
    def threaded(source):
        return "from concurrent.futures import ThreadPoolExecutor\n\n" + source.replace(
            "    heads = []\n    for h in range(n_heads):\n        cols = slice(h * d_k, (h + 1) * d_k)\n"
            "        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)\n        heads.append(out_h)\n",
            "    def one(h):\n        cols = slice(h * d_k, (h + 1) * d_k)\n"
            "        return attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0]\n"
            "    with ThreadPoolExecutor(max_workers=n_heads) as ex:\n        heads = list(ex.map(one, range(n_heads)))\n")
    path = _full_marks_with(tmp_path, "scaled-attention", "mha_threads",
                            replace=("def multi_head_attention", threaded))
    assert "ThreadPoolExecutor(max_workers" in path.read_text()
    r = grader.grade(path, "scaled-attention", seed=65)
    lost = [t for t in r.tests if t.score < t.max_score]
    assert lost and {t.question for t in lost} == {"q8"}, _lost(r)
    assert all(t.misconception == "graded_call_starts_thread" for t in lost), _lost(r)


def test_display_without_an_import_keeps_full_marks(tmp_path, grader):
    path = _full_marks_with(tmp_path, "scaled-attention", "display_builtin", replace=(
        "def softmax_entropy",
        lambda s: "display(torch.randn(2, 3).softmax(-1))  # what softmax rows look like\n\n" + s))
    r = grader.grade(path, "scaled-attention", seed=65)
    assert r.score == r.max_score, (
        f"full marks with a `display(...)` line (a Jupyter builtin, no import) before the q4 defs scored "
        f"{r.score} / {r.max_score}: {_lost(r)}")


def test_a_debug_print_in_the_graded_function_is_no_loop(tmp_path, grader):
    """A right function that prints its weights (here with torch's full print profile, so the formatting is slow
    every time) formatted a tensor on every timed call: not_vectorised was named on right code ("replace Python
    loops"). Timed calls run with print doing nothing; the values are checked as before."""
    path = _full_marks_with(tmp_path, "sdpa-from-scratch", "debug_print", top="torch.set_printoptions(profile='full')",
                            replace=("def scaled_dot_product_attention",
                                     lambda s: s.replace("    return torch.matmul(weights, V)",
                                                         "    print(weights)\n    return torch.matmul(weights, V)")))
    assert "print(weights)" in path.read_text()
    r = grader.grade(path, "sdpa-from-scratch", seed=65)
    assert r.score == r.max_score and not any(t.misconception for t in r.tests), _lost(r)
