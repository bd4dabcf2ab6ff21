"""Red-team round 116: the SLURM and cluster recipes as a cluster runs them.

Measured on a real one-node SLURM (Debian's slurm-wlm 22.05 and munge, 2 CPUs, 4096 MB; /tmp/rt116/cluster.py),
running `examples/cluster/slurm/submit.sh` as printed:

- A shard past its time limit (`TIME=1`, 162 submissions) was killed by SLURM (state TIMEOUT, "stopped by SIGTERM: 65
  graded now ... the same command grades the rest"), and the merge cancelled as documented. The rerun the recipe then
  gives (grade.sbatch's header: `sbatch --array=3 --export=ALL,N=...,SEED=... grade.sbatch`) pended for good with
  reason PartitionConfig: it asks grade.sbatch's `#SBATCH` sizes (16 CPUs, 64G), which no small node has, and it ran
  without submit.sh's AUTOGRADER and COURSE. submit.sh now takes SHARDS (the array indices, default 1-N): the same
  command plus `SEED=<seed> SHARDS=K` reruns shard K with the first submission's sizing, checks and merge, and every
  submission prints that line. SHARDS without SEED, and indices outside 1..N, are refused before anything is queued.
- A CPU-time rlimit with a hard limit (`ulimit -t 4` in the job script or the shell that runs the grader, a login
  node's limits.conf where a TA runs `grade`) was neither lifted nor named: sdpa-from-scratch's full_marks with a
  first cell that computes for 6 s of CPU scored 0/35 ("the sandboxed worker stopped: the worker exited", the student
  blamed) against 35/35 without it, and a 162-notebook batch under `ulimit -t 10` had its long-lived grader processes
  SIGKILLed, 3 submissions left unscored. (SLURM's own propagation sets only the soft limit: measured soft 100, hard
  unlimited in a job; that notebook then scored 35/35.) The trusted side now lifts RLIMIT_CPU before any process of
  the sandbox starts (isolation.hold_host_cpu_limit, from zygote.launch_plan) or, where it may not (a hard limit
  without CAP_SYS_RESOURCE, as on this host even as root), stops with one line naming `ulimit -t` and the fix,
  nothing graded.

Tested here against stand-ins for `sbatch` and `sinfo` that record their arguments; `tests/integration/test_slurm.py`
runs the rerun on the real SLURM.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT

SUBMIT = ROOT / "examples" / "cluster" / "slurm" / "submit.sh"

_SBATCH = """#!/bin/sh
printf '%s\\n' "$*" >> "$CALLS"
case "$*" in
  *--test-only*) echo "sbatch: Job 7 to start at 2026-01-01T00:00:00 using 2 processors on nodes n1 in partition main" >&2 ;;
  *) n=$(wc -l < "$CALLS"); echo "$((100 + n))" ;;
