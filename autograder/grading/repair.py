"""One-edit fixes: a failure the catalogue does not name, told as the smallest change to the student's own
code that makes it right.

Where a graded function gives wrong values (or crashes) and no misconception explains it, the grader
tries small edits of that function's own source, one at a time: another of its variables in one place
(`V` where `K` is due), another small integer (an axis, an index), another operator (`*` for `/`), a
call's first two arguments swapped, a method swapped for its twin (`max`/`min`, `tril`/`triu`,
`sum`/`mean`), a transpose added or dropped, a keyword added (`keepdim=True`, `dim=-1`), a line left
out. An edit is a fix when the edited function gives the reference's answer on every input the tests
gave that function (all of them, not only the failing ones: a fix may not break what worked), and on each call
of its passing tests that no reference answer checks (a table its test reads at its own tolerance), the answer
that passed, the reference's, or one that test, rerun with the copy, still passes (_kept_right): blind64's
`range(3)` for a table's `range(4)` mended the 3-dims test and broke the default 4-dims one, and is no fix
(issue 21). The
student then reads the line and the change: where, and what, without the grader claiming why.

The search is evidence, like every name the grader gives: an edit is reported only when it makes every
recorded call right, and only where the fixes found are few (at most MAX_FIXES; more means the inputs
do not tell the edits apart), or, up to MAX_SPREAD, all on one line or two (then that place is certain and the
likeliest three are said, with how many more: _one_place). A fix that edits the test of an `if`, `elif`,
`while` or conditional expression is tried again with that test a constant (_dodges): where the copy with the
branch so removed is right too, the edit only steered around the branch, and the student reads that the branch is
what is wrong, not the edited condition (issue 21). The copies run after the notebook did, so state the function keeps
between calls (a `global` it assigns, a module-level cache it fills) holds what the notebook's calls left there: a
fix of such a function is run again with that state fresh, bound as the notebook first binds it (_state_steered), and
where no fix holds from there (`if _buf is None:` made `is not None`, right only because an earlier call had filled
`_buf`) the student reads that the function keeps state between calls (STATE_KEY), not the edit (issue 21, blind63).
A fix is also run on STRESSED copies of the function's wrong calls (floating tensors scaled x40 and x1000; masks,
probabilities, integers and bools as they are) beside the reference and the student's own function (_stress_held): an edit that
only passes the tests' moderate inputs (`s` for `s - running_max`, a running max frozen at its first block's value)
answers inf/NaN there where both stay finite (at every factor), and is none (blind86); where every fix is so dropped the
failure stays unnamed. A right fix in code that never shifts overflows where the student's own function does too (at
x1000 if not x40: `s = s / 30` before an unshifted exp), and is kept (red-team round 145).
The edited copies run in the student's worker under names of the
grader's own (`_ag_fix_<token>_<n>`), after every test has run, inside `optional_calls`: nothing here
changes a score, and a copy that runs away is cut off at the deadline. The search's budget is CPU time
(SearchClock), so the same submission reaches the same edits, and is told the same thing, on a busy machine.

Trust: the source is the student's, parsed here (pyparse.parse) and printed back (ast.unparse) in the
trusted process, never run here. What a message quotes of it is cut and escaped by the caller's output
(the report is student text)."""
from __future__ import annotations

import ast
import builtins
import copy
import functools
import itertools
import dataclasses
import math
import re
import secrets
import textwrap
import time
import typing
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

import torch

from autograder.errors import notebook_frames
from autograder.grading.helper_blame import blame_helpers
from autograder.grading.pyparse import holds_name_text, parse, source_lines, unparse
from autograder.results import ONE_EDIT_FIX_KEY, STATE_KEPT_KEY

MAX_CANDIDATES = 800      # edits tried per function at most (a long function's last lines go untried)
MAX_FIXES = 3             # more fixes than this: the inputs do not tell them apart, say nothing
MAX_SPREAD = 8            # ... unless they are at most this many, on two lines at most (_one_place): that place is said
SWAP_TOGETHER_NAMES = 8   # variables read twice in one statement swapped together (each with 24 others at most)
MAX_ALIKE_EDITS = 200    # edits of an expression written alike in several statements, each tried in all of them at once
MAX_RERUN_EDITS = 12      # edits whose copy answers but not the reference's numbers, tried by rerunning the tests
MAX_SOURCE_CHARS = 6000   # a function longer than this is not searched (the tries grow with its size)
MAX_REPRINTED_CHARS = 400_000   # a def's statements printed again for its edits, past which only short ones are
CHEAP_STATEMENT_CHARS = 400     # a statement this short is always printed again (a slip's line is rarely longer)
HELPER_CALLS = 6          # a helper's own recorded calls its edited copy is checked on (holds_for)
PASSED_CALLS = 4          # calls of the searched function by its passing tests each fix must keep right (_kept_right)
KEPT_TESTS = 6            # passing tests of a searched cell's other values each value fix is rerun on
MAX_STATE_OTHERS = 12     # further wrong calls a fresh-state copy is checked on (_stale_state)
WALL_FACTOR = 4           # the search's wall-clock bound, in CPU budgets (code that sleeps spends no CPU)

# a method, attribute or function name, and the names a slip puts in its place
TWINS: dict[str, tuple[str, ...]] = {
    "max": ("min", "amax"), "min": ("max",), "amax": ("amin", "max", "logsumexp"), "amin": ("amax",),
    "logsumexp": ("amax",),
    "sum": ("mean",), "mean": ("sum",), "tril": ("triu",), "triu": ("tril",),
    "softmax": ("log_softmax",), "log_softmax": ("softmax",), "var": ("std",), "std": ("var",),
    "argmax": ("argmin",), "argmin": ("argmax",), "values": ("indices",), "indices": ("values",),
    "sqrt": ("rsqrt",), "rsqrt": ("sqrt",), "exp": ("log",), "log": ("exp",), "log2": ("log",),
    "ones": ("zeros",), "zeros": ("ones",), "ones_like": ("zeros_like",), "zeros_like": ("ones_like",),
    "mul": ("matmul",), "matmul": ("mul",), "bmm": ("mul",), "float": ("double",), "double": ("float",),
    "float32": ("float64",), "float64": ("float32",), "isinf": ("isnan",), "logical_and": ("logical_or",),
    "expm1": ("exp",), "log1p": ("log",), "cumprod": ("prod",),   # a near name for the one meant
    "logical_or": ("logical_and",), "any": ("all",), "all": ("any",), "cumsum": ("sum",), "size": ("numel",),
    "items": ("values",), "keys": ("values",), "sigmoid": ("softmax",), "logsigmoid": ("log_softmax",), "exp2": ("exp",), "log10": ("log",),
    "int": ("float",),         # a float answer truncated on its way out (int(dots.var()))
}
# calls whose result is their one argument's value changed in a way a slip adds: dropped in one edit
UNWRAP = {"sqrt", "exp", "log", "abs", "float", "int", "round", "floor", "ceil", "rsqrt", "softmax", "square",
          "contiguous", "clone", "detach", "t", "transpose", "squeeze", "unsqueeze", "sigmoid", "tanh", "relu",
          "mean", "sum", "flatten", "reciprocal", "neg", "item", "tolist", "numpy", "tensor", "as_tensor",
          "logical_not"}
# a dtype given where a call takes it only as `dtype=` (torch.ones(n, n, torch.bool)): moved to the keyword
DTYPES = {"float32", "float64", "float16", "bfloat16", "float", "double", "half", "bool", "long", "int", "int64",
          "int32", "int8", "uint8", "dtype"}
MASKED = {"masked_fill", "masked_fill_", "masked_select"}     # a mask's sense inverted is one `~`
SQUARE = {"eye", "ones", "zeros", "empty", "rand", "randn", "full"}   # one size given makes a square (or a vector)
# keys that say what an output is, not what made it (every weight the same; two of Q, K, V equal): a function
# they name is searched too, and where every fix puts one of its own variables for another, neither a
# parameter nor `_`, the fix is said in their place (`attention(q, k, q)` and `K[i]` in a loop give those
# outputs with every weight matrix right); a fix that swaps parameters is the key's own cause (`X @ W_Q` for
# V; blind25's project_qkv(Y, W_K, W_Q, W_V), whose `_` is a second fix) and the key stays
EFFECT_KEYS = frozenset({"uniform_weights", "same_projection"})
MAX_HELPERS = 3           # helper functions of the searched one whose own edits are tried (after its own)
# the helpers looked up (their cells parsed) to find those MAX_HELPERS: a def calling 100 helpers defined in a 130 KB
# cell cost 56 s of the grader's CPU, outside every clock, parsing that cell three times per helper (red-team round 84)
MAX_HELPER_LOOKS = MAX_HELPERS
REDUCTIONS = {"sum", "mean", "max", "amax", "min", "amin", "logsumexp", "var", "std", "norm", "prod", "any", "all"}
NEEDS_DIM = {"softmax", "log_softmax", "sum", "mean", "amax", "amin", "logsumexp", "cumsum"}
SMALL_INTS = (-3, -2, -1, 0, 1, 2, 3)
_SWAP_OPS: dict[type, tuple[type, ...]] = {
    ast.Div: (ast.Mult, ast.FloorDiv), ast.Mult: (ast.Div, ast.MatMult), ast.Add: (ast.Sub,), ast.Sub: (ast.Add,),
    ast.FloorDiv: (ast.Div,), ast.Pow: (ast.Mult,), ast.Mod: (ast.FloorDiv,),
    # bit operators written for arithmetic: `d ^ 2` for d ** 2, `n << 64` for n * 64
    ast.BitXor: (ast.Pow,), ast.LShift: (ast.Mult, ast.Pow), ast.RShift: (ast.FloorDiv, ast.Div),
}
_SWAP_CMP: dict[type, tuple[type, ...]] = {
    ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.Lt: (ast.LtE, ast.Gt), ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt), ast.GtE: (ast.Gt, ast.LtE), ast.Is: (ast.IsNot, ast.Eq), ast.IsNot: (ast.Is, ast.NotEq),
}


# (a test's (question, name), {a student name it takes: the name of a copy}): whether it passes with the copies
Rerun = Callable[[tuple[str, str], Mapping[str, str]], bool]


@dataclass(frozen=True)
class Edit:
    """One edit of the function `name` (its def in code cell `cell`, from 0): the source of the edited copy,
    named `copy_name`, and what changed, in words a student reads."""
    line: int            # line of the cell the edit is on
    before: str          # the code as the student wrote it (cut)
    after: str           # the code the edit puts there ("" for a line left out)
    source: str          # the whole edited def, named copy_name (with, for a helper's edit, that helper's copy)
    helper: str = ""     # the helper function of the searched one that the edit is in ("": the function itself)
    cell: int = -1       # the helper's cell (-1: the searched function's)
    local_swap: bool = False   # one of the def's own variables for another, neither a parameter nor `_` (`K[j]` for `K[i]`)
    moved: str = ""      # a statement moved, not changed: where to ("into the `for` loop above it, at its end")
    places: int = 1      # the same change made in this many places of the function at once (shape[0] three times)


@dataclass(frozen=True)
class Found:
    """The fixes of one function: each makes every recorded call give the reference's answer."""
    name: str
    cell: int
    fixes: tuple[Edit, ...]
    calls: int           # how many recorded calls each fix was checked on
    line_text: str       # the student's line the first fix is on (stripped, cut)
    tests: int = 0       # or, where the answers are random: how many of the tests rerun pass with it
    explains: tuple[tuple[str, str], ...] = ()   # failed tests named otherwise that every fix makes pass too
    more: int = 0        # fixes on the same lines beyond those said (_one_place)
    dodged: str = ""     # the fixes only steer around a branch: its words (_dodges), said in their place
    kept: str = ""       # the fixes only steer state kept between calls: its words (_state_found), said in their place
    checked: tuple[int, ...] = ()   # with `kept`: the ids of the recorded calls the steering fix made right


def last_def(cells: Sequence[str], name: str, classes: bool = False) -> tuple[int, Any, str] | None:
    """(cell index, def, that cell's source) of the last top-level `def name` (or, with `classes`, `class
    name`) in the notebook, the one a Run All leaves in place; None where there is none, or it is too long or
    unreadable."""
    kinds = (ast.FunctionDef, ast.ClassDef) if classes else (ast.FunctionDef,)
    for index in range(len(cells) - 1, -1, -1):
        cell = cells[index]
        if not holds_name_text(cell, "def", name) and not (classes and holds_name_text(cell, "class", name)):
            continue
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        found = [n for n in tree.body if isinstance(n, kinds) and n.name == name]
        if found:
            fn = found[-1]
            text = ast.get_source_segment(cell, fn) or ""
            if len(text) > MAX_SOURCE_CHARS:
                return None
            return index, fn, cell
    return None


def left_bound(cells: Sequence[str], name: str, cell_errors: Mapping[int, str] | None) -> bool:
    """Whether last_def(cells, name) is surely what `name` held when the tests ran, so that an edit of it is a fix of
    the graded function (red-team round 81: the search edited a def the notebook never ran, or one a later `name =
    other` replaced, and told the student to change a line of code that was not graded). No: a later statement
    stores `name` at module level (a later cell, or below the def in its cell), or the def's cell stopped with an
    error above the def's body or at a line not said (`cell_errors`: the worker's "Type: message (line n)" per cell
    index, n the cell's last line in the traceback, so a crash inside the def's body called below it is past its
    header). A def whose header and body share a line is not told apart from its defaults raising: not searched."""
    from autograder.grading.source_checks import cells_assigning_globally
    found = last_def(cells, name, classes=True)
    if found is None:
        return False
    index, fn, cell = found
    if any(i > index for i in cells_assigning_globally(cells, name)):
        return False
    try:
        tree = parse(cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    below = [stmt for stmt in getattr(tree, "body", []) if stmt.lineno > fn.lineno]
    for stmt in below:
        for n in ast.walk(stmt):
            if ((isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load))
                    or (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name)
                    or (isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name)):
                return False
    error = (cell_errors or {}).get(index)
    if error is None:
        return True
    said = re.search(r"\(line (\d+)\)$", error)
    if said is None or re.match(r"(SyntaxError|IndentationError|TabError)\b", error):
        return False        # no line, or the cell did not compile (a stray top-level `return`): none of it ran
    line = int(said.group(1))
    if line >= fn.body[0].lineno > fn.lineno:
        return True         # inside the def's body (a call below it), or below the def
    # the line is the deepest of the cell's own in the traceback: inside another def of the cell (a helper the demo call
    # at the bottom reached), the def ran unless something above it (or its header) could have called that helper
    above = [stmt for stmt in getattr(tree, "body", []) if stmt.lineno < fn.lineno] + [fn]
    helper = any(isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt is not fn
                 and stmt.body[0].lineno <= line <= (stmt.end_lineno or 0) for stmt in getattr(tree, "body", []))
    return helper and not any(isinstance(n, ast.Call) for stmt in above for n in _run_at_definition(stmt))


def _run_at_definition(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a module-level statement that run when the statement does: all of it, but a def's body."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = stmt.args
        parts: list[ast.AST] = [*stmt.decorator_list, *a.defaults, *(d for d in a.kw_defaults if d is not None)]
        parts += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                  if x is not None and x.annotation is not None] + ([stmt.returns] if stmt.returns is not None else [])
        for part in parts:
            yield from ast.walk(part)
    else:
        yield from ast.walk(stmt)


def _local_names(fn: ast.FunctionDef | ast.ClassDef) -> list[str]:
    """The parameters and the names the body assigns, in order of first appearance (of a class: its methods'
    parameters but self and cls, and the names they assign)."""
    names: list[str] = []
    for d in ([fn] if isinstance(fn, ast.FunctionDef) else [n for n in ast.walk(fn) if isinstance(n, ast.FunctionDef)]):
        a = d.args
        names += [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)
                  if p.arg not in names and (d is fn or p.arg not in ("self", "cls"))]
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in names:
            names.append(node.id)
    if isinstance(fn, ast.ClassDef):     # and the attributes its methods set on self, as "self.W_V"
        for node in ast.walk(fn):
            attribute = _self_attribute(node)
            if attribute and isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and attribute not in names:
                names.append(attribute)
    return names


def _self_attribute(node: ast.AST) -> str:
    """"self.W_V" for `self.W_V`, "" for anything else."""
    return (f"self.{node.attr}" if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self" else "")


def _ordered(slots: Sequence[tuple[ast.AST, ast.AST, str, int | None]], names: Sequence[str],
             unread: set[str], own_params: Sequence[str] = (), cap: int = 4 * MAX_CANDIDATES
             ) -> list[tuple[ast.AST, ast.AST, str, int | None, ast.AST | None]]:
    """(node, parent, field, index, what an edit puts there) for the edits of `slots`, at most `cap` of them made
    (a short def that reads 150 variables twice in one line had made millions: red-team round 50): first a read of
    a variable replaced by one the def makes (or takes) and never reads, the likeliest one meant there (a long def's
    search may end before its last line), then every other edit in source order."""
    first: list[tuple[ast.AST, ast.AST, str, int | None, ast.AST | None]] = []
    rest: list[tuple[ast.AST, ast.AST, str, int | None, ast.AST | None]] = []
    for node, parent, field, at in slots:
        if len(first) + len(rest) >= cap:
            break
        for new in itertools.islice(_replacements(node, parent, names, own_params), cap):
            unread_put = (isinstance(node, ast.Name) and isinstance(new, ast.Name) and new.id in unread
                          or new is not None and _self_attribute(node) != "" and _self_attribute(new) in unread)
            (first if unread_put else rest).append((node, parent, field, at, new))
    return first + rest


def _unread(fn: ast.FunctionDef | ast.ClassDef) -> set[str]:
    """The parameters and variables `fn` has but never reads (`v` sliced per head and never passed on)."""
    loaded = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    loaded |= {_self_attribute(n) for n in ast.walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)}
    return {n for n in _local_names(fn) if n not in loaded and n != "_" and not n.startswith("__")}


def _transposed(node: ast.expr) -> ast.expr:
    return ast.Call(func=ast.Attribute(value=node, attr="transpose", ctx=ast.Load()),
                    args=[ast.Constant(-2), ast.Constant(-1)], keywords=[])


