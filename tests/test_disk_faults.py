"""Faults of the instructor's disk (autograder.course.atomic, autograder.course.journal, batch's outputs): OUT
read-only, full (before grading, in the middle, after the last grade), a file, its parent missing; the
journal not a database; results/ a symbolic link. Each gives exit 2 and one line naming the path and
the cause, never a traceback or half a file; what was graded stays in the journal, and after space is
freed the same command finishes without grading anything twice.

Real file systems, not stand-ins: a size-limited tmpfs is "full", a tmpfs mounted read-only is
"read-only" (root ignores chmod). Each is mounted on a folder of the test's own and unmounted in a
finally; where mounting is impossible (no CAP_SYS_ADMIN) those tests are skipped, saying so."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from autograder.course.atomic import DiskFault, write_atomic
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS
from tests.test_batch import make_class


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "8m", read_only: bool = False) -> Iterator[Path]:
    """A tmpfs of `size` mounted on `where` (created), unmounted afterwards whatever happens."""
    where.mkdir(parents=True, exist_ok=True)
    options = f"size={size},mode=0755" + (",ro" if read_only else "")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip()[:200]}): these tests need root "
                    "with CAP_SYS_ADMIN for a real full or read-only file system")
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)  # busy: detach it anyway


def remount(where: Path, read_only: bool) -> None:
    subprocess.run(["mount", "-o", f"remount,{'ro' if read_only else 'rw'}", str(where)], check=True)


def fill(disk: Path) -> Path:
    """Fill the file system of `disk` to the last byte with one file; returns it (delete it to free)."""
    filler = disk / "filler"
    with open(filler, "ab", buffering=0) as fh:
        for chunk in (1 << 16, 512, 1):
            try:
                while True:
                    fh.write(bytes(chunk))
            except OSError:
                pass
    assert shutil.disk_usage(disk).free < 4096
    return filler


def journaled(out: Path) -> set[str]:
    """The submissions OUT's journal holds a grade of (read, then closed: nothing left open on the disk)."""
    db = out / "journal.sqlite"
    if not db.is_file():
        return set()
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
            return {r[0] for r in con.execute("SELECT submission FROM graded")}
    except sqlite3.Error:
        return set()


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    return subprocess.run([sys.executable, "-m", "autograder.cli", *args], env=env, capture_output=True,
                          text=True, timeout=400)


