"""Red-team round 87: what grows with the class (batch costs that grow faster than the class, and costs one
student's submission multiplies for the whole class).

Measured with synthetic classes at n = 100, 400 and 1600 (repros in /tmp/rt87/: outputs.py writes gradebook.csv,
canvas.csv, feedback/, report.html and sets aside stale files for N fabricated results, the real results of three
graded notebooks under N Gradescope names, with a name 100,000 characters long on one; simfam.py is
bench/bench_similarity.py's class with F solution families instead of 22). Held: every output writer grew
linearly (at 1600: feedback 1.5 s, report 0.17 s, gradebook and canvas under 0.1 s), and one 100,000-character
name adds its length a few times to each file, not once per row. The journal is read once per submission by
primary key.

- **report.html embedded every written answer's images, the whole class's on one page.** Each submission may attach
  `attachments_mb` (16 MB) of images to its written answers, and the report draws every one as a data: URL: 100
  students with a 4 MB phone photo of their proof each made a 559 MB report.html and 2.2 GB of peak memory to render
  it (n = 25: 140 MB, 613 MB), so a class of 1,600 a page of about 9 GB that the batch runs out of memory writing,
  after every grade. Now the page embeds at most MAX_REPORT_IMAGE_BYTES (64 MB of base64, all answers together);
  past that an answer's images are named, each with where to see it (the submission's feedback page, which shows
  them): the same 100 students, a 62 MB page and 308 MB.
- **report.html typeset every written answer's formulas again, each answer with its own budget.** An answer may
  take feedback.MATH_SECONDS (10 s) and MAX_SVG_BYTES (3 MB) of typesetting, and the report renders the class's
  answers after their feedback pages (whose typesetting cache, 4,096 formulas, a class outgrows): 20 proofs of 80
  formulas each took 64 s and 34 MB, of 10 formulas 6 s and 4 MB (a loaded machine), so a class of 1,600 hours and
  gigabytes at the batch's end. Now the page typesets at most MAX_REPORT_MATH_SECONDS (120 s) and
  MAX_REPORT_MATH_BYTES (64 MB) for the class; past that an answer's formulas are its LaTeX source, said in a note
  above the answers (each feedback page typesets its own).
- **Discovery.merged (merge of shards) was quadratic in the export's warnings and skipped files.** Every shard's
  roster holds the whole export's skipped files and warnings, and merged tested each against the growing list: a
  Canvas download where one student uploaded 20,000 images beside the notebook (one skipped name each) merged four
  shards in 5.2 s, 50,000 (the export's limit on top-level entries) in 59 s of CPU, 16 shards in minutes. Now a set
  of what earlier shards said; order and what is listed are unchanged.
- **The similarity page listed every pair above the floor, and compare held them all.** `similarity.compare`
  gathered every pair's shared passages into one dict before scoring any (pairs x shared hashes Python ints), kept
  every scored pair's token marks, and write_report put every pair on similarity.html and in similarity.csv. The
  pairs of a class grow with the square of its size wherever several students write the answer alike: with six
  common ways of writing it (each below COMMON_SHARE, 20% of the class, so none is dropped as too common) the
  class of 1,600 had 212,534 pairs above the floor: 34 s, 843 MB peak RSS, a 46 MB similarity.html and a 10 MB
  CSV (n = 100: 784 pairs, 1.2 MB; n = 400: 13,134 pairs, 3.8 MB). Now `compare_listed` scores one submission's
  pairs at a time, keeps the best MAX_LISTED (5,000) with their marks, and counts the rest; the page says how many
  scored and that only the best are listed, and the batch's notes say it too. The same class: 20 s, 187 MB, a
  2.1 MB page. `compare` still returns every pair (tests, callers that want them all).
"""
from __future__ import annotations

import csv
import io
import re

from autograder.config import find_course
from autograder.course import similarity as sim
from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
FIXTURES = ROOT / "tests" / "fixtures" / "similarity"


def _class_of_families(families: int, copies: int) -> dict[str, sim.StoredSubmission]:
    """`families` independent solutions, each handed in by `copies` students (no family is over COMMON_SHARE)."""
    course = find_course(ROOT)
    names = sim.compared_names(course, SLUG)
    sources = [p.read_text() for p in sorted((FIXTURES / "class").glob("*.py"))][:families]
    return {f"f{f}_s{c:03d}": sim.extract([source], names) for f, source in enumerate(sources) for c in range(copies)}


