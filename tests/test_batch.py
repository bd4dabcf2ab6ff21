"""Batch: gradebook, per-submission results, report; a bad file never stops it; kill -9 and rerun
completes the batch, regrades nothing already journaled, and matches an uninterrupted run."""
from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course.outputs import results_name
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT


def make_class(where: Path, n_slow: int = 6) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURE_SUBS / "good.ipynb", where / "good.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", where / "no_scale.ipynb")
    (where / "broken.ipynb").write_text("{ this is not json")
    (where / "script.py").write_text("import torch, math\ndef attend(Q, K, V):\n"
                                     "    return torch.softmax(Q @ K.T / math.sqrt(Q.shape[-1]), -1) @ V\nanswer='B'\n")
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    for i in range(n_slow):
        nb = new_notebook(cells=[new_code_cell(f"import time\ntime.sleep(0.8)  # student {i}")] + good.cells)
        nbformat.write(nb, where / f"slow_{i}.ipynb")
    return where


def cli(*args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    return subprocess.Popen([sys.executable, "-m", "autograder.cli", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, **kw)


def comparable(outdir: Path) -> dict:
    rows = {}
    for p in sorted((outdir / "results").glob("*.json")):
        d = json.loads(p.read_text())
        rows[p.name] = (d["score"], [(t["name"], t["score"], t["status"], t["output"]) for t in d["tests"]])
    return rows


def journaled(outdir: Path) -> set[str]:
    db = outdir / "journal.sqlite"
    if not db.exists():
        return set()
    try:
        with sqlite3.connect(db) as con:
            return {r[0] for r in con.execute("SELECT submission FROM graded")}
    except sqlite3.Error:
        return set()


def test_batch_outputs_and_bad_files(tmp_path):
    subs = make_class(tmp_path / "class", n_slow=1)
    # Same stem, different submissions: each keeps its own results file.
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", subs / "good.py.ipynb")
    (subs / "good.py").write_text("def attend(Q, K, V):\n    raise ValueError('nope')\nanswer = 'A'\n")
    # A file name that is a spreadsheet formula.
    shutil.copy(subs / "script.py", subs / '=HYPERLINK("http:evil",1)+2.py')
    proc = cli("batch", str(subs), "-a", "toy", "-o", str(tmp_path / "out"), "-j", "2")
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    with open(tmp_path / "out" / "gradebook.csv") as fh:
        book = {r["submission"]: r for r in csv.DictReader(fh)}
    formula = """'=HYPERLINK("http:evil",1)+2.py"""
    assert set(book) == {"good.ipynb", "no_scale.ipynb", "broken.ipynb", "script.py", "slow_0.ipynb",
                         "good.py", "good.py.ipynb", formula}
    assert book[formula]["score"] == "4"
    assert book["good.ipynb"]["score"] == "4" and book["script.py"]["score"] == "4"
    assert book["broken.ipynb"]["status"] == "rejected" and book["broken.ipynb"]["score"] == "0"
    assert book["no_scale.ipynb"]["misconceptions"] == "no_scale"
    assert {"score", "max_score", "status"} <= set(next(iter(book.values())))
    html = (tmp_path / "out" / "report.html").read_text()
    assert "no_scale" in html and "data:image/svg+xml;base64," in html and 'href="results/good.ipynb.json"' in html
    written = {p.name for p in (tmp_path / "out" / "results").iterdir()}
    assert written == {results_name(p.name) for p in subs.iterdir()}  # one each: no submission overwrote another
    for p in subs.iterdir():  # each results file holds its own submission's score
        data = json.loads((tmp_path / "out" / "results" / results_name(p.name)).read_text())
        assert f"{data['score']:g}" == book["'" + p.name if p.name.startswith("=") else p.name]["score"], p.name
    assert book["good.py"]["score"] == "0" and book["good.ipynb"]["score"] == "4"


def workers() -> set[str]:
    """Sandbox processes this test process started (another grader on the host is not counted)."""
    from tests.test_redteam import sandbox_processes
    return {p for p in sandbox_processes() if "autograder.sandbox.worker" in p}


def test_kill_9_then_rerun_completes_without_regrading(tmp_path):
    before = workers()  # warm graders of other tests may be running
    subs = make_class(tmp_path / "class", n_slow=6)
    total = len(list(subs.iterdir()))
    reference = tmp_path / "uninterrupted"
    proc = cli("batch", str(subs), "-a", "toy", "-o", str(reference), "-j", "2", "--seed", "99")
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out

    outdir = tmp_path / "interrupted"
    proc = cli("batch", str(subs), "-a", "toy", "-o", str(outdir), "-j", "2", "--seed", "99")
    deadline = time.monotonic() + 120
    while len(journaled(outdir)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = journaled(outdir)
    assert 2 <= len(done_before) < total, "the kill should land mid-batch"

    proc = cli("batch", str(subs), "-a", "toy", "-o", str(outdir), "-j", "2", "--seed", "99")
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    assert f"{total - len(done_before)} graded now, {len(done_before)} already in the journal" in out
    assert journaled(outdir) == {p.name for p in subs.iterdir()}
    assert comparable(outdir) == comparable(reference)
    time.sleep(0.5)
    assert workers() <= before, "a killed batch left sandbox processes behind"


def _grader_children(pid: int) -> list[int]:
    """This process's children that are batch grader processes (other fixtures of the same test process
    may start zygotes of their own meanwhile: only grader processes are a batch's)."""
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) != pid:
                        continue
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if b"autograder.course.pool" in fh.read():
                        kids.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return kids


def test_a_grader_started_before_the_class_is_read_is_stopped_when_that_fails(tmp_path):
    # A class not graded before starts its first grader process while the class is read (its import
    # torch overlaps the reading). A class that cannot be read stops the batch with its own error, and
    # that grader process goes with it, as does one started for a class with nothing to grade.
    from autograder.config import Course, load_config
    from autograder.course.batch import run_batch
    from autograder.errors import GraderError
    course = Course(FIXTURE_COURSE, load_config(FIXTURE_COURSE / "grading.yml"))
    before = set(_grader_children(os.getpid()))
    (tmp_path / "empty").mkdir()
    for directory in (tmp_path / "missing", tmp_path / "empty"):
        try:
            run_batch(directory, "toy", tmp_path / f"out-{directory.name}", jobs=2, seed=1, course=course)
        except GraderError as e:
            assert directory.name in str(e) or "no submission" in str(e).lower(), e
        # killed at once, not left to notice its closed socket once its imports are done (2 s and more)
        deadline = time.monotonic() + 1.0
        while set(_grader_children(os.getpid())) - before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not set(_grader_children(os.getpid())) - before, "a grader process outlived its batch"


@pytest.mark.skipif(os.geteuid() != 0, reason="the fallback level needs root")
def test_a_new_output_folder_is_hidden_from_students_at_the_fallback_level(tmp_path):
    # The first grader process of a new class starts before the class is read; its zygote hides OUT by a
    # mount over it, which only a folder that exists then can get. A student whose notebook looks for the
    # roster the batch wrote into OUT (and the classmates' results that follow it) finds nothing. (A class
    # this small is read before the zygote starts either way: the next test holds the order itself.)
    from autograder.config import Course, load_config
    from autograder.course.batch import run_batch
    from autograder.results import Isolation
    course = Course(FIXTURE_COURSE, load_config(FIXTURE_COURSE / "grading.yml"))
    # not under /tmp: every worker has a private /tmp of its own, which would hide OUT anyway
    home = Path(tempfile.mkdtemp(prefix=".test-out-", dir=ROOT))
    os.chmod(home, 0o755)
    out = home / "never-made" / "out"
    subs = tmp_path / "class"
    subs.mkdir()
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    probe = ("import os\n"
             f"def _seen(path={str(out)!r}):\n"
             "    try:\n"
             "        return bool(os.listdir(path)) or os.path.exists(os.path.join(path, 'roster.json'))\n"
             "    except OSError:\n"
             "        return False\n"
             "answer = 'A' if _seen() else answer\n")
    nb = new_notebook(cells=good.cells + [new_code_cell(probe)])
    nbformat.write(nb, subs / "snoop.ipynb")
    shutil.copy(FIXTURE_SUBS / "good.ipynb", subs / "good.ipynb")
    try:
        results = {r.submission: r for r in run_batch(subs, "toy", out, jobs=1, seed=1, course=course,
                                                      isolation=Isolation.fallback)}
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert results["good.ipynb"].score == 4
    assert results["snoop.ipynb"].score == results["good.ipynb"].score, "a student could read OUT"


def test_out_exists_before_the_first_grader_process_starts(tmp_path, monkeypatch):
    # The race the test above cannot time: with a class that takes a while to read (zips to unpack,
    # hashes), a grader process started early launches its zygote before OUT would otherwise be made,
    # and the fallback level's mount cannot cover a folder that does not exist yet
    from autograder.config import Course, load_config
    from autograder.course import batch, pool
    course = Course(FIXTURE_COURSE, load_config(FIXTURE_COURSE / "grading.yml"))
    out = tmp_path / "a" / "b" / "out"
    seen = []
    started = pool.GraderPool.start

    def start(self):
        seen.append(out.is_dir())
        started(self)
    monkeypatch.setattr(pool.GraderPool, "start", start)
    subs = tmp_path / "class"
    subs.mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", subs / "good.ipynb")
    results = batch.run_batch(subs, "toy", out, jobs=1, seed=1, course=course)
    assert [r.score for r in results] == [4.0]
    assert seen and all(seen), seen
