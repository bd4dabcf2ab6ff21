"""The Gradescope package: it builds, and a rehearsal of Gradescope's layout under a temporary root
grades full marks to the maximum and the template to 0, with schema-valid results.json."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import jsonschema
import pytest

from autograder.config import VisibilitySettings
from autograder.grading.outcome import NOT_GRADED, build_result, visible_specs
from autograder.grading.outcome import TestSpec as Spec
from autograder.course.outputs import to_gradescope
from autograder.results import TestReport as Report
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT

SCHEMA = json.loads((Path(__file__).parent / "gradescope_results.schema.json").read_text())


def build(course_root: Path, slug: str, tmp: Path) -> Path:
    out = tmp / "autograder.zip"
    env = dict(os.environ, AUTOGRADER_COURSE=str(course_root))
    subprocess.run([sys.executable, "-m", "autograder.cli", "gradescope", slug, "-o", str(out)],
                   check=True, env=env, capture_output=True)
    return out


def rehearse(zpath: Path, tmp: Path, put_submission) -> dict:
    root = tmp / "autograder"
    for d in ("source", "submission", "results"):
        (root / d).mkdir(parents=True)
    with zipfile.ZipFile(zpath) as z:
        z.extractall(root / "source")
    put_submission(root / "submission")
    run = root / "source" / "run_autograder"
    run.chmod(run.stat().st_mode | stat.S_IXUSR)
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_COURSE"}
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable)
    proc = subprocess.run(["bash", str(run)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(data, SCHEMA)
    return data


def test_zip_layout(tmp_path):
    z = zipfile.ZipFile(build(ROOT, "sdpa-from-scratch", tmp_path))
    names = set(z.namelist())
    assert {"setup.sh", "run_autograder", "course/grading.yml", "package/pyproject.toml"} <= names
    assert any(n.startswith("course/assignments/sdpa-from-scratch/hidden/") for n in names)
    assert not any(n.startswith("course/assignments/scaled-attention/") for n in names)
    assert "torch==2.13.0" in z.read("setup.sh").decode()
    assert (z.getinfo("run_autograder").external_attr >> 16) & 0o111


@pytest.mark.parametrize("where", ["alone", "folder", "zip"])
def test_fixture_submission_in_every_form(tmp_path, where):
    zpath = build(FIXTURE_COURSE, "toy", tmp_path)

    def put(sub: Path) -> None:
        if where == "alone":
            shutil.copy(FIXTURE_SUBS / "good.ipynb", sub / "toy.ipynb")
        elif where == "folder":
            (sub / "work").mkdir()
            shutil.copy(FIXTURE_SUBS / "good.ipynb", sub / "work" / "my notebook.ipynb")
        else:
            with zipfile.ZipFile(sub / "submission.zip", "w") as z:
                z.write(FIXTURE_SUBS / "good.ipynb", "hw/toy.ipynb")
                z.writestr("../../evil.ipynb", "{}")

    data = rehearse(zpath, tmp_path, put)
    assert data["score"] == 4
    assert not (tmp_path / "evil.ipynb").exists()
    info = [t for t in data["tests"] if t["name"].startswith("Grader information")]
    assert info and info[0]["visibility"] == "hidden" and "isolation:" in info[0]["output"]


@pytest.mark.parametrize("problem", ["missing", "two_notebooks"])
def test_missing_or_ambiguous_notebook_scores_zero_with_a_message(tmp_path, problem):
    zpath = build(FIXTURE_COURSE, "toy", tmp_path)

    def put(sub: Path) -> None:
        if problem == "missing":
            (sub / "readme.txt").write_text("oops")
        else:
            shutil.copy(FIXTURE_SUBS / "good.ipynb", sub / "a.ipynb")
            shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", sub / "b.ipynb")

    data = rehearse(zpath, tmp_path, put)
    assert data["score"] == 0
    assert "toy.ipynb" in data["output"]


@pytest.mark.parametrize("notebook,expect_max", [
    (ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb", True),
    (ROOT / "student_template" / "sdpa-from-scratch.ipynb", False),
])
def test_real_assignment_full_marks_and_template(tmp_path, notebook, expect_max):
    zpath = build(ROOT, "sdpa-from-scratch", tmp_path)
    data = rehearse(zpath, tmp_path, lambda sub: shutil.copy(notebook, sub / "sdpa-from-scratch.ipynb"))
    total = sum(t["max_score"] for t in data["tests"])
    assert total > 0
    assert data["score"] == (total if expect_max else 0)


# --- hostile archives: names and members never leave their folder ------------------------------------
def _zip(path: Path, members: list[tuple[str, bytes, int]]) -> Path:
    """members: (name, data, unix mode with file type bits; 0 = as written by Windows tools)."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            z.writestr(info, data)
    return path


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