def _replacements(node: ast.AST, parent: ast.AST | None, names: Sequence[str],
                  own_params: Sequence[str] = ()) -> Iterator[ast.AST | None]:
    """What one edit may put where `node` is (None: leave the statement out); `own_params`: the def's parameters."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
        for other_name in names:
            if other_name != node.id and "." not in other_name:
                yield ast.Name(other_name, ast.Load())
        matmul = (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.MatMult)) or (
            isinstance(parent, ast.Call) and _called(parent) in ("matmul", "bmm", "mm", "einsum", "dot", "mv"))
        if matmul:
            yield _transposed(ast.Name(node.id, ast.Load()))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _small_int(node.operand):
        negative = -node.operand.value  # type: ignore[attr-defined]
        for other in SMALL_INTS:     # -1 is one number: -2, 0, 1 in its place (never -(-2))
            if other != negative:
                yield ast.Constant(other)
    elif isinstance(node, ast.Constant):
        if isinstance(parent, ast.UnaryOp):
            return                   # the number of -1 or -1e9: edited as a whole above, or by dropping the minus
        v = node.value
        if isinstance(v, bool):
            yield ast.Constant(not v)
        elif isinstance(v, int) and -8 <= v <= 8:
            for other in SMALL_INTS:
                if other != v:
                    yield ast.Constant(other)
        if isinstance(v, int) and not isinstance(v, bool) and isinstance(parent, ast.BinOp) and isinstance(
                parent.op, ast.Add) and any(isinstance(x, (ast.Tuple, ast.Subscript)) for x in (parent.left, parent.right)):
            yield ast.Tuple([ast.Constant(v)], ast.Load())       # shape[:-1] + (128) for + (128,)
        elif isinstance(v, float) and math.isfinite(v) and v != 0:
            yield ast.Constant(-v)
            yield ast.Constant(1 / v)
        elif isinstance(v, str) and v in ("inf", "-inf", "+inf"):
            yield ast.Constant("inf" if v.startswith("-") else "-inf")
        elif (isinstance(v, str) and isinstance(parent, ast.Call) and _called(parent) == "einsum"
              and parent.args and parent.args[0] is node):
            for equation in _einsum_edits(v):
                yield ast.Constant(equation)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert, ast.Not)):
        yield node.operand      # -x, ~mask, not flag: the sign or the sense dropped
    elif isinstance(node, ast.BinOp):
        yield from _regrouped(node)
        if isinstance(node.op, (ast.Sub, ast.Div)):
            yield ast.BinOp(node.right, node.op, node.left)          # m - x for x - m, d / s for s / d
        for op in _SWAP_OPS.get(type(node.op), ()):
            yield ast.BinOp(node.left, op(), node.right)
        if isinstance(node.op, ast.MatMult):
            yield ast.BinOp(node.right, ast.MatMult(), node.left)
            yield ast.BinOp(node.left, ast.Mult(), node.right)        # a product of entries written as @
        else:
            yield node.left
            if isinstance(node.op, (ast.Add, ast.Mult)):
                yield node.right
    elif isinstance(node, ast.IfExp) and isinstance(node.body, ast.BinOp):
        # `x / c if scaled else 1` is (x / c) if scaled else 1: the condition was meant for the divisor alone
        yield ast.BinOp(node.body.left, node.body.op, ast.IfExp(node.test, node.body.right, node.orelse))
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        for op in _SWAP_CMP.get(type(node.ops[0]), ()):
            yield ast.Compare(node.left, [op()], node.comparators)
    elif isinstance(node, ast.List) and isinstance(node.ctx, ast.Load) and node.elts and not any(
            isinstance(e, ast.Starred) for e in node.elts):
        yield ast.Tuple(node.elts, ast.Load())      # a shape written as a list, added to a tuple
    elif isinstance(node, ast.Set) and node.elts:
        yield ast.List(node.elts, ast.Load())       # equal items collected in a set collapse into one
    elif isinstance(node, ast.Call):
        yield from _call_edits(node)
        if (_called(node) in SQUARE and len(node.args) == 1 and not isinstance(node.args[0], (ast.Starred, ast.Tuple))
                and isinstance(node.args[0], (ast.Name, ast.Attribute, ast.Subscript))):
            # torch.eye(T_q) where (T_q, T_k) is meant: a square made for a rectangle, its second size left out
            for other_name in names:
                if "." not in other_name and other_name != ast.unparse(node.args[0]):
                    yield ast.Call(node.func, [node.args[0], ast.Name(other_name, ast.Load())], node.keywords)
        yield from _sliced_like_siblings(node, names)
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        if _self_attribute(node) in names:      # a class's self.W_O read where its self.W_V is meant
            for other_name in names:
                if other_name.startswith("self.") and other_name != _self_attribute(node):
                    yield ast.Attribute(ast.Name("self", ast.Load()), other_name[5:], ast.Load())
        if isinstance(node.value, ast.Attribute) and node.value.attr == "cuda":
            yield ast.Attribute(node.value.value, node.attr, ast.Load())    # torch.cuda.manual_seed: the GPU's only
        if node.attr == "values" and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                and node.value.func.attr == "max":      # x.max(dim).values where the log-sum-exp is meant
            yield ast.Call(ast.Attribute(node.value.func.value, "logsumexp", ast.Load()), node.value.args,
                           node.value.keywords)
        if node.attr in ("T", "mT", "H", "mH"):
            yield node.value
            if node.attr == "T":
                yield _transposed(node.value)
        for twin in TWINS.get(node.attr, ()):
            yield ast.Attribute(node.value, twin, ast.Load())
    elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Slice)
          and node.slice.lower is not None and node.slice.upper is None and node.slice.step is None):
        yield ast.Subscript(node.value, node.slice.lower, ast.Load())      # shape[-1:] (a Size) for shape[-1]
    elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and not isinstance(node.slice, ast.Tuple)
          and isinstance(node.value, (ast.Name, ast.Attribute))):
        # W[rows] for W[:, cols]: a block of a weight's columns taken from its rows (one axis too early)
        yield ast.Subscript(node.value, ast.Tuple([ast.Slice(), node.slice], ast.Load()), ast.Load())
    elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Tuple)
          and 2 <= len(node.slice.elts) <= 4):
        for i in range(len(node.slice.elts)):      # x[:, 0] for x[0]: one index too many
            rest = node.slice.elts[:i] + node.slice.elts[i + 1:]
            yield ast.Subscript(node.value, rest[0] if len(rest) == 1 else ast.Tuple(rest, ast.Load()), ast.Load())
    elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) and parent is not None:
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            # heads += out_h on a list extends it by the tensor's rows: append was meant
            yield ast.Expr(ast.Call(ast.Attribute(ast.Name(node.target.id, ast.Load()), "append", ast.Load()),
                                    [node.value], []))
        yield None
        yield from _bounds_moved_together(node)
        yield from _columns_for_rows_together(node)
    elif (isinstance(node, ast.arguments) and isinstance(parent, ast.FunctionDef) and not node.posonlyargs
          and len(node.args) - len(node.defaults) >= 2):
        # a helper's parameters in another order than its calls pass them (def cost(d_k, T) called as cost(T, d_k)):
        # one edit at the def mends every call of it
        params = list(node.args)
        params[0], params[1] = params[1], params[0]
        yield ast.arguments(posonlyargs=[], args=params, vararg=node.vararg, kwonlyargs=node.kwonlyargs,
                            kw_defaults=node.kw_defaults, kwarg=node.kwarg, defaults=node.defaults)
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)) and parent is not None:
        yield from _name_swapped_together(node, names)
    if (isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Load)
            and not isinstance(parent, (ast.Attribute, ast.Subscript, ast.Call))):
        root: ast.expr = node
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name) and root.id not in names and not _is_module(root) and root.id != "self":
            # a size read off a global of the notebook (K.shape[-2], the cell above's K) where a parameter is meant
            for param in own_params:
                yield ast.Name(param, ast.Load())
    if isinstance(node, ast.expr) and _off_by_one(node, parent):   # a slice's bound or range's end one off
        yield ast.BinOp(node, ast.Add(), ast.Constant(1))
        yield ast.BinOp(node, ast.Sub(), ast.Constant(1))
    if isinstance(parent, (ast.For, ast.comprehension)) and node is parent.iter and isinstance(node, ast.Name):
        for method in ("values", "items"):      # `for a, b in shapes:` over a dict's keys
            yield ast.Call(ast.Attribute(ast.Name(node.id, ast.Load()), method, ast.Load()), [], [])
    elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) >= 2:
        elts = list(node.value.elts)
        elts[0], elts[1] = elts[1], elts[0]
        yield ast.Return(ast.Tuple(elts, ast.Load()))


def _off_by_one(node: ast.AST, parent: ast.AST | None) -> bool:
    """Whether `node` is a bound of a slice or the end of a range() (not a literal: numbers have edits of their
    own), where an off-by-one slip sits."""
    if not isinstance(node, (ast.Name, ast.BinOp, ast.Attribute, ast.Subscript, ast.Call)):
        return False
    if isinstance(parent, ast.Slice):
        return node is parent.lower or node is parent.upper
    return (isinstance(parent, ast.Call) and _called(parent) == "range" and not parent.keywords
            and len(parent.args) in (1, 2) and node is parent.args[-1])


def _bounds_moved_together(statement: ast.AST) -> Iterator[ast.AST]:
    """One statement whose slices share a bound (A[..., t, :t] = f(S[..., t, :t])): each such bound moved by one
    in all of them at once, the way one mistaken belief writes it everywhere."""
    bounds: dict[str, int] = {}
    for n in ast.walk(statement):
        if isinstance(n, ast.Slice):
            for b in (n.lower, n.upper):
                if b is not None and not isinstance(b, (ast.Constant, ast.UnaryOp)):
                    bounds[ast.unparse(b)] = bounds.get(ast.unparse(b), 0) + 1
    for text, count in bounds.items():
        if count < 2:
            continue
        for op in (ast.Add, ast.Sub):
            moved = copy.deepcopy(statement)
            for n in ast.walk(moved):
                if isinstance(n, ast.Slice):
                    for field in ("lower", "upper"):
                        b = getattr(n, field)
                        if b is not None and not isinstance(b, (ast.Constant, ast.UnaryOp)) and ast.unparse(b) == text:
                            setattr(n, field, ast.BinOp(b, op(), ast.Constant(1)))
            yield moved


def _name_swapped_together(statement: ast.AST, names: Sequence[str]) -> Iterator[ast.AST]:
    """One statement that reads a variable twice or more (`row, col = idx // T_q, idx % T_q`): each other variable
    of the function put for it in all those places at once, one mistaken belief written twice."""
    counts: dict[str, int] = {}
    for n in ast.walk(statement):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names:
            counts[n.id] = counts.get(n.id, 0) + 1
    twice = sorted((old for old, count in counts.items() if count >= 2), key=lambda old: -counts[old])
    for old in twice[:SWAP_TOGETHER_NAMES]:        # each swap copies the whole statement: a bounded few
        for new in [n for n in names if n != old and "." not in n][:SWAP_TOGETHER_NAMES * 3]:
            moved = copy.deepcopy(statement)
            for n in ast.walk(moved):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == old:
                    n.id = new
            yield moved


def _sliced_like_siblings(call: ast.Call, names: Sequence[str]) -> Iterator[ast.AST]:
    """A call two or more of whose arguments are variables cut by the same index (`attention(Q[:, cols], K,
    V[:, cols])`): each argument that is a bare variable of the function cut by it too (a head's keys left whole)."""
    cuts: dict[str, int] = {}
    for a in call.args:
        if isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name):
            cuts[ast.unparse(a.slice)] = cuts.get(ast.unparse(a.slice), 0) + 1
    for text, count in cuts.items():
        if count < 2:
            continue
        cut = next(a.slice for a in call.args if isinstance(a, ast.Subscript) and ast.unparse(a.slice) == text)
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Name) and a.id in names:
                args = list(call.args)
                args[i] = ast.Subscript(ast.Name(a.id, ast.Load()), copy.deepcopy(cut), ast.Load())
                yield ast.Call(call.func, args, call.keywords)


def _columns_for_rows_together(statement: ast.AST) -> Iterator[ast.AST]:
    """One statement that takes the same block of several weights' rows (`X @ W_Q[rows], X @ W_K[rows], ...`):
    the block taken from their columns (`W_Q[:, rows]`) in all of them at once, one belief written three times."""
    blocks: dict[str, int] = {}
    for n in ast.walk(statement):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and not isinstance(n.slice, ast.Tuple) \
                and isinstance(n.value, (ast.Name, ast.Attribute)):
            blocks[ast.unparse(n.slice)] = blocks.get(ast.unparse(n.slice), 0) + 1
    for text, count in blocks.items():
        if count < 2:
            continue
        moved = copy.deepcopy(statement)
        for n in ast.walk(moved):
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and not isinstance(n.slice, ast.Tuple) \
                    and isinstance(n.value, (ast.Name, ast.Attribute)) and ast.unparse(n.slice) == text:
                n.slice = ast.Tuple([ast.Slice(), n.slice], ast.Load())
        yield moved


def _regrouped(node: ast.BinOp) -> Iterator[ast.AST]:
    """Precedence slips: `h + 1 * d` for `(h + 1) * d`, `a / b * c` for `a / (b * c)`, and back; a call's
    closing parenthesis in the wrong place: `exp(x) - m` for `exp(x - m)`."""
    additive, multiplicative = (ast.Add, ast.Sub), (ast.Mult, ast.Div, ast.FloorDiv, ast.MatMult, ast.Pow)
    a, c = node.left, node.right
    if isinstance(a, ast.Call) and len(a.args) == 1 and not isinstance(a.args[0], ast.Starred):
        yield ast.Call(a.func, [ast.BinOp(a.args[0], node.op, c)], a.keywords)
    elif (isinstance(a, ast.Call) and not a.args and not a.keywords and isinstance(a.func, ast.Attribute)
          and not _is_module(a.func.value)):
        yield ast.Call(ast.Attribute(ast.BinOp(a.func.value, node.op, c), a.func.attr, ast.Load()), [], [])
    if isinstance(node.op, additive):
        if isinstance(c, ast.BinOp) and isinstance(c.op, multiplicative):
            yield ast.BinOp(ast.BinOp(a, node.op, c.left), c.op, c.right)        # a + b*c -> (a + b)*c
        if isinstance(a, ast.BinOp) and isinstance(a.op, multiplicative):
            yield ast.BinOp(a.left, a.op, ast.BinOp(a.right, node.op, c))        # a*b + c -> a*(b + c)
    elif isinstance(node.op, multiplicative):
        if isinstance(a, ast.BinOp):
            yield ast.BinOp(a.left, a.op, ast.BinOp(a.right, node.op, c))        # a/b*c -> a/(b*c)
        if isinstance(c, ast.BinOp):
            yield ast.BinOp(ast.BinOp(a, node.op, c.left), c.op, c.right)        # a*(b + c) -> a*b + c


def _einsum_edits(equation: str) -> Iterator[str]:
    """An einsum equation with one slip undone: two letters of one operand (or of the output) swapped, or
    one letter put for another ("bqd,bkd->bkq" for "bqd,bkd->bqk", "ij,kj->ik" for "ij,jk->ik"). An ellipsis
    stays where it is."""
    eq = equation.replace(" ", "").replace("...", "#")
    if len(eq) > 40 or not re.fullmatch(r"#?[A-Za-z]+#?(,#?[A-Za-z]+#?)*(->#?[A-Za-z]*#?)?", eq):
        return
    for edited in _einsum_letter_edits(eq):
        yield edited.replace("#", "...")


def _einsum_letter_edits(eq: str) -> Iterator[str]:
    lhs, arrow, rhs = eq.partition("->")
    terms = [*lhs.split(","), *([rhs] if arrow else [])]
    inputs = len(lhs.split(","))
    letters = sorted({c for c in eq if c.isalpha()})
    seen = {eq, _canonical(eq)}

    def joined(ts: list[str]) -> str:
        return ",".join(ts[:inputs]) + (f"->{ts[inputs]}" if arrow else "")
    for i, term in enumerate(terms):
        for a in range(len(term)):
            for b in range(a + 1, len(term)):
                t = list(term)
                t[a], t[b] = t[b], t[a]
                if "#" not in (t[a], t[b]):
                    yield from _new(joined([*terms[:i], "".join(t), *terms[i + 1:]]), seen)
        for a in range(len(term)):
            for other in letters:
                if other != term[a] and term[a] != "#":
                    t = list(term)
                    t[a] = other
                    yield from _new(joined([*terms[:i], "".join(t), *terms[i + 1:]]), seen)
    if arrow:       # one letter on two axes ("td,td->t" for "qd,kd->qk"): a later operand's own letter, kept
        spare = next((c for c in "abcdefghijklmnopqrstuvwxyz" if c not in letters), "")
        for i in range(1, inputs):
            for a, shared in enumerate(terms[i]):
                if spare and shared != "#" and shared in rhs and any(shared in t for t in terms[:i]):
                    term = terms[i][:a] + spare + terms[i][a + 1:]
                    at = rhs.index(shared) + 1
                    yield from _new(joined([*terms[:i], term, *terms[i + 1:inputs], rhs[:at] + spare + rhs[at:]]), seen)
        # the output with a letter of the inputs added where it was left out (summed over), or one dropped
        for a in range(len(rhs) + 1):
            for other in letters:
                if other not in rhs:
                    yield from _new(joined([*terms[:inputs], rhs[:a] + other + rhs[a:]]), seen)
        for a in range(len(rhs)):
            if rhs[a] != "#":
                yield from _new(joined([*terms[:inputs], rhs[:a] + rhs[a + 1:]]), seen)


def _new(text: str, seen: set[str]) -> Iterator[str]:
    """`text`, unless it or an equation that differs from it only by its letters' names came already."""
    canonical = _canonical(text)
    if text not in seen and canonical not in seen:
        seen.update((text, canonical))
        yield text


def _canonical(equation: str) -> str:
    """The equation with its letters renamed in order of first use ("nj,nj->n" and "ni,ni->n" are one)."""
    names: dict[str, str] = {}
    return "".join(names.setdefault(c, "#" + chr(65 + len(names))) if c.isalpha() else c for c in equation)


def _small_int(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)
            and -8 <= node.value <= 8)