esac
"""


@pytest.fixture()
def stand_ins(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A PATH whose `sbatch` records each call (one line of arguments) in $CALLS and whose `sinfo` says no time limit."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "sbatch").write_text(_SBATCH)
    (bindir / "sinfo").write_text("#!/bin/sh\necho infinite\n")
    for stub in bindir.iterdir():
        stub.chmod(0o755)
    calls = tmp_path / "calls.txt"
    env = {k: v for k, v in os.environ.items() if k not in ("SEED", "SHARDS", "JOBS", "PARTITION", "SBATCH_EXTRA")}
    env.update(PATH=f"{bindir}:{os.environ['PATH']}", CALLS=str(calls), SUBMISSIONS=str(tmp_path / "subs"),
               SLUG="sdpa-from-scratch", OUT=str(tmp_path / "out"), N="4", CPUS="2", MEM="3G", TIME="00:20:00")
    return env, calls


def _submit(env: dict[str, str], **knobs: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SUBMIT)], env={**env, **knobs}, capture_output=True, text=True, timeout=60)


def _queued(calls: Path) -> list[str]:
    return [line for line in calls.read_text().splitlines() if "--test-only" not in line]


def test_a_failed_shard_is_rerun_by_the_same_command_with_the_same_sizing(stand_ins: tuple[dict[str, str], Path]):
    env, calls = stand_ins
    first = _submit(env, SEED="4242")
    assert first.returncode == 0, first.stderr
    assert "with SEED=4242 SHARDS=K reruns it" in first.stdout, first.stdout  # the instructor is told how
    calls.write_text("")
    rerun = _submit(env, SEED="4242", SHARDS="3")
    assert rerun.returncode == 0, rerun.stderr
    grade, merge = _queued(calls)
    assert "--array=3 " in grade and "--array=1-4" not in grade, grade  # only the failed shard, not the whole class
    assert "--cpus-per-task=2 --mem=3G --time=00:20:00" in grade, grade  # the first submission's sizing
    assert "--dependency=afterok:" in merge and merge.endswith("merge.sbatch"), merge
    assert "seed 4242" in rerun.stdout


@pytest.mark.parametrize("knobs,said", [
    ({"SHARDS": "3"}, "give its SEED too"),  # a fresh seed would draw other hidden inputs than the other shards
    ({"SHARDS": "5", "SEED": "1"}, "from 1 to N=4"),
    ({"SHARDS": "0-2", "SEED": "1"}, "from 1 to N=4"),
    ({"SHARDS": "2;touch x", "SEED": "1"}, "from 1 to N=4"),
])
def test_a_rerun_naming_no_seed_or_no_shard_of_n_is_refused_before_anything_is_queued(
        stand_ins: tuple[dict[str, str], Path], knobs: dict[str, str], said: str):
    env, calls = stand_ins
    done = _submit(env, **knobs)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith("submit.sh: refused, nothing queued:") and said in done.stderr, done.stderr
    assert not calls.exists() or not _queued(calls)


@pytest.mark.parametrize("hard", [resource.RLIM_INFINITY, 4], ids=["soft-as-slurm-propagates-it", "soft-and-hard"])
def test_a_cpu_time_limit_carried_into_the_job_is_lifted_or_refused_never_graded_under(tmp_path: Path, hard: int):
    # the host allows 4 s of CPU a process; four cells compute for 1.5 s each (each within the fixture's 5 s a cell)
    nb = json.loads((FIXTURE_SUBS / "good.ipynb").read_text(encoding="utf-8"))
    burn = "import time\n_t = time.process_time()\nwhile time.process_time() - _t < 1.5:\n    pass\n"
    for _ in range(4):
        nb["cells"].insert(0, {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": burn})
    (tmp_path / "busy.ipynb").write_text(json.dumps(nb), encoding="utf-8")

    def host_limit() -> None:  # SLURM sets the job's soft limit to the submitting shell's (measured: soft 100, hard unlimited)
        resource.setrlimit(resource.RLIMIT_CPU, (4, hard))
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", "busy.ipynb", "-a", "toy", "--results", "r.json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, preexec_fn=host_limit)
    if proc.returncode == 2 and hard != resource.RLIM_INFINITY:  # a hard limit it may not lift (no CAP_SYS_RESOURCE)
        assert "ulimit -t" in proc.stderr and "CPU time to 4 s" in proc.stderr, proc.stderr[-2000:]
        assert not (tmp_path / "r.json").exists()
        return
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    full = sum(t["max_score"] for t in result["tests"])
    assert result["score"] == full, (result["output"][-500:], [t["output"][:200] for t in result["tests"] if t["score"] < t["max_score"]])


def test_a_hard_cpu_time_limit_of_a_day_or_more_is_graded_under_not_refused():
    """Round 124: any finite hard RLIMIT_CPU was refused without CAP_SYS_RESOURCE, 27 hours too, where the code before
    round 116 graded. A day or more is used (the soft limit raised to it); a short one is still refused."""
    code = ("import resource\nfrom autograder.sandbox.isolation import hold_host_cpu_limit\n"
            "from autograder.errors import GraderError\n"
            "for hard in (100000, 600):\n"
            "    resource.setrlimit(resource.RLIMIT_CPU, (100, hard))\n"
            "    try:\n"
            "        hold_host_cpu_limit()\n"
            "        print(hard, 'graded', resource.getrlimit(resource.RLIMIT_CPU))\n"
            "    except GraderError as e:\n"
            "        print(hard, 'refused', 'ulimit -t' in str(e))\n")
    # lowering a hard limit is allowed to anyone; where this process may raise it again (CAP_SYS_RESOURCE) both lift
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    day, short = proc.stdout.splitlines()
    assert day in ("100000 graded (100000, 100000)", "100000 graded (-1, -1)"), day
    assert short in ("600 refused True", "600 graded (-1, -1)"), short
