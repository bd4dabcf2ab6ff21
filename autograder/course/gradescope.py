"""Gradescope: build the autograder zip, and grade inside Gradescope's container.

Zip layout (Gradescope unpacks it into /autograder/source):
    setup.sh, run_autograder      at the root, as Gradescope requires
    course/                       grading.yml, assignments/<slug>/, reference/, student_template/
    package/                      this package's source, installed by setup.sh
"""
from __future__ import annotations

import ast
import json
import os
import stat
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Optional

from autograder.config import Course, find_course
from autograder.course.atomic import replaced_whole, write_atomic
from autograder.course.exports import ExportLimits, NotebookRule, defers_to_zips, hidden_name, walk_files
from autograder.course.exports import _choose as choose_submission_file
from autograder.errors import GraderError, SubmissionError
from autograder.grading.pyparse import parse
from autograder.text import shown_name
from autograder.course.unpack import (MAX_MEMBER_DEPTH, MAX_UNZIP_BYTES, MAX_ZIP_MEMBERS, MAX_ZIPS,
                                      check_zip_directory, check_zip_members, safe_extract)

SETUP_SH = r"""#!/usr/bin/env bash
# Runs once when the Gradescope image is built. Everything is installed now; nothing at grading time.
set -euo pipefail
SRC=/autograder/source
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-pip libseccomp2 bubblewrap >/dev/null
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q --upgrade pip
# torch pinned (the version the hidden tests were calibrated with), in the build for this machine:
# the CPU build (PyTorch's CPU index) unless nvidia-smi exists. Where that index is unreachable, pip's
# own index is used only if it would not bring the CUDA build (see the script). Override: TORCH=cpu|cuda,
# TORCH_INDEX_URL=...
sh "$SRC/package/autograder/install_torch.sh" /autograder/venv/bin/pip "torch==2.13.0"
/autograder/venv/bin/pip install -q "$SRC/package"
# Student code runs as this unprivileged user (the fallback sandbox: bwrap rarely works here).
# It must neither read the course nor write the results: both are root-only.
id -u ag-student >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin ag-student
mkdir -p /autograder/results
chmod -R go-rwx "$SRC" /autograder/results
chmod 700 /autograder/source /autograder/results
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope calls this for every submission. AUTOGRADER_ROOT (default /autograder) lets a test
# rehearse the whole thing under a temporary folder; AUTOGRADER_PYTHON picks the interpreter.
# Whatever happens, Gradescope gets a results.json: when the grader itself fails, one that says it is
# the autograder's problem, not the student's (written by the grader, or below if Python never ran).
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PY="${AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}"
RESULTS="$ROOT/results/results.json"
if id -u ag-student >/dev/null 2>&1; then
  export AUTOGRADER_SANDBOX_UID="$(id -u ag-student)" AUTOGRADER_SANDBOX_GID="$(id -g ag-student)"
fi
rm -f "$RESULTS"
# -I: only what is installed is imported, never a file of the submission's or of the working folder
cd / && "$PY" -I -m autograder.cli gradescope-run --root "$ROOT" --slug "__SLUG__"
rc=$?
if [ ! -s "$RESULTS" ]; then
  mkdir -p "$ROOT/results"
  cat > "$RESULTS" <<JSON
{"score": 0, "execution_time": 0, "output": "__FAILED_TEXT__", "visibility": "visible", "stdout_visibility": "hidden", "tests": [],
 "extra_data": {"autograder_error": "the grader exited with status $rc before writing any results (see the autograder output)"}}
JSON
  [ "$rc" = 0 ] && rc=1
fi
exit "$rc"
"""

# What a student reads when the grader itself failed: never their fault, and it says what to do.
AUTOGRADER_FAILED = ("The autograder could not grade this submission. This is a problem with the autograder, "
                     "not with your work, and your score here does not count: please tell your course staff "
                     "(they can see the reason) and resubmit once they say it is fixed.")


def _reference_imports(source: str, path: Path, package_relative: bool) -> set[str] | None:
    """Names of the `reference` modules a file imports (`from reference import x`, `from reference.x
    import ...`, `import reference.x`; in a reference module also `from . import x`, `from .x import`).
    None when it imports the package as a whole (`import reference`): then every module may be used."""
    try:
        tree = parse(source, filename=str(path))
    except SyntaxError as e:
        raise GraderError(f"{path} is not valid Python: {e.msg} (line {e.lineno})") from None
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "reference":
                    if len(parts) == 1:
                        return None
                    names.add(parts[1])
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            parts = module.split(".") if module else []
            if node.level == 0 and parts[:1] == ["reference"]:
                if len(parts) > 1:
                    names.add(parts[1])
                else:
                    names.update(a.name for a in node.names if a.name != "*")
                    if any(a.name == "*" for a in node.names):
                        return None
            elif node.level == 1 and package_relative:
                if parts:
                    names.add(parts[0])
                else:
                    names.update(a.name for a in node.names)
    return names