def test_the_similarity_page_lists_a_bounded_number_of_pairs_and_says_how_many_scored(tmp_path, monkeypatch):
    course = find_course(ROOT)
    stored = _class_of_families(6, 25)      # 150 submissions: 6 x 300 = 1,800 pairs of copies, all above the floor
    assert sim.common_limit(len(stored)) >= 25
    monkeypatch.setattr(sim, "MAX_LISTED", 100, raising=False)
    pairs = sim.write_report(stored, course, SLUG, tmp_path)
    with open(tmp_path / "similarity.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    page = (tmp_path / "similarity.html").read_text(encoding="utf-8")
    table = page[page.index('<table id="pairs">'):page.index("</table>")]
    assert len(rows) == len(pairs) == 100
    assert table.count("<tr") == 101        # the header and the pairs listed
    assert "1800 pairs score" in page
    # the ones listed are the best of all of them, in the same order
    names = sim.compared_names(course, SLUG)
    boilerplate = sim.class_boilerplate(course, SLUG, names)
    docs = [sim.fingerprint(k, s, boilerplate, names) for k, s in sorted(stored.items())]
    every, _ = sim.compare(docs, course.settings(SLUG).similarity.floor)
    assert len(every) == 1800
    assert [p.keys for p in pairs] == [p.keys for p in every[:100]]
    assert [(r["a"], r["b"]) for r in rows] == [p.keys for p in every[:100]]
    notes: list[str] = []   # and the batch's notes (the terminal) say it
    sim.write_report(stored, course, SLUG, tmp_path, warnings=notes)  # type: ignore[call-arg]
    assert any("1800 pairs" in n for n in notes), notes


def test_a_class_under_the_limit_is_listed_whole_without_a_note(tmp_path):
    course = find_course(ROOT)
    stored = _class_of_families(3, 4)
    pairs = sim.write_report(stored, course, SLUG, tmp_path)
    assert len(pairs) == 3 * 6
    assert not re.search(r"\d+ pairs score", (tmp_path / "similarity.html").read_text(encoding="utf-8"))
    assert len(list(csv.reader(io.StringIO((tmp_path / "similarity.csv").read_text())))) == 1 + 18


def test_merging_shard_rosters_is_linear_in_the_files_they_skipped():
    """Every shard's roster holds the whole export's skipped files (shard_part keeps them all): a Canvas student who
    uploaded 50,000 images beside the notebook (the export's limit on top-level entries) put 50,000 names in each,
    and Discovery.merged tested each against the growing list (measured: 20,000 over four shards 5.2 s, 16,000 6.8 s
    on a loaded machine; 50,000 is ~6 times 20,000's work)."""
    import time

    from autograder.course.exports import Discovery
    many = [f"mallory_999_4999_img{k}.png" for k in range(50_000)]
    said = [f"{k} is a symbolic link: not followed" for k in range(50_000)]
    parts = [Discovery.model_construct(entries=[], problems=[], warnings=list(said), skipped=list(many), layouts=["canvas"])
             for _ in range(4)]
    started = time.process_time()
    merged = Discovery.merged(parts)
    assert time.process_time() - started < 5.0      # linear: well under a second; quadratic: half a minute or more
    assert merged.skipped == many and merged.warnings == said
    # what an earlier shard said is not repeated, and a part's own order is kept
    two = Discovery.merged([Discovery(skipped=["b", "a"], warnings=["x"]), Discovery(skipped=["a", "c"], warnings=["x", "y"])])
    assert two.skipped == ["b", "a", "c"] and two.warnings == ["x", "y"]


def test_report_html_embeds_a_bounded_amount_of_images_and_names_the_rest(tmp_path, monkeypatch):
    import base64
    import os
    import struct
    import zlib

    from autograder.course import report
    from autograder.results import AnswerImage, ManualAnswer, SubmissionResult, TestReport

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    photo = base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 300, 400, 8, 2, 0, 0, 0))
                             + chunk(b"IDAT", os.urandom(30_000)) + chunk(b"IEND", b"")).decode()
    monkeypatch.setattr(report, "MAX_REPORT_IMAGE_BYTES", 3 * len(photo) + 10, raising=False)
    results = [SubmissionResult(submission=f"s{i:02d}", assignment=SLUG, score=1.0, max_score=1.0,
                                tests=[TestReport(question="q1", name="a", device="cpu", max_score=1.0, score=1.0,
                                                  status="passed")],
                                manual=[ManualAnswer(question="q3", text=f"proof {i} ![p](attachment:proof.png)",
                                                     attachments=[AnswerImage(name="proof.png", kind="png", data=photo)])])
               for i in range(20)]
    page = report.write_report(results, find_course(ROOT), SLUG, tmp_path).read_text(encoding="utf-8")
    assert page.count('<img class="attachment"') == 3          # the first three answers' photos, no more
    assert page.count(photo) == 3 and len(page) < 6 * len(photo)
    assert page.count("shown on this submission&#x27;s feedback page") == 17     # each other one named, with where
    assert all(f"proof {i}" in page for i in range(20))         # every answer's text is still there


def test_report_html_typesets_a_bounded_amount_of_formulas_for_the_class(tmp_path, monkeypatch):
    from autograder.course import report
    from autograder.results import ManualAnswer, SubmissionResult

    monkeypatch.setattr(report, "MAX_REPORT_MATH_BYTES", 1, raising=False)   # spent by the first answer
    results = [SubmissionResult(submission=f"s{i}", assignment=SLUG, manual=[ManualAnswer(
        question="q3", text=f"so $\\mathrm{{Var}}(q_{i} k_{i}) = {i}$ and $d_{{{i}}} + 1$")]) for i in range(5)]
    page = report.write_report(results, find_course(ROOT), SLUG, tmp_path).read_text(encoding="utf-8")
    assert page.count('<img class="math"') == 2                 # the first answer's two formulas
    assert page.count("LaTeX source: not typeset") == 8          # the others' shown as written
    assert "The formulas of 4 answer(s) below are shown as their LaTeX source" in page
