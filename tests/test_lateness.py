"""Late submissions: grading.yml's late policy (checked on load, every bad key named), its arithmetic
(grace, each day or part of a day, cap, zero after, time zones across daylight saving), times from
exports read strictly (a bad one is a warning, never a crash), and the penalty applied after scoring:
gradebook.csv's late_by and penalty and canvas.csv's final score match the policy for every row of a
Gradescope export and a Canvas download, a hand-scores row waives or extends, the feedback page and
report say so, and the policy is no part of the grading fingerprint (a new policy regrades nothing,
end to end, and shards merge into the same final scores)."""
from __future__ import annotations

import csv
import datetime as dt
import shutil
from pathlib import Path
from typing import Optional

import pytest
import yaml

from autograder.config import Course, CourseConfig, load_config
from autograder.errors import ConfigError
from autograder.course.exports import METADATA_NAME, discover
from autograder.course.handscores import HandScoreError, Waiver, dump_waivers, load_waivers, read_hand_scores
from autograder.course.lateness import assess, duration_text
from autograder.latepolicy import BadTime, LatePolicy, Policy, merged_policy, parse_time, policy_for, resolve
from autograder.results import SubmissionResult
from autograder.results import TestReport as Report
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS

UTC = dt.timezone.utc
NY = "America/New_York"

# The policy most tests use: due 2024-03-08 23:59 in New York (EST, -05:00: 2024-03-09 04:59 UTC).
POLICY = {"timezone": NY, "grace_minutes": 15, "penalty_per_day": 10, "max_penalty": 25, "zero_after_days": 3}
DUE = "2024-03-08T23:59"


def policy(**over) -> Policy:
    return resolve(LatePolicy.model_validate({**POLICY, "due": DUE, **over}))


def result(key: str, score: float = 4.0, max_score: float = 6.0, status: str = "graded") -> SubmissionResult:
    return SubmissionResult(submission=key, assignment="toy", status=status, score=score, max_score=max_score,
                            tests=[Report(question="q1", name="a", device="cpu", max_score=max_score, score=score,
                                          status="passed" if score == max_score else "failed")])


# --- times are read strictly ---------------------------------------------------------------------------
@pytest.mark.parametrize("text,utc", [
    ("2024-03-01T10:15:00-08:00", "2024-03-01T18:15:00"),
    ("2024-03-01 10:15:00.123456789 -08:00", "2024-03-01T18:15:00.123456"),   # Gradescope's raw form
    ("2024-03-01T18:15Z", "2024-03-01T18:15:00"),
    ("2024-03-01T19:15:00+0100", "2024-03-01T18:15:00"),
    (" 2024-03-01T18:15:00+00:00\n", "2024-03-01T18:15:00"),
    (dt.datetime(2024, 3, 1, 10, 15, tzinfo=dt.timezone(dt.timedelta(hours=-8))), "2024-03-01T18:15:00"),
])
def test_times_with_an_offset_are_read(text, utc):
    assert parse_time(text).astimezone(UTC).replace(tzinfo=None).isoformat() == utc


@pytest.mark.parametrize("text,says", [
    ("yesterday", "not a date and time"),
    ("", "not a date and time"),
    ("2024-03-01T10:15:00", "no UTC offset"),                 # a naive time in an export: which zone?
    ("2024-02-30T10:15Z", "day is out of range"),
    ("2024-03-01T24:00Z", "hour must be in"),
    ("0001-01-01T00:00+01:00", "year 1 is out of range"),     # would overflow once moved to UTC
    ("2024-03-01T10:15+25:00", "out of range"),
    ("２０２４-03-01T10:15Z", "not a date and time"),             # digits of another script
    ("٢٠٢٤-03-01T10:15Z", "not a date and time"),
    ("=HYPERLINK(\"http://evil\")", "not a date and time"),
    ("2024-03-01T10:15:00-08:00" * 3, "longer than 64"),
    ("2024-03-01T10:15\x00Z", "not a date and time"),
    (12345, "not int"),
    (None, "not NoneType"),
])
def test_anything_else_is_a_bad_time_never_a_crash(text, says):
    with pytest.raises(BadTime, match=says.replace("(", r"\(")):
        parse_time(text)


