"""Red-team round 69: what changed in the last hour (bounded unparse, fail-closed reaches_into_grader, naming
that never raises) and the rules it sits beside.

1. A cell the grader cannot parse is taken as "never ran: it defined nothing" (source_checks._Notebook: a
   RecursionError from `parse` puts the cell in `unparsed_cells` and every source rule, reaches_into_grader
   included, skips it). But whether a cell parses depends on the interpreter's recursion limit and the stack
   depth at the call (ast.parse and compile() both allow about 3 x the limit, less what is in use), and the
   student's interpreter is not the grader's: `sys.setrecursionlimit(30000)` in one cell lets a later cell with
   a 6,000-term sum compile and RUN in the worker, while the grader's parse of it (limit 1000) fails. That cell
   may then read `sys.modules` and walk `sys._getframe().f_back` up the worker's frames: the notebook is graded
   (round 67's fail-closed `try` only covers reaches_into_grader raising, not the parse it rests on).
   Repro: /tmp/rt69/pad_reach.ipynb (weights_shape = (modules of autograder/worker seen, frames walked)).
   Points: /tmp/rt69/guard_padded.ipynb pops torch's function-mode stack (the forbidden-API guard, round 45) around
   F.scaled_dot_product_attention in a padded cell: 34/35 (guard_plain.ipynb, the same without the padding, is
   rejected; plain F.scaled_dot_product_attention gets 18/35, forbidden_api).

2. Round 65 made `print` a no-op during TIMED calls only (worker._unprinted). That is a flag any function can read
   without importing anything: `_real = print` at the cell's top level, and `print is not _real` inside the
   function is True exactly in the grader's timed calls. A Python-loop scaled_dot_product_attention that takes
   the vectorised path only then is graded 35/35 (the same loop without the switch: 34/35, not_vectorised).
   Repro: /tmp/rt69/loop_detects_timing.ipynb vs /tmp/rt69/loop_plain.ipynb.

3. Round 67 made every unparse bounded (pyparse.unparse returns TOO_DEEP instead of raising). repair._edits_of
   relied on the raise: `_Printed(fn)` raising RecursionError meant "not printed, so not searched". Now it never
   raises, so the one-edit search walks every node of an 800-term sum and unparses each (about 2-3 ms apiece, each
   running to the recursion limit and back): 13 s of the GRADER's CPU for one wrong answer (repair_submission_s is
   3), where the same answer without the padding costs 0.2 s. And the hidden test's own raw ast.unparse
   (attention-pipeline _diagnose.rank_counted_without_tolerance) raises RecursionError, which the student reads as
   the failure ("RecursionError: maximum recursion depth exceeded ...", not rank_without_tolerance).
   Repro: /tmp/rt69/rank_deep.ipynb vs /tmp/rt69/rank_plain.ipynb (attention-pipeline).
"""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell

from tests.conftest import ROOT

SDPA_FULL = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb"
PAD = "_pad = " + " + ".join(["1"] * 6000) + "\n"


def _with_cells(tmp_path: Path, name: str, cells: list[str]) -> Path:
    nb = nbformat.read(SDPA_FULL, as_version=4)
    nb.cells.extend(new_code_cell(c) for c in cells)
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


def test_a_cell_too_deep_for_the_grader_to_parse_does_not_hide_sys_modules(grader, tmp_path):
    """Today: 34/35 graded, and q1's answer shows the worker's sys.modules and frames were read (the plain
    `sys.modules` without the padding is rejected). Wanted: rejected like the plain spelling, or the cell never
    runs (the worker refuses to run a cell the grader could not read)."""
    plain = _with_cells(tmp_path, "plain.ipynb", ["import sys\nsys.setrecursionlimit(30000)",
                                                 "import sys\n_m = len(sys.modules)"])
    assert grader.grade(plain, "sdpa-from-scratch").status == "rejected"
    padded = _with_cells(tmp_path, "padded.ipynb", [
        "import sys\nsys.setrecursionlimit(30000)",
        PAD + "import sys\n_m = sorted(m for m in sys.modules if 'autograder' in m)\n"
              "weights_shape = (len(_m), 1) if _m else (4, 10, 10)"])
    result = grader.grade(padded, "sdpa-from-scratch")
    ran = [t for t in result.tests if t.name == "test_weights_shape" and t.status == "failed"]
    assert result.status == "rejected" or not ran, (
        f"a cell the grader could not parse ran in the worker and read sys.modules unchecked: {result.status}, "
        f"{result.score}, {[t.message[:120] for t in ran]}")


