"""Grades out: the class gradebook (one row per student) and an LMS import file.

gradebook.csv columns, in order:

    name, sid, email, lms_id      who (exports.Student); a group's members each get a row of their own
    submission                    the submission's key (results/<results_name(key)>, feedback/<feedback_name(key)>)
    group_size                    how many students share the submission
    score, max_score              the submission's total, hand-graded questions included once merged,
                                  after the late penalty (the question columns are before it:
                                  score = their sum - penalty)
    <one column per question>     points per question (q1, q2, ... in natural order; hidden, public and
                                  hand-graded tests of the question summed; maxima in max_score only)
    status, reason                graded / rejected / worker_failed, and why in one line: the rejection
                                  reason, the notebook's cell errors, grader-side cases not run,
                                  questions awaiting hand grading
    late, submitted_at            from the export, where it says; `late` is also yes for a submission
                                  that came after the late policy's due time (grace or not)
    late_by, penalty              with a late policy (grading.yml, autograder.course.lateness): how long after
                                  the due time ("1 day 3 h"; empty when on time or the export gives no
                                  time) and the points the policy took off (0 on time, within the grace
                                  or waived). Both empty without a policy. A waiver, and an export time
                                  that could not be read, are said in `reason`
    misconceptions                the misconception keys its tests named

Canvas's gradebook import (Grades > Import, a CSV) expects, in this order:

    Student, ID, SIS User ID, SIS Login ID, Section, <assignment column>

Canvas matches each row to a student by ID (its own user id: known here for a Canvas download, where
the file names carry it), else SIS User ID (the sid: known for a Gradescope export), else SIS Login
ID (filled with the email by default; leave it out with login_id=None where logins are not emails).
The assignment column carries the final score: after the late policy's penalty. Its header is the
assignment's name, with its Canvas id in parentheses to update an existing assignment ("Attention
(123456)"); a name Canvas does not know creates a new assignment.
A submission the grader failed on (worker_failed) leaves its cell empty, which Canvas reads as "no
change"; a rejected one scores 0. A student found in more than one submission is left out and named in
the returned warnings: nothing is guessed.

Every text cell goes through text.csv_cell (no formulas in a spreadsheet); numbers are ours.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from autograder.course.exports import Entry, Student
from autograder.text import clean
from autograder.course.handscores import AWAITING, is_hand_test
from autograder.course.lateness import Lateness, reason_text
from autograder.results import SubmissionResult

IDENTITY_COLUMNS = ["name", "sid", "email", "lms_id"]
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def _natural(text: str) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text)]


def question_scores(result: SubmissionResult) -> dict[str, tuple[float, float]]:
    """{question: (score, max)} over every test of the question, in natural question order."""
    out: dict[str, list[float]] = {}
    for t in result.tests:
        acc = out.setdefault(t.question, [0.0, 0.0])
        acc[0] += t.score
        acc[1] += t.max_score
    return {q: (round(v[0], 6), round(v[1], 6)) for q, v in sorted(out.items(), key=lambda kv: _natural(kv[0]))}


def questions(results: Iterable[SubmissionResult]) -> list[str]:
    """Every question any result has a test for, in natural order (q2 before q10)."""
    return sorted({t.question for r in results for t in r.tests}, key=_natural)


def question_averages(results: Iterable[SubmissionResult], graded_only: bool = True
                      ) -> list[tuple[str, float, float, int]]:
    """(question, mean score, max, submissions counted) per question, for the class report. Rejected
    and failed submissions are left out unless `graded_only` is False."""
    sums: dict[str, list[float]] = {}
    for r in results:
        if graded_only and r.status != "graded":
            continue
        for q, (score, out_of) in question_scores(r).items():
            acc = sums.setdefault(q, [0.0, 0.0, 0])
            acc[0] += score
            acc[1] = max(acc[1], out_of)
            acc[2] += 1
    return [(q, round(v[0] / v[2], 6) if v[2] else 0.0, v[1], int(v[2]))
            for q, v in sorted(sums.items(), key=lambda kv: _natural(kv[0]))]


def misconception_students(results: Iterable[SubmissionResult], entries: Iterable[Entry] = (),
                           submitters: Optional[dict[str, list[Student]]] = None) -> dict[str, list[tuple[str, str]]]:
    """{misconception key: [(student label, submission key), ...]}: who made each, every member of a
    group named, most common misconception first."""
    who = dict(submitters or {})
    for e in entries:
        who.setdefault(e.key, e.submitters)
    out: dict[str, list[tuple[str, str]]] = {}
    for r in results:
        people = who.get(r.submission) or [Student(name=clean(r.submission))]
        for key in sorted(set(r.misconceptions)):
            out.setdefault(key, []).extend((p.label, r.submission) for p in people)
    return dict(sorted(out.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def reason(result: SubmissionResult, limit: int = 300, late: Optional[Lateness] = None) -> str:
    """Why a submission has the status it has, in one line (with a late waiver, or an export time that
    could not be read, when `late` says so)."""
    parts = []
    if result.message:
        parts.append(result.message if result.status != "graded" else f"notebook errors: {result.message}")
    infra = getattr(result, "infra", None)
    if infra:
        parts.append(f"grader: {infra}")
    waiting = [t.question for t in result.tests if is_hand_test(t) and t.message == AWAITING]
    if waiting:
        parts.append(f"awaiting hand grading: {', '.join(waiting)}")
    late_note = reason_text(late)
    if late_note:
        parts.append(late_note)
    return clean("; ".join(parts), limit)


@dataclass
class Row:
    student: Student
    submission: str
    group_size: int
    score: float
    max_score: float
    per_question: dict[str, float]
    status: str
    reason: str
    late: bool = False
    submitted_at: str = ""
    misconceptions: list[str] = field(default_factory=list)
    late_by: str = ""
    penalty: Optional[float] = None      # None: no late policy (or the grader failed: nothing to take off)


def build_rows(results: Iterable[SubmissionResult], entries: Iterable[Entry] = (),
               submitters: Optional[dict[str, list[Student]]] = None,
               lateness: Optional[dict[str, Lateness]] = None) -> list[Row]:
    """One row per student per submission. `entries` (exports.Discovery.entries) or `submitters`
    (Discovery.submitters(), which also covers problems) say who; a result nobody is known for gets
    one row named after its submission. `lateness` (lateness.assess_class) gives each score after
    the late penalty, and the late columns."""
    by_key = {e.key: e for e in entries}
    who = dict(submitters or {})
    for key, known in by_key.items():
        who.setdefault(key, known.submitters)
    rows = []
    for r in results:
        people = who.get(r.submission) or [Student(name=clean(r.submission))]
        e = by_key.get(r.submission)
        per_q = {q: s for q, (s, _) in question_scores(r).items()}
        late = (lateness or {}).get(r.submission)
        applies = late is not None and late.applies and r.status != "worker_failed"
        for person in people:
            rows.append(Row(student=person, submission=r.submission, group_size=len(people),
                            score=late.final(r) if late is not None else r.score,
                            max_score=r.max_score, per_question=per_q, status=r.status, reason=reason(r, late=late),
                            late=bool(e and e.late) or bool(late and late.late), submitted_at=e.created_at if e else "",
                            misconceptions=sorted(set(r.misconceptions)),
                            late_by=late.late_by_text if late is not None and late.applies else "",
                            penalty=late.deduction(r) if late is not None and applies else None))
    return rows


# Canvas's GradebookImporter#check_for_non_student_row: `row[0] =~ /Points Possible/` (any case and any run of
# spaces here, read in NFKC: wider than Canvas's test, so no spelling of it slips through)
_CANVAS_POINTS_POSSIBLE = re.compile(r"points\s*possible", re.IGNORECASE)


def reads_as_points_possible(name: str) -> bool:
    """Whether Canvas's gradebook import would take a row with this Student cell for its points-possible row."""
    return bool(_CANVAS_POINTS_POSSIBLE.search(unicodedata.normalize("NFKC", name)))


