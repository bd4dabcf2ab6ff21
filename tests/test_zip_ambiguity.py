"""Nothing ambiguous is resolved silently: a zip in which two members would be one file (the same name
twice, 'a//b' beside 'a/b', names that differ only in case or in how an accent is written, a name that
is a file and a folder), a notebook that holds one key twice, and a submission_metadata.yml that lists
one folder twice are each refused with a reason that names them, in every layout a class arrives in.
(unzip and Python's ZipFile keep the last of two members, a careful extractor the first: neither is
what the student meant.)"""
from __future__ import annotations

import json
import shutil
import unicodedata
import warnings
import zipfile
from pathlib import Path

import pytest

from autograder.errors import SubmissionError
from autograder.course.exports import METADATA_NAME, ExportError, discover
from autograder.grading.intake import read_submission
from autograder.course.unpack import check_zip_members, zip_member_path
from tests.conftest import FIXTURE_SUBS

SLUG = "toy"
GOOD = (FIXTURE_SUBS / "good.ipynb").read_bytes()
OTHER = (FIXTURE_SUBS / "no_scale.ipynb").read_bytes()
REG, LINK, DIR = 0o100644, 0o120777, 0o040755


def make_zip(path: Path, members: list[tuple[str, bytes] | tuple[str, bytes, int]]) -> Path:
    """A zip holding exactly these members, in this order, repeats included (ZipFile warns, writes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        for member in members:
            name, data, mode = member if len(member) == 3 else (*member, REG)  # type: ignore[misc]
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = mode << 16
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Duplicate name": the point of these zips
                z.writestr(info, data)
    return path


def infos(members: list[tuple[str, int]]) -> list[zipfile.ZipInfo]:
    out = []
    for name, mode in members:
        info = zipfile.ZipInfo(name)
        info.external_attr = mode << 16
        out.append(info)
    return out


NFD_E = unicodedata.normalize("NFD", "é")
assert NFD_E != "é"

CLASHES = {
    "the same name twice": ["toy.ipynb", "toy.ipynb"],
    "a doubled slash": ["hw/toy.ipynb", "hw//toy.ipynb"],
    "a ./ in front": ["./toy.ipynb", "toy.ipynb"],
    "a /./ inside": ["hw/./toy.ipynb", "hw/toy.ipynb"],
    "a Windows separator": ["hw\\toy.ipynb", "hw/toy.ipynb"],
    "case only": ["Toy.ipynb", "toy.ipynb"],
    "case of a folder": ["HW/toy.ipynb", "hw/toy.ipynb"],
    "an accent written two ways": ["caf\u00e9.ipynb", f"caf{NFD_E}.ipynb"],
    "German sharp s folds to ss": ["stra\u00dfe/toy.ipynb", "STRASSE/toy.ipynb"],
}


@pytest.mark.parametrize("names", CLASHES.values(), ids=CLASHES.keys())
def test_two_members_that_are_one_file_are_refused_with_both_names(names):
    with pytest.raises(SubmissionError) as err:
        check_zip_members(infos([(n, REG) for n in names]))
    message = str(err.value)
    assert "cannot be told" in message and "zip again" in message
    if names[0] == names[1]:
        assert f"'{names[0]}' twice" in message
    else:
        assert f"'{names[0]}' and '{names[1]}'" in message, message


@pytest.mark.parametrize("members", [
    [("hw", REG), ("hw/toy.ipynb", REG)],            # a file, then a folder of the same name
    [("hw/toy.ipynb", REG), ("HW", REG)],            # a folder, then a file of that name in another case
    [("hw/", DIR), ("hw", REG)],                      # a folder entry and a file
])
def test_a_name_that_is_a_file_and_a_folder_is_refused(members):
    with pytest.raises(SubmissionError, match="both as a file and as a folder"):
        check_zip_members(infos(members))


@pytest.mark.parametrize("members", [
    [("a/toy.ipynb", REG), ("b/toy.ipynb", REG)],    # one name in two folders: two files
    [("hw/", DIR), ("hw/", DIR), ("hw/toy.ipynb", REG)],  # a folder entry twice: still one folder
    [("toy.ipynb", LINK), ("toy.ipynb", REG)],       # the link is never written: one file
    [("toy.ipynb", REG), ("toy.ipynb.bak", REG), ("toy.py", REG)],
])
def test_members_that_stay_apart_are_accepted(members):
    assert isinstance(check_zip_members(infos(members)), list)


def test_case_folding_is_off_for_an_export_where_two_students_differ_in_case():
    members = infos([("Alice_1_assignsubmission_file_/toy.ipynb", REG),
                     ("alice_1_assignsubmission_file_/toy.ipynb", REG)])
    assert check_zip_members(members, fold=False) == []
    with pytest.raises(SubmissionError):
        check_zip_members(members)  # in one student's zip they are one file on Windows and macOS
    with pytest.raises(SubmissionError, match="twice"):
        check_zip_members(infos([("a/toy.ipynb", REG), ("a/toy.ipynb", REG)]), fold=False)


def test_what_a_safe_extraction_leaves_out_is_listed_shown_escaped():
    left = check_zip_members(infos([("../evil.ipynb", REG), ("toy\x1b[2J.ipynb", REG), ("/abs.ipynb", REG),
                                    ("link.ipynb", LINK), ("fifo", 0o010644), ("ok.ipynb", REG)]))
    assert left == ["../evil.ipynb", "toy\\x1b[2J.ipynb", "/abs.ipynb", "link.ipynb", "fifo"]


def test_zip_member_path_reads_names_as_unzip_does():
    assert str(zip_member_path("a//b/./c.ipynb")) == "a/b/c.ipynb"
    assert str(zip_member_path("a\\b.ipynb")) == "a/b.ipynb"
    for bad in ("", "/", "../x", "a/../../x", "C:x", "c:/x", "a\nb", "x" * 256, "a/\x7f"):
        assert zip_member_path(bad) is None, bad
    assert zip_member_path("x" * 255) is not None


# --- in every layout a class arrives in -----------------------------------------------------------------
def _only_problem(found, key_part: str):
    assert not found.entries, [e.key for e in found.entries]
    [problem] = found.problems
    assert key_part in (problem.key or "")
    return problem


def test_a_students_zip_with_one_notebook_twice_is_rejected_not_graded_first_one_wins(tmp_path):
    root = tmp_path / "class"
    make_zip(root / "alice.zip", [("hw/toy.ipynb", GOOD), ("hw/toy.ipynb", OTHER)])
    problem = _only_problem(discover(root, SLUG, tmp_path / "scratch"), "alice.zip")
    assert problem.kind == "ambiguous"
    assert "alice.zip" in problem.message and "'hw/toy.ipynb' twice" in problem.message


@pytest.mark.parametrize("names", [["toy.ipynb", "TOY.ipynb"], ["a/toy.ipynb", "a//toy.ipynb"],
                                   ["./toy.ipynb", "toy.ipynb"]], ids=["case", "slashes", "dot"])
def test_a_zip_in_a_students_folder_with_two_spellings_is_rejected(tmp_path, names):
    root = tmp_path / "class"
    make_zip(root / "bob" / "work.zip", [(names[0], GOOD), (names[1], OTHER)])
    problem = _only_problem(discover(root, SLUG, tmp_path / "scratch", folders=True), "bob")
    assert problem.kind == "ambiguous" and "cannot be told" in problem.message


def test_a_canvas_zip_with_a_repeated_member_is_rejected(tmp_path):
    root = tmp_path / "canvas"
    make_zip(root / "smithjohn_1234_56789_hw.zip", [("toy.ipynb", GOOD), ("toy.ipynb", OTHER)])
    (root / "doejane_1235_56790_toy.ipynb").parent.mkdir(parents=True, exist_ok=True)
    (root / "doejane_1235_56790_toy.ipynb").write_bytes(GOOD)
    found = discover(root, SLUG, tmp_path / "scratch")
    assert [e.submitters[0].lms_id for e in found.entries] == ["1235"]  # the other student is graded
    [problem] = found.problems
    assert problem.kind == "ambiguous" and problem.submitters[0].lms_id == "1234"


def test_the_zip_check_does_not_stop_the_others(tmp_path):
    root = tmp_path / "class"
    make_zip(root / "alice.zip", [("toy.ipynb", GOOD), ("Toy.ipynb", OTHER)])
    make_zip(root / "bob.zip", [("hw/toy.ipynb", GOOD), ("hw/notes.txt", b"x")])
    (root / "carol.ipynb").write_bytes(GOOD)
    found = discover(root, SLUG, tmp_path / "scratch")
    assert sorted(e.key for e in found.entries) == ["bob.zip", "carol.ipynb"]
    assert [(p.key, p.kind) for p in found.problems] == [("alice.zip", "ambiguous")]
    bob = found.entry("bob.zip")
    assert bob is not None and bob.path.read_bytes() == GOOD


def test_a_zip_whose_names_are_marked_utf8_but_are_not_is_a_plain_problem(tmp_path):
    root = tmp_path / "class"
    path = make_zip(root / "alice.zip", [("caf\u00e9.ipynb", GOOD)])  # written with the UTF-8 flag
    raw = path.read_bytes()
    assert raw.count("é".encode()) == 2  # the local header and the central directory
    path.write_bytes(raw.replace("é".encode(), b"\xe9\xff"))  # same length: still a zip, names not UTF-8
    problem = _only_problem(discover(root, SLUG, tmp_path / "scratch"), "alice.zip")
    assert problem.kind == "bad_zip" and "marked as UTF-8 but are not" in problem.message


def test_a_notebook_left_out_of_a_zip_for_its_name_is_said(tmp_path):
    root = tmp_path / "class"
    make_zip(root / "alice.zip", [("toy\n.ipynb", GOOD), ("../toy.ipynb", GOOD)])
    problem = _only_problem(discover(root, SLUG, tmp_path / "scratch"), "alice.zip")
    assert problem.kind == "no_notebook"
    assert "left out of the zip" in problem.message
    assert "toy\\x0a.ipynb" in problem.message and "../toy.ipynb" in problem.message
    assert "\n" not in problem.message


def test_a_whole_export_zip_with_a_repeated_member_is_refused_naming_it(tmp_path):
    export = make_zip(tmp_path / "export.zip", [("alice/toy.ipynb", GOOD), ("bob/toy.ipynb", GOOD),
                                                 ("alice/toy.ipynb", OTHER)])
    with pytest.raises(ExportError, match="'alice/toy.ipynb' twice"):
        discover(export, SLUG, tmp_path / "scratch")


def test_a_whole_export_zip_may_hold_folders_that_differ_in_case(tmp_path):
    export = make_zip(tmp_path / "export.zip", [("Alice/toy.ipynb", GOOD), ("alice/toy.ipynb", OTHER)])
    found = discover(export, SLUG, tmp_path / "scratch")
    assert sorted(e.key for e in found.entries) == ["Alice", "alice"]  # two students, each graded
    assert {e.path.read_bytes() for e in found.entries} == {GOOD, OTHER}


def test_a_folder_with_two_spellings_of_the_notebook_is_ambiguous(tmp_path):
    root = tmp_path / "class"
    (root / "dana").mkdir(parents=True)
    (root / "dana" / "toy.ipynb").write_bytes(GOOD)
    (root / "dana" / "TOY.ipynb").write_bytes(OTHER)
    problem = _only_problem(discover(root, SLUG, tmp_path / "scratch", folders=True), "dana")
    assert problem.kind == "ambiguous" and "TOY.ipynb" in problem.message and "toy.ipynb" in problem.message


# --- one key twice ------------------------------------------------------------------------------------
def _notebook_text(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "toy.ipynb"
    path.write_text(text)
    return path


def test_a_cell_that_holds_its_source_twice_is_refused(tmp_path):
    nb = json.loads(GOOD)
    cell = json.dumps(nb["cells"][0])
    assert cell.endswith("}")
    twice = cell[:-1] + ', "source": "def attend(Q, K, V):\\n    return V\\n"}'  # a viewer shows the first
    text = json.dumps(nb).replace(cell, twice, 1)
    assert text.count('"source"') == len(nb["cells"]) + 1
    with pytest.raises(SubmissionError, match="holds the key 'source' twice"):
        read_submission(_notebook_text(tmp_path, text))


def test_a_notebook_that_holds_its_cells_twice_is_refused(tmp_path):
    nb = json.loads(GOOD)
    text = json.dumps(nb)[:-1] + ', "cells": []}'
    with pytest.raises(SubmissionError, match="key 'cells' twice"):
        read_submission(_notebook_text(tmp_path, text))


def test_the_same_key_in_different_objects_is_fine(tmp_path):
    sub = read_submission(_notebook_text(tmp_path, GOOD.decode()))  # every cell has its own "source"
    assert sub.cells


# --- one folder listed twice --------------------------------------------------------------------------
def test_metadata_that_lists_a_folder_twice_is_refused_naming_it(tmp_path):
    root = tmp_path / "export"
    for n in (1, 2):
        (root / f"submission_{n}").mkdir(parents=True)
        shutil.copy(FIXTURE_SUBS / "good.ipynb", root / f"submission_{n}" / "toy.ipynb")
    (root / METADATA_NAME).write_text(
        "submission_1:\n  :submitters:\n  - :name: Ada\n    :sid: '1'\n"
        "submission_2:\n  :submitters:\n  - :name: Bob\n    :sid: '2'\n"
        "'submission_1':\n  :submitters:\n  - :name: Mallory\n    :sid: '3'\n")
    with pytest.raises(ExportError, match="'submission_1' twice"):
        discover(root, SLUG, tmp_path / "scratch")
