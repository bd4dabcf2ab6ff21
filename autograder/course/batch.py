"""Batch grading: every submission in a directory, side by side, resumable, one report.

`-j N` runs N trusted grader processes (autograder.course.pool), each a whole grader with its own zygote;
this process hands out submissions, journals results (the one writer) and writes the outputs.
`--shard K/N` grades a deterministic 1/N of the directory; `autograder merge` (autograder.course.merge)
joins shards into the outputs one batch would have written."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from autograder.course.atomic import check_writable, disk_faults, ensure_folder, sole_writer
from autograder.errors import GraderError
from autograder.course.fingerprint import file_sha256, grading_fingerprint, submission_seed, why_regraded
from autograder.course.handscores import dump_hand_scores, load_hand_scores
from autograder.course.journal import Journal
from autograder.results import Isolation, SubmissionResult
from autograder.sandbox import timers

if TYPE_CHECKING:
    from autograder.config import Course
    from autograder.course.exports import Discovery
    from autograder.grading.grader import Grader
    from autograder.course.handscores import HandScores
    from autograder.course.pool import GraderPool, Task

SUFFIXES = (".ipynb", ".py")


def find_submissions(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and p.suffix in SUFFIXES
                  and not p.name.startswith("."))


# --- class exports -----------------------------------------------------------------------------------
def discover_class(directory: Path, slug: str, scratch: Path) -> "Discovery":
    """The class in `directory`, in any layout autograder.course.exports reads (flat, per-student folders,
    zips, Gradescope, Canvas, Moodle). Zips are unpacked into `scratch`, which must outlive grading."""
    from autograder.course.exports import discover
    return discover(directory, slug, scratch)


def shard_part(found: "Discovery", shard: Optional[tuple[int, int]]) -> "Discovery":
    """The share of a discovery one shard grades (by key; problems about the export as a whole go to
    shard 1 only, so a merged roster names each once)."""
    if shard is None:
        return found
    k, n = shard
    return found.model_copy(update={
        "entries": [e for e in found.entries if shard_of(e.key, n) == k],
        "problems": [p for p in found.problems if (shard_of(p.key, n) == k if p.key else k == 1)]})


def class_keys(found: "Discovery") -> str:
    """The export's submissions as a shard's journal keeps them (meta `class_keys`): their count and a digest of their
    keys, every shard's the same when they ran on one export."""
    keys = sorted({e.key for e in found.entries} | {p.key for p in found.problems if p.key})
    digest = hashlib.sha256(json.dumps(keys).encode()).hexdigest()
    return json.dumps({"count": len(keys), "digest": digest}, sort_keys=True)