def _called(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _call_edits(node: ast.Call) -> Iterator[ast.AST]:
    called = _called(node)
    args, kws = list(node.args), list(node.keywords)
    for i, a in enumerate(args):
        if isinstance(a, ast.Starred):      # torch.cat(*heads, dim=1): a call that takes one sequence given its items
            yield ast.Call(node.func, [*args[:i], a.value, *args[i + 1:]], kws)
    if len(args) >= 2 and not any(isinstance(a, ast.Starred) for a in args[:2]):
        swapped = [args[1], args[0], *args[2:]]
        yield ast.Call(node.func, swapped, kws)
    if len(args) == 3 and not any(isinstance(a, ast.Starred) for a in args):
        yield ast.Call(node.func, [args[0], args[2], args[1]], kws)      # torch.where's two branches
    if called == "transpose" and len(args) != 2 and isinstance(node.func, ast.Attribute):
        yield ast.Call(node.func, [ast.Constant(-2), ast.Constant(-1)], kws)    # NumPy's x.transpose(0, 2, 1)
    if called == "transpose" and len(args) >= 3 and isinstance(node.func, ast.Attribute):
        yield ast.Call(ast.Attribute(node.func.value, "permute", ast.Load()), args, kws)   # NumPy's axes order
    last = args[-1].value if args and isinstance(args[-1], ast.Constant) else None
    base = {2: "log2", 10: "log10"}.get(last, "") if isinstance(last, int) else ""
    if called == "log" and isinstance(node.func, ast.Attribute) and base and (
            len(args) == (2 if _is_module(node.func.value) else 1)):
        yield ast.Call(ast.Attribute(node.func.value, base, ast.Load()), args[:-1], kws)  # torch.log(p, 2), p.log(2)
    if called in ("squeeze", "flatten") and not args and not kws and isinstance(node.func, ast.Attribute):
        for dim in (0, 1, -1, -2):                 # every size-1 axis squeezed, or every axis flattened
            yield ast.Call(node.func, [ast.Constant(dim)], [])
    if called in ("numel", "nelement", "dim") and not args and not kws and isinstance(node.func, ast.Attribute):
        # d_k = Q.numel() (every entry) or Q.dim() (the axes) where the last axis's size is meant
        yield ast.Subscript(ast.Attribute(node.func.value, "shape", ast.Load()), ast.Constant(-1), ast.Load())
    if called == "round" and len(args) == 2 and isinstance(node.func, ast.Name):
        yield args[0]                        # round(var, 1): an answer rounded before it is stored
    if called == "inner" and len(args) == 2 and not kws:      # torch.inner pairs the LAST axes of both
        yield ast.BinOp(args[0], ast.MatMult(), args[1])
    if called in ("sigmoid", "logsigmoid"):     # one output squashed alone for the row's distribution
        twin = "softmax" if called == "sigmoid" else "log_softmax"
        yield ast.Call(ast.Attribute(node.func.value, twin, ast.Load()) if isinstance(node.func, ast.Attribute)
                       else ast.Name(twin, ast.Load()), args, [*kws, ast.keyword("dim", ast.Constant(-1))])
    if called == "transpose" and len(args) == 2 and not (
            all(isinstance(a, ast.Constant) for a in args) and [a.value for a in args] in ([-2, -1], [-1, -2])):  # type: ignore[attr-defined]
        yield ast.Call(node.func, [ast.Constant(-2), ast.Constant(-1)], kws)
    if isinstance(node.func, ast.Attribute):
        for twin in TWINS.get(called, ()):
            yield ast.Call(ast.Attribute(node.func.value, twin, ast.Load()), args, kws)
        if called in UNWRAP and not kws and len(args) <= 2 and not _is_module(node.func.value):
            yield node.func.value           # x.transpose(0, 1) -> x, x.sqrt() -> x
    elif isinstance(node.func, ast.Name) and called in TWINS:
        for twin in TWINS[called]:
            yield ast.Call(ast.Name(twin, ast.Load()), args, kws)
    if called in UNWRAP and len(args) == 1 and not isinstance(args[0], ast.Starred) and (
            isinstance(node.func, ast.Name) or _is_module(getattr(node.func, "value", None))):
        yield args[0]                        # math.sqrt(d) -> d, torch.exp(x) -> x
    for i, a in enumerate(args):
        if i and isinstance(a, ast.Attribute) and a.attr in DTYPES and "dtype" not in {k.arg for k in kws}:
            yield ast.Call(node.func, args[:i] + args[i + 1:], [*kws, ast.keyword("dtype", a)])
    if called in MASKED and args and not isinstance(args[0], (ast.Starred, ast.UnaryOp)):
        yield ast.Call(node.func, [ast.UnaryOp(ast.Invert(), args[0]), *args[1:]], kws)    # the mask's sense
        if not isinstance(args[0], ast.Compare):
            yield ast.Call(node.func, [ast.Call(ast.Attribute(args[0], "bool", ast.Load()), [], []), *args[1:]], kws)
    names = {k.arg for k in kws}
    has_dim = "dim" in names or "axis" in names or (len(args) >= (2 if _is_module(getattr(node.func, "value", None))
                                                                  or isinstance(node.func, ast.Name) else 1))
    if called in ("cumsum", "cumprod") and "keepdim" not in names:    # a running total for the row's total
        total = "sum" if called == "cumsum" else "prod"
        func = (ast.Attribute(node.func.value, total, ast.Load()) if isinstance(node.func, ast.Attribute)
                else ast.Name(total, ast.Load()))
        yield ast.Call(func, args, [*kws, ast.keyword("keepdim", ast.Constant(True))])
    if called in REDUCTIONS and has_dim and "keepdim" not in names and "keepdims" not in names:
        yield ast.Call(node.func, args, [*kws, ast.keyword("keepdim", ast.Constant(True))])
    if called in NEEDS_DIM and not has_dim:
        yield ast.Call(node.func, args, [*kws, ast.keyword("dim", ast.Constant(-1))])


def _is_module(node: ast.AST | None) -> bool:
    """`torch`, `F`, `math`, `np`, `torch.nn.functional`: a call through it takes the tensor as an argument."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("torch", "F", "math", "np", "numpy", "nn", "functional")


def _slots(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST, str, int | None]]:
    """(node, parent, field, index in the field's list or None) for every node under `tree`, in source order."""
    stack: list[tuple[ast.AST, ast.AST, str, int | None]] = []
    for field, value in reversed(list(ast.iter_fields(tree))):
        if isinstance(value, list):
            stack += [(v, tree, field, i) for i, v in reversed(list(enumerate(value))) if isinstance(v, ast.AST)]
        elif isinstance(value, ast.AST):
            stack.append((value, tree, field, None))
    while stack:
        node, parent, field, index = stack.pop()
        yield node, parent, field, index
        for f, value in reversed(list(ast.iter_fields(node))):
            if isinstance(value, list):
                stack += [(v, node, f, i) for i, v in reversed(list(enumerate(value))) if isinstance(v, ast.AST)]
            elif isinstance(value, ast.AST):
                stack.append((value, node, f, None))


def _put(parent: ast.AST, field: str, index: int | None, value: Any) -> None:
    if index is None:
        setattr(parent, field, value)
    else:
        getattr(parent, field)[index] = value


def _cut(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def edits(cells: Sequence[str], name: str, copy_prefix: str) -> tuple[int, list[Edit]] | None:
    """(cell index, the one-edit copies of the notebook's `def name`, each renamed copy_prefix + its number),
    its own edits first, then those of the helpers it calls (helper_edits). None where the notebook has no
    readable def of that name."""
    own = _own_edits(cells, name, copy_prefix)
    if own is None:
        return None
    index, out = own
    return index, out + helper_edits(cells, name, copy_prefix, len(out))


def helper_edits(cells: Sequence[str], name: str, copy_prefix: str, start: int = 0,
                 cell_errors: Mapping[int, str] | None = None) -> list[Edit]:
    """The one-edit copies of the helpers (functions and classes the notebook defines) that `def name` calls,
    numbered from `start`: each a copy of the helper with one edit and a copy of `name` that calls it. The
    copy of `name` is printed once per helper, with names of the grader's own (a random part) to fill in."""
    found = last_def(cells, name)
    if found is None:
        return []
    fn = found[1]
    out: list[Edit] = []
    # a helper whose last def is not what the graded call reached (left_bound) is not edited (`cell_errors` given)
    helpers = [h for h in _helpers(fn, cells) if cell_errors is None or left_bound(cells, h[0], cell_errors)]
    for k, (helper, (helper_cell, helper_fn, _cell)) in enumerate(helpers[:MAX_HELPERS]):
        helper_fn.decorator_list = []
        made = _edits_of(helper_fn, [n for n in _local_names(helper_fn) if n != helper], f"{copy_prefix}h{k}_",
                         MAX_CANDIDATES - start - len(out))
        called, caller = f"{copy_prefix}h{k}_helper", f"{copy_prefix}h{k}_caller"
        template = _calling(fn, helper, called, caller)
        if template is None:
            continue
        for j, e in enumerate(made):
            source = template.replace(called, f"{copy_prefix}h{k}_{j}").replace(caller, f"{copy_prefix}{start + len(out)}")
            out.append(Edit(line=e.line, before=e.before, after=e.after, source=f"{e.source}\n{source}",
                            helper=helper, cell=helper_cell, local_swap=e.local_swap))
    return out


def _helpers(fn: ast.FunctionDef, cells: Sequence[str]) -> list[tuple[str, tuple[int, Any, str]]]:
    """(name, last_def) of the functions (and classes) `fn` calls by a plain name that is none of its own
    and that the notebook defines."""
    own = set(_local_names(fn)) | {fn.name}
    called: list[str] = []
    for node in ast.walk(fn):
        if len(called) >= MAX_HELPER_LOOKS:
            break   # each look parses the helper's cell (and left_bound's twice more): bounded, not one per call
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in own
                and node.func.id not in called
                and any(holds_name_text(c, "def", node.func.id) or holds_name_text(c, "class", node.func.id)
                        for c in cells)):
            called.append(node.func.id)
    return [(h, found) for h in called if (found := last_def(cells, h, classes=True)) is not None]


def _calling(fn: ast.FunctionDef, helper: str, helper_copy: str, copy_name: str) -> str | None:
    """The source of `fn` named copy_name, calling helper_copy wherever it calls (or names) `helper`."""
    try:
        renamed = _Renamed(helper, helper_copy).visit(copy.deepcopy(fn))
        renamed.name = copy_name
        renamed.decorator_list = []
        return ast.unparse(ast.fix_missing_locations(renamed))
    except (RecursionError, ValueError, TypeError, AttributeError):
        return None


class _Renamed(ast.NodeTransformer):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.new, node.ctx) if node.id == self.old and isinstance(node.ctx, ast.Load) else node


def _own_edits(cells: Sequence[str], name: str, copy_prefix: str, limit: int = MAX_CANDIDATES,
               classes: bool = False) -> tuple[int, list[Edit]] | None:
    """edits() of `def name`'s own source (or, with `classes`, of `class name`'s): at most `limit`."""
    found = last_def(cells, name, classes)
    if found is None:
        return None
    index, fn, _cell = found
    fn.decorator_list = []          # the copy is the function itself: a decorator may register or wrap it
    return index, _edits_of(fn, [n for n in _local_names(fn) if n != name], copy_prefix, limit)


def value_edits(cells: Sequence[str], names: Sequence[str], copy_prefix: str) -> tuple[int, list[Edit]] | None:
    """(cell index, one-edit copies of the last cell whose top level assigns `names[0]`): each copy a function
    of no arguments, named copy_prefix + its number, that runs the edited cell's code and returns the tuple
    of its `names` (the cell's own names stay local to the copy: running one changes no global). The names an edit may
    put in place of another: the cell's own and those it reads (`T`, `d_k`), never a module or a call's
    function. None where no readable cell assigns it."""
    from autograder.grading.source_checks import cells_assigning_globally
    made = cells_assigning_globally(cells, names[0]) if names else []
    if not made or len(cells[made[-1]]) > MAX_SOURCE_CHARS:
        return None
    index = made[-1]
    try:
        tree = parse(cells[index])
        shell = parse("def _copy_():\n    pass\n").body[0]
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    if not isinstance(shell, ast.FunctionDef) or not tree.body:
        return None
    answer = ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load()))
    ast.copy_location(answer, tree.body[-1])
    shell.body = [*tree.body, answer]
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    imported = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}
    names = [n for n in _local_names(shell) if n not in imported]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in called
                and node.id not in names and node.id not in imported and not _is_module(node)
                and not hasattr(builtins, node.id)):
            names.append(node.id)
    # a number put for a number the student wrote would tell a hand-worked answer ("`2` in place of `5`"),
    # not a slip: only the changes around the numbers are said. The return is the grader's own, not the
    # student's code: no edit there ("`wc` in place of `weights3_causal`" on a line the cell does not have)
    # nor one edit made in every line written alike: a trace cell's calls of a wrong helper are alike (two
    # stable_softmax(..., dim=-1)), and the same change in each can offset the helper's slip instead of naming it
    return index, _edits_of(shell, names, copy_prefix, MAX_CANDIDATES, numbers=False,
                            fixed=frozenset(id(n) for n in ast.walk(answer)), look_alikes=False)


_NUMBER = re.compile(r"[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")   # no two runs that can share digits


class _Printed:
    """A def's source for each of its edited copies, printed once per top-level statement: an edit inside
    statement k prints only k again (printing the whole def per edit was half of a long function's search)."""

    def __init__(self, fn: ast.FunctionDef | ast.ClassDef) -> None:
        self.fn = fn
        self.body = list(fn.body)
        self.whole = not isinstance(fn, ast.FunctionDef)      # a class: printed whole each time
        self.texts = [] if self.whole else [textwrap.indent(ast.unparse(s), "    ") for s in self.body]
        self.top = {id(n): k for k, s in enumerate(self.body) for n in ast.walk(s)}
        self.header = ""
        if not self.whole:
            name, body = fn.name, fn.body
            fn.name, fn.body = "_ag_copy_name_", [ast.Pass()]
            try:
                self.header = ast.unparse(fn).rsplit("\n", 1)[0]
            finally:
                fn.name, fn.body = name, body
        self.whole_chars = len(ast.unparse(fn)) if self.whole else 0
        self.reprinted = 0          # characters printed again so far, for the edits made

    def affordable(self, node: ast.AST, parent: ast.AST, field: str, at: int | None) -> bool:
        """Whether an edit at `node` may still be printed: each edit prints its top-level statement again (the
        whole def, for a class), and past MAX_REPRINTED_CHARS for this def only statements of at most
        CHEAP_STATEMENT_CHARS are (red-team round 53: one 6000-character statement printed again for each of 800
        edits cost 6 s of the grader's CPU per def). A count of characters, not of time: the same edits on any
        machine."""
        k = at if parent is self.fn and field == "body" else self.top.get(id(node))
        cost = self.whole_chars if self.whole or k is None else len(self.texts[k])
        if self.reprinted + cost > MAX_REPRINTED_CHARS and cost > CHEAP_STATEMENT_CHARS:
            return False
        self.reprinted += cost
        return True

    def source(self, name: str, node: ast.AST, parent: ast.AST, field: str, at: int | None,
               new: ast.AST | None) -> str:
        """The source of the def as it is now (one edit made at `node`), named `name`."""
        k = at if parent is self.fn and field == "body" else self.top.get(id(node))
        if self.whole or k is None:
            original, self.fn.name = self.fn.name, name
            try:
                return ast.unparse(self.fn)
            finally:
                self.fn.name = original
        texts = list(self.texts)
        if parent is self.fn:       # a statement of the def's own body left out or put in another's place
            texts[k] = "" if new is None else textwrap.indent(ast.unparse(new), "    ")
        else:
            texts[k] = textwrap.indent(ast.unparse(self.body[k]), "    ")
        return "\n".join([self.header.replace("_ag_copy_name_", name, 1), *(t for t in texts if t)])


def _edits_of(fn: ast.FunctionDef | ast.ClassDef, names: Sequence[str], copy_prefix: str, limit: int,
              numbers: bool = True, fixed: frozenset[int] = frozenset(), look_alikes: bool = True) -> list[Edit]:
    """The one-edit copies of `fn` (each renamed copy_prefix + its number, in order), at most `limit`;
    without one number put for another where `numbers` is False, none at the nodes in `fixed` (ids); with
    `look_alikes`, one edit made in every place written alike too (_alike_together)."""
    out: list[Edit] = []
    params = {p.arg for d in ast.walk(fn) if isinstance(d, ast.FunctionDef)
              for p in (*d.args.posonlyargs, *d.args.args, *d.args.kwonlyargs)}
    try:
        printed = _Printed(fn)
    except RecursionError:      # an expression nested hundreds deep: not printed, so not searched
        return out
    slots = [(node, parent, field, at) for node, parent, field, at in _slots(fn)
             if not (parent is fn and field in ("args", "returns", "decorator_list", "type_comment", "bases", "keywords"))
             and field != "targets" and not (isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load))
             and id(node) not in fixed]
    pending: list[tuple[ast.AST, ast.AST, str, str]] = []     # (node, new, before, after) of edits with look-alikes
    try:
        alike = _written_alike(fn, slots) if isinstance(fn, ast.FunctionDef) and look_alikes else {}
    except RecursionError:      # an expression nested hundreds deep: no look-alikes said of it
        alike = {}
    try:
        own = [p.arg for p in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)] \
            if isinstance(fn, ast.FunctionDef) else []
        for node, parent, field, at, new in _ordered(slots, names, _unread(fn), own):
            if len(out) >= limit:
                break
            if new is None and (at is None or not isinstance(getattr(parent, field), list)):
                continue
            if not printed.affordable(node, parent, field, at):
                continue
            siblings = getattr(parent, field)
            if new is None and len(siblings) == 1:
                new = ast.Pass()
            if new is None:
                if at is None or at == len(siblings) - 1 and isinstance(parent, ast.FunctionDef):
                    continue        # the last statement of the def is its answer, never left out
                after = ""
            else:
                after = ast.unparse(new)
            before = ast.unparse(node)
            if after == before or (not numbers and _NUMBER.fullmatch(before) and _NUMBER.fullmatch(after)
                                   and not _indexes_a_string(parent)       # "ABCD"[3]: a position, not an answer
                                   and not _is_axis(node, parent)):        # sum(dim=-2): an axis, not an answer
                continue
            if new is None:
                setattr(parent, field, [s for i, s in enumerate(siblings) if i != at])
            else:
                ast.copy_location(new, node)
                _put(parent, field, at, new)
            try:
                source = printed.source(f"{copy_prefix}{len(out)}", node, parent, field, at, new)
            finally:
                if new is None:
                    setattr(parent, field, siblings)
                else:
                    _put(parent, field, at, node)
            out.append(Edit(line=getattr(node, "lineno", getattr(parent, "lineno", fn.lineno)),  # a def's parameters
                            before=_cut(before), after=_cut(after),
                            source=source, local_swap=(isinstance(node, ast.Name) and isinstance(new, ast.Name)
                                                       and not {node.id, new.id} & (params | {"_"}))))
            if new is not None and id(node) in alike and len(pending) < MAX_ALIKE_EDITS:
                pending.append((node, new, before, after))
    except (RecursionError, ValueError, TypeError, AttributeError):
        return out
    if isinstance(fn, ast.FunctionDef):
        out += _moves(fn, copy_prefix, len(out), limit - len(out))
        out += _axes_together(fn, copy_prefix, len(out), limit - len(out))
        out += _unwrapped_together(fn, copy_prefix, len(out), limit - len(out))
        # last: the look-alikes' edits are many where lines are copies (three projections split alike), and the
        # kinds above, fewer and each a known slip, must not lose their place to them (blind30's .numpy() dropped)
        if pending:
            made = {_unnamed(e.source, copy_prefix) for e in out}
            out += _alike_together(fn, alike, pending, copy_prefix, len(out), limit - len(out), made)
    return out


_ALIKE_KINDS = (ast.BinOp, ast.Call, ast.Subscript, ast.UnaryOp, ast.Compare, ast.BoolOp)


def _shapes(tree: ast.AST) -> dict[int, int]:
    """id of each node under `tree` -> a number that two nodes share exactly when they are written alike, their
    variables' names left out (`x.pow(2).sum() / n - 1` and `y.pow(2).sum() / m - 1`). One pass, children first
    (a nested expression's shape is built from its children's numbers, never printed: linear in the tree)."""
    interned: dict[tuple[Any, ...], int] = {}
    shape: dict[int, int] = {}
    order: list[ast.AST] = []
    stack = [tree]
    while stack:                      # pre-order, then reversed: every child before its parent
        node = stack.pop()
        order.append(node)
        stack.extend(ast.iter_child_nodes(node))
    for node in reversed(order):
        fields: list[Any] = []
        for name, value in ast.iter_fields(node):
            if isinstance(node, ast.Name) and name == "id":
                continue
            if isinstance(value, ast.AST):
                fields.append(shape[id(value)])
            elif isinstance(value, list):
                fields.append(tuple(shape[id(v)] if isinstance(v, ast.AST) else repr(v) for v in value))
            else:
                fields.append(repr(value))
        shape[id(node)] = interned.setdefault((type(node).__name__, *fields), len(interned))
    return shape


def _renamed(node: ast.AST, mapping: Mapping[str, str]) -> ast.AST:
    """A copy of `node` with its variables renamed by `mapping` (every other name kept)."""
    twin = copy.deepcopy(node)
    for n in ast.walk(twin):
        if isinstance(n, ast.Name):
            n.id = mapping.get(n.id, n.id)
    return twin


def _written_alike(fn: ast.FunctionDef, slots: Sequence[tuple[ast.AST, ast.AST, str, int | None]]
                   ) -> dict[int, list[tuple[ast.AST, ast.AST, str, int | None]]]:
    """id of each expression of `fn` written alike (_shapes) in two or more of its statements -> all those places:
    a slip copied from line to line (`/ n - 1` in both the raw and the scaled variance) that no edit of one line
    mends."""
    owner = _statement_of(fn)
    shape = _shapes(fn)
    groups: dict[int, list[tuple[ast.AST, ast.AST, str, int | None]]] = {}
    for slot in slots:
        node = slot[0]
        if isinstance(node, _ALIKE_KINDS) and isinstance(node, ast.expr) and id(node) in owner:
            groups.setdefault(shape[id(node)], []).append(slot)
    found: dict[int, list[tuple[ast.AST, ast.AST, str, int | None]]] = {}
    for group in groups.values():
        statements = {id(owner[id(s[0])]) for s in group}
        if len(group) >= 2 and len(statements) == len(group):       # one place per statement
            for slot in group:
                found[id(slot[0])] = group
    return found