def reference_files(course: Course, slug: str) -> list[Path]:
    """The reference modules an assignment's hidden tests import, directly or through each other,
    plus the package's __init__.py: only these travel in its zip (another assignment's reference is
    as secret as its hidden tests)."""
    ref = course.root / "reference"
    every = sorted(p for p in ref.glob("*.py") if p.name != "__init__.py")
    wanted: set[str] = set()
    for path in sorted((course.assignment_dir(slug) / "hidden").glob("*.py")):
        names = _reference_imports(path.read_text(), path, package_relative=False)
        if names is None:
            return sorted(ref.glob("*.py"))
        wanted |= names
    if (ref / "__init__.py").is_file():  # always imported first: what it imports is needed too
        names = _reference_imports((ref / "__init__.py").read_text(), ref / "__init__.py", package_relative=True)
        if names is None:
            return sorted(ref.glob("*.py"))
        wanted |= names
    todo, seen = list(wanted), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = ref / f"{name}.py"
        if not path.is_file():
            if (ref / name).is_dir():
                raise GraderError(f"reference/{name}/ is a package: the Gradescope zip carries only "
                                  "reference/*.py modules")
            raise GraderError(f"assignment '{slug}' imports reference.{name}, which does not exist")
        names = _reference_imports(path.read_text(), path, package_relative=True)
        if names is None:
            return sorted(ref.glob("*.py"))
        todo.extend(names - seen)
    init = [ref / "__init__.py"] if (ref / "__init__.py").is_file() else []
    return init + [p for p in every if p.stem in seen]


def check_visible_tests(course: Course, slug: str) -> None:
    """Every entry of the assignment's `visible_tests` names one of its questions or tests (ConfigError,
    naming the entry, otherwise): checked when the zip is built, before anything is uploaded."""
    visible = course.settings(slug).visible_tests
    if not visible:
        return
    from autograder.grading.hidden import load_hidden_tests
    from autograder.grading.outcome import TestSpec, visible_specs
    cases = load_hidden_tests(course.assignment_dir(slug) / "hidden", course.root)
    visible_specs([TestSpec.of(c) for c in cases], visible, slug)


def build_zip(course: Course, slug: str, out: Path) -> Path:
    adir = course.assignment_dir(slug)
    check_visible_tests(course, slug)
    from autograder.grading.grader import check_forbidden_apis
    check_forbidden_apis(course, slug)  # a typo'd entry forbids nothing: said before anything is uploaded
    pkg_src = Path(__file__).resolve().parent.parent  # the whole package
    project = pkg_src.parent
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    # whole or not at all: a second build into this -o, or a kill, never leaves a zip mixed or cut (red-team round 112)
    with replaced_whole(out) as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as z:
        def add_file(path: Path, arc: str, mode: int = 0o644) -> None:
            info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, path.read_bytes())

        def add_text(text: str, arc: str, mode: int = 0o644) -> None:
            info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)

        def add_tree(root: Path, arc: str) -> None:
            for p in sorted(root.rglob("*")):
                if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pyc"):
                    add_file(p, f"{arc}/{p.relative_to(root).as_posix()}")

        add_text(SETUP_SH, "setup.sh", 0o755)
        add_text(RUN_AUTOGRADER.replace("__SLUG__", slug).replace("__FAILED_TEXT__", AUTOGRADER_FAILED),
                 "run_autograder", 0o755)
        # Only this assignment's settings travel: other assignments' hidden tests stay home.
        import yaml
        # only what grading.yml says (exclude_unset): defaults filled in would override the course's
        # own values where settings merge (an assignment's late_policy over the course's)
        cfg = course.config.model_dump(mode="json", exclude_unset=True)
        # the others by name only, settings left out: a notebook whose metadata names one is rejected as another
        # assignment's (Grader.grade), as `grade` and `batch` reject it; with this one alone it was graded there, a
        # row of "not defined" per test (red-team round 97)
        cfg["assignments"] = {name: (settings if name == slug else {}) for name, settings in cfg["assignments"].items()}
        add_text(yaml.safe_dump(cfg, sort_keys=False), "course/grading.yml")
        add_tree(adir, f"course/assignments/{slug}")
        carried_reference = reference_files(course, slug)
        for p in carried_reference:
            add_file(p, f"course/reference/{p.name}")
        # the course-root modules the hidden tests and this reference import (`from course_answers import ANSWER`):
        # `grade` and `batch` load them from the course root, and without them every Gradescope submission was "the
        # autograder could not grade this" (red-team round 97). One already carried (an assignment's folder) is not
        # written twice.
        from autograder.course.fingerprint import course_module_files
        carried = set(z.namelist())
        for rel, p in course_module_files(course.root, adir / "hidden", carried_reference):
            if f"course/{rel}" not in carried:
                add_file(p, f"course/{rel}")
        add_tree(pkg_src, "package/autograder")
        add_file(project / "pyproject.toml", "package/pyproject.toml")
    return out