@dataclass
class BatchInfo:
    """What a batch did besides its results, for the CLI's summary."""
    regraded: dict[str, str] = field(default_factory=dict)      # key -> why it was graded again
    changes: dict[str, tuple[float, float, float, float, str]] = field(default_factory=dict)  # this run's
    warnings: list[str] = field(default_factory=list)
    found: Optional["Discovery"] = None


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
              course: Optional["Course"] = None, isolation: Optional[Isolation] = None,
              found: Optional["Discovery"] = None, regrade: bool = False,
              hand: Optional["HandScores"] = None, info: Optional[BatchInfo] = None) -> list[SubmissionResult]:
    """Grade every submission of the class in `directory` (the shard's share of them) into `outdir`;
    resumes from outdir/journal.sqlite. `found`: the class as discover_class read it (else read
    here). A journaled grade is kept while the submission's bytes and the grading's fingerprint are
    unchanged; `regrade` grades everything again. With `grader`, grades in this process on `jobs`
    threads of that grader (one zygote); without, on `jobs` grader processes. Returns the results,
    hand scores merged, in key order; `info` receives what was regraded and which scores changed.

    OUT's disk: this process is its one writer (grader processes only send results), every file is
    written whole (autograder.course.atomic), and each grade is journaled before its results file is written.
    A read-only or full disk stops the batch with a DiskFault (a GraderError naming the path and the
    cause); what was journaled stays, and the same command run again writes what is missing (the
    results files of journaled grades included) and grades only what was not journaled."""
    from autograder.grading.outcome import TestSpec, build_result
    from autograder.course.outputs import results_name, write_results
    from autograder.course.pool import Task
    if course is None:
        if grader is not None:
            course = grader.course
        else:
            from autograder.config import find_course
            course = find_course()
    course.assignment_dir(slug)  # an unknown assignment stops here, before anything starts
    info = info if info is not None else BatchInfo()
    scratch: Optional[Path] = None
    if found is None:
        scratch = Path(tempfile.mkdtemp(prefix="autograder-class-"))
    pool: Optional[GraderPool] = None
    journal: Optional[Journal] = None
    stopped = False
    # the one batch or merge writing into OUT, from before its first grader starts to its last output (round 112)
    writer = ExitStack()
    try:
        if grader is None and (regrade or not (outdir / "journal.sqlite").exists()):
            # a class not graded before: its first grader process starts now (an `import torch`, a
            # second) while this process reads the class, hashes it and opens the journal, instead
            # of after (measured: the zygote launched 0.32 s into a -j2 batch, 0.14 s into `grade`).
            # OUT exists first: the fallback level hides it from students by a mount over it when its
            # zygote starts, which only a folder that exists can get (one made later would be readable)
            ensure_folder(outdir, ours=False)
            writer.enter_context(sole_writer(outdir))
            pool = _start_pool(course, slug, jobs, isolation, [directory, outdir])
        if found is None:
            assert scratch is not None
            found = discover_class(directory, slug, scratch)
        part = shard_part(found, shard)
        info.found = part
        ensure_folder(outdir, ours=False)  # OUT itself may be a link to another disk
        if pool is None:
            writer.enter_context(sole_writer(outdir))
        check_writable(outdir)  # read-only or full: said now, before anything is graded
        ensure_folder(outdir / "results")
        ensure_folder(outdir / "feedback")  # a link or a file here is said now, not after the grading
        journal = Journal(outdir / "journal.sqlite", slug, seed, shard=f"{shard[0]}/{shard[1]}" if shard else "")
        fingerprint, parts = grading_fingerprint(course, slug, isolation)
        journal.set_fingerprint(fingerprint, parts)
        # a --regrade stopped before its end, run again as the same command, goes on from where it stopped: it had
        # started again from the first student every time (red-team round 85), so a class longer than a SLURM time
        # limit never finished
        regrade_run = journal.open_regrade() if regrade else ""
        with disk_faults(outdir):
            part.write(outdir / "roster.json")  # whole or not at all (autograder.course.atomic)
        vis = course.config.visibility
        entries = part.entries
        digests = {e.key: file_sha256(e.path) for e in entries}
        problems = {p.key: p for p in part.problems if p.key}
        problem_digests = {k: "problem:" + hashlib.sha256(p.message.encode()).hexdigest() for k, p in problems.items()}
        journal.expect([*digests.items(), *problem_digests.items()])
        if shard:
            # each shard discovers the whole export: what it held is kept, so a merge tells apart shards run on two
            # versions of it (one gained or lost a submission between the runs, in no shard or in two: round 104)
            journal.keep_meta("class_keys", class_keys(found))
        if hand is not None:
            from autograder.course.handscores import dump_waivers
            journal.keep_meta("hand_scores", dump_hand_scores(hand))
            journal.keep_meta("late_waivers", dump_waivers(hand.waivers))
        results: dict[str, SubmissionResult] = {}
        before: dict[str, SubmissionResult] = {}
        todo: list[Task] = []
        for e in entries:
            prev = journal.previous(e.key)
            if prev is not None and prev[0] == digests[e.key] and prev[1] == fingerprint and (
                    not regrade or journal.regraded_in(e.key) == regrade_run):
                results[e.key] = prev[2]
                # the run that journaled it may have stopped before its results file was written (a
                # full disk): written now, left alone where it already says exactly this
                write_results(prev[2], vis, outdir / "results" / results_name(e.key), skip_same=True)
                if on_done:
                    on_done(prev[2], True)
                continue
            if prev is not None:
                old_sha, old_fp, old = prev
                why = ("the submission changed" if old_sha != digests[e.key] else
                       why_regraded(journal.parts(old_fp), parts) if old_fp != fingerprint else "--regrade")
                before[e.key] = old
                info.regraded[e.key] = why
            # no results_path: a grader process never writes into OUT; this process writes each
            # results file after journaling its grade (finish)
            todo.append(Task(name=e.key, path=str(e.path.resolve()),
                             seed=submission_seed(journal.batch_seed, digests[e.key])))
        why_of = dict(info.regraded)

        def finish(task: Task, result: SubmissionResult, final: bool, written: bool = False) -> None:
            assert journal is not None
            if result.submission != task.name:  # the grader names a result after its file: the key names it here
                result = result.model_copy(update={"submission": task.name})
            if final:
                journal.record(task.name, digests[task.name], result)
                old = before.get(task.name)
                if old is not None and (old.score, old.max_score) != (result.score, result.max_score):
                    why = why_of.get(task.name, "")
                    journal.record_change(task.name, old, result, why)
                    info.changes[task.name] = (old.score, old.max_score, result.score, result.max_score, why)
            else:  # the grader's failure, not the student's: shown now, graded again by a rerun
                journal.record_failure(task.name, digests[task.name], result)
            # after the journal: a disk that fills here loses no grade (a rerun writes this file)
            write_results(result, vis, outdir / "results" / results_name(task.name))
            results[task.name] = result  # only this thread writes it
            if on_done:
                on_done(result, False)

        if pool is not None:   # started before the class was read: as many as there is work for
            pool.jobs = min(pool.jobs, max(1, len(todo)))
            if not todo:
                pool.release()
        specs: list[TestSpec] = []
        if grader is not None:
            _in_process(grader, slug, todo, jobs, finish)
            from autograder.grading.checks import MISCONCEPTIONS
            journal.keep_texts(MISCONCEPTIONS)
            specs = list(grader.specs(slug))
        elif todo:
            if pool is None:
                pool = _start_pool(course, slug, min(max(1, jobs), len(todo)), isolation, [directory, outdir])
            prepared = False
            for task, result, final, written in pool.run(todo):
                finish(task, result, final, written)
                if not prepared:  # not before: its imports would slow the graders' start-up
                    _prepare_outputs()
                    prepared = True
            pool.release()  # the grader processes wind down while the outputs are written
            specs = list(pool.specs)
            if pool.misconceptions:
                # the journal keeps them; the report reads each text from the results that name it
                journal.keep_texts(pool.misconceptions)
        if specs:
            journal.keep_meta("specs", json.dumps([s.to_json() for s in specs]))
        else:  # nothing graded now: the test list the last graders announced
            try:
                specs = [TestSpec.from_json(x) for x in json.loads(journal.meta("specs") or "[]")]
            except (ValueError, TypeError):
                specs = []
        for key, problem in problems.items():  # what the export holds that cannot be graded, and why
            result = build_result(key, slug, status="rejected", seed=0, specs=specs, message=problem.message)
            journal.record(key, problem_digests[key], result)
            write_results(result, vis, outdir / "results" / results_name(key), skip_same=True)
            results[key] = result
        if hand is None:
            hand = load_hand_scores(journal.meta("hand_scores"), course, slug, journal.meta("late_waivers"))
            if hand is not None:
                info.warnings.extend(_orphaned_hand_scores(hand, set(found.submitters())))
        ordered = [results[k] for k in sorted(results)]
        changes = {**journal.changes(), **info.changes}
        with disk_faults(outdir), timers.span("outputs"):
            ordered = write_outputs(ordered, course, slug, outdir, found=part, hand=hand,
                                    changes=changes, warnings=info.warnings)
            # beside the grades, after them: advice for a person that changes no score
            from autograder.course.similarity import write_batch_similarity
            with timers.span("similarity"):
                write_batch_similarity(part.entries, course, slug, outdir, found=part, warnings=info.warnings)
        if all(r.status != "worker_failed" for r in ordered):   # else the rerun carries the --regrade on
            journal.finish_regrade()
    except KeyboardInterrupt:  # Ctrl-C, or the CLI's SIGTERM (SLURM, docker stop): what is journaled stays
        stopped = True
        raise
    finally:
        if journal is not None:
            journal.close()
        if pool is not None:
            with timers.span("grader processes closed"):
                pool.close(kill=stopped)
            # a stopped batch's graders die mid-grade: what they wrote on the way is not a grader problem
            for note in pool.notes if not stopped else []:
                # a grader process's "grader problem:" lines are summed up by the CLI's closing line
                kept = "\n".join(x for x in note.splitlines() if not x.startswith("grader problem:"))
                if kept.strip():
                    _note(kept)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        writer.close()
    return ordered


