"""Red-team round 112: two graders at once.

Several copies of the grader on one host (repros in /tmp/rt112/: rerun.py, race_open.py, zips.py, killzip.py,
assign_race.py): a TA's `grade` beside a batch, two batches into one -o, SLURM shards sharing an output folder, two
Gradescope builds and two `assign` runs, the CUDA slots, the zygotes' scratch folders, the grader processes' and
workers' kills. Held: every temporary folder is
mkdtemp's (unique), every output of a batch is written through a fresh O_EXCL temporary file and os.replace, a worker
and a forked grader process are killed through their pidfds (never a recycled pid), a zygote's process group only while
it is unreaped, a scratch folder is swept only when no process holds its flock (rounds 85 and 90). Found:

- **Two runs into one OUT each wrote their own class over the other's, and both said they succeeded.** A batch running,
  and the same class run again into the same -o with a late student added before the first finished (rerun.py: A at
  -j1 on ten submissions, B at -j2 on the same plus late.ipynb, B started once A had journaled two): both exited 0, and
  OUT ended with gradebook.csv and feedback/ naming late.ipynb while its results file was in superseded/results/ (A's
  set_aside_stale, run after B had written it, took it for a submission that had left the class). Whichever finished
  last decided the gradebook, not whichever started last; SLURM shards given one -o, or two assignments, did the same
  to each other's rows. Now a batch or a merge holds an flock on OUT/.autograder-writing from before its first grader
  starts until its last output is written (`atomic.sole_writer`), and a second run into that OUT is refused at once,
  in one line, exit 2, before anything is graded or written; the lock goes with the process however it dies, so the
  same command run after a kill goes on. The file is removed, still held, at the end.
- **Two runs opening one new journal at once each took it for their own.** Journal._open read the assignment, batch
  seed and shard it holds and then wrote its own, each statement a transaction of its own: two shards (1/2, 2/2) or two
  assignments opening one new journal at the same instant were both accepted, 1 pair in 100 and 1 in 300 (race_open.py,
  two processes started on one clock), where the second is refused whenever it comes later. The reads and writes are
  now one BEGIN IMMEDIATE transaction (0 in 200 and 300), which also holds where OUT's file system takes no flock.
  Timing decides this one, so no test here fails on the code as found; the refusal above keeps a second run from
  reaching the journal at all.
- **Two `gradescope` builds into one -o left a zip neither wrote; a build stopped midway left none.** build_zip wrote
  the zip in place (zipfile.ZipFile(out, "w")): two builds at once (two CI jobs building sdpa-from-scratch and
  scaled-attention into the default autograder.zip; zips.py) left an unreadable zip 5 times in 6 ("invalid distance
  too far back", "Bad magic number for central directory"), both saying "wrote"; a build killed 2.0-2.3 s in
  (killzip.py) or stopped by Ctrl-C left an empty or cut file where the last good zip was. Now the zip is written to a
  temporary file beside it, fsynced and renamed over (`atomic.replaced_whole`): one build's whole zip, or the last one.
- **Two `assign` runs of one assignment at once: one stopped with a traceback.** write_template wrote
  student_template/<slug>.ipynb through one fixed name, `<slug>.ipynb.tmp`, then moved it: two runs at once (two CI
  jobs, a test run beside the instructor's) shared it, and one moved a file the other had already moved away
  (FileNotFoundError, exit 1: 16 times in 600 writes, assign_race.py, the otter run replaced by its result). Now the
  template goes through write_atomic (a temporary name of its own, renamed over), the same bytes nbformat.write gives.
"""
from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT
from tests.test_batch import cli, make_class

HOLDER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from autograder.course.atomic import sole_writer
with sole_writer(Path(sys.argv[2])):
    print("held", flush=True)
    time.sleep(120)
"""


def _stalling_class(where: Path) -> Path:
    """The fixture class, its first submission (by key) spending 12 s in its cells: a batch still running."""
    subs = make_class(where, n_slow=1)
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    stall = [new_code_cell("import time\ntime.sleep(3)") for _ in range(4)]
    nbformat.write(new_notebook(cells=stall + good.cells), subs / "aa_stall.ipynb")
    return subs


def _consistent(outdir: Path) -> list[str]:
    """The gradebook's rows, each with its results file and feedback page in place (else the assertion fails)."""
    with open(outdir / "gradebook.csv") as fh:
        rows = [r["submission"] for r in csv.DictReader(fh)]
    results = set(os.listdir(outdir / "results"))
    pages = set(os.listdir(outdir / "feedback"))
    missing = [r for r in rows if f"{r}.json" not in results or f"{r}.html" not in pages]
    assert not missing, f"in the gradebook, without results or page: {missing}"
    assert not (outdir / "superseded").exists(), sorted(str(p) for p in (outdir / "superseded").rglob("*"))
    return rows