# --- grading inside the container ------------------------------------------------------------------
def _submitted(path: Path, root: Path) -> bool:
    """Whether a file under `root` is the student's own, by the rule a batch's class folder uses (exports.hidden_name:
    a Finder zip's __MACOSX/._name.ipynb beside the notebook had made it "several notebooks", 0 points: red-team
    round 50), checkpoints aside."""
    parts = path.relative_to(root).parts
    return ".ipynb_checkpoints" not in parts and not any(hidden_name(part) for part in parts)


# One student's submission folder, read level by level: wider than a class folder's walk (a repository's venv/ or
# node_modules/ beside the notebook holds thousands of files), as deep as an unpacked zip may go (unpack.MAX_MEMBER_DEPTH)
GRADESCOPE_WALK = ExportLimits(folder_files=50_000, folder_depth=MAX_MEMBER_DEPTH)


def find_notebook(submission_dir: Path, slug: str, scratch: Path) -> tuple[Optional[Path], str]:
    """The submitted notebook: the .ipynb alone, in a folder, or in a zip. (path, problem). The folders are read
    as a batch reads a student's folder (exports.walk_files: iterative, bounded in depth and count), never with
    Path.rglob, which recursed once per level: 1200 nested folders beside the notebook were a RecursionError in
    the trusted process, told to the student as the autograder's own failure (red-team round 58)."""
    files, stopped = walk_files(submission_dir, GRADESCOPE_WALK, skip_hidden=False, breadth_first=True, say_depth=True)
    chosen, kind, candidates = _chosen(files, submission_dir, slug)
    own = [(p.relative_to(submission_dir).as_posix(), p) for p in files if _submitted(p, submission_dir)]
    fallback = chosen if chosen is not None and defers_to_zips(chosen, own, slug, NotebookRule()) else None
    if kind == "no_notebook" or fallback is not None:
        zips = [p for p in files if p.name.endswith(".zip")]
        budget = MAX_UNZIP_BYTES
        for i, zp in enumerate(zips[:MAX_ZIPS]):
            # A fresh folder the grader names: the zip's own name ("...zip" has the stem "..") is never a path.
            dest = Path(tempfile.mkdtemp(prefix=f"zip{i}-", dir=scratch))
            try:
                check_zip_directory(zp, MAX_ZIP_MEMBERS)   # before zipfile builds its whole directory
                with zipfile.ZipFile(zp) as z:
                    check_zip_members(z.infolist())  # two members that would be one file: none is chosen
                budget -= safe_extract(zp, dest, max_bytes=budget)
            except SubmissionError as e:
                return (fallback, "") if fallback is not None else (None, f"in {shown_name(zp)}: {e}")
            except Exception as e:  # noqa: BLE001 - every byte of it is the student's: a bad zip is their problem
                return (fallback, "") if fallback is not None else (None, f"could not open {shown_name(zp)}: {str(e)[:200]}")
        unzipped, stopped_in_zip = walk_files(scratch, GRADESCOPE_WALK, skip_hidden=False, breadth_first=True,
                                              say_depth=True)
        stopped = stopped or stopped_in_zip
        chosen, kind, candidates = _chosen(unzipped, scratch, slug)
        if chosen is None and kind == "no_notebook" and fallback is not None:  # the zips hold none: the lone .py
            return fallback, ""
    if chosen is not None:
        return chosen, ""
    if not candidates and stopped:
        return None, f"no notebook found in your submission (its folders were read only in part: {stopped}): " \
                     f"please submit {slug}.ipynb at the top of it"
    if not candidates:
        return None, f"no notebook found in your submission: please submit {slug}.ipynb"
    # case-insensitive: toy.ipynb beside TOY.ipynb is two candidates, and neither is chosen
    names = ", ".join(sorted(shown_name(p) for p in candidates)[:5])
    return None, f"found several notebooks ({names}) and none named {slug}.ipynb: submit just one"


