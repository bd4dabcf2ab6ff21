"""Hand grading: a CSV of hand scores is validated row by row (every problem named, nothing merged from a
bad file) and merged into results so totals, maxima and reports include the hand-graded questions."""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.config import AssignmentSettings, CourseConfig, load_config
from autograder.errors import ConfigError
from autograder.course.exports import Entry, Student
from autograder.course.handscores import (AWAITING, HAND_TEST_NAME, HandScoreError, apply_hand_scores, awaiting,
                                   hand_points, hand_score_of, read_hand_scores, write_template)
from autograder.results import ManualAnswer, SubmissionResult
from autograder.results import TestReport as Report

POINTS = {"q3": 4.0}


def entries() -> list[Entry]:
    return [
        Entry(key="submission_101", path=Path("a.ipynb"), layout="gradescope", source="submission_101",
              submitters=[Student(name="Ada Lovelace", sid="1001", email="ada@example.edu")]),
        Entry(key="submission_102", path=Path("b.ipynb"), layout="gradescope", source="submission_102",
              submitters=[Student(name="Grace Hopper", sid="1002"), Student(name="Alan Turing", sid="1003")]),
        Entry(key="alice.ipynb", path=Path("alice.ipynb"), layout="flat", source="alice.ipynb",
              submitters=[Student(name="alice")]),
        Entry(key="lovelaceada_1234_5678", path=Path("c.ipynb"), layout="canvas", source="x",
              submitters=[Student(name="lovelaceada", lms_id="1234")]),
    ]


def result(key: str, score: float = 3.0, max_score: float = 5.0) -> SubmissionResult:
    return SubmissionResult(submission=key, assignment="toy", score=score, max_score=max_score, tests=[
        Report(question="q1", name="test_a", device="cpu", max_score=2, score=2, status="passed"),
        Report(question="q2", name="test_b", device="cpu", max_score=3, score=1, status="failed",
                   message="wrong", misconception="no_scale"),
    ], manual=[ManualAnswer(question="q3", text="Because $\\mathrm{Var}(q\\cdot k) = d_k$.")])


