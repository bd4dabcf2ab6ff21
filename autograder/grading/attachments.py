"""Images pasted into written answers (Jupyter markdown attachments): read, checked, shown.

Jupyter keeps an image pasted into a markdown cell in the cell itself,
`cell["attachments"] = {"proof.png": {"image/png": "<base64>"}}`, and the cell's text refers to it:
`![proof.png](attachment:proof.png)`. Intake (`AttachmentReader`) decodes each attachment of a written
answer and lets its bytes decide what it is: PNG, JPEG and GIF (by their magic bytes and a header that
gives the picture's size) are kept, re-encoded by us; the declared MIME type and the name decide
nothing. Anything else (SVG and HTML can hold script and load from the network; PDF, WebP, HEIC...) is
kept only as a sentence that names it: "an attachment of type SVG, not shown".

Limits (grading.yml): `attachment_mb` per image and `attachments_mb` per submission, in decoded bytes.
Attachments are taken out of the notebook before `notebook_mb` is measured, as outputs are: they are
never graded, and a photo must never make a submission ungradable. An image past a limit is named, not
shown; `upload_mb` still bounds the file as a whole. What a browser decodes is bounded too: MAX_PIXELS per image
(a GIF's every frame counted) and MAX_SUBMISSION_PIXELS for a submission's shown images together.

Rendering (`image_html`, `reference_html`) checks the bytes again and draws `<img src="data:...">`
from them; every name is escaped. An image the student wrote into the text itself (a data: URL, an
http:// address, a file path, in markdown or an <img> tag) is named, never fetched or drawn."""
from __future__ import annotations

import base64
import binascii
import html
import re
from dataclasses import dataclass
from typing import Iterator, Optional, Union, cast
from urllib.parse import quote, unquote

from autograder.results import AnswerImage, ImageKind

MAX_IMAGES = 50               # attachments read per submission; the rest of a cell's are one line, not read
MAX_NAME_CHARS = 200          # of an attachment's name, kept
# A picture's size as its header states it: a 5 MB PNG can inflate to a billion pixels (a few GB in
# the browser that draws it). 64 million pixels holds a 48-megapixel phone photo.
MAX_PIXELS = 64_000_000
# All of a submission's shown images together: a 64-megapixel 1-bit PNG of one colour is 8 KB, so attachments_mb held
# 50 of them (12.8 GB for the feedback page's browser to decode; red-team round 95). Two 48-megapixel photos fit.
MAX_SUBMISSION_PIXELS = 2 * MAX_PIXELS
_MIME = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif"}
_WORD = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF"}
_SPACE = {ord(c): None for c in " \t\r\n\f\v"}
_NAME_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+")


# --- what the bytes are ----------------------------------------------------------------------------
def sniff(data: bytes) -> Optional[str]:
    """"png", "jpeg" or "gif" when the magic bytes say so, else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    return None


def describe(data: bytes) -> str:
    """A word for bytes that are not a shown image: what an instructor would call them."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if not data:
        return "empty"
    if data.startswith(b"%PDF"):
        return "PDF"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    if data[4:8] == b"ftyp":
        return "HEIC" if data[8:12] in (b"heic", b"heix", b"mif1", b"msf1") else "MP4/ISO media"
    if data.startswith((b"II*\x00", b"MM\x00*")):
        return "TIFF"
    if data.startswith(b"BM"):
        return "BMP"
    if b"<svg" in head:
        return "SVG"
    if head.startswith((b"<!doctype html", b"<html", b"<script", b"<body", b"<head", b"<iframe", b"<img")):
        return "HTML"
    if head.startswith(b"<"):
        return "XML/HTML"
    return "unknown"


