"""A function right on ordinary inputs and wrong where an axis the question allows to be 1 is 1 (issue 21, blind66).

A failed test that names nothing, whose first call of a graded function had a length-1 axis (one query, one key, a
batch of one, a width of one) or a size argument of 1, and got a wrong answer (or raised), is tried again: the same
input with each length-1 axis made 2 long (the original values kept at index 0, one more entry drawn beside them) and
each size argument of 1 made 2 (where the reference refuses that, as a padding mask's broadcast axis widened beside
four queries, each tensor argument in turn is left as it is). Where the student's function gives the reference's
answer on that widened input, the failure is named `length_one_handled_differently`: the code treats a length-1 axis
otherwise than a longer one (a bare `.squeeze()`, an index `[0]`, `.item()`, a shortcut branch for one query, key or
token), and the message points at the first line of the function's own source that does one of those, where there is
one.

Evidence, not a guess: the widened input holds the original one, so a mistake in the general code (a wrong axis, a
missing scale, a mask applied after the softmax) stays wrong there and nothing is said; the new entries are drawn, not
copied, so the widened input is no degenerate one (equal rows would make many wrong softmaxes right). Not named
either (red-team round 128): a test one of whose later calls with no length of 1 was answered wrong (a size
hard-coded as 2 is right on the widened input and wrong elsewhere), nor a function right on the original input when
called again after the widened one (wrong by its state or by chance). An integer
argument is widened only where its name is a size's (`T_q`, `n_heads`, `d_k`), never an axis, a seed or a flag.

Trust: the reference runs here on the widened copy of arguments the grader itself drew (recorded before the
student's call); the student's function runs in the worker through `call_student`, inside the caller's deadline. The
student's source is parsed here (repair.last_def: pyparse) and never run here; its quoted line is cut (repair.safe_line).
At most MAX_CHECKS widened calls per submission."""
from __future__ import annotations

import ast
import functools
import inspect
import re
from typing import Any, Callable, Mapping, Sequence

import torch

from autograder.errors import NotAnswered, WorkerCrashed, WorkerTimeout
from autograder.grading.repair import GeneratorAt, _copies, last_def, left_bound, safe_line, same_answer

KEY = "length_one_handled_differently"
MAX_CHECKS = 6            # widened calls of the student's functions per submission
MAX_AXES_WIDENED = 4      # length-1 axes of one tensor made 2 long at most (each doubles it)
MAX_CALLS_READ = 12       # a test's recorded calls read for its first wrong one
MAX_KEPT_TRIES = 4        # widenings with one tensor argument left at its length 1, tried in turn
# a size's name: widened from 1 to 2 where it is an int argument (never `dim`, `axis`, a seed, a flag)
_SIZE_NAME = re.compile(r"(?:[TtNnBbHhLl]|d|D|d_\w{1,10}|T_\w{1,10}|n_\w{1,20}|num_\w{1,20}|seq_len\w{0,10}|length"
                        r"|size|heads?|width|tokens?|batch(?:_size)?)")


def _widened_tensor(t: torch.Tensor, generator: torch.Generator) -> torch.Tensor | None:
    """`t` with each length-1 axis made 2 long: the original at index 0, a drawn entry at index 1 (floats: normal
    draws at the tensor's own scale; bools: True with probability 3/4). None for other dtypes (integers index)."""
    if t.dtype not in (torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.bool) or t.is_complex():
        return None
    out = t.detach().cpu()
    scale = float(out.double().pow(2).mean().sqrt()) if out.numel() and out.dtype != torch.bool else 1.0
    scale = scale if scale > 0 and scale == scale and scale != float("inf") else 1.0
    if sum(1 for n in out.shape if n == 1) > MAX_AXES_WIDENED:
        return None             # each widened axis doubles the tensor: (1,) * 30 would be 2**30 entries
    for axis in range(out.dim()):
        if out.shape[axis] != 1:
            continue
        if out.dtype == torch.bool:
            extra = torch.rand(out.shape, generator=generator) < 0.75
        else:
            extra = (torch.randn(out.shape, generator=generator, dtype=torch.float64) * scale).to(out.dtype)
        out = torch.cat([out, extra], dim=axis)
    return out


