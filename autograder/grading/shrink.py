"""The smallest failing input of an attention function (issue 13): when a value case of
`f(Q, K, V, mask)` fails, the feedback shows the smallest input of the same kind that still fails the
same way, with what was expected and what came back.

Greedy and bounded: each of the batch dims, T_q, T_k, d_k and d_v is halved, else cut by one (the
leading entries are kept, as views, so strides and the mask's pattern survive), and a smaller input is
kept only if it is of the same kind (`kind`: dtypes, contiguous / strided / expanded layout of each
tensor, the mask's broadcast shape and pattern class, T_q against T_k) and still fails the same way
(a wrong value, or a crash with the same error up to its numbers). At most `MAX_CALLS` student calls,
every call through `checks.call`.

Shrinking has a hard budget (`ShrinkBudget`, grading.yml's `limits.shrink_test_s` per failed test and
`limits.shrink_submission_s` per submission: 2 s and 10 s). Its calls run under their own deadline,
what is left of that budget, not the call timeout (`session.optional_calls`): none starts without
time enough for it (`START_S`, `START_CALLS`), and one still running at the deadline is interrupted
(its worker killed and replaced free of charge, never counted as a runaway). After a search has cost
a worker, the submission does no more searches.

Round trips (issue 20): where the test holds the student's function as the namespace gave it (a proxy
into the worker), the calls of the candidates the search will probably try next go to the worker in
one request (`Ahead`, session.call_ahead): the next candidate and those after it as they follow if
each verdict is what the same group's same move gave last time (fails the same way, at first). The
search then makes its calls one by one as before and each is answered from there; a guess that was
wrong only costs the calls made after it (at most AHEAD_SPARE per search). The search, its calls
and its result are those of the one-by-one search; a divide-by-d_k notebook needs about a third of
the round trips.

One example per mistake: once a failure named with a misconception key has its example, the
submission's later failures named with the same key are not searched again (`ShrinkBudget.shown`); the
student reads the mistake once, grouped (diagnosis.py), with that example. A failure no key explains
is searched each time: nothing says two of them are the same mistake.

Shrinking never changes a test's outcome: the misconception and message are computed on the original
input before shrinking starts, and anything unexpected while shrinking (a call cut short, a worker
that stopped, an error of the grader's own) ends it with what was found so far ("could not shrink
further"), or with nothing added.

Other signatures (`scaled_scores(Q, K)`, `nadaraya_watson(q, K, V)`, `attention_weights(S, M)`,
`attention(Q, K, V, d_k)`...) describe their arguments with `TensorArgs`: the tensors in call order,
which axis of which tensor each named dimension is, and the non-tensor arguments that follow from the
tensors (`Derived`, such as d_k = Q.shape[-1]); the search and the message are the same."""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import torch

from autograder.grading.checks import (Misconception, assert_matches, call, layout_crash, raise_if_added_parameter_wrong,
                                       tolerances)
from autograder.config import Limits
from autograder.errors import StudentCodeError, WorkerCrashed, WorkerTimeout
from autograder.sandbox.session import CallCutShort, optional_calls

MAX_CALLS = 30      # student calls one shrink may make
# The candidates a step of the search would try next are made in one round trip (`Ahead`), at most
# this many at once, and at most AHEAD_SPARE calls per search beyond those the search itself makes.
AHEAD = 6
AHEAD_SPARE = 2 * MAX_CALLS
# A call cut short at the deadline costs a worker, so one starts only while there is time for it: at
# least START_S, and START_CALLS times the call before it (calls get cheaper as the input shrinks, so
# the last one is the estimate, not the first). (Measured
# here through the sandbox, 592 calls grading three sdpa examples at load average 7-8 on 2 cores: 8 ms
# median, 24 ms at the 90th percentile, 132 ms at most.)
START_S = 0.25
START_CALLS = 2
SHOW_VALUES = 24    # values are printed when every tensor has at most this many entries
MESSAGE_LIMIT = 1000  # a report's message is cut there (runner.classify): the example must fit before it


_LIMITS = Limits()   # grading.yml's model: the one declaration of both budgets and their defaults


