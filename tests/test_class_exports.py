"""Class exports through `autograder batch` end to end: a Gradescope export with a group, per-student
folders and a Canvas-named download keep each student's identity into gradebook.csv (one row per
student, one column per question, the rejection reason), canvas.csv and feedback/; hand scores merge
into totals and feedback, a bad hand-scores file stops the batch before grading; and after one hidden
test's points change, a rerun regrades exactly the graded submissions and says why."""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS

METADATA = """\
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1001'
    :email: ada@example.edu
  :created_at: 2024-03-01 10:15:00.000000000 -08:00
submission_102:
  :submitters:
  - :name: Grace Hopper
    :sid: '1002'
    :email: grace@example.edu
  - :name: Alan Turing
    :sid: '1003'
    :email: alan@example.edu
submission_103:
  :submitters:
  - :name: Bob Nonotebook
    :sid: '1004'
"""


def course_copy(where: Path, q3_points: float = 2) -> Path:
    """The fixture course, its hand-graded q3 worth `q3_points`."""
    shutil.copytree(FIXTURE_COURSE, where, ignore=shutil.ignore_patterns("__pycache__"))
    config = yaml.safe_load((where / "grading.yml").read_text())
    config["assignments"]["toy"]["manual_points"] = {"q3": q3_points}
    (where / "grading.yml").write_text(yaml.safe_dump(config))
    return where


def with_proof(src: Path, dest: Path) -> None:
    """The notebook with its written answer to q3 in LaTeX."""
    nb = nbformat.read(src, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "variance adds" in cell.source:
            cell.source = r"Each term has variance 1, so $\mathrm{Var}(q \cdot k) = d_k$."
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest)


def gradescope_export(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "submission_metadata.yml").write_text(METADATA)
    with_proof(FIXTURE_SUBS / "good.ipynb", root / "submission_101" / "toy.ipynb")
    (root / "submission_102").mkdir()
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", root / "submission_102" / "no_scale.ipynb")
    (root / "submission_103").mkdir()
    (root / "submission_103" / "README.txt").write_text("I forgot to upload it")
    return root


def run(*args: str, course: Path) -> tuple[int, str]:
    """`python -m autograder.cli ARGS` with AUTOGRADER_COURSE=course: (exit status, output)."""
    env = dict(os.environ, AUTOGRADER_COURSE=str(course))
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", *args], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=400)
    return proc.returncode, proc.stdout


