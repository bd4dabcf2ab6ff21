"""Class exports in: a Gradescope export (with a group), per-student folders, zips, an LMS download and a
flat folder all become submissions with their students; what cannot be graded is reported, never
guessed; hostile names, zips and metadata stay inert and bounded."""
from __future__ import annotations

import os
import shutil
import time
import zipfile
from pathlib import Path

import pytest

from autograder.course.exports import (METADATA_NAME, Discovery, ExportError, ExportLimits, NotebookRule,
                                discover, read_gradescope_metadata)
from autograder.course.outputs import results_name
from autograder.text import clean
from tests.conftest import FIXTURE_SUBS, ROOT

EXAMPLES = ROOT / "examples" / "submissions" / "sdpa-from-scratch"
SLUG = "sdpa-from-scratch"
FULL = EXAMPLES / "full_marks.ipynb"
NO_SCALE = EXAMPLES / "no_scale.ipynb"

METADATA = """\
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1001'
    :email: ada@example.edu
  :created_at: 2024-03-01 10:15:00.000000000 -08:00
  :score: 0.0
submission_102:
  :submitters:
  - :name: Grace Hopper
    :sid: '1002'
    :email: grace@example.edu
  - :name: Alan Turing
    :sid: 1003
    :email: alan@example.edu
  :created_at: 2024-03-01 11:00:00.000000000 -08:00
submission_103:
  :submitters:
  - :name: Zip Person
    :sid: '1004'
submission_104:
  :submitters:
  - :name: Empty Folder
    :sid: '1005'
submission_105:
  :submitters:
  - :name: Two Notebooks
    :sid: '1006'
submission_106:
  :submitters:
  - :name: Missing Folder
    :sid: '1007'
"""


def gradescope_export(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / METADATA_NAME).write_text(METADATA)
    (root / "submission_101").mkdir()
    shutil.copy(FULL, root / "submission_101" / f"{SLUG}.ipynb")
    (root / "submission_102" / "work").mkdir(parents=True)
    shutil.copy(NO_SCALE, root / "submission_102" / "work" / "our notebook.ipynb")
    (root / "submission_102" / "notes.txt").write_text("group of two")
    (root / "submission_103").mkdir()
    with zipfile.ZipFile(root / "submission_103" / "upload.zip", "w") as z:
        z.write(FULL, f"hw/{SLUG}.ipynb")
        z.writestr("../../escaped.ipynb", "{}")
    (root / "submission_104").mkdir()
    (root / "submission_104" / "answers.pdf").write_bytes(b"%PDF-1.4")
    (root / "submission_105").mkdir()
    shutil.copy(FULL, root / "submission_105" / "draft.ipynb")
    shutil.copy(NO_SCALE, root / "submission_105" / "final.ipynb")
    (root / "submission_107").mkdir()                       # not in the metadata
    shutil.copy(FULL, root / "submission_107" / f"{SLUG}.ipynb")
    return root


def test_gradescope_export_with_a_group(tmp_path):
    root = gradescope_export(tmp_path / "export")
    found = discover(root, SLUG, tmp_path / "scratch")
    assert found.layouts == ["gradescope"]
    by = found.by_key
    assert sorted(by) == ["submission_101", "submission_102", "submission_103", "submission_107"]
    ada = by["submission_101"]
    assert ada.path == root / "submission_101" / f"{SLUG}.ipynb"
    assert (ada.name, ada.sid, ada.email) == ("Ada Lovelace", "1001", "ada@example.edu")
    assert ada.created_at.startswith("2024-03-01")
    group = by["submission_102"]
    assert [(s.name, s.sid) for s in group.submitters] == [("Grace Hopper", "1002"), ("Alan Turing", "1003")]
    assert group.path.name == "our notebook.ipynb"           # the only notebook, whatever its name
    zipped = by["submission_103"]
    assert zipped.path.is_relative_to(tmp_path / "scratch") and zipped.path.read_bytes() == FULL.read_bytes()
    assert not list(tmp_path.rglob("escaped.ipynb"))         # zip-slip member dropped
    problems = {p.key: p for p in found.problems}
    assert problems["submission_104"].kind == "no_notebook"
    assert problems["submission_104"].submitters[0].sid == "1005"
    assert problems["submission_105"].kind == "ambiguous"
    assert "draft.ipynb" in problems["submission_105"].message and "final.ipynb" in problems["submission_105"].message
    assert problems["submission_106"].kind == "missing_folder"
    assert any("submission_107" in w for w in found.warnings)
    assert by["submission_107"].submitters[0].name == "submission_107"