@dataclass
class ShrinkBudget:
    """The seconds shrinking may spend: `per_test_s` for each failed test, `per_submission_s` for all
    of one submission's tests together. One per submission: `RestartingNamespace` holds it (from
    grading.yml's limits), `runner.run_tests` makes it current (`current_budget`) around the tests
    and starts each test's share (`new_test`). `lost_worker`: a search has cost the worker (a call
    interrupted at its deadline, or a worker that died), so no more searches in this submission."""
    per_test_s: float = _LIMITS.shrink_test_s
    per_submission_s: float = _LIMITS.shrink_submission_s
    spent_s: float = 0.0
    test_spent_s: float = 0.0
    lost_worker: bool = False
    last_call_s: float = 0.0
    # misconception keys whose failure already ends with a smallest example in this submission: one
    # mistake fails a dozen tests, and the student reads it once, with one example (diagnosis.py)
    shown: set[str] = field(default_factory=set)

    def room_for_a_call(self, deadline: float) -> bool:
        return deadline - time.monotonic() >= max(START_S, START_CALLS * self.last_call_s)

    def new_test(self) -> None:
        self.test_spent_s = 0.0

    def left_s(self) -> float:
        if self.lost_worker:
            return 0.0
        return max(0.0, min(self.per_test_s - self.test_spent_s, self.per_submission_s - self.spent_s))

    def charge(self, seconds: float) -> None:
        self.spent_s += seconds
        self.test_spent_s += seconds


_CURRENT: ContextVar[ShrinkBudget | None] = ContextVar("shrink_budget", default=None)


@contextmanager
def current_budget(budget: ShrinkBudget) -> Iterator[ShrinkBudget]:
    """Inside, every search charges `budget` (the submission's). Outside any, a search gets a budget
    of its own with grading.yml's default per-test share."""
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


@dataclass(frozen=True)
class AttentionInput:
    Q: torch.Tensor
    K: torch.Tensor
    V: torch.Tensor
    mask: torch.Tensor | None = None

    def tensors(self) -> dict[str, torch.Tensor]:
        named = {"Q": self.Q, "K": self.K, "V": self.V}
        if self.mask is not None:
            named["mask"] = self.mask
        return named


    # what the search needs of an input (TensorArgs has the same methods)
    def core(self, name: str) -> int:
        return 2

    def core_dims(self) -> list[str]:
        return ["T_q", "T_k", "d_k", "d_v"]

    def named_axes(self, dim: str) -> dict[str, int]:
        return {"T_q": {"Q": -2, "mask": -2}, "T_k": {"K": -2, "V": -2, "mask": -1},
                "d_k": {"Q": -1, "K": -1}, "d_v": {"V": -1}}[dim]

    def together(self) -> list[tuple[str, ...]]:
        return [("T_q", "T_k")]

    def kind_extra(self) -> tuple[Any, ...]:
        T_q, T_k = self.Q.shape[-2], self.K.shape[-2]
        return mask_class(self), (T_q > T_k) - (T_q < T_k)

    def invoke(self, fn: Callable[..., Any], what: str) -> Any:
        return call(fn, *self.call_arguments()[0], what=what, mask=self.mask)

    def call_arguments(self) -> tuple[list[Any], dict[str, Any]]:
        """The student function's arguments, as `invoke` passes them."""
        return [self.Q, self.K, self.V], {"mask": self.mask}

    def expected(self, reference: Callable[..., torch.Tensor]) -> torch.Tensor:
        return reference(self.Q, self.K, self.V, self.mask)

    def with_tensors(self, named: dict[str, torch.Tensor]) -> "AttentionInput":
        return replace(self, **named)

    def note(self, name: str, original: Any) -> str:
        pattern = mask_class(original)
        return pattern if name == "mask" and pattern in ("causal", "fully masked rows") else ""

    def others(self) -> list[str]:
        return ["mask None"] if self.mask is None else []


@dataclass(frozen=True)
class Derived:
    """A non-tensor argument that follows from the tensors (d_k = Q.shape[-1]): recomputed on every
    smaller input."""
    of: Callable[[dict[str, torch.Tensor]], Any]