HOSTILE_MEMBERS = ["../evil.ipynb", "../../evil.ipynb", "/tmp/evil-abs.ipynb", "..\\..\\evil.ipynb",
                   "hw/../../evil.ipynb", "C:/evil.ipynb", "C:\\evil.ipynb", "./../evil.ipynb",
                   "ok/\x1b[2J.ipynb", ".."]


@pytest.mark.parametrize("member", HOSTILE_MEMBERS)
def test_safe_extract_skips_members_that_leave_the_folder(tmp_path, member):
    from autograder.course.unpack import safe_extract
    zp = _zip(tmp_path / "sub.zip", [(member, b"{}", 0o100644), ("hw/toy.ipynb", b"{}", 0o100644)])
    dest = tmp_path / "a" / "b" / "dest"
    safe_extract(zp, dest)
    assert _tree(tmp_path) == {"sub.zip", "a", "a/b", "a/b/dest", "a/b/dest/hw", "a/b/dest/hw/toy.ipynb"}


def test_safe_extract_keeps_windows_separators_inside(tmp_path):
    from autograder.course.unpack import safe_extract
    zp = _zip(tmp_path / "sub.zip", [("hw\\toy.ipynb", b"{}", 0)])
    safe_extract(zp, tmp_path / "dest")
    assert _tree(tmp_path / "dest") == {"hw", "hw/toy.ipynb"}


@pytest.mark.parametrize("kind", [0o120000, 0o020000, 0o060000, 0o010000, 0o140000])  # link, chr, blk, fifo, sock
def test_safe_extract_writes_only_regular_files(tmp_path, kind):
    from autograder.course.unpack import safe_extract
    zp = _zip(tmp_path / "sub.zip", [("toy.ipynb", b"/etc/passwd", kind | 0o777),
                                     ("toy.ipynb/../x", b"", kind | 0o777)])
    safe_extract(zp, tmp_path / "dest")
    assert _tree(tmp_path / "dest") == set()


def test_safe_extract_never_follows_or_overwrites(tmp_path):
    from autograder.course.unpack import safe_extract
    outside = tmp_path / "outside.txt"
    zp = _zip(tmp_path / "sub.zip", [("link", str(outside).encode(), 0o120777),  # skipped: a symlink
                                     ("link", b"overwrite through the link", 0o100644),
                                     ("twice.ipynb", b"first", 0o100644), ("twice.ipynb", b"second", 0o100644),
                                     ("twice.ipynb/x", b"file under a file", 0o100644)])
    safe_extract(zp, tmp_path / "dest")
    assert not outside.exists() and not (tmp_path / "dest" / "link").is_symlink()
    assert (tmp_path / "dest" / "link").read_bytes() == b"overwrite through the link"
    assert (tmp_path / "dest" / "twice.ipynb").read_bytes() == b"first"


def test_safe_extract_caps_members_and_bytes(tmp_path):
    from autograder.errors import GraderError
    from autograder.course.unpack import safe_extract
    many = _zip(tmp_path / "many.zip", [(f"f{i}", b"", 0o100644) for i in range(30)])
    with pytest.raises(GraderError, match="more than 20 files"):
        safe_extract(many, tmp_path / "d1", max_members=20)
    big = tmp_path / "big.zip"
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bomb.ipynb", b"\0" * 5_000_000)  # compresses to a few KB
    assert big.stat().st_size < 50_000
    with pytest.raises(GraderError, match="too large"):
        safe_extract(big, tmp_path / "d2", max_bytes=1_000_000)
    assert sum(p.stat().st_size for p in (tmp_path / "d2").rglob("*") if p.is_file()) <= 1_000_000