def test_a_wall_time_is_placed_in_its_zone_across_daylight_saving():
    ny = resolve(LatePolicy(due="2024-03-10T23:59", timezone=NY)).due   # after the spring switch: EDT
    assert ny.astimezone(UTC).isoformat() == "2024-03-11T03:59:00+00:00"
    before = resolve(LatePolicy(due="2024-03-09T23:59", timezone=NY)).due  # before it: EST
    assert before.astimezone(UTC).isoformat() == "2024-03-10T04:59:00+00:00"
    with pytest.raises(BadTime, match="does not exist in America/New_York"):
        resolve(LatePolicy(due="2024-03-10T02:30", timezone=NY))        # skipped by the spring switch
    with pytest.raises(BadTime, match="happens twice"):
        resolve(LatePolicy(due="2024-11-03T01:30", timezone=NY))        # repeated in the autumn
    with pytest.raises(BadTime, match="-04:00"):                         # EST written for a date in EDT
        resolve(LatePolicy(due="2024-03-15T23:59-05:00", timezone=NY))
    assert resolve(LatePolicy(due="2024-03-15T23:59-04:00", timezone=NY)).due.hour == 23


def test_a_day_is_24_hours_of_elapsed_time_whatever_the_clocks_do():
    """Due 2024-03-09 23:59 EST; the clocks go forward that night. Submitted 2024-03-11 00:30 EDT: the
    wall clocks differ by 24 h 31 min, but 23 h 31 min went by: one day late, not two."""
    p = resolve(LatePolicy(due="2024-03-09T23:59", timezone=NY, penalty_per_day=10))
    late = assess("2024-03-11T00:30:00-04:00", False, p)
    assert late.late_by == dt.timedelta(hours=23, minutes=31) and late.days == 1 and late.percent == 10
    # due in New York (EDT), submitted_at in UTC: 31 minutes late, and one minute before is on time
    p = resolve(LatePolicy(due="2024-03-10T23:59", timezone=NY, penalty_per_day=10))
    assert assess("2024-03-11T04:30:00Z", False, p).late_by_text == "31 min"
    assert not assess("2024-03-11T03:58:00+00:00", False, p).late
    # the autumn switch: due 2024-11-03 23:59 EST (-05:00), i.e. 04:59 UTC the next day
    p = resolve(LatePolicy(due="2024-11-03T23:59", timezone=NY, penalty_per_day=10))
    assert assess("2024-11-04T04:58:59Z", False, p).late is False
    assert assess("2024-11-04T05:00:00Z", False, p).late_by_text == "1 min"


# --- the arithmetic ------------------------------------------------------------------------------------
# (submitted_at, late_by shown, days charged, percent of the maximum, zero): POLICY, due 04:59 UTC
ARITHMETIC = [
    ("2024-03-08T23:00:00-05:00", "", 0, 0, False),             # on time
    ("2024-03-08T23:59:00-05:00", "", 0, 0, False),             # exactly at the due time
    ("2024-03-09T00:10:00-05:00", "11 min", 0, 0, False),       # late, within the 15 min grace
    ("2024-03-09T00:14:00-05:00", "15 min", 0, 0, False),       # 15 min after: the grace's last minute
    ("2024-03-09T00:14:01-05:00", "16 min", 1, 10, False),      # a second past the grace: a day started
    ("2024-03-09T23:59:00-08:00", "1 day 3 h", 2, 20, False),   # 27 h: the second day started
    ("2024-03-10T05:14:00Z", "1 day 0 h 15 min", 1, 10, False),  # exactly one day past due + grace
    ("2024-03-11T09:59:00Z", "2 days 5 h", 3, 25, False),       # 30% capped at 25%
    ("2024-03-12T05:14:00Z", "3 days 0 h 15 min", 3, 25, False),       # three whole days past due + grace: not zero
    ("2024-03-12T05:14:01Z", "3 days 0 h 16 min", 4, 100, True),       # a second more: more than 3 days, zero
    ("2024-04-30T12:00:00Z", "52 days 7 h 1 min", 53, 100, True),
]


@pytest.mark.parametrize("at,late_by,days,percent,zero", ARITHMETIC)
def test_each_day_or_part_of_a_day_past_due_and_grace(at, late_by, days, percent, zero):
    late = assess(at, False, policy())
    assert (late.late_by_text, late.days, late.percent, late.zero) == (late_by, days, percent, zero)
    assert late.late == bool(late_by)
    r = result("x", score=4, max_score=6)
    expected = 4.0 if zero else min(4.0, 6 * percent / 100)
    assert late.deduction(r) == pytest.approx(expected) and late.final(r) == pytest.approx(4 - expected)


