"""`autograder check`: the author's check of an assignment, one report naming every problem.

What it asks of an assignment, in the order it asks (docs/authoring.md's checklist):

- its files exist and grading.yml lists it;
- `student_template/<slug>.ipynb` is what `autograder assign` writes from the master today;
- the master's public checks, as the student's `grader.check("q1")` runs them (real otter, in a child
  process), all pass on `examples/submissions/<slug>/full_marks.ipynb`; a failing one is named with its
  question, its function and the line that failed;
- points agree: each question's `points` in the master (and a "(N points)" in its text) equal the sum
  of its hidden tests' points; hand-graded questions are those grading.yml lists, with its points;
- misconception texts: a key shared with another assignment (or the engine) has the same text, and
  every key expected.yml or a hidden file names has one;
- expected.yml lists full_marks.ipynb and at least 4 wrong examples that each name a misconception,
  and every example notebook in the folder;
- the reference, as a submission, passes every hidden test, at every seed, each test within a third of
  its time limits (a slower grading host must not fail right answers);
- the untouched template scores 0, at every seed;
- every example gets its expected score, and names its misconceptions, at every seed: a score that
  moves with the seed is an error naming the tests that moved.

Grading goes through the engine (`autograder.grading.grader.Grader`, one warm grader for the whole check;
examples side by side on its threads, as `batch` does in-process). The public checks run the author's
own notebook unsandboxed, as the author's Jupyter would: it is the course's file, not a student's."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

if TYPE_CHECKING:
    import ast

    from autograder.config import Course, Limits
    from autograder.grading.grader import Grader
    from autograder.grading.hidden import HiddenTestCase
    from autograder.results import SubmissionResult

# The seeds every example is graded at; 2024 first, the held-out harness's default seed too.
SEEDS = (2024, 7, 11)
MIN_WRONG_EXAMPLES = 4
PUBLIC_CHECKS_TIMEOUT_S = 600   # every cell of full_marks.ipynb and every public check, together
# How much slower than the author's machine a grading host may be (Gradescope's shared vCPUs, a loaded batch):
# a hidden test that takes more than 1/SLOW_HOST_FACTOR of a limit here fails right answers there (round 121)
SLOW_HOST_FACTOR = 3


def seeds(count: int) -> list[int]:
    """The seeds a check grades at: SEEDS first, then more (fixed, so a check can be rerun exactly)."""
    return [*SEEDS, *range(1000, 1000 + max(0, count - len(SEEDS)))][:max(1, count)]


@dataclass
class CheckReport:
    """One assignment's check: each problem a line that names it, and what was found to hold."""
    slug: str
    problems: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


# -- the master notebook, read as data ------------------------------------------------------------------

@dataclass(frozen=True)
class MasterQuestion:
    name: str
    points: Optional[float]       # the question config's `points` (None: not given)
    manual: bool
    stated_points: Optional[float]  # "(7 points)" in the question's first markdown cell, if it says so


def master_questions(master: Path) -> list[MasterQuestion]:
    """The questions of an otter-assign master, with the points each says it is worth."""
    import nbformat
    import yaml
    nb = nbformat.read(master, as_version=4)
    found: list[MasterQuestion] = []
    for i, cell in enumerate(nb.cells):
        text = cell.source.lstrip()
        if cell.cell_type != "raw" or not text.startswith("# BEGIN QUESTION"):
            continue
        conf = yaml.safe_load(text.split("\n", 1)[1] if "\n" in text else "") or {}
        stated = None
        for later in nb.cells[i + 1:]:
            if later.cell_type == "markdown":
                m = re.search(r"\((\d+(?:\.\d+)?) points?\)", later.source)
                stated = float(m.group(1)) if m else None
                break
            if later.cell_type == "raw" and later.source.lstrip().startswith("# END QUESTION"):
                break
        points = conf.get("points")
        found.append(MasterQuestion(name=str(conf.get("name", "")),
                                    points=float(points) if isinstance(points, (int, float)) else None,
                                    manual=bool(conf.get("manual", False)), stated_points=stated))
    return found