def pixel_size(kind: str, data: bytes) -> Optional[tuple[int, int]]:
    """(width, height) from the image's header, or None when the header is not there. Linear in the
    bytes at worst (a JPEG's segments are walked to its frame header)."""
    if kind == "png":
        if data[12:16] != b"IHDR" or len(data) < 24:
            return None
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if kind == "gif":
        if len(data) < 13:
            return None
        return _gif_bounds(data)
    if kind == "jpeg":
        i = 2
        while i + 4 <= len(data):
            if data[i] != 0xFF:
                return None
            marker = data[i + 1]
            if marker == 0xFF:                               # fill byte
                i += 1
                continue
            if marker == 0x01 or 0xD0 <= marker <= 0xD8:     # markers without a length
                i += 2
                continue
            length = int.from_bytes(data[i + 2:i + 4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):   # a start of frame
                if i + 9 > len(data):
                    return None
                return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
            if length < 2:
                return None
            i += 2 + length
        return None
    return None


def _gif_bounds(data: bytes) -> tuple[int, int]:
    """A GIF's size as a browser draws it: its logical screen grown to every frame's bounds. Firefox and Chromium
    grow the canvas to a first frame larger than the screen (broken GIFs), so a 1x1 screen could hold a frame of
    30000 x 30000 (3.6 GB to decode; red-team round 95); every frame is counted, not only the first. The blocks
    are walked once (linear); a damaged or cut stream ends the walk where a browser stops drawing."""
    width, height = int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    i = 13 + (3 << ((data[10] & 7) + 1) if data[10] & 0x80 else 0)
    while i < len(data):
        block = data[i]
        if block == 0x21:                                    # extension: label, then sub-blocks
            i += 2
        elif block == 0x2C:                                  # image descriptor: left, top, width, height, flags
            if i + 10 > len(data):
                break
            left, top, w, h = (int.from_bytes(data[i + k:i + k + 2], "little") for k in (1, 3, 5, 7))
            width, height = max(width, left + w), max(height, top + h)
            flags = data[i + 9]
            i += 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0) + 1   # local colour table, LZW code size
        else:                                                # the trailer, or bytes no browser reads on from
            break
        while i < len(data) and data[i]:                     # sub-blocks up to the empty one
            i += 1 + data[i]
        i += 1
    return width, height


def decode(value: object) -> Optional[bytes]:
    """Strict base64 (a string, or a list of strings as nbformat allows) to bytes; None if it is not."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "".join(value)
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value.translate(_SPACE), validate=True)
    except (binascii.Error, ValueError):   # not base64, or not ASCII
        return None


def _decoded_size(value: object) -> int:
    """About the decoded size of a base64 value, without decoding it (for the limits)."""
    if isinstance(value, list):
        n = sum(len(v) for v in value if isinstance(v, str))
    else:
        n = len(value) if isinstance(value, str) else 0
    return n * 3 // 4


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def clean_name(name: str, limit: int = 120) -> str:
    """An attachment name to show: control, bidi and line characters dropped, cut at `limit`.
    Still the student's text: the caller escapes it."""
    text = _NAME_CONTROL.sub(" ", str(name)).strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


