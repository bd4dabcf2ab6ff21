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
- A hand-scores row may waive the penalty for a submission (autograder.handscores, `late` column):
  `waive` (no penalty, lateness still shown) or a time (an extension: this submission's own due time).

Times from exports are hostile text: `parse_time` takes only ISO 8601 with a UTC offset (and
Gradescope's `2024-03-01 10:15:00.000000000 -08:00`), at most 64 characters, years 1970-9998; any
other text is a warning on that row (`Lateness.warning`), never a crash, and the row is treated as
having no time.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from autograder.config import CourseConfig
    from autograder.exports import Entry
    from autograder.handscores import Waiver
    from autograder.results import SubmissionResult

DAY = dt.timedelta(days=1)
MAX_TIME_CHARS = 64
# ASCII digits only: \d would also take other scripts' digits, which int() reads as numbers
_TIME = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})[T ](?P<h>[0-9]{2}):(?P<mi>[0-9]{2})"
    r"(?::(?P<s>[0-9]{2})(?:\.(?P<frac>[0-9]{1,9}))?)?"
    r"(?: ?(?P<tz>Z|z|[+-][0-9]{2}(?::?[0-9]{2})?))?")
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]{0,40}(?:/[A-Za-z0-9_+\-]{1,40}){0,3}")


class BadTime(ValueError):
    """Text that is not a time this module accepts; the message says what was expected."""


def parse_time(text: object, zone: Optional[dt.tzinfo] = None) -> dt.datetime:
    """An aware datetime from `text`: ISO 8601 `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]]` with an offset
    (`Z`, `+01:00`, `-0800`, also after one space). Without an offset the time is read in `zone`
    (an IANA zone): a wall time that does not exist there (skipped by daylight saving) or exists twice
    (repeated) raises, as does no zone at all. Raises BadTime, whose message may quote the text."""
    if isinstance(text, dt.datetime):  # YAML reads an unquoted time as a datetime
        text = text.isoformat()
    if not isinstance(text, str):
        raise BadTime(f"expected a date and time as text, not {type(text).__name__}")
    raw = text.strip()
    if len(raw) > MAX_TIME_CHARS:
        raise BadTime(f"longer than {MAX_TIME_CHARS} characters")
    m = _TIME.fullmatch(raw)
    if not m:
        raise BadTime("not a date and time like 2024-03-01T23:59-05:00")
    year = int(m["y"])
    if not 1970 <= year <= 9998:
        raise BadTime(f"the year {year} is out of range")
    frac = (m["frac"] or "")[:6].ljust(6, "0")  # nanoseconds (Gradescope) kept to microseconds
    try:
        naive = dt.datetime(year, int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"] or 0), int(frac))
    except ValueError as e:
        raise BadTime(str(e)) from None
    tz = m["tz"]
    if tz:
        if tz in ("Z", "z"):
            return naive.replace(tzinfo=dt.timezone.utc)
        digits = tz[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:] or 0)
        if hours > 18 or minutes > 59:
            raise BadTime(f"the UTC offset {tz} is out of range")
        offset = dt.timedelta(hours=hours, minutes=minutes) * (1 if tz[0] == "+" else -1)
        return naive.replace(tzinfo=dt.timezone(offset))
    if zone is None:
        raise BadTime("no UTC offset (such as -05:00 or Z)")
    return _in_zone(naive, zone)