def _start_pool(course: "Course", slug: str, jobs: int, isolation: Optional[Isolation],
                private: list[Path]) -> "GraderPool":
    """`jobs` grader processes for `slug`, their first ones starting now; `private`: the class and OUT."""
    from autograder.course.pool import GraderPool
    timers.mark("grader pool start")
    pool = GraderPool(course.root, slug, jobs, isolation=isolation, task_timeout_s=task_timeout(course),
                      private=private, course=course)
    pool.start()
    return pool


def _in_process(grader: "Grader", slug: str, todo: list["Task"], jobs: int,
                finish: Callable[["Task", SubmissionResult, bool], None]) -> None:
    """Threads of one grader sharing one zygote (tests use this to put students side by side)."""
    import torch
    torch.set_num_threads(1)  # parallelism comes from grading submissions side by side
    grader.warm_up()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
        futures = {threads.submit(grader.grade_or_fail, Path(t.path), slug, t.seed): t for t in todo}
        try:
            for fut in as_completed(futures):
                result = fut.result()
                finish(futures[fut], result, result.status != "worker_failed")
        except BaseException:  # e.g. a full disk: grade nothing more that could not be kept
            for fut in futures:
                fut.cancel()
            raise


def register_texts(texts: dict[str, str]) -> None:
    """Misconception texts the grader processes loaded with the hidden tests, for this process's
    report (it never loads the hidden tests itself)."""
    from autograder.grading.checks import register
    for key, text in texts.items():
        register(key, text)


