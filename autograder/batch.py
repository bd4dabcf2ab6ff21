"""Batch grading: every submission in a directory, side by side, resumable, one report."""
from __future__ import annotations

import csv
import hashlib
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Callable, Optional

from autograder.grading import Grader
from autograder.journal import Journal
from autograder.outputs import results_name, write_results
from autograder.results import SubmissionResult

SUFFIXES = (".ipynb", ".py")


def find_submissions(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and p.suffix in SUFFIXES
                  and not p.name.startswith("."))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def submission_seed(batch_seed: int, sha256: str) -> int:
    """Deterministic per batch and submission: a resumed batch draws the same hidden inputs."""
    return int.from_bytes(hashlib.sha256(f"{batch_seed}:{sha256}".encode()).digest()[:8], "little") >> 1


def run_batch(directory: Path, slug: str, outdir: Path, jobs: int = 2, grader: Optional[Grader] = None,
              on_done: Optional[Callable[[SubmissionResult, bool], None]] = None,
              seed: Optional[int] = None) -> list[SubmissionResult]:
    """Grade every submission in `directory` into `outdir`; resumes from outdir/journal.sqlite."""
    import torch
    torch.set_num_threads(1)  # parallelism comes from grading submissions side by side
    subs = find_submissions(directory)
    outdir.mkdir(parents=True, exist_ok=True)
    journal = Journal(outdir / "journal.sqlite", slug, seed)
    own = grader is None
    grader = grader or Grader()
    grader.warm_up()
    vis = grader.course.config.visibility
    results: dict[str, SubmissionResult] = {}

    def one(path: Path) -> tuple[SubmissionResult, bool]:
        digest = _sha256(path)
        cached = journal.done(path.name, digest)
        if cached is not None:
            return cached, True
        seed = submission_seed(journal.batch_seed, digest)
        try:
            result = grader.grade(path, slug, seed=seed)
        except Exception as e:  # noqa: BLE001 - never lose the batch to one submission
            # Not journaled: a rerun tries it again.
            return SubmissionResult(submission=path.name, assignment=slug, status="worker_failed",
                                    seed=seed, max_score=grader.max_score(slug),
                                    message=f"grader error: {type(e).__name__}: {e}"), False
        write_results(result, vis, outdir / "results" / results_name(path.name))
        journal.record(path.name, digest, result)
        return result, False

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {pool.submit(one, p): p for p in subs}
            for fut in as_completed(futures):
                result, cached = fut.result()
                results[result.submission] = result  # only this thread writes it
                if on_done:
                    on_done(result, cached)
    finally:
        journal.close()
        if own:
            grader.close()
    ordered = [results[p.name] for p in subs if p.name in results]
    write_gradebook(ordered, outdir / "gradebook.csv")
    from autograder.report import write_report
    write_report(ordered, grader.course, slug, outdir)
    return ordered


# OWASP's CSV-injection rule: a cell starting with one of these is a formula to a spreadsheet (the
# full-width forms too: some spreadsheets fold them). Leading whitespace is no cover: some trim it.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def csv_cell(text: str) -> str:
    """A cell of student-influenced text, inert in a spreadsheet: prefixed with ' when it would start
    a formula. Numbers the grader writes itself do not go through this and stay numbers."""
    text = str(text)
    if text.startswith(_FORMULA_START) or text.lstrip(" \t\r\n\x0b\x0c\xa0").startswith(_FORMULA_START):
        return "'" + text
    return text


def write_gradebook(results: list[SubmissionResult], path: Path) -> None:
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["submission", "score", "max_score", "status", "misconceptions", "seed",
                    "execution_time_s"])
        for r in results:
            w.writerow([csv_cell(r.submission), f"{r.score:g}", f"{r.max_score:g}", csv_cell(r.status),
                        csv_cell(";".join(sorted(set(r.misconceptions)))), r.seed, f"{r.execution_time_s:.3f}"])
    tmp.replace(path)