@dataclass(frozen=True, eq=False)
class TensorArgs:
    """The arguments of `f(a, b, ...)`, for shrinking a failing call of any signature.

    `values`: every argument in call order (a tensor, None, a `Derived` or any plain value);
    `keywords`: the names passed by keyword. `axes`: each dimension that may be cut, {dim: {tensor
    name: axis}} (axes counted from the end); the leading dims of each tensor beyond its `core` (2
    unless said) are batch dims, aligned from the right as broadcasting aligns them. `together`: groups
    of dims cut at once first (a square input stays square); `compare`: pairs of dims whose order
    (<, =, >) is part of the input's kind (a rectangular input stays rectangular the same way)."""
    values: dict[str, Any]
    axes: dict[str, dict[str, int]]
    core_of: dict[str, int] = field(default_factory=dict)
    together_dims: tuple[tuple[str, ...], ...] = ()
    compare: tuple[tuple[str, str], ...] = ()
    keywords: tuple[str, ...] = ()

    def tensors(self) -> dict[str, torch.Tensor]:
        return {n: v for n, v in self.values.items() if isinstance(v, torch.Tensor)}

    def core(self, name: str) -> int:
        return self.core_of.get(name, 2)

    def core_dims(self) -> list[str]:
        return list(self.axes)

    def named_axes(self, dim: str) -> dict[str, int]:
        return self.axes[dim]

    def together(self) -> list[tuple[str, ...]]:
        return list(self.together_dims)

    def kind_extra(self) -> tuple[Any, ...]:
        def order(a: str, b: str) -> int:
            x, y = size_of(self, a), size_of(self, b)
            return (x > y) - (x < y)
        return tuple(order(a, b) for a, b in self.compare)

    def arguments(self) -> tuple[list[Any], dict[str, Any]]:
        tensors = self.tensors()
        resolved = {n: (v.of(tensors) if isinstance(v, Derived) else v) for n, v in self.values.items()}
        return ([v for n, v in resolved.items() if n not in self.keywords],
                {n: v for n, v in resolved.items() if n in self.keywords})

    def invoke(self, fn: Callable[..., Any], what: str) -> Any:
        args, kwargs = self.arguments()
        return call(fn, *args, what=what, **kwargs)

    def call_arguments(self) -> tuple[list[Any], dict[str, Any]]:
        return self.arguments()

    def expected(self, reference: Callable[..., torch.Tensor]) -> torch.Tensor:
        args, kwargs = self.arguments()
        return reference(*args, **kwargs)

    def with_tensors(self, named: dict[str, torch.Tensor]) -> "TensorArgs":
        return replace(self, values={n: named.get(n, v) for n, v in self.values.items()})

    def note(self, name: str, original: Any) -> str:
        return ""

    def others(self) -> list[str]:
        tensors = self.tensors()
        out = []
        for n, v in self.values.items():
            if isinstance(v, torch.Tensor):
                continue
            v = v.of(tensors) if isinstance(v, Derived) else v
            out.append(f"{n} None" if v is None else f"{n} = {v!r}"[:80])
        return out


Input = AttentionInput | TensorArgs

# Makes the student calls of these inputs now, in one round trip, so that the search's calls, made one
# by one next, are answered without one each: how many were made (their order kept; 0 for none), and
# whether that cost the worker. The second argument: seconds after which the worker starts no more.
Ahead = Callable[[list[Input], float], tuple[int, bool]]


def ahead_with(fn: Callable[..., Any]) -> Ahead | None:
    """An `Ahead` for a student function the tests hold as it came from the namespace (a proxy into
    the worker, namespaces.RunawayGuard); None for a test's own wrapper around it, whose calls are
    not known in advance."""
    call_ahead = getattr(type(fn), "call_ahead", None)
    if call_ahead is None:
        return None

    def ahead(inputs: list[Input], stop_after_s: float) -> tuple[int, bool]:
        try:
            made, lost = call_ahead(fn, [i.call_arguments() for i in inputs], stop_after_s)
            return int(made), bool(lost)
        except Exception:  # noqa: BLE001 - the calls are then made one by one, as without it
            return 0, False
    return ahead


@dataclass(frozen=True)
class Failure:
    """How a call failed: `how` is ("value",) for a wrong result, ("crash", type, message with its
    numbers masked) for an error of the student's code. `got` is the result or the error's text."""
    how: tuple[str, ...]
    expected: torch.Tensor | None
    got: Any

    @staticmethod
    def crash(e: StudentCodeError, expected: torch.Tensor | None = None) -> "Failure":
        first = (e.message.splitlines() or [""])[0]
        return Failure(("crash", e.exc_type, re.sub(r"\d+", "#", first)), expected, f"{e.exc_type}: {first}")

    @staticmethod
    def value(expected: torch.Tensor, got: Any) -> "Failure":
        return Failure(("value",), expected, got)


Stopped = Literal["", "budget", "interrupted"]


@dataclass(frozen=True)
class Shrunk:
    input: Input
    failure: Failure
    calls: int          # student calls spent shrinking
    seconds: float
    # why the search ended before it was done: "" it was done; "budget": out of calls or time;
    # "interrupted": a call neither returned nor crashed (cut short at the deadline, a worker that died...)
    stopped: Stopped = ""