def _write(path: Path, header: list[str], rows: Iterable[list[str]]) -> Path:
    """The CSV written whole or not at all (autograder.course.atomic): a full disk leaves the old file."""
    from autograder.course.atomic import write_atomic
    text = io.StringIO(newline="")
    w = csv.writer(text)
    w.writerow(header)
    w.writerows(rows)
    write_atomic(path, text.getvalue())
    return path


def write_gradebook(results: list[SubmissionResult], path: Path, entries: Iterable[Entry] = (),
                    submitters: Optional[dict[str, list[Student]]] = None,
                    lateness: Optional[dict[str, Lateness]] = None) -> Path:
    """gradebook.csv: the columns in this module's docstring."""
    from autograder.text import csv_cell
    qs = questions(results)
    header = [*IDENTITY_COLUMNS, "submission", "group_size", "score", "max_score", *qs, "status", "reason",
              "late", "submitted_at", "late_by", "penalty", "misconceptions"]

    def line(row: Row) -> list[str]:
        s = row.student
        return [csv_cell(s.name), csv_cell(s.sid), csv_cell(s.email), csv_cell(s.lms_id), csv_cell(row.submission),
                str(row.group_size), f"{row.score:g}", f"{row.max_score:g}",
                *[f"{row.per_question[q]:g}" if q in row.per_question else "" for q in qs],
                csv_cell(row.status), csv_cell(row.reason), "yes" if row.late else "",
                csv_cell(row.submitted_at), csv_cell(row.late_by), "" if row.penalty is None else f"{row.penalty:g}",
                csv_cell(";".join(row.misconceptions))]

    return _write(path, header, (line(r) for r in build_rows(results, entries, submitters, lateness)))


