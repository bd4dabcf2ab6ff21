"""Red-team round 64: ambient files and settings that reach the trusted process.

A flat class folder's file names are the students' (tests/test_trusted_imports.py: an instructor runs
`autograder batch . -o ../out` from inside it, and `merge` from there too). A student who submits a file named
`matplotlibrc` puts it in the batch parent's working directory, and matplotlib, imported there when the
outputs typeset a written answer's formula (autograder.course.feedback._typeset, for every student's feedback
page and for report.html, where the instructor grades the written answers by hand), reads `./matplotlibrc`
before any other settings file. Measured (/tmp/rt64/mpl): `text.color: white` drew every formula of every
classmate's feedback and of report.html in white (invisible on the page), `path.sketch` scribbled them; a bad
value's warning (`font.weight: <ESC>[31m...`) reached the instructor's terminal with its escape sequence raw.
The formulas must be drawn by matplotlib's own defaults, whatever folder the grader runs from, and say nothing
about a file there.

Each test runs a fresh interpreter (matplotlib reads its settings once, when first imported) in the way the
batch parent runs: its working directory the class folder."""
from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

# the batch parent's own call: a written answer's formula turned into HTML (an <img> of an SVG)
_TYPESET = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from autograder.course.feedback import math_html; "
            "print(str(math_html('so $\\\\mathrm{Var}(q \\\\cdot k) = d_k$ holds')))")


def _typeset_in(folder: Path) -> tuple[list[str], str]:
    """(the SVGs math_html draws, the process's stderr) when the process works in `folder`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "MATPLOTLIBRC", "AUTOGRADER_COURSE")}
    proc = subprocess.run([sys.executable, "-I", "-c", _TYPESET, str(ROOT)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    svgs = [base64.b64decode(b).decode() for b in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)",
                                                             proc.stdout)]
    assert svgs, proc.stdout[-1000:]   # the formula was typeset (not the plain-text fallback)
    return svgs, proc.stderr


def _class_folder(tmp_path: Path, rc: str) -> Path:
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.ipynb").write_text("{}")
    (folder / "matplotlibrc").write_text(rc)   # mallory's "submission"
    return folder


def test_a_students_matplotlibrc_does_not_restyle_the_classs_formulas(tmp_path):
    clean = tmp_path / "clean"
    clean.mkdir()
    expected, _ = _typeset_in(clean)
    folder = _class_folder(tmp_path, "text.color: white\npath.sketch: 40, 10, 1\nlines.linewidth: 9\n")
    got, _ = _typeset_in(folder)
    assert not any("#ffffff" in svg for svg in got), "a student's matplotlibrc drew the formulas in white"
    assert got == expected, "a student's matplotlibrc changed how the grader draws formulas"


def test_a_students_matplotlibrc_says_nothing_on_the_instructors_terminal(tmp_path):
    folder = _class_folder(tmp_path, "font.weight: \x1b[31m\x1b]0;owned\x07bold\nfont.size: huge\n")
    _, stderr = _typeset_in(folder)
    assert "\x1b" not in stderr, f"an escape sequence from a student's file reached the terminal: {stderr!r}"
    assert "matplotlibrc" not in stderr, stderr[-1000:]


# --- a student's submission_metadata.yml in a flat class folder ------------------------------------------------
# In a flat class folder (alice.ipynb, bob.ipynb: the file names are the students') a file named
# submission_metadata.yml, submitted by one student, made the batch read the whole folder as a Gradescope export
# (/tmp/rt64/meta): every classmate's notebook was "other files skipped", none graded and none in the gradebook,
# and the student's YAML put rows of its own choosing there instead: "Alice Victim, sid 1001, 0, rejected" in
# gradebook.csv and in canvas.csv (a Canvas import sets that SIS id's grade to 0). A metadata file beside
# students' own submission files is not an export's: refuse the folder (ExportError, naming the file) or grade it
# as the flat folder it is; never drop the notebooks nor take identities from it.
_FORGED = """submission_1:
  :submitters:
  - :name: Alice Victim
    :sid: '1001'
    :email: alice@uni.edu
  :created_at: 2024-03-09 10:15:00.000000000 -08:00
"""


def test_a_students_submission_metadata_does_not_turn_a_flat_class_into_an_export(tmp_path):
    from autograder.course.exports import ExportError, discover
    from tests.conftest import FIXTURE_SUBS
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("alice", "bob"):
        (folder / f"{name}.ipynb").write_bytes((FIXTURE_SUBS / "good.ipynb").read_bytes())
    (folder / "submission_metadata.yml").write_text(_FORGED)   # mallory's "submission"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    try:
        found = discover(folder, "toy", scratch)
    except ExportError as e:
        assert "submission_metadata.yml" in str(e)   # refused, and said why: acceptable
        return
    sources = {e.source for e in found.entries}
    assert {"alice.ipynb", "bob.ipynb"} <= sources, \
        f"the classmates' notebooks were not graded: entries {sorted(sources)}, skipped {found.skipped}"
    named = [s.sid for item in [*found.entries, *found.problems] for s in item.submitters]
    assert "1001" not in named, "a student's file chose who the class's rows belong to"
