"""Red-team round 95: what the instructor's browser loads from a student's written answer.

Tried (/tmp/rt95/): remote images and links in markdown and HTML (`![](https://...)`, `<img src srcset>`, CSS
url(), `<link>`, `<iframe>`, `<object>`, meta refresh), javascript: and data: URLs, SVG and HTML attachments, a
MIME type that lies, and LaTeX meant to become links or loop (\\href, \\url, \\includegraphics, \\def): every
answer is escaped text under a Content-Security-Policy that allows only data: images, a non-image attachment is
named, and mathtext typesets none of those commands. Two holes were in what the pages make the browser decode:

- A GIF's size was read from its logical screen only. Firefox and Chromium grow the canvas to a first frame larger
  than the screen (a workaround for broken GIFs), so a 60-byte GIF with a 1x1 screen and a 30000 x 30000 frame was
  embedded (3.6 GB of RGBA, computed). Measured: AttachmentReader kept it and image_html drew it; headless Chromium
  gives a 1x1-screen GIF with a 3000 x 2000 frame a naturalWidth x naturalHeight of 3000 x 2000. Now the size is the
  screen grown to every frame's bounds (`attachments._gif_bounds`, one linear walk of the blocks).
- The 64-megapixel bound was per image: a 1-bit PNG of one colour at 8000 x 8000 is 8 KB, so one submission's
  attachments_mb held 50 of them (12.8 GB of RGBA on its feedback page) and report.html's 64 MB thousands.
  Measured: all 50 kept. Now a submission's shown images hold at most MAX_SUBMISSION_PIXELS (128 million) and
  report.html's at most MAX_REPORT_PIXELS (256 million); the rest are named, as images past the byte limits are.
"""
from __future__ import annotations

import base64
import struct
import zlib

from autograder.config import find_course
from tests.conftest import ROOT

SLUG = "scaled-attention"


def _gif(screen: tuple[int, int], frame: tuple[int, int], extension: bool = True) -> bytes:
    out = b"GIF89a" + struct.pack("<HH", *screen) + bytes([0x80, 0, 0]) + b"\x00\x00\x00\xff\xff\xff"
    if extension:   # a graphic control extension before the frame, as animated GIFs have
        out += b"\x21\xf9\x04\x00\x00\x00\x00\x00"
    out += b"\x2c" + struct.pack("<HHHH", 0, 0, *frame) + b"\x00" + b"\x02\x02\x4c\x01\x00"
    return out + b"\x3b"


def _bomb_png(side: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    rows = zlib.compress(b"".join(b"\x00" + bytes((side + 7) // 8) for _ in range(side)), 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", rows) + chunk(b"IEND", b""))


def _read(images: dict[str, bytes]) -> list:
    from autograder.grading.attachments import AttachmentReader
    bundles = {name: {"image/png": base64.b64encode(data).decode()} for name, data in images.items()}
    return AttachmentReader(8, 16).cell(bundles, "", set())[1]


def test_a_gif_whose_first_frame_is_larger_than_its_screen_is_not_drawn():
    from autograder.grading.attachments import image_html
    from autograder.results import AnswerImage
    bomb, honest = _read({"bomb.gif": _gif((1, 1), (30000, 30000)), "ok.gif": _gif((200, 100), (200, 100))})
    assert bomb.kind is None and "30000 x 30000" in bomb.note
    assert honest.kind == "gif"
    forged = AnswerImage(name="bomb.gif", kind="gif", data=base64.b64encode(_gif((1, 1), (30000, 30000), False)).decode())
    assert "<img" not in image_html(forged)                   # a results file written past intake: checked again


def test_a_submission_s_images_together_are_bounded_in_pixels():
    images = _read({f"p{i}.png": _bomb_png(8000) for i in range(50)})
    shown = [a for a in images if a.kind]
    assert len(shown) == 2                                    # 128 million pixels: two 64-megapixel images
    assert "million pixels" in images[-1].note


def test_report_embeds_a_bounded_number_of_pixels_for_the_class(tmp_path):
    from autograder.course import report
    from autograder.results import AnswerImage, ManualAnswer, SubmissionResult
    bomb = base64.b64encode(_bomb_png(8000)).decode()
    results = [SubmissionResult(submission=f"s{i}", assignment=SLUG, manual=[ManualAnswer(
        question="q3", text="proof", attachments=[AnswerImage(name="p.png", kind="png", data=bomb)])]) for i in range(10)]
    page = report.write_report(results, find_course(ROOT), SLUG, tmp_path).read_text(encoding="utf-8")
    assert page.count(bomb) == 4                              # 256 million pixels of 640 million