@pytest.mark.parametrize("zipname", ["...zip", "..zip", ".zip", "-rf.zip", "x\x1b[2J.zip"])
def test_find_notebook_unpacks_into_a_folder_the_grader_names(tmp_path, zipname):
    from autograder.course.gradescope import find_notebook
    sub, scratch = tmp_path / "submission", tmp_path / "work" / "scratch"
    sub.mkdir()
    scratch.mkdir(parents=True)
    _zip(sub / zipname, [("toy.ipynb", b"{}", 0o100644)])
    notebook, problem = find_notebook(sub, "toy", scratch)
    assert problem == "" and notebook is not None
    assert notebook.resolve().is_relative_to(scratch.resolve()) and notebook.name == "toy.ipynb"
    assert _tree(tmp_path / "work") == {"scratch"} | {f"scratch/{p}" for p in _tree(scratch)}
    assert len(_tree(scratch)) == 2  # one fresh folder and the notebook in it


def test_find_notebook_ignores_a_symlinked_zip(tmp_path):
    from autograder.course.gradescope import find_notebook
    sub, scratch = tmp_path / "submission", tmp_path / "scratch"
    sub.mkdir()
    scratch.mkdir()
    _zip(tmp_path / "elsewhere.zip", [("toy.ipynb", b"{}", 0o100644)])
    (sub / "sub.zip").symlink_to(tmp_path / "elsewhere.zip")
    notebook, problem = find_notebook(sub, "toy", scratch)
    assert notebook is None and "no notebook" in problem and _tree(scratch) == set()


def test_find_notebook_reports_a_broken_zip(tmp_path):
    from autograder.course.gradescope import find_notebook
    sub = tmp_path / "submission"
    sub.mkdir()
    (sub / "sub.zip").write_bytes(b"PK\x03\x04 not really a zip")
    notebook, problem = find_notebook(sub, "toy", tmp_path)
    assert notebook is None and "could not open sub.zip" in problem


# --- who sees what before publication, and the misconception said once -----------------------------

DK_TEXT = "dividing the scores by d_k instead of sqrt(d_k)"
SPECS = [Spec("q1", "test_format", 1.0), Spec("q1", "test_values", 2.0),
         Spec("q2", "test_scale", 3.0), Spec("q2", "test_public_twin", 1.0)]


def _reports() -> list[Report]:
    return [
        Report(question="q1", name="test_format", max_score=1, score=1, status="passed"),
        Report(question="q1", name="test_values", max_score=2, score=0, status="failed",
                   message="the output is wrong", misconception="no_scale",
                   misconception_text="not scaling the scores at all"),
        # the message already says the misconception (checks.py's "it matches {describe(key)}")
        Report(question="q2", name="test_scale", max_score=3, score=0, status="failed",
                   message=f"the output is wrong: it matches {DK_TEXT}", misconception="divide_by_dk",
                   misconception_text=DK_TEXT),
        Report(question="q2", name="test_public_twin", max_score=1, score=0, status="failed",
                   message=f"The Output Is Wrong: It Matches {DK_TEXT.upper()}.", misconception="divide_by_dk",
                   misconception_text=DK_TEXT + "."),
    ]


def _graded(visible=("q2:test_public_twin",)):
    specs = visible_specs(SPECS, list(visible), "toy")
    return build_result("alice.ipynb", "toy", status="graded", seed=7, specs=specs, tests=_reports())


def _entry(data: dict, name: str) -> dict:
    return next(t for t in data["tests"] if t["name"] == name)


