"""Notebook intake: turn an untrusted file into checked, plain source code (and manual answers).

Runs in the trusted process but only parses: nothing from the submission is executed here. Every step
is bounded for any input: the size is checked before reading, the JSON's item count before parsing,
every pattern runs in linear time, and intake gives up after INTAKE_TIMEOUT_S.

Every refusal says why once, in plain words a student can act on ("the file is empty", not a JSON
parser's "Expecting value")."""
from __future__ import annotations

import ast
import codecs
import json
import re
import time
import unicodedata
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.grading.attachments import AttachmentReader, take_attachments
from autograder.config import Limits
from autograder.errors import SubmissionError
from autograder.grading.pyparse import parse, source_lines
from autograder.sandbox.protocol import json_item_bound
from autograder.results import AnswerImage
from autograder.text import escape_unshown, shown_name

MAX_CELLS = 2000
MAX_JSON_ITEMS = 500_000      # values json.loads may build from one notebook (~300 B each at worst)
MAX_CODE_CHARS = 500_000      # all code cells together: static checks ast.parse them in this process
MAX_SCAN_CHARS = 100_000      # of one cell, searched for the BEGIN/END QUESTION markers
MAX_ANSWERS = 50              # written-answer blocks kept; the grader keeps only configured questions
MAX_ANSWER_CHARS = 20_000
INTAKE_TIMEOUT_S = 30.0

# Linear-time patterns only: each starts with a literal, and no `\s*` sits where it can be retried
# from many starting points; the question name is matched line by line, at the line's start.
# a JSON escape of a UTF-16 surrogate: a pair is an emoji written by a tool that escapes non-ASCII, a lone
# one is valid JSON but no text: it fails the first time anything writes it out (a page, a CSV, the worker)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_BEGIN_Q = re.compile(r"<!--\s*BEGIN QUESTION\s*-->")
_END_Q = re.compile(r"<!--\s*END QUESTION\s*-->")
_QNAME = re.compile(r"(?:\*\*)?Question\s+([\w.-]{1,100})", re.I)


@dataclass
class Submission:
    path: Path
    cells: list[str]                      # code cells, IPython syntax already turned into Python
    manual_answers: dict[str, str] = field(default_factory=dict)
    # images attached to the written answers' cells (same keys), checked by autograder.grading.attachments
    manual_attachments: dict[str, list[AnswerImage]] = field(default_factory=dict)
    assignment_name: str = ""             # what the notebook's otter metadata says it is, if anything
    python_version: str = ""              # "3.12": the Python its language_info says it last ran on ("" if it says none)
    # names a markdown or raw cell binds as code would (`def name(`, `class name`, `name =` at a line's start) -> that
    # cell's type: an answer put in a cell that never runs, named when the answer is missing (runner.missing_answer)
    prose_bound: dict[str, str] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return "\n\n".join(self.cells)


_PY_CELL_MAGICS = ("%%time", "%%timeit", "%%capture")
# A cell with none of these has no IPython syntax (a help `x?`, a magic, a shell escape, `x = !cmd`, an export's
# get_ipython().run_line_magic call)
_MAYBE_IPYTHON = re.compile(r"(?:^|(?<=\r))[ \t]*[!%?]|\?[ \t]*(?:$|(?=\r))|=[ \t]*[!%]|get_ipython\(\)\.run_", re.M)
# What changes the lexer's state: a line continuation, a comment, a string's opening quote, a bracket
_LEXEME = re.compile(r"\\$|#|(?:[rRbBuUfF]{1,2})?(?:'''|\"\"\"|'|\")|[(\[{]|[)\]}]")
_ASSIGNED_MAGIC = re.compile(r"([A-Za-z_]\w*)[ \t]*=[ \t]*[!%]")