def _unnamed(source: str, copy_prefix: str) -> str:
    """An edited copy's source without its copy's name: two edits that make the same code are one fix."""
    return re.sub(rf"{re.escape(copy_prefix)}\d+", "", source)


def _alike_together(fn: ast.FunctionDef, alike: Mapping[int, list[tuple[ast.AST, ast.AST, str, int | None]]],
                    pending: Sequence[tuple[ast.AST, ast.AST, str, str]], copy_prefix: str, start: int,
                    limit: int, made: set[str]) -> list[Edit]:
    """The copies of `fn` with one edit of an expression made the same way in every place written alike, each
    place's own variables kept (`/ (n - 1)` for `/ n - 1` in both lines): what one edit does to the first place,
    done to each (its names mapped onto the other place's, in the order both walk them). One change made in every
    place is the same copy from whichever place it started, and may be one an edit above made already (`made`:
    their sources, unnamed): each is tried once, or three equal fixes would read as "the inputs do not tell"
    (blind30's .numpy() dropped from three projections)."""
    out: list[Edit] = []
    name = fn.name
    for node, new, before, after in pending:
        if len(out) >= limit:
            break
        places = alike[id(node)]
        ours = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
        puts = []
        for other, parent, field, at in places:
            theirs = [n.id for n in ast.walk(other) if isinstance(n, ast.Name)]
            mapping: dict[str, str] = {}
            back: dict[str, str] = {}
            if len(theirs) != len(ours) or any(mapping.setdefault(a, b) != b or back.setdefault(b, a) != a
                                               for a, b in zip(ours, theirs)):
                break           # one name of one place read as two of the other: not the same change
            puts.append((other, parent, field, at, ast.copy_location(_renamed(new, mapping), other)))
        else:
            try:
                for _other, parent, field, at, put in puts:
                    _put(parent, field, at, put)
                fn.name = f"{copy_prefix}{start + len(out)}"
                source = ast.unparse(fn)
            except (RecursionError, ValueError, TypeError, AttributeError):
                continue
            finally:
                for other, parent, field, at, _put_node in puts:
                    _put(parent, field, at, other)
                fn.name = name
            code = _unnamed(source, copy_prefix)
            if code in made:
                continue
            made.add(code)
            out.append(Edit(line=getattr(node, "lineno", fn.lineno), before=_cut(before), after=_cut(after),
                            source=source, places=len(places)))
    return out


def _statement_of(fn: ast.FunctionDef) -> dict[int, ast.stmt]:
    """id of each node of `fn` -> the innermost statement holding it (walked last, so it wins)."""
    statements = [n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n is not fn]
    return {id(x): st for st in statements for x in ast.walk(st)}


TRUNCATIONS = {"round", "int", "floor", "ceil", "trunc"}     # a number cut before it is stored or returned


class _Unwrapped(ast.NodeTransformer):
    """Each call whose id is in `targets` replaced by its first argument."""

    def __init__(self, targets: set[int]) -> None:
        self.targets = targets

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        return node.args[0] if id(node) in self.targets else node


def _unwrapped_together(fn: ast.FunctionDef, copy_prefix: str, start: int, limit: int) -> list[Edit]:
    """The copy of `fn` with every call of one truncating function (`round(x, 1)`, `int(x)`) that wraps a value in
    two or more statements replaced by the value itself, at once: one habit written once per answer (both variances
    rounded to one decimal), which no edit of one line mends."""
    owner = _statement_of(fn)
    by_name: dict[str, list[ast.Call]] = {}
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and _called(node) in TRUNCATIONS and 1 <= len(node.args) <= 2
                and not node.keywords and not isinstance(node.args[0], ast.Starred)
                and (isinstance(node.func, ast.Name) or _is_module(getattr(node.func, "value", None)))):
            by_name.setdefault(_called(node), []).append(node)
    out: list[Edit] = []
    for calls in by_name.values():
        if len(out) >= limit or len(calls) < 2 or len({id(owner.get(id(c))) for c in calls}) < 2:
            continue
        copied = copy.deepcopy(fn)
        twin = {id(a): b for a, b in zip(ast.walk(fn), ast.walk(copied))}
        try:
            copied = _Unwrapped({id(twin[id(c)]) for c in calls}).visit(copied)
            copied.name = f"{copy_prefix}{start + len(out)}"
            source = ast.unparse(ast.fix_missing_locations(copied))
        except (RecursionError, ValueError, TypeError, AttributeError):
            continue
        out.append(Edit(line=getattr(calls[0], "lineno", fn.lineno), before=_cut(ast.unparse(calls[0])),
                        after=_cut(ast.unparse(calls[0].args[0])), source=source, places=len(calls)))
    return out


def _axis_of(node: ast.AST) -> int | None:
    """k of `x.shape[k]` or `x.size(k)` (k a small int literal, maybe negative), else None."""
    k: ast.AST | None = None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        k = node.slice
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
          and len(node.args) == 1 and not node.keywords):
        k = node.args[0]
    if isinstance(k, ast.UnaryOp) and isinstance(k.op, ast.USub) and _small_int(k.operand):
        return -k.operand.value  # type: ignore[attr-defined]
    return k.value if k is not None and _small_int(k) else None  # type: ignore[attr-defined]


def _set_axis(node: ast.AST, k: int) -> None:
    new: ast.expr = ast.Constant(k) if k >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-k))
    if isinstance(node, ast.Subscript):
        node.slice = new
    elif isinstance(node, ast.Call):
        node.args = [new]


def _axes_together(fn: ast.FunctionDef, copy_prefix: str, start: int, limit: int) -> list[Edit]:
    """The copies of `fn` with one size read off the same axis in two or more statements (`W_Q.shape[0]`,
    `W_K.shape[0]`, `W_V.shape[0]`: each projection reshaped to d_model) read off another axis in all of them at
    once: one belief written once per line, which no edit of one line mends."""
    out: list[Edit] = []
    owner = _statement_of(fn)
    by_axis: dict[int, list[ast.AST]] = {}
    for node in ast.walk(fn):
        k = _axis_of(node)
        if k is not None:
            by_axis.setdefault(k, []).append(node)
    name = fn.name
    for k, nodes in by_axis.items():
        if len(nodes) < 2 or len({id(owner.get(id(n))) for n in nodes}) < 2:
            continue
        for other in (-1, -2, 0, 1):
            if other == k or len(out) >= limit:
                continue
            before = _cut(ast.unparse(nodes[0]))
            try:
                for n in nodes:
                    _set_axis(n, other)
                after = _cut(ast.unparse(nodes[0]))
                fn.name = f"{copy_prefix}{start + len(out)}"
                source = ast.unparse(fn)
            except (RecursionError, ValueError, TypeError, AttributeError):
                continue
            finally:
                for n in nodes:
                    _set_axis(n, k)
                fn.name = name
            out.append(Edit(line=getattr(nodes[0], "lineno", fn.lineno), before=before, after=after, source=source,
                            places=len(nodes)))
    return out


def _moves(fn: ast.FunctionDef, copy_prefix: str, start: int, limit: int) -> list[Edit]:
    """The copies of `fn` with one statement moved across a loop's edge: the statement just after a loop moved
    into it, at its end (`dots.append(dot)` dedented out of the sampling loop keeps only the last draw), and a
    loop's last statement moved out, after it. Numbered from `start`, at most `limit`."""
    out: list[Edit] = []
    loops = [(holder, field, i) for holder in ast.walk(fn) for field in ("body", "orelse")
             if isinstance(getattr(holder, field, None), list)
             for i, n in enumerate(getattr(holder, field)) if isinstance(n, (ast.For, ast.While))]
    name = fn.name
    for holder, field, i in loops:
        block: list[ast.stmt] = getattr(holder, field)
        loop = block[i]
        assert isinstance(loop, (ast.For, ast.While))
        tries = []
        if i + 1 < len(block) and not isinstance(block[i + 1], (ast.Return, ast.FunctionDef, ast.ClassDef)):
            tries.append(("in", block[i + 1]))
        if len(loop.body) >= 2 and not isinstance(loop.body[-1], (ast.Return, ast.Break, ast.Continue)):
            tries.append(("out", loop.body[-1]))
        for way, statement in tries:
            if len(out) >= limit:
                return out
            body = list(loop.body)
            try:
                if way == "in":
                    loop.body = [*body, statement]
                    setattr(holder, field, block[:i + 1] + block[i + 2:])
                else:
                    loop.body = body[:-1]
                    setattr(holder, field, block[:i + 1] + [statement] + block[i + 1:])
                fn.name = f"{copy_prefix}{start + len(out)}"
                source = ast.unparse(fn)
            except (RecursionError, ValueError, TypeError, AttributeError):
                continue
            finally:
                loop.body, fn.name = body, name
                setattr(holder, field, block)
            kind = "for" if isinstance(loop, ast.For) else "while"
            text = _cut(ast.unparse(statement))
            out.append(Edit(line=statement.lineno, before=text, after=text, source=source,
                            moved=(f"into the `{kind}` loop above it, at its end" if way == "in"
                                   else f"out of the `{kind}` loop, after it")))
    return out


def same_answer(got: Any, expected: Any) -> bool:
    """Whether `got` is the reference's `expected`: tensors of one shape, close in float64 (NaN where NaN),
    tuples and lists element by element, numbers close, anything else equal."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, torch.Tensor) or got.shape != expected.shape or got.is_complex():
            return False
        if expected.dtype == torch.bool or got.dtype == torch.bool:
            return bool(got.dtype == expected.dtype and torch.equal(got, expected))
        if got.dtype != expected.dtype:
            # the tests ask for the input's dtype: an edit whose copy returns float16 where float32 is asked is no fix
            # (blind51: `out.to(out.dtype)` for `out.to(Q.dtype)` was offered for a product made in float16, and with
            # it every test failed on the dtype)
            return False
        half = torch.float16 in (got.dtype, expected.dtype) or torch.bfloat16 in (got.dtype, expected.dtype)
        try:
            return bool(torch.allclose(got.detach().cpu().to(torch.float64), expected.detach().cpu().to(torch.float64),
                                       rtol=1e-2 if half else 1e-4, atol=1e-3 if half else 1e-6, equal_nan=True))
        except (RuntimeError, TypeError):
            return False
    if isinstance(expected, dict):
        return (isinstance(got, dict) and list(got) == list(expected)
                and all(same_answer(got[k], expected[k]) for k in expected))
    if isinstance(expected, (tuple, list)):
        return (isinstance(got, (tuple, list)) and len(got) == len(expected)
                and all(same_answer(g, e) for g, e in zip(got, expected)))
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(got) is type(expected) and got == expected
    if type(expected) is int:           # a count is exact: 90768 + 2 / d_model is not it
        return type(got) is int and got == expected
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        try:
            return math.isclose(got, expected, rel_tol=1e-6, abs_tol=1e-9) or (math.isnan(got) and math.isnan(expected))
        except OverflowError:      # an int past float's range (n << 64) is not a float's answer
            return False
    try:
        return bool(got == expected)
    except Exception:  # noqa: BLE001 - a value that cannot be compared is not the answer
        return False


def search(edited: Sequence[Edit], run: Callable[[int, int], Any], expected: Sequence[Any],
           out_of_time: Callable[[], bool], stop: tuple[type[BaseException], ...] = (),
           survivors: list[tuple[float, int]] | None = None, order: Sequence[int] | None = None,
           cap: int = MAX_FIXES) -> list[Edit]:
    """The edits whose copy gives `expected[i]` on recorded call i for every i. `run(edit number, call number)`
    calls the copy (raises on a crash); the first call is the one that failed. Stops early at `cap` + 1
    fixes (too many to tell apart) or when `out_of_time()` or a call raises an exception of `stop`.
    `survivors` (when given) gets (how far its answer is from the expected one, the number) of each edit whose
    copy answered the first call without raising,
    though not the expected answer: a random function's copy draws its own numbers. `order`: the edits'
    numbers in the order to try them (all of them, in their own order, where None)."""
    fixes: list[Edit] = []
    for n in (range(len(edited)) if order is None else order):
        edit = edited[n]
        if out_of_time():
            break
        ok = True
        for i, want in enumerate(expected):
            try:
                got = run(n, i)
            except stop:
                # the search itself ends (its time, or the worker, is gone): the fixes found so far were each
                # checked on every call, and stand (the call the deadline cut is whichever one was running then)
                return fixes
            except Exception:  # noqa: BLE001 - a copy that crashes is no fix
                ok = False
            if not ok or not same_answer(got, want):
                if ok and i == 0 and survivors is not None:
                    survivors.append((distance(got, want), n))
                ok = False
                break
        if ok:
            fixes.append(edit)
            if len(fixes) > cap:
                break
    return fixes


def distance(got: Any, expected: Any) -> float:
    """How far an answer is from the expected one, for ordering (0: the same; inf: not comparable): numbers
    by the log of their ratio, tensors of one shape by their relative difference, tuples by their first."""
    try:
        if isinstance(expected, (tuple, list)) and expected:
            return distance(got[0], expected[0]) if isinstance(got, (tuple, list)) and got else math.inf
        if isinstance(expected, torch.Tensor):
            if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
                return math.inf
            a, b = got.detach().cpu().double(), expected.detach().cpu().double()
            far = float((a - b).norm() / (b.norm() + 1e-12))
            return far if math.isfinite(far) else math.inf
        if isinstance(expected, (int, float)) and isinstance(got, (int, float)) and not isinstance(got, bool):
            if got == expected:
                return 0.0
            if got * expected <= 0 or not (math.isfinite(got) and math.isfinite(expected)):
                return math.inf
            return abs(math.log(abs(got) / abs(expected)))
    except (RuntimeError, TypeError, ValueError, OverflowError, ZeroDivisionError):
        return math.inf
    return 0.0 if same_answer(got, expected) else math.inf


def told(found: Found, what: str, are: bool = False) -> str:
    """The message: where, and what one change makes the function right."""
    first = found.fixes[0]

    def change(e: Edit) -> str:
        where = "" if (e.line, e.helper) == (first.line, first.helper) else f" on line {e.line}" + (
            f" of `{e.helper}`" if e.helper else "")
        if e.moved:
            return f"`{e.before}`{where} moved {e.moved}"
        if not e.after:
            return f"leave out line {e.line}{f' of `{e.helper}`' if e.helper else ''} (`{e.before}`)"
        also = f" (and the same in its {e.places - 1} other place{'s' if e.places > 2 else ''})" if e.places > 1 else ""
        return f"`{e.after}` in place of `{e.before}`{where}{also}"
    if found.kept:
        return f"{what} {found.kept}"
    if found.dodged:
        calls = "the input the tests gave it" if found.calls == 1 else f"all {found.calls} inputs the tests gave it"
        return f"{what} is right on every call the tests made when {found.dodged} (checked on {calls})."
    changes = " -- or -- ".join(change(e) for e in found.fixes)
    if found.more:
        changes += f" (and {found.more} other change{'s' if found.more > 1 else ''} on the same lines)"
    calls = "the input the tests gave it" if found.calls == 1 else f"all {found.calls} inputs the tests gave it"
    if found.tests:
        calls = f"the test{'s' if found.tests > 1 else ''} it failed, rerun with the change: {found.tests} pass"
    place = (f"one change to the helper `{first.helper}` it calls, on line {first.line} of that function's cell"
             if first.helper else f"one change on line {first.line} of its cell")
    return f"{what} {'are' if are else 'is'} right with {place} (`{found.line_text}`): {changes} (checked on {calls})."


def safe_line(cell: str, line: int) -> str:
    lines = source_lines(cell)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return _cut(re.sub(r"\s+", " ", text.strip()))


KEY = ONE_EDIT_FIX_KEY
STATE_KEY = STATE_KEPT_KEY   # every fix found only steers state kept between calls (_state_steered)


class SearchClock:
    """The search's budget, in CPU seconds spent by the grader's thread and the student's worker together.
    A wall-clock budget reached fewer edits when the machine was busy (a batch's other graders, a test run
    beside it): a one-edit fix found on a quiet machine was missed under load, so the same submission was told
    different things. CPU time barely moves with load. The wall clock still bounds the search (WALL_FACTOR
    budgets: a copy that sleeps, or waits, spends no CPU), and a call still running then is cut short.
    A worker replaced during the search (one a cut call cost) counts all of its CPU: its start is the search's."""

    def __init__(self, cpu_s: float, namespace: Any) -> None:
        from autograder.sandbox.isolation import cpu_seconds_of
        self.cpu_s = cpu_s
        self.wall_deadline = time.monotonic() + cpu_s * WALL_FACTOR
        self._namespace = namespace
        self._cpu_of = cpu_seconds_of
        self._spent = 0.0
        self._thread = time.thread_time()
        self._worker = self._worker_cpu()

    def _worker_cpu(self) -> tuple[int | None, float]:
        pid = getattr(getattr(self._namespace, "session", None), "pid", None)
        if not isinstance(pid, int) or pid <= 0:
            return None, 0.0
        try:
            return pid, self._cpu_of(pid)
        except OSError:      # gone: what it spent was counted when last read
            return pid, self._worker[1] if getattr(self, "_worker", (None, 0.0))[0] == pid else 0.0

    def spent(self) -> float:
        """CPU seconds the search has spent so far."""
        thread = time.thread_time()
        pid, cpu = self._worker_cpu()
        self._spent += thread - self._thread + (cpu - self._worker[1] if pid == self._worker[0] else cpu)
        self._thread, self._worker = thread, (pid, cpu)
        return self._spent

    def over(self) -> bool:
        return time.monotonic() >= self.wall_deadline or self.spent() >= self.cpu_s

    def wall_left(self) -> float:
        """Seconds one step may still take by the wall clock (at least 0.1: a define that is due runs)."""
        return max(0.1, self.wall_deadline - time.monotonic())