def test_listed_tests_are_visible_with_their_messages_the_others_wait():
    data = to_gradescope(_graded(), VisibilitySettings())
    jsonschema.validate(data, SCHEMA)
    twin = _entry(data, "q2: test_public_twin")
    assert twin["visibility"] == "visible" and DK_TEXT.upper() in twin["output"]
    for name in ("q1: test_format", "q1: test_values", "q2: test_scale"):
        assert _entry(data, name)["visibility"] == "after_published"
    # the score of the tests shown now, not the total: it told a hidden test's pass or fail (red-team round 89)
    assert data["output"].splitlines() == [
        "Score on the test shown now: 0 / 1.",
        "1 test is shown now; the other tests' results appear when grades are published."]


def test_a_whole_question_and_declared_visible_tests_are_shown():
    reports = _reports()
    reports[0] = reports[0].model_copy(update={"hidden": False})  # declared hidden=False: shown anyway
    specs = visible_specs([Spec("q1", "test_format", 1.0, hidden=False), *SPECS[1:]], ["q2"], "toy")
    result = build_result("a.ipynb", "toy", status="graded", seed=1, specs=specs, tests=reports)
    assert [t.visible for t in result.tests] == [True, False, True, True]
    data = to_gradescope(result, VisibilitySettings(hidden_tests="after_due_date"))
    jsonschema.validate(data, SCHEMA)
    assert [t["visibility"] for t in data["tests"][:4]] == ["visible", "after_due_date", "visible", "visible"]
    assert "3 tests are shown now; the other tests' results appear after the due date." in data["output"]


def test_summary_respects_show_total_and_says_when_nothing_is_shown_yet():
    data = to_gradescope(_graded(visible=()), VisibilitySettings(show_total=False))
    jsonschema.validate(data, SCHEMA)
    assert "Score" not in data["output"] and "7" not in data["output"]
    assert data["output"] == "The tests' results appear when grades are published."
    everything = to_gradescope(_graded(visible=()), VisibilitySettings(hidden_tests="visible"))
    assert everything["output"] == "Score 1 / 7."
    assert {t["visibility"] for t in everything["tests"][:4]} == {"visible"}


def test_visibility_travels_with_the_result_not_the_config():
    # a results file read back (a resumed batch, merge) keeps who sees what
    again = type(_graded()).model_validate_json(_graded().model_dump_json())
    assert [t.visible for t in again.tests] == [False, False, False, True]
    old = Report.model_validate({"question": "q1", "name": "t", "hidden": False, "max_score": 1,
                                     "score": 1, "status": "passed"})   # written before `visible`
    assert old.visible
    assert Spec.from_json(["q1", "t", 1.0, True]) == Spec("q1", "t", 1.0, True, False)
    assert Spec.from_json(SPECS[0].to_json()) == SPECS[0]
    assert Spec.from_json(["q1", "t", 1.0, True, True]).visible


@pytest.mark.parametrize("name,text", [
    ("q1: test_values", "not scaling the scores at all"),   # the message does not say it: added once
    ("q2: test_scale", DK_TEXT),                            # the message says it: not again
    ("q2: test_public_twin", DK_TEXT),                      # says it in other case, with a full stop
])
def test_the_misconception_is_said_once_in_gradescope_output(name, text):
    output = _entry(to_gradescope(_graded(), VisibilitySettings()), name)["output"]
    assert output.casefold().count(text.casefold()) == 1, output
    assert output.count("Likely misconception") == (1 if name == "q1: test_values" else 0)
    assert ".." not in output


def test_a_rejected_gradescope_submission_is_built_like_any_rejected_one(tmp_path):
    zpath = build(FIXTURE_COURSE, "toy", tmp_path)
    data = rehearse(zpath, tmp_path, lambda sub: (sub / "readme.txt").write_text("oops"))
    graded = [t for t in data["tests"] if "grader" not in t["tags"] and "manual" not in t["tags"]]
    assert graded and {t["output"] for t in graded} == {NOT_GRADED} and {t["status"] for t in graded} == {"failed"}
    assert data["extra_data"]["status"] == "rejected" and data["extra_data"]["seed"] == 0
    assert data["extra_data"]["max_score"] == sum(t["max_score"] for t in graded) > 0
    assert data["output"].startswith("Your submission could not be graded: no notebook found")


