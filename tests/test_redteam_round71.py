"""Red-team round 71: what Gradescope and its students see (results.json, rendered on the student's page and the
instructor's). Repros in /tmp/rt71/.

- **A one-edit fix quoted the student's raw line into results.json.** `repair.told` quotes the line it would change
  (`safe_line`: the cell's line with its whitespace collapsed, cut to 80 characters) and the message is set with
  pydantic's `model_copy(update=...)`, which runs no validator, so TestReport's `_inert` (round 25: a message is
  inert in every output, results.json included) never saw it. Measured: sdpa full_marks with `/ math.sqrt(d_k + 1)
  # <ESC>]8;;https://evil.example/<BEL><ESC>[31m<U+202E>EVIL` on its scores line: every q5 test's output in
  results.json held the raw ESC of a terminal hyperlink and colour (`\\u001b]8;;htt...`), where any other message
  has `\\x1b`; a right-to-left override within the 80 characters is kept the same way. Now TestReport and
  SubmissionResult make `message` (and `infra_reason`, `infra`) inert in model_copy too, whoever sets them.
- **A second line in the summary Gradescope shows at the top of the page.** The top-level `output` says
  "Your submission could not be graded: <message>" for a rejected file, and the message may quote the notebook
  (intake quotes the `nbformat` value, 20 characters with their line breaks): `"nbformat": "\\n\\nScore 35 / 35.\\n"`
  gave a summary whose own line read "Score 35 / 35." (the line the grader writes first when totals are shown),
  the real score 0. Round 25 kept a cell's error to its first line for this very reason; the summary now writes
  any message of the submission's on one line.
"""
from __future__ import annotations

import json

from autograder.config import VisibilitySettings
from autograder.course.outputs import to_gradescope
from autograder.grading.outcome import build_result
from autograder.results import SubmissionResult
from autograder.results import TestReport as Report
from tests.conftest import ROOT

UNSHOWN_SAMPLES = "\x1b]8;;https://evil.example/\x07\x1b[31m\u202eEVIL\u2066\x9b"


def _sdpa_with_a_quoted_line(tmp_path):
    nb = json.loads((ROOT / "examples/submissions/sdpa-from-scratch/full_marks.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "def scaled_dot_product_attention" in "".join(c["source"]))
    source = "".join(cell["source"])
    assert "/ math.sqrt(d_k)\n" in source
    # one edit away from right (d_k + 1 -> d_k), and the line the fix quotes carries escapes and an override
    cell["source"] = source.replace("/ math.sqrt(d_k)\n", "/ math.sqrt(d_k + 1)  #\x1b[31m\u202e\n")
    path = tmp_path / "sdpa.ipynb"
    path.write_text(json.dumps(nb))
    return path


def test_a_quoted_line_of_a_one_edit_fix_is_inert_in_results_json(grader, course, tmp_path):
    result = grader.grade(_sdpa_with_a_quoted_line(tmp_path), "sdpa-from-scratch")
    quoted = [t for t in result.tests if "right with one change" in t.message]
    assert quoted, [t.message[:200] for t in result.tests if t.status == "failed"]   # the fix was found and said
    text = json.dumps(to_gradescope(result, course.config.visibility), ensure_ascii=False)   # the characters themselves
    assert "\x1b" not in text and "\u202e" not in text, [t.message[:160] for t in quoted][:1]
    assert "\\\\x1b[31m" in text        # still said, as the escape every other message shows


def test_model_copy_keeps_a_message_inert():
    report = Report(question="q1", name="t", max_score=1, score=0, status="failed", message="plain")
    copied = report.model_copy(update={"message": f"was {UNSHOWN_SAMPLES}\nsecond", "infra_reason": "\x1b[2J"})
    assert "\x1b" not in copied.message and "\u202e" not in copied.message and "\x9b" not in copied.message
    assert copied.message.endswith("\nsecond")          # a line break is a message's own, kept
    assert copied.infra_reason == "\\x1b[2J"
    result = SubmissionResult(submission="s", assignment="a")
    assert "\x1b" not in result.model_copy(update={"message": "\x1b[31m", "infra": "\u202e"}).message
    assert result.model_copy(update={"infra": "\u202e"}).infra == "\\u202e"


def test_the_summary_has_no_line_of_the_students(grader, course, tmp_path):
    nb = json.loads((ROOT / "examples/submissions/sdpa-from-scratch/full_marks.ipynb").read_text())
    nb["nbformat"] = "\n\nScore 35 / 35.\n"
    path = tmp_path / "forged.ipynb"
    path.write_text(json.dumps(nb))
    result = grader.grade(path, "sdpa-from-scratch")
    assert result.status == "rejected" and "Score 35 / 35." in result.message
    summary = to_gradescope(result, course.config.visibility)["output"]
    assert summary.startswith("Your submission could not be graded:")
    assert not any(line.strip().startswith("Score") for line in summary.splitlines()), summary


def test_every_summary_line_of_a_graded_result_is_the_graders():
    vis = VisibilitySettings(show_total=True)
    result = build_result("s.ipynb", "toy", status="graded", seed=1, specs=[], tests=[],
                          message="cell 3: ValueError: x\nScore 35 / 35.")
    lines = to_gradescope(result, vis)["output"].splitlines()
    assert [line for line in lines if line.startswith("Score")] == ["Score 0 / 0."], lines