class _LogicalLines:
    """Which physical lines start a logical line of Python: not inside brackets, a string or after a
    backslash. Fed one line at a time; linear in the text (each line is scanned once, left to right)."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None     # the open string's delimiter, across lines for a triple quote
        self.continued = False

    def at_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> str:
        """Advance past `line`; returns its code outside strings and comments, stripped at the right
        (what a help `x?` is read from)."""
        code: list[str] = []
        pos, self.continued = 0, False
        while pos < len(line):
            if self.quote is not None:
                end = _string_end(line, pos, self.quote)
                if end < 0:
                    # a one-quote string goes on only after a backslash; a triple-quoted one always
                    self.continued = len(self.quote) == 1 and line.endswith("\\")
                    if len(self.quote) == 1 and not self.continued:
                        self.quote = None
                    return "".join(code).rstrip()
                pos, self.quote = end, None
                code.append("''")
                continue
            m = _LEXEME.search(line, pos)
            if m is None:
                code.append(line[pos:])
                break
            code.append(line[pos:m.start()])
            token = m.group()
            pos = m.end()
            if token == "\\":
                self.continued = True
                break
            if token == "#":
                break
            if token in "([{":
                self.depth += 1
            elif token in ")]}":
                self.depth = max(0, self.depth - 1)
            else:
                self.quote = token.lstrip("rRbBuUfF")
                continue
            code.append(token)
        return "".join(code).rstrip()


def _string_end(line: str, pos: int, quote: str) -> int:
    """Just past the end of the string delimited by `quote` in `line` from `pos`; -1 if it does not end there.
    A delimiter after an odd run of backslashes is escaped (a raw string's too, as Python's tokenizer reads
    it)."""
    while True:
        found = line.find(quote, pos)
        if found < 0:
            return -1
        backslashes = 0
        while found - backslashes - 1 >= pos and line[found - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return found + len(quote)
        pos = found + 1


MAX_EXPORTED_MAGIC_CHARS = 100_000


def _exported_magic(stripped: str) -> str | None:
    """The code a Jupyter export's magic call runs, where the magic runs code: `get_ipython().run_line_magic('time',
    'stmt')` (or timeit) -> stmt, `get_ipython().run_cell_magic('time', '', 'body')` (or timeit, capture) -> body;
    "pass" for any other magic called with literal strings (matplotlib, load_ext: nothing to grade). None where it is
    not such a call of literal strings (left as written: the worker's get_ipython() stand-in does nothing)."""
    if len(stripped) > MAX_EXPORTED_MAGIC_CHARS:
        return None
    try:
        module = parse(stripped)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    call = module.body[0].value if len(module.body) == 1 and isinstance(module.body[0], ast.Expr) else None
    if (not isinstance(call, ast.Call) or call.keywords or not isinstance(call.func, ast.Attribute)
            or not isinstance(call.func.value, ast.Call) or call.func.value.args or call.func.value.keywords
            or not isinstance(call.func.value.func, ast.Name) or call.func.value.func.id != "get_ipython"
            or call.func.attr not in ("run_line_magic", "run_cell_magic")
            or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)):
        return None
    args = [a.value for a in call.args]  # type: ignore[attr-defined]
    if call.func.attr == "run_line_magic" and len(args) == 2:
        return _timed_statement(f"%{args[0]} {args[1]}") if args[0] in ("time", "timeit") else "pass"
    if call.func.attr == "run_cell_magic" and len(args) == 3:
        return args[2] if args[0] in ("time", "timeit", "capture") else "pass"
    return None


def transform_ipython(src: str) -> str:
    """Turn IPython syntax into Python, read only where a logical line of Python starts (never inside
    brackets, a string or a continued line: `(a\\n != b)` and a `"%s"` line are Python). `%time x` and
    `%timeit x` keep `x`; other magics, shell escapes and help (`x?`, `?x`) become `pass`; `y = !cmd`
    binds None; a cell under a non-Python cell magic (%%bash, %%writefile...) is dropped. Lines end only
    at \\n, \\r\\n or \\r, as Python's do. A Jupyter export's `get_ipython().run_line_magic('time', 'x')` is
    `x` again; any other get_ipython() call is left to the worker's stand-in, which does nothing."""
    first = src.lstrip().split("\n", 1)[0].strip()
    if first.startswith("%%"):
        if not first.startswith(_PY_CELL_MAGICS):
            return f"pass  # dropped cell magic {first[:40]!r}"
        src = src.lstrip().split("\n", 1)[1] if "\n" in src.lstrip() else ""
    if not _MAYBE_IPYTHON.search(src):
        return src
    lines: list[str] = []
    lexer = _LogicalLines()
    in_command = False    # the line before was a dropped shell escape or magic that ended in a backslash
    for line in source_lines(src):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        dropped = f"{indent}pass  # dropped: {stripped[:60]!r}"
        if in_command:
            # IPython joins a shell escape's or magic's lines that end in a backslash (`!pip install a \` then
            # `    b`): the continuation is the command's, not Python (kept, it was an IndentationError that lost
            # the whole cell, imports and all: red-team round 73). Blank, so line numbers stay the cell's
            in_command = line.endswith("\\")
            lines.append("")
        elif not lexer.at_start() or not stripped:
            lexer.feed(line)
            lines.append(line)
        elif stripped.startswith(("%time ", "%timeit ", "%time\t", "%timeit\t")):
            lines.append(indent + _timed_statement(stripped))
            lexer.feed(lines[-1])
        elif stripped.startswith(("!", "%", "?")):
            lines.append(dropped)
            in_command = line.endswith("\\")
        elif stripped.startswith("get_ipython().run_") and (code := _exported_magic(stripped)) is not None:
            lines.extend(indent + part for part in source_lines(code))
            lexer.feed(line)
        elif (assigned := _ASSIGNED_MAGIC.match(stripped)) is not None:
            lines.append(f"{indent}{assigned.group(1)} = {_assigned_value(stripped[assigned.end() - 1:])}  "
                         f"# dropped: {stripped[:60]!r}")
            in_command = line.endswith("\\")
        elif lexer.feed(line).endswith("?") and lexer.at_start():   # `torch.amax?`: never Python
            lines.append(dropped)
        else:
            lines.append(line)
    return "\n".join(lines)


MAX_CHECK_CELL_CHARS = 100_000
_NAMESPACE_CALLS = ("globals", "locals", "vars")   # at a cell's top level, each is the notebook's namespace


def _is_namespace_call(node: ast.expr | None) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _NAMESPACE_CALLS
            and not node.args and not node.keywords)


def _otter_check_question(stmt: ast.stmt) -> tuple[str, str] | None:
    """(receiver, question) where `stmt` is `name.check("q1", globals())`, otter's Notebook.check with its
    `global_env` (positional or by name, the question too); else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or call.func.attr != "check"
            or not isinstance(call.func.value, ast.Name) or len(call.args) > 2):
        return None
    given: dict[str, ast.expr] = dict(zip(("question", "global_env"), call.args))
    for kw in call.keywords:
        if kw.arg not in ("question", "global_env") or kw.arg in given:
            return None
        given[kw.arg] = kw.value
    question = given.get("question")
    if (not isinstance(question, ast.Constant) or not isinstance(question.value, str)
            or not _is_namespace_call(given.get("global_env"))):
        return None
    return call.func.value.id, question.value


def _otter_check_without_globals(src: str) -> str:
    """`grader.check("q1", globals())` -> `grader.check("q1")`. Otter documents `global_env` (the namespace its
    public tests read); in grading the call does nothing (the worker's otter stand-in), but written with globals()
    the static rules failed closed on the whole notebook (a namespace handed to code out of sight): 33/35 for a
    right sdpa notebook (red-team round 100). Only such a statement alone on its lines is rewritten, and the
    rewrite removes the namespace call from what runs, so what the rules read is still what runs (a receiver of
    the student's own gets the question alone)."""
    if len(src) > MAX_CHECK_CELL_CHARS:
        return src
    # Python reads identifiers NFKC-normalised (`ｇlobals()` is globals()), so the normalised text holds the name
    # wherever the code calls it: a cell without it is not parsed again (most non-ASCII cells are prose in comments)
    read_as = src if src.isascii() else unicodedata.normalize("NFKC", src)
    if not any(name in read_as for name in _NAMESPACE_CALLS):
        return src
    try:
        body = parse(src).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return src
    lines = source_lines(src)
    changed = False
    for i, stmt in enumerate(body):
        found = _otter_check_question(stmt)
        last = stmt.end_lineno or stmt.lineno
        alone = ((i == 0 or (body[i - 1].end_lineno or 0) < stmt.lineno)
                 and (i + 1 == len(body) or body[i + 1].lineno > last))
        if found is None or not alone or stmt.col_offset != 0:
            continue
        lines[stmt.lineno - 1:last] = [f"{found[0]}.check({found[1]!r})"] + [""] * (last - stmt.lineno)
        changed = True
    return "\n".join(lines) if changed else src


def _assigned_value(magic: str) -> str:
    """What `name = <magic>` binds, as Python: `%time expr` gives the expression's value in IPython (`weights = %time
    softmax(s)` is the answer, not None: red-team round 73); anything else (`!ls`, `%timeit` without -o) None."""
    if magic.startswith(("%time ", "%time\t")) and len(magic) <= MAX_EXPORTED_MAGIC_CHARS:
        statement = _timed_statement(magic)
        try:
            module = parse(statement)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return "None"
        value = module.body[0].value if len(module.body) == 1 and isinstance(module.body[0], ast.Expr) else None
        segment = ast.get_source_segment(statement, value) if value is not None and "\n" not in statement else None
        if segment is not None:
            return f"({segment})"   # without a comment after it, which would swallow the parenthesis
    return "None"


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
        raise SubmissionError(f"{shown_name(path)} took more than {INTAKE_TIMEOUT_S:g} s to read; is it really a notebook?")


def _not_json(raw: bytes, e: json.JSONDecodeError) -> str:
    """Why these bytes are not a notebook, in words a student can act on."""
    head = raw.lstrip()[:8]
    if not head:
        return "the file is empty: save the notebook in Jupyter (File > Save) and submit it again"
    if head.startswith(b"PK\x03\x04"):
        return "the file is a zip archive, not a notebook: unzip it and submit the .ipynb inside"
    if head.startswith(b"%PDF"):
        return "the file is a PDF, not a notebook: submit the .ipynb file itself"
    if not head.startswith(b"{"):
        return ("the file is not a Jupyter notebook (a notebook is a text file that starts with '{'): "
                "submit the .ipynb that Jupyter saved, not an export or a copy of its text")
    if e.pos >= len(e.doc.rstrip()) - 1 or e.msg.startswith("Unterminated string"):
        return ("the file is cut short: it ends in the middle of the notebook (an interrupted download "
                "or save?): save it again in Jupyter and resubmit")
    return (f"the file is damaged: its text stops being a notebook at line {e.lineno}, column {e.colno} "
            "(edited by hand, or two files merged?): open it in Jupyter, save it, and resubmit")


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _one_value_per_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json.loads keeps the last of two equal keys, other readers the first: a notebook whose cell
    holds "source" twice could show a viewer (and a TA) other code than the grader runs."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return data


def _check_json(raw: bytes, path: Path) -> dict:
    if json_item_bound(raw, MAX_JSON_ITEMS) > MAX_JSON_ITEMS:
        raise SubmissionError(f"{shown_name(path)} has more than {MAX_JSON_ITEMS:,} JSON items; "
                              "clear its outputs (Kernel > Restart & Clear Output) and submit again")
    try:
        # the hook costs ~40% of the parse (0.10 s -> 0.14 s for 250,000 objects, measured here)
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_one_value_per_key)
    except _RepeatedKey as e:
        raise SubmissionError(f"{shown_name(path)}: the notebook holds the key '{escape_unshown(e.key[:40])}' twice in "
                              "one place, so programs disagree on what it says (Jupyter never writes that): "
                              "open it in Jupyter, save it, and resubmit") from None
    except UnicodeDecodeError:
        raise SubmissionError(f"{shown_name(path)}: the file is not text (not UTF-8), so it is not a notebook: "
                              "submit the .ipynb that Jupyter saved") from None
    except json.JSONDecodeError as e:
        raise SubmissionError(f"{shown_name(path)}: {_not_json(raw, e)}") from None
    except RecursionError:
        raise SubmissionError(f"{shown_name(path)} is not a notebook: its JSON is nested too deeply") from None
    except ValueError:
        # json's own refusals that are not syntax: an integer of more than 4300 digits (Python's limit on
        # int from str). The message is ours: theirs may quote the file
        raise SubmissionError(f"{shown_name(path)} is not a notebook Jupyter wrote: it holds a value Python cannot "
                              "read (a number thousands of digits long): open it in Jupyter, save it, and "
                              "resubmit") from None
    if _SURROGATE_ESCAPE.search(raw):
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise SubmissionError(f"{shown_name(path)} is not a notebook Jupyter wrote: it holds text that is not "
                                  "Unicode (a lone surrogate escape such as \\ud800): open it in Jupyter, save "
                                  "it, and resubmit") from None
    if not isinstance(data, dict) or "cells" not in data:
        raise SubmissionError(f"{shown_name(path)}: the file is JSON but not a Jupyter notebook (it has no cells)")
    if data.get("nbformat") != 4:
        raise SubmissionError(f"{shown_name(path)}: the notebook has format version {str(data.get('nbformat'))[:20]}; "
                              "only version 4 (any Jupyter since 2015) is accepted: save it in a current Jupyter")
    if not isinstance(data["cells"], list):
        raise SubmissionError(f"{shown_name(path)}: the notebook is damaged (its cells are not a list): open it in "
                              "Jupyter, save it, and resubmit")
    if len(data["cells"]) > MAX_CELLS:
        raise SubmissionError(f"{shown_name(path)} has {len(data['cells']):,} cells; the limit is {MAX_CELLS:,}")
    return data


def _strip_outputs(data: dict) -> None:
    """Outputs are never graded (the code runs again in the sandbox): drop them before anything is
    measured or validated, so a large plot or printout neither costs time nor counts toward the limit."""
    for cell in data["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            cell["outputs"] = []


def _stripped_size(data: dict) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _assignment_name(data: dict) -> str:
    meta = data.get("metadata")
    otter = meta.get("otter") if isinstance(meta, dict) else None
    name = otter.get("assignment_name") if isinstance(otter, dict) else None
    return name[:200] if isinstance(name, str) else ""


_PYTHON_VERSION = re.compile(r"([0-9]{1,2})\.([0-9]{1,3})")


def _python_version(data: dict) -> str:
    """The Python the notebook last ran on, as its `language_info` says ("3.12"), else "": only ever compared with the
    grader's own, to say why a cell may be a SyntaxError here (red-team round 98: Colab's 3.12 f-strings)."""
    meta = data.get("metadata")
    info = meta.get("language_info") if isinstance(meta, dict) else None
    version = info.get("version") if isinstance(info, dict) and info.get("name") == "python" else None
    m = _PYTHON_VERSION.match(version[:20]) if isinstance(version, str) else None
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else ""


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


# the cells of a written answer's block that are its text: a raw or code cell there is the student's answer too, one
# keystroke away in Jupyter (R or Y on the answer cell); read as markdown only, the TA was shown no answer at all
# (red-team round 98). Shown as written, never run as an answer (a code cell also runs with the notebook, as any)
_ANSWER_CELL_TYPES = ("markdown", "raw", "code")


def _manual_answers(cells: list[dict], deadline: float, path: Path, attached: dict[int, object],
                    reader: AttachmentReader) -> tuple[dict[str, str], dict[str, list[AnswerImage]]]:
    """Collect markdown written between otter's BEGIN/END QUESTION comments, keyed by the question's
    name (else `manualN`): at most MAX_ANSWERS blocks of at most MAX_ANSWER_CHARS each, with the
    images attached to those cells (`attached`, by cell index; read by `reader` under its limits).
    Which of them count is the grader's decision: only the questions grading.yml lists as manual.

    The markers are read as otter's export reads them (line by line, not cell by cell): an answer merged
    into the END cell (Jupyter's Merge Cells) is its text above the marker; a block whose END is gone ends
    where the next BEGIN starts, or with the notebook; and a block with nothing between its markers is the
    BEGIN cell's own text after the marker (the prompt with the answer merged into it, as otter's PDF
    shows it). Read cell by cell, each of these lost the whole answer (red-team round 100)."""
    answers: dict[str, str] = {}
    images: dict[str, list[AnswerImage]] = {}
    current: str | None = None
    buf: list[str] = []
    found: list[AnswerImage] = []
    names: set[str] = set()
    size = 0
    prompt: tuple[int, str] = (-1, "")   # the open block's BEGIN cell (index, text after the marker): its text if nothing else is

    def take(index: int, text: str) -> None:
        nonlocal size
        if size < MAX_ANSWER_CHARS:
            text, cell_images = reader.cell(attached.get(index), text, names)
            buf.append(text[:MAX_ANSWER_CHARS])
            found.extend(cell_images)
            size += len(buf[-1])

    def close() -> None:
        nonlocal current
        if current is not None and (current in answers or len(answers) < MAX_ANSWERS):
            text, shown = "\n\n".join(b for b in buf if b.strip())[:MAX_ANSWER_CHARS], found
            if not text.strip() and prompt[1].strip():
                # its attachments read only now, when its text is the answer (the reader's budget is the answers')
                text, shown = reader.cell(attached.get(prompt[0]), prompt[1].strip()[:MAX_ANSWER_CHARS], names)
            answers[current], images[current] = text, shown
        current = None

    for index, cell in enumerate(cells):
        _check_time(deadline, path)
        text = _text(cell)[:MAX_SCAN_CHARS]
        markdown = cell.get("cell_type") == "markdown"
        begin = _BEGIN_Q.search(text) if markdown else None
        if current is not None:
            end = _END_Q.search(text)
            if end is not None and (begin is None or end.start() < begin.start()):
                if markdown and text[:end.start()].strip():
                    take(index, text[:end.start()])
                close()
            elif begin is not None:
                close()
            elif cell.get("cell_type") in _ANSWER_CELL_TYPES:
                take(index, text)
        if begin is not None:
            rest = text[begin.end():]
            current = _question_name(rest) or _question_name(text) or f"manual{len(answers) + 1}"
            buf, found, names, size = [], [], set(), 0
            end = _END_Q.search(rest)       # BEGIN, answer and END merged into one cell
            prompt = (index, rest[:end.start()] if end else rest)
            if end is not None:
                close()
    close()
    return answers, {key: found for key, found in images.items() if found}


def _check_tags(cells: list, path: Path) -> None:
    """Every cell's `metadata.tags`, where present, is a list of strings (Jupyter writes nothing else). nbformat words
    a schema error with a second, jsonschema pass, and jsonschema checks the tags' `uniqueItems` by comparing every
    pair when the items cannot be sorted (dicts, numbers beside strings): 3000 one-key dicts, a 68 KB notebook, held
    intake 50 s inside nbformat.validate, where the intake's own time bound is never checked (red-team round 62)."""
    for number, cell in enumerate(cells, 1):
        meta = cell.get("metadata") if isinstance(cell, dict) else None
        tags = meta.get("tags") if isinstance(meta, dict) else None
        if tags is not None and not (isinstance(tags, list) and all(type(t) is str for t in tags)):
            raise SubmissionError(f"{shown_name(path)}: cell {number}'s tags are not a list of text labels, so the "
                                  "notebook is damaged (Jupyter never writes that): open it in Jupyter, save it, "
                                  "and resubmit")


# What grading never reads of a cell: checked against nbformat's schema, each refused a right notebook (red-team round 98)
_UNREAD_CELL_KEYS = ("metadata", "execution_count", "id")


def _what_grading_reads(data: dict) -> dict:
    """The notebook as grading reads it, for nbformat's schema check: its format, its cells' types and sources,
    without the metadata, execution counts and cell ids that no part of grading reads (the otter assignment name
    and the tags are read, and checked, on their own). Schema errors there refused a right notebook, 0 points,
    "Jupyter could not open it either": a kernelspec without display_name (JupyterLab after its kernel is
    uninstalled, jupytext), code cells without execution_count (PyCharm), a cell id longer than 64 characters
    (red-team round 98). The cells are shallow copies: `data` is left as it was. Each cell's id is its number (nbformat
    would draw a random one for a cell without, and its error message quotes the cell: one rejection, two wordings)."""
    cells = [{**{k: v for k, v in cell.items() if k not in _UNREAD_CELL_KEYS}, "metadata": {}, "id": f"cell-{number}",
              **({"execution_count": None} if cell.get("cell_type") == "code" else {})}
             if isinstance(cell, dict) else cell for number, cell in enumerate(data["cells"], 1)]
    # "nbformat": 4.0 is 4 to json and to Jupyter's reader (_check_json let it through), but no integer to the schema
    return {**{k: v for k, v in data.items() if k not in ("metadata", "cells")}, "nbformat": 4, "metadata": {},
            "cells": cells}


def _validate(data: dict, path: Path) -> None:
    """nbformat's schema check of what grading reads (_what_grading_reads; outputs are already stripped: checking
    500k of them took 12 s), after the cell tags' own (_check_tags: what made nbformat's error wording quadratic)."""
    _check_tags(data["cells"], path)
    minor = data.get("nbformat_minor")
    if type(minor) is not int or minor < 0:
        # nbformat asserts it is an int (an AssertionError, then an IndexError out of intake: "could not be read
        # as a notebook (IndexError)", red-team round 98)
        raise SubmissionError(f"{shown_name(path)}: the notebook's format version is damaged (its minor version "
                              f"{escape_unshown(str(minor)[:20])!r} is not a whole number from 0 up): open it in "
                              "Jupyter, save it, and resubmit")
    try:
        # nbformat warns once per cell of a notebook whose cell ids are missing or repeated (one a VS Code or a merge
        # wrote), in words about its own API: two lines each on the instructor's terminal, 72 for one 37-cell
        # notebook in a batch (red-team round 73). Ids are no part of grading
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbformat.validate(_what_grading_reads(data), relax_add_props=True)
    except Exception as e:  # nbformat raises several types; all mean "malformed"
        raise SubmissionError(f"{shown_name(path)}: the notebook's structure is damaged, so Jupyter could not "
                              f"open it either ({str(e).splitlines()[0][:160]}): open it in Jupyter, "
                              "save it, and resubmit") from None


# A cell's first line in an exported .py: Jupyter's `# In[3]:`, and the percent format's `# %%` (VS Code's "Export to
# Python Script", jupytext, Spyder; `# %% [markdown]`, `# %% tags=[...]` after it). Read as one cell, a percent-format
# export lost everything after its first failing cell (a stray cell costs the notebook nothing: 35/35 as .ipynb,
# 0/35 as .py, red-team round 98). A Windows line end (\r\n) ends a marker's line too
_EXPORTED_CELL = re.compile(r"^(?:# In\[[ 0-9]{0,12}\]:[ \t]*|#[ \t]{0,20}%%(?:[ \t][^\r\n]{0,1000})?)\r?$", re.M)


