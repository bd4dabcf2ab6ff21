"""Late submissions: the course's late policy (grading.yml's `late_policy`) and its arithmetic.

The policy is applied after scoring, to the totals only: the journal and every results file keep the
raw score, so changing the policy and rerunning regrades nothing (it is not part of the grading
fingerprint) and only the gradebook, canvas.csv, the feedback pages and report.html change.

The rules, once a due time is known:

- `late_by` is the time from the due time to the submission's time (the export's, e.g. Gradescope's
  `:created_at:`), measured as elapsed time: a day is 24 hours, whatever daylight saving does.
- Everything submitted by due + `grace_minutes` is on time for the penalty (it is still shown late).
- After that, each day or part of a day past due + grace costs `penalty_per_day` percent, of the
  assignment's maximum (`penalty_of: max_score`, Canvas's own rule) or of the submission's score
  (`penalty_of: score`); never more than `max_penalty` percent, never below 0 points.
- More than `zero_after_days` such days: the submission scores 0.
- Where the export gives no time (a Canvas download: only `LATE` in the file name), the export's
  `late` mark alone decides, counted as `late_without_time_days` days.
- A hand-scores row may waive the penalty for a submission (autograder.course.handscores, `late` column):
  `waive` (no penalty, lateness still shown) or a time (an extension: this submission's own due time).

Times from exports are hostile text: `parse_time` takes only ISO 8601 with a UTC offset (and
Gradescope's `2024-03-01 10:15:00.000000000 -08:00`), at most 64 characters, years 1970-9998; any
other text is a warning on that row (`Lateness.warning`), never a crash, and the row is treated as
having no time.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Optional

from autograder.latepolicy import DAY, BadTime, LatePolicy, Policy, parse_time, policy_for

if TYPE_CHECKING:
    from autograder.config import CourseConfig
    from autograder.course.exports import Entry
    from autograder.course.handscores import Waiver
    from autograder.results import SubmissionResult


# --- one submission ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Lateness:
    """What the policy makes of one submission. `applies`: a policy is in force (else only `late`
    and `submitted_at` from the export are shown, and nothing is deducted)."""
    applies: bool = False
    late: bool = False                      # the export marks it late, or it came after the due time
    late_by: Optional[dt.timedelta] = None  # None: no usable time, or no policy
    days: int = 0                           # days charged (past due + grace, each part of a day counted)
    percent: float = 0.0                    # of `of`; 100 with `zero`
    of: Literal["max_score", "score"] = "max_score"
    zero: bool = False                      # past zero_after_days: scores 0
    zero_after: int = 0                     # the policy's zero_after_days, for the sentence that says so
    untimed: bool = False                   # late by the export's mark alone
    within_grace: bool = False
    capped: bool = False
    waived: bool = False                    # a hand-scores row waived the penalty
    extended_to: str = ""                   # a hand-scores row moved the due time here (as shown)
    reason: str = ""                        # that row's comment (why: an extension)
    warning: str = ""                       # the export's time could not be read

    def deduction(self, result: "SubmissionResult") -> float:
        """Points taken off `result`'s total (never more than it has; 0 when the grader failed)."""
        if not self.applies or self.waived or result.status == "worker_failed" or result.score <= 0:
            return 0.0
        if self.zero:
            return round(result.score, 6)
        base = result.max_score if self.of == "max_score" else result.score
        return round(min(result.score, base * self.percent / 100), 6)

    def final(self, result: "SubmissionResult") -> float:
        """The score after the penalty: what canvas.csv and the gradebook's `score` carry."""
        return round(result.score - self.deduction(result), 6)

    @property
    def late_by_text(self) -> str:
        return duration_text(self.late_by) if self.late_by is not None and self.late_by > dt.timedelta(0) else ""

    def describe(self, result: Optional["SubmissionResult"] = None) -> str:
        """One line for people ("late by 1 day 3 h: -10% of the maximum, 3.5 points"); "" for a
        submission on time with nothing else to say."""
        said = self.reason.strip().rstrip(".;:, ")
        why = f" ({said})" if said else ""
        extension = f"extension to {self.extended_to}{why}" if self.extended_to else ""
        if not self.late:
            return f"{extension}: on time" if extension else ""
        if self.untimed:
            head = (f"marked late by the export (no time given: counted as {self.days} "
                    f"day{'s' if self.days != 1 else ''})")
        else:
            head = f"late by {self.late_by_text}" if self.late_by_text else "late"
        if extension:
            head += f" past the {extension}"
        if not self.applies:
            return head
        if self.waived:
            return f"{head}: penalty waived{why}"
        if self.within_grace:
            return f"{head}, within the grace period: no penalty"
        if self.zero:
            return f"{head}: more than {self.zero_after} day{'s' if self.zero_after != 1 else ''} late, scored 0"
        of = "of the maximum" if self.of == "max_score" else "of the score"
        cap = " (the most a late submission loses)" if self.capped else ""
        points = ""
        if result is not None and result.status != "worker_failed":
            taken = self.deduction(result)
            points = f", {taken:g} point{'s' if taken != 1 else ''}"
        return f"{head}: -{self.percent:g}% {of}{cap}{points}"


