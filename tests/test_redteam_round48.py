"""Red-team round 48: the trusted side's parsers and their cost (each test fails before its gap is closed).

Every hidden test runs in the trusted grader process with no deadline of its own: the worker's limits
(`call_timeout_s`, `submission_timeout_s`) bound the student's code, not what the grader does with the
student's values afterwards. Three places there run a regular expression that backtracks on text the student
chose, so one submission holds a grader process for minutes to hours (a batch slot until the pool's task
deadline, 2 * submission_timeout_s + 120 s, after which the submission is `worker_failed`, not journaled, and
graded again, just as long, by every rerun; `autograder grade` and Gradescope's run wait until it ends):

- sdpa-from-scratch q1 (`_SHAPE_TEXT.fullmatch`, `_raise_if_string`): `weights_shape = "1" + " " * 500 + "!"`
  took the whole grade from 1.6 s to 19 s; the pattern's run of optional `\\s*`s is O(n^3)+ (400 spaces 14 s,
  800 spaces 128 s): a 3 KB string is hours. No length cap before the match (checks.py caps its own at 400).
- attention-pipeline q16 / scaled-attention q5-q7 (`raise_if_option_text`, `option_of_text`:
  `re.fullmatch(r"\\W*[A-Za-z]?\\W*", value)`): quadratic; `ans_complexity = "!" * 100000 + "ab"` took the grade
  from 2.6 s to 80 s; the string may be megabytes (a reply may be 64 MB).
- sdpa-from-scratch q7 and scaled-attention's lesson-letter check (`source_checks.lesson_cited`:
  `re.compile(rf"^\\s*{name}\\s*=", re.MULTILINE)` over every cell; `\\s` takes newlines, so each of a blank
  cell's line starts rescans the rest): a wrong letter "A" and one code cell of 450,000 newlines took the grade
  from 1.6 s to 277 s (the code-size limit, 500,000 characters, allows it).
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import nbformat

from tests.conftest import ROOT

LIMIT_S = 20


def _finishes(code: str, limit_s: float = LIMIT_S) -> str:
    """Run `code` in a fresh interpreter from the repository root; its stdout, or a failure when it runs past
    `limit_s` (the same code with the quadratic or worse pattern runs for minutes to hours)."""
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                              text=True, timeout=limit_s)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"still running after {limit_s} s: the trusted process backtracks on student text") from None
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


_CALL_HIDDEN = """
    from pathlib import Path
    from autograder.grading.hidden import load_hidden_tests
    root = Path({root!r})
    case = next(c for c in load_hidden_tests(root / "assignments" / {slug!r} / "hidden", root) if c.name == {test!r})
    try:
        case.func(**{{{param!r}: {value}}})
    except Exception as e:   # a failed test is fine; only the time is checked
        print(type(e).__name__)
    print("done")