def _prepare_outputs() -> None:
    """The outputs need jinja2 and the report's modules: a tenth of a second of imports. This process only
    waits while its grader processes work, so it imports them meanwhile, on a thread, instead of after the
    last submission; from the first result on, so as not to compete with the grader processes' own
    start-up. matplotlib is not among them: the report draws its charts itself (autograder.course.charts),
    and only a written answer with a formula needs it (feedback's mathtext). It never imports torch
    (tests/test_pool.py)."""
    def load() -> None:
        try:
            import autograder.course.report  # noqa: F401
            import autograder.course.similarity  # noqa: F401
        except Exception:  # noqa: BLE001 - only a head start: write_outputs imports them anyway
            pass

    threading.Thread(target=load, name="prepare-outputs", daemon=True).start()


def _note(text: str) -> None:
    import sys

    from autograder.text import terminal_text
    try:
        print(terminal_text(text, limit=800, newlines=True), file=sys.stderr, flush=True)
    except Exception:  # noqa: BLE001 - a note never changes the outcome
        pass


def write_outputs(results: list[SubmissionResult], course: "Course", slug: str, outdir: Path,
                  found: Optional["Discovery"] = None, hand: Optional["HandScores"] = None,
                  changes: Optional[dict[str, tuple[float, float, float, float, str]]] = None,
                  warnings: Optional[list[str]] = None) -> list[SubmissionResult]:
    """gradebook.csv, canvas.csv, feedback/ and report.html of these results, in this order (one
    batch, or merged shards), with the hand-graded questions grading.yml declares (hand scores
    merged where given, else 0 awaiting hand grading). `found` names each submission's students and
    when each came in: grading.yml's late policy (autograder.course.lateness) turns that into the penalty the
    gradebook, canvas.csv, feedback and report show, with the hand-scores file's waivers; the results
    (and their files) keep the raw score. Returns the results as written (hand scores merged)."""
    from autograder.course.feedback import write_feedback
    from autograder.course.gradebook import write_canvas_csv
    from autograder.course.handscores import apply_hand_scores, hand_points
    points = hand_points(course.settings(slug), slug)
    if points:
        results = [apply_hand_scores(r, points, hand) for r in results]
        # each results file says what the gradebook says: hand scores (or "awaiting") included
        from autograder.course.outputs import results_name, write_results
        for r in results:
            write_results(r, course.config.visibility, outdir / "results" / results_name(r.submission),
                          skip_same=True)
    entries = found.entries if found is not None else []
    submitters = found.submitters() if found is not None else None
    title = course.config.assignments[slug].title or slug
    from autograder.course.lateness import assess_class
    from autograder.course.lateness import warnings as late_warnings
    late = assess_class(results, course.config, slug, entries, hand.waivers if hand is not None else None)
    write_gradebook(results, outdir / "gradebook.csv", entries, submitters, lateness=late)
    notes = write_canvas_csv(results, outdir / "canvas.csv", title, entries, submitters, lateness=late)
    if warnings is not None:
        warnings.extend(notes + late_warnings(late))
    # the pages are handed back to students (README's round trip): they follow grading.yml's visibility as
    # Gradescope's results do. Written with the defaults, `hidden_tests: hidden` (staff only) and `show_total:
    # false` were shown on every page anyway (found beside red-team round 105)
    vis = course.config.visibility
    write_feedback(results, outdir / "feedback", entries=entries, title=title, lateness=late,
                   show_hidden=vis.hidden_tests != "hidden", show_total=vis.show_total)
    moved = set_aside_stale(outdir, [r.submission for r in results])
    if moved and warnings is not None:
        from autograder.text import shown_name
        warnings.append(f"{len(moved)} file(s) of submissions not in this run moved to superseded/ (a rerun after a "
                        "submission left the class or was resubmitted under a new name): "
                        + ", ".join(shown_name(m, 80) for m in moved[:6]) + (" ..." if len(moved) > 6 else ""))
    from autograder.course.report import write_report
    write_report(results, course, slug, outdir, found=found, changes=changes or {}, lateness=late)
    return results


