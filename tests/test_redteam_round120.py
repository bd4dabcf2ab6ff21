"""Red-team round 120: the documentation as a contract.

README.md, docs/*.md, examples/cluster/README.md, tests/integration/README.md and each command's --help followed as
written, on a fresh worktree of HEAD (/tmp/rt120/tree; repros and logs in /tmp/rt120/): `assign`, `check`, `grade`
(a right, a wrong, an empty notebook, another assignment's), `batch` of the Gradescope and Canvas example exports,
with `--shard`, `--seed`, hand scores (questions and the `late` column: waive, a moved due time), a rerun after a
hidden test changed, a student gone (`superseded/`), `merge` (and its refusals), the similarity class, the
Gradescope zip's dry run of docs/authoring.md, the grading.yml keys the docs name against the pydantic model, the
bench scripts' options. Held: file and column names, the messages the docs quote ("3 regraded: the hidden tests
changed", "Late by 22 h 30 min", 0.963 / 0.318), exit statuses 0 and 2, the shard and merge refusals. Found:

- **`autograder check` failed on the shipped course.** README and docs/authoring.md promise a check that passes
  (`make test` runs it for every assignment); measured: `autograder check sdpa-from-scratch -j 1` at HEAD printed
  `FAIL misconceptions: additive_scores is said differently in scaled-attention`, exit 1. Naming round 62 gave
  sdpa-from-scratch the key scaled-attention already had (naming round 31) with a text of its own; a key shared by
  assignments has one text (what a student reads must not depend on which course's notebook named it). Now
  sdpa-from-scratch says scaled-attention's text; the test below reads every assignment's texts (no grader).
- **`batch -j 0` (and `-j -3`) ran one grader** where the README says "`-j N` runs N grader processes" and `check
  -j 0` is refused. Now refused by click, exit 2, as `check`'s.
- Doc only (no behaviour to test): docs/authoring.md said "Only `title` is needed" in an assignment's settings;
  the model needs no key (`{}`), the title falls back to the slug, and it also names canvas.csv's score column;
  README's first table said `grade` prints "a table of why each failed" (it prints the diagnosis grouped by
  mistake; the table is `--all`'s); README's hand-scores `submission` is gradebook.csv's `submission` column
  (`alice.ipynb` in a flat folder: `alice` is refused), now said.
"""
from __future__ import annotations

import itertools
import os
import subprocess
import sys

from tests.conftest import ROOT

FIXTURE_COURSE = ROOT / "tests" / "fixtures" / "course"


def test_a_misconception_key_shared_by_assignments_has_one_text(course):
    from autograder.grading.hidden import load_misconceptions
    texts = {slug: load_misconceptions(course.assignment_dir(slug) / "hidden") for slug in course.config.assignments}
    differ = [f"{key}: {a} / {b}" for a, b in itertools.combinations(texts, 2)
              for key in sorted(set(texts[a]) & set(texts[b])) if texts[a][key] != texts[b][key]]
    assert not differ, differ


def test_batch_refuses_jobs_below_one(tmp_path):
    (tmp_path / "cls").mkdir()
    for jobs in ("0", "-3"):
        proc = subprocess.run([sys.executable, "-m", "autograder.cli", "batch", "cls", "-a", "toy", "-o", "out",
                               "-j", jobs], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                              env=dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE)))
        assert proc.returncode == 2, (jobs, proc.stdout[-1000:], proc.stderr[-1000:])
        assert "-j" in proc.stderr and "Traceback" not in proc.stderr
        assert not (tmp_path / "out").exists()
