"""A file name is data. Names that are not UTF-8 (bytes an old zip tool or a Windows download leaves),
that hold control characters, newlines, ANSI escapes or bidi overrides, or that are 255 bytes long each
give a graded row or a rejection with its own reason, in every layout (flat, folders, zips, Gradescope,
Canvas, Moodle). Each becomes a valid UTF-8 key, unique, shown escaped ('\\xe9\\xff', '\\x1b', '\\u202e') in
every output (terminal, gradebook.csv, canvas.csv, results and feedback file names and pages, roster.json,
report.html), and one name never stops a batch."""
from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest

from autograder.errors import SubmissionError
from autograder.course.exports import METADATA_NAME, Discovery, discover
from autograder.course.feedback import feedback_name
from autograder.grading.intake import read_submission
from autograder.text import shown_name
from autograder.course.outputs import results_name
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS

SLUG = "toy"
GOOD = (FIXTURE_SUBS / "good.ipynb").read_bytes()
NAME_MAX = 255
# What no output may hold raw: C0/C1 controls (newline and tab too: they are inside names), DEL, bidi
# controls, zero-width and line separators, the BOM, lone surrogates.
RAW = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff\ud800-\udfff]")

# (raw name as bytes, how it is shown)
HOSTILE = [
    (b"\xe9\xff.ipynb", "\\xe9\\xff.ipynb"),                       # not UTF-8 at all
    (b"caf\xe9.ipynb", "caf\\xe9.ipynb"),                          # Latin-1, as a Windows download leaves
    ("new\nline.ipynb".encode(), "new\\x0aline.ipynb"),
    ("\x1b[31mred\x1b[0m.ipynb".encode(), "\\x1b[31mred\\x1b[0m.ipynb"),
    ("\x1b]0;pwned\x07.ipynb".encode(), "\\x1b]0;pwned\\x07.ipynb"),  # retitles a terminal window
    ("\u202ebnypi.exe.ipynb".encode(), "\\u202ebnypi.exe.ipynb"),   # reads backwards
    ("tab\there\r.ipynb".encode(), "tab\\x09here\\x0d.ipynb"),
    ("\u2066iso\u2069\u200b.ipynb".encode(), "\\u2066iso\\u2069\\u200b.ipynb"),
]
LONG = [b"x" * (NAME_MAX - 6) + b".ipynb",                         # 255 bytes
        "é".encode() * 124 + b"x.ipynb",                           # 255 bytes, 131 characters
        b"\xff" * (NAME_MAX - 6) + b".ipynb"]                       # 255 bytes, none of them UTF-8


def test_shown_name_escapes_what_cannot_be_shown():
    for raw, shown in HOSTILE:
        assert shown_name(os.fsdecode(raw)) == shown
        assert shown_name(raw) == shown  # bytes too
        assert shown_name(Path("/some/where") / os.fsdecode(raw)) == shown  # a path gives its name
    assert shown_name("plain name.ipynb") == "plain name.ipynb"
    cut = shown_name(os.fsdecode(LONG[2]), limit=50)
    assert len(cut) == 50 and cut.endswith("…") and cut.startswith("\\xff\\xff")


def _check_key(key: str) -> None:
    key.encode("utf-8")  # strict: a lone surrogate raises
    assert not RAW.search(key), key
    assert len(key) <= 131
    for out in (results_name(key), feedback_name(key)):
        assert "/" not in out and "\\" not in out and not out.startswith((".", "-", "~")), out
        assert len((out + ".tmp").encode()) <= NAME_MAX, out  # atomic writes add a suffix