@functools.lru_cache(maxsize=64)
def _positional_names(reference: Callable[..., Any]) -> tuple[str, ...]:
    """The reference's positional parameter names (read once per reference: every recorded call asks)."""
    try:
        params = list(inspect.signature(reference).parameters.values())
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _parameter_names(reference: Callable[..., Any], count: int) -> list[str]:
    try:
        names = list(_positional_names(reference))
    except TypeError:       # an unhashable callable: read each time
        names = list(_positional_names.__wrapped__(reference))
    return (names + [""] * count)[:count]


def widened(args: Sequence[Any], kwargs: Mapping[str, Any], reference: Callable[..., Any], seed: int = 0,
            keep: frozenset[int | str] = frozenset()) -> tuple[tuple[Any, ...], dict[str, Any], list[str]] | None:
    """(args, kwargs, what had length 1 in words) with every length-1 axis and size argument of 1 made 2 long, or
    None where nothing has length 1 or an argument cannot be widened (a generator, an integer tensor). `keep`: the
    tensor arguments (positions, keyword names) left as they are."""
    generator = torch.Generator().manual_seed(seed)
    names = _parameter_names(reference, len(args))
    said: list[str] = []

    def widen(value: Any, name: str, at: int | str) -> Any:
        if isinstance(value, GeneratorAt) or isinstance(value, torch.Generator):
            raise ValueError("a generator")
        if isinstance(value, torch.Tensor):
            if 1 not in value.shape or at in keep:
                return value
            out = _widened_tensor(value, generator)
            if out is None:
                raise ValueError("not widened")
            said.append(f"`{name}` of shape {tuple(value.shape)}" if name else f"an argument of shape {tuple(value.shape)}")
            return out
        if type(value) is int and value == 1 and name and _SIZE_NAME.fullmatch(name):
            said.append(f"`{name}` = 1")
            return 2
        return value
    try:
        new_args = tuple(widen(a, n, i) for i, (a, n) in enumerate(zip(args, names)))
        new_kwargs = {k: widen(v, k, k) for k, v in kwargs.items()}
    except ValueError:
        return None
    return (new_args, new_kwargs, said) if said else None


def _widened_with_answer(call: Any, reference: Callable[..., Any]
                         ) -> tuple[tuple[Any, ...], dict[str, Any], list[str], Any] | None:
    """The first widening of the call that the reference answers, with its answer: every length-1 axis made 2; else
    every one but those of one tensor argument, each in turn. A broadcast axis widened beside a longer one is refused
    (a padding mask (B, 1, T_k) beside four queries, widened to (2, 2, T_k) with the batch of one: nothing was said);
    left at 1 it still broadcasts over the drawn entries, so the widened input holds the original one all the same."""
    ones = [i for i, a in enumerate(call.args) if isinstance(a, torch.Tensor) and 1 in a.shape]
    ones += [k for k, v in call.kwargs.items() if isinstance(v, torch.Tensor) and 1 in v.shape]
    keeps: list[frozenset[int | str]] = [frozenset()] + [frozenset({at}) for at in ones[:MAX_KEPT_TRIES]]
    for keep in keeps:
        made = widened(call.args, call.kwargs, reference, keep=keep)
        if made is None:
            continue
        args, kwargs, said = made
        try:
            want = reference(*_copies(args), **_copies(kwargs))
        except Exception:  # noqa: BLE001 - an input the reference refuses: the next widening, if any
            continue
        return args, kwargs, said, want
    return None


