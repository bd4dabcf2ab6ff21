"""The sandbox's level is chosen by starting it: the strongest candidate's zygote starts with no probe
before it, a level that cannot start is skipped with one line saying why, and the level that ran is
recorded in the result."""
from __future__ import annotations

import os

import pytest

from autograder.errors import GraderError
from autograder.results import Isolation
from tests.conftest import FIXTURE_SUBS


def test_bwrap_starts_without_the_probe(monkeypatch, fixture_course):
    from autograder.sandbox import isolation as isolation_module
    from autograder.sandbox import zygote as zygote_module
    from autograder.grading.grader import Grader
    from autograder.sandbox.isolation import bwrap_executable, bwrap_works
    if bwrap_executable() is None or not bwrap_works():
        pytest.skip("bwrap is not usable here")
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)

    def no_probe():
        raise AssertionError("the bwrap probe ran although the zygote started under bwrap")
    monkeypatch.setattr(isolation_module, "bwrap_works", no_probe)
    zygote = zygote_module.launch(fixture_course)
    assert isinstance(zygote, zygote_module.LevelChain)
    with Grader(fixture_course, zygote=zygote) as grader:
        result = grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=1)
    assert result.score == 4 and result.isolation == Isolation.bwrap
    assert zygote.skipped == []


def test_a_level_that_does_not_start_is_skipped_with_its_reason(monkeypatch, fixture_course, capsys):
    from autograder.sandbox import zygote as zygote_module
    from autograder.grading.grader import Grader
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)
    monkeypatch.setattr(zygote_module, "bwrap_command", lambda python: ["/bin/false"])  # bwrap "fails"
    zygote = zygote_module.LevelChain(fixture_course, [Isolation.bwrap, Isolation.rlimits])
    zygote.launch()
    with Grader(fixture_course, zygote=zygote) as grader:
        result = grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=1)
        assert grader.isolation is Isolation.rlimits
    assert result.score == 4 and result.isolation == Isolation.rlimits, "the level that ran is recorded"
    assert [s.split(":")[0] for s in zygote.skipped] == ["bwrap"]
    err = capsys.readouterr().err
    assert "sandbox level bwrap skipped" in err and err.count("\n") == 1, err


def test_when_no_level_starts_one_error_names_each(monkeypatch, fixture_course):
    from autograder.sandbox import zygote as zygote_module
    monkeypatch.setattr(zygote_module, "bwrap_command", lambda python: ["/bin/false"])
    zygote = zygote_module.LevelChain(fixture_course, [Isolation.bwrap])
    zygote.launch()
    with pytest.raises(GraderError, match=r"no sandbox level starts here \(bwrap: "):
        zygote.wait_ready()
    zygote.close()


def test_root_never_falls_to_rlimits(monkeypatch):
    from autograder.sandbox import isolation
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)
    levels = isolation.candidate_levels()
    if os.geteuid() == 0:
        assert levels[-2:] == [Isolation.fallback, Isolation.container] and Isolation.rlimits not in levels
    else:
        assert levels[-1] is Isolation.rlimits and Isolation.container not in levels


def test_a_forced_level_is_launched_as_asked(monkeypatch, fixture_course):
    from autograder.sandbox import zygote as zygote_module
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)
    zygote = zygote_module.launch(fixture_course, Isolation.rlimits)
    try:
        assert not isinstance(zygote, zygote_module.LevelChain) and zygote.isolation is Isolation.rlimits
    finally:
        zygote.close()


def test_exit_without_teardown_runs_atexit_flushes_and_keeps_the_status(tmp_path):
    import subprocess
    import sys
    code = ("import atexit, sys\n"
            "from autograder import exit_without_teardown\n"
            "atexit.register(lambda: print('atexit ran'))\n"
            "sys.stdout.write('unflushed ')\n"
            "exit_without_teardown(3)\n"
            "print('never')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3 and proc.stdout == "unflushed atexit ran\n", proc


def test_the_console_script_exits_with_the_commands_status(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    script = Path(sys.executable).parent / "autograder"
    if not script.exists():
        pytest.skip("no console script in this environment")
    ok = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.startswith("autograder ")
    missing = subprocess.run([str(script), "grade", str(tmp_path / "none.ipynb"), "-a", "x"], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 2 and "no such file" in missing.stderr
