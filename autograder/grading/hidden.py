"""Load hidden test files (otter's exception format) in the trusted process. Otter itself is not
imported: while a file loads, `otter.test_files.test_case` is a stand-in with the same signature
(autograder.grading.otter_format), so the same files still run under stock otter."""
from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, cast

from autograder.errors import GraderError
from autograder.grading.otter_format import stand_in, test_case_types
from autograder.grading.pyparse import parse

# Parameters the engine fills itself; every other parameter is a name from the student's namespace.
ENGINE_PARAMS = frozenset({"device", "rng", "submission", "env"})
# The attribute checks.earned_with sets on a test function: the value cases its points wait for.
EARNED_WITH = "earned_with"


@dataclass(frozen=True)
class HiddenTestCase:
    question: str          # the file's `name` (q1)
    name: str              # the test function's name, or test_case(name=...)
    points: float
    hidden: bool
    func: Callable[..., None] = field(repr=False, compare=False)
    params: tuple[str, ...] = ()
    file: str = ""
    # "question:test" of each value case this test's points wait for (checks.earned_with): a rule
    # test's points are earned only when they pass too (runner.withhold_unearned)
    earned_with: tuple[str, ...] = ()
    # parameters with a default: names the test may use when the notebook has them (None when it has not,
    # or has not answered them yet); only the others are required
    optional: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.question}:{self.name}"

    @property
    def student_names(self) -> tuple[str, ...]:
        return tuple(p for p in self.params if p not in ENGINE_PARAMS)

    @property
    def per_device(self) -> bool:
        return "device" in self.params


def _expose_reference(course_root: Path) -> None:
    """Let hidden tests `import reference...` from this course. If another course's `reference`
    package is already imported (the project's tests load two courses), this course's folder joins
    its search path."""
    if str(course_root) not in sys.path:
        sys.path.insert(0, str(course_root))
    loaded = sys.modules.get("reference")
    ref_dir = str(course_root / "reference")
    if loaded is not None and hasattr(loaded, "__path__") and ref_dir not in list(loaded.__path__):
        loaded.__path__.append(ref_dir)


def load_references(course_root: Path, slug: str) -> dict[str, Any]:
    """The functions of the course's `reference/<slug with underscores>.py` by name (the oracle the hidden
    tests import), and its plain values (a trace cell's answer: numbers, strings, tensors, tuples of them):
    the one-edit search (repair.py) checks a student function, or the cell assigning a value, against the
    reference of the same name. Empty where the course has none, or it does not import."""
    import importlib
    _expose_reference(course_root)
    module_name = "reference." + slug.replace("-", "_")
    try:
        module = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 - no reference: no search, grading goes on
        return {}
    import torch
    plain = (bool, int, float, str, torch.Tensor)
    return {n: f for n, f in vars(module).items()
            if not n.startswith("_") and ((inspect.isfunction(f) and f.__module__ == module_name) or isinstance(f, plain)
                                         or (isinstance(f, tuple) and all(isinstance(x, plain) for x in f)))}


def load_test_file(path: Path, course_root: Path) -> list[HiddenTestCase]:
    """Import one test file as a module and collect its test cases in definition order."""
    _expose_reference(course_root)
    mod_name = f"_hidden_{path.parent.parent.name.replace('-', '_')}_{path.stem}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise GraderError(f"cannot load hidden test file {path}")
    module = importlib.util.module_from_spec(spec)
    try:
        with stand_in():
            spec.loader.exec_module(module)
    except Exception as e:  # an instructor's bug: say where
        raise GraderError(f"hidden test file {path} failed to import: {type(e).__name__}: {e}") from e
    question = getattr(module, "name", path.stem)
    cases = []
    kinds = test_case_types()
    for value in vars(module).values():
        if isinstance(value, kinds):
            value = cast(Any, value)  # ours or otter's test_case: the same attributes
            signature = inspect.signature(value.test_func).parameters
            params = tuple(signature)
            optional = tuple(n for n, p in signature.items() if p.default is not inspect.Parameter.empty)
            # under @test_case as documented, or above it
            needs = getattr(value.test_func, EARNED_WITH, None) or getattr(value, EARNED_WITH, None) or ()
            cases.append(HiddenTestCase(
                question=str(question),
                name=value.name or value.test_func.__name__,
                points=float(value.points or 0.0),
                hidden=bool(value.hidden),
                func=value.test_func,
                params=params,
                file=str(path),
                earned_with=tuple(n if ":" in n else f"{question}:{n}" for n in needs),
                optional=optional,
            ))
    if not cases:
        raise GraderError(f"hidden test file {path} defines no @test_case")
    return cases


def load_hidden_tests(hidden_dir: Path, course_root: Path) -> list[HiddenTestCase]:
    if not hidden_dir.is_dir():
        raise GraderError(f"no hidden tests at {hidden_dir}")
    cases: list[HiddenTestCase] = []
    for path in sorted(hidden_dir.glob("*.py")):
        if path.name.startswith("_"):
            continue
        cases.extend(load_test_file(path, course_root))
    check_earned_with(cases)
    return cases


def check_earned_with(cases: list[HiddenTestCase]) -> None:
    """Each test a rule's points wait for exists, and is a value case (it waits for nothing itself):
    else the instructor's mistake is named before any submission is graded."""
    by_key = {c.key: c for c in cases}
    for case in cases:
        for needed in case.earned_with:
            other = by_key.get(needed)
            where = f"hidden test {case.key} ({case.file}) is earned with '{needed}'"
            if other is None:
                raise GraderError(f"{where}, which names no test of this assignment")
            if other is case or other.earned_with:
                raise GraderError(f"{where}, which waits for other tests itself: name a value test")


MISCONCEPTIONS_FILE = "_misconceptions.py"


def read_misconceptions(path: Path) -> dict[str, str]:
    """The plain dict `MISCONCEPTIONS = {key: text}` of a `_misconceptions.py` file, read as data (a
    literal, never executed)."""
    try:
        tree = parse(path.read_text(), filename=str(path))
    except (OSError, SyntaxError) as e:
        raise GraderError(f"cannot read {path}: {e}") from None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "MISCONCEPTIONS"):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                value = None
            if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                      for k, v in value.items()):
                raise GraderError(f"{path} must define MISCONCEPTIONS = {{key: text}} with string keys and texts")
            return value
    raise GraderError(f"{path} defines no MISCONCEPTIONS = {{...}}")


def load_misconceptions(hidden_dir: Path) -> dict[str, str]:
    """The assignment's misconceptions, declared once as data in hidden/_misconceptions.py; {} when
    the file is absent."""
    path = hidden_dir / MISCONCEPTIONS_FILE
    return read_misconceptions(path) if path.is_file() else {}
