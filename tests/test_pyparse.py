"""The trusted process parses student source in several threads at once (a batch's graders share one
process). CPython 3.11's AST constructor counts its recursion depth per interpreter, so two parses that
interleave raise SystemError on valid code: CI once failed a submission that way. `pyparse.parse` is the
one way in, under a lock."""
from __future__ import annotations

import ast
import re
import sys
import threading
from pathlib import Path

from autograder.grading.pyparse import parse

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "\n".join(f"def f{i}(a, b=[1, 2, 3]):\n    return [(x, {{'k': (a + b) * x}}) for x in range(a) if x % 2]"
                   for i in range(150))


class _Cycle:
    """Garbage only the cycle collector frees; its finalizer runs Python code, where the GIL can move
    to another thread in the middle of a parse."""
    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        sum(range(100))


def test_parses_in_many_threads_at_once_all_succeed() -> None:
    errors: list[BaseException] = []
    trees: list[ast.Module] = []

    def work() -> None:
        for _ in range(20):
            for _ in range(300):
                _Cycle()
            try:
                trees.append(parse(SOURCE))
            except BaseException as e:   # noqa: BLE001 - every failure is the finding
                errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[:3]
    assert len(trees) == 80 and all(len(t.body) == 150 for t in trees)


def test_parse_raises_what_ast_parse_raises() -> None:
    try:
        parse("def f(:\n", "cell 3")
    except SyntaxError as e:
        assert e.filename == "cell 3"
    else:
        raise AssertionError("a syntax error parsed")


def test_no_module_of_the_grader_calls_ast_parse_itself() -> None:
    callers = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((ROOT / "autograder").rglob("*.py")) if p.name != "pyparse.py"
               for n, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"\bast\.parse\(", line)
               and not line.lstrip().startswith("#")]
    assert not callers, f"parse through autograder.grading.pyparse.parse: {callers}"
