"""The sandbox starts without a separate bwrap probe: the bwrap zygote's own start is the probe, and a
bwrap zygote that does not come up falls back to the level the probe then picks, recorded in the result."""
from __future__ import annotations

import pytest

from autograder.results import Isolation
from tests.conftest import FIXTURE_SUBS


def test_bwrap_starts_without_the_probe(monkeypatch, fixture_course):
    from autograder import zygote as zygote_module
    from autograder.grading import Grader
    from autograder.isolation import bwrap_executable, bwrap_works
    if bwrap_executable() is None or not bwrap_works():
        pytest.skip("bwrap is not usable here")
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)

    def no_probe():
        raise AssertionError("the bwrap probe ran although the zygote started under bwrap")
    monkeypatch.setattr(zygote_module, "detect_isolation", no_probe)
    zygote = zygote_module.launch(fixture_course)
    assert isinstance(zygote, zygote_module.ProbingZygote)
    with Grader(fixture_course, zygote=zygote) as grader:
        result = grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=1)
    assert result.score == 4 and result.isolation == Isolation.bwrap


def test_a_bwrap_zygote_that_does_not_start_falls_back(monkeypatch, fixture_course):
    from autograder import zygote as zygote_module
    from autograder.grading import Grader
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)
    monkeypatch.setattr(zygote_module, "bwrap_executable", lambda: "/usr/bin/bwrap")
    monkeypatch.setattr(zygote_module, "bwrap_command", lambda python: ["/bin/false"])  # bwrap "fails"
    asked = []
    monkeypatch.setattr(zygote_module, "detect_isolation", lambda: asked.append(1) or Isolation.rlimits)
    zygote = zygote_module.launch(fixture_course)
    assert isinstance(zygote, zygote_module.ProbingZygote) and zygote.isolation is Isolation.bwrap
    with Grader(fixture_course, zygote=zygote) as grader:
        result = grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=1)
        assert grader.isolation is Isolation.rlimits
    assert asked == [1], "the probe decides the level once bwrap did not start"
    assert result.score == 4 and result.isolation == Isolation.rlimits, "the level that ran is recorded"


def test_a_forced_level_is_launched_as_asked(monkeypatch, fixture_course):
    from autograder import zygote as zygote_module
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)
    zygote = zygote_module.launch(fixture_course, Isolation.rlimits)
    try:
        assert not isinstance(zygote, zygote_module.ProbingZygote) and zygote.isolation is Isolation.rlimits
    finally:
        zygote.close()
