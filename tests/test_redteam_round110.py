"""Red-team round 110: hosts that differ from ours.

The grader run as its users run it, one variation of the host at a time (repros in /tmp/rt110/: h.sh grades
sdpa-from-scratch's full_marks and no_scale, b.sh batches four of its examples with -j2, asuser.sh runs as uid 1000
with the venv reachable, nouserns.py refuses namespaces as a host without unprivileged user namespaces does). Held,
35 and 19 points each time: HOME unset or missing; TMPDIR unset, missing, with spaces and non-ASCII, a 64 KiB tmpfs
(a zip class there: "cannot unpack cls.zip: No space left on device", exit 2); LANG=C, LC_ALL=POSIX; TERM=dumb,
NO_COLOR, COLUMNS=20; PYTHONOPTIMIZE=2, PYTHONWARNINGS=error, PYTHONHASHSEED=0, PYTHONSTARTUP and PYTHONPATH;
OMP/MKL/OpenBLAS threads 64, TORCH_LOGS, CUDA_VISIBLE_DEVICES empty; ulimit -u 64, -n 64 and -n 32; umask 077 and
000; taskset -c 0; Docker's default capabilities (container level) with each of those that touch files; uid 1000
with bwrap, and without user namespaces (rlimits, with and without Landlock), under ulimit -u 64, with the course
and venv read-only. Found:

- **A non-UTF-8 locale.** A cluster whose `LANG=en_US` is glibc's ISO-8859-1 locale (or `LC_ALL=C` with
  `PYTHONUTF8=0`: ASCII) made Python decode file names and read text in that encoding. Measured (a class of
  `José Núñez.ipynb`, `王伟.ipynb`, `bob.ipynb`; `LOCPATH=/tmp/rt110/loc LC_ALL=en_US.ISO-8859-1 autograder batch`):
  gradebook.csv and canvas.csv named the students `JosÃ© NÃºÃ±ez` and `çä¼` (ASCII: `Jos\\xc3\\xa9 ...`), so
  Canvas matches neither, and their submission keys took a digest suffix (`ç\\x8e\\x8bä¼\\x9f.ipynb~0b728d136c`)
  that a UTF-8 host's run of the same class does not have; `autograder grade` printed no table and no score, only
  "note: could not print the table (UnicodeEncodeError)". Now the command starts itself again under `LC_ALL=C.UTF-8`
  (cli._utf8_locale: its arguments as the bytes they came as, the grader processes it starts inherit it): the same
  names, keys and table as on a UTF-8 host.
- **The host's memory limit below grading.yml's.** A worker sets RLIMIT_DATA to `memory_mb` and cannot raise a hard
  limit the host set lower (a login node's `ulimit -d`/`-v`, which SLURM propagates to the jobs started there); the
  setrlimit's failure was passed over. Measured (uid 1000, `ulimit -d 1500000`, sdpa-from-scratch's full_marks with
  `_check = torch.randn(250_000_000).abs().mean()` atop the cell of its graded function, /tmp/rt110/big.ipynb): 19/35
  against 35/35 without the ulimit, and the result said `RLIMIT_DATA 3072 MiB` both times. Now the trusted side
  raises the host's RLIMIT_DATA and RLIMIT_AS to at least `memory_mb` before any sandbox process starts
  (isolation.hold_host_memory_limits, from zygote.launch_plan) or, where it may not (not root, or root without
  CAP_SYS_RESOURCE as here), stops with one line naming the limit, the ulimit flag and the fix (exit 2, nothing
  graded).
- **No folder takes temporary files.** A Kubernetes pod with `readOnlyRootFilesystem` and no volume at /tmp (measured:
  uid 1000 in a mount namespace with /tmp, /var/tmp and the course read-only) made `grade` and `batch` end in a
  40-line traceback of tempfile's ("No usable temporary directory found in ['/tmp', '/var/tmp', '/usr/tmp',
  '/work/main']"), exit 1. Now both say it in one line before anything starts, with the fix (TMPDIR, a writable
  volume at /tmp), exit 2.
"""
from __future__ import annotations

import csv
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

FIXTURE_COURSE = ROOT / "tests" / "fixtures" / "course"
GOOD = ROOT / "tests" / "fixtures" / "submissions" / "good.ipynb"