def points_problems(questions: Sequence[MasterQuestion], hidden_points: dict[str, float],
                    manual: Sequence[str], manual_points: dict[str, float]) -> list[str]:
    """The points of the master (what the student reads), of the hidden tests (what is scored) and of
    grading.yml (hand-graded questions) disagree: one line per disagreement."""
    # rounded as a result's total is (outcome.build_result): ten tests of 0.1 point summed to 0.9999999999999999 and a
    # master's `points: 1` was a problem, "worth 1 in the master, 1 in its hidden tests" (red-team round 105)
    hidden_points = {name: round(total, 6) for name, total in hidden_points.items()}
    problems = []
    in_master = {q.name for q in questions}
    for q in questions:
        if q.manual:
            if q.name not in manual:
                problems.append(f"points: {q.name} is `manual: true` in the master but not in grading.yml's "
                                f"manual list")
            given = manual_points.get(q.name)
            if q.points is not None and given is not None and q.points != given:
                problems.append(f"points: {q.name} is worth {q.points:g} in the master, {given:g} in "
                                f"grading.yml's manual_points")
            if q.name in hidden_points:
                problems.append(f"points: {q.name} is hand-graded (manual) but has hidden tests "
                                f"({hidden_points[q.name]:g} points)")
            continue
        scored = hidden_points.get(q.name)
        if scored is None:
            problems.append(f"points: {q.name} has no hidden tests (hidden/{q.name}.py): it scores nothing")
            continue
        if q.points is None:
            problems.append(f"points: {q.name} gives no `points` in the master; its hidden tests give {scored:g}")
        elif q.points != scored:
            problems.append(f"points: {q.name} is worth {q.points:g} in the master, {scored:g} in its hidden tests "
                            f"(the hidden tests' points are scored)")
        if q.stated_points is not None and q.stated_points != scored:
            problems.append(f"points: {q.name}'s text says {q.stated_points:g} points, its hidden tests give {scored:g}")
    for name, total in hidden_points.items():
        if name not in in_master:
            problems.append(f"points: hidden tests of {name} ({total:g} point{'s' if total != 1 else ''}) answer no "
                            "question of the master")
    for name in manual:
        if name not in in_master:
            problems.append(f"points: grading.yml's manual lists {name}, which the master has no question of")
    return problems


def file_points_problems(tests: Sequence["HiddenTestCase"]) -> list[str]:
    """A hidden file's own `points = N` (otter's total for the file) that is not the sum of its test
    cases' points: the engine scores the cases, so the file's line only misleads its reader."""
    import ast

    from autograder.grading.pyparse import parse
    by_file: dict[str, float] = {}
    for t in tests:
        by_file[t.file] = by_file.get(t.file, 0.0) + t.points
    problems = []
    for file, total in by_file.items():
        total = round(total, 6)   # as a result's total (ten cases of 0.1 point give 1, not 0.9999999999999999)
        tree = parse(Path(file).read_text(), filename=file)
        for node in tree.body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "points" for t in node.targets)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float))
                    and float(node.value.value) != total):
                problems.append(f"points: hidden/{Path(file).name} says points = {node.value.value:g}, its test cases "
                                f"give {total:g} (the test cases' points are scored)")
    return problems


# -- the student's side: public checks, run as a student runs them ---------------------------------------

