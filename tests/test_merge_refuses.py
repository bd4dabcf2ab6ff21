"""`merge` joins only what is one batch (autograder.course.merge): shards run with different seeds, graded with
different hidden tests, with a journal record that does not validate, or with a results file that is
not what its journal recorded (cut in half, edited, a link, not a results file) are refused in one
line naming the shard; a broken file is never copied, a missing one is rebuilt from the journal. The
merged journal records the seed the shards used. Shards kept on read-only media merge; a read-only or
full OUT is said in one line (exit 2).

The shards are real batches of the fixture course graded in this process (the session's toy grader);
a shard "graded with other hidden tests" is a batch whose course has a hidden test file with other
bytes, so its journal carries the fingerprint batch computed for it."""
from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
import yaml

from autograder.course.atomic import DiskFault
from autograder.course.batch import run_batch, shard_of
from autograder.config import find_course
from autograder.errors import GraderError
from autograder.course.merge import merge
from autograder.course.outputs import results_name
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS
from tests.test_batch import comparable
from tests.test_disk_faults import fill, one_line, tmpfs

GRADED = "good.ipynb"  # a graded notebook of shard 2, whose results file the tests break


def _class(where: Path) -> Path:
    """Submissions of both shards of 2: shard 2 holds GRADED and a wrong one and a broken one."""
    where.mkdir(parents=True)
    names = {"good.ipynb": FIXTURE_SUBS / "good.ipynb", "no_scale.ipynb": FIXTURE_SUBS / "no_scale.ipynb"}
    first = next(f"student_{i}.ipynb" for i in range(100) if shard_of(f"student_{i}.ipynb", 2) == 1)
    names[first] = FIXTURE_SUBS / "good.ipynb"
    for name, src in names.items():
        shutil.copy(src, where / name)
    (where / "broken.ipynb").write_text("{ not json")
    assert shard_of(GRADED, 2) == 2 and shard_of("no_scale.ipynb", 2) == 2
    return where


def _course_with(where: Path, change) -> Path:
    shutil.copytree(FIXTURE_COURSE, where, ignore=shutil.ignore_patterns("__pycache__"))
    change(where)
    return where


@pytest.fixture(scope="module")
def batches(tmp_path_factory, toy_grader, fixture_course) -> dict[str, Path]:
    """{name: output folder} of real batches: the whole class, its two shards (seed 11), shard 2 again
    with seed 12, shard 2 graded with other hidden test bytes, and both shards of a course whose q3
    is hand-graded (results files carry the hand test)."""
    root = tmp_path_factory.mktemp("merge")
    subs = _class(root / "class")

    def hidden_edited(course: Path) -> None:
        test = sorted((course / "assignments" / "toy" / "hidden").glob("*.py"))[0]
        test.write_text(test.read_text() + "\n# edited after shard 1 ran\n")

    def hand_graded(course: Path) -> None:
        config = yaml.safe_load((course / "grading.yml").read_text())
        config["assignments"]["toy"]["manual_points"] = {"q3": 2}
        (course / "grading.yml").write_text(yaml.safe_dump(config))

    other = find_course(_course_with(root / "other-course", hidden_edited))
    hand = find_course(_course_with(root / "hand-course", hand_graded))
    runs = {"whole": (None, 11, fixture_course), "s1": ((1, 2), 11, fixture_course),
            "s2": ((2, 2), 11, fixture_course), "s2-seed12": ((2, 2), 12, fixture_course),
            "s2-other-tests": ((2, 2), 11, other), "hand-s1": ((1, 2), 11, hand), "hand-s2": ((2, 2), 11, hand)}
    out = {"class": subs}
    for name, (shard, seed, course) in runs.items():
        out[name] = root / name
        run_batch(subs, "toy", out[name], jobs=1, grader=toy_grader, seed=seed, shard=shard, course=course)
    out["hand-course"] = hand.root
    return out


@pytest.fixture()
def shard2(batches, tmp_path) -> Path:
    """A copy of shard 2 this test may break."""
    return Path(shutil.copytree(batches["s2"], tmp_path / "s2"))


def refused(dirs: list[Path], out: Path, course) -> str:
    with pytest.raises(GraderError) as err:
        merge(dirs, out, course)
    message = str(err.value)
    assert "\n" not in message, message
    assert not out.exists(), "a refused merge wrote something"
    return message


