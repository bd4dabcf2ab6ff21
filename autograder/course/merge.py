"""`autograder merge OUT1 OUT2 ... -o OUT`: shards (or any batch outputs of one assignment) into the
gradebook, results files, report and journal that one batch over all of them would have written.

Read from each shard's journal (not its gradebook): every result in full, the shard it was run as and
the submissions it was given. Refused, with the reason, when the shards do not make one whole:
different assignments, a missing or repeated shard index, a shard that has not finished (rerun it
alone with the same command: it resumes from its journal), or one submission name graded from two
different files. Rows come out in the order one batch writes them (submission names, sorted).

Nor is anything joined that is not one batch: shards run with different seeds (their hidden inputs
differ) or graded with different hidden tests, reference, grading.yml or grader code (the journals'
fingerprints), a journal record that does not validate, or a results file that does not say what
its journal record says (cut short, edited, a link). Nor where two sources of one fact disagree (red-team round
104): shards run on two versions of the export, folders that say different submitters or times for one submission,
grade one file to two grades, or were given different hand scores or waivers for it, or a folder without the
roster.json the others have. Each refusal is one line naming the shard. A
results file is never copied unread: its bytes are checked against the journal and written whole
(autograder.course.atomic); one that is missing is rebuilt from the journal."""
from __future__ import annotations

import json
import os
import stat
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from autograder.course.atomic import (check_writable, disk_faults, ensure_folder, shards_held, sole_writer,
                                     write_atomic)
from autograder.course.batch import parse_shard, register_texts, write_outputs
from autograder.course.handscores import load_hand_scores
from autograder.errors import GraderError
from autograder.course.exports import Discovery
from autograder.course.journal import Journal, JournalView
from autograder.results import SubmissionResult
from autograder.text import clean

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


def _check_one_export(views: list[JournalView], dirs: list[Path]) -> None:
    """Shards that discovered different exports (downloaded again between their runs) are no whole: a submission
    added since the first ran, whose key falls to that shard, was in no shard and missing from the merge, without a
    word (red-team round 104). Shards journaled before `class_keys` was kept are not compared."""
    held = [(v, d, v.meta.get("class_keys") or "") for v, d in zip(views, dirs) if v.shard]
    held = [(v, d, k) for v, d, k in held if k]
    if len({k for _, _, k in held}) <= 1:
        return
    first, *rest = held
    v, d, k = next(h for h in rest if h[2] != first[2])

    def count(text: str) -> str:
        try:
            return str(int(json.loads(text)["count"]))
        except (ValueError, TypeError, KeyError):
            return "?"
    raise GraderError(f"{_label(first[0], first[1])} and {_label(v, d)} were run on different exports ({count(first[2])} "
                      f"submissions; {count(k)} submissions): a submission added or removed between their runs is in "
                      "no shard or in two; rerun every shard on one export, then merge")


def _label(view: JournalView, folder: Path) -> str:
    return f"shard {view.shard} ({folder})" if view.shard else f"batch {folder}"


def _most_common(values: list[Any]) -> Any:
    """The value most shards share (the first one's on a tie): the others are named as the odd ones."""
    counts = Counter(values)
    top = max(counts.values())
    return next(v for v in values if counts[v] == top)


def _check_one_batch(views: list[JournalView], dirs: list[Path]) -> None:
    """Every shard drew its hidden inputs from one seed and was graded by one grading (hidden tests,
    reference, grading.yml, grader code): else GraderError naming the shard that differs."""
    seed = _most_common([v.batch_seed for v in views])
    odd = [(v, d) for v, d in zip(views, dirs) if v.batch_seed != seed]
    if odd:
        v, d = odd[0]
        same = next(dd for vv, dd in zip(views, dirs) if vv.batch_seed == seed)
        more = f" (and {len(odd) - 1} more)" if len(odd) > 1 else ""
        raise GraderError(f"{_label(v, d)}{more} was run with seed {v.batch_seed}, not {seed} like {same}: its "
                          f"hidden inputs differ, so it is not part of the same batch; rerun it with --seed {seed} "
                          "into another -o, then merge")
    prints = [v.fingerprint for v in views]
    if len(set(prints)) > 1:
        common = _most_common(prints)
        ref_view, ref_dir = next((v, d) for v, d in zip(views, dirs) if v.fingerprint == common)
        odd = [(v, d) for v, d in zip(views, dirs) if v.fingerprint != common]
        v, d = odd[0]
        more = f" (and {len(odd) - 1} more)" if len(odd) > 1 else ""
        differ = [k.removeprefix("the ") for k in sorted(set(ref_view.parts) | set(v.parts))
                  if ref_view.parts.get(k) != v.parts.get(k)] if ref_view.parts and v.parts else []
        what = " and ".join(differ) or "hidden tests, reference, grading.yml or autograder code"
        raise GraderError(f"{_label(v, d)}{more} was graded with different {what} than {ref_dir}: rerun the "
                          "older one with the same command (it regrades what changed), then merge")