def public_check_results(notebooks: Sequence[Path], tests: dict[str, str], slug: str,
                         timeout_s: float = PUBLIC_CHECKS_TIMEOUT_S) -> list[dict[str, Any]]:
    """Run each notebook's code cells, then `grader.check(q)` for every question of `tests` (otter's
    exception-format test files, as the template's metadata holds them), as a student's Run All does.
    Returns, per notebook, {"cells": [errors], "checks": [{question, test, passed, message}]}, or
    {"error": why} for every notebook when the child did not finish.

    Real otter (Notebook.check), not our reading of its files: what passes here passes for a student.
    In one child process for all of them (torch and otter imported once), each notebook in a fresh
    namespace, so nothing a notebook does stays in the grader's process or reaches the next notebook's
    names."""
    import nbformat
    with tempfile.TemporaryDirectory(prefix="autograder-check-") as tmp:
        paths: list[str] = []
        for index, notebook in enumerate(notebooks):
            nb = nbformat.read(notebook, as_version=4)
            nb.metadata.setdefault("otter", {})["tests"] = tests  # the master's checks of today, not the copy's
            folder = Path(tmp) / str(index)
            folder.mkdir()
            path = folder / f"{slug}.ipynb"   # otter finds its tests in the notebook it is given
            nbformat.write(nb, path)
            paths.append(str(path))
        out = Path(tmp) / "public-checks.json"
        cmd = [sys.executable, "-c", "from autograder.course.authoring import _public_checks_child; _public_checks_child()",
               str(out), *paths]
        try:
            proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return [{"error": f"the notebooks and their public checks took over {timeout_s:g} s"}] * len(paths)
        if not out.is_file():
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
            return [{"error": f"the public checks did not run (exit {proc.returncode}): {tail}"}] * len(paths)
        results: list[dict[str, Any]] = json.loads(out.read_text())
        return results


def _public_checks_child() -> None:  # pragma: no cover - runs in the child process
    out, notebooks = Path(sys.argv[1]), [Path(arg) for arg in sys.argv[2:]]
    import os

    import nbformat
    import otter

    from autograder.grading.intake import transform_ipython
    runs: list[dict[str, Any]] = []
    for notebook in notebooks:
        os.chdir(notebook.parent)  # as Jupyter runs a notebook: in its own folder
        nb = nbformat.read(notebook, as_version=4)
        ns: dict[str, Any] = {"__name__": "__main__"}
        cells: list[str] = []
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or "grader.check" in cell.source:
                continue  # the checks run below, one result each
            try:
                exec(compile(transform_ipython(cell.source), f"<cell {index}>", "exec"), ns)
            except Exception as e:  # noqa: BLE001 - named in the report; the next cells still run, as in Jupyter's Run All after a fix
                cells.append(f"cell {index} raises {type(e).__name__}: {str(e)[:300]}")
        grader = otter.Notebook(str(notebook))
        checks: list[dict[str, Any]] = []
        for question in nb.metadata["otter"]["tests"]:
            try:
                result = grader.check(question, ns)
            except Exception as e:  # noqa: BLE001 - a check file that does not even load is named too
                checks.append({"question": question, "test": "(the check file)", "passed": False,
                               "message": f"{type(e).__name__}: {e}"})
                continue
            for case in result.test_case_results:
                func = getattr(case.test_case.body, "test_func", None)
                checks.append({"question": question, "test": getattr(func, "__name__", case.test_case.name),
                               "passed": bool(case.passed), "message": case.message or ""})
        runs.append({"cells": cells, "checks": checks})
    out.write_text(json.dumps(runs))


def describe_failed_check(check: dict[str, Any], master_cells: Sequence[str]) -> str:
    """`q1 test_q1_worked_weights (master cell 11), line 7: assert ... -> AssertionError: ...`: otter's
    message carries the line of the generated test file; the master cell is where the author edits."""
    message = str(check["message"]).replace("❌ Test case failed\n", "")
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    where = ""
    m = re.match(r"Error at line (\d+) in test [^:]*:", lines[0]) if lines else None
    if m:
        source = lines[1] if len(lines) > 1 else ""
        error = lines[-1] if len(lines) > 2 else ""
        where = f", line {m.group(1)} of the check: {source} -> {error}"
    else:
        where = f": {' '.join(lines)[:300]}"
    cell = next((i for i, text in enumerate(master_cells) if f"def {check['test']}(" in text), None)
    in_master = f" (master cell {cell})" if cell is not None else ""
    return f"public check {check['question']} {check['test']}{in_master} fails on full_marks.ipynb{where}"


# -- grading: the reference, the template, the examples, at several seeds --------------------------------

def _tests_that_moved(results: dict[int, "SubmissionResult"]) -> list[str]:
    """`q5:test_float16 (1/0/1)`: each test whose score is not the same at every seed."""
    scores: dict[str, dict[int, float]] = {}
    for seed, result in results.items():
        for t in result.tests:
            scores.setdefault(f"{t.question}:{t.name}" + (f"[{t.device}]" if t.device not in (None, "cpu") else ""),
                              {})[seed] = t.score
    return [f"{key} ({'/'.join(f'{s:g}' for s in by_seed.values())})"
            for key, by_seed in scores.items() if len(set(by_seed.values())) > 1]


