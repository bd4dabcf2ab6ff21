"""Red-team round 109: the same class, graded any way, gives every student the same result.

Classes built from examples/submissions/<slug>/ and 120 held-out variants of each assignment (tests/heldout/harness.py),
graded with `autograder batch` at -j1 in the class's order and reversed (renamed files), at -j2, and stopped by SIGTERM
and resumed into the same -o; every results file, journal row, gradebook.csv, canvas.csv, similarity.csv and feedback
page compared after removing times (repros in /tmp/rt109/: build.py, runall.sh, cmp.py, cmpj.py, cmpout.py, math/).
Scores, named mistakes and messages agreed everywhere but for the vectorisation test's measured ratio (round 97's). Found:

- **A feedback page's formulas hung on the pages drawn before it** (feedback._Budget, feedback._typeset). A page
  typeset its written answers' formulas until a wall-clock deadline (MATH_SECONDS, 10 s), and the typesetting is
  cached for the process (4,096 formulas): a formula a classmate's page had drawn cost nothing, one drawn first cost
  its typesetting (and the first page paid matplotlib's import, 1.4 s here). Measured in /tmp/rt109/math/: two
  identical notebooks of scaled-attention whose proof has 70 long formulas, alice.ipynb and bob.ipynb, batch -j1: alice's
  page (first) typeset 47 and showed 23 as LaTeX source, bob's (the same bytes) all 70; beside aaron.ipynb instead,
  alice's typeset all 70. The same held for report.html's class-wide budget (MAX_REPORT_MATH_SECONDS, typeset after
  the pages, so mostly from the cache). Now each formula carries the CPU seconds its typesetting took when it was made
  (_Typeset.cost_s, measured after the imports), and a page's budget charges that cost whether the formula is made now
  or read from the cache: a page depends on its own formulas only. report.html charges each distinct formula once for
  the class (the same formulas in twenty proofs cost one proof's), so charging cached formulas cuts no honest class.
"""
from __future__ import annotations

import pytest


@pytest.fixture
def formulas() -> str:
    # formulas no other test writes: the cache's contents are this test's doing
    return " ".join(f"$\\frac{{a_{{{k}}}^{{2}} + 109}}{{\\sqrt{{b_{{{k}}} + c_{{109}}}}}}$" for k in range(12))


def test_a_page_s_formulas_do_not_hang_on_the_pages_drawn_before_it(monkeypatch, formulas):
    from autograder.course import feedback

    feedback.math_html("$x$")                      # matplotlib imported: the first page's import is no formula's cost
    monkeypatch.setattr(feedback, "MATH_SECONDS", 0.005)   # a budget one formula spends (each costs milliseconds)

    feedback._typeset.cache_clear()
    alone = str(feedback.math_html(formulas))      # the first page of the process: `grade`, or sorted first

    feedback._typeset.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(feedback, "MATH_SECONDS", 10.0)
        classmate = str(feedback.math_html(formulas))    # a classmate sorted before, who wrote the same formulas
    assert classmate.count('<img class="math"') == 12
    after = str(feedback.math_html(formulas))

    assert 0 < alone.count('<img class="math"') < 12     # the budget cut this page: the case at stake
    assert after == alone                                # the same page, whoever was drawn before it


def test_report_charges_cached_formulas_as_the_pages_do(tmp_path, monkeypatch, formulas):
    from autograder.course import feedback, report
    from autograder.results import ManualAnswer, SubmissionResult

    feedback.math_html("$x$")
    results = [SubmissionResult(submission="s0", assignment="scaled-attention",
                                manual=[ManualAnswer(question="q3", text=formulas)])]
    monkeypatch.setattr(report, "MAX_REPORT_MATH_SECONDS", 0.005, raising=False)
    feedback._typeset.cache_clear()
    cold = report._written_answers(results, {})
    feedback.math_html(formulas)                   # its feedback page, drawn before the report (as a batch does)
    warm = report._written_answers(results, {})
    assert str(cold[0][0][3]).count('<img class="math"') < 12
    assert [str(a[3]) for a in warm[0]] == [str(a[3]) for a in cold[0]]


def test_the_report_charges_a_formula_the_class_repeats_once(tmp_path, monkeypatch, formulas):
    from autograder.course import feedback, report
    from autograder.results import ManualAnswer, SubmissionResult

    feedback._typeset.cache_clear()
    page = feedback._Budget()
    feedback.math_html(formulas, page)              # what one proof costs (the cache keeps each formula's cost)
    assert len(page.costs) == 12
    monkeypatch.setattr(report, "MAX_REPORT_MATH_SECONDS", 1.5 * page.spent_s, raising=False)
    results = [SubmissionResult(submission=f"s{i}", assignment="scaled-attention",
                                manual=[ManualAnswer(question="q3", text=formulas)]) for i in range(20)]
    written, note = report._written_answers(results, {})
    assert all(str(shown).count('<img class="math"') == 12 for _, _, _, shown in written)   # twenty copies: one cost
    assert note == ""
