"""Diagnosis first (issue 21): failures grouped by the mistake that explains them, on the terminal, the
feedback page and the class report; failures no mistake explains said once; passed tests folded per
question; the per-test table kept behind --all / a collapsed <details>; student text inert throughout."""
from __future__ import annotations

import io
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

from autograder.grading.diagnosis import diagnose, fold_passed, split_example
from autograder.course.feedback import feedback_name, render_feedback
from autograder.course.outputs import print_table
from autograder.course.report import class_diagnosis, write_report
from autograder.results import Isolation, SubmissionResult
from autograder.results import TestReport as Report
from tests.conftest import FIXTURE_SUBS, ROOT
from tests.test_cli import cli

DIVIDE_BY_DK = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "divide_by_dk.ipynb"
HEADS = ("The smallest input of this kind that still fails:",
         "A smaller input of this kind that still fails (could not shrink further):",
         "The input (could not shrink further):", "The input (no smaller one of this kind fails the same way):")
# what may reach a terminal: no control character, bidi control or lone surrogate (newlines drawn by rich)
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                       "\u2066-\u2069\ud800-\udfff]")


@pytest.fixture(scope="module")
def divide_by_dk(course) -> SubmissionResult:
    """One real grade of the wrong scale: every value case of scaled_dot_product_attention fails. A grader of
    its own: the session's `grader` may have been given a (fake) GPU by another test on this worker, whose
    CUDA cases then fail here (make test, 2026-12-02 evening)."""
    from autograder.grading.grader import Grader
    with Grader(course) as grader:
        return grader.grade(DIVIDE_BY_DK, "sdpa-from-scratch", seed=3)


def terminal(result: SubmissionResult, *, all_tests: bool = False, width: int = 120) -> str:
    buf = io.StringIO()
    print_table(result, Console(file=buf, width=width, color_system=None, highlight=False, emoji=False),
                all_tests=all_tests)
    return buf.getvalue()


def example(n: int, values: str = "1") -> str:
    """A shrunk example as shrink.describe writes it, with `n` elements in Q."""
    return (f"{HEADS[0]}\n  Q (1, {n}, 1) float32 = [{values}]\n  K (1, 1, 1) float32 = [1]\n"
            f"  expected [[1]]\n  got      [[2]]")


def report(q: str, name: str, status: str = "failed", *, points: float = 1, message: str = "",
           misconception: str | None = None, text: str = "", **kw) -> Report:
    return Report(question=q, name=name, max_score=points, score=points if status == "passed" else 0,
                  status=status, message=message, misconception=misconception, misconception_text=text, **kw)


def submission(tests: list[Report], key: str = "s.ipynb") -> SubmissionResult:
    return SubmissionResult(submission=key, assignment="toy", tests=tests, seed=1, isolation=Isolation.rlimits,
                            max_score=sum(t.max_score for t in tests), score=sum(t.score for t in tests))


# --- one real wrong scale ------------------------------------------------------------------------------
def test_one_wrong_scale_is_one_mistake_with_its_tests_points_and_one_smallest_example(divide_by_dk):
    r = divide_by_dk
    named = [t for t in r.tests if t.status == "failed" and t.misconception == "divide_by_dk"]
    withheld = [t for t in r.tests if t.withheld_by]
    assert len(named) >= 10 and withheld, "the fixture must fail many value cases and withhold rule points"
    assert all(t.status == "passed" for t in r.tests if t not in named and t not in withheld)
    found = diagnose(r)
    assert [g.key for g in found.mistakes] == ["divide_by_dk"] and found.unexplained == []
    mistake = found.mistakes[0]
    assert mistake.tests == named and mistake.withheld == withheld
    assert mistake.lost == sum(t.max_score for t in named)
    assert mistake.cost == r.max_score - r.score              # every point lost is charged to it
    # one example, the smallest shrink found, in shrink's own words
    assert mistake.example is not None and mistake.example.text.startswith(HEADS)
    sizes = [_elements(split_example(t.message)[1]) for t in named if split_example(t.message)[1]]
    assert _elements(mistake.example.text) == min(sizes)
    assert len(sizes) == 1     # the grader searched once for the mistake, not once per test (shrink.py)

    out = terminal(r)
    assert out.count("mistake ") == 1 and "divide_by_dk" in out
    assert f"{len(named)} tests, {mistake.lost:g} points lost" in out
    assert f"{mistake.withheld_points:g} rule points withheld" in out
    assert sum(line.strip("│ ").startswith(HEADS) for line in out.splitlines()) == 1    # one example, not 13
    for t in named:                  # each test named once in the block; the example's also beside its words
        assert len(re.findall(rf"\b{t.name}\b", out)) == 1 + (t is mistake.example.test), t.name
    assert "q1–q4: all 12 tests passed" in out                 # q1..q4 all pass in this notebook
    assert "every test: --all" in out.splitlines()[-1]

    page = render_feedback(r)
    diagnosis, table = page.split('<details id="all-tests">')
    assert diagnosis.count('<section class="mistake"') == 1 and 'class="unexplained"' not in diagnosis
    assert diagnosis.count("<pre class=\"example\">") == 1
    assert diagnosis.index('id="what-went-wrong"') < diagnosis.index("<h2>What passed</h2>")
    assert table.count('<tr class="failed">') == len(named) + len(withheld)   # the full table stays, folded