@dataclass
class Collected:
    slug: str
    rows: list[tuple[str, str, str, bool, Path]]   # (name, sha256, result_json, final, its shard), by name
    seed: int                                      # the batch seed every shard shares
    texts: dict[str, str]                          # misconception texts the shards' graders used
    fingerprint: str = ""                          # of the grading every shard used
    parts: Optional[dict[str, str]] = None
    roster: Optional[Discovery] = None             # who each submission belongs to, every shard's roster
    hand: str = ""                                 # the hand scores the shards were given (journal JSON)
    waivers: str = ""                              # their late waivers (handscores.dump_waivers)
    changes: Optional[dict[str, tuple[float, float, float, float, str]]] = None
    hands: Optional[dict[Path, str]] = None         # each shard's own hand scores (journal JSON)
    labels: Optional[dict[Path, str]] = None        # each shard as a refusal names it


def collect(dirs: list[Path]) -> Collected:
    """Everything the shards graded, checked to make one whole (else GraderError)."""
    if not dirs:
        raise GraderError("give at least one batch output folder to merge")
    # a shard whose batch still runs (a --regrade, a resumed run) journals as it grades: merged then, OUT held old and
    # new grades side by side and said nothing (red-team round 114). merge calls this inside shards_held, which has
    # refused such a shard already and holds the others against a batch that starts now
    views = [JournalView(d / "journal.sqlite") for d in dirs]
    slugs = {v.assignment for v in views}
    if len(slugs) != 1:
        raise GraderError(f"these outputs grade different assignments: {', '.join(sorted(slugs))}")
    _check_shards(views, dirs)
    _check_one_export(views, dirs)
    _check_one_batch(views, dirs)
    prints = {v.fingerprint for v in views if v.fingerprint}
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
            try:
                SubmissionResult.model_validate_json(text)
            except ValueError:
                raise GraderError(f"{_label(view, d)}: its journal's record of '{name}' does not validate: rerun it "
                                  "with the same command (it grades that submission again), then merge") from None
            if name in rows and rows[name][0] != sha:
                raise GraderError(f"'{name}' was graded from two different files ({rows[name][3]} and {d})")
            if name in rows and final and rows[name][2] and _graded_as(rows[name][1]) != _graded_as(text):
                # one file graded twice (two whole batches that both hold it) to two grades: the first named won, so
                # the order of the folders set the score of a notebook whose grade changes from run to run (red-team
                # round 104)
                before, now = SubmissionResult.model_validate_json(rows[name][1]), SubmissionResult.model_validate_json(text)
                raise GraderError(f"'{clean(name, 80)}' was graded differently in {rows[name][3]} ({before.score:g} of "
                                  f"{before.max_score:g}) and {d} ({now.score:g} of {now.max_score:g}), from one file: its "
                                  "grade changes from run to run (read it by hand); merge folders that grade it once")
            if name not in rows or (final and not rows[name][2]):
                rows[name] = (sha, text, final, d)
    seeds = {v.batch_seed for v in views}
    texts: dict[str, str] = {}
    for view in views:
        texts.update(view.texts)
    ordered = [(name, sha, text, final, d) for name, (sha, text, final, d) in sorted(rows.items())]
    rosters = []
    lacking = [(v, d) for v, d in zip(views, dirs) if not (d / "roster.json").is_file()]
    if lacking and len(lacking) < len(views):
        # every batch writes one: merged without it, that folder's students lost their names, ids and submission
        # times (canvas.csv could not match them; a late penalty was gone: red-team round 104)
        v, d = lacking[0]
        raise GraderError(f"{_label(v, d)} has no roster.json (who submitted each submission, and when): rerun it with "
                          "the same command (it writes the roster again), then merge")
    for view, d in zip(views, dirs):
        if (d / "roster.json").is_file():
            try:
                rosters.append(Discovery.read(d / "roster.json"))
            except (ValueError, OSError, GraderError) as e:
                first = (str(e).splitlines() or [type(e).__name__])[0][:200]
                raise GraderError(f"{_label(view, d)}: its roster.json cannot be read ({first}): rerun it with "
                                  "the same command (it writes the roster again), then merge") from None
    _check_rosters(rosters, [_label(v, d) for v, d in zip(views, dirs) if (d / "roster.json").is_file()])
    hand: dict[str, dict] = {}
    scored_by: dict[tuple[str, str], tuple[Any, str]] = {}   # (submission, question) -> (its score, the first shard)
    waivers: dict[str, Any] = {}
    waived_by: dict[str, tuple[Any, str]] = {}   # submission -> (its waiver, the first shard that has it)
    changes: dict[str, tuple[float, float, float, float, str]] = {}
    for view, d in zip(views, dirs):
        try:
            kept = json.loads(view.meta.get("hand_scores") or "{}")
        except ValueError:
            kept = {}
        if isinstance(kept, dict):
            _join_hand_scores(kept, hand, scored_by, _label(view, d))
        try:
            waived = json.loads(view.meta.get("late_waivers") or "{}")
        except ValueError:
            waived = {}
        if isinstance(waived, dict):
            _check_waivers(waived, waived_by, _label(view, d))
            waivers.update(waived)
        changes.update(view.changes)
    hands = {d: view.meta.get("hand_scores") or "" for view, d in zip(views, dirs)}
    labels = {d: _label(view, d) for view, d in zip(views, dirs)}
    return Collected(slugs.pop(), ordered, seeds.pop(), texts, hands=hands, labels=labels,
                     fingerprint=prints.pop() if prints else "", parts=next((v.parts for v in views if v.parts), {}),
                     roster=Discovery.merged(rosters) if rosters else None,
                     hand=json.dumps(hand, sort_keys=True) if hand else "", changes=changes,
                     waivers=json.dumps(waivers, sort_keys=True) if waivers else "")