def example_problems(name: str, row: dict[str, Any], results: dict[int, "SubmissionResult"]) -> list[str]:
    """An example graded at several seeds against its expected.yml row."""
    where = f"examples: {name}"
    bad = [f"{r.status} at seed {seed}: {r.message[:200]}" for seed, r in results.items() if r.status != "graded"]
    if bad:
        return [f"{where} was not graded: {bad[0]}"]
    problems = []
    by_seed = {seed: r.score for seed, r in results.items()}
    moved = _tests_that_moved(results)
    if moved:  # a test's score moving is an error even where the total happens to stay
        shown = ", ".join(f"{score:g} at seed {seed}" for seed, score in by_seed.items())
        problems.append(f"{where}: the score moves with the seed ({shown}); tests that moved: " + ", ".join(moved))
    expected = float(row.get("score", -1))
    off = {seed: s for seed, s in by_seed.items() if abs(s - expected) > 1e-9}
    if off:
        failed = [f"{t.question}:{t.name}" for t in next(iter(results.values())).tests if t.status == "failed"]
        problems.append(f"{where} scores {', '.join(f'{s:g} (seed {seed})' for seed, s in off.items())}, "
                        f"expected.yml says {expected:g}; failed: {', '.join(failed[:12]) or 'none'}")
    for seed, r in results.items():
        missing = sorted(set(row.get("misconceptions") or []) - set(r.misconceptions))
        if missing:
            problems.append(f"{where} at seed {seed}: the feedback does not name {', '.join(missing)} "
                            f"(it names {', '.join(dict.fromkeys(r.misconceptions)) or 'none'})")
            break
    first = next(iter(results.values()))
    if name == "full_marks.ipynb" and first.score != first.max_score:
        problems.append(f"{where} scores {first.score:g} of {first.max_score:g}: full marks must be the maximum")
    if name != "full_marks.ipynb" and first.score >= first.max_score:
        problems.append(f"{where} scores the maximum ({first.max_score:g}): a wrong example must lose points")
    return problems


# -- one assignment ----------------------------------------------------------------------------------