def test_a_rerun_into_an_out_being_written_is_refused_and_the_same_command_goes_on_after(tmp_path) -> None:
    first = _stalling_class(tmp_path / "class")
    second = tmp_path / "class2"
    shutil.copytree(first, second)
    shutil.copy(FIXTURE_SUBS / "good.ipynb", second / "late.ipynb")   # a late student, added for the rerun
    outdir = tmp_path / "out"
    running = cli("batch", str(first), "-a", "toy", "-o", str(outdir), "-j", "1", "--seed", "7")
    try:
        deadline = time.monotonic() + 120
        while not (outdir / "journal.sqlite").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running.poll() is None, running.communicate()[0]
        rerun = cli("batch", str(second), "-a", "toy", "-o", str(outdir), "-j", "2", "--seed", "7")
        out, _ = rerun.communicate(timeout=300)
        assert running.poll() is None, "the first batch should still be grading aa_stall (12 s of cells)"
        assert rerun.returncode == 2, out
        assert "is being written by another `autograder batch` or `merge` now" in out, out
        assert "Traceback" not in out, out
    finally:
        if running.poll() is None:
            os.killpg(running.pid, signal.SIGTERM)   # stopped mid-grade, as SLURM's limit or a Ctrl-C stops it
        running.communicate(timeout=300)
    again = cli("batch", str(second), "-a", "toy", "-o", str(outdir), "-j", "2", "--seed", "7")
    out, _ = again.communicate(timeout=300)
    assert again.returncode == 0, out
    rows = _consistent(outdir)
    assert "late.ipynb" in rows and "aa_stall.ipynb" in rows, rows
    assert not (outdir / ".autograder-writing").exists()


def test_the_writer_lock_is_one_process_s_and_dies_with_it(tmp_path) -> None:
    from autograder.course.atomic import OutputBusy, sole_writer
    outdir = tmp_path / "out"
    outdir.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(ROOT), str(outdir)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(OutputBusy, match="being written by another"):
            with sole_writer(outdir):
                pass
        # a merge into that OUT is refused too, before it writes anything
        from autograder.config import find_course
        from autograder.course.merge import merge
        shard = tmp_path / "shard"
        (shard / "results").mkdir(parents=True)
        _one_shard(shard)
        with pytest.raises(OutputBusy):
            merge([shard], outdir, find_course(FIXTURE_COURSE))
        assert sorted(os.listdir(outdir)) == [".autograder-writing"]
    finally:
        holder.kill()   # SIGKILL: no moment to let go; the kernel does
        holder.wait()
    with sole_writer(outdir):
        assert (outdir / ".autograder-writing").exists()
    assert not (outdir / ".autograder-writing").exists()


def _one_shard(folder: Path) -> None:
    """A batch output of one graded result, as merge reads it (journal and results file)."""
    from autograder.course.journal import Journal
    from autograder.course.outputs import results_name, write_results
    from autograder.config import find_course
    from autograder.results import SubmissionResult
    result = SubmissionResult(submission="s1", assignment="toy", score=1.0, max_score=2.0)
    journal = Journal(folder / "journal.sqlite", "toy", 7)
    try:
        journal.expect([("s1", "0" * 64)])
        journal.record("s1", "0" * 64, result)
    finally:
        journal.close()
    write_results(result, find_course(FIXTURE_COURSE).config.visibility, folder / "results" / results_name("s1"))


def _zip_state(path: Path) -> tuple[bool, list[str]]:
    """Whether the zip reads whole, and the assignment folders it carries."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as z:
            whole = z.testzip() is None
            return whole, sorted({n.split("/")[2] for n in z.namelist() if n.startswith("course/assignments/")})
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as e:   # a member cut or mixed: not a zip to upload
        return False, [repr(e)[:80]]


def test_two_gradescope_builds_into_one_zip_leave_one_whole(tmp_path) -> None:
    from tests.conftest import SLUGS
    out = tmp_path / "autograder.zip"
    env = dict(os.environ)
    env.pop("AUTOGRADER_COURSE", None)
    builds = [subprocess.Popen([sys.executable, "-m", "autograder.cli", "gradescope", slug, "-o", str(out)], cwd=ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for slug in SLUGS[:2]]
    for b in builds:
        said, _ = b.communicate(timeout=300)
        assert b.returncode == 0, said
    whole, folders = _zip_state(out)
    assert whole and len(folders) == 1 and folders[0] in SLUGS[:2], folders
    assert [p.name for p in tmp_path.iterdir()] == ["autograder.zip"]


def test_a_gradescope_build_stopped_midway_leaves_the_last_zip(tmp_path, monkeypatch, course) -> None:
    import autograder.course.fingerprint as fingerprint
    from autograder.course.gradescope import build_zip
    from tests.conftest import SLUGS
    out = tmp_path / "autograder.zip"
    build_zip(course, SLUGS[0], out)
    before = out.read_bytes()

    def ctrl_c(*_args: object, **_kw: object) -> list:
        raise KeyboardInterrupt   # the instructor's Ctrl-C, halfway through the members
    monkeypatch.setattr(fingerprint, "course_module_files", ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        build_zip(course, SLUGS[1], out)
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["autograder.zip"]


ASSIGN = r"""
import sys, time, types
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import nbformat
import autograder.course.assign as assign
nb = nbformat.read(sys.argv[2], as_version=4)
assign.build_template = lambda course, slug: nb   # otter's run, as its result: the write step alone, many times
start = float(sys.argv[4])
while time.time() < start:
    pass
for _ in range(200):
    assign.write_template(types.SimpleNamespace(root=Path(sys.argv[3])), "sdpa-from-scratch")
"""


def test_two_assign_runs_at_once_both_write_the_template(tmp_path) -> None:
    import nbformat
    template = ROOT / "student_template" / "sdpa-from-scratch.ipynb"
    start = str(time.time() + 1.0)
    runs = [subprocess.Popen([sys.executable, "-c", ASSIGN, str(ROOT), str(template), str(tmp_path), start],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    for run in runs:
        said, _ = run.communicate(timeout=300)
        assert run.returncode == 0, said[-1500:]
    written = tmp_path / "student_template" / "sdpa-from-scratch.ipynb"
    assert os.listdir(written.parent) == [written.name]
    assert written.read_text() == nbformat.writes(nbformat.read(template, as_version=4)) + "\n"