def test_problems_become_rejected_results_with_their_reason(tmp_path):
    found = discover(gradescope_export(tmp_path / "export"), SLUG, tmp_path / "scratch")
    rejected = {r.submission: r for r in found.rejected(SLUG, max_score=33)}
    assert set(rejected) == {"submission_104", "submission_105", "submission_106"}
    assert all(r.status == "rejected" and r.max_score == 33 and r.message for r in rejected.values())
    assert "no .ipynb" in rejected["submission_104"].message
    assert found.submitters()["submission_106"][0].name == "Missing Folder"


def test_export_wrapped_in_its_folder_and_as_a_zip(tmp_path):
    gradescope_export(tmp_path / "dl" / "assignment_42_export")
    found = discover(tmp_path / "dl", SLUG, tmp_path / "s1")
    assert found.layouts == ["gradescope"] and len(found.entries) == 4
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for p in sorted((tmp_path / "dl").rglob("*")):
            if p.is_file():
                z.write(p, p.relative_to(tmp_path / "dl").as_posix())
    found = discover(archive, SLUG, tmp_path / "s2")
    assert sorted(e.key for e in found.entries) == ["submission_101", "submission_102", "submission_103",
                                                    "submission_107"]
    assert all(e.path.is_relative_to(tmp_path / "s2") for e in found.entries)


def per_student_class(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "alice").mkdir()
    shutil.copy(FULL, root / "alice" / "hw.ipynb")
    (root / "alice" / ".ipynb_checkpoints").mkdir()
    shutil.copy(NO_SCALE, root / "alice" / ".ipynb_checkpoints" / "hw-checkpoint.ipynb")
    (root / "bob").mkdir()
    shutil.copy(FULL, root / "bob" / f"{SLUG}.ipynb")
    shutil.copy(NO_SCALE, root / "bob" / "scratch.ipynb")
    (root / "carol").mkdir()
    shutil.copy(FULL, root / "carol" / "a.ipynb")
    shutil.copy(NO_SCALE, root / "carol" / "b.ipynb")
    (root / "dave").mkdir()
    with zipfile.ZipFile(root / "erin.zip", "w") as z:
        z.write(NO_SCALE, f"erin/{SLUG}.ipynb")
    (root / "README.txt").write_text("class of 5")
    return root


def test_per_student_folders_and_zips(tmp_path):
    found = discover(per_student_class(tmp_path / "class"), SLUG, tmp_path / "scratch")
    assert found.layouts == ["folder", "zip"]
    by = found.by_key
    assert sorted(by) == ["alice", "bob", "erin.zip"]
    assert by["alice"].path.name == "hw.ipynb"                  # checkpoints are not notebooks
    assert by["bob"].path.name == f"{SLUG}.ipynb"               # <slug>.ipynb wins over another
    assert by["erin.zip"].submitters[0].name == "erin"
    assert {p.key: p.kind for p in found.problems} == {"carol": "ambiguous", "dave": "no_notebook"}
    assert found.skipped == ["README.txt"]


