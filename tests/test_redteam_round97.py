"""Red-team round 97: same notebook, same grade, everywhere (`grade`, `batch` at -j1/-j2, the class's order, a resumed
journal, the Gradescope entry point).

- **Gradescope and a batch of its export grade different files of one submission** (gradescope.find_notebook). The
  Gradescope run chose by a rule of its own: only names ending in `.ipynb` (lower case), an exact `<slug>.ipynb`,
  else the only notebook; a batch reads each student's folder of the export with exports.NotebookRule (`.ipynb` and
  `.py` in any case, `<slug>.ipynb` then `<slug>.py`, a Canvas `-1` before the suffix). Measured in
  /tmp/rt97/choose.py on the same folder as a Gradescope submission and as a Gradescope export's `submission_1`:
  `notes.ipynb` beside `sdpa-from-scratch.py` was graded as notes.ipynb there and as the .py in the batch;
  `sdpa-from-scratch.IPYNB` was "no notebook found" (0) there and graded (35/35) in the batch; `answer.IPYNB` beside
  `draft.ipynb` was draft.ipynb there and "ambiguous" in the batch; `sdpa-from-scratch-1.ipynb` beside
  `scratch.ipynb` was "several notebooks" (0) there and graded in the batch. Now find_notebook chooses among the
  student's own files with the batch's rule (exports._choose, NotebookRule()), keeping its own words for students.
  Found on the way, in the batch too: a lone `utils.py` beside `hw.zip` holding the notebook was taken (the only .py)
  before the zip was opened (Gradescope, opening zips only where no .ipynb lay, graded the notebook). Such a .py,
  named for no pattern, now waits for the zips and is graded only where they hold no submission file
  (exports.defers_to_zips, asked by both).
- **Hidden tests that import a course-root module grade in `grade` and `batch`, and fail every student on
  Gradescope** (gradescope.build_zip). hidden._expose_reference puts the course root on sys.path, and round 61
  fingerprints such a module (`from course_answers import ANSWER`); the zip carried only the assignment's folder and
  the reference. Measured in /tmp/rt97/gs_mod.py with the fixture course: `grade` 4/4, the rehearsed Gradescope run
  "The autograder could not grade this submission" (ModuleNotFoundError: course_answers) for a right notebook. The
  zip now carries the course-root modules the hidden tests import, found by the walk the fingerprint makes
  (fingerprint.course_module_files). Of the same kind, and in the fingerprint too: a course-root module the
  reference imports (`from course_constants import POWER` in reference/toy.py) was neither fingerprinted nor carried.
  Measured in /tmp/rt97/refmod.py: POWER 0.5 -> 1.0 took `grade` of a right notebook from 4/4 to 2/4 with the
  fingerprint unchanged, so a rerun served 4/4. The fingerprint's walk now starts from the reference's files too (the
  zip's walk from the reference files it carries).
- **A notebook of another assignment: rejected by `grade` and `batch`, graded on Gradescope and from the journal**
  (Grader.grade rejects a notebook whose otter metadata names another assignment of grading.yml). The Gradescope zip
  carried only its own assignment, so the scaled-attention notebook handed to sdpa-from-scratch's Gradescope run
  was graded (35 rows of "not defined") where `grade` says "the notebook of another assignment ... submit the
  sdpa-from-scratch.ipynb notebook"; and the fingerprint held only this assignment's settings, so a notebook naming
  `toy2` graded 4/4 before toy2 was added to grading.yml stayed 4/4 on a rerun where a fresh batch rejects it
  (/tmp/rt97/newslug.py). The zip's grading.yml now lists the other assignments by name, with no settings, and the
  course's assignment names are part of the fingerprint's grading.yml (adding an assignment regrades a class once).
- **A journal graded with another torch is served whole** (fingerprint.grading_fingerprint). The fingerprint held
  the hidden tests, reference, settings, level and this package's code, not the libraries the numbers come from: a
  class graded on a node with torch 2.13.0+cpu and resumed (or merged as a shard) on one with 2.13.0+cu130 kept every
  grade. Measured in /tmp/rt97/torchver.py (the installed version read as 2.13.0+cu130: the same fingerprint). Python's,
  torch's and numpy's installed versions (importlib.metadata: torch is never imported in the batch's own process) are
  a part now, "the installed Python, torch and numpy".
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT

SLUG = "sdpa-from-scratch"
EXAMPLES = ROOT / "examples" / "submissions" / SLUG
METADATA = ("submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: '1'\n    :email: ada@example.edu\n"
            "  :created_at: 2024-03-01 10:00:00.000000000 -08:00\n")
PY_EXPORT = b"# In[ ]:\n\nimport torch\n"

# (file name, what it holds): one student's upload, the same on Gradescope and in the course's export of it
UPLOADS = {
    "a .py beside a notebook": [("notes.ipynb", "no_scale"), (f"{SLUG}.py", None)],
    "the suffix in capitals": [(f"{SLUG}.IPYNB", "full_marks")],
    "a capital suffix beside a notebook": [("answer.IPYNB", "full_marks"), ("draft.ipynb", "no_scale")],
    "a Canvas -1 beside a notebook": [(f"{SLUG}-1.ipynb", "full_marks"), ("scratch.ipynb", "no_scale")],
    "the slug's notebook in a folder": [(f"old/{SLUG}.ipynb", "no_scale"), ("work.ipynb", "full_marks")],
    "a lone .py": [(f"{SLUG}.py", None)],
    "a zip with the notebook beside a helper .py": [("hw.zip", {f"{SLUG}.ipynb": "full_marks"}), ("utils.py", None)],
    "a data zip beside a lone .py": [("data.zip", {"notes.txt": None}), ("hw.py", None)],
}


def _content(example: str | None) -> bytes:
    return (EXAMPLES / f"{example}.ipynb").read_bytes() if example else PY_EXPORT


def _put(folder: Path, files: list[tuple[str, str | None | dict[str, str | None]]]) -> None:
    for name, example in files:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(example, dict):   # a zip: its members
            with zipfile.ZipFile(path, "w") as z:
                for member, inside in example.items():
                    z.writestr(member, _content(inside))
        else:
            path.write_bytes(_content(example))


@pytest.mark.parametrize("upload", sorted(UPLOADS))
def test_gradescope_grades_the_file_a_batch_of_its_export_grades(tmp_path, upload):
    from autograder.course.exports import discover
    from autograder.course.gradescope import find_notebook
    submission, export = tmp_path / "submission", tmp_path / "export"
    folder = export / "submission_1"
    for where in (submission, folder):
        where.mkdir(parents=True)
        _put(where, UPLOADS[upload])
    (export / "submission_metadata.yml").write_text(METADATA)
    (tmp_path / "scratch-gs").mkdir()
    chosen, problem = find_notebook(submission, SLUG, tmp_path / "scratch-gs")
    found = discover(export, SLUG, tmp_path / "scratch-batch")
    on_gradescope = (chosen.name, chosen.read_bytes()) if chosen is not None else None
    in_batch = (found.entries[0].path.name, found.entries[0].path.read_bytes()) if found.entries else None
    assert on_gradescope == in_batch, (f"{upload}: Gradescope grades {on_gradescope and on_gradescope[0]} "
                                       f"({problem!r}), a batch of its export {in_batch and in_batch[0]} "
                                       f"({[p.message for p in found.problems]})")
    if upload.startswith("a zip with the notebook"):
        assert chosen is not None and chosen.name == f"{SLUG}.ipynb", "the helper .py beside the zip was graded"
    if chosen is None:
        assert problem and found.problems


@pytest.mark.sandbox
def test_a_course_root_module_the_hidden_tests_import_travels_in_the_gradescope_zip(tmp_path):
    from tests.test_gradescope import build, rehearse
    root = tmp_path / "course"
    shutil.copytree(FIXTURE_COURSE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "course_answers.py").write_text('ANSWER = "B"\n')
    q2 = root / "assignments" / "toy" / "hidden" / "q2.py"
    text = q2.read_text()
    assert 'from otter.test_files import test_case' in text and '== "B"' in text
    q2.write_text(text.replace("from otter.test_files import test_case",
                               "from otter.test_files import test_case\nfrom course_answers import ANSWER", 1)
                  .replace('== "B"', "== ANSWER"))
    env = dict(os.environ, AUTOGRADER_COURSE=str(root))
    local = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(FIXTURE_SUBS / "good.ipynb"), "-a", "toy",
                            "--results", str(tmp_path / "local.json")], env=env, capture_output=True, text=True,
                           timeout=300)
    assert local.returncode == 0, local.stdout[-800:] + local.stderr[-800:]
    graded_here = json.loads((tmp_path / "local.json").read_text())["score"]
    data = rehearse(build(root, "toy", tmp_path), tmp_path,
                    lambda sub: shutil.copy(FIXTURE_SUBS / "good.ipynb", sub / "toy.ipynb"))
    assert "autograder_error" not in data.get("extra_data", {}), data["extra_data"]
    assert data["score"] == graded_here == 4


@pytest.mark.parametrize("package,version", [("torch", "2.13.0+cu130"), ("torch", "2.14.0+cpu"), ("numpy", "1.26.4")])
def test_a_journal_made_with_another_torch_is_not_served(course, monkeypatch, package, version):
    from importlib import metadata

    from autograder.course.fingerprint import grading_fingerprint, why_regraded
    before, old_parts = grading_fingerprint(course, SLUG)
    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: version if name == package else real(name))
    after, new_parts = grading_fingerprint(course, SLUG)
    assert after != before, f"{package} {version} installed in place of {real(package)}: every journaled grade is served"
    assert "torch" in why_regraded(old_parts, new_parts)


def test_a_course_root_module_the_reference_imports_is_fingerprinted_and_carried(tmp_path):
    from autograder.config import Course, load_config
    from autograder.course.fingerprint import grading_fingerprint
    from autograder.course.gradescope import build_zip
    root = tmp_path / "course"
    shutil.copytree(FIXTURE_COURSE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "course_constants.py").write_text("POWER = 0.5\n")
    toy = root / "reference" / "toy.py"
    text = toy.read_text()
    assert "/ math.sqrt(Q.shape[-1])" in text
    toy.write_text(text.replace("/ math.sqrt(Q.shape[-1])", "/ Q.shape[-1] ** POWER")
                   .replace("import torch\n", "import torch\nfrom course_constants import POWER\n", 1))
    course = Course(root, load_config(root / "grading.yml"))
    before, _ = grading_fingerprint(course, "toy")
    (root / "course_constants.py").write_text("POWER = 1.0\n")   # the oracle scales by d_k now: 4/4 becomes 2/4
    after, _ = grading_fingerprint(course, "toy")
    assert after != before, "the module the reference imports changed the oracle: every journaled grade is served"
    with zipfile.ZipFile(build_zip(course, "toy", tmp_path / "autograder.zip")) as z:
        assert "course/course_constants.py" in z.namelist(), "the reference cannot import it on Gradescope"


def test_a_notebook_of_an_assignment_added_since_is_not_served_graded(tmp_path):
    import yaml

    from autograder.config import Course, load_config
    from autograder.course.fingerprint import grading_fingerprint, why_regraded
    root = tmp_path / "course"
    shutil.copytree(FIXTURE_COURSE, root, ignore=shutil.ignore_patterns("__pycache__"))
    before, old_parts = grading_fingerprint(Course(root, load_config(root / "grading.yml")), "toy")
    config = yaml.safe_load((root / "grading.yml").read_text())
    config["assignments"]["toy2"] = {"title": "the next one"}   # a notebook naming toy2 is rejected from now on
    (root / "grading.yml").write_text(yaml.safe_dump(config))
    after, new_parts = grading_fingerprint(Course(root, load_config(root / "grading.yml")), "toy")
    assert after != before, "an assignment added to grading.yml: a notebook of it stays 'graded' in the journal"
    assert why_regraded(old_parts, new_parts) == "grading.yml changed"


def test_gradescope_rejects_another_assignments_notebook_as_grade_does(tmp_path):
    from autograder.config import Course, find_course, load_config
    from autograder.course.gradescope import build_zip
    from autograder.grading.intake import read_submission
    course = find_course(ROOT)
    with zipfile.ZipFile(build_zip(course, SLUG, tmp_path / "autograder.zip")) as z:
        (tmp_path / "grading.yml").write_bytes(z.read("course/grading.yml"))
        assert not any(n.startswith("course/assignments/scaled-attention/") for n in z.namelist())
    shipped = Course(tmp_path, load_config(tmp_path / "grading.yml"))
    other = read_submission(ROOT / "examples" / "submissions" / "scaled-attention" / "full_marks.ipynb",
                            course.config.limits).assignment_name
    assert other == "scaled-attention"
    # Grader.grade rejects a notebook whose metadata names one of the course's other assignments: the same list there
    assert (other in shipped.config.assignments) == (other in course.config.assignments)
    assert shipped.config.assignments[other] == type(shipped.config.assignments[other])()   # by name, no settings