def test_visible_tests_are_shown_on_gradescope_before_publication(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(FIXTURE_COURSE, root)
    cfg = (root / "grading.yml").read_text()
    (root / "grading.yml").write_text(cfg.replace("manual: [q3]", "manual: [q3]\n    visible_tests: [q1:test_attend_rows]"))
    zpath = build(root, "toy", tmp_path)
    data = rehearse(zpath, tmp_path, lambda sub: shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", sub / "toy.ipynb"))
    shown = {t["name"]: t for t in data["tests"] if t["visibility"] == "visible"}
    assert list(shown) == ["q1: test_attend_rows"], [(t["name"], t["visibility"]) for t in data["tests"]]
    others = [t for t in data["tests"] if "grader" not in t["tags"] and "manual" not in t["tags"]
              and t["name"] not in shown]
    assert others and {t["visibility"] for t in others} == {"after_published"}
    assert "1 test is shown now; the other tests' results appear when grades are published." in data["output"]


# --- a grader that cannot grade says so where Gradescope looks ------------------------------------------
def _run_autograder(root: Path, python: str, wrap=lambda argv: argv) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=python)
    return subprocess.run(wrap(["bash", str(root / "source" / "run_autograder")]), env=env, capture_output=True,
                          text=True, timeout=600)


def _layout(zpath: Path, root: Path) -> Path:
    for d in ("source", "submission", "results"):
        (root / d).mkdir(parents=True)
    with zipfile.ZipFile(zpath) as z:
        z.extractall(root / "source")
    shutil.copy(FIXTURE_SUBS / "good.ipynb", root / "submission" / "toy.ipynb")
    return root


def _says_autograder_failed(data: dict) -> str:
    jsonschema.validate(data, SCHEMA)
    assert data["score"] == 0 and "problem with the autograder, not with your work" in data["output"]
    return data["extra_data"]["autograder_error"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
def test_no_sandbox_level_in_a_default_container_still_writes_results(tmp_path):
    """Docker's default capabilities, no Landlock, and a course every user can read (setup.sh's chmod
    not run): no level can hide the course, so nothing is graded, and results.json says why."""
    import tempfile

    from tests.docker_default import command
    zpath = build(FIXTURE_COURSE, "toy", tmp_path)
    open_root = Path(tempfile.mkdtemp(prefix="ag-open-root-"))
    try:
        os.chmod(open_root, 0o755)
        root = _layout(zpath, open_root / "autograder")
        for p in [root, *root.rglob("*")]:
            os.chmod(p, 0o755 if p.is_dir() else 0o644)
        proc = _run_autograder(root, sys.executable, lambda argv: command(argv, landlock=False))
        assert proc.returncode != 0
        assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
        reason = _says_autograder_failed(json.loads((root / "results" / "results.json").read_text()))
        assert "no sandbox level starts here" in reason and "readable by other users" in reason
    finally:
        shutil.rmtree(open_root, ignore_errors=True)


def test_a_grader_that_never_starts_still_writes_results(tmp_path):
    zpath = build(FIXTURE_COURSE, "toy", tmp_path)
    root = _layout(zpath, tmp_path / "autograder")
    (root / "results" / "results.json").write_text('{"score": 35}')  # a stale file must not be served
    proc = _run_autograder(root, str(tmp_path / "no-such-python"))
    assert proc.returncode != 0
    reason = _says_autograder_failed(json.loads((root / "results" / "results.json").read_text()))
    assert "exited with status 127" in reason


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "permissions-only"])
def test_graded_in_a_default_container(tmp_path, landlock):
    """Root without CAP_SYS_ADMIN (Gradescope's Docker): graded at the container level, full marks."""
    from tests.docker_default import command
    zpath = build(FIXTURE_COURSE, "toy", tmp_path)
    root = _layout(zpath, tmp_path / "autograder")   # under pytest's root-only tmp folder, as setup.sh leaves it
    proc = _run_autograder(root, sys.executable, lambda argv: command(argv, landlock=landlock))
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["score"] == 4 and data["extra_data"]["isolation"] == "container"