"""


def _call_hidden(slug: str, test: str, param: str, value: str) -> str:
    return _finishes(_CALL_HIDDEN.format(root=str(ROOT), slug=slug, test=test, param=param, value=value))


def test_a_shape_written_as_text_with_many_spaces_is_read_quickly():
    # sdpa q1's _SHAPE_TEXT: "1", 3000 spaces, "!" (3 KB) backtracks for hours now
    assert "done" in _call_hidden("sdpa-from-scratch", "test_weights_shape", "weights_shape",
                                  '"1" + " " * 3000 + "!"')


def test_an_out_shape_written_as_text_with_many_spaces_is_read_quickly():
    assert "done" in _call_hidden("sdpa-from-scratch", "test_out_shape", "out_shape", '"(4" + " " * 3000 + "x"')


def test_a_long_punctuation_answer_is_read_quickly_attention_pipeline():
    # raise_if_option_text's `\W*[A-Za-z]?\W*`: 400,000 characters are ~20 minutes now
    assert "done" in _call_hidden("attention-pipeline", "test_ans_complexity", "ans_complexity",
                                  '"!" * 400_000 + "ab"')


def test_a_long_punctuation_answer_is_read_quickly_scaled_attention():
    # option_of_text, the same pattern, reached from q5's test before expect_choice
    assert "done" in _call_hidden("scaled-attention", "test_q5_answer", "q5_answer", '"!" * 400_000 + "ab"')


def test_lesson_cited_is_linear_in_a_cell_of_blank_lines():
    # `^\s*q_trap_answer\s*=` with MULTILINE: 400,000 newlines are ~4 minutes now, linear once fixed
    out = _finishes("""
        from autograder.grading.source_checks import lesson_cited
        print(lesson_cited(["q_trap_answer = 'A'  # from the lesson's quiz", "\\n" * 400_000], "q_trap_answer"))
        print(lesson_cited(["\\n" * 400_000, "x = 1"], "q_trap_answer"))
    """)
    assert out.split() == ["lesson", "None"], out


def test_a_notebook_with_a_shape_as_long_text_grades_in_seconds(tmp_path):
    # the whole path: `autograder grade` on full_marks with weights_shape a 3 KB string (hours now)
    nb = nbformat.read(ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("weights_shape ="))
    cell.source = 'weights_shape = "1" + " " * 3000 + "!"\nout_shape = (4, 10, 128)'
    path = tmp_path / "shape_text.ipynb"
    nbformat.write(nb, path)
    try:
        done = subprocess.run([str(ROOT / ".venv" / "bin" / "autograder"), "grade", str(path), "-a",
                               "sdpa-from-scratch", "--seed", "1"], cwd=ROOT, capture_output=True, text=True,
                              timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"autograder grade still running after {LIMIT_S} s") from None
    assert "Score: 34 / 35" in done.stdout, done.stdout[-1500:] + done.stderr[-1500:]


# --- the kind, not only the three patterns: any check a submission makes slow costs its own test only -------------

def _slow_check_case(burn):
    from autograder.grading.hidden import HiddenTestCase

    def test_answer(answer):
        burn(answer)
    return HiddenTestCase("q1", "test_answer", 1.0, True, test_answer, params=("answer",))


def _backtrack(answer):
    import re
    re.fullmatch(r"(a*)*b", answer)      # exponential in the answer's length: hours for 40 characters


def test_a_check_that_backtracks_on_an_answer_fails_its_test_within_the_cpu_budget():
    import time

    from autograder.grading.runner import TrustedNamespace, run_tests
    start = time.monotonic()
    reports = run_tests([_slow_check_case(_backtrack)], TrustedNamespace({"answer": "a" * 40}), seed=1,
                        check_cpu_s=1.0)
    assert time.monotonic() - start < 10
    [report] = reports
    assert report.status == "failed" and "spent over 1 s of CPU" in report.message, report


def test_the_budget_never_stops_a_test_inside_the_worker_protocol_and_is_gone_after_the_test():
    # a test that spends its budget inside the sandbox's modules (where a request waits for its reply) is stopped
    # only once it is back in its own code, and a later test in the same process has a budget of its own
    import signal
    import time

    from autograder.grading.runner import TrustedNamespace, run_tests
    inside: dict = {"__name__": "autograder.sandbox.session_stand_in", "time": time}
    exec("def spin(seconds):\n    end = time.process_time() + seconds\n    while time.process_time() < end:\n"
         "        pass\n    return 'back'", inside)
    seen: list[str] = []

    def burn(_answer):
        seen.append(inside["spin"](1.5))       # past the 1 s budget, inside "the sandbox": not interrupted there
        end = time.process_time() + 5
        while time.process_time() < end:       # back in the test's own code: stopped here
            pass
        seen.append("not stopped")
    reports = run_tests([_slow_check_case(burn), _slow_check_case(lambda a: seen.append("second ran"))],
                        TrustedNamespace({"answer": "x"}), seed=1, check_cpu_s=1.0)
    assert seen == ["back", "second ran"]
    assert [r.status for r in reports] == ["failed", "passed"]
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGPROF) in (signal.SIG_DFL, None)