def book(outdir: Path) -> list[dict[str, str]]:
    with open(outdir / "gradebook.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_gradescope_export_hand_scores_feedback_and_regrade(tmp_path):
    course = course_copy(tmp_path / "course")
    export = gradescope_export(tmp_path / "export")
    out = tmp_path / "out"

    # A bad hand-scores file stops the batch before anything is graded, every bad row named.
    bad = tmp_path / "bad.csv"
    bad.write_text("sid,question,score,comment\n9999,q3,1,who?\n1001,q3,7,too many\n")
    rc, text = run("batch", str(export), "-a", "toy", "-o", str(out), "--hand-scores", str(bad), course=course)
    assert rc == 2, text
    assert "row 2" in text and "9999" in text and "row 3" in text and "above the 2 points" in text, text
    assert not (out / "journal.sqlite").exists()

    hand = tmp_path / "hand.csv"
    hand.write_text("sid,question,score,comment\n1001,q3,2,Clear proof.\n1003,q3,1,Independence not stated.\n")
    rc, text = run("batch", str(export), "-a", "toy", "-o", str(out), "-j", "2", "--hand-scores", str(hand),
                   course=course)
    assert rc == 0, text
    rows = {r["name"]: r for r in book(out)}
    assert set(rows) == {"Ada Lovelace", "Grace Hopper", "Alan Turing", "Bob Nonotebook"}
    ada, grace, alan, bob = (rows[n] for n in ("Ada Lovelace", "Grace Hopper", "Alan Turing", "Bob Nonotebook"))
    assert (ada["sid"], ada["email"], ada["submission"]) == ("1001", "ada@example.edu", "submission_101")
    # hidden tests 4 points + hand-graded q3 2 points; one column per question
    assert (ada["score"], ada["max_score"], ada["q1"], ada["q2"], ada["q3"]) == ("6", "6", "3", "1", "2")
    # the group: both members, the group's score, Alan's sid found the group's submission
    assert grace["submission"] == alan["submission"] == "submission_102" and grace["group_size"] == "2"
    assert grace["score"] == alan["score"] and grace["q3"] == alan["q3"] == "1"
    assert float(grace["q1"]) < 3 and "no_scale" in grace["misconceptions"]
    assert bob["status"] == "rejected" and "no .ipynb or .py file found" in bob["reason"] and bob["score"] == "0"
    assert bob["max_score"] == "6"
    # the results file of a submission says what the gradebook says, hand score included
    from autograder.course.outputs import results_name
    results_101 = json.loads((out / "results" / results_name("submission_101")).read_text())
    assert results_101["score"] == 6, results_101["score"]

    with open(out / "canvas.csv", newline="") as fh:
        canvas = list(csv.DictReader(fh))
    assert {r["SIS User ID"] for r in canvas} == {"1001", "1002", "1003", "1004"}

    feedback = {p.name for p in (out / "feedback").iterdir()}
    assert feedback == {"submission_101.html", "submission_102.html", "submission_103.html"}
    page = (out / "feedback" / "submission_101.html").read_text()
    assert "Ada Lovelace" in page and "Clear proof." in page and "2 / 2" in page
    assert "data:image/svg+xml;base64," in page  # the proof's formula, typeset offline
    assert "Independence not stated." in (out / "feedback" / "submission_102.html").read_text()

    report = (out / "report.html").read_text()
    assert 'id="question-averages"' in report and 'href="feedback/submission_101.html"' in report
    assert "Ada Lovelace" in report and "Alan Turing" in report  # the students behind no_scale
    written = report.split("Written answers")[1].split('id="submissions"')[0]
    assert "data:image/svg+xml;base64," in written and "$" not in written  # typeset, not raw LaTeX
    assert "no .ipynb or .py file found" in report
    assert (out / "roster.json").is_file()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser:  # what a browser draws, offline: the typeset proof and the new tables
        for page, mark in ((out / "report.html", 'id="question-averages"'),
                           (out / "feedback" / "submission_101.html", "Clear proof.")):
            dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                  "--disable-background-networking", f"--user-data-dir={tmp_path / 'profile'}",
                                  "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
            assert dom.returncode == 0 and "data:image/svg+xml;base64," in dom.stdout, dom.stderr[-800:]
            assert mark in dom.stdout

    # Unchanged: nothing is graded again, and the hand scores are kept without the file.
    rc, text = run("batch", str(export), "-a", "toy", "-o", str(out), course=course)
    assert rc == 0 and "0 graded now, 2 already in the journal" in text and "regraded" not in text, text
    assert {r["name"]: r["score"] for r in book(out)}["Ada Lovelace"] == "6"

    # One hidden test's points change from 2 to 6: exactly the graded submissions are regraded.
    q1 = course / "assignments" / "toy" / "hidden" / "q1.py"
    q1.write_text(q1.read_text().replace("@test_case(points=2, hidden=True)", "@test_case(points=6, hidden=True)", 1))
    rc, text = run("batch", str(export), "-a", "toy", "-o", str(out), course=course)
    assert rc == 0, text
    assert "2 regraded: the hidden tests changed" in text and "2 graded now, 0 already in the journal" in text, text
    assert "score changed: submission_101: 4/4 -> 8/8 (the hidden tests changed)" in text, text
    rows = {r["name"]: r for r in book(out)}
    assert (rows["Ada Lovelace"]["score"], rows["Ada Lovelace"]["max_score"]) == ("10", "10")
    assert rows["Bob Nonotebook"]["max_score"] == "10"
    report = (out / "report.html").read_text()
    assert 'id="changes"' in report and "4 / 4" in report and "8 / 8" in report

    # --regrade forces it; the scores stay.
    rc, text = run("batch", str(export), "-a", "toy", "-o", str(out), "--regrade", course=course)
    assert rc == 0 and "2 regraded: --regrade" in text, text
    assert {r["name"]: r["score"] for r in book(out)}["Ada Lovelace"] == "10"


def test_per_student_folders_and_canvas_download(tmp_path):
    course = course_copy(tmp_path / "course")
    folders = tmp_path / "folders"
    with_proof(FIXTURE_SUBS / "good.ipynb", folders / "alice" / "work" / "toy.ipynb")
    (folders / "bob").mkdir()
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", folders / "bob" / "homework.ipynb")
    (folders / "carol").mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", folders / "carol" / "draft.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", folders / "carol" / "final.ipynb")
    rc, text = run("batch", str(folders), "-a", "toy", "-o", str(tmp_path / "out1"), "-j", "2", course=course)
    assert rc == 0, text
    rows = {r["name"]: r for r in book(tmp_path / "out1")}
    assert set(rows) == {"alice", "bob", "carol"}
    assert rows["alice"]["q1"] == "3" and rows["alice"]["status"] == "graded"
    assert rows["alice"]["q3"] == "0" and "awaiting hand grading: q3" in rows["alice"]["reason"]
    assert rows["bob"]["misconceptions"] == "no_scale"
    assert rows["carol"]["status"] == "rejected" and "several .ipynb files" in rows["carol"]["reason"]
    assert "not gradable: carol" in text

    canvas = tmp_path / "canvas"
    canvas.mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", canvas / "smithjohn_1234_56789_toy.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", canvas / "doejane_late_2222_77777_toy-1.ipynb")
    hand = tmp_path / "hand.csv"
    hand.write_text("sid,question,score,comment\n1234,q3,1.5,ok\n")
    rc, text = run("batch", str(canvas), "-a", "toy", "-o", str(tmp_path / "out2"), "-j", "2",
                   "--hand-scores", str(hand), course=course)
    assert rc == 0, text
    rows = {r["lms_id"]: r for r in book(tmp_path / "out2")}
    assert set(rows) == {"1234", "2222"}
    assert rows["1234"]["name"] == "smithjohn" and rows["1234"]["score"] == "5.5" and rows["1234"]["q3"] == "1.5"
    assert rows["2222"]["late"] == "yes" and rows["2222"]["q3"] == "0"
    with open(tmp_path / "out2" / "canvas.csv", newline="") as fh:
        assert {r["ID"]: r["toy attention"] for r in csv.DictReader(fh)} == {"1234": "5.5",
                                                                            "2222": rows["2222"]["score"]}


def test_demo_export_is_a_gradescope_export_with_a_group(tmp_path):
    """What `make demo` grades besides examples/submissions: read here without grading."""
    from autograder.course.exports import discover
    from tests.conftest import ROOT
    found = discover(ROOT / "examples" / "exports" / "gradescope-sdpa", "sdpa-from-scratch", tmp_path)
    assert found.layouts == ["gradescope"] and not found.problems and not found.warnings
    who = {e.key: [s.name for s in e.submitters] for e in found.entries}
    assert who == {"submission_1001": ["Ada Lovelace"], "submission_1002": ["Grace Hopper", "Alan Turing"],
                   "submission_1003": ["Katherine Johnson"]}
    assert "examples/exports/gradescope-sdpa" in (ROOT / "Makefile").read_text()


def test_shards_of_an_export_merge_into_one_batch_gradebook(tmp_path):
    """Each shard writes its share of the roster; merge joins rosters and hand scores, so the merged
    gradebook (identities, groups, rejected folders, hand scores) equals one batch's."""
    course = course_copy(tmp_path / "course")
    export = gradescope_export(tmp_path / "export")
    hand = tmp_path / "hand.csv"
    hand.write_text("sid,question,score,comment\n1001,q3,2,Clear proof.\n1002,q3,1,Half.\n")
    common = ["-a", "toy", "-j", "1", "--seed", "5", "--hand-scores", str(hand)]
    rc, text = run("batch", str(export), "-o", str(tmp_path / "whole"), *common, course=course)
    assert rc == 0, text
    for k in (1, 2):
        rc, text = run("batch", str(export), "-o", str(tmp_path / f"s{k}"), "--shard", f"{k}/2", *common,
                       course=course)
        assert rc == 0, text
    rc, text = run("merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "-o", str(tmp_path / "merged"), course=course)
    assert rc == 0, text
    assert book(tmp_path / "merged") == book(tmp_path / "whole")
    assert {r["name"] for r in book(tmp_path / "merged")} == {"Ada Lovelace", "Grace Hopper", "Alan Turing",
                                                             "Bob Nonotebook"}
    assert {p.name for p in (tmp_path / "merged" / "feedback").iterdir()} == \
        {p.name for p in (tmp_path / "whole" / "feedback").iterdir()}


def test_the_fingerprint_covers_the_grader_code_not_only_its_version(monkeypatch) -> None:
    """A fix to the grader between two releases changes scores as surely as a changed hidden test:
    a resumed batch must regrade then, so the fingerprint digests the package's files."""
    from autograder.course import fingerprint
    from autograder.config import Course, load_config
    course = Course(FIXTURE_COURSE, load_config(FIXTURE_COURSE / "grading.yml"))
    first, parts = fingerprint.grading_fingerprint(course, "toy")
    real = fingerprint.tree_digest
    package = Path(fingerprint.__file__).resolve().parents[1]  # the whole autograder package
    monkeypatch.setattr(fingerprint, "tree_digest", lambda root: "edited" if root == package else real(root))
    second, new_parts = fingerprint.grading_fingerprint(course, "toy")
    assert first != second
    assert fingerprint.why_regraded(parts, new_parts) == "the autograder code changed"