def test_the_rule_is_configurable(tmp_path):
    root = per_student_class(tmp_path / "class")
    strict = NotebookRule(take_only=False)
    found = discover(root, SLUG, tmp_path / "s1", rule=strict)
    assert sorted(found.by_key) == ["bob", "erin.zip"]          # alice's hw.ipynb is no longer taken
    assert {p.key: p.kind for p in found.problems}["alice"] == "no_notebook"
    named = NotebookRule(prefer=("a.ipynb",))
    found = discover(root, SLUG, tmp_path / "s2", rule=named)
    assert found.by_key["carol"].path.name == "a.ipynb"


def lms_class(root: Path) -> Path:
    root.mkdir(parents=True)
    shutil.copy(FULL, root / f"lovelaceada_1234_5678_{SLUG}.ipynb")
    shutil.copy(NO_SCALE, root / f"hoppergrace_late_2345_6789_{SLUG}-1.ipynb")
    shutil.copy(FULL, root / f"turingalan_3456_7890_{SLUG}.ipynb")
    shutil.copy(FULL, root / f"late_curiemarie_5678_9012_{SLUG}.ipynb")
    (root / "turingalan_3456_7890_helper.py").write_text("x = 1\n")
    (root / "babbagecharles_4567_8901_answers.pdf").write_bytes(b"%PDF")
    moodle = root / "Mary Somerville_99_assignsubmission_file_"
    moodle.mkdir()
    shutil.copy(FULL, moodle / "attention.ipynb")
    return root


def test_lms_download_names_carry_the_student(tmp_path):
    found = discover(lms_class(tmp_path / "canvas"), SLUG, tmp_path / "scratch")
    assert found.layouts == ["canvas", "moodle"]
    by = found.by_key
    ada = by["lovelaceada_1234_5678"]
    assert (ada.submitters[0].name, ada.submitters[0].lms_id, ada.late) == ("lovelaceada", "1234", False)
    grace = by["hoppergrace_2345_6789"]
    assert grace.late and grace.path.name.endswith(f"{SLUG}-1.ipynb")   # a re-submission keeps its name
    alan = by["turingalan_3456_7890"]
    assert alan.path.name.endswith(f"{SLUG}.ipynb")                 # one submission of two files
    marie = by["curiemarie_5678_9012"]
    assert marie.late and marie.submitters[0].model_dump() == {"name": "curiemarie", "sid": "", "email": "",
                                                               "lms_id": "5678"}
    mary = by["Mary Somerville_99_assignsubmission_file_"]
    assert (mary.layout, mary.submitters[0].name, mary.submitters[0].lms_id) == ("moodle", "Mary Somerville", "99")
    assert "babbagecharles_4567_8901_answers.pdf" in found.skipped


def test_flat_folder_keeps_todays_names(tmp_path):
    found = discover(FIXTURE_SUBS, "toy", tmp_path / "scratch")
    assert found.layouts == ["flat"]
    assert [(e.key, e.name) for e in found.entries] == [("good.ipynb", "good"), ("no_scale.ipynb", "no_scale")]
    assert [results_name(e.key) for e in found.entries] == ["good.ipynb.json", "no_scale.ipynb.json"]


def test_same_student_twice_is_a_warning_not_a_guess(tmp_path):
    root = tmp_path / "export"
    root.mkdir()
    (root / METADATA_NAME).write_text("submission_1:\n  :submitters:\n  - {':name': A, ':sid': '7'}\n"
                                      "submission_2:\n  :submitters:\n  - {':name': A again, ':sid': '7'}\n")
    for n in (1, 2):
        (root / f"submission_{n}").mkdir()
        shutil.copy(FULL, root / f"submission_{n}" / f"{SLUG}.ipynb")
    found = discover(root, SLUG, tmp_path / "scratch")
    assert len(found.entries) == 2
    assert any("sid 7 appears in 2 submissions" in w for w in found.warnings)


def test_roster_round_trip(tmp_path):
    found = discover(gradescope_export(tmp_path / "export"), SLUG, tmp_path / "scratch")
    found.write(tmp_path / "roster.json")
    back = Discovery.read(tmp_path / "roster.json")
    assert back == found