def check_assignment(grader: "Grader", slug: str, *, seed_list: Sequence[int], jobs: int = 2,
                     say: Callable[[str], None] = lambda line: None) -> CheckReport:
    """Every rule of the module docstring for `slug`, graded with `grader` (warm, shared with the
    other assignments of the check). Problems are named, never raised: one report tells all."""
    import nbformat
    import yaml

    from autograder.errors import GraderError
    start = time.perf_counter()
    report = CheckReport(slug)
    course = grader.course
    root = course.root
    examples = root / "examples" / "submissions" / slug
    master = root / "assignments" / slug / f"{slug}.ipynb"
    template = root / "student_template" / f"{slug}.ipynb"
    reference = root / "reference" / f"{slug.replace('-', '_')}.py"

    def problem(line: str) -> None:
        report.problems.append(line)
        say(f"  FAIL {line}")

    def ok(line: str) -> None:
        report.passed.append(line)
        say(f"  ok   {line}")

    # files
    try:
        course.assignment_dir(slug)
    except GraderError as e:
        problem(f"files: {e}")
        return _done(report, start)
    missing = [p for p in (master, template, reference, examples / "expected.yml", examples / "full_marks.ipynb")
               if not p.is_file()]
    for p in missing:
        problem(f"files: no {p.relative_to(root)}")
    try:
        tests = grader.tests(slug)
        grader.specs(slug)          # grading.yml's visible_tests name real tests
        texts = grader.misconceptions(slug)
    except GraderError as e:
        problem(f"hidden tests: {e}")
        return _done(report, start)
    for line in import_problems(course, slug):
        problem(line)
    if master in missing:
        return _done(report, start)

    # the template and the public checks
    public: dict[str, str] = {}
    try:
        from autograder.course.assign import build_template
        built = build_template(course, slug)
        public = dict(built.metadata.get("otter", {}).get("tests", {}))
        if template.is_file() and nbformat.writes(built) != nbformat.writes(nbformat.read(template, as_version=4)):
            problem(f"template: {template.relative_to(root)} is not what the master gives today: run "
                    f"`autograder assign {slug}` and commit it")
        elif template.is_file():
            ok(f"template: {template.relative_to(root)} is what `autograder assign {slug}` writes")
    except GraderError as e:
        problem(f"template: {e}")
    if public and (examples / "full_marks.ipynb").is_file():
        # full_marks.ipynb must pass every public check; the untouched template must fail at least one
        # check of every question (a check that passes on a stub tells the student nothing)
        notebooks = [examples / "full_marks.ipynb"] + ([template] if template.is_file() else [])
        ran, *on_template = public_check_results(notebooks, public, slug)
        master_cells = [c.source for c in nbformat.read(master, as_version=4).cells]
        if "error" in ran:
            problem(f"public checks: {ran['error']}")
        for cell_error in ran.get("cells", []):
            problem(f"public checks: full_marks.ipynb {cell_error}")
        failed = [c for c in ran.get("checks", []) if not c["passed"]]
        for check in failed:
            problem(describe_failed_check(check, master_cells))
        if "checks" in ran and not failed:
            ok(f"public checks: {len(ran['checks'])} checks in {len(public)} questions pass on full_marks.ipynb")
        for stub in on_template:
            if "error" in stub:
                problem(f"public checks: on the template: {stub['error']}")
                continue
            passing = [q for q in public if all(c["passed"] for c in stub["checks"] if c["question"] == q)]
            for question in passing:
                problem(f"public checks: every check of {question} passes on the untouched template, so they "
                        f"tell a student nothing; check a value the stub cannot give")
            if not passing:
                ok(f"public checks: each of the {len(public)} questions fails a check on the untouched template")
    elif not public:
        problem("public checks: the master has none (a `# BEGIN TESTS` cell in each question)")

    # points
    hidden_points: dict[str, float] = {}
    for t in tests:
        hidden_points[t.question] = hidden_points.get(t.question, 0.0) + t.points
    settings = course.settings(slug)
    found = points_problems(master_questions(master), hidden_points, settings.manual, settings.manual_points)
    found += file_points_problems(tests)
    for line in found:
        problem(line)
    if not found:
        ok(f"points: master, hidden tests and grading.yml agree ({grader.max_score(slug):g} autograded)")

    # misconceptions
    before = len(report.problems)
    for line in misconception_problems(grader, slug, texts, examples):
        problem(line)
    if len(report.problems) == before:
        ok(f"misconceptions: {len(texts)} texts, shared keys said the same way everywhere")

    # the examples listed
    rows: dict[str, dict[str, Any]] = {}
    if (examples / "expected.yml").is_file():
        rows = yaml.safe_load((examples / "expected.yml").read_text()) or {}
        before = len(report.problems)
        for line in examples_listed_problems(rows, examples):
            problem(line)
        if len(report.problems) == before:
            ok(f"examples: full_marks.ipynb and {len(rows) - 1} wrong examples, each naming its misconception")

    # the reference, as a submission, at every seed
    _check_reference(grader, slug, reference, seed_list, problem, ok)

    # the template and every example at every seed, side by side on the grader's threads
    work = [(template, seed) for seed in seed_list if template.is_file()]
    work += [(examples / name, seed) for name in rows if (examples / name).is_file() for seed in seed_list]
    graded = _grade_all(grader, slug, work, jobs)
    if template.is_file():
        nonzero = {seed: r for (p, seed), r in graded.items() if p == template and (r.score or r.status != "graded")}
        for seed, r in nonzero.items():
            scored = [f"{t.question}:{t.name}" for t in r.tests if t.score]
            problem(f"template: the untouched template scores {r.score:g} at seed {seed} ({r.status}); "
                    f"tests that give points: {', '.join(scored[:12]) or 'none'}")
            break
        if not nonzero:
            ok(f"template: scores 0 at seeds {', '.join(map(str, seed_list))}")
    before = len(report.problems)
    for name, row in rows.items():
        results = {seed: r for (p, seed), r in graded.items() if p == examples / name}
        if results:
            for line in example_problems(name, row, results):
                problem(line)
    if rows and len(report.problems) == before:
        ok(f"examples: all {len(rows)} score as expected.yml says at seeds {', '.join(map(str, seed_list))}")
    return _done(report, start)