def merge_cli(*args: str, course: Path = FIXTURE_COURSE) -> subprocess.CompletedProcess:
    env = dict(os.environ, AUTOGRADER_COURSE=str(course))
    return subprocess.run([sys.executable, "-m", "autograder.cli", "merge", *args], env=env, capture_output=True,
                          text=True, timeout=400)


def seed_of(out: Path) -> str:
    with contextlib.closing(sqlite3.connect(f"file:{out / 'journal.sqlite'}?mode=ro", uri=True)) as db:
        return db.execute("SELECT value FROM meta WHERE key = 'batch_seed'").fetchone()[0]


def files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "results").iterdir())}


def shards_files(batches: dict[str, Path]) -> dict[str, bytes]:
    """The results files shards 1 and 2 wrote, byte for byte: what the merge must hold."""
    return {**files(batches["s1"]), **files(batches["s2"])}


# --- one batch: merged ----------------------------------------------------------------------------------
def test_shards_of_one_batch_merge_into_what_one_batch_writes_and_keep_its_seed(batches, tmp_path, fixture_course):
    out = tmp_path / "merged"
    merge([batches["s1"], batches["s2"]], out, fixture_course)
    assert seed_of(out) == "11" == seed_of(batches["whole"])
    assert files(out) == shards_files(batches)
    assert comparable(out) == comparable(batches["whole"])  # the same grades as one batch (times aside)
    assert (out / "gradebook.csv").read_text() == (batches["whole"] / "gradebook.csv").read_text()


def test_shards_with_hand_graded_questions_merge(batches, tmp_path):
    """Their results files carry the hand test (write_outputs): still what the journal recorded."""
    course = find_course(batches["hand-course"])
    out = tmp_path / "merged"
    merge([batches["hand-s1"], batches["hand-s2"]], out, course)
    assert b"written answer (graded by hand)" in files(out)[results_name(GRADED)]
    assert files(out) == {**files(batches["hand-s1"]), **files(batches["hand-s2"])}


# --- not one batch: refused, naming the shard -----------------------------------------------------------
def test_shards_run_with_different_seeds_are_refused_naming_the_shard(batches, tmp_path, fixture_course):
    message = refused([batches["s1"], batches["s2-seed12"]], tmp_path / "merged", fixture_course)
    assert f"shard 2/2 ({batches['s2-seed12']})" in message and "seed 12" in message and "11" in message, message
    line = one_line(merge_cli(str(batches["s1"]), str(batches["s2-seed12"]), "-o", str(tmp_path / "cli")))
    assert "shard 2/2" in line and "seed 12" in line, line
    assert not (tmp_path / "cli").exists()


def test_shards_graded_with_different_hidden_tests_are_refused_naming_what_differs(batches, tmp_path, fixture_course):
    message = refused([batches["s1"], batches["s2-other-tests"]], tmp_path / "merged", fixture_course)
    assert f"shard 2/2 ({batches['s2-other-tests']})" in message, message
    assert "different hidden tests than" in message and "reference" not in message, message