def test_percent_of_the_score_or_of_the_maximum_never_below_zero():
    at = "2024-03-10T00:20:00-05:00"                       # 1 day 21 min: past due + grace by 1 day 6 min: 20%
    by_max, by_score = assess(at, False, policy()), assess(at, False, policy(penalty_of="score"))
    r = result("x", score=4, max_score=6)
    assert (by_max.deduction(r), by_max.final(r)) == (1.2, 2.8)
    assert (by_score.deduction(r), by_score.final(r)) == (0.8, 3.2)
    poor = result("x", score=0.5, max_score=6)
    assert by_max.final(poor) == 0 and by_max.deduction(poor) == 0.5
    failed = result("x", score=0, status="worker_failed")   # the grader's failure: nothing to take off
    assert by_max.deduction(failed) == 0
    assert "-20% of the maximum, 1.2 points" in by_max.describe(r)
    assert "-20% of the score, 0.8 points" in by_score.describe(r)
    assert "(the most a late submission loses)" in assess("2024-03-11T09:59:00Z", False, policy()).describe(r)
    assert "more than 3 days late, scored 0" in assess("2024-04-30T12:00:00Z", False, policy()).describe(r)


def test_no_time_in_the_export_the_late_mark_alone_decides():
    """A Canvas download says LATE in the file name and nothing more: counted as late_without_time_days."""
    late = assess("", True, policy())
    assert (late.late, late.late_by, late.days, late.percent) == (True, None, 1, 10)
    assert late.describe().startswith("marked late by the export (no time given: counted as 1 day)")
    assert assess("", True, policy(late_without_time_days=4)).zero       # 4 days > zero_after_days 3
    assert not assess("", False, policy()).late and assess("", False, policy()).deduction(result("x")) == 0
    # a time that cannot be read: a warning for the row, and the export's mark decides
    bad = assess("=1+1", True, policy())
    assert bad.days == 1 and "submitted_at '=1+1' not understood" in bad.warning


def test_no_policy_nothing_is_computed_or_taken():
    late = assess("2024-04-30T12:00:00Z", True, None)
    assert (late.applies, late.late, late.late_by, late.deduction(result("x"))) == (False, True, None, 0.0)


def test_a_waiver_keeps_the_lateness_said_and_takes_nothing():
    waived = assess("2024-03-12T05:14:01Z", False, policy(), Waiver(key="x", until="", reason="medical note.", row=2))
    assert waived.waived and waived.late and waived.deduction(result("x")) == 0 and not waived.zero
    assert waived.describe() == "late by 3 days 0 h 16 min: penalty waived (medical note)"
    # an extension: the due time moves; late past it costs as usual, counted from it
    ext = Waiver(key="x", until="2024-03-11T23:59", reason="", row=3)      # in the policy's zone (EDT by then)
    kept = assess("2024-03-11T23:00:00-04:00", False, policy(), ext)
    assert not kept.late and kept.deduction(result("x")) == 0 and "extension to 2024-03-11 23:59 EDT" in kept.describe()
    missed = assess("2024-03-12T05:00:00-04:00", False, policy(), ext)
    assert missed.late_by_text == "5 h 1 min" and missed.percent == 10 and "past the extension" in missed.describe()


@pytest.mark.parametrize("delta,text", [(dt.timedelta(seconds=1), "1 min"), (dt.timedelta(minutes=59, seconds=1), "1 h 0 min"),
                                        (dt.timedelta(hours=2, minutes=5), "2 h 5 min"),
                                        (dt.timedelta(days=1, hours=3, minutes=59), "1 day 3 h 59 min"),
                                        (dt.timedelta(days=2), "2 days 0 h")])
def test_durations_for_people(delta, text):
    assert duration_text(delta) == text