def _check_discovery(found: Discovery, tmp_path: Path) -> None:
    keys = [e.key for e in found.entries] + [p.key for p in found.problems if p.key]
    assert len(keys) == len(set(keys)), keys
    for key in keys:
        _check_key(key)
    for text in [*(e.source for e in found.entries), *(e.name for e in found.entries),
                 *(p.message for p in found.problems), *found.warnings, *found.skipped]:
        text.encode("utf-8")
        assert not RAW.search(text), text
    found.write(tmp_path / "roster.json")  # this raised "surrogates not allowed" and ended the batch
    text = (tmp_path / "roster.json").read_text(encoding="utf-8")
    assert not RAW.search(json.dumps(json.loads(text), ensure_ascii=False))
    assert [e.key for e in Discovery.read(tmp_path / "roster.json").entries] == [e.key for e in found.entries]


def test_every_hostile_file_name_in_a_flat_class_is_graded_under_its_own_key(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    for raw, _ in HOSTILE:
        (root / os.fsdecode(raw)).write_bytes(GOOD)
    for raw in LONG:
        (root / os.fsdecode(raw)).write_bytes(GOOD)
    (root / "\\xe9\\xff.ipynb").write_bytes(GOOD)  # a real file spelled like the escaped form
    found = discover(root, SLUG, tmp_path / "scratch")
    assert len(found.entries) == len(HOSTILE) + len(LONG) + 1 and not found.problems
    by_name = {e.path.name: e for e in found.entries}
    for raw, shown in HOSTILE:
        entry = by_name[os.fsdecode(raw)]
        assert entry.key.startswith(shown + "~") and entry.source == shown
    # shown alike, keyed apart: a clean name keeps itself as its key, the other adds its hash
    assert by_name["\\xe9\\xff.ipynb"].key == "\\xe9\\xff.ipynb"
    assert by_name["\\xe9\\xff.ipynb"].source == by_name[os.fsdecode(b"\xe9\xff.ipynb")].source
    _check_discovery(found, tmp_path)


def test_hostile_folder_names_of_per_student_folders_and_moodle(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    names = [os.fsdecode(raw)[: -len(".ipynb")] for raw, _ in HOSTILE] + ["y" * NAME_MAX, "\udcff" * NAME_MAX]
    for name in names:
        (root / name).mkdir()
        (root / name / "toy.ipynb").write_bytes(GOOD)
    moodle = root / "Jos\udce9 \u202eX_77_assignsubmission_file_"
    moodle.mkdir()
    (moodle / "toy.ipynb").write_bytes(GOOD)
    found = discover(root, SLUG, tmp_path / "scratch", folders=True)
    assert len(found.entries) == len(names) + 1 and not found.problems
    jose = next(e for e in found.entries if e.layout == "moodle")
    # among folders students named, a Moodle-shaped name's id is not used (exports._distrust_lms_ids_if_mixed)
    assert jose.submitters[0].lms_id == "" and jose.submitters[0].name == "Jos\\xe9 X"
    assert any("user ids" in w and "Jos" in w for w in found.warnings)
    _check_discovery(found, tmp_path)


def test_hostile_names_inside_a_students_zip_and_of_the_zip(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    zipped = ["QQ.ipynb", "\u202ecod.ipynb", "x" * (NAME_MAX - 6) + ".ipynb"]
    for i, member in enumerate(zipped):
        zpath = root / os.fsdecode(b"z%d\xe9\n.zip" % i)
        with zipfile.ZipFile(zpath, "w") as z:
            z.writestr(member, GOOD)
    raw = (root / os.fsdecode(b"z0\xe9\n.zip")).read_bytes()
    assert raw.count(b"QQ.ipynb") == 2  # the local header and the central directory
    # raw bytes e9 ff, not UTF-8, without the UTF-8 flag (as old zip tools write): read as cp437
    (root / os.fsdecode(b"z0\xe9\n.zip")).write_bytes(raw.replace(b"QQ.ipynb", b"\xe9\xff.ipynb"))
    with zipfile.ZipFile(root / "long.zip", "w") as z:
        z.writestr("x" * (NAME_MAX + 1) + ".ipynb", GOOD)  # cannot be a file name here: left out, said
    found = discover(root, SLUG, tmp_path / "scratch")
    assert len(found.entries) == len(zipped)
    assert {e.key.split("~")[0] for e in found.entries} == {f"z{i}\\xe9\\x0a.zip" for i in range(len(zipped))}
    [long] = found.problems
    assert long.key == "long.zip" and long.kind == "no_notebook" and "left out of the zip" in long.message
    _check_discovery(found, tmp_path)


def test_hostile_names_in_a_gradescope_export_and_a_canvas_download(tmp_path):
    export = tmp_path / "export"
    (export / "submission_1").mkdir(parents=True)
    (export / "submission_1" / os.fsdecode(b"\xe9\x1b[2J.ipynb")).write_bytes(GOOD)  # the only notebook
    (export / os.fsdecode(b"submission_\xe92")).mkdir()  # not listed: graded under its own name
    (export / os.fsdecode(b"submission_\xe92") / "toy.ipynb").write_bytes(GOOD)
    (export / METADATA_NAME).write_text("submission_1:\n  :submitters:\n  - :name: \"Eve\\e[2J\\u202e\"\n"
                                        "    :sid: '1'\n")
    found = discover(export, SLUG, tmp_path / "s1")
    assert len(found.entries) == 2 and not found.problems
    assert any(e.key.startswith("submission_\\xe92~") for e in found.entries)
    assert found.by_key["submission_1"].submitters[0].name == "Eve[2J"  # ESC and the override gone
    assert found.by_key["submission_1"].path.name == os.fsdecode(b"\xe9\x1b[2J.ipynb")
    _check_discovery(found, tmp_path)

    canvas = tmp_path / "canvas"
    canvas.mkdir()
    (canvas / os.fsdecode(b"jos\xe9_1234_5678_toy\xe9\n.ipynb")).write_bytes(GOOD)
    found = discover(canvas, SLUG, tmp_path / "s2")
    [entry] = found.entries
    assert entry.layout == "canvas" and entry.submitters[0].lms_id == "1234"
    assert entry.key.startswith("jos\\xe9_1234_5678~")
    _check_discovery(found, tmp_path)


def test_a_rejection_names_the_file_escaped(tmp_path):
    path = tmp_path / os.fsdecode(b"caf\xe9\x1b[2J.ipynb")
    path.write_text("{ not json")
    with pytest.raises(SubmissionError) as err:
        read_submission(path)
    message = str(err.value)
    assert message.startswith("caf\\xe9\\x1b[2J.ipynb: the file is damaged")
    message.encode("utf-8")


def test_a_result_that_still_names_undecodable_bytes_crosses_to_the_parent(tmp_path):
    from autograder.grading.outcome import build_result
    from autograder.course.pool import readable_result
    from autograder.results import SubmissionResult
    plain = build_result("k", SLUG, status="worker_failed", seed=1, specs=[], message="grader error: x")
    same, text = readable_result(plain)
    assert same is plain and SubmissionResult.model_validate_json(text) == plain
    where = os.fsdecode(b"/tmp/caf\xe9.ipynb")
    raw = build_result("k", SLUG, status="worker_failed", seed=1, specs=[], message=f"grader error: OSError: {where}")
    # the report escapes it where it is built (results.py: every message is inert), so the JSON that
    # once ended the grader process, and the batch, is written as it is
    assert raw.message == "grader error: OSError: /tmp/caf\\xe9.ipynb"
    fixed, text = readable_result(raw)
    assert fixed.message == "grader error: OSError: /tmp/caf\\xe9.ipynb"
    assert SubmissionResult.model_validate_json(text) == fixed
    # a string the model does not escape still crosses: readable_result's own repair
    odd = raw.model_copy(update={"submission": where})
    with pytest.raises(ValueError):
        odd.model_dump_json()
    fixed, text = readable_result(odd)
    assert fixed.submission == "/tmp/caf\\xe9.ipynb" and SubmissionResult.model_validate_json(text) == fixed


def test_grading_a_file_whose_name_is_not_utf8(toy_grader, tmp_path):
    path = tmp_path / os.fsdecode(b"\xe9\xff\n.ipynb")
    path.write_bytes(GOOD)
    result = toy_grader.grade(path, SLUG, seed=3)
    assert result.status == "graded" and result.score == result.max_score > 0
    assert result.submission == "\\xe9\\xff\\x0a.ipynb"
    result.model_dump_json()  # JSON whatever the name
    path.write_text("{")
    rejected = toy_grader.grade(path, SLUG, seed=3)
    assert rejected.status == "rejected" and rejected.message.startswith("\\xe9\\xff\\x0a.ipynb: ")
    rejected.model_dump_json()


# --- one batch of hostile names, end to end ------------------------------------------------------------
def test_a_batch_of_hostile_names_grades_every_one_and_every_output_shows_them_escaped(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    for raw, _ in HOSTILE:
        (root / os.fsdecode(raw)).write_bytes(GOOD)
    (root / os.fsdecode(LONG[2])).write_bytes(GOOD)
    (root / os.fsdecode(b"broken\xe9\x1b[2J.ipynb")).write_text("{ not json")   # its own reason
    with zipfile.ZipFile(root / os.fsdecode(b"twice\xe9" + "\u202e".encode() + b".zip"), "w") as z:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z.writestr("toy.ipynb", GOOD)
            z.writestr("toy.ipynb", b"{}")                                       # ambiguous: its own reason
    out = tmp_path / "out"
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", "batch", str(root), "-a", SLUG, "-o", str(out),
                           "-j", "2", "--seed", "5"], env=env, capture_output=True, timeout=600, cwd=tmp_path)
    terminal = proc.stdout.decode("utf-8") + proc.stderr.decode("utf-8")  # strict: valid UTF-8
    assert proc.returncode == 0, terminal[-3000:]
    assert "Traceback" not in terminal
    assert not RAW.search(terminal.replace("\n", "")), [m for m in RAW.findall(terminal) if m != "\n"]
    assert "not gradable: twice\\xe9\\u202e.zip~" in terminal

    with open(out / "gradebook.csv", newline="", encoding="utf-8") as fh:
        book = {row["submission"]: row for row in csv.DictReader(fh)}
    assert len(book) == len(HOSTILE) + 3
    for _, shown in HOSTILE:
        [key] = [k for k in book if k.startswith(shown + "~")]
        assert book[key]["status"] == "graded" and book[key]["score"] == book[key]["max_score"] == "4"
    [broken] = [r for k, r in book.items() if k.startswith("broken\\xe9\\x1b[2J.ipynb~")]
    assert broken["status"] == "rejected" and broken["reason"].startswith("broken\\xe9\\x1b[2J.ipynb: the file is")
    [twice] = [r for k, r in book.items() if k.startswith("twice")]
    assert twice["status"] == "rejected" and "'toy.ipynb' twice" in twice["reason"]
    [long] = [r for k, r in book.items() if k.startswith("\\xff\\xff")]
    assert long["status"] == "graded" and long["score"] == "4"

    for key in book:
        assert (out / "results" / results_name(key)).is_file()
        assert (out / "feedback" / feedback_name(key)).is_file()
    outputs = [out / "gradebook.csv", out / "canvas.csv", out / "report.html", out / "roster.json",
               *(out / "results").iterdir(), *(out / "feedback").iterdir()]
    for path in outputs:
        assert len(path.name.encode()) <= NAME_MAX and not RAW.search(path.name)
        text = path.read_text(encoding="utf-8")
        assert not RAW.search(text.replace("\n", "").replace("\r", "").replace("\t", "")), path.name
    report = (out / "report.html").read_text(encoding="utf-8")
    for _, shown in HOSTILE:
        assert shown in report, shown