_EXPORTED_CELL_KEPT = re.compile(f"({_EXPORTED_CELL.pattern})", re.M)
# jupytext's percent format writes a cell's metadata on its marker line as key=JSON: `# %% tags=["otter_ignore"]`,
# `# %% otter={"ignore": true}`
_PERCENT_TAGS = re.compile(r"[ \t]tags=(\[[^\]\r\n]*\])")
_PERCENT_OTTER = re.compile(r"[ \t]otter=(\{[^{}\r\n]*\})")


def _percent_ignored(marker: str) -> bool:
    """Whether a percent-format cell marker (`# %% tags=["otter_ignore"]`) is of a cell otter's grading skips
    (_otter_ignored): the notebook's jupytext export ran its scratch `def stable_softmax` over the answer, 14/35
    where the .ipynb grades 35/35 (red-team round 101). Anything unreadable there is no such mark."""
    meta: dict[str, Any] = {}
    for key, pattern in (("tags", _PERCENT_TAGS), ("otter", _PERCENT_OTTER)):
        found = pattern.search(marker) if marker.startswith("#") and "%%" in marker else None
        try:
            meta[key] = json.loads(found.group(1)) if found else None
        except (ValueError, RecursionError):
            meta[key] = None
    if not (isinstance(meta["tags"], list) and all(type(t) is str for t in meta["tags"])):
        meta.pop("tags")
    return _otter_ignored({"metadata": meta})