def _elements(text: str) -> int:
    from math import prod
    return sum(prod(int(n) for n in m.group(1).split(", ")) for m in re.finditer(r"^\s+\S+ \(([\d, ]+)\)", text, re.M))


def test_grade_prints_the_table_only_with_all():
    plain = cli("grade", str(FIXTURE_SUBS / "no_scale.ipynb"), "-a", "toy")
    every = cli("grade", str(FIXTURE_SUBS / "no_scale.ipynb"), "-a", "toy", "--all")
    assert plain.returncode == every.returncode == 0, plain.stderr[-2000:] + every.stderr[-2000:]
    for out in (plain.stdout, every.stdout):
        assert "mistake 1: no_scale" in out and re.search(r"^Score: \d", out.splitlines()[-1])
    header = re.compile(r"┃\s*test\s*┃\s*result\s*┃\s*points\s*┃\s*why\s*┃")
    assert not header.search(plain.stdout) and header.search(every.stdout)
    assert "every test: --all" in plain.stdout and "--all" not in every.stdout


# --- constructed edge cases ----------------------------------------------------------------------------
def test_failures_no_mistake_explains_are_said_once_each():
    crash = "your function raised IndexError: too many indices"
    r = submission([
        report("q1", "test_a", message=f"{crash}\n{example(4)}"),
        report("q1", "test_b", message=f"{crash}\n{example(2)}", points=2),
        report("q2", "test_c", message=f"  {crash}\n\n{example(9)}"),    # the same words, spaced otherwise
        report("q2", "test_d", message="the output has shape (2, 3), expected (2, 4)"),
        report("q2", "test_e", "passed"),
    ])
    found = diagnose(r)
    assert found.mistakes == [] and len(found.unexplained) == 2
    first, second = found.unexplained
    assert [t.name for t in first.tests] == ["test_a", "test_b", "test_c"] and first.lost == 4
    assert first.example is not None and first.example.test.name == "test_b"          # the smallest input
    assert [t.name for t in second.tests] == ["test_d"] and second.example is None
    out = terminal(r)
    assert out.count(crash) == 1 and out.count("not explained by a known mistake") == 2
    page = render_feedback(r).split('<details id="all-tests">')[0]
    assert page.count(crash) == 1 and page.count('<section class="unexplained"') == 2


def test_one_edit_fixes_of_two_functions_are_two_mistakes_and_one_fix_is_one():
    fix_a = "`attention` is right with one change on line 3 of its cell (`s = Q @ V.T`): `K` in place of `V`"
    fix_b = "`softmax` is right with one change on line 2 of its cell (`e.sum(0)`): `-1` in place of `0`"
    text = "one small change to one line of your function makes it right"
    r = submission([
        report("q1", "test_a", message=f"{fix_a}\nthe output does not match", misconception="one_edit_fix", text=text),
        report("q1", "test_b", message=f"{fix_a}\nyour code raised RuntimeError", misconception="one_edit_fix",
               text=text),
        report("q2", "test_c", message=f"{fix_b}\nrows do not sum to 1", misconception="one_edit_fix", text=text),
    ])
    found = diagnose(r)
    assert [[t.name for t in g.tests] for g in found.mistakes] == [["test_a", "test_b"], ["test_c"]]
    out = terminal(r)
    assert out.count("`K` in place of `V`") >= 1 and out.count("`-1` in place of `0`") >= 1


def test_state_kept_by_two_functions_is_two_mistakes_and_by_one_is_one():
    # repair's state rule names the function first: `attention`'s cache and `mask_for`'s are two things to fix
    # (they had been grouped as one mistake under the key alone)
    kept_a = ("`attention` keeps state between calls in `_cache` (written on line 4 of its cell: `_cache = S`), built "
              "from an earlier call's inputs and reused")
    kept_b = ("`mask_for` keeps state between calls in `_mask` (written on line 3 of its cell: `_mask = m`), built "
              "from an earlier call's inputs and reused")
    text = "keeping state between calls"
    r = submission([
        report("q1", "test_a", message=f"{kept_a}\nthe output does not match", misconception="state_kept_between_calls",
               text=text),
        report("q1", "test_b", message=kept_a, misconception="state_kept_between_calls", text=text),
        report("q2", "test_c", message=kept_b, misconception="state_kept_between_calls", text=text),
    ])
    found = diagnose(r)
    assert [[t.name for t in g.tests] for g in found.mistakes] == [["test_a", "test_b"], ["test_c"]]
    out = terminal(r)
    assert "`_cache`" in out and "`_mask`" in out