# --- grading.yml ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,key,says", [
    ("late_policy: {penalty_per_day: 150}", "late_policy.penalty_per_day", "less than or equal to 100"),
    ("late_policy: {grace: 10}", "late_policy.grace", "Extra inputs"),
    ("late_policy: {penalty_of: total}", "late_policy.penalty_of", "max_score"),
    ("late_policy: {zero_after_days: -1}", "late_policy.zero_after_days", "greater than or equal to 0"),
    ("late_policy: {timezone: Mars/Olympus_Mons}", "late_policy.timezone", "unknown time zone"),
    ("late_policy: {timezone: ../../etc/passwd}", "late_policy.timezone", "not an IANA time zone name"),
    ("assignments: {x: {late_policy: {due: tomorrow}}}", "assignments.x.late_policy.due", "not a date and time"),
    ("assignments: {x: {late_policy: {due: 2024-03-01}}}", "assignments.x.late_policy.due", "time of day"),
    ("assignments: {x: {late_policy: {due: '2024-03-01T23:59'}}}", "assignments.x.late_policy.due", "no UTC offset"),
    ("late_policy: {timezone: America/New_York}\nassignments: {x: {late_policy: {due: '2024-03-10T02:30'}}}",
     "assignments.x.late_policy.due", "does not exist"),
    ("late_policy: {timezone: America/New_York, due: '2024-03-15T23:59-05:00'}\nassignments: {x: {}}",
     "late_policy.due", "America/New_York is at -04:00"),
])
def test_a_bad_late_policy_names_its_key(tmp_path, text, key, says):
    p = tmp_path / "grading.yml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=f"bad value at '{key}'") as info:
        load_config(p)
    assert says in str(info.value)


def test_the_assignment_overrides_the_course_key_by_key(tmp_path):
    p = tmp_path / "grading.yml"
    p.write_text("late_policy: {timezone: America/New_York, penalty_per_day: 10, grace_minutes: 5}\n"
                 "assignments:\n  a: {late_policy: {due: 2024-03-01T23:59:00-05:00, penalty_per_day: 20}}\n"
                 "  b: {}\n")
    config = load_config(p)
    a = policy_for(config, "a")
    assert a is not None and (a.per_day, a.grace, a.due.isoformat()) == (20, dt.timedelta(minutes=5),
                                                                         "2024-03-01T23:59:00-05:00")
    merged = merged_policy(config, "b")
    assert merged is not None and merged.penalty_per_day == 10 and policy_for(config, "b") is None  # no due: none
    assert policy_for(CourseConfig(), "a") is None


def test_the_course_grading_yml_sets_the_demo_policy(tmp_path):
    """make demo's Gradescope export and Canvas download are graded against it (examples/exports)."""
    from tests.conftest import ROOT
    config = load_config(ROOT / "grading.yml")
    p = policy_for(config, "sdpa-from-scratch")
    assert p is not None and p.due.astimezone(UTC).isoformat() == "2024-03-01T19:00:00+00:00"
    found = discover(ROOT / "examples" / "exports" / "gradescope-sdpa", "sdpa-from-scratch", tmp_path)
    said = {e.key: assess(e.created_at, e.late, p).describe(result(e.key, 19, 35)) for e in found.entries}
    assert said == {"submission_1001": "", "submission_1002": "late by 7 min, within the grace period: no penalty",
                    "submission_1003": "late by 22 h 30 min: -10% of the maximum, 3.5 points"}
    canvas = discover(ROOT / "examples" / "exports" / "canvas-sdpa", "sdpa-from-scratch", tmp_path)
    waivers = read_hand_scores(ROOT / "examples" / "exports" / "canvas-sdpa-extensions.csv", {}, canvas.entries).waivers
    said = {e.submitters[0].lms_id: assess(e.created_at, e.late, p, waivers.get(e.key)).describe(result(e.key, 19, 35))
            for e in canvas.entries}
    assert said == {"1101": "", "1102": "marked late by the export (no time given: counted as 1 day): -10% of the "
                                        "maximum, 3.5 points",
                    "1103": "marked late by the export (no time given: counted as 1 day): penalty waived (Extension "
                            "granted before the due time (medical note))"}


def test_the_policy_is_no_part_of_the_grading_fingerprint(tmp_path):
    from autograder.course.fingerprint import grading_fingerprint
    course = course_with_policy(tmp_path / "course")
    before, _ = grading_fingerprint(course, "toy")
    config = yaml.safe_load((course.root / "grading.yml").read_text())
    config["late_policy"]["penalty_per_day"] = 50
    config["assignments"]["toy"]["late_policy"] = {"due": "2024-04-01T23:59", "zero_after_days": 1}
    changed = Course(course.root, CourseConfig.model_validate(config))
    assert grading_fingerprint(changed, "toy")[0] == before
    config["assignments"]["toy"]["forbidden_apis"] = ["softmax"]   # this one decides scores
    assert grading_fingerprint(Course(course.root, CourseConfig.model_validate(config)), "toy")[0] != before