def one_line(proc: subprocess.CompletedProcess) -> str:
    """The exit status is 2 and stderr says why in one line, no traceback: that line. (Besides it only
    the grader's own "note:" lines may appear, such as a host without bwrap saying which level ran.)"""
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-2000:], proc.stderr[-3000:])
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-3000:]
    lines = [ln for ln in proc.stderr.strip().splitlines() if not ln.startswith("note: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def no_half_files(out: Path) -> None:
    """Every output that exists is whole: results parse as JSON, no temporary file is left."""
    leftovers = [p.name for p in out.rglob("*") if p.name.endswith(".tmp") or ".autograder-probe" in p.name]
    assert not leftovers, leftovers
    for p in (out / "results").glob("*.json"):
        json.loads(p.read_text())
    if (out / "gradebook.csv").exists():
        assert (out / "gradebook.csv").read_text().endswith("\n")
    if (out / "report.html").exists():
        assert (out / "report.html").read_text().rstrip().endswith("</html>")


# --- each writer: whole or not at all ----------------------------------------------------------------
def test_every_output_on_a_full_disk_keeps_its_old_bytes_and_says_the_path(tmp_path, toy_grader, fixture_course):
    from autograder.course.batch import write_gradebook
    from autograder.course.exports import discover
    from autograder.course.feedback import feedback_name, write_feedback
    from autograder.course.gradebook import write_canvas_csv
    from autograder.course.outputs import results_name, write_results
    from autograder.course.report import write_report
    result = toy_grader.grade(FIXTURE_SUBS / "no_scale.ipynb", "toy", seed=3)
    found = discover(FIXTURE_SUBS, "toy", tmp_path / "scratch")
    vis = fixture_course.config.visibility
    with tmpfs(tmp_path / "disk", "4m") as disk:
        out = disk / "out"
        results_file = out / "results" / results_name(result.submission)
        writers = {
            results_file: lambda r: write_results(r, vis, results_file),
            out / "gradebook.csv": lambda r: write_gradebook([r], out / "gradebook.csv"),
            out / "canvas.csv": lambda r: write_canvas_csv([r], out / "canvas.csv", "toy"),
            out / "feedback" / feedback_name(result.submission): lambda r: write_feedback([r], out / "feedback"),
            out / "report.html": lambda r: write_report([r], fixture_course, "toy", out),
            out / "roster.json": lambda r: found.write(out / "roster.json"),
        }
        (out / "results").mkdir(parents=True)
        for write in writers.values():
            write(result)
        before = {path: path.read_bytes() for path in writers}
        # the same outputs say something else now (a longer message): each must be rewritten
        changed = result.model_copy(update={"message": "x" * 200_000, "score": result.score + 1})
        filler = fill(disk)
        for path, write in writers.items():
            with pytest.raises(DiskFault) as fault:
                write(changed)
            assert str(path) in str(fault.value) and "no space left" in str(fault.value), fault.value
            assert len(str(fault.value).splitlines()) == 1
            assert path.read_bytes() == before[path], f"{path.name} was touched"
        no_half_files(out)
        filler.unlink()
        write_results(changed, vis, results_file)  # room again: the same call writes it whole
        assert json.loads(results_file.read_text())["score"] == result.score + 1


def test_a_link_in_place_of_an_output_is_replaced_never_written_through(tmp_path: Path) -> None:
    """os.replace swaps the link itself: the file it pointed at (anywhere on the disk) keeps its bytes."""
    from autograder.course.batch import write_gradebook
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / "gradebook.csv").symlink_to(target)
    write_gradebook([], out / "gradebook.csv")
    assert target.read_text() == "keep me"
    assert not (out / "gradebook.csv").is_symlink() and (out / "gradebook.csv").read_text().startswith("name,")


def test_a_file_that_already_says_it_is_not_rewritten(tmp_path: Path) -> None:
    """A resumed batch rewrites the results files of journaled grades: unchanged bytes cost no write."""
    path = tmp_path / "a.json"
    assert write_atomic(path, "{}", skip_same=True)
    inode = path.stat().st_ino
    assert not write_atomic(path, "{}", skip_same=True) and path.stat().st_ino == inode
    assert write_atomic(path, "{ }", skip_same=True) and path.stat().st_ino != inode
    assert path.read_text() == "{ }" and [p.name for p in tmp_path.iterdir()] == ["a.json"]


# --- the journal --------------------------------------------------------------------------------------
def test_the_journal_keeps_what_it_committed_when_the_disk_fills_or_turns_read_only(tmp_path, toy_grader):
    from autograder.course.journal import Journal
    result = toy_grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=5)
    big = result.model_copy(update={"message": "y" * 3_000_000})  # more than the disk has left
    with tmpfs(tmp_path / "disk", "2m") as disk:
        path = disk / "journal.sqlite"
        journal = Journal(path, "toy", 7)
        journal.record("a.ipynb", "sha-a", result)
        with pytest.raises(DiskFault) as fault:
            journal.record("b.ipynb", "sha-b", big)
        journal.close()
        assert str(path) in str(fault.value) and "no space left" in str(fault.value), fault.value
        assert journaled(disk) == {"a.ipynb"}
        remount(disk, read_only=True)
        try:
            with pytest.raises(DiskFault) as fault:
                Journal(path, "toy", 7)
            assert str(path) in str(fault.value) and "read-only" in str(fault.value), fault.value
        finally:
            remount(disk, read_only=False)
        again = Journal(path, "toy", 7)
        try:
            assert again.done("a.ipynb", "sha-a") == result and again.done("b.ipynb", "sha-b") is None
        finally:
            again.close()


def test_a_damaged_journal_record_is_graded_again_not_a_traceback(tmp_path, toy_grader):
    from autograder.course.journal import Journal
    result = toy_grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=5)
    journal = Journal(tmp_path / "journal.sqlite", "toy", 7)
    journal.record("a.ipynb", "sha-a", result)
    journal.close()
    with sqlite3.connect(tmp_path / "journal.sqlite") as db:
        db.execute("UPDATE graded SET result_json = '{\"score\": ' WHERE submission = 'a.ipynb'")
    journal = Journal(tmp_path / "journal.sqlite", "toy", 7)
    try:
        assert journal.previous("a.ipynb") is None and journal.done("a.ipynb", "sha-a") is None
    finally:
        journal.close()


# --- the command: exit 2, one line --------------------------------------------------------------------
def test_read_only_out_stops_batch_at_once_in_one_line(tmp_path: Path) -> None:
    subs = make_class(tmp_path / "class", n_slow=0)
    with tmpfs(tmp_path / "ro", "1m", read_only=True) as ro:
        for out in (ro, ro / "new"):  # OUT there already, and OUT to be created
            line = one_line(cli("batch", str(subs), "-a", "toy", "-o", str(out), "-j", "1"))
            assert str(out) in line and "read-only" in line, line
        assert list(ro.iterdir()) == []


def test_full_out_stops_batch_before_grading_in_one_line(tmp_path: Path) -> None:
    subs = make_class(tmp_path / "class", n_slow=0)
    with tmpfs(tmp_path / "full", "1m") as disk:
        fill(disk)
        line = one_line(cli("batch", str(subs), "-a", "toy", "-o", str(disk / "out"), "-j", "1"))
        assert str(disk / "out") in line and "no space left" in line, line
        assert not (disk / "out" / "journal.sqlite").exists() or journaled(disk / "out") == set()


