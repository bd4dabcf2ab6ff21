"""Intake parses student bytes in the trusted process, so every step of it is bounded: in time (linear
patterns, a deadline), in memory (size and JSON item count checked before parsing) and in count (written
answers capped, and kept only for the questions grading.yml configures as manual).

The pathological notebooks run in a subprocess with a generous timeout, so a regression (a quadratic
pattern, a parse that explodes) fails the test instead of hanging the suite, and the child's own peak there
(tests/own_memory.py) measures intake alone."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading import intake
from autograder.config import AssignmentSettings, Course, CourseConfig, Limits
from autograder.errors import SubmissionError
from tests.own_memory import OWN_PEAK_MB
from autograder.grading.grader import Grader
from autograder.grading.intake import MAX_ANSWER_CHARS, MAX_ANSWERS, Submission, read_submission
from autograder.results import Isolation

BEGIN, END = "<!-- BEGIN QUESTION -->", "<!-- END QUESTION -->"


def md(src: object) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": src}


def code(src: object, outputs: list | None = None) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": src, "outputs": outputs or [], "execution_count": None}


def notebook(cells: list, metadata: object = None) -> str:
    return json.dumps({"cells": cells, "metadata": {} if metadata is None else metadata,
                       "nbformat": 4, "nbformat_minor": 4})


STREAM = {"output_type": "stream", "name": "stdout", "text": "loss 0.1\n"}

# name -> (file text, expected outcome, text the rejection must contain). Each was measured against
# the intake before these bounds: the comments say what it did then.
PATHOLOGICAL = {
    # a 300 KB markdown cell: the question-name pattern was quadratic on runs of newlines (~45 min)
    "newlines_after_begin": (notebook([md(BEGIN + "\n" * 300_000), md("answer"), md(END)]), "ok", ""),
    "spaces_after_begin": (notebook([md(BEGIN + " " * 300_000 + "x"), md(END)]), "ok", ""),
    "newline_space_runs": (notebook([md(BEGIN + "\n \t" * 100_000 + "Question"), md(END)]), "ok", ""),
    "open_begin_markers": (notebook([md("<!-- BEGIN QUESTION" * 15_000)]), "ok", ""),
    "begin_markers": (notebook([md((BEGIN + "\n") * 12_000), md(END)]), "ok", ""),
    # %timeit options were peeled off one copy of the rest of the line at a time (quadratic)
    "timeit_options": (notebook([code("%timeit " + "- " * 240_000 + "x = 1")]), "ok", ""),
    # json.loads raised RecursionError, which is not a SubmissionError
    "nested_json": ('{"cells": [], "metadata": ' + "[" * 200_000 + "]" * 200_000 + ', "nbformat": 4}',
                    "rejected", "nested too deeply"),
    "nested_json_unclosed": ('{"cells": [], "metadata": {"a": ' + "[" * 1_000_000, "rejected", "JSON items"),
    "tiny_cells": (notebook([{"cell_type": "raw", "metadata": {}, "source": ""}] * 100_000), "rejected", ""),
    "char_source_list": (notebook([code(["a"] * 1_000_000)]), "rejected", "JSON items"),
    # 3M empty dicts in the metadata: 14 s and 1.5 GB in json.loads + nbformat.from_dict
    "metadata_items": (notebook([], {"x": [{}] * 3_000_000}), "rejected", "JSON items"),
    # 100k outputs (never read): nbformat's schema check of outputs took 2-3 s
    "many_outputs": (notebook([code("x = 1", [STREAM] * 50) for _ in range(2000)]), "ok", ""),
    # static checks ast.parse the code in the trusted process: ~500 bytes of memory per byte of code
    "code_size": (notebook([code("f(a.b)\n" * 100_000)]), "rejected", "characters of code"),
    "huge_answer": (notebook([md(BEGIN + "\n**Question q3**"), md("w" * 5_000_000), md(END)]), "ok", ""),
}

CHILD = OWN_PEAK_MB + r'''
import json, sys
from pathlib import Path
from autograder.errors import SubmissionError
from autograder.grading.intake import read_submission
before = own_peak_mb()
try:
    sub = read_submission(Path(sys.argv[1]))
    out = {"outcome": "ok", "answers": {k: len(v) for k, v in sub.manual_answers.items()}}
except SubmissionError as e:
    out = {"outcome": "rejected", "message": str(e)}
out["growth_mb"] = int(own_peak_mb() - before)
print(json.dumps(out))
'''


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_notebooks_finish_quickly_in_little_memory(tmp_path: Path, name: str) -> None:
    text, expected, needle = PATHOLOGICAL[name]
    path = tmp_path / f"{name}.ipynb"
    path.write_text(text)
    assert path.stat().st_size <= Limits().notebook_mb * 2**20
    try:
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD, str(path)],
                              capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"intake of {name} ({path.stat().st_size:,} bytes) did not finish within 20 s")
    assert done.returncode == 0, f"intake of {name} raised something other than SubmissionError:\n{done.stderr[-2000:]}"
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["outcome"] == expected, out
    assert needle in out.get("message", ""), out
    assert all(n <= MAX_ANSWER_CHARS for n in out.get("answers", {}).values()), out
    assert out["growth_mb"] < 400, f"intake of {name} grew the process by {out['growth_mb']} MB"


def test_timeit_options_are_stripped_in_linear_time() -> None:
    # 4 MB of options: the old loop copied the rest of the line once per option (~70 s here)
    child = "from autograder.grading.intake import transform_ipython as t; print(t('%timeit ' + '- ' * 2_000_000 + 'x = 1'))"
    try:
        done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("stripping 2M %timeit options did not finish within 20 s")
    assert done.stdout.strip() == "x = 1", done.stderr[-1000:]


def write(tmp_path: Path, text: str, name: str = "sub.ipynb") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_answers_are_capped_in_number_and_length(tmp_path: Path) -> None:
    cells = [c for i in range(MAX_ANSWERS + 30)
             for c in (md(f"{BEGIN}\n**Question z{i}**"), md("a" * (MAX_ANSWER_CHARS + 5000)), md("b" * 9000), md(END))]
    answers = read_submission(write(tmp_path, notebook(cells))).manual_answers
    assert len(answers) == MAX_ANSWERS
    assert list(answers)[:2] == ["z0", "z1"]
    assert all(len(t) == MAX_ANSWER_CHARS and t.startswith("a") for t in answers.values())


def test_question_names_are_capped_and_found_on_a_later_line(tmp_path: Path) -> None:
    cells = [md(f"{BEGIN}\n\n\n   **Question q3** (written)"), md("Because."), md(END),
             md(f"{BEGIN}\nQuestion " + "q" * 500), md("Long."), md(END)]
    answers = read_submission(write(tmp_path, notebook(cells))).manual_answers
    assert answers["q3"] == "Because."
    assert max(len(k) for k in answers) <= 100 and "Long." in answers.values()


def test_markers_past_the_scanned_prefix_are_ignored(tmp_path: Path) -> None:
    late = md("x" * (intake.MAX_SCAN_CHARS + 10) + BEGIN)
    cells = [late, md("not an answer"), md(END), md(BEGIN + "\n**Question q3**"), md("yes"), md(END)]
    assert read_submission(write(tmp_path, notebook(cells))).manual_answers == {"q3": "yes"}


def test_intake_has_a_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, notebook([code("x = 1"), md(BEGIN), md("a"), md(END)]))
    assert read_submission(path).cells == ["x = 1"]
    monkeypatch.setattr(intake, "INTAKE_TIMEOUT_S", -1.0)
    with pytest.raises(SubmissionError, match="took more than"):
        read_submission(path)


def test_outputs_are_neither_validated_nor_read(tmp_path: Path) -> None:
    odd = {"output_type": "no-such-type", "data": {"x": [{}] * 10}}
    sub = read_submission(write(tmp_path, notebook([code("y = 2", [odd, STREAM])])))
    assert sub.cells == ["y = 2"]


def test_code_size_is_capped_for_python_files_too(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match="characters of code"):
        read_submission(write(tmp_path, "x = 1\n" * (intake.MAX_CODE_CHARS // 6 + 1), "sub.py"))
    assert read_submission(write(tmp_path, "x = 1\n", "ok.py")).cells == ["x = 1\n"]


@pytest.mark.parametrize("line,expected", [
    ("%timeit -n 10 -r 3 z = 3", "z = 3"), ("%timeit -n10 x", "x"), ("%timeit -q -o f(x)", "f(x)"),
    ("%timeit -p 3 -n 5 g()", "g()"), ("%time y = 2", "y = 2"), ("%time ", ""),
    ("%timeit " + "-q " * 10_000 + "x = 1", "x = 1"),
])
def test_timed_statements(line: str, expected: str) -> None:
    assert intake.transform_ipython(line) == expected


# --- the grader keeps written answers only for configured questions ------------------------------
def grader_for(tmp_path: Path, manual: list[str]) -> Grader:
    (tmp_path / "assignments" / "hw" / "hidden").mkdir(parents=True)
    config = CourseConfig(assignments={"hw": AssignmentSettings(manual=manual)})
    return Grader(Course(tmp_path, config), isolation=Isolation.rlimits)


def answers(grader: Grader, found: dict[str, str]) -> list[tuple[str, str]]:
    sub = Submission(path=Path("s.ipynb"), cells=[], manual_answers=found)
    return [(m.question, m.text) for m in grader._manual("hw", sub)]


def test_unconfigured_answers_are_dropped(tmp_path: Path) -> None:
    found = {f"x{i}": "blah " * 1000 for i in range(630)}
    assert answers(grader_for(tmp_path, []), found) == []


def test_at_most_one_answer_per_configured_question(tmp_path: Path) -> None:
    grader = grader_for(tmp_path, ["q3", "q7"])
    found = {f"x{i}": f"text {i}" for i in range(630)}
    assert answers(grader, found) == [("q3", "text 0"), ("q7", "text 1")]


def test_named_answers_go_to_their_question_and_the_rest_fill_in_order(tmp_path: Path) -> None:
    grader = grader_for(tmp_path, ["q3", "q7", "q9"])
    found = {"manual1": "unnamed", "q7": "seven", "q12": "not configured"}
    assert answers(grader, found) == [("q3", "unnamed"), ("q7", "seven"), ("q9", "not configured")]
    assert answers(grader, {"q9": "nine"}) == [("q9", "nine")]