class _Stop(Exception):
    """A call whose outcome is neither a result nor a crash of the student's code: stop shrinking.
    `lost_worker`: that call cost the worker."""

    def __init__(self, reason: str, lost_worker: bool = False) -> None:
        self.lost_worker = lost_worker
        super().__init__(reason)


def matches(got: Any, expected: torch.Tensor) -> bool:
    """The default verdict: a plain tensor of expected's dtype and shape, within its dtype's tolerance."""
    if type(got) is not torch.Tensor or got.dtype != expected.dtype or got.shape != expected.shape:
        return False
    rtol, atol = tolerances(expected.dtype)
    return bool(torch.allclose(got.detach().to(torch.float64), expected.detach().to(torch.float64),
                               rtol=rtol, atol=atol))


def attempt_with(fn: Callable[..., Any], reference: Callable[..., torch.Tensor],
                 close: Callable[[Any, torch.Tensor], bool] = matches,
                 what: str = "your function") -> Callable[[Input], Failure | None]:
    """One student call on an input: None when it is right, else how it failed. Anything else than a
    result or a crash of the student's code (not answered, forbidden, cut short...) raises _Stop."""
    def attempt(inp: Input) -> Failure | None:
        expected = inp.expected(reference)
        try:
            got = inp.invoke(fn, what)
        except StudentCodeError as e:
            return Failure.crash(e, expected)
        except CallCutShort as e:
            raise _Stop(str(e), lost_worker=e.lost_worker) from None
        except Exception as e:  # noqa: BLE001 - not a failure of this input: nothing more to learn
            raise _Stop(str(e)) from None
        return None if close(got, expected) else Failure.value(expected, got)
    return attempt


# --- the input's kind, and its dimensions ---------------------------------------------------------

def layout_of(t: torch.Tensor) -> str:
    if any(n > 1 and s == 0 for n, s in zip(t.shape, t.stride())):
        return "expanded"
    return "contiguous" if t.is_contiguous() else "strided"


def mask_class(inp: AttentionInput) -> str:
    m, T_q, T_k = inp.mask, inp.Q.shape[-2], inp.K.shape[-2]
    if m is None:
        return "none"
    m = m.to(torch.bool)
    if m.dim() >= 2 and bool((m == torch.ones(T_q, T_k, dtype=torch.bool).tril()).all()):
        return "causal"
    try:
        full = m.expand(*m.shape[:-2], T_q, T_k) if m.dim() >= 2 else m.expand(T_q, T_k)
    except RuntimeError:
        return "other"
    return "fully masked rows" if bool((~full.any(dim=-1)).any()) else "other"


def kind(inp: Input) -> tuple[Any, ...]:
    shape = tuple((name, t.dim(), t.dtype, layout_of(t)) for name, t in inp.tensors().items())
    return (shape, *inp.kind_extra())


def same_kind(candidate: tuple[Any, ...], original: tuple[Any, ...]) -> bool:
    """Kinds agree; a mask of no particular pattern may become causal by chance when it is cut (a
    1 x 2 mask [[1, 0]] is), but never gains a fully masked row."""
    if len(candidate) > 1 and candidate[1] == "causal" and len(original) > 1 and original[1] == "other":
        candidate = (candidate[0], "other", *candidate[2:])
    return candidate == original


def _batch_dims(inp: Input) -> int:
    return max((t.dim() - inp.core(name) for name, t in inp.tensors().items()), default=0)


def _axes(inp: Input, dim: str) -> dict[str, int]:
    """Which axis of which tensor the dimension `dim` is (only where its size is above 1: a mask's
    broadcast dims stay as they are)."""
    named = inp.tensors()
    if dim.startswith("batch"):
        i, nb = int(dim[5:]), _batch_dims(inp)
        axes = {name: a for name, t in named.items() if (a := i - nb + t.dim() - inp.core(name)) >= 0}
    else:
        axes = inp.named_axes(dim)
    out = {}
    for name, a in axes.items():
        t = named.get(name)
        if t is not None and -t.dim() <= a < t.dim() and t.shape[a] > 1:
            out[name] = a
    return out


def dims_of(inp: Input) -> list[str]:
    return [f"batch{i}" for i in range(_batch_dims(inp))] + inp.core_dims()


