"""Red-team round 92: budgets the class shares, spent by one student.

report.html's class-wide caps (round 87) were handed out first come, first served in the class's order (submission
keys, alphabetical), so a submission named to sort first could spend them for its classmates. Measured with
fabricated results (repros in /tmp/rt92/: repro_images.py, repro_math.py) at the real limits:

- **Images.** 14 students with a 3 MB phone photo of their proof (4 MB of base64 each, 56 MB: within
  MAX_REPORT_IMAGE_BYTES, 64 MB) all had their photo embedded; one more submission, "aaa", attaching its allowed
  attachments_mb (16 MB) pushed three classmates' photos out of the page (11 of 14 embedded). Now the budget goes to
  the submissions that attach least first (ties in the class's order), an answer's images still all or none: the
  same class embeds all 14 and names aaa's, left to its feedback page.
- **Formulas.** Each answer was typeset with its own feedback budget (MATH_SECONDS, 10 s; MAX_FORMULAS; 3 MB) in the
  class's order: one answer of 80 formulas took 10.1 s of the class's 120 s, so twelve such submissions (a group, one
  student under several names) took it all and every classmate's proof was shown as LaTeX source; with the class
  budget scaled to 9 s, one such "aaa" turned all 20 classmates' answers to source. Now submissions are typeset
  least LaTeX first, each with one budget for all its answers (what its feedback page gets), never past what the
  class has left: the scaled class typesets all 20 classmates and leaves aaa's rest as source.
- **The terminal's note of skipped files.** `batch` names the first five files of the class that are no submission
  (round 91: a student who handed in only `hw.ipynb.txt` has no row anywhere), in the folder's order. In a Canvas
  download a student who uploaded six extra files beside their notebook (a PDF of it, data), named to sort first, filled
  the note, and the classmate with no row was not named (repro_skipped.py). Now the note names the files of students
  with no row first, one per student in turn (a Canvas user id; else each file), then the extras of students graded
  anyway; roster.json still lists them all in the folder's order.

The similarity page's MAX_LISTED (5,000 best pairs) was looked at and not changed: a group's near-copies fill it only
with about a hundred copies of one notebook (k copies make k(k-1)/2 pairs), and a real copy scoring above them stays
listed; those pairs are themselves what the page is for (with MAX_LISTED = 15, six copies of one notebook named to
sort first did push out a real copy scoring 0.84: repro_similarity.py; the page says how many more pairs scored). Nor
the class's unpacked-zip budget (class_zip_bytes, 4 GB): one student's zips may take zip_bytes (50 MB) of it, 1/82.
"""
from __future__ import annotations

import base64
import struct
import zlib

from autograder.config import find_course
from tests.conftest import ROOT

SLUG = "scaled-attention"


def _png(size: int, seed: int) -> str:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    body = bytes((seed * 7919 + k * 31) % 251 for k in range(size))
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 300, 400, 8, 2, 0, 0, 0))
                            + chunk(b"IDAT", body) + chunk(b"IEND", b"")).decode()


def test_one_submission_attaching_most_does_not_push_classmates_photos_out_of_the_report(tmp_path, monkeypatch):
    from autograder.course import report
    from autograder.results import AnswerImage, ManualAnswer, SubmissionResult

    photos = [_png(20_000, i) for i in range(6)]
    hog = [_png(20_000, 100 + k) for k in range(4)]      # four photos: the most one submission may attach, say
    monkeypatch.setattr(report, "MAX_REPORT_IMAGE_BYTES", sum(map(len, photos)) + 10, raising=False)  # the class fits

    def sub(key: str, images: list[str]) -> SubmissionResult:
        return SubmissionResult(submission=key, assignment=SLUG, manual=[ManualAnswer(question="q3", text=f"proof of {key}",
                                attachments=[AnswerImage(name=f"p{k}.png", kind="png", data=d) for k, d in enumerate(images)])])
    results = [sub("aaa", hog)] + [sub(f"student{i}", [p]) for i, p in enumerate(photos)]   # "aaa" sorts first
    page = report.write_report(results, find_course(ROOT), SLUG, tmp_path).read_text(encoding="utf-8")
    assert all(p in page for p in photos)                    # every classmate's photo embedded
    assert not any(h in page for h in hog)                   # the one who attached most is the one left out
    assert page.count("shown on this submission&#x27;s feedback page") == 4
    assert page.index("proof of aaa") < page.index("proof of student0")     # listed in the class's order still