# --- hand-scores waivers -------------------------------------------------------------------------------
def test_hand_scores_waive_or_extend_and_old_files_still_read(tmp_path):
    found = discover(gradescope_export(tmp_path / "export"), "toy", tmp_path / "scratch")
    p = tmp_path / "hand.csv"
    p.write_text("sid,question,score,comment,late\n"
                 "1001,q3,2,Clear.,\n"
                 "1010,,,<b>Extension</b>: medical,waive\n"
                 "1004,,,,WAIVE\n"
                 "1005,,,to Monday,2024-03-11T23:59\n")
    hand = read_hand_scores(p, {"q3": 2.0}, found.entries)
    assert hand.for_submission("submission_101")["q3"].score == 2
    assert set(hand.waivers) == {"submission_109", "submission_104", "submission_105"}   # 1010 is in a group
    assert hand.waivers["submission_109"].reason == "<b>Extension</b>: medical" and not hand.waivers["submission_109"].until
    assert hand.waivers["submission_105"].until == "2024-03-11T23:59"
    assert load_waivers(dump_waivers(hand.waivers)) == hand.waivers
    only = tmp_path / "only.csv"                                     # waivers alone: no question or score column
    only.write_text("sid,late,comment\n1004,waive,ok\n")
    assert set(read_hand_scores(only, {}, found.entries).waivers) == {"submission_104"}
    old = tmp_path / "old.csv"                                       # the format before the late column
    old.write_text("sid,question,score,comment\n1001,q3,1,ok\n")
    assert not read_hand_scores(old, {"q3": 2.0}, found.entries).waivers


def test_a_bad_waiver_row_is_named(tmp_path):
    found = discover(gradescope_export(tmp_path / "export"), "toy", tmp_path / "scratch")
    p = tmp_path / "hand.csv"
    p.write_text("sid,question,score,comment,late\n"
                 "1004,,,,soon\n"
                 "1004,q3,1,,waive\n"
                 "1005,,,,waive\n"
                 "1005,,,,2024-03-20\n"
                 "9999,,,,waive\n")
    with pytest.raises(HandScoreError) as info:
        read_hand_scores(p, {"q3": 2.0}, found.entries)
    text = str(info.value)
    assert "row 2: late 'soon' is neither 'waive' nor an extension's due time" in text
    assert "row 3: a late waiver goes on a row of its own" in text
    assert "row 5: late '2024-03-20' is neither" in text
    assert "row 6: no submission belongs to sid '9999'" in text
    p.write_text("sid,late\n1005,waive\n1005,waive\n")
    with pytest.raises(HandScoreError, match="row 3: a second late waiver for submission_105 \\(first on row 2\\)"):
        read_hand_scores(p, {}, found.entries)


# --- a Gradescope export and a Canvas download, through write_outputs ----------------------------------
# Every submission scores 4 of 6 before the penalty (0.3 for submission_110). (key, its students' sids
# or Canvas ids, created_at, late_by, penalty, final score); POLICY, due 2024-03-08 23:59 New York.
GRADESCOPE = [
    ("submission_101", ["1001"], "2024-03-08 23:00:00.000000000 -05:00", "", "0", "4"),
    ("submission_102", ["1002"], "2024-03-09 00:10:00.000000000 -05:00", "11 min", "0", "4"),
    ("submission_103", ["1003"], "2024-03-09 00:15:01.000000000 -05:00", "17 min", "0.6", "3.4"),
    ("submission_104", ["1004"], "2024-03-09 23:59:00.000000000 -08:00", "1 day 3 h", "1.2", "2.8"),
    ("submission_105", ["1005"], "2024-03-11 09:59:00.000000000 +00:00", "2 days 5 h", "1.5", "2.5"),
    ("submission_106", ["1006"], "2024-03-12 05:14:00.000000000 Z", "3 days 0 h 15 min", "1.5", "2.5"),
    ("submission_107", ["1007"], "2024-03-13 06:00:00.000000000 +00:00", "4 days 1 h 1 min", "4", "0"),
    ("submission_108", ["1008"], "'=cmd|'' /C calc''!A0'", "", "0", "4"),          # hostile: a warning
    ("submission_109", ["1009", "1010"], "2024-03-10 03:00:00.000000000 -05:00", "1 day 3 h 1 min", "0", "4"),  # waived
    ("submission_110", ["1011"], "2024-03-09 00:16:00.000000000 -05:00", "17 min", "0.3", "0"),
]