# An ASCII locale that needs nothing installed: the C locale with Python's UTF-8 mode turned off, as
# `PYTHONUTF8=0` in a site's profile does (ISO-8859-1 locales, measured too, need localedef'd data)
ASCII_HOST = {"LC_ALL": "C", "PYTHONUTF8": "0"}


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONUTF8", "PYTHONIOENCODING"))}
    env.update(ASCII_HOST, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    return subprocess.run([sys.executable, "-m", "autograder.cli", *args], capture_output=True, env=env, cwd=cwd,
                          timeout=300, text=True, encoding="utf-8", errors="replace")


def test_the_probe_host_really_is_ascii():
    env = dict(os.environ, **ASCII_HOST)
    out = subprocess.run([sys.executable, "-c", "import sys; print(sys.getfilesystemencoding())"],
                         capture_output=True, text=True, env=env, timeout=60).stdout.strip()
    assert out == "ascii"


def test_a_class_with_non_ascii_names_on_a_non_utf8_host_keeps_its_names(tmp_path):
    cls = tmp_path / "cls"
    cls.mkdir()
    for name in ("José Núñez.ipynb", "王伟.ipynb", "bob.ipynb"):
        (cls / name).write_bytes(GOOD.read_bytes())
    proc = run_cli(["batch", "cls", "-a", "toy", "-o", "out", "-j", "1"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with open(tmp_path / "out" / "gradebook.csv", encoding="utf-8") as f:
        rows = {row["name"]: row for row in csv.DictReader(f)}
    assert set(rows) == {"José Núñez", "王伟", "bob"}, sorted(rows)
    assert {row["submission"] for row in rows.values()} == {"José Núñez.ipynb", "王伟.ipynb", "bob.ipynb"}
    assert len({row["score"] for row in rows.values()}) == 1
    with open(tmp_path / "out" / "canvas.csv", encoding="utf-8") as f:
        assert {"José Núñez", "王伟"} <= {row[0] for row in csv.reader(f)}


def test_grade_prints_its_table_on_a_non_utf8_host(tmp_path):
    (tmp_path / "José.ipynb").write_bytes(GOOD.read_bytes())
    proc = run_cli(["grade", "José.ipynb", "-a", "toy", "--results", "r.json"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "could not print the table" not in proc.stderr
    assert "Score:" in proc.stdout and "José.ipynb" in proc.stdout
    assert (tmp_path / "r.json").is_file()


def test_a_host_memory_limit_below_memory_mb_is_raised_or_refused_never_graded_under(tmp_path):
    # the fixture course gives a worker 2048 MiB; the host allows 1280 MiB; the notebook's cell takes 1.4 GB
    nb = json.loads(GOOD.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if "def attend" in "".join(cell["source"]):
            cell["source"] = "import torch\n_check = torch.ones(350_000_000).sum()\ndel _check\n" + "".join(cell["source"])
    (tmp_path / "big.ipynb").write_text(json.dumps(nb), encoding="utf-8")

    def host_limit() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (1280 << 20, 1280 << 20))
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", "big.ipynb", "-a", "toy", "--results", "r.json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, preexec_fn=host_limit)
    if proc.returncode == 2:  # not allowed to raise it (not root, or no CAP_SYS_RESOURCE): said, nothing graded
        assert "limits.memory_mb (2048)" in proc.stderr and "ulimit -d" in proc.stderr, proc.stderr[-2000:]
        assert not (tmp_path / "r.json").exists()
        return
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    full = sum(t["max_score"] for t in result["tests"])
    assert result["score"] == full, [t["output"][:200] for t in result["tests"] if t["score"] < t["max_score"]]


def _private_mounts_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True, timeout=30)
    return probe.returncode == 0


@pytest.mark.skipif(not _private_mounts_work(), reason="needs a private mount namespace (root with CAP_SYS_ADMIN)")
def test_no_writable_temporary_folder_is_one_line_not_a_traceback():
    # /tmp and /var/tmp read-only in a mount namespace of the command's own (other graders on the host see nothing
    # of it); the working directory /proc takes no file either: every folder tempfile tries
    env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP")}
    env["AUTOGRADER_COURSE"] = str(FIXTURE_COURSE)
    script = ("mount -t tmpfs -o ro tmpfs /tmp && mount -t tmpfs -o ro tmpfs /var/tmp && cd /proc && "
              'exec "$0" -m autograder.cli grade "$1" -a toy')
    proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, sys.executable,
                           str(GOOD)], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert proc.stderr.startswith("error: no folder here takes temporary files"), proc.stderr[-3000:]
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
