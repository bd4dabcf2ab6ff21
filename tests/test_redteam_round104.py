"""Red-team round 104: shards, merges and regrades: what two runs disagree on.

Attacked every place two sources of one fact meet when a class is graded in shards and joined by `autograder merge`
(repros in /tmp/rt104/). Found:

- **A merge's hand score hung on the order its shards were named in.** Each shard keeps the hand scores of the
  hand-scores file it was given (the whole file), and merge joined them per submission with dict.update: the last
  shard named won, as round 102 found for late waivers. Two shards given different files (a TA's q3 score for
  submission_101 changed from 2 to 0 between the two runs) merged as `merge s1 s2` into 4 of 6 and as `merge s2 s1`
  into 6 of 6 (gradebook.csv, canvas.csv, results/submission_101.json and report.html alike), without a word
  (/tmp/rt104/hand.py). Shards that disagree on one submission's hand score for a question (its points or comment)
  are now refused, naming both shards, the submission and the question; scores only one shard has are joined per
  question (a submission's questions from two shards no longer replace each other whole).
- **A merge's late penalty hung on which export was named first.** Merge takes any batch outputs of one assignment,
  and two whole batches of two downloads of one Gradescope export (the second taken after the metadata changed:
  submission_101's created_at from on time to 2 days 5 h late, the notebook the same) both hold submission_101
  with one digest, so nothing was refused; Discovery.merged kept the first roster's entry, and `merge a b` gave
  4 of 6 on time while `merge b a` gave 2.5 of 6, "late by 2 days 5 h" (/tmp/rt104/overlap.py). The same held for
  its submitters (the names and ids canvas.csv writes) and a LATE mark. Rosters that say different submitters,
  times or LATE marks for one submission are now refused, naming both folders and what differs.
- **A merge's score for a file graded twice was the first folder's.** Two whole batches that both hold one file
  (same digest, seed and grading) were joined by keeping the first folder's grade. A notebook whose answer draws on
  `os.urandom` (`answer = 'B' if os.urandom(1)[0] < 128 else 'A'`) graded 3 of 6 in one batch and 4 of 6 in the
  other; `merge a b` wrote 3 and `merge b a` wrote 4, without a word (/tmp/rt104/coin.py). Two final grades of one
  file that differ (status, totals or any test's outcome) are now refused, naming both folders and both scores. (The
  test forges the second grade through the journal's API rather than toss the coin until it lands.)
- **A student the export gained between two shards' runs was in no shard.** A shard grades the submissions whose
  key hashes to it, of the export it reads when it runs; SLURM array tasks start at different times, and an export
  downloaded again in place between them (submission_101 added) left submission_101 to shard 1, which had run on
  the older export: `merge s1 s2` wrote a gradebook and canvas.csv of submission_102 and submission_104 and exit 0,
  submission_101 nowhere (/tmp/rt104/drop.py). A removed one stayed in likewise. Each shard now keeps a digest of
  the whole export's submission keys (journal meta `class_keys`), and shards whose exports held different
  submissions are refused, both named with their counts (shards journaled before this have none and are not
  compared).
- **A merge into its own earlier output kept the hand scores it no longer had.** A merge writes its journal into
  OUT's, which it reuses, and kept the shards' hand scores and waivers there only when there were any: shards rerun
  with the TA's hand score withdrawn (a hand-scores file with none) merged into the same OUT gave 4 of 6 in
  gradebook.csv while OUT's journal still held the withdrawn q3 score, so `merge OUT -o OUT2` refused OUT ("its
  score is 4.0, its journal record's 6.0": /tmp/rt104/stale.py). A merge now always writes both, empty when the
  shards have none.
- **A shard without its roster.json merged as a class of strangers.** Merge read each shard's roster.json where
  there was one and went on without it where there was none: with shard 2/2's deleted, submission_104 came out of
  the merge with no name or sid in canvas.csv (a row Canvas cannot match to a student) and no submission time, so
  its 1 day 3 h late penalty was gone: 4 of 6 where shard 2/2 had said 2.8 (/tmp/rt104/noroster.py). Every batch
  writes its roster.json, and a rerun writes it again: where some folders have one, one without is now refused
  (folders that all lack one, written before rosters were, merge as before).
"""
from __future__ import annotations

import shutil
from pathlib import Path


def _export(where: Path, keys: tuple[str, ...]) -> Path:
    from tests.test_lateness import FIXTURE_SUBS, GRADESCOPE, METADATA_NAME
    where.mkdir()
    lines = []
    for key, sids, created, *_ in GRADESCOPE:
        if key in keys:
            lines.append(f"{key}:\n  :submitters:\n" + "".join(f"  - :name: S{sid}\n    :sid: '{sid}'\n" for sid in sids)
                         + f"  :created_at: {created}\n")
            (where / key).mkdir()
            shutil.copy(FIXTURE_SUBS / "good.ipynb", where / key / "toy.ipynb")
    (where / METADATA_NAME).write_text("".join(lines))
    return where


