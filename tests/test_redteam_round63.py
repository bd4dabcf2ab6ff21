"""Red-team round 63: who a submission belongs to and when it came in (late policy, extensions, exports,
hand-scores resolution). Each test fails on the code as found and passes once the problem is fixed.

No grading here: the exports are discovered and the outputs written from made-up results (as
tests/test_lateness.py does), so each test takes well under a second."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.course.exports import METADATA_NAME, ExportError, discover
from autograder.course.handscores import HandScoreError, read_hand_scores, write_template
from tests.conftest import FIXTURE_SUBS
from tests.test_lateness import course_with_policy, fake_results, rows_of


def _export(root: Path, records: list[tuple[str, str, str]]) -> Path:
    """A Gradescope export: (folder, sid, created_at as Gradescope writes it, unquoted)."""
    root.mkdir(parents=True)
    lines = []
    for folder, sid, created in records:
        lines.append(f"{folder}:\n  :submitters:\n  - :name: Student {sid}\n    :sid: '{sid}'\n"
                     f"  :created_at: {created}\n")
        (root / folder).mkdir()
        shutil.copy(FIXTURE_SUBS / "good.ipynb", root / folder / "toy.ipynb")
    (root / METADATA_NAME).write_text("".join(lines))
    return root


# --- 1. an extension to a wall time daylight saving skips is accepted, then silently ignored -------------------
@pytest.mark.parametrize("until", ["2024-03-10T02:30", "2024-11-03T01:30"])   # New York: skipped / repeated
def test_an_extension_read_without_complaint_is_honoured(tmp_path, until):
    """read_hand_scores checks an extension's time in UTC, lateness.assess reads it in the policy's zone: a
    time that zone skips (or repeats) passes the check, then the extension is dropped with a note and the
    student pays the full penalty (here: 0 points, more than 3 days late). Either the file is refused, naming
    the row (as a due time in a gap is refused in grading.yml), or the extension holds."""
    from autograder.course.batch import write_outputs
    course = course_with_policy(tmp_path / "course")   # due 2024-03-08 23:59 New York, zero after 3 days
    found = discover(_export(tmp_path / "export", [("submission_1", "1001", "2024-03-10 01:00:00.000000000 -05:00"),
                                                   ("submission_2", "1002", "2024-03-08 23:00:00.000000000 -05:00")]),
                     "toy", tmp_path / "scratch")
    hand_csv = tmp_path / "hand.csv"
    hand_csv.write_text(f"sid,late,comment\n1001,{until},extension to Sunday night\n")
    try:
        hand = read_hand_scores(hand_csv, {"q3": 2.0}, found.entries, submitters=found.submitters())
    except HandScoreError as e:                 # refused, the row named: the instructor gives the offset
        assert "row 2" in str(e), str(e)
        return
    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    write_outputs(fake_results(found), course, "toy", out, found=found, hand=hand)
    row = {r["sid"]: r for r in rows_of(out / "gradebook.csv")}["1001"]
    # submitted 2024-03-10 01:00 -05:00, before the extension's 02:30/01:30 wall time: on time
    assert (row["penalty"], row["score"]) == ("0", "4"), row   # 4 of 4, q3 awaiting


# --- 2. one submission's impossible time stops the whole class ------------------------------------------------
@pytest.mark.parametrize("bad", ["2016-12-31 23:59:60.000000000 +00:00",     # a leap second
                                 "2024-02-30 10:00:00.000000000 -08:00",     # no such day
                                 "0000-03-01 10:00:00.000000000 -08:00"])    # year 0
def test_an_impossible_created_at_is_that_rows_warning_not_the_class_refused(tmp_path, bad):
    """PyYAML turns an unquoted `:created_at:` into a datetime while loading the whole file: a time it cannot
    build raises ValueError, which becomes ExportError ("could not be read: ValueError") and stops the batch
    for every student. lateness.py promises a time not understood is a warning on its row, never a crash."""
    export = _export(tmp_path / "export", [("submission_1", "1001", "2024-03-08 23:00:00.000000000 -05:00"),
                                           ("submission_2", "1002", bad)])
    try:
        found = discover(export, "toy", tmp_path / "scratch")
    except ExportError as e:
        pytest.fail(f"one row's time refused the whole export: {e}")
    by_key = {e.key: e for e in found.entries}
    assert set(by_key) == {"submission_1", "submission_2"}
    import datetime as dt
    from autograder.latepolicy import parse_time
    assert parse_time(by_key["submission_1"].created_at) == dt.datetime(2024, 3, 9, 4, 0, tzinfo=dt.timezone.utc)


# --- 3. the submission column the grader writes is not read back for names a student chose --------------------
def test_submission_keys_round_trip_through_the_files_the_grader_writes(tmp_path):
    """csv_cell puts ' before a key that starts with a full-width sign (＋, ＝, －, ＠) as before an ASCII one;
    handscores._unquote strips it only before ASCII = + - @ (its own, shorter _FORMULA_START).
    A student who names their file `＋bob.ipynb` in a flat class makes the hand-scores file the grader's own
    template (or gradebook.csv's submission column) gives refused as a whole: "no submission '＋bob.ipynb'"."""
    from autograder.course.gradebook import write_gradebook
    flat = tmp_path / "class"
    flat.mkdir()
    names = ["\uff0bbob.ipynb", "\u200b-eve.ipynb", "\uff1dzed.ipynb", "+ok.ipynb", "plain.ipynb"]
    for name in names:
        shutil.copy(FIXTURE_SUBS / "good.ipynb", flat / name)
    found = discover(flat, "toy", tmp_path / "scratch")
    keys = {e.key for e in found.entries}
    assert len(keys) == len(names)
    results = fake_results(found)

    template = tmp_path / "template.csv"
    write_template(results, {"q3": 2.0}, template, found.entries)
    lines = template.read_text(encoding="utf-8").splitlines()
    filled = [lines[0]] + [line.replace(",q3,,", ",q3,2,") for line in lines[1:]]
    template.write_text("\n".join(filled) + "\n", encoding="utf-8")
    hand = read_hand_scores(template, {"q3": 2.0}, found.entries)     # raises HandScoreError today
    assert set(hand.scores) == keys

    write_gradebook(results, tmp_path / "gradebook.csv", found.entries)
    typed = tmp_path / "from_gradebook.csv"
    import csv
    with open(typed, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["submission", "question", "score", "comment"])
        for r in rows_of(tmp_path / "gradebook.csv"):
            w.writerow([r["submission"], "q3", "1", "ok"])
    assert set(read_hand_scores(typed, {"q3": 2.0}, found.entries).scores) == keys


# --- 4. canvas.csv: one person reached through two columns ---------------------------------------------------
def test_canvas_csv_never_gives_one_student_two_rows_through_different_columns(tmp_path):
    """canvas.csv leaves out a student found in two submissions, but compares only each row's strongest
    identity (sid, else email, else user id). A row with a sid and an email and a row with the same email and
    no sid (Ada@Example.edu: the case differs too) are two identities to it, both written, without a warning;
    Canvas, by the order gradebook.py documents (ID, else SIS User ID, else SIS Login ID), matches both to Ada,
    and the second row's score replaces hers."""
    from autograder.course.gradebook import write_canvas_csv
    root = tmp_path / "export"
    root.mkdir()
    for folder in ("submission_1", "submission_4"):
        (root / folder).mkdir()
        shutil.copy(FIXTURE_SUBS / "good.ipynb", root / folder / "toy.ipynb")
    (root / METADATA_NAME).write_text(
        "submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: '1001'\n    :email: ada@example.edu\n"
        "  :created_at: 2024-03-01 10:15:00.000000000 -08:00\n"
        "submission_4:\n  :submitters:\n  - :name: Dee\n    :email: Ada@Example.edu\n"
        "  :created_at: 2024-03-01 10:15:00.000000000 -08:00\n")
    found = discover(root, "toy", tmp_path / "scratch")
    out = tmp_path / "canvas.csv"
    write_canvas_csv(fake_results(found, {"submission_1": 1.0}), out, "toy", found.entries, found.submitters())
    rows = rows_of(out)

    def canvas_match(r: dict[str, str]) -> tuple[str, str]:
        if r["ID"]:
            return "id", r["ID"]
        if r["SIS User ID"]:
            return "sis", r["SIS User ID"]
        return "login", r["SIS Login ID"].lower()
    ada = [r for r in rows if canvas_match(r) in {("sis", "1001"), ("login", "ada@example.edu")}]
    assert len(ada) <= 1, rows
