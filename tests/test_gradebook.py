"""Grades out: one gradebook row per student (a group's members each get its score), identity and
per-question columns, status with its reason, neutralised cells; a Canvas import file in Canvas's
column layout. The end-to-end test grades a small Gradescope-style export with the toy grader."""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from autograder.course.exports import METADATA_NAME, Entry, Student, discover
from autograder.course.feedback import feedback_name, write_feedback
from autograder.course.gradebook import (CANVAS_COLUMNS, build_rows, question_scores, questions, write_canvas_csv,
                                  write_gradebook)
from autograder.course.handscores import apply_hand_scores, read_hand_scores
from autograder.results import SubmissionResult
from autograder.results import TestReport as Report
from tests.conftest import FIXTURE_SUBS
from tests.test_exports import SLUG, gradescope_export

POINTS = {"q3": 4.0}


def fake_result(key: str, q1: float, q10: float = 0.0, status: str = "graded", message: str = "") -> SubmissionResult:
    tests = [Report(question="q1", name="a", device="cpu", max_score=2, score=q1, status="passed" if q1 == 2 else "failed"),
             Report(question="q10", name="b", device="cpu", max_score=3, score=q10, status="failed",
                    misconception="no_scale" if q10 == 0 else None),
             Report(question="q2", name="c", device="cpu", max_score=1, score=1, status="passed")]
    return SubmissionResult(submission=key, assignment=SLUG, status=status, message=message,
                            score=q1 + q10 + 1, max_score=6, tests=tests)


def read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_gradescope_class_one_row_per_student(tmp_path):
    found = discover(gradescope_export(tmp_path / "export"), SLUG, tmp_path / "scratch")
    results = [fake_result(e.key, q1=2 if e.key != "submission_102" else 1) for e in found.entries]
    results += found.rejected(SLUG, max_score=6)
    hand = tmp_path / "hand.csv"
    hand.write_text("sid,question,score,comment\n1001,q3,4,great\n1003,q3,1,\n")
    scores = read_hand_scores(hand, POINTS, found.entries)
    results = [apply_hand_scores(r, POINTS, scores) for r in results]
    path = write_gradebook(results, tmp_path / "gradebook.csv", found.entries, found.submitters())
    rows = read(path)
    header = list(rows[0])
    assert header[:9] == ["name", "sid", "email", "lms_id", "submission", "group_size", "score", "max_score", "q1"]
    assert header[9:12] == ["q2", "q3", "q10"]                                   # natural order
    assert header[12:] == ["status", "reason", "late", "submitted_at", "late_by", "penalty", "misconceptions"]
    by_sid = {r["sid"]: r for r in rows}
    ada = by_sid["1001"]
    assert (ada["name"], ada["email"], ada["score"], ada["max_score"], ada["q3"]) == \
        ("Ada Lovelace", "ada@example.edu", "7", "10", "4")
    assert ada["submitted_at"].startswith("2024-03-01") and ada["status"] == "graded" and ada["reason"] == ""
    grace, alan = by_sid["1002"], by_sid["1003"]                              # the group: same score each
    assert grace["submission"] == alan["submission"] == "submission_102"
    assert grace["group_size"] == alan["group_size"] == "2"
    assert grace["score"] == alan["score"] == "3" and grace["q1"] == "1" and grace["q3"] == "1"
    zip_person = by_sid["1004"]
    assert zip_person["reason"] == "awaiting hand grading: q3" and zip_person["misconceptions"] == "no_scale"
    empty = by_sid["1005"]
    assert empty["status"] == "rejected" and "no .ipynb" in empty["reason"] and empty["name"] == "Empty Folder"
    assert by_sid["1006"]["status"] == "rejected" and "several" in by_sid["1006"]["reason"]
    assert by_sid["1007"]["reason"].startswith("the export has no folder submission_106")
    assert len(rows) == 8          # 4 graded submissions (one a pair) + 3 problems with students


