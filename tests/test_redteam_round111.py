"""Red-team round 111: files that Python itself loads.

Tried (/tmp/rt111/): the batch from a flat class folder and `grade` from a student's folder under strace (every file
the trusted processes open or stat relative to the working directory, under HOME or /tmp: only the notebooks, the
outputs and `submission_metadata.yml`; torch stats `_ops.py`/`_classes.py` in the working directory, never opens
them), the zygote's imports with HOME pointed at a folder (it reads nothing there: matplotlib, which reads
`~/.config/matplotlib` and its font cache, is not preloaded, and each worker's HOME is its own scratch dir), a
`matplotlibrc` naming `backend: module://this` and `text.usetex` beside written answers (the backend stays unread:
nothing imports pyplot; usetex is reset), a stale `-wal` file alone in the output folder (sqlite ignores it).
The sandbox, `-I`, the console script and tests/test_trusted_imports.py's poisons held. Found:

- **A journal.sqlite that is not the grader's runs its own SQL in the grader.** The batch's journal is a sqlite file in
  the output folder, and `-o` may be the class folder itself (round 106), where a flat class's files are named by the
  students who sent them. sqlite keeps a database's schema in the file and runs it: a `journal.sqlite` holding the
  journal's tables plus `CREATE TRIGGER ... AFTER INSERT ON graded ... UPDATE graded SET result_json =
  json_set(result_json, '$.score', 4)` was opened as the journal (`CREATE TABLE IF NOT EXISTS` kept its tables), the
  trigger rewrote no_scale.ipynb's grade as the grader journaled it, and the rerun's gradebook.csv said 4/4 where the
  student scored 1/4 (q1 1, q2 0 beside it). A view named `graded` feeds `merge` whatever rows it likes, and a table
  declared `submission TEXT PRIMARY KEY COLLATE NOCASE` makes classmates' keys one. Now the journal's schema must be
  exactly what this grader writes (journal.check_schema: each object's CREATE statement as SCHEMA and the ALTERs of
  earlier versions leave it, with sqlite's trusted_schema off), checked when the batch opens a journal and when merge
  reads one; anything else is "not a journal this grader wrote" in one line, and nothing is graded into it.
"""
from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course.atomic import DiskFault
from autograder.course.journal import SCHEMA, Journal, JournalView
from autograder.errors import GraderError
from tests.conftest import ROOT

FIXTURE_COURSE = ROOT / "tests" / "fixtures" / "course"
FIXTURE_SUBS = ROOT / "tests" / "fixtures" / "submissions"
AUTOGRADER = Path(sys.executable).with_name("autograder")
TRIGGER = ("CREATE TRIGGER forge AFTER INSERT ON graded WHEN NEW.submission = 'no_scale.ipynb' BEGIN "
           "UPDATE graded SET result_json = json_set(result_json, '$.score', 4) WHERE submission = NEW.submission; END")


def planted(path: Path, *extra: str, schema: str = SCHEMA) -> Path:
    """A journal.sqlite as a student would send it: the journal's own tables (as the grader makes them), and `extra`."""
    db = sqlite3.connect(path)
    db.executescript(schema)
    db.execute("ALTER TABLE graded ADD COLUMN fingerprint TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE graded ADD COLUMN regrade_run TEXT NOT NULL DEFAULT ''")
    for sql in extra:
        db.execute(sql)
    db.commit()
    db.close()
    return path


def test_a_journal_with_a_trigger_grades_nothing_into_it(tmp_path):
    """The measured case, end to end: a flat class graded into itself (`-o .`) beside a student's journal.sqlite."""
    for name in ("good.ipynb", "no_scale.ipynb"):
        shutil.copy(FIXTURE_SUBS / name, tmp_path / name)
    planted(tmp_path / "journal.sqlite", TRIGGER)
    env = {"AUTOGRADER_COURSE": str(FIXTURE_COURSE), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([str(AUTOGRADER), "batch", ".", "-a", "toy", "-o", ".", "-j", "1", "--seed", "3"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "not a journal this grader wrote" in proc.stdout + proc.stderr
    assert not (tmp_path / "gradebook.csv").exists()
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    assert db.execute("SELECT count(*) FROM graded").fetchone() == (0,)  # nothing journaled through the trigger


@pytest.mark.parametrize("extra", [
    TRIGGER,
    "CREATE VIEW evil AS SELECT 1",
    "CREATE INDEX by_result ON graded (json_extract(result_json, '$.score'))",
    "CREATE TABLE extra (x)",
])
def test_a_journal_holding_what_the_grader_never_writes_is_refused(tmp_path, extra):
    path = planted(tmp_path / "journal.sqlite", extra)
    with pytest.raises(DiskFault, match="not a journal this grader wrote"):
        Journal(path, "toy")
    with pytest.raises(GraderError, match="not a journal this grader wrote"):
        JournalView(path)


def test_a_journal_whose_tables_are_declared_otherwise_is_refused(tmp_path):
    """Same table names, other rules: keys that differ only by case would be one submission."""
    path = planted(tmp_path / "journal.sqlite",
                   schema=SCHEMA.replace("submission TEXT PRIMARY KEY,\n    sha256", "submission TEXT PRIMARY KEY COLLATE "
                                                                                     "NOCASE,\n    sha256", 1))
    with pytest.raises(DiskFault, match="not a journal this grader wrote"):
        Journal(path, "toy")


def test_a_view_in_place_of_a_table_feeds_merge_nothing(tmp_path):
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    db.executescript(SCHEMA.replace("CREATE TABLE IF NOT EXISTS graded (\n    submission TEXT PRIMARY KEY,\n    sha256 TEXT "
                                    "NOT NULL,\n    result_json TEXT NOT NULL\n);", ""))
    db.execute("CREATE VIEW graded AS SELECT 'alice.ipynb' AS submission, 'x' AS sha256, '{}' AS result_json, "
               "'' AS fingerprint, '' AS regrade_run")
    db.execute("INSERT INTO meta VALUES ('assignment', 'toy'), ('batch_seed', '1'), ('shard', '')")
    db.commit()
    db.close()
    with pytest.raises(GraderError, match="not a journal this grader wrote"):
        JournalView(tmp_path / "journal.sqlite")


def test_journals_the_grader_wrote_still_open(tmp_path):
    """Honesty: a new journal, one reopened, and one from before grades were fingerprinted (three columns)."""
    fresh = tmp_path / "new.sqlite"
    Journal(fresh, "toy", seed=1).close()
    Journal(fresh, "toy", seed=1).close()
    assert JournalView(fresh).assignment == "toy"
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.executescript(SCHEMA)
    db.commit()
    db.close()
    Journal(old, "toy").close()
    assert JournalView(old).assignment == "toy"
