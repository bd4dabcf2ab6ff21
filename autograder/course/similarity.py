"""Similar submissions: the pairs of a class that share their graded functions' code, beyond what
everyone was given. Written by `batch` and `merge` as OUT/similarity.html (ranked pairs, each with a
side-by-side view, shared passages marked) and OUT/similarity.csv (`a`, `b`, `score`, `flagged`: one
row per pair at or above grading.yml's `similarity.floor`). Advice for a person, never a verdict: it
runs after the outputs are written, reads no result and changes no score.

What is compared. The graded functions: the names the hidden tests take as arguments
(`graded_names`, read from the test files' source, nothing imported) that a submission defines with
`def` at the top level of a cell (the last definition wins, as when the notebook runs top to bottom; a
name bound otherwise, by a lambda, an alias, a for target, a walrus, an instance of a class, is that
statement and the definitions it reads),
or grading.yml's `similarity.functions` where it names them; plus every helper those functions call
that the notebook defines (a copied helper is copied code). They are taken from the cells intake reads
(`intake.read_submission`: size, JSON and time bounded), in this trusted process, without executing
anything: each cell that defines or imports anything is `ast.parse`d (one that is not Python, too deep
or too large is left out and said), each function is tokenized (`tokenize`) from its own lines; every
walk here is iterative.

Normalised. Comments, docstrings and string statements go; every string literal is one token, so is
every f-string; layout never counts (tokens, not characters), and a `;` ends a line as a line's end does. A
name is read as Python reads it, in its NFKC form (`𝐭orch` is `torch`). A name is kept when it means the same
in every notebook: keywords, builtins, attributes (`.masked_fill`), keyword arguments (`dim=`) and the
graded functions' names; a name an import binds is written as what it imports (`F` and
`torch.nn.functional` are the same tokens). Every other name, the function's locals, its parameters,
its helpers', becomes a placeholder numbered by first appearance in its function: a copy whose
variables were renamed is token for token the same, while two students who merely both call a
variable `scores` are not matched on that. A def's or class's own name is one token, whatever it is.

Boilerplate. What every student is given or taught is removed before anything is compared: the
student template's cells (`student_template/<slug>.ipynb`: the stubs, their signatures and
docstrings), the course's reference (`reference/*.py`) and the master notebook's cells plus the code in
its text (the lesson's formulas as written there, inline and fenced). A passage of a submission is
boilerplate when its k tokens equal a passage of those with every placeholder read as one (whatever
the variables are numbered there). Boilerplate is neither matched nor counted in the score.

Fingerprints: winnowing (Schleimer, Wilkerson and Aiken 2003, the algorithm MOSS runs). Each run of
K consecutive tokens gets a 64-bit hash (buzhash: rotated, XORed per-token hashes from blake2b,
identical in every process; a local name hashed as how far back in the run it was last used, a parameter
as its place in the header, so a dead name added above copied code renumbers nothing: red-team round 72); of every WINDOW consecutive hashes the smallest is kept (the rightmost
on a tie). Any passage of K + WINDOW - 1 tokens two submissions share is found; shorter noise is not.

Why not copydetect (PyPI 0.5.0, the library that packages MOSS's winnowing in Python). Measured here:
its fingerprints are Python's `hash()` of text, salted per process, so the passages winnowing keeps
change from run to run: one pair scored 0.706 to 0.762 over six runs (PYTHONHASHSEED 1-6, window 4).
A class would rank differently each time it is graded, a pair near the threshold flagged in one run
and not the next, and fingerprints could never be compared across processes (shards). Its tokenizer
(pygments) writes every name as `V`, erasing which variable is which (more honest pairs alike); its
report holds script. What would stay of it is its 20-line winnowing loop (pure Python in its wheel),
and importing that imports its whole detector (matplotlib.pyplot, jinja2 and tqdm, a new dependency;
last release 2024-03, "Beta"). So the winnowing is written here, over numpy, in a few lines.

The score of a pair: the share of both submissions' non-boilerplate tokens that lie in passages they
share, (covered in a + covered in b) / (tokens of a + tokens of b), from 0 to 1; a passage a submission
writes again is counted once (its repeats are neither its tokens nor covered). A passage most of the
class shares (more than COMMON_SHARE of the class, and more than COMMON_MIN submissions) is treated
as boilerplate the lesson did not write down: it stays in the counts but matches nobody (as MOSS's
-m). `flagged` is score >= threshold (grading.yml) with MIN_FLAGGED_TOKENS shared on each side. Only pairs at or
above the floor with MIN_LISTED_TOKENS shared on each side are listed, the best MAX_LISTED of them (a class's pairs
grow with its square: how many more scored is said on the page and in the batch's notes).

Shards: each batch writes OUT/similarity.json (each submission's extracted functions as source, its
import names, and what was left out), `merge` reads every shard's file (size bounded, a link refused,
validated by a strict schema; sources are tokenized again by the same bounded code) and compares the
whole class: the merged report is the one a single batch would have written (a shard's own page
compares only its share). A shard whose file is missing or damaged is named on the page and in the
CLI's notes, and its submissions are left out.

Every student string on the page (code, names) is escaped; control, bidi and zero-width characters
are shown as \\uXXXX escapes, so code reads as it is stored. The page runs no script and loads nothing
(the Content-Security-Policy of report.html); the CSV's text cells go through text.csv_cell.

Speed (MEASURED below): 500 submissions in 4.5 s on this 2-core machine (load 1.7), 9.3 s at most while other
graders ran: well inside the 30 s asked; about half of it (profiled) is reading the notebooks again (intake) and tokenizing."""
from __future__ import annotations

import ast
import bisect
import builtins
import csv
import hashlib
import io
import json
import keyword
import os
import re
import stat
import tokenize
import unicodedata
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Literal, Mapping, Optional, Sequence

import jinja2
import numpy as np
from markupsafe import Markup, escape
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from autograder.course.atomic import DiskFault, write_atomic
from autograder.errors import GraderError, SubmissionError
from autograder.grading.pyparse import parse, source_lines

if TYPE_CHECKING:
    from autograder.config import Course, Limits, SimilaritySettings
    from autograder.course.exports import Discovery, Entry

MEASURED = ("500 submissions in 4.5 s on this 2-core machine (load average 1.7), 7.9 to 9.3 s (three runs) while other "
            "graders ran (load average 8.5); bench/bench_similarity.py: reading the notebooks, extracting, "
            "fingerprinting, comparing every pair and writing similarity.json, .html and .csv. Its class is "
            "harder than a real one: 22 solutions each renamed into ~23 near-copies, 6,446 pairs above the floor")

