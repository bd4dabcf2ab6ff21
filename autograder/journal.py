"""The batch journal: one sqlite row per finished submission, committed as it finishes, so a batch
killed with -9 resumes where it stopped and never grades anything twice."""
from __future__ import annotations

import secrets
import sqlite3
import threading
from pathlib import Path
from typing import Optional

from autograder.results import SubmissionResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS graded (
    submission TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    result_json TEXT NOT NULL
);
"""


class Journal:
    def __init__(self, path: Path, assignment: str, seed: Optional[int] = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()
        stored = self._meta("assignment")
        if stored is None:
            self._set_meta("assignment", assignment)
        elif stored != assignment:
            from autograder.errors import GraderError
            raise GraderError(f"{path} journals assignment '{stored}', not '{assignment}': use another -o")
        stored_seed = self._meta("batch_seed")
        if stored_seed is None:
            self._set_meta("batch_seed", str(secrets.randbits(62) if seed is None else seed))
        elif seed is not None and int(stored_seed) != seed:
            from autograder.errors import GraderError
            raise GraderError(f"{path} was started with seed {stored_seed}, not {seed}: use another -o")

    def _meta(self, key: str) -> Optional[str]:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    @property
    def batch_seed(self) -> int:
        return int(self._meta("batch_seed") or 0)

    def done(self, submission: str, sha256: str) -> Optional[SubmissionResult]:
        with self._lock:
            row = self._db.execute("SELECT sha256, result_json FROM graded WHERE submission = ?",
                                   (submission,)).fetchone()
        if row and row[0] == sha256:
            return SubmissionResult.model_validate_json(row[1])
        return None

    def record(self, submission: str, sha256: str, result: SubmissionResult) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO graded VALUES (?, ?, ?)",
                             (submission, sha256, result.model_dump_json()))

    def close(self) -> None:
        self._db.close()