# --- hostile exports -----------------------------------------------------------------------------------
def test_hostile_names_are_cleaned_and_keys_stay_unique(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    evil = "\x1b]0;pwned\x07\u202eevil\nname"
    (root / evil).mkdir()
    shutil.copy(FULL, root / evil / "hw.ipynb")
    (root / (evil + "2")).mkdir()
    shutil.copy(FULL, root / (evil + "2") / "hw.ipynb")
    (root / ("=HYPERLINK(1)" + "x" * 200 + ".ipynb")).write_bytes(FULL.read_bytes())
    found = discover(root, SLUG, tmp_path / "scratch", folders=True)
    keys = [e.key for e in found.entries]
    assert len(set(keys)) == 3
    for e in found.entries:
        for text in (e.key, e.name, e.source):
            assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in text), text
        assert len(e.name) <= 200 and len(e.key) <= 140
        assert "/" not in results_name(e.key) and not results_name(e.key).startswith(".")
    assert {e.name for e in found.entries} >= {"]0;pwnedevil name", "]0;pwnedevil name2"}


def test_symlinks_are_never_followed(tmp_path):
    secret = tmp_path / "secret.ipynb"
    secret.write_bytes(FULL.read_bytes())
    root = tmp_path / "class"
    (root / "mallory").mkdir(parents=True)
    os.symlink(secret, root / "mallory" / f"{SLUG}.ipynb")        # a link to a grader file
    os.symlink(tmp_path, root / "linkdir")                          # a link to a folder
    os.symlink(secret, root / "linked.ipynb")
    found = discover(root, SLUG, tmp_path / "scratch")
    assert found.entries == []
    assert {p.key: p.kind for p in found.problems} == {"mallory": "no_notebook"}
    assert sum("symbolic link" in w for w in found.warnings) == 2


def test_traversal_keys_in_metadata_are_ignored(tmp_path):
    root = tmp_path / "export"
    (root / "submission_1").mkdir(parents=True)
    shutil.copy(FULL, root / "submission_1" / f"{SLUG}.ipynb")
    (tmp_path / "outside").mkdir()
    shutil.copy(FULL, tmp_path / "outside" / f"{SLUG}.ipynb")
    (root / METADATA_NAME).write_text(
        "../outside:\n  :submitters:\n  - {':name': X}\n"
        "/etc:\n  :submitters:\n  - {':name': Y}\n"
        "submission_1:\n  :submitters:\n  - ':name': \"Eve\\e]0;t\\a\\u202e\"\n    ':sid': [1, 2]\n"
        "    ':email': {'a': 1}\n")
    found = discover(root, SLUG, tmp_path / "scratch")
    assert [e.key for e in found.entries] == ["submission_1"]
    assert found.entries[0].submitters[0].model_dump() == {"name": "Eve]0;t", "sid": "", "email": "", "lms_id": ""}
    assert sum("not a submission_<id> folder name" in w for w in found.warnings) == 2


def _write_meta(tmp_path: Path, text: str) -> Path:
    root = tmp_path / "export"
    root.mkdir(exist_ok=True)
    (root / METADATA_NAME).write_text(text)
    return root


def test_yaml_alias_bomb_is_refused_fast(tmp_path):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    root = _write_meta(tmp_path, "\n".join(lines) + "\n")
    start = time.monotonic()
    with pytest.raises(ExportError, match="aliases"):
        discover(root, SLUG, tmp_path / "scratch")
    assert time.monotonic() - start < 5