def name_by_one_edit(reports: Sequence[Any], namespace: Any, references: Mapping[str, Any],
                     cells: Sequence[str], rerun: Rerun | None = None,
                     takes: Mapping[tuple[str, str], Sequence[str]] | None = None,
                     cell_errors: Mapping[int, str] | None = None) -> list[Any]:
    """The reports, each failed one that names nothing now named KEY where the first call its test made (the
    function the test is about: later calls may be a diagnosis's probes, on inputs beyond what the notebook
    asks) answered wrong, and one edit of that function makes right each such first call and keeps right
    every call it answered right (repair_submission_s of the namespace's policy for the whole search).
    A test another test's name leaves unexplained is searched all the same (the named tests keep their
    names). Where no edit gives the reference's answers (a random
    function draws its own numbers), `rerun(test, {name: copy})` says whether a test passes with the copy in
    the function's place: an edit whose copy passes the failed tests (and the passed ones) of that function
    is a fix, checked by the tests themselves (at most MAX_RERUN_EDITS edits tried that way).
    Then a failure still unnamed whose test takes a value (`takes`: each test's student names) with a
    reference value of that name is searched in the cell that assigns it (_name_by_value_edits).
    `references`: the notebook's name -> the reference's function or value of that name. Anything else (a
    namespace that records nothing, no reference, no readable def) leaves the reports as they are.
    `cell_errors` (cell index -> the worker's error, given where the notebook ran): a function is searched only where
    its last def is what the tests called (left_bound); without it, as before (the unit tests' namespaces)."""
    from autograder.sandbox.session import CallCutShort, optional_calls
    record = getattr(namespace, "recorded", None)
    budget = float(getattr(getattr(namespace, "policy", None), "repair_submission_s", 0) or 0)
    unnamed = [r for r in reports if r.status == "failed" and _open(r)]
    positional = rerun is not None and takes is not None and bool(cells) and any(
        r.status == "failed" and _picked_by_position(cells, takes.get((r.question, r.name), ())) for r in reports)
    if record is None or budget <= 0 or not (unnamed or positional) or not references or not cells:
        return list(reports)
    clock = SearchClock(budget, namespace)
    calls: list[Any] = list(record.calls)
    first_of: dict[tuple[str, str], Any] = {}
    for call in calls:
        first_of.setdefault(call.test, call)

    replayed: set[tuple[tuple[str, str], tuple[str, ...]]] = set()

    def blamed(reports: Sequence[Any]) -> list[Any]:
        """helper_blame.blame_helpers: failures whose only cause is a helper named wrong by its own tests."""
        if rerun is None or not takes:
            return list(reports)
        return blame_helpers(reports, namespace, references, cells, rerun, takes, clock,
                             {k: c.name for k, c in first_of.items()}, same_answer, optional_calls, CallCutShort,
                             lambda r: "" if _open(r) else "named", replayed)
    # first with the catalogue's names (cheaper and surer than a search), again at the end with the search's
    reports = blamed(reports)
    unnamed = [r for r in reports if r.status == "failed" and _open(r)]
    failed_tests = {(r.question, r.name) for r in unnamed}
    expected: dict[int, Any] = {}                        # id of a recorded call -> the reference's answer
    culprit: dict[tuple[str, str], str] = {}             # failed test -> the function its first call got wrong
    wrong: dict[str, list[Any]] = {}                     # function -> those first calls
    right: dict[str, list[Any]] = {}                     # function -> the calls it answered right
    failed_named = {(r.question, r.name) for r in reports if r.status == "failed" and r.misconception and not _open(r)}

    def answered_right(call: Any) -> bool | None:
        """Whether the student's answer to `call` is the reference's (None: no reference answer to compare,
        or no time left); the reference runs once per call, only for calls of a function that may be searched."""
        reference = references.get(call.name)
        if not callable(reference) or clock.over():
            return None
        if id(call) not in expected:
            try:
                expected[id(call)] = reference(*_copies(call.args), **_copies(call.kwargs))
            except Exception:  # noqa: BLE001 - an input the reference refuses checks nothing
                return None
        return not isinstance(call.answer, BaseException) and same_answer(call.answer, expected[id(call)])
    for key, call in first_of.items():
        # searched even where another failed test names a mistake of the same function: that name explains its
        # own test (a float16 overflow, a crash's words), and a test it does not explain is otherwise told only
        # "does not match" (blind32's exp(x) - m, named no_max_subtraction on float16 and nothing on float64)
        if key in failed_tests and answered_right(call) is False:
            culprit[key] = call.name
            wrong.setdefault(call.name, []).append(call)
    for key, call in first_of.items():
        # a named test's wrong call of a searched function binds the fix too: a change that mends only the
        # unnamed tests may offset the mistake on their inputs alone (blind21's W_K as d_model x d_v, where
        # with_output=True's count comes out right with W_O as d_model x d_k)
        if key in failed_named and call.name in wrong and answered_right(call) is False:
            wrong[call.name].append(call)
    probed: dict[str, list[Any]] = {}                    # function -> a named test's later calls it got wrong
    for call in calls:      # the other calls of each function that may be searched: a fix must keep them right
        if call.name in wrong and answered_right(call):
            right.setdefault(call.name, []).append(call)
        elif (call.name in wrong and (call.test in failed_named or call.test in failed_tests)
              and first_of.get(call.test) is not call
              and id(call) in expected and len(probed.get(call.name, ())) < MAX_STATE_OTHERS):
            # a probe of a named test (its second call, on ordinary inputs) that a stale cache answered: the state,
            # where one explains the function, explains that test's name too (_stale_state's `others`)
            probed.setdefault(call.name, []).append(call)

    def holds_for(helper: str, copy_name: str) -> bool:
        """Whether a helper's edited copy gives the reference's answer on the helper's own recorded calls (those of
        its own tests; at most HELPER_CALLS, one per shape first): a change of the helper checked only through its
        caller may hold there by coincidence (a softmax shifted by any per-row number is right wherever nothing
        overflows: blind34's median shift was "mended" by subtracting the median's indices)."""
        own = _one_per_shape([c for c in calls if c.name == helper], HELPER_CALLS)
        if not own or not callable(references.get(helper)):
            return True                          # nothing of its own to check against: the caller's calls decide
        for c in own:
            if answered_right(c) is None or clock.over():
                return False
            try:
                got = namespace.call_copy(copy_name, _copies(c.args), _copies(c.kwargs))
            except CallCutShort:
                raise
            except Exception:  # noqa: BLE001 - a copy that crashes on the helper's own input is no fix
                return False
            if not same_answer(got, expected[id(c)]):
                return False
        return True
    found: dict[str, Found | None] = {}
    passed_tests = {(r.question, r.name) for r in reports if r.status == "passed"}
    out = []
    for r in reports:
        name = culprit.get((r.question, r.name))
        if name is not None and r.status == "failed" and _open(r):
            if name not in found:
                own = [k for k, c in first_of.items() if c.name == name]
                failed = [k for k in own if culprit.get(k) == name]
                passed = [k for k in own if k not in failed_tests and k not in failed_named]
                graded = cell_errors is None or left_bound(cells, name, cell_errors)
                checked = {id(c) for c in right.get(name, [])}
                # the calls its passing tests made that the reference's answer does not check (a table the test
                # reads at its own tolerance): each fix must still give the answer that passed
                as_passed = _one_per_shape([c for c in calls if c.name == name and c.test in passed_tests
                                            and id(c) not in checked and not isinstance(c.answer, BaseException)],
                                           PASSED_CALLS)
                found[name] = _search_function(name, wrong[name], right.get(name, []), expected, namespace, cells,
                                               clock, optional_calls, CallCutShort,
                                               (rerun, failed, passed) if rerun is not None else None,
                                               references.get(name), holds_for, cell_errors,
                                               as_passed, probed.get(name, ())) if graded else None
            fix = found[name]
            if fix is not None and (not r.misconception or all(e.local_swap for e in fix.fixes)):
                r = r.model_copy(update={"misconception": STATE_KEY if fix.kept else KEY,
                                         "message": (told(fix, f"`{name}`") + "\n" + r.message)[:1400]})
        elif (r.status == "failed" and r.misconception and r.misconception not in (KEY, STATE_KEY)
              and not _about_state(r.misconception) and (call := first_of.get((r.question, r.name))) is not None):
            # a named test whose own wrong answer the state explains (the steering copy made it right, a fresh one
            # did not): its key, and its words, were read off the symptom (blind63's buffer sliced to (6, 6) told "a
            # square mask from one length"), so neither is kept; a key that itself speaks of state is (it says more).
            # Only the state of its own first call's function, with that call right or made right too (_told_state)
            r = _told_state(r, {call.name: found.get(call.name)}, calls, first_of, answered_right)
        out.append(r)
    out = [_told_state(r, found, calls, first_of, answered_right)
           if r.status == "failed" and _open(r) and r.misconception not in (KEY, STATE_KEY) else r for r in out]
    if rerun is not None and takes:
        out = _passes_with_the_fix(out, found, rerun, takes, clock)
    if rerun is not None and takes:
        out = _name_by_value_edits(out, namespace, references, cells, rerun, takes, clock, optional_calls,
                                   CallCutShort)
    tested = {(r.question, r.name): name for r in out if (name := next(
        (n for n in (takes or {}).get((r.question, r.name), ()) if callable(references.get(n))), ""))}
    return _unverified_by_values(blamed(out), {k: c.name for k, c in first_of.items()}, tested)


def _told_state(report: Any, found: Mapping[str, Found | None], calls: Sequence[Any],
                first_of: Mapping[tuple[str, str], Any], answered_right: Callable[[Any], bool | None]) -> Any:
    """The report named STATE_KEY where a later call its test made (a probe on ordinary inputs, after a first call
    that came out right) was made right by a fresh-state copy of a function whose state explains its failures
    (_stale_state): blind63's fused weight cached by shape answered q09's zero projections right and the probe with
    ordinary weights with the zeros, told "uniform weights" by the symptom. The test's first call of that function
    must be right, or made right by the copy too (round 127: a key read off a first call the copy gets as wrong is
    that call's own mistake). Else the report as it is."""
    first = first_of.get((report.question, report.name))
    for name, fix in found.items():
        if fix is None or not fix.kept or (first is not None and first.name == name and id(first) not in fix.checked
                                           and answered_right(first) is not True):
            continue
        if any(id(c) in fix.checked for c in calls if c.test == (report.question, report.name) and c.name == name):
            return report.model_copy(update={"misconception": STATE_KEY,
                                             "message": told(fix, f"`{name}`")[:1400]})
    return report


UNVERIFIED = "could not be verified"     # a timing test that found the values wrong (checks.TIMING_UNVERIFIED, sdpa's)


def _unverified_by_values(reports: Sequence[Any], function_of: Mapping[tuple[str, str], str],
                          taken: Mapping[tuple[str, str], str]) -> list[Any]:
    """The reports, each failed timing test that names nothing because its timed values were wrong (its message
    says they "could not be verified") now named by the one key the other failed tests of the same function agree
    on: the values' mistake is why the timing could not be verified (sdpa's tensordot across the batch: its value
    tests said fixed_axes, its timing test only "crashes on 3-D inputs"). `function_of`: each test -> its first
    recorded call's function; `taken`: each test -> the first function it takes (a timing test's own: its timed
    calls are not recorded, its probes may be of a helper)."""
    keys: dict[str, set[str]] = {}
    for r in reports:
        fn = function_of.get((r.question, r.name))
        if fn and r.status == "failed" and not r.withheld_by and UNVERIFIED not in r.message:
            keys.setdefault(fn, set()).add(r.misconception or "")
    out = []
    for r in reports:
        fn = taken.get((r.question, r.name), "")
        agreed = keys.get(fn, set())
        if (r.status == "failed" and not r.misconception and not r.withheld_by and UNVERIFIED in r.message
                and len(agreed) == 1 and "" not in agreed):
            key = next(iter(agreed))
            r = r.model_copy(update={"misconception": key, "message": (
                f"{r.message} (the same mistake as the failed tests of its values: {key.replace('_', ' ')})")[:1400]})
        out.append(r)
    return out


def _open(report: Any) -> bool:
    """Whether a failed report may be named by a one-edit fix: it names nothing, or only an effect key."""
    return not report.withheld_by and (not report.misconception or report.misconception in EFFECT_KEYS)


def _passes_with_the_fix(reports: Sequence[Any], found: Mapping[str, Found | None], rerun: Rerun,
                         takes: Mapping[tuple[str, str], Sequence[str]], clock: SearchClock) -> list[Any]:
    """The reports, each failed one still naming nothing whose test takes a function with a fix (its first call
    was not one the fix was checked on: a timing check whose first call the reference refuses) now named KEY
    where the test, rerun with the fix's copy in the function's place, passes: the one mistake costs it too
    (sdpa's test_vectorised, which crashes where the value tests crash)."""
    copies = {name: (fix, _copy_name(fix.fixes[0].source)) for name, fix in found.items()
              if fix is not None and not fix.fixes[0].helper}      # the fixes agree on every recorded call
    out = []
    for r in reports:
        key = (r.question, r.name)
        if r.status == "failed" and not r.misconception and not r.withheld_by and not clock.over():
            for name, (fix, copy) in copies.items():
                if copy and name in takes.get(key, ()) and rerun(key, {name: copy}):
                    # a state-steering copy passing it: the same state is why it fails (_state_found)
                    r = r.model_copy(update={"misconception": STATE_KEY if fix.kept else KEY,
                                             "message": (told(fix, f"`{name}`") + "\n" + r.message)[:1400]})
                    break
        out.append(r)
    return out


def _unedited_copy(cell: str, name: str, copy_name: str) -> str:
    """A cell (to follow _guarded's) defining the last `def name` of `cell` as it is, named `copy_name`: what the
    function answers now, run the way its edited copies run ("" where there is no readable def)."""
    found = last_def([cell], name)
    if found is None:
        return ""
    try:
        fn = copy.deepcopy(found[1])
        fn.name = copy_name
        text = ast.unparse(fn)
    except (RecursionError, MemoryError):
        return ""           # no copy: no passing call is asked of the fixes (as before)
    return f"\ntry:\n{textwrap.indent(text, '    ')}\nexcept Exception:\n    pass"


def _kept_right(calls: Sequence[Any], namespace: Any, same: str, clock: SearchClock, cut_short: type[BaseException],
                reference: Callable[..., Any] | None = None,
                retest: Callable[[tuple[str, str], str], bool] | None = None) -> Callable[[str], bool]:
    """Whether a copy (by name) keeps right each call its passing test made (issue 21, blind64): it gives the student's
    own answer, or else the reference's, or else that test, rerun with the copy (`retest(test, copy name)`), still
    passes (a float16 answer within the test's tolerance made float32 by the fix: changed, and right). Only the calls
    the unedited copy `same` answers as the notebook did are asked (a function that draws unseeded, or reads state
    its calls change, answers otherwise every time); none are where `same` is not defined. Out of time, a copy is not
    shown to hold: False."""
    usable: list[Any] | None = None
    wanted: dict[int, Any] = {}

    def answers(copy_name: str, call: Any, judged: bool = True) -> bool:
        try:
            got = namespace.call_copy(copy_name, _copies(call.args), _copies(call.kwargs))
        except cut_short:
            raise
        except Exception:  # noqa: BLE001 - a copy that now raises on a passing test's input breaks it
            got, raised = None, True
        else:
            raised = False
            if same_answer(got, call.answer):
                return True
        if not judged:
            return False
        if not raised and callable(reference):
            if id(call) not in wanted:
                try:
                    wanted[id(call)] = reference(*_copies(call.args), **_copies(call.kwargs))
                except Exception:  # noqa: BLE001 - an input the reference refuses: the test judges
                    wanted[id(call)] = _REFUSED
            if wanted[id(call)] is not _REFUSED and same_answer(got, wanted[id(call)]):
                return True
        return retest is not None and not clock.over() and retest(call.test, copy_name)

    def kept(copy_name: str) -> bool:
        nonlocal usable
        if usable is None:
            usable = [c for c in calls if not clock.over() and answers(same, c, judged=False)]
        return all(not clock.over() and answers(copy_name, c) for c in usable)
    return kept


_REFUSED = object()     # the reference raised on the call


STRESS_FACTORS = (40.0, 1000.0)  # floating tensor arguments scaled by each: an exp left unshifted, or shifted by a stale
                                  # or frozen max, overflows there where the reference's stays finite (_stress_held)
STRESS_CALLS = 2          # recorded calls (the search's, wrong ones first) each fix is stressed on
STRESS_LARGEST = 1e4      # a tensor holding a value past this (an additive mask's finfo.min, -1e9) is not scaled


def _stressed(v: Any, factor: float) -> Any:
    """A copy of the argument `v` with each floating tensor in it times `factor`; integers, bools, generators, and
    floating tensors that are masks or probabilities (every value in [0, 1], or one past STRESS_LARGEST, or not
    finite) left alone: weights scaled x40 are no weights, and an edit right on every row of probabilities (`A > 1` for
    `A < 1`, where only A > 1 breaks it) is a fix of the function as the notebook calls it."""
    if isinstance(v, torch.Tensor):
        if not v.is_floating_point() or v.numel() == 0:
            return v.clone()
        with torch.no_grad():
            values = v.detach()
            if (not bool(torch.isfinite(values).all()) or float(values.abs().max()) > STRESS_LARGEST
                    or bool(((values >= 0) & (values <= 1)).all())):
                return v.clone()    # a mask, or probabilities (attention weights): their scale is not free
            return (v * factor).to(v.dtype)
    if type(v) is dict:
        return {k: _stressed(x, factor) for k, x in v.items()}
    if type(v) in (tuple, list):
        return type(v)(_stressed(x, factor) for x in v)
    return _copies(v)


def _leaves(v: Any) -> list[Any]:
    """The tensors and numbers of an answer, in order (a tuple's, a list's, a dict's values)."""
    if isinstance(v, dict):
        return [x for k in v for x in _leaves(v[k])]
    if isinstance(v, (tuple, list)):
        return [x for e in v for x in _leaves(e)]
    return [v]


def _finite(v: Any) -> bool | None:
    """Whether a leaf of an answer is finite everywhere (None: neither a floating tensor nor a float)."""
    if isinstance(v, torch.Tensor):
        if not (v.is_floating_point() or v.is_complex()):
            return None
        return bool(torch.isfinite(v.detach()).all())
    if isinstance(v, float):
        return math.isfinite(v)
    return None


def _broken_leaves(got: Any, reference: Any, original: Any, judged: frozenset[int] | None = None) -> bool:
    """Whether `got` (a fix's copy on a stressed call) is not finite in a part of the answer (a leaf: the output, or
    the weights of an (output, weights) pair) that both the reference and the student's own function answer finite.
    `judged`: the leaves (by place) that may tell at all (_stress_held: finite in both at every factor); None: all."""
    mine, want, before = _leaves(got), _leaves(reference), _leaves(original)
    if not (len(mine) == len(want) == len(before)):
        return False
    for i, (g, w, o) in enumerate(zip(mine, want, before)):
        if judged is not None and i not in judged:
            continue
        if _finite(w) is not True or _finite(o) is not True or _finite(g) is not False:
            continue
        if isinstance(g, torch.Tensor) and (not isinstance(w, torch.Tensor) or g.shape != w.shape):
            continue
        return True
    return False


def _stress_held(calls: Sequence[Any], namespace: Any, same: str, clock: SearchClock, cut_short: type[BaseException],
                 reference: Callable[..., Any] | None) -> Callable[[str], bool]:
    """Whether a fix's copy (by name) holds beyond the recorded inputs: on each of the calls (at most STRESS_CALLS)
    with its floating tensors scaled up (_stressed, by each STRESS_FACTORS), the copy is finite in every part of the
    answer where the reference's answer is finite and so is the unedited function's (`same`). An edit that only
    passes the tests' moderate inputs fails there: one that drops the shift of an exp (`scores` for `scores -
    running_max`), or freezes a running max at its first block's value, is right on every recorded call and
    overflows to inf/NaN where the student's own code, shifting by a max that moves, and the reference did not
    (blind86). A call the reference or the student's function refuses, or answers not finite there, tells nothing: a
    right fix of a slip in code that never shifts (`dim=0` for `dim=-1` before `exp(s) / exp(s).sum(...)`) overflows
    where the student's code does too, and is kept. A part of the answer tells only where both stay finite at EVERY
    factor the call ran at (red-team round 145): code that never shifts, whose slip shrinks its scores (`s = s / 30`
    before an unshifted exp), stays finite x40 and overflows x1000, and its right fix (the line left out) overflows
    x40 already: it was dropped, and the failure left unnamed. Without a reference, or where no call tells anything,
    a copy is not judged: True. Out of time before a copy is shown to hold, it is not (False, as _kept_right): a
    compensating edit is never told for want of the budget to stress it (round 145)."""
    # (stressed args, kwargs, the reference's answer, the student's function's, the leaves that tell)
    cases: list[tuple[tuple[Any, ...], dict[str, Any], Any, Any, frozenset[int]]] | None = None
    complete = True         # made() stressed every call it meant to (not cut by the clock)

    def made() -> list[tuple[tuple[Any, ...], dict[str, Any], Any, Any, frozenset[int]]]:
        nonlocal complete
        out: list[tuple[tuple[Any, ...], dict[str, Any], Any, Any, frozenset[int]]] = []
        if not callable(reference) or not same:
            return out
        for call in calls[:STRESS_CALLS]:
            if any(isinstance(v, GeneratorAt) for v in (*call.args, *call.kwargs.values())):
                continue            # a function that draws: its copies are judged by the tests
            ran: list[tuple[tuple[Any, ...], dict[str, Any], Any, Any]] = []
            for factor in STRESS_FACTORS:
                if clock.over():
                    complete = False
                    return out
                try:
                    args = tuple(_stressed(v, factor) for v in call.args)
                    kwargs = {k: _stressed(v, factor) for k, v in call.kwargs.items()}
                    want = reference(*_copies(args), **_copies(kwargs))
                    before = namespace.call_copy(same, _copies(args), _copies(kwargs))
                except cut_short:
                    raise
                except Exception:  # noqa: BLE001 - an input either refuses tells nothing
                    continue
                ran.append((args, kwargs, want, before))
            # the leaves finite in the reference's answer and the student's own at every factor the call ran at
            judged: set[int] | None = None
            for _args, _kwargs, want, before in ran:
                finite = {i for i, (w, o) in enumerate(zip(_leaves(want), _leaves(before)))
                          if _finite(w) is True and _finite(o) is True}
                judged = finite if judged is None else judged & finite
            if judged:
                out.extend((args, kwargs, want, before, frozenset(judged)) for args, kwargs, want, before in ran)
        return out

    def held(copy_name: str) -> bool:
        nonlocal cases
        if cases is None:
            cases = made()
        if not complete:
            return False        # the stressed calls not all made: no copy is shown to hold
        for args, kwargs, want, before, judged in cases:
            if clock.over():
                return False
            try:
                got = namespace.call_copy(copy_name, _copies(args), _copies(kwargs))
            except cut_short:
                raise
            except Exception:  # noqa: BLE001 - a copy that raises where the student's function answered breaks it
                return False
            if _broken_leaves(got, want, before, judged):
                return False
        return True
    return held


