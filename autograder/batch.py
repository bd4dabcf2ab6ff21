"""Batch grading: every submission in a directory, side by side, resumable, one report.

`-j N` runs N trusted grader processes (autograder.pool), each a whole grader with its own zygote;
this process hands out submissions, journals results (the one writer) and writes the outputs.
`--shard K/N` grades a deterministic 1/N of the directory; `autograder merge` (autograder.merge)
joins shards into the outputs one batch would have written."""
from __future__ import annotations

import csv
import hashlib
import re
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from autograder.errors import GraderError
from autograder.journal import Journal
from autograder.results import Isolation, SubmissionResult

if TYPE_CHECKING:
    from autograder.config import Course
    from autograder.grading import Grader
    from autograder.pool import Task

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
    """Deterministic per batch and submission: a resumed batch draws the same hidden inputs, and so
    does every shard of a batch run with the same --seed."""
    return int.from_bytes(hashlib.sha256(f"{batch_seed}:{sha256}".encode()).digest()[:8], "little") >> 1


# --- shards ------------------------------------------------------------------------------------------
def parse_shard(text: str) -> tuple[int, int]:
    """"K/N" -> (K, N), K 1-based: what a SLURM array index or a Kubernetes completion index + 1 gives."""
    m = re.fullmatch(r"\s*(\d{1,6})\s*/\s*(\d{1,6})\s*", text or "")
    if not m:
        raise GraderError(f"--shard takes K/N (for example 2/8), not '{text}'")
    k, n = int(m.group(1)), int(m.group(2))
    if not 1 <= k <= n:
        raise GraderError(f"--shard {k}/{n}: K must be between 1 and N")
    return k, n


def shard_of(name: str, n: int) -> int:
    """The shard (1..n) a submission belongs to, from its name alone: every shard decides the same
    whatever else it sees in the folder, so each file is graded by exactly one shard."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % n + 1


def task_timeout(course: "Course") -> float:
    """How long a grader process may hold one submission before it is replaced: the submission's
    own limit twice over, plus a grader process's start-up."""
    return 2 * course.config.limits.submission_timeout_s + 120


def run_batch(directory: Path, slug: str, outdir: Path, jobs: int = 2, grader: Optional["Grader"] = None,
              on_done: Optional[Callable[[SubmissionResult, bool], None]] = None,
              seed: Optional[int] = None, shard: Optional[tuple[int, int]] = None,
              course: Optional["Course"] = None, isolation: Optional[Isolation] = None) -> list[SubmissionResult]:
    """Grade every submission in `directory` (the shard's share of them) into `outdir`; resumes from
    outdir/journal.sqlite. With `grader`, grades in this process on `jobs` threads of that grader
    (one zygote); without, on `jobs` grader processes."""
    from autograder.outputs import results_name
    from autograder.pool import GraderPool, Task
    subs = find_submissions(directory)
    if shard is not None:
        subs = [p for p in subs if shard_of(p.name, shard[1]) == shard[0]]
    if course is None:
        if grader is not None:
            course = grader.course
        else:
            from autograder.config import find_course
            course = find_course()
    course.assignment_dir(slug)  # an unknown assignment stops here, before anything starts
    outdir.mkdir(parents=True, exist_ok=True)
    journal = Journal(outdir / "journal.sqlite", slug, seed, shard=f"{shard[0]}/{shard[1]}" if shard else "")
    vis = course.config.visibility
    digests = {p.name: _sha256(p) for p in subs}
    journal.expect(digests.items())
    results: dict[str, SubmissionResult] = {}
    todo: list[Task] = []
    for p in subs:
        cached = journal.done(p.name, digests[p.name])
        if cached is not None:
            results[p.name] = cached
            if on_done:
                on_done(cached, True)
        else:
            todo.append(Task(name=p.name, path=str(p.resolve()),
                             seed=submission_seed(journal.batch_seed, digests[p.name]),
                             results_path=str(outdir / "results" / results_name(p.name))))

    def finish(task: Task, result: SubmissionResult, final: bool, written: bool = False) -> None:
        if not written:  # a grader process writes its own results; this one only what it built itself
            from autograder.outputs import write_results
            write_results(result, vis, Path(task.results_path))
        if final:
            journal.record(task.name, digests[task.name], result)
        else:  # the grader's failure, not the student's: shown now, graded again by a rerun
            journal.record_failure(task.name, digests[task.name], result)
        results[task.name] = result  # only this thread writes it
        if on_done:
            on_done(result, False)

    pool: Optional[GraderPool] = None
    try:
        if grader is not None:
            _in_process(grader, slug, todo, jobs, finish)
            from autograder.checks import MISCONCEPTIONS
            journal.keep_texts(MISCONCEPTIONS)
        elif todo:
            pool = GraderPool(course.root, slug, min(max(1, jobs), len(todo)), isolation=isolation,
                              task_timeout_s=task_timeout(course))
            pool.start()
            _prepare_outputs()
            for task, result, final, written in pool.run(todo):
                finish(task, result, final, written)
            pool.release()  # the grader processes wind down while the outputs are written
            if pool.misconceptions:
                journal.keep_texts(pool.misconceptions)
                register_texts(pool.misconceptions)  # the report names them as the graders did
        ordered = [results[p.name] for p in subs if p.name in results]
        write_outputs(ordered, course, slug, outdir)
    finally:
        journal.close()
        if pool is not None:
            pool.close()
            for note in pool.notes:
                # a grader process's "grader problem:" lines are summed up by the CLI's closing line
                kept = "\n".join(x for x in note.splitlines() if not x.startswith("grader problem:"))
                if kept.strip():
                    _note(kept)
    return ordered


def _in_process(grader: "Grader", slug: str, todo: list["Task"], jobs: int,
                finish: Callable[["Task", SubmissionResult, bool], None]) -> None:
    """Threads of one grader sharing one zygote (tests use this to put students side by side)."""
    import torch
    torch.set_num_threads(1)  # parallelism comes from grading submissions side by side
    grader.warm_up()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
        futures = {threads.submit(grader.grade_or_fail, Path(t.path), slug, t.seed): t for t in todo}
        for fut in as_completed(futures):
            result = fut.result()
            finish(futures[fut], result, result.status != "worker_failed")


def register_texts(texts: dict[str, str]) -> None:
    """Misconception texts the grader processes loaded with the hidden tests, for this process's
    report (it never loads the hidden tests itself)."""
    from autograder.checks import register
    for key, text in texts.items():
        register(key, text)


def _prepare_outputs() -> None:
    """The report needs torch (autograder.checks) and matplotlib: a few seconds of imports. This
    process only waits while its grader processes work, so it imports them meanwhile, on a thread,
    instead of after the last submission."""
    def load() -> None:
        try:
            import autograder.report  # noqa: F401 - imports autograder.checks, so torch
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot  # noqa: F401
        except Exception:  # noqa: BLE001 - only a head start: write_outputs imports them anyway
            pass

    threading.Thread(target=load, name="prepare-outputs", daemon=True).start()


def _note(text: str) -> None:
    import sys

    from autograder.outputs import terminal_text
    try:
        print(terminal_text(text, limit=800, newlines=True), file=sys.stderr, flush=True)
    except Exception:  # noqa: BLE001 - a note never changes the outcome
        pass


def write_outputs(results: list[SubmissionResult], course: "Course", slug: str, outdir: Path) -> None:
    """gradebook.csv and report.html of these results, in this order (one batch, or merged shards)."""
    write_gradebook(results, outdir / "gradebook.csv")
    from autograder.report import write_report
    write_report(results, course, slug, outdir)


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