def _chosen(files: list[Path], base: Path, slug: str) -> tuple[Optional[Path], str, list[Path]]:
    """(the file graded or None, the rule's problem kind, the submission files seen) among the student's own `files`
    under `base`, by the rule a batch reads each student's folder with (exports.NotebookRule): a batch of the
    Gradescope export grades the file Gradescope graded. Gradescope had its own rule (.ipynb only, its suffix in lower
    case, no Canvas "-1"): `notes.ipynb` beside `<slug>.py` was graded here and the .py there (red-team round 97)."""
    rule = NotebookRule()
    own = [(p.relative_to(base).as_posix(), p) for p in files if _submitted(p, base)]
    chosen, kind, _message = choose_submission_file(own, slug, rule)
    return chosen, kind, [p for _, p in own if p.suffix.lower() in rule.suffixes]


def failure_results(reason: str, elapsed_s: float = 0.0) -> dict:
    """Gradescope's results when the grader could not grade: 0 points that say so, the reason for staff."""
    return {"score": 0, "execution_time": round(elapsed_s, 3), "output": AUTOGRADER_FAILED, "visibility": "visible",
            "stdout_visibility": "hidden", "tests": [], "extra_data": {"autograder_error": reason[:2000]}}


def run_in_container(root: Path, slug: str) -> Path:
    """Grade root/submission into root/results/results.json. Always writes a results file: when the
    grader itself fails, one that says so (failure_results), and then raises GraderError (exit 2)."""
    results_path = root / "results" / "results.json"
    start = time.perf_counter()
    try:
        return _grade_in_container(root, slug, results_path)
    except Exception as e:  # noqa: BLE001 - ours, not the student's: said where Gradescope looks
        reason = str(e) if isinstance(e, GraderError) else f"{type(e).__name__}: {e}"
        try:
            results_path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(results_path, json.dumps(failure_results(reason, time.perf_counter() - start), indent=2))
        except OSError:
            pass  # run_autograder writes its own when this file is missing
        raise GraderError(reason) from None


def gradescope_private(root: Path) -> list[Path]:
    """Gradescope's own files beside the submission that no student may read, made root-only here (the grader is
    root, before any worker exists) and handed to the sandbox as hidden, so its own check refuses a level that cannot
    keep them out. submission_metadata.json names every member of a group (emails) and holds each earlier
    submission's whole results.json, tests kept hidden until publication included. Left readable by all (a default
    umask), without Landlock (Docker before 23.0, an older kernel) a notebook read it at the container and fallback
    levels (red-team round 82)."""
    metadata = root / "submission_metadata.json"
    try:
        st = metadata.lstat()
        if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077:
            os.chmod(metadata, stat.S_IMODE(st.st_mode) & 0o700)
    except OSError:
        pass  # absent (a rehearsal), or not ours to change: the sandbox's check then says so
    return [metadata]


def _grade_in_container(root: Path, slug: str, results_path: Path) -> Path:
    from autograder.grading.grader import Grader
    from autograder.grading.outcome import build_result, visible_specs
    from autograder.course.outputs import to_gradescope
    from autograder.sandbox.zygote import launch

    start = time.perf_counter()
    results_path.parent.mkdir(parents=True, exist_ok=True)
    course = find_course(root / "source" / "course")
    vis = course.config.visibility
    zygote = launch(course, hide=[str(p) for p in gradescope_private(root)], slugs=[slug])
    with tempfile.TemporaryDirectory(prefix="submission-") as tmp, Grader(course, zygote=zygote) as grader:
        grader.warm_up()
        # the tests students see before publication, checked before any submission is looked at: an
        # entry naming no test is the course's mistake, said here rather than after grading
        specs = visible_specs(grader.specs(slug), course.settings(slug).visible_tests, slug)
        notebook, problem = find_notebook(root / "submission", slug, Path(tmp))
        if notebook is None:
            # the same shape as a file `grade` or `batch` rejects: built where every result is built
            result = build_result("(none)", slug, status="rejected", seed=0, specs=specs, message=problem,
                                  isolation=grader.isolation, elapsed_s=time.perf_counter() - start)
        else:
            result = grader.grade(notebook, slug)
            result.execution_time_s = round(time.perf_counter() - start, 3)  # with the start-up
        data = to_gradescope(result, vis)
    write_atomic(results_path, json.dumps(data, indent=2))  # whole or not at all: Gradescope reads it as it is
    os.chmod(results_path, 0o644)
    return results_path
