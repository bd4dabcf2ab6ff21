"""Notebook intake: turn an untrusted file into checked, plain source code (and manual answers).

Runs in the trusted process but only parses: nothing from the submission is executed here. Every step
is bounded for any input: the size is checked before reading, the JSON's item count before parsing,
every pattern runs in linear time, and intake gives up after INTAKE_TIMEOUT_S."""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.errors import SubmissionError
from autograder.protocol import json_item_bound

MAX_SUBMISSION_BYTES = 20 * 1024 * 1024
MAX_CELLS = 2000
MAX_JSON_ITEMS = 500_000      # values json.loads may build from one notebook (~300 B each at worst)
MAX_CODE_CHARS = 500_000      # all code cells together: static checks ast.parse them in this process
MAX_SCAN_CHARS = 100_000      # of one cell, searched for the BEGIN/END QUESTION markers
MAX_ANSWERS = 50              # written-answer blocks kept; the grader keeps only configured questions
MAX_ANSWER_CHARS = 20_000
INTAKE_TIMEOUT_S = 30.0

# Linear-time patterns only: each starts with a literal, and no `\s*` sits where it can be retried
# from many starting points; the question name is matched line by line, at the line's start.
_BEGIN_Q = re.compile(r"<!--\s*BEGIN QUESTION\s*-->")
_END_Q = re.compile(r"<!--\s*END QUESTION\s*-->")
_QNAME = re.compile(r"(?:\*\*)?Question\s+([\w.-]{1,100})", re.I)


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
            lines.append(indent + _timed_statement(stripped))
        elif stripped.startswith(("!", "%")):
            lines.append(f"{indent}pass  # dropped: {stripped[:60]!r}")
        else:
            lines.append(line)
    return "\n".join(lines)


_OPTION = re.compile(r"(\S+)\s*")
_OPTIONS_WITH_VALUE = ("-n", "-r", "-p")


def _timed_statement(stripped: str) -> str:
    """`%timeit -n 10 -r 3 stmt` -> `stmt`. One pass over the options: linear in the line's length."""
    parts = stripped.split(None, 1)
    body = parts[1] if len(parts) > 1 else ""
    pos = 0
    while body.startswith("-", pos):
        m = _OPTION.match(body, pos)
        assert m is not None  # body[pos] is "-", so there is a token
        pos = m.end()
        if m.group(1) in _OPTIONS_WITH_VALUE:  # `-n 10`; `-n10` is one token
            value = _OPTION.match(body, pos)
            pos = value.end() if value else pos
    return body[pos:]


def _check_time(deadline: float, path: Path) -> None:
    if time.monotonic() > deadline:
        raise SubmissionError(f"{path.name} took more than {INTAKE_TIMEOUT_S:g} s to read; is it really a notebook?")


def _check_json(raw: bytes, path: Path) -> dict:
    if json_item_bound(raw, MAX_JSON_ITEMS) > MAX_JSON_ITEMS:
        raise SubmissionError(f"{path.name} has more than {MAX_JSON_ITEMS:,} JSON items; "
                              "clear its outputs (Kernel > Restart & Clear Output) and submit again")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SubmissionError(f"{path.name} is not a text file (not UTF-8): is it really a notebook?") from None
    except json.JSONDecodeError as e:
        raise SubmissionError(f"{path.name} is not valid notebook JSON (line {e.lineno}: {e.msg})") from None
    except RecursionError:
        raise SubmissionError(f"{path.name} is not a notebook: its JSON is nested too deeply") from None
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


def _question_name(text: str) -> str | None:
    for line in text.splitlines():
        m = _QNAME.match(line.lstrip())
        if m:
            return m.group(1)
    return None


def _manual_answers(cells: list[dict], deadline: float, path: Path) -> dict[str, str]:
    """Collect markdown written between otter's BEGIN/END QUESTION comments, keyed by the question's
    name (else `manualN`): at most MAX_ANSWERS blocks of at most MAX_ANSWER_CHARS each. Which of them
    count is the grader's decision: only the questions grading.yml lists as manual."""
    answers: dict[str, str] = {}
    current: str | None = None
    buf: list[str] = []
    size = 0
    for cell in cells:
        _check_time(deadline, path)
        text = _text(cell)[:MAX_SCAN_CHARS]
        if cell.get("cell_type") == "markdown" and _BEGIN_Q.search(text):
            name = _question_name(text)
            current, buf, size = (name or f"manual{len(answers) + 1}"), [], 0
            continue
        if current is not None:
            if _END_Q.search(text):
                if current in answers or len(answers) < MAX_ANSWERS:
                    answers[current] = "\n\n".join(b for b in buf if b.strip())[:MAX_ANSWER_CHARS]
                current = None
            elif cell.get("cell_type") == "markdown" and size < MAX_ANSWER_CHARS:
                buf.append(text[:MAX_ANSWER_CHARS])
                size += len(buf[-1])
    return answers


def _validate(data: dict, path: Path) -> None:
    """nbformat's schema check, outputs left out: they are never read, they are most of a large
    notebook, and checking them is slow (12 s for 500k outputs)."""
    cells = [dict(c, outputs=[]) if isinstance(c, dict) and "outputs" in c else c for c in data["cells"]]
    try:
        nbformat.validate(dict(data, cells=cells), relax_add_props=True)
    except Exception as e:  # nbformat raises several types; all mean "malformed"
        raise SubmissionError(f"{path.name} is not a valid notebook: {str(e).splitlines()[0][:200]}") from None


def read_submission(path: Path) -> Submission:
    deadline = time.monotonic() + INTAKE_TIMEOUT_S
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
        _check_code_size([src], path)
        return Submission(path=path, cells=[src])
    data = _check_json(raw, path)
    del raw
    _check_time(deadline, path)
    _validate(data, path)
    _check_time(deadline, path)
    sources = [_text(cell) for cell in data["cells"] if cell.get("cell_type") == "code"]
    _check_code_size(sources, path)
    cells = []
    for src in sources:
        _check_time(deadline, path)
        cells.append(transform_ipython(src))
    return Submission(path=path, cells=cells, manual_answers=_manual_answers(data["cells"], deadline, path))


def _check_code_size(sources: list[str], path: Path) -> None:
    size = sum(len(s) for s in sources)
    if size > MAX_CODE_CHARS:
        raise SubmissionError(f"{path.name} has {size:,} characters of code; the limit is {MAX_CODE_CHARS:,}")
