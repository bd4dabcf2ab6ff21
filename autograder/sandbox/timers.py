"""Monotonic timers for `bench/breakdown.py`: where a grade's time goes. Off unless the environment
variable AUTOGRADER_TIMERS is set; then each trusted process (the CLI, a batch's grader processes)
records spans and counts and, when it exits, appends one JSON line to the file that variable names.
Off, every call below is one test of a module constant.

    span("tests q3")        a `with` block's start and end (time.monotonic(): one clock for every
                            process of the machine, so the bench lines processes up against each other)
    mark("zygote ready")    a moment
    count("round trips")    a number that only grows

Only trusted processes record: the sandbox's processes get a cleared environment (isolation.SANDBOX_ENV)
and never see the variable; what the zygote says about its own start comes in its ready message."""
from __future__ import annotations

import atexit
import json
import os
import sys
import time
from collections import Counter
from typing import Any

ENV = "AUTOGRADER_TIMERS"
ON = bool(os.environ.get(ENV))

_spans: list[tuple[str, float, float]] = []
_counts: Counter[str] = Counter()
_role = ""


class _Span:
    __slots__ = ("name", "start")

    def __init__(self, name: str) -> None:
        self.name = name
        self.start = 0.0

    def __enter__(self) -> "_Span":
        self.start = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        _spans.append((self.name, self.start, time.monotonic()))


class _Off:
    __slots__ = ()

    def __enter__(self) -> "_Off":
        return self

    def __exit__(self, *exc: object) -> None:
        return None


_OFF = _Off()


def span(name: str) -> "_Span | _Off":
    return _Span(name) if ON else _OFF


def mark(name: str, at: float | None = None) -> None:
    if ON:
        t = time.monotonic() if at is None else at
        _spans.append((name, t, t))


def count(name: str, n: int = 1) -> None:
    if ON:
        _counts[name] += n


def add(name: str, start: float, end: float) -> None:
    """A span timed by the caller (already running when it knew it wanted one)."""
    if ON:
        _spans.append((name, start, end))


def take() -> dict[str, Any]:
    """What was recorded since the last `take`, and forget it: {"spans": [[name, start, end]...],
    "counts": {name: n}}."""
    out = {"spans": [list(s) for s in _spans], "counts": dict(_counts)}
    _spans.clear()
    _counts.clear()
    return out


def role(name: str) -> None:
    """Which process this is (cli, grader, batch), said in its line."""
    global _role
    _role = name


def _dump() -> None:
    path = os.environ.get(ENV)
    if not (ON and path):
        return
    line = {"pid": os.getpid(), "role": _role or os.path.basename(sys.argv[0] or "python"),
            "exit": time.monotonic(), **take()}
    try:
        with open(path, "a") as fh:
            fh.write(json.dumps(line) + "\n")
    except OSError:
        pass


if ON:
    mark("process imported timers")
    atexit.register(_dump)