def _copy_name(source: str) -> str:
    """The name a copy's source defines (its first def), "" where none."""
    found = re.match(r"\s*def\s+([A-Za-z_][A-Za-z_0-9]*)\s*\(", source)
    return found.group(1) if found else ""


def _name_by_value_edits(reports: Sequence[Any], namespace: Any, references: Mapping[str, Any], cells: Sequence[str],
                         rerun: Rerun, takes: Mapping[tuple[str, str], Sequence[str]], clock: SearchClock,
                         optional_calls: Any, cut_short: type[BaseException]) -> list[Any]:
    """The reports, each failed one that names nothing and takes values (a trace cell's answers, `attn_entries`)
    with references of their names now named KEY where one edit of the cell that assigns them gives the
    reference's values and makes each failed test that takes them pass (the tests are the judge; the
    reference only picks the edits to try them with). The values a test takes from one cell are edited
    together: one slip above them in that cell makes them all wrong."""
    from autograder.grading.source_checks import cells_assigning_globally
    unnamed = [(r.question, r.name) for r in reports if r.status == "failed" and not r.withheld_by
               and (not r.misconception or _picked_by_position(cells, takes.get((r.question, r.name), ())))]
    named = [(r.question, r.name) for r in reports if r.status == "failed" and r.misconception
             and r.misconception != KEY and not r.withheld_by and (r.question, r.name) not in unnamed]
    passed = [(r.question, r.name) for r in reports if r.status == "passed"]

    def one_cell(key: tuple[str, str]) -> tuple[int, tuple[str, ...]] | None:
        """(the cell, the names) where every value `key`'s test takes with a reference is assigned in one cell."""
        by_cell: dict[int, list[str]] = {}
        for name in takes.get(key, ()):
            made = cells_assigning_globally(cells, name) if name in references and not callable(references[name]) else []
            if made:
                by_cell.setdefault(made[-1], []).append(name)
        return next((cell, tuple(names)) for cell, names in by_cell.items()) if len(by_cell) == 1 else None
    group_of: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = {}
    tests_of: dict[tuple[int, tuple[str, ...]], list[tuple[str, str]]] = {}
    for key in unnamed:
        group = one_cell(key)
        if group is not None:           # a test about values of one cell: that cell is the one to search
            group_of[key] = group
            tests_of.setdefault(group, []).append(key)
    found: dict[tuple[int, tuple[str, ...]], Found | None] = {}
    sibling_names: dict[tuple[str, str], tuple[str, ...]] = {}
    for group, keys in tests_of.items():
        if clock.over():
            break
        # failed tests about values of the same cell that the catalogue names: where the one edit that mends the
        # unnamed ones makes them pass too, that edit is the one mistake, and their names were coincidences of the
        # wrong numbers (helper arguments swapped: T d_k^2 looks like a miscount of its own)
        siblings = {k: g for k in named if (g := one_cell(k)) is not None and g[0] == group[0]}
        sibling_names.update({k: g[1] for k, g in siblings.items()})
        # round57 (blind57 q8_length_doubled_before_score_madds_is_counted_from_it): the tests of the same cell's
        # other values that passed must still pass with the fix (`T *= 2` left out mends score_madds and breaks
        # cost_ratio: no fix); at most KEPT_TESTS of them, each one rerun per candidate fix
        kept = [k for k in passed if (g := one_cell(k)) is not None and g[0] == group[0]][:KEPT_TESTS]
        extra = tuple(dict.fromkeys(n for g in [*siblings.values(), *map(one_cell, kept)] if g is not None
                                    for n in g[1] if n not in group[1]))
        names = group[1] + extra
        found[group] = _search_values(names, keys, [references[n] for n in names], namespace, cells, rerun,
                                      clock, optional_calls, cut_short, judged=len(group[1]), also=list(siblings),
                                      keep=kept)
    explained = {k: fix for fix in found.values() if fix is not None for k in fix.explains}
    out = []
    for r in reports:
        key = (r.question, r.name)
        group = group_of.get(key, (-1, ()))
        fix = found.get(group)
        if fix is not None and r.misconception and r.misconception not in (KEY, *EFFECT_KEYS):
            fix = _one_position_off(fix)     # a choice's reason is replaced only by an index counted from 1
        if fix is not None:
            what = " and ".join(f"`{n}`" for n in group[1])
            r = r.model_copy(update={"misconception": KEY,
                                     "message": (told(fix, what, are=len(group[1]) > 1) + "\n" + r.message)[:1400]})
        elif key in explained and r.status == "failed":
            # the catalogue's reading of these numbers was a coincidence of the one slip: it is not said
            names = sibling_names[key]
            what = " and ".join(f"`{n}`" for n in names)
            r = r.model_copy(update={"misconception": KEY, "message": told(explained[key], what,
                                                                           are=len(names) > 1)[:1400]})
        out.append(r)
    return out


def _one_position_off(found: Found) -> Found | None:
    """`found` with only its fixes that move an index by one ("ABCD"[3] -> [2]); None where none does."""
    def off_by_one(e: Edit) -> bool:
        try:
            before, after = int(e.before), int(e.after)
        except ValueError:
            return False
        return min(before, after) >= 0 and abs(after - before) == 1     # [-1] for [0] is the other end, not a neighbour
    kept = tuple(e for e in found.fixes if off_by_one(e))
    return dataclasses.replace(found, fixes=kept) if kept else None


AXIS_WORDS = {"dim", "axis", "dims", "dim0", "dim1", "axes", "start_dim", "end_dim"}
AXIS_CALLS = {"sum", "mean", "softmax", "log_softmax", "transpose", "unsqueeze", "squeeze", "amax", "amin", "max",
              "min", "var", "std", "cat", "stack", "flatten", "cumsum", "logsumexp", "norm", "prod", "any", "all",
              "argmax", "argmin", "swapaxes", "movedim", "size", "split", "chunk", "narrow", "select", "flip"}


def _is_axis(node: ast.AST, parent: ast.AST | None) -> bool:
    """Whether a number is an axis: a `dim=` keyword's value, or an argument of a call that takes axes after the
    tensor (x.sum(-2), torch.transpose(x, 0, 1); never the tensor itself)."""
    if isinstance(parent, ast.keyword):
        return parent.arg in AXIS_WORDS
    if isinstance(parent, ast.Call) and node in parent.args and _called(parent) in AXIS_CALLS:
        through_module = isinstance(parent.func, ast.Name) or _is_module(getattr(parent.func, "value", None))
        return not (through_module and parent.args[0] is node)
    return False


def _indexes_a_string(node: ast.AST) -> bool:
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _picked_by_position(cells: Sequence[str], names: Sequence[str]) -> bool:
    """Whether a value a test takes is one entry of a string written out (q5_answer = "ABCD"[3]): the letter was
    picked by its position, and what that letter would mean chosen outright (a wrong choice's reason) may be a
    coincidence of an index counted from 1; the value search then tries the index's neighbours and the test
    says which is right."""
    from autograder.grading.source_checks import assigned_from_string_index
    return any(assigned_from_string_index(cells, name) for name in names)


def close_value(got: Any, expected: Any) -> bool:
    """Whether `got` is near enough the reference's value to be worth a test's rerun: numbers within 0.1%
    (a student's float32 variance is not the reference's float64 one), tensors likewise, else same_answer."""
    if isinstance(expected, (tuple, list)):
        return (isinstance(got, (tuple, list)) and len(got) == len(expected)
                and all(close_value(g, e) for g, e in zip(got, expected)))
    if isinstance(expected, bool) or isinstance(got, bool) or not isinstance(expected, (int, float, torch.Tensor)):
        return same_answer(got, expected)
    if isinstance(expected, torch.Tensor):
        try:
            return (isinstance(got, torch.Tensor) and got.shape == expected.shape and bool(torch.allclose(
                got.detach().cpu().double(), expected.detach().cpu().double(), rtol=1e-3, atol=1e-5, equal_nan=True)))
        except (RuntimeError, TypeError):
            return False
    if isinstance(got, int) and isinstance(expected, int):     # exact: an int past float's range (n << 64)
        return abs(got - expected) * 1000 <= abs(expected)
    try:
        return isinstance(got, (int, float)) and math.isclose(got, expected, rel_tol=1e-3, abs_tol=1e-9)
    except OverflowError:        # an int too large for a float is no near answer
        return False


def _guarded(edited: Sequence[Edit]) -> str:
    """One cell defining every copy, each in its own try: a copy whose def raises (a default that fails) is
    left out, not the rest."""
    return "\n".join(f"try:\n{textwrap.indent(e.source, '    ')}\nexcept Exception:\n    pass" for e in edited)


def _search_values(names: Sequence[str], keys: Sequence[tuple[str, str]], expected: Sequence[Any], namespace: Any,
                   cells: Sequence[str], rerun: Rerun, clock: SearchClock, optional_calls: Any,
                   cut_short: type[BaseException], judged: int | None = None,
                   also: Sequence[tuple[str, str]] = (), keep: Sequence[tuple[str, str]] = ()) -> Found | None:
    """The one-edit fixes of the cell that assigns `names`: an edited copy whose values are close to the
    reference's (the first `judged` names: the values `keys` take), and with which every test in `keys` passes
    (rerun with the copy's values in their place). Found.explains: the tests of `also` (failed and named
    otherwise, about the other names) that every fix makes pass too. `keep`: tests of the cell's other values that
    passed: a fix must leave each passing (an edit that mends one value by breaking another is no fix)."""
    judged = len(names) if judged is None else judged
    prefix = f"_ag_fix_{secrets.token_hex(4)}_"
    made = value_edits(cells, names, prefix)
    if made is None or not made[1]:
        return None
    cell, edited = made
    source = _guarded(edited)
    fixes: list[Edit] = []
    mends: list[set[tuple[str, str]]] = []      # for each fix: the tests of `also` it makes pass
    try:
        with optional_calls(clock.wall_deadline):
            try:
                if all(close_value(namespace.resolve(n, "cpu"), e) for n, e in zip(names[:judged], expected)):
                    return None       # the values are the reference's: the tests failed for something else
            except cut_short:
                raise
            except Exception:  # noqa: BLE001 - no value (a crash of its cell): what the edits may mend
                pass
            if not namespace.define(source, clock.wall_left()):
                return None
            near: list[int] = []
            for n in range(len(edited)):
                if clock.over():
                    break
                try:
                    got = namespace.call_copy(f"{prefix}{n}", (), {})
                except cut_short:
                    raise
                except Exception:  # noqa: BLE001 - a copy that crashes is no fix
                    continue
                if isinstance(got, (tuple, list)) and len(got) == len(names) and all(
                        close_value(g, e) for g, e in zip(got[:judged], expected[:judged])):
                    near.append(n)
                    if len(near) > MAX_FIXES:
                        return None         # the values do not tell the edits apart
            for n in near:
                if clock.over():
                    break
                values = {name: f"{prefix}{n}_{i}" for i, name in enumerate(names)}
                assign = "\n".join(f"{v} = _got[{i}]" for i, v in enumerate(values.values()))
                if (namespace.define(f"_got = {prefix}{n}()\n{assign}\ndel _got", clock.wall_left())
                        and all(rerun(key, values) for key in keys)
                        and all(not clock.over() and rerun(key, values) for key in keep)):
                    fixes.append(edited[n])
                    mends.append({k for k in also if not clock.over() and rerun(k, values)})
    except cut_short:
        return None
    if fixes:   # the fixes that also mend the most of `also`: one slip explains more than a coincidence does
        most = max(len(m) for m in mends)
        fixes, mends = [f for f, m in zip(fixes, mends) if len(m) == most], [m for m in mends if len(m) == most]
        kept = [k for k, f in enumerate(fixes) if not _collapses(f, cells[cell])]
        if kept and len(kept) < len(fixes):
            fixes, mends = [fixes[k] for k in kept], [mends[k] for k in kept]
    small = all(isinstance(e, bool) or (isinstance(e, int) and abs(e) <= 64) for e in expected[:judged])
    found = len([f for f in fixes if not _names_only(f)])   # what tells a fix apart: any edit but a variable swap
    if small:
        # one variable put for another, or a call's arguments reordered, lands on a small count by chance (the
        # lesson's rank 2 from int(trace(Q Q^T) / 2), or from a QR of S^T whose pivots fall exactly to zero:
        # blind44): such a fix of a small count is not evidence of the slip
        # and so does an operator swapped: `2048 * 2 // 1024` is 4, as the ratio (2T)^2 / T^2 is, where the
        # slip was the unsquared denominator of `2048 ** 2 // 1024` (blind47)
        # and so does a factor kept alone: `_Q` in place of `_Q * _K` gives the lesson's rank 2 as Q's own rank,
        # where S = Q @ K^T was meant (blind51; blind38, 39 and 49's q11 readings alike)
        fixes = [f for f in fixes if not _names_only(f) and not _operators_only(f) and not _operand_kept(f)]
    if not fixes or (small and found > 1):
        # a small count (a rank of 2) is what many edits give: only a single fix tells one apart, a swapped operator
        # counted (never said itself, it still leaves no evidence for the other: blind20's three "fixes" of a rank)
        return None
    return Found(name=", ".join(names[:judged]), cell=cell, fixes=tuple(fixes), calls=0,
                 line_text=safe_line(cells[cell], fixes[0].line), tests=len(keys),
                 explains=tuple(k for k in also if all(k in m for m in mends)))


# a variable as a line names it: not an attribute (`.R`), not a called function (`scaled_scores(`), not a constant
_VARIABLE = re.compile(r"(?<![.\w])(?!(?:True|False|None)\b)[A-Za-z_]\w*\b(?!\s*\()")


def _names_only(fix: Edit) -> bool:
    """Whether a fix changes only which variables a line names, or their order (`_Q` for `_K`, `f(_K, _Q)` for
    `f(_Q, _K)`): what is left of its code once every variable is taken out is the same before and after."""
    return (not fix.moved and fix.after != "" and bool(_VARIABLE.search(fix.before))
            and _VARIABLE.sub("", fix.before) == _VARIABLE.sub("", fix.after))


def _operand_kept(fix: Edit) -> bool:
    """Whether a fix puts for a product one of its factors alone, dropping a variable factor (`_Q` for `_Q * _K`): a
    small count such as a rank is often the same for one factor as for the product meant. A constant factor dropped
    (`x` for `2 * x`) or a term dropped from a sum (`S` for `S + M`: blind17's rank of the masked scores) is a slip's
    fix, not this."""
    if fix.moved or not fix.after or fix.before == fix.after:
        return False
    before, after = _expression(fix.before), _expression(fix.after)
    if not (isinstance(before, ast.BinOp) and isinstance(before.op, (ast.Mult, ast.MatMult)) and after is not None):
        return False
    kept = ast.dump(after)
    for mine, other in ((before.left, before.right), (before.right, before.left)):
        if ast.dump(mine) == kept and any(isinstance(n, ast.Name) for n in ast.walk(other)):
            return True
    return False


_OPERATOR = re.compile(r"\*\*|//|<<|>>|[-+*/%@&|^~<>]")


def _operators_only(fix: Edit) -> bool:
    """Whether a fix changes only an operator of its line (`*` for `**`, `-` for `+`): the rest of its code is the
    same before and after."""
    return (not fix.moved and fix.after != "" and fix.before != fix.after
            and _OPERATOR.sub(" ", fix.before).split() == _OPERATOR.sub(" ", fix.after).split())


def _interchangeable(fixes: Sequence[Edit], cell: str) -> bool:
    """Whether the fixes are two or more variables put, each alone, for the same variable of one line, read there
    for its values (`Q` or `scores` for `s` in `m_new = torch.maximum(m, s.amax(-1))`): where several unrelated
    values all mend it, what that place reads does not matter to the tests' answers (a running maximum frozen at
    its first value hides a missing rescale: blind47), so none of them is the slip. A variable read only for a size
    (`range(q.shape[0])` for `K.shape[0]` or `V.shape[0]`: K and V have one length) is not: any input of that size
    mends it."""
    if not (len(fixes) > 1 and all(_names_only(f) and f.before.isidentifier() and f.after.isidentifier()
                                   for f in fixes)
            and len({(f.line, f.before, f.helper) for f in fixes}) == 1) or fixes[0].helper:
        return False
    lines = source_lines(cell)
    line = lines[fixes[0].line - 1] if 0 < fixes[0].line <= len(lines) else ""
    name = re.escape(fixes[0].before)
    reads = re.findall(rf"(len\(\s*)?(?<![.\w]){name}\b(\s*\.\s*(?:shape|size|numel|dim|ndim)\b)?", line)
    return bool(reads) and not all(before or after for before, after in reads)


def _collapses(fix: Edit, cell: str) -> bool:
    """Whether a fix puts for a variable another that its line already reads (`v_shape[:-1] + v_shape[-1:]` for
    `qk_shape[:-1] + v_shape[-1:]`): the line then reads one variable where the student combined two, right only
    where their values coincide (T_q = T_k); another fix, where there is one, is the slip (blind35's shape typed
    as a list)."""
    if not (fix.before.isidentifier() and fix.after.isidentifier()) or fix.moved:
        return False
    lines = source_lines(cell)
    line = lines[fix.line - 1] if 0 < fix.line <= len(lines) else ""
    return re.search(rf"\b{re.escape(fix.after)}\b", line) is not None


def _expression(text: str) -> ast.expr | None:
    """The expression an edit's before or after text is (cut to 80 characters, so perhaps none), parsed (pyparse)."""
    try:
        body = parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return body[0].value if len(body) == 1 and isinstance(body[0], ast.Expr) else None


