"""Red-team round 66: what changed on 2026-12-05 (rounds 61-65's fixes, naming round 52).

Repros in /tmp/rt66/ (report of round 66):

- **attention-pipeline q16's caret_is_xor replay (`_diagnose._ArithReplay`) runs a student's answer cell as
  arithmetic IN THE GRADER, with bounds that do not hold.** Two ways a student's answer cell diverges from
  Python there:
  * `BoolOp` evaluates every operand (no short-circuit), so `ans_complexity = "c" or <anything>` makes the grader
    evaluate what Python never did;
  * `round(5, -N)` is in `_PURE` with no bound on its ndigits (an int constant and a unary minus are never passed
    through `_num`): CPython computes 10 ** N for it. N = 2e7: 32 s of the grader's CPU, the right "c" failed
    "over 30 s of CPU"; N = 5e7 or 1e9: only check_cpu_s (30 s, ITIMER_PROF, caught by long_pow's signal checks)
    stops it: 30 s of CPU, 75-80 s of wall time on a loaded host and ~330 MB in the trusted process per submission,
    where the replay's own bound (5000 steps, |x| <= 1e30) was meant to keep it to milliseconds.
  * the replay's unary minus is not checked either: `"c" or -max("a", "b")` raises TypeError in the grader, and
    a right answer ("c", what Python computes) loses its point with "TypeError: bad operand type for unary -".
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import nbformat

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"
PIPELINE = ROOT / "assignments" / "attention-pipeline" / "hidden" / "_diagnose.py"


def _full_marks_q16(tmp_path, name, source):
    """attention-pipeline's full_marks.ipynb with q16's answer cell (`ans_complexity = "c"`) replaced."""
    nb = nbformat.read(EXAMPLES / "attention-pipeline" / "full_marks.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.strip() == 'ans_complexity = "c"')
    cell.source = source
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def test_caret_replay_of_a_huge_round_is_bounded():
    """`"c" or round(5, -10**9)` is "c" in Python (short-circuit); the grader's replay must not compute 10**1e9."""
    cell = 'T = 4\nd_k = 8\ncost = T ^ 2 * d_k\nans_complexity = "c" or round(5, -1000000000)'
    code = textwrap.dedent(f"""
        import importlib.util, sys
        sys.path.insert(0, {str(ROOT)!r})
        from autograder.grading.runner import SubmissionInfo
        spec = importlib.util.spec_from_file_location("rt66_diagnose", {str(PIPELINE)!r})
        D = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(D)
        cell = {cell!r}
        sub = SubmissionInfo(source=cell, cells=(cell,))
        try:
            D.raise_if_caret_for_power("c", sub)
        except D.Misconception:
            pass
        print("done")
    """)
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=15, cwd=ROOT)
    except subprocess.TimeoutExpired:
        raise AssertionError("q16's caret_is_xor replay of `ans_complexity = \"c\" or round(5, -1000000000)` ran "
                             "past 15 s (CPython computes 10 ** 1e9 for it; in a grade only check_cpu_s's 30 s stops "
                             "it, and the right answer fails): _ArithReplay must bound round()'s ndigits "
                             "(and evaluate `or`/`and` as Python does)") from None
    assert done.returncode == 0 and "done" in done.stdout, done.stderr[-2000:]


def test_caret_replay_type_error_keeps_a_right_answer(tmp_path, grader):
    """`"c" or -max("a", "b")` is "c" in Python; the replay evaluates the right operand and raises TypeError."""
    path = _full_marks_q16(tmp_path, "caret_typeerror",
                           'T = 4\nd_k = 8\ncost = T ^ 2 * d_k\nans_complexity = "c" or -max("a", "b")')
    r = grader.grade(path, "attention-pipeline", seed=66)
    lost = {f"{t.question}:{t.name}": (t.message or "")[:160]
            for t in r.tests if t.score < t.max_score and t.max_score > 0 and t.device != "cuda"}
    assert r.score == r.max_score, (
        f"ans_complexity is \"c\" (right) but scored {r.score} / {r.max_score}: the grader's own replay of the "
        f"answer cell raised: {lost}")


def test_caret_replay_raises_nothing_but_its_own(tmp_path):
    """The replay's own helper: a cell it cannot follow is None (not replayed), never an exception."""
    import importlib.util

    from autograder.grading.runner import SubmissionInfo
    spec = importlib.util.spec_from_file_location("rt66_diagnose_direct", PIPELINE)
    D = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(D)
    for cell in ('T = 4\ncost = T ^ 2\nans_complexity = "c" or -max("a", "b")',
                 'T = 4\ncost = T ^ 2\nans_complexity = "c" or +max("a", "b")',
                 'def f():\n    return 1\nT = 4\ncost = T ^ 2\nans_complexity = "c" or (f < 1)'):
        sub = SubmissionInfo(source=cell, cells=(cell,))
        D.caret_between_numbers(sub, "ans_complexity")   # raises TypeError today
