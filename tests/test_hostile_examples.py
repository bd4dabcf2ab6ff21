"""The hostile sample submissions of sdpa-from-scratch: each is no_scale.ipynb plus an attack; none
may score above no_scale.ipynb itself, the grade must finish, and nothing of the grader may leak."""
from __future__ import annotations

import json

import pytest
import yaml

from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
HOSTILE = ROOT / "examples" / "submissions" / SLUG / "hostile"
BASELINE = yaml.safe_load((HOSTILE.parent / "expected.yml").read_text())["no_scale.ipynb"]["score"]


@pytest.mark.parametrize("name", sorted(p.name for p in HOSTILE.glob("*.ipynb")))
def test_hostile_example_gains_nothing(grader, tmp_path, name, capfd):
    """Graded as `autograder grade --results` grades it (the same calls), by the session's warm grader of the
    real course, which the held-out set goes on using: what the attack does to it shows there too."""
    import io

    from rich.console import Console

    from autograder.course.outputs import print_table, write_results
    results = tmp_path / "results.json"
    result = grader.grade(HOSTILE / name, SLUG)
    write_results(result, grader.course.config.visibility, results)
    terminal = io.StringIO()
    print_table(result, Console(file=terminal, width=160, highlight=False, emoji=False), all_tests=True)
    data = json.loads(results.read_text())
    assert data["score"] <= BASELINE, f"{name} gained points: {data['score']} > {BASELINE}"
    out, err = capfd.readouterr()   # what the grader's own process printed or logged meanwhile
    blob = results.read_text() + terminal.getvalue() + out + err
    assert "def test_" not in blob and "from reference" not in blob


def test_the_four_attacks_are_there():
    names = {p.name for p in HOSTILE.glob("*.ipynb")}
    assert {"monkeypatch_comparisons.ipynb", "tensor_subclass.ipynb", "os_exit.ipynb",
            "reads_outside_submission.ipynb"} <= names
