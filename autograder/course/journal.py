"""The batch journal: one sqlite row per finished submission, committed as it finishes, so a batch
killed with -9 resumes where it stopped and never grades anything twice.

One writer: the batch's parent process (grader processes send it their results; they never open the
journal). WAL mode, so a reader (`autograder merge`, a test) can read a journal that is being written.

Besides the graded rows it keeps what `merge` needs to check a shard is whole: the shard it was run
as (`K/N`, or empty for a whole batch), the submissions it was given (`expected`), and the results
the grader could not finish (`failed`: worker_failed, retried by a rerun, shown until then).

A fault of the disk (read-only, full, a file that is not a journal) is a DiskFault naming the journal
and the cause in words, never a traceback; each grade is committed alone, so whatever was recorded
before the fault stays, and the same command run again grades only the rest."""
from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator, Optional
from urllib.parse import quote

from autograder.course.atomic import DiskFault, check_writable, ensure_folder, file_size_limit, size_limit_cause
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


def _not_a_journal(error: sqlite3.Error) -> bool:
    text = str(error)
    return "not a database" in text or "malformed" in text or "file is encrypted" in text


# The columns `graded` gained after journals existed, in the order Journal._open adds them to an older journal
GRADED_ADDED = ("fingerprint TEXT NOT NULL DEFAULT ''", "regrade_run TEXT NOT NULL DEFAULT ''")
NOT_OURS = "it is not a journal this grader wrote; move it away, or use another -o"


@lru_cache(maxsize=1)
def _our_schema() -> frozenset[tuple[str, str, Optional[str]]]:
    """(type, name, sql) of every object a journal this grader wrote may hold, as sqlite keeps them: SCHEMA's
    tables and their primary keys' indexes, and `graded` as each ALTER of an older journal left it."""
    db = sqlite3.connect(":memory:")
    try:
        rows = set(db.executescript(SCHEMA).execute("SELECT type, name, sql FROM sqlite_master").fetchall())
        for column in GRADED_ADDED:
            db.execute(f"ALTER TABLE graded ADD COLUMN {column}")
            rows |= set(db.execute("SELECT type, name, sql FROM sqlite_master").fetchall())
    finally:
        db.close()
    return frozenset(rows)


