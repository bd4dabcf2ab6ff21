"""Red-team round 75: where the grader's recipes meet student-chosen names (shell commands, job scripts, paths,
file names, argument lists built from a name a student chose, and the deployment recipes: SLURM shards, merge,
Gradescope's scripts). Repros in /tmp/rt75/.

- **A class export handed over as one zip lost students without a word.** `exports.discover` unpacks an LMS
  download given as a zip with `unpack.safe_extract`, which leaves out every member whose name has a part longer
  than 255 bytes or holds a control character, and the list of what was left out (`_check_zip`'s answer) was thrown
  away. Canvas writes each file as `<name>_<user id>_<submission id>_<the student's own file name>`, so a student
  whose own name was 244 characters (a valid name on their disk) is a 256-byte member: measured with a Canvas zip of
  alice (`..._sdpa-from-scratch.ipynb`), bob (a 244-character file name) and carol (a newline in her file name, as
  macOS and Linux allow): `discover` found alice only, no problem, no warning, no skipped file; bob and carol had no
  row in the gradebook, canvas.csv or the report (the same for a Moodle folder `<a 236-character full
  name>_502_assignsubmission_file_`). Now an export's members are written under a name that fits
  (`unpack.fitted_part`: a control character becomes `_`, a part too long is cut in its middle so that Canvas's
  prefix, the suffix and Moodle's tail stay, and `~` with a hash of the name as written keeps two names apart); a
  twin a student forges beside a fitted name costs only that student's own file (left out, said), never the
  export; whatever is still left out (links, devices) is a warning that names it. Through the real one-node SLURM
  recipe with that zip as SUBMISSIONS: three shards, the merged gradebook and canvas.csv list alice, bob and carol
  at 35/35 (alice alone before).

- **One student's file name refused the class's hand scores.** A file name that begins with a space (or U+00A0,
  U+3000) keeps it in its submission key (`exports._key`: ` bob.ipynb~8d64491bfc`), and the grader's own
  hand-scores template writes that key; `read_hand_scores` strips every cell, so the filled-in template came back
  as "no submission 'bob.ipynb~8d64491bfc' in this batch", and the whole file was refused ("nothing merged"):
  `batch --hand-scores` stopped for every student. Measured with ` bob.ipynb` beside `bob.ipynb` (tests'
  good.ipynb, assignment toy): write_template, a score in every row, read_hand_scores raised HandScoreError. Now a
  submission cell is matched as written first, then stripped, then to the one key that reads the same stripped (a
  spreadsheet that trims it); two such keys are still an error naming the row.

- **A classmate's hand score through an apostrophe.** `text.csv_cell` puts `'` before a cell that would start a
  formula and `csv_uncell` drops a `'` that stands before one, but a value that itself began with `'` and a formula
  sign was written as it was: the key `'+1.ipynb` (a file a student named so) and the key `+1.ipynb` were both
  written `'+1.ipynb` in hand-scores.csv (and gradebook.csv), and both read back as `+1.ipynb`. Measured: the template
  of those two had two identical rows; a score put in the first (`'+1.ipynb`'s) went to the student `+1.ipynb`, and a
  score in both was refused as "a second score for +1.ipynb". Now csv_cell quotes a value whose `'`s stand before a
  formula sign too, and csv_uncell drops one `'` only there: the two rules are inverse for every value.

Tried and holding (no fix needed): a flat class of names beginning with `-`, holding `$(...)`, backticks, `;`, quotes,
`*`, a newline, `con`, `~`, `Bob`/`bob`, NFC/NFD `café` graded through the real one-node SLURM recipe (submit.sh, three
array tasks and merge.sbatch): every name graded once by exactly one shard, no command run from a name (no file
`PWNED` anywhere), results files distinct; a merge of shards graded while the hidden tests changed under them was
refused in one line naming the shard, never a silent drop; empty shards (N larger than the class) exit 0 and merge.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
FULL = ROOT / "examples" / "submissions" / SLUG / "full_marks.ipynb"


def _canvas_zip(path: Path) -> Path:
    """A Canvas "Download Submissions" zip: each member <name>_<user id>_<submission id>_<the student's file name>."""
    data = FULL.read_bytes()
    own_long = "my_attention_homework_" + "final_version_really_final_" * 8 + ".ipynb"   # 244 characters
    assert len(own_long.encode()) <= 255, "a name the student's own disk holds"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("alice_123_456_sdpa-from-scratch.ipynb", data)
        z.writestr(f"bob_124_457_{own_long}", data)
        z.writestr("carol_125_458_hw\nfinal.ipynb", data)
        link = zipfile.ZipInfo("dave_126_459_sdpa-from-scratch.ipynb")
        link.external_attr = (0o120777 << 16)      # a symbolic link: never written
        z.writestr(link, "/etc/passwd")
    return path


