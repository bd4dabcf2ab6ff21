"""The hostile sample submissions of sdpa-from-scratch: each is no_scale.ipynb plus an attack; none
may score above no_scale.ipynb itself, the grade must finish, and nothing of the grader may leak."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
HOSTILE = ROOT / "examples" / "submissions" / SLUG / "hostile"
BASELINE = yaml.safe_load((HOSTILE.parent / "expected.yml").read_text())["no_scale.ipynb"]["score"]


@pytest.mark.parametrize("name", sorted(p.name for p in HOSTILE.glob("*.ipynb")))
def test_hostile_example_gains_nothing(tmp_path, name):
    results = tmp_path / "results.json"
    env = dict(os.environ, AUTOGRADER_COURSE=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(HOSTILE / name),
                           "-a", SLUG, "--results", str(results)], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(results.read_text())
    assert data["score"] <= BASELINE, f"{name} gained points: {data['score']} > {BASELINE}"
    blob = results.read_text() + proc.stdout
    assert "def test_" not in blob and "from reference" not in blob


def test_the_four_attacks_are_there():
    names = {p.name for p in HOSTILE.glob("*.ipynb")}
    assert {"monkeypatch_comparisons.ipynb", "tensor_subclass.ipynb", "os_exit.ipynb",
            "reads_outside_submission.ipynb"} <= names
