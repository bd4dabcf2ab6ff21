"""Images pasted into a written answer reach the TA whole: a PNG, JPEG or GIF attachment (decided by its
bytes) is drawn in report.html and on the feedback page, from bytes we decoded, checked and re-encoded;
anything else is named, never rendered; names are escaped; images the text points at (web addresses,
data: URLs) are named, never fetched; limits bound every image and each submission, and a photo never
makes a notebook ungradable. Real notebooks (nbformat), graded by the real grader, pages parsed."""
from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import struct
import subprocess
import time
import zlib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell, new_notebook

from autograder.grading import attachments
from autograder.grading.attachments import MAX_PIXELS, AttachmentReader, describe, pixel_size, sniff
from autograder.course.batch import run_batch
from autograder.config import Limits
from autograder.course.feedback import answer_html, feedback_name, render_feedback
from autograder.grading.intake import read_submission
from autograder.course.outputs import results_name
from autograder.results import AnswerImage, ManualAnswer, SubmissionResult
from tests.conftest import FIXTURE_SUBS

BEGIN, END = "<!-- BEGIN QUESTION -->", "<!-- END QUESTION -->"


# --- images, made here ------------------------------------------------------------------------------
def png(width: int, height: int, noise: bool = False, color: tuple[int, int, int] = (220, 20, 20)) -> bytes:
    """A real PNG, written by hand with zlib: solid `color`, or random noise (incompressible)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    row = bytes(color) * width
    rows = b"".join(b"\x00" + (os.urandom(3 * width) if noise else row) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))


def jpeg(width: int = 24, height: int = 16) -> bytes:
    from PIL import Image  # matplotlib's dependency; only the test writes images with it
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (20, 40, 220)).save(buf, format="JPEG")
    return buf.getvalue()


def gif(width: int = 5, height: int = 7) -> bytes:
    from PIL import Image
    buf = io.BytesIO()
    Image.new("P", (width, height), 3).save(buf, format="GIF")
    return buf.getvalue()


SVG = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'
HTML = b"<!DOCTYPE html><html><body><script>alert(3)</script><img src=http://evil.example/x></body></html>"
PNG = png(6, 4)
JPEG = jpeg()
GIF = gif()
HOSTILE = 'pr"oof\'><script>alert(4)</script>\n<img src=x onerror=alert(5)>.png'


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def answer_cell(text: str, attached: dict[str, dict[str, object]]) -> nbformat.NotebookNode:
    cell = new_markdown_cell(text)
    cell["attachments"] = attached
    return cell


def notebook(path: Path, *answer_cells: nbformat.NotebookNode, code_from: Path = FIXTURE_SUBS / "good.ipynb") -> Path:
    """The toy course's good notebook with these cells as the answer to Question 3."""
    base = nbformat.read(code_from, as_version=4)
    code = [c for c in base.cells if c.cell_type == "code"]
    nb = new_notebook(cells=[*code, new_markdown_cell(f"{BEGIN}\n**Question q3** Prove it."), *answer_cells,
                             new_markdown_cell(END)])
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return path


def every_kind(path: Path) -> Path:
    """One answer holding every kind of attachment and image reference."""
    split_b64 = "\n".join(b64(PNG)[i:i + 20] for i in range(0, len(b64(PNG)), 20))  # Jupyter may wrap it
    first = answer_cell(
        "Var(q.k) = $d_k$, see the photo:\n![proof.png](attachment:proof.png)\n"
        "a JPEG named .png: ![](attachment:photo.png) and a GIF: <img src=\"attachment:anim.gif\" width=40>\n"
        "an SVG: ![d](attachment:diagram.svg) and HTML in disguise: ![x](attachment:trap.png)\n"
        "broken: ![b](attachment:broken.png) empty: ![e](attachment:empty.png) missing: ![m](attachment:nothere.png)\n"
        "web: ![w](http://evil.example/track.png) <img src='https://evil.example/t.gif'> "
        f"inline: ![i](data:image/png;base64,{b64(PNG)}) file: ![f](proof_on_disk.png)\n"
        f"hostile: ![h](attachment:{quote(HOSTILE)}) again: ![again](attachment:proof.png)",
        {"proof.png": {"image/png": split_b64},
         "photo.png": {"image/png": b64(JPEG)},
         "anim.gif": {"image/gif": b64(GIF)},
         "diagram.svg": {"image/svg+xml": b64(SVG)},
         "trap.png": {"image/png": b64(HTML)},
         "broken.png": {"image/png": "iVBORw0KGgo!!not base64$$"},
         "empty.png": {"image/png": ""},
         HOSTILE: {"image/png": b64(png(3, 3, color=(0, 200, 0)))},
         "unreferenced.gif": {"image/gif": b64(GIF)}})
    # A second cell of the same answer reuses the name proof.png (names are per cell in Jupyter).
    second = answer_cell("and the second page: ![p2](attachment:proof.png)",
                         {"proof.png": {"image/png": b64(png(2, 5, color=(0, 0, 0)))}})
    return notebook(path, first, second)