def test_yaml_merge_key_bomb_is_refused(tmp_path):
    lines = ["l0: &l0 {a: 1, b: 2}"]
    for i in range(1, 30):
        lines.append(f"l{i}: &l{i}\n  <<: [*l{i - 1}, *l{i - 1}]")
    root = _write_meta(tmp_path, "\n".join(lines) + "\n")
    start = time.monotonic()
    with pytest.raises(ExportError, match="merge keys"):
        discover(root, SLUG, tmp_path / "scratch")
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("text, match", [
    ("[" * 500 + "]" * 500, "nests deeper"),
    ("[" * 5000 + "]" * 5000, "nests deeper|not valid YAML"),
    ("".join(" " * i + f"k{i}:\n" for i in range(200)) + " " * 200 + "v: 1\n", "nests deeper"),
    ("submission_1: !!python/object/apply:os.system ['touch /tmp/pwned-by-yaml']\n", "not valid YAML"),
    ("submission_1:\n  :submitters:\n  - :sid: " + "9" * 100_000 + "\n", "could not be read"),
    ("- just\n- a list\n", "should map"),
    ("key: [unclosed\n", "not valid YAML"),
])
def test_hostile_metadata_is_an_export_error(tmp_path, text, match):
    root = _write_meta(tmp_path, text)
    with pytest.raises(ExportError, match=match):
        discover(root, SLUG, tmp_path / "scratch")
    assert not Path("/tmp/pwned-by-yaml").exists()


def test_huge_metadata_is_refused_before_parsing(tmp_path):
    root = _write_meta(tmp_path, "x: '" + "y" * 2_000_000 + "'\n")
    start = time.monotonic()
    with pytest.raises(ExportError, match="more than"):
        discover(root, SLUG, tmp_path / "scratch", limits=ExportLimits(metadata_bytes=1_000_000))
    assert time.monotonic() - start < 1


def test_many_submitters_and_long_names_are_capped(tmp_path):
    people = "".join(f"  - {{':name': '{'N' * 5000}', ':sid': '{i}'}}\n" for i in range(100))
    root = _write_meta(tmp_path, f"submission_1:\n  :submitters:\n{people}")
    meta, warnings = read_gradescope_metadata(root / METADATA_NAME)
    students, _ = meta["submission_1"]
    assert len(students) == 20 and all(len(s.name) == 200 for s in students)
    assert any("kept the first 20" in w for w in warnings)