K = 12                       # tokens in a fingerprinted passage (MOSS's noise threshold, in tokens)
WINDOW = 4                   # winnowing window: any shared run of K + WINDOW - 1 = 15 tokens is found
COMMON_SHARE = 0.2           # a passage in more than this share of the class matches nobody ...
COMMON_MIN = 10              # ... once it is in more than this many submissions
MAX_FUNCTIONS = 40           # graded functions and helpers taken from one submission
MAX_FUNCTION_CHARS = 40_000  # a longer function is left out (and said)
MAX_SUBMISSION_CHARS = 200_000  # all its extracted functions together
MAX_IMPORTS = 500
MAX_NAME = 200
MAX_VIEWS = 200              # side-by-side views on the page
MAX_LISTED = 5_000           # pairs listed on the page and in the CSV (the best; how many more scored is said)
# A pair is listed when each side shares at least MIN_LISTED_TOKENS of its own (not given) tokens: a shorter match is
# noise (the passage winnowing is sure to find) that only reached K tokens by running into the template's, e.g. two
# students who wrote `raise NotImplementedError()` in every stub scored 0.75, and `return torch.softmax(x, dim=dim)`
# 1.0 on one token (red-team round 103). It is flagged only with MIN_FLAGGED_TOKENS each side: a one-line right
# answer (`torch.tril(torch.ones(T_q, T_k or T_q)).bool()`: 19 tokens, 0.86) is what any student writes.
MIN_LISTED_TOKENS = K + WINDOW - 1
MIN_FLAGGED_TOKENS = 30
MAX_STORED_BYTES = 256 * 2**20  # a shard's similarity.json (500 submissions write 0.8 MB)
STORED_FORMAT = "autograder-similarity-1"
ENGINE_PARAMS = frozenset({"device", "rng", "submission", "env"})  # as autograder.grading.hidden: filled by the engine

_SURROGATE = re.compile("[\ud800-\udfff]")


# --- what is compared ------------------------------------------------------------------------------
def _is_test_case(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "test_case") or \
        (isinstance(target, ast.Attribute) and target.attr == "test_case")


def graded_names(hidden_dir: Path) -> list[str]:
    """The names the hidden tests take from the student's namespace, in file and test order, read from
    the test files' source (an otter @test_case function's parameters, less the engine's own)."""
    names: dict[str, None] = {}
    for path in sorted(hidden_dir.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            tree = parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, ValueError) as e:
            raise GraderError(f"cannot read hidden test file {path}: {e}") from None
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(map(_is_test_case, node.decorator_list)):
                a = node.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                    if arg.arg not in ENGINE_PARAMS:
                        names.setdefault(arg.arg)
    return list(names)


def compared_names(course: "Course", slug: str) -> list[str]:
    """grading.yml's similarity.functions for the assignment, else every name its hidden tests take
    (only those a notebook defines as functions are compared)."""
    chosen = course.settings(slug).similarity.functions
    return list(chosen) if chosen else graded_names(course.assignment_dir(slug) / "hidden")


# --- extraction: trusted, nothing executed, bounded --------------------------------------------------
def _valid_name(name: str) -> bool:
    return len(name) <= MAX_NAME and name.isidentifier()