# --- intake ----------------------------------------------------------------------------------------
class AttachmentReader:
    """Reads the attachments of one submission's written answers, in notebook order, under its limits:
    `per_image` and `total` bytes decoded."""

    def __init__(self, per_image_mb: float, total_mb: float) -> None:
        self.per_image = int(per_image_mb * 2**20)
        self.total = int(total_mb * 2**20)
        self.kept = 0       # decoded bytes kept so far
        self.read = 0       # attachments looked at so far
        self.pixels = 0     # pixels of the images kept so far (MAX_SUBMISSION_PIXELS)

    def cell(self, attachments: object, text: str, taken: set[str]) -> tuple[str, list[AnswerImage]]:
        """One markdown cell's attachments (its `attachments` value, any JSON) -> (its text, images).
        Attachment names are per cell; `taken` holds the names earlier cells of the same answer used,
        and a name used again is renamed here and in this cell's references, so each reference in
        the answer's joined text names one image."""
        if not isinstance(attachments, dict) or not attachments:
            return text, []
        images = []
        renames: dict[str, str] = {}
        for i, (raw_name, bundle) in enumerate(attachments.items()):
            if self.read >= MAX_IMAGES:   # one line for the rest of the cell: a result stays small
                images.append(AnswerImage(name=f"({len(attachments) - i} more attachments)",
                                          note=f"not read: only a submission's first {MAX_IMAGES} attachments are read"))
                break
            name = str(raw_name)[:MAX_NAME_CHARS]
            if name in taken:
                n = 2
                while f"{name} ({n})" in taken:
                    n += 1
                renames[str(raw_name)] = f"{name} ({n})"
                name = f"{name} ({n})"
            taken.add(name)
            images.append(self._image(name, bundle))
        if renames:
            text = rename_references(text, renames)
        return text, images

    def _image(self, name: str, bundle: object) -> AnswerImage:
        self.read += 1
        if not isinstance(bundle, dict) or not bundle:
            return AnswerImage(name=name, note="an attachment whose data is damaged, not shown")
        mime = next((k for k in bundle if str(k).startswith("image/")), next(iter(bundle)))
        declared = clean_name(mime, 60)
        value = bundle[mime]
        size = _decoded_size(value)
        if size > self.per_image:
            return AnswerImage(name=name, note=f"an attachment of {_mb(size)}, over the limit of {_mb(self.per_image)} "
                                               "for one image (limits.attachment_mb), not shown")
        if self.kept + size > self.total:
            return AnswerImage(name=name, note=f"an attachment of {_mb(size)}, not shown: this submission's images "
                                               f"together pass the limit of {_mb(self.total)} (limits.attachments_mb)")
        data = decode(value)
        if data is None:
            return AnswerImage(name=name, note=f'an attachment declared "{declared}" whose data is not valid '
                                               "base64 (damaged), not shown")
        if not data:
            return AnswerImage(name=name, note="an empty attachment, not shown")
        kind = sniff(data)
        if kind is None:
            what = describe(data)
            said = "" if _declares(declared, what) else f' (declared "{declared}")'
            return AnswerImage(name=name, note=f"an attachment of type {what}{said}, not shown")
        dims = pixel_size(kind, data)
        if dims is None or dims[0] <= 0 or dims[1] <= 0:
            return AnswerImage(name=name, note=f"a {_WORD[kind]} image whose header is damaged, not shown")
        if dims[0] * dims[1] > MAX_PIXELS:
            return AnswerImage(name=name, note=f"a {_WORD[kind]} image of {dims[0]} x {dims[1]} pixels, more than "
                                               f"{MAX_PIXELS // 1_000_000} million, not shown")
        if self.pixels + dims[0] * dims[1] > MAX_SUBMISSION_PIXELS:
            return AnswerImage(name=name, note=f"a {_WORD[kind]} image of {dims[0]} x {dims[1]} pixels, not shown: this "
                                               f"submission's images together pass {MAX_SUBMISSION_PIXELS // 1_000_000} "
                                               "million pixels")
        self.kept += len(data)
        self.pixels += dims[0] * dims[1]
        return AnswerImage(name=name, kind=cast(ImageKind, kind), data=base64.b64encode(data).decode("ascii"))


def _declares(declared: str, what: str) -> bool:
    """Whether the declared MIME type already says what the bytes are (no need to say both)."""
    return what.split("/")[0].lower() in declared.lower()


def take_attachments(cells: list) -> dict[int, object]:
    """Removes every cell's `attachments` (before the notebook is measured and validated: they are
    bounded by their own limits) and returns the markdown and raw cells' ones, by cell index."""
    found: dict[int, object] = {}
    for i, cell in enumerate(cells):
        if isinstance(cell, dict) and "attachments" in cell:
            value = cell.pop("attachments")
            if cell.get("cell_type") in ("markdown", "raw"):   # a raw cell may be a written answer (red-team round 98)
                found[i] = value
    return found


# --- references in the text ------------------------------------------------------------------------
# `![alt](target)`, `![alt](<target> "title")` and `<img ... src="target" ...>`. Each alternative starts
# with a literal and every repeat is bounded, so a 20,000-character answer is scanned in linear time.
_REFERENCE = re.compile(
    r"!\[(?P<alt>[^\]\n]{0,300})\]\([ \t]{0,20}(?:<(?P<angle>[^<>\n]{0,2000})>|(?P<url>[^\s()<>]{1,2000}))"
    r"(?:[ \t\n]{1,20}(?:\"[^\"\n]{0,300}\"|'[^'\n]{0,300}'))?[ \t]{0,20}\)"
    r"|<img\b(?P<attrs>[^<>]{0,2000})>", re.IGNORECASE)
_SRC = re.compile(r"""\bsrc[ \t\n]{0,20}=[ \t\n]{0,20}(?:"([^"]{0,2000})"|'([^']{0,2000})'|([^\s"'=<>`]{1,2000}))""",
                  re.IGNORECASE)


