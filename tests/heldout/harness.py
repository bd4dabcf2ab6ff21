"""Held-out submissions (issue 13): notebooks built from an assignment's full_marks.ipynb by replacing
the cells that define some names, each with the outcome it must get.

A variants file (`tests/heldout/<slug>/variants.py`) is plain data:

    CORRECT = {name: {defined_name: cell_source, ...}}          # must score full marks
    WRONG = {name: ({defined_name: cell_source, ...}, {
        "key": "divide_by_dk" | None | ("a", None),   # the misconception every failed test must name
        "where": ["q5", "-q5:test_vectorised", "q6:test_weights3_causal"],
    })}                                               # the only questions / tests allowed to fail
                                                      # ("-": except this one)

`defined_name` picks the code cell of full_marks.ipynb that defines it at top level (`def` or
assignment); `cell_source` replaces that whole cell, so it must define everything the cell defined.
A wrong variant must lose points, only in `where`, and every failed test names `key` (None: names
no misconception; its message then says what differs)."""
from __future__ import annotations

import ast
import importlib.util
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[2]
from tests.conftest import SLUGS  # noqa: E402 - the course's assignments, from grading.yml
SEED = int(os.environ.get("HELDOUT_SEED", "2024"))   # the grading seed (any seed must do)


@dataclass(frozen=True)
class Variant:
    slug: str
    name: str
    cells: dict[str, str]
    correct: bool
    keys: tuple[Any, ...] = ()
    where: tuple[str, ...] = ()


@dataclass
class Outcome:
    variant: Variant
    score: float
    max_score: float
    failed: list[tuple[str, str, str | None, str]] = field(default_factory=list)  # (q, test, key, msg)
    status: str = "graded"

    @property
    def full_marks(self) -> bool:
        return self.status == "graded" and self.score == self.max_score

    @property
    def only_where(self) -> bool:
        """Points lost only in the questions/tests the mistake is in."""
        where = self.variant.where
        return all((q in where or f"{q}:{t}" in where) and f"-{q}:{t}" not in where
                   for q, t, _, _ in self.failed)

    @property
    def named_right(self) -> bool:
        return bool(self.failed) and all(k in self.variant.keys for _, _, k, _ in self.failed)

    @property
    def ok(self) -> bool:
        if self.variant.correct:
            return self.full_marks
        return self.status == "graded" and self.score < self.max_score and self.only_where and self.named_right

    def explain(self) -> str:
        v = self.variant
        head = f"{v.slug}/{v.name}: {self.status} {self.score:g}/{self.max_score:g}"
        if not v.correct:
            head += f" (expected key {v.keys}, only in {list(v.where)})"
        rows = [f"  {q}:{t} [{k}] {m[:160]!r}" for q, t, k, m in self.failed]
        return "\n".join([head, *rows])


