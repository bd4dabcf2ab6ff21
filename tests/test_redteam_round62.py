"""Red-team round 62: the notebook file itself, read on the trusted side before any sandbox.

- A cell's `metadata.tags` is an array the nbformat schema marks `uniqueItems`. fastjsonschema (nbformat's
  validator) refuses a list of non-strings at once, but nbformat then re-validates with jsonschema to word its
  error (`better_validation_error`), and jsonschema's `uniq` compares every pair when the items cannot be
  sorted (dicts, or ints beside strings). 3000 one-key dicts (a 68 KB notebook) held intake 46-50 s inside
  `nbformat.validate`, where `INTAKE_TIMEOUT_S` (30 s) is never checked; 250,000 of them (3 MB, under every
  size and item limit) would hold it for days: `autograder grade` never returns, and in a batch each such
  notebook holds a lane until the pool's task timeout (2 * submission_timeout_s + 120 = 720 s).
  Such a file must be refused in words within the intake's own bound (the test allows 15 s)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"

_READ = """
import sys
from autograder.errors import SubmissionError
from autograder.grading.intake import read_submission
try:
    read_submission(sys.argv[1])
except SubmissionError as e:
    print("REJECTED", str(e)[:200])
else:
    print("ACCEPTED")
"""


def _tagged(dest: Path, tags: list) -> Path:
    nb = json.loads((EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb").read_text())
    nb["cells"][0].setdefault("metadata", {})["tags"] = tags
    dest.write_text(json.dumps(nb))
    return dest


@pytest.mark.parametrize("tags", [
    [{"a": i} for i in range(3000)],                        # dicts: unsortable, and slow to compare
    [i if i % 2 else str(i) for i in range(14000)],         # ints beside strings: unsortable
], ids=["dicts", "ints-and-strings"])
def test_unsortable_cell_tags_are_refused_within_the_intake_bound(tmp_path, tags):
    path = _tagged(tmp_path / "tags.ipynb", tags)
    assert path.stat().st_size < 200_000     # a small file: no size or item limit applies
    try:
        done = subprocess.run([sys.executable, "-c", _READ, str(path)], cwd=ROOT, capture_output=True,
                              text=True, timeout=15)
    except subprocess.TimeoutExpired:
        pytest.fail("intake was still validating a small notebook's cell tags after 15 s "
                    "(nbformat's jsonschema fallback compares every pair of an unsortable uniqueItems array)")
    assert done.stdout.startswith("REJECTED"), (done.stdout, done.stderr[-2000:])


_SIMILARITY = """
import sys
from pathlib import Path
from autograder.course.similarity import extract_file
stored = extract_file(Path(sys.argv[1]), ["scaled_dot_product_attention"])
print("DONE")
"""


def test_the_similarity_pages_reading_of_such_a_notebook_is_bounded_too(tmp_path):
    """`autograder batch` reads every notebook again for similarity.html (similarity.extract_file, serially, in
    the batch's own process, after the grades and outside the pool's task timeout): the same notebook held the
    batch there as long again, and a larger one would keep `batch` from ever finishing."""
    path = _tagged(tmp_path / "tags.ipynb", [{"a": i} for i in range(3000)])
    try:
        done = subprocess.run([sys.executable, "-c", _SIMILARITY, str(path)], cwd=ROOT, capture_output=True,
                              text=True, timeout=15)
    except subprocess.TimeoutExpired:
        pytest.fail("similarity.extract_file was still reading a 68 KB notebook after 15 s")
    assert done.stdout.startswith("DONE"), (done.stdout, done.stderr[-2000:])