def check_schema(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a journal holding anything this grader never writes. sqlite keeps a database's schema in the
    file and runs it: a trigger rewrites the grades the batch journals, a view stands in for a table merge reads,
    a table declared otherwise (COLLATE NOCASE on a key) merges classmates' rows; and `-o` may be a class folder
    whose files the students named (red-team round 111). Read before anything is written to it."""
    db.execute("PRAGMA trusted_schema=OFF")  # nothing of a schema runs a function while it is read
    ours = _our_schema()
    for kind, name, sql in db.execute("SELECT type, name, sql FROM sqlite_master").fetchall():
        if (kind, name, sql) not in ours:
            raise DiskFault(path, f"it holds a {str(kind)[:20]} {str(name)[:60]!r} that no journal of this grader has: "
                                  + NOT_OURS, "read")


def journal_fault(path: Path, error: sqlite3.Error, doing: str = "write the journal") -> DiskFault:
    """A sqlite error on the journal as the disk's fault, its cause in words. sqlite says "unable to
    open database file" or "disk I/O error" without saying why: the folder is asked (a probe file)."""
    text = str(error)
    if _not_a_journal(error):
        return DiskFault(path, f"it is not a journal (sqlite: {text}): move it away, or use another -o",
                         "read")
    if "full" in text:
        return DiskFault(path, "no space left on the disk (it is full)", doing)
    limit = file_size_limit()
    if limit is not None and "disk I/O error" in text and _reaches(path, limit):
        # sqlite says only "disk I/O error" when a write passes RLIMIT_FSIZE (red-team round 85)
        return DiskFault(path, size_limit_cause(limit), doing)
    try:
        check_writable(path.parent)
    except DiskFault as probe:
        return DiskFault(path, probe.cause, doing, probe.errno)
    if path.exists() and not os.access(path, os.W_OK):
        return DiskFault(path, "permission denied", doing)
    return DiskFault(path, f"sqlite: {text}", doing)


def _reaches(path: Path, limit: int) -> bool:
    """Whether the journal or its write-ahead log is within a page batch of `limit` bytes (the write that failed
    would have passed it)."""
    for name in (path, path.with_name(path.name + "-wal")):
        try:
            if name.stat().st_size + (1 << 20) >= limit:
                return True
        except OSError:
            pass
    return False


class Journal:
    def __init__(self, path: Path, assignment: str, seed: Optional[int] = None, shard: str = "") -> None:
        ensure_folder(path.parent, ours=False)  # OUT itself: it may be a link to another disk
        if path.is_dir():
            raise DiskFault(path, "it is a folder, not a journal", "open")
        self.path = path
        self._lock = threading.Lock()
        self._db: Optional[sqlite3.Connection] = None
        self.fingerprint = ""  # of everything that decides a score in this run (set_fingerprint)
        self.regrade_run = ""  # the --regrade this run carries on (open_regrade): its grades are not made again
        try:
            self._open(assignment, seed, shard)
        except sqlite3.Error as e:
            self.close()
            raise journal_fault(path, e, "open the journal") from None
        except BaseException:
            self.close()
            raise

    def _open(self, assignment: str, seed: Optional[int], shard: str) -> None:
        path = self.path
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        check_schema(self._db, path)  # a journal.sqlite the grader did not write runs no SQL of its own here
        self._db.executescript(SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(graded)")}
        if "fingerprint" not in columns:  # a journal written before grades were fingerprinted
            self._db.execute(f"ALTER TABLE graded ADD COLUMN {GRADED_ADDED[0]}")
        if "regrade_run" not in columns:  # a journal written before a --regrade could be resumed
            self._db.execute(f"ALTER TABLE graded ADD COLUMN {GRADED_ADDED[1]}")
        # what the journal already holds is read and written in one transaction: two runs opening one new journal at
        # once (SLURM shards given one -o) each read no assignment, seed or shard and wrote their own (round 112)
        self._db.execute("BEGIN IMMEDIATE")
        try:
            stored = self._meta("assignment")
            if stored is not None and stored != assignment:
                raise GraderError(f"{path} journals assignment '{stored}', not '{assignment}': use another -o")
            # written even when it is there already: sqlite opens a journal it cannot write read-only
            # without a word, and a read-only disk must stop the batch now, not after its first grade
            self._set_meta("assignment", assignment)
            stored_seed = self._meta("batch_seed")
            if stored_seed is not None and not stored_seed.lstrip("-").isdigit():
                raise DiskFault(path, f"its batch seed is {stored_seed[:40]!r}, not a number: it is not a journal "
                                      "this grader wrote; move it away, or use another -o", "read")
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
            self._db.execute("COMMIT")
        except BaseException:
            try:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            except sqlite3.Error:   # the error that stopped the open is the one said
                pass
            raise

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise GraderError(f"{self.path}: the journal is closed")
        return self._db

    @contextmanager
    def _using(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock; a sqlite error (disk full, read-only, not a journal) rolls
        back what was begun and is said as the disk's fault. Committed grades stay."""
        with self._lock:
            db = self._conn
            try:
                yield db
            except sqlite3.Error as e:
                try:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise journal_fault(self.path, e) from None

    def _meta(self, key: str) -> Optional[str]:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    @property
    def batch_seed(self) -> int:
        with self._using():
            return int(self._meta("batch_seed") or 0)

    def expect(self, submissions: Iterable[tuple[str, str]]) -> None:
        """The (name, sha256) this run was given: what a complete run has graded."""
        with self._using() as db:
            db.execute("BEGIN")
            db.execute("DELETE FROM expected")
            db.executemany("INSERT OR REPLACE INTO expected VALUES (?, ?)", list(submissions))
            db.execute("COMMIT")

    def set_fingerprint(self, fingerprint: str, parts: dict[str, str]) -> None:
        """What decides a score in this run (hidden tests, reference, settings, version): results
        recorded from now on carry it, and a result carrying another one is graded again."""
        self.fingerprint = fingerprint
        with self._using() as db:
            db.execute("INSERT OR REPLACE INTO fingerprints VALUES (?, ?)",
                       (fingerprint, json.dumps(parts, sort_keys=True)))
            self._set_meta("fingerprint", fingerprint)

    def parts(self, fingerprint: str) -> dict[str, str]:
        with self._using() as db:
            row = db.execute("SELECT parts_json FROM fingerprints WHERE fingerprint = ?", (fingerprint,)).fetchone()
        try:
            return dict(json.loads(row[0])) if row else {}
        except (ValueError, TypeError):
            return {}

    def previous(self, submission: str) -> Optional[tuple[str, str, SubmissionResult]]:
        """(sha256, fingerprint, result) of the submission's last finished grade, if any. A record that
        does not validate (a damaged journal) is no grade: the submission is graded again."""
        with self._using() as db:
            row = db.execute("SELECT sha256, fingerprint, result_json FROM graded WHERE submission = ?",
                             (submission,)).fetchone()
        if not row:
            return None
        try:
            return row[0], row[1], SubmissionResult.model_validate_json(row[2])
        except ValueError:
            return None

    def open_regrade(self) -> str:
        """The --regrade run this batch is part of: the one an earlier batch began under this fingerprint and did not
        finish (a --regrade stopped by SLURM's limit or Ctrl-C, run again as the same command: what it regraded is
        kept), else a new one. Its grades are recorded with it (record) until finish_regrade."""
        with self._using():
            run = self._meta("regrade_open") or ""
            if not run or self._meta("regrade_fingerprint") != self.fingerprint:
                run = secrets.token_hex(8)
                self._set_meta("regrade_open", run)
                self._set_meta("regrade_fingerprint", self.fingerprint)
        self.regrade_run = run
        return run

    def regraded_in(self, submission: str) -> str:
        """The --regrade run whose grade of `submission` the journal holds ('' for none)."""
        with self._using() as db:
            row = db.execute("SELECT regrade_run FROM graded WHERE submission = ?", (submission,)).fetchone()
        return str(row[0]) if row else ""

    def finish_regrade(self) -> None:
        """A batch graded everything it was given: no --regrade is left to carry on."""
        with self._using() as db:
            db.execute("DELETE FROM meta WHERE key IN ('regrade_open', 'regrade_fingerprint')")

    def record_change(self, submission: str, old: SubmissionResult, new: SubmissionResult, why: str) -> None:
        """A regrade that changed a score: kept for the report (under this run's fingerprint)."""
        with self._using() as db:
            db.execute("INSERT OR REPLACE INTO changed VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (submission, self.fingerprint, old.score, old.max_score, new.score, new.max_score, why))

    def changes(self) -> dict[str, tuple[float, float, float, float, str]]:
        """{submission: (old score, old max, new score, new max, why)} of regrades under this fingerprint."""
        with self._using() as db:
            rows = db.execute("SELECT submission, old_score, old_max, new_score, new_max, why FROM changed "
                              "WHERE fingerprint = ?", (self.fingerprint,)).fetchall()
        return {r[0]: (r[1], r[2], r[3], r[4], r[5]) for r in rows}

    def keep_meta(self, key: str, value: str) -> None:
        with self._using():
            self._set_meta(key, value)

    def meta(self, key: str) -> Optional[str]:
        with self._using():
            return self._meta(key)

    def done(self, submission: str, sha256: str) -> Optional[SubmissionResult]:
        with self._using() as db:
            row = db.execute("SELECT sha256, result_json FROM graded WHERE submission = ?", (submission,)).fetchone()
        if row and row[0] == sha256:
            try:
                return SubmissionResult.model_validate_json(row[1])
            except ValueError:  # a damaged record: graded again
                return None
        return None

    def record(self, submission: str, sha256: str, result: SubmissionResult,
               result_json: Optional[str] = None) -> None:
        """A finished grade (graded or rejected): never graded again while the file is unchanged.
        Committed (synchronous=FULL) before this returns: a later fault of the disk cannot lose it."""
        text = result_json if result_json is not None else result.model_dump_json()
        with self._using() as db:
            db.execute("BEGIN")
            db.execute("INSERT OR REPLACE INTO graded (submission, sha256, result_json, fingerprint, regrade_run) "
                       "VALUES (?, ?, ?, ?, ?)", (submission, sha256, text, self.fingerprint, self.regrade_run))
            db.execute("DELETE FROM failed WHERE submission = ?", (submission,))
            db.execute("COMMIT")

    def record_failure(self, submission: str, sha256: str, result: SubmissionResult) -> None:
        """A submission the grader could not finish: kept for the gradebook, graded again by a rerun."""
        with self._using() as db:
            db.execute("INSERT OR REPLACE INTO failed VALUES (?, ?, ?)", (submission, sha256, result.model_dump_json()))

    def keep_texts(self, texts: dict[str, str]) -> None:
        """The misconception texts the grader processes used, for `merge`'s report."""
        with self._using():
            self._set_meta("misconceptions", json.dumps(dict(sorted(texts.items()))))

    def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            try:
                db.close()
            except sqlite3.Error:  # closing never hides the error that stopped the run
                pass


def _read_only(path: Path) -> sqlite3.Connection:
    """A connection that only reads `path`. A WAL reader needs the -shm file; on a read-only disk (a
    shard's output kept on read-only media) that cannot be made, and when no -wal file holds pages
    not yet in the database, the file is opened as immutable: it is then all there is to read."""
    uri = "file:" + quote(str(path.absolute()))
    db = sqlite3.connect(uri + "?mode=ro", uri=True)
    try:
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return db
    except sqlite3.OperationalError:
        db.close()
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise
    return sqlite3.connect(uri + "?immutable=1", uri=True)


class JournalView:
    """A journal read by `merge`: never written, never created."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise GraderError(f"{path.parent} has no journal.sqlite: not a batch output folder")
        try:
            self._db = _read_only(path)
            check_schema(self._db, path)
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
        seed = meta.get("batch_seed") or "0"
        if not seed.lstrip("-").isdigit():
            raise GraderError(f"{path} cannot be read as a journal: its batch seed is {seed[:40]!r}, not a number")
        self.batch_seed = int(seed)
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