def load_variants(slug: str) -> list[Variant]:
    path = ROOT / "tests" / "heldout" / slug / "variants.py"
    spec = importlib.util.spec_from_file_location(f"_heldout_{slug.replace('-', '_')}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = [Variant(slug, name, cells, True) for name, cells in mod.CORRECT.items()]
    for name, (cells, exp) in mod.WRONG.items():
        key = exp["key"]
        keys = key if isinstance(key, tuple) else (key,)
        out.append(Variant(slug, name, cells, False, keys, tuple(exp["where"])))
    return out


def _defines(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
    return names


def build_notebook(variant: Variant, out_dir: Path) -> Path:
    nb = nbformat.read(ROOT / "examples" / "submissions" / variant.slug / "full_marks.ipynb", as_version=4)
    for name, source in variant.cells.items():
        hits = [c for c in nb.cells if c.cell_type == "code" and name in _defines(c.source)]
        assert len(hits) == 1, f"{variant.slug}/{variant.name}: {len(hits)} cells define {name!r}"
        hits[0].source = source.strip("\n")
    path = out_dir / f"{variant.slug}__{variant.name}.ipynb"
    nbformat.write(nb, path)
    return path


def grade(grader: Any, variant: Variant, out_dir: Path, seed: int = SEED) -> Outcome:
    result = grader.grade(build_notebook(variant, out_dir), variant.slug, seed=seed)
    failed = [(t.question, t.name, t.misconception, t.message) for t in result.tests
              if t.status == "failed" and t.max_score > 0
              and not t.withheld_by]   # a rule's points waiting for a failed value case: charged there
    return Outcome(variant, result.score, result.max_score, failed, result.status)


def grade_cells(grader: Any, slug: str, cells: dict[str, str], name: str = "variant",
                seed: int = SEED) -> Outcome:
    """Grade full_marks with `cells` put in (a naming test's own wrong or right variant), in a folder of its own."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        return grade(grader, Variant(slug, name, cells, False), Path(tmp), seed)


def graded_as(slug: str, name: str) -> Callable[[Any, dict[str, str]], Outcome]:
    """A naming test's own grading, bound once a file: `_graded = graded_as(slug, name)`, then
    `_graded(grader, cells)` is grade_cells(grader, slug, cells, name)."""
    def graded(grader: Any, cells: dict[str, str]) -> Outcome:
        return grade_cells(grader, slug, cells, name)
    return graded


# --- what a naming test asserts of its own variant's outcome (tests/test_naming_*.py) ----------------------
Failure = tuple[str, str, str | None, str]   # a failed test: (question, test, key, message)


def assert_lost(outcome: Outcome) -> list[Failure]:
    """A wrong variant: graded, it lost points and at least one test failed. Returns the failed tests."""
    assert outcome.status == "graded", outcome.explain()
    assert outcome.failed and outcome.score < outcome.max_score, "a wrong variant lost no points\n" + outcome.explain()
    return outcome.failed


def failed_keys(outcome: Outcome) -> set[str | None]:
    """A wrong variant (assert_lost): the keys its failed tests name (for a near miss that keeps another name)."""
    return {k for _, _, k, _ in assert_lost(outcome)}


def assert_named(outcome: Outcome, key: str | None, where: str | Collection[str] | None = None, *,
                 also: Collection[str | None] = (), tests: int | None = None) -> list[Failure]:
    """A wrong variant named as `key` where the mistake is: it lost points (assert_lost); every failed test
    is in `where`, the question (a str) or questions the mistake is in (None: any question), and names
    `key` or one of `also` (keys allowed beside it), at least one of them `key`; `tests`: exactly this
    many failed tests. Returns the failed tests, for a caller's own checks of their messages."""
    failed = assert_lost(outcome)
    questions = {where} if isinstance(where, str) else None if where is None else set(where)
    outside = [f for f in failed if questions is not None and f[0] not in questions]
    assert not outside, f"a test failed outside {sorted(questions or ())}\n" + outcome.explain()
    assert all(k == key or k in also for _, _, k, _ in failed), f"a failed test does not name {key!r}\n" + outcome.explain()
    assert any(k == key for _, _, k, _ in failed), f"no failed test names {key!r}\n" + outcome.explain()
    if tests is not None:
        assert len(failed) == tests, f"{len(failed)} failed tests, not {tests}\n" + outcome.explain()
    return failed


def assert_full_marks(outcome: Outcome) -> None:
    """A right variant: graded, every point, no failed test."""
    assert outcome.status == "graded" and outcome.score == outcome.max_score and not outcome.failed, outcome.explain()


def summarise(outcomes: list[Outcome]) -> str:
    lines = []
    for slug in SLUGS:
        mine = [o for o in outcomes if o.variant.slug == slug]
        if not mine:
            continue
        good = [o for o in mine if o.variant.correct]
        bad = [o for o in mine if not o.variant.correct]
        lines.append(
            f"{slug}: {len(mine)} variants; correct with full marks {sum(o.full_marks for o in good)}/{len(good)}; "
            f"wrong that lose points {sum(o.score < o.max_score for o in bad)}/{len(bad)}, "
            f"only where the mistake is {sum(o.score < o.max_score and o.only_where for o in bad)}/{len(bad)}, "
            f"named correctly {sum(o.named_right for o in bad)}/{len(bad)}; "
            f"all of it {sum(o.ok for o in bad)}/{len(bad)}")
    return "\n".join(lines)


if __name__ == "__main__":   # python -m tests.heldout.harness [slug ...]: the table, and each miss
    import sys
    import tempfile

    from autograder.config import find_course
    from autograder.grading.grader import Grader

    slugs = sys.argv[1:] or SLUGS
    outcomes = []
    with Grader(find_course(ROOT)) as g, tempfile.TemporaryDirectory() as tmp:
        for slug in slugs:
            for v in load_variants(slug):
                o = grade(g, v, Path(tmp))
                outcomes.append(o)
                if not o.ok:
                    print(o.explain(), flush=True)
    print(summarise(outcomes))
