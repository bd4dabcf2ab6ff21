"""The batch journal: one sqlite row per finished submission, committed as it finishes, so a batch
killed with -9 resumes where it stopped and never grades anything twice.

One writer: the batch's parent process (grader processes send it their results; they never open the
journal). WAL mode, so a reader (`autograder merge`, a test) can read a journal that is being written.

Besides the graded rows it keeps what `merge` needs to check a shard is whole: the shard it was run
as (`K/N`, or empty for a whole batch), the submissions it was given (`expected`), and the results
the grader could not finish (`failed`: worker_failed, retried by a rerun, shown until then)."""
from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from pathlib import Path
from typing import Iterable, Optional

from autograder.errors import GraderError
from autograder.results import SubmissionResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS graded (
    submission TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    result_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS expected (submission TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS failed (
    submission TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    result_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS fingerprints (fingerprint TEXT PRIMARY KEY, parts_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS changed (
    submission TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    old_score REAL NOT NULL, old_max REAL NOT NULL,
    new_score REAL NOT NULL, new_max REAL NOT NULL,
    why TEXT NOT NULL
);
"""


class Journal:
    def __init__(self, path: Path, assignment: str, seed: Optional[int] = None, shard: str = "") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(graded)")}
        if "fingerprint" not in columns:  # a journal written before grades were fingerprinted
            self._db.execute("ALTER TABLE graded ADD COLUMN fingerprint TEXT NOT NULL DEFAULT ''")
        self._lock = threading.Lock()
        self.fingerprint = ""  # of everything that decides a score in this run (set_fingerprint)
        stored = self._meta("assignment")
        if stored is None:
            self._set_meta("assignment", assignment)
        elif stored != assignment:
            raise GraderError(f"{path} journals assignment '{stored}', not '{assignment}': use another -o")
        stored_seed = self._meta("batch_seed")
        if stored_seed is None:
            self._set_meta("batch_seed", str(secrets.randbits(62) if seed is None else seed))
        elif seed is not None and int(stored_seed) != seed:
            raise GraderError(f"{path} was started with seed {stored_seed}, not {seed}: use another -o")
        stored_shard = self._meta("shard")
        if stored_shard is None:
            self._set_meta("shard", shard)
        elif stored_shard != shard:
            raise GraderError(f"{path} journals shard '{stored_shard or 'all'}', not '{shard or 'all'}': "
                              "use another -o")

    def _meta(self, key: str) -> Optional[str]:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    @property
    def batch_seed(self) -> int:
        return int(self._meta("batch_seed") or 0)

    def expect(self, submissions: Iterable[tuple[str, str]]) -> None:
        """The (name, sha256) this run was given: what a complete run has graded."""
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM expected")
            self._db.executemany("INSERT OR REPLACE INTO expected VALUES (?, ?)", list(submissions))
            self._db.execute("COMMIT")

    def set_fingerprint(self, fingerprint: str, parts: dict[str, str]) -> None:
        """What decides a score in this run (hidden tests, reference, settings, version): results
        recorded from now on carry it, and a result carrying another one is graded again."""
        self.fingerprint = fingerprint
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO fingerprints VALUES (?, ?)",
                             (fingerprint, json.dumps(parts, sort_keys=True)))
            self._set_meta("fingerprint", fingerprint)

    def parts(self, fingerprint: str) -> dict[str, str]:
        with self._lock:
            row = self._db.execute("SELECT parts_json FROM fingerprints WHERE fingerprint = ?",
                                   (fingerprint,)).fetchone()
        try:
            return dict(json.loads(row[0])) if row else {}
        except ValueError:
            return {}

    def previous(self, submission: str) -> Optional[tuple[str, str, SubmissionResult]]:
        """(sha256, fingerprint, result) of the submission's last finished grade, if any."""
        with self._lock:
            row = self._db.execute("SELECT sha256, fingerprint, result_json FROM graded WHERE submission = ?",
                                   (submission,)).fetchone()
        if not row:
            return None
        return row[0], row[1], SubmissionResult.model_validate_json(row[2])

    def record_change(self, submission: str, old: SubmissionResult, new: SubmissionResult, why: str) -> None:
        """A regrade that changed a score: kept for the report (under this run's fingerprint)."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO changed VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (submission, self.fingerprint, old.score, old.max_score, new.score, new.max_score, why))

    def changes(self) -> dict[str, tuple[float, float, float, float, str]]:
        """{submission: (old score, old max, new score, new max, why)} of regrades under this fingerprint."""
        with self._lock:
            rows = self._db.execute("SELECT submission, old_score, old_max, new_score, new_max, why FROM changed "
                                    "WHERE fingerprint = ?", (self.fingerprint,)).fetchall()
        return {r[0]: (r[1], r[2], r[3], r[4], r[5]) for r in rows}

    def keep_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._set_meta(key, value)

    def meta(self, key: str) -> Optional[str]:
        with self._lock:
            return self._meta(key)

    def done(self, submission: str, sha256: str) -> Optional[SubmissionResult]:
        with self._lock:
            row = self._db.execute("SELECT sha256, result_json FROM graded WHERE submission = ?",
                                   (submission,)).fetchone()
        if row and row[0] == sha256:
            return SubmissionResult.model_validate_json(row[1])
        return None

    def record(self, submission: str, sha256: str, result: SubmissionResult,
               result_json: Optional[str] = None) -> None:
        """A finished grade (graded or rejected): never graded again while the file is unchanged."""
        text = result_json if result_json is not None else result.model_dump_json()
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute("INSERT OR REPLACE INTO graded (submission, sha256, result_json, fingerprint) "
                             "VALUES (?, ?, ?, ?)", (submission, sha256, text, self.fingerprint))
            self._db.execute("DELETE FROM failed WHERE submission = ?", (submission,))
            self._db.execute("COMMIT")

    def record_failure(self, submission: str, sha256: str, result: SubmissionResult) -> None:
        """A submission the grader could not finish: kept for the gradebook, graded again by a rerun."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO failed VALUES (?, ?, ?)",
                             (submission, sha256, result.model_dump_json()))

    def keep_texts(self, texts: dict[str, str]) -> None:
        """The misconception texts the grader processes used, for `merge`'s report."""
        with self._lock:
            self._set_meta("misconceptions", json.dumps(dict(sorted(texts.items()))))

    def close(self) -> None:
        self._db.close()


class JournalView:
    """A journal read by `merge`: never written, never created."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise GraderError(f"{path.parent} has no journal.sqlite: not a batch output folder")
        try:
            self._db = sqlite3.connect(str(path))  # only read; WAL readers need the -shm file
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            self.graded = {name: (sha, text) for name, sha, text in
                           self._db.execute("SELECT submission, sha256, result_json FROM graded")}
            self.expected = self._optional("SELECT submission, sha256 FROM expected")
            self.failed = {name: (sha, text) for name, sha, text in
                           self._rows("SELECT submission, sha256, result_json FROM failed")}
            self.fingerprints = {name: fp for name, fp in self._rows("SELECT submission, fingerprint FROM graded")}
            self.changes = {r[0]: (r[2], r[3], r[4], r[5], r[6]) for r in self._rows(
                "SELECT submission, fingerprint, old_score, old_max, new_score, new_max, why FROM changed")
                if r[1] == meta.get("fingerprint", "")}
            parts = [(text,) for fp, text in self._rows("SELECT fingerprint, parts_json FROM fingerprints")
                     if fp == meta.get("fingerprint", "")]
        except sqlite3.Error as e:
            raise GraderError(f"{path} cannot be read as a journal: {e}") from None
        finally:
            if hasattr(self, "_db"):
                self._db.close()
        self.path = path
        self.assignment = meta.get("assignment", "")
        self.batch_seed = int(meta.get("batch_seed") or 0)
        self.shard = meta.get("shard", "")
        self.meta = meta
        self.fingerprint = meta.get("fingerprint", "")
        try:
            self.parts = {str(k): str(v) for k, v in json.loads(parts[0][0]).items()} if parts else {}
        except (ValueError, AttributeError):
            self.parts = {}
        try:
            texts = json.loads(meta.get("misconceptions") or "{}")
        except ValueError:
            texts = {}
        self.texts = {str(k): str(v) for k, v in texts.items()} if isinstance(texts, dict) else {}

    def _rows(self, sql: str) -> list[tuple]:
        try:
            return self._db.execute(sql).fetchall()
        except sqlite3.OperationalError:  # a journal written before the table existed
            return []

    def _optional(self, sql: str) -> Optional[dict[str, str]]:
        try:
            return dict(self._db.execute(sql).fetchall())
        except sqlite3.OperationalError:
            return None