def write(tmp_path: Path, text: str, name: str = "hand.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_scores_by_sid_and_by_submission_merge_into_totals(tmp_path):
    csv_path = write(tmp_path, "sid,submission,question,score,comment\n"
                               "1001,,q3,4,\"Clear.\nIndependence stated.\"\n"
                               "1003,,q3,2.5,Sum of variances not justified\n"
                               ",alice.ipynb,Q3 ,1,\n".replace("Q3 ", "q3"))
    scores = read_hand_scores(csv_path, POINTS, entries())
    assert len(scores) == 3
    assert scores.for_submission("submission_102")["q3"].score == 2.5      # a group member's sid
    merged = apply_hand_scores(result("submission_101"), POINTS, scores)
    assert (merged.score, merged.max_score) == (7.0, 9.0)
    hand = hand_score_of(merged, "q3")
    assert hand is not None and hand.name == HAND_TEST_NAME and not hand.hidden
    assert (hand.score, hand.max_score, hand.status) == (4.0, 4.0, "passed")
    assert hand.message == "Clear.\nIndependence stated."
    group = apply_hand_scores(result("submission_102"), POINTS, scores)
    assert (group.score, hand_score_of(group, "q3").status) == (5.5, "failed")


def test_merge_is_idempotent_and_the_maximum_includes_ungraded_questions(tmp_path):
    base = result("alice.ipynb")
    pending = apply_hand_scores(base, POINTS, None)
    assert (pending.score, pending.max_score) == (3.0, 9.0)
    assert hand_score_of(pending, "q3").message == AWAITING
    assert awaiting([pending]) == [("alice.ipynb", "q3")]
    scores = read_hand_scores(write(tmp_path, "submission,question,score\nalice.ipynb,q3,3\n"), POINTS, entries())
    once = apply_hand_scores(pending, POINTS, scores)
    twice = apply_hand_scores(once, POINTS, scores)
    assert once == twice and (twice.score, twice.max_score) == (6.0, 9.0)
    assert len([t for t in twice.tests if t.name == HAND_TEST_NAME]) == 1
    assert base.score == 3.0 and len(base.tests) == 2                     # the input is left alone
    assert awaiting([twice]) == []


def test_lms_user_id_and_email_find_the_student(tmp_path):
    scores = read_hand_scores(write(tmp_path, "sid,question,score\n1234,q3,1\nADA@example.edu,q3,2\n"),
                              POINTS, entries())
    assert scores.for_submission("lovelaceada_1234_5678")["q3"].score == 1
    assert scores.for_submission("submission_101")["q3"].score == 2


def test_every_bad_row_is_named_and_nothing_is_merged(tmp_path):
    csv_path = write(tmp_path, "sid,submission,question,score,comment\n"
                               "1001,,q9,1,\n"              # row 2: unknown question
                               "1001,,q3,lots,\n"           # row 3: not a number
                               "1001,,q3,4.5,\n"            # row 4: above the points
                               "1001,,q3,4,\n"              # row 5: fine
                               "1001,,q3,3,\n"              # row 6: duplicate of row 5
                               "1002,,q3,1,\n"              # row 7: fine (group)
                               "1003,,q3,2,\n"              # row 8: the same group again: duplicate
                               "9999,,q3,1,\n"              # row 9: unknown sid
                               ",bob.ipynb,q3,1,\n"         # row 10: unknown submission
                               ",,q3,1,\n"                  # row 11: nobody
                               "1001,alice.ipynb,q3,1,\n"   # row 12: sid and submission disagree
                               "1001,,q3,nan,\n"            # row 13: not finite
                               "1001,,q3,-1,\n"             # row 14: negative
                               "1001,,q3,,a comment\n"      # row 15: comment, no score
                               "1001,,q3,,\n")              # row 16: empty score: not graded yet, skipped
    with pytest.raises(HandScoreError) as info:
        read_hand_scores(csv_path, POINTS, entries())
    errors = info.value.errors
    expected = {2: "'q9' is not a hand-graded question", 3: "'lots' is not a number",
                4: "4.5 is above the 4 points of q3", 6: "a second score for submission_101 q3 (first on row 5)",
                8: "a second score for submission_102 q3 (first on row 7)", 9: "no submission belongs to sid '9999'",
                10: "no submission 'bob.ipynb'", 11: "neither a sid nor a submission",
                12: "belongs to submission 'submission_101', not 'alice.ipynb'", 13: "must be a number from 0 to 4",
                14: "must be a number from 0 to 4", 15: "a comment for 1001 q3 but no score"}
    assert len(errors) == len(expected), errors
    for (row, words), error in zip(sorted(expected.items()), errors, strict=True):
        assert error.startswith(f"row {row}: ") and words in error, (row, error)
    assert str(info.value).startswith("hand.csv: 12 problems (nothing merged)")


@pytest.mark.parametrize("text, words", [
    ("sid,question,scroe\n1001,q3,1\n", ["unknown column 'scroe'", "missing column score"]),
    ("question,score\nq3,1\n", ["needs a sid or a submission column"]),
    ("sid,sid,question,score\n", ["sid appear more than once"]),
    ("", ["the file is empty"]),
    ('sid,question,score\n1001,q3,"1\n', ["not CSV"]),
])
def test_bad_headers_and_files(tmp_path, text, words):
    with pytest.raises(HandScoreError) as info:
        read_hand_scores(write(tmp_path, text), POINTS, entries())
    for w in words:
        assert any(w in e for e in info.value.errors), info.value.errors


def test_not_utf8_and_too_large(tmp_path):
    p = tmp_path / "latin1.csv"
    p.write_bytes("sid,question,score,comment\n1001,q3,1,très bien\n".encode("latin-1"))
    with pytest.raises(HandScoreError, match="not UTF-8"):
        read_hand_scores(p, POINTS, entries())
    big = tmp_path / "big.csv"
    big.write_text("sid,question,score\n" + "1001,q3,1\n" * 600_000)
    with pytest.raises(HandScoreError, match="larger than"):
        read_hand_scores(big, POINTS, entries())


def test_excel_bom_and_hostile_comments(tmp_path):
    p = tmp_path / "excel.csv"
    p.write_bytes("\ufeffSID,Question,Score,Comment,Name\n1001,q3,3,\"=HYPERLINK(\"\"x\"\")\x1b[2J\u202e ok\",Ada\n"
                  .encode("utf-8"))
    scores = read_hand_scores(p, POINTS, entries())
    comment = scores.for_submission("submission_101")["q3"].comment
    assert comment == '=HYPERLINK("x")[2J ok'                         # no control characters
    merged = apply_hand_scores(result("submission_101"), POINTS, scores)
    assert hand_score_of(merged, "q3").message == comment                # escaped where it is shown


def test_template_round_trip(tmp_path):
    ents = entries()
    ents.append(Entry(key="=cmd|' /C calc'!A0", path=Path("x.ipynb"), layout="flat", source="x",
                      submitters=[Student(name="=evil", sid="-1")]))
    results = [apply_hand_scores(result(e.key), POINTS) for e in ents]
    path = write_template(results, POINTS, tmp_path / "template.csv", ents)
    text = path.read_text()
    assert ",'=cmd|" in text and ",'=evil," in text and "\n'-1," in text   # neutralised for spreadsheets
    lines = text.splitlines()
    assert lines[0] == "sid,name,submission,question,score,comment" and len(lines) == 1 + len(ents)
    # fill it in and read it back: the neutralised cells still find their submissions
    filled = "\n".join([lines[0]] + [line.replace(",q3,,", ",q3,2,") for line in lines[1:]]) + "\n"
    scores = read_hand_scores(write(tmp_path, filled, "filled.csv"), POINTS, ents)
    assert len(scores) == len(ents)
    assert scores.for_submission("=cmd|' /C calc'!A0")["q3"].score == 2


def test_hand_points_come_from_grading_yml(tmp_path):
    s = AssignmentSettings(manual=["q3", "q4"], manual_points={"q3": 4})
    assert hand_points(s) == {"q3": 4.0}
    with pytest.raises(ConfigError, match="manual_points.q5"):
        hand_points(AssignmentSettings(manual=["q3"], manual_points={"q5": 1}), "toy")
    yml = tmp_path / "grading.yml"
    yml.write_text("assignments:\n  toy:\n    manual: [q3]\n    manual_points: {q3: -1}\n")
    with pytest.raises(ConfigError, match="assignments.toy.manual_points.q3"):
        load_config(yml)
    yml.write_text("assignments:\n  toy:\n    manual: [q3]\n    manual_points: {q3: 2.5}\n")
    assert load_config(yml).assignments["toy"].manual_points == {"q3": 2.5}
    assert CourseConfig().model_dump()["assignments"] == {}


def test_a_rejected_submissions_students_can_be_hand_graded(tmp_path):
    rejected = {"submission_9": [Student(name="No Notebook", sid="9009")]}
    scores = read_hand_scores(write(tmp_path, "sid,question,score,comment\n9009,q3,2,PDF proof read by hand\n"),
                              POINTS, entries(), submitters=rejected)
    r = apply_hand_scores(SubmissionResult(submission="submission_9", assignment="toy", status="rejected",
                                           max_score=5, message="no notebook"), POINTS, scores)
    assert (r.score, r.max_score, r.status) == (2.0, 9.0, "rejected")
    flat = read_hand_scores(write(tmp_path, "submission,question,score\nbob.py,q3,1\n", "flat.csv"), POINTS,
                            submissions=["bob.py"])
    assert flat.for_submission("bob.py")["q3"].score == 1
