"""Hand grading: scores and comments for written answers, read from a CSV the instructor fills in, merged
into each SubmissionResult as one test report per hand-graded question.

The CSV (UTF-8, with or without Excel's BOM; header names are case-insensitive):

    sid,question,score,comment              # or: submission,question,score,comment
    1001,q3,4,"Clear proof; independence stated."
    alice.ipynb,q3,2.5,Variance of the sum is not justified.

- `sid` finds the submission of the student with that id (Gradescope's sid; for an LMS download
  without one, the LMS user id or the email); in a group, any member's sid finds the group's
  submission, and the score counts for all its members. `submission` is the submission's key as it
  appears in gradebook.csv. A row may give both; they must agree.
- `question` must be a hand-graded question of the assignment, with its points declared in
  grading.yml (`manual_points`). `score` is a number from 0 to those points. A row with an empty
  score is skipped (not graded yet); `comment` is optional. `name` and `email` columns may be present
  (for the instructor's eyes) and are ignored.
- Every problem is reported at once, each naming its row; nothing is merged unless the whole file is
  valid. A hand-graded question with no row yet counts 0 of its points, marked "awaiting hand
  grading", so the maximum always includes it.
- An optional `late` column waives a submission's late penalty (autograder.course.lateness), on a row of its
  own with `question` and `score` empty: `waive` (no penalty; the lateness is still shown), or a time
  (an extension: the submission's own due time, ISO 8601, e.g. 2024-03-08T23:59-05:00, or without an
  offset in the policy's timezone). `comment` says why; the feedback page, gradebook and report say it
  too. As for scores, a group's submission is found by any member's sid and the waiver covers the
  group. With a `late` column, `question` and `score` may be left out of the header:

    sid,late,comment
    1004,waive,Extension: medical note.
    1002,2024-03-04T23:59-08:00,Extension to Monday.
"""
from __future__ import annotations

import csv
import datetime
import io
import json
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from autograder.config import AssignmentSettings, Course
from autograder.errors import ConfigError, GraderError
from autograder.course.exports import Entry, Student
from autograder.text import clean, csv_uncell
from autograder.results import SubmissionResult, TestReport

HAND_TEST_NAME = "written answer (graded by hand)"
AWAITING = "awaiting hand grading"
MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 100_000
MAX_COMMENT = 4000
KNOWN_COLUMNS = ("sid", "submission", "question", "score", "comment", "name", "email", "late")
WAIVE_WORDS = ("waive", "waived")


class HandScoreError(GraderError):
    """The hand-scores file cannot be used. `errors` lists every problem, each naming its row."""

    def __init__(self, path: Path, errors: list[str]) -> None:
        self.errors = errors
        shown = errors[:50] + ([f"... and {len(errors) - 50} more"] if len(errors) > 50 else [])
        super().__init__(f"{path.name}: {len(errors)} problem{'s' if len(errors) != 1 else ''} "
                         f"(nothing merged): " + "; ".join(shown))


@dataclass(frozen=True)
class HandScore:
    key: str            # the submission
    question: str
    score: float
    comment: str
    row: int            # line in the CSV (the header is line 1)


@dataclass(frozen=True)
class Waiver:
    """A hand-scores row's `late` cell: the submission's late penalty waived (`until` empty) or its due
    time moved to `until` (an extension, as written: read with the policy's timezone)."""
    key: str
    until: str
    reason: str
    row: int


@dataclass
class HandScores:
    """Valid hand scores, by submission key then question, and late-penalty waivers by submission key."""
    points: dict[str, float]
    scores: dict[str, dict[str, HandScore]] = field(default_factory=dict)
    waivers: dict[str, Waiver] = field(default_factory=dict)

    def for_submission(self, key: str) -> dict[str, HandScore]:
        return self.scores.get(key, {})

    def __len__(self) -> int:
        return sum(len(v) for v in self.scores.values())


def hand_points(settings: AssignmentSettings, slug: str = "") -> dict[str, float]:
    """{question: points} of the hand-graded questions, from grading.yml. Raises ConfigError when
    manual_points names a question that `manual` does not list."""
    manual = list(dict.fromkeys(settings.manual))
    where = f"assignments.{slug}." if slug else ""
    for q in settings.manual_points:
        if q not in manual:
            raise ConfigError(f"grading.yml: bad value at '{where}manual_points.{q}': {q} is not one of the "
                              f"hand-graded questions listed in manual ({', '.join(manual) or 'none'})")
    return {q: float(settings.manual_points[q]) for q in manual if q in settings.manual_points}


def _unquote(value: str) -> str:
    """A cell as a person meant it: the "'" that csv_cell puts before a formula-like value is dropped."""
    return csv_uncell(value)