def test_a_canvas_zip_keeps_every_student_whatever_their_file_name(tmp_path):
    from autograder.course.exports import discover
    found = discover(_canvas_zip(tmp_path / "canvas.zip"), SLUG, tmp_path / "scratch")
    keys = sorted(e.key for e in found.entries)
    assert keys == ["alice_123_456", "bob_124_457", "carol_125_458"], (keys, found.problems, found.warnings)
    for entry in found.entries:      # each one's own notebook, written whole, under the scratch folder
        assert entry.path.read_bytes() == FULL.read_bytes()
        assert entry.path.resolve().is_relative_to((tmp_path / "scratch").resolve())
        assert all(len(os.fsencode(part)) <= 255 and "\n" not in part for part in entry.path.parts)
    said = " ".join(found.warnings)
    assert "dave_126_459" in said, found.warnings   # what is still left out is named, never dropped silently


def test_a_moodle_zip_keeps_a_long_named_student_and_every_id(tmp_path):
    """Moodle names each folder `<full name>_<participant id>_assignsubmission_file_`: a long name is cut in its middle,
    so the folder still reads as Moodle's (a plain folder among them would distrust every student's id)."""
    from autograder.course.exports import discover
    data = FULL.read_bytes()
    long_name = "Maria " + "Anna " * 45 + "Lopez"                  # 236 characters: the folder is 270
    with zipfile.ZipFile(tmp_path / "moodle.zip", "w") as z:
        z.writestr("Ann Lee_501_assignsubmission_file_/sdpa-from-scratch.ipynb", data)
        z.writestr(f"{long_name}_502_assignsubmission_file_/sdpa-from-scratch.ipynb", data)
    found = discover(tmp_path / "moodle.zip", SLUG, tmp_path / "scratch")
    assert found.layouts == ["moodle"], (found.layouts, found.warnings)
    assert sorted(s.lms_id for e in found.entries for s in e.submitters) == ["501", "502"], found.entries


def test_fitted_names_stay_distinct_and_safe():
    from autograder.course.unpack import zip_member_path
    long_a, long_b = "x" * 300 + "a.ipynb", "x" * 300 + "b.ipynb"
    a, b = zip_member_path(f"s/{long_a}", fit=True), zip_member_path(f"s/{long_b}", fit=True)
    assert a is not None and b is not None and a != b
    assert a.suffix == ".ipynb" and all(len(p.encode()) <= 255 for p in a.parts)
    assert zip_member_path("a\nb.ipynb", fit=True) != zip_member_path("a\rb.ipynb", fit=True)
    for hostile in ("../x.ipynb", "/etc/x.ipynb", "C:/x.ipynb", "a/../../x.ipynb"):
        assert zip_member_path(hostile, fit=True) is None, hostile
    assert zip_member_path("a\nb.ipynb") is None and zip_member_path(f"s/{long_a}") is None  # a student's own zip