def duration_text(delta: dt.timedelta) -> str:
    """"1 day 3 h", "1 day 0 h 1 min", "2 h 5 min", "12 min": minutes rounded up (a second late is a minute late,
    fractions of a second too). Past a day the minutes are shown when there are any: "1 day 0 h" was said of
    exactly one day (10%) and of one day and 30 s (two days charged, 20%), so two rows of the gradebook read alike
    and paid differently, and a page said "late by 1 day 0 h: -20%" (red-team round 102)."""
    minutes = -(-delta // dt.timedelta(minutes=1))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days != 1 else ''} {hours} h" + (f" {mins} min" if mins else "")
    if hours:
        return f"{hours} h {mins} min"
    return f"{max(mins, 1)} min"


def _extension_due(until: str, zone: dt.tzinfo) -> dt.datetime:
    """An extension's due time. A wall time without offset that daylight saving skips or repeats in the policy's
    zone (2024-03-10T02:30 in New York) is read as the later of its two readings: the instructor granted until
    then, and read_hand_scores, which knows no zone, accepted it (it was dropped with a note, and the student paid
    the whole penalty: red-team round 63). Raises BadTime for text that is no time at all."""
    try:
        return parse_time(until, zone)
    except BadTime:
        naive = parse_time(until, dt.timezone.utc).replace(tzinfo=None)   # the syntax; BadTime where it fails
        return max(naive.replace(tzinfo=zone, fold=fold).astimezone(dt.timezone.utc) for fold in (0, 1))


def assess(submitted_at: str, flagged_late: bool, policy: Optional[Policy],
           waiver: Optional["Waiver"] = None) -> Lateness:
    """What `policy` makes of a submission the export timed `submitted_at` (hostile text; "" for no
    time) and maybe marked late. `waiver` (a hand-scores row) waives the penalty (`until` empty) or
    moves this submission's due time to `until` (an extension; late past it costs as usual)."""
    if policy is None:
        return Lateness(late=flagged_late)
    warning = ""
    submitted: Optional[dt.datetime] = None
    if submitted_at:
        try:
            submitted = parse_time(submitted_at)
        except BadTime as e:
            warning = f"submitted_at {_shown(submitted_at)} not understood ({e}): lateness from the export's mark alone"
    due, extended_to = policy.due, ""
    if waiver is not None and waiver.until:
        try:
            due = _extension_due(waiver.until, policy.zone)
            extended_to = due.astimezone(policy.zone).strftime("%Y-%m-%d %H:%M %Z").strip()
        except BadTime as e:  # read_hand_scores checked its syntax: only a journal edited by hand lands here
            warning = (warning + "; " if warning else "") + f"the extension's time is not understood ({e})"
    if submitted is not None:
        late_by: Optional[dt.timedelta] = submitted - due
        assert late_by is not None
        late = late_by > dt.timedelta(0)
        excess = late_by - policy.grace
        days = -(-excess // DAY) if excess > dt.timedelta(0) else 0
        untimed = False
    else:
        late_by = None
        # an extension and no time to hold it against: the export's mark was about the old due time
        late = flagged_late and not extended_to
        days = policy.untimed_days if late else 0
        untimed = late
    waived = waiver is not None and not waiver.until
    zero = not waived and policy.zero_after_days is not None and days > policy.zero_after_days
    raw = days * policy.per_day
    percent = 0.0 if waived else 100.0 if zero else min(raw, policy.cap)
    return Lateness(applies=True, late=late, late_by=late_by, days=days, percent=round(percent, 6), of=policy.of,
                    zero=zero, zero_after=policy.zero_after_days or 0, untimed=untimed,
                    within_grace=late and days == 0 and not untimed, capped=not (zero or waived) and raw > policy.cap,
                    waived=waived, extended_to=extended_to, reason=waiver.reason if waiver is not None else "",
                    warning=warning)


def _shown(text: str) -> str:
    from autograder.text import clean
    return repr(clean(text, 40))


def assess_class(results: "list[SubmissionResult]", config: "CourseConfig", slug: str,
                 entries: "list[Entry]", waivers: "Optional[dict[str, Waiver]]" = None) -> dict[str, Lateness]:
    """{submission key: Lateness} for every result: the policy of `slug` applied to what `entries`
    (the roster) say of each submission's time, with the hand-scores file's waivers."""
    policy = policy_for(config, slug)
    by_key = {e.key: e for e in entries}
    out: dict[str, Lateness] = {}
    for r in results:
        e = by_key.get(r.submission)
        out[r.submission] = assess(e.created_at if e else "", bool(e and e.late), policy,
                                   (waivers or {}).get(r.submission))
    return out


def warnings(lateness: dict[str, Lateness]) -> list[str]:
    """One line per submission whose time could not be read, for the terminal."""
    return [f"{key}: {late.warning}" for key, late in lateness.items() if late.warning]


def reason_text(late: Optional[Lateness]) -> str:
    """What the gradebook's reason column says about lateness: a waiver, or a time not understood."""
    if late is None:
        return ""
    parts = []
    if late.waived or late.extended_to:
        said = late.reason.strip().rstrip(".;:, ")
        why = f" ({said})" if said else ""
        parts.append(late.describe() or f"late penalty waived{why}: on time anyway")
    if late.warning:
        parts.append(late.warning)
    return "; ".join(parts)


__all__ = ["LatePolicy", "Policy", "Lateness", "BadTime", "parse_time", "policy_for", "assess", "assess_class",
           "duration_text", "warnings", "reason_text"]