def _orphaned_hand_scores(hand: "HandScores", keys: set[str]) -> list[str]:
    """Warnings for hand scores and late waivers an earlier run kept (by the submission key each sid resolved to then)
    whose submission is not in the class now: a resubmission under a new key (Canvas names each attempt with its
    own id) would otherwise lose them without a word. Given again with --hand-scores they resolve to the new key."""
    from autograder.text import shown_name
    lost = sorted({*hand.scores, *hand.waivers} - keys)
    if not lost:
        return []
    said = ", ".join(shown_name(k, 80) + (f" ({', '.join(sorted(hand.scores.get(k, {})))})" if hand.scores.get(k) else
                                          " (a late waiver)") for k in lost[:6])
    return [f"hand scores or late waivers kept from an earlier run belong to {len(lost)} submission(s) no longer in "
            f"the class, and are not applied: {said}{' ...' if len(lost) > 6 else ''}. A student who resubmitted under "
            "a new name gets them back when the hand-scores file is given again (--hand-scores)"]


def set_aside_stale(outdir: Path, keys: list[str]) -> list[str]:
    """Move every file in OUT/results and OUT/feedback that is not the results file or feedback page of one of `keys`
    (this run's submissions) to OUT/superseded/, never over another file there; the moved paths, relative to OUT.
    A rerun after a submission left the class, or came back under a new key (a Canvas resubmission's new id), had
    left its old page and results beside the new ones: two pages for one student, the stale one with the old score.
    Moved, not deleted: nothing a person may still want is lost. A temporary file of a write in progress (a
    leading dot) is left alone."""
    from autograder.course.feedback import feedback_name
    from autograder.course.outputs import results_name
    wanted = {"results": {results_name(k) for k in keys}, "feedback": {feedback_name(k) for k in keys}}
    moved: list[str] = []
    for folder, names in wanted.items():
        here = outdir / folder
        try:
            present = sorted(os.listdir(here))
        except FileNotFoundError:
            continue
        for name in present:
            if name in names or name.startswith("."):
                continue
            aside = ensure_folder(outdir / "superseded") / folder
            ensure_folder(aside)
            target, n = aside / name, 0
            while os.path.lexists(target):
                n += 1
                target = aside / f"{name}.{n}"
            os.replace(here / name, target)
            moved.append(f"{folder}/{name}")
    return moved


def write_gradebook(results: list[SubmissionResult], path: Path, entries=(), submitters=None, lateness=None) -> Path:
    """gradebook.csv: one row per student (autograder.course.gradebook says which columns)."""
    from autograder.course.gradebook import write_gradebook as write
    return write(results, path, entries, submitters, lateness=lateness)