def test_shards_given_different_hand_scores_are_refused_not_merged_in_name_order(tmp_path: Path) -> None:
    from tests.test_class_exports import run
    from tests.test_lateness import course_with_policy, while_the_code_stands
    course = course_with_policy(tmp_path / "course").root
    export = _export(tmp_path / "export", ("submission_101", "submission_104"))
    (tmp_path / "h1.csv").write_text("sid,question,score,comment\n1001,q3,2,full marks\n")
    (tmp_path / "h2.csv").write_text("sid,question,score,comment\n1001,q3,0,no derivation\n")

    def shards_then_merge() -> str:
        for k in (1, 2):
            rc, text = run("batch", str(export), "-o", str(tmp_path / f"s{k}"), "--shard", f"{k}/2", "-a", "toy",
                           "--seed", "3", "--hand-scores", str(tmp_path / f"h{k}.csv"), course=course)
            assert rc == 0, text
        rc, text = run("merge", str(tmp_path / "s2"), str(tmp_path / "s1"), "-o", str(tmp_path / "merged"), course=course)
        assert rc != 0 and "different hand scores for 'submission_101'" in text, text
        return text

    text = while_the_code_stands(shards_then_merge)
    assert "q3" in text and "2" in text and "0" in text
    assert not (tmp_path / "merged" / "gradebook.csv").exists()


def test_batches_whose_exports_differ_on_a_submission_time_are_refused_not_merged_in_name_order(tmp_path: Path) -> None:
    from tests.test_class_exports import run
    from tests.test_lateness import FIXTURE_SUBS, METADATA_NAME, course_with_policy, while_the_code_stands
    course = course_with_policy(tmp_path / "course").root

    def export(name: str, created: str) -> Path:
        where = tmp_path / name
        where.mkdir()
        (where / "submission_101").mkdir()
        shutil.copy(FIXTURE_SUBS / "good.ipynb", where / "submission_101" / "toy.ipynb")
        (where / METADATA_NAME).write_text(f"submission_101:\n  :submitters:\n  - :name: S1\n    :sid: '1001'\n"
                                           f"  :created_at: {created}\n")
        return where

    on_time, late = export("ea", "2024-03-08 23:00:00 -05:00"), export("eb", "2024-03-11 09:59:00 +00:00")

    def batches_then_merge() -> str:
        for name, where in (("a", on_time), ("b", late)):
            rc, text = run("batch", str(where), "-o", str(tmp_path / name), "-a", "toy", "--seed", "3", course=course)
            assert rc == 0, text
        rc, text = run("merge", str(tmp_path / "b"), str(tmp_path / "a"), "-o", str(tmp_path / "merged"), course=course)
        assert rc != 0 and "different submission time for 'submission_101'" in text, text
        return text

    text = while_the_code_stands(batches_then_merge)
    assert str(tmp_path / "a") in text and str(tmp_path / "b") in text
    assert not (tmp_path / "merged" / "gradebook.csv").exists()


def test_one_file_graded_to_two_scores_is_refused_not_merged_in_name_order(tmp_path: Path) -> None:
    from autograder.course.journal import Journal, JournalView
    from autograder.results import SubmissionResult
    from tests.test_class_exports import run
    from tests.test_lateness import FIXTURE_SUBS, course_with_policy, while_the_code_stands
    course = course_with_policy(tmp_path / "course").root
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", subs / "coin.ipynb")

    def batches_then_merge() -> str:
        for name in ("a", "merged"):
            shutil.rmtree(tmp_path / name, ignore_errors=True)
        rc, text = run("batch", str(subs), "-o", str(tmp_path / "a"), "-a", "toy", "--seed", "3", course=course)
        assert rc == 0, text
        # the second batch of the same file, as a notebook that tosses a coin is graded the other time
        shutil.rmtree(tmp_path / "b", ignore_errors=True)
        shutil.copytree(tmp_path / "a", tmp_path / "b")
        view = JournalView(tmp_path / "b" / "journal.sqlite")
        sha, text = view.graded["coin.ipynb"]
        first = SubmissionResult.model_validate_json(text)
        tests = [t.model_copy(update={"score": 0.0, "status": "failed"}) if t.question == "q2" else t for t in first.tests]
        other = first.model_copy(update={"tests": tests, "score": first.score - sum(t.score for t in first.tests
                                                                                    if t.question == "q2")})
        assert other.score != first.score
        journal = Journal(tmp_path / "b" / "journal.sqlite", "toy")
        journal.set_fingerprint(view.fingerprint, view.parts or {})   # graded by the same grading as batch a
        journal.record("coin.ipynb", sha, other)
        journal.close()
        (tmp_path / "b" / "results" / "coin.ipynb.json").unlink()   # a merge rebuilds a missing one from the journal
        rc, text = run("merge", str(tmp_path / "b"), str(tmp_path / "a"), "-o", str(tmp_path / "merged"), course=course)
        assert rc != 0 and "'coin.ipynb' was graded differently" in text, text
        return text

    text = while_the_code_stands(batches_then_merge)
    assert str(tmp_path / "a") in text and str(tmp_path / "b") in text
    assert not (tmp_path / "merged" / "gradebook.csv").exists()