GUARD_POPPED = """def scaled_dot_product_attention(Q, K, V, mask=None):
    modes = []
    while torch._C._len_torch_function_stack() > 0:
        modes.append(torch._C._pop_torch_function_stack())
    try:
        return F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    finally:
        for m in reversed(modes):
            torch._C._push_on_torch_function_stack(m)
"""


def test_a_cell_too_deep_for_the_grader_to_parse_does_not_pop_the_forbidden_api_guard(grader, tmp_path):
    """Today: 34/35 for the fused kernel with the guard popped (16 points of q5's value tests gained). Wanted:
    rejected, as the same cell without the padding is."""
    nb = nbformat.read(SDPA_FULL, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.source.startswith("def scaled_dot_product_attention"))
    nb.cells[at].source = PAD + GUARD_POPPED
    nb.cells.insert(at, new_code_cell("import sys\nsys.setrecursionlimit(30000)"))
    path = tmp_path / "guard_padded.ipynb"
    nbformat.write(nb, path)
    result = grader.grade(path, "sdpa-from-scratch")
    assert result.status == "rejected" or result.score <= 19, (
        f"F.scaled_dot_product_attention with torch's function-mode stack popped, in a cell the grader could not "
        f"parse: {result.status} {result.score}/{result.max_score}")


LOOP = """
_vec = scaled_dot_product_attention

def _looped(Q, K, V, mask=None):
    lead = Q.shape[:-2]
    Qf = Q.reshape(-1, Q.shape[-2], Q.shape[-1]); Kf = K.reshape(-1, K.shape[-2], K.shape[-1])
    Vf = V.reshape(-1, V.shape[-2], V.shape[-1])
    Mf = None if mask is None else mask.expand(*lead, Q.shape[-2], K.shape[-2]).reshape(-1, Q.shape[-2], K.shape[-2])
    outs = []
    for b in range(Qf.shape[0]):
        rows = [_vec(Qf[b, i:i+1], Kf[b], Vf[b], None if Mf is None else Mf[b, i:i+1]) for i in range(Qf.shape[1])]
        outs.append(torch.cat(rows, dim=0))
    return torch.stack(outs).reshape(*lead, Q.shape[-2], V.shape[-1])

_real_print = print

def scaled_dot_product_attention(Q, K, V, mask=None):
    if print is not _real_print:      # the grader's timed calls: print is its no-op
        return _vec(Q, K, V, mask)
    return _looped(Q, K, V, mask)
"""


def test_a_loop_cannot_tell_the_timed_calls_by_print(grader, tmp_path):
    """Round 69 found 35/35 for a function that looped over every query row in every call but the timed ones (print
    was the grader's no-op only while timing). Now print is the no-op in EVERY graded call: the switch sees the same
    print in the timed calls and in every other graded call, so what is timed is what every value test checks. The
    loop path runs in none of them; a second switch that returns a wrong value wherever print is the real one shows
    it: no graded call sees the real print."""
    nb = nbformat.read(SDPA_FULL, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.source.startswith("def scaled_dot_product_attention"))
    nb.cells.insert(at + 1, new_code_cell(LOOP.replace("return _looped(Q, K, V, mask)",
                                                       "return _looped(Q, K, V, mask) + 1.0   # never graded")))
    path = tmp_path / "loop_detects_timing.ipynb"
    nbformat.write(nb, path)
    result = grader.grade(path, "sdpa-from-scratch")
    q5 = [t for t in result.tests if t.question == "q5"]
    assert q5 and all(t.status == "passed" for t in q5), (
        "a graded call saw the real print (the + 1.0 path): the timed calls can be told from the others: "
        + "; ".join(f"{t.name}: {t.message[:80]}" for t in q5 if t.status != "passed"))