# what in a def treats a length-1 axis otherwise: a bare squeeze, .item(), a test of a size against 1
def _suspect_line(fn: ast.AST) -> int | None:
    """The first line of `fn` with a bare `.squeeze()` (or torch.squeeze(x)), an `.item()`, or an `if` (or a
    conditional expression) comparing something with 1 (`== 1`, `!= 1`, `> 1`, `<= 1`, `< 2`, `>= 2`); None."""
    lines: list[int] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                (node.func.attr == "squeeze" and not node.keywords and (
                    not node.args or (isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
                                      and len(node.args) == 1))) or (node.func.attr == "item" and not node.args)):
            lines.append(node.lineno)
        elif isinstance(node, (ast.If, ast.IfExp)):
            for c in ast.walk(node.test):
                if isinstance(c, ast.Compare) and any(
                        isinstance(v, ast.Constant) and type(v.value) is int and (
                            v.value == 1 or (v.value == 2 and isinstance(op, (ast.Lt, ast.GtE))))
                        for op, v in zip(c.ops, c.comparators)):
                    lines.append(node.lineno)
    return min(lines) if lines else None


def name_length_one(reports: Sequence[Any], calls: Sequence[Any], references: Mapping[str, Any], cells: Sequence[str],
                    call_student: Callable[[str, tuple[Any, ...], dict[str, Any]], Any],
                    time_left: Callable[[], bool], cell_errors: Mapping[int, str] | None = None) -> list[Any]:
    """The reports, each failed one that names nothing (not withheld) named KEY where the first of its test's recorded
    calls that the student answered wrong had a length-1 axis (or a size of 1), and the student's function answers
    the widened input (widened) as the reference does. A test whose first wrong call has no length of 1 is wrong on
    an ordinary input: not this kind. `call_student(name, args, kwargs)` calls the notebook's function in the worker
    (raising what it raises); `time_left()` says whether the pass may go on; `cell_errors` (the worker's per cell, as
    repair.left_bound reads them) tell whether the def quoted is the function the tests called."""
    if not any(r.status == "failed" and not r.misconception and not getattr(r, "withheld_by", None) for r in reports):
        return list(reports)        # every grade passes here: a full-marks one reads nothing
    by_test: dict[tuple[str, str], list[Any]] = {}
    for call in calls:
        by_test.setdefault(call.test, []).append(call)
    verdict: dict[tuple[str, str], str | None] = {}
    checks = [0]
    out = []
    for r in reports:
        key = (r.question, r.name)
        if r.status != "failed" or r.misconception or getattr(r, "withheld_by", None) or key not in by_test:
            out.append(r)
            continue
        if key not in verdict:
            verdict[key] = _first_wrong(by_test[key], references, cells, call_student, time_left, checks, cell_errors)
        words = verdict[key]
        if words is not None:
            r = r.model_copy(update={"misconception": KEY, "message": (words + "\n" + r.message)[:1400]})
        out.append(r)
    return out


_REFUSED = object()      # the reference raised on the call


def _reference_answer(call: Any, reference: Callable[..., Any]) -> Any:
    """The reference's answer to a recorded call, or _REFUSED."""
    try:
        return reference(*_copies(call.args), **_copies(call.kwargs))
    except Exception:  # noqa: BLE001 - an input the reference refuses: no verdict
        return _REFUSED


def _answered_right(call: Any, reference: Callable[..., Any]) -> bool | None:
    if isinstance(call.answer, BaseException):
        return False
    expected = _reference_answer(call, reference)
    return None if expected is _REFUSED else same_answer(call.answer, expected)


def _has_length_one(call: Any, reference: Callable[..., Any]) -> bool:
    """Whether a call had a length-1 axis or a size argument of 1 (widened's test, without drawing anything)."""
    names = _parameter_names(reference, len(call.args))

    def one(value: Any, name: str) -> bool:
        return ((isinstance(value, torch.Tensor) and 1 in value.shape)
                or (type(value) is int and value == 1 and bool(name) and _SIZE_NAME.fullmatch(name) is not None))
    return any(one(a, n) for a, n in zip(call.args, names)) or any(one(v, k) for k, v in call.kwargs.items())