# --- bytes decide -----------------------------------------------------------------------------------
def test_the_bytes_decide_the_type_not_the_name_or_mime():
    assert (sniff(PNG), sniff(JPEG), sniff(GIF)) == ("png", "jpeg", "gif")
    assert sniff(SVG) is None and sniff(HTML) is None and sniff(b"") is None
    assert (describe(SVG), describe(HTML), describe(b"%PDF-1.7"), describe(b"RIFF\0\0\0\0WEBPVP8 ")) == \
        ("SVG", "HTML", "PDF", "WebP")
    assert pixel_size("png", PNG) == (6, 4) and pixel_size("jpeg", JPEG) == (24, 16) and pixel_size("gif", GIF) == (5, 7)
    assert pixel_size("jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF") is None      # no frame header: not shown


def test_intake_keeps_verified_images_and_names_the_rest(tmp_path):
    sub = read_submission(every_kind(tmp_path / "s.ipynb"))
    (key,) = sub.manual_answers
    images = {i.name: i for i in sub.manual_attachments[key]}
    assert {n: i.kind for n, i in images.items() if i.kind} == {
        "proof.png": "png", "photo.png": "jpeg", "anim.gif": "gif", HOSTILE: "png", "unreferenced.gif": "gif",
        "proof.png (2)": "png"}
    assert base64.b64decode(images["proof.png"].data) == PNG and images["proof.png"].data == b64(PNG)
    assert base64.b64decode(images["photo.png"].data) == JPEG
    assert images["diagram.svg"].note == "an attachment of type SVG, not shown" and not images["diagram.svg"].data
    assert images["trap.png"].note == 'an attachment of type HTML (declared "image/png"), not shown'
    assert "not valid base64" in images["broken.png"].note and images["empty.png"].note == "an empty attachment, not shown"
    # the second cell's proof.png is another image: renamed, and its reference with it
    assert "![](attachment:proof.png%20%282%29)" in sub.manual_answers[key]


