"""grading.yml's late policy as declared (`LatePolicy`), the due time it resolves to (`Policy`), and
the strict reading of times: everything about lateness that settings need, so that the settings
(autograder.config) can check a policy on load without the course part. Applying a policy to a
class is autograder.course.lateness.

Times are hostile text where they come from exports: `parse_time` takes only ISO 8601 with a UTC
offset (and Gradescope's `2024-03-01 10:15:00.000000000 -08:00`), at most 64 characters, years
1970-9998; anything else raises BadTime, with a message that says what was expected."""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Optional, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator


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


_NUMBERS = (int, float, Optional[int], Optional[float])


def not_a_yaml_bool(model: type[BaseModel], value: object, field: Optional[str]) -> object:
    """`value`, unless it is a YAML boolean given for a setting that is a number: pydantic reads `true`/`false` as
    1/0, and YAML reads `no`, `off`, `yes`, `on` as booleans, so `zero_after_days: no` (meant: never) gave every late
    submission 0 and `max_penalty: off` (meant: no cap) no penalty at all, without a word (red-team round 91)."""
    info = model.model_fields.get(field or "")
    if isinstance(value, bool) and info is not None and info.annotation in _NUMBERS:
        raise ValueError(f"{str(value).lower()} (YAML reads yes/no/on/off as true/false) is not a number: write a "
                         "number, or leave the key out for its default")
    return value


class LatePolicy(BaseModel):
    """grading.yml's `late_policy`, course-wide and/or under an assignment (whose keys override the
    course's, key by key). It takes effect for an assignment once it has a `due` time."""
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _not_a_yaml_bool(cls, value: object, info: ValidationInfo) -> object:
        return not_a_yaml_bool(cls, value, info.field_name)

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


class HasLatePolicies(Protocol):
    """What the policy functions read of a CourseConfig (typed by shape: settings import this module)."""
    @property
    def late_policy(self) -> Optional[LatePolicy]: ...

    @property
    def assignments(self) -> Mapping[str, Any]: ...


def merged_policy(config: HasLatePolicies, slug: str) -> Optional[LatePolicy]:
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


def policy_problem(config: HasLatePolicies) -> Optional[tuple[str, str]]:
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


def policy_for(config: HasLatePolicies, slug: str) -> Optional[Policy]:
    """The policy in force for `slug`, or None (no late_policy, or no due time for it). grading.yml was
    checked on load (policy_problem), so this raises only for a config built by hand."""
    merged = merged_policy(config, slug)
    if merged is None or merged.due is None:
        return None
    return resolve(merged)