def _check_waivers(waived: dict[str, Any], seen: dict[str, tuple[Any, str]], label: str) -> None:
    """Refuse shards given different late waivers for one submission (their hand-scores files differ: one waives, one
    extends, or to another time): the later shard's silently won, so naming the shards in another order changed that
    student's penalty (red-team round 102). A waiver is its time and reason; its row number may differ."""
    for key, value in sorted(waived.items()):
        said = tuple(value[:2]) if isinstance(value, list) else value
        if key in seen and seen[key][0] != said:
            raise GraderError(f"{seen[key][1]} and {label} were given different late waivers for '{clean(key, 80)}' "
                              f"({_waiver_text(seen[key][0])}; {_waiver_text(said)}): rerun them with the same "
                              "--hand-scores file, then merge")
        seen.setdefault(key, (said, label))


def _graded_as(text: str) -> Any:
    """What two grades of one file must agree on to be one grade: the status, the totals and each test's outcome."""
    result = SubmissionResult.model_validate_json(text)
    return (result.status, result.score, result.max_score,
            [(t.question, t.name, t.device, t.score, t.max_score, t.status) for t in result.tests])


def _check_rosters(rosters: list[Discovery], labels: list[str]) -> None:
    """Refuse rosters that say different things of one submission: who submitted it, when, or a LATE mark (batches
    of two exports that both hold it, downloaded at different times). Discovery.merged keeps the first roster's entry,
    so naming the folders in another order changed that student's late penalty and the names the Canvas CSV gives
    (red-team round 104). Its path may differ (each export's own folder)."""
    seen: dict[str, tuple[Any, str]] = {}
    for roster, label in zip(rosters, labels):
        for entry in roster.entries:
            said = ([s.model_dump() for s in entry.submitters], entry.created_at, entry.late)
            first = seen.setdefault(entry.key, (said, label))
            if first[0] != said:
                what = [w for w, a, b in zip(("submitters", "submission time", "LATE mark"), first[0], said) if a != b]
                raise GraderError(f"{first[1]} and {label} say different {' and '.join(what)} for '{clean(entry.key, 80)}' "
                                  "(their exports differ): grade it from one export, then merge")