def test_shards_run_on_two_versions_of_an_export_are_refused_not_merged_short(tmp_path: Path) -> None:
    from tests.test_class_exports import run
    from tests.test_lateness import course_with_policy, while_the_code_stands
    from autograder.course.batch import shard_of
    course = course_with_policy(tmp_path / "course").root
    assert (shard_of("submission_101", 2), shard_of("submission_102", 2)) == (1, 2)
    older = _export(tmp_path / "v1", ("submission_102", "submission_104"))
    newer = _export(tmp_path / "v2", ("submission_101", "submission_102", "submission_104"))   # 101 added

    def shards_then_merge() -> str:
        for k, export in ((1, older), (2, newer)):
            shutil.rmtree(tmp_path / f"s{k}", ignore_errors=True)
            rc, text = run("batch", str(export), "-o", str(tmp_path / f"s{k}"), "--shard", f"{k}/2", "-a", "toy",
                           "--seed", "3", course=course)
            assert rc == 0, text
        rc, text = run("merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "-o", str(tmp_path / "merged"), course=course)
        assert rc != 0 and "different exports" in text, text
        return text

    text = while_the_code_stands(shards_then_merge)
    assert "shard 1/2" in text and "shard 2/2" in text and "2 submissions" in text and "3 submissions" in text
    assert not (tmp_path / "merged" / "gradebook.csv").exists()


def test_a_merge_again_into_its_output_forgets_hand_scores_the_shards_no_longer_have(tmp_path: Path) -> None:
    from tests.test_class_exports import book, run
    from tests.test_lateness import course_with_policy, while_the_code_stands
    course = course_with_policy(tmp_path / "course").root
    export = _export(tmp_path / "export", ("submission_101", "submission_104"))
    (tmp_path / "scored.csv").write_text("sid,question,score,comment\n1001,q3,2,full marks\n")
    (tmp_path / "withdrawn.csv").write_text("sid,question,score,comment\n")

    def merge_twice_then_again() -> str:
        for name in ("s1", "s2", "out", "again"):
            shutil.rmtree(tmp_path / name, ignore_errors=True)
        for hand in ("scored.csv", "withdrawn.csv"):
            for k in (1, 2):
                rc, text = run("batch", str(export), "-o", str(tmp_path / f"s{k}"), "--shard", f"{k}/2", "-a", "toy",
                               "--seed", "3", "--hand-scores", str(tmp_path / hand), course=course)
                assert rc == 0, text
            rc, text = run("merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "-o", str(tmp_path / "out"), course=course)
            assert rc == 0, text
        assert {r["submission"]: r["score"] for r in book(tmp_path / "out")}["submission_101"] == "4"
        rc, text = run("merge", str(tmp_path / "out"), "-o", str(tmp_path / "again"), course=course)
        assert rc == 0, text
        return text

    while_the_code_stands(merge_twice_then_again)
    assert {r["submission"]: r["score"] for r in book(tmp_path / "again")}["submission_101"] == "4"


def test_a_shard_whose_roster_is_gone_is_refused_not_merged_without_names_or_times(tmp_path: Path) -> None:
    from tests.test_class_exports import run
    from tests.test_lateness import course_with_policy, while_the_code_stands
    course = course_with_policy(tmp_path / "course").root
    export = _export(tmp_path / "export", ("submission_101", "submission_104"))

    def shards_then_merge() -> str:
        for k in (1, 2):
            rc, text = run("batch", str(export), "-o", str(tmp_path / f"s{k}"), "--shard", f"{k}/2", "-a", "toy",
                           "--seed", "3", course=course)
            assert rc == 0, text
        (tmp_path / "s2" / "roster.json").unlink()
        rc, text = run("merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "-o", str(tmp_path / "merged"), course=course)
        assert rc != 0 and "has no roster.json" in text, text
        return text

    text = while_the_code_stands(shards_then_merge)
    assert "shard 2/2" in text and not (tmp_path / "merged" / "gradebook.csv").exists()