def test_the_graders_own_hand_scores_template_reads_back_whatever_the_names(tmp_path):
    import csv
    from autograder.course.exports import discover
    from autograder.course.handscores import read_hand_scores, write_template
    from autograder.results import SubmissionResult
    from tests.conftest import FIXTURE_SUBS
    cls = tmp_path / "class"
    cls.mkdir()
    for name in (" bob.ipynb", "bob.ipynb", "\u3000carol.ipynb", "dave.ipynb"):
        (cls / name).write_bytes((FIXTURE_SUBS / "good.ipynb").read_bytes())
    found = discover(cls, "toy", tmp_path / "scratch")
    keys = sorted(e.key for e in found.entries)
    assert len(keys) == 4 and any(k.startswith(" ") for k in keys), keys
    results = [SubmissionResult(submission=k, assignment="toy", status="graded", max_score=1) for k in keys]
    template = write_template(results, {"q9": 2.0}, tmp_path / "hand-scores.csv", found.entries)
    rows = list(csv.reader(template.open(newline="", encoding="utf-8")))
    for i, row in enumerate(rows[1:]):
        row[4] = str(i % 3)            # a different score for each student
    with template.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    hand = read_hand_scores(template, {"q9": 2.0}, found.entries)
    given = {key: qs["q9"].score for key, qs in hand.scores.items()}
    assert given == {row[2]: float(row[4]) for row in rows[1:]}, given   # each to its own, none to a namesake
    # a spreadsheet that trims cells: still that student's, and only theirs
    for row in rows[1:]:
        row[2] = row[2].strip()
    with template.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    hand = read_hand_scores(template, {"q9": 2.0}, found.entries)
    assert {key: qs["q9"].score for key, qs in hand.scores.items()} == given


def test_a_name_forged_like_a_fitted_one_costs_only_its_own_folder(tmp_path):
    """The fitted name's hash is of a name the student chose, so they can submit its twin beside it: that clash is
    theirs, left out of their folder with a warning, and the export (every classmate) is still read."""
    from autograder.course.exports import discover
    from autograder.course.unpack import fitted_part
    data = FULL.read_bytes()
    meta = "".join(f"submission_{i}:\n  :submitters:\n  - :name: S{i}\n    :sid: '{i}'\n" for i in (1, 2))
    with zipfile.ZipFile(tmp_path / "export.zip", "w") as z:
        z.writestr("submission_metadata.yml", meta)
        z.writestr("submission_1/hw\n.ipynb", data)
        z.writestr(f"submission_1/{fitted_part('hw' + chr(10) + '.ipynb')}", data)
        z.writestr("submission_1/folder\n/x.ipynb", data)
        z.writestr(f"submission_1/{fitted_part('folder' + chr(10))}", data)
        z.writestr("submission_2/sdpa-from-scratch.ipynb", data)
    found = discover(tmp_path / "export.zip", SLUG, tmp_path / "scratch")
    assert "submission_2" in [e.key for e in found.entries], (found.entries, found.problems)
    assert "submission_1" in [e.key for e in found.entries] + [p.key for p in found.problems]
    assert any(w.startswith("left out of export.zip") for w in found.warnings), found.warnings


def test_a_score_given_to_one_apostrophe_name_stays_with_that_student(tmp_path):
    import csv
    from autograder.course.exports import discover
    from autograder.course.handscores import read_hand_scores, write_template
    from autograder.results import SubmissionResult
    from tests.conftest import FIXTURE_SUBS
    cls = tmp_path / "class"
    cls.mkdir()
    for name in ("'+1.ipynb", "+1.ipynb", "''=x.ipynb", "'=x.ipynb", "=x.ipynb"):
        (cls / name).write_bytes((FIXTURE_SUBS / "good.ipynb").read_bytes())
    found = discover(cls, "toy", tmp_path / "scratch")
    keys = sorted(e.key for e in found.entries)
    results = [SubmissionResult(submission=k, assignment="toy", status="graded", max_score=1) for k in keys]
    template = write_template(results, {"q9": 2.0}, tmp_path / "hand-scores.csv", found.entries)
    rows = list(csv.reader(template.open(newline="", encoding="utf-8")))
    assert len({row[2] for row in rows[1:]}) == len(keys), rows     # a person can tell every row apart
    for key in keys:                 # one row scored at a time: that score is that student's, and only theirs
        filled = [list(row) for row in rows]
        filled[1 + keys.index(key)][4] = "2"
        with template.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(filled)
        hand = read_hand_scores(template, {"q9": 2.0}, found.entries)
        assert list(hand.scores) == [key], (key, list(hand.scores))


def test_csv_cell_and_its_reader_are_inverse():
    from autograder.text import csv_cell, csv_uncell
    values = ["", "'", "''", "=1", "'=1", "''=1", "'''+x", " =1", "' =1", "'a", "a'", "\uff0bb", "'\uff0bb", "'\t",
              "-", "'-", "x=1", "' ", "'\u200b=1"]
    for value in values:
        assert csv_uncell(csv_cell(value)) == value, value
    assert len({csv_cell(v) for v in values}) == len(values)