def test_hostile_student_zips_are_problems_not_crashes(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    (root / "notazip.zip").write_bytes(b"PK\x03\x04 this is not a zip")
    with zipfile.ZipFile(root / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"{SLUG}.ipynb", b"\0" * (60 * 1024 * 1024))
    with zipfile.ZipFile(root / "many.zip", "w") as z:
        for i in range(3000):
            z.writestr(f"f{i}.txt", "")
    found = discover(root, SLUG, tmp_path / "scratch")
    assert found.entries == []
    kinds = {p.key: p.kind for p in found.problems}
    assert kinds == {"notazip.zip": "bad_zip", "bomb.zip": "too_large", "many.zip": "bad_zip"}
    assert all(p.message for p in found.problems)


def test_too_many_files_in_a_folder_is_reported(tmp_path):
    root = tmp_path / "class"
    (root / "hoarder").mkdir(parents=True)
    for i in range(50):
        (root / "hoarder" / f"f{i}.txt").write_text("")
    found = discover(root, SLUG, tmp_path / "scratch", limits=ExportLimits(folder_files=20))
    assert [(p.key, p.kind) for p in found.problems] == [("hoarder", "too_large")]


def test_clean():
    assert clean("a\x1b[31mb\u202ec\nd\t\te ") == "a[31mbc d e"
    assert clean(1234) == "1234" and clean(None) == "" and clean(["x"]) == "" and clean(True) == ""
    assert clean("x" * 500) == "x" * 199 + "…"


def test_missing_directory_is_an_export_error(tmp_path):
    with pytest.raises(ExportError):
        discover(tmp_path / "nope", SLUG, tmp_path / "scratch")


def test_rosters_of_shards_merge_into_one(tmp_path):
    found = discover(gradescope_export(tmp_path / "export"), SLUG, tmp_path / "scratch")
    half = lambda keep: Discovery(entries=[e for i, e in enumerate(found.entries) if i % 2 == keep],  # noqa: E731
                                  problems=[p for i, p in enumerate(found.problems) if i % 2 == keep],
                                  warnings=found.warnings, skipped=found.skipped, layouts=found.layouts)
    merged = Discovery.merged([half(0), half(1), half(0)])
    assert sorted(e.key for e in merged.entries) == sorted(e.key for e in found.entries)
    assert sorted(p.key for p in merged.problems) == sorted(p.key for p in found.problems)
    assert merged.warnings == found.warnings and merged.layouts == ["gradescope"]
    assert merged.submitters() == found.submitters()


def test_a_flat_folders_subfolders_are_not_students_unless_asked(tmp_path):
    found = discover(EXAMPLES, SLUG, tmp_path / "s1")            # the examples: flat, plus hostile/
    assert found.layouts == ["flat"] and found.problems == []
    assert len(found.entries) == len(list(EXAMPLES.glob("*.ipynb")))
    assert any(w.startswith("hostile/ skipped") for w in found.warnings) and "expected.yml" in found.skipped
    found = discover(EXAMPLES, SLUG, tmp_path / "s2", folders=True)
    assert [(p.key, p.kind) for p in found.problems] == [("hostile", "ambiguous")]


def test_names_spelled_like_a_renamed_repeat_never_share_a_key(tmp_path):
    """Red-team round 24: a folder `alice ` gets a hashed key; one named that key collided with it and was
    renamed `<key>~2`, which a third folder already held, so two results shared a key and one was dropped
    from the gradebook without a word. Students choose these names: every spelling is tried here."""
    import hashlib
    root = tmp_path / "class"
    root.mkdir()
    base = "alice "
    key = f"{base}~{hashlib.sha256(os.fsencode(base)).hexdigest()[:10]}"
    names = [base, key, key + "~2", key + "~3", key + "~2~2", "bob", "bob~2"]
    for name in names:
        (root / name).mkdir()
        shutil.copy(FULL, root / name / "hw.ipynb")
    found = discover(root, SLUG, tmp_path / "scratch", folders=True)
    keys = [e.key for e in found.entries] + [p.key for p in found.problems if p.key]
    assert len(found.entries) == len(names)
    assert len(set(keys)) == len(keys), keys
    assert len({results_name(k) for k in keys}) == len(keys)


def _directory_only_zip(path: Path, n: int, declared: int | None = None, zip64: bool = True) -> None:
    """A zip that is nothing but a central directory of `n` empty records, its end record declaring
    `declared` entries (n by default): zip64, or a plain end record whose count lies."""
    import struct
    record = struct.pack("<4s4H4L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    cd = record * n
    count = n if declared is None else declared
    with open(path, "wb") as fh:
        fh.write(cd)
        if zip64:
            fh.write(struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(cd), 0))
            fh.write(struct.pack("<4sLQL", b"PK\x06\x07", 0, len(cd), 1))
            fh.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))
        else:
            count = min(count, 0xFFFE)          # the most a plain end record can say
            fh.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, len(cd), 0, 0))


@pytest.mark.parametrize("declared, zip64", [(None, True), (None, False), (3, False), (3, True)],
                         ids=["zip64", "plain", "plain-count-lies", "zip64-count-lies"])
def test_a_zip_of_a_huge_directory_is_refused_before_it_is_read(tmp_path, declared, zip64):
    """Red-team round 24: zipfile builds an object per central-directory record before the members can
    be counted (a 92 MB zip of 2,000,000 records: 769 MB and 51 s of a batch). The end record is read
    first, and the directory's size bounds the count whatever the count field says."""
    import tracemalloc
    root = tmp_path / "class"
    root.mkdir()
    shutil.copy(FULL, root / "alice.ipynb")
    _directory_only_zip(root / "eve.zip", 100_000, declared, zip64)
    tracemalloc.start()
    try:
        found = discover(root, SLUG, tmp_path / "scratch")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [e.key for e in found.entries] == ["alice.ipynb"]
    [problem] = found.problems
    assert problem.key == "eve.zip" and "more than" in problem.message, problem.message
    assert peak < (root / "eve.zip").stat().st_size / 4, peak