def _done(report: CheckReport, start: float) -> CheckReport:
    report.seconds = time.perf_counter() - start
    return report


def _check_reference(grader: "Grader", slug: str, reference: Path, seed_list: Sequence[int],
                     problem: Callable[[str], None], ok: Callable[[str], None]) -> None:
    import importlib

    from autograder.grading.runner import TrustedNamespace, run_tests
    if not reference.is_file():
        return
    try:
        module = importlib.import_module("reference." + slug.replace("-", "_"))
    except Exception as e:  # noqa: BLE001 - the author's file: say why it does not import
        problem(f"reference: reference/{reference.name} does not import: {type(e).__name__}: {e}")
        return
    forbidden = grader.course.settings(slug).forbidden_apis
    limits = grader.course.config.limits
    failures = []
    slowest: dict[tuple[str, str], float] = {}
    total = 0.0
    for seed in seed_list:
        reports = run_tests(grader.tests(slug), TrustedNamespace(dict(vars(module)), forbidden), seed=seed,
                            misconceptions=grader.misconceptions(slug), check_cpu_s=limits.check_cpu_s)
        failures += [f"{r.question}:{r.name} at seed {seed}: {r.message[:200]}" for r in reports if r.status != "passed"]
        for r in reports:
            slowest[(r.question, r.name)] = max(slowest.get((r.question, r.name), 0.0), r.duration_s)
        total = max(total, sum(r.duration_s for r in reports))
    for line in failures[:20]:
        problem(f"reference: as a submission it fails {line}")
    for line in slow_test_problems(grader.tests(slug), slowest, total, limits):
        problem(line)
    if not failures:
        ok(f"reference: passes all {len(grader.tests(slug))} hidden tests at seeds {', '.join(map(str, seed_list))}")


def slow_test_problems(tests: Sequence["HiddenTestCase"], slowest: dict[tuple[str, str], float], total: float,
                       limits: "Limits") -> list[str]:
    """Hidden tests too slow for a slower host: each test's seconds here (its slowest seed, the reference's calls
    included) against the smallest limit that bounds it, and all tests together against the submission's. A test
    at half its limit passed every check on the author's machine and failed right answers on a host twice as
    slow (red-team round 121: 1.6 s of a 3 s check_cpu_s, full_marks.ipynb 41 / 42 at 1.5 s)."""
    # its own checks are bounded by check_cpu_s (0: none), each call into the student's code by call_timeout_s:
    # the reference's calls run in this process here, so the test's time is held to the smaller of the two
    per_test = min(x for x in (limits.check_cpu_s, limits.call_timeout_s) if x > 0)
    problems = []
    for t in tests:
        seconds = slowest.get((t.question, t.name), 0.0)
        if seconds * SLOW_HOST_FACTOR > per_test:
            line = getattr(getattr(t.func, "__code__", None), "co_firstlineno", 0)
            problems.append(f"limits: hidden test {t.question}:{t.name} ({Path(t.file).name}, line {line}) takes "
                            f"{seconds:.1f} s here, over 1/{SLOW_HOST_FACTOR} of its limit ({per_test:g} s: "
                            f"limits.check_cpu_s and call_timeout_s): on a slower grading host it fails right "
                            f"answers; make its inputs smaller or raise the limit in grading.yml")
    if total * SLOW_HOST_FACTOR > limits.submission_timeout_s:
        problems.append(f"limits: the hidden tests take {total:.1f} s together here, over 1/{SLOW_HOST_FACTOR} of "
                        f"limits.submission_timeout_s ({limits.submission_timeout_s:g} s): on a slower grading host "
                        f"right submissions time out")
    return problems