PIPE_FULL = ROOT / "examples" / "submissions" / "attention-pipeline" / "full_marks.ipynb"
LESSON = ("Ql = torch.tensor([[1., 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [.5, .5, 0, 0]], "
          "dtype=torch.float64)\nKl = torch.tensor([[2., 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], "
          "[0, 0, 1, 1]], dtype=torch.float64)\nSl = Ql @ Kl.T / math.sqrt(4)\n")


def _rank_notebook(tmp_path: Path, pad: str) -> Path:
    nb = nbformat.read(PIPE_FULL, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if "rank_S_lesson = 2" in c.source)
    nb.cells[at].source = (f"max_rank_S = 8\n\n{LESSON}"
                           f"rank_S_lesson = int((torch.linalg.svdvals(Sl) + ({pad}) != 0).sum())")
    path = tmp_path / f"rank_{len(pad)}.ipynb"
    nbformat.write(nb, path)
    return path


def _grader_cpu(grader, path: Path):
    import resource
    before = resource.getrusage(resource.RUSAGE_SELF)
    result = grader.grade(path, "attention-pipeline")
    after = resource.getrusage(resource.RUSAGE_SELF)
    return result, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_a_deep_expression_does_not_cost_the_grader_seconds(grader, tmp_path):
    """Today: about 13 s of the grader process's CPU (0.2 s without the padding). Wanted: the one-edit search
    stays within repair_submission_s (3 s) however deep the expression; an unprintable function is not searched."""
    plain, plain_cpu = _grader_cpu(grader, _rank_notebook(tmp_path, "0"))
    deep, deep_cpu = _grader_cpu(grader, _rank_notebook(tmp_path, " + ".join(["0"] * 800)))
    assert plain.score == deep.score
    assert deep_cpu < plain_cpu + 3.0, (f"an 800-term sum in a wrong answer's cell cost the grader {deep_cpu:.1f} s "
                                        f"of CPU ({plain_cpu:.1f} s without it)")


def test_a_deep_expression_is_not_answered_with_the_graders_recursion_error(grader, tmp_path):
    """Today: q11's message is "RecursionError: maximum recursion depth exceeded while calling a Python object"
    (the hidden test's ast.unparse of the student's comparison), where the same answer unpadded is named
    rank_without_tolerance. Wanted: no internal error of the grader shown as the failure (named, or the generic
    message without the naming)."""
    deep = grader.grade(_rank_notebook(tmp_path, " + ".join(["0"] * 800)), "attention-pipeline")
    (rank,) = [t for t in deep.tests if t.name == "test_rank_S_lesson"]
    assert rank.status == "failed"
    assert "RecursionError" not in rank.message, rank.message[:200]


def test_honest_long_expressions_are_not_too_deep_and_a_padded_cell_is():
    """The rejection is for cells the grader's parse cannot read at all, not for long honest code: a 2000-term sum,
    a 190-deep nested list of numbers and an 800-call method chain parse here and are graded; a 6000-term sum is
    the padded cell round 69 used, and is reported (cells_too_deep, which grade rejects)."""
    from autograder.grading.source_checks import cells_too_deep
    honest = ["x = " + " + ".join(["1"] * 2000), "data = " + "[" * 190 + "1" + "]" * 190,
              "import torch\nt = torch.zeros(3)" + ".abs()" * 800]
    assert cells_too_deep(honest) == []
    assert cells_too_deep([*honest, "_pad = " + " + ".join(["1"] * 6000) + "\ny = 2"]) == [4]
