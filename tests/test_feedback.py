"""Feedback out: one self-contained HTML page per submission, with every test's result, reason and
misconception, the written answers (math typeset offline) with hand score and comment, and the total;
student text is inert; the page loads nothing and renders in headless Chromium."""
from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from base64 import b64decode
from pathlib import Path

import pytest

from autograder.course.exports import Entry, Student
from autograder.course.feedback import clean_answer, feedback_name, math_html, render_feedback, write_feedback
from autograder.course.handscores import HandScore, HandScores, apply_hand_scores
from autograder.course.outputs import results_name
from autograder.results import ManualAnswer, SubmissionResult
from autograder.results import TestReport as Report

POINTS = {"q3": 4.0}
PROOF = ("Let $X_i = q_i k_i$, so $q\\cdot k = \\sum_i X_i$. Because $q_i$ and $k_i$ are independent,\n"
         "$E[X_i] = E[q_i]E[k_i] = 0$, so $\\mathrm{Var}(X_i) = 1$ and\n"
         "$$\\mathrm{Var}\\big(q \\cdot k / \\sqrt{d_k}\\big) = \\frac{d_k}{d_k} = 1.$$\nIt costs $5 and $10.")


def result(key: str = "submission_102", answer: str = PROOF, **kw) -> SubmissionResult:
    base = dict(submission=key, assignment="sdpa-from-scratch", score=3.0, max_score=5.0, tests=[
        Report(question="q1", name="test_shapes", device="cpu", hidden=False, max_score=2, score=2, status="passed"),
        Report(question="q2", name="test_scale", device="cpu", max_score=3, score=1, status="failed",
               message="the output is wrong: it matches dividing by d_k", misconception="divide_by_dk",
               misconception_text="dividing the scores by d_k instead of sqrt(d_k)"),
        Report(question="q2", name="test_scale", device="cuda", max_score=0, score=0, status="passed"),
    ], manual=[ManualAnswer(question="q3", text=answer)])
    base.update(kw)
    return SubmissionResult(**base)


GROUP = Entry(key="submission_102", path=Path("x.ipynb"), layout="gradescope", source="submission_102",
              submitters=[Student(name="Grace Hopper", sid="1002"), Student(name="Alan Turing", sid="1003")])


def hand(key: str, score: float, comment: str) -> HandScores:
    return HandScores(points=POINTS, scores={key: {"q3": HandScore(key, "q3", score, comment, 2)}})


def test_feedback_has_tests_reasons_misconceptions_answers_and_total():
    merged = apply_hand_scores(result(), POINTS, hand("submission_102", 3.5, "Good; say why the X_i are independent."))
    page = render_feedback(merged, GROUP, title="SDPA from scratch")
    assert "<b>Grace Hopper, Alan Turing</b> (1002, 1003)" in page
    assert re.search(r'id="total"[^>]*>Total: <b>6.5</b> / 9', page)
    assert "q2: test_scale [cuda]" in page and "dividing the scores by d_k instead of sqrt(d_k)" in page
    assert "the output is wrong: it matches dividing by d_k" in page
    assert "q3 — 3.5 / 4" in page and "Good; say why the X_i are independent." in page
    # per-question table: hand-graded q3 included
    assert re.search(r"<td>q3</td><td class=\"num\">3.5 / 4</td>", page)
    # the proof's math is typeset as images whose alt text is the source; money is not math
    imgs = re.findall(r'<img class="math" alt="([^"]*)"[^>]*src="data:image/svg\+xml;base64,([^"]+)"', page)
    alts = [a for a, _ in imgs]
    assert "X_i = q_i k_i" in alts and "\\mathrm{Var}(X_i) = 1" in alts and len(imgs) == 7
    for _, data in imgs:
        svg = b64decode(data)
        root = ET.fromstring(svg)                            # well-formed SVG
        tags = {el.tag.split("}")[-1] for el in root.iter()}
        assert tags <= {"svg", "defs", "g", "path", "use", "rect", "style"}, tags   # paths only: no text, image, script
        refs = re.findall(rb'(?:href|src)="([^"]*)"', svg)
        assert refs and all(r.startswith(b"#") for r in refs)  # every reference is inside the image
        assert b"<!DOCTYPE" not in svg and b"<metadata" not in svg
    assert "It costs $5 and $10." in page
    assert 'class="display-math"' in page