def test_one_submission_with_most_formulas_does_not_spend_classmates_typesetting(tmp_path, monkeypatch):
    from autograder.course import feedback, report
    from autograder.results import ManualAnswer, SubmissionResult

    feedback._typeset.cache_clear()
    honest = [f"so $\\mathrm{{Var}}(q_{i} k_{i}) = d_{{{i}}}$" for i in range(5)]
    heavy = "\n".join(f"$$\\sum_{{i={k}}}^{{n}} \\frac{{x_{{i}}^{{2}}}}{{\\sqrt{{y_{{{k}}}}}}}$$" for k in range(12))
    one = len(feedback.answer_html(honest[0]))
    monkeypatch.setattr(report, "MAX_REPORT_MATH_BYTES", 5 * one + 1, raising=False)   # the classmates' five fit
    results = [SubmissionResult(submission="aaa", assignment=SLUG, manual=[ManualAnswer(question="q3", text=heavy)])] + [
        SubmissionResult(submission=f"student{i}", assignment=SLUG, manual=[ManualAnswer(question="q3", text=t)])
        for i, t in enumerate(honest)]
    page = report.write_report(results, find_course(ROOT), SLUG, tmp_path).read_text(encoding="utf-8")
    for i in range(5):
        assert f"alt=\"\\mathrm{{Var}}(q_{i} k_{i}) = d_{{{i}}}\"" in page     # each classmate's formula typeset
    assert "The formulas of 1 answer(s) below are shown as their LaTeX source" in page   # aaa's, and only aaa's
    assert page.index("\\sum_{i=0}") < page.index("Var}(q_0")     # listed in the class's order still


def test_a_submission_s_answers_share_one_typesetting_budget_in_the_report(tmp_path, monkeypatch):
    from autograder.course import feedback, report
    from autograder.results import ManualAnswer, SubmissionResult

    monkeypatch.setattr(feedback, "MAX_FORMULAS", 3)
    answers = [ManualAnswer(question=q, text=" ".join(f"${q}_{{{k}}}$" for k in range(3))) for q in ("q3", "q4")]
    results = [SubmissionResult(submission="s0", assignment=SLUG, manual=answers)]
    page = report.write_report(results, find_course(ROOT), SLUG, tmp_path).read_text(encoding="utf-8")
    assert page.count('<img class="math"') == 3           # what its feedback page gets for all its answers, not each
    assert page.count("LaTeX source: not typeset") == 3


def test_a_classmate_s_extra_uploads_do_not_hide_a_student_with_no_row_from_the_skipped_note(tmp_path):
    import shutil

    from autograder.course.exports import discover, skipped_note

    notebook = next((ROOT / "examples" / "submissions").rglob("*.ipynb"))
    root = tmp_path / "class"
    root.mkdir()
    for who, uid in (("aaronadams", 11), ("bellabrown", 12)):      # a Canvas download
        shutil.copy(notebook, root / f"{who}_{uid}_{100 + uid}_scaled_attention.ipynb")
    for k in range(6):     # aaron's extra uploads beside his notebook: he has a row
        (root / f"aaronadams_11_111_extra{k}.pdf").write_bytes(b"%PDF-1.4")
    (root / "ginagreen_14_114_scaled_attention.ipynb.txt").write_text("{}")     # gina's only file: no row at all
    (root / "hankhill_15_115_a.docx").write_bytes(b"x")
    (root / "hankhill_15_115_b.docx").write_bytes(b"x")
    found = discover(root, SLUG, tmp_path / "scratch")
    assert sorted(e.key for e in found.entries) == ["aaronadams_11_111", "bellabrown_12_112"]
    note = skipped_note(found)
    assert note is not None and "and 4 more" in note
    named = note.split(": ", 1)[1].split(" and 4 more")[0].split(", ")
    # who has no row first, one file each in turn, then the extras of a student who has one
    assert named == ["ginagreen_14_114_scaled_attention.ipynb.txt", "hankhill_15_115_a.docx", "hankhill_15_115_b.docx",
                     "aaronadams_11_111_extra0.pdf", "aaronadams_11_111_extra1.pdf"]