def _grade_all(grader: "Grader", slug: str, work: list[tuple[Path, int]], jobs: int) -> dict[tuple[Path, int], "SubmissionResult"]:
    import torch
    torch.set_num_threads(1)  # parallelism comes from grading side by side, as batch does
    grader.warm_up()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
        futures = {key: threads.submit(grader.grade_or_fail, key[0], slug, key[1]) for key in work}
        return {key: fut.result() for key, fut in futures.items()}


def misconception_problems(grader: "Grader", slug: str, texts: dict[str, str], examples: Path) -> list[str]:
    """A key this assignment shares with another (or with the engine's own) is said the same way; every
    key expected.yml or a hidden file names literally has a text."""
    import yaml

    from autograder.grading import checks
    from autograder.errors import GraderError
    problems = []
    for key, text in texts.items():
        if key in checks.MISCONCEPTIONS and checks.MISCONCEPTIONS[key] != text:
            problems.append(f"misconceptions: {key} says otherwise than the engine's own text (autograder/grading/checks.py)")
    differs: dict[str, list[tuple[str, str]]] = {}   # key -> [(other assignment, its text)]
    for other in grader.course.config.assignments:
        if other == slug:
            continue
        try:
            theirs = grader.misconceptions(other)
        except GraderError:
            continue  # that assignment's own check names it
        for key in sorted(set(texts) & set(theirs)):
            if texts[key] != theirs[key]:
                differs.setdefault(key, []).append((other, theirs[key]))
    for key, others in differs.items():
        problems.append(f"misconceptions: {key} is said differently in {', '.join(o for o, _ in others)} "
                        f"({others[0][1][:160]!r}): a key shared by assignments has one text (or take a new key)")
    named = named_in_hidden(grader.course.assignment_dir(slug) / "hidden")
    if (examples / "expected.yml").is_file():
        for row in (yaml.safe_load((examples / "expected.yml").read_text()) or {}).values():
            named |= set((row or {}).get("misconceptions") or [])
    for key in sorted(named - set(texts) - set(checks.MISCONCEPTIONS)):
        problems.append(f"misconceptions: {key} is named but has no text in hidden/_misconceptions.py")
    return problems


def _runtime_distributions() -> Optional[set[str]]:
    """The distributions Gradescope's image holds (setup.sh pip-installs this package and so its dependencies,
    never its extras), normalised; None where this package is not installed as a distribution (from source)."""
    import importlib.metadata as metadata
    mine = metadata.packages_distributions().get("autograder")
    if not mine:
        return None
    seen: set[str] = set()
    todo = list(mine)
    while todo:
        dist = todo.pop()
        key = re.sub(r"[-_.]+", "-", dist).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = metadata.requires(dist) or []
        except metadata.PackageNotFoundError:
            continue
        for spec in requires:
            name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec)
            if name and "extra ==" not in spec.replace('"', "").replace("'", ""):
                todo.append(name.group(0))
    return seen