def _wrong_on_ordinary(later: Sequence[Any], references: Mapping[str, Any], time_left: Callable[[], bool]) -> bool:
    """Whether one of the test's later calls with no length of 1 was answered wrong (or the pass ran out of time
    before telling): then the mistake shows on an ordinary input, whatever the widened one says (red-team round 128:
    a scale hard-coded as sqrt(2) was wrong for d_k = 1 and d_k = 4, right on d_k widened to 2, and was named this)."""
    for call in later:
        reference = references.get(call.name)
        if not callable(reference) or _has_length_one(call, reference):
            continue
        if not time_left():
            return True
        if _answered_right(call, reference) is False:
            return True
    return False


def _first_wrong(test_calls: Sequence[Any], references: Mapping[str, Any], cells: Sequence[str],
                 call_student: Callable[[str, tuple[Any, ...], dict[str, Any]], Any], time_left: Callable[[], bool],
                 checks: list[int], cell_errors: Mapping[int, str] | None = None) -> str | None:
    """The words for the test's first wrong call, where it is of this kind (_check) and none of the test's later
    calls with no length of 1 was answered wrong; None otherwise."""
    read = list(test_calls[:MAX_CALLS_READ])
    for index, call in enumerate(read):
        reference = references.get(call.name)
        if not callable(reference) or not time_left():
            return None
        expected = _reference_answer(call, reference)
        if expected is _REFUSED:
            return None
        if not isinstance(call.answer, BaseException) and same_answer(call.answer, expected):
            continue
        if checks[0] >= MAX_CHECKS or _wrong_on_ordinary(read[index + 1:], references, time_left):
            return None
        checks[0] += 1
        return _check(call, reference, expected, cells, call_student, cell_errors)
    return None


def _check(call: Any, reference: Callable[..., Any], expected: Any, cells: Sequence[str],
           call_student: Callable[[str, tuple[Any, ...], dict[str, Any]], Any],
           cell_errors: Mapping[int, str] | None = None) -> str | None:
    made = _widened_with_answer(call, reference)
    if made is None:
        return None
    args, kwargs, said, want = made
    try:
        got = call_student(call.name, _copies(args), _copies(kwargs))
    except Exception:  # noqa: BLE001 - raising on the widened input too: not a length-1 matter
        return None
    if not same_answer(got, want):
        return None
    # the original input again, after the widened one: a function that is right now on it too (a warm-up counter, a
    # cache, a random draw) was wrong by its state or by chance, not by the length of 1 (red-team round 128)
    try:
        again = call_student(call.name, _copies(call.args), _copies(call.kwargs))
    except Exception as e:  # noqa: BLE001 - raising again is still wrong where it raised before; the grader's
        # own limits (the pass's deadline, a worker lost) tell nothing
        if not isinstance(call.answer, BaseException) or isinstance(e, (WorkerTimeout, WorkerCrashed, NotAnswered)):
            return None
    else:
        if same_answer(again, expected):        # the reference's answer to it, read once (_first_wrong)
            return None
    # the quoted line only from the def the tests called (not one a later `name = other` replaced: round 128)
    found = last_def(cells, call.name) if left_bound(cells, call.name, cell_errors) else None
    line = _suspect_line(found[1]) if found is not None else None
    where = (f" Look at line {line} of its cell: `{safe_line(found[2], line)}`." if found is not None and line
             else " Look for a bare `.squeeze()`, an index `[0]`, `.item()`, or a branch for a length of 1.")
    what = "raises" if isinstance(call.answer, BaseException) else "answers wrong"
    return (f"`{call.name}` {what} on this input ({', '.join(said[:4])}), where a length or a size is 1, and gives "
            f"the reference's answer on the same input with each 1 made 2 (the values kept, one more entry drawn): "
            f"it handles a length-1 axis otherwise than a longer one.{where}")