class StoredFunction(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(max_length=MAX_NAME)
    source: str = Field(max_length=MAX_FUNCTION_CHARS)
    cell: int = Field(ge=0, le=100_000)   # the code cell it came from, 0-based
    line: int = Field(ge=1, le=10_000_000)  # its first line in that cell

    @field_validator("name")
    @classmethod
    def _identifier(cls, name: str) -> str:
        if not _valid_name(name):
            raise ValueError("not a function name")
        return name


class StoredSubmission(BaseModel):
    """What similarity needs of one submission, as similarity.json keeps it for `merge`."""
    model_config = ConfigDict(extra="forbid")
    functions: list[StoredFunction] = Field(default_factory=list, max_length=MAX_FUNCTIONS)
    imports: dict[str, str] = Field(default_factory=dict, max_length=MAX_IMPORTS)
    note: str = Field("", max_length=2000)  # what was left out, and why (for the page)

    @field_validator("imports")
    @classmethod
    def _names(cls, imports: dict[str, str]) -> dict[str, str]:
        if not all(_valid_name(a) and len(m) <= MAX_NAME for a, m in imports.items()):
            raise ValueError("an import name that is not one")
        return imports


class StoredClass(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["autograder-similarity-1"]
    assignment: str = Field(max_length=MAX_NAME)
    submissions: dict[str, StoredSubmission]


def _parse(source: str) -> Optional[ast.Module]:
    try:
        return parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _import_names(tree: ast.AST, into: dict[str, str]) -> None:
    """Names an import binds -> what they import ('F' -> 'torch.nn.functional'), from anywhere in `tree`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for al in node.names:
                if al.asname:
                    into[al.asname] = al.name
                else:
                    top = al.name.split(".")[0]
                    into[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for al in node.names:
                if al.name != "*":
                    into[al.asname or al.name] = f"{node.module}.{al.name}"


def _called_names(node: ast.AST) -> list[str]:
    """Names a function body reads, in order of appearance (helpers it may call or pass on)."""
    seen: dict[str, None] = {}
    local: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        # its parameters and the names it stores are its own, not a global of the same name (a demo cell's `mask`)
        declared = {g for n in ast.walk(node) if isinstance(n, (ast.Global, ast.Nonlocal)) for g in n.names}
        local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        local -= declared
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local:
            seen.setdefault(n.id)
    return list(seen)


_BLOCKS = tuple(getattr(ast, kind) for kind in ("If", "Try", "TryStar", "With", "AsyncWith", "For", "AsyncFor",
                                                  "While", "Match") if hasattr(ast, kind))
MAX_BLOCK_DEPTH = 20      # Python itself refuses more statically nested blocks than this
_Definition = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class _BoundTo:
    """A name bound at module level by a statement that is neither a def nor an alias (`f = lambda ...: g(...)`,
    `for f in [g]:`, `(f := g)`, `f = Cls()`): `shown` is what the page quotes (its lines), `value` what is read."""
    shown: ast.AST
    value: ast.AST


def _header_bindings(node: ast.AST) -> Iterator[tuple[str, _BoundTo]]:
    """The names a block's header binds (a for target, a with's `as`, a case's capture, a walrus in its test)."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        for target in ast.walk(node.target):
            if isinstance(target, ast.Name):
                yield target.id, _BoundTo(node.iter, node.iter)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            for target in ast.walk(item.optional_vars) if item.optional_vars is not None else ():
                if isinstance(target, ast.Name):
                    yield target.id, _BoundTo(item.context_expr, item.context_expr)
    elif hasattr(ast, "Match") and isinstance(node, ast.Match):
        for case in node.cases:
            for pattern in ast.walk(case.pattern):
                name = getattr(pattern, "name", None) or getattr(pattern, "rest", None)
                if isinstance(name, str):
                    yield name, _BoundTo(node.subject, node.subject)
    for part in [getattr(node, "test", None), getattr(node, "iter", None),
                 *(item.context_expr for item in getattr(node, "items", []))]:
        yield from _walrus_bindings(part, part)


def _walrus_bindings(node: Optional[ast.AST], shown: Optional[ast.AST]) -> Iterator[tuple[str, _BoundTo]]:
    """The names `:=` binds anywhere in `node` (at module level they are module names), each shown as `shown`."""
    if node is None or shown is None:
        return
    for n in ast.walk(node):
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            yield n.target.id, _BoundTo(shown, n.value)


def _top_level_bindings(body: Sequence[ast.stmt]) -> Iterator[tuple[str, "ast.AST | _BoundTo | str | None"]]:
    """The names a cell binds at module level, in the order its statements are written: a def or a class (also
    one inside a module-level if / try / with / for / while / match, which binds at module level when it runs: a
    copy indented under `if True:` is still the function graded), `name = other` and `name = wrap(other)` (other's
    def, by name: the last name passed), and any other binding (an assignment, a for or with target, a walrus, a
    case's capture: _BoundTo, which `extract` keeps when it reads a definition or holds a lambda, red-team round 72).
    Both branches of an if are read in order, so the last written wins, as the last cell does. Read without
    recursion (a cell's nesting is the student's)."""
    pending: list[tuple[int, Iterator[ast.AST]]] = [(0, iter(body))]
    while pending:
        depth, statements = pending[-1]
        node = next(statements, None)
        if node is None:
            pending.pop()
        elif isinstance(node, _Definition):
            if _valid_name(node.name):
                yield node.name, node
        elif isinstance(node, _BLOCKS) and depth < MAX_BLOCK_DEPTH:
            yield from _header_bindings(node)
            parts = [getattr(node, part, []) for part in ("body", "handlers", "orelse", "finalbody", "cases")]
            children = [c for part in parts for c in part]
            pending.append((depth + 1, iter(children)))
        elif isinstance(node, ast.ExceptHandler) or (hasattr(ast, "match_case") and isinstance(node, ast.match_case)):
            pending.append((depth, iter(node.body)))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
            if isinstance(value, ast.Call):   # f = torch.compile(f), f = functools.wraps(g)(h): the def passed
                value = next((a for a in reversed(value.args) if isinstance(a, ast.Name)), value)
            if _valid_name(target):
                yield target, value.id if isinstance(value, ast.Name) else _BoundTo(node, node.value)
            yield from _walrus_bindings(node.value, node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets: list[ast.expr] = node.targets if isinstance(node, ast.Assign) else [node.target]
            for part in [t for tg in targets for t in ast.walk(tg)]:
                if isinstance(part, ast.Name) and _valid_name(part.id):
                    yield part.id, _BoundTo(node, node.value)
            yield from _walrus_bindings(node.value, node)
        elif isinstance(node, ast.stmt):
            yield from _walrus_bindings(node, node)


def _reads_definition(bound: _BoundTo, defs: Mapping[str, object]) -> bool:
    """A binding worth comparing: its value holds a lambda or reads a def or class of the notebook."""
    return any(isinstance(n, ast.Lambda) or (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in defs)
               for n in ast.walk(bound.value))


def extract(cells: Sequence[str], names: Sequence[str]) -> StoredSubmission:
    """The functions named in `names` that the cells bind at module level (the last binding of each),
    then the helpers they read that the cells define too, each as its own lines of source. Never
    raises for any cell text: what cannot be read is left out and said in `note`."""
    defs: dict[str, tuple[int, ast.AST, list[str]]] = {}
    imports: dict[str, str] = {}
    unreadable = 0
    for index, cell in enumerate(cells):
        if not cell.strip():
            continue  # every other cell is read: `f = my_f` in a cell of its own binds the graded name (round 72)
        if _SURROGATE.search(cell):  # bytes a notebook's JSON escaped that are not text: never written out
            cell = cell.encode("utf-8", "replace").decode("utf-8")
        tree = _parse(cell)
        if tree is None:
            unreadable += 1
            continue
        # the cell's lines as Python numbers them (the tree's linenos): str.splitlines also ends a line at U+2028,
        # \x0c, \x1c-\x1e, \x85, which a comment may hold, and every def after one was cut from the wrong lines:
        # `# \u2028` atop a copied cell scored it 0.0 against its original, 0.963 without (red-team round 76)
        lines = source_lines(cell)
        # whether a value reads a definition, walked once per value: every target of `a0, ..., aN = v` (a for's,
        # a chain's `a = b = v`) shares v, and a walk per target was quadratic: a 39 KB cell held the class's
        # page for 21 s (red-team round 76). One answer for all is the walk's own: v is read before any target
        # is bound, and a target bound after a True answer only adds to `defs`, after a False one only removes
        reads: dict[int, bool] = {}
        for name, bound in _top_level_bindings(tree.body):
            if not _valid_name(name):
                # a for's, a with's, a case's or a walrus's name longer than MAX_NAME: never a graded name, and as a
                # helper one StoredFunction refuses, which took the similarity page from the whole class (round 76)
                continue
            if isinstance(bound, _BoundTo) and id(bound.value) not in reads:
                reads[id(bound.value)] = _reads_definition(bound, defs)
            if isinstance(bound, str) and bound in defs:
                defs[name] = defs[bound]      # an alias or a wrapper of a def read here: that def's code
            elif isinstance(bound, _Definition):
                defs[name] = (index, bound, lines)
            elif isinstance(bound, _BoundTo) and reads[id(bound.value)]:
                defs[name] = (index, bound.shown, lines)  # compared as its own lines and the definitions it reads
            else:
                defs.pop(name, None)          # bound to what no def here says: the def above is not graded
        if "import" in cell and len(imports) < MAX_IMPORTS:
            _import_names(tree, imports)
    notes = [f"{unreadable} code cell{'s are' if unreadable != 1 else ' is'} not valid Python (left out)"] if unreadable else []

    def lines_of(name: str) -> tuple[int, int, str]:
        index, node, lines = defs[name]
        first = min([getattr(node, "lineno", 1), *(d.lineno for d in getattr(node, "decorator_list", []))])
        return index, first, "\n".join(lines[first - 1: getattr(node, "end_lineno", first)]) + "\n"

    functions: list[StoredFunction] = []
    skipped: list[str] = []
    total = 0
    # each name once, each statement's lines cut once: 4000 names bound by one statement of 400,000 lines
    # (`a0 = ... = a3999 = (g, 0, ...)`, called by the graded function) were each cut and joined from its lines and
    # looked up in a list: 75 s of the class's page for a 1.3 MB notebook (red-team round 76)
    seen: set[str] = set()
    cut: dict[int, tuple[int, int, str]] = {}   # id of a node in `defs` (alive while `defs` is) -> lines_of
    queue = deque(n for n in dict.fromkeys(names) if n in defs)
    while queue and len(functions) < MAX_FUNCTIONS:
        name = queue.popleft()
        if name in seen:
            continue
        seen.add(name)
        node_id = id(defs[name][1])
        if node_id not in cut:
            cut[node_id] = lines_of(name)
        index, first, source = cut[node_id]
        if len(source) > MAX_FUNCTION_CHARS or total + len(source) > MAX_SUBMISSION_CHARS:
            skipped.append(name)
            continue
        total += len(source)
        functions.append(StoredFunction(name=name, source=source, cell=index, line=first))
        queue.extend(n for n in _called_names(defs[name][1]) if n in defs)  # its helpers, then theirs
    if skipped:
        notes.append(f"too long to compare: {', '.join(skipped[:5])}")
    if not functions:
        notes.append("defines none of the functions compared")
    kept = {a: m for a, m in list(imports.items())[:MAX_IMPORTS] if _valid_name(a) and len(m) <= MAX_NAME}
    return StoredSubmission(functions=functions, imports=kept, note="; ".join(notes)[:2000])


def extract_file(path: Path, names: Sequence[str], limits: Optional["Limits"] = None) -> StoredSubmission:
    """`extract` of a submission file as intake reads it; a file intake refuses gives no functions."""
    from autograder.grading.intake import read_submission
    try:
        sub = read_submission(path, limits)
    except SubmissionError:
        return StoredSubmission(note="not readable as a notebook (see its results)")
    except Exception as e:  # noqa: BLE001 - one file the reader trips on is a note for that file, never
        # the class's report (a red-team notebook once stopped it for everyone with one ValueError)
        return StoredSubmission(note=f"not readable as a notebook ({type(e).__name__}; see its results)")
    try:
        return extract(sub.cells, names)
    except Exception as e:  # noqa: BLE001 - as above: one notebook's trouble is a note for it, never the class's page
        # (red-team round 76: a helper's 250-character name raised StoredFunction's ValidationError out of here, and
        # the batch wrote no similarity page for anyone)
        return StoredSubmission(note=f"its functions could not be read ({type(e).__name__}; a grader problem)")


# --- normalised tokens --------------------------------------------------------------------------------
_BUILTINS = frozenset(dir(builtins))
_STRUCTURE = {tokenize.NEWLINE: "\n", tokenize.INDENT: "{", tokenize.DEDENT: "}"}
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)  # Python 3.12+: an f-string is several tokens
_FSTRING_END = getattr(tokenize, "FSTRING_END", -2)
_PLACEHOLDER = "\0v"
_DEFINED = "\0f"             # the name a def or class statement gives, when it is not kept


@dataclass
class Tokens:
    """One function as tokens: `text` the normalised tokens (placeholders numbered), `blind` the same
    with every placeholder alike (for boilerplate), `spans` each token's characters in the source
    ((-1, -1) for a line's end, an indent or a dedent)."""
    text: list[str] = field(default_factory=list)
    blind: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)


def normalise(source: str, imports: Mapping[str, str], kept: Iterable[str] = ()) -> Tokens:
    """`source` (a function, a cell, a module) as normalised tokens (see the module's docstring). Read
    by `tokenize` alone (a keyword argument is a name followed by `=` inside a call's brackets); source
    longer than MAX_SUBMISSION_CHARS, or that does not tokenize, gives no tokens."""
    out = Tokens()
    if len(source) > MAX_SUBMISSION_CHARS:
        return out
    keep = frozenset(kept)
    starts = [0]
    for text_line in io.StringIO(source):   # the lines tokenize reads below: only \n ends one (not splitlines')
        starts.append(starts[-1] + len(text_line))
    numbered: dict[str, str] = {}
    line: list[tuple[str, str, tuple[int, int], int]] = []  # a logical line: (text, blind, span, type)
    fstring = 0
    depth = 0
    header: Optional[int] = None     # the depth of a def's parameter list, while in it
    lambda_at: Optional[int] = None  # the depth of a lambda's parameters, while in them
    pending_def = False
    joined = False                   # the last line ended at a `;`

    def at(row: int, col: int) -> int:
        return starts[row - 1] + col if row - 1 < len(starts) else starts[-1]

    def flush() -> None:
        # a line of nothing but strings is a docstring or a comment written as a string: left out
        if line and not all(kind == tokenize.STRING for *_x, kind in line):
            for text, blind, span, _kind in line:
                out.text.append(text)
                out.blind.append(blind)
                out.spans.append(span)
        line.clear()

    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _SKIP]
        for i, tok in enumerate(toks):
            kind, text = tok.type, tok.string
            span = (at(*tok.start), at(*tok.end))
            if fstring:
                fstring += (kind == _FSTRING_START) - (kind == _FSTRING_END)
                if fstring == 0:
                    line[-1] = (line[-1][0], line[-1][1], (line[-1][2][0], span[1]), tokenize.STRING)
                continue
            if kind == tokenize.OP and text == ";" and depth == 0:
                kind = tokenize.NEWLINE  # statements joined with `;` are the lines they join (round 72)
                joined = True
            elif kind == tokenize.NEWLINE and joined and not line:
                joined = False
                continue  # `x = 1;` ends its line once
            else:
                joined = False
            if kind in _STRUCTURE:
                if kind == tokenize.NEWLINE:
                    flush()
                out.text.append(_STRUCTURE[kind])
                out.blind.append(_STRUCTURE[kind])
                out.spans.append((-1, -1))
                continue
            if kind == _FSTRING_START:
                fstring = 1
                line.append(("STR", "STR", span, tokenize.STRING))
                continue
            if kind == tokenize.OP:
                if text in "([{":
                    if pending_def and text == "(":
                        header, pending_def = depth, False
                    depth += 1
                elif text in ")]}":
                    depth -= 1
                    if header is not None and depth == header:
                        header = None
                elif text == ":" and lambda_at is not None and depth == lambda_at:
                    lambda_at = None
            if kind == tokenize.STRING:
                line.append(("STR", "STR", span, kind))
            elif kind == tokenize.NAME:
                if not text.isascii():  # Python reads a name as its NFKC form (PEP 3131): `𝐭orch` is `torch` (round 72)
                    text = unicodedata.normalize("NFKC", text)
                before = toks[i - 1].string if i else ""
                after = toks[i + 1].string if i + 1 < len(toks) else ""
                argument = depth > 0 and header is None and lambda_at is None and after == "=" and before in ("(", ",")
                if text == "def":
                    pending_def = True
                elif text == "lambda" and lambda_at is None:
                    lambda_at = depth
                if keyword.iskeyword(text) or before == "." or argument or text in keep \
                        or (text in _BUILTINS and text not in imports):
                    line.append((text, text, span, kind))
                elif before in ("def", "class"):
                    # a definition's own name is not numbered: renaming `def f` to `def my_f` shifted every
                    # placeholder after it, and the copied body matched nothing (round 72)
                    line.append((_DEFINED, _PLACEHOLDER, span, kind))
                elif text in imports:
                    for j, part in enumerate(imports[text].split(".")):
                        if j:
                            line.append((".", ".", span, tokenize.OP))
                        line.append((part, part, span, kind))
                else:
                    if text not in numbered:
                        numbered[text] = f"{_PLACEHOLDER}{len(numbered)}"
                    line.append((numbered[text], _PLACEHOLDER, span, kind))
            elif kind == tokenize.NUMBER:
                line.append((text.lower().replace("_", ""), text.lower().replace("_", ""), span, kind))
            else:
                line.append((text, text, span, kind))
        flush()
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return Tokens()
    return out


