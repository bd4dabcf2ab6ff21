"""Notebook intake: turn an untrusted file into checked, plain source code (and manual answers).

Runs in the trusted process but only parses: nothing from the submission is executed here."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.errors import SubmissionError

MAX_SUBMISSION_BYTES = 20 * 1024 * 1024
MAX_CELLS = 2000

_BEGIN_Q = re.compile(r"<!--\s*BEGIN QUESTION\s*-->")
_END_Q = re.compile(r"<!--\s*END QUESTION\s*-->")
_QNAME = re.compile(r"^\s*(?:\*\*)?Question\s+([\w.-]+)", re.I | re.M)


@dataclass
class Submission:
    path: Path
    cells: list[str]                      # code cells, IPython syntax already turned into Python
    manual_answers: dict[str, str] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return "\n\n".join(self.cells)


_PY_CELL_MAGICS = ("%%time", "%%timeit", "%%capture")


def transform_ipython(src: str) -> str:
    """Turn IPython syntax into Python. `%time x`/`%timeit x` keep `x`; other magics and shell
    escapes become `pass`; a cell under a non-Python cell magic (%%bash, %%writefile...) is dropped."""
    first = src.lstrip().split("\n", 1)[0].strip()
    if first.startswith("%%"):
        if not first.startswith(_PY_CELL_MAGICS):
            return f"pass  # dropped cell magic {first[:40]!r}"
        src = src.lstrip().split("\n", 1)[1] if "\n" in src.lstrip() else ""
    lines = []
    for line in src.splitlines():
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if stripped.startswith(("%time ", "%timeit ")):
            body = stripped.split(None, 1)[1]
            while body.startswith("-"):  # %timeit -n 10 -r 3 stmt
                parts = body.split(None, 2)
                body = parts[-1] if len(parts) > 1 else ""
                if parts[0] in ("-n", "-r") and len(parts) > 2:
                    body = parts[2]
            lines.append(indent + body)
        elif stripped.startswith(("!", "%")):
            lines.append(f"{indent}pass  # dropped: {stripped[:60]!r}")
        else:
            lines.append(line)
    return "\n".join(lines)


def _check_json(raw: bytes, path: Path) -> dict:
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SubmissionError(f"{path.name} is not a text file (not UTF-8): is it really a notebook?") from None
    except json.JSONDecodeError as e:
        raise SubmissionError(f"{path.name} is not valid notebook JSON (line {e.lineno}: {e.msg})") from None
    if not isinstance(data, dict) or "cells" not in data:
        raise SubmissionError(f"{path.name} is JSON but not a Jupyter notebook (no 'cells')")
    if data.get("nbformat") != 4:
        raise SubmissionError(f"{path.name} has nbformat {data.get('nbformat')!r}; only version 4 notebooks are accepted")
    if not isinstance(data["cells"], list) or len(data["cells"]) > MAX_CELLS:
        raise SubmissionError(f"{path.name} has a malformed or oversized cell list")
    return data


def _text(cell: dict) -> str:
    src = cell.get("source", "")
    if isinstance(src, list):
        src = "".join(s for s in src if isinstance(s, str))
    return src if isinstance(src, str) else ""


def _manual_answers(nb: nbformat.NotebookNode) -> dict[str, str]:
    """Collect markdown written between otter's BEGIN/END QUESTION comments for manual questions."""
    answers: dict[str, str] = {}
    current: str | None = None
    buf: list[str] = []
    for cell in nb.cells:
        text = _text(cell)
        if cell.get("cell_type") == "markdown" and _BEGIN_Q.search(text):
            m = _QNAME.search(text)
            current, buf = (m.group(1) if m else f"manual{len(answers) + 1}"), []
            continue
        if current is not None:
            if _END_Q.search(text):
                answers[current] = "\n\n".join(b for b in buf if b.strip())[:20000]
                current = None
            elif cell.get("cell_type") == "markdown":
                buf.append(text)
    return answers


def read_submission(path: Path) -> Submission:
    path = Path(path)
    if not path.is_file():
        raise SubmissionError(f"{path} does not exist or is not a file")
    size = path.stat().st_size
    if size > MAX_SUBMISSION_BYTES:
        raise SubmissionError(f"{path.name} is {size / 1e6:.1f} MB; the limit is {MAX_SUBMISSION_BYTES / 1e6:.0f} MB")
    raw = path.read_bytes()
    if path.suffix == ".py":
        try:
            src = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SubmissionError(f"{path.name} is not UTF-8 text") from None
        return Submission(path=path, cells=[src])
    data = _check_json(raw, path)
    try:
        nb = nbformat.from_dict(data)
        nbformat.validate(nb, relax_add_props=True)
    except Exception as e:  # nbformat raises several types; all mean "malformed"
        raise SubmissionError(f"{path.name} is not a valid notebook: {str(e).splitlines()[0][:200]}") from None
    cells = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        cells.append(transform_ipython(_text(cell)))
    return Submission(path=path, cells=cells, manual_answers=_manual_answers(nb))