def groups_of(inp: Input) -> list[tuple[str, ...]]:
    """What is cut at once, in order: each batch dim, the dims cut together (T_q and T_k: an input
    with as many queries as keys keeps them equal), then each of the others (T_q, T_k, d_k, d_v)."""
    core = inp.core_dims()
    return [(f"batch{i}",) for i in range(_batch_dims(inp))] + inp.together() + [(d,) for d in core]


def moves(inp: Input, group: tuple[str, ...]) -> list[Input]:
    """`inp` with the dims of `group` halved, or else cut by one."""
    now = [size_of(inp, d) for d in group]
    out = []
    for new in dict.fromkeys((tuple(n // 2 for n in now), tuple(n - 1 for n in now))):
        if all(1 <= m < n for n, m in zip(now, new)):
            candidate = inp
            for d, m in zip(group, new):
                candidate = cut(candidate, d, m)
            out.append(candidate)
    return out


def size_of(inp: Input, dim: str) -> int:
    named = inp.tensors()
    return max((named[n].shape[a] for n, a in _axes(inp, dim).items()), default=1)


def cut(inp: Input, dim: str, n: int) -> Input:
    """The input with dimension `dim` cut to its first `n` entries: a contiguous tensor stays
    contiguous, a view stays a view of the same memory (its strides are kept)."""
    named = dict(inp.tensors())
    for name, axis in _axes(inp, dim).items():
        t = named[name]
        part = t.narrow(axis, 0, n)
        named[name] = part.contiguous() if t.is_contiguous() else part
    return inp.with_tensors(named)


def sizes(inp: Input) -> tuple[int, ...]:
    return tuple(size_of(inp, d) for d in dims_of(inp))


# --- the search ---------------------------------------------------------------------------------------

def shrink(inp: Input, first: Failure, attempt: Callable[[Input], Failure | None], *,
           max_calls: int | None = None, budget_s: float | None = None, ahead: Ahead | None = None) -> Shrunk:
    """The smallest input found of `inp`'s kind on which `attempt` fails as `first` did, within the
    current budget (`current_budget`; `budget_s` may only shorten it). Every call into a worker
    made by `attempt` ends by the budget's deadline (session.optional_calls). `ahead`: the calls
    of a step's candidates are made in one round trip first (the same search, the same result)."""
    budget = _CURRENT.get() or ShrinkBudget()
    start = time.monotonic()
    seconds = budget.left_s() if budget_s is None else min(budget_s, budget.left_s())
    if seconds <= 0:
        return Shrunk(inp, first, 0, 0.0, stopped="budget")
    try:
        with optional_calls(start + seconds):
            return _search(inp, first, attempt, MAX_CALLS if max_calls is None else max_calls,
                           start + seconds, budget, ahead)
    finally:
        budget.charge(time.monotonic() - start)


Step = tuple[Input, tuple[int, ...], bool]   # a candidate, its sizes, whether it is of the input's kind


@dataclass
class _Walk:
    """Where the greedy search stands: its best input so far, the pass's groups, the group and move
    it tries next, the sizes tried. `next` gives the next candidate, `tell` its verdict (does it fail
    as the first input did?). A copy walks ahead on guessed verdicts without touching the original;
    both share `memo`, the candidates of each (input, group), computed once (a candidate is the
    original input cut to its sizes, whatever the path to it)."""
    best: Input
    want: tuple[Any, ...]
    tried: set[tuple[int, ...]]
    groups: list[tuple[str, ...]]
    memo: dict[tuple[tuple[int, ...], tuple[str, ...]], list[Step]]
    best_sizes: tuple[int, ...] = ()
    g: int = 0
    c: int = 0
    progress: bool = False
    at: tuple[tuple[str, ...], int] = ((), 0)   # the group and move index of the last candidate given
    at_sizes: tuple[int, ...] = ()              # and its sizes

    def _steps(self) -> list[Step]:
        key = (self.best_sizes, self.groups[self.g])
        steps = self.memo.get(key)
        if steps is None:
            steps = [(m, sizes(m), same_kind(kind(m), self.want)) for m in moves(self.best, self.groups[self.g])]
            self.memo[key] = steps
        return steps

    def next(self) -> Input | None:
        while True:
            if self.g >= len(self.groups):
                if not self.progress:
                    return None
                self.progress, self.groups, self.g, self.c = False, groups_of(self.best), 0, 0
                continue
            steps = self._steps()
            if self.c >= len(steps):
                self.g, self.c = self.g + 1, 0
                continue
            candidate, size, ok = steps[self.c]
            self.at, self.at_sizes = (self.groups[self.g], self.c), size
            self.c += 1
            if ok and size not in self.tried:
                return candidate

    def tell(self, candidate: Input, fails: bool) -> None:
        """The verdict on the candidate `next` gave last."""
        self.tried.add(self.at_sizes)
        if fails:   # on to the next group; this one is tried again in the next pass
            self.best, self.best_sizes = candidate, self.at_sizes
            self.progress, self.g, self.c = True, self.g + 1, 0

    def ahead(self, first: Input, guess: dict[tuple[tuple[str, ...], int], bool], limit: int) -> list[Input]:
        """`first` (given last by `next`) and the candidates after it, at most `limit`, if each verdict
        is as `guess` says (what the same group's same move did last time; fails the same way, at first)."""
        walk = replace(self, tried=set(self.tried))
        plan, candidate = [first], first
        while len(plan) < limit:
            walk.tell(candidate, guess.get(walk.at, True))
            nxt = walk.next()
            if nxt is None:
                break
            plan.append(nxt)
            candidate = nxt
        return plan


def _search(inp: Input, first: Failure, attempt: Callable[[Input], Failure | None], max_calls: int,
            deadline: float, budget: ShrinkBudget, ahead: Ahead | None = None) -> Shrunk:
    """The greedy search (see the module's text). With `ahead`, the calls of the candidates it will
    probably try next are made in one round trip first, on verdicts guessed from the same group's
    last ones; a wrong guess only costs the calls made after it, never a different search."""
    start, calls = time.monotonic(), 0
    best, best_failure, want = inp, first, kind(inp)
    walk = _Walk(inp, want, {sizes(inp)}, groups_of(inp), {}, sizes(inp))
    guess: dict[tuple[tuple[str, ...], int], bool] = {}
    pending: list[int] = []   # the candidates whose answers wait in the session (the memo keeps them)
    per_call_s, spare, lost = 0.0, AHEAD_SPARE, False

    def done(stopped: Stopped) -> Shrunk:
        # a worker lost to calls made ahead ends this search once their answers are used, and the rest
        budget.lost_worker = budget.lost_worker or lost
        return Shrunk(best, best_failure, calls, time.monotonic() - start, stopped)

    while (candidate := walk.next()) is not None:
        at = walk.at
        if calls >= max_calls or not budget.room_for_a_call(deadline):
            return done("budget")
        if ahead is not None and not pending and spare > 0 and not lost:
            plan = walk.ahead(candidate, guess, min(AHEAD, max_calls - calls, spare + 1))
            if len(plan) > 1:
                began = time.monotonic()
                made, lost = ahead(plan, deadline - began - max(START_S, START_CALLS * budget.last_call_s))
                pending = [id(p) for p in plan[:made]]
                spare -= max(0, made - 1)
                per_call_s = (time.monotonic() - began) / max(1, made)
        served = bool(pending) and pending[0] == id(candidate)
        pending = pending[1:] if served else []
        calls += 1
        began = time.monotonic()
        try:
            failure = attempt(candidate)
            budget.last_call_s = per_call_s if served else time.monotonic() - began
        except _Stop as stop:
            # a worker lost to a search is replaced; another search would likely lose the next
            budget.lost_worker = budget.lost_worker or stop.lost_worker
            return done("interrupted")
        fails = failure is not None and failure.how == first.how
        if served and fails != guess.get(at, True):
            pending = []   # the answers made ahead after this one followed the wrong verdict
        guess[at] = fails
        walk.tell(candidate, fails)
        if fails:
            assert failure is not None
            best, best_failure = candidate, failure
    return done("")


# --- the message ----------------------------------------------------------------------------------

def _number(x: float | bool, digits: int = 3) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    return f"{x + 0.0:.{digits}g}"  # + 0.0: a -0.0 prints as 0


def _values(t: torch.Tensor, digits: int = 3) -> str:
    def nest(v: Any) -> str:
        return "[" + ", ".join(nest(x) for x in v) + "]" if isinstance(v, list) else _number(v, digits)
    data = t.detach().cpu()
    return nest((data if data.dtype == torch.bool else data.to(torch.float64)).tolist())


def _largest_difference(expected: torch.Tensor, got: torch.Tensor) -> tuple[tuple[int, ...], float, float] | None:
    """Where expected and got differ most (a NaN or inf where the other is finite counts as most):
    (index, expected there, got there), or None when they are equal everywhere."""
    e, g = expected.detach().cpu().to(torch.float64), got.detach().cpu().to(torch.float64)
    if e.numel() == 0:
        return None
    diff = (e - g).abs()
    diff = torch.where(torch.isnan(e) & torch.isnan(g), torch.zeros_like(diff), diff)
    diff = torch.where(torch.isnan(diff) | torch.isinf(diff), torch.full_like(diff, float("inf")), diff)
    flat = int(torch.argmax(diff).item())
    if float(diff.reshape(-1)[flat]) == 0:
        return None
    return _unravel(flat, tuple(e.shape)), float(e.reshape(-1)[flat]), float(g.reshape(-1)[flat])


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index of entry `flat` of a contiguous tensor of `shape` (torch.unravel_index costs 0.7 s
    on its first call in a process, measured here)."""
    index = []
    for n in reversed(shape):
        flat, i = divmod(flat, n)
        index.append(i)
    return tuple(reversed(index))


def _digits(where: tuple[tuple[int, ...], float, float] | None) -> int:
    """Significant digits that show expected and got as different numbers where they differ most
    (3, more when the difference is small: a wrong answer never prints as equal to the right one)."""
    if where is None:
        return 3
    _, e, g = where
    digits = 3
    while digits < 12 and _number(e, digits) == _number(g, digits):
        digits += 1
    return digits


def _label(name: str, t: torch.Tensor, note: str) -> str:
    text = f"{name} {tuple(t.shape)} {str(t.dtype).replace('torch.', '')}"
    layout = layout_of(t)
    if layout == "expanded":
        dims = [i for i, (n, s) in enumerate(zip(t.shape, t.stride())) if n > 1 and s == 0]
        text += f", expanded over dim {', '.join(map(str, dims))} (stride 0)"
    elif layout == "strided":
        text += ", not contiguous"
    if note:
        text += f", {note}"
    return text


def _got(got: Any, expected: torch.Tensor | None, said: str) -> tuple[str, torch.Tensor | None]:
    if isinstance(got, str):   # a crash: its text, unless the message above already says it
        return ("the same error" if got.split(": ", 1)[-1][:60] in said else f"your code raised {got[:200]}"), None
    if type(got) is not torch.Tensor:
        return f"a {type(got).__name__}", None
    if expected is not None and (got.shape != expected.shape or got.dtype != expected.dtype):
        return f"a tensor of shape {tuple(got.shape)} and dtype {str(got.dtype).replace('torch.', '')}", None
    return "", got


def describe(shrunk: Shrunk, original: Input, limit: int = 700, said: str = "") -> str:
    """The shrunk input in at most `limit` characters: shapes, and values when they fit; "" when
    nothing smaller was found and the input is too big to print. `said`: the message it follows."""
    inp, failure = shrunk.input, shrunk.failure
    smaller = sizes(inp) != sizes(original)
    if shrunk.stopped:   # the search ended early: nothing is claimed about the inputs it did not try
        head = ("A smaller input of this kind that still fails (could not shrink further):" if smaller
                else "The input (could not shrink further):")
    else:
        head = ("The smallest input of this kind that still fails:" if smaller
                else "The input (no smaller one of this kind fails the same way):")
    got_text, got_tensor = _got(failure.got, failure.expected, said)
    where = (_largest_difference(failure.expected, got_tensor)
             if failure.expected is not None and got_tensor is not None else None)
    digits = _digits(where)
    small = all(t.numel() <= SHOW_VALUES for t in inp.tensors().values())
    small_out = failure.expected is not None and failure.expected.numel() <= SHOW_VALUES
    for show in (True, False) if small else (False,):
        if not show and not smaller and where is None:
            return ""
        lines = [head] + [f"  {_label(name, t, inp.note(name, original))}" + (f" = {_values(t)}" if show else "")
                          for name, t in inp.tensors().items()]
        lines += [f"  {other}" for other in inp.others()]
        if (show or small_out) and failure.expected is not None:
            lines.append(f"  expected {_values(failure.expected, digits)}")
            if got_tensor is not None:
                lines.append(f"  got      {_values(got_tensor, digits)}")
        if where is not None:
            index, e, g = where
            lines.append(f"  largest difference at {list(index)}: expected {_number(e, digits)}, got {_number(g, digits)}")
        if got_tensor is None and got_text:
            lines.append(f"  got      {got_text}")
        text = "\n".join(lines)
        if len(text) <= limit:
            return text
    return ""


def with_smallest(exc: BaseException, fn: Callable[..., Any], inp: Input, first: Failure, *,
                  reference: Callable[..., torch.Tensor], close: Callable[[Any, torch.Tensor], bool] = matches,
                  what: str = "your function", max_calls: int | None = None,
                  budget_s: float | None = None) -> BaseException:
    """`exc` (the test's failure on `inp`, already worded and named) with the smallest failing input
    appended to its message. Never raises: if shrinking goes wrong, `exc` comes back as it was. A
    timeout or a stopped worker is not shrunk, nor a result that is not a tensor at all, nor a mistake
    (a misconception key) that already has its example in this submission: its diagnosis shows one
    (diagnosis.py), and a wrong scale that fails 13 tests no longer pays for 13 searches."""
    if isinstance(exc, (WorkerTimeout, WorkerCrashed)):
        return exc
    key = getattr(exc, "key", None) if isinstance(exc, Misconception) else None
    budget = _CURRENT.get()
    if key and budget is not None and key in budget.shown:
        return exc
    if first.how == ("value",) and type(first.got) is not torch.Tensor:
        return exc   # None (not answered yet), a tuple...: no smaller input says more than the message
    try:
        found = shrink(inp, first, attempt_with(fn, reference, close, what), max_calls=max_calls,
                       budget_s=budget_s, ahead=ahead_with(fn))
        if found.calls == 0 and found.stopped:
            return exc   # no time left for this submission's searches: nothing learnt, nothing added
        message = str(exc)
        text = describe(found, inp, limit=MESSAGE_LIMIT - len(message) - 1, said=message)
        if text:
            exc.args = (f"{message}\n{text}",)
            if key and budget is not None:
                budget.shown.add(key)
    except Exception:  # noqa: BLE001 - shrinking only adds an example; it must never change the outcome
        pass
    return exc


def check_value(fn: Callable[..., Any], inp: TensorArgs, expected: torch.Tensor, *,
                reference: Callable[..., torch.Tensor], what: str, name: str,
                judge: Callable[[Any], None] | None = None,
                close: Callable[[Any, torch.Tensor], bool] = matches, **matches_kw: Any) -> Any:
    """One value case of the student's `fn` on `inp` (called as the proxy `name`): the answer must
    match `expected` (checks.assert_matches with `matches_kw`: dtype, variants, rtol, atol), or pass
    `judge`. A crash on inputs that are not contiguous is named from a second call on contiguous
    copies (checks.layout_crash). What a failure is named is decided on this input; its message then
    ends with the smallest input of the same kind that still fails the same way, `reference` giving
    the expected value of the smaller inputs in their own dtype and `close` saying whether a smaller
    answer is right (the case's own tolerance, when it is not its dtype's)."""
    try:
        got = inp.invoke(fn, name)
    except StudentCodeError as e:
        copies = inp.with_tensors({n: t.contiguous() for n, t in inp.tensors().items()})
        failure: BaseException = layout_crash(e, inp.tensors(), lambda: copies.invoke(fn, name)) or e
        raise with_smallest(failure, fn, inp, Failure.crash(e), reference=reference, close=close,
                            what=name) from None
    try:
        if judge is not None:
            judge(got)
        else:
            assert_matches(got, expected, what=what, **matches_kw)
    except AssertionError as failure:
        if getattr(failure, "key", None) != "default_argument_wrong":
            # a parameter the notebook's function lacks, left to a wrong default: proven first
            _raise_if_added_parameter(fn, inp, expected, reference, what, name, judge, matches_kw)
        raise with_smallest(failure, fn, inp, Failure.value(inp.expected(reference), got),
                            reference=reference, close=close, what=name) from None
    return got


def _raise_if_added_parameter(fn: Callable[..., Any], inp: Any, expected: torch.Tensor, reference: Callable[..., Any],
                              what: str, name: str, judge: Callable[[Any], None] | None,
                              matches_kw: dict[str, Any]) -> None:
    """checks.raise_if_added_parameter_wrong on this case: right is what this case's own check accepts."""
    kw = {k: v for k, v in matches_kw.items() if k != "variants"}

    def right(out: Any) -> bool:
        try:
            if judge is not None:
                judge(out)
            else:
                assert_matches(out, expected, what=what, **kw)
        except AssertionError:
            return False
        return True
    args, kwargs = inp.call_arguments()
    raise_if_added_parameter_wrong(fn, args, right, kwargs=kwargs, func_name=name, reference=reference, what=what)