def gradescope_export(root: Path) -> Path:
    root.mkdir(parents=True)
    lines = []
    for key, sids, created, *_ in GRADESCOPE:
        lines.append(f"{key}:\n  :submitters:\n")
        lines += [f"  - :name: Student {sid}\n    :sid: '{sid}'\n" for sid in sids]
        lines.append(f"  :created_at: {created}\n")
        (root / key).mkdir()
        shutil.copy(FIXTURE_SUBS / "good.ipynb", root / key / "toy.ipynb")
    lines.append("submission_111:\n  :submitters:\n  - :name: No Notebook\n    :sid: '1012'\n"
                 "  :created_at: 2024-03-20 00:00:00 -05:00\n")                      # rejected, and very late
    (root / "submission_111").mkdir()
    (root / "submission_111" / "notes.txt").write_text("forgot")
    (root / METADATA_NAME).write_text("".join(lines))
    return root


def course_with_policy(where: Path, late: Optional[dict] = None) -> Course:
    shutil.copytree(FIXTURE_COURSE, where, ignore=shutil.ignore_patterns("__pycache__"))
    config = yaml.safe_load((where / "grading.yml").read_text())
    config["assignments"]["toy"]["manual_points"] = {"q3": 2}
    config["late_policy"] = dict(POLICY, **(late or {}))
    config["assignments"]["toy"]["late_policy"] = {"due": DUE}
    (where / "grading.yml").write_text(yaml.safe_dump(config))
    return Course(where, load_config(where / "grading.yml"))