def test_page_is_self_contained():
    page = render_feedback(apply_hand_scores(result(), POINTS), GROUP)
    assert "default-src 'none'; img-src data:" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(?!data:)[a-z]+:""", page, re.I)
    assert "<script" not in page and "@import" not in page and "url(" not in page
    assert "awaiting hand grading (out of 4)" in page and "1 still to be graded by hand" in page


def test_student_text_is_inert():
    evil = '<script>alert(1)</script><img src=x onerror=alert(2)> $"><script>alert(3)</script>$ \x1b[2J\u202e'
    r = result(key='"><script>k</script>', answer=evil,
               message="cell 1: <iframe src=//evil>", status="graded")
    r.tests[1].message = "<b onmouseover=alert(4)>bold</b>"
    entry = Entry(key=r.submission, path=Path("x"), layout="flat", source="x",
                  submitters=[Student(name="<img src=x onerror=alert(5)>")])
    merged = apply_hand_scores(r, POINTS, hand(r.submission, 1, "</div><script>alert(6)</script>"))
    page = render_feedback(merged, entry)
    assert "<script" not in page and "<iframe" not in page and "<b onmouseover" not in page
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(5)&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "\x1b" not in page and "\u202e" not in page
    assert "&lt;/div&gt;&lt;script&gt;alert(6)&lt;/script&gt;" in page


def test_math_that_mathtext_cannot_typeset_is_shown_as_source():
    html = math_html(r"Matrix: $\begin{pmatrix} a \\ b \end{pmatrix}$ and $x^2$ and $" + "{" * 300 + "}" * 300 + "$")
    assert '<code class="tex" title="LaTeX source: not typeset">$\\begin{pmatrix} a \\\\ b \\end{pmatrix}$</code>' in html
    assert html.count('<img class="math"') == 1 and html.count('<code class="tex"') == 2
    page = render_feedback(result(answer=r"$\begin{pmatrix}a\end{pmatrix}$"), None)
    assert "1 formula could not be typeset offline" in page


def test_aligned_display_math_is_typeset_line_by_line():
    html = math_html(r"$$\begin{aligned} a &= b \\ c &= d \end{aligned}$$")
    assert html.count('<img class="math"') == 2 and 'alt="a  = b"' in html


def test_math_budget_bounds_the_work():
    html = math_html(" ".join(f"$x_{{{i}}}$" for i in range(200)))
    assert html.count('<img class="math"') == 80 and html.count('<code class="tex"') == 120


def test_rejected_submission_says_why():
    r = SubmissionResult(submission="broken.py", assignment="toy", status="rejected", max_score=5,
                         message="broken.py is not valid Python (line 3)")
    page = render_feedback(apply_hand_scores(r, POINTS), None)
    assert "Your submission could not be graded" in page and "not valid Python (line 3)" in page
    assert "No tests were run." in page and "(no answer written)" in page


def test_hidden_tests_can_be_withheld():
    page = render_feedback(result(), GROUP, show_hidden=False, show_total=False)
    assert "test_shapes" in page and "test_scale" not in page and "2 hidden tests not shown yet." in page
    assert 'id="total"' not in page


def test_feedback_files_are_named_like_results(tmp_path):
    keys = ["submission_101", "alice.ipynb", "../../etc/passwd", "Alice.ipynb", "x" * 300]
    written = write_feedback([result(k) for k in keys], tmp_path / "feedback", entries=[GROUP], title="T")
    assert set(written) == set(keys)
    assert len({p.name.lower() for p in written.values()}) == len(keys)
    for key, path in written.items():
        assert path.parent == tmp_path / "feedback" and path.name == feedback_name(key)
        assert feedback_name(key) == results_name(key)[:-5] + ".html"
    assert sorted(p.name for p in (tmp_path / "feedback").iterdir()) == sorted(p.name for p in written.values())


def test_clean_answer_keeps_lines():
    assert clean_answer("a\r\nb\x00c\u202ed\te") == "a\nbcd\te"


def _chromium() -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium is not installed (make test installs it where apt is available)")
    return browser


def _run(browser: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)


def test_feedback_renders_in_headless_chromium(tmp_path):
    browser = _chromium()
    merged = apply_hand_scores(result(), POINTS, hand("submission_102", 3.5, "Good."))
    path = write_feedback([merged], tmp_path / "feedback", entries=[GROUP], title="SDPA")["submission_102"]
    dom = _run(browser, tmp_path, "--dump-dom", path.as_uri())
    assert dom.returncode == 0, dom.stderr[-1000:]
    assert 'id="total"' in dom.stdout and "Written answers" in dom.stdout and 'class="math"' in dom.stdout
    shot = tmp_path / "feedback.png"
    _run(browser, tmp_path, f"--screenshot={shot}", "--window-size=1000,1400", path.as_uri())
    assert shot.is_file() and shot.stat().st_size > 10_000


def test_typeset_math_is_drawn_by_chromium_under_the_page_policy(tmp_path):
    """A page with only one typeset formula, under the feedback page's Content-Security-Policy: the
    screenshot has ink, so the data: SVG loads and draws with no network."""
    browser = _chromium()
    import matplotlib.image as mpimg
    head = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', render_feedback(result(), None)).group()

    def ink(body: str, name: str) -> int:
        page = tmp_path / f"{name}.html"
        page.write_text(f'<!doctype html><html><head><meta charset="utf-8">{head}</head>'
                        f'<body style="margin:20px;background:#fff">{body}</body></html>')
        shot = tmp_path / f"{name}.png"
        _run(browser, tmp_path, f"--screenshot={shot}", "--window-size=400,200", page.as_uri())
        pixels = mpimg.imread(shot)[..., :3]
        return int((pixels.sum(axis=-1) < 1.5).sum())

    assert ink(str(math_html(r"$\frac{a}{b} = \sqrt{d_k}$")), "math") > 50
    assert ink("", "blank") == 0


def test_a_case_the_grader_could_not_run_is_not_the_students_failure():
    r = result()
    r.tests.append(Report(question="q2", name="test_scale", device="cuda", max_score=0, score=0, status="not_run",
                          infra_reason="CUDA unusable in the sandbox"))
    r.infra = "1 case not run: CUDA unusable in the sandbox"
    page = render_feedback(r, GROUP)
    assert '<tr class="not_run">' in page and "not a problem with your code" in page
    assert "CUDA unusable" not in page                       # the grader's reason is for instructors


def test_typesetting_can_be_turned_off():
    page = render_feedback(result(), GROUP, typeset_math=False)
    assert '<img class="math"' not in page and '<code class="tex" title="LaTeX source: not typeset">$X_i = q_i k_i$</code>' in page
    assert "could not be typeset" not in page


DK = "dividing the scores by d_k instead of sqrt(d_k)"


def test_the_misconception_is_said_once_and_visible_tests_are_shown_before_publication():
    tests = [
        Report(question="q1", name="test_values", max_score=2, score=0, status="failed", visible=True,
               message="the output is wrong", misconception="no_scale", misconception_text="not scaling the scores at all"),
        Report(question="q2", name="test_said", max_score=3, score=0, status="failed", message=f"wrong: it matches {DK}",
               misconception="divide_by_dk", misconception_text=DK),
        Report(question="q2", name="test_said_otherwise", max_score=1, score=0, status="failed",
               message=f"Wrong: It Matches {DK.upper()}.", misconception="divide_by_dk", misconception_text=DK + "."),
    ]
    r = result(tests=tests, score=0.0, max_score=6.0)
    page = render_feedback(r, None)
    diagnosis, table = page.split('<details id="all-tests">')
    # the diagnosis names each mistake once, as a heading
    assert re.findall(r"<h3>([^<]*) <span", diagnosis) == [DK, "not scaling the scores at all"]
    assert diagnosis.count("not scaling the scores at all") == 1
    # the full table says it once per test
    assert table.count("not scaling the scores at all") == 1          # not in its message: said beside it
    assert table.casefold().count(DK.casefold()) == 2                  # in each message, not again
    assert table.count("Likely misconception") == 1
    withheld = render_feedback(r, None, show_hidden=False)            # before publication: only `visible`
    assert "test_values" in withheld and "test_said" not in withheld and "2 hidden tests not shown yet." in withheld