def test_hostile_cells_are_neutralised(tmp_path):
    entry = Entry(key="=cmd|'/C calc'!A0", path=Path("x"), layout="folder", source="x",
                  submitters=[Student(name="@SUM(1+1)", sid="+1", email="-2@x")])
    r = fake_result(entry.key, 2, message="=HYPERLINK(\"http://evil\")", status="rejected")
    path = write_gradebook([r], tmp_path / "g.csv", [entry])
    row = read(path)[0]
    assert row["name"] == "'@SUM(1+1)" and row["sid"] == "'+1" and row["email"] == "'-2@x"
    assert row["submission"].startswith("'=") and row["reason"].startswith("'=")
    assert row["score"] == "3"                                                # numbers stay numbers


def test_unknown_submissions_get_a_row_named_after_them(tmp_path):
    rows = build_rows([fake_result("alice.ipynb", 2)])
    assert [(r.student.name, r.submission) for r in rows] == [("alice.ipynb", "alice.ipynb")]
    assert question_scores(fake_result("x", 1, 2)) == {"q1": (1.0, 2.0), "q2": (1.0, 1.0), "q10": (2.0, 3.0)}
    assert questions([fake_result("x", 1)]) == ["q1", "q2", "q10"]


def test_canvas_import_layout(tmp_path):
    entries = [
        Entry(key="lovelaceada_1234_5678", path=Path("a"), layout="canvas", source="a",
              submitters=[Student(name="lovelaceada", lms_id="1234")]),
        Entry(key="submission_9", path=Path("b"), layout="gradescope", source="b",
              submitters=[Student(name="Grace Hopper", sid="1002", email="grace@x.edu"),
                          Student(name="Alan Turing", sid="1003")]),
        Entry(key="crashed", path=Path("c"), layout="folder", source="c",
              submitters=[Student(name="Crash Test", sid="1004")]),
        Entry(key="twice_a", path=Path("d"), layout="folder", source="d", submitters=[Student(name="T", sid="77")]),
        Entry(key="twice_b", path=Path("e"), layout="folder", source="e", submitters=[Student(name="T", sid="77")]),
        Entry(key="anon", path=Path("f"), layout="folder", source="f", submitters=[Student(name="=nobody")]),
    ]
    results = [fake_result("lovelaceada_1234_5678", 2), fake_result("submission_9", 1),
               fake_result("crashed", 0, status="worker_failed"), fake_result("twice_a", 2),
               fake_result("twice_b", 1), fake_result("anon", 2)]
    path = tmp_path / "canvas.csv"
    warnings = write_canvas_csv(results, path, "Attention from scratch", entries, canvas_assignment_id="4242",
                                points_possible=True)
    with open(path, newline="") as fh:
        lines = list(csv.reader(fh))
    assert lines[0] == CANVAS_COLUMNS + ["Attention from scratch (4242)"]
    assert lines[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert lines[1] == ["Points Possible", "", "", "", "", "6"]
    body = lines[2:]
    assert ["lovelaceada", "1234", "", "", "", "3"] in body
    assert ["Grace Hopper", "", "1002", "grace@x.edu", "", "2"] in body and ["Alan Turing", "", "1003", "", "", "2"] in body
    assert ["Crash Test", "", "1004", "", "", ""] in body                     # grader failed: no change
    assert not any(r[2] == "77" for r in body)                               # in two submissions: left out
    assert ["'=nobody", "", "", "", "", "3"] in body
    assert any("sid 77 is in 2 submissions" in w for w in warnings)
    assert any("no student id" in w and "=nobody (anon)" in w for w in warnings)


def test_end_to_end_with_the_toy_grader(tmp_path, toy_grader):
    """discover -> grade each entry -> hand scores -> gradebook, Canvas file and feedback, as batch will."""
    export = tmp_path / "export"
    (export / "submission_1").mkdir(parents=True)
    (export / "submission_2" / "nested").mkdir(parents=True)
    shutil.copy(FIXTURE_SUBS / "good.ipynb", export / "submission_1" / "toy.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", export / "submission_2" / "nested" / "mine.ipynb")
    (export / "submission_3").mkdir()
    (export / METADATA_NAME).write_text(
        "submission_1:\n  :submitters:\n  - {':name': Solo Student, ':sid': '100', ':email': solo@x.edu}\n"
        "submission_2:\n  :submitters:\n  - {':name': Pair One, ':sid': '200'}\n  - {':name': Pair Two, ':sid': '201'}\n"
        "submission_3:\n  :submitters:\n  - {':name': Nothing Sent, ':sid': '300'}\n")
    found = discover(export, "toy", tmp_path / "scratch")
    assert sorted(e.key for e in found.entries) == ["submission_1", "submission_2"]
    results = []
    for e in found.entries:
        r = toy_grader.grade(e.path, "toy", seed=1)
        r.submission = e.key                           # the key, not the file name, names the result
        results.append(r)
    results += found.rejected("toy", toy_grader.max_score("toy"),
                              tests=lambda m: toy_grader.failed_everything("toy", m))
    hand = tmp_path / "hand.csv"
    hand.write_text("sid,question,score,comment\n100,q3,2,Correct.\n201,q3,1,Half of it.\n")
    points = {"q3": 2.0}
    scores = read_hand_scores(hand, points, found.entries)
    results = [apply_hand_scores(r, points, scores) for r in results]

    rows = {r["sid"]: r for r in read(write_gradebook(results, tmp_path / "gradebook.csv", found.entries,
                                                       found.submitters()))}
    assert set(rows) == {"100", "200", "201", "300"}
    assert (rows["100"]["score"], rows["100"]["max_score"], rows["100"]["q3"]) == ("6", "6", "2")
    assert rows["200"]["score"] == rows["201"]["score"] == "2" and rows["200"]["q1"] == "1"   # no_scale: 1 of q1's 3
    assert rows["200"]["misconceptions"] == "no_scale" and rows["200"]["group_size"] == "2"
    assert rows["300"]["status"] == "rejected" and rows["300"]["q1"] == "0" and rows["300"]["max_score"] == "6"

    warnings = write_canvas_csv(results, tmp_path / "canvas.csv", "Toy", found.entries, found.submitters())
    assert warnings == []
    pages = write_feedback(results, tmp_path / "feedback", entries=found.entries, title="toy attention")
    solo = pages["submission_1"].read_text()
    assert pages["submission_1"].name == feedback_name("submission_1")
    assert "Solo Student" in solo and "Total: <b>6</b> / 6" in solo and "Correct." in solo
    assert "Because variance adds over d_k terms." in solo                             # the written answer
    pair = pages["submission_2"].read_text()
    assert "Pair One, Pair Two" in pair and "toy: the scores were not divided by sqrt(d_k)" in pair and "Half of it." in pair
    nothing = pages["submission_3"].read_text()
    assert "Your submission could not be graded" in nothing and "no .ipynb" in nothing


@pytest.mark.parametrize("key", ["submission_1"])
def test_feedback_links_are_relative(key):
    assert "/" not in feedback_name(key) and feedback_name(key) == "submission_1.html"


def test_grader_side_problems_are_in_the_reason(tmp_path):
    r = fake_result("alice.ipynb", 2, message="cell 3: NameError: x")
    r.infra = "2 cases not run: CUDA unusable in the sandbox"
    row = read(write_gradebook([r], tmp_path / "g.csv"))[0]
    assert row["status"] == "graded"
    assert row["reason"] == "notebook errors: cell 3: NameError: x; grader: 2 cases not run: CUDA unusable in the sandbox"


def test_per_question_averages_and_who_made_each_misconception():
    from autograder.course.gradebook import misconception_students, question_averages
    group = Entry(key="g", path=Path("g"), layout="gradescope", source="g",
                  submitters=[Student(name="Pair One", sid="1"), Student(name="Pair Two", sid="2")])
    results = [fake_result("g", 2, 0), fake_result("solo.ipynb", 1, 3),
               fake_result("bad", 0, 0, status="rejected")]
    assert question_averages(results) == [("q1", 1.5, 2.0, 2), ("q2", 1.0, 1.0, 2), ("q10", 1.5, 3.0, 2)]
    assert question_averages(results, graded_only=False)[0] == ("q1", 1.0, 2.0, 3)
    who = misconception_students(results, [group])
    assert who == {"no_scale": [("Pair One", "g"), ("Pair Two", "g"), ("bad", "bad")]}