def _one_place(fixes: Sequence[Edit], cell: str) -> tuple[list[Edit], int]:
    """Fixes too many to tell apart may still agree on WHERE: all in one function (the searched one or one helper),
    on one line or two adjacent ones (a condition
    and the line it guards: `if dim < 0: dim = x.dim() - dim`, mended by `+`, by leaving the line out, or by a
    condition never true). Then MAX_FIXES of them are said, an arithmetic operator swapped first (the likeliest
    slip), then a comparison, then a name the line already reads (`zeros_like(weights)` in `weights = where(has, weights, zeros_like(V))`),
    then another name, then the rest, and how many more there are; else none ([], 0)."""
    source = source_lines(cell)
    lines = {f.line for f in fixes}
    if len({(f.helper, f.cell) for f in fixes}) > 1 or max(lines) - min(lines) > 1:
        return [], 0            # in two functions, or spread out

    def rank(e: Edit) -> int:
        a, b = _expression(e.before), _expression(e.after)
        if isinstance(a, ast.BinOp) and isinstance(b, ast.BinOp) and type(a.op) is not type(b.op) and (
                ast.dump(a.left), ast.dump(a.right)) == (ast.dump(b.left), ast.dump(b.right)):
            return 0
        if isinstance(a, ast.Compare) and isinstance(b, ast.Compare) and ast.dump(a.left) == ast.dump(b.left) \
                and [ast.dump(c) for c in a.comparators] == [ast.dump(c) for c in b.comparators]:
            return 1        # a condition turned around: as often a branch switched off as the slip itself
        if isinstance(a, ast.Name) and isinstance(b, ast.Name):
            line = source[e.line - 1] if 0 < e.line <= len(source) else ""
            return 2 if re.search(rf"\b{re.escape(b.id)}\b", line) else 3
        return 4
    ordered = sorted(fixes, key=lambda e: (not e.after, rank(e)))      # a line left out after any change
    return ordered[:MAX_FIXES], len(ordered) - MAX_FIXES


def _term_left_out(fixes: Sequence[Edit], edited: Sequence[Edit], cell: str) -> list[int]:
    """Where the fixes are too many to tell apart and all on one line assigning one name X, each makes X's value
    harmless in its own way (a zero, a condition never true): X itself may be the mistake, a term too many. The
    numbers of the edits that leave X out of a sum or difference it is in (`p_term` for `p_term + q_term`), to
    be tried alone (blind33's binary entropy per entry: the (1 - a) log(1 - a) term added to -a log a)."""
    lines = {f.line for f in fixes}
    if len(lines) != 1 or any(f.helper for f in fixes):
        return []
    line = lines.pop()
    try:
        tree = parse(cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    assigned = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and n.lineno == line == n.end_lineno
                for t in n.targets if isinstance(t, ast.Name)}
    if len(assigned) != 1:
        return []
    term = assigned.pop()
    out = []
    for k, e in enumerate(edited):
        before = _expression(e.before)
        if isinstance(before, ast.BinOp) and isinstance(before.op, (ast.Add, ast.Sub)) and any(
                isinstance(drop, ast.Name) and drop.id == term and ast.unparse(keep) == e.after
                for keep, drop in ((before.left, before.right), (before.right, before.left))):
            out.append(k)
    return out


def _crash_site_first(edited: Sequence[Edit], name: str, cell: str, wrong: Sequence[Any]) -> list[int] | None:
    """The edits' numbers with those on the lines where `name`'s wrong calls raised, and on the lines that assign
    what those lines read, first (`heads += out_h` above the `torch.cat(heads, dim=1)` that raised): a crash
    points at its cause's neighbourhood, and a long function's search may end before its last edit. None where
    no call raised inside `name`."""
    lines = {int(line) for c in wrong if isinstance(c.answer, BaseException)
             for _, line, fn in notebook_frames(str(getattr(c.answer, "traceback", ""))) if fn == name}
    found = last_def([cell], name) if lines else None
    if found is None:
        return None
    fn = found[1]
    read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and getattr(n, "lineno", 0) in lines}
    for node in ast.walk(fn):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in read for tg in targets for t in ast.walk(tg)):
                lines.add(node.lineno)
    near = [n for n, e in enumerate(edited) if not e.helper and e.line in lines]
    return near + [n for n, e in enumerate(edited) if e.helper or e.line not in lines] if near else None


LIGHT_SAMPLES = 1000     # a random function's sample size (an int argument above it) when its copies are ranked


def _lighter(call: Any, reference: Callable[..., Any] | None) -> tuple[tuple[Any, ...], dict[str, Any], Any] | None:
    """(args, kwargs, the reference's answer) of `call` with every int argument above LIGHT_SAMPLES made
    LIGHT_SAMPLES, where the call draws from a generator of its arguments and has such an int (a variance over
    10 000 draws: a few hundred copies each drawing that many would spend the whole search); else None."""
    if reference is None or not any(isinstance(v, GeneratorAt) for v in (*call.args, *call.kwargs.values())):
        return None

    def small(v: Any) -> Any:
        return LIGHT_SAMPLES if isinstance(v, int) and not isinstance(v, bool) and v > LIGHT_SAMPLES else v
    args, kwargs = tuple(small(v) for v in call.args), {k: small(v) for k, v in call.kwargs.items()}
    if (args, kwargs) == (call.args, call.kwargs):
        return None
    try:
        return args, kwargs, reference(*_copies(args), **_copies(kwargs))
    except Exception:  # noqa: BLE001 - an input the reference refuses ranks nothing
        return None


@dataclass(frozen=True)
class GeneratorAt:
    """A generator argument of a recorded call, as its state before the call: each replay gets a new
    generator in that state, so the reference and every edited copy draw what the student's call drew."""
    state: torch.Tensor