def _join_hand_scores(kept: dict[str, Any], hand: dict[str, dict], seen: dict[tuple[str, str], tuple[Any, str]],
                      label: str) -> None:
    """Join one shard's hand scores (handscores.dump_hand_scores) into `hand`, question by question. Refuse shards given
    different scores for one submission's question (their hand-scores files differ): dict.update let the later shard
    win, so naming the shards in another order changed that student's total (red-team round 104). A hand score is its
    points and comment; its row number may differ."""
    for key, questions in sorted(kept.items()):
        if not isinstance(questions, dict):
            continue
        for question, value in sorted(questions.items()):
            said = tuple(value[:2]) if isinstance(value, list) else value
            first = seen.get((key, question))
            if first is not None and first[0] != said:
                raise GraderError(f"{first[1]} and {label} were given different hand scores for '{clean(key, 80)}' "
                                  f"{clean(str(question), 40)} ({_hand_text(first[0])}; {_hand_text(said)}): rerun them "
                                  "with the same --hand-scores file, then merge")
            seen.setdefault((key, question), (said, label))
            hand.setdefault(key, {})[question] = value


def _hand_text(said: Any) -> str:
    score, comment = (said[0], str(said[1]) if len(said) > 1 else "") if isinstance(said, tuple) and said else (said, "")
    return clean(f"{score} points" + (f", '{comment}'" if comment else ""), 80)


def _waiver_text(said: Any) -> str:
    until, reason = (str(said[0]), str(said[1]) if len(said) > 1 else "") if isinstance(said, tuple) and said else ("", "")
    return clean((f"extension to {until}" if until else "waived") + (f" ({reason})" if reason else ""), 80)


# A results file is a few kB per test; anything past this is not one a batch wrote.
MAX_RESULTS_BYTES = 64 * 1024 * 1024