def write_canvas_csv(results: list[SubmissionResult], path: Path, assignment: str,
                     entries: Iterable[Entry] = (), submitters: Optional[dict[str, list[Student]]] = None,
                     canvas_assignment_id: Optional[str] = None, login_id: Optional[str] = "email",
                     points_possible: bool = False, lateness: Optional[dict[str, Lateness]] = None) -> list[str]:
    """An import file for Canvas's gradebook (module docstring): each score after the late penalty
    `lateness` gives. Returns warnings for the terminal: students left out (in several submissions)
    and students Canvas can match by name only."""
    from autograder.text import csv_cell
    rows = build_rows(results, entries, submitters, lateness)
    warnings: list[str] = []
    # Canvas matches a row by its ID, else its SIS User ID, else its login: a row is left out when ANY of those
    # values is another submission's too, not only its strongest (a row with sid and email beside a row with the
    # same email and no sid: Canvas put the second row's score on the first student, red-team round 63)
    def matchable(s: Student) -> list[tuple[str, str]]:
        return [(kind, value.lower() if kind == "email" else value)
                for kind in ("sid", "email", "lms_id") if (value := getattr(s, kind))]

    owners: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        for key in matchable(row.student):
            owners.setdefault(key, set()).add(row.submission)
    twice = {ident for ident, subs in owners.items() if len(subs) > 1}

    def shared(s: Student) -> bool:
        return any(key in twice for key in matchable(s))
    for kind, value in sorted(twice):
        warnings.append(f"{kind} {value} is in {len(owners[(kind, value)])} submissions "
                        f"({', '.join(sorted(owners[(kind, value)])[:5])}): left out of the Canvas file")
    # Rows without an id are matched by name: two such rows with one name (`bob.ipynb` and `bob<U+200B>.ipynb`,
    # whose invisible character the name drops) would put either score on that student: both are left out
    def by_name_only(s: Student) -> bool:
        return not (s.lms_id or s.sid or (s.email and login_id == "email"))

    def name_key(s: Student) -> str:
        return unicodedata.normalize("NFKC", s.name).casefold().strip()
    named: dict[str, set[str]] = {}
    for row in rows:
        if not shared(row.student) and by_name_only(row.student):
            named.setdefault(name_key(row.student), set()).add(row.submission)
    same_name = {name for name, subs in named.items() if len(subs) > 1}
    for name in sorted(same_name):
        subs = sorted(named[name])
        warnings.append(f"{len(subs)} submissions without a student id have the name '{clean(name, 80)}' "
                        f"({', '.join(subs[:5])}): left out of the Canvas file (Canvas would match each to one "
                        "student by name)")
    # Canvas's import reads a row whose Student cell matches /Points Possible/ as the row that sets the assignment's
    # points possible, not as a student: a name a student chose (a file's stem, a Gradescope or Moodle profile name)
    # put the whole class's grades out of that student's score (red-team round 80). Such a row is left out, said.
    posing = sorted({row.submission for row in rows if reads_as_points_possible(row.student.name)})
    if posing:
        warnings.append(f"{len(posing)} submission(s) with 'Points Possible' in a student's name "
                        f"({', '.join(posing[:5])}): left out of the Canvas file (Canvas's import reads such a row as "
                        "the assignment's points possible): enter their scores by hand")
    column = clean(assignment, 200) + (f" ({clean(canvas_assignment_id, 40)})" if canvas_assignment_id else "")
    lines = []
    if points_possible:
        top = max((r.max_score for r in results), default=0.0)
        lines.append(["Points Possible", "", "", "", "", f"{top:g}"])
    anonymous: list[str] = []
    for row in rows:
        s = row.student
        if shared(s) or (by_name_only(s) and name_key(s) in same_name) or reads_as_points_possible(s.name):
            continue
        if by_name_only(s):
            anonymous.append(f"{s.label} ({row.submission})")
        score = "" if row.status == "worker_failed" else f"{row.score:g}"
        lines.append([csv_cell(s.name), csv_cell(s.lms_id), csv_cell(s.sid),
                      csv_cell(s.email if login_id == "email" else ""), "", score])
    if anonymous:  # one note, not one per row: a flat folder of files has no ids at all
        more = f" and {len(anonymous) - 3} more" if len(anonymous) > 3 else ""
        warnings.append(f"{len(anonymous)} row(s) have no student id, so Canvas can match them by name only: "
                        f"{', '.join(anonymous[:3])}{more}")
    _write(path, [*CANVAS_COLUMNS, csv_cell(column)], lines)
    return warnings