def _copies(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return v.clone()
    if isinstance(v, GeneratorAt):
        g = torch.Generator()
        g.set_state(v.state)
        return g
    if isinstance(v, dict):
        return {k: _copies(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return tuple(_copies(x) for x in v)
    return v


def _one_per_shape(calls: Sequence[Any], limit: int) -> list[Any]:
    """At most `limit` of the calls, in order, one per shape of their arguments once two are chosen."""
    chosen: list[Any] = []
    shapes: set[Any] = set()
    for c in calls:
        shape = tuple(tuple(a.shape) if isinstance(a, torch.Tensor) else type(a).__name__ for a in c.args)
        if shape in shapes and len(chosen) >= 2:
            continue
        shapes.add(shape)
        chosen.append(c)
        if len(chosen) >= limit:
            break
    return chosen


def _silences(edit: Edit, fn: ast.FunctionDef | ast.ClassDef | None) -> bool:
    """Whether the edited copy no longer reads a name the function reads (`q.sum(1)` for `q.sum(1) * k.sum(1)`:
    k drawn and never used). A statistical test can pass such a copy by coincidence (q.k's variance d_k is also
    that of q.sum(1)), so a fix judged by rerunning tests may not silence a value."""
    if fn is None or edit.helper:
        return False
    try:
        copy_tree = parse(edit.source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True

    def read(tree: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return bool((read(fn) - read(copy_tree)) & set(_local_names(fn)))


def _search_function(name: str, wrong: Sequence[Any], right: Sequence[Any], expected: dict[int, Any], namespace: Any,
                     cells: Sequence[str], clock: SearchClock, optional_calls: Any, cut_short: type[BaseException],
                     by_tests: tuple[Rerun, list[tuple[str, str]], list[tuple[str, str]]] | None = None,
                     reference: Callable[..., Any] | None = None,
                     holds_for: Callable[[str, str], bool] | None = None,
                     cell_errors: Mapping[int, str] | None = None, as_passed: Sequence[Any] = (),
                     probed: Sequence[Any] = ()) -> Found | None:
    """The one-edit fixes of `name` checked on the calls it got `wrong` and those it got `right` (the wrong
    ones first, at most 6 in all, one per shape where there are more), or None. `as_passed`: calls of `name` its
    passing tests made that no reference answer checks: a fix must keep each right (_kept_right). `probed`: later
    calls of named tests it got wrong, checked only by a fresh-state copy (_stale_state)."""
    chosen = _one_per_shape([*wrong, *right], 6)
    if not wrong:
        return None
    prefix = f"_ag_fix_{secrets.token_hex(4)}_"
    made = _own_edits(cells, name, prefix)
    if made is None or not made[1]:
        return None
    cell, edited = made
    found_def = last_def([cells[cell]], name) if by_tests is not None else None
    made_fn = found_def[1] if found_def is not None else None
    same = f"{prefix}same"
    source = _guarded(edited) + _unedited_copy(cells[cell], name, same)
    if clock.over():
        return None
    own = last_def([cells[cell]], name)
    own_fn = own[1] if own is not None else None
    if _state_out_of_sight(own_fn):
        return None         # its state cannot be started fresh, so no fix of it can be shown to hold from the top
    state = _kept_state(own_fn, cells)
    kept_names = set(state[0])
    state_memo: dict[int, bool | None] = {}

    def run_copy(copy: str, i: int) -> Any:
        return namespace.call_copy(copy, _copies(chosen[i].args), _copies(chosen[i].kwargs))
    kept_right = _kept_right(as_passed, namespace, same, clock, cut_short, reference,
                             (lambda test, copy: bool(by_tests[0](test, {name: copy}))) if by_tests is not None else None)
    number = {id(e): n for n, e in enumerate(edited)}
    # each fix is stressed too (_stress_held): one that only passes the tests' moderate inputs is none
    stress_held = _stress_held(_one_per_shape(list(wrong), STRESS_CALLS), namespace, same, clock, cut_short, reference)

    def as_before(fixes: list[Edit], start: int = 0, among: Sequence[Edit] | None = None) -> list[Edit]:
        """The fixes that keep every passing test's call answered as it was (issue 21, blind64: `range(3)` for a
        table's `range(4)` mended the 3-dims test and broke the 4-dims one that passed)."""
        if len(fixes) > MAX_SPREAD:
            return fixes        # too many to tell apart: nothing is said of them anyway
        at = number if among is None else {id(e): n for n, e in enumerate(among)}
        kept = [f for f in fixes if kept_right(f"{prefix}{start + at[id(f)]}")]
        held = [f for f in kept if stress_held(f"{prefix}{start + at[id(f)]}")]
        # more than MAX_FIXES, some only passing the tests' inputs: the inputs do not tell the edits apart, and the
        # stressed calls do not promote the rest (blind82's `z` for `first`, a max taken over the whole row from the
        # start, was left alone once the edits freezing the max were dropped): nothing is said, as before
        return [] if len(kept) > MAX_FIXES and len(held) < len(kept) else held
    survivors: list[tuple[float, int]] = []
    tests = more = 0
    light = _lighter(chosen[0], reference) if by_tests is not None else None
    try:
        with optional_calls(clock.wall_deadline):
            if not namespace.define(source, clock.wall_left()):
                return None
            answers = [expected[id(c)] for c in chosen]
            if light is not None:       # a large draw of its own: every copy tried on a small one, the tests judge
                args, kwargs, want = light
                exact = search(edited, lambda n, i: namespace.call_copy(f"{prefix}{n}", _copies(args), _copies(kwargs)),
                               [want], lambda: clock.over(), (cut_short,), survivors)
                survivors[:0] = [(-1.0, edited.index(e)) for e in exact]
                fixes = []
            else:
                # state kept between calls first: a copy that starts it afresh at every call, and nothing else
                # changed, answering right says where the mistake is, and no edit is needed to say it
                stale = _stale_state(name, own_fn, cell, cells, chosen, answers, namespace, prefix, clock,
                                     cut_short, kept_right, [(c, expected[id(c)]) for c in (*wrong, *probed)
                                                             if c not in chosen and id(c) in expected])
                if stale is not None:
                    return stale

                def run(n: int, i: int) -> Any:
                    return namespace.call_copy(f"{prefix}{n}", _copies(chosen[i].args), _copies(chosen[i].kwargs))
                fixes = search(edited, run, answers, lambda: clock.over(), (cut_short,), survivors,
                               _crash_site_first(edited, name, cells[cell], wrong), cap=MAX_SPREAD)
                fixes = as_before(fixes)
                if fixes and len(fixes) <= MAX_SPREAD:
                    # a fix must hold from a notebook's first state too, not only from what its calls left behind
                    fixes, steered = _state_steered(fixes, state, namespace, prefix, answers, run_copy, clock,
                                                    cut_short, MAX_CANDIDATES - len(edited), state_memo)
                    if not fixes and steered is not None:
                        return dataclasses.replace(_state_found(name, cell, cells[cell], steered, len(chosen)),
                                                   checked=tuple(id(c) for c in chosen))
                if fixes and len(fixes) <= MAX_SPREAD:
                    fixes, dodged = _dodges(fixes, last_def([cells[cell]], name), namespace, prefix, answers,
                                            run_copy=run_copy, clock=clock, cut_short=cut_short,
                                            left=MAX_CANDIDATES - len(edited) - len(state_memo))
                    if dodged is not None:
                        return Found(name=name, cell=cell, fixes=(dodged[0],), calls=len(chosen),
                                     line_text=safe_line(cells[cell], dodged[0].line), dodged=dodged[1])
                extra = _term_left_out(fixes, edited, cells[cell]) if len(fixes) > MAX_FIXES else []
                if extra:
                    fixes = as_before(search(edited, run, answers, lambda: clock.over(), (cut_short,), order=extra))
                    fixes, _steered = _state_steered(fixes, state, namespace, prefix, answers, run_copy, clock,
                                                     cut_short, MAX_CANDIDATES - len(edited), state_memo)
                elif MAX_FIXES < len(fixes) <= MAX_SPREAD:
                    fixes, more = _one_place(fixes, cells[cell])
            # a helper's edits are made, defined and tried only where the function's own fix nothing
            helpers = helper_edits(cells, name, prefix, len(edited), cell_errors) if not fixes and light is None else []
            if helpers and namespace.define(_guarded(helpers), clock.wall_left()):
                start = len(edited)
                fixes = search(helpers, lambda n, i: namespace.call_copy(f"{prefix}{start + n}", _copies(chosen[i].args),
                                                                         _copies(chosen[i].kwargs)),
                               answers, lambda: clock.over(), (cut_short,), cap=MAX_SPREAD)
                if holds_for is not None and len(fixes) <= MAX_SPREAD:
                    fixes = [f for f in fixes if holds_for(f.helper, _copy_name(f.source))]
                fixes = as_before(fixes, start, helpers)
                # a helper that keeps state between calls: its copy ran on what the notebook's calls left there
                # (`_TRI is not None` right only because an earlier call built _TRI), and no fresh start is made for
                # a helper's copy, so none of its fixes is said
                # each helper's cells parsed once, and not past the clock (a helper not looked at is not said either)
                stateful = {h: clock.over() or keeps_state(cells, h) for h in {f.helper for f in fixes}}
                fixes = [f for f in fixes if not stateful[f.helper]]
                if MAX_FIXES < len(fixes) <= MAX_SPREAD:
                    fixes, more = _one_place(fixes, cells[fixes[0].cell])
            if not fixes and by_tests is not None and by_tests[1]:
                rerun, failed, passed = by_tests
                keys = [*failed[:3], *passed[:2]]
                # the copies whose own draws land nearest the reference's answer first: a variance of 12.1
                # where the reference's draws give 11.8 is likelier right than one of 144 or 0
                for _far, n in sorted(survivors)[:MAX_RERUN_EDITS]:
                    if clock.over():
                        break
                    if _silences(edited[n], made_fn):
                        continue        # a statistical test passed by a copy that ignores a value it drew
                    if _mentions(edited[n], kept_names):
                        continue        # steers state the function keeps between calls (_state_steered)
                    if all(rerun(key, {name: f"{prefix}{n}"}) for key in keys) and kept_right(f"{prefix}{n}"):
                        fixes.append(edited[n])
                        if len(fixes) > MAX_FIXES:
                            break
                tests = len(keys)
    except cut_short:
        return None
    if not fixes or len(fixes) > MAX_FIXES or _interchangeable(fixes, cells[cell]):
        return None
    at = fixes[0].cell if fixes[0].helper else cell
    return Found(name=name, cell=at, fixes=tuple(fixes), calls=len(chosen),
                 line_text=safe_line(cells[at], fixes[0].line), tests=tests, more=more)


# methods that change the container they are called on: a module-level name one is called on is state the function
# keeps (only where the notebook binds that name to an empty or literal container: `np.append` is no state)
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "clear", "popitem", "add", "pop",
                       "remove", "discard", "appendleft"})
_CONTAINERS = frozenset({"dict", "list", "set", "OrderedDict", "deque"})


def _kept_state(fn: Any, cells: Sequence[str], rebound_unknown: bool = False) -> tuple[dict[str, str], dict[str, int]]:
    """(each module-level name `fn` writes -> the value the notebook first binds it to, as source: `None`, `{}`;
    each such name -> the line of its first write in `fn`). Written: declared `global` and assigned, or a
    module-level container changed in place (`_cache[key] = ...`, `.append(...)`, `.attr = ...`). A name whose
    first module-level binding is no literal (a tensor, a call) maps to "": its start is not known here. With
    `rebound_unknown`, so does a name the notebook's own top-level code binds more than once (`_scale = None`, later
    `_scale = 1.0`; `del`, `+=`, a `for` target): what it holds at the first call is not that literal, and a copy
    started from it differs from the function in more than what an earlier call left there (round 127)."""
    if not isinstance(fn, ast.FunctionDef):
        return {}, {}
    declared = {n for node in ast.walk(fn) if isinstance(node, ast.Global) for n in node.names}
    local = set(_local_names(fn)) - declared
    written: dict[str, int] = {}
    mutated: set[str] = set()
    in_place: set[str] = set()
    for node in ast.walk(fn):
        target: ast.AST | None = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.id in declared:
            written.setdefault(node.id, node.lineno)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
            target = node.func.value
            if isinstance(target, ast.Name) and target.id not in declared:
                mutated.add(target.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _in_place_method(node.func.attr):
            # a module-level tensor changed by its own in-place method (`_buf.resize_(...)`, `.copy_`, `.fill_`):
            # state only where the notebook assigns that name (`F.relu_(h)` changes h, not the module F)
            target = node.func.value
            if isinstance(target, ast.Name) and target.id not in declared:
                in_place.add(target.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") \
                and node.args:
            target = node.args[0]          # setattr(causal_mask, "tri", ...) is causal_mask.tri = ...
        if isinstance(target, ast.Name) and target.id not in local:
            written.setdefault(target.id, target.lineno)
    if not written:
        return {}, {}
    starts: dict[str, str] = {}
    bound: dict[str, int] = {}      # top-level bindings of each written name (rebound_unknown)
    for cell in cells:
        if not any(n in cell for n in written):
            continue
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        stack: list[ast.AST] = [tree] if rebound_unknown else []
        while stack:        # the module's own scope: a def's, lambda's or class's body binds no module name here
            node = stack.pop()
            if isinstance(node, ast.Name) and node.id in written and isinstance(node.ctx, (ast.Store, ast.Del)):
                bound[node.id] = bound.get(node.id, 0) + 1
            stack.extend(c for c in ast.iter_child_nodes(node)
                         if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            else:
                continue
            for t in targets:
                if isinstance(t, ast.Name) and t.id in written and t.id not in starts:
                    starts[t.id] = _literal_start(value)
    kept = {n: starts.get(n, "") if bound.get(n, 0) <= 1 else "" for n in written
            if not (n in mutated and not starts.get(n)) and not (n in in_place and n not in starts)}
    return kept, {n: written[n] for n in kept}


def _in_place_method(attr: str) -> bool:
    """Whether a method of that name changes its tensor in place (torch's trailing underscore: `copy_`, `add_`)."""
    return attr.endswith("_") and not attr.startswith("_") and len(attr) > 1


def _state_out_of_sight(fn: Any) -> bool:
    """Whether `fn` reaches module-level names through `globals()` or `vars()` (`g = globals(); g["_buf"] = ...`):
    state no name in its source shows, which no fresh start can be made for."""
    return isinstance(fn, ast.AST) and any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("globals", "vars")
        and not node.args for node in ast.walk(fn))


def keeps_state(cells: Sequence[str], name: str) -> bool:
    """Whether the notebook's last def of `name` keeps state between calls (_kept_state) or reaches it out of sight.
    Also the hidden tests' question before a key that would name the same symptom another way (attention-pipeline's
    scale_hard_coded: one factor for every d_k is what a scale kept from the first call gives too)."""
    found = last_def(cells, name)
    fn = found[1] if found is not None else None
    return bool(_kept_state(fn, cells)[0]) or _state_out_of_sight(fn)


def _literal_start(value: ast.expr) -> str:
    """The source of a module-level binding the search can make again in a fresh name (None, a number, `{}`, `[]`,
    `dict()`), or "" for anything else."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _CONTAINERS \
            and not value.args and not value.keywords:
        return f"{value.func.id}()" if value.func.id in ("dict", "list", "set") else ""
    if next(itertools.islice(ast.walk(value), 400, None), None) is not None:
        return ""   # past 200 characters printed anyway: a 2.8 MB literal was evaluated and printed (1.1 s), round 127
    try:
        ast.literal_eval(value)
        text = ast.unparse(value)   # inside: a literal nested past unparse's depth (3 frames a level) is no known start
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ""
    return text if len(text) <= 200 else ""


def _mentions(edit: Edit, names: typing.Iterable[str]) -> bool:
    """Whether the edit's changed code (before or after) reads one of `names`."""
    return any(re.search(rf"(?<![\w.]){re.escape(n)}\b", f"{edit.before} {edit.after}") for n in names)


def _from_fresh_state(edit: Edit, kept: Mapping[str, str], copy_name: str) -> str | None:
    """The edited copy renamed `copy_name`, with each name of `kept` it writes renamed to a fresh one of the
    grader's own bound first to the value the notebook starts it at: the copy run as in a notebook run from the
    top. None where it cannot be made."""
    try:
        tree = parse(edit.source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if fn is None or len(tree.body) != 1:
        return None
    fresh = {n: f"{copy_name}_s{k}" for k, n in enumerate(sorted(kept))}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in fresh:
            node.id = fresh[node.id]
        elif isinstance(node, ast.Global):
            node.names = [fresh.get(n, n) for n in node.names]
    if fresh and not any(isinstance(node, ast.Global) for node in ast.walk(fn)):
        # (none fresh: every name it keeps starts at no literal, and a `global` of no names is no Python)
        fn.body.insert(0, ast.Global(names=list(fresh.values())))
    fn.name = copy_name
    try:
        body = ast.unparse(ast.fix_missing_locations(fn))
    except RecursionError:
        return None
    return "".join(f"{fresh[n]} = {kept[n]}\n" for n in sorted(kept)) + body


def _state_steered(fixes: Sequence[Edit], state: tuple[dict[str, str], dict[str, int]], namespace: Any, prefix: str,
                   answers: Sequence[Any], run_copy: Callable[[str, int], Any], clock: SearchClock,
                   cut_short: tuple[type[BaseException], ...] | type[BaseException], left: int,
                   memo: dict[int, bool | None]) -> tuple[list[Edit], tuple[str, int, Edit] | None]:
    """(the fixes that also hold from the state a notebook run from the top starts in, (the name, the line of its
    first write, the first such fix) of the state the others only steered, where there are such). The copies run in the worker after
    the notebook ran, so a module-level name the function keeps between calls (`global _buf`, `_cache[key] = ...`)
    holds what the notebook's own calls left there: `if _buf is None:` made `is not None` is right on every
    recorded call only because an earlier call had filled `_buf` (issue 21: blind63's causal buffer and fused
    weight), and from the top it never builds it. Each fix of a function that writes such a name is run again
    with those names fresh (bound to what the notebook first binds them to), on every call in order; where a start
    is no literal, a fix whose changed code reads the name is refused (it steers the state). At most `left`
    copies, inside the search's clock; `memo` (id of an edit -> whether it holds, None: not checked) spares a second
    run."""
    kept, first = state
    if not kept:
        return list(fixes), None
    stop = cut_short if isinstance(cut_short, tuple) else (cut_short,)
    out: list[Edit] = []
    steered: tuple[str, int, Edit] | None = None
    for fix in fixes:
        if fix.helper:
            out.append(fix)
            continue
        if id(fix) not in memo:
            unknown = [n for n, start in kept.items() if not start]
            if _mentions(fix, unknown):
                memo[id(fix)] = False
            elif len(memo) >= left or clock.over():
                memo[id(fix)] = None          # not checked: neither said nor blamed on the state
            else:
                copy_name = f"{prefix}s{len(memo)}"
                source = _from_fresh_state(fix, {n: s for n, s in kept.items() if s}, copy_name)
                fresh = [Edit(line=0, before="", after="", source=source)] if source is not None else []
                # a fresh copy that could not be made or defined checks nothing: not checked, never blamed on the state
                memo[id(fix)] = (bool(search(fresh, functools.partial(_run_named, run_copy, copy_name), answers,
                                             lambda: clock.over(), stop))
                                 if fresh and namespace.define(_guarded(fresh), clock.wall_left()) else None)
        if memo[id(fix)]:
            out.append(fix)
        elif steered is None and memo[id(fix)] is False:
            name = next((n for n in sorted(kept, key=lambda n: first[n]) if _mentions(fix, [n])),
                        min(kept, key=lambda n: first[n]))
            steered = (name, first[name], fix)
    return out, steered


def _fresh_each_call(fn: Any, kept: Mapping[str, str], copy_name: str,
                     calling: tuple[str, str] | None = None) -> str | None:
    """The source of `fn` named `copy_name`, each name of `kept` with a literal start bound afresh at every call
    (a local started as the notebook starts it, its `global` line dropped): the function as it answers when no
    earlier call has left anything in what it keeps. `calling`: (a helper's name, its copy's) to call in its place.
    None where no kept name has a literal start, or where code nested in it (a def, a lambda, a class) names one
    (it would read the module's, not the fresh one), or it cannot be printed, or it is decorated (round 127: the copy
    drops the decorator, so a wrapper that transposes its answer beside a harmless `_log.append` was "mended" by the
    copy and told as state)."""
    starts = {n: s for n, s in kept.items() if s}
    if not isinstance(fn, ast.FunctionDef) or not starts or fn.decorator_list:
        return None
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            if any(isinstance(n, ast.Name) and n.id in starts for n in ast.walk(node)) or any(
                    isinstance(n, (ast.Global, ast.Nonlocal)) and set(n.names) & set(starts) for n in ast.walk(node)):
                return None
    try:
        fresh = copy.deepcopy(fn)
        for node in ast.walk(fresh):
            if isinstance(node, (ast.stmt, ast.excepthandler)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    block = getattr(node, field, None)
                    if not isinstance(block, list):
                        continue
                    kept_block = []
                    for stmt in block:
                        if isinstance(stmt, ast.Global):
                            names = [n for n in stmt.names if n not in starts]
                            if not names:
                                continue
                            stmt.names = names
                        kept_block.append(stmt)
                    block[:] = kept_block or ([ast.Pass()] if field in ("body",) else [])
        fresh.body[:0] = [parse(f"{n} = {starts[n]}").body[0] for n in sorted(starts)]
        if calling is not None:
            fresh = _Renamed(*calling).visit(fresh)
        fresh.name = copy_name
        fresh.decorator_list = []
        return ast.unparse(ast.fix_missing_locations(fresh))
    except (RecursionError, MemoryError, SyntaxError, ValueError, TypeError, AttributeError):
        return None


def _stale_state(name: str, fn: Any, cell: int, cells: Sequence[str], chosen: Sequence[Any], answers: Sequence[Any],
                 namespace: Any, prefix: str, clock: SearchClock, cut_short: type[BaseException],
                 kept_right: Callable[[str], bool], others: Sequence[tuple[Any, Any]] = ()) -> Found | None:
    """Found (its words in `kept`) where the function, or a helper it calls, keeps state between calls and, with
    that state started afresh at every call (_fresh_each_call), answers every chosen call as the reference does,
    where the notebook's own function got at least the first wrong: what an earlier call left there is why (issue
    21, blind63: a fused [W_Q | W_K | W_V] cached by shape, a mask cached by dtype and too short: the next call of
    the same shape reused the first call's weights). The copy differs from the student's function only in the
    state's start, so its being right says where the mistake is; nothing is edited. `others`: (call, the
    reference's answer) of further wrong calls (a named test's, on a shape already chosen): each the fresh copy
    makes right is counted as checked too, so that its test is told the state rather than its symptom. None
    otherwise."""
    # (the names kept with their starts and first lines, the copy's source made fresh in some of them, its cell,
    # the copy, the helper holding it: "" for the function itself)
    tries: list[tuple[dict[str, str], dict[str, int], Callable[[Mapping[str, str], str], str | None], int, str, str]] = []
    kept, first = _kept_state(fn, cells, rebound_unknown=True)
    if kept and not _state_out_of_sight(fn):
        tries.append((kept, first, functools.partial(_fresh_each_call, fn), cell, f"{prefix}fresh", ""))
    elif isinstance(fn, ast.FunctionDef) and not _state_out_of_sight(fn) and not fn.decorator_list:
        for k, (helper, (h_cell, h_fn, _h_source)) in enumerate(_helpers(fn, cells)):
            h_kept, h_first = _kept_state(h_fn, cells, rebound_unknown=True)
            if not h_kept or _state_out_of_sight(h_fn):
                continue
            h_copy = f"{prefix}fresh_h{k}"

            def made_with(only: Mapping[str, str], copy_name: str, h_fn: Any = h_fn, helper: str = helper,
                          h_copy: str = h_copy) -> str | None:
                h_made = _fresh_each_call(h_fn, only, f"{copy_name}_{h_copy}")
                caller = _calling(fn, helper, f"{copy_name}_{h_copy}", copy_name) if h_made is not None else None
                # the caller's copy first: the copy a test is rerun with is the first def of the source (_copy_name)
                return f"{caller}\n{h_made}" if h_made is not None and caller is not None else None
            tries.append((h_kept, h_first, made_with, h_cell, f"{prefix}fresh_c{k}", helper))

    def right_fresh(source: str | None, line: int, copy_name: str) -> Edit | None:
        """The copy defined, as an Edit, where it answers every chosen call as the reference does; else None."""
        if source is None or clock.over():
            return None
        edit = Edit(line=line, before="", after="", source=source)
        if not namespace.define(_guarded([edit]), clock.wall_left()):
            return None
        for i, call in enumerate(chosen):
            try:
                got = namespace.call_copy(copy_name, _copies(call.args), _copies(call.kwargs))
            except cut_short:
                raise
            except Exception:  # noqa: BLE001 - a fresh copy that raises is not right either
                return None
            if not same_answer(got, answers[i]) or clock.over():
                return None
        return edit
    for t_kept, t_first, make, at, copy_name, holder in tries:
        if clock.over():
            return None
        starts = sorted((n for n in t_kept if t_kept[n]), key=lambda n: t_first[n])
        if not starts:
            continue
        edit = right_fresh(make(t_kept, copy_name), t_first[starts[0]], copy_name)
        if edit is not None and kept_right(copy_name):
            # round 127: with two names kept (a call counter `_hits += 1` above the stale `_cache`), the state named
            # is the one whose fresh start alone makes the calls right, not the first written; none alone: all of them
            alone = starts[:1] if len(starts) == 1 else [next(
                (n for j, n in enumerate(starts)
                 if right_fresh(make({n: t_kept[n]}, f"{copy_name}_{j}"), t_first[n], f"{copy_name}_{j}")), "")]
            said = alone if alone[0] else starts
            line = t_first[said[0]]
            state = " and ".join(f"`{n}`" for n in said)
            words = ((f"calls `{holder}`, which " if holder else "")
                     + f"keeps state between calls in {state} (written on line {line} of its cell: "
                     f"`{safe_line(cells[at], line)}`): what an earlier call left there is reused by later ones, "
                     f"and with {state} started afresh at every call the same code answers "
                     f"{'the call the tests checked' if len(chosen) == 1 else f'all {len(chosen)} calls the tests checked'}"
                     f" right. Build it on every call, or key it by every input it depends on.")
            checked = [id(c) for c in chosen]
            for call, want in others[:MAX_STATE_OTHERS]:
                if clock.over():
                    break
                try:
                    if same_answer(namespace.call_copy(copy_name, _copies(call.args), _copies(call.kwargs)), want):
                        checked.append(id(call))
                except cut_short:
                    raise
                except Exception:  # noqa: BLE001 - not made right: its own name stands
                    continue
            return Found(name=name, cell=at, fixes=(dataclasses.replace(edit, line=line),), calls=len(chosen),
                         line_text=safe_line(cells[at], line), kept=words, checked=tuple(checked))
    return None


def _about_state(key: str) -> bool:
    """Whether the catalogue's text of `key` speaks of state kept between calls (a cache, a value kept, the first
    call's): such a key names the same mistake as STATE_KEY, more closely."""
    from autograder.grading.checks import describe
    text = describe(key).lower()
    return any(w in text for w in ("between calls", "across calls", "cache", "first call", "kept", "earlier call",
                                   "memo", "global"))


def _run_named(run_copy: Callable[[str, int], Any], copy_name: str, _n: int, i: int) -> Any:
    return run_copy(copy_name, i)


def _state_found(name: str, cell: int, cell_source: str, steered: tuple[str, int, Edit], calls: int) -> Found:
    """What the student reads where every fix found only steers state kept between calls (_state_steered): the
    name, where the function writes it, and the cache rule, not an edit (one would not hold in a fresh run)."""
    state, line, fix = steered
    words = (f"keeps state between calls in `{state}` (written on line {line} of its cell: `{safe_line(cell_source, line)}`), "
             f"built from an earlier call's inputs and reused: a change to how `{state}` is checked or used makes "
             f"every call the tests made right ({'the one' if calls == 1 else f'all {calls}'} checked) only with what "
             f"the notebook's earlier calls left in it, and from a fresh start it does not. Build it on every call, or "
             f"key it by every input it depends on.")
    # the fix kept (never said) is the steering copy: a test it passes fails for the same state (_passes_with_the_fix)
    return Found(name=name, cell=cell, fixes=(fix,), calls=calls, line_text=safe_line(cell_source, line), kept=words)


_BRANCHES = (ast.If, ast.While, ast.IfExp)


def _branch_of(fn: ast.AST, edit: Edit) -> int | None:
    """The place (in ast.walk order) of the `if`, `elif`, `while` or conditional expression of `fn` whose TEST the
    edit changes (a part of it written as the edit's `before`, on the edit's line); None where it changes none."""
    if edit.helper or edit.moved or not edit.after or edit.places != 1:
        return None
    try:
        for k, node in enumerate(ast.walk(fn)):
            if isinstance(node, _BRANCHES):
                test = node.test
                if test.lineno <= edit.line <= (test.end_lineno or test.lineno) and any(
                        getattr(n, "lineno", None) == edit.line and _cut(ast.unparse(n)) == edit.before
                        for n in ast.walk(test)):
                    return k
    except RecursionError:      # a test nested too deep to print: not told apart
        return None
    return None


def _branch_at(fn: ast.AST, k: int) -> ast.If | ast.While | ast.IfExp:
    """The k-th node of `fn` in ast.walk order, a branch (_branch_of found it there)."""
    return typing.cast("ast.If | ast.While | ast.IfExp", next(itertools.islice(ast.walk(fn), k, None)))


def _branch_words(node: ast.If | ast.While | ast.IfExp, value: bool, cell_line: str) -> str:
    """What a copy with `node`'s test made `value` leaves out, in words a student reads."""
    if isinstance(node, ast.IfExp):
        kept, dropped = (node.body, node.orelse) if value else (node.orelse, node.body)
        return (f"the conditional expression on line {node.lineno} (`{cell_line}`) always gives "
                f"`{_cut(unparse(kept), 40)}`: `{_cut(unparse(dropped), 40)}` is what gives the wrong answer")
    if isinstance(node, ast.While):
        return (f"the `{cell_line}` loop at line {node.lineno} never runs: the code under it is what gives the "
                f"wrong answer")
    if value:
        return (f"the `else` of the `{cell_line}` branch at line {node.lineno} is skipped: the code under that "
                f"`else` is what gives the wrong answer")
    return (f"the `{cell_line}` branch at line {node.lineno} is skipped: the code under it is what gives the "
            f"wrong answer")


def _dodges(fixes: Sequence[Edit], found: tuple[int, Any, str] | None, namespace: Any, prefix: str,
            answers: Sequence[Any], run_copy: Callable[[str, int], Any], clock: SearchClock,
            cut_short: tuple[type[BaseException], ...] | type[BaseException], left: int
            ) -> tuple[list[Edit], tuple[Edit, str] | None]:
    """(the fixes that do more than steer around a branch, the first dodged branch where none does: (its edit,
    its words)). A fix that edits the test of an `if`, `elif`, `while` or conditional expression may only make
    that test take one value on every recorded call, so that the other path runs (issue 21: `if Q.shape[0] ==
    K.shape[0]:` mirroring the scores as if symmetric, "mended" by `-1` for `0`, which only makes the condition
    false on the tests' inputs; with T = d_k it is true again, and wrong). Such a fix is tried once more with the
    test replaced by the constant it then took (False: the body stopped running; True: the `else` did, where there
    is one): where that copy too gives the reference's answers on every call, the edited condition is no fix, and
    the branch it steered around is what is wrong. Each copy runs like any candidate: inside the search's clock,
    at most `left` of them (what MAX_CANDIDATES leaves)."""
    if found is None:
        return list(fixes), None
    fn = found[1]
    fn.decorator_list = []
    cell_source = found[2]
    tried: dict[tuple[int, bool], bool] = {}
    kept: list[Edit] = []
    dodged: tuple[Edit, str] | None = None
    lines: set[int] = set()         # the lines of the branches steered around
    for fix in fixes:
        k = _branch_of(fn, fix)
        if k is None:
            kept.append(fix)
            continue
        node = _branch_at(fn, k)
        values = (False, True) if isinstance(node, ast.IfExp) or (isinstance(node, ast.If) and node.orelse) else (False,)
        hit: bool | None = None
        for value in values:
            if (k, value) not in tried:
                if len(tried) >= left or clock.over():
                    break
                tried[(k, value)] = _right_without(fn, k, value, f"{prefix}b{len(tried)}", namespace, answers,
                                                   run_copy, clock, cut_short)
            if tried[(k, value)]:
                hit = value
                break
        if hit is None:
            kept.append(fix)
            continue
        lines.add(node.lineno)
        if dodged is None:
            dodged = (fix, _branch_words(node, hit, safe_line(cell_source, node.lineno)))
    # the branch's own statement left out is the same news: that branch is what is wrong
    kept = [e for e in kept if e.after or e.line not in lines]
    return kept, (dodged if not kept else None)


def _right_without(fn: ast.AST, k: int, value: bool, copy_name: str, namespace: Any, answers: Sequence[Any],
                   run_copy: Callable[[str, int], Any], clock: SearchClock,
                   cut_short: tuple[type[BaseException], ...] | type[BaseException]) -> bool:
    """Whether the copy of `fn` whose k-th node's test is the constant `value` gives `answers` on every call."""
    copied = copy.deepcopy(fn)
    node = _branch_at(copied, k)
    node.test = ast.copy_location(ast.Constant(value), node.test)
    if not isinstance(copied, ast.FunctionDef):
        return False
    copied.name = copy_name
    try:
        source = ast.unparse(ast.fix_missing_locations(copied))
    except RecursionError:
        return False
    if not namespace.define(_guarded([Edit(line=0, before="", after="", source=source)]), clock.wall_left()):
        return False
    stop = cut_short if isinstance(cut_short, tuple) else (cut_short,)
    return bool(search([Edit(line=0, before="", after="", source=source)], lambda _n, i: run_copy(copy_name, i),
                       answers, lambda: clock.over(), stop))