def test_passed_tests_fold_per_question_and_contiguous_questions_into_a_range():
    tests = [report(q, f"t{i}", "passed") for q in ("q1", "q2", "q3") for i in range(2)]
    tests += [report("q4", "t0", "passed"), report("q4", "t1", message="wrong"), report("q4", "t2", message="wrong")]
    tests += [report("q5", "t0", "passed"), report("q6", "t0", "passed"), report("q6", "t1", "passed")]
    tests += [report("q7", "t0", message="wrong"), report("q8", "t0", "not_run", infra_reason="CUDA")]
    assert [line.sentence for line in fold_passed(tests)] == [
        "q1–q3: all 6 tests passed", "q4: 1 of 3 tests passed", "q5–q6: all 3 tests passed",
        "q7: its one test failed"]                              # q8 was not run: counted nowhere
    page = render_feedback(submission(tests))
    assert '<li class="whole">q1–q3: all 6 tests passed</li>' in page and "<li>q4: 1 of 3 tests passed</li>" in page


def test_a_case_the_grader_did_not_run_is_a_note_never_a_mistake():
    r = submission([report("q1", "test_a", "passed"),
                    report("q1", "test_a", "not_run", points=0, device="cuda", infra_reason="CUDA Error 304"),
                    report("q2", "test_b", "not_run", points=0, device="cuda", infra_reason="CUDA Error 304")])
    found = diagnose(r)
    assert found.mistakes == found.unexplained == [] and len(found.not_run) == 2
    out = terminal(r)
    assert "grader note (not run)" in out and "Not the student's mistake" in out and "mistake 1" not in out
    assert out.count("CUDA Error 304") == 1                   # the reason once, for the TA
    page = render_feedback(r)
    assert 'id="grader-note"' in page and "not a problem with your code" in page
    assert "Error 304" not in page and 'id="nothing-wrong"' in page    # the reason is the instructors'


def test_withheld_rule_points_are_said_under_the_mistake_that_withheld_them():
    r = submission([
        report("q5", "test_values", message=f"wrong: it matches dividing by d_k\n{example(2)}",
               misconception="divide_by_dk", text="dividing by d_k"),
        report("q5", "test_crash", message="your function raised ValueError"),
        report("q5", "test_rule", withheld_by="q5:test_values", points=2, message="the rule holds, but ..."),
        # on the GPU the value case is charged on the CPU (runner.withhold_unearned)
        report("q5", "test_rule", device="cuda", withheld_by="q5:test_values", message="the rule holds, but ..."),
        report("q6", "test_rule", withheld_by="q5:test_crash", message="the rule holds, but ..."),
    ])
    found = diagnose(r)
    (mistake,) = found.mistakes
    assert [(t.name, t.device) for t in mistake.withheld] == [("test_rule", None), ("test_rule", "cuda")]
    assert mistake.lost == 1 and mistake.withheld_points == 3 and mistake.cost == 4
    (other,) = found.unexplained
    assert [t.question for t in other.withheld] == ["q6"] and other.cost == 2
    assert found.failed_count == 5
    out = terminal(r)
    assert "3 rule points withheld until this is fixed: q5: test_rule, test_rule [cuda]" in out
    assert "the rule holds" not in out                         # said as withheld, not as a failure of its own


def test_hidden_tests_are_neither_grouped_nor_counted_before_publication():
    r = submission([report("q1", "test_shown", message="wrong", visible=True, misconception="no_scale",
                           text="not scaling"),
                    report("q1", "test_secret", message="secret input 42", misconception="secret_mistake",
                           text="a hidden mistake")])
    page = render_feedback(r, show_hidden=False)
    assert "not scaling" in page and "secret" not in page and "hidden mistake" not in page


HOSTILE = ("</pre></div><script>alert(1)</script><img src=x onerror=alert(2)> [bold red]x[/] [/] "
           "[link=javascript:alert(3)]y[/link] \x1b[2J\x1b]0;pwned\x07\rScore: 99 / 99 \u202eevil")