def test_a_results_file_cut_in_half_is_refused_and_a_rerun_of_the_shard_mends_it(batches, shard2, tmp_path,
                                                                                  toy_grader, fixture_course):
    target = shard2 / "results" / results_name(GRADED)
    whole = target.read_bytes()
    target.write_bytes(whole[: len(whole) // 2])
    message = refused([batches["s1"], shard2], tmp_path / "merged", fixture_course)
    assert f"shard 2/2 ({shard2})" in message and f"results/{results_name(GRADED)}" in message, message
    assert "not whole JSON" in message, message

    graded: list[str] = []  # the rerun the refusal asks for: nothing graded, the file written again
    run_batch(batches["class"], "toy", shard2, jobs=1, grader=toy_grader, seed=11, shard=(2, 2),
              course=fixture_course, on_done=lambda r, cached: None if cached else graded.append(r.submission))
    assert graded == [] and target.read_bytes() == whole
    merge([batches["s1"], shard2], tmp_path / "merged", fixture_course)
    assert files(tmp_path / "merged") == shards_files(batches)


@pytest.mark.parametrize("damage", ["score edited", "a test's status edited", "a link to a good file",
                                    "not a results object", "empty", "not UTF-8", "another seed"])
def test_a_results_file_that_is_not_its_journal_record_is_refused(batches, shard2, tmp_path, fixture_course, damage):
    import json
    target = shard2 / "results" / results_name(GRADED)
    data = json.loads(target.read_text())
    if damage == "score edited":
        data["score"] = data["score"] + 10
        target.write_text(json.dumps(data))
    elif damage == "a test's status edited":
        first = data["tests"][0]
        first["status"] = "passed" if first["status"] == "failed" else "failed"
        target.write_text(json.dumps(data))
    elif damage == "a link to a good file":  # a whole results file, but not this shard's: its bytes come from elsewhere
        elsewhere = tmp_path / "elsewhere.json"
        shutil.copy(target, elsewhere)
        target.unlink()
        target.symlink_to(elsewhere)
    elif damage == "not a results object":
        target.write_text("[1, 2, 3]")
    elif damage == "empty":
        target.write_bytes(b"")
    elif damage == "not UTF-8":
        target.write_bytes(b'{"score": "\xff\xfe"}')
    else:
        data["extra_data"]["seed"] = data["extra_data"]["seed"] + 1
        target.write_text(json.dumps(data))
    message = refused([batches["s1"], shard2], tmp_path / "merged", fixture_course)
    assert f"shard 2/2 ({shard2})" in message and results_name(GRADED) in message, message


def test_a_missing_results_file_is_rebuilt_from_the_journal(batches, shard2, tmp_path, fixture_course):
    (shard2 / "results" / results_name(GRADED)).unlink()
    merge([batches["s1"], shard2], tmp_path / "merged", fixture_course)
    assert files(tmp_path / "merged") == shards_files(batches)


def test_a_journal_record_that_does_not_validate_is_refused(batches, shard2, tmp_path, fixture_course):
    with contextlib.closing(sqlite3.connect(shard2 / "journal.sqlite")) as db:
        db.execute("UPDATE graded SET result_json = '{\"score\": \"lots\"}' WHERE submission = ?", (GRADED,))
        db.commit()
    message = refused([batches["s1"], shard2], tmp_path / "merged", fixture_course)
    assert f"shard 2/2 ({shard2})" in message and GRADED in message and "does not validate" in message, message


def test_a_shard_whose_journal_is_not_a_database_is_refused(batches, shard2, tmp_path, fixture_course):
    (shard2 / "journal.sqlite").write_bytes(os.urandom(4096))
    message = refused([batches["s1"], shard2], tmp_path / "merged", fixture_course)
    assert str(shard2 / "journal.sqlite") in message, message


# --- the disks -----------------------------------------------------------------------------------------
@contextlib.contextmanager
def read_only_bind(src: Path, where: Path) -> Iterator[Path]:
    where.mkdir(parents=True)
    if subprocess.run(["mount", "--bind", str(src), str(where)], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount here: needs root with CAP_SYS_ADMIN for read-only media")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(where)], check=True)
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_shards_on_read_only_media_merge(batches, tmp_path, fixture_course):
    with read_only_bind(batches["s1"], tmp_path / "ro1") as s1, read_only_bind(batches["s2"], tmp_path / "ro2") as s2:
        assert subprocess.run(["touch", str(s2 / "x")], capture_output=True).returncode != 0  # really read-only
        merge([s1, s2], tmp_path / "merged", fixture_course)
    assert files(tmp_path / "merged") == shards_files(batches)


def test_merge_into_a_read_only_or_full_out_says_so_in_one_line(batches, tmp_path, fixture_course):
    shards = [str(batches["s1"]), str(batches["s2"])]
    with tmpfs(tmp_path / "ro", "1m", read_only=True) as ro:
        line = one_line(merge_cli(*shards, "-o", str(ro / "merged")))
        assert str(ro / "merged") in line and "read-only" in line, line
    with tmpfs(tmp_path / "full", "2m") as disk:
        filler = fill(disk)
        with pytest.raises(DiskFault) as fault:
            merge([batches["s1"], batches["s2"]], disk / "merged", fixture_course)
        assert str(disk / "merged") in str(fault.value) and "no space left" in str(fault.value), fault.value
        filler.unlink()
        merge([batches["s1"], batches["s2"]], disk / "merged", fixture_course)  # the same command, room again
        assert files(disk / "merged") == shards_files(batches)
