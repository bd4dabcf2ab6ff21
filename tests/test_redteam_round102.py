"""Red-team round 102: the late policy's arithmetic.

grading.yml's `late_policy` (due, timezone, grace, per-day penalty, cap, zero_after_days, late_without_time_days) and
the hand-scores file's waivers and extensions, applied to the times the exports give (repros in /tmp/rt102/:
probe1.py runs autograder.course.lateness.assess at the boundaries, sid_email.py reads a hand-scores file beside a
Gradescope roster). Held: a time exactly at the due time (on time) and a microsecond after (a day), Gradescope's
nanoseconds (kept to microseconds), `Z`, `+0000`, `-00:00`, `-05` and a space before the offset read alike, a leap
second or no offset (a warning, the row untimed), YAML's unquoted timestamps with and without an offset, New York's
DST nights (elapsed hours), extensions to wall times DST skips or repeats, years 1970 and 9998 in zones at -12/+14.
Found:

- **An extension given by e-mail went to the classmate whose sid is that e-mail.** The `sid` column also takes an LMS
  id or an e-mail (the module's docstring), looked up kind by kind, the first kind with any match winning: a
  Gradescope student who enrols by entry code types their own Student ID, and one who typed a classmate's e-mail took
  the extension the TA wrote for that classmate (`alice@uni.edu,2024-03-12T23:59-05:00,extension (medical)` ->
  waivers {'submission_2' (Mallory): ...}; Alice paid the penalty), and any hand score written so. A value is now
  looked up as every kind at once: one that names two submissions is refused, naming them, until a submission column
  says which.
- **Two rows of the gradebook read alike and paid differently.** `late_by` (gradebook.csv, the feedback page,
  report.html) showed whole days and hours only, rounded down: due 2024-03-08 23:59 New York, 10% a day, no grace,
  23:59:00 the next day and 23:59:30 the next day both read "1 day 0 h", one charged 1 day (3.5 points of 35) and
  the other 2 days (7 points: "late by 1 day 0 h: -20% of the maximum, 7 points"), and a half-second read as
  whole seconds (60.5 s: "1 min"). Past a day the minutes are now shown when there are any ("1 day 0 h 1 min"),
  and every fraction of a second rounds the minute up.
- **A merge's penalty hung on the order its shards were named in.** Each shard keeps the late waivers of the
  hand-scores file it was given, and merge joined them with dict.update: the last shard named won. Two shards given
  different files (`1009,waive,medical` and `1009,2024-03-09T12:00,one day`, an instructor who corrected the file
  and reran one shard) merged as `merge s1 s2` into 0.6 points off submission_109 ("late by 15 h 0 min past the
  extension") and as `merge s2 s1` into none ("penalty waived"), without a word (/tmp/rt102/shards.py). Shards
  that disagree on one submission's waiver (its time or reason) are now refused, naming both and the submission.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.course.exports import Entry, Student
from autograder.course.handscores import HandScoreError, read_hand_scores
from autograder.course.lateness import assess
from autograder.latepolicy import LatePolicy, resolve
from autograder.results import SubmissionResult
from autograder.results import TestReport as Report


def _entries(tmp_path: Path) -> list[Entry]:
    nb = tmp_path / "nb.ipynb"
    nb.write_text("{}")
    at = "2024-03-10 12:00:00.000000000 -05:00"
    alice = Student(name="Alice", sid="1001", email="alice@uni.edu")
    mallory = Student(name="Mallory", sid="alice@uni.edu", email="m@uni.edu")   # a Student ID she typed herself
    return [Entry(key="submission_1", path=nb, layout="gradescope", source="submission_1", submitters=[alice],
                  created_at=at),
            Entry(key="submission_2", path=nb, layout="gradescope", source="submission_2", submitters=[mallory],
                  created_at=at)]


def test_an_extension_by_email_never_goes_to_a_classmate_whose_sid_is_that_email(tmp_path: Path) -> None:
    entries = _entries(tmp_path)
    hand = tmp_path / "hand.csv"
    hand.write_text("sid,late,comment\nalice@uni.edu,2024-03-12T23:59-05:00,extension (medical)\n")
    with pytest.raises(HandScoreError) as err:
        read_hand_scores(hand, {}, entries)
    assert "submission_1" in str(err.value) and "submission_2" in str(err.value)
    # a submission column says which: the extension is Alice's
    hand.write_text("sid,submission,late,comment\nalice@uni.edu,submission_1,2024-03-12T23:59-05:00,medical\n")
    assert set(read_hand_scores(hand, {}, entries).waivers) == {"submission_1"}
    # a value only one submission has is read as before, whichever kind it is
    hand.write_text("sid,late\n1001,waive\nm@uni.edu,waive\n")
    assert set(read_hand_scores(hand, {}, entries).waivers) == {"submission_1", "submission_2"}


def test_two_lateness_texts_that_read_alike_pay_alike() -> None:
    policy = resolve(LatePolicy(due="2024-03-08T23:59", timezone="America/New_York", penalty_per_day=10))
    result = SubmissionResult(submission="x", assignment="toy", status="graded", score=30, max_score=35,
                              tests=[Report(question="q1", name="a", device="cpu", max_score=35, score=30,
                                                status="failed")])
    day = assess("2024-03-09T23:59:00-05:00", False, policy)
    day_and_30s = assess("2024-03-09T23:59:30-05:00", False, policy)
    assert (day.deduction(result), day_and_30s.deduction(result)) == (3.5, 7.0)
    assert day.late_by_text == "1 day 0 h" and day_and_30s.late_by_text != day.late_by_text
    assert day_and_30s.describe(result) == "late by 1 day 0 h 1 min: -20% of the maximum, 7 points"
    # a fraction of a second past a minute is the next minute, as a second past the due time is the first
    assert assess("2024-03-09T00:00:00.5-05:00", False, policy).late_by_text == "2 min"


def test_shards_given_different_waivers_are_refused_not_merged_in_name_order(tmp_path: Path) -> None:
    from tests.test_class_exports import run
    from tests.test_lateness import FIXTURE_SUBS, GRADESCOPE, METADATA_NAME, course_with_policy, while_the_code_stands
    course = course_with_policy(tmp_path / "course").root
    export = tmp_path / "export"
    export.mkdir()
    lines = []
    for key, sids, created, *_ in GRADESCOPE:
        if key in ("submission_104", "submission_109"):
            lines.append(f"{key}:\n  :submitters:\n" + "".join(f"  - :name: S{sid}\n    :sid: '{sid}'\n" for sid in sids)
                         + f"  :created_at: {created}\n")
            (export / key).mkdir()
            shutil.copy(FIXTURE_SUBS / "good.ipynb", export / key / "toy.ipynb")
    (export / METADATA_NAME).write_text("".join(lines))
    (tmp_path / "h1.csv").write_text("sid,late,comment\n1009,waive,medical\n")
    (tmp_path / "h2.csv").write_text("sid,late,comment\n1009,2024-03-09T12:00,one day\n")

    def shards_then_merge() -> str:
        for k in (1, 2):
            rc, text = run("batch", str(export), "-o", str(tmp_path / f"s{k}"), "--shard", f"{k}/2", "-a", "toy",
                           "--seed", "3", "--hand-scores", str(tmp_path / f"h{k}.csv"), course=course)
            assert rc == 0, text
        rc, text = run("merge", str(tmp_path / "s2"), str(tmp_path / "s1"), "-o", str(tmp_path / "merged"), course=course)
        assert rc != 0 and "different late waivers for 'submission_109'" in text, text
        return text

    text = while_the_code_stands(shards_then_merge)
    assert "waived (medical)" in text and "extension to 2024-03-09T12:00 (one day)" in text
    assert not (tmp_path / "merged" / "gradebook.csv").exists()