def _is_type_checking(test: "ast.expr") -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING` (any module's attribute of that name): False whenever the file runs."""
    import ast
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_problems(course: "Course", slug: str) -> list[str]:
    """A hidden file (or a reference module its tests import) importing a module the grading environment lacks:
    the author's venv has the dev tools (pytest, jsonschema, ...) and whatever else they installed, Gradescope's
    image only this package's dependencies, so `import pytest` passed every check here and failed every
    student's grade there (red-team round 121). Imports are read, never run; the standard library, the
    engine, `reference` and the assignment's own helper files are always there."""
    import ast
    import importlib.metadata as metadata

    from autograder.course.gradescope import reference_files
    from autograder.errors import GraderError
    from autograder.grading.pyparse import parse
    runtime = _runtime_distributions()
    if runtime is None:
        return []
    hidden = course.assignment_dir(slug) / "hidden"
    try:
        files = sorted(hidden.glob("*.py")) + reference_files(course, slug)
    except GraderError as e:
        return [f"imports: {e}"]
    own = {p.stem for p in files} | {"autograder", "reference", "__future__"}
    provided = metadata.packages_distributions()
    problems = []
    for path in files:
        tree = parse(path.read_text(), filename=str(path))
        # `try: import scipy` / `except ImportError:` is an import the file does without
        guarded = {id(inner) for t in ast.walk(tree) if isinstance(t, ast.Try) and any(
                   h.type is None or any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError", "Exception")
                                         for n in ast.walk(h.type)) for h in t.handlers)
                   for stmt in t.body for inner in ast.walk(stmt)}
        # `if TYPE_CHECKING:` never runs: an import there for a type hint (pytest's fixtures) is none (round 123)
        guarded |= {id(inner) for t in ast.walk(tree) if isinstance(t, ast.If) and _is_type_checking(t.test)
                    for stmt in t.body for inner in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in guarded:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in own or top in sys.stdlib_module_names:
                    continue
                dists = provided.get(top, [])
                if any(re.sub(r"[-_.]+", "-", d).lower() in runtime for d in dists):
                    continue
                where = f"{path.relative_to(course.root)}, line {node.lineno}"
                problems.append(f"imports: {where} imports {top}, which the grading environment does not install "
                                f"({'not installed here either' if not dists else 'here from ' + ', '.join(dists)}; "
                                f"Gradescope's image has only this package's dependencies): every grade there "
                                f"would fail")
    return problems


def named_in_hidden(hidden: Path) -> set[str]:
    """Keys a hidden file names literally: Misconception("key", ...), key="key", wrong={...: "key"}."""
    import ast

    from autograder.grading.pyparse import parse
    keys: set[str] = set()
    for path in sorted(hidden.glob("*.py")):
        if path.name.startswith("_"):
            continue
        for node in ast.walk(parse(path.read_text(), filename=str(path))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Misconception" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                keys.add(node.args[0].value)
            if isinstance(node, ast.keyword) and node.arg in ("key", "wrong"):
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    keys.add(node.value.value)
                if isinstance(node.value, ast.Dict):
                    keys |= {v.value for v in node.value.values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    return {k.split("/")[0] for k in keys}


def examples_listed_problems(rows: dict[str, Any], examples: Path) -> list[str]:
    problems = []
    if "full_marks.ipynb" not in rows:
        problems.append("examples: expected.yml has no full_marks.ipynb row")
    wrong = [n for n, r in rows.items() if n != "full_marks.ipynb" and (r or {}).get("misconceptions")]
    if len(wrong) < MIN_WRONG_EXAMPLES:
        problems.append(f"examples: {len(wrong)} wrong examples name a misconception; at least "
                        f"{MIN_WRONG_EXAMPLES} must (one notebook per mistake, named after it)")
    for name, row in rows.items():
        if not (examples / name).is_file():
            problems.append(f"examples: expected.yml lists {name}, which is not in {examples.name}/")
        elif not isinstance(row, dict) or not isinstance(row.get("score"), (int, float)):
            problems.append(f"examples: {name}'s row in expected.yml needs a `score`")
    for path in sorted(examples.glob("*.ipynb")):
        if path.name not in rows:
            problems.append(f"examples: {path.name} has no row in expected.yml, so nothing checks it")
    return problems


# -- the command -----------------------------------------------------------------------------------

def check_course(course: "Course", slugs: Optional[Sequence[str]] = None, *, seed_count: int = len(SEEDS),
                 jobs: int = 2, say: Callable[[str], None] = print) -> list[CheckReport]:
    """`autograder check`: each assignment of `slugs` (all grading.yml lists, when None), one warm grader
    for all. Prints as it goes through `say`; the reports say what failed."""
    from autograder.grading.grader import Grader
    chosen = list(slugs) if slugs else list(course.config.assignments)
    for slug in chosen:
        if slug not in course.config.assignments:
            course.assignment_dir(slug)   # an unknown slug stops the check before anything starts, named
    seed_list = seeds(seed_count)
    reports = []
    with Grader(course) as grader:
        for slug in chosen:
            say(f"{slug}:")
            reports.append(check_assignment(grader, slug, seed_list=seed_list, jobs=jobs, say=say))
            r = reports[-1]
            say(f"{slug}: {'ok' if r.ok else f'{len(r.problems)} problem(s)'} ({r.seconds:.0f} s)")
    return reports