def _in_zone(naive: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """`naive` as a wall time in `zone`; BadTime when daylight saving skips or repeats it there."""
    early, late = naive.replace(tzinfo=zone, fold=0), naive.replace(tzinfo=zone, fold=1)
    # first the gap (PEP 495 gives its wall times two offsets as well): there and back lands elsewhere
    if early.astimezone(dt.timezone.utc).astimezone(zone).replace(tzinfo=None) != naive:
        raise BadTime(f"{naive.isoformat(timespec='minutes')} does not exist in {zone} (clocks go forward)")
    if early.utcoffset() != late.utcoffset():
        raise BadTime(f"{naive.isoformat(timespec='minutes')} happens twice in {zone} (clocks go back): "
                      "give the UTC offset to say which")
    return early


def zone_named(name: object) -> dt.tzinfo:
    """The IANA zone `name` (America/New_York, UTC); BadTime naming it when there is no such zone."""
    import zoneinfo
    if not isinstance(name, str) or not _ZONE.fullmatch(name):
        raise BadTime(f"{str(name)[:60]!r} is not an IANA time zone name such as America/New_York")
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise BadTime(f"unknown time zone {name!r} (an IANA name such as America/New_York, Europe/Paris, UTC)") from None


class LatePolicy(BaseModel):
    """grading.yml's `late_policy`, course-wide and/or under an assignment (whose keys override the
    course's, key by key). It takes effect for an assignment once it has a `due` time."""
    model_config = ConfigDict(extra="forbid")

    due: Optional[str] = Field(None, description=(
        "the due time: ISO 8601 with a UTC offset (2024-03-01T23:59-05:00), or without one in `timezone`"))
    timezone: Optional[str] = Field(None, description=(
        "IANA zone (America/New_York) a `due` without offset is in, and in which times are shown"))
    grace_minutes: float = Field(0, ge=0, le=7 * 24 * 60, description=(
        "minutes after the due time that still count as on time for the penalty"))
    penalty_per_day: float = Field(0, ge=0, le=100, description=(
        "percent lost per day or part of a day past due + grace"))
    penalty_of: Literal["max_score", "score"] = Field("max_score", description=(
        "what the percent is of: the assignment's maximum (Canvas's rule) or the submission's own score"))
    max_penalty: float = Field(100, ge=0, le=100, description="the most percent a late submission loses")
    zero_after_days: Optional[int] = Field(None, ge=0, le=3650, description=(
        "more days late than this (past due + grace, each part of a day counted): the score is 0"))
    late_without_time_days: int = Field(1, ge=1, le=3650, description=(
        "days a submission counts as late when the export marks it late without a time (Canvas: LATE in "
        "the file name)"))

    @field_validator("due", mode="before")
    @classmethod
    def _due_is_a_time(cls, value: object) -> Optional[str]:
        if value is None:
            return None
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            raise ValueError("give a time of day too, e.g. 2024-03-01T23:59")
        if isinstance(value, dt.datetime):
            value = value.isoformat()
        if not isinstance(value, str):
            raise ValueError("expected a date and time such as 2024-03-01T23:59-05:00")
        try:
            parse_time(value, dt.timezone.utc)  # the syntax; its zone is checked with the whole policy
        except BadTime as e:
            raise ValueError(str(e)) from None
        return value

    @field_validator("timezone", mode="before")
    @classmethod
    def _known_zone(cls, value: object) -> Optional[str]:
        if value is None:
            return None
        try:
            zone_named(value)
        except BadTime as e:
            raise ValueError(str(e)) from None
        return str(value)


@dataclass(frozen=True)
class Policy:
    """A late policy in force: `LatePolicy` with its due time resolved."""
    due: dt.datetime                 # aware
    zone: dt.tzinfo                  # how times are shown
    grace: dt.timedelta
    per_day: float
    of: Literal["max_score", "score"]
    cap: float
    zero_after_days: Optional[int]
    untimed_days: int


def resolve(policy: LatePolicy) -> Policy:
    """The policy in force; BadTime when its due time cannot be placed (no offset and no timezone, a
    wall time daylight saving skips or repeats, an offset the timezone does not have then)."""
    if policy.due is None:
        raise BadTime("no due time")
    zone = zone_named(policy.timezone) if policy.timezone else None
    try:
        due = parse_time(policy.due, zone)
    except BadTime as e:
        if zone is None and "no UTC offset" in str(e):
            raise BadTime(f"{policy.due} has no UTC offset: add one (2024-03-01T23:59-05:00) or set the "
                          "late_policy's timezone (America/New_York)") from None
        raise
    if zone is not None and due.utcoffset() != due.astimezone(zone).utcoffset():
        there = due.astimezone(zone)
        raise BadTime(f"{policy.due} says UTC offset {_offset(due)}, but {policy.timezone} is at {_offset(there)} "
                      f"then: the due time there is {there.isoformat(timespec='minutes')}")
    return Policy(due=due, zone=zone or due.tzinfo or dt.timezone.utc,
                  grace=dt.timedelta(minutes=policy.grace_minutes), per_day=policy.penalty_per_day,
                  of=policy.penalty_of, cap=policy.max_penalty, zero_after_days=policy.zero_after_days,
                  untimed_days=policy.late_without_time_days)


def _offset(t: dt.datetime) -> str:
    off = t.utcoffset() or dt.timedelta(0)
    sign = "-" if off < dt.timedelta(0) else "+"
    minutes = abs(int(off.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def merged_policy(config: "CourseConfig", slug: str) -> Optional[LatePolicy]:
    """The course's late_policy with the assignment's keys over it; None when neither sets one."""
    course = config.late_policy
    assignment = config.assignments[slug].late_policy if slug in config.assignments else None
    if course is None and assignment is None:
        return None
    values: dict = {}
    for part in (course, assignment):
        if part is not None:
            values.update({k: getattr(part, k) for k in part.model_fields_set})
    return LatePolicy.model_validate(values)


def policy_problem(config: "CourseConfig") -> Optional[tuple[str, str]]:
    """(key, why) of the first late policy whose due time cannot be placed, for grading.yml's error;
    None when every assignment's policy is usable (or has no due time yet)."""
    for slug in config.assignments:
        merged = merged_policy(config, slug)
        if merged is None or merged.due is None:
            continue
        own = config.assignments[slug].late_policy
        where = f"assignments.{slug}.late_policy" if own is not None and own.due is not None else "late_policy"
        try:
            resolve(merged)
        except BadTime as e:
            return f"{where}.due", str(e)
    if config.late_policy is not None and config.late_policy.due is not None and not config.assignments:
        try:
            resolve(config.late_policy)
        except BadTime as e:
            return "late_policy.due", str(e)
    return None


def policy_for(config: "CourseConfig", slug: str) -> Optional[Policy]:
    """The policy in force for `slug`, or None (no late_policy, or no due time for it). grading.yml was
    checked on load (policy_problem), so this raises only for a config built by hand."""
    merged = merged_policy(config, slug)
    if merged is None or merged.due is None:
        return None
    return resolve(merged)


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
    """"1 day 3 h", "2 h 5 min", "12 min": minutes rounded up (a second late is a minute late)."""
    minutes = -(-int(delta.total_seconds()) // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days != 1 else ''} {hours} h"
    if hours:
        return f"{hours} h {mins} min"
    return f"{max(mins, 1)} min"


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
            due = parse_time(waiver.until, policy.zone)
            extended_to = due.astimezone(policy.zone).strftime("%Y-%m-%d %H:%M %Z").strip()
        except BadTime as e:  # read_hand_scores checked it: only a journal edited by hand lands here
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


__all__ = ["LatePolicy", "Policy", "Lateness", "BadTime", "parse_time", "zone_named", "resolve", "merged_policy",
           "policy_problem", "policy_for", "assess", "assess_class", "duration_text", "warnings", "reason_text"]
