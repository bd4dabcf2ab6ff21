"""`autograder merge OUT1 OUT2 ... -o OUT`: shards (or any batch outputs of one assignment) into the
gradebook, results files, report and journal that one batch over all of them would have written.

Read from each shard's journal (not its gradebook): every result in full, the shard it was run as and
the submissions it was given. Refused, with the reason, when the shards do not make one whole:
different assignments, a missing or repeated shard index, a shard that has not finished (rerun it
alone with the same command: it resumes from its journal), or one submission name graded from two
different files. Rows come out in the order one batch writes them (submission names, sorted)."""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import json

from autograder.batch import load_hand_scores, parse_shard, register_texts, write_outputs
from autograder.errors import GraderError
from autograder.exports import Discovery
from autograder.journal import Journal, JournalView
from autograder.results import SubmissionResult

if TYPE_CHECKING:
    from autograder.config import Course


def _check_shards(views: list[JournalView], dirs: list[Path]) -> None:
    sharded = [(parse_shard(v.shard), d) for v, d in zip(views, dirs) if v.shard]
    if not sharded:
        return
    if len(sharded) != len(views):
        whole = [str(d) for v, d in zip(views, dirs) if not v.shard]
        raise GraderError(f"cannot merge shards with whole batches ({', '.join(whole[:3])})")
    counts = {n for (_, n), _ in sharded}
    if len(counts) != 1:
        raise GraderError(f"these outputs come from different shardings (N = {sorted(counts)})")
    n = counts.pop()
    seen: dict[int, Path] = {}
    for (k, _), d in sharded:
        if k in seen:
            raise GraderError(f"shard {k}/{n} is given twice: {seen[k]} and {d}")
        seen[k] = d
    missing = [k for k in range(1, n + 1) if k not in seen]
    if missing:
        raise GraderError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(f'{k}/{n}' for k in missing)} "
                          "missing: give every shard's output folder")


@dataclass
class Collected:
    slug: str
    rows: list[tuple[str, str, str, bool, Path]]   # (name, sha256, result_json, final, its shard), by name
    seed: Optional[int]                            # the batch seed every shard shares, or None
    texts: dict[str, str]                          # misconception texts the shards' graders used
    fingerprint: str = ""                          # of the grading every shard used
    parts: Optional[dict[str, str]] = None
    roster: Optional[Discovery] = None             # who each submission belongs to, every shard's roster
    hand: str = ""                                 # the hand scores the shards were given (journal JSON)
    changes: Optional[dict[str, tuple[float, float, float, float, str]]] = None


def collect(dirs: list[Path]) -> Collected:
    """Everything the shards graded, checked to make one whole (else GraderError)."""
    if not dirs:
        raise GraderError("give at least one batch output folder to merge")
    views = [JournalView(d / "journal.sqlite") for d in dirs]
    slugs = {v.assignment for v in views}
    if len(slugs) != 1:
        raise GraderError(f"these outputs grade different assignments: {', '.join(sorted(slugs))}")
    _check_shards(views, dirs)
    prints = {v.fingerprint for v in views if v.fingerprint}
    if len(prints) > 1:
        raise GraderError("these outputs were graded with different hidden tests, reference, settings or "
                          "autograder code: rerun the older ones (they regrade what changed), then merge")
    rows: dict[str, tuple[str, str, bool, Path]] = {}
    for view, d in zip(views, dirs):
        names = view.expected if view.expected is not None else {n: sha for n, (sha, _) in view.graded.items()}
        current = {n for n, (sha, _) in view.graded.items()
                   if not view.fingerprint or view.fingerprints.get(n, "") == view.fingerprint}
        unfinished = [n for n, sha in names.items()
                      if (view.graded.get(n, ("",))[0] != sha or n not in current)
                      and view.failed.get(n, ("",))[0] != sha]
        if unfinished:
            label = f"shard {view.shard}" if view.shard else "batch"
            raise GraderError(f"{label} in {d} has not finished: {len(names) - len(unfinished)} of {len(names)} "
                              "graded; rerun it with the same command (it resumes from its journal)")
        for name, sha in names.items():
            final = view.graded.get(name, ("",))[0] == sha
            text = (view.graded if final else view.failed)[name][1]
            if name in rows and rows[name][0] != sha:
                raise GraderError(f"'{name}' was graded from two different files ({rows[name][3]} and {d})")
            if name not in rows or (final and not rows[name][2]):
                rows[name] = (sha, text, final, d)
    seeds = {v.batch_seed for v in views}
    texts: dict[str, str] = {}
    for view in views:
        texts.update(view.texts)
    ordered = [(name, sha, text, final, d) for name, (sha, text, final, d) in sorted(rows.items())]
    rosters = [Discovery.read(d / "roster.json") for d in dirs if (d / "roster.json").is_file()]
    hand: dict[str, dict] = {}
    changes: dict[str, tuple[float, float, float, float, str]] = {}
    for view in views:
        try:
            hand.update(json.loads(view.meta.get("hand_scores") or "{}"))
        except ValueError:
            pass
        changes.update(view.changes)
    return Collected(slugs.pop(), ordered, seeds.pop() if len(seeds) == 1 else None, texts,
                     fingerprint=prints.pop() if prints else "", parts=next((v.parts for v in views if v.parts), {}),
                     roster=Discovery.merged(rosters) if rosters else None,
                     hand=json.dumps(hand, sort_keys=True) if hand else "", changes=changes)


def merge(dirs: list[Path], outdir: Path, course: "Course") -> list[SubmissionResult]:
    """Write outdir/{gradebook.csv, results/, report.html, journal.sqlite} for the shards in `dirs`."""
    from autograder.outputs import results_name, write_results
    resolved = {d.resolve() for d in dirs}
    if outdir.resolve() in resolved:
        raise GraderError(f"{outdir} is one of the folders being merged: write the merge elsewhere")
    got = collect(dirs)
    slug = got.slug
    course.assignment_dir(slug)
    vis = course.config.visibility
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "results").mkdir(exist_ok=True)
    register_texts(got.texts)
    journal = Journal(outdir / "journal.sqlite", slug, got.seed)
    results: list[SubmissionResult] = []
    try:
        journal.expect((name, sha) for name, sha, _t, _f, _d in got.rows)
        journal.keep_texts(got.texts)
        if got.fingerprint:
            journal.set_fingerprint(got.fingerprint, got.parts or {})
        if got.hand:
            journal.keep_meta("hand_scores", got.hand)
        if got.roster is not None:
            got.roster.write(outdir / "roster.json")
        for name, sha, text, final, shard in got.rows:
            result = SubmissionResult.model_validate_json(text)
            target = outdir / "results" / results_name(name)
            written = shard / "results" / results_name(name)
            if written.is_file():  # the shard's own file, byte for byte: what one batch wrote
                shutil.copyfile(written, target)
            else:
                write_results(result, vis, target)
            if final:
                journal.record(name, sha, result, result_json=text)
                if got.changes and name in got.changes:
                    o, om, n, nm, why = got.changes[name]
                    journal.record_change(name, result.model_copy(update={"score": o, "max_score": om}), result, why)
            else:
                journal.record_failure(name, sha, result)
            results.append(result)
    finally:
        journal.close()
    return write_outputs(results, course, slug, outdir, found=got.roster,
                         hand=load_hand_scores(got.hand, course, slug), changes=got.changes)