def test_student_text_stays_inert_on_the_terminal_and_the_page():
    r = submission([
        report("q1", "test_a", message=f"{HOSTILE}\n{HEADS[0]}\n  Q (1, 1) float32 = [{HOSTILE}]",
               misconception="key[/]\x1b[31m", text=f"text {HOSTILE}"),
        report("q1", "test_b", message=f"raised {HOSTILE}"),
        report("q1", "test_c", message=f"raised {HOSTILE}"),
    ], key=f"{HOSTILE}.ipynb")
    for all_tests in (False, True):
        out = terminal(r, all_tests=all_tests, width=100)
        assert not FORBIDDEN.search(out) and "\\x1b[2J" in out       # shown as escapes, not obeyed
        assert "[bold red]x[/]" in out and "[link=javascript:alert(3)]" in out   # markup shown, not parsed
        lines = out.splitlines()
        assert [line for line in lines if re.match(r"\s*Score:", line)] == [lines[-1]]
        for line in lines[:-1]:                  # student text only framed, or after our fixed prefix
            assert line[:1] in "┏┃┡│├└╭╰" or line.startswith("submission: "), line
    page = render_feedback(r)
    parsed = Tags()
    parsed.feed(page)
    assert "script" not in parsed.names and all(not k.startswith("on") for _, attrs in parsed.tags for k, _ in attrs)
    assert [t for t, _ in parsed.tags].count("img") == 0
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "\x1b" not in page and "\u202e" not in page
    assert "default-src 'none'" in page


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    @property
    def names(self) -> set[str]:
        return {t for t, _ in self.tags}

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


# --- the class ---------------------------------------------------------------------------------------
def test_the_report_groups_mistakes_across_the_class(tmp_path: Path, fixture_course):
    from autograder.course.exports import Student

    def dk(key: str, n: int) -> SubmissionResult:
        return submission([report("q1", f"t{i}", message=f"matches d_k\n{example(i + 1)}", misconception="divide_by_dk",
                                  text="dividing by d_k") for i in range(n)]
                          + [report("q2", "rule", withheld_by="q1:t0", points=2)], key=key)
    evil = '"><script>alert(1)</script>.ipynb'
    results = [dk("alice.ipynb", 3), dk(evil, 5),
               submission([report("q1", "t0", message="raised IndexError"),
                           report("q1", "t1", message="m", misconception="no_scale", text="not scaling")], key="bob.ipynb"),
               submission([report("q1", "t0", "passed")], key="carol.ipynb")]
    group = {"alice.ipynb": [Student(name="Alice"), Student(name="Dan")]}
    mistakes, unexplained = class_diagnosis(results, group)
    assert list(mistakes) == ["divide_by_dk", "no_scale"]
    people, subs, lost, who = mistakes["divide_by_dk"]
    assert (people, subs, lost) == (3, 2, "12")                 # (3 + 2) + (5 + 2) points, alice's counted once
    assert who[:2] == [("Alice", "alice.ipynb", "5"), ("Dan", "alice.ipynb", "5")] and who[2][1:] == (evil, "7")
    assert unexplained is not None and unexplained[:3] == (1, 1, "1")

    page = write_report(results, fixture_course, "toy", tmp_path).read_text()
    parsed = Tags()
    parsed.feed(page)
    assert "script" not in parsed.names
    rows = re.findall(r"<tr><td><b>([^<]*)</b>: [^<]*</td><td class=\"num\">(\d+)</td><td class=\"num\">(\d+)</td>"
                      r"<td class=\"num\">([\d.]+)</td>", page)
    assert rows == [("divide_by_dk", "2", "2", "12"), ("no_scale", "1", "1", "1")]   # no export: one per file
    links = [dict(a)["href"] for t, a in parsed.tags if t == "a"]
    from urllib.parse import quote
    for key in ("alice.ipynb", evil, "bob.ipynb"):
        assert f"feedback/{quote(feedback_name(key))}" in links
    assert all(not h.startswith(("/", "javascript:")) and ".." not in h for h in links)
    assert 'id="unexplained"' in page


@pytest.mark.parametrize("message, said", [
    # a named crash quotes the mistake's text after its own words: the block already leads with the text
    ("your code raised TypeError: x.t(): TEXT OF THE MISTAKE\nThe smallest input of this kind that still fails:\n  x = 1",
     "your code raised TypeError: x.t()"),
    ("weights3 is wrong: it matches TEXT OF THE MISTAKE; recompute it",      # inside a sentence: kept whole
     "weights3 is wrong: it matches TEXT OF THE MISTAKE; recompute it"),
    ("TEXT OF THE MISTAKE", "TEXT OF THE MISTAKE"),              # nothing else said: kept whole
    ("out3 is not correct in rows [0, 1]", "out3 is not correct in rows [0, 1]"),   # no text in it
])
def test_a_mistakes_example_says_only_what_its_text_does_not(message, said):
    from autograder.grading.diagnosis import said_beyond
    assert said_beyond(message, "TEXT OF THE MISTAKE") == said
