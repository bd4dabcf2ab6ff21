"""Red-team round 106: the CLI contract as its users call it.

Attacked with the fixture course's `toy` assignment (repros in /tmp/rt106/: sigint.py, and shell lines run from
there): paths with spaces, newlines and non-UTF-8 bytes, `--all.ipynb` and `-o.ipynb` in a class folder and from a
shell glob, links to /dev/zero, FIFOs and folders where a notebook is expected, per-student folders whose notebook is
a link into a classmate's, `-o` a file, inside the class folder or the class folder itself, `-o` of merge one of its
inputs, Ctrl-C of `grade`, a closed or full stdout. Held: every student path shown escaped, options after `--` and a
glob's `--all.ipynb` refused by click (never taken as an option silently), links and FIFOs rejected as not a file
(grade: 0 with the reason; batch: "no .ipynb or .py file found"), `-o` a file or /proc refused in one line, merge
into one of its inputs refused, Ctrl-C of grade exits 130. Found:

- **A closed or full stdout.** Standard output is the command's narrative; its work is files. Measured: `batch ... |
  true` exited 1, stderr empty, nothing graded; `batch ... | head -1` graded the class or nothing (exit 1 either way),
  by the pipe's timing; `grade --results r.json | true` wrote r.json and exited 1 in silence (rich's broken-pipe
  handler raises SystemExit(1) past the table's guard); `merge | true` likewise; `batch > /dev/full` printed a
  traceback. Now a failed write to stdout points fd 1 at /dev/null, the command runs to its end, its exit status is
  its work's, and stderr says once that stdout was closed.
- **`grade --results` naming the submission itself** (a TA's tab completion) wrote results.json over the student's
  notebook, exit 0. Refused now (exit 2, one line), the notebook untouched.
- **`gradescope -o` a folder, or in a folder that is not there**: a traceback (IsADirectoryError,
  FileNotFoundError), exit 1. Now one line, exit 2.
- **`batch --hand-scores` a device or a FIFO.** read_hand_scores checked st_size (0 for /dev/zero) and then read the
  whole file: /dev/zero took memory until the kernel killed the batch (exit 137 under `timeout 60`), a FIFO waited for
  ever. Now only a regular file is read, at most MAX_BYTES + 1 of it, opened non-blocking.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

FIXTURE_COURSE = ROOT / "tests" / "fixtures" / "course"
GOOD = ROOT / "tests" / "fixtures" / "submissions" / "good.ipynb"
ENV = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))


def run_with_stdout(args: list[str], stdout: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autograder.cli", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=ENV, cwd=cwd, timeout=300)


def closed_pipe() -> int:
    """The write end of a pipe whose reader is gone: the first line written gets EPIPE, as `| true` gives."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    return write_end


def test_a_batch_into_a_closed_pipe_grades_the_class_and_exits_0(tmp_path):
    (tmp_path / "cls").mkdir()
    (tmp_path / "cls" / "alice.ipynb").write_bytes(GOOD.read_bytes())
    out = closed_pipe()
    try:
        proc = run_with_stdout(["batch", "cls", "-a", "toy", "-o", "out", "-j", "1"], out, tmp_path)
    finally:
        os.close(out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with open(tmp_path / "out" / "gradebook.csv") as f:
        assert "alice" in f.read()
    assert "standard output was closed" in proc.stderr and "Traceback" not in proc.stderr


def test_a_batch_into_a_full_stdout_is_no_traceback(tmp_path):
    (tmp_path / "cls").mkdir()
    (tmp_path / "cls" / "alice.ipynb").write_bytes(GOOD.read_bytes())
    with open("/dev/full", "w") as full:
        proc = run_with_stdout(["batch", "cls", "-a", "toy", "-o", "out", "-j", "1"], full.fileno(), tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert (tmp_path / "out" / "gradebook.csv").is_file()


def test_grade_into_a_closed_pipe_keeps_its_results_and_exits_0(tmp_path):
    out = closed_pipe()
    try:
        proc = run_with_stdout(["grade", str(GOOD), "-a", "toy", "--results", "r.json"], out, tmp_path)
    finally:
        os.close(out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads((tmp_path / "r.json").read_text())["score"] == 4
    assert len(proc.stderr.strip().splitlines()) == 1 and "standard output was closed" in proc.stderr


def test_results_over_the_submission_itself_is_refused(tmp_path):
    sub = tmp_path / "hw.ipynb"
    sub.write_bytes(GOOD.read_bytes())
    proc = run_with_stdout(["grade", "hw.ipynb", "-a", "toy", "--results", "./hw.ipynb"], subprocess.PIPE, tmp_path)
    assert proc.returncode == 2 and "is the submission itself" in proc.stderr
    assert sub.read_bytes() == GOOD.read_bytes()


def test_gradescope_into_a_folder_is_one_line(tmp_path):
    (tmp_path / "zip.d").mkdir()
    (tmp_path / "a_file").write_text("")
    for target in ("zip.d", "a_file/autograder.zip"):
        proc = run_with_stdout(["gradescope", "toy", "-o", target], subprocess.PIPE, tmp_path)
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert proc.stderr.startswith("error: could not write") and len(proc.stderr.strip().splitlines()) == 1


HAND = ("import sys\nfrom pathlib import Path\nfrom autograder.course.handscores import read_hand_scores\n"
        "try:\n    read_hand_scores(Path(sys.argv[1]), {'q3': 2.0})\nexcept Exception as e:\n    print(e)\n")


def read_hand_scores_of(path: str) -> subprocess.CompletedProcess[str]:
    def cap_memory() -> None:  # as found, /dev/zero was read whole: a MemoryError here, not the host's memory
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    return subprocess.run([sys.executable, "-c", HAND, path], capture_output=True, text=True, env=ENV, timeout=60,
                          preexec_fn=cap_memory)


def test_hand_scores_that_are_a_device_or_a_fifo_are_refused(tmp_path):
    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    link = tmp_path / "zero.csv"
    link.symlink_to("/dev/zero")
    for path in (str(fifo), str(link), "/dev/zero"):
        proc = read_hand_scores_of(path)  # a FIFO waited for ever (TimeoutExpired fails the test)
        assert "not a regular file" in proc.stdout, (path, proc.stdout, proc.stderr[-1000:])