def _submission_key(cells: list[str], at: Optional[int], keys: set[str]) -> str:
    """The submission a row's cell names. A key may begin with a space (exports._key keeps a file name's leading
    U+0020, U+00A0, U+3000 before its hash), and write_template writes it so: read as written first, then stripped
    as every cell is, then as the one key that reads the same stripped (a spreadsheet that trims cells). One
    student's name had made the grader's own template unreadable, every hand score refused (red-team round 75)."""
    written = cells[at] if at is not None and at < len(cells) else ""
    raw = _unquote(written)
    if raw in keys:
        return raw
    stripped = _unquote(written.strip())
    if stripped in keys or not stripped:
        return stripped
    trimmed = [k for k in keys if k.strip() == stripped]
    return trimmed[0] if len(trimmed) == 1 else stripped


def read_hand_scores(path: Path, points: dict[str, float], entries: Iterable[Entry] = (),
                     submissions: Iterable[str] = (),
                     submitters: Optional[dict[str, list[Student]]] = None) -> HandScores:
    """Read and validate `path`. `entries` (from exports.discover, or the roster) and `submitters`
    (Discovery.submitters(): problems too) resolve sids and submission keys; `submissions` adds keys
    with no known students (e.g. a flat folder's results). Raises HandScoreError listing every bad
    row; returns only when every row is valid."""
    path = Path(path)
    try:
        # a regular file only, read to the bound: /dev/zero (or a link to it) has st_size 0 and read_bytes took all
        # memory until the kernel killed the batch; a FIFO waited for ever (red-team round 106)
        with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NONBLOCK)) as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise HandScoreError(path, ["it is not a regular file (a device, a pipe or a folder)"])
            raw = f.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise HandScoreError(path, [f"the file is larger than {MAX_BYTES // (1024 * 1024)} MiB"])
    except OSError as e:
        raise GraderError(f"cannot read {path}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise HandScoreError(path, [f"the file is not UTF-8 text (byte {e.start}): save it as CSV UTF-8"]) from None

    owners = dict(submitters or {})
    for entry in entries:
        owners.setdefault(entry.key, entry.submitters)
    keys = set(owners) | set(submissions)
    by_ident: dict[tuple[str, str], set[str]] = {}
    for owned, people in owners.items():
        for person in people:
            for kind in ("sid", "lms_id", "email"):
                value = getattr(person, kind)
                if value:
                    by_ident.setdefault((kind, value.lower() if kind == "email" else value), set()).add(owned)

    errors: list[str] = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as e:
        raise HandScoreError(path, [f"row 1: not CSV ({e})"]) from None
    if header is None:
        raise HandScoreError(path, ["the file is empty: it needs a header row (sid,question,score,comment)"])
    columns = [clean(h, 40).lower() for h in header]
    unknown = [c for c in columns if c not in KNOWN_COLUMNS]
    # a file of waivers alone needs no question or score column
    missing = [c for c in ("question", "score") if c not in columns and "late" not in columns]
    if unknown:
        errors.append(f"row 1: unknown column{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                      f"(known: {', '.join(KNOWN_COLUMNS)})")
    if missing:
        errors.append(f"row 1: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    if "sid" not in columns and "submission" not in columns:
        errors.append("row 1: needs a sid or a submission column to say whose score each row is")
    dupes = sorted({c for c in columns if columns.count(c) > 1})
    if dupes:
        errors.append(f"row 1: column{'s' if len(dupes) > 1 else ''} {', '.join(dupes)} appear more than once")
    if errors:
        raise HandScoreError(path, errors)
    col = {c: i for i, c in enumerate(columns)}

    result = HandScores(points=dict(points))
    first_row: dict[tuple[str, str], int] = {}
    line = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            errors.append(f"row {line + 1}: not CSV ({e})")
            break
        line += 1
        row = line          # the row number a spreadsheet shows (a quoted cell may span lines)
        if line > MAX_ROWS + 1:
            errors.append(f"more than {MAX_ROWS} rows")
            break
        if not any(c.strip() for c in cells):
            continue

        def cell(name: str, cells: list[str] = cells) -> str:
            i = col.get(name)
            return cells[i].strip() if i is not None and i < len(cells) else ""

        if len(cells) > len(columns):
            errors.append(f"row {row}: {len(cells)} cells but {len(columns)} columns")
            continue
        sid, sub = _unquote(cell("sid")), _submission_key(cells, col.get("submission"), keys)
        question, score_text = clean(cell("question"), 100), cell("score")
        comment = _comment(cell("comment"))
        late_text = cell("late")
        who = clean(sid or sub, 80)
        if late_text and (question or score_text):
            errors.append(f"row {row}: a late waiver goes on a row of its own: leave question and score empty")
            continue
        if not score_text and not late_text:
            if comment:
                errors.append(f"row {row}: a comment for {who} {question} but no score")
            continue
        # whose
        key: Optional[str] = None
        if sid:
            # every kind at once: the first kind with a match won, so a classmate whose self-typed Gradescope sid is
            # this e-mail took the score or extension written for it (red-team round 102); two owners are refused
            matches: set[str] = set()
            for kind in ("sid", "lms_id", "email"):
                matches |= by_ident.get((kind, sid.lower() if kind == "email" else sid), set())
            if not matches:
                errors.append(f"row {row}: no submission belongs to sid {clean(sid, 80)!r}")
                continue
            if len(matches) > 1 and sub not in matches:
                errors.append(f"row {row}: sid {clean(sid, 80)!r} is in {len(matches)} submissions "
                              f"({', '.join(sorted(matches)[:5])}): add a submission column to say which")
                continue
            key = sub if sub in matches else next(iter(matches))
            if sub and sub != key:
                errors.append(f"row {row}: sid {clean(sid, 80)!r} belongs to submission {key!r}, "
                              f"not {clean(sub, 80)!r}")
                continue
        else:
            if not sub:
                errors.append(f"row {row}: neither a sid nor a submission given")
                continue
            if sub not in keys:
                errors.append(f"row {row}: no submission {clean(sub, 80)!r} in this batch")
                continue
            key = sub
        if late_text:
            problem = _waiver_problem(late_text)
            if problem:
                errors.append(f"row {row}: late {clean(late_text, 40)!r} {problem}")
            elif key in result.waivers:
                errors.append(f"row {row}: a second late waiver for {clean(key, 80)} (first on row "
                              f"{result.waivers[key].row})")
            else:
                until = "" if late_text.lower() in WAIVE_WORDS else late_text
                result.waivers[key] = Waiver(key=key, until=until, reason=comment, row=row)
            continue
        # what
        if question not in points:
            known = ", ".join(points) or "none: declare them in grading.yml (manual_points)"
            errors.append(f"row {row}: {question!r} is not a hand-graded question with points "
                          f"(hand-graded: {known})")
            continue
        try:
            score = float(score_text)
        except ValueError:
            errors.append(f"row {row}: score {clean(score_text, 40)!r} is not a number")
            continue
        if not math.isfinite(score) or score < 0:
            errors.append(f"row {row}: score {clean(score_text, 40)} must be a number from 0 to {points[question]:g}")
            continue
        if score > points[question] + 1e-9:
            errors.append(f"row {row}: score {score:g} is above the {points[question]:g} points of {question}")
            continue
        if (key, question) in first_row:
            errors.append(f"row {row}: a second score for {clean(key, 80)} {question} "
                          f"(first on row {first_row[(key, question)]})")
            continue
        first_row[(key, question)] = row
        # "-0" is 0 (+ 0.0 drops the sign: the page said "-0 / 4"); a score within 1e-9 of the points, under as the check
        # above allows over, is the points (3.9999999999 was "4 / 4" on every page and a failed test) (red-team round 105)
        score = points[question] if score >= points[question] - 1e-9 else score + 0.0
        result.scores.setdefault(key, {})[question] = HandScore(key=key, question=question, score=score,
                                                                comment=comment, row=row)
    if errors:
        raise HandScoreError(path, errors)
    return result


def _waiver_problem(text: str) -> str:
    """Why a `late` cell is neither `waive` nor a time ("" when it is one)."""
    from autograder.latepolicy import BadTime, parse_time
    if text.lower() in WAIVE_WORDS:
        return ""
    try:
        parse_time(text, datetime.timezone.utc)  # the syntax; a time without offset is read in the policy's zone
    except BadTime as e:
        return f"is neither 'waive' nor an extension's due time ({e})"
    return ""


def dump_waivers(waivers: dict[str, Waiver]) -> str:
    """Waivers as the journal keeps them (a rerun without --hand-scores, and merge, reuse them)."""
    return json.dumps({key: [w.until, w.reason, w.row] for key, w in waivers.items()}, sort_keys=True)


def load_waivers(text: Optional[str]) -> dict[str, Waiver]:
    """dump_waivers' text back ({} for none, or for text that is not what it wrote)."""
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return {}
    out: dict[str, Waiver] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, list) and len(value) == 3 and isinstance(value[2], int):
                out[str(key)] = Waiver(key=str(key), until=str(value[0]), reason=str(value[1]), row=value[2])
    return out


def _comment(text: str) -> str:
    """An instructor's comment: newlines kept, other control characters dropped, length capped."""
    lines = [clean(part, MAX_COMMENT) for part in text.replace("\r\n", "\n").split("\n")]
    out = "\n".join(lines).strip()
    return out if len(out) <= MAX_COMMENT else out[: MAX_COMMENT - 1] + "…"


def is_hand_test(t: TestReport) -> bool:
    return t.name == HAND_TEST_NAME and t.device is None


def awaits_hand_grading(t: TestReport) -> bool:
    """A hand-graded question's report merged before any hand score: no score yet, whatever its 0 says."""
    return is_hand_test(t) and t.message == AWAITING and t.score == 0


def apply_hand_scores(result: SubmissionResult, points: dict[str, float],
                      scores: Optional[HandScores] = None) -> SubmissionResult:
    """A copy of `result` with one test report per hand-graded question (its hand score and comment,
    or 0 awaiting hand grading), score and max_score including them. Idempotent: hand reports
    already there are replaced, never added twice."""
    out = result.model_copy(deep=True)
    auto = [t for t in out.tests if not is_hand_test(t)]
    old_hand_max = sum(t.max_score for t in out.tests if is_hand_test(t))
    given = scores.for_submission(result.submission) if scores else {}
    hand = []
    for question, pts in points.items():
        s = given.get(question)
        score = min(s.score, pts) if s else 0.0
        hand.append(TestReport(question=question, name=HAND_TEST_NAME, device=None, hidden=False,
                               max_score=pts, score=score,
                               status="passed" if s and score >= pts else "failed",
                               message=(s.comment if s else AWAITING)))
    out.tests = auto + hand
    out.max_score = round(result.max_score - old_hand_max + sum(points.values()), 6)
    out.score = round(sum(t.score for t in out.tests), 6)
    return out


def score_text(score: float) -> str:
    """A hand score as the template writes it: short ("2.5", not "2.5000"), and read back as the same number. With
    :g's six digits a spreadsheet's 2.3333333333 came back 2.33333, and filling the template in again changed the
    student's total (3.333333 -> 3.33333: "score changed" on the next batch; red-team round 105)."""
    short = f"{score:g}"
    return short if float(short) == score else repr(score)


def hand_score_of(result: SubmissionResult, question: str) -> Optional[TestReport]:
    """The hand-graded report of `question` in a merged result, if any."""
    return next((t for t in result.tests if is_hand_test(t) and t.question == question), None)


def awaiting(results: Iterable[SubmissionResult]) -> list[tuple[str, str]]:
    """(submission, question) of every hand-graded question still without a score."""
    return [(r.submission, t.question) for r in results for t in r.tests if awaits_hand_grading(t)]


def write_template(results: Iterable[SubmissionResult], points: dict[str, float], path: Path,
                   entries: Iterable[Entry] = ()) -> Path:
    """hand-scores.csv to fill in: one row per submission and hand-graded question, with the sid
    (first submitter's), name and submission; score and comment empty (or the ones merged already).
    Cells are neutralised for spreadsheets; read_hand_scores reads them back."""
    from autograder.text import csv_cell
    by_key = {e.key: e for e in entries}
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["sid", "name", "submission", "question", "score", "comment"])
        for r in results:
            e = by_key.get(r.submission)
            first = e.submitters[0] if e and e.submitters else None
            sid = (first.sid or first.lms_id or first.email) if first else ""
            name = e.name if e else ""
            for q in points:
                t = hand_score_of(r, q)
                score, comment = ("", "") if t is None or t.message == AWAITING else (score_text(t.score), t.message)
                w.writerow([csv_cell(sid), csv_cell(name), csv_cell(r.submission), csv_cell(q),
                            score, csv_cell(comment) if comment else ""])
    tmp.replace(path)
    return path


# --- as the journal keeps them ----------------------------------------------------------------------
def dump_hand_scores(hand: HandScores) -> str:
    """Hand scores as the journal keeps them (a rerun without --hand-scores, and merge, reuse them)."""
    return json.dumps({key: {q: [h.score, h.comment, h.row] for q, h in qs.items()}
                       for key, qs in hand.scores.items()}, sort_keys=True)


def load_hand_scores(text: Optional[str], course: Course, slug: str,
                     waivers: Optional[str] = None) -> Optional[HandScores]:
    """The journal's hand scores and late waivers (handscores.dump_waivers) back; None for neither."""
    late = load_waivers(waivers)
    if not text and not late:
        return None
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return None
    out = HandScores(points=hand_points(course.settings(slug), slug), waivers=late)
    for key, qs in data.items():
        for q, (score, comment, row) in qs.items():
            out.scores.setdefault(key, {})[q] = HandScore(key=key, question=q, score=float(score),
                                                          comment=str(comment), row=int(row))
    return out
