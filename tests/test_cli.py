"""The CLI contract: exit 0 when grading finished whatever the score, 2 with a one-line reason when
the grader itself cannot do its job."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT, SLUGS


def cli(*args: str, course=FIXTURE_COURSE):
    env = dict(os.environ, AUTOGRADER_COURSE=str(course))
    return subprocess.run([sys.executable, "-m", "autograder.cli", *args], capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.mark.parametrize("args,needle", [
    (("grade", str(FIXTURE_SUBS / "good.ipynb"), "-a", "nope"), "unknown assignment 'nope'"),
    (("grade", "missing.ipynb", "-a", "toy"), "no such file"),
    (("grade", str(FIXTURE_SUBS), "-a", "toy"), "is a folder: grade one notebook, or use `autograder batch"),
    (("grade", str(FIXTURE_SUBS / "good.ipynb"), "-a", "toy", "--isolation", "docker"),
     "--isolation must be one of bwrap, fallback, rlimits"),
    (("batch", "not-a-dir", "-a", "toy", "-o", "out"), "is not a directory"),
    (("gradescope", "nope", "-o", "x.zip"), "unknown assignment"),
    (("batch", str(FIXTURE_SUBS), "-a", "toy", "-o", "out", "--shard", "4/3"), "K must be between 1 and N"),
    (("batch", str(FIXTURE_SUBS), "-a", "toy", "-o", "out", "--shard", "half"), "--shard takes K/N"),
    (("batch", str(FIXTURE_SUBS), "-a", "nope", "-o", "out"), "unknown assignment 'nope'"),
    (("merge", str(FIXTURE_SUBS), "-o", "out"), "no journal.sqlite"),
])
def test_grader_problems_exit_2_with_one_line(args, needle):
    proc = cli(*args)
    assert proc.returncode == 2
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_bad_grading_yml_names_the_key(tmp_path):
    (tmp_path / "grading.yml").write_text("limits: {cell_timeout_s: fast}\n")
    proc = cli("grade", str(FIXTURE_SUBS / "good.ipynb"), "-a", "toy", course=tmp_path)
    assert proc.returncode == 2 and "limits.cell_timeout_s" in proc.stderr


def test_a_zero_score_still_exits_0(tmp_path):
    bad = tmp_path / "sub.ipynb"
    bad.write_text("not a notebook")
    proc = cli("grade", str(bad), "-a", "toy", "--results", str(tmp_path / "r.json"))
    assert proc.returncode == 0 and (tmp_path / "r.json").is_file()
    assert "could not be graded" in (tmp_path / "r.json").read_text()


# --- student text reaching the TA's terminal is inert ------------------------------------------------
HOSTILE_PY = '''
Evil = type("Score: 33 / 33\\n\\x1b[2J[/]\\r", (Exception,), {})   # the class name is text too
def attend(Q, K, V):
    raise Evil("[/] [bold red]x[link=javascript:alert(1)]y \\x1b]0;pwned\\x07\\rScore: 33 / 33\\b\\b")
answer = "B"
'''


def test_hostile_student_text_is_inert_and_results_come_first(tmp_path):
    sub = tmp_path / "=evil\x1b[2J[bold]\rScore: 33 ⁄ 33.py"
    sub.write_text(HOSTILE_PY)
    proc = cli("grade", str(sub), "-a", "toy", "--results", str(tmp_path / "r.json"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["score"] == 1 and "Score: 33 / 33" in data["tests"][0]["output"]  # recorded as written
    for raw in ("\x1b", "\r", "\b", "\x07"):
        assert raw not in proc.stdout and raw not in proc.stderr
    assert "\\x1b[2J" in proc.stdout and "[/]" in proc.stdout  # shown, neither obeyed nor parsed
    lines = proc.stdout.splitlines()
    ours = [i for i, line in enumerate(lines) if re.match(r"\s*Score:", line)]
    assert len(ours) == 1 and lines[ours[0]].startswith("Score: 1 / 4 ")
    for line in lines[:ours[0]]:  # student text only inside the table's frame or after our prefix
        assert line[:1] in "┏┃┡│├└╭╰" or line.startswith("submission: "), line


def test_a_crash_while_printing_keeps_results_and_exit_0(tmp_path):
    """Whatever goes wrong drawing the table, results.json is already written and grading finished."""
    code = ("import sys, autograder.course.outputs as o\n"
            "def boom(*a, **k): raise RuntimeError('rich fell over')\n"
            "o.print_table = boom\n"
            "from autograder.cli import app\n"
            "sys.argv = ['autograder', *sys.argv[1:]]\n"
            "app()\n")
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    proc = subprocess.run([sys.executable, "-c", code, "grade", str(FIXTURE_SUBS / "good.ipynb"), "-a", "toy",
                           "--results", str(tmp_path / "r.json")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads((tmp_path / "r.json").read_text())["score"] == 4
    assert "could not print the table" in proc.stderr


def test_error_lines_are_inert(tmp_path):
    proc = cli("grade", str(tmp_path / "gone\x1b[2J\nScore: 33 / 33.ipynb"), "-a", "toy")
    assert proc.returncode == 2 and "no such file" in proc.stderr
    assert "\x1b" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_version_is_printed_and_exits_0():
    from autograder import __version__
    proc = cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"autograder {__version__}"



# --- the first thing a TA reads: -a's help, and an unknown assignment ----------------------------------
def _help_text(proc) -> str:
    """The help as one line of words: rich draws a box and wraps at the terminal's width."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", proc.stdout).split())


@pytest.mark.parametrize("command", ["grade", "batch", "assign", "gradescope"])
def test_help_lists_the_course_assignments(command):
    proc = cli(command, "--help", course=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ", ".join(SLUGS) in _help_text(proc)  # grading.yml's order


def test_help_works_without_a_grading_yml(tmp_path):
    proc = cli("grade", "--help", course=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "assignment slug (grading.yml lists them; none found from here)" in _help_text(proc)


def test_building_the_cli_imports_neither_torch_nor_the_grading_stack():
    code = ("import json, sys\n"
            "from autograder.cli import app\n"
            "for args in (['--help'], ['grade', '--help'], ['batch', '--help']):\n"
            "    try:\n"
            "        app(args, prog_name='autograder')\n"
            "    except SystemExit as e:\n"
            "        assert e.code == 0, (args, e.code)\n"
            "print(json.dumps(sorted(m for m in sys.modules\n"
            "                        if m.split('.')[0] in ('torch', 'otter', 'numpy', 'autograder'))))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, AUTOGRADER_COURSE=str(ROOT)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert loaded == ["autograder", "autograder.cli", "autograder.errors"]


@pytest.mark.parametrize("command", ["grade", "batch"])
def test_an_unknown_assignment_is_one_line_naming_the_valid_ones(command, tmp_path):
    sub = ROOT / "examples" / "submissions" / "sdpa-from-scratch"
    args = [str(sub / "full_marks.ipynb")] if command == "grade" else [str(sub), "-o", str(tmp_path / "out")]
    proc = cli(command, *args, "-a", "nope", course=ROOT)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown assignment 'nope'" in lines[0]
    for slug in SLUGS:
        assert slug in lines[0]