# --- nothing ambiguous is resolved silently on Gradescope either ---------------------------------------
@pytest.mark.parametrize("members", [
    ["hw/toy.ipynb", "hw/toy.ipynb"],        # the same name twice: unzip keeps the last, we would keep the first
    ["hw/toy.ipynb", "hw//toy.ipynb"],       # one path, two spellings
    ["hw/toy.ipynb", "HW/Toy.ipynb"],        # one file on a case-insensitive disk
])
def test_a_zip_whose_members_clash_is_refused_by_name(tmp_path, members):
    from autograder.course.gradescope import find_notebook
    sub, scratch = tmp_path / "submission", tmp_path / "scratch"
    sub.mkdir()
    scratch.mkdir()
    with zipfile.ZipFile(sub / "submission.zip", "w") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile's own "Duplicate name" warning: writing one is the point
        for i, name in enumerate(members):
            z.writestr(name, (FIXTURE_SUBS / ("good.ipynb" if i == 0 else "no_scale.ipynb")).read_bytes())
    path, problem = find_notebook(sub, "toy", scratch)
    assert path is None and "submission.zip" in problem
    assert "toy.ipynb" in problem.lower(), problem


def test_two_notebooks_named_alike_in_any_case_are_both_refused(tmp_path):
    from autograder.course.gradescope import find_notebook
    sub = tmp_path / "submission"
    (sub / "a").mkdir(parents=True)
    (sub / "b").mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", sub / "a" / "toy.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", sub / "b" / "TOY.ipynb")
    path, problem = find_notebook(sub, "toy", tmp_path)
    assert path is None and "several notebooks" in problem


def test_a_course_inside_the_students_folder_is_never_used(tmp_path):
    """A TA grades from inside a student's folder that holds its own grading.yml and hidden tests: the
    walk up from the working directory finds them, and they are refused, not imported."""
    student = tmp_path / "alice"
    shutil.copytree(FIXTURE_COURSE, student)
    marker = tmp_path / "ran.txt"
    (student / "assignments" / "toy" / "hidden" / "q1.py").write_text(
        f"open({str(marker)!r}, 'w').write('student code ran in the grader')\n")
    shutil.copy(FIXTURE_SUBS / "good.ipynb", student / "toy.ipynb")
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_COURSE"}
    for argv in (["grade", "toy.ipynb", "-a", "toy"], ["batch", ".", "-a", "toy", "-o", str(tmp_path / "out")]):
        proc = subprocess.run([sys.executable, "-I", "-m", "autograder.cli", *argv], cwd=student, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "set AUTOGRADER_COURSE" in proc.stderr and "Traceback" not in proc.stderr
        assert not marker.exists()


def test_the_zips_grading_yml_says_what_the_courses_does(tmp_path):
    """The zip carries one assignment's settings: loaded there, they are the course's own (a default
    written out in full once overrode the course-wide late policy and failed to load)."""
    from autograder.config import find_course, load_config
    from autograder.latepolicy import policy_for
    course = find_course(ROOT)
    z = zipfile.ZipFile(build(ROOT, "sdpa-from-scratch", tmp_path))
    (tmp_path / "grading.yml").write_bytes(z.read("course/grading.yml"))
    shipped = load_config(tmp_path / "grading.yml")
    assert list(shipped.assignments) == list(course.config.assignments)   # the others by name only (round 97)
    assert all(v == type(v)() for k, v in shipped.assignments.items() if k != "sdpa-from-scratch")
    assert shipped.assignments["sdpa-from-scratch"] == course.config.assignments["sdpa-from-scratch"]
    for key in type(course.config).model_fields:
        if key != "assignments":
            assert getattr(shipped, key) == getattr(course.config, key), key
    assert policy_for(shipped, "sdpa-from-scratch") == policy_for(course.config, "sdpa-from-scratch")
