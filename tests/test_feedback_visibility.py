"""The feedback pages a batch writes are handed back to students (README: "Hand back out/feedback/<submission>.html"),
so they follow grading.yml's `visibility` as Gradescope's results do. Found beside red-team round 105: batch wrote
them with render_feedback's defaults, so `hidden_tests: hidden` (course staff only) and `show_total: false` were
shown on every page anyway, and the per-question table (a sum over every test, hidden ones too) told the hidden
tests' points even where the tests themselves were held back."""
from __future__ import annotations

from autograder.course.batch import write_outputs
from autograder.results import SubmissionResult
from autograder.results import TestReport as Report   # not collected as a test class

SLUG = "scaled-attention"


def _result() -> SubmissionResult:
    tests = [Report(question="q1", name="test_shown", visible=True, max_score=2, score=2, status="passed"),
             Report(question="q1", name="test_secret_shape", visible=False, max_score=3, score=0, status="failed",
                    message="HIDDEN-MESSAGE differs at row 7")]
    return SubmissionResult(submission="alice.ipynb", assignment=SLUG, status="graded", score=2, max_score=5,  # type: ignore[arg-type]
                            tests=tests)


def _page(tmp_path, course, **visibility) -> str:
    vis = course.config.visibility.model_copy(update=visibility)
    config = course.config.model_copy(update={"visibility": vis})
    local = type(course).__new__(type(course))
    local.__dict__.update({**course.__dict__, "config": config})
    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    write_outputs([_result()], local, SLUG, out)
    return next((out / "feedback").glob("*.html")).read_text()


def test_staff_only_hidden_tests_stay_off_the_returned_page(tmp_path, course):
    page = _page(tmp_path, course, hidden_tests="hidden")
    assert "HIDDEN-MESSAGE" not in page and "test_secret_shape" not in page
    assert "1 hidden test not shown yet" in page
    assert "2 / 2" in page and "/ 5" not in page        # q1's row counts only the test shown


def test_no_total_means_no_total_and_no_per_question_sums(tmp_path, course):
    page = _page(tmp_path, course, show_total=False)
    assert 'id="total"' not in page and 'id="questions"' not in page


def test_the_default_visibility_still_shows_everything(tmp_path, course):
    page = _page(tmp_path, course)
    assert "HIDDEN-MESSAGE" in page and 'id="total"' in page and "2 / 5" in page