# --- fingerprints ------------------------------------------------------------------------------------
_TOKEN_IDS: dict[str, int] = {}


def _token_ids(tokens: Sequence[str]) -> np.ndarray:
    """A 64-bit hash of each token, the same in every process (blake2b, not Python's salted hash)."""
    ids = np.empty(len(tokens), dtype=np.uint64)
    cache = _TOKEN_IDS
    for i, t in enumerate(tokens):
        v = cache.get(t)
        if v is None:
            v = int.from_bytes(hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")
            if len(cache) < 1_000_000:
                cache[t] = v
        ids[i] = v
    return ids


def kgram_hashes(ids: np.ndarray, k: int = K) -> np.ndarray:
    """The hash of each run of k tokens (buzhash: token hashes rotated by their place, XORed)."""
    n = len(ids) - k + 1
    if n <= 0:
        return np.empty(0, dtype=np.uint64)
    out = np.zeros(n, dtype=np.uint64)
    for j in range(k):
        r = np.uint64((k - 1 - j) % 64)
        part = ids[j:j + n]
        out ^= (part << r) | (part >> np.uint64((64 - int(r)) % 64)) if r else part
    return out


def _rotated(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r)) if r % 64 else x


def renamed_kgram_hashes(tokens: Sequence[str], k: int = K) -> np.ndarray:
    """kgram_hashes of `tokens` in which a placeholder is written as how far back the same name was last used
    inside the run (0: not in it), never by its number: renaming, and also a dead name the function uses before
    the copied code (which renumbers every name after it), changes no run (red-team round 72: one `_unused = 0`
    at the top of each copied function took a copy from 0.979 to 0.297). Which name is used where still counts."""
    n = len(tokens) - k + 1
    if n <= 0:
        return np.empty(0, dtype=np.uint64)
    ids = _token_ids(tokens)
    start = tokens.index("def") if "def" in tokens else 0     # after any decorator's line
    header = tokens.index("\n", start) if "\n" in tokens[start:] else len(tokens)
    parameters = {t for t in tokens[start:header] if t.startswith(_PLACEHOLDER)}
    # a parameter keeps its number (its place in the def's header, which no line of the body shifts)
    is_name = np.fromiter((t.startswith(_PLACEHOLDER) and t not in parameters for t in tokens), dtype=bool,
                          count=len(tokens))
    is_parameter = np.fromiter((t in parameters for t in tokens), dtype=bool, count=len(tokens))
    before = np.full(len(tokens), -1, dtype=np.int64)   # the same name's previous place (-1: none)
    last: dict[str, int] = {}
    for place in np.flatnonzero(is_name | is_parameter).tolist():
        before[place] = last.get(tokens[place], -1)
        last[tokens[place]] = place
    back = _token_ids([f"{_PLACEHOLDER}<{d}" for d in range(k)])
    starts = np.arange(n, dtype=np.int64)
    out = np.zeros(n, dtype=np.uint64)
    for j in range(k):
        part = ids[j:j + n].copy()
        names = is_name[j:j + n]
        prev = before[j:j + n]
        distance = np.where(prev >= starts, starts + j - prev, 0)
        part[names] = back[distance[names]]
        seen = is_parameter[j:j + n] & (prev >= starts)
        part[seen] = back[distance[seen]]
        out ^= _rotated(part, (k - 1 - j) % 64)
    return out


