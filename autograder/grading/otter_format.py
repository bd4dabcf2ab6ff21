"""Otter's exception-format test files, read without importing otter.

A hidden test file starts with `from otter.test_files import test_case`. Importing the real thing
pulls in otter's whole stack (nbconvert, pandas, IPython: about 1 s, more than half of a single
`grade`'s own start-up), although all the grader needs from it is the decorator's metadata. So while
a hidden file is being loaded, `otter.test_files` resolves to this module's `test_case`, which has
otter 7's signature and attributes (`name`, `points`, `hidden`, `success_message`,
`failure_message`, `test_func`) and records them the same way. Nothing else changes: the files keep
the format and still run under stock otter.

The stand-in is installed only for the duration of `stand_in()` and only when the real
`otter.test_files` is not imported already (then the real one is used, and recognised too)."""
from __future__ import annotations

import inspect
import sys
import threading
import types
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Union

_LOCK = threading.RLock()
_NAMES = ("otter", "otter.test_files")


class test_case:  # noqa: N801 - otter's name, so that `from otter.test_files import test_case` finds it
    """Same signature and attributes as `otter.test_files.test_case` (otter-grader 7)."""

    def __init__(self, name: Optional[str] = None, points: Optional[Union[int, float]] = None,
                 hidden: bool = False, success_message: Optional[str] = None,
                 failure_message: Optional[str] = None) -> None:
        self.name = name
        self.points = points
        self.hidden = hidden
        self.success_message = success_message
        self.failure_message = failure_message
        self.test_func: Callable[..., None] = lambda: None

    def __call__(self, test_func: Callable[..., None]) -> "test_case":
        self.test_func = test_func
        return self

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, type(self)) and (
            (self.name, self.points, self.hidden, self.success_message, self.failure_message)
            == (other.name, other.points, other.hidden, other.success_message, other.failure_message))

    __hash__ = None  # type: ignore[assignment]  # as otter's: mutable, compared by value

    def _get_func_params(self) -> list[str]:
        return list(inspect.signature(self.test_func).parameters)


def _package() -> types.ModuleType:
    pkg = types.ModuleType("otter", "stand-in for otter while hidden test files load (autograder.grading.otter_format)")
    pkg.__path__ = []  # a package, so that `otter.test_files` can be imported from it
    sub = types.ModuleType("otter.test_files", pkg.__doc__)
    sub.test_case = test_case  # type: ignore[attr-defined]
    pkg.test_files = sub  # type: ignore[attr-defined]
    return pkg


def test_case_types() -> tuple[type, ...]:
    """The classes a loaded file's test cases may be instances of: ours, and otter's own when the real
    otter is imported in this process (a file loaded then uses it)."""
    real = sys.modules.get("otter.test_files")
    real_cls = getattr(real, "test_case", None) if real is not None else None
    return (test_case,) if not isinstance(real_cls, type) or real_cls is test_case else (test_case, real_cls)


@contextmanager
def stand_in() -> Iterator[None]:
    """While inside, `from otter.test_files import test_case` gives this module's `test_case`, unless
    the real otter.test_files is already imported. Leaves sys.modules as it found it."""
    with _LOCK:
        if "otter.test_files" in sys.modules:
            yield
            return
        saved = {name: sys.modules.get(name) for name in _NAMES}
        pkg = _package()
        if saved["otter"] is None:
            sys.modules["otter"] = pkg
        sys.modules["otter.test_files"] = pkg.test_files  # type: ignore[attr-defined]
        try:
            yield
        finally:
            for name, module in saved.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