@dataclass(frozen=True)
class Reference:
    """An image the text asks for: its target (an `attachment:` name or anything else) as written."""
    target: str
    source: str        # the markdown or tag as written

    @property
    def attachment(self) -> Optional[str]:
        if self.target[:11].lower() == "attachment:":
            return self.target[11:]
        return None


def references(text: str) -> Iterator[tuple[int, int, Reference]]:
    for m in _REFERENCE.finditer(text):
        if m.group("attrs") is not None:
            src = _SRC.search(m.group("attrs"))
            if src is None:
                continue
            target = next(g for g in src.groups() if g is not None)
        else:
            target = m.group("angle") if m.group("angle") is not None else m.group("url")
        yield m.start(), m.end(), Reference(target=html.unescape(target).strip(), source=m.group())


def split_references(text: str) -> list[Union[str, Reference]]:
    """The text cut at each image reference: text pieces and References, in order."""
    out: list[Union[str, Reference]] = []
    pos = 0
    for start, end, ref in references(text):
        out.append(text[pos:start])
        out.append(ref)
        pos = end
    out.append(text[pos:])
    return out


def rename_references(text: str, renames: dict[str, str]) -> str:
    """Points this text's `attachment:` references at the new names (URL-quoted, as Jupyter writes)."""
    out = []
    pos = 0
    for start, end, ref in references(text):
        name = ref.attachment
        new = None if name is None else renames.get(name, renames.get(unquote(name)))
        if new is not None:
            out.append(text[pos:start] + f"![](attachment:{quote(new)})")
            pos = end
    out.append(text[pos:])
    return "".join(out)


def find(images: dict[str, AnswerImage], name: str) -> Optional[AnswerImage]:
    """The attachment a reference names: as written, or URL-decoded (Jupyter quotes spaces)."""
    return images.get(name) or images.get(unquote(name))


# --- HTML ------------------------------------------------------------------------------------------
def _verified(image: AnswerImage) -> Optional[bytes]:
    """The image's bytes, checked again here: what the page embeds is what these checks passed."""
    if image.kind is None or not image.data:
        return None
    data = decode(image.data)
    if data is None or sniff(data) != image.kind:
        return None
    dims = pixel_size(image.kind, data)
    if dims is None or dims[0] <= 0 or dims[1] <= 0 or dims[0] * dims[1] > MAX_PIXELS:
        return None
    return data


def image_pixels(image: AnswerImage) -> int:
    """How many pixels a browser decodes to draw this attachment (0 when it is not shown)."""
    data = _verified(image)
    dims = None if data is None or image.kind is None else pixel_size(image.kind, data)
    return 0 if dims is None else dims[0] * dims[1]


def _note_html(text: str) -> str:
    return f'<span class="attachment-note">[{html.escape(text)}]</span>'


def image_html(image: AnswerImage) -> str:
    """An attachment as HTML: <img> with a data: URL re-encoded from the verified bytes, or a note."""
    name = clean_name(image.name)
    data = _verified(image)
    if data is None or image.kind is None:
        return _note_html(f'attachment "{name}": {image.note or "an attachment that could not be checked, not shown"}')
    alt = html.escape(name, quote=True)
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img class="attachment" alt="{alt}" title="{alt}" src="data:{_MIME[image.kind]};base64,{encoded}">'


def reference_html(ref: Reference, images: dict[str, AnswerImage], shown: set[str]) -> str:
    """What the page shows where the text asks for an image. Each attachment is embedded once per
    answer (`shown` collects them): a second reference says so instead of repeating megabytes. An
    image the text points at elsewhere stays the student's text, escaped, and is named as not shown."""
    name = ref.attachment
    if name is None:
        target = ref.target
        if target[:5].lower() == "data:":
            why = "an image written into the text as a data: URL, not shown"
        elif re.match(r"[a-z][a-z0-9+.-]{0,20}:", target, re.I):
            why = "an image from the web, not shown: this page loads nothing from the network"
        else:
            why = "an image from a file outside the notebook, not shown"
        return html.escape(ref.source, quote=False) + " " + _note_html(why)
    image = find(images, name)
    if image is None:
        return _note_html(f'attachment "{clean_name(unquote(name))}": no attachment of that name in this answer')
    if image.name in shown:
        return _note_html(f'attachment "{clean_name(image.name)}": shown above')
    shown.add(image.name)
    return image_html(image)