def test_limits_bound_each_image_and_the_submission_and_never_reject(tmp_path):
    big, small = png(300, 300, noise=True), png(2, 2)       # 270 KB of noise
    nb = notebook(tmp_path / "s.ipynb",
                  answer_cell("![a](attachment:a.png) ![b](attachment:b.png)",
                              {"a.png": {"image/png": b64(big)}, "b.png": {"image/png": b64(big)}}),
                  answer_cell("![c](attachment:c.png) ![d](attachment:d.png)",
                              {"c.png": {"image/png": b64(small)}, "d.png": {"image/png": b64(png(1000, 1000, noise=True))}}))
    sub = read_submission(nb, Limits(attachment_mb=2, attachments_mb=0.4, notebook_mb=1))
    (images,) = sub.manual_attachments.values()
    notes = {i.name: (i.kind, i.note) for i in images}
    assert notes["a.png"] == ("png", "") and notes["c.png"] == ("png", "")
    assert notes["b.png"][0] is None and "limits.attachments_mb" in notes["b.png"][1]
    assert notes["d.png"][0] is None and "over the limit of 2.0 MiB" in notes["d.png"][1]   # 2.9 MB of noise
    # 100,000 attachments in one cell: 50 read, one line for the rest, in well under a second
    many = {f"{i}.png": {"image/png": b64(small)} for i in range(100_000)}
    cells = [{"cell_type": "markdown", "metadata": {}, "source": text} for text in (BEGIN, "x", END)]
    cells[1]["attachments"] = many                  # plain JSON: nbformat's NotebookNode takes seconds here
    (tmp_path / "many.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}))
    start = time.perf_counter()
    (images,) = read_submission(tmp_path / "many.ipynb").manual_attachments.values()
    assert time.perf_counter() - start < 5
    assert [i.kind for i in images] == ["png"] * attachments.MAX_IMAGES + [None]
    assert images[-1].name == "(99950 more attachments)" and "first 50 attachments" in images[-1].note
    # A header that claims a billion pixels (a few bytes of zlib inflate to gigabytes in a browser)
    bomb = bytearray(png(1, 1))
    bomb[16:24] = struct.pack(">II", 40_000, 40_000)
    reader = AttachmentReader(8, 16)
    _, (image,) = reader.cell({"bomb.png": {"image/png": b64(bytes(bomb))}}, "", set())
    assert image.kind is None and f"more than {MAX_PIXELS // 1_000_000} million" in image.note


def test_a_58_mb_photo_is_not_rejected_by_the_notebook_size_limit(tmp_path):
    photo = png(1400, 1400, noise=True)                       # about 5.9 MB, as the phone photo in the issue
    assert 5.5 * 2**20 < len(photo) < 6.2 * 2**20
    nb = notebook(tmp_path / "photo.ipynb", answer_cell("My proof: ![proof.png](attachment:proof.png)",
                                                        {"proof.png": {"image/png": b64(photo)}}))
    assert nb.stat().st_size > 7 * 2**20                       # 7.5 MiB of base64 in the file
    for limits in (Limits(), Limits(notebook_mb=1)):            # attachments do not count toward notebook_mb
        (images,) = read_submission(nb, limits).manual_attachments.values()
        assert images[0].kind == "png" and base64.b64decode(images[0].data) == photo
    page = answer_html("My proof: ![proof.png](attachment:proof.png)", images)
    assert page.count(b64(photo)) == 1


# --- the pages --------------------------------------------------------------------------------------
class Tags(HTMLParser):
    """Every start tag and its attributes, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def parse(page: str) -> list[tuple[str, dict[str, str]]]:
    parser = Tags()
    parser.feed(page)
    return parser.tags


ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "div", "span", "table",
                "tr", "th", "td", "a", "img", "b", "i", "code", "ul", "li", "br", "section",
                "details", "summary", "pre"}   # the per-test table folds away under the diagnosis (issue 21)


def check_page(page: str) -> list[bytes]:
    """The page holds nothing active, loads nothing, escapes every student string; returns the bytes
    of the attachment images it draws, in order."""
    tags = parse(page)
    assert {t for t, _ in tags} <= ALLOWED_TAGS, {t for t, _ in tags} - ALLOWED_TAGS
    csp = [a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'; img-src data:")
    drawn = []
    for tag, attrs in tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        if tag == "img":
            src = attrs["src"]
            m = re.fullmatch(r"data:(image/(?:png|jpeg|gif|svg\+xml));base64,([A-Za-z0-9+/=]+)", src)
            assert m, src[:100]
            if attrs.get("class") == "attachment":
                data = base64.b64decode(m.group(2), validate=True)
                assert sniff(data) == m.group(1).split("/")[1] and m.group(2) == b64(data)  # ours, canonical
                drawn.append(data)
            else:
                assert attrs.get("class") == "math" or attrs.get("alt") in ("score histogram", "pass rates")
        if tag == "a":
            assert not re.match(r"[a-z]+:", attrs["href"], re.I)          # relative links only
        assert not {"srcset", "action", "formaction", "background", "poster"} & set(attrs), (tag, attrs)
        assert not re.search(r"url\(|expression|@import", attrs.get("style", ""), re.I), (tag, attrs)
    # a student's markup appears only as text: escaped, so no tag, and no attribute, comes from it
    for raw in ("<script", "<svg", "<img src=x", "<iframe", "\x1b"):
        assert raw not in page, raw
    assert b64(SVG) not in page and b64(HTML) not in page
    return drawn


@pytest.fixture(scope="module")
def graded(tmp_path_factory, toy_grader):
    """A class of one graded by the real grader: the notebook with every kind of attachment."""
    where = tmp_path_factory.mktemp("class")
    every_kind(where / "proofs.ipynb")
    out = tmp_path_factory.mktemp("out")
    (result,) = run_batch(where, "toy", out, jobs=1, grader=toy_grader, seed=3)
    assert result.status == "graded" and result.score > 0
    return out, result


def test_report_and_feedback_draw_the_images_and_name_the_rest(graded):
    out, result = graded
    report = (out / "report.html").read_text()
    feedback = (out / "feedback" / feedback_name(result.submission)).read_text()
    for page in (report, feedback):
        drawn = check_page(page)
        # referenced images where the text puts them (proof.png once, though referred to twice), the
        # second cell's proof.png, then the unreferenced GIF after the text
        assert drawn == [PNG, JPEG, GIF, png(3, 3, color=(0, 200, 0)), png(2, 5, color=(0, 0, 0)), GIF]
        for note in ('attachment "diagram.svg": an attachment of type SVG, not shown',
                     'attachment "trap.png": an attachment of type HTML (declared &quot;image/png&quot;), not shown',
                     'attachment "broken.png": an attachment declared &quot;image/png&quot; whose data is not valid base64',
                     'attachment "nothere.png": no attachment of that name in this answer',
                     'attachment "proof.png": shown above',
                     f"![i](data:image/png;base64,{b64(PNG)}) <span class=\"attachment-note\">"
                     "[an image written into the text as a data: URL, not shown]",
                     '![w](http://evil.example/track.png) <span class="attachment-note">[an image from the web, '
                     "not shown: this page loads nothing from the network]",
                     "&lt;img src='https://evil.example/t.gif'&gt; <span",
                     '![f](proof_on_disk.png) <span class="attachment-note">[an image from a file outside'):
            assert note.replace('"', "&quot;") in page or note in page, note
        assert "Attached to this answer, not referred to in its text" in page
        # the hostile name: escaped in the alt text, its newline gone, never markup
        alts = [a["alt"] for t, a in parse(page) if t == "img" and a.get("class") == "attachment"]
        assert attachments.clean_name(HOSTILE) in alts and HOSTILE not in alts
        assert "&lt;script&gt;alert(4)&lt;/script&gt;" in page
    assert "$d_k$" not in feedback and 'class="math"' in feedback           # the text around is still typeset


def test_results_carry_the_images_through_the_journal(graded):
    """merge and a rerun rebuild the pages from the journal: the images are in the stored result."""
    out, result = graded
    import sqlite3
    with sqlite3.connect(out / "journal.sqlite") as db:
        (text,) = db.execute("SELECT result_json FROM graded").fetchone()
    stored = SubmissionResult.model_validate_json(text)
    assert [i.name for i in stored.manual[0].attachments] == [i.name for i in result.manual[0].attachments]
    # results.json (Gradescope) carries the text only, never megabytes of images
    assert b64(JPEG) not in (out / "results" / results_name(result.submission)).read_text()


def test_a_forged_result_cannot_put_other_bytes_on_the_page():
    """Rendering checks the bytes again: a result whose 'png' holds SVG, or whose data is not
    base64, or whose kind is not ours, is not drawn."""
    forged = [AnswerImage(name="a.png", kind="png", data=b64(SVG)),
              AnswerImage(name="b.png", kind="gif", data=b64(PNG)),
              AnswerImage(name="c.png", kind="png", data="<svg onload=alert(1)>")]
    r = SubmissionResult(submission="s", assignment="toy", manual=[ManualAnswer(
        question="q3", text="![a](attachment:a.png) ![b](attachment:b.png) ![c](attachment:c.png)", attachments=forged)])
    page = render_feedback(r)
    assert check_page(page) == [] and page.count("could not be checked, not shown") == 3


def test_reference_scanning_is_linear():
    """20,000 characters of almost-references (the answer cap) split in well under a second."""
    for text in ("![" * 10_000, "![a](" * 4_000, "<img " * 4_000, "![a](<" + "x" * 19_990):
        start = time.perf_counter()
        attachments.split_references(text)
        assert time.perf_counter() - start < 1.0


def test_report_attachment_is_drawn_by_chromium_under_the_page_policy(graded, tmp_path):
    """Headless Chromium draws the report with its Content-Security-Policy: the red proof shows."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium is not installed (make test installs it where apt is available)")
    out, _ = graded
    import matplotlib.image as mpimg
    page = (out / "report.html").read_text()
    head = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', page).group()
    proof = re.search(r'<img class="attachment" alt="proof.png"[^>]*>', page).group()

    def red(body: str, name: str) -> int:
        html = tmp_path / f"{name}.html"
        html.write_text(f'<!doctype html><html><head><meta charset="utf-8">{head}</head>'
                        f'<body style="margin:20px;background:#fff">{body}</body></html>')
        shot = tmp_path / f"{name}.png"
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                        "--window-size=400,300", html.as_uri()], capture_output=True, timeout=120)
        pixels = mpimg.imread(shot)[..., :3]
        return int(((pixels[..., 0] > 0.7) & (pixels[..., 1] < 0.3) & (pixels[..., 2] < 0.3)).sum())

    assert red(proof.replace('class="attachment"', 'class="attachment" style="width:120px"'), "proof") > 1000
    assert red("", "blank") == 0