def read_submission(path: Path, limits: Limits | None = None) -> Submission:
    """Read one submission: a notebook (its outputs stripped) or a .py file. Raises SubmissionError
    with the reason in plain words."""
    limits = limits or Limits()
    deadline = time.monotonic() + INTAKE_TIMEOUT_S
    path = Path(path)
    if not path.is_file():
        raise SubmissionError(f"{escape_unshown(str(path))} does not exist or is not a file")
    size = path.stat().st_size
    if size > limits.upload_mb * 2**20:
        raise SubmissionError(f"{shown_name(path)} is {size / 2**20:.0f} MiB; the largest file read is {limits.upload_mb} MiB: "
                              "clear its outputs (Kernel > Restart & Clear Output), save, and submit again")
    raw = path.read_bytes()
    # A UTF-8 byte-order mark is no part of the text: Windows editors (Notepad, PowerShell's UTF8) write one, VS Code
    # opens such a notebook, and Python skips it in a source file. Kept, it made a right notebook "not a notebook (it
    # does not start with '{')" and a right .py export's first cell a SyntaxError (red-team round 73)
    raw = raw.removeprefix(codecs.BOM_UTF8)
    if path.suffix == ".py":
        try:
            src = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SubmissionError(f"{shown_name(path)}: the file is not text (not UTF-8)") from None
        _check_code_size([src], path)
        # Jupyter's "export as Python" marks each cell `# In[3]:`, the percent format `# %%` (_EXPORTED_CELL): graded
        # cell by cell, as the notebook is (a line that fails loses its cell, not the rest of the file); IPython
        # syntax as in a notebook's cells
        pieces = _EXPORTED_CELL_KEPT.split(src)      # text before the first marker, then (marker, its cell) pairs
        marked = [("", pieces[0])] + [(pieces[i], pieces[i + 1]) for i in range(1, len(pieces), 2)]
        parts = ["" if _percent_ignored(marker) else part for marker, part in marked if part.strip()] or [src]
        if len(parts) > MAX_CELLS:      # as for a notebook (red-team round 53: 45,000 marks in one export)
            raise SubmissionError(f"{shown_name(path)} has {len(parts):,} cells; the limit is {MAX_CELLS:,}")
        return Submission(path=path, cells=[_otter_check_without_globals(transform_ipython(part)) for part in parts])
    data = _check_json(raw, path)
    del raw
    _check_time(deadline, path)
    _strip_outputs(data)
    # Attached images are bounded by limits.attachment_mb/attachments_mb, not by notebook_mb: a
    # pasted photo of a proof must never make a submission ungradable (autograder.grading.attachments).
    attached = take_attachments(data["cells"])
    stripped = _stripped_size(data)
    if stripped > limits.notebook_mb * 2**20:
        raise SubmissionError(f"{shown_name(path)} is {stripped / 2**20:.0f} MiB without its outputs; the limit is "
                              f"{limits.notebook_mb} MiB (outputs do not count): is data pasted into a cell?")
    _check_time(deadline, path)
    _validate(data, path)
    _check_time(deadline, path)
    # an ignored cell is kept as an empty one, not left out: a Run All in Jupyter runs it and numbers it, and each
    # message names a cell by its place among the code cells (`Cell In[23]`): left out, every cell below it was
    # named one number early, a SyntaxError told in a cell that has none (red-team round 101)
    sources = ["" if _otter_ignored(cell) else _text(cell) for cell in data["cells"] if cell.get("cell_type") == "code"]
    _check_code_size(sources, path)
    cells = []
    for src in sources:
        _check_time(deadline, path)
        cells.append(_otter_check_without_globals(transform_ipython(src)))
    answers, images = _manual_answers(data["cells"], deadline, path, attached,
                                      AttachmentReader(limits.attachment_mb, limits.attachments_mb))
    return Submission(path=path, cells=cells, manual_answers=answers, manual_attachments=images,
                      assignment_name=_assignment_name(data), prose_bound=_prose_bound(data["cells"]),
                      python_version=_python_version(data))