def winnow(hashes: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """Positions winnowing keeps: the smallest hash of every `window` consecutive ones (the rightmost
    of equals), each position once, in order (Schleimer, Wilkerson and Aiken 2003)."""
    n = len(hashes)
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if n <= window:
        return np.array([n - 1 - int(np.argmin(hashes[::-1]))], dtype=np.int64)
    windows = np.lib.stride_tricks.sliding_window_view(hashes, window)[:, ::-1]
    picked = np.arange(len(windows)) + (window - 1 - np.argmin(windows, axis=1))
    return np.unique(picked)


@dataclass
class Document:
    """One submission's compared code as tokens and fingerprints."""
    key: str
    functions: list[StoredFunction]
    tokens: list[Tokens]
    func_start: list[int]          # each function's first token in the concatenation
    n: int                         # tokens in all
    own: np.ndarray                # bool per token: not boilerplate
    fingerprints: dict[int, list[int]]  # hash -> start positions, boilerplate left out
    fp_hash: np.ndarray            # the same, flat: each kept fingerprint's hash ...
    fp_pos: np.ndarray             # ... and where its K tokens start
    own_count: int = 0             # tokens that are not boilerplate
    note: str = ""


def _mark(n: int, starts: np.ndarray, k: int = K) -> np.ndarray:
    """bool per token: inside a run of k tokens starting at one of `starts` (each run inside n)."""
    out = np.zeros(n, dtype=bool)
    if len(starts):
        out[np.minimum((starts[:, None] + np.arange(k)).ravel(), n - 1)] = True
    return out


def boilerplate_hashes(texts: Iterable[str], imports: Mapping[str, str], kept: Iterable[str]) -> np.ndarray:
    """Every k-token passage of the boilerplate texts, placeholders read as one: sorted hashes."""
    kept = tuple(kept)
    parts = [kgram_hashes(_token_ids(normalise(t, imports, kept).blind)) for t in texts]
    return np.unique(np.concatenate(parts)) if parts else np.empty(0, dtype=np.uint64)


def _members(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """bool per value: in `sorted_set` (sorted, unique)."""
    if not len(sorted_set):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[at] == values


def fingerprint(key: str, stored: StoredSubmission, boilerplate: np.ndarray, kept: Iterable[str]) -> Document:
    kept = tuple(kept)
    tokens = [normalise(f.source, stored.imports, kept) for f in stored.functions]
    starts, n = [], 0
    for t in tokens:
        starts.append(n)
        n += len(t.text)
    own = np.ones(n, dtype=bool)
    prints: dict[int, list[int]] = defaultdict(list)
    written: set[int] = set()   # every passage already seen in this submission, in order
    for t, start in zip(tokens, starts):
        exact = renamed_kgram_hashes(t.text)
        blind = kgram_hashes(_token_ids(t.blind))
        if not len(exact):
            continue
        is_bp = _members(blind, boilerplate)
        # a passage written again counts once: one student repeating the passage a classmate also wrote (20 times
        # in a helper) had made their own side all shared, and the pair 0.93 from 0.42 (red-team round 103)
        again = np.zeros(len(exact), dtype=bool)
        for p, h in enumerate(exact.tolist()):
            if h in written:
                again[p] = True
            else:
                written.add(h)
        own[start:start + len(t.text)] &= ~_mark(len(t.text), np.flatnonzero(is_bp | again))
        for p in winnow(exact):
            if not is_bp[p]:
                prints[int(exact[p])].append(start + int(p))
    fp_hash = np.fromiter((h for h, ps in prints.items() for _p in ps), dtype=np.uint64)
    fp_pos = np.fromiter((p for ps in prints.values() for p in ps), dtype=np.int64)
    return Document(key=key, functions=stored.functions, tokens=tokens, func_start=starts, n=n, own=own,
                    fingerprints=dict(prints), fp_hash=fp_hash, fp_pos=fp_pos, own_count=int(own.sum()),
                    note=stored.note)


# --- pairs -------------------------------------------------------------------------------------------
@dataclass
class Pair:
    a: Document
    b: Document
    score: float
    covered_a: np.ndarray   # bool per token of a: in a passage b shares (boilerplate left out)
    covered_b: np.ndarray

    @property
    def keys(self) -> tuple[str, str]:
        return self.a.key, self.b.key

    @property
    def shared(self) -> tuple[int, int]:
        """Each side's own tokens in passages the other shares."""
        return int(self.covered_a.sum()), int(self.covered_b.sum())

    def flagged(self, threshold: float) -> bool:
        """At the threshold, with enough shared on each side to be more than a short answer anyone writes."""
        return self.score >= threshold and min(self.shared) >= MIN_FLAGGED_TOKENS


def common_limit(n: int) -> int:
    """In more submissions than this, a passage matches nobody: the class has made it boilerplate."""
    return max(COMMON_MIN, int(COMMON_SHARE * n))


def compare(docs: Sequence[Document], floor: float, min_shared: int = 0) -> tuple[list[Pair], int]:
    """Every pair scoring at least `floor` (and above 0) that shares `min_shared` own tokens on each side, best
    first; and how many passages were left out as common to the class."""
    pairs, left_out, _ = compare_listed(docs, floor, limit=None, min_shared=min_shared)
    return pairs, left_out


def compare_listed(docs: Sequence[Document], floor: float, limit: Optional[int] = MAX_LISTED,
                   min_shared: int = MIN_LISTED_TOKENS) -> tuple[list[Pair], int, int]:
    """The best `limit` pairs scoring at least `floor` (and above 0; every one for None) whose sides each share at
    least `min_shared` of their own tokens, best first; how many passages were left out as common to the class; and
    how many such pairs there are in all.

    One submission at a time: the shared passages of its pairs with later submissions are gathered, scored and
    dropped before the next. Gathering every pair's passages first had held (pairs x shared passages) hashes at
    once, and kept every pair's token marks to the end: a class of 1,600 with six common ways of writing the
    answer (each under the 20% of COMMON_SHARE) held 212,534 pairs, and listed every one on a 46 MB page
    (red-team round 87)."""
    postings: dict[int, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        for h in d.fingerprints:
            postings[h].append(i)     # increasing i: each list is sorted
    common = common_limit(len(docs))
    left_out = sum(1 for holders in postings.values() if len(holders) > common)
    kept: list[Pair] = []
    above = 0

    def order(p: Pair) -> tuple[float, str, str]:
        return -p.score, p.a.key, p.b.key
    for i, a in enumerate(docs):
        shared: dict[int, list[int]] = defaultdict(list)
        for h in a.fingerprints:
            holders = postings[h]
            if 2 <= len(holders) <= common:
                for j in holders[bisect.bisect_right(holders, i):]:
                    shared[j].append(h)
        for j, hashes in shared.items():
            b = docs[j]
            total = a.own_count + b.own_count
            if total == 0:
                continue
            common_prints = np.unique(np.array(hashes, dtype=np.uint64))
            in_a, in_b = _members(a.fp_hash, common_prints), _members(b.fp_hash, common_prints)
            # at most K tokens per shared position: skip pairs that cannot reach the floor or min_shared
            if min(K * (int(in_a.sum()) + int(in_b.sum())), total) / total < floor \
                    or K * min(int(in_a.sum()), int(in_b.sum())) < min_shared:
                continue
            ca = _mark(a.n, a.fp_pos[in_a]) & a.own
            cb = _mark(b.n, b.fp_pos[in_b]) & b.own
            shared_a, shared_b = int(ca.sum()), int(cb.sum())
            score = (shared_a + shared_b) / total
            if score >= floor and score > 0 and min(shared_a, shared_b) >= min_shared:
                above += 1
                kept.append(Pair(a, b, round(score, 4), ca, cb))
                if limit is not None and len(kept) >= 2 * limit + 64:   # the best `limit` so far, marks and all
                    kept.sort(key=order)
                    del kept[limit:]
    kept.sort(key=order)
    return (kept if limit is None else kept[:limit]), left_out, above


# --- boilerplate sources -------------------------------------------------------------------------------
_FENCED = re.compile(r"```[^\n`]{0,40}\n(.{0,20000}?)```", re.S)
_INLINE = re.compile(r"`([^`\n]{1,400})`")


def _notebook_texts(path: Path) -> tuple[list[str], list[str]]:
    """(code cells, code in the text cells: fenced blocks and inline spans) of an instructor notebook."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], []
    code: list[str] = []
    prose: list[str] = []
    from autograder.grading.intake import transform_ipython
    for cell in data.get("cells", []) if isinstance(data, dict) else []:
        if not isinstance(cell, dict):
            continue
        src = cell.get("source", "")
        text = "".join(src) if isinstance(src, list) else str(src)
        if cell.get("cell_type") == "code":
            code.append(transform_ipython(text))
        elif cell.get("cell_type") == "markdown":
            prose.extend(m.group(1) for m in _FENCED.finditer(text))
            for m in _INLINE.finditer(_FENCED.sub("", text)):
                span = m.group(1).strip()
                # "= Q @ K.transpose(-2, -1) / sqrt(d_k)" is a formula without its left-hand side
                prose.append(span if _parse(span) is not None else f"_ {span}" if span.startswith("=") else span)
    return code, prose


def boilerplate_sources(course: "Course", slug: str) -> list[str]:
    """Everything every student is given or taught, as source texts: the student template's code
    cells, the reference modules, the master notebook's code cells and the code in its text."""
    texts: list[str] = []
    for nb in (course.root / "student_template" / f"{slug}.ipynb",
               course.root / "assignments" / slug / f"{slug}.ipynb"):
        code, prose = _notebook_texts(nb)
        texts.extend(code)
        texts.extend(prose)
    ref = course.root / "reference"
    if ref.is_dir():
        for path in sorted(ref.rglob("*.py")):
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
    return texts


def class_boilerplate(course: "Course", slug: str, kept: Sequence[str]) -> np.ndarray:
    texts = boilerplate_sources(course, slug)
    imports: dict[str, str] = {}
    for t in texts:
        tree = _parse(t)
        if tree is not None:
            _import_names(tree, imports)
    return boilerplate_hashes(texts, imports, kept)


# --- the class: extract, keep, read back ------------------------------------------------------------------
def extract_class(entries: Sequence["Entry"], course: "Course", slug: str) -> dict[str, StoredSubmission]:
    names = compared_names(course, slug)
    return {e.key: extract_file(e.path, names, course.config.limits) for e in entries}


def dump_stored(slug: str, stored: Mapping[str, StoredSubmission]) -> str:
    return StoredClass(format=STORED_FORMAT, assignment=slug, submissions=dict(sorted(stored.items()))).model_dump_json()


def read_stored(path: Path, slug: str) -> tuple[Optional[dict[str, StoredSubmission]], str]:
    """(submissions, "") of a batch's similarity.json, or (None, why) when it cannot be used: missing,
    a link, not a plain file, too large, not this assignment's, or not what a batch writes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, "it has no similarity.json (written by a batch of this version)"
    except OSError as e:
        return None, "its similarity.json is a symbolic link" if path.is_symlink() else \
            f"its similarity.json cannot be read ({e.strerror})"
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None, "its similarity.json is not a plain file"
        if info.st_size > MAX_STORED_BYTES:
            return None, f"its similarity.json is {info.st_size} bytes, more than a batch writes"
        raw = fh.read(MAX_STORED_BYTES + 1)
    try:
        data = StoredClass.model_validate_json(raw)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"])[:80] or "(top level)"
        return None, f"its similarity.json is not one a batch writes ({where}: {err['msg'][:120]})"
    if data.assignment != slug:
        return None, "its similarity.json is of another assignment"
    return data.submissions, ""


# --- outputs ----------------------------------------------------------------------------------------------
# Shown as escapes, never as they are: C0/C1 controls (but tab and newline), bidi embeddings,
# overrides, isolates and marks, zero-width characters, separators, the BOM, lone surrogates.
_UNSHOWN_CODE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029"
                           "\u2060-\u2069\ufeff\ud800-\udfff]")


_UNSHOWN_RUN = re.compile(f"(?:{_UNSHOWN_CODE.pattern})+")
MAX_MARKERS = 100     # unshown characters marked one by one in one piece of code; past it each is one "\ufffd"


def shown_code(text: str, marked: list[int] | None = None) -> Markup:
    """Student text as HTML: escaped, each unshown character as a visible \\uXXXX: a run of them as its first three
    and a count, and past MAX_MARKERS marks in one text each as U+FFFD. The page grows with the code it shows and
    no faster (a string of 38,000 zero-width characters had written 31 bytes each: red-team round 49). `marked`: the
    count of marks so far, shared by the pieces of one function's code (updated)."""
    marked = [0] if marked is None else marked
    out, pos, plain = [], 0, 0
    for m in _UNSHOWN_RUN.finditer(text):
        out.append(str(escape(text[pos:m.start()])))
        run = m.group()
        if marked[0] >= MAX_MARKERS:
            out.append("\ufffd" * len(run))
            plain += len(run)
        else:
            shown = "".join(f"\\u{ord(c):04x}" for c in run[:3]) + (f" +{len(run) - 3}" if len(run) > 3 else "")
            out.append(f'<span class="ctl">{shown}</span>')
            marked[0] += 1
        pos = m.end()
    out.append(str(escape(text[pos:])))
    if plain:
        out.append(f'<span class="ctl">({plain} more unshown characters, each as \ufffd)</span>')
    return Markup("".join(out))


def _shown_name(text: str, limit: int = 200) -> str:
    from autograder.text import escape_unshown
    text = escape_unshown(str(text))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _function_html(source: str, tokens: Tokens, covered: np.ndarray, own: np.ndarray) -> Markup:
    """A function's source with its shared passages in <mark> and its boilerplate greyed."""
    kind = np.zeros(len(source) + 1, dtype=np.int8)  # per character: 0 plain, 1 boilerplate, 2 shared
    last_end, last_value = -1, 0
    for (s, e), c, o in zip(tokens.spans, covered, own):
        if s < 0:
            continue
        value = 2 if c else (0 if o else 1)
        lo = s
        if value and value == last_value and 0 <= last_end <= s and source[last_end:s].strip(" \t") == "":
            lo = last_end  # a passage runs on over the spaces between its tokens on one line
        if value:
            np.maximum(kind[lo:e], value, out=kind[lo:e])
        last_end, last_value = e, value
    kind[-1] = -1  # the end
    tags = {0: ("", ""), 1: ('<span class="bp">', "</span>"), 2: ("<mark>", "</mark>")}
    out, start, marked = [], 0, [0]
    for x in np.flatnonzero(np.diff(kind)) + 1:
        open_, close = tags[int(kind[start])]
        out.append(f"{open_}{shown_code(source[start:x], marked)}{close}")
        start = int(x)
    return Markup("".join(out))


PAGE = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'">
<meta name="referrer" content="no-referrer">
<title>{{ title }} — similar submissions</title>
<style>
 body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 90rem; padding: 0 1rem; color: #222; }
 table { border-collapse: collapse; margin: 1rem 0; } td, th { border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; vertical-align: top; }
 th { background: #f3f3f3; } .num { text-align: right; } tr.flagged td { background: #fde8e8; }
 .side { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; } .side > div { min-width: 0; }
 pre { background: #fafafa; border: 1px solid #ddd; padding: .5rem; overflow-x: auto; font-size: .85rem; line-height: 1.35; }
 mark { background: #ffd54f; } .bp { color: #999; } .ctl { color: #a01b1b; border: 1px solid #a01b1b; font-size: .75em; }
 .note { background: #f6f6f6; border-left: 4px solid #888; padding: .5rem .8rem; } .warn { background: #fde8e8; border-left: 4px solid #a01b1b; padding: .5rem .8rem; }
 h3 { margin-top: 2.5rem; } .fn { color: #555; font-size: .85rem; margin: .6rem 0 .2rem; }
</style></head><body>
<h1>{{ title }}: similar submissions</h1>
<p class="note">Pairs ranked by how much of their graded functions' code they share ({{ functions }}),
after removing what every student is given or taught (the template, the reference, the master notebook's
code and formulas) and normalising names, layout and comments. Students taught the same lesson write alike: a
short answer, the lesson's idioms or a common tutorial's code can be shared by two who never saw each other's
work, so likeness is no proof of copying. A high score is a reason to look, not a finding: read the code side by
side. This page changes no score.
{{ n }} submissions compared; a pair is listed from a score of {{ floor }} when each side shares at least
{{ min_listed }} tokens of its own code, and flagged at {{ threshold }} or more when each shares at least {{ min_flagged }}
(a one-line answer anyone writes is not flagged). A passage one submission repeats counts once.
{% if common %}{{ common }} passage{{ "s" if common != 1 }} that more than {{ common_limit }} submissions share matched nobody (too common to tell anything).{% endif %}</p>
{% for line in problems %}<p class="warn">{{ line }}</p>{% endfor %}
<table id="pairs"><tr><th>#</th><th>a</th><th>b</th><th>score</th><th>flagged</th><th>shared tokens (a, b)</th><th>shared in</th></tr>
{% for p in pairs %}<tr class="{{ 'flagged' if p.flagged }}"><td class="num">{{ p.rank }}</td><td>{{ p.a }}{% if p.who_a %} ({{ p.who_a }}){% endif %}</td><td>{{ p.b }}{% if p.who_b %} ({{ p.who_b }}){% endif %}</td><td class="num">{{ "%.3f"|format(p.score) }}</td><td>{{ "yes" if p.flagged else "no" }}</td><td class="num">{{ p.shared[0] }} of {{ p.own[0] }}, {{ p.shared[1] }} of {{ p.own[1] }}</td><td>{% if p.view %}<a href="#pair-{{ p.rank }}">{{ p.where }}</a>{% else %}{{ p.where }}{% endif %}</td></tr>
{% else %}<tr><td colspan="7">No pair scores {{ floor }} or more with {{ min_listed }} tokens of its own shared on each side.</td></tr>{% endfor %}
</table>
{% if scored > pairs|length %}<p class="warn">{{ scored }} pairs score {{ floor }} or more: the best {{ pairs|length }} are listed here and in similarity.csv, the other {{ scored - pairs|length }} are not (raise similarity.floor in grading.yml to list fewer).</p>{% endif %}
{% if more %}<p class="note">Side-by-side views are shown for the first {{ views|length }} pairs; similarity.csv lists all {{ pairs|length }}.</p>{% endif %}
{% for v in views %}<h3 id="pair-{{ v.rank }}">#{{ v.rank }}: {{ v.a }} and {{ v.b }}, score {{ "%.3f"|format(v.score) }}{{ ", flagged" if v.flagged }}: {{ v.shared[0] }} of {{ v.a }}'s {{ v.own[0] }} tokens and {{ v.shared[1] }} of {{ v.b }}'s {{ v.own[1] }} shared</h3>
<p class="fn"><mark>marked</mark>: shared by the two; <span class="bp">grey</span>: given to everyone (left out of the score).</p>
<div class="side">{% for side in v.sides %}<div><b>{{ side.key }}</b>{% for f in side.functions %}<div class="fn">{{ f.name }} (code cell {{ f.cell }}, line {{ f.line }})</div><pre>{{ f.html }}</pre>{% endfor %}</div>{% endfor %}</div>
{% endfor %}
{% if left_out %}<h2>Not compared</h2><table id="not-compared"><tr><th>submission</th><th>why</th></tr>
{% for key, why in left_out %}<tr><td>{{ key }}</td><td>{{ why }}</td></tr>{% endfor %}</table>{% endif %}
</body></html>
""")


def _side(doc: Document, covered: np.ndarray) -> dict:
    functions = []
    for f, tokens, start in zip(doc.functions, doc.tokens, doc.func_start):
        end = start + len(tokens.text)
        functions.append({"name": f.name, "cell": f.cell + 1, "line": f.line,
                          "html": _function_html(f.source, tokens, covered[start:end], doc.own[start:end])})
    return {"key": _shown_name(doc.key), "functions": functions}


def _where(pair: Pair) -> str:
    names = []
    for doc, covered in ((pair.a, pair.covered_a), (pair.b, pair.covered_b)):
        for f, tokens, start in zip(doc.functions, doc.tokens, doc.func_start):
            if covered[start:start + len(tokens.text)].any() and f.name not in names:
                names.append(f.name)
    return ", ".join(names[:6]) + (", …" if len(names) > 6 else "")


def write_report(stored: Mapping[str, StoredSubmission], course: "Course", slug: str, outdir: Path,
                 found: Optional["Discovery"] = None, problems: Sequence[str] = (),
                 warnings: Optional[list[str]] = None) -> list[Pair]:
    """similarity.html and similarity.csv of these submissions (the best MAX_LISTED pairs at or above the floor;
    how many more scored is said on the page and in `warnings`). Returns the pairs listed, best first."""
    from autograder.text import csv_cell
    settings: SimilaritySettings = course.settings(slug).similarity
    names = compared_names(course, slug)
    boilerplate = class_boilerplate(course, slug, names)
    docs = [fingerprint(key, s, boilerplate, names) for key, s in sorted(stored.items())]
    compared = [d for d in docs if d.n]
    pairs, common, scored = compare_listed(compared, settings.floor, limit=MAX_LISTED)
    who: dict[str, str] = {}
    if found is not None:
        who = {k: ", ".join(p.shown for p in people) for k, people in found.submitters().items()}
    rows = []
    for rank, p in enumerate(pairs, 1):
        rows.append({"rank": rank, "a": _shown_name(p.a.key), "b": _shown_name(p.b.key), "score": p.score,
                     "flagged": p.flagged(settings.threshold),
                     "shared": p.shared, "own": (p.a.own_count, p.b.own_count), "where": _where(p), "view": rank <= MAX_VIEWS,
                     "who_a": _shown_name(who.get(p.a.key, "")), "who_b": _shown_name(who.get(p.b.key, ""))})
    views = [{**row, "sides": [_side(p.a, p.covered_a), _side(p.b, p.covered_b)]}
             for row, p in zip(rows[:MAX_VIEWS], pairs)]
    left_out = [(_shown_name(d.key), d.note or ("nothing to compare" if not d.n else
                                                "all of its compared code is what every student is given or taught"))
                for d in docs if not d.n or not d.own_count]
    title = course.config.assignments[slug].title or slug
    defined = {f.name for d in docs for f in d.functions}
    found_names = [n for n in names if n in defined]
    shown_functions = ", ".join(found_names[:12]) + (", …" if len(found_names) > 12 else "")
    if found_names:
        shown_functions += ", with the helpers they call"
    page = PAGE.render(title=title, functions=shown_functions or "none", n=len(compared),
                       threshold=f"{settings.threshold:g}", floor=f"{settings.floor:g}", pairs=rows, views=views,
                       more=len(rows) > MAX_VIEWS, left_out=left_out, problems=list(problems), common=common,
                       common_limit=common_limit(len(compared)), scored=scored, min_listed=MIN_LISTED_TOKENS,
                       min_flagged=MIN_FLAGGED_TOKENS)
    if scored > len(pairs) and warnings is not None:
        warnings.append(f"similarity: {scored} pairs score {settings.floor:g} or more; the best {len(pairs)} are listed "
                        "in similarity.html and similarity.csv (raise similarity.floor in grading.yml to list fewer)")
    write_atomic(outdir / "similarity.html", page)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["a", "b", "score", "flagged"])
    for row, p in zip(rows, pairs):
        writer.writerow([csv_cell(_shown_name(p.a.key, 10_000)), csv_cell(_shown_name(p.b.key, 10_000)),
                         f"{p.score:.4f}", "yes" if row["flagged"] else "no"])
    write_atomic(outdir / "similarity.csv", buf.getvalue())
    return pairs


def _advice(what: str, warnings: Optional[list[str]], write) -> list[Pair]:
    """Run `write`; a fault of OUT's disk stops the batch as any output's would (DiskFault), anything
    else is said in `warnings`: a similarity report is advice and never stops the grades it follows."""
    try:
        return write()
    except DiskFault:
        raise
    except Exception as e:  # noqa: BLE001 - see above
        if warnings is not None:
            warnings.append(f"{what} not written: {type(e).__name__}: {str(e)[:300]}")
        return []


def write_batch_similarity(entries: Sequence["Entry"], course: "Course", slug: str, outdir: Path,
                           found: Optional["Discovery"] = None, warnings: Optional[list[str]] = None) -> list[Pair]:
    """A batch's similarity.json (for merge), similarity.html and similarity.csv (its share of the
    class). Returns the pairs, best first."""
    def write() -> list[Pair]:
        stored = extract_class(entries, course, slug)
        write_atomic(outdir / "similarity.json", dump_stored(slug, stored))
        return write_report(stored, course, slug, outdir, found=found, warnings=warnings)
    return _advice("similarity report", warnings, write)


def merge_similarity(shards: Sequence[tuple[Path, Sequence[str], str]], course: "Course", slug: str,
                     outdir: Path, found: Optional["Discovery"] = None,
                     warnings: Optional[list[str]] = None) -> list[Pair]:
    """The whole class's similarity from the shards' similarity.json: `shards` gives each shard's
    folder, the submissions merged from it and its label. A shard whose file cannot be used is named
    on the page and in `warnings`, and its submissions are left out."""
    def write() -> list[Pair]:
        stored: dict[str, StoredSubmission] = {}
        problems: list[str] = []
        for folder, names, label in shards:
            got, why = read_stored(folder / "similarity.json", slug)
            if got is None:
                if names:
                    problems.append(f"{label}: {why}: its {len(names)} submission{'s are' if len(names) != 1 else ' is'} "
                                    "not compared (rerun it with the same command, then merge)")
                continue
            stored.update((name, got[name]) for name in names if name in got)
        if warnings is not None:
            warnings.extend(problems)
        write_atomic(outdir / "similarity.json", dump_stored(slug, stored))
        return write_report(stored, course, slug, outdir, found=found, problems=problems, warnings=warnings)
    return _advice("similarity report", warnings, write)