def _read_results(path: Path) -> tuple[Optional[bytes], str]:
    """(bytes, "") of a shard's results file, (None, "") when there is none, (None, why) when it
    cannot be one: a link (its bytes would come from elsewhere), not a plain file, too large."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, ""
    except OSError as e:
        return None, "it is a symbolic link" if path.is_symlink() else f"it cannot be read ({e.strerror})"
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None, "it is not a plain file"
        if info.st_size > MAX_RESULTS_BYTES:
            return None, f"it is {info.st_size} bytes, larger than any results file"
        return fh.read(MAX_RESULTS_BYTES + 1), ""


def _summary(data: Any) -> Any:
    """What a results file must agree on with its journal record: the score, each test's name,
    points and status, and the seed, status and maximum the grader recorded. (Not the visibility,
    wording or numbers, which grading.yml's visibility decides when the file is written: shown tests
    are numbered first, red-team round 89.)"""
    if not isinstance(data, dict):
        return None
    tests = data.get("tests")
    extra = data.get("extra_data")
    rows = ([(t.get("name"), t.get("score"), t.get("max_score"), t.get("status"))
             for t in tests] if isinstance(tests, list) and all(isinstance(t, dict) for t in tests) else None)
    kept = {k: extra.get(k) for k in ("seed", "status", "max_score")} if isinstance(extra, dict) else None
    return data.get("score"), rows, kept


def results_mismatch(raw: bytes, expected: dict[str, Any]) -> str:
    """Why a results file's bytes are not the one its journal record gives ("" when they are):
    `expected` is that record as outputs.to_gradescope writes it."""
    try:
        data = json.loads(raw)
    except UnicodeDecodeError:
        return "it is not UTF-8 text"
    except ValueError as e:
        return f"it is not whole JSON ({e})"
    got, want = _summary(data), _summary(json.loads(json.dumps(expected)))
    if got is None or got[1] is None or got[2] is None:
        return "it is not a results file"
    if got[0] != want[0]:
        return f"its score is {got[0]!r}, its journal record's {want[0]!r}"
    if got[1] != want[1]:
        return "its tests differ from its journal record's"
    if got[2] != want[2]:
        return "its seed, status or maximum differs from its journal record's"
    return ""


def merge(dirs: list[Path], outdir: Path, course: "Course") -> list[SubmissionResult]:
    """Write outdir/{gradebook.csv, results/, report.html, journal.sqlite} for the shards in `dirs`.
    Every file is written whole (autograder.course.atomic); a fault of OUT's disk is a DiskFault naming the
    path and the cause, and the same command run again writes the merge from the start."""
    resolved = {d.resolve() for d in dirs}
    if outdir.resolve() in resolved:
        raise GraderError(f"{outdir} is one of the folders being merged: write the merge elsewhere")
    # no batch starts writing a shard unseen while it is read, up to the last shard file read (red-team round 119)
    with shards_held(dirs) as still_unwritten:
        return _merge_held(dirs, outdir, course, still_unwritten)


def _merge_held(dirs: list[Path], outdir: Path, course: "Course", still_unwritten: Callable[[], None]) -> list[SubmissionResult]:
    """merge, while `shards_held` holds the shards; `still_unwritten` raises OutputBusy for a shard a batch writes now."""
    from autograder.course.handscores import apply_hand_scores, hand_points
    from autograder.course.outputs import results_name, to_gradescope
    got = collect(dirs)
    slug = got.slug
    course.assignment_dir(slug)
    vis = course.config.visibility
    points = hand_points(course.settings(slug), slug)
    hands = {d: load_hand_scores(text, course, slug) for d, text in (got.hands or {}).items()}
    # Every shard's results files are checked before anything is written: a refusal leaves no merge.
    texts: list[Optional[bytes]] = []
    for name, _sha, text, _final, shard in got.rows:
        raw, why = _read_results(shard / "results" / results_name(name))
        if raw is not None:
            result = SubmissionResult.model_validate_json(text)
            # the file a batch wrote has its hand scores merged (write_outputs): so is the record here
            shown = apply_hand_scores(result, points, hands.get(shard)) if points else result
            why = results_mismatch(raw, to_gradescope(shown, vis))
        if why:
            label = (got.labels or {}).get(shard, str(shard))
            raise GraderError(f"{label}: results/{results_name(name)} is not what its journal recorded ({why}): "
                              "rerun it with the same command (it rewrites its results from its journal), then merge")
        texts.append(raw)
    still_unwritten()   # before OUT is written: a batch that began on a shard after the first probe
    ensure_folder(outdir, ours=False)
    with sole_writer(outdir):   # no batch or other merge writes into OUT meanwhile (red-team round 112)
        merged = _write_merge(dirs, got, texts, outdir, course)
    still_unwritten()   # _write_merge read each shard's similarity.json too
    return merged


def _write_merge(dirs: list[Path], got: Collected, texts: list[Optional[bytes]], outdir: Path, course: "Course") -> list[SubmissionResult]:
    """merge's writing, once the shards are checked and OUT is its own."""
    from autograder.course.outputs import results_name, write_results
    slug = got.slug
    vis = course.config.visibility
    check_writable(outdir)
    ensure_folder(outdir / "results")
    ensure_folder(outdir / "feedback")
    register_texts(got.texts)
    journal = Journal(outdir / "journal.sqlite", slug, got.seed)
    results: list[SubmissionResult] = []
    try:
        journal.expect((name, sha) for name, sha, _t, _f, _d in got.rows)
        journal.keep_texts(got.texts)
        if got.fingerprint:
            journal.set_fingerprint(got.fingerprint, got.parts or {})
        # always, empty when the shards have none: OUT's journal may hold an earlier merge's, withdrawn since (a merge
        # of OUT then read them back: red-team round 104)
        journal.keep_meta("hand_scores", got.hand)
        journal.keep_meta("late_waivers", got.waivers)
        with disk_faults(outdir):
            if got.roster is not None:
                got.roster.write(outdir / "roster.json")
            for (name, sha, text, final, _shard), raw in zip(got.rows, texts):
                result = SubmissionResult.model_validate_json(text)
                target = outdir / "results" / results_name(name)
                if raw is not None:  # the shard's own file, checked above: what one batch wrote
                    write_atomic(target, raw, skip_same=True)
                else:  # none was written (the shard's disk filled): rebuilt from its journal
                    write_results(result, vis, target)
                if final:
                    journal.record(name, sha, result, result_json=text)
                    if got.changes and name in got.changes:
                        o, om, n, nm, why = got.changes[name]
                        journal.record_change(name, result.model_copy(update={"score": o, "max_score": om}),
                                              result, why)
                else:
                    journal.record_failure(name, sha, result)
                results.append(result)
    finally:
        journal.close()
    from autograder.course.batch import _note
    from autograder.course.similarity import merge_similarity
    notes: list[str] = []
    with disk_faults(outdir):  # the whole class compared again, from each shard's similarity.json
        shards = [(d, [name for name, *_rest, shard in got.rows if shard == d], (got.labels or {}).get(d, str(d)))
                  for d in dirs]
        merge_similarity(shards, course, slug, outdir, found=got.roster, warnings=notes)
    for line in notes:
        _note(f"note: {line}")
    with disk_faults(outdir):
        return write_outputs(results, course, slug, outdir, found=got.roster,
                             hand=load_hand_scores(got.hand, course, slug, got.waivers), changes=got.changes)
