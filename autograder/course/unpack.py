"""Unpacking a zip a student (or a class export) sent, safely: which members may be written where,
which zips are refused as ambiguous, and the extraction itself (no zip-slip, links, devices, bombs).
Used by the Gradescope runner and the class exports alike."""
from __future__ import annotations

import hashlib
import os
import re
import struct
import unicodedata
import zipfile
from pathlib import Path, PurePosixPath
from typing import Iterable, Optional

from autograder.errors import GraderError, SubmissionError
from autograder.text import shown_name

# --- zips ------------------------------------------------------------------------------------------
_S_IFMT, _S_IFREG = 0o170000, 0o100000
NAME_MAX = 255   # bytes of one path part (Linux, macOS, Windows alike)
FITTED_TAIL = 100   # bytes of a part too long kept from its end (its suffix, an LMS's tail)


def _control(c: str) -> bool:
    return ord(c) < 0x20 or ord(c) == 0x7F


def _too_long(part: str) -> bool:
    return len(part.encode("utf-8", "surrogatepass")) > NAME_MAX


def fitted_part(part: str) -> str:
    """A path part that a file system holds: control characters as '_', and '~' with a hash of the part as written
    before its suffix, so two parts never become one; one too long keeps its first and last bytes around that mark
    (an LMS names the student at one end: Canvas's `name_uid_subid_` prefix, Moodle's `_uid_assignsubmission_file_`
    tail). For a class export's members, whose names an LMS composed from the student's own (red-team round 75:
    Canvas's prefix made a 244-character file name 256 bytes, and the student was left out without a word)."""
    mark = "~" + hashlib.sha256(part.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    safe = "".join("_" if _control(c) else c for c in part)
    raw = safe.encode("utf-8", "surrogatepass")
    room = NAME_MAX - len(mark)
    if len(raw) > room:
        keep = min(FITTED_TAIL, room // 2)
        return raw[:room - keep].decode("utf-8", "ignore") + mark + raw[-keep:].decode("utf-8", "ignore")
    stem, dot, suffix = safe.rpartition(".")
    if not dot or not stem or len(suffix) > 16:
        return safe + mark
    return f"{stem}{mark}.{suffix}"


def zip_member_path(name: str, fit: bool = False) -> Optional[PurePosixPath]:
    """The relative path a zip member is written to, or None when it must be left out: absolute
    paths, drive letters, '..', control characters, a part longer than a file name may be. Read
    as unzip reads it: '\\' is a separator (Windows tools write it), empty and '.' parts vanish, so
    'a//b', './a/b' and 'a\\b' are all a/b. `fit` (a class export): a part with a control character or
    too long is written as `fitted_part` names it instead of being left out."""
    name = name.replace("\\", "/")
    if not name or name.startswith("/") or re.match(r"^[A-Za-z]:", name) \
            or (not fit and any(_control(c) for c in name)):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    if fit:
        parts = [fitted_part(p) if _too_long(p) or any(_control(c) for c in p) else p for p in parts]
    elif any(_too_long(p) for p in parts):
        return None
    return PurePosixPath(*parts)


def _same_file(path: PurePosixPath, fold: bool) -> str:
    """What two members must differ in to be two files: the path, and where `fold`, more than case
    or the Unicode form of an accent (one file on Windows and macOS, whose unzip keeps either)."""
    text = str(path)
    return unicodedata.normalize("NFC", text).casefold() if fold else text


def check_zip_members(infos: Iterable[zipfile.ZipInfo], fold: bool = True, fit: bool = False) -> list[str]:
    """Refuse (SubmissionError, in plain words) a zip in which two members would be one file: the
    same name twice, names that zip_member_path reads as one path ('a//b.ipynb', './a/b.ipynb',
    'a/b.ipynb'), with `fold` names that differ only in case or Unicode form, or a name that is a
    file and a folder at once. Which of two copies is the submission cannot be told (unzip keeps
    the last, a careful extractor the first), so none is chosen. `fold=False` for a class export,
    where two students' folders may differ only in case.

    Returns the members left out by any safe extraction, as shown names (a name zip_member_path
    refuses, a link, a device), so a message can say why a file seems to be missing. `fit`: names
    as safe_extract(fit=True) writes them."""
    files: dict[str, str] = {}
    folders: dict[str, str] = {}
    # paths that hold a name `fit` made: a student can name a file like one (the hash is of a name they chose), so a
    # clash with one is that student's own doing, left out of their folder, never a refusal of the whole export
    made: set[str] = set()
    left_out: list[str] = []
    for info in infos:
        rel = zip_member_path(info.filename, fit)
        kind = (info.external_attr >> 16) & _S_IFMT
        fitted = fit and rel is not None and zip_member_path(info.filename) is None
        if info.is_dir():
            if rel is not None:
                folders.setdefault(_same_file(rel, fold), info.filename)
                made.update(_same_file(q, fold) for q in (rel, *list(rel.parents)[:-1]) if fitted)
            continue
        if rel is None or kind not in (0, _S_IFREG):
            left_out.append(shown_name(info.filename, 80))
            continue
        key = _same_file(rel, fold)
        if key in files:
            if fitted or key in made:
                left_out.append(shown_name(info.filename, 80))
                continue
            raise SubmissionError(_clash(files[key], info.filename))
        files[key] = info.filename
        if fitted:
            made.add(key)
        for parent in list(rel.parents)[:-1]:
            folders.setdefault(_same_file(parent, fold), str(parent))
            if fitted:
                made.add(_same_file(parent, fold))
    for key, name in files.items():
        if key in folders and key in made:
            left_out.append(shown_name(name, 80))
        elif key in folders:
            raise SubmissionError(f"the zip holds '{shown_name(name, 80)}' both as a file and as a folder "
                                  f"('{shown_name(folders[key], 80)}/...'): which one is meant cannot be told; "
                                  "rename one and zip again")
    return left_out


def _clash(first: str, second: str) -> str:
    a, b = shown_name(first, 80), shown_name(second, 80)
    if first == second:
        how = f"the zip holds '{a}' twice"
    elif zip_member_path(first) == zip_member_path(second):
        how = f"the zip holds '{a}' and '{b}', which unzip writes as the same file"
    else:
        how = (f"the zip holds '{a}' and '{b}', which differ only in upper and lower case (or in how an "
               "accent is written): on Windows and macOS they are the same file")
    return (f"{how}, so which one is the submission cannot be told (tools disagree on which copy wins): "
            "keep one, and zip again")


# --- extraction ---------------------------------------------------------------------------------------
MAX_UNZIP_BYTES = 50 * 1024 * 1024   # all of a submission's zips together, once unpacked
MAX_ZIP_MEMBERS = 2000              # per zip: a zip of a million empty files is a bomb too
MAX_ZIPS = 10


# A central-directory record is 46 bytes and its names; 1 KiB each on average is far more than any zip
# tool writes for a folder of homework, and bounds what zipfile reads and builds (a ZipInfo of ~400 bytes
# per record) before the member count can be compared with the limit.
_RECORD_BYTES = 1024


# folders deep that a member may lie: deeper ones are never a submission's own (the walks that look for a notebook
# stop at 8 in a class folder, at this depth on Gradescope), and Path.mkdir(parents=True) recurses once per level:
# 1200 levels were a RecursionError told as
# "could not open submission.zip: maximum recursion depth exceeded" (red-team round 58)
MAX_MEMBER_DEPTH = 32


def check_zip_directory(zpath: Path, max_members: int) -> None:
    """Refuse (GraderError), from the end-of-directory record alone, a zip whose central directory
    declares more than `max_members` entries or is larger than that many records can be. zipfile reads
    the whole directory into memory and builds an object per record before anyone can count them:
    a 92 MB zip of 2,000,000 empty records took a batch to 769 MB and 51 s (red-team round 24). Read as
    zipfile reads it (the last signature in the file's last 64 KiB, then the zip64 record it points to);
    a file with none is not a zip, which zipfile then says in its own words."""
    size = zpath.stat().st_size
    with open(zpath, "rb") as fh:
        tail_len = min(size, 22 + 0xFFFF)
        fh.seek(size - tail_len)
        tail = fh.read(tail_len)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) - at < 22:
            return
        _sig, _d, _cd, _here, entries, cd_bytes, cd_at, _c = struct.unpack("<4s4H2LH", tail[at:at + 22])
        if entries == 0xFFFF or cd_bytes == 0xFFFFFFFF or cd_at == 0xFFFFFFFF:
            locator_at = size - tail_len + at - 20
            if locator_at >= 0:
                fh.seek(locator_at)
                locator = fh.read(20)
                if locator[:4] == b"PK\x06\x07":
                    record_at = struct.unpack("<4sLQL", locator)[2]
                    fh.seek(min(record_at, size))
                    record = fh.read(56)
                    if len(record) == 56 and record[:4] == b"PK\x06\x06":
                        fields = struct.unpack("<4sQ2H2L4Q", record)
                        entries, cd_bytes = fields[7], fields[8]
    if entries > max_members or cd_bytes > max_members * _RECORD_BYTES:
        raise GraderError(f"the submitted zip has more than {max_members} files")


def safe_extract(zpath: Path, dest: Path, max_bytes: int = MAX_UNZIP_BYTES,
                  max_members: int = MAX_ZIP_MEMBERS, fit: bool = False) -> int:
    """Extract a student's zip into `dest` (a fresh folder the grader named) without zip-slip, links,
    devices or zip bombs: only regular files, each resolved and checked to lie under `dest`, never
    overwriting one another; at most `max_members` members and `max_bytes` bytes (counted as they
    are written, not as the zip claims). Returns the bytes written. `fit`: zip_member_path's, for a class export."""
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    total = 0
    check_zip_directory(zpath, max_members)
    with zipfile.ZipFile(zpath) as z:
        infos = z.infolist()
        if len(infos) > max_members:
            raise GraderError(f"the submitted zip has more than {max_members} files")
        for info in infos:
            rel = zip_member_path(info.filename, fit)
            kind = (info.external_attr >> 16) & _S_IFMT
            if rel is None or info.is_dir() or kind not in (0, _S_IFREG):  # links, devices, fifos
                continue
            if len(rel.parts) > MAX_MEMBER_DEPTH:   # mkdir(parents=True) recurses once per level (red-team 58)
                continue
            target = root.joinpath(*rel.parts)
            if not target.resolve().is_relative_to(root):
                continue
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.parent.resolve().is_relative_to(root):
                    continue
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            except OSError:  # a duplicate name, a file where a folder should be, a name too long
                continue
            with z.open(info) as src, os.fdopen(fd, "wb") as dst:
                while block := src.read(1 << 16):
                    total += len(block)
                    if total > max_bytes:
                        raise GraderError("the submitted zip is too large once unpacked")
                    dst.write(block)
    return total