def test_a_zip_at_the_member_limit_still_unpacks(tmp_path):
    from autograder.course.unpack import MAX_ZIP_MEMBERS, safe_extract
    z = tmp_path / "many.zip"
    with zipfile.ZipFile(z, "w") as out:
        for i in range(MAX_ZIP_MEMBERS - 1):
            out.writestr(f"notes/a-rather-long-folder-name-for-homework/part{i:05d}.txt", "x")
        out.writestr("hw.ipynb", FULL.read_bytes())
    assert safe_extract(z, tmp_path / "out") > 0
    assert (tmp_path / "out" / "hw.ipynb").is_file()


def test_gradescope_refuses_the_huge_directory_in_words(tmp_path):
    from autograder.course.gradescope import find_notebook
    sub = tmp_path / "submission"
    sub.mkdir()
    _directory_only_zip(sub / "hw.zip", 100_000)
    (tmp_path / "scratch").mkdir()
    path, problem = find_notebook(sub, SLUG, tmp_path / "scratch")
    assert path is None and "more than" in problem, problem


@pytest.mark.parametrize("impostor", ["turingalan_1103_90003_eve.ipynb", "late_turingalan_1103_90003_hw.ipynb"])
def test_a_download_name_in_a_mixed_folder_claims_no_lms_id(tmp_path, impostor):
    """Red-team round 24: in a flat folder (names chosen by students), a file named like a Canvas
    download carried the Canvas user id its author wrote, and canvas.csv (matched by id first) would
    have given that id's owner the author's score. In a folder that mixes layouts no id is used, and
    the warning names the file; a folder of the download alone keeps its ids."""
    root = tmp_path / "class"
    root.mkdir()
    for name in ("alan.ipynb", "ada.ipynb", impostor):
        shutil.copy(FULL, root / name)
    (root / "moodler_77_assignsubmission_file_").mkdir()
    shutil.copy(FULL, root / "moodler_77_assignsubmission_file_" / "hw.ipynb")
    found = discover(root, SLUG, tmp_path / "scratch")
    assert len(found.entries) == 4
    assert not [s.lms_id for e in found.entries for s in e.submitters if s.lms_id]
    [warning] = [w for w in found.warnings if "user ids" in w]
    assert "turingalan" in warning and "moodler" in warning

    alone = tmp_path / "canvas"
    alone.mkdir()
    shutil.copy(FULL, alone / impostor)
    shutil.copy(FULL, alone / "lovelaceada_1104_90004_hw.ipynb")
    found = discover(alone, SLUG, tmp_path / "scratch2")
    assert sorted(s.lms_id for e in found.entries for s in e.submitters) == ["1103", "1104"]
    assert not [w for w in found.warnings if "user ids" in w]


def test_a_deep_folder_beside_the_notebook_does_not_refuse_the_student(tmp_path):
    # a student's folder and zip with a node_modules-like tree deeper than the walk's limit beside the notebook: the
    # deep part is passed over and the notebook graded (a walk that called the depth a reason refused both)
    root = tmp_path / "class"
    deep = root / "alice" / "node_modules" / Path(*[f"d{i}" for i in range(ExportLimits().folder_depth + 2)])
    deep.mkdir(parents=True)
    (deep / "index.js").write_text("//")
    shutil.copy(FULL, root / "alice" / f"{SLUG}.ipynb")
    with zipfile.ZipFile(root / "bob.zip", "w") as z:
        z.write(FULL, f"bob/{SLUG}.ipynb")
        z.writestr("bob/" + "/".join(f"d{i}" for i in range(ExportLimits().folder_depth + 2)) + "/x.txt", "x")
    found = discover(root, SLUG, tmp_path / "scratch")
    assert sorted(found.by_key) == ["alice", "bob.zip"], found.problems
    assert not found.problems