# a line of a markdown or raw cell that binds a name as code would (red-team round 81: a solution pasted into a
# markdown cell was told only "not defined ... run every cell"). Read within MAX_PROSE_CHARS in all (a pasted answer
# is a few KB; 20 MB of prose lines cost the regex seconds)
_PROSE_BINDS = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w{0,99})[ \t]*\(|^[ \t]*class[ \t]+([A-Za-z_]\w{0,99})"
                          r"|^([A-Za-z_]\w{0,99})[ \t]*=(?!=)", re.M | re.ASCII)
MAX_PROSE_CHARS = 500_000
MAX_PROSE_NAMES = 200


def _prose_bound(cells: list[Any]) -> dict[str, str]:
    """The names markdown and raw cells bind as code would, each with the first such cell's type (at most
    MAX_PROSE_NAMES, read in the cells' first MAX_PROSE_CHARS): only ever compared with a name the grader asks for,
    never shown as the student wrote it."""
    found: dict[str, str] = {}
    left = MAX_PROSE_CHARS
    for cell in cells:
        kind = cell.get("cell_type") if isinstance(cell, dict) else None
        if kind not in ("markdown", "raw") or left <= 0:
            continue
        text = _text(cell)[:left]
        left -= len(text)
        for m in _PROSE_BINDS.finditer(text):
            found.setdefault(m.group(1) or m.group(2) or m.group(3), kind)
            if len(found) >= MAX_PROSE_NAMES:
                return found
    return found


def _otter_ignored(cell: dict) -> bool:
    """Whether otter's grading skips this cell: tagged `otter_ignore`, or `metadata.otter.ignore` set (otter 7,
    execute/preprocessor.py filter_ignored_cells), what otter's documentation has a student do to a long experiment.
    Run here, such a cell past cell_timeout_s stopped the worker: a right notebook 0/35 that otter grades 35/35
    (red-team round 98). Skipped (an empty cell in its place), it is neither run nor read by the static rules or the
    similarity page (all read these cells), so tagging a cell hides nothing that is graded."""
    meta = cell.get("metadata")
    if not isinstance(meta, dict):
        return False
    otter = meta.get("otter")
    return "otter_ignore" in (meta.get("tags") or ()) or (isinstance(otter, dict) and otter.get("ignore") is True)


def _check_code_size(sources: list[str], path: Path) -> None:
    size = sum(len(s) for s in sources)
    if size > MAX_CODE_CHARS:
        raise SubmissionError(f"{shown_name(path)} has {size:,} characters of code; the limit is {MAX_CODE_CHARS:,}")