def rows_of(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def fake_results(found, scores: Optional[dict[str, float]] = None) -> list[SubmissionResult]:
    out = [result(e.key, (scores or {}).get(e.key, 4.0), 4.0) for e in found.entries]
    return out + found.rejected("toy", max_score=4.0)


def test_gradescope_export_penalties_match_the_policy_in_every_row(tmp_path):
    from autograder.course.batch import write_outputs
    course = course_with_policy(tmp_path / "course")
    found = discover(gradescope_export(tmp_path / "export"), "toy", tmp_path / "scratch")
    hand_csv = tmp_path / "hand.csv"
    hand_csv.write_text("sid,late,comment\n1010,waive,\"<script>x</script> extension, medical\"\n")
    hand = read_hand_scores(hand_csv, {"q3": 2.0}, found.entries, submitters=found.submitters())
    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    warnings: list[str] = []
    results = write_outputs(fake_results(found, {"submission_110": 0.3}), course, "toy", out, found=found, hand=hand,
                            warnings=warnings)
    assert {r.submission: r.score for r in results}["submission_104"] == 4     # the results keep the raw score

    book = rows_of(out / "gradebook.csv")
    header = list(book[0])
    assert header[header.index("late"):header.index("late") + 4] == ["late", "submitted_at", "late_by", "penalty"]
    by_sid = {r["sid"]: r for r in book}
    for key, sids, _created, late_by, penalty, final in GRADESCOPE:
        for sid in sids:
            row = by_sid[sid]
            assert (row["submission"], row["late_by"], row["penalty"], row["score"]) == (key, late_by, penalty, final), row
            assert row["late"] == ("yes" if late_by else "")
            # score = the question columns' sum (before the penalty) - penalty
            assert float(row["q1"]) + float(row["q3"]) - float(penalty) == pytest.approx(float(final))
    assert "late by 1 day 3 h 1 min: penalty waived" in by_sid["1010"]["reason"] and "extension, medical" in by_sid["1009"]["reason"]
    assert by_sid["1008"]["submitted_at"].startswith("'=") and "not understood" in by_sid["1008"]["reason"]
    rejected = by_sid["1012"]
    assert (rejected["status"], rejected["score"], rejected["penalty"]) == ("rejected", "0", "0")
    assert any("submission_108: submitted_at" in w for w in warnings)

    canvas = {r["SIS User ID"]: r["toy attention"] for r in rows_of(out / "canvas.csv")}
    for _key, sids, _created, _late_by, _penalty, final in GRADESCOPE:
        assert all(canvas[sid] == final for sid in sids)

    page = (out / "feedback" / "submission_104.html").read_text()
    assert 'id="late"' in page and "Late by 1 day 3 h: -20% of the maximum, 1.2 points." in page
    assert "Total: <b>2.8</b> / 6 <span class=\"muted\">(4 before the late penalty)</span>" in page
    waived = (out / "feedback" / "submission_109.html").read_text()
    assert "penalty waived" in waived and "&lt;script&gt;x&lt;/script&gt;" in waived and "<script>" not in waived
    assert "Late by 4 days 1 h 1 min: more than 3 days late, scored 0." in (out / "feedback" / "submission_107.html").read_text()
    assert 'id="late"' not in (out / "feedback" / "submission_101.html").read_text()
    assert "=cmd" not in (out / "feedback" / "submission_108.html").read_text()   # the warning is the instructor's

    report = (out / "report.html").read_text()
    late_table = report.split('id="late"')[1].split("</table>")[0]
    assert "submission_104" in late_table and "-20% of the maximum, 1.2 points" in late_table
    assert "submission_101<" not in late_table and "&lt;script&gt;" in late_table and "<script>" not in report
    assert "not understood" in late_table                                # the row whose time is bad
    assert "8 late · 6 penalised · 1 waived" in report
    assert "2.8 / 6 (4 before the late penalty)" in report.split('id="submissions"')[1]


def test_canvas_download_late_marks_and_a_changed_policy(tmp_path):
    from autograder.course.batch import write_outputs
    canvas = tmp_path / "canvas"
    canvas.mkdir()
    for name in ("smithjohn_1234_56789_toy.ipynb", "doejane_late_2222_77777_toy.ipynb",
                 "late_roebob_3333_88888_toy-1.ipynb", "poeedgar_LATE_4444_99999_toy.ipynb"):
        shutil.copy(FIXTURE_SUBS / "good.ipynb", canvas / name)
    found = discover(canvas, "toy", tmp_path / "scratch")
    hand_csv = tmp_path / "hand.csv"
    hand_csv.write_text("sid,late,comment\n4444,waive,extension\n")
    hand = read_hand_scores(hand_csv, {}, found.entries)

    def penalties(course: Course, out: Path) -> tuple[dict[str, tuple[str, str, str, str]], dict[str, str]]:
        (out / "results").mkdir(parents=True)
        write_outputs(fake_results(found), course, "toy", out, found=found, hand=hand)
        book = {r["lms_id"]: (r["late"], r["late_by"], r["penalty"], r["score"]) for r in rows_of(out / "gradebook.csv")}
        return book, {r["ID"]: r["toy attention"] for r in rows_of(out / "canvas.csv")}

    book, lms = penalties(course_with_policy(tmp_path / "c1"), tmp_path / "out1")
    # max 6 (4 + the hand-graded q3's 2): a late mark counts as 1 day, 10% of 6
    assert book == {"1234": ("", "", "0", "4"), "2222": ("yes", "", "0.6", "3.4"), "3333": ("yes", "", "0.6", "3.4"),
                    "4444": ("yes", "", "0", "4")}
    assert lms == {"1234": "4", "2222": "3.4", "3333": "3.4", "4444": "4"}
    page = (tmp_path / "out1" / "feedback").glob("doejane*.html")
    assert "Marked late by the export (no time given: counted as 1 day): -10% of the maximum, 0.6 points." in \
        next(page).read_text()

    book, lms = penalties(course_with_policy(tmp_path / "c2", {"late_without_time_days": 4}), tmp_path / "out2")
    assert book["2222"] == ("yes", "", "4", "0") and lms["3333"] == "0" and lms["4444"] == "4"   # 4 days > 3: zero

    # without a late policy: the columns are there and empty, the score is the raw one
    plain = tmp_path / "c3"
    shutil.copytree(FIXTURE_COURSE, plain, ignore=shutil.ignore_patterns("__pycache__"))
    book, lms = penalties(Course(plain, load_config(plain / "grading.yml")), tmp_path / "out3")
    assert book["2222"] == ("yes", "", "", "4") and lms["2222"] == "4"
    assert "submitted late" in next((tmp_path / "out3" / "feedback").glob("doejane*.html")).read_text()


# --- end to end: the CLI, shards and merge, a changed policy regrades nothing --------------------------
def test_batch_shards_merge_and_a_new_policy_regrades_nothing(tmp_path):
    from tests.test_class_exports import run
    course = course_with_policy(tmp_path / "course").root
    export = tmp_path / "export"
    export.mkdir()
    keep = {"submission_101", "submission_102", "submission_104", "submission_107", "submission_109"}
    lines = []
    for key, sids, created, *_ in GRADESCOPE:
        if key in keep:
            lines.append(f"{key}:\n  :submitters:\n" + "".join(f"  - :name: S{sid}\n    :sid: '{sid}'\n" for sid in sids)
                         + f"  :created_at: {created}\n")
            (export / key).mkdir()
            shutil.copy(FIXTURE_SUBS / "good.ipynb", export / key / "toy.ipynb")
    (export / METADATA_NAME).write_text("".join(lines))
    hand = tmp_path / "hand.csv"
    hand.write_text("sid,question,score,comment,late\n1001,q3,2,Clear.,\n1009,,,extension,waive\n")
    common = ["-a", "toy", "-j", "2", "--seed", "3", "--hand-scores", str(hand)]
    rc, text = run("batch", str(export), "-o", str(tmp_path / "whole"), *common, course=course)
    assert rc == 0, text
    book = {r["submission"]: (r["late_by"], r["penalty"], r["score"]) for r in rows_of(tmp_path / "whole" / "gradebook.csv")}
    # the toy's hidden tests: 4 of 4 for good.ipynb; q3 by hand (2 for submission_101, else awaiting: 0)
    assert book == {"submission_101": ("", "0", "6"), "submission_102": ("11 min", "0", "4"),
                    "submission_104": ("1 day 3 h", "1.2", "2.8"), "submission_107": ("4 days 1 h 1 min", "4", "0"),
                    "submission_109": ("1 day 3 h 1 min", "0", "4")}

    # A harsher policy: nothing is graded again, only the penalties change (the waiver is kept from the journal).
    def harsher() -> str:
        config = yaml.safe_load((course / "grading.yml").read_text())
        config["late_policy"].update(penalty_per_day=20, max_penalty=50)
        (course / "grading.yml").write_text(yaml.safe_dump(config))
        rc, text = run("batch", str(export), "-o", str(tmp_path / "whole"), "-a", "toy", "--seed", "3", course=course)
        assert rc == 0, text
        return text

    text = while_the_code_stands(harsher, lambda: run("batch", str(export), "-o", str(tmp_path / "whole"), *common,
                                                      course=course))
    assert "0 graded now, 5 already in the journal" in text and "regraded" not in text, text
    book = {r["submission"]: (r["penalty"], r["score"]) for r in rows_of(tmp_path / "whole" / "gradebook.csv")}
    assert book["submission_104"] == ("2.4", "1.6") and book["submission_109"] == ("0", "4")
    assert book["submission_101"] == ("0", "6")

    # Shards (given the hand-scores file, its waiver included) merge into the same final scores.
    def shards_and_merge() -> str:
        for k in (1, 2):
            rc, text = run("batch", str(export), "-o", str(tmp_path / f"s{k}"), "--shard", f"{k}/2", *common,
                           course=course)
            assert rc == 0, text
        shutil.rmtree(tmp_path / "merged", ignore_errors=True)
        rc, text = run("merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "-o", str(tmp_path / "merged"), course=course)
        assert rc == 0, text
        return text

    while_the_code_stands(shards_and_merge)
    for name in ("gradebook.csv", "canvas.csv"):
        assert rows_of(tmp_path / "merged" / name) == rows_of(tmp_path / "whole" / name), name


def while_the_code_stands(step, resync=lambda: None, tries: int = 3) -> str:
    """`step()`'s output, from a run that `resync()` (which brings the journal to the code as it is)
    and `step` made while this package's files did not change. Engineers edit the checkout while tests
    run: an edit changes the grading fingerprint (rightly: a grader fix regrades), so a window an edit
    fell into is run again; one without is asserted on as it is."""
    from autograder.course.fingerprint import tree_digest as _tree_digest
    package = Path(__file__).resolve().parent.parent / "autograder"
    for attempt in range(tries):
        before = _tree_digest(package)
        resync()
        try:
            text = step()
        except AssertionError:
            if _tree_digest(package) == before or attempt == tries - 1:
                raise
            continue
        if _tree_digest(package) == before or attempt == tries - 1:
            return text
    raise AssertionError("unreachable")