@pytest.mark.parametrize("case", ["out is a file", "journal not a database", "journal is a folder",
                                  "results is a link", "results is a file", "feedback is a link"])
def test_what_is_not_an_output_folder_is_named_in_one_line(tmp_path: Path, case: str) -> None:
    subs = make_class(tmp_path / "class", n_slow=0)
    out = tmp_path / "out"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if case == "out is a file":
        out.write_text("notes")
        named, cause = out, "a file, not a folder"
    else:
        out.mkdir()
        if case == "journal not a database":
            (out / "journal.sqlite").write_bytes(os.urandom(8192))
            named, cause = out / "journal.sqlite", "not a journal"
        elif case == "journal is a folder":
            (out / "journal.sqlite").mkdir()
            named, cause = out / "journal.sqlite", "a folder"
        elif case in ("results is a link", "feedback is a link"):
            folder = out / case.split()[0]
            folder.symlink_to(elsewhere)
            named, cause = folder, "symbolic link"
        else:
            (out / "results").write_text("")
            named, cause = out / "results", "a file, not a folder"
    line = one_line(cli("batch", str(subs), "-a", "toy", "-o", str(out), "-j", "1"))
    assert f"{named}:" in line and cause in line, line
    assert list(elsewhere.iterdir()) == [], "an output landed where the link points"
    if case == "out is a file":
        assert out.read_text() == "notes"


def test_disk_fills_mid_batch_then_the_same_command_finishes_without_regrading(tmp_path: Path) -> None:
    """The issue's case with the real command (grader processes, -j 1): the disk fills while the
    class is being graded. Exit 2, one line; the journal keeps every grade it committed; with space
    freed, the same command grades only the rest and writes every output."""
    subs = make_class(tmp_path / "class", n_slow=4)
    total = len(list(subs.iterdir()))
    with tmpfs(tmp_path / "disk", "8m") as disk:
        out = disk / "not" / "yet" / "out"  # OUT's parents missing: created
        env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
        proc = subprocess.Popen([sys.executable, "-m", "autograder.cli", "batch", str(subs), "-a", "toy", "-o",
                                 str(out), "-j", "1", "--seed", "3"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 240
        while len(journaled(out)) < 1 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        filler = fill(disk)
        stdout, stderr = proc.communicate(timeout=300)
        line = one_line(subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr))
        assert str(out) in line and "no space left" in line, line
        kept = journaled(out)
        assert 1 <= len(kept) < total, "the disk should fill mid-batch"
        no_half_files(out)
        assert not (out / "gradebook.csv").exists()

        filler.unlink()
        again = cli("batch", str(subs), "-a", "toy", "-o", str(out), "-j", "1", "--seed", "3")
        assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-3000:]
        said = [ln for ln in again.stdout.splitlines() if "━" not in ln]  # the progress bar left out
        assert f"{total - len(kept)} graded now, {len(kept)} already in the journal" in again.stdout, (
            f"kept {sorted(kept)}; the rerun said: {said}")
        assert journaled(out) == {p.name for p in subs.iterdir()}
        no_half_files(out)
        with open(out / "gradebook.csv") as fh:
            assert len(fh.read().splitlines()) == total + 1
        assert len(list((out / "results").glob("*.json"))) == total


def test_disk_full_after_the_last_grade_loses_none_and_the_rerun_writes_the_gradebook(tmp_path, toy_grader,
                                                                                     fixture_course):
    """Today's worst case: every submission graded, then no room for the gradebook and report."""
    from autograder.course.batch import run_batch
    subs = make_class(tmp_path / "class", n_slow=0)
    total = len(list(subs.iterdir()))
    graded: list[str] = []
    with tmpfs(tmp_path / "disk", "8m") as disk:
        out = disk / "out"
        fillers: list[Path] = []

        def done(result, cached: bool) -> None:
            if not cached:
                graded.append(result.submission)
                if len(graded) == total:
                    fillers.append(fill(disk))

        with pytest.raises(DiskFault) as fault:
            run_batch(subs, "toy", out, jobs=1, grader=toy_grader, seed=4, course=fixture_course, on_done=done)
        assert str(out) in str(fault.value) and "no space left" in str(fault.value), fault.value
        assert sorted(graded) == sorted(p.name for p in subs.iterdir())
        assert journaled(out) == set(graded), "a grade was lost with the disk full"
        no_half_files(out)
        fillers[0].unlink()
        again: list[str] = []
        results = run_batch(subs, "toy", out, jobs=1, grader=toy_grader, seed=4, course=fixture_course,
                            on_done=lambda r, cached: None if cached else again.append(r.submission))
        assert again == [], "graded twice"
        assert len(results) == total and (out / "gradebook.csv").exists() and (out / "report.html").exists()
        assert len(list((out / "results").glob("*.json"))) == total
        no_half_files(out)
